// SPDX-License-Identifier: GPL-2.0
/*
 * One print path for text and JSON: commands describe what they print with
 * ds_out_*(); in text mode the callers print their own tables.
 */
#include <inttypes.h>

#include "dropscope.h"

void ds_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void ds_out_sep(struct ds_out *o)
{
	if (o->depth > 0 && !o->first[o->depth])
		fputc(',', o->f);
	o->first[o->depth] = false;
}

void ds_out_key(struct ds_out *o, const char *key)
{
	ds_out_sep(o);
	if (key) {
		ds_json_str(o->f, key);
		fputc(':', o->f);
	}
}

void ds_out_begin(struct ds_out *o, const char *key, char open)
{
	ds_out_key(o, key);
	fputc(open, o->f);
	if (o->depth < 15)
		o->depth++;
	o->first[o->depth] = true;
}

void ds_out_end(struct ds_out *o, char close)
{
	fputc(close, o->f);
	if (o->depth > 0)
		o->depth--;
	if (!o->depth)
		fputc('\n', o->f);
}

void ds_out_u64(struct ds_out *o, const char *key, uint64_t v)
{
	ds_out_key(o, key);
	fprintf(o->f, "%" PRIu64, v);
}

void ds_out_str(struct ds_out *o, const char *key, const char *v)
{
	ds_out_key(o, key);
	ds_json_str(o->f, v);
}

void ds_out_bool(struct ds_out *o, const char *key, bool v)
{
	ds_out_key(o, key);
	fputs(v ? "true" : "false", o->f);
}

/* A site object: what "show sites" and "watch" print in JSON. */
void ds_out_site(struct ds_out *o, const struct ds_site *s)
{
	char loc[32];

	snprintf(loc, sizeof(loc), "0x%" PRIx64, s->location);
	ds_out_begin(o, NULL, '{');
	ds_out_str(o, "symbol", s->symbol);
	ds_out_str(o, "location", loc);
	ds_out_str(o, "reason", s->reason_name);
	ds_out_u64(o, "reason_id", s->reason);
	ds_out_u64(o, "count", s->total);
	if (s->has_delta)
		ds_out_u64(o, "delta", s->delta);
	else
		ds_out_u64(o, "masked", s->masked);
	if (s->ifindex)
		ds_out_u64(o, "ifindex", s->ifindex);
	if (s->netns)
		ds_out_u64(o, "netns", s->netns);
	if (s->l3)
		ds_out_u64(o, "l3", s->l3);
	if (s->l4)
		ds_out_u64(o, "l4", s->l4);
	ds_out_end(o, '}');
}
