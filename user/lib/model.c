// SPDX-License-Identifier: GPL-2.0
/*
 * The dropscope family's objects, read: each reply or dump becomes a
 * struct of ds.h (configuration, statistics, reasons, sites, sessions,
 * alerts, capture messages), and the requests that change the module's
 * state are written here. Nothing here prints.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "ds.h"

static uint64_t ds_u64(struct nlattr **tb, int a)
{
	return tb[a] ? ds_nla_u64(tb[a]) : 0;
}

static uint32_t ds_u32(struct nlattr **tb, int a)
{
	return tb[a] ? ds_nla_u32(tb[a]) : 0;
}

/*
 * Send cmd with one u32 attribute (none when attr is 0) and wait for the
 * answer; a failure is printed and its status returned.
 */
int ds_send_u32(struct ds_ctx *ctx, uint8_t cmd, int attr, uint32_t v)
{
	struct nl_msg *msg;
	int err;

	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	msg = ds_nl_msg(ctx->nl, cmd, false);
	if (msg && attr && nla_put_u32(msg, attr, v)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	err = ds_nl_send(ctx->nl, msg, NULL, NULL);
	return err ? ds_fail(ctx, err) : DS_OK;
}

int ds_config_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			void *arg)
{
	struct ds_config *c = arg;

	(void)attrs;
	(void)len;
	if (!tb[DROPSCOPE_A_RUNNING] || !tb[DROPSCOPE_A_INTERVAL_MS] ||
	    !tb[DROPSCOPE_A_CAPACITY])
		return -EINVAL;
	c->running = nla_get_u8(tb[DROPSCOPE_A_RUNNING]);
	c->interval_ms = nla_get_u32(tb[DROPSCOPE_A_INTERVAL_MS]);
	c->capacity = nla_get_u32(tb[DROPSCOPE_A_CAPACITY]);
	if (tb[DROPSCOPE_A_THRESHOLD])
		c->threshold = nla_get_u32(tb[DROPSCOPE_A_THRESHOLD]);
	if (tb[DROPSCOPE_A_TOP])
		c->top = nla_get_u32(tb[DROPSCOPE_A_TOP]);
	if (tb[DROPSCOPE_A_RATELIMIT])
		c->ratelimit = nla_get_u32(tb[DROPSCOPE_A_RATELIMIT]);
	if (tb[DROPSCOPE_A_RULES])
		c->rules = nla_get_u32(tb[DROPSCOPE_A_RULES]);
	if (tb[DROPSCOPE_A_PARTS])
		c->parts = nla_get_u32(tb[DROPSCOPE_A_PARTS]);
	if (tb[DROPSCOPE_A_PARTS_ABSENT])
		c->parts_absent = nla_get_u32(tb[DROPSCOPE_A_PARTS_ABSENT]);
	if (tb[DROPSCOPE_A_SESSIONS_CAPACITY])
		c->sessions = nla_get_u32(tb[DROPSCOPE_A_SESSIONS_CAPACITY]);
	if (tb[DROPSCOPE_A_CLOSED_CAPACITY])
		c->closed = nla_get_u32(tb[DROPSCOPE_A_CLOSED_CAPACITY]);
	c->runs = ds_u32(tb, DROPSCOPE_A_RUNS);
	if (tb[DROPSCOPE_A_STACKS] && nla_len(tb[DROPSCOPE_A_STACKS]) >= 1)
		c->stacks = nla_get_u8(tb[DROPSCOPE_A_STACKS]);
	if (tb[DROPSCOPE_A_STACKS_CAPACITY] &&
	    nla_len(tb[DROPSCOPE_A_STACKS_CAPACITY]) == sizeof(uint32_t))
		c->stacks_capacity = nla_get_u32(tb[DROPSCOPE_A_STACKS_CAPACITY]);
	if (tb[DROPSCOPE_A_SESS_EVENTS] &&
	    nla_len(tb[DROPSCOPE_A_SESS_EVENTS]) == sizeof(uint32_t))
		c->sess_events = nla_get_u32(tb[DROPSCOPE_A_SESS_EVENTS]);
	return 0;
}

int ds_sites_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			void *arg)
{
	struct ds_sites *s = arg;
	struct ds_site *v;

	(void)attrs;
	(void)len;
	if (!tb[DROPSCOPE_A_SITE])
		return -EINVAL;
	v = ds_grow(s->v, &s->cap, s->n, sizeof(*v), 64);
	if (!v)
		return -ENOMEM;
	s->v = v;
	if (ds_site_parse(tb[DROPSCOPE_A_SITE], &s->v[s->n]))
		return -EINVAL;
	s->n++;
	return 0;
}

/* An interrupted dump starts over: forget the sites of the partial one. */
static void ds_sites_reset(void *arg)
{
	((struct ds_sites *)arg)->n = 0;
}

int ds_sites_fetch(struct ds_nl *nl, struct ds_sites *s)
{
	return ds_nl_dump(nl, DROPSCOPE_CMD_SITES_GET, ds_sites_cb,
			  ds_sites_reset, s);
}

/* The dump of hw or dev sites appends to what s has: base is its start. */
struct ds_layer_dump {
	struct ds_sites *s;
	size_t base;
	int attr;
	int (*parse)(struct nlattr *nest, struct ds_site *site);
};

static int ds_layer_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		       void *arg)
{
	struct ds_layer_dump *d = arg;
	struct ds_sites *s = d->s;
	struct ds_site *v;

	(void)attrs;
	(void)len;
	if (!tb[d->attr])
		return -EINVAL;
	v = ds_grow(s->v, &s->cap, s->n, sizeof(*v), 64);
	if (!v)
		return -ENOMEM;
	s->v = v;
	if (d->parse(tb[d->attr], &s->v[s->n]))
		return -EINVAL;
	s->n++;
	return 0;
}

static void ds_layer_reset(void *arg)
{
	struct ds_layer_dump *d = arg;

	d->s->n = d->base;
}

int ds_sites_fetch_layers(struct ds_nl *nl, struct ds_sites *s,
			  unsigned int mask)
{
	static const struct {
		uint8_t cmd;
		int attr;
		int (*parse)(struct nlattr *nest, struct ds_site *site);
	} layer[DS_LAYERS] = {
		[DS_LAYER_KERNEL] = { DROPSCOPE_CMD_SITES_GET,
				      DROPSCOPE_A_SITE, ds_site_parse },
		[DS_LAYER_HW] = { DROPSCOPE_CMD_TRAPS_GET,
				  DROPSCOPE_A_TRAP, ds_trap_parse },
		[DS_LAYER_DEV] = { DROPSCOPE_CMD_DEVCTRS_GET,
				   DROPSCOPE_A_DEVCTR, ds_devctr_parse },
		[DS_LAYER_QDISC] = { DROPSCOPE_CMD_QDISCS_GET,
				     DROPSCOPE_A_QDISC, ds_qdisc_parse },
	};
	struct ds_layer_dump d = { .s = s };
	unsigned int l;
	int err;

	for (l = 0; l < DS_LAYERS; l++) {
		if (!(mask & (1U << l)))
			continue;
		d.base = s->n;
		d.attr = layer[l].attr;
		d.parse = layer[l].parse;
		err = ds_nl_dump(nl, layer[l].cmd, ds_layer_cb, ds_layer_reset,
				 &d);
		if (err)
			return err;
	}
	return 0;
}

int ds_reasons_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			void *arg)
{
	struct nlattr *r[DROPSCOPE_REASON_A_MAX + 1];
	struct ds_reasons *s = arg;
	struct ds_reason *e, *v;

	(void)attrs;
	(void)len;
	if (!tb[DROPSCOPE_A_REASON] ||
	    nla_parse_nested(r, DROPSCOPE_REASON_A_MAX, tb[DROPSCOPE_A_REASON],
			     NULL) < 0 ||
	    !r[DROPSCOPE_REASON_A_ID] || !r[DROPSCOPE_REASON_A_NAME])
		return -EINVAL;
	v = ds_grow(s->v, &s->cap, s->n, sizeof(*v), 128);
	if (!v)
		return -ENOMEM;
	s->v = v;
	e = &s->v[s->n++];
	e->id = nla_get_u32(r[DROPSCOPE_REASON_A_ID]);
	e->count = 0;
	nla_strlcpy(e->name, r[DROPSCOPE_REASON_A_NAME], sizeof(e->name));
	return 0;
}

static void ds_reasons_reset(void *arg)
{
	((struct ds_reasons *)arg)->n = 0;
}

int ds_reasons_fetch(struct ds_nl *nl, struct ds_reasons *r)
{
	return ds_nl_dump(nl, DROPSCOPE_CMD_REASONS_GET, ds_reasons_cb,
			  ds_reasons_reset, r);
}

int ds_reasons_get(struct ds_ctx *ctx, struct ds_reasons *r)
{
	int err = ds_ctx_nl(ctx);

	if (err)
		return err;
	err = ds_reasons_fetch(ctx->nl, r);
	if (err) {
		free(r->v);
		r->v = NULL;
		return ds_fail(ctx, err);
	}
	return DS_OK;
}

int ds_stats_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			void *arg)
{
	struct nlattr *t[DROPSCOPE_STATS_A_MAX + 1];
	struct ds_stats_read *r = arg;
	int i;

	(void)attrs;
	(void)len;
	if (!tb[DROPSCOPE_A_STATS] ||
	    nla_parse_nested(t, DROPSCOPE_STATS_A_MAX, tb[DROPSCOPE_A_STATS],
			     NULL) < 0)
		return -EINVAL;
	for (i = DROPSCOPE_STATS_A_EVENTS; i <= DROPSCOPE_STATS_A_MAX; i++) {
		if (!t[i] || nla_len(t[i]) != sizeof(uint64_t))
			continue;
		r->v[i] = nla_get_u64(t[i]);
		r->has[i] = true;
	}
	return 0;
}

/* The module's statistics, by attribute; prints nothing. */
int ds_stats_fetch(struct ds_nl *nl, struct ds_stats_read *st)
{
	memset(st, 0, sizeof(*st));
	return ds_nl_do(nl, DROPSCOPE_CMD_STATS_GET, ds_stats_cb, st);
}

/* One statistic, as show stats gets it. */
int ds_stat_get(struct ds_ctx *ctx, int attr, uint64_t *v)
{
	struct ds_stats_read st;
	int err;

	err = ds_ctx_nl(ctx);
	if (!err)
		err = ds_stats_fetch(ctx->nl, &st);
	if (!err)
		*v = st.v[attr];
	return err;
}

static const struct nla_policy ds_site_policy[DROPSCOPE_SITE_A_MAX + 1] = {
	[DROPSCOPE_SITE_A_LOCATION] = { .type = NLA_U64 },
	[DROPSCOPE_SITE_A_SYMBOL] = { .type = NLA_STRING },
	[DROPSCOPE_SITE_A_REASON] = { .type = NLA_U32 },
	[DROPSCOPE_SITE_A_REASON_NAME] = { .type = NLA_STRING },
	[DROPSCOPE_SITE_A_TOTAL] = { .type = NLA_U64 },
	[DROPSCOPE_SITE_A_DELTA] = { .type = NLA_U64 },
	[DROPSCOPE_SITE_A_MASKED] = { .type = NLA_U64 },
	[DROPSCOPE_SITE_A_IFINDEX] = { .type = NLA_U32 },
	[DROPSCOPE_SITE_A_NETNS] = { .type = NLA_U32 },
	[DROPSCOPE_SITE_A_L3] = { .type = NLA_U16 },
	[DROPSCOPE_SITE_A_L4] = { .type = NLA_U8 },
	[DROPSCOPE_SITE_A_RUN] = { .type = NLA_U32 },
};

int ds_site_parse(struct nlattr *nest, struct ds_site *s)
{
	struct nlattr *tb[DROPSCOPE_SITE_A_MAX + 1];

	memset(s, 0, sizeof(*s));
	if (ds_nla_parse_nested(tb, DROPSCOPE_SITE_A_MAX, nest,
				ds_site_policy) < 0 ||
	    !tb[DROPSCOPE_SITE_A_LOCATION] || !tb[DROPSCOPE_SITE_A_TOTAL])
		return -EINVAL;
	s->location = nla_get_u64(tb[DROPSCOPE_SITE_A_LOCATION]);
	s->total = nla_get_u64(tb[DROPSCOPE_SITE_A_TOTAL]);
	if (tb[DROPSCOPE_SITE_A_REASON])
		s->reason = nla_get_u32(tb[DROPSCOPE_SITE_A_REASON]);
	if (tb[DROPSCOPE_SITE_A_DELTA]) {
		s->delta = nla_get_u64(tb[DROPSCOPE_SITE_A_DELTA]);
		s->has_delta = true;
	}
	if (tb[DROPSCOPE_SITE_A_MASKED])
		s->masked = nla_get_u64(tb[DROPSCOPE_SITE_A_MASKED]);
	if (tb[DROPSCOPE_SITE_A_IFINDEX])
		s->ifindex = nla_get_u32(tb[DROPSCOPE_SITE_A_IFINDEX]);
	if (tb[DROPSCOPE_SITE_A_NETNS])
		s->netns = nla_get_u32(tb[DROPSCOPE_SITE_A_NETNS]);
	if (tb[DROPSCOPE_SITE_A_L3])
		s->l3 = nla_get_u16(tb[DROPSCOPE_SITE_A_L3]);
	if (tb[DROPSCOPE_SITE_A_L4])
		s->l4 = nla_get_u8(tb[DROPSCOPE_SITE_A_L4]);
	if (tb[DROPSCOPE_SITE_A_RUN])
		s->run = nla_get_u32(tb[DROPSCOPE_SITE_A_RUN]);
	if (tb[DROPSCOPE_SITE_A_SYMBOL])
		nla_strlcpy(s->symbol, tb[DROPSCOPE_SITE_A_SYMBOL],
			    sizeof(s->symbol));
	else
		snprintf(s->symbol, sizeof(s->symbol), "0x%llx",
			 (unsigned long long)s->location);
	if (tb[DROPSCOPE_SITE_A_REASON_NAME])
		nla_strlcpy(s->reason_name, tb[DROPSCOPE_SITE_A_REASON_NAME],
			    sizeof(s->reason_name));
	else
		snprintf(s->reason_name, sizeof(s->reason_name), "%u",
			 s->reason);
	return 0;
}

static const struct nla_policy ds_trap_policy[DROPSCOPE_TRAP_A_MAX + 1] = {
	[DROPSCOPE_TRAP_A_DEVICE] = { .type = NLA_STRING },
	[DROPSCOPE_TRAP_A_NAME] = { .type = NLA_STRING },
	[DROPSCOPE_TRAP_A_GROUP] = { .type = NLA_STRING },
	[DROPSCOPE_TRAP_A_TYPE] = { .type = NLA_U8 },
	[DROPSCOPE_TRAP_A_IFINDEX] = { .type = NLA_U32 },
	[DROPSCOPE_TRAP_A_DEV] = { .type = NLA_STRING },
	[DROPSCOPE_TRAP_A_NETNS] = { .type = NLA_U32 },
	[DROPSCOPE_TRAP_A_TOTAL] = { .type = NLA_U64 },
	[DROPSCOPE_TRAP_A_DELTA] = { .type = NLA_U64 },
	[DROPSCOPE_TRAP_A_MASKED] = { .type = NLA_U64 },
};

int ds_trap_parse(struct nlattr *nest, struct ds_site *s)
{
	struct nlattr *tb[DROPSCOPE_TRAP_A_MAX + 1];

	memset(s, 0, sizeof(*s));
	if (ds_nla_parse_nested(tb, DROPSCOPE_TRAP_A_MAX, nest,
				ds_trap_policy) < 0 ||
	    !tb[DROPSCOPE_TRAP_A_DEVICE] || !tb[DROPSCOPE_TRAP_A_NAME] ||
	    !tb[DROPSCOPE_TRAP_A_TOTAL])
		return -EINVAL;
	s->layer = DS_LAYER_HW;
	s->total = nla_get_u64(tb[DROPSCOPE_TRAP_A_TOTAL]);
	if (tb[DROPSCOPE_TRAP_A_DELTA]) {
		s->delta = nla_get_u64(tb[DROPSCOPE_TRAP_A_DELTA]);
		s->has_delta = true;
	}
	if (tb[DROPSCOPE_TRAP_A_MASKED])
		s->masked = nla_get_u64(tb[DROPSCOPE_TRAP_A_MASKED]);
	if (tb[DROPSCOPE_TRAP_A_TYPE])
		s->trap_type = nla_get_u8(tb[DROPSCOPE_TRAP_A_TYPE]);
	if (tb[DROPSCOPE_TRAP_A_IFINDEX])
		s->ifindex = nla_get_u32(tb[DROPSCOPE_TRAP_A_IFINDEX]);
	if (tb[DROPSCOPE_TRAP_A_NETNS])
		s->netns = nla_get_u32(tb[DROPSCOPE_TRAP_A_NETNS]);
	nla_strlcpy(s->device, tb[DROPSCOPE_TRAP_A_DEVICE], sizeof(s->device));
	nla_strlcpy(s->trap, tb[DROPSCOPE_TRAP_A_NAME], sizeof(s->trap));
	if (tb[DROPSCOPE_TRAP_A_GROUP])
		nla_strlcpy(s->group, tb[DROPSCOPE_TRAP_A_GROUP],
			    sizeof(s->group));
	if (tb[DROPSCOPE_TRAP_A_DEV])
		nla_strlcpy(s->dev, tb[DROPSCOPE_TRAP_A_DEV], sizeof(s->dev));
	/* the site as text: the trap on its device */
	snprintf(s->symbol, sizeof(s->symbol), "%s [%s] %s", s->trap,
		 s->group, s->device);
	snprintf(s->reason_name, sizeof(s->reason_name), "%s",
		 ds_trap_type_name(s->trap_type));
	return 0;
}

static const struct nla_policy ds_devctr_policy[DROPSCOPE_DEVCTR_A_MAX + 1] = {
	[DROPSCOPE_DEVCTR_A_IFINDEX] = { .type = NLA_U32 },
	[DROPSCOPE_DEVCTR_A_NETNS] = { .type = NLA_U32 },
	[DROPSCOPE_DEVCTR_A_DEV] = { .type = NLA_STRING },
	[DROPSCOPE_DEVCTR_A_COUNTER] = { .type = NLA_U8 },
	[DROPSCOPE_DEVCTR_A_TOTAL] = { .type = NLA_U64 },
	[DROPSCOPE_DEVCTR_A_DELTA] = { .type = NLA_U64 },
	[DROPSCOPE_DEVCTR_A_MASKED] = { .type = NLA_U64 },
};

int ds_devctr_parse(struct nlattr *nest, struct ds_site *s)
{
	struct nlattr *tb[DROPSCOPE_DEVCTR_A_MAX + 1];

	memset(s, 0, sizeof(*s));
	if (ds_nla_parse_nested(tb, DROPSCOPE_DEVCTR_A_MAX, nest,
				ds_devctr_policy) < 0 ||
	    !tb[DROPSCOPE_DEVCTR_A_COUNTER] || !tb[DROPSCOPE_DEVCTR_A_TOTAL] ||
	    !tb[DROPSCOPE_DEVCTR_A_DEV])
		return -EINVAL;
	s->layer = DS_LAYER_DEV;
	s->counter = nla_get_u8(tb[DROPSCOPE_DEVCTR_A_COUNTER]);
	s->total = nla_get_u64(tb[DROPSCOPE_DEVCTR_A_TOTAL]);
	if (tb[DROPSCOPE_DEVCTR_A_DELTA]) {
		s->delta = nla_get_u64(tb[DROPSCOPE_DEVCTR_A_DELTA]);
		s->has_delta = true;
	}
	if (tb[DROPSCOPE_DEVCTR_A_MASKED])
		s->masked = nla_get_u64(tb[DROPSCOPE_DEVCTR_A_MASKED]);
	if (tb[DROPSCOPE_DEVCTR_A_IFINDEX])
		s->ifindex = nla_get_u32(tb[DROPSCOPE_DEVCTR_A_IFINDEX]);
	if (tb[DROPSCOPE_DEVCTR_A_NETNS])
		s->netns = nla_get_u32(tb[DROPSCOPE_DEVCTR_A_NETNS]);
	nla_strlcpy(s->dev, tb[DROPSCOPE_DEVCTR_A_DEV], sizeof(s->dev));
	snprintf(s->symbol, sizeof(s->symbol), "%s %s", s->dev,
		 ds_dev_counter_name(s->counter));
	snprintf(s->reason_name, sizeof(s->reason_name), "%s",
		 ds_dev_counter_name(s->counter));
	return 0;
}

static const struct nla_policy ds_qdisc_policy[DROPSCOPE_QDISC_A_MAX + 1] = {
	[DROPSCOPE_QDISC_A_IFINDEX] = { .type = NLA_U32 },
	[DROPSCOPE_QDISC_A_NETNS] = { .type = NLA_U32 },
	[DROPSCOPE_QDISC_A_DEV] = { .type = NLA_STRING },
	[DROPSCOPE_QDISC_A_KIND] = { .type = NLA_STRING },
	[DROPSCOPE_QDISC_A_HANDLE] = { .type = NLA_U32 },
	[DROPSCOPE_QDISC_A_PARENT] = { .type = NLA_U32 },
	[DROPSCOPE_QDISC_A_REASON] = { .type = NLA_U32 },
	[DROPSCOPE_QDISC_A_REASON_NAME] = { .type = NLA_STRING },
	[DROPSCOPE_QDISC_A_TOTAL] = { .type = NLA_U64 },
	[DROPSCOPE_QDISC_A_DELTA] = { .type = NLA_U64 },
	[DROPSCOPE_QDISC_A_MASKED] = { .type = NLA_U64 },
};

void ds_qdisc_handle(uint32_t handle, char *buf, size_t len)
{
	if (handle & 0xffff)
		snprintf(buf, len, "%x:%x", handle >> 16, handle & 0xffff);
	else
		snprintf(buf, len, "%x:", handle >> 16);
}

int ds_qdisc_parse(struct nlattr *nest, struct ds_site *s)
{
	struct nlattr *tb[DROPSCOPE_QDISC_A_MAX + 1];
	char h[16];

	memset(s, 0, sizeof(*s));
	if (ds_nla_parse_nested(tb, DROPSCOPE_QDISC_A_MAX, nest,
				ds_qdisc_policy) < 0 ||
	    !tb[DROPSCOPE_QDISC_A_KIND] || !tb[DROPSCOPE_QDISC_A_HANDLE] ||
	    !tb[DROPSCOPE_QDISC_A_REASON] || !tb[DROPSCOPE_QDISC_A_TOTAL])
		return -EINVAL;
	s->layer = DS_LAYER_QDISC;
	s->total = nla_get_u64(tb[DROPSCOPE_QDISC_A_TOTAL]);
	if (tb[DROPSCOPE_QDISC_A_DELTA]) {
		s->delta = nla_get_u64(tb[DROPSCOPE_QDISC_A_DELTA]);
		s->has_delta = true;
	}
	if (tb[DROPSCOPE_QDISC_A_MASKED])
		s->masked = nla_get_u64(tb[DROPSCOPE_QDISC_A_MASKED]);
	if (tb[DROPSCOPE_QDISC_A_IFINDEX])
		s->ifindex = nla_get_u32(tb[DROPSCOPE_QDISC_A_IFINDEX]);
	if (tb[DROPSCOPE_QDISC_A_NETNS])
		s->netns = nla_get_u32(tb[DROPSCOPE_QDISC_A_NETNS]);
	if (tb[DROPSCOPE_QDISC_A_DEV])
		nla_strlcpy(s->dev, tb[DROPSCOPE_QDISC_A_DEV], sizeof(s->dev));
	nla_strlcpy(s->kind, tb[DROPSCOPE_QDISC_A_KIND], sizeof(s->kind));
	s->handle = nla_get_u32(tb[DROPSCOPE_QDISC_A_HANDLE]);
	if (tb[DROPSCOPE_QDISC_A_PARENT])
		s->parent = nla_get_u32(tb[DROPSCOPE_QDISC_A_PARENT]);
	s->reason = nla_get_u32(tb[DROPSCOPE_QDISC_A_REASON]);
	if (tb[DROPSCOPE_QDISC_A_REASON_NAME])
		nla_strlcpy(s->reason_name, tb[DROPSCOPE_QDISC_A_REASON_NAME],
			    sizeof(s->reason_name));
	else
		snprintf(s->reason_name, sizeof(s->reason_name), "0x%x",
			 s->reason);
	/* the site as text: the qdisc as tc names it, on its device */
	ds_qdisc_handle(s->handle, h, sizeof(h));
	snprintf(s->symbol, sizeof(s->symbol), "%s %s %s", s->kind, h,
		 s->dev[0] ? s->dev : "-");
	return 0;
}

static const struct nla_policy ds_sess_policy[DROPSCOPE_SESSION_A_MAX + 1] = {
	[DROPSCOPE_SESSION_A_COOKIE] = { .type = NLA_U64 },
	[DROPSCOPE_SESSION_A_FAMILY] = { .type = NLA_U8 },
	[DROPSCOPE_SESSION_A_SPORT] = { .type = NLA_U16 },
	[DROPSCOPE_SESSION_A_DPORT] = { .type = NLA_U16 },
	[DROPSCOPE_SESSION_A_STATE] = { .type = NLA_U8 },
	[DROPSCOPE_SESSION_A_PID] = { .type = NLA_U32 },
	[DROPSCOPE_SESSION_A_COMM] = { .type = NLA_STRING },
	[DROPSCOPE_SESSION_A_START_NS] = { .type = NLA_U64 },
	[DROPSCOPE_SESSION_A_DURATION_NS] = { .type = NLA_U64 },
	[DROPSCOPE_SESSION_A_BYTES_ACKED] = { .type = NLA_U64 },
	[DROPSCOPE_SESSION_A_BYTES_RECEIVED] = { .type = NLA_U64 },
	[DROPSCOPE_SESSION_A_TOTAL_RETRANS] = { .type = NLA_U32 },
	[DROPSCOPE_SESSION_A_RESETS_SENT] = { .type = NLA_U32 },
	[DROPSCOPE_SESSION_A_RESETS_RECEIVED] = { .type = NLA_U32 },
	[DROPSCOPE_SESSION_A_DROPS] = { .type = NLA_U64 },
	[DROPSCOPE_SESSION_A_CLOSED] = { .type = NLA_FLAG },
	[DROPSCOPE_SESSION_A_SEQ] = { .type = NLA_U64 },
	[DROPSCOPE_SESSION_A_SMC_MODE] = { .type = NLA_U8 },
	[DROPSCOPE_SESSION_A_SMC_REASON] = { .type = NLA_U32 },
	[DROPSCOPE_SESSION_A_RUN] = { .type = NLA_U32 },
	[DROPSCOPE_SESSION_A_FOUND] = { .type = NLA_FLAG },
	/* the fields its length covers: the struct only grows */
	[DROPSCOPE_SESSION_A_TCP] = { .type = NLA_BINARY },
};

/* inet_ntop() of an IPv4 address, without its sprintf(). */
static void ds_ipv4(const unsigned char *b, char *buf)
{
	int i;

	for (i = 0; i < 4; i++) {
		buf += ds_print_udec(buf, b[i]);
		*buf++ = i < 3 ? '.' : '\0';
	}
}

static void ds_addr(struct nlattr *a, int family, char *buf, size_t len)
{
	int af = family == AF_INET6 ? AF_INET6 : AF_INET;

	if (a && af == AF_INET && a->nla_len == NLA_HDRLEN + 4 &&
	    len >= INET_ADDRSTRLEN)
		ds_ipv4((const unsigned char *)a + NLA_HDRLEN, buf);
	else if (!a || a->nla_len != NLA_HDRLEN + (af == AF_INET6 ? 16 : 4) ||
		 !inet_ntop(af, (const char *)a + NLA_HDRLEN, buf,
			    (socklen_t)len))
		snprintf(buf, len, "-");
}

int ds_session_parse(struct nlattr *nest, struct ds_session *s)
{
	struct nlattr *tb[DROPSCOPE_SESSION_A_MAX + 1];

	memset(s, 0, sizeof(*s));
	if (ds_nla_parse_nested(tb, DROPSCOPE_SESSION_A_MAX, nest,
				ds_sess_policy) < 0 ||
	    !tb[DROPSCOPE_SESSION_A_COOKIE] || !tb[DROPSCOPE_SESSION_A_FAMILY])
		return -EINVAL;
	s->cookie = ds_u64(tb, DROPSCOPE_SESSION_A_COOKIE);
	s->seq = ds_u64(tb, DROPSCOPE_SESSION_A_SEQ);
	s->start_ns = ds_u64(tb, DROPSCOPE_SESSION_A_START_NS);
	s->duration_ns = ds_u64(tb, DROPSCOPE_SESSION_A_DURATION_NS);
	s->tx_bytes = ds_u64(tb, DROPSCOPE_SESSION_A_BYTES_ACKED);
	s->rx_bytes = ds_u64(tb, DROPSCOPE_SESSION_A_BYTES_RECEIVED);
	s->drops = ds_u64(tb, DROPSCOPE_SESSION_A_DROPS);
	s->retransmits = ds_u32(tb, DROPSCOPE_SESSION_A_TOTAL_RETRANS);
	s->resets_sent = ds_u32(tb, DROPSCOPE_SESSION_A_RESETS_SENT);
	s->resets_received = ds_u32(tb, DROPSCOPE_SESSION_A_RESETS_RECEIVED);
	s->pid = ds_u32(tb, DROPSCOPE_SESSION_A_PID);
	s->family = ds_nla_u8(tb[DROPSCOPE_SESSION_A_FAMILY]);
	if (tb[DROPSCOPE_SESSION_A_STATE])
		s->state = ds_nla_u8(tb[DROPSCOPE_SESSION_A_STATE]);
	if (tb[DROPSCOPE_SESSION_A_SPORT])
		s->lport = ds_nla_u16(tb[DROPSCOPE_SESSION_A_SPORT]);
	if (tb[DROPSCOPE_SESSION_A_DPORT])
		s->rport = ds_nla_u16(tb[DROPSCOPE_SESSION_A_DPORT]);
	s->closed = tb[DROPSCOPE_SESSION_A_CLOSED];
	s->run = ds_u32(tb, DROPSCOPE_SESSION_A_RUN);
	s->found = tb[DROPSCOPE_SESSION_A_FOUND];
	if (tb[DROPSCOPE_SESSION_A_TCP]) {
		struct dropscope_tcp_state t = { 0 };
		int n = tb[DROPSCOPE_SESSION_A_TCP]->nla_len - NLA_HDRLEN;

		/* at least up to the window: older fields are never dropped */
		if (n < (int)offsetof(struct dropscope_tcp_state, unacked))
			return -EINVAL;
		memcpy(&t, (const char *)tb[DROPSCOPE_SESSION_A_TCP] + NLA_HDRLEN,
		       n < (int)sizeof(t) ? (size_t)n : sizeof(t));
		s->has_tcp = true;
		s->rtt_us = t.rtt_us;
		s->rttvar_us = t.rttvar_us;
		s->cwnd = t.snd_cwnd;
		s->ssthresh = t.snd_ssthresh;
		s->snd_wnd = t.snd_wnd;
		s->rcv_wnd = t.rcv_wnd;
		s->unacked = t.unacked;
		s->lost = t.lost;
		s->retrans = t.retrans;
		s->delivery_rate = t.delivery_rate;
	}
	if (tb[DROPSCOPE_SESSION_A_SMC_MODE])
		s->smc_mode = ds_nla_u8(tb[DROPSCOPE_SESSION_A_SMC_MODE]);
	s->smc_reason = ds_u32(tb, DROPSCOPE_SESSION_A_SMC_REASON);
	ds_addr(tb[DROPSCOPE_SESSION_A_SADDR], s->family, s->laddr,
		sizeof(s->laddr));
	ds_addr(tb[DROPSCOPE_SESSION_A_DADDR], s->family, s->raddr,
		sizeof(s->raddr));
	if (tb[DROPSCOPE_SESSION_A_COMM]) {
		/* as nla_strlcpy(): the policy says it ends in a NUL */
		size_t n = tb[DROPSCOPE_SESSION_A_COMM]->nla_len -
			   NLA_HDRLEN - 1;

		memcpy(s->comm, (const char *)tb[DROPSCOPE_SESSION_A_COMM] +
		       NLA_HDRLEN,
		       n < sizeof(s->comm) ? n : sizeof(s->comm) - 1);
	}
	if (!s->comm[0])
		strcpy(s->comm, "-");
	return 0;
}

static const struct nla_policy ds_event_policy[DROPSCOPE_EVENT_A_MAX + 1] = {
	[DROPSCOPE_EVENT_A_KIND] = { .type = NLA_U8 },
	[DROPSCOPE_EVENT_A_TIME_NS] = { .type = NLA_U64 },
	[DROPSCOPE_EVENT_A_COOKIE] = { .type = NLA_U64 },
	[DROPSCOPE_EVENT_A_PID] = { .type = NLA_U32 },
	[DROPSCOPE_EVENT_A_COMM] = { .type = NLA_STRING },
	[DROPSCOPE_EVENT_A_FAMILY] = { .type = NLA_U8 },
	[DROPSCOPE_EVENT_A_SPORT] = { .type = NLA_U16 },
	[DROPSCOPE_EVENT_A_DPORT] = { .type = NLA_U16 },
	[DROPSCOPE_EVENT_A_OLDSTATE] = { .type = NLA_U8 },
	[DROPSCOPE_EVENT_A_NEWSTATE] = { .type = NLA_U8 },
	[DROPSCOPE_EVENT_A_SEGS] = { .type = NLA_U32 },
};

int ds_sess_event_parse(struct nlattr *nest, struct ds_sess_event *e)
{
	struct nlattr *tb[DROPSCOPE_EVENT_A_MAX + 1];

	memset(e, 0, sizeof(*e));
	if (ds_nla_parse_nested(tb, DROPSCOPE_EVENT_A_MAX, nest,
				ds_event_policy) < 0 ||
	    !tb[DROPSCOPE_EVENT_A_KIND] || !tb[DROPSCOPE_EVENT_A_FAMILY])
		return -EINVAL;
	e->kind = nla_get_u8(tb[DROPSCOPE_EVENT_A_KIND]);
	e->family = nla_get_u8(tb[DROPSCOPE_EVENT_A_FAMILY]);
	e->time_ns = ds_u64(tb, DROPSCOPE_EVENT_A_TIME_NS);
	e->cookie = ds_u64(tb, DROPSCOPE_EVENT_A_COOKIE);
	e->pid = ds_u32(tb, DROPSCOPE_EVENT_A_PID);
	e->segs = ds_u32(tb, DROPSCOPE_EVENT_A_SEGS);
	if (tb[DROPSCOPE_EVENT_A_SPORT])
		e->lport = nla_get_u16(tb[DROPSCOPE_EVENT_A_SPORT]);
	if (tb[DROPSCOPE_EVENT_A_DPORT])
		e->rport = nla_get_u16(tb[DROPSCOPE_EVENT_A_DPORT]);
	if (tb[DROPSCOPE_EVENT_A_OLDSTATE])
		e->oldstate = nla_get_u8(tb[DROPSCOPE_EVENT_A_OLDSTATE]);
	if (tb[DROPSCOPE_EVENT_A_NEWSTATE])
		e->newstate = nla_get_u8(tb[DROPSCOPE_EVENT_A_NEWSTATE]);
	ds_addr(tb[DROPSCOPE_EVENT_A_SADDR], e->family, e->laddr,
		sizeof(e->laddr));
	ds_addr(tb[DROPSCOPE_EVENT_A_DADDR], e->family, e->raddr,
		sizeof(e->raddr));
	if (tb[DROPSCOPE_EVENT_A_COMM])
		nla_strlcpy(e->comm, tb[DROPSCOPE_EVENT_A_COMM],
			    sizeof(e->comm));
	if (!e->comm[0])
		strcpy(e->comm, "-");
	return 0;
}

/* A dump marked interrupted runs again: drop what it added. */
void ds_sessions_reset(void *arg)
{
	struct ds_sessions *s = arg;

	s->n = s->base;
}

int ds_sessions_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		   void *arg)
{
	struct ds_sessions *s = arg;

	(void)attrs;
	(void)len;
	if (!tb[DROPSCOPE_A_SESSION])
		return -EINVAL;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct ds_session *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	if (ds_session_parse(tb[DROPSCOPE_A_SESSION], &s->v[s->n]))
		return -EINVAL;
	s->n++;
	return 0;
}

/* The filter's pid and port (local or remote), UINT64_MAX: any */
static bool ds_sess_filter_takes(const struct ds_sess_filter *f, uint32_t pid,
				 uint16_t lport, uint16_t rport)
{
	return (f->pid == UINT64_MAX || pid == f->pid) &&
	       (f->port == UINT64_MAX || lport == f->port || rport == f->port);
}

bool ds_sess_match(const struct ds_sess_filter *f, const struct ds_session *s)
{
	return ds_sess_filter_takes(f, s->pid, s->lport, s->rport);
}

/* pid PID, port PORT: returns 1 if argv[*a] was one, -1 if bad. */
int ds_sess_filter_arg(struct ds_sess_filter *f, int argc, char **argv, int *a)
{
	if (*a + 1 >= argc)
		return 0;
	if (!strcmp(argv[*a], "pid"))
		return ds_parse_u64(argv[++*a], 0, UINT32_MAX, &f->pid) ? -1 : 1;
	if (!strcmp(argv[*a], "port"))
		return ds_parse_u64(argv[++*a], 0, 65535, &f->port) ? -1 : 1;
	return 0;
}

/*
 * An alert message: the round's counters, its sites, its SMC fallbacks and
 * their owners, the closes it reports; what ds_alert_free() frees.
 */
int ds_alert_read(struct nlattr **tb, struct nlattr *attrs, int len,
		  struct ds_alert *a)
{
	size_t n = 0, nsmc = 0, nsess = 0, nev = 0;
	struct nlattr *at;
	int rem, err = 0;

	memset(a, 0, sizeof(*a));
	a->end = tb[DROPSCOPE_A_ROUND_END];
	if (tb[DROPSCOPE_A_ROUND])
		a->round = nla_get_u64(tb[DROPSCOPE_A_ROUND]);
	if (tb[DROPSCOPE_A_OVERFLOW_DELTA])
		a->overflow = nla_get_u64(tb[DROPSCOPE_A_OVERFLOW_DELTA]);
	if (tb[DROPSCOPE_A_SMC_LINK_DOWNS_DELTA])
		a->link_downs = nla_get_u64(tb[DROPSCOPE_A_SMC_LINK_DOWNS_DELTA]);
	if (tb[DROPSCOPE_A_SESS_EVENTS_LOST_DELTA])
		a->events_lost = nla_get_u64(tb[DROPSCOPE_A_SESS_EVENTS_LOST_DELTA]);
	nla_for_each_attr(at, attrs, len, rem) {
		nev += nla_type(at) == DROPSCOPE_A_SESS_EVENT;
		n += nla_type(at) == DROPSCOPE_A_SITE ||
		     nla_type(at) == DROPSCOPE_A_TRAP ||
		     nla_type(at) == DROPSCOPE_A_DEVCTR ||
		     nla_type(at) == DROPSCOPE_A_QDISC;
		nsmc += nla_type(at) == DROPSCOPE_A_SMC_FALLBACK ||
			nla_type(at) == DROPSCOPE_A_SMC_OWNER;
		nsess += nla_type(at) == DROPSCOPE_A_SESSION;
	}
	a->sites = calloc(n ? n : 1, sizeof(*a->sites));
	a->smc = calloc(nsmc ? nsmc : 1, sizeof(*a->smc));
	a->sessions = calloc(nsess ? nsess : 1, sizeof(*a->sessions));
	a->events = calloc(nev ? nev : 1, sizeof(*a->events));
	if (!a->sites || !a->smc || !a->sessions || !a->events) {
		ds_alert_free(a);
		return -ENOMEM;
	}
	nla_for_each_attr(at, attrs, len, rem) {
		if (nla_type(at) == DROPSCOPE_A_SMC_FALLBACK ||
		    nla_type(at) == DROPSCOPE_A_SMC_OWNER)
			err = ds_smc_alert_parse(at, &a->smc[a->nsmc++]);
		else if (nla_type(at) == DROPSCOPE_A_SITE)
			err = ds_site_parse(at, &a->sites[a->n++]) ? -EINVAL : 0;
		else if (nla_type(at) == DROPSCOPE_A_TRAP)
			err = ds_trap_parse(at, &a->sites[a->n++]) ? -EINVAL : 0;
		else if (nla_type(at) == DROPSCOPE_A_DEVCTR)
			err = ds_devctr_parse(at, &a->sites[a->n++]) ?
			      -EINVAL : 0;
		else if (nla_type(at) == DROPSCOPE_A_QDISC)
			err = ds_qdisc_parse(at, &a->sites[a->n++]) ?
			      -EINVAL : 0;
		else if (nla_type(at) == DROPSCOPE_A_SESSION)
			err = ds_session_parse(at, &a->sessions[a->nsess++]) ?
			      -EINVAL : 0;
		else if (nla_type(at) == DROPSCOPE_A_SESS_EVENT)
			err = ds_sess_event_parse(at, &a->events[a->nev++]);
		if (err) {
			ds_alert_free(a);
			return err;
		}
	}
	return 0;
}

void ds_alert_free(struct ds_alert *a)
{
	free(a->sites);
	free(a->smc);
	free(a->sessions);
	free(a->events);
	a->sites = NULL;
	a->smc = NULL;
	a->sessions = NULL;
	a->events = NULL;
	a->n = a->nsmc = a->nsess = a->nev = 0;
}

static int ds_run_id_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			void *arg)
{
	(void)attrs;
	(void)len;
	*(uint32_t *)arg = ds_u32(tb, DROPSCOPE_A_RUN);
	return 0;
}

/*
 * Begin a run of the cgroup of id cgid (RUN_START): *id is the run's. It
 * lasts until ds_run_stop() or until nl is closed.
 */
int ds_run_start(struct ds_nl *nl, uint64_t cgid, uint32_t *id)
{
	struct nl_msg *msg = ds_nl_msg(nl, DROPSCOPE_CMD_RUN_START, false);
	int err;

	if (msg && nla_put_u64(msg, DROPSCOPE_A_RUN_CGROUP, cgid)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	*id = 0;
	err = ds_nl_send(nl, msg, ds_run_id_cb, id);
	return !err && !*id ? -EPROTO : err;
}

static int ds_run_netns_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			   void *arg)
{
	uint32_t *v = arg;

	(void)attrs;
	(void)len;
	v[0] = ds_u32(tb, DROPSCOPE_A_RUN);
	v[1] = ds_u32(tb, DROPSCOPE_A_NETNS);
	return 0;
}

/* The run of the netns that fd refers to (0: none), and its inode. */
int ds_run_netns(struct ds_nl *nl, int fd, uint32_t *run, uint32_t *inum)
{
	struct nl_msg *msg = ds_nl_msg(nl, DROPSCOPE_CMD_RUN_NETNS_GET, false);
	uint32_t v[2] = { 0, 0 };
	int err;

	if (msg && nla_put_u32(msg, DROPSCOPE_A_NETNS_FD, (uint32_t)fd)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	err = ds_nl_send(nl, msg, ds_run_netns_cb, v);
	*run = v[0];
	*inum = v[1];
	return err;
}

int ds_run_stop(struct ds_nl *nl, uint32_t id)
{
	struct nl_msg *msg = ds_nl_msg(nl, DROPSCOPE_CMD_RUN_STOP, false);

	if (msg && nla_put_u32(msg, DROPSCOPE_A_RUN, id)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ds_nl_send(nl, msg, NULL, NULL);
}

/* The session events this socket wants (DROPSCOPE_SESS_EVENTS_*), 0: none. */
int ds_config_sess_events(struct ds_nl *nl, uint32_t mask)
{
	struct nl_msg *msg = ds_nl_msg(nl, DROPSCOPE_CMD_CONFIG_SET, false);

	if (msg && nla_put_u32(msg, DROPSCOPE_A_SESS_EVENTS, mask)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ds_nl_send(nl, msg, NULL, NULL);
}

bool ds_sess_event_match(const struct ds_sess_filter *f,
			 const struct ds_sess_event *e)
{
	return ds_sess_filter_takes(f, e->pid, e->lport, e->rport);
}

int ds_config_fetch(struct ds_nl *nl, struct ds_config *c)
{
	memset(c, 0, sizeof(*c));
	return ds_nl_do(nl, DROPSCOPE_CMD_CONFIG_GET, ds_config_cb, c);
}
