/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dropscope CLI: shared declarations.
 */
#ifndef DROPSCOPE_CLI_H
#define DROPSCOPE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/dropscope.h>
#include <linux/netlink.h>

#include "print.h"

#define DS_N(a) (sizeof(a) / sizeof((a)[0]))

/* Exit statuses, also documented in the man page. */
enum ds_status {
	DS_OK = 0,
	DS_EFAIL = 1,		/* the kernel refused or the command failed */
	DS_EUSAGE = 2,		/* bad command line */
	DS_ENOMOD = 3,		/* dropscope.ko is not loaded */
	DS_EPERM = 4,		/* not permitted (CAP_NET_ADMIN needed) */
};

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

/* One site as the kernel reports it. */
struct ds_site {
	uint64_t location;
	uint64_t total;
	uint64_t delta;
	uint64_t masked;	/* drops that rules hid */
	uint32_t reason;
	uint32_t ifindex;	/* packet fields, 0 when not keyed by them */
	uint32_t netns;
	uint16_t l3;
	uint8_t l4;
	bool has_delta;
	char symbol[160];
	char reason_name[64];
};

int ds_site_parse(struct nlattr *nest, struct ds_site *site);

/* output.c: sites and alerts, through the print path of print.c */
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

struct ds_alert {
	const char *stamp;	/* local time, for text */
	uint64_t round;
	bool end;		/* the last message of the round */
	uint64_t overflow;
	const struct ds_site *sites;
	size_t n;
	const struct ds_smc_alert *smc;	/* SMC fallbacks */
	size_t nsmc;
	uint64_t link_downs;	/* SMC-R links gone down */
};

void ds_site_print(struct ds_print *p, const struct ds_site *s,
		   const char *stamp);
void ds_sites_print(struct ds_print *p, const struct ds_site *v, size_t n,
		    size_t top);
void ds_alert_print(struct ds_print *p, const struct ds_alert *a);

/* util.c */
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

/* cmd.c: the one command table */
struct ds_ctx {
	struct ds_nl *nl;
	struct ds_syms *syms;	/* loaded on first use */
	bool json;
	bool interactive;	/* the readline shell is running */
	bool quit;
};

struct ds_cmd {
	const char *name;	/* one or two words: "show sites" */
	int (*fn)(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);
	const char *args;	/* usage of the arguments */
	const char *help;
	int arg;		/* for shared handlers: a command or attribute */
};

extern const struct ds_cmd ds_cmds[];
int ds_usage(const struct ds_cmd *cmd, const char *what);
int ds_fail(struct ds_ctx *ctx, int err);
const struct ds_cmd *ds_cmd_find(int argc, char **argv, int *used);
int ds_cmd_run(struct ds_ctx *ctx, int argc, char **argv);
/* Completion: the state-th word that may follow words[0..n-1]. */
const char *ds_cmd_complete(char **words, int n, const char *prefix,
			    int state);
int ds_ctx_nl(struct ds_ctx *ctx);

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

/* The module's sites, as a dump gives them (unsorted); prints nothing. */
struct ds_sites {
	struct ds_site *v;
	size_t n, cap;
};

int ds_sites_fetch(struct ds_nl *nl, struct ds_sites *s);
int ds_reasons_fetch(struct ds_nl *nl, struct ds_reasons *r);
int ds_stat_get(struct ds_ctx *ctx, int attr, uint64_t *v);

/* The module's statistics by attribute, those it sent marked in has. */
struct ds_stats_read {
	uint64_t v[DROPSCOPE_STATS_A_MAX + 1];
	bool has[DROPSCOPE_STATS_A_MAX + 1];
};

int ds_stats_fetch(struct ds_nl *nl, struct ds_stats_read *st);

/* complete.c */
int cmd_complete(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv);
int cmd_completion(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		   char **argv);

/* mask.c */
#define DS_NETNS_DIR "/run/netns"	/* ip netns names */
extern const char *const ds_mask_fields[];	/* NULL-terminated */
int ds_ctx_syms(struct ds_ctx *ctx);
/* FIELD VALUE pairs of a rule into msg, inside its open DROPSCOPE_A_RULE */
int ds_rule_parse(struct ds_ctx *ctx, int argc, char **argv,
		  struct nl_msg *msg);
int cmd_mask_add(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv);
int cmd_mask_only(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);
int cmd_mask_del(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv);
int cmd_mask_list(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);
/* Names of packet fields, as "mask add" takes them; numbers when unknown. */
const char *ds_dev_name(uint32_t ifindex, char *buf, size_t len);
const char *ds_netns_name(uint32_t inum, char *buf, size_t len);
const char *ds_l3_name(uint32_t l3, char *buf, size_t len);
const char *ds_l4_name(uint32_t l4, char *buf, size_t len);
const char *const *ds_proto_names(bool l3);

/* sessions.c: TCP sessions */
struct ds_session {
	uint64_t cookie;
	uint64_t seq;
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
	uint8_t smc_mode;	/* enum dropscope_smc_mode */
	uint32_t smc_reason;	/* with DROPSCOPE_SMC_MODE_FALLBACK */
	char laddr[48], raddr[48];
	char comm[16];
};

int ds_session_parse(struct nlattr *nest, struct ds_session *s);
const char *ds_tcp_state_name(unsigned int state);
void ds_session_fields(struct ds_print *p, const struct ds_session *s);
/* The columns of show sessions; the last one, the rest, has no key. */
extern const struct ds_col ds_sess_cols[];
void ds_session_print(struct ds_print *p, const struct ds_session *s);

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
int ds_sess_filter_arg(struct ds_sess_filter *f, int argc, char **argv, int *a);
void ds_sessions_print(struct ds_print *p, const struct ds_session *v,
		       size_t n, size_t top);
int cmd_show_sessions(struct ds_ctx *ctx, const struct ds_cmd *self,
		      int argc, char **argv);
int cmd_watch_sessions(struct ds_ctx *ctx, const struct ds_cmd *self,
		       int argc, char **argv);

/* smc.c: SMC, from the kernel's SMC_GEN_NETLINK family and SMC sock_diag */
const char *ds_smc_reason_name(uint32_t code);
int cmd_show_smc(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		 char **argv);
int cmd_show_smc_sockets(struct ds_ctx *ctx, const struct ds_cmd *self,
			 int argc, char **argv);
int cmd_watch_smc(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		  char **argv);

/* top.c: the busiest sessions of each interval */
enum ds_top_sort { DS_TOP_BYTES, DS_TOP_RX, DS_TOP_TX, DS_TOP_RETRANS,
		   DS_TOP_DROPS };

#define DS_TOP_INTERVAL_MS	1000
#define DS_TOP_INTERVAL_MIN_MS	100
#define DS_TOP_INTERVAL_MAX_MS	60000

struct ds_top_args {
	struct ds_sess_filter f;
	uint64_t interval_ms;
	uint64_t top;		/* sessions per frame; UINT64_MAX: all */
	uint64_t count;		/* frames, then stop; 0: until stopped */
	enum ds_top_sort sort;
};

/* The arguments of top; on bad input *err says what is wrong. */
int ds_top_parse(struct ds_top_args *t, int argc, char **argv,
		 const char **err);
int cmd_top(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	    char **argv);

/* capture.c */
int cmd_capture(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
		char **argv);
/* The file's blocks, in pcapng (pcapng.c, tested without a kernel). */
struct ds_pcapng;
struct ds_pcapng *ds_pcapng_open(FILE *f, uint32_t snaplen);
int ds_pcapng_write(struct ds_pcapng *w, uint64_t ns, uint32_t ifindex,
		    uint16_t protocol, const void *data, uint32_t caplen,
		    uint32_t len, const char *comment);
int ds_pcapng_flush(struct ds_pcapng *w);
int ds_pcapng_close(struct ds_pcapng *w);

/* watch.c: the loop of watch, watch sessions and top */
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
int ds_watch(struct ds_ctx *ctx, uint64_t rounds, uint64_t timeout_ms);

/* export.c: Prometheus metrics, the families in their output order */
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
	DS_MF_COUNT
};

struct ds_metrics;
/* A value of a series in this read; labels 'a="x",b="y"' or "". */
void ds_metric(struct ds_metrics *m, int family, const char *labels,
	       uint64_t v);
int ds_export_listen(const char *spec, char *why, size_t len);
int cmd_export(struct ds_ctx *ctx, const struct ds_cmd *self, int argc,
	       char **argv);
/* smc.c: dropscope's SMC counters as metrics (none when SMC is not hooked) */
void ds_smc_metrics(struct ds_nl *nl, struct ds_metrics *m);

#endif /* DROPSCOPE_CLI_H */
