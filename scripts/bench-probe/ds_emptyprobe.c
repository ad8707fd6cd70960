// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark floor: attach an empty probe to skb:kfree_skb, nothing else.
 * What a drop costs with it attached is the price of any tracepoint probe.
 */
#include <linux/module.h>
#include <linux/skbuff.h>
#include <trace/events/skb.h>

#include "compat.h"

static void ds_empty_probe(DS_KFREE_SKB_PROBE_ARGS)
{
}

static int __init ds_empty_init(void)
{
	return register_trace_kfree_skb(ds_empty_probe, NULL);
}

static void __exit ds_empty_exit(void)
{
	unregister_trace_kfree_skb(ds_empty_probe, NULL);
	tracepoint_synchronize_unregister();
}

module_init(ds_empty_init);
module_exit(ds_empty_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("empty skb:kfree_skb probe, the dropscope benchmark floor");
