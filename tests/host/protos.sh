#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The probes that kmod/ registers on tracepoints found by name are checked
# against the tracepoints' headers at build time. For each kernel, each
# such probe is given a prototype its tracepoint does not have (an argument
# of another type, or one more argument, as when the kernel changes the
# tracepoint); the file that checks it must then fail to build, on the
# check of that very tracepoint; and without the checks, the same change
# must build (it is a change nothing else would catch). The files
# unchanged must build. The SMC probes' header is private to net/smc: they
# are tried only on a whole kernel tree that has it. Prints KTAP.
#   tests/host/protos.sh [RELEASE|KDIR...]   (default: scripts/kernels)
set -u
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# FILES|CHECKED|PLAIN|TRACEPOINT|OLD|NEW: OLD becomes NEW in FILES (kmod/,
# comma-separated); CHECKED is the file whose build checks the prototype,
# PLAIN one that builds the probe without the check
mutants=(
	"sessions.c|sessions.c|sessions.c|inet_sock_set_state|const int oldstate, const int newstate)|const long oldstate, const int newstate)"
	"sessions.c|sessions.c|sessions.c|tcp_send_reset|static notrace void ds_send_reset_probe(DS_TCP_SEND_RESET_PROBE_ARGS)|static notrace void ds_send_reset_probe(DS_TCP_SEND_RESET_PROBE_ARGS, int more)"
	"sessions.c|sessions.c|sessions.c|tcp_receive_reset|static notrace void ds_receive_reset_probe(void *data, struct sock *sk)|static notrace void ds_receive_reset_probe(void *data, struct sock *sk, const struct sk_buff *skb)"
	"sessions.c|sessions.c|sessions.c|tcp_retransmit_skb|static notrace void ds_rtx_probe(DS_TCP_RETRANSMIT_PROBE_ARGS)|static notrace void ds_rtx_probe(DS_TCP_RETRANSMIT_PROBE_ARGS, int more)"
	"sessions.c|sessions.c|sessions.c|tcp_retransmit_synack|				    const struct request_sock *req)|				    const struct request_sock *req, int more)"
	# registered by the exported register_trace_*(), which the compiler
	# checks itself: there is no build without the check
	"probe.c|probe.c||kfree_skb|static notrace void ds_kfree_skb_probe(DS_KFREE_SKB_PROBE_ARGS)|static notrace void ds_kfree_skb_probe(DS_KFREE_SKB_PROBE_ARGS, int more)"
	"hw.c|hw.c||devlink_trap_report|				  const struct devlink_trap_metadata *md)|				  const struct devlink_trap_metadata *md, int more)"
)
smc_mutants=(
	"smc/smc.c,smc/smc.h|smc/tp.c|smc/smc.c|smc_switch_to_fallback|			   int fallback_rsn)|			   long fallback_rsn)"
	"smc/smc.c,smc/smc.h|smc/tp.c|smc/smc.c|smc_tx_sendmsg|void ds_smc_tx_probe(void *data, const struct smc_sock *smc, size_t len)|void ds_smc_tx_probe(void *data, const struct smc_sock *smc, size_t len, int more)"
	"smc/smc.c,smc/smc.h|smc/tp.c|smc/smc.c|smc_rx_recvmsg|void ds_smc_rx_probe(void *data, const struct smc_sock *smc, size_t len)|void ds_smc_rx_probe(void *data, const struct smc_sock *smc, u32 len)"
	"smc/smc.c,smc/smc.h|smc/tp.c|smc/smc.c|smcr_link_down|void ds_smc_link_down_probe(void *data, const struct smc_link *lnk,|void ds_smc_link_down_probe(void *data, const struct smc_sock *lnk,"
)
# kernels whose skb:kfree_skb has no rx_sk hook UDP's failure to queue
# kernels that have qdisc:qdisc_drop (7.0 on), unexported: found by name
qdisc_mutants=(
	"qdisc.c|qdisc.c|qdisc.c|qdisc_drop|				   enum qdisc_drop_reason reason)|				   enum qdisc_drop_reason reason, int more)"
)
late_mutants=(
	"scope.c|scope.c|scope.c|udp_fail_queue_rcv_skb|static notrace void ds_udp_fail_probe(DS_UDP_FAIL_PROBE_ARGS)|static notrace void ds_udp_fail_probe(DS_UDP_FAIL_PROBE_ARGS, int more)"
)
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(scripts/kernels)

# shellcheck source=tests/host/result.sh
. tests/host/result.sh
# tree DIR: a copy of the module's sources to build one object in
tree() {
	rm -rf "$1"
	mkdir -p "$1"
	cp -r include kmod "$1/"
	rm -f "$1"/kmod/*.ko "$1"/kmod/*.o "$1"/kmod/smc/*.o
}
# build DIR KDIR FILE: make FILE's object only; its messages in DIR/log
build() {
	make -C "$2" M="$1/kmod" "${3%.c}.o" >"$1/log" 2>&1
}
# kdir KERNEL: the build tree of a release (Debian unstable's in the
# cache of scripts/sid-kernels), or the tree given
sid=$(scripts/sid-kernels --dir)
kdir() {
	if [[ $1 == */* ]]; then
		echo "$1"
	elif [[ -e $sid/$1/ready ]]; then
		echo "$sid/$1/obj"
	else
		echo "/lib/modules/$1/build"
	fi
}
# smc_header KDIR: whether the tree has net/smc's tracepoints' header
smc_header() { [ -f "$1/net/smc/smc_tracepoint.h" ] || [ -f "$1/source/net/smc/smc_tracepoint.h" ]; }

# try NAME KDIR MUTANT: one mutant on one kernel
try() {
	local name=$1 k=$2 d=$T/m files checked plain tp old new f
	IFS='|' read -r files checked plain tp old new <<<"$3"
	tree "$d"
	name="$name: a probe of $tp with a prototype of its own fails to build (kmod/$checked)"
	for f in ${files//,/ }; do
		if ! grep -qF "$old" "$d/kmod/$f"; then
			result 0 "$name" "the prototype to change is not in kmod/$f: $old"
			return
		fi
		OLD=$old NEW=$new perl -0pi -e 's/\Q$ENV{OLD}\E/$ENV{NEW}/' "$d/kmod/$f"
	done
	if build "$d" "$k" "$checked"; then
		result 0 "$name" "it built"
		return
	elif ! grep -Eq "argument 1 of .(check_trace_callback_type|register_trace)_$tp. from incompatible pointer type" "$d/log"; then
		result 0 "$name" "it failed, but not on the check of $tp: $(grep -m3 'error' "$d/log")"
		return
	fi
	result 1 "$name"
	[ -n "$plain" ] || return
	# the same change, without the checks: it builds, silently wrong
	sed -i '/check_trace_callback_type_/d' "$d/kmod/$plain"
	name="... and without the checks, the same change builds (kmod/$plain)"
	if build "$d" "$k" "$plain"; then
		result 1 "$name"
	else
		result 0 "$name" "$(grep -m3 'error' "$d/log")"
	fi
}

echo "KTAP version 1"
for kern in "${kernels[@]}"; do
	k=$(kdir "$kern")
	files=(sessions.c smc/smc.c scope.c probe.c hw.c qdisc.c)
	smc_header "$k" && files+=(smc/tp.c)
	for f in "${files[@]}"; do
		tree "$T/c"
		if build "$T/c" "$k" "$f"; then
			result 1 "$kern: kmod/$f as it is builds"
		else
			result 0 "$kern: kmod/$f as it is builds" "$(tail -n 5 "$T/c/log")"
		fi
		# kmod/compat.mk tells, in the flags scope.c is built with
		if [ "$f" = scope.c ]; then
			grep -q DS_HAVE_KFREE_SKB_RX_SK "$T/c/kmod/.scope.o.cmd"
			late=$?
		fi
		if [ "$f" = qdisc.c ]; then
			grep -q DS_HAVE_QDISC_DROP "$T/c/kmod/.qdisc.o.cmd"
			qdisc=$?
		fi
	done
	for m in "${mutants[@]}"; do try "$kern" "$k" "$m"; done
	if [ "$qdisc" = 0 ]; then
		for m in "${qdisc_mutants[@]}"; do try "$kern" "$k" "$m"; done
	else
		echo "# $kern: no qdisc:qdisc_drop, the qdisc probe is not built"
	fi
	if [ "$late" != 0 ]; then
		for m in "${late_mutants[@]}"; do try "$kern" "$k" "$m"; done
	fi
	if smc_header "$k"; then
		for m in "${smc_mutants[@]}"; do try "$kern" "$k" "$m"; done
	else
		echo "# $kern: no net/smc/smc_tracepoint.h in its tree, the SMC probes are not checked there"
	fi
done
# Without x86-64's ORC unwinder (here: the first kernel's tree with
# CONFIG_UNWINDER_ORC unset on the command line, as Kbuild reads it), the
# stacks part is left out (nostacks.c) and the rest of the module builds
kern=${kernels[0]}
tree "$T/n"
if make -C "$(kdir "$kern")" M="$T/n/kmod" CONFIG_UNWINDER_ORC= modules >"$T/n/log" 2>&1 &&
	[ -f "$T/n/kmod/nostacks.o" ] && [ ! -f "$T/n/kmod/stacks.o" ] &&
	[ -f "$T/n/kmod/dropscope.ko" ]; then
	result 1 "$kern: without the ORC unwinder, the module builds without stacks (nostacks.c)"
else
	result 0 "$kern: without the ORC unwinder, the module builds without stacks (nostacks.c)" \
		"$(grep -E 'error|warning' "$T/n/log" | head -n 5; ls "$T/n/kmod" | grep stacks)"
fi
echo "1..$n"
[ $nfail -eq 0 ]
