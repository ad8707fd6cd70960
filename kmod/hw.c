// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware drops: the devlink:devlink_trap_report tracepoint, the fourth
 * source of events (DROPSCOPE_PART_HW). A device that traps a packet to
 * the CPU reports it there: drop_monitor's hardware mode reads the same
 * tracepoint. Traps of type drop and exception are counted; control traps
 * (packets the device hands to the stack on purpose) are not drops.
 *
 * A key is (devlink instance, trap, input port: its ifindex and netns),
 * counted in one table per CPU the way probe.c counts drops: the fast path
 * is a hash, compares and a local64_inc; a new key is claimed with local
 * interrupts off and published to the folder through claimed[] and used.
 * The names of a key (the devlink handle "bus/dev", the trap, its group,
 * the input device) are copied when it is claimed; the fast path compares
 * the pointers and then the names, so that a devlink instance or a driver
 * that went and came back at the same address is a key of its own.
 *
 * The folder (under ds_lock) merges the CPUs' slots into one ds_trap per
 * key, by names. Trapped packets are freed by their drivers with
 * consume_skb(): they never reach skb:kfree_skb, and are counted here
 * only.
 */

#include <linux/device.h>
#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/local64.h>
#include <net/devlink.h>
#include <net/net_namespace.h>
#include <net/netlink.h>

#if IS_ENABLED(CONFIG_NET_DEVLINK)
#include <trace/events/devlink.h>
#endif

#include "dropscope.h"

unsigned int ds_hw_cap = 128;
module_param_cb(traps, &ds_param_count_ops, &ds_hw_cap, 0444);
MODULE_PARM_DESC(traps,
		 "distinct (device, trap, input port) keys per CPU, 1 to 1048576 (default 128)");

struct ds_trap_slot {
	const void *devlink;	/* NULL: free; set last when claimed */
	const char *trap;	/* the trap's name, as the driver keeps it */
	u32 ifindex;		/* the input port's device, or 0 */
	u32 netns;		/* its netns inode, or 0 */
	u8 type;		/* enum dropscope_trap_type */
	char device[DS_TRAP_DEVICE_LEN];
	char name[DS_TRAP_NAME_LEN];
	char group[DS_TRAP_NAME_LEN];
	char dev[IFNAMSIZ];
	local64_t count;	/* written by the owning CPU only */
};

/* One CPU's table: written by the probe on that CPU only. */
struct ds_trap_cpu {
	struct ds_trap_slot *slots;	/* 2 * ds_hw_cap of them */
	u32 *claimed;		/* indexes of claimed slots, in claim order */
	u32 used;		/* claimed slots; published with release */
	local64_t overflow;	/* reports that found the table full */
};

/* What the folder remembers of one slot. */
struct ds_trap_shadow {
	u64 last;		/* the slot's count at the last fold */
	struct ds_trap *trap;	/* NULL until the folder made it */
};

/* What the folder remembers of one CPU's table. */
struct ds_trap_fold {
	struct ds_trap_shadow *shadow;	/* one per slot */
	u64 overflow_last;		/* its overflow at the last fold */
};

static DEFINE_PER_CPU(struct ds_trap_cpu, ds_trap_cpus);
static DEFINE_PER_CPU(struct ds_trap_fold, ds_trap_folds);
/* a table's slots: 2 * ds_hw_cap rounded down to a power of two */
static unsigned int ds_trap_bits;

static size_t ds_trap_slots(void)
{
	return (size_t)1 << ds_trap_bits;
}

/* The folded view: one ds_trap per key across all CPUs, under ds_lock. */
static struct {
	struct ds_trap **v;
	u32 n, cap;
	u32 generation;		/* bumped whenever they are freed */
	u64 events;		/* reports folded, overflow included */
	u64 overflow;
	u64 alloc_fails;	/* reports folded while no entry could be made */
	bool attached;
} traps;

/* ---- the probe: any context, this CPU only ----------------------------- */

#if IS_ENABLED(CONFIG_NET_DEVLINK)

/* The devlink handle, "bus/dev", as devlink(8) names the instance. */
static void ds_trap_device(const struct devlink *devlink, char *buf)
{
	struct device *dev = devlink_to_dev(devlink);

	snprintf(buf, DS_TRAP_DEVICE_LEN, "%s/%s",
		 dev->bus ? dev->bus->name : "-", dev_name(dev));
}

static __always_inline u32 ds_trap_hash(const void *devlink, const char *trap,
					u32 ifindex, u32 netns)
{
	u64 k = (unsigned long)devlink ^ ror64((unsigned long)trap, 17) ^
		((u64)ifindex << 32 | netns);

	return hash_64(k, ds_trap_bits);
}

/* Is slot s the key of this report? The pointers, then the names. */
static __always_inline bool ds_trap_same(const struct ds_trap_slot *s,
					 const struct devlink *devlink,
					 const struct devlink_trap_metadata *md,
					 u32 ifindex, u32 netns)
{
	struct device *dev;
	const char *bus;
	size_t n;

	if (s->devlink != devlink || s->trap != md->trap_name ||
	    s->ifindex != ifindex || s->netns != netns)
		return false;
	if (strncmp(s->name, md->trap_name, DS_TRAP_NAME_LEN - 1))
		return false;
	dev = devlink_to_dev(devlink);
	bus = dev->bus ? dev->bus->name : "-";
	n = strlen(bus);
	return !strncmp(s->device, bus, n) && s->device[n] == '/' &&
	       !strncmp(s->device + n + 1, dev_name(dev),
			DS_TRAP_DEVICE_LEN - n - 2);
}

/*
 * Slow path: claim a slot for a key not seen on this CPU yet, from the
 * first free slot the fast path met; an interrupt may have claimed it in
 * between, for this very key or another.
 */
static noinline void ds_trap_claim(struct ds_trap_cpu *c,
				   const struct devlink *devlink,
				   const struct devlink_trap_metadata *md,
				   u32 ifindex, u32 netns, u32 i)
{
	u32 mask = (1U << ds_trap_bits) - 1;
	struct ds_trap_slot *s;
	unsigned long flags;

	local_irq_save(flags);
	for (;; i = (i + 1) & mask) {
		s = &c->slots[i];
		if (!s->devlink)
			break;
		if (ds_trap_same(s, devlink, md, ifindex, netns))
			goto hit;
	}
	if (c->used >= ds_hw_cap) {
		local64_inc(&c->overflow);
		goto out;
	}
	s->trap = md->trap_name;
	s->ifindex = ifindex;
	s->netns = netns;
	s->type = md->trap_type == DEVLINK_TRAP_TYPE_EXCEPTION ?
		  DROPSCOPE_TRAP_EXCEPTION : DROPSCOPE_TRAP_DROP;
	ds_trap_device(devlink, s->device);
	strscpy(s->name, md->trap_name, sizeof(s->name));
	strscpy(s->group, md->trap_group_name ?: "", sizeof(s->group));
	strscpy(s->dev, md->input_dev ? md->input_dev->name : "",
		sizeof(s->dev));
	/* interrupts are off: no report on this CPU sees it half claimed */
	WRITE_ONCE(s->devlink, devlink);
	c->claimed[c->used] = i;
	/* pairs with the smp_load_acquire() in ds_hw_fold() */
	smp_store_release(&c->used, c->used + 1);
hit:
	local64_inc(&s->count);
out:
	local_irq_restore(flags);
}

static notrace void ds_trap_probe(void *data, const struct devlink *devlink,
				  struct sk_buff *skb,
				  const struct devlink_trap_metadata *md)
{
	const struct net_device *in = md->input_dev;
	u32 ifindex = 0, netns = 0, mask, i;
	struct ds_trap_slot *s;
	struct ds_trap_cpu *c;

	/* packets the device hands to the stack on purpose: not drops */
	if (md->trap_type == DEVLINK_TRAP_TYPE_CONTROL)
		return;
	if (in) {
		ifindex = in->ifindex;
		netns = dev_net(in)->ns.inum;
	}
	ds_probe_begin();
	c = ds_this_cpu_ptr(&ds_trap_cpus);
	mask = (1U << ds_trap_bits) - 1;
	i = ds_trap_hash(devlink, md->trap_name, ifindex, netns);
	for (;; i = (i + 1) & mask) {
		s = &c->slots[i];
		if (likely(ds_trap_same(s, devlink, md, ifindex, netns))) {
			local64_inc(&s->count);
			goto out;
		}
		if (!s->devlink)
			break;
	}
	ds_trap_claim(c, devlink, md, ifindex, netns, i);
out:
	ds_probe_end();
}

static int ds_hw_attach(struct netlink_ext_ack *extack)
{
	int err = register_trace_devlink_trap_report(ds_trap_probe, NULL);

	if (err) {
		NL_SET_ERR_MSG(extack, "cannot attach to devlink:devlink_trap_report");
		return err;
	}
	traps.attached = true;
	return 0;
}

static void ds_hw_detach(void)
{
	if (!traps.attached)
		return;
	unregister_trace_devlink_trap_report(ds_trap_probe, NULL);
	/* no probe runs on any CPU once this returns */
	tracepoint_synchronize_unregister();
	traps.attached = false;
}

#else /* !CONFIG_NET_DEVLINK: no device can report a trap */

static int ds_hw_attach(struct netlink_ext_ack *extack)
{
	return 0;
}

static void ds_hw_detach(void)
{
}

#endif

/* ---- the folder: under ds_lock ----------------------------------------- */

static bool ds_trap_is(const struct ds_trap *t, const struct ds_trap_slot *s)
{
	return t->ifindex == s->ifindex && t->netns == s->netns &&
	       !strcmp(t->name, s->name) && !strcmp(t->device, s->device);
}

/* The entry of slot s: the existing one, or a new one. NULL: no memory. */
static struct ds_trap *ds_trap_get(const struct ds_trap_slot *s)
{
	struct ds_trap *t;
	u32 i;

	for (i = 0; i < traps.n; i++)
		if (ds_trap_is(traps.v[i], s))
			return traps.v[i];
	if (traps.n == traps.cap) {
		u32 cap = traps.cap ? traps.cap * 2 : 16;
		struct ds_trap **v;

		v = krealloc_array(traps.v, cap, sizeof(*v), GFP_KERNEL);
		if (!v)
			return NULL;
		traps.v = v;
		traps.cap = cap;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	t->ifindex = s->ifindex;
	t->netns = s->netns;
	t->type = s->type;
	strscpy(t->device, s->device, sizeof(t->device));
	strscpy(t->name, s->name, sizeof(t->name));
	strscpy(t->group, s->group, sizeof(t->group));
	strscpy(t->dev, s->dev, sizeof(t->dev));
	t->rules_gen = ds_rules_gen() - 1;	/* not judged yet */
	traps.v[traps.n++] = t;
	return t;
}

/* Count delta reports of t: masked by the rules in force, or shown. */
static void ds_trap_add(struct ds_trap *t, u64 delta)
{
	if (t->rules_gen != ds_rules_gen()) {
		t->rules_gen = ds_rules_gen();
		t->rule = ds_rules_judge_trap(t, &t->masked);
	}
	ds_rule_hit(t->rule, delta);
	if (t->masked)
		t->masked_total += delta;
	else
		t->total += delta;
}

static void ds_hw_fold(void)
{
	struct ds_trap_fold *f;
	struct ds_trap_shadow *sh;
	struct ds_trap_slot *s;
	struct ds_trap_cpu *c;
	unsigned int cpu;
	u64 now, delta;
	u32 used, j;

	lockdep_assert_held(&ds_lock);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&ds_trap_cpus, cpu);
		f = per_cpu_ptr(&ds_trap_folds, cpu);
		/* pairs with the smp_store_release() in ds_trap_claim() */
		used = smp_load_acquire(&c->used);
		for (j = 0; j < used; j++) {
			s = &c->slots[c->claimed[j]];
			sh = &f->shadow[c->claimed[j]];
			now = local64_read(&s->count);
			delta = now - sh->last;
			if (!delta)
				continue;
			sh->last = now;
			traps.events += delta;
			if (!sh->trap)
				sh->trap = ds_trap_get(s);
			if (!sh->trap) {
				traps.alloc_fails += delta;
				continue;
			}
			ds_trap_add(sh->trap, delta);
		}
		now = local64_read(&c->overflow);
		delta = now - f->overflow_last;
		f->overflow_last = now;
		traps.overflow += delta;
		traps.events += delta;
	}
}

static void ds_hw_free_entries(void)
{
	unsigned int cpu;
	u32 i;

	for_each_possible_cpu(cpu) {
		struct ds_trap_shadow *sh = per_cpu(ds_trap_folds, cpu).shadow;

		for (i = 0; i < ds_trap_slots(); i++)
			sh[i].trap = NULL;
	}
	for (i = 0; i < traps.n; i++)
		kfree(traps.v[i]);
	kfree(traps.v);
	traps.v = NULL;
	traps.n = 0;
	traps.cap = 0;
	traps.generation++;
}

/*
 * Forget every total. While attached the probe owns the tables: the
 * shadows keep the counts seen so far (ds_reset() folded right before),
 * so that only later reports count; detached, the tables are emptied.
 */
static void ds_hw_reset(bool attached)
{
	unsigned int cpu;

	lockdep_assert_held(&ds_lock);
	ds_hw_free_entries();
	traps.events = 0;
	traps.overflow = 0;
	traps.alloc_fails = 0;
	if (attached)
		return;
	for_each_possible_cpu(cpu) {
		struct ds_trap_cpu *c = per_cpu_ptr(&ds_trap_cpus, cpu);
		struct ds_trap_fold *f = per_cpu_ptr(&ds_trap_folds, cpu);

		memset(c->slots, 0, ds_trap_slots() * sizeof(*c->slots));
		c->used = 0;
		local64_set(&c->overflow, 0);
		memset(f->shadow, 0, ds_trap_slots() * sizeof(*f->shadow));
		f->overflow_last = 0;
	}
}

/* One DROPSCOPE_A_TRAP nest; its delta in alerts, its masked count else. */
int ds_trap_put(struct sk_buff *skb, const struct ds_trap *t, bool alert)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, DROPSCOPE_A_TRAP);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, DROPSCOPE_TRAP_A_DEVICE, t->device) ||
	    nla_put_string(skb, DROPSCOPE_TRAP_A_NAME, t->name) ||
	    nla_put_string(skb, DROPSCOPE_TRAP_A_GROUP, t->group) ||
	    nla_put_u8(skb, DROPSCOPE_TRAP_A_TYPE, t->type) ||
	    (t->ifindex &&
	     (nla_put_u32(skb, DROPSCOPE_TRAP_A_IFINDEX, t->ifindex) ||
	      nla_put_string(skb, DROPSCOPE_TRAP_A_DEV, t->dev) ||
	      nla_put_u32(skb, DROPSCOPE_TRAP_A_NETNS, t->netns))) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_TRAP_A_TOTAL, t->total,
			      DROPSCOPE_TRAP_A_PAD) ||
	    (alert && nla_put_u64_64bit(skb, DROPSCOPE_TRAP_A_DELTA,
					t->total - t->alerted,
					DROPSCOPE_TRAP_A_PAD)) ||
	    (!alert && nla_put_u64_64bit(skb, DROPSCOPE_TRAP_A_MASKED,
					 t->masked_total,
					 DROPSCOPE_TRAP_A_PAD))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ds_trap_put_alert(struct sk_buff *skb, const void *t)
{
	return ds_trap_put(skb, t, true);
}

/* The traps that changed since the last round; masked counts never are. */
static void ds_hw_alert(struct ds_round *round)
{
	struct ds_trap *t;
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < traps.n; i++) {
		t = traps.v[i];
		if (t->total == t->alerted)
			continue;
		if (!ds_round_muted(round))
			ds_round_put(round, ds_trap_put_alert, t);
		t->alerted = t->total;
	}
}

static void ds_hw_free(void)
{
	ds_hw_free_entries();
}

const struct ds_source ds_hw_source = {
	.name = "hw",
	.part = DROPSCOPE_PART_HW,
	.attach = ds_hw_attach,
	.detach = ds_hw_detach,
	.fold = ds_hw_fold,
	.alert = ds_hw_alert,
	.reset = ds_hw_reset,
	.free = ds_hw_free,
};

void ds_hw_stats(struct ds_trap_stats *st)
{
	lockdep_assert_held(&ds_lock);
	st->events = traps.events;
	st->traps = traps.n;
	st->overflow = traps.overflow;
	st->alloc_fails = traps.alloc_fails;
}

u32 ds_hw_count(void)
{
	lockdep_assert_held(&ds_lock);
	return traps.n;
}

const struct ds_trap *ds_trap_at(u32 i)
{
	lockdep_assert_held(&ds_lock);
	return traps.v[i];
}

const u32 *ds_hw_generation(void)
{
	return &traps.generation;
}

int ds_hw_init(void)
{
	unsigned int cpu;

	/* more slots than keys: linear probing always meets a free one */
	ds_trap_bits = ilog2(2 * (size_t)ds_hw_cap);
	for_each_possible_cpu(cpu) {
		struct ds_trap_cpu *c = per_cpu_ptr(&ds_trap_cpus, cpu);
		struct ds_trap_fold *f = per_cpu_ptr(&ds_trap_folds, cpu);
		int node = cpu_to_node(cpu);

		c->slots = kvzalloc_node(array_size(ds_trap_slots(),
						    sizeof(*c->slots)),
					 GFP_KERNEL, node);
		c->claimed = kvzalloc_node(array_size(ds_hw_cap,
						      sizeof(*c->claimed)),
					   GFP_KERNEL, node);
		f->shadow = kvzalloc_node(array_size(ds_trap_slots(),
						     sizeof(*f->shadow)),
					  GFP_KERNEL, node);
		if (!c->slots || !c->claimed || !f->shadow) {
			ds_hw_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

void ds_hw_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ds_trap_cpu *c = per_cpu_ptr(&ds_trap_cpus, cpu);
		struct ds_trap_fold *f = per_cpu_ptr(&ds_trap_folds, cpu);

		kvfree(c->slots);
		kvfree(c->claimed);
		kvfree(f->shadow);
		c->slots = NULL;
		c->claimed = NULL;
		f->shadow = NULL;
	}
}
