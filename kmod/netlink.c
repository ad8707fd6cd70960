// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family: commands, dumps and the alert group. The
 * protocol is documented in include/uapi/linux/dropscope.h.
 */

#include <linux/module.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/dropscope.h>

#include "compat.h"
#include "dropscope.h"
#include "family.h"

/*
 * NLA_POLICY_RANGE() holds s16 bounds only: 60000 needs the full range.
 * Not const: 6.1 declares the policy pointer without it.
 */
static struct netlink_range_validation ds_interval_range = {
	.min = DROPSCOPE_INTERVAL_MIN_MS,
	.max = DROPSCOPE_INTERVAL_MAX_MS,
};

static struct netlink_range_validation ds_ratelimit_range = {
	.max = 1000000,
};

static const struct nla_policy ds_config_policy[DROPSCOPE_A_MAX + 1] = {
	[DROPSCOPE_A_INTERVAL_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &ds_interval_range),
	[DROPSCOPE_A_THRESHOLD] = { .type = NLA_U32 },
	[DROPSCOPE_A_TOP] = { .type = NLA_U32 },
	[DROPSCOPE_A_RATELIMIT] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &ds_ratelimit_range),
	[DROPSCOPE_A_SESS_EVENTS] =
		NLA_POLICY_MASK(NLA_U32, DROPSCOPE_SESS_EVENTS_ALL),
};

static const struct nla_policy ds_start_policy[DROPSCOPE_A_MAX + 1] = {
	[DROPSCOPE_A_PARTS] = NLA_POLICY_MASK(NLA_U32, DROPSCOPE_PARTS_ALL),
};

static const struct nla_policy ds_run_start_policy[DROPSCOPE_A_MAX + 1] = {
	[DROPSCOPE_A_RUN_CGROUP] = NLA_POLICY_MIN(NLA_U64, 1),
};

static const struct nla_policy ds_run_stop_policy[DROPSCOPE_A_MAX + 1] = {
	[DROPSCOPE_A_RUN] = NLA_POLICY_RANGE(NLA_U32, 1, DROPSCOPE_MAX_RUNS),
};

static const struct nla_policy ds_run_netns_policy[DROPSCOPE_A_MAX + 1] = {
	[DROPSCOPE_A_NETNS_FD] = { .type = NLA_U32 },
};

static const struct nla_policy ds_rule_policy[DROPSCOPE_RULE_A_MAX + 1] = {
	[DROPSCOPE_RULE_A_ID] = { .type = NLA_U32 },
	[DROPSCOPE_RULE_A_MODE] = NLA_POLICY_MAX(NLA_U8, DROPSCOPE_RULE_ONLY),
	[DROPSCOPE_RULE_A_LOC_START] = { .type = NLA_U64 },
	[DROPSCOPE_RULE_A_LOC_END] = { .type = NLA_U64 },
	[DROPSCOPE_RULE_A_REASON] = { .type = NLA_U32 },
	[DROPSCOPE_RULE_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[DROPSCOPE_RULE_A_NETNS] = NLA_POLICY_MIN(NLA_U32, 1),
	[DROPSCOPE_RULE_A_L3] = { .type = NLA_U16 },
	[DROPSCOPE_RULE_A_L4] = { .type = NLA_U8 },
	[DROPSCOPE_RULE_A_SMC_REASON] = NLA_POLICY_MIN(NLA_U32, 1),
	[DROPSCOPE_RULE_A_LAYER] = NLA_POLICY_MAX(NLA_U8, DROPSCOPE_LAYER_QDISC),
	[DROPSCOPE_RULE_A_TRAP] = { .type = NLA_NUL_STRING,
				    .len = DROPSCOPE_TRAP_NAME_MAX },
	[DROPSCOPE_RULE_A_TRAP_GROUP] = { .type = NLA_NUL_STRING,
					  .len = DROPSCOPE_TRAP_NAME_MAX },
	[DROPSCOPE_RULE_A_DEV_COUNTER] =
		NLA_POLICY_MAX(NLA_U8, DROPSCOPE_DEV_COUNTERS - 1),
	[DROPSCOPE_RULE_A_QDISC_KIND] = { .type = NLA_NUL_STRING,
					  .len = DROPSCOPE_QDISC_KIND_MAX },
};

static const struct nla_policy ds_rule_cmd_policy[DROPSCOPE_A_MAX + 1] = {
	[DROPSCOPE_A_RULE] = NLA_POLICY_NESTED(ds_rule_policy),
};

/* beyond what NLA_POLICY_RANGE holds (s16) */
static struct netlink_range_validation ds_snaplen_range = {
	.min = 1, .max = 65535,
};

static const struct nla_policy
ds_capture_policy[DROPSCOPE_CAPTURE_A_MAX + 1] = {
	[DROPSCOPE_CAPTURE_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DROPSCOPE_CAPTURE_A_FILTER] = { .type = NLA_BINARY },
	[DROPSCOPE_CAPTURE_A_SNAPLEN] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &ds_snaplen_range),
	[DROPSCOPE_CAPTURE_A_ALL] = { .type = NLA_FLAG },
	[DROPSCOPE_CAPTURE_A_RUN] =
		NLA_POLICY_RANGE(NLA_U32, 1, DROPSCOPE_MAX_RUNS),
	[DROPSCOPE_CAPTURE_A_PER_KEY] = NLA_POLICY_RANGE(NLA_U32, 1, 1024),
};

static const struct nla_policy ds_capture_req_policy[DROPSCOPE_A_MAX + 1] = {
	[DROPSCOPE_A_RULE] = NLA_POLICY_NESTED(ds_rule_policy),
	[DROPSCOPE_A_CAPTURE] = NLA_POLICY_NESTED(ds_capture_policy),
};

static const struct nla_policy ds_stacks_policy[DROPSCOPE_A_MAX + 1] = {
	[DROPSCOPE_A_STACKS] = NLA_POLICY_MAX(NLA_U8, 1),
	[DROPSCOPE_A_RULE] = NLA_POLICY_NESTED(ds_rule_policy),
};

static const struct nla_policy ds_capture_stop_policy[DROPSCOPE_A_MAX + 1] = {
	[DROPSCOPE_A_CAPTURE] = NLA_POLICY_NESTED(ds_capture_policy),
};

/* Without DROPSCOPE_A_PARTS, every part starts. */
static int ds_cmd_start(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[DROPSCOPE_A_PARTS];
	u32 parts = DROPSCOPE_PARTS_ALL;
	int err;

	if (a) {
		parts = nla_get_u32(a);
		if (!parts) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "no part to start");
			return -EINVAL;
		}
	}
	err = ds_start(parts, info->extack);
	if (!err)
		ds_runs_unhold();
	return err;
}

static int ds_cmd_stop(struct sk_buff *skb, struct genl_info *info)
{
	int err = ds_stop(info->extack);

	if (!err)
		ds_runs_unhold();
	return err;
}

static int ds_cmd_reset(struct sk_buff *skb, struct genl_info *info)
{
	ds_reset();
	return 0;
}

/*
 * Build a reply to info of size bytes of attributes and send it; fill puts
 * the attributes of arg.
 */
static int ds_reply(struct genl_info *info, u8 cmd, size_t size,
		    int (*fill)(struct sk_buff *skb, const void *arg),
		    const void *arg)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &ds_family, 0, cmd);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err;
	}
	err = fill(msg, arg);
	if (err)
		goto err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err:
	nlmsg_free(msg);
	return err;
}

static int ds_put_rule(struct sk_buff *skb, const void *arg);

static int ds_fill_config(struct sk_buff *msg, const void *arg)
{
	const struct ds_rule *stacks_rule;
	struct ds_alert_config cfg;

	ds_alert_get_config(&cfg);
	if (nla_put_u8(msg, DROPSCOPE_A_RUNNING, ds_running()) ||
	    nla_put_u32(msg, DROPSCOPE_A_INTERVAL_MS, ds_interval_ms()) ||
	    nla_put_u32(msg, DROPSCOPE_A_CAPACITY, ds_capacity) ||
	    nla_put_u32(msg, DROPSCOPE_A_THRESHOLD, cfg.threshold) ||
	    nla_put_u32(msg, DROPSCOPE_A_TOP, cfg.top) ||
	    nla_put_u32(msg, DROPSCOPE_A_RATELIMIT, cfg.ratelimit) ||
	    nla_put_u32(msg, DROPSCOPE_A_RULES, ds_rules_count()) ||
	    nla_put_u32(msg, DROPSCOPE_A_PARTS, ds_running_parts()) ||
	    nla_put_u32(msg, DROPSCOPE_A_SESSIONS_CAPACITY, ds_sessions_cap) ||
	    nla_put_u32(msg, DROPSCOPE_A_CLOSED_CAPACITY, ds_closed_cap) ||
	    nla_put_u32(msg, DROPSCOPE_A_RUNS, ds_runs_count()) ||
	    nla_put_u32(msg, DROPSCOPE_A_STACKS_CAPACITY, ds_stacks_cap) ||
	    nla_put_u32(msg, DROPSCOPE_A_TRAPS_CAPACITY, ds_hw_cap) ||
	    nla_put_u32(msg, DROPSCOPE_A_QDISCS_CAPACITY, ds_qdiscs_cap) ||
	    nla_put_u32(msg, DROPSCOPE_A_PARTS_ABSENT, ds_parts_absent()) ||
	    nla_put_u32(msg, DROPSCOPE_A_SESS_EVENTS, ds_sess_events_mask()) ||
	    nla_put_u8(msg, DROPSCOPE_A_STACKS, ds_stacks_on(&stacks_rule)) ||
	    (ds_stacks_on(&stacks_rule) && stacks_rule->match &&
	     ds_put_rule(msg, stacks_rule)))
		return -EMSGSIZE;
	return 0;
}

static int ds_cmd_config_get(struct sk_buff *skb, struct genl_info *info)
{
	return ds_reply(info, DROPSCOPE_CMD_CONFIG_GET, NLMSG_GOODSIZE,
			ds_fill_config, NULL);
}

static int ds_fill_run(struct sk_buff *msg, const void *arg)
{
	return nla_put_u32(msg, DROPSCOPE_A_RUN, *(const u32 *)arg);
}

static int ds_cmd_run_start(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[DROPSCOPE_A_RUN_CGROUP];
	int id, err;

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "run: give the cgroup's id");
		return -EINVAL;
	}
	id = ds_run_start(nla_get_u64(a), info->snd_portid,
			  genl_info_net(info), info->extack);
	if (id < 0) {
		NL_SET_BAD_ATTR(info->extack, a);
		return id;
	}
	err = ds_reply(info, DROPSCOPE_CMD_RUN_START, nla_total_size(4),
		       ds_fill_run, &(u32){ id });
	if (err)
		ds_run_stop(id, info->snd_portid, genl_info_net(info), NULL);
	return err;
}

static int ds_cmd_run_stop(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[DROPSCOPE_A_RUN];

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "run: give the run's id");
		return -EINVAL;
	}
	return ds_run_stop(nla_get_u32(a), info->snd_portid,
			   genl_info_net(info), info->extack);
}

static int ds_fill_run_netns(struct sk_buff *msg, const void *arg)
{
	const u32 *v = arg;

	return nla_put_u32(msg, DROPSCOPE_A_RUN, v[0]) ||
	       nla_put_u32(msg, DROPSCOPE_A_NETNS, v[1]) ? -EMSGSIZE : 0;
}

/* The run of the netns of a file descriptor of the sender's. */
static int ds_cmd_run_netns_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[DROPSCOPE_A_NETNS_FD];
	struct net *net;
	u32 v[2];

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "give a network namespace's fd");
		return -EINVAL;
	}
	net = get_net_ns_by_fd(nla_get_u32(a));
	if (IS_ERR(net)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "not the fd of a network namespace");
		return PTR_ERR(net);
	}
	v[0] = ds_netns_run(net);
	v[1] = net->ns.inum;
	put_net(net);
	return ds_reply(info, DROPSCOPE_CMD_RUN_NETNS_GET,
			2 * nla_total_size(4), ds_fill_run_netns, v);
}

/* The u32 value of attribute type in a, or NULL when absent. */
static const u32 *ds_get_u32(struct nlattr **a, int type, u32 *buf)
{
	if (!a[type])
		return NULL;
	*buf = nla_get_u32(a[type]);
	return buf;
}

static int ds_cmd_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	u32 v[4];
	int err;

	if (!a[DROPSCOPE_A_INTERVAL_MS] && !a[DROPSCOPE_A_THRESHOLD] &&
	    !a[DROPSCOPE_A_TOP] && !a[DROPSCOPE_A_RATELIMIT] &&
	    !a[DROPSCOPE_A_SESS_EVENTS]) {
		NL_SET_ERR_MSG(info->extack,
			       "no configuration attribute given");
		return -EINVAL;
	}
	/* the ones that can fail come first: then nothing else is set */
	if (a[DROPSCOPE_A_SESS_EVENTS]) {
		err = ds_sess_events_set(genl_info_net(info), info->snd_portid,
					 nla_get_u32(a[DROPSCOPE_A_SESS_EVENTS]),
					 info->extack);
		if (err) {
			NL_SET_BAD_ATTR(info->extack,
					a[DROPSCOPE_A_SESS_EVENTS]);
			return err;
		}
	}
	/* the policy checked every value: nothing below can fail */
	ds_alert_set_config(ds_get_u32(a, DROPSCOPE_A_THRESHOLD, &v[0]),
			    ds_get_u32(a, DROPSCOPE_A_TOP, &v[1]),
			    ds_get_u32(a, DROPSCOPE_A_RATELIMIT, &v[2]));
	if (ds_get_u32(a, DROPSCOPE_A_INTERVAL_MS, &v[3]))
		ds_set_interval_ms(v[3]);
	return 0;
}

static int ds_fill_stats(struct sk_buff *msg, const void *arg)
{
	struct ds_stacks_stats sk;
	struct ds_qdisc_stats qs;
	struct ds_trap_stats ts;
	struct ds_sess_stats ss;
	u64 devctrs, devlost;
	struct ds_stats st;
	struct nlattr *nest;

	ds_hw_stats(&ts);
	ds_qdiscs_stats(&qs);
	ds_devctrs_stats(&devctrs, &devlost);
	ds_sessions_stats(&ss);
	ds_stacks_stats(&sk);
	ds_drops_stats(&st);
	ds_alert_stats(&st);
	nest = nla_nest_start(msg, DROPSCOPE_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_EVENTS, st.events,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SITES, st.sites,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_OVERFLOW, st.overflow,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_ROUNDS, st.rounds,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_ALERTS_SENT,
			      st.alerts_sent, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_ALERTS_LOST,
			      st.alerts_lost, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_FOLDS, st.folds,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_ALLOC_FAILS,
			      st.alloc_fails + ts.alloc_fails + qs.alloc_fails,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SHOWN, st.shown,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_MASKED, st.masked,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_TOP_SUPPRESSED,
			      st.top_suppressed, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_RATELIMITED,
			      st.ratelimited, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SESSIONS_OPENED,
			      ss.opened, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SESSIONS_CLOSED,
			      ss.closed, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SESSIONS_LIVE,
			      ss.live, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SESSIONS_OVERFLOW,
			      ss.overflow, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SESSIONS_UNREAD,
			      ss.unread, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SESSIONS_STALE,
			      ss.stale, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SESSIONS_DROPS_MASKED,
			      ss.drops_masked, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_EPOCH, ds_epoch(),
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_STACKS, sk.stacks,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_STACKS_LOST, sk.lost,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_STACKS_SITELESS,
			      sk.siteless, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SESSIONS_FOUND,
			      ss.found, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SESS_EVENTS,
			      ss.events, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_TRAP_EVENTS, ts.events,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_TRAPS, ts.traps,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_TRAPS_OVERFLOW,
			      ts.overflow, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_DEVCTRS, devctrs,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_DEVCTRS_LOST, devlost,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_STACKS_WALKED, sk.walked,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_SESS_EVENTS_LOST,
			      ss.events_lost, DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_QDISC_EVENTS, qs.events,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_QDISCS, qs.keys,
			      DROPSCOPE_STATS_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_STATS_A_QDISCS_OVERFLOW,
			      qs.overflow, DROPSCOPE_STATS_A_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ds_fill_source(struct sk_buff *msg, const void *src)
{
	return ((const struct ds_source *)src)->fill(msg);
}

static int ds_cmd_smc_get(struct sk_buff *skb, struct genl_info *info)
{
	const struct ds_source *src = ds_source(DROPSCOPE_PART_SMC);

	ds_fold_all();
	return ds_reply(info, DROPSCOPE_CMD_SMC_GET, src->size(),
			ds_fill_source, src);
}

static int ds_cmd_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	ds_fold_all();
	return ds_reply(info, DROPSCOPE_CMD_STATS_GET, NLMSG_GOODSIZE,
			ds_fill_stats, NULL);
}

/*
 * Dump an array that lives under ds_lock (sites, rules), one message per
 * element. cb->args[0] is the next index; cb->args[1] is set once the
 * per-CPU counters were folded for this dump; a change of *gen between
 * two parts flags the dump as interrupted.
 */
static int ds_dump_array(struct sk_buff *skb, struct netlink_callback *cb,
			 u8 cmd, const u32 *gen, u32 (*count)(void),
			 int (*put)(struct sk_buff *skb, u32 i))
{
	void *hdr;
	u32 i;

	mutex_lock(&ds_lock);
	if (!cb->args[1]) {
		ds_fold_all();
		cb->args[1] = 1;
	}
	cb->seq = *gen;
	for (i = cb->args[0]; i < count(); i++) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ds_family, NLM_F_MULTI,
				  cmd);
		if (!hdr)
			break;
		nl_dump_check_consistent(cb, nlmsg_hdr(skb));
		if (put(skb, i)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = i;
	mutex_unlock(&ds_lock);
	return skb->len;
}

static int ds_put_site_i(struct sk_buff *skb, u32 i)
{
	return ds_site_put(skb, ds_site_at(i), false);
}

static int ds_dump_sites(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ds_dump_array(skb, cb, DROPSCOPE_CMD_SITES_GET,
			     ds_sites_generation(), ds_sites_count,
			     ds_put_site_i);
}

static int ds_put_trap_i(struct sk_buff *skb, u32 i)
{
	return ds_trap_put(skb, ds_trap_at(i), false);
}

static int ds_dump_traps(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ds_dump_array(skb, cb, DROPSCOPE_CMD_TRAPS_GET,
			     ds_hw_generation(), ds_hw_count,
			     ds_put_trap_i);
}

static int ds_put_qdisc_i(struct sk_buff *skb, u32 i)
{
	return ds_qdisc_put(skb, ds_qdisc_at(i), false);
}

static int ds_dump_qdiscs(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ds_dump_array(skb, cb, DROPSCOPE_CMD_QDISCS_GET,
			     ds_qdiscs_generation(), ds_qdiscs_count,
			     ds_put_qdisc_i);
}

static int ds_put_devctr_i(struct sk_buff *skb, u32 i)
{
	return ds_devctr_put(skb, ds_devctr_at(i), false);
}

static int ds_dump_devctrs(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ds_dump_array(skb, cb, DROPSCOPE_CMD_DEVCTRS_GET,
			     ds_devctrs_generation(), ds_devctrs_count,
			     ds_put_devctr_i);
}

/* Reasons dump: cb->args[0] is the reason cursor of ds_reason_next(). */
static int ds_dump_reasons(struct sk_buff *skb, struct netlink_callback *cb)
{
	u32 cursor = cb->args[0], next, id;
	struct nlattr *nest;
	char name[64];
	void *hdr;

	for (next = cursor;
	     !ds_reason_next(&next, &id, name, sizeof(name));
	     cursor = next) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ds_family, NLM_F_MULTI,
				  DROPSCOPE_CMD_REASONS_GET);
		if (!hdr)
			break;
		nest = nla_nest_start(skb, DROPSCOPE_A_REASON);
		if (!nest || nla_put_u32(skb, DROPSCOPE_REASON_A_ID, id) ||
		    nla_put_string(skb, DROPSCOPE_REASON_A_NAME, name)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		nla_nest_end(skb, nest);
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = cursor;
	return skb->len;
}

/*
 * Sessions dumps, one message per session: live ones with their counters
 * read from the socket as the dump reaches them (cb->args[0] is the next
 * table index), or the closes still in the ring (cb->args[0] is the next
 * sequence number).
 */
static int ds_dump_sess(struct sk_buff *skb, struct netlink_callback *cb,
			bool closed)
{
	struct ds_sess_info info;
	u64 cur = cb->args[0], at;
	u32 live;
	void *hdr;
	int err;

	mutex_lock(&ds_lock);
	for (;;) {
		at = cur;
		if (closed) {
			err = ds_sess_closed_next(&cur, &info);
		} else {
			live = cur;
			err = ds_sess_live_next(&live, &info);
			cur = live;
		}
		if (err)
			break;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ds_family, NLM_F_MULTI,
				  closed ? DROPSCOPE_CMD_CLOSED_GET :
					   DROPSCOPE_CMD_SESSIONS_GET);
		if (!hdr) {
			cur = at;
			break;
		}
		if (ds_sess_put(skb, &info)) {
			genlmsg_cancel(skb, hdr);
			cur = at;
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = cur;
	mutex_unlock(&ds_lock);
	return skb->len;
}

static int ds_dump_sessions(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ds_dump_sess(skb, cb, false);
}

static int ds_dump_closed(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ds_dump_sess(skb, cb, true);
}

static int ds_put_rule(struct sk_buff *skb, const void *arg)
{
	const struct ds_rule *r = arg;
	struct nlattr *nest = nla_nest_start(skb, DROPSCOPE_A_RULE);

	if (!nest ||
	    nla_put_u32(skb, DROPSCOPE_RULE_A_ID, r->id) ||
	    nla_put_u8(skb, DROPSCOPE_RULE_A_MODE, r->mode) ||
	    ((r->match & DS_M_LOC) &&
	     (nla_put_u64_64bit(skb, DROPSCOPE_RULE_A_LOC_START, r->start,
				DROPSCOPE_RULE_A_PAD) ||
	      nla_put_u64_64bit(skb, DROPSCOPE_RULE_A_LOC_END, r->end,
				DROPSCOPE_RULE_A_PAD))) ||
	    ((r->match & DS_M_REASON) &&
	     nla_put_u32(skb, DROPSCOPE_RULE_A_REASON, r->reason)) ||
	    ((r->match & DS_M_IFINDEX) &&
	     nla_put_u32(skb, DROPSCOPE_RULE_A_IFINDEX, r->ifindex)) ||
	    ((r->match & DS_M_NETNS) &&
	     nla_put_u32(skb, DROPSCOPE_RULE_A_NETNS, r->netns)) ||
	    ((r->match & DS_M_L3) &&
	     nla_put_u16(skb, DROPSCOPE_RULE_A_L3, r->l3)) ||
	    ((r->match & DS_M_L4) &&
	     nla_put_u8(skb, DROPSCOPE_RULE_A_L4, r->l4)) ||
	    ((r->match & DS_M_SMC) &&
	     nla_put_u32(skb, DROPSCOPE_RULE_A_SMC_REASON, r->smc)) ||
	    ((r->match & DS_M_LAYER) &&
	     nla_put_u8(skb, DROPSCOPE_RULE_A_LAYER, r->layer)) ||
	    ((r->match & DS_M_TRAP) &&
	     nla_put_string(skb, DROPSCOPE_RULE_A_TRAP, r->trap)) ||
	    ((r->match & DS_M_GROUP) &&
	     nla_put_string(skb, DROPSCOPE_RULE_A_TRAP_GROUP, r->group)) ||
	    ((r->match & DS_M_COUNTER) &&
	     nla_put_u8(skb, DROPSCOPE_RULE_A_DEV_COUNTER, r->counter)) ||
	    ((r->match & DS_M_KIND) &&
	     nla_put_string(skb, DROPSCOPE_RULE_A_QDISC_KIND, r->kind)) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_RULE_A_HITS, r->hits,
			      DROPSCOPE_RULE_A_PAD)) {
		if (nest)
			nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* A site range has both ends, or neither. */
static bool ds_rule_range_whole(struct nlattr **tb, struct genl_info *info)
{
	if (!tb[DROPSCOPE_RULE_A_LOC_START] == !tb[DROPSCOPE_RULE_A_LOC_END])
		return true;
	NL_SET_ERR_MSG(info->extack,
		       "site: give both start and end of the range");
	return false;
}

/* The DROPSCOPE_A_RULE nest of a RULE_ADD or RULE_DEL request, parsed. */
static int ds_rule_nest(struct genl_info *info, struct nlattr **tb)
{
	if (!info->attrs[DROPSCOPE_A_RULE]) {
		NL_SET_ERR_MSG(info->extack, "no rule given");
		return -EINVAL;
	}
	return nla_parse_nested(tb, DROPSCOPE_RULE_A_MAX,
				info->attrs[DROPSCOPE_A_RULE], ds_rule_policy,
				info->extack);
}

/* The fields of a rule nest tb into r (a mask rule's, or a capture's). */
static void ds_rule_fields(struct nlattr **tb, struct ds_rule *r)
{
	if (tb[DROPSCOPE_RULE_A_LOC_START]) {
		r->match |= DS_M_LOC;
		r->start = nla_get_u64(tb[DROPSCOPE_RULE_A_LOC_START]);
		r->end = nla_get_u64(tb[DROPSCOPE_RULE_A_LOC_END]);
	}
	if (tb[DROPSCOPE_RULE_A_REASON]) {
		r->match |= DS_M_REASON;
		r->reason = nla_get_u32(tb[DROPSCOPE_RULE_A_REASON]);
	}
	if (tb[DROPSCOPE_RULE_A_IFINDEX]) {
		r->match |= DS_M_IFINDEX;
		r->ifindex = nla_get_u32(tb[DROPSCOPE_RULE_A_IFINDEX]);
	}
	if (tb[DROPSCOPE_RULE_A_NETNS]) {
		r->match |= DS_M_NETNS;
		r->netns = nla_get_u32(tb[DROPSCOPE_RULE_A_NETNS]);
	}
	if (tb[DROPSCOPE_RULE_A_L3]) {
		r->match |= DS_M_L3;
		r->l3 = nla_get_u16(tb[DROPSCOPE_RULE_A_L3]);
	}
	if (tb[DROPSCOPE_RULE_A_L4]) {
		r->match |= DS_M_L4;
		r->l4 = nla_get_u8(tb[DROPSCOPE_RULE_A_L4]);
	}
	if (tb[DROPSCOPE_RULE_A_SMC_REASON]) {
		r->match |= DS_M_SMC;
		r->smc = nla_get_u32(tb[DROPSCOPE_RULE_A_SMC_REASON]);
	}
	/* the layer: given, or that of the trap, group, counter or kind */
	if (tb[DROPSCOPE_RULE_A_TRAP]) {
		r->match |= DS_M_TRAP;
		r->layer = DROPSCOPE_LAYER_HW;
		nla_strscpy(r->trap, tb[DROPSCOPE_RULE_A_TRAP], sizeof(r->trap));
	}
	if (tb[DROPSCOPE_RULE_A_TRAP_GROUP]) {
		r->match |= DS_M_GROUP;
		r->layer = DROPSCOPE_LAYER_HW;
		nla_strscpy(r->group, tb[DROPSCOPE_RULE_A_TRAP_GROUP],
			    sizeof(r->group));
	}
	if (tb[DROPSCOPE_RULE_A_DEV_COUNTER]) {
		r->match |= DS_M_COUNTER;
		r->layer = DROPSCOPE_LAYER_DEV;
		r->counter = nla_get_u8(tb[DROPSCOPE_RULE_A_DEV_COUNTER]);
	}
	if (tb[DROPSCOPE_RULE_A_QDISC_KIND]) {
		r->match |= DS_M_KIND;
		r->layer = DROPSCOPE_LAYER_QDISC;
		nla_strscpy(r->kind, tb[DROPSCOPE_RULE_A_QDISC_KIND],
			    sizeof(r->kind));
	}
	if (tb[DROPSCOPE_RULE_A_LAYER]) {
		r->match |= DS_M_LAYER;
		r->layer = nla_get_u8(tb[DROPSCOPE_RULE_A_LAYER]);
	}
}

static int ds_cmd_rule_add(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DROPSCOPE_RULE_A_MAX + 1];
	struct ds_rule rule = { 0 }, *r = &rule;
	int err;

	err = ds_rule_nest(info, tb);
	if (err)
		return err;
	if (tb[DROPSCOPE_RULE_A_ID]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DROPSCOPE_RULE_A_ID],
				    "the kernel gives rule ids");
		return -EINVAL;
	}
	if (!ds_rule_range_whole(tb, info))
		return -EINVAL;
	if (tb[DROPSCOPE_RULE_A_MODE])
		r->mode = nla_get_u8(tb[DROPSCOPE_RULE_A_MODE]);
	ds_rule_fields(tb, r);
	err = ds_rule_add(r, info, ds_fold_all);
	if (err)
		return err;
	return ds_reply(info, DROPSCOPE_CMD_RULE_ADD, NLMSG_GOODSIZE,
			ds_put_rule, r);
}

static int ds_fill_capture_id(struct sk_buff *msg, const void *id)
{
	struct nlattr *nest = nla_nest_start(msg, DROPSCOPE_A_CAPTURE);

	if (!nest ||
	    nla_put_u32(msg, DROPSCOPE_CAPTURE_A_ID, *(const u32 *)id))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* DROPSCOPE_A_CAPTURE of a request, parsed into tb. */
static int ds_capture_nest(struct genl_info *info, struct nlattr **tb)
{
	if (!info->attrs[DROPSCOPE_A_CAPTURE]) {
		NL_SET_ERR_MSG(info->extack, "capture: no capture nest given");
		return -EINVAL;
	}
	return nla_parse_nested(tb, DROPSCOPE_CAPTURE_A_MAX,
				info->attrs[DROPSCOPE_A_CAPTURE],
				ds_capture_policy, info->extack);
}

/*
 * The optional DROPSCOPE_A_RULE of a capture or of stacks: the fields of a
 * mask rule, without id, mode or SMC reason, into rule (match 0: none).
 */
static int ds_drop_rule(struct genl_info *info, bool stacks,
			struct ds_rule *rule)
{
	struct nlattr *rt[DROPSCOPE_RULE_A_MAX + 1];
	int err;

	if (!info->attrs[DROPSCOPE_A_RULE])
		return 0;
	err = ds_rule_nest(info, rt);
	if (err)
		return err;
	if (rt[DROPSCOPE_RULE_A_ID] || rt[DROPSCOPE_RULE_A_MODE] ||
	    rt[DROPSCOPE_RULE_A_SMC_REASON]) {
		if (stacks)
			NL_SET_ERR_MSG(info->extack,
				       "stacks: the rule takes no id, mode or SMC reason");
		else
			NL_SET_ERR_MSG(info->extack,
				       "capture: its rule takes no id, mode or SMC reason");
		return -EINVAL;
	}
	if (!ds_rule_range_whole(rt, info))
		return -EINVAL;
	ds_rule_fields(rt, rule);
	return ds_rule_validate(rule, info);
}

static int ds_cmd_capture_start(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DROPSCOPE_CAPTURE_A_MAX + 1];
	struct ds_rule rule = { 0 };
	u32 id, tag = 0;
	int err;

	err = ds_capture_nest(info, tb);
	if (err)
		return err;
	if (tb[DROPSCOPE_CAPTURE_A_ID]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DROPSCOPE_CAPTURE_A_ID],
				    "the kernel gives capture ids");
		return -EINVAL;
	}
	err = ds_drop_rule(info, false, &rule);
	if (err)
		return err;
	if (tb[DROPSCOPE_CAPTURE_A_RUN]) {
		/* the run's tag: the capture ends with it, not with its id */
		err = ds_run_tag(nla_get_u32(tb[DROPSCOPE_CAPTURE_A_RUN]),
				 info->extack, &tag);
		if (err)
			return err;
	}
	err = ds_capture_start(tb, rule.match ? &rule : NULL, tag, info, &id);
	if (err)
		return err;
	return ds_reply(info, DROPSCOPE_CMD_CAPTURE, NLMSG_GOODSIZE,
			ds_fill_capture_id, &id);
}

static int ds_cmd_capture_stop(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DROPSCOPE_CAPTURE_A_MAX + 1];
	struct ds_cap *c;
	int err;

	err = ds_capture_nest(info, tb);
	if (err)
		return err;
	if (!tb[DROPSCOPE_CAPTURE_A_ID] || tb[DROPSCOPE_CAPTURE_A_FILTER] ||
	    tb[DROPSCOPE_CAPTURE_A_SNAPLEN] || tb[DROPSCOPE_CAPTURE_A_ALL] ||
	    tb[DROPSCOPE_CAPTURE_A_RUN] || tb[DROPSCOPE_CAPTURE_A_PER_KEY]) {
		NL_SET_ERR_MSG(info->extack,
			       "capture stop: give the capture's id alone");
		return -EINVAL;
	}
	c = ds_capture_stop(nla_get_u32(tb[DROPSCOPE_CAPTURE_A_ID]),
			    info->snd_portid, info->extack);
	if (IS_ERR(c))
		return PTR_ERR(c);
	err = ds_reply(info, DROPSCOPE_CMD_CAPTURE, NLMSG_GOODSIZE,
		       ds_capture_fill, c);
	ds_capture_free(c);
	return err;
}

static int ds_cmd_stacks_set(struct sk_buff *skb, struct genl_info *info)
{
	struct ds_rule rule = { 0 };
	bool on;
	int err;

	if (!info->attrs[DROPSCOPE_A_STACKS]) {
		NL_SET_ERR_MSG(info->extack, "stacks: say on (1) or off (0)");
		return -EINVAL;
	}
	on = nla_get_u8(info->attrs[DROPSCOPE_A_STACKS]);
	if (!on && info->attrs[DROPSCOPE_A_RULE]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[DROPSCOPE_A_RULE],
				    "stacks: a rule goes with on only");
		return -EINVAL;
	}
	err = ds_drop_rule(info, true, &rule);
	if (err)
		return err;
	return ds_stacks_set(on, rule.match ? &rule : NULL, info->extack);
}

static int ds_cmd_stacks_clear(struct sk_buff *skb, struct genl_info *info)
{
	ds_stacks_clear();
	return 0;
}

/* Stacks dump: folded first, as sites are. */
static int ds_dump_stacks(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ds_dump_array(skb, cb, DROPSCOPE_CMD_STACKS_GET,
			     ds_stacks_generation(), ds_stacks_count,
			     ds_stack_put);
}

static int ds_cmd_rule_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DROPSCOPE_RULE_A_MAX + 1];
	int err;

	err = ds_rule_nest(info, tb);
	if (err)
		return err;
	if (!tb[DROPSCOPE_RULE_A_ID]) {
		NL_SET_ERR_MSG(info->extack, "no rule id given");
		return -EINVAL;
	}
	err = ds_rule_del(nla_get_u32(tb[DROPSCOPE_RULE_A_ID]), ds_fold_all);
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DROPSCOPE_RULE_A_ID],
				    "no rule has this id");
	return err;
}

static int ds_cmd_rule_clear(struct sk_buff *skb, struct genl_info *info)
{
	ds_rules_clear(ds_fold_all);
	return 0;
}

static int ds_put_rule_i(struct sk_buff *skb, u32 i)
{
	return ds_put_rule(skb, ds_rule_at(i));
}

/* Rules dump: hits are folded first. */
static int ds_dump_rules(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ds_dump_array(skb, cb, DROPSCOPE_CMD_RULE_GET,
			     ds_rules_generation(), ds_rules_count,
			     ds_put_rule_i);
}

/*
 * Every command needs CAP_NET_ADMIN in the initial user namespace: dumps
 * carry kernel addresses. Only START, CONFIG_SET, RULE_ADD and RULE_DEL
 * take attributes: the core rejects any attribute sent to an op without a
 * policy (CAPTURE_START and CAPTURE_STOP take theirs). The ops and
 * policies follow the YNL spec
 * Documentation/netlink/specs/dropscope.yaml.
 */
/* The commands: family.c registers them with the family. */
const struct genl_ops ds_nl_ops[] = {
	{
		.cmd = DROPSCOPE_CMD_START,
		.doit = ds_cmd_start,
		.policy = ds_start_policy,
		.maxattr = DROPSCOPE_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_STOP,
		.doit = ds_cmd_stop,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_CONFIG_GET,
		.doit = ds_cmd_config_get,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_CONFIG_SET,
		.doit = ds_cmd_config_set,
		.policy = ds_config_policy,
		.maxattr = DROPSCOPE_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_SITES_GET,
		.dumpit = ds_dump_sites,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_REASONS_GET,
		.dumpit = ds_dump_reasons,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_STATS_GET,
		.doit = ds_cmd_stats_get,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_RESET,
		.doit = ds_cmd_reset,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_RULE_ADD,
		.doit = ds_cmd_rule_add,
		.policy = ds_rule_cmd_policy,
		.maxattr = DROPSCOPE_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_RULE_DEL,
		.doit = ds_cmd_rule_del,
		.policy = ds_rule_cmd_policy,
		.maxattr = DROPSCOPE_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_RULE_GET,
		.dumpit = ds_dump_rules,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_RULE_CLEAR,
		.doit = ds_cmd_rule_clear,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_SESSIONS_GET,
		.dumpit = ds_dump_sessions,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_CLOSED_GET,
		.dumpit = ds_dump_closed,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_SMC_GET,
		.doit = ds_cmd_smc_get,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_CAPTURE_START,
		.doit = ds_cmd_capture_start,
		.policy = ds_capture_req_policy,
		.maxattr = DROPSCOPE_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_CAPTURE_STOP,
		.doit = ds_cmd_capture_stop,
		.policy = ds_capture_stop_policy,
		.maxattr = DROPSCOPE_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_STACKS_SET,
		.doit = ds_cmd_stacks_set,
		.policy = ds_stacks_policy,
		.maxattr = DROPSCOPE_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_STACKS_CLEAR,
		.doit = ds_cmd_stacks_clear,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_STACKS_GET,
		.dumpit = ds_dump_stacks,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_TRAPS_GET,
		.dumpit = ds_dump_traps,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_DEVCTRS_GET,
		.dumpit = ds_dump_devctrs,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_QDISCS_GET,
		.dumpit = ds_dump_qdiscs,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_RUN_START,
		.doit = ds_cmd_run_start,
		.policy = ds_run_start_policy,
		.maxattr = DROPSCOPE_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_RUN_STOP,
		.doit = ds_cmd_run_stop,
		.policy = ds_run_stop_policy,
		.maxattr = DROPSCOPE_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = DROPSCOPE_CMD_RUN_NETNS_GET,
		.doit = ds_cmd_run_netns_get,
		.policy = ds_run_netns_policy,
		.maxattr = DROPSCOPE_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
};

const unsigned int ds_nl_n_ops = ARRAY_SIZE(ds_nl_ops);
