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
	struct ds_cell *cells;	/* ncols + 1: the last one is the rest when
				 * no column has a NULL key */
};

/*
 * The cells of an open table live in blocks freed together when it is
 * written: a table of many rows makes no allocation per cell. Every cell's
 * text is in a block, and a block has DS_SLACK bytes after its data, so
 * that a short cell is copied as 16 bytes, without a call or a branch on
 * its length.
 */
#define DS_SLACK	16
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

		b = malloc(sizeof(*b) + size + DS_SLACK);
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

static const char ds_digits2[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The digits of v before end, two at a time; returns the first. */
static inline char *ds_dec_back(char *end, uint64_t v)
{
	char *q = end;

	while (v >= 100) {
		q -= 2;
		memcpy(q, ds_digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, ds_digits2 + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	return q;
}

char *ds_print_dec(char buf[24], uint64_t v)
{
	buf[23] = '\0';
	return ds_dec_back(buf + 23, v);
}

/* ds_print_udec() of v >= 10 */
size_t ds_print_udec_10(char *q, uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL,
		10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	size_t n;

	if (v < 100) {
		memcpy(q, ds_digits2 + 2 * v, 2);
		return 2;
	}
	/* the digits from the bits: log10(2) is about 1233 / 4096 */
	n = (size_t)((64 - __builtin_clzll(v)) * 1233) >> 12;
	n += v >= pow10[n];
	ds_dec_back(q + n, v);
	return n;
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

void ds_print_clean(char *q, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		q[i] = ds_text_ctl((unsigned char)s[i]) ? '?' : s[i];
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
	struct ds_cell *cells;

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
 * row, after a space if the cell has something already; with clean,
 * control characters of s become '?'.
 */
static void ds_cell_put3(struct ds_print *p, const char *key, const char *s,
			 size_t n, const char *tail, bool clean)
{
	struct ds_cell *cell = &p->rows[p->nrows - 1].cells[ds_col_of(p, key)];
	size_t old = cell->s ? cell->len + 1 : 0;
	size_t t = tail[0] ? strlen(tail) : 0;
	char *c = ds_alloc(p, old + n + t + 1), *q;

	if (!c)
		return;
	if (old) {
		memcpy(c, cell->s, old - 1);
		c[old - 1] = ' ';
	}
	q = c + old;
	if (clean)
		ds_print_clean(q, s, n);
	else
		memcpy(q, s, n);
	memcpy(q + n, tail, t + 1);
	cell->s = c;
	cell->len = old + n + t;
}

static void ds_cell_put2(struct ds_print *p, const char *key, const char *s,
			 size_t n, const char *tail)
{
	ds_cell_put3(p, key, s, n, tail, false);
}

static void ds_cell_put(struct ds_print *p, const char *key, const char *s,
			size_t n)
{
	ds_cell_put3(p, key, s, n, "", false);
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

/*
 * Text of a string from outside (a name, a comm): control characters
 * show as '?', copied straight into a cell when fmt is "%s".
 */
static void ds_text_str(struct ds_print *p, const char *key, const char *fmt,
			const char *v)
{
	char *t;

	if (p->in_row && fmt[0] == '%' && fmt[1] == 's' && !fmt[2])
		return ds_cell_put3(p, key, v, strlen(v), "", true);
	t = ds_text_clean(v);
	ds_text_s(p, key, fmt, t ? t : v);
	free(t);
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

/*
 * The layout of a table being written: the columns shown, in order, each
 * with its width, separator and alignment (the rest apart), and the text
 * put together, written to f in pieces of DS_BLOCK bytes.
 */
struct ds_lcol {
	int c;			/* the column */
	int w;			/* its width; 0: the last, left-aligned */
	bool right;
	size_t seplen;		/* of the separator before it, "" first */
	char sep[16];		/* padded: copied whole */
};

struct ds_layout {
	struct ds_lcol *cols;
	int n;			/* columns shown, the rest apart */
	int rest;		/* the rest's column, ncols if none */
	const char *restsep;
	size_t restseplen;
	size_t linemax;		/* a line without its rest is no longer */
	char *b;
	size_t len, cap;
	FILE *f;
};

static void ds_lb_flush(struct ds_layout *lo)
{
	if (lo->len)
		fwrite(lo->b, 1, lo->len, lo->f);
	lo->len = 0;
}

/* Room for n more bytes and 16 of slack (ds_spaces() writes 16 at a time). */
static bool ds_lb_room(struct ds_layout *lo, size_t n)
{
	size_t cap;
	char *b;

	if (lo->len + n + 16 <= lo->cap)
		return true;
	cap = (lo->len + n + 16) * 2;
	b = realloc(lo->b, cap);
	if (!b)
		return false;
	lo->b = b;
	lo->cap = cap;
	return true;
}

/* n spaces at q, 16 at a time: the buffer has room for 16 more. */
static inline char *ds_spaces(char *q, int n)
{
	static const char sp[16] = "                ";

	for (;;) {
		memcpy(q, sp, 16);
		if (n <= 16)
			return q + (n > 0 ? n : 0);
		q += 16;
		n -= 16;
	}
}

/*
 * One line of the table added to the layout's text. Every width is at
 * least its column's longest text ("-" included), so that a line is only
 * ever written once; the text of the cells is in the blocks (DS_SLACK).
 */
static void ds_line(const struct ds_cell *cells, struct ds_layout *lo)
{
	static const char dash[16] = "-";
	const char *rs = cells[lo->rest].s;
	size_t rn = rs ? cells[lo->rest].len : 0;
	char *q;
	int i;

	if (!ds_lb_room(lo, lo->linemax + lo->restseplen + rn + 1))
		return;
	q = lo->b + lo->len;
	for (i = 0; i < lo->n; i++) {
		const struct ds_lcol *lc = &lo->cols[i];
		const char *s = cells[lc->c].s;
		size_t n = cells[lc->c].len;

		if (!s) {
			s = dash;
			n = 1;
		}
		memcpy(q, lc->sep, sizeof(lc->sep));
		q += lc->seplen;
		if (lc->right)
			q = ds_spaces(q, lc->w - (int)n);
		if (n <= 16)
			memcpy(q, s, 16);
		else
			memcpy(q, s, n);
		q += n;
		if (!lc->right)
			q = ds_spaces(q, lc->w - (int)n);
	}
	if (rn) {
		memcpy(q, lo->restsep, lo->restseplen);
		memcpy(q + lo->restseplen, rs, rn);
		q += lo->restseplen + rn;
	}
	*q++ = '\n';
	lo->len = (size_t)(q - lo->b);
	if (lo->len >= DS_BLOCK)
		ds_lb_flush(lo);
}

/* The header as a row, its text in the blocks; a column without one: "". */
static struct ds_cell *ds_head_cells(struct ds_print *p)
{
	struct ds_cell *h = ds_alloc(p, ((size_t)p->ncols + 1) * sizeof(*h));
	int c;

	if (!h)
		return NULL;
	memset(h, 0, ((size_t)p->ncols + 1) * sizeof(*h));
	for (c = 0; c < p->ncols; c++) {
		const char *head = p->cols[c].head ? p->cols[c].head : "";

		h[c].len = strlen(head);
		h[c].s = ds_alloc(p, h[c].len + 1);
		if (!h[c].s)
			return NULL;
		memcpy((char *)h[c].s, head, h[c].len + 1);
	}
	return h;
}

/* The longest line of the table with widths w (the rest included). */
static size_t ds_widest(const struct ds_print *p, const struct ds_layout *lo,
			const int *w, int last)
{
	size_t fixed = 0, widest = 0, n, r;
	bool head = p->tflags & DS_TABLE_HEAD;
	int i;

	for (i = 0; i < lo->n; i++)
		fixed += lo->cols[i].seplen +
			 (lo->cols[i].c == last && !lo->cols[i].right ? 0 :
			  (size_t)w[lo->cols[i].c]);
	/* only the last column, when left-aligned, and the rest vary */
	for (r = 0; r < p->nrows + head; r++) {
		const struct ds_cell *cells = r < p->nrows ? p->rows[r].cells :
					      NULL;
		const char *s;

		n = fixed;
		if (last >= 0 && !(p->cols[last].flags & DS_COL_RIGHT)) {
			if (cells)
				n += cells[last].s ? cells[last].len : 1;
			else
				n += p->cols[last].head ?
				     strlen(p->cols[last].head) : 0;
		}
		if (cells)
			n += cells[lo->rest].s && cells[lo->rest].len ?
			     cells[lo->rest].len + lo->restseplen : 0;
		else if (lo->rest < p->ncols && (s = p->cols[lo->rest].head) &&
			 *s)
			n += strlen(s) + lo->restseplen;
		if (n > widest)
			widest = n;
	}
	return widest;
}

static void ds_table_write(struct ds_print *p)
{
	int n = p->ncols, c, i, last = -1;
	bool head = p->tflags & DS_TABLE_HEAD;
	int *nat = calloc((size_t)n + 1, sizeof(*nat));
	int *w = calloc((size_t)n + 1, sizeof(*w));
	bool *shown = calloc((size_t)n + 1, sizeof(*shown));
	bool *dash = calloc((size_t)n + 1, sizeof(*dash));
	struct ds_layout lo = {
		.cols = calloc((size_t)n + 1, sizeof(*lo.cols)),
		.rest = ds_col_of(p, NULL),
		.f = p->f,
	};
	bool extra = false;	/* an optional column is shown */
	struct ds_cell *hc;
	const char *sep;
	size_t r;

	if (!nat || !w || !shown || !dash || !lo.cols)
		goto out;
	for (c = 0; c < n; c++) {
		const struct ds_col *col = &p->cols[c];

		nat[c] = head && col->head ? (int)strlen(col->head) : 0;
		shown[c] = !(col->flags & DS_COL_OPT);
	}
	/* the rest's separator is two spaces unless its column says */
	lo.restsep = lo.rest < n && p->cols[lo.rest].sep ?
		     p->cols[lo.rest].sep : "  ";
	lo.restseplen = strlen(lo.restsep);
	for (r = 0; r < p->nrows; r++) {
		const struct ds_cell *cells = p->rows[r].cells;

		for (c = 0; c < n; c++) {
			if (!cells[c].s) {
				dash[c] = true;
				continue;
			}
			shown[c] = true;
			if ((int)cells[c].len > nat[c])
				nat[c] = (int)cells[c].len;
		}
	}
	for (c = 0; c < n; c++) {
		if (c == lo.rest)
			continue;
		/* a row without the column shows "-" */
		if (dash[c] && !nat[c])
			nat[c] = 1;
		w[c] = nat[c] > p->cols[c].width ? nat[c] : p->cols[c].width;
		if (shown[c])
			last = c;
		extra |= shown[c] && (p->cols[c].flags & DS_COL_OPT);
	}
	for (c = 0; c < n; c++) {
		if (c == lo.rest || !shown[c])
			continue;
		lo.cols[lo.n].c = c;
		lo.cols[lo.n].right = p->cols[c].flags & DS_COL_RIGHT;
		sep = lo.n && p->cols[c].sep ? p->cols[c].sep : "";
		lo.cols[lo.n].seplen = strlen(sep);
		if (lo.cols[lo.n].seplen > sizeof(lo.cols[lo.n].sep))
			goto out;	/* no such table */
		memcpy(lo.cols[lo.n].sep, sep, lo.cols[lo.n].seplen);
		lo.n++;
	}
	if ((p->tflags & DS_TABLE_FIT80) && extra &&
	    ds_widest(p, &lo, w, last) > 80)
		memcpy(w, nat, (size_t)n * sizeof(*w));
	for (i = 0; i < lo.n; i++) {
		struct ds_lcol *lc = &lo.cols[i];

		/* no trailing blanks */
		lc->w = lc->c == last && !lc->right ? 0 : w[lc->c];
		lo.linemax += lc->seplen + (size_t)w[lc->c];
	}
	if (head && p->nrows) {
		hc = ds_head_cells(p);
		if (hc)
			ds_line(hc, &lo);
	}
	for (r = 0; r < p->nrows; r++)
		ds_line(p->rows[r].cells, &lo);
	ds_lb_flush(&lo);
out:
	free(lo.b);
	free(lo.cols);
	free(nat);
	free(w);
	free(shown);
	free(dash);
}

static void ds_table_flush(struct ds_print *p)
{
	ds_table_write(p);
	ds_free_blocks(p);
	free(p->rows);
	p->rows = NULL;
	p->nrows = p->cap = 0;
}

/*
 * The rows of a table given by a function: each row's cells and text are
 * made once, into the blocks of the table, then written as a table whose
 * fields were printed one by one.
 */
void ds_print_rows(struct ds_print *p, const struct ds_col *cols, int ncols,
		   unsigned int flags, size_t nrows, ds_row_fn fn, void *arg)
{
	struct ds_block *b;
	size_t r;
	char *buf;

	p->cols = cols;
	p->ncols = ncols;
	p->tflags = flags;
	p->nrows = 0;
	for (r = 0; r < nrows; r++) {
		ds_row_begin(p);
		if (!p->in_row)
			break;
		p->in_row = false;
		buf = ds_alloc(p, DS_ROW_BUF);
		if (!buf) {
			p->nrows--;
			break;
		}
		/* give back what the row did not use */
		b = p->blocks;
		b->used -= DS_ROW_BUF -
			   ((fn(arg, r, p->rows[p->nrows - 1].cells, buf) + 7) &
			    ~(size_t)7);
	}
	ds_table_flush(p);
	p->cols = NULL;
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
	if (!ds_wants(p, mode, fmt))
		return;
	if (p->json)
		return ds_field(p, mode, key, v, true, fmt, NULL);
	ds_text_str(p, key, fmt, v);
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

void ds_print_g(struct ds_print *p, enum ds_pmode mode, const char *key,
		const char *fmt, double v)
{
	char j[32];

	snprintf(j, sizeof(j), "%g", v);
	ds_field(p, mode, key, j, false, fmt, j);
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
	char j[24];

	if (!ds_wants(p, mode, fmt))
		return;
	if (p->json)
		return ds_field(p, mode, key, ds_print_dec(j, v), false, fmt,
				NULL);
	ds_text_str(p, key, fmt, text);
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
