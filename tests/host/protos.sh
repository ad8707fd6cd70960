#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The hooks that kmod/ registers on tracepoints found by name are checked
# against the tracepoints' headers at build time. For each lab kernel, each
# such hook is given a prototype its tracepoint does not have (an argument
# of another type, or one more argument, as when the kernel changes the
# tracepoint); the file must then fail to build, on the check of that very
# tracepoint; and without the checks, the same change must build (it is a
# change nothing else would catch). The same file unchanged must build.
# Prints KTAP.
#   tests/host/protos.sh [RELEASE...]   (default: scripts/kernels)
set -u
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# file tracepoint old new: the mutation, a literal replacement
mutants=(
	"sessions.c|inet_sock_set_state|const int oldstate, const int newstate)|const long oldstate, const int newstate)"
	"sessions.c|tcp_send_reset|static void ds_send_reset_probe(DS_TCP_SEND_RESET_PROBE_ARGS)|static void ds_send_reset_probe(DS_TCP_SEND_RESET_PROBE_ARGS, int more)"
	"sessions.c|tcp_receive_reset|static void ds_receive_reset_probe(void *data, struct sock *sk)|static void ds_receive_reset_probe(void *data, struct sock *sk, const struct sk_buff *skb)"
	"smc.c|inet_sock_set_state|			       const int oldstate, const int newstate)|			       const int oldstate, const u8 newstate)"
)
releases=("$@")
[ ${#releases[@]} -gt 0 ] || mapfile -t releases < <(scripts/kernels)

n=0 nfail=0
result() { # result OK NAME [DETAIL]
	n=$((n + 1))
	if [ "$1" = 1 ]; then echo "ok $n $2"; else
		nfail=$((nfail + 1)); echo "not ok $n $2"; [ -z "${3:-}" ] || echo "$3" | sed 's/^/# /'
	fi
}
# tree DIR: a copy of the module's sources to build one object in
tree() {
	rm -rf "$1"
	mkdir -p "$1"
	cp -r Kbuild include kmod "$1/"
	rm -f "$1"/kmod/*.ko "$1"/kmod/*.o
}
# build DIR RELEASE FILE: make FILE's object only; its messages in DIR/log
build() {
	make -C "/lib/modules/$2/build" M="$1" "kmod/${3%.c}.o" >"$1/log" 2>&1
}

echo "KTAP version 1"
echo "# tests: $((${#releases[@]} * (2 * ${#mutants[@]} + 2)))"
for rel in "${releases[@]}"; do
	d=$T/$rel
	for f in sessions.c smc.c; do
		tree "$d"
		if build "$d" "$rel" "$f"; then
			result 1 "$rel: kmod/$f as it is builds"
		else
			result 0 "$rel: kmod/$f as it is builds" "$(tail -n 5 "$d/log")"
		fi
	done
	for m in "${mutants[@]}"; do
		IFS='|' read -r f tp old new <<<"$m"
		tree "$d"
		name="$rel: a hook of $tp with a prototype of its own in kmod/$f fails to build"
		if ! grep -qF "$old" "$d/kmod/$f"; then
			result 0 "$name" "the prototype to change is not in kmod/$f: $old"
			continue
		fi
		OLD=$old NEW=$new perl -0pi -e 's/\Q$ENV{OLD}\E/$ENV{NEW}/' "$d/kmod/$f"
		if build "$d" "$rel" "$f"; then
			result 0 "$name" "it built"
			continue
		elif grep -q "check_trace_callback_type_$tp.*incompatible-pointer-types\|incompatible-pointer-types.*check_trace_callback_type_$tp\|argument 1 of .check_trace_callback_type_$tp. from incompatible pointer type" "$d/log"; then
			result 1 "$name"
		else
			result 0 "$name" "it failed, but not on the check of $tp: $(grep -m3 'error' "$d/log")"
			continue
		fi
		# the same change, without the checks: it builds, silently wrong
		sed -i '/check_trace_callback_type_/d' "$d/kmod/$f"
		name="$rel: ... and without the checks, the same change builds"
		if build "$d" "$rel" "$f"; then
			result 1 "$name"
		else
			result 0 "$name" "$(grep -m3 'error' "$d/log")"
		fi
	done
done
echo "1..$n"
[ $nfail -eq 0 ]
