/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One print path for text and JSON.
 *
 * Every field is printed once, with its JSON key and its text format side
 * by side:
 *
 *	ds_print_u64(p, DS_ANY, "count", "%" PRIu64, s->total);
 *
 * In JSON mode the key and the value are written and the format is
 * ignored; in text mode the format is applied to the value and the key is
 * ignored, unless a text table is open (below). DS_FP prints a field in
 * text only (column headers, decorations), DS_JSON in JSON only (ids that
 * text shows by name). A NULL format prints nothing in text.
 *
 * Text tables: ds_print_open_table() opens a JSON array; each object
 * opened directly in it is a row. In text mode the fields of a row are
 * not written at once but collected into the column whose key equals the
 * field's key, so the text columns keep their order whatever the JSON key
 * order is; fields with no column of their own go into the rest column
 * (the column with a NULL key), joined by spaces, at the end of the line.
 * When the table closes, its rows are written with each column as wide as
 * its widest cell (at least its minimum width). A column flagged
 * DS_COL_OPT is shown only when some row has a value for it; in a shown
 * column, a row without a value prints "-".
 *
 * The JSON is written here, not built with json-c: the output streams
 * (watch prints each alert message as it arrives, no document tree is
 * needed), the lab tests parse it byte for byte as it has always been,
 * and the whole emitter is the escaping below plus comma bookkeeping.
 */
#ifndef DROPSCOPE_PRINT_H
#define DROPSCOPE_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ds_pmode {
	DS_FP = 1,		/* text only */
	DS_JSON = 2,		/* JSON only */
	DS_ANY = 3,		/* both */
};

#define DS_COL_RIGHT	1u	/* right-aligned */
#define DS_COL_OPT	2u	/* shown only when some row has it */

struct ds_col {
	const char *key;	/* the JSON key it shows; NULL: the rest */
	const char *head;	/* header; NULL: none */
	const char *sep;	/* printed before the column */
	int width;		/* minimum width */
	unsigned int flags;
};

#define DS_TABLE_HEAD	1u	/* a header line above the rows */
/* When optional columns are shown and a line would pass 80 columns, the
 * minimum widths give way to the widest values: the plain table keeps
 * its layout, the extra columns find room. */
#define DS_TABLE_FIT80	2u

#define DS_PRINT_DEPTH	16

struct ds_row;
struct ds_block;

/* A cell of a text table: its text and length; s NULL: no value. */
struct ds_cell {
	const char *s;
	size_t len;
};

struct ds_print {
	FILE *f;
	bool json;
	int depth;
	bool first[DS_PRINT_DEPTH];	/* no comma needed yet at this depth */
	/* the open text table */
	const struct ds_col *cols;
	int ncols;
	unsigned int tflags;
	int tdepth;		/* depth inside the table's array */
	struct ds_row *rows;
	size_t nrows, cap;
	bool in_row;
	int col_hint;		/* the column the next field likely goes to */
	struct ds_block *blocks;	/* where the rows' cells are */
};

void ds_print_open_obj(struct ds_print *p, const char *key);
void ds_print_close_obj(struct ds_print *p);
void ds_print_open_arr(struct ds_print *p, const char *key);
void ds_print_close_arr(struct ds_print *p);
void ds_print_open_table(struct ds_print *p, const char *key,
			 const struct ds_col *cols, int ncols,
			 unsigned int flags);
void ds_print_close_table(struct ds_print *p);

/*
 * A text table of many rows, not collected field by field: fn puts the
 * text of row r into cells (one per column, the rest last, all empty at
 * first), keeping it in buf (DS_ROW_BUF bytes), and returns how many
 * bytes of buf it used. The layout is that of ds_print_open_table(); text
 * mode only.
 */
#define DS_ROW_BUF	1024
typedef size_t (*ds_row_fn)(void *arg, size_t r, struct ds_cell *cells,
			    char *buf);
void ds_print_rows(struct ds_print *p, const struct ds_col *cols, int ncols,
		   unsigned int flags, size_t nrows, ds_row_fn fn, void *arg);

/* fmt takes the value: a string for str and hex ("0x1f"), the integer
 * for u64 (PRIu64) and u32 (PRIu32), "true"/"false" for bool. */
void ds_print_str(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, const char *v);
void ds_print_u64(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, uint64_t v);
void ds_print_u32(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, uint32_t v);
void ds_print_hex(struct ds_print *p, enum ds_pmode mode, const char *key,
		  const char *fmt, uint64_t v);
void ds_print_bool(struct ds_print *p, enum ds_pmode mode, const char *key,
		   const char *fmt, bool v);
/* A number as printf's %g writes it (ss's rtt): fmt takes the string. */
void ds_print_g(struct ds_print *p, enum ds_pmode mode, const char *key,
		const char *fmt, double v);
/* JSON null; text gets "-". */
void ds_print_null(struct ds_print *p, enum ds_pmode mode, const char *key,
		   const char *fmt);
/* A value JSON keeps as a number or boolean and text shows by name:
 * fmt takes the string text ("lo" for ifindex 1). */
void ds_print_u64_as(struct ds_print *p, enum ds_pmode mode, const char *key,
		     const char *fmt, uint64_t v, const char *text);
void ds_print_bool_as(struct ds_print *p, enum ds_pmode mode,
		      const char *key, const char *fmt, bool v,
		      const char *text);
/* The decimal digits of v, written at the end of buf; returns the
 * first (no printf: for the many numbers of a long table). */
char *ds_print_dec(char buf[24], uint64_t v);
/* The decimal digits of v at q, no NUL (at most 20); returns how many. */
size_t ds_print_udec_10(char *q, uint64_t v);
static inline size_t ds_print_udec(char *q, uint64_t v)
{
	/* a dump's counters are mostly 0: no call for a digit */
	if (v < 10) {
		*q = (char)('0' + v);
		return 1;
	}
	return ds_print_udec_10(q, v);
}
/* n bytes of s to q, control characters as '?', as text shows strings. */
void ds_print_clean(char *q, const char *s, size_t n);
/* Text only, printf-like: headers, notes, blank lines. */
void ds_print_text(struct ds_print *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* DROPSCOPE_PRINT_H */
