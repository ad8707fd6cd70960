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

#include "ds.h"

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

static void ds_smc_tech_parse(struct ds_smc_tech *t, struct nlattr *nest)
{
	struct nlattr *a;
	int rem;

	ds_smc_get_u64s(t->v, SMC_NLA_STATS_T_MAX, nest);
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == SMC_NLA_STATS_T_TX_RMB_STATS)
			ds_smc_get_u64s(t->rmb[0], SMC_NLA_STATS_RMB_MAX, a);
		else if (nla_type(a) == SMC_NLA_STATS_T_RX_RMB_STATS)
			ds_smc_get_u64s(t->rmb[1], SMC_NLA_STATS_RMB_MAX, a);
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

/*
 * The kernel's SMC statistics and fallbacks, into st (whose fb the caller
 * frees); a DS_ status, with the reason said on standard error.
 */
int ds_smc_read(struct ds_smc_stats *st)
{
	struct ds_smc_nl s = { 0 };
	int err;

	memset(st, 0, sizeof(*st));
	err = ds_smc_open(&s);
	if (err == -ENOENT)
		return ds_smc_absent();
	if (err) {
		fprintf(stderr, "dropscope: cannot open a generic netlink socket: %s\n",
			strerror(-err));
		return DS_EFAIL;
	}
	err = ds_smc_dump(&s, SMC_NETLINK_GET_STATS, ds_smc_stats_cb, st);
	if (!err)
		err = ds_smc_dump(&s, SMC_NETLINK_GET_FBACK_STATS,
				  ds_smc_fback_cb, st);
	nl_socket_free(s.sk);
	if (err) {
		free(st->fb);
		st->fb = NULL;
		fprintf(stderr, "dropscope: reading the kernel's SMC statistics failed: %s\n",
			strerror(-err));
		return err == -EPERM ? DS_EPERM : DS_EFAIL;
	}
	return DS_OK;
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
	for (a = (struct rtattr *)(r + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == SMC_DIAG_FALLBACK &&
		    RTA_PAYLOAD(a) >= sizeof(struct smc_diag_fallback)) {
			struct smc_diag_fallback fb;

			memcpy(&fb, RTA_DATA(a), sizeof(fb));
			s->reason = fb.reason;
			s->has_reason = true;
		}
	}
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
			.diag_ext = 1 << (SMC_DIAG_FALLBACK - 1),
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
