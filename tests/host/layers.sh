#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The layers, read from the sources and the CLI's objects. The module:
# kmod/netlink.c holds the commands and is called by no other file of
# kmod/ (its only global symbols are the ops that kmod/family.c registers),
# kmod/family.c, the family, calls no function of the module's own, and
# kmod/monitor.c drives capture through its struct ds_sink alone, SMC is
# named outside kmod/smc/ by the source table alone, and the files call
# each other in layers, with no circle (scripts/kmod-graph).
# The CLI: the library (user/lib/, user/smc/lib.c) calls nothing above it,
# a command file (user/*.c but the shell: main.c, cmd.c, complete.c; and
# user/smc/cmd.c) calls the library only, netlink attributes (nla_*) are
# read and written in the library alone, and SMC's functions are defined
# in user/smc/ alone. Prints KTAP.
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
# capture reaches the rounds through its struct ds_sink, as sources do
named=$(grep -oE '\bds_capture_[a-z_]+\(' kmod/monitor.c | tr -d '(' | sort -u | paste -sd ' ')
result "$([ -z "$named" ] && echo 1)" "kmod/monitor.c drives capture through its ops (struct ds_sink), never by name" "it names: $named"
# SMC is a source of its own: outside kmod/smc/, only the source table
# (kmod/monitor.c) and its declaration (kmod/dropscope.h) name it, and
# nothing names any other ds_smc_ symbol; smc.c names no core file's
# statics either way
named=$(grep -noE '\bds_smc_[a-z0-9_]+' kmod/*.c kmod/*.h |
	grep -vE '^kmod/(monitor\.c|dropscope\.h):[0-9]+:ds_smc_source$' | paste -sd ' ')
result "$([ -z "$named" ] && echo 1)" "no file outside kmod/smc/ names SMC but the source table" "named: $named"
# The module's files call each other in layers, with no circle, on every
# lab kernel built; on 6.12 the layers are Documentation/design.md's
# drawing (scripts/kmod-graph, from the objects of a build)
drawing=$(scripts/kernels 6.12)
for rel in $(scripts/kernels); do
	kobj=build/kmod/$rel/kmod
	if [ "$rel" = "$drawing" ] && [ ! -f "$kobj/dropscope.mod" ]; then
		make -s --no-print-directory module KVER="$rel" >/dev/null 2>&1 ||
			result 0 "the module builds for $rel"
	fi
	[ -f "$kobj/dropscope.mod" ] || continue
	if graph=$(scripts/kmod-graph "$kobj" 2>&1); then
		result 1 "$rel: kmod/'s files call each other in layers, with no circle"
	else
		result 0 "$rel: kmod/'s files call each other in layers, with no circle" "$graph"
	fi
	[ "$rel" = "$drawing" ] || continue
	drawn=$(sed -n '/^<!-- kmod-graph -->$/,/^<!-- end -->$/p' Documentation/design.md |
		sed '1,2d;$d' | sed '$d')
	result "$([ "$drawn" = "$graph" ] && echo 1)" "Documentation/design.md draws kmod/'s layers as they are ($rel)" \
		"$(diff <(echo "$drawn") <(echo "$graph"))"
done

# The CLI's objects: who defines each global symbol, who uses it.
obj=$(mktemp -d)
trap 'rm -rf "$obj"' EXIT
cflags=$(make -s --no-print-directory cli-cflags) || result 0 "the CLI's flags (make cli-cflags)"
for f in user/*.c user/lib/*.c user/smc/*.c; do
	o=${f#user/}
	o=$obj/$(echo "${o%.c}" | tr / :).o
	# shellcheck disable=SC2086 # the flags' words
	eval "cc -c $cflags" '"$f" -o "$o"' || result 0 "$f compiles"
done
for o in "$obj"/*.o; do
	nm --defined-only "$o" | awk -v f="$(basename "$o" .o)" '$2 ~ /[TDBR]/ { print $3, f }'
done | sort > "$obj/defs"
# calls FILE-GLOB: "user -> definer (symbol)" for what those objects use
calls() {
	local o f
	for o in "$obj"/$1.o; do
		f=$(basename "$o" .o)
		nm -u "$o" | awk '{ print $2 }' | sort | join - "$obj/defs" |
			awk -v f="$f" '$2 != f { print f " -> " $2 " (" $1 ")" }'
	done
}
# the library: user/lib/ and SMC's part of it (user/smc/lib.c)
shell="main cmd complete" lib='-> (lib:|smc:lib )'
up=$(calls 'lib:*'; calls 'smc:lib')
up=$(echo "$up" | grep -v '^$' | grep -vE -- "$lib" | paste -sd ';')
result "$([ -z "$up" ] && echo 1)" "user/lib/ and user/smc/lib.c call nothing above them" "$up"
across=$(for o in "$obj"/[!l]*.o; do
	f=$(basename "$o" .o)
	[[ " $shell smc:lib " == *" $f "* ]] || calls "$f"
done | grep -vE -- "$lib" | paste -sd ';')
result "$([ -z "$across" ] && echo 1)" "a command file calls the library only (no command file calls another)" "$across"
# SMC's functions are defined in user/smc/ alone
smcdef=$(grep -l '^[a-z].*\bds_smc_[a-z0-9_]*(' user/*.c user/lib/*.c | paste -sd ' ')
result "$([ -z "$smcdef" ] && echo 1)" "no file outside user/smc/ defines an SMC function (ds_smc_*)" "$smcdef"
nla=$(grep -l 'nla_' user/*.c user/smc/cmd.c | paste -sd ' ')
result "$([ -z "$nla" ] && echo 1)" "no nla_* outside the library (user/lib/, user/smc/lib.c)" "$nla"
echo "1..$n"
[ $nfail -eq 0 ]
