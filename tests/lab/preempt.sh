# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Probes called preemptible, as a kernel whose tracepoints run their probes
# with preemption enabled would call them: test functions sourced by
# tests/lab/run.sh. The module with the test in it is a build of its own
# (make module PREEMPT_TEST=1: kmod/ptest.c), which make check and make
# check-debug build for each kernel.

# a netlink port no socket has: above any PID (a socket's first port is
# its process's PID) and below the ports the kernel picks after that
NL_PORT=2147418112
# rounds each thread of the test runs
PTEST_ROUNDS=${PTEST_ROUNDS:-15000}
PTEST=/sys/kernel/debug/dropscope/preempt_test
PREEMPT_MODE=/sys/kernel/debug/sched/preempt

# preempt_mode MODE: the kernel's preemption (PREEMPT_DYNAMIC kernels)
preempt_mode() { echo "$1" > $PREEMPT_MODE; }
# ptest KEY...: those values of the last run, by name
ptest() {
	local k
	for k in "$@"; do
		awk -v k="$k" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' $PTEST
	done | paste -sd ' '
}

# Every probe called from threads that the test moves from CPU to CPU, with
# preemption enabled (on a kernel that can switch to full preemption, it
# does for the test), while real drops flow, a capture copies the test's
# drops and the interval folds: every count exact, and no probe touched
# this CPU's data preemptible. Meanwhile a process on each CPU sends
# netlink messages to a port nobody has: the kernel frees each in the
# sender's sendmsg, in process context, and its tracepoint calls the drop
# probe from there; on 7.x, whose tracepoints call every probe
# preemptible, that is the real path made preemptible, on both CPUs.
test_preempt_probes() {
	local ko=build/kmod-ptest/$KVER/kmod/dropscope.ko
	local mode="" udp0 r=$PTEST_ROUNDS n threads moves res tp kern g1 g2 nlsite
	need tcpdump
	if [ ! -f "$ko" ]; then
		fail "the test build of the module is there" \
			"no $ko: make module PREEMPT_TEST=1 KVER=$KVER"
		return
	fi
	# SMC sockets for the SMC probes (built in on the debug kernel)
	modprobe -q smc 2>/dev/null
	if [ -w $PREEMPT_MODE ]; then
		mode=$(sed 's/.*(\([a-z]*\)).*/\1/' $PREEMPT_MODE)
		preempt_mode full
		defer preempt_mode "$mode"
	fi
	# room for every session the test closes
	insmod "$ko" closed=$((4 * $(nproc) * r)) || { fail "insmod $ko"; return; }
	defer unload_quiet
	nlsite=$(tests/lab/dropsite netlink 0 $NL_PORT NOT_SPECIFIED) ||
		abort "no site of the netlink drops found"
	$DS set interval 100ms
	$DS start
	cap_start pt site ds_ptest_site
	udp0=$($KC snmp Udp NoPorts)
	$BIN/dropgen -P 2 udp 20000 $UDP_CLOSED > "$TMP/pt-gen.out" &
	g1=$!
	$BIN/dropgen -P 2 netlink 20000 $NL_PORT > "$TMP/pt-nl.out" &
	g2=$!
	if echo "$r" > $PTEST; then
		ok "preempt_test: $r rounds ran ($(cat $PTEST)${mode:+, preemption full})"
	else
		fail "preempt_test: $r rounds ran" "$(dmesg | tail -n 3)"
	fi
	wait $g1 $g2
	cap_stop $cap
	$DS stop
	read -r threads moves tp kern <<< "$(ptest threads moves tpreempt kernel)"
	check "preempt_test: two threads per CPU, $r rounds each, no error" \
		"$((2 * $(nproc))) $r 0" "$(ptest threads rounds errors)"
	check "preempt_test: no probe touched this CPU's data preemptible (counted: the kernel keeps a preemption count)" \
		"0 1" "$(ptest unsafe checked)"
	res=no
	[ "${moves:-0}" -gt 0 ] && res=yes
	check "preempt_test: the threads moved between CPUs ($moves times)" yes "$res"
	n=$((threads * r))

	$DS -j show sites layer kernel > "$TMP/pt-sites.json"
	check "preempt_test: its site counts every call (2 a round); the real drops are Udp NoPorts" \
		"$((2 * n)) $(($($KC snmp Udp NoPorts) - udp0))" \
		"$($KC sum "$TMP/pt-sites.json" NOT_SPECIFIED ds_ptest_site) $($KC sum "$TMP/pt-sites.json" NO_SOCKET ${UDP_SITE})"
	check "preempt_test: the real drops are dropgen's" 40000 \
		"$(awk '{n += $2} END {print n}' "$TMP/pt-gen.out")"
	check "preempt_test: the netlink messages the kernel refused (ECONNREFUSED, 20000 a CPU) are $nlsite's drops" \
		"40000 40000" \
		"$(awk '{n += $2} END {print n}' "$TMP/pt-nl.out") $($KC sum "$TMP/pt-sites.json" NOT_SPECIFIED "$nlsite")"
	# on 7.x the kernel calls the probes preemptible: the real path was
	# taken so, and counted above; elsewhere it never does
	if [ "$tp" = 1 ]; then
		res=no
		[ "${kern:-0}" -gt 0 ] && res=yes
		check "preempt_test: this kernel's tracepoints called the probes preemptible ($kern times), none touched this CPU's data so" \
			"yes 0" "$res $(ptest unsafe)"
	else
		check "preempt_test: this kernel's tracepoints call the probes with preemption off (never preemptible)" \
			0 "$kern"
	fi
	check "preempt_test: the capture matched every call; what it did not lose is in the file" \
		"$((2 * n)) $((2 * n)) 0 $(cap_sum pt captured)" \
		"$(cap_sum pt matched) $(($(cap_sum pt captured) + $(cap_sum pt lost_buffer) + $(cap_sum pt lost_socket))) $(cap_sum pt no_network) $(cap_count "$TMP/pt.pcapng" 'ip proto 253')"

	$DS -j show sessions closed > "$TMP/pt-closed.json"
	check "preempt_test: a session a round, closed, each with its drop and its reset" \
		"$n $n $n" \
		"$(py -c '
import json, sys
s = [x for x in json.load(open(sys.argv[1])) if x["comm"].startswith("ds_ptest/")]
print(len(s), sum(x["drops"] for x in s), sum(x["resets_received"] for x in s))
' "$TMP/pt-closed.json")"

	if [ "$(ptest smc)" != 1 ]; then
		skip "preempt_test: SMC: a fallback, a link down, a byte each way a round" \
			"this kernel has no SMC (no AF_SMC socket)"
		return
	fi
	$DS -j show smc > "$TMP/pt-smc.json"
	check "preempt_test: SMC: a fallback, a link down, a byte each way a round" \
		"$n $n $n $n" \
		"$(py -c '
import json, sys
d = json.load(open(sys.argv[1]))
fb = sum(f["count"] for f in d["fallbacks"] if f["code"] == "0x7e570001" and f["side"] == "client")
print(fb, d["link_downs"], d["tx_bytes"], d["rx_bytes"])
' "$TMP/pt-smc.json")"
}
