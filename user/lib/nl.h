/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl.c: the transport: the dropscope family's socket, requests, dumps,
 * alerts. Included through ds.h.
 */
#ifndef DS_LIB_NL_H
#define DS_LIB_NL_H

struct ds_nl;
struct nl_msg;
struct nlattr;

/*
 * Called for each message from dropscope.ko: tb holds the parsed top-level
 * attributes (the last of each type), attrs/len all of them, for repeated
 * ones such as DROPSCOPE_A_SITE in alerts.
 */
typedef int (*ds_msg_fn)(struct nlattr **tb, struct nlattr *attrs, int len,
			 void *arg);

/* Walking attributes: is there a whole one at a, within rem bytes? */
static inline bool ds_nla_whole(const struct nlattr *a, int rem)
{
	return rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= rem;
}

/* The attribute after a; rem loses what a took. */
static inline const struct nlattr *ds_nla_after(const struct nlattr *a,
						int *rem)
{
	*rem -= NLA_ALIGN(a->nla_len);
	return (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
}

/*
 * An attribute's value, read in place (libnl's nla_get_*() are calls):
 * 0 when the attribute is shorter than its type.
 */
#define DS_NLA_GET(name, type)						\
static inline type ds_nla_##name(const struct nlattr *a)		\
{									\
	type v = 0;							\
									\
	if (a->nla_len >= NLA_HDRLEN + sizeof(v))			\
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));	\
	return v;							\
}
DS_NLA_GET(u8, uint8_t)
DS_NLA_GET(u16, uint16_t)
DS_NLA_GET(u32, uint32_t)
DS_NLA_GET(u64, uint64_t)

struct nla_policy;
int ds_nla_parse(struct nlattr **tb, int max, struct nlattr *head, int len,
		 const struct nla_policy *pol);
int ds_nla_parse_nested(struct nlattr **tb, int max, struct nlattr *nest,
			const struct nla_policy *pol);
int ds_nl_open(struct ds_nl **nlp);
void ds_nl_close(struct ds_nl *nl);
/* A request: build it, add attributes, send it; fn sees each reply. */
struct nl_msg *ds_nl_msg(struct ds_nl *nl, uint8_t cmd, bool dump);
int ds_nl_send(struct ds_nl *nl, struct nl_msg *msg, ds_msg_fn fn, void *arg);
/* The same for a request without attributes. */
int ds_nl_do(struct ds_nl *nl, uint8_t cmd, ds_msg_fn fn, void *arg);
/*
 * A dump. One the kernel marks interrupted (its table changed meanwhile)
 * is run again from the start, a few times: reset (if not NULL) is called
 * first, to discard what fn collected of the partial one.
 */
int ds_nl_dump(struct ds_nl *nl, uint8_t cmd, ds_msg_fn fn,
	       void (*reset)(void *arg), void *arg);
int ds_nl_join_alerts(struct ds_nl *nl);
int ds_nl_listen(struct ds_nl *nl);
void ds_nl_blocking(struct ds_nl *nl);
int ds_nl_fd(struct ds_nl *nl);
/* Did dropscope.ko go away? Seen on a socket that joined the alerts. */
bool ds_nl_gone(struct ds_nl *nl);
/* Receive what is pending on a joined socket; fn sees each alert. */
int ds_nl_recv_alerts(struct ds_nl *nl, ds_msg_fn fn, void *arg);
/* The last error: its status and a message that says what to do. */
const char *ds_nl_error(struct ds_nl *nl);
int ds_nl_status(int err);

#endif /* DS_LIB_NL_H */
