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
 * Contexts: the probes run in process context and in softirq (smcr_link_
 * down), preemption off; they take no lock and write only this CPU's
 * counters. The notifier runs under tracepoint_module_list_mutex and
 * takes no lock of dropscope's; everything else runs under ds_lock.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include <uapi/linux/dropscope.h>

#include "dropscope.h"

/*
 * Distinct (reason, side) keys per CPU. The kernel knows some forty
 * fallback reasons (SMC_CLC_DECL_*); a key that finds the table full is
 * counted in overflow, never lost.
 */
#define DS_SMC_SLOTS_SHIFT	6
#define DS_SMC_SLOTS	BIT(DS_SMC_SLOTS_SHIFT)
/* The folded table: every CPU's keys, which may differ. */
#define DS_SMC_FOLDED	(2 * DS_SMC_SLOTS)

/* A key is never 0: bit 40 is set in every one. */
#define DS_SMC_KEY(code, side)	(BIT_ULL(40) | (u64)(side) << 32 | (u32)(code))
#define DS_SMC_KEY_CODE(key)	((u32)(key))
#define DS_SMC_KEY_SIDE(key)	((u8)((key) >> 32) & 1)

/* The counters of a CPU besides its fallbacks. */
enum {
	DS_SMC_TX_BYTES,
	DS_SMC_TX_EVENTS,
	DS_SMC_RX_BYTES,
	DS_SMC_RX_EVENTS,
	DS_SMC_LINK_DOWNS,
	DS_SMC_OVERFLOW,	/* fallbacks whose key found no room */
	DS_SMC_NCTR
};

struct ds_smc_slot {
	u64 key;		/* 0: free; claimed once by the owning CPU */
	local64_t count;
};

/* One CPU's counters, written by that CPU only. */
struct ds_smc_cpu {
	local64_t ctr[DS_SMC_NCTR];
	struct ds_smc_slot slot[DS_SMC_SLOTS];
};

/* A fallback key merged across CPUs; under ds_lock. */
struct ds_smc_fb {
	u64 key;
	u64 sum;		/* the per-CPU counts, at the last fold */
	u64 base;		/* sum at the last reset */
	u64 alerted;		/* sum at the last alert round */
};

static struct {
	struct ds_smc_cpu __percpu *pc;
	bool attached;		/* the notifier is registered */
	u32 hooked;		/* SMC tracepoints hooked (the notifier's) */
	u64 sum[DS_SMC_NCTR];	/* the per-CPU counters, at the last fold */
	u64 base[DS_SMC_NCTR];
	u64 alerted_link_downs;
	u32 nfb;
	struct ds_smc_fb fb[DS_SMC_FOLDED];
} smc;

/* ---- the probes: any context, this CPU only ---------------------------- */

static __always_inline void ds_smc_add(int i, u64 n)
{
	local64_add(n, &this_cpu_ptr(smc.pc)->ctr[i]);
}

/* The SMC socket's struct sock is the first member of struct smc_sock. */
static void ds_smc_fallback_probe(void *data, const struct sock *sk,
				  int fallback_rsn)
{
	u8 side = READ_ONCE(sk->sk_socket) ? DROPSCOPE_SMC_CLIENT :
					     DROPSCOPE_SMC_SERVER;
	u64 key = DS_SMC_KEY(fallback_rsn, side), k;
	struct ds_smc_cpu *c = this_cpu_ptr(smc.pc);
	u32 i = hash_64(key, DS_SMC_SLOTS_SHIFT), n;

	for (n = 0; n < DS_SMC_SLOTS; n++, i = (i + 1) % DS_SMC_SLOTS) {
		k = READ_ONCE(c->slot[i].key);
		/* a probe that interrupts this one may claim the slot first */
		if (!k)
			k = this_cpu_cmpxchg(smc.pc->slot[i].key, 0, key) ?: key;
		if (k == key) {
			local64_inc(&c->slot[i].count);
			return;
		}
	}
	local64_inc(&c->ctr[DS_SMC_OVERFLOW]);
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

static void ds_smc_hook(struct module *mod)
{
	tracepoint_ptr_t *p = mod->tracepoints_ptrs;
	struct tracepoint *tp;
	unsigned int i, j;

	for (i = 0; i < mod->num_tracepoints; i++) {
		tp = tracepoint_ptr_deref(&p[i]);
		for (j = 0; j < ARRAY_SIZE(ds_smc_tps); j++) {
			if (ds_smc_tps[j].tp || strcmp(tp->name, ds_smc_tps[j].name))
				continue;
			if (tracepoint_probe_register(tp, ds_smc_tps[j].probe,
						      NULL)) {
				pr_warn("cannot attach to smc:%s\n", tp->name);
				continue;
			}
			ds_smc_tps[j].tp = tp;
			WRITE_ONCE(smc.hooked, smc.hooked + 1);
		}
	}
}

static void ds_smc_unhook(void)
{
	size_t j;

	for (j = 0; j < ARRAY_SIZE(ds_smc_tps); j++) {
		if (!ds_smc_tps[j].tp)
			continue;
		tracepoint_probe_unregister(ds_smc_tps[j].tp,
					    ds_smc_tps[j].probe, NULL);
		ds_smc_tps[j].tp = NULL;
	}
	WRITE_ONCE(smc.hooked, 0);
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
	smc.nfb = 0;
}

static int ds_smc_attach(struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&ds_lock);
	if (smc.attached)
		return 0;
	/* hooks smc.ko now if it is there, calling ds_smc_notify() */
	err = register_tracepoint_module_notifier(&ds_smc_nb);
	if (err) {
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
	/* no probe runs on any CPU once this returns */
	tracepoint_synchronize_unregister();
	smc.attached = false;
}

static struct ds_smc_fb *ds_smc_fb_get(u64 key)
{
	u32 i;

	for (i = 0; i < smc.nfb; i++)
		if (smc.fb[i].key == key)
			return &smc.fb[i];
	if (smc.nfb == DS_SMC_FOLDED)
		return NULL;
	memset(&smc.fb[smc.nfb], 0, sizeof(smc.fb[0]));
	smc.fb[smc.nfb].key = key;
	return &smc.fb[smc.nfb++];
}

/*
 * Every counter only grows while the part runs, so a fold is a sum. The
 * count of a key the folded table has no room for overflows too.
 */
static void ds_smc_fold(void)
{
	struct ds_smc_fb *fb;
	struct ds_smc_cpu *c;
	unsigned int cpu;
	u64 key;
	u32 i;

	lockdep_assert_held(&ds_lock);
	memset(smc.sum, 0, sizeof(smc.sum));
	for (i = 0; i < smc.nfb; i++)
		smc.fb[i].sum = 0;
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(smc.pc, cpu);
		for (i = 0; i < DS_SMC_NCTR; i++)
			smc.sum[i] += local64_read(&c->ctr[i]);
		for (i = 0; i < DS_SMC_SLOTS; i++) {
			key = READ_ONCE(c->slot[i].key);
			if (!key)
				continue;
			fb = ds_smc_fb_get(key);
			if (fb)
				fb->sum += local64_read(&c->slot[i].count);
			else
				smc.sum[DS_SMC_OVERFLOW] +=
					local64_read(&c->slot[i].count);
		}
	}
}

static int ds_smc_put_fb(struct sk_buff *skb, const struct ds_smc_fb *fb,
			 bool alert)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, DROPSCOPE_A_SMC_FALLBACK);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, DROPSCOPE_SMC_FB_A_CODE, DS_SMC_KEY_CODE(fb->key)) ||
	    nla_put_u8(skb, DROPSCOPE_SMC_FB_A_SIDE, DS_SMC_KEY_SIDE(fb->key)) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_SMC_FB_A_TOTAL, fb->sum - fb->base,
			      DROPSCOPE_SMC_FB_A_PAD) ||
	    (alert && nla_put_u64_64bit(skb, DROPSCOPE_SMC_FB_A_DELTA,
					fb->sum - fb->alerted,
					DROPSCOPE_SMC_FB_A_PAD))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ds_smc_put_alert_fb(struct sk_buff *skb, const void *fb)
{
	return ds_smc_put_fb(skb, fb, true);
}

/* Fallbacks and link-downs since the last round. */
static void ds_smc_alert(struct ds_round *round)
{
	u64 downs = smc.sum[DS_SMC_LINK_DOWNS];
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < smc.nfb; i++) {
		if (smc.fb[i].sum == smc.fb[i].alerted)
			continue;
		ds_round_put(round, ds_smc_put_alert_fb, &smc.fb[i]);
		smc.fb[i].alerted = smc.fb[i].sum;
	}
	if (downs != smc.alerted_link_downs) {
		ds_round_put_u64(round, DROPSCOPE_A_SMC_LINK_DOWNS_DELTA,
				 downs - smc.alerted_link_downs);
		smc.alerted_link_downs = downs;
	}
}

/* Forget every total; the per-CPU counters count on while attached. */
static void ds_smc_reset(bool attached)
{
	u32 i;

	lockdep_assert_held(&ds_lock);
	if (!attached) {
		ds_smc_clear();
		return;
	}
	ds_smc_fold();
	memcpy(smc.base, smc.sum, sizeof(smc.base));
	smc.alerted_link_downs = smc.sum[DS_SMC_LINK_DOWNS];
	for (i = 0; i < smc.nfb; i++) {
		smc.fb[i].base = smc.fb[i].sum;
		smc.fb[i].alerted = smc.fb[i].sum;
	}
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
};

int ds_smc_fill(struct sk_buff *msg)
{
	struct nlattr *nest;
	u64 fallbacks = 0;
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < smc.nfb; i++)
		fallbacks += smc.fb[i].sum - smc.fb[i].base;
	nest = nla_nest_start(msg, DROPSCOPE_A_SMC);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(msg, DROPSCOPE_SMC_A_HOOKED, READ_ONCE(smc.hooked)) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_SMC_A_FALLBACKS, fallbacks,
			      DROPSCOPE_SMC_A_PAD))
		goto err;
	for (i = 0; i < DS_SMC_NCTR; i++)
		if (nla_put_u64_64bit(msg, ds_smc_attr[i],
				      smc.sum[i] - smc.base[i],
				      DROPSCOPE_SMC_A_PAD))
			goto err;
	nla_nest_end(msg, nest);
	/* the keys seen since the last reset */
	for (i = 0; i < smc.nfb; i++)
		if (smc.fb[i].sum != smc.fb[i].base &&
		    ds_smc_put_fb(msg, &smc.fb[i], false))
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
