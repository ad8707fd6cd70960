// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: a generic netlink fuzzer for the DROPSCOPE family.
 *
 *   nlfuzz [-s SEED] [-n COUNT] [-v] [-T]
 *
 * Sends COUNT generated and mutated requests over a raw NETLINK_GENERIC
 * socket (no library between it and the kernel, so that any byte can be
 * wrong) and checks the kernel's promise "a refused request changes
 * nothing": before each request it holds a snapshot of the configuration
 * (the CONFIG_GET reply and the RULE_GET dump, rule hits left out: drops
 * flow meanwhile), and after each request the kernel refused it reads both
 * back and compares. A request the kernel accepted may change the state:
 * the snapshot is taken again. Monitoring is kept running (a STOP that got
 * through is followed by a START) and the rules few (RULE_CLEAR once there
 * are more than 64).
 *
 * The requests, per message (all from one xorshift generator seeded by -s):
 *   - 70%: a well-formed request of one command (every op, also ALERT and
 *     unknown command numbers), with exactly one thing broken in 6 of 7:
 *     the netlink header (length 0, short, long, lying; flags; type), the
 *     generic netlink header (command, version, reserved), one attribute
 *     (type 0, max, max + 1, 0xffff, nested and byte-order flag bits;
 *     length 0, header only, short, one byte off, past the message;
 *     payload cut or grown; boundary values; duplicated; removed; an
 *     unknown one added; no alignment padding), or the rule nest (empty,
 *     nested deep, without NLA_F_NESTED, a member twice, a member of the
 *     wrong type or size, an unknown member), or the message sent cut
 *     short or with trailing bytes
 *   - 20%: random attributes of boundary types and sizes, nested up to
 *     four deep, with do and dump flags mixed
 *   - 10%: valid headers followed by random bytes
 *
 * -T tests the check itself: after the first refused request the fuzzer
 * changes the interval with a valid CONFIG_SET before reading back, and
 * must report it (exit 1).
 *
 * Every reply is checked too: well-formed netlink and attributes that stay
 * inside their message. Prints one summary line; on a failure, the
 * request in hex, what differs, and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/filter.h>
#include <linux/netlink.h>

#include "linux/dropscope.h"

#define BUFSZ		(64 * 1024)
#define MAXK		12	/* children of one attribute */
#define VMAX		320	/* payload bytes of a leaf attribute */
#define POOL		256	/* attributes of one message */
#define SNAPSZ		(96 * 1024)
#define MAX_RULES_KEPT	64

/* --- random ---------------------------------------------------------------- */
static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545F4914F6CDD1DULL;
}

static uint32_t below(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }
static bool chance(unsigned int pct) { return below(100) < pct; }

/* --- the message model ----------------------------------------------------- */
struct at {
	uint16_t type;		/* with NLA_F_* bits */
	bool nest;		/* payload is the children */
	int nk;
	struct at *k[MAXK];
	uint8_t v[VMAX];
	int vlen;
	int lenfix;		/* >= 0: nla_len written as this */
	bool nopad;		/* no alignment padding after it */
};

struct msg {
	uint16_t nltype, flags;
	uint8_t cmd, ver;
	uint16_t resv;
	struct at root;		/* its children are the top-level attributes */
	long nllen_fix;		/* >= 0: nlmsg_len written as this */
	long send_cut;		/* >= 0: send only this many bytes */
	int trail;		/* bytes of garbage after the message */
};

static struct at pool[POOL];
static int npool;
static uint16_t family;
static uint32_t netns_ino;
static uint32_t rule_ids[DROPSCOPE_MAX_RULES];
static int nrule_ids;

static struct at *new_at(uint16_t type)
{
	struct at *a;

	if (npool == POOL)
		return NULL;
	a = &pool[npool++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->lenfix = -1;
	return a;
}

static struct at *add(struct at *parent, struct at *a)
{
	if (a && parent->nk < MAXK)
		parent->k[parent->nk++] = a;
	return a;
}

static struct at *leaf(struct at *parent, uint16_t type, const void *v,
		       int len)
{
	struct at *a = new_at(type);

	if (!a)
		return NULL;
	a->vlen = len > VMAX ? VMAX : len;
	memcpy(a->v, v, a->vlen);
	return add(parent, a);
}

static struct at *put_u8(struct at *p, uint16_t t, uint8_t v) { return leaf(p, t, &v, 1); }
static struct at *put_u16(struct at *p, uint16_t t, uint16_t v) { return leaf(p, t, &v, 2); }
static struct at *put_u32(struct at *p, uint16_t t, uint32_t v) { return leaf(p, t, &v, 4); }
static struct at *put_u64(struct at *p, uint16_t t, uint64_t v) { return leaf(p, t, &v, 8); }

static struct at *nest(struct at *parent, uint16_t type)
{
	struct at *a = new_at(type | NLA_F_NESTED);

	if (!a)
		return NULL;
	a->nest = true;
	return add(parent, a);
}

static int ser_at(const struct at *a, uint8_t *buf, int off, int cap)
{
	struct nlattr nla;
	int start = off, i;

	if (off + NLA_HDRLEN > cap)
		return off;
	off += NLA_HDRLEN;
	if (a->nest) {
		for (i = 0; i < a->nk; i++)
			off = ser_at(a->k[i], buf, off, cap);
	} else {
		int n = off + a->vlen > cap ? cap - off : a->vlen;

		memcpy(buf + off, a->v, n);
		off += n;
	}
	nla.nla_type = a->type;
	nla.nla_len = a->lenfix >= 0 ? (uint16_t)a->lenfix :
		(uint16_t)(off - start);
	memcpy(buf + start, &nla, sizeof(nla));
	if (!a->nopad)
		while (off & 3 && off < cap)
			buf[off++] = 0;
	return off;
}

/* The bytes to send into buf; returns how many. */
static int serialize(const struct msg *m, uint8_t *buf, int cap, uint32_t seq)
{
	struct nlmsghdr nlh = { 0 };
	struct genlmsghdr g = { 0 };
	int off = NLMSG_HDRLEN, i;

	g.cmd = m->cmd;
	g.version = m->ver;
	g.reserved = m->resv;
	memcpy(buf + off, &g, sizeof(g));
	off += GENL_HDRLEN;
	for (i = 0; i < m->root.nk; i++)
		off = ser_at(m->root.k[i], buf, off, cap - 64);
	nlh.nlmsg_len = m->nllen_fix >= 0 ? (uint32_t)m->nllen_fix :
		(uint32_t)off;
	nlh.nlmsg_type = m->nltype;
	nlh.nlmsg_flags = m->flags;
	nlh.nlmsg_seq = seq;
	memcpy(buf, &nlh, sizeof(nlh));
	if (m->trail) {
		/* Garbage after the message: never a request to another family */
		struct nlmsghdr t = { 0 };
		int n = m->trail;

		off = NLMSG_ALIGN(off);
		for (i = 0; i < n; i++)
			buf[off + i] = (uint8_t)rnd();
		if (n >= NLMSG_HDRLEN) {
			memcpy(&t, buf + off, sizeof(t));
			t.nlmsg_type = chance(50) ? NLMSG_NOOP : 0xfff0 + below(16);
			t.nlmsg_flags &= ~NLM_F_ACK;
			memcpy(buf + off, &t, sizeof(t));
		}
		off += n;
	}
	if (m->send_cut >= 0 && m->send_cut < off)
		off = (int)m->send_cut;
	return off;
}

/* --- the socket -------------------------------------------------------------- */
static int fd;
static uint32_t seq = 1;
static uint8_t rbuf[BUFSZ];
static uint8_t sbuf[BUFSZ];
static int slen;		/* the fuzzed request, for reports */

static void hexdump(const uint8_t *p, int len)
{
	int i;

	for (i = 0; i < len; i++)
		fprintf(stderr, "%02x%s", p[i], (i % 32 == 31 || i == len - 1) ?
			"\n" : (i % 4 == 3 ? " " : ""));
}

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "nlfuzz: FAIL: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nnlfuzz: the last fuzzed request (%d bytes):\n", slen);
	hexdump(sbuf, slen);
	exit(1);
}

struct result {
	int acks_ok;		/* ack 0, DONE 0, or a reply with data */
	int errors;		/* acks or DONEs with an error */
	int first_err;
	char extack[256];
	bool silent;		/* no answer at all */
};

/* Attributes in [p, p + len): each inside, nla_len >= 4; nests recursed. */
static bool attrs_ok(const uint8_t *p, int len, int depth)
{
	while (len >= NLA_HDRLEN) {
		struct nlattr a;

		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
			return false;
		if ((a.nla_type & NLA_F_NESTED) && depth < 8 &&
		    !attrs_ok(p + NLA_HDRLEN, a.nla_len - NLA_HDRLEN, depth + 1))
			return false;
		if (NLA_ALIGN(a.nla_len) >= len)
			return true;
		p += NLA_ALIGN(a.nla_len);
		len -= NLA_ALIGN(a.nla_len);
	}
	return len == 0;
}

typedef void (*reply_fn)(const struct nlmsghdr *nlh, void *arg);

static void extack_of(const struct nlmsghdr *nlh, struct result *r)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	int off = NLMSG_HDRLEN + sizeof(*e);
	const uint8_t *p = (const uint8_t *)nlh;

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	while (off + NLA_HDRLEN <= (int)nlh->nlmsg_len) {
		const struct nlattr *a = (const void *)(p + off);

		if (a->nla_len < NLA_HDRLEN)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			snprintf(r->extack, sizeof(r->extack), "%.*s",
				 a->nla_len - NLA_HDRLEN, (const char *)(a + 1));
		off += NLA_ALIGN(a->nla_len);
	}
}

/*
 * Send len bytes of buf and collect every answer. Requests are processed
 * in the sender's context: the answers are queued when sendto() returns,
 * but for the following parts of a dump, made while we read.
 */
static unsigned long capture_msgs;	/* unasked: a capture's packets */

static void xchg(const uint8_t *buf, int len, struct result *r, reply_fn fn,
		 void *arg)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	bool in_dump = false, any = false;

	memset(r, 0, sizeof(*r));
	if (sendto(fd, buf, len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0) {
		/* refused by the socket layer (an empty message: ENODATA) */
		r->errors = 1;
		r->first_err = errno;
		snprintf(r->extack, sizeof(r->extack), "sendto");
		return;
	}
	for (;;) {
		struct nlmsghdr *nlh;
		ssize_t n;
		int rem;

		n = recv(fd, rbuf, sizeof(rbuf), in_dump ? 0 : MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (in_dump)
				die("a dump stopped without NLMSG_DONE");
			break;
		}
		if (n < 0)
			die("recv: %s", strerror(errno));
		any = true;
		rem = (int)n;
		for (nlh = (struct nlmsghdr *)rbuf; rem > 0;
		     nlh = NLMSG_NEXT(nlh, rem)) {
			if (!NLMSG_OK(nlh, rem))
				die("a malformed reply (%d bytes left)", rem);
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);

				if (e->error) {
					if (!r->errors++)
						r->first_err = -e->error;
					extack_of(nlh, r);
				} else {
					r->acks_ok++;
				}
				in_dump = false;
				continue;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&err, NLMSG_DATA(nlh), sizeof(err));
				if (err) {
					if (!r->errors++)
						r->first_err = -err;
				} else {
					r->acks_ok++;
				}
				in_dump = false;
				continue;
			}
			if (nlh->nlmsg_type == NLMSG_NOOP ||
			    nlh->nlmsg_type == NLMSG_OVERRUN)
				continue;
			if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
				die("a reply without a genetlink header");
			if (!attrs_ok((uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN,
				      (int)nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), 0))
				die("a reply with malformed attributes");
			/* the packets of a capture this socket started: no reply */
			if (nlh->nlmsg_seq == 0 &&
			    ((struct genlmsghdr *)NLMSG_DATA(nlh))->cmd ==
			    DROPSCOPE_CMD_CAPTURE) {
				capture_msgs++;
				continue;
			}
			r->acks_ok++;
			if (nlh->nlmsg_flags & NLM_F_MULTI)
				in_dump = true;
			if (fn)
				fn(nlh, arg);
		}
	}
	r->silent = !any;
}

/* A well-formed request without attributes, for the checks. */
static int plain(uint8_t *buf, uint8_t cmd, bool dump)
{
	struct msg m = { .nltype = family, .cmd = cmd, .ver = 1,
			 .nllen_fix = -1, .send_cut = -1 };

	m.flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	return serialize(&m, buf, BUFSZ, seq++);
}

/* --- the snapshot ------------------------------------------------------------ */
struct snap {
	uint8_t cfg[1024];
	int cfglen;
	uint8_t rules[SNAPSZ];
	int ruleslen;
	bool running;
	uint32_t nrules;
	bool intr;
};

static void on_config(const struct nlmsghdr *nlh, void *arg)
{
	struct snap *s = arg;
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN;
	int len = (int)nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	int off;

	s->cfglen = len > (int)sizeof(s->cfg) ? (int)sizeof(s->cfg) : len;
	memcpy(s->cfg, p, s->cfglen);
	for (off = 0; off + NLA_HDRLEN <= len;) {
		const struct nlattr *a = (const void *)(p + off);

		if (a->nla_type == DROPSCOPE_A_RUNNING && a->nla_len >= 5)
			s->running = p[off + NLA_HDRLEN];
		if (a->nla_type == DROPSCOPE_A_RULES && a->nla_len >= 8)
			memcpy(&s->nrules, p + off + NLA_HDRLEN, 4);
		off += NLA_ALIGN(a->nla_len);
	}
}

/* One rule: every attribute of its nest but the hits (drops flow). */
static void on_rule(const struct nlattr *rule, struct snap *s)
{
	const uint8_t *p = (const uint8_t *)(rule + 1);
	int len = rule->nla_len - NLA_HDRLEN, off;

	for (off = 0; off + NLA_HDRLEN <= len;) {
		const struct nlattr *a = (const void *)(p + off);
		int t = a->nla_type & NLA_TYPE_MASK;

		if (t == DROPSCOPE_RULE_A_ID && a->nla_len >= 8 &&
		    nrule_ids < DROPSCOPE_MAX_RULES)
			memcpy(&rule_ids[nrule_ids++], a + 1, 4);
		if (t != DROPSCOPE_RULE_A_HITS && t != DROPSCOPE_RULE_A_PAD &&
		    s->ruleslen + a->nla_len <= SNAPSZ) {
			memcpy(s->rules + s->ruleslen, a, a->nla_len);
			s->ruleslen += a->nla_len;
		}
		off += NLA_ALIGN(a->nla_len);
	}
}

static void on_rules(const struct nlmsghdr *nlh, void *arg)
{
	struct snap *s = arg;
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN;
	int len = (int)nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), off;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		s->intr = true;
	for (off = 0; off + NLA_HDRLEN <= len;) {
		const struct nlattr *a = (const void *)(p + off);

		if ((a->nla_type & NLA_TYPE_MASK) == DROPSCOPE_A_RULE)
			on_rule(a, s);
		off += NLA_ALIGN(a->nla_len);
	}
}

static unsigned long checks;

static void snapshot(struct snap *s)
{
	uint8_t buf[64];
	struct result r;
	int len, tries;

	for (tries = 0; tries < 5; tries++) {
		memset(s, 0, sizeof(*s));
		nrule_ids = 0;
		len = plain(buf, DROPSCOPE_CMD_CONFIG_GET, false);
		xchg(buf, len, &r, on_config, s);
		if (r.errors || !s->cfglen)
			die("CONFIG_GET failed: %s %s", strerrorname_np(r.first_err),
			    r.extack);
		len = plain(buf, DROPSCOPE_CMD_RULE_GET, true);
		xchg(buf, len, &r, on_rules, s);
		if (r.errors)
			die("the RULE_GET dump failed: %s %s",
			    strerrorname_np(r.first_err), r.extack);
		if (!s->intr)
			break;
	}
	checks++;
}

static void do_plain(uint8_t cmd)
{
	uint8_t buf[64];
	struct result r;
	int len = plain(buf, cmd, false);

	xchg(buf, len, &r, NULL, NULL);
	if (r.errors)
		die("keeping the state: command %u failed: %s %s", cmd,
		    strerrorname_np(r.first_err), r.extack);
}

/* For -T: a change the check must notice. */
static void change_interval(void)
{
	struct msg m;
	struct result r;
	uint8_t buf[256];
	int len;

	memset(&m, 0, sizeof(m));
	m.nltype = family;
	m.flags = NLM_F_REQUEST | NLM_F_ACK;
	m.cmd = DROPSCOPE_CMD_CONFIG_SET;
	m.ver = DROPSCOPE_GENL_VERSION;
	m.nllen_fix = -1;
	m.send_cut = -1;
	m.root.nest = true;
	npool = 0;
	put_u32(&m.root, DROPSCOPE_A_INTERVAL_MS, 12345);
	len = serialize(&m, buf, sizeof(buf), seq++);
	xchg(buf, len, &r, NULL, NULL);
	if (r.errors)
		die("-T: CONFIG_SET failed: %s %s", strerrorname_np(r.first_err),
		    r.extack);
}

static void diff_hex(const char *what, const uint8_t *a, int alen,
		     const uint8_t *b, int blen)
{
	fprintf(stderr, "nlfuzz: %s before (%d bytes):\n", what, alen);
	hexdump(a, alen);
	fprintf(stderr, "nlfuzz: %s after (%d bytes):\n", what, blen);
	hexdump(b, blen);
}

/* --- the requests -------------------------------------------------------------- */
static const uint16_t bad_types[] = {
	0, DROPSCOPE_A_MAX, DROPSCOPE_A_MAX + 1, 0xffff & NLA_TYPE_MASK,
	DROPSCOPE_RULE_A_MAX, DROPSCOPE_RULE_A_MAX + 1, 0x7fff, 0xffff,
	NLA_F_NESTED, NLA_F_NET_BYTEORDER, 255, 256, 1,
};

static uint16_t bad_type(void)
{
	uint16_t t = chance(80) ? bad_types[below(sizeof(bad_types) / 2)] :
		(uint16_t)rnd();

	if (chance(15))
		t |= NLA_F_NESTED;
	if (chance(10))
		t |= NLA_F_NET_BYTEORDER;
	return t;
}

static const int bad_lens[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 64, 255, 300 };

static void fill_random(uint8_t *v, int n)
{
	int i, mode = (int)below(4);

	for (i = 0; i < n; i++)
		v[i] = mode == 0 ? 0 : mode == 1 ? 0xff : (uint8_t)rnd();
}

static void random_attrs(struct at *p, int depth)
{
	int n = (int)below(6), i;

	for (i = 0; i < n; i++) {
		uint16_t t = bad_type();

		if (depth < 4 && chance(25)) {
			struct at *a = nest(p, t);

			if (a)
				random_attrs(a, depth + 1);
		} else {
			uint8_t v[VMAX];
			int len = chance(70) ? bad_lens[below(sizeof(bad_lens) / sizeof(int))] :
				(int)below(VMAX);

			fill_random(v, len);
			leaf(p, t & ~NLA_F_NESTED, v, len);
		}
	}
}

static uint32_t some_interval(void)
{
	static const uint32_t v[] = { 10, 11, 50, 200, 1000, 59999, 60000 };

	return v[below(7)];
}

static void rule_fields(struct at *r)
{
	int n = 1 + (int)below(3), i;

	if (chance(70))
		put_u8(r, DROPSCOPE_RULE_A_MODE, (uint8_t)below(2));
	for (i = 0; i < n; i++) {
		switch (below(7)) {
		case 0:
			put_u8(r, DROPSCOPE_RULE_A_L4, chance(50) ? 17 : 6);
			break;
		case 1:
			put_u16(r, DROPSCOPE_RULE_A_L3, chance(50) ? 0x0800 : 0x86dd);
			break;
		case 2:
			put_u32(r, DROPSCOPE_RULE_A_REASON, 2 + below(8));
			break;
		case 3:
			put_u32(r, DROPSCOPE_RULE_A_IFINDEX, 1 + below(3));
			break;
		case 4:
			put_u32(r, DROPSCOPE_RULE_A_NETNS, netns_ino);
			break;
		default: {
			uint64_t start = 0xffffffff81000000ULL + below(1 << 24);

			put_u64(r, DROPSCOPE_RULE_A_LOC_START, start);
			put_u64(r, DROPSCOPE_RULE_A_LOC_END, start + 1 + below(4096));
			break;
		}
		}
	}
}

/*
 * A capture's filter: mostly programs the checker takes (loads of the
 * packet, a jump, a return), some it refuses (a jump out, no return, a
 * length or ancillary load), as struct sock_filter.
 */
static void capture_filter(struct at *c)
{
	static const struct sock_filter good[] = {
		{ 0x30, 0, 0, 9 },		/* ldb [9] */
		{ 0x15, 0, 1, 17 },		/* jeq #17 */
		{ 0x06, 0, 0, 0xffff },		/* ret #65535 */
		{ 0x06, 0, 0, 0 },		/* ret #0 */
	};
	struct sock_filter f[8];
	int n = 4, i;

	memcpy(f, good, sizeof(good));
	switch (below(6)) {
	case 0:
		f[1].jf = 10;			/* out of the program */
		break;
	case 1:
		n = 2;				/* no return */
		break;
	case 2:
		f[0] = (struct sock_filter){ 0x80, 0, 0, 0 };	/* ld len */
		break;
	case 3:
		f[0].k = 0xfffff000;		/* SKF_AD_OFF: ancillary */
		break;
	default:
		break;
	}
	if (chance(10))
		for (i = 0; i < n; i++)
			fill_random((uint8_t *)&f[i], sizeof(f[i]));
	leaf(c, DROPSCOPE_CAPTURE_A_FILTER, f, n * (int)sizeof(f[0]) -
	     (chance(5) ? 1 + (int)below(7) : 0));
}

static bool is_dump(uint8_t cmd)
{
	return cmd == DROPSCOPE_CMD_SITES_GET ||
		cmd == DROPSCOPE_CMD_REASONS_GET || cmd == DROPSCOPE_CMD_RULE_GET ||
		cmd == DROPSCOPE_CMD_SESSIONS_GET ||
		cmd == DROPSCOPE_CMD_CLOSED_GET;
}

/* A well-formed request of command cmd. */
static void template(struct msg *m, uint8_t cmd)
{
	struct at *r;

	memset(m, 0, sizeof(*m));
	m->nllen_fix = -1;
	m->send_cut = -1;
	m->root.nest = true;
	m->nltype = family;
	m->ver = DROPSCOPE_GENL_VERSION;
	m->cmd = cmd;
	m->flags = NLM_F_REQUEST | NLM_F_ACK | (is_dump(cmd) ? NLM_F_DUMP : 0);
	switch (cmd) {
	case DROPSCOPE_CMD_START:
		/* refused while running; the parts bits, valid or not */
		if (chance(60))
			put_u32(&m->root, DROPSCOPE_A_PARTS,
				chance(70) ? 1 + below(DROPSCOPE_PARTS_ALL) :
				(uint32_t)rnd());
		break;
	case DROPSCOPE_CMD_CONFIG_SET:
		do {
			if (chance(50))
				put_u32(&m->root, DROPSCOPE_A_INTERVAL_MS, some_interval());
			if (chance(40))
				put_u32(&m->root, DROPSCOPE_A_THRESHOLD, below(4));
			if (chance(40))
				put_u32(&m->root, DROPSCOPE_A_TOP, below(5));
			if (chance(40))
				put_u32(&m->root, DROPSCOPE_A_RATELIMIT,
					chance(50) ? 0 : 1000000);
		} while (!m->root.nk);
		break;
	case DROPSCOPE_CMD_RULE_ADD:
		r = nest(&m->root, DROPSCOPE_A_RULE);
		rule_fields(r);
		break;
	case DROPSCOPE_CMD_RULE_DEL:
		r = nest(&m->root, DROPSCOPE_A_RULE);
		put_u32(r, DROPSCOPE_RULE_A_ID, nrule_ids && chance(70) ?
			rule_ids[below(nrule_ids)] : (uint32_t)rnd());
		break;
	case DROPSCOPE_CMD_CAPTURE_START:
		/* at most 4 run, for this socket: they end with it */
		r = nest(&m->root, DROPSCOPE_A_CAPTURE);
		if (chance(70))
			capture_filter(r);
		if (chance(50))
			put_u32(r, DROPSCOPE_CAPTURE_A_SNAPLEN,
				chance(80) ? 1 + below(65535) : (uint32_t)rnd());
		if (chance(20))
			leaf(r, DROPSCOPE_CAPTURE_A_ALL, "", 0);
		if (chance(40))
			rule_fields(nest(&m->root, DROPSCOPE_A_RULE));
		break;
	case DROPSCOPE_CMD_CAPTURE_STOP:
		r = nest(&m->root, DROPSCOPE_A_CAPTURE);
		put_u32(r, DROPSCOPE_CAPTURE_A_ID, chance(70) ? 1 + below(64) :
			(uint32_t)rnd());
		break;
	}
}

/* Every attribute of the message, nests included. */
static int collect(struct at *a, struct at **out, int n, int max)
{
	int i;

	for (i = 0; i < a->nk && n < max; i++) {
		out[n++] = a->k[i];
		if (a->k[i]->nest)
			n = collect(a->k[i], out, n, max);
	}
	return n;
}

/* The nest (the root or a nested attribute) holding attribute a. */
static struct at *parent_of(struct at *root, struct at *a)
{
	struct at *all[POOL];
	int n, i, j;

	all[0] = root;
	n = 1 + collect(root, all + 1, 0, POOL - 1);
	for (i = 0; i < n; i++)
		for (j = 0; j < all[i]->nk; j++)
			if (all[i]->k[j] == a)
				return all[i];
	return root;
}

static const char *const mut_names[] = {
	"none", "nlmsg_len", "nlmsg_flags", "nlmsg_type", "genl cmd",
	"genl version", "genl reserved", "attr type", "attr len",
	"attr flag bits", "attr cut", "attr grown", "attr value", "attr twice",
	"attr removed", "attr added", "attr unaligned", "nest emptied",
	"nest deep", "nest flag cleared", "nest member twice",
	"nest member bad", "nest member unknown", "sent cut short",
	"trailing bytes",
};

enum { M_NONE, M_NLLEN, M_FLAGS, M_NLTYPE, M_CMD, M_VER, M_RESV, M_TYPE,
	M_LEN, M_FLAGBITS, M_CUT, M_GROW, M_VALUE, M_DUP, M_DEL, M_ADD,
	M_NOPAD, M_NEST_EMPTY, M_NEST_DEEP, M_NEST_NOFLAG, M_NEST_DUP,
	M_NEST_BAD, M_NEST_UNKNOWN, M_SENDCUT, M_TRAIL, M_COUNT };

static unsigned long mut_count[M_COUNT];

/* The first DROPSCOPE_A_RULE nest, or one made for the request. */
static struct at *rule_nest(struct msg *m)
{
	int i;

	for (i = 0; i < m->root.nk; i++)
		if (m->root.k[i]->nest &&
		    (m->root.k[i]->type & NLA_TYPE_MASK) == DROPSCOPE_A_RULE)
			return m->root.k[i];
	return nest(&m->root, DROPSCOPE_A_RULE);
}

static int mutate(struct msg *m, int len_hint)
{
	struct at *all[POOL], *a, *p, *r;
	int n = collect(&m->root, all, 0, POOL), kind, i;

	kind = 1 + (int)below(M_COUNT - 1);
	/* no attribute to break: add one, or break something else */
	while (n == 0 && kind >= M_TYPE && kind <= M_NOPAD && kind != M_ADD)
		kind = chance(20) ? M_ADD : 1 + (int)below(M_COUNT - 1);
	a = n ? all[below(n)] : NULL;
	switch (kind) {
	case M_NLLEN: {
		static const long l[] = { 0, 1, 15, 16, 17, 19, 20, 21 };

		switch (below(4)) {
		case 0: m->nllen_fix = l[below(8)]; break;
		case 1: m->nllen_fix = len_hint - 1 - (long)below(4); break;
		case 2: m->nllen_fix = len_hint + 1 + (long)below(400); break;
		default: m->nllen_fix = chance(50) ? 0xffffffffL : (long)(rnd() & 0xffffffff); break;
		}
		if (m->nllen_fix < 0)
			m->nllen_fix = 0;
		break;
	}
	case M_FLAGS:
		switch (below(5)) {
		case 0: m->flags &= ~NLM_F_REQUEST; break;
		case 1: m->flags ^= chance(50) ? NLM_F_DUMP :
				(chance(50) ? NLM_F_ROOT : NLM_F_MATCH); break;
		case 2: m->flags &= ~NLM_F_ACK; break;
		case 3: m->flags |= 1U << below(16); break;
		default: m->flags = (uint16_t)rnd() | NLM_F_REQUEST; break;
		}
		break;
	case M_NLTYPE: {
		/* never another family's id: only control types and unused ids */
		static const uint16_t t[] = { 0, NLMSG_NOOP, NLMSG_ERROR,
			NLMSG_DONE, NLMSG_OVERRUN, GENL_ID_CTRL, 1024, 0x8000,
			0xfffe, 0xffff };

		m->nltype = t[below(sizeof(t) / sizeof(t[0]))];
		if (m->nltype == GENL_ID_CTRL)
			m->cmd = CTRL_CMD_GETFAMILY + (uint8_t)below(2) * 2;
		break;
	}
	case M_CMD:
		m->cmd = chance(50) ? (uint8_t)rnd() :
			(uint8_t)(chance(50) ? 0 : __DROPSCOPE_CMD_MAX + below(3));
		break;
	case M_VER:
		m->ver = chance(50) ? 0 : (uint8_t)rnd();
		break;
	case M_RESV:
		m->resv = 1 + (uint16_t)below(0xffff);
		break;
	case M_TYPE:
		a->type = bad_type() | (a->nest ? NLA_F_NESTED : 0);
		break;
	case M_LEN:
		switch (below(5)) {
		case 0: a->lenfix = (int)below(4); break;
		case 1: a->lenfix = NLA_HDRLEN; break;
		case 2: a->lenfix = NLA_HDRLEN + a->vlen - 1; break;
		case 3: a->lenfix = NLA_HDRLEN + a->vlen + 1 + (int)below(8); break;
		default: a->lenfix = chance(50) ? 0xffff : 1000 + (int)below(4000); break;
		}
		if (a->lenfix < 0)
			a->lenfix = 0;
		break;
	case M_FLAGBITS:
		a->type ^= chance(50) ? NLA_F_NET_BYTEORDER : NLA_F_NESTED;
		break;
	case M_CUT:
		if (!a->nest && a->vlen)
			a->vlen = (int)below(a->vlen);
		else
			a->nk = a->nk ? (int)below(a->nk) : 0;
		break;
	case M_GROW:
		if (!a->nest) {
			int more = 1 + (int)below(12);

			if (a->vlen + more <= VMAX) {
				fill_random(a->v + a->vlen, more);
				a->vlen += more;
			}
		} else {
			leaf(a, (uint16_t)below(16), "\x01\x02\x03\x04\x05", (int)below(6));
		}
		break;
	case M_VALUE:
		if (!a->nest && a->vlen) {
			static const uint64_t v[] = { 0, 1, 2, 9, 10, 60000,
				60001, 1000000, 1000001, 0x7f, 0x80, 0xff, 0x7fff,
				0xffff, 0xffffffff, 0x7fffffff, ~0ULL };
			uint64_t x = v[below(sizeof(v) / 8)];

			memcpy(a->v, &x, a->vlen < 8 ? a->vlen : 8);
		}
		break;
	case M_DUP:
		p = parent_of(&m->root, a);
		if (!a->nest) {
			r = leaf(p, a->type, a->v, a->vlen);
			if (r && chance(50) && a->vlen)
				r->v[0] ^= 0x55;
		} else {
			add(p, a);	/* the same nest again */
		}
		break;
	case M_DEL:
		p = parent_of(&m->root, a);
		for (i = 0; i < p->nk; i++)
			if (p->k[i] == a) {
				memmove(&p->k[i], &p->k[i + 1],
					(p->nk - i - 1) * sizeof(p->k[0]));
				p->nk--;
				break;
			}
		break;
	case M_ADD: {
		uint8_t v[16];
		int len = bad_lens[below(9)];

		fill_random(v, len);
		p = n && chance(50) ? parent_of(&m->root, a) : &m->root;
		leaf(p, bad_type() & ~NLA_F_NESTED, v, len);
		break;
	}
	case M_NOPAD:
		if (!a->nest && (a->vlen & 3) == 0 && a->vlen)
			a->vlen--;	/* a u32 of 3 bytes, then no padding */
		a->nopad = true;
		break;
	case M_NEST_EMPTY:
		r = rule_nest(m);
		if (r)
			r->nk = 0;
		break;
	case M_NEST_DEEP: {
		int depth = 2 + (int)below(40);

		p = rule_nest(m);
		for (i = 0; i < depth && p; i++)
			p = nest(p, chance(70) ? DROPSCOPE_A_RULE :
				 (uint16_t)below(DROPSCOPE_RULE_A_MAX + 2));
		if (p && chance(50))
			put_u32(p, DROPSCOPE_RULE_A_ID, 1);
		break;
	}
	case M_NEST_NOFLAG:
		r = rule_nest(m);
		if (r)
			r->type &= ~NLA_F_NESTED;
		break;
	case M_NEST_DUP:
		r = rule_nest(m);
		if (r && r->nk) {
			a = r->k[below(r->nk)];
			if (!a->nest)
				leaf(r, a->type, a->v, a->vlen);
		} else if (r) {
			put_u8(r, DROPSCOPE_RULE_A_L4, 17);
			put_u8(r, DROPSCOPE_RULE_A_L4, 6);
		}
		break;
	case M_NEST_BAD: {
		/* a member of the wrong size: u8 for u64, u64 for u8 ... */
		static const int sz[] = { 0, 1, 2, 4, 8, 3, 16 };
		uint8_t v[16];
		int len = sz[below(7)];

		r = rule_nest(m);
		fill_random(v, len);
		if (r)
			leaf(r, 1 + (uint16_t)below(DROPSCOPE_RULE_A_MAX), v, len);
		break;
	}
	case M_NEST_UNKNOWN:
		r = rule_nest(m);
		if (r)
			put_u32(r, chance(50) ? DROPSCOPE_RULE_A_MAX + 1 + below(3) :
				(chance(50) ? 0 : DROPSCOPE_RULE_A_PAD), 1);
		break;
	case M_SENDCUT:
		m->send_cut = (long)below(len_hint);
		break;
	case M_TRAIL:
		m->trail = 1 + (int)below(40);
		break;
	}
	mut_count[kind]++;
	return kind;
}

static void build(struct msg *m, int *kind)
{
	static const uint8_t cmds[] = {
		DROPSCOPE_CMD_START, DROPSCOPE_CMD_STOP, DROPSCOPE_CMD_CONFIG_GET,
		DROPSCOPE_CMD_CONFIG_SET, DROPSCOPE_CMD_CONFIG_SET,
		DROPSCOPE_CMD_SITES_GET, DROPSCOPE_CMD_REASONS_GET,
		DROPSCOPE_CMD_STATS_GET, DROPSCOPE_CMD_RESET, DROPSCOPE_CMD_ALERT,
		DROPSCOPE_CMD_RULE_ADD, DROPSCOPE_CMD_RULE_ADD,
		DROPSCOPE_CMD_RULE_ADD, DROPSCOPE_CMD_RULE_DEL,
		DROPSCOPE_CMD_RULE_DEL, DROPSCOPE_CMD_RULE_GET,
		DROPSCOPE_CMD_RULE_CLEAR, DROPSCOPE_CMD_SESSIONS_GET,
		DROPSCOPE_CMD_CLOSED_GET, DROPSCOPE_CMD_SMC_GET,
		DROPSCOPE_CMD_CAPTURE_START, DROPSCOPE_CMD_CAPTURE_START,
		DROPSCOPE_CMD_CAPTURE_STOP, DROPSCOPE_CMD_CAPTURE,
		DROPSCOPE_CMD_UNSPEC,
		__DROPSCOPE_CMD_MAX, 0xff,
	};
	uint8_t cmd = cmds[below(sizeof(cmds))];
	uint8_t tmp[BUFSZ];
	unsigned int mode = below(100);

	npool = 0;
	template(m, cmd);
	*kind = -1;
	if (mode < 70) {
		/* one thing broken, in 6 of 7; else left valid */
		*kind = chance(86) ? mutate(m, serialize(m, tmp, BUFSZ, 0)) : M_NONE;
		if (*kind == M_NONE)
			mut_count[M_NONE]++;
	} else if (mode < 90) {
		/* random attributes, do and dump mixed */
		m->root.nk = 0;
		npool = 0;
		random_attrs(&m->root, 0);
		if (chance(30))
			m->flags ^= NLM_F_DUMP;
		if (chance(20))
			m->cmd = (uint8_t)rnd();
	} else {
		/* valid headers, random bytes */
		struct at *a;

		m->root.nk = 0;
		npool = 0;
		a = new_at(0);
		a->vlen = (int)below(VMAX);
		fill_random(a->v, a->vlen);
		a->lenfix = -2;		/* raw: no header of its own */
		add(&m->root, a);
	}
}

/* Raw payload: written without an attribute header. */
static int serialize_msg(struct msg *m, uint8_t *buf, uint32_t s)
{
	if (m->root.nk == 1 && m->root.k[0]->lenfix == -2) {
		struct at *a = m->root.k[0];
		struct nlmsghdr nlh = { 0 };
		struct genlmsghdr g = { .cmd = m->cmd, .version = m->ver };
		int len = NLMSG_HDRLEN + GENL_HDRLEN + a->vlen;

		nlh.nlmsg_len = (uint32_t)len;
		nlh.nlmsg_type = m->nltype;
		nlh.nlmsg_flags = m->flags;
		nlh.nlmsg_seq = s;
		memcpy(buf, &nlh, sizeof(nlh));
		memcpy(buf + NLMSG_HDRLEN, &g, sizeof(g));
		memcpy(buf + NLMSG_HDRLEN + GENL_HDRLEN, a->v, a->vlen);
		return len;
	}
	return serialize(m, buf, BUFSZ, s);
}

/*
 * The core reads one sent buffer as a sequence of messages: a length
 * made short turns the rest of the request into further messages, whose
 * type is whatever bytes fall there. None of them may reach another
 * family: such a type becomes 0xffff, which no family has.
 */
static void confine(uint8_t *buf, int len)
{
	int off = 0;

	while (len - off >= NLMSG_HDRLEN) {
		struct nlmsghdr h;
		int step;

		memcpy(&h, buf + off, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > (uint32_t)(len - off))
			break;
		if (h.nlmsg_type >= NLMSG_MIN_TYPE && h.nlmsg_type != family &&
		    h.nlmsg_type != GENL_ID_CTRL && h.nlmsg_type < 1024) {
			h.nlmsg_type = 0xffff;
			memcpy(buf + off, &h, sizeof(h));
		}
		step = NLMSG_ALIGN(h.nlmsg_len);
		off += step > len - off ? len - off : step;
	}
}

/* --- setup ----------------------------------------------------------------------- */
static void on_family(const struct nlmsghdr *nlh, void *arg)
{
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN;
	int len = (int)nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), off;

	for (off = 0; off + NLA_HDRLEN <= len;) {
		const struct nlattr *a = (const void *)(p + off);

		if (a->nla_type == CTRL_ATTR_FAMILY_ID && a->nla_len >= 6)
			memcpy(arg, a + 1, 2);
		off += NLA_ALIGN(a->nla_len);
	}
}

static void resolve_family(void)
{
	struct msg m = { .nltype = GENL_ID_CTRL, .cmd = CTRL_CMD_GETFAMILY,
			 .ver = 1, .flags = NLM_F_REQUEST | NLM_F_ACK,
			 .nllen_fix = -1, .send_cut = -1 };
	struct result r;
	uint8_t buf[256];
	int len;

	npool = 0;
	m.root.nest = true;
	leaf(&m.root, CTRL_ATTR_FAMILY_NAME, DROPSCOPE_GENL_NAME,
	     sizeof(DROPSCOPE_GENL_NAME));
	len = serialize(&m, buf, sizeof(buf), seq++);
	xchg(buf, len, &r, on_family, &family);
	if (!family) {
		fprintf(stderr, "nlfuzz: no %s family: is dropscope.ko loaded?\n",
			DROPSCOPE_GENL_NAME);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	unsigned long n = 100000, i, refused = 0, accepted = 0, silent = 0;
	unsigned long restarts = 0, clears = 0, errnos[256] = { 0 };
	uint64_t seed = 1;
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 5 };
	int one = 1, rcvbuf = 4 << 20, opt, kind;
	bool verbose = false, selftest = false;
	static struct snap cur, now;
	struct stat st;
	struct msg m;

	while ((opt = getopt(argc, argv, "s:n:vT")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		case 'T': selftest = true; break;
		default:
			fprintf(stderr, "usage: nlfuzz [-s SEED] [-n COUNT] [-v] [-T]\n");
			return 2;
		}
	}
	rs = seed * 0x9E3779B97F4A7C15ULL + 1;
	if (stat("/proc/self/ns/net", &st) == 0)
		netns_ino = (uint32_t)st.st_ino;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		perror("nlfuzz: netlink socket");
		return 2;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	resolve_family();

	snapshot(&cur);
	if (!cur.running)
		do_plain(DROPSCOPE_CMD_START);
	snapshot(&cur);
	for (i = 0; i < n; i++) {
		struct result r;

		build(&m, &kind);
		slen = serialize_msg(&m, sbuf, seq++);
		confine(sbuf, slen);
		xchg(sbuf, slen, &r, NULL, NULL);
		/*
		 * Refused: an error and nothing accepted, or no answer at all
		 * to a request whose header the core drops unread (a length
		 * below a header's or past what was sent).
		 */
		if (r.silent) {
			uint32_t l;

			memcpy(&l, sbuf, 4);
			silent++;
			if (slen < NLMSG_HDRLEN || l < NLMSG_HDRLEN || l > (uint32_t)slen)
				r.errors = 1;
		}
		if (r.errors && !r.acks_ok) {
			refused++;
			errnos[r.first_err & 0xff]++;
			if (selftest)
				change_interval();
			snapshot(&now);
			if (now.cfglen != cur.cfglen ||
			    memcmp(now.cfg, cur.cfg, cur.cfglen) ||
			    now.ruleslen != cur.ruleslen ||
			    memcmp(now.rules, cur.rules, cur.ruleslen)) {
				diff_hex("config", cur.cfg, cur.cfglen, now.cfg, now.cfglen);
				diff_hex("rules", cur.rules, cur.ruleslen, now.rules,
					 now.ruleslen);
				die("message %lu (mutation: %s) was refused (%s: %s) but changed the configuration",
				    i, kind >= 0 ? mut_names[kind] : "random",
				    r.silent ? "no answer" :
				    (strerrorname_np(r.first_err) ?: "?"), r.extack);
			}
		} else {
			accepted++;
			snapshot(&cur);
			if (!cur.running || cur.nrules > MAX_RULES_KEPT) {
				if (!cur.running) {
					do_plain(DROPSCOPE_CMD_START);
					restarts++;
				}
				if (cur.nrules > MAX_RULES_KEPT) {
					do_plain(DROPSCOPE_CMD_RULE_CLEAR);
					clears++;
				}
				snapshot(&cur);
			}
		}
		if (verbose && i % 10000 == 0)
			fprintf(stderr, "nlfuzz: %lu sent\n", i);
	}
	printf("nlfuzz: seed %llu: %lu messages, %lu refused (state checked unchanged each time), %lu accepted, %lu unanswered, %lu snapshots, %lu restarts, %lu rule clears\n",
	       (unsigned long long)seed, n, refused, accepted, silent, checks,
	       restarts, clears);
	printf("nlfuzz: %lu capture messages came unasked, set aside\n",
	       capture_msgs);
	printf("nlfuzz: refused with:");
	for (i = 1; i < 256; i++)
		if (errnos[i])
			printf(" %s %lu", strerrorname_np((int)i) ?: "?", errnos[i]);
	printf(", unanswered (a header the core drops) %lu\nnlfuzz: mutations:", errnos[0]);
	for (i = 0; i < M_COUNT; i++)
		printf(" %s=%lu%s", mut_names[i], mut_count[i], i + 1 < M_COUNT ? "," : "");
	printf("\n");
	return 0;
}
