# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# TCP sessions: test functions sourced by tests/lab/run.sh, which runs them
# (its helpers, KTAP results, per-test names and cleanup). Every number is
# checked exactly against the kernel's own: bpftrace reading the tcp_sock
# at TCP_CLOSE (tests/lab/tcplife.bt), ss -ti for live sessions, and what
# tcpgen did. The sessions run on lo, each test on ports of its own.

TG=$BIN/tcpgen

# offsets_sed: a sed script that puts the offsets of the kernel's members
# (build/oracle/KVER/offsets, make oracle) for OFF_NAME in bpftrace's code
offsets_sed() {
	local f=build/oracle/$KVER/offsets
	[ -s "$f" ] || abort "no $f: make oracle KVER=$KVER"
	sed 's|^\([A-Z_]*\) \([0-9]*\)$|s/OFF_\1\\b/\2/g;|' "$f" | tr -d '\n'
}

# oracle_start FILE [START END]: bpftrace in the background, its output in
# $TMP/FILE; each socket's drops at a location in [START, END) are counted
# apart too. Returns once its probes see a close (bpftrace compiles the
# script before it attaches: minutes on a loaded host under emulation).
oracle_start() {
	local rx=0 i
	grep -q rx_sk $T/events/skb/kfree_skb/format && rx='(uint64)args->rx_sk'
	sed "s/RX_SK/$rx/; s/SITE_START/${2:-0}/; s/SITE_END/${3:-0}/; $(offsets_sed)" \
		tests/lab/tcplife.bt > "$TMP/tcplife.bt"
	bpftrace "$TMP/tcplife.bt" > "$TMP/$1" 2> "$TMP/$1.err" &
	oracle=$!
	defer kill_quiet $oracle
	wait_oracle 600 grep -q Attaching "$TMP/$1" || return 1
	# "Attaching" comes before the probes are: wait until one sees a close
	for i in $(seq 60); do
		$TG run 1 5099 0 > /dev/null
		grep -q "^close 5099 " "$TMP/$1" && return 0
		timed oracle command sleep 0.5
	done
	return 1
}
# oracle_stop: SIGINT ends bpftrace. One busy compiling or attaching may
# miss it: it is sent again every 10 s, six times; one that has still not
# exited is reported, with where it waits, and killed: what it printed is
# all the tests read, and a hung oracle must not hang the run
oracle_stop() {
	local i
	sleep 1
	for i in 1 2 3 4 5 6; do
		kill -INT $oracle 2>/dev/null
		wait_for 10 exited $oracle && break
	done
	if ! exited $oracle; then
		echo "# bpftrace did not exit on SIGINT in 60 s: state $(ps -o stat=,wchan:32= -p $oracle)" >&2
		sed 's/^/#   /' /proc/$oracle/stack >&2 2>/dev/null
		kill -KILL $oracle
		wait_for 60 exited $oracle || { echo "# bpftrace did not exit on SIGKILL either" >&2; return; }
	fi
	wait $oracle
}

# oracle_closes FILE PORT N: wait until every session of server port PORT
# is closed and the oracle has printed the closes of its N ends (the
# listener's close is not one: it must not stand in for a late end). A
# close under loss can come seconds after the generator has returned (a
# lost FIN is sent again). The kernel is done when ss shows no socket of
# the port but in TIME-WAIT (past its close); the oracle prints what its
# probes saw a moment later: its "sync" line, once printed, says it
# printed theirs.
oracle_closes() {
	local pairs="grep -E '^close ($2 [1-9][0-9]*|[0-9]+ $2) ' '$TMP/$1' | cut -d' ' -f2,3 | sort -u | wc -l" n
	wait_for 60 sh -c "[ -z \"\$(ss -Htan exclude time-wait exclude listening '( sport = :$2 or dport = :$2 )')\" ]" ||
		abort "sessions of port $2 still open: $(ss -Htan '( sport = :'"$2"' or dport = :'"$2"' )' | head -3)"
	n=$(grep -c '^sync$' "$TMP/$1")
	kill -0 2147483647 2> /dev/null
	wait_for 30 sh -c "[ \$(grep -c '^sync\$' '$TMP/$1') -gt $n ] && [ \$($pairs) -ge $3 ]" ||
		abort "the oracle printed the closes of $(sh -c "$pairs") ends of port $2, not $3"
}

# netem_lo LOSS: lose packets on lo until netem_off or the test's end;
# 1 if it could not
netem_lo() {
	tc qdisc add dev lo root netem loss "$1" 2>/dev/null || return 1
	defer netem_off
}
netem_off() { ! tc qdisc show dev lo | grep -q netem || tc qdisc del dev lo root; }

# ss_ti FILTER: each socket ss -ti lists for FILTER, a line each:
# "LPORT RPORT BYTES_ACKED BYTES_RECEIVED TOTAL_RETRANS"
ss_ti() {
	ss -tinH "$1" > "$TMP/ss_ti.raw"
	py - "$TMP/ss_ti.raw" <<-'PY'
	import re, sys
	lines = open(sys.argv[1]).read().split("\n")
	for i in range(0, len(lines) - 1, 2):
	    f = lines[i].split()
	    if len(f) < 5:
	        continue
	    g = lambda k: int(m.group(1)) if (m := re.search(r"\b" + k + r":(\d+)", lines[i + 1])) else 0
	    # retrans:CUR/TOTAL, only when one is not 0: the total retransmits
	    r = re.search(r"\bretrans:\d+/(\d+)", lines[i + 1])
	    print(f[3].rsplit(":", 1)[1], f[4].rsplit(":", 1)[1], g("bytes_acked"),
	          g("bytes_received"), r.group(1) if r else 0)
	PY
}

# hold N PORT FILE: N sessions held open by tcpgen (comm thold); sets holder
hold() {
	$TG hold "$1" "$2" > "$TMP/$3" &
	holder=$!
	defer kill_quiet $holder
	wait_for 30 grep -q ready "$TMP/$3" || abort "tcpgen hold did not get ready"
}

# closes, IPv4 and IPv6, with resets and under loss, against the oracle
test_sessions_exact() {
	local r loss=0 oracle
	need bpftrace tc
	setup_module
	$DS start
	oracle_start oracle.txt ||
		abort "bpftrace oracle did not attach: $(cat "$TMP/oracle.txt.err")"
	$TG run 24 5001 4 > "$TMP/gen4.txt"
	$TG -6 run 8 5003 3 > "$TMP/gen6.txt"
	# every lab kernel has netem: a tc that fails is a failure
	netem_lo 4% || abort "tc refused netem on lo"
	loss=1
	$TG run 6 5005 0 > "$TMP/genloss.txt"
	netem_off
	oracle_closes oracle.txt 5005 12
	oracle_closes oracle.txt 5001 48
	oracle_closes oracle.txt 5003 16
	oracle_stop
	$DS -j show sessions closed > "$TMP/closed.json"
	r=$(py tests/lab/sesscheck.py "$TMP/closed.json" "$TMP/oracle.txt" "$TMP/gen4.txt" 5001)
	check "sessions: 24 IPv4 closes exact (bytes, retrans, drops, resets, owner)" "checked 48" "$r"
	r=$(py tests/lab/sesscheck.py "$TMP/closed.json" "$TMP/oracle.txt" "$TMP/gen6.txt" 5003)
	check "sessions: 8 IPv6 closes exact" "checked 16" "$r"
	if [ $loss = 1 ]; then
		r=$(py tests/lab/sesscheck.py "$TMP/closed.json" "$TMP/oracle.txt" "$TMP/genloss.txt" 5005)
		check "sessions: 6 closes under netem loss exact" "checked 12" "$r"
		r=$(json "sum(s['retransmits'] for s in d if 5005 in (s['lport'], s['rport']))" < "$TMP/closed.json")
		echo "# retransmits under loss: $r"
	else
		skip "sessions: 6 closes under netem loss exact" "no netem"
	fi
	$DS stop
}

# live sessions against ss -ti; the owners of both ends
test_sessions_live() {
	local r holder
	need ss
	setup_module
	$DS start tcp
	hold 5 5007 hold.txt
	$DS -j show sessions port 5007 > "$TMP/live.json"
	ss_ti "( sport = :5007 or dport = :5007 )" > "$TMP/ss.txt"
	r=$(py - "$TMP/live.json" "$TMP/ss.txt" $holder <<-'PY'
	import json, sys
	live = json.load(open(sys.argv[1])); pid = int(sys.argv[3])
	ss = {(int(f[0]), int(f[1])): tuple(map(int, f[2:])) for f in map(str.split, open(sys.argv[2]))}
	# both ends are thold's: it connected, and it accepted
	bad = [s for s in live if ss.get((s["lport"], s["rport"]))
	       != (s["tx_bytes"], s["rx_bytes"], s["retransmits"])
	       or s["state"] != "ESTABLISHED"
	       or (s["pid"], s["comm"]) != (pid, "thold")]
	print(f"{len(live)} live, {len(ss)} in ss, {len(bad)} differ")
	PY
	)
	check "sessions: live bytes equal ss -ti, both ends owned by thold" "10 live, 10 in ss, 0 differ" "$r"
	kill $holder
	wait $holder
	r=$($DS -j show sessions closed port 5007 | json "sorted(set((s['pid'], s['comm']) for s in d)) == [($holder, 'thold')]")
	check "sessions: passive ends owned by the process that closed them" True "$r"
	$DS stop
}

# ss_open_ends: the TCP sockets ss lists that are sessions (neither
# listening nor TIME-WAIT nor a request), all ports, all namespaces' of this
# one
ss_open_ends() {
	ss -tanH | awk '$1 != "LISTEN" && $1 != "TIME-WAIT" && $1 != "SYN-RECV"' | wc -l
}

closed_is() { [ "$(stat_of sessions_closed)" = "$1" ]; }

# sessions open before start: found by it, IPv4 and IPv6, with the bytes
# they had moved already; after more traffic their bytes equal ss -ti's
test_sessions_found() {
	local p4 p6 r open
	need ss
	setup_module
	$TG pump 100 5015 1000 > "$TMP/pump4.txt" &
	p4=$!
	defer kill_quiet $p4
	$TG -6 pump 10 5016 700 > "$TMP/pump6.txt" &
	p6=$!
	defer kill_quiet $p6
	wait_for 30 grep -q ready "$TMP/pump4.txt" || abort "tcpgen pump did not get ready"
	wait_for 30 grep -q ready "$TMP/pump6.txt" || abort "tcpgen -6 pump did not get ready"
	kill -USR1 $p4 $p6
	wait_for 60 grep -q "pumped 1" "$TMP/pump4.txt" || abort "tcpgen pump did not pump"
	wait_for 60 grep -q "pumped 1" "$TMP/pump6.txt" || abort "tcpgen -6 pump did not pump"
	open=$(ss_open_ends)
	$DS start tcp
	check "start found every session open before it, as ss lists them" \
		"220 $open $open" "$(stat_of sessions_found) $(stat_of sessions_opened) $(stat_of sessions_live)"
	kill -USR1 $p4 $p6
	wait_for 60 grep -q "pumped 2" "$TMP/pump4.txt" || abort "tcpgen pump did not pump again"
	wait_for 60 grep -q "pumped 2" "$TMP/pump6.txt" || abort "tcpgen -6 pump did not pump again"
	$DS -j show sessions live > "$TMP/found.json"
	ss_ti "( sport = :5015 or dport = :5015 or sport = :5016 or dport = :5016 )" > "$TMP/ss.txt"
	r=$(py - "$TMP/found.json" "$TMP/ss.txt" <<-'PY'
	import json, sys
	live = [s for s in json.load(open(sys.argv[1])) if {s["lport"], s["rport"]} & {5015, 5016}]
	ss = {(int(f[0]), int(f[1])): tuple(map(int, f[2:4])) for f in map(str.split, open(sys.argv[2]))}
	bad = [s for s in live if ss.get((s["lport"], s["rport"])) != (s["tx_bytes"], s["rx_bytes"])
	       or not s["found"] or s["state"] != "ESTABLISHED" or s["tx_bytes"] == 0]
	print(f"{len(live)} live, {len(ss)} in ss, {len(bad)} differ")
	PY
	)
	check "found sessions: their bytes since their birth equal ss -ti's after more traffic" \
		"220 live, 220 in ss, 0 differ" "$r"
	# a session born after start is not found
	$TG run 1 5017 0 > /dev/null
	check "a session born after start is not marked found" "False" \
		"$($DS -j show sessions closed port 5017 | json "any(s['found'] for s in d)")"
	kill $p4 $p6
	wait $p4 $p6
	wait_for 10 closed_is 222
	check "their closes are counted: 220 found, 222 closed" "220 222" \
		"$(stat_of sessions_found) $(stat_of sessions_closed)"
	$DS stop
}

# A server that accepts and only reads owns its passive ends from the
# accept, as ss -p shows them; its clients, another process, their active
# ends; and closed, each end keeps its owner
test_sessions_accept_owner() {
	local srv cli r
	need ss
	setup_module
	$DS start tcp
	cat > "$TMP/acc.py" <<-'PY'
	import os, socket, sys, time
	port = int(sys.argv[1])
	l = socket.socket()
	l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	l.bind(("127.0.0.1", port))
	l.listen(8)
	if os.fork() == 0:
	    l.close()
	    cs = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
	    for c in cs:
	        c.sendall(b"x" * 100)
	    open(sys.argv[2], "w").write("%d\n" % os.getpid())
	    time.sleep(3600)
	got = []
	for _ in range(3):
	    s, _ = l.accept()
	    s.recv(100)
	    got.append(s)
	print("ready", flush=True)
	time.sleep(3600)
	PY
	python3 "$TMP/acc.py" 5019 "$TMP/acc.cli" > "$TMP/acc.txt" &
	srv=$!
	defer kill_quiet $srv
	wait_for 30 grep -q ready "$TMP/acc.txt" || abort "the reading server did not get ready"
	wait_for 30 test -s "$TMP/acc.cli" || abort "its clients did not get ready"
	cli=$(cat "$TMP/acc.cli")
	defer kill_quiet "$cli"
	r=$($DS -j show sessions live port 5019 | json "sorted(('srv' if s['lport'] == 5019 else 'cli', s['pid']) for s in d)")
	check "live: the passive ends are the accepting server's, the active ones its clients'" \
		"[('cli', $cli), ('cli', $cli), ('cli', $cli), ('srv', $srv), ('srv', $srv), ('srv', $srv)]" "$r"
	r=$(ss -tnpH "sport = :5019" | grep -c "pid=$srv,")
	check "ss -p shows the same process holding the passive ends" "3" "$r"
	kill "$cli" $srv
	wait $srv
	wait_for 10 closed_is 6
	r=$($DS -j show sessions closed port 5019 | json "sorted(('srv' if s['lport'] == 5019 else 'cli', s['pid']) for s in d)")
	check "closed: each end keeps its owner" \
		"[('cli', $cli), ('cli', $cli), ('cli', $cli), ('srv', $srv), ('srv', $srv), ('srv', $srv)]" "$r"
	$DS stop
}

# port_done PORT: every session of PORT is closed: ss shows no socket of
# it but in TIME-WAIT (a lost FIN is sent again seconds later), and
# dropscope has no live session of it
port_done() {
	[ -z "$(ss -Htan exclude time-wait exclude listening "( sport = :$1 or dport = :$1 )")" ] &&
		[ "$($DS -j show sessions live port "$1" | json 'len(d)')" = 0 ]
}
no_events() { [ "$($DS -j status | json "d['session_events']")" = "[]" ]; }

# ev_trace_start NAME FILTER: the kernel's own record of
# sock:inet_sock_set_state (FILTER: a tracefs filter) in a trace instance
# of its own, $T/instances/NAME
ev_trace_start() {
	local d=$T/instances/$1 e=events/sock/inet_sock_set_state
	mkdir "$d" || abort "no trace instance $d"
	defer rmdir "$d"
	echo "$2" > "$d/$e/filter" || abort "filter refused: $2"
	echo 1 > "$d/$e/enable" || abort "cannot enable $e in $d"
	defer sh -c "echo 0 > $d/$e/enable"
}

# ev_compare WATCH.jsonl TRACE: the state changes watch printed against
# the trace's, as "N events, M differ": per socket (its ports; both set),
# in order; and all of them, ports and states, as a multiset
ev_compare() {
	py - "$1" "$2" <<-'PY'
	import collections, json, re, sys
	ours = [(e["lport"], e["rport"], e["oldstate"], e["newstate"])
	        for e in map(json.loads, open(sys.argv[1])) if e.get("kind") == "state"]
	theirs = []
	for l in open(sys.argv[2]):
	    m = re.search(r"sport=(\d+) dport=(\d+) .*oldstate=TCP_(\w+) newstate=TCP_(\w+)", l)
	    if m:
	        theirs.append((int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)))
	def seqs(v):
	    d = collections.defaultdict(list)
	    for e in v:
	        if e[0] and e[1]:
	            d[e[:2]].append(e[2:])
	    return d
	differ = sum(1 for k in set(seqs(ours)) | set(seqs(theirs)) if seqs(ours)[k] != seqs(theirs)[k])
	a, b = collections.Counter(ours), collections.Counter(theirs)
	differ += sum(((a - b) + (b - a)).values())
	print(f"{len(ours)} events, {len(theirs)} traced, {differ} differ")
	PY
}

# Every state change of scripted sessions (closes, resets), in order,
# as watch sessions states prints them, against the kernel's trace of
# sock:inet_sock_set_state; and nothing is recorded once the watcher goes
test_sessions_watch_states() {
	local watcher d=$T/instances/dsstates r n
	setup_module
	$DS start tcp
	ev_trace_start dsstates "protocol == 6 && (sport == 5025 || dport == 5025)"
	$DS -j watch sessions states port 5025 > "$TMP/states.jsonl" 2> "$TMP/states.err" &
	watcher=$!
	defer kill_quiet $watcher
	wait_for 10 grep -q "$WATCH_READY" "$TMP/states.err" || abort "watch did not start: $(cat "$TMP/states.err")"
	check "status: the session events recorded are those watch asked for" "['states']" \
		"$($DS -j status | json "d['session_events']")"
	$TG run 4 5025 3 > /dev/null || abort "tcpgen run failed"
	$TG -6 run 2 5025 0 > /dev/null || abort "tcpgen -6 run failed"
	# every close is in: the trace stops growing, and watch catches up
	wait_for 30 port_done 5025 || abort "the sessions of port 5025 did not close"
	n=$(grep -c inet_sock_set_state "$d/trace")
	wait_for 10 sh -c "[ \$(grep -c '\"kind\":\"state\"' $TMP/states.jsonl) -ge $n ]"
	cp "$d/trace" "$TMP/states.trace"
	r=$(ev_compare "$TMP/states.jsonl" "$TMP/states.trace")
	check "watch sessions states: every state change, in order, as the kernel traced them" \
		"$n events, $n traced, 0 differ" "$r"
	# 6 sessions: each of their 12 ends changes state at least twice
	check "watch sessions states: the kernel traced 24 changes or more" yes \
		"$([ "$n" -ge 24 ] && echo yes || echo "no: $n")"
	kill $watcher
	wait $watcher 2>/dev/null
	wait_for 10 no_events
	n=$(stat_of session_events)
	$TG run 1 5025 0 > /dev/null
	check "the watcher gone, no event is recorded" "$n []" \
		"$(stat_of session_events) $($DS -j status | json "d['session_events']")"
	check "no session event was lost" "0" "$(stat_of session_events_lost)"
	# raw requests (DROPSCOPE_CMD_CONFIG_SET 4, DROPSCOPE_A_SESS_EVENTS 31)
	r=$(nlraw 4 u32:31=4)
	if [[ $r == "error EINVAL"* ]] && no_events; then
		ok "an unknown session event is refused, and changes nothing ($r)"
	else
		fail "an unknown session event is refused, and changes nothing" "$r"
	fi
	check "a socket that asks for events, then closes, is let go" "ok []" \
		"$(nlraw 4 u32:31=3) $($DS -j status | json "d['session_events']")"
	$DS stop
}

# Retransmits under loss: their segments add up, per socket, to the
# total_retrans of its session; the TLPs are tcp_send_loss_probe()'s calls
# as bpftrace counts them for the port (tcpretrans -l's L events)
test_sessions_watch_retrans() {
	local watcher r oracle tlp
	need bpftrace tc
	setup_module
	$DS start tcp
	bpftrace -e "$(sed "$(offsets_sed)" <<-'BT'
	BEGIN { @tlp = 0; printf("ready\n"); }
	kprobe:tcp_send_loss_probe {
		if (*(uint16 *)(arg0 + OFF_SK_NUM) == 5027 || *(uint16 *)(arg0 + OFF_SK_DPORT) == 0xa313) { @tlp++; }
	}
	END { printf("tlp %d\n", @tlp); clear(@tlp); }
	BT
	)" > "$TMP/tlp.txt" 2> "$TMP/tlp.err" &
	tlp=$!
	defer kill_quiet $tlp
	# BEGIN runs once every probe is attached
	wait_oracle 600 grep -q ready "$TMP/tlp.txt" || abort "bpftrace did not attach: $(cat "$TMP/tlp.err")"
	# and the kernel's total_retrans of each socket at its close
	oracle_start life.txt || abort "bpftrace oracle did not attach: $(cat "$TMP/life.txt.err")"
	$DS -j watch sessions retrans port 5027 > "$TMP/rtx.jsonl" 2> "$TMP/rtx.err" &
	watcher=$!
	defer kill_quiet $watcher
	wait_for 10 grep -q "$WATCH_READY" "$TMP/rtx.err" || abort "watch did not start: $(cat "$TMP/rtx.err")"
	# enough sessions and loss that some segment is always retransmitted
	netem_lo 10% || abort "netem on lo refused"
	$TG run 16 5027 0 > /dev/null || abort "tcpgen run failed"
	netem_off
	wait_for 60 port_done 5027 || abort "the sessions of port 5027 did not close"
	oracle_closes life.txt 5027 32
	oracle_stop
	oracle=$tlp
	oracle_stop
	grep -q "^tlp" "$TMP/tlp.txt" || abort "bpftrace did not end: $(cat "$TMP/tlp.err")"
	$DS -j show sessions closed port 5027 > "$TMP/rtxsess.json"
	# the rounds carry the events in the order they were recorded, and
	# the last was recorded before the last close: wait until every
	# socket's events add up (or 20 s, and report what differs)
	cat > "$TMP/rtx.py" <<-'PY'
	import collections, json, sys
	ev = [e for e in map(json.loads, open(sys.argv[1])) if "kind" in e]
	segs = collections.Counter()
	for e in ev:
	    if e["kind"] == "retrans":
	        segs[(e["lport"], e["rport"])] += e["segs"]
	sess = json.load(open(sys.argv[2]))
	# the kernel's total_retrans at each close (tcplife.bt)
	life = collections.Counter()
	for l in open(sys.argv[4]):
	    f = l.split()
	    if f[:1] == ["close"] and "5027" in f[1:3]:
	        life[(int(f[1]), int(f[2]))] += int(f[5])
	odiff = sum(1 for k in set(life) | set(segs) if life[k] != segs[k])
	total = sum(s["retransmits"] for s in sess)
	bad = [s for s in sess if segs[(s["lport"], s["rport"])] != s["retransmits"]]
	bad += [k for k in segs if not any((s["lport"], s["rport"]) == k for s in sess)]
	if sys.argv[3] == "poll":
	    sys.exit(1 if bad else 0)
	tlp = sum(1 for e in ev if e["kind"] == "tlp")
	# a server child that lost its handshake's race is a session too
	clients = sum(1 for s in sess if s["rport"] == 5027)
	print(f"{clients} clients, {'16+' if len(sess) - clients >= 16 else len(sess) - clients} servers, retransmits {'>0' if total else '0'}, {len(bad)} differ, {odiff} differ from tcplife, tlp {'equal' if tlp == int(sys.argv[3]) else f'{tlp} != {sys.argv[3]}'}")
	# what differs, to read on a failure: each socket's events and dump
	for b in bad[:4]:
	    k = (b["lport"], b["rport"]) if isinstance(b, dict) else b
	    s = [x for x in sess if (x["lport"], x["rport"]) == k]
	    print(f"  {k}: events {[(e['kind'], e['oldstate'], e['newstate'], e.get('segs')) for e in ev if (e['lport'], e['rport']) == k]}, dump {[(x['state'], x['retransmits'], x['cookie']) for x in s]}")
	for k in [k for k in set(life) | set(segs) if life[k] != segs[k]][:4]:
	    print(f"  {k}: tcplife {life[k]} in {sum(1 for l in open(sys.argv[4]) if l.split()[1:3] == [str(k[0]), str(k[1])])} closes, events {segs[k]}")
	PY
	wait_for 20 py "$TMP/rtx.py" "$TMP/rtx.jsonl" "$TMP/rtxsess.json" poll "$TMP/life.txt"
	kill $watcher
	wait $watcher 2>/dev/null
	r=$(py "$TMP/rtx.py" "$TMP/rtx.jsonl" "$TMP/rtxsess.json" "$(sed -n 's/^tlp //p' "$TMP/tlp.txt")" "$TMP/life.txt")
	check "watch sessions retrans: each socket's retransmitted segments equal its total_retrans, in dropscope's dump and at its close (tcplife.bt); TLPs as the kernel called them" \
		"16 clients, 16+ servers, retransmits >0, 0 differ, 0 differ from tcplife, tlp equal" "$r"
	$DS stop
}

# a tiny table and ring: what does not fit is counted
test_sessions_overflow() {
	local holder
	setup_module sessions=4 closed=8
	$DS start tcp
	hold 3 5009 hold.txt
	check "sessions: 6 sessions, 4 fit" "4 2" "$(stat_of sessions_live) $(stat_of sessions_overflow)"
	kill $holder
	wait $holder
	$TG run 10 5011 0 > /dev/null
	check "sessions: 24 closes, 8 kept, 16 overwritten unread" \
		"24 8 16" "$(stat_of sessions_closed) $($DS -j show sessions closed | json 'len(d)') $(stat_of sessions_unread)"
	$TG run 2 5013 0 > /dev/null
	check "sessions: closes read by a dump are not counted unread" \
		"28 16" "$(stat_of sessions_closed) $(stat_of sessions_unread)"
	$DS stop
}

# start picks parts; status says which run; bad parts are refused
test_sessions_parts() {
	local cfg
	setup_module
	sbad() { # sbad NAME PATTERN NLRAW_ARGS...: refused, with this message
		local name=$1 want=$2 out
		shift 2
		out=$(nlraw "$@")
		if [[ $out == $want ]]; then ok "bad input: $name ($out)"
		else fail "bad input: $name" "got: $out"; fi
	}
	$DS start drops
	check "start drops: only drops run" '["drops"]' "$($DS -j status | json "json.dumps(d['parts'])")"
	gen udp 5 $UDP_CLOSED
	check "start drops: drops are counted, sessions are not" "5 0" \
		"$(stat_of events) $(stat_of sessions_opened)"
	sbad "start while running" "error EALREADY*" 1
	$DS stop
	cfg=$($DS -j status)
	sbad "start with parts 0" "error EINVAL*no part to start*" 1 u32:16=0
	sbad "start with an unknown part" "error EINVAL*: ?*" 1 u32:16=64
	check "refused starts leave it stopped" "$cfg" "$($DS -j status)"
	$DS start tcp drops
	check "start tcp drops: both run" '["drops", "tcp"]' "$($DS -j status | json "json.dumps(d['parts'])")"
	$DS stop
	$DS start tcp
	gen udp 5 $UDP_CLOSED
	check "start tcp: no drop is counted" 0 "$(stat_of events)"
	$DS stop
	$DS start
	check "start: every part runs" "$PARTS_ALL" "$($DS -j status | json "' '.join(d['parts'])")"
	$DS stop
	check "stopped: no part runs" '[]' "$($DS -j status | json "json.dumps(d['parts'])")"
	$DS start bogus > /dev/null 2>&1
	check "CLI refuses 'start bogus' (exit 2), config unchanged" "2 $cfg" "$? $($DS -j status)"
}

# rmmod while sessions open and close on two CPUs
test_sessions_unload() {
	local c0 c1
	need taskset
	if [ "$(nproc)" -lt 2 ]; then
		skip "sessions: rmmod while sessions churn on two CPUs" "one CPU only"
		return
	fi
	setup_module
	dmesg -C
	$DS start
	taskset -c 0 $TG churn 4 5015 > /dev/null 2>&1 &
	c0=$!
	defer kill_quiet $c0
	taskset -c 1 $TG churn 4 5017 > /dev/null 2>&1 &
	c1=$!
	defer kill_quiet $c1
	sleep 1.5
	unload && ok "sessions: rmmod while sessions churn on two CPUs" ||
		fail "sessions: rmmod while sessions churn on two CPUs"
	wait $c0 $c1
	if dmesg | grep -E "WARNING|BUG|Oops|KASAN|leak|refcount" > "$TMP/dmesg.sess"; then
		fail "sessions: no warning in dmesg" "$(cat "$TMP/dmesg.sess")"
	else
		ok "sessions: no warning in dmesg"
	fi
	if load && $DS start tcp && $TG run 2 5019 0 > /dev/null && $DS stop; then
		check "sessions: reload works" 4 "$(stat_of sessions_closed)"
	else
		fail "sessions: reload works" "insmod, start, 2 sessions or stop failed"
	fi
}

# top: what each interval moved, summed over the frames, is what the
# sessions moved: three live ones against ss -ti before and after (and
# what tcpgen pumped), four that open and close meanwhile against their
# totals at TCP_CLOSE (which test_sessions_exact holds to the kernel's)
test_sessions_top() {
	local r pumper top rc frames bytes=20000
	need ss
	setup_module
	$DS start tcp
	$TG pump 3 5021 $bytes > "$TMP/pump.txt" &
	pumper=$!
	defer kill_quiet $pumper
	wait_for 30 grep -q ready "$TMP/pump.txt" || abort "tcpgen pump did not get ready"
	ss -tinH "( sport = :5021 or dport = :5021 )" > "$TMP/ss0.txt"
	# as many frames as the traffic takes, however slow the kernel: top
	# runs until SIGTERM, sent once two frames came after the traffic
	$DS -j top interval 1 > "$TMP/top.json" 2> "$TMP/top.err" &
	top=$!
	defer kill_quiet $top
	wait_for 30 grep -q "$WATCH_READY" "$TMP/top.err" ||
		abort "top did not start: $(cat "$TMP/top.err")"
	kill -USR1 $pumper
	wait_for 30 grep -q "pumped 1" "$TMP/pump.txt" || abort "no first pump"
	sleep 1.2	# the second one in another interval
	kill -USR1 $pumper
	wait_for 30 grep -q "pumped 2" "$TMP/pump.txt" || abort "no second pump"
	$TG run 4 5023 0 > "$TMP/run.txt"
	sleep 0.5	# the last ACKs
	ss -tinH "( sport = :5021 or dport = :5021 )" > "$TMP/ss1.txt"
	frames=$(wc -l < "$TMP/top.json")
	wait_for 60 sh -c "[ \$(wc -l < $TMP/top.json) -ge $((frames + 2)) ]" ||
		abort "top made no two frames after the traffic"
	kill -TERM $top
	rc=0
	wait $top || rc=$?
	frames=$(wc -l < "$TMP/top.json")
	check "top: a JSON array a frame ($frames), exit 0 at SIGTERM" "$frames 0" \
		"$(py -c 'import json, sys; print(sum(isinstance(json.loads(l), list) for l in sys.stdin))' < "$TMP/top.json") $rc"
	# expected: what ss -ti saw the live sessions move, what tcpgen's
	# closed ones moved (its clients' bytes each way: their servers' the
	# other way); actual: what top's frames summed. Each is computed on
	# its own, and one that fails or prints nothing fails the test.
	oracle want py - "$TMP/ss0.txt" "$TMP/ss1.txt" "$TMP/run.txt" $bytes <<-'PY'
	import json, re, sys
	def ss(path):
	    lines = open(path).read().split("\n")
	    v = {}
	    for i in range(0, len(lines) - 1, 2):
	        f = lines[i].split()
	        if len(f) < 5:
	            continue
	        g = lambda k: int(m.group(1)) if (m := re.search(r"\b" + k + r":(\d+)", lines[i + 1])) else 0
	        v[(f[3], f[4])] = (g("bytes_received"), g("bytes_acked"))
	    return v
	s0, s1 = ss(sys.argv[1]), ss(sys.argv[2])
	b = int(sys.argv[4])
	# what pump moved: 2 rounds, client i B*(i+1) bytes, the server half
	want = 2 * sum(b * i + b * i // 2 for i in (1, 2, 3))
	live = [sum(s1[k][j] - s0[k][j] for k in s1) for j in (0, 1)]
	# tcpgen: "cli PID COMM LPORT TX RX RST" a client; each end receives
	# what the other sent, and the kernel counts sequence space: each end
	# received a FIN (bytes_received + 1) and had its FIN acked, each
	# client its SYN too (bytes_acked + 2 and + 1)
	cli = [l.split() for l in open(sys.argv[3]) if l.startswith("cli ")]
	moved = sum(int(c[4]) + int(c[5]) for c in cli)
	run = [moved + 2 * len(cli), moved + 3 * len(cli)]
	assert live == [want, want], "ss -ti: the live sessions moved %s, pump %d" % (live, want)
	assert len(s1) == 6, "ss -ti: %d ends of port 5021" % len(s1)
	assert len(cli) == 4, "tcpgen run: %d clients" % len(cli)
	print(f"live {live[0]} {live[1]} closed {run[0]} {run[1]} {2 * len(cli)} ends {len(s1)}")
	PY
	oracle got py - "$TMP/top.json" <<-'PY'
	import json, sys
	frames = [json.loads(l) for l in open(sys.argv[1])]
	def top(port, key):
	    return sum(s[key] for f in frames for s in f if port in (s["lport"], s["rport"]))
	closed = sum(1 for f in frames for s in f if s["closed"] and 5023 in (s["lport"], s["rport"]))
	live = len({(s["lport"], s["rport"]) for f in frames for s in f if 5021 in (s["lport"], s["rport"]) and not s["closed"]})
	print(f"live {top(5021, 'rx_delta')} {top(5021, 'tx_delta')} "
	      f"closed {top(5023, 'rx_delta')} {top(5023, 'tx_delta')} {closed} ends {live}")
	PY
	check "top: the deltas of 3 live sessions sum to what pump moved, as ss -ti's growth; of 4 closed ones to their totals" \
		"$want" "$got"
	# without a terminal and without -j: plain frames, no escape
	rc=0
	$DS top count 2 interval 0.2 > "$TMP/top.txt" 2>&1 || rc=$?
	check "top: 2 plain frames, no escapes, exit 0" "2 0 0" \
		"$(grep -c ' sessions: .* live' "$TMP/top.txt") $(grep -c $'\e' "$TMP/top.txt") $rc"
	kill $pumper
	wait $pumper
	$DS stop
}

# top on a terminal: s sorts, a resize redraws to fit, q and Ctrl-C leave
# at once, the terminal as it was
test_sessions_top_tty() {
	local k r want="exit 0 fast True sort True fits True screen True stty True"
	setup_module
	$DS start tcp
	for k in q ctrl-c enter; do
		r=$(python3 tests/lab/ptytop.py $k "$DS" top interval 0.5)
		check "top on a terminal: $k leaves, screen and stty restored" "$want" "$r"
	done
	$DS stop
}

# tcp_opens: the sockets TCP has opened, ActiveOpens + PassiveOpens
tcp_opens() { echo $(($($KC snmp Tcp ActiveOpens) + $($KC snmp Tcp PassiveOpens))); }

# top with a ring of 8: closes overwritten before top read them are
# counted in its header, as many as show stats counts unread. Every socket
# opened closes: the kernel's ActiveOpens and PassiveOpens say how many.
# Ten connections are 20 or more: a server end may have a second socket
# (two CPUs completing the same handshake; the loser closes at once).
test_sessions_top_missed() {
	local top opens
	setup_module closed=8
	$DS start tcp
	$DS top count 1 interval 10 > "$TMP/top.txt" 2> "$TMP/top.err" &
	top=$!
	defer kill_quiet $top
	wait_for 30 grep -q "$WATCH_READY" "$TMP/top.err" ||
		abort "top did not start: $(cat "$TMP/top.err")"
	opens=$(tcp_opens)
	$TG run 10 5025 0 > /dev/null
	kill -0 $top 2>/dev/null || abort "top's interval ended before the closes did"
	wait $top
	opens=$(($(tcp_opens) - opens))
	echo "# the kernel opened $opens sockets"
	check "top: 10 connections in a ring of 8: 8 closed, the rest of the kernel's opens missed and unread" \
		"8 closed $((opens - 8)) $((opens - 8))" \
		"$(sed -n 's/.* live, \([0-9]*\) closed .*closes missed: \([0-9]*\).*/\1 closed \2/p' "$TMP/top.txt") $(stat_of sessions_unread)"
	check "top: ten connections opened 20 sockets or more (ActiveOpens + PassiveOpens)" \
		yes "$([ "$opens" -ge 20 ] && echo yes || echo "no: $opens")"
	$DS stop
}

# sess_masked CLOSED.json ORACLE.txt PORT MODE: the closed sessions of the
# server port PORT (both ends) against the oracle. Each one's DROPS must be
# its drops less those the rules mask: MODE site (a MASK rule on the
# oracle's site) the site's, all (an ONLY rule elsewhere) all of them, none
# (no rule) none. Prints "N sessions, D differ", then the oracle's masked
# and total drops of these sessions.
sess_masked() {
	py - "$@" <<-'PY'
	import collections, json, sys
	# a pair may have had a second socket that closed at once (see
	# tests/lab/sesscheck.py): each pair's sockets are compared as a whole
	closed = collections.defaultdict(list)
	for s in json.load(open(sys.argv[1])):
	    closed[(s["lport"], s["rport"])].append(s["drops"])
	port, mode = int(sys.argv[3]), sys.argv[4]
	oracle = collections.defaultdict(list)
	masked = total = 0
	for line in open(sys.argv[2]):
	    f = line.split()
	    # a listener closes too (remote port 0), but is no session
	    if len(f) < 8 or f[0] != "close" or port not in (int(f[1]), int(f[2])) \
	       or 0 in (int(f[1]), int(f[2])):
	        continue
	    drops, site = int(f[6]), int(f[7])
	    m = {"site": site, "all": drops, "none": 0}[mode]
	    masked += m
	    total += drops
	    oracle[(int(f[1]), int(f[2]))].append(drops - m)
	bad = 0
	for key, want in oracle.items():
	    if sorted(want) != sorted(closed.get(key, [])):
	        bad += 1
	        print(f"# {key[0]}->{key[1]}: oracle's unmasked drops {want}; "
	              f"dropscope {closed.get(key)}", file=sys.stderr)
	print(f"{len(oracle)} sessions, {bad} differ")
	print(masked)
	print(total)
	PY
}

masked_phase() {
	local name=$1 port=$2 mode=$3 r
	$DS reset
	netem_lo 10% || abort "netem refused"
	$TG run 10 "$port" 0 > "$TMP/gen$port.txt"
	netem_off
	oracle_closes masked.txt "$port" 20
	$DS -j show sessions closed > "$TMP/closed$port.json"
	mapfile -t r < <(sess_masked "$TMP/closed$port.json" "$TMP/masked.txt" "$port" "$mode")
	echo "# $name: the oracle saw ${r[2]} drops of these sessions, ${r[1]} of them to mask"
	[ "${r[2]}" != 0 ] || abort "$name: no packet of these sessions was dropped: nothing to check"
	check "sessions masked: $name: every session's DROPS equals the oracle's unmasked drops" \
		"20 sessions, 0 differ" "${r[0]}"
	check "sessions masked: $name: masked session drops equal the oracle's masked drops" \
		"${r[1]}" "$(stat_of sessions_drops_masked)"
	check "sessions masked: $name: status and the show sessions footer say so" \
		"${r[1]} $([ "${r[1]}" = 0 ] && echo 0 || echo 1)" \
		"$($DS -j status | json "d['sessions_drops_masked']") $($DS show sessions closed | grep -cxF "(${r[1]} session drops masked by rules: in no DROPS above)")"
}

# Mask rules apply to the drops counted to sessions as to sites: netem loss
# on lo drops the sessions' packets where a qdisc drops (its function is
# learnt from one datagram through a netem that loses everything); a MASK
# rule on it, an ONLY rule on another site, a MASK rule on it and on packet
# fields, and no rule, each against the oracle's drops at that site and
# elsewhere.
test_sessions_masked() {
	local rid start end site
	need bpftrace tc
	setup_module
	$DS start
	netem_lo 100% || abort "netem refused"
	gen udp 1 $UDP_CLOSED
	netem_off
	site=$($DS -j show sites layer kernel | json "' '.join(s['symbol'].split('+')[0] for s in d if s['reason'] == 'QDISC_DROP')")
	echo "# a qdisc drops in $site"
	[[ $site =~ ^[A-Za-z0-9_.]+$ ]] || abort "no single QDISC_DROP site: '$site'"
	rid=$(rule_id mask site "$site")
	read -r start end < <($DS -j show rules | json "'%s %s' % (d[0]['start'], d[0]['end'])")
	oracle_start masked.txt "$start" "$end" ||
		abort "bpftrace oracle did not attach: $(cat "$TMP/masked.txt.err") $(head -c 300 "$TMP/masked.txt")"
	masked_phase "MASK site $site" 5021 site
	$DS rule del "$rid"
	rule_id only site ${UDP_SITE} > /dev/null
	masked_phase "ONLY site ${UDP_SITE}" 5023 all
	$DS rule clear
	# a packet field too: what the qdisc drops here is TCP over IPv4
	rule_id mask site "$site" l3 ipv4 l4 tcp > /dev/null
	masked_phase "MASK site $site l3 ipv4 l4 tcp" 5027 site
	$DS rule clear
	masked_phase "no rule" 5025 none
	oracle_stop
	$DS stop
}

# Bad module parameters: insmod fails with EINVAL (which insmod words
# "Invalid parameters"), dmesg names the parameter and its range, and
# nothing is left loaded; the lower bounds load.
# finit_errno PARAMS: the errno name finit_module(2) of the module fails
# with, or "loaded"
finit_errno() {
	py - "$KO" "$1" <<-'PY'
	import ctypes, errno, os, sys
	libc = ctypes.CDLL(None, use_errno=True)
	fd = os.open(sys.argv[1], os.O_RDONLY)
	# finit_module is syscall 313 on x86_64
	r = libc.syscall(313, fd, sys.argv[2].encode(), 0)
	print("loaded" if r == 0 else errno.errorcode[ctypes.get_errno()])
	PY
}
test_sessions_bad_params() {
	local p v out st
	need dmesg
	for p in sessions closed capacity; do
		for v in 0 1048577 4294967296 99999999999999999999 -1 abc 12x; do
			dmesg -C
			out=$(insmod "$KO" "$p=$v" 2>&1)
			st="$? $(grep -c "Invalid parameters" <<< "$out")"
			st="$st $(dmesg | grep -cF "dropscope: $p=$v: must be a number from 1 to 1048576")"
			check "insmod $p=$v: refused with EINVAL, the range named, nothing loaded" \
				"1 1 1 EINVAL 0" \
				"$st $(finit_errno "$p=$v") $([ -d /sys/module/dropscope ] && echo 1 || echo 0)"
			[ ! -d /sys/module/dropscope ] || rmmod dropscope
		done
	done
	setup_module sessions=1 closed=1 capacity=1
	check "insmod sessions=1 closed=1 capacity=1: loaded as given" "1 1 1" \
		"$($DS -j status | json "'%d %d %d' % (d['sessions'], d['closed'], d['capacity'])")"
}

# tcpstate_snap PORT [TRIES]: ss -ti and show sessions live of the 20 ends on
# PORT: "sessions N same M ssthresh S cwnd C unacked U", M the ends whose
# rtt, rttvar, cwnd, ssthresh, snd_wnd and unacked are ss's, S those with
# a slow start threshold set, C those whose cwnd is not the initial 10, U
# those with unacknowledged segments. ss is read before and after
# dropscope, until both give the same (a timer may fire in between), at
# most TRIES times (5).
tcpstate_snap() {
	local i
	for i in $(seq "${2:-5}"); do
		ss -tinH state established "( sport = :$1 or dport = :$1 )" > "$TMP/ss.txt"
		$DS -j show sessions live port "$1" > "$TMP/live.json"
		ss -tinH state established "( sport = :$1 or dport = :$1 )" > "$TMP/ss2.txt"
		py - "$TMP/ss.txt" "$TMP/live.json" "$TMP/ss2.txt" <<-'PY' && return
	import json, re, sys
	def read(path):
	    lines = open(path).read().splitlines()
	    ss = {}
	    for head, info in zip(lines[0::2], lines[1::2]):
	        f = head.split()
	        l, r = int(f[-2].rsplit(":", 1)[1]), int(f[-1].rsplit(":", 1)[1])
	        d = dict(re.findall(r"\b(rtt|cwnd|ssthresh|snd_wnd|unacked):([0-9./]+)", info))
	        rtt, var = d.pop("rtt").split("/")
	        d["rtt"], d["rttvar"] = float(rtt), float(var)
	        ss[(l, r)] = {k: float(v) for k, v in d.items()}
	    return ss
	ss = read(sys.argv[1])
	if ss != read(sys.argv[3]):
	    sys.exit(3)
	ours = {}
	for s in json.load(open(sys.argv[2])):
	    ours[(s["lport"], s["rport"])] = {k: float(s[k]) for k in
	        ("rtt", "rttvar", "cwnd", "ssthresh", "snd_wnd", "unacked") if k in s}
	    ss.setdefault((s["lport"], s["rport"]), {}).setdefault("unacked", 0.0)
	same = sum(1 for k in ss if ours.get(k) == ss[k])
	bad = [(k, ss[k], ours.get(k)) for k in ss if ours.get(k) != ss[k]]
	print("sessions %d same %d ssthresh %d cwnd %d unacked %d" % (len(ss), same,
	      sum(1 for v in ss.values() if "ssthresh" in v),
	      sum(1 for v in ss.values() if v.get("cwnd") != 10),
	      sum(1 for v in ss.values() if v.get("unacked", 0) > 0)), *bad[:2])
	PY
	done
	echo "ss -ti changed between reads ${2:-5} times in a row"
}

# show sessions live's TCP state against ss -ti, of 20 ends three times:
# idle (cwnd 10, no threshold, nothing unacknowledged); idle again after
# an exchange under 20% loss (thresholds set, windows cut); and during a
# send that netem holds back whole (segments unacknowledged; the state
# changes only at each retransmission timeout, ever further apart)
test_sessions_tcpstate() {
	local got pumper
	need ss tc
	setup_module
	$DS start tcp
	hold 10 5131 hold.txt
	# the last delayed ACKs out, the sessions idle
	sleep 1
	check "show sessions live: rtt, rttvar, cwnd, ssthresh, snd_wnd and unacked of 20 idle ends as ss -ti gives them" \
		"sessions 20 same 20 ssthresh 0 cwnd 0 unacked 0" "$(tcpstate_snap 5131)"
	$TG pump 10 5132 3000 > "$TMP/pump.txt" &
	pumper=$!
	defer kill_quiet $pumper
	wait_for 30 grep -q ready "$TMP/pump.txt" || abort "tcpgen pump did not get ready"
	tc qdisc add dev lo root netem loss 20% || abort "tc refused netem on lo"
	defer netem_off
	kill -USR1 $pumper
	wait_for 120 grep -q "pumped 1" "$TMP/pump.txt" || abort "tcpgen pump did not pump under loss"
	netem_off
	sleep 1
	got=$(tcpstate_snap 5132)
	check "show sessions live: after loss, as ss -ti gives them; thresholds set, windows cut" \
		"sessions 20 same 20 yes" \
		"$(echo "$got" | awk '{ print $1, $2, $3, $4, ($6 > 0 && $8 > 0) ? "yes" : "no: " $0 }')"
	tc qdisc add dev lo root netem loss 100% || abort "tc refused netem on lo"
	kill -USR1 $pumper
	# the sends held: nothing is acknowledged, and each retransmission
	# timeout is twice as far as the one before (0.2, 0.4, 0.8 s, ...), so
	# that the snapshot, taken again until ss -ti gives the same before
	# and after it, soon falls between two, also on a slow kernel
	got=$(tcpstate_snap 5132 20)
	check "show sessions live: during a held send, as ss -ti gives them; segments unacknowledged" \
		"sessions 20 same 20 yes" \
		"$(echo "$got" | awk '{ print $1, $2, $3, $4, ($10 > 0) ? "yes" : "no: " $0 }')"
}
