// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family: its registration, its alert group, and the
 * headers of the messages the module sends on its own (alerts, captures).
 * A leaf: it calls nothing of the module's. The commands it carries are
 * netlink.c's (ds_nl_ops), which nothing else calls; every command runs
 * under ds_lock, taken here. The protocol is documented in
 * include/uapi/linux/dropscope.h.
 */

#include <linux/module.h>
#include <net/genetlink.h>

#include <uapi/linux/dropscope.h>

#include "compat.h"
#include "dropscope.h"
#include "family.h"

static int ds_pre_doit(const struct ds_genl_op *ops, struct sk_buff *skb,
		       struct genl_info *info)
{
	mutex_lock(&ds_lock);
	return 0;
}

static void ds_post_doit(const struct ds_genl_op *ops, struct sk_buff *skb,
			 struct genl_info *info)
{
	mutex_unlock(&ds_lock);
}

static const struct genl_multicast_group ds_mcgrps[] = {
	{
		.name = DROPSCOPE_MCGRP_ALERTS,
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

/*
 * netnsok is false: the family exists in the initial namespace only. Its
 * commands (.ops, .n_ops) are netlink.c's, set at registration.
 */
struct genl_family ds_family __ro_after_init = {
	.name = DROPSCOPE_GENL_NAME,
	.version = DROPSCOPE_GENL_VERSION,
	.module = THIS_MODULE,
	.mcgrps = ds_mcgrps,
	.n_mcgrps = ARRAY_SIZE(ds_mcgrps),
	/* every op is strict: no unknown attributes, no reserved bits */
	.resv_start_op = DROPSCOPE_CMD_START,
	.pre_doit = ds_pre_doit,
	.post_doit = ds_post_doit,
};

MODULE_ALIAS_GENL_FAMILY(DROPSCOPE_GENL_NAME);

/* The header of a capture's message, to its socket. */
void *ds_family_capture_put(struct sk_buff *skb)
{
	return genlmsg_put(skb, 0, 0, &ds_family, 0, DROPSCOPE_CMD_CAPTURE);
}

/* The header of an alert message; genlmsg_end() it with what this returns. */
void *ds_family_alert_put(struct sk_buff *skb)
{
	return genlmsg_put(skb, 0, 0, &ds_family, 0, DROPSCOPE_CMD_ALERT);
}

bool ds_family_has_listeners(void)
{
	return genl_has_listeners(&ds_family, &init_net, 0);
}

/*
 * Returns 0 when every listener got the message, -ENOBUFS when some
 * listener's buffer was full, -ESRCH when nobody listened.
 */
int ds_family_multicast(struct sk_buff *skb)
{
	return genlmsg_multicast(&ds_family, skb, 0, 0, GFP_KERNEL);
}

/* Module init, before anything else can be asked; the ops are final. */
int ds_family_init(void)
{
	ds_family.ops = ds_nl_ops;
	ds_family.n_ops = ds_nl_n_ops;
	return genl_register_family(&ds_family);
}

void ds_family_exit(void)
{
	genl_unregister_family(&ds_family);
}
