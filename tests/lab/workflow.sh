# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The test-lab workflow: records, their diff, rule files. Test functions
# sourced by tests/lab/run.sh.

# rec_site FILE REASON FUNCTION: the count a record gives the sites of a
# function for a reason
rec_site() {
	awk -v r="$2" -v f="$3" '$1 == "site" && $2 == r {
		s = $5; gsub(/\047/, "", s); sub(/\+.*/, "", s)
		if (s == f) n += $3
	} END { print n + 0 }' "$1"
}

# A record against itself and a later one; the later one's counts are the
# kernel's (Udp NoPorts, Tcp OutRsts); across an unload and reload the
# same traffic compares the same, by symbol.
test_record_diff() {
	local udp0 udp1 rst1 rc
	setup_module
	$DS start
	udp0=$($KC snmp Udp NoPorts)
	gen udp 25 $UDP_CLOSED
	$DS record "$TMP/a.rec"
	check "record: the UDP closed-port drops are Udp NoPorts" \
		"$(($($KC snmp Udp NoPorts) - udp0))" \
		"$(rec_site "$TMP/a.rec" NO_SOCKET ${UDP_SITE})"
	check "record: the kernel release and build are the running kernel's" \
		"kernel $(uname -r)|$(uname -v)" \
		"$(grep '^kernel ' "$TMP/a.rec")|$(sed -n "s/^build '\(.*\)'$/\1/p" "$TMP/a.rec")"
	$DS record "$TMP/a2.rec"
	$DS diff "$TMP/a.rec" "$TMP/a2.rec" > "$TMP/d0.txt"
	rc=$?
	check "diff of a record and the same totals again: nothing, exit 0" \
		"0 0 new, 0 gone, 0 changed, 1 the same" "$rc $(tail -n 1 "$TMP/d0.txt")"

	udp1=$($KC snmp Udp NoPorts)
	rst1=$($KC snmp Tcp OutRsts)
	gen udp 10 $UDP_CLOSED
	gen tcp 4 $TCP_CLOSED
	$DS record "$TMP/b.rec"
	$DS -j diff "$TMP/a.rec" "$TMP/b.rec" > "$TMP/d1.json"
	rc=$?
	check "diff: the UDP site changed by Udp NoPorts, the TCP site new with Tcp OutRsts; exit 1" \
		"1 changed:$(($($KC snmp Udp NoPorts) - udp1)) new:$(($($KC snmp Tcp OutRsts) - rst1))" \
		"$rc $(py -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = [x["b"] - x["a"] for x in d["changes"] if x["kind"] == "changed" and x["site"].startswith(sys.argv[2] + "+")]
n = [x["b"] for x in d["changes"] if x["kind"] == "new" and x["site"].startswith(sys.argv[3] + "+")]
print("changed:%s new:%s" % (sum(c), sum(n)))
' "$TMP/d1.json" "$UDP_SITE" "$TCP_SITE")"

	# the same traffic after an unload and a reload
	unload_quiet
	setup_module
	$DS start
	gen udp 25 $UDP_CLOSED
	$DS record "$TMP/c.rec"
	$DS -j diff "$TMP/a.rec" "$TMP/c.rec" > "$TMP/d2.json"
	rc=$?
	check "diff across an unload and reload: the same sites by symbol, the same build; exit 0" \
		"0 True site 0 1" \
		"$rc $(json "'%s %s %d %d' % (d['same_build'], d['by'], len(d['changes']), d['same'])" < "$TMP/d2.json")"
}

# Bad records: refused with the file and line, exit 2.
test_record_bad() {
	local out rc
	setup_module
	printf 'format 1\nsite NO_SOCKET many 0 f\n' > "$TMP/bad.rec"
	$DS record "$TMP/ok.rec"
	out=$($DS diff "$TMP/ok.rec" "$TMP/bad.rec" 2>&1)
	rc=$?
	check "diff: a bad record is named with its line; exit 2" "2 1" \
		"$rc $(echo "$out" | grep -c "bad.rec:2:")"
	out=$($DS diff "$TMP/ok.rec" "$TMP/missing.rec" 2>&1)
	check "diff: a missing record; exit 2" 2 "$?"
}

# rules_of: the rules as show rules gives them, without ids and hits
rules_of() {
	$DS -j show rules | json "[{k: v for k, v in r.items() if k not in ('id', 'hits')} for r in d]"
}

# A file of rules saved and loaded gives the same rules; a file with a bad
# line, or one the module refuses, adds none; an optional rule is left out
# only for a function or a drop reason the kernel lacks.
test_rule_files() {
	local before out rc
	setup_module
	$DS rule mask l4 udp
	$DS rule mask site ${TCP_SITE} reason NO_SOCKET
	$DS rule only l3 ipv6
	$DS rule mask site ${UDP_SITE}+0x10 dev lo
	before=$(rules_of)
	$DS rule save "$TMP/r.rules"
	$DS rule clear
	$DS rule load "$TMP/r.rules"
	check "rule save, clear, rule load: the same rules" "$before" "$(rules_of)"
	check "the saved file is a batch file too" 4 \
		"$($DS rule clear; $DS -f "$TMP/r.rules" > /dev/null; $DS -j show rules | json "len(d)")"

	$DS rule clear
	printf '# two good, one bad\nrule mask l4 udp\nrule mask l4 nothing\nrule only l3 ipv6\n' > "$TMP/bad.rules"
	out=$($DS rule load "$TMP/bad.rules" 2>&1)
	rc=$?
	check "rule load: a bad line is named, nothing added; exit 2" "2 1 []" \
		"$rc $(echo "$out" | grep -c "bad.rules:3:") $(rules_of)"
	printf 'rule mask l4 udp\nrule mask dev 99999\n' > "$TMP/refused.rules"
	out=$($DS rule load "$TMP/refused.rules" 2>&1)
	rc=$?
	check "rule load: a rule the module refuses takes back those added; exit 1" \
		"1 1 []" "$rc $(echo "$out" | grep -c "no device has this ifindex") $(rules_of)"

	printf 'rule mask l4 udp\noptional rule mask site ds_no_such_function reason NO_SOCKET\noptional rule mask site %s reason NO_SOCKET\noptional rule mask site %s reason DS_NO_SUCH_REASON\n' \
		"$TCP_SITE" "$TCP_SITE" > "$TMP/opt.rules"
	out=$($DS rule load "$TMP/opt.rules" 2>&1)
	rc=$?
	check "rule load: optional rules of a function or a reason this kernel lacks are left out and named, the others added" \
		"0 1 1 2 $TCP_SITE" \
		"$rc $(echo "$out" | grep -c "opt.rules:2: left out: this kernel has no site ds_no_such_function") $(echo "$out" | grep -c "opt.rules:4: left out: this kernel has no drop reason DS_NO_SUCH_REASON") $($DS -j show rules | json "len(d), d[1]['site'].split('+')[0]" | tr -d "(),'")"
	$DS rule clear
	printf 'rule mask l4 udp\noptional rule mask site %s reason NO_SOCKET l4 nothing\n' "$TCP_SITE" > "$TMP/optbad.rules"
	out=$($DS rule load "$TMP/optbad.rules" 2>&1)
	rc=$?
	check "rule load: an optional rule with an error other than its function or reason is refused, nothing added; exit 2" \
		"2 1 []" "$rc $(echo "$out" | grep -c "optbad.rules:2:") $(rules_of)"
}

# rcvbuf.py N STATUS FILE [BEFORE [AFTER]]: once the file BEFORE exists,
# N datagrams to a UDP socket of its own with the smallest receive buffer,
# never read (each one past the first few is a UdpRcvbufErrors drop, of
# that socket); the kernel's count of that socket's drops (/proc/net/udp)
# into FILE; once the file AFTER exists, exit STATUS
RCVBUF_PY='
import os, socket, sys, time
def wait(f):
    for i in range(600):
        if os.path.exists(f):
            return
        time.sleep(0.1)
    sys.exit("no " + f)
if len(sys.argv) > 4 and sys.argv[4]:
    wait(sys.argv[4])
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])):
    s.sendto(b"x" * 1000, r.getsockname())
port = "%04X" % r.getsockname()[1]
for l in open("/proc/net/udp").read().splitlines()[1:]:
    f = l.split()
    if f[1].endswith(":" + port):
        open(sys.argv[3] + ".tmp", "w").write(f[-1] + "\n")
        os.rename(sys.argv[3] + ".tmp", sys.argv[3])
if len(sys.argv) > 5:
    wait(sys.argv[5])
sys.exit(int(sys.argv[2]))
'

# run -- CMD, CMD overflowing its own socket's receive buffer while a
# process outside it overflows another's, after CMD's and before CMD ends:
# CMD's drops are its socket's (/proc/net/udp), the rest's receive buffer
# drops the other socket's, both together Udp RcvbufErrors; the exit status
# is CMD's. Before 6.11 (no rx_sk) the socket comes from
# udp:udp_fail_queue_rcv_skb.
test_run() {
	local rcv0 rc
	setup_module
	rcv0=$($KC snmp Udp RcvbufErrors)
	python3 -c "$RCVBUF_PY" 200 0 "$TMP/out.drops" "$TMP/in.drops" &
	$DS -j run -- python3 -c "$RCVBUF_PY" 300 3 "$TMP/in.drops" "" "$TMP/out.drops" > "$TMP/run.json"
	rc=$?
	wait
	check "run: exit status CMD's; CMD's drops its socket's, the rest's receive buffer drops the other's, all of them Udp RcvbufErrors; nothing failed" \
		"3 3 $(cat "$TMP/in.drops") $(cat "$TMP/out.drops") $(($($KC snmp Udp RcvbufErrors) - rcv0)) []" \
		"$rc $(json "'%d %d %d' % (d['status'], d['cmd']['drops'], sum(s['count'] for s in d['rest']['sites'] if s['reason'] == 'SOCKET_RCVBUFF'))" < "$TMP/run.json") $(($(cat "$TMP/in.drops") + $(cat "$TMP/out.drops"))) $(json "d['failed']" < "$TMP/run.json")"
}

# The command of one run of test_run_parallel: RUN_CMD NAME TMP BIN
# "NS:UDP:NFT ..." [OUTSIDE:UDP]: for each NS, "ip netns add" makes it
# (NS/INNER: INNER, from inside NS, which the run made), with
# lo up and an nft table that drops udp port 9; then, once TMP/go exists,
# UDP datagrams to closed port 7 and NFT datagrams to port 9 inside it,
# and UDP more into OUTSIDE, a namespace made outside the run; then
# TMP/NAME.done, and it waits for TMP/end. The namespaces stay for the
# test to delete after the runs.
RUN_CMD='
name=$1 tmp=$2 bin=$3 outside=$5
for spec in $4; do
	ns=${spec%%:*} rest=${spec#*:}
	case $ns in
	*/*) nsenter --net=/run/netns/"${ns%%/*}" ip netns add "${ns#*/}" || exit 1
	     ns=${ns#*/} ;;
	*) ip netns add "$ns" || exit 1 ;;
	esac
	ip -n "$ns" link set lo up || exit 1
	echo "table inet dsrun { chain input { type filter hook input priority 0; udp dport 9 drop; }; }" |
		ip netns exec "$ns" nft -f - || exit 1
done
touch "$tmp/$name.ready"
while [ ! -e "$tmp/go" ]; do sleep 0.05; done
for spec in $4; do
	ns=${spec%%:*} ns=${ns#*/} rest=${spec#*:}
	ip netns exec "$ns" "$bin/dropgen" udp "${rest%%:*}" 7 > /dev/null || exit 1
	ip netns exec "$ns" "$bin/dropgen" udp "${rest#*:}" 9 > /dev/null || exit 1
done
[ -z "$outside" ] || ip netns exec "${outside%%:*}" "$bin/dropgen" udp "${outside#*:}" 7 > /dev/null || exit 1
touch "$tmp/$name.done"
while [ ! -e "$tmp/end" ]; do sleep 0.05; done
'

# Two runs at once, each making namespaces (one from inside another) and
# sending datagrams to a closed port and across a dropping nft rule in
# them, while the initial namespace drops too, and run a sends into a
# namespace made outside both: each run's drops are exactly what it sent
# in its own namespaces, by namespace and by name; the rest of each is
# the initial namespace's and the outside namespace's; and all of it
# together is what the hist trigger on skb:kfree_skb counted.
test_run_parallel() {
	local a=dsa$$ b=dsb$$ c=dsc$$ hist hns hnf
	setup_module
	ip netns add $c && defer ip netns del $c
	ip -n $c link set lo up
	defer sh -c "ip netns del ${a}1; ip netns del ${a}2; ip netns del ${b}1; true"
	trace_on
	$DS -j run -- bash -c "$RUN_CMD" - a "$TMP" "$BIN" "${a}1:5:3 ${a}1/${a}2:4:0" "$c:3" > "$TMP/a.json" &
	$DS -j run -- bash -c "$RUN_CMD" - b "$TMP" "$BIN" "${b}1:6:2" > "$TMP/b.json" &
	wait_for 60 test -e "$TMP/a.ready" -a -e "$TMP/b.ready"
	check "both runs at once" 2 "$($DS -j status | json "d['runs']")"
	gen udp 7 $UDP_CLOSED
	touch "$TMP/go"
	wait_for 60 test -e "$TMP/a.done" -a -e "$TMP/b.done"
	touch "$TMP/end"
	wait
	trace_off hist
	hns=$($KC hits "$TMP/hist" NO_SOCKET)
	hnf=$($KC hits "$TMP/hist" NETFILTER_DROP)
	hist=$(sed -n 's/^ *Hits: *//p' "$TMP/hist")
	# every site of each run, for the record: some kernels also drop the
	# tools' netlink messages, the runs' own sockets' in the initial netns
	$KC hist "$TMP/hist" | sed 's/^/# hist: /'
	for r in a b; do
		json "'\n'.join('# run $r: %s: %s %s netns %s: %d' % (w, s['symbol'], s['reason'], s.get('netns', '-'), s['count']) for w in ('cmd', 'rest') for s in d[w]['sites'])" < "$TMP/$r.json"
	done
	check "run a: exit 0, its namespaces named, the drops sent in each there by reason" \
		"0 ${a}1 ${a}2 ${a}1:NETFILTER_DROP=3 ${a}1:NO_SOCKET=5 ${a}2:NO_SOCKET=4" \
		"$($KC run "$TMP/a.json" NO_SOCKET NETFILTER_DROP)"
	check "run b: exit 0, its namespace named, the drops sent there by reason" \
		"0 ${b}1 ${b}1:NETFILTER_DROP=2 ${b}1:NO_SOCKET=6" \
		"$($KC run "$TMP/b.json" NO_SOCKET NETFILTER_DROP)"
	check "each run's rest the same: NO_SOCKET the initial namespace's 7 and the 3 into the namespace made outside" \
		"10 $(json "d['rest']['drops']" < "$TMP/a.json")" \
		"$(json "sum(s['count'] for s in d['rest']['sites'] if s['reason'] == 'NO_SOCKET')" < "$TMP/a.json") $(json "d['rest']['drops']" < "$TMP/b.json")"
	check "the hist trigger: every drop is one run's or the rest's; NO_SOCKET and NETFILTER_DROP those sent" \
		"$hist 25 5" \
		"$(($(json "d['cmd']['drops'] + d['rest']['drops']" < "$TMP/a.json") + $(json "d['cmd']['drops']" < "$TMP/b.json"))) $hns $hnf"
	check "no run remains, and monitoring the runs started stopped" "0 False" \
		"$($DS -j status | json "'%d %s' % (d['runs'], d['running'])")"
}

# Two of the kernel's own net selftests (linux-source-7.x's
# tools/testing/selftests/net, from the cache scripts/sid-kernels fills),
# fib_nexthop_nongw.sh and ipv6_force_forwarding.sh (which makes the
# router drop forwarded packets on purpose), side by side, each under a
# run of its own: each passes; each report's
# namespaces are namespaces its own selftest made (an ip on its PATH notes
# each "ip netns add" of its run), all of its drops in them, none of the
# other's; the rest of each has no drop (all the traffic is in the
# tests' namespaces); and the two runs add up to what the hist trigger
# counted. On 7.x, whose source the cache has.
test_run_kselftest() {
	local src ks=$TMP/ksft ip r
	src=$(scripts/sid-kernels --dir)/src-$(uname -r | cut -d. -f1,2)/tools/testing/selftests/net
	if [ ! -d "$src" ]; then
		skip "test_run_kselftest" "no net selftests of $(uname -r | cut -d. -f1,2) in the cache (scripts/sid-kernels)"
		return
	fi
	setup_module
	cp -r "$src" "$ks"
	ip=$(command -v ip)
	mkdir "$TMP/shim"
	printf '#!/bin/sh
[ "$1 $2" != "netns add" ] || echo "$3" >> "$DS_NSLOG"
exec %s "$@"
' \
		"$ip" > "$TMP/shim/ip"
	chmod +x "$TMP/shim/ip"
	: > "$TMP/a.ns"
	: > "$TMP/b.ns"
	trace_on
	(cd "$ks" && DS_NSLOG=$TMP/a.ns PATH=$TMP/shim:$PATH \
		"$OLDPWD/$DS" -j run --output "$TMP/a.json" -- ./fib_nexthop_nongw.sh > "$TMP/a.out" 2>&1) &
	(cd "$ks" && DS_NSLOG=$TMP/b.ns PATH=$TMP/shim:$PATH \
		"$OLDPWD/$DS" -j run --output "$TMP/b.json" -- ./ipv6_force_forwarding.sh > "$TMP/b.out" 2>&1) &
	wait
	trace_off hist
	for r in a b; do
		sed 's/^/# selftest '$r': /' "$TMP/$r.out" | tail -3
		json "'\n'.join('# run %s: netns %s: %d drops' % ('$r', n['name'], n['drops']) for n in d['cmd']['netns'])" < "$TMP/$r.json"
		check "kselftest $r: passed; its drops all in namespaces it made, named, none the other's; no rest" \
			"0 yes 0" \
			"$(py -c "
import json, sys
d = json.load(open('$TMP/$r.json'))
own = set(open('$TMP/$r.ns').read().split())
other = set(open('$TMP/$([ $r = a ] && echo b || echo a).ns').read().split())
names = [n['name'] for n in d['cmd']['netns']]
good = names and all(n in own and n not in other for n in names) and \
	sum(n['drops'] for n in d['cmd']['netns']) == d['cmd']['drops']
print(d['status'], 'yes' if good else 'no: %s of %s' % (names, sorted(own)), d['rest']['drops'])
")"
	done
	check "kselftests: the two runs' drops are every drop the hist trigger counted" \
		"$(sed -n 's/^ *Hits: *//p' "$TMP/hist")" \
		"$(($(json "d['cmd']['drops']" < "$TMP/a.json") + $(json "d['cmd']['drops']" < "$TMP/b.json")))"
}

runs_are() { [ "$($DS -j status | json "d['runs']")" = "$1" ]; }

# Evidence kept the first time: two runs at once, each with --evidence,
# each sending into a namespace of its own datagrams to a closed port and
# across nft rules, on input (no socket) and on output (the sender's
# socket, in its own syscall). Each directory holds a pcapng per key that
# tshark reads, one packet per drop kept (the first --keep of the key),
# the reason and the namespace in each packet's comment, and for the
# output drops the socket's addresses and ports and the sending process;
# stacks.txt, whose every stack begins at its site; and index.json, the
# same packets. Neither run's files hold the other's drops; the report
# (JSON for one, KTAP for the other) names the files.
EV_CMD='
tmp=$1 bin=$2 ns=$3 n=$4
ip netns add "$ns" && ip -n "$ns" link set lo up || exit 1
printf "%s\n" "table inet dsev {" \
	"chain input { type filter hook input priority 0; udp dport 9 drop; }" \
	"chain output { type filter hook output priority 0; udp dport 10 drop; }" "}" |
	ip netns exec "$ns" nft -f - || exit 1
ip netns exec "$ns" "$bin/dropgen" udp "$n" 7 > /dev/null || exit 1
ip netns exec "$ns" "$bin/dropgen" udp 3 9 > /dev/null || exit 1
ip netns exec "$ns" python3 -c "
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect((\"127.0.0.1\", 10))
for i in range(2):
    try:
        s.send(b\"x\")
    except PermissionError:
        pass
print(os.getpid(), s.getsockname()[1])
" > "$tmp/$ns.sock" || exit 1
ip netns del "$ns"
'

test_run_evidence() {
	local a=dsea$$ b=dseb$$ rc
	need tshark
	setup_module
	$DS -j run --evidence "$TMP/ea" --keep 6 -- bash -c "$EV_CMD" - "$TMP" "$BIN" $a 8 > "$TMP/a.json" &
	$DS run --ktap --output "$TMP/b.ktap" --evidence "$TMP/eb" -- bash -c "$EV_CMD" - "$TMP" "$BIN" $b 5 > /dev/null &
	wait
	py - "$TMP" $a $b <<'PY' > "$TMP/ev.out"
import json, os, re, subprocess, sys
tmp, a, b = sys.argv[1:]
def files(d):
    idx = json.load(open(os.path.join(d, 'index.json')))
    # by reason: the key whose packets are the run's (the site differs
    # between kernels: udp_rcv inlines __udp4_lib_rcv on some)
    ev = {e['reason']: e for e in idx['evidence']
          if any(p['part'] == 'cmd' for p in e['drops'])}
    return idx, ev
def tshark(path, *fields):
    args = ['tshark', '-r', path, '-T', 'fields']
    for f in fields:
        args += ['-e', f]
    out = subprocess.run(args, capture_output=True, text=True).stdout
    return [l.split('\t') for l in out.splitlines()]
rep = json.load(open(os.path.join(tmp, 'a.json')))
nsa = [n['netns'] for n in rep['cmd']['netns'] if n['name'] == a]
out = []
for run, d, n in ((a, 'ea', 6), (b, 'eb', 5)):
    idx, ev = files(os.path.join(tmp, d))
    pid, sport = open(os.path.join(tmp, run + '.sock')).read().split()
    ns = set()
    for key, port in (('NO_SOCKET', '7'), ('NETFILTER_DROP', None)):
        e = ev.get(key)
        if not e:
            out.append('%s %s: no evidence' % (run, key))
            continue
        rows = tshark(os.path.join(tmp, d, e['pcap']), 'frame.comment', 'udp.dstport')
        ok = all(r[0].startswith('dropscope: %s at %s ' % (key, e['site'])) for r in rows)
        ns |= {re.search(r'netns (\d+)', r[0]).group(1) for r in rows}
        if port:
            ok = ok and all(r[1] == port for r in rows)
        socks = [r for r in rows if ' socket ' in r[0]]
        out.append('%s %s: %d packets in the pcapng, %d in the index, %s, %d with the socket 127.0.0.1:%s 127.0.0.1:10 and pid %s' % (
            run, key, len(rows), len(e['drops']), 'comments right' if ok else 'comments wrong',
            sum(1 for r in socks if 'socket 127.0.0.1:%s 127.0.0.1:10 pid %s (python3)' % (sport, pid) in r[0]), sport, pid))
    out.append('%s: namespaces %d' % (run, len(ns)))
    if run == a:
        out.append('a: its namespace %s' % ('yes' if ns == {str(x) for x in nsa} else 'no'))
    # every stack begins at its site
    blocks = open(os.path.join(tmp, d, 'stacks.txt')).read().strip().split('\n\n')
    good = [bl for bl in blocks
            if re.split(r'[+ ]', bl.split('\n')[0].split(' at ')[1])[0] ==
               re.split(r'[+ ]', bl.split('\n')[1].strip())[0]]
    out.append('%s: stacks %d, each beginning at its site %s' % (run, len(blocks), 'yes' if blocks and len(good) == len(blocks) else 'no'))
    out.append('%s: lost %d' % (run, sum(idx['evidence_lost'][k] for k in ('buffer', 'socket', 'keys'))))
print('\n'.join(out))
PY
	sed 's/^/# /' "$TMP/ev.out"
	grep '^#' "$TMP/b.ktap" | sed 's/^/# b: /'
	check "run a: the first 6 of 8 NO_SOCKET kept, read by tshark, each commented with the reason, to port 7" \
		"$a NO_SOCKET: 6 packets in the pcapng, 6 in the index, comments right, 0 with" \
		"$(grep "^$a NO_SOCKET" "$TMP/ev.out" | sed 's/ the socket.*//')"
	check "run a: NETFILTER_DROP: 3 on input, 2 on output with the socket's ports and the sending process" \
		"$a NETFILTER_DROP: 5 packets in the pcapng, 5 in the index, comments right, 2 with" \
		"$(grep "^$a NETFILTER_DROP" "$TMP/ev.out" | sed 's/ the socket.*//')"
	check "run b: its own 5 NO_SOCKET and 5 NETFILTER_DROP, none of run a's" \
		"$b NO_SOCKET: 5 packets in the pcapng, 5 in the index, comments right, 0 with $b NETFILTER_DROP: 5 packets in the pcapng, 5 in the index, comments right, 2 with" \
		"$(grep "^$b N" "$TMP/ev.out" | sed 's/ the socket.*//' | tr '\n' ' ' | sed 's/ $//')"
	check "each run's packets all in its one namespace, run a's the one its report names" \
		"$a: namespaces 1 a: its namespace yes $b: namespaces 1" \
		"$(grep -E "^($a|$b): namespaces|^a: its" "$TMP/ev.out" | tr '\n' ' ' | sed 's/ $//')"
	check "stacks.txt: every stack's first frame is its site; nothing lost" \
		"$a: stacks yes $a: lost 0 $b: stacks yes $b: lost 0" \
		"$(grep -E "stacks|lost" "$TMP/ev.out" | sed 's/ [0-9]*, each beginning at its site//' | tr '\n' ' ' | sed 's/ $//')"
	check "the reports name the files: JSON's evidence, KTAP's diagnostics" \
		"$TMP/ea/$(json "[e['pcap'] for e in d['evidence'] if e['reason'] == 'NO_SOCKET'][0].split('/')[-1]" < "$TMP/a.json") yes" \
		"$(json "[e['pcap'] for e in d['evidence'] if e['reason'] == 'NO_SOCKET'][0]" < "$TMP/a.json") $(grep -q "^# evidence: NO_SOCKET at .*: 5 packets in $TMP/eb/.*pcapng, stacks in $TMP/eb/stacks.txt" "$TMP/b.ktap" && echo yes)"
	# a directory with files in it is refused, before CMD runs, and no
	# run is left; --keep needs --evidence
	$DS run --evidence "$TMP/ea" -- touch "$TMP/ran" 2> "$TMP/bad.err"
	rc=$?
	$DS run --keep 4 -- true 2>> "$TMP/bad.err"
	check "run --evidence into a directory with files, --keep alone: exit 2, said why, CMD not run, no run left" \
		"2 2 1 1 no 0" \
		"$rc $? $(grep -c "ea: not empty" "$TMP/bad.err") $(grep -c "need --evidence" "$TMP/bad.err") $([ -e "$TMP/ran" ] && echo ran || echo no) $($DS -j status | json "d['runs']")"
}

# The owner of a dropped packet's socket: a run with --evidence connects
# from a namespace of its own across an nft rule that drops its SYNs, and
# closes once the kernel's counter has dropped the SYN of connect() and
# one sent again by the retransmit timer (in softirq, no task). Every SYN
# kept carries the socket and its process, as the run's TCP session has it
# (owner); only connect()'s has the task that freed it too (pid). The
# kernel's nft counter says how many SYNs there were.
EVO_CMD='
tmp=$1 ns=$2
ip netns add "$ns" && ip -n "$ns" link set lo up || exit 1
printf "%s\n" "table inet dsevo {" "counter syns { }" \
	"chain output { type filter hook output priority 0; tcp dport 11 counter name syns drop; }" "}" |
	ip netns exec "$ns" nft -f - || exit 1
ip netns exec "$ns" python3 -c "
import os, re, socket, subprocess, time
def syns():
    out = subprocess.run([\"nft\", \"list\", \"counter\", \"inet\", \"dsevo\", \"syns\"],
                         capture_output=True, text=True).stdout
    return int(re.search(r\"packets (\d+)\", out).group(1))
s = socket.socket()
s.setblocking(False)
s.connect_ex((\"127.0.0.1\", 11))
print(os.getpid(), s.getsockname()[1], flush=True)
for i in range(600):
    if syns() >= 2:
        break
    time.sleep(0.1)
s.close()
print(syns())
" > "$tmp/evo.out" || exit 1
ip netns del "$ns"
'

test_run_evidence_owner() {
	local ns=dsevo$$
	need tshark
	setup_module
	$DS -j run --evidence "$TMP/eo" -- bash -c "$EVO_CMD" - "$TMP" $ns > "$TMP/eo.json"
	py - "$TMP" <<'PY' > "$TMP/eo.txt"
import json, os, subprocess, sys
tmp = sys.argv[1]
pid, sport, n = open(os.path.join(tmp, 'evo.out')).read().split()
idx = json.load(open(os.path.join(tmp, 'eo', 'index.json')))
e = [e for e in idx['evidence'] if e['reason'] == 'NETFILTER_DROP']
if len(e) != 1:
    print('%d NETFILTER_DROP keys' % len(e))
    sys.exit()
rows = subprocess.run(['tshark', '-r', os.path.join(tmp, 'eo', e[0]['pcap']),
                       '-T', 'fields', '-e', 'frame.comment', '-e', 'tcp.flags.syn',
                       '-e', 'tcp.dstport'],
                      capture_output=True, text=True).stdout.splitlines()
sock = 'socket 127.0.0.1:%s 127.0.0.1:11 owner %s (python3)' % (sport, pid)
print('syns %s: %d packets, %d SYNs to 11, %d with the socket and its owner, %d with the task %s, index %s' % (
    n, len(rows), sum(1 for r in rows if r.split('\t')[1:] in (['1', '11'], ['True', '11'])),
    sum(1 for r in rows if sock in r), sum(1 for r in rows if r.split('\t')[0].endswith(' pid %s (python3)' % pid)), pid,
    'same' if [str(d.get('owner_pid')) for d in e[0]['drops']] == [pid] * len(rows) else 'differs'))
PY
	sed 's/^/# /' "$TMP/eo.txt"
	n=$(cut -d' ' -f1 "$TMP/evo.out" | tail -1)
	check "run --evidence: each SYN the nft rule dropped (its counter) kept with its socket and the socket's process from the run's session; connect()'s also with its task" \
		"syns $n: $n packets, $n SYNs to 11, $n with the socket and its owner, 1 with the task $(head -1 "$TMP/evo.out" | cut -d' ' -f1), index same" \
		"$(cat "$TMP/eo.txt")"
}

# 16 runs at once; a 17th is refused, saying why, and changes nothing; a
# run whose CLI is killed ends with it; once all end, monitoring that the
# runs started stops.
test_run_limit() {
	local i pids=() rc kcg
	setup_module
	for i in $(seq 16); do
		$DS run -- sh -c "while [ ! -e $TMP/end ]; do sleep 1; done" > /dev/null &
		pids+=($!)
	done
	wait_for 60 runs_are 16
	$DS -j status > "$TMP/s16.json"
	$DS run -- true > "$TMP/r17.out" 2> "$TMP/r17.err"
	rc=$?
	check "a 17th run is refused, saying why, and leaves no cgroup" \
		"1 1 16" \
		"$([ $rc -ne 0 ] && echo 1) $(grep -c '16 runs at once already' "$TMP/r17.err") $(find /sys/fs/cgroup -maxdepth 1 -name 'dropscope-run.*' | wc -l)"
	check "status while 16 run: the same before and after the refusal" \
		"$(cat "$TMP/s16.json")" "$($DS -j status)"
	kill -9 "${pids[0]}"
	wait "${pids[0]}" 2> /dev/null
	wait_for 30 runs_are 15
	check "a killed CLI's run ends with it" 15 "$($DS -j status | json "d['runs']")"
	touch "$TMP/end"
	for i in "${pids[@]:1}"; do wait "$i"; done
	# the killed CLI could not remove its cgroup: its command was in it
	kcg=/sys/fs/cgroup/dropscope-run.${pids[0]}
	wait_for 10 sh -c "! [ -s $kcg/cgroup.procs ]"
	rmdir "$kcg"
	check "all runs ended: none left, monitoring stopped" "0 False" \
		"$($DS -j status | json "'%d %s' % (d['runs'], d['running'])")"
}

# A listener that accepts N connections on 127.0.0.1:PORT and reads each to
# its end before closing it; it writes READY into FILE once it listens.
ACCEPT_PY='
import os, socket, sys
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", int(sys.argv[2])))
l.listen(64)
open(sys.argv[3], "w").write("READY\n")
for i in range(int(sys.argv[1])):
    c, _ = l.accept()
    while c.recv(65536):
        pass
    c.close()
'

# N connections to 127.0.0.1:PORT, each sending 3000 bytes, then its end,
# and reading the peer's end before it closes.
CONNECT_PY='
import socket, sys
for i in range(int(sys.argv[1])):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
    s.sendall(b"x" * 3000)
    s.shutdown(socket.SHUT_WR)
    while s.recv(65536):
        pass
    s.close()
'

# run -- CMD where CMD opens 20 sessions to a listener outside its cgroup:
# CMD's sessions are the Tcp ActiveOpens delta, all closed, 3002 bytes
# acked each (3000, the SYN and the FIN, as ss -ti counts bytes_acked); the
# accepted ones, the listener's cgroup's, are the rest's: the PassiveOpens
# delta, 3001 bytes received each (3000 and the FIN); none lost. The
# PassiveOpens delta may be 21: two CPUs may each make a child of one
# request, and the one that loses the race closes at once (no bytes).
test_run_sessions() {
	local act0 pas0 act pas
	setup_module
	python3 -c "$ACCEPT_PY" 20 5071 "$TMP/ready" &
	for _ in $(seq 100); do [ -s "$TMP/ready" ] && break; sleep 0.1; done
	act0=$($KC snmp Tcp ActiveOpens)
	pas0=$($KC snmp Tcp PassiveOpens)
	$DS -j run -- python3 -c "$CONNECT_PY" 20 5071 > "$TMP/run.json"
	wait
	act=$(($($KC snmp Tcp ActiveOpens) - act0))
	pas=$(($($KC snmp Tcp PassiveOpens) - pas0))
	check "run: CMD's sessions opened (ActiveOpens), closed, bytes acked; the rest's opened (PassiveOpens) and bytes received; none lost" \
		"20 20 20 $((20 * 3002)) $pas $((20 * 3001)) 0" \
		"$act $(json "'%d %d %d' % (d['cmd']['sessions']['opened'], d['cmd']['sessions']['closed'], d['cmd']['sessions']['bytes_acked'])" < "$TMP/run.json") $(json "'%d %d %d' % (d['rest']['sessions']['opened'], d['rest']['sessions']['bytes_received'], d['sessions_lost'])" < "$TMP/run.json")"
	# monitoring without tcp: the report says so, and has no sessions
	$DS start drops
	$DS -j run -- true > "$TMP/run2.json"
	$DS run -- true > "$TMP/run2.txt"
	check "run while monitoring runs without tcp: no sessions, and said" "False 1" \
		"$(json "'sessions' in d['cmd']" < "$TMP/run2.json") $(grep -c 'sessions: not tracked' "$TMP/run2.txt")"
}

# The example rules of normal lab drops: run --rules examples/normal.rules
# --max 0 around a namespace, a veth pair and a dummy device brought up and
# taken down exits 0, and what the rules masked is every drop the kernel
# freed meanwhile (a hist trigger on skb:kfree_skb).
test_rules_normal() {
	local ns=dsnorm$$ rc hist
	setup_module
	trace_on
	$DS -j run --rules examples/normal.rules --max 0 -- sh -c "
		ip netns add $ns &&
		ip link add dsn0 type veth peer name dsn1 netns $ns &&
		ip link add dsd0 type dummy &&
		ip link set dsn0 up && ip link set dsd0 up &&
		ip -n $ns link set lo up && ip -n $ns link set dsn1 up &&
		sleep 3;
		ip link del dsd0; ip link del dsn0; ip netns del $ns" > "$TMP/run.json"
	rc=$?
	wait_for 10 sh -c "! [ -e /sys/class/net/dsn0 ]"
	trace_off hist
	hist=$(sed -n 's/^ *Hits: *//p' "$TMP/hist")
	check "run --rules examples/normal.rules --max 0 around devices brought up: exit 0, the rules masked every drop the kernel freed" \
		"0 $hist" "$rc $(json "sum(s['masked'] for s in d['cmd']['sites'] + d['rest']['sites'])" < "$TMP/run.json")"
	# what the file does not explain, if anything: each site with drops shown
	json "'\\n'.join('# not masked: %s: %s %s, %d drops' % (w, s.get('symbol'), s.get('reason'), s.get('count', 0)) for w in ('cmd', 'rest') for s in d[w]['sites'] if s.get('count', 0)) or '# no drop shown'" < "$TMP/run.json"
	check "the devices' bring-up dropped packets: the rules had something to mask" \
		"yes" "$([ "${hist:-0}" -gt 0 ] && echo yes)"
	# the selftests' file resolves on every kernel: all of its rules but
	# the optional ones of functions this kernel lacks, named
	$DS rule load examples/kselftest-net.rules 2> "$TMP/ks.err"
	rc=$?
	check "rule load examples/kselftest-net.rules: every rule added or, optional, left out and named" \
		"0 $(grep -cE '^(optional )?rule' examples/kselftest-net.rules)" \
		"$rc $(($($DS -j show rules | json "len(d)") + $(grep -c 'left out: this kernel has no' "$TMP/ks.err")))"
}

# --fail-on new against a baseline of the same traffic passes; a new kind
# of drop fails with status 5 and is named; --ktap is KTAP, a line a
# condition.
test_run_baseline() {
	local rc out
	setup_module
	$DS start
	gen udp 10 $UDP_CLOSED
	$DS record "$TMP/base.rec"
	$DS stop
	$DS run --baseline "$TMP/base.rec" --fail-on new -- $BIN/dropgen udp 10 $UDP_CLOSED > "$TMP/r0.txt"
	rc=$?
	check "run --fail-on new: the same traffic as the baseline passes" 0 "$rc"
	# the report to a file of its own: CMD prints to standard output
	$DS -j run --baseline "$TMP/base.rec" --fail-on new --output "$TMP/r1.json" -- \
		sh -c "$BIN/dropgen udp 10 $UDP_CLOSED && $BIN/dropgen tcp 3 $TCP_CLOSED" > "$TMP/cmd.out"
	rc=$?
	out=$(cat "$TMP/r1.json")
	check "run --fail-on new: a new site fails (exit 5), and is named; CMD's output is its own" "5 1 2" \
		"$rc $(echo "$out" | json "len([f for f in d['failed'] if 'no site' in f])") $(grep -c '^sent ' "$TMP/cmd.out")"
	$DS run --ktap --max 0 --fail-on reason NO_SOCKET -- \
		sh -c "$BIN/dropgen udp 4 $UDP_CLOSED >/dev/null" > "$TMP/k.tap"
	rc=$?
	check "run --ktap: KTAP, a test line a condition (3), the failed ones not ok; exit 5" \
		"5 KTAP version 1|1..3|ok 1|not ok 2|not ok 3" \
		"$rc $(py -c '
import re, sys
l = open(sys.argv[1]).read().splitlines()
print("|".join([l[0], l[1]] + [re.match(r"(not )?ok \d+", x).group(0) for x in l[2:]]))
' "$TMP/k.tap")"
}
