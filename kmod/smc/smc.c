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
 * struct smc_sock is private to net/smc. The probes take what the
 * tracepoint arguments give and the socket itself: its first member is the
 * struct sock of the SMC socket, and sk_socket tells the two sides of a
 * fallback apart. The server side falls back in smc_listen_work() on a
 * socket nobody has accepted yet (no struct socket), the client side on
 * the socket of the process that connected, as smc_stat_fallback() counts
 * them. Lengths are the probes' own arguments. Beyond that, a few member
 * offsets read from the kernel's BTF (btf.c) give the mode and device
 * of a send or receive (the link, as the tracepoint itself reads it), the
 * TCP socket under an SMC socket (its session's mode, the tcp source's), and a
 * server side's listener, whose owner is the process seen making it
 * listen (a TCP_LISTEN change of a kernel socket in a user's context: how
 * an SMC listener's TCP socket starts listening). Without BTF the part
 * counts all the rest and says it knows no layout.
 *
 * With SMC built into the kernel, its tracepoints are the kernel's own:
 * the part hooks them when it attaches.
 *
 * Contexts: the probes run in process context and in softirq (smcr_link_
 * down), preemption off (ds_probe_begin(): a tracepoint may call them
 * preemptible); they take no lock and write only this CPU's counters,
 * but for the listener hook, which takes a raw spinlock. The notifier
 * runs under tracepoint_module_list_mutex and takes ds_smc_tp_lock only;
 * everything else runs under ds_lock.
 */

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
#include "smc.h"

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
	DS_SMC_SMCR_TX_BYTES,	/* the four above, of SMC-R connections */
	DS_SMC_SMCR_TX_EVENTS,
	DS_SMC_SMCR_RX_BYTES,
	DS_SMC_SMCR_RX_EVENTS,
	DS_SMC_SMCD_TX_BYTES,	/* and of SMC-D */
	DS_SMC_SMCD_TX_EVENTS,
	DS_SMC_SMCD_RX_BYTES,
	DS_SMC_SMCD_RX_EVENTS,
	DS_SMC_DEVS_OVERFLOW,	/* SMC-R copies on devices without a slot */
	DS_SMC_NCTR
};

/* Offsets from DS_SMC_TX_BYTES of a direction's counters, and a mode's */
#define DS_SMC_RX	(DS_SMC_RX_BYTES - DS_SMC_TX_BYTES)
#define DS_SMC_SMCR	(DS_SMC_SMCR_TX_BYTES - DS_SMC_TX_BYTES)
#define DS_SMC_SMCD	(DS_SMC_SMCD_TX_BYTES - DS_SMC_TX_BYTES)

/*
 * SMC-R devices per CPU: a lab has one or two. A slot is claimed by its
 * CPU (state 0 to 1), named, then published (state 2).
 */
#define DS_SMC_DEVS	8
#define DS_SMC_DEVS_FOLDED	(2 * DS_SMC_DEVS)

struct ds_smc_dev {
	unsigned long state;
	char name[DS_SMC_DEV_NAME];
	local64_t ctr[4];	/* TX_BYTES, TX_EVENTS, RX_BYTES, RX_EVENTS */
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
	struct ds_smc_dev dev[DS_SMC_DEVS];
};

/* A device merged across CPUs; under ds_lock. */
struct ds_smc_devsum {
	char name[DS_SMC_DEV_NAME];
	u64 sum[4];
	u64 base[4];		/* sum at the last reset */
};

/*
 * The listeners seen to start listening, and their owners. The tcp
 * source's state probe (ds_smc_listen_change()) adds and removes them in
 * process context; the fallback probe looks one up from the kernel worker
 * of the server side.
 */
#define DS_SMC_LISTENERS	64

struct ds_smc_listener {
	const struct sock *sk;	/* the listening TCP socket; NULL: free */
	u32 tgid;
	char comm[TASK_COMM_LEN];
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
	u32 ndevs;
	struct ds_smc_devsum devs[DS_SMC_DEVS_FOLDED];
	/* set before the probes are hooked, never while they are */
	struct ds_smc_layout l;
	bool state_hooked;	/* watches listeners (the tcp source) */
	raw_spinlock_t listen_lock;
	struct ds_smc_listener listeners[DS_SMC_LISTENERS];
} smc = {
	.listen_lock = __RAW_SPIN_LOCK_UNLOCKED(smc.listen_lock),
};

/* ---- the probes: any context, this CPU only ---------------------------- */

static __always_inline void ds_smc_add(int i, u64 n)
{
	local64_add(n, &ds_this_cpu_ptr(smc.pc)->ctr[i]);
}

/*
 * The slot of key in table t of this CPU, claimed if free, or NULL when
 * the table is full; *fresh is set when this call claimed it.
 */
static __always_inline struct ds_smc_slot *
ds_smc_slot(struct ds_smc_slot __percpu *t, u64 key, bool *fresh)
{
	struct ds_smc_slot *mine = ds_this_cpu_ptr(t);
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

/* A pointer member of an SMC socket at offset off (btf.c). */
static __always_inline const void *ds_smc_ptr(const void *smc, u32 off)
{
	return READ_ONCE(*(const void * const *)((const u8 *)smc + off));
}

/* The TCP socket under the SMC socket sk, or NULL. */
static const struct sock *ds_smc_clcsk(const struct sock *sk)
{
	const struct socket *clc = ds_smc_ptr(sk, smc.l.clcsock);

	return clc ? READ_ONCE(clc->sk) : NULL;
}

/*
 * The owner of the listener of a server side SMC socket: its listener's
 * TCP socket as the part saw it start listening, or 0. The listener is
 * held by the handshake's worker; its TCP socket may be let go by a close
 * meanwhile, so it is read without faulting and only compared.
 */
static u32 ds_smc_listen_owner(const struct sock *sk, char *comm)
{
	const void *lsmc = ds_smc_ptr(sk, smc.l.listen_smc);
	const struct socket *clc;
	const struct sock *lsk;
	unsigned long flags;
	u32 i, tgid = 0;

	if (!lsmc ||
	    copy_from_kernel_nofault(&clc, (const u8 *)lsmc + smc.l.clcsock,
				     sizeof(clc)) || !clc ||
	    copy_from_kernel_nofault(&lsk, &clc->sk, sizeof(lsk)) || !lsk)
		return 0;
	raw_spin_lock_irqsave(&smc.listen_lock, flags);
	for (i = 0; i < DS_SMC_LISTENERS; i++) {
		if (smc.listeners[i].sk != lsk)
			continue;
		tgid = smc.listeners[i].tgid;
		memcpy(comm, smc.listeners[i].comm, TASK_COMM_LEN);
		break;
	}
	raw_spin_unlock_irqrestore(&smc.listen_lock, flags);
	return tgid;
}

/*
 * The SMC socket's struct sock is the first member of struct smc_sock.
 * The owner is the process the probe runs for: the one that connects, or
 * that set an option SMC cannot do. On the server side SMC falls back in a
 * kernel worker: the owner is that of its listener, if known. A
 * non-blocking connect falls back in a worker too: owner 0.
 */
static void ds_smc_fallback(const struct sock *sk, int fallback_rsn)
{
	struct ds_smc_cpu __percpu *pc = smc.pc;
	u8 side = READ_ONCE(sk->sk_socket) ? DROPSCOPE_SMC_CLIENT :
					     DROPSCOPE_SMC_SERVER;
	bool user = in_task() && !(current->flags & PF_KTHREAD);
	u32 tgid = user ? task_tgid_nr(current) : 0;
	char comm[TASK_COMM_LEN] = "";
	const struct sock *clcsk;
	struct ds_smc_slot *s;
	bool fresh = false;

	if (smc.l.known) {
		clcsk = ds_smc_clcsk(sk);
		if (clcsk)
			ds_sess_smc(clcsk, DROPSCOPE_SMC_MODE_FALLBACK,
				    fallback_rsn);
		if (!user && side == DROPSCOPE_SMC_SERVER)
			tgid = ds_smc_listen_owner(sk, comm);
	}
	s = ds_smc_slot(pc->fb, DS_SMC_KEY(fallback_rsn, side, 0), &fresh);
	if (s)
		local64_inc(&s->count);
	else
		local64_inc(ds_this_cpu_ptr(&pc->ctr[DS_SMC_OVERFLOW]));
	fresh = false;
	s = ds_smc_slot(pc->own, DS_SMC_KEY(fallback_rsn, side, tgid), &fresh);
	if (!s) {
		local64_inc(ds_this_cpu_ptr(&pc->ctr[DS_SMC_OWNERS_OVERFLOW]));
		return;
	}
	/* comm is NUL-padded to its end: a copy is a string */
	if (fresh && user)
		memcpy(s->comm, current->comm, sizeof(s->comm));
	else if (fresh && tgid)
		memcpy(s->comm, comm, sizeof(s->comm));
	local64_inc(&s->count);
}

/*
 * The probes take the tracepoints' own types, opaque here (their header is
 * private to net/smc: tp.c checks them where it is there); struct sock
 * is the first member of struct smc_sock.
 */
void ds_smc_fallback_probe(void *data, const struct smc_sock *smc,
			   int fallback_rsn)
{
	ds_probe_begin();
	ds_smc_fallback((const struct sock *)smc, fallback_rsn);
	ds_probe_end();
}

/*
 * The SMC-R device of link lnk: this CPU's slot of its name, claimed if
 * there is none yet, or NULL when the table is full.
 */
static struct ds_smc_dev *ds_smc_dev(const void *lnk)
{
	struct ds_smc_dev *d = ds_this_cpu_ptr(smc.pc)->dev;
	const char *name = (const char *)lnk + smc.l.ibname;
	u32 i, len = smc.l.ibname_len;

	for (i = 0; i < DS_SMC_DEVS; i++) {
		/* pairs with the release below: the name is whole at 2 */
		switch (smp_load_acquire(&d[i].state)) {
		case 2:
			if (!strncmp(d[i].name, name, len))
				return &d[i];
			continue;
		case 1:
			/* being named by a probe this one interrupted */
			continue;
		}
		if (this_cpu_cmpxchg(smc.pc->dev[i].state, 0, 1))
			continue;
		memcpy(d[i].name, name, len);
		d[i].name[len - 1] = '\0';
		/* the name, then the state: see the acquires here and in folds */
		smp_store_release(&d[i].state, 2);
		return &d[i];
	}
	return NULL;
}

/*
 * A send (dir 0) or receive (dir DS_SMC_RX) of len bytes: counted, and by
 * mode and device when the layout is known; the session under it learns
 * its mode.
 */
static __always_inline void ds_smc_msg(const struct sock *sk, size_t len,
				       int dir)
{
	const struct sock *clcsk;
	struct ds_smc_dev *d;
	const void *lnk;
	int mode;

	ds_smc_add(DS_SMC_TX_BYTES + dir, len);
	ds_smc_add(DS_SMC_TX_EVENTS + dir, 1);
	if (!smc.l.known)
		return;
	/* the kernel tells SMC-R by its link: see SMC_STAT_RMB_TX_FULL() */
	lnk = ds_smc_ptr(sk, smc.l.conn_lnk);
	mode = lnk ? DS_SMC_SMCR : DS_SMC_SMCD;
	ds_smc_add(DS_SMC_TX_BYTES + mode + dir, len);
	ds_smc_add(DS_SMC_TX_EVENTS + mode + dir, 1);
	if (lnk) {
		d = ds_smc_dev(lnk);
		if (d) {
			local64_add(len, &d->ctr[dir ? 2 : 0]);
			local64_inc(&d->ctr[dir ? 3 : 1]);
		} else {
			ds_smc_add(DS_SMC_DEVS_OVERFLOW, 1);
		}
	}
	clcsk = ds_smc_clcsk(sk);
	if (clcsk)
		ds_sess_smc(clcsk, lnk ? DROPSCOPE_SMC_MODE_SMCR :
				   DROPSCOPE_SMC_MODE_SMCD, 0);
}

void ds_smc_tx_probe(void *data, const struct smc_sock *smc, size_t len)
{
	ds_probe_begin();
	ds_smc_msg((const struct sock *)smc, len, 0);
	ds_probe_end();
}

void ds_smc_rx_probe(void *data, const struct smc_sock *smc, size_t len)
{
	ds_probe_begin();
	ds_smc_msg((const struct sock *)smc, len, DS_SMC_RX);
	ds_probe_end();
}

/*
 * From the tcp source's state probe, a TCP socket to or from LISTEN.
 * Listeners start and stop: a TCP socket of the kernel's (an SMC
 * listener's is one) that starts listening in a user's process context is
 * owned by that process. A listener that finds the table full has no
 * owner.
 */
static void ds_smc_listen_change(const struct sock *sk, int oldstate,
				 int newstate)
{
	unsigned long flags;
	u32 i;

	if (!sk->sk_kern_sock)
		return;
	raw_spin_lock_irqsave(&smc.listen_lock, flags);
	for (i = 0; i < DS_SMC_LISTENERS; i++)
		if (smc.listeners[i].sk == sk)
			smc.listeners[i].sk = NULL;
	if (newstate == TCP_LISTEN && in_task() &&
	    !(current->flags & PF_KTHREAD)) {
		for (i = 0; i < DS_SMC_LISTENERS; i++) {
			if (smc.listeners[i].sk)
				continue;
			smc.listeners[i].sk = sk;
			smc.listeners[i].tgid = task_tgid_nr(current);
			memcpy(smc.listeners[i].comm, current->comm,
			       TASK_COMM_LEN);
			break;
		}
	}
	raw_spin_unlock_irqrestore(&smc.listen_lock, flags);
}

void ds_smc_link_down_probe(void *data, const struct smc_link *lnk,
			    void *location)
{
	ds_probe_begin();
	ds_smc_add(DS_SMC_LINK_DOWNS, 1);
	ds_probe_end();
}

#ifdef DS_PREEMPT_TEST
void ds_ptest_smc(struct sock *sk, int reason)
{
	const struct smc_sock *smc = (const struct smc_sock *)sk;

	ds_smc_tx_probe(NULL, smc, 1);
	ds_smc_rx_probe(NULL, smc, 1);
	ds_smc_fallback_probe(NULL, smc, reason);
	ds_smc_link_down_probe(NULL, NULL, NULL);
}
#endif

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

/*
 * smc.ko's layout, before its tracepoints are hooked: from its BTF while
 * it loads (the kernel drops that copy once its init has run), else from
 * /sys/kernel/btf/smc.
 */
static void ds_smc_layout_module(struct module *mod)
{
	const void *btf = NULL;
	size_t len = 0;

#ifdef CONFIG_DEBUG_INFO_BTF_MODULES
	btf = mod->btf_data;
	len = mod->btf_data_size;
#endif
	ds_smc_btf_resolve(&smc.l, btf, len, false);
}

static void ds_smc_hook(struct module *mod)
{
	tracepoint_ptr_t *p = mod->tracepoints_ptrs;
	unsigned int i;

	mutex_lock(&ds_smc_tp_lock);
	if (!smc.hooked)
		ds_smc_layout_module(mod);
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

/* SMC built in: one of its tracepoints is the kernel's. */
static void ds_smc_find_builtin(struct tracepoint *tp, void *priv)
{
	bool *found = priv;

	if (!strcmp(tp->name, ds_smc_tps[0].name))
		*found = true;
}

/* The caller waits with tracepoint_synchronize_unregister(). */
static void ds_smc_state_unhook(void)
{
	if (!smc.state_hooked)
		return;
	ds_tcp_unwatch_listen();
	smc.state_hooked = false;
}

/* ---- the source: under ds_lock, process context ------------------------ */

static void ds_smc_listeners_clear(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&smc.listen_lock, flags);
	memset(smc.listeners, 0, sizeof(smc.listeners));
	raw_spin_unlock_irqrestore(&smc.listen_lock, flags);
}

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
	smc.ndevs = 0;
}

static int ds_smc_attach(struct netlink_ext_ack *extack)
{
	bool builtin = false;
	int err;

	lockdep_assert_held(&ds_lock);
	if (smc.attached)
		return 0;
	/* listeners, for the owners of server sides */
	if (!ds_tcp_watch_listen(ds_smc_listen_change))
		smc.state_hooked = true;
	/* SMC built into the kernel: its tracepoints are the kernel's */
	for_each_kernel_tracepoint(ds_smc_find_builtin, &builtin);
	mutex_lock(&ds_smc_tp_lock);
	if (builtin) {
		ds_smc_btf_resolve(&smc.l, NULL, 0, true);
		for_each_kernel_tracepoint(ds_smc_hook_tp, NULL);
	}
	mutex_unlock(&ds_smc_tp_lock);
	/* hooks smc.ko now if it is there, calling ds_smc_notify() */
	err = register_tracepoint_module_notifier(&ds_smc_nb);
	if (err) {
		ds_smc_unhook();
		ds_smc_state_unhook();
		tracepoint_synchronize_unregister();
		ds_smc_listeners_clear();
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
	ds_smc_state_unhook();
	/* no probe runs on any CPU once this returns */
	tracepoint_synchronize_unregister();
	ds_smc_listeners_clear();
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

/* One CPU's devices into smc.devs; one without room, into overflow. */
static void ds_smc_fold_devs(const struct ds_smc_dev *d)
{
	struct ds_smc_devsum *e;
	u32 i, j, k;

	for (i = 0; i < DS_SMC_DEVS; i++) {
		/* pairs with ds_smc_dev()'s release: named at 2 */
		if (smp_load_acquire(&d[i].state) != 2)
			continue;
		for (j = 0; j < smc.ndevs; j++)
			if (!strcmp(smc.devs[j].name, d[i].name))
				break;
		if (j == smc.ndevs) {
			if (j == DS_SMC_DEVS_FOLDED) {
				smc.sum[DS_SMC_DEVS_OVERFLOW] +=
					local64_read(&d[i].ctr[1]) +
					local64_read(&d[i].ctr[3]);
				continue;
			}
			e = &smc.devs[smc.ndevs++];
			memset(e, 0, sizeof(*e));
			memcpy(e->name, d[i].name, sizeof(e->name));
		}
		for (k = 0; k < 4; k++)
			smc.devs[j].sum[k] += local64_read(&d[i].ctr[k]);
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
	for (i = 0; i < smc.ndevs; i++)
		memset(smc.devs[i].sum, 0, sizeof(smc.devs[i].sum));
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(smc.pc, cpu);
		for (i = 0; i < DS_SMC_NCTR; i++)
			smc.sum[i] += local64_read(&c->ctr[i]);
		ds_smc_fold_table(&smc.fb, c->fb, DS_SMC_OVERFLOW);
		ds_smc_fold_table(&smc.own, c->own, DS_SMC_OWNERS_OVERFLOW);
		ds_smc_fold_devs(c->dev);
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
	u32 i;

	lockdep_assert_held(&ds_lock);
	if (!attached) {
		ds_smc_clear();
		return;
	}
	memcpy(smc.base, smc.sum, sizeof(smc.base));
	for (i = 0; i < smc.ndevs; i++)
		memcpy(smc.devs[i].base, smc.devs[i].sum,
		       sizeof(smc.devs[i].base));
	smc.alerted_link_downs = smc.sum[DS_SMC_LINK_DOWNS];
	ds_smc_rebase(&smc.fb);
	ds_smc_rebase(&smc.own);
}

static void ds_smc_free(void)
{
}

/* ---- the SMC_GET reply: under ds_lock, folded ------------------------- */

static const int ds_smc_attr[DS_SMC_NCTR] = {
	[DS_SMC_TX_BYTES] = DROPSCOPE_SMC_A_TX_BYTES,
	[DS_SMC_TX_EVENTS] = DROPSCOPE_SMC_A_TX_EVENTS,
	[DS_SMC_RX_BYTES] = DROPSCOPE_SMC_A_RX_BYTES,
	[DS_SMC_RX_EVENTS] = DROPSCOPE_SMC_A_RX_EVENTS,
	[DS_SMC_LINK_DOWNS] = DROPSCOPE_SMC_A_LINK_DOWNS,
	[DS_SMC_OVERFLOW] = DROPSCOPE_SMC_A_OVERFLOW,
	[DS_SMC_OWNERS_OVERFLOW] = DROPSCOPE_SMC_A_OWNERS_OVERFLOW,
	[DS_SMC_SMCR_TX_BYTES] = DROPSCOPE_SMC_A_SMCR_TX_BYTES,
	[DS_SMC_SMCR_TX_EVENTS] = DROPSCOPE_SMC_A_SMCR_TX_EVENTS,
	[DS_SMC_SMCR_RX_BYTES] = DROPSCOPE_SMC_A_SMCR_RX_BYTES,
	[DS_SMC_SMCR_RX_EVENTS] = DROPSCOPE_SMC_A_SMCR_RX_EVENTS,
	[DS_SMC_SMCD_TX_BYTES] = DROPSCOPE_SMC_A_SMCD_TX_BYTES,
	[DS_SMC_SMCD_TX_EVENTS] = DROPSCOPE_SMC_A_SMCD_TX_EVENTS,
	[DS_SMC_SMCD_RX_BYTES] = DROPSCOPE_SMC_A_SMCD_RX_BYTES,
	[DS_SMC_SMCD_RX_EVENTS] = DROPSCOPE_SMC_A_SMCD_RX_EVENTS,
	[DS_SMC_DEVS_OVERFLOW] = DROPSCOPE_SMC_A_DEVS_OVERFLOW,
};

static const int ds_smc_dev_attr[4] = {
	DROPSCOPE_SMC_DEV_A_TX_BYTES, DROPSCOPE_SMC_DEV_A_TX_EVENTS,
	DROPSCOPE_SMC_DEV_A_RX_BYTES, DROPSCOPE_SMC_DEV_A_RX_EVENTS,
};

static size_t ds_smc_dev_size(void)
{
	return nla_total_size(0) + nla_total_size(DS_SMC_DEV_NAME) +
		4 * nla_total_size_64bit(sizeof(u64));
}

/* The devices that moved data since the last reset. */
static int ds_smc_fill_devs(struct sk_buff *msg)
{
	const struct ds_smc_devsum *e;
	struct nlattr *nest;
	u32 i, k;

	for (i = 0; i < smc.ndevs; i++) {
		e = &smc.devs[i];
		if (e->sum[1] == e->base[1] && e->sum[3] == e->base[3])
			continue;
		nest = nla_nest_start(msg, DROPSCOPE_A_SMC_DEV);
		if (!nest || nla_put_string(msg, DROPSCOPE_SMC_DEV_A_NAME,
					    e->name))
			return -EMSGSIZE;
		for (k = 0; k < 4; k++)
			if (nla_put_u64_64bit(msg, ds_smc_dev_attr[k],
					      e->sum[k] - e->base[k],
					      DROPSCOPE_SMC_DEV_A_PAD))
				return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/* The attributes of ds_smc_fill(), at most. */
static size_t ds_smc_size(void)
{
	lockdep_assert_held(&ds_lock);
	return nla_total_size(0) +			/* DROPSCOPE_A_SMC */
		2 * nla_total_size(sizeof(u8)) +	/* HOOKED, LAYOUT */
		2 * nla_total_size_64bit(sizeof(u64)) +	/* FALLBACKS, _MASKED */
		DS_SMC_NCTR * nla_total_size_64bit(sizeof(u64)) +
		smc.fb.n * ds_smc_fb_size(false) +
		smc.own.n * ds_smc_fb_size(true) +
		smc.ndevs * ds_smc_dev_size();
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

static int ds_smc_fill(struct sk_buff *msg)
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
	    nla_put_u8(msg, DROPSCOPE_SMC_A_LAYOUT,
		       READ_ONCE(smc.hooked) && smc.l.known) ||
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
	    ds_smc_fill_table(msg, DROPSCOPE_A_SMC_OWNER, &smc.own) ||
	    ds_smc_fill_devs(msg))
		return -EMSGSIZE;
	return 0;
err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

static int ds_smc_init(void)
{
#ifdef DS_HAVE_SMC_TP_HEADER
	ds_smc_check_probes();
#endif
	smc.pc = alloc_percpu(struct ds_smc_cpu);
	return smc.pc ? 0 : -ENOMEM;
}

static void ds_smc_exit(void)
{
	free_percpu(smc.pc);
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
	.init = ds_smc_init,
	.exit = ds_smc_exit,
	.size = ds_smc_size,
	.fill = ds_smc_fill,
};
