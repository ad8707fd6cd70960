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
#include <net/if.h>
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

/* The buckets of smc.ko's size histograms, as smcr stats labels them
 * (it folds the last two into one column, ">512KB"; here they stay apart) */
static const char *const ds_smc_buckets[DS_SMC_NBUCKETS] = {
	"8KB", "16KB", "32KB", "64KB", "128KB", "256KB", "512KB", "1024KB",
	">1024KB",
};

/* smcr stats' Bufs and Reqs rows: sizes of the buffers each connection
 * got, and of the requests' payloads, send and receive. */
static void ds_smc_sizes_print(struct ds_print *p, const struct ds_smc_tech *t)
{
	static const struct {
		int which;
		const char *key, *label;
	} h[] = {
		{ DS_SMC_TX_BUFS, "tx_buffer_sizes", "tx bufs" },
		{ DS_SMC_RX_BUFS, "rx_buffer_sizes", "rx bufs" },
		{ DS_SMC_TX_REQS, "tx_request_sizes", "tx reqs" },
		{ DS_SMC_RX_REQS, "rx_request_sizes", "rx reqs" },
	};
	size_t i, b;

	ds_print_text(p, "  %-9s", "sizes");
	for (b = 0; b < DS_SMC_NBUCKETS; b++)
		ds_print_text(p, " %7s", ds_smc_buckets[b]);
	ds_print_text(p, "\n");
	for (i = 0; i < DS_N(h); i++) {
		ds_print_text(p, "  %-9s", h[i].label);
		ds_print_open_obj(p, h[i].key);
		for (b = 0; b < DS_SMC_NBUCKETS; b++)
			ds_print_u64(p, DS_ANY, ds_smc_buckets[b], " %7" PRIu64,
				     t->sizes[h[i].which][b]);
		ds_print_close_obj(p);
		ds_print_text(p, "\n");
	}
}

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
	for (d = 0; d < 2; d++) {
		snprintf(k, sizeof(k), "%s_buffers_in_use", dir[d]);
		snprintf(fmt, sizeof(fmt), "  %s %-31s %%" PRIu64 " bytes\n",
			 dir[d], "buffers in use");
		if (t->has_usage)
			ds_print_u64(p, DS_ANY, k, fmt, t->usage[d]);
		else
			ds_print_null(p, DS_JSON, k, NULL);
	}
	if (!t->has_usage)
		ds_print_text(p, "  buffers in use: not reported by this kernel (6.12 and later do)\n");
	ds_smc_sizes_print(p, t);
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

/*
 * smc.ko's buffer memory: in use by this namespace's connections (the
 * statistics' gauges, 6.12) and held in the link groups' pools, in use or
 * kept for reuse (6.12; every namespace's).
 */
static int ds_smc_memory_print(struct ds_print *p,
			       const struct ds_smc_stats *st)
{
	uint64_t in_use;
	struct ds_smc_lgrs g;
	struct ds_smc_pools m;
	int err;

	err = ds_smc_lgrs_read(&g);
	if (err)
		return err;
	ds_smc_pools_sum(&m, &g);
	free(g.v);
	ds_print_text(p, "Memory\n");
	ds_print_open_obj(p, "memory");
	if (ds_smc_in_use(st, &in_use)) {
		ds_print_u64(p, DS_ANY, "in_use_bytes",
			     "  buffers in use by connections      %" PRIu64 " bytes",
			     in_use);
		ds_print_text(p, " (this namespace's)\n");
	} else {
		ds_print_null(p, DS_JSON, "in_use_bytes", NULL);
		ds_print_text(p, "  buffers in use by connections      not reported by this kernel\n");
	}
	ds_print_u64(p, DS_ANY, "link_groups",
		     "  link groups                        %" PRIu64 "\n", m.n);
	ds_print_u64(p, DS_ANY, "connections",
		     "  connections in them                %" PRIu64 "\n",
		     m.conns);
	if (m.alloc || !m.n) {
		ds_print_u64(p, DS_ANY, "sndbuf_pool_bytes",
			     "  their pools: send buffers          %" PRIu64 " bytes\n",
			     m.sndbuf);
		ds_print_u64(p, DS_ANY, "rmb_pool_bytes",
			     "  their pools: receive buffers       %" PRIu64 " bytes\n",
			     m.rmb);
	} else {
		ds_print_null(p, DS_JSON, "sndbuf_pool_bytes", NULL);
		ds_print_null(p, DS_JSON, "rmb_pool_bytes", NULL);
		ds_print_text(p, "  their pools                        not reported by this kernel\n");
	}
	ds_print_close_obj(p);
	return DS_OK;
}

/* smc.ko itself, as smcd info, smcr ueid show and smcd seid show tell it */
static int ds_smc_sys_print(struct ds_print *p)
{
	struct ds_smc_sys y;
	char v[16];
	size_t i;
	int err;

	err = ds_smc_sys_read(&y);
	if (err)
		return err;
	ds_print_text(p, "The kernel's SMC support (smc.ko)\n");
	ds_print_open_obj(p, "system");
	snprintf(v, sizeof(v), "%u.%u", y.version, y.release);
	ds_print_u32(p, DS_JSON, "version", NULL, y.version);
	ds_print_u32(p, DS_JSON, "release", NULL, y.release);
	ds_print_str(p, DS_FP, NULL, "  SMC version                        %s\n", v);
	ds_print_bool_as(p, DS_ANY, "smcd_v2",
			 "  SMC-Dv2 capable (an ISM device)    %s\n", y.ism_v2,
			 y.ism_v2 ? "yes" : "no");
	ds_print_bool_as(p, DS_ANY, "smcr_v2",
			 "  SMC-Rv2 capable                    %s\n", y.smcr_v2,
			 y.smcr_v2 ? "yes" : "no");
	ds_print_str(p, DS_ANY, "host",
		     "  host name                          %s\n", y.host);
	if (y.has_seid) {
		ds_print_str(p, DS_ANY, "seid",
			     "  system EID                         %s", y.seid);
		ds_print_bool_as(p, DS_ANY, "seid_enabled", " (%s)\n",
				 y.seid_enabled, y.seid_enabled ? "enabled" :
				 "disabled");
	} else {
		ds_print_null(p, DS_JSON, "seid", NULL);
		ds_print_text(p, "  system EID                         none (no ISM v2 device)\n");
	}
	ds_print_text(p, "  user EIDs                          %s",
		      y.nueids ? "" : "none");
	ds_print_open_arr(p, "ueids");
	for (i = 0; i < y.nueids; i++)
		ds_print_str(p, DS_ANY, NULL, i ? ", %s" : "%s", y.ueids[i]);
	ds_print_close_arr(p);
	ds_print_text(p, "\n");
	if (y.has_hs_limit)
		ds_print_bool_as(p, DS_ANY, "handshake_limitation",
				 "  handshake limitation               %s\n",
				 y.hs_limit, y.hs_limit ? "on" : "off");
	else
		ds_print_null(p, DS_JSON, "handshake_limitation", NULL);
	ds_print_close_obj(p);
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
	err = ds_smc_sys_print(&p);
	if (err) {
		ds_print_close_obj(&p);
		ds_print_close_obj(&p);
		free(st.fb);
		return err;
	}
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
	err = ds_smc_memory_print(&p, &st);
	ds_print_close_obj(&p);
	ds_print_close_obj(&p);
	free(st.fb);
	return err;
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

/* What smcss -d, -R and -D add; in text, with detail only. */
static const struct ds_col ds_smc_detail_cols[] = {
	{ "state", "STATE", "", 8, 0 },
	{ "local", "LOCAL", "  ", 15, 0 },
	{ "peer", "PEER", "  ", 15, 0 },
	{ "pid", "PID", "  ", 5, DS_COL_RIGHT },
	{ "comm", "COMM", "  ", 8, 0 },
	{ "mode", "MODE", "  ", 4, 0 },
	{ "shutdown", "SHUT", "  ", 4, 0 },
	{ "sndbuf", "SNDBUF", "  ", 6, DS_COL_RIGHT | DS_COL_OPT },
	{ "rmb", "RMB", "  ", 6, DS_COL_RIGHT | DS_COL_OPT },
	{ "peer_rmb", "PEER-RMB", "  ", 8, DS_COL_RIGHT | DS_COL_OPT },
	{ "role", "ROLE", "  ", 4, DS_COL_OPT },
	{ "ibdev", "IB-DEV", "  ", 6, DS_COL_OPT },
	{ "ibport", "PORT", "  ", 4, DS_COL_RIGHT | DS_COL_OPT },
	{ "link_id", "LINK", "  ", 4, DS_COL_RIGHT | DS_COL_OPT },
	{ "link_group", "LGR", "  ", 8, DS_COL_OPT },
	{ "gid", "GID", "  ", 0, DS_COL_OPT },
	{ "peer_gid", "PEER-GID", "  ", 0, DS_COL_OPT },
	{ NULL, NULL, "  ", 0, 0 },
};

/* smcss's default: the connections, neither listening nor not yet begun */
enum { DS_SMC_CONNS, DS_SMC_LISTENING, DS_SMC_ALL };

static bool ds_smc_sock_shown(const struct ds_smc_sock *k, int which)
{
	if (which == DS_SMC_ALL)
		return true;
	if (which == DS_SMC_LISTENING)
		return k->state == 10;
	return k->state != 10 && k->state != 2;
}

/* A socket's buffers and link, or DMB: JSON always, text with detail */
static void ds_smc_sock_detail(struct ds_print *p, const struct ds_smc_sock *k,
			       enum ds_pmode m)
{
	char v[32];

	snprintf(v, sizeof(v), "%c-%c", k->shutdown & 1 ? 'R' : '<',
		 k->shutdown & 2 ? 'W' : '>');
	ds_print_str(p, m, "shutdown", "%s", v);
	if (k->has_conn) {
		snprintf(v, sizeof(v), "0x%08x", k->token);
		ds_print_str(p, DS_JSON, "token", NULL, v);
		ds_print_u32(p, m, "sndbuf", "%" PRIu32, k->sndbuf);
		ds_print_u32(p, m, "rmb", "%" PRIu32, k->rmb);
		ds_print_u32(p, m, "peer_rmb", "%" PRIu32, k->peer_rmb);
	}
	if (k->has_link) {
		ds_print_str(p, m, "role", "%s", ds_smc_lgr_role_name(k->role));
		ds_print_str(p, m, "ibdev", "%s", k->ibdev);
		ds_print_u32(p, m, "ibport", "%" PRIu32, k->ibport);
		ds_print_u32(p, m, "link_id", "%" PRIu32, k->link_id);
		ds_print_str(p, m, "gid", "%s", k->gid);
		ds_print_str(p, m, "peer_gid", "%s", k->peer_gid);
	}
	if (k->has_dmb) {
		snprintf(v, sizeof(v), "%08x", k->dmb_lgr);
		ds_print_str(p, m, "link_group", "%s", v);
		snprintf(v, sizeof(v), "%016" PRIx64, k->dmb_gid);
		ds_print_str(p, m, "gid", "%s", v);
		snprintf(v, sizeof(v), "%016" PRIx64, k->dmb_peer_gid);
		ds_print_str(p, m, "peer_gid", "%s", v);
		snprintf(v, sizeof(v), "%016" PRIx64, k->dmb_token);
		ds_print_str(p, DS_JSON, "dmb_token", NULL, v);
		snprintf(v, sizeof(v), "%016" PRIx64, k->dmb_peer_token);
		ds_print_str(p, DS_JSON, "peer_dmb_token", NULL, v);
	}
}

int cmd_show_smc_sockets(struct ds_ctx *ctx, const struct ds_cmd *self,
			 int argc, char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_smc_socks s = { 0 };
	int which = DS_SMC_CONNS, a;
	bool detail = false;
	enum ds_pmode m;
	char mode[32];
	size_t i, shown = 0;
	int err;

	for (a = 0; a < argc; a++) {
		if (!strcmp(argv[a], "listening") && which == DS_SMC_CONNS)
			which = DS_SMC_LISTENING;
		else if (!strcmp(argv[a], "all") && which == DS_SMC_CONNS)
			which = DS_SMC_ALL;
		else if (!strcmp(argv[a], "detail") && !detail)
			detail = true;
		else
			return ds_usage(self, "takes listening or all, and detail");
	}
	m = detail ? DS_ANY : DS_JSON;
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
	if (detail)
		ds_print_open_table(&p, NULL, ds_smc_detail_cols,
				    DS_NCOLS(ds_smc_detail_cols),
				    DS_TABLE_HEAD | DS_TABLE_FIT80);
	else
		ds_print_open_table(&p, NULL, ds_smc_sock_cols,
				    DS_NCOLS(ds_smc_sock_cols), DS_TABLE_HEAD);
	for (i = 0; i < s.n; i++) {
		const struct ds_smc_sock *k = &s.v[i];

		if (!ds_smc_sock_shown(k, which))
			continue;
		shown++;

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
		/* detail's text has no room for them */
		ds_print_u32(&p, detail ? DS_JSON : DS_ANY, "uid", "%" PRIu32,
			     k->uid);
		ds_print_u64(&p, detail ? DS_JSON : DS_ANY, "inode",
			     "%" PRIu64, k->inode);
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
		ds_print_bool(&p, DS_JSON, "listening", NULL, k->state == 10);
		ds_smc_sock_detail(&p, k, m);
		ds_print_close_obj(&p);
	}
	ds_print_close_table(&p);
	if (!shown)
		ds_print_text(&p, "no SMC sockets%s\n",
			      which == DS_SMC_LISTENING ? " listening" :
			      which == DS_SMC_CONNS && s.n ?
			      " but listening ones (show smc sockets all)" : "");
	free(s.v);
	return DS_OK;
}

/* ---- link groups and devices ------------------------------------------- */

static const struct ds_col ds_lgr_cols[] = {
	{ "id", "ID", "", 8, 0 },
	{ "mode", "MODE", "  ", 4, 0 },
	{ "role", "ROLE", "  ", 4, 0 },
	{ "type", "TYPE", "  ", 6, 0 },
	{ "vlan", "VLAN", "  ", 4, DS_COL_RIGHT },
	{ "connections", "CONNS", "  ", 5, DS_COL_RIGHT },
	{ "nlinks", "LINKS", "  ", 5, DS_COL_RIGHT },
	{ "pnetid", "PNET-ID", "  ", 0, 0 },
	{ NULL, NULL, "  ", 0, 0 },
};

static const char *ds_smc_os_name(uint8_t os)
{
	static const char *const n[] = { "", "ZOS", "LINUX", "AIX" };

	return os && os < DS_N(n) ? n[os] : "unknown";
}

/* A link of an SMC-R group: JSON; in text, a line under its group. */
static void ds_smc_link_print(struct ds_print *p, const struct ds_smc_link *k)
{
	char dev[IF_NAMESIZE + 16], v[16];

	ds_print_open_obj(p, NULL);
	ds_print_u32(p, DS_ANY, "id", "    link %" PRIu32, k->id);
	ds_print_str(p, DS_ANY, "state", "  %s", ds_smc_link_state_name(k->state));
	ds_print_str(p, DS_ANY, "ibdev", "  %s", k->ibdev);
	ds_print_u32(p, DS_ANY, "ibport", " port %" PRIu32, k->ibport);
	/* 6.1's soft-RoCE tells no net device: ifindex 0 */
	if (k->ifindex)
		ds_dev_name(k->ifindex, dev, sizeof(dev));
	else
		snprintf(dev, sizeof(dev), "-");
	ds_print_u64_as(p, DS_ANY, "ifindex", "  net %s", k->ifindex, dev);
	ds_print_u32(p, DS_ANY, "connections", "  %" PRIu32 " connections",
		     k->conns);
	snprintf(v, sizeof(v), "%08x", k->uid);
	ds_print_str(p, DS_ANY, "uid", "  uid %s", v);
	snprintf(v, sizeof(v), "%08x", k->peer_uid);
	ds_print_str(p, DS_ANY, "peer_uid", "  peer uid %s\n", v);
	ds_print_str(p, DS_ANY, "gid", "      gid %s", k->gid);
	ds_print_str(p, DS_ANY, "peer_gid", "  peer gid %s\n", k->peer_gid);
	ds_print_close_obj(p);
}

/*
 * A link group. Its columns are its row in text; the rest, JSON's always,
 * is text's with detail: lines under the row, as smcr -d linkgroup shows.
 */
static void ds_smc_lgr_print(struct ds_print *p, const struct ds_smc_lgr *l,
			     bool detail)
{
	enum ds_pmode m = detail ? DS_ANY : DS_JSON;
	char v[40];
	size_t i;

	snprintf(v, sizeof(v), "%08x", l->id);
	ds_print_open_obj(p, NULL);
	ds_print_str(p, DS_ANY, "id", detail ? "%s" : "%s", v);
	ds_print_str(p, DS_ANY, "mode", detail ? "  %s" : "%s",
		     l->smcd ? "SMCD" : "SMCR");
	ds_print_str(p, DS_ANY, "role", detail ? "  %s" : "%s",
		     l->smcd ? "-" : ds_smc_lgr_role_name(l->role));
	ds_print_str(p, DS_ANY, "type", detail ? "  %s" : "%s",
		     l->smcd ? "-" : ds_smc_lgr_type_name(l->type));
	ds_print_u32(p, DS_ANY, "vlan", detail ? "  vlan %" PRIu32 : "%" PRIu32,
		     l->vlan);
	ds_print_u32(p, DS_ANY, "connections",
		     detail ? "  %" PRIu32 " connections" : "%" PRIu32, l->conns);
	ds_print_u64(p, l->smcd ? DS_JSON : DS_ANY, "nlinks",
		     detail ? "  %" PRIu64 " links" : "%" PRIu64, l->nlinks);
	ds_print_str(p, DS_FP, "pnetid", detail ? "  pnet-id %s\n" : "%s",
		     l->pnetid[0] ? l->pnetid : "-");
	ds_print_str(p, DS_JSON, "pnetid", NULL, l->pnetid);
	ds_print_u32(p, m, "version", "    version %" PRIu32, l->version);
	if (l->v2) {
		ds_print_u32(p, m, "peer_release", ".%" PRIu32, l->release);
		ds_print_str(p, m, "peer_host", "  peer %s", l->peer_host);
		ds_print_str(p, m, "peer_os", " (%s)", ds_smc_os_name(l->os));
		ds_print_str(p, m, "eid", "  EID %s", l->eid);
	}
	if (l->has_direct)
		ds_print_bool_as(p, m, "direct", "  %s", l->direct,
				 l->direct ? "direct" : "through a gateway");
	ds_print_text(p, detail ? "\n" : "");
	if (l->has_alloc) {
		ds_print_u64(p, m, "sndbuf_pool_bytes",
			     "    send buffers %" PRIu64 " bytes", l->sndbuf_alloc);
		ds_print_u64(p, m, "rmb_pool_bytes",
			     l->smcd ? "  DMBs %" PRIu64 " bytes\n" :
			     "  receive buffers %" PRIu64 " bytes\n", l->rmb_alloc);
	} else {
		ds_print_null(p, DS_JSON, "sndbuf_pool_bytes", NULL);
		ds_print_null(p, DS_JSON, "rmb_pool_bytes", NULL);
	}
	if (l->smcd) {
		snprintf(v, sizeof(v), "%016" PRIx64, l->gid);
		ds_print_str(p, m, "gid", "    gid %s", v);
		snprintf(v, sizeof(v), "%016" PRIx64, l->peer_gid);
		ds_print_str(p, m, "peer_gid", "  peer gid %s", v);
		ds_print_u32(p, m, "chid", "  chid %04" PRIx32 "\n", l->chid);
	} else if (p->json || detail) {
		ds_print_open_arr(p, "links");
		for (i = 0; i < l->nlinks; i++)
			ds_smc_link_print(p, &l->links[i]);
		ds_print_close_arr(p);
	}
	ds_print_close_obj(p);
	if (detail && !p->json)
		ds_print_text(p, "\n");
}

int cmd_show_smc_linkgroups(struct ds_ctx *ctx, const struct ds_cmd *self,
			    int argc, char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_smc_lgrs g;
	bool detail = false;
	size_t i, r = 0, d = 0;
	int err;

	if (argc > 1 || (argc == 1 && strcmp(argv[0], "detail")))
		return ds_usage(self, "takes detail, or nothing");
	detail = argc == 1 && !p.json;
	if (!ds_smc_loaded())
		return ds_smc_absent();
	err = ds_smc_lgrs_read(&g);
	if (err)
		return err;
	if (detail)
		ds_print_open_arr(&p, NULL);
	else
		ds_print_open_table(&p, NULL, ds_lgr_cols, DS_NCOLS(ds_lgr_cols),
				    DS_TABLE_HEAD);
	for (i = 0; i < g.n; i++) {
		ds_smc_lgr_print(&p, &g.v[i], detail);
		if (g.v[i].smcd)
			d++;
		else
			r++;
	}
	if (detail)
		ds_print_close_arr(&p);
	else
		ds_print_close_table(&p);
	if (!g.n)
		ds_print_text(&p, "no SMC link groups: no SMC-R or SMC-D connection was made, or all fell back to TCP\n");
	else
		ds_print_text(&p, "%zu link groups (SMC-R %zu, SMC-D %zu)\n",
			      g.n, r, d);
	for (i = 0; i < g.n; i++)
		if (g.v[i].links_dropped)
			ds_print_text(&p, "link group %08x: %" PRIu64 " links more than 3, not shown\n",
				      g.v[i].id, g.v[i].links_dropped);
	free(g.v);
	return DS_OK;
}

static const struct ds_col ds_smcdev_cols[] = {
	{ "net", "NET-DEV", "", 7, 0 },
	{ "name", "DEVICE", "  ", 6, 0 },
	{ "mode", "MODE", "  ", 4, 0 },
	{ "port", "PORT", "  ", 4, DS_COL_RIGHT },
	{ "state", "STATE", "  ", 8, 0 },
	{ "critical", "CRIT", "  ", 4, 0 },
	{ "links", "LINKS", "  ", 5, DS_COL_RIGHT },
	{ "pci_id", "PCI-ID", "  ", 6, DS_COL_OPT },
	{ "pnetid", "PNET-ID", "  ", 0, 0 },
	{ NULL, NULL, "  ", 0, 0 },
};

/* A row per port of an RDMA device (as smcr device), one per ISM device */
static void ds_smc_device_print(struct ds_print *p,
				const struct ds_smc_device *v, int port)
{
	const struct ds_smc_port *t = &v->port[port];
	char net[IF_NAMESIZE + 16], pnet[24];

	ds_print_open_obj(p, NULL);
	if (t->ifindex)
		ds_dev_name(t->ifindex, net, sizeof(net));
	else
		snprintf(net, sizeof(net), "-");
	ds_print_u64_as(p, DS_ANY, "ifindex", NULL, t->ifindex, net);
	ds_print_str(p, DS_FP, "net", "%s", net);
	ds_print_str(p, DS_JSON, "net", NULL, t->ifindex ? net : "");
	ds_print_str(p, DS_ANY, "name", "%s", v->smcd ? v->pci_id : v->name);
	ds_print_str(p, DS_ANY, "mode", "%s", v->smcd ? "SMCD" : "SMCR");
	if (!v->smcd) {
		ds_print_u32(p, DS_ANY, "port", "%" PRIu32, port + 1);
		ds_print_str(p, DS_ANY, "state", "%s",
			     t->active ? "ACTIVE" : "INACTIVE");
		ds_print_u32(p, DS_ANY, "links", "%" PRIu32, t->links);
	} else {
		ds_print_u32(p, DS_ANY, "link_groups", "%" PRIu32, v->use_cnt);
	}
	ds_print_bool_as(p, DS_ANY, "critical", "%s", v->crit,
			 v->crit ? "yes" : "no");
	if (v->has_pci) {
		ds_print_str(p, DS_ANY, "pci_id", "%s", v->pci_id);
		ds_print_u32(p, DS_JSON, "pci_vendor", NULL, v->vendor);
		ds_print_u32(p, DS_JSON, "pci_device", NULL, v->device);
		ds_print_u32(p, DS_JSON, "fid", NULL, v->fid);
		ds_print_u32(p, DS_JSON, "pchid", NULL, v->chid);
	}
	/* a PNET id set by the user (smc_pnet) is marked, as smcr does */
	snprintf(pnet, sizeof(pnet), "%s%s", t->pnet_user ? "*" : "",
		 t->pnetid[0] ? t->pnetid : "-");
	ds_print_str(p, DS_FP, "pnetid", "%s", pnet);
	ds_print_str(p, DS_JSON, "pnetid", NULL, t->pnetid);
	ds_print_bool(p, DS_JSON, "pnetid_by_user", NULL, t->pnet_user);
	ds_print_close_obj(p);
}

int cmd_show_smc_devices(struct ds_ctx *ctx, const struct ds_cmd *self,
			 int argc, char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_smc_devices d;
	size_t i;
	int err, k;

	(void)argv;
	if (argc)
		return ds_usage(self, "takes no arguments");
	if (!ds_smc_loaded())
		return ds_smc_absent();
	err = ds_smc_devices_read(&d);
	if (err)
		return err;
	ds_print_open_table(&p, NULL, ds_smcdev_cols, DS_NCOLS(ds_smcdev_cols),
			    DS_TABLE_HEAD);
	for (i = 0; i < d.n; i++)
		for (k = 0; k < 2; k++)
			if (d.v[i].port[k].present || (d.v[i].smcd && !k))
				ds_smc_device_print(&p, &d.v[i], k);
	ds_print_close_table(&p);
	if (!d.n)
		ds_print_text(&p, "no SMC devices: no RDMA device (SMC-R) or ISM device (SMC-D)\n");
	free(d.v);
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
			 const struct ds_smc_pools *m, uint64_t ms)
{
	uint64_t in_use;
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
	/* now: in the link groups, and the buffers in use (6.12) */
	ds_print_u64(p, DS_ANY, "open_connections", "  %" PRIu64 " open",
		     m->conns);
	ds_print_u64(p, DS_JSON, "link_groups", NULL, m->n);
	if (ds_smc_in_use(st, &in_use))
		ds_print_u64(p, DS_ANY, "in_use_bytes", "  %" PRIu64 " B in use",
			     in_use);
	else
		ds_print_null(p, DS_JSON, "in_use_bytes", NULL);
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
	struct ds_smc_pools m;
	struct ds_smc_lgrs g;

	if (now >= w->next) {
		w->status = ds_smc_read(&st);
		if (w->status)
			return 1;
		w->status = ds_smc_lgrs_read(&g);
		if (w->status) {
			free(st.fb);
			return 1;
		}
		ds_smc_pools_sum(&m, &g);
		free(g.v);
		ds_smc_frame(w, &st, &m, now - w->last);
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
