// SPDX-License-Identifier: GPL-2.0
/*
 * Mask rules. They are applied when the per-CPU counters are folded, per
 * site, never per drop: the drop path does not read them, so a rule set of
 * any size costs it nothing and a change can never be seen half-made. The
 * drop path only keys drops by the packet fields the rules match on. A
 * site is judged once per rule-set generation; the fold right before each
 * change settles the drops counted under the old rules. Everything here
 * runs under ds_lock, but ds_drop_masked().
 *
 * The rules own the filter: what the drop path must read for them is
 * derived from the rules whenever they change (ds_rules_filter()) and
 * handed to the probe, which alone keeps what it is keyed by.
 *
 * A drop counted to a TCP session is judged by itself, when it happens
 * (ds_drop_masked()): a session has no site to judge. It reads a copy
 * of the rules published with RCU on every change, and the same matcher
 * gives the same verdict as its site gets. Each CPU keeps the verdicts it
 * took last under their keys, so that the rules are walked once per key
 * and rule set, not once per drop (struct ds_verdicts).
 */

#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "dropscope.h"

/*
 * A copy of the rules for the drop path: immutable once published, freed
 * after a grace period. The drop probe runs with preemption disabled
 * (ds_probe_begin()), which every grace period waits for.
 */
struct ds_ruleset {
	struct rcu_head rcu;
	u32 nrules, nonly;	/* nonly: the ONLY rules on drops */
	u32 fields;		/* BIT(DS_F_*): the packet fields they use */
	u32 gen;		/* ds_set_gen when published: never 0 */
	struct ds_rule rules[];
};

/*
 * The verdicts of the rule set in effect on the drops it judged last,
 * per CPU (ds_rules_judge_drop()). A verdict is a function of the set and
 * of a drop's site, reason and the packet fields the set uses: it is kept
 * under them, direct-mapped, and serves the next drop of the same key
 * until the set is replaced (a new gen). Only the drop path of its CPU
 * reads and writes it, in any context: a drop in an interrupt may come
 * between the reading of an entry and its writing. seq is odd while an
 * entry is written; a drop that sees it odd, or changed after its read,
 * takes the rules' walk instead.
 */
#define DS_VERDICT_BITS	5

struct ds_verdict {
	struct ds_key k;
	u32 gen;		/* of the set; 0: empty */
	bool masked;
};

struct ds_verdicts {
	u32 seq;
	struct ds_verdict v[1 << DS_VERDICT_BITS];
};

static struct ds_verdicts __percpu *ds_verdicts;
static u32 ds_set_gen;		/* under ds_lock */

/* The rule set; all of it under ds_lock. */
static struct {
	struct ds_rule *rules;	/* DROPSCOPE_MAX_RULES, nrules in use */
	u32 nrules, nonly;	/* nonly: the ONLY rules on drops */
	u32 nonly_smc;		/* the ONLY rules on SMC fallbacks */
	u32 nonly_hw;		/* the ONLY rules on traps */
	u32 nonly_dev;		/* the ONLY rules on device counters */
	u32 nonly_qdisc;	/* the ONLY rules on qdisc drops */
	u32 gen;		/* bumped on every change */
	u32 next_id;
} rs;

/* What the probes judge by; NULL while there is no rule. */
struct ds_ruleset __rcu *ds_rules_live;

/* A drop; a rule on SMC fallbacks, traps or device counters matches none. */
static bool ds_rule_matches(const struct ds_rule *r, const struct ds_key *k)
{
	return !(r->match & DS_M_SMC) && r->layer == DROPSCOPE_LAYER_KERNEL &&
	       (!(r->match & DS_M_LOC) ||
		(k->loc >= r->start && k->loc < r->end)) &&
	       (!(r->match & DS_M_REASON) || k->reason == r->reason) &&
	       (!(r->match & DS_M_IFINDEX) || k->ifindex == r->ifindex) &&
	       (!(r->match & DS_M_NETNS) || k->netns == r->netns) &&
	       (!(r->match & DS_M_L3) || k->l3 == r->l3) &&
	       (!(r->match & DS_M_L4) || k->l4 == r->l4);
}

/*
 * The verdict: masked by the first MASK rule that matches; else, with ONLY
 * rules, shown if one matches (that one counts the hit), masked if none.
 * Returns the index of the deciding rule, or -1. Inlined with its matcher,
 * for the drop path.
 */
static __always_inline int
ds_verdict(const struct ds_rule *rules, u32 nrules, u32 nonly,
	   bool (*matches)(const struct ds_rule *r, const void *k),
	   const void *k, bool *masked)
{
	int only = -1;
	u32 i;

	for (i = 0; i < nrules; i++) {
		const struct ds_rule *r = &rules[i];

		if (!matches(r, k))
			continue;
		if (r->mode == DROPSCOPE_RULE_MASK) {
			*masked = true;
			return i;
		}
		if (only < 0)
			only = i;
	}
	*masked = nonly && only < 0;
	return only;
}

static bool ds_drop_matches(const struct ds_rule *r, const void *k)
{
	return ds_rule_matches(r, k);
}

static int ds_rules_verdict(const struct ds_rule *rules, u32 nrules,
			    u32 nonly, const struct ds_key *k, bool *masked)
{
	return ds_verdict(rules, nrules, nonly, ds_drop_matches, k, masked);
}

void ds_rules_judge(struct ds_site *site)
{
	const struct ds_key k = {
		.loc = site->loc, .reason = site->reason,
		.ifindex = site->ifindex, .netns = site->netns,
		.l3 = site->l3, .l4 = site->l4,
	};

	lockdep_assert_held(&ds_lock);
	site->rules_gen = rs.gen;
	site->rule = ds_rules_verdict(rs.rules, rs.nrules, rs.nonly, &k,
				      &site->masked);
}

/* An SMC fallback of reason code *k; only rules on SMC fallbacks match. */
static bool ds_fallback_matches(const struct ds_rule *r, const void *k)
{
	return (r->match & DS_M_SMC) && r->smc == *(const u32 *)k;
}

/*
 * The verdict on the SMC fallbacks of reason code: the rules on SMC
 * fallbacks decide as they do among drops. Returns the index of the
 * deciding rule, or -1.
 */
int ds_rules_judge_smc(u32 code, bool *masked)
{
	lockdep_assert_held(&ds_lock);
	return ds_verdict(rs.rules, rs.nrules, rs.nonly_smc,
			  ds_fallback_matches, &code, masked);
}

/* The fields a trap and a device counter are matched on, as a drop's. */
static bool ds_port_matches(const struct ds_rule *r, u32 ifindex, u32 netns)
{
	return (!(r->match & DS_M_IFINDEX) || ifindex == r->ifindex) &&
	       (!(r->match & DS_M_NETNS) || netns == r->netns);
}

/* A trap; only rules of the hw layer match. */
static bool ds_trap_matches(const struct ds_rule *r, const void *k)
{
	const struct ds_trap *t = k;

	return r->layer == DROPSCOPE_LAYER_HW &&
	       (!(r->match & DS_M_TRAP) || !strcmp(t->name, r->trap)) &&
	       (!(r->match & DS_M_GROUP) || !strcmp(t->group, r->group)) &&
	       ds_port_matches(r, t->ifindex, t->netns);
}

int ds_rules_judge_trap(const struct ds_trap *t, bool *masked)
{
	lockdep_assert_held(&ds_lock);
	return ds_verdict(rs.rules, rs.nrules, rs.nonly_hw, ds_trap_matches,
			  t, masked);
}

/* A device counter; only rules of the dev layer match. */
static bool ds_devctr_matches(const struct ds_rule *r, const void *k)
{
	const struct ds_devctr *e = k;

	return r->layer == DROPSCOPE_LAYER_DEV &&
	       (!(r->match & DS_M_COUNTER) || e->counter == r->counter) &&
	       ds_port_matches(r, e->ifindex, e->netns);
}

int ds_rules_judge_devctr(const struct ds_devctr *e, bool *masked)
{
	lockdep_assert_held(&ds_lock);
	return ds_verdict(rs.rules, rs.nrules, rs.nonly_dev,
			  ds_devctr_matches, e, masked);
}

/* A qdisc drop; only rules of the qdisc layer match. */
static bool ds_qdisc_matches(const struct ds_rule *r, const void *k)
{
	const struct ds_qdisc *e = k;

	return r->layer == DROPSCOPE_LAYER_QDISC &&
	       (!(r->match & DS_M_KIND) || !strcmp(e->kind, r->kind)) &&
	       ds_port_matches(r, e->ifindex, e->netns);
}

int ds_rules_judge_qdisc(const struct ds_qdisc *e, bool *masked)
{
	lockdep_assert_held(&ds_lock);
	return ds_verdict(rs.rules, rs.nrules, rs.nonly_qdisc,
			  ds_qdisc_matches, e, masked);
}

/*
 * An entry holds the key of the drop that took it whole: its fields that
 * were not read are 0 (ds_drop_init()), and a field read that the set does
 * not use can only make another drop of the same verdict miss it.
 */
static __always_inline bool ds_verdict_hit(const struct ds_verdict *v,
					   const struct ds_key *k, u32 gen)
{
	return v->gen == gen && v->k.loc == k->loc &&
	       v->k.reason == k->reason && v->k.ifindex == k->ifindex &&
	       v->k.netns == k->netns && v->k.l3 == k->l3 && v->k.l4 == k->l4;
}

/* Walk the rules for k's verdict, and keep it in v unless seq moved. */
static noinline notrace bool ds_verdict_take(const struct ds_ruleset *set,
					     const struct ds_key *k,
					     struct ds_verdicts *vs,
					     struct ds_verdict *v, u32 seq)
{
	bool masked = false;

	ds_rules_verdict(set->rules, set->nrules, set->nonly, k, &masked);
	if (!(seq & 1) && READ_ONCE(vs->seq) == seq) {
		WRITE_ONCE(vs->seq, seq + 1);
		barrier();
		v->k = *k;
		v->gen = set->gen;
		v->masked = masked;
		barrier();
		WRITE_ONCE(vs->seq, seq + 2);
	}
	return masked;
}

/*
 * Do the rules in effect mask this drop? Any context, hard IRQ included,
 * lockless: called from the drop probe, under its preempt_disable(),
 * through ds_drop_masked(), which takes the verdict once a drop. Its
 * packet fields are read only when some rule uses them; the rules are
 * walked only when this CPU does not hold the verdict on its key.
 */
notrace bool ds_rules_judge_drop(struct ds_drop *d)
{
	const struct ds_ruleset *set = rcu_dereference_sched(ds_rules_live);
	const struct ds_key *k;
	struct ds_verdicts *vs;
	struct ds_verdict *v;
	bool masked;
	u32 seq;

	if (!set)
		return false;
	k = ds_drop_key(d, set->fields);
	vs = ds_this_cpu_ptr(ds_verdicts);
	v = &vs->v[hash_64(k->loc ^ ((u64)k->reason << 32) ^ k->ifindex ^
			   ((u64)k->netns << 16) ^ ((u64)k->l3 << 48) ^
			   ((u64)k->l4 << 56), DS_VERDICT_BITS)];
	seq = READ_ONCE(vs->seq);
	barrier();
	if (!(seq & 1) && ds_verdict_hit(v, k, set->gen)) {
		masked = v->masked;
		/* an interrupt's drop did not write the entry under the read */
		barrier();
		if (READ_ONCE(vs->seq) == seq)
			return masked;
	}
	return ds_verdict_take(set, k, vs, v, seq);
}

/* Does rule r match this drop? Any context, as ds_drop_masked(). */
notrace bool ds_rule_matches_drop(const struct ds_rule *r, struct ds_drop *d)
{
	return ds_rule_matches(r, ds_drop_key(d, DS_M_TO_FIELDS(r->match)));
}

u32 ds_rules_gen(void)
{
	return rs.gen;
}

/* Count delta drops in the hits of the rule that decided them, if any. */
void ds_rule_hit(int rule, u64 delta)
{
	if (rule >= 0)
		rs.rules[rule].hits += delta;
}

void ds_rules_zero_hits(void)
{
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < rs.nrules; i++)
		rs.rules[i].hits = 0;
}

/* Widen the filter for one more rule (the drop path's: kernel rules). */
static void ds_filter_add(struct ds_filter *f, const struct ds_rule *r)
{
	if (!(r->match & DS_M_PACKET) || r->layer != DROPSCOPE_LAYER_KERNEL)
		return;
	f->fields |= DS_M_TO_FIELDS(r->match);
	if (!(r->match & DS_M_IFINDEX))
		f->devless = true;
	else if (r->ifindex < DS_GATE_DEVS)
		__set_bit(r->ifindex, f->devs);
}

/* What the rules in force, and extra if not NULL, ask of the drop path. */
static void ds_rules_filter(struct ds_filter *f, const struct ds_rule *extra)
{
	u32 i;

	f->fields = 0;
	f->devless = false;
	bitmap_zero(f->devs, DS_GATE_DEVS);
	for (i = 0; i < rs.nrules; i++)
		ds_filter_add(f, &rs.rules[i]);
	if (extra)
		ds_filter_add(f, extra);
}

/*
 * Room for the drop path's copy of n rules, made before the rules change,
 * so that a change that cannot be published is not made. NULL for no rule.
 */
static int ds_ruleset_alloc(u32 n, struct ds_ruleset **set)
{
	*set = NULL;
	if (!n)
		return 0;
	*set = kvmalloc(struct_size(*set, rules, n), GFP_KERNEL);
	return *set ? 0 : -ENOMEM;
}

/* Publish the rules in force to the drop path in set; free the old copy. */
static void ds_ruleset_publish(struct ds_ruleset *set)
{
	struct ds_ruleset *old;
	u32 i;

	if (set) {
		set->nrules = rs.nrules;
		set->nonly = rs.nonly;
		set->fields = 0;
		if (!++ds_set_gen)
			ds_set_gen = 1;
		set->gen = ds_set_gen;
		memcpy(set->rules, rs.rules, rs.nrules * sizeof(*rs.rules));
		for (i = 0; i < rs.nrules; i++)
			if (rs.rules[i].layer == DROPSCOPE_LAYER_KERNEL)
				set->fields |= DS_M_TO_FIELDS(rs.rules[i].match);
	}
	/* pairs with the rcu_dereference_sched() in ds_rules_judge_drop() */
	old = rcu_replace_pointer(ds_rules_live, set, lockdep_is_held(&ds_lock));
	if (old)
		kvfree_rcu(old, rcu);
}

/*
 * Drops are keyed by the packet fields the rules use and no others. What a
 * new rule needs was turned on before the fold that preceded the change;
 * what no rule needs any more is turned off here, after it. The drop path's
 * copy, made room for in set, is published before the filter narrows.
 */
static void ds_rules_changed(struct ds_ruleset *set)
{
	struct ds_filter f;
	u32 i;

	rs.nonly = 0;
	rs.nonly_smc = 0;
	rs.nonly_hw = 0;
	rs.nonly_dev = 0;
	rs.nonly_qdisc = 0;
	for (i = 0; i < rs.nrules; i++) {
		if (rs.rules[i].mode != DROPSCOPE_RULE_ONLY)
			continue;
		if (rs.rules[i].match & DS_M_SMC)
			rs.nonly_smc++;
		else if (rs.rules[i].layer == DROPSCOPE_LAYER_HW)
			rs.nonly_hw++;
		else if (rs.rules[i].layer == DROPSCOPE_LAYER_DEV)
			rs.nonly_dev++;
		else if (rs.rules[i].layer == DROPSCOPE_LAYER_QDISC)
			rs.nonly_qdisc++;
		else
			rs.nonly++;
	}
	ds_ruleset_publish(set);
	ds_rules_filter(&f, NULL);
	ds_filter_apply(&f);
	rs.gen++;
}

static bool ds_netns_exists(u32 inum)
{
	struct net *net;
	bool found = false;

	rcu_read_lock();
	for_each_net_rcu(net) {
		if (net->ns.inum == inum) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static bool ds_ifindex_exists(u32 ifindex, u32 netns)
{
	struct net_device *dev;
	struct net *net;
	bool found = false;

	rcu_read_lock();
	for_each_net_rcu(net) {
		if (netns && net->ns.inum != netns)
			continue;
		dev = dev_get_by_index_rcu(net, ifindex);
		if (dev) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* Does kallsyms know the address? It renders unknown ones as "0x...". */
static bool ds_is_symbol(unsigned long addr)
{
	char buf[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(buf, addr);
	return strncmp(buf, "0x", 2) != 0;
}

/* Check a rule from userspace; the extack names the part that is wrong. */
static int ds_rule_check(const struct ds_rule *r, struct genl_info *info)
{
	char name[64];

	if (!r->match) {
		NL_SET_ERR_MSG(info->extack,
			       "empty rule: give at least one field to match");
		return -EINVAL;
	}
	if ((r->match & DS_M_SMC) && r->match != DS_M_SMC) {
		NL_SET_ERR_MSG(info->extack,
			       "smc: a rule on an SMC fallback reason takes no other field");
		return -EINVAL;
	}
	if (!!(r->match & (DS_M_TRAP | DS_M_GROUP)) +
	    !!(r->match & DS_M_COUNTER) + !!(r->match & DS_M_KIND) > 1) {
		NL_SET_ERR_MSG(info->extack,
			       "trap, group, counter and kind: a rule is on traps (hw), device counters (dev) or qdisc drops (qdisc), one of them");
		return -EINVAL;
	}
	if (r->layer != DROPSCOPE_LAYER_KERNEL &&
	    (r->match & (DS_M_LOC | DS_M_REASON | DS_M_L3 | DS_M_L4))) {
		NL_SET_ERR_MSG(info->extack,
			       "layer: a rule on traps, device counters or qdisc drops takes no site, reason, l3 or l4");
		return -EINVAL;
	}
	if (((r->match & (DS_M_TRAP | DS_M_GROUP)) &&
	     r->layer != DROPSCOPE_LAYER_HW) ||
	    ((r->match & DS_M_COUNTER) && r->layer != DROPSCOPE_LAYER_DEV) ||
	    ((r->match & DS_M_KIND) && r->layer != DROPSCOPE_LAYER_QDISC)) {
		NL_SET_ERR_MSG(info->extack,
			       "layer: trap and group are of the hw layer, counter of the dev layer, kind of the qdisc layer");
		return -EINVAL;
	}
	if ((r->match & DS_M_KIND) && !r->kind[0]) {
		NL_SET_ERR_MSG(info->extack, "kind: give a qdisc's kind");
		return -EINVAL;
	}
	if ((r->match & DS_M_LOC) &&
	    (r->start >= r->end || !ds_is_symbol(r->start) ||
	     !ds_is_symbol(r->end - 1))) {
		NL_SET_ERR_MSG(info->extack,
			       "site: no kernel symbol at this address range");
		return -EINVAL;
	}
	if ((r->match & DS_M_REASON) &&
	    !ds_reason_name(r->reason, name, sizeof(name))) {
		NL_SET_ERR_MSG(info->extack,
			       "reason: the running kernel has no such drop reason");
		return -EINVAL;
	}
	if ((r->match & DS_M_L3) && !r->l3) {
		NL_SET_ERR_MSG(info->extack,
			       "l3: 0 is what drops without a readable header carry; it cannot be matched");
		return -EINVAL;
	}
	if ((r->match & DS_M_L4) && !r->l4) {
		NL_SET_ERR_MSG(info->extack,
			       "l4: 0 is what drops without a readable IP header carry; it cannot be matched");
		return -EINVAL;
	}
	if ((r->match & DS_M_NETNS) && !ds_netns_exists(r->netns)) {
		NL_SET_ERR_MSG(info->extack,
			       "netns: no network namespace has this inode");
		return -ENOENT;
	}
	if ((r->match & DS_M_IFINDEX) &&
	    !ds_ifindex_exists(r->ifindex,
			       (r->match & DS_M_NETNS) ? r->netns : 0)) {
		NL_SET_ERR_MSG(info->extack, "dev: no device has this ifindex");
		return -ENODEV;
	}
	return 0;
}

/*
 * A rule that is no mask, a capture's or stacks': checked as a mask rule
 * is, and of the kernel layer (traps and device counters have no packet
 * or stack here).
 */
int ds_rule_validate(const struct ds_rule *r, struct genl_info *info)
{
	if (r->match & (DS_M_LAYER | DS_M_TRAP | DS_M_GROUP | DS_M_COUNTER |
			DS_M_KIND)) {
		NL_SET_ERR_MSG(info->extack,
			       "layer, trap, group, counter and kind: captures and stacks take kernel drops only");
		return -EINVAL;
	}
	return ds_rule_check(r, info);
}

/*
 * A change of the rules takes fold(), the caller's fold of every source
 * (ds_fold_all()), and runs it right before the change, so that what the
 * probes counted is judged by the rules before it; for an addition, once
 * they key drops by the new rule's fields too.
 */
int ds_rule_add(struct ds_rule *rule, struct genl_info *info,
		void (*fold)(void))
{
	struct ds_ruleset *set;
	struct ds_filter f;
	int err;

	lockdep_assert_held(&ds_lock);
	err = ds_rule_check(rule, info);
	if (err)
		return err;
	if (rs.nrules == DROPSCOPE_MAX_RULES) {
		NL_SET_ERR_MSG(info->extack, "too many rules (the limit is 1024)");
		return -ENOSPC;
	}
	if (!rs.rules) {
		rs.rules = kvcalloc(DROPSCOPE_MAX_RULES, sizeof(*rs.rules),
				    GFP_KERNEL);
		if (!rs.rules)
			return -ENOMEM;
	}
	if (ds_ruleset_alloc(rs.nrules + 1, &set))
		return -ENOMEM;
	/* key drops by the rule's fields before the old rules judge */
	ds_rules_filter(&f, rule);
	/*
	 * Probes that built their key under the narrower filter finish
	 * before the fold: the probe disables preemption
	 * (ds_probe_begin()), which synchronize_rcu() waits out.
	 */
	if (ds_filter_apply(&f))
		synchronize_rcu();
	fold();
	rule->id = ++rs.next_id;
	rule->hits = 0;
	rs.rules[rs.nrules++] = *rule;
	ds_rules_changed(set);
	return 0;
}

int ds_rule_del(u32 id, void (*fold)(void))
{
	struct ds_ruleset *set;
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < rs.nrules; i++)
		if (rs.rules[i].id == id)
			break;
	if (i == rs.nrules)
		return -ENOENT;
	if (ds_ruleset_alloc(rs.nrules - 1, &set))
		return -ENOMEM;
	fold();
	memmove(&rs.rules[i], &rs.rules[i + 1],
		(rs.nrules - i - 1) * sizeof(*rs.rules));
	rs.nrules--;
	ds_rules_changed(set);
	return 0;
}

void ds_rules_clear(void (*fold)(void))
{
	lockdep_assert_held(&ds_lock);
	fold();
	rs.nrules = 0;
	ds_rules_changed(NULL);
}

int ds_rules_init(void)
{
	ds_verdicts = alloc_percpu(struct ds_verdicts);
	return ds_verdicts ? 0 : -ENOMEM;
}

void ds_rules_exit(void)
{
	free_percpu(ds_verdicts);
}

/* Module exit: every source is detached, no probe runs any more. */
void ds_rules_free(void)
{
	lockdep_assert_held(&ds_lock);
	ds_ruleset_publish(NULL);
	kvfree(rs.rules);
	rs.rules = NULL;
	rs.nrules = 0;
}

u32 ds_rules_count(void)
{
	lockdep_assert_held(&ds_lock);
	return rs.nrules;
}

const struct ds_rule *ds_rule_at(u32 i)
{
	lockdep_assert_held(&ds_lock);
	return &rs.rules[i];
}

/* For dumps: a change between two parts flags the dump as interrupted. */
const u32 *ds_rules_generation(void)
{
	return &rs.gen;
}
