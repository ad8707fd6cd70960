// SPDX-License-Identifier: GPL-2.0
/*
 * Drop stacks where the kernel's unwinder is not ORC (x86-64's): stacks.c
 * replays that unwinder's steps, and builds only with it (Kbuild). Here
 * the stacks part is absent: asking for stacks is refused with the
 * reason, and everything else of the module works as it does elsewhere.
 * There is no stacks= parameter, and the configuration gives a stacks
 * capacity of 0.
 */

#include <linux/jump_label.h>
#include <net/genetlink.h>

#include "dropscope.h"

unsigned int ds_stacks_cap;
DEFINE_STATIC_KEY_FALSE(ds_stacks_key);
DEFINE_STATIC_KEY_FALSE(ds_stacks_site_key);
unsigned long ds_stacks_start;
unsigned long ds_stacks_len;

static const u32 ds_no_generation;
static const struct ds_rule ds_no_rule;

notrace u32 ds_stacks_drop(struct ds_drop *drop)
{
	return 0;
}

notrace u32 ds_stacks_frames(unsigned long loc, u32 reason, unsigned long ra,
			     u64 *frames, u32 *id)
{
	*id = 0;
	return 0;
}

int ds_stacks_set(bool on, const struct ds_rule *r,
		  struct netlink_ext_ack *extack)
{
	if (!on)
		return 0;
	NL_SET_ERR_MSG(extack,
		       "stacks: this kernel's unwinder is not ORC (x86-64), which stacks need");
	return -EOPNOTSUPP;
}

bool ds_stacks_on(const struct ds_rule **r)
{
	*r = &ds_no_rule;
	return false;
}

void ds_stacks_clear(void)
{
}

void ds_stacks_fold(void)
{
}

void ds_stacks_reset(bool attached)
{
}

void ds_stacks_stats(struct ds_stacks_stats *s)
{
	memset(s, 0, sizeof(*s));
}

const u32 *ds_stacks_generation(void)
{
	return &ds_no_generation;
}

u32 ds_stacks_count(void)
{
	return 0;
}

int ds_stack_put(struct sk_buff *skb, u32 i)
{
	return -ENOENT;
}

void ds_stacks_exit(void)
{
}
