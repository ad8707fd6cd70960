// SPDX-License-Identifier: GPL-2.0
/*
 * The drop path: the skb:kfree_skb probe and one table per CPU that it
 * fills. Everything here but the functions marked "under ds_lock" runs in
 * the probe, in any context, hard IRQ included, with preemption disabled
 * by the probe itself (ds_probe_begin(): a tracepoint may call it
 * preemptible), and takes no lock. The folder (sites.c) reads the
 * tables through ds_probe_used() and ds_probe_slot().
 *
 * A key is (location, reason), plus those of the packet's device, netns
 * and protocols that some mask rule matches on (ds_packet_key()).
 * A table is an open-addressing hash of keys with twice as many slots as
 * ds_capacity, so that linear probing always meets an empty slot. The fast
 * path (the key is known) is a hash, a compare and a local64_inc: no lock,
 * no atomic, no shared cache line. Claiming a new slot is rare and happens
 * with local interrupts disabled, so that a drop in an interrupt cannot
 * claim the same slot half-way.
 */

#include <linux/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/nsproxy.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <asm/local64.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <trace/events/skb.h>

#include "compat.h"
#include "dropscope.h"
#include "scope.h"
#include "packet.h"

/* One CPU's table: written by the probe on that CPU only. */
struct ds_cpu {
	struct ds_slot *slots;
	u32 *claimed;		/* indexes of claimed slots, in claim order */
	u32 used;		/* claimed slots; published with release */
	local64_t overflow;	/* drops that found the table full */
#ifndef DS_HAVE_KFREE_SKB_RX_SK
	/* the key of the last drop UDP may name a socket for (scope.c) */
	unsigned long late_loc;	/* 0: none */
	u64 late_rk, late_pk;
#endif
};

static DEFINE_PER_CPU(struct ds_cpu, ds_cpus);

/* See dropscope.h: sessions tracked, or a run lasts */
DEFINE_STATIC_KEY_FALSE(ds_sock_key);
/* See dropscope.h: capture, or stacks on more than a site */
DEFINE_STATIC_KEY_FALSE(ds_slow_key);
static unsigned int ds_slot_bits;
static bool ds_attached;	/* under ds_lock */

static unsigned int ds_hash_shift __read_mostly;	/* 64 - ds_slot_bits */

/* rk and pk are mixed in, so keys that differ by packet fields spread. */
static __always_inline u32 ds_hash(unsigned long loc, u64 rk, u64 pk)
{
	return ((u64)loc ^ ror64(rk ^ pk, 12)) * GOLDEN_RATIO_64 >>
	       ds_hash_shift;
}

/*
 * The layout of a drop's key, the one definition: the input interface
 * into rk above the reason, netns | l3 << 32 | l4 << 48 into pk, l3 in
 * network byte order (the folder turns it).
 */
static __always_inline void ds_pack_ifindex(u64 *rk, u32 ifindex)
{
	*rk |= (u64)ifindex << 32;
}

static __always_inline void ds_pack_netns(u64 *pk, u32 netns)
{
	*pk |= netns;
}

static __always_inline void ds_pack_l3(u64 *pk, u16 l3_be)
{
	*pk |= (u64)l3_be << 32;
}

static __always_inline void ds_pack_l4(u64 *pk, u8 l4)
{
	*pk |= (u64)l4 << 48;
}

/*
 * The packet fields the rules use, read from the packet into the key. A
 * field's key jumps over its code while off.
 */
static __always_inline void ds_packet_key(const struct sk_buff *skb,
					  u64 *rk, u64 *pk)
{
	if (static_branch_likely(&ds_field_keys[DS_F_IFINDEX]))
		ds_pack_ifindex(rk, ds_packet_ifindex(skb));
	if (static_branch_likely(&ds_field_keys[DS_F_NETNS]))
		ds_pack_netns(pk, ds_packet_netns(skb));
	if (static_branch_likely(&ds_field_keys[DS_F_L3]))
		ds_pack_l3(pk, ds_packet_l3(skb));
	if (static_branch_likely(&ds_field_keys[DS_F_L4]))
		ds_pack_l4(pk, ds_packet_l4(skb));
}

/*
 * Slow path: claim a slot for a key not seen on this CPU yet, starting at
 * the first free slot the fast path met. An interrupt may have claimed that
 * slot, for this very key or another, between the fast path and here.
 */
static noinline void ds_claim(struct ds_cpu *c, u64 pk, unsigned long loc,
			      u64 rk, u32 i)
{
	u32 mask = (1U << ds_slot_bits) - 1;
	struct ds_slot *s;
	unsigned long flags;

	local_irq_save(flags);
	for (;; i = (i + 1) & mask) {
		s = &c->slots[i];
		if (!s->loc)
			break;
		if (s->loc == loc && s->rk == rk && s->pk == pk)
			goto hit;
	}
	if (c->used >= ds_capacity) {
		local64_inc(&c->overflow);
		goto out;
	}
	s->rk = rk;
	s->pk = pk;
	/*
	 * Interrupts are off: no drop on this CPU sees the slot half
	 * claimed. The folder finds it through claimed[] only.
	 */
	WRITE_ONCE(s->loc, loc);
	c->claimed[c->used] = i;
	/* pairs with the smp_load_acquire() in ds_probe_used() */
	smp_store_release(&c->used, c->used + 1);
hit:
	local64_inc(&s->count);
out:
	local_irq_restore(flags);
}

/* Find the key's slot from i on, and count; claim one if it is new. */
static __always_inline void ds_count(struct ds_cpu *c, unsigned long loc,
				     u64 rk, u64 pk, u32 i)
{
	u32 mask = (1U << ds_slot_bits) - 1;
	struct ds_slot *s;

	for (;; i = (i + 1) & mask) {
		s = &c->slots[i];
		if (likely(s->loc == loc && s->rk == rk && s->pk == pk)) {
			local64_inc(&s->count);
			return;
		}
		if (!s->loc)
			break;
	}
	ds_claim(c, pk, loc, rk, i);
}

/*
 * Out of line, so that the common probe keeps to the registers a call
 * would not make it save.
 */
static noinline notrace void ds_count_packet(struct ds_cpu *c,
					     const struct sk_buff *skb,
					     unsigned long loc, u32 reason,
					     u64 pk)
{
	u64 rk = reason;

	ds_packet_key(skb, &rk, &pk);
	ds_count(c, loc, rk, pk, ds_hash(loc, rk, pk));
}

/* Gated out: the drop came in on no device the rules name. */
static __always_inline bool ds_packet_gated_out(const struct sk_buff *skb)
{
	u32 iif = skb->skb_iif;

	return static_branch_likely(&ds_gate_key) && iif < DS_GATE_DEVS &&
	       !test_bit(iif, ds_gate);
}

/* Is the drop keyed by its packet's fields (rules use them, not gated out)? */
static __always_inline bool ds_packet_keyed(const struct sk_buff *skb)
{
	return static_branch_unlikely(&ds_packet_fields) &&
	       !ds_packet_gated_out(skb);
}

/*
 * Count a drop in this CPU's table, keyed by the fields the rules use; pk
 * is a run's (ds_dev_run_pk(), ds_sock_run_pk()), else 0.
 */
static __always_inline void ds_probe_count(struct ds_cpu *c,
					   const struct sk_buff *skb,
					   unsigned long loc, u32 reason, u64 pk)
{
	if (ds_packet_keyed(skb))
		ds_count_packet(c, skb, loc, reason, pk);
	else
		ds_count(c, loc, reason, pk, ds_hash(loc, reason, pk));
}

/* The fields the drop path is keyed by now, as BIT(DS_F_*). */
static __always_inline u32 ds_keyed_fields(void)
{
	u32 f = 0;

	if (static_branch_likely(&ds_field_keys[DS_F_IFINDEX]))
		f |= BIT(DS_F_IFINDEX);
	if (static_branch_likely(&ds_field_keys[DS_F_NETNS]))
		f |= BIT(DS_F_NETNS);
	if (static_branch_likely(&ds_field_keys[DS_F_L3]))
		f |= BIT(DS_F_L3);
	if (static_branch_likely(&ds_field_keys[DS_F_L4]))
		f |= BIT(DS_F_L4);
	return f;
}

/*
 * The slow path's key of a drop, as ds_packet_key() makes it, from the
 * fields the drop's other parts read already (ds_drop_key()).
 */
static __always_inline void ds_drop_rk_pk(struct ds_drop *d, u64 *rk, u64 *pk)
{
	const struct ds_key *k;
	u32 f;

	*rk = d->k.reason;
	if (!ds_packet_keyed(d->skb))
		return;
	f = ds_keyed_fields();
	k = ds_drop_key(d, f);
	if (f & BIT(DS_F_IFINDEX))
		ds_pack_ifindex(rk, k->ifindex);
	if (f & BIT(DS_F_NETNS))
		ds_pack_netns(pk, k->netns);
	if (f & BIT(DS_F_L3))
		ds_pack_l3(pk, (__force u16)htons(k->l3));
	if (f & BIT(DS_F_L4))
		ds_pack_l4(pk, k->l4);
}

/*
 * A drop freed in task context whose device is no run's: the run of the
 * task, with the task's netns, or 0. Out of line: most such drops are
 * freed in softirq.
 */
static noinline notrace u64 ds_task_run_pk(void)
{
	const struct nsproxy *ns = current->nsproxy;
	u32 id;

	rcu_read_lock();
	id = ds_cgrp_run(task_dfl_cgroup(current));
	rcu_read_unlock();
	if (!id)
		return 0;
	/* an exiting task has no namespaces left */
	return DS_PK_RUN(id) | (ns ? ns->net_ns->ns.inum : 0);
}

/*
 * While a run lasts, the run of a drop's device's netns, with that netns,
 * or 0. The device is looked up only once a run has made a netns.
 */
static __always_inline u64 ds_netdev_run_pk(const struct sk_buff *skb)
{
	const struct ds_dev *e;
	u32 id;

	if (!READ_ONCE(ds_run_nets))
		return 0;
	e = ds_packet_dev(skb);
	id = e ? ds_tag_run(e->tag) : 0;
	return id ? DS_PK_RUN(id) | e->inum : 0;
}

/*
 * While a run lasts, a drop without a socket: the run of its device's
 * netns; else, in task context, the task's run; or 0.
 */
static __always_inline u64 ds_dev_run_pk(const struct sk_buff *skb)
{
	u64 pk = ds_netdev_run_pk(skb);

	return pk || !in_task() ? pk : ds_task_run_pk();
}

/* While a run lasts, a drop with a socket: its run, else its device's. */
static __always_inline u64 ds_sock_run_pk(const struct sk_buff *skb,
					  const struct sock *sk)
{
	u32 id = ds_sock_run(sk);

	return id ? DS_PK_RUN(id) | sock_net(sk)->ns.inum : ds_dev_run_pk(skb);
}

/* The run's part of a drop's key, without a socket. */
static __always_inline u64 ds_run_pk(const struct sk_buff *skb)
{
	return static_branch_unlikely(&ds_scope_key) ? ds_dev_run_pk(skb) : 0;
}

/* Count a drop of the slow path; pk as ds_probe_count() takes it. */
static __always_inline void ds_drop_count(struct ds_drop *d, u64 pk)
{
	u64 rk;

	ds_drop_rk_pk(d, &rk, &pk);
	ds_count(ds_this_cpu_ptr(&ds_cpus), d->k.loc, rk, pk,
		 ds_hash(d->k.loc, rk, pk));
}

#ifdef DS_HAVE_KFREE_SKB_RX_SK
static __always_inline bool ds_sock_or_late(const struct sk_buff *skb,
					    const struct sock *rx_sk)
{
	return (unsigned long)skb->sk | (unsigned long)rx_sk;
}
#else
/*
 * Without rx_sk, a receive drop carries no socket; UDP names it right
 * after the drop (udp:udp_fail_queue_rcv_skb), and while a run lasts
 * ds_late_key sends such drops here.
 */
static __always_inline bool ds_sock_or_late(const struct sk_buff *skb,
					    const struct sock *rx_sk)
{
	return skb->sk || static_branch_unlikely(&ds_late_key);
}

/*
 * A drop without a socket while a run lasts: counted as any other, and
 * its key kept when it may be UDP's failure to queue, so that
 * ds_probe_late() can count it to the socket's run too.
 */
static noinline notrace u64 ds_count_late(struct ds_drop *d)
{
	struct ds_cpu *c = ds_this_cpu_ptr(&ds_cpus);
	unsigned long loc = d->k.loc;
	u64 rk, run = ds_run_pk(d->skb), pk = run;

	ds_drop_rk_pk(d, &rk, &pk);
	ds_count(c, loc, rk, pk, ds_hash(loc, rk, pk));
	/* a run's already, by its device: not the rest's to move */
	if ((d->k.reason != SKB_DROP_REASON_SOCKET_RCVBUFF &&
	     d->k.reason != SKB_DROP_REASON_PROTO_MEM) || DS_PK_RUN_ID(pk))
		return run;
	c->late_rk = rk;
	c->late_pk = pk;
	/* a drop in an interrupt here finds a key whole, or none */
	barrier();
	WRITE_ONCE(c->late_loc, loc);
	return run;
}

/*
 * UDP failed to queue a datagram for sk, and freed it just before on this
 * CPU (ds_count_late() kept its key). When sk is a run's, count the drop
 * again under DS_PK_RUN() | DS_PK_LATE, with the socket's netns (then
 * DS_PK_RUNNS) unless the key has one: the folder moves it from the rest
 * to the run (sites.c).
 */
notrace void ds_probe_late(const struct sock *sk)
{
	struct ds_cpu *c;
	unsigned long loc;
	u32 id;
	u64 pk;

	ds_probe_begin();
	c = ds_this_cpu_ptr(&ds_cpus);
	loc = READ_ONCE(c->late_loc);
	if (loc) {
		WRITE_ONCE(c->late_loc, 0);
		id = sk ? ds_sock_run(sk) : 0;
		if (id) {
			pk = c->late_pk | DS_PK_RUN(id) | DS_PK_LATE;
			if (!(u32)pk)
				pk |= DS_PK_RUNNS | sock_net(sk)->ns.inum;
			/* the rest's count before this one (ds_drops_fold()) */
			smp_wmb();
			ds_count(c, loc, c->late_rk, pk,
				 ds_hash(loc, c->late_rk, pk));
		}
	}
	ds_probe_end();
}
#endif

/*
 * A drop with a socket while TCP sessions are tracked or a run lasts:
 * counted to its session too, unless the rules mask it (sessions.c), and
 * apart when the drop is a run's (scope.c). Returns the run's part of its
 * key (0: none). Out of line, as ds_count_packet() is.
 */
static noinline notrace u64 ds_count_sock(struct ds_drop *d,
					  const struct sock *sk)
{
	u64 pk = 0;

#ifndef DS_HAVE_KFREE_SKB_RX_SK
	if (!sk)
		return ds_count_late(d);
#endif
	if (static_branch_unlikely(&ds_sess_drops_key))
		ds_sess_drop(sk, d);
	if (static_branch_unlikely(&ds_scope_key))
		pk = ds_sock_run_pk(d->skb, sk);
	ds_drop_count(d, pk);
	return pk;
}

/*
 * A drop while a capture runs or stacks are taken, or one with a socket
 * while sessions are tracked: each part reads the packet's fields it
 * needs once for all (struct ds_drop, whose fields are each written
 * whole: no canary guards it). Out of line and reached by a tail call,
 * so that the common probe saves no register: nothing it holds lives
 * across a call. Its arguments are the probe's, in the same registers:
 * the tail call moves none.
 */
static noinline __noclone notrace __no_stack_protector void
ds_probe_slow(void *data, const struct sk_buff *skb, void *location,
	      u32 reason, const struct sock *rx_sk)
{
	const struct sock *sk = skb->sk ? skb->sk : rx_sk;
	struct ds_drop d;
	u32 stack = 0;
	u64 pk;

	ds_drop_init(&d, skb, (unsigned long)location, reason);
	ds_probe_begin();
	if (static_branch_unlikely(&ds_stacks_key))
		stack = ds_stacks_drop(&d);
	if (static_branch_unlikely(&ds_sock_key) &&
	    ds_sock_or_late(skb, rx_sk)) {
		pk = ds_count_sock(&d, sk);
	} else {
		pk = ds_run_pk(skb);
		ds_drop_count(&d, pk);
	}
	/* after the count: a capture of a run's takes the drop's run */
	if (static_branch_unlikely(&ds_cap_key))
		ds_capture(&d, stack, sk, DS_PK_RUN_ID(pk));
	ds_probe_end();
}

/* A drop ds_probe_run() found no run for, freed in task context. */
static noinline notrace void ds_probe_task(const struct sk_buff *skb,
					   unsigned long loc, u32 reason)
{
	ds_probe_begin();
	ds_probe_count(ds_this_cpu_ptr(&ds_cpus), skb, loc, reason,
		       ds_task_run_pk());
	ds_probe_end();
}

/*
 * A drop without a socket while a run lasts (ds_scope_key), once a run
 * has made a netns or in task context: the common probe's count, with the
 * run of the drop's device, or of the task that frees it (a tail call).
 * Out of line and reached by a tail call, as ds_probe_slow() is.
 */
static noinline notrace void ds_probe_run(const struct sk_buff *skb,
					  unsigned long loc, u32 reason)
{
	u64 pk;

	ds_probe_begin();
	pk = ds_netdev_run_pk(skb);
	if (!pk && in_task()) {
		ds_probe_end();
		return ds_probe_task(skb, loc, reason);
	}
	ds_probe_count(ds_this_cpu_ptr(&ds_cpus), skb, loc, reason, pk);
	ds_probe_end();
}

/*
 * Every drop comes here. The common case (no capture; no socket, or
 * sessions not tracked; no rule on packet fields) is a hash, a compare
 * and an increment between the probe's own preempt_disable() and
 * preempt_enable(), in a function that saves no register. A drop without
 * a socket pays the session part a no-op and one test of skb->sk (or'ed
 * with rx_sk where it is passed), and capture a no-op.
 */
static notrace void ds_kfree_skb_probe(DS_KFREE_SKB_PROBE_ARGS)
{
	if (static_branch_unlikely(&ds_slow_key) ||
	    (static_branch_unlikely(&ds_stacks_site_key) &&
	     (unsigned long)location - ds_stacks_start < ds_stacks_len) ||
	    (static_branch_unlikely(&ds_sock_key) &&
	     ds_sock_or_late(skb, DS_KFREE_SKB_RX_SK)))
		return ds_probe_slow(data, skb, location, reason,
				     DS_KFREE_SKB_RX_SK);
	/* while a run lasts, a drop may be its by its device or its task */
	if (static_branch_unlikely(&ds_scope_key) &&
	    (READ_ONCE(ds_run_nets) || in_task()))
		return ds_probe_run(skb, (unsigned long)location, reason);
	ds_probe_begin();
	ds_probe_count(ds_this_cpu_ptr(&ds_cpus), skb,
		       (unsigned long)location, reason, 0);
	ds_probe_end();
}

#ifdef DS_PREEMPT_TEST
void ds_ptest_drop(struct sk_buff *skb, void *location)
{
	u32 reason = SKB_DROP_REASON_NOT_SPECIFIED;

#ifdef DS_HAVE_KFREE_SKB_RX_SK
	ds_kfree_skb_probe(NULL, skb, location, reason, NULL);
#else
	ds_kfree_skb_probe(NULL, skb, location, reason);
#endif
}
#endif

/* Under ds_lock. */
int ds_probe_attach(void)
{
	int err;

	lockdep_assert_held(&ds_lock);
	if (ds_attached)
		return 0;
	err = register_trace_kfree_skb(ds_kfree_skb_probe, NULL);
	if (!err)
		ds_attached = true;
	return err;
}

/* Under ds_lock. */
void ds_probe_detach(void)
{
	lockdep_assert_held(&ds_lock);
	if (!ds_attached)
		return;
	unregister_trace_kfree_skb(ds_kfree_skb_probe, NULL);
	/* no probe runs on any CPU once this returns */
	tracepoint_synchronize_unregister();
	ds_attached = false;
}

/*
 * The folder's view of one CPU's table: the slots claimed so far, in
 * claim order. A slot's key never changes once claimed; its count only
 * grows (until ds_probe_clear()).
 */
u32 ds_probe_slots(void)
{
	return 1U << ds_slot_bits;
}

u32 ds_probe_used(unsigned int cpu)
{
	/* pairs with the smp_store_release() in ds_claim() */
	return smp_load_acquire(&per_cpu_ptr(&ds_cpus, cpu)->used);
}

/* The j-th claimed slot of cpu (j < ds_probe_used()), and its index. */
const struct ds_slot *ds_probe_slot(unsigned int cpu, u32 j, u32 *index)
{
	struct ds_cpu *c = per_cpu_ptr(&ds_cpus, cpu);

	*index = c->claimed[j];
	return &c->slots[*index];
}

u64 ds_probe_overflow(unsigned int cpu)
{
	return local64_read(&per_cpu_ptr(&ds_cpus, cpu)->overflow);
}

/* Empty every table. Under ds_lock, only while the probe is detached. */
void ds_probe_clear(void)
{
	size_t nslots = 1UL << ds_slot_bits;
	unsigned int cpu;

	lockdep_assert_held(&ds_lock);
	WARN_ON_ONCE(ds_attached);
	for_each_possible_cpu(cpu) {
		struct ds_cpu *c = per_cpu_ptr(&ds_cpus, cpu);

		memset(c->slots, 0, nslots * sizeof(*c->slots));
		c->used = 0;
		local64_set(&c->overflow, 0);
	}
}

static void ds_cpu_free(struct ds_cpu *c)
{
	kvfree(c->slots);
	kvfree(c->claimed);
	c->slots = NULL;
	c->claimed = NULL;
}

int ds_probe_init(void)
{
	unsigned int cpu;
	size_t nslots;

	ds_slot_bits = ilog2(roundup_pow_of_two(ds_capacity)) + 1;
	ds_hash_shift = 64 - ds_slot_bits;
	nslots = 1UL << ds_slot_bits;
	for_each_possible_cpu(cpu) {
		struct ds_cpu *c = per_cpu_ptr(&ds_cpus, cpu);
		int node = cpu_to_node(cpu);

		c->slots = kvzalloc_node(array_size(nslots, sizeof(*c->slots)),
					 GFP_KERNEL, node);
		c->claimed = kvzalloc_node(array_size(ds_capacity,
						      sizeof(*c->claimed)),
					   GFP_KERNEL, node);
		if (!c->slots || !c->claimed)
			goto err;
		local64_set(&c->overflow, 0);
	}
	return 0;
err:
	ds_probe_exit();
	return -ENOMEM;
}

void ds_probe_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		ds_cpu_free(per_cpu_ptr(&ds_cpus, cpu));
}
