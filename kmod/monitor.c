// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring: running or stopped, the interval worker, and the sources of
 * events it drives. Only this file schedules the worker or changes
 * running. All of it runs under ds_lock.
 *
 * A source of events (struct ds_source) plugs in by adding itself to
 * ds_sources[]: start attaches every source in order (and detaches those
 * already attached if one fails), stop detaches them all, and every
 * interval the worker folds each source and builds one alert round from
 * all of them. A consumer of what the sources see (struct ds_sink, in
 * ds_sinks[]) is told of each round once it went out, and of the end.
 */

#include <linux/random.h>
#include <linux/workqueue.h>
#include <net/netlink.h>

#include "compat.h"
#include "dropscope.h"

static const struct ds_source *const ds_sources[] = {
	&ds_drop_source,
	&ds_tcp_source,
	&ds_smc_source,
	&ds_hw_source,
	&ds_dev_source,
	&ds_qdisc_source,
};

static const struct ds_sink *const ds_sinks[] = {
	&ds_capture_sink,
};

static struct {
	bool running;		/* some sources are attached */
	u32 parts;		/* those that are: DROPSCOPE_PART_* */
	bool exiting;		/* the module is being unloaded */
	u32 interval_ms;
	u64 epoch;		/* advanced at each start from zero */
	struct delayed_work work;
} mon;

/* Exits the first @n sources, the last first. */
static void ds_sources_exit_n(size_t n)
{
	while (n--)
		if (ds_sources[n]->exit)
			ds_sources[n]->exit();
}

/* Module load: the sources' own init, in order; undone if one fails. */
int ds_sources_init(void)
{
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(ds_sources); i++) {
		err = ds_sources[i]->init ? ds_sources[i]->init() : 0;
		if (err) {
			ds_sources_exit_n(i);
			return err;
		}
	}
	return 0;
}

void ds_sources_exit(void)
{
	ds_sources_exit_n(ARRAY_SIZE(ds_sources));
}

/* The source of a part (one DROPSCOPE_PART_* bit). */
const struct ds_source *ds_source(u32 part)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ds_sources); i++)
		if (ds_sources[i]->part == part)
			return ds_sources[i];
	return NULL;
}

u64 ds_epoch(void)
{
	lockdep_assert_held(&ds_lock);
	return mon.epoch;
}

bool ds_running(void)
{
	lockdep_assert_held(&ds_lock);
	return mon.running;
}

u32 ds_running_parts(void)
{
	lockdep_assert_held(&ds_lock);
	return mon.running ? mon.parts : 0;
}

u32 ds_parts_absent(void)
{
	u32 parts = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ds_sources); i++)
		if (ds_sources[i]->absent)
			parts |= ds_sources[i]->part;
	return parts;
}

u32 ds_interval_ms(void)
{
	lockdep_assert_held(&ds_lock);
	return mon.interval_ms;
}

static void ds_schedule(void)
{
	mod_delayed_work(ds_percpu_wq, &mon.work,
			 msecs_to_jiffies(mon.interval_ms));
}

/* Takes effect at once: a running worker is rescheduled. */
void ds_set_interval_ms(u32 ms)
{
	lockdep_assert_held(&ds_lock);
	mon.interval_ms = ms;
	if (mon.running)
		ds_schedule();
}

void ds_fold_all(void)
{
	size_t i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < ARRAY_SIZE(ds_sources); i++)
		ds_sources[i]->fold();
}

static void ds_alert_all(void)
{
	struct ds_round round;
	size_t i;

	ds_round_begin(&round);
	for (i = 0; i < ARRAY_SIZE(ds_sources); i++)
		ds_sources[i]->alert(&round);
	ds_round_end(&round);
}

static void ds_reset_all(bool attached)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ds_sources); i++)
		ds_sources[i]->reset(attached);
	ds_alert_reset();
	mon.epoch++;
}

static void ds_sinks_round(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ds_sinks); i++)
		ds_sinks[i]->round();
}

static void ds_sinks_end(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ds_sinks); i++)
		ds_sinks[i]->end();
}

static void ds_detach_all(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ds_sources); i++)
		ds_sources[i]->detach();
}

/* Start counting from zero, with the sources of parts (DROPSCOPE_PART_*). */
int ds_start(u32 parts, struct netlink_ext_ack *extack)
{
	size_t i;
	int err;

	lockdep_assert_held(&ds_lock);
	if (mon.exiting) {
		NL_SET_ERR_MSG(extack, "dropscope is being unloaded");
		return -ENODEV;
	}
	if (mon.running) {
		NL_SET_ERR_MSG(extack, "monitoring is already running");
		return -EALREADY;
	}
	/* a part this kernel lacks is left out; alone, it is refused */
	if (!(parts & ~ds_parts_absent())) {
		for (i = 0; i < ARRAY_SIZE(ds_sources); i++)
			if (ds_sources[i]->part & parts)
				break;
		/* a message of its own: NL_SET_ERR_MSG() takes literals */
		if (extack)
			extack->_msg = ds_sources[i]->absent;
		return -EOPNOTSUPP;
	}
	parts &= ~ds_parts_absent();
	ds_reset_all(false);
	for (i = 0; i < ARRAY_SIZE(ds_sources); i++) {
		if (!(ds_sources[i]->part & parts))
			continue;
		err = ds_sources[i]->attach(extack);
		if (err)
			goto err_detach;
	}
	mon.parts = parts;
	mon.running = true;
	ds_schedule();
	return 0;

err_detach:
	/* detaching what is not attached does nothing */
	while (i--)
		ds_sources[i]->detach();
	return err;
}

/* Detach, then fold and alert what came in since the last round. */
int ds_stop(struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&ds_lock);
	if (!mon.running) {
		NL_SET_ERR_MSG(extack, "monitoring is not running");
		return -EALREADY;
	}
	ds_detach_all();
	mon.running = false;
	/* a worker waiting for ds_lock sees !running and does nothing */
	cancel_delayed_work(&mon.work);
	ds_fold_all();
	ds_alert_all();
	/* nothing more to consume: what is buffered goes out, and the end */
	ds_sinks_end();
	return 0;
}

/*
 * Forget every total and statistic; what was counted so far is folded
 * first, every source at once, so that no source's fold counts rule hits
 * after another's reset zeroed them.
 */
void ds_reset(void)
{
	lockdep_assert_held(&ds_lock);
	if (mon.running)
		ds_fold_all();
	ds_reset_all(mon.running);
}

/*
 * The interval's fold: of the running sources only. The others were reset
 * at start and are not attached, so they have nothing new to fold (an
 * SMC fold alone is about 950 instructions, every interval).
 */
static void ds_fold_running(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ds_sources); i++)
		if (ds_sources[i]->part & mon.parts)
			ds_sources[i]->fold();
}

static void ds_work_fn(struct work_struct *work)
{
	mutex_lock(&ds_lock);
	if (mon.running) {
		ds_fold_running();
		ds_alert_all();
		ds_sinks_round();
		ds_schedule();
	}
	mutex_unlock(&ds_lock);
}

void ds_monitor_init(void)
{
	mon.interval_ms = DROPSCOPE_INTERVAL_DEF_MS;
	mon.epoch = get_random_u64();
	INIT_DELAYED_WORK(&mon.work, ds_work_fn);
}

/*
 * Module exit, first step, while the family still exists: detach and stop
 * the worker for good, so that no alert goes out once the family (and its
 * multicast group id) is gone. A START racing with the unload is refused.
 */
void ds_monitor_exit(void)
{
	mutex_lock(&ds_lock);
	mon.exiting = true;
	ds_detach_all();
	mon.running = false;
	ds_sinks_end();
	mutex_unlock(&ds_lock);
	cancel_delayed_work_sync(&mon.work);
}

/* Module exit, last step: no command can run any more. */
void ds_monitor_free(void)
{
	size_t i;

	mutex_lock(&ds_lock);
	for (i = 0; i < ARRAY_SIZE(ds_sources); i++)
		ds_sources[i]->free();
	mutex_unlock(&ds_lock);
}
