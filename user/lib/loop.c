// SPDX-License-Identifier: GPL-2.0
/*
 * The loop of every command that runs on (watch, watch sessions, top,
 * capture, export): the terminal live, signals that end it, the alerts of
 * a socket, keys, and a turn between events; and the clocks they read.
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

#include "ds.h"

static volatile sig_atomic_t ds_interrupted;

static void ds_on_signal(int sig)
{
	(void)sig;
	ds_interrupted = 1;
}

uint64_t ds_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void ds_stamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%03d", tm.tm_hour % 24,
		 tm.tm_min % 60, tm.tm_sec % 61, (int)(ts.tv_nsec / 1000000) % 1000);
}

/* A stop key: q, Enter or Ctrl-C (read as a byte when signals are off). */
static bool ds_stop_key(char c)
{
	return c == 'q' || c == 'Q' || c == '\n' || c == '\r' || c == 3;
}

/*
 * The loop of watch, watch sessions and top: the terminal in
 * non-canonical mode without echo (restored on every way out), SIGINT and
 * SIGTERM end it, each alert message on l->nl goes to l->on_msg, each key
 * other than a stop key to l->on_key, and l->on_turn decides between
 * events whether to go on and how long to wait at most. SIGINT, SIGTERM
 * and SIGWINCH are blocked but while waiting, so that one that comes
 * while a message or a turn is handled still cuts the wait short.
 */
int ds_watch_loop(struct ds_loop *l)
{
	struct sigaction sa = { .sa_handler = ds_on_signal }, old_int, old_term;
	bool tty = isatty(STDIN_FILENO);
	struct termios saved, raw;
	sigset_t block, waiting;
	int err, status = DS_OK;

	if (tty && !tcgetattr(STDIN_FILENO, &saved)) {
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	} else {
		tty = false;
	}
	if (l->what)
		fprintf(stderr, "watching %s: %s\n", l->what,
			tty ? "q, Enter or Ctrl-C to stop" : "Ctrl-C to stop");
	ds_interrupted = 0;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGWINCH);
	sigprocmask(SIG_BLOCK, &block, &waiting);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	while (!ds_interrupted) {
		struct pollfd pfd[2] = {
			{ .fd = l->nl ? ds_nl_fd(l->nl) : -1, .events = POLLIN },
			{ .fd = tty ? STDIN_FILENO : -1, .events = POLLIN },
		};
		struct timespec ts;
		int wait = 1000;
		ssize_t n;
		char c;

		if (l->on_turn && l->on_turn(l->arg, &wait))
			break;
		if (l->deadline) {
			uint64_t now = ds_now_ms();

			if (now >= l->deadline)
				break;
			if (l->deadline - now < (uint64_t)wait)
				wait = (int)(l->deadline - now);
		}
		ts.tv_sec = wait / 1000;
		ts.tv_nsec = (long)(wait % 1000) * 1000000;
		if (ppoll(pfd, 2, &ts, &waiting) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "dropscope: ppoll: %s\n", strerror(errno));
			status = DS_EFAIL;
			break;
		}
		if (pfd[1].revents & (POLLIN | POLLHUP)) {
			/* end of input or a stop key ends it */
			n = read(STDIN_FILENO, &c, 1);
			if (n <= 0 || ds_stop_key(c))
				break;
			if (l->on_key && l->on_key(l->arg, c))
				break;
		}
		if (pfd[0].revents & POLLIN) {
			err = ds_nl_recv_alerts(l->nl, l->on_msg, l->arg);
			if (err == -ENOBUFS) {
				l->lost++;
				fprintf(stderr, "dropscope: alerts lost: this listener's socket buffer overran\n");
			} else if (err) {
				fprintf(stderr, "dropscope: %s\n", ds_nl_error(l->nl));
				status = DS_EFAIL;
				break;
			}
		}
		if (l->nl && ds_nl_gone(l->nl)) {
			fprintf(stderr, "dropscope: dropscope.ko was unloaded\n");
			status = DS_ENOMOD;
			break;
		}
	}

	/* one still pending comes to our handler, not to the default one */
	sigprocmask(SIG_SETMASK, &waiting, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	return status;
}

/* Open a socket that joined the alerts; errors are printed. */
int ds_watch_open(struct ds_nl **nl)
{
	int err = ds_nl_open(nl);

	if (!err)
		err = ds_nl_join_alerts(*nl);
	if (err) {
		fprintf(stderr, "dropscope: %s\n", ds_nl_error(*nl));
		ds_nl_close(*nl);
		*nl = NULL;
		return ds_nl_status(err);
	}
	return DS_OK;
}
