/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands: the table the shell runs (cmd.c, main.c, complete.c) and
 * the handlers of the command files. A command file calls the library
 * (lib/ds.h) and nothing else of the CLI; only the shell calls commands.
 */
#ifndef DROPSCOPE_CLI_H
#define DROPSCOPE_CLI_H

#include "lib/ds.h"

/* cmd.c: the one command table */
extern const struct ds_cmd ds_cmds[];
const struct ds_cmd *ds_cmd_find(int argc, char **argv, int *used);
int ds_cmd_run(struct ds_ctx *ctx, int argc, char **argv);
/* Completion: the state-th word that may follow words[0..n-1]. */
const char *ds_cmd_complete(char **words, int n, const char *prefix,
			    int state);

/* complete.c */
int cmd_complete(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv);
int cmd_completion(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		   char **argv);
/* rules.c */
int cmd_rule_mask(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv);
int cmd_rule_only(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);
int cmd_rule_del(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv);
int cmd_rule_list(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);
int cmd_rule_save(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);
int cmd_rule_load(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);
/* stacks.c */
int cmd_stacks(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	       char **argv);
int cmd_show_stacks(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		    char **argv);
/* run.c */
int cmd_run(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	    char **argv);
/* record.c */
int cmd_record(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	       char **argv);
int cmd_diff(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	     char **argv);
/* sessions.c */
int cmd_show_sessions(struct ds_ctx *ctx, const struct ds_cmd *self,
		      int argc, char **argv);
int cmd_watch_sessions(struct ds_ctx *ctx, const struct ds_cmd *self,
		       int argc, char **argv);
/* smc.c */
int cmd_show_smc(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv);
int cmd_show_smc_linkgroups(struct ds_ctx *ctx, const struct ds_cmd *self,
			    int argc, char **argv);
int cmd_show_smc_devices(struct ds_ctx *ctx, const struct ds_cmd *self,
			 int argc, char **argv);
int cmd_show_smc_sockets(struct ds_ctx *ctx, const struct ds_cmd *self,
			 int argc, char **argv);
int cmd_watch_smc(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);
/* top.c */
int cmd_top(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	    char **argv);
/* capture.c */
int cmd_capture(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		char **argv);
/* export.c */
int cmd_export(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	       char **argv);

/* watch.c */
int ds_watch(struct ds_ctx *ctx, uint64_t rounds, uint64_t timeout_ms);

/* top.c: the busiest sessions of each interval */
enum ds_top_sort { DS_TOP_BYTES, DS_TOP_RX, DS_TOP_TX, DS_TOP_RETRANS,
		   DS_TOP_DROPS };

#define DS_TOP_INTERVAL_MS	1000
#define DS_TOP_INTERVAL_MIN_MS	100
#define DS_TOP_INTERVAL_MAX_MS	60000

struct ds_top_args {
	struct ds_sess_filter f;
	uint64_t interval_ms;
	uint64_t top;		/* sessions per frame; UINT64_MAX: all */
	uint64_t count;		/* frames, then stop; 0: until stopped */
	enum ds_top_sort sort;
};

/* The arguments of top; on bad input *err says what is wrong. */
int ds_top_parse(struct ds_top_args *t, int argc, char **argv,
		 const char **err);

/* export.c */
int ds_export_listen(const char *spec, char *why, size_t len);

#endif /* DROPSCOPE_CLI_H */
