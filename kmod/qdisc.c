// SPDX-License-Identifier: GPL-2.0
/*
 * Qdisc drops: the qdisc:qdisc_drop tracepoint (Linux 7.0 and later), the
 * sixth source of events (DROPSCOPE_PART_QDISC). A qdisc that drops a
 * packet with a qdisc drop reason (fq's FLOW_LIMIT, sfq's MAXFLOWS, red's
 * CONGESTED...) hands it to __tcf_kfree_skb_list(), which reports it there
 * and frees it with SKB_DROP_REASON_QDISC_DROP: the packet is counted here
 * by qdisc and reason, and in the kernel layer by site.
 *
 * A key is (qdisc, reason) with the device, counted in one table per CPU as
 * hw.c counts traps: a hash, compares and a local64_inc on the fast path,
 * a new key claimed with local interrupts off and published to the folder
 * through claimed[] and used. The qdisc's kind and the device's name are
 * copied when the key is claimed; the fast path compares the pointers, the
 * handle and then the kind, so that a qdisc freed and another made at the
 * same address is a key of its own. The folder (under ds_lock) merges the
 * CPUs' slots into one ds_qdisc per (device, kind, handle, reason).
 *
 * On a kernel without the tracepoint the source is absent: it attaches to
 * nothing, and monitor.c leaves its part out.
 */

#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/local64.h>
#include <net/net_namespace.h>
#include <net/netlink.h>

#ifdef DS_HAVE_QDISC_DROP
#include <net/dropreason-qdisc.h>
#include <net/sch_generic.h>
#include <trace/events/qdisc.h>
#endif

#include "dropscope.h"

unsigned int ds_qdiscs_cap = 128;
module_param_cb(qdiscs, &ds_param_count_ops, &ds_qdiscs_cap, 0444);
MODULE_PARM_DESC(qdiscs,
		 "distinct (qdisc, reason) keys per CPU, 1 to 1048576 (default 128)");

struct ds_qdisc_slot {
	const void *qdisc;	/* NULL: free; set last when claimed */
	const char *id;		/* the qdisc's ops->id, as its module keeps it */
	u32 handle;
	u32 parent;
	u32 reason;		/* enum qdisc_drop_reason */
	u32 ifindex;		/* its device, or 0 */
	u32 netns;		/* the device's netns inode, or 0 */
	char kind[IFNAMSIZ];
	char dev[IFNAMSIZ];
	local64_t count;	/* written by the owning CPU only */
};

/* One CPU's table: written by the probe on that CPU only. */
struct ds_qdisc_cpu {
	struct ds_qdisc_slot *slots;	/* 2 * ds_qdiscs_cap of them */
	u32 *claimed;		/* indexes of claimed slots, in claim order */
	u32 used;		/* claimed slots; published with release */
	local64_t overflow;	/* drops that found the table full */
};

/* What the folder remembers of one slot. */
struct ds_qdisc_shadow {
	u64 last;		/* the slot's count at the last fold */
	struct ds_qdisc *q;	/* NULL until the folder made it */
};

/* What the folder remembers of one CPU's table. */
struct ds_qdisc_fold {
	struct ds_qdisc_shadow *shadow;	/* one per slot */
	u64 overflow_last;		/* its overflow at the last fold */
};

static DEFINE_PER_CPU(struct ds_qdisc_cpu, ds_qdisc_cpus);
static DEFINE_PER_CPU(struct ds_qdisc_fold, ds_qdisc_folds);
/* a table's slots: 2 * ds_qdiscs_cap rounded down to a power of two */
static unsigned int ds_qdisc_bits;

static size_t ds_qdisc_slots(void)
{
	return (size_t)1 << ds_qdisc_bits;
}

/* The folded view: one ds_qdisc per key across all CPUs, under ds_lock. */
static struct {
	struct ds_qdisc **v;
	u32 n, cap;
	u32 generation;		/* bumped whenever they are freed */
	u64 events;		/* drops folded, overflow included */
	u64 overflow;
	u64 alloc_fails;	/* drops folded while no entry could be made */
	bool attached;
} qd;

/* ---- the probe: any context, this CPU only ----------------------------- */

#ifdef DS_HAVE_QDISC_DROP

/*
 * A qdisc, as the tracepoint passes it: struct Qdisc, named by an
 * expression of its type (checkpatch reads the kernel's CamelCase name as
 * one of ours).
 */
#define ds_qdisc_t	typeof(qdisc_root(NULL))

#define DS_QR_NAME(r)	(#r),
/*
 * The kernel's qdisc drop reasons by their number within the subsystem:
 * UNSPEC is 0, the others follow the subsystem's base from 1, in the
 * order of the list (MAX last).
 */
static const char *const ds_qdisc_reasons[] = {
	DEFINE_QDISC_DROP_REASON(DS_QR_NAME, DS_QR_NAME)
};

#undef DS_QR_NAME

const char *ds_qdisc_reason_name(u32 reason)
{
	u32 i = reason & ~SKB_DROP_REASON_SUBSYS_MASK;

	if ((reason & SKB_DROP_REASON_SUBSYS_MASK) &&
	    (reason & SKB_DROP_REASON_SUBSYS_MASK) != __QDISC_DROP_REASON)
		return NULL;
	return i < ARRAY_SIZE(ds_qdisc_reasons) ? ds_qdisc_reasons[i] : NULL;
}

static __always_inline u32 ds_qdisc_hash(const ds_qdisc_t q, u32 reason,
					 u32 ifindex)
{
	u64 k = (unsigned long)q ^ ((u64)reason << 32 | ifindex);

	return hash_64(k, ds_qdisc_bits);
}

/*
 * Is slot s the key of this drop? The pointers and numbers, then the kind:
 * ops->id is a char[IFNAMSIZ] zero past its NUL, as the slot's padded copy
 * is, so that both compare whole (two words, no call).
 */
static __always_inline bool ds_qdisc_same(const struct ds_qdisc_slot *s,
					  const ds_qdisc_t q, u32 reason,
					  u32 ifindex, u32 netns)
{
	return s->qdisc == q && s->id == q->ops->id &&
	       s->handle == q->handle && s->parent == q->parent &&
	       s->reason == reason && s->ifindex == ifindex &&
	       s->netns == netns && !memcmp(s->kind, q->ops->id, IFNAMSIZ);
}

/*
 * Slow path: claim a slot for a key not seen on this CPU yet, from the
 * first free slot the fast path met; an interrupt may have claimed it in
 * between, for this very key or another.
 */
static noinline void ds_qdisc_claim(struct ds_qdisc_cpu *c,
				    const ds_qdisc_t q,
				    const struct net_device *dev, u32 reason,
				    u32 ifindex, u32 netns, u32 i)
{
	u32 mask = (1U << ds_qdisc_bits) - 1;
	struct ds_qdisc_slot *s;
	unsigned long flags;

	local_irq_save(flags);
	for (;; i = (i + 1) & mask) {
		s = &c->slots[i];
		if (!s->qdisc)
			break;
		if (ds_qdisc_same(s, q, reason, ifindex, netns))
			goto hit;
	}
	if (c->used >= ds_qdiscs_cap) {
		local64_inc(&c->overflow);
		goto out;
	}
	s->id = q->ops->id;
	s->handle = q->handle;
	s->parent = q->parent;
	s->reason = reason;
	s->ifindex = ifindex;
	s->netns = netns;
	strscpy_pad(s->kind, q->ops->id, sizeof(s->kind));
	strscpy(s->dev, dev ? dev->name : "", sizeof(s->dev));
	/* interrupts are off: no drop on this CPU sees it half claimed */
	WRITE_ONCE(s->qdisc, q);
	c->claimed[c->used] = i;
	/* pairs with the smp_load_acquire() in ds_qdiscs_fold() */
	smp_store_release(&c->used, c->used + 1);
hit:
	local64_inc(&s->count);
out:
	local_irq_restore(flags);
}

static notrace void ds_qdisc_probe(void *data, ds_qdisc_t q,
				   const struct netdev_queue *txq,
				   struct net_device *dev, struct sk_buff *skb,
				   enum qdisc_drop_reason reason)
{
	u32 ifindex = 0, netns = 0, mask, i;
	struct ds_qdisc_slot *s;
	struct ds_qdisc_cpu *c;

	if (dev) {
		ifindex = dev->ifindex;
		netns = dev_net(dev)->ns.inum;
	}
	ds_probe_begin();
	c = ds_this_cpu_ptr(&ds_qdisc_cpus);
	mask = (1U << ds_qdisc_bits) - 1;
	i = ds_qdisc_hash(q, reason, ifindex);
	for (;; i = (i + 1) & mask) {
		s = &c->slots[i];
		if (likely(ds_qdisc_same(s, q, reason, ifindex, netns))) {
			local64_inc(&s->count);
			goto out;
		}
		if (!s->qdisc)
			break;
	}
	ds_qdisc_claim(c, q, dev, reason, ifindex, netns, i);
out:
	ds_probe_end();
}

static struct tracepoint *ds_qdisc_tp;	/* under ds_lock */

static void ds_qdisc_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "qdisc_drop"))
		ds_qdisc_tp = tp;
}

/*
 * The kernel does not export the tracepoint: it is found by name, and the
 * probe checked against its header here.
 */
static int ds_qdiscs_attach(struct netlink_ext_ack *extack)
{
	int err;

	check_trace_callback_type_qdisc_drop(ds_qdisc_probe);
	if (!ds_qdisc_tp)
		for_each_kernel_tracepoint(ds_qdisc_find, NULL);
	if (!ds_qdisc_tp) {
		NL_SET_ERR_MSG(extack, "the kernel has no qdisc:qdisc_drop tracepoint");
		return -ENOENT;
	}
	err = tracepoint_probe_register(ds_qdisc_tp, ds_qdisc_probe, NULL);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot attach to qdisc:qdisc_drop");
		return err;
	}
	qd.attached = true;
	return 0;
}

static void ds_qdiscs_detach(void)
{
	if (!qd.attached)
		return;
	tracepoint_probe_unregister(ds_qdisc_tp, ds_qdisc_probe, NULL);
	/* no probe runs on any CPU once this returns */
	tracepoint_synchronize_unregister();
	qd.attached = false;
}

#else /* a kernel before 7.0: no qdisc:qdisc_drop */

const char *ds_qdisc_reason_name(u32 reason)
{
	return NULL;
}

static int ds_qdiscs_attach(struct netlink_ext_ack *extack)
{
	return 0;
}

static void ds_qdiscs_detach(void)
{
}

#endif

/* ---- the folder: under ds_lock ----------------------------------------- */

static bool ds_qdisc_is(const struct ds_qdisc *e, const struct ds_qdisc_slot *s)
{
	return e->ifindex == s->ifindex && e->netns == s->netns &&
	       e->handle == s->handle && e->reason == s->reason &&
	       !strcmp(e->kind, s->kind);
}

/* The entry of slot s: the existing one, or a new one. NULL: no memory. */
static struct ds_qdisc *ds_qdisc_get(const struct ds_qdisc_slot *s)
{
	struct ds_qdisc *e;
	u32 i;

	for (i = 0; i < qd.n; i++)
		if (ds_qdisc_is(qd.v[i], s))
			return qd.v[i];
	if (qd.n == qd.cap) {
		u32 cap = qd.cap ? qd.cap * 2 : 16;
		struct ds_qdisc **v;

		v = krealloc_array(qd.v, cap, sizeof(*v), GFP_KERNEL);
		if (!v)
			return NULL;
		qd.v = v;
		qd.cap = cap;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return NULL;
	e->ifindex = s->ifindex;
	e->netns = s->netns;
	e->handle = s->handle;
	e->parent = s->parent;
	e->reason = s->reason;
	strscpy(e->kind, s->kind, sizeof(e->kind));
	strscpy(e->dev, s->dev, sizeof(e->dev));
	e->rules_gen = ds_rules_gen() - 1;	/* not judged yet */
	qd.v[qd.n++] = e;
	return e;
}

/* Count delta drops of e: masked by the rules in force, or shown. */
static void ds_qdisc_add(struct ds_qdisc *e, u64 delta)
{
	if (e->rules_gen != ds_rules_gen()) {
		e->rules_gen = ds_rules_gen();
		e->rule = ds_rules_judge_qdisc(e, &e->masked);
	}
	ds_rule_hit(e->rule, delta);
	if (e->masked)
		e->masked_total += delta;
	else
		e->total += delta;
}

static void ds_qdiscs_fold(void)
{
	struct ds_qdisc_shadow *sh;
	struct ds_qdisc_fold *f;
	struct ds_qdisc_slot *s;
	struct ds_qdisc_cpu *c;
	unsigned int cpu;
	u64 now, delta;
	u32 used, j;

	lockdep_assert_held(&ds_lock);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&ds_qdisc_cpus, cpu);
		f = per_cpu_ptr(&ds_qdisc_folds, cpu);
		/* pairs with the smp_store_release() in ds_qdisc_claim() */
		used = smp_load_acquire(&c->used);
		for (j = 0; j < used; j++) {
			s = &c->slots[c->claimed[j]];
			sh = &f->shadow[c->claimed[j]];
			now = local64_read(&s->count);
			delta = now - sh->last;
			if (!delta)
				continue;
			sh->last = now;
			qd.events += delta;
			if (!sh->q)
				sh->q = ds_qdisc_get(s);
			if (!sh->q) {
				qd.alloc_fails += delta;
				continue;
			}
			ds_qdisc_add(sh->q, delta);
		}
		now = local64_read(&c->overflow);
		delta = now - f->overflow_last;
		f->overflow_last = now;
		qd.overflow += delta;
		qd.events += delta;
	}
}

static void ds_qdiscs_free_entries(void)
{
	unsigned int cpu;
	u32 i;

	for_each_possible_cpu(cpu) {
		struct ds_qdisc_shadow *sh = per_cpu(ds_qdisc_folds, cpu).shadow;

		for (i = 0; i < ds_qdisc_slots(); i++)
			sh[i].q = NULL;
	}
	for (i = 0; i < qd.n; i++)
		kfree(qd.v[i]);
	kfree(qd.v);
	qd.v = NULL;
	qd.n = 0;
	qd.cap = 0;
	qd.generation++;
}

/*
 * Forget every total. While attached the probe owns the tables: the
 * shadows keep the counts seen so far (ds_reset() folded right before),
 * so that only later drops count; detached, the tables are emptied.
 */
static void ds_qdiscs_reset(bool attached)
{
	unsigned int cpu;

	lockdep_assert_held(&ds_lock);
	ds_qdiscs_free_entries();
	qd.events = 0;
	qd.overflow = 0;
	qd.alloc_fails = 0;
	if (attached)
		return;
	for_each_possible_cpu(cpu) {
		struct ds_qdisc_cpu *c = per_cpu_ptr(&ds_qdisc_cpus, cpu);
		struct ds_qdisc_fold *f = per_cpu_ptr(&ds_qdisc_folds, cpu);

		memset(c->slots, 0, ds_qdisc_slots() * sizeof(*c->slots));
		c->used = 0;
		local64_set(&c->overflow, 0);
		memset(f->shadow, 0, ds_qdisc_slots() * sizeof(*f->shadow));
		f->overflow_last = 0;
	}
}

/* One DROPSCOPE_A_QDISC nest; its delta in alerts, its masked count else. */
int ds_qdisc_put(struct sk_buff *skb, const struct ds_qdisc *e, bool alert)
{
	const char *name = ds_qdisc_reason_name(e->reason);
	struct nlattr *nest;

	nest = nla_nest_start(skb, DROPSCOPE_A_QDISC);
	if (!nest)
		return -EMSGSIZE;
	if ((e->ifindex &&
	     (nla_put_u32(skb, DROPSCOPE_QDISC_A_IFINDEX, e->ifindex) ||
	      nla_put_u32(skb, DROPSCOPE_QDISC_A_NETNS, e->netns) ||
	      nla_put_string(skb, DROPSCOPE_QDISC_A_DEV, e->dev))) ||
	    nla_put_string(skb, DROPSCOPE_QDISC_A_KIND, e->kind) ||
	    nla_put_u32(skb, DROPSCOPE_QDISC_A_HANDLE, e->handle) ||
	    nla_put_u32(skb, DROPSCOPE_QDISC_A_PARENT, e->parent) ||
	    nla_put_u32(skb, DROPSCOPE_QDISC_A_REASON, e->reason) ||
	    (name && nla_put_string(skb, DROPSCOPE_QDISC_A_REASON_NAME, name)) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_QDISC_A_TOTAL, e->total,
			      DROPSCOPE_QDISC_A_PAD) ||
	    (alert && nla_put_u64_64bit(skb, DROPSCOPE_QDISC_A_DELTA,
					e->total - e->alerted,
					DROPSCOPE_QDISC_A_PAD)) ||
	    (!alert && nla_put_u64_64bit(skb, DROPSCOPE_QDISC_A_MASKED,
					 e->masked_total,
					 DROPSCOPE_QDISC_A_PAD))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ds_qdisc_put_alert(struct sk_buff *skb, const void *e)
{
	return ds_qdisc_put(skb, e, true);
}

/* The keys that changed since the last round; masked counts never are. */
static void ds_qdiscs_alert(struct ds_round *round)
{
	struct ds_qdisc *e;
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < qd.n; i++) {
		e = qd.v[i];
		if (e->total == e->alerted)
			continue;
		if (!ds_round_muted(round))
			ds_round_put(round, ds_qdisc_put_alert, e);
		e->alerted = e->total;
	}
}

static void ds_qdiscs_free(void)
{
	ds_qdiscs_free_entries();
}

const struct ds_source ds_qdisc_source = {
	.name = "qdisc",
	.part = DROPSCOPE_PART_QDISC,
#ifndef DS_HAVE_QDISC_DROP
	.absent =
	"qdisc: this kernel has no qdisc:qdisc_drop tracepoint (Linux 7.0 and later have)",
#endif
	.attach = ds_qdiscs_attach,
	.detach = ds_qdiscs_detach,
	.fold = ds_qdiscs_fold,
	.alert = ds_qdiscs_alert,
	.reset = ds_qdiscs_reset,
	.free = ds_qdiscs_free,
};

void ds_qdiscs_stats(struct ds_qdisc_stats *st)
{
	lockdep_assert_held(&ds_lock);
	st->events = qd.events;
	st->keys = qd.n;
	st->overflow = qd.overflow;
	st->alloc_fails = qd.alloc_fails;
}

u32 ds_qdiscs_count(void)
{
	lockdep_assert_held(&ds_lock);
	return qd.n;
}

const struct ds_qdisc *ds_qdisc_at(u32 i)
{
	lockdep_assert_held(&ds_lock);
	return qd.v[i];
}

const u32 *ds_qdiscs_generation(void)
{
	return &qd.generation;
}

int ds_qdiscs_init(void)
{
	unsigned int cpu;

	/* more slots than keys: linear probing always meets a free one */
	ds_qdisc_bits = ilog2(2 * (size_t)ds_qdiscs_cap);
	for_each_possible_cpu(cpu) {
		struct ds_qdisc_cpu *c = per_cpu_ptr(&ds_qdisc_cpus, cpu);
		struct ds_qdisc_fold *f = per_cpu_ptr(&ds_qdisc_folds, cpu);
		int node = cpu_to_node(cpu);

		c->slots = kvzalloc_node(array_size(ds_qdisc_slots(),
						    sizeof(*c->slots)),
					 GFP_KERNEL, node);
		c->claimed = kvzalloc_node(array_size(ds_qdiscs_cap,
						      sizeof(*c->claimed)),
					   GFP_KERNEL, node);
		f->shadow = kvzalloc_node(array_size(ds_qdisc_slots(),
						     sizeof(*f->shadow)),
					  GFP_KERNEL, node);
		if (!c->slots || !c->claimed || !f->shadow) {
			ds_qdiscs_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

void ds_qdiscs_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ds_qdisc_cpu *c = per_cpu_ptr(&ds_qdisc_cpus, cpu);
		struct ds_qdisc_fold *f = per_cpu_ptr(&ds_qdisc_folds, cpu);

		kvfree(c->slots);
		kvfree(c->claimed);
		kvfree(f->shadow);
		c->slots = NULL;
		c->claimed = NULL;
		f->shadow = NULL;
	}
}
