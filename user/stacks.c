// SPDX-License-Identifier: GPL-2.0
/*
 * Drop stacks: "stacks on [FIELD VALUE ...]", "stacks off", "stacks
 * clear" (one handler: the table's arg tells them apart), and "show stacks
 * [site S] [top N] [lines]". The fields of stacks on are
 * those of a rule (lib/rule.c): only the drops they match have their
 * kernel stack taken; none: every drop.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropscope.h"

int cmd_stacks(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	       char **argv)
{
	struct ds_rule r;
	int err;

	if (self->arg != 1 && argc)
		return ds_usage(self, "takes no arguments");
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	if (argc) {
		err = ds_rule_parse(ctx, argc, argv, &r);
		if (err)
			return err;
		r.mode = 0;	/* the stacks rule has none */
	}
	if (self->arg == DROPSCOPE_CMD_STACKS_CLEAR)
		err = ds_nl_do(ctx->nl, DROPSCOPE_CMD_STACKS_CLEAR, NULL, NULL);
	else
		err = ds_stacks_set(ctx->nl, self->arg == 1, argc ? &r : NULL);
	if (err)
		return ds_fail(ctx, err);
	if (!ctx->json && ctx->interactive)
		printf("%s: done\n", self->name);
	return DS_OK;
}

/* The name of reason id, from the module's list. */
static const char *ds_stack_reason(uint32_t id, void *arg)
{
	const struct ds_reasons *r = arg;
	size_t i;

	for (i = 0; r && i < r->n; i++)
		if (r->v[i].id == id)
			return r->v[i].name;
	return "?";
}

int cmd_show_stacks(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		    char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	const struct ds_reasons *reasons = NULL;
	struct ds_stacks s = { 0 };
	uint64_t top = UINT64_MAX, start = 0, end = UINT64_MAX;
	struct ds_lines *lines = NULL;
	bool want_lines = false;
	size_t i, f, n = 0;
	char buf[512];
	int a, err;

	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	for (a = 0; a < argc; a++) {
		if (!strcmp(argv[a], "top") && a + 1 < argc) {
			if (ds_parse_u64(argv[++a], 1, UINT32_MAX, &top))
				return ds_usage(self, "top needs a positive number");
		} else if (!strcmp(argv[a], "lines")) {
			want_lines = true;
		} else if (!strcmp(argv[a], "site") && a + 1 < argc) {
			err = ds_ctx_syms(ctx);
			if (err)
				return err;
			if (ds_syms_resolve(ctx->syms, argv[++a], &start, &end))
				return ds_usage(self, "site: no such kernel function or address");
		} else {
			return ds_usage(self, "unknown argument");
		}
	}
	err = ds_ctx_reasons(ctx, &reasons);
	if (err)
		return err;
	err = ds_stacks_fetch(ctx->nl, &s);
	if (err) {
		ds_stacks_free(&s);
		free(s.v);
		return ds_fail(ctx, err);
	}
	for (i = 0; i < s.n; i++) {
		if (s.v[i].location >= start && s.v[i].location < end)
			s.v[n++] = s.v[i];
		else
			ds_stack_free(&s.v[i]);
	}
	s.n = n;
	if (want_lines)
		lines = ds_ctx_lines(ctx);
	for (i = 0; lines && i < s.n; i++) {
		s.v[i].has_lines = true;
		for (f = 0; f < s.v[i].nr; f++)
			if (ds_lines_get(lines, s.v[i].frames[f], buf, sizeof(buf)))
				s.v[i].lines[f] = strdup(buf);
	}
	ds_stacks_sort(&s);
	ds_stacks_print(&p, s.v, s.n, (size_t)top, ds_stack_reason,
			(void *)reasons);
	ds_stacks_free(&s);
	free(s.v);
	return DS_OK;
}
