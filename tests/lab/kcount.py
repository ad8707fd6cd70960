#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count drops the way the kernel itself reports them, and compare.

  kcount.py hist HISTFILE              per location/reason counts of a hist
                                       trigger on skb:kfree_skb
  kcount.py sites SITES.json           the same from `dropscope -j show sites`
  kcount.py same HISTFILE SITES.json   exit 1 unless both agree exactly
  kcount.py hits HISTFILE [REASON]     all drops the hist trigger counted
                                       (with that reason, by its name in
                                       the tracepoint's own table)
  kcount.py names FORMAT REASONS.json  exit 1 unless every reason name
                                       agrees with the tracepoint's table
  kcount.py sum SITES.json [REASON [FUNCTION]]   total of matching sites
                                       (FUNCTION: the site's, exactly)
  kcount.py site HISTFILE REASON N     the function (by /proc/kallsyms) of
                                       the one location of a hist trigger
                                       keyed by location,reason where N
                                       drops of REASON (or more) happened
  kcount.py snmp PROTO FIELD [FILE]    one counter of /proc/net/snmp (or
                                       of FILE, a copy of another netns')
  kcount.py rounds WATCH.jsonl         rounds, max round, deltas summed
  kcount.py layers WATCH.jsonl         the deltas summed per layer, and the
                                       overflow: "dev=N hw=N kernel=N
                                       overflow=N"
  kcount.py layers SITES.json STATS.json   the same of `show sites` and
                                       `show stats`
  kcount.py run RUN.json REASON...     a report of `dropscope -j run`: its
                                       status, the names of the namespaces
                                       of CMD's drops (but init_net), and
                                       CMD's drops of each REASON by the
                                       name of their namespace, "NS:REASON=N"
                                       (the other drops of a test's tools
                                       differ between kernels)
  kcount.py table                      the names of the tracepoint's table
  kcount.py reasons                    the drop reasons of the running
                                       kernel's BTF: the enumerators of enum
                                       skb_drop_reason above 0 (not dropped
                                       yet) and below MAX, prefix cut off
"""
import collections
import json
import re
import struct
import sys

FORMAT = "/sys/kernel/tracing/events/skb/kfree_skb/format"
HIST_RE = re.compile(r"\{ location:\s*(\d+), reason:\s*(\d+) \} hitcount:\s*(\d+)")
SYMBOLIC_RE = re.compile(r'\{ (\d+), "(\w+)" \}')


def hist_counts(path):
    """The kernel's own count: a hist trigger keyed by location,reason."""
    counts = collections.Counter()
    with open(path) as f:
        text = f.read()
    if not re.search(r"Dropped: 0\b", text):
        raise SystemExit("the hist trigger dropped entries: " + path)
    for loc, reason, hits in HIST_RE.findall(text):
        counts[("0x%x" % int(loc), int(reason))] += int(hits)
    return counts


def site_counts(path):
    counts = collections.Counter()
    with open(path) as f:
        for site in json.load(f):
            counts[(site["location"], site["reason_id"])] += site["count"]
    return counts


def reason_table(path=FORMAT):
    """The tracepoint's own table of reasons: id -> name."""
    with open(path) as f:
        return {int(i): n for i, n in SYMBOLIC_RE.findall(f.read())}


def function_of(addr):
    """The text symbol of /proc/kallsyms that addr is in."""
    best = (0, None)
    with open("/proc/kallsyms") as f:
        for line in f:
            a, t, name = line.split()[:3]
            a = int(a, 16)
            if t in "tT" and best[0] < a <= addr:
                best = (a, name)
    if best[1] is None:
        raise SystemExit("no function at 0x%x in /proc/kallsyms" % addr)
    return best[1]


def show(counts):
    for (loc, reason), n in sorted(counts.items()):
        print("%10d  %5d  %s" % (n, reason, loc))


def run_report(path, reasons):
    """Status, namespace names and drops by (name, reason) of a run."""
    with open(path) as f:
        d = json.load(f)
    names = {n["netns"]: n["name"] for n in d["cmd"]["netns"]}
    counts = collections.Counter()
    for s in d["cmd"]["sites"]:
        if s["reason"] in reasons:
            counts["%s:%s" % (names.get(s.get("netns")), s["reason"])] += \
                s["count"]
    return ([str(d["status"])] +
            sorted(n for n in names.values() if n and n != "init_net") +
            ["%s=%d" % kv for kv in sorted(counts.items())])


def btf_enum(name, path="/sys/kernel/btf/vmlinux"):
    """The enumerators of enum NAME in a BTF blob: (name, value) pairs."""
    with open(path, "rb") as f:
        blob = f.read()
    magic, _ver, _flags, hdr_len, type_off, type_len, str_off, _str_len = \
        struct.unpack_from("<HBBIIIII", blob)
    if magic != 0xEB9F:
        raise SystemExit("not BTF: " + path)
    types = hdr_len + type_off
    strs = hdr_len + str_off

    def string(off):
        return blob[strs + off:blob.index(b"\0", strs + off)].decode()

    # the bytes that follow a type's 12-byte header, by kind, per member
    extra = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8),
             13: (0, 8), 14: (4, 0), 15: (0, 12), 17: (4, 0), 19: (0, 12)}
    off = types
    while off < types + type_len:
        name_off, info, _size = struct.unpack_from("<III", blob, off)
        kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
        fixed, per = extra.get(kind, (0, 0))
        off += 12
        if kind in (6, 19) and string(name_off) == name:
            out = []
            for i in range(vlen):
                n, lo = struct.unpack_from("<Ii", blob, off + i * per)
                out.append((string(n), lo))
            return out
        off += fixed + per * vlen
    raise SystemExit("no enum %s in %s" % (name, path))


def main(argv):
    cmd = argv[1]
    if cmd == "hist":
        show(hist_counts(argv[2]))
    elif cmd == "sites":
        show(site_counts(argv[2]))
    elif cmd == "same":
        t, s = hist_counts(argv[2]), site_counts(argv[3])
        if t != s:
            print("# tracefs hist:")
            show(t)
            print("# dropscope:")
            show(s)
            return 1
        print("# %d sites, %d drops agree" % (len(t), sum(t.values())))
    elif cmd == "run":
        print(" ".join(run_report(argv[2], argv[3:])))
    elif cmd == "hits":
        counts = hist_counts(argv[2])
        if len(argv) > 3:
            ids = {n: i for i, n in reason_table().items()}
            if argv[3] not in ids:
                raise SystemExit("no reason %s in %s" % (argv[3], FORMAT))
            counts = {k: n for k, n in counts.items() if k[1] == ids[argv[3]]}
        print(sum(counts.values()))
    elif cmd == "names":
        table = reason_table(argv[2])
        with open(argv[3]) as f:
            ours = {r["id"]: r["reason"] for r in json.load(f)}
        common = set(table) & set(ours)
        bad = [(i, table[i], ours[i]) for i in sorted(common) if table[i] != ours[i]]
        if bad or len(common) < 10:
            print("# mismatched: %s, %d in common" % (bad, len(common)))
            return 1
        print("# %d reason names agree" % len(common))
    elif cmd == "sum":
        reason = argv[3] if len(argv) > 3 else None
        func = argv[4] if len(argv) > 4 else None
        with open(argv[2]) as f:
            print(sum(s["count"] for s in json.load(f)
                      if (reason is None or s["reason"] == reason)
                      and (func is None or s["symbol"].split("+")[0] == func)))
    elif cmd == "site":
        ids = {n: i for i, n in reason_table().items()}
        locs = [int(loc, 16) for (loc, r), n in hist_counts(argv[2]).items()
                if r == ids[argv[3]] and n >= int(argv[4])]
        if len(locs) != 1:
            raise SystemExit("%d locations with %s drops of %s" % (len(locs), argv[4], argv[3]))
        print(function_of(locs[0]))
    elif cmd == "snmp":
        with open(argv[4] if len(argv) > 4 else "/proc/net/snmp") as f:
            rows = [l.split() for l in f if l.startswith(argv[2] + ":")]
        print(rows[1][rows[0].index(argv[3])])
    elif cmd == "rounds":
        rounds, deltas, ends = set(), 0, 0
        with open(argv[2]) as f:
            for line in f:
                msg = json.loads(line)
                rounds.add(msg["round"])
                ends += msg["end"]
                deltas += msg["overflow_delta"]
                deltas += sum(s["delta"] for s in msg["sites"])
        print(len(rounds), ends, deltas)
    elif cmd == "layers":
        sums = collections.Counter(dev=0, hw=0, kernel=0)
        if len(argv) > 3:
            with open(argv[2]) as f:
                for s in json.load(f):
                    sums[s["layer"]] += s["count"]
            with open(argv[3]) as f:
                sums["overflow"] = json.load(f)["overflow"]
        else:
            with open(argv[2]) as f:
                for line in f:
                    msg = json.loads(line)
                    for s in msg["sites"]:
                        sums[s["layer"]] += s["delta"]
                    sums["overflow"] += msg["overflow_delta"]
        print(" ".join("%s=%d" % kv for kv in sorted(sums.items())))
    elif cmd == "table":
        print("\n".join(sorted(set(reason_table().values()))))
    elif cmd == "reasons":
        enum = btf_enum("skb_drop_reason")
        end = dict(enum)["SKB_DROP_REASON_MAX"]
        for n, v in enum:
            if 0 < v < end:
                print(re.sub(r"^SKB_(DROP_REASON_)?", "", n))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
