/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.c: the family's objects read into structs: sites, alerts, reasons,
 * the configuration, statistics, sessions; and the readers of one message.
 * Included through ds.h.
 */
#ifndef DS_LIB_MODEL_H
#define DS_LIB_MODEL_H

struct ds_ctx;

/* Where a drop was seen: the kernel's kfree_skb, a device's trap, a
 * device's own counters, or a qdisc. */
enum ds_layer {
	DS_LAYER_KERNEL,
	DS_LAYER_HW,
	DS_LAYER_DEV,
	DS_LAYER_QDISC,
	DS_LAYERS
};

const char *ds_layer_name(unsigned int layer);
const char *ds_dev_counter_name(unsigned int counter);
const char *ds_trap_type_name(unsigned int type);

/*
 * One site as the kernel reports it: a kernel site (location, reason), a
 * trap (DROPSCOPE_A_TRAP), a device counter (DROPSCOPE_A_DEVCTR) or a
 * qdisc's drops of one reason (DROPSCOPE_A_QDISC: its reason in reason
 * and reason_name).
 */
struct ds_site {
	uint8_t layer;		/* enum ds_layer */
	uint64_t location;
	uint64_t total;
	uint64_t delta;
	uint64_t masked;	/* drops that rules hid */
	uint32_t reason;
	uint32_t ifindex;	/* packet fields, 0 when not keyed by them */
	uint32_t netns;
	uint16_t l3;
	uint8_t l4;
	uint32_t run;		/* the drops of this run's scope; 0: none */
	bool has_delta;
	char symbol[160];
	char reason_name[64];
	char line[256];		/* show sites lines: the call's file:line */
	/* hw: the devlink handle, the trap, its group, its type */
	char device[64];
	char trap[40];
	char group[40];
	uint8_t trap_type;	/* enum dropscope_trap_type */
	/* hw and dev: the device the packet came in on, or counted it */
	char dev[16];
	uint8_t counter;	/* dev: enum dropscope_dev_counter */
	/* qdisc: its kind, handle and parent's handle */
	char kind[16];
	uint32_t handle, parent;
};

int ds_site_parse(struct nlattr *nest, struct ds_site *site);
int ds_qdisc_parse(struct nlattr *nest, struct ds_site *site);
/* A qdisc handle as tc prints it: "8000:", "1:2". */
void ds_qdisc_handle(uint32_t handle, char *buf, size_t len);
int ds_trap_parse(struct nlattr *nest, struct ds_site *site);
int ds_devctr_parse(struct nlattr *nest, struct ds_site *site);

/*
 * An SMC fallback reason of an alert, DROPSCOPE_A_SMC_FALLBACK, or one of
 * its owners, DROPSCOPE_A_SMC_OWNER.
 */
struct ds_smc_alert {
	uint32_t code;
	bool server;
	bool owner;
	uint32_t pid;		/* owners: 0 for a kernel worker */
	char comm[16];
	uint64_t delta, total;
};

struct ds_session;

/* An alert message, as ds_alert_read() reads it. */
struct ds_alert {
	const char *stamp;	/* local time, for text; the reader sets it */
	uint64_t round;
	bool end;		/* the last message of the round */
	uint64_t overflow;
	struct ds_site *sites;
	size_t n;
	struct ds_smc_alert *smc;	/* SMC fallbacks */
	size_t nsmc;
	uint64_t link_downs;	/* SMC-R links gone down */
	struct ds_session *sessions;	/* closes */
	size_t nsess;
	struct ds_sess_event *events;	/* session events, in order */
	size_t nev;
	uint64_t events_lost;	/* session events no round carried */
};

struct nlattr;
int ds_alert_read(struct nlattr **tb, struct nlattr *attrs, int len,
		  struct ds_alert *a);
void ds_alert_free(struct ds_alert *a);


/* The running kernel's drop reasons, as the module reports them. */
struct ds_reason {
	uint32_t id;
	uint64_t count;
	char name[64];
};

struct ds_reasons {
	struct ds_reason *v;
	size_t n, cap;
};


int ds_reasons_get(struct ds_ctx *ctx, struct ds_reasons *r);
/* One u32 attribute (none when attr is 0) with cmd; failures printed. */
int ds_send_u32(struct ds_ctx *ctx, uint8_t cmd, int attr, uint32_t v);

/* The module's configuration (CONFIG_GET). */
struct ds_config {
	uint32_t parts, sessions, closed;
	uint32_t parts_absent;	/* parts this kernel cannot run */
	bool running;
	uint32_t interval_ms;
	uint32_t capacity;
	uint32_t threshold, top, ratelimit, rules;
	uint32_t runs;		/* runs in progress */
	bool stacks;		/* stacks are taken */
	uint32_t stacks_capacity;
	uint32_t sess_events;	/* DROPSCOPE_SESS_EVENTS_* recorded */
};

int ds_config_fetch(struct ds_nl *nl, struct ds_config *c);
/* Count the drops of the sockets of cgroup id apart (0: stop it). */
int ds_run_start(struct ds_nl *nl, uint64_t cgid, uint32_t *id);
int ds_run_stop(struct ds_nl *nl, uint32_t id);
int ds_run_netns(struct ds_nl *nl, int fd, uint32_t *run, uint32_t *inum);
/* The session events this socket wants (DROPSCOPE_SESS_EVENTS_*; 0: none). */
int ds_config_sess_events(struct ds_nl *nl, uint32_t mask);

/* The module's sites, as a dump gives them (unsorted); prints nothing. */
struct ds_sites {
	struct ds_site *v;
	size_t n, cap;
};

int ds_sites_fetch(struct ds_nl *nl, struct ds_sites *s);
/* The sites of the layers in mask (BIT(DS_LAYER_*)), appended to s. */
int ds_sites_fetch_layers(struct ds_nl *nl, struct ds_sites *s,
			  unsigned int mask);
int ds_reasons_fetch(struct ds_nl *nl, struct ds_reasons *r);
int ds_stat_get(struct ds_ctx *ctx, int attr, uint64_t *v);

/* The module's statistics by attribute, those it sent marked in has. */
struct ds_stats_read {
	uint64_t v[DROPSCOPE_STATS_A_MAX + 1];
	bool has[DROPSCOPE_STATS_A_MAX + 1];
};

int ds_stats_fetch(struct ds_nl *nl, struct ds_stats_read *st);


struct ds_session {
	uint64_t cookie;
	uint64_t seq;
	uint64_t start_ns;	/* CLOCK_MONOTONIC at birth */
	uint64_t duration_ns;
	uint64_t tx_bytes;	/* bytes_acked */
	uint64_t rx_bytes;	/* bytes_received */
	uint64_t drops;
	uint32_t retransmits;	/* total_retrans */
	uint32_t resets_sent;
	uint32_t resets_received;
	uint32_t pid;
	uint16_t lport, rport;
	uint8_t family;
	uint8_t state;
	bool closed;
	uint32_t run;		/* the run of its socket at birth; 0: none */
	bool found;		/* open before start: its duration is since */
	uint8_t smc_mode;	/* enum dropscope_smc_mode */
	uint32_t smc_reason;	/* with DROPSCOPE_SMC_MODE_FALLBACK */
	char laddr[48], raddr[48];
	char comm[16];
	/* live sessions: the transport state (show sessions live) */
	bool has_tcp;
	uint32_t rtt_us, rttvar_us, cwnd, ssthresh, snd_wnd, rcv_wnd;
	uint32_t unacked, lost, retrans;
	uint64_t delivery_rate;	/* bytes a second */
};

int ds_session_parse(struct nlattr *nest, struct ds_session *s);

/* A session event (DROPSCOPE_A_SESS_EVENT). */
struct ds_sess_event {
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	uint64_t cookie;
	uint32_t pid;
	uint32_t segs;
	uint8_t kind;		/* enum dropscope_sess_event_kind */
	uint8_t family;
	uint8_t oldstate, newstate;
	uint16_t lport, rport;
	char laddr[48], raddr[48];
	char comm[16];
};

int ds_sess_event_parse(struct nlattr *nest, struct ds_sess_event *e);

/*
 * The readers of one message, as the fetches above hand them each reply
 * (ds_msg_fn); what they read goes to arg. Tested with canned messages.
 */
int ds_config_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		 void *arg);	/* struct ds_config */
int ds_sites_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		void *arg);	/* struct ds_sites, appended to */
int ds_reasons_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		  void *arg);	/* struct ds_reasons, appended to */
int ds_stats_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		void *arg);	/* struct ds_stats_read */

#endif /* DS_LIB_MODEL_H */
