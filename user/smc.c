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
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>

#include "dropscope.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif

/* ---- SMC_GEN_NETLINK --------------------------------------------------- */

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

static const struct {
	int attr;
	const char *key;
} ds_smc_dev_fields[4] = {
	{ DROPSCOPE_SMC_DEV_A_TX_BYTES, "tx_bytes" },
	{ DROPSCOPE_SMC_DEV_A_TX_EVENTS, "tx_copies" },
	{ DROPSCOPE_SMC_DEV_A_RX_BYTES, "rx_bytes" },
	{ DROPSCOPE_SMC_DEV_A_RX_EVENTS, "rx_copies" },
};

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
	err = ds_smc_own_fetch(ctx->nl, &o);
	if (err) {
		ds_smc_own_free(&o);
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
