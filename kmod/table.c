// SPDX-License-Identifier: GPL-2.0
/*
 * The drop path: one table per CPU, filled by the skb:kfree_skb probe, and
 * the folder that turns the per-CPU counts into sites.
 *
 * A table is an open-addressing hash of (location, reason) keys with twice
 * as many slots as ds_capacity, so that linear probing always meets an empty
 * slot. The probe runs in any context, hard IRQ included, with preemption
 * disabled by the tracepoint. Its fast path (the key is known) is a hash,
 * a compare and a local64_inc: no lock, no atomic, no shared cache line.
 * Claiming a new slot is rare and happens with local interrupts disabled, so
 * that a drop in an interrupt cannot claim the same slot half-way; the slot's
 * location is published last with release semantics for the folder.
 */

#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <asm/local64.h>
#include <trace/events/skb.h>

#include "compat.h"
#include "dropscope.h"

struct ds_slot {
	unsigned long loc;	/* 0: free; written once, with release */
	u32 reason;
	local64_t count;	/* written by this CPU only */
};

/* What the folder remembers of one slot. Protected by ds_lock. */
struct ds_shadow {
	u64 last;		/* slot count at the last fold */
	struct ds_site *site;	/* NULL until the folder created it */
};

struct ds_cpu {
	/* written by the probe on this CPU only */
	struct ds_slot *slots;
	u32 *claimed;		/* indexes of claimed slots, in claim order */
	u32 used;		/* claimed slots; published with release */
	local64_t overflow;	/* drops that found the table full */

	/* the folder's view, protected by ds_lock */
	struct ds_shadow *shadow;
	u64 overflow_last;
};

static DEFINE_PER_CPU(struct ds_cpu, ds_cpus);
static unsigned int ds_slot_bits;
static bool ds_attached;

static u32 ds_hash(unsigned long loc, u32 reason)
{
	return hash_64((u64)loc ^ ((u64)reason << 52), ds_slot_bits);
}

/*
 * Slow path: claim a slot for a key not seen on this CPU yet, starting at
 * the first free slot the fast path met. An interrupt may have claimed that
 * slot, for this very key or another, between the fast path and here.
 */
static noinline void ds_claim(struct ds_cpu *c, unsigned long loc, u32 reason,
			      u32 i)
{
	u32 mask = (1U << ds_slot_bits) - 1;
	struct ds_slot *s;
	unsigned long flags;

	local_irq_save(flags);
	for (;; i = (i + 1) & mask) {
		s = &c->slots[i];
		if (!s->loc)
			break;
		if (s->loc == (unsigned long)loc && s->reason == reason)
			goto hit;
	}
	if (c->used >= ds_capacity) {
		local64_inc(&c->overflow);
		goto out;
	}
	s->reason = reason;
	smp_store_release(&s->loc, loc);
	c->claimed[c->used] = i;
	smp_store_release(&c->used, c->used + 1);
hit:
	local64_inc(&s->count);
out:
	local_irq_restore(flags);
}

static void ds_kfree_skb_probe(DS_KFREE_SKB_PROBE_ARGS)
{
	struct ds_cpu *c = this_cpu_ptr(&ds_cpus);
	u32 mask = (1U << ds_slot_bits) - 1;
	unsigned long loc = (unsigned long)location;
	u32 i = ds_hash(loc, reason);
	struct ds_slot *s;

	for (;; i = (i + 1) & mask) {
		s = &c->slots[i];
		if (likely(s->loc == loc && s->reason == reason)) {
			local64_inc(&s->count);
			return;
		}
		if (!s->loc)
			break;
	}
	ds_claim(c, loc, reason, i);
}

int ds_probe_attach(void)
{
	int err;

	if (ds_attached)
		return 0;
	err = register_trace_kfree_skb(ds_kfree_skb_probe, NULL);
	if (!err)
		ds_attached = true;
	return err;
}

void ds_probe_detach(void)
{
	if (!ds_attached)
		return;
	unregister_trace_kfree_skb(ds_kfree_skb_probe, NULL);
	/* no probe runs on any CPU once this returns */
	tracepoint_synchronize_unregister();
	ds_attached = false;
}

/*
 * Fold every CPU's counts into the sites: each slot's growth since the last
 * fold is added to its site. Called with ds_lock held.
 */
void ds_fold(void)
{
	unsigned int cpu;
	u32 j, used, i;
	u64 now, delta;

	lockdep_assert_held(&ds_lock);
	for_each_possible_cpu(cpu) {
		struct ds_cpu *c = per_cpu_ptr(&ds_cpus, cpu);

		used = smp_load_acquire(&c->used);
		for (j = 0; j < used; j++) {
			struct ds_slot *s;
			struct ds_shadow *sh;

			i = c->claimed[j];
			s = &c->slots[i];
			sh = &c->shadow[i];
			now = local64_read(&s->count);
			delta = now - sh->last;
			if (!delta)
				continue;
			if (!sh->site)
				sh->site = ds_site_get(s->loc, s->reason);
			sh->last = now;
			if (sh->site)
				ds_site_add(sh->site, delta);
			else
				ds.alloc_fails += delta;
			ds.events += delta;
		}
		now = local64_read(&c->overflow);
		delta = now - c->overflow_last;
		c->overflow_last = now;
		ds.overflow += delta;
		ds.events += delta;
	}
	ds.folds++;
}

/* Forget every site pointer; the folder re-creates sites as drops come. */
void ds_table_forget_sites(void)
{
	unsigned int cpu;
	u32 j;

	lockdep_assert_held(&ds_lock);
	for_each_possible_cpu(cpu) {
		struct ds_cpu *c = per_cpu_ptr(&ds_cpus, cpu);
		u32 used = smp_load_acquire(&c->used);

		for (j = 0; j < used; j++)
			c->shadow[c->claimed[j]].site = NULL;
	}
}

/* Empty every table. Only while the probe is detached. */
void ds_table_clear(void)
{
	size_t nslots = 1UL << ds_slot_bits;
	unsigned int cpu;

	lockdep_assert_held(&ds_lock);
	WARN_ON_ONCE(ds_attached);
	for_each_possible_cpu(cpu) {
		struct ds_cpu *c = per_cpu_ptr(&ds_cpus, cpu);

		memset(c->slots, 0, nslots * sizeof(*c->slots));
		memset(c->shadow, 0, nslots * sizeof(*c->shadow));
		c->used = 0;
		local64_set(&c->overflow, 0);
		c->overflow_last = 0;
	}
}

static void ds_cpu_free(struct ds_cpu *c)
{
	kvfree(c->slots);
	kvfree(c->claimed);
	kvfree(c->shadow);
	c->slots = NULL;
	c->claimed = NULL;
	c->shadow = NULL;
}

int ds_table_init(void)
{
	unsigned int cpu;
	size_t nslots;

	ds_slot_bits = ilog2(roundup_pow_of_two(ds_capacity)) + 1;
	nslots = 1UL << ds_slot_bits;
	for_each_possible_cpu(cpu) {
		struct ds_cpu *c = per_cpu_ptr(&ds_cpus, cpu);
		int node = cpu_to_node(cpu);

		c->slots = kvzalloc_node(array_size(nslots, sizeof(*c->slots)),
					 GFP_KERNEL, node);
		c->claimed = kvzalloc_node(array_size(ds_capacity,
						      sizeof(*c->claimed)),
					   GFP_KERNEL, node);
		c->shadow = kvzalloc_node(array_size(nslots, sizeof(*c->shadow)),
					  GFP_KERNEL, node);
		if (!c->slots || !c->claimed || !c->shadow)
			goto err;
		local64_set(&c->overflow, 0);
	}
	return 0;
err:
	ds_table_exit();
	return -ENOMEM;
}

void ds_table_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		ds_cpu_free(per_cpu_ptr(&ds_cpus, cpu));
}
