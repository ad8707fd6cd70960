// SPDX-License-Identifier: GPL-2.0
/*
 * Device drops: the drop and error counters of every network device's
 * statistics (struct rtnl_link_stats64), the fifth source of events
 * (DROPSCOPE_PART_DEV). Nothing is hooked: each fold reads every device
 * of every netns as /proc/net/dev does (dev_get_stats() under RCU), in
 * process context, and counts what each counter gained since the last
 * fold. A device present at start counts from its values then; one that
 * appears later, from zero (all it counted happened since). A device that
 * goes keeps its totals. Everything here runs under ds_lock.
 *
 * A device is known by its struct net_device while it lives, and told
 * apart from a later one at the same address by its counters: a device
 * whose counters went back is a new one (a device moved to another netns
 * keeps its pointer and its counters, and is the same one). The devices
 * known are in a hash table by that pointer: one fold costs the number of
 * devices. A device unregistered while monitoring runs is read one last
 * time in the netdevice notifier (devices.c, under RTNL), so that what it
 * counted after the last fold is counted too, and then forgotten (its
 * totals are in its counters' entries, which stay): a host where devices
 * come and go keeps only the live ones.
 */

#include <linux/hashtable.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/netlink.h>

#include "dropscope.h"

/* A device's counters, read at one fold. */
struct ds_dev_snap {
	const struct net_device *dev;	/* compared, never dereferenced */
	u32 ifindex;
	u32 netns;
	char name[IFNAMSIZ];
	u64 v[DROPSCOPE_DEV_COUNTERS];
};

/* A device of the last fold. */
struct ds_dev_known {
	struct hlist_node node;		/* in dc.devs, by dev */
	const struct net_device *dev;
	u32 ifindex;
	u32 netns;
	char name[IFNAMSIZ];
	u64 last[DROPSCOPE_DEV_COUNTERS];	/* at the last fold */
	struct ds_devctr *ctr[DROPSCOPE_DEV_COUNTERS];	/* those that moved */
};

#define DS_DEV_HASH_BITS	10

static struct {
	DECLARE_HASHTABLE(devs, DS_DEV_HASH_BITS);
	struct ds_devctr **ctrs;	/* the counters that moved, for dumps */
	u32 nctrs, ctrcap;
	struct ds_dev_snap *snap;
	u32 snapcap;
	u32 generation;		/* bumped whenever counters are freed */
	u64 lost;		/* counts not kept for lack of memory */
	bool attached;
} dc;

/* The counters in enum dropscope_dev_counter order. */
static void ds_dev_values(const struct rtnl_link_stats64 *s, u64 *v)
{
	v[DROPSCOPE_DEV_RX_DROPPED] = s->rx_dropped;
	v[DROPSCOPE_DEV_TX_DROPPED] = s->tx_dropped;
	v[DROPSCOPE_DEV_RX_NOHANDLER] = s->rx_nohandler;
	v[DROPSCOPE_DEV_RX_OTHERHOST_DROPPED] = s->rx_otherhost_dropped;
	v[DROPSCOPE_DEV_RX_MISSED_ERRORS] = s->rx_missed_errors;
	v[DROPSCOPE_DEV_RX_FIFO_ERRORS] = s->rx_fifo_errors;
	v[DROPSCOPE_DEV_RX_OVER_ERRORS] = s->rx_over_errors;
	v[DROPSCOPE_DEV_RX_CRC_ERRORS] = s->rx_crc_errors;
	v[DROPSCOPE_DEV_RX_FRAME_ERRORS] = s->rx_frame_errors;
	v[DROPSCOPE_DEV_RX_LENGTH_ERRORS] = s->rx_length_errors;
	v[DROPSCOPE_DEV_TX_FIFO_ERRORS] = s->tx_fifo_errors;
	v[DROPSCOPE_DEV_TX_ABORTED_ERRORS] = s->tx_aborted_errors;
	v[DROPSCOPE_DEV_TX_CARRIER_ERRORS] = s->tx_carrier_errors;
	v[DROPSCOPE_DEV_TX_HEARTBEAT_ERRORS] = s->tx_heartbeat_errors;
	v[DROPSCOPE_DEV_TX_WINDOW_ERRORS] = s->tx_window_errors;
}

/* One device's counters, its name and place, now. */
static void ds_dev_snap(struct ds_dev_snap *p, struct net_device *dev,
			const struct net *net)
{
	struct rtnl_link_stats64 st;

	p->dev = dev;
	p->ifindex = dev->ifindex;
	p->netns = net->ns.inum;
	memcpy(p->name, dev->name, IFNAMSIZ);
	p->name[IFNAMSIZ - 1] = '\0';
	dev_get_stats(dev, &st);
	ds_dev_values(&st, p->v);
}

/*
 * Read every device of every netns into dc.snap; returns how many, or
 * -ENOMEM. The devices are counted under RCU first: when they do not fit,
 * the snapshot grows outside it and is read again.
 */
static int ds_dev_read(void)
{
	struct net_device *dev;
	struct ds_dev_snap *p;
	struct net *net;
	u32 n, tries;

	for (tries = 0; tries < 4; tries++) {
		n = 0;
		rcu_read_lock();
		for_each_net_rcu(net) {
			for_each_netdev_rcu(net, dev) {
				if (n < dc.snapcap)
					ds_dev_snap(&dc.snap[n], dev, net);
				n++;
			}
		}
		rcu_read_unlock();
		if (n <= dc.snapcap)
			return n;
		n += n / 4 + 16;
		p = kvmalloc_array(n, sizeof(*p), GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kvfree(dc.snap);
		dc.snap = p;
		dc.snapcap = n;
	}
	return -ENOMEM;
}

static struct ds_dev_known *ds_dev_find(const struct net_device *dev)
{
	struct ds_dev_known *d;

	hash_for_each_possible(dc.devs, d, node, (unsigned long)dev)
		if (d->dev == dev)
			return d;
	return NULL;
}

static struct ds_dev_known *ds_dev_new(const struct ds_dev_snap *s, bool base)
{
	struct ds_dev_known *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	d->dev = s->dev;
	/* at start: counted from now; later: all it counted is new */
	if (base)
		memcpy(d->last, s->v, sizeof(d->last));
	hash_add(dc.devs, &d->node, (unsigned long)d->dev);
	return d;
}

/* A device gone, or not the one at its address any more. */
static void ds_dev_forget(struct ds_dev_known *d)
{
	hash_del(&d->node);
	kfree(d);
}

static struct ds_devctr *ds_devctr_get(struct ds_dev_known *d, int c)
{
	struct ds_devctr *e, **v;

	if (d->ctr[c])
		return d->ctr[c];
	if (dc.nctrs == dc.ctrcap) {
		u32 cap = dc.ctrcap ? dc.ctrcap * 2 : 16;

		v = krealloc_array(dc.ctrs, cap, sizeof(*v), GFP_KERNEL);
		if (!v)
			return NULL;
		dc.ctrs = v;
		dc.ctrcap = cap;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return NULL;
	e->counter = c;
	e->rules_gen = ds_rules_gen() - 1;	/* not judged yet */
	e->ifindex = d->ifindex;
	e->netns = d->netns;
	memcpy(e->dev, d->name, sizeof(e->dev));
	d->ctr[c] = e;
	dc.ctrs[dc.nctrs++] = e;
	return e;
}

/* Count delta of e: masked by the rules in force, or shown. */
static void ds_devctr_add(struct ds_devctr *e, u64 delta)
{
	if (e->rules_gen != ds_rules_gen()) {
		e->rules_gen = ds_rules_gen();
		e->rule = ds_rules_judge_devctr(e, &e->masked);
	}
	ds_rule_hit(e->rule, delta);
	if (e->masked)
		e->masked_total += delta;
	else
		e->total += delta;
}

/* A counter that went back: the device is not the one known there. */
static bool ds_dev_went_back(const struct ds_dev_known *d,
			     const struct ds_dev_snap *s)
{
	int c;

	for (c = 0; c < DROPSCOPE_DEV_COUNTERS; c++)
		if (s->v[c] < d->last[c])
			return true;
	return false;
}

/* Fold one device's reading: what each counter gained goes to its entry. */
static void ds_dev_fold_one(const struct ds_dev_snap *s, bool base)
{
	struct ds_dev_known *d = ds_dev_find(s->dev);
	struct ds_devctr *e;
	u64 delta;
	int c;

	if (d && ds_dev_went_back(d, s)) {
		ds_dev_forget(d);	/* a new device at its address */
		d = NULL;
	}
	if (!d) {
		d = ds_dev_new(s, base);
		if (!d) {
			dc.lost++;
			return;
		}
	}
	d->ifindex = s->ifindex;
	d->netns = s->netns;
	memcpy(d->name, s->name, sizeof(d->name));
	for (c = 0; c < DROPSCOPE_DEV_COUNTERS; c++) {
		delta = s->v[c] - d->last[c];
		if (!delta)
			continue;
		e = ds_devctr_get(d, c);
		if (!e)
			continue;	/* taken again at the next fold */
		d->last[c] = s->v[c];
		/* its latest name and place, judged again when they change */
		if (e->ifindex != d->ifindex || e->netns != d->netns)
			e->rules_gen = ds_rules_gen() - 1;
		e->ifindex = d->ifindex;
		e->netns = d->netns;
		memcpy(e->dev, d->name, sizeof(e->dev));
		ds_devctr_add(e, delta);
	}
}

/*
 * Read every device and fold; base: at start, every device counts from now.
 * A device not listed now is one being unregistered or moved to another
 * netns: it stays known until the notifier says it is gone.
 */
static void ds_dev_fold_all(bool base)
{
	int n, i;

	lockdep_assert_held(&ds_lock);
	n = ds_dev_read();
	if (n < 0) {
		dc.lost++;
		return;
	}
	for (i = 0; i < n; i++)
		ds_dev_fold_one(&dc.snap[i], base);
}

/*
 * NETDEV_UNREGISTER, under RTNL: the device's counts since the last fold
 * are folded while its statistics can still be read. One that goes away
 * (not one moving to another netns, which stays the same device) is then
 * forgotten: a later device may take its address.
 */
void ds_devctrs_unregister(struct net_device *dev)
{
	struct ds_dev_snap s;
	struct ds_dev_known *d;

	ASSERT_RTNL();
	mutex_lock(&ds_lock);
	if (!dc.attached)
		goto out;
	ds_dev_snap(&s, dev, dev_net(dev));
	ds_dev_fold_one(&s, false);
	if (dev->reg_state == NETREG_UNREGISTERING) {
		d = ds_dev_find(dev);
		if (d)
			ds_dev_forget(d);
	}
out:
	mutex_unlock(&ds_lock);
}

static void ds_devctrs_fold(void)
{
	if (dc.attached)
		ds_dev_fold_all(false);
}

static void ds_devctrs_free_ctrs(void)
{
	struct ds_dev_known *d;
	u32 i;

	hash_for_each(dc.devs, i, d, node)
		memset(d->ctr, 0, sizeof(d->ctr));
	for (i = 0; i < dc.nctrs; i++)
		kfree(dc.ctrs[i]);
	kfree(dc.ctrs);
	dc.ctrs = NULL;
	dc.nctrs = 0;
	dc.ctrcap = 0;
	dc.generation++;
}

static void ds_devctrs_free_devs(void)
{
	struct ds_dev_known *d;
	struct hlist_node *tmp;
	u32 i;

	ds_devctrs_free_ctrs();
	hash_for_each_safe(dc.devs, i, tmp, d, node)
		ds_dev_forget(d);
}

static int ds_devctrs_attach(struct netlink_ext_ack *extack)
{
	/* start counts from the values every device has now */
	ds_devctrs_free_devs();
	ds_dev_fold_all(true);
	dc.attached = true;
	return 0;
}

static void ds_devctrs_detach(void)
{
	/* what the devices counted up to the stop */
	ds_dev_fold_all(false);
	dc.attached = false;
}

/*
 * Forget every total. While running, the devices keep their values at
 * the fold ds_reset() made right before, so that only later counts count.
 */
static void ds_devctrs_reset(bool attached)
{
	lockdep_assert_held(&ds_lock);
	if (attached)
		ds_devctrs_free_ctrs();
	else
		ds_devctrs_free_devs();
	dc.lost = 0;
}

/* One DROPSCOPE_A_DEVCTR nest; its delta in alerts, its masked count else. */
int ds_devctr_put(struct sk_buff *skb, const struct ds_devctr *e, bool alert)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, DROPSCOPE_A_DEVCTR);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, DROPSCOPE_DEVCTR_A_IFINDEX, e->ifindex) ||
	    nla_put_u32(skb, DROPSCOPE_DEVCTR_A_NETNS, e->netns) ||
	    nla_put_string(skb, DROPSCOPE_DEVCTR_A_DEV, e->dev) ||
	    nla_put_u8(skb, DROPSCOPE_DEVCTR_A_COUNTER, e->counter) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_DEVCTR_A_TOTAL, e->total,
			      DROPSCOPE_DEVCTR_A_PAD) ||
	    (alert && nla_put_u64_64bit(skb, DROPSCOPE_DEVCTR_A_DELTA,
					e->total - e->alerted,
					DROPSCOPE_DEVCTR_A_PAD)) ||
	    (!alert && nla_put_u64_64bit(skb, DROPSCOPE_DEVCTR_A_MASKED,
					 e->masked_total,
					 DROPSCOPE_DEVCTR_A_PAD))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ds_devctr_put_alert(struct sk_buff *skb, const void *e)
{
	return ds_devctr_put(skb, e, true);
}

static void ds_devctrs_alert(struct ds_round *round)
{
	struct ds_devctr *e;
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < dc.nctrs; i++) {
		e = dc.ctrs[i];
		if (e->total == e->alerted)
			continue;
		if (!ds_round_muted(round))
			ds_round_put(round, ds_devctr_put_alert, e);
		e->alerted = e->total;
	}
}

static void ds_devctrs_free(void)
{
	ds_devctrs_free_devs();
	kvfree(dc.snap);
	dc.snap = NULL;
	dc.snapcap = 0;
}

const struct ds_source ds_dev_source = {
	.name = "dev",
	.part = DROPSCOPE_PART_DEV,
	.attach = ds_devctrs_attach,
	.detach = ds_devctrs_detach,
	.fold = ds_devctrs_fold,
	.alert = ds_devctrs_alert,
	.reset = ds_devctrs_reset,
	.free = ds_devctrs_free,
};

void ds_devctrs_stats(u64 *ctrs, u64 *lost)
{
	lockdep_assert_held(&ds_lock);
	*ctrs = dc.nctrs;
	*lost = dc.lost;
}

u32 ds_devctrs_count(void)
{
	lockdep_assert_held(&ds_lock);
	return dc.nctrs;
}

const struct ds_devctr *ds_devctr_at(u32 i)
{
	lockdep_assert_held(&ds_lock);
	return dc.ctrs[i];
}

const u32 *ds_devctrs_generation(void)
{
	return &dc.generation;
}
