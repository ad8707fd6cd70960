// SPDX-License-Identifier: GPL-2.0
/*
 * run --evidence DIR: the first packets of each drop key, kept the first
 * time the drops happen.
 *
 * A capture of the run's drops and of no run's (DROPSCOPE_CAPTURE_A_RUN)
 * that keeps the first N of each key, site and reason (_PER_KEY), on a
 * socket of its own: the run's socket answers requests while the command
 * runs, and a capture's messages come unasked. Each packet comes with its
 * run, its stack's frames, its socket's addresses and ports and the task
 * that freed it. What the module could not keep is counted there
 * (lost_buffer, lost_socket, lost_keys) and shown.
 *
 * The memory is bounded: N packets of DROPSCOPE_CAPTURE_KEYS keys at
 * most, each snaplen bytes and its frames.
 *
 * At the end, the keys the run judges are written under DIR: a pcapng
 * each (NN-REASON-function.pcapng, each packet with its drop in the
 * comment), the distinct stacks of their packets in stacks.txt (the first
 * frame of each is the site), and index.json, every packet described.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ds.h"

#define DS_XSTR(x)	#x
#define DS_STR(x)	DS_XSTR(x)

/* A packet kept: the message's fields, its bytes and frames copied. */
struct ds_ev_pkt {
	struct ds_packet pk;
	uint8_t *data;
	uint64_t frames[DROPSCOPE_STACK_DEPTH];
	uint32_t owner;			/* its socket's process, or 0 */
	char owner_comm[16];
};

/* A drop key and its packets, and, once written, its file. */
struct ds_ev_key {
	uint64_t loc;
	uint32_t reason;
	struct ds_ev_pkt *v;
	size_t n, cap;
	const struct ds_site *site;	/* written: the key's site */
	char pcap[128];			/* its file's name under dir */
};

struct ds_evidence {
	struct ds_nl *nl;
	char dir[512];
	uint32_t keep, snaplen;
	struct ds_ev_key *v;
	size_t n, cap;
	struct ds_cap_counters k;	/* the module's, the last it sent */
	bool started, failed;
	size_t written;			/* keys written, the first of v */
};

/* The key of loc and reason, made if new; NULL: out of memory. */
static struct ds_ev_key *ds_ev_key(struct ds_evidence *ev, uint64_t loc,
				   uint32_t reason)
{
	size_t i;

	for (i = 0; i < ev->n; i++)
		if (ev->v[i].loc == loc && ev->v[i].reason == reason)
			return &ev->v[i];
	ev->v = ds_grow(ev->v, &ev->cap, ev->n, sizeof(*ev->v), 16);
	if (!ev->v) {
		ev->n = ev->cap = 0;
		return NULL;
	}
	memset(&ev->v[ev->n], 0, sizeof(*ev->v));
	ev->v[ev->n].loc = loc;
	ev->v[ev->n].reason = reason;
	return &ev->v[ev->n++];
}

static int ds_ev_packet(void *arg, const struct ds_packet *pk)
{
	struct ds_evidence *ev = arg;
	struct ds_ev_key *k = ds_ev_key(ev, pk->loc, pk->reason);
	struct ds_ev_pkt *e;

	if (!k)
		return -ENOMEM;
	k->v = ds_grow(k->v, &k->cap, k->n, sizeof(*k->v), 4);
	if (!k->v) {
		k->n = k->cap = 0;
		return -ENOMEM;
	}
	e = &k->v[k->n];
	e->pk = *pk;
	e->data = malloc(pk->caplen ? pk->caplen : 1);
	if (!e->data)
		return -ENOMEM;
	memcpy(e->data, pk->data, pk->caplen);
	e->pk.data = e->data;
	if (e->pk.nframes > DROPSCOPE_STACK_DEPTH)
		e->pk.nframes = DROPSCOPE_STACK_DEPTH;
	memcpy(e->frames, pk->frames, e->pk.nframes * sizeof(uint64_t));
	e->pk.frames = e->frames;
	k->n++;
	return 0;
}

static int ds_ev_msg(struct nlattr **tb, struct nlattr *attrs, int len,
		     void *arg)
{
	struct ds_evidence *ev = arg;

	return ds_capture_read(tb, attrs, len, ds_ev_packet, ev, &ev->k);
}

/* DIR: made (*made), or an empty directory already. */
static int ds_ev_dir(const char *dir, bool *made)
{
	struct dirent *de;
	DIR *d;

	*made = !mkdir(dir, 0755);
	if (*made)
		return 0;
	if (errno != EEXIST) {
		fprintf(stderr, "dropscope: run: --evidence %s: %s\n", dir,
			strerror(errno));
		return DS_EFAIL;
	}
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "dropscope: run: --evidence %s: %s\n", dir,
			strerror(errno));
		return DS_EFAIL;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	closedir(d);
	if (de) {
		fprintf(stderr, "dropscope: run: --evidence %s: not empty (give a new directory)\n",
			dir);
		return DS_EUSAGE;
	}
	return 0;
}

int ds_evidence_start(const char *dir, uint32_t run, uint32_t keep,
		      uint32_t snaplen, struct ds_evidence **evp)
{
	struct ds_cap_req req = {
		.snaplen = snaplen, .run = run, .per_key = keep,
	};
	struct ds_evidence *ev = calloc(1, sizeof(*ev));
	int rcvbuf = 8 << 20, err;
	bool made;

	*evp = ev;
	if (!ev)
		return DS_EFAIL;
	snprintf(ev->dir, sizeof(ev->dir), "%s", dir);
	ev->keep = keep;
	ev->snaplen = snaplen;
	err = ds_ev_dir(dir, &made);
	if (err)
		return err;
	err = ds_nl_open(&ev->nl);
	if (err)
		goto fail;
	/* a round of a few keys' packets; SO_RCVBUF is capped at rmem_max */
	if (setsockopt(ds_nl_fd(ev->nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)))
		setsockopt(ds_nl_fd(ev->nl), SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	err = ds_capture_start(ev->nl, &req, ds_ev_msg, ev);
	if (err)
		goto fail;
	ev->started = true;
	/* the capture's messages come unasked */
	err = ds_nl_listen(ev->nl);
	if (!err)
		return 0;
fail:
	fprintf(stderr, "dropscope: run: --evidence: %s\n",
		ds_nl_error(ev->nl));
	/* nothing changed: the directory it made goes */
	if (made)
		rmdir(dir);
	return ds_nl_status(err);
}

int ds_evidence_fd(const struct ds_evidence *ev)
{
	return ds_nl_fd(ev->nl);
}

bool ds_evidence_read(struct ds_evidence *ev)
{
	int err = ds_nl_recv_alerts(ev->nl, ds_ev_msg, ev);

	/* a full socket buffer: the module counted what it could not send */
	if (err == -ENOBUFS)
		err = ds_nl_recv_alerts(ev->nl, ds_ev_msg, ev);
	if (err && err != -ENOBUFS)
		ev->failed = true;
	return !ev->failed;
}

void ds_evidence_stop(struct ds_evidence *ev)
{
	if (!ev->started || ev->k.ended)
		return;
	/* what the module still holds comes before the reply */
	ds_nl_blocking(ev->nl);
	if (ds_capture_stop(ev->nl, ev->k.id, ds_ev_msg, ev)) {
		fprintf(stderr, "dropscope: run: --evidence: %s\n",
			ds_nl_error(ev->nl));
		ev->failed = true;
	}
	ev->started = false;
}

/* An address of the packet's socket, as text. */
static void ds_ev_addr(const struct ds_packet *pk, const uint8_t *a,
		       char *buf, size_t len)
{
	if (!inet_ntop(pk->alen == 4 ? AF_INET : AF_INET6, a, buf,
		       (socklen_t)len))
		snprintf(buf, len, "?");
}

/*
 * The session of the packet's socket (its addresses and ports) among v[n],
 * or NULL: none, or sessions of them of more than one process.
 */
static const struct ds_session *ds_ev_owner(const struct ds_packet *pk,
					    const struct ds_session *v,
					    size_t n)
{
	const struct ds_session *o = NULL;
	char s[64], d[64];
	size_t m;

	ds_ev_addr(pk, pk->saddr, s, sizeof(s));
	ds_ev_addr(pk, pk->daddr, d, sizeof(d));
	for (m = 0; m < n; m++) {
		if (!v[m].pid || v[m].lport != pk->sport ||
		    v[m].rport != pk->dport ||
		    (v[m].family == AF_INET6) != (pk->alen == 16) ||
		    strcmp(v[m].laddr, s) || strcmp(v[m].raddr, d))
			continue;
		if (o && (o->pid != v[m].pid || strcmp(o->comm, v[m].comm)))
			return NULL;
		o = &v[m];
	}
	return o;
}

void ds_evidence_owners(struct ds_evidence *ev, const struct ds_session *v,
			size_t n)
{
	const struct ds_session *o;
	struct ds_ev_pkt *e;
	size_t i, j;

	for (i = 0; i < ev->n; i++) {
		for (j = 0; j < ev->v[i].n; j++) {
			e = &ev->v[i].v[j];
			o = e->pk.alen ? ds_ev_owner(&e->pk, v, n) : NULL;
			if (!o)
				continue;
			e->owner = o->pid;
			snprintf(e->owner_comm, sizeof(e->owner_comm), "%s",
				 o->comm);
		}
	}
}

/* The packet's comment in its pcapng: its drop, stack, socket, tasks. */
static void ds_ev_comment(const struct ds_ev_key *k, const struct ds_ev_pkt *e,
			  char *buf, size_t len)
{
	const struct ds_packet *pk = &e->pk;
	char s[64], d[64];
	int n;

	n = snprintf(buf, len, "dropscope: %s at %s netns %" PRIu32,
		     k->site->reason_name, k->site->symbol, pk->netns);
	if (pk->stack && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " stack %08" PRIx32,
			      pk->stack);
	if (pk->run && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " run %" PRIu32,
			      pk->run);
	if (pk->alen && n >= 0 && (size_t)n < len) {
		ds_ev_addr(pk, pk->saddr, s, sizeof(s));
		ds_ev_addr(pk, pk->daddr, d, sizeof(d));
		n += snprintf(buf + n, len - (size_t)n,
			      pk->alen == 4 ? " socket %s:%u %s:%u" :
					      " socket [%s]:%u [%s]:%u",
			      s, pk->sport, d, pk->dport);
	}
	if (e->owner && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      " owner %" PRIu32 " (%s)", e->owner,
			      e->owner_comm);
	if (pk->pid && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " pid %" PRIu32 " (%s)",
			 pk->pid, pk->comm);
}

/* NN-REASON-function.pcapng: the function of the site, without offset. */
static void ds_ev_name(const struct ds_ev_key *k, size_t i, char *buf,
		       size_t len)
{
	size_t fn = strcspn(k->site->symbol, "+ "), j;
	int n;

	n = snprintf(buf, len, "%02zu-%s-%.*s.pcapng", i + 1,
		     k->site->reason_name, (int)fn, k->site->symbol);
	for (j = 0; n > 0 && j < (size_t)n && buf[j]; j++)
		if (buf[j] == '/' || buf[j] == ' ')
			buf[j] = '_';
}

static int ds_ev_pcap(const struct ds_evidence *ev, const struct ds_ev_key *k)
{
	char path[700], comment[512];
	struct ds_pcapng *w;
	int err = 0;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", ev->dir, k->pcap);
	f = fopen(path, "wb");
	w = f ? ds_pcapng_open(f, ev->snaplen) : NULL;
	if (!w) {
		if (f)
			fclose(f);
		fprintf(stderr, "dropscope: run: %s: cannot write\n", path);
		return DS_EFAIL;
	}
	for (i = 0; i < k->n; i++) {
		const struct ds_packet *pk = &k->v[i].pk;

		ds_ev_comment(k, &k->v[i], comment, sizeof(comment));
		err |= ds_pcapng_write(w, pk->tstamp, pk->ifindex, pk->protocol,
				       pk->data, pk->caplen, pk->len, comment);
	}
	err |= ds_pcapng_close(w);
	if (err)
		fprintf(stderr, "dropscope: run: %s: write failed\n", path);
	return err ? DS_EFAIL : 0;
}

/* Has a packet before k's i-th, of a key written, the same stack? */
static bool ds_ev_stack_seen(const struct ds_evidence *ev, size_t key,
			     size_t i)
{
	uint32_t id = ev->v[key].v[i].pk.stack;
	size_t a, b;

	for (a = 0; a <= key; a++)
		for (b = 0; b < (a == key ? i : ev->v[a].n); b++)
			if (ev->v[a].v[b].pk.stack == id &&
			    ev->v[a].v[b].pk.nframes)
				return true;
	return false;
}

/* Each distinct stack of the packets written, the site its first frame. */
static int ds_ev_stacks(const struct ds_evidence *ev, struct ds_ctx *ctx)
{
	char path[700], sym[256];
	size_t a, b, j;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stacks.txt", ev->dir);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "dropscope: run: %s: %s\n", path,
			strerror(errno));
		return DS_EFAIL;
	}
	for (a = 0; a < ev->written; a++) {
		const struct ds_ev_key *k = &ev->v[a];

		for (b = 0; b < k->n; b++) {
			const struct ds_packet *pk = &k->v[b].pk;

			if (!pk->nframes || ds_ev_stack_seen(ev, a, b))
				continue;
			fprintf(f, "stack %08" PRIx32 ": %s at %s (%s)\n",
				pk->stack, k->site->reason_name,
				k->site->symbol, k->pcap);
			for (j = 0; j < pk->nframes; j++) {
				ds_syms_name(ctx->syms, k->v[b].frames[j], sym,
					     sizeof(sym));
				fprintf(f, "\t%s\n", sym);
			}
			fputc('\n', f);
		}
	}
	if (fclose(f)) {
		fprintf(stderr, "dropscope: run: %s: write failed\n", path);
		return DS_EFAIL;
	}
	return 0;
}

static void ds_ev_pkt_print(struct ds_print *p, const struct ds_ev_pkt *e)
{
	const struct ds_packet *pk = &e->pk;
	char a[64];

	ds_print_open_obj(p, NULL);
	ds_print_u64(p, DS_JSON, "tstamp", NULL, pk->tstamp);
	ds_print_str(p, DS_JSON, "part", NULL, pk->run ? "cmd" : "rest");
	ds_print_u32(p, DS_JSON, "netns", NULL, pk->netns);
	ds_print_u32(p, DS_JSON, "ifindex", NULL, pk->ifindex);
	ds_print_u32(p, DS_JSON, "len", NULL, pk->len);
	if (pk->stack)
		ds_print_hex(p, DS_JSON, "stack", NULL, pk->stack);
	else
		ds_print_null(p, DS_JSON, "stack", NULL);
	if (pk->alen) {
		ds_ev_addr(pk, pk->saddr, a, sizeof(a));
		ds_print_str(p, DS_JSON, "saddr", NULL, a);
		ds_print_u32(p, DS_JSON, "sport", NULL, pk->sport);
		ds_ev_addr(pk, pk->daddr, a, sizeof(a));
		ds_print_str(p, DS_JSON, "daddr", NULL, a);
		ds_print_u32(p, DS_JSON, "dport", NULL, pk->dport);
	}
	if (e->owner) {
		ds_print_u32(p, DS_JSON, "owner_pid", NULL, e->owner);
		ds_print_str(p, DS_JSON, "owner_comm", NULL, e->owner_comm);
	}
	if (pk->pid) {
		ds_print_u32(p, DS_JSON, "pid", NULL, pk->pid);
		ds_print_str(p, DS_JSON, "comm", NULL, pk->comm);
	}
	ds_print_close_obj(p);
}

/* The module's counters of what it could not keep. */
static void ds_ev_lost_print(const struct ds_evidence *ev, struct ds_print *p)
{
	/* text tells only of a loss */
	enum ds_pmode m = ev->k.lost_buffer || ev->k.lost_socket ||
			  ev->k.lost_keys || ev->k.no_network ? DS_ANY : DS_JSON;

	ds_print_open_obj(p, "evidence_lost");
	ds_print_u64(p, m, "buffer",
		     "evidence lost: %" PRIu64 " packets (CPU buffer full), ",
		     ev->k.lost_buffer);
	ds_print_u64(p, m, "socket", "%" PRIu64 " (socket buffer full), ",
		     ev->k.lost_socket);
	ds_print_u64(p, m, "keys",
		     "%" PRIu64 " drops of keys beyond " DS_STR(DROPSCOPE_CAPTURE_KEYS) ", ",
		     ev->k.lost_keys);
	ds_print_u64(p, m, "no_network",
		     "%" PRIu64 " drops without a network header\n",
		     ev->k.no_network);
	ds_print_close_obj(p);
}

static int ds_ev_index(const struct ds_evidence *ev)
{
	struct ds_print p = { .json = true };
	char path[700];
	size_t a, b;
	int err = 0;

	snprintf(path, sizeof(path), "%s/index.json", ev->dir);
	p.f = fopen(path, "w");
	if (!p.f) {
		fprintf(stderr, "dropscope: run: %s: %s\n", path,
			strerror(errno));
		return DS_EFAIL;
	}
	ds_print_open_obj(&p, NULL);
	ds_print_u32(&p, DS_JSON, "keep", NULL, ev->keep);
	ds_print_u32(&p, DS_JSON, "snaplen", NULL, ev->snaplen);
	ds_print_u64(&p, DS_JSON, "bound_bytes", NULL,
		     (uint64_t)ev->keep * DROPSCOPE_CAPTURE_KEYS *
		     (ev->snaplen + 8 * DROPSCOPE_STACK_DEPTH));
	ds_print_u64(&p, DS_JSON, "captured", NULL, ev->k.captured);
	ds_ev_lost_print(ev, &p);
	ds_print_open_arr(&p, "evidence");
	for (a = 0; a < ev->written; a++) {
		const struct ds_ev_key *k = &ev->v[a];

		ds_print_open_obj(&p, NULL);
		ds_print_str(&p, DS_JSON, "site", NULL, k->site->symbol);
		ds_print_str(&p, DS_JSON, "reason", NULL, k->site->reason_name);
		ds_print_str(&p, DS_JSON, "layer", NULL, "kernel");
		ds_print_str(&p, DS_JSON, "pcap", NULL, k->pcap);
		ds_print_u64(&p, DS_JSON, "packets", NULL, k->n);
		ds_print_str(&p, DS_JSON, "stacks", NULL, "stacks.txt");
		ds_print_open_arr(&p, "drops");
		for (b = 0; b < k->n; b++)
			ds_ev_pkt_print(&p, &k->v[b]);
		ds_print_close_arr(&p);
		ds_print_close_obj(&p);
	}
	ds_print_close_arr(&p);
	ds_print_close_obj(&p);
	if (fclose(p.f)) {
		fprintf(stderr, "dropscope: run: %s: write failed\n", path);
		err = DS_EFAIL;
	}
	return err;
}

int ds_evidence_write(struct ds_evidence *ev, struct ds_ctx *ctx,
		      ds_evidence_want want, void *arg)
{
	struct ds_ev_key t;
	size_t i;
	int err;

	if (ev->failed)
		fprintf(stderr, "dropscope: run: --evidence: a capture message could not be read: some packets are missing\n");
	err = ds_ctx_syms(ctx);
	if (err)
		return err;
	/* the keys to write first, in the order they came */
	for (i = 0; i < ev->n; i++) {
		ev->v[i].site = want(arg, ev->v[i].loc, ev->v[i].reason);
		if (!ev->v[i].site)
			continue;
		t = ev->v[ev->written];
		ev->v[ev->written] = ev->v[i];
		ev->v[i] = t;
		ev->written++;
	}
	for (i = 0; i < ev->written && !err; i++) {
		ds_ev_name(&ev->v[i], i, ev->v[i].pcap, sizeof(ev->v[i].pcap));
		err = ds_ev_pcap(ev, &ev->v[i]);
	}
	if (!err)
		err = ds_ev_stacks(ev, ctx);
	if (!err)
		err = ds_ev_index(ev);
	return err;
}

void ds_evidence_print(const struct ds_evidence *ev, struct ds_print *p)
{
	size_t i;

	ds_print_open_arr(p, "evidence");
	for (i = 0; i < ev->written; i++) {
		const struct ds_ev_key *k = &ev->v[i];
		char pcap[700], stacks[600];

		snprintf(pcap, sizeof(pcap), "%s/%s", ev->dir, k->pcap);
		snprintf(stacks, sizeof(stacks), "%s/stacks.txt", ev->dir);
		ds_print_open_obj(p, NULL);
		ds_print_text(p, "evidence: ");
		ds_print_str(p, DS_ANY, "reason", "%s", k->site->reason_name);
		ds_print_str(p, DS_ANY, "site", " at %s", k->site->symbol);
		ds_print_str(p, DS_JSON, "layer", NULL, "kernel");
		ds_print_u64(p, DS_ANY, "packets", ": %" PRIu64, k->n);
		ds_print_text(p, k->n == 1 ? " packet" : " packets");
		ds_print_str(p, DS_ANY, "pcap", " in %s", pcap);
		ds_print_str(p, DS_ANY, "stacks", ", stacks in %s\n", stacks);
		ds_print_close_obj(p);
	}
	ds_print_close_arr(p);
	ds_ev_lost_print(ev, p);
}

void ds_evidence_ktap(const struct ds_evidence *ev, FILE *f)
{
	size_t i;

	for (i = 0; i < ev->written; i++)
		fprintf(f, "# evidence: %s at %s: %zu packet%s in %s/%s, stacks in %s/stacks.txt\n",
			ev->v[i].site->reason_name, ev->v[i].site->symbol,
			ev->v[i].n, ev->v[i].n == 1 ? "" : "s", ev->dir,
			ev->v[i].pcap, ev->dir);
	if (ev->k.lost_buffer || ev->k.lost_socket || ev->k.lost_keys ||
	    ev->k.no_network)
		fprintf(f, "# evidence lost: %" PRIu64 " packets (CPU buffer full), %" PRIu64 " (socket buffer full), %" PRIu64 " drops of keys beyond %d, %" PRIu64 " drops without a network header\n",
			ev->k.lost_buffer, ev->k.lost_socket, ev->k.lost_keys,
			DROPSCOPE_CAPTURE_KEYS, ev->k.no_network);
}

void ds_evidence_free(struct ds_evidence *ev)
{
	size_t i, j;

	if (!ev)
		return;
	for (i = 0; i < ev->n; i++) {
		for (j = 0; j < ev->v[i].n; j++)
			free(ev->v[i].v[j].data);
		free(ev->v[i].v);
	}
	free(ev->v);
	ds_nl_close(ev->nl);
	free(ev);
}
