// SPDX-License-Identifier: GPL-2.0
/*
 * One print path for text and JSON: see print.h.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

struct ds_row {
	char **cells;		/* ncols + 1: the last one is the rest when
				 * no column has a NULL key */
};

/* The length of the valid UTF-8 sequence at s (s[0] >= 0x80), or 0. */
static size_t ds_utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * A JSON string. Device and namespace names are any bytes the kernel or
 * the file system took: a byte that is not valid UTF-8 becomes U+FFFD, so
 * the document always parses.
 */
static void ds_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', f);
	while (*s) {
		unsigned char c = *s;

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, f);
		} else if ((n = ds_utf8_len(s))) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		} else {
			fputs("\\ufffd", f);
		}
		s++;
	}
	fputc('"', f);
}

/* A copy for text, with control characters shown as '?'. */
static char *ds_text_clean(const char *s)
{
	char *t = strdup(s), *q;

	for (q = t; q && *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	return t;
}

/* A comma when needed, then the key. */
static void ds_json_key(struct ds_print *p, const char *key)
{
	if (p->depth > 0 && !p->first[p->depth])
		fputc(',', p->f);
	p->first[p->depth] = false;
	if (key) {
		ds_json_str(p->f, key);
		fputc(':', p->f);
	}
}

/* The column a text field goes to: its key's, else the rest. */
static int ds_col_of(const struct ds_print *p, const char *key)
{
	int i, rest = p->ncols;

	for (i = 0; i < p->ncols; i++) {
		if (!p->cols[i].key)
			rest = i;
		else if (key && !strcmp(p->cols[i].key, key))
			return i;
	}
	return rest;
}

static void ds_row_begin(struct ds_print *p)
{
	char **cells;

	if (p->nrows == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct ds_row *v = realloc(p->rows, cap * sizeof(*v));

		if (!v)
			return;		/* then the fields print inline */
		p->rows = v;
		p->cap = cap;
	}
	cells = calloc((size_t)p->ncols + 1, sizeof(*cells));
	if (!cells)
		return;
	p->rows[p->nrows++].cells = cells;
	p->in_row = true;
}

/* Text: written out, or added to its cell when a row is open. */
static void ds_vtext(struct ds_print *p, const char *key, const char *fmt,
		     va_list ap)
{
	char **cell, *s, *joined;
	va_list aq;
	int n;

	if (!p->in_row) {
		vfprintf(p->f, fmt, ap);
		return;
	}
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || !(s = malloc((size_t)n + 1)))
		return;
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	cell = &p->rows[p->nrows - 1].cells[ds_col_of(p, key)];
	if (!*cell) {
		*cell = s;
		return;
	}
	joined = malloc(strlen(*cell) + (size_t)n + 2);
	if (joined)
		sprintf(joined, "%s %s", *cell, s);
	free(s);
	if (joined) {
		free(*cell);
		*cell = joined;
	}
}

/*
 * The one place a field is printed: JSON gets key and json (quoted and
 * escaped when quote), text gets fmt applied to the arguments after it.
 */
static void ds_field(struct ds_print *p, enum ds_pmode mode, const char *key,
		     const char *json, bool quote, const char *fmt, ...)
{
	va_list ap;

	if (p->json) {
		if (!(mode & DS_JSON))
			return;
		ds_json_key(p, key);
		if (quote)
			ds_json_str(p->f, json);
		else
			fputs(json, p->f);
		return;
	}
	if (!(mode & DS_FP) || !fmt)
		return;
	va_start(ap, fmt);
	ds_vtext(p, key, fmt, ap);
	va_end(ap);
}

static void ds_open(struct ds_print *p, const char *key, char c)
{
	if (p->json) {
		ds_json_key(p, key);
		fputc(c, p->f);
	} else if (c == '{' && p->cols && !p->in_row &&
		   p->depth == p->tdepth) {
		ds_row_begin(p);
	}
	if (p->depth < DS_PRINT_DEPTH - 1)
		p->depth++;
	p->first[p->depth] = true;
}

static void ds_close(struct ds_print *p, char c)
{
	if (p->depth > 0)
		p->depth--;
	if (p->json) {
		fputc(c, p->f);
		if (!p->depth)
			fputc('\n', p->f);
	} else if (c == '}' && p->in_row && p->depth == p->tdepth) {
		p->in_row = false;
	}
}

void ds_print_open_obj(struct ds_print *p, const char *key)
{
	ds_open(p, key, '{');
}

void ds_print_close_obj(struct ds_print *p)
{
	ds_close(p, '}');
}

void ds_print_open_arr(struct ds_print *p, const char *key)
{
	ds_open(p, key, '[');
}

void ds_print_close_arr(struct ds_print *p)
{
	ds_close(p, ']');
}

/* Write s padded to width (pad: how many spaces, before or after). */
static size_t ds_put(FILE *f, const char *s, int before, int after)
{
	if (f)
		fprintf(f, "%*s%s%*s", before, "", s, after, "");
	return strlen(s) + (size_t)before + (size_t)after;
}

/*
 * One line of the table, the header when cells is NULL: written to f, or
 * only measured when f is NULL. Returns its length.
 */
static size_t ds_line(const struct ds_print *p, char **cells, const int *w,
		      const bool *shown, int last, int rest, FILE *f)
{
	const char *s;
	size_t len = 0;
	bool first = true;
	int c;

	for (c = 0; c < p->ncols; c++) {
		const struct ds_col *col = &p->cols[c];
		int pad;

		if (c == rest || !shown[c])
			continue;
		if (cells)
			s = cells[c] ? cells[c] : "-";
		else
			s = col->head ? col->head : "";
		if (!first)
			len += ds_put(f, col->sep ? col->sep : "", 0, 0);
		first = false;
		pad = w[c] - (int)strlen(s);
		if (pad < 0 || (c == last && !(col->flags & DS_COL_RIGHT)))
			pad = 0;	/* no trailing blanks */
		if (col->flags & DS_COL_RIGHT)
			len += ds_put(f, s, pad, 0);
		else
			len += ds_put(f, s, 0, pad);
	}
	if (cells)
		s = cells[rest];
	else
		s = rest < p->ncols ? p->cols[rest].head : NULL;
	if (s && *s) {
		len += ds_put(f, rest < p->ncols && p->cols[rest].sep ?
			      p->cols[rest].sep : "  ", 0, 0);
		len += ds_put(f, s, 0, 0);
	}
	if (f)
		fputc('\n', f);
	return len;
}

static void ds_table_flush(struct ds_print *p)
{
	int n = p->ncols, rest = ds_col_of(p, NULL), last = -1, c;
	bool head = p->tflags & DS_TABLE_HEAD;
	int *w = calloc((size_t)n + 1, sizeof(*w));
	int *nat = calloc((size_t)n + 1, sizeof(*nat));
	bool *shown = calloc((size_t)n + 1, sizeof(*shown));
	size_t r, widest = 0;
	bool extra = false;	/* an optional column is shown */

	if (!w || !nat || !shown)
		goto out;
	for (c = 0; c < n; c++) {
		const struct ds_col *col = &p->cols[c];

		if (c == rest)
			continue;
		nat[c] = head && col->head ? (int)strlen(col->head) : 0;
		shown[c] = !(col->flags & DS_COL_OPT);
		for (r = 0; r < p->nrows; r++) {
			const char *s = p->rows[r].cells[c];

			if (!s)
				continue;
			shown[c] = true;
			if ((int)strlen(s) > nat[c])
				nat[c] = (int)strlen(s);
		}
		w[c] = nat[c] > col->width ? nat[c] : col->width;
		if (shown[c])
			last = c;
		extra |= shown[c] && (col->flags & DS_COL_OPT);
	}
	if ((p->tflags & DS_TABLE_FIT80) && extra) {
		if (head)
			widest = ds_line(p, NULL, w, shown, last, rest, NULL);
		for (r = 0; r < p->nrows; r++) {
			size_t len = ds_line(p, p->rows[r].cells, w, shown,
					     last, rest, NULL);

			if (len > widest)
				widest = len;
		}
		if (widest > 80)
			memcpy(w, nat, (size_t)n * sizeof(*w));
	}
	if (head && p->nrows)
		ds_line(p, NULL, w, shown, last, rest, p->f);
	for (r = 0; r < p->nrows; r++)
		ds_line(p, p->rows[r].cells, w, shown, last, rest, p->f);
out:
	for (r = 0; r < p->nrows; r++) {
		for (c = 0; c <= n; c++)
			free(p->rows[r].cells[c]);
		free(p->rows[r].cells);
	}
	free(p->rows);
	p->rows = NULL;
	p->nrows = p->cap = 0;
	free(w);
	free(nat);
	free(shown);
}

void ds_print_open_table(struct ds_print *p, const char *key,
			 const struct ds_col *cols, int ncols,
			 unsigned int flags)
{
	ds_print_open_arr(p, key);
	if (p->json)
		return;
	p->cols = cols;
	p->ncols = ncols;
	p->tflags = flags;
	p->tdepth = p->depth;
	p->nrows = 0;
	p->in_row = false;
}

void ds_print_close_table(struct ds_print *p)
{
	if (!p->json && p->cols) {
		ds_table_flush(p);
		p->cols = NULL;
		p->in_row = false;
	}
	ds_print_close_arr(p);
}

void ds_print_str(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, const char *v)
{
	char *t = p->json ? NULL : ds_text_clean(v);

	ds_field(p, mode, key, v, true, fmt, t ? t : v);
	free(t);
}

/* JSON's text of a number. */
static const char *ds_dec(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

void ds_print_u64(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, uint64_t v)
{
	char j[24];

	ds_field(p, mode, key, ds_dec(j, sizeof(j), v), false, fmt, v);
}

void ds_print_u32(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, uint32_t v)
{
	char j[24];

	ds_field(p, mode, key, ds_dec(j, sizeof(j), v), false, fmt, v);
}

void ds_print_hex(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, uint64_t v)
{
	char j[24];

	snprintf(j, sizeof(j), "0x%" PRIx64, v);
	ds_field(p, mode, key, j, true, fmt, j);
}

void ds_print_bool(struct ds_print *p, enum ds_pmode mode, const char *key,
		   const char *fmt, bool v)
{
	ds_print_bool_as(p, mode, key, fmt, v, v ? "true" : "false");
}

void ds_print_null(struct ds_print *p, enum ds_pmode mode, const char *key,
		   const char *fmt)
{
	ds_field(p, mode, key, "null", false, fmt, "-");
}

void ds_print_u64_as(struct ds_print *p, enum ds_pmode mode, const char *key,
		     const char *fmt, uint64_t v, const char *text)
{
	char *t = p->json ? NULL : ds_text_clean(text);
	char j[24];

	ds_field(p, mode, key, ds_dec(j, sizeof(j), v), false, fmt,
		 t ? t : text);
	free(t);
}

void ds_print_bool_as(struct ds_print *p, enum ds_pmode mode,
		      const char *key, const char *fmt, bool v,
		      const char *text)
{
	ds_field(p, mode, key, v ? "true" : "false", false, fmt, text);
}

void ds_print_text(struct ds_print *p, const char *fmt, ...)
{
	va_list ap;

	if (p->json)
		return;
	va_start(ap, fmt);
	ds_vtext(p, NULL, fmt, ap);
	va_end(ap);
}
