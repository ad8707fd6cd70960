// SPDX-License-Identifier: GPL-2.0
/*
 * Alert rounds. Every interval the worker folds the per-CPU counters and,
 * when something changed, multicasts the sites that changed, as many per
 * message as fit. Messages are built here, in process context, never in
 * the drop path.
 */

#include <linux/jiffies.h>
#include <net/genetlink.h>

#include <uapi/linux/dropscope.h>

#include "dropscope.h"

/* Start an alert message of round @round; NULL when out of memory. */
static struct sk_buff *ds_alert_new(u64 round, u64 overflow)
{
	struct sk_buff *skb;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	if (!ds_nl_alert_put(skb) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_A_ROUND, round, DROPSCOPE_A_PAD) ||
	    (overflow && nla_put_u64_64bit(skb, DROPSCOPE_A_OVERFLOW_DELTA,
					   overflow, DROPSCOPE_A_PAD))) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/* An alert skb holds one message, starting at skb->data. */
static void ds_alert_send(struct sk_buff *skb)
{
	nlmsg_end(skb, nlmsg_hdr(skb));
	ds.alerts_sent++;
	if (ds_nl_alert_multicast(skb) == -ENOBUFS)
		ds.alerts_lost++;
}

/* Mark everything as alerted: the next round only carries what is new. */
static void ds_alert_settle(void)
{
	struct ds_site *site, *tmp;

	list_for_each_entry_safe(site, tmp, &ds.dirty, dirty) {
		site->alerted = site->total;
		list_del_init(&site->dirty);
	}
	ds.overflow_alerted = ds.overflow;
}

/*
 * Send one round with every site on ds.dirty. A message that cannot be
 * allocated, or a site too large for an empty message, is counted as a
 * lost alert. Called with ds_lock held.
 */
void ds_alert_round(void)
{
	u64 overflow = ds.overflow - ds.overflow_alerted;
	struct ds_site *site;
	struct sk_buff *skb;
	u64 round;

	lockdep_assert_held(&ds_lock);
	if (list_empty(&ds.dirty) && !overflow)
		return;
	if (!ds_nl_has_listeners())
		goto out;

	round = ++ds.rounds;
	skb = ds_alert_new(round, overflow);
	list_for_each_entry(site, &ds.dirty, dirty) {
		if (skb && !ds_nl_put_site(skb, site, true))
			continue;
		/* this message is full, or was never allocated */
		if (skb)
			ds_alert_send(skb);
		skb = ds_alert_new(round, 0);
		if (skb && ds_nl_put_site(skb, site, true)) {
			nlmsg_free(skb);
			skb = NULL;
		}
		if (!skb)
			ds.alerts_lost++;
	}
	if (skb && nla_put_flag(skb, DROPSCOPE_A_ROUND_END)) {
		/* no room left for the end mark: it goes alone */
		ds_alert_send(skb);
		skb = ds_alert_new(round, 0);
		if (skb && nla_put_flag(skb, DROPSCOPE_A_ROUND_END)) {
			nlmsg_free(skb);
			skb = NULL;
		}
	}
	if (skb)
		ds_alert_send(skb);
	else
		ds.alerts_lost++;
out:
	ds_alert_settle();
}

void ds_alert_schedule(void)
{
	mod_delayed_work(system_wq, &ds.work, msecs_to_jiffies(ds.interval_ms));
}
