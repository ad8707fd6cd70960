/* SPDX-License-Identifier: GPL-2.0 */
/* util.c: arguments. Included through ds.h. */
#ifndef DS_LIB_UTIL_H
#define DS_LIB_UTIL_H

int ds_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);
int ds_parse_duration_ms(const char *s, uint64_t *ms);

/* An option of a command, "NAME VALUE": a number, or a duration in ms. */
struct ds_opt {
	const char *name;	/* NULL ends a list */
	bool duration;
	uint64_t min, max;
	uint64_t *v;
	const char *why;	/* what the usage says when VALUE is bad */
};

/* The options most commands that run on take. */
#define DS_OPT_TIMEOUT(v)						\
	{ "timeout", true, 1, UINT64_MAX, (v),				\
	  "timeout needs a duration (e.g. 10s)" }
#define DS_OPT_COUNT(name, v)						\
	{ (name), false, 1, UINT32_MAX, (v), name " needs a positive number" }

struct ds_cmd;
int ds_parse_opts(const struct ds_cmd *self, int argc, char **argv,
		  const struct ds_opt *opts);
int ds_split(char *line, char **argv, int max);
int ds_site_cmp_total(const void *a, const void *b);
void *ds_grow(void *v, size_t *cap, size_t n, size_t size, size_t first);

#endif /* DS_LIB_UTIL_H */
