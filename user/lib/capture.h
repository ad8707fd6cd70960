/* SPDX-License-Identifier: GPL-2.0 */
/* capture.c: a capture's wire. Included through ds.h. */
#ifndef DS_LIB_CAPTURE_H
#define DS_LIB_CAPTURE_H

/* A packet of a capture message; data points into the message. */
struct ds_packet {
	uint64_t tstamp, loc;
	uint32_t reason, ifindex, netns, len, caplen;
	uint32_t stack;		/* its stack's id, or 0 */
	uint16_t protocol;
	const void *data;
	/* a per-key capture's: the run, frames, socket and task */
	uint32_t run, nframes, pid;
	const void *frames;	/* nframes uint64_t, unaligned */
	uint8_t alen;		/* 4 or 16; 0: no socket */
	uint8_t saddr[16], daddr[16];
	uint16_t sport, dport;
	char comm[16];
};

/* The module's counters of a capture, the last it sent. */
struct ds_cap_counters {
	uint32_t id;
	uint64_t matched, captured, lost_buffer, lost_socket, no_network;
	uint64_t lost_keys;
	bool ended;		/* the module ended the capture */
};

/* What START asks for. */
struct ds_cap_req {
	uint32_t snaplen;
	bool all;			/* drops the rules hide too */
	const void *filter;		/* struct sock_filter[nfilter] */
	unsigned int nfilter;
	const struct ds_rule *rule;	/* or NULL */
	uint32_t run;			/* a run's drops and no run's; 0: all */
	uint32_t per_key;		/* the first N of each key; 0: all */
};

/* A capture message (or START's or STOP's reply): each packet to
 * on_packet, then the counters it brought into c. */
int ds_capture_read(struct nlattr **tb, struct nlattr *attrs, int len,
		    int (*on_packet)(void *arg, const struct ds_packet *pk),
		    void *arg, struct ds_cap_counters *c);
int ds_capture_start(struct ds_nl *nl, const struct ds_cap_req *req,
		     ds_msg_fn fn, void *arg);
/* What the module still holds comes before the reply, to fn. */
int ds_capture_stop(struct ds_nl *nl, uint32_t id, ds_msg_fn fn, void *arg);

#endif /* DS_LIB_CAPTURE_H */
