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

/*
 * The cells of an open table live in blocks freed together when it is
 * written: a table of many rows makes no allocation per cell.
 */
#define DS_BLOCK	65536

struct ds_block {
	struct ds_block *next;
	size_t used, size;
	char data[];
};

static void *ds_alloc(struct ds_print *p, size_t n)
{
	struct ds_block *b = p->blocks;

	n = (n + 7) & ~(size_t)7;
	if (!b || b->size - b->used < n) {
		size_t size = n > DS_BLOCK ? n : DS_BLOCK;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->next = p->blocks;
		b->used = 0;
		b->size = size;
		p->blocks = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

static void ds_free_blocks(struct ds_print *p)
{
	struct ds_block *b, *next;

	for (b = p->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	p->blocks = NULL;
}

char *ds_print_dec(char buf[24], uint64_t v)
{
	char *q = buf + 23;

	*q = '\0';
	do {
		*--q = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return q;
}

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

static bool ds_text_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/*
 * A copy for text, with control characters shown as '?'; NULL when s has
 * none (then s itself is fine).
 */
static char *ds_text_clean(const char *s)
{
	const char *c;
	char *t, *q;

	for (c = s; *c && !ds_text_ctl((unsigned char)*c); c++)
		;
	if (!*c)
		return NULL;
	t = strdup(s);
	for (q = t; q && *q; q++)
		if (ds_text_ctl((unsigned char)*q))
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
static int ds_col_of(struct ds_print *p, const char *key)
{
	int i, rest = p->ncols;

	/* the fields of a row mostly come in the columns' order */
	i = p->col_hint;
	if (key && i < p->ncols && p->cols[i].key &&
	    (p->cols[i].key == key || !strcmp(p->cols[i].key, key))) {
		p->col_hint = i + 1;
		return i;
	}
	/* the same string, mostly: the literal of the same file */
	for (i = 0; key && i < p->ncols; i++)
		if (p->cols[i].key == key)
			return p->col_hint = i + 1, i;
	for (i = 0; i < p->ncols; i++) {
		if (!p->cols[i].key)
			rest = i;
		else if (key && !strcmp(p->cols[i].key, key))
			return p->col_hint = i + 1, i;
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
	cells = ds_alloc(p, ((size_t)p->ncols + 1) * sizeof(*cells));
	if (!cells)
		return;
	memset(cells, 0, ((size_t)p->ncols + 1) * sizeof(*cells));
	p->rows[p->nrows++].cells = cells;
	p->in_row = true;
	p->col_hint = 0;
}

/*
 * Put s (n bytes) and the string tail into the cell of key in the open
 * row, after a space if the cell has something already.
 */
static void ds_cell_put2(struct ds_print *p, const char *key, const char *s,
			 size_t n, const char *tail)
{
	char **cell = &p->rows[p->nrows - 1].cells[ds_col_of(p, key)];
	size_t old = *cell ? strlen(*cell) + 1 : 0, t = strlen(tail);
	char *c = ds_alloc(p, old + n + t + 1);

	if (!c)
		return;
	if (old) {
		memcpy(c, *cell, old - 1);
		c[old - 1] = ' ';
	}
	memcpy(c + old, s, n);
	memcpy(c + old + n, tail, t + 1);
	*cell = c;
}

static void ds_cell_put(struct ds_print *p, const char *key, const char *s,
			size_t n)
{
	ds_cell_put2(p, key, s, n, "");
}

/* Text: written out, or added to its cell when a row is open. */
static void ds_vtext(struct ds_print *p, const char *key, const char *fmt,
		     va_list ap)
{
	char buf[128], *s;
	va_list aq;
	int n;

	if (!p->in_row) {
		vfprintf(p->f, fmt, ap);
		return;
	}
	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		ds_cell_put(p, key, buf, (size_t)n);
		return;
	}
	s = malloc((size_t)n + 1);
	if (!s)
		return;
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	ds_cell_put(p, key, s, (size_t)n);
	free(s);
}

static void ds_text(struct ds_print *p, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ds_vtext(p, key, fmt, ap);
	va_end(ap);
}

/*
 * Text of a ready string v under fmt; into a cell as it is when fmt is
 * "%s" (the common case: no formatting at all).
 */
static void ds_text_s(struct ds_print *p, const char *key, const char *fmt,
		      const char *v)
{
	if (p->in_row && fmt[0] == '%' && fmt[1] == 's' && !fmt[2])
		ds_cell_put(p, key, v, strlen(v));
	else
		ds_text(p, key, fmt, v);
}

/* Does a field of this mode and text format print anything at all? */
static bool ds_wants(const struct ds_print *p, enum ds_pmode mode,
		     const char *fmt)
{
	return p->json ? mode & DS_JSON : (mode & DS_FP) && fmt;
}

/*
 * The one place a field is printed: JSON gets key and json (quoted and
 * escaped when quote), text gets fmt applied to the string text.
 */
static void ds_field(struct ds_print *p, enum ds_pmode mode, const char *key,
		     const char *json, bool quote, const char *fmt,
		     const char *text)
{
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
	ds_text_s(p, key, fmt, text);
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

/* A line of a table as it is put together. */
struct ds_linebuf {
	char *b;
	size_t len, cap;
};

/*
 * Add s padded to width (pad: how many spaces, before or after) to lb, or
 * only measure it when lb is NULL. Returns its length.
 */
static size_t ds_putn(struct ds_linebuf *lb, const char *s, size_t n,
		      int before, int after)
{
	size_t len = n + (size_t)before + (size_t)after;
	char *q;

	if (!lb)
		return len;
	if (lb->len + len + 2 > lb->cap) {
		size_t cap = (lb->len + len + 2) * 2;
		char *b = realloc(lb->b, cap);

		if (!b)
			return len;
		lb->b = b;
		lb->cap = cap;
	}
	q = lb->b + lb->len;
	for (; before > 0; before--)
		*q++ = ' ';
	memcpy(q, s, n);
	q += n;
	for (; after > 0; after--)
		*q++ = ' ';
	lb->len += len;
	return len;
}

static size_t ds_put(struct ds_linebuf *lb, const char *s, int before,
		     int after)
{
	return ds_putn(lb, s, strlen(s), before, after);
}

/*
 * One line of the table, the header when cells is NULL: written to f
 * through lb, or only measured when lb is NULL. Returns its length.
 */
static size_t ds_line(const struct ds_print *p, char **cells, const int *w,
		      const bool *shown, int last, int rest,
		      struct ds_linebuf *lb)
{
	const char *s;
	size_t len = 0, n;
	bool first = true;
	int c;

	if (lb)
		lb->len = 0;
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
			len += ds_put(lb, col->sep ? col->sep : "", 0, 0);
		first = false;
		n = strlen(s);
		pad = w[c] - (int)n;
		if (pad < 0 || (c == last && !(col->flags & DS_COL_RIGHT)))
			pad = 0;	/* no trailing blanks */
		if (col->flags & DS_COL_RIGHT)
			len += ds_putn(lb, s, n, pad, 0);
		else
			len += ds_putn(lb, s, n, 0, pad);
	}
	if (cells)
		s = cells[rest];
	else
		s = rest < p->ncols ? p->cols[rest].head : NULL;
	if (s && *s) {
		len += ds_put(lb, rest < p->ncols && p->cols[rest].sep ?
			      p->cols[rest].sep : "  ", 0, 0);
		len += ds_put(lb, s, 0, 0);
	}
	if (lb && lb->b) {
		lb->b[lb->len] = '\n';
		fwrite(lb->b, 1, lb->len + 1, p->f);
	} else if (lb) {
		fputc('\n', p->f);
	}
	return len;
}

static void ds_table_flush(struct ds_print *p)
{
	int n = p->ncols, rest = ds_col_of(p, NULL), last = -1, c;
	bool head = p->tflags & DS_TABLE_HEAD;
	int *w = calloc((size_t)n + 1, sizeof(*w));
	int *nat = calloc((size_t)n + 1, sizeof(*nat));
	bool *shown = calloc((size_t)n + 1, sizeof(*shown));
	struct ds_linebuf lb = { NULL, 0, 0 };
	size_t r, widest = 0;
	int len;
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
			len = (int)strlen(s);
			if (len > nat[c])
				nat[c] = len;
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
		ds_line(p, NULL, w, shown, last, rest, &lb);
	for (r = 0; r < p->nrows; r++)
		ds_line(p, p->rows[r].cells, w, shown, last, rest, &lb);
out:
	free(lb.b);
	ds_free_blocks(p);
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
	char *t;

	if (!ds_wants(p, mode, fmt))
		return;
	if (p->json)
		return ds_field(p, mode, key, v, true, fmt, NULL);
	t = ds_text_clean(v);
	ds_text_s(p, key, fmt, t ? t : v);
	free(t);
}

/* Is fmt the n bytes of plain, then only literal text? */
static bool ds_plain(const char *fmt, const char *plain, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fmt[i] != plain[i])
			return false;
	for (fmt += n; *fmt; fmt++)
		if (*fmt == '%')
			return false;
	return true;
}

/*
 * A number: JSON's text of it, and text's, printf-free when fmt is plain
 * decimal, maybe with a literal after it.
 */
static void ds_num(struct ds_print *p, enum ds_pmode mode, const char *key,
		   const char *fmt, uint64_t v, bool u32)
{
	const char *plain = u32 ? "%" PRIu32 : "%" PRIu64;
	size_t n = strlen(plain);
	char buf[24], *d;

	if (!ds_wants(p, mode, fmt))
		return;
	d = ds_print_dec(buf, v);
	if (p->json)
		ds_field(p, mode, key, d, false, fmt, NULL);
	else if (p->in_row && ds_plain(fmt, plain, n))
		ds_cell_put2(p, key, d, (size_t)(buf + 23 - d), fmt + n);
	else if (u32)
		ds_text(p, key, fmt, (uint32_t)v);
	else
		ds_text(p, key, fmt, v);
}

void ds_print_u64(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, uint64_t v)
{
	ds_num(p, mode, key, fmt, v, false);
}

void ds_print_u32(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, uint32_t v)
{
	ds_num(p, mode, key, fmt, v, true);
}

void ds_print_hex(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, uint64_t v)
{
	char j[24];

	if (!ds_wants(p, mode, fmt))
		return;
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
	char j[24], *t;

	if (!ds_wants(p, mode, fmt))
		return;
	if (p->json)
		return ds_field(p, mode, key, ds_print_dec(j, v), false, fmt,
				NULL);
	t = ds_text_clean(text);
	ds_text_s(p, key, fmt, t ? t : text);
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
