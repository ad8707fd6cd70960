#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dropscope lab tests: run inside the lab guest (scripts/lab), as root.
# Prints KTAP.
#
#   tests/lab/run.sh [-l] [-t NAME]...
#     -l        list the tests, in the order they run
#     -t NAME   run only this test (repeatable; NAME with or without test_);
#               without -t every test runs, in the order of -l
#
# Each test is a shell function test_NAME and may report several results.
# It sets up what it needs itself: it loads the module with the parameters
# it needs, and makes its own namespace, devices, nftables table and tmux
# server, named after the test and this shell's PID. Each setup step
# registers how to undo it with `defer`; after the test, the runner undoes
# them in reverse order, whether the test passed, failed or stopped midway,
# and the EXIT trap does the same on an abort. No test depends on another.
#
# Every count is checked exactly against the kernel's own: tracefs hist
# triggers on skb:kfree_skb, /proc/net/snmp and snmp6, nftables counters.
#
# Exit status: 0 when every test passed, 1 when one failed, 4 (kselftest's
# skip) when a tool that a test needs is missing, 2 on bad usage.
set -u

KSFT_SKIP=4

# The tests, in the order they run.
TESTS=(load accounting two_cpus overflow batching stalled_listener
	bad_input contract unload shell
	rule_site rule_reason rule_dev rule_device_gate rule_netns rule_l3
	rule_l4 rule_unread_udp rule_combined rule_only rule_churn rule_limit
	rule_bad rule_files record_diff record_bad run run_parallel run_evidence run_evidence_owner run_limit run_kselftest run_sessions run_baseline rules_normal
	alert_threshold alert_top alert_ratelimit watch_order
	sessions_exact sessions_live sessions_overflow sessions_parts
	sessions_top sessions_top_tty sessions_top_missed sessions_unload
	sessions_masked sessions_bad_params sessions_tcpstate sessions_found sessions_accept_owner
	sessions_watch_states sessions_watch_retrans smc_absent smc_fallbacks smc_sockets
	smc_watch smc_r smc_linkgroups smc_alone smc_late smc_masks
	capture_filter capture_order capture_overflow capture_two capture_masks capture_bad
	capture_jumbo capture_unload
	stacks_udp stacks_replay stacks_full stacks_onoff stacks_bad stacks_capture stacks_lines
	stacks_unload
	export_prometheus export_textfile export_reload export_bad completion
	fuzz_netlink cycles unload_dump
	four_clis privileges preempt_probes hw_traps dev_counters dev_gone layer_masks layer_export hw_unload
	qdisc_fq qdisc_generic qdisc_masks qdisc_export qdisc_absent)

usage() {
	echo "usage: tests/lab/run.sh [-l] [-t NAME]...   (-l lists the tests)"
	exit "$1"
}
known() { local t; for t in "${TESTS[@]}"; do [ "$t" = "$1" ] && return 0; done; return 1; }
wanted=()
while getopts "lt:h" opt; do
	case $opt in
	l) printf '%s\n' "${TESTS[@]}"; exit 0 ;;
	t) known "${OPTARG#test_}" || { echo "run.sh: no test '$OPTARG' (-l lists them)" >&2; exit 2; }
	   wanted+=("${OPTARG#test_}") ;;
	h) usage 0 ;;
	*) usage 2 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage 2 >&2
selected=()
for t in "${TESTS[@]}"; do
	for w in "${wanted[@]:-${TESTS[@]}}"; do
		[ "$t" = "$w" ] && { selected+=("$t"); break; }
	done
done

cd "$(dirname "$0")/../.." || exit 1
KVER=${LAB_KERNEL:-$(uname -r)}
KO=build/kmod/$KVER/kmod/dropscope.ko
DS=user/dropscope
BIN=tests/lab/bin
KC="py tests/lab/kcount.py"
T=/sys/kernel/tracing
UDP_CLOSED=7
TCP_CLOSED=8
# the parts start runs: qdisc where the kernel has qdisc:qdisc_drop
PARTS_ALL="drops tcp smc hw dev"
[ ! -d $T/events/qdisc/qdisc_drop ] || PARTS_ALL+=" qdisc"
NF_PORT=9

# What the tests other than the shell's wait for in the CLI's text: `watch`
# says this on its standard error once it listens. (JSON is read by field.)
WATCH_READY="watching"

for tool in python3 ip insmod rmmod; do
	command -v $tool >/dev/null || { echo "# missing $tool"; exit $KSFT_SKIP; }
done
[ -f "$KO" ] || { echo "# no module built for $KVER: $KO"; exit $KSFT_SKIP; }

RUNTMP=$(mktemp -d)

# --- KTAP results ------------------------------------------------------------
# Tests run in a subshell; the counts live in a file the runner reads back.
ntests=0 nfail=0 nskip=0
count_save() { echo "$ntests $nfail $nskip" > "$RUNTMP/count"; }
ok() { ntests=$((ntests + 1)); echo "ok $ntests $1"; count_save; }
fail() {
	ntests=$((ntests + 1)) nfail=$((nfail + 1))
	echo "not ok $ntests $1"
	shift
	for l in "$@"; do echo "# $l"; done
	count_save
}
skip() { # skip NAME REASON
	ntests=$((ntests + 1)) nskip=$((nskip + 1))
	echo "ok $ntests $1 # SKIP $2"
	count_save
}
# check NAME EXPECTED ACTUAL: exact equality. An empty expected value is
# refused (an oracle that printed nothing compares nothing): a test that
# expects nothing says so with check_empty.
check() {
	if [ -z "$2" ]; then
		fail "$1" "the expected value is empty: its oracle gave nothing" "got: $3"
	elif [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1" "expected: $2" "got: $3"
	fi
}
# check_empty NAME ACTUAL: ACTUAL is empty
check_empty() {
	if [ -z "$2" ]; then ok "$1"; else fail "$1" "expected nothing" "got: $2"; fi
}
# oracle VAR COMMAND...: VAR set to what the oracle COMMAND prints. An
# oracle that fails, or prints nothing, stops the test as failed, with
# what it said on standard error.
oracle() {
	local -n _oracle_out=$1
	local rc=0
	shift
	_oracle_out=$("$@" 2> "$TMP/oracle.err") || rc=$?
	[ $rc -eq 0 ] || abort "the oracle $* failed (exit $rc): $(head -c 600 "$TMP/oracle.err")"
	[ -n "$_oracle_out" ] || abort "the oracle $* printed nothing: $(head -c 600 "$TMP/oracle.err")"
}
# --- where the time goes ---------------------------------------------------------
# Each test's time is split by what it waited on, summed in $DS_LAB_TIMES
# as "CATEGORY MICROSECONDS" lines: load (insmod, rmmod), oracle (an
# independent oracle's start-up until it is ready: bpftrace, tcpdump,
# prometheus), python (the oracle scripts that py runs), traffic (the
# generators write it themselves: tests/lab/gentime.h), sleep (fixed
# sleeps) and poll (bounded polls). A generator or sleep in the background
# overlaps the rest, so the parts may add up to more than the whole.
export DS_LAB_TIMES=$RUNTMP/times
timed() { # timed CATEGORY COMMAND...: COMMAND, its time added to CATEGORY
	local cat=$1 t0=${EPOCHREALTIME/./} rc=0
	shift
	"$@" || rc=$?
	echo "$cat $((${EPOCHREALTIME/./} - t0))" >> "$DS_LAB_TIMES"
	return $rc
}
insmod() { timed load command insmod "$@"; }
rmmod() { timed load command rmmod "$@"; }
sleep() { timed sleep command sleep "$@"; }

# --- Python, started once ---------------------------------------------------------
# An interpreter takes about a second to start under TCG, and the oracle
# scripts run hundreds of times a run: tests/lab/pyd.py starts once, and
# `py ARGS` runs `python3 ARGS` in a child forked from it, with the
# caller's argv, directory, standard streams and exit status. What runs in
# the background (its PID is killed or waited for) or on a terminal of its
# own is a python3 of its own. The client's mkfifo and rm, and
# sleep, are bash's loadable builtins where the system has them
# (bash-builtins): a program takes some 80 ms to start under TCG.
enable -f mkfifo mkfifo 2>/dev/null
enable -f rm rm 2>/dev/null
enable -f sleep sleep 2>/dev/null
PYD=$RUNTMP/pyd
pyd_start() {
	mkdir "$PYD" && mkfifo "$PYD/req" || return 1
	command python3 tests/lab/pyd.py "$PYD" &
	PYD_PID=$!
}
py() { timed python pyd_call "$@"; }
# The caller's standard streams go to pyd.py as copies on descriptors of
# their own (i, o, e), which stay put while the redirections of the request
# itself move 0 and 1 about. A stream the caller has closed is /dev/null.
pyd_call() { # pyd_call ARGS...: python3 ARGS, run by pyd.py
	local d=$PYD/$BASHPID.$RANDOM rc= i o e
	mkfifo "$d" || return 1
	if [ -e "/proc/$BASHPID/fd/0" ]; then exec {i}<&0; else exec {i}< /dev/null; fi
	if [ -e "/proc/$BASHPID/fd/1" ]; then exec {o}>&1; else exec {o}> /dev/null; fi
	if [ -e "/proc/$BASHPID/fd/2" ]; then exec {e}>&2; else exec {e}> /dev/null; fi
	printf '%s\0' "$BASHPID" "$PWD" "$i" "$o" "$e" "$@" > "$d.argv"
	echo "$d" > "$PYD/req"
	read -r rc < "$d"
	exec {i}<&- {o}>&- {e}>&-
	rm -f "$d" "$d.argv"
	return "${rc:-1}"
}
# times_of: the test's parts, in seconds, one line
times_of() {
	awk '{ t[$1] += $2 } END {
		n = split("load oracle python traffic sleep poll", c, " ")
		for (i = 1; i <= n; i++) printf "%s%s %.1f", (i > 1 ? " " : ""), c[i], t[c[i]] / 1e6
		print ""
	}' "$DS_LAB_TIMES" 2>/dev/null
}

# wait_for SECONDS COMMAND...: bounded poll, 50 ms steps
wait_for() { timed poll poll_until "$@"; }
# wait_oracle SECONDS COMMAND...: the same, for an oracle getting ready
wait_oracle() { timed oracle poll_until "$@"; }
poll_until() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || return 1
		command sleep 0.05
	done
}
# exited PID: the process has ended (gone, or a zombie not yet waited for)
exited() { [ ! -e "/proc/$1" ] || [ "$(ps -o stat= -p "$1")" = Z ]; }
# need TOOL...: skip the whole test (exit 4 at the end) if a tool is missing
need() {
	local tool
	for tool; do
		command -v "$tool" >/dev/null && continue
		skip "test_$TEST" "$tool is missing"
		echo $KSFT_SKIP > "$RUNTMP/status"
		exit 0
	done
}
# need_ynl: skip unless the family can be driven by name (scripts/ynl needs
# the kernel's YNL library, which scripts/kernel-src extracts on the host)
need_ynl() {
	[ -d build/linux-src/tools/net/ynl ] && return
	skip "test_$TEST" "build/linux-src is missing: run scripts/kernel-src on the host"
	echo $KSFT_SKIP > "$RUNTMP/status"
	exit 0
}
# abort REASON: the test cannot go on; the runner reports it as failed
abort() { echo "$*" > "$RUNTMP/abort"; exit 1; }

# --- cleanup -------------------------------------------------------------------
# defer COMMAND [ARGS...]: run after the test, even if it fails or stops
# midway. The words are quoted now, so later changes to variables do not
# matter; deferred commands run in reverse order in the runner's shell.
defer() { { printf '%q ' "$@"; echo; } >> "$RUNTMP/defer"; }
run_deferred() {
	local cmd
	[ -s "$RUNTMP/defer" ] || return 0
	tac "$RUNTMP/defer" > "$RUNTMP/defer.run"
	: > "$RUNTMP/defer"
	while IFS= read -r cmd; do
		eval "$cmd" < /dev/null > "$RUNTMP/defer.out" 2>&1 ||
			echo "# cleanup: $cmd failed: $(head -c 300 "$RUNTMP/defer.out" | tr '\n' ' ')"
	done < "$RUNTMP/defer.run"
}
kill_quiet() { kill "$@" 2>/dev/null; true; }
# kill_tree PID: a dropgen -P and the processes it forked
kill_tree() { pkill -P "$1" 2>/dev/null; kill "$1" 2>/dev/null; true; }

TEST_PID=
RUNNER_PID=$BASHPID
on_exit() {
	# a subshell that a signal reached before it reset its traps runs
	# them as the runner would: only the runner cleans up
	[ "$BASHPID" = "$RUNNER_PID" ] || return 0
	[ -z "$TEST_PID" ] || kill "$TEST_PID" 2>/dev/null
	run_deferred
	[ -z "${PYD_PID:-}" ] || kill "$PYD_PID" 2>/dev/null
	[ ! -d /sys/module/dropscope ] || rmmod dropscope 2>/dev/null
	rm -rf "$RUNTMP"
}
trap on_exit EXIT
trap 'exit 130' INT TERM HUP

# --- the module ------------------------------------------------------------------
# load [PARAM=VALUE...]: insmod for this test; unloaded after it
load() { insmod "$KO" "$@" && defer unload_quiet; }
unload() { rmmod dropscope; }
unload_quiet() { [ ! -d /sys/module/dropscope ] || rmmod dropscope; }
setup_module() { load "$@" || abort "insmod $KO $* failed"; }

# The kernel's own count of every drop: a hist trigger on skb:kfree_skb
# keyed like dropscope, by location and reason.
HIST="hist:keys=location,reason:size=4096"
trace_on() {
	echo "$HIST" > $T/events/skb/kfree_skb/trigger || abort "hist trigger refused"
	defer trace_clear
}
trace_off() {
	cat $T/events/skb/kfree_skb/hist > "$TMP/$1"
	trace_clear
}
trace_clear() { echo "!$HIST" > $T/events/skb/kfree_skb/trigger 2>/dev/null; true; }

# --- per-test names and network --------------------------------------------------
# Unique to the test and to this run: namespace, devices (at most 15
# characters: a hash of both), nftables table, tmux server, addresses.
test_names() {
	local i tag
	tag=$(printf '%s.%s' "$1" $$ | md5sum | cut -c1-6)
	NS=ds-$1-$$
	VETH_H=h$tag VETH_N=n$tag DUMMY=d$tag
	NFT_TABLE=ds_$1_$$
	TMUX_SOCK=ds-$1-$$
	for i in "${!TESTS[@]}"; do [ "${TESTS[i]}" = "$1" ] && break; done
	HOST_IP=198.18.$((i + 1)).1	# RFC 2544 benchmark range, on a veth
	NS_IP=198.18.$((i + 1)).2	# inside the guest
}

nft_drop() {
	nft -f - <<-NFT || abort "nft refused the table"
	table inet $NFT_TABLE {
		chain input {
			type filter hook input priority 0;
			udp dport $NF_PORT counter drop
		}
	}
	NFT
	defer nft delete table inet "$NFT_TABLE"
}
nft_count() {
	nft list table inet "$NFT_TABLE" | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'
}

# setup_netns: the namespace $NS with lo up, joined to the host by a veth
# pair $VETH_H (host, $HOST_IP) - $VETH_N (namespace, $NS_IP). $VETH_N is
# made in the host and moved: unregistered, then registered there. No
# IPv6 and static neighbours: no ND or ARP traffic on the pair.
setup_netns() {
	ip netns add "$NS" || abort "ip netns add $NS failed"
	defer netns_del "$NS" "$VETH_H"
	ip link add "$VETH_H" type veth peer name "$VETH_N" || abort "no veth pair"
	ip link set "$VETH_N" netns "$NS" &&
		sysctl -qw "net.ipv6.conf.$VETH_H.disable_ipv6=1" &&
		ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$VETH_N.disable_ipv6=1" &&
		ip addr add "$HOST_IP/24" dev "$VETH_H" &&
		ip -n "$NS" addr add "$NS_IP/24" dev "$VETH_N" &&
		ip neigh replace "$NS_IP" dev "$VETH_H" nud permanent \
			lladdr "$(ip -n "$NS" -br link show dev "$VETH_N" | awk '{print $3}')" &&
		ip -n "$NS" neigh replace "$HOST_IP" dev "$VETH_N" nud permanent \
			lladdr "$(cat "/sys/class/net/$VETH_H/address")" &&
		ip link set "$VETH_H" up &&
		ip -n "$NS" link set "$VETH_N" up &&
		ip -n "$NS" link set lo up || abort "setting up $NS failed"
}
# netns_del NS VETH: delete the namespace, and wait until its devices are
# gone, so that their teardown does not reach into the next test
netns_del() {
	ip netns del "$1"
	wait_for 10 sh -c "! [ -e /sys/class/net/$2 ]" || { echo "$2 still there"; return 1; }
}

gen() { $BIN/dropgen "$@" >/dev/null; }
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"; }

# Raw netlink requests to dropscope.ko, past the CLI's own checks. Every
# raw request of the tests goes through here.
#   nlraw [--as-nobody] CMD [TYPE:ATTR=VALUE ...]   one request; dCMD dumps.
#        TYPE is u8, u16, u32, u64, str; nest:ATTR= opens a nest, end:0=
#        closes it. Prints "ok" or "error ERRNO_NAME: extack message".
#   nlraw [--as-nobody] join             join the alert group
#   nlraw stall SECONDS                  join with a tiny buffer, read nothing
#        for that long; prints "joined", then "overrun" if alerts were lost
nlraw() {
	if [ "$1" = --as-nobody ]; then
		shift
		nobody "$BIN/nlpoke" "$@"
	else
		"$BIN/nlpoke" "$@"
	fi
}

json() { py -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
stat_of() { $DS -j show stats | json "d['$1']"; }

# sites_equal_tracefs LABEL FILE [all]: the sites dropscope shows (with
# all, the masked ones too), saved in $TMP/FILE.json, against the hist
# trigger's $TMP/FILE.hist: every site and reason equal
sites_equal_tracefs() {
	local out
	$DS -j show sites layer kernel ${3:+"$3"} > "$TMP/$2.json"
	if out=$($KC same "$TMP/$2.hist" "$TMP/$2.json"); then
		ok "${1:+$1 }every site and reason equals tracefs ($out)"
	else
		fail "${1:+$1 }every site and reason equals tracefs" "$out"
	fi
}

# count_exactly NAME: stopped, and then 1000 drops at a closed UDP port
# while monitoring runs: every site and reason equals the hist trigger,
# and the UDP site Udp NoPorts (the rules left must not match UDP)
count_exactly() {
	local udp0
	stop_if_running
	trace_on
	udp0=$($KC snmp Udp NoPorts)
	$DS start
	gen udp 1000 $UDP_CLOSED
	$DS stop
	trace_off exact.hist
	sites_equal_tracefs "$1" exact
	check "$1 1000 UDP drops, as Udp NoPorts counts" \
		"1000 $(($($KC snmp Udp NoPorts) - udp0))" \
		"$($KC sum "$TMP/exact.json" NO_SOCKET ${UDP_SITE}) $($KC sum "$TMP/exact.json" NO_SOCKET ${UDP_SITE})"
}

# --- the tests ------------------------------------------------------------------

test_load() {
	if load; then ok "insmod"; else fail "insmod"; fi
	check "stopped after load" '{"running":false,"interval_ms":1000,"capacity":4096,"threshold":0,"top":0,"ratelimit":0,"rules":0,"parts":[],"sessions":16384,"closed":4096,"stacks":false,"session_events":[],"runs":0,"sessions_drops_masked":0}' \
		"$($DS -j status)"
}

# exact accounting against tracefs, snmp and nftables
test_accounting() {
	local udp0 rst0 out events
	need nft
	setup_module
	nft_drop
	trace_on
	udp0=$($KC snmp Udp NoPorts)
	rst0=$($KC snmp Tcp OutRsts)
	$DS start
	gen udp 500 $UDP_CLOSED
	gen tcp 100 $TCP_CLOSED
	gen udp 200 $NF_PORT
	$DS stop
	trace_off acct.hist
	sites_equal_tracefs "" acct
	check "UDP NO_SOCKET equals Udp NoPorts" \
		$(($($KC snmp Udp NoPorts) - udp0)) \
		"$($KC sum "$TMP/acct.json" NO_SOCKET ${UDP_SITE})"
	check "TCP NO_SOCKET equals Tcp OutRsts" \
		$(($($KC snmp Tcp OutRsts) - rst0)) \
		"$($KC sum "$TMP/acct.json" NO_SOCKET ${TCP_SITE})"
	check "NETFILTER_DROP equals the nft counter" "$(nft_count)" \
		"$($KC sum "$TMP/acct.json" NETFILTER_DROP)"
	check "the generated counts" "500 100 200" \
		"$($KC sum "$TMP/acct.json" NO_SOCKET ${UDP_SITE}) $($KC sum "$TMP/acct.json" NO_SOCKET ${TCP_SITE}) $($KC sum "$TMP/acct.json" NETFILTER_DROP)"
	events=$(stat_of events)
	check "stats events equal the hist trigger's drops" "$($KC hits "$TMP/acct.hist")" "$events"
	check "show stats: every value in one column, after the longest label" 1 \
		"$($DS show stats | awk '{ match($0, /[0-9]+$/); print RSTART }' | sort -u | wc -l)"
	$DS -j show reasons > "$TMP/reasons.json"
	check "show reasons totals NO_SOCKET as the hist trigger does" \
		"$($KC hits "$TMP/acct.hist" NO_SOCKET)" \
		"$(py -c 'import json,sys; print(sum(r["count"] for r in json.load(open(sys.argv[1])) if r["reason"]=="NO_SOCKET"))' "$TMP/reasons.json")"
	$DS -j show reasons all > "$TMP/all.json"
	out=$($KC names $T/events/skb/kfree_skb/format "$TMP/all.json")
	if [ $? -eq 0 ]; then ok "reason names and ids are the running kernel's ($out)"
	else fail "reason names and ids are the running kernel's" "$out"; fi
}

# two CPUs dropping at once
test_two_cpus() {
	local udp0
	if [ "$(nproc)" -lt 2 ]; then
		skip "two CPUs" "one CPU only"
		return
	fi
	setup_module
	udp0=$($KC snmp Udp NoPorts)
	$DS start
	$BIN/dropgen -P 2 udp 5000 $UDP_CLOSED > "$TMP/2cpu.out"
	$DS stop
	$DS -j show sites layer kernel > "$TMP/2cpu.json"
	check "two CPUs: total equals Udp NoPorts" \
		"$(($($KC snmp Udp NoPorts) - udp0)) 10000" \
		"$($KC sum "$TMP/2cpu.json" NO_SOCKET ${UDP_SITE}) $(awk '{n += $2} END {print n}' "$TMP/2cpu.out")"
	check "two CPUs: one site, merged across CPUs" 1 \
		"$(py -c 'import json,sys; print(sum(s["symbol"].startswith(sys.argv[2] + "+") for s in json.load(open(sys.argv[1]))))' "$TMP/2cpu.json" "$UDP_SITE")"
}

# a table of one key per CPU: the rest is counted as overflow
test_overflow() {
	local traced overflow events
	need nft
	setup_module capacity=1
	nft_drop
	trace_on
	$DS start
	gen -c 0 udp 300 $UDP_CLOSED
	gen -c 0 tcp 50 $TCP_CLOSED
	gen -c 0 udp 70 $NF_PORT
	$DS stop
	trace_off ovf.hist
	$DS -j show sites layer kernel > "$TMP/ovf.json"
	$DS -j show stats > "$TMP/ovf.stats"
	traced=$($KC hits "$TMP/ovf.hist")
	read -r overflow events < <(py -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["overflow"], s["events"])' "$TMP/ovf.stats")
	check "overflow: sites plus overflow equal tracefs" "$traced $traced" \
		"$(($($KC sum "$TMP/ovf.json") + overflow)) $events"
	if [ "$overflow" -gt 0 ] && [ "$(py -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$TMP/ovf.json")" -le "$(nproc)" ]; then
		ok "overflow counted ($overflow drops did not fit one slot per CPU)"
	else
		fail "overflow counted" "overflow=$overflow"
	fi
}

# watch_start FILE WATCH_ARGS...: `dropscope -j watch` in the background
# ($watcher), once it listens
watch_start() {
	local out=$1
	shift
	$DS -j watch "$@" > "$TMP/$out" 2> "$TMP/$out.err" &
	watcher=$!
	defer kill_quiet $watcher
	wait_for 10 grep -q "$WATCH_READY" "$TMP/$out.err"
}

# rounds within T/I + 1, and the deltas add up to the totals of each
# layer (a drop of lo's backlog is a kernel drop and one of lo's
# rx_dropped too)
test_batching() {
	local burst_ns nrounds nends deltas limit
	setup_module
	$DS set interval 200ms
	$DS start
	watch_start watch.jsonl timeout 6s || fail "watcher ready"
	read -r _ burst_ns < <($BIN/dropgen -d 2000 udp 100000000 $UDP_CLOSED | awk '{print $2, $4}')
	wait $watcher
	$DS stop
	$DS -j show sites > "$TMP/batch.json"
	$DS -j show stats > "$TMP/batch.stats"
	read -r nrounds nends deltas < <($KC rounds "$TMP/watch.jsonl")
	limit=$(( burst_ns / 200000000 + 1 + 1 ))
	if [ "$nrounds" -ge 1 ] && [ "$nrounds" -le "$limit" ] && [ "$nrounds" = "$nends" ]; then
		ok "batching: $nrounds rounds for a $((burst_ns / 1000000)) ms burst at 200 ms (at most $limit)"
	else
		fail "batching: rounds within T/I + 1" "rounds=$nrounds ends=$nends limit=$limit"
	fi
	check "batching: alert deltas add up to the totals of each layer, $deltas drops" \
		"$($KC layers "$TMP/batch.json" "$TMP/batch.stats")" "$($KC layers "$TMP/watch.jsonl")"
}

# a listener that does not read: lost alerts are counted, and it is told
test_stalled_listener() {
	local staller lost
	setup_module
	$DS set interval 10ms
	$DS start
	nlraw stall 4 > "$TMP/stall.out" &
	staller=$!
	defer kill_quiet $staller
	wait_for 10 grep -q joined "$TMP/stall.out"
	$BIN/dropgen -d 2000 udp 100000000 $UDP_CLOSED > /dev/null
	wait $staller
	lost=$(stat_of alerts_lost)
	if [ "$lost" -gt 0 ] && grep -q overrun "$TMP/stall.out"; then
		ok "a full listener: $lost alert messages counted as lost, the listener told"
	else
		fail "a full listener: lost alerts counted" "alerts_lost=$lost" "$(cat "$TMP/stall.out")"
	fi
	$DS stop
}

# bad requests get an extended-ack error and change nothing
test_bad_input() {
	local cfg args rc
	need_ynl
	setup_module
	$DS set interval 300ms
	cfg=$($DS -j status)
	bad() { # bad NAME EXPECTED_PATTERN NLRAW_ARGS...
		local name=$1 want=$2 out
		shift 2
		out=$(nlraw "$@")
		if [[ $out == $want ]] && [ "$($DS -j status)" = "$cfg" ]; then
			ok "bad input: $name ($out)"
		else
			fail "bad input: $name" "got: $out" "config: $($DS -j status)"
		fi
	}
	# What the spec cannot express goes raw: an unknown command, an
	# attribute of the wrong type, or of a number the family lacks
	bad "unknown command" "error EOPNOTSUPP*" 99
	bad "interval of the wrong type" "error *: ?*" 4 u8:3=50
	bad "unknown attribute" "error EINVAL*: ?*" 4 u32:40=50
	bad "start with an attribute" "error EINVAL*: ?*" 1 u32:3=100
	# The rest by name, through the YNL spec (scripts/ynl, whose body
	# scripts/ynl.py runs in the lab's Python); each is refused by the
	# kernel (exit 1) with its extended ack
	ybad() { # ybad NAME EXPECTED_PATTERN SCRIPTS_YNL_ARGS...
		local name=$1 want=$2 out rc
		shift 2
		out=$(py scripts/ynl.py "$@" 2>&1)
		rc=$?
		if [ $rc -eq 1 ] && [[ $out == $want ]] &&
			[ "$($DS -j status)" = "$cfg" ]; then
			ok "bad input: $name (${out#ynl: })"
		else
			fail "bad input: $name" "exit $rc: $out" "config: $($DS -j status)"
		fi
	}
	ybad "interval below range" "*ERANGE*interval-ms*" \
		--do config-set --json '{"interval-ms": 9}'
	ybad "interval above range" "*ERANGE*interval-ms*" \
		--do config-set --json '{"interval-ms": 60001}'
	ybad "ratelimit above range" "*ERANGE*ratelimit*" \
		--do config-set --json '{"ratelimit": 1000001, "top": 3}'
	ybad "attribute of a read-only field" "*EINVAL*capacity*" \
		--do config-set --json '{"capacity": 5, "top": 3}'
	ybad "config set with nothing" "*EINVAL*no configuration attribute*" \
		--do config-set
	ybad "stop while stopped" "*EALREADY*not running*" --do stop
	ybad "rule on l4 0" "*EINVAL*l4: 0*cannot be matched*" \
		--do rule-add --json '{"rule": {"mode": "mask", "l4": 0}}'
	ybad "rule on l3 0" "*EINVAL*l3: 0*cannot be matched*" \
		--do rule-add --json '{"rule": {"mode": "mask", "l3": 0}}'
	ybad "rule nest with nothing to match" "*EINVAL*empty rule*" \
		--do rule-add --json '{"rule": {"mode": "mask"}}'
	ybad "rule with a reply-only field" "*EINVAL*hits*" \
		--do rule-add --json '{"rule": {"l4": 17, "hits": 1}}'
	ybad "rule on ifindex 0" "*ERANGE*ifindex*" \
		--do rule-add --json '{"rule": {"ifindex": 0}}'
	ybad "rule of an unknown mode" "*ERANGE*mode*" \
		--do rule-add --json '{"rule": {"mode": 2, "l4": 17}}'
	ybad "rule given an id" "*EINVAL*the kernel gives rule ids*" \
		--do rule-add --json '{"rule": {"id": 5, "l4": 17}}'
	ybad "delete a rule that does not exist" "*ENOENT*no rule has this id*" \
		--do rule-del --json '{"rule": {"id": 99}}'
	ybad "rule with a site range without its end" "*EINVAL*start and end*" \
		--do rule-add --json '{"rule": {"loc-start": 1}}'
	ybad "run of a cgroup that does not exist" "*ENOENT*no cgroup (v2) has this id*" \
		--do run-start --json '{"run-cgroup": 4294967295}'
	ybad "run of cgroup 0" "*ERANGE*run-cgroup*" \
		--do run-start --json '{"run-cgroup": 0}'
	ybad "run without a cgroup" "*EINVAL*give the cgroup's id*" --do run-start
	ybad "stop a run that does not exist" "*ENOENT*no run has this id*" \
		--do run-stop --json '{"run": 3}'
	ybad "stop run 17" "*ERANGE*run*" --do run-stop --json '{"run": 17}'
	for args in "set interval 5ms" "set interval 61s" "set interval 5h" "set interval fast" \
		"show sites top 0" "show sites bogus" "bogus" "start now"; do
		# shellcheck disable=SC2086
		$DS $args > /dev/null 2>&1
		rc=$?
		check "CLI refuses '$args' (exit 2), config unchanged" "2 $cfg" "$rc $($DS -j status)"
	done
	check "CLI: 5h is a duration, out of the interval's range" 1 \
		"$($DS set interval 5h 2>&1 | grep -c 'must be 10ms to 60s')"
	printf 'status\nset interval 7\n' > "$TMP/bad.batch"
	$DS -f "$TMP/bad.batch" > /dev/null 2> "$TMP/batch.err"
	check "batch stops at the bad line and names it" "2 1" \
		"$? $(grep -c "bad.batch:2:" "$TMP/batch.err")"
}

# rmmod while drops flow and a watcher is attached; then reload
test_unload() {
	local watcher gen_pid
	setup_module
	dmesg -C
	$DS set interval 10ms
	$DS start
	$DS watch > /dev/null 2> "$TMP/unload.err" &
	watcher=$!
	defer kill_quiet $watcher
	wait_for 10 grep -q "$WATCH_READY" "$TMP/unload.err"
	$BIN/dropgen -P "$(nproc)" -d 3000 udp 100000000 $UDP_CLOSED > /dev/null &
	gen_pid=$!
	defer kill_tree $gen_pid
	sleep 1	# drops flow for a while: the unload happens under load
	unload && ok "rmmod while dropping and watched" || fail "rmmod while dropping and watched"
	wait_for 10 sh -c "! kill -0 $watcher 2>/dev/null"
	wait $watcher
	check "the watcher notices the unload (exit 3)" "3" "$?"
	wait $gen_pid
	if dmesg | grep -E "WARNING|BUG|Oops|KASAN|leak|refcount" > "$TMP/dmesg.bad"; then
		fail "no warning in dmesg" "$(cat "$TMP/dmesg.bad")"
	else
		ok "no warning in dmesg"
	fi
	if load && $DS start && gen udp 10 $UDP_CLOSED && $DS stop; then
		check "reload works" 10 "$($DS -j show sites layer kernel | $KC sum /dev/stdin)"
	else
		fail "reload works" "insmod, start, 10 drops or stop failed"
	fi
}

# the shell in a real terminal, through tmux
test_shell() {
	# The shell's text output as this test expects it (grep patterns).
	local prompt="dropscope>"		# the prompt
	local watching="watching drop alerts"	# watch has started
	local alert="drops  NO_SOCKET"		# an alert line for the UDP drops
	local watch_end="alert rounds"		# what watch prints when q ends it
	local completed="dropscope> show$"	# "sh" Tab: the command completed
	local site="${UDP_SITE}"		# show sites lists the UDP site

	need tmux
	setup_module
	export TERM=xterm HOME=$TMP
	pane() { tmux -L "$TMUX_SOCK" capture-pane -p -t ds; }
	shows() { pane | grep -q -- "$1"; }
	keys() { tmux -L "$TMUX_SOCK" send-keys -t ds "$@"; }
	tmux -L "$TMUX_SOCK" new-session -d -s ds -x 100 -y 30 "$DS" ||
		abort "tmux new-session failed"
	defer tmux_gone "$TMUX_SOCK"
	wait_for 10 shows "$prompt" || fail "shell prompt" "$(pane)"
	keys "start" Enter
	keys "watch" Enter
	wait_for 10 shows "$watching"
	gen udp 20 $UDP_CLOSED
	if wait_for 15 shows "$alert"; then ok "shell: watch shows drops"
	else fail "shell: watch shows drops" "$(pane)"; fi
	keys q
	if wait_for 10 shows "$watch_end"; then ok "shell: q ends watching"
	else fail "shell: q ends watching" "$(pane)"; fi
	keys "sh" Tab
	if wait_for 5 shows "$completed"; then
		ok "shell: Tab completes a command"
	else
		fail "shell: Tab completes a command" "$(pane)"
	fi
	keys "si" Tab Enter
	if wait_for 10 shows "$site"; then ok "shell: show sites after completion"
	else fail "shell: show sites after completion" "$(pane)"; fi
	keys "quit" Enter
	if wait_for 10 sh -c "! tmux -L '$TMUX_SOCK' has-session -t ds 2>/dev/null"; then
		ok "shell: quit leaves"
	else
		fail "shell: quit leaves" "$(pane)"
	fi
}
# tmux_gone SOCKET: that tmux server ends, if it still runs
tmux_gone() { ! tmux -L "$1" has-session 2>/dev/null || tmux -L "$1" kill-server; }

# The other test files; one that does not parse stops the run, as does a
# listed test that none of them defines.
for f in rules fuzz sessions cycles preempt hw qdisc; do
	bash -n "tests/lab/$f.sh" || { echo "Bail out! tests/lab/$f.sh does not parse"; exit 1; }
done
# shellcheck source=tests/lab/rules.sh
. tests/lab/rules.sh
# shellcheck source=tests/lab/hw.sh
. tests/lab/hw.sh
# shellcheck source=tests/lab/qdisc.sh
. tests/lab/qdisc.sh
# shellcheck source=tests/lab/fuzz.sh
. tests/lab/fuzz.sh
# shellcheck source=tests/lab/sessions.sh
. tests/lab/sessions.sh
# shellcheck source=tests/lab/smc.sh
. tests/lab/smc.sh
# shellcheck source=tests/lab/capture.sh
. tests/lab/capture.sh
# shellcheck source=tests/lab/export.sh
. tests/lab/export.sh
# shellcheck source=tests/lab/complete.sh
. tests/lab/complete.sh
# shellcheck source=tests/lab/cycles.sh
. tests/lab/cycles.sh
# shellcheck source=tests/lab/preempt.sh
. tests/lab/preempt.sh
# shellcheck source=tests/lab/contract.sh
. tests/lab/contract.sh
# shellcheck source=tests/lab/workflow.sh
. tests/lab/workflow.sh
# shellcheck source=tests/lab/stacks.sh
. tests/lab/stacks.sh
for t in "${TESTS[@]}"; do
	declare -F "test_$t" > /dev/null || { echo "Bail out! test_$t is listed but not defined"; exit 1; }
done

# --- the runner --------------------------------------------------------------------
# Tags of the device names must differ between the tests.
for t in "${TESTS[@]}"; do printf '%s.%s\n' "$t" $$ | md5sum | cut -c1-6; done |
	sort | uniq -d | grep -q . && { echo "# device name tags collide, run again"; exit 1; }

missing=0
# test_limit: the seconds a test may run. A test that hangs must not take
# the whole run with it (the lab's own bound stops the guest, and with it
# every later test and every word of why): past this bound the watchdog
# records what the test's processes were doing and stops them, and the test
# fails with that record. TEST_LIMIT sets it; the debug kernel, about ten
# times slower, gets ten times as long. A test's cleanup has two minutes
# (twenty on the debug kernel).
debug_scale() { case $(uname -r) in *debug*) echo $(($1 * 10));; *) echo "$1";; esac; }
test_limit() { debug_scale "${TEST_LIMIT:-900}"; }
cleanup_limit() { debug_scale 120; }
# descendants PID: every process below PID
descendants() {
	local c
	for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done
}
# watchdog PID SECONDS: after SECONDS, the record of PID's processes in
# $RUNTMP/hung (the stack of those in uninterruptible sleep too), and the
# stop
watchdog() {
	local p
	command sleep "$2" & wait $!
	{
		for p in "$1" $(descendants "$1"); do
			echo "$(ps -o pid=,stat=,wchan:24=,etimes=,args= -p "$p" | cut -c1-160)"
			[ "$(ps -o stat= -p "$p" | cut -c1)" != D ] ||
				sed 's/^/    /' "/proc/$p/stack" 2>/dev/null
		done
		echo "the kernel log's last lines:"
		dmesg | tail -n 15
	} > "$RUNTMP/hung" 2>&1
	for p in $(descendants "$1") "$1"; do kill -KILL "$p" 2>/dev/null; done
}
# bounded SECONDS COMMAND...: COMMAND in a subshell under a watchdog; its
# exit status (137 when the watchdog stopped it)
bounded() {
	local limit=$1 dog sl rc=0
	shift
	rm -f "$RUNTMP/hung"
	( "$@" ) &
	TEST_PID=$!
	watchdog $TEST_PID "$limit" &
	dog=$!
	wait $TEST_PID 2>/dev/null || rc=$?
	TEST_PID=
	# SIGKILL: a watchdog just forked may still hold the runner's traps.
	# Its sleep goes after it, so that it cannot wake the watchdog.
	sl=$(pgrep -P "$dog")
	kill -KILL "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	[ -z "$sl" ] || kill $sl 2>/dev/null
	return $rc
}
# hung WHAT SECONDS: what the watchdog recorded, if it stopped WHAT
hung() {
	[ ! -e "$RUNTMP/hung" ] ||
		printf '%s: ran past %s s; its processes then:\n%s\n' "$1" "$2" "$(cat "$RUNTMP/hung")"
}
# a test in the subshell of bounded
test_body() {
	TEST=$1 TMP=$RUNTMP/$1
	test_names "$1"
	"test_$1"
	[ -e "$RUNTMP/status" ] || echo 0 > "$RUNTMP/status"
}
# run_test NAME: test_NAME in a subshell, then its deferred cleanup. What
# the test prints on standard error becomes KTAP diagnostics.
run_test() {
	local name=$1 rc=0 t0=${EPOCHREALTIME/./} cleanup_hung n0=$ntests
	echo "# test_$name"
	rm -f "$RUNTMP/status" "$RUNTMP/abort"
	: > "$RUNTMP/defer"
	: > "$DS_LAB_TIMES"
	mkdir -p "$RUNTMP/$name"
	count_save
	# appended to: what py's children write there (through /proc/PID/fd,
	# in append mode) and the shell's own lines then keep their order
	: > "$RUNTMP/stderr"
	bounded "$(test_limit)" test_body "$name" 2>> "$RUNTMP/stderr" || rc=$?
	hung "test_$name" "$(test_limit)" > "$RUNTMP/hung.test"
	[ ! -s "$RUNTMP/hung.test" ] || cp "$RUNTMP/hung.test" "$RUNTMP/abort"
	sed 's/^/# /' "$RUNTMP/stderr"	# diagnostics, after the results
	read -r ntests nfail nskip < "$RUNTMP/count"
	bounded "$(cleanup_limit)" run_deferred
	cleanup_hung=$(hung "test_$name: cleanup" "$(cleanup_limit)")
	[ -z "$cleanup_hung" ] || fail "test_$name: its cleanup hung" "$cleanup_hung"
	if [ ! -e "$RUNTMP/status" ]; then
		fail "test_$name: stopped midway (exit $rc)" \
			"$(cat "$RUNTMP/abort" 2>/dev/null || echo "a command failed: see above")"
	elif [ "$(cat "$RUNTMP/status")" = $KSFT_SKIP ]; then
		missing=1
	elif [ "$ntests" -eq "$n0" ]; then
		# a test that checked nothing has not passed
		fail "test_$name: reported no result"
	fi
	if [ -d /sys/module/dropscope ]; then
		fail "test_$name: cleanup leaves dropscope loaded"
		rmmod dropscope
	fi
	t0=$(((${EPOCHREALTIME/./} - t0) / 100000))	# tenths of a second
	echo "# test_$name took $((t0 / 10)).$((t0 % 10)) s"
	echo "# test_$name time: $(times_of)"
}

pyd_start || { echo "Bail out! tests/lab/pyd.py did not start"; exit 1; }

# The functions where the running kernel drops a datagram to a closed UDP
# port (IPv4 and IPv6) and a SYN to a closed TCP port, found by tracefs
# (tests/lab/dropsite): kernels rename and inline them, so no test names
# them.
UDP_SITE=$(tests/lab/dropsite udp 127.0.0.1 $UDP_CLOSED) &&
	UDP6_SITE=$(tests/lab/dropsite udp ::1 $UDP_CLOSED) &&
	TCP_SITE=$(tests/lab/dropsite tcp 127.0.0.1 $TCP_CLOSED) ||
	{ echo "Bail out! the UDP and TCP drop sites of this kernel were not found"; exit 1; }
echo "KTAP version 1"
echo "# kernel $(uname -r), $(nproc) CPUs"
echo "# closed-port drops: UDP in $UDP_SITE, UDPv6 in $UDP6_SITE, TCP in $TCP_SITE"
echo "# tests: ${#selected[@]}"
for name in "${selected[@]}"; do
	run_test "$name"
done
echo "1..$ntests"
echo "# $((ntests - nfail - nskip)) passed, $nfail failed, $nskip skipped"
[ $nfail -eq 0 ] || exit 1
[ $missing -eq 0 ] || exit $KSFT_SKIP
exit 0
