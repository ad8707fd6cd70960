// SPDX-License-Identifier: GPL-2.0
/*
 * Drop stacks: the requests that turn them on and off, the dump read into
 * struct ds_stack, and their printing (show stacks). A site's stacks are
 * listed under it, by count; JSON gives one object a stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "ds.h"
#include "print.h"

int ds_stacks_set(struct ds_nl *nl, bool on, const struct ds_rule *r)
{
	struct nl_msg *msg = ds_nl_msg(nl, DROPSCOPE_CMD_STACKS_SET, false);

	if (msg && (nla_put_u8(msg, DROPSCOPE_A_STACKS, on) ||
		    (r && ds_rule_put(msg, r)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return ds_nl_send(nl, msg, NULL, NULL);
}

static const struct nla_policy ds_stack_policy[DROPSCOPE_STACK_A_MAX + 1] = {
	[DROPSCOPE_STACK_A_LOCATION] = { .type = NLA_U64 },
	[DROPSCOPE_STACK_A_REASON] = { .type = NLA_U32 },
	[DROPSCOPE_STACK_A_ID] = { .type = NLA_U32 },
	[DROPSCOPE_STACK_A_COUNT] = { .type = NLA_U64 },
	[DROPSCOPE_STACK_A_FRAME] = { .type = NLA_U64 },
	[DROPSCOPE_STACK_A_NO_ROOM] = { .type = NLA_FLAG },
	[DROPSCOPE_STACK_A_SITELESS] = { .type = NLA_FLAG },
	[DROPSCOPE_STACK_A_SYMBOL] = { .type = NLA_STRING },
	[DROPSCOPE_STACK_A_SITE] = { .type = NLA_STRING },
};

void ds_stack_free(struct ds_stack *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->symbols[i]);
		free(s->lines[i]);
	}
	s->nr = 0;
}

/* One DROPSCOPE_A_STACK nest; its frames and symbols in order. */
int ds_stack_parse(struct nlattr *nest, struct ds_stack *s)
{
	struct nlattr *tb[DROPSCOPE_STACK_A_MAX + 1], *a;
	size_t nsym = 0;
	int rem;

	memset(s, 0, sizeof(*s));
	if (ds_nla_parse_nested(tb, DROPSCOPE_STACK_A_MAX, nest,
				ds_stack_policy) < 0 ||
	    !tb[DROPSCOPE_STACK_A_LOCATION] || !tb[DROPSCOPE_STACK_A_COUNT] ||
	    !tb[DROPSCOPE_STACK_A_ID])
		return -EINVAL;
	s->location = nla_get_u64(tb[DROPSCOPE_STACK_A_LOCATION]);
	s->count = nla_get_u64(tb[DROPSCOPE_STACK_A_COUNT]);
	s->id = nla_get_u32(tb[DROPSCOPE_STACK_A_ID]);
	if (tb[DROPSCOPE_STACK_A_REASON])
		s->reason = nla_get_u32(tb[DROPSCOPE_STACK_A_REASON]);
	s->no_room = tb[DROPSCOPE_STACK_A_NO_ROOM];
	if (tb[DROPSCOPE_STACK_A_SITE])
		nla_strlcpy(s->site, tb[DROPSCOPE_STACK_A_SITE], sizeof(s->site));
	else
		snprintf(s->site, sizeof(s->site), "0x%" PRIx64, s->location);
	s->siteless = tb[DROPSCOPE_STACK_A_SITELESS];
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == DROPSCOPE_STACK_A_FRAME) {
			if (s->nr == DROPSCOPE_STACK_DEPTH)
				goto bad;
			s->frames[s->nr++] = nla_get_u64(a);
		} else if (nla_type(a) == DROPSCOPE_STACK_A_SYMBOL) {
			if (nsym == s->nr || !memchr(nla_data(a), '\0', nla_len(a)))
				goto bad;
			s->symbols[nsym] = strdup(nla_data(a));
			if (!s->symbols[nsym++])
				goto bad;
		}
	}
	/* every frame named; none for a stack without frames */
	if (nsym == s->nr && s->no_room == !s->nr)
		return 0;
bad:
	while (nsym < s->nr)
		s->symbols[nsym++] = NULL;
	ds_stack_free(s);
	return -EINVAL;
}

static void ds_stacks_reset(void *arg)
{
	struct ds_stacks *s = arg;

	ds_stacks_free(s);
}

static int ds_stacks_cb(struct nlattr **tb, struct nlattr *attrs, int len,
			void *arg)
{
	struct ds_stacks *s = arg;
	struct ds_stack *v;

	(void)attrs;
	(void)len;
	if (!tb[DROPSCOPE_A_STACK])
		return -EINVAL;
	v = ds_grow(s->v, &s->cap, s->n, sizeof(*v), 64);
	if (!v)
		return -ENOMEM;
	s->v = v;
	if (ds_stack_parse(tb[DROPSCOPE_A_STACK], &s->v[s->n]))
		return -EINVAL;
	s->n++;
	return 0;
}

int ds_stacks_fetch(struct ds_nl *nl, struct ds_stacks *s)
{
	return ds_nl_dump(nl, DROPSCOPE_CMD_STACKS_GET, ds_stacks_cb,
			  ds_stacks_reset, s);
}

void ds_stacks_free(struct ds_stacks *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		ds_stack_free(&s->v[i]);
	s->n = 0;
}

/* By site (the site's total first), then count, then id. */
static uint64_t ds_site_sum(const struct ds_stacks *s, const struct ds_stack *e)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].location == e->location &&
		    s->v[i].reason == e->reason)
			n += s->v[i].count;
	return n;
}

static const struct ds_stacks *ds_sort_set;

static int ds_stack_cmp(const void *a, const void *b)
{
	const struct ds_stack *x = a, *y = b;
	uint64_t sx, sy;

	if (x->location != y->location || x->reason != y->reason) {
		sx = ds_site_sum(ds_sort_set, x);
		sy = ds_site_sum(ds_sort_set, y);
		if (sx != sy)
			return sx < sy ? 1 : -1;
		if (x->location != y->location)
			return x->location < y->location ? -1 : 1;
		return x->reason < y->reason ? -1 : 1;
	}
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void ds_stacks_sort(struct ds_stacks *s)
{
	ds_sort_set = s;
	qsort(s->v, s->n, sizeof(*s->v), ds_stack_cmp);
	ds_sort_set = NULL;
}

/*
 * Print stacks v[0..n) sorted by ds_stacks_sort(): a site line with the
 * site's count, then each stack, at most top a site, with its frames.
 */
void ds_stacks_print(struct ds_print *p, const struct ds_stack *v, size_t n,
		     size_t top, const char *(*reason)(uint32_t id, void *arg),
		     void *arg)
{
	size_t i, f, shown = 0;
	uint64_t sum;

	ds_print_open_arr(p, NULL);
	for (i = 0; i < n; i++) {
		const struct ds_stack *e = &v[i];
		if (!i || e->location != v[i - 1].location ||
		    e->reason != v[i - 1].reason) {
			for (f = i, sum = 0; f < n && v[f].location == e->location &&
			     v[f].reason == e->reason; f++)
				sum += v[f].count;
			ds_print_text(p, "%12" PRIu64 "  %s  %s\n", sum, e->site,
				      reason(e->reason, arg));
			shown = 0;
		}
		if (shown++ >= top)
			continue;
		ds_print_open_obj(p, NULL);
		ds_print_str(p, DS_JSON, "site", NULL, e->site);
		ds_print_str(p, DS_JSON, "reason", NULL, reason(e->reason, arg));
		ds_print_u64(p, DS_ANY, "count", "%16" PRIu64, e->count);
		ds_print_u32(p, DS_JSON, "id", NULL, e->id);
		if (e->no_room)
			ds_print_text(p, "  %s\n", e->siteless ?
				      "stack not reaching the site (no frames)" :
				      "stacks that found no room (no frames)");
		else
			ds_print_text(p, "  stack %08" PRIx32 "\n", e->id);
		ds_print_bool(p, DS_JSON, "no_room", NULL, e->no_room);
		ds_print_open_arr(p, "frames");
		for (f = 0; f < e->nr; f++) {
			ds_print_str(p, DS_JSON, NULL, NULL, e->symbols[f]);
			ds_print_text(p, "%20s%s%s%s\n", "", e->symbols[f],
				      e->lines[f] ? "  " : "",
				      e->lines[f] ? e->lines[f] : "");
		}
		ds_print_close_arr(p);
		if (e->has_lines) {
			ds_print_open_arr(p, "lines");
			for (f = 0; f < e->nr; f++) {
				if (e->lines[f])
					ds_print_str(p, DS_JSON, NULL, NULL,
						     e->lines[f]);
				else
					ds_print_null(p, DS_JSON, NULL, NULL);
			}
			ds_print_close_arr(p);
		}
		ds_print_open_arr(p, "addresses");
		for (f = 0; f < e->nr; f++)
			ds_print_hex(p, DS_JSON, NULL, NULL, e->frames[f]);
		ds_print_close_arr(p);
		ds_print_close_obj(p);
	}
	ds_print_close_arr(p);
	if (!n)
		ds_print_text(p, "no stacks taken\n");
}
