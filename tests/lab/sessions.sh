# SPDX-License-Identifier: GPL-2.0
# TCP sessions: sourced by tests/lab/run.sh (its helpers, KTAP counters and
# cleanup), one function per test. Every number is checked exactly against
# the kernel's own: bpftrace reading the tcp_sock at TCP_CLOSE
# (tests/lab/tcplife.bt), ss -ti for live sessions, and what tcpgen did.

TG=$BIN/tcpgen
sjson() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
sstat() { $DS -j show stats | sjson "d['$1']"; }

# bpftrace in the background, its output in $TMP/$1; waits until attached
oracle_start() {
	local rx=0
	grep -q rx_sk $T/events/skb/kfree_skb/format && rx='(uint64)args->rx_sk'
	sed "s/RX_SK/$rx/" tests/lab/tcplife.bt > "$TMP/tcplife.bt"
	bpftrace "$TMP/tcplife.bt" > "$TMP/$1" 2> "$TMP/$1.err" &
	oracle=$!
	wait_for 120 grep -q Attaching "$TMP/$1" || return 1
	# "Attaching" comes before the probes are: wait until one sees a close
	local i
	for i in $(seq 60); do
		$TG run 1 5099 0 > /dev/null
		grep -q "^close 5099 " "$TMP/$1" && return 0
		sleep 0.5
	done
	return 1
}
oracle_stop() { sleep 1; kill -INT $oracle; wait $oracle; }

test_sessions_exact() {
	local r
	unload; load
	$DS start
	if ! command -v bpftrace >/dev/null || ! oracle_start oracle.txt; then
		fail "sessions: bpftrace oracle attaches" "$(cat "$TMP/oracle.txt.err" 2>/dev/null)"
		return
	fi
	$TG run 24 5001 4 > "$TMP/gen4.txt"
	$TG -6 run 8 5003 3 > "$TMP/gen6.txt"
	local loss=0
	if tc qdisc add dev lo root netem loss 4% 2>/dev/null; then
		loss=1
		$TG run 6 5005 0 > "$TMP/genloss.txt"
		tc qdisc del dev lo root
	fi
	oracle_stop
	$DS -j show sessions closed > "$TMP/closed.json"
	r=$(python3 tests/lab/sesscheck.py "$TMP/closed.json" "$TMP/oracle.txt" "$TMP/gen4.txt" 5001)
	check "sessions: 24 IPv4 closes exact (bytes, retrans, drops, resets, owner)" "checked 48" "$r"
	r=$(python3 tests/lab/sesscheck.py "$TMP/closed.json" "$TMP/oracle.txt" "$TMP/gen6.txt" 5003)
	check "sessions: 8 IPv6 closes exact" "checked 16" "$r"
	if [ $loss = 1 ]; then
		r=$(python3 tests/lab/sesscheck.py "$TMP/closed.json" "$TMP/oracle.txt" "$TMP/genloss.txt" 5005)
		check "sessions: 6 closes under netem loss exact" "checked 12" "$r"
		r=$(sjson "sum(s['retransmits'] for s in d if 5005 in (s['lport'], s['rport']))" < "$TMP/closed.json")
		echo "# retransmits under loss: $r"
	fi
	$DS stop
}

test_sessions_live() {
	local r
	$DS start tcp
	$TG hold 5 5007 > "$TMP/hold.txt" &
	local holder=$!
	wait_for 30 grep -q ready "$TMP/hold.txt"
	$DS -j show sessions port 5007 > "$TMP/live.json"
	ss -tinH "( sport = :5007 or dport = :5007 )" > "$TMP/ss.txt"
	r=$(python3 - "$TMP/live.json" "$TMP/ss.txt" $holder <<-'PY'
	import json, re, sys
	live = json.load(open(sys.argv[1])); pid = int(sys.argv[3])
	lines = open(sys.argv[2]).read().split("\n")
	ss = {}
	for i in range(0, len(lines) - 1, 2):
	    f = lines[i].split()
	    if len(f) < 5:
	        continue
	    lp = int(f[3].rsplit(":", 1)[1]); rp = int(f[4].rsplit(":", 1)[1])
	    g = lambda k: int(re.search(k + r":(\d+)", lines[i + 1]).group(1)) if re.search(k + r":(\d+)", lines[i + 1]) else 0
	    ss[(lp, rp)] = (g("bytes_acked"), g("bytes_received"), g("retrans:\\d+/"))
	# the owner of a passive end is known once a process closes it
	bad = [s for s in live if ss.get((s["lport"], s["rport"]))
	       != (s["tx_bytes"], s["rx_bytes"], s["retransmits"])
	       or s["state"] != "ESTABLISHED"
	       or (s["rport"] == 5007 and (s["pid"], s["comm"]) != (pid, "thold"))
	       or (s["lport"] == 5007 and s["pid"] != 0)]
	print(f"{len(live)} live, {len(ss)} in ss, {len(bad)} differ")
	PY
	)
	check "sessions: live bytes equal ss -ti, active owner thold" "10 live, 10 in ss, 0 differ" "$r"
	kill $holder; wait $holder
	r=$($DS -j show sessions closed port 5007 | sjson "sorted(set((s['pid'], s['comm']) for s in d)) == [($holder, 'thold')]")
	check "sessions: passive ends owned by the process that closed them" True "$r"
	$DS stop
}

test_sessions_overflow() {
	unload; load sessions=4 closed=8
	$DS start tcp
	$TG hold 3 5009 > "$TMP/hold2.txt" &
	local holder=$!
	wait_for 30 grep -q ready "$TMP/hold2.txt"
	check "sessions: 6 sessions, 4 fit" "4 2" "$(sstat sessions_live) $(sstat sessions_overflow)"
	kill $holder; wait $holder
	$TG run 10 5011 0 > /dev/null
	check "sessions: 24 closes, 8 kept, 16 overwritten unread" \
		"24 8 16" "$(sstat sessions_closed) $($DS -j show sessions closed | sjson 'len(d)') $(sstat sessions_unread)"
	$TG run 2 5013 0 > /dev/null
	check "sessions: closes read by a dump are not counted unread" \
		"28 16" "$(sstat sessions_closed) $(sstat sessions_unread)"
	$DS stop
	unload; load
}

# sbad NAME PATTERN NLPOKE_ARGS...: the kernel refuses, with this message
sbad() {
	local name=$1 want=$2 out
	shift 2
	out=$($BIN/nlpoke "$@")
	if [[ $out == $want ]]; then ok "bad input: $name ($out)"
	else fail "bad input: $name" "got: $out"; fi
}

test_sessions_parts() {
	$DS start drops
	check "start drops: only drops run" '["drops"]' "$($DS -j status | sjson "json.dumps(d['parts'])")"
	sbad "start while running" "error EALREADY*" 1
	$DS stop
	sbad "start with parts 0" "error EINVAL*no part to start*" 1 u32:16=0
	sbad "start with an unknown part" "error EINVAL*: ?*" 1 u32:16=4
	check "refused starts leave it stopped" "False" "$($DS -j status | sjson "d['running']")"
	$DS start tcp drops
	check "start tcp drops: both run" '["drops", "tcp"]' "$($DS -j status | sjson "json.dumps(d['parts'])")"
	$DS stop
}

test_sessions_unload() {
	dmesg -C
	$DS start
	taskset -c 0 $TG churn 4 5015 > /dev/null 2>&1 &
	local c0=$!
	taskset -c 1 $TG churn 4 5017 > /dev/null 2>&1 &
	local c1=$!
	sleep 1.5
	unload && ok "sessions: rmmod while sessions churn on two CPUs" ||
		fail "sessions: rmmod while sessions churn on two CPUs"
	wait $c0 $c1
	if dmesg | grep -E "WARNING|BUG|Oops|KASAN|leak|refcount" > "$TMP/dmesg.sess"; then
		fail "sessions: no warning in dmesg" "$(cat "$TMP/dmesg.sess")"
	else
		ok "sessions: no warning in dmesg"
	fi
	load
}

test_sessions_exact
test_sessions_live
test_sessions_overflow
test_sessions_parts
test_sessions_unload
