// SPDX-License-Identifier: GPL-2.0
/*
 * SMC: the tracepoints of smc.ko, counted per CPU.
 *
 * smc.ko may load after dropscope, or never, and may go while dropscope
 * watches. The part therefore attaches to a tracepoint module notifier,
 * never to smc.ko itself: the notifier hooks the four SMC tracepoints when
 * smc.ko comes (or at once, if it is there already) and unhooks them when
 * it goes. dropscope holds no reference on smc.ko.
 *
 * struct smc_sock is private to net/smc. The probes take only what the
 * tracepoint arguments give and the socket itself: its first member is the
 * struct sock of the SMC socket, and sk_socket tells the two sides of a
 * fallback apart. The server side falls back in smc_listen_work() on a
 * socket nobody has accepted yet (no struct socket), the client side on
 * the socket of the process that connected, as smc_stat_fallback() counts
 * them. Lengths are the probes' own arguments.
 *
 * With SMC built into the kernel, its tracepoints are the kernel's own:
 * the part hooks them when it attaches.
 *
 * Contexts: the probes run in process context and in softirq (smcr_link_
 * down), preemption off; they take no lock and write only this CPU's
 * counters. The notifier runs under tracepoint_module_list_mutex and
 * takes ds_smc_tp_lock only; everything else runs under ds_lock.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include <uapi/linux/dropscope.h>

#include "dropscope.h"

/*
 * Two tables per CPU, of keys and counts. Fallbacks are counted under
 * (reason, side), and once more under (reason, side, owner). The kernel
 * knows some forty fallback reasons (SMC_CLC_DECL_*): a fallback whose
 * (reason, side) finds its table full is counted in overflow, never lost;
 * one whose owner finds no room is still counted by reason, and in
 * owners_overflow.
 */
#define DS_SMC_SLOTS_SHIFT	6
#define DS_SMC_SLOTS	BIT(DS_SMC_SLOTS_SHIFT)
/* The folded tables: every CPU's keys, which may differ. */
#define DS_SMC_FOLDED	(2 * DS_SMC_SLOTS)

/*
 * A key is never 0: bit 63 is set in every one. Bits 0-31 are the reason
 * code, 32-53 the owner's TGID (below PID_MAX_LIMIT, 2^22) in the owner
 * table, 62 the side.
 */
#define DS_SMC_KEY(code, side, tgid)					\
	(BIT_ULL(63) | (u64)(side) << 62 | (u64)(tgid) << 32 | (u32)(code))
#define DS_SMC_KEY_CODE(key)	((u32)(key))
#define DS_SMC_KEY_SIDE(key)	((u8)((key) >> 62) & 1)
#define DS_SMC_KEY_TGID(key)	((u32)((key) >> 32) & (BIT(22) - 1))

/* The counters of a CPU besides its fallbacks. */
enum {
	DS_SMC_TX_BYTES,
	DS_SMC_TX_EVENTS,
	DS_SMC_RX_BYTES,
	DS_SMC_RX_EVENTS,
	DS_SMC_LINK_DOWNS,
	DS_SMC_OVERFLOW,	/* fallbacks whose (reason, side) found no room */
	DS_SMC_OWNERS_OVERFLOW,	/* fallbacks whose owner found no room */
	DS_SMC_NCTR
};

struct ds_smc_slot {
	u64 key;		/* 0: free; claimed once by the owning CPU */
	local64_t count;
	char comm[TASK_COMM_LEN];	/* the owner table's: set at the claim */
};

/* One CPU's counters, written by that CPU only. */
struct ds_smc_cpu {
	local64_t ctr[DS_SMC_NCTR];
	struct ds_smc_slot fb[DS_SMC_SLOTS];	/* (reason, side) */
	struct ds_smc_slot own[DS_SMC_SLOTS];	/* (reason, side, owner) */
};

/*
 * A key merged across CPUs; under ds_lock. What each fold adds is judged
 * by the mask rules in force then, as a drop site's is.
 */
struct ds_smc_fb {
	u64 key;
	u64 sum;		/* the per-CPU counts, at this fold */
	u64 folded;		/* sum at the last fold */
	u64 shown;		/* since the last reset: not masked */
	u64 masked;		/* since the last reset: masked */
	u64 alerted;		/* shown at the last alert round */
	u32 rules_gen;		/* the rules of the verdict */
	int rule;		/* the deciding rule, or -1 */
	bool is_masked;
	char comm[TASK_COMM_LEN];	/* owners: the owner's */
};

/* The folded view of one per-CPU table. */
struct ds_smc_folded {
	u32 n;
	struct ds_smc_fb e[DS_SMC_FOLDED];
};

static struct {
	struct ds_smc_cpu __percpu *pc;
	bool attached;		/* the notifier is registered */
	u32 hooked;		/* SMC tracepoints hooked (the notifier's) */
	u64 sum[DS_SMC_NCTR];	/* the per-CPU counters, at the last fold */
	u64 base[DS_SMC_NCTR];
	u64 alerted_link_downs;
	struct ds_smc_folded fb;	/* by (reason, side) */
	struct ds_smc_folded own;	/* by (reason, side, owner) */
} smc;

/* ---- the probes: any context, this CPU only ---------------------------- */

static __always_inline void ds_smc_add(int i, u64 n)
{
	local64_add(n, &this_cpu_ptr(smc.pc)->ctr[i]);
}

/*
 * The slot of key in table t of this CPU, claimed if free, or NULL when
 * the table is full; *fresh is set when this call claimed it.
 */
static __always_inline struct ds_smc_slot *
ds_smc_slot(struct ds_smc_slot __percpu *t, u64 key, bool *fresh)
{
	struct ds_smc_slot *mine = this_cpu_ptr(t);
	u32 i = hash_64(key, DS_SMC_SLOTS_SHIFT), n;
	u64 k;

	for (n = 0; n < DS_SMC_SLOTS; n++, i = (i + 1) % DS_SMC_SLOTS) {
		k = READ_ONCE(mine[i].key);
		if (!k) {
			/* a probe that interrupts this one may claim it first */
			k = this_cpu_cmpxchg(t[i].key, 0, key);
			*fresh = !k;
			if (!k)
				return &mine[i];
		}
		if (k == key)
			return &mine[i];
	}
	return NULL;
}

/*
 * The SMC socket's struct sock is the first member of struct smc_sock.
 * The owner is the process the probe runs for: the one that connects, or
 * that set an option SMC cannot do. On the server side, and for a
 * non-blocking connect, SMC falls back in a kernel worker: owner 0.
 */
static void ds_smc_fallback_probe(void *data, const struct sock *sk,
				  int fallback_rsn)
{
	struct ds_smc_cpu __percpu *pc = smc.pc;
	u8 side = READ_ONCE(sk->sk_socket) ? DROPSCOPE_SMC_CLIENT :
					     DROPSCOPE_SMC_SERVER;
	bool user = in_task() && !(current->flags & PF_KTHREAD);
	u32 tgid = user ? task_tgid_nr(current) : 0;
	struct ds_smc_slot *s;
	bool fresh = false;

	s = ds_smc_slot(pc->fb, DS_SMC_KEY(fallback_rsn, side, 0), &fresh);
	if (s)
		local64_inc(&s->count);
	else
		local64_inc(this_cpu_ptr(&pc->ctr[DS_SMC_OVERFLOW]));
	fresh = false;
	s = ds_smc_slot(pc->own, DS_SMC_KEY(fallback_rsn, side, tgid), &fresh);
	if (!s) {
		local64_inc(this_cpu_ptr(&pc->ctr[DS_SMC_OWNERS_OVERFLOW]));
		return;
	}
	/* comm is NUL-padded to its end: a copy is a string */
	if (fresh && user)
		memcpy(s->comm, current->comm, sizeof(s->comm));
	local64_inc(&s->count);
}

static void ds_smc_tx_probe(void *data, const struct sock *sk, size_t len)
{
	ds_smc_add(DS_SMC_TX_BYTES, len);
	ds_smc_add(DS_SMC_TX_EVENTS, 1);
}

static void ds_smc_rx_probe(void *data, const struct sock *sk, size_t len)
{
	ds_smc_add(DS_SMC_RX_BYTES, len);
	ds_smc_add(DS_SMC_RX_EVENTS, 1);
}

static void ds_smc_link_down_probe(void *data, const void *lnk,
				   void *location)
{
	ds_smc_add(DS_SMC_LINK_DOWNS, 1);
}

/* ---- the notifier: under tracepoint_module_list_mutex ------------------ */

static struct ds_smc_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;	/* hooked, while smc.ko is there */
} ds_smc_tps[] = {
	{ "smc_switch_to_fallback", ds_smc_fallback_probe },
	{ "smc_tx_sendmsg", ds_smc_tx_probe },
	{ "smc_rx_recvmsg", ds_smc_rx_probe },
	{ "smcr_link_down", ds_smc_link_down_probe },
};

/*
 * ds_smc_tps[].tp and smc.hooked: the notifier (smc.ko coming or going)
 * and the part's attach and detach (SMC built into the kernel) change
 * them. Taken inside tracepoint_module_list_mutex, never around it.
 */
static DEFINE_MUTEX(ds_smc_tp_lock);

/* Hook tp if it is one of the SMC tracepoints and not hooked yet. */
static void ds_smc_hook_tp(struct tracepoint *tp, void *priv)
{
	size_t j;

	lockdep_assert_held(&ds_smc_tp_lock);
	for (j = 0; j < ARRAY_SIZE(ds_smc_tps); j++) {
		if (ds_smc_tps[j].tp || strcmp(tp->name, ds_smc_tps[j].name))
			continue;
		if (tracepoint_probe_register(tp, ds_smc_tps[j].probe, NULL)) {
			pr_warn("cannot attach to smc:%s\n", tp->name);
			continue;
		}
		ds_smc_tps[j].tp = tp;
		WRITE_ONCE(smc.hooked, smc.hooked + 1);
	}
}

static void ds_smc_hook(struct module *mod)
{
	tracepoint_ptr_t *p = mod->tracepoints_ptrs;
	unsigned int i;

	mutex_lock(&ds_smc_tp_lock);
	for (i = 0; i < mod->num_tracepoints; i++)
		ds_smc_hook_tp(tracepoint_ptr_deref(&p[i]), NULL);
	mutex_unlock(&ds_smc_tp_lock);
}

static void ds_smc_unhook(void)
{
	size_t j;

	mutex_lock(&ds_smc_tp_lock);
	for (j = 0; j < ARRAY_SIZE(ds_smc_tps); j++) {
		if (!ds_smc_tps[j].tp)
			continue;
		tracepoint_probe_unregister(ds_smc_tps[j].tp,
					    ds_smc_tps[j].probe, NULL);
		ds_smc_tps[j].tp = NULL;
	}
	WRITE_ONCE(smc.hooked, 0);
	mutex_unlock(&ds_smc_tp_lock);
}

/*
 * COMING: smc.ko is loading (its init has not run yet), or it was there
 * when the part attached. GOING: it is going (its exit has run: no SMC
 * code runs any more), or the part detaches.
 */
static int ds_smc_notify(struct notifier_block *nb, unsigned long val,
			 void *data)
{
	struct tp_module *tp_mod = data;

	if (strcmp(module_name(tp_mod->mod), "smc"))
		return NOTIFY_DONE;
	if (val == MODULE_STATE_COMING)
		ds_smc_hook(tp_mod->mod);
	else if (val == MODULE_STATE_GOING)
		ds_smc_unhook();
	return NOTIFY_OK;
}

static struct notifier_block ds_smc_nb = {
	.notifier_call = ds_smc_notify,
};

/* ---- the source: under ds_lock, process context ------------------------ */

static void ds_smc_clear(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(smc.pc, cpu), 0, sizeof(struct ds_smc_cpu));
	memset(smc.sum, 0, sizeof(smc.sum));
	memset(smc.base, 0, sizeof(smc.base));
	smc.alerted_link_downs = 0;
	smc.fb.n = 0;
	smc.own.n = 0;
}

static int ds_smc_attach(struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&ds_lock);
	if (smc.attached)
		return 0;
	/* SMC built into the kernel: its tracepoints are the kernel's */
	mutex_lock(&ds_smc_tp_lock);
	for_each_kernel_tracepoint(ds_smc_hook_tp, NULL);
	mutex_unlock(&ds_smc_tp_lock);
	/* hooks smc.ko now if it is there, calling ds_smc_notify() */
	err = register_tracepoint_module_notifier(&ds_smc_nb);
	if (err) {
		ds_smc_unhook();
		tracepoint_synchronize_unregister();
		NL_SET_ERR_MSG(extack, "cannot watch for smc.ko");
		return err;
	}
	smc.attached = true;
	return 0;
}

static void ds_smc_detach(void)
{
	lockdep_assert_held(&ds_lock);
	if (!smc.attached)
		return;
	/* unhooks smc.ko if it is there, calling ds_smc_notify() */
	unregister_tracepoint_module_notifier(&ds_smc_nb);
	/* and SMC built in */
	ds_smc_unhook();
	/* no probe runs on any CPU once this returns */
	tracepoint_synchronize_unregister();
	smc.attached = false;
}

static struct ds_smc_fb *ds_smc_folded_get(struct ds_smc_folded *f, u64 key)
{
	u32 i;

	for (i = 0; i < f->n; i++)
		if (f->e[i].key == key)
			return &f->e[i];
	if (f->n == DS_SMC_FOLDED)
		return NULL;
	memset(&f->e[f->n], 0, sizeof(f->e[0]));
	f->e[f->n].key = key;
	/* judged at the first fold */
	f->e[f->n].rules_gen = ds_rules_gen() - 1;
	return &f->e[f->n++];
}

/*
 * One CPU's table t into f; the count of a key f has no room for goes to
 * the counter lost.
 */
static void ds_smc_fold_table(struct ds_smc_folded *f,
			      const struct ds_smc_slot *t, int lost)
{
	struct ds_smc_fb *e;
	u64 key;
	u32 i;

	for (i = 0; i < DS_SMC_SLOTS; i++) {
		key = READ_ONCE(t[i].key);
		if (!key)
			continue;
		e = ds_smc_folded_get(f, key);
		if (!e) {
			smc.sum[lost] += local64_read(&t[i].count);
			continue;
		}
		e->sum += local64_read(&t[i].count);
		/* set right after the claim: taken again until it is */
		if (!e->comm[0])
			memcpy(e->comm, t[i].comm, sizeof(e->comm));
	}
}

/*
 * What the keys of f gained since the last fold, shown or masked by the
 * rules in force; hits: the deciding rules count it (the table by reason
 * only, so that no fallback is a hit twice).
 */
static void ds_smc_judge(struct ds_smc_folded *f, bool hits)
{
	struct ds_smc_fb *e;
	u64 delta;
	u32 i;

	for (i = 0; i < f->n; i++) {
		e = &f->e[i];
		if (e->rules_gen != ds_rules_gen()) {
			e->rules_gen = ds_rules_gen();
			e->rule = ds_rules_judge_smc(DS_SMC_KEY_CODE(e->key),
						     &e->is_masked);
		}
		delta = e->sum - e->folded;
		e->folded = e->sum;
		if (e->is_masked)
			e->masked += delta;
		else
			e->shown += delta;
		if (hits)
			ds_rule_hit(e->rule, delta);
	}
}

/* Every counter only grows while the part runs, so a fold is a sum. */
static void ds_smc_fold(void)
{
	struct ds_smc_cpu *c;
	unsigned int cpu;
	u32 i;

	lockdep_assert_held(&ds_lock);
	memset(smc.sum, 0, sizeof(smc.sum));
	for (i = 0; i < smc.fb.n; i++)
		smc.fb.e[i].sum = 0;
	for (i = 0; i < smc.own.n; i++)
		smc.own.e[i].sum = 0;
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(smc.pc, cpu);
		for (i = 0; i < DS_SMC_NCTR; i++)
			smc.sum[i] += local64_read(&c->ctr[i]);
		ds_smc_fold_table(&smc.fb, c->fb, DS_SMC_OVERFLOW);
		ds_smc_fold_table(&smc.own, c->own, DS_SMC_OWNERS_OVERFLOW);
	}
	for (i = 0; i < smc.own.n; i++)
		smc.own.e[i].comm[TASK_COMM_LEN - 1] = '\0';
	ds_smc_judge(&smc.fb, true);
	ds_smc_judge(&smc.own, false);
}

/*
 * One DROPSCOPE_A_SMC_FALLBACK (type) or DROPSCOPE_A_SMC_OWNER nest; the
 * delta in alerts. Its size is ds_smc_fb_size().
 */
static int ds_smc_put_fb(struct sk_buff *skb, int type,
			 const struct ds_smc_fb *fb, bool alert)
{
	bool owner = type == DROPSCOPE_A_SMC_OWNER;
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, DROPSCOPE_SMC_FB_A_CODE, DS_SMC_KEY_CODE(fb->key)) ||
	    nla_put_u8(skb, DROPSCOPE_SMC_FB_A_SIDE, DS_SMC_KEY_SIDE(fb->key)) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_SMC_FB_A_TOTAL, fb->shown,
			      DROPSCOPE_SMC_FB_A_PAD) ||
	    (alert && nla_put_u64_64bit(skb, DROPSCOPE_SMC_FB_A_DELTA,
					fb->shown - fb->alerted,
					DROPSCOPE_SMC_FB_A_PAD)) ||
	    (!alert && nla_put_u64_64bit(skb, DROPSCOPE_SMC_FB_A_MASKED,
					 fb->masked, DROPSCOPE_SMC_FB_A_PAD)) ||
	    (owner && (nla_put_u32(skb, DROPSCOPE_SMC_FB_A_PID,
				   DS_SMC_KEY_TGID(fb->key)) ||
		       nla_put_string(skb, DROPSCOPE_SMC_FB_A_COMM, fb->comm)))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static size_t ds_smc_fb_size(bool owner)
{
	return nla_total_size(0) +		/* the nest */
		nla_total_size(sizeof(u32)) +	/* CODE */
		nla_total_size(sizeof(u8)) +	/* SIDE */
		nla_total_size_64bit(sizeof(u64)) +	/* TOTAL */
		nla_total_size_64bit(sizeof(u64)) +	/* DELTA or MASKED */
		(owner ? nla_total_size(sizeof(u32)) +	/* PID */
		 nla_total_size(TASK_COMM_LEN) : 0);	/* COMM */
}

static int ds_smc_put_alert_fb(struct sk_buff *skb, const void *fb)
{
	return ds_smc_put_fb(skb, DROPSCOPE_A_SMC_FALLBACK, fb, true);
}

static int ds_smc_put_alert_owner(struct sk_buff *skb, const void *fb)
{
	return ds_smc_put_fb(skb, DROPSCOPE_A_SMC_OWNER, fb, true);
}

static void ds_smc_alert_table(struct ds_round *round, struct ds_smc_folded *f,
			       int (*put)(struct sk_buff *skb, const void *fb))
{
	u32 i;

	/* masked fallbacks are never alerted */
	for (i = 0; i < f->n; i++) {
		if (f->e[i].shown == f->e[i].alerted)
			continue;
		ds_round_put(round, put, &f->e[i]);
		f->e[i].alerted = f->e[i].shown;
	}
}

/* Fallbacks, by reason and by owner, and link-downs since the last round. */
static void ds_smc_alert(struct ds_round *round)
{
	u64 downs = smc.sum[DS_SMC_LINK_DOWNS];

	lockdep_assert_held(&ds_lock);
	ds_smc_alert_table(round, &smc.fb, ds_smc_put_alert_fb);
	ds_smc_alert_table(round, &smc.own, ds_smc_put_alert_owner);
	if (downs != smc.alerted_link_downs) {
		ds_round_put_u64(round, DROPSCOPE_A_SMC_LINK_DOWNS_DELTA,
				 downs - smc.alerted_link_downs);
		smc.alerted_link_downs = downs;
	}
}

static void ds_smc_rebase(struct ds_smc_folded *f)
{
	u32 i;

	for (i = 0; i < f->n; i++) {
		f->e[i].shown = 0;
		f->e[i].masked = 0;
		f->e[i].alerted = 0;
	}
}

/*
 * Forget every total; the per-CPU counters count on while attached, from
 * the fold ds_reset() made right before.
 */
static void ds_smc_reset(bool attached)
{
	lockdep_assert_held(&ds_lock);
	if (!attached) {
		ds_smc_clear();
		return;
	}
	memcpy(smc.base, smc.sum, sizeof(smc.base));
	smc.alerted_link_downs = smc.sum[DS_SMC_LINK_DOWNS];
	ds_smc_rebase(&smc.fb);
	ds_smc_rebase(&smc.own);
}

static void ds_smc_free(void)
{
}

const struct ds_source ds_smc_source = {
	.name = "smc",
	.part = DROPSCOPE_PART_SMC,
	.attach = ds_smc_attach,
	.detach = ds_smc_detach,
	.fold = ds_smc_fold,
	.alert = ds_smc_alert,
	.reset = ds_smc_reset,
	.free = ds_smc_free,
};

/* ---- the SMC_GET reply: under ds_lock, folded ------------------------- */

static const int ds_smc_attr[DS_SMC_NCTR] = {
	[DS_SMC_TX_BYTES] = DROPSCOPE_SMC_A_TX_BYTES,
	[DS_SMC_TX_EVENTS] = DROPSCOPE_SMC_A_TX_EVENTS,
	[DS_SMC_RX_BYTES] = DROPSCOPE_SMC_A_RX_BYTES,
	[DS_SMC_RX_EVENTS] = DROPSCOPE_SMC_A_RX_EVENTS,
	[DS_SMC_LINK_DOWNS] = DROPSCOPE_SMC_A_LINK_DOWNS,
	[DS_SMC_OVERFLOW] = DROPSCOPE_SMC_A_OVERFLOW,
	[DS_SMC_OWNERS_OVERFLOW] = DROPSCOPE_SMC_A_OWNERS_OVERFLOW,
};

/* The attributes of ds_smc_fill(), at most. */
size_t ds_smc_size(void)
{
	lockdep_assert_held(&ds_lock);
	return nla_total_size(0) +			/* DROPSCOPE_A_SMC */
		nla_total_size(sizeof(u8)) +		/* HOOKED */
		2 * nla_total_size_64bit(sizeof(u64)) +	/* FALLBACKS, _MASKED */
		DS_SMC_NCTR * nla_total_size_64bit(sizeof(u64)) +
		smc.fb.n * ds_smc_fb_size(false) +
		smc.own.n * ds_smc_fb_size(true);
}

/* The nests of the keys f counted since the last reset. */
static int ds_smc_fill_table(struct sk_buff *msg, int type,
			     const struct ds_smc_folded *f)
{
	u32 i;

	for (i = 0; i < f->n; i++)
		if ((f->e[i].shown || f->e[i].masked) &&
		    ds_smc_put_fb(msg, type, &f->e[i], false))
			return -EMSGSIZE;
	return 0;
}

int ds_smc_fill(struct sk_buff *msg)
{
	struct nlattr *nest;
	u64 fallbacks = 0, masked = 0;
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < smc.fb.n; i++) {
		fallbacks += smc.fb.e[i].shown;
		masked += smc.fb.e[i].masked;
	}
	nest = nla_nest_start(msg, DROPSCOPE_A_SMC);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(msg, DROPSCOPE_SMC_A_HOOKED, READ_ONCE(smc.hooked)) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_SMC_A_FALLBACKS, fallbacks,
			      DROPSCOPE_SMC_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_SMC_A_FALLBACKS_MASKED, masked,
			      DROPSCOPE_SMC_A_PAD))
		goto err;
	for (i = 0; i < DS_SMC_NCTR; i++)
		if (nla_put_u64_64bit(msg, ds_smc_attr[i],
				      smc.sum[i] - smc.base[i],
				      DROPSCOPE_SMC_A_PAD))
			goto err;
	nla_nest_end(msg, nest);
	if (ds_smc_fill_table(msg, DROPSCOPE_A_SMC_FALLBACK, &smc.fb) ||
	    ds_smc_fill_table(msg, DROPSCOPE_A_SMC_OWNER, &smc.own))
		return -EMSGSIZE;
	return 0;
err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

int ds_smc_init(void)
{
	smc.pc = alloc_percpu(struct ds_smc_cpu);
	return smc.pc ? 0 : -ENOMEM;
}

void ds_smc_exit(void)
{
	free_percpu(smc.pc);
}
