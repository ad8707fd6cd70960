# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Captures: test functions sourced by tests/lab/run.sh. What dropscope
# captures is checked against what tcpdump saw leave on lo (the same bytes,
# in the same order), what dropgen sent, and the kernel's own counters
# (Udp NoPorts); the files are read back with tcpdump and tshark.

PCMP=tests/lab/pcapcmp.py

# cap_start NAME ARGS...: `dropscope -j capture $TMP/NAME.pcapng ARGS` in
# the background ($cap), once it captures; its summary in $TMP/NAME.json
cap_start() {
	local name=$1
	shift
	$DS -j capture "$TMP/$name.pcapng" "$@" > "$TMP/$name.json" 2> "$TMP/$name.err" &
	cap=$!
	defer kill_quiet $cap
	wait_for 60 grep -q "$WATCH_READY" "$TMP/$name.err" ||
		abort "capture $name did not start: $(cat "$TMP/$name.err")"
}
# cap_stop PID: SIGINT, as Ctrl-C; its exit status. A capture that has not
# ended CAP_STOP_WAIT seconds later is shown (its state, the system call it
# is in, its kernel stack, the netlink sockets) and killed: 137.
cap_stop() {
	kill -INT "$1"
	if ! wait_for "${CAP_STOP_WAIT:-600}" exited "$1"; then
		echo "# capture $1 still runs ${CAP_STOP_WAIT:-600} s after SIGINT"
		{
			grep -E '^(State|SigPnd|ShdPnd|SigBlk|SigCgt):' "/proc/$1/status"
			echo "syscall: $(cat "/proc/$1/syscall")"
			cat "/proc/$1/stack"
			grep -E '^sk| 16 ' /proc/net/netlink
		} 2>&1 | sed 's/^/#   /'
		kill -KILL "$1"
	fi
	wait "$1"
}
# cap_sum NAME KEYS...: the summary's keys, space-separated
cap_sum() {
	local name=$1
	shift
	py - "$TMP/$name.json" "$@" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	print(" ".join(str(d[k]) for k in sys.argv[2:]))
	PY
}
# cap_count FILE [FILTER]: the packets tcpdump reads from FILE. Counted by
# tcpdump itself (--count): printing names each packet's interface, a
# socket and an ioctl a packet, minutes for 120000 on the debug kernel.
cap_count() {
	tcpdump --count -nr "$1" ${2:+"$2"} 2>/dev/null |
		sed -n 's/^\([0-9]*\) packets*$/\1/p'
}

# ref_start: tcpdump's own capture of UDP to port 7777 on lo, the
# reference, in $TMP/ref.pcap until ref_stop
ref_start() {
	tcpdump -i lo -U -w "$TMP/ref.pcap" 'udp dst port 7777' 2> "$TMP/td.err" &
	ref_td=$!
	defer kill_quiet $ref_td
	wait_oracle 30 grep -q "listening on lo" "$TMP/td.err" || abort "tcpdump did not start: $(cat "$TMP/td.err")"
}
# ref_has N: tcpdump has written N packets or more (its ring hands them
# over a block at a time)
ref_has() { [ "$(tcpdump -r "$TMP/ref.pcap" 2>/dev/null | wc -l)" -ge "$1" ]; }
ref_stop() {
	kill -INT $ref_td
	wait $ref_td
}

# A known mixture, a filter that matches one kind: the file holds exactly
# those packets, byte for byte as tcpdump saw them leave on lo, tcpdump's
# filters work on it, and tshark shows each one's reason and site
test_capture_filter() {
	local udp0 got
	need tcpdump tshark
	setup_module
	$DS start drops
	ref_start
	cap_start f filter "udp dst port 7777"
	udp0=$($KC snmp Udp NoPorts)
	gen udp 5 7777
	gen udp 3 7778
	gen tcp 4 $TCP_CLOSED
	# the drops are in the capture's buffers (its end drains them); the
	# reference once tcpdump has them
	wait_for 30 ref_has 5 || abort "tcpdump did not see the 5 datagrams to 7777"
	cap_stop $cap
	check "capture: exit 0 on SIGINT" 0 $?
	ref_stop
	check "capture: 5 of the 8 UDP drops (Udp NoPorts) matched udp dst port 7777, all written" \
		"8 5 5 5 0 0" "$(($($KC snmp Udp NoPorts) - udp0)) $(cap_sum f matched captured written lost_buffer lost_socket)"
	check "capture: the packets are tcpdump's of lo, byte for byte, in order" \
		"5 5 same" "$(py $PCMP "$TMP/ref.pcap" "$TMP/f.pcapng")"
	check "capture: tcpdump reads the file, and its filters work on it" "5 5 0" \
		"$(cap_count "$TMP/f.pcapng") $(cap_count "$TMP/f.pcapng" 'udp port 7777') $(cap_count "$TMP/f.pcapng" 'tcp')"
	got=$(tshark -r "$TMP/f.pcapng" -T fields -e frame.comment -e udp.dstport 2>/dev/null |
		sed 's/+0x[0-9a-f]*//' | sort | uniq -c | awk '{$1 = $1; print}')
	check "capture: tshark shows each packet's reason and site" \
		"5 dropscope: NO_SOCKET at ${UDP_SITE} netns $(stat -L -c %i /proc/self/ns/net) 7777" "$got"
}

# Drops on two CPUs in one interval: the file is in the order they
# happened, as tcpdump's, not one CPU's ring after the other's. The second
# CPU drops first, so a drain that took the rings in CPU order would put
# the later drops first. The interval is a minute: the one drain is the
# capture's end.
test_capture_order() {
	need tcpdump taskset
	setup_module
	$DS set interval 60s > /dev/null
	$DS start drops
	ref_start
	cap_start o filter "udp dst port 7777"
	taskset -c 1 $BIN/dropgen udp 3 7777 > /dev/null
	taskset -c 0 $BIN/dropgen udp 3 7777 > /dev/null
	taskset -c 1 $BIN/dropgen udp 2 7777 > /dev/null
	# tcpdump has them too (its ring's block has gone out)
	wait_for 30 ref_has 8 || abort "tcpdump did not see the 8 datagrams to 7777"
	cap_stop $cap
	ref_stop
	check "capture: drops on two CPUs in one interval are written in the order they happened" \
		"8 8 same" "$(py $PCMP "$TMP/ref.pcap" "$TMP/o.pcapng")"
}

# Every drop at a rate the buffers cannot hold between two drains:
# captured and lost add up to the kernel's count of the drops that matched
test_capture_overflow() {
	local udp0 n=20000
	need tcpdump
	setup_module
	# no drain before the drops are all in: 20 000 records of about 72 bytes
	# overflow two rings of 256 KiB, however slow the kernel (the debug
	# kernel's drops took longer than a 10 s interval)
	$DS set interval 60s
	$DS start drops
	cap_start o filter "udp dst port 7780" snaplen 64
	udp0=$($KC snmp Udp NoPorts)
	gen udp $n 7780
	cap_stop $cap
	read -r matched captured written lost_buffer lost_socket < <(cap_sum o matched captured written lost_buffer lost_socket)
	check "capture overflow: matched equals Udp NoPorts and what dropgen sent" \
		"$n $n" "$matched $(($($KC snmp Udp NoPorts) - udp0))"
	check "capture overflow: captured plus lost equals matched" \
		"$matched" "$((captured + lost_buffer + lost_socket))"
	if [ "$lost_buffer" -gt 0 ]; then
		ok "capture overflow: the full buffers' losses are counted ($lost_buffer lost, $captured captured)"
	else
		fail "capture overflow: the buffers overflowed" "lost_buffer=$lost_buffer captured=$captured"
	fi
	check "capture overflow: the file holds every captured packet" \
		"$captured $captured" "$written $(py $PCMP count "$TMP/o.pcapng")"
}

# Two captures at once, each with its own filter (one on the length from
# the network header), each socket its own
test_capture_two() {
	local a b
	need tcpdump
	setup_module
	$DS start drops
	# len is the packet's from its network header: 20 + 8 + 1 bytes
	cap_start a filter "udp dst port 7781 and len == 29"
	a=$cap
	cap_start b filter "udp dst port 7782" snaplen 24
	b=$cap
	gen udp 3 7781
	gen udp 4 7782
	gen udp 2 7783
	cap_stop $a
	cap_stop $b
	check "two captures: each has its own drops" "3 3 4 4" \
		"$(cap_sum a matched written) $(cap_sum b matched written)"
	check "two captures: each file only its port" "3 0 4 0" \
		"$(cap_count "$TMP/a.pcapng" 'udp dst port 7781') $(cap_count "$TMP/a.pcapng" 'udp dst port 7782') $(cap_count "$TMP/b.pcapng" 'udp dst port 7782') $(cap_count "$TMP/b.pcapng" 'udp dst port 7781')"
	check "two captures: snaplen 24 keeps the IP header and the UDP ports" "24" \
		"$(py $PCMP caplens "$TMP/b.pcapng")"
}

# The rule fields and the mask rules: site and reason take what masks take;
# masked drops are not captured unless `all`
# The files are read back with tcpdump; the kernel's counters say how many
# drops there were
test_capture_masks() {
	local m udp0 rst0
	need tcpdump
	setup_module
	$DS start drops
	cap_start s site ${UDP_SITE} reason NO_SOCKET
	udp0=$($KC snmp Udp NoPorts)
	rst0=$($KC snmp Tcp OutRsts)
	gen udp 3 7784
	gen tcp 2 $TCP_CLOSED
	cap_stop $cap
	check "capture site ${UDP_SITE} reason NO_SOCKET: the UDP drops only (Udp NoPorts, Tcp OutRsts; the file's packets: UDP to 7784, TCP)" \
		"$(($($KC snmp Udp NoPorts) - udp0)) $(($($KC snmp Tcp OutRsts) - rst0)) 3 0" \
		"$(cap_sum s written) 2 $(cap_count "$TMP/s.pcapng" 'udp dst port 7784') $(cap_count "$TMP/s.pcapng" tcp)"
	$DS rule mask site ${UDP_SITE} > /dev/null
	cap_start m filter udp
	m=$cap
	cap_start all filter udp all
	udp0=$($KC snmp Udp NoPorts)
	gen udp 4 7785
	cap_stop $cap
	# and drops at a site the rule leaves alone (UDPv6's): m takes them
	$BIN/dropgen -a ::1 udp 2 7786 > /dev/null
	cap_stop $m
	check "capture all: the masked drops too (Udp NoPorts; the file's packets to 7785)" \
		"$(($($KC snmp Udp NoPorts) - udp0)) 4" \
		"$(cap_sum all written) $(cap_count "$TMP/all.pcapng" 'udp dst port 7785')"
	check "capture: masked drops are not captured, the others are (the file's packets to 7785, to 7786)" \
		"2 2 0 2" \
		"$(cap_sum m matched written) $(cap_count "$TMP/m.pcapng" 'udp dst port 7785') $(cap_count "$TMP/m.pcapng" 'udp dst port 7786')"
}

# Bad input: libpcap's word for a bad expression, the module's for what it
# refuses, and the kernel's checker for a hostile program sent raw
test_capture_bad() {
	local out rc
	need tcpdump
	setup_module
	out=$($DS capture "$TMP/x.pcapng" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && [[ $out == *"capture: the drops part is not running (start it first)"* ]]; then
		ok "capture while the drops part is stopped: exit 1, says why"
	else
		fail "capture while the drops part is stopped: exit 1, says why" "exit $rc: $out"
	fi
	$DS start drops
	out=$($DS capture "$TMP/x.pcapng" filter "udp dst port" 2>&1)
	rc=$?
	check "capture filter 'udp dst port': libpcap's message, exit 2, no file" \
		"2 dropscope: capture: filter: can't parse filter expression: syntax error absent" \
		"$rc $out $([ -e "$TMP/x.pcapng" ] && echo present || echo absent)"
	out=$($DS capture "$TMP/x.pcapng" snaplen 0 2>&1)
	check "capture snaplen 0: refused by the CLI" 2 "$?"
	out=$($DS capture "$TMP/x.pcapng" smc 0x03010000 2>&1)
	check "capture smc: not a field of captures" 2 "$?"
	# raw: CAPTURE_START (17) and STOP (18), DROPSCOPE_A_CAPTURE (25),
	# its ID (2) and FILTER (3): a case a line, what | the request | the
	# kernel's answer
	while IFS='|' read -r what req want; do
		# shellcheck disable=SC2086 # the words are the request
		check "raw: $what" "$want" "$(nlraw $req)"
	done <<-'CASES'
	a jump beyond the program, refused by the kernel's checker|17 nest:25= hex:3=0500000005000000060000000000ffff end:0=|error EINVAL: filter: refused by the kernel's classic BPF checker (Invalid argument)
	a program without a return, refused by the kernel's checker|17 nest:25= hex:3=0000000000000000 end:0=|error EINVAL: filter: refused by the kernel's classic BPF checker (Invalid argument)
	an ancillary load, refused|17 nest:25= hex:3=2000000000f0ffff060000000000ffff end:0=|error EINVAL: filter: an offset of 0xff000 or beyond, or ancillary data: not a packet's bytes (Invalid argument)
	a filter of no whole instruction, refused|17 nest:25= hex:3=0600000000 end:0=|error EINVAL: filter: 1 to 4096 struct sock_filter instructions (Invalid argument)
	a capture id from userspace, refused|17 nest:25= u32:2=5 end:0=|error EINVAL: the kernel gives capture ids (Invalid argument)
	stopping a capture that does not exist|18 nest:25= u32:2=999 end:0=|error ENOENT: capture: no capture has this id (No such file or directory)
	CASES
}

# Unload during a capture: the capture ends, its file is whole, and the
# kernel log has no warning
test_capture_unload() {
	need tcpdump dmesg
	setup_module
	$DS start drops
	dmesg -C
	cap_start u filter udp
	gen udp 3 7786
	rmmod dropscope || abort "rmmod during a capture failed"
	wait_for 30 sh -c "! kill -0 $cap 2>/dev/null" || abort "capture did not end when the module went"
	wait $cap
	check "unload during a capture: the capture ends, the file is whole" "3" \
		"$(py $PCMP count "$TMP/u.pcapng")"
	dmesg_clean "unload during a capture: no warning in dmesg"
}

# A datagram as large as IPv4 allows (65 535 bytes, on lo's 64 KiB MTU)
# and one of 65 458, just above the limit: both are captured truncated to 65 452
# bytes (a netlink attribute's length is 16 bits), with their true lengths;
# a small one whole
test_capture_jumbo() {
	local got
	need tshark
	setup_module
	$DS start drops
	cap_start j filter "udp dst port 7779"
	py - <<-'PY' || abort "could not send the datagrams"
	import socket
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	for n in (65507, 65430, 1000):
	    s.sendto(bytes(i % 251 for i in range(n)), ("127.0.0.1", 7779))
	PY
	cap_stop $cap
	check "three packets captured, none lost" "3 3 0 0" \
		"$(cap_sum j matched captured lost_buffer lost_socket)"
	# SLL2's 20 bytes come first; caplen and len from the network header
	got=$(tshark -r "$TMP/j.pcapng" -T fields -e frame.cap_len -e frame.len -e ip.len 2>/dev/null | tr '\t\n' '  ')
	check "captured lengths: truncated at 65 452 only beyond it, true lengths kept" \
		"65472 65555 65535 65472 65478 65458 1048 1048 1028 " "$got"
	check "tcpdump reads the file" 3 "$(cap_count "$TMP/j.pcapng")"
}
