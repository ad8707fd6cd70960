/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, all in one place. Each block names the
 * release that changed the interface.
 */
#ifndef _DROPSCOPE_COMPAT_H
#define _DROPSCOPE_COMPAT_H

#include <linux/version.h>
#include <net/dropreason.h>

/*
 * 6.11 added the receiving socket to skb:kfree_skb
 * (commit "net: add rx_sk to trace_kfree_skb").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define DS_KFREE_SKB_PROBE_ARGS						\
	void *data, struct sk_buff *skb, void *location,		\
	enum skb_drop_reason reason, struct sock *rx_sk
#else
#define DS_KFREE_SKB_PROBE_ARGS						\
	void *data, struct sk_buff *skb, void *location,		\
	enum skb_drop_reason reason
#endif

/*
 * 6.4 split drop reasons into subsystems, each registering its own name
 * list (drop_reasons_by_subsys); before, one array drop_reasons[] covered
 * the core reasons below SKB_DROP_REASON_MAX.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define DS_HAVE_REASON_SUBSYS 1
#else
#define DS_HAVE_REASON_SUBSYS 0
#endif

/*
 * 6.2 gave pre_doit and post_doit the split op
 * (commit "genetlink: use split ops in pre_doit/post_doit").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define ds_genl_op genl_split_ops
#else
#define ds_genl_op genl_ops
#endif

#endif /* _DROPSCOPE_COMPAT_H */
