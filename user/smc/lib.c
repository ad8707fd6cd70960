// SPDX-License-Identifier: GPL-2.0
/*
 * SMC, read: the kernel's own statistics and fallbacks (smc.ko's
 * SMC_GEN_NETLINK family, what smcr stats and smcd stats print), its SMC
 * sockets (SMC sock_diag, what smcss prints) with the process that holds
 * each, and dropscope's own SMC counters (DROPSCOPE_CMD_SMC_GET). Nothing
 * here loads smc.ko: its presence is asked first.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>

#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "lib/ds.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif

struct ds_smc_nl {
	struct nl_sock *sk;
	int family;
	int err;
};

/*
 * Is the kernel's SMC support there, loaded or built in? It registers its
 * protocol, which /proc/net/protocols lists; /sys/module/smc exists only
 * for a module (smc has no parameters). Asking for its genetlink family
 * instead would load smc.ko.
 */
bool ds_smc_loaded(void)
{
	FILE *f = fopen("/proc/net/protocols", "r");
	char line[256];
	bool found = false;

	if (!f)
		return !access("/sys/module/smc", F_OK);
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "SMC ", 4);
	fclose(f);
	return found;
}

/*
 * A generic netlink socket to smc.ko's SMC_GEN_NETLINK family. Its absence
 * is said plainly: the rest of dropscope works without smc.ko.
 */
static int ds_smc_open(struct ds_smc_nl *s)
{
	if (!ds_smc_loaded())
		return -ENOENT;
	s->sk = nl_socket_alloc();
	if (!s->sk)
		return -ENOMEM;
	if (genl_connect(s->sk) < 0) {
		nl_socket_free(s->sk);
		return -EIO;
	}
	s->family = genl_ctrl_resolve(s->sk, SMC_GENL_FAMILY_NAME);
	if (s->family < 0) {
		nl_socket_free(s->sk);
		s->sk = NULL;
		return -ENOENT;
	}
	return 0;
}

/*
 * Is smc.ko loaded? Asked before any request: resolving its genetlink
 * family, or asking sock_diag for its sockets, would load it (the kernel
 * loads a family's module on demand), and dropscope only looks.
 */
static int ds_smc_error(struct sockaddr_nl *nla, struct nlmsgerr *e,
			void *arg)
{
	struct ds_smc_nl *s = arg;

	(void)nla;
	s->err = e->error;
	return NL_STOP;
}

/* A dump of cmd; fn sees each message's top-level attributes. */
static int ds_smc_dump(struct ds_smc_nl *s, uint8_t cmd,
		       int (*fn)(struct nl_msg *msg, void *arg), void *arg)
{
	struct nl_cb *cb;
	struct nl_msg *msg;
	int err;

	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, s->family, 0,
			 NLM_F_DUMP, cmd, SMC_GENL_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, fn, arg);
	nl_cb_err(cb, NL_CB_CUSTOM, ds_smc_error, s);
	s->err = 0;
	err = nl_send_auto(s->sk, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_recvmsgs(s->sk, cb);
	nl_cb_put(cb);
	if (s->err)
		return s->err;
	return err < 0 ? -EIO : 0;
}

static void ds_smc_get_u64s(uint64_t *v, int max, struct nlattr *nest)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		int t = nla_type(a);

		if (t > 0 && t <= max && nla_len(a) == sizeof(uint64_t))
			v[t] = nla_get_u64(a);
	}
}

/* A histogram: SMC_NLA_STATS_PLOAD_8K (1) is bucket 0. */
static void ds_smc_get_sizes(uint64_t *v, struct nlattr *nest)
{
	uint64_t b[DS_SMC_NBUCKETS + 1] = { 0 };

	ds_smc_get_u64s(b, DS_SMC_NBUCKETS, nest);
	memcpy(v, b + 1, DS_SMC_NBUCKETS * sizeof(*v));
}

/* The kernel's "uint": 4 bytes, or 8 when the value needs them. */
static bool ds_smc_uint(const struct nlattr *a, uint64_t *v)
{
	if (nla_len(a) == sizeof(uint64_t))
		*v = nla_get_u64((struct nlattr *)a);
	else if (nla_len(a) == sizeof(uint32_t))
		*v = nla_get_u32((struct nlattr *)a);
	else
		return false;
	return true;
}

static void ds_smc_tech_parse(struct ds_smc_tech *t, struct nlattr *nest)
{
	struct nlattr *a;
	int rem;

	ds_smc_get_u64s(t->v, SMC_NLA_STATS_T_MAX, nest);
	nla_for_each_nested(a, nest, rem) {
		switch (nla_type(a)) {
		case SMC_NLA_STATS_T_TX_RMB_STATS:
			ds_smc_get_u64s(t->rmb[0], SMC_NLA_STATS_RMB_MAX, a);
			break;
		case SMC_NLA_STATS_T_RX_RMB_STATS:
			ds_smc_get_u64s(t->rmb[1], SMC_NLA_STATS_RMB_MAX, a);
			break;
		case SMC_NLA_STATS_T_TX_RMB_SIZE:
			ds_smc_get_sizes(t->sizes[DS_SMC_TX_BUFS], a);
			break;
		case SMC_NLA_STATS_T_RX_RMB_SIZE:
			ds_smc_get_sizes(t->sizes[DS_SMC_RX_BUFS], a);
			break;
		case SMC_NLA_STATS_T_TXPLOAD_SIZE:
			ds_smc_get_sizes(t->sizes[DS_SMC_TX_REQS], a);
			break;
		case SMC_NLA_STATS_T_RXPLOAD_SIZE:
			ds_smc_get_sizes(t->sizes[DS_SMC_RX_REQS], a);
			break;
		case DS_SMC_STATS_T_TX_RMB_USAGE:
			t->has_usage |= ds_smc_uint(a, &t->usage[0]);
			break;
		case DS_SMC_STATS_T_RX_RMB_USAGE:
			t->has_usage |= ds_smc_uint(a, &t->usage[1]);
			break;
		}
	}
}

int ds_smc_stats_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[SMC_GEN_MAX + 1], *st[SMC_NLA_STATS_MAX + 1];
	struct ds_smc_stats *s = arg;
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));

	if (ds_nla_parse(tb, SMC_GEN_MAX, genlmsg_attrdata(g, 0),
			 genlmsg_attrlen(g, 0), NULL) < 0 || !tb[SMC_GEN_STATS])
		return NL_SKIP;
	if (ds_nla_parse_nested(st, SMC_NLA_STATS_MAX, tb[SMC_GEN_STATS],
				NULL) < 0)
		return NL_SKIP;
	if (st[SMC_NLA_STATS_SMCR_TECH])
		ds_smc_tech_parse(&s->tech[0], st[SMC_NLA_STATS_SMCR_TECH]);
	if (st[SMC_NLA_STATS_SMCD_TECH])
		ds_smc_tech_parse(&s->tech[1], st[SMC_NLA_STATS_SMCD_TECH]);
	if (st[SMC_NLA_STATS_CLNT_HS_ERR_CNT])
		s->hs_err[0] = nla_get_u64(st[SMC_NLA_STATS_CLNT_HS_ERR_CNT]);
	if (st[SMC_NLA_STATS_SRV_HS_ERR_CNT])
		s->hs_err[1] = nla_get_u64(st[SMC_NLA_STATS_SRV_HS_ERR_CNT]);
	s->got = true;
	return NL_OK;
}

/* One reason of one side a message, with that side's total. */
static struct ds_smc_fback *ds_smc_fback_add(struct ds_smc_stats *s,
					     uint32_t code, bool server,
					     uint64_t count)
{
	struct ds_smc_fback *f;

	f = ds_grow(s->fb, &s->capfb, s->nfb, sizeof(*s->fb), 16);
	if (!f)
		return NULL;
	s->fb = f;
	f = &s->fb[s->nfb++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->server = server;
	f->count = count;
	return f;
}

int ds_smc_fback_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[SMC_GEN_MAX + 1];
	struct nlattr *fb[SMC_NLA_FBACK_STATS_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	struct ds_smc_stats *s = arg;
	bool srv;

	if (ds_nla_parse(tb, SMC_GEN_MAX, genlmsg_attrdata(g, 0),
			 genlmsg_attrlen(g, 0), NULL) < 0 ||
	    !tb[SMC_GEN_FBACK_STATS] ||
	    ds_nla_parse_nested(fb, SMC_NLA_FBACK_STATS_MAX,
				tb[SMC_GEN_FBACK_STATS], NULL) < 0 ||
	    !fb[SMC_NLA_FBACK_STATS_TYPE] || !fb[SMC_NLA_FBACK_STATS_RSN_CODE])
		return NL_SKIP;
	srv = nla_get_u8(fb[SMC_NLA_FBACK_STATS_TYPE]);
	/* both sides' totals come with the first reason of the dump */
	if (fb[SMC_NLA_FBACK_STATS_CLNT_CNT])
		s->fback[0] = nla_get_u64(fb[SMC_NLA_FBACK_STATS_CLNT_CNT]);
	if (fb[SMC_NLA_FBACK_STATS_SRV_CNT])
		s->fback[1] = nla_get_u64(fb[SMC_NLA_FBACK_STATS_SRV_CNT]);
	if (!ds_smc_fback_add(s, nla_get_u32(fb[SMC_NLA_FBACK_STATS_RSN_CODE]),
			      srv, fb[SMC_NLA_FBACK_STATS_RSN_CNT] ?
			      nla_get_u16(fb[SMC_NLA_FBACK_STATS_RSN_CNT]) : 0))
		return NL_STOP;
	return NL_OK;
}

int ds_smc_absent(void)
{
	fprintf(stderr, "dropscope: the kernel's SMC support (smc.ko) is not loaded: sudo modprobe smc\n");
	return DS_EFAIL;
}

/* One dump of smc.ko's family into one callback's argument. */
struct ds_smc_req {
	uint8_t cmd;
	int (*fn)(struct nl_msg *msg, void *arg);
	bool optional;	/* a kernel without the command: left out */
};

/*
 * The dumps of reqs, in order, on one socket: a DS_ status, with the
 * reason said on standard error (what: what was being read).
 */
static int ds_smc_dumps(const struct ds_smc_req *reqs, size_t n, void *arg,
			const char *what)
{
	struct ds_smc_nl s = { 0 };
	size_t i;
	int err;

	err = ds_smc_open(&s);
	if (err == -ENOENT)
		return ds_smc_absent();
	if (err) {
		fprintf(stderr, "dropscope: cannot open a generic netlink socket: %s\n",
			strerror(-err));
		return DS_EFAIL;
	}
	for (i = 0; !err && i < n; i++) {
		err = ds_smc_dump(&s, reqs[i].cmd, reqs[i].fn, arg);
		if (reqs[i].optional && (err == -EOPNOTSUPP || err == -EINVAL))
			err = 0;
	}
	nl_socket_free(s.sk);
	if (err) {
		fprintf(stderr, "dropscope: reading the kernel's SMC %s failed: %s\n",
			what, strerror(-err));
		return err == -EPERM ? DS_EPERM : DS_EFAIL;
	}
	return DS_OK;
}

/*
 * The kernel's SMC statistics and fallbacks, into st (whose fb the caller
 * frees); a DS_ status, with the reason said on standard error.
 */
int ds_smc_read(struct ds_smc_stats *st)
{
	static const struct ds_smc_req reqs[] = {
		{ SMC_NETLINK_GET_STATS, ds_smc_stats_cb, false },
		{ SMC_NETLINK_GET_FBACK_STATS, ds_smc_fback_cb, false },
	};
	int err;

	memset(st, 0, sizeof(*st));
	err = ds_smc_dumps(reqs, DS_N(reqs), st, "statistics");
	if (err) {
		free(st->fb);
		st->fb = NULL;
	}
	return err;
}

/* ---- link groups and devices (smcr linkgroup, smcr device) ------------- */

/* A string attribute, cut to the buffer; the kernel pads some with blanks. */
static void ds_smc_str(char *buf, size_t len, const struct nlattr *a)
{
	size_t n;

	buf[0] = '\0';
	if (!a)
		return;
	nla_strlcpy(buf, (struct nlattr *)a, len);
	n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = '\0';
}

/* SMC_NLA_LGR_V2_COMMON: version (type 0), release, OS, EID, peer host. */
static void ds_smc_v2_parse(struct ds_smc_lgr *l, struct nlattr *nest)
{
	struct nlattr *a;
	int rem;

	l->v2 = true;
	l->version = 2;
	nla_for_each_nested(a, nest, rem) {
		bool u8 = nla_len(a) >= 1;

		switch (nla_type(a)) {
		case SMC_NLA_LGR_V2_VER:
			if (u8)
				l->version = nla_get_u8(a);
			break;
		case SMC_NLA_LGR_V2_REL:
			if (u8)
				l->release = nla_get_u8(a);
			break;
		case SMC_NLA_LGR_V2_OS:
			if (u8)
				l->os = nla_get_u8(a);
			break;
		case SMC_NLA_LGR_V2_NEG_EID:
			if (u8)
				ds_smc_str(l->eid, sizeof(l->eid), a);
			break;
		case SMC_NLA_LGR_V2_PEER_HOST:
			if (u8)
				ds_smc_str(l->peer_host, sizeof(l->peer_host), a);
			break;
		}
	}
}

/* SMC_NLA_LGR_R_V2: direct, and on 6.12 the most connections and links */
static void ds_smc_r_v2_parse(struct ds_smc_lgr *l, struct nlattr *nest)
{
	uint64_t v[4] = { 0 };
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) > 0 && nla_type(a) < 4 && nla_len(a) >= 1) {
			v[nla_type(a)] = nla_get_u8(a);
			l->has_direct |= nla_type(a) == SMC_NLA_LGR_R_V2_DIRECT;
		}
	}
	l->direct = v[1];
	l->max_conns = v[2];
	l->max_links = v[3];
}

static const struct nla_policy ds_smc_lgr_r_pol[DS_SMC_LGR_R_MAX + 1] = {
	[SMC_NLA_LGR_R_ID] = { .type = NLA_U32 },
	[SMC_NLA_LGR_R_ROLE] = { .type = NLA_U8 },
	[SMC_NLA_LGR_R_TYPE] = { .type = NLA_U8 },
	[SMC_NLA_LGR_R_PNETID] = { .type = NLA_STRING },
	[SMC_NLA_LGR_R_VLAN_ID] = { .type = NLA_U8 },
	[SMC_NLA_LGR_R_CONNS_NUM] = { .type = NLA_U32 },
	[SMC_NLA_LGR_R_BUF_TYPE] = { .type = NLA_U8 },
	[DS_SMC_LGR_R_SNDBUF_ALLOC] = { .type = NLA_U32 },
	[DS_SMC_LGR_R_RMB_ALLOC] = { .type = NLA_U32 },
};

static const struct nla_policy ds_smc_lgr_d_pol[DS_SMC_LGR_D_MAX + 1] = {
	[SMC_NLA_LGR_D_ID] = { .type = NLA_U32 },
	[SMC_NLA_LGR_D_GID] = { .type = NLA_U64 },
	[SMC_NLA_LGR_D_PEER_GID] = { .type = NLA_U64 },
	[SMC_NLA_LGR_D_VLAN_ID] = { .type = NLA_U8 },
	[SMC_NLA_LGR_D_CONNS_NUM] = { .type = NLA_U32 },
	[SMC_NLA_LGR_D_PNETID] = { .type = NLA_STRING },
	/* a u16 in the headers, a u32 on the wire */
	[SMC_NLA_LGR_D_CHID] = { .type = NLA_U16 },
	[DS_SMC_LGR_D_SNDBUF_ALLOC] = { .type = NLA_U32 },
	[DS_SMC_LGR_D_DMB_ALLOC] = { .type = NLA_U32 },
};

static const struct nla_policy ds_smc_link_pol[SMC_NLA_LINK_MAX + 1] = {
	[SMC_NLA_LINK_ID] = { .type = NLA_U8 },
	[SMC_NLA_LINK_IB_DEV] = { .type = NLA_STRING },
	[SMC_NLA_LINK_IB_PORT] = { .type = NLA_U8 },
	[SMC_NLA_LINK_GID] = { .type = NLA_STRING },
	[SMC_NLA_LINK_PEER_GID] = { .type = NLA_STRING },
	[SMC_NLA_LINK_CONN_CNT] = { .type = NLA_U32 },
	[SMC_NLA_LINK_NET_DEV] = { .type = NLA_U32 },
	[SMC_NLA_LINK_UID] = { .type = NLA_U32 },
	[SMC_NLA_LINK_PEER_UID] = { .type = NLA_U32 },
	[SMC_NLA_LINK_STATE] = { .type = NLA_U32 },
};

#define DS_SMC_GET(tb, i, get, dst)					\
	do {								\
		if ((tb)[i])						\
			(dst) = get((tb)[i]);				\
	} while (0)

static struct ds_smc_lgr *ds_smc_lgr_new(struct ds_smc_lgrs *o)
{
	struct ds_smc_lgr *l;

	l = ds_grow(o->v, &o->cap, o->n, sizeof(*o->v), 16);
	if (!l)
		return NULL;
	o->v = l;
	l = &o->v[o->n++];
	memset(l, 0, sizeof(*l));
	return l;
}

static int ds_smc_lgr_r(struct ds_smc_lgrs *o, struct nlattr *nest)
{
	struct nlattr *tb[DS_SMC_LGR_R_MAX + 1];
	struct ds_smc_lgr *l;

	if (ds_nla_parse_nested(tb, DS_SMC_LGR_R_MAX, nest, ds_smc_lgr_r_pol) ||
	    !tb[SMC_NLA_LGR_R_ID])
		return NL_SKIP;
	l = ds_smc_lgr_new(o);
	if (!l)
		return NL_STOP;
	l->version = 1;
	l->id = nla_get_u32(tb[SMC_NLA_LGR_R_ID]);
	DS_SMC_GET(tb, SMC_NLA_LGR_R_CONNS_NUM, nla_get_u32, l->conns);
	DS_SMC_GET(tb, SMC_NLA_LGR_R_ROLE, nla_get_u8, l->role);
	DS_SMC_GET(tb, SMC_NLA_LGR_R_TYPE, nla_get_u8, l->type);
	DS_SMC_GET(tb, SMC_NLA_LGR_R_VLAN_ID, nla_get_u8, l->vlan);
	DS_SMC_GET(tb, SMC_NLA_LGR_R_BUF_TYPE, nla_get_u8, l->buf_type);
	ds_smc_str(l->pnetid, sizeof(l->pnetid), tb[SMC_NLA_LGR_R_PNETID]);
	if (tb[DS_SMC_LGR_R_SNDBUF_ALLOC] && tb[DS_SMC_LGR_R_RMB_ALLOC])
		l->has_alloc = ds_smc_uint(tb[DS_SMC_LGR_R_SNDBUF_ALLOC],
					   &l->sndbuf_alloc) &&
			       ds_smc_uint(tb[DS_SMC_LGR_R_RMB_ALLOC],
					   &l->rmb_alloc);
	if (tb[SMC_NLA_LGR_R_V2_COMMON])
		ds_smc_v2_parse(l, tb[SMC_NLA_LGR_R_V2_COMMON]);
	if (tb[SMC_NLA_LGR_R_V2])
		ds_smc_r_v2_parse(l, tb[SMC_NLA_LGR_R_V2]);
	return NL_OK;
}

/* A link: of the link group of the message before it (the kernel sends
 * a group, then its links). */
static int ds_smc_link(struct ds_smc_lgrs *o, struct nlattr *nest)
{
	struct nlattr *tb[SMC_NLA_LINK_MAX + 1];
	struct ds_smc_lgr *l = o->n ? &o->v[o->n - 1] : NULL;
	struct ds_smc_link *k;

	if (!l || l->smcd ||
	    ds_nla_parse_nested(tb, SMC_NLA_LINK_MAX, nest, ds_smc_link_pol) ||
	    !tb[SMC_NLA_LINK_ID])
		return NL_SKIP;
	if (l->nlinks == DS_N(l->links)) {
		l->links_dropped++;
		return NL_SKIP;
	}
	k = &l->links[l->nlinks++];
	memset(k, 0, sizeof(*k));
	k->id = nla_get_u8(tb[SMC_NLA_LINK_ID]);
	DS_SMC_GET(tb, SMC_NLA_LINK_IB_PORT, nla_get_u8, k->ibport);
	DS_SMC_GET(tb, SMC_NLA_LINK_STATE, nla_get_u32, k->state);
	DS_SMC_GET(tb, SMC_NLA_LINK_CONN_CNT, nla_get_u32, k->conns);
	DS_SMC_GET(tb, SMC_NLA_LINK_NET_DEV, nla_get_u32, k->ifindex);
	/* the kernel copies them in network order */
	if (tb[SMC_NLA_LINK_UID])
		k->uid = ntohl(nla_get_u32(tb[SMC_NLA_LINK_UID]));
	if (tb[SMC_NLA_LINK_PEER_UID])
		k->peer_uid = ntohl(nla_get_u32(tb[SMC_NLA_LINK_PEER_UID]));
	ds_smc_str(k->ibdev, sizeof(k->ibdev), tb[SMC_NLA_LINK_IB_DEV]);
	ds_smc_str(k->gid, sizeof(k->gid), tb[SMC_NLA_LINK_GID]);
	ds_smc_str(k->peer_gid, sizeof(k->peer_gid), tb[SMC_NLA_LINK_PEER_GID]);
	return NL_OK;
}

static int ds_smc_lgr_d(struct ds_smc_lgrs *o, struct nlattr *nest)
{
	struct nlattr *tb[DS_SMC_LGR_D_MAX + 1];
	struct ds_smc_lgr *l;

	if (ds_nla_parse_nested(tb, DS_SMC_LGR_D_MAX, nest, ds_smc_lgr_d_pol) ||
	    !tb[SMC_NLA_LGR_D_ID])
		return NL_SKIP;
	l = ds_smc_lgr_new(o);
	if (!l)
		return NL_STOP;
	l->smcd = true;
	l->version = 1;
	l->id = nla_get_u32(tb[SMC_NLA_LGR_D_ID]);
	DS_SMC_GET(tb, SMC_NLA_LGR_D_CONNS_NUM, nla_get_u32, l->conns);
	DS_SMC_GET(tb, SMC_NLA_LGR_D_VLAN_ID, nla_get_u8, l->vlan);
	DS_SMC_GET(tb, SMC_NLA_LGR_D_GID, nla_get_u64, l->gid);
	DS_SMC_GET(tb, SMC_NLA_LGR_D_PEER_GID, nla_get_u64, l->peer_gid);
	if (tb[SMC_NLA_LGR_D_CHID])
		l->chid = nla_len(tb[SMC_NLA_LGR_D_CHID]) >= 4 ?
			  nla_get_u32(tb[SMC_NLA_LGR_D_CHID]) :
			  nla_get_u16(tb[SMC_NLA_LGR_D_CHID]);
	ds_smc_str(l->pnetid, sizeof(l->pnetid), tb[SMC_NLA_LGR_D_PNETID]);
	if (tb[DS_SMC_LGR_D_SNDBUF_ALLOC] && tb[DS_SMC_LGR_D_DMB_ALLOC])
		l->has_alloc = ds_smc_uint(tb[DS_SMC_LGR_D_SNDBUF_ALLOC],
					   &l->sndbuf_alloc) &&
			       ds_smc_uint(tb[DS_SMC_LGR_D_DMB_ALLOC],
					   &l->rmb_alloc);
	if (tb[SMC_NLA_LGR_D_V2_COMMON])
		ds_smc_v2_parse(l, tb[SMC_NLA_LGR_D_V2_COMMON]);
	return NL_OK;
}

int ds_smc_lgr_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[SMC_GEN_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));

	if (ds_nla_parse(tb, SMC_GEN_MAX, genlmsg_attrdata(g, 0),
			 genlmsg_attrlen(g, 0), NULL) < 0)
		return NL_SKIP;
	if (tb[SMC_GEN_LGR_SMCR])
		return ds_smc_lgr_r(arg, tb[SMC_GEN_LGR_SMCR]);
	if (tb[SMC_GEN_LINK_SMCR])
		return ds_smc_link(arg, tb[SMC_GEN_LINK_SMCR]);
	if (tb[SMC_GEN_LGR_SMCD])
		return ds_smc_lgr_d(arg, tb[SMC_GEN_LGR_SMCD]);
	return NL_SKIP;
}

int ds_smc_lgrs_read(struct ds_smc_lgrs *out)
{
	/* GET_LINK_SMCR sends each SMC-R group, then its links */
	static const struct ds_smc_req reqs[] = {
		{ SMC_NETLINK_GET_LINK_SMCR, ds_smc_lgr_cb, false },
		{ SMC_NETLINK_GET_LGR_SMCD, ds_smc_lgr_cb, false },
	};
	int err;

	memset(out, 0, sizeof(*out));
	err = ds_smc_dumps(reqs, DS_N(reqs), out, "link groups");
	if (err) {
		free(out->v);
		out->v = NULL;
		out->n = 0;
	}
	return err;
}

static const struct nla_policy ds_smc_port_pol[SMC_NLA_DEV_PORT_MAX + 1] = {
	[SMC_NLA_DEV_PORT_PNET_USR] = { .type = NLA_U8 },
	[SMC_NLA_DEV_PORT_PNETID] = { .type = NLA_STRING },
	[SMC_NLA_DEV_PORT_NETDEV] = { .type = NLA_U32 },
	[SMC_NLA_DEV_PORT_STATE] = { .type = NLA_U8 },
	[SMC_NLA_DEV_PORT_VALID] = { .type = NLA_U8 },
	[SMC_NLA_DEV_PORT_LNK_CNT] = { .type = NLA_U32 },
};

static const struct nla_policy ds_smc_dev_pol[SMC_NLA_DEV_MAX + 1] = {
	[SMC_NLA_DEV_USE_CNT] = { .type = NLA_U32 },
	[SMC_NLA_DEV_IS_CRIT] = { .type = NLA_U8 },
	[SMC_NLA_DEV_PCI_FID] = { .type = NLA_U32 },
	[SMC_NLA_DEV_PCI_CHID] = { .type = NLA_U16 },
	[SMC_NLA_DEV_PCI_VENDOR] = { .type = NLA_U16 },
	[SMC_NLA_DEV_PCI_DEVICE] = { .type = NLA_U16 },
	[SMC_NLA_DEV_PCI_ID] = { .type = NLA_STRING },
	[SMC_NLA_DEV_PORT] = { .type = NLA_NESTED },
	[SMC_NLA_DEV_PORT2] = { .type = NLA_NESTED },
	[SMC_NLA_DEV_IB_NAME] = { .type = NLA_STRING },
};

static bool ds_smc_port(struct ds_smc_port *p, struct nlattr *nest)
{
	struct nlattr *tb[SMC_NLA_DEV_PORT_MAX + 1];

	if (!nest || ds_nla_parse_nested(tb, SMC_NLA_DEV_PORT_MAX, nest,
					 ds_smc_port_pol))
		return false;
	/* SMC-R sends only valid ports; SMC-D's one has no VALID */
	p->present = !tb[SMC_NLA_DEV_PORT_VALID] ||
		     nla_get_u8(tb[SMC_NLA_DEV_PORT_VALID]);
	DS_SMC_GET(tb, SMC_NLA_DEV_PORT_PNET_USR, nla_get_u8, p->pnet_user);
	DS_SMC_GET(tb, SMC_NLA_DEV_PORT_STATE, nla_get_u8, p->active);
	DS_SMC_GET(tb, SMC_NLA_DEV_PORT_NETDEV, nla_get_u32, p->ifindex);
	DS_SMC_GET(tb, SMC_NLA_DEV_PORT_LNK_CNT, nla_get_u32, p->links);
	ds_smc_str(p->pnetid, sizeof(p->pnetid), tb[SMC_NLA_DEV_PORT_PNETID]);
	return true;
}

int ds_smc_device_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[SMC_GEN_MAX + 1], *d[SMC_NLA_DEV_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	struct ds_smc_devices *o = arg;
	struct ds_smc_device *v;
	bool smcd;

	if (ds_nla_parse(tb, SMC_GEN_MAX, genlmsg_attrdata(g, 0),
			 genlmsg_attrlen(g, 0), NULL) < 0)
		return NL_SKIP;
	smcd = !tb[SMC_GEN_DEV_SMCR];
	if ((!tb[SMC_GEN_DEV_SMCR] && !tb[SMC_GEN_DEV_SMCD]) ||
	    ds_nla_parse_nested(d, SMC_NLA_DEV_MAX,
				tb[smcd ? SMC_GEN_DEV_SMCD : SMC_GEN_DEV_SMCR],
				ds_smc_dev_pol) ||
	    (!smcd && !d[SMC_NLA_DEV_IB_NAME]))
		return NL_SKIP;
	v = ds_grow(o->v, &o->cap, o->n, sizeof(*o->v), 8);
	if (!v)
		return NL_STOP;
	o->v = v;
	v = &o->v[o->n++];
	memset(v, 0, sizeof(*v));
	v->smcd = smcd;
	DS_SMC_GET(d, SMC_NLA_DEV_IS_CRIT, nla_get_u8, v->crit);
	DS_SMC_GET(d, SMC_NLA_DEV_USE_CNT, nla_get_u32, v->use_cnt);
	DS_SMC_GET(d, SMC_NLA_DEV_PCI_FID, nla_get_u32, v->fid);
	DS_SMC_GET(d, SMC_NLA_DEV_PCI_CHID, nla_get_u16, v->chid);
	DS_SMC_GET(d, SMC_NLA_DEV_PCI_VENDOR, nla_get_u16, v->vendor);
	DS_SMC_GET(d, SMC_NLA_DEV_PCI_DEVICE, nla_get_u16, v->device);
	v->has_pci = d[SMC_NLA_DEV_PCI_ID];
	ds_smc_str(v->pci_id, sizeof(v->pci_id), d[SMC_NLA_DEV_PCI_ID]);
	ds_smc_str(v->name, sizeof(v->name), d[SMC_NLA_DEV_IB_NAME]);
	ds_smc_port(&v->port[0], d[SMC_NLA_DEV_PORT]);
	ds_smc_port(&v->port[1], d[SMC_NLA_DEV_PORT2]);
	return NL_OK;
}

int ds_smc_devices_read(struct ds_smc_devices *out)
{
	static const struct ds_smc_req reqs[] = {
		{ SMC_NETLINK_GET_DEV_SMCR, ds_smc_device_cb, false },
		{ SMC_NETLINK_GET_DEV_SMCD, ds_smc_device_cb, false },
	};
	int err;

	memset(out, 0, sizeof(*out));
	err = ds_smc_dumps(reqs, DS_N(reqs), out, "devices");
	if (err) {
		free(out->v);
		out->v = NULL;
		out->n = 0;
	}
	return err;
}

/*
 * smc.ko itself: SYS_INFO, and the dumps of its EID tables and handshake
 * limitation. Their attributes share numbers: the command tells them
 * apart.
 */
int ds_smc_sys_cb(struct nl_msg *msg, void *arg)
{
	static const struct nla_policy pol[SMC_NLA_SYS_MAX + 1] = {
		[SMC_NLA_SYS_VER] = { .type = NLA_U8 },
		[SMC_NLA_SYS_REL] = { .type = NLA_U8 },
		[SMC_NLA_SYS_IS_ISM_V2] = { .type = NLA_U8 },
		[SMC_NLA_SYS_IS_SMCR_V2] = { .type = NLA_U8 },
		[SMC_NLA_SYS_LOCAL_HOST] = { .type = NLA_STRING },
		[SMC_NLA_SYS_SEID] = { .type = NLA_STRING },
	};
	struct nlattr *tb[SMC_NLA_SYS_MAX + 1], *t[SMC_NLA_SYS_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	struct ds_smc_sys *o = arg;
	struct nlattr *a;

	/* every one of these dumps has attributes 1 and 2 at most on top */
	if (ds_nla_parse(tb, SMC_NLA_SYS_MAX, genlmsg_attrdata(g, 0),
			 genlmsg_attrlen(g, 0), NULL) < 0)
		return NL_SKIP;
	switch (g->cmd) {
	case SMC_NETLINK_GET_SYS_INFO:
		if (!tb[SMC_GEN_SYS_INFO] ||
		    ds_nla_parse_nested(t, SMC_NLA_SYS_MAX, tb[SMC_GEN_SYS_INFO],
					pol) || !t[SMC_NLA_SYS_VER])
			return NL_SKIP;
		o->got = true;
		DS_SMC_GET(t, SMC_NLA_SYS_VER, nla_get_u8, o->version);
		DS_SMC_GET(t, SMC_NLA_SYS_REL, nla_get_u8, o->release);
		DS_SMC_GET(t, SMC_NLA_SYS_IS_ISM_V2, nla_get_u8, o->ism_v2);
		DS_SMC_GET(t, SMC_NLA_SYS_IS_SMCR_V2, nla_get_u8, o->smcr_v2);
		ds_smc_str(o->host, sizeof(o->host), t[SMC_NLA_SYS_LOCAL_HOST]);
		break;
	case SMC_NETLINK_DUMP_UEID:
		a = tb[SMC_NLA_EID_TABLE_ENTRY];
		if (!a || nla_len(a) < 2 || o->nueids == DS_N(o->ueids))
			return NL_SKIP;
		ds_smc_str(o->ueids[o->nueids], sizeof(o->ueids[0]),
			   tb[SMC_NLA_EID_TABLE_ENTRY]);
		o->nueids++;
		break;
	case SMC_NETLINK_DUMP_SEID:
		/* an empty message without an ISM v2 device */
		a = tb[SMC_NLA_SEID_ENTRY];
		if (!a || nla_len(a) < 2)
			return NL_OK;
		o->has_seid = true;
		ds_smc_str(o->seid, sizeof(o->seid), a);
		a = tb[SMC_NLA_SEID_ENABLED];
		if (a && nla_len(a) >= 1)
			o->seid_enabled = nla_get_u8(a);
		break;
	case SMC_NETLINK_DUMP_HS_LIMITATION:
		a = tb[SMC_NLA_HS_LIMITATION_ENABLED];
		if (!a || nla_len(a) < 1)
			return NL_SKIP;
		o->has_hs_limit = true;
		o->hs_limit = nla_get_u8(a);
		break;
	default:
		return NL_SKIP;
	}
	return NL_OK;
}

int ds_smc_sys_read(struct ds_smc_sys *out)
{
	static const struct ds_smc_req reqs[] = {
		/* the EID tables came in 5.17, the limitation in 6.0 */
		{ SMC_NETLINK_GET_SYS_INFO, ds_smc_sys_cb, false },
		{ SMC_NETLINK_DUMP_UEID, ds_smc_sys_cb, true },
		{ SMC_NETLINK_DUMP_SEID, ds_smc_sys_cb, true },
		{ SMC_NETLINK_DUMP_HS_LIMITATION, ds_smc_sys_cb, true },
	};

	memset(out, 0, sizeof(*out));
	return ds_smc_dumps(reqs, DS_N(reqs), out, "system information");
}

void ds_smc_pools_sum(struct ds_smc_pools *m, const struct ds_smc_lgrs *g)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->n = g->n;
	for (i = 0; i < g->n; i++) {
		m->conns += g->v[i].conns;
		m->sndbuf += g->v[i].sndbuf_alloc;
		m->rmb += g->v[i].rmb_alloc;
		m->alloc |= g->v[i].has_alloc;
	}
}

bool ds_smc_in_use(const struct ds_smc_stats *st, uint64_t *bytes)
{
	const struct ds_smc_tech *t = st->tech;

	*bytes = t[0].usage[0] + t[0].usage[1] + t[1].usage[0] + t[1].usage[1];
	return t[0].has_usage || t[1].has_usage;
}

/* As smcr linkgroup names them (net/smc/smc_core.h's enums). */
const char *ds_smc_lgr_role_name(uint8_t role)
{
	return role ? "SERV" : "CLNT";
}

const char *ds_smc_lgr_type_name(uint8_t type)
{
	static const char *const n[] = { "NONE", "SINGLE", "SYM", "ASYMP",
					 "ASYML" };

	return type < DS_N(n) ? n[type] : "UNKNOWN";
}

const char *ds_smc_link_state_name(uint32_t state)
{
	static const char *const n[] = { "UNUSED", "INACTIVE", "ACTIVATING",
					 "ACTIVE" };

	return state < DS_N(n) ? n[state] : "UNKNOWN";
}

/* A DROPSCOPE_A_SMC_FALLBACK or _OWNER nest into s; delta: its delta. */
static int ds_smc_fb_parse(struct nlattr *at, struct ds_smc_stats *s,
		    uint64_t *delta)
{
	struct nlattr *f[DROPSCOPE_SMC_FB_A_MAX + 1];
	struct ds_smc_fback *e;

	if (nla_parse_nested(f, DROPSCOPE_SMC_FB_A_MAX, at, NULL) < 0 ||
	    !f[DROPSCOPE_SMC_FB_A_CODE] || !f[DROPSCOPE_SMC_FB_A_SIDE] ||
	    !f[DROPSCOPE_SMC_FB_A_TOTAL] || (delta && !f[DROPSCOPE_SMC_FB_A_DELTA]))
		return -EINVAL;
	e = ds_smc_fback_add(s, nla_get_u32(f[DROPSCOPE_SMC_FB_A_CODE]),
			     nla_get_u8(f[DROPSCOPE_SMC_FB_A_SIDE]) ==
			     DROPSCOPE_SMC_SERVER,
			     nla_get_u64(f[DROPSCOPE_SMC_FB_A_TOTAL]));
	if (!e)
		return -ENOMEM;
	e->own = true;
	if (f[DROPSCOPE_SMC_FB_A_MASKED])
		e->masked = nla_get_u64(f[DROPSCOPE_SMC_FB_A_MASKED]);
	if (f[DROPSCOPE_SMC_FB_A_PID])
		e->pid = nla_get_u32(f[DROPSCOPE_SMC_FB_A_PID]);
	if (f[DROPSCOPE_SMC_FB_A_COMM])
		snprintf(e->comm, sizeof(e->comm), "%s",
			 nla_get_string(f[DROPSCOPE_SMC_FB_A_COMM]));
	if (delta)
		*delta = nla_get_u64(f[DROPSCOPE_SMC_FB_A_DELTA]);
	return 0;
}

/* A DROPSCOPE_A_SMC_DEV nest into o; the module sends at most 16. */
static int ds_smc_dev_parse(struct nlattr *at, struct ds_smc_own *o)
{
	/* in the order of struct ds_smc_dev's v */
	static const int attrs[] = {
		DROPSCOPE_SMC_DEV_A_TX_BYTES, DROPSCOPE_SMC_DEV_A_TX_EVENTS,
		DROPSCOPE_SMC_DEV_A_RX_BYTES, DROPSCOPE_SMC_DEV_A_RX_EVENTS,
	};
	struct nlattr *f[DROPSCOPE_SMC_DEV_A_MAX + 1];
	struct ds_smc_dev *d;
	size_t i;

	if (nla_parse_nested(f, DROPSCOPE_SMC_DEV_A_MAX, at, NULL) < 0 ||
	    !f[DROPSCOPE_SMC_DEV_A_NAME] || o->ndevs == DS_N(o->devs))
		return -EINVAL;
	d = &o->devs[o->ndevs++];
	nla_strlcpy(d->name, f[DROPSCOPE_SMC_DEV_A_NAME], sizeof(d->name));
	for (i = 0; i < DS_N(attrs); i++)
		if (f[attrs[i]])
			d->v[i] = nla_get_u64(f[attrs[i]]);
	return 0;
}

int ds_smc_own_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			 void *arg)
{
	struct nlattr *t[DROPSCOPE_SMC_A_MAX + 1];
	struct ds_smc_own *o = arg;
	struct nlattr *at;
	size_t i;
	int rem, err;

	if (!tb[DROPSCOPE_A_SMC] ||
	    nla_parse_nested(t, DROPSCOPE_SMC_A_MAX, tb[DROPSCOPE_A_SMC],
			     NULL) < 0)
		return -EINVAL;
	if (t[DROPSCOPE_SMC_A_HOOKED])
		o->hooked = nla_get_u8(t[DROPSCOPE_SMC_A_HOOKED]);
	if (t[DROPSCOPE_SMC_A_LAYOUT])
		o->layout = nla_get_u8(t[DROPSCOPE_SMC_A_LAYOUT]);
	/* the counters: every u64 of the nest */
	for (i = 1; i < DS_N(t); i++)
		if (t[i] && nla_len(t[i]) == sizeof(uint64_t))
			o->v[i] = nla_get_u64(t[i]);
	nla_for_each_attr(at, attrs, len, rem) {
		if (nla_type(at) == DROPSCOPE_A_SMC_FALLBACK)
			err = ds_smc_fb_parse(at, &o->fbs, NULL);
		else if (nla_type(at) == DROPSCOPE_A_SMC_OWNER)
			err = ds_smc_fb_parse(at, &o->owners, NULL);
		else if (nla_type(at) == DROPSCOPE_A_SMC_DEV)
			err = ds_smc_dev_parse(at, o);
		else
			continue;
		if (err)
			return err;
	}
	return 0;
}

/* The SMC socket states of net/smc/smc.h. */
const char *ds_smc_state_name(unsigned int st)
{
	switch (st) {
	case 1: return "ACTIVE";
	case 2: return "INIT";
	case 7: return "CLOSED";
	case 10: return "LISTEN";
	case 20: return "PEERCLW1";
	case 21: return "PEERCLW2";
	case 22: return "APPCLW1";
	case 23: return "APPCLW2";
	case 24: return "APPFINCLW";
	case 25: return "PEERFINCLW";
	case 26: return "PEERABORTW";
	case 27: return "PROCESSABORT";
	default: return "UNKNOWN";
	}
}

/*
 * The message carries the addresses of the socket's TCP (CLC) socket but
 * not their family: an IPv4 address fills the first word alone.
 */
static void ds_smc_addr(const __be32 *a, const __be32 *b, uint16_t port,
			char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN];
	bool v4 = !(a[1] | a[2] | a[3] | b[1] | b[2] | b[3]);

	inet_ntop(v4 ? AF_INET : AF_INET6, a, s, sizeof(s));
	snprintf(buf, len, v4 ? "%s:%u" : "[%s]:%u", s, port);
}

/* Text of a fixed-size field that may lack its NUL. */
static void ds_smc_text(char *buf, size_t len, const uint8_t *v, size_t n)
{
	size_t k = strnlen((const char *)v, n);

	if (k >= len)
		k = len - 1;
	memcpy(buf, v, k);
	buf[k] = '\0';
}

/* One attribute of a socket: what smcss -d, -R and -D print. A payload
 * shorter than its struct is ignored; a longer one (6.12's DMB info) is
 * read as far as the struct goes. */
static void ds_smc_diag_attr(struct ds_smc_sock *s, const struct rtattr *a)
{
	size_t n = RTA_PAYLOAD(a);

	switch (a->rta_type) {
	case SMC_DIAG_FALLBACK: {
		struct smc_diag_fallback fb;

		if (n < sizeof(fb))
			break;
		memcpy(&fb, RTA_DATA(a), sizeof(fb));
		s->reason = fb.reason;
		s->peer_reason = fb.peer_diagnosis;
		s->has_reason = true;
		break;
	}
	case SMC_DIAG_SHUTDOWN:
		if (n >= 1)
			s->shutdown = *(const uint8_t *)RTA_DATA(a);
		break;
	case SMC_DIAG_CONNINFO: {
		struct smc_diag_conninfo c;

		if (n < sizeof(c))
			break;
		memcpy(&c, RTA_DATA(a), sizeof(c));
		s->has_conn = true;
		s->token = c.token;
		s->sndbuf = c.sndbuf_size;
		s->rmb = c.rmbe_size;
		s->peer_rmb = c.peer_rmbe_size;
		break;
	}
	case SMC_DIAG_LGRINFO: {
		struct smc_diag_lgrinfo l;

		if (n < sizeof(l))
			break;
		memcpy(&l, RTA_DATA(a), sizeof(l));
		s->has_link = true;
		s->role = l.role;
		s->link_id = l.lnk[0].link_id;
		s->ibport = l.lnk[0].ibport;
		ds_smc_text(s->ibdev, sizeof(s->ibdev), l.lnk[0].ibname,
			    sizeof(l.lnk[0].ibname));
		ds_smc_text(s->gid, sizeof(s->gid), l.lnk[0].gid,
			    sizeof(l.lnk[0].gid));
		ds_smc_text(s->peer_gid, sizeof(s->peer_gid),
			    l.lnk[0].peer_gid, sizeof(l.lnk[0].peer_gid));
		break;
	}
	case SMC_DIAG_DMBINFO: {
		struct smcd_diag_dmbinfo d;

		if (n < sizeof(d))
			break;
		memcpy(&d, RTA_DATA(a), sizeof(d));
		s->has_dmb = true;
		s->dmb_lgr = d.linkid;
		s->dmb_gid = d.my_gid;
		s->dmb_peer_gid = d.peer_gid;
		s->dmb_token = d.token;
		s->dmb_peer_token = d.peer_token;
		break;
	}
	}
}

int ds_smc_diag_msg(struct nlmsghdr *h, struct ds_smc_socks *out)
{
	struct smc_diag_msg *r = NLMSG_DATA(h);
	struct rtattr *a;
	struct ds_smc_sock *s;
	int len;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*r)))
		return -EINVAL;
	s = ds_grow(out->v, &out->cap, out->n, sizeof(*out->v), 64);
	if (!s)
		return -ENOMEM;
	out->v = s;
	s = &out->v[out->n++];
	memset(s, 0, sizeof(*s));
	s->state = r->diag_state;
	s->mode = r->diag_mode;
	s->uid = r->diag_uid;
	s->inode = r->diag_inode;
	s->lport = ntohs(r->id.idiag_sport);
	s->rport = ntohs(r->id.idiag_dport);
	ds_smc_addr(r->id.idiag_src, r->id.idiag_dst, s->lport, s->laddr,
		    sizeof(s->laddr));
	ds_smc_addr(r->id.idiag_dst, r->id.idiag_src, s->rport, s->raddr,
		    sizeof(s->raddr));
	len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*r));
	for (a = (struct rtattr *)(r + 1); RTA_OK(a, len); a = RTA_NEXT(a, len))
		ds_smc_diag_attr(s, a);
	return 0;
}

/* Every SMC socket, IPv4 and IPv6, from SMC sock_diag (smc_diag.ko). */
int ds_smc_diag_dump(struct ds_smc_socks *out)
{
	struct {
		struct nlmsghdr h;
		struct smc_diag_req r;
	} req = {
		.h = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1,
		},
		.r = {
			.diag_family = AF_SMC,
			.diag_ext = 1 << (SMC_DIAG_CONNINFO - 1) |
				    1 << (SMC_DIAG_LGRINFO - 1) |
				    1 << (SMC_DIAG_DMBINFO - 1) |
				    1 << (SMC_DIAG_FALLBACK - 1),
			.id.idiag_cookie = { INET_DIAG_NOCOOKIE,
					     INET_DIAG_NOCOOKIE },
		},
	};
	static char buf[32768];
	struct sockaddr_nl nladdr = { .nl_family = AF_NETLINK };
	int fd, err = 0;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nladdr,
		   sizeof(nladdr)) < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		struct nlmsghdr *h;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (n == 0)
			goto out;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				goto out;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				err = e->error ? e->error : -EIO;
				goto out;
			}
			err = ds_smc_diag_msg(h, out);
			if (err)
				goto out;
		}
	}
out:
	close(fd);
	return err;
}

/*
 * The process of each socket, from /proc/PID/fd (as ss -p finds it): the
 * lowest PID holding the socket's inode.
 */
void ds_smc_owners(struct ds_smc_socks *s)
{
	char path[300], link[64], *end;
	struct dirent *p, *f;
	DIR *proc, *fds;
	unsigned long long ino;
	unsigned long pid;
	size_t i;
	ssize_t n;
	FILE *c;

	proc = opendir("/proc");
	if (!proc)
		return;
	while ((p = readdir(proc))) {
		pid = strtoul(p->d_name, &end, 10);
		if (*end || !pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%lu/fd", pid);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%lu/fd/%s", pid,
				 f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (sscanf(link, "socket:[%llu]", &ino) != 1)
				continue;
			for (i = 0; i < s->n; i++) {
				if (s->v[i].inode != ino ||
				    (s->v[i].pid && s->v[i].pid < pid))
					continue;
				s->v[i].pid = pid;
				snprintf(path, sizeof(path), "/proc/%lu/comm",
					 pid);
				c = fopen(path, "re");
				if (c) {
					if (fgets(s->v[i].comm,
						  sizeof(s->v[i].comm), c))
						s->v[i].comm[strcspn(s->v[i].comm, "\n")] = '\0';
					fclose(c);
				}
			}
		}
		closedir(fds);
	}
	closedir(proc);
}

int ds_smc_own_fetch(struct ds_nl *nl, struct ds_smc_own *o)
{
	memset(o, 0, sizeof(*o));
	return ds_nl_do(nl, DROPSCOPE_CMD_SMC_GET, ds_smc_own_cb, o);
}

void ds_smc_own_free(struct ds_smc_own *o)
{
	free(o->fbs.fb);
	free(o->owners.fb);
	o->fbs.fb = NULL;
	o->owners.fb = NULL;
}

/* ---- SMC in dropscope's alerts, and the names of its codes ---------- */

/*
 * The CLC decline codes of net/smc/smc_clc.h (SMC_CLC_DECL_*): the kernel
 * reports the codes and names none of them.
 */
static const struct {
	uint32_t code;
	const char *name;
} ds_smc_reasons[] = {
	{ 0x01010000, "insufficient memory resources" },
	{ 0x02010000, "timeout waiting for QP confirm link" },
	{ 0x02020000, "timeout waiting for QP add link" },
	{ 0x03000000, "configuration error" },
	{ 0x03010000, "peer did not indicate SMC" },
	{ 0x03020000, "IPsec in use" },
	{ 0x03030000, "no SMC device found (R or D)" },
	{ 0x03030001, "no SMC-D device found" },
	{ 0x03030002, "no SMC-R device found" },
	{ 0x03030003, "hardware has no ISMv2 support" },
	{ 0x03030004, "peer sent no CLC v2 extension" },
	{ 0x03030005, "peer sent no CLC SMC-Dv2 extension" },
	{ 0x03030006, "peer sent no SEID" },
	{ 0x03030007, "no SMC-Dv2 device found" },
	{ 0x03030008, "peer sent no UEID" },
	{ 0x03030009, "release version negotiation failed" },
	{ 0x0303000a, "max connections negotiation failed" },
	{ 0x0303000b, "max links negotiation failed" },
	{ 0x03040000, "SMC modes do not match (R or D)" },
	{ 0x03050000, "peer has eyecatcher in RMBE" },
	{ 0x03060000, "fastopen sockopt not supported" },
	{ 0x03070000, "IP prefix / subnet mismatch" },
	{ 0x03080000, "error getting the VLAN id of the IP device" },
	{ 0x03090000, "error registering the VLAN id on the ISM device" },
	{ 0x030a0000, "no active SMC-R link in the link group" },
	{ 0x030b0000, "SMC-R link from the server not found" },
	{ 0x030c0000, "SMC version mismatch" },
	{ 0x030d0000, "SMC-D DMB limit exceeded" },
	{ 0x030e0000, "SMC-Rv2 connection: no route to peer" },
	{ 0x030f0000, "SMC-Rv2 connection: indirect mismatch" },
	{ 0x04000000, "synchronization error" },
	{ 0x05000000, "peer declined during handshake" },
	{ 0x09990000, "internal error" },
	{ 0x09990001, "internal error: rtoken handling failed" },
	{ 0x09990002, "internal error: ib ready link failed" },
	{ 0x09990003, "internal error: reg rdma bufs failed" },
};

/* The name of an SMC fallback or decline reason code. */
const char *ds_smc_reason_name(uint32_t code)
{
	size_t i;

	for (i = 0; i < sizeof(ds_smc_reasons) / sizeof(ds_smc_reasons[0]); i++)
		if (ds_smc_reasons[i].code == code)
			return ds_smc_reasons[i].name;
	return "unknown reason";
}

int ds_smc_alert_parse(struct nlattr *at, struct ds_smc_alert *f)
{
	struct nlattr *t[DROPSCOPE_SMC_FB_A_MAX + 1];

	if (nla_parse_nested(t, DROPSCOPE_SMC_FB_A_MAX, at, NULL) < 0 ||
	    !t[DROPSCOPE_SMC_FB_A_CODE] || !t[DROPSCOPE_SMC_FB_A_SIDE] ||
	    !t[DROPSCOPE_SMC_FB_A_DELTA] || !t[DROPSCOPE_SMC_FB_A_TOTAL])
		return -EINVAL;
	f->code = nla_get_u32(t[DROPSCOPE_SMC_FB_A_CODE]);
	f->server = nla_get_u8(t[DROPSCOPE_SMC_FB_A_SIDE]) ==
		DROPSCOPE_SMC_SERVER;
	f->delta = nla_get_u64(t[DROPSCOPE_SMC_FB_A_DELTA]);
	f->total = nla_get_u64(t[DROPSCOPE_SMC_FB_A_TOTAL]);
	f->owner = nla_type(at) == DROPSCOPE_A_SMC_OWNER;
	if (t[DROPSCOPE_SMC_FB_A_PID])
		f->pid = nla_get_u32(t[DROPSCOPE_SMC_FB_A_PID]);
	if (t[DROPSCOPE_SMC_FB_A_COMM])
		snprintf(f->comm, sizeof(f->comm), "%s",
			 nla_get_string(t[DROPSCOPE_SMC_FB_A_COMM]));
	return 0;
}

/*
 * The SMC fallbacks of an alert message by reason (smc_fallbacks), or by
 * owner (smc_owners): a line each, "by PID COMM" for an owner.
 */
void ds_smc_alerts_print(struct ds_print *p, const struct ds_alert *a,
				bool owners)
{
	bool open = false;
	char code[16];
	size_t i;

	for (i = 0; i < a->nsmc; i++) {
		const struct ds_smc_alert *f = &a->smc[i];

		if (f->owner != owners)
			continue;
		if (!open)
			ds_print_open_arr(p, owners ? "smc_owners" :
					  "smc_fallbacks");
		open = true;
		snprintf(code, sizeof(code), "0x%08x", f->code);
		ds_print_open_obj(p, NULL);
		ds_print_text(p, "%s", a->stamp);
		ds_print_u64(p, DS_ANY, "delta", "  %10" PRIu64 " SMC fallbacks",
			     f->delta);
		ds_print_u64(p, DS_JSON, "total", NULL, f->total);
		ds_print_str(p, DS_ANY, "code", "  %s", code);
		ds_print_str(p, DS_ANY, "side", " %s", f->server ? "server" :
			     "client");
		if (owners) {
			ds_print_u64(p, DS_ANY, "pid", " by %" PRIu64, f->pid);
			ds_print_str(p, DS_ANY, "comm", " %s\n",
				     f->pid ? f->comm : "(kernel)");
		} else {
			ds_print_str(p, DS_ANY, "name", " (%s)\n",
				     ds_smc_reason_name(f->code));
		}
		ds_print_close_obj(p);
	}
	if (open)
		ds_print_close_arr(p);
}
