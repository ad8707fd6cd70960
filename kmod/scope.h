/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scope (scope.c) as the drop probe and sessions read it: in any
 * context, hard IRQ included, with preemption disabled (ds_probe_begin()),
 * which is what scope.c waits out before it lets a cgroup go.
 */
#ifndef _DROPSCOPE_SCOPE_H
#define _DROPSCOPE_SCOPE_H

#include <linux/cgroup.h>
#include <linux/rcupdate.h>
#include <net/sock.h>

extern struct cgroup __rcu *ds_scope_cgrp;

/* Does the drop's socket belong to the scope, or to a cgroup below it? */
static __always_inline bool ds_scope_holds(const struct sock *sk)
{
#ifdef CONFIG_SOCK_CGROUP_DATA
	struct cgroup *scope = rcu_dereference_sched(ds_scope_cgrp);
	struct sock_cgroup_data *skcd;

	if (!scope || !sk_fullsock(sk))
		return false;
	skcd = &((struct sock *)sk)->sk_cgrp_data;
	return cgroup_is_descendant(sock_cgroup_ptr(skcd), scope);
#else
	return false;
#endif
}

#endif /* _DROPSCOPE_SCOPE_H */
