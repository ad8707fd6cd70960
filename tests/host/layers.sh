#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module's layers, read from its sources: kmod/netlink.c holds the
# commands and is called by no other file of kmod/ (its only global
# symbols are the ops that kmod/family.c registers), and kmod/family.c, the
# family, calls no function of the module's own. Prints KTAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/host/result.sh
. tests/host/result.sh
# globals FILE: the names of the functions and objects FILE defines and
# does not make static
globals() {
	grep -E '^[a-z][a-z0-9_ *]*\b(ds_[a-z0-9_]+)[[(]' "$1" | grep -v '^static' |
		grep -oE '\bds_[a-z0-9_]+[[(]' | tr -d '[(' | sort -u
}
echo "KTAP version 1"
g=$(globals kmod/netlink.c | paste -sd ' ')
if [ "$g" = "ds_nl_ops" ]; then
	result 1 "kmod/netlink.c defines no global but its ops ($g)"
else
	result 0 "kmod/netlink.c defines no global but its ops" "it defines: $g"
fi
users=$(grep -lE '\bds_nl_(ops|n_ops)\b' kmod/*.c | grep -v -e kmod/netlink.c -e kmod/family.c | paste -sd ' ')
result "$([ -z "$users" ] && echo 1)" "no file but kmod/family.c names netlink.c's ops" "also: $users"
# every ds_ function that family.c calls is one of its own
own=$(globals kmod/family.c; grep -oE '^static [a-z].*\b(ds_[a-z0-9_]+)\(' kmod/family.c | grep -oE 'ds_[a-z0-9_]+\(' | tr -d '(')
calls=$(grep -oE '\bds_[a-z0-9_]+\(' kmod/family.c | tr -d '(' | sort -u)
foreign=$(comm -23 <(echo "$calls" | sort -u) <(echo "$own" | sort -u) | paste -sd ' ')
result "$([ -z "$foreign" ] && echo 1)" "kmod/family.c calls no function of the module's but its own" "it calls: $foreign"
echo "1..$n"
[ $nfail -eq 0 ]
