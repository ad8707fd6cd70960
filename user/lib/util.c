// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing helpers of the CLI.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ds.h"

/* A decimal number in [min, max], nothing else on the line. */
int ds_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	unsigned long long n;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	if (n < min || n > max)
		return -ERANGE;
	*v = n;
	return 0;
}

/*
 * A duration: "250ms", "2s", "1.5s", "1m", "1h"; a bare number is
 * milliseconds.
 * Fractions below a millisecond are refused rather than rounded.
 */
int ds_parse_duration_ms(const char *s, uint64_t *ms)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = { { "", 1 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 },
		      { "h", 3600000 } };
	unsigned long long whole, frac = 0, scale = 1;
	const char *p = s;
	char *end;
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	whole = strtoull(p, &end, 10);
	if (errno)
		return -ERANGE;
	p = end;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		while (isdigit((unsigned char)*p)) {
			if (scale >= 1000000000ULL)
				return -EINVAL;
			frac = frac * 10 + (unsigned long long)(*p++ - '0');
			scale *= 10;
		}
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		if (whole > UINT64_MAX / units[i].ms / 2)
			return -ERANGE;
		if ((frac * units[i].ms) % scale)
			return -EINVAL;
		*ms = whole * units[i].ms + frac * units[i].ms / scale;
		return 0;
	}
	return -EINVAL;
}

/*
 * Split a line into words in place. Double or single quotes group words;
 * '#' outside quotes starts a comment. Returns the word count, or -E2BIG
 * beyond max, -EINVAL for an unterminated quote.
 */
int ds_split(char *line, char **argv, int max)
{
	char *r = line, *w = line;
	int argc = 0;

	for (;;) {
		char quote = 0;

		while (isspace((unsigned char)*r))
			r++;
		if (!*r || *r == '#')
			return argc;
		if (argc == max)
			return -E2BIG;
		argv[argc++] = w;
		for (; *r && (quote || !isspace((unsigned char)*r)); r++) {
			if (quote && *r == quote)
				quote = 0;
			else if (!quote && (*r == '"' || *r == '\''))
				quote = *r;
			else
				*w++ = *r;
		}
		if (quote)
			return -EINVAL;
		if (*r)
			r++;
		*w++ = '\0';
	}
}

#define DS_CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

/*
 * qsort: highest total first, then by symbol, reason and packet fields, so
 * that the sites a rule splits list in a stable order.
 */
int ds_site_cmp_total(const void *a, const void *b)
{
	const struct ds_site *x = a, *y = b;
	int d;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	d = strcmp(x->symbol, y->symbol);
	if (!d)
		d = DS_CMP(x->reason, y->reason);
	if (!d)
		d = DS_CMP(x->ifindex, y->ifindex);
	if (!d)
		d = DS_CMP(x->netns, y->netns);
	if (!d)
		d = DS_CMP(x->l3, y->l3);
	if (!d)
		d = DS_CMP(x->l4, y->l4);
	return d;
}

/*
 * Room for one more element in v, an array of *cap elements of size
 * bytes with n in use: doubled when full, first elements to begin with.
 * Returns the array, moved or not, or NULL (v is then as it was).
 */
void *ds_grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c;

	if (n < *cap)
		return v;
	c = *cap ? *cap * 2 : first;
	v = realloc(v, c * size);
	if (v)
		*cap = c;
	return v;
}

/*
 * argv as NAME VALUE pairs of opts. Each VALUE must parse and lie within
 * [min, max]; a bad one gets its usage line, a name not in opts (or one
 * without a value) "unknown argument".
 */
int ds_parse_opts(const struct ds_cmd *self, int argc, char **argv,
		  const struct ds_opt *opts)
{
	const struct ds_opt *o;
	uint64_t v;
	int i;

	for (i = 0; i < argc; i += 2) {
		for (o = opts; o->name && strcmp(o->name, argv[i]); o++)
			;
		if (!o->name || i + 1 == argc)
			return ds_usage(self, "unknown argument");
		if (o->duration ? ds_parse_duration_ms(argv[i + 1], &v) :
		    ds_parse_u64(argv[i + 1], o->min, o->max, &v))
			return ds_usage(self, o->why);
		if (v < o->min || v > o->max)
			return ds_usage(self, o->why);
		*o->v = v;
	}
	return 0;
}
