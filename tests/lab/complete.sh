# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Completion from the machine: test functions sourced by tests/lab/run.sh.
# The words offered are compared with what the system itself lists.

# sorted_words CMD...: the output of CMD, one word a line, sorted
sorted_words() { "$@" | sort | tr '\n' ' '; }

# Reasons (the module's, then the tracepoint's), devices and netns names
# are completed from the running kernel; bash's script gives the same
test_completion() {
	local want got
	setup_module
	# the kernel's own list: enum skb_drop_reason in its BTF
	check "reasons, with the module: every reason of the kernel's enum skb_drop_reason" \
		"$(sorted_words $KC reasons)" "$(sorted_words $DS complete rule mask reason "")"
	rmmod dropscope || abort "rmmod failed"
	# without it, the names of the tracepoint's symbol table, but for its
	# last, MAX: the count of the reasons
	want=$(sorted_words grep -vx MAX < <($KC table))
	check "reasons, without the module: the tracepoint's table, but MAX" "$want" \
		"$(sorted_words $DS complete capture f.pcapng reason "")"
	ip link add "$DUMMY" type dummy || abort "no dummy device"
	defer ip link del "$DUMMY"
	check "devices: those in /sys/class/net" "$(sorted_words ls /sys/class/net)" \
		"$(sorted_words $DS complete rule mask dev "")"
	ip netns add "$NS" || abort "ip netns add failed"
	defer ip netns del "$NS"
	check "netns: the ip netns names" "$(sorted_words ls /run/netns)" \
		"$(sorted_words $DS complete rule mask l4 udp netns "")"
	got=$(bash -c '
		source <("$1" completion bash)
		COMP_WORDS=("$1" -j rule mask dev "${2:0:4}"); COMP_CWORD=5
		_dropscope 2>/dev/null
		echo "${COMPREPLY[*]}"' _ "$DS" "$DUMMY")
	check "bash: the script completes a device after -j rule mask dev" "$DUMMY" "$got"
	got=$(bash -c '
		source <("$1" completion bash)
		COMP_WORDS=("$1" show sessions so); COMP_CWORD=3
		_dropscope 2>/dev/null
		echo "${COMPREPLY[*]}"' _ "$DS")
	check "bash: the script completes a keyword of a command's usage" "sort" "$got"
}
