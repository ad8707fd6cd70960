// SPDX-License-Identifier: GPL-2.0
/*
 * Rules: "rule mask|only FIELD VALUE ...", "rule del ID", "rule list" (and
 * "show rules"; "rule clear" is the table's). A rule's mode is mask (hide
 * what matches) or only (show nothing else). The words are the library's
 * (lib/rule.c), which resolves them against the running system.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropscope.h"

static int ds_rule_add_words(struct ds_ctx *ctx, uint8_t mode, int argc,
		       char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_rule r;
	uint32_t id = 0;
	int err;

	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	err = ds_rule_parse(ctx, argc, argv, &r);
	if (err)
		return err;
	r.mode = mode;
	err = ds_rule_add(ctx->nl, &r, &id);
	if (err)
		return ds_fail(ctx, err);
	ds_print_open_obj(&p, NULL);
	ds_print_u32(&p, DS_ANY, "id", "rule %" PRIu32 " added\n", id);
	ds_print_close_obj(&p);
	return DS_OK;
}

int cmd_rule_mask(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv)
{
	(void)self;
	return ds_rule_add_words(ctx, DROPSCOPE_RULE_MASK, argc, argv);
}

int cmd_rule_only(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv)
{
	(void)self;
	return ds_rule_add_words(ctx, DROPSCOPE_RULE_ONLY, argc, argv);
}

int cmd_rule_del(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv)
{
	uint64_t id;
	int err;

	if (argc != 1 || ds_parse_u64(argv[0], 1, UINT32_MAX, &id))
		return ds_usage(self, "give a rule id (see: rule list)");
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	err = ds_rule_del(ctx->nl, (uint32_t)id);
	return err ? ds_fail(ctx, err) : DS_OK;
}

/* The packet fields of a rule, in the order "rule list" prints them. */
static const struct {
	enum ds_rule_field field;
	const char *fmt;
	const char *(*name)(uint32_t v, char *buf, size_t len);
} ds_list_fields[] = {
	{ DS_RF_DEV, "dev %s", ds_dev_name },
	{ DS_RF_L3, "l3 %s", ds_l3_name },
	{ DS_RF_L4, "l4 %s", ds_l4_name },
	{ DS_RF_NETNS, "netns %s", ds_netns_name },
};

static uint32_t ds_list_field(const struct ds_rule *r, enum ds_rule_field f)
{
	switch (f) {
	case DS_RF_DEV:
		return r->ifindex;
	case DS_RF_L3:
		return r->l3;
	case DS_RF_L4:
		return r->l4;
	default:
		return r->netns;
	}
}

/* One rule: its id, mode and hits, then its fields as "rule mask" takes them. */
static void ds_rule_print(struct ds_print *p, struct ds_ctx *ctx,
			  const struct ds_reasons *reasons,
			  const struct ds_rule *r)
{
	char buf[256], val[64];
	size_t j;

	ds_print_open_obj(p, NULL);
	ds_print_u32(p, DS_ANY, "id", "%" PRIu32, r->id);
	ds_print_str(p, DS_ANY, "mode", "%s",
		     r->mode == DROPSCOPE_RULE_ONLY ? "only" : "mask");
	ds_print_u64(p, DS_ANY, "hits", "%" PRIu64, r->hits);
	if (r->has & 1U << DS_RF_SITE) {
		if (!ds_ctx_syms(ctx))
			ds_syms_name(ctx->syms, r->loc_start, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "0x%" PRIx64, r->loc_start);
		ds_print_str(p, DS_ANY, "site", "site %s", buf);
		ds_print_hex(p, DS_JSON, "start", NULL, r->loc_start);
		ds_print_hex(p, DS_JSON, "end", NULL, r->loc_end);
	}
	if (r->has & 1U << DS_RF_REASON) {
		snprintf(val, sizeof(val), "%" PRIu32, r->reason);
		for (j = 0; j < reasons->n; j++)
			if (reasons->v[j].id == r->reason)
				snprintf(val, sizeof(val), "%s",
					 reasons->v[j].name);
		ds_print_str(p, DS_ANY, "reason", "reason %s", val);
	}
	if (r->has & 1U << DS_RF_SMC) {
		snprintf(val, sizeof(val), "0x%08" PRIx32, r->smc_reason);
		ds_print_str(p, DS_ANY, "smc", "smc %s", val);
	}
	if (r->has & 1U << DS_RF_LAYER)
		ds_print_str(p, DS_ANY, "layer", "layer %s",
			     ds_layer_name(r->layer));
	if (r->has & 1U << DS_RF_TRAP)
		ds_print_str(p, DS_ANY, "trap", "trap %s", r->trap);
	if (r->has & 1U << DS_RF_GROUP)
		ds_print_str(p, DS_ANY, "group", "group %s", r->group);
	if (r->has & 1U << DS_RF_COUNTER)
		ds_print_str(p, DS_ANY, "counter", "counter %s",
			     ds_dev_counter_name(r->counter));
	if (r->has & 1U << DS_RF_KIND)
		ds_print_str(p, DS_ANY, "kind", "kind %s", r->kind);
	for (j = 0; j < DS_N(ds_list_fields); j++) {
		enum ds_rule_field f = ds_list_fields[j].field;

		if (!(r->has & 1U << f))
			continue;
		ds_print_str(p, DS_ANY, ds_rule_fields[f], ds_list_fields[j].fmt,
			     ds_list_fields[j].name(ds_list_field(r, f), val,
						    sizeof(val)));
	}
	ds_print_close_obj(p);
}

/* The module's rules into l (the caller frees l->v); errors printed. */
static int ds_rules_get(struct ds_ctx *ctx, struct ds_rules *l)
{
	int err = ds_ctx_nl(ctx);

	if (err)
		return err;
	err = ds_rules_fetch(ctx->nl, l);
	if (err) {
		free(l->v);
		l->v = NULL;
		return ds_fail(ctx, err);
	}
	return 0;
}

/* ID, MODE, HITS, then the fields of the rule under MATCH. */
static const struct ds_col ds_rule_cols[] = {
	{ "id", "ID", "", 4, DS_COL_RIGHT },
	{ "mode", "MODE", "  ", 4, 0 },
	{ "hits", "HITS", " ", 12, DS_COL_RIGHT },
	{ NULL, "MATCH", "  ", 0, 0 },
};

int cmd_rule_list(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	const struct ds_reasons *reasons;
	struct ds_rules l = { 0 };
	size_t i;
	int err;

	(void)argv;
	if (argc)
		return ds_usage(self, "takes no arguments");
	err = ds_ctx_reasons(ctx, &reasons);
	if (!err)
		err = ds_rules_get(ctx, &l);
	if (err)
		return err;
	ds_print_open_table(&p, NULL, ds_rule_cols, DS_NCOLS(ds_rule_cols),
			    DS_TABLE_HEAD);
	for (i = 0; i < l.n; i++)
		ds_rule_print(&p, ctx, reasons, &l.v[i]);
	ds_print_close_table(&p);
	if (!l.n)
		ds_print_text(&p, "no rules\n");
	free(l.v);
	return DS_OK;
}

/* rule save FILE: the rules in match order, as rule load takes them. */
int cmd_rule_save(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv)
{
	struct ds_rules l = { 0 };
	bool out = argc == 1 && !strcmp(argv[0], "-");
	char words[512];
	size_t i;
	FILE *f;
	int err;

	if (argc != 1 || !*argv[0])
		return ds_usage(self, "give the file to write (- for standard output)");
	err = ds_rules_get(ctx, &l);
	if (err)
		return err;
	f = out ? stdout : fopen(argv[0], "w");
	if (!f) {
		fprintf(stderr, "dropscope: rule save: %s: %s\n", argv[0],
			strerror(errno));
		free(l.v);
		return DS_EFAIL;
	}
	fprintf(f, "# dropscope rules, in match order: dropscope rule load FILE (or -f FILE)\n");
	for (i = 0; i < l.n && !err; i++) {
		err = ds_rule_words(ctx, &l.v[i], words, sizeof(words));
		if (!err)
			fprintf(f, "rule %s\n", words);
	}
	if (fflush(f) || ferror(f) || (!out && fclose(f)) || err) {
		fprintf(stderr, "dropscope: rule save: %s: write failed\n", argv[0]);
		err = DS_EFAIL;
	}
	free(l.v);
	return err;
}

/*
 * rule load FILE: every rule of the file, or none (ds_rules_read(): all
 * are read and resolved first, a bad line named; if the module refuses
 * one, those added before it are taken away again).
 */
int cmd_rule_load(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv)
{
	struct ds_rules l = { 0 };
	uint32_t *ids = NULL;
	size_t failed = 0;
	int err;
	FILE *f;

	if (argc != 1 || !*argv[0])
		return ds_usage(self, "give the file of rules");
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	f = strcmp(argv[0], "-") ? fopen(argv[0], "r") : stdin;
	if (!f) {
		fprintf(stderr, "dropscope: rule load: %s: %s\n", argv[0],
			strerror(errno));
		return DS_EUSAGE;
	}
	err = ds_rules_read(ctx, f, argv[0], &l);
	if (f != stdin)
		fclose(f);
	if (err)
		return err;
	ids = calloc(l.n ? l.n : 1, sizeof(*ids));
	if (!ids) {
		free(l.v);
		return DS_EFAIL;
	}
	err = ds_rules_add_all(ctx->nl, &l, ids, &failed);
	if (err) {
		fprintf(stderr, "dropscope: rule load: %s: rule %zu: %s\n",
			argv[0], failed + 1, ds_nl_error(ctx->nl));
		err = ds_nl_status(err);
	} else if (!ctx->json && ctx->interactive) {
		printf("%zu rules loaded from %s\n", l.n, argv[0]);
	}
	free(ids);
	free(l.v);
	return err;
}
