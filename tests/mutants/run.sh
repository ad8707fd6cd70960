#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Mutants: each patch here breaks, on purpose, the subject of one lab check
# (the module, the CLI) or its oracle; the lab test it names must then
# fail. A mutant the test does not catch is a check that can pass without
# comparing anything. Prints KTAP: "ok" when the test failed, as it must.
#
#   tests/mutants/run.sh [-k KERNEL] [-j JOBS] [NAME...]
#
# KERNEL is a lab kernel (scripts/kernels), or debug: make check-debug's
# kernel (KASAN, lockdep, DEBUG_PREEMPT...), where a probe's per-CPU
# access made preemptible is reported.
#
# NAME is a patch's name without .patch (default: every one). Each mutant
# is built in a copy of the committed tree (git archive HEAD) under
# build/mutants, with the patch applied: the CLI, the test programs and the
# module for KERNEL (6.12 by default), with and without the preemptible-probe
# test (PREEMPT_TEST=1), and netdevsim (scripts/netdevsim, built once in the
# tree itself); then scripts/lab runs its test there (CYCLES=1). JOBS
# mutants at a time (default: the number of CPUs).
# A patch starts with "Test: NAME" and "Breaks: WHAT", and may say
# "Kernel: K" (a test of what only some kernels have: that kernel rather
# than KERNEL), then the diff.
set -u
cd "$(dirname "$0")/../.." || exit 1

kernel=6.12 jobs=$(nproc)
while getopts "k:j:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) echo "usage: tests/mutants/run.sh [-k KERNEL] [-j JOBS] [NAME...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
# debug: the debug kernel of make check-debug (scripts/debug-kernel), booted
# as a kernel of one's own, its modules built in
dbg=$PWD/build/debug-kernel
if [ "$kernel" = debug ]; then
	[ -f "$dbg/obj/include/config/kernel.release" ] ||
		{ echo "no debug kernel: run scripts/debug-kernel" >&2; exit 1; }
else
	scripts/kernels "$kernel" > /dev/null || exit 1
fi
default=$kernel
if [ $# -eq 0 ]; then
	set -- $(for p in tests/mutants/*.patch; do basename "$p" .patch; done)
fi
mkdir -p build/mutants
top=$PWD/build/mutants

# mutant NAME: build and run one; its verdict in $top/NAME.verdict
mutant() {
	local name=$1 patch=$PWD/tests/mutants/$1.patch test w rc=0 kernel=$kernel rel
	test=$(sed -n 's/^Test: //p' "$patch")
	kernel=$(sed -n 's/^Kernel: //p' "$patch")
	kernel=${kernel:-$default}
	local kb lab=(-k "$kernel")
	if [ "$kernel" = debug ]; then
		rel=$(cat "$dbg/obj/include/config/kernel.release")
		kb=(KDIR="$dbg/obj") lab=(-k "$dbg/bzImage" -d "$dbg/obj")
	else
		rel=$(scripts/kernels "$kernel") || { echo "kernel" > "$top/$name.verdict"; return; }
		kb=(KVER="$rel")
	fi
	w=$top/$name
	rm -rf "$w"
	mkdir -p "$w"
	git archive HEAD | tar -x -C "$w"
	{
		(cd "$w" && patch -p1 -s < "$patch") &&
			make -C "$w" --no-print-directory user testbins module "${kb[@]}" &&
			make -C "$w" --no-print-directory module "${kb[@]}" PREEMPT_TEST=1 &&
			make -C "$w" --no-print-directory oracle "${kb[@]}" &&
			{ [ "$kernel" = debug ] || {
				mkdir -p "$w/build/netdevsim" &&
					cp -r "$(dirname "$(scripts/netdevsim "$rel")")" "$w/build/netdevsim/"
			}; }
	} > "$top/$name.build" 2>&1 || { echo "build" > "$top/$name.verdict"; return; }
	(cd "$w" && scripts/lab "${lab[@]}" -- env CYCLES=1 tests/lab/run.sh -t "$test") \
		> "$top/$name.tap" 2>&1 || rc=$?
	if grep -q '^not ok' "$top/$name.tap"; then
		echo "caught" > "$top/$name.verdict"
	else
		echo "missed (exit $rc)" > "$top/$name.verdict"
	fi
	rm -rf "$w"
}

echo "KTAP version 1"
echo "1..$#"
n=0
for name; do
	[ -f "tests/mutants/$name.patch" ] || { echo "no mutant $name" >&2; exit 2; }
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	mutant "$name" &
done
wait
fails=0
for name; do
	n=$((n + 1))
	v=$(cat "$top/$name.verdict" 2>/dev/null)
	what="$name: $(sed -n 's/^Breaks: //p' "tests/mutants/$name.patch") ($(sed -n 's/^Test: //p' "tests/mutants/$name.patch"))"
	if [ "$v" = caught ]; then
		echo "ok $n $what: the test failed"
		grep -m1 -A2 '^not ok' "$top/$name.tap" | sed 's/^/#   /'
	else
		echo "not ok $n $what: $v"
		fails=$((fails + 1))
		tail -n 5 "$top/$name.build" "$top/$name.tap" 2>/dev/null | sed 's/^/# /'
	fi
done
[ $fails -eq 0 ]
