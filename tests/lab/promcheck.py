#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read what Prometheus and the text format say, and compare.

  promcheck.py query URL EXPR          the sum of an instant query's values
                                       (Prometheus' HTTP API at URL); 'none'
                                       when it returns no series
  promcheck.py same URL SITES.json     exit 1 unless dropscope_drops_total
                                       in Prometheus (each series' last
                                       sample) equals every site of
                                       `dropscope -j show sites all`, summed
                                       by reason and symbol, and no more
  promcheck.py text FILE NAME [LABELS] the value of one sample of a text
                                       exposition (LABELS: 'a="x",b="y"',
                                       in any order); 'none' when absent
"""
import collections
import json
import re
import sys
import urllib.parse
import urllib.request

SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def query(url, expr):
    q = urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url + "/api/v1/query?" + q, timeout=30) as r:
        d = json.load(r)
    if d.get("status") != "success":
        raise SystemExit("query failed: %r" % d)
    return d["data"]["result"]


def labels_of(text):
    return frozenset(LABEL_RE.findall(text or ""))


def text_value(path, name, labels):
    want = labels_of(labels)
    with open(path) as f:
        for line in f:
            m = SAMPLE_RE.match(line.strip())
            if m and m.group(1) == name and labels_of(m.group(3)) == want:
                return m.group(4)
    return "none"


def main(argv):
    cmd = argv[1]
    if cmd == "query":
        res = query(argv[2], argv[3])
        if not res:
            print("none")
        else:
            print("%d" % sum(int(float(r["value"][1])) for r in res))
    elif cmd == "same":
        prom = collections.Counter()
        # each series' last scraped sample, whether or not a later
        # scrape failed and marked it stale
        for r in query(argv[2], "last_over_time(dropscope_drops_total[1h])"):
            prom[(r["metric"]["reason"], r["metric"]["site"])] += \
                int(float(r["value"][1]))
        sites = collections.Counter()
        with open(argv[3]) as f:
            for s in json.load(f):
                sites[(s["reason"], s["symbol"])] += s["count"] + s.get("masked", 0)
        if prom != sites:
            print("# Prometheus:")
            for k, v in sorted(prom.items()):
                print("%10d  %s %s" % (v, k[0], k[1]))
            print("# dropscope show sites:")
            for k, v in sorted(sites.items()):
                print("%10d  %s %s" % (v, k[0], k[1]))
            return 1
        print("%d series, %d drops" % (len(prom), sum(prom.values())))
    elif cmd == "text":
        print(text_value(argv[2], argv[3], argv[4] if len(argv) > 4 else ""))
    else:
        raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
