// SPDX-License-Identifier: GPL-2.0
/*
 * export: the module's totals in the Prometheus text format, served on
 * /metrics (libmicrohttpd) and/or written to a node_exporter textfile.
 *
 * Every read asks the module for its totals (stats, sites, SMC) and turns
 * them into series. Counters never go backwards, across the module's own
 * restarts too: each series keeps the last value the module gave (last)
 * and what earlier epochs of the module had counted (base), and exports
 * base + last. The module's epoch (DROPSCOPE_STATS_A_EPOCH) changes when
 * its totals start again from zero (start, reset, unload and load): then
 * every series' last moves into its base. A series, once seen, is
 * exported for the exporter's lifetime, with its last value while the
 * module is away, so that nothing disappears.
 *
 * Site labels are bounded: the first N sites seen (by reason and site)
 * get their own series, every later one is summed into site="other" of
 * its reason. Membership never changes once given, so "other" only grows.
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

struct ds_family {
	const char *name;
	const char *type;
	const char *help;
};

static const struct ds_family ds_families[DS_MF_COUNT] = {
	[DS_MF_UP] = { "dropscope_up", "gauge",
		"1 when dropscope.ko answered the last read, 0 when it is not loaded" },
	[DS_MF_EPOCHS] = { "dropscope_exporter_epochs_total", "counter",
		"Times the module's totals were seen to start again from zero (start, reset, reload)" },
	[DS_MF_READ_ERRORS] = { "dropscope_exporter_read_errors_total", "counter",
		"Reads of the module's totals that failed" },
	[DS_MF_SITES_LIMIT] = { "dropscope_exporter_site_labels_limit", "gauge",
		"Sites with a label of their own at most; the rest are site=\"other\"" },
	[DS_MF_DROPS] = { "dropscope_drops_total", "counter",
		"Drops counted at each drop site and reason, masked ones included" },
	[DS_MF_DROPS_MASKED] = { "dropscope_drops_masked_total", "counter",
		"Drops of dropscope_drops_total that the mask rules masked" },
	[DS_MF_UNSITED] = { "dropscope_drops_unsited_total", "counter",
		"Drops counted in no site: the site table was full, or no memory" },
	[DS_MF_SITES] = { "dropscope_sites", "gauge",
		"Distinct drop sites the module knows" },
	[DS_MF_ROUNDS] = { "dropscope_alert_rounds_total", "counter",
		"Alert rounds sent" },
	[DS_MF_ALERTS] = { "dropscope_alerts_sent_total", "counter",
		"Alert messages sent" },
	[DS_MF_ALERTS_LOST] = { "dropscope_alerts_lost_total", "counter",
		"Alert messages some listener missed" },
	[DS_MF_ALERTS_HELD] = { "dropscope_alerts_held_total", "counter",
		"Site alerts left out, by cause: the top cap or the rate cap" },
	[DS_MF_FOLDS] = { "dropscope_folds_total", "counter",
		"Times the per-CPU counters were folded" },
	[DS_MF_SESS_OPENED] = { "dropscope_tcp_sessions_opened_total", "counter",
		"TCP sessions tracked" },
	[DS_MF_SESS_CLOSED] = { "dropscope_tcp_sessions_closed_total", "counter",
		"TCP sessions closed" },
	[DS_MF_SESS_LIVE] = { "dropscope_tcp_sessions_live", "gauge",
		"TCP sessions live now" },
	[DS_MF_SESS_LOST] = { "dropscope_tcp_sessions_lost_total", "counter",
		"TCP session records lost, by cause: table full, close overwritten unread, close unseen" },
	[DS_MF_SESS_MASKED] = { "dropscope_tcp_session_drops_masked_total", "counter",
		"Drops of tracked sessions that the mask rules masked" },
	[DS_MF_SMC_FALLBACKS] = { "dropscope_smc_fallbacks_total", "counter",
		"SMC connections that fell back to TCP, by reason code and side" },
	[DS_MF_SMC_BYTES] = { "dropscope_smc_bytes_total", "counter",
		"SMC payload bytes, by direction and mode" },
	[DS_MF_SMC_COPIES] = { "dropscope_smc_copies_total", "counter",
		"SMC copies to send buffers (tx) and from receive buffers (rx), by mode" },
	[DS_MF_SMC_DEV_BYTES] = { "dropscope_smc_device_bytes_total", "counter",
		"SMC-R payload bytes by RDMA device and direction" },
	[DS_MF_SMC_LINK_DOWNS] = { "dropscope_smc_link_downs_total", "counter",
		"SMC-R links gone down" },
};

static bool ds_is_counter(int family)
{
	return !strcmp(ds_families[family].type, "counter");
}

struct ds_series {
	int family;
	char *labels;		/* 'a="x",b="y"', or "" */
	uint64_t base;		/* what earlier epochs counted */
	uint64_t last;		/* the module's value at the last read */
	uint64_t cur;		/* the value being read */
	uint64_t seen;		/* m->reads of the last read that set it */
};

/* A site that has a label of its own: by reason name and symbol. */
struct ds_label {
	char *key;
};

struct ds_metrics {
	pthread_mutex_t lock;
	struct ds_ctx *ctx;
	struct ds_series *v;
	size_t n, cap;
	struct ds_label *sites;
	size_t nsites, capsites, max_sites;
	bool have_epoch, up, warned;
	uint64_t epoch, reads;
};

/* Label values escaped as the text format wants: \\, \", \n. */
static void ds_label_esc(char *out, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			out[o++] = '\\';
			out[o++] = *s;
		} else if (*s == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = *s;
		}
	}
	out[o] = '\0';
}

static struct ds_series *ds_series_get(struct ds_metrics *m, int family,
				       const char *labels)
{
	struct ds_series *s;
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i].family == family && !strcmp(m->v[i].labels, labels))
			return &m->v[i];
	s = ds_grow(m->v, &m->cap, m->n, sizeof(*s), 64);
	if (!s)
		return NULL;
	m->v = s;
	s = &m->v[m->n];
	memset(s, 0, sizeof(*s));
	s->family = family;
	s->labels = strdup(labels);
	if (!s->labels)
		return NULL;
	m->n++;
	return s;
}

/*
 * One value the module gave, in this read. Several calls for one series
 * in one read add up (the sites summed into "other").
 */
void ds_metric(struct ds_metrics *m, int family, const char *labels,
	       uint64_t v)
{
	struct ds_series *s = ds_series_get(m, family, labels);

	if (!s)
		return;
	if (s->seen != m->reads) {
		s->seen = m->reads;
		s->cur = 0;
	}
	s->cur += v;
}

/* Events of the exporter's own (read errors, epochs): n more. */
static void ds_metric_add(struct ds_metrics *m, int family, uint64_t n)
{
	struct ds_series *s = ds_series_get(m, family, "");

	if (s)
		s->base += n;
}

/*
 * The end of a read: each series seen takes its new value. A counter
 * that went down without a new epoch (it cannot, but never trust it)
 * keeps what it had in its base.
 */
static void ds_metrics_finish(struct ds_metrics *m)
{
	struct ds_series *s;
	size_t i;

	for (i = 0; i < m->n; i++) {
		s = &m->v[i];
		if (s->seen != m->reads)
			continue;
		if (ds_is_counter(s->family) && s->cur < s->last)
			s->base += s->last;
		s->last = s->cur;
	}
}

/* Does the site (reason, symbol) get a label of its own? */
static bool ds_site_labelled(struct ds_metrics *m, const char *key)
{
	struct ds_label *l;
	size_t i;

	for (i = 0; i < m->nsites; i++)
		if (!strcmp(m->sites[i].key, key))
			return true;
	if (m->nsites >= m->max_sites)
		return false;
	l = ds_grow(m->sites, &m->capsites, m->nsites, sizeof(*l), 64);
	if (!l)
		return false;
	m->sites = l;
	l[m->nsites].key = strdup(key);
	if (!l[m->nsites].key)
		return false;
	m->nsites++;
	return true;
}

static void ds_metrics_stats(struct ds_metrics *m, const uint64_t *v)
{
	static const struct {
		int family, attr;
		const char *labels;
	} map[] = {
		{ DS_MF_UNSITED, DROPSCOPE_STATS_A_OVERFLOW, "cause=\"table_full\"" },
		{ DS_MF_UNSITED, DROPSCOPE_STATS_A_ALLOC_FAILS, "cause=\"no_memory\"" },
		{ DS_MF_SITES, DROPSCOPE_STATS_A_SITES, "" },
		{ DS_MF_ROUNDS, DROPSCOPE_STATS_A_ROUNDS, "" },
		{ DS_MF_ALERTS, DROPSCOPE_STATS_A_ALERTS_SENT, "" },
		{ DS_MF_ALERTS_LOST, DROPSCOPE_STATS_A_ALERTS_LOST, "" },
		{ DS_MF_ALERTS_HELD, DROPSCOPE_STATS_A_TOP_SUPPRESSED, "cause=\"top\"" },
		{ DS_MF_ALERTS_HELD, DROPSCOPE_STATS_A_RATELIMITED, "cause=\"ratelimit\"" },
		{ DS_MF_FOLDS, DROPSCOPE_STATS_A_FOLDS, "" },
		{ DS_MF_SESS_OPENED, DROPSCOPE_STATS_A_SESSIONS_OPENED, "" },
		{ DS_MF_SESS_CLOSED, DROPSCOPE_STATS_A_SESSIONS_CLOSED, "" },
		{ DS_MF_SESS_LIVE, DROPSCOPE_STATS_A_SESSIONS_LIVE, "" },
		{ DS_MF_SESS_LOST, DROPSCOPE_STATS_A_SESSIONS_OVERFLOW, "cause=\"table_full\"" },
		{ DS_MF_SESS_LOST, DROPSCOPE_STATS_A_SESSIONS_UNREAD, "cause=\"unread\"" },
		{ DS_MF_SESS_LOST, DROPSCOPE_STATS_A_SESSIONS_STALE, "cause=\"stale\"" },
		{ DS_MF_SESS_MASKED, DROPSCOPE_STATS_A_SESSIONS_DROPS_MASKED, "" },
	};
	size_t i;

	for (i = 0; i < DS_N(map); i++)
		ds_metric(m, map[i].family, map[i].labels, v[map[i].attr]);
}

static void ds_metrics_sites(struct ds_metrics *m, const struct ds_sites *s)
{
	char reason[160], site[400], labels[600], key[400];
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct ds_site *e = &s->v[i];

		snprintf(key, sizeof(key), "%s %s", e->reason_name, e->symbol);
		ds_label_esc(reason, sizeof(reason), e->reason_name);
		if (ds_site_labelled(m, key))
			ds_label_esc(site, sizeof(site), e->symbol);
		else
			snprintf(site, sizeof(site), "other");
		snprintf(labels, sizeof(labels), "reason=\"%s\",site=\"%s\"",
			 reason, site);
		ds_metric(m, DS_MF_DROPS, labels, e->total + e->masked);
		ds_metric(m, DS_MF_DROPS_MASKED, labels, e->masked);
	}
}

/* Drop the netlink session: the next read opens a new one. */
static void ds_metrics_down(struct ds_metrics *m, const char *why)
{
	struct ds_ctx *ctx = m->ctx;

	if (m->up)
		fprintf(stderr, "dropscope: export: lost dropscope.ko (%s): counters kept at their last values\n",
			why);
	else if (!m->warned)
		fprintf(stderr, "dropscope: export: %s: waiting for it\n", why);
	m->warned = true;
	m->up = false;
	ds_nl_close(ctx->nl);
	ctx->nl = NULL;
}

/* dropscope's SMC counters as metrics; nothing while SMC is not hooked. */
static void ds_smc_metrics(struct ds_nl *nl, struct ds_metrics *m)
{
	static const struct {
		int family, attr;
		const char *labels;
	} map[] = {
		{ DS_MF_SMC_BYTES, DROPSCOPE_SMC_A_SMCR_TX_BYTES, "direction=\"tx\",mode=\"smcr\"" },
		{ DS_MF_SMC_BYTES, DROPSCOPE_SMC_A_SMCR_RX_BYTES, "direction=\"rx\",mode=\"smcr\"" },
		{ DS_MF_SMC_BYTES, DROPSCOPE_SMC_A_SMCD_TX_BYTES, "direction=\"tx\",mode=\"smcd\"" },
		{ DS_MF_SMC_BYTES, DROPSCOPE_SMC_A_SMCD_RX_BYTES, "direction=\"rx\",mode=\"smcd\"" },
		{ DS_MF_SMC_COPIES, DROPSCOPE_SMC_A_SMCR_TX_EVENTS, "direction=\"tx\",mode=\"smcr\"" },
		{ DS_MF_SMC_COPIES, DROPSCOPE_SMC_A_SMCR_RX_EVENTS, "direction=\"rx\",mode=\"smcr\"" },
		{ DS_MF_SMC_COPIES, DROPSCOPE_SMC_A_SMCD_TX_EVENTS, "direction=\"tx\",mode=\"smcd\"" },
		{ DS_MF_SMC_COPIES, DROPSCOPE_SMC_A_SMCD_RX_EVENTS, "direction=\"rx\",mode=\"smcd\"" },
		{ DS_MF_SMC_LINK_DOWNS, DROPSCOPE_SMC_A_LINK_DOWNS, "" },
	};
	struct ds_smc_own o = { 0 };
	char labels[256];
	size_t i;

	if (ds_smc_own_fetch(nl, &o) || !o.hooked)
		goto out;
	for (i = 0; i < DS_N(map); i++)
		ds_metric(m, map[i].family, map[i].labels, o.v[map[i].attr]);
	for (i = 0; i < o.fbs.nfb; i++) {
		const struct ds_smc_fback *f = &o.fbs.fb[i];

		snprintf(labels, sizeof(labels),
			 "code=\"0x%08x\",name=\"%s\",side=\"%s\"", f->code,
			 ds_smc_reason_name(f->code),
			 f->server ? "server" : "client");
		ds_metric(m, DS_MF_SMC_FALLBACKS, labels, f->count);
	}
	for (i = 0; i < o.ndevs; i++) {
		snprintf(labels, sizeof(labels), "device=\"%s\",direction=\"tx\"",
			 o.devs[i].name);
		ds_metric(m, DS_MF_SMC_DEV_BYTES, labels, o.devs[i].v[0]);
		snprintf(labels, sizeof(labels), "device=\"%s\",direction=\"rx\"",
			 o.devs[i].name);
		ds_metric(m, DS_MF_SMC_DEV_BYTES, labels, o.devs[i].v[2]);
	}
out:
	ds_smc_own_free(&o);
}

/* One read of the module's totals into the series. Under m->lock. */
static void ds_metrics_read(struct ds_metrics *m)
{
	struct ds_stats_read st;
	struct ds_sites sites = { 0 };
	struct ds_ctx *ctx = m->ctx;
	char why[256];
	size_t i;
	int err;

	if (!ctx->nl && ds_nl_open(&ctx->nl)) {
		snprintf(why, sizeof(why), "%s", ds_nl_error(ctx->nl));
		ds_metrics_down(m, why);
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
		ds_metrics_down(m, why);
		return;
	}
	if (!m->up)
		fprintf(stderr, "dropscope: export: dropscope.ko answers\n");
	m->up = true;
	m->reads++;
	if (m->have_epoch && st.v[DROPSCOPE_STATS_A_EPOCH] != m->epoch) {
		for (i = 0; i < m->n; i++) {
			if (!ds_is_counter(m->v[i].family))
				continue;
			m->v[i].base += m->v[i].last;
			m->v[i].last = 0;
		}
		ds_metric_add(m, DS_MF_EPOCHS, 1);
	}
	m->have_epoch = true;
	m->epoch = st.v[DROPSCOPE_STATS_A_EPOCH];
	ds_metrics_stats(m, st.v);
	ds_metrics_sites(m, &sites);
	free(sites.v);
	ds_smc_metrics(ctx->nl, m);
	ds_metrics_finish(m);
}

static uint64_t ds_metric_value(const struct ds_series *s)
{
	return s->base + s->last;
}

static int ds_series_cmp(const void *a, const void *b)
{
	const struct ds_series *x = a, *y = b;

	if (x->family != y->family)
		return x->family - y->family;
	return strcmp(x->labels, y->labels);
}

/* The text of all series; the caller frees it. Under m->lock. */
static char *ds_metrics_text(struct ds_metrics *m, size_t *len)
{
	struct ds_series *up, *limit;
	char *buf = NULL;
	FILE *f;
	size_t i;
	int fam = -1;

	/* the exporter's own series, there from the first scrape */
	up = ds_series_get(m, DS_MF_UP, "");
	limit = ds_series_get(m, DS_MF_SITES_LIMIT, "");
	if (!up || !limit || !ds_series_get(m, DS_MF_EPOCHS, "") ||
	    !ds_series_get(m, DS_MF_READ_ERRORS, ""))
		return NULL;
	up->last = m->up;
	limit->last = m->max_sites;
	qsort(m->v, m->n, sizeof(*m->v), ds_series_cmp);
	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	for (i = 0; i < m->n; i++) {
		const struct ds_series *s = &m->v[i];
		const struct ds_family *d = &ds_families[s->family];

		if (s->family != fam) {
			fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", d->name,
				d->help, d->name, d->type);
			fam = s->family;
		}
		if (*s->labels)
			fprintf(f, "%s{%s} %" PRIu64 "\n", d->name, s->labels,
				ds_metric_value(s));
		else
			fprintf(f, "%s %" PRIu64 "\n", d->name, ds_metric_value(s));
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
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

static enum MHD_Result ds_http_reply(struct MHD_Connection *c,
				     unsigned int status, const char *type,
				     char *body, size_t len,
				     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
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
	struct ds_metrics *m = cls;
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
	pthread_mutex_lock(&m->lock);
	ds_metrics_read(m);
	text = ds_metrics_text(m, &len);
	pthread_mutex_unlock(&m->lock);
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
	struct ds_metrics *m;
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
		pthread_mutex_lock(&e->m->lock);
		ds_metrics_read(e->m);
		text = e->textfile ? ds_metrics_text(e->m, &len) : NULL;
		pthread_mutex_unlock(&e->m->lock);
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
	struct ds_metrics m = { .ctx = ctx, .max_sites = DS_EXPORT_SITES };
	struct ds_export e = { .m = &m, .interval_ms = DS_EXPORT_INTERVAL_MS };
	const char *listen_at = NULL;
	struct MHD_Daemon *d = NULL;
	struct ds_loop l = { 0 };
	uint64_t sites = DS_EXPORT_SITES;
	char why[512], what[600];
	int a, err, fd = -1;
	size_t i;

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
	m.max_sites = (size_t)sites;
	if (listen_at) {
		fd = ds_export_listen(listen_at, why, sizeof(why));
		if (fd < 0) {
			fprintf(stderr, "dropscope: export: --listen %s: %s\n",
				listen_at, why);
			return fd == -EINVAL ? DS_EUSAGE : DS_EFAIL;
		}
	}
	pthread_mutex_init(&m.lock, NULL);
	if (fd >= 0) {
		d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				     MHD_USE_ERROR_LOG, 0, NULL, NULL, ds_http,
				     &m, MHD_OPTION_LISTEN_SOCKET, fd,
				     MHD_OPTION_CONNECTION_TIMEOUT, 30U,
				     MHD_OPTION_END);
		if (!d) {
			fprintf(stderr, "dropscope: export: the HTTP server did not start\n");
			close(fd);
			pthread_mutex_destroy(&m.lock);
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
		MHD_stop_daemon(d);
	pthread_mutex_destroy(&m.lock);
	for (i = 0; i < m.n; i++)
		free(m.v[i].labels);
	for (i = 0; i < m.nsites; i++)
		free(m.sites[i].key);
	free(m.v);
	free(m.sites);
	return e.status;
}

