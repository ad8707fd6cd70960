// SPDX-License-Identifier: GPL-2.0
/*
 * Mask rules: "mask add|only FIELD VALUE ...", "mask del ID", "mask list",
 * "mask clear". Names are resolved here, against the running system:
 * symbols from /proc/kallsyms, reasons from the module (the kernel's own
 * names), devices by name, netns by their "ip netns" name.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "dropscope.h"

static const struct ds_proto {
	const char *name;
	unsigned int value;
} ds_l3[] = {
	{ "ipv4", 0x0800 }, { "ip", 0x0800 }, { "ipv6", 0x86dd },
	{ "arp", 0x0806 }, { "vlan", 0x8100 }, { "mpls", 0x8847 },
	{ NULL, 0 },
}, ds_l4[] = {
	{ "icmp", 1 }, { "igmp", 2 }, { "tcp", 6 }, { "udp", 17 },
	{ "gre", 47 }, { "esp", 50 }, { "icmpv6", 58 }, { "sctp", 132 },
	{ "udplite", 136 }, { NULL, 0 },
};

static int ds_proto_parse(const struct ds_proto *t, const char *s,
			  unsigned int max, unsigned int *v)
{
	uint64_t n;
	char *end;

	for (; t->name; t++) {
		if (!strcmp(t->name, s)) {
			*v = t->value;
			return 0;
		}
	}
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || *end || !*s || n == 0 || n > max)
		return -EINVAL;
	*v = (unsigned int)n;
	return 0;
}

static const char *ds_proto_name(const struct ds_proto *t, unsigned int v,
				 char *buf, size_t len)
{
	for (; t->name; t++)
		if (t->value == v)
			return t->name;
	snprintf(buf, len, "0x%x", v);
	return buf;
}

/* The names, for completion: NULL-terminated. */
const char *const *ds_proto_names(bool l3)
{
	static const char *names[2][DS_N(ds_l4)];
	const struct ds_proto *t = l3 ? ds_l3 : ds_l4;
	const char **n = names[l3];
	size_t i;

	for (i = 0; t[i].name; i++)
		n[i] = t[i].name;
	n[i] = NULL;
	return n;
}

const char *ds_l3_name(uint32_t l3, char *buf, size_t len)
{
	return ds_proto_name(ds_l3, l3, buf, len);
}

const char *ds_l4_name(uint32_t l4, char *buf, size_t len)
{
	return ds_proto_name(ds_l4, l4, buf, len);
}

/* A device by name when it exists here, else its ifindex. */
const char *ds_dev_name(uint32_t ifindex, char *buf, size_t len)
{
	char name[IF_NAMESIZE];

	if (if_indextoname(ifindex, name))
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%" PRIu32, ifindex);
	return buf;
}

/* An "ip netns" name, or an inode number. */
static int ds_netns_parse(const char *s, uint32_t *inum)
{
	char path[512];
	struct stat st;
	uint64_t n;

	if (!ds_parse_u64(s, 1, UINT32_MAX, &n)) {
		*inum = (uint32_t)n;
		return 0;
	}
	if (strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", DS_NETNS_DIR, s);
	if (stat(path, &st))
		return -ENOENT;
	*inum = (uint32_t)st.st_ino;
	return 0;
}

/* A namespace by its "ip netns" name when it has one, else its inode. */
const char *ds_netns_name(uint32_t inum, char *buf, size_t len)
{
	DIR *d = opendir(DS_NETNS_DIR);
	struct dirent *e;
	char path[512];
	struct stat st;

	snprintf(buf, len, "%u", inum);
	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", DS_NETNS_DIR, e->d_name);
		if (e->d_name[0] != '.' && !stat(path, &st) &&
		    st.st_ino == inum) {
			snprintf(buf, len, "%.*s", (int)len - 1, e->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
	return buf;
}

static int ds_bad(const char *what, const char *value, const char *why)
{
	fprintf(stderr, "dropscope: mask: %s '%s': %s\n", what, value, why);
	return DS_EUSAGE;
}

/* Load kallsyms on first use. */
int ds_ctx_syms(struct ds_ctx *ctx)
{
	FILE *f;
	int err;

	if (ctx->syms)
		return 0;
	f = fopen("/proc/kallsyms", "r");
	if (!f) {
		fprintf(stderr, "dropscope: cannot read /proc/kallsyms: %s\n",
			strerror(errno));
		return DS_EFAIL;
	}
	err = ds_syms_load(f, &ctx->syms);
	fclose(f);
	if (err == -EACCES) {
		fprintf(stderr, "dropscope: /proc/kallsyms hides kernel addresses: run as root\n");
		return DS_EPERM;
	}
	return err ? DS_EFAIL : 0;
}

/* The fields of a rule, as mask add takes them (and completion offers) */
const char *const ds_mask_fields[] = {
	"site", "reason", "dev", "l3", "l4", "netns", "smc", NULL,
};

/* Parse "FIELD VALUE ..." into a DROPSCOPE_A_RULE nest of msg. */
int ds_rule_parse(struct ds_ctx *ctx, int argc, char **argv,
		  struct nl_msg *msg)
{
	unsigned int seen = 0, v;
	struct ds_reasons r = { 0 };
	uint64_t start, end;
	uint32_t u32;
	int i, err;

	if (!argc || argc % 2)
		return ds_bad("rule", argc ? argv[argc - 1] : "",
			      "give FIELD VALUE pairs: site, reason, dev, l3, l4, netns, smc");
	for (i = 0; i < argc; i += 2) {
		const char *f = argv[i], *val = argv[i + 1];
		unsigned int bit;

		for (bit = 0; ds_mask_fields[bit] && strcmp(ds_mask_fields[bit], f);
		     bit++)
			;
		if (!ds_mask_fields[bit])
			return ds_bad("field", f, "not one of site, reason, dev, l3, l4, netns, smc");
		if (seen & (1U << bit))
			return ds_bad("field", f, "given twice");
		seen |= 1U << bit;

		if (!strcmp(f, "site")) {
			err = ds_ctx_syms(ctx);
			if (err)
				return err;
			err = ds_syms_resolve(ctx->syms, val, &start, &end);
			if (err == -ENOENT)
				return ds_bad("site", val, "no such kernel symbol");
			if (err == -ENOTUNIQ)
				return ds_bad("site", val, "several symbols have this name: give an address");
			if (err == -ERANGE)
				return ds_bad("site", val, "the offset is beyond the end of the function");
			if (err)
				return ds_bad("site", val, "not FUNC, FUNC+0xOFF or 0xADDRESS");
			if (nla_put_u64(msg, DROPSCOPE_RULE_A_LOC_START, start) ||
			    nla_put_u64(msg, DROPSCOPE_RULE_A_LOC_END, end))
				return DS_EFAIL;
		} else if (!strcmp(f, "reason")) {
			size_t j;

			err = ds_reasons_get(ctx, &r);
			if (err)
				return err;
			for (j = 0; j < r.n && strcmp(r.v[j].name, val); j++)
				;
			u32 = j < r.n ? r.v[j].id : 0;
			free(r.v);
			r.v = NULL;
			if (j == r.n)
				return ds_bad("reason", val, "the running kernel has no such drop reason (see: show reasons all)");
			if (nla_put_u32(msg, DROPSCOPE_RULE_A_REASON, u32))
				return DS_EFAIL;
		} else if (!strcmp(f, "dev")) {
			uint64_t n;

			if (!ds_parse_u64(val, 1, INT32_MAX, &n))
				u32 = (uint32_t)n;
			else if (!(u32 = if_nametoindex(val)))
				return ds_bad("dev", val, "no such device");
			if (nla_put_u32(msg, DROPSCOPE_RULE_A_IFINDEX, u32))
				return DS_EFAIL;
		} else if (!strcmp(f, "l3")) {
			if (ds_proto_parse(ds_l3, val, 0xffff, &v))
				return ds_bad("l3", val, "not ipv4, ipv6, arp, vlan, mpls or an ethertype");
			if (nla_put_u16(msg, DROPSCOPE_RULE_A_L3, (uint16_t)v))
				return DS_EFAIL;
		} else if (!strcmp(f, "l4")) {
			if (ds_proto_parse(ds_l4, val, 255, &v))
				return ds_bad("l4", val, "not tcp, udp, icmp, icmpv6, sctp, gre, ... or a protocol number");
			if (nla_put_u8(msg, DROPSCOPE_RULE_A_L4, (uint8_t)v))
				return DS_EFAIL;
		} else if (!strcmp(f, "smc")) {
			unsigned long long n;
			char *end;

			errno = 0;
			n = strtoull(val, &end, 0);
			if (errno || *end || !isdigit((unsigned char)*val) ||
			    !n || n > UINT32_MAX)
				return ds_bad("smc", val, "not an SMC fallback reason code (0x03010000; see: show smc)");
			if (nla_put_u32(msg, DROPSCOPE_RULE_A_SMC_REASON,
					(uint32_t)n))
				return DS_EFAIL;
		} else {
			err = ds_netns_parse(val, &u32);
			if (err)
				return ds_bad("netns", val, "no such network namespace (ip netns list)");
			if (nla_put_u32(msg, DROPSCOPE_RULE_A_NETNS, u32))
				return DS_EFAIL;
		}
	}
	/* "smc" is the seventh field */
	if ((seen & 1U << 6) && seen != 1U << 6)
		return ds_bad("rule", "smc", "a rule on an SMC fallback reason takes no other field");
	return 0;
}

static int ds_rule_id_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			 void *arg)
{
	struct nlattr *r[DROPSCOPE_RULE_A_MAX + 1];

	(void)attrs;
	(void)len;
	if (!tb[DROPSCOPE_A_RULE] ||
	    nla_parse_nested(r, DROPSCOPE_RULE_A_MAX, tb[DROPSCOPE_A_RULE],
			     NULL) < 0 || !r[DROPSCOPE_RULE_A_ID])
		return -EINVAL;
	*(uint32_t *)arg = nla_get_u32(r[DROPSCOPE_RULE_A_ID]);
	return 0;
}

static int ds_mask_add(struct ds_ctx *ctx, uint8_t mode, int argc,
		       char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct nlattr *nest;
	struct nl_msg *msg;
	uint32_t id = 0;
	int err;

	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	msg = ds_nl_msg(ctx->nl, DROPSCOPE_CMD_MASK_ADD, false);
	if (!msg)
		return DS_EFAIL;
	nest = nla_nest_start(msg, DROPSCOPE_A_RULE);
	if (!nest || nla_put_u8(msg, DROPSCOPE_RULE_A_MODE, mode)) {
		nlmsg_free(msg);
		return DS_EFAIL;
	}
	err = ds_rule_parse(ctx, argc, argv, msg);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	nla_nest_end(msg, nest);
	err = ds_nl_send(ctx->nl, msg, ds_rule_id_cb, &id);
	if (err) {
		fprintf(stderr, "dropscope: %s\n", ds_nl_error(ctx->nl));
		return ds_nl_status(err);
	}
	ds_print_open_obj(&p, NULL);
	ds_print_u32(&p, DS_ANY, "id", "rule %" PRIu32 " added\n", id);
	ds_print_close_obj(&p);
	return DS_OK;
}

int cmd_mask_add(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv)
{
	(void)self;
	return ds_mask_add(ctx, DROPSCOPE_RULE_MASK, argc, argv);
}

int cmd_mask_only(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv)
{
	(void)self;
	return ds_mask_add(ctx, DROPSCOPE_RULE_ONLY, argc, argv);
}

int cmd_mask_del(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv)
{
	struct nlattr *nest;
	struct nl_msg *msg;
	uint64_t id;
	int err;

	if (argc != 1 || ds_parse_u64(argv[0], 1, UINT32_MAX, &id)) {
		fprintf(stderr, "dropscope: mask del: give a rule id (see: mask list)\nusage: %s %s\n",
			self->name, self->args);
		return DS_EUSAGE;
	}
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	msg = ds_nl_msg(ctx->nl, DROPSCOPE_CMD_MASK_DEL, false);
	if (!msg || !(nest = nla_nest_start(msg, DROPSCOPE_A_RULE)) ||
	    nla_put_u32(msg, DROPSCOPE_RULE_A_ID, (uint32_t)id)) {
		nlmsg_free(msg);
		return DS_EFAIL;
	}
	nla_nest_end(msg, nest);
	err = ds_nl_send(ctx->nl, msg, NULL, NULL);
	if (err) {
		fprintf(stderr, "dropscope: %s\n", ds_nl_error(ctx->nl));
		return ds_nl_status(err);
	}
	return DS_OK;
}

/* The rules of a dump, kept to be printed once the dump is whole. */
struct ds_rule_list {
	struct nlattr **v;	/* copies of the DROPSCOPE_A_RULE nests */
	size_t n, cap;
};

static int ds_rule_list_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			   void *arg)
{
	struct ds_rule_list *l = arg;
	struct nlattr *a = tb[DROPSCOPE_A_RULE];

	(void)attrs;
	(void)len;
	if (!a)
		return -EINVAL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct nlattr **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = malloc((size_t)a->nla_len);
	if (!l->v[l->n])
		return -ENOMEM;
	memcpy(l->v[l->n++], a, a->nla_len);
	return 0;
}

/* An interrupted dump starts over: forget the rules of the partial one. */
static void ds_rule_list_reset(void *arg)
{
	struct ds_rule_list *l = arg;

	while (l->n)
		free(l->v[--l->n]);
}

/* The packet fields of a rule, in the order "mask list" prints them. */
static const struct {
	int attr;
	const char *key;
	const char *fmt;
	const char *(*name)(uint32_t v, char *buf, size_t len);
} ds_rule_fields[] = {
	{ DROPSCOPE_RULE_A_IFINDEX, "dev", "dev %s", ds_dev_name },
	{ DROPSCOPE_RULE_A_L3, "l3", "l3 %s", ds_l3_name },
	{ DROPSCOPE_RULE_A_L4, "l4", "l4 %s", ds_l4_name },
	{ DROPSCOPE_RULE_A_NETNS, "netns", "netns %s", ds_netns_name },
};

/* One rule: its id, mode and hits, then its fields as "mask add" takes them. */
static int ds_rule_print(struct ds_print *p, struct ds_ctx *ctx,
			 const struct ds_reasons *reasons, struct nlattr *nest)
{
	struct nlattr *r[DROPSCOPE_RULE_A_MAX + 1];
	char buf[256], val[64];
	size_t j;

	if (nla_parse_nested(r, DROPSCOPE_RULE_A_MAX, nest, NULL) < 0 ||
	    !r[DROPSCOPE_RULE_A_ID] || !r[DROPSCOPE_RULE_A_MODE] ||
	    !r[DROPSCOPE_RULE_A_HITS])
		return -EINVAL;
	ds_print_open_obj(p, NULL);
	ds_print_u32(p, DS_ANY, "id", "%" PRIu32,
		     nla_get_u32(r[DROPSCOPE_RULE_A_ID]));
	ds_print_str(p, DS_ANY, "mode", "%s",
		     nla_get_u8(r[DROPSCOPE_RULE_A_MODE]) == DROPSCOPE_RULE_ONLY ?
		     "only" : "mask");
	ds_print_u64(p, DS_ANY, "hits", "%" PRIu64,
		     nla_get_u64(r[DROPSCOPE_RULE_A_HITS]));
	if (r[DROPSCOPE_RULE_A_LOC_START] && r[DROPSCOPE_RULE_A_LOC_END]) {
		uint64_t s = nla_get_u64(r[DROPSCOPE_RULE_A_LOC_START]);

		if (!ds_ctx_syms(ctx))
			ds_syms_name(ctx->syms, s, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "0x%" PRIx64, s);
		ds_print_str(p, DS_ANY, "site", "site %s", buf);
		ds_print_hex(p, DS_JSON, "start", NULL, s);
		ds_print_hex(p, DS_JSON, "end", NULL,
			     nla_get_u64(r[DROPSCOPE_RULE_A_LOC_END]));
	}
	if (r[DROPSCOPE_RULE_A_REASON]) {
		uint32_t id = nla_get_u32(r[DROPSCOPE_RULE_A_REASON]);

		snprintf(val, sizeof(val), "%" PRIu32, id);
		for (j = 0; j < reasons->n; j++)
			if (reasons->v[j].id == id)
				snprintf(val, sizeof(val), "%s",
					 reasons->v[j].name);
		ds_print_str(p, DS_ANY, "reason", "reason %s", val);
	}
	if (r[DROPSCOPE_RULE_A_SMC_REASON]) {
		snprintf(val, sizeof(val), "0x%08" PRIx32,
			 nla_get_u32(r[DROPSCOPE_RULE_A_SMC_REASON]));
		ds_print_str(p, DS_ANY, "smc", "smc %s", val);
	}
	for (j = 0; j < sizeof(ds_rule_fields) / sizeof(ds_rule_fields[0]);
	     j++) {
		const struct nlattr *a = r[ds_rule_fields[j].attr];
		uint32_t v;

		if (!a)
			continue;
		/* the kernel's policy gives each its size: u8, u16, u32 */
		if (nla_len(a) == 1)
			v = nla_get_u8(a);
		else if (nla_len(a) == 2)
			v = nla_get_u16(a);
		else
			v = nla_get_u32(a);
		ds_print_str(p, DS_ANY, ds_rule_fields[j].key,
			     ds_rule_fields[j].fmt,
			     ds_rule_fields[j].name(v, val, sizeof(val)));
	}
	ds_print_close_obj(p);
	return 0;
}

/* ID, MODE, HITS, then the fields of the rule under MATCH. */
static const struct ds_col ds_rule_cols[] = {
	{ "id", "ID", "", 4, DS_COL_RIGHT },
	{ "mode", "MODE", "  ", 4, 0 },
	{ "hits", "HITS", " ", 12, DS_COL_RIGHT },
	{ NULL, "MATCH", "  ", 0, 0 },
};

int cmd_mask_list(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_reasons reasons = { 0 };
	struct ds_rule_list l = { 0 };
	int err;
	size_t i;

	(void)argv;
	if (argc) {
		fprintf(stderr, "dropscope: %s: takes no arguments\n", self->name);
		return DS_EUSAGE;
	}
	err = ds_reasons_get(ctx, &reasons);
	if (err)
		return err;
	err = ds_nl_dump(ctx->nl, DROPSCOPE_CMD_MASK_GET, ds_rule_list_cb,
			 ds_rule_list_reset, &l);
	if (err) {
		fprintf(stderr, "dropscope: %s\n", ds_nl_error(ctx->nl));
		err = ds_nl_status(err);
		goto out;
	}
	ds_print_open_table(&p, NULL, ds_rule_cols,
			    (int)(sizeof(ds_rule_cols) / sizeof(ds_rule_cols[0])),
			    DS_TABLE_HEAD);
	for (i = 0; i < l.n && !err; i++)
		err = ds_rule_print(&p, ctx, &reasons, l.v[i]);
	ds_print_close_table(&p);
	if (err) {
		fprintf(stderr, "dropscope: malformed rule from dropscope.ko\n");
		err = DS_EFAIL;
	} else if (!l.n) {
		ds_print_text(&p, "no rules\n");
	}
out:
	ds_rule_list_reset(&l);
	free(l.v);
	free(reasons.v);
	return err;
}
