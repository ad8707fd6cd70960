/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the parts of dropscope.ko.
 */
#ifndef _DROPSCOPE_H
#define _DROPSCOPE_H

#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <uapi/linux/dropscope.h>

/*
 * One drop site: the totals of one (location, reason) key merged across
 * all CPUs. Owned by the folder; every field is protected by ds_lock.
 */
struct ds_site {
	unsigned long loc;
	u32 reason;
	u32 ifindex;		/* packet fields: 0 unless a rule uses them */
	u32 netns;
	u16 l3;
	u8 l4;
	bool masked;		/* the verdict of the rules of rules_gen */
	u32 rules_gen;
	int rule;		/* index of the deciding rule, or -1 */
	u64 total;		/* drops shown since start or reset */
	u64 masked_total;	/* drops hidden by rules */
	u64 alerted;		/* total when the last alert round went out */
	struct list_head dirty;	/* on ds_state.dirty while total != alerted */
	struct hlist_node hnode;	/* in the key hash of sites.c */
	char *symbol;		/* "sym+0x1c/0x80 [mod]", rendered once */
	char *reason_name;	/* the running kernel's name, or NULL */
};

/* A mask rule; a field is matched only if its bit is in match. */
struct ds_rule {
	u32 id;
	u8 mode;		/* enum dropscope_rule_mode */
	u32 match;		/* DS_M_* */
	unsigned long start, end;
	u32 reason, ifindex, netns;
	u16 l3;
	u8 l4;
	u64 hits;
};

#define DS_M_LOC	BIT(0)
#define DS_M_REASON	BIT(1)
#define DS_M_IFINDEX	BIT(2)
#define DS_M_NETNS	BIT(3)
#define DS_M_L3		BIT(4)
#define DS_M_L4		BIT(5)
#define DS_M_PACKET	(DS_M_IFINDEX | DS_M_NETNS | DS_M_L3 | DS_M_L4)

/* The packet fields a drop can be keyed by: DS_M_IFINDEX >> 2 on. */
enum {
	DS_F_IFINDEX,
	DS_F_NETNS,
	DS_F_L3,
	DS_F_L4,
	DS_F_COUNT
};

#define DS_M_TO_FIELDS(m)	(((m) & DS_M_PACKET) >> 2)

/* Input interfaces below this have a bit in the device gate. */
#define DS_GATE_DEVS	4096

/*
 * What the drop path must read for the rules: the packet fields they match
 * on and, when every rule on packet fields names an input device, those
 * devices. A drop that came in on none of them matches no such rule, so it
 * is counted without its packet fields.
 */
struct ds_filter {
	u32 fields;			/* DS_F_* bits */
	bool devless;			/* some rule on them names no device */
	DECLARE_BITMAP(devs, DS_GATE_DEVS);	/* the devices named */
};

/* Gated: there are rules on packet fields, and all of them name a device. */
static inline bool ds_filter_gated(const struct ds_filter *f)
{
	return f->fields && !f->devless;
}

/*
 * Global state. ds_lock serialises netlink commands (taken in pre_doit),
 * dumps, the alert worker, module init and exit.
 */
struct ds_state {
	bool running;
	bool exiting;		/* the module is being unloaded */
	u32 interval_ms;
	u32 generation;		/* bumped whenever sites are freed */

	/* the folded view, see sites.c */
	struct ds_site **sites;	/* array of nsites pointers */
	u32 nsites, sites_cap;
	struct list_head dirty;	/* sites changed since the last round */
	u64 events;		/* drops folded: site totals plus overflow */
	u64 overflow;		/* drops that did not fit a per-CPU table */
	u64 overflow_alerted;	/* overflow at the last alert round */
	u64 alloc_fails;	/* drops folded while no site could be allocated */
	u64 shown;		/* drops not masked */
	u64 masked;		/* drops masked: by a MASK rule or no ONLY rule */

	/* mask rules, see rules.c */
	struct ds_rule *rules;	/* DROPSCOPE_MAX_RULES, nrules in use */
	u32 nrules, nonly;
	u32 rules_gen;		/* bumped on every change */
	u32 next_rule_id;

	/* alert control */
	u32 threshold, top, ratelimit;
	u64 top_suppressed;
	u64 ratelimited;
	unsigned long rl_window;	/* jiffies the ratelimit second began */
	u32 rl_sent;

	/* alerts, see alert.c */
	u64 rounds;
	u64 alerts_sent;
	u64 alerts_lost;
	u64 folds;

	struct delayed_work work;
};

extern struct ds_state ds;
extern struct mutex ds_lock;
extern unsigned int ds_capacity;

/* table.c: the per-CPU tables, the tracepoint probe and the folder */
int ds_table_init(void);
void ds_table_exit(void);
int ds_probe_attach(void);
void ds_probe_detach(void);
void ds_table_clear(void);

void ds_fold(void);
void ds_table_forget_sites(void);
bool ds_table_set_filter(const struct ds_filter *f);

/* devices.c: the netns of live devices, by pointer, for the probe */
struct ds_dev {
	unsigned long dev;	/* 0: free; ~0: removed; published last */
	u32 inum;
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

/* sites.c: the folded view */
struct ds_site *ds_site_get(unsigned long loc, u64 rk, u64 pk);
void ds_site_add(struct ds_site *site, u64 delta);
void ds_sites_free(void);

/* rules.c: mask rules */
struct genl_info;
void ds_rules_judge(struct ds_site *site);
int ds_rule_add(struct ds_rule *rule, struct genl_info *info);
int ds_rule_del(u32 id);
void ds_rules_clear(void);
void ds_rules_free(void);

/* reasons.c: the running kernel's drop reason names */
const char *ds_reason_name(u32 reason, char *buf, size_t len);
int ds_reason_next(u32 *cursor, u32 *id, char *name, size_t len);

/* alert.c: the alert rounds */
void ds_alert_round(void);
void ds_alert_schedule(void);

/* netlink.c: the generic netlink family */
struct sk_buff;
int ds_nl_init(void);
void ds_nl_exit(void);
int ds_nl_put_site(struct sk_buff *skb, const struct ds_site *site,
		   bool alert);
void *ds_nl_alert_put(struct sk_buff *skb);
int ds_nl_alert_multicast(struct sk_buff *skb);
bool ds_nl_has_listeners(void);

/* monitor.c: start, stop, reset and the interval worker */
void ds_monitor_init(void);
void ds_monitor_exit(void);
void ds_monitor_free(void);
int ds_start(void);
void ds_stop(void);
void ds_reset(void);

#endif /* _DROPSCOPE_H */
