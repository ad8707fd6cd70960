#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Drop stacks against bpftrace's @[kstack] = count().

  kstack.py compare SHOW.json BPFTRACE.txt   each distinct stack, from the
      site outward (at most 32 frames), counted the same by both; prints
      "stacks N drops M" when they agree, else what differs
  kstack.py contexts SHOW.json      the contexts the stacks ran in
  kstack.py range FUNC              START END of FUNC from /proc/kallsyms
"""
import json
import re
import sys
from collections import Counter

DEPTH = 32


def aliases():
    """Each name of one address that has several names (the kernel's
    "__pi_" copies, for one) -> the first of them in /proc/kallsyms: the
    module names a frame as the kernel does, bpftrace may take another
    alias. A name found at several addresses is left as it is."""
    at, where = {}, {}
    for line in open("/proc/kallsyms"):
        a, _, n, *_ = line.split()
        at.setdefault(a, []).append(n)
        where.setdefault(n, set()).add(a)
    return {n: names[0] for names in at.values() if len(names) > 1
            for n in names if len(where[n]) == 1}


ALIAS = {}


def frame(s):
    """'sym+0x1c/0x80 [mod]' or bpftrace's 'sym+28': (sym, 28)."""
    s = s.strip().split(" ")[0]
    m = re.match(r"^(.+?)\+(0x[0-9a-f]+|\d+)(/0x[0-9a-f]+)?$", s)
    if not m:
        return (ALIAS.get(s, s), 0)
    return (ALIAS.get(m.group(1), m.group(1)), int(m.group(2), 0))


def ours(path):
    got = Counter()
    for st in json.load(open(path)):
        if st["no_room"]:
            got[("no_room", st["site"])] += st["count"]
        else:
            got[tuple(frame(f) for f in st["frames"])] += st["count"]
    return got


def bpftrace(path, sites):
    """@[kstack]: count blocks; each cut at its first frame that is a site."""
    got = Counter()
    frames = None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("@["):
            frames = []
        elif frames is not None and line.startswith("]: "):
            i = next((i for i, f in enumerate(frames) if f in sites), None)
            key = tuple(frames[i:i + DEPTH]) if i is not None else ("nosite",)
            got[key] += int(line[3:])
            frames = None
        elif frames is not None and line.strip():
            frames.append(frame(line))
    return got


def main():
    if sys.argv[1] == "range":
        syms = sorted((int(a, 16), n) for a, t, n, *_ in
                      (l.split() for l in open("/proc/kallsyms")) if t in "tT")
        for i, (a, n) in enumerate(syms):
            if n == sys.argv[2]:
                print(a, syms[i + 1][0])
                return 0
        return 1
    if sys.argv[1] == "compare":
        ALIAS.update(aliases())
    mine = ours(sys.argv[2])
    if sys.argv[1] == "contexts":
        names = {f[0] for k in mine for f in k if isinstance(f, tuple)}
        ctx = []
        if names & {"do_syscall_64"}:
            ctx.append("syscall")
        if any(n.startswith("sysvec_") or n.startswith("asm_sysvec_") or
               n.startswith("__irq_exit_rcu") for n in names):
            ctx.append("interrupt")
        if names & {"do_idle", "cpu_startup_entry"}:
            ctx.append("idle")
        if names & {"run_ksoftirqd", "smpboot_thread_fn"}:
            ctx.append("ksoftirqd")
        print(" ".join(ctx))
        return 0
    sites = {k[0] for k in mine if isinstance(k[0], tuple)}
    theirs = bpftrace(sys.argv[3], sites)
    if mine == theirs:
        print("stacks %d drops %d" % (len(mine), sum(mine.values())))
        return 0
    # every frame of each stack that differs: two stacks may part only
    # far from the site
    for k in sorted(set(mine) | set(theirs), key=str):
        if mine[k] != theirs[k]:
            print("differs: dropscope %d bpftrace %d (%d frames): %s" %
                  (mine[k], theirs[k], len(k), " < ".join("%s+%d" % f if isinstance(f, tuple) else str(f) for f in k)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
