// SPDX-License-Identifier: GPL-2.0
/*
 * Drop reason names come from the running kernel, never from a table of
 * ours: ids and names move between kernel versions.
 */

#include <linux/rcupdate.h>
#include <linux/string.h>
#include <net/dropreason.h>

#include "compat.h"
#include "dropscope.h"

#ifdef DS_HAVE_REASON_SUBSYS

/*
 * The reasons of a list: the core list ends with "MAX", the count of the
 * core reasons, which is no reason of its own.
 */
static u32 ds_list_limit(u32 subsys, const struct drop_reason_list *list)
{
	if (!list)
		return 0;
	if (subsys == SKB_DROP_REASON_SUBSYS_CORE)
		return min_t(u32, list->n_reasons, SKB_DROP_REASON_MAX);
	return list->n_reasons;
}

/* Reason ids are (subsystem << SKB_DROP_REASON_SUBSYS_SHIFT) | index. */
static bool ds_reason_copy(u32 reason, char *buf, size_t len)
{
	u32 subsys = reason >> SKB_DROP_REASON_SUBSYS_SHIFT;
	u32 idx = reason & ~SKB_DROP_REASON_SUBSYS_MASK;
	const struct drop_reason_list *list;
	bool found = false;

	if (subsys >= SKB_DROP_REASON_SUBSYS_NUM)
		return false;
	rcu_read_lock();
	list = rcu_dereference(drop_reasons_by_subsys[subsys]);
	if (idx < ds_list_limit(subsys, list) && list->reasons[idx]) {
		strscpy(buf, list->reasons[idx], len);
		found = true;
	}
	rcu_read_unlock();
	return found;
}

static u32 ds_reason_limit(u32 subsys)
{
	u32 n;

	rcu_read_lock();
	n = ds_list_limit(subsys, rcu_dereference(drop_reasons_by_subsys[subsys]));
	rcu_read_unlock();
	return n;
}

#define DS_REASON_SUBSYS_NUM	SKB_DROP_REASON_SUBSYS_NUM
#define DS_REASON_SHIFT		SKB_DROP_REASON_SUBSYS_SHIFT

#else

static bool ds_reason_copy(u32 reason, char *buf, size_t len)
{
	if (reason >= SKB_DROP_REASON_MAX || !drop_reasons[reason])
		return false;
	strscpy(buf, drop_reasons[reason], len);
	return true;
}

static u32 ds_reason_limit(u32 subsys)
{
	return SKB_DROP_REASON_MAX;
}

#define DS_REASON_SUBSYS_NUM	1
#define DS_REASON_SHIFT		16

#endif

const char *ds_reason_name(u32 reason, char *buf, size_t len)
{
	return ds_reason_copy(reason, buf, len) ? buf : NULL;
}

/*
 * Iterate over every named reason: *cursor starts at 0 and is advanced past
 * the reason returned. Returns -ENOENT after the last one.
 */
int ds_reason_next(u32 *cursor, u32 *id, char *name, size_t len)
{
	u32 subsys = *cursor >> DS_REASON_SHIFT;
	u32 idx = *cursor & ((1U << DS_REASON_SHIFT) - 1);

	for (; subsys < DS_REASON_SUBSYS_NUM; subsys++, idx = 0) {
		u32 limit = ds_reason_limit(subsys);

		for (; idx < limit; idx++) {
			u32 reason = (subsys << DS_REASON_SHIFT) | idx;

			/* 0 means "not dropped yet": never a drop */
			if (!reason || !ds_reason_copy(reason, name, len))
				continue;
			*id = reason;
			*cursor = reason + 1;
			return 0;
		}
	}
	return -ENOENT;
}
