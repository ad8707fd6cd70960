// SPDX-License-Identifier: GPL-2.0
/*
 * Alert rounds. Every interval the worker folds the per-CPU counters and,
 * when something changed, multicasts the sites that changed, as many per
 * message as fit. Messages are built here, in process context, never in
 * the drop path.
 */

#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/sort.h>
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

/*
 * An alert skb holds one message, starting at skb->data. The rate cap
 * holds back what exceeds it in the current second, and counts it.
 */
static void ds_alert_send(struct sk_buff *skb)
{
	if (ds.ratelimit) {
		if (time_after_eq(jiffies, ds.rl_window + HZ)) {
			ds.rl_window = jiffies;
			ds.rl_sent = 0;
		}
		if (ds.rl_sent >= ds.ratelimit) {
			nlmsg_free(skb);
			ds.ratelimited++;
			return;
		}
		ds.rl_sent++;
	}
	nlmsg_end(skb, nlmsg_hdr(skb));
	ds.alerts_sent++;
	if (ds_nl_alert_multicast(skb) == -ENOBUFS)
		ds.alerts_lost++;
}

static void ds_site_settle(struct ds_site *site)
{
	site->alerted = site->total;
	list_del_init(&site->dirty);
}

static u64 ds_site_delta(const struct ds_site *site)
{
	return site->total - site->alerted;
}

/* sort(): largest delta first */
static int ds_delta_cmp(const void *a, const void *b)
{
	u64 x = ds_site_delta(*(struct ds_site * const *)a);
	u64 y = ds_site_delta(*(struct ds_site * const *)b);

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * The sites of this round: those whose delta reached the threshold (the
 * others stay due), the top ones only when there is a cap (the others are
 * settled, and counted as suppressed). Returns how many, in *out.
 */
static u32 ds_alert_pick(struct ds_site ***out)
{
	u32 n = 0, i = 0, threshold = max(ds.threshold, 1U);
	struct ds_site *site, **v;

	list_for_each_entry(site, &ds.dirty, dirty)
		n += ds_site_delta(site) >= threshold;
	*out = NULL;
	if (!n)
		return 0;
	v = kmalloc_array(n, sizeof(*v), GFP_KERNEL);
	if (!v) {
		/* no room to choose: this round is lost, and counted */
		ds.alerts_lost++;
		return 0;
	}
	list_for_each_entry(site, &ds.dirty, dirty)
		if (ds_site_delta(site) >= threshold)
			v[i++] = site;
	if (ds.top && n > ds.top) {
		sort(v, n, sizeof(*v), ds_delta_cmp, NULL);
		for (i = ds.top; i < n; i++)
			ds_site_settle(v[i]);
		ds.top_suppressed += n - ds.top;
		n = ds.top;
	}
	*out = v;
	return n;
}

/*
 * Send one round. A message that cannot be allocated, or a site too large
 * for an empty message, is counted as a lost alert. Called with ds_lock
 * held.
 */
void ds_alert_round(void)
{
	u64 overflow = ds.overflow - ds.overflow_alerted;
	struct ds_site *site, *tmp, **v;
	struct sk_buff *skb;
	u64 round;
	u32 n, i;

	lockdep_assert_held(&ds_lock);
	if (list_empty(&ds.dirty) && !overflow)
		return;
	if (!ds_nl_has_listeners()) {
		/* nobody listens: the next round only carries what is new */
		list_for_each_entry_safe(site, tmp, &ds.dirty, dirty)
			ds_site_settle(site);
		ds.overflow_alerted = ds.overflow;
		return;
	}
	n = ds_alert_pick(&v);
	if (!n && !overflow)
		return;

	round = ++ds.rounds;
	ds.overflow_alerted = ds.overflow;
	skb = ds_alert_new(round, overflow);
	for (i = 0; i < n; i++) {
		site = v[i];
		if (!skb || ds_nl_put_site(skb, site, true)) {
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
		ds_site_settle(site);
	}
	kfree(v);
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
}

void ds_alert_schedule(void)
{
	mod_delayed_work(system_wq, &ds.work, msecs_to_jiffies(ds.interval_ms));
}
