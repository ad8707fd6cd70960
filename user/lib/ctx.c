// SPDX-License-Identifier: GPL-2.0
/*
 * The context commands run with: its netlink session, the kernel's
 * symbols and the module's reasons, each opened or read on first use;
 * and the two shapes of a command's error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ds.h"

/* Print a usage error for cmd and return DS_EUSAGE. */
int ds_usage(const struct ds_cmd *cmd, const char *what)
{
	fprintf(stderr, "dropscope: %s: %s\nusage: %s %s\n", cmd->name, what,
		cmd->name, cmd->args);
	return DS_EUSAGE;
}

int ds_fail(struct ds_ctx *ctx, int err)
{
	fprintf(stderr, "dropscope: %s\n", ds_nl_error(ctx->nl));
	return ds_nl_status(err);
}

/* Open the netlink session on first use. */
int ds_ctx_nl(struct ds_ctx *ctx)
{
	int err;

	if (ctx->nl)
		return 0;
	err = ds_nl_open(&ctx->nl);
	if (err) {
		fprintf(stderr, "dropscope: %s\n", ds_nl_error(ctx->nl));
		ds_nl_close(ctx->nl);
		ctx->nl = NULL;
		return ds_nl_status(err);
	}
	return 0;
}

/* Load kallsyms on first use. */
int ds_ctx_syms(struct ds_ctx *ctx)
{
	FILE *f;
	int err;

	if (ctx->syms)
		return 0;
	f = fopen("/proc/kallsyms", "r");
	if (!f) {
		fprintf(stderr, "dropscope: cannot read /proc/kallsyms: %s\n",
			strerror(errno));
		return DS_EFAIL;
	}
	err = ds_syms_load(f, &ctx->syms);
	fclose(f);
	if (err == -EACCES) {
		fprintf(stderr, "dropscope: /proc/kallsyms hides kernel addresses: run as root\n");
		return DS_EPERM;
	}
	return err ? DS_EFAIL : 0;
}

int ds_ctx_reasons(struct ds_ctx *ctx, const struct ds_reasons **r)
{
	int err;

	if (!ctx->reasons.n) {
		err = ds_reasons_get(ctx, &ctx->reasons);
		if (err)
			return err;
	}
	*r = &ctx->reasons;
	return 0;
}

struct ds_lines *ds_ctx_lines(struct ds_ctx *ctx)
{
	char why[1536];

	if (ctx->lines_tried || ds_ctx_syms(ctx))
		return ctx->lines;
	ctx->lines_tried = true;
	ctx->lines = ds_lines_open(ctx->syms, why, sizeof(why));
	if (!ctx->lines)
		fprintf(stderr, "dropscope: %s\n", why);
	return ctx->lines;
}

void ds_ctx_free(struct ds_ctx *ctx)
{
	ds_nl_close(ctx->nl);
	ctx->nl = NULL;
	ds_syms_free(ctx->syms);
	ctx->syms = NULL;
	ds_lines_close(ctx->lines);
	ctx->lines = NULL;
	ctx->lines_tried = false;
	free(ctx->reasons.v);
	memset(&ctx->reasons, 0, sizeof(ctx->reasons));
}
