// SPDX-License-Identifier: GPL-2.0
/*
 * The netns of every registered network device, and the run that netns
 * is of (scope.h), by device pointer, for the probe: skb->dev cannot be
 * dereferenced at kfree_skb (queued skbs reuse the field, and the device
 * may be gone), but it can be looked up here.
 * A pointer that is not a live device is simply not found.
 *
 * An open-addressing table replaced under RCU when it must grow or has too
 * many tombstones; in between, a device is added in place (its slot's
 * netns written before the pointer is published) and removed by turning
 * its pointer into a tombstone, both single stores a lookup can race with.
 * Writers are netdevice notifiers, serialised by RTNL.
 */

#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>

#include "dropscope.h"
#include "scope.h"

/*
 * A removed device: lookups probe past it. Never a pointer, nor anything
 * else skb->dev may hold.
 */
#define DS_DEV_TOMB	(~0UL)
#define DS_DEV_MIN_BITS	6

struct ds_devtab __rcu *ds_devtab;

/* Slots in use, tombstones included, and live devices; under RTNL. */
static u32 ds_dev_used, ds_dev_live;

static u32 ds_dev_slot(const struct ds_devtab *t, unsigned long dev)
{
	u32 i = ds_dev_hash(t, dev);

	while (t->e[i].dev && t->e[i].dev != dev)
		i = (i + 1) & t->mask;
	return i;
}

static struct ds_devtab *ds_devtab_alloc(u32 bits)
{
	struct ds_devtab *t;

	t = kvzalloc(struct_size(t, e, 1UL << bits), GFP_KERNEL);
	if (t) {
		t->mask = (1U << bits) - 1;
		t->shift = 64 - bits;
	}
	return t;
}

/* A new table big enough for want live devices, without tombstones. */
static int ds_devtab_rebuild(u32 want)
{
	struct ds_devtab *old = rtnl_dereference(ds_devtab), *t;
	u32 bits = DS_DEV_MIN_BITS, i, n = 0;

	while ((1U << bits) < 4 * want)
		bits++;
	t = ds_devtab_alloc(bits);
	if (!t)
		return -ENOMEM;
	for (i = 0; old && i <= old->mask; i++) {
		unsigned long dev = old->e[i].dev;

		if (dev && dev != DS_DEV_TOMB) {
			t->e[ds_dev_slot(t, dev)] = old->e[i];
			n++;
		}
	}
	rcu_assign_pointer(ds_devtab, t);
	ds_dev_used = n;
	ds_dev_live = n;
	if (old)
		kvfree_rcu(old, rcu);
	return 0;
}

static void ds_dev_add(struct net_device *dev)
{
	struct ds_devtab *t = rtnl_dereference(ds_devtab);
	struct ds_dev *e;

	/*
	 * Keep the table at most half full, tombstones included; without
	 * memory for a new one, fill this one while a free slot remains.
	 */
	if (!t || 2 * (ds_dev_used + 1) > t->mask + 1) {
		if (!ds_devtab_rebuild(ds_dev_live + 1)) {
			t = rtnl_dereference(ds_devtab);
		} else if (!t || ds_dev_used + 2 > t->mask + 1) {
			pr_warn_ratelimited("no memory to track %s: its drops without a socket show no netns\n",
					    dev->name);
			return;
		}
	}
	e = &t->e[ds_dev_slot(t, (unsigned long)dev)];
	if (e->dev == (unsigned long)dev)
		return;
	e->inum = dev_net(dev)->ns.inum;
	rcu_read_lock();
	e->tag = ds_net_tag(dev_net(dev));
	rcu_read_unlock();
	/* pairs with the smp_load_acquire() in ds_packet_netns() */
	smp_store_release(&e->dev, (unsigned long)dev);
	ds_dev_used++;
	ds_dev_live++;
}

static void ds_dev_del(struct net_device *dev)
{
	struct ds_devtab *t = rtnl_dereference(ds_devtab);
	struct ds_dev *e;

	if (!t)
		return;
	e = &t->e[ds_dev_slot(t, (unsigned long)dev)];
	if (e->dev != (unsigned long)dev)
		return;
	WRITE_ONCE(e->dev, DS_DEV_TOMB);
	ds_dev_live--;
}

/* A device moving to another netns is unregistered, then registered. */
static int ds_dev_event(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	ASSERT_RTNL();
	if (event == NETDEV_REGISTER) {
		ds_dev_add(dev);
	} else if (event == NETDEV_UNREGISTER) {
		/* its last counts, while its statistics can be read */
		ds_devctrs_unregister(dev);
		ds_dev_del(dev);
	}
	return NOTIFY_DONE;
}

static struct notifier_block ds_dev_nb = {
	.notifier_call = ds_dev_event,
};

/* Registering the notifier replays NETDEV_REGISTER for every device. */
int ds_devices_init(void)
{
	return register_netdevice_notifier(&ds_dev_nb);
}

/* After the probe is detached: nobody looks up any more. */
void ds_devices_exit(void)
{
	struct ds_devtab *t;

	unregister_netdevice_notifier(&ds_dev_nb);
	rtnl_lock();
	t = rtnl_dereference(ds_devtab);
	RCU_INIT_POINTER(ds_devtab, NULL);
	rtnl_unlock();
	synchronize_rcu();
	kvfree(t);
}
