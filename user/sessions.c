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

#include "dropscope.h"

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

/*
 * The order of show sessions: largest first, ties by cookie. Sorted as
 * keys of 24 bytes, then the sessions moved once each into their places:
 * tens of thousands of sessions of some 250 bytes are not sorted whole.
 */
struct ds_sess_key {
	uint64_t val, cookie;
	size_t i;		/* the session's index */
};

static inline bool ds_key_before(const struct ds_sess_key *a,
				 const struct ds_sess_key *b)
{
	return a->val != b->val ? a->val > b->val : a->cookie < b->cookie;
}

/* k[0..n) in order, with tmp of n keys: a merge sort. */
static void ds_keys_sort(struct ds_sess_key *k, struct ds_sess_key *tmp,
			 size_t n)
{
	size_t h = n / 2, i, a, b;

	if (n <= 16) {
		for (i = 1; i < n; i++) {
			struct ds_sess_key x = k[i];

			for (a = i; a && ds_key_before(&x, &k[a - 1]); a--)
				k[a] = k[a - 1];
			k[a] = x;
		}
		return;
	}
	ds_keys_sort(k, tmp, h);
	ds_keys_sort(k + h, tmp, n - h);
	if (!ds_key_before(&k[h], &k[h - 1]))
		return;
	memcpy(tmp, k, h * sizeof(*k));
	for (i = 0, a = 0, b = h; a < h; i++)
		k[i] = b < n && ds_key_before(&k[b], &tmp[a]) ? k[b++] :
							      tmp[a++];
}

/* Sort v[0..n); false if out of memory. */
static bool ds_sessions_sort(struct ds_session *v, size_t n)
{
	struct ds_sess_key *k = malloc(2 * n * sizeof(*k) + 1);
	struct ds_session tmp;
	size_t i, j, src;

	if (!k)
		return false;
	for (i = 0; i < n; i++) {
		k[i].val = ds_sort_val(&v[i]);
		k[i].cookie = v[i].cookie;
		k[i].i = i;
	}
	ds_keys_sort(k, k + n, n);
	/* each cycle of the permutation: place j takes v[k[j].i] */
	for (i = 0; i < n; i++) {
		if (k[i].i == i)
			continue;
		tmp = v[i];
		for (j = i;; j = src) {
			src = k[j].i;
			k[j].i = j;
			if (src == i)
				break;
			v[j] = v[src];
		}
		v[j] = tmp;
	}
	free(k);
	return true;
}

int cmd_show_sessions(struct ds_ctx *ctx, const struct ds_cmd *self,
		      int argc, char **argv)
{
	struct ds_sess_filter f = { UINT64_MAX, UINT64_MAX };
	struct ds_print p = { .f = stdout, .json = ctx->json };
	bool live = true, closed = false, info = false;
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
		} else if (!strcmp(argv[a], "info")) {
			info = true;
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
	/* the transport state: always in JSON, in text with info (ss -i) */
	for (i = 0; i < s.n; i++)
		if (ds_sess_match(&f, &s.v[i])) {
			s.v[i].has_tcp &= info || p.json;
			s.v[n++] = s.v[i];
		}
	s.n = n;
	if (!ds_sessions_sort(s.v, s.n)) {
		free(s.v);
		return ds_fail(ctx, -ENOMEM);
	}
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
	uint32_t events;	/* DROPSCOPE_SESS_EVENTS_*: events, not closes */
	uint64_t seen;		/* closes (or events) printed */
	uint64_t count;		/* stop after this many; 0: never */
};

/* The events of an alert message, those the filter takes, and the lost. */
static void ds_sess_events_cb(struct ds_sess_watch *w, const struct ds_alert *a)
{
	size_t i;

	for (i = 0; i < a->nev; i++) {
		if (w->count && w->seen == w->count)
			break;
		if (!ds_sess_event_match(&w->f, &a->events[i]))
			continue;
		ds_sess_event_print(&w->p, &a->events[i]);
		w->seen++;
	}
	if (!a->events_lost)
		return;
	if (w->p.json) {
		ds_print_open_obj(&w->p, NULL);
		ds_print_u64(&w->p, DS_JSON, "events_lost", NULL,
			     a->events_lost);
		ds_print_close_obj(&w->p);
	} else {
		ds_print_text(&w->p, "(%" PRIu64 " session events lost: the ring of %u was overwritten before a round)\n",
			      a->events_lost, DROPSCOPE_SESS_EVENTS_RING);
	}
}

static int ds_sess_alert_cb(struct nlattr **tb, struct nlattr *attrs,
			    int len, void *arg)
{
	struct ds_sess_watch *w = arg;
	struct ds_alert a;
	size_t i, n = 0;
	int err;

	err = ds_alert_read(tb, attrs, len, &a);
	if (err)
		return err;
	if (w->events) {
		ds_sess_events_cb(w, &a);
		fflush(stdout);
		ds_alert_free(&a);
		return 0;
	}
	for (i = 0; i < a.nsess; i++) {
		if (w->count && w->seen == w->count)
			break;
		if (!ds_sess_match(&w->f, &a.sessions[i]))
			continue;
		a.sessions[n++] = a.sessions[i];
		w->seen++;
	}
	ds_closes_print(&w->p, a.sessions, n);
	fflush(stdout);
	ds_alert_free(&a);
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
		if (!strcmp(argv[a], "states")) {
			w.events |= DROPSCOPE_SESS_EVENTS_STATES;
		} else if (!strcmp(argv[a], "retrans")) {
			w.events |= DROPSCOPE_SESS_EVENTS_RETRANS;
		} else if (!strcmp(argv[a], "timeout") && a + 1 < argc) {
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
	if (w.events) {
		/* this socket's want: the module lets it go with the socket */
		status = ds_config_sess_events(l.nl, w.events);
		if (status) {
			fprintf(stderr, "dropscope: %s\n", ds_nl_error(l.nl));
			status = ds_nl_status(status);
			ds_nl_close(l.nl);
			return status;
		}
		l.what = "TCP session events";
		if (w.events & DROPSCOPE_SESS_EVENTS_STATES)
			ds_print_text(&w.p, "%-17s %-7s %-15s %s\n", "TIME", "PID",
				      "COMM", "LADDR LPORT RADDR RPORT OLDSTATE -> NEWSTATE");
		if (w.events & DROPSCOPE_SESS_EVENTS_RETRANS)
			ds_print_text(&w.p, "%-17s %-7s %-15s %s\n", "TIME", "PID",
				      "COMM", "LADDR:LPORT T> RADDR:RPORT STATE SEGS");
	} else {
		ds_close_head(&w.p);
	}
	status = ds_watch_loop(&l);
	ds_nl_close(l.nl);
	return status;
}
