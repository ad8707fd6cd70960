// SPDX-License-Identifier: GPL-2.0
/*
 * What dropscope prints about sites, for "show sites" and for "watch",
 * through the one print path of print.c.
 */
#include <inttypes.h>

#include "dropscope.h"

/*
 * show sites: COUNT, REASON, the packet fields when some site is keyed by
 * them, SITE, then "(masked: N)". With packet fields, past 80 columns,
 * the minimum widths of COUNT and REASON give way.
 */
static const struct ds_col ds_site_cols[] = {
	{ "count", "COUNT", "", 12, DS_COL_RIGHT },
	{ "reason", "REASON", "  ", 21, 0 },
	{ "ifindex", "DEV", "  ", 0, DS_COL_OPT },
	{ "netns", "NETNS", "  ", 0, DS_COL_OPT },
	{ "l3", "L3", "  ", 0, DS_COL_OPT },
	{ "l4", "L4", "  ", 0, DS_COL_OPT },
	{ "symbol", "SITE", "  ", 0, 0 },
	{ NULL, NULL, "  ", 0, 0 },
};

/*
 * watch: one line per site of an alert message, no header; the packet
 * fields follow the site as "dev NAME netns NAME l3 NAME l4 NAME", the
 * words "mask add" takes.
 */
static const struct ds_col ds_alert_cols[] = {
	{ "time", NULL, "", 0, 0 },
	{ "delta", NULL, "  ", 16, DS_COL_RIGHT },
	{ "reason", NULL, "  ", 21, 0 },
	{ "symbol", NULL, "  ", 0, 0 },
	{ NULL, NULL, "  ", 0, 0 },
};

#define DS_NCOLS(c) ((int)(sizeof(c) / sizeof((c)[0])))

/* A site: a row of show sites, or of an alert when it has a delta. */
void ds_site_print(struct ds_print *p, const struct ds_site *s,
		   const char *stamp)
{
	bool alert = s->has_delta;
	char name[64];

	ds_print_open_obj(p, NULL);
	if (stamp)
		ds_print_str(p, DS_FP, "time", "%s", stamp);
	ds_print_str(p, DS_ANY, "symbol", "%s", s->symbol);
	ds_print_hex(p, DS_JSON, "location", NULL, s->location);
	ds_print_str(p, DS_ANY, "reason", "%s", s->reason_name);
	ds_print_u32(p, DS_JSON, "reason_id", NULL, s->reason);
	ds_print_u64(p, alert ? DS_JSON : DS_ANY, "count", "%" PRIu64,
		     s->total);
	if (alert)
		ds_print_u64(p, DS_ANY, "delta", "%" PRIu64 " drops", s->delta);
	else
		ds_print_u64(p, s->masked ? DS_ANY : DS_JSON, "masked",
			     "(masked: %" PRIu64 ")", s->masked);
	if (s->ifindex)
		ds_print_u64_as(p, DS_ANY, "ifindex", alert ? "dev %s" : "%s",
				s->ifindex,
				ds_dev_name(s->ifindex, name, sizeof(name)));
	if (s->netns)
		ds_print_u64_as(p, DS_ANY, "netns", alert ? "netns %s" : "%s",
				s->netns,
				ds_netns_name(s->netns, name, sizeof(name)));
	if (s->l3)
		ds_print_u64_as(p, DS_ANY, "l3", alert ? "l3 %s" : "%s", s->l3,
				ds_l3_name(s->l3, name, sizeof(name)));
	if (s->l4)
		ds_print_u64_as(p, DS_ANY, "l4", alert ? "l4 %s" : "%s", s->l4,
				ds_l4_name(s->l4, name, sizeof(name)));
	ds_print_close_obj(p);
}

/* show sites: the first top of n sites. */
void ds_sites_print(struct ds_print *p, const struct ds_site *v, size_t n,
		    size_t top)
{
	size_t i;

	if (top > n)
		top = n;
	ds_print_open_table(p, NULL, ds_site_cols, DS_NCOLS(ds_site_cols),
			    DS_TABLE_HEAD | DS_TABLE_FIT80);
	for (i = 0; i < top; i++)
		ds_site_print(p, &v[i], NULL);
	ds_print_close_table(p);
	if (!n)
		ds_print_text(p, "no drops seen\n");
	else if (top < n)
		ds_print_text(p, "(%zu more sites)\n", n - top);
}

/*
 * The SMC fallbacks of an alert message by reason (smc_fallbacks), or by
 * owner (smc_owners): a line each, "by PID COMM" for an owner.
 */
static void ds_smc_alerts_print(struct ds_print *p, const struct ds_alert *a,
				bool owners)
{
	bool open = false;
	char code[16];
	size_t i;

	for (i = 0; i < a->nsmc; i++) {
		const struct ds_smc_alert *f = &a->smc[i];

		if (f->owner != owners)
			continue;
		if (!open)
			ds_print_open_arr(p, owners ? "smc_owners" :
					  "smc_fallbacks");
		open = true;
		snprintf(code, sizeof(code), "0x%08x", f->code);
		ds_print_open_obj(p, NULL);
		ds_print_text(p, "%s", a->stamp);
		ds_print_u64(p, DS_ANY, "delta", "  %10" PRIu64 " SMC fallbacks",
			     f->delta);
		ds_print_u64(p, DS_JSON, "total", NULL, f->total);
		ds_print_str(p, DS_ANY, "code", "  %s", code);
		ds_print_str(p, DS_ANY, "side", " %s", f->server ? "server" :
			     "client");
		if (owners) {
			ds_print_u64(p, DS_ANY, "pid", " by %" PRIu64, f->pid);
			ds_print_str(p, DS_ANY, "comm", " %s\n",
				     f->pid ? f->comm : "(kernel)");
		} else {
			ds_print_str(p, DS_ANY, "name", " (%s)\n",
				     ds_smc_reason_name(f->code));
		}
		ds_print_close_obj(p);
	}
	if (open)
		ds_print_close_arr(p);
}

/* One alert message of watch: its round, its overflow, its sites. */
void ds_alert_print(struct ds_print *p, const struct ds_alert *a)
{
	size_t i;

	ds_print_open_obj(p, NULL);
	ds_print_u64(p, DS_JSON, "round", NULL, a->round);
	ds_print_bool(p, DS_JSON, "end", NULL, a->end);
	if (a->overflow)
		ds_print_text(p, "%s", a->stamp);
	ds_print_u64(p, a->overflow ? DS_ANY : DS_JSON, "overflow_delta",
		     "  %10" PRIu64 " drops did not fit the per-CPU tables (overflow)\n",
		     a->overflow);
	ds_print_open_table(p, "sites", ds_alert_cols, DS_NCOLS(ds_alert_cols),
			    0);
	for (i = 0; i < a->n; i++)
		ds_site_print(p, &a->sites[i], a->stamp);
	ds_print_close_table(p);
	/* SMC: only in the messages where SMC fell back or lost links */
	ds_smc_alerts_print(p, a, false);
	ds_smc_alerts_print(p, a, true);
	if (a->link_downs) {
		ds_print_text(p, "%s", a->stamp);
		ds_print_u64(p, DS_ANY, "smc_link_downs_delta",
			     "  %10" PRIu64 " SMC-R links went down\n",
			     a->link_downs);
	}
	ds_print_close_obj(p);
}
