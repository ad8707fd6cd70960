// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from /proc/kallsyms, loaded once, sorted by address and
 * searched by name: a mask rule names a function, a site in it or an
 * address, and the module gets an address range.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ds.h"

struct ds_sym {
	uint64_t addr;
	char *name;		/* "tcp_v4_rcv" or "nft_do_chain [nf_tables]" */
};

struct ds_syms {
	struct ds_sym *v;
	size_t n;
};

static int ds_sym_cmp(const void *a, const void *b)
{
	const struct ds_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void ds_syms_free(struct ds_syms *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	free(s);
}

/* Parse kallsyms text; every symbol is kept, text or not, for the ranges. */
int ds_syms_load(FILE *f, struct ds_syms **out)
{
	struct ds_syms *s = calloc(1, sizeof(*s));
	char line[512], name[256], mod[128], type;
	unsigned long long addr;
	size_t cap = 0;
	bool any = false;

	if (!s)
		return -ENOMEM;
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type,
			       name, mod);

		if (n < 3)
			continue;
		any |= addr != 0;
		if (s->n == cap) {
			struct ds_sym *v;

			cap = cap ? cap * 2 : 4096;
			v = realloc(s->v, cap * sizeof(*v));
			if (!v) {
				ds_syms_free(s);
				return -ENOMEM;
			}
			s->v = v;
		}
		s->v[s->n].addr = addr;
		if (n == 4) {
			size_t len = strlen(name) + strlen(mod) + 4;

			s->v[s->n].name = malloc(len);
			if (s->v[s->n].name)
				snprintf(s->v[s->n].name, len, "%s [%s]", name, mod);
		} else {
			s->v[s->n].name = strdup(name);
		}
		if (!s->v[s->n].name) {
			ds_syms_free(s);
			return -ENOMEM;
		}
		s->n++;
	}
	if (!any) {
		ds_syms_free(s);
		return -EACCES;	/* addresses hidden: not root */
	}
	qsort(s->v, s->n, sizeof(*s->v), ds_sym_cmp);
	*out = s;
	return 0;
}

/* Does the symbol's name (without " [module]") equal name? */
static bool ds_sym_is(const struct ds_sym *sym, const char *name, size_t len)
{
	return !strncmp(sym->name, name, len) &&
	       (!sym->name[len] || sym->name[len] == ' ');
}

/*
 * "func" -> [start, next symbol); "func+0x1c" -> [start+0x1c, +1);
 * "0xffff..." -> [addr, addr + 1). A name given twice (static functions
 * of the same name) is refused as ambiguous.
 */
int ds_syms_resolve(const struct ds_syms *s, const char *spec,
		    uint64_t *start, uint64_t *end)
{
	const char *plus = strchr(spec, '+');
	size_t len = plus ? (size_t)(plus - spec) : strlen(spec);
	unsigned long long off = 0;
	size_t i, found = SIZE_MAX;
	char *tail;

	if (!strncmp(spec, "0x", 2)) {
		errno = 0;
		*start = strtoull(spec, &tail, 16);
		if (errno || *tail || !*start)
			return -EINVAL;
		*end = *start + 1;
		return 0;
	}
	if (plus) {
		errno = 0;
		off = strtoull(plus + 1, &tail, 0);
		if (errno || *tail || plus[1] == '\0')
			return -EINVAL;
	}
	for (i = 0; i < s->n; i++) {
		if (!ds_sym_is(&s->v[i], spec, len))
			continue;
		if (found != SIZE_MAX && s->v[found].addr != s->v[i].addr)
			return -ENOTUNIQ;
		found = i;
	}
	if (found == SIZE_MAX)
		return -ENOENT;
	*start = s->v[found].addr;
	/* the function ends where the next symbol at a higher address starts */
	for (i = found + 1; i < s->n && s->v[i].addr == *start; i++)
		;
	*end = i < s->n ? s->v[i].addr : *start + 1;
	if (plus) {
		if (*start + off >= *end)
			return -ERANGE;
		*start += off;
		*end = *start + 1;
	}
	return 0;
}

/* Render addr as "sym" (at a symbol's start) or "sym+0x1c". */
void ds_syms_name(const struct ds_syms *s, uint64_t addr, char *buf,
		  size_t len)
{
	size_t lo = 0, hi = s ? s->n : 0;

	while (lo < hi) {		/* the last symbol at or below addr */
		size_t mid = (lo + hi) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		snprintf(buf, len, "0x%" PRIx64, addr);
		return;
	}
	lo--;
	if (addr == s->v[lo].addr)
		snprintf(buf, len, "%s", s->v[lo].name);
	else
		snprintf(buf, len, "%.*s+0x%" PRIx64,
			 (int)strcspn(s->v[lo].name, " "), s->v[lo].name,
			 addr - s->v[lo].addr);
}
