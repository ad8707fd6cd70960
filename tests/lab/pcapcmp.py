#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pcapcmp: the IP packets of files, compared.

  pcapcmp.py REF.pcap OURS.pcapng     "N M same" or "N M differ: ..."
  pcapcmp.py count OURS.pcapng        the packets of a pcapng file
  pcapcmp.py caplens OURS.pcapng      the lengths its packets were kept at

REF is what tcpdump -w wrote (pcap, Ethernet on lo: the IP packet after
14 bytes); OURS is dropscope's capture (pcapng, LINUX_SLL2: after 20).
The packets must be the same bytes in the same order: dropscope's from
their network header, as the kernel dropped them.
"""
import struct
import sys


def pcap(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    link = struct.unpack(end + "I", data[20:24])[0]
    skip = {1: 14, 101: 0, 113: 16, 276: 20}[link]
    out, off = [], 24
    while off + 16 <= len(data):
        caplen = struct.unpack(end + "I", data[off + 8:off + 12])[0]
        out.append(data[off + 16 + skip:off + 16 + caplen])
        off += 16 + caplen
    return out


def pcapng(path):
    data = open(path, "rb").read()
    out, off, skip = [], 0, None
    while off + 12 <= len(data):
        btype, blen = struct.unpack("<II", data[off:off + 8])
        if blen < 12 or off + blen > len(data):
            raise SystemExit(f"{path}: a block runs past the end at {off}")
        if btype == 1:
            link = struct.unpack("<H", data[off + 8:off + 10])[0]
            skip = {276: 20, 101: 0}[link]
        elif btype == 6:
            caplen = struct.unpack("<I", data[off + 20:off + 24])[0]
            out.append(data[off + 28 + skip:off + 28 + caplen])
        off += blen
    if off != len(data):
        raise SystemExit(f"{path}: {len(data) - off} bytes after the last block")
    return out


if sys.argv[1] == "count":
    print(len(pcapng(sys.argv[2])))
    sys.exit(0)
if sys.argv[1] == "caplens":
    print(" ".join(str(n) for n in sorted({len(p) for p in pcapng(sys.argv[2])})))
    sys.exit(0)
ref, ours = pcap(sys.argv[1]), pcapng(sys.argv[2])
bad = [i for i, (a, b) in enumerate(zip(ref, ours)) if a != b]
if len(ref) != len(ours) or bad:
    print(len(ref), len(ours), "differ:", bad[:5])
else:
    print(len(ref), len(ours), "same")
