# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Mask rules and alert control: test functions sourced by tests/lab/run.sh,
# which runs them (its helpers, KTAP results, per-test names and cleanup).
# Every count is checked exactly against the kernel's own: the hist
# trigger, /proc/net/snmp(6), nftables counters.

stop_if_running() { [ "$($DS -j status | json "d['running']")" = False ] || $DS stop; }
hits_of() { $DS -j show rules | json "[r['hits'] for r in d if r['id'] == $1][0]"; }
rule_id() { $DS -j rule "$@" | json "d['id']"; }
snmp6() { awk -v k="$1" '$1 == k {print $2}' /proc/net/snmp6; }
# sum of the site counts, masked ones included, matching a python condition
site_sum() { $DS -j show sites all layer kernel | json "sum(s['$1'] for s in d if $2)"; }
# UDP/IPv4 closed-port drops shown
udp_shown() { site_sum count "s['symbol'].startswith('${UDP_SITE}+') and s['reason'] == 'NO_SOCKET'"; }
# in_ns COMMAND...: run it in this test's namespace
in_ns() { ip netns exec "$NS" "$@"; }

# reconcile: shown + masked + overflow = events = the hist trigger's hits
reconcile() {
	local name=$1 hist=$2 v
	v=$($DS -j show stats | json "'%d %d' % (d['shown'] + d['masked'] + d['overflow'] + d['alloc_fails'], d['events'])")
	check "$name: shown + masked = events = tracefs" \
		"$($KC hits "$hist") $($KC hits "$hist")" "$v"
}

test_rule_site() {
	local udp0 rid
	setup_module
	trace_on
	$DS start
	udp0=$($KC snmp Udp NoPorts)
	rid=$(rule_id mask site ${UDP_SITE})
	gen udp 300 $UDP_CLOSED
	gen tcp 50 $TCP_CLOSED
	trace_off m1.hist
	check "mask site: hits equal Udp NoPorts" $(($($KC snmp Udp NoPorts) - udp0)) "$(hits_of "$rid")"
	check "mask site: UDP site hidden, TCP shown" "0 50" \
		"$($DS -j show sites layer kernel | json "sum(s['count'] for s in d if s['symbol'].startswith('${UDP_SITE}+'))") $($DS -j show sites layer kernel | json "sum(s['count'] for s in d if s['symbol'].startswith('${TCP_SITE}+'))")"
	check "mask site: show sites all lists it as masked" 300 \
		"$(site_sum masked "s['symbol'].startswith('${UDP_SITE}+')")"
	reconcile "mask site" "$TMP/m1.hist"
	$DS stop
	$DS start
	gen udp 20 $UDP_CLOSED
	check "rules survive stop and start (hits count from start)" "1 20" \
		"$($DS -j status | json "d['rules']") $(hits_of "$rid")"
}

test_rule_reason() {
	local rid
	need nft
	setup_module
	nft_drop
	trace_on
	$DS start
	rid=$(rule_id mask reason NETFILTER_DROP)
	gen udp 120 $NF_PORT
	gen udp 30 $UDP_CLOSED
	trace_off m2.hist
	check "mask reason: hits equal the nft counter" "$(nft_count)" "$(hits_of "$rid")"
	check "mask reason: the others are shown" 30 "$(udp_shown)"
	reconcile "mask reason" "$TMP/m2.hist"
}

# --- device, netns, l3, l4 (packet fields) --------------------------------
test_rule_dev() {
	local udp0 rid
	setup_module
	setup_netns
	trace_on
	$DS start
	udp0=$($KC snmp Udp NoPorts)
	rid=$(rule_id mask dev "$VETH_H")
	in_ns $BIN/dropgen -a "$HOST_IP" udp 70 $UDP_CLOSED > /dev/null
	gen udp 40 $UDP_CLOSED
	trace_off m3.hist
	check "mask dev: hits equal the drops that came in on veth-h" \
		"$(($($KC snmp Udp NoPorts) - udp0 - 40)) 70" "$(hits_of "$rid") $(hits_of "$rid")"
	check "mask dev: lo drops shown" 40 "$(udp_shown)"
	reconcile "mask dev" "$TMP/m3.hist"
}

# Every rule on packet fields names a device: a drop that came in on none
# of them is counted without its packet fields.
test_rule_device_gate() {
	local rid vh
	setup_module
	setup_netns
	trace_on
	$DS start
	rid=$(rule_id mask dev "$VETH_H" l4 tcp)
	in_ns $BIN/dropgen -a "$HOST_IP" udp 20 $UDP_CLOSED > /dev/null
	in_ns $BIN/dropgen -a "$HOST_IP" tcp 5 $TCP_CLOSED > /dev/null
	gen udp 15 $UDP_CLOSED
	trace_off m8.hist
	vh=$(cat "/sys/class/net/$VETH_H/ifindex")
	check "device gate: veth-h TCP masked, veth-h UDP keyed by device and l4, lo UDP by neither" \
		"5 20 15" "$(hits_of "$rid") $(site_sum count "s.get('ifindex') == $vh and s.get('l4') == 17") $(site_sum count "s['symbol'].startswith('${UDP_SITE}+') and 'ifindex' not in s and 'l4' not in s")"
	reconcile "device gate" "$TMP/m8.hist"
	# the text output tells the two UDP sites apart, as the JSON does
	$DS show sites layer kernel > "$TMP/m8.txt"
	check "device gate: text rows show the device and l4 that split a site" \
		"1 1 1" "$(grep -c "^ *COUNT  *REASON  *DEV  *L4  *SITE" "$TMP/m8.txt") $(grep -cE "^ *20  *NO_SOCKET  *$VETH_H  *udp  *${UDP_SITE}" "$TMP/m8.txt") $(grep -cE "^ *15  *NO_SOCKET  *-  *-  *${UDP_SITE}" "$TMP/m8.txt")"
}

# dummies_del PREFIX: the dummy devices PREFIX1 .. PREFIX100 still there
dummies_del() {
	local i
	for i in $(seq 100); do
		[ ! -e "/sys/class/net/$1$i" ] || echo "link del $1$i"
	done | ip -batch -
}

test_rule_netns() {
	local rid i
	setup_module
	setup_netns
	trace_on
	$DS start
	# grow the module's device table past its first size, leave tombstones
	defer dummies_del "$DUMMY"
	for i in $(seq 100); do echo "link add $DUMMY$i type dummy"; done | ip -batch -
	for i in $(seq 100); do echo "link del $DUMMY$i"; done | ip -batch -
	rid=$(rule_id mask netns "$NS")
	in_ns $BIN/dropgen udp 60 $UDP_CLOSED > /dev/null
	gen -a "$NS_IP" udp 30 $UDP_CLOSED	# dropped in the namespace, on veth-n
	gen udp 25 $UDP_CLOSED
	trace_off m4.hist
	check "mask netns: the namespace's drops hidden, on lo and veth-n; the host's shown" \
		"90 25" "$(hits_of "$rid") $(udp_shown)"
	reconcile "mask netns" "$TMP/m4.hist"
}

test_rule_l3() {
	local u6 rid
	setup_module
	trace_on
	$DS start
	u6=$(snmp6 Udp6NoPorts)
	rid=$(rule_id mask l3 ipv6)
	gen -a ::1 udp 45 $UDP_CLOSED
	gen udp 15 $UDP_CLOSED
	trace_off m5.hist
	$DS stop
	check "mask l3 ipv6: masked UDPv6 drops equal Udp6NoPorts, IPv4 shown" \
		"$(($(snmp6 Udp6NoPorts) - u6)) 15" \
		"$(site_sum masked "s['symbol'].startswith('${UDP6_SITE}+') and s['reason'] == 'NO_SOCKET'") $(udp_shown)"
	# 6.1 also drops the ICMPv6 errors the closed port sends back: all IPv6
	check "mask l3 ipv6: hits are every drop but the IPv4 ones" \
		"$(($($KC hits "$TMP/m5.hist") - $(udp_shown)))" "$(hits_of "$rid")"
	reconcile "mask l3" "$TMP/m5.hist"
}

test_rule_l4() {
	local rst0 rid
	setup_module
	trace_on
	$DS start
	rst0=$($KC snmp Tcp OutRsts)
	rid=$(rule_id mask l4 tcp)
	gen tcp 35 $TCP_CLOSED
	gen udp 10 $UDP_CLOSED
	trace_off m6.hist
	check "mask l4 tcp: hits equal Tcp OutRsts, UDP shown" \
		"$(($($KC snmp Tcp OutRsts) - rst0)) 10" "$(hits_of "$rid") $(udp_shown)"
	reconcile "mask l4" "$TMP/m6.hist"
}

# --- queued skbs: skb->dev is not a device there -----------------------------
# A UDP socket closed with datagrams unread frees them while skb->dev holds
# UDP's dev_scratch. With every packet field keyed, those drops are counted
# by input device and protocols, their netns unknown, and nothing faults.
udp_unread() { # udp_unread COUNT PORT: datagrams nobody reads, then close
	py - "$@" <<-'PY'
	import socket, sys
	n, port = int(sys.argv[1]), int(sys.argv[2])
	r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	r.bind(("127.0.0.1", port))
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	for _ in range(n):
	    s.sendto(b"x", ("127.0.0.1", port))
	r.close()
	PY
}
unread_drops() { # on lo, UDP/IPv4, no netns, not the closed-port drop
	site_sum count "s.get('ifindex') == 1 and s.get('l3') == 0x800 and s.get('l4') == 17 and 'netns' not in s and not s['symbol'].startswith('${UDP_SITE}+')"
}
unread_are() { [ "$(unread_drops)" = "$1" ]; }

test_rule_unread_udp() {
	local rid rid2 out
	setup_module
	setup_netns
	trace_on
	$DS start
	rid=$(rule_id mask netns "$NS")
	rid2=$(rule_id mask dev "$VETH_H" l3 ipv4 l4 udp)
	udp_unread 25 4242
	wait_for 10 unread_are 25
	trace_off m7.hist
	check "unread UDP datagrams: counted by input device and protocols" 25 "$(unread_drops)"
	check "unread UDP datagrams: no rule hit" "0 0" "$(hits_of "$rid") $(hits_of "$rid2")"
	sites_equal_tracefs "unread UDP datagrams:" m7 all
}

# --- combined fields, only mode ---------------------------------------------
# The namespace's own counters are the oracle: its Udp NoPorts for what the
# rule hid, its Tcp OutRsts for what it let through; the host's Udp
# NoPorts for what it showed
test_rule_combined() {
	local rid udp0
	setup_module
	setup_netns
	$DS start
	rid=$(rule_id mask site ${UDP_SITE} netns "$NS")
	udp0=$($KC snmp Udp NoPorts)
	in_ns $BIN/dropgen udp 33 $UDP_CLOSED > /dev/null
	gen udp 11 $UDP_CLOSED
	in_ns $BIN/dropgen tcp 7 $TCP_CLOSED > /dev/null
	in_ns cat /proc/net/snmp > "$TMP/ns.snmp"
	check "combined rule: only the namespace's UDP drops hidden (its Udp NoPorts, the host's, its Tcp OutRsts)" \
		"$($KC snmp Udp NoPorts "$TMP/ns.snmp") $(($($KC snmp Udp NoPorts) - udp0)) $($KC snmp Tcp OutRsts "$TMP/ns.snmp")" \
		"$(hits_of "$rid") $(udp_shown) $(site_sum count "s['symbol'].startswith('${TCP_SITE}+')")"
}

test_rule_only() {
	local rid
	need nft
	setup_module
	nft_drop
	rid=$(rule_id only reason NETFILTER_DROP)
	$DS start
	gen udp 50 $NF_PORT
	gen udp 20 $UDP_CLOSED
	gen tcp 5 $TCP_CLOSED
	check "only mode: only NETFILTER_DROP shown, its hits counted" \
		"$(nft_count) $(nft_count) 25" \
		"$(stat_of shown) $(hits_of "$rid") $(site_sum masked "s['reason'] == 'NO_SOCKET'")"
	check "only mode: show sites lists only NETFILTER_DROP" "NETFILTER_DROP" \
		"$($DS -j show sites layer kernel | json "' '.join(sorted({s['reason'] for s in d}))")"
}

# --- rules churned while drops flow ----------------------------------------
# Two CPUs drop at once here. Every event is counted by the hist trigger
# (its map drops only a new key that finds no room: kcount.py fails on
# that), and the UDP ones by Udp NoPorts.
test_rule_churn() {
	local udp0 hostns churn i sum msk churn_rules
	setup_module
	trace_on
	$DS start
	udp0=$($KC snmp Udp NoPorts)
	# drops flow for as long as the rules churn; each kind of rule matches
	# them, and the packet-field ones switch the probe's keys and device gate
	hostns=$(stat -L -c %i /proc/self/ns/net)
	churn_rules=("site ${UDP_SITE}" "dev lo" "l4 udp" "netns $hostns"
		"dev lo l3 ipv4 l4 udp")
	# 2000 a second on each CPU: a flood would leave the CLIs that churn
	# the rules no CPU under TCG, where all vCPUs share one host thread
	$BIN/dropgen -P "$(nproc)" -r 2000 -d 600000 udp 100000000 $UDP_CLOSED > /dev/null &
	churn=$!
	defer kill_tree $churn
	for i in $(seq 0 9); do	# each kind of rule twice
		# shellcheck disable=SC2086 # a rule is several words
		$DS rule mask ${churn_rules[i % 5]} > /dev/null
		sleep 0.1	# drops flow under the rule for a while
		$DS rule clear
	done
	kill_tree $churn
	wait $churn 2>/dev/null
	$DS stop
	trace_off churn.hist
	reconcile churn "$TMP/churn.hist"
	sum=$(site_sum count "s['symbol'].startswith('${UDP_SITE}+')")
	msk=$(site_sum masked "s['symbol'].startswith('${UDP_SITE}+')")
	check "churn: shown + masked UDP drops equal Udp NoPorts" \
		$(($($KC snmp Udp NoPorts) - udp0)) $((sum + msk))
	if [ "$msk" -gt 0 ] && [ "$sum" -gt 0 ]; then
		ok "churn: drops were both masked and shown ($msk, $sum)"
	else
		fail "churn: drops were both masked and shown" "masked=$msk shown=$sum"
	fi
}

# --- 1024 rules, and one more -----------------------------------------------
test_rule_limit() {
	local i udp0
	setup_module
	for i in $(seq 1 1024); do echo "rule mask l4 $(( (i % 250) + 1 ))"; done > "$TMP/rules.batch"
	$DS -f "$TMP/rules.batch" > /dev/null
	check "1024 rules from a batch file" 1024 "$($DS -j status | json "d['rules']")"
	$DS rule mask l4 udp > /dev/null 2> "$TMP/1025.err"
	check "rule 1025 refused, with the limit named, set unchanged" "1 1024" \
		"$(grep -c 'too many rules (the limit is 1024)' "$TMP/1025.err") $($DS -j status | json "d['rules']")"
	udp0=$($KC snmp Udp NoPorts)
	$DS start
	gen udp 10 $UDP_CLOSED
	# l4 17 is rule 16 of the batch, and again 266, 516, 766 and 1016:
	# the first of them takes every hit
	check "1024 rules: drops judged as Udp NoPorts counts, all of them hits of the first rule that matches" \
		"$(($($KC snmp Udp NoPorts) - udp0)) 16:$(($($KC snmp Udp NoPorts) - udp0))" \
		"$(stat_of masked) $($DS -j show rules | json "' '.join('%d:%d' % (i + 1, r['hits']) for i, r in enumerate(d) if r['hits'])")"
	$DS stop
}

# --- bad rules ------------------------------------------------------------------
test_rule_bad() {
	local rid nid
	setup_module
	rid=$(rule_id mask l4 udp)
	bad_rule() { # bad_rule PATTERN ARGS...: refused, message names the bad part
		local want=$1 out rc
		shift
		out=$($DS "$@" 2>&1)
		rc=$?
		if [ $rc -ne 0 ] && [[ $out == *$want* ]] &&
			[ "$($DS -j show rules | json "[r['id'] for r in d]")" = "[$rid]" ]; then
			ok "bad rule refused: $* ($out)"
		else
			fail "bad rule refused: $*" "exit $rc: $out"
		fi
	}
	bad_rule "site 'no_such_function'" rule mask site no_such_function
	bad_rule "site '${TCP_SITE}+0x100000'" rule mask site ${TCP_SITE}+0x100000
	bad_rule "reason 'NO_SUCH_REASON'" rule mask reason NO_SUCH_REASON
	bad_rule "dev 'nodev0'" rule mask dev nodev0
	bad_rule "netns 'nons'" rule mask netns nons
	bad_rule "l3 'ipx'" rule mask l3 ipx
	bad_rule "l4 '300'" rule mask l4 300
	bad_rule "field 'port'" rule mask port 80
	bad_rule "field 'l4': given twice" rule mask l4 tcp l4 udp
	bad_rule "FIELD VALUE" rule mask site
	bad_rule "dev: no device has this ifindex" rule mask dev 99999
	bad_rule "netns: no network namespace" rule mask netns 12345
	bad_rule "no rule has this id" rule del 4242
	# the older spellings (mask add, mask list, show masks, mask del) run
	# the rule commands they became
	ids() { $DS -j "$@" | json "','.join(str(r['id']) for r in d)"; }
	nid=$($DS -j mask add l4 tcp | json "d['id']")
	check "older spellings: mask add, mask list, show masks, mask del" \
		"$rid,$nid $rid,$nid $rid" \
		"$(ids mask list) $(ids show masks) $($DS mask del "$nid"; ids rule list)"
}

# --- alert control: threshold, top, message cap --------------------------------
test_alert_threshold() {
	local total
	setup_module
	$DS set interval 100ms
	$DS set threshold 1000
	$DS start
	watch_start thr.jsonl timeout 300s
	gen udp 500 $UDP_CLOSED
	sleep 1	# rounds go by with 500 drops: under the threshold
	gen udp 600 $UDP_CLOSED
	# the alert, however long a slow kernel takes to send it; then ten
	# more rounds in which the other 100 must wait
	wait_for 120 sh -c "[ -s '$TMP/thr.jsonl' ]" || abort "no alert after 1100 drops"
	sleep 1
	kill -TERM $watcher
	wait $watcher
	total=$(udp_shown)
	check "threshold 1000: one alert once 1000 accumulated, the rest waits" \
		"1 True 1100" \
		"$(py -c 'import json,sys; m=[json.loads(l) for l in open(sys.argv[1])]; d=sum(s["delta"] for x in m for s in x["sites"]); print(len(m), d >= 1000 and int(sys.argv[2]) - d < 1000)' "$TMP/thr.jsonl" "$total") $total"
	$DS stop
}

# one round: the one stop sends, with all three sites changed
test_alert_top() {
	need nft
	setup_module
	$DS set interval 60s
	$DS set top 1
	nft_drop
	$DS start
	watch_start top.jsonl rounds 1 timeout 20s
	gen udp 100 $UDP_CLOSED
	gen tcp 10 $TCP_CLOSED
	gen udp 30 $NF_PORT
	$DS stop
	wait $watcher
	check "top 1: the largest site alone, the others counted" "${UDP_SITE} 100 2" \
		"$(py -c 'import json,sys; m=[json.loads(l) for l in open(sys.argv[1])]; s=[s for x in m for s in x["sites"]]; print(s[0]["symbol"].split("+")[0] if len(s) == 1 else s, s[0]["delta"])' "$TMP/top.jsonl") $(stat_of top_suppressed)"
}

# One round of three sites: watch lists them as show sites does, by count
# (text and JSON print the same sorted list); the counts are the hist
# trigger's
hist_by_count() { $KC hist "$1" | sort -rn | awk '{ printf "%s ", $1 }'; }
test_watch_order() {
	local want
	need nft
	setup_module
	$DS set interval 60s
	nft_drop
	trace_on
	$DS start
	watch_start order.jsonl rounds 1 timeout 20s
	gen udp 30 $NF_PORT
	gen tcp 10 $TCP_CLOSED
	gen udp 100 $UDP_CLOSED
	$DS stop
	wait $watcher
	trace_off order.hist
	oracle want hist_by_count "$TMP/order.hist"
	check "watch: a round's sites by count, as the hist trigger counts them" "$want" \
		"$(py -c 'import json, sys; print("".join("%d " % s["delta"] for s in json.loads(open(sys.argv[1]).readline())["sites"]))' "$TMP/order.jsonl")"
}

# Rounds every 10 ms for 2.5 s of drops, at most 2 messages a second: each
# second of drops sends exactly 2, so 4 at least (two whole seconds) and 8
# at most. What two listeners received, the CLI's watch and a raw socket,
# is what the module says it sent; the rest was held back and counted.
test_alert_ratelimit() {
	local msgs raw sent held listener
	setup_module
	$DS set interval 10ms
	$DS set ratelimit 2
	$DS start
	python3 tests/lab/nlraw.py listen > "$TMP/raw.txt" &
	listener=$!
	defer kill_quiet $listener
	wait_for 60 grep -q joined "$TMP/raw.txt" || abort "the raw listener did not join"
	watch_start rl.jsonl timeout 5s
	gen -d 2500 udp 100000000 $UDP_CLOSED
	wait $watcher
	kill -TERM $listener
	wait $listener
	msgs=$(wc -l < "$TMP/rl.jsonl")
	raw=$(sed -n 's/^messages \([0-9]*\)$/\1/p' "$TMP/raw.txt")
	sent=$(stat_of alerts_sent)
	held=$(stat_of ratelimited)
	if [ "$msgs" = "$sent" ] && [ "$raw" = "$sent" ] && [ "$msgs" -ge 4 ] &&
		[ "$msgs" -le 8 ] && [ "$held" -gt 0 ]; then
		ok "ratelimit 2/s: $msgs messages in about 2.5 s, as two listeners received; $held held back and counted"
	else
		fail "ratelimit 2/s: 4 to 8 messages, received by both listeners, the rest held back" \
			"watch received=$msgs raw socket received=${raw:-nothing} sent=$sent held=$held"
	fi
	$DS stop
}
