/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the parts of dropscope.ko.
 *
 * Each piece of state has one owner, and the files follow the execution
 * context their code runs in; Documentation/design.md maps them. Each
 * section below is one file's interface, under its name.
 *
 * A source of events (drops, TCP sessions, SMC) plugs into monitor.c with a
 * struct ds_source: monitor.c attaches and detaches it, folds it on every
 * interval and asks it for its part of each alert round. A consumer of
 * what the sources see (capture) plugs in with a struct ds_sink: told of
 * each round once it went out, and of the end of monitoring.
 */
#ifndef _DROPSCOPE_H
#define _DROPSCOPE_H

#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/if.h>
#include <linux/in6.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <asm/local64.h>

#include <uapi/linux/dropscope.h>

struct genl_info;
struct netlink_ext_ack;
struct sk_buff;

/*
 * ds_lock serialises netlink commands (taken in pre_doit), dumps, the
 * interval worker, module init and exit: everything but the probe.
 */
extern struct mutex ds_lock;
extern unsigned int ds_capacity;

/*
 * A probe's context is its own to make safe. Tracepoints called their
 * probes with preemption disabled up to 6.18; mainline's call them under
 * SRCU-fast with preemption enabled (migration disabled on PREEMPT_RT at
 * most). Every probe that touches this CPU's tables or data that a writer
 * retires with synchronize_rcu() does so between ds_probe_begin() and
 * ds_probe_end(): the CPU stays the same throughout, and since 4.20
 * synchronize_rcu() waits for every region with preemption disabled. A
 * probe whose every shared write is under a raw spinlock taken with
 * interrupts off (sessions.c's hooks, smc.c's listener hook) needs
 * nothing more. Where the caller disabled preemption already, the pair
 * costs an increment, a decrement and a test.
 */
#ifdef DS_PREEMPT_TEST
void ds_ptest_enter(void);
#else
static __always_inline void ds_ptest_enter(void)
{
}
#endif

static __always_inline void ds_probe_begin(void)
{
	/* the test build counts the kernel's own preemptible calls */
	ds_ptest_enter();
	preempt_disable_notrace();
}

static __always_inline void ds_probe_end(void)
{
	preempt_enable_notrace();
}

/*
 * This CPU's part of per-CPU data, in a probe. The test build (ptest.c)
 * counts every such access made preemptible, on any kernel that keeps a
 * preemption count, as CONFIG_DEBUG_PREEMPT would complain of it.
 */
#ifdef DS_PREEMPT_TEST
void ds_ptest_cpu_check(void);
#define ds_this_cpu_ptr(ptr)	({ ds_ptest_cpu_check(); this_cpu_ptr(ptr); })
#else
#define ds_this_cpu_ptr(ptr)	this_cpu_ptr(ptr)
#endif

/* The sizes given at load: module parameters from 1 to DS_PARAM_MAX. */
#define DS_PARAM_MAX	BIT(20)
extern const struct kernel_param_ops ds_param_count_ops;

/* ---- monitor.c: sources of events, running or stopped ---------------- */

struct ds_round;

/*
 * A source of events. Every callback runs under ds_lock, in process
 * context.
 *   attach: attach the hooks; counting starts from zero
 *   detach: detach them; no hook runs on any CPU once it returns
 *   fold:   fold the per-CPU counters into the source's own view
 *   alert:  put what changed since the last round into the round (or only
 *           settle it, when nobody listens: ds_round_muted())
 *   reset:  forget every total and statistic; @attached says whether the
 *           hooks are attached (then per-CPU state must be kept, and
 *           every source was folded right before)
 *   free:   module exit; no command can run any more
 * and, where a source needs them:
 *   init, exit: module load and unload, outside ds_lock: what the source
 *           keeps for the module's lifetime (ds_sources_init())
 *   size, fill: its state for its own GET command, in one nest of at most
 *           size() bytes; folded right before
 */
struct ds_source {
	const char *name;
	u32 part;		/* DROPSCOPE_PART_* */
	const char *absent;	/* why this kernel cannot run it, or NULL */
	int (*init)(void);
	void (*exit)(void);
	size_t (*size)(void);
	int (*fill)(struct sk_buff *msg);
	int (*attach)(struct netlink_ext_ack *extack);
	void (*detach)(void);
	void (*fold)(void);
	void (*alert)(struct ds_round *round);
	void (*reset)(bool attached);
	void (*free)(void);
};

/*
 * A consumer of the sources' events, driven by monitor.c under ds_lock:
 *   round:  a round went out: send what was buffered since the last one
 *   end:    monitoring stops (after its last round) or the module goes:
 *           send what is left, and end
 */
struct ds_sink {
	const char *name;
	void (*round)(void);
	void (*end)(void);
};

void ds_monitor_init(void);
int ds_sources_init(void);
void ds_sources_exit(void);
const struct ds_source *ds_source(u32 part);
void ds_monitor_exit(void);
void ds_monitor_free(void);
int ds_start(u32 parts, struct netlink_ext_ack *extack);
int ds_stop(struct netlink_ext_ack *extack);
void ds_reset(void);
void ds_fold_all(void);
bool ds_running(void);
u32 ds_running_parts(void);
/* The parts this kernel cannot run (struct ds_source's absent). */
u32 ds_parts_absent(void);
u32 ds_interval_ms(void);
u64 ds_epoch(void);
void ds_set_interval_ms(u32 ms);

/* ---- probe.c: the drop probe and its per-CPU tables ------------------- */

/*
 * One key of a per-CPU table and its count. A key is (location, reason),
 * plus those of the packet's fields some mask rule matches on: rk is
 * reason | ifindex << 32, pk is netns | l3 << 32 | l4 << 48 (l3 in network
 * byte order here), and DS_PK_RUN(id) when the drop is a run's (scope.c),
 * with its netns then. DS_PK_LATE marks a second count of a drop that is
 * counted as the rest's already, and which the socket UDP named after the
 * drop puts in a run (ds_probe_late()): the folder moves it. DS_PK_RUNNS
 * marks a late count whose netns the run added, which the rest's key of
 * the drop lacks.
 */
#define DS_PK_LATE	BIT_ULL(62)
#define DS_PK_RUNNS	BIT_ULL(61)
#define DS_PK_RUN_SHIFT	56
#define DS_PK_RUN(id)	((u64)(id) << DS_PK_RUN_SHIFT)
#define DS_PK_RUN_MASK	DS_PK_RUN(0x1f)
#define DS_PK_RUN_ID(pk) ((u32)(((pk) & DS_PK_RUN_MASK) >> DS_PK_RUN_SHIFT))

struct ds_slot {
	unsigned long loc;	/* 0: free; set once when claimed */
	u64 rk;
	u64 pk;
	local64_t count;	/* written by the owning CPU only */
};

/* Input interfaces below this have a bit in the device gate. */
#define DS_GATE_DEVS	4096

/* The packet fields a drop can be keyed by. */
enum {
	DS_F_IFINDEX,
	DS_F_NETNS,
	DS_F_L3,
	DS_F_L4,
	DS_F_COUNT
};

/*
 * What the drop path must read for the rules: the packet fields they match
 * on and, when every rule on packet fields names an input device, those
 * devices. A drop that came in on none of them matches no such rule, so it
 * is counted without its packet fields. rules.c derives it from the rules;
 * fields.c applies it (ds_filter_apply()).
 */
struct ds_filter {
	u32 fields;			/* BIT(DS_F_*) */
	bool devless;			/* some rule on them names no device */
	DECLARE_BITMAP(devs, DS_GATE_DEVS);	/* the devices named */
};

/*
 * What a rule matches a drop on: its location, its reason, and those of its
 * packet fields the rules use (0 for the others); l3 in host byte order.
 */
struct ds_key {
	unsigned long loc;
	u32 reason;
	u32 ifindex;
	u32 netns;
	u16 l3;
	u8 l4;
};

/*
 * A drop in the probe's slow path, as each part that judges it (stacks,
 * captures, sessions, the count) sees it: its key, whose packet fields
 * are read from the packet once, when a part first needs them
 * (ds_drop_key()), and the mask rules' verdict, taken once
 * (ds_drop_masked()).
 */
struct ds_drop {
	const struct sk_buff *skb;
	struct ds_key k;
	u32 have;		/* BIT(DS_F_*): the fields of k read so far */
	s8 masked;		/* the rules' verdict; -1: not taken yet */
};

/* The packet fields of k are 0 until they are read. */
static inline void ds_drop_init(struct ds_drop *d, const struct sk_buff *skb,
				unsigned long loc, u32 reason)
{
	d->skb = skb;
	d->k.loc = loc;
	d->k.reason = reason;
	d->k.ifindex = 0;
	d->k.netns = 0;
	d->k.l3 = 0;
	d->k.l4 = 0;
	d->have = 0;
	d->masked = -1;
}

/* fields.c: the packet fields in fields (BIT(DS_F_*)) of a drop, into k */
void ds_drop_fields(const struct sk_buff *skb, u32 fields, struct ds_key *k);

/* The drop's key with (at least) fields read: each read once a drop. */
static inline const struct ds_key *ds_drop_key(struct ds_drop *d, u32 fields)
{
	u32 need = fields & ~d->have;

	if (need) {
		ds_drop_fields(d->skb, need, &d->k);
		d->have |= need;
	}
	return &d->k;
}

/* Gated: there are rules on packet fields, and all of them name a device. */
static inline bool ds_filter_gated(const struct ds_filter *f)
{
	return f->fields && !f->devless;
}

int ds_probe_init(void);
void ds_probe_exit(void);
int ds_probe_attach(void);
void ds_probe_detach(void);
void ds_probe_clear(void);
u32 ds_probe_slots(void);
u32 ds_probe_used(unsigned int cpu);
const struct ds_slot *ds_probe_slot(unsigned int cpu, u32 j, u32 *index);
u64 ds_probe_overflow(unsigned int cpu);

/* ---- fields.c: a drop's packet fields, and what the drop path reads --- */

/*
 * On while rules use packet fields (ds_packet_fields), one per field, and
 * while all of those rules name a device (ds_gate_key: ds_gate holds them).
 */
DECLARE_STATIC_KEY_FALSE(ds_packet_fields);
extern struct static_key_false ds_field_keys[DS_F_COUNT];
DECLARE_STATIC_KEY_FALSE(ds_gate_key);
extern unsigned long ds_gate[BITS_TO_LONGS(DS_GATE_DEVS)];
bool ds_filter_apply(const struct ds_filter *f);
u32 ds_drop_netns(const struct sk_buff *skb);

/* ---- devices.c: the netns of live devices, by pointer, for the probe -- */

struct ds_dev {
	unsigned long dev;	/* 0: free; ~0: removed; published last */
	u32 inum;
	u32 tag;		/* its netns's run (scope.h) */
};

struct ds_devtab {
	struct rcu_head rcu;
	u32 mask;		/* slots - 1, a power of two less one */
	u32 shift;		/* 64 - log2(slots) */
	struct ds_dev e[];
};

extern struct ds_devtab __rcu *ds_devtab;

static inline u32 ds_dev_hash(const struct ds_devtab *t, unsigned long dev)
{
	return (u64)dev * GOLDEN_RATIO_64 >> t->shift;
}

int ds_devices_init(void);
void ds_devices_exit(void);

/* ---- sites.c: the folded view of the drop path ----------------------- */

/*
 * One drop site: the totals of one key merged across all CPUs. Owned by
 * sites.c; every field is protected by ds_lock.
 */
struct ds_site {
	unsigned long loc;
	u32 reason;
	u32 ifindex;		/* packet fields: 0 unless a rule uses them */
	u32 netns;
	u16 l3;
	u8 l4;
	u8 run;			/* the run whose drops these are; 0: none */
	bool masked;		/* the verdict of the rules of rules_gen */
	u32 rules_gen;
	int rule;		/* index of the deciding rule, or -1 */
	u64 total;		/* drops shown since start or reset */
	u64 masked_total;	/* drops hidden by rules */
	u64 alerted;		/* total when the last alert round went out */
	struct list_head dirty;	/* on the dirty list while total != alerted */
	struct hlist_node hnode;	/* in the key hash */
	char *symbol;		/* "sym+0x1c/0x80 [mod]", rendered once */
	char *reason_name;	/* the running kernel's name, or NULL */
};

/* The statistics of DROPSCOPE_A_STATS, filled by their owners. */
struct ds_stats {
	u64 events;		/* sites.c */
	u64 sites;
	u64 overflow;
	u64 folds;
	u64 alloc_fails;
	u64 shown;
	u64 masked;
	u64 rounds;		/* alert.c */
	u64 alerts_sent;
	u64 alerts_lost;
	u64 top_suppressed;
	u64 ratelimited;
};

extern const struct ds_source ds_drop_source;

int ds_sites_init(void);
void ds_sites_exit(void);
void ds_drops_fold(void);
void ds_drops_stats(struct ds_stats *st);
u32 ds_sites_count(void);
const struct ds_site *ds_site_at(u32 i);
/* One site nest; its delta in alerts, its masked total in dumps. */
int ds_site_put(struct sk_buff *skb, const struct ds_site *site, bool alert);
int ds_site_put_alert(struct sk_buff *skb, const void *site);
const u32 *ds_sites_generation(void);

/* ---- hw.c: hardware drops, devlink traps ------------------------------ */

#define DS_TRAP_DEVICE_LEN	64	/* "bus/dev" */
/* as drop_monitor keeps trap names, with their NUL */
#define DS_TRAP_NAME_LEN	(DROPSCOPE_TRAP_NAME_MAX + 1)

/*
 * One trap key merged across all CPUs: a devlink instance, a trap and the
 * port the packet came in on. Owned by hw.c; under ds_lock.
 */
struct ds_trap {
	u32 ifindex;		/* the input port's device, or 0 */
	u32 netns;		/* its netns inode */
	u8 type;		/* enum dropscope_trap_type */
	bool masked;		/* the verdict of the rules of rules_gen */
	u32 rules_gen;
	int rule;		/* the deciding rule, or -1 */
	u64 total;		/* reports shown since start or reset */
	u64 masked_total;	/* reports the rules hid */
	u64 alerted;		/* total when the last alert round went out */
	char device[DS_TRAP_DEVICE_LEN];	/* the devlink handle */
	char name[DS_TRAP_NAME_LEN];
	char group[DS_TRAP_NAME_LEN];
	char dev[IFNAMSIZ];	/* the input port's device, "" if none */
};

struct ds_trap_stats {
	u64 events;		/* reports counted, overflow included */
	u64 traps;		/* entries */
	u64 overflow;		/* reports that found a CPU's table full */
	u64 alloc_fails;	/* reports folded while no entry could be made */
};

extern unsigned int ds_hw_cap;
extern const struct ds_source ds_hw_source;

int ds_hw_init(void);
void ds_hw_exit(void);
void ds_hw_stats(struct ds_trap_stats *st);
u32 ds_hw_count(void);
const struct ds_trap *ds_trap_at(u32 i);
int ds_trap_put(struct sk_buff *skb, const struct ds_trap *t, bool alert);
const u32 *ds_hw_generation(void);

/* ---- devctrs.c: device drops, the devices' counters ------------------- */

/* One counter of one device that moved since start. Under ds_lock. */
struct ds_devctr {
	u32 ifindex;
	u32 netns;
	u8 counter;		/* enum dropscope_dev_counter */
	bool masked;		/* the verdict of the rules of rules_gen */
	u32 rules_gen;
	int rule;		/* the deciding rule, or -1 */
	u64 total;		/* counted and shown since start or reset */
	u64 masked_total;	/* counted and hidden by the rules */
	u64 alerted;		/* total when the last alert round went out */
	char dev[IFNAMSIZ];
};

extern const struct ds_source ds_dev_source;

void ds_devctrs_stats(u64 *ctrs, u64 *lost);
void ds_devctrs_unregister(struct net_device *dev);
u32 ds_devctrs_count(void);
const struct ds_devctr *ds_devctr_at(u32 i);
int ds_devctr_put(struct sk_buff *skb, const struct ds_devctr *e, bool alert);
const u32 *ds_devctrs_generation(void);

/* ---- qdisc.c: qdisc drops, qdisc:qdisc_drop ------------------------- */

/*
 * One (device, qdisc kind, handle, reason) merged across all CPUs. Owned
 * by qdisc.c; under ds_lock.
 */
struct ds_qdisc {
	u32 ifindex;		/* the device, or 0 */
	u32 netns;		/* its netns inode */
	u32 handle;
	u32 parent;		/* the first seen */
	u32 reason;		/* enum qdisc_drop_reason */
	bool masked;		/* the verdict of the rules of rules_gen */
	u32 rules_gen;
	int rule;		/* the deciding rule, or -1 */
	u64 total;		/* drops shown since start or reset */
	u64 masked_total;	/* drops the rules hid */
	u64 alerted;		/* total when the last alert round went out */
	char kind[IFNAMSIZ];
	char dev[IFNAMSIZ];	/* "" if none */
};

struct ds_qdisc_stats {
	u64 events;		/* drops counted, overflow included */
	u64 keys;		/* entries */
	u64 overflow;		/* drops that found a CPU's table full */
	u64 alloc_fails;	/* drops folded while no entry could be made */
};

extern unsigned int ds_qdiscs_cap;
extern const struct ds_source ds_qdisc_source;

int ds_qdiscs_init(void);
void ds_qdiscs_exit(void);
void ds_qdiscs_stats(struct ds_qdisc_stats *st);
u32 ds_qdiscs_count(void);
const struct ds_qdisc *ds_qdisc_at(u32 i);
int ds_qdisc_put(struct sk_buff *skb, const struct ds_qdisc *e, bool alert);
const u32 *ds_qdiscs_generation(void);
/* The name of a qdisc drop reason ("FLOW_LIMIT"), or NULL. */
const char *ds_qdisc_reason_name(u32 reason);

/* ---- rules.c: mask rules --------------------------------------------- */

/* A mask rule; a field is matched only if its bit is in match. */
struct ds_rule {
	u32 id;
	u8 mode;		/* enum dropscope_rule_mode */
	u32 match;		/* DS_M_* */
	unsigned long start, end;
	u32 reason, ifindex, netns;
	u16 l3;
	u8 l4;
	u32 smc;		/* an SMC fallback reason code */
	u8 layer;		/* enum dropscope_layer: what it matches */
	u8 counter;		/* enum dropscope_dev_counter */
	char trap[DS_TRAP_NAME_LEN];
	char group[DS_TRAP_NAME_LEN];
	char kind[IFNAMSIZ];	/* qdisc: a qdisc's kind */
	u64 hits;
};

#define DS_M_LOC	BIT(0)
#define DS_M_REASON	BIT(1)
#define DS_M_IFINDEX	BIT(2)
#define DS_M_NETNS	BIT(3)
#define DS_M_L3		BIT(4)
#define DS_M_L4		BIT(5)
#define DS_M_SMC	BIT(6)	/* alone: a rule on SMC fallbacks */
#define DS_M_LAYER	BIT(7)	/* the layer given */
#define DS_M_TRAP	BIT(8)	/* hw: a trap's name */
#define DS_M_GROUP	BIT(9)	/* hw: a trap group's name */
#define DS_M_COUNTER	BIT(10)	/* dev: a device counter */
#define DS_M_KIND	BIT(11)	/* qdisc: a qdisc's kind */
#define DS_M_PACKET	(DS_M_IFINDEX | DS_M_NETNS | DS_M_L3 | DS_M_L4)

/* The packet fields a rule matches on, as BIT(DS_F_*): DS_M_IFINDEX on. */
#define DS_M_TO_FIELDS(m)	(((m) & DS_M_PACKET) >> 2)

void ds_rules_judge(struct ds_site *site);
int ds_rule_validate(const struct ds_rule *r, struct genl_info *info);
bool ds_rule_matches_drop(const struct ds_rule *r, struct ds_drop *d);
int ds_rules_judge_smc(u32 code, bool *masked);
int ds_rules_judge_trap(const struct ds_trap *t, bool *masked);
int ds_rules_judge_devctr(const struct ds_devctr *e, bool *masked);
int ds_rules_judge_qdisc(const struct ds_qdisc *e, bool *masked);
/* The rules in effect, NULL while there is none (rules.c) */
struct ds_ruleset;
extern struct ds_ruleset __rcu *ds_rules_live;
bool ds_rules_judge_drop(struct ds_drop *d);

/*
 * The mask rules' verdict on a drop of the slow path, taken once, by the
 * first part that asks; with no rule in effect, no call.
 */
static inline bool ds_drop_masked(struct ds_drop *d)
{
	if (d->masked < 0)
		d->masked = rcu_access_pointer(ds_rules_live) &&
			    ds_rules_judge_drop(d);
	return d->masked;
}

u32 ds_rules_gen(void);
int ds_rules_init(void);
void ds_rules_exit(void);
void ds_rule_hit(int rule, u64 delta);
void ds_rules_zero_hits(void);
int ds_rule_add(struct ds_rule *rule, struct genl_info *info,
		void (*fold)(void));
int ds_rule_del(u32 id, void (*fold)(void));
void ds_rules_clear(void (*fold)(void));
void ds_rules_free(void);
u32 ds_rules_count(void);
const struct ds_rule *ds_rule_at(u32 i);
const u32 *ds_rules_generation(void);

/* ---- alert.c: alert rounds and alert control ------------------------- */

struct ds_alert_config {
	u32 threshold;		/* alert an item once its delta reaches it */
	u32 top;		/* at most this many items a round; 0: all */
	u32 ratelimit;		/* at most this many messages a second */
};

void ds_round_begin(struct ds_round *round);
void ds_round_end(struct ds_round *round);
bool ds_round_muted(const struct ds_round *round);
int ds_round_put_u64(struct ds_round *round, int attrtype, u64 value);
int ds_round_put(struct ds_round *round,
		 int (*put)(struct sk_buff *skb, const void *item),
		 const void *item);
void ds_round_lost(struct ds_round *round);
u32 ds_round_pick(struct ds_round *round, void **items, u32 n,
		  u64 (*delta)(const void *item), u32 *due);

/* The round being built; only alert.c looks inside. */
struct ds_round {
	bool muted;		/* nobody listens: settle, build nothing */
	u64 id;			/* 0 until its first message */
	struct sk_buff *skb;	/* the message being filled, or NULL */
	void *hdr;		/* its genetlink header */
};

void ds_alert_get_config(struct ds_alert_config *cfg);
void ds_alert_set_config(const u32 *threshold, const u32 *top,
			 const u32 *ratelimit);
void ds_alert_stats(struct ds_stats *st);
void ds_alert_reset(void);

/* ---- family.c: the generic netlink family, a leaf -------------------- */

struct genl_family;
extern struct genl_family ds_family;
int ds_family_init(void);
void ds_family_exit(void);
/* the headers of the messages sent unasked */
void *ds_family_alert_put(struct sk_buff *skb);
void *ds_family_capture_put(struct sk_buff *skb);
int ds_family_multicast(struct sk_buff *skb);
bool ds_family_has_listeners(void);

/* ---- netlink.c: the commands, called by nobody (family.c registers) -- */

/* ds_nl_ops[] and ds_nl_n_ops: in family.h, with genetlink's types */

/* ---- sessions.c: TCP sessions ---------------------------------------- */

extern unsigned int ds_sessions_cap;
extern unsigned int ds_closed_cap;
extern const struct ds_source ds_tcp_source;

/*
 * A session as netlink reports it: a copy, taken under the table lock,
 * live counters read from the socket then, or at close.
 */
struct ds_sess_info {
	u64 cookie;		/* the socket's sk_cookie, as ss -e shows it */
	u64 seq;		/* closed: its sequence number in the ring */
	u64 start_ns;		/* ktime_get_ns() at birth */
	u64 duration_ns;	/* to close, or to now while live */
	u64 bytes_acked;
	u64 bytes_received;
	u64 drops;
	u32 total_retrans;
	u32 resets_sent;
	u32 resets_received;
	u32 pid;		/* 0: no process context seen yet */
	u8 family;
	u8 state;
	bool closed;
	u8 run;			/* the run of its socket at birth; 0: none */
	bool found;		/* open before start, found by it */
	u8 smc_mode;		/* enum dropscope_smc_mode */
	u32 smc_reason;		/* with DROPSCOPE_SMC_MODE_FALLBACK */
	__be16 sport, dport;
	struct in6_addr saddr, daddr;	/* IPv4 in the first 4 bytes */
	char comm[16];
	/* live dumps: the transport state, as tcp_get_info() reads it */
	bool has_tcp;
	u32 rtt_us, rttvar_us;	/* srtt_us >> 3, mdev_us >> 2 */
	u32 snd_cwnd, snd_ssthresh, snd_wnd, rcv_wnd;
	u32 unacked, lost, retrans;	/* packets_out, lost_out, retrans_out */
	u64 delivery_rate;	/* bytes a second */
};

struct ds_sess_stats {
	u64 opened;		/* sessions that found room in the table */
	u64 closed;		/* of them, closed */
	u64 overflow;		/* sessions that found the table full */
	u64 unread;		/* closes overwritten in the ring unread */
	u64 stale;		/* entries whose socket was not theirs any more */
	u64 found;		/* of opened, open before start (found by it) */
	u64 events;		/* session events recorded */
	u64 events_lost;	/* of them, overwritten before a round */
	u64 live;
	u64 drops_masked;	/* drops of sessions the rules masked */
};

/*
 * The drop path's hand-off: on while sessions are tracked, so that a drop
 * without a socket costs the drop probe one no-op and one test. The
 * arguments after sk are the probe's own, in its registers.
 */
DECLARE_STATIC_KEY_FALSE(ds_sess_drops_key);

/*
 * ---- probe.c, scope.c: drops with a socket ------------------------------
 * ds_sock_key is on (a count) while something wants the drops that carry
 * a socket: sessions (ds_sess_drops_key), or runs (ds_scope_key).
 */
DECLARE_STATIC_KEY_FALSE(ds_sock_key);
DECLARE_STATIC_KEY_FALSE(ds_scope_key);
struct sock;
#ifndef DS_HAVE_KFREE_SKB_RX_SK
/* on while a run lasts on a kernel without rx_sk (scope.c) */
DECLARE_STATIC_KEY_FALSE(ds_late_key);
void ds_probe_late(const struct sock *sk);
#endif
struct net;
int ds_run_start(u64 cgid, u32 portid, struct net *net,
		 struct netlink_ext_ack *extack);
int ds_run_tag(u32 id, struct netlink_ext_ack *extack, u32 *tag);
int ds_run_stop(u32 id, u32 portid, struct net *net,
		struct netlink_ext_ack *extack);
u32 ds_runs_count(void);
u32 ds_netns_run(const struct net *net);
void ds_runs_unhold(void);
int ds_scope_init(void);
void ds_scope_exit(void);
void ds_scope_free(void);
struct sock;
void ds_sess_drop(const struct sock *sk, struct ds_drop *d);

int ds_sessions_init(void);
void ds_sessions_exit(void);
void ds_sessions_stats(struct ds_sess_stats *st);
/* Dumps: 0 and the next cursor, or -ENOENT at the end. Under ds_lock. */
int ds_sess_live_next(u32 *cursor, struct ds_sess_info *info);
int ds_sess_closed_next(u64 *cursor, struct ds_sess_info *info);
/* One session nest: a struct ds_sess_info (for ds_round_put() too). */
int ds_sess_put(struct sk_buff *skb, const void *info);
/* A session event (DROPSCOPE_A_SESS_EVENT), as the ring keeps it. */
struct ds_sess_event {
	u64 ns;
	u64 cookie;
	u32 pid;
	u32 segs;
	u8 kind;		/* enum dropscope_sess_event_kind */
	u8 family;
	u8 oldstate;
	u8 newstate;
	__be16 sport, dport;
	struct in6_addr saddr, daddr;
	char comm[16];
};

/*
 * The session events the socket portid of net wants (mask 0: none), from
 * DROPSCOPE_CMD_CONFIG_SET; the ones recorded, for CONFIG_GET. Under
 * ds_lock.
 */
struct net;
int ds_sess_events_set(const struct net *net, u32 portid, u32 mask,
		       struct netlink_ext_ack *extack);
u32 ds_sess_events_mask(void);

/* An SMC socket's TCP session (sk) learns its mode. */
void ds_sess_smc(const struct sock *sk, u8 mode, u32 reason);
/*
 * Another source's view of TCP listeners (SMC's, for the owners of its
 * servers): the state probe calls fn, in any context, for each TCP socket
 * that starts or stops listening. One watcher; under ds_lock. After
 * ds_tcp_unwatch_listen(), the caller waits with
 * tracepoint_synchronize_unregister().
 */
typedef void (*ds_listen_fn)(const struct sock *sk, int oldstate,
			     int newstate);
int ds_tcp_watch_listen(ds_listen_fn fn);
void ds_tcp_unwatch_listen(void);

/* ---- smc/: SMC, a source of its own (kmod/smc/smc.h) ---------------- */

extern const struct ds_source ds_smc_source;

/* ---- capture.c: dropped packets, filtered, to their capturing socket -- */

struct ds_cap;
struct nlattr;
DECLARE_STATIC_KEY_FALSE(ds_cap_key);
/* On while capture or stacks need every drop in the probe's slow path. */
DECLARE_STATIC_KEY_FALSE(ds_slow_key);
void ds_capture(struct ds_drop *d, u32 stack, const struct sock *sk,
		u32 run);
extern const struct ds_sink ds_capture_sink;
int ds_capture_start(struct nlattr **tb, const struct ds_rule *rule, u32 tag,
		     struct genl_info *info, u32 *id);
struct ds_cap *ds_capture_stop(u32 id, u32 portid,
			       struct netlink_ext_ack *extack);
int ds_capture_fill(struct sk_buff *msg, const void *cap);
void ds_capture_free(struct ds_cap *c);
int ds_capture_init(void);
void ds_capture_exit(void);

/* ---- stacks.c: the kernel stacks behind drops ------------------------- */

#define DS_STACK_DEPTH	DROPSCOPE_STACK_DEPTH

extern unsigned int ds_stacks_cap;
DECLARE_STATIC_KEY_FALSE(ds_stacks_key);
/* A stacks rule on a site alone: the probe tests the range itself. */
DECLARE_STATIC_KEY_FALSE(ds_stacks_site_key);
extern unsigned long ds_stacks_start, ds_stacks_len;

struct ds_stacks_stats {
	u64 stacks;		/* distinct stacks folded */
	u64 lost;		/* drops whose stack found no room at all */
	u64 siteless;		/* drops whose stack did not reach the site */
	u64 walked;		/* drops whose stack the unwinder walked */
};

/* In the probe's slow path: the stack's id, or 0 (not taken, or lost). */
u32 ds_stacks_drop(struct ds_drop *drop);
/*
 * In the probe's slow path, called by the function whose return address
 * is ra: the drop's frames from its site outward, at most DS_STACK_DEPTH,
 * and the stack's id as ds_stacks_drop() gives it; 0 frames when the
 * unwinder did not reach the site.
 */
u32 ds_stacks_frames(unsigned long loc, u32 reason, unsigned long ra,
		     u64 *frames, u32 *id);
int ds_stacks_set(bool on, const struct ds_rule *r,
		  struct netlink_ext_ack *extack);
bool ds_stacks_on(const struct ds_rule **r);
void ds_stacks_clear(void);
void ds_stacks_fold(void);
void ds_stacks_reset(bool attached);
void ds_stacks_stats(struct ds_stacks_stats *s);
const u32 *ds_stacks_generation(void);
u32 ds_stacks_count(void);
int ds_stack_put(struct sk_buff *skb, u32 i);
void ds_stacks_exit(void);

/* ---- reasons.c: the running kernel's drop reason names --------------- */

const char *ds_reason_name(u32 reason, char *buf, size_t len);
int ds_reason_next(u32 *cursor, u32 *id, char *name, size_t len);

/*
 * ---- the preemptible-probe test (ptest.c), DS_PREEMPT_TEST builds only:
 * each probe, called as a tracepoint would call it, from the caller's
 * context as it is.
 */
#ifdef DS_PREEMPT_TEST
struct sock;
void ds_ptest_drop(struct sk_buff *skb, void *location);
void ds_ptest_state(struct sock *sk, int oldstate, int newstate);
void ds_ptest_reset(struct sock *sk);
void ds_ptest_smc(struct sock *sk, int reason);
void ds_ptest_init(void);
void ds_ptest_exit(void);
#endif

#endif /* _DROPSCOPE_H */
