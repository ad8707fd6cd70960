// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink session with dropscope.ko: requests with extended acks,
 * dumps, and the alert group.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "ds.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct ds_nl {
	struct nl_sock *sk;
	int family;
	int err;		/* last error, a negative errno */
	char msg[256];		/* what to tell the user about it */
	bool done;
	ds_msg_fn fn;
	void *arg;
	int fn_err;
	bool intr;		/* the dump was marked NLM_F_DUMP_INTR */
	bool gone;		/* the controller announced our removal */
	bool listening;		/* in a group: messages come unasked */
	uint32_t dump_seq;	/* of the last dump read off the socket */
	char *buf;		/* DS_NL_DUMP_BUF bytes, for dumps */
};

/*
 * A dump is read straight off the socket, DS_NL_DUMP_BUF bytes a read:
 * the kernel then fills its dump messages up to 32 KiB (netlink_dump()
 * sizes them by the reader's largest read), and each message is handed
 * over where it lies. libnl reads each one twice (a peek for its size,
 * then the read) into a buffer of 16 KiB, and copies every message into
 * a new nl_msg before its callback sees it.
 */
#define DS_NL_DUMP_BUF 32768

/*
 * nla_parse() in one pass, with the checks libnl's policies make of the
 * types used here: an attribute shorter than its type, or a string
 * without its NUL, is refused, as is one that runs past the end. libnl's
 * own costs several times more per attribute, which tells in dumps of
 * tens of thousands of objects. Without a policy only the framing is
 * checked. The last attribute of a type wins.
 */
int ds_nla_parse(struct nlattr **tb, int max, struct nlattr *head, int len,
		 const struct nla_policy *pol)
{
	static const uint16_t minlen[NLA_TYPE_MAX + 1] = {
		[NLA_U8] = 1, [NLA_U16] = 2, [NLA_U32] = 4, [NLA_U64] = 8,
		[NLA_STRING] = 1, [NLA_MSECS] = 8,
	};
	const struct nlattr *a = head;
	int type, n;

	memset(tb, 0, ((size_t)max + 1) * sizeof(*tb));
	while (len >= NLA_HDRLEN) {
		if (!ds_nla_whole(a, len))
			return -EINVAL;
		type = a->nla_type & NLA_TYPE_MASK;
		n = a->nla_len - NLA_HDRLEN;
		if (type <= max) {
			if (pol && pol[type].type <= NLA_TYPE_MAX &&
			    (n < (pol[type].minlen ? pol[type].minlen :
				  minlen[pol[type].type]) ||
			     (pol[type].maxlen && n > pol[type].maxlen) ||
			     (pol[type].type == NLA_STRING &&
			      ((char *)nla_data(a))[n - 1])))
				return -EINVAL;
			tb[type] = (struct nlattr *)a;
		}
		a = ds_nla_after(a, &len);
	}
	return 0;
}

int ds_nla_parse_nested(struct nlattr **tb, int max, struct nlattr *nest,
			const struct nla_policy *pol)
{
	return ds_nla_parse(tb, max, nla_data(nest), nla_len(nest), pol);
}

static void ds_nl_set_error(struct ds_nl *nl, int err, const char *ext)
{
	nl->err = err;
	switch (err) {
	case -EPERM:
		snprintf(nl->msg, sizeof(nl->msg),
			 "not permitted: dropscope needs CAP_NET_ADMIN (run it with sudo)");
		break;
	case -EUNATCH:	/* our own code: the family does not exist */
		/* it exists in the initial network namespace only */
		if (!access("/sys/module/dropscope", F_OK))
			snprintf(nl->msg, sizeof(nl->msg),
				 "dropscope.ko is loaded, but works in the initial network namespace only: run dropscope there");
		else
			snprintf(nl->msg, sizeof(nl->msg),
				 "dropscope.ko is not loaded: sudo insmod kmod/dropscope.ko");
		break;
	default:
		snprintf(nl->msg, sizeof(nl->msg), "%s%s%s",
			 ext && *ext ? ext : strerror(-err),
			 ext && *ext ? " (" : "",
			 ext && *ext ? strerror(-err) : "");
		if (ext && *ext)
			strncat(nl->msg, ")", sizeof(nl->msg) - strlen(nl->msg) - 1);
	}
}

const char *ds_nl_error(struct ds_nl *nl)
{
	return nl->msg;
}

int ds_nl_status(int err)
{
	switch (err) {
	case 0:
		return DS_OK;
	case -EPERM:
	case -EACCES:
		return DS_EPERM;
	case -EUNATCH:
		return DS_ENOMOD;
	default:
		return DS_EFAIL;
	}
}

/* The extended ack: its message string, if the kernel sent one. */
static const char *ds_extack_msg(struct nlmsgerr *e)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);
	int len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len <= 0 ||
	    nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off),
		      len, NULL) < 0 || !tb[NLMSGERR_ATTR_MSG])
		return NULL;
	return nla_get_string(tb[NLMSGERR_ATTR_MSG]);
}

static int ds_cb_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct ds_nl *nl = arg;

	(void)nla;
	ds_nl_set_error(nl, e->error, ds_extack_msg(e));
	nl->done = true;
	return NL_STOP;
}

static int ds_cb_done(struct nl_msg *msg, void *arg)
{
	struct ds_nl *nl = arg;

	(void)msg;
	nl->done = true;
	return NL_STOP;
}

/*
 * A dump message marked NLM_F_DUMP_INTR: the kernel's table changed while
 * the dump ran, so what it returns may miss or repeat entries. Note it and
 * read on to the end of the dump, so the socket is clean for the retry.
 */
static int ds_cb_intr(struct nl_msg *msg, void *arg)
{
	struct ds_nl *nl = arg;

	(void)msg;
	nl->intr = true;
	return NL_OK;
}

/* A message of the controller: is it the removal of our family? */
static void ds_ctrl_msg(struct ds_nl *nl, struct nlmsghdr *nlh)
{
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (gnlh->cmd != CTRL_CMD_DELFAMILY ||
	    genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_NAME])
		return;
	if (!strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]),
		    DROPSCOPE_GENL_NAME))
		nl->gone = true;
}

/* A message of data: to nl->fn if it is of our family; false to stop. */
static bool ds_nl_valid(struct ds_nl *nl, struct nlmsghdr *nlh)
{
	struct nlattr *tb[DROPSCOPE_A_MAX + 1];
	int err;

	if (nlh->nlmsg_type == GENL_ID_CTRL) {
		ds_ctrl_msg(nl, nlh);
		return true;
	}
	if (!nl->fn || nlh->nlmsg_type != nl->family)
		return true;
	err = nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ? -EINVAL :
	      ds_nla_parse(tb, DROPSCOPE_A_MAX,
			   genlmsg_attrdata(nlmsg_data(nlh), 0),
			   genlmsg_attrlen(nlmsg_data(nlh), 0), NULL);
	if (!err)
		err = nl->fn(tb, genlmsg_attrdata(nlmsg_data(nlh), 0),
			     genlmsg_attrlen(nlmsg_data(nlh), 0), nl->arg);
	nl->fn_err = err;
	return !err;
}

static int ds_cb_valid(struct nl_msg *msg, void *arg)
{
	return ds_nl_valid(arg, nlmsg_hdr(msg)) ? NL_OK : NL_STOP;
}

int ds_nl_open(struct ds_nl **nlp)
{
	struct ds_nl *nl;
	int one = 1, err;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	*nlp = nl;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		ds_nl_set_error(nl, -ENOMEM, NULL);
		return -ENOMEM;
	}
	err = genl_connect(nl->sk);
	if (err < 0) {
		ds_nl_set_error(nl, -EPROTONOSUPPORT, "cannot open a generic netlink socket");
		return nl->err;
	}
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, DROPSCOPE_GENL_NAME);
	if (nl->family < 0) {
		ds_nl_set_error(nl, -EUNATCH, NULL);
		return nl->err;
	}
	nl_socket_modify_cb(nl->sk, NL_CB_VALID, NL_CB_CUSTOM, ds_cb_valid, nl);
	nl_socket_modify_cb(nl->sk, NL_CB_ACK, NL_CB_CUSTOM, ds_cb_done, nl);
	nl_socket_modify_cb(nl->sk, NL_CB_FINISH, NL_CB_CUSTOM, ds_cb_done, nl);
	nl_socket_modify_cb(nl->sk, NL_CB_DUMP_INTR, NL_CB_CUSTOM, ds_cb_intr,
			    nl);
	nl_socket_modify_err_cb(nl->sk, NL_CB_CUSTOM, ds_cb_error, nl);
	return 0;
}

void ds_nl_close(struct ds_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl->buf);
	free(nl);
}

int ds_nl_fd(struct ds_nl *nl)
{
	return nl_socket_get_fd(nl->sk);
}

/* A request for cmd: the caller may add attributes, then ds_nl_send(). */
struct nl_msg *ds_nl_msg(struct ds_nl *nl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				dump ? NLM_F_DUMP : NLM_F_ACK, cmd,
				DROPSCOPE_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

static void ds_nl_begin(struct ds_nl *nl, ds_msg_fn fn, void *arg)
{
	nl->err = 0;
	nl->fn_err = 0;
	nl->intr = false;
	nl->done = false;
	nl->fn = fn;
	nl->arg = arg;
}

/* What a request came to, once its answer was read. */
static int ds_nl_end(struct ds_nl *nl)
{
	if (nl->fn_err && !nl->err)
		ds_nl_set_error(nl, nl->fn_err < 0 ? nl->fn_err : -EINVAL,
				"malformed reply from dropscope.ko");
	if (nl->intr && !nl->err)
		ds_nl_set_error(nl, -EAGAIN,
				"dropscope.ko's tables kept changing during the dump: try again");
	return nl->err;
}

int ds_nl_send(struct ds_nl *nl, struct nl_msg *msg, ds_msg_fn fn, void *arg)
{
	int err;

	if (!msg) {
		ds_nl_set_error(nl, -ENOMEM, NULL);
		return nl->err;
	}
	ds_nl_begin(nl, fn, arg);
	err = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (err < 0) {
		ds_nl_set_error(nl, -EIO, nl_geterror(err));
		return nl->err;
	}
	while (!nl->done && !nl->fn_err) {
		err = nl_recvmsgs_default(nl->sk);
		if (err == -NLE_DUMP_INTR) {
			/* a libnl that reports it rather than calling us */
			nl->intr = true;
			nl->done = true;
		} else if (err < 0 && !nl->err) {
			ds_nl_set_error(nl, -EIO, nl_geterror(err));
			break;
		}
	}
	return ds_nl_end(nl);
}

int ds_nl_do(struct ds_nl *nl, uint8_t cmd, ds_msg_fn fn, void *arg)
{
	return ds_nl_send(nl, ds_nl_msg(nl, cmd, false), fn, arg);
}

/* One message of a dump read off the socket (of sequence number seq). */
static void ds_nl_dump_msg(struct ds_nl *nl, struct nlmsghdr *nlh,
			   uint32_t seq)
{
	struct nlmsgerr *e = NLMSG_DATA(nlh);

	if (nlh->nlmsg_type != GENL_ID_CTRL && nlh->nlmsg_seq != seq)
		return;		/* not an answer to this dump */
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		nl->intr = true;
	switch (nlh->nlmsg_type) {
	case NLMSG_DONE:
		nl->done = true;
		break;
	case NLMSG_ERROR:
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			ds_nl_set_error(nl, -EIO, "truncated error message");
		else if (e->error)
			ds_nl_set_error(nl, e->error, ds_extack_msg(e));
		nl->done = true;
		break;
	case NLMSG_NOOP:
		break;
	case NLMSG_OVERRUN:
		ds_nl_set_error(nl, -EIO, "netlink overrun");
		nl->done = true;
		break;
	default:
		ds_nl_valid(nl, nlh);
	}
}

/* A dump read straight off the socket (DS_NL_DUMP_BUF above). */
static int ds_nl_dump_once(struct ds_nl *nl, uint8_t cmd, ds_msg_fn fn,
			   void *arg)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
	} req = {
		.n = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = (uint16_t)nl->family,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = ++nl->dump_seq,
		},
		.g = { .cmd = cmd, .version = DROPSCOPE_GENL_VERSION },
	};
	int fd = nl_socket_get_fd(nl->sk);
	struct nlmsghdr *nlh;
	ssize_t n;
	int len;

	if (!nl->buf)
		nl->buf = malloc(DS_NL_DUMP_BUF);
	if (!nl->buf) {
		ds_nl_set_error(nl, -ENOMEM, NULL);
		return nl->err;
	}
	ds_nl_begin(nl, fn, arg);
	if (send(fd, &req, sizeof(req), 0) < 0) {
		ds_nl_set_error(nl, -EIO, strerror(errno));
		return nl->err;
	}
	while (!nl->done && !nl->fn_err) {
		n = recv(fd, nl->buf, DS_NL_DUMP_BUF, MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || n > DS_NL_DUMP_BUF) {
			ds_nl_set_error(nl, -EIO, n < 0 ? strerror(errno) :
					"a dump message larger than 32 KiB");
			break;
		}
		len = (int)n;
		for (nlh = (struct nlmsghdr *)nl->buf;
		     NLMSG_OK(nlh, len) && !nl->done && !nl->fn_err;
		     nlh = NLMSG_NEXT(nlh, len))
			ds_nl_dump_msg(nl, nlh, req.n.nlmsg_seq);
	}
	return ds_nl_end(nl);
}

/* How many times an interrupted dump is run in all, as "wg" retries. */
#define DS_DUMP_TRIES 10

int ds_nl_dump(struct ds_nl *nl, uint8_t cmd, ds_msg_fn fn,
	       void (*reset)(void *arg), void *arg)
{
	int err, tries = 0;

	for (;;) {
		/* a socket in a group takes alerts too: libnl's loop */
		if (nl->listening)
			err = ds_nl_send(nl, ds_nl_msg(nl, cmd, true), fn, arg);
		else
			err = ds_nl_dump_once(nl, cmd, fn, arg);
		if (err != -EAGAIN || !nl->intr || ++tries == DS_DUMP_TRIES)
			return err;
		/* start over: the partial results go */
		if (reset)
			reset(arg);
	}
}

bool ds_nl_gone(struct ds_nl *nl)
{
	return nl->gone;
}

/*
 * A socket that takes messages nobody asked for (a capture's): no
 * sequence check, the controller's notifications (dropscope.ko going
 * away), and no blocking. ds_nl_blocking() turns it back for a request.
 */
int ds_nl_listen(struct ds_nl *nl)
{
	int ctrl, err;

	ctrl = genl_ctrl_resolve_grp(nl->sk, "nlctrl", "notify");
	if (ctrl < 0) {
		ds_nl_set_error(nl, -EIO, "cannot find the controller's notify group");
		return nl->err;
	}
	nl_socket_disable_seq_check(nl->sk);
	nl->listening = true;
	err = nl_socket_add_membership(nl->sk, ctrl);
	if (err < 0) {
		ds_nl_set_error(nl, -EIO, nl_geterror(err));
		return nl->err;
	}
	nl_socket_set_nonblocking(nl->sk);
	return 0;
}

void ds_nl_blocking(struct ds_nl *nl)
{
	int fd = nl_socket_get_fd(nl->sk);

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

int ds_nl_join_alerts(struct ds_nl *nl)
{
	int grp, ctrl, err, one = 1;

	/*
	 * Resolve both groups before joining either: once in a group, a
	 * notification can come in before the answer to a request, and
	 * libnl fails the request on its sequence number.
	 */
	grp = genl_ctrl_resolve_grp(nl->sk, DROPSCOPE_GENL_NAME,
				    DROPSCOPE_MCGRP_ALERTS);
	if (grp < 0) {
		ds_nl_set_error(nl, -EUNATCH, NULL);
		return nl->err;
	}
	/* the controller's notifications tell when dropscope.ko goes away */
	ctrl = genl_ctrl_resolve_grp(nl->sk, "nlctrl", "notify");
	if (ctrl < 0) {
		ds_nl_set_error(nl, -EIO, "cannot find the controller's notify group");
		return nl->err;
	}
	nl->listening = true;
	err = nl_socket_add_membership(nl->sk, ctrl);
	if (err < 0) {
		ds_nl_set_error(nl, -EIO, nl_geterror(err));
		return nl->err;
	}
	/* unloaded (or reloaded) before we listened to the controller? */
	if (genl_ctrl_resolve(nl->sk, DROPSCOPE_GENL_NAME) != nl->family) {
		ds_nl_set_error(nl, -EUNATCH, NULL);
		return nl->err;
	}
	err = nl_socket_add_membership(nl->sk, grp);
	if (err < 0) {
		ds_nl_set_error(nl, err == -NLE_PERM ? -EPERM : -EIO,
				nl_geterror(err));
		return nl->err;
	}
	/* let the kernel know, and count, when our buffer overflows */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK,
		   NETLINK_BROADCAST_ERROR, &one, sizeof(one));
	/* alerts are not answers to our requests */
	nl_socket_disable_seq_check(nl->sk);
	nl_socket_set_buffer_size(nl->sk, 4 << 20, 0);
	nl_socket_set_nonblocking(nl->sk);
	return 0;
}

/*
 * Returns 0 when everything pending was read, -ENOBUFS when the kernel
 * dropped alerts because our buffer was full (we keep reading after it).
 */
int ds_nl_recv_alerts(struct ds_nl *nl, ds_msg_fn fn, void *arg)
{
	int err;

	nl->fn = fn;
	nl->arg = arg;
	nl->fn_err = 0;
	for (;;) {
		err = nl_recvmsgs_default(nl->sk);
		if (nl->fn_err)
			return nl->fn_err;
		if (err >= 0)
			continue;
		if (err == -NLE_AGAIN)
			return 0;
		if (err == -NLE_NOMEM)
			return -ENOBUFS;
		ds_nl_set_error(nl, -EIO, nl_geterror(err));
		return nl->err;
	}
}
