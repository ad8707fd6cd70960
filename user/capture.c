// SPDX-License-Identifier: GPL-2.0
/*
 * capture FILE [filter EXPR] [snaplen N] [count N] [duration D] [all]
 *         [site S] [reason R] [dev D] [netns N] [l3 P] [l4 P]
 *
 * libpcap compiles the filter for raw IP packets (offsets from the network
 * header), the module runs it on each drop and sends what matches to this
 * socket every interval; the file is pcapng (see pcapng.c), each packet
 * with its drop reason and site as its comment. It stops after count
 * packets, after the duration, on q or Enter, or on SIGINT or SIGTERM;
 * then the module sends what it still holds, and the counts are printed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <pcap/pcap.h>

#include "dropscope.h"

struct ds_capture {
	struct ds_ctx *ctx;
	struct ds_pcapng *w;
	struct ds_reasons reasons;
	uint32_t id;
	uint64_t want;		/* packets to write; 0: no end */
	uint64_t written;
	uint64_t beyond;	/* came after count was reached */
	bool ended;		/* the module ended the capture */
	bool write_err;
	/* the comment of the last packet's drop: most share their site */
	uint64_t c_loc;
	uint32_t c_reason, c_netns, c_stack;
	char comment[256];
	struct ds_cap_counters k;	/* the module's, the last it sent */
};

static const char *ds_cap_reason(struct ds_capture *c, uint32_t id)
{
	size_t i;

	for (i = 0; i < c->reasons.n; i++)
		if (c->reasons.v[i].id == id)
			return c->reasons.v[i].name;
	return "?";
}

static int ds_cap_packet(void *arg, const struct ds_packet *pk)
{
	struct ds_capture *c = arg;
	char site[128];

	if (c->want && c->written >= c->want) {
		c->beyond++;
		return 0;
	}
	if (!c->comment[0] || pk->loc != c->c_loc || pk->reason != c->c_reason ||
	    pk->netns != c->c_netns || pk->stack != c->c_stack) {
		ds_syms_name(c->ctx->syms, pk->loc, site, sizeof(site));
		snprintf(c->comment, sizeof(c->comment),
			 pk->stack ? "dropscope: %s at %s netns %" PRIu32
				     " stack %08" PRIx32 :
				     "dropscope: %s at %s netns %" PRIu32,
			 ds_cap_reason(c, pk->reason), site, pk->netns,
			 pk->stack);
		c->c_loc = pk->loc;
		c->c_reason = pk->reason;
		c->c_netns = pk->netns;
		c->c_stack = pk->stack;
	}
	if (ds_pcapng_write(c->w, pk->tstamp, pk->ifindex, pk->protocol, pk->data,
			    pk->caplen, pk->len, c->comment))
		c->write_err = true;
	c->written++;
	return 0;
}

/*
 * A capture message, or the reply to start or stop: packets, counters.
 * The file gets what the message brought before the next one is read.
 */
static int ds_cap_msg(struct nlattr **tb, struct nlattr *attrs, int len,
		      void *arg)
{
	struct ds_capture *c = arg;
	int err;

	err = ds_capture_read(tb, attrs, len, ds_cap_packet, c, &c->k);
	if (c->w && ds_pcapng_flush(c->w))
		c->write_err = true;
	return err;
}

static int ds_cap_turn(void *arg, int *wait)
{
	struct ds_capture *c = arg;

	(void)wait;
	return c->k.ended || c->write_err || (c->want && c->written >= c->want);
}

/* libpcap: the filter compiler, opened when a capture has a filter */
#define DS_PCAP_SYMS(X) X(pcap_open_dead) X(pcap_compile) X(pcap_geterr) \
	X(pcap_close) X(pcap_freecode)
static struct { DS_PCAP_SYMS(DS_DL_PTR) } ds_pcap;
static const char *const ds_pcap_names[] = { DS_PCAP_SYMS(DS_DL_NAME) };

/* Compile expr for raw IP packets; errors are libpcap's, printed. */
static int ds_cap_compile(const char *expr, uint32_t snaplen,
			  struct bpf_program *prog)
{
	char why[512];
	pcap_t *p;
	int err = 0;

	if (ds_dl_open(DS_SO_PCAP, ds_pcap_names, DS_N(ds_pcap_names), &ds_pcap,
		       why, sizeof(why))) {
		fprintf(stderr, "dropscope: capture: filter: %s\n", why);
		return DS_EFAIL;
	}
	p = ds_pcap.pcap_open_dead(DLT_RAW, (int)snaplen);
	if (!p) {
		fprintf(stderr, "dropscope: capture: libpcap: out of memory\n");
		return DS_EFAIL;
	}
	if (ds_pcap.pcap_compile(p, prog, expr, 1, PCAP_NETMASK_UNKNOWN)) {
		fprintf(stderr, "dropscope: capture: filter: %s\n",
			ds_pcap.pcap_geterr(p));
		err = DS_EUSAGE;
	}
	ds_pcap.pcap_close(p);
	return err;
}

static void ds_cap_summary(struct ds_ctx *ctx, const struct ds_capture *c,
			   const char *file)
{
	struct ds_print p = { .f = ctx->json ? stdout : stderr,
			      .json = ctx->json };

	ds_print_open_obj(&p, NULL);
	ds_print_str(&p, DS_JSON, "file", NULL, file);
	ds_print_u64(&p, DS_ANY, "written", "%" PRIu64 " packets written to ",
		     c->written);
	ds_print_text(&p, "%s: ", file);
	ds_print_u64(&p, DS_ANY, "matched", "%" PRIu64 " matched, ", c->k.matched);
	ds_print_u64(&p, DS_ANY, "captured", "%" PRIu64 " captured, ",
		     c->k.captured);
	ds_print_u64(&p, DS_ANY, "lost_buffer",
		     "lost %" PRIu64 " (per-CPU buffer full), ", c->k.lost_buffer);
	ds_print_u64(&p, DS_ANY, "lost_socket",
		     "%" PRIu64 " (socket buffer full)", c->k.lost_socket);
	ds_print_u64(&p, DS_ANY, "no_network",
		     "; %" PRIu64 " without a network header", c->k.no_network);
	ds_print_u64(&p, DS_ANY, "beyond_count",
		     ", %" PRIu64 " beyond count, not written\n", c->beyond);
	ds_print_close_obj(&p);
}

int cmd_capture(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		char **argv)
{
	static const char *const rule_fields[] = {
		"site", "reason", "dev", "netns", "l3", "l4", NULL,
	};
	struct ds_capture c = { .ctx = ctx };
	struct bpf_program prog = { 0 };
	const char *file, *expr = NULL;
	uint64_t snaplen = 65535, ms = 0;
	struct ds_loop l = { 0 };
	char *rule[2 * 6];
	struct ds_cap_req req = { 0 };
	struct ds_rule r;
	int nrule = 0, i, j, err, status;
	int rcvbuf = 32 << 20;
	bool all = false;
	FILE *f;

	if (argc < 1)
		return ds_usage(self, "give the file to write");
	file = argv[0];
	for (i = 1; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(k, "all")) {
			all = true;
			continue;
		}
		if (!v)
			return ds_usage(self, "an option lacks its value");
		i++;
		if (!strcmp(k, "filter")) {
			expr = v;
		} else if (!strcmp(k, "snaplen")) {
			if (ds_parse_u64(v, 1, 65535, &snaplen))
				return ds_usage(self, "snaplen: a number from 1 to 65535");
		} else if (!strcmp(k, "count")) {
			if (ds_parse_u64(v, 1, UINT64_MAX, &c.want))
				return ds_usage(self, "count: a number of packets, 1 or more");
		} else if (!strcmp(k, "duration")) {
			if (ds_parse_duration_ms(v, &ms) || !ms)
				return ds_usage(self, "duration: like 10s, 500ms or 2m");
		} else {
			for (j = 0; rule_fields[j] && strcmp(rule_fields[j], k); j++)
				;
			if (!rule_fields[j] || nrule == (int)(sizeof(rule) / sizeof(*rule)))
				return ds_usage(self, "not an option of capture");
			rule[nrule++] = argv[i - 1];
			rule[nrule++] = argv[i];
		}
	}
	if (expr) {
		err = ds_cap_compile(expr, (uint32_t)snaplen, &prog);
		if (err)
			return err;
	}
	err = ds_ctx_nl(ctx);
	if (!err)
		err = ds_ctx_syms(ctx);
	if (!err)
		err = ds_reasons_get(ctx, &c.reasons);
	if (err)
		goto out_prog;
	err = ds_nl_open(&l.nl);
	if (err) {
		fprintf(stderr, "dropscope: %s\n", ds_nl_error(l.nl));
		err = ds_nl_status(err);
		goto out_nl;
	}
	/* what an interval of drops takes; SO_RCVBUF is capped at rmem_max */
	if (setsockopt(ds_nl_fd(l.nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)))
		setsockopt(ds_nl_fd(l.nl), SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	if (nrule) {
		err = ds_rule_parse(ctx, nrule, rule, &r);
		if (err)
			goto out_nl;
		r.mode = 0;	/* a capture's rule has none */
		req.rule = &r;
	}
	f = fopen(file, "wb");
	if (!f) {
		fprintf(stderr, "dropscope: capture: %s: %s\n", file,
			strerror(errno));
		err = DS_EFAIL;
		goto out_nl;
	}
	c.w = ds_pcapng_open(f, (uint32_t)snaplen);
	if (!c.w) {
		fprintf(stderr, "dropscope: capture: %s: cannot write\n", file);
		fclose(f);
		err = DS_EFAIL;
		goto out_nl;
	}
	req.snaplen = (uint32_t)snaplen;
	req.all = all;
	if (expr) {
		req.filter = prog.bf_insns;
		req.nfilter = prog.bf_len;
	}
	err = ds_capture_start(l.nl, &req, ds_cap_msg, &c);
	if (err) {
		fprintf(stderr, "dropscope: %s\n", ds_nl_error(l.nl));
		ds_pcapng_close(c.w);
		remove(file);
		err = ds_nl_status(err);
		goto out_nl;
	}
	/* the capture's messages come unasked, and so do the controller's */
	err = ds_nl_listen(l.nl);
	if (err) {
		fprintf(stderr, "dropscope: %s\n", ds_nl_error(l.nl));
		status = ds_nl_status(err);
		goto stop;
	}
	l.on_msg = ds_cap_msg;
	l.on_turn = ds_cap_turn;
	l.arg = &c;
	l.what = "dropped packets";
	l.deadline = ms ? ds_now_ms() + ms : 0;
	status = ds_watch_loop(&l);
stop:
	if (!c.k.ended && !ds_nl_gone(l.nl)) {
		/* what the module still holds comes before the reply */
		ds_nl_blocking(l.nl);
		err = ds_capture_stop(l.nl, c.k.id, ds_cap_msg, &c);
		if (err) {
			fprintf(stderr, "dropscope: capture stop: %s\n",
				ds_nl_error(l.nl));
			status = status ? status : ds_nl_status(err);
		}
	}
	if (ds_pcapng_close(c.w) || c.write_err) {
		fprintf(stderr, "dropscope: capture: %s: write failed\n", file);
		status = status ? status : DS_EFAIL;
	}
	ds_cap_summary(ctx, &c, file);
	err = status;
out_nl:
	ds_nl_close(l.nl);
	free(c.reasons.v);
out_prog:
	if (expr)	/* compiled: libpcap is open */
		ds_pcap.pcap_freecode(&prog);
	return err;
}
