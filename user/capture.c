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

#include <linux/filter.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
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
	uint32_t c_reason, c_netns;
	char comment[256];
	/* the module's counters, the last it sent */
	uint64_t matched, captured, lost_buffer, lost_socket, no_network;
};

static const char *ds_cap_reason(struct ds_capture *c, uint32_t id)
{
	size_t i;

	for (i = 0; i < c->reasons.n; i++)
		if (c->reasons.v[i].id == id)
			return c->reasons.v[i].name;
	return "?";
}

static int ds_cap_counters(struct ds_capture *c, struct nlattr *nest)
{
	struct nlattr *t[DROPSCOPE_CAPTURE_A_MAX + 1];

	if (nla_parse_nested(t, DROPSCOPE_CAPTURE_A_MAX, nest, NULL) < 0 ||
	    !t[DROPSCOPE_CAPTURE_A_ID])
		return -EINVAL;
	c->id = nla_get_u32(t[DROPSCOPE_CAPTURE_A_ID]);
	if (t[DROPSCOPE_CAPTURE_A_MATCHED]) {
		c->matched = nla_get_u64(t[DROPSCOPE_CAPTURE_A_MATCHED]);
		c->captured = nla_get_u64(t[DROPSCOPE_CAPTURE_A_CAPTURED]);
		c->lost_buffer = nla_get_u64(t[DROPSCOPE_CAPTURE_A_LOST_BUFFER]);
		c->lost_socket = nla_get_u64(t[DROPSCOPE_CAPTURE_A_LOST_SOCKET]);
		c->no_network = nla_get_u64(t[DROPSCOPE_CAPTURE_A_NO_NETWORK]);
	}
	if (t[DROPSCOPE_CAPTURE_A_END])
		c->ended = true;
	return 0;
}

/* A packet's attributes, read in one pass over its nest. */
struct ds_packet {
	uint64_t tstamp, loc;
	uint32_t reason, ifindex, netns, len, caplen;
	uint16_t protocol;
	const void *data;
};

/* Each packet is read here: no table, no policy walk, one pass. */
static int ds_packet_parse(const struct nlattr *nest, struct ds_packet *pk)
{
	/* the attributes a packet must carry, and the size of each value */
	static const uint8_t size[DROPSCOPE_PACKET_A_MAX + 1] = {
		[DROPSCOPE_PACKET_A_TSTAMP] = 8, [DROPSCOPE_PACKET_A_LOCATION] = 8,
		[DROPSCOPE_PACKET_A_REASON] = 4, [DROPSCOPE_PACKET_A_IFINDEX] = 4,
		[DROPSCOPE_PACKET_A_NETNS] = 4, [DROPSCOPE_PACKET_A_PROTOCOL] = 2,
		[DROPSCOPE_PACKET_A_LEN] = 4,
	};
	const uint32_t need = 1U << DROPSCOPE_PACKET_A_TSTAMP |
			      1U << DROPSCOPE_PACKET_A_LOCATION |
			      1U << DROPSCOPE_PACKET_A_LEN |
			      1U << DROPSCOPE_PACKET_A_DATA;
	const struct nlattr *a = nla_data(nest);
	int rem = nla_len(nest), n, type;
	uint32_t seen = 0;
	const void *v;

	memset(pk, 0, sizeof(*pk));
	while (rem >= NLA_HDRLEN) {
		if (!ds_nla_whole(a, rem))
			return -EINVAL;
		type = a->nla_type & NLA_TYPE_MASK;
		n = a->nla_len - NLA_HDRLEN;
		v = (const char *)a + NLA_HDRLEN;
		if (type <= DROPSCOPE_PACKET_A_MAX && n < size[type])
			return -EINVAL;
		switch (type) {
		case DROPSCOPE_PACKET_A_TSTAMP:
			memcpy(&pk->tstamp, v, 8);
			break;
		case DROPSCOPE_PACKET_A_LOCATION:
			memcpy(&pk->loc, v, 8);
			break;
		case DROPSCOPE_PACKET_A_REASON:
			memcpy(&pk->reason, v, 4);
			break;
		case DROPSCOPE_PACKET_A_IFINDEX:
			memcpy(&pk->ifindex, v, 4);
			break;
		case DROPSCOPE_PACKET_A_NETNS:
			memcpy(&pk->netns, v, 4);
			break;
		case DROPSCOPE_PACKET_A_PROTOCOL:
			memcpy(&pk->protocol, v, 2);
			break;
		case DROPSCOPE_PACKET_A_LEN:
			memcpy(&pk->len, v, 4);
			break;
		case DROPSCOPE_PACKET_A_DATA:
			pk->data = v;
			pk->caplen = (uint32_t)n;
			break;
		}
		if (type < 32)
			seen |= 1U << type;
		a = ds_nla_after(a, &rem);
	}
	return (seen & need) == need ? 0 : -EINVAL;
}

static int ds_cap_packet(struct ds_capture *c, const struct nlattr *nest)
{
	struct ds_packet pk;
	char site[128];

	if (ds_packet_parse(nest, &pk))
		return -EINVAL;
	if (c->want && c->written >= c->want) {
		c->beyond++;
		return 0;
	}
	if (!c->comment[0] || pk.loc != c->c_loc || pk.reason != c->c_reason ||
	    pk.netns != c->c_netns) {
		ds_syms_name(c->ctx->syms, pk.loc, site, sizeof(site));
		snprintf(c->comment, sizeof(c->comment),
			 "dropscope: %s at %s netns %" PRIu32,
			 ds_cap_reason(c, pk.reason), site, pk.netns);
		c->c_loc = pk.loc;
		c->c_reason = pk.reason;
		c->c_netns = pk.netns;
	}
	if (ds_pcapng_write(c->w, pk.tstamp, pk.ifindex, pk.protocol, pk.data,
			    pk.caplen, pk.len, c->comment))
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
	const struct nlattr *at = attrs;
	struct ds_capture *c = arg;
	int rem = len, err;

	for (; ds_nla_whole(at, rem); at = ds_nla_after(at, &rem)) {
		if ((at->nla_type & NLA_TYPE_MASK) != DROPSCOPE_A_PACKET)
			continue;
		err = ds_cap_packet(c, at);
		if (err)
			return err;
	}
	if (c->w && ds_pcapng_flush(c->w))
		c->write_err = true;
	return tb[DROPSCOPE_A_CAPTURE] ?
	       ds_cap_counters(c, tb[DROPSCOPE_A_CAPTURE]) : 0;
}

static int ds_cap_turn(void *arg, int *wait)
{
	struct ds_capture *c = arg;

	(void)wait;
	return c->ended || c->write_err || (c->want && c->written >= c->want);
}

/* Compile expr for raw IP packets; errors are libpcap's, printed. */
static int ds_cap_compile(const char *expr, uint32_t snaplen,
			  struct bpf_program *prog)
{
	pcap_t *p = pcap_open_dead(DLT_RAW, (int)snaplen);
	int err = 0;

	if (!p) {
		fprintf(stderr, "dropscope: capture: libpcap: out of memory\n");
		return DS_EFAIL;
	}
	if (pcap_compile(p, prog, expr, 1, PCAP_NETMASK_UNKNOWN)) {
		fprintf(stderr, "dropscope: capture: filter: %s\n",
			pcap_geterr(p));
		err = DS_EUSAGE;
	}
	pcap_close(p);
	return err;
}

/* The START request: the capture nest, then the rule of the fields. */
static struct nl_msg *ds_cap_start_msg(struct ds_ctx *ctx, struct ds_nl *nl,
				       const struct bpf_program *prog,
				       uint32_t snaplen, bool all, int nrule,
				       char **rule, int *err)
{
	struct nl_msg *msg = ds_nl_msg(nl, DROPSCOPE_CMD_CAPTURE_START, false);
	struct nlattr *nest;

	*err = DS_EFAIL;
	if (!msg)
		return NULL;
	nest = nla_nest_start(msg, DROPSCOPE_A_CAPTURE);
	if (!nest || nla_put_u32(msg, DROPSCOPE_CAPTURE_A_SNAPLEN, snaplen) ||
	    (prog && nla_put(msg, DROPSCOPE_CAPTURE_A_FILTER,
			     (int)(prog->bf_len * sizeof(struct sock_filter)),
			     prog->bf_insns)) ||
	    (all && nla_put_flag(msg, DROPSCOPE_CAPTURE_A_ALL)))
		goto err;
	nla_nest_end(msg, nest);
	if (nrule) {
		nest = nla_nest_start(msg, DROPSCOPE_A_RULE);
		if (!nest)
			goto err;
		*err = ds_rule_parse(ctx, nrule, rule, msg);
		if (*err)
			goto err;
		nla_nest_end(msg, nest);
	}
	*err = 0;
	return msg;
err:
	nlmsg_free(msg);
	return NULL;
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
	ds_print_u64(&p, DS_ANY, "matched", "%" PRIu64 " matched, ", c->matched);
	ds_print_u64(&p, DS_ANY, "captured", "%" PRIu64 " captured, ",
		     c->captured);
	ds_print_u64(&p, DS_ANY, "lost_buffer",
		     "lost %" PRIu64 " (per-CPU buffer full), ", c->lost_buffer);
	ds_print_u64(&p, DS_ANY, "lost_socket",
		     "%" PRIu64 " (socket buffer full)", c->lost_socket);
	ds_print_u64(&p, DS_ANY, "no_network",
		     "; %" PRIu64 " without a network header", c->no_network);
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
	struct nl_msg *msg;
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
	msg = ds_cap_start_msg(ctx, l.nl, expr ? &prog : NULL,
			       (uint32_t)snaplen, all, nrule, rule, &err);
	if (!msg)
		goto out_nl;
	f = fopen(file, "wb");
	if (!f) {
		fprintf(stderr, "dropscope: capture: %s: %s\n", file,
			strerror(errno));
		nlmsg_free(msg);
		err = DS_EFAIL;
		goto out_nl;
	}
	c.w = ds_pcapng_open(f, (uint32_t)snaplen);
	if (!c.w) {
		fprintf(stderr, "dropscope: capture: %s: cannot write\n", file);
		fclose(f);
		err = DS_EFAIL;
		nlmsg_free(msg);
		goto out_nl;
	}
	err = ds_nl_send(l.nl, msg, ds_cap_msg, &c);
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
	if (!c.ended && !ds_nl_gone(l.nl)) {
		/* what the module still holds comes before the reply */
		msg = ds_nl_msg(l.nl, DROPSCOPE_CMD_CAPTURE_STOP, false);
		if (msg) {
			struct nlattr *nest = nla_nest_start(msg, DROPSCOPE_A_CAPTURE);

			if (!nest || nla_put_u32(msg, DROPSCOPE_CAPTURE_A_ID, c.id)) {
				nlmsg_free(msg);
				msg = NULL;
			} else {
				nla_nest_end(msg, nest);
			}
		}
		ds_nl_blocking(l.nl);
		err = ds_nl_send(l.nl, msg, ds_cap_msg, &c);
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
	pcap_freecode(&prog);
	return err;
}
