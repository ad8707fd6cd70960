// SPDX-License-Identifier: GPL-2.0
/*
 * TCP sessions: show sessions (live from the module's table, closed from
 * its ring) and watch sessions (each close as the alert rounds bring it).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "dropscope.h"

static const char *const ds_tcp_states[] = {
	[1] = "ESTABLISHED", [2] = "SYN_SENT", [3] = "SYN_RECV",
	[4] = "FIN_WAIT1", [5] = "FIN_WAIT2", [6] = "TIME_WAIT",
	[7] = "CLOSE", [8] = "CLOSE_WAIT", [9] = "LAST_ACK",
	[10] = "LISTEN", [11] = "CLOSING", [12] = "NEW_SYN_RECV",
};

/* The kernel's name of a TCP state (include/net/tcp_states.h). */
const char *ds_tcp_state_name(unsigned int state)
{
	if (state < sizeof(ds_tcp_states) / sizeof(ds_tcp_states[0]) &&
	    ds_tcp_states[state])
		return ds_tcp_states[state];
	return "UNKNOWN";
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
};

static uint64_t ds_u64(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

static uint32_t ds_u32(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

/* inet_ntop() of an IPv4 address, without its sprintf(). */
static void ds_ipv4(const unsigned char *b, char *buf)
{
	char d[24];
	int i;

	for (i = 0; i < 4; i++) {
		const char *s = ds_print_dec(d, b[i]);
		size_t n = strlen(s);

		memcpy(buf, s, n);
		buf += n;
		*buf++ = i < 3 ? '.' : '\0';
	}
}

static void ds_addr(struct nlattr *a, int family, char *buf, size_t len)
{
	int af = family == AF_INET6 ? AF_INET6 : AF_INET;

	if (a && af == AF_INET && nla_len(a) == 4 && len >= INET_ADDRSTRLEN)
		ds_ipv4(nla_data(a), buf);
	else if (!a || nla_len(a) != (af == AF_INET6 ? 16 : 4) ||
		 !inet_ntop(af, nla_data(a), buf, (socklen_t)len))
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
	s->duration_ns = ds_u64(tb, DROPSCOPE_SESSION_A_DURATION_NS);
	s->tx_bytes = ds_u64(tb, DROPSCOPE_SESSION_A_BYTES_ACKED);
	s->rx_bytes = ds_u64(tb, DROPSCOPE_SESSION_A_BYTES_RECEIVED);
	s->drops = ds_u64(tb, DROPSCOPE_SESSION_A_DROPS);
	s->retransmits = ds_u32(tb, DROPSCOPE_SESSION_A_TOTAL_RETRANS);
	s->resets_sent = ds_u32(tb, DROPSCOPE_SESSION_A_RESETS_SENT);
	s->resets_received = ds_u32(tb, DROPSCOPE_SESSION_A_RESETS_RECEIVED);
	s->pid = ds_u32(tb, DROPSCOPE_SESSION_A_PID);
	s->family = nla_get_u8(tb[DROPSCOPE_SESSION_A_FAMILY]);
	if (tb[DROPSCOPE_SESSION_A_STATE])
		s->state = nla_get_u8(tb[DROPSCOPE_SESSION_A_STATE]);
	if (tb[DROPSCOPE_SESSION_A_SPORT])
		s->lport = nla_get_u16(tb[DROPSCOPE_SESSION_A_SPORT]);
	if (tb[DROPSCOPE_SESSION_A_DPORT])
		s->rport = nla_get_u16(tb[DROPSCOPE_SESSION_A_DPORT]);
	s->closed = tb[DROPSCOPE_SESSION_A_CLOSED];
	if (tb[DROPSCOPE_SESSION_A_SMC_MODE])
		s->smc_mode = nla_get_u8(tb[DROPSCOPE_SESSION_A_SMC_MODE]);
	s->smc_reason = ds_u32(tb, DROPSCOPE_SESSION_A_SMC_REASON);
	ds_addr(tb[DROPSCOPE_SESSION_A_SADDR], s->family, s->laddr,
		sizeof(s->laddr));
	ds_addr(tb[DROPSCOPE_SESSION_A_DADDR], s->family, s->raddr,
		sizeof(s->raddr));
	if (tb[DROPSCOPE_SESSION_A_COMM])
		nla_strlcpy(s->comm, tb[DROPSCOPE_SESSION_A_COMM],
			    sizeof(s->comm));
	if (!s->comm[0])
		strcpy(s->comm, "-");
	return 0;
}

/*
 * show sessions: one row per session, tcptop-like; the last column is the
 * state, then the age (live) or the duration (closed) in milliseconds.
 * The resets are sent/received, two fields in one column.
 */
const struct ds_col ds_sess_cols[] = {
	{ "pid", "PID", "", 7, 0 },
	{ "comm", "COMM", " ", 15, 0 },
	{ "laddr", "LADDR", " ", 15, 0 },
	{ "lport", "LPORT", " ", 5, DS_COL_RIGHT },
	{ "raddr", "RADDR", " ", 15, 0 },
	{ "rport", "RPORT", " ", 5, DS_COL_RIGHT },
	{ "rx_bytes", "RX_KB", " ", 9, DS_COL_RIGHT },
	{ "tx_bytes", "TX_KB", " ", 9, DS_COL_RIGHT },
	{ "retransmits", "RETRANS", " ", 7, DS_COL_RIGHT },
	{ "drops", "DROPS", " ", 6, DS_COL_RIGHT },
	{ "resets_sent", "RESETS", " ", 6, DS_COL_RIGHT },
	{ "resets_received", "", "", 1, 0 },
	{ "state", "STATE", " ", 11, 0 },
	{ "duration_ms", "MS", " ", 9, DS_COL_RIGHT },
	{ NULL, NULL, " ", 0, 0 },
};

/*
 * watch sessions: one line per close as tcplife prints it, the duration
 * last; the header is printed once, so the columns keep their widths.
 */
static const struct ds_col ds_close_cols[] = {
	{ "pid", NULL, "", 7, 0 },
	{ "comm", NULL, " ", 15, 0 },
	{ "laddr", NULL, " ", 15, 0 },
	{ "lport", NULL, " ", 5, DS_COL_RIGHT },
	{ "raddr", NULL, " ", 15, 0 },
	{ "rport", NULL, " ", 5, DS_COL_RIGHT },
	{ "rx_bytes", NULL, " ", 9, DS_COL_RIGHT },
	{ "tx_bytes", NULL, " ", 9, DS_COL_RIGHT },
	{ "retransmits", NULL, " ", 7, DS_COL_RIGHT },
	{ "drops", NULL, " ", 6, DS_COL_RIGHT },
	{ "resets_sent", NULL, " ", 6, DS_COL_RIGHT },
	{ "resets_received", NULL, "", 1, 0 },
	{ "duration_ms", NULL, " ", 9, DS_COL_RIGHT },
	{ NULL, NULL, " ", 0, 0 },
};

#define DS_NCOLS(c) ((int)(sizeof(c) / sizeof((c)[0])))

/* The header of watch sessions, as wide as ds_close_cols. */
static void ds_close_head(struct ds_print *p)
{
	ds_print_text(p, "%-7s %-15s %-15s %5s %-15s %5s %9s %9s %7s %6s %-7s %9s\n",
		      "PID", "COMM", "LADDR", "LPORT", "RADDR", "RPORT",
		      "RX_KB", "TX_KB", "RETRANS", "DROPS", "RESETS", "MS");
}

/* Milliseconds with three decimals, rounded to the nearest microsecond. */
static void ds_sess_ms(char ms[48], uint64_t ns)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);
	char a[24], b[24];
	char *frac = ds_print_dec(b, 1000 + us % 1000) + 1;
	char *whole = ds_print_dec(a, us / 1000);
	size_t n = strlen(whole);

	memcpy(ms, whole, n);
	ms[n] = '.';
	memcpy(ms + n + 1, frac, 4);
}

/*
 * The TCP under an SMC socket: its mode as smcss names it (SMCR, SMCD, or
 * TCP and the fallback reason), after the other columns; nothing for
 * other sessions.
 */
static size_t ds_sess_mode(char mode[32], const struct ds_session *s)
{
	switch (s->smc_mode) {
	case DROPSCOPE_SMC_MODE_SMCR:
		return (size_t)snprintf(mode, 32, "SMCR");
	case DROPSCOPE_SMC_MODE_SMCD:
		return (size_t)snprintf(mode, 32, "SMCD");
	case DROPSCOPE_SMC_MODE_FALLBACK:
		return (size_t)snprintf(mode, 32, "TCP 0x%08" PRIx32,
					s->smc_reason);
	}
	return 0;
}

static void ds_sess_smc_mode(struct ds_print *p, const struct ds_session *s)
{
	char mode[32];

	if (ds_sess_mode(mode, s))
		ds_print_str(p, DS_ANY, "smc_mode", "%s", mode);
}

/* The fields of a session, in the object the caller opened. */
void ds_session_fields(struct ds_print *p, const struct ds_session *s)
{
	char rx[24], tx[24], ms[48];

	ds_sess_ms(ms, s->duration_ns);
	ds_print_u32(p, DS_ANY, "pid", "%" PRIu32, s->pid);
	ds_print_str(p, DS_ANY, "comm", "%s", s->comm);
	ds_print_str(p, DS_JSON, "family", NULL,
		     s->family == AF_INET6 ? "ipv6" : "ipv4");
	ds_print_str(p, DS_ANY, "laddr", "%s", s->laddr);
	ds_print_u32(p, DS_ANY, "lport", "%" PRIu32, s->lport);
	ds_print_str(p, DS_ANY, "raddr", "%s", s->raddr);
	ds_print_u32(p, DS_ANY, "rport", "%" PRIu32, s->rport);
	ds_print_str(p, DS_ANY, "state", "%s", ds_tcp_state_name(s->state));
	ds_print_u64_as(p, DS_ANY, "rx_bytes", "%s", s->rx_bytes,
			ds_print_dec(rx, s->rx_bytes / 1024));
	ds_print_u64_as(p, DS_ANY, "tx_bytes", "%s", s->tx_bytes,
			ds_print_dec(tx, s->tx_bytes / 1024));
	ds_print_u32(p, DS_ANY, "retransmits", "%" PRIu32, s->retransmits);
	ds_print_u64(p, DS_ANY, "drops", "%" PRIu64, s->drops);
	ds_print_u32(p, DS_ANY, "resets_sent", "%" PRIu32 "/",
		     s->resets_sent);
	ds_print_u32(p, DS_ANY, "resets_received", "%" PRIu32,
		     s->resets_received);
	ds_print_u64_as(p, DS_ANY, "duration_ms", "%s",
			s->duration_ns / 1000000, ms);
	ds_print_bool(p, DS_JSON, "closed", NULL, s->closed);
	ds_print_hex(p, DS_JSON, "cookie", NULL, s->cookie);
	ds_sess_smc_mode(p, s);
}

/* A session: a row of show sessions or of watch sessions. */
void ds_session_print(struct ds_print *p, const struct ds_session *s)
{
	ds_print_open_obj(p, NULL);
	ds_session_fields(p, s);
	ds_print_close_obj(p);
}

/*
 * Put n bytes of s into cell c at *q; with clean (a string from outside,
 * the COMM), control characters as '?', as ds_print_str() shows them.
 */
static void ds_sess_cell(struct ds_cell *c, char **q, const char *s, size_t n,
			 bool clean)
{
	if (clean)
		ds_print_clean(*q, s, n);
	else
		memcpy(*q, s, n);
	c->s = *q;
	c->len = n;
	*q += n;
}

/* v in decimal into cell c at *q, then the character tail unless NUL. */
static void ds_sess_dec(struct ds_cell *c, char **q, uint64_t v, char tail)
{
	char d[24], *s = ds_print_dec(d, v);
	size_t n = (size_t)(d + 23 - s);

	memcpy(*q, s, n);
	if (tail)
		(*q)[n++] = tail;
	c->s = *q;
	c->len = n;
	*q += n;
}

/*
 * Row r of show sessions in text, the cells ds_session_fields() prints in
 * the columns of ds_sess_cols: a table of tens of thousands of sessions
 * is written without collecting its fields one by one.
 */
static size_t ds_sess_row(void *arg, size_t r, struct ds_cell *c, char *buf)
{
	const struct ds_session *s = (const struct ds_session *)arg + r;
	const char *state = ds_tcp_state_name(s->state);
	char *q = buf, ms[48], mode[32];
	size_t n;

	ds_sess_dec(&c[0], &q, s->pid, '\0');
	ds_sess_cell(&c[1], &q, s->comm, strlen(s->comm), true);
	ds_sess_cell(&c[2], &q, s->laddr, strlen(s->laddr), false);
	ds_sess_dec(&c[3], &q, s->lport, '\0');
	ds_sess_cell(&c[4], &q, s->raddr, strlen(s->raddr), false);
	ds_sess_dec(&c[5], &q, s->rport, '\0');
	ds_sess_dec(&c[6], &q, s->rx_bytes / 1024, '\0');
	ds_sess_dec(&c[7], &q, s->tx_bytes / 1024, '\0');
	ds_sess_dec(&c[8], &q, s->retransmits, '\0');
	ds_sess_dec(&c[9], &q, s->drops, '\0');
	ds_sess_dec(&c[10], &q, s->resets_sent, '/');
	ds_sess_dec(&c[11], &q, s->resets_received, '\0');
	ds_sess_cell(&c[12], &q, state, strlen(state), false);
	ds_sess_ms(ms, s->duration_ns);
	ds_sess_cell(&c[13], &q, ms, strlen(ms), false);
	/* the rest, a string: the SMC mode, as ds_sess_smc_mode() prints it */
	n = ds_sess_mode(mode, s);
	if (n) {
		ds_sess_cell(&c[14], &q, mode, n + 1, false);
		c[14].len = n;
	}
	return (size_t)(q - buf);
}

/* show sessions: the first top of n sessions. */
void ds_sessions_print(struct ds_print *p, const struct ds_session *v,
		       size_t n, size_t top)
{
	size_t i;

	if (top > n)
		top = n;
	if (p->json) {
		ds_print_open_table(p, NULL, ds_sess_cols,
				    DS_NCOLS(ds_sess_cols), DS_TABLE_HEAD);
		for (i = 0; i < top; i++)
			ds_session_print(p, &v[i]);
		ds_print_close_table(p);
	} else {
		ds_print_rows(p, ds_sess_cols, DS_NCOLS(ds_sess_cols),
			      DS_TABLE_HEAD, top, ds_sess_row, (void *)v);
	}
	if (!n)
		ds_print_text(p, "no sessions\n");
	else if (top < n)
		ds_print_text(p, "(%zu more sessions)\n", n - top);
}

/* watch sessions: the closes of one alert message, each a JSON line. */
static void ds_closes_print(struct ds_print *p, const struct ds_session *v,
			    size_t n)
{
	size_t i;

	if (p->json) {
		for (i = 0; i < n; i++)
			ds_session_print(p, &v[i]);
		return;
	}
	ds_print_open_table(p, NULL, ds_close_cols, DS_NCOLS(ds_close_cols), 0);
	for (i = 0; i < n; i++)
		ds_session_print(p, &v[i]);
	ds_print_close_table(p);
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

enum ds_sort { DS_SORT_RX, DS_SORT_TX, DS_SORT_RETRANS, DS_SORT_DROPS,
	       DS_SORT_AGE };
static enum ds_sort ds_sort_key;

static uint64_t ds_sort_val(const struct ds_session *s)
{
	switch (ds_sort_key) {
	case DS_SORT_TX:
		return s->tx_bytes;
	case DS_SORT_RETRANS:
		return s->retransmits;
	case DS_SORT_DROPS:
		return s->drops;
	case DS_SORT_AGE:
		return s->duration_ns;
	default:
		return s->rx_bytes;
	}
}

/* Largest first; ties by cookie, so the order is stable. */
static int ds_sess_cmp(const void *a, const void *b)
{
	const struct ds_session *x = a, *y = b;
	uint64_t u = ds_sort_val(x), v = ds_sort_val(y);

	if (u != v)
		return u < v ? 1 : -1;
	return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

bool ds_sess_match(const struct ds_sess_filter *f, const struct ds_session *s)
{
	return (f->pid == UINT64_MAX || s->pid == f->pid) &&
	       (f->port == UINT64_MAX || s->lport == f->port ||
		s->rport == f->port);
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

int cmd_show_sessions(struct ds_ctx *ctx, const struct ds_cmd *self,
		      int argc, char **argv)
{
	struct ds_sess_filter f = { UINT64_MAX, UINT64_MAX };
	struct ds_print p = { .f = stdout, .json = ctx->json };
	bool live = true, closed = false;
	struct ds_sessions s = { 0 };
	uint64_t top = UINT64_MAX, masked = 0;
	size_t i, n = 0;
	int a, r, err;

	ds_sort_key = DS_SORT_RX;
	for (a = 0; a < argc; a++) {
		r = ds_sess_filter_arg(&f, argc, argv, &a);
		if (r < 0)
			return ds_usage(self, "pid and port need a number");
		if (r)
			continue;
		if (!strcmp(argv[a], "live")) {
			live = true;
			closed = false;
		} else if (!strcmp(argv[a], "closed")) {
			live = false;
			closed = true;
		} else if (!strcmp(argv[a], "all")) {
			live = closed = true;
		} else if (!strcmp(argv[a], "top") && a + 1 < argc) {
			if (ds_parse_u64(argv[++a], 1, UINT32_MAX, &top))
				return ds_usage(self, "top needs a positive number");
		} else if (!strcmp(argv[a], "sort") && a + 1 < argc) {
			const char *k = argv[++a];

			if (!strcmp(k, "rx"))
				ds_sort_key = DS_SORT_RX;
			else if (!strcmp(k, "tx"))
				ds_sort_key = DS_SORT_TX;
			else if (!strcmp(k, "retrans"))
				ds_sort_key = DS_SORT_RETRANS;
			else if (!strcmp(k, "drops"))
				ds_sort_key = DS_SORT_DROPS;
			else if (!strcmp(k, "age"))
				ds_sort_key = DS_SORT_AGE;
			else
				return ds_usage(self, "sort by rx, tx, retrans, drops or age");
		} else {
			return ds_usage(self, "unknown argument");
		}
	}
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	if (live)
		err = ds_nl_dump(ctx->nl, DROPSCOPE_CMD_SESSIONS_GET,
				 ds_sessions_cb, ds_sessions_reset, &s);
	s.base = s.n;
	if (!err && closed)
		err = ds_nl_dump(ctx->nl, DROPSCOPE_CMD_CLOSED_GET,
				 ds_sessions_cb, ds_sessions_reset, &s);
	if (err) {
		free(s.v);
		return ds_fail(ctx, err);
	}
	for (i = 0; i < s.n; i++)
		if (ds_sess_match(&f, &s.v[i]))
			s.v[n++] = s.v[i];
	s.n = n;
	qsort(s.v, s.n, sizeof(*s.v), ds_sess_cmp);
	ds_sessions_print(&p, s.v, s.n, (size_t)top);
	free(s.v);
	/* what the rules masked is in no DROPS above: say so (JSON: status) */
	if (!p.json && !ds_stat_get(ctx, DROPSCOPE_STATS_A_SESSIONS_DROPS_MASKED,
				    &masked) && masked)
		ds_print_text(&p, "(%" PRIu64 " session drops masked by rules: in no DROPS above)\n",
			      masked);
	return DS_OK;
}

/* ---- watch sessions ---------------------------------------------------- */

struct ds_sess_watch {
	struct ds_print p;
	struct ds_sess_filter f;
	uint64_t seen;		/* closes printed */
	uint64_t count;		/* stop after this many; 0: never */
	struct ds_sessions v;	/* the closes of one message */
};

static int ds_sess_alert_cb(struct nlattr **tb, struct nlattr *attrs,
			    int len, void *arg)
{
	struct ds_sess_watch *w = arg;
	struct nlattr *a;
	int rem;

	(void)tb;
	w->v.n = 0;
	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != DROPSCOPE_A_SESSION)
			continue;
		if (w->count && w->seen == w->count)
			break;
		if (w->v.n == w->v.cap) {
			size_t cap = w->v.cap ? w->v.cap * 2 : 64;
			struct ds_session *v = realloc(w->v.v,
						       cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			w->v.v = v;
			w->v.cap = cap;
		}
		if (ds_session_parse(a, &w->v.v[w->v.n]))
			return -EINVAL;
		if (!ds_sess_match(&w->f, &w->v.v[w->v.n]))
			continue;
		w->v.n++;
		w->seen++;
	}
	ds_closes_print(&w->p, w->v.v, w->v.n);
	fflush(stdout);
	return 0;
}

/* watch sessions stops after count closes, if any. */
static int ds_sess_watch_turn(void *arg, int *wait)
{
	struct ds_sess_watch *w = arg;

	(void)wait;
	return w->count && w->seen >= w->count;
}

int cmd_watch_sessions(struct ds_ctx *ctx, const struct ds_cmd *self,
		       int argc, char **argv)
{
	struct ds_sess_watch w = {
		.p = { .f = stdout, .json = ctx->json },
		.f = { UINT64_MAX, UINT64_MAX },
	};
	struct ds_loop l = {
		.on_msg = ds_sess_alert_cb,
		.on_turn = ds_sess_watch_turn,
		.arg = &w,
		.what = "TCP closes",
	};
	uint64_t timeout_ms = 0, count = 0;
	int a, r, status;

	for (a = 0; a < argc; a++) {
		r = ds_sess_filter_arg(&w.f, argc, argv, &a);
		if (r < 0)
			return ds_usage(self, "pid and port need a number");
		if (r)
			continue;
		if (!strcmp(argv[a], "timeout") && a + 1 < argc) {
			if (ds_parse_duration_ms(argv[++a], &timeout_ms) ||
			    !timeout_ms)
				return ds_usage(self, "timeout needs a duration (e.g. 10s)");
		} else if (!strcmp(argv[a], "count") && a + 1 < argc) {
			if (ds_parse_u64(argv[++a], 1, UINT32_MAX, &count))
				return ds_usage(self, "count needs a positive number");
		} else {
			return ds_usage(self, "unknown argument");
		}
	}
	w.count = count;
	l.deadline = timeout_ms ? ds_now_ms() + timeout_ms : 0;
	status = ds_watch_open(&l.nl);
	if (status)
		return status;
	ds_close_head(&w.p);
	status = ds_watch_loop(&l);
	ds_nl_close(l.nl);
	free(w.v.v);
	return status;
}
