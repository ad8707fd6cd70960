// SPDX-License-Identifier: GPL-2.0
/*
 * dropscope: count where and why the kernel drops packets, and tell
 * userspace over generic netlink. See include/uapi/linux/dropscope.h.
 * This file holds only module init and exit; see dropscope.h for the
 * parts and what each owns.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>

#include <uapi/linux/dropscope.h>

#include "dropscope.h"

/* Serialises everything but the probe: see dropscope.h. */
DEFINE_MUTEX(ds_lock);

/*
 * The sizes given at load (capacity=, sessions=, closed=): a number from 1
 * to DS_PARAM_MAX. Anything else fails the load with -EINVAL, with the
 * parameter named, before module init runs: nothing is set up.
 */
static int ds_param_count_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n) || !n || n > DS_PARAM_MAX) {
		pr_err("%s=%s: must be a number from 1 to %lu\n", kp->name,
		       val, DS_PARAM_MAX);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

const struct kernel_param_ops ds_param_count_ops = {
	.set = ds_param_count_set,
	.get = param_get_uint,
};

unsigned int ds_capacity = 4096;
module_param_cb(capacity, &ds_param_count_ops, &ds_capacity, 0444);
MODULE_PARM_DESC(capacity,
		 "distinct (location, reason) keys per CPU, 1 to 1048576 (default 4096)");

static int __init ds_init(void)
{
	int err;

	ds_monitor_init();
	err = ds_probe_init();
	if (err)
		return err;
	err = ds_rules_init();
	if (err)
		goto err_probe;
	err = ds_sites_init();
	if (err)
		goto err_rules;
	err = ds_scope_init();
	if (err)
		goto err_sites;
	err = ds_devices_init();
	if (err)
		goto err_scope;
	err = ds_sessions_init();
	if (err)
		goto err_devices;
	err = ds_sources_init();
	if (err)
		goto err_sessions;
	err = ds_capture_init();
	if (err)
		goto err_sources;
	err = ds_hw_init();
	if (err)
		goto err_capture;
	err = ds_qdiscs_init();
	if (err)
		goto err_hw;
	err = ds_family_init();
	if (err)
		goto err_qdiscs;
#ifdef DS_PREEMPT_TEST
	ds_ptest_init();
#endif
	return 0;

err_qdiscs:
	ds_qdiscs_exit();
err_hw:
	ds_hw_exit();
err_capture:
	ds_capture_exit();
err_sources:
	ds_sources_exit();
err_sessions:
	ds_sessions_exit();
err_devices:
	ds_devices_exit();
err_scope:
	ds_scope_free();
err_sites:
	ds_sites_exit();
err_rules:
	ds_rules_exit();
err_probe:
	ds_probe_exit();
	return err;
}

static void __exit ds_exit(void)
{
#ifdef DS_PREEMPT_TEST
	/* waits for a run of the test in progress */
	ds_ptest_exit();
#endif
	ds_monitor_exit();
	ds_family_exit();
	ds_scope_exit();
	ds_capture_exit();
	ds_stacks_exit();
	ds_monitor_free();
	ds_qdiscs_exit();
	ds_hw_exit();
	ds_sources_exit();
	ds_sessions_exit();
	ds_devices_exit();
	ds_scope_free();
	ds_sites_exit();
	ds_rules_exit();
	ds_probe_exit();
}

module_init(ds_init);
module_exit(ds_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dropscope: drop-site monitor with batched netlink alerts");
MODULE_AUTHOR("The dropscope developers");
