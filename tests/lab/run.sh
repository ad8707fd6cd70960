#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dropscope lab tests: run inside the lab guest (scripts/lab), as root, from
# the project directory. Prints KTAP; exits 0 when every test passed, 4
# when a tool it needs is missing.
#
# Every count is checked exactly against the kernel's own: tracefs events
# of skb:kfree_skb, /proc/net/snmp, nftables counters.
set -u

cd "$(dirname "$0")/../.." || exit 1
KVER=${LAB_KERNEL:-$(uname -r)}
KO=build/kmod/$KVER/kmod/dropscope.ko
DS=user/dropscope
BIN=tests/lab/bin
KC=tests/lab/kcount.py
T=/sys/kernel/tracing
TMP=$(mktemp -d)
UDP_CLOSED=7
TCP_CLOSED=8
NF_PORT=9

for tool in python3 nft tmux setpriv insmod rmmod bpftrace ss tc taskset; do
	command -v $tool >/dev/null || { echo "# missing $tool"; exit 4; }
done
[ -f "$KO" ] || { echo "# no module built for $KVER: $KO"; exit 4; }

ntests=0 nfail=0
ok() { ntests=$((ntests + 1)); echo "ok $ntests $1"; }
fail() {
	ntests=$((ntests + 1)) nfail=$((nfail + 1))
	echo "not ok $ntests $1"
	shift
	for l in "$@"; do echo "# $l"; done
}
# check NAME EXPECTED ACTUAL: exact equality
check() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "expected: $2" "got: $3"; fi
}
# wait_for SECONDS COMMAND...: bounded poll, 50 ms steps
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.05
	done
}

cleanup() {
	tmux kill-server 2>/dev/null
	nft delete table inet dstest 2>/dev/null
	echo "!$HIST" > $T/events/skb/kfree_skb/trigger 2>/dev/null
	rmmod dropscope 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

load() { insmod "$KO" "$@"; }
unload() { rmmod dropscope; }

# The kernel's own count of every drop: a hist trigger on skb:kfree_skb
# keyed like dropscope, by location and reason.
HIST="hist:keys=location,reason:size=4096"
trace_on() { echo "$HIST" > $T/events/skb/kfree_skb/trigger; }
trace_off() {
	cat $T/events/skb/kfree_skb/hist > "$TMP/$1"
	echo "!$HIST" > $T/events/skb/kfree_skb/trigger
}

nft_drop() {
	nft -f - <<-NFT
	table inet dstest {
		chain input {
			type filter hook input priority 0;
			udp dport $NF_PORT counter drop
		}
	}
	NFT
}
nft_count() {
	nft list table inet dstest | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'
}

gen() { $BIN/dropgen "$@" >/dev/null; }

echo "KTAP version 1"
echo "# kernel $(uname -r), $(nproc) CPUs"

# --- load ------------------------------------------------------------
load && ok "insmod" || fail "insmod"
check "stopped after load" '{"running":false,"interval_ms":1000,"capacity":4096,"threshold":0,"top":0,"ratelimit":0,"rules":0}' \
	"$($DS -j status)"

# --- exact accounting against tracefs and snmp --------------------------
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
$DS -j show sites > "$TMP/acct.json"
out=$($KC same "$TMP/acct.hist" "$TMP/acct.json")
if [ $? -eq 0 ]; then ok "every site and reason equals tracefs ($out)"
else fail "every site and reason equals tracefs" "$out"; fi
check "UDP NO_SOCKET equals Udp NoPorts" \
	$(($($KC snmp Udp NoPorts) - udp0)) \
	"$($KC sum "$TMP/acct.json" NO_SOCKET __udp4_lib_rcv)"
check "TCP NO_SOCKET equals Tcp OutRsts" \
	$(($($KC snmp Tcp OutRsts) - rst0)) \
	"$($KC sum "$TMP/acct.json" NO_SOCKET tcp_v4_rcv)"
check "NETFILTER_DROP equals the nft counter" "$(nft_count)" \
	"$($KC sum "$TMP/acct.json" NETFILTER_DROP)"
check "the generated counts" "500 100 200" \
	"$($KC sum "$TMP/acct.json" NO_SOCKET __udp4_lib_rcv) $($KC sum "$TMP/acct.json" NO_SOCKET tcp_v4_rcv) $($KC sum "$TMP/acct.json" NETFILTER_DROP)"
events=$($DS -j show stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
check "stats events equal the sum of sites" "$($KC sum "$TMP/acct.json")" "$events"
$DS -j show reasons > "$TMP/reasons.json"
check "show reasons totals NO_SOCKET" \
	$(($($KC sum "$TMP/acct.json" NO_SOCKET))) \
	"$(python3 -c 'import json,sys; print(sum(r["count"] for r in json.load(open(sys.argv[1])) if r["reason"]=="NO_SOCKET"))' "$TMP/reasons.json")"
$DS -j show reasons all > "$TMP/all.json"
out=$($KC names $T/events/skb/kfree_skb/format "$TMP/all.json")
if [ $? -eq 0 ]; then ok "reason names and ids are the running kernel's ($out)"
else fail "reason names and ids are the running kernel's" "$out"; fi
nft delete table inet dstest

# --- two CPUs dropping at once -------------------------------------------
if [ "$(nproc)" -ge 2 ]; then
	udp0=$($KC snmp Udp NoPorts)
	$DS start
	$BIN/dropgen -P 2 udp 5000 $UDP_CLOSED > "$TMP/2cpu.out"
	$DS stop
	$DS -j show sites > "$TMP/2cpu.json"
	check "two CPUs: total equals Udp NoPorts" \
		"$(($($KC snmp Udp NoPorts) - udp0)) 10000" \
		"$($KC sum "$TMP/2cpu.json" NO_SOCKET __udp4_lib_rcv) $(awk '{n += $2} END {print n}' "$TMP/2cpu.out")"
	check "two CPUs: one site, merged across CPUs" 1 \
		"$(python3 -c 'import json,sys; print(sum(s["symbol"].startswith("__udp4_lib_rcv") for s in json.load(open(sys.argv[1]))))' "$TMP/2cpu.json")"
else
	ok "two CPUs # SKIP one CPU only"
fi

# --- overflow ----------------------------------------------------------------
unload
load capacity=1
nft_drop
trace_on
$DS start
gen -c 0 udp 300 $UDP_CLOSED
gen -c 0 tcp 50 $TCP_CLOSED
gen -c 0 udp 70 $NF_PORT
$DS stop
trace_off ovf.hist
$DS -j show sites > "$TMP/ovf.json"
$DS -j show stats > "$TMP/ovf.stats"
traced=$($KC hits "$TMP/ovf.hist")
read -r overflow events < <(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["overflow"], s["events"])' "$TMP/ovf.stats")
check "overflow: sites plus overflow equal tracefs" "$traced $traced" \
	"$(($($KC sum "$TMP/ovf.json") + overflow)) $events"
if [ "$overflow" -gt 0 ] && [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$TMP/ovf.json")" -le "$(nproc)" ]; then
	ok "overflow counted ($overflow drops did not fit one slot per CPU)"
else
	fail "overflow counted" "overflow=$overflow"
fi
nft delete table inet dstest
unload
load

# --- batching -----------------------------------------------------------------
$DS set interval 200ms
$DS start
$DS -j watch timeout 6s > "$TMP/watch.jsonl" 2> "$TMP/watch.err" &
watcher=$!
wait_for 10 grep -q "watching" "$TMP/watch.err" || fail "watcher ready"
read -r _ burst_ns < <($BIN/dropgen -d 2000 udp 100000000 $UDP_CLOSED | awk '{print $2, $4}')
wait $watcher
$DS stop
$DS -j show sites > "$TMP/batch.json"
read -r nrounds nends deltas < <($KC rounds "$TMP/watch.jsonl")
limit=$(( burst_ns / 200000000 + 1 + 1 ))
if [ "$nrounds" -ge 1 ] && [ "$nrounds" -le "$limit" ] && [ "$nrounds" = "$nends" ]; then
	ok "batching: $nrounds rounds for a $((burst_ns / 1000000)) ms burst at 200 ms (at most $limit)"
else
	fail "batching: rounds within T/I + 1" "rounds=$nrounds ends=$nends limit=$limit"
fi
check "batching: alert deltas add up to the total" "$($KC sum "$TMP/batch.json")" "$deltas"

# --- a listener that does not read: lost alerts are counted --------------------
$DS set interval 10ms
$DS start
$BIN/nlpoke stall 4 > "$TMP/stall.out" &
staller=$!
wait_for 10 grep -q joined "$TMP/stall.out"
$BIN/dropgen -d 2000 udp 100000000 $UDP_CLOSED > /dev/null
wait $staller
lost=$($DS -j show stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["alerts_lost"])')
if [ "$lost" -gt 0 ] && grep -q overrun "$TMP/stall.out"; then
	ok "a full listener: $lost alert messages counted as lost, the listener told"
else
	fail "a full listener: lost alerts counted" "alerts_lost=$lost" "$(cat "$TMP/stall.out")"
fi
$DS stop
$DS set interval 1s

# --- permissions --------------------------------------------------------------
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"; }
perm=""
for cmd in 1 2 3 4 d5 d6 7 8 join; do
	perm="$perm $(nobody $BIN/nlpoke $cmd u32:3=100 2>&1 | cut -d: -f1)"
done
check "unprivileged: every command and the group refused" \
	"$(printf ' error EPERM%.0s' 1 2 3 4 5 6 7 8 9)" "$perm"
nobody $DS status > /dev/null 2> "$TMP/perm.err"
check "unprivileged CLI: exit 4 and says what to do" "4 1" \
	"$? $(grep -c 'needs CAP_NET_ADMIN' "$TMP/perm.err")"

# --- bad input ----------------------------------------------------------------
$DS set interval 300ms
cfg=$($DS -j status)
bad() { # bad NAME EXPECTED_PATTERN NLPOKE_ARGS...
	local name=$1 want=$2 out
	shift 2
	out=$($BIN/nlpoke "$@")
	if [[ $out == $want ]] && [ "$($DS -j status)" = "$cfg" ]; then
		ok "bad input: $name ($out)"
	else
		fail "bad input: $name" "got: $out" "config: $($DS -j status)"
	fi
}
bad "unknown command" "error EOPNOTSUPP*" 99
bad "interval below range" "error ERANGE*range*" 4 u32:3=9
bad "interval above range" "error ERANGE*range*" 4 u32:3=60001
bad "interval of the wrong type" "error *: ?*" 4 u8:3=50
bad "unknown attribute" "error EINVAL*: ?*" 4 u32:40=50
bad "attribute of a read-only field" "error EINVAL*: ?*" 4 u32:4=5
bad "config set with nothing" "error EINVAL*no configuration attribute*" 4
bad "start with an attribute" "error EINVAL*: ?*" 1 u32:3=100
bad "stop while stopped" "error EALREADY*not running*" 2
# mask add (10), a rule nest (14) with mode (3), l3 (9) or l4 (10) 0
bad "rule on l4 0" "error EINVAL*l4: 0*cannot be matched*" 10 nest:14= u8:3=0 u8:10=0 end:0=
bad "rule on l3 0" "error EINVAL*l3: 0*cannot be matched*" 10 nest:14= u8:3=0 u16:9=0 end:0=
bad "rule nest with nothing to match" "error EINVAL*empty rule*" 10 nest:14= u8:3=0 end:0=
for args in "set interval 5ms" "set interval 61s" "set interval fast" \
	"show sites top 0" "show sites bogus" "bogus" "start now"; do
	# shellcheck disable=SC2086
	$DS $args > /dev/null 2>&1
	rc=$?
	check "CLI refuses '$args' (exit 2), config unchanged" "2 $cfg" "$rc $($DS -j status)"
done
printf 'status\nset interval 7\n' > "$TMP/bad.batch"
$DS -f "$TMP/bad.batch" > /dev/null 2> "$TMP/batch.err"
check "batch stops at the bad line and names it" "2 1" \
	"$? $(grep -c "bad.batch:2:" "$TMP/batch.err")"

# --- unload under load with a watcher ------------------------------------------
dmesg -C
$DS set interval 10ms
$DS start
$DS watch > /dev/null 2> "$TMP/unload.err" &
watcher=$!
wait_for 10 grep -q "watching" "$TMP/unload.err"
$BIN/dropgen -P "$(nproc)" -d 3000 udp 100000000 $UDP_CLOSED > /dev/null &
gen_pid=$!
sleep 1
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
load && $DS start && gen udp 10 $UDP_CLOSED && $DS stop &&
	check "reload works" 10 "$($DS -j show sites | $KC sum /dev/stdin)"

# --- the shell in a real terminal ---------------------------------------------
export TERM=xterm HOME=$TMP
pane() { tmux capture-pane -p -t ds; }
shows() { pane | grep -q -- "$1"; }
tmux new-session -d -s ds -x 100 -y 30 "$DS"
wait_for 10 shows "dropscope>" || fail "shell prompt" "$(pane)"
tmux send-keys -t ds "start" Enter
tmux send-keys -t ds "watch" Enter
wait_for 10 shows "watching drop alerts"
gen udp 20 $UDP_CLOSED
if wait_for 15 shows "drops  NO_SOCKET"; then ok "shell: watch shows drops"
else fail "shell: watch shows drops" "$(pane)"; fi
tmux send-keys -t ds q
if wait_for 10 shows "alert rounds"; then ok "shell: q ends watching"
else fail "shell: q ends watching" "$(pane)"; fi
tmux send-keys -t ds "sh" Tab
if wait_for 5 shows "dropscope> show$"; then
	ok "shell: Tab completes a command"
else
	fail "shell: Tab completes a command" "$(pane)"
fi
tmux send-keys -t ds "si" Tab Enter
if wait_for 10 shows "__udp4_lib_rcv"; then ok "shell: show sites after completion"
else fail "shell: show sites after completion" "$(pane)"; fi
tmux send-keys -t ds "quit" Enter
if wait_for 10 sh -c '! tmux has-session -t ds 2>/dev/null'; then ok "shell: quit leaves"
else fail "shell: quit leaves" "$(pane)"; fi

# shellcheck source=tests/lab/masks.sh
. tests/lab/masks.sh

# shellcheck source=tests/lab/sessions.sh
. tests/lab/sessions.sh

echo "1..$ntests"
echo "# $((ntests - nfail)) passed, $nfail failed"
[ $nfail -eq 0 ]
