# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Counting KTAP results, for scripts/check and scripts/check-debug (sourced).
#
# tap NAME FILE RC: add FILE's results to passed, failed and skipped. A
# failing exit status without a failed test is a failure of its own. A file
# that announces its tests ("# tests: N", as tests/lab/run.sh does) must
# report each one as done ("# test_X took"), and end with its plan ("1..R",
# R its results): each test that did not run is a failure, counted in
# notrun too, and so is a missing or wrong plan, and a test that ran
# without a result ("# test_X" then "# test_X took" with no "ok" or "not
# ok" between). Prints a "not ok" line for each such failure.
passed=${passed:-0} failed=${failed:-0} skipped=${skipped:-0} notrun=${notrun:-0}
tap() {
	local p f s n done plan
	p=$(grep -c '^ok ' "$2")
	f=$(grep -c '^not ok ' "$2")
	s=$(grep -c '^ok .*# SKIP' "$2")
	passed=$((passed + p - s)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $1 exited $3"
		failed=$((failed + 1))
	fi
	n=$(sed -n 's/^# tests: \([0-9]*\)$/\1/p' "$2")
	[ -n "$n" ] || return 0
	done=$(grep -c '^# test_[a-z0-9_]* took ' "$2")
	if [ "$done" -lt "$n" ]; then
		echo "not ok - $1: $((n - done)) of its $n tests did not run"
		failed=$((failed + n - done)) notrun=$((notrun + n - done))
	fi
	while read -r t; do
		echo "not ok - $1: $t reported no result"
		failed=$((failed + 1))
	done < <(awk '/^# test_[a-z0-9_]*$/ { t = substr($2, 1); r = 0 }
		/^(not )?ok / { r++ }
		/^# test_[a-z0-9_]* took / && !r { print $2 }' "$2")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$2")
	if [ "$plan" != "$((p + f))" ]; then
		echo "not ok - $1: its plan is '${plan:-missing}', for $((p + f)) results"
		failed=$((failed + 1))
	fi
}
# skips_allowed TITLE TAP LIST: a lab suite's skips, each one that LIST
# allows (tests/lab/skips: a test skips only where the kernel lacks what
# it tests); any other is a failure, with a "not ok" line
skips_allowed() {
	local t k why test glob ok
	while read -r t k why; do
		ok=""
		while read -r test glob _; do
			# shellcheck disable=SC2053 # globs
			[[ $test == \#* || -z $test ]] || [[ $t != $test || $k != $glob ]] || ok=1
		done < "$3"
		[ -z "$ok" ] || continue
		echo "not ok - $1: test_$t skipped on $k, which tests/lab/skips does not allow: $why"
		failed=$((failed + 1))
	done < <(awk '/^# kernel / { k = $3; sub(/,$/, "", k) }
		/^# test_[a-z0-9_]*$/ { t = substr($2, 6) }
		/^ok .* # SKIP / { r = $0; sub(/.* # SKIP /, "", r); print t, k, r }' "$2")
}
