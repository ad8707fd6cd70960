// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark floor of the session rows: a bare counter on
 * sock:inet_sock_set_state, nothing else. The tracepoint is not exported
 * to modules, so it is found by name, as dropscope finds it.
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <net/sock.h>

static DEFINE_PER_CPU(unsigned long, ds_state_count);
static struct tracepoint *ds_state_tp;

static void ds_state_probe(void *data, const struct sock *sk,
			   const int oldstate, const int newstate)
{
	this_cpu_inc(ds_state_count);
}

static void ds_state_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "inet_sock_set_state"))
		ds_state_tp = tp;
}

static int __init ds_state_init(void)
{
	for_each_kernel_tracepoint(ds_state_find, NULL);
	if (!ds_state_tp)
		return -ENOENT;
	return tracepoint_probe_register(ds_state_tp, ds_state_probe, NULL);
}

static void __exit ds_state_exit(void)
{
	unsigned long n = 0;
	int cpu;

	tracepoint_probe_unregister(ds_state_tp, ds_state_probe, NULL);
	tracepoint_synchronize_unregister();
	for_each_possible_cpu(cpu)
		n += per_cpu(ds_state_count, cpu);
	pr_info("ds_stateprobe: %lu state changes\n", n);
}

module_init(ds_state_init);
module_exit(ds_state_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bare sock:inet_sock_set_state counter, the dropscope session benchmark floor");
