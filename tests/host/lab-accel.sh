#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The lab's choice of accelerator, on the host: a guest that does not report
# in from its init within the boot bound is killed and its console tail
# shown, and a "KVM" that opens but does not boot is found by the probe boot
# and replaced by TCG, with the verdict cached.
#
# A broken KVM is played by a real guest that cannot report in within the
# bound it is given: LAB_KVM_DEV and LAB_KVM_ACCEL point scripts/lab's KVM
# candidate at /dev/null and single-threaded TCG, and a bound of 1 s is
# shorter than any TCG boot. Prints KTAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
KVER=${1:-6.12}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ntests=0 nfail=0
ok() { ntests=$((ntests + 1)); echo "ok $ntests $1"; }
fail() {
	ntests=$((ntests + 1)) nfail=$((nfail + 1))
	echo "not ok $ntests $1"
	shift
	for l in "$@"; do echo "# $l"; done
}
# expect NAME RC WANT_RC FILE PATTERN...: exit status and every line pattern
expect() {
	local name=$1 rc=$2 want=$3 file=$4 pat
	shift 4
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "exit $rc, expected $want" "$(tail -n 20 "$file")"
		return
	fi
	for pat; do
		grep -q -- "$pat" "$file" || { fail "$name" "no line matching: $pat" "$(tail -n 20 "$file")"; return; }
	done
	ok "$name"
}

fake_kvm() { LAB_KVM_DEV=/dev/null LAB_KVM_ACCEL=tcg,thread=single "$@"; }
cache=build/lab/accel-dev-null

echo "KTAP version 1"
echo "# the lab's accelerator choice, kernel $KVER"

t0=$SECONDS
LAB_ACCEL=tcg LAB_BOOT_TIMEOUT=1 scripts/lab -k "$KVER" -t 300 -- echo ran \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
expect "a guest that does not report in is killed after the bound" "$rc" 125 "$TMP/err" \
	"did not report in within 1s (accel tcg)" "console tail"
grep -q ran "$TMP/out" && fail "the command did not run" "$(cat "$TMP/out")" ||
	ok "the command did not run"
[ $((SECONDS - t0)) -lt 60 ] && ok "it failed fast ($((SECONDS - t0))s)" ||
	fail "it failed fast" "took $((SECONDS - t0))s"

rm -f "$cache"
fake_kvm env LAB_ACCEL=auto LAB_PROBE_TIMEOUT=1 scripts/lab -k "$KVER" -t 300 -- echo ran \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
expect "a KVM whose probe boot does not report in is replaced by TCG" "$rc" 0 "$TMP/err" \
	"KVM opens but the probe boot failed" "accel tcg, run"
expect "the command ran under TCG" 0 0 "$TMP/out" "^ran$"
expect "the verdict is cached" 0 0 "$cache" "^tcg$"
fake_kvm env LAB_ACCEL=auto scripts/lab -k "$KVER" -t 300 -- true >/dev/null 2>"$TMP/err"
expect "the next run uses the cached verdict" $? 0 "$TMP/err" "cached verdict" "accel tcg, run"

# A probe boot that reports in makes the candidate the accelerator; when a
# later run under it does not report in, auto runs the command again under
# TCG and changes the verdict.
rm -f "$cache"
fake_kvm env LAB_ACCEL=auto LAB_PROBE_TIMEOUT=120 LAB_KVM_BOOT_TIMEOUT=1 \
	scripts/lab -k "$KVER" -t 300 -- echo ran >"$TMP/out" 2>"$TMP/err"
rc=$?
expect "a run that does not report in under KVM runs again under TCG" "$rc" 0 "$TMP/err" \
	"probe boot reported in" "did not report in within 1s (accel kvm)" \
	"running again under TCG" "accel tcg"
expect "the command ran once" 0 0 "$TMP/out" "^ran$"
[ "$(grep -c '^ran$' "$TMP/out")" -eq 1 ] && ok "exactly once" ||
	fail "exactly once" "$(cat "$TMP/out")"
expect "the verdict is now tcg" 0 0 "$cache" "^tcg$"

LAB_ACCEL=bogus scripts/lab -k "$KVER" -- true >/dev/null 2>"$TMP/err"
expect "a bad LAB_ACCEL is refused" $? 125 "$TMP/err" "LAB_ACCEL must be kvm, tcg or auto"
LAB_ACCEL=kvm LAB_KVM_DEV=/nonexistent scripts/lab -k "$KVER" -- true >/dev/null 2>"$TMP/err"
expect "LAB_ACCEL=kvm without a KVM is refused" $? 125 "$TMP/err" "cannot run a VM"

rm -f "$cache"
echo "1..$ntests"
[ $nfail -eq 0 ]
