# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# SMC: test functions sourced by tests/lab/run.sh, which runs them (its
# helpers, KTAP results, per-test names and cleanup). What dropscope shows
# of SMC is checked against what tests/lab/smcgen made, and against the
# kernel's own count of fallbacks: a hist trigger on
# smc:smc_switch_to_fallback keyed by reason. Without an SMC device, an
# AF_SMC client of a plain TCP server falls back with 0x03010000; AF_SMC
# at both ends with 0x03030000 at the client and 0x05000000 at the server.

SG=$BIN/smcgen
SMC_FB=$T/events/smc/smc_switch_to_fallback
SOCK_STATE=$T/events/sock/inet_sock_set_state

# smc_has MODULE: the kernel has it, as a module or built in
smc_has() {
	modinfo "$1" > /dev/null 2>&1 ||
		grep -q "/$1.ko" "/lib/modules/$(uname -r)/modules.builtin" 2>/dev/null
}
# smc_load: smc and smc_diag loaded (or built in); a kernel without them
# (Debian's 7.x: SMC needs DIBS there) skips the test, as a property of
# that kernel; one that has them and cannot load them fails it.
smc_load() {
	if ! smc_has smc || ! smc_has smc_diag; then
		skip "test_$TEST" "this kernel has no smc or smc_diag module"
		echo 0 > "$RUNTMP/status"
		exit 0
	fi
	modprobe smc || abort "modprobe smc failed on a kernel that has it"
	modprobe smc_diag || abort "modprobe smc_diag failed on a kernel that has it"
}

# smc_there: the kernel's SMC support is registered, loaded or built in
smc_there() { grep -q '^SMC ' /proc/net/protocols; }

# smc_unload: smc.ko gone; a kernel with smc built in (no /sys/module/smc
# then: smc has no parameters) skips the test
smc_unload() {
	modprobe -r smc_diag 2>/dev/null
	modprobe -r smc 2>/dev/null
	smc_there || return 0
	if [ ! -e /sys/module/smc/initstate ]; then
		skip "test_$TEST" "smc is built into this kernel"
		echo 0 > "$RUNTMP/status"
		exit 0
	fi
	abort "smc.ko is in use and cannot be removed: $(cat /sys/module/smc/refcnt) references"
}

# The SMC commands without smc.ko: a plain word, nothing loaded, and the
# rest of dropscope works
test_smc_absent() {
	local out rc c
	smc_unload
	out=$($DS show smc 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && [[ $out == *"smc.ko) is not loaded: sudo modprobe smc"* ]]; then
		ok "show smc without smc.ko: exit 1, says so"
	else
		fail "show smc without smc.ko: exit 1, says so" "exit $rc: $out"
	fi
	out=$($DS show smc sockets 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && [[ $out == *"is not loaded"* ]]; then
		ok "show smc sockets without smc.ko: exit 1, says so"
	else
		fail "show smc sockets without smc.ko: exit 1, says so" "exit $rc: $out"
	fi
	for c in linkgroups devices; do
		out=$($DS show smc $c 2>&1)
		rc=$?
		if [ $rc -eq 1 ] && [[ $out == *"smc.ko) is not loaded: sudo modprobe smc"* ]]; then
			ok "show smc $c without smc.ko: exit 1, says so"
		else
			fail "show smc $c without smc.ko: exit 1, says so" "exit $rc: $out"
		fi
	done
	check "show smc did not load smc.ko" "absent" \
		"$(smc_there && echo loaded || echo absent)"
	setup_module
	$DS start drops > /dev/null
	check "without smc.ko the rest works: status" "0" \
		"$($DS status > /dev/null 2>&1; echo $?)"
}

# smc_fbacks FILE: the (code side count) lines of show smc's fallbacks,
# and the totals as "total client N" and "total server N"
smc_fbacks() {
	$DS -j show smc > "$TMP/$1.json" || abort "show smc failed"
	py - "$TMP/$1.json" <<-'PY'
	import json, sys
	k = json.load(open(sys.argv[1]))["kernel"]
	for f in k["fallbacks"]:
	    print(f["code"], f["side"], f["count"])
	print("total client", k["client_fallbacks"])
	print("total server", k["server_fallbacks"])
	PY
}

# smc_own JSON: dropscope's own fallbacks of show smc's JSON, sorted, then
# their total, the overflow, and whether it watches smc.ko
smc_own() {
	py - "$1" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	for f in sorted(d["fallbacks"], key=lambda f: (f["code"], f["side"])):
	    print(f["code"], f["side"], f["count"])
	print("total", d["fallbacks_total"])
	print("overflow", d["overflow"])
	print("owners_overflow", d["owners_overflow"])
	print("watching", d["watching"])
	print("layout", d["layout"])
	PY
}

# server_closes PORT: the kernel's count of TCP sockets bound to PORT that
# went to TCP_CLOSE from any state but LISTEN (a hist trigger on
# sock:inet_sock_set_state). Besides the accepted ones, a child that lost
# the race for its request (two CPUs completing the same handshake: the
# loser goes from SYN_RECV to CLOSE in inet_ehash_nolisten()) is a session
# of the kernel's too, born and closed.
server_closes() {
	sed -n 's/^{ sport: *\([0-9]*\), oldstate: *\([0-9]*\) } hitcount: *\([0-9]*\)$/\1 \2 \3/p' \
		"$SOCK_STATE/hist" | awk -v p="$1" '$1 == p && $2 != 10 { n += $3 } END { print n + 0 }'
}

# smc_sess_modes PORT...: the closed sessions of the server ports PORT, as
# "PORT client|server MODE COUNT" (MODE - for none), sorted
smc_sess_modes() {
	$DS -j show sessions closed > "$TMP/sess.json" || abort "show sessions closed failed"
	py - "$TMP/sess.json" "$@" <<-'PY'
	import json, sys
	ports = [int(p) for p in sys.argv[2:]]
	per = {}
	for s in json.load(open(sys.argv[1])):
	    for p in ports:
	        if p in (s["lport"], s["rport"]):
	            k = (p, "server" if s["lport"] == p else "client", s.get("smc_mode", "-"))
	            per[k] = per.get(k, 0) + 1
	for k in sorted(per):
	    print(*k, per[k])
	PY
}

# smc_owners FILE KEY COUNT: the owners of JSON objects (one, or a line
# each) under KEY, their COUNT key added up by (code, side, pid, comm)
smc_owners() {
	py - "$@" <<-'PY'
	import json, sys
	per = {}
	for l in open(sys.argv[1]).read().strip().split("\n") if sys.argv[2] == "smc_owners" else [open(sys.argv[1]).read()]:
	    for f in json.loads(l).get(sys.argv[2], []):
	        k = (f["code"], f["side"], f["pid"], f["comm"] if f["pid"] else "-")
	        per[k] = per.get(k, 0) + f[sys.argv[3]]
	for k in sorted(per):
	    print(*k, per[k])
	PY
}

# ds_smc KEY: a key of show smc's JSON, dropscope's own part (which show
# smc prints without smc.ko too)
ds_smc() { $DS -j show smc 2>/dev/null | json "d['$1']"; }

# smc_alerted JSONL: the SMC fallback deltas of watch -j's alerts, added up
# by reason and side, sorted
smc_alerted() {
	py - "$1" <<-'PY'
	import json, sys
	per = {}
	for l in open(sys.argv[1]):
	    for f in json.loads(l).get("smc_fallbacks", []):
	        k = (f["code"], f["side"])
	        per[k] = per.get(k, 0) + f["delta"]
	for k in sorted(per):
	    print(k[0], k[1], per[k])
	PY
}
smc_alerted_is() { [ "$(smc_alerted "$1" | tr '\n' ';')" = "$2" ]; }

# smc_delta BEFORE AFTER: what grew, a line each, sorted
smc_delta() {
	py - "$1" "$2" <<-'PY'
	import sys
	def read(p):
	    d = {}
	    for l in open(p):
	        a, b, n = l.split()
	        d[(a, b)] = int(n)
	    return d
	b, a = read(sys.argv[1]), read(sys.argv[2])
	for k in sorted(a):
	    if a[k] != b.get(k, 0):
	        print(k[0], k[1], a[k] - b.get(k, 0))
	PY
}

# Fallbacks of each kind: the per-reason and per-side counts show smc reads
# from the kernel grow by exactly what smcgen made, and equal the hist
# trigger's count of smc:smc_switch_to_fallback per reason
test_smc_fallbacks() {
	local hist="hist:keys=fallback_rsn" n_tcp=7 n_smc=4 got want out p_tcp p_smc
	local shist="hist:keys=sport,oldstate if newstate == 7 && protocol == 6"
	local c_tcp c_smc
	smc_load
	[ -d "$SMC_FB" ] || abort "no $SMC_FB"
	echo "$hist" > "$SMC_FB/trigger" || abort "hist trigger refused"
	defer sh -c "echo '!$hist' > $SMC_FB/trigger"
	echo "$shist" > "$SOCK_STATE/trigger" || abort "hist trigger on $SOCK_STATE refused"
	defer sh -c "echo '!$shist' > $SOCK_STATE/trigger"
	setup_module
	$DS start smc tcp
	watch_start smcw.jsonl || abort "watch did not start"
	smc_fbacks before > "$TMP/before"
	# the clients are smcgen itself; the servers fall back in a kworker,
	# and are owned by the smcgen that made their listener listen
	$SG tcp $n_tcp 6100 1000 > /dev/null &
	p_tcp=$!
	wait $p_tcp || abort "smcgen tcp failed"
	$SG smc $n_smc 6101 1000 > /dev/null &
	p_smc=$!
	wait $p_smc || abort "smcgen smc failed"
	smc_fbacks after > "$TMP/after"
	got=$(smc_delta "$TMP/before" "$TMP/after" | tr '\n' ';')
	want="0x03010000 client $n_tcp;0x03030000 client $n_smc;0x05000000 server $n_smc;total client $((n_tcp + n_smc));total server $n_smc;"
	check "show smc: fallbacks by reason and side, and totals, grew by what smcgen made" \
		"$want" "$got"
	# dropscope's own, since start: exactly the same, its totals too
	want="0x03010000 client $n_tcp;0x03030000 client $n_smc;0x05000000 server $n_smc;total $((n_tcp + 2 * n_smc));overflow 0;owners_overflow 0;watching True;layout True;"
	check "show smc: dropscope's fallbacks since start are smcgen's, by reason and side" \
		"$want" "$(smc_own "$TMP/after.json" | tr '\n' ';')"
	want="0x03010000 client $p_tcp smcgen $n_tcp;0x03030000 client $p_smc smcgen $n_smc;0x05000000 server $p_smc smcgen $n_smc;"
	check "show smc: the owners of the fallbacks: each client's smcgen, the servers' listener's" \
		"$want" "$(smc_owners "$TMP/after.json" owners count | tr '\n' ';')"
	# the TCP sessions under the SMC sockets, by side and mode: the
	# servers' are the kernel's closes on the port; those beyond smcgen's
	# connections lost their handshake's race and have no mode
	c_tcp=$(server_closes 6100)
	c_smc=$(server_closes 6101)
	[ "$c_tcp" -ge $n_tcp ] && [ "$c_smc" -ge $n_smc ] ||
		abort "the kernel closed $c_tcp and $c_smc server sockets, fewer than smcgen's $n_tcp and $n_smc"
	want="6100 client TCP 0x03010000 $n_tcp;6100 server - $c_tcp;6101 client TCP 0x03030000 $n_smc;"
	[ "$c_smc" -gt $n_smc ] && want+="6101 server - $((c_smc - n_smc));"
	want+="6101 server TCP 0x05000000 $n_smc;"
	check "show sessions: the TCP under each SMC socket has the fallback's reason as its mode" \
		"$want" "$(smc_sess_modes 6100 6101 | tr '\n' ';')"
	# the alert rounds: the stop's final round carries the last ones
	$DS stop
	want="0x03010000 client $n_tcp;0x03030000 client $n_smc;0x05000000 server $n_smc;"
	wait_for 10 smc_alerted_is "$TMP/smcw.jsonl" "$want"
	check "watch: the alerts' SMC fallback deltas add up to smcgen's, by reason and side" \
		"$want" "$(smc_alerted "$TMP/smcw.jsonl" | tr '\n' ';')"
	want="0x03010000 client $p_tcp smcgen $n_tcp;0x03030000 client $p_smc smcgen $n_smc;0x05000000 server $p_smc smcgen $n_smc;"
	check "watch: the alerts' owner deltas add up to the same, by owner" \
		"$want" "$(smc_owners "$TMP/smcw.jsonl" smc_owners delta | tr '\n' ';')"
	# the kernel's own events, per reason (the trigger began with them)
	got=$(sed -n 's/^{ fallback_rsn: *\([0-9]*\) } hitcount: *\([0-9]*\)$/\1 \2/p' "$SMC_FB/hist" |
		while read -r r c; do printf '0x%08x %d;' "$r" "$c"; done | tr ';' '\n' | sort | tr '\n' ';')
	want="0x03010000 $n_tcp;0x03030000 $n_smc;0x05000000 $n_smc;"
	check "show smc: each reason's growth equals smc:smc_switch_to_fallback's count" "$want" "$got"
	# text: the reasons with their names
	out=$($DS show smc)
	if [[ $out == *"0x03010000  client"*"peer did not indicate SMC"* ]]; then
		ok "show smc: text names the reason"
	else
		fail "show smc: text names the reason" "$(echo "$out" | tail -n 5)"
	fi
}

# show smc sockets: the held connections, their fallback reason and their
# process
test_smc_sockets() {
	local holder got
	smc_load
	$SG hold 3 6102 > "$TMP/hold" &
	holder=$!
	defer kill_quiet $holder
	wait_for 30 grep -q ready "$TMP/hold" || abort "smcgen hold did not get ready"
	got=$($DS -j show smc sockets | py -c "
import json, sys
for s in json.load(sys.stdin):
    if s['peer'].endswith(':6102'):
        print(s['state'], s['mode'], s['pid'], s['comm'], s['fallback_code'])" | sort | uniq -c |
		awk '{$1 = $1; print}')
	check "show smc sockets: 3 fallen back clients, with reason and owner" \
		"3 ACTIVE TCP 0x03010000 $holder smcgen 0x03010000" "$got"
	got=$($DS show smc sockets | awk '$5 == "127.0.0.1:6102" { print $6, $7, $8, $9 }' | sort -u)
	check "show smc sockets: text" "$holder smcgen TCP 0x03010000" "$got"
}

# watch smc: the fallbacks of each interval add up to what smcgen made,
# by reason, while it runs between the frames
test_smc_watch() {
	local watcher n got
	smc_load
	$DS -j watch smc interval 250ms > "$TMP/watch.json" 2> "$TMP/watch.err" &
	watcher=$!
	defer kill_quiet $watcher
	wait_for 60 grep -q "^watching SMC" "$TMP/watch.err" || abort "watch smc did not start: $(cat "$TMP/watch.err")"
	$SG tcp 5 6103 500 > /dev/null || abort "smcgen tcp failed"
	$SG smc 3 6104 500 > /dev/null || abort "smcgen smc failed"
	# two frames more: the last fallbacks are in a frame
	n=$(wc -l < "$TMP/watch.json")
	wait_for 60 sh -c "[ \$(wc -l < '$TMP/watch.json') -ge $((n + 2)) ]" || abort "watch smc stopped printing"
	kill $watcher
	wait $watcher 2>/dev/null
	got=$(py - "$TMP/watch.json" <<-'PY'
	import json, sys
	tot, per = 0, {}
	for l in open(sys.argv[1]):
	    f = json.loads(l)
	    tot += f["fallbacks"]
	    for r in f["fallback_reasons"]:
	        k = (r["code"], r["side"])
	        per[k] = per.get(k, 0) + r["count"]
	print(tot, " ".join("%s:%s:%d" % (k[0], k[1], per[k]) for k in sorted(per)))
	PY
	)
	check "watch smc: the frames' fallbacks add up to smcgen's, by reason" \
		"11 0x03010000:client:5 0x03030000:client:3 0x05000000:server:3" "$got"
}

# SMC-R over a soft-RoCE device on lo with a user-defined EID (6.12; 6.1
# falls back): 4 connections of 100 000 bytes each way, counted exactly in
# show smc's SMC-R statistics; show smc sockets shows them SMCR
# smc_r_setup: smc.ko, a soft-RoCE device rxe0 on lo and an EID both ends
# share: AF_SMC pairs on 127.0.0.1 run SMC-R (6.12; 6.1 falls back)
smc_r_setup() {
	need rdma
	smc_load
	modprobe rdma_rxe || abort "no rdma_rxe module"
	rdma link add rxe0 type rxe netdev lo || abort "rdma link add rxe0 failed"
	defer rdma link delete rxe0
	py tests/lab/smcueid.py add DROPSCOPE-LAB > "$TMP/ueid" ||
		grep -q EEXIST "$TMP/ueid" || abort "adding the UEID failed: $(cat "$TMP/ueid")"
	defer py tests/lab/smcueid.py del DROPSCOPE-LAB
}

test_smc_r() {
	local k holder got n=4 bytes=100000
	k=$(uname -r)
	case $k in
	# a property of the kernel, not a missing tool: the run still passes
	6.1.*) skip "test_$TEST" "SMC-R over soft-RoCE on lo does not run on $k: it falls back"
		return ;;
	esac
	smc_r_setup
	setup_module
	$DS start smc tcp
	$DS -j show smc > "$TMP/before.json" || abort "show smc failed"
	$SG smc $n 6105 $bytes > /dev/null || abort "smcgen smc failed"
	$DS -j show smc > "$TMP/after.json" || abort "show smc failed"
	got=$(py - "$TMP/before.json" "$TMP/after.json" <<-'PY'
	import json, sys
	b, a = (json.load(open(p))["kernel"] for p in sys.argv[1:])
	keys = ("client_v1", "client_v2", "server_v1", "server_v2", "rx_bytes", "tx_bytes")
	print(" ".join("%s:%d" % (k, a["smcr"][k] - b["smcr"][k]) for k in keys),
	      "fallbacks:%d" % (a["client_fallbacks"] + a["server_fallbacks"]
	                        - b["client_fallbacks"] - b["server_fallbacks"]))
	PY
	)
	check "show smc: 4 SMC-R connections, each end's 100 000 bytes sent and received" \
		"client_v1:0 client_v2:$n server_v1:0 server_v2:$n rx_bytes:$((2 * n * bytes)) tx_bytes:$((2 * n * bytes)) fallbacks:0" "$got"
	# dropscope's own, since start, from smc:smc_tx_sendmsg and
	# smc:smc_rx_recvmsg: the same bytes
	got=$(json "'tx:%d rx:%d fallbacks:%d' % (d['tx_bytes'], d['rx_bytes'], d['fallbacks_total'])" < "$TMP/after.json")
	check "show smc: dropscope's tx_bytes and rx_bytes since start are smcgen's" \
		"tx:$((2 * n * bytes)) rx:$((2 * n * bytes)) fallbacks:0" "$got"
	# by mode and device: all of it SMC-R on rxe0, the copies those of
	# the totals
	got=$(json "'smcr:%d/%d smcd:%d/%d copies:%d/%d' % (d['smcr_tx_bytes'], d['smcr_rx_bytes'], d['smcd_tx_bytes'], d['smcd_rx_bytes'], d['smcr_tx_copies'] - d['tx_copies'], d['smcr_rx_copies'] - d['rx_copies'])" < "$TMP/after.json")
	check "show smc: by mode, every byte SMC-R's, every copy too" \
		"smcr:$((2 * n * bytes))/$((2 * n * bytes)) smcd:0/0 copies:0/0" "$got"
	got=$(json "';'.join('%s %d %d %d %d' % (x['name'], x['tx_bytes'], x['rx_bytes'], x['tx_copies'] - d['tx_copies'], x['rx_copies'] - d['rx_copies']) for x in d['devices'])" < "$TMP/after.json")
	check "show smc: by device, all of it on rxe0" \
		"rxe0 $((2 * n * bytes)) $((2 * n * bytes)) 0 0" "$got"
	check "show sessions: the TCP under each SMC-R socket is SMCR, both ends" \
		"6105 client SMCR $n;6105 server SMCR $n;" "$(smc_sess_modes 6105 | tr '\n' ';')"
	check "show sessions: in text, the mode after the columns" "$((2 * n))" \
		"$($DS show sessions closed | awk '($4 == 6105 || $6 == 6105) && $NF == "SMCR"' | wc -l)"
	$SG hold 2 6106 smc > "$TMP/hold" &
	holder=$!
	defer kill_quiet $holder
	wait_for 30 grep -q ready "$TMP/hold" || abort "smcgen hold did not get ready"
	got=$($DS -j show smc sockets all | py -c "
import json, sys
for s in json.load(sys.stdin):
    if s['peer'].endswith(':6106') or s['local'].endswith(':6106'):
        print(s['state'], s['mode'], s['pid'], s['comm'])" | sort | uniq -c | awk '{$1 = $1; print}' | tr '\n' ';')
	check "show smc sockets: both ends of 2 held connections SMCR, the listener, their process" \
		"4 ACTIVE SMCR $holder smcgen;1 LISTEN SMCR $holder smcgen;" "$got"
}

# What smc-tools shows beyond smcr stats, from smc.ko itself: with N SMC-R
# connections held, the link groups' connections (smcr linkgroup), the
# device and its links (smcr device), each socket's link (smcss -R), the
# buffer size histograms (smcr stats' Bufs and Reqs), the buffers in use,
# watch smc and export; each against smcnl.py, a parser of smc.ko's
# replies of its own, and against SMC sock_diag. On 6.1, where SMC-R on
# soft-RoCE falls back, what is there (the device) and what is not.
test_smc_linkgroups() {
	local n=3 holder got k
	k=$(uname -r)
	smc_r_setup
	# smcd info, smcr ueid show: show smc's system is smc.ko's, with the
	# lab's user EID
	py tests/lab/smcnl.py > "$TMP/nls.json" || abort "smcnl.py failed: $(cat "$TMP/nls.json")"
	$DS -j show smc > "$TMP/sys.json" || abort "show smc failed"
	got=$(py - "$TMP/sys.json" "$TMP/nls.json" <<-'PY'
	import json, sys
	c, n = (json.load(open(p)) for p in sys.argv[1:])
	y = c["kernel"]["system"]
	mine = {k: y[k] for k in n["system"]}
	print("same" if mine == n["system"] else "differ: %s / %s" % (mine, n["system"]),
	      "ueids:%s" % (y["ueids"] == n["ueids"]), "DROPSCOPE-LAB" in y["ueids"],
	      "limit:%s" % (y["handshake_limitation"] == n["handshake_limitation"]), y["seid"])
	PY
	)
	check "show smc: smc.ko's version, capabilities, host, user EIDs (the lab's among them)" \
		"same ueids:True True limit:True None" "$got"
	if [[ $k == 6.1.* ]]; then
		smc_linkgroups_fallback
		return
	fi
	$SG hold $n 6121 smc > "$TMP/hold" &
	holder=$!
	defer kill_quiet $holder
	wait_for 30 grep -q ready "$TMP/hold" || abort "smcgen hold did not get ready"
	py tests/lab/smcnl.py > "$TMP/nl.json" || abort "smcnl.py failed"
	$DS -j show smc linkgroups > "$TMP/lgrs.json" || abort "show smc linkgroups failed"
	$DS -j show smc devices > "$TMP/devs.json" || abort "show smc devices failed"
	$DS -j show smc sockets detail > "$TMP/socks.json" || abort "show smc sockets detail failed"
	$DS -j show smc sockets listening > "$TMP/listen.json" || abort "show smc sockets listening failed"
	got=$(py - "$TMP/lgrs.json" "$TMP/nl.json" "$TMP/socks.json" <<-'PY'
	import json, sys
	lg, nl, socks = (json.load(open(p)) for p in sys.argv[1:])
	mine = sorted((int(g["id"], 16), g["role"], g["connections"],
	               tuple((k["id"], k["ibdev"], k["ibport"], k["ifindex"], k["connections"], k["state"])
	                     for k in g["links"])) for g in lg)
	theirs = sorted((g["id"], "SERV" if g["role"] else "CLNT", g["conns"],
	                 tuple((k["id"], k["ibdev"], k["ibport"], k["ifindex"], k["conns"],
	                        ["UNUSED", "INACTIVE", "ACTIVATING", "ACTIVE"][k["state"]])
	                       for k in g["links"])) for g in nl["lgrs"])
	per = {}
	for g in lg:
	    per[g["role"]] = per.get(g["role"], 0) + g["connections"]
	smcr = sum(1 for s in socks if s["mode"] == "SMCR")
	print("same" if mine == theirs else "differ: %s / %s" % (mine, theirs),
	      "CLNT:%d SERV:%d" % (per.get("CLNT", 0), per.get("SERV", 0)),
	      "sockets:%d" % smcr)
	PY
	)
	check "show smc linkgroups: smc.ko's groups and links; their connections, client and server, are the SMC-R sockets" \
		"same CLNT:$n SERV:$n sockets:$((2 * n))" "$got"
	got=$(py - "$TMP/devs.json" "$TMP/nl.json" "$TMP/lgrs.json" <<-'PY'
	import json, sys
	devs, nl, lg = (json.load(open(p)) for p in sys.argv[1:])
	d = [x for x in devs if x["name"] == "rxe0"]
	theirs = [(p["port"], p["links"]) for x in nl["devices"] if x["name"] == "rxe0" for p in x["ports"]]
	groups = sum(1 for g in lg for k in g["links"] if k["ibdev"] == "rxe0")
	print(len(d), *("%s %s %d %s" % (x["net"], x["mode"], x["port"], x["state"]) for x in d),
	      "links=smc.ko:%s" % ([(x["port"], x["links"]) for x in d] == theirs),
	      "links=groups:%s" % (sum(x["links"] for x in d) == groups), "links>0:%s" % (groups > 0))
	PY
	)
	check "show smc devices: rxe0 on lo, its one port active, its links those of smc.ko and of the link groups" \
		"1 lo SMCR 1 ACTIVE links=smc.ko:True links=groups:True links>0:True" "$got"
	got=$(py - "$TMP/socks.json" "$TMP/lgrs.json" "$TMP/listen.json" <<-'PY'
	import json, sys
	socks, lg, listen = (json.load(open(p)) for p in sys.argv[1:])
	links = {(g["role"], k["id"], k["gid"], k["peer_gid"]) for g in lg for k in g["links"]}
	held = [s for s in socks if s["local"].endswith(":6121") or s["peer"].endswith(":6121")]
	ok = sum(1 for s in held if s.get("ibdev") == "rxe0" and s.get("ibport") == 1 and
	         (s["role"], s["link_id"], s["gid"], s["peer_gid"]) in links and
	         s["sndbuf"] > 0 and s["rmb"] > 0)
	l = [(s["state"], s["listening"]) for s in listen if s["local"].endswith(":6121")]
	print("held:%d linked:%d" % (len(held), ok), "listening:%s" % l,
	      "listeners in default:%d" % sum(1 for s in socks if s["listening"]))
	PY
	)
	check "show smc sockets detail: each held socket on rxe0 port 1, on a link of its group; the listener apart" \
		"held:$((2 * n)) linked:$((2 * n)) listening:[('LISTEN', True)] listeners in default:0" "$got"
	# the buffers in use: smc.ko's gauges, and the sum of each socket's
	# send buffer and RMB that SMC sock_diag gives; closes finish in a work
	# item, so the gauges of the first run may take a moment to fall
	wait_for 20 smc_in_use_settled || true
	# smc.ko's usage counters as smcnl.py reads them, after show smc's
	py tests/lab/smcnl.py > "$TMP/nl2.json" || abort "smcnl.py failed"
	got=$(py - "$TMP/smc2.json" "$TMP/all.json" "$TMP/nl.json" "$TMP/nl2.json" <<-'PY'
	import json, sys
	smc, socks, nl, nl2 = (json.load(open(p)) for p in sys.argv[1:])
	m = smc["kernel"]["memory"]
	diag = sum(s.get("sndbuf", 0) + s.get("rmb", 0) for s in socks)
	usage = [t["usage"] for t in nl2["stats"].values() if t["usage"]]
	pool = sum(g["sndbuf_alloc"] for g in nl["lgrs"]), sum(g["rmb_alloc"] for g in nl["lgrs"])
	print("in use = diag:%s" % (m["in_use_bytes"] == diag),
	      "= smcnl:%s" % (m["in_use_bytes"] == sum(sum(u) for u in usage) if usage else "no usage"),
	      "pools = smc.ko's:%s" % ((m["sndbuf_pool_bytes"], m["rmb_pool_bytes"]) == pool),
	      "connections:%d" % m["connections"])
	PY
	)
	check "show smc: buffers in use are the held sockets' (sock_diag) and smc.ko's usage (smcnl.py), the pools smc.ko's" \
		"in use = diag:True = smcnl:True pools = smc.ko's:True connections:$((2 * n))" "$got"
	got=$($DS -j watch smc interval 100ms count 1 2>/dev/null | py -c "
import json, sys
f = json.loads(sys.stdin.readline())
print(f['open_connections'], f['link_groups'] > 0, f['in_use_bytes'] is not None)")
	check "watch smc: the open connections of each frame" "$((2 * n)) True True" "$got"
	setup_module
	mkdir -p "$TMP/tf"
	exp_start --textfile "$TMP/tf/dropscope.prom" --interval 200ms
	wait_for 30 grep -q dropscope_smc_link_group_connections "$TMP/tf/dropscope.prom" ||
		abort "no SMC series in the textfile"
	if got=$(promtool check metrics < "$TMP/tf/dropscope.prom" 2>&1); then
		ok "promtool check metrics accepts the SMC series"
	else
		fail "promtool check metrics accepts the SMC series" "$got"
	fi
	got=$(for r in client server; do
		$PC text "$TMP/tf/dropscope.prom" dropscope_smc_link_group_connections "mode=\"smcr\",role=\"$r\""
	done | tr '\n' ' ')
	check "export: the link groups' connections, client and server" "$n $n " "$got"
	# the histograms, after the held connections are gone: show smc's
	# equal smc.ko's, read in the same window (nothing else runs SMC)
	kill_quiet $holder
	wait $holder 2>/dev/null
	py tests/lab/smcnl.py > "$TMP/nl0.json" || abort "smcnl.py failed: $(cat "$TMP/nl0.json")"
	$DS -j show smc > "$TMP/smc0.json" || abort "show smc failed"
	$SG smc 4 6120 100000 > /dev/null || abort "smcgen smc failed"
	$DS -j show smc > "$TMP/smc1.json" || abort "show smc failed"
	py tests/lab/smcnl.py > "$TMP/nl1.json" || abort "smcnl.py failed"
	# 4 connections, both ends, got a send buffer and an RMB each
	got=$(py - "$TMP/smc0.json" "$TMP/smc1.json" "$TMP/nl0.json" "$TMP/nl1.json" <<-'PY'
	import json, sys
	c0, c1, n0, n1 = (json.load(open(p)) for p in sys.argv[1:])
	keys = {"tx_bufs": "tx_buffer_sizes", "rx_bufs": "rx_buffer_sizes",
	        "tx_reqs": "tx_request_sizes", "rx_reqs": "rx_request_sizes"}
	B = ["8KB", "16KB", "32KB", "64KB", "128KB", "256KB", "512KB", "1024KB", ">1024KB"]
	out = []
	for mode in ("smcr", "smcd"):
	    for k, ck in keys.items():
	        cli = [c1["kernel"][mode][ck][b] - c0["kernel"][mode][ck][b] for b in B]
	        nl = [x - y for x, y in zip(n1["stats"][mode][k], n0["stats"][mode][k])]
	        if cli != nl:
	            out.append("%s %s: dropscope %s, smc.ko %s" % (mode, k, cli, nl))
	r = n1["stats"]["smcr"]
	d = [sum(r[k]) - sum(n0["stats"]["smcr"][k]) for k in ("tx_bufs", "rx_bufs")]
	print("; ".join(out) or "equal", "bufs:%d/%d" % tuple(d),
	      "reqs:%d" % (sum(r["tx_reqs"]) - sum(n0["stats"]["smcr"]["tx_reqs"]) > 0))
	PY
	)
	check "show smc: the buffer and request size histograms are smc.ko's; 8 send buffers and 8 RMBs" \
		"equal bufs:8/8 reqs:1" "$got"

}

# smc_in_use_settled: show smc's buffers in use equal the sum of the
# sockets' (into $TMP/smc2.json and $TMP/all.json)
smc_in_use_settled() {
	$DS -j show smc > "$TMP/smc2.json" && $DS -j show smc sockets all > "$TMP/all.json" &&
		[ "$(py - "$TMP/smc2.json" "$TMP/all.json" <<-'PY'
		import json, sys
		smc, socks = (json.load(open(p)) for p in sys.argv[1:])
		print(smc["kernel"]["memory"]["in_use_bytes"] ==
		      sum(s.get("sndbuf", 0) + s.get("rmb", 0) for s in socks))
		PY
		)" = True ]
}

# 6.1: the device is there (without a net device: 6.1's soft-RoCE does
# not tell it), connections fall back, no link group exists
smc_linkgroups_fallback() {
	local got
	$SG smc 2 6122 100 > /dev/null || abort "smcgen smc failed"
	check "6.1: show smc linkgroups says there is none" \
		"no SMC link groups: no SMC-R or SMC-D connection was made, or all fell back to TCP" \
		"$($DS show smc linkgroups 2>&1 | tail -n 1)"
	check "6.1: show smc linkgroups -j: an empty array" "[]" "$($DS -j show smc linkgroups)"
	got=$($DS -j show smc devices | py -c "
import json, sys
print(*('%s %s %s %d' % (d['name'], d['net'] or '-', d['mode'], d['links']) for d in json.load(sys.stdin)))")
	check "6.1: show smc devices: rxe0, no net device, no link" "rxe0 - SMCR 0" "$got"
	got=$($DS -j show smc | py -c "
import json, sys
m = json.load(sys.stdin)['kernel']['memory']
print(m['in_use_bytes'], m['link_groups'], m['sndbuf_pool_bytes'])")
	check "6.1: show smc memory: in use and pools not reported (null), no link group" "None 0 0" "$got"
}

# SMC without sessions: the state probe that both share (sessions.c) still
# sees the listeners start listening, so the servers' fallbacks have their
# listener's owner; and it tells sessions nothing
test_smc_alone() {
	local p
	smc_load
	setup_module
	$DS start smc
	$SG smc 2 6112 100 > /dev/null &
	p=$!
	wait $p || abort "smcgen smc failed"
	$DS -j show smc > "$TMP/alone.json" || abort "show smc failed"
	check "start smc alone: the owners of the fallbacks, the servers' their listener's" \
		"0x03030000 client $p smcgen 2;0x05000000 server $p smcgen 2;" \
		"$(smc_owners "$TMP/alone.json" owners count | tr '\n' ';')"
	check "start smc alone: no session tracked" "0" "$(stat_of sessions_opened)"
}

# smc.ko loaded after dropscope started, and removed while dropscope
# watches: picked up, let go, counted on, and nothing in the kernel log
test_smc_late() {
	smc_unload
	setup_module
	$DS start smc
	dmesg -C
	check "started without smc.ko: not watching it, show smc says why it fails" \
		"False 0 1" "$(ds_smc watching) $(ds_smc fallbacks_total) $($DS show smc > /dev/null 2>&1; echo $?)"
	smc_load
	check "smc.ko loaded after start: watched" "True" "$(ds_smc watching)"
	$SG tcp 3 6107 100 > /dev/null || abort "smcgen tcp failed"
	check "its fallbacks are counted" "3" "$(ds_smc fallbacks_total)"
	$DS -j watch > "$TMP/late.jsonl" 2> "$TMP/late.err" &
	watcher=$!
	defer kill_quiet $watcher
	wait_for 10 grep -q "$WATCH_READY" "$TMP/late.err" || abort "watch did not start"
	smc_unload
	check "smc.ko removed while watching: let go, the count stays" "False 3" \
		"$(ds_smc watching) $(ds_smc fallbacks_total)"
	smc_load
	$SG tcp 2 6108 100 > /dev/null || abort "smcgen tcp failed"
	check "loaded again: watched, counted on" "True 5" \
		"$(ds_smc watching) $(ds_smc fallbacks_total)"
	$DS stop
	check "stopped: smc.ko is let go" "False" "$(ds_smc watching)"
	smc_unload
	smc_load
	check "smc.ko loaded while stopped: not watched, the count stays" "False 5" \
		"$(ds_smc watching) $(ds_smc fallbacks_total)"
	if dmesg | grep -E "WARNING|BUG|Oops|KASAN|leak|refcount" > "$TMP/dmesg.bad"; then
		fail "no warning in dmesg" "$(cat "$TMP/dmesg.bad")"
	else
		ok "no warning in dmesg"
	fi
}

# Masks on SMC fallback reasons: a masked reason is counted as masked,
# never alerted, and hits its rule; an only rule hides the other reasons;
# SMC rules mask no drop; bad SMC rules are refused and change nothing
test_smc_masks() {
	local rid out rc
	smc_load
	setup_module
	$DS start
	watch_start smcm.jsonl || abort "watch did not start"
	rid=$($DS -j rule mask smc 0x03010000 | json "d['id']")
	$SG tcp 5 6109 100 > /dev/null || abort "smcgen tcp failed"
	$SG smc 2 6110 100 > /dev/null || abort "smcgen smc failed"
	gen udp 3 "$UDP_CLOSED"
	$DS -j show smc > "$TMP/m1.json" || abort "show smc failed"
	check "rule mask smc 0x03010000: masked, the others shown" \
		"0x03010000 client 0 5;0x03030000 client 2 0;0x05000000 server 2 0;shown 4 masked 5;" \
		"$(py - "$TMP/m1.json" <<-'PY' | tr '\n' ';'
		import json, sys
		d = json.load(open(sys.argv[1]))
		for f in sorted(d["fallbacks"], key=lambda f: (f["code"], f["side"])):
		    print(f["code"], f["side"], f["count"], f["masked"])
		print("shown", d["fallbacks_total"], "masked", d["fallbacks_masked"])
		PY
		)"
	check "the rule's hits are the fallbacks it masked" "5" \
		"$($DS -j show rules | json "[r['hits'] for r in d if r['id'] == $rid][0]")"
	check "rule list shows the rule as rule mask takes it" "smc 0x03010000" \
		"$($DS show rules | awk -v id="$rid" '$1 == id { print $4, $5 }')"
	check "an SMC rule masks no drop" "0" "$(stat_of masked)"
	$DS stop
	check "watch: no alert carries the masked reason" \
		"0x03030000 client 2;0x05000000 server 2;" \
		"$(smc_alerted "$TMP/smcm.jsonl" | tr '\n' ';')"
	$DS rule clear
	$DS start smc
	$DS rule only smc 0x05000000 > /dev/null
	$SG smc 3 6111 100 > /dev/null || abort "smcgen smc failed"
	check "rule only smc 0x05000000: the other reasons masked" \
		"0x03030000 client 0 3;0x05000000 server 3 0;" \
		"$(json "'\n'.join('%s %s %d %d' % (f['code'], f['side'], f['count'], f['masked']) for f in sorted(d['fallbacks'], key=lambda f: f['code']))" < <($DS -j show smc) | tr '\n' ';')"
	$DS rule clear
	rid=$($DS -j rule mask l4 udp | json "d['id']")
	# bad rules: refused, and the rules stay as they were
	for args in "smc 0x03010000 l4 udp" "l4 udp smc 0x03010000" "smc zero" "smc 0" "smc 0x1ffffffff"; do
		# shellcheck disable=SC2086 # the words are the arguments
		out=$($DS rule mask $args 2>&1)
		rc=$?
		if [ $rc -eq 2 ] && [[ $out == *"smc"* ]] &&
			[ "$($DS -j show rules | json "[r['id'] for r in d]")" = "[$rid]" ]; then
			ok "bad SMC rule refused by the CLI: $args ($out)"
		else
			fail "bad SMC rule refused by the CLI: $args" "exit $rc: $out"
		fi
	done
	out=$(nlraw 10 nest:14= u32:12=50397184 u8:10=17 end:0=)
	check "the module refuses an SMC reason with another field" \
		"error EINVAL: smc: a rule on an SMC fallback reason takes no other field (Invalid argument)" "$out"
	out=$(nlraw 10 nest:14= u32:12=0 end:0=)
	if [[ $out == "error ERANGE"* ]]; then ok "the module refuses SMC reason 0 ($out)"
	else fail "the module refuses SMC reason 0" "$out"; fi
	check "refused rules change nothing" "[$rid]" "$($DS -j show rules | json "[r['id'] for r in d]")"
}
