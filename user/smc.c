// SPDX-License-Identifier: GPL-2.0
/*
 * SMC: show smc, the kernel's own SMC statistics (the SMC_GEN_NETLINK
 * family of smc.ko, what smcr stats and smcd stats print), and show smc
 * sockets, the SMC sockets (SMC sock_diag, what smcss prints) with the
 * process that holds each.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>

#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "dropscope.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif

#define DS_NCOLS(c) ((int)(sizeof(c) / sizeof((c)[0])))

/* ---- reason codes ------------------------------------------------------ */

/*
 * The CLC decline codes of net/smc/smc_clc.h (SMC_CLC_DECL_*): the kernel
 * reports the codes and names none of them.
 */
static const struct {
	uint32_t code;
	const char *name;
} ds_smc_reasons[] = {
	{ 0x01010000, "insufficient memory resources" },
	{ 0x02010000, "timeout waiting for QP confirm link" },
	{ 0x02020000, "timeout waiting for QP add link" },
	{ 0x03000000, "configuration error" },
	{ 0x03010000, "peer did not indicate SMC" },
	{ 0x03020000, "IPsec in use" },
	{ 0x03030000, "no SMC device found (R or D)" },
	{ 0x03030001, "no SMC-D device found" },
	{ 0x03030002, "no SMC-R device found" },
	{ 0x03030003, "hardware has no ISMv2 support" },
	{ 0x03030004, "peer sent no CLC v2 extension" },
	{ 0x03030005, "peer sent no CLC SMC-Dv2 extension" },
	{ 0x03030006, "peer sent no SEID" },
	{ 0x03030007, "no SMC-Dv2 device found" },
	{ 0x03030008, "peer sent no UEID" },
	{ 0x03030009, "release version negotiation failed" },
	{ 0x0303000a, "max connections negotiation failed" },
	{ 0x0303000b, "max links negotiation failed" },
	{ 0x03040000, "SMC modes do not match (R or D)" },
	{ 0x03050000, "peer has eyecatcher in RMBE" },
	{ 0x03060000, "fastopen sockopt not supported" },
	{ 0x03070000, "IP prefix / subnet mismatch" },
	{ 0x03080000, "error getting the VLAN id of the IP device" },
	{ 0x03090000, "error registering the VLAN id on the ISM device" },
	{ 0x030a0000, "no active SMC-R link in the link group" },
	{ 0x030b0000, "SMC-R link from the server not found" },
	{ 0x030c0000, "SMC version mismatch" },
	{ 0x030d0000, "SMC-D DMB limit exceeded" },
	{ 0x030e0000, "SMC-Rv2 connection: no route to peer" },
	{ 0x030f0000, "SMC-Rv2 connection: indirect mismatch" },
	{ 0x04000000, "synchronization error" },
	{ 0x05000000, "peer declined during handshake" },
	{ 0x09990000, "internal error" },
	{ 0x09990001, "internal error: rtoken handling failed" },
	{ 0x09990002, "internal error: ib ready link failed" },
	{ 0x09990003, "internal error: reg rdma bufs failed" },
};

/* The name of an SMC fallback or decline reason code. */
const char *ds_smc_reason_name(uint32_t code)
{
	size_t i;

	for (i = 0; i < sizeof(ds_smc_reasons) / sizeof(ds_smc_reasons[0]); i++)
		if (ds_smc_reasons[i].code == code)
			return ds_smc_reasons[i].name;
	return "unknown reason";
}

/* ---- SMC_GEN_NETLINK --------------------------------------------------- */

/* The kernel's statistics of one SMC mode (SMC_NLA_STATS_*_TECH). */
struct ds_smc_tech {
	uint64_t v[SMC_NLA_STATS_T_MAX + 1];	/* the u64 attributes */
	uint64_t rmb[2][SMC_NLA_STATS_RMB_MAX + 1];	/* tx, rx */
};

struct ds_smc_fback {
	uint32_t code;
	bool server;
	uint64_t count;
	uint32_t pid;		/* owners only */
	char comm[16];
	uint64_t masked;	/* dropscope's: hidden by mask rules */
	bool own;		/* dropscope's: masked is known */
};

struct ds_smc_stats {
	struct ds_smc_tech tech[2];	/* SMC-R, SMC-D */
	uint64_t hs_err[2];		/* client, server */
	uint64_t fback[2];		/* client, server */
	struct ds_smc_fback *fb;
	size_t nfb, capfb;
	bool got;
};

struct ds_smc_nl {
	struct nl_sock *sk;
	int family;
	int err;
};

/*
 * Is smc.ko loaded? Asked before any request: resolving its genetlink
 * family, or asking sock_diag for its sockets, would load it (the kernel
 * loads a family's module on demand), and dropscope only looks.
 */
/*
 * Is the kernel's SMC support there, loaded or built in? It registers its
 * protocol, which /proc/net/protocols lists; /sys/module/smc exists only
 * for a module (smc has no parameters). Asking for its genetlink family
 * instead would load smc.ko.
 */
static bool ds_smc_loaded(void)
{
	FILE *f = fopen("/proc/net/protocols", "r");
	char line[256];
	bool found = false;

	if (!f)
		return !access("/sys/module/smc", F_OK);
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "SMC ", 4);
	fclose(f);
	return found;
}

/*
 * A generic netlink socket to smc.ko's SMC_GEN_NETLINK family. Its absence
 * is said plainly: the rest of dropscope works without smc.ko.
 */
static int ds_smc_open(struct ds_smc_nl *s)
{
	if (!ds_smc_loaded())
		return -ENOENT;
	s->sk = nl_socket_alloc();
	if (!s->sk)
		return -ENOMEM;
	if (genl_connect(s->sk) < 0) {
		nl_socket_free(s->sk);
		return -EIO;
	}
	s->family = genl_ctrl_resolve(s->sk, SMC_GENL_FAMILY_NAME);
	if (s->family < 0) {
		nl_socket_free(s->sk);
		s->sk = NULL;
		return -ENOENT;
	}
	return 0;
}

static int ds_smc_error(struct sockaddr_nl *nla, struct nlmsgerr *e,
			void *arg)
{
	struct ds_smc_nl *s = arg;

	(void)nla;
	s->err = e->error;
	return NL_STOP;
}

/* A dump of cmd; fn sees each message's top-level attributes. */
static int ds_smc_dump(struct ds_smc_nl *s, uint8_t cmd,
		       int (*fn)(struct nl_msg *msg, void *arg), void *arg)
{
	struct nl_cb *cb;
	struct nl_msg *msg;
	int err;

	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, s->family, 0,
			 NLM_F_DUMP, cmd, SMC_GENL_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, fn, arg);
	nl_cb_err(cb, NL_CB_CUSTOM, ds_smc_error, s);
	s->err = 0;
	err = nl_send_auto(s->sk, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_recvmsgs(s->sk, cb);
	nl_cb_put(cb);
	if (s->err)
		return s->err;
	return err < 0 ? -EIO : 0;
}

static void ds_smc_get_u64s(uint64_t *v, int max, struct nlattr *nest)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		int t = nla_type(a);

		if (t > 0 && t <= max && nla_len(a) == sizeof(uint64_t))
			v[t] = nla_get_u64(a);
	}
}

static void ds_smc_tech_parse(struct ds_smc_tech *t, struct nlattr *nest)
{
	struct nlattr *a;
	int rem;

	ds_smc_get_u64s(t->v, SMC_NLA_STATS_T_MAX, nest);
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == SMC_NLA_STATS_T_TX_RMB_STATS)
			ds_smc_get_u64s(t->rmb[0], SMC_NLA_STATS_RMB_MAX, a);
		else if (nla_type(a) == SMC_NLA_STATS_T_RX_RMB_STATS)
			ds_smc_get_u64s(t->rmb[1], SMC_NLA_STATS_RMB_MAX, a);
	}
}

static int ds_smc_stats_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[SMC_GEN_MAX + 1], *st[SMC_NLA_STATS_MAX + 1];
	struct ds_smc_stats *s = arg;
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));

	if (ds_nla_parse(tb, SMC_GEN_MAX, genlmsg_attrdata(g, 0),
			 genlmsg_attrlen(g, 0), NULL) < 0 || !tb[SMC_GEN_STATS])
		return NL_SKIP;
	if (ds_nla_parse_nested(st, SMC_NLA_STATS_MAX, tb[SMC_GEN_STATS],
				NULL) < 0)
		return NL_SKIP;
	if (st[SMC_NLA_STATS_SMCR_TECH])
		ds_smc_tech_parse(&s->tech[0], st[SMC_NLA_STATS_SMCR_TECH]);
	if (st[SMC_NLA_STATS_SMCD_TECH])
		ds_smc_tech_parse(&s->tech[1], st[SMC_NLA_STATS_SMCD_TECH]);
	if (st[SMC_NLA_STATS_CLNT_HS_ERR_CNT])
		s->hs_err[0] = nla_get_u64(st[SMC_NLA_STATS_CLNT_HS_ERR_CNT]);
	if (st[SMC_NLA_STATS_SRV_HS_ERR_CNT])
		s->hs_err[1] = nla_get_u64(st[SMC_NLA_STATS_SRV_HS_ERR_CNT]);
	s->got = true;
	return NL_OK;
}

/* One reason of one side a message, with that side's total. */
static struct ds_smc_fback *ds_smc_fback_add(struct ds_smc_stats *s,
					     uint32_t code, bool server,
					     uint64_t count)
{
	struct ds_smc_fback *f;

	f = ds_grow(s->fb, &s->capfb, s->nfb, sizeof(*s->fb), 16);
	if (!f)
		return NULL;
	s->fb = f;
	f = &s->fb[s->nfb++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->server = server;
	f->count = count;
	return f;
}

static int ds_smc_fback_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[SMC_GEN_MAX + 1];
	struct nlattr *fb[SMC_NLA_FBACK_STATS_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	struct ds_smc_stats *s = arg;
	bool srv;

	if (ds_nla_parse(tb, SMC_GEN_MAX, genlmsg_attrdata(g, 0),
			 genlmsg_attrlen(g, 0), NULL) < 0 ||
	    !tb[SMC_GEN_FBACK_STATS] ||
	    ds_nla_parse_nested(fb, SMC_NLA_FBACK_STATS_MAX,
				tb[SMC_GEN_FBACK_STATS], NULL) < 0 ||
	    !fb[SMC_NLA_FBACK_STATS_TYPE] || !fb[SMC_NLA_FBACK_STATS_RSN_CODE])
		return NL_SKIP;
	srv = nla_get_u8(fb[SMC_NLA_FBACK_STATS_TYPE]);
	/* both sides' totals come with the first reason of the dump */
	if (fb[SMC_NLA_FBACK_STATS_CLNT_CNT])
		s->fback[0] = nla_get_u64(fb[SMC_NLA_FBACK_STATS_CLNT_CNT]);
	if (fb[SMC_NLA_FBACK_STATS_SRV_CNT])
		s->fback[1] = nla_get_u64(fb[SMC_NLA_FBACK_STATS_SRV_CNT]);
	if (!ds_smc_fback_add(s, nla_get_u32(fb[SMC_NLA_FBACK_STATS_RSN_CODE]),
			      srv, fb[SMC_NLA_FBACK_STATS_RSN_CNT] ?
			      nla_get_u16(fb[SMC_NLA_FBACK_STATS_RSN_CNT]) : 0))
		return NL_STOP;
	return NL_OK;
}

static int ds_smc_fback_cmp(const void *a, const void *b)
{
	const struct ds_smc_fback *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->server != y->server)
		return x->server ? 1 : -1;
	return x->code < y->code ? -1 : x->code > y->code;
}

/* What the lines of a mode show: its attribute, JSON key and label. */
static const struct {
	int attr;
	const char *key;
	const char *label;
} ds_smc_tech_fields[] = {
	{ SMC_NLA_STATS_T_CLNT_V1_SUCC, "client_v1", "connections as client, v1" },
	{ SMC_NLA_STATS_T_CLNT_V2_SUCC, "client_v2", "connections as client, v2" },
	{ SMC_NLA_STATS_T_SRV_V1_SUCC, "server_v1", "connections as server, v1" },
	{ SMC_NLA_STATS_T_SRV_V2_SUCC, "server_v2", "connections as server, v2" },
	{ SMC_NLA_STATS_T_RX_BYTES, "rx_bytes", "bytes received" },
	{ SMC_NLA_STATS_T_TX_BYTES, "tx_bytes", "bytes sent" },
	{ SMC_NLA_STATS_T_RX_CNT, "rx_requests", "receive requests" },
	{ SMC_NLA_STATS_T_TX_CNT, "tx_requests", "send requests" },
	{ SMC_NLA_STATS_T_SENDPAGE_CNT, "sendpage", "sendpage calls" },
	{ SMC_NLA_STATS_T_SPLICE_CNT, "splice", "splice calls" },
	{ SMC_NLA_STATS_T_CORK_CNT, "cork", "corked sends" },
	{ SMC_NLA_STATS_T_NDLY_CNT, "nodelay", "sends with TCP_NODELAY" },
	{ SMC_NLA_STATS_T_URG_DATA_CNT, "urgent", "urgent data sends" },
};

/* Buffer pressure, of the send (tx) and receive (rx) buffers. */
static const struct {
	int attr;
	const char *key;
	const char *label;
} ds_smc_rmb_fields[] = {
	{ SMC_NLA_STATS_RMB_FULL_CNT, "full", "buffer full" },
	{ SMC_NLA_STATS_RMB_FULL_PEER_CNT, "peer_full", "peer's buffer full" },
	{ SMC_NLA_STATS_RMB_SIZE_SM_CNT, "too_small", "buffer too small" },
	{ SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT, "peer_too_small",
	  "peer's buffer too small" },
	{ SMC_NLA_STATS_RMB_ALLOC_CNT, "allocated", "buffers allocated" },
	{ SMC_NLA_STATS_RMB_REUSE_CNT, "reused", "buffers reused" },
	{ SMC_NLA_STATS_RMB_DGRADE_CNT, "downgraded", "buffers downgraded" },
};


static void ds_smc_tech_print(struct ds_print *p, const char *key,
			      const char *title, const struct ds_smc_tech *t)
{
	static const char *const dir[2] = { "tx", "rx" };
	char fmt[80], k[40];
	size_t i, d;

	ds_print_text(p, "%s\n", title);
	ds_print_open_obj(p, key);
	for (i = 0; i < DS_N(ds_smc_tech_fields); i++) {
		snprintf(fmt, sizeof(fmt), "  %-34s %%" PRIu64 "\n",
			 ds_smc_tech_fields[i].label);
		ds_print_u64(p, DS_ANY, ds_smc_tech_fields[i].key, fmt,
			     t->v[ds_smc_tech_fields[i].attr]);
	}
	for (d = 0; d < 2; d++) {
		for (i = 0; i < DS_N(ds_smc_rmb_fields); i++) {
			snprintf(k, sizeof(k), "%s_%s", dir[d],
				 ds_smc_rmb_fields[i].key);
			snprintf(fmt, sizeof(fmt), "  %s %-31s %%" PRIu64 "\n",
				 dir[d], ds_smc_rmb_fields[i].label);
			ds_print_u64(p, DS_ANY, k, fmt,
				     t->rmb[d][ds_smc_rmb_fields[i].attr]);
		}
	}
	ds_print_close_obj(p);
}

static const struct ds_col ds_fback_cols[] = {
	{ "code", "CODE", "  ", 10, 0 },
	{ "side", "SIDE", "  ", 6, 0 },
	{ "count", "COUNT", "  ", 8, DS_COL_RIGHT },
	{ "name", "REASON", "  ", 0, 0 },
	{ NULL, NULL, "  ", 0, 0 },
};

static void ds_smc_fbacks_print(struct ds_print *p, const struct ds_smc_stats *s)
{
	char code[16];
	size_t i;

	ds_print_open_table(p, "fallbacks", ds_fback_cols,
			    DS_NCOLS(ds_fback_cols), DS_TABLE_HEAD);
	for (i = 0; i < s->nfb; i++) {
		const struct ds_smc_fback *f = &s->fb[i];

		snprintf(code, sizeof(code), "0x%08x", f->code);
		ds_print_open_obj(p, NULL);
		ds_print_str(p, DS_ANY, "code", "%s", code);
		ds_print_str(p, DS_ANY, "side", "%s",
			     f->server ? "server" : "client");
		ds_print_u64(p, DS_ANY, "count", "%" PRIu64, f->count);
		ds_print_str(p, DS_ANY, "name", "%s",
			     ds_smc_reason_name(f->code));
		if (f->own)
			ds_print_u64(p, f->masked ? DS_ANY : DS_JSON, "masked",
				     "(masked: %" PRIu64 ")", f->masked);
		ds_print_close_obj(p);
	}
	ds_print_close_table(p);
	if (!s->nfb)
		ds_print_text(p, "  no fallback\n");
}

static int ds_smc_absent(void)
{
	fprintf(stderr, "dropscope: the kernel's SMC support (smc.ko) is not loaded: sudo modprobe smc\n");
	return DS_EFAIL;
}

/*
 * The kernel's SMC statistics and fallbacks, into st (whose fb the caller
 * frees); a DS_ status, with the reason said on standard error.
 */
static int ds_smc_read(struct ds_smc_stats *st)
{
	struct ds_smc_nl s = { 0 };
	int err;

	memset(st, 0, sizeof(*st));
	err = ds_smc_open(&s);
	if (err == -ENOENT)
		return ds_smc_absent();
	if (err) {
		fprintf(stderr, "dropscope: cannot open a generic netlink socket: %s\n",
			strerror(-err));
		return DS_EFAIL;
	}
	err = ds_smc_dump(&s, SMC_NETLINK_GET_STATS, ds_smc_stats_cb, st);
	if (!err)
		err = ds_smc_dump(&s, SMC_NETLINK_GET_FBACK_STATS,
				  ds_smc_fback_cb, st);
	nl_socket_free(s.sk);
	if (err) {
		free(st->fb);
		st->fb = NULL;
		fprintf(stderr, "dropscope: reading the kernel's SMC statistics failed: %s\n",
			strerror(-err));
		return err == -EPERM ? DS_EPERM : DS_EFAIL;
	}
	return DS_OK;
}

/* ---- dropscope's own SMC counters (DROPSCOPE_CMD_SMC_GET) -------------- */

static const struct {
	int attr;
	const char *key;
	const char *label;
} ds_smc_own_fields[] = {
	{ DROPSCOPE_SMC_A_FALLBACKS, "fallbacks_total", "fallbacks to TCP" },
	{ DROPSCOPE_SMC_A_FALLBACKS_MASKED, "fallbacks_masked",
	  "fallbacks masked by rules" },
	{ DROPSCOPE_SMC_A_TX_BYTES, "tx_bytes", "payload bytes sent" },
	{ DROPSCOPE_SMC_A_TX_EVENTS, "tx_copies", "copies to send buffers" },
	{ DROPSCOPE_SMC_A_RX_BYTES, "rx_bytes", "payload bytes received" },
	{ DROPSCOPE_SMC_A_RX_EVENTS, "rx_copies", "copies from receive buffers" },
	{ DROPSCOPE_SMC_A_LINK_DOWNS, "link_downs", "SMC-R links gone down" },
	{ DROPSCOPE_SMC_A_OVERFLOW, "overflow", "fallbacks without room (overflow)" },
	{ DROPSCOPE_SMC_A_OWNERS_OVERFLOW, "owners_overflow", "owners without room" },
	{ DROPSCOPE_SMC_A_SMCR_TX_BYTES, "smcr_tx_bytes", "SMC-R payload bytes sent" },
	{ DROPSCOPE_SMC_A_SMCR_TX_EVENTS, "smcr_tx_copies", "SMC-R copies to send buffers" },
	{ DROPSCOPE_SMC_A_SMCR_RX_BYTES, "smcr_rx_bytes", "SMC-R payload bytes received" },
	{ DROPSCOPE_SMC_A_SMCR_RX_EVENTS, "smcr_rx_copies", "SMC-R copies from receive buffers" },
	{ DROPSCOPE_SMC_A_SMCD_TX_BYTES, "smcd_tx_bytes", "SMC-D payload bytes sent" },
	{ DROPSCOPE_SMC_A_SMCD_TX_EVENTS, "smcd_tx_copies", "SMC-D copies to send buffers" },
	{ DROPSCOPE_SMC_A_SMCD_RX_BYTES, "smcd_rx_bytes", "SMC-D payload bytes received" },
	{ DROPSCOPE_SMC_A_SMCD_RX_EVENTS, "smcd_rx_copies", "SMC-D copies from receive buffers" },
	{ DROPSCOPE_SMC_A_DEVS_OVERFLOW, "devices_overflow", "device copies without room" },
};

/* An RDMA device SMC-R moved data on. */
struct ds_smc_dev {
	char name[64];
	uint64_t v[4];		/* tx bytes, tx copies, rx bytes, rx copies */
};

static const struct {
	int attr;
	const char *key;
} ds_smc_dev_fields[4] = {
	{ DROPSCOPE_SMC_DEV_A_TX_BYTES, "tx_bytes" },
	{ DROPSCOPE_SMC_DEV_A_TX_EVENTS, "tx_copies" },
	{ DROPSCOPE_SMC_DEV_A_RX_BYTES, "rx_bytes" },
	{ DROPSCOPE_SMC_DEV_A_RX_EVENTS, "rx_copies" },
};

struct ds_smc_own {
	uint8_t hooked;
	uint8_t layout;
	struct ds_smc_dev devs[16];
	size_t ndevs;
	uint64_t v[DROPSCOPE_SMC_A_MAX + 1];
	struct ds_smc_stats fbs;	/* only fb, nfb, capfb */
	struct ds_smc_stats owners;	/* the same, with pid and comm */
};

/* A DROPSCOPE_A_SMC_FALLBACK or _OWNER nest into s; delta: its delta. */
static int ds_smc_fb_parse(struct nlattr *at, struct ds_smc_stats *s,
		    uint64_t *delta)
{
	struct nlattr *f[DROPSCOPE_SMC_FB_A_MAX + 1];
	struct ds_smc_fback *e;

	if (nla_parse_nested(f, DROPSCOPE_SMC_FB_A_MAX, at, NULL) < 0 ||
	    !f[DROPSCOPE_SMC_FB_A_CODE] || !f[DROPSCOPE_SMC_FB_A_SIDE] ||
	    !f[DROPSCOPE_SMC_FB_A_TOTAL] || (delta && !f[DROPSCOPE_SMC_FB_A_DELTA]))
		return -EINVAL;
	e = ds_smc_fback_add(s, nla_get_u32(f[DROPSCOPE_SMC_FB_A_CODE]),
			     nla_get_u8(f[DROPSCOPE_SMC_FB_A_SIDE]) ==
			     DROPSCOPE_SMC_SERVER,
			     nla_get_u64(f[DROPSCOPE_SMC_FB_A_TOTAL]));
	if (!e)
		return -ENOMEM;
	e->own = true;
	if (f[DROPSCOPE_SMC_FB_A_MASKED])
		e->masked = nla_get_u64(f[DROPSCOPE_SMC_FB_A_MASKED]);
	if (f[DROPSCOPE_SMC_FB_A_PID])
		e->pid = nla_get_u32(f[DROPSCOPE_SMC_FB_A_PID]);
	if (f[DROPSCOPE_SMC_FB_A_COMM])
		snprintf(e->comm, sizeof(e->comm), "%s",
			 nla_get_string(f[DROPSCOPE_SMC_FB_A_COMM]));
	if (delta)
		*delta = nla_get_u64(f[DROPSCOPE_SMC_FB_A_DELTA]);
	return 0;
}

/* A DROPSCOPE_A_SMC_DEV nest into o; the module sends at most 16. */
static int ds_smc_dev_parse(struct nlattr *at, struct ds_smc_own *o)
{
	struct nlattr *f[DROPSCOPE_SMC_DEV_A_MAX + 1];
	struct ds_smc_dev *d;
	size_t i;

	if (nla_parse_nested(f, DROPSCOPE_SMC_DEV_A_MAX, at, NULL) < 0 ||
	    !f[DROPSCOPE_SMC_DEV_A_NAME] || o->ndevs == DS_N(o->devs))
		return -EINVAL;
	d = &o->devs[o->ndevs++];
	nla_strlcpy(d->name, f[DROPSCOPE_SMC_DEV_A_NAME], sizeof(d->name));
	for (i = 0; i < DS_N(ds_smc_dev_fields); i++)
		if (f[ds_smc_dev_fields[i].attr])
			d->v[i] = nla_get_u64(f[ds_smc_dev_fields[i].attr]);
	return 0;
}

static const struct ds_col ds_dev_cols[] = {
	{ "name", "DEVICE", "  ", 12, 0 },
	{ "tx_bytes", "TX_BYTES", "  ", 14, DS_COL_RIGHT },
	{ "tx_copies", "TX_COPIES", "  ", 10, DS_COL_RIGHT },
	{ "rx_bytes", "RX_BYTES", "  ", 14, DS_COL_RIGHT },
	{ "rx_copies", "RX_COPIES", "  ", 10, DS_COL_RIGHT },
	{ NULL, NULL, "  ", 0, 0 },
};

/* The SMC-R devices dropscope saw move data. */
static void ds_smc_devs_print(struct ds_print *p, const struct ds_smc_own *o)
{
	size_t i, k;

	if (o->ndevs)
		ds_print_text(p, "SMC-R by device\n");
	ds_print_open_table(p, "devices", ds_dev_cols, DS_NCOLS(ds_dev_cols),
			    DS_TABLE_HEAD);
	for (i = 0; i < o->ndevs; i++) {
		ds_print_open_obj(p, NULL);
		ds_print_str(p, DS_ANY, "name", "%s", o->devs[i].name);
		for (k = 0; k < DS_N(ds_smc_dev_fields); k++)
			ds_print_u64(p, DS_ANY, ds_smc_dev_fields[k].key,
				     "%" PRIu64, o->devs[i].v[k]);
		ds_print_close_obj(p);
	}
	ds_print_close_table(p);
}

static int ds_smc_own_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			 void *arg)
{
	struct nlattr *t[DROPSCOPE_SMC_A_MAX + 1];
	struct ds_smc_own *o = arg;
	struct nlattr *at;
	size_t i;
	int rem, err;

	if (!tb[DROPSCOPE_A_SMC] ||
	    nla_parse_nested(t, DROPSCOPE_SMC_A_MAX, tb[DROPSCOPE_A_SMC],
			     NULL) < 0)
		return -EINVAL;
	if (t[DROPSCOPE_SMC_A_HOOKED])
		o->hooked = nla_get_u8(t[DROPSCOPE_SMC_A_HOOKED]);
	if (t[DROPSCOPE_SMC_A_LAYOUT])
		o->layout = nla_get_u8(t[DROPSCOPE_SMC_A_LAYOUT]);
	for (i = 0; i < DS_N(ds_smc_own_fields); i++)
		if (t[ds_smc_own_fields[i].attr])
			o->v[ds_smc_own_fields[i].attr] =
				nla_get_u64(t[ds_smc_own_fields[i].attr]);
	nla_for_each_attr(at, attrs, len, rem) {
		if (nla_type(at) == DROPSCOPE_A_SMC_FALLBACK)
			err = ds_smc_fb_parse(at, &o->fbs, NULL);
		else if (nla_type(at) == DROPSCOPE_A_SMC_OWNER)
			err = ds_smc_fb_parse(at, &o->owners, NULL);
		else if (nla_type(at) == DROPSCOPE_A_SMC_DEV)
			err = ds_smc_dev_parse(at, o);
		else
			continue;
		if (err)
			return err;
	}
	return 0;
}

static const struct ds_col ds_owner_cols[] = {
	{ "count", "COUNT", "", 8, DS_COL_RIGHT },
	{ "pid", "PID", "  ", 7, DS_COL_RIGHT },
	{ "comm", "COMM", "  ", 16, 0 },
	{ "code", "CODE", "  ", 10, 0 },
	{ "side", "SIDE", "  ", 6, 0 },
	{ "name", "REASON", "  ", 0, 0 },
	{ NULL, NULL, "  ", 0, 0 },
};

/* The owners of the fallbacks, the most frequent first; text: the top 10. */
static void ds_smc_owners_print(struct ds_print *p, const struct ds_smc_stats *s)
{
	char code[16], pid[16];
	size_t i;

	if (s->nfb)
		ds_print_text(p, "Fallbacks by owner\n");
	ds_print_open_table(p, "owners", ds_owner_cols, DS_NCOLS(ds_owner_cols),
			    DS_TABLE_HEAD);
	for (i = 0; i < s->nfb; i++) {
		const struct ds_smc_fback *f = &s->fb[i];
		enum ds_pmode m = i < 10 ? DS_ANY : DS_JSON;

		snprintf(code, sizeof(code), "0x%08x", f->code);
		ds_print_open_obj(p, NULL);
		ds_print_u64(p, m, "count", "%" PRIu64, f->count);
		/* PID 0: a kernel worker, before any process held the socket */
		snprintf(pid, sizeof(pid), f->pid ? "%" PRIu32 : "-", f->pid);
		ds_print_u64_as(p, m, "pid", "%s", f->pid, pid);
		ds_print_str(p, m, "comm", "%s", f->pid ? f->comm : "(kernel)");
		ds_print_str(p, m, "code", "%s", code);
		ds_print_str(p, m, "side", "%s", f->server ? "server" : "client");
		ds_print_str(p, m, "name", "%s", ds_smc_reason_name(f->code));
		ds_print_u64(p, f->masked && m == DS_ANY ? DS_ANY : DS_JSON,
			     "masked", "(masked: %" PRIu64 ")", f->masked);
		ds_print_close_obj(p);
	}
	ds_print_close_table(p);
	if (s->nfb > 10)
		ds_print_text(p, "(%zu more)\n", s->nfb - 10);
}

/*
 * What dropscope counted since start, at the top of show smc's object;
 * without dropscope.ko, a line that says so.
 */
static int ds_smc_own_print(struct ds_ctx *ctx, struct ds_print *p)
{
	struct ds_smc_own o = { 0 };
	char fmt[80];
	size_t i;
	int err;

	if (!ctx->nl && ds_nl_open(&ctx->nl)) {
		ds_nl_close(ctx->nl);
		ctx->nl = NULL;
		ds_print_text(p, "dropscope.ko is not loaded: no SMC counts since start\n");
		return DS_OK;
	}
	err = ds_nl_do(ctx->nl, DROPSCOPE_CMD_SMC_GET, ds_smc_own_cb, &o);
	if (err) {
		free(o.fbs.fb);
		free(o.owners.fb);
		return ds_fail(ctx, err);
	}
	qsort(o.fbs.fb, o.fbs.nfb, sizeof(*o.fbs.fb), ds_smc_fback_cmp);
	qsort(o.owners.fb, o.owners.nfb, sizeof(*o.owners.fb), ds_smc_fback_cmp);
	ds_print_text(p, "dropscope, since start (%s)\n", o.hooked ?
		      "watching smc.ko" : "not watching smc.ko now");
	ds_print_bool(p, DS_JSON, "watching", NULL, o.hooked);
	ds_print_bool(p, DS_JSON, "layout", NULL, o.layout);
	if (o.hooked && !o.layout)
		ds_print_text(p, "  (no layout of smc.ko's sockets in the kernel's BTF: no modes, devices,\n"
			      "   session modes or server owners)\n");
	for (i = 0; i < DS_N(ds_smc_own_fields); i++) {
		snprintf(fmt, sizeof(fmt), "  %-34s %%" PRIu64 "\n",
			 ds_smc_own_fields[i].label);
		ds_print_u64(p, DS_ANY, ds_smc_own_fields[i].key, fmt,
			     o.v[ds_smc_own_fields[i].attr]);
	}
	ds_smc_devs_print(p, &o);
	ds_smc_fbacks_print(p, &o.fbs);
	ds_smc_owners_print(p, &o.owners);
	free(o.fbs.fb);
	free(o.owners.fb);
	return DS_OK;
}

/* dropscope's SMC counters as metrics; nothing while SMC is not hooked. */
void ds_smc_metrics(struct ds_nl *nl, struct ds_metrics *m)
{
	static const struct {
		int family, attr;
		const char *labels;
	} map[] = {
		{ DS_MF_SMC_BYTES, DROPSCOPE_SMC_A_SMCR_TX_BYTES, "direction=\"tx\",mode=\"smcr\"" },
		{ DS_MF_SMC_BYTES, DROPSCOPE_SMC_A_SMCR_RX_BYTES, "direction=\"rx\",mode=\"smcr\"" },
		{ DS_MF_SMC_BYTES, DROPSCOPE_SMC_A_SMCD_TX_BYTES, "direction=\"tx\",mode=\"smcd\"" },
		{ DS_MF_SMC_BYTES, DROPSCOPE_SMC_A_SMCD_RX_BYTES, "direction=\"rx\",mode=\"smcd\"" },
		{ DS_MF_SMC_COPIES, DROPSCOPE_SMC_A_SMCR_TX_EVENTS, "direction=\"tx\",mode=\"smcr\"" },
		{ DS_MF_SMC_COPIES, DROPSCOPE_SMC_A_SMCR_RX_EVENTS, "direction=\"rx\",mode=\"smcr\"" },
		{ DS_MF_SMC_COPIES, DROPSCOPE_SMC_A_SMCD_TX_EVENTS, "direction=\"tx\",mode=\"smcd\"" },
		{ DS_MF_SMC_COPIES, DROPSCOPE_SMC_A_SMCD_RX_EVENTS, "direction=\"rx\",mode=\"smcd\"" },
		{ DS_MF_SMC_LINK_DOWNS, DROPSCOPE_SMC_A_LINK_DOWNS, "" },
	};
	struct ds_smc_own o = { 0 };
	char labels[256];
	size_t i;

	if (ds_nl_do(nl, DROPSCOPE_CMD_SMC_GET, ds_smc_own_cb, &o) || !o.hooked)
		goto out;
	for (i = 0; i < DS_N(map); i++)
		ds_metric(m, map[i].family, map[i].labels, o.v[map[i].attr]);
	for (i = 0; i < o.fbs.nfb; i++) {
		const struct ds_smc_fback *f = &o.fbs.fb[i];

		snprintf(labels, sizeof(labels),
			 "code=\"0x%08x\",name=\"%s\",side=\"%s\"", f->code,
			 ds_smc_reason_name(f->code),
			 f->server ? "server" : "client");
		ds_metric(m, DS_MF_SMC_FALLBACKS, labels, f->count);
	}
	for (i = 0; i < o.ndevs; i++) {
		snprintf(labels, sizeof(labels), "device=\"%s\",direction=\"tx\"",
			 o.devs[i].name);
		ds_metric(m, DS_MF_SMC_DEV_BYTES, labels, o.devs[i].v[0]);
		snprintf(labels, sizeof(labels), "device=\"%s\",direction=\"rx\"",
			 o.devs[i].name);
		ds_metric(m, DS_MF_SMC_DEV_BYTES, labels, o.devs[i].v[2]);
	}
out:
	free(o.fbs.fb);
	free(o.owners.fb);
}

int cmd_show_smc(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_smc_stats st;
	int err, kerr;

	(void)argv;
	if (argc)
		return ds_usage(self, "takes no arguments (or: show smc sockets)");
	/* without smc.ko, what dropscope counted still shows; exit 1 */
	kerr = ds_smc_read(&st);
	if (kerr && ds_smc_loaded())
		return kerr;
	qsort(st.fb, st.nfb, sizeof(*st.fb), ds_smc_fback_cmp);

	ds_print_open_obj(&p, NULL);
	err = ds_smc_own_print(ctx, &p);
	if (err || kerr) {
		ds_print_close_obj(&p);
		free(st.fb);
		return err ? err : kerr;
	}
	ds_print_open_obj(&p, "kernel");
	ds_print_text(&p, "The kernel's SMC statistics (smc.ko, since it was loaded)\n");
	ds_smc_tech_print(&p, "smcr", "SMC-R", &st.tech[0]);
	ds_smc_tech_print(&p, "smcd", "SMC-D", &st.tech[1]);
	ds_print_text(&p, "Handshakes and fallbacks\n");
	ds_print_u64(&p, DS_ANY, "client_handshake_errors",
		     "  handshake errors as client         %" PRIu64 "\n",
		     st.hs_err[0]);
	ds_print_u64(&p, DS_ANY, "server_handshake_errors",
		     "  handshake errors as server         %" PRIu64 "\n",
		     st.hs_err[1]);
	ds_print_u64(&p, DS_ANY, "client_fallbacks",
		     "  fallbacks to TCP as client         %" PRIu64 "\n",
		     st.fback[0]);
	ds_print_u64(&p, DS_ANY, "server_fallbacks",
		     "  fallbacks to TCP as server         %" PRIu64 "\n",
		     st.fback[1]);
	ds_smc_fbacks_print(&p, &st);
	ds_print_close_obj(&p);
	ds_print_close_obj(&p);
	free(st.fb);
	return DS_OK;
}

/* ---- SMC sock_diag ----------------------------------------------------- */

struct ds_smc_sock {
	uint64_t inode;
	uint32_t uid;
	uint32_t reason;	/* fallback reason, when it fell back */
	uint32_t pid;
	uint16_t lport, rport;
	uint8_t state;
	uint8_t mode;
	bool has_reason;
	char laddr[48], raddr[48];
	char comm[16];
};

struct ds_smc_socks {
	struct ds_smc_sock *v;
	size_t n, cap;
};

/* The SMC socket states of net/smc/smc.h. */
static const char *ds_smc_state_name(unsigned int st)
{
	switch (st) {
	case 1: return "ACTIVE";
	case 2: return "INIT";
	case 7: return "CLOSED";
	case 10: return "LISTEN";
	case 20: return "PEERCLW1";
	case 21: return "PEERCLW2";
	case 22: return "APPCLW1";
	case 23: return "APPCLW2";
	case 24: return "APPFINCLW";
	case 25: return "PEERFINCLW";
	case 26: return "PEERABORTW";
	case 27: return "PROCESSABORT";
	default: return "UNKNOWN";
	}
}

/*
 * The message carries the addresses of the socket's TCP (CLC) socket but
 * not their family: an IPv4 address fills the first word alone.
 */
static void ds_smc_addr(const __be32 *a, const __be32 *b, uint16_t port,
			char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN];
	bool v4 = !(a[1] | a[2] | a[3] | b[1] | b[2] | b[3]);

	inet_ntop(v4 ? AF_INET : AF_INET6, a, s, sizeof(s));
	snprintf(buf, len, v4 ? "%s:%u" : "[%s]:%u", s, port);
}

static int ds_smc_diag_msg(struct nlmsghdr *h, struct ds_smc_socks *out)
{
	struct smc_diag_msg *r = NLMSG_DATA(h);
	struct rtattr *a;
	struct ds_smc_sock *s;
	int len;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*r)))
		return -EINVAL;
	s = ds_grow(out->v, &out->cap, out->n, sizeof(*out->v), 64);
	if (!s)
		return -ENOMEM;
	out->v = s;
	s = &out->v[out->n++];
	memset(s, 0, sizeof(*s));
	s->state = r->diag_state;
	s->mode = r->diag_mode;
	s->uid = r->diag_uid;
	s->inode = r->diag_inode;
	s->lport = ntohs(r->id.idiag_sport);
	s->rport = ntohs(r->id.idiag_dport);
	ds_smc_addr(r->id.idiag_src, r->id.idiag_dst, s->lport, s->laddr,
		    sizeof(s->laddr));
	ds_smc_addr(r->id.idiag_dst, r->id.idiag_src, s->rport, s->raddr,
		    sizeof(s->raddr));
	len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*r));
	for (a = (struct rtattr *)(r + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == SMC_DIAG_FALLBACK &&
		    RTA_PAYLOAD(a) >= sizeof(struct smc_diag_fallback)) {
			struct smc_diag_fallback fb;

			memcpy(&fb, RTA_DATA(a), sizeof(fb));
			s->reason = fb.reason;
			s->has_reason = true;
		}
	}
	return 0;
}

/* Every SMC socket, IPv4 and IPv6, from SMC sock_diag (smc_diag.ko). */
static int ds_smc_diag_dump(struct ds_smc_socks *out)
{
	struct {
		struct nlmsghdr h;
		struct smc_diag_req r;
	} req = {
		.h = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1,
		},
		.r = {
			.diag_family = AF_SMC,
			.diag_ext = 1 << (SMC_DIAG_FALLBACK - 1),
			.id.idiag_cookie = { INET_DIAG_NOCOOKIE,
					     INET_DIAG_NOCOOKIE },
		},
	};
	static char buf[32768];
	struct sockaddr_nl nladdr = { .nl_family = AF_NETLINK };
	int fd, err = 0;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nladdr,
		   sizeof(nladdr)) < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		struct nlmsghdr *h;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (n == 0)
			goto out;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				goto out;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				err = e->error ? e->error : -EIO;
				goto out;
			}
			err = ds_smc_diag_msg(h, out);
			if (err)
				goto out;
		}
	}
out:
	close(fd);
	return err;
}

/*
 * The process of each socket, from /proc/PID/fd (as ss -p finds it): the
 * lowest PID holding the socket's inode.
 */
static void ds_smc_owners(struct ds_smc_socks *s)
{
	char path[300], link[64], *end;
	struct dirent *p, *f;
	DIR *proc, *fds;
	unsigned long long ino;
	unsigned long pid;
	size_t i;
	ssize_t n;
	FILE *c;

	proc = opendir("/proc");
	if (!proc)
		return;
	while ((p = readdir(proc))) {
		pid = strtoul(p->d_name, &end, 10);
		if (*end || !pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%lu/fd", pid);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%lu/fd/%s", pid,
				 f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (sscanf(link, "socket:[%llu]", &ino) != 1)
				continue;
			for (i = 0; i < s->n; i++) {
				if (s->v[i].inode != ino ||
				    (s->v[i].pid && s->v[i].pid < pid))
					continue;
				s->v[i].pid = pid;
				snprintf(path, sizeof(path), "/proc/%lu/comm",
					 pid);
				c = fopen(path, "re");
				if (c) {
					if (fgets(s->v[i].comm,
						  sizeof(s->v[i].comm), c))
						s->v[i].comm[strcspn(s->v[i].comm, "\n")] = '\0';
					fclose(c);
				}
			}
		}
		closedir(fds);
	}
	closedir(proc);
}

static const struct ds_col ds_smc_sock_cols[] = {
	{ "state", "STATE", "", 8, 0 },
	{ "uid", "UID", "  ", 5, DS_COL_RIGHT },
	{ "inode", "INODE", "  ", 7, DS_COL_RIGHT },
	{ "local", "LOCAL", "  ", 15, 0 },
	{ "peer", "PEER", "  ", 15, 0 },
	{ "pid", "PID", "  ", 5, DS_COL_RIGHT },
	{ "comm", "COMM", "  ", 8, 0 },
	{ "mode", "MODE", "  ", 0, 0 },
	{ NULL, NULL, "  ", 0, 0 },
};

int cmd_show_smc_sockets(struct ds_ctx *ctx, const struct ds_cmd *self,
			 int argc, char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_smc_socks s = { 0 };
	char mode[32];
	size_t i;
	int err;

	(void)argv;
	if (argc)
		return ds_usage(self, "takes no arguments");
	if (!ds_smc_loaded())
		return ds_smc_absent();
	err = ds_smc_diag_dump(&s);
	if (err == -ENOENT || err == -EAFNOSUPPORT || err == -EINVAL) {
		free(s.v);
		fprintf(stderr, "dropscope: the kernel's SMC socket diagnostics (smc_diag.ko) are not loaded: sudo modprobe smc_diag\n");
		return DS_EFAIL;
	}
	if (err) {
		free(s.v);
		fprintf(stderr, "dropscope: listing SMC sockets failed: %s\n",
			strerror(-err));
		return err == -EPERM ? DS_EPERM : DS_EFAIL;
	}
	ds_smc_owners(&s);
	ds_print_open_table(&p, NULL, ds_smc_sock_cols,
			    DS_NCOLS(ds_smc_sock_cols), DS_TABLE_HEAD);
	for (i = 0; i < s.n; i++) {
		const struct ds_smc_sock *k = &s.v[i];

		if (k->mode == SMC_DIAG_MODE_SMCR)
			snprintf(mode, sizeof(mode), "SMCR");
		else if (k->mode == SMC_DIAG_MODE_SMCD)
			snprintf(mode, sizeof(mode), "SMCD");
		else if (k->has_reason && k->reason)
			snprintf(mode, sizeof(mode), "TCP 0x%08x", k->reason);
		else
			snprintf(mode, sizeof(mode), "TCP");
		ds_print_open_obj(&p, NULL);
		ds_print_str(&p, DS_ANY, "state", "%s",
			     ds_smc_state_name(k->state));
		ds_print_u32(&p, DS_ANY, "uid", "%" PRIu32, k->uid);
		ds_print_u64(&p, DS_ANY, "inode", "%" PRIu64, k->inode);
		ds_print_str(&p, DS_ANY, "local", "%s", k->laddr);
		ds_print_str(&p, DS_ANY, "peer", "%s", k->raddr);
		ds_print_u32(&p, DS_ANY, "pid", "%" PRIu32, k->pid);
		ds_print_str(&p, DS_ANY, "comm", "%s", k->pid ? k->comm : "-");
		ds_print_str(&p, DS_ANY, "mode", "%s", mode);
		if (k->mode == SMC_DIAG_MODE_FALLBACK_TCP) {
			snprintf(mode, sizeof(mode), "0x%08x", k->reason);
			ds_print_str(&p, DS_JSON, "fallback_code", NULL, mode);
			ds_print_str(&p, DS_JSON, "fallback_name", NULL,
				     ds_smc_reason_name(k->reason));
		}
		ds_print_close_obj(&p);
	}
	ds_print_close_table(&p);
	if (!s.n)
		ds_print_text(&p, "no SMC sockets\n");
	free(s.v);
	return DS_OK;
}

/* ---- watch smc ---------------------------------------------------------- */

struct ds_smc_watch {
	struct ds_print p;
	struct ds_smc_stats prev;
	uint64_t interval_ms;
	uint64_t next;		/* ds_now_ms() of the next frame */
	uint64_t last;		/* of the last one */
	uint64_t frames, count;
	int status;
};

static uint64_t ds_smc_conns(const struct ds_smc_stats *st)
{
	uint64_t n = 0;
	int t;

	for (t = 0; t < 2; t++)
		n += st->tech[t].v[SMC_NLA_STATS_T_CLNT_V1_SUCC] +
		     st->tech[t].v[SMC_NLA_STATS_T_CLNT_V2_SUCC] +
		     st->tech[t].v[SMC_NLA_STATS_T_SRV_V1_SUCC] +
		     st->tech[t].v[SMC_NLA_STATS_T_SRV_V2_SUCC];
	return n;
}

static uint64_t ds_smc_sum(const struct ds_smc_stats *st, int attr)
{
	return st->tech[0].v[attr] + st->tech[1].v[attr];
}

/* What a reason's count was in the last frame. */
static uint64_t ds_smc_fback_was(const struct ds_smc_stats *st,
				 const struct ds_smc_fback *f)
{
	size_t i;

	for (i = 0; i < st->nfb; i++)
		if (st->fb[i].code == f->code && st->fb[i].server == f->server)
			return st->fb[i].count;
	return 0;
}

/* A rate in the frame's interval, per second. */
static uint64_t ds_smc_rate(uint64_t d, uint64_t ms)
{
	return ms ? d * 1000 / ms : 0;
}

/* One frame: what grew since the last, a line, and a line per reason. */
static void ds_smc_frame(struct ds_smc_watch *w, const struct ds_smc_stats *st,
			 uint64_t ms)
{
	struct ds_print *p = &w->p;
	uint64_t d, fb = 0;
	char stamp[32], code[16];
	size_t i;
	static const struct {
		int attr;
		const char *key, *rate_key, *fmt;
	} f[] = {
		{ SMC_NLA_STATS_T_RX_BYTES, "rx_bytes", "rx_bytes_per_s",
		  "  rx %" PRIu64 " B/s" },
		{ SMC_NLA_STATS_T_TX_BYTES, "tx_bytes", "tx_bytes_per_s",
		  "  tx %" PRIu64 " B/s" },
		{ SMC_NLA_STATS_T_RX_CNT, "rx_requests", "rx_requests_per_s",
		  "  %" PRIu64 " rx/s" },
		{ SMC_NLA_STATS_T_TX_CNT, "tx_requests", "tx_requests_per_s",
		  "  %" PRIu64 " tx/s" },
	};

	for (i = 0; i < st->nfb; i++)
		fb += st->fb[i].count - ds_smc_fback_was(&w->prev, &st->fb[i]);
	ds_stamp(stamp, sizeof(stamp));
	ds_print_open_obj(p, NULL);
	ds_print_str(p, DS_ANY, "time", "%s", stamp);
	ds_print_u64(p, DS_JSON, "interval_ms", NULL, ms);
	for (i = 0; i < DS_N(f); i++) {
		d = ds_smc_sum(st, f[i].attr) - ds_smc_sum(&w->prev, f[i].attr);
		ds_print_u64(p, DS_JSON, f[i].key, NULL, d);
		ds_print_u64(p, DS_ANY, f[i].rate_key, f[i].fmt,
			     ds_smc_rate(d, ms));
	}
	ds_print_u64(p, DS_ANY, "connections", "  %" PRIu64 " new",
		     ds_smc_conns(st) - ds_smc_conns(&w->prev));
	ds_print_u64(p, DS_ANY, "handshake_errors", "  %" PRIu64 " hs errors",
		     st->hs_err[0] + st->hs_err[1] - w->prev.hs_err[0] -
		     w->prev.hs_err[1]);
	ds_print_u64(p, DS_ANY, "fallbacks", "  %" PRIu64 " fallbacks\n", fb);
	ds_print_open_arr(p, "fallback_reasons");
	for (i = 0; i < st->nfb; i++) {
		d = st->fb[i].count - ds_smc_fback_was(&w->prev, &st->fb[i]);
		if (!d)
			continue;
		snprintf(code, sizeof(code), "0x%08x", st->fb[i].code);
		ds_print_open_obj(p, NULL);
		ds_print_u64(p, DS_ANY, "count", "  %10" PRIu64 " fallbacks", d);
		ds_print_str(p, DS_ANY, "code", "  %s", code);
		ds_print_str(p, DS_ANY, "side", "  %-6s", st->fb[i].server ?
			     "server" : "client");
		ds_print_str(p, DS_ANY, "name", "  %s\n",
			     ds_smc_reason_name(st->fb[i].code));
		ds_print_close_obj(p);
	}
	ds_print_close_arr(p);
	ds_print_close_obj(p);
	fflush(p->f);
}

static int ds_smc_turn(void *arg, int *wait_ms)
{
	struct ds_smc_watch *w = arg;
	uint64_t now = ds_now_ms();
	struct ds_smc_stats st;

	if (now >= w->next) {
		w->status = ds_smc_read(&st);
		if (w->status)
			return 1;
		ds_smc_frame(w, &st, now - w->last);
		free(w->prev.fb);
		w->prev = st;
		w->last = now;
		w->next += w->interval_ms;
		if (w->next <= now)
			w->next = now + w->interval_ms;
		if (w->count && ++w->frames >= w->count)
			return 1;
	}
	*wait_ms = (int)(w->next - now);
	return 0;
}

int cmd_watch_smc(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv)
{
	struct ds_smc_watch w = {
		.p = { .f = stdout, .json = ctx->json },
		.interval_ms = 1000,
	};
	struct ds_loop l = {
		.on_turn = ds_smc_turn, .arg = &w, .what = "SMC",
	};
	uint64_t timeout_ms = 0;
	const struct ds_opt opts[] = {
		{ "interval", true, 100, 60000, &w.interval_ms,
		  "interval needs a duration from 100ms to 60s" },
		DS_OPT_COUNT("count", &w.count),
		DS_OPT_TIMEOUT(&timeout_ms),
		{ NULL },
	};
	int err;

	err = ds_parse_opts(self, argc, argv, opts);
	if (err)
		return err;
	/* the first frame counts from now */
	err = ds_smc_read(&w.prev);
	if (err)
		return err;
	w.last = ds_now_ms();
	w.next = w.last + w.interval_ms;
	if (timeout_ms)
		l.deadline = w.last + timeout_ms;
	err = ds_watch_loop(&l);
	free(w.prev.fb);
	return w.status ? w.status : err;
}
