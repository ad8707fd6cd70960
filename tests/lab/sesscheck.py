#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check dropscope's closed TCP sessions against an independent oracle.

  sesscheck.py SESSIONS.json ORACLE.txt TCPGEN.txt [SERVER_PORT]

SESSIONS.json: `dropscope -j show sessions closed`. ORACLE.txt: what
tests/lab/tcplife.bt printed (the kernel's own bytes_acked, bytes_received,
total_retrans at TCP_CLOSE, resets and kfree_skb per socket). TCPGEN.txt:
what tcpgen run printed (owners, bytes, which clients reset). Prints one
line per mismatch and "checked N" last; exits 1 on any mismatch.
"""
import collections
import json
import sys

sessions = json.load(open(sys.argv[1]))
srv_port = int(sys.argv[4]) if len(sys.argv) > 4 else 5001
FIELDS = ("tx_bytes", "rx_bytes", "retransmits", "drops")
# A port pair may have had more than one socket: when two CPUs handle the
# ACKs of one request (an ACK sent again under loss), both make a child,
# and the one that loses the race closes at once, with nothing moved, no
# owner and the SYN-ACK's retransmits. Each pair's sockets are compared as
# a whole; the one that moved the session's bytes is checked in full.
closes = collections.defaultdict(list)
resets = collections.Counter()
for line in open(sys.argv[2]):
    f = line.split()
    if not f:
        continue
    if f[0] == "close":
        key = (int(f[1]), int(f[2]))
        closes[key].append(dict(zip(FIELDS, map(int, f[3:7]))))
    elif f[0] in ("rst_sent", "rst_recv"):
        resets[(f[0], int(f[1]), int(f[2]))] += 1
clients, server = {}, None
for line in open(sys.argv[3]):
    f = line.split()
    if f and f[0] == "cli":
        clients[int(f[3])] = dict(pid=int(f[1]), comm=f[2], tx=int(f[4]),
                                  rx=int(f[5]), rst=int(f[6]))
    elif f and f[0] == "srv":
        server = dict(pid=int(f[1]), comm=f[2])

bad = 0
def mismatch(what, s, want, got):
    global bad
    bad += 1
    print(f"{s['lport']}->{s['rport']} {what}: expected {want}, got {got}")

def busiest(v):
    return max(v, key=lambda x: (x["tx_bytes"] + x["rx_bytes"], x["drops"]))

checked = 0
by_key = collections.defaultdict(list)
for s in sessions:
    by_key[(s["lport"], s["rport"])].append(s)
for port, c in clients.items():
    for key, side in (((port, srv_port), "cli"), ((srv_port, port), "srv")):
        if not by_key.get(key):
            bad += 1
            print(f"{key}: no closed session")
            continue
        s = busiest(by_key[key])
        checked += 1
        if not closes.get(key):
            mismatch("oracle close", s, "seen", "none")
            continue
        ours = sorted(tuple(x[k] for k in FIELDS) for x in by_key[key])
        theirs = sorted(tuple(x[k] for k in FIELDS) for x in closes[key])
        if ours != theirs:
            mismatch("sockets (" + " ".join(FIELDS) + ")", s, theirs, ours)
        o = busiest(closes[key])
        for k in FIELDS:
            if s[k] != o[k]:
                mismatch(k, s, o[k], s[k])
        for x in by_key[key]:
            if x is not s and (x["pid"], x["tx_bytes"], x["rx_bytes"]) != (0, 0, 0):
                mismatch("a second socket", x, "0 bytes, no owner",
                         f"{x['tx_bytes']}/{x['rx_bytes']} bytes, pid {x['pid']}")
        owner = c if side == "cli" else server
        if s["pid"] != owner["pid"] or s["comm"] != owner["comm"]:
            mismatch("owner", s, f"{owner['pid']}/{owner['comm']}",
                     f"{s['pid']}/{s['comm']}")
        # the bytes each process moved; bytes_received counts the
        # peer's FIN too (rcv_nxt moves over it), absent after a reset
        want_rx = c["rx"] if side == "cli" else c["tx"]
        if s["rx_bytes"] - want_rx not in (0, 1):
            mismatch("rx_bytes vs the process", s, want_rx, s["rx_bytes"])
        want_sent = c["rst"] if side == "cli" else 0
        want_recv = c["rst"] if side == "srv" else 0
        if s["resets_sent"] != want_sent or \
           resets[("rst_sent",) + key] != want_sent:
            mismatch("resets_sent", s, want_sent,
                     f"{s['resets_sent']} (oracle {resets[('rst_sent',) + key]})")
        if s["resets_received"] != want_recv or \
           resets[("rst_recv",) + key] != want_recv:
            mismatch("resets_received", s, want_recv,
                     f"{s['resets_received']} (oracle {resets[('rst_recv',) + key]})")
        # both ends on loopback; the server's listener is on the wildcard
        # address, which its sessions are cloned with
        lo = "::1" if s["family"] == "ipv6" else "127.0.0.1"
        if (s["laddr"], s["raddr"]) != (lo, lo):
            mismatch("addresses", s, f"{lo} {lo}", f"{s['laddr']} {s['raddr']}")
        if s["state"] != "CLOSE":
            mismatch("state", s, "CLOSE", s["state"])
print(f"checked {checked}")
sys.exit(1 if bad or not checked else 0)
