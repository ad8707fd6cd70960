#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count drops the way the kernel itself reports them, and compare.

  kcount.py hist HISTFILE              per location/reason counts of a hist
                                       trigger on skb:kfree_skb
  kcount.py sites SITES.json           the same from `dropscope -j show sites`
  kcount.py same HISTFILE SITES.json   exit 1 unless both agree exactly
  kcount.py hits HISTFILE              all drops the hist trigger counted
  kcount.py names FORMAT REASONS.json  exit 1 unless every reason name
                                       agrees with the tracepoint's table
  kcount.py sum SITES.json [REASON [SYMBOL_PREFIX]]   total of matching sites
  kcount.py snmp PROTO FIELD           one counter of /proc/net/snmp
  kcount.py rounds WATCH.jsonl         rounds, max round, deltas summed
"""
import collections
import json
import re
import sys

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


def show(counts):
    for (loc, reason), n in sorted(counts.items()):
        print("%10d  %5d  %s" % (n, reason, loc))


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
    elif cmd == "hits":
        print(sum(hist_counts(argv[2]).values()))
    elif cmd == "names":
        with open(argv[2]) as f:
            table = {int(i): n for i, n in SYMBOLIC_RE.findall(f.read())}
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
        prefix = argv[4] if len(argv) > 4 else ""
        with open(argv[2]) as f:
            print(sum(s["count"] for s in json.load(f)
                      if (reason is None or s["reason"] == reason)
                      and s["symbol"].startswith(prefix)))
    elif cmd == "snmp":
        with open("/proc/net/snmp") as f:
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
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
