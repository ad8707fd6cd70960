#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""COUNT 1-byte UDP datagrams to 127.0.0.1:PORT from one unconnected
socket; with PORT closed each is dropped with NO_SOCKET. Prints the guest
nanoseconds of the send loop alone (under QEMU -icount shift=0, its
instructions).

  pydropgen.py COUNT PORT

The loop is in a function: its names are then locals, where at module
level each turn looked them up in a dict whose probes depend on the hash
seed, a new one each run: runs differed by up to 120 instructions a
datagram.
"""
import socket
import sys
import time


def main():
    count = int(sys.argv[1])
    addr = ("127.0.0.1", int(sys.argv[2]))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    for _ in range(count):
        sock.sendto(b"x", addr)
    print(time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t0)


main()
