/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The family's commands: netlink.c defines them, family.c registers them.
 */
#ifndef _DROPSCOPE_FAMILY_H
#define _DROPSCOPE_FAMILY_H

#include <net/genetlink.h>

extern const struct genl_ops ds_nl_ops[];
extern const unsigned int ds_nl_n_ops;

#endif /* _DROPSCOPE_FAMILY_H */
