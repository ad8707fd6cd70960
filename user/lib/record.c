// SPDX-License-Identifier: GPL-2.0
/*
 * Records: a snapshot of the module's totals in a file, and the
 * difference of two. A record is text, one thing a line, in words the
 * shell would split (ds_split(): a word with spaces is quoted):
 *
 *   # dropscope record
 *   format 1
 *   kernel 6.12.117+deb12-amd64
 *   build '#1 SMP PREEMPT_DYNAMIC Debian 6.12.117-1 (2025-11-30)'
 *   build-id 2f8e...                  (the kernel's GNU build id, if readable)
 *   time 2026-12-02T12:00:00Z
 *   stats events 120 shown 100 masked 20 overflow 0 alloc-fails 0
 *   site NO_SOCKET 100 0 __udp4_lib_rcv+0x545/0xdd0
 *   site NO_SOCKET 5 0 'nf_hook_slow+0x3c/0xb0 [nf_tables]' dev lo l4 udp
 *   rule mask reason QDISC_DROP
 *
 * A site is its reason, its count (shown), its masked count, its symbol as
 * the kernel prints it (function, offset and size: KASLR and reboots do
 * not change it), then the packet fields it is keyed by, if any. Sites
 * keep the module's order; rules are in match order, as "rule mask" and
 * "rule only" take them.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "ds.h"

#define DS_RECORD_FORMAT	1

static void *ds_rec_add(void **v, size_t *n, size_t *cap, size_t size)
{
	void *p = ds_grow(*v, cap, *n, size, 64);

	if (!p)
		return NULL;
	*v = p;
	p = (char *)p + *n * size;
	memset(p, 0, size);
	(*n)++;
	return p;
}

static struct ds_rec_site *ds_rec_site_add(struct ds_record *r)
{
	return ds_rec_add((void **)&r->sites, &r->n, &r->cap, sizeof(*r->sites));
}

static int ds_rec_rule_add(struct ds_record *r, const char *words)
{
	char **p = ds_rec_add((void **)&r->rules, &r->nrules, &r->caprules,
			      sizeof(*r->rules));

	if (!p)
		return -ENOMEM;
	*p = strdup(words);
	if (!*p) {
		r->nrules--;
		return -ENOMEM;
	}
	return 0;
}

void ds_record_free(struct ds_record *r)
{
	size_t i;

	for (i = 0; i < r->nrules; i++)
		free(r->rules[i]);
	free(r->rules);
	free(r->sites);
	memset(r, 0, sizeof(*r));
}

/* The packet fields a site is keyed by, as "dev lo l4 udp", or "". */
static void ds_rec_fields(const struct ds_site *s, char *buf, size_t len)
{
	char v[64];
	size_t o = 0;

	buf[0] = '\0';
	if (s->ifindex)
		o += (size_t)snprintf(buf + o, len - o, "%sdev %s", o ? " " : "",
				      ds_dev_name(s->ifindex, v, sizeof(v)));
	if (s->netns && o < len)
		o += (size_t)snprintf(buf + o, len - o, "%snetns %s", o ? " " : "",
				      ds_netns_name(s->netns, v, sizeof(v)));
	if (s->l3 && o < len)
		o += (size_t)snprintf(buf + o, len - o, "%sl3 %s", o ? " " : "",
				      ds_l3_name(s->l3, v, sizeof(v)));
	if (s->l4 && o < len)
		snprintf(buf + o, len - o, "%sl4 %s", o ? " " : "",
			 ds_l4_name(s->l4, v, sizeof(v)));
}

/*
 * The kernel's GNU build id, from /sys/kernel/notes (its ELF notes), as
 * hex; "" when it cannot be read.
 */
void ds_kernel_build_id(char *out, size_t len)
{
	unsigned char buf[4096];
	size_t n, off = 0, i;
	FILE *f = fopen("/sys/kernel/notes", "rb");

	out[0] = '\0';
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + 12 <= n) {
		uint32_t nsz, dsz, type;

		memcpy(&nsz, buf + off, 4);
		memcpy(&dsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		off += 12;
		if (nsz > n - off || dsz > n - off - ((nsz + 3) & ~3U))
			return;
		if (type == 3 && nsz == 4 && !memcmp(buf + off, "GNU", 4)) {
			const unsigned char *d = buf + off + 4;

			for (i = 0; i < dsz && 2 * i + 2 < len; i++)
				snprintf(out + 2 * i, 3, "%02x", d[i]);
			return;
		}
		off += ((nsz + 3) & ~3U) + ((dsz + 3) & ~3U);
	}
}

int ds_record_take(struct ds_ctx *ctx, struct ds_record *r)
{
	struct ds_stats_read st;
	struct ds_sites sites = { 0 };
	struct ds_rules rules = { 0 };
	struct ds_rec_site *s;
	struct utsname u;
	char words[512];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;
	int err;

	memset(r, 0, sizeof(*r));
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	if (!uname(&u)) {
		snprintf(r->kernel, sizeof(r->kernel), "%s", u.release);
		snprintf(r->build, sizeof(r->build), "%s", u.version);
	}
	ds_kernel_build_id(r->build_id, sizeof(r->build_id));
	gmtime_r(&now, &tm);
	strftime(r->time, sizeof(r->time), "%Y-%m-%dT%H:%M:%SZ", &tm);
	err = ds_stats_fetch(ctx->nl, &st);
	if (!err)
		err = ds_sites_fetch(ctx->nl, &sites);
	if (!err)
		err = ds_rules_fetch(ctx->nl, &rules);
	if (err) {
		err = ds_fail(ctx, err);
		goto out;
	}
	r->has_stats = true;
	r->events = st.v[DROPSCOPE_STATS_A_EVENTS];
	r->shown = st.v[DROPSCOPE_STATS_A_SHOWN];
	r->masked = st.v[DROPSCOPE_STATS_A_MASKED];
	r->overflow = st.v[DROPSCOPE_STATS_A_OVERFLOW];
	r->alloc_fails = st.v[DROPSCOPE_STATS_A_ALLOC_FAILS];
	/* by count, as show sites lists them */
	qsort(sites.v, sites.n, sizeof(*sites.v), ds_site_cmp_total);
	for (i = 0; i < sites.n; i++) {
		const struct ds_site *e = &sites.v[i];

		if (!e->total && !e->masked)
			continue;
		s = ds_rec_site_add(r);
		if (!s) {
			err = DS_EFAIL;
			goto out;
		}
		snprintf(s->reason, sizeof(s->reason), "%s", e->reason_name);
		snprintf(s->symbol, sizeof(s->symbol), "%s", e->symbol);
		ds_rec_fields(e, s->fields, sizeof(s->fields));
		s->count = e->total;
		s->masked = e->masked;
	}
	for (i = 0; i < rules.n; i++) {
		err = ds_rule_words(ctx, &rules.v[i], words, sizeof(words));
		if (!err)
			err = ds_rec_rule_add(r, words) ? DS_EFAIL : 0;
		if (err)
			goto out;
	}
out:
	free(sites.v);
	free(rules.v);
	if (err)
		ds_record_free(r);
	return err;
}

/* A word as ds_split() gives it back: quoted when it has to be. */
static void ds_rec_word(FILE *f, const char *w)
{
	if (*w && !strpbrk(w, " \t'\"#"))
		fputs(w, f);
	else if (!strchr(w, '\''))
		fprintf(f, "'%s'", w);
	else
		fprintf(f, "\"%s\"", w);
}

int ds_record_write(FILE *f, const struct ds_record *r)
{
	size_t i;

	fprintf(f, "# dropscope record: dropscope diff compares two\nformat %d\n",
		DS_RECORD_FORMAT);
	fputs("kernel ", f);
	ds_rec_word(f, r->kernel);
	fputs("\nbuild ", f);
	ds_rec_word(f, r->build);
	fputc('\n', f);
	if (r->build_id[0])
		fprintf(f, "build-id %s\n", r->build_id);
	if (r->time[0])
		fprintf(f, "time %s\n", r->time);
	if (r->has_stats)
		fprintf(f, "stats events %" PRIu64 " shown %" PRIu64 " masked %"
			PRIu64 " overflow %" PRIu64 " alloc-fails %" PRIu64 "\n",
			r->events, r->shown, r->masked, r->overflow,
			r->alloc_fails);
	for (i = 0; i < r->n; i++) {
		const struct ds_rec_site *s = &r->sites[i];

		fputs("site ", f);
		ds_rec_word(f, s->reason);
		fprintf(f, " %" PRIu64 " %" PRIu64 " ", s->count, s->masked);
		ds_rec_word(f, s->symbol);
		if (s->fields[0])
			fprintf(f, " %s", s->fields);
		fputc('\n', f);
	}
	for (i = 0; i < r->nrules; i++)
		fprintf(f, "rule %s\n", r->rules[i]);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

static int ds_rec_bad(const char *name, unsigned int line, const char *what)
{
	fprintf(stderr, "dropscope: %s:%u: %s\n", name, line, what);
	return DS_EUSAGE;
}

/* "stats events N shown N ...": every key known, every value a number. */
static int ds_rec_stats(struct ds_record *r, int argc, char **argv)
{
	static const char *const keys[] = {
		"events", "shown", "masked", "overflow", "alloc-fails",
	};
	uint64_t *v[] = { &r->events, &r->shown, &r->masked, &r->overflow,
			  &r->alloc_fails };
	int i;
	size_t k;

	if (argc % 2 == 0)
		return -EINVAL;
	for (i = 1; i < argc; i += 2) {
		for (k = 0; k < DS_N(keys) && strcmp(keys[k], argv[i]); k++)
			;
		if (k == DS_N(keys) || ds_parse_u64(argv[i + 1], 0, UINT64_MAX, v[k]))
			return -EINVAL;
	}
	r->has_stats = true;
	return 0;
}

/* "site REASON COUNT MASKED SYMBOL [FIELD VALUE]...". */
static int ds_rec_site_line(struct ds_record *r, int argc, char **argv)
{
	static const char *const fields[] = { "dev", "netns", "l3", "l4" };
	struct ds_rec_site *s;
	size_t o = 0, k;
	int i;

	if (argc < 5 || argc % 2 == 0 || !*argv[1] || !*argv[4])
		return -EINVAL;
	s = ds_rec_site_add(r);
	if (!s)
		return -ENOMEM;
	if (ds_parse_u64(argv[2], 0, UINT64_MAX, &s->count) ||
	    ds_parse_u64(argv[3], 0, UINT64_MAX, &s->masked) ||
	    strlen(argv[1]) >= sizeof(s->reason) ||
	    strlen(argv[4]) >= sizeof(s->symbol)) {
		r->n--;
		return -EINVAL;
	}
	snprintf(s->reason, sizeof(s->reason), "%s", argv[1]);
	snprintf(s->symbol, sizeof(s->symbol), "%s", argv[4]);
	for (i = 5; i < argc; i += 2) {
		for (k = 0; k < DS_N(fields) && strcmp(fields[k], argv[i]); k++)
			;
		if (k == DS_N(fields) ||
		    o + strlen(argv[i]) + strlen(argv[i + 1]) + 3 > sizeof(s->fields)) {
			r->n--;
			return -EINVAL;
		}
		o += (size_t)snprintf(s->fields + o, sizeof(s->fields) - o,
				      "%s%s %s", o ? " " : "", argv[i],
				      argv[i + 1]);
	}
	return 0;
}

int ds_record_read(FILE *f, const char *name, struct ds_record *r)
{
	char *line = NULL, *copy = NULL, *argv[32];
	unsigned int lineno = 0;
	size_t cap = 0;
	bool format = false;
	uint64_t v;
	int argc, err = 0;

	memset(r, 0, sizeof(*r));
	while (!err && getline(&line, &cap, f) >= 0) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		free(copy);
		copy = strdup(line);
		if (!copy) {
			err = DS_EFAIL;
			break;
		}
		argc = ds_split(line, argv, (int)DS_N(argv));
		if (argc < 0) {
			err = ds_rec_bad(name, lineno, "an unclosed quote, or too many words");
		} else if (!argc) {
			continue;
		} else if (!format && strcmp(argv[0], "format")) {
			err = ds_rec_bad(name, lineno, "not a dropscope record (it starts with 'format 1')");
		} else if (!strcmp(argv[0], "format")) {
			if (argc != 2 || ds_parse_u64(argv[1], 1, UINT32_MAX, &v))
				err = ds_rec_bad(name, lineno, "format needs a number");
			else if (v != DS_RECORD_FORMAT)
				err = ds_rec_bad(name, lineno, "a record of a format this dropscope does not know");
			format = true;
		} else if (!strcmp(argv[0], "kernel") || !strcmp(argv[0], "build") ||
			   !strcmp(argv[0], "build-id") || !strcmp(argv[0], "time")) {
			char *dst = argv[0][0] == 'k' ? r->kernel :
				    argv[0][0] == 't' ? r->time :
				    argv[0][5] ? r->build_id : r->build;
			size_t len = argv[0][0] == 'k' ? sizeof(r->kernel) :
				     argv[0][0] == 't' ? sizeof(r->time) :
				     argv[0][5] ? sizeof(r->build_id) :
				     sizeof(r->build);

			if (argc != 2 || strlen(argv[1]) >= len)
				err = ds_rec_bad(name, lineno, "needs one value, not too long");
			else
				snprintf(dst, len, "%s", argv[1]);
		} else if (!strcmp(argv[0], "stats")) {
			if (ds_rec_stats(r, argc, argv))
				err = ds_rec_bad(name, lineno, "stats needs KEY NUMBER pairs: events, shown, masked, overflow, alloc-fails");
		} else if (!strcmp(argv[0], "site")) {
			if (ds_rec_site_line(r, argc, argv))
				err = ds_rec_bad(name, lineno, "site needs REASON COUNT MASKED SYMBOL, then dev, netns, l3 or l4 VALUE pairs");
		} else if (!strcmp(argv[0], "rule")) {
			/* what follows "rule ", as the shell would run it */
			const char *w = copy + strspn(copy, " \t") + 4;

			if (argc < 4 || (strcmp(argv[1], "mask") && strcmp(argv[1], "only")))
				err = ds_rec_bad(name, lineno, "rule needs mask or only, then FIELD VALUE pairs");
			else if (ds_rec_rule_add(r, w + strspn(w, " \t")))
				err = DS_EFAIL;
		} else {
			err = ds_rec_bad(name, lineno, "not a line of a record (format, kernel, build, build-id, time, stats, site, rule)");
		}
	}
	if (!err && ferror(f))
		err = ds_rec_bad(name, lineno, "cannot be read");
	if (!err && !format)
		err = ds_rec_bad(name, lineno, "empty: not a dropscope record");
	free(line);
	free(copy);
	if (err)
		ds_record_free(r);
	return err;
}

/* ---- diff ------------------------------------------------------------------ */

/* The function of a symbol ("f+0x1c/0x80 [mod]" -> "f [mod]"). */
static void ds_rec_function(const char *sym, char *out, size_t len)
{
	const char *mod = strchr(sym, ' ');

	snprintf(out, len, "%.*s%s", (int)strcspn(sym, "+ "), sym,
		 mod ? mod : "");
}

/* Sites keyed for the comparison: by site, or by function across builds. */
static int ds_rec_keyed(const struct ds_record *r, bool by_function,
			struct ds_record *out)
{
	struct ds_rec_site *s;
	char fn[160];
	size_t i, j;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < r->n; i++) {
		const struct ds_rec_site *e = &r->sites[i];

		if (by_function)
			ds_rec_function(e->symbol, fn, sizeof(fn));
		else
			snprintf(fn, sizeof(fn), "%s", e->symbol);
		for (j = 0; j < out->n; j++) {
			s = &out->sites[j];
			if (!strcmp(s->symbol, fn) && !strcmp(s->reason, e->reason) &&
			    !strcmp(s->fields, e->fields))
				break;
		}
		if (j == out->n) {
			s = ds_rec_site_add(out);
			if (!s) {
				ds_record_free(out);
				return -ENOMEM;
			}
			*s = *e;
			snprintf(s->symbol, sizeof(s->symbol), "%s", fn);
			s->count = s->masked = 0;
		}
		out->sites[j].count += e->count;
		out->sites[j].masked += e->masked;
	}
	return 0;
}

static const struct ds_rec_site *ds_rec_find(const struct ds_record *r,
					     const struct ds_rec_site *k)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->sites[i].symbol, k->symbol) &&
		    !strcmp(r->sites[i].reason, k->reason) &&
		    !strcmp(r->sites[i].fields, k->fields))
			return &r->sites[i];
	return NULL;
}

static int ds_rec_change_add(struct ds_rec_diff *d, enum ds_rec_kind kind,
			     const struct ds_rec_site *s, uint64_t a,
			     uint64_t b)
{
	struct ds_rec_change *c = ds_rec_add((void **)&d->v, &d->n, &d->cap,
					     sizeof(*d->v));

	if (!c)
		return -ENOMEM;
	c->kind = kind;
	c->site = *s;
	c->a = a;
	c->b = b;
	d->count[kind]++;
	return 0;
}

int ds_record_diff(const struct ds_record *a, const struct ds_record *b,
		   struct ds_rec_diff *d)
{
	struct ds_record ka, kb;
	const struct ds_rec_site *o;
	size_t i;
	int err;

	memset(d, 0, sizeof(*d));
	d->same_build = !strcmp(a->kernel, b->kernel) &&
			!strcmp(a->build, b->build) &&
			!strcmp(a->build_id, b->build_id);
	/* offsets mean nothing across builds: compare functions */
	d->by_function = !d->same_build;
	err = ds_rec_keyed(a, d->by_function, &ka);
	if (err)
		return err;
	err = ds_rec_keyed(b, d->by_function, &kb);
	if (err) {
		ds_record_free(&ka);
		return err;
	}
	/* B's order (by count), then what only A had */
	for (i = 0; i < kb.n && !err; i++) {
		const struct ds_rec_site *s = &kb.sites[i];
		uint64_t was;

		o = ds_rec_find(&ka, s);
		was = o ? o->count : 0;
		if (!s->count && !was)
			continue;
		if (!was)
			err = ds_rec_change_add(d, DS_REC_NEW, s, 0, s->count);
		else if (!s->count)
			err = ds_rec_change_add(d, DS_REC_GONE, s, was, 0);
		else if (was != s->count)
			err = ds_rec_change_add(d, DS_REC_CHANGED, s, was, s->count);
		else
			d->count[DS_REC_SAME]++;
	}
	for (i = 0; i < ka.n && !err; i++) {
		const struct ds_rec_site *s = &ka.sites[i];

		if (s->count && !ds_rec_find(&kb, s))
			err = ds_rec_change_add(d, DS_REC_GONE, s, s->count, 0);
	}
	ds_record_free(&ka);
	ds_record_free(&kb);
	if (err)
		ds_rec_diff_free(d);
	return err;
}

void ds_rec_diff_free(struct ds_rec_diff *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}
