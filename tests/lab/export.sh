# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The Prometheus exporter: test functions sourced by tests/lab/run.sh.
# Prometheus itself scrapes it and its query API is compared, series by
# series, with the module's sites (themselves checked against a hist
# trigger on skb:kfree_skb and Udp NoPorts); node_exporter reads the
# textfile; promtool checks the format.

PC="py tests/lab/promcheck.py"
EXP_PORT=19717
PROM_PORT=19090
NODE_PORT=19100
EXP_URL=http://127.0.0.1:$EXP_PORT/metrics

# exp_start ARGS...: `dropscope export ARGS` in the background ($exp),
# once it serves
exp_start() {
	$DS export "$@" > "$TMP/exp.out" 2> "$TMP/exp.err" &
	exp=$!
	defer kill_quiet $exp
	wait_for 60 grep -q "$WATCH_READY" "$TMP/exp.err" ||
		abort "export did not start: $(cat "$TMP/exp.err")"
}
# exp_value NAME [LABELS]: one sample of /metrics now
exp_value() {
	curl -sf "$EXP_URL" > "$TMP/scrape.txt" || { echo "no answer"; return; }
	$PC text "$TMP/scrape.txt" "$@"
}
# exp_wait VALUE NAME [LABELS]: until /metrics shows it (60 s at most)
exp_wait() {
	local want=$1
	shift
	local deadline=$((SECONDS + 60))
	until [ "$(exp_value "$@")" = "$want" ]; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.2
	done
}
# the series of the UDP closed-port drops (run.sh finds their site)
udp_series() { echo "reason=\"NO_SOCKET\",site=~\"$UDP_SITE\\\\+.*\""; }

# Prometheus scrapes the exporter; its query API returns exactly what the
# kernel counted, site by site; promtool accepts the text
# prom_scraped URL: Prometheus has scraped dropscope, and found it up
prom_scraped() { [ "$($PC query "$1" dropscope_up)" = 1 ]; }

test_export_prometheus() {
	local udp0 got prom_url=http://127.0.0.1:$PROM_PORT
	need prometheus promtool curl
	setup_module
	trace_on
	udp0=$($KC snmp Udp NoPorts)
	$DS start
	gen udp 500 $UDP_CLOSED
	gen tcp 100 $TCP_CLOSED
	$DS stop
	trace_off prom.hist
	sites_equal_tracefs "before the export:" prom all
	exp_start --listen "127.0.0.1:$EXP_PORT" --interval 1s
	curl -sf "$EXP_URL" > "$TMP/metrics.txt" || abort "no /metrics"
	if got=$(promtool check metrics < "$TMP/metrics.txt" 2>&1); then
		ok "promtool check metrics accepts /metrics"
	else
		fail "promtool check metrics accepts /metrics" "$got"
	fi
	mkdir -p "$TMP/prom"
	cat > "$TMP/prom.yml" <<-YML
	global:
	  scrape_interval: 1s
	scrape_configs:
	  - job_name: dropscope
	    static_configs:
	      - targets: ['127.0.0.1:$EXP_PORT']
	YML
	prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/prom" \
		--web.listen-address="127.0.0.1:$PROM_PORT" > "$TMP/prom.log" 2>&1 &
	defer kill_quiet $!
	wait_oracle 300 curl -sf "$prom_url/-/ready" -o /dev/null ||
		abort "prometheus did not get ready: $(tail -5 "$TMP/prom.log")"
	wait_oracle 120 prom_scraped "$prom_url" ||
		abort "prometheus did not scrape dropscope: $(tail -5 "$TMP/prom.log")"
	# Each series' last scraped sample: a later scrape that timed out (a
	# slow guest; the timeout is the interval, 1 s) marks the series
	# stale, and an instant query would find nothing
	got=$($PC query $prom_url "sum(last_over_time(dropscope_drops_total{$(udp_series)}[1h]))")
	check "Prometheus: NO_SOCKET at ${UDP_SITE} equals Udp NoPorts" \
		"500 $(($($KC snmp Udp NoPorts) - udp0))" "$got $got"
	if got=$($PC same $prom_url "$TMP/prom.json"); then
		ok "Prometheus: every site and reason equals dropscope's sites, which equal tracefs ($got)"
	else
		fail "Prometheus: every site and reason equals dropscope's sites" "$got"
	fi
	check "Prometheus: all drops, as the hist trigger counted them" \
		"$($KC hits "$TMP/prom.hist")" \
		"$($PC query $prom_url 'sum(last_over_time(dropscope_drops_total[1h])) + sum(last_over_time(dropscope_drops_unsited_total[1h]))')"
}

# The textfile: written atomically each interval, read by node_exporter
test_export_textfile() {
	local udp0 got
	need prometheus-node-exporter curl promtool
	setup_module
	udp0=$($KC snmp Udp NoPorts)
	$DS start drops
	gen udp 300 $UDP_CLOSED
	$DS stop
	mkdir -p "$TMP/tf"
	exp_start --textfile "$TMP/tf/dropscope.prom" --interval 200ms
	wait_for 30 test -s "$TMP/tf/dropscope.prom" || abort "no textfile"
	if got=$(promtool check metrics < "$TMP/tf/dropscope.prom" 2>&1); then
		ok "promtool check metrics accepts the textfile"
	else
		fail "promtool check metrics accepts the textfile" "$got"
	fi
	prometheus-node-exporter --web.listen-address="127.0.0.1:$NODE_PORT" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$TMP/tf" > "$TMP/node.log" 2>&1 &
	defer kill_quiet $!
	wait_oracle 120 sh -c "curl -sf http://127.0.0.1:$NODE_PORT/metrics > $TMP/node.txt" ||
		abort "node_exporter did not answer: $(tail -5 "$TMP/node.log")"
	got=$(grep "^dropscope_drops_total{reason=\"NO_SOCKET\",site=\"$UDP_SITE+" "$TMP/node.txt" | awk '{print $2}')
	check "node_exporter reads NO_SOCKET at ${UDP_SITE}, as Udp NoPorts" \
		"300 $(($($KC snmp Udp NoPorts) - udp0))" "$got $got"
	check "node_exporter read the textfile without error" "0" \
		"$($PC text "$TMP/node.txt" node_textfile_scrape_error)"
	# each write is a rename: no temporary file is ever left to be read
	kill -INT $exp
	wait $exp
	check "only the textfile, no temporary file, is left" "dropscope.prom" \
		"$(ls "$TMP/tf")"
}

# Unload and reload under a running exporter: /metrics says the module is
# gone, and every counter stays monotonic through reload, start and reset
test_export_reload() {
	local site got
	need curl
	setup_module
	exp_start --listen "127.0.0.1:$EXP_PORT" --interval 300ms
	# each scrape reads the module: its epoch is known before start
	exp_wait 1 dropscope_up || abort "the exporter does not see the module"
	$DS start drops
	gen udp 300 $UDP_CLOSED
	$DS -j show sites layer kernel > "$TMP/s1.json"
	site=$(py -c 'import json,sys; print([s["symbol"] for s in json.load(open(sys.argv[1])) if s["reason"]=="NO_SOCKET" and s["symbol"].startswith(sys.argv[2] + "+")][0])' "$TMP/s1.json" "$UDP_SITE")
	local L="reason=\"NO_SOCKET\",site=\"$site\""
	exp_wait 300 dropscope_drops_total "$L" || fail "the exporter shows 300" "$(exp_value dropscope_drops_total "$L")"
	$DS stop
	rmmod dropscope || abort "rmmod failed"
	if exp_wait 0 dropscope_up; then ok "dropscope_up is 0 once the module is gone"
	else fail "dropscope_up is 0 once the module is gone" "$(exp_value dropscope_up)"; fi
	check "the counter keeps its value while the module is gone" 300 \
		"$(exp_value dropscope_drops_total "$L")"
	setup_module
	exp_wait 1 dropscope_up || abort "the exporter does not see the module again"
	$DS start drops
	gen udp 200 $UDP_CLOSED
	if exp_wait 500 dropscope_drops_total "$L"; then
		ok "after reload and start: 300 + 200"
	else
		fail "after reload and start: 300 + 200" "$(exp_value dropscope_drops_total "$L")"
	fi
	check "dropscope_up is 1 again" 1 "$(exp_value dropscope_up)"
	$DS reset
	gen udp 50 $UDP_CLOSED
	if exp_wait 550 dropscope_drops_total "$L"; then
		ok "after reset: 500 + 50"
	else
		fail "after reset: 500 + 50" "$(exp_value dropscope_drops_total "$L")"
	fi
	got=$(exp_value dropscope_exporter_epochs_total)
	check "the epochs seen: start, reload, start, reset" 4 "$got"
	check "the exporter said the module went away and came back" "1 2" \
		"$(grep -c 'lost dropscope.ko' "$TMP/exp.err") $(grep -c 'dropscope.ko answers' "$TMP/exp.err")"
	$DS stop
}

# Bad options get a clear error, exit status 2 (1 for a port in use), and
# nothing runs
test_export_bad() {
	local out rc
	need curl
	out=$($DS export --listen nonsense 2>&1); rc=$?
	check "--listen nonsense: usage error" "2 1" "$rc $(grep -c 'expected ADDR:PORT' <<< "$out")"
	out=$($DS export --listen 127.0.0.1:70000 2>&1); rc=$?
	check "--listen port 70000: usage error" "2 1" "$rc $(grep -c 'from 1 to 65535' <<< "$out")"
	out=$($DS export --listen 203.0.113.1:9717 2>&1); rc=$?
	check "--listen on an address not here: failure" "1 1" "$rc $(grep -c 'Cannot assign requested address' <<< "$out")"
	out=$($DS export --interval 0s 2>&1); rc=$?
	check "--interval 0s: usage error" "2 1" "$rc $(grep -c 'from 100ms to 1h' <<< "$out")"
	out=$($DS export --textfile /nonexistent/dir/x.prom 2>&1); rc=$?
	check "--textfile in no directory: failure" "1 1" "$rc $(grep -c 'cannot write /nonexistent/dir/x.prom' <<< "$out")"
	exp_start --listen "127.0.0.1:$EXP_PORT"
	out=$($DS export --listen "127.0.0.1:$EXP_PORT" 2>&1); rc=$?
	check "a port in use: failure, said" "1 1" "$rc $(grep -c 'Address already in use' <<< "$out")"
	check "the first exporter still serves" 404 \
		"$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$EXP_PORT/nothing")"
}
