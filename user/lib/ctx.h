/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctx.c: what a command runs with: the context, and the command table's
 * entry. Included through ds.h.
 */
#ifndef DS_LIB_CTX_H
#define DS_LIB_CTX_H

/* What a command runs with: the shell keeps one for its whole session. */
struct ds_ctx {
	struct ds_nl *nl;
	struct ds_syms *syms;	/* loaded on first use */
	struct ds_reasons reasons;	/* fetched on first use */
	struct ds_lines *lines;	/* opened on first use */
	bool lines_tried;
	bool json;
	bool interactive;	/* the readline shell is running */
	bool quit;
};

/* A command of the table (the shell's): the library only prints usage. */

struct ds_cmd {
	const char *name;	/* one or two words: "show sites" */
	int (*fn)(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);
	const char *args;	/* usage of the arguments */
	const char *help;
	int arg;		/* for shared handlers: a command or attribute */
};

int ds_usage(const struct ds_cmd *cmd, const char *what);
int ds_fail(struct ds_ctx *ctx, int err);
int ds_ctx_nl(struct ds_ctx *ctx);
int ds_ctx_syms(struct ds_ctx *ctx);
/* The module's reasons, fetched once a context; errors are printed. */
int ds_ctx_reasons(struct ds_ctx *ctx, const struct ds_reasons **r);
void ds_ctx_free(struct ds_ctx *ctx);

#endif /* DS_LIB_CTX_H */
