// SPDX-License-Identifier: GPL-2.0
/*
 * The command table and its handlers: one table serves argv mode, batch
 * files and the readline shell.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dropscope.h"

/* start, stop, reset, rule clear: a command with no arguments */
static int cmd_simple(struct ds_ctx *ctx, const struct ds_cmd *self,
		      int argc, char **argv)
{
	int err;

	(void)argv;
	if (argc)
		return ds_usage(self, "takes no arguments");
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	err = ds_nl_do(ctx->nl, (uint8_t)self->arg, NULL, NULL);
	if (err)
		return ds_fail(ctx, err);
	if (!ctx->json && ctx->interactive)
		printf("%s: done\n", self->name);
	return DS_OK;
}

/* The parts of start and status, as DROPSCOPE_PART_* bits. */
static const struct {
	const char *name;
	uint32_t bit;
} ds_parts[] = {
	{ "drops", DROPSCOPE_PART_DROPS },
	{ "tcp", DROPSCOPE_PART_TCP },
	{ "smc", DROPSCOPE_PART_SMC },
	{ "hw", DROPSCOPE_PART_HW },
	{ "dev", DROPSCOPE_PART_DEV },
	{ "qdisc", DROPSCOPE_PART_QDISC },
};

/* Why this kernel cannot run a part, by its bit. */
static const char *ds_part_absent(uint32_t bit)
{
	return bit == DROPSCOPE_PART_QDISC ?
	       "this kernel has no qdisc:qdisc_drop tracepoint (Linux 7.0 and later have it): the qdisc layer is absent" :
	       "this kernel cannot run it";
}

/*
 * start [drops] [tcp] [smc] [hw] [dev] [qdisc]: the parts named, or all of
 * them; a part this kernel lacks is left out, and said so.
 */
static int cmd_start(struct ds_ctx *ctx, const struct ds_cmd *self,
		     int argc, char **argv)
{
	struct ds_config c = { 0 };
	uint32_t parts = 0;
	size_t i;
	int a, err;

	for (a = 0; a < argc; a++) {
		for (i = 0; i < DS_N(ds_parts); i++)
			if (!strcmp(argv[a], ds_parts[i].name))
				break;
		if (i == DS_N(ds_parts))
			return ds_usage(self, "parts are drops, tcp, smc, hw, dev and qdisc");
		parts |= ds_parts[i].bit;
	}
	/* no part named: no attribute, the module starts them all */
	err = ds_send_u32(ctx, DROPSCOPE_CMD_START,
			  parts ? DROPSCOPE_A_PARTS : 0, parts);
	if (err)
		return err;
	if (!ds_config_fetch(ctx->nl, &c))
		for (i = 0; i < DS_N(ds_parts); i++)
			if (c.parts_absent & ds_parts[i].bit &
			    (parts ? parts : UINT32_MAX))
				fprintf(stderr, "start: %s: %s\n",
					ds_parts[i].name,
					ds_part_absent(ds_parts[i].bit));
	if (!ctx->json && ctx->interactive)
		printf("start: done\n");
	return DS_OK;
}

static int cmd_status(struct ds_ctx *ctx, const struct ds_cmd *self,
			int argc, char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_config c = { 0 };
	uint64_t masked = 0;
	size_t i;
	int err;

	(void)argv;
	if (argc)
		return ds_usage(self, "takes no arguments");
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	err = ds_config_fetch(ctx->nl, &c);
	if (err)
		return ds_fail(ctx, err);
	ds_print_open_obj(&p, NULL);
	ds_print_bool_as(&p, DS_ANY, "running", "monitoring: %s\n", c.running,
			 c.running ? "running" : "stopped");
	ds_print_u32(&p, DS_ANY, "interval_ms", "interval:   %" PRIu32 " ms\n",
		     c.interval_ms);
	ds_print_u32(&p, DS_ANY, "capacity",
		     "capacity:   %" PRIu32 " sites per CPU\n", c.capacity);
	ds_print_u32(&p, DS_ANY, "threshold", "threshold:  %" PRIu32 " drops\n",
		     c.threshold);
	/* 0 turns the cap off: the formats without a number say so */
	ds_print_u32(&p, DS_ANY, "top", c.top ? "top:        %" PRIu32 "\n" :
		     "top:        all sites\n", c.top);
	ds_print_u32(&p, DS_ANY, "ratelimit", c.ratelimit ?
		     "ratelimit:  %" PRIu32 "\n" : "ratelimit:  none\n",
		     c.ratelimit);
	ds_print_u32(&p, DS_ANY, "rules", "rules:      %" PRIu32 "\n", c.rules);
	/* the parts running: none while stopped */
	ds_print_open_arr(&p, "parts");
	ds_print_text(&p, "parts:     ");
	for (i = 0; i < DS_N(ds_parts); i++)
		if (c.parts & ds_parts[i].bit)
			ds_print_str(&p, DS_ANY, NULL, " %s", ds_parts[i].name);
	if (!c.parts)
		ds_print_text(&p, " none");
	ds_print_text(&p, "\n");
	ds_print_close_arr(&p);
	ds_print_u32(&p, DS_ANY, "sessions",
		     "sessions:   %" PRIu32 " TCP sessions at once, ", c.sessions);
	ds_print_u32(&p, DS_ANY, "closed", "%" PRIu32 " recent closes\n",
		     c.closed);
	ds_print_bool_as(&p, DS_ANY, "stacks", "stacks:     %s\n", c.stacks,
			 c.stacks ? "on" : "off");
	/* the session events some watch sessions asked for */
	ds_print_open_arr(&p, "session_events");
	ds_print_text(&p, "events:    ");
	if (c.sess_events & DROPSCOPE_SESS_EVENTS_STATES)
		ds_print_str(&p, DS_ANY, NULL, " %s", "states");
	if (c.sess_events & DROPSCOPE_SESS_EVENTS_RETRANS)
		ds_print_str(&p, DS_ANY, NULL, " %s", "retrans");
	if (!c.sess_events)
		ds_print_text(&p, " none");
	ds_print_text(&p, "\n");
	ds_print_close_arr(&p);
	ds_print_u32(&p, DS_ANY, "runs", "runs:       %" PRIu32 "\n", c.runs);
	err = ds_stat_get(ctx, DROPSCOPE_STATS_A_SESSIONS_DROPS_MASKED,
			  &masked);
	if (err)
		return ds_fail(ctx, err);
	ds_print_u64(&p, DS_ANY, "sessions_drops_masked",
		     "            %" PRIu64 " session drops masked by rules\n",
		     masked);
	ds_print_close_obj(&p);
	return DS_OK;
}

/* Set one u32 configuration attribute. */
static int ds_config_set(struct ds_ctx *ctx, int attr, uint32_t v,
			 const char *done)
{
	int err;

	err = ds_send_u32(ctx, DROPSCOPE_CMD_CONFIG_SET, attr, v);
	if (err)
		return err;
	if (!ctx->json && ctx->interactive)
		printf("%s %" PRIu32 "\n", done, v);
	return DS_OK;
}

static int cmd_set_interval(struct ds_ctx *ctx, const struct ds_cmd *self,
			int argc, char **argv)
{
	uint64_t ms;

	if (argc != 1)
		return ds_usage(self, "needs one duration");
	if (ds_parse_duration_ms(argv[0], &ms))
		return ds_usage(self, "not a duration (examples: 250ms, 2s, 1.5s)");
	if (ms < DROPSCOPE_INTERVAL_MIN_MS || ms > DROPSCOPE_INTERVAL_MAX_MS)
		return ds_usage(self, "the interval must be 10ms to 60s");
	return ds_config_set(ctx, DROPSCOPE_A_INTERVAL_MS, (uint32_t)ms,
			     "interval set to (ms)");
}

/* set threshold|top|ratelimit N: the attribute is the entry's arg. */
static int cmd_set_count(struct ds_ctx *ctx, const struct ds_cmd *self,
			 int argc, char **argv)
{
	uint64_t max = self->arg == DROPSCOPE_A_RATELIMIT ? 1000000 : UINT32_MAX;
	uint64_t v;

	if (argc != 1 || ds_parse_u64(argv[0], 0, max, &v))
		return ds_usage(self, "needs a number (0 turns it off)");
	return ds_config_set(ctx, self->arg, (uint32_t)v, self->name + 4);
}

static int ds_sites_get(struct ds_ctx *ctx, struct ds_sites *s,
			unsigned int layers)
{
	int err;

	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	err = ds_sites_fetch_layers(ctx->nl, s, layers);
	if (err) {
		free(s->v);
		return ds_fail(ctx, err);
	}
	qsort(s->v, s->n, sizeof(*s->v), ds_site_cmp_total);
	return DS_OK;
}

static int cmd_show_sites(struct ds_ctx *ctx, const struct ds_cmd *self,
			int argc, char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_sites s = { 0 };
	uint64_t top = UINT64_MAX;
	struct ds_lines *lines = NULL;
	bool all = false, want_lines = false;
	unsigned int layers = 0, l;
	size_t i, n = 0;
	int a, err;

	for (a = 0; a < argc; a++) {
		if (!strcmp(argv[a], "all") || !strcmp(argv[a], "--all")) {
			all = true;
		} else if (!strcmp(argv[a], "layer") && a + 1 < argc) {
			a++;
			for (l = 0; l < DS_LAYERS; l++)
				if (!strcmp(argv[a], ds_layer_name(l)))
					break;
			if (l == DS_LAYERS)
				return ds_usage(self, "layer is kernel, hw, dev or qdisc");
			layers |= 1U << l;
		} else if (!strcmp(argv[a], "lines")) {
			want_lines = true;
		} else if (!strcmp(argv[a], "top") && a + 1 < argc) {
			if (ds_parse_u64(argv[++a], 1, UINT32_MAX, &top))
				return ds_usage(self, "top needs a positive number");
		} else {
			return ds_usage(self, "unknown argument");
		}
	}
	err = ds_sites_get(ctx, &s, layers ? layers : (1U << DS_LAYERS) - 1);
	if (err)
		return err;
	/* masked sites only with all; top counts what is listed */
	for (i = 0; i < s.n; i++)
		if (all || s.v[i].total)
			s.v[n++] = s.v[i];
	s.n = n;
	if (want_lines)
		lines = ds_ctx_lines(ctx);
	for (i = 0; lines && i < s.n; i++)
		if (s.v[i].layer == DS_LAYER_KERNEL)
			ds_lines_get(lines, s.v[i].location, s.v[i].line,
				     sizeof(s.v[i].line));
	if (s.n < top)
		top = s.n;
	ds_sites_print(&p, s.v, s.n, (size_t)top);
	free(s.v);
	return DS_OK;
}

static int ds_reason_cmp(const void *a, const void *b)
{
	const struct ds_reason *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct ds_col ds_reason_cols[] = {
	{ "count", "COUNT", "", 12, DS_COL_RIGHT },
	{ "id", "ID", "  ", 5, DS_COL_RIGHT },
	{ "reason", "REASON", "  ", 0, 0 },
};

static int cmd_show_reasons(struct ds_ctx *ctx, const struct ds_cmd *self,
			int argc, char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	size_t shown = 0;
	struct ds_reasons r = { 0 };
	struct ds_sites s = { 0 };
	bool all = false;
	size_t i, j;
	int err;

	if (argc == 1 && !strcmp(argv[0], "all"))
		all = true;
	else if (argc)
		return ds_usage(self, "unknown argument");
	err = ds_sites_get(ctx, &s, 1U << DS_LAYER_KERNEL);
	if (err)
		return err;
	err = ds_reasons_get(ctx, &r);
	if (err) {
		free(s.v);
		return err;
	}
	for (i = 0; i < s.n; i++)
		for (j = 0; j < r.n; j++)
			if (r.v[j].id == s.v[i].reason)
				r.v[j].count += s.v[i].total;
	qsort(r.v, r.n, sizeof(*r.v), ds_reason_cmp);
	ds_print_open_table(&p, NULL, ds_reason_cols,
			    (int)(sizeof(ds_reason_cols) / sizeof(ds_reason_cols[0])),
			    DS_TABLE_HEAD);
	for (i = 0; i < r.n; i++) {
		if (!all && !r.v[i].count)
			continue;
		ds_print_open_obj(&p, NULL);
		ds_print_str(&p, DS_ANY, "reason", "%s", r.v[i].name);
		ds_print_u32(&p, DS_ANY, "id", "%" PRIu32, r.v[i].id);
		ds_print_u64(&p, DS_ANY, "count", "%" PRIu64, r.v[i].count);
		ds_print_close_obj(&p);
		shown++;
	}
	ds_print_close_table(&p);
	if (!shown)
		ds_print_text(&p, "no drops seen\n");
	free(s.v);
	free(r.v);
	return DS_OK;
}

static const struct {
	int attr;
	const char *key;
	const char *label;
} ds_stats_fields[] = {
	{ DROPSCOPE_STATS_A_EVENTS, "events", "drops seen" },
	{ DROPSCOPE_STATS_A_SHOWN, "shown", "drops shown" },
	{ DROPSCOPE_STATS_A_MASKED, "masked", "drops masked by rules" },
	{ DROPSCOPE_STATS_A_SITES, "sites", "distinct sites" },
	{ DROPSCOPE_STATS_A_OVERFLOW, "overflow", "drops in no site (table full)" },
	{ DROPSCOPE_STATS_A_ALLOC_FAILS, "alloc_fails", "drops in no site (no memory)" },
	{ DROPSCOPE_STATS_A_ROUNDS, "rounds", "alert rounds sent" },
	{ DROPSCOPE_STATS_A_ALERTS_SENT, "alerts_sent", "alert messages sent" },
	{ DROPSCOPE_STATS_A_ALERTS_LOST, "alerts_lost", "alert messages lost" },
	{ DROPSCOPE_STATS_A_TOP_SUPPRESSED, "top_suppressed", "site alerts over the top cap" },
	{ DROPSCOPE_STATS_A_RATELIMITED, "ratelimited", "alert messages over the rate cap" },
	{ DROPSCOPE_STATS_A_FOLDS, "folds", "per-CPU folds" },
	{ DROPSCOPE_STATS_A_SESSIONS_OPENED, "sessions_opened", "TCP sessions tracked" },
	{ DROPSCOPE_STATS_A_SESSIONS_CLOSED, "sessions_closed", "TCP sessions closed" },
	{ DROPSCOPE_STATS_A_SESSIONS_LIVE, "sessions_live", "TCP sessions live" },
	{ DROPSCOPE_STATS_A_SESSIONS_OVERFLOW, "sessions_overflow", "TCP sessions not tracked (table full)" },
	{ DROPSCOPE_STATS_A_SESSIONS_UNREAD, "sessions_unread", "closes overwritten unread" },
	{ DROPSCOPE_STATS_A_SESSIONS_STALE, "sessions_stale", "TCP sessions whose close went unseen" },
	{ DROPSCOPE_STATS_A_SESSIONS_DROPS_MASKED, "sessions_drops_masked", "TCP session drops masked" },
	{ DROPSCOPE_STATS_A_EPOCH, "epoch", "epoch of the totals (changes when they restart)" },
	{ DROPSCOPE_STATS_A_STACKS, "stacks", "distinct drop stacks" },
	{ DROPSCOPE_STATS_A_STACKS_LOST, "stacks_lost", "drops whose stack found no room at all" },
	{ DROPSCOPE_STATS_A_STACKS_SITELESS, "stacks_siteless", "drops whose stack did not reach the site" },
	{ DROPSCOPE_STATS_A_SESSIONS_FOUND, "sessions_found", "TCP sessions open before start, found by it" },
	{ DROPSCOPE_STATS_A_SESS_EVENTS, "session_events", "TCP session events recorded" },
	{ DROPSCOPE_STATS_A_SESS_EVENTS_LOST, "session_events_lost", "TCP session events no round carried" },
	{ DROPSCOPE_STATS_A_TRAP_EVENTS, "trap_events", "packets devices trapped (hw)" },
	{ DROPSCOPE_STATS_A_TRAPS, "traps", "distinct traps by device and port" },
	{ DROPSCOPE_STATS_A_TRAPS_OVERFLOW, "traps_overflow", "trapped packets in no trap (table full)" },
	{ DROPSCOPE_STATS_A_QDISC_EVENTS, "qdisc_events", "packets qdiscs dropped with a reason (qdisc)" },
	{ DROPSCOPE_STATS_A_QDISCS, "qdiscs", "distinct qdiscs and reasons" },
	{ DROPSCOPE_STATS_A_QDISCS_OVERFLOW, "qdiscs_overflow", "qdisc drops in no key (table full)" },
	{ DROPSCOPE_STATS_A_DEVCTRS, "devctrs", "device counters that moved (dev)" },
	{ DROPSCOPE_STATS_A_DEVCTRS_LOST, "devctrs_lost", "device readings not kept (no memory)" },
	{ DROPSCOPE_STATS_A_STACKS_WALKED, "stacks_walked", "drop stacks the unwinder walked (the rest replayed a walk)" },
};

#define DS_NSTATS (sizeof(ds_stats_fields) / sizeof(ds_stats_fields[0]))

static int cmd_show_stats(struct ds_ctx *ctx, const struct ds_cmd *self,
			int argc, char **argv)
{
	struct ds_print p = { .f = stdout, .json = ctx->json };
	struct ds_stats_read st;
	size_t i, width = 0;
	char fmt[96];
	int err;

	(void)argv;
	if (argc)
		return ds_usage(self, "takes no arguments");
	/* one column for the values, after the longest label */
	for (i = 0; i < DS_NSTATS; i++)
		if (strlen(ds_stats_fields[i].label) > width)
			width = strlen(ds_stats_fields[i].label);
	err = ds_ctx_nl(ctx);
	if (err)
		return err;
	err = ds_stats_fetch(ctx->nl, &st);
	if (err)
		return ds_fail(ctx, err);
	ds_print_open_obj(&p, NULL);
	for (i = 0; i < DS_NSTATS; i++) {
		/* the labels hold no '%' */
		snprintf(fmt, sizeof(fmt), "%-*s %%" PRIu64 "\n",
			 (int)width, ds_stats_fields[i].label);
		ds_print_u64(&p, DS_ANY, ds_stats_fields[i].key, fmt,
			     st.v[ds_stats_fields[i].attr]);
	}
	ds_print_close_obj(&p);
	return DS_OK;
}

static int cmd_watch(struct ds_ctx *ctx, const struct ds_cmd *self,
			int argc, char **argv)
{
	uint64_t rounds = 0, timeout_ms = 0;
	const struct ds_opt opts[] = {
		DS_OPT_COUNT("rounds", &rounds),
		DS_OPT_TIMEOUT(&timeout_ms),
		{ NULL },
	};
	int err;

	err = ds_parse_opts(self, argc, argv, opts);
	if (err)
		return err;
	return ds_watch(ctx, rounds, timeout_ms);
}

static int cmd_help(struct ds_ctx *ctx, const struct ds_cmd *self,
			int argc, char **argv)
{
	const struct ds_cmd *c;
	int used;

	(void)ctx;
	(void)self;
	if (argc) {
		c = ds_cmd_find(argc, argv, &used);
		if (!c) {
			fprintf(stderr, "dropscope: no command \"%s\"\n", argv[0]);
			return DS_EUSAGE;
		}
		printf("%s %s\n    %s\n", c->name, c->args, c->help);
		return DS_OK;
	}
	for (c = ds_cmds; c->name; c++) {
		char head[128];

		snprintf(head, sizeof(head), "%s %s", c->name, c->args);
		/* a long usage on a line of its own */
		if (strlen(head) > 34)
			printf("  %s\n  %-34s %s\n", head, "", c->help);
		else
			printf("  %-34s %s\n", head, c->help);
	}
	return DS_OK;
}

static int cmd_quit(struct ds_ctx *ctx, const struct ds_cmd *self,
			int argc, char **argv)
{
	(void)self;
	(void)argc;
	(void)argv;
	ctx->quit = true;
	return DS_OK;
}

const struct ds_cmd ds_cmds[] = {
	{ "start", cmd_start, "[drops] [tcp] [smc] [hw] [dev] [qdisc]",
	  "start monitoring drops, TCP sessions, SMC, or all (totals start from zero)",
	  0 },
	{ "stop", cmd_simple, "", "stop monitoring; totals stay readable",
	  DROPSCOPE_CMD_STOP },
	{ "status", cmd_status, "", "monitoring state, interval, capacity", 0 },
	{ "set interval", cmd_set_interval, "DURATION",
	  "alert interval, 10ms to 60s (e.g. 250ms, 2s)", 0 },
	{ "set threshold", cmd_set_count, "N",
	  "alert a site once N drops accumulated (0: every change)",
	  DROPSCOPE_A_THRESHOLD },
	{ "set top", cmd_set_count, "N", "at most N sites per alert round (0: all)",
	  DROPSCOPE_A_TOP },
	{ "set ratelimit", cmd_set_count, "N",
	  "at most N alert messages per second (0: no cap)",
	  DROPSCOPE_A_RATELIMIT },
	{ "show sites", cmd_show_sites, "[all] [layer kernel|hw|dev|qdisc]... [top N] [lines]",
	  "drop sites by count; all: masked sites too; lines: their source lines", 0 },
	{ "show reasons", cmd_show_reasons, "[all]",
	  "drops by reason; all: every reason this kernel knows", 0 },
	{ "show sessions", cmd_show_sessions,
	  "[live|closed|all] [top N] [sort rx|tx|retrans|drops|age] [pid PID] [port PORT] [info]",
	  "TCP sessions: owner, addresses, bytes, retransmits, drops, resets; info: rtt, cwnd, ... (as ss -i)", 0 },
	{ "show smc sockets", cmd_show_smc_sockets, "[listening|all] [detail]",
	  "SMC connections (or listeners, or both): mode or fallback reason, process; detail: buffers, link, GIDs", 0 },
	{ "show smc linkgroups", cmd_show_smc_linkgroups, "[detail]",
	  "SMC-R and SMC-D link groups: role, type, connections; detail: peer, EID, buffer pools, links", 0 },
	{ "show smc devices", cmd_show_smc_devices, "",
	  "RDMA (SMC-R) and ISM (SMC-D) devices: net device, port, state, links, PNET id", 0 },
	{ "show smc", cmd_show_smc, "",
	  "the kernel's SMC statistics and fallbacks by reason", 0 },
	{ "show stacks", cmd_show_stacks, "[site S] [top N] [lines]",
	  "the kernel stacks behind drops, by site, each with its count", 0 },
	{ "stacks on", cmd_stacks,
	  "[site S] [reason R] [dev D] [netns N] [l3 P] [l4 P]",
	  "count the kernel stacks of the drops matching all fields given (none: every drop)",
	  1 },
	{ "stacks off", cmd_stacks, "", "stop taking stacks; those counted stay", 0 },
	{ "stacks clear", cmd_stacks, "", "forget the stacks counted; taking them goes on",
	  DROPSCOPE_CMD_STACKS_CLEAR },
	{ "show stats", cmd_show_stats, "", "drops seen, shown, masked, overflow, alerts", 0 },
	{ "show rules", cmd_rule_list, "", "the rules with their hit counts", 0 },
	{ "rule mask", cmd_rule_mask, "FIELD VALUE ...",
	  "hide drops matching all fields: site, reason, dev, l3, l4, netns; or SMC fallbacks: smc CODE",
	  0 },
	{ "rule only", cmd_rule_only, "FIELD VALUE ...",
	  "show only drops matching this (or another only) rule", 0 },
	{ "rule del", cmd_rule_del, "ID", "remove a rule", 0 },
	{ "rule list", cmd_rule_list, "", "the rules with their hit counts", 0 },
	{ "rule clear", cmd_simple, "", "remove every rule",
	  DROPSCOPE_CMD_RULE_CLEAR },
	{ "rule save", cmd_rule_save, "FILE",
	  "write the rules to a file, one a line, as rule load takes them", 0 },
	{ "rule load", cmd_rule_load, "FILE",
	  "add every rule of a file, or none if one is bad", 0 },
	{ "run", cmd_run,
	  "[--baseline FILE] [--fail-on new] [--fail-on reason R] [--max N] [--rules FILE] [--ktap] [--output FILE] [--evidence DIR [--keep N] [--snaplen N]] -- CMD [ARG...]",
	  "the drops of exactly the time CMD runs, its sockets' apart; exit: CMD's, or 5 if a condition failed", 0 },
	{ "record", cmd_record, "FILE",
	  "write a snapshot of the totals (sites, reasons, rules, the kernel build)", 0 },
	{ "diff", cmd_diff, "A B",
	  "new, gone and changed sites from record A to record B (exit 1: some)", 0 },
	{ "reset", cmd_simple, "", "set all totals and statistics to zero",
	  DROPSCOPE_CMD_RESET },
	{ "capture", cmd_capture,
	  "FILE [filter EXPR] [snaplen N] [count N] [duration D] [all] [site S] [reason R] [dev D] [netns N] [l3 P] [l4 P]",
	  "write dropped packets to a pcapng file, filtered in the kernel by a tcpdump expression", 0 },
	{ "export", cmd_export,
	  "[--listen ADDR:PORT] [--textfile PATH] [--interval D] [--sites N]",
	  "serve the totals to Prometheus on /metrics, or write them for node_exporter", 0 },
	{ "watch smc", cmd_watch_smc,
	  "[interval DURATION] [count N] [timeout DURATION]",
	  "SMC rates and fallbacks of each interval, until q", 0 },
	{ "watch sessions", cmd_watch_sessions,
	  "[states] [retrans] [pid PID] [port PORT] [count N] [timeout DURATION]",
	  "print each TCP session as it closes, or each state change and retransmit", 0 },
	{ "watch", cmd_watch, "[rounds N] [timeout DURATION]",
	  "stream alerts until q, Enter or Ctrl-C", 0 },
	{ "top", cmd_top,
	  "[interval SECS] [top N] [sort bytes|rx|tx|retrans|drops] [pid PID] [port PORT] [count N]",
	  "the busiest TCP sessions of each interval, full screen until q", 0 },
	{ "completion", cmd_completion, "bash",
	  "print the bash completion script (it asks complete)", 0 },
	{ "complete", cmd_complete, "WORD... PREFIX",
	  "the completions of PREFIX after the words, one a line", 0 },
	{ "help", cmd_help, "[COMMAND]", "this list, or one command", 0 },
	{ "quit", cmd_quit, "", "leave the shell (also: exit, Ctrl-D)", 0 },
	{ "exit", cmd_quit, "", "leave the shell", 0 },
	{ NULL, NULL, NULL, NULL, 0 },
};

/* Does the command name start with these words? Returns words matched. */
static int ds_cmd_match(const char *name, int argc, char **argv)
{
	const char *p = name;
	int i;

	for (i = 0; i < argc && *p; i++) {
		size_t n = strcspn(p, " ");

		if (strlen(argv[i]) != n || strncmp(p, argv[i], n))
			return -1;
		p += n;
		p += strspn(p, " ");
	}
	return *p ? -1 : i;
}

/* The older spellings of commands: they run, and are neither listed nor
 * offered. */
static const struct {
	const char *older, *name;
} ds_older[] = {
	{ "show masks", "rule list" }, { "mask add", "rule mask" },
	{ "mask only", "rule only" }, { "mask del", "rule del" },
	{ "mask list", "rule list" }, { "mask clear", "rule clear" },
};

static const struct ds_cmd *ds_cmd_named(const char *name)
{
	const struct ds_cmd *c;

	for (c = ds_cmds; c->name && strcmp(c->name, name); c++)
		;
	return c->name ? c : NULL;
}

const struct ds_cmd *ds_cmd_find(int argc, char **argv, int *used)
{
	const struct ds_cmd *c;
	size_t i;
	int n;

	for (c = ds_cmds; c->name; c++) {
		n = ds_cmd_match(c->name, argc, argv);
		if (n > 0) {
			if (used)
				*used = n;
			return c;
		}
	}
	for (i = 0; i < DS_N(ds_older); i++) {
		n = ds_cmd_match(ds_older[i].older, argc, argv);
		if (n > 0) {
			if (used)
				*used = n;
			return ds_cmd_named(ds_older[i].name);
		}
	}
	return NULL;
}

int ds_cmd_run(struct ds_ctx *ctx, int argc, char **argv)
{
	const struct ds_cmd *c;
	int used;

	if (!argc)
		return DS_OK;
	c = ds_cmd_find(argc, argv, &used);
	if (!c) {
		fprintf(stderr, "dropscope: unknown command \"%s%s%s\": try help\n",
			argv[0], argc > 1 ? " " : "", argc > 1 ? argv[1] : "");
		return DS_EUSAGE;
	}
	return c->fn(ctx, c, argc - used, argv + used);
}
