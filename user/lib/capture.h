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
};

/* The module's counters of a capture, the last it sent. */
struct ds_cap_counters {
	uint32_t id;
	uint64_t matched, captured, lost_buffer, lost_socket, no_network;
	bool ended;		/* the module ended the capture */
};

/* What START asks for. */
struct ds_cap_req {
	uint32_t snaplen;
	bool all;			/* drops the rules hide too */
	const void *filter;		/* struct sock_filter[nfilter] */
	unsigned int nfilter;
	const struct ds_rule *rule;	/* or NULL */
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
