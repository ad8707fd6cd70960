// SPDX-License-Identifier: GPL-2.0
/*
 * Runs: "dropscope run" runs a command in a cgroup (v2) of its own, and
 * the module counts the drops of that command's scope apart, in sites of
 * their own (the run's id in the key, DS_PK_RUN()). A run's scope is its
 * cgroup, the cgroups below it, and the network namespaces their tasks
 * create while it lasts: a pernet init runs in the creating task, which
 * tags the new netns with the run (struct ds_net). A drop is the run's
 * when its socket's cgroup is, or when its socket's netns or its device's
 * is (scope.h); one with neither socket nor device of a run, when a task
 * of the run frees it in its own context (a netlink message the kernel
 * drops as it receives it, say). Up to DROPSCOPE_MAX_RUNS at once, each bound to the
 * netlink socket that began it, and ended when that socket closes.
 *
 * Runs begin and end under ds_lock; the probe reads them under RCU (it
 * runs with preemption disabled), with a reference on each cgroup held
 * while its run lasts.
 *
 * Before 6.11, skb:kfree_skb passes no receiving socket, and a datagram
 * that UDP fails to queue (receive buffer full, memory) is freed without
 * one; UDP names the socket right after, on the same CPU, in
 * udp:udp_fail_queue_rcv_skb (IPv4). There, while a run lasts, the drop
 * is counted to the socket's run too (ds_probe_late()), and the folder
 * moves it from the rest.
 */

#include <linux/cgroup.h>
#include <linux/jump_label.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/tracepoint.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>
#ifndef DS_HAVE_KFREE_SKB_RX_SK
#include <trace/events/udp.h>
#endif

#include "compat.h"
#include "dropscope.h"
#include "scope.h"

DEFINE_STATIC_KEY_FALSE(ds_scope_key);

/* read in any context (scope.h) */
unsigned int ds_net_id __read_mostly;
u32 ds_run_tags[DS_RUN_ID_MASK + 1];
struct cgroup __rcu *ds_run_cgrps[DROPSCOPE_MAX_RUNS + 1];
unsigned long ds_runs_live;
bool ds_run_nets;

/* The runs, by id, those of ds_runs_live; under ds_lock. */
static struct ds_run {
	u32 portid;		/* the socket that began it */
	struct net *net;	/* that socket's netns */
} ds_runs[DROPSCOPE_MAX_RUNS + 1];
static u32 ds_runs_n, ds_run_gen;
/* the runs started monitoring, and nobody started or stopped it since */
static bool ds_runs_hold;

#ifndef DS_HAVE_KFREE_SKB_RX_SK
DEFINE_STATIC_KEY_FALSE(ds_late_key);

static struct tracepoint *ds_udp_fail_tp;	/* under ds_lock */

static notrace void ds_udp_fail_probe(DS_UDP_FAIL_PROBE_ARGS)
{
	ds_probe_late(sk);
}

static void ds_udp_fail_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "udp_fail_queue_rcv_skb"))
		ds_udp_fail_tp = tp;
}

/* Found by name, it is checked against its header here. */
static void ds_late_attach(void)
{
	check_trace_callback_type_udp_fail_queue_rcv_skb(ds_udp_fail_probe);
	if (!ds_udp_fail_tp)
		for_each_kernel_tracepoint(ds_udp_fail_find, NULL);
	if (!ds_udp_fail_tp ||
	    tracepoint_probe_register(ds_udp_fail_tp, ds_udp_fail_probe, NULL))
		return;
	static_branch_enable(&ds_late_key);
}

/* The caller waits for the probes to finish. */
static void ds_late_detach(void)
{
	if (!static_key_enabled(&ds_late_key))
		return;
	static_branch_disable(&ds_late_key);
	tracepoint_probe_unregister(ds_udp_fail_tp, ds_udp_fail_probe, NULL);
}
#else
static void ds_late_attach(void)
{
}

static void ds_late_detach(void)
{
}
#endif

/* The tag of the run whose cgroups hold the current task, or 0. */
static u32 ds_current_tag(void)
{
	u32 id;

	rcu_read_lock();
	id = ds_cgrp_run(task_dfl_cgroup(current));
	rcu_read_unlock();
	return id ? READ_ONCE(ds_run_tags[id]) : 0;
}

/* A new netns is its creator's run's (it runs in the creating task). */
static int __net_init ds_net_init(struct net *net)
{
	struct ds_net *dn = net_generic(net, ds_net_id);
	u32 tag = ds_current_tag();

	WRITE_ONCE(dn->tag, tag);
	if (tag)
		WRITE_ONCE(ds_run_nets, true);
	return 0;
}

static struct pernet_operations ds_net_ops = {
	.init = ds_net_init,
	.id = &ds_net_id,
	.size = sizeof(struct ds_net),
};

/* The run whose scope net is in, or 0. */
u32 ds_netns_run(const struct net *net)
{
	u32 tag;

	rcu_read_lock();
	tag = ds_net_tag(net);
	rcu_read_unlock();
	return ds_tag_run(tag);
}

u32 ds_runs_count(void)
{
	lockdep_assert_held(&ds_lock);
	return ds_runs_n;
}

/* Monitoring was started or stopped by hand: the runs no longer hold it. */
void ds_runs_unhold(void)
{
	lockdep_assert_held(&ds_lock);
	ds_runs_hold = false;
}

static void ds_run_end(u32 id)
{
	struct cgroup *cg = rcu_dereference_protected(ds_run_cgrps[id],
						      lockdep_is_held(&ds_lock));

	WRITE_ONCE(ds_run_tags[id], 0);
	WRITE_ONCE(ds_runs_live, ds_runs_live & ~BIT(id));
	RCU_INIT_POINTER(ds_run_cgrps[id], NULL);
	if (!--ds_runs_n) {
		WRITE_ONCE(ds_run_nets, false);
		ds_late_detach();
		static_branch_dec(&ds_sock_key);
		static_branch_disable(&ds_scope_key);
	}
	/*
	 * The probes disable preemption, and the netns init holds the RCU
	 * read lock: none reads cg once this returns, and none runs on the
	 * UDP tracepoint.
	 */
	tracepoint_synchronize_unregister();
	cgroup_put(cg);
	if (!ds_runs_n && ds_runs_hold) {
		ds_runs_hold = false;
		if (ds_running())
			ds_stop(NULL);
	}
}

/* Does a run's cgroup nest with cg, either way, or is it cg? */
static bool ds_run_nests(struct cgroup *cg)
{
	struct cgroup *run;
	u32 id;

	for_each_set_bit(id, &ds_runs_live, DROPSCOPE_MAX_RUNS + 1) {
		run = rcu_dereference_protected(ds_run_cgrps[id],
						lockdep_is_held(&ds_lock));
		if (cgroup_is_descendant(cg, run) ||
		    cgroup_is_descendant(run, cg))
			return true;
	}
	return false;
}

/* Start monitoring for the first run, when nothing runs it. */
static int ds_runs_monitor(struct netlink_ext_ack *extack)
{
	int err;

	if (ds_runs_n || ds_running())
		return 0;
	err = ds_start(DROPSCOPE_PARTS_ALL, extack);
	if (!err)
		ds_runs_hold = true;
	return err;
}

/*
 * Begin a run of the cgroup of id cgid for the socket portid of net: its
 * id (1 to DROPSCOPE_MAX_RUNS), or an error, with nothing changed.
 */
int ds_run_start(u64 cgid, u32 portid, struct net *net,
		 struct netlink_ext_ack *extack)
{
	struct cgroup *cg;
	u32 id;
	int err;

	lockdep_assert_held(&ds_lock);
	if (!IS_ENABLED(CONFIG_SOCK_CGROUP_DATA)) {
		NL_SET_ERR_MSG(extack,
			       "run: this kernel keeps no cgroup in its sockets (CONFIG_SOCK_CGROUP_DATA)");
		return -EOPNOTSUPP;
	}
	/* the first id no run has (bit 0 is never one) */
	id = ffz(ds_runs_live | BIT(0));
	if (id > DROPSCOPE_MAX_RUNS) {
		NL_SET_ERR_MSG(extack, "run: 16 runs at once already (DROPSCOPE_MAX_RUNS)");
		return -EBUSY;
	}
	cg = cgroup_get_from_id(cgid);
	if (IS_ERR(cg)) {
		NL_SET_ERR_MSG(extack, "run: no cgroup (v2) has this id");
		return -ENOENT;
	}
	if (ds_run_nests(cg)) {
		NL_SET_ERR_MSG(extack,
			       "run: the cgroup is, is above or is below another run's");
		err = -EBUSY;
		goto err_put;
	}
	err = ds_runs_monitor(extack);
	if (err)
		goto err_put;
	ds_runs[id] = (struct ds_run){ .portid = portid, .net = net };
	rcu_assign_pointer(ds_run_cgrps[id], cg);
	/* a new generation: no tag of an earlier run with this id matches */
	ds_run_gen++;
	WRITE_ONCE(ds_run_tags[id], ds_run_gen << DS_RUN_ID_BITS | id);
	WRITE_ONCE(ds_runs_live, ds_runs_live | BIT(id));
	if (!ds_runs_n++) {
		static_branch_enable(&ds_scope_key);
		static_branch_inc(&ds_sock_key);
		ds_late_attach();
	}
	return id;

err_put:
	cgroup_put(cg);
	return err;
}

/*
 * The tag of run id (scope.h), or an error. A tag names the run, and no
 * later one with the same id.
 */
int ds_run_tag(u32 id, struct netlink_ext_ack *extack, u32 *tag)
{
	lockdep_assert_held(&ds_lock);
	if (id > DROPSCOPE_MAX_RUNS || !(ds_runs_live & BIT(id))) {
		NL_SET_ERR_MSG(extack, "run: no run has this id");
		return -ENOENT;
	}
	*tag = ds_run_tags[id];
	return 0;
}

/* End run id, which only its socket may do. */
int ds_run_stop(u32 id, u32 portid, struct net *net,
		struct netlink_ext_ack *extack)
{
	u32 tag;
	int err = ds_run_tag(id, extack, &tag);

	if (err)
		return err;
	if (ds_runs[id].portid != portid || !net_eq(ds_runs[id].net, net)) {
		NL_SET_ERR_MSG(extack, "run: another socket began this run");
		return -EPERM;
	}
	ds_run_end(id);
	return 0;
}

/* A netlink socket is released: its runs end. */
static int ds_run_notify(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct netlink_notify *n = ptr;
	u32 id;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	mutex_lock(&ds_lock);
	for (id = 1; id <= DROPSCOPE_MAX_RUNS; id++)
		if ((ds_runs_live & BIT(id)) && ds_runs[id].portid == n->portid &&
		    net_eq(ds_runs[id].net, n->net))
			ds_run_end(id);
	mutex_unlock(&ds_lock);
	return NOTIFY_DONE;
}

static struct notifier_block ds_run_nb = {
	.notifier_call = ds_run_notify,
};

/* Before the devices' table, whose entries read the netns tags. */
int ds_scope_init(void)
{
	int err;

	err = register_pernet_subsys(&ds_net_ops);
	if (err)
		return err;
	err = netlink_register_notifier(&ds_run_nb);
	if (err)
		unregister_pernet_subsys(&ds_net_ops);
	return err;
}

/* Module exit: no command runs any more; every run ends. */
void ds_scope_exit(void)
{
	u32 id;

	mutex_lock(&ds_lock);
	for (id = 1; id <= DROPSCOPE_MAX_RUNS; id++)
		if (ds_runs_live & BIT(id))
			ds_run_end(id);
	mutex_unlock(&ds_lock);
}

/* After the devices' table is gone: nobody reads a netns tag. */
void ds_scope_free(void)
{
	netlink_unregister_notifier(&ds_run_nb);
	unregister_pernet_subsys(&ds_net_ops);
}
