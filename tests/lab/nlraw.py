#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nlraw: dropscope.ko's family on a raw netlink socket, no library between.

    nlraw.py ids
        prints the family id and the alert group id
    nlraw.py poke FAMILY_ID GROUP_ID CMD...
        sends each CMD (a number; dNUMBER as a dump) to that family id
        without resolving it, as a process that may not see the family
        would; prints the errno name of each answer (ok for none). "join"
        joins the group and listens for 5 s: "joined:N" with N messages of
        the family received, or the errno name
    nlraw.py listen
        joins the alert group, prints "joined", and counts the messages of
        the family it receives until SIGTERM: then prints "messages N"
    nlraw.py slowdump CMD THEN GO_FILE

Resolves the DROPSCOPE family, asks for a dump of command CMD and reads
one part of it (one recv), then prints "first N" (N messages read) and
waits until GO_FILE exists, the dump meanwhile left open in the kernel.
Then, with THEN "read", it reads the rest and prints "done TOTAL" at the
NLMSG_DONE (or "error ERRNO" at an error, "truncated" on a short read);
with THEN "close", it closes the socket without reading on and prints
"closed". Exit status 0, or 1 when the dump did not end as expected.
"""
import errno
import os
import signal
import socket
import struct
import sys
import time

NETLINK_GENERIC = 16
GENL_ID_CTRL = 16
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_ID = 2
SOL_NETLINK, NETLINK_ADD_MEMBERSHIP = 270, 1
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3


def msgs(buf):
    """The (type, flags, payload) of each netlink message in buf."""
    off = 0
    while off + 16 <= len(buf):
        length, typ, flags, _seq, _pid = struct.unpack_from("=IHHII", buf, off)
        if length < 16 or off + length > len(buf):
            raise ValueError("truncated")
        yield typ, flags, buf[off + 16:off + length]
        off += (length + 3) & ~3


def request(sk, typ, flags, cmd, attrs=b""):
    payload = struct.pack("=BBH", cmd, 1, 0) + attrs
    sk.send(struct.pack("=IHHII", 16 + len(payload), typ, flags, 1, 0) + payload)


def attrs(p, off=0):
    """The (type, payload) of each attribute in p from off."""
    while off + 4 <= len(p):
        alen, atype = struct.unpack_from("=HH", p, off)
        if alen < 4:
            return
        yield atype & 0x3fff, p[off + 4:off + alen]
        off += (alen + 3) & ~3


def family_id(sk):
    name = b"dropscope\0"
    attr = struct.pack("=HH", 4 + len(name), CTRL_ATTR_FAMILY_NAME) + name
    request(sk, GENL_ID_CTRL, NLM_F_REQUEST, CTRL_CMD_GETFAMILY,
            attr + b"\0" * (-len(attr) % 4))
    for typ, _flags, p in msgs(sk.recv(65536)):
        if typ == NLMSG_ERROR:
            sys.exit(f"nlraw: no dropscope family ({struct.unpack_from('=i', p)[0]})")
        fam = grp = None
        for t, v in attrs(p, 4):
            if t == CTRL_ATTR_FAMILY_ID:
                fam = struct.unpack_from("=H", v)[0]
            elif t == CTRL_ATTR_MCAST_GROUPS:
                for _i, g in attrs(v):
                    for gt, gv in attrs(g):
                        if gt == CTRL_ATTR_MCAST_GRP_ID:
                            grp = struct.unpack_from("=I", gv)[0]
        if fam is not None:
            return fam, grp
    sys.exit("nlraw: no family id in the reply")


def count(sk, fam, done):
    """The messages of the family received until done(idle) is true;
    idle: the last 50 ms brought none."""
    n = 0
    sk.settimeout(0.05)
    while True:
        try:
            n += sum(t == fam for t, _f, _p in msgs(sk.recv(65536)))
            idle = False
        except socket.timeout:
            idle = True
        if done(idle):
            return n


def poke(sk, fam, grp, cmds):
    out = []
    for c in cmds:
        if c == "join":
            try:
                sk.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, grp)
                end = time.monotonic() + 5
                n = count(sk, fam, lambda _idle: time.monotonic() >= end)
                sk.settimeout(None)
                out.append(f"joined:{n}")
            except OSError as e:
                out.append(errno.errorcode[e.errno])
            continue
        dump = c.startswith("d")
        request(sk, fam, NLM_F_REQUEST | (NLM_F_DUMP if dump else NLM_F_ACK),
                int(c.lstrip("d")))
        res = None
        while res is None:
            for typ, _flags, p in msgs(sk.recv(65536)):
                if typ == NLMSG_ERROR:
                    e = -struct.unpack_from("=i", p)[0]
                    res = errno.errorcode[e] if e else "ok"
                elif typ == NLMSG_DONE:
                    res = "ok"
        out.append(res)
    print(" ".join(out))
    return 0


def listen(sk):
    fam, grp = family_id(sk)
    # a big buffer: what the kernel sends must all arrive
    sk.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    sk.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, grp)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    print("joined", flush=True)
    # after SIGTERM, until nothing more is queued
    n = count(sk, fam, lambda idle: stop and idle)
    print("messages", n, flush=True)
    return 0


def main():
    sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sk.bind((0, 0))
    if sys.argv[1:2] == ["ids"]:
        print(*family_id(sk))
        return 0
    if sys.argv[1:2] == ["poke"] and len(sys.argv) > 4:
        return poke(sk, int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
    if sys.argv[1:] == ["listen"]:
        return listen(sk)
    if len(sys.argv) != 5 or sys.argv[1] != "slowdump" or \
            sys.argv[3] not in ("read", "close"):
        sys.exit(__doc__.split("\n\n")[1])
    cmd, then, go = int(sys.argv[2]), sys.argv[3], sys.argv[4]
    fam, _grp = family_id(sk)
    request(sk, fam, NLM_F_REQUEST | NLM_F_DUMP, cmd)
    total = 0
    done = False
    first = True
    while not done:
        buf = sk.recv(32768)
        for typ, _flags, p in msgs(buf):
            if typ == NLMSG_DONE:
                done = True
            elif typ == NLMSG_ERROR:
                print("error", -struct.unpack_from("=i", p)[0], flush=True)
                return 1
            else:
                total += 1
        if first:
            first = False
            print("first", total, flush=True)
            if done:
                return 1    # too short to be read slowly
            while not os.path.exists(go):
                time.sleep(0.05)
            if then == "close":
                sk.close()
                print("closed", flush=True)
                return 0
    print("done", total, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
