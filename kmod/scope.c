// SPDX-License-Identifier: GPL-2.0
/*
 * The scope: one cgroup (v2) whose sockets' drops the drop path counts
 * apart (DS_PK_SCOPE in the key: sites of their own, marked scope), for
 * "dropscope run", which runs a command in a cgroup of its own. Set and
 * cleared under ds_lock; read by the probe under RCU (it runs with
 * preemption disabled), with a reference on the cgroup held while set.
 *
 * A drop is the scope's when the socket it carries is. Before 6.11,
 * skb:kfree_skb passes no receiving socket, and a datagram that UDP fails
 * to queue (receive buffer full, memory) is freed without one; UDP names
 * the socket right after, on the same CPU, in udp:udp_fail_queue_rcv_skb
 * (IPv4). There, while a cgroup is scoped, the drop is counted to the
 * scope too (ds_probe_late()), and the folder moves it from the rest.
 */

#include <linux/cgroup.h>
#include <linux/jump_label.h>
#include <linux/rcupdate.h>
#include <linux/tracepoint.h>
#include <net/netlink.h>
#include <net/sock.h>
#ifndef DS_HAVE_KFREE_SKB_RX_SK
#include <trace/events/udp.h>
#endif

#include "compat.h"
#include "dropscope.h"
#include "scope.h"

DEFINE_STATIC_KEY_FALSE(ds_scope_key);

/* read in any context by ds_scope_holds() (scope.h) */
struct cgroup __rcu *ds_scope_cgrp;
static u64 ds_scope_cgid;	/* under ds_lock */

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

u64 ds_scope_id(void)
{
	lockdep_assert_held(&ds_lock);
	return ds_scope_cgid;
}

static void ds_scope_clear(void)
{
	struct cgroup *old = rcu_dereference_protected(ds_scope_cgrp,
						       lockdep_is_held(&ds_lock));

	if (!old)
		return;
	ds_late_detach();
	static_branch_dec(&ds_sock_key);
	static_branch_disable(&ds_scope_key);
	RCU_INIT_POINTER(ds_scope_cgrp, NULL);
	/*
	 * The probes disable preemption: none reads old once this returns,
	 * and none runs on the UDP tracepoint.
	 */
	tracepoint_synchronize_unregister();
	cgroup_put(old);
	ds_scope_cgid = 0;
}

/* Scope the cgroup of id (0: none). Under ds_lock. */
int ds_scope_set(u64 id, struct netlink_ext_ack *extack)
{
	struct cgroup *cg;

	lockdep_assert_held(&ds_lock);
	if (!id) {
		ds_scope_clear();
		return 0;
	}
	if (!IS_ENABLED(CONFIG_SOCK_CGROUP_DATA)) {
		NL_SET_ERR_MSG(extack,
			       "scope: this kernel keeps no cgroup in its sockets (CONFIG_SOCK_CGROUP_DATA)");
		return -EOPNOTSUPP;
	}
	if (ds_scope_cgid == id)
		return 0;
	if (ds_scope_cgid) {
		NL_SET_ERR_MSG(extack,
			       "scope: another cgroup is scoped already (set 0 to clear it)");
		return -EBUSY;
	}
	cg = cgroup_get_from_id(id);
	if (IS_ERR(cg)) {
		NL_SET_ERR_MSG(extack, "scope: no cgroup (v2) has this id");
		return -ENOENT;
	}
	ds_scope_cgid = id;
	rcu_assign_pointer(ds_scope_cgrp, cg);
	static_branch_enable(&ds_scope_key);
	static_branch_inc(&ds_sock_key);
	ds_late_attach();
	return 0;
}

/* Module exit: no command runs any more, the probe is detached. */
void ds_scope_exit(void)
{
	mutex_lock(&ds_lock);
	ds_scope_clear();
	mutex_unlock(&ds_lock);
}
