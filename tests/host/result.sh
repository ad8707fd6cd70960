# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# KTAP results of the host tests (sourced): result OK NAME [DETAIL] prints
# the next "ok" or "not ok" line (OK is 1 for a pass), DETAIL as comments
# under a failure; n counts the results, nfail the failures.
n=0 nfail=0
result() {
	n=$((n + 1))
	if [ "$1" = 1 ]; then echo "ok $n $2"; else
		nfail=$((nfail + 1)); echo "not ok $n $2"; [ -z "${3:-}" ] || echo "$3" | sed 's/^/# /'
	fi
}
