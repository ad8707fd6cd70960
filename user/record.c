// SPDX-License-Identifier: GPL-2.0
/*
 * record FILE: a snapshot of the module's totals (lib/record.c says what
 * a record holds); diff A B: what changed from record A to record B, as
 * diff(1) does: exit 0 when nothing did, 1 when something did, 2 on
 * trouble.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropscope.h"

int cmd_record(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	       char **argv)
{
	struct ds_record r;
	bool out = argc == 1 && !strcmp(argv[0], "-");
	FILE *f;
	int err;

	if (argc != 1 || !*argv[0])
		return ds_usage(self, "give the file to write (- for standard output)");
	err = ds_record_take(ctx, &r);
	if (err)
		return err;
	f = out ? stdout : fopen(argv[0], "w");
	if (!f) {
		fprintf(stderr, "dropscope: record: %s: %s\n", argv[0],
			strerror(errno));
		ds_record_free(&r);
		return DS_EFAIL;
	}
	err = ds_record_write(f, &r);
	if ((!out && fclose(f)) || err) {
		fprintf(stderr, "dropscope: record: %s: write failed\n", argv[0]);
		err = DS_EFAIL;
	}
	if (!err && !out && !ctx->json && ctx->interactive)
		printf("%zu sites and %zu rules recorded in %s\n", r.n, r.nrules,
		       argv[0]);
	ds_record_free(&r);
	return err;
}

static int ds_diff_read(const char *name, struct ds_record *r)
{
	FILE *f = strcmp(name, "-") ? fopen(name, "r") : stdin;
	int err;

	if (!f) {
		fprintf(stderr, "dropscope: diff: %s: %s\n", name, strerror(errno));
		return DS_EUSAGE;
	}
	err = ds_record_read(f, name, r);
	if (f != stdin)
		fclose(f);
	return err;
}

static void ds_diff_meta(struct ds_print *p, const char *key,
			 const char *file, const struct ds_record *r)
{
	ds_print_open_obj(p, key);
	ds_print_str(p, DS_ANY, "file", "%s", file);
	ds_print_str(p, DS_ANY, "kernel", " (%s", r->kernel);
	ds_print_str(p, DS_ANY, "time", ", %s)", r->time);
	ds_print_str(p, DS_JSON, "build", NULL, r->build);
	ds_print_str(p, DS_JSON, "build_id", NULL, r->build_id);
	ds_print_close_obj(p);
}

static const struct ds_col ds_diff_cols[] = {
	{ "kind", "CHANGE", "", 7, 0 },
	{ "a", "A", " ", 10, DS_COL_RIGHT },
	{ "b", "B", " ", 10, DS_COL_RIGHT },
	{ "delta", "DELTA", " ", 10, DS_COL_RIGHT },
	{ "reason", "REASON", "  ", 12, 0 },
	{ "site", "SITE", "  ", 0, 0 },
	{ NULL, NULL, "  ", 0, 0 },
};

int cmd_diff(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	     char **argv)
{
	static const char *const kinds[] = { "new", "gone", "changed" };
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_record a, b;
	struct ds_rec_diff d;
	char delta[32];
	size_t i;
	int err;

	if (argc != 2)
		return ds_usage(self, "give two records (dropscope record FILE)");
	err = ds_diff_read(argv[0], &a);
	if (err)
		return err;
	err = ds_diff_read(argv[1], &b);
	if (err) {
		ds_record_free(&a);
		return err;
	}
	err = ds_record_diff(&a, &b, &d);
	if (err) {
		fprintf(stderr, "dropscope: diff: out of memory\n");
		goto out;
	}
	ds_print_open_obj(&p, NULL);
	ds_print_text(&p, "A: ");
	ds_diff_meta(&p, "a", argv[0], &a);
	ds_print_text(&p, "\nB: ");
	ds_diff_meta(&p, "b", argv[1], &b);
	ds_print_text(&p, "\n");
	ds_print_bool(&p, DS_JSON, "same_build", NULL, d.same_build);
	ds_print_str(&p, DS_JSON, "by", NULL, d.by_function ? "function" : "site");
	if (!d.same_build)
		fprintf(stderr, "dropscope: diff: A and B come from different kernel builds: sites compared by function, offsets left out\n");
	ds_print_open_table(&p, "changes", ds_diff_cols, DS_NCOLS(ds_diff_cols),
			    DS_TABLE_HEAD);
	for (i = 0; i < d.n; i++) {
		const struct ds_rec_change *c = &d.v[i];

		ds_print_open_obj(&p, NULL);
		ds_print_str(&p, DS_ANY, "kind", "%s", kinds[c->kind]);
		ds_print_u64(&p, DS_ANY, "a", "%" PRIu64, c->a);
		ds_print_u64(&p, DS_ANY, "b", "%" PRIu64, c->b);
		snprintf(delta, sizeof(delta), "%s%" PRIu64,
			 c->b >= c->a ? "+" : "-",
			 c->b >= c->a ? c->b - c->a : c->a - c->b);
		ds_print_str(&p, DS_FP, "delta", "%s", delta);
		ds_print_str(&p, DS_ANY, "reason", "%s", c->site.reason);
		ds_print_str(&p, DS_ANY, "site", "%s", c->site.symbol);
		if (c->site.fields[0])
			ds_print_str(&p, DS_ANY, "fields", "%s", c->site.fields);
		ds_print_close_obj(&p);
	}
	ds_print_close_table(&p);
	ds_print_u64(&p, DS_ANY, "new", "%" PRIu64 " new, ",
		     d.count[DS_REC_NEW]);
	ds_print_u64(&p, DS_ANY, "gone", "%" PRIu64 " gone, ",
		     d.count[DS_REC_GONE]);
	ds_print_u64(&p, DS_ANY, "changed", "%" PRIu64 " changed, ",
		     d.count[DS_REC_CHANGED]);
	ds_print_u64(&p, DS_ANY, "same", "%" PRIu64 " the same\n",
		     d.count[DS_REC_SAME]);
	ds_print_close_obj(&p);
	/* as diff(1): 1 when anything changed */
	err = d.n ? 1 : DS_OK;
	ds_rec_diff_free(&d);
out:
	ds_record_free(&a);
	ds_record_free(&b);
	return err;
}
