// SPDX-License-Identifier: GPL-2.0
/*
 * What several commands print: sites ("show sites", "watch") and sessions
 * ("show sessions", "watch sessions", "top"), through the one print path
 * of print.c.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>

#include "ds.h"

/*
 * show sites: COUNT, REASON, the packet fields when some site is keyed by
 * them, SITE, then "(masked: N)". With packet fields, past 80 columns,
 * the minimum widths of COUNT and REASON give way.
 */
static const struct ds_col ds_site_cols[] = {
	{ "count", "COUNT", "", 12, DS_COL_RIGHT },
	{ "layer", "LAYER", "  ", 6, DS_COL_OPT },
	{ "reason", "REASON", "  ", 21, 0 },
	{ "ifindex", "DEV", "  ", 0, DS_COL_OPT },
	{ "netns", "NETNS", "  ", 0, DS_COL_OPT },
	{ "l3", "L3", "  ", 0, DS_COL_OPT },
	{ "l4", "L4", "  ", 0, DS_COL_OPT },
	{ "symbol", "SITE", "  ", 0, 0 },
	{ NULL, NULL, "  ", 0, 0 },
};

/*
 * watch: one line per site of an alert message, no header; the packet
 * fields follow the site as "dev NAME netns NAME l3 NAME l4 NAME", the
 * words "rule mask" takes.
 */
static const struct ds_col ds_alert_cols[] = {
	{ "time", NULL, "", 0, 0 },
	{ "delta", NULL, "  ", 16, DS_COL_RIGHT },
	{ "reason", NULL, "  ", 21, 0 },
	{ "symbol", NULL, "  ", 0, 0 },
	{ NULL, NULL, "  ", 0, 0 },
};

/* A site's count, and its delta in an alert or its masked count else. */
static void ds_site_counts(struct ds_print *p, const struct ds_site *s,
			   bool alert)
{
	ds_print_u64(p, alert ? DS_JSON : DS_ANY, "count", "%" PRIu64,
		     s->total);
	if (alert)
		ds_print_u64(p, DS_ANY, "delta", "%" PRIu64 " drops", s->delta);
	else
		ds_print_u64(p, s->masked ? DS_ANY : DS_JSON, "masked",
			     "(masked: %" PRIu64 ")", s->masked);
}

/*
 * A trap, a device counter or a qdisc's drops: the rest of its row of show
 * sites, or of an alert. Text: the trap's type, the counter or the qdisc's
 * reason as the reason, the device in DEV, "trap [group] device", "dev
 * counter" or "kind handle dev" as the site.
 */
static void ds_site_print_device(struct ds_print *p, const struct ds_site *s,
				 bool alert)
{
	bool hw = s->layer == DS_LAYER_HW;
	char h[16];

	ds_print_str(p, DS_FP, "symbol", "%s", s->symbol);
	ds_print_str(p, s->layer == DS_LAYER_QDISC ? DS_ANY : DS_FP, "reason",
		     "%s", s->reason_name);
	if (s->layer == DS_LAYER_QDISC) {
		ds_qdisc_handle(s->handle, h, sizeof(h));
		ds_print_str(p, DS_JSON, "kind", NULL, s->kind);
		ds_print_str(p, DS_JSON, "handle", NULL, h);
		ds_print_u32(p, DS_JSON, "reason_id", NULL, s->reason);
	} else if (hw) {
		ds_print_str(p, DS_JSON, "device", NULL, s->device);
		ds_print_str(p, DS_JSON, "trap", NULL, s->trap);
		ds_print_str(p, DS_JSON, "group", NULL, s->group);
		ds_print_str(p, DS_JSON, "type", NULL,
			     ds_trap_type_name(s->trap_type));
	} else {
		ds_print_str(p, DS_JSON, "counter", NULL,
			     ds_dev_counter_name(s->counter));
	}
	ds_site_counts(p, s, alert);
	if (s->dev[0])
		ds_print_str(p, DS_JSON, "dev", NULL, s->dev);
	if (s->ifindex)
		ds_print_u64_as(p, alert ? DS_JSON : DS_ANY, "ifindex", "%s",
				s->ifindex, s->dev);
	if (s->netns)
		ds_print_u32(p, DS_JSON, "netns", NULL, s->netns);
}

/*
 * A site: a row of show sites, or of an alert when it has a delta. The
 * LAYER column is there in text when a table has traps or device
 * counters (layers): a table of kernel sites only looks as it always did.
 */
static void ds_site_print_layers(struct ds_print *p, const struct ds_site *s,
				 const char *stamp, bool layers)
{
	bool alert = s->has_delta;
	char name[64];

	ds_print_open_obj(p, NULL);
	if (stamp)
		ds_print_str(p, DS_FP, "time", "%s", stamp);
	ds_print_str(p, !alert && layers ? DS_ANY : DS_JSON, "layer", "%s",
		     ds_layer_name(s->layer));
	if (s->layer != DS_LAYER_KERNEL) {
		ds_site_print_device(p, s, alert);
		ds_print_close_obj(p);
		return;
	}
	ds_print_str(p, DS_ANY, "symbol", "%s", s->symbol);
	ds_print_hex(p, DS_JSON, "location", NULL, s->location);
	ds_print_str(p, DS_ANY, "reason", "%s", s->reason_name);
	ds_print_u32(p, DS_JSON, "reason_id", NULL, s->reason);
	ds_site_counts(p, s, alert);
	if (s->ifindex)
		ds_print_u64_as(p, DS_ANY, "ifindex", alert ? "dev %s" : "%s",
				s->ifindex,
				ds_dev_name(s->ifindex, name, sizeof(name)));
	if (s->netns)
		ds_print_u64_as(p, DS_ANY, "netns", alert ? "netns %s" : "%s",
				s->netns,
				ds_netns_name(s->netns, name, sizeof(name)));
	if (s->l3)
		ds_print_u64_as(p, DS_ANY, "l3", alert ? "l3 %s" : "%s", s->l3,
				ds_l3_name(s->l3, name, sizeof(name)));
	if (s->l4)
		ds_print_u64_as(p, DS_ANY, "l4", alert ? "l4 %s" : "%s", s->l4,
				ds_l4_name(s->l4, name, sizeof(name)));
	if (s->run)
		ds_print_u32(p, DS_JSON, "run", NULL, s->run);
	if (s->line[0])
		ds_print_str(p, DS_ANY, "line", "%s", s->line);
	ds_print_close_obj(p);
}

void ds_site_print(struct ds_print *p, const struct ds_site *s,
		   const char *stamp)
{
	ds_site_print_layers(p, s, stamp, s->layer != DS_LAYER_KERNEL);
}

/* show sites: the first top of n sites. */
void ds_sites_print(struct ds_print *p, const struct ds_site *v, size_t n,
		    size_t top)
{
	ds_sites_print_as(p, NULL, v, n, top);
}

/* The same, under key (inside an object). */
void ds_sites_print_as(struct ds_print *p, const char *key,
		       const struct ds_site *v, size_t n, size_t top)
{
	bool layers = false;
	size_t i;

	if (top > n)
		top = n;
	for (i = 0; i < top; i++)
		layers |= v[i].layer != DS_LAYER_KERNEL;
	ds_print_open_table(p, key, ds_site_cols, DS_NCOLS(ds_site_cols),
			    DS_TABLE_HEAD | DS_TABLE_FIT80);
	for (i = 0; i < top; i++)
		ds_site_print_layers(p, &v[i], NULL, layers);
	ds_print_close_table(p);
	if (!n)
		ds_print_text(p, "no drops seen\n");
	else if (top < n)
		ds_print_text(p, "(%zu more sites)\n", n - top);
}

/* One alert message of watch: its round, its overflow, its sites. */
void ds_alert_print(struct ds_print *p, const struct ds_alert *a)
{
	size_t i;

	ds_print_open_obj(p, NULL);
	ds_print_u64(p, DS_JSON, "round", NULL, a->round);
	ds_print_bool(p, DS_JSON, "end", NULL, a->end);
	if (a->overflow)
		ds_print_text(p, "%s", a->stamp);
	ds_print_u64(p, a->overflow ? DS_ANY : DS_JSON, "overflow_delta",
		     "  %10" PRIu64 " drops did not fit the per-CPU tables (overflow)\n",
		     a->overflow);
	ds_print_open_table(p, "sites", ds_alert_cols, DS_NCOLS(ds_alert_cols),
			    0);
	for (i = 0; i < a->n; i++)
		ds_site_print(p, &a->sites[i], a->stamp);
	ds_print_close_table(p);
	/* SMC: only in the messages where SMC fell back or lost links */
	ds_smc_alerts_print(p, a, false);
	ds_smc_alerts_print(p, a, true);
	if (a->link_downs) {
		ds_print_text(p, "%s", a->stamp);
		ds_print_u64(p, DS_ANY, "smc_link_downs_delta",
			     "  %10" PRIu64 " SMC-R links went down\n",
			     a->link_downs);
	}
	ds_print_close_obj(p);
}

/* ---- sessions: show sessions, watch sessions, top ---------------------- */

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

/* The header of watch sessions, as wide as ds_close_cols. */
void ds_close_head(struct ds_print *p)
{
	ds_print_text(p, "%-7s %-15s %-15s %5s %-15s %5s %9s %9s %7s %6s %-7s %9s\n",
		      "PID", "COMM", "LADDR", "LPORT", "RADDR", "RPORT",
		      "RX_KB", "TX_KB", "RETRANS", "DROPS", "RESETS", "MS");
}

/*
 * Milliseconds with three decimals, rounded to the nearest microsecond;
 * ">MS" for a session open before start: at least that long.
 */
static size_t ds_sess_ms(char ms[48], uint64_t ns, bool found)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);
	uint32_t f = (uint32_t)(us % 1000);
	char *q = ms;

	if (found)
		*q++ = '>';
	q += ds_print_udec(q, us / 1000);
	q[0] = '.';
	q[1] = (char)('0' + f / 100);
	q[2] = (char)('0' + f / 10 % 10);
	q[3] = (char)('0' + f % 10);
	q[4] = '\0';
	return (size_t)(q + 4 - ms);
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
/*
 * A live session's transport state, keyed and shown as ss -ti shows it:
 * rtt and rttvar in ms, ssthresh only once set, delivery_rate in bits a
 * second.
 */
static void ds_sess_tcp(struct ds_print *p, const struct ds_session *s)
{
	ds_print_g(p, DS_ANY, "rtt", "rtt:%s", s->rtt_us / 1000.0);
	ds_print_g(p, DS_ANY, "rttvar", "/%s", s->rttvar_us / 1000.0);
	ds_print_u32(p, DS_ANY, "cwnd", " cwnd:%" PRIu32, s->cwnd);
	if (s->ssthresh < 0x7fffffff)
		ds_print_u32(p, DS_ANY, "ssthresh", " ssthresh:%" PRIu32,
			     s->ssthresh);
	ds_print_u32(p, DS_ANY, "snd_wnd", " snd_wnd:%" PRIu32, s->snd_wnd);
	ds_print_u32(p, DS_ANY, "rcv_wnd", " rcv_wnd:%" PRIu32, s->rcv_wnd);
	ds_print_u32(p, DS_ANY, "unacked", " unacked:%" PRIu32, s->unacked);
	ds_print_u32(p, DS_ANY, "lost", " lost:%" PRIu32, s->lost);
	ds_print_u32(p, DS_ANY, "retrans", " retrans:%" PRIu32, s->retrans);
	ds_print_u64(p, DS_ANY, "delivery_rate", " delivery_rate:%" PRIu64 "bps",
		     s->delivery_rate * 8);
}

void ds_session_fields(struct ds_print *p, const struct ds_session *s)
{
	char rx[24], tx[24], ms[48];

	ds_sess_ms(ms, s->duration_ns, s->found);
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
	ds_print_u32(p, DS_JSON, "run", NULL, s->run);
	ds_print_bool(p, DS_JSON, "found", NULL, s->found);
	ds_print_hex(p, DS_JSON, "cookie", NULL, s->cookie);
	ds_sess_smc_mode(p, s);
	if (s->has_tcp)
		ds_sess_tcp(p, s);
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

/* Append the literal word and v's digits at *q. */
#define ds_sess_put(q, word, v)	ds_sess_putn(q, word, sizeof(word) - 1, v)
static inline void ds_sess_putn(char **q, const char *word, size_t n,
				uint64_t v)
{
	memcpy(*q, word, n);
	*q += n;
	*q += ds_print_udec(*q, v);
}

/* Microseconds as ms the way %g writes them below 1000 s: "0.041", "12". */
#define ds_sess_put_ms(q, word, us) \
	ds_sess_putn_ms(q, word, sizeof(word) - 1, us)
static void ds_sess_putn_ms(char **q, const char *word, size_t n, uint32_t us)
{
	uint32_t f = us % 1000;

	ds_sess_putn(q, word, n, us / 1000);
	if (!f)
		return;
	*(*q)++ = '.';
	*(*q)++ = (char)('0' + f / 100);
	f %= 100;
	if (f) {
		*(*q)++ = (char)('0' + f / 10);
		if (f % 10)
			*(*q)++ = (char)('0' + f % 10);
	}
}

/*
 * A live session's transport state, as ss -ti prints it (ssthresh only
 * once set): into out, at most DS_SESS_STATE bytes; returns its length.
 */
#define DS_SESS_STATE	200
static size_t ds_sess_state(char *out, const struct ds_session *s)
{
	char *q = out;

	ds_sess_put_ms(&q, "rtt:", s->rtt_us);
	ds_sess_put_ms(&q, "/", s->rttvar_us);
	ds_sess_put(&q, " cwnd:", s->cwnd);
	if (s->ssthresh < 0x7fffffff)
		ds_sess_put(&q, " ssthresh:", s->ssthresh);
	ds_sess_put(&q, " snd_wnd:", s->snd_wnd);
	ds_sess_put(&q, " rcv_wnd:", s->rcv_wnd);
	ds_sess_put(&q, " unacked:", s->unacked);
	ds_sess_put(&q, " lost:", s->lost);
	ds_sess_put(&q, " retrans:", s->retrans);
	ds_sess_put(&q, " delivery_rate:", s->delivery_rate * 8);
	memcpy(q, "bps", 4);
	return (size_t)(q - out) + 3;
}

/* v in decimal into cell c at *q, then the character tail unless NUL. */
static void ds_sess_dec(struct ds_cell *c, char **q, uint64_t v, char tail)
{
	size_t n = ds_print_udec(*q, v);

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
	char *q = buf;
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
	c[13].s = q;
	c[13].len = ds_sess_ms(q, s->duration_ns, s->found);
	q += c[13].len;
	/*
	 * the rest, a string: the SMC mode, as ds_sess_smc_mode() prints it,
	 * and the transport state, each NUL-terminated where it ends
	 */
	n = ds_sess_mode(q, s);
	if (s->has_tcp) {
		if (n)
			q[n++] = ' ';
		n += ds_sess_state(q + n, s);
	}
	if (n) {
		c[14].s = q;
		c[14].len = n;
		q += n + 1;
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
static const char *ds_event_kind_name(unsigned int kind)
{
	switch (kind) {
	case DROPSCOPE_SESS_EVENT_STATE:
		return "state";
	case DROPSCOPE_SESS_EVENT_RETRANS:
		return "retrans";
	case DROPSCOPE_SESS_EVENT_TLP:
		return "tlp";
	}
	return "unknown";
}

/*
 * A session event: a state change as tcpstates prints it, a retransmit
 * (R>) or a tail loss probe (L>) as tcpretrans -l does; the time is
 * CLOCK_MONOTONIC in seconds.
 */
void ds_sess_event_print(struct ds_print *p, const struct ds_sess_event *e)
{
	char t[48];

	if (!p->json) {
		snprintf(t, sizeof(t), "%" PRIu64 ".%06" PRIu64,
			 e->time_ns / 1000000000,
			 e->time_ns % 1000000000 / 1000);
		if (e->kind == DROPSCOPE_SESS_EVENT_STATE)
			ds_print_text(p, "%-17s %-7" PRIu32 " %-15s %s %u %s %u %s -> %s\n",
				      t, e->pid, e->comm, e->laddr, e->lport,
				      e->raddr, e->rport,
				      ds_tcp_state_name(e->oldstate),
				      ds_tcp_state_name(e->newstate));
		else
			ds_print_text(p, "%-17s %-7" PRIu32 " %-15s %s:%u %s> %s:%u %s %" PRIu32 "\n",
				      t, e->pid, e->comm, e->laddr, e->lport,
				      e->kind == DROPSCOPE_SESS_EVENT_TLP ? "L" : "R",
				      e->raddr, e->rport,
				      ds_tcp_state_name(e->newstate), e->segs);
		return;
	}
	ds_print_open_obj(p, NULL);
	ds_print_str(p, DS_JSON, "kind", NULL, ds_event_kind_name(e->kind));
	ds_print_u64(p, DS_JSON, "time_ns", NULL, e->time_ns);
	ds_print_u32(p, DS_JSON, "pid", NULL, e->pid);
	ds_print_str(p, DS_JSON, "comm", NULL, e->comm);
	ds_print_str(p, DS_JSON, "family", NULL,
		     e->family == AF_INET6 ? "ipv6" : "ipv4");
	ds_print_str(p, DS_JSON, "laddr", NULL, e->laddr);
	ds_print_u32(p, DS_JSON, "lport", NULL, e->lport);
	ds_print_str(p, DS_JSON, "raddr", NULL, e->raddr);
	ds_print_u32(p, DS_JSON, "rport", NULL, e->rport);
	ds_print_str(p, DS_JSON, "oldstate", NULL,
		     ds_tcp_state_name(e->oldstate));
	ds_print_str(p, DS_JSON, "newstate", NULL,
		     ds_tcp_state_name(e->newstate));
	if (e->kind == DROPSCOPE_SESS_EVENT_RETRANS)
		ds_print_u32(p, DS_JSON, "segs", NULL, e->segs);
	ds_print_hex(p, DS_JSON, "cookie", NULL, e->cookie);
	ds_print_close_obj(p);
}

void ds_closes_print(struct ds_print *p, const struct ds_session *v,
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
