// SPDX-License-Identifier: GPL-2.0
/*
 * watch: stream alerts as they arrive. The terminal stays live: q, Enter
 * or Ctrl-C stop watching; without a terminal, Ctrl-C, a round count or a
 * timeout do.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <netlink/attr.h>

#include "dropscope.h"

static volatile sig_atomic_t ds_interrupted;

static void ds_on_signal(int sig)
{
	(void)sig;
	ds_interrupted = 1;
}

struct ds_watch {
	struct ds_print p;
	uint64_t rounds;	/* rounds completed */
	uint64_t drops;		/* sum of deltas */
	uint64_t lost;		/* times our socket overran */
};

static uint64_t ds_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void ds_stamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%03d", tm.tm_hour % 24,
		 tm.tm_min % 60, tm.tm_sec % 61, (int)(ts.tv_nsec / 1000000) % 1000);
}

/* One alert message: its sites are parsed first, then printed. */
static int ds_alert_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		       void *arg)
{
	struct ds_watch *w = arg;
	struct ds_alert a = { .end = tb[DROPSCOPE_A_ROUND_END] };
	struct ds_site *sites;
	struct nlattr *at;
	char stamp[32];
	size_t i, n = 0;
	int rem, err = 0;

	if (tb[DROPSCOPE_A_ROUND])
		a.round = nla_get_u64(tb[DROPSCOPE_A_ROUND]);
	if (tb[DROPSCOPE_A_OVERFLOW_DELTA])
		a.overflow = nla_get_u64(tb[DROPSCOPE_A_OVERFLOW_DELTA]);
	nla_for_each_attr(at, attrs, len, rem)
		n += nla_type(at) == DROPSCOPE_A_SITE;
	sites = calloc(n ? n : 1, sizeof(*sites));
	if (!sites)
		return -ENOMEM;
	nla_for_each_attr(at, attrs, len, rem) {
		if (nla_type(at) != DROPSCOPE_A_SITE)
			continue;
		if (ds_site_parse(at, &sites[a.n++])) {
			err = -EINVAL;
			goto out;
		}
	}
	ds_stamp(stamp, sizeof(stamp));
	a.stamp = stamp;
	a.sites = sites;
	ds_alert_print(&w->p, &a);
	w->drops += a.overflow;
	for (i = 0; i < a.n; i++)
		w->drops += sites[i].delta;
	if (a.end)
		w->rounds++;
	fflush(w->p.f);
out:
	free(sites);
	return err;
}

/* Did the user ask to stop? Reads what the terminal has, never blocks. */
static bool ds_key_stop(void)
{
	char c;
	ssize_t n = read(STDIN_FILENO, &c, 1);

	if (n <= 0)
		return n == 0;	/* end of input */
	return c == 'q' || c == 'Q' || c == '\n' || c == '\r' || c == 3;
}

int ds_watch(struct ds_ctx *ctx, uint64_t rounds, uint64_t timeout_ms)
{
	struct ds_watch w = { .p = { .f = stdout, .json = ctx->json } };
	struct ds_print e = { .f = stderr, .json = ctx->json };
	bool tty = isatty(STDIN_FILENO);
	struct sigaction sa = { .sa_handler = ds_on_signal }, old_int, old_term;
	uint64_t deadline = timeout_ms ? ds_now_ms() + timeout_ms : 0;
	struct termios saved, raw;
	struct ds_nl *nl = NULL;
	int err, status = DS_OK;

	err = ds_nl_open(&nl);
	if (!err)
		err = ds_nl_join_alerts(nl);
	if (err) {
		fprintf(stderr, "dropscope: %s\n", ds_nl_error(nl));
		ds_nl_close(nl);
		return ds_nl_status(err);
	}
	if (tty) {
		tcgetattr(STDIN_FILENO, &saved);
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	fprintf(stderr, "watching drop alerts: %s\n",
		tty ? "q, Enter or Ctrl-C to stop" : "Ctrl-C to stop");
	ds_interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	while (!ds_interrupted) {
		struct pollfd pfd[2] = {
			{ .fd = ds_nl_fd(nl), .events = POLLIN },
			{ .fd = STDIN_FILENO, .events = POLLIN },
		};
		int wait = 1000;

		if (deadline) {
			uint64_t now = ds_now_ms();

			if (now >= deadline)
				break;
			if (deadline - now < 1000)
				wait = (int)(deadline - now);
		}
		if (poll(pfd, tty ? 2 : 1, wait) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (tty && (pfd[1].revents & (POLLIN | POLLHUP)) && ds_key_stop())
			break;
		if (pfd[0].revents & POLLIN) {
			err = ds_nl_recv_alerts(nl, ds_alert_cb, &w);
			if (err == -ENOBUFS) {
				w.lost++;
				fprintf(stderr, "dropscope: alerts lost: this listener's socket buffer overran\n");
			} else if (err) {
				fprintf(stderr, "dropscope: %s\n", ds_nl_error(nl));
				status = DS_EFAIL;
				break;
			}
		}
		if (ds_nl_gone(nl)) {
			fprintf(stderr, "dropscope: dropscope.ko was unloaded\n");
			status = DS_ENOMOD;
			break;
		}
		if (rounds && w.rounds >= rounds)
			break;
	}

	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	ds_print_text(&e, "%" PRIu64 " alert rounds, %" PRIu64 " drops%s\n",
		      w.rounds, w.drops,
		      w.lost ? ", some alerts lost (see show stats)" : "");
	ds_nl_close(nl);
	return status;
}
