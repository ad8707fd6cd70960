/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * dropscope: a drop-site monitor for the Linux kernel.
 *
 * Documentation
 * =============
 *
 * dropscope.ko speaks generic netlink. The family is DROPSCOPE_GENL_NAME,
 * version DROPSCOPE_GENL_VERSION, and it has one multicast group,
 * DROPSCOPE_MCGRP_ALERTS. The family lives in the initial network namespace
 * only: the module watches every drop of the machine.
 *
 * Permissions: every command and the alert group require CAP_NET_ADMIN in
 * the initial user namespace. Dumps and alerts carry kernel text addresses
 * (DROPSCOPE_SITE_A_LOCATION), which an unprivileged user must never see.
 *
 * All policies are strict: an attribute that a command does not take, an
 * attribute of the wrong type or size, or a value out of range is refused
 * with -EINVAL (or -ERANGE) and an extended ack message naming the
 * offending attribute. A refused request changes nothing.
 *
 * What is counted: the module attaches to the skb:kfree_skb tracepoint while
 * monitoring runs (DROPSCOPE_CMD_START .. DROPSCOPE_CMD_STOP) and counts each
 * drop under the key (location, reason) in a per-CPU table. The table holds
 * DROPSCOPE_A_CAPACITY distinct keys per CPU; a drop whose key does not fit
 * is counted in DROPSCOPE_STATS_A_OVERFLOW, so that the sum of all site
 * counts plus the overflow always equals the number of drops seen.
 *
 * Alerts: every DROPSCOPE_A_INTERVAL_MS milliseconds the per-CPU counters are
 * folded into one total per site. If anything changed, and somebody listens
 * on the alert group, one alert round is multicast: one or more
 * DROPSCOPE_CMD_ALERT messages, each carrying DROPSCOPE_A_ROUND and as many
 * DROPSCOPE_A_SITE nests (one per site that changed, merged across CPUs) as
 * fit. The last message of a round carries DROPSCOPE_A_ROUND_END. A round
 * also carries DROPSCOPE_A_OVERFLOW_DELTA when the overflow counter moved.
 * Stopping sends a final round with what changed since the last one. Alert
 * messages that could not be delivered to some listener (its receive buffer
 * was full) are counted in DROPSCOPE_STATS_A_ALERTS_LOST; that listener also
 * sees ENOBUFS on its socket.
 *
 * Commands
 * --------
 *
 * DROPSCOPE_CMD_START: starts monitoring. Totals start again from zero.
 *     Fails with -EALREADY if monitoring runs.
 *
 * DROPSCOPE_CMD_STOP: stops monitoring (detaches from the tracepoint: no cost
 *     while stopped) and sends the final alert round. Totals remain readable.
 *     Fails with -EALREADY if monitoring is not running.
 *
 * DROPSCOPE_CMD_CONFIG_GET: replies with
 *     DROPSCOPE_A_RUNNING: NLA_U8, 1 while monitoring
 *     DROPSCOPE_A_INTERVAL_MS: NLA_U32, the alert interval
 *     DROPSCOPE_A_CAPACITY: NLA_U32, distinct keys per CPU (module parameter)
 *
 * DROPSCOPE_CMD_CONFIG_SET: takes
 *     DROPSCOPE_A_INTERVAL_MS: NLA_U32, DROPSCOPE_INTERVAL_MIN_MS to
 *         DROPSCOPE_INTERVAL_MAX_MS; takes effect at once, also while running.
 *     At least one attribute is required.
 *
 * DROPSCOPE_CMD_SITES_GET (dump): one message per site with one
 *     DROPSCOPE_A_SITE nest, sorted by nothing in particular. Totals are
 *     folded from the per-CPU counters when the dump starts.
 *
 * DROPSCOPE_CMD_REASONS_GET (dump): one message per drop reason the running
 *     kernel knows, with one DROPSCOPE_A_REASON nest. Reason ids and names
 *     are the running kernel's; they differ between kernel versions.
 *
 * DROPSCOPE_CMD_STATS_GET: replies with one DROPSCOPE_A_STATS nest.
 *
 * DROPSCOPE_CMD_RESET: sets every total and statistic back to zero. The
 *     per-CPU tables keep their keys while monitoring runs (a running probe
 *     owns them); a reset while stopped empties them.
 *
 * DROPSCOPE_CMD_ALERT: sent by the kernel only, on DROPSCOPE_MCGRP_ALERTS.
 *
 * Nested attributes
 * -----------------
 *
 * DROPSCOPE_A_SITE:
 *     DROPSCOPE_SITE_A_LOCATION: NLA_U64, the kernel text address that freed
 *         the packet (the tracepoint's location)
 *     DROPSCOPE_SITE_A_SYMBOL: NLA_NUL_STRING, the kernel's own rendering of
 *         that address, "sym+0x1c/0x80 [module]"
 *     DROPSCOPE_SITE_A_REASON: NLA_U32, the drop reason id
 *     DROPSCOPE_SITE_A_REASON_NAME: NLA_NUL_STRING, its name ("NO_SOCKET"),
 *         absent if the running kernel has no name for it
 *     DROPSCOPE_SITE_A_TOTAL: NLA_U64, drops since start or reset
 *     DROPSCOPE_SITE_A_DELTA: NLA_U64, in alerts: drops in this round
 *
 * DROPSCOPE_A_REASON:
 *     DROPSCOPE_REASON_A_ID: NLA_U32
 *     DROPSCOPE_REASON_A_NAME: NLA_NUL_STRING
 *
 * DROPSCOPE_A_STATS (all NLA_U64 unless noted):
 *     DROPSCOPE_STATS_A_EVENTS: drops seen (sites plus overflow)
 *     DROPSCOPE_STATS_A_SITES: distinct sites known
 *     DROPSCOPE_STATS_A_OVERFLOW: drops that found no room in a full table
 *     DROPSCOPE_STATS_A_ROUNDS: alert rounds sent
 *     DROPSCOPE_STATS_A_ALERTS_SENT: alert messages sent
 *     DROPSCOPE_STATS_A_ALERTS_LOST: alert messages some listener missed
 *     DROPSCOPE_STATS_A_FOLDS: times the per-CPU counters were folded
 *     DROPSCOPE_STATS_A_ALLOC_FAILS: sites the folder could not allocate;
 *         their drops stay in EVENTS but not in any site
 *
 * Enums only grow at the end.
 */
#ifndef _UAPI_LINUX_DROPSCOPE_H
#define _UAPI_LINUX_DROPSCOPE_H

#define DROPSCOPE_GENL_NAME		"dropscope"
#define DROPSCOPE_GENL_VERSION		1
#define DROPSCOPE_MCGRP_ALERTS		"alerts"

#define DROPSCOPE_INTERVAL_MIN_MS	10
#define DROPSCOPE_INTERVAL_MAX_MS	60000
#define DROPSCOPE_INTERVAL_DEF_MS	1000

enum dropscope_cmd {
	DROPSCOPE_CMD_UNSPEC,
	DROPSCOPE_CMD_START,
	DROPSCOPE_CMD_STOP,
	DROPSCOPE_CMD_CONFIG_GET,
	DROPSCOPE_CMD_CONFIG_SET,
	DROPSCOPE_CMD_SITES_GET,
	DROPSCOPE_CMD_REASONS_GET,
	DROPSCOPE_CMD_STATS_GET,
	DROPSCOPE_CMD_RESET,
	DROPSCOPE_CMD_ALERT,
	__DROPSCOPE_CMD_MAX
};
#define DROPSCOPE_CMD_MAX (__DROPSCOPE_CMD_MAX - 1)

enum dropscope_attr {
	DROPSCOPE_A_UNSPEC,
	DROPSCOPE_A_PAD,
	DROPSCOPE_A_RUNNING,
	DROPSCOPE_A_INTERVAL_MS,
	DROPSCOPE_A_CAPACITY,
	DROPSCOPE_A_SITE,
	DROPSCOPE_A_REASON,
	DROPSCOPE_A_STATS,
	DROPSCOPE_A_ROUND,
	DROPSCOPE_A_ROUND_END,
	DROPSCOPE_A_OVERFLOW_DELTA,
	__DROPSCOPE_A_MAX
};
#define DROPSCOPE_A_MAX (__DROPSCOPE_A_MAX - 1)

enum dropscope_site_attr {
	DROPSCOPE_SITE_A_UNSPEC,
	DROPSCOPE_SITE_A_PAD,
	DROPSCOPE_SITE_A_LOCATION,
	DROPSCOPE_SITE_A_SYMBOL,
	DROPSCOPE_SITE_A_REASON,
	DROPSCOPE_SITE_A_REASON_NAME,
	DROPSCOPE_SITE_A_TOTAL,
	DROPSCOPE_SITE_A_DELTA,
	__DROPSCOPE_SITE_A_MAX
};
#define DROPSCOPE_SITE_A_MAX (__DROPSCOPE_SITE_A_MAX - 1)

enum dropscope_reason_attr {
	DROPSCOPE_REASON_A_UNSPEC,
	DROPSCOPE_REASON_A_ID,
	DROPSCOPE_REASON_A_NAME,
	__DROPSCOPE_REASON_A_MAX
};
#define DROPSCOPE_REASON_A_MAX (__DROPSCOPE_REASON_A_MAX - 1)

enum dropscope_stats_attr {
	DROPSCOPE_STATS_A_UNSPEC,
	DROPSCOPE_STATS_A_PAD,
	DROPSCOPE_STATS_A_EVENTS,
	DROPSCOPE_STATS_A_SITES,
	DROPSCOPE_STATS_A_OVERFLOW,
	DROPSCOPE_STATS_A_ROUNDS,
	DROPSCOPE_STATS_A_ALERTS_SENT,
	DROPSCOPE_STATS_A_ALERTS_LOST,
	DROPSCOPE_STATS_A_FOLDS,
	DROPSCOPE_STATS_A_ALLOC_FAILS,
	__DROPSCOPE_STATS_A_MAX
};
#define DROPSCOPE_STATS_A_MAX (__DROPSCOPE_STATS_A_MAX - 1)

#endif /* _UAPI_LINUX_DROPSCOPE_H */
