// SPDX-License-Identifier: GPL-2.0
/*
 * export: the module's totals in the Prometheus text format, served on
 * /metrics (libmicrohttpd) and/or written to a node_exporter textfile.
 *
 * Every read asks the module for its totals (stats, sites, SMC) and turns
 * them into series (lib/metrics.c: counters that never go backwards,
 * across the module's restarts too, through its epoch; bounded site
 * labels). A series, once seen, is exported for the exporter's lifetime,
 * with its last value while the module is away.
 *
 * Drops between the exporter's last read and a restart of the module's
 * totals are not seen: reads happen on every scrape and every interval.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "dropscope.h"

#define DS_EXPORT_PORT		"9717"
#define DS_EXPORT_SITES		100
#define DS_EXPORT_INTERVAL_MS	15000

/* The exporter: the series, and the session they are read through. The
 * HTTP thread and the loop read under lock. */
struct ds_exporter {
	pthread_mutex_t lock;
	struct ds_ctx *ctx;
	bool warned;
	struct ds_metrics m;
};

/* Drop the netlink session: the next read opens a new one. */
static void ds_export_down(struct ds_exporter *x, const char *why)
{
	if (x->m.up)
		fprintf(stderr, "dropscope: export: lost dropscope.ko (%s): counters kept at their last values\n",
			why);
	else if (!x->warned)
		fprintf(stderr, "dropscope: export: %s: waiting for it\n", why);
	x->warned = true;
	x->m.up = false;
	ds_nl_close(x->ctx->nl);
	x->ctx->nl = NULL;
}

/* smc.ko's link groups and buffers, while it is there. */
static void ds_export_smc_kernel(struct ds_metrics *m)
{
	struct ds_smc_stats st;
	struct ds_smc_lgrs g;

	if (!ds_smc_loaded() || ds_smc_read(&st))
		return;
	free(st.fb);
	if (ds_smc_lgrs_read(&g))
		return;
	ds_metrics_smc_kernel(m, &st, &g);
	free(g.v);
}

/* One read of the module's totals into the series. Under x->lock. */
static void ds_export_read(struct ds_exporter *x)
{
	struct ds_sites sites = { 0 };
	struct ds_smc_own o = { 0 };
	struct ds_metrics *m = &x->m;
	struct ds_ctx *ctx = x->ctx;
	struct ds_stats_read st;
	char why[256];
	int err;

	if (!ctx->nl && ds_nl_open(&ctx->nl)) {
		snprintf(why, sizeof(why), "%s", ds_nl_error(ctx->nl));
		ds_export_down(x, why);
		return;
	}
	err = ds_stats_fetch(ctx->nl, &st);
	if (!err && !st.has[DROPSCOPE_STATS_A_EPOCH])
		err = -EPROTO;
	if (!err)
		err = ds_sites_fetch(ctx->nl, &sites);
	if (err) {
		snprintf(why, sizeof(why), "%s",
			 err == -EPROTO ? "this dropscope.ko reports no epoch: load the one of this CLI" :
			 ds_nl_error(ctx->nl));
		free(sites.v);
		if (m->up)
			ds_metric_add(m, DS_MF_READ_ERRORS, 1);
		ds_export_down(x, why);
		return;
	}
	if (!m->up)
		fprintf(stderr, "dropscope: export: dropscope.ko answers\n");
	m->up = true;
	m->reads++;
	ds_metrics_epoch(m, st.v[DROPSCOPE_STATS_A_EPOCH]);
	ds_metrics_stats(m, st.v);
	ds_metrics_sites(m, &sites);
	/* the traps, device counters and qdisc drops */
	sites.n = 0;
	if (!ds_sites_fetch_layers(ctx->nl, &sites,
				   1U << DS_LAYER_HW | 1U << DS_LAYER_DEV |
				   1U << DS_LAYER_QDISC))
		ds_metrics_layers(m, &sites);
	free(sites.v);
	/* SMC's counters, when it is hooked */
	if (!ds_smc_own_fetch(ctx->nl, &o))
		ds_metrics_smc(m, &o);
	ds_smc_own_free(&o);
	ds_export_smc_kernel(m);
	ds_metrics_finish(m);
}

/* Write path atomically: a temporary file beside it, then rename. */
static int ds_textfile_write(const char *path, const char *text, size_t len)
{
	char tmp[4096];
	FILE *f;
	int n;

	n = snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	if (fwrite(text, 1, len, f) != len || fflush(f) || fsync(fileno(f))) {
		n = -errno;
		fclose(f);
		unlink(tmp);
		return n ? n : -EIO;
	}
	if (fclose(f) || rename(tmp, path)) {
		n = -errno;
		unlink(tmp);
		return n;
	}
	return 0;
}

/* libmicrohttpd: opened when export listens */
#define DS_MHD_SYMS(X) X(MHD_create_response_from_buffer) \
	X(MHD_add_response_header) X(MHD_queue_response) \
	X(MHD_destroy_response) X(MHD_start_daemon) X(MHD_stop_daemon)
static struct { DS_MHD_SYMS(DS_DL_PTR) } ds_mhd;
static const char *const ds_mhd_names[] = { DS_MHD_SYMS(DS_DL_NAME) };

static enum MHD_Result ds_http_reply(struct MHD_Connection *c,
				     unsigned int status, const char *type,
				     char *body, size_t len,
				     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = ds_mhd.MHD_create_response_from_buffer(len, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	ds_mhd.MHD_add_response_header(r, "Content-Type", type);
	ret = ds_mhd.MHD_queue_response(c, status, r);
	ds_mhd.MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result ds_http(void *cls, struct MHD_Connection *c,
			       const char *url, const char *method,
			       const char *version, const char *upload,
			       size_t *upload_len, void **req)
{
	static char not_found[] = "not found: the metrics are on /metrics\n";
	static char not_allowed[] = "only GET and HEAD\n";
	static char home[] = "<html><body><a href=\"/metrics\">/metrics</a></body></html>\n";
	struct ds_exporter *x = cls;
	size_t len = 0;
	char *text;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)req;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return ds_http_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				     "text/plain", not_allowed,
				     strlen(not_allowed), MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/"))
		return ds_http_reply(c, MHD_HTTP_OK, "text/html", home,
				     strlen(home), MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return ds_http_reply(c, MHD_HTTP_NOT_FOUND, "text/plain",
				     not_found, strlen(not_found),
				     MHD_RESPMEM_PERSISTENT);
	pthread_mutex_lock(&x->lock);
	ds_export_read(x);
	text = ds_metrics_text(&x->m, &len);
	pthread_mutex_unlock(&x->lock);
	if (!text)
		return MHD_NO;
	return ds_http_reply(c, MHD_HTTP_OK,
			     "text/plain; version=0.0.4; charset=utf-8", text,
			     len, MHD_RESPMEM_MUST_FREE);
}

/*
 * ADDR:PORT, [ADDR6]:PORT or PORT (localhost) into a bound, listening
 * socket; what went wrong is said in why.
 */
int ds_export_listen(const char *spec, char *why, size_t len)
{
	struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV,
	}, *ai = NULL;
	char host[256], port[16];
	const char *colon;
	int fd, one = 1, err;
	size_t hl;

	colon = strrchr(spec, ':');
	if (!colon && strspn(spec, "0123456789") != strlen(spec)) {
		snprintf(why, len, "expected ADDR:PORT (e.g. 127.0.0.1:%s) or PORT",
			 DS_EXPORT_PORT);
		return -EINVAL;
	}
	if (!colon) {
		snprintf(host, sizeof(host), "127.0.0.1");
		colon = spec - 1;
	} else {
		hl = (size_t)(colon - spec);
		if (spec[0] == '[' && hl >= 2 && spec[hl - 1] == ']') {
			spec++;
			hl -= 2;
		}
		if (!hl || hl >= sizeof(host)) {
			snprintf(why, len, "expected ADDR:PORT (e.g. 127.0.0.1:%s) or PORT",
				 DS_EXPORT_PORT);
			return -EINVAL;
		}
		memcpy(host, spec, hl);
		host[hl] = '\0';
	}
	if (strlen(colon + 1) >= sizeof(port) || !colon[1] ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    atol(colon + 1) < 1 || atol(colon + 1) > 65535) {
		snprintf(why, len, "the port must be a number from 1 to 65535");
		return -EINVAL;
	}
	snprintf(port, sizeof(port), "%s", colon + 1);
	err = getaddrinfo(host, port, &hints, &ai);
	if (err) {
		snprintf(why, len, "%s: %s", host, gai_strerror(err));
		return -EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		err = -errno;
		snprintf(why, len, "cannot listen on %s port %s: %s", host, port,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return err;
	}
	freeaddrinfo(ai);
	return fd;
}

struct ds_export {
	struct ds_exporter *x;
	const char *textfile;
	uint64_t interval_ms, next;
	int status;
};

/* Each interval: a read, and the textfile if there is one. */
static int ds_export_turn(void *arg, int *wait_ms)
{
	struct ds_export *e = arg;
	uint64_t now = ds_now_ms();
	size_t len = 0;
	char *text;
	int err;

	if (now >= e->next) {
		pthread_mutex_lock(&e->x->lock);
		ds_export_read(e->x);
		text = e->textfile ? ds_metrics_text(&e->x->m, &len) : NULL;
		pthread_mutex_unlock(&e->x->lock);
		if (e->textfile) {
			err = text ? ds_textfile_write(e->textfile, text, len) :
				     -ENOMEM;
			free(text);
			if (err) {
				fprintf(stderr, "dropscope: export: cannot write %s: %s\n",
					e->textfile, strerror(-err));
				e->status = DS_EFAIL;
				return 1;
			}
		}
		e->next = now + e->interval_ms;
	}
	if (e->next - now < (uint64_t)*wait_ms)
		*wait_ms = (int)(e->next - now);
	return 0;
}

int cmd_export(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	       char **argv)
{
	struct ds_exporter x = { .ctx = ctx, .m.max_sites = DS_EXPORT_SITES };
	struct ds_export e = { .x = &x, .interval_ms = DS_EXPORT_INTERVAL_MS };
	const char *listen_at = NULL;
	struct MHD_Daemon *d = NULL;
	struct ds_loop l = { 0 };
	uint64_t sites = DS_EXPORT_SITES;
	char why[512], what[600];
	int a, err, fd = -1;

	for (a = 0; a < argc; a++) {
		const char *o = argv[a] + (strncmp(argv[a], "--", 2) ? 0 : 2);

		if (a + 1 == argc)
			return ds_usage(self, "each option needs a value");
		if (!strcmp(o, "listen")) {
			listen_at = argv[++a];
		} else if (!strcmp(o, "textfile")) {
			e.textfile = argv[++a];
			if (!*e.textfile)
				return ds_usage(self, "textfile needs a path");
		} else if (!strcmp(o, "interval")) {
			if (ds_parse_duration_ms(argv[++a], &e.interval_ms) ||
			    e.interval_ms < 100 || e.interval_ms > 3600000)
				return ds_usage(self, "interval needs a duration from 100ms to 1h");
		} else if (!strcmp(o, "sites")) {
			if (ds_parse_u64(argv[++a], 1, 100000, &sites))
				return ds_usage(self, "sites needs a number from 1 to 100000");
		} else {
			return ds_usage(self, "unknown option");
		}
	}
	if (!listen_at && !e.textfile)
		listen_at = "127.0.0.1:" DS_EXPORT_PORT;
	x.m.max_sites = (size_t)sites;
	if (listen_at && ds_dl_open(DS_SO_MHD, ds_mhd_names, DS_N(ds_mhd_names),
				    &ds_mhd, why, sizeof(why))) {
		fprintf(stderr, "dropscope: export: --listen: %s\n", why);
		return DS_EFAIL;
	}
	if (listen_at) {
		fd = ds_export_listen(listen_at, why, sizeof(why));
		if (fd < 0) {
			fprintf(stderr, "dropscope: export: --listen %s: %s\n",
				listen_at, why);
			return fd == -EINVAL ? DS_EUSAGE : DS_EFAIL;
		}
	}
	pthread_mutex_init(&x.lock, NULL);
	if (fd >= 0) {
		d = ds_mhd.MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
					    MHD_USE_ERROR_LOG, 0, NULL, NULL,
					    ds_http, &x,
					    MHD_OPTION_LISTEN_SOCKET, fd,
					    MHD_OPTION_CONNECTION_TIMEOUT, 30U,
					    MHD_OPTION_END);
		if (!d) {
			fprintf(stderr, "dropscope: export: the HTTP server did not start\n");
			close(fd);
			pthread_mutex_destroy(&x.lock);
			return DS_EFAIL;
		}
	}
	snprintf(what, sizeof(what), "export%s%s%s%s", listen_at ? " on http://" : "",
		 listen_at ? listen_at : "", listen_at ? "/metrics" : "",
		 e.textfile ? " to the textfile" : "");
	l.on_turn = ds_export_turn;
	l.arg = &e;
	l.what = what;
	err = ds_watch_loop(&l);
	if (!e.status)
		e.status = err;
	if (d)
		ds_mhd.MHD_stop_daemon(d);
	pthread_mutex_destroy(&x.lock);
	ds_metrics_free(&x.m);
	return e.status;
}

