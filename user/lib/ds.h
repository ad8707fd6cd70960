/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CLI's library: the transport and the model of the dropscope family
 * (nl.c, model.c, rule.c), smc.ko's families (smc.c), names (names.c),
 * kernel symbols (kallsyms.c), the loop of the commands that run on
 * (loop.c), arguments (util.c), what several commands print (show.c,
 * through print.c), Prometheus series (metrics.c), pcapng (pcapng.c) and
 * the libraries opened when first needed (dl.c).
 * It calls nothing above it.
 */
#ifndef DS_LIB_H
#define DS_LIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/dropscope.h>
#include <linux/netlink.h>
#include <linux/smc.h>

#include "print.h"

#define DS_N(a) (sizeof(a) / sizeof((a)[0]))
#define DS_NCOLS(c) ((int)DS_N(c))

/* Exit statuses, also documented in the man page. */
enum ds_status {
	DS_OK = 0,
	DS_EFAIL = 1,		/* the kernel refused or the command failed */
	DS_EUSAGE = 2,		/* bad command line */
	DS_ENOMOD = 3,		/* dropscope.ko is not loaded */
	DS_EPERM = 4,		/* not permitted (CAP_NET_ADMIN needed) */
	DS_ECONDITION = 5,	/* run: a condition failed */
};

/*
 * dl.c: a library opened when first needed. Its symbols are listed once,
 * X(name) for each, in a macro LIST; then
 *   static struct { LIST(DS_DL_PTR) } lib;
 *   static const char *const lib_names[] = { LIST(DS_DL_NAME) };
 * and ds_dl_open(SONAME, lib_names, DS_N(lib_names), &lib, ...) fills lib
 * with the symbols' addresses (once: 0 at once afterwards), typed as the
 * library's header declares them; -1 with why if the library or a symbol
 * is missing. The SONAMEs are the build's (Makefile: DS_SO_*).
 */
#define DS_DL_PTR(sym) __typeof__(sym) *sym;
#define DS_DL_NAME(sym) #sym,
int ds_dl_open(const char *soname, const char *const *names, size_t n,
	       void *syms, char *why, size_t len);

/* nl.c: the netlink session */
struct ds_nl;
struct nl_msg;
struct nlattr;

/*
 * Called for each message from dropscope.ko: tb holds the parsed top-level
 * attributes (the last of each type), attrs/len all of them, for repeated
 * ones such as DROPSCOPE_A_SITE in alerts.
 */
typedef int (*ds_msg_fn)(struct nlattr **tb, struct nlattr *attrs, int len,
			 void *arg);

/* Walking attributes: is there a whole one at a, within rem bytes? */
static inline bool ds_nla_whole(const struct nlattr *a, int rem)
{
	return rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= rem;
}

/* The attribute after a; rem loses what a took. */
static inline const struct nlattr *ds_nla_after(const struct nlattr *a,
						int *rem)
{
	*rem -= NLA_ALIGN(a->nla_len);
	return (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
}

/*
 * An attribute's value, read in place (libnl's nla_get_*() are calls):
 * 0 when the attribute is shorter than its type.
 */
#define DS_NLA_GET(name, type)						\
static inline type ds_nla_##name(const struct nlattr *a)		\
{									\
	type v = 0;							\
									\
	if (a->nla_len >= NLA_HDRLEN + sizeof(v))			\
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));	\
	return v;							\
}
DS_NLA_GET(u8, uint8_t)
DS_NLA_GET(u16, uint16_t)
DS_NLA_GET(u32, uint32_t)
DS_NLA_GET(u64, uint64_t)

struct nla_policy;
int ds_nla_parse(struct nlattr **tb, int max, struct nlattr *head, int len,
		 const struct nla_policy *pol);
int ds_nla_parse_nested(struct nlattr **tb, int max, struct nlattr *nest,
			const struct nla_policy *pol);
int ds_nl_open(struct ds_nl **nlp);
void ds_nl_close(struct ds_nl *nl);
/* A request: build it, add attributes, send it; fn sees each reply. */
struct nl_msg *ds_nl_msg(struct ds_nl *nl, uint8_t cmd, bool dump);
int ds_nl_send(struct ds_nl *nl, struct nl_msg *msg, ds_msg_fn fn, void *arg);
/* The same for a request without attributes. */
int ds_nl_do(struct ds_nl *nl, uint8_t cmd, ds_msg_fn fn, void *arg);
/*
 * A dump. One the kernel marks interrupted (its table changed meanwhile)
 * is run again from the start, a few times: reset (if not NULL) is called
 * first, to discard what fn collected of the partial one.
 */
int ds_nl_dump(struct ds_nl *nl, uint8_t cmd, ds_msg_fn fn,
	       void (*reset)(void *arg), void *arg);
int ds_nl_join_alerts(struct ds_nl *nl);
int ds_nl_listen(struct ds_nl *nl);
void ds_nl_blocking(struct ds_nl *nl);
int ds_nl_fd(struct ds_nl *nl);
/* Did dropscope.ko go away? Seen on a socket that joined the alerts. */
bool ds_nl_gone(struct ds_nl *nl);
/* Receive what is pending on a joined socket; fn sees each alert. */
int ds_nl_recv_alerts(struct ds_nl *nl, ds_msg_fn fn, void *arg);
/* The last error: its status and a message that says what to do. */
const char *ds_nl_error(struct ds_nl *nl);
int ds_nl_status(int err);

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
	bool scope;		/* the drops of the scoped cgroup's sockets */
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

/* show.c: sites and alerts, through the print path of print.c */
void ds_site_print(struct ds_print *p, const struct ds_site *s,
		   const char *stamp);
void ds_sites_print(struct ds_print *p, const struct ds_site *v, size_t n,
		    size_t top);
void ds_sites_print_as(struct ds_print *p, const char *key,
		       const struct ds_site *v, size_t n, size_t top);
void ds_alert_print(struct ds_print *p, const struct ds_alert *a);

/* util.c: arguments */
int ds_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);
int ds_parse_duration_ms(const char *s, uint64_t *ms);

/* An option of a command, "NAME VALUE": a number, or a duration in ms. */
struct ds_opt {
	const char *name;	/* NULL ends a list */
	bool duration;
	uint64_t min, max;
	uint64_t *v;
	const char *why;	/* what the usage says when VALUE is bad */
};

/* The options most commands that run on take. */
#define DS_OPT_TIMEOUT(v)						\
	{ "timeout", true, 1, UINT64_MAX, (v),				\
	  "timeout needs a duration (e.g. 10s)" }
#define DS_OPT_COUNT(name, v)						\
	{ (name), false, 1, UINT32_MAX, (v), name " needs a positive number" }

struct ds_cmd;
int ds_parse_opts(const struct ds_cmd *self, int argc, char **argv,
		  const struct ds_opt *opts);
int ds_split(char *line, char **argv, int max);
int ds_site_cmp_total(const void *a, const void *b);
void *ds_grow(void *v, size_t *cap, size_t n, size_t size, size_t first);

/* kallsyms.c: kernel symbols */
struct ds_syms;
int ds_syms_load(FILE *f, struct ds_syms **out);
void ds_syms_free(struct ds_syms *s);
int ds_syms_resolve(const struct ds_syms *s, const char *spec,
		    uint64_t *start, uint64_t *end);
void ds_syms_name(const struct ds_syms *s, uint64_t addr, char *buf,
		  size_t len);

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

/* What a command runs with: the shell keeps one for its whole session. */
struct ds_ctx {
	struct ds_nl *nl;
	struct ds_syms *syms;	/* loaded on first use */
	struct ds_reasons reasons;	/* fetched on first use */
	struct ds_lines *lines;	/* opened on first use */
	bool lines_tried;
	bool json;
	bool interactive;	/* the readline shell is running */
	bool quit;
};

/* A command of the table (the shell's): the library only prints usage. */

struct ds_cmd {
	const char *name;	/* one or two words: "show sites" */
	int (*fn)(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);
	const char *args;	/* usage of the arguments */
	const char *help;
	int arg;		/* for shared handlers: a command or attribute */
};

int ds_usage(const struct ds_cmd *cmd, const char *what);
/* ctx.c: the context's netlink session, symbols and reasons, on first use */
int ds_fail(struct ds_ctx *ctx, int err);
int ds_ctx_nl(struct ds_ctx *ctx);
int ds_ctx_syms(struct ds_ctx *ctx);
/* The module's reasons, fetched once a context; errors are printed. */
int ds_ctx_reasons(struct ds_ctx *ctx, const struct ds_reasons **r);
void ds_ctx_free(struct ds_ctx *ctx);

/* model.c: the family's objects; errors are the transport's */
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
	uint64_t scope;		/* the scoped cgroup, 0: none */
	bool stacks;		/* stacks are taken */
	uint32_t stacks_capacity;
	uint32_t sess_events;	/* DROPSCOPE_SESS_EVENTS_* recorded */
};

int ds_config_fetch(struct ds_nl *nl, struct ds_config *c);
/* Count the drops of the sockets of cgroup id apart (0: stop it). */
int ds_config_scope(struct ds_nl *nl, uint64_t id);
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

/* rule.c: rules, the words of rule mask|only and capture, and the wire */
enum ds_rule_field {
	DS_RF_SITE, DS_RF_REASON, DS_RF_DEV, DS_RF_L3, DS_RF_L4, DS_RF_NETNS,
	DS_RF_SMC, DS_RF_LAYER, DS_RF_TRAP, DS_RF_GROUP, DS_RF_COUNTER,
	DS_RF_KIND, DS_RF_COUNT
};

/* The fields' words, by enum ds_rule_field; NULL-terminated. */
extern const char *const ds_rule_fields[];

struct ds_rule {
	uint32_t id;		/* given by the module */
	uint8_t mode;		/* enum dropscope_rule_mode; 0: none sent */
	unsigned int has;	/* 1 << enum ds_rule_field: the fields set */
	uint64_t loc_start, loc_end;
	uint32_t reason, ifindex, netns, smc_reason;
	uint16_t l3;
	uint8_t l4;
	uint8_t layer;		/* enum dropscope_layer */
	uint8_t counter;	/* enum dropscope_dev_counter */
	char trap[40], group[40];
	char kind[16];		/* a qdisc's kind */
	uint64_t hits;		/* read: drops the rule decided */
};

struct ds_rules {
	struct ds_rule *v;
	size_t n, cap;
};

/* FIELD VALUE pairs; bad input is printed, DS_EUSAGE returned. */
int ds_rule_parse(struct ds_ctx *ctx, int argc, char **argv,
		  struct ds_rule *r);
/* r as a DROPSCOPE_A_RULE nest of msg, and back. */
int ds_rule_put(struct nl_msg *msg, const struct ds_rule *r);
int ds_rule_read(struct nlattr *nest, struct ds_rule *r);
int ds_rule_add(struct ds_nl *nl, const struct ds_rule *r, uint32_t *id);
int ds_rule_del(struct ds_nl *nl, uint32_t id);
int ds_rules_fetch(struct ds_nl *nl, struct ds_rules *l);
/*
 * The rules of a file of rule lines ("rule mask|only FIELD VALUE ...", or
 * the older "mask add|only ..."; # starts a comment), resolved; a bad line
 * is said as NAME:LINE and DS_EUSAGE returned, with nothing kept.
 */
int ds_rules_read(struct ds_ctx *ctx, FILE *f, const char *name,
		  struct ds_rules *out);
/* Every rule of l, or none: if the module refuses one (*failed its
 * index), those added before it are taken away. ids gets their ids. */
int ds_rules_add_all(struct ds_nl *nl, const struct ds_rules *l,
		     uint32_t *ids, size_t *failed);
void ds_rules_del_all(struct ds_nl *nl, const uint32_t *ids, size_t n);
/* A rule as the words "rule" takes: "mask l4 udp", names where the
 * system has them. */
int ds_rule_words(struct ds_ctx *ctx, const struct ds_rule *r, char *buf,
		  size_t len);

/* names.c: names of packet fields, as "mask add" takes them; numbers when
 * unknown */
#define DS_NETNS_DIR "/run/netns"	/* ip netns names */
const char *ds_dev_name(uint32_t ifindex, char *buf, size_t len);
const char *ds_netns_name(uint32_t inum, char *buf, size_t len);
const char *ds_l3_name(uint32_t l3, char *buf, size_t len);
const char *ds_l4_name(uint32_t l4, char *buf, size_t len);
const char *const *ds_proto_names(bool l3);
int ds_l3_parse(const char *s, unsigned int *v);
int ds_l4_parse(const char *s, unsigned int *v);
int ds_netns_parse(const char *s, uint32_t *inum);
const char *ds_tcp_state_name(unsigned int state);
const char *ds_smc_reason_name(uint32_t code);

/* model.c: TCP sessions */
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
	bool scope;		/* the scoped cgroup's socket at birth */
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
/* show.c: as watch sessions states (tcpstates) and retrans (tcpretrans) */
void ds_sess_event_print(struct ds_print *p, const struct ds_sess_event *e);
/* show.c: sessions as show sessions, watch sessions and top print them */
void ds_session_fields(struct ds_print *p, const struct ds_session *s);
/* The columns of show sessions; the last one, the rest, has no key. */
extern const struct ds_col ds_sess_cols[];
void ds_session_print(struct ds_print *p, const struct ds_session *s);
void ds_close_head(struct ds_print *p);
void ds_closes_print(struct ds_print *p, const struct ds_session *v,
		     size_t n);

/* What a sessions dump collects: ds_nl_dump(nl, cmd, ds_sessions_cb,
 * ds_sessions_reset, &sessions) appends to v. */
struct ds_sessions {
	struct ds_session *v;
	size_t n, cap;
	size_t base;		/* where the dump under way began */
};

int ds_sessions_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		   void *arg);
void ds_sessions_reset(void *arg);

/* The filters of show sessions, watch sessions and top. */
struct ds_sess_filter {
	uint64_t pid;		/* UINT64_MAX: any */
	uint64_t port;		/* UINT64_MAX: any; local or remote */
};

bool ds_sess_match(const struct ds_sess_filter *f, const struct ds_session *s);
bool ds_sess_event_match(const struct ds_sess_filter *f,
			 const struct ds_sess_event *e);
int ds_sess_filter_arg(struct ds_sess_filter *f, int argc, char **argv, int *a);
void ds_sessions_print(struct ds_print *p, const struct ds_session *v,
		       size_t n, size_t top);

/* The running kernel's GNU build id as hex, "" if unknown (record.c). */
void ds_kernel_build_id(char *out, size_t len);

/* lines.c: source lines, from the running kernel's vmlinux with DWARF */
struct ds_lines;
/* NULL, and why says why (once, to the user), when there is none. */
struct ds_lines *ds_lines_open(const struct ds_syms *syms, char *why,
			       size_t len);
/* The line of the call that returns to addr, "file:line"; false: none. */
bool ds_lines_get(struct ds_lines *l, uint64_t addr, char *buf, size_t len);
void ds_lines_close(struct ds_lines *l);
/*
 * The context's lines, opened on first use; NULL when the kernel has no
 * DWARF here, which is said once on standard error (ctx.c).
 */
struct ds_lines *ds_ctx_lines(struct ds_ctx *ctx);

/* stacks.c: drop stacks */
struct ds_stack {
	uint64_t location;
	uint32_t reason;
	uint32_t id;
	uint64_t count;
	bool no_room;		/* counted without frames: no room */
	bool siteless;		/* and the stack did not reach the site */
	size_t nr;
	char site[256];		/* the site, "sym+0x1c/0x80 [mod]" */
	uint64_t frames[DROPSCOPE_STACK_DEPTH];
	char *symbols[DROPSCOPE_STACK_DEPTH];	/* "sym+0x1c/0x80 [mod]" */
	char *lines[DROPSCOPE_STACK_DEPTH];	/* show stacks lines, or NULL */
	bool has_lines;
};

struct ds_stacks {
	struct ds_stack *v;
	size_t n, cap;
};

/* Stacks on (for the drops r matches; NULL: all) or off. */
int ds_stacks_set(struct ds_nl *nl, bool on, const struct ds_rule *r);
int ds_stack_parse(struct nlattr *nest, struct ds_stack *s);
void ds_stack_free(struct ds_stack *s);
int ds_stacks_fetch(struct ds_nl *nl, struct ds_stacks *s);
void ds_stacks_free(struct ds_stacks *s);
/* By site (its total first), then count. */
void ds_stacks_sort(struct ds_stacks *s);
void ds_stacks_print(struct ds_print *p, const struct ds_stack *v, size_t n,
		     size_t top, const char *(*reason)(uint32_t id, void *arg),
		     void *arg);

/* smc.c: SMC, from smc.ko's SMC_GEN_NETLINK family and SMC sock_diag,
 * and dropscope's own SMC counters */
/*
 * Attributes of 6.12's smc.ko beyond the 6.1 uapi headers dropscope builds
 * against; their numbers follow the last one those headers have. The
 * byte counts are the kernel's variable-width "uint": 4 or 8 bytes.
 */
enum {
	DS_SMC_LGR_R_SNDBUF_ALLOC = SMC_NLA_LGR_R_BUF_TYPE + 1,
	DS_SMC_LGR_R_RMB_ALLOC,
	DS_SMC_LGR_R_MAX = DS_SMC_LGR_R_RMB_ALLOC,
};

enum {
	DS_SMC_LGR_D_EXT_GID = SMC_NLA_LGR_D_V2_COMMON + 1,
	DS_SMC_LGR_D_PEER_EXT_GID,
	DS_SMC_LGR_D_SNDBUF_ALLOC,
	DS_SMC_LGR_D_DMB_ALLOC,
	DS_SMC_LGR_D_MAX = DS_SMC_LGR_D_DMB_ALLOC,
};

enum {
	DS_SMC_STATS_T_RX_RMB_USAGE = SMC_NLA_STATS_T_TX_CNT + 1,
	DS_SMC_STATS_T_TX_RMB_USAGE,
};

/* The size histograms of a mode's statistics: buffers and requests */
enum { DS_SMC_TX_BUFS, DS_SMC_RX_BUFS, DS_SMC_TX_REQS, DS_SMC_RX_REQS,
       DS_SMC_NSIZES };
/* Their buckets: up to 8 KiB, 16, 32 ... 1024 KiB, then more */
#define DS_SMC_NBUCKETS	SMC_NLA_STATS_PLOAD_MAX

/* The kernel's statistics of one SMC mode (SMC_NLA_STATS_*_TECH). */
struct ds_smc_tech {
	uint64_t v[SMC_NLA_STATS_T_MAX + 1];	/* the u64 attributes */
	uint64_t rmb[2][SMC_NLA_STATS_RMB_MAX + 1];	/* tx, rx */
	/* [DS_SMC_TX_BUFS...][bucket]: bucket i counts up to 8 KiB << i */
	uint64_t sizes[DS_SMC_NSIZES][DS_SMC_NBUCKETS];
	uint64_t usage[2];	/* tx, rx: bytes of buffers in use (6.12) */
	bool has_usage;
};

struct ds_smc_fback {
	uint32_t code;
	bool server;
	uint64_t count;
	uint32_t pid;		/* owners only */
	char comm[16];
	uint64_t masked;	/* dropscope's: hidden by mask rules */
	bool own;		/* dropscope's: masked is known */
};

struct ds_smc_stats {
	struct ds_smc_tech tech[2];	/* SMC-R, SMC-D */
	uint64_t hs_err[2];		/* client, server */
	uint64_t fback[2];		/* client, server */
	struct ds_smc_fback *fb;
	size_t nfb, capfb;
	bool got;
};

/* An RDMA device SMC-R moved data on. */
struct ds_smc_dev {
	char name[64];
	uint64_t v[4];		/* tx bytes, tx copies, rx bytes, rx copies */
};

struct ds_smc_own {
	uint8_t hooked;
	uint8_t layout;
	struct ds_smc_dev devs[16];
	size_t ndevs;
	uint64_t v[DROPSCOPE_SMC_A_MAX + 1];
	struct ds_smc_stats fbs;	/* only fb, nfb, capfb */
	struct ds_smc_stats owners;	/* the same, with pid and comm */
};

struct ds_smc_sock {
	uint64_t inode;
	uint32_t uid;
	uint32_t reason;	/* fallback reason, when it fell back */
	uint32_t peer_reason;	/* the peer's, when it said one */
	uint32_t pid;
	uint16_t lport, rport;
	uint8_t state;
	uint8_t mode;
	uint8_t shutdown;	/* RCV_SHUTDOWN 1, SEND_SHUTDOWN 2 */
	bool has_reason;
	char laddr[48], raddr[48];
	char comm[16];
	/* SMC_DIAG_CONNINFO: an SMC connection's buffers */
	bool has_conn;
	uint32_t token, sndbuf, rmb, peer_rmb;
	/* SMC_DIAG_LGRINFO: an SMC-R connection's link */
	bool has_link;
	uint8_t role, link_id, ibport;
	char ibdev[64], gid[48], peer_gid[48];
	/* SMC_DIAG_DMBINFO: an SMC-D connection's DMB */
	bool has_dmb;
	uint32_t dmb_lgr;
	uint64_t dmb_gid, dmb_peer_gid, dmb_token, dmb_peer_token;
};

struct ds_smc_socks {
	struct ds_smc_sock *v;
	size_t n, cap;
};

/* smc.ko itself, as smcd info and the EID tables show it. */
struct ds_smc_sys {
	bool got;			/* SMC_GEN_SYS_INFO came */
	uint8_t version, release, ism_v2, smcr_v2;
	char host[40];
	bool has_seid;			/* only with an ISM v2 device */
	uint8_t seid_enabled;
	char seid[40];
	char ueids[SMC_MAX_UEID][40];
	size_t nueids;
	bool has_hs_limit;
	uint8_t hs_limit;		/* this namespace's */
};

/* A link of an SMC-R link group (SMC_GEN_LINK_SMCR). */
struct ds_smc_link {
	uint8_t id, ibport;
	uint32_t state, conns, ifindex, uid, peer_uid;
	char ibdev[64], gid[48], peer_gid[48];
};

/* A link group, SMC-R (SMC_GEN_LGR_SMCR) or SMC-D (SMC_GEN_LGR_SMCD). */
struct ds_smc_lgr {
	bool smcd;
	uint32_t id, conns;
	uint8_t role, type, vlan, buf_type;
	char pnetid[20];
	bool has_alloc;			/* 6.12: the pools' bytes */
	uint64_t sndbuf_alloc, rmb_alloc;	/* rmb: the DMBs for SMC-D */
	bool v2;			/* SMC_NLA_LGR_*_V2_COMMON */
	uint8_t version, release, os;
	char peer_host[40], eid[40];
	bool has_direct;
	uint8_t direct, max_conns, max_links;
	uint32_t chid;			/* SMC-D */
	uint64_t gid, peer_gid;		/* SMC-D */
	struct ds_smc_link links[3];	/* SMC_LINKS_PER_LGR_MAX */
	size_t nlinks;
	uint64_t links_dropped;		/* links past the three */
};

struct ds_smc_lgrs {
	struct ds_smc_lgr *v;
	size_t n, cap;
};

/* A port of an SMC device (SMC_NLA_DEV_PORT, _PORT2). */
struct ds_smc_port {
	bool present, pnet_user, active;
	uint32_t ifindex, links;
	char pnetid[20];
};

/* An RDMA device SMC-R may use, or an ISM device of SMC-D. */
struct ds_smc_device {
	bool smcd, crit, has_pci;
	uint32_t use_cnt, fid;
	uint16_t chid, vendor, device;
	char name[64], pci_id[20];
	struct ds_smc_port port[2];
};

struct ds_smc_devices {
	struct ds_smc_device *v;
	size_t n, cap;
};

/* Is the kernel's SMC support there? Asked before any request. */
bool ds_smc_loaded(void);
/* Says that smc.ko is not loaded; DS_EFAIL. */
int ds_smc_absent(void);
/* The kernel's SMC statistics and fallbacks (st->fb the caller frees); a
 * DS_ status, the reason said on standard error. */
int ds_smc_read(struct ds_smc_stats *st);
/* dropscope's own (SMC_GET); ds_smc_own_free() frees what it holds. */
int ds_smc_own_fetch(struct ds_nl *nl, struct ds_smc_own *o);
void ds_smc_own_free(struct ds_smc_own *o);
/* The link groups with their links, SMC-R then SMC-D; the devices. A DS_
 * status, the reason said on standard error; out->v the caller frees. */
int ds_smc_lgrs_read(struct ds_smc_lgrs *out);
int ds_smc_sys_read(struct ds_smc_sys *out);
int ds_smc_devices_read(struct ds_smc_devices *out);
/* What the link groups hold, summed. */
struct ds_smc_pools {
	size_t n;
	uint64_t conns, sndbuf, rmb;
	bool alloc;		/* some group told its pools (6.12) */
};
void ds_smc_pools_sum(struct ds_smc_pools *m, const struct ds_smc_lgrs *g);
/* The bytes of buffers in use, both modes and directions; false when the
 * kernel does not report them (before 6.12). */
bool ds_smc_in_use(const struct ds_smc_stats *st, uint64_t *bytes);
const char *ds_smc_lgr_role_name(uint8_t role);
const char *ds_smc_lgr_type_name(uint8_t type);
const char *ds_smc_link_state_name(uint32_t state);
/* The SMC sockets, then the process that holds each. */
int ds_smc_diag_dump(struct ds_smc_socks *out);
void ds_smc_owners(struct ds_smc_socks *s);
const char *ds_smc_state_name(unsigned int st);

/* capture.c: a capture's wire */
/* A packet of a capture message; data points into the message. */
struct ds_packet {
	uint64_t tstamp, loc;
	uint32_t reason, ifindex, netns, len, caplen;
	uint32_t stack;		/* its stack's id, or 0 */
	uint16_t protocol;
	const void *data;
};

/* The module's counters of a capture, the last it sent. */
struct ds_cap_counters {
	uint32_t id;
	uint64_t matched, captured, lost_buffer, lost_socket, no_network;
	bool ended;		/* the module ended the capture */
};

/* What START asks for. */
struct ds_cap_req {
	uint32_t snaplen;
	bool all;			/* drops the rules hide too */
	const void *filter;		/* struct sock_filter[nfilter] */
	unsigned int nfilter;
	const struct ds_rule *rule;	/* or NULL */
};

/* A capture message (or START's or STOP's reply): each packet to
 * on_packet, then the counters it brought into c. */
int ds_capture_read(struct nlattr **tb, struct nlattr *attrs, int len,
		    int (*on_packet)(void *arg, const struct ds_packet *pk),
		    void *arg, struct ds_cap_counters *c);
int ds_capture_start(struct ds_nl *nl, const struct ds_cap_req *req,
		     ds_msg_fn fn, void *arg);
/* What the module still holds comes before the reply, to fn. */
int ds_capture_stop(struct ds_nl *nl, uint32_t id, ds_msg_fn fn, void *arg);

/* pcapng.c: the file's blocks */
struct ds_pcapng;
struct ds_pcapng *ds_pcapng_open(FILE *f, uint32_t snaplen);
int ds_pcapng_write(struct ds_pcapng *w, uint64_t ns, uint32_t ifindex,
		    uint16_t protocol, const void *data, uint32_t caplen,
		    uint32_t len, const char *comment);
int ds_pcapng_flush(struct ds_pcapng *w);
int ds_pcapng_close(struct ds_pcapng *w);

/* loop.c: the loop of the commands that run on */
struct ds_loop {
	struct ds_nl *nl;	/* a socket that joined the alerts, or NULL */
	ds_msg_fn on_msg;	/* each alert message on nl */
	/* Before each wait: nonzero stops; *wait_ms (1000) may be lowered. */
	int (*on_turn)(void *arg, int *wait_ms);
	/* A key other than q, Enter and Ctrl-C: nonzero stops. */
	int (*on_key)(void *arg, char c);
	void *arg;
	const char *what;	/* "watching WHAT: keys" on stderr; NULL: no */
	uint64_t deadline;	/* ds_now_ms() at which to stop; 0: none */
	uint64_t lost;		/* out: times the socket overran */
};

uint64_t ds_now_ms(void);
/* The local time of day, as watch prints it: 12:04:31.250 */
void ds_stamp(char *buf, size_t len);
int ds_watch_open(struct ds_nl **nl);
int ds_watch_loop(struct ds_loop *l);

/* metrics.c: the module's totals as Prometheus series, and their text;
 * the families, in their output order */
enum ds_metric_family {
	DS_MF_UP,
	DS_MF_EPOCHS,
	DS_MF_READ_ERRORS,
	DS_MF_SITES_LIMIT,
	DS_MF_DROPS,
	DS_MF_DROPS_MASKED,
	DS_MF_UNSITED,
	DS_MF_SITES,
	DS_MF_ROUNDS,
	DS_MF_ALERTS,
	DS_MF_ALERTS_LOST,
	DS_MF_ALERTS_HELD,
	DS_MF_FOLDS,
	DS_MF_SESS_OPENED,
	DS_MF_SESS_CLOSED,
	DS_MF_SESS_LIVE,
	DS_MF_SESS_LOST,
	DS_MF_SESS_MASKED,
	DS_MF_SMC_FALLBACKS,
	DS_MF_SMC_BYTES,
	DS_MF_SMC_COPIES,
	DS_MF_SMC_DEV_BYTES,
	DS_MF_SMC_LINK_DOWNS,
	DS_MF_SMC_LGRS,
	DS_MF_SMC_LGR_CONNS,
	DS_MF_SMC_IN_USE,
	DS_MF_SMC_POOLS,
	DS_MF_TRAPS,
	DS_MF_TRAPS_MASKED,
	DS_MF_DEV_DROPS,
	DS_MF_DEV_DROPS_MASKED,
	DS_MF_QDISC_DROPS,
	DS_MF_QDISC_DROPS_MASKED,
	DS_MF_COUNT
};

struct ds_series {
	int family;
	char *labels;		/* 'a="x",b="y"', or "" */
	uint64_t base;		/* what earlier epochs counted */
	uint64_t last;		/* the module's value at the last read */
	uint64_t cur;		/* the value being read */
	uint64_t seen;		/* m->reads of the last read that set it */
};

/* A site that has a label of its own: by reason name and symbol. */
struct ds_label {
	char *key;
};

struct ds_metrics {
	struct ds_series *v;
	size_t n, cap;
	struct ds_label *sites;
	size_t nsites, capsites, max_sites;
	bool have_epoch, up;
	uint64_t epoch, reads;
};

/* A value of a series in this read; labels 'a="x",b="y"' or "". Several
 * for one series in one read add up. */
void ds_metric(struct ds_metrics *m, int family, const char *labels,
	       uint64_t v);
/* Events of the exporter's own (read errors, epochs): n more. */
void ds_metric_add(struct ds_metrics *m, int family, uint64_t n);
/* A read: the module's epoch first, then its values, then finish. */
void ds_metrics_epoch(struct ds_metrics *m, uint64_t epoch);
void ds_metrics_stats(struct ds_metrics *m, const uint64_t *v);
void ds_metrics_sites(struct ds_metrics *m, const struct ds_sites *s);
/* The traps (hw), device counters (dev) and qdisc drops of s as metrics. */
void ds_metrics_layers(struct ds_metrics *m, const struct ds_sites *s);
void ds_metrics_smc(struct ds_metrics *m, const struct ds_smc_own *o);
/* smc.ko's own: link groups, their connections, buffer memory */
void ds_metrics_smc_kernel(struct ds_metrics *m, const struct ds_smc_stats *st,
			   const struct ds_smc_lgrs *g);
void ds_metrics_finish(struct ds_metrics *m);
/* The text format of every series (the caller frees it), or NULL. */
char *ds_metrics_text(struct ds_metrics *m, size_t *len);
void ds_metrics_free(struct ds_metrics *m);

/* record.c: a snapshot of the module's totals in a file, and the
 * difference of two */
struct ds_rec_site {
	char reason[64];
	char symbol[160];	/* as the kernel prints it; or its function */
	char fields[160];	/* "dev lo l4 udp", or "" */
	uint64_t count, masked;
};

struct ds_record {
	char kernel[128], build[256], build_id[96], time[40];
	bool has_stats;
	uint64_t events, shown, masked, overflow, alloc_fails;
	struct ds_rec_site *sites;
	size_t n, cap;
	char **rules;		/* "mask l4 udp": what follows "rule" */
	size_t nrules, caprules;
};

/* The running module's, now (errors printed, a DS_ status). */
int ds_record_take(struct ds_ctx *ctx, struct ds_record *r);
int ds_record_write(FILE *f, const struct ds_record *r);
/* A bad file is said as NAME:LINE: what; DS_EUSAGE. */
int ds_record_read(FILE *f, const char *name, struct ds_record *r);
void ds_record_free(struct ds_record *r);

enum ds_rec_kind { DS_REC_NEW, DS_REC_GONE, DS_REC_CHANGED, DS_REC_SAME,
		   DS_REC_KINDS };

struct ds_rec_change {
	enum ds_rec_kind kind;
	struct ds_rec_site site;	/* B's (A's when gone) */
	uint64_t a, b;			/* its counts */
};

/* B against A: new, gone and changed sites (counts shown, not masked);
 * across kernel builds, by function rather than by offset. */
struct ds_rec_diff {
	bool same_build, by_function;
	struct ds_rec_change *v;
	size_t n, cap;
	size_t count[DS_REC_KINDS];
};

int ds_record_diff(const struct ds_record *a, const struct ds_record *b,
		   struct ds_rec_diff *d);
void ds_rec_diff_free(struct ds_rec_diff *d);

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
int ds_smc_own_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		  void *arg);	/* struct ds_smc_own */
/* smc.ko's replies (libnl's callbacks), into struct ds_smc_stats */
int ds_smc_stats_cb(struct nl_msg *msg, void *arg);
int ds_smc_lgr_cb(struct nl_msg *msg, void *arg);	/* struct ds_smc_lgrs */
int ds_smc_sys_cb(struct nl_msg *msg, void *arg);	/* struct ds_smc_sys */
int ds_smc_device_cb(struct nl_msg *msg, void *arg);	/* ds_smc_devices */
int ds_smc_fback_cb(struct nl_msg *msg, void *arg);
/* One SMC sock_diag message, appended to out */
struct nlmsghdr;
int ds_smc_diag_msg(struct nlmsghdr *h, struct ds_smc_socks *out);

#endif /* DS_LIB_H */
