// SPDX-License-Identifier: GPL-2.0
/*
 * The module's totals as Prometheus series, and their text. Counters
 * never go backwards, across the module's own restarts too: each series
 * keeps the last value the module gave (last) and what earlier epochs of
 * the module had counted (base), and exports base + last. When the
 * module's epoch changes (its totals start again from zero: start, reset,
 * unload and load), every counter's last moves into its base. A series,
 * once seen, stays, with its last value while the module is away.
 *
 * Site labels are bounded: the first max_sites sites seen (by reason and
 * site) get their own series, every later one is summed into
 * site="other" of its reason. Membership never changes once given.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ds.h"

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
	[DS_MF_SMC_LGRS] = { "dropscope_smc_link_groups", "gauge",
		"smc.ko's link groups now, by mode and role" },
	[DS_MF_SMC_LGR_CONNS] = { "dropscope_smc_link_group_connections", "gauge",
		"Connections in smc.ko's link groups now, by mode and role" },
	[DS_MF_SMC_IN_USE] = { "dropscope_smc_buffer_in_use_bytes", "gauge",
		"Bytes of SMC send (tx) and receive (rx) buffers in use by this namespace's connections, by mode (6.12 and later)" },
	[DS_MF_SMC_POOLS] = { "dropscope_smc_buffer_pool_bytes", "gauge",
		"Bytes of send buffers and RMBs (DMBs) held in smc.ko's link groups, in use or kept for reuse (6.12 and later)" },
	[DS_MF_TRAPS] = { "dropscope_trap_packets_total", "counter",
		"Packets a device trapped as dropped (drop and exception traps), by devlink device, trap and input port, masked ones included" },
	[DS_MF_QDISC_DROPS] = { "dropscope_qdisc_drops_total", "counter",
		"Packets a qdisc dropped with a qdisc drop reason (qdisc:qdisc_drop), by device, qdisc kind, handle and reason, masked ones included" },
	[DS_MF_QDISC_DROPS_MASKED] = { "dropscope_qdisc_drops_masked_total", "counter",
		"Packets of dropscope_qdisc_drops_total that the mask rules masked" },
	[DS_MF_TRAPS_MASKED] = { "dropscope_trap_packets_masked_total", "counter",
		"Packets of dropscope_trap_packets_total that the mask rules masked" },
	[DS_MF_DEV_DROPS] = { "dropscope_device_drops_total", "counter",
		"What a drop counter of a device's statistics gained since the module started counting, by device and counter, masked ones included" },
	[DS_MF_DEV_DROPS_MASKED] = { "dropscope_device_drops_masked_total", "counter",
		"Of dropscope_device_drops_total, what the mask rules masked" },
};

static bool ds_is_counter(int family)
{
	return !strcmp(ds_families[family].type, "counter");
}

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
void ds_metric_add(struct ds_metrics *m, int family, uint64_t n)
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
void ds_metrics_finish(struct ds_metrics *m)
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

void ds_metrics_stats(struct ds_metrics *m, const uint64_t *v)
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

void ds_metrics_sites(struct ds_metrics *m, const struct ds_sites *s)
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

void ds_metrics_layers(struct ds_metrics *m, const struct ds_sites *s)
{
	char a[160], b[160], c[160], d[160], labels[800];
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct ds_site *e = &s->v[i];
		int total, masked;

		ds_label_esc(d, sizeof(d), e->dev);
		if (e->layer == DS_LAYER_HW) {
			ds_label_esc(a, sizeof(a), e->device);
			ds_label_esc(b, sizeof(b), e->trap);
			ds_label_esc(c, sizeof(c), e->group);
			snprintf(labels, sizeof(labels),
				 "dev=\"%s\",device=\"%s\",group=\"%s\",trap=\"%s\",type=\"%s\"",
				 d, a, c, b, ds_trap_type_name(e->trap_type));
			total = DS_MF_TRAPS;
			masked = DS_MF_TRAPS_MASKED;
		} else if (e->layer == DS_LAYER_DEV) {
			snprintf(labels, sizeof(labels),
				 "counter=\"%s\",dev=\"%s\"",
				 ds_dev_counter_name(e->counter), d);
			total = DS_MF_DEV_DROPS;
			masked = DS_MF_DEV_DROPS_MASKED;
		} else if (e->layer == DS_LAYER_QDISC) {
			ds_qdisc_handle(e->handle, b, sizeof(b));
			ds_label_esc(a, sizeof(a), e->kind);
			ds_label_esc(c, sizeof(c), e->reason_name);
			snprintf(labels, sizeof(labels),
				 "dev=\"%s\",handle=\"%s\",kind=\"%s\",reason=\"%s\"",
				 d, b, a, c);
			total = DS_MF_QDISC_DROPS;
			masked = DS_MF_QDISC_DROPS_MASKED;
		} else {
			continue;
		}
		ds_metric(m, total, labels, e->total + e->masked);
		ds_metric(m, masked, labels, e->masked);
	}
}

/* dropscope's SMC counters as metrics; nothing while SMC is not hooked. */
void ds_metrics_smc(struct ds_metrics *m, const struct ds_smc_own *o)
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
	char labels[256];
	size_t i;

	if (!o->hooked)
		return;
	for (i = 0; i < DS_N(map); i++)
		ds_metric(m, map[i].family, map[i].labels, o->v[map[i].attr]);
	for (i = 0; i < o->fbs.nfb; i++) {
		const struct ds_smc_fback *f = &o->fbs.fb[i];

		snprintf(labels, sizeof(labels),
			 "code=\"0x%08x\",name=\"%s\",side=\"%s\"", f->code,
			 ds_smc_reason_name(f->code),
			 f->server ? "server" : "client");
		ds_metric(m, DS_MF_SMC_FALLBACKS, labels, f->count);
	}
	for (i = 0; i < o->ndevs; i++) {
		snprintf(labels, sizeof(labels), "device=\"%s\",direction=\"tx\"",
			 o->devs[i].name);
		ds_metric(m, DS_MF_SMC_DEV_BYTES, labels, o->devs[i].v[0]);
		snprintf(labels, sizeof(labels), "device=\"%s\",direction=\"rx\"",
			 o->devs[i].name);
		ds_metric(m, DS_MF_SMC_DEV_BYTES, labels, o->devs[i].v[2]);
	}
}

/*
 * smc.ko's link groups and buffers. Every series is given each read, 0
 * when there is nothing, so that none keeps the value of a link group
 * gone; the buffers' only on a kernel that reports them.
 */
void ds_metrics_smc_kernel(struct ds_metrics *m, const struct ds_smc_stats *st,
			   const struct ds_smc_lgrs *g)
{
	static const char *const mode[2] = { "smcr", "smcd" };
	static const char *const dir[2] = { "tx", "rx" };
	uint64_t n[2][2] = { { 0 } }, c[2][2] = { { 0 } }, in_use;
	struct ds_smc_pools pool;
	char labels[64];
	size_t i;
	int d, r;

	for (i = 0; i < g->n; i++) {
		const struct ds_smc_lgr *l = &g->v[i];

		n[l->smcd][!!l->role]++;
		c[l->smcd][!!l->role] += l->conns;
	}
	ds_smc_pools_sum(&pool, g);
	for (d = 0; d < 2; d++) {
		for (r = 0; r < 2; r++) {
			/* SMC-D groups have no role: all are "client" here */
			if (d && r)
				continue;
			snprintf(labels, sizeof(labels),
				 "mode=\"%s\",role=\"%s\"", mode[d],
				 d ? "none" : r ? "server" : "client");
			ds_metric(m, DS_MF_SMC_LGRS, labels, n[d][r]);
			ds_metric(m, DS_MF_SMC_LGR_CONNS, labels, c[d][r]);
		}
		if (!st->tech[d].has_usage)
			continue;
		for (r = 0; r < 2; r++) {
			snprintf(labels, sizeof(labels),
				 "direction=\"%s\",mode=\"%s\"", dir[r], mode[d]);
			ds_metric(m, DS_MF_SMC_IN_USE, labels,
				  st->tech[d].usage[r]);
		}
	}
	if (pool.alloc || (!g->n && ds_smc_in_use(st, &in_use))) {
		ds_metric(m, DS_MF_SMC_POOLS, "buffer=\"sndbuf\"", pool.sndbuf);
		ds_metric(m, DS_MF_SMC_POOLS, "buffer=\"rmb\"", pool.rmb);
	}
}

/* A read that found the module's epoch: a new one moves every counter's
 * last into its base. */
void ds_metrics_epoch(struct ds_metrics *m, uint64_t epoch)
{
	size_t i;

	if (m->have_epoch && epoch != m->epoch) {
		for (i = 0; i < m->n; i++) {
			if (!ds_is_counter(m->v[i].family))
				continue;
			m->v[i].base += m->v[i].last;
			m->v[i].last = 0;
		}
		ds_metric_add(m, DS_MF_EPOCHS, 1);
	}
	m->have_epoch = true;
	m->epoch = epoch;
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

/* The text of all series; the caller frees it. */
char *ds_metrics_text(struct ds_metrics *m, size_t *len)
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

void ds_metrics_free(struct ds_metrics *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].labels);
	for (i = 0; i < m->nsites; i++)
		free(m->sites[i].key);
	free(m->v);
	free(m->sites);
	m->v = NULL;
	m->sites = NULL;
	m->n = m->nsites = 0;
}
