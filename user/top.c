// SPDX-License-Identifier: GPL-2.0
/*
 * top: the busiest TCP sessions of each interval, tcptop style.
 *
 * Each interval the live sessions are dumped, and the closed ring read
 * from where the last interval left it (by the closes' sequence numbers).
 * A session is known from one dump to the next by its socket cookie; what
 * it moved in the interval is its totals now (or at its close) less its
 * totals at the last dump, or all of them if it was born in the interval.
 * A session that closed between the live dump and the ring's is taken
 * from the ring, with its final numbers. Sessions without a cookie yet (a
 * passive one in SYN_RECV) count as born in each interval; they have
 * moved no data.
 *
 * On a terminal (both ends, not -j, no count) the frames are drawn full
 * screen with plain ANSI escapes in the alternate screen, sized to the
 * terminal; q, Enter or Ctrl-C leave, s changes the sort. Otherwise each
 * frame is printed plain: a header line and a table, or in JSON one array
 * per frame on its own line.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "dropscope.h"

static const char *const ds_top_sorts[] = {
	[DS_TOP_BYTES] = "bytes", [DS_TOP_RX] = "rx", [DS_TOP_TX] = "tx",
	[DS_TOP_RETRANS] = "retrans", [DS_TOP_DROPS] = "drops",
};

#define DS_TOP_NSORTS ((int)(sizeof(ds_top_sorts) / sizeof(ds_top_sorts[0])))

/*
 * An interval: a bare number is seconds ("2", "0.5"), a number with a
 * unit is as ds_parse_duration_ms() takes it ("500ms").
 */
static int ds_top_interval(const char *s, uint64_t *ms)
{
	char buf[32];

	if (strlen(s) + 2 > sizeof(buf))
		return -EINVAL;
	if (!s[0] || s[strspn(s, "0123456789.")]) {
		if (ds_parse_duration_ms(s, ms))
			return -EINVAL;
	} else {
		snprintf(buf, sizeof(buf), "%ss", s);
		if (ds_parse_duration_ms(buf, ms))
			return -EINVAL;
	}
	return *ms < DS_TOP_INTERVAL_MIN_MS || *ms > DS_TOP_INTERVAL_MAX_MS ?
	       -ERANGE : 0;
}

/* Is it one of top's keywords? */
static bool ds_top_key(const char *w)
{
	static const char *const keys[] = {
		"interval", "top", "sort", "pid", "port", "count",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(w, keys[i]))
			return true;
	return false;
}

int ds_top_parse(struct ds_top_args *t, int argc, char **argv,
		 const char **err)
{
	uint64_t ms;
	int a, r, k;

	*t = (struct ds_top_args){
		.f = { UINT64_MAX, UINT64_MAX },
		.interval_ms = DS_TOP_INTERVAL_MS,
		.top = UINT64_MAX,
	};
	for (a = 0; a < argc; a++) {
		r = ds_sess_filter_arg(&t->f, argc, argv, &a);
		if (r < 0) {
			*err = "pid and port need a number";
			return -EINVAL;
		}
		if (r)
			continue;
		if (a + 1 >= argc) {
			*err = ds_top_key(argv[a]) ?
			       "interval, top, sort, pid, port and count need a value" :
			       "unknown argument";
			return -EINVAL;
		}
		if (!strcmp(argv[a], "interval")) {
			if (ds_top_interval(argv[++a], &ms)) {
				*err = "interval needs seconds, 0.1 to 60 (e.g. 2, 0.5, 500ms)";
				return -EINVAL;
			}
			t->interval_ms = ms;
		} else if (!strcmp(argv[a], "top")) {
			if (ds_parse_u64(argv[++a], 1, UINT32_MAX, &t->top)) {
				*err = "top needs a positive number";
				return -EINVAL;
			}
		} else if (!strcmp(argv[a], "count")) {
			if (ds_parse_u64(argv[++a], 1, UINT32_MAX, &t->count)) {
				*err = "count needs a positive number";
				return -EINVAL;
			}
		} else if (!strcmp(argv[a], "sort")) {
			a++;
			for (k = 0; k < DS_TOP_NSORTS; k++)
				if (!strcmp(argv[a], ds_top_sorts[k]))
					break;
			if (k == DS_TOP_NSORTS) {
				*err = "sort by bytes, rx, tx, retrans or drops";
				return -EINVAL;
			}
			t->sort = (enum ds_top_sort)k;
		} else {
			*err = "unknown argument";
			return -EINVAL;
		}
	}
	return 0;
}

/* A session in a frame: its numbers and what they grew by. */
struct ds_top_row {
	struct ds_session s;
	uint64_t rx, tx;	/* bytes in the interval */
	uint64_t retrans, drops, resets;
	bool born, closed;	/* in the interval */
};

struct ds_top {
	struct ds_ctx *ctx;
	struct ds_top_args args;
	struct ds_print p;
	bool screen;		/* full screen on the terminal */
	struct ds_sessions live, ring;
	struct ds_session *prev;	/* the last live dump, by cookie */
	size_t nprev;
	uint64_t cursor;	/* the sequence number of the next close */
	uint64_t last_ms;	/* when the last dump was */
	uint64_t next_ms;	/* when the next frame is due */
	uint64_t frames;
	int status;
	/* the last frame */
	struct ds_top_row *rows;
	size_t nrows, cap;	/* the sessions listed (active ones) */
	uint64_t elapsed_ms;
	uint64_t nlive, nclosed;	/* matching the filter */
	uint64_t rx, tx, drops;		/* of all of them in the interval */
	uint64_t missed;	/* closes the ring lost before we read them */
	char stamp[16];
	char error[256];	/* printed once the terminal is restored */
};

static int ds_cookie_cmp(const void *a, const void *b)
{
	const struct ds_session *x = a, *y = b;

	return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

static const struct ds_session *ds_top_find(const struct ds_session *v,
					    size_t n, uint64_t cookie)
{
	struct ds_session key = { .cookie = cookie };

	if (!cookie || !n)
		return NULL;
	return bsearch(&key, v, n, sizeof(*v), ds_cookie_cmp);
}

static uint64_t ds_grew(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

static int ds_top_add(struct ds_top *t, const struct ds_session *s)
{
	const struct ds_session *p = ds_top_find(t->prev, t->nprev, s->cookie);
	struct ds_session zero = { 0 };
	struct ds_top_row *r;

	r = ds_grow(t->rows, &t->cap, t->nrows, sizeof(*r), 256);
	if (!r)
		return -ENOMEM;
	t->rows = r;
	r = &t->rows[t->nrows];
	r->s = *s;
	r->born = !p;
	r->closed = s->closed;
	if (!p)
		p = &zero;
	r->rx = ds_grew(s->rx_bytes, p->rx_bytes);
	r->tx = ds_grew(s->tx_bytes, p->tx_bytes);
	r->retrans = ds_grew(s->retransmits, p->retransmits);
	r->drops = ds_grew(s->drops, p->drops);
	r->resets = ds_grew((uint64_t)s->resets_sent + s->resets_received,
			    (uint64_t)p->resets_sent + p->resets_received);
	if (!ds_sess_match(&t->args.f, s))
		return 0;
	if (s->closed)
		t->nclosed++;
	else
		t->nlive++;
	t->rx += r->rx;
	t->tx += r->tx;
	t->drops += r->drops;
	/* listed: what did something in the interval */
	if (r->rx || r->tx || r->retrans || r->drops || r->resets ||
	    r->born || r->closed)
		t->nrows++;
	return 0;
}

static int ds_top_dump(struct ds_top *t, uint8_t cmd, struct ds_sessions *s)
{
	int err;

	s->n = s->base = 0;
	err = ds_nl_dump(t->ctx->nl, cmd, ds_sessions_cb, ds_sessions_reset, s);
	if (err) {
		snprintf(t->error, sizeof(t->error), "%s",
			 ds_nl_error(t->ctx->nl));
		t->status = ds_nl_status(err);
	}
	return err;
}

/* The live sessions, then the ring; *now: when. */
static int ds_top_dumps(struct ds_top *t, uint64_t *now)
{
	int err;

	err = ds_top_dump(t, DROPSCOPE_CMD_SESSIONS_GET, &t->live);
	if (!err)
		err = ds_top_dump(t, DROPSCOPE_CMD_CLOSED_GET, &t->ring);
	if (!err)
		*now = ds_now_ms();
	return err;
}

/*
 * The closes since the last frame, out of the ring's dump: those from
 * the cursor on. Ones the ring overwrote before they were read are
 * counted; a ring that starts below the cursor was reset.
 */
static void ds_top_closes(struct ds_top *t, uint64_t *from)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	for (i = 0; i < t->ring.n; i++) {
		if (t->ring.v[i].seq < lo)
			lo = t->ring.v[i].seq;
		if (t->ring.v[i].seq > hi)
			hi = t->ring.v[i].seq;
	}
	if (!t->ring.n || hi + 1 < t->cursor)
		t->cursor = 0;
	if (t->ring.n && lo > t->cursor)
		t->missed += lo - t->cursor;
	*from = t->cursor;
	if (t->ring.n)
		t->cursor = hi + 1;
}

static uint64_t ds_top_val(const struct ds_top_row *r, enum ds_top_sort k,
			   int tie)
{
	switch (k) {
	case DS_TOP_RX:
		return tie ? r->tx : r->rx;
	case DS_TOP_TX:
		return tie ? r->rx : r->tx;
	case DS_TOP_RETRANS:
		return tie ? r->s.retransmits : r->retrans;
	case DS_TOP_DROPS:
		return tie ? r->s.drops : r->drops;
	default:
		return tie ? 0 : r->rx + r->tx;
	}
}

static enum ds_top_sort ds_top_sort_key;

/* Largest first, then by the second key, then by cookie: stable. */
static int ds_top_cmp(const void *a, const void *b)
{
	const struct ds_top_row *x = a, *y = b;
	uint64_t u, v;
	int tie;

	for (tie = 0; tie < 2; tie++) {
		u = ds_top_val(x, ds_top_sort_key, tie);
		v = ds_top_val(y, ds_top_sort_key, tie);
		if (u != v)
			return u < v ? 1 : -1;
	}
	return ds_cookie_cmp(&x->s, &y->s);
}

static void ds_top_sort(struct ds_top *t)
{
	ds_top_sort_key = t->args.sort;
	qsort(t->rows, t->nrows, sizeof(*t->rows), ds_top_cmp);
}

static void ds_top_stamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

/* One frame: dump, and what each session did since the last one. */
static int ds_top_frame(struct ds_top *t)
{
	struct ds_session *closes;
	uint64_t now, from;
	size_t i, n = 0;
	int err;

	err = ds_top_dumps(t, &now);
	if (err)
		return err;
	t->elapsed_ms = now > t->last_ms ? now - t->last_ms : 1;
	t->last_ms = now;
	ds_top_stamp(t->stamp, sizeof(t->stamp));
	t->nrows = t->nlive = t->nclosed = 0;
	t->rx = t->tx = t->drops = 0;
	ds_top_closes(t, &from);
	/* the closes of the interval, first in the ring's buffer, by cookie */
	for (i = 0; i < t->ring.n; i++)
		if (t->ring.v[i].seq >= from)
			t->ring.v[n++] = t->ring.v[i];
	closes = t->ring.v;
	qsort(closes, n, sizeof(*closes), ds_cookie_cmp);
	for (i = 0; i < n && !err; i++)
		err = ds_top_add(t, &closes[i]);
	/* a live one that closed before the ring's dump: its close counts */
	for (i = 0; i < t->live.n && !err; i++)
		if (!ds_top_find(closes, n, t->live.v[i].cookie))
			err = ds_top_add(t, &t->live.v[i]);
	if (err) {
		snprintf(t->error, sizeof(t->error), "out of memory");
		t->status = DS_EFAIL;
		return err;
	}
	/* the live ones are the next frame's baseline */
	qsort(t->live.v, t->live.n, sizeof(*t->live.v), ds_cookie_cmp);
	free(t->prev);
	t->prev = t->live.v;
	t->nprev = t->live.n;
	t->live = (struct ds_sessions){ 0 };
	ds_top_sort(t);
	t->frames++;
	return 0;
}

/* The first dump: what the first frame is measured from. */
static int ds_top_baseline(struct ds_top *t)
{
	uint64_t from;
	int err;

	err = ds_top_dumps(t, &t->last_ms);
	if (err)
		return err;
	t->next_ms = t->last_ms + t->args.interval_ms;
	ds_top_closes(t, &from);
	t->missed = 0;
	qsort(t->live.v, t->live.n, sizeof(*t->live.v), ds_cookie_cmp);
	t->prev = t->live.v;
	t->nprev = t->live.n;
	t->live = (struct ds_sessions){ 0 };
	return 0;
}

/*
 * The table: the columns of show sessions with the interval's rates
 * before the totals. JSON has the same keys as show sessions -j, and
 * rx_delta, tx_delta (bytes in the interval) and interval_ms.
 */
static const struct ds_col ds_top_rates[] = {
	{ "rx_delta", "RX_KB/s", " ", 9, DS_COL_RIGHT },
	{ "tx_delta", "TX_KB/s", " ", 9, DS_COL_RIGHT },
};

#define DS_TOP_MAXCOLS 40

static int ds_top_cols(struct ds_col *cols)
{
	const struct ds_col *c;
	int n = 0;

	for (c = ds_sess_cols; n + 3 < DS_TOP_MAXCOLS; c++) {
		if (c->key && !strcmp(c->key, "rx_bytes")) {
			cols[n++] = ds_top_rates[0];
			cols[n++] = ds_top_rates[1];
		}
		cols[n++] = *c;
		if (!c->key)
			break;
	}
	return n;
}

/* KiB per second, one decimal. */
static void ds_top_rate(char *buf, size_t len, uint64_t bytes, uint64_t ms)
{
	snprintf(buf, len, "%.1f", (double)bytes * 1000.0 / 1024.0 /
		 (double)(ms ? ms : 1));
}

static void ds_top_row_print(struct ds_print *p, const struct ds_top *t,
			     const struct ds_top_row *r)
{
	char rx[32], tx[32];

	ds_top_rate(rx, sizeof(rx), r->rx, t->elapsed_ms);
	ds_top_rate(tx, sizeof(tx), r->tx, t->elapsed_ms);
	ds_print_open_obj(p, NULL);
	ds_session_fields(p, &r->s);
	ds_print_u64_as(p, DS_ANY, "rx_delta", "%s", r->rx, rx);
	ds_print_u64_as(p, DS_ANY, "tx_delta", "%s", r->tx, tx);
	ds_print_u64(p, DS_JSON, "interval_ms", NULL, t->elapsed_ms);
	ds_print_close_obj(p);
}

/* The header line (text only). */
static void ds_top_head(struct ds_print *p, const struct ds_top *t)
{
	char rx[32], tx[32];

	ds_top_rate(rx, sizeof(rx), t->rx, t->elapsed_ms);
	ds_top_rate(tx, sizeof(tx), t->tx, t->elapsed_ms);
	ds_print_text(p, "%s  sessions: %" PRIu64 " live, %" PRIu64
		      " closed  rx %s KB/s  tx %s KB/s  drops %" PRIu64
		      "  sort %s", t->stamp, t->nlive, t->nclosed, rx, tx,
		      t->drops, ds_top_sorts[t->args.sort]);
	if (t->missed)
		ds_print_text(p, "  closes missed: %" PRIu64, t->missed);
	ds_print_text(p, "\n");
}

/* The last frame, at most top sessions. */
static void ds_top_print(struct ds_print *p, const struct ds_top *t,
			 uint64_t top)
{
	size_t i, n = t->nrows < top ? t->nrows : (size_t)top;
	struct ds_col cols[DS_TOP_MAXCOLS];

	ds_top_head(p, t);
	if (t->screen)
		ds_print_text(p, "q: quit  s: sort (bytes, rx, tx, retrans, drops)\n");
	ds_print_open_table(p, NULL, cols, ds_top_cols(cols), DS_TABLE_HEAD);
	for (i = 0; i < n; i++)
		ds_top_row_print(p, t, &t->rows[i]);
	ds_print_close_table(p);
	if (!t->nrows)
		ds_print_text(p, "no session active in the interval\n");
	else if (n < t->nrows)
		ds_print_text(p, "(%zu more sessions)\n", t->nrows - n);
}

static volatile sig_atomic_t ds_top_resized;

static void ds_top_on_winch(int sig)
{
	(void)sig;
	ds_top_resized = 1;
}

/*
 * Full screen: the frame drawn from the top left corner, each line cut
 * at the terminal's width, as many lines as it has rows.
 */
static void ds_top_draw(struct ds_top *t, const char *note)
{
	struct winsize ws = { 0 };
	struct ds_print p = { .json = false };
	uint64_t top = t->args.top;
	size_t len = 0, line = 0;
	unsigned int rows = 24, cols = 80;
	char *buf = NULL, *s, *nl;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		rows = ws.ws_row;
		cols = ws.ws_col;
	}
	/* header, keys, table header and "more": the rest is sessions */
	if (rows > 5 && top > rows - 4)
		top = rows - 4;
	else if (rows <= 5)
		top = 1;
	p.f = open_memstream(&buf, &len);
	if (!p.f)
		return;
	if (note)
		ds_print_text(&p, "%s\n", note);
	else
		ds_top_print(&p, t, top);
	fclose(p.f);
	fputs("\033[H\033[2J", stdout);
	for (s = buf; s && *s && line < rows; s = nl ? nl + 1 : NULL, line++) {
		size_t n;

		nl = strchr(s, '\n');
		n = nl ? (size_t)(nl - s) : strlen(s);
		if (line)
			fputs("\r\n", stdout);
		fwrite(s, 1, n < cols ? n : cols, stdout);
	}
	fflush(stdout);
	free(buf);
}

/* Plain: the frame as it is, then a blank line; JSON: one line. */
static void ds_top_plain(struct ds_top *t)
{
	ds_top_print(&t->p, t, t->args.top);
	ds_print_text(&t->p, "\n");
	fflush(stdout);
	if (t->missed && t->p.json)
		fprintf(stderr, "dropscope: %" PRIu64 " closes missed: the ring overwrote them before top read them\n",
			t->missed);
}

static int ds_top_turn(void *arg, int *wait)
{
	struct ds_top *t = arg;
	uint64_t now = ds_now_ms();

	if (ds_top_resized && t->screen) {
		ds_top_resized = 0;
		ds_top_draw(t, t->frames ? NULL : "collecting the first interval");
	}
	if (now >= t->next_ms) {
		if (ds_top_frame(t))
			return 1;
		if (t->screen)
			ds_top_draw(t, NULL);
		else
			ds_top_plain(t);
		t->missed = 0;
		if (t->args.count && t->frames >= t->args.count)
			return 1;
		/* late (a slow dump): the next interval starts now */
		t->next_ms += t->args.interval_ms;
		if (t->next_ms <= now)
			t->next_ms = now + t->args.interval_ms;
	}
	if (t->next_ms - now < (uint64_t)*wait)
		*wait = (int)(t->next_ms - now);
	return 0;
}

/* s: the next sort, the frame sorted again and drawn. */
static int ds_top_key_cb(void *arg, char c)
{
	struct ds_top *t = arg;

	if (c != 's' && c != 'S')
		return 0;
	t->args.sort = (enum ds_top_sort)((t->args.sort + 1) % DS_TOP_NSORTS);
	if (!t->frames)
		return 0;
	ds_top_sort(t);
	if (t->screen)
		ds_top_draw(t, NULL);
	return 0;
}

int cmd_top(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	    char **argv)
{
	struct ds_top t = {
		.ctx = ctx,
		.p = { .f = stdout, .json = ctx->json },
	};
	struct ds_loop l = {
		.on_turn = ds_top_turn,
		.on_key = ds_top_key_cb,
		.arg = &t,
	};
	struct sigaction sa = { .sa_handler = ds_top_on_winch }, old_winch;
	const char *what;
	int err;

	if (ds_top_parse(&t.args, argc, argv, &what))
		return ds_usage(self, what);
	t.screen = !ctx->json && !t.args.count && isatty(STDIN_FILENO) &&
		   isatty(STDOUT_FILENO);
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	if (ds_top_baseline(&t))
		goto out;
	if (t.screen) {
		/* the alternate screen, no cursor; both undone below */
		fputs("\033[?1049h\033[?25l", stdout);
		ds_top_resized = 0;
		sigaction(SIGWINCH, &sa, &old_winch);
		ds_top_draw(&t, "collecting the first interval");
	} else {
		l.what = "TCP sessions";
	}
	err = ds_watch_loop(&l);
	if (t.screen) {
		sigaction(SIGWINCH, &old_winch, NULL);
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
	}
	if (err && !t.status)
		t.status = err;
out:
	if (t.error[0])
		fprintf(stderr, "dropscope: %s\n", t.error);
	free(t.prev);
	free(t.live.v);
	free(t.ring.v);
	free(t.rows);
	return t.status;
}
