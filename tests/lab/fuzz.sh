# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The netlink fuzzer (tests/fuzz/nlfuzz.c): a test function sourced by
# tests/lab/run.sh, which runs it (its helpers, KTAP results, per-test
# names and cleanup).
#
# make check runs a short fuzz: FUZZ_N messages (default 7000) from seed
# FUZZ_SEED (default: the kernel release's cksum, so that each kernel of
# make check fuzzes with messages of its own; the result names the seed
# to run again). The full run is
#   FUZZ_N=100000 tests/lab/run.sh -t fuzz_netlink

FUZZ=tests/fuzz/bin/nlfuzz

# Generated and mutated requests while monitoring runs, drops flow and a
# watcher listens: every refused request leaves the configuration as it
# was (the fuzzer reads it back after each), and afterwards the module
# still counts exactly and the kernel logged no warning.
test_fuzz_netlink() {
	local n=${FUZZ_N:-7000} s=${FUZZ_SEED:-$(uname -r | cksum | cut -d' ' -f1)}
	local gen_pid out rc
	[ -x $FUZZ ] || abort "$FUZZ is not built (make testbins)"
	setup_module
	dmesg -C
	$DS set interval 50ms
	$DS start
	watch_start fuzz.watch || fail "fuzz: watcher ready"
	# one CPU drops, the fuzzer has the other
	# 5000 a second: drops flow, and the watcher has CPU left on a slow kernel
	$BIN/dropgen -c 0 -r 5000 -d 36000000 udp 4000000000 $UDP_CLOSED > /dev/null &
	gen_pid=$!
	defer kill_tree $gen_pid
	out=$($FUZZ -s "$s" -n "$n" 2>&1)
	rc=$?
	echo "$out" >&2
	if [ $rc -eq 0 ]; then
		ok "fuzz: $n messages (seed $s), every refused one left the configuration unchanged"
	else
		fail "fuzz: $n messages (seed $s)" "nlfuzz exited $rc, see below"
	fi
	# The check itself: a change after a refused request is reported
	out=$($FUZZ -s "$s" -n 1000 -T 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && [[ $out == *"changed the configuration"* ]]; then
		ok "fuzz: the check reports a changed configuration (nlfuzz -T)"
	else
		fail "fuzz: the check reports a changed configuration (nlfuzz -T)" \
			"exit $rc: $(echo "$out" | head -n 3)"
	fi
	# shellcheck disable=SC2154 # watch_start sets watcher
	if kill -0 "$watcher" 2>/dev/null; then ok "fuzz: the watcher listened throughout"
	else fail "fuzz: the watcher listened throughout" "$(cat "$TMP/fuzz.watch.err")"; fi
	kill_tree $gen_pid
	wait $gen_pid 2>/dev/null

	# Exact counting afterwards: no rule left, a known number of drops
	# against the hist trigger and Udp NoPorts.
	nlraw $((13)) > /dev/null	# DROPSCOPE_CMD_RULE_CLEAR
	count_exactly "fuzz: afterwards"
	if dmesg | grep -E "WARNING|BUG|sleeping function|KASAN|UBSAN|Oops|refcount|leak" > "$TMP/dmesg.bad"; then
		fail "fuzz: no warning in dmesg" "$(cat "$TMP/dmesg.bad")"
	else
		ok "fuzz: no warning in dmesg"
	fi
}
