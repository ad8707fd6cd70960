#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmod/compat.mk on each lab kernel's headers: it gives the kernel the
# flags that its headers call for, and when a tracepoint the module hooks
# has a prototype it does not know (here: each one in turn given one more
# argument, as when a kernel changes it), the build stops in compat.mk
# with a message that names that tracepoint. Prints KTAP.
#   tests/host/compat.sh [RELEASE|KDIR...]   (default: scripts/kernels)
set -u
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# FILE EVENT: the tracepoints compat.mk reads (include/trace/events/FILE)
tps=("skb.h kfree_skb" "tcp.h tcp_retransmit_skb" "tcp.h tcp_send_reset"
	"udp.h udp_fail_queue_rcv_skb" "sock.h inet_sock_set_state"
	"tcp.h tcp_receive_reset" "tcp.h tcp_retransmit_synack"
	"devlink.h devlink_trap_report" "qdisc.h qdisc_drop")
sid=$(scripts/sid-kernels --dir)
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(scripts/kernels)

# shellcheck source=tests/host/result.sh
. tests/host/result.sh
# srctree KERNEL: the source (headers) tree of a release or build tree
srctree() {
	local k=$1 inc
	if [[ $k != */* ]]; then
		if [[ -e $sid/$k/ready ]]; then k=$sid/$k/obj; else k=/lib/modules/$k/build; fi
	fi
	inc=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$k/Makefile" 2>/dev/null)
	if [ -n "$inc" ]; then echo "$inc"
	elif [ -e "$k/source" ]; then readlink -f "$k/source"
	else echo "$k"; fi
}
# flags SRCTREE: what compat.mk adds to ccflags-y there; its errors in $T/log
flags() {
	make -s -f kmod/compat.mk -f <(printf 'x:\n\t@echo $(ccflags-y)\n') \
		srctree="$1" x 2>"$T/log"
}

echo "KTAP version 1"
for kern in "${kernels[@]}"; do
	src=$(srctree "$kern")
	if ! want=$(flags "$src"); then
		result 0 "$kern: compat.mk knows every hooked tracepoint" "$(cat "$T/log")"
		continue
	fi
	result 1 "$kern: compat.mk knows every hooked tracepoint"
	echo "# $kern: ${want:-no DS_HAVE_ flag}"
	for tp in "${tps[@]}"; do
		read -r file ev <<<"$tp"
		name="$kern: $ev with one argument more stops the build in compat.mk, named"
		if ! grep -q "[ (]$ev,\$" "$src/include/trace/events/$file" 2>/dev/null; then
			echo "# $kern: no tracepoint $ev in include/trace/events/$file"
			continue
		fi
		rm -rf "$T/src"
		for f in trace/events/{skb,tcp,udp,sock,devlink,qdisc}.h net/dropreason.h \
			net/genetlink.h linux/workqueue.h; do
			[ ! -e "$src/include/$f" ] ||
				install -D -m 644 "$src/include/$f" "$T/src/include/$f"
		done
		# an argument of a type no kernel has: no form compat.mk knows
		EV=$ev perl -0pi -e \
			's/([ (]\Q$ENV{EV}\E,\n(?:.*\n)*?\s*TP_PROTO\([^)]*)\)/$1, struct ds_new *more)/' \
			"$T/src/include/trace/events/$file"
		if flags "$T/src" >/dev/null; then
			result 0 "$name" "compat.mk took it"
		elif grep -q "compat.mk: tracepoint [a-z_]*:$ev in include/trace/events/$file" "$T/log"; then
			result 1 "$name"
		else
			result 0 "$name" "it failed otherwise: $(cat "$T/log")"
		fi
	done
done
echo "1..$n"
[ $nfail -eq 0 ]
