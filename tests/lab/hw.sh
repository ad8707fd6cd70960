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
	# devlink 6.1 shows one device's traps only by name: all, then its own
	devlink -s -j trap show |
		py -c "import json,sys
for t in json.load(sys.stdin)['trap']['$NSIM_DL']:
    if t['type'] != 'control':
        print(t['name'], t['type'], t['stats']['rx']['packets'])" > "$1"
}

# nsim_deltas BEFORE AFTER: "TRAP TYPE PACKETS" of the traps that counted
nsim_deltas() {
	py -c "import sys
b = {l.split()[0]: int(l.split()[2]) for l in open('$1')}
for l in open('$2'):
    n, ty, p = l.split()
    if int(p) - b[n]:
        print(n, ty, int(p) - b[n])" | sort
}

# nsim_quiet: devlink's counts do not move across one of netdevsim's
# report periods (100 ms)
nsim_quiet() {
	nsim_counts "$TMP/q1"
	sleep 0.2
	nsim_counts "$TMP/q2"
	cmp -s "$TMP/q1" "$TMP/q2"
}

# nsim_traffic: the port up for a second, then down, and the report under
# way when it went down done (netdevsim reports every 100 ms, for running
# ports only): devlink's counts stop moving
nsim_traffic() {
	ip link set "$NSIM_IF" up
	sleep 1
	ip link set "$NSIM_IF" down
	wait_for 10 nsim_quiet || abort "devlink's trap counts still move with the port down"
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
	nsim_traffic
	nsim_counts "$TMP/after"
	nsim_deltas "$TMP/before" "$TMP/after" > "$TMP/want"
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

# veth_pair A B: a veth pair, both ends up, without IPv6 (no traffic of
# its own). A frame sent out of A (veth_send) with an ethertype nothing
# handles is dropped by B on receive: B's rx_dropped (UNHANDLED_PROTO, a
# kfree_skb too).
veth_pair() {
	ip link add "$1" type veth peer name "$2" || abort "no veth pair"
	defer veth_gone "$1"
	sysctl -qw "net.ipv6.conf.$1.disable_ipv6=1" "net.ipv6.conf.$2.disable_ipv6=1"
	{ ip link set "$1" up && ip link set "$2" up; } || abort "veth pair not up"
}
# veth_gone A: the pair of A deleted, if it is still there
veth_gone() { ! ip link show "$1" > /dev/null 2>&1 || ip link del "$1"; }
veth_send_py() {
	printf '%s\n' "import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(('$1', 0))
for i in range($2):
    s.send(b'\xff' * 6 + b'\x02' + b'\x00' * 5 + b'\x88\xb5' + b'\x00' * 50)"
}
veth_send() { py -c "$(veth_send_py "$@")"; }

# dev_counters FILE DEV...: "DEV COUNTER VALUE" for each drop counter of
# each device, as ip -s -s -j link shows struct rtnl_link_stats64
dev_counters() {
	local d
	for d in "${@:2}"; do ip -s -s -j link show dev "$d"; done |
		py -c "import json,sys
names = {'rx_dropped': ('rx', 'dropped'), 'tx_dropped': ('tx', 'dropped'),
    'rx_nohandler': ('rx', 'nohandler'),
    'rx_otherhost_dropped': ('rx', 'otherhost_dropped'),
    'rx_missed_errors': ('rx', 'missed_errors'),
    'rx_fifo_errors': ('rx', 'fifo_errors'),
    'rx_over_errors': ('rx', 'over_errors'),
    'rx_crc_errors': ('rx', 'crc_errors'),
    'rx_frame_errors': ('rx', 'frame_errors'),
    'rx_length_errors': ('rx', 'length_errors'),
    'tx_fifo_errors': ('tx', 'fifo_errors'),
    'tx_aborted_errors': ('tx', 'aborted_errors'),
    'tx_carrier_errors': ('tx', 'carrier_errors'),
    'tx_heartbeat_errors': ('tx', 'heartbeat_errors'),
    'tx_window_errors': ('tx', 'window_errors')}
dec = json.JSONDecoder()
text = sys.stdin.read()
at = 0
while at < len(text.rstrip()):
    links, at = dec.raw_decode(text, at)
    while at < len(text) and text[at].isspace():
        at += 1
    for l in links:
        st = l['stats64']
        for n, (d, k) in names.items():
            print(l['ifname'], n, st[d].get(k, 0))" > "$1"
}

# dev_deltas BEFORE AFTER: "DEV COUNTER DELTA" of the counters that moved
dev_deltas() {
	py -c "import sys
b = {tuple(l.split()[:2]): int(l.split()[2]) for l in open('$1')}
for l in open('$2'):
    d, n, v = l.split()
    if int(v) - b[(d, n)]:
        print(d, n, int(v) - b[(d, n)])" | sort
}

# ds_devs FIELD DEV...: "DEV COUNTER FIELD" of dropscope's dev layer, for
# those devices, all of them listed (masked ones too)
ds_devs() {
	local devs
	devs=$(printf "'%s'," "${@:2}")
	$DS -j show sites all layer dev |
		json "'\n'.join('%s %s %d' % (s['dev'], s['counter'], s['$1']) for s in d if s['dev'] in ($devs) and s['$1'])" | sort
}

# A veth receives frames nothing handles (rx_dropped): every drop counter
# of the pair that moved since start, by how much, is what ip -s -s
# link's deltas say, and nothing else of theirs.
test_dev_counters() {
	local a=x$$ b=y$$
	setup_module
	veth_pair "$a" "$b"
	dev_counters "$TMP/before" "$a" "$b"
	$DS start dev
	veth_send "$a" 37
	dev_counters "$TMP/after" "$a" "$b"
	dev_deltas "$TMP/before" "$TMP/after" > "$TMP/want"
	check "dev: the pair's counters that moved, and by how much, are ip -s -s link's" \
		"$(cat "$TMP/want")" "$(ds_devs count "$a" "$b")"
	check "dev: 37 sent, 37 dropped" "$b rx_dropped 37" "$(grep rx_dropped "$TMP/want")"
}

# Devices that go. A veth pair drops 11 frames and is deleted before the
# next fold (the interval is 10 s): those drops are counted all the same
# (the module reads a device one last time when it is unregistered) and
# stay after it is gone. A pair made again with the same names counts from
# zero. 64 more pairs made and deleted while it folds every 10 ms leave
# the counts as they were and lose nothing.
test_dev_gone() {
	local a=g$$ b=h$$ i
	setup_module
	$DS set interval 10s
	veth_pair "$a" "$b"
	dev_counters "$TMP/before" "$a" "$b"
	$DS start dev
	veth_send "$a" 11
	dev_counters "$TMP/old" "$a" "$b"
	ip link del "$a" || abort "cannot delete $a"
	veth_pair "$a" "$b"
	sed 's/ [0-9]*$/ 0/' "$TMP/before" > "$TMP/zero"
	veth_send "$a" 5
	dev_counters "$TMP/new" "$a" "$b"
	{ dev_deltas "$TMP/before" "$TMP/old"; dev_deltas "$TMP/zero" "$TMP/new"; } |
		sort > "$TMP/want"
	check "dev: a pair deleted before the next fold keeps its last drops; the same names again count from zero" \
		"$(cat "$TMP/want")" "$(ds_devs count "$a" "$b")"
	check "dev: 11 dropped by the first pair, 5 by the second" \
		"$b rx_dropped 11|$b rx_dropped 5" "$(grep rx_dropped "$TMP/want" | paste -sd'|')"
	$DS set interval 10ms
	for i in $(seq 64); do echo "link add c$i-$$ type veth peer name d$i-$$"; done > "$TMP/add"
	for i in $(seq 64); do echo "link del c$i-$$"; done > "$TMP/del"
	for i in 1 2 3; do
		ip -batch "$TMP/add" || abort "ip -batch: cannot add the pairs"
		ip -batch "$TMP/del" || abort "ip -batch: cannot delete the pairs"
	done
	check "dev: 3 times 64 pairs made and deleted: the counts as they were, nothing lost" \
		"$(cat "$TMP/want") 0" "$(ds_devs count "$a" "$b") $(stat_of devctrs_lost)"
}

# Masks on a trap and on a device counter hide exactly those: the masked
# counts and the rules' hits equal devlink's and ip's counts of them, and
# everything else of the two layers is shown as before.
test_layer_masks() {
	local a=x$$ b=y$$ c=v$$ d=w$$ r1 r2 ttl
	setup_module
	nsim_setup
	devlink trap set "$NSIM_DL" trap blackhole_route action trap ||
		abort "devlink trap set failed"
	veth_pair "$a" "$b"
	veth_pair "$c" "$d"
	$DS start hw dev
	r1=$(rule_id mask trap ttl_value_is_too_small)
	r2=$(rule_id mask counter rx_dropped dev "$b")
	nsim_counts "$TMP/before"
	dev_counters "$TMP/dbefore" "$b" "$d"
	nsim_traffic
	veth_send "$a" 23
	veth_send "$c" 9
	nsim_counts "$TMP/after"
	dev_counters "$TMP/dafter" "$b" "$d"
	nsim_deltas "$TMP/before" "$TMP/after" > "$TMP/want"
	dev_deltas "$TMP/dbefore" "$TMP/dafter" > "$TMP/dwant"
	ttl=$(awk '$1 == "ttl_value_is_too_small" { print $3 }' "$TMP/want")
	check "masks: the trap's hits and masked count equal devlink's count of it" \
		"$ttl $ttl 0" \
		"$(hits_of "$r1") $($DS -j show sites all layer hw | json "'%d %d' % tuple(sum(s[k] for s in d if s['trap'] == 'ttl_value_is_too_small') for k in ('masked', 'count'))")"
	check "masks: the other traps shown as devlink counts them" \
		"$(grep -v ttl_value_is_too_small "$TMP/want")" \
		"$($DS -j show sites layer hw | json "'\\n'.join('%s %s %d' % (s['trap'], s['type'], s['count']) for s in d)" | sort)"
	check "masks: the counter's hits and masked count equal ip's delta of it" \
		"$(awk -v d="$b" '$1 == d && $2 == "rx_dropped" { print $3 " " $3 }' "$TMP/dwant")" \
		"$(hits_of "$r2") $(ds_devs masked "$b" | awk '$2 == "rx_dropped" { print $3 }')"
	check "masks: the other counters shown as ip counts them" \
		"$(grep -v "^$b rx_dropped " "$TMP/dwant")" "$(ds_devs count "$b" "$d")"
	check "masks: rules on traps and counters listed as given" \
		"mask trap ttl_value_is_too_small|mask dev $b counter rx_dropped" \
		"$($DS -j show rules | json "'|'.join(' '.join([r['mode']] + ['%s %s' % (k, r[k]) for k in ('dev', 'trap', 'counter') if k in r]) for r in d)")"
	check "masks: a rule on a trap and a counter at once is refused" "2" \
		"$($DS rule mask trap x counter rx_dropped > /dev/null 2>&1; echo $?)"
}

traps_counted() { [ "$(stat_of trap_events)" -gt 0 ]; }

# Unload while a device traps packets and a veth drops them: no warning,
# and the traps counted up to then were counted (the port reports every
# 100 ms while up).
test_hw_unload() {
	local a=x$$ b=y$$ g
	need dmesg
	setup_module
	nsim_setup
	veth_pair "$a" "$b"
	$DS start hw dev
	dmesg -C
	ip link set "$NSIM_IF" up
	defer ip link set "$NSIM_IF" down
	# in the background: a python3 of its own, not pyd's
	command python3 -c "$(veth_send_py "$a" 100000)" &
	g=$!
	defer kill_quiet $g
	wait_for 10 traps_counted || abort "no trap counted while the port is up"
	rmmod dropscope || abort "rmmod while traps fire failed"
	kill_quiet $g
	dmesg_clean "hw: unload while traps fire and a veth drops: no warning in dmesg"
}

# export: the traps and device counters as series promtool accepts, each
# equal to devlink's and ip's counts (masked ones included, and apart).
test_layer_export() {
	local a=x$$ b=y$$ got
	need promtool
	setup_module
	nsim_setup
	veth_pair "$a" "$b"
	$DS start hw dev
	$DS rule mask counter rx_dropped dev "$b" > /dev/null
	nsim_counts "$TMP/before"
	dev_counters "$TMP/dbefore" "$b"
	nsim_traffic
	veth_send "$a" 11
	$DS stop
	nsim_counts "$TMP/after"
	dev_counters "$TMP/dafter" "$b"
	nsim_deltas "$TMP/before" "$TMP/after" > "$TMP/want"
	mkdir -p "$TMP/tf"
	exp_start --textfile "$TMP/tf/dropscope.prom" --interval 200ms
	wait_for 30 test -s "$TMP/tf/dropscope.prom" || abort "no textfile"
	if got=$(promtool check metrics < "$TMP/tf/dropscope.prom" 2>&1); then
		ok "layers: promtool check metrics accepts the trap and device series"
	else
		fail "layers: promtool check metrics accepts the trap and device series" "$got"
	fi
	check "layers: dropscope_trap_packets_total per trap equals devlink's count" \
		"$(cat "$TMP/want")" \
		"$(py -c "import re
for l in open('$TMP/tf/dropscope.prom'):
    m = re.match(r'dropscope_trap_packets_total\{(.*)\} (\d+)', l)
    if m:
        k = dict(re.findall(r'(\w+)=\"([^\"]*)\"', m.group(1)))
        if k['device'] == '$NSIM_DL':
            print(k['trap'], k['type'], m.group(2))" | sort)"
	check "layers: dropscope_device_drops_total and its masked part equal ip's rx_dropped delta" \
		"$(dev_deltas "$TMP/dbefore" "$TMP/dafter" | awk '$2 == "rx_dropped" { print $3 " " $3 }')" \
		"$(grep "^dropscope_device_drops_total{counter=\"rx_dropped\",dev=\"$b\"}" "$TMP/tf/dropscope.prom" | awk '{print $2}') $(grep "^dropscope_device_drops_masked_total{counter=\"rx_dropped\",dev=\"$b\"}" "$TMP/tf/dropscope.prom" | awk '{print $2}')"
}
