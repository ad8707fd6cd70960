/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.c: records of the module's totals in a file, and their diff.
 * Included through ds.h.
 */
#ifndef DS_LIB_RECORD_H
#define DS_LIB_RECORD_H

/* A snapshot of the module's totals in a file, and the
 * difference of two */
struct ds_rec_site {
	char reason[64];
	char symbol[160];	/* as the kernel prints it; or its function */
	char fields[160];	/* "dev lo l4 udp", or "" */
	uint64_t count, masked;
};

struct ds_record {
	char kernel[128], build[256], build_id[96], time[40];
	bool has_stats;
	uint64_t events, shown, masked, overflow, alloc_fails;
	struct ds_rec_site *sites;
	size_t n, cap;
	char **rules;		/* "mask l4 udp": what follows "rule" */
	size_t nrules, caprules;
};

/* The running module's, now (errors printed, a DS_ status). */
int ds_record_take(struct ds_ctx *ctx, struct ds_record *r);
int ds_record_write(FILE *f, const struct ds_record *r);
/* A bad file is said as NAME:LINE: what; DS_EUSAGE. */
int ds_record_read(FILE *f, const char *name, struct ds_record *r);
void ds_record_free(struct ds_record *r);

enum ds_rec_kind { DS_REC_NEW, DS_REC_GONE, DS_REC_CHANGED, DS_REC_SAME,
		   DS_REC_KINDS };

struct ds_rec_change {
	enum ds_rec_kind kind;
	struct ds_rec_site site;	/* B's (A's when gone) */
	uint64_t a, b;			/* its counts */
};

/* B against A: new, gone and changed sites (counts shown, not masked);
 * across kernel builds, by function rather than by offset. */
struct ds_rec_diff {
	bool same_build, by_function;
	struct ds_rec_change *v;
	size_t n, cap;
	size_t count[DS_REC_KINDS];
};

int ds_record_diff(const struct ds_record *a, const struct ds_record *b,
		   struct ds_rec_diff *d);
void ds_rec_diff_free(struct ds_rec_diff *d);

#endif /* DS_LIB_RECORD_H */
