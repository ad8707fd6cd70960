#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/ktap.sh, the counting of make check and make check-debug, on
# KTAP files whose fate is known: a whole run, a run that stopped midway,
# a plan that does not match. Prints KTAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0 nfail=0
check() {
	n=$((n + 1))
	if [ "$2" = "$3" ]; then echo "ok $n $1"; else
		nfail=$((nfail + 1)); echo "not ok $n $1"; echo "# expected: $2"; echo "# got: $3"
	fi
}
# counts FILE RC: passed failed skipped notrun, and the not ok lines
counts() {
	(
		. scripts/ktap.sh
		tap suite "$1" "$2" > "$T/out"
		echo "$passed $failed $skipped $notrun $(grep -c '^not ok' "$T/out")"
	)
}
echo "KTAP version 1"
printf '%s\n' 'KTAP version 1' '# tests: 2' '# test_a' 'ok 1 a' 'ok 2 b # SKIP x' \
	'# test_a took 1.0 s' '# test_b' 'not ok 3 c' '# test_b took 0.2 s' '1..3' > "$T/whole"
check "a whole run: its results as they are" "1 1 1 0 0" "$(counts "$T/whole" 1)"
printf '%s\n' 'KTAP version 1' '# tests: 5' '# test_a' 'ok 1 a' '# test_a took 1.0 s' \
	'# test_b' 'ok 2 b' > "$T/stopped"
check "a run stopped in its second test: 4 did not run, no plan" "2 6 0 4 3" \
	"$(counts "$T/stopped" 125)"
printf '%s\n' 'KTAP version 1' '# tests: 1' '# test_a' 'ok 1 a' '# test_a took 1.0 s' \
	'1..2' > "$T/plan"
check "a plan that does not match the results" "1 1 0 0 1" "$(counts "$T/plan" 0)"
printf '%s\n' 'KTAP version 1' 'ok 1 a' 'ok 2 b' > "$T/plain"
check "a file that announces no tests: only its results and exit status" "2 1 0 0 1" \
	"$(counts "$T/plain" 1)"
printf '%s\n' 'KTAP version 1' '# tests: 2' '# test_a' 'ok 1 a' '# test_a took 1.0 s' \
	'# test_b' '# test_b took 0.1 s' '1..1' > "$T/silent"
check "a test that ran and reported no result is a failure" "1 1 0 0 1" \
	"$(counts "$T/silent" 0)"
# skips SKIPS_LIST: the failures skips_allowed counts in $T/skips.tap
skips() {
	(
		. scripts/ktap.sh
		failed=0
		skips_allowed suite "$T/skips.tap" "$1" > "$T/out"
		echo "$failed $(grep -c '^not ok' "$T/out")"
	)
}
printf '%s\n' 'KTAP version 1' '# kernel 7.2.13+deb14-amd64, 2 CPUs' '# test_smc_r' \
	'ok 1 test_smc_r # SKIP no smc' '# test_smc_r took 0.1 s' '# test_accounting' \
	'ok 2 accounting # SKIP no tool' '# test_accounting took 0.1 s' > "$T/skips.tap"
printf '%s\n' '# allowed' 'smc_* 7.2.* no SMC' > "$T/list"
check "a skip the list allows passes, one it does not fails" "1 1" "$(skips "$T/list")"
printf '%s\n' 'smc_* 6.* no SMC' 'accounting * test' > "$T/list"
check "a skip on a kernel the list does not name fails" "1 1" "$(skips "$T/list")"
echo "1..$n"
[ $nfail -eq 0 ]
