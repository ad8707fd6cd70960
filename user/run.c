// SPDX-License-Identifier: GPL-2.0
/*
 * run [OPTIONS] -- CMD [ARGS...]: the drops of exactly the time CMD runs.
 *
 * CMD runs in a cgroup (v2) of its own, of which the module begins a run
 * (RUN_START): a drop whose socket belongs to that cgroup, or whose socket
 * or device is in a network namespace that CMD created, is counted in
 * sites of the run's own, keyed by their netns. The report is the
 * difference of the module's sites before and after, split into CMD's
 * (the run's sites, also by namespace, named as "ip netns" names them)
 * and the rest of the system (the sites of no run: those of other runs
 * side by side are neither). Monitoring that runs already is not reset;
 * one that does not is started by the module for the runs (its totals
 * start from zero, as start's do) and stopped when the last ends. The run
 * ends when this process does, however it ends.
 *
 * Sessions: those TCP sessions born while CMD ran, CMD's (the module marks
 * a session with the run its socket was of at birth; an accepted one has
 * its listener's cgroup and netns) and the rest's (of no run), with what
 * they moved and dropped, as live and closed dumps give them after CMD. A session that
 * found the table full, or whose close the ring of recent closes lost
 * before it was read, is counted as lost.
 *
 * Conditions (--baseline with --fail-on new, --fail-on reason R, --max N)
 * judge every drop of the run, CMD's and the rest: many drops carry no
 * socket (a datagram to a closed port, a packet being forwarded). The
 * exit status is CMD's, unless a condition failed: then DS_ECONDITION.
 *
 * Evidence (--evidence DIR): the module keeps the first --keep packets of
 * each drop key of the run and of the rest while CMD runs (evidence.c);
 * those of the keys new against the baseline (every key without one) are
 * written under DIR, and the report names the files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/inotify.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "dropscope.h"

#define DS_RUN_MAX_REASONS	16
#define DS_NETNS_DIR		"/run/netns"	/* where ip netns names them */

struct ds_run {
	const char *baseline;
	bool fail_new;
	const char *reasons[DS_RUN_MAX_REASONS];
	size_t nreasons;
	uint64_t max;		/* UINT64_MAX: no maximum */
	const char *rules;
	const char *output;	/* the report's file; NULL: standard output */
	const char *evidence;	/* the evidence's directory, or NULL */
	uint64_t keep, snaplen;	/* of the evidence */
	bool ktap;
	char **cmd;
	int ncmd;
};

/* The mount point of the cgroup v2 hierarchy, from /proc/self/mountinfo. */
static int ds_cgroup2_root(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[1024], mnt[512], fstype[64];
	const char *dash;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		dash = strstr(line, " - ");
		if (!dash || sscanf(dash + 3, "%63s", fstype) != 1 ||
		    strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1) {
			snprintf(out, len, "%s", mnt);
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -ENOENT;
}

static int ds_run_args(struct ds_run *r, const struct ds_cmd *self, int argc,
		       char **argv)
{
	bool keep = false;
	int a;

	r->max = UINT64_MAX;
	r->keep = 16;
	r->snaplen = 256;
	for (a = 0; a < argc && strcmp(argv[a], "--"); a++) {
		const char *o = argv[a] + (strncmp(argv[a], "--", 2) ? 0 : 2);
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(o, "ktap")) {
			r->ktap = true;
			continue;
		}
		if (!v || !strcmp(v, "--"))
			return ds_usage(self, "each option but --ktap needs a value");
		a++;
		if (!strcmp(o, "baseline")) {
			r->baseline = v;
		} else if (!strcmp(o, "rules") || !strcmp(o, "masks")) {
			r->rules = v;
		} else if (!strcmp(o, "output")) {
			r->output = v;
		} else if (!strcmp(o, "evidence")) {
			r->evidence = v;
		} else if (!strcmp(o, "keep")) {
			if (ds_parse_u64(v, 1, 1024, &r->keep))
				return ds_usage(self, "--keep needs a number of packets, 1 to 1024");
			keep = true;
		} else if (!strcmp(o, "snaplen")) {
			if (ds_parse_u64(v, 1, 65535, &r->snaplen))
				return ds_usage(self, "--snaplen needs a number of bytes, 1 to 65535");
			keep = true;
		} else if (!strcmp(o, "max")) {
			if (ds_parse_u64(v, 0, UINT64_MAX - 1, &r->max))
				return ds_usage(self, "--max needs a number of drops");
		} else if (!strcmp(o, "fail-on") && !strcmp(v, "new")) {
			r->fail_new = true;
		} else if (!strcmp(o, "fail-on") && !strcmp(v, "reason")) {
			if (a + 1 >= argc || !strcmp(argv[a + 1], "--") ||
			    r->nreasons == DS_RUN_MAX_REASONS)
				return ds_usage(self, "--fail-on reason needs a reason (at most 16)");
			r->reasons[r->nreasons++] = argv[++a];
		} else {
			return ds_usage(self, "not an option of run");
		}
	}
	if (a + 1 >= argc)
		return ds_usage(self, "give the command after --");
	if (r->fail_new && !r->baseline)
		return ds_usage(self, "--fail-on new needs --baseline FILE");
	if (keep && !r->evidence)
		return ds_usage(self, "--keep and --snaplen need --evidence DIR");
	r->cmd = argv + a + 1;
	r->ncmd = argc - a - 1;
	return 0;
}

/* The sessions of one part of the run, summed. */
struct ds_run_sess {
	uint64_t opened, closed, bytes_acked, bytes_received;
	uint64_t retransmits, resets_sent, resets_received, drops;
};

/* What the run knows of sessions: tracked, and what it could not see. */
struct ds_run_sessions {
	bool tracked;		/* the tcp part ran through the run */
	uint64_t t0;		/* CLOCK_MONOTONIC before CMD, in ns */
	uint64_t overflow0, closes0;
	struct ds_run_sess cmd, rest;
	uint64_t lost;		/* no room, or closes the ring lost */
	uint32_t run;		/* the run's id */
};

static uint64_t ds_run_since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* Before CMD: the counters the sessions of the run are told by. */
static int ds_run_sess_begin(struct ds_ctx *ctx, struct ds_run_sessions *rs)
{
	struct timespec ts;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	rs->t0 = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (!rs->tracked)
		return 0;
	err = ds_stat_get(ctx, DROPSCOPE_STATS_A_SESSIONS_OVERFLOW,
			  &rs->overflow0);
	return err ? err :
	       ds_stat_get(ctx, DROPSCOPE_STATS_A_SESSIONS_CLOSED, &rs->closes0);
}

/* Is live session e in the closed records of s (from base on)? */
static bool ds_run_closed_since(const struct ds_sessions *s, size_t base,
				const struct ds_session *e)
{
	size_t j;

	for (j = base; j < s->n; j++)
		if (s->v[j].start_ns == e->start_ns &&
		    s->v[j].lport == e->lport && s->v[j].rport == e->rport)
			return true;
	return false;
}

static void ds_run_sess_add(struct ds_run_sess *to, const struct ds_session *e)
{
	to->opened++;
	to->closed += e->closed;
	to->bytes_acked += e->tx_bytes;
	to->bytes_received += e->rx_bytes;
	to->retransmits += e->retransmits;
	to->resets_sent += e->resets_sent;
	to->resets_received += e->resets_received;
	to->drops += e->drops;
}

/*
 * After CMD: the sessions born since t0, from a live dump and then a
 * closed one (a session that closes in between is in both: the closed
 * record counts). A close numbered from closes0 on that the ring no longer
 * has is lost, as is a session that found no room. The evidence's sockets
 * take their processes from the sessions that lived since t0.
 */
static int ds_run_sess_end(struct ds_ctx *ctx, struct ds_run_sessions *rs,
			   struct ds_evidence *ev)
{
	struct ds_sessions s = { 0 };
	uint64_t overflow, closes, seen = 0;
	size_t i, live, n = 0;
	int err;

	if (!rs->tracked)
		return 0;
	err = ds_nl_dump(ctx->nl, DROPSCOPE_CMD_SESSIONS_GET, ds_sessions_cb,
			 ds_sessions_reset, &s);
	live = s.base = s.n;
	if (!err)
		err = ds_nl_dump(ctx->nl, DROPSCOPE_CMD_CLOSED_GET,
				 ds_sessions_cb, ds_sessions_reset, &s);
	if (!err)
		err = ds_stat_get(ctx, DROPSCOPE_STATS_A_SESSIONS_OVERFLOW,
				  &overflow);
	if (!err)
		err = ds_stat_get(ctx, DROPSCOPE_STATS_A_SESSIONS_CLOSED,
				  &closes);
	if (err) {
		free(s.v);
		return err;
	}
	for (i = 0; i < s.n; i++) {
		const struct ds_session *e = &s.v[i];

		if (e->closed && e->seq >= rs->closes0)
			seen++;
		if (e->start_ns < rs->t0 ||
		    (i < live && ds_run_closed_since(&s, live, e)))
			continue;
		if (!e->run || e->run == rs->run)
			ds_run_sess_add(e->run ? &rs->cmd : &rs->rest, e);
	}
	rs->lost = ds_run_since(overflow, rs->overflow0) +
		   ds_run_since(ds_run_since(closes, rs->closes0), seen);
	for (i = 0; ev && i < s.n; i++)
		if (!s.v[i].closed ||
		    s.v[i].start_ns + s.v[i].duration_ns >= rs->t0)
			s.v[n++] = s.v[i];
	if (ev)
		ds_evidence_owners(ev, s.v, n);
	free(s.v);
	return 0;
}

static void ds_run_sess_print(struct ds_print *p, const struct ds_run_sess *s)
{
	ds_print_open_obj(p, "sessions");
	ds_print_u64(p, DS_ANY, "opened", "%" PRIu64 " sessions opened",
		     s->opened);
	ds_print_u64(p, DS_ANY, "closed", " (%" PRIu64 " closed):", s->closed);
	ds_print_u64(p, DS_ANY, "bytes_acked", " %" PRIu64 " bytes acked,",
		     s->bytes_acked);
	ds_print_u64(p, DS_ANY, "bytes_received", " %" PRIu64 " received,",
		     s->bytes_received);
	ds_print_u64(p, DS_ANY, "retransmits", " %" PRIu64 " retransmits,",
		     s->retransmits);
	ds_print_u64(p, DS_ANY, "resets_sent", " resets %" PRIu64 " sent",
		     s->resets_sent);
	ds_print_u64(p, DS_ANY, "resets_received", "/%" PRIu64 " received,",
		     s->resets_received);
	ds_print_u64(p, DS_ANY, "drops", " %" PRIu64 " drops\n", s->drops);
	ds_print_close_obj(p);
}

/* The site of after that is s's (the same key), or NULL. */
static const struct ds_site *ds_run_find(const struct ds_sites *v,
					 const struct ds_site *s)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		const struct ds_site *e = &v->v[i];

		if (e->location == s->location && e->reason == s->reason &&
		    e->ifindex == s->ifindex && e->netns == s->netns &&
		    e->l3 == s->l3 && e->l4 == s->l4 && e->run == s->run)
			return e;
	}
	return NULL;
}

/*
 * The sites of the run: after less before (a site new in after counts
 * whole), those with drops, split into cmd (run id's) and rest (no run's).
 */
static int ds_run_deltas(uint32_t id, const struct ds_sites *before,
			 const struct ds_sites *after, struct ds_sites *cmd,
			 struct ds_sites *rest)
{
	size_t i;

	for (i = 0; i < after->n; i++) {
		const struct ds_site *e = &after->v[i], *b;
		struct ds_sites *to = e->run ? cmd : rest;
		struct ds_site d = *e;

		if (e->run && e->run != id)
			continue;
		b = ds_run_find(before, e);
		if (b) {
			d.total -= b->total < d.total ? b->total : d.total;
			d.masked -= b->masked < d.masked ? b->masked : d.masked;
		}
		if (!d.total && !d.masked)
			continue;
		to->v = ds_grow(to->v, &to->cap, to->n, sizeof(*to->v), 16);
		if (!to->v)
			return -ENOMEM;
		to->v[to->n++] = d;
	}
	qsort(cmd->v, cmd->n, sizeof(*cmd->v), ds_site_cmp_total);
	qsort(rest->v, rest->n, sizeof(*rest->v), ds_site_cmp_total);
	return 0;
}

/* A network namespace and its name, as "ip netns" gives it. */
struct ds_run_ns {
	uint32_t inum;
	char name[64];
};

/* The names of a run's namespaces; nl and run to ask the module. */
struct ds_run_names {
	struct ds_run_ns *v;
	size_t n, cap;
	struct ds_nl *nl;
	uint32_t run;
};

static const char *ds_run_ns_name(const struct ds_run_names *nm,
				  uint32_t inum)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		if (nm->v[i].inum == inum)
			return nm->v[i].name;
	return NULL;
}

/* Name the namespace of inode inum, unless it has a name already. */
static void ds_run_name(struct ds_run_names *nm, uint32_t inum,
			const char *name)
{
	if (ds_run_ns_name(nm, inum))
		return;
	nm->v = ds_grow(nm->v, &nm->cap, nm->n, sizeof(*nm->v), 8);
	if (!nm->v) {
		nm->n = nm->cap = 0;
		return;
	}
	nm->v[nm->n].inum = inum;
	snprintf(nm->v[nm->n++].name, sizeof(nm->v->name), "%s", name);
}

/*
 * The names of the run's namespaces that "ip netns" has mounted under
 * /run/netns now, each kept once seen: CMD may delete them before it
 * ends. The module says whose a namespace is (another run's, or none's:
 * its inode may be one the run's had, once that one is gone). Until ip
 * mounts the namespace on it, a name is an empty file of its own: the
 * number of those is returned.
 */
static int ds_run_names_scan(struct ds_run_names *nm)
{
	DIR *d = opendir(DS_NETNS_DIR);
	int pending = 0, fd;
	uint32_t of, inum;
	char path[320];
	struct dirent *de;
	struct statfs sf;
	struct stat st;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), DS_NETNS_DIR "/%s", de->d_name);
		if (de->d_name[0] == '.' || statfs(path, &sf) || stat(path, &st))
			continue;
		if (sf.f_type != NSFS_MAGIC) {
			pending++;
			continue;
		}
		if (ds_run_ns_name(nm, (uint32_t)st.st_ino))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!ds_run_netns(nm->nl, fd, &of, &inum) && of == nm->run)
			ds_run_name(nm, inum, de->d_name);
		close(fd);
	}
	closedir(d);
	return pending;
}

/*
 * Wait for CMD (pid) to end, keeping the names of the namespaces it
 * mounts: woken by a new name under /run/netns (inotify), then a scan
 * after 1, 2, 4 ... ms up to 128, and every 128 ms while a name waits
 * for its mount (64 times at most); asleep otherwise, so that a long run
 * costs nothing. The child's exit wakes its pidfd; the evidence's
 * packets (ev, or NULL) wake it too.
 */
static int ds_run_wait(pid_t pid, int *st, struct ds_run_names *nm,
		       struct ds_evidence *ev)
{
	int ifd, pfd, ms = -1, tries = 0, pending, n;
	struct pollfd p[3];
	char buf[4096];
	pid_t w;

	/* as ip does; a watch needs the directory */
	mkdir(DS_NETNS_DIR, 0755);
	ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (ifd >= 0 && inotify_add_watch(ifd, DS_NETNS_DIR, IN_CREATE) < 0) {
		close(ifd);
		ifd = -1;
	}
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	p[0] = (struct pollfd){ .fd = pfd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = ifd, .events = POLLIN };
	p[2] = (struct pollfd){ .fd = ev ? ds_evidence_fd(ev) : -1,
				.events = POLLIN };
	for (;;) {
		w = waitpid(pid, st, WNOHANG);
		if (w)
			break;
		/* without a pidfd or a watch, a scan every 128 ms */
		n = poll(p, 3, pfd < 0 || ifd < 0 ? 128 : ms);
		if (n > 0 && (p[2].revents & (POLLIN | POLLERR))) {
			if (!ds_evidence_read(ev))
				p[2].fd = -1;
			if (!(p[1].revents & POLLIN))
				continue;
		}
		if (n < 0 && errno != EINTR) {
			/* no names then: the report still comes */
			while ((w = waitpid(pid, st, 0)) < 0 && errno == EINTR)
				;
			break;
		}
		if (n > 0 && (p[1].revents & POLLIN)) {
			while (read(ifd, buf, sizeof(buf)) > 0)
				;
			tries = 0;
			ms = 1;
		}
		pending = ds_run_names_scan(nm);
		if (ms > 0 && ms < 128)
			ms *= 2;
		else if (ms == 128 && !(pending && ++tries < 64))
			ms = -1;
	}
	if (ifd >= 0)
		close(ifd);
	if (pfd >= 0)
		close(pfd);
	return w < 0 ? -errno : 0;
}

/* The drops of one of CMD's namespaces. */
struct ds_run_ns_drops {
	uint32_t inum;
	uint64_t drops;
};

static int ds_run_ns_cmp(const void *a, const void *b)
{
	const struct ds_run_ns_drops *x = a, *y = b;

	return (x->drops < y->drops) - (x->drops > y->drops);
}

/* CMD's drops by netns, the most first: {netns, name, drops}. */
static void ds_run_netns_print(struct ds_print *p, const struct ds_sites *cmd,
			       const struct ds_run_names *nm)
{
	struct ds_run_ns_drops *v = calloc(cmd->n + 1, sizeof(*v));
	size_t n = 0, i, j;
	const char *name;

	if (!v)
		return;
	for (i = 0; i < cmd->n; i++) {
		for (j = 0; j < n && v[j].inum != cmd->v[i].netns; j++)
			;
		v[j].inum = cmd->v[i].netns;
		v[j].drops += cmd->v[i].total;
		n += j == n;
	}
	qsort(v, n, sizeof(*v), ds_run_ns_cmp);
	ds_print_open_arr(p, "netns");
	for (i = 0; i < n; i++) {
		if (!v[i].drops)
			continue;
		name = ds_run_ns_name(nm, v[i].inum);
		ds_print_open_obj(p, NULL);
		ds_print_u32(p, DS_ANY, "netns", "  netns %" PRIu32, v[i].inum);
		if (name)
			ds_print_str(p, DS_ANY, "name", " (%s)", name);
		else
			ds_print_null(p, DS_JSON, "name", NULL);
		ds_print_u64(p, DS_ANY, "drops", ": %" PRIu64 " drops\n",
			     v[i].drops);
		ds_print_close_obj(p);
	}
	ds_print_close_arr(p);
	free(v);
}

/* The initial netns's inode (init's), 0 if unknown. */
static uint32_t ds_run_init_ns(void)
{
	struct stat st;

	return stat("/proc/1/ns/net", &st) ? 0 : (uint32_t)st.st_ino;
}

static uint64_t ds_run_drops(const struct ds_sites *s)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		n += s->v[i].total;
	return n;
}

/* Is the site (by symbol, or function across builds) in the baseline? */
static bool ds_run_in_baseline(const struct ds_record *b, bool same_build,
			       const struct ds_site *s)
{
	size_t i, n = same_build ? strlen(s->symbol) : strcspn(s->symbol, "+ ");

	for (i = 0; i < b->n; i++) {
		const struct ds_rec_site *e = &b->sites[i];

		if (strcmp(e->reason, s->reason_name))
			continue;
		if (same_build ? !strcmp(e->symbol, s->symbol) :
		    strcspn(e->symbol, "+ ") == n &&
		    !strncmp(e->symbol, s->symbol, n))
			return true;
	}
	return false;
}

/* A condition of the run and what it found. */
struct ds_cond {
	char name[192];
	bool failed;
	char why[256];
};

#define DS_RUN_CONDS	(DS_RUN_MAX_REASONS + 3)

/* The conditions, judged on every drop of the run, CMD's and the rest. */
static size_t ds_run_judge(const struct ds_run *r, const struct ds_record *b,
			   bool same_build, const struct ds_sites *all,
			   int status, struct ds_cond *c)
{
	size_t n = 0, i, j, k;
	uint64_t drops = ds_run_drops(all), hit;

	snprintf(c[n].name, sizeof(c[n].name), "the command exited 0");
	c[n].failed = status != 0;
	snprintf(c[n].why, sizeof(c[n].why), "status %d", status);
	n++;
	if (r->fail_new) {
		snprintf(c[n].name, sizeof(c[n].name), "no site that %s has not",
			 r->baseline);
		c[n].why[0] = '\0';
		for (i = 0, k = 0; i < all->n; i++) {
			if (!all->v[i].total ||
			    ds_run_in_baseline(b, same_build, &all->v[i]))
				continue;
			if (!k++)
				snprintf(c[n].why, sizeof(c[n].why),
					 "new: %s %s", all->v[i].reason_name,
					 all->v[i].symbol);
		}
		c[n].failed = k > 0;
		n++;
	}
	for (j = 0; j < r->nreasons; j++) {
		for (i = 0, hit = 0; i < all->n; i++)
			if (!strcmp(all->v[i].reason_name, r->reasons[j]))
				hit += all->v[i].total;
		snprintf(c[n].name, sizeof(c[n].name), "no drop of reason %s",
			 r->reasons[j]);
		c[n].failed = hit > 0;
		snprintf(c[n].why, sizeof(c[n].why), "%" PRIu64 " drops", hit);
		n++;
	}
	if (r->max != UINT64_MAX) {
		snprintf(c[n].name, sizeof(c[n].name),
			 "at most %" PRIu64 " drops", r->max);
		c[n].failed = drops > r->max;
		snprintf(c[n].why, sizeof(c[n].why), "%" PRIu64 " drops", drops);
		n++;
	}
	return n;
}

/* What the evidence is judged by: the run's sites and the baseline. */
struct ds_run_want {
	const struct ds_sites *all;
	const struct ds_record *base;	/* NULL: no baseline */
	bool same_build;
};

/*
 * A key to write evidence of: one of the run's sites with drops, new
 * against the baseline (every one without a baseline). The mask rules
 * kept the masked ones out already.
 */
static const struct ds_site *ds_run_want_key(void *arg, uint64_t loc,
					     uint32_t reason)
{
	const struct ds_run_want *w = arg;
	size_t i;

	for (i = 0; i < w->all->n; i++) {
		const struct ds_site *s = &w->all->v[i];

		if (s->location == loc && s->reason == reason && s->total &&
		    !(w->base && ds_run_in_baseline(w->base, w->same_build, s)))
			return s;
	}
	return NULL;
}

static void ds_run_report(struct ds_ctx *ctx, const struct ds_run *r,
			  FILE *f, const char *cgroup, int status,
			  const struct ds_run_names *nm,
			  const struct ds_sites *cmd,
			  const struct ds_sites *rest,
			  const struct ds_run_sessions *rs,
			  const struct ds_evidence *ev,
			  const struct ds_cond *c, size_t nc)
{
	struct ds_print p = { .f = f, .json = ctx->json };
	char title[256];
	size_t i;
	int a;

	if (r->ktap) {
		fprintf(f, "KTAP version 1\n1..%zu\n", nc);
		for (i = 0; i < nc; i++)
			fprintf(f, "%sok %zu %s%s%s\n", c[i].failed ? "not " : "",
				i + 1, c[i].name, c[i].why[0] ? " # " : "",
				c[i].why);
		if (ev)
			ds_evidence_ktap(ev, f);
		return;
	}
	ds_print_open_obj(&p, NULL);
	ds_print_u64(&p, DS_ANY, "status", "the command exited %" PRIu64 "\n",
		     (uint64_t)status);
	snprintf(title, sizeof(title),
		 "%%" PRIu64 " drops of the command's (cgroup %s and the namespaces it made)\n",
		 cgroup);
	ds_print_open_obj(&p, "cmd");
	ds_print_open_arr(&p, "argv");
	for (a = 0; a < r->ncmd; a++)
		ds_print_str(&p, DS_JSON, NULL, NULL, r->cmd[a]);
	ds_print_close_arr(&p);
	ds_print_str(&p, DS_JSON, "cgroup", NULL, cgroup);
	ds_print_u64(&p, DS_ANY, "drops", title, ds_run_drops(cmd));
	ds_run_netns_print(&p, cmd, nm);
	ds_sites_print_as(&p, "sites", cmd->v, cmd->n, cmd->n);
	if (rs->tracked)
		ds_run_sess_print(&p, &rs->cmd);
	ds_print_close_obj(&p);
	ds_print_open_obj(&p, "rest");
	ds_print_u64(&p, DS_ANY, "drops",
		     "%" PRIu64 " drops of the rest of the system\n",
		     ds_run_drops(rest));
	ds_sites_print_as(&p, "sites", rest->v, rest->n, rest->n);
	if (rs->tracked)
		ds_run_sess_print(&p, &rs->rest);
	ds_print_close_obj(&p);
	if (rs->tracked)
		ds_print_u64(&p, DS_ANY, "sessions_lost", rs->lost ?
			     "%" PRIu64 " sessions of the run not seen: the table was full, or the ring of closes lost them (start with more sessions or closed)\n" :
			     "", rs->lost);
	else
		ds_print_text(&p, "sessions: not tracked (monitoring runs without tcp)\n");
	if (ev)
		ds_evidence_print(ev, &p);
	ds_print_open_arr(&p, "failed");
	for (i = 1; i < nc; i++) {
		if (!c[i].failed)
			continue;
		ds_print_str(&p, DS_JSON, NULL, NULL, c[i].name);
		ds_print_text(&p, "failed: %s (%s)\n", c[i].name, c[i].why);
	}
	ds_print_close_arr(&p);
	ds_print_close_obj(&p);
}

/*
 * Run CMD in the cgroup dir; its exit status, as a shell gives it. While
 * it runs, the names of the namespaces it mounts are kept in nm.
 */
static int ds_run_child(const struct ds_run *r, const char *dir,
			struct ds_run_names *nm, struct ds_evidence *ev)
{
	char procs[640];
	pid_t pid, w;
	int st, fd;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		fd = open(procs, O_WRONLY);
		if (fd < 0 || write(fd, "0\n", 2) != 2) {
			fprintf(stderr, "dropscope: run: cannot join %s: %s\n",
				dir, strerror(errno));
			_exit(126);
		}
		close(fd);
		execvp(r->cmd[0], r->cmd);
		fprintf(stderr, "dropscope: run: %s: %s\n", r->cmd[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* Ctrl-C reaches the command (same process group); wait for it */
	signal(SIGINT, SIG_IGN);
	w = ds_run_wait(pid, &st, nm, ev);
	signal(SIGINT, SIG_DFL);
	if (w < 0)
		return w;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int cmd_run(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	    char **argv)
{
	struct ds_sites before = { 0 }, after = { 0 }, cmd = { 0 }, rest = { 0 };
	struct ds_sites all = { 0 };
	struct ds_record base = { 0 };
	struct ds_rules rules = { 0 };
	struct ds_cond conds[DS_RUN_CONDS];
	struct ds_run_sessions rs = { 0 };
	struct ds_run_names nm = { 0 };
	struct ds_evidence *ev = NULL;
	struct ds_run_want want;
	struct ds_run r = { 0 };
	struct ds_config cfg;
	char root[512], dir[600], id_s[32];
	uint32_t *ids = NULL;
	bool same_build = true;
	size_t nc, failed_at = 0, i;
	struct stat st;
	int err, status = 0;
	FILE *f;

	err = ds_run_args(&r, self, argc, argv);
	if (err)
		return err;
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	if (r.baseline) {
		f = fopen(r.baseline, "r");
		if (!f) {
			fprintf(stderr, "dropscope: run: %s: %s\n", r.baseline,
				strerror(errno));
			return DS_EUSAGE;
		}
		err = ds_record_read(f, r.baseline, &base);
		fclose(f);
		if (err)
			return err;
	}
	if (r.rules) {
		f = fopen(r.rules, "r");
		if (!f) {
			fprintf(stderr, "dropscope: run: %s: %s\n", r.rules,
				strerror(errno));
			err = DS_EUSAGE;
			goto out_base;
		}
		err = ds_rules_read(ctx, f, r.rules, &rules);
		fclose(f);
		if (err)
			goto out_base;
	}
	if (ds_cgroup2_root(root, sizeof(root))) {
		fprintf(stderr, "dropscope: run: no cgroup2 file system is mounted (mount -t cgroup2 none /sys/fs/cgroup)\n");
		err = DS_EFAIL;
		goto out_base;
	}
	snprintf(dir, sizeof(dir), "%s/dropscope-run.%d", root, (int)getpid());
	if (mkdir(dir, 0755) || stat(dir, &st)) {
		fprintf(stderr, "dropscope: run: %s: %s\n", dir, strerror(errno));
		err = DS_EFAIL;
		goto out_base;
	}
	/* a cgroup's id is its directory's inode number */
	snprintf(id_s, sizeof(id_s), "%llu", (unsigned long long)st.st_ino);
	err = ds_run_start(ctx->nl, (uint64_t)st.st_ino, &rs.run);
	if (err) {
		err = ds_fail(ctx, err);
		goto out_dir;
	}
	if (rules.n) {
		ids = calloc(rules.n, sizeof(*ids));
		err = ids ? ds_rules_add_all(ctx->nl, &rules, ids, &failed_at) :
			    -ENOMEM;
		if (err) {
			fprintf(stderr, "dropscope: run: %s: rule %zu: %s\n",
				r.rules, failed_at + 1, ds_nl_error(ctx->nl));
			err = ds_nl_status(err);
			free(ids);
			ids = NULL;
			goto out_scope;
		}
	}
	if (r.evidence) {
		err = ds_evidence_start(r.evidence, rs.run, (uint32_t)r.keep,
					(uint32_t)r.snaplen, &ev);
		if (err)
			goto out_stop;
	}
	/* the run started monitoring when nothing ran it */
	err = ds_config_fetch(ctx->nl, &cfg);
	ds_run_name(&nm, ds_run_init_ns(), "init_net");
	nm.nl = ctx->nl;
	nm.run = rs.run;
	rs.tracked = !err && (cfg.parts & DROPSCOPE_PART_TCP);
	if (!err)
		err = ds_run_sess_begin(ctx, &rs);
	if (!err)
		err = ds_sites_fetch(ctx->nl, &before);
	if (err) {
		err = ds_fail(ctx, err);
		goto out_stop;
	}
	status = ds_run_child(&r, dir, &nm, ev);
	if (status < 0) {
		fprintf(stderr, "dropscope: run: %s\n", strerror(-status));
		err = DS_EFAIL;
		goto out_stop;
	}
	if (ev)
		ds_evidence_stop(ev);
	err = ds_sites_fetch(ctx->nl, &after);
	if (!err)
		err = ds_run_sess_end(ctx, &rs, ev);
	if (err) {
		err = ds_fail(ctx, err);
		goto out_stop;
	}
	if (ds_run_deltas(rs.run, &before, &after, &cmd, &rest)) {
		err = DS_EFAIL;
		goto out_stop;
	}
	/* the conditions look at both parts */
	for (i = 0; i < cmd.n + rest.n; i++) {
		all.v = ds_grow(all.v, &all.cap, all.n, sizeof(*all.v), 16);
		if (!all.v) {
			err = DS_EFAIL;
			goto out_stop;
		}
		all.v[all.n++] = i < cmd.n ? cmd.v[i] : rest.v[i - cmd.n];
	}
	if (r.baseline) {
		struct ds_record now = { 0 };

		ds_record_take(ctx, &now);
		same_build = !strcmp(now.kernel, base.kernel) &&
			     !strcmp(now.build, base.build) &&
			     !strcmp(now.build_id, base.build_id);
		ds_record_free(&now);
	}
	nc = ds_run_judge(&r, &base, same_build, &all, status, conds);
	want = (struct ds_run_want){
		.all = &all, .base = r.baseline ? &base : NULL,
		.same_build = same_build,
	};
	if (ev && ds_evidence_write(ev, ctx, ds_run_want_key, &want)) {
		err = DS_EFAIL;
		goto out_stop;
	}
	f = r.output ? fopen(r.output, "w") : stdout;
	if (!f) {
		fprintf(stderr, "dropscope: run: %s: %s\n", r.output,
			strerror(errno));
		err = DS_EFAIL;
		goto out_stop;
	}
	ds_run_report(ctx, &r, f, id_s, status, &nm, &cmd, &rest, &rs, ev,
		      conds, nc);
	if (f != stdout && fclose(f)) {
		fprintf(stderr, "dropscope: run: %s: write failed\n", r.output);
		err = DS_EFAIL;
		goto out_stop;
	}
	err = status;
	for (i = 1; i < nc; i++)
		if (conds[i].failed)
			err = DS_ECONDITION;
out_stop:
	ds_evidence_free(ev);
	if (ids)
		ds_rules_del_all(ctx->nl, ids, rules.n);
out_scope:
	ds_run_stop(ctx->nl, rs.run);
out_dir:
	if (rmdir(dir))
		fprintf(stderr, "dropscope: run: %s stays: %s (processes of the command still in it?)\n",
			dir, strerror(errno));
out_base:
	free(ids);
	free(rules.v);
	free(before.v);
	free(after.v);
	free(cmd.v);
	free(rest.v);
	free(all.v);
	free(nm.v);
	ds_record_free(&base);
	return err;
}
