// SPDX-License-Identifier: GPL-2.0
/*
 * watch: stream alerts as they arrive. The terminal stays live: q, Enter
 * or Ctrl-C stop watching; without a terminal, Ctrl-C, a round count or a
 * timeout do.
 */
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "dropscope.h"

struct ds_watch {
	struct ds_print p;
	uint64_t rounds;	/* rounds completed */
	uint64_t drops;		/* sum of deltas */
	uint64_t want;		/* rounds to watch; 0: no end */
};

/* One alert message: its sites and SMC fallbacks, read, then printed. */
static int ds_alert_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		       void *arg)
{
	struct ds_watch *w = arg;
	struct ds_alert a;
	char stamp[32];
	size_t i;
	int err;

	err = ds_alert_read(tb, attrs, len, &a);
	if (err)
		return err;
	ds_stamp(stamp, sizeof(stamp));
	a.stamp = stamp;
	/* as show sites lists them: by count, then by site */
	qsort(a.sites, a.n, sizeof(*a.sites), ds_site_cmp_total);
	ds_alert_print(&w->p, &a);
	w->drops += a.overflow;
	for (i = 0; i < a.n; i++)
		w->drops += a.sites[i].delta;
	if (a.end)
		w->rounds++;
	fflush(w->p.f);
	ds_alert_free(&a);
	return 0;
}

/* watch stops after this many rounds, if any. */
static int ds_watch_turn(void *arg, int *wait)
{
	struct ds_watch *w = arg;

	(void)wait;
	return w->want && w->rounds >= w->want;
}

int ds_watch(struct ds_ctx *ctx, uint64_t rounds, uint64_t timeout_ms)
{
	struct ds_watch w = {
		.p = { .f = stdout, .json = ctx->json },
		.want = rounds,
	};
	struct ds_loop l = {
		.on_msg = ds_alert_cb,
		.on_turn = ds_watch_turn,
		.arg = &w,
		.what = "drop alerts",
		.deadline = timeout_ms ? ds_now_ms() + timeout_ms : 0,
	};
	struct ds_print e = { .f = stderr, .json = ctx->json };
	int status;

	status = ds_watch_open(&l.nl);
	if (status)
		return status;
	status = ds_watch_loop(&l);
	ds_print_text(&e, "%" PRIu64 " alert rounds, %" PRIu64 " drops%s\n",
		      w.rounds, w.drops,
		      l.lost ? ", some alerts lost (see show stats)" : "");
	ds_nl_close(l.nl);
	return status;
}
