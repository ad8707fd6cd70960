// SPDX-License-Identifier: GPL-2.0
/*
 * Drop stacks: every distinct kernel stack behind the drops that the
 * stacks rule matches (all of them without one), counted per CPU and
 * folded with the sites.
 *
 * A matching drop is unwound in the probe (stack_trace_save()); the
 * frames below the drop site, the probe, the tracepoint and the function
 * that fired it, are cut at the first frame equal to the drop's location,
 * so that frames[0] is the site. At most DS_STACK_DEPTH frames are kept.
 * The frames, site and reason are hashed (jhash2) into the stack's id.
 *
 * Each CPU counts in a table of its own, written by the probe on that CPU
 * only, as the site tables are (probe.c): an open-addressing index of
 * twice as many slots as entries, a lookup that compares the id, the site,
 * the reason and the frames, and a local64_inc. A new entry is claimed
 * with local interrupts off, so that a drop in an interrupt cannot claim
 * it half-way, and published with release. ds_stacks_cap stacks with
 * frames fit; a stack that finds no room is counted in an entry of its
 * site and reason without frames (no_room), DS_STACKS_NO_ROOM of them;
 * what finds no room there either is counted as lost. A drop whose stack
 * does not reach its site (an unwinder that failed) is counted without
 * frames too, and in siteless.
 *
 * The folder (under ds_lock) adds each entry's growth since the last fold
 * to a table of the same kind that holds every CPU's stacks; dumps read
 * that one. Clear and reset empty it; the per-CPU tables are emptied only
 * while the probe is detached, as the site tables are.
 *
 * The stacks rule is set with the stacks key off and a grace period
 * between: the probe never sees it change. A rule on a site alone costs a
 * drop outside the site one range test in the probe's fast path
 * (ds_stacks_site_key); any other rule sends every drop to the slow path
 * (ds_slow_key), where the rule is matched.
 */

#include <linux/irqflags.h>
#include <linux/jhash.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <asm/local64.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "compat.h"
#include "dropscope.h"

unsigned int ds_stacks_cap = 1024;
module_param_cb(stacks, &ds_param_count_ops, &ds_stacks_cap, 0444);
MODULE_PARM_DESC(stacks,
		 "distinct drop stacks counted per CPU, 1 to 1048576 (default 1024)");

/* Entries without frames for stacks that find the table full. */
#define DS_STACKS_NO_ROOM	DROPSCOPE_STACKS_NO_ROOM
/* Frames unwound below the drop site at most: probe, tracepoint, ... */
#define DS_STACK_SKIP		16

struct ds_stack {
	unsigned long loc;
	u32 reason;
	u32 id;			/* jhash2 of frames, site and reason; not 0 */
	u16 nr;			/* frames; 0: counted without them */
	bool siteless;		/* the unwinder did not reach the site */
	local64_t count;
	unsigned long frames[DS_STACK_DEPTH];
};

/* A table of stacks: one per CPU, and the folded one. */
struct ds_stab {
	u32 *idx;		/* entry index + 1, or 0: an empty slot */
	struct ds_stack *e;
	u64 *last;		/* per CPU: each entry's count at the last fold */
	u32 mask;		/* index slots - 1 */
	u32 used;		/* entries claimed; published with release */
	u32 framed;		/* of them, with frames */
	local64_t lost;		/* no room even without frames */
	local64_t siteless;
};

DEFINE_STATIC_KEY_FALSE(ds_stacks_key);
DEFINE_STATIC_KEY_FALSE(ds_stacks_site_key);
/* The site range of a rule on a site alone, for the fast path. */
unsigned long ds_stacks_start __read_mostly;
unsigned long ds_stacks_len __read_mostly;

static DEFINE_PER_CPU(struct ds_stab *, ds_stabs);

/* All of it under ds_lock. */
static struct {
	struct ds_stab *folded;
	struct ds_rule rule;	/* match 0: every drop */
	bool on;
	bool slow;		/* holds a reference on ds_slow_key */
	u32 gen;		/* bumped when the folded table empties */
	u64 lost_base, siteless_base;	/* per-CPU sums at the last clear */
} st;

/* What a stack is looked up by. */
struct ds_skey {
	unsigned long loc;
	u32 reason;
	u32 id;
	u16 nr;
	bool siteless;
	const unsigned long *frames;
};

static __always_inline bool ds_stack_is(const struct ds_stack *e,
					const struct ds_skey *k)
{
	return e->id == k->id && e->loc == k->loc && e->reason == k->reason &&
	       e->nr == k->nr && e->siteless == k->siteless &&
	       !memcmp(e->frames, k->frames, k->nr * sizeof(*k->frames));
}

/* The entry of key k, or NULL and the empty slot where it would go. */
static struct ds_stack *ds_stab_find(struct ds_stab *t,
				     const struct ds_skey *k, u32 *slot)
{
	u32 i = k->id & t->mask, v;

	for (;; i = (i + 1) & t->mask) {
		/* pairs with the smp_store_release() in ds_stab_claim() */
		v = smp_load_acquire(&t->idx[i]);
		if (!v) {
			*slot = i;
			return NULL;
		}
		if (ds_stack_is(&t->e[v - 1], k))
			return &t->e[v - 1];
	}
}

/*
 * Claim an entry for k with count n at slot, if there is room: with
 * frames, ds_stacks_cap of them; without, DS_STACKS_NO_ROOM more.
 */
static bool ds_stab_claim(struct ds_stab *t, const struct ds_skey *k,
			  u32 slot, u64 n)
{
	struct ds_stack *e;
	u32 j = t->used;

	if (k->nr ? t->framed >= ds_stacks_cap :
		    j >= ds_stacks_cap + DS_STACKS_NO_ROOM)
		return false;
	e = &t->e[j];
	e->loc = k->loc;
	e->reason = k->reason;
	e->id = k->id;
	e->nr = k->nr;
	e->siteless = k->siteless;
	memcpy(e->frames, k->frames, k->nr * sizeof(*k->frames));
	local64_set(&e->count, n);
	if (t->last)
		t->last[j] = 0;
	if (k->nr)
		t->framed++;
	/* the entry, then its slot: pairs with ds_stab_find()'s acquire */
	smp_store_release(&t->idx[slot], j + 1);
	/* the entry, then the count: pairs with ds_stacks_fold()'s acquire */
	smp_store_release(&t->used, j + 1);
	return true;
}

/* The key of the same site and reason without frames. */
static void ds_skey_frameless(struct ds_skey *k)
{
	k->nr = 0;
	k->id = jhash_2words((u32)k->loc, k->reason,
			     (u32)((u64)k->loc >> 32) ^ k->siteless) | 1;
}

/*
 * Count n of k in t: in its entry, else a new one, else its site's entry
 * without frames. Returns the id it was counted under, or 0: lost. With
 * irq, a claim is made with local interrupts off (a CPU's table).
 */
static u32 ds_stab_add(struct ds_stab *t, struct ds_skey *k, u64 n, bool irq)
{
	struct ds_stack *e;
	unsigned long flags = 0;
	u32 slot, id = 0;

	for (;;) {
		e = ds_stab_find(t, k, &slot);
		if (e) {
			local64_add(n, &e->count);
			return k->id;
		}
		if (irq)
			local_irq_save(flags);
		/* an interrupt may have claimed it meanwhile: look again */
		e = ds_stab_find(t, k, &slot);
		if (e)
			local64_add(n, &e->count);
		else if (ds_stab_claim(t, k, slot, n))
			e = &t->e[t->used - 1];
		if (irq)
			local_irq_restore(flags);
		if (e)
			return k->id;
		if (!k->nr) {
			local64_add(n, &t->lost);
			return id;
		}
		ds_skey_frameless(k);
	}
}

/*
 * The drop's stack, from its site outward, into k (frames in buf). The
 * unwinder starts in this function: the frames up to the site are the
 * probe's, the tracepoint's and the freeing function's.
 */
static noinline notrace void ds_stack_take(unsigned long loc, u32 reason,
					   unsigned long *buf,
					   struct ds_skey *k)
{
	unsigned int n, i;

	n = stack_trace_save(buf, DS_STACK_DEPTH + DS_STACK_SKIP, 0);
	k->loc = loc;
	k->reason = reason;
	k->siteless = false;
	for (i = 0; i < n && i < DS_STACK_SKIP; i++)
		if (buf[i] == loc)
			break;
	if (i == n || i == DS_STACK_SKIP) {
		k->siteless = true;
		k->frames = buf;
		ds_skey_frameless(k);
		return;
	}
	k->frames = buf + i;
	k->nr = min_t(unsigned int, n - i, DS_STACK_DEPTH);
	k->id = jhash2((const u32 *)k->frames,
		       k->nr * sizeof(*k->frames) / sizeof(u32),
		       (u32)loc ^ reason) | 1;
}

/*
 * A drop while stacks are on, in the probe's slow path (preemption off):
 * its stack counted when the rule matches. Returns its id, or 0: not
 * taken, or lost.
 */
notrace u32 ds_stacks_drop(const struct sk_buff *skb, void *location,
			   u32 reason)
{
	unsigned long buf[DS_STACK_DEPTH + DS_STACK_SKIP];
	unsigned long loc = (unsigned long)location;
	struct ds_stab *t;
	struct ds_skey k;

	if (st.rule.match &&
	    !ds_rule_matches_drop(&st.rule, skb, loc, reason))
		return 0;
	t = *ds_this_cpu_ptr(&ds_stabs);
	ds_stack_take(loc, reason, buf, &k);
	if (k.siteless)
		local64_inc(&t->siteless);
	return ds_stab_add(t, &k, 1, true);
}

/* ---- under ds_lock ------------------------------------------------------ */

static void ds_stab_free(struct ds_stab *t)
{
	if (!t)
		return;
	kvfree(t->idx);
	kvfree(t->e);
	kvfree(t->last);
	kfree(t);
}

static struct ds_stab *ds_stab_alloc(bool percpu, int node)
{
	u32 n = ds_stacks_cap + DS_STACKS_NO_ROOM;
	u32 slots = roundup_pow_of_two(2 * n);
	struct ds_stab *t;

	t = kzalloc_node(sizeof(*t), GFP_KERNEL, node);
	if (!t)
		return NULL;
	t->mask = slots - 1;
	t->idx = kvzalloc_node(array_size(slots, sizeof(*t->idx)),
			       GFP_KERNEL, node);
	t->e = kvzalloc_node(array_size(n, sizeof(*t->e)), GFP_KERNEL, node);
	if (percpu)
		t->last = kvzalloc_node(array_size(n, sizeof(*t->last)),
					GFP_KERNEL, node);
	if (!t->idx || !t->e || (percpu && !t->last)) {
		ds_stab_free(t);
		return NULL;
	}
	local64_set(&t->lost, 0);
	local64_set(&t->siteless, 0);
	return t;
}

static void ds_stab_empty(struct ds_stab *t)
{
	memset(t->idx, 0, (t->mask + 1) * sizeof(*t->idx));
	t->used = 0;
	t->framed = 0;
	local64_set(&t->lost, 0);
	local64_set(&t->siteless, 0);
}

/* The tables, on first use; kept until the module goes. */
static int ds_stacks_alloc(void)
{
	unsigned int cpu;

	if (st.folded)
		return 0;
	for_each_possible_cpu(cpu) {
		struct ds_stab *t = ds_stab_alloc(true, cpu_to_node(cpu));

		if (!t)
			goto err;
		per_cpu(ds_stabs, cpu) = t;
	}
	st.folded = ds_stab_alloc(false, NUMA_NO_NODE);
	if (st.folded)
		return 0;
err:
	for_each_possible_cpu(cpu) {
		ds_stab_free(per_cpu(ds_stabs, cpu));
		per_cpu(ds_stabs, cpu) = NULL;
	}
	return -ENOMEM;
}

static u64 ds_stacks_sum(size_t off)
{
	unsigned int cpu;
	u64 n = 0;

	for_each_possible_cpu(cpu)
		n += local64_read((local64_t *)((char *)per_cpu(ds_stabs, cpu) +
						off));
	return n;
}

/* Add each CPU's growth since the last fold to the folded table. */
void ds_stacks_fold(void)
{
	unsigned int cpu;

	lockdep_assert_held(&ds_lock);
	if (!st.folded)
		return;
	for_each_possible_cpu(cpu) {
		struct ds_stab *t = per_cpu(ds_stabs, cpu);
		/* pairs with the smp_store_release() in ds_stab_claim() */
		u32 used = smp_load_acquire(&t->used), j;

		for (j = 0; j < used; j++) {
			struct ds_stack *e = &t->e[j];
			u64 c = local64_read(&e->count);
			struct ds_skey k = {
				.loc = e->loc, .reason = e->reason,
				.id = e->id, .nr = e->nr,
				.siteless = e->siteless, .frames = e->frames,
			};

			if (c == t->last[j])
				continue;
			ds_stab_add(st.folded, &k, c - t->last[j], false);
			t->last[j] = c;
		}
	}
}

/*
 * Forget the folded stacks. With the probe detached (!attached) the
 * per-CPU tables are emptied too; while it runs, they keep counting and
 * only their growth from here on is folded.
 */
void ds_stacks_reset(bool attached)
{
	unsigned int cpu;

	lockdep_assert_held(&ds_lock);
	if (!st.folded)
		return;
	if (attached) {
		ds_stacks_fold();
	} else {
		for_each_possible_cpu(cpu)
			ds_stab_empty(per_cpu(ds_stabs, cpu));
	}
	ds_stab_empty(st.folded);
	st.lost_base = ds_stacks_sum(offsetof(struct ds_stab, lost));
	st.siteless_base = ds_stacks_sum(offsetof(struct ds_stab, siteless));
	st.gen++;
}

/* Stop taking stacks; no probe takes one once this returns. */
static void ds_stacks_stop(void)
{
	if (!st.on)
		return;
	if (static_key_enabled(&ds_stacks_site_key))
		static_branch_disable(&ds_stacks_site_key);
	if (st.slow)
		static_branch_dec(&ds_slow_key);
	st.slow = false;
	static_branch_disable(&ds_stacks_key);
	st.on = false;
	synchronize_rcu();
}

/* A rule on a site alone (start, end): tested in the fast path. */
static bool ds_stacks_site_only(const struct ds_rule *r)
{
	return r->match == DS_M_LOC;
}

/*
 * Stacks on for the drops rule r matches (NULL: every drop), or off.
 * Under ds_lock. The tables are allocated on first use.
 */
int ds_stacks_set(bool on, const struct ds_rule *r,
		  struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&ds_lock);
	ds_stacks_stop();
	if (!on)
		return 0;
	err = ds_stacks_alloc();
	if (err) {
		NL_SET_ERR_MSG(extack, "stacks: no memory for the stack tables");
		return err;
	}
	memset(&st.rule, 0, sizeof(st.rule));
	if (r)
		st.rule = *r;
	static_branch_enable(&ds_stacks_key);
	if (r && ds_stacks_site_only(r)) {
		WRITE_ONCE(ds_stacks_start, r->start);
		WRITE_ONCE(ds_stacks_len, r->end - r->start);
		static_branch_enable(&ds_stacks_site_key);
	} else {
		static_branch_inc(&ds_slow_key);
		st.slow = true;
	}
	st.on = true;
	return 0;
}

bool ds_stacks_on(const struct ds_rule **r)
{
	lockdep_assert_held(&ds_lock);
	*r = &st.rule;
	return st.on;
}

/* Clear: forget the stacks counted so far; they go on being taken. */
void ds_stacks_clear(void)
{
	lockdep_assert_held(&ds_lock);
	ds_stacks_reset(true);
}

void ds_stacks_stats(struct ds_stacks_stats *s)
{
	lockdep_assert_held(&ds_lock);
	memset(s, 0, sizeof(*s));
	if (!st.folded)
		return;
	s->stacks = st.folded->used;
	s->lost = ds_stacks_sum(offsetof(struct ds_stab, lost)) -
		  st.lost_base + local64_read(&st.folded->lost);
	s->siteless = ds_stacks_sum(offsetof(struct ds_stab, siteless)) -
		      st.siteless_base;
}

const u32 *ds_stacks_generation(void)
{
	return &st.gen;
}

u32 ds_stacks_count(void)
{
	lockdep_assert_held(&ds_lock);
	return st.folded ? st.folded->used : 0;
}

/* addr as the kernel prints it, "sym+0x1c/0x80 [module]" */
static int ds_put_symbol(struct sk_buff *skb, int type, unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	return nla_put_string(skb, type, sym);
}

/* One DROPSCOPE_A_STACK nest: the i-th folded stack. */
int ds_stack_put(struct sk_buff *skb, u32 i)
{
	const struct ds_stack *e = &st.folded->e[i];
	struct nlattr *nest;
	u16 f;

	nest = nla_nest_start(skb, DROPSCOPE_A_STACK);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, DROPSCOPE_STACK_A_LOCATION, e->loc,
			      DROPSCOPE_STACK_A_PAD) ||
	    nla_put_u32(skb, DROPSCOPE_STACK_A_REASON, e->reason) ||
	    ds_put_symbol(skb, DROPSCOPE_STACK_A_SITE, e->loc) ||
	    nla_put_u32(skb, DROPSCOPE_STACK_A_ID, e->id) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_STACK_A_COUNT,
			      local64_read(&e->count), DROPSCOPE_STACK_A_PAD) ||
	    (!e->nr && nla_put_flag(skb, DROPSCOPE_STACK_A_NO_ROOM)) ||
	    (e->siteless && nla_put_flag(skb, DROPSCOPE_STACK_A_SITELESS)))
		goto cancel;
	for (f = 0; f < e->nr; f++)
		if (nla_put_u64_64bit(skb, DROPSCOPE_STACK_A_FRAME,
				      e->frames[f], DROPSCOPE_STACK_A_PAD))
			goto cancel;
	for (f = 0; f < e->nr; f++)
		if (ds_put_symbol(skb, DROPSCOPE_STACK_A_SYMBOL, e->frames[f]))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* The module goes: the probe is detached already. */
void ds_stacks_exit(void)
{
	unsigned int cpu;

	mutex_lock(&ds_lock);
	ds_stacks_stop();
	mutex_unlock(&ds_lock);
	for_each_possible_cpu(cpu) {
		ds_stab_free(per_cpu(ds_stabs, cpu));
		per_cpu(ds_stabs, cpu) = NULL;
	}
	ds_stab_free(st.folded);
	st.folded = NULL;
}
