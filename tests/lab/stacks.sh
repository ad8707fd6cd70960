# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Drop stacks: each distinct kernel stack behind a site, counted exactly
# as bpftrace's @[kstack] = count() counts it over the same drops. Test
# functions sourced by tests/lab/run.sh.

KSTACK="py tests/lab/kstack.py"

# kstack_start FILE START END: bpftrace counting the kernel stacks of the
# drops at [START, END) into $TMP/FILE, in the background. Returns once
# its probes run: a TCP drop (outside the range) prints "seen".
kstack_start() {
	local _
	bpftrace -e "tracepoint:skb:kfree_skb /args->location >= $2 && args->location < $3/ { @[kstack] = count(); }
tracepoint:skb:kfree_skb /args->location < $2 || args->location >= $3/ { if (@warm == 0) { printf(\"seen\\n\"); @warm = 1; } }" \
		> "$TMP/$1" 2> "$TMP/$1.err" &
	oracle=$!
	defer kill_quiet $oracle
	wait_oracle 600 grep -q Attaching "$TMP/$1" || return 1
	for _ in $(seq 60); do
		gen tcp 1 $TCP_CLOSED
		grep -q "^seen" "$TMP/$1" && return 0
		timed oracle command sleep 0.5
	done
	return 1
}

# noports_since N0 WANT: whether Udp NoPorts grew by WANT since N0 (polled)
noports_since() { [ $(($($KC snmp Udp NoPorts) - $1)) -ge "$2" ]; }

# The datagrams of the stacks tests, to a closed port of the host: over
# loopback from a process; from a namespace over a veth; and from the
# namespace through netem's delay, which releases them from a timer
# (the receive softirq then runs in an interrupt, the idle loop, or
# ksoftirqd, not in the sender's system call). NOPORTS gets their number.
stack_traffic() {
	local n0
	n0=$($KC snmp Udp NoPorts)
	gen udp 100 $UDP_CLOSED
	ip netns exec "$NS" $BIN/dropgen -a "$HOST_IP" udp 60 $UDP_CLOSED > /dev/null
	ip netns exec "$NS" tc qdisc add dev "$VETH_N" root netem delay 5ms ||
		abort "netem on $VETH_N"
	ip netns exec "$NS" $BIN/dropgen -a "$HOST_IP" udp 40 $UDP_CLOSED > /dev/null
	wait_for 10 noports_since "$n0" 200 ||
		abort "Udp NoPorts grew by $(($($KC snmp Udp NoPorts) - n0)), not 200, in 10 s"
	ip netns exec "$NS" tc qdisc del dev "$VETH_N" root
	NOPORTS=$(($($KC snmp Udp NoPorts) - n0))
}

# UDP to a closed port over loopback, over a veth from a namespace, and
# through netem from there: one site, every distinct stack under it counted
# exactly as bpftrace counts it (frames from the site outward), adding up
# to the datagrams (Udp NoPorts); the stacks come from more than one
# context. stacks on site leaves the TCP drops of the oracle unstacked.
test_stacks_udp() {
	local range
	need bpftrace tc
	setup_module
	setup_netns
	range=$($KSTACK range ${UDP_SITE}) || abort "no ${UDP_SITE} in kallsyms"
	$DS start drops
	$DS stacks on site ${UDP_SITE}
	# shellcheck disable=SC2086 # START END
	kstack_start kstack.txt $range ||
		abort "bpftrace oracle did not attach: $(cat "$TMP/kstack.txt.err")"
	stack_traffic
	oracle_stop
	$DS -j show stacks > "$TMP/stacks.json"
	$DS show stacks top 1 | sed 's/^/# /'
	check "stacks: the 200 datagrams sent are Udp NoPorts" 200 "$NOPORTS"
	check "stacks: each distinct stack of ${UDP_SITE} as bpftrace counts it, adding up to Udp NoPorts" \
		"stacks $(py -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$TMP/stacks.json") drops $NOPORTS" \
		"$($KSTACK compare "$TMP/stacks.json" "$TMP/kstack.txt")"
	check "stacks: only ${UDP_SITE}'s (the TCP drops are not stacked); each frames[0] is the site" \
		"${UDP_SITE} True" \
		"$(json "' '.join(sorted({s['site'].split('+')[0] for s in d})), all(s['frames'][:1] == [s['site']] for s in d)" < "$TMP/stacks.json")"
	check "stacks: the site's stacks add up to its count in show sites" \
		"$($DS -j show sites layer kernel | json "sum(s['count'] for s in d if s['symbol'].startswith('${UDP_SITE}+'))")" \
		"$(json "sum(s['count'] for s in d)" < "$TMP/stacks.json")"
	check "stacks: from the sender's system call and from another context" "yes" \
		"$($KSTACK contexts "$TMP/stacks.json" | py -c 'import sys; c = sys.stdin.read().split(); print("yes" if "syscall" in c and len(c) > 1 else " ".join(c))')"
}

# Walks replayed: 200 datagrams over loopback to a closed port from one
# process on one CPU take a few distinct stacks (the first datagram's
# neighbour lookup is another path), and the unwinder walks each of them
# once; every other drop replays a walk learnt before. The stacks add up
# to Udp NoPorts (that they are bpftrace's is stacks_udp's check).
test_stacks_replay() {
	local n0
	need taskset
	setup_module
	$DS start drops
	$DS stacks on site ${UDP_SITE}
	n0=$($KC snmp Udp NoPorts)
	taskset -c 0 "$BIN/dropgen" udp 200 $UDP_CLOSED > /dev/null
	wait_for 10 noports_since "$n0" 200 ||
		abort "Udp NoPorts grew by $(($($KC snmp Udp NoPorts) - n0)), not 200, in 10 s"
	$DS -j show stacks > "$TMP/stacks.json"
	echo "# $(json "len(d)" < "$TMP/stacks.json") distinct stacks, $(stat_of stacks_walked) walked by the unwinder"
	check "replay: the 200 datagrams are Udp NoPorts" 200 "$(($($KC snmp Udp NoPorts) - n0))"
	check "replay: the stacks add up to Udp NoPorts; the unwinder walked each distinct stack once" \
		"drops $(($($KC snmp Udp NoPorts) - n0)) walked $(json "len(d)" < "$TMP/stacks.json")" \
		"drops $(json "sum(s['count'] for s in d)" < "$TMP/stacks.json") walked $(stat_of stacks_walked)"
}

# A table of 2 stacks per CPU: what finds no room is counted under its
# site without frames, and the site's stacks still add up to its drops,
# exactly as the kernel's hist trigger counts them; none is lost.
test_stacks_full() {
	local hist range
	need tc
	setup_module stacks=2
	range=$($KSTACK range ${UDP_SITE}) || abort "no ${UDP_SITE} in kallsyms"
	setup_netns
	$DS start drops
	$DS stacks on
	trace_on
	stack_traffic
	trace_off hist
	$DS -j show stacks > "$TMP/stacks.json"
	# shellcheck disable=SC2086 # START END
	hist=$(py -c 'import re, sys
s, e = int(sys.argv[2]), int(sys.argv[3])
print(sum(int(c) for l, r, c in re.findall(r"\{ location:\s*(\d+), reason:\s*(\d+) \} hitcount:\s*(\d+)", open(sys.argv[1]).read()) if s <= int(l) < e))' "$TMP/hist" $range)
	check "stacks=2: the site's drops with and without frames add up to the hist trigger's count; some found no room; none lost" \
		"$hist yes 0" \
		"$(json "sum(s['count'] for s in d if s['site'].startswith('${UDP_SITE}+'))" < "$TMP/stacks.json") $(json "'yes' if any(s['no_room'] for s in d) else 'no'" < "$TMP/stacks.json") $(stat_of stacks_lost)"
	check "stacks=2: at most 2 stacks with frames per CPU" "yes" \
		"$(json "'yes' if sum(1 for s in d if not s['no_room']) <= 2 * $(nproc) else 'no'" < "$TMP/stacks.json")"
}

# on, off, clear: off keeps what was counted and takes no more; clear
# forgets; status says whether stacks are on.
test_stacks_onoff() {
	setup_module
	$DS start drops
	$DS stacks on reason NO_SOCKET
	gen udp 20 $UDP_CLOSED
	check "stacks on reason NO_SOCKET: 20 datagrams, status on" "20 on" \
		"$($DS -j show stacks | json "sum(s['count'] for s in d)") $($DS -j status | json "'on' if d['stacks'] else 'off'")"
	$DS stacks off
	gen udp 20 $UDP_CLOSED
	check "stacks off: the 20 stay, no more taken, status off" "20 off" \
		"$($DS -j show stacks | json "sum(s['count'] for s in d)") $($DS -j status | json "'on' if d['stacks'] else 'off'")"
	$DS stacks clear
	check "stacks clear: none left" "0" "$($DS -j show stacks | json "len(d)")"
	$DS stacks on
	gen udp 5 $UDP_CLOSED
	$DS reset
	check "reset forgets the stacks too" "0" "$($DS -j show stacks | json "len(d)")"
}

# Bad requests: refused with the kernel's message, nothing changed.
test_stacks_bad() {
	setup_module
	$DS start drops
	$DS stacks on reason NO_SOCKET
	# raw: STACKS_SET (20), DROPSCOPE_A_STACKS (28), DROPSCOPE_A_RULE (14)
	# and its MODE (3): a case a line, what | the request | the answer
	while IFS='|' read -r what req want; do
		# shellcheck disable=SC2086 # the words are the request
		check "raw: $what" "$want" "$(nlraw $req)"
	done <<-'CASES'
	stacks-set without on or off|20|error EINVAL: stacks: say on (1) or off (0) (Invalid argument)
	stacks 2|20 u8:28=2|error ERANGE: integer out of range (Numerical result out of range)
	off with a rule|20 u8:28=0 nest:14= u8:3=0 end:0=|error EINVAL: stacks: a rule goes with on only (Invalid argument)
	a rule with a mode|20 u8:28=1 nest:14= u8:3=1 end:0=|error EINVAL: stacks: the rule takes no id, mode or SMC reason (Invalid argument)
	CASES
	out=$($DS stacks on site no_such_function_here 2>&1)
	check "stacks on site no_such_function_here: refused by the CLI, exit 2" 2 "$?"
	gen udp 7 $UDP_CLOSED
	check "after the refusals the first setting holds: on, NO_SOCKET's 7" "on 7" \
		"$($DS -j status | json "'on' if d['stacks'] else 'off'") $($DS -j show stacks | json "sum(s['count'] for s in d)")"
}

# Unload while stacks are on and two processes drop: no warning.
test_stacks_unload() {
	local g
	need dmesg
	setup_module
	$DS start drops
	$DS stacks on
	dmesg -C
	$BIN/dropgen -P 2 -d 3000 udp 1000000 $UDP_CLOSED > /dev/null &
	g=$!
	defer kill_tree $g
	timed traffic command sleep 1
	rmmod dropscope || abort "rmmod while stacks are taken failed"
	wait $g
	dmesg_clean "unload while stacks are taken and drops flow: no warning in dmesg"
}

# A capture while stacks are taken: each packet's comment names its
# drop's stack, and the packets of each stack id are that stack's count
# in show stacks; a capture's packets of drops outside the stacks rule
# carry no id.
test_stacks_capture() {
	need tshark
	setup_module
	setup_netns
	$DS start drops
	$DS stacks on site ${UDP_SITE}
	cap_start s filter udp
	gen udp 30 $UDP_CLOSED
	ip netns exec "$NS" $BIN/dropgen -a "$HOST_IP" udp 20 $UDP_CLOSED > /dev/null
	$DS stacks off
	gen udp 5 $UDP_CLOSED
	sleep 1.5
	cap_stop $cap
	check "stacks and capture: 55 packets captured, none lost" "55 55 0 0" \
		"$(cap_sum s matched captured lost_buffer lost_socket)"
	check "each stack id of the comments: as many packets as show stacks counts; 5 without an id (stacks off)" \
		"$($DS -j show stacks | json "' '.join('%08x:%d' % (s['id'], s['count']) for s in sorted(d, key=lambda s: s['id']))") none:5" \
		"$(tshark -r "$TMP/s.pcapng" -T fields -e frame.comment 2>/dev/null |
			py -c 'import collections, re, sys
c = collections.Counter((re.search(r" stack ([0-9a-f]{8})$", l) or [None, "none"])[1] for l in sys.stdin)
print(" ".join("%s:%d" % (k, c[k]) for k in sorted(c, key=lambda k: (k == "none", k))))')"
}

# show stacks lines and show sites lines: with the running kernel's vmlinux
# with DWARF (the debug kernel's build tree), each frame's line equals
# addr2line's for the call before it (the return address less one, less
# KASLR's offset), and the site's line in show sites is its stacks' first;
# without one (Debian's kernels), the output is the same as without lines
# and one message says why.
test_stacks_lines() {
	local vml="" f rel
	setup_module
	$DS start drops
	$DS stacks on site ${UDP_SITE}
	gen udp 10 $UDP_CLOSED
	$DS -j show stacks > "$TMP/plain.json"
	$DS -j show stacks lines > "$TMP/lines.json" 2> "$TMP/lines.err"
	$DS -j show sites layer kernel lines > "$TMP/sites.json" 2> "$TMP/sites.err"
	rel=$(uname -r)
	for f in /usr/lib/debug/boot/vmlinux-$rel /usr/lib/debug/lib/modules/$rel/vmlinux \
		/lib/modules/$rel/build/vmlinux; do
		[ -r "$f" ] && { vml=$f; break; }
	done
	if [ -z "$vml" ] || ! readelf -S "$vml" 2>/dev/null | grep -q debug_line; then
		check "lines without DWARF: the same stacks, one message why" \
			"same 1 1" \
			"$(cmp -s "$TMP/plain.json" "$TMP/lines.json" && echo same) $(grep -c 'no vmlinux with DWARF' "$TMP/lines.err") $(grep -c 'no vmlinux with DWARF' "$TMP/sites.err")"
		# the debug kernel is built with DWARF: its vmlinux must be found
		case $rel in
		*-dropscope-debug)
			fail "lines: each frame as addr2line gives it" "no vmlinux with DWARF for $rel" ;;
		*)
			skip "lines: each frame as addr2line gives it" "no vmlinux with DWARF for $rel" ;;
		esac
		return
	fi
	need addr2line nm
	py - "$TMP/lines.json" "$vml" "$TMP/sites.json" "$UDP_SITE" > "$TMP/a2l.txt" <<-'PY'
	import json, re, subprocess, sys
	stacks = json.load(open(sys.argv[1]))
	run = {n: int(a, 16) for a, t, n, *_ in (l.split() for l in open("/proc/kallsyms")) if n in ("_stext", "_etext")}
	nm = subprocess.run(["nm", sys.argv[2]], capture_output=True, text=True).stdout
	stext = int(next(l.split()[0] for l in nm.splitlines() if l.endswith(" _stext")), 16)
	bias = run["_stext"] - stext
	pairs = [(int(a, 16), l) for s in stacks for a, l in zip(s["addresses"], s["lines"])
	         if run["_stext"] <= int(a, 16) <= run["_etext"]]
	a2l = subprocess.run(["addr2line", "-e", sys.argv[2]] + ["%x" % (a - 1 - bias) for a, _ in pairs],
	                     capture_output=True, text=True).stdout.splitlines()
	a2l = [re.sub(r" \(discriminator \d+\)$", "", x) for x in a2l]
	same = sum(1 for (a, l), x in zip(pairs, a2l) if l == x)
	print("frames %d same %d" % (len(pairs), same))
	site = next(s for s in json.load(open(sys.argv[3])) if s["symbol"].startswith(sys.argv[4] + "+"))
	print("site", "same" if site.get("line") == stacks[0]["lines"][0] else "differs")
	PY
	f=$(sed -n 's/^frames \([0-9]*\) .*/\1/p' "$TMP/a2l.txt")
	check "lines: each frame in the kernel's text as addr2line gives it, more than 10 of them" \
		"frames $f same $f yes" "$(head -1 "$TMP/a2l.txt") $([ "${f:-0}" -gt 10 ] && echo yes)"
	check "show sites lines: the site's line is its stacks' first" "site same" "$(sed -n 2p "$TMP/a2l.txt")"
}
