# SPDX-License-Identifier: GPL-2.0
# Interfaces that changed between kernels are tested for in the headers of
# the kernel built against, not guessed from its release: distributions
# backport. Each test defines DS_HAVE_*; kmod/compat.h holds what follows.
ds_has = $(shell grep -qsE '$(2)' $(srctree)/$(1) && echo -DDS_HAVE_$(3))
ccflags-y += $(call ds_has,include/trace/events/skb.h,struct sock \*rx_sk,KFREE_SKB_RX_SK)
ccflags-y += $(call ds_has,include/net/dropreason.h,drop_reasons_by_subsys,REASON_SUBSYS)
ccflags-y += $(call ds_has,include/net/genetlink.h,pre_doit..const struct genl_split_ops,GENL_SPLIT_PRE_DOIT)
ccflags-y += $(call ds_has,include/trace/events/tcp.h,enum sk_rst_reason reason,TCP_SEND_RESET_REASON)
ccflags-y += $(call ds_has,include/trace/events/udp.h,struct sock \*sk. struct sk_buff \*skb,UDP_FAIL_SKB)
ccflags-y += $(call ds_has,include/linux/workqueue.h,\*system_percpu_wq,SYSTEM_PERCPU_WQ)

# The SMC tracepoints' header is private to net/smc, in no headers package:
# in a whole kernel tree (one's own, the lab's debug kernel), smctp.c checks
# the SMC probes' prototypes against it.
ifneq ($(wildcard $(srctree)/net/smc/smc_tracepoint.h),)
ccflags-y += -DDS_HAVE_SMC_TP_HEADER
kmod/dropscope-y += kmod/smctp.o
CFLAGS_kmod/smctp.o += -I$(srctree)/net/smc
endif
