// SPDX-License-Identifier: GPL-2.0
/*
 * The folded view: one ds_site per (location, reason) across all CPUs,
 * kept in an array so that dumps can resume by index. Sites are only ever
 * appended, until a reset or a start frees them all (and bumps
 * ds.generation so that a dump in progress is flagged as interrupted).
 * Everything here runs under ds_lock.
 */

#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dropscope.h"

struct ds_site *ds_site_get(unsigned long loc, u32 reason)
{
	char sym[KSYM_SYMBOL_LEN], name[64];
	struct ds_site *site;
	const char *rname;

	lockdep_assert_held(&ds_lock);
	if (ds.nsites == ds.sites_cap) {
		u32 cap = ds.sites_cap ? ds.sites_cap * 2 : 64;
		struct ds_site **a;

		a = krealloc_array(ds.sites, cap, sizeof(*a), GFP_KERNEL);
		if (!a)
			return NULL;
		ds.sites = a;
		ds.sites_cap = cap;
	}
	site = kzalloc(sizeof(*site), GFP_KERNEL);
	if (!site)
		return NULL;
	sprint_symbol(sym, loc);
	site->symbol = kstrdup(sym, GFP_KERNEL);
	rname = ds_reason_name(reason, name, sizeof(name));
	if (rname)
		site->reason_name = kstrdup(rname, GFP_KERNEL);
	if (!site->symbol || (rname && !site->reason_name)) {
		kfree(site->symbol);
		kfree(site->reason_name);
		kfree(site);
		return NULL;
	}
	site->loc = loc;
	site->reason = reason;
	INIT_LIST_HEAD(&site->dirty);
	ds.sites[ds.nsites++] = site;
	return site;
}

void ds_site_add(struct ds_site *site, u64 delta)
{
	site->total += delta;
	if (list_empty(&site->dirty))
		list_add_tail(&site->dirty, &ds.dirty);
}

void ds_sites_free(void)
{
	u32 i;

	lockdep_assert_held(&ds_lock);
	ds_table_forget_sites();
	INIT_LIST_HEAD(&ds.dirty);
	for (i = 0; i < ds.nsites; i++) {
		kfree(ds.sites[i]->symbol);
		kfree(ds.sites[i]->reason_name);
		kfree(ds.sites[i]);
	}
	kfree(ds.sites);
	ds.sites = NULL;
	ds.nsites = 0;
	ds.sites_cap = 0;
	ds.generation++;
}
