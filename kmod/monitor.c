// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring state: start, stop, reset and the interval worker. All of it
 * runs under ds_lock.
 */

#include <linux/workqueue.h>

#include "dropscope.h"

static void ds_zero_stats(void)
{
	u32 i;

	ds.events = 0;
	ds.overflow = 0;
	ds.overflow_alerted = 0;
	ds.alloc_fails = 0;
	ds.rounds = 0;
	ds.alerts_sent = 0;
	ds.alerts_lost = 0;
	ds.folds = 0;
	ds.shown = 0;
	ds.masked = 0;
	ds.top_suppressed = 0;
	ds.ratelimited = 0;
	for (i = 0; i < ds.nrules; i++)
		ds.rules[i].hits = 0;
}

/* Forget everything. With the probe detached, the tables are emptied too. */
static void ds_clear(void)
{
	ds_sites_free();
	ds_zero_stats();
	if (!ds.running)
		ds_table_clear();
}

int ds_start(void)
{
	int err;

	lockdep_assert_held(&ds_lock);
	if (ds.exiting)
		return -ENODEV;
	ds_clear();
	err = ds_probe_attach();
	if (err)
		return err;
	ds.running = true;
	ds_alert_schedule();
	return 0;
}

/* Detach, then fold and alert what came in since the last round. */
void ds_stop(void)
{
	lockdep_assert_held(&ds_lock);
	ds_probe_detach();
	ds.running = false;
	/* a worker waiting for ds_lock sees !running and does nothing */
	cancel_delayed_work(&ds.work);
	ds_fold();
	ds_alert_round();
}

void ds_reset(void)
{
	lockdep_assert_held(&ds_lock);
	/* fold first: what the tables hold now is what the reset forgets */
	if (ds.running)
		ds_fold();
	ds_clear();
}

static void ds_work_fn(struct work_struct *work)
{
	mutex_lock(&ds_lock);
	if (ds.running) {
		ds_fold();
		ds_alert_round();
		ds_alert_schedule();
	}
	mutex_unlock(&ds_lock);
}

void ds_monitor_init(void)
{
	ds.interval_ms = DROPSCOPE_INTERVAL_DEF_MS;
	INIT_LIST_HEAD(&ds.dirty);
	INIT_DELAYED_WORK(&ds.work, ds_work_fn);
}

/*
 * Module exit, first step, while the family still exists: detach and stop
 * the worker for good, so that no alert goes out once the family (and its
 * multicast group id) is gone. A START racing with the unload is refused.
 */
void ds_monitor_exit(void)
{
	mutex_lock(&ds_lock);
	ds.exiting = true;
	ds_probe_detach();
	ds.running = false;
	mutex_unlock(&ds_lock);
	cancel_delayed_work_sync(&ds.work);
}

/* Module exit, last step: no command can run any more. */
void ds_monitor_free(void)
{
	mutex_lock(&ds_lock);
	ds_sites_free();
	ds_rules_free();
	mutex_unlock(&ds_lock);
}
