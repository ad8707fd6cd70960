// SPDX-License-Identifier: GPL-2.0
/*
 * The folded view: one ds_site per (location, reason) across all CPUs,
 * kept in an array so that dumps can resume by index. Sites are only ever
 * appended, until a reset or a start frees them all (and bumps
 * ds.generation so that a dump in progress is flagged as interrupted).
 * Everything here runs under ds_lock.
 */

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dropscope.h"

/* Every site by key, so that all CPUs' slots of one key fold into it. */
static DEFINE_HASHTABLE(ds_site_hash, 10);

static u64 ds_site_hkey(unsigned long loc, u64 rk, u64 pk)
{
	return (u64)loc ^ (rk * GOLDEN_RATIO_64) ^ (pk << 17);
}

static struct ds_site *ds_site_find(unsigned long loc, u64 rk, u64 pk)
{
	struct ds_site *site;

	hash_for_each_possible(ds_site_hash, site, hnode,
			       ds_site_hkey(loc, rk, pk))
		if (site->loc == loc && site->reason == (u32)rk &&
		    site->ifindex == rk >> 32 && site->netns == (u32)pk &&
		    site->l3 == (u16)(pk >> 32) && site->l4 == (u8)(pk >> 48))
			return site;
	return NULL;
}

/* The site of a key: the existing one, or a new one. NULL: no memory. */
struct ds_site *ds_site_get(unsigned long loc, u64 rk, u64 pk)
{
	u32 reason = (u32)rk;
	char sym[KSYM_SYMBOL_LEN], name[64];
	struct ds_site *site;
	const char *rname;

	lockdep_assert_held(&ds_lock);
	site = ds_site_find(loc, rk, pk);
	if (site)
		return site;
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
	site->ifindex = rk >> 32;
	site->netns = (u32)pk;
	site->l3 = (u16)(pk >> 32);
	site->l4 = (u8)(pk >> 48);
	site->rules_gen = ds.rules_gen - 1;	/* not judged yet */
	INIT_LIST_HEAD(&site->dirty);
	hash_add(ds_site_hash, &site->hnode, ds_site_hkey(loc, rk, pk));
	ds.sites[ds.nsites++] = site;
	return site;
}

/* Count delta drops of site: masked, or shown and due for an alert. */
void ds_site_add(struct ds_site *site, u64 delta)
{
	if (site->rules_gen != ds.rules_gen)
		ds_rules_judge(site);
	if (site->rule >= 0)
		ds.rules[site->rule].hits += delta;
	if (site->masked) {
		site->masked_total += delta;
		ds.masked += delta;
		return;
	}
	ds.shown += delta;
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
	hash_init(ds_site_hash);
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
