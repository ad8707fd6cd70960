# SPDX-License-Identifier: GPL-2.0
# Interfaces that changed between kernels are tested for in the headers of
# the kernel built against, not guessed from its release: distributions
# backport. Each test defines DS_HAVE_*; kmod/compat.h holds what follows.
ds_has = $(shell grep -qsE '$(2)' $(srctree)/$(1) && echo -DDS_HAVE_$(3))
ccflags-y += $(call ds_has,include/net/dropreason.h,drop_reasons_by_subsys,REASON_SUBSYS)
ccflags-y += $(call ds_has,include/net/genetlink.h,pre_doit..const struct genl_split_ops,GENL_SPLIT_PRE_DOIT)
ccflags-y += $(call ds_has,include/linux/workqueue.h,\*system_percpu_wq,SYSTEM_PERCPU_WQ)
# 7.x: tracepoints call their probes under SRCU-fast, preemptible on every
# configuration (the preemptible-probe test expects the kernel's own calls)
ccflags-y += $(call ds_has,include/linux/tracepoint.h,guard.srcu_fast_notrace..&tracepoint_srcu,TP_PREEMPTIBLE)

# The tracepoints the module hooks: each one's prototype, its argument
# types only ("struct sk_buff *;void *;..."), read from the kernel's
# include/trace/events/FILE, must be one that kmod/compat.h knows. A kernel
# that changed one fails here, with its name and its new prototype, not
# later in a probe's check or at run time.
ds_proto = $(shell sed -n '/[ (]$(2),$$/,/TP_ARGS/p' $(srctree)/include/trace/events/$(1) 2>/dev/null | \
	tr -s '\n\t' '  ' | grep -o 'TP_PROTO([^)]*)' | head -n1 | \
	sed 's/^TP_PROTO( *//; s/ *)$$//; s/ *, */;/g; s/ *[A-Za-z_][A-Za-z_0-9]*;/;/g; s/ *[A-Za-z_][A-Za-z_0-9]*$$//')
ds_unknown = $(error kmod/compat.mk: tracepoint $(1) in include/trace/events/$(2) of $(srctree) \
	is ($(3)), a prototype dropscope does not know: kmod/compat.h needs it)

ds_tp := $(call ds_proto,skb.h,kfree_skb)
ifeq ($(ds_tp),struct sk_buff *;void *;enum skb_drop_reason)
else ifeq ($(ds_tp),struct sk_buff *;void *;enum skb_drop_reason;struct sock *)
# 6.11: the receiving socket
ccflags-y += -DDS_HAVE_KFREE_SKB_RX_SK
else ifeq ($(ds_tp),struct sk_buff *;void *;enum skb_drop_reason;const struct sock *)
# 7.2: const
ccflags-y += -DDS_HAVE_KFREE_SKB_RX_SK -DDS_HAVE_KFREE_SKB_CONST_RX_SK
else
$(call ds_unknown,skb:kfree_skb,skb.h,$(ds_tp))
endif

ds_tp := $(call ds_proto,tcp.h,tcp_retransmit_skb)
ifeq ($(ds_tp),const struct sock *;const struct sk_buff *)
else ifeq ($(ds_tp),const struct sock *;const struct sk_buff *;int)
# 6.17: the retransmit's error, and it fires on a failed one too
ccflags-y += -DDS_HAVE_TCP_RETRANSMIT_ERR
else
$(call ds_unknown,tcp:tcp_retransmit_skb,tcp.h,$(ds_tp))
endif

ds_tp := $(call ds_proto,tcp.h,tcp_send_reset)
ifeq ($(ds_tp),const struct sock *;const struct sk_buff *)
else ifeq ($(ds_tp),const struct sock *;const struct sk_buff *;const enum sk_rst_reason)
# 6.10: the reason of the reset
ccflags-y += -DDS_HAVE_TCP_SEND_RESET_REASON
else
$(call ds_unknown,tcp:tcp_send_reset,tcp.h,$(ds_tp))
endif

ds_tp := $(call ds_proto,udp.h,udp_fail_queue_rcv_skb)
ifeq ($(ds_tp),int;struct sock *)
else ifeq ($(ds_tp),int;struct sock *;struct sk_buff *)
# 6.10: the datagram
ccflags-y += -DDS_HAVE_UDP_FAIL_SKB
else
$(call ds_unknown,udp:udp_fail_queue_rcv_skb,udp.h,$(ds_tp))
endif

# unchanged since 6.1
ds_tp := $(call ds_proto,sock.h,inet_sock_set_state)
ifneq ($(ds_tp),const struct sock *;const int;const int)
$(call ds_unknown,sock:inet_sock_set_state,sock.h,$(ds_tp))
endif
ds_tp := $(call ds_proto,tcp.h,tcp_receive_reset)
ifneq ($(ds_tp),struct sock *)
$(call ds_unknown,tcp:tcp_receive_reset,tcp.h,$(ds_tp))
endif
ds_tp := $(call ds_proto,tcp.h,tcp_retransmit_synack)
ifneq ($(ds_tp),const struct sock *;const struct request_sock *)
$(call ds_unknown,tcp:tcp_retransmit_synack,tcp.h,$(ds_tp))
endif
ds_tp := $(call ds_proto,devlink.h,devlink_trap_report)
ifneq ($(ds_tp),const struct devlink *;struct sk_buff *;const struct devlink_trap_metadata *)
$(call ds_unknown,devlink:devlink_trap_report,devlink.h,$(ds_tp))
endif

# 7.0: qdisc drops with a reason of their own (the qdisc layer); before,
# none, and the qdisc part is absent
ds_tp := $(call ds_proto,qdisc.h,qdisc_drop)
ifeq ($(ds_tp),)
else ifeq ($(ds_tp),struct Qdisc *;const struct netdev_queue *;struct net_device *;struct sk_buff *;enum qdisc_drop_reason)
ccflags-y += -DDS_HAVE_QDISC_DROP
else
$(call ds_unknown,qdisc:qdisc_drop,qdisc.h,$(ds_tp))
endif

# The SMC tracepoints' header is private to net/smc, in no headers package:
# in a whole kernel tree (one's own, the lab's debug kernel), smc/tp.c checks
# the SMC probes' prototypes against it.
ifneq ($(wildcard $(srctree)/net/smc/smc_tracepoint.h),)
ccflags-y += -DDS_HAVE_SMC_TP_HEADER
dropscope-y += smc/tp.o
CFLAGS_smc/tp.o += -I$(srctree)/net/smc
endif
