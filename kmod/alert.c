// SPDX-License-Identifier: GPL-2.0
/*
 * Alert rounds and alert control. Every interval, monitor.c folds every
 * source of events and builds one round: each source puts what changed
 * since the last round, and the round packs it into as many
 * DROPSCOPE_CMD_ALERT messages as it takes, the last one marked. Messages
 * are built here, in process context under ds_lock, never in a probe.
 */

#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/genetlink.h>

#include <uapi/linux/dropscope.h>

#include "dropscope.h"

/* Alert control and its statistics; all of it under ds_lock. */
static struct {
	struct ds_alert_config cfg;
	unsigned long rl_window;	/* jiffies the ratelimit second began */
	u32 rl_sent;			/* messages sent in that second */
	u64 rounds;
	u64 sent;
	u64 lost;
	u64 top_suppressed;
	u64 ratelimited;
} al;

/* Start the round's next message; NULL when out of memory. */
static struct sk_buff *ds_round_new(struct ds_round *r)
{
	struct sk_buff *skb;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	r->hdr = ds_family_alert_put(skb);
	if (!r->hdr ||
	    nla_put_u64_64bit(skb, DROPSCOPE_A_ROUND, r->id, DROPSCOPE_A_PAD)) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/*
 * Send the round's message. The rate cap holds back what exceeds it in
 * the current second, and counts it.
 */
static void ds_round_send(struct ds_round *r)
{
	struct sk_buff *skb = r->skb;

	r->skb = NULL;
	if (al.cfg.ratelimit) {
		if (time_after_eq(jiffies, al.rl_window + HZ)) {
			al.rl_window = jiffies;
			al.rl_sent = 0;
		}
		if (al.rl_sent >= al.cfg.ratelimit) {
			nlmsg_free(skb);
			al.ratelimited++;
			return;
		}
		al.rl_sent++;
	}
	genlmsg_end(skb, r->hdr);
	al.sent++;
	if (ds_family_multicast(skb) == -ENOBUFS)
		al.lost++;
}

/* Begin a round; it sends nothing until something is put into it. */
void ds_round_begin(struct ds_round *r)
{
	lockdep_assert_held(&ds_lock);
	r->muted = !ds_family_has_listeners();
	r->id = 0;
	r->skb = NULL;
	r->hdr = NULL;
}

bool ds_round_muted(const struct ds_round *r)
{
	return r->muted;
}

/* A message of the round could not be allocated or filled: count it. */
void ds_round_lost(struct ds_round *r)
{
	al.lost++;
}

/*
 * Put one item into the round (put() adds its attributes to skb, or
 * fails with -EMSGSIZE): into the current message, else into a new one.
 * An item that fits no message, or finds no memory, is counted as a lost
 * alert.
 */
int ds_round_put(struct ds_round *r,
		 int (*put)(struct sk_buff *skb, const void *item),
		 const void *item)
{
	lockdep_assert_held(&ds_lock);
	if (r->muted)
		return 0;
	if (!r->id)
		r->id = ++al.rounds;
	if (r->skb && !put(r->skb, item))
		return 0;
	/* this message is full, or there is none yet */
	if (r->skb)
		ds_round_send(r);
	r->skb = ds_round_new(r);
	if (r->skb && !put(r->skb, item))
		return 0;
	if (r->skb)
		nlmsg_free(r->skb);
	r->skb = NULL;
	ds_round_lost(r);
	return -ENOMEM;
}

static int ds_put_u64_item(struct sk_buff *skb, const void *item)
{
	const u64 *a = item;

	return nla_put_u64_64bit(skb, a[0], a[1], DROPSCOPE_A_PAD);
}

/* Put one top-level u64 attribute into the round. */
int ds_round_put_u64(struct ds_round *r, int attrtype, u64 value)
{
	u64 a[2] = { attrtype, value };

	return ds_round_put(r, ds_put_u64_item, a);
}

static int ds_put_end(struct sk_buff *skb, const void *item)
{
	return nla_put_flag(skb, DROPSCOPE_A_ROUND_END);
}

/* Mark the round's last message and send it. */
void ds_round_end(struct ds_round *r)
{
	lockdep_assert_held(&ds_lock);
	if (!r->id)
		return;		/* nothing was put: no round */
	if (!ds_round_put(r, ds_put_end, NULL))
		ds_round_send(r);
}

/* sort_r(): largest delta first; priv is the delta function */
static int ds_delta_cmp(const void *a, const void *b, const void *priv)
{
	u64 (*delta)(const void *item) = priv;
	u64 x = delta(*(void * const *)a);
	u64 y = delta(*(void * const *)b);

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * Alert control over the n changed items of a source: moves to the front
 * of items those whose delta reached the threshold (*due of them; the
 * others stay due for a later round) and, under a top-N cap, sorts them
 * largest delta first. Returns how many of them go into the round; the
 * rest of the due ones are counted as suppressed. The caller settles all
 * *due of them.
 */
u32 ds_round_pick(struct ds_round *r, void **items, u32 n,
		  u64 (*delta)(const void *item), u32 *due)
{
	u32 threshold = max(al.cfg.threshold, 1U), i, d = 0;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < n; i++) {
		if (delta(items[i]) >= threshold) {
			swap(items[d], items[i]);
			d++;
		}
	}
	*due = d;
	if (!al.cfg.top || d <= al.cfg.top)
		return d;
	sort_r(items, d, sizeof(*items), ds_delta_cmp, NULL, delta);
	al.top_suppressed += d - al.cfg.top;
	return al.cfg.top;
}

void ds_alert_get_config(struct ds_alert_config *cfg)
{
	lockdep_assert_held(&ds_lock);
	*cfg = al.cfg;
}

/* Set what is given (not NULL); the policy checked every value. */
void ds_alert_set_config(const u32 *threshold, const u32 *top,
			 const u32 *ratelimit)
{
	lockdep_assert_held(&ds_lock);
	if (threshold)
		al.cfg.threshold = *threshold;
	if (top)
		al.cfg.top = *top;
	if (ratelimit)
		al.cfg.ratelimit = *ratelimit;
}

void ds_alert_stats(struct ds_stats *st)
{
	lockdep_assert_held(&ds_lock);
	st->rounds = al.rounds;
	st->alerts_sent = al.sent;
	st->alerts_lost = al.lost;
	st->top_suppressed = al.top_suppressed;
	st->ratelimited = al.ratelimited;
}

void ds_alert_reset(void)
{
	lockdep_assert_held(&ds_lock);
	al.rounds = 0;
	al.sent = 0;
	al.lost = 0;
	al.top_suppressed = 0;
	al.ratelimited = 0;
}
