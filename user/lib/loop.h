/* SPDX-License-Identifier: GPL-2.0 */
/* loop.c: the loop of the commands that run on. Included through ds.h. */
#ifndef DS_LIB_LOOP_H
#define DS_LIB_LOOP_H

struct ds_loop {
	struct ds_nl *nl;	/* a socket that joined the alerts, or NULL */
	ds_msg_fn on_msg;	/* each alert message on nl */
	/* Before each wait: nonzero stops; *wait_ms (1000) may be lowered. */
	int (*on_turn)(void *arg, int *wait_ms);
	/* A key other than q, Enter and Ctrl-C: nonzero stops. */
	int (*on_key)(void *arg, char c);
	void *arg;
	const char *what;	/* "watching WHAT: keys" on stderr; NULL: no */
	uint64_t deadline;	/* ds_now_ms() at which to stop; 0: none */
	uint64_t lost;		/* out: times the socket overran */
};

uint64_t ds_now_ms(void);
/* The local time of day, as watch prints it: 12:04:31.250 */
void ds_stamp(char *buf, size_t len);
int ds_watch_open(struct ds_nl **nl);
int ds_watch_loop(struct ds_loop *l);

#endif /* DS_LIB_LOOP_H */
