#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""smcnl: smc.ko's own answers, read with a parser of its own.

    smcnl.py

Dumps SMC_NETLINK_GET_LINK_SMCR (each SMC-R link group, then its links),
GET_LGR_SMCD, GET_DEV_SMCR, GET_STATS, GET_SYS_INFO, DUMP_UEID and
DUMP_HS_LIMITATION of the SMC_GEN_NETLINK family over a raw netlink
socket, and prints one JSON object:

    {"lgrs": [{"id", "smcd", "role", "conns", "sndbuf_alloc",
               "rmb_alloc", "links": [{"id", "ibdev", "ibport",
               "ifindex", "conns", "state"}]}],
     "devices": [{"name", "ports": [{"port", "ifindex", "links",
                  "active"}]}],
     "stats": {"smcr"|"smcd": {"tx_bufs", "rx_bufs", "tx_reqs",
               "rx_reqs": [9 counts, 8 KiB to > 1 MiB],
               "usage": [tx, rx] or null}},
     "system": {"version", "release", "smcd_v2", "smcr_v2", "host"},
     "ueids": [...], "handshake_limitation": true|false}

A test's oracle for dropscope's show smc linkgroups, devices and the size
histograms of show smc: it shares no code with dropscope's C parser.
"""
import json
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smcueid  # noqa: E402  (its netlink framing)

NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
GET_SYS_INFO, GET_LINK_SMCR, GET_LGR_SMCD, GET_DEV_SMCR, GET_STATS = 1, 3, 4, 6, 7
DUMP_UEID, DUMP_HS_LIMITATION = 9, 16
GEN_LGR_SMCR, GEN_LINK_SMCR, GEN_LGR_SMCD, GEN_DEV_SMCR, GEN_STATS = 2, 3, 4, 6, 7


def dump(sock, family, cmd):
    """Every message of a dump: its attributes as a dict of type: payload."""
    msg = struct.pack("=BBH", cmd, 1, 0)
    sock.send(struct.pack("=IHHII", 16 + len(msg), family,
                          NLM_F_REQUEST | NLM_F_DUMP, 2, 0) + msg)
    out = []
    while True:
        buf = sock.recv(1 << 20)
        off = 0
        while off + 16 <= len(buf):
            length, typ, _f, _s, _p = struct.unpack_from("=IHHII", buf, off)
            body = buf[off + 16:off + length]
            off += (length + 3) & ~3
            if typ == NLMSG_DONE:
                return out
            if typ == NLMSG_ERROR:
                err = struct.unpack_from("=i", body)[0]
                if err:
                    raise OSError(-err, "dump %d failed" % cmd)
                continue
            out.append(dict(smcueid.attrs(body[4:])))


def nest(data):
    return dict(smcueid.attrs(data))


def num(data):
    """An unsigned attribute by its length: u8, u16, u32, u64."""
    return struct.unpack({1: "=B", 2: "=H", 4: "=I", 8: "=Q"}[len(data)], data)[0]


def text(data):
    return data.split(b"\0")[0].decode().rstrip(" ")


def main():
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, smcueid.NETLINK_GENERIC)
    err, answers = smcueid.request(sock, smcueid.GENL_ID_CTRL, smcueid.CTRL_CMD_GETFAMILY,
                                   smcueid.attr(smcueid.CTRL_ATTR_FAMILY_NAME,
                                                b"SMC_GEN_NETLINK\0"))
    family = None
    for _typ, body in answers:
        for a, data in smcueid.attrs(body[4:]):
            if a == smcueid.CTRL_ATTR_FAMILY_ID:
                family = struct.unpack_from("=H", data)[0]
    if err or family is None:
        print("no SMC_GEN_NETLINK family (smc.ko not loaded?)")
        return 1
    lgrs = []
    for m in dump(sock, family, GET_LINK_SMCR) + dump(sock, family, GET_LGR_SMCD):
        if GEN_LGR_SMCR in m or GEN_LGR_SMCD in m:
            smcd = GEN_LGR_SMCD in m
            g = nest(m[GEN_LGR_SMCD if smcd else GEN_LGR_SMCR])
            # SMC-R: ID 1, ROLE 2, CONNS 6, SNDBUF_ALLOC 12, RMB_ALLOC 13;
            # SMC-D: ID 1, CONNS 5, SNDBUF_ALLOC 12, DMB_ALLOC 13
            lgrs.append({"id": num(g[1]), "smcd": smcd,
                         "role": None if smcd else num(g[2]),
                         "conns": num(g[5 if smcd else 6]),
                         "sndbuf_alloc": num(g[12]) if 12 in g else None,
                         "rmb_alloc": num(g[13]) if 13 in g else None,
                         "links": []})
        elif GEN_LINK_SMCR in m:
            k = nest(m[GEN_LINK_SMCR])
            # ID 1, IB_DEV 2, IB_PORT 3, CONN_CNT 6, NET_DEV 7, STATE 10
            lgrs[-1]["links"].append({"id": num(k[1]), "ibdev": text(k[2]),
                                      "ibport": num(k[3]), "conns": num(k[6]),
                                      "ifindex": num(k[7]), "state": num(k[10])})
    devices = []
    for m in dump(sock, family, GET_DEV_SMCR):
        d = nest(m[GEN_DEV_SMCR])
        ports = []
        for i, t in ((1, 8), (2, 9)):       # SMC_NLA_DEV_PORT, _PORT2
            if t in d:
                p = nest(d[t])
                # NETDEV 3, STATE 4, LNK_CNT 6
                ports.append({"port": i, "ifindex": num(p[3]),
                              "active": bool(num(p[4])), "links": num(p[6])})
        devices.append({"name": text(d[10]), "ports": ports})
    stats = {}
    for m in dump(sock, family, GET_STATS):
        s = nest(m[GEN_STATS])
        for key, t in (("smcd", 1), ("smcr", 2)):
            tech = nest(s[t])
            out = {}
            # TX_RMB_SIZE 1, RX_RMB_SIZE 2, TXPLOAD_SIZE 3, RXPLOAD_SIZE 4;
            # buckets PLOAD_8K (1) to PLOAD_G_1024K (9)
            for name, h in (("tx_bufs", 1), ("rx_bufs", 2), ("tx_reqs", 3), ("rx_reqs", 4)):
                b = nest(tech[h])
                out[name] = [num(b[i]) if i in b else 0 for i in range(1, 10)]
            # 6.12: RX_RMB_USAGE 20, TX_RMB_USAGE 21
            out["usage"] = [num(tech[21]), num(tech[20])] if 20 in tech else None
            stats[key] = out
    # SYS_INFO: VER 1, REL 2, IS_ISM_V2 3, LOCAL_HOST 4, IS_SMCR_V2 6
    y = nest(dump(sock, family, GET_SYS_INFO)[0][1])
    system = {"version": num(y[1]), "release": num(y[2]), "smcd_v2": bool(num(y[3])),
              "smcr_v2": bool(num(y[6])), "host": text(y[4]) if 4 in y else ""}
    ueids = [text(m[1]) for m in dump(sock, family, DUMP_UEID)]
    hs = [bool(num(m[1])) for m in dump(sock, family, DUMP_HS_LIMITATION)]
    json.dump({"lgrs": lgrs, "devices": devices, "stats": stats, "system": system,
               "ueids": ueids, "handshake_limitation": hs[0] if hs else None}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
