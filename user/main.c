// SPDX-License-Identifier: GPL-2.0
/*
 * dropscope: the CLI of dropscope.ko. With no command it opens a readline
 * shell; with one it runs it and exits; -f runs a batch file.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "dropscope.h"

#define DS_VERSION "0.1"
#define DS_MAXARGS 32

static struct ds_ctx ds_ctx;

static void ds_help(FILE *f)
{
	fprintf(f,
		"usage: dropscope [-j] [COMMAND [ARGS...]]\n"
		"       dropscope [-j] -f FILE\n"
		"\n"
		"  -j       JSON output\n"
		"  -f FILE  run the commands in FILE (- for standard input)\n"
		"  -h       this help\n"
		"  -V       version\n"
		"\n"
		"With no command, dropscope opens an interactive shell.\n"
		"Commands:\n");
}

/* Run one line; words are split in place. */
static int ds_run_line(char *line, const char *where)
{
	char *argv[DS_MAXARGS];
	int argc = ds_split(line, argv, DS_MAXARGS);

	if (argc < 0) {
		fprintf(stderr, "dropscope: %s%s\n", where,
			argc == -E2BIG ? "too many words" : "unterminated quote");
		return DS_EUSAGE;
	}
	return ds_cmd_run(&ds_ctx, argc, argv);
}

/* A batch: stop at the first command that fails, naming its line. */
static int ds_batch(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, where[PATH_MAX + 32];
	int status = DS_OK;
	size_t cap = 0;
	unsigned int n = 0;

	if (!f) {
		fprintf(stderr, "dropscope: cannot read %s: %s\n", path,
			strerror(errno));
		return DS_EUSAGE;
	}
	while (!ds_ctx.quit && getline(&line, &cap, f) >= 0) {
		n++;
		snprintf(where, sizeof(where), "%s:%u: ", path, n);
		status = ds_run_line(line, where);
		if (status) {
			fprintf(stderr, "dropscope: %s%s stopped here\n", where,
				path);
			break;
		}
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return status;
}

/* readline: opened when the shell starts */
#define DS_RL_SYMS(X) X(readline) X(add_history) X(read_history) \
	X(write_history) X(rl_completion_matches) X(rl_line_buffer) \
	X(rl_attempted_completion_over) X(rl_readline_name) \
	X(rl_attempted_completion_function)
static struct { DS_RL_SYMS(DS_DL_PTR) } ds_rl;
static const char *const ds_rl_names[] = { DS_RL_SYMS(DS_DL_NAME) };

/* readline completion over the command table */
static char *ds_rl_words[DS_MAXARGS];
static int ds_rl_nwords;

static char *ds_rl_gen(const char *text, int state)
{
	const char *w = ds_cmd_complete(ds_rl_words, ds_rl_nwords, text, state);

	return w ? strdup(w) : NULL;
}

static char **ds_rl_complete(const char *text, int start, int end)
{
	static char buf[1024];
	int n;

	(void)end;
	*ds_rl.rl_attempted_completion_over = 1;
	snprintf(buf, sizeof(buf), "%.*s", start, *ds_rl.rl_line_buffer);
	n = ds_split(buf, ds_rl_words, DS_MAXARGS);
	ds_rl_nwords = n < 0 ? 0 : n;
	return ds_rl.rl_completion_matches(text, ds_rl_gen);
}

static int ds_shell(void)
{
	char hist[PATH_MAX] = "", why[512];
	const char *home = getenv("HOME");
	int status = DS_OK;
	char *line;

	if (ds_dl_open(DS_SO_READLINE, ds_rl_names, DS_N(ds_rl_names), &ds_rl,
		       why, sizeof(why))) {
		fprintf(stderr, "dropscope: the shell: %s\n", why);
		return DS_EFAIL;
	}
	ds_ctx.interactive = true;
	*ds_rl.rl_readline_name = "dropscope";
	*ds_rl.rl_attempted_completion_function = ds_rl_complete;
	if (home) {
		snprintf(hist, sizeof(hist), "%s/.dropscope_history", home);
		ds_rl.read_history(hist);
	}
	printf("dropscope %s: type help for commands, Tab completes\n",
	       DS_VERSION);
	while (!ds_ctx.quit && (line = ds_rl.readline("dropscope> "))) {
		if (*line)
			ds_rl.add_history(line);
		status = ds_run_line(line, "");
		free(line);
	}
	if (!ds_ctx.quit)
		putchar('\n');
	if (*hist)
		ds_rl.write_history(hist);
	return status;
}

int main(int argc, char **argv)
{
	const char *batch = NULL;
	int opt, status;

	while ((opt = getopt(argc, argv, "+jf:hV")) != -1) {
		switch (opt) {
		case 'j':
			ds_ctx.json = true;
			break;
		case 'f':
			batch = optarg;
			break;
		case 'h':
			ds_help(stdout);
			return ds_cmd_run(&ds_ctx, 1, (char *[]){ "help" });
		case 'V':
			printf("dropscope %s\n", DS_VERSION);
			return DS_OK;
		default:
			ds_help(stderr);
			return DS_EUSAGE;
		}
	}
	if (batch && optind < argc) {
		fprintf(stderr, "dropscope: -f and a command exclude each other\n");
		return DS_EUSAGE;
	}
	if (batch)
		status = ds_batch(batch);
	else if (optind < argc)
		status = ds_cmd_run(&ds_ctx, argc - optind, argv + optind);
	else if (isatty(STDIN_FILENO))
		status = ds_shell();
	else
		status = ds_batch("-");
	ds_ctx_free(&ds_ctx);
	return status;
}
