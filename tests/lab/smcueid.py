#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""smcueid: a user-defined EID in smc.ko's table, as smc_pnet -U would add it.

    smcueid.py add NAME     SMC_NETLINK_ADD_UEID
    smcueid.py del NAME     SMC_NETLINK_REMOVE_UEID

NAME (upper case letters, digits, '.' and '-') goes padded with blanks to
32 bytes and a NUL (SMC_NLA_EID_TABLE_ENTRY). SMC-Rv2 needs an EID that
both ends share: with one, AF_SMC pairs on 127.0.0.1 over a soft-RoCE
device on lo run SMC-R. Prints "ok", or the errno name of the refusal
(EEXIST for a name already there); exit status 0 or 1.
"""
import errno
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 16
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2
SMC_NETLINK_ADD_UEID, SMC_NETLINK_REMOVE_UEID = 10, 11
SMC_NLA_EID_TABLE_ENTRY = 1


def attr(typ, data):
    return struct.pack("=HH", 4 + len(data), typ) + data + b"\0" * (-len(data) % 4)


def attrs(buf):
    off = 0
    while off + 4 <= len(buf):
        length, typ = struct.unpack_from("=HH", buf, off)
        if length < 4:
            break
        yield typ & 0x3fff, buf[off + 4:off + length]
        off += (length + 3) & ~3


def request(sock, family, cmd, payload):
    """One request; the answers' (type, payload) until the ack."""
    msg = struct.pack("=BBH", cmd, 1, 0) + payload
    sock.send(struct.pack("=IHHII", 16 + len(msg), family,
                          NLM_F_REQUEST | NLM_F_ACK, 1, 0) + msg)
    out = []
    while True:
        buf = sock.recv(65536)
        off = 0
        while off + 16 <= len(buf):
            length, typ, _flags, _seq, _pid = struct.unpack_from("=IHHII", buf, off)
            body = buf[off + 16:off + length]
            if typ == NLMSG_ERROR:
                return struct.unpack_from("=i", body)[0], out
            out.append((typ, body))
            off += (length + 3) & ~3


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("add", "del"):
        sys.stderr.write(__doc__)
        return 2
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    err, answers = request(sock, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                           attr(CTRL_ATTR_FAMILY_NAME, b"SMC_GEN_NETLINK\0"))
    family = None
    for _typ, body in answers:
        for a, data in attrs(body[4:]):
            if a == CTRL_ATTR_FAMILY_ID:
                family = struct.unpack_from("=H", data)[0]
    if err or family is None:
        print("no SMC_GEN_NETLINK family (smc.ko not loaded?)")
        return 1
    name = sys.argv[2].encode().ljust(32, b" ") + b"\0"
    cmd = SMC_NETLINK_ADD_UEID if sys.argv[1] == "add" else SMC_NETLINK_REMOVE_UEID
    err, _ = request(sock, family, cmd, attr(SMC_NLA_EID_TABLE_ENTRY, name))
    print("ok" if not err else errno.errorcode.get(-err, str(-err)))
    return 0 if not err else 1


if __name__ == "__main__":
    sys.exit(main())
