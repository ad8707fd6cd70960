// SPDX-License-Identifier: GPL-2.0
/*
 * The folder of the drop path and its view: per-CPU shadows of the probe's
 * tables, one ds_site per key across all CPUs, and the drop statistics.
 * Everything here runs under ds_lock, in process context.
 *
 * Sites are kept in an array so that dumps can resume by index. They are
 * only ever appended, until a reset or a start frees them all (and bumps
 * the generation, so that a dump in progress is flagged as interrupted).
 */

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/netlink.h>

#include "dropscope.h"

/* What the folder remembers of one slot of the probe's tables. */
struct ds_shadow {
	u64 last;		/* slot count at the last fold */
	struct ds_site *site;	/* NULL until the folder created it */
#ifndef DS_HAVE_KFREE_SKB_RX_SK
	u64 seen;		/* a late slot's count, read first */
#endif
};

struct ds_shadow_cpu {
	struct ds_shadow *shadow;	/* one per slot of the CPU's table */
	u64 overflow_last;		/* its overflow at the last fold */
};

static DEFINE_PER_CPU(struct ds_shadow_cpu, ds_shadows);

/* The folded view; all of it under ds_lock. */
static struct {
	struct ds_site **sites;	/* array of nsites pointers */
	u32 nsites, cap;
	u32 generation;		/* bumped whenever sites are freed */
	struct list_head dirty;	/* sites changed since the last round */
	u64 events;		/* drops folded: site totals plus overflow */
	u64 overflow;		/* drops that did not fit a per-CPU table */
	u64 overflow_alerted;	/* overflow at the last alert round */
	u64 alloc_fails;	/* drops folded while no site could be made */
	u64 shown;		/* drops not masked */
	u64 masked;		/* by a MASK rule, or by no ONLY rule */
	u64 folds;
} drops = {
	.dirty = LIST_HEAD_INIT(drops.dirty),
};

/* Every site by key, so that all CPUs' slots of one key fold into it. */
static DEFINE_HASHTABLE(ds_site_hash, 10);

static u64 ds_site_hkey(unsigned long loc, u64 rk, u64 pk)
{
	return (u64)loc ^ (rk * GOLDEN_RATIO_64) ^ (pk << 17);
}

static struct ds_site *ds_site_find(unsigned long loc, u64 rk, u64 pk)
{
	struct ds_site *site;

	hash_for_each_possible(ds_site_hash, site, hnode,
			       ds_site_hkey(loc, rk, pk))
		if (site->loc == loc && site->reason == (u32)rk &&
		    site->ifindex == rk >> 32 && site->netns == (u32)pk &&
		    site->l3 == (u16)(pk >> 32) && site->l4 == (u8)(pk >> 48) &&
		    site->run == DS_PK_RUN_ID(pk))
			return site;
	return NULL;
}

/* The site of a key: the existing one, or a new one. NULL: no memory. */
static struct ds_site *ds_site_get(unsigned long loc, u64 rk, u64 pk)
{
	u32 reason = (u32)rk;
	char sym[KSYM_SYMBOL_LEN], name[64];
	struct ds_site *site;
	const char *rname;

	lockdep_assert_held(&ds_lock);
	site = ds_site_find(loc, rk, pk);
	if (site)
		return site;
	if (drops.nsites == drops.cap) {
		u32 cap = drops.cap ? drops.cap * 2 : 64;
		struct ds_site **a;

		a = krealloc_array(drops.sites, cap, sizeof(*a), GFP_KERNEL);
		if (!a)
			return NULL;
		drops.sites = a;
		drops.cap = cap;
	}
	site = kzalloc(sizeof(*site), GFP_KERNEL);
	if (!site)
		return NULL;
	sprint_symbol(sym, loc);
	site->symbol = kstrdup(sym, GFP_KERNEL);
	rname = ds_reason_name(reason, name, sizeof(name));
	if (rname)
		site->reason_name = kstrdup(rname, GFP_KERNEL);
	if (!site->symbol || (rname && !site->reason_name)) {
		kfree(site->symbol);
		kfree(site->reason_name);
		kfree(site);
		return NULL;
	}
	site->loc = loc;
	site->reason = reason;
	site->ifindex = rk >> 32;
	site->netns = (u32)pk;
	site->l3 = (u16)(pk >> 32);
	site->l4 = (u8)(pk >> 48);
	site->run = DS_PK_RUN_ID(pk);
	site->rules_gen = ds_rules_gen() - 1;	/* not judged yet */
	INIT_LIST_HEAD(&site->dirty);
	hash_add(ds_site_hash, &site->hnode, ds_site_hkey(loc, rk, pk));
	drops.sites[drops.nsites++] = site;
	return site;
}

/* Count delta drops of site: masked, or shown and due for an alert. */
static void ds_site_add(struct ds_site *site, u64 delta)
{
	lockdep_assert_held(&ds_lock);
	if (site->rules_gen != ds_rules_gen())
		ds_rules_judge(site);
	ds_rule_hit(site->rule, delta);
	if (site->masked) {
		site->masked_total += delta;
		drops.masked += delta;
		return;
	}
	drops.shown += delta;
	site->total += delta;
	if (list_empty(&site->dirty))
		list_add_tail(&site->dirty, &drops.dirty);
}

/* A slot's pk with l3 in host byte order, as sites keep it. */
static u64 ds_pk_host(u64 pk)
{
	u64 l3 = ntohs((__force __be16)(u16)(pk >> 32));

	return (pk & ~(0xffffULL << 32)) | l3 << 32;
}

#ifndef DS_HAVE_KFREE_SKB_RX_SK
/*
 * delta drops that the rest's site from counted were a run's (a late
 * count, ds_probe_late()): move them to the run's site to. Late counts
 * are read before the others (ds_drops_fold()), so from has counted them
 * already; the clamp only guards against a rule change in between.
 */
static void ds_site_move(struct ds_site *from, struct ds_site *to, u64 delta)
{
	u64 *part;

	if (from->rules_gen != ds_rules_gen())
		ds_rules_judge(from);
	part = from->masked ? &from->masked_total : &from->total;
	delta = min(delta, *part);
	*part -= delta;
	if (from->masked) {
		drops.masked -= delta;
	} else {
		drops.shown -= delta;
		/* alerted already: the alerts counted it once to each */
		from->alerted = min(from->alerted, from->total);
		if (list_empty(&from->dirty))
			list_add_tail(&from->dirty, &drops.dirty);
	}
	ds_rule_hit(from->rule, -delta);
	ds_site_add(to, delta);
}

/*
 * The key a late count's drop was counted under first, the rest's: pk
 * without the run, nor the netns the run added (DS_PK_RUNNS).
 */
static u64 ds_pk_rest(u64 pk)
{
	pk &= ~(DS_PK_LATE | DS_PK_RUN_MASK);
	if (pk & DS_PK_RUNNS)
		pk &= ~(DS_PK_RUNNS | U32_MAX);
	return pk;
}

/* Fold a late slot's growth up to the count read first (seen). */
static void ds_fold_late(struct ds_shadow *sh, const struct ds_slot *s)
{
	u64 delta = sh->seen - sh->last, pk = ds_pk_host(s->pk);
	struct ds_site *from, *to;

	if (!delta)
		return;
	sh->last = sh->seen;
	/* counted once already, under the rest's key */
	from = ds_site_get(s->loc, s->rk, ds_pk_rest(pk));
	to = ds_site_get(s->loc, s->rk, pk & ~(DS_PK_LATE | DS_PK_RUNNS));
	if (from && to)
		ds_site_move(from, to, delta);
}
#endif

/* Fold one slot's growth since the last fold into its site. */
static void ds_fold_slot(struct ds_shadow *sh, const struct ds_slot *s)
{
	u64 now = local64_read(&s->count), delta = now - sh->last;

	if (!delta)
		return;
	sh->last = now;
	if (!sh->site)
		sh->site = ds_site_get(s->loc, s->rk, ds_pk_host(s->pk));
	if (sh->site)
		ds_site_add(sh->site, delta);
	else
		drops.alloc_fails += delta;
	drops.events += delta;
}

/*
 * Fold every CPU's counts into the sites: each slot's growth since the
 * last fold is added to its site. Where late counts can be (a kernel
 * without rx_sk), a CPU's late slots are read before its other slots and
 * folded after them: each late count follows, on that CPU, the count it
 * moves (ds_probe_late()), so the rest's site has that one by the time
 * it is moved.
 */
void ds_drops_fold(void)
{
	unsigned int cpu;
	u32 j, used, i;
	u64 now, delta;

	lockdep_assert_held(&ds_lock);
	for_each_possible_cpu(cpu) {
		struct ds_shadow_cpu *sc = per_cpu_ptr(&ds_shadows, cpu);
		const struct ds_slot *s;

		used = ds_probe_used(cpu);
#ifndef DS_HAVE_KFREE_SKB_RX_SK
		for (j = 0; j < used; j++) {
			s = ds_probe_slot(cpu, j, &i);
			if (s->pk & DS_PK_LATE)
				sc->shadow[i].seen = local64_read(&s->count);
		}
		/* pairs with the smp_wmb() in ds_probe_late() */
		smp_rmb();
#endif
		for (j = 0; j < used; j++) {
			s = ds_probe_slot(cpu, j, &i);
			if (!(s->pk & DS_PK_LATE))
				ds_fold_slot(&sc->shadow[i], s);
		}
#ifndef DS_HAVE_KFREE_SKB_RX_SK
		for (j = 0; j < used; j++) {
			s = ds_probe_slot(cpu, j, &i);
			if (s->pk & DS_PK_LATE)
				ds_fold_late(&sc->shadow[i], s);
		}
#endif
		now = ds_probe_overflow(cpu);
		delta = now - sc->overflow_last;
		sc->overflow_last = now;
		drops.overflow += delta;
		drops.events += delta;
	}
	drops.folds++;
	ds_stacks_fold();
}

/* Forget every site; the folder re-creates them as drops come. */
static void ds_sites_free(void)
{
	unsigned int cpu;
	u32 i, j;

	lockdep_assert_held(&ds_lock);
	for_each_possible_cpu(cpu) {
		struct ds_shadow_cpu *sc = per_cpu_ptr(&ds_shadows, cpu);
		u32 used = ds_probe_used(cpu);

		for (j = 0; j < used; j++) {
			ds_probe_slot(cpu, j, &i);
			sc->shadow[i].site = NULL;
		}
	}
	INIT_LIST_HEAD(&drops.dirty);
	hash_init(ds_site_hash);
	for (i = 0; i < drops.nsites; i++) {
		kfree(drops.sites[i]->symbol);
		kfree(drops.sites[i]->reason_name);
		kfree(drops.sites[i]);
	}
	kfree(drops.sites);
	drops.sites = NULL;
	drops.nsites = 0;
	drops.cap = 0;
	drops.generation++;
}

/*
 * Forget every total and statistic. With the probe detached, its tables
 * and the shadows of them are emptied too; while it runs, the shadows keep
 * the counts seen so far, so that only later drops are counted.
 */
static void ds_drops_reset(bool attached)
{
	unsigned int cpu;

	lockdep_assert_held(&ds_lock);
	if (attached)
		ds_drops_fold();
	ds_sites_free();
	drops.events = 0;
	drops.overflow = 0;
	drops.overflow_alerted = 0;
	drops.alloc_fails = 0;
	drops.shown = 0;
	drops.masked = 0;
	drops.folds = 0;
	ds_rules_zero_hits();
	ds_stacks_reset(attached);
	if (attached)
		return;
	ds_probe_clear();
	for_each_possible_cpu(cpu) {
		struct ds_shadow_cpu *sc = per_cpu_ptr(&ds_shadows, cpu);

		memset(sc->shadow, 0, ds_probe_slots() * sizeof(*sc->shadow));
		sc->overflow_last = 0;
	}
}

static int ds_drops_attach(struct netlink_ext_ack *extack)
{
	int err = ds_probe_attach();

	if (err)
		NL_SET_ERR_MSG(extack, "cannot attach to skb:kfree_skb");
	return err;
}

static void ds_site_settle(struct ds_site *site)
{
	site->alerted = site->total;
	list_del_init(&site->dirty);
}

static u64 ds_site_delta(const void *site)
{
	const struct ds_site *s = site;

	return s->total - s->alerted;
}

/* Put one site nest; delta only in alerts. */
int ds_site_put(struct sk_buff *skb, const struct ds_site *site, bool alert)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, DROPSCOPE_A_SITE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, DROPSCOPE_SITE_A_LOCATION, site->loc,
			      DROPSCOPE_SITE_A_PAD) ||
	    nla_put_string(skb, DROPSCOPE_SITE_A_SYMBOL, site->symbol) ||
	    nla_put_u32(skb, DROPSCOPE_SITE_A_REASON, site->reason) ||
	    (site->reason_name &&
	     nla_put_string(skb, DROPSCOPE_SITE_A_REASON_NAME,
			    site->reason_name)) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_SITE_A_TOTAL, site->total,
			      DROPSCOPE_SITE_A_PAD) ||
	    (alert && nla_put_u64_64bit(skb, DROPSCOPE_SITE_A_DELTA,
					site->total - site->alerted,
					DROPSCOPE_SITE_A_PAD)) ||
	    (!alert && nla_put_u64_64bit(skb, DROPSCOPE_SITE_A_MASKED,
					 site->masked_total,
					 DROPSCOPE_SITE_A_PAD)) ||
	    (site->ifindex &&
	     nla_put_u32(skb, DROPSCOPE_SITE_A_IFINDEX, site->ifindex)) ||
	    (site->netns &&
	     nla_put_u32(skb, DROPSCOPE_SITE_A_NETNS, site->netns)) ||
	    (site->l3 && nla_put_u16(skb, DROPSCOPE_SITE_A_L3, site->l3)) ||
	    (site->l4 && nla_put_u8(skb, DROPSCOPE_SITE_A_L4, site->l4)) ||
	    (site->run && nla_put_u32(skb, DROPSCOPE_SITE_A_RUN, site->run))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* A site as an alert carries it, for ds_round_put(). */
int ds_site_put_alert(struct sk_buff *skb, const void *site)
{
	return ds_site_put(skb, site, true);
}

/*
 * The drop path's part of an alert round: the overflow that moved, and
 * the sites that changed, as the alert control picks them. Sites below
 * the threshold stay due; the others are settled.
 */
static void ds_drops_alert(struct ds_round *round)
{
	u64 overflow = drops.overflow - drops.overflow_alerted;
	struct ds_site *site, *tmp;
	u32 n = 0, i = 0, due, keep;
	void **v;

	lockdep_assert_held(&ds_lock);
	if (list_empty(&drops.dirty) && !overflow)
		return;
	if (ds_round_muted(round)) {
		/* nobody listens: the next round only carries what is new */
		list_for_each_entry_safe(site, tmp, &drops.dirty, dirty)
			ds_site_settle(site);
		drops.overflow_alerted = drops.overflow;
		return;
	}
	list_for_each_entry(site, &drops.dirty, dirty)
		n++;
	v = n ? kmalloc_array(n, sizeof(*v), GFP_KERNEL) : NULL;
	if (n && !v) {
		/* no room to choose: these sites wait for the next round */
		ds_round_lost(round);
		n = 0;
	}
	list_for_each_entry(site, &drops.dirty, dirty)
		if (i < n)
			v[i++] = site;
	keep = ds_round_pick(round, v, n, ds_site_delta, &due);
	if (!keep && !overflow)
		goto out;
	drops.overflow_alerted = drops.overflow;
	if (overflow)
		ds_round_put_u64(round, DROPSCOPE_A_OVERFLOW_DELTA, overflow);
	for (i = 0; i < keep; i++)
		ds_round_put(round, ds_site_put_alert, v[i]);
out:
	for (i = 0; i < due; i++)
		ds_site_settle(v[i]);
	kfree(v);
}

static void ds_drops_free(void)
{
	ds_sites_free();
	ds_rules_free();
}

const struct ds_source ds_drop_source = {
	.name = "drops",
	.part = DROPSCOPE_PART_DROPS,
	.attach = ds_drops_attach,
	.detach = ds_probe_detach,
	.fold = ds_drops_fold,
	.alert = ds_drops_alert,
	.reset = ds_drops_reset,
	.free = ds_drops_free,
};

void ds_drops_stats(struct ds_stats *st)
{
	lockdep_assert_held(&ds_lock);
	st->events = drops.events;
	st->sites = drops.nsites;
	st->overflow = drops.overflow;
	st->folds = drops.folds;
	st->alloc_fails = drops.alloc_fails;
	st->shown = drops.shown;
	st->masked = drops.masked;
}

u32 ds_sites_count(void)
{
	lockdep_assert_held(&ds_lock);
	return drops.nsites;
}

const struct ds_site *ds_site_at(u32 i)
{
	lockdep_assert_held(&ds_lock);
	return drops.sites[i];
}

/* For dumps: a change between two parts flags the dump as interrupted. */
const u32 *ds_sites_generation(void)
{
	return &drops.generation;
}

int ds_sites_init(void)
{
	size_t n = ds_probe_slots();
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ds_shadow_cpu *sc = per_cpu_ptr(&ds_shadows, cpu);

		sc->shadow = kvzalloc_node(array_size(n, sizeof(*sc->shadow)),
					   GFP_KERNEL, cpu_to_node(cpu));
		if (!sc->shadow) {
			ds_sites_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

void ds_sites_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ds_shadow_cpu *sc = per_cpu_ptr(&ds_shadows, cpu);

		kvfree(sc->shadow);
		sc->shadow = NULL;
	}
}
