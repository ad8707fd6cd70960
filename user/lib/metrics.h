/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics.c: the module's totals as Prometheus series, and their text.
 * Included through ds.h.
 */
#ifndef DS_LIB_METRICS_H
#define DS_LIB_METRICS_H

/* The module's totals as Prometheus series, and their text;
 * the families, in their output order */
enum ds_metric_family {
	DS_MF_UP,
	DS_MF_EPOCHS,
	DS_MF_READ_ERRORS,
	DS_MF_SITES_LIMIT,
	DS_MF_DROPS,
	DS_MF_DROPS_MASKED,
	DS_MF_UNSITED,
	DS_MF_SITES,
	DS_MF_ROUNDS,
	DS_MF_ALERTS,
	DS_MF_ALERTS_LOST,
	DS_MF_ALERTS_HELD,
	DS_MF_FOLDS,
	DS_MF_SESS_OPENED,
	DS_MF_SESS_CLOSED,
	DS_MF_SESS_LIVE,
	DS_MF_SESS_LOST,
	DS_MF_SESS_MASKED,
	DS_MF_SMC_FALLBACKS,
	DS_MF_SMC_BYTES,
	DS_MF_SMC_COPIES,
	DS_MF_SMC_DEV_BYTES,
	DS_MF_SMC_LINK_DOWNS,
	DS_MF_SMC_LGRS,
	DS_MF_SMC_LGR_CONNS,
	DS_MF_SMC_IN_USE,
	DS_MF_SMC_POOLS,
	DS_MF_TRAPS,
	DS_MF_TRAPS_MASKED,
	DS_MF_DEV_DROPS,
	DS_MF_DEV_DROPS_MASKED,
	DS_MF_QDISC_DROPS,
	DS_MF_QDISC_DROPS_MASKED,
	DS_MF_COUNT
};

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
	struct ds_series *v;
	size_t n, cap;
	struct ds_label *sites;
	size_t nsites, capsites, max_sites;
	bool have_epoch, up;
	uint64_t epoch, reads;
};

/* A value of a series in this read; labels 'a="x",b="y"' or "". Several
 * for one series in one read add up. */
void ds_metric(struct ds_metrics *m, int family, const char *labels,
	       uint64_t v);
/* Events of the exporter's own (read errors, epochs): n more. */
void ds_metric_add(struct ds_metrics *m, int family, uint64_t n);
/* A read: the module's epoch first, then its values, then finish. */
void ds_metrics_epoch(struct ds_metrics *m, uint64_t epoch);
void ds_metrics_stats(struct ds_metrics *m, const uint64_t *v);
void ds_metrics_sites(struct ds_metrics *m, const struct ds_sites *s);
/* The traps (hw), device counters (dev) and qdisc drops of s as metrics. */
void ds_metrics_layers(struct ds_metrics *m, const struct ds_sites *s);
void ds_metrics_smc(struct ds_metrics *m, const struct ds_smc_own *o);
/* smc.ko's own: link groups, their connections, buffer memory */
void ds_metrics_smc_kernel(struct ds_metrics *m, const struct ds_smc_stats *st,
			   const struct ds_smc_lgrs *g);
void ds_metrics_finish(struct ds_metrics *m);
/* The text format of every series (the caller frees it), or NULL. */
char *ds_metrics_text(struct ds_metrics *m, size_t *len);
void ds_metrics_free(struct ds_metrics *m);

#endif /* DS_LIB_METRICS_H */
