# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Hardware and device drops (sourced by run.sh): devlink traps of
# netdevsim against `devlink -s trap show`, and device counters against
# `ip -s -s link`.

# nsim_setup: psample and netdevsim (built for this kernel by
# scripts/netdevsim, or the kernel's own), one device of one port; sets
# NSIM_DL (its devlink handle) and NSIM_IF (its port's netdev), down.
nsim_setup() {
	local id=$((1000 + $$ % 1000)) ko=build/netdevsim/$KVER/netdevsim.ko dir
	need devlink
	modprobe psample || abort "modprobe psample failed"
	if [ ! -d /sys/bus/netdevsim ]; then
		if ! modprobe netdevsim 2>/dev/null; then
			[ -f "$ko" ] || { skip "test_$TEST" "no netdevsim for $KVER: run scripts/netdevsim $KVER on the host"
				echo "$KSFT_SKIP" > "$RUNTMP/status"; exit 0; }
			insmod "$ko" || abort "insmod $ko failed"
		fi
		defer rmmod netdevsim
	fi
	echo "$id 1" > /sys/bus/netdevsim/new_device || abort "netdevsim: new_device refused"
	defer nsim_del "$id"
	NSIM_DL=netdevsim/netdevsim$id
	dir=/sys/bus/netdevsim/devices/netdevsim$id/net
	wait_for 10 nsim_has_netdev "$dir" || abort "netdevsim$id has no netdev"
	NSIM_IF=$(ls "$dir")
	ip link set "$NSIM_IF" down
}
nsim_del() { echo "$1" > /sys/bus/netdevsim/del_device; }
nsim_has_netdev() { [ -n "$(ls "$1" 2>/dev/null)" ]; }

# nsim_counts FILE: "TRAP TYPE PACKETS" per drop or exception trap of the
# device, as devlink -s trap show counts them
nsim_counts() {
	devlink -s -j trap show "$NSIM_DL" |
		py -c "import json,sys
for t in json.load(sys.stdin)['trap']['$NSIM_DL']:
    if t['type'] != 'control':
        print(t['name'], t['type'], t['stats']['rx']['packets'])" > "$1"
}

# Every trap report of netdevsim, counted per trap, equals what devlink
# counted in the same window: the window is the port's time up, since
# netdevsim reports only for running ports. Control traps are not drops.
test_hw_traps() {
	local t
	setup_module
	nsim_setup
	# two drop traps trapped too (the exceptions trap by default)
	for t in blackhole_route source_mac_is_multicast; do
		devlink trap set "$NSIM_DL" trap "$t" action trap ||
			abort "devlink trap set $t failed"
	done
	$DS start hw
	nsim_counts "$TMP/before"
	ip link set "$NSIM_IF" up
	sleep 1
	ip link set "$NSIM_IF" down
	# a report under way when the port went down ends within its 100 ms
	sleep 0.3
	nsim_counts "$TMP/after"
	py -c "import sys
b = {l.split()[0]: int(l.split()[2]) for l in open('$TMP/before')}
for l in open('$TMP/after'):
    n, ty, p = l.split()
    if int(p) - b[n]:
        print(n, ty, int(p) - b[n])" | sort > "$TMP/want"
	$DS -j show sites layer hw | json "'\n'.join('%s %s %d' % (s['trap'], s['type'], s['count']) for s in d if s['device'] == '$NSIM_DL')" |
		sort > "$TMP/got"
	check "hw: traps seen" 4 "$(wc -l < "$TMP/want")"
	check "hw: each trap's count equals devlink -s trap show's" \
		"$(cat "$TMP/want")" "$(cat "$TMP/got")"
	check "hw: no control trap, and each on the port's device" \
		"$(wc -l < "$TMP/want") $NSIM_IF" \
		"$($DS -j show sites layer hw | json "'%d %s' % (len(d), ' '.join(sorted({s.get('dev', '') for s in d})))")"
	check "hw: show stats counts the reports" \
		"$(awk '{ n += $3 } END { print n }' "$TMP/want")" "$(stat_of trap_events)"
}

# dev_counter DEV COUNTER: the counter of rtnl_link_stats64, as ip -s -s
# -j link shows it
dev_counter() {
	ip -s -s -j link show dev "$1" |
		json "(lambda s: {'rx_dropped': s['rx']['dropped'], 'tx_dropped': s['tx']['dropped']}['$2'])(d[0]['stats64'])"
}

# A veth whose peer is down drops what it sends (tx_dropped), and the
# peer counts it as dropped on receive (rx_dropped): the counts since
# start equal ip -s -s link's deltas, and no other counter of theirs moved.
test_dev_counters() {
	local a=x$$ b=y$$ tx0 rx0
	setup_module
	ip link add "$a" type veth peer name "$b" || abort "no veth pair"
	defer ip link del "$a"
	sysctl -qw "net.ipv6.conf.$a.disable_ipv6=1" "net.ipv6.conf.$b.disable_ipv6=1"
	ip link set "$a" up
	tx0=$(dev_counter "$a" tx_dropped)
	rx0=$(dev_counter "$b" rx_dropped)
	$DS start dev
	py -c "import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(('$a', 0))
for i in range(37):
    s.send(b'\xff' * 6 + b'\x02' + b'\x00' * 5 + b'\x88\xb5' + b'\x00' * 50)"
	check "dev: tx_dropped of the sender and rx_dropped of the peer equal ip -s -s link's deltas" \
		"$(($(dev_counter "$a" tx_dropped) - tx0)) $(($(dev_counter "$b" rx_dropped) - rx0))" \
		"$($DS -j show sites layer dev | json "'%d %d' % (sum(s['count'] for s in d if s['dev'] == '$a' and s['counter'] == 'tx_dropped'), sum(s['count'] for s in d if s['dev'] == '$b' and s['counter'] == 'rx_dropped'))")"
	check "dev: 37 sent, 37 dropped" 37 "$(($(dev_counter "$a" tx_dropped) - tx0))"
	check "dev: no other counter of the pair moved" "rx_dropped tx_dropped" \
		"$($DS -j show sites layer dev | json "' '.join(sorted(s['counter'] for s in d if s['dev'] in ('$a', '$b')))")"
}
