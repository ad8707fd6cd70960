// SPDX-License-Identifier: GPL-2.0
/*
 * Completion, for the shell's Tab and for bash, from the command table
 * itself: command words from the names, then each command's arguments
 * from its usage string ("[top N]": the keyword top, then a number;
 * "[sort rx|tx]": sort, then rx or tx; "[live|closed|all]": one of
 * those). Values are named where the system has the names: drop reasons
 * (the module's, or the running kernel's tracepoint), interfaces, netns,
 * L3 and L4 protocols, mask fields, command names.
 */
#include <dirent.h>
#include <errno.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "dropscope.h"

#define DS_KFREE_SKB_FORMAT "/sys/kernel/tracing/events/skb/kfree_skb/format"

struct ds_words {
	char **v;
	size_t n, cap;
	const char *prefix;
};

static void ds_word(struct ds_words *w, const char *s, size_t len)
{
	char **v;
	size_t i;

	if (len < strlen(w->prefix) || strncmp(s, w->prefix, strlen(w->prefix)))
		return;
	for (i = 0; i < w->n; i++)
		if (strlen(w->v[i]) == len && !strncmp(w->v[i], s, len))
			return;
	v = ds_grow(w->v, &w->cap, w->n, sizeof(*v), 32);
	if (!v)
		return;
	w->v = v;
	w->v[w->n] = strndup(s, len);
	if (w->v[w->n])
		w->n++;
}

static void ds_words_free(struct ds_words *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

/* "a|b|c": each of them */
static void ds_word_alts(struct ds_words *w, const char *s, size_t len)
{
	size_t k;

	while (len) {
		k = strcspn(s, "|");
		if (k > len)
			k = len;
		ds_word(w, s, k);
		s += k;
		len -= k;
		if (len) {
			s++;
			len--;
		}
	}
}

static void ds_reasons_kernel(struct ds_words *w)
{
	struct ds_reasons r = { 0 };
	struct ds_nl *nl = NULL;
	char *line = NULL, *p, *q;
	size_t cap = 0, i;
	FILE *f;

	/* the module's names when it is loaded, else the tracepoint's */
	if (!ds_nl_open(&nl) && !ds_reasons_fetch(nl, &r)) {
		for (i = 0; i < r.n; i++)
			ds_word(w, r.v[i].name, strlen(r.v[i].name));
		free(r.v);
		ds_nl_close(nl);
		return;
	}
	ds_nl_close(nl);
	f = fopen(DS_KFREE_SKB_FORMAT, "r");
	if (!f)
		return;
	while (getline(&line, &cap, f) >= 0) {
		/* print fmt: ... __print_symbolic(REC->reason, { 2, "NO_SOCKET" }, ...) */
		for (p = line; (p = strstr(p, ", \"")); p = q) {
			p += 3;
			q = strchr(p, '"');
			if (!q)
				break;
			/* the table ends with MAX, its count: not a reason */
			if (q - p != 3 || strncmp(p, "MAX", 3))
				ds_word(w, p, (size_t)(q - p));
		}
	}
	free(line);
	fclose(f);
}

static void ds_dir_names(struct ds_words *w, const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			ds_word(w, e->d_name, strlen(e->d_name));
	closedir(d);
}

/* The values of a keyword whose value is a placeholder. */
static void ds_values(struct ds_words *w, const char *key)
{
	const char *const *n;
	unsigned int i;

	if (!strcmp(key, "reason")) {
		ds_reasons_kernel(w);
	} else if (!strcmp(key, "dev")) {
		ds_dir_names(w, "/sys/class/net");
	} else if (!strcmp(key, "netns")) {
		ds_dir_names(w, DS_NETNS_DIR);
	} else if (!strcmp(key, "l3") || !strcmp(key, "l4")) {
		for (n = ds_proto_names(key[1] == '3'); *n; n++)
			ds_word(w, *n, strlen(*n));
	} else if (!strcmp(key, "layer")) {
		for (i = 0; i < DS_LAYERS; i++)
			ds_word(w, ds_layer_name(i), strlen(ds_layer_name(i)));
	} else if (!strcmp(key, "counter")) {
		for (i = 0; i < DROPSCOPE_DEV_COUNTERS; i++)
			ds_word(w, ds_dev_counter_name(i),
				strlen(ds_dev_counter_name(i)));
	} else if (!strcmp(key, "help")) {
		const struct ds_cmd *c;

		for (c = ds_cmds; c->name; c++)
			ds_word(w, c->name, strcspn(c->name, " "));
	}
}

/* A usage token: lowercase (a keyword or choices), or a placeholder. */
static bool ds_literal(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (isupper((unsigned char)s[i]))
			return false;
	return len > 0;
}

/* One group of a usage string: "[top N]", or a word outside brackets. */
struct ds_group {
	const char *tok[2];
	size_t len[2];
	int n;
};

/* The next group of *s, or 0 at its end. */
static int ds_group_next(const char **s, struct ds_group *g)
{
	const char *p = *s + strspn(*s, " ");
	bool bracket = *p == '[';
	size_t len;

	memset(g, 0, sizeof(*g));
	if (bracket)
		p++;
	while (*p && *p != ']') {
		p += strspn(p, " ");
		len = strcspn(p, " ]");
		if (len && g->n < 2) {
			g->tok[g->n] = p;
			g->len[g->n++] = len;
		}
		p += len;
		if (!bracket)
			break;
	}
	if (*p == ']')
		p++;
	*s = p;
	return g->n;
}

/*
 * The arguments of c after args[0..n-1]: the value of the keyword just
 * typed, or else every keyword and choice.
 */
static void ds_complete_args(const struct ds_cmd *c, char **args, int n,
			     struct ds_words *w)
{
	const char *last = n ? args[n - 1] : "";
	const char *s = c->args;
	struct ds_group g;

	if (strstr(c->args, "FIELD VALUE")) {
		/* rule mask, rule only: FIELD VALUE pairs */
		const char *const *f;

		if (n % 2) {
			ds_values(w, last);
			return;
		}
		for (f = ds_rule_fields; *f; f++)
			ds_word(w, *f, strlen(*f));
		return;
	}
	if (!strcmp(c->name, "help")) {
		ds_values(w, "help");
		return;
	}
	/* the keyword just typed takes a value: only that */
	while (ds_group_next(&s, &g)) {
		if (g.n == 2 && ds_literal(g.tok[0], g.len[0]) &&
		    g.len[0] == strlen(last) && !strncmp(g.tok[0], last, g.len[0])) {
			if (ds_literal(g.tok[1], g.len[1]))
				ds_word_alts(w, g.tok[1], g.len[1]);
			else
				ds_values(w, last);
			return;
		}
	}
	for (s = c->args; ds_group_next(&s, &g);)
		if (ds_literal(g.tok[0], g.len[0]))
			ds_word_alts(w, g.tok[0], g.len[0]);
}

/*
 * Every completion of prefix after words[0..n-1]: command words, then the
 * arguments of the command those words name.
 */
static void ds_complete_all(char **words, int n, struct ds_words *w)
{
	const struct ds_cmd *c, *best = NULL;
	int used = 0, best_used = 0;

	for (c = ds_cmds; c->name; c++) {
		const char *p = c->name;
		size_t len;
		int i;

		for (i = 0; i < n && *p; i++) {
			len = strcspn(p, " ");
			if (strlen(words[i]) != len || strncmp(p, words[i], len))
				break;
			p += len + strspn(p + len, " ");
		}
		if (i == n && *p)
			ds_word(w, p, strcspn(p, " "));
		/* all of its name typed: its arguments come next */
		if (!*p && i > best_used && i <= n) {
			best = c;
			best_used = i;
		}
	}
	if (!best)
		return;
	used = best_used;
	ds_complete_args(best, words + used, n - used, w);
}

/* For readline: the state-th completion, from a list made at state 0. */
const char *ds_cmd_complete(char **words, int n, const char *prefix,
			    int state)
{
	static struct ds_words w;

	if (!state) {
		ds_words_free(&w);
		w.prefix = prefix;
		ds_complete_all(words, n, &w);
	}
	return (size_t)state < w.n ? w.v[state] : NULL;
}

/* complete WORD...: the completions of the last word, one a line. */
int cmd_complete(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv)
{
	struct ds_words w = { 0 };
	size_t i;

	(void)ctx;
	(void)self;
	w.prefix = argc ? argv[argc - 1] : "";
	ds_complete_all(argv, argc ? argc - 1 : 0, &w);
	for (i = 0; i < w.n; i++)
		printf("%s\n", w.v[i]);
	ds_words_free(&w);
	return DS_OK;
}

/* completion bash: the script; it asks `dropscope complete` each time. */
int cmd_completion(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		   char **argv)
{
	(void)ctx;
	if (argc != 1 || strcmp(argv[0], "bash"))
		return ds_usage(self, "only bash is known");
	fputs("# bash completion for dropscope(8); made by `dropscope completion bash`.\n"
	      "# The words come from the CLI's own command table: `dropscope complete`.\n"
	      "_dropscope()\n"
	      "{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} i=1 words\n"
	      "\t# the options before the command\n"
	      "\twhile [ $i -lt $COMP_CWORD ] && [[ ${COMP_WORDS[i]} == -* ]]; do\n"
	      "\t\t[ \"${COMP_WORDS[i]}\" = -f ] && i=$((i + 1))\n"
	      "\t\ti=$((i + 1))\n"
	      "\tdone\n"
	      "\tif [ $i -eq $COMP_CWORD ] && [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W '-j -f -h -V' -- \"$cur\"))\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tif [ $i -gt 1 ] && [ \"${COMP_WORDS[i - 1]}\" = -f ]; then\n"
	      "\t\tcompopt -o default; COMPREPLY=()\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\twords=(\"${COMP_WORDS[@]:i:COMP_CWORD-i}\")\n"
	      "\tlocal IFS=$'\\n'\n"
	      "\tCOMPREPLY=($(\"${COMP_WORDS[0]}\" complete \"${words[@]}\" \"$cur\" 2>/dev/null))\n"
	      "\t# a file name where nothing else fits (capture FILE, --textfile PATH)\n"
	      "\t[ ${#COMPREPLY[@]} -eq 0 ] && compopt -o default\n"
	      "}\n"
	      "complete -F _dropscope dropscope\n", stdout);
	return DS_OK;
}
