# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The qdisc layer (sourced by tests/lab/run.sh): drops a qdisc reports on
# qdisc:qdisc_drop, against tc -s qdisc and the tracepoint's own hist.

QD_EVENT=$T/events/qdisc/qdisc_drop
qdisc_here() { [ -d "$QD_EVENT" ]; }

# qd_dummy DEV NET: a dummy device up with 10.NET.0.1/24 and a static
# neighbour 10.NET.0.2, so that datagrams to it reach its qdisc at once
qd_dummy() {
	ip link add "$1" type dummy || abort "no dummy device"
	defer ip link del "$1"
	ip link set "$1" up &&
		ip addr add "10.$2.0.1/24" dev "$1" &&
		ip neigh add "10.$2.0.2" lladdr 02:00:00:00:00:02 dev "$1" ||
		abort "cannot set $1 up"
}

# qd_send CPU NET N FLOWS: N datagrams of 100 bytes from that CPU to
# 10.NET.0.2, on FLOWS destination ports in turn
qd_send_py() {
	echo "import os, socket
os.sched_setaffinity(0, {$1})
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range($3):
    s.sendto(b'x' * 100, ('10.$2.0.2', 9000 + i % $4))"
}

# The tracepoint's own count, by device and reason: a hist trigger
QD_HIST="hist:keys=ifindex,reason:size=256"
qd_hist_on() {
	echo "$QD_HIST" > "$QD_EVENT/trigger" || abort "hist trigger refused"
	defer qd_hist_off
}
qd_hist_off() { echo "!$QD_HIST" > "$QD_EVENT/trigger" 2>/dev/null; true; }
# qd_hist IFINDEX: "REASON COUNT" lines of that device
qd_hist() {
	sed -n 's/^{ ifindex: *\([0-9]*\), reason: *\([0-9]*\) *} hitcount: *\([0-9]*\)$/\1 \2 \3/p' \
		"$QD_EVENT/hist" | awk -v i="$1" '$1 == i { print $2, $3 }' | sort
}
# ds_qd FIELD DEV: "REASON_ID FIELD" of dropscope's qdisc rows of DEV
ds_qd() {
	$DS -j show sites all layer qdisc |
		json "'\n'.join('%d %d' % (s['reason_id'], s['$1']) for s in d if s.get('dev') == '$2')" |
		sort
}
# tc_stat DEV KEY: a number of tc -s qdisc show's root qdisc of DEV
tc_stat() {
	tc -s qdisc show dev "$1" | tr -s ' (),' '\n' |
		awk -v k="$2" 'p { print; exit } $0 == k { p = 1 }'
}
ifindex_of() { cat "/sys/class/net/$1/ifindex"; }

# fq with a flow limit of 5 and a band limit of 30, paced to 8 kbit/s (a
# datagram every 0.1 s or so goes out): 50 datagrams on one flow meet the
# flow limit; then two CPUs at once send 200 each on 8 flows of their own,
# which fill the band (16 flows of 5 would be 80) and meet its limit. The qdisc layer
# counts what tc counts (dropped, and flows_plimit for FLOW_LIMIT), and
# per reason what the tracepoint saw; the kernel layer has each of them
# too, as QDISC_DROP.
test_qdisc_fq() {
	local d=q$$ g1 g2 plimit
	qdisc_here || { skip "qdisc: fq against tc" "no qdisc:qdisc_drop in this kernel"; return; }
	need tc
	setup_module
	qd_dummy "$d" 9
	tc qdisc add dev "$d" root handle 8000: fq flow_limit 5 limit 30 maxrate 8kbit ||
		abort "tc refused fq"
	qd_hist_on
	$DS start
	py -c "$(qd_send_py 0 9 50 1)"
	command python3 -c "$(qd_send_py 0 9 200 8)" &
	g1=$!
	command python3 -c "$(qd_send_py 1 9 200 8)" &
	g2=$!
	wait $g1 $g2
	$DS stop
	plimit=$(tc_stat "$d" flows_plimit)
	[ -n "$plimit" ] || plimit=0	# tc shows it from 1 on
	check "qdisc: fq's drops are tc's dropped" \
		"$(tc_stat "$d" dropped)" \
		"$($DS -j show sites layer qdisc | json "sum(s['count'] for s in d if s['dev'] == '$d')")"
	check "qdisc: FLOW_LIMIT is tc's flows_plimit, fq 8000: on the device" \
		"$plimit fq 8000: $(ifindex_of "$d")" \
		"$($DS -j show sites layer qdisc | json "' '.join('%d %s %s %d' % (s['count'], s['kind'], s['handle'], s['ifindex']) for s in d if s['reason'] == 'FLOW_LIMIT')")"
	check "qdisc: by reason, the tracepoint's counts" \
		"$(qd_hist "$(ifindex_of "$d")")" "$(ds_qd count "$d")"
	check "qdisc: the kernel layer has them as QDISC_DROP" \
		"$(tc_stat "$d" dropped)" \
		"$($DS -j show sites layer kernel | json "sum(s['count'] for s in d if s['reason'] == 'QDISC_DROP')")"
	check "qdisc: both FLOW_LIMIT and BAND_LIMIT drops were made" "FLOW_LIMIT BAND_LIMIT" \
		"$($DS -j show sites layer qdisc | json "' '.join(r for r in ('FLOW_LIMIT', 'BAND_LIMIT') if any(s['reason'] == r for s in d))")"
}

# A qdisc that gives no reason of its own: pfifo under tbf. Its drops reach
# qdisc:qdisc_drop with the reason __dev_xmit_skb() gave every packet,
# GENERIC, and the root qdisc (the one whose to_free list frees them).
test_qdisc_generic() {
	local d=q$$
	qdisc_here || { skip "qdisc: pfifo's drops" "no qdisc:qdisc_drop in this kernel"; return; }
	need tc
	setup_module
	qd_dummy "$d" 8
	tc qdisc add dev "$d" root handle 1: tbf rate 80kbit burst 1600 limit 100000 &&
		tc qdisc add dev "$d" parent 1:1 handle 10: pfifo limit 3 ||
		abort "tc refused tbf and pfifo"
	qd_hist_on
	$DS start qdisc
	py -c "$(qd_send_py 0 8 200 1)"
	$DS stop
	check "qdisc: pfifo's drops under tbf are tc's dropped, as tbf's GENERIC" \
		"$(tc_stat "$d" dropped) tbf 1: GENERIC" \
		"$($DS -j show sites layer qdisc | json "' '.join('%d %s %s %s' % (s['count'], s['kind'], s['handle'], s['reason']) for s in d if s['dev'] == '$d')")"
	check "qdisc: pfifo's, by reason, the tracepoint's counts" \
		"$(qd_hist "$(ifindex_of "$d")")" "$(ds_qd count "$d")"
}

# Masks on the qdisc layer: a rule on the kind hides every fq drop (its
# hits and the masked counts are tc's dropped), a rule on another kind
# none; rules of the layer are listed as given and checked.
test_qdisc_masks() {
	local d=q$$ e=p$$ r1 r2 n
	qdisc_here || { skip "qdisc: masks" "no qdisc:qdisc_drop in this kernel"; return; }
	need tc
	setup_module
	qd_dummy "$d" 7
	qd_dummy "$e" 6
	tc qdisc add dev "$d" root fq flow_limit 3 limit 10 maxrate 80kbit &&
		tc qdisc add dev "$e" root handle 1: tbf rate 80kbit burst 1600 limit 100000 &&
		tc qdisc add dev "$e" parent 1:1 handle 2: sfq limit 4 ||
		abort "tc refused fq, tbf or sfq"
	$DS start qdisc
	r1=$(rule_id mask kind fq)
	r2=$(rule_id mask kind pie dev "$e")
	py -c "$(qd_send_py 0 7 100 4)"
	py -c "$(qd_send_py 0 6 100 4)"
	$DS stop
	n=$(tc_stat "$d" dropped)
	check "qdisc masks: fq's drops masked, the rule's hits" "$n $n 0 0" \
		"$(hits_of "$r1") $(ds_qd masked "$d" | awk '{ s += $2 } END { print s + 0 }') $(ds_qd count "$d" | awk '{ s += $2 } END { print s + 0 }') $(hits_of "$r2")"
	check "qdisc masks: the other device's drops shown, as tc counts them" \
		"$(tc_stat "$e" dropped)" "$(ds_qd count "$e" | awk '{ s += $2 } END { print s + 0 }')"
	check "qdisc masks: rules listed as given" \
		"mask kind fq|mask dev $e kind pie" \
		"$($DS -j show rules | json "'|'.join(' '.join([r['mode']] + ['%s %s' % (k, r[k]) for k in ('dev', 'layer', 'kind') if k in r]) for r in d)")"
	check "qdisc masks: a rule on a kind and a counter at once is refused" "2" \
		"$($DS rule mask kind fq counter rx_dropped > /dev/null 2>&1; echo $?)"
	check "qdisc masks: a kind in the kernel layer is refused" "2" \
		"$($DS rule mask kind fq layer kernel > /dev/null 2>&1; echo $?)"
}

# export: dropscope_qdisc_drops_total per qdisc and reason equals tc's
# count; promtool accepts the series.
test_qdisc_export() {
	local d=q$$ got
	qdisc_here || { skip "qdisc: export" "no qdisc:qdisc_drop in this kernel"; return; }
	need tc promtool
	setup_module
	qd_dummy "$d" 5
	tc qdisc add dev "$d" root handle 3: fq flow_limit 4 limit 100 maxrate 80kbit ||
		abort "tc refused fq"
	$DS start qdisc
	py -c "$(qd_send_py 0 5 100 2)"
	$DS stop
	mkdir -p "$TMP/tf"
	exp_start --textfile "$TMP/tf/dropscope.prom" --interval 200ms
	wait_for 30 test -s "$TMP/tf/dropscope.prom" || abort "no textfile"
	if got=$(promtool check metrics < "$TMP/tf/dropscope.prom" 2>&1); then
		ok "qdisc: promtool check metrics accepts the qdisc series"
	else
		fail "qdisc: promtool check metrics accepts the qdisc series" "$got"
	fi
	check "qdisc: dropscope_qdisc_drops_total is tc's flows_plimit" \
		"$(tc_stat "$d" flows_plimit)" \
		"$(sed -n "s/^dropscope_qdisc_drops_total{dev=\"$d\",handle=\"3:\",kind=\"fq\",reason=\"FLOW_LIMIT\"} //p" "$TMP/tf/dropscope.prom")"
}

# Where the kernel has qdisc:qdisc_drop, start runs the qdisc part and says
# nothing of it. Where it has not, start runs every other part and says
# why once, on its standard error; start qdisc alone is refused with that
# reason, and changes nothing.
test_qdisc_absent() {
	local err
	setup_module
	err=$($DS start 2>&1 >/dev/null)
	if qdisc_here; then
		check "qdisc: start runs every part, qdisc included" \
			"drops tcp smc hw dev qdisc|" "$($DS -j status | json "' '.join(d['parts'])")|$err"
		return
	fi
	check "qdisc: start runs the other parts and says why qdisc is absent, once" \
		"drops tcp smc hw dev|start: qdisc: this kernel has no qdisc:qdisc_drop tracepoint (Linux 7.0 and later have it): the qdisc layer is absent" \
		"$($DS -j status | json "' '.join(d['parts'])")|$err"
	$DS stop
	check "qdisc: start qdisc alone is refused with the reason, and nothing runs" \
		"1|qdisc: this kernel has no qdisc:qdisc_drop tracepoint (Linux 7.0 and later have)|stopped" \
		"$($DS start qdisc > /dev/null 2>"$TMP/err"; echo $?)|$(sed -n 's/.*\(qdisc: this kernel.*have)\).*/\1/p' "$TMP/err")|$($DS status | sed -n 's/^monitoring: //p')"
	check "qdisc: show sites layer qdisc lists nothing" "no drops seen" \
		"$($DS show sites layer qdisc)"
}
