// SPDX-License-Identifier: GPL-2.0
/*
 * TCP sessions: one entry per TCP socket from its birth (SYN_SENT or
 * SYN_RECV) to TCP_CLOSE, and a ring of the recent closes.
 *
 * Hooks: sock:inet_sock_set_state (births, state changes, deaths),
 * tcp:tcp_send_reset and tcp:tcp_receive_reset. None of them is per
 * packet; they are not all exported to modules, so they are found by name.
 * The state probe serves another source's view of listeners too
 * (ds_tcp_watch_listen(): SMC's): registered once while either needs it
 * (ds_state_hook_get()), it costs a state change one call, not two;
 * without sessions it returns at a static branch. Drops reach sessions
 * from the drop probe (ds_sess_drop()).
 *
 * Locking. The table (entries, hash, free list), the ring and the
 * statistics are under tcp.lock, a raw spinlock taken with interrupts
 * off: the hooks run in process context or softirq, with preemption
 * disabled by the tracepoint on most kernels, so on PREEMPT_RT a
 * spinlock_t (a sleeping lock there) could not be taken. With every
 * shared write under it, the hooks are safe preemptible as well (a
 * tracepoint may call them so: see ds_probe_begin()). Every section
 * under it is short and bounded (a hash walk, a copy of one entry or
 * record). State changes and resets are per session, not per packet, so
 * one lock is cheap enough; the state changes that have nothing to tell a
 * session do not take it (ds_state_probe()).
 *
 * Drops are per packet and come in any context, hard IRQ included: they
 * take no lock. The drop path finds the entry by socket pointer in a hash
 * of hlist_nulls chains (entries are preallocated and reused, never freed
 * while hooks run: type-stable, as SLAB_TYPESAFE_BY_RCU sockets are; a
 * walk that ends on another chain's nulls restarts) and bumps a per-CPU
 * cell of that entry. The entry's gen is bumped when it is let go, before
 * its socket pointer is cleared; the drop path reads gen, the pointer,
 * then gen again, and tags the cell with gen, so that a drop is never
 * counted to the next session of that entry. A drop racing with its
 * session's close may be missed (it is neither before nor after the close).
 * A drop the mask rules in effect mask (ds_drop_masked(): the verdict
 * its site gets) is not counted to its session but in a per-CPU count of
 * masked session drops, so that shown and masked add up to every drop of
 * a tracked session.
 *
 * Sockets. No reference is taken. A socket in the table cannot be freed
 * while tcp.lock is held: it passes its TCP_CLOSE hook first, and that
 * hook removes the entry under the lock. Its identity is checked all the
 * same: at birth the socket's cookie (sk_cookie, as ss -e shows it) is
 * generated and kept, and every read of the socket verifies it; TCP
 * sockets are SLAB_TYPESAFE_BY_RCU, so a read under RCU is of a tcp_sock
 * even if it was freed and reused, and the cookie tells.
 *
 * Owner: the process that connected (current at SYN_SENT, in process
 * context). A passive session is born in softirq; its owner is the process
 * that accepts it (ds_accept_pre(), a kprobe). One nobody accepted, or
 * found at start, is owned by the process context in which its close runs
 * or it sends a reset. Without the kprobe, a passive session is owned by
 * the first process context in which a state change or a reset of it
 * runs. Until then, and when no process ever touched it, the PID is 0.
 */

#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rculist_nulls.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sock_diag.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/tracepoint.h>
#include <net/inet_sock.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <net/tcp_states.h>
#include <trace/events/sock.h>
#include <trace/events/tcp.h>

#include "compat.h"
#include "dropscope.h"
#include "scope.h"

unsigned int ds_sessions_cap = 16384;
module_param_cb(sessions, &ds_param_count_ops, &ds_sessions_cap, 0444);
MODULE_PARM_DESC(sessions,
		 "TCP sessions tracked at once, 1 to 1048576 (default 16384)");

unsigned int ds_closed_cap = 4096;
module_param_cb(closed, &ds_param_count_ops, &ds_closed_cap, 0444);
MODULE_PARM_DESC(closed,
		 "recent closes kept, 1 to 1048576, rounded up to a power of two (default 4096)");

/* A drop cell: the entry's gen in the top bits, drops below. */
#define DS_CELL_SHIFT	40
#define DS_CELL_COUNT	((1ULL << DS_CELL_SHIFT) - 1)

struct ds_sess {
	struct hlist_nulls_node node;	/* in the hash while live */
	const struct sock *sk;		/* NULL: free */
	u32 gen;			/* bumped when let go */
	u32 next_free;
	/*
	 * Set by the drop path before its first count to the session (or to
	 * an earlier one of the entry, which only costs a sum): a session
	 * that never dropped is not summed over every CPU at its close.
	 */
	bool dropped;
	struct ds_sess_info info;	/* what the hooks keep */
};

static struct {
	raw_spinlock_t lock;
	struct ds_sess *e;		/* ds_sessions_cap entries */
	struct hlist_nulls_head *hash;
	u32 hash_bits;
	u32 free;			/* free list head, or U32_MAX */
	u32 live;
	struct ds_sess_info *ring;	/* ds_closed_cap records */
	bool *ring_read;
	u64 head;			/* closes put into the ring */
	struct ds_sess_stats st;
	u64 masked_base;		/* under ds_lock: ds_sess_masked at reset */
	u64 alerted;			/* under ds_lock: ring head at the last round */
	bool attached;			/* under ds_lock */
} tcp = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(tcp.lock),
};

DEFINE_STATIC_KEY_FALSE(ds_sess_drops_key);
/* on while the accept hook gives passive sessions their owner */
static DEFINE_STATIC_KEY_FALSE(ds_accept_key);

/* Each CPU's drop cells, one per entry (too many for alloc_percpu()). */
static DEFINE_PER_CPU(local64_t *, ds_cells);

/* Drops of tracked sessions that the rules masked; never zeroed. */
static DEFINE_PER_CPU(local64_t, ds_sess_masked);

/* ---- the drop path: any context, no lock ------------------------------ */

static __always_inline local64_t *ds_cell(unsigned int cpu, u32 i)
{
	return per_cpu(ds_cells, cpu) + i;
}

static __always_inline u64 ds_cell_tag(u32 gen)
{
	return (u64)gen << DS_CELL_SHIFT;
}

/* Count one drop of entry i's session of generation gen, on this CPU. */
static __always_inline void ds_cell_inc(u32 i, u32 gen)
{
	local64_t *c = *ds_this_cpu_ptr(&ds_cells) + i;
	u64 tag = ds_cell_tag(gen), v;

	for (v = local64_read(c); (v & ~DS_CELL_COUNT) != tag;
	     v = local64_read(c))
		if (local64_cmpxchg(c, v, tag | 1) == v)
			return;
	local64_inc(c);
}

/*
 * A drop of a packet of sk: count it to sk's session, if tracked, or as a
 * masked session drop if the rules mask it.
 */
noinline notrace void ds_sess_drop(const struct sock *sk, struct ds_drop *d)
{
	u32 h = hash_ptr(sk, tcp.hash_bits), gen;
	struct hlist_nulls_node *n;
	struct ds_sess *e;

begin:
	hlist_nulls_for_each_entry_rcu(e, n, &tcp.hash[h], node) {
		/* pairs with the smp_wmb() in ds_sess_release() */
		gen = smp_load_acquire(&e->gen);
		if (READ_ONCE(e->sk) != sk)
			continue;
		/* gen again after sk: the entry was not let go in between */
		smp_rmb();
		if (READ_ONCE(e->gen) != gen)
			return;
		if (ds_drop_masked(d)) {
			local64_inc(ds_this_cpu_ptr(&ds_sess_masked));
		} else {
			if (!READ_ONCE(e->dropped)) {
				WRITE_ONCE(e->dropped, true);
				/* pairs with the smp_rmb() in ds_sess_drops() */
				smp_wmb();
			}
			ds_cell_inc(e - tcp.e, gen);
		}
		return;
	}
	/* the walk was moved to another chain by a reuse: again */
	if (get_nulls_value(n) != h)
		goto begin;
}

/* ---- the table: under tcp.lock ---------------------------------------- */

static u64 ds_sess_drops(u32 i, u32 gen)
{
	u64 tag = ds_cell_tag(gen), sum = 0, v;
	unsigned int cpu;

	/* a count not seen with its flag came after this read: after the close */
	if (!READ_ONCE(tcp.e[i].dropped))
		return 0;
	/* the cells after the flag: pairs with the smp_wmb() in ds_sess_drop() */
	smp_rmb();

	for_each_possible_cpu(cpu) {
		v = local64_read(ds_cell(cpu, i));
		if ((v & ~DS_CELL_COUNT) == tag)
			sum += v & DS_CELL_COUNT;
	}
	return sum;
}

static struct ds_sess *ds_sess_find(const struct sock *sk)
{
	struct hlist_nulls_node *n;
	struct ds_sess *e;

	lockdep_assert_held(&tcp.lock);
	hlist_nulls_for_each_entry(e, n, &tcp.hash[hash_ptr(sk, tcp.hash_bits)],
				   node)
		if (e->sk == sk)
			return e;
	return NULL;
}

/*
 * SMC: the TCP socket under an SMC socket is a session like any other, and
 * the SMC part tells it its mode, from any context its probes run in. A
 * session that has the mode already is found without a lock, as the drop
 * path finds one; it is changed under tcp.lock.
 */
void ds_sess_smc(const struct sock *sk, u8 mode, u32 reason)
{
	struct hlist_nulls_node *n;
	unsigned long flags;
	struct ds_sess *e;
	u32 h;

	if (!static_branch_unlikely(&ds_sess_drops_key))
		return;
	h = hash_ptr(sk, tcp.hash_bits);
begin:
	hlist_nulls_for_each_entry_rcu(e, n, &tcp.hash[h], node) {
		if (READ_ONCE(e->sk) != sk)
			continue;
		if (READ_ONCE(e->info.smc_mode) == mode &&
		    READ_ONCE(e->info.smc_reason) == reason)
			return;
		raw_spin_lock_irqsave(&tcp.lock, flags);
		e = ds_sess_find(sk);
		if (e) {
			WRITE_ONCE(e->info.smc_mode, mode);
			WRITE_ONCE(e->info.smc_reason, reason);
		}
		raw_spin_unlock_irqrestore(&tcp.lock, flags);
		return;
	}
	if (get_nulls_value(n) != h)
		goto begin;
}

static u64 ds_sk_cookie(const struct sock *sk)
{
	return atomic64_read(&sk->sk_cookie);
}

/* The socket's cookie, made if nobody made it yet: a few atomics. */
static u64 ds_sk_gen_cookie(const struct sock *sk)
{
	u32 c[2];

	sock_diag_save_cookie((struct sock *)sk, c);
	return c[0] | (u64)c[1] << 32;
}

/*
 * Is e still sk's session? A passive session gets its cookie here, at its
 * first state change after its birth.
 */
static bool ds_sess_identity(struct ds_sess *e, const struct sock *sk)
{
	if (!e->info.cookie)
		e->info.cookie = ds_sk_gen_cookie(sk);
	return e->info.cookie == ds_sk_cookie(sk);
}

static void ds_sk_ips(struct in6_addr *saddr, struct in6_addr *daddr,
		      const struct sock *sk)
{
	memset(saddr, 0, sizeof(*saddr));
	memset(daddr, 0, sizeof(*daddr));
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		*saddr = sk->sk_v6_rcv_saddr;
		*daddr = sk->sk_v6_daddr;
		return;
	}
#endif
	saddr->s6_addr32[0] = READ_ONCE(sk->sk_rcv_saddr);
	daddr->s6_addr32[0] = READ_ONCE(sk->sk_daddr);
}

/* A full socket's addresses and ports, as sock:inet_sock_set_state reads them */
static void ds_sk_addrs(const struct sock *sk, u8 *family, __be16 *sport,
			__be16 *dport, struct in6_addr *saddr,
			struct in6_addr *daddr)
{
	const struct inet_sock *inet = inet_sk(sk);

	*family = sk->sk_family;
	*sport = READ_ONCE(inet->inet_sport);
	*dport = READ_ONCE(inet->inet_dport);
	ds_sk_ips(saddr, daddr, sk);
	if (sk->sk_family == AF_INET)
		saddr->s6_addr32[0] = READ_ONCE(inet->inet_saddr);
}

static void ds_sess_addrs(struct ds_sess_info *in, const struct sock *sk)
{
	ds_sk_addrs(sk, &in->family, &in->sport, &in->dport, &in->saddr,
		    &in->daddr);
}

/*
 * Is a session in SYN_SENT or SYN_RECV, where its addresses may not all be
 * set yet? An active open is born before its source port is picked; a
 * passive one is cloned from its listener, and its addresses and ports are
 * set after its birth (in which order depends on the kernel). They are all
 * set once it leaves the handshake, and do not change after that: they are
 * read at birth, again at the change that ends the handshake, or at a
 * close straight from it.
 */
static bool ds_sess_handshake(u8 state)
{
	return state == TCP_SYN_SENT || state == TCP_SYN_RECV;
}

/*
 * The first process context that touches the session owns it. A task's
 * comm is NUL-padded to its end whenever it is set (__set_task_comm()), so
 * a plain copy of it is a string, even one torn by a rename in between.
 */
static void ds_sess_owner(struct ds_sess_info *in)
{
	if (in->pid || !in_task())
		return;
	in->pid = task_tgid_nr(current);
	BUILD_BUG_ON(sizeof(in->comm) != sizeof(current->comm));
	memcpy(in->comm, current->comm, sizeof(in->comm));
	in->comm[sizeof(in->comm) - 1] = '\0';
}

static void ds_sess_read_sock(struct ds_sess_info *in, const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	in->bytes_acked = READ_ONCE(tp->bytes_acked);
	in->bytes_received = READ_ONCE(tp->bytes_received);
	in->total_retrans = READ_ONCE(tp->total_retrans);
}

/*
 * The transport state of a live session, as tcp_get_info() computes it,
 * read without the socket's lock (each field whole): ss -ti's rtt,
 * rttvar, cwnd, ssthresh, snd_wnd, rcv_wnd, unacked, lost, retrans and
 * delivery_rate.
 */
static void ds_sess_read_tcp(struct ds_sess_info *in, const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 rate = READ_ONCE(tp->rate_delivered);
	u32 intv = READ_ONCE(tp->rate_interval_us);
	u64 rate64 = 0;

	in->rtt_us = READ_ONCE(tp->srtt_us) >> 3;
	in->rttvar_us = READ_ONCE(tp->mdev_us) >> 2;
	in->snd_cwnd = tcp_snd_cwnd(tp);
	in->snd_ssthresh = READ_ONCE(tp->snd_ssthresh);
	in->snd_wnd = READ_ONCE(tp->snd_wnd);
	in->rcv_wnd = READ_ONCE(tp->rcv_wnd);
	in->unacked = READ_ONCE(tp->packets_out);
	in->lost = READ_ONCE(tp->lost_out);
	in->retrans = READ_ONCE(tp->retrans_out);
	if (rate && intv) {
		rate64 = (u64)rate * READ_ONCE(tp->mss_cache) * USEC_PER_SEC;
		do_div(rate64, intv);
	}
	in->delivery_rate = rate64;
	in->has_tcp = true;
}

static struct ds_sess *ds_sess_birth(const struct sock *sk, int state)
{
	unsigned int cpu;
	struct ds_sess *e;
	u32 i = tcp.free;

	if (i == U32_MAX) {
		tcp.st.overflow++;
		return NULL;
	}
	e = &tcp.e[i];
	tcp.free = e->next_free;
	memset(&e->info, 0, sizeof(e->info));
	/*
	 * A passive child is born in inet_csk_clone_lock(), which clears the
	 * cookie it inherited from the listener right after: its cookie is
	 * made at its next state change (ds_sess_identity()).
	 */
	if (state == TCP_SYN_SENT)
		e->info.cookie = ds_sk_gen_cookie(sk);
	e->info.state = state;
	e->dropped = false;
	e->info.start_ns = ktime_get_ns();
	ds_sess_addrs(&e->info, sk);
	ds_sess_owner(&e->info);
	/* a passive child has its listener's cgroup (sk_clone_lock()) */
	e->info.run = static_branch_unlikely(&ds_scope_key) ?
		      ds_sock_run(sk) : 0;
	/*
	 * A cell counts for the generation its tag names: those of earlier
	 * sessions of the entry are told apart by their tags, until the tag
	 * wraps. Cleared once a wrap, no cell is ever taken for a later one.
	 */
	if (!ds_cell_tag(e->gen))
		for_each_possible_cpu(cpu)
			local64_set(ds_cell(cpu, i), 0);
	WRITE_ONCE(e->sk, sk);
	hlist_nulls_add_head_rcu(&e->node,
				 &tcp.hash[hash_ptr(sk, tcp.hash_bits)]);
	tcp.live++;
	tcp.st.opened++;
	return e;
}

/* Let an entry go: no drop is counted to its session from here on. */
static void ds_sess_release(struct ds_sess *e)
{
	hlist_nulls_del_rcu(&e->node);
	WRITE_ONCE(e->gen, e->gen + 1);
	/* pairs with the smp_load_acquire() and smp_rmb() in ds_sess_drop() */
	smp_wmb();
	WRITE_ONCE(e->sk, NULL);
	e->next_free = tcp.free;
	tcp.free = e - tcp.e;
	tcp.live--;
}

/* Session closed: its last numbers into the ring, and let it go. */
static void ds_sess_close(struct ds_sess *e, const struct sock *sk,
			  int oldstate)
{
	struct ds_sess_info *in = &e->info;
	u64 seq = tcp.head++;
	u32 slot = seq & (ds_closed_cap - 1);

	if (ds_sess_handshake(oldstate) && READ_ONCE(inet_sk(sk)->inet_sport))
		ds_sess_addrs(in, sk);
	in->state = TCP_CLOSE;
	ds_sess_owner(in);
	ds_sess_read_sock(in, sk);
	in->drops = ds_sess_drops(e - tcp.e, e->gen);
	in->duration_ns = ktime_get_ns() - in->start_ns;
	in->closed = true;
	in->seq = seq;
	if (seq >= ds_closed_cap && !tcp.ring_read[slot])
		tcp.st.unread++;
	tcp.ring[slot] = *in;
	tcp.ring_read[slot] = false;
	tcp.st.closed++;
	ds_sess_release(e);
}

/* ---- the hooks: process context or softirq ----------------------------- */

/*
 * The state change hook's work, under tcp.lock: a birth, a close, or a
 * change that leaves the handshake (the addresses are final from there) or
 * runs in process context (it may own the session).
 */
static noinline void ds_state_change(const struct sock *sk, int oldstate,
				     int newstate)
{
	unsigned long flags;
	struct ds_sess *e;

	raw_spin_lock_irqsave(&tcp.lock, flags);
	e = ds_sess_find(sk);
	if (e && !ds_sess_identity(e, sk)) {
		/* not the session we knew: its close went unseen */
		tcp.st.stale++;
		ds_sess_release(e);
		e = NULL;
	}
	if (!e) {
		if (ds_sess_handshake(newstate))
			ds_sess_birth(sk, newstate);
	} else if (newstate == TCP_CLOSE) {
		ds_sess_close(e, sk, oldstate);
	} else {
		if (ds_sess_handshake(oldstate))
			ds_sess_addrs(&e->info, sk);
		e->info.state = newstate;
		ds_sess_owner(&e->info);
	}
	raw_spin_unlock_irqrestore(&tcp.lock, flags);
}

/* ---- session events ---------------------------------------------------- */

#define DS_EV_RING	DROPSCOPE_SESS_EVENTS_RING

/* on while some socket wants state changes, and the tcp part runs */
static DEFINE_STATIC_KEY_FALSE(ds_ev_states_key);

/* The ring of events, under tcp.lock: head counts every one recorded. */
static struct ds_sess_event *ds_ev;
static u64 ds_ev_head;
static u64 ds_ev_alerted;	/* under ds_lock: head at the last round */

/*
 * Record an event of sk (a full socket, or a request one for a SYN-ACK:
 * req), with its session's owner and cookie when it has one. The oldest
 * event is overwritten when the ring is full: the alert round counts it.
 */
static noinline void ds_sess_event(const struct sock *sk,
				   const struct request_sock *req, u8 kind,
				   int oldstate, int newstate, u32 segs)
{
	struct ds_sess_event *ev;
	unsigned long flags;
	struct ds_sess *e;

	raw_spin_lock_irqsave(&tcp.lock, flags);
	ev = &ds_ev[ds_ev_head++ & (DS_EV_RING - 1)];
	tcp.st.events++;
	ev->ns = ktime_get_ns();
	ev->kind = kind;
	ev->oldstate = oldstate;
	ev->newstate = newstate;
	ev->segs = segs;
	ev->cookie = 0;
	ev->pid = 0;
	memset(ev->comm, 0, sizeof(ev->comm));
	if (req) {
		/* a request sock begins with its sock_common (req_to_sk()) */
		const struct sock *rsk = (const struct sock *)req;

		ev->family = rsk->sk_family;
		ev->sport = htons(rsk->sk_num);
		ev->dport = rsk->sk_dport;
		ds_sk_ips(&ev->saddr, &ev->daddr, rsk);
	} else {
		ds_sk_addrs(sk, &ev->family, &ev->sport, &ev->dport,
			    &ev->saddr, &ev->daddr);
		e = ds_sess_find(sk);
		if (e) {
			ev->cookie = e->info.cookie;
			ev->pid = e->info.pid;
			memcpy(ev->comm, e->info.comm, sizeof(ev->comm));
		}
	}
	if (!ev->pid && in_task() && !(current->flags & PF_KTHREAD)) {
		ev->pid = task_tgid_nr(current);
		memcpy(ev->comm, current->comm, sizeof(ev->comm));
		ev->comm[sizeof(ev->comm) - 1] = '\0';
	}
	raw_spin_unlock_irqrestore(&tcp.lock, flags);
}

/*
 * tcp:tcp_retransmit_skb: a retransmit of its segments (total_retrans);
 * one that failed (where the kernel says so) retransmitted nothing
 */
static notrace void ds_rtx_probe(DS_TCP_RETRANSMIT_PROBE_ARGS)
{
	if (DS_TCP_RETRANSMIT_FAILED)
		return;
	ds_sess_event(sk, NULL, DROPSCOPE_SESS_EVENT_RETRANS, sk->sk_state,
		      sk->sk_state, tcp_skb_pcount(skb));
}

/*
 * tcp:tcp_retransmit_synack: a SYN-ACK sent again for a request; the
 * child it becomes starts with these in its total_retrans.
 */
static notrace void ds_synack_probe(void *data, const struct sock *sk,
				    const struct request_sock *req)
{
	ds_sess_event(NULL, req, DROPSCOPE_SESS_EVENT_RETRANS, TCP_SYN_RECV,
		      TCP_SYN_RECV, 1);
}

/* tcp_send_loss_probe(sk): a tail loss probe's turn, as tcpretrans -l */
static int ds_tlp_pre(struct kprobe *p, struct pt_regs *regs)
{
	const struct sock *sk = (void *)regs_get_kernel_argument(regs, 0);

	ds_sess_event(sk, NULL, DROPSCOPE_SESS_EVENT_TLP, sk->sk_state,
		      sk->sk_state, 0);
	return 0;
}

/* The watcher of listeners (ds_tcp_watch_listen()), on while there is one */
static ds_listen_fn ds_listen_watcher;
static DEFINE_STATIC_KEY_FALSE(ds_listen_key);

/*
 * Every TCP state change comes here, ten of them in a short session, so
 * this part takes no lock and has no frame. A change in softirq between
 * the end of the handshake and the close (FIN_WAIT1 to FIN_WAIT2, or
 * ESTABLISHED to CLOSE_WAIT on a FIN) has nothing to tell the session: it
 * owns no process, and the addresses are read already. It is not looked
 * up; a live session's state is read from its socket when it is dumped.
 */
static notrace void ds_state_probe(void *data, const struct sock *sk,
				   const int oldstate, const int newstate)
{
	if (sk->sk_protocol != IPPROTO_TCP || sk->sk_type != SOCK_STREAM)
		return;
	/* a watcher of listeners shares the probe: one call a change */
	if (static_branch_unlikely(&ds_listen_key) &&
	    (oldstate == TCP_LISTEN || newstate == TCP_LISTEN)) {
		/* pairs with the smp_store_release() in ds_tcp_watch_listen() */
		ds_listen_fn fn = smp_load_acquire(&ds_listen_watcher);

		if (fn)
			fn(sk, oldstate, newstate);
	}
	if (!static_branch_unlikely(&ds_sess_drops_key))
		return;
	if (static_branch_unlikely(&ds_ev_states_key))
		ds_sess_event(sk, NULL, DROPSCOPE_SESS_EVENT_STATE, oldstate,
			      newstate, 0);
	if (ds_sess_handshake(newstate) || newstate == TCP_CLOSE ||
	    ds_sess_handshake(oldstate) ||
	    (in_task() && !static_branch_likely(&ds_accept_key)))
		ds_state_change(sk, oldstate, newstate);
}

/*
 * accept(): the process that accepts a passive session owns it, as ss -p
 * would show it. The child is grafted onto the new socket in the accepting
 * process's context, sock_graft() calling security_sock_graft() (6.1 to
 * mainline): an entry probe there, with the child as its first argument.
 * A kernel thread accepting (an SMC listener's worker) owns nothing.
 */
static int ds_accept_pre(struct kprobe *p, struct pt_regs *regs)
{
	const struct sock *sk = (void *)regs_get_kernel_argument(regs, 0);
	unsigned long flags;
	struct ds_sess *e;

	if (!sk || sk->sk_protocol != IPPROTO_TCP ||
	    sk->sk_type != SOCK_STREAM || (current->flags & PF_KTHREAD))
		return 0;
	raw_spin_lock_irqsave(&tcp.lock, flags);
	e = ds_sess_find(sk);
	if (e && ds_sess_identity(e, sk))
		ds_sess_owner(&e->info);
	raw_spin_unlock_irqrestore(&tcp.lock, flags);
	return 0;
}

static struct kprobe ds_accept_kp;

/* A kprobe is registered from a clean struct each time. */
static void ds_accept_attach(void)
{
	memset(&ds_accept_kp, 0, sizeof(ds_accept_kp));
	ds_accept_kp.symbol_name = "security_sock_graft";
	ds_accept_kp.pre_handler = ds_accept_pre;
	if (register_kprobe(&ds_accept_kp)) {
		ds_accept_kp.addr = NULL;
		return;
	}
	static_branch_enable(&ds_accept_key);
}

/* Returns once no handler runs (unregister_kprobe() waits for them). */
static void ds_accept_detach(void)
{
	if (!ds_accept_kp.addr)
		return;
	static_branch_disable(&ds_accept_key);
	unregister_kprobe(&ds_accept_kp);
	ds_accept_kp.addr = NULL;
}

/*
 * An active reset is sent after the socket went to TCP_CLOSE (tcp_close(),
 * tcp_disconnect()): its session is in the ring already. Look for it
 * among the newest closes, by cookie.
 */
#define DS_LATE_RESET_DEPTH	16

static void ds_late_reset(const struct sock *sk)
{
	u64 cookie = ds_sk_cookie(sk), seq = tcp.head, stop;
	struct ds_sess_info *r;

	if (!cookie)
		return;
	stop = seq > DS_LATE_RESET_DEPTH ? seq - DS_LATE_RESET_DEPTH : 0;
	if (seq > ds_closed_cap && stop < seq - ds_closed_cap)
		stop = seq - ds_closed_cap;
	while (seq-- > stop) {
		r = &tcp.ring[seq & (ds_closed_cap - 1)];
		if (r->cookie == cookie) {
			r->resets_sent++;
			return;
		}
	}
}

static void ds_rst(const struct sock *sk, bool sent)
{
	unsigned long flags;
	struct ds_sess *e;

	/* NULL, or a request or timewait socket: no session of ours */
	if (!sk || !sk_fullsock(sk))
		return;
	raw_spin_lock_irqsave(&tcp.lock, flags);
	e = ds_sess_find(sk);
	if (e && (!e->info.cookie || e->info.cookie == ds_sk_cookie(sk))) {
		if (sent)
			e->info.resets_sent++;
		else
			e->info.resets_received++;
		ds_sess_owner(&e->info);
	} else if (!e && sent) {
		ds_late_reset(sk);
	}
	raw_spin_unlock_irqrestore(&tcp.lock, flags);
}

static notrace void ds_send_reset_probe(DS_TCP_SEND_RESET_PROBE_ARGS)
{
	ds_rst(sk, true);
}

static notrace void ds_receive_reset_probe(void *data, struct sock *sk)
{
	ds_rst(sk, false);
}

#ifdef DS_PREEMPT_TEST
void ds_ptest_state(struct sock *sk, int oldstate, int newstate)
{
	ds_state_probe(NULL, sk, oldstate, newstate);
}

void ds_ptest_reset(struct sock *sk)
{
	ds_receive_reset_probe(NULL, sk);
}
#endif

/* The tracepoints, found by name: not all of them are exported. */
static struct ds_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool on;
} ds_tps[] = {
	{ "inet_sock_set_state", ds_state_probe },
	{ "tcp_send_reset", ds_send_reset_probe },
	{ "tcp_receive_reset", ds_receive_reset_probe },
	/* from here on, while some socket wants retransmit events */
	{ "tcp_retransmit_skb", ds_rtx_probe },
	{ "tcp_retransmit_synack", ds_synack_probe },
};

#define DS_TPS_ALWAYS	3
#define DS_TP_RTX	3

/*
 * The hooks are registered on tracepoints found by name, which checks
 * nothing of their arguments: check them against the tracepoints' headers
 * here, so that a prototype that changed fails the build
 * (-Werror=incompatible-pointer-types) instead of reading wrong registers.
 */
static inline void ds_tps_check(void)
{
	check_trace_callback_type_inet_sock_set_state(ds_state_probe);
	check_trace_callback_type_tcp_send_reset(ds_send_reset_probe);
	check_trace_callback_type_tcp_receive_reset(ds_receive_reset_probe);
	check_trace_callback_type_tcp_retransmit_skb(ds_rtx_probe);
	check_trace_callback_type_tcp_retransmit_synack(ds_synack_probe);
}

static void ds_tp_find(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ds_tps); i++)
		if (!strcmp(tp->name, ds_tps[i].name))
			ds_tps[i].tp = tp;
}

/* ---- the source: under ds_lock, process context ------------------------ */

/* Forget every live session; the hooks are detached. */
static void ds_sess_clear_live(void)
{
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&tcp.lock, flags);
	for (i = 0; i < ds_sessions_cap; i++)
		if (tcp.e[i].sk)
			ds_sess_release(&tcp.e[i]);
	raw_spin_unlock_irqrestore(&tcp.lock, flags);
}

/* ---- start: the sessions already open --------------------------------- */

/*
 * A socket found open at start becomes a session, under its own lock: no
 * state change of it runs meanwhile, so it is not closed (its TCP_CLOSE
 * hook run, and missed) between the test and the birth. Its owner is
 * whoever touches it next in a process context, not this one.
 */
static void ds_sess_adopt(struct sock *sk)
{
	unsigned long flags;
	struct ds_sess *e;
	int state;

	lock_sock(sk);
	state = sk->sk_state;
	if (state == TCP_CLOSE || state == TCP_LISTEN || sk_unhashed(sk))
		goto out;
	raw_spin_lock_irqsave(&tcp.lock, flags);
	if (!ds_sess_find(sk)) {
		e = ds_sess_birth(sk, state);
		if (e) {
			e->info.cookie = ds_sk_gen_cookie(sk);
			e->info.pid = 0;
			memset(e->info.comm, 0, sizeof(e->info.comm));
			e->info.found = true;
			tcp.st.found++;
		}
	}
	raw_spin_unlock_irqrestore(&tcp.lock, flags);
out:
	release_sock(sk);
}

#define DS_WALK_BATCH	16

/*
 * Walk one TCP established hash as inet_diag does: a bucket at a time,
 * its full TCP sockets taken (a reference each, DS_WALK_BATCH at most)
 * under the bucket's lock, then adopted with it dropped; a bucket with
 * more is walked again past those. Request and TIME_WAIT sockets are no
 * sessions.
 */
static void ds_sess_walk(struct inet_hashinfo *h)
{
	struct sock *batch[DS_WALK_BATCH];
	struct hlist_nulls_node *node;
	unsigned int b, skip, n, i, num;
	struct sock *sk;

	for (b = 0; b <= h->ehash_mask; b++) {
		skip = 0;
		do {
			if (hlist_nulls_empty(&h->ehash[b].chain))
				break;
			n = 0;
			num = 0;
			spin_lock_bh(inet_ehash_lockp(h, b));
			sk_nulls_for_each(sk, node, &h->ehash[b].chain) {
				if (!sk_fullsock(sk) ||
				    sk->sk_protocol != IPPROTO_TCP ||
				    sk->sk_type != SOCK_STREAM)
					continue;
				if (num++ < skip)
					continue;
				if (n == DS_WALK_BATCH)
					break;
				if (refcount_inc_not_zero(&sk->sk_refcnt))
					batch[n++] = sk;
			}
			spin_unlock_bh(inet_ehash_lockp(h, b));
			for (i = 0; i < n; i++) {
				ds_sess_adopt(batch[i]);
				sock_put(batch[i]);
			}
			skip += n;
			cond_resched();
		} while (n == DS_WALK_BATCH);
	}
}

/*
 * The sessions open at start, in every network namespace: those that
 * share the global hash (all of them, unless tcp_child_ehash_entries gave
 * one its own) in one walk, and each hash of a namespace's own. The hooks
 * are attached already: a session born meanwhile is found once.
 */
static void ds_sess_find_open(void)
{
	struct inet_hashinfo *global = init_net.ipv4.tcp_death_row.hashinfo;
	struct net **nets = NULL, *net;
	unsigned int n = 0, max = 0, i;

	ds_sess_walk(global);
	rcu_read_lock();
	for_each_net_rcu(net)
		max += net->ipv4.tcp_death_row.hashinfo != global;
	rcu_read_unlock();
	if (max)
		nets = kcalloc(max, sizeof(*nets), GFP_KERNEL);
	if (!nets)
		return;
	rcu_read_lock();
	for_each_net_rcu(net)
		if (n < max && net->ipv4.tcp_death_row.hashinfo != global &&
		    maybe_get_net(net))
			nets[n++] = net;
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		ds_sess_walk(nets[i]->ipv4.tcp_death_row.hashinfo);
		put_net(nets[i]);
	}
	kfree(nets);
}

/*
 * Users of ds_tps[0], sock:inet_sock_set_state: sessions and a watcher of
 * listeners. After a put, the caller waits with
 * tracepoint_synchronize_unregister().
 */
static unsigned int ds_state_users;

static int ds_state_hook_get(void)
{
	int err;

	lockdep_assert_held(&ds_lock);
	if (!ds_state_users) {
		if (!ds_tps[0].tp)
			return -EOPNOTSUPP;
		err = tracepoint_probe_register(ds_tps[0].tp, ds_tps[0].probe,
						NULL);
		if (err)
			return err;
	}
	ds_state_users++;
	return 0;
}

static void ds_state_hook_put(void)
{
	lockdep_assert_held(&ds_lock);
	if (WARN_ON_ONCE(!ds_state_users) || --ds_state_users)
		return;
	tracepoint_probe_unregister(ds_tps[0].tp, ds_tps[0].probe, NULL);
}

int ds_tcp_watch_listen(ds_listen_fn fn)
{
	int err;

	lockdep_assert_held(&ds_lock);
	err = ds_state_hook_get();
	if (err)
		return err;
	/* pairs with the smp_load_acquire() in ds_state_probe() */
	smp_store_release(&ds_listen_watcher, fn);
	static_branch_enable(&ds_listen_key);
	return 0;
}

/*
 * The watcher stays set: a probe past the key may still call it until the
 * caller's tracepoint_synchronize_unregister().
 */
void ds_tcp_unwatch_listen(void)
{
	lockdep_assert_held(&ds_lock);
	static_branch_disable(&ds_listen_key);
	ds_state_hook_put();
}

/* ---- who wants session events: under ds_lock -------------------------- */

static struct ds_ev_sock {
	const struct net *net;
	u32 portid;
	u32 mask;		/* 0: a free slot */
} ds_ev_socks[DROPSCOPE_MAX_EVENT_SOCKS];

static struct kprobe ds_tlp_kp;
static bool ds_ev_rtx_on;	/* the retransmit hooks are registered */

u32 ds_sess_events_mask(void)
{
	u32 i, mask = 0;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < ARRAY_SIZE(ds_ev_socks); i++)
		mask |= ds_ev_socks[i].mask;
	return mask;
}

/* The caller waits with tracepoint_synchronize_unregister(). */
static void ds_ev_rtx_off(void)
{
	if (!ds_ev_rtx_on)
		return;
	unregister_kprobe(&ds_tlp_kp);
	tracepoint_probe_unregister(ds_tps[DS_TP_RTX + 1].tp,
				    ds_tps[DS_TP_RTX + 1].probe, NULL);
	tracepoint_probe_unregister(ds_tps[DS_TP_RTX].tp,
				    ds_tps[DS_TP_RTX].probe, NULL);
	ds_ev_rtx_on = false;
}

static int ds_ev_rtx_attach(struct netlink_ext_ack *extack)
{
	int err;

	if (ds_ev_rtx_on)
		return 0;
	if (!ds_tps[DS_TP_RTX].tp || !ds_tps[DS_TP_RTX + 1].tp) {
		NL_SET_ERR_MSG(extack,
			       "this kernel lacks tcp:tcp_retransmit_skb or tcp:tcp_retransmit_synack");
		return -EOPNOTSUPP;
	}
	memset(&ds_tlp_kp, 0, sizeof(ds_tlp_kp));
	ds_tlp_kp.symbol_name = "tcp_send_loss_probe";
	ds_tlp_kp.pre_handler = ds_tlp_pre;
	err = tracepoint_probe_register(ds_tps[DS_TP_RTX].tp,
					ds_tps[DS_TP_RTX].probe, NULL);
	if (err)
		goto err;
	err = tracepoint_probe_register(ds_tps[DS_TP_RTX + 1].tp,
					ds_tps[DS_TP_RTX + 1].probe, NULL);
	if (err)
		goto err_rtx;
	err = register_kprobe(&ds_tlp_kp);
	if (err)
		goto err_synack;
	ds_ev_rtx_on = true;
	return 0;
err_synack:
	tracepoint_probe_unregister(ds_tps[DS_TP_RTX + 1].tp,
				    ds_tps[DS_TP_RTX + 1].probe, NULL);
err_rtx:
	tracepoint_probe_unregister(ds_tps[DS_TP_RTX].tp,
				    ds_tps[DS_TP_RTX].probe, NULL);
err:
	tracepoint_synchronize_unregister();
	NL_SET_ERR_MSG(extack, "cannot hook the TCP retransmits");
	return err;
}

/*
 * Make the hooks what the sockets want, while the tcp part runs: on
 * error, the retransmit hooks stay off.
 */
static int ds_ev_apply(struct netlink_ext_ack *extack)
{
	u32 want = tcp.attached ? ds_sess_events_mask() : 0;
	int err = 0;

	if (want & DROPSCOPE_SESS_EVENTS_STATES)
		static_branch_enable(&ds_ev_states_key);
	else
		static_branch_disable(&ds_ev_states_key);
	if (want & DROPSCOPE_SESS_EVENTS_RETRANS) {
		err = ds_ev_rtx_attach(extack);
	} else if (ds_ev_rtx_on) {
		ds_ev_rtx_off();
		tracepoint_synchronize_unregister();
	}
	return err;
}

int ds_sess_events_set(const struct net *net, u32 portid, u32 mask,
		       struct netlink_ext_ack *extack)
{
	struct ds_ev_sock *s = NULL, *free = NULL;
	u32 i, old;
	int err;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < ARRAY_SIZE(ds_ev_socks); i++) {
		if (!ds_ev_socks[i].mask)
			free = free ?: &ds_ev_socks[i];
		else if (ds_ev_socks[i].portid == portid &&
			 net_eq(ds_ev_socks[i].net, net))
			s = &ds_ev_socks[i];
	}
	if (!s && !mask)
		return 0;
	if (!s && !free) {
		NL_SET_ERR_MSG(extack,
			       "too many sockets want session events at once");
		return -ENOSPC;
	}
	if (!s) {
		s = free;
		s->net = net;
		s->portid = portid;
	}
	old = s->mask;
	s->mask = mask;
	err = ds_ev_apply(extack);
	if (err) {
		s->mask = old;
		ds_ev_apply(NULL);
	}
	return err;
}

/* A socket that wanted events is closed: it wants none. */
static int ds_ev_notify(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct netlink_notify *n = ptr;
	bool changed = false;
	u32 i;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	mutex_lock(&ds_lock);
	for (i = 0; i < ARRAY_SIZE(ds_ev_socks); i++) {
		if (ds_ev_socks[i].mask && ds_ev_socks[i].portid == n->portid &&
		    net_eq(ds_ev_socks[i].net, n->net)) {
			ds_ev_socks[i].mask = 0;
			changed = true;
		}
	}
	if (changed)
		ds_ev_apply(NULL);
	mutex_unlock(&ds_lock);
	return NOTIFY_DONE;
}

static struct notifier_block ds_ev_nb = {
	.notifier_call = ds_ev_notify,
};

static void ds_tcp_unregister(void)
{
	size_t i;

	ds_accept_detach();
	static_branch_disable(&ds_ev_states_key);
	ds_ev_rtx_off();
	for (i = 0; i < ARRAY_SIZE(ds_tps); i++) {
		if (ds_tps[i].on && !i)
			ds_state_hook_put();
		else if (ds_tps[i].on)
			tracepoint_probe_unregister(ds_tps[i].tp,
						    ds_tps[i].probe, NULL);
		ds_tps[i].on = false;
	}
	/*
	 * No hook runs on any CPU once this returns: nor does the state
	 * probe that SMC may still hold past its ds_sess_drops_key test.
	 */
	tracepoint_synchronize_unregister();
}

static int ds_tcp_attach(struct netlink_ext_ack *extack)
{
	size_t i;
	int err;

	lockdep_assert_held(&ds_lock);
	if (tcp.attached)
		return 0;
	for (i = 0; i < DS_TPS_ALWAYS; i++) {
		if (!ds_tps[i].tp) {
			NL_SET_ERR_MSG(extack,
				       "this kernel lacks the TCP tracepoints");
			err = -EOPNOTSUPP;
			goto err;
		}
		if (!i)
			err = ds_state_hook_get();
		else
			err = tracepoint_probe_register(ds_tps[i].tp,
							ds_tps[i].probe, NULL);
		if (err) {
			NL_SET_ERR_MSG(extack,
				       "cannot attach to the TCP tracepoints");
			goto err;
		}
		ds_tps[i].on = true;
	}
	ds_accept_attach();
	static_branch_enable(&ds_sess_drops_key);
	static_branch_inc(&ds_sock_key);
	tcp.attached = true;
	/* what sockets asked for while it was stopped; a failure: none */
	ds_ev_apply(NULL);
	ds_sess_find_open();
	return 0;
err:
	ds_tcp_unregister();
	ds_sess_clear_live();
	return err;
}

static void ds_tcp_detach(void)
{
	lockdep_assert_held(&ds_lock);
	if (!tcp.attached)
		return;
	static_branch_dec(&ds_sock_key);
	static_branch_disable(&ds_sess_drops_key);
	ds_tcp_unregister();
	tcp.attached = false;
	/* their sockets are not watched any more: never read them again */
	ds_sess_clear_live();
}

static void ds_tcp_fold(void)
{
}

/*
 * A session's attributes written in place. A dump puts tens of thousands
 * of sessions of twenty attributes each, and nla_put() checks the room,
 * reserves, pads and copies each one through four calls: most of the
 * kernel's part of a dump. Here the room for the most a session can take
 * is checked once, and each attribute is stored where it goes, its header,
 * value and zeroed padding, with a pad attribute before a 64-bit value
 * where nla_put_64bit() would put one. The message is the same, byte for
 * byte, as the nla_put_*() calls would make.
 */
struct ds_nlw {
	char *at;		/* where the next attribute goes */
};

static __always_inline void ds_nlw_put(struct ds_nlw *w, int type,
				       const void *v, int len)
{
	struct nlattr *a = (struct nlattr *)w->at;

	a->nla_len = nla_attr_size(len);
	a->nla_type = type;
	memcpy(nla_data(a), v, len);
	memset((char *)nla_data(a) + len, 0, nla_padlen(len));
	w->at += nla_total_size(len);
}

static __always_inline void ds_nlw_u64(struct ds_nlw *w, int type, u64 v)
{
#ifndef CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS
	/* as nla_align_64bit(): the value 8-aligned after its header */
	if (IS_ALIGNED((unsigned long)w->at, 8))
		ds_nlw_put(w, DROPSCOPE_SESSION_A_PAD, NULL, 0);
#endif
	ds_nlw_put(w, type, &v, sizeof(v));
}

#define ds_nlw_u32(w, type, v)	ds_nlw_put(w, type, &(u32){ v }, sizeof(u32))
#define ds_nlw_u16(w, type, v)	ds_nlw_put(w, type, &(u16){ v }, sizeof(u16))
#define ds_nlw_u8(w, type, v)	ds_nlw_put(w, type, &(u8){ v }, sizeof(u8))
#define ds_nlw_flag(w, type)	ds_nlw_put(w, type, NULL, 0)

/* The most a session's attributes take (a pad before each 64-bit value). */
#define DS_SESS_ROOM							\
	(8 * (NLA_HDRLEN + nla_total_size(sizeof(u64))) +		\
	 3 * nla_total_size(sizeof(u8)) + 2 * nla_total_size(sizeof(u16)) + \
	 6 * nla_total_size(sizeof(u32)) +				\
	 2 * nla_total_size(sizeof(struct in6_addr)) +			\
	 nla_total_size(TASK_COMM_LEN) + 2 * nla_total_size(0) +	\
	 nla_total_size(sizeof(struct dropscope_tcp_state)))

/* The transport state of a live session: one struct, as INET_DIAG_INFO. */
static void ds_sess_put_tcp(struct ds_nlw *w, const struct ds_sess_info *s)
{
	const struct dropscope_tcp_state t = {
		.rtt_us = s->rtt_us,
		.rttvar_us = s->rttvar_us,
		.snd_cwnd = s->snd_cwnd,
		.snd_ssthresh = s->snd_ssthresh,
		.snd_wnd = s->snd_wnd,
		.rcv_wnd = s->rcv_wnd,
		.unacked = s->unacked,
		.lost = s->lost,
		.retrans = s->retrans,
		.delivery_rate = s->delivery_rate,
	};

	ds_nlw_put(w, DROPSCOPE_SESSION_A_TCP, &t, sizeof(t));
}

/* Put one session nest: a struct ds_sess_info (for ds_round_put() too). */
int ds_sess_put(struct sk_buff *skb, const void *arg)
{
	const struct ds_sess_info *s = arg;
	size_t comm = strnlen(s->comm, sizeof(s->comm) - 1);
	struct nlattr *nest, *a;
	struct ds_nlw w;
	char *start;

	nest = nla_nest_start(skb, DROPSCOPE_A_SESSION);
	if (!nest)
		return -EMSGSIZE;
	if (skb_tailroom(skb) < DS_SESS_ROOM) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	start = skb_tail_pointer(skb);
	w.at = start;
	ds_nlw_u64(&w, DROPSCOPE_SESSION_A_COOKIE, s->cookie);
	ds_nlw_u8(&w, DROPSCOPE_SESSION_A_FAMILY, s->family);
	if (s->family == AF_INET6) {
		ds_nlw_put(&w, DROPSCOPE_SESSION_A_SADDR, &s->saddr, 16);
		ds_nlw_put(&w, DROPSCOPE_SESSION_A_DADDR, &s->daddr, 16);
	} else {
		ds_nlw_put(&w, DROPSCOPE_SESSION_A_SADDR, &s->saddr, 4);
		ds_nlw_put(&w, DROPSCOPE_SESSION_A_DADDR, &s->daddr, 4);
	}
	ds_nlw_u16(&w, DROPSCOPE_SESSION_A_SPORT, ntohs(s->sport));
	ds_nlw_u16(&w, DROPSCOPE_SESSION_A_DPORT, ntohs(s->dport));
	ds_nlw_u8(&w, DROPSCOPE_SESSION_A_STATE, s->state);
	ds_nlw_u32(&w, DROPSCOPE_SESSION_A_PID, s->pid);
	/* as nla_put_string(): the NUL included */
	a = (struct nlattr *)w.at;
	ds_nlw_put(&w, DROPSCOPE_SESSION_A_COMM, s->comm, comm + 1);
	((char *)nla_data(a))[comm] = '\0';
	ds_nlw_u64(&w, DROPSCOPE_SESSION_A_START_NS, s->start_ns);
	ds_nlw_u64(&w, DROPSCOPE_SESSION_A_DURATION_NS, s->duration_ns);
	ds_nlw_u64(&w, DROPSCOPE_SESSION_A_BYTES_ACKED, s->bytes_acked);
	ds_nlw_u64(&w, DROPSCOPE_SESSION_A_BYTES_RECEIVED, s->bytes_received);
	ds_nlw_u32(&w, DROPSCOPE_SESSION_A_TOTAL_RETRANS, s->total_retrans);
	ds_nlw_u32(&w, DROPSCOPE_SESSION_A_RESETS_SENT, s->resets_sent);
	ds_nlw_u32(&w, DROPSCOPE_SESSION_A_RESETS_RECEIVED, s->resets_received);
	ds_nlw_u64(&w, DROPSCOPE_SESSION_A_DROPS, s->drops);
	if (s->closed) {
		ds_nlw_flag(&w, DROPSCOPE_SESSION_A_CLOSED);
		ds_nlw_u64(&w, DROPSCOPE_SESSION_A_SEQ, s->seq);
	}
	if (s->smc_mode)
		ds_nlw_u8(&w, DROPSCOPE_SESSION_A_SMC_MODE, s->smc_mode);
	if (s->smc_mode == DROPSCOPE_SMC_MODE_FALLBACK)
		ds_nlw_u32(&w, DROPSCOPE_SESSION_A_SMC_REASON, s->smc_reason);
	if (s->run)
		ds_nlw_u32(&w, DROPSCOPE_SESSION_A_RUN, s->run);
	if (s->found)
		ds_nlw_flag(&w, DROPSCOPE_SESSION_A_FOUND);
	if (s->has_tcp)
		ds_sess_put_tcp(&w, s);
	__skb_put(skb, w.at - start);
	nla_nest_end(skb, nest);
	return 0;
}

/* One event nest. */
static int ds_ev_put(struct sk_buff *skb, const void *arg)
{
	const struct ds_sess_event *ev = arg;
	int alen = ev->family == AF_INET6 ? 16 : 4;
	struct nlattr *nest;

	nest = nla_nest_start(skb, DROPSCOPE_A_SESS_EVENT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, DROPSCOPE_EVENT_A_KIND, ev->kind) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_EVENT_A_TIME_NS, ev->ns,
			      DROPSCOPE_EVENT_A_PAD) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_EVENT_A_COOKIE, ev->cookie,
			      DROPSCOPE_EVENT_A_PAD) ||
	    nla_put_u32(skb, DROPSCOPE_EVENT_A_PID, ev->pid) ||
	    nla_put_string(skb, DROPSCOPE_EVENT_A_COMM, ev->comm) ||
	    nla_put_u8(skb, DROPSCOPE_EVENT_A_FAMILY, ev->family) ||
	    nla_put(skb, DROPSCOPE_EVENT_A_SADDR, alen, &ev->saddr) ||
	    nla_put(skb, DROPSCOPE_EVENT_A_DADDR, alen, &ev->daddr) ||
	    nla_put_u16(skb, DROPSCOPE_EVENT_A_SPORT, ntohs(ev->sport)) ||
	    nla_put_u16(skb, DROPSCOPE_EVENT_A_DPORT, ntohs(ev->dport)) ||
	    nla_put_u8(skb, DROPSCOPE_EVENT_A_OLDSTATE, ev->oldstate) ||
	    nla_put_u8(skb, DROPSCOPE_EVENT_A_NEWSTATE, ev->newstate) ||
	    (ev->kind == DROPSCOPE_SESS_EVENT_RETRANS &&
	     nla_put_u32(skb, DROPSCOPE_EVENT_A_SEGS, ev->segs))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * The events since the last round, in order; those overwritten before it
 * are counted lost, as are those of a round nobody listens to.
 */
static void ds_ev_alert(struct ds_round *round)
{
	bool muted = ds_round_muted(round);
	struct ds_sess_event ev;
	unsigned long flags;
	u64 seq = ds_ev_alerted, lost = 0;

	for (;;) {
		raw_spin_lock_irqsave(&tcp.lock, flags);
		if (ds_ev_head - seq > DS_EV_RING) {
			lost += ds_ev_head - DS_EV_RING - seq;
			seq = ds_ev_head - DS_EV_RING;
		}
		if (seq >= ds_ev_head || muted) {
			lost += muted ? ds_ev_head - seq : 0;
			seq = ds_ev_head;
			tcp.st.events_lost += lost;
			raw_spin_unlock_irqrestore(&tcp.lock, flags);
			break;
		}
		ev = ds_ev[seq & (DS_EV_RING - 1)];
		raw_spin_unlock_irqrestore(&tcp.lock, flags);
		seq++;
		ds_round_put(round, ds_ev_put, &ev);
	}
	ds_ev_alerted = seq;
	if (lost && !muted)
		ds_round_put_u64(round, DROPSCOPE_A_SESS_EVENTS_LOST_DELTA, lost);
}

/* Closed sessions since the last round, as many as the ring still has. */
static void ds_tcp_alert(struct ds_round *round)
{
	bool muted = ds_round_muted(round);
	struct ds_sess_info info;
	unsigned long flags;
	u64 seq = tcp.alerted;
	u32 slot;

	lockdep_assert_held(&ds_lock);
	if (muted) {
		/* nobody listens: the round would drop each of them */
		raw_spin_lock_irqsave(&tcp.lock, flags);
		tcp.alerted = tcp.head;
		raw_spin_unlock_irqrestore(&tcp.lock, flags);
		ds_ev_alert(round);
		return;
	}
	for (;;) {
		raw_spin_lock_irqsave(&tcp.lock, flags);
		if (tcp.head > ds_closed_cap && seq < tcp.head - ds_closed_cap)
			seq = tcp.head - ds_closed_cap;
		if (seq >= tcp.head) {
			raw_spin_unlock_irqrestore(&tcp.lock, flags);
			break;
		}
		slot = seq & (ds_closed_cap - 1);
		info = tcp.ring[slot];
		tcp.ring_read[slot] = true;
		raw_spin_unlock_irqrestore(&tcp.lock, flags);
		seq++;
		ds_round_put(round, ds_sess_put, &info);
	}
	tcp.alerted = seq;
	ds_ev_alert(round);
}

static u64 ds_sess_masked_sum(void)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu)
		sum += local64_read(per_cpu_ptr(&ds_sess_masked, cpu));
	return sum;
}

/* Forget the ring and the statistics; live sessions stay while attached. */
static void ds_tcp_reset(bool attached)
{
	unsigned long flags;

	lockdep_assert_held(&ds_lock);
	/* the drop path counts on: the masked count restarts from here */
	tcp.masked_base = ds_sess_masked_sum();
	raw_spin_lock_irqsave(&tcp.lock, flags);
	tcp.head = 0;
	memset(tcp.ring_read, 0, ds_closed_cap * sizeof(*tcp.ring_read));
	memset(&tcp.st, 0, sizeof(tcp.st));
	ds_ev_head = 0;
	raw_spin_unlock_irqrestore(&tcp.lock, flags);
	tcp.alerted = 0;
	ds_ev_alerted = 0;
}

static void ds_tcp_free(void)
{
}

const struct ds_source ds_tcp_source = {
	.name = "tcp",
	.part = DROPSCOPE_PART_TCP,
	.attach = ds_tcp_attach,
	.detach = ds_tcp_detach,
	.fold = ds_tcp_fold,
	.alert = ds_tcp_alert,
	.reset = ds_tcp_reset,
	.free = ds_tcp_free,
};

/* Under ds_lock, which masked_base is written under too. */
void ds_sessions_stats(struct ds_sess_stats *st)
{
	u64 masked = ds_sess_masked_sum() - tcp.masked_base;
	unsigned long flags;

	lockdep_assert_held(&ds_lock);
	raw_spin_lock_irqsave(&tcp.lock, flags);
	*st = tcp.st;
	st->live = tcp.live;
	raw_spin_unlock_irqrestore(&tcp.lock, flags);
	st->drops_masked = masked;
}

/*
 * The live session at or after *cursor, its counters read from the socket
 * now. Under tcp.lock the socket cannot pass its TCP_CLOSE hook, so it is
 * not freed; RCU and the cookie check guard a close we never saw.
 */
int ds_sess_live_next(u32 *cursor, struct ds_sess_info *info)
{
	const struct sock *sk;
	unsigned long flags;
	bool found = false;
	struct ds_sess *e;
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = *cursor; i < ds_sessions_cap && !found; i++) {
		e = &tcp.e[i];
		if (!READ_ONCE(e->sk))
			continue;
		rcu_read_lock();
		raw_spin_lock_irqsave(&tcp.lock, flags);
		sk = e->sk;
		if (sk) {
			*info = e->info;
			ds_sess_read_sock(info, sk);
			ds_sess_read_tcp(info, sk);
			info->state = READ_ONCE(sk->sk_state);
			/* the reads above were of our socket */
			smp_rmb();
			found = !e->info.cookie ||
				ds_sk_cookie(sk) == e->info.cookie;
			info->drops = ds_sess_drops(i, e->gen);
			info->duration_ns = ktime_get_ns() - info->start_ns;
		}
		raw_spin_unlock_irqrestore(&tcp.lock, flags);
		rcu_read_unlock();
	}
	*cursor = i;
	return found ? 0 : -ENOENT;
}

/* The close at or after *cursor still in the ring; it counts as read. */
int ds_sess_closed_next(u64 *cursor, struct ds_sess_info *info)
{
	unsigned long flags;
	u32 slot;
	int err = -ENOENT;

	lockdep_assert_held(&ds_lock);
	raw_spin_lock_irqsave(&tcp.lock, flags);
	if (tcp.head > ds_closed_cap && *cursor < tcp.head - ds_closed_cap)
		*cursor = tcp.head - ds_closed_cap;
	if (*cursor < tcp.head) {
		slot = *cursor & (ds_closed_cap - 1);
		*info = tcp.ring[slot];
		tcp.ring_read[slot] = true;
		++*cursor;
		err = 0;
	}
	raw_spin_unlock_irqrestore(&tcp.lock, flags);
	return err;
}

int ds_sessions_init(void)
{
	unsigned int cpu;
	u32 i, nb;

	/* the parameters are 1 to DS_PARAM_MAX (ds_param_count_ops) */
	ds_closed_cap = roundup_pow_of_two(ds_closed_cap);
	nb = roundup_pow_of_two(ds_sessions_cap);
	tcp.hash_bits = ilog2(nb);
	tcp.e = kvcalloc(ds_sessions_cap, sizeof(*tcp.e), GFP_KERNEL);
	tcp.hash = kvcalloc(nb, sizeof(*tcp.hash), GFP_KERNEL);
	tcp.ring = kvcalloc(ds_closed_cap, sizeof(*tcp.ring), GFP_KERNEL);
	tcp.ring_read = kvcalloc(ds_closed_cap, sizeof(*tcp.ring_read),
				 GFP_KERNEL);
	ds_ev = kvcalloc(DS_EV_RING, sizeof(*ds_ev), GFP_KERNEL);
	if (!tcp.e || !tcp.hash || !tcp.ring || !tcp.ring_read || !ds_ev)
		goto err;
	for_each_possible_cpu(cpu) {
		per_cpu(ds_cells, cpu) =
			kvzalloc_node(array_size(ds_sessions_cap,
						 sizeof(local64_t)),
				      GFP_KERNEL, cpu_to_node(cpu));
		if (!per_cpu(ds_cells, cpu))
			goto err;
	}
	for (i = 0; i < nb; i++)
		INIT_HLIST_NULLS_HEAD(&tcp.hash[i], i);
	for (i = 0; i < ds_sessions_cap; i++)
		tcp.e[i].next_free = i + 1 < ds_sessions_cap ? i + 1 : U32_MAX;
	tcp.free = 0;
	ds_tps_check();
	for_each_kernel_tracepoint(ds_tp_find, NULL);
	if (netlink_register_notifier(&ds_ev_nb))
		goto err;
	return 0;
err:
	ds_sessions_exit();
	return -ENOMEM;
}

/* After every source was detached for good. */
void ds_sessions_exit(void)
{
	unsigned int cpu;

	/* not registered yet when init fails: that is no error here */
	netlink_unregister_notifier(&ds_ev_nb);
	kvfree(ds_ev);
	ds_ev = NULL;
	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(ds_cells, cpu));
		per_cpu(ds_cells, cpu) = NULL;
	}
	kvfree(tcp.e);
	kvfree(tcp.hash);
	kvfree(tcp.ring);
	kvfree(tcp.ring_read);
	tcp.e = NULL;
	tcp.hash = NULL;
	tcp.ring = NULL;
	tcp.ring_read = NULL;
}
