/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runs' scopes (scope.c) as the drop path and sessions read them: in
 * any context, hard IRQ included, with preemption disabled
 * (ds_probe_begin()), which is what scope.c waits out before it lets a
 * cgroup go.
 *
 * A run's tag is its id (1 to DROPSCOPE_MAX_RUNS) in the low bits and a
 * generation above them; ds_run_tags[id] holds the tag of the run with
 * that id while it lasts, 0 otherwise. A namespace keeps the tag of the
 * run that created it (struct ds_net), and so does each device's entry in
 * the devices' table: once its run ends, the tag matches no run, and no
 * later run with the same id, so nothing has to be cleared.
 */
#ifndef _DROPSCOPE_SCOPE_H
#define _DROPSCOPE_SCOPE_H

#include <linux/cgroup.h>
#include <linux/rcupdate.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#define DS_RUN_ID_BITS	5
#define DS_RUN_ID_MASK	((1U << DS_RUN_ID_BITS) - 1)

/* one per netns, at ds_net_id */
struct ds_net {
	u32 tag;		/* the run that created it; 0: none */
};

extern unsigned int ds_net_id;
extern u32 ds_run_tags[DS_RUN_ID_MASK + 1];
extern struct cgroup __rcu *ds_run_cgrps[DROPSCOPE_MAX_RUNS + 1];
extern unsigned long ds_runs_live;	/* BIT(id) per run */
/* a run has made a netns: a device may be a run's */
extern bool ds_run_nets;

/* The run of tag, while it lasts; else 0. */
static __always_inline u32 ds_tag_run(u32 tag)
{
	u32 id = tag & DS_RUN_ID_MASK;

	return tag && READ_ONCE(ds_run_tags[id]) == tag ? id : 0;
}

/*
 * The tag of net: the run that created it, or 0. net_generic() by hand:
 * the probe is an RCU reader by disabling preemption, which
 * net_generic()'s check does not take for one.
 */
static __always_inline u32 ds_net_tag(const struct net *net)
{
	const struct net_generic *ng;
	const struct ds_net *dn;

	ng = rcu_dereference_check(net->gen, rcu_read_lock_any_held());
	dn = ng->ptr[ds_net_id];
	return READ_ONCE(dn->tag);
}

/*
 * The run whose cgroups hold cg, or 0: under RCU, or with preemption
 * disabled.
 */
static __always_inline u32 ds_cgrp_run(struct cgroup *cg)
{
	unsigned long live = READ_ONCE(ds_runs_live);
	struct cgroup *run;
	u32 id;

	/* a bit at a time, without find_next_bit()'s call */
	for (; live; live &= live - 1) {
		id = __ffs(live);
		run = rcu_dereference_check(ds_run_cgrps[id],
					    rcu_read_lock_any_held());
		if (run && cgroup_is_descendant(cg, run))
			return id;
	}
	return 0;
}

/* The run whose cgroups hold the socket (a full one), or 0. */
static __always_inline u32 ds_cgroup_run(const struct sock *sk)
{
#ifdef CONFIG_SOCK_CGROUP_DATA
	if (sk_fullsock(sk))
		return ds_cgrp_run(sock_cgroup_ptr(&((struct sock *)sk)->sk_cgrp_data));
#endif
	return 0;
}

/*
 * The run a socket belongs to: by its cgroup, else by its netns; 0 for
 * none. Only while some run lasts (ds_scope_key).
 */
static __always_inline u32 ds_sock_run(const struct sock *sk)
{
	u32 id = ds_cgroup_run(sk);

	return id ? id : ds_tag_run(ds_net_tag(sock_net(sk)));
}

#endif /* _DROPSCOPE_SCOPE_H */
