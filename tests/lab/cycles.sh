# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Load and unload under load, unload in the middle of a dump, four CLIs at
# once, and who may do what: test functions sourced by tests/lab/run.sh,
# which runs them (its helpers, KTAP results, per-test names and cleanup).
#
# make check runs CYCLES load/unload cycles (default 5); make check-debug
# runs 100. CLI_ROUNDS (default 4) is the rounds of commands each of the
# four CLIs runs.

# What the kernel logs when something went wrong in it
DMESG_BAD="WARNING:|BUG:|Oops|refcount|sleeping function|lockdep|KASAN|UBSAN"
DMESG_BAD="$DMESG_BAD|kmemleak|circular locking|INFO: task|rcu.*stall"
# dmesg_clean NAME: the check NAME, that the kernel log has none of them
dmesg_clean() {
	if dmesg | grep -E "$DMESG_BAD" > "$TMP/dmesg.bad"; then
		fail "$1" "$(cat "$TMP/dmesg.bad")"
	else
		ok "$1"
	fi
}
DMESG_BAD="$DMESG_BAD|general protection|use-after-free|list_(add|del) corruption"

# dmesg_mark: the number of lines in the kernel log now
dmesg_mark() { dmesg | wc -l; }
# dmesg_bad MARK: the bad lines logged since MARK; 1 if none
dmesg_bad() { dmesg | tail -n +$(($1 + 1)) | grep -E "$DMESG_BAD"; }

# usecs: the time now in microseconds, without a fork
usecs() { local t=${EPOCHREALTIME/./}; echo $((10#$t)); }
# phase NAME: the time since the cycle began, for the log. A cycle runs
# under load on a slow kernel (the debug kernel under TCG), where every
# fork costs: no command here forks but those the cycle is about.
phase() {
	local d=$(($(usecs) - t0))
	printf '%s %d.%d s, ' "$1" $((d / 1000000)) $((d / 100000 % 10)) >> "$TMP/phases"
}

# kmsg_new: the kernel log's records since the last call, from $TMP/kmsg
# (a reader of /dev/kmsg that test_cycles starts): from one call to the
# next, every record is seen once, between the cycles too. A marker
# written to the log first, and waited for in the reader's file, says the
# reader has read up to now; if it does not come, a KMSG_UNSYNCED line
# says so.
KMSG_SEEN=0 KMSG_SYNC=0
kmsg_new() {
	local size
	KMSG_SYNC=$((KMSG_SYNC + 1))
	echo "dropscope-lab: sync $KMSG_SYNC" > /dev/kmsg
	wait_for 10 grep -q "dropscope-lab: sync $KMSG_SYNC\$" "$TMP/kmsg" ||
		echo "KMSG_UNSYNCED: the reader did not read the marker in 10 s"
	size=$(stat -c %s "$TMP/kmsg")
	tail -c +$((KMSG_SEEN + 1)) "$TMP/kmsg" | head -c $((size - KMSG_SEEN))
	KMSG_SEEN=$size
}

# kmsg_alive: the reader of /dev/kmsg runs (not gone, not a zombie)
kmsg_alive() {
	local st
	read -r _ _ st _ 2> /dev/null < "/proc/$KMSG_READER/stat" && [ "$st" != Z ]
}

# load_cycle I: one cycle under the load the caller made: insmod, start,
# a watcher, rules and the interval changing, then rmmod at a random
# moment. Appends what went wrong to $TMP/cycles.bad.
load_cycle() {
	local i=$1 watcher changer wargs rc t0 pause
	t0=$(usecs)
	insmod "$KO" || { echo "cycle $i: insmod failed" >> "$TMP/cycles.bad"; return; }
	phase "insmod"
	printf 'set interval 10ms\nstart\n' > "$TMP/cycle.batch"
	$DS -f "$TMP/cycle.batch" > /dev/null ||
		echo "cycle $i: set interval or start failed" >> "$TMP/cycles.bad"
	phase "start"
	# drops and TCP closes, by turns
	wargs=watch
	[ $((i % 2)) = 0 ] || wargs="watch sessions"
	# shellcheck disable=SC2086 # two words
	$DS -j $wargs > "$TMP/cycle.out" 2> "$TMP/cycle.err" &
	watcher=$!
	wait_for 60 grep -q "$WATCH_READY" "$TMP/cycle.err" ||
		echo "cycle $i: the watcher did not start in 60 s: $(cat "$TMP/cycle.err")" >> "$TMP/cycles.bad"
	phase "watcher ready"
	# rules and the interval change until the module is gone
	(
		n=0
		while [ -d /sys/module/dropscope ]; do
			id=$($DS -j rule mask l4 $((100 + n % 100)) 2> /dev/null |
				sed -n 's/.*"id": *\([0-9]*\).*/\1/p')
			$DS set interval $((10 + n % 5 * 10))ms 2> /dev/null
			[ -z "$id" ] || $DS rule del "$id" 2> /dev/null
			n=$((n + 1))
		done
	) &
	changer=$!
	pause=$((20 + RANDOM % 100))
	sleep "$((pause / 100)).$((pause / 10 % 10))$((pause % 10))"
	phase "changes"
	if ! rmmod dropscope 2> "$TMP/rmmod.err"; then
		echo "cycle $i: rmmod failed: $(cat "$TMP/rmmod.err")" >> "$TMP/cycles.bad"
		wait_for 10 rmmod dropscope 2> /dev/null
	fi
	phase "rmmod"
	# the changer ends by itself once the module is gone: at once, here
	kill_tree $changer
	[ ! -d /sys/module/dropscope ] ||
		echo "cycle $i: the module is still there" >> "$TMP/cycles.bad"
	if ! wait_for 30 sh -c "! kill -0 $watcher 2>/dev/null"; then
		echo "cycle $i: the watcher ($wargs) did not end in 30 s: $(grep -E '^(State|voluntary)' /proc/$watcher/status | tr '\n\t' '  ') wchan $(cat /proc/$watcher/wchan) its netlink receive queue $(awk -v w=$watcher 'NR > 1 && $3 % 4194304 == w {printf "%s ", $5}' /proc/net/netlink)bytes, $(wc -l < "$TMP/cycle.out") lines out" >> "$TMP/cycles.bad"
		kill $watcher
	fi
	wait $watcher
	rc=$?
	phase "watcher ended"
	[ $rc = 3 ] && grep -q "dropscope.ko was unloaded" "$TMP/cycle.err" ||
		echo "cycle $i: the watcher ($wargs) ended with $rc: $(cat "$TMP/cycle.err")" >> "$TMP/cycles.bad"
	wait $changer
	phase "changer ended"
	# the family is gone with the module (once, after the cycle)
	grep -qw '^dropscope' /proc/modules &&
		echo "cycle $i: dropscope is still in /proc/modules" >> "$TMP/cycles.bad"
	kmsg_new > "$TMP/kmsg.cycle"
	grep -E "$DMESG_BAD" "$TMP/kmsg.cycle" |
		sed "s/^/cycle $i: dmesg: /" >> "$TMP/cycles.bad"
	# a log read whole, or the cycle is not judged
	! grep -q '^KMSG_OVERRUN' "$TMP/kmsg.cycle" ||
		echo "cycle $i: the kernel log overran its reader: records were lost" >> "$TMP/cycles.bad"
	! grep -q '^KMSG_UNSYNCED' "$TMP/kmsg.cycle" ||
		echo "cycle $i: the kernel log reader did not read up to the cycle's end" >> "$TMP/cycles.bad"
	kmsg_alive ||
		echo "cycle $i: the kernel log reader is gone" >> "$TMP/cycles.bad"
}

# insmod, start, a watcher, rules and the interval changing while two CPUs
# drop and TCP sessions churn; rmmod at a random moment. Every rmmod
# succeeds, the watcher sees the family go, the kernel logs no warning,
# and afterwards the module still counts exactly.
test_cycles() {
	local n=${CYCLES:-5} i d0 d1 churn t0 bad nbad=0
	need taskset
	if [ "$(nproc)" -lt 2 ]; then
		skip "cycles: under load on two CPUs" "one CPU only"
		return
	fi
	: > "$TMP/cycles.bad"
	# the kernel log from here on, as it comes (dmesg reads it whole)
	python3 -u -c '
import os, sys
fd = os.open("/dev/kmsg", os.O_RDONLY)
os.lseek(fd, 0, os.SEEK_END)
out = open(sys.argv[1], "ab", buffering=0)
print("following", flush=True)
while True:
    try:
        out.write(os.read(fd, 8192))
    except BrokenPipeError:
        # records lost to an overrun: say so (the cycle fails), and go on
        # from the oldest left
        out.write(b"KMSG_OVERRUN\n")
' "$TMP/kmsg" > "$TMP/kmsg.ready" &
	KMSG_READER=$!
	defer kill_quiet $KMSG_READER
	wait_for 60 grep -q following "$TMP/kmsg.ready" || abort "no /dev/kmsg reader"
	# 2000 drops a second on each CPU, a session every 2 ms or so, for 6
	# hours at most: longer than any run (100 cycles took 63 min on the
	# debug kernel), so that the load lasts to the last cycle
	taskset -c 0 $BIN/dropgen -r 2000 -d 21600000 udp 4000000000 $UDP_CLOSED > /dev/null &
	d0=$!
	defer kill_quiet $d0
	taskset -c 1 $BIN/dropgen -r 2000 -d 21600000 udp 4000000000 $UDP_CLOSED > /dev/null &
	d1=$!
	defer kill_quiet $d1
	$BIN/tcpgen churn 21600 5031 2000 > /dev/null 2>&1 &
	churn=$!
	defer kill_quiet $churn
	t0=$SECONDS
	for i in $(seq 1 "$n"); do
		load_cycle "$i"
		echo "# cycle $i: $(cat "$TMP/phases")problems: $(tail -n +$((nbad + 1)) "$TMP/cycles.bad" | tr '\n' ' ')"
		: > "$TMP/phases"
		nbad=$(wc -l < "$TMP/cycles.bad")
		[ -d /sys/module/dropscope ] && rmmod dropscope
	done
	echo "$n cycles in $((SECONDS - t0)) s" >&2
	kill $d0 $d1 $churn
	wait $d0 $d1 $churn 2> /dev/null
	if [ -s "$TMP/cycles.bad" ]; then
		mapfile -t bad < <(head -n 20 "$TMP/cycles.bad")
		fail "cycles: $n load/unload cycles under load: rmmod, watcher, dmesg" "${bad[@]}"
	else
		ok "cycles: $n load/unload cycles under load: every rmmod succeeded, every watcher saw the unload (exit 3), no warning"
	fi
	setup_module
	count_exactly "cycles: afterwards"
}

# rmmod while a dump is open: the dump holds the module, so rmmod is
# refused (in use) and the module works on; once the reader finishes the
# dump, or closes its socket, rmmod succeeds
test_unload_dump() {
	local i reader mark holder
	mark=$(dmesg_mark)
	setup_module
	for i in $(seq 1 1000); do echo "rule mask l4 $((i % 250 + 1))"; done > "$TMP/rules.batch"
	$DS -f "$TMP/rules.batch" > /dev/null || abort "adding 1000 rules failed"
	# the rules dump, read to its end after the refused rmmod
	python3 tests/lab/nlraw.py slowdump 12 read "$TMP/go1" > "$TMP/dump1.out" &
	reader=$!
	defer kill_quiet $reader
	wait_for 30 grep -q first "$TMP/dump1.out" || abort "no first part of the dump"
	check "dump open: the module is held once" 1 "$(cat /sys/module/dropscope/refcnt)"
	rmmod dropscope 2> "$TMP/rmmod1.err"
	check "dump open: rmmod refused, module in use" "1 1 1" \
		"$? $(grep -c "in use" "$TMP/rmmod1.err") $(test -d /sys/module/dropscope && echo 1)"
	check "dump open: the module still answers" 1000 "$($DS -j status | json "d['rules']")"
	touch "$TMP/go1"
	wait $reader
	check "dump open: the reader reads the dump to its end" "0 done 1000" \
		"$? $(tail -n 1 "$TMP/dump1.out")"
	check "dump done: the module is not held" 0 "$(cat /sys/module/dropscope/refcnt)"
	if unload; then ok "dump done: rmmod succeeds"; else fail "dump done: rmmod succeeds"; fi

	# the sessions dump, left unread: closing the socket lets rmmod go
	setup_module
	$DS start tcp
	hold 100 5033 hold.txt
	python3 tests/lab/nlraw.py slowdump 14 close "$TMP/go2" > "$TMP/dump2.out" &
	reader=$!
	defer kill_quiet $reader
	wait_for 30 grep -q first "$TMP/dump2.out" || abort "no first part of the dump"
	rmmod dropscope 2> "$TMP/rmmod2.err"
	check "sessions dump open: rmmod refused, module in use" "1 1" \
		"$? $(grep -c "in use" "$TMP/rmmod2.err")"
	touch "$TMP/go2"
	wait $reader
	check "sessions dump: the reader closes it" "0 closed" "$? $(tail -n 1 "$TMP/dump2.out")"
	if wait_for 10 rmmod dropscope; then ok "sessions dump closed: rmmod succeeds"
	else fail "sessions dump closed: rmmod succeeds" "refcnt $(cat /sys/module/dropscope/refcnt)"; fi
	kill $holder
	wait $holder
	if dmesg_bad "$mark" > "$TMP/dmesg.bad"; then
		fail "unload during dumps: no warning in dmesg" "$(cat "$TMP/dmesg.bad")"
	else
		ok "unload during dumps: no warning in dmesg"
	fi
}

# cli_worker I ROUNDS: CLI number I runs ROUNDS rounds of every kind of
# command; each owns its rules (l4 120 + 30 * I + round). Round r adds
# one rule and, when r is even, deletes the one of round r - 1. Writes
# "cmds N" and the rules it holds to $TMP/cli.I, what went wrong to
# $TMP/cli.I.bad.
cli_worker() {
	local i=$1 rounds=$2 r out rc id prev="" n=0
	: > "$TMP/cli.$i.bad"
	: > "$TMP/cli.$i.rules"
	cli() { # cli OK_ERROR ARGS...: exit 0, or 1 with that error
		local okerr=$1
		shift
		n=$((n + 1))
		out=$($DS "$@" 2>&1 > "$TMP/cli.$i.out")
		rc=$?
		[ $rc = 0 ] && return 0
		[ $rc = 1 ] && [ -n "$okerr" ] && [[ $out == *"$okerr"* ]] && return 0
		echo "cli $i: '$*' exit $rc: $out" >> "$TMP/cli.$i.bad"
	}
	for r in $(seq 1 "$rounds"); do
		cli "already running" start
		cli "" -j rule mask l4 $((120 + 30 * i + r))
		id=$(sed -n 's/.*"id": *\([0-9]*\).*/\1/p' "$TMP/cli.$i.out")
		echo "$id $((120 + 30 * i + r))" >> "$TMP/cli.$i.rules"
		cli "" show sites
		cli "" set interval $((100 * (i + 1) + r))ms
		cli "" show reasons
		cli "" status
		cli "" show sessions all
		cli "not running" stop
		cli "" show stats
		cli "" show rules
		if [ $((r % 2)) = 0 ]; then
			cli "" rule del "$prev"
			grep -v "^$prev " "$TMP/cli.$i.rules" > "$TMP/cli.$i.keep"
			mv "$TMP/cli.$i.keep" "$TMP/cli.$i.rules"
		fi
		prev=$id
	done
	echo "cmds $n" > "$TMP/cli.$i"
}

# four CLIs at once: every command succeeds or is refused with its
# documented error, and the state read back afterwards is the one they
# left: their rules, the last interval one of them set, stopped
test_four_clis() {
	local rounds=${CLI_ROUNDS:-4} i pids=() cmds=0 mark want got t0 bad
	mark=$(dmesg_mark)
	setup_module
	t0=$SECONDS
	for i in 0 1 2 3; do
		cli_worker $i "$rounds" &
		pids+=($!)
		defer kill_quiet $!
	done
	wait "${pids[@]}"
	for i in 0 1 2 3; do
		cmds=$((cmds + $(awk '{print $2}' "$TMP/cli.$i")))
	done
	echo "4 CLIs, $cmds commands in $((SECONDS - t0)) s" >&2
	cat "$TMP"/cli.?.bad > "$TMP/clis.bad"
	if [ -s "$TMP/clis.bad" ]; then
		mapfile -t bad < <(head -n 20 "$TMP/clis.bad")
		fail "four CLIs: $cmds commands, each succeeded or was refused as documented" \
			"${bad[@]}"
	else
		ok "four CLIs: $cmds commands, each succeeded or was refused as documented"
	fi
	# the rule ids and fields each CLI holds, and nothing else
	want=$(sort -n "$TMP"/cli.?.rules | xargs)
	got=$($DS -j show rules | json "' '.join('%d %d' % (r['id'], int(r['l4'], 0)) for r in sorted(d, key=lambda r: r['id']))")
	check "four CLIs: the rules left are those added and not deleted ($((rounds / 2 * 4 + rounds % 2 * 4)))" \
		"$want" "$got"
	want=$(seq 0 3 | while read -r i; do echo $((100 * (i + 1) + rounds)); done | tr '\n' ' ')
	got=$($DS -j status | json "'%s %d' % (d['running'], d['interval_ms'])")
	if [ "${got%% *}" = False ] && [[ " $want" == *" ${got#* } "* ]]; then
		ok "four CLIs: stopped, the interval the last of their last sets ($got)"
	else
		fail "four CLIs: stopped, the interval the last of their last sets" \
			"want False and one of: $want" "got: $got"
	fi
	if dmesg_bad "$mark" > "$TMP/dmesg.bad"; then
		fail "four CLIs: no warning in dmesg" "$(cat "$TMP/dmesg.bad")"
	else
		ok "four CLIs: no warning in dmesg"
	fi
	count_exactly "four CLIs: afterwards"
}

# Who may use the family. Every command and the alert group need
# CAP_NET_ADMIN in the initial user namespace, and the family exists in
# the initial network namespace only.
#   cmds_as WRAPPER...: nlpoke every command (dumps as dumps) and the
#   group join under WRAPPER; prints the errno names
ALL_CMDS="1 2 3 4 d5 d6 7 8 9 10 11 d12 13 d14 d15 join"
cmds_as() {
	local cmd out
	for cmd in $ALL_CMDS; do
		case $cmd in
		4) out=$("$@" $BIN/nlpoke 4 u32:3=100 2>&1) ;;
		10) out=$("$@" $BIN/nlpoke 10 nest:14= u8:10=6 end:0= 2>&1) ;;
		11) out=$("$@" $BIN/nlpoke 11 nest:14= u32:2=1 end:0= 2>&1) ;;
		*) out=$("$@" $BIN/nlpoke $cmd 2>&1) ;;
		esac
		echo "$out" | cut -d: -f1 | sed 's/^error //'
	done | tr '\n' ' '
}
# config_all: what the module's configuration reads back as, by root, and
# the count of the UDP drops the test made (other drops may come and go)
config_all() {
	$DS -j status
	$DS -j show rules
	$DS -j show sites layer kernel | $KC sum /dev/stdin NO_SOCKET ${UDP_SITE}
}
test_privileges() {
	local cfg want_perm ids netns initns
	need setpriv unshare
	setup_module
	$DS set interval 300ms
	$DS -j rule mask l4 200 > /dev/null
	# as root, to show every request is well formed and would be taken
	check "root: every command and the group join accepted" \
		"ok ok ok ok ok ok ok ok EOPNOTSUPP ok ok ok ok ok ok ok " "$(cmds_as env)"
	$DS set interval 300ms
	$DS -j rule mask l4 200 > /dev/null
	$DS start
	gen udp 7 $UDP_CLOSED
	cfg=$(config_all)
	want_perm="EPERM EPERM EPERM EPERM EPERM EPERM EPERM EPERM EOPNOTSUPP EPERM EPERM EPERM EPERM EPERM EPERM EPERM "
	check "without CAP_NET_ADMIN (nobody): every command and the join refused with EPERM" \
		"$want_perm" "$(cmds_as nobody)"
	check "without CAP_NET_ADMIN: nothing changed" "$cfg" "$(config_all)"
	nobody $DS status > /dev/null 2> "$TMP/perm.err"
	check "unprivileged CLI: exit 4 and says what to do" "4 1" \
		"$? $(grep -c 'needs CAP_NET_ADMIN' "$TMP/perm.err")"
	check "root without CAP_NET_ADMIN (setpriv): every command and the join refused with EPERM" \
		"$want_perm" "$(cmds_as setpriv --inh-caps=-net_admin --bounding-set=-net_admin)"
	check "root without CAP_NET_ADMIN: nothing changed" "$cfg" "$(config_all)"
	check "CAP_NET_ADMIN in an own user namespace only (unshare -Ur): EPERM" \
		"$want_perm" "$(cmds_as unshare -Ur)"
	check "own user namespace: nothing changed" "$cfg" "$(config_all)"
	# In a network namespace of its own, the family does not exist: its id,
	# learnt as root, reaches nothing. Joining the group by its id is
	# the core's to allow (the netns is the process's own), but alerts go
	# to the initial namespace only: none arrives there, while TCP drops
	# make alerts that a listener in the initial namespace gets.
	ids=$(python3 tests/lab/nlraw.py ids)
	# shellcheck disable=SC2086 # two ids
	unshare -Urn python3 tests/lab/nlraw.py poke $ids ${ALL_CMDS% join} join > "$TMP/netns.out" &
	netns=$!
	# shellcheck disable=SC2086
	python3 tests/lab/nlraw.py poke $ids join > "$TMP/initns.out" &
	initns=$!
	while kill -0 $netns 2> /dev/null || kill -0 $initns 2> /dev/null; do
		gen tcp 2 $TCP_CLOSED
		sleep 0.3
	done
	wait $netns $initns
	echo "initial namespace listener: $(cat "$TMP/initns.out")" >&2
	if [ "$(cat "$TMP/initns.out")" = joined:0 ]; then
		fail "own network namespace: no alert, where one in the initial namespace gets them" \
			"the listener in the initial namespace got none: the check proves nothing"
	else
		check "own user and network namespace (unshare -Urn), by family id: ENOENT, and no alert reaches it" \
			"ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT ENOENT joined:0" \
			"$(cat "$TMP/netns.out")"
	fi
	unshare -Urn $DS status > /dev/null 2> "$TMP/netns.err"
	check "own network namespace: the CLI says so (exit 3)" "3 1" \
		"$? $(grep -c "initial network namespace" "$TMP/netns.err")"
	check "own network namespace: nothing changed" "$cfg" "$(config_all)"
}
