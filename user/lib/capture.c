// SPDX-License-Identifier: GPL-2.0
/*
 * A capture's wire: the START and STOP requests, and the messages that
 * bring its packets and counters. Each packet is read in one pass over its
 * nest, without a table or a policy walk: a capture may bring thousands a
 * message.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/filter.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "ds.h"

/* Each packet is read here: no table, no policy walk, one pass. */
static int ds_packet_parse(const struct nlattr *nest, struct ds_packet *pk)
{
	/* the attributes a packet must carry, and the size of each value */
	static const uint8_t size[DROPSCOPE_PACKET_A_MAX + 1] = {
		[DROPSCOPE_PACKET_A_TSTAMP] = 8, [DROPSCOPE_PACKET_A_LOCATION] = 8,
		[DROPSCOPE_PACKET_A_REASON] = 4, [DROPSCOPE_PACKET_A_IFINDEX] = 4,
		[DROPSCOPE_PACKET_A_NETNS] = 4, [DROPSCOPE_PACKET_A_PROTOCOL] = 2,
		[DROPSCOPE_PACKET_A_LEN] = 4, [DROPSCOPE_PACKET_A_STACK] = 4,
		[DROPSCOPE_PACKET_A_RUN] = 4, [DROPSCOPE_PACKET_A_SPORT] = 2,
		[DROPSCOPE_PACKET_A_DPORT] = 2, [DROPSCOPE_PACKET_A_PID] = 4,
		[DROPSCOPE_PACKET_A_SADDR] = 4, [DROPSCOPE_PACKET_A_DADDR] = 4,
	};
	const uint32_t need = 1U << DROPSCOPE_PACKET_A_TSTAMP |
			      1U << DROPSCOPE_PACKET_A_LOCATION |
			      1U << DROPSCOPE_PACKET_A_LEN |
			      1U << DROPSCOPE_PACKET_A_DATA;
	const struct nlattr *a = nla_data(nest);
	int rem = nla_len(nest), n, type;
	uint32_t seen = 0;
	const void *v;

	memset(pk, 0, sizeof(*pk));
	while (rem >= NLA_HDRLEN) {
		if (!ds_nla_whole(a, rem))
			return -EINVAL;
		type = a->nla_type & NLA_TYPE_MASK;
		n = a->nla_len - NLA_HDRLEN;
		v = (const char *)a + NLA_HDRLEN;
		if (type <= DROPSCOPE_PACKET_A_MAX && n < size[type])
			return -EINVAL;
		switch (type) {
		case DROPSCOPE_PACKET_A_TSTAMP:
			memcpy(&pk->tstamp, v, 8);
			break;
		case DROPSCOPE_PACKET_A_LOCATION:
			memcpy(&pk->loc, v, 8);
			break;
		case DROPSCOPE_PACKET_A_REASON:
			memcpy(&pk->reason, v, 4);
			break;
		case DROPSCOPE_PACKET_A_IFINDEX:
			memcpy(&pk->ifindex, v, 4);
			break;
		case DROPSCOPE_PACKET_A_NETNS:
			memcpy(&pk->netns, v, 4);
			break;
		case DROPSCOPE_PACKET_A_PROTOCOL:
			memcpy(&pk->protocol, v, 2);
			break;
		case DROPSCOPE_PACKET_A_LEN:
			memcpy(&pk->len, v, 4);
			break;
		case DROPSCOPE_PACKET_A_STACK:
			memcpy(&pk->stack, v, 4);
			break;
		case DROPSCOPE_PACKET_A_DATA:
			pk->data = v;
			pk->caplen = (uint32_t)n;
			break;
		case DROPSCOPE_PACKET_A_RUN:
			memcpy(&pk->run, v, 4);
			break;
		case DROPSCOPE_PACKET_A_FRAMES:
			pk->frames = v;
			pk->nframes = (uint32_t)n / 8;
			break;
		case DROPSCOPE_PACKET_A_SADDR:
		case DROPSCOPE_PACKET_A_DADDR:
			if (n != 4 && n != 16)
				return -EINVAL;
			pk->alen = (uint8_t)n;
			memcpy(type == DROPSCOPE_PACKET_A_SADDR ? pk->saddr :
			       pk->daddr, v, (size_t)n);
			break;
		case DROPSCOPE_PACKET_A_SPORT:
			memcpy(&pk->sport, v, 2);
			break;
		case DROPSCOPE_PACKET_A_DPORT:
			memcpy(&pk->dport, v, 2);
			break;
		case DROPSCOPE_PACKET_A_PID:
			memcpy(&pk->pid, v, 4);
			break;
		case DROPSCOPE_PACKET_A_COMM:
			snprintf(pk->comm, sizeof(pk->comm), "%.*s", n,
				 (const char *)v);
			break;
		}
		if (type < 32)
			seen |= 1U << type;
		a = ds_nla_after(a, &rem);
	}
	return (seen & need) == need ? 0 : -EINVAL;
}

static const struct nla_policy ds_cap_policy[DROPSCOPE_CAPTURE_A_MAX + 1] = {
	[DROPSCOPE_CAPTURE_A_ID] = { .type = NLA_U32 },
	[DROPSCOPE_CAPTURE_A_MATCHED] = { .type = NLA_U64 },
	[DROPSCOPE_CAPTURE_A_CAPTURED] = { .type = NLA_U64 },
	[DROPSCOPE_CAPTURE_A_LOST_BUFFER] = { .type = NLA_U64 },
	[DROPSCOPE_CAPTURE_A_LOST_SOCKET] = { .type = NLA_U64 },
	[DROPSCOPE_CAPTURE_A_NO_NETWORK] = { .type = NLA_U64 },
	[DROPSCOPE_CAPTURE_A_LOST_KEYS] = { .type = NLA_U64 },
};

static int ds_cap_counters_read(struct nlattr *nest, struct ds_cap_counters *c)
{
	struct nlattr *t[DROPSCOPE_CAPTURE_A_MAX + 1];

	if (ds_nla_parse_nested(t, DROPSCOPE_CAPTURE_A_MAX, nest, ds_cap_policy) ||
	    !t[DROPSCOPE_CAPTURE_A_ID])
		return -EINVAL;
	c->id = nla_get_u32(t[DROPSCOPE_CAPTURE_A_ID]);
	if (t[DROPSCOPE_CAPTURE_A_MATCHED]) {
		if (!t[DROPSCOPE_CAPTURE_A_CAPTURED] ||
		    !t[DROPSCOPE_CAPTURE_A_LOST_BUFFER] ||
		    !t[DROPSCOPE_CAPTURE_A_LOST_SOCKET] ||
		    !t[DROPSCOPE_CAPTURE_A_NO_NETWORK])
			return -EINVAL;
		c->matched = nla_get_u64(t[DROPSCOPE_CAPTURE_A_MATCHED]);
		c->captured = nla_get_u64(t[DROPSCOPE_CAPTURE_A_CAPTURED]);
		c->lost_buffer = nla_get_u64(t[DROPSCOPE_CAPTURE_A_LOST_BUFFER]);
		c->lost_socket = nla_get_u64(t[DROPSCOPE_CAPTURE_A_LOST_SOCKET]);
		c->no_network = nla_get_u64(t[DROPSCOPE_CAPTURE_A_NO_NETWORK]);
		if (t[DROPSCOPE_CAPTURE_A_LOST_KEYS])
			c->lost_keys = nla_get_u64(t[DROPSCOPE_CAPTURE_A_LOST_KEYS]);
	}
	if (t[DROPSCOPE_CAPTURE_A_END])
		c->ended = true;
	return 0;
}

int ds_capture_read(struct nlattr **tb, struct nlattr *attrs, int len,
		    int (*on_packet)(void *arg, const struct ds_packet *pk),
		    void *arg, struct ds_cap_counters *c)
{
	const struct nlattr *at = attrs;
	struct ds_packet pk;
	int rem = len, err;

	for (; ds_nla_whole(at, rem); at = ds_nla_after(at, &rem)) {
		if ((at->nla_type & NLA_TYPE_MASK) != DROPSCOPE_A_PACKET)
			continue;
		if (ds_packet_parse(at, &pk))
			return -EINVAL;
		err = on_packet(arg, &pk);
		if (err)
			return err;
	}
	return tb[DROPSCOPE_A_CAPTURE] ?
	       ds_cap_counters_read(tb[DROPSCOPE_A_CAPTURE], c) : 0;
}

int ds_capture_start(struct ds_nl *nl, const struct ds_cap_req *req,
		     ds_msg_fn fn, void *arg)
{
	struct nl_msg *msg = ds_nl_msg(nl, DROPSCOPE_CMD_CAPTURE_START, false);
	struct nlattr *nest;

	if (!msg)
		return ds_nl_send(nl, NULL, fn, arg);
	nest = nla_nest_start(msg, DROPSCOPE_A_CAPTURE);
	if (!nest || nla_put_u32(msg, DROPSCOPE_CAPTURE_A_SNAPLEN, req->snaplen) ||
	    (req->nfilter &&
	     nla_put(msg, DROPSCOPE_CAPTURE_A_FILTER,
		     (int)(req->nfilter * sizeof(struct sock_filter)),
		     req->filter)) ||
	    (req->all && nla_put_flag(msg, DROPSCOPE_CAPTURE_A_ALL)) ||
	    (req->run && nla_put_u32(msg, DROPSCOPE_CAPTURE_A_RUN, req->run)) ||
	    (req->per_key &&
	     nla_put_u32(msg, DROPSCOPE_CAPTURE_A_PER_KEY, req->per_key))) {
		nlmsg_free(msg);
		msg = NULL;
	} else {
		nla_nest_end(msg, nest);
		if (req->rule && ds_rule_put(msg, req->rule)) {
			nlmsg_free(msg);
			msg = NULL;
		}
	}
	return ds_nl_send(nl, msg, fn, arg);
}

int ds_capture_stop(struct ds_nl *nl, uint32_t id, ds_msg_fn fn, void *arg)
{
	struct nl_msg *msg = ds_nl_msg(nl, DROPSCOPE_CMD_CAPTURE_STOP, false);
	struct nlattr *nest;

	if (msg) {
		nest = nla_nest_start(msg, DROPSCOPE_A_CAPTURE);
		if (!nest || nla_put_u32(msg, DROPSCOPE_CAPTURE_A_ID, id)) {
			nlmsg_free(msg);
			msg = NULL;
		} else {
			nla_nest_end(msg, nest);
		}
	}
	return ds_nl_send(nl, msg, fn, arg);
}
