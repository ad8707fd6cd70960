// SPDX-License-Identifier: GPL-2.0
/*
 * Rules: what a drop must match for a rule to decide on it (mask hides
 * it, only shows nothing else), and what a capture takes. The words
 * "FIELD VALUE ..." are resolved here against the running system: symbols
 * from /proc/kallsyms, reasons from the module (the kernel's own names),
 * devices by name, netns by their "ip netns" name. A rule travels as a
 * DROPSCOPE_A_RULE nest, written and read only here.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "ds.h"

const char *const ds_rule_fields[] = {
	[DS_RF_SITE] = "site", [DS_RF_REASON] = "reason", [DS_RF_DEV] = "dev",
	[DS_RF_L3] = "l3", [DS_RF_L4] = "l4", [DS_RF_NETNS] = "netns",
	[DS_RF_SMC] = "smc", [DS_RF_LAYER] = "layer", [DS_RF_TRAP] = "trap",
	[DS_RF_GROUP] = "group", [DS_RF_COUNTER] = "counter",
	[DS_RF_KIND] = "kind", [DS_RF_COUNT] = NULL,
};

static int ds_bad(const char *what, const char *value, const char *why)
{
	fprintf(stderr, "dropscope: rule: %s '%s': %s\n", what, value, why);
	return DS_EUSAGE;
}

static int ds_rule_site(struct ds_ctx *ctx, const char *val, struct ds_rule *r)
{
	int err = ds_ctx_syms(ctx);

	if (err)
		return err;
	err = ds_syms_resolve(ctx->syms, val, &r->loc_start, &r->loc_end);
	if (err == -ENOENT)
		return ds_bad("site", val, "no such kernel symbol");
	if (err == -ENOTUNIQ)
		return ds_bad("site", val, "several symbols have this name: give an address");
	if (err == -ERANGE)
		return ds_bad("site", val, "the offset is beyond the end of the function");
	if (err)
		return ds_bad("site", val, "not FUNC, FUNC+0xOFF or 0xADDRESS");
	return 0;
}

/* The running kernel's drop reason of that name, or NULL. */
static const struct ds_reason *ds_reason_named(const struct ds_reasons *rs,
					       const char *name)
{
	size_t j;

	for (j = 0; j < rs->n; j++)
		if (!strcmp(rs->v[j].name, name))
			return &rs->v[j];
	return NULL;
}

static int ds_rule_reason(struct ds_ctx *ctx, const char *val,
			  struct ds_rule *r)
{
	const struct ds_reasons *rs;
	const struct ds_reason *e;
	int err;

	err = ds_ctx_reasons(ctx, &rs);
	if (err)
		return err;
	e = ds_reason_named(rs, val);
	if (!e)
		return ds_bad("reason", val, "the running kernel has no such drop reason (see: show reasons all)");
	r->reason = e->id;
	return 0;
}

/* The layer of a rule: given, or that of its trap, group, counter or kind. */
static unsigned int ds_rule_layer(const struct ds_rule *r)
{
	if (r->has & 1U << DS_RF_LAYER)
		return r->layer;
	if (r->has & (1U << DS_RF_TRAP | 1U << DS_RF_GROUP))
		return DS_LAYER_HW;
	if (r->has & 1U << DS_RF_COUNTER)
		return DS_LAYER_DEV;
	if (r->has & 1U << DS_RF_KIND)
		return DS_LAYER_QDISC;
	return DS_LAYER_KERNEL;
}

int ds_rule_parse(struct ds_ctx *ctx, int argc, char **argv,
		  struct ds_rule *r)
{
	unsigned int bit, v;
	unsigned long long n;
	uint64_t u;
	char *end;
	int i, err;

	memset(r, 0, sizeof(*r));
	r->mode = DROPSCOPE_RULE_MASK;
	if (!argc || argc % 2)
		return ds_bad("rule", argc ? argv[argc - 1] : "",
			      "give FIELD VALUE pairs: site, reason, dev, l3, l4, netns, smc, layer, trap, group, counter, kind");
	for (i = 0; i < argc; i += 2) {
		const char *f = argv[i], *val = argv[i + 1];

		for (bit = 0; ds_rule_fields[bit] && strcmp(ds_rule_fields[bit], f);
		     bit++)
			;
		if (!ds_rule_fields[bit])
			return ds_bad("field", f, "not one of site, reason, dev, l3, l4, netns, smc, layer, trap, group, counter, kind");
		if (r->has & (1U << bit))
			return ds_bad("field", f, "given twice");
		r->has |= 1U << bit;

		switch (bit) {
		case DS_RF_SITE:
			err = ds_rule_site(ctx, val, r);
			if (err)
				return err;
			break;
		case DS_RF_REASON:
			err = ds_rule_reason(ctx, val, r);
			if (err)
				return err;
			break;
		case DS_RF_DEV:
			if (!ds_parse_u64(val, 1, INT32_MAX, &u))
				r->ifindex = (uint32_t)u;
			else if (!(r->ifindex = if_nametoindex(val)))
				return ds_bad("dev", val, "no such device");
			break;
		case DS_RF_L3:
			if (ds_l3_parse(val, &v))
				return ds_bad("l3", val, "not ipv4, ipv6, arp, vlan, mpls or an ethertype");
			r->l3 = (uint16_t)v;
			break;
		case DS_RF_L4:
			if (ds_l4_parse(val, &v))
				return ds_bad("l4", val, "not tcp, udp, icmp, icmpv6, sctp, gre, ... or a protocol number");
			r->l4 = (uint8_t)v;
			break;
		case DS_RF_LAYER:
			for (v = 0; v < DS_LAYERS && strcmp(val, ds_layer_name(v));
			     v++)
				;
			if (v == DS_LAYERS)
				return ds_bad("layer", val, "not kernel, hw, dev or qdisc");
			r->layer = (uint8_t)v;
			break;
		case DS_RF_TRAP:
		case DS_RF_GROUP:
			if (!*val || strlen(val) >= sizeof(r->trap))
				return ds_bad(f, val, "not a devlink trap or group name (devlink trap show)");
			strcpy(bit == DS_RF_TRAP ? r->trap : r->group, val);
			break;
		case DS_RF_COUNTER:
			for (v = 0; v < DROPSCOPE_DEV_COUNTERS &&
				    strcmp(val, ds_dev_counter_name(v)); v++)
				;
			if (v == DROPSCOPE_DEV_COUNTERS)
				return ds_bad("counter", val, "not a drop counter of a device (rx_dropped, tx_dropped, rx_missed_errors, ...)");
			r->counter = (uint8_t)v;
			break;
		case DS_RF_KIND:
			if (!*val || strlen(val) >= sizeof(r->kind))
				return ds_bad("kind", val, "not a qdisc's kind (fq, sfq, red...: tc qdisc show)");
			strcpy(r->kind, val);
			break;
		case DS_RF_SMC:
			errno = 0;
			n = strtoull(val, &end, 0);
			if (errno || *end || !isdigit((unsigned char)*val) ||
			    !n || n > UINT32_MAX)
				return ds_bad("smc", val, "not an SMC fallback reason code (0x03010000; see: show smc)");
			r->smc_reason = (uint32_t)n;
			break;
		default:
			if (ds_netns_parse(val, &r->netns))
				return ds_bad("netns", val, "no such network namespace (ip netns list)");
			break;
		}
	}
	if ((r->has & 1U << DS_RF_SMC) && r->has != 1U << DS_RF_SMC)
		return ds_bad("rule", "smc", "a rule on an SMC fallback reason takes no other field");
	if (!!(r->has & (1U << DS_RF_TRAP | 1U << DS_RF_GROUP)) +
	    !!(r->has & 1U << DS_RF_COUNTER) + !!(r->has & 1U << DS_RF_KIND) > 1)
		return ds_bad("rule", r->has & 1U << DS_RF_KIND ? "kind" : "counter",
			      "a rule is on traps (trap, group), device counters (counter) or qdisc drops (kind), one of them");
	if (((r->has & (1U << DS_RF_TRAP | 1U << DS_RF_GROUP)) &&
	     ds_rule_layer(r) != DS_LAYER_HW) ||
	    ((r->has & 1U << DS_RF_COUNTER) && ds_rule_layer(r) != DS_LAYER_DEV) ||
	    ((r->has & 1U << DS_RF_KIND) && ds_rule_layer(r) != DS_LAYER_QDISC))
		return ds_bad("layer", ds_layer_name(r->layer), "trap and group are of layer hw, counter of layer dev, kind of layer qdisc");
	if (ds_rule_layer(r) != DS_LAYER_KERNEL &&
	    (r->has & (1U << DS_RF_SITE | 1U << DS_RF_REASON |
		       1U << DS_RF_L3 | 1U << DS_RF_L4)))
		return ds_bad("layer", ds_layer_name(ds_rule_layer(r)), "a rule on traps, device counters or qdisc drops takes no site, reason, l3 or l4");
	return 0;
}


int ds_rule_put(struct nl_msg *msg, const struct ds_rule *r)
{
	struct nlattr *nest = nla_nest_start(msg, DROPSCOPE_A_RULE);

	if (!nest)
		return -EMSGSIZE;
	if ((r->id && nla_put_u32(msg, DROPSCOPE_RULE_A_ID, r->id)) ||
	    (r->mode && nla_put_u8(msg, DROPSCOPE_RULE_A_MODE, r->mode)) ||
	    ((r->has & 1U << DS_RF_SITE) &&
	     (nla_put_u64(msg, DROPSCOPE_RULE_A_LOC_START, r->loc_start) ||
	      nla_put_u64(msg, DROPSCOPE_RULE_A_LOC_END, r->loc_end))) ||
	    ((r->has & 1U << DS_RF_REASON) &&
	     nla_put_u32(msg, DROPSCOPE_RULE_A_REASON, r->reason)) ||
	    ((r->has & 1U << DS_RF_DEV) &&
	     nla_put_u32(msg, DROPSCOPE_RULE_A_IFINDEX, r->ifindex)) ||
	    ((r->has & 1U << DS_RF_L3) &&
	     nla_put_u16(msg, DROPSCOPE_RULE_A_L3, r->l3)) ||
	    ((r->has & 1U << DS_RF_L4) &&
	     nla_put_u8(msg, DROPSCOPE_RULE_A_L4, r->l4)) ||
	    ((r->has & 1U << DS_RF_NETNS) &&
	     nla_put_u32(msg, DROPSCOPE_RULE_A_NETNS, r->netns)) ||
	    ((r->has & 1U << DS_RF_SMC) &&
	     nla_put_u32(msg, DROPSCOPE_RULE_A_SMC_REASON, r->smc_reason)) ||
	    ((r->has & 1U << DS_RF_LAYER) &&
	     nla_put_u8(msg, DROPSCOPE_RULE_A_LAYER, r->layer)) ||
	    ((r->has & 1U << DS_RF_TRAP) &&
	     nla_put_string(msg, DROPSCOPE_RULE_A_TRAP, r->trap)) ||
	    ((r->has & 1U << DS_RF_GROUP) &&
	     nla_put_string(msg, DROPSCOPE_RULE_A_TRAP_GROUP, r->group)) ||
	    ((r->has & 1U << DS_RF_COUNTER) &&
	     nla_put_u8(msg, DROPSCOPE_RULE_A_DEV_COUNTER, r->counter)) ||
	    ((r->has & 1U << DS_RF_KIND) &&
	     nla_put_string(msg, DROPSCOPE_RULE_A_QDISC_KIND, r->kind)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static const struct nla_policy ds_rule_policy[DROPSCOPE_RULE_A_MAX + 1] = {
	[DROPSCOPE_RULE_A_ID] = { .type = NLA_U32 },
	[DROPSCOPE_RULE_A_MODE] = { .type = NLA_U8 },
	[DROPSCOPE_RULE_A_LOC_START] = { .type = NLA_U64 },
	[DROPSCOPE_RULE_A_LOC_END] = { .type = NLA_U64 },
	[DROPSCOPE_RULE_A_REASON] = { .type = NLA_U32 },
	[DROPSCOPE_RULE_A_IFINDEX] = { .type = NLA_U32 },
	[DROPSCOPE_RULE_A_NETNS] = { .type = NLA_U32 },
	[DROPSCOPE_RULE_A_L3] = { .type = NLA_U16 },
	[DROPSCOPE_RULE_A_L4] = { .type = NLA_U8 },
	[DROPSCOPE_RULE_A_HITS] = { .type = NLA_U64 },
	[DROPSCOPE_RULE_A_SMC_REASON] = { .type = NLA_U32 },
	[DROPSCOPE_RULE_A_LAYER] = { .type = NLA_U8 },
	[DROPSCOPE_RULE_A_TRAP] = { .type = NLA_STRING },
	[DROPSCOPE_RULE_A_TRAP_GROUP] = { .type = NLA_STRING },
	[DROPSCOPE_RULE_A_DEV_COUNTER] = { .type = NLA_U8 },
	[DROPSCOPE_RULE_A_QDISC_KIND] = { .type = NLA_STRING },
};

int ds_rule_read(struct nlattr *nest, struct ds_rule *r)
{
	struct nlattr *t[DROPSCOPE_RULE_A_MAX + 1];

	memset(r, 0, sizeof(*r));
	if (ds_nla_parse_nested(t, DROPSCOPE_RULE_A_MAX, nest, ds_rule_policy) ||
	    !t[DROPSCOPE_RULE_A_ID] || !t[DROPSCOPE_RULE_A_MODE] ||
	    !t[DROPSCOPE_RULE_A_HITS] ||
	    !t[DROPSCOPE_RULE_A_LOC_START] != !t[DROPSCOPE_RULE_A_LOC_END])
		return -EINVAL;
	r->id = nla_get_u32(t[DROPSCOPE_RULE_A_ID]);
	r->mode = nla_get_u8(t[DROPSCOPE_RULE_A_MODE]);
	r->hits = nla_get_u64(t[DROPSCOPE_RULE_A_HITS]);
	if (t[DROPSCOPE_RULE_A_LOC_START]) {
		r->has |= 1U << DS_RF_SITE;
		r->loc_start = nla_get_u64(t[DROPSCOPE_RULE_A_LOC_START]);
		r->loc_end = nla_get_u64(t[DROPSCOPE_RULE_A_LOC_END]);
	}
	if (t[DROPSCOPE_RULE_A_REASON]) {
		r->has |= 1U << DS_RF_REASON;
		r->reason = nla_get_u32(t[DROPSCOPE_RULE_A_REASON]);
	}
	if (t[DROPSCOPE_RULE_A_IFINDEX]) {
		r->has |= 1U << DS_RF_DEV;
		r->ifindex = nla_get_u32(t[DROPSCOPE_RULE_A_IFINDEX]);
	}
	if (t[DROPSCOPE_RULE_A_L3]) {
		r->has |= 1U << DS_RF_L3;
		r->l3 = nla_get_u16(t[DROPSCOPE_RULE_A_L3]);
	}
	if (t[DROPSCOPE_RULE_A_L4]) {
		r->has |= 1U << DS_RF_L4;
		r->l4 = nla_get_u8(t[DROPSCOPE_RULE_A_L4]);
	}
	if (t[DROPSCOPE_RULE_A_NETNS]) {
		r->has |= 1U << DS_RF_NETNS;
		r->netns = nla_get_u32(t[DROPSCOPE_RULE_A_NETNS]);
	}
	if (t[DROPSCOPE_RULE_A_SMC_REASON]) {
		r->has |= 1U << DS_RF_SMC;
		r->smc_reason = nla_get_u32(t[DROPSCOPE_RULE_A_SMC_REASON]);
	}
	if (t[DROPSCOPE_RULE_A_LAYER]) {
		r->has |= 1U << DS_RF_LAYER;
		r->layer = nla_get_u8(t[DROPSCOPE_RULE_A_LAYER]);
	}
	if (t[DROPSCOPE_RULE_A_TRAP]) {
		r->has |= 1U << DS_RF_TRAP;
		nla_strlcpy(r->trap, t[DROPSCOPE_RULE_A_TRAP], sizeof(r->trap));
	}
	if (t[DROPSCOPE_RULE_A_TRAP_GROUP]) {
		r->has |= 1U << DS_RF_GROUP;
		nla_strlcpy(r->group, t[DROPSCOPE_RULE_A_TRAP_GROUP],
			    sizeof(r->group));
	}
	if (t[DROPSCOPE_RULE_A_DEV_COUNTER]) {
		r->has |= 1U << DS_RF_COUNTER;
		r->counter = nla_get_u8(t[DROPSCOPE_RULE_A_DEV_COUNTER]);
	}
	if (t[DROPSCOPE_RULE_A_QDISC_KIND]) {
		r->has |= 1U << DS_RF_KIND;
		nla_strlcpy(r->kind, t[DROPSCOPE_RULE_A_QDISC_KIND],
			    sizeof(r->kind));
	}
	return 0;
}

static int ds_rule_id_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			 void *arg)
{
	struct ds_rule r;

	(void)attrs;
	(void)len;
	if (!tb[DROPSCOPE_A_RULE] || ds_rule_read(tb[DROPSCOPE_A_RULE], &r))
		return -EINVAL;
	*(uint32_t *)arg = r.id;
	return 0;
}

int ds_rule_add(struct ds_nl *nl, const struct ds_rule *r, uint32_t *id)
{
	struct nl_msg *msg = ds_nl_msg(nl, DROPSCOPE_CMD_RULE_ADD, false);
	struct ds_rule add = *r;

	add.id = 0;
	if (msg && ds_rule_put(msg, &add)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ds_nl_send(nl, msg, ds_rule_id_cb, id);
}

int ds_rule_del(struct ds_nl *nl, uint32_t id)
{
	struct nl_msg *msg = ds_nl_msg(nl, DROPSCOPE_CMD_RULE_DEL, false);
	struct ds_rule del = { .id = id };

	if (msg && ds_rule_put(msg, &del)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ds_nl_send(nl, msg, NULL, NULL);
}

static int ds_rules_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		       void *arg)
{
	struct ds_rules *l = arg;
	struct ds_rule *v;

	(void)attrs;
	(void)len;
	if (!tb[DROPSCOPE_A_RULE])
		return -EINVAL;
	v = ds_grow(l->v, &l->cap, l->n, sizeof(*v), 64);
	if (!v)
		return -ENOMEM;
	l->v = v;
	return ds_rule_read(tb[DROPSCOPE_A_RULE], &l->v[l->n++]);
}

/* An interrupted dump starts over: forget the rules of the partial one. */
static void ds_rules_reset(void *arg)
{
	((struct ds_rules *)arg)->n = 0;
}

int ds_rules_fetch(struct ds_nl *nl, struct ds_rules *l)
{
	return ds_nl_dump(nl, DROPSCOPE_CMD_RULE_GET, ds_rules_cb,
			  ds_rules_reset, l);
}

/* The site of a rule: "func" for a whole function, else "func+0x1c". */
static void ds_rule_site_word(struct ds_ctx *ctx, const struct ds_rule *r,
			      char *buf, size_t len)
{
	uint64_t start, end;
	char name[256];

	if (ds_ctx_syms(ctx)) {
		snprintf(buf, len, "0x%" PRIx64, r->loc_start);
		return;
	}
	ds_syms_name(ctx->syms, r->loc_start, name, sizeof(name));
	name[strcspn(name, " ")] = '\0';
	/* a whole function: its name gives the same range back */
	if (r->loc_end - r->loc_start > 1 &&
	    (ds_syms_resolve(ctx->syms, name, &start, &end) ||
	     start != r->loc_start || end != r->loc_end))
		snprintf(name, sizeof(name), "0x%" PRIx64, r->loc_start);
	snprintf(buf, len, "%s", name);
}

int ds_rule_words(struct ds_ctx *ctx, const struct ds_rule *r, char *buf,
		  size_t len)
{
	const struct ds_reasons *rs;
	char v[256];
	size_t o, j;

	o = (size_t)snprintf(buf, len, "%s",
			     r->mode == DROPSCOPE_RULE_ONLY ? "only" : "mask");
	if ((r->has & 1U << DS_RF_SITE) && o < len) {
		ds_rule_site_word(ctx, r, v, sizeof(v));
		o += (size_t)snprintf(buf + o, len - o, " site %s", v);
	}
	if ((r->has & 1U << DS_RF_REASON) && o < len) {
		snprintf(v, sizeof(v), "%" PRIu32, r->reason);
		if (!ds_ctx_reasons(ctx, &rs))
			for (j = 0; j < rs->n; j++)
				if (rs->v[j].id == r->reason)
					snprintf(v, sizeof(v), "%s", rs->v[j].name);
		o += (size_t)snprintf(buf + o, len - o, " reason %s", v);
	}
	if ((r->has & 1U << DS_RF_DEV) && o < len)
		o += (size_t)snprintf(buf + o, len - o, " dev %s",
				      ds_dev_name(r->ifindex, v, sizeof(v)));
	if ((r->has & 1U << DS_RF_L3) && o < len)
		o += (size_t)snprintf(buf + o, len - o, " l3 %s",
				      ds_l3_name(r->l3, v, sizeof(v)));
	if ((r->has & 1U << DS_RF_L4) && o < len)
		o += (size_t)snprintf(buf + o, len - o, " l4 %s",
				      ds_l4_name(r->l4, v, sizeof(v)));
	if ((r->has & 1U << DS_RF_NETNS) && o < len)
		o += (size_t)snprintf(buf + o, len - o, " netns %s",
				      ds_netns_name(r->netns, v, sizeof(v)));
	if ((r->has & 1U << DS_RF_SMC) && o < len)
		o += (size_t)snprintf(buf + o, len - o, " smc 0x%08" PRIx32,
				      r->smc_reason);
	if ((r->has & 1U << DS_RF_LAYER) && o < len)
		o += (size_t)snprintf(buf + o, len - o, " layer %s",
				      ds_layer_name(r->layer));
	if ((r->has & 1U << DS_RF_TRAP) && o < len)
		o += (size_t)snprintf(buf + o, len - o, " trap %s", r->trap);
	if ((r->has & 1U << DS_RF_GROUP) && o < len)
		o += (size_t)snprintf(buf + o, len - o, " group %s", r->group);
	if ((r->has & 1U << DS_RF_COUNTER) && o < len)
		o += (size_t)snprintf(buf + o, len - o, " counter %s",
				      ds_dev_counter_name(r->counter));
	if ((r->has & 1U << DS_RF_KIND) && o < len)
		o += (size_t)snprintf(buf + o, len - o, " kind %s", r->kind);
	return o < len ? 0 : -ENAMETOOLONG;
}

/*
 * "optional rule ...": the site this kernel does not have (a function that
 * another kernel inlines or renames). Returns it, or NULL when the rule is
 * to be read as any other.
 */
static const char *ds_site_absent(struct ds_ctx *ctx, char **words, int nw)
{
	uint64_t start, end;
	int i;

	for (i = 0; i + 1 < nw; i++) {
		if (strcmp(words[i], "site"))
			continue;
		if (ds_ctx_syms(ctx))
			return NULL;
		if (ds_syms_resolve(ctx->syms, words[i + 1], &start, &end) == -ENOENT)
			return words[i + 1];
		return NULL;
	}
	return NULL;
}

/*
 * The same for its drop reason: one this kernel does not have (an older
 * kernel's reasons are fewer). Returns it, or NULL.
 */
static const char *ds_reason_absent(struct ds_ctx *ctx, char **words, int nw)
{
	const struct ds_reasons *rs;
	int i;

	for (i = 0; i + 1 < nw; i++) {
		if (strcmp(words[i], "reason") || ds_ctx_reasons(ctx, &rs))
			continue;
		return ds_reason_named(rs, words[i + 1]) ? NULL : words[i + 1];
	}
	return NULL;
}

int ds_rules_read(struct ds_ctx *ctx, FILE *f, const char *name,
		  struct ds_rules *out)
{
	char *line = NULL, *words[64], **w;
	unsigned int lineno = 0;
	const char *absent;
	size_t cap = 0;
	int err = 0, nw;

	memset(out, 0, sizeof(*out));
	while (!err && getline(&line, &cap, f) >= 0) {
		struct ds_rule *r;
		uint8_t mode;

		lineno++;
		nw = ds_split(line, words, (int)DS_N(words));
		if (!nw)
			continue;
		w = words;
		if (!strcmp(w[0], "optional")) {
			w++;
			nw--;
			absent = ds_site_absent(ctx, w, nw);
			if (absent) {
				fprintf(stderr, "dropscope: %s:%u: left out: this kernel has no site %s\n",
					name, lineno, absent);
				continue;
			}
			absent = ds_reason_absent(ctx, w, nw);
			if (absent) {
				fprintf(stderr, "dropscope: %s:%u: left out: this kernel has no drop reason %s\n",
					name, lineno, absent);
				continue;
			}
		}
		if (nw < 2 ||
		    (strcmp(w[0], "rule") && strcmp(w[0], "mask")) ||
		    (strcmp(w[1], "mask") && strcmp(w[1], "add") &&
		     strcmp(w[1], "only"))) {
			fprintf(stderr, "dropscope: %s:%u: not a rule (rule mask|only FIELD VALUE ...)\n",
				name, lineno);
			err = DS_EUSAGE;
			break;
		}
		mode = strcmp(w[1], "only") ? DROPSCOPE_RULE_MASK :
						   DROPSCOPE_RULE_ONLY;
		r = ds_grow(out->v, &out->cap, out->n, sizeof(*r), 16);
		if (!r) {
			err = DS_EFAIL;
			break;
		}
		out->v = r;
		err = ds_rule_parse(ctx, nw - 2, w + 2, &out->v[out->n]);
		if (err) {
			fprintf(stderr, "dropscope: %s:%u: the rule above is refused\n",
				name, lineno);
			break;
		}
		out->v[out->n++].mode = mode;
	}
	if (!err && ferror(f)) {
		fprintf(stderr, "dropscope: %s: cannot be read\n", name);
		err = DS_EUSAGE;
	}
	free(line);
	if (err) {
		free(out->v);
		memset(out, 0, sizeof(*out));
	}
	return err;
}

void ds_rules_del_all(struct ds_nl *nl, const uint32_t *ids, size_t n)
{
	while (n)
		ds_rule_del(nl, ids[--n]);
}

int ds_rules_add_all(struct ds_nl *nl, const struct ds_rules *l,
		     uint32_t *ids, size_t *failed)
{
	size_t i;
	int err;

	for (i = 0; i < l->n; i++) {
		err = ds_rule_add(nl, &l->v[i], &ids[i]);
		if (err) {
			/* all or none */
			*failed = i;
			ds_rules_del_all(nl, ids, i);
			return err;
		}
	}
	return 0;
}
