# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The family's contract, apart from the CLI: each operation driven by name
# through the kernel's YNL library and the spec (scripts/ynl.py), as the
# kernel's own netlink selftests drive theirs; its answers checked against
# what the kernel says (/proc/net/snmp, /proc/kallsyms). Test functions
# sourced by tests/lab/run.sh.

# ynl ARGS...: scripts/ynl, its answer as JSON
ynl() { py scripts/ynl.py --output-json "$@"; }

# The operations that set state, then those that read it: config-set and
# config-get, start, sites-get and reasons-get against Udp NoPorts,
# rule-add, rule-get and stats-get against it again, rule-del, stop;
# run-start.
test_contract() {
	local udp0 udp1 udp2 rid
	need_ynl
	setup_module
	ynl --do config-set --json '{"interval-ms": 250, "top": 7}' > /dev/null
	check "contract: config-get gives what config-set set, and stopped" \
		"250 7 0" \
		"$(ynl --do config-get | json "'%d %d %d' % (d['interval-ms'], d['top'], d['running'])")"
	ynl --do start > /dev/null
	check "contract: start runs every part" "1 $(echo $PARTS_ALL | tr ' ' '\n' | sort | xargs)" \
		"$(ynl --do config-get | json "'%d %s' % (d['running'], ' '.join(sorted(d['parts'])))")"

	udp0=$($KC snmp Udp NoPorts)
	gen udp 40 $UDP_CLOSED
	udp1=$($KC snmp Udp NoPorts)
	ynl --dump sites-get > "$TMP/c-sites.json"
	ynl --dump reasons-get > "$TMP/c-reasons.json"
	check "contract: sites-get: ${UDP_SITE}'s NO_SOCKET drops are Udp NoPorts, as reasons-get names them" \
		"$((udp1 - udp0)) NO_SOCKET" "$(contract_udp_site "$TMP/c-sites.json" "$TMP/c-reasons.json")"

	rid=$(ynl --do rule-add --json '{"rule": {"mode": "mask", "l4": 17}}' |
		json "d['rule']['id']")
	gen udp 30 $UDP_CLOSED
	udp2=$($KC snmp Udp NoPorts)
	check "contract: rule-add gives an id; rule-get lists the rule, its hits the UDP drops since" \
		"$rid mask 17 $((udp2 - udp1))" \
		"$(ynl --dump rule-get | json "' '.join('%s %s %s %s' % (m['rule']['id'], m['rule']['mode'], m['rule']['l4'], m['rule']['hits']) for m in d)")"
	check "contract: stats-get: masked are the rule's hits; events are shown, masked, overflow and no-memory drops" \
		"$((udp2 - udp1)) 0" \
		"$(ynl --do stats-get | json "'%d %d' % (d['stats']['masked'], d['stats']['events'] - d['stats']['shown'] - d['stats']['masked'] - d['stats']['overflow'] - d['stats']['alloc-fails'])")"
	ynl --do rule-del --json "{\"rule\": {\"id\": $rid}}" > /dev/null
	check "contract: rule-del leaves no rule" "[]" "$(ynl --dump rule-get)"
	ynl --do stop > /dev/null
	check "contract: stop stops" 0 "$(ynl --do config-get | json "d['running']")"
	# a run of the root cgroup (id 1): it ends when ynl's socket closes,
	# and stops the monitoring it started
	check "contract: run-start gives run 1; it ends with its socket, and the monitoring it started" \
		"1 0 0" \
		"$(ynl --do run-start --json '{"run-cgroup": 1}' | json "d['run']") $(ynl --do config-get | json "'%d %d' % (d['runs'], d['running'])")"
}

# contract_udp_site SITES REASONS: the drops of the sites within
# the UDP site (by /proc/kallsyms), and the name of their reasons
contract_udp_site() {
	py - "$1" "$2" "$UDP_SITE" <<-'PY'
	import json, sys
	# site is multi-attr in the spec (alerts carry many): a list each
	sites = [s for m in json.load(open(sys.argv[1])) for s in m["site"]]
	names = {m["reason"]["id"]: m["reason"]["name"] for m in json.load(open(sys.argv[2]))}
	syms = sorted((int(a, 16), n) for a, t, n, *_ in (l.split() for l in open("/proc/kallsyms")) if t in "tT")
	start = [a for a, n in syms if n == sys.argv[3]][0]
	end = min(a for a, n in syms if a > start)
	# the spec's display hint: YNL gives the location in hex
	loc = lambda s: int(s["location"], 16) if isinstance(s["location"], str) else s["location"]
	ours = [s for s in sites if start <= loc(s) < end]
	print(sum(s["total"] for s in ours), " ".join(sorted({names.get(s.get("reason"), "?") for s in ours})))
	PY
}
