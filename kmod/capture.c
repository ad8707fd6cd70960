// SPDX-License-Identifier: GPL-2.0
/*
 * Captures: the dropped packets themselves, filtered in the kernel.
 *
 * A capture belongs to the netlink socket that started it. The drop probe
 * (probe.c) hands every drop to ds_capture() while a capture exists; each
 * capture tests, in this order, its rule (the fields of a mask rule), the
 * mask rules' verdict on the drop (unless it takes masked drops too), the
 * network header, and its classic BPF filter, and copies what passes into
 * its buffer on this CPU: a ring of records, the drop's metadata and the
 * packet's first snaplen bytes from its network header. A drop that does
 * not pass costs those tests and nothing more.
 *
 * The filter is what libpcap compiles for raw IP packets: offsets from
 * the network header. The kernel's checker (bpf_prog_create()) checks it
 * and converts it, and it runs on a view of the dropped packet: a per-CPU
 * sk_buff that shares the packet's memory and whose data starts at its
 * network header, wherever skb->data points at the drop. Its loads are
 * then the kernel's fast ones, inline, and len is the length from there.
 *
 * A capture may keep to one run's drops and those of no run (a run's tag:
 * a later run with the same id is not this one), and to the first N drops
 * of each key, site and reason (per_key): the evidence of "run
 * --evidence". Its keys are a small table of its own, looked up without a
 * lock and claimed under a raw spinlock, so that "first" holds across
 * CPUs; a key that finds the table full is counted. Each packet it keeps
 * carries what a report names the drop by: its run, its stack (walked
 * whole by the unwinder: a few drops of each key), its socket's addresses
 * and ports, and the task that freed it.
 *
 * Each interval the monitor's worker drains the rings into DROPSCOPE_CMD_
 * CAPTURE messages for that socket alone, as many packets to a message as
 * fit. A drop that finds its ring full, and a message the socket has no
 * room for, are counted, never silent.
 *
 * Contexts: ds_capture() runs in the drop probe, any context, with
 * preemption off (ds_probe_begin()); it writes this CPU's ring only,
 * with local interrupts off while it does (a drop in an interrupt on the
 * same CPU waits). The rest runs under
 * ds_lock in process context. The captures are published with RCU; a
 * capture is drained and freed once a grace period has passed since it
 * was taken away: no probe sees it then.
 */

#include <linux/filter.h>
#include <linux/jhash.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stringify.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include <uapi/linux/dropscope.h>

#include "dropscope.h"
#include "scope.h"

/* Each capture's ring on each CPU; a power of two */
#define DS_CAP_RING	(256U << 10)
/* filter offsets below this reach the packet, above it ancillary data */
#define DS_CAP_MAX_OFF	0xff000U
/* a record that only pads the ring to its end */
#define DS_CAP_PAD	0xffffffffU
/*
 * The most of a packet a record holds, whatever the snaplen: its nest in
 * a message must fit a netlink attribute's 16-bit length (a 64 KiB
 * datagram on lo does not). ds_cap_put_packet() checks it at build time.
 */
#define DS_CAP_MAX_CAPLEN	65452U
/* The same for a per-key capture's, whose nest holds the ext too */
#define DS_CAP_KEY_CAPLEN	(DS_CAP_MAX_CAPLEN - 512U)

/* A record in a ring, 8-byte aligned, followed by caplen bytes. */
struct ds_cap_rec {
	u32 size;		/* the record's bytes, or DS_CAP_PAD's */
	u32 reason;
	u64 tstamp;
	u64 location;
	u32 ifindex;
	u32 netns;
	u32 len;		/* from the network header */
	u16 protocol;
	u16 caplen;
	u32 stack;		/* its stack's id (stacks.c), or 0 */
	u32 extra;		/* bytes of a struct ds_cap_ext and its frames */
};

/*
 * What a per-key capture keeps of a drop besides its packet: between the
 * record and the packet's bytes, followed by nframes frames.
 */
struct ds_cap_ext {
	u32 run;
	u32 pid;		/* 0: not freed in a task's context */
	u16 sport, dport;	/* host order */
	u8 alen;		/* 4 or 16; 0: no inet socket */
	u8 nframes;
	u8 saddr[16], daddr[16];
	char comm[TASK_COMM_LEN];
};

/* A drop's ext and frames, taken once for every per-key capture. */
struct ds_cap_ev {
	struct ds_cap_ext x;
	u64 frames[DS_STACK_DEPTH];
	u32 stack;
	bool taken;
};

/* The most a packet's nest holds besides what every capture's does */
#define DS_CAP_EXT_SIZE	(nla_total_size(sizeof(u32)) + \
			 nla_total_size(DS_STACK_DEPTH * sizeof(u64)) + \
			 2 * nla_total_size(16) + 2 * nla_total_size(2) + \
			 nla_total_size(sizeof(u32)) + \
			 nla_total_size(TASK_COMM_LEN))

/* A key of a per-key capture: a site and reason, and its drops kept. */
struct ds_cap_key {
	unsigned long loc;
	u32 reason;
	atomic_t kept;		/* at most per_key */
};

#define DS_CAP_KEYS	DROPSCOPE_CAPTURE_KEYS

struct ds_cap_keys {
	raw_spinlock_t lock;	/* claims */
	u32 used;		/* under lock */
	/* entry + 1, or 0: an empty slot; published with release */
	u16 idx[2 * DS_CAP_KEYS];
	struct ds_cap_key e[DS_CAP_KEYS];
};

/* One CPU's ring of one capture: written by that CPU, read by the drain. */
struct ds_cap_cpu {
	u8 *buf;
	u32 head;		/* bytes written; published with release */
	u32 tail;		/* bytes drained; published with release */
	local64_t matched;
	local64_t lost;		/* the ring was full */
	local64_t no_network;
	local64_t lost_keys;	/* a per-key capture's key found no room */
	/* the drain's: head when it began, what it took (tail once copied) */
	u32 dhead, dtail;
};

struct ds_cap {
	u32 id;
	u32 portid;		/* the socket that started it */
	struct net *net;
	struct bpf_prog *prog;	/* NULL: every packet */
	struct ds_rule rule;	/* rule.match 0: every drop */
	bool all;		/* masked drops too */
	u32 snaplen;
	u32 tag;		/* a run's (scope.h): its drops and no run's */
	u32 per_key;		/* the first per_key drops of each key; 0: all */
	struct ds_cap_keys *keys;	/* with per_key */
	struct ds_cap_cpu __percpu *pc;
	/* under ds_lock */
	u64 captured;
	u64 lost_socket;
};

DEFINE_STATIC_KEY_FALSE(ds_cap_key);
static struct ds_cap __rcu *ds_caps[DROPSCOPE_MAX_CAPTURES];
/*
 * The probes look at ds_caps[0 .. ds_cap_hi - 1] only. Slots are taken
 * lowest first, so one capture costs one look. A stale value seen by a
 * probe is harmless: higher, it looks at empty slots; lower, it misses a
 * capture only while that capture is being published.
 */
static u32 ds_cap_hi;
static u32 ds_cap_last_id;	/* under ds_lock */

/* ---- the drop path: any context, this CPU's ring only ------------------ */

/* Where a record's packet bytes are: after its ext and frames, if any. */
static __always_inline u8 *ds_cap_data(const struct ds_cap_rec *r)
{
	return (u8 *)(r + 1) + r->extra;
}

/*
 * Copy the packet of a drop that passed c's tests into this CPU's ring,
 * with ev's ext and frames for a per-key capture (else NULL).
 */
static void ds_cap_copy(struct ds_cap *c, const struct ds_drop *d, u32 stack,
			const struct ds_cap_ev *ev)
{
	const struct sk_buff *skb = d->skb;
	struct ds_cap_cpu *pc = ds_this_cpu_ptr(c->pc);
	int off = skb_network_offset(skb);
	u32 len = skb->len - off;
	u32 caplen = min3(len, c->snaplen, DS_CAP_MAX_CAPLEN);
	u32 extra = ev ? sizeof(ev->x) + ev->x.nframes * sizeof(u64) : 0;
	u32 size = ALIGN(sizeof(struct ds_cap_rec) + extra + caplen, 8);
	u32 head, tail, at, pad;
	struct ds_cap_rec *r;
	unsigned long flags;

	local_irq_save(flags);
	head = pc->head;
	/* pairs with the smp_store_release() of the drain */
	tail = smp_load_acquire(&pc->tail);
	at = head & (DS_CAP_RING - 1);
	pad = DS_CAP_RING - at < size ? DS_CAP_RING - at : 0;
	if (head - tail + pad + size > DS_CAP_RING) {
		local64_inc(&pc->lost);
		goto out;
	}
	if (pad) {
		((struct ds_cap_rec *)(pc->buf + at))->size = DS_CAP_PAD;
		head += pad;
		at = 0;
	}
	r = (struct ds_cap_rec *)(pc->buf + at);
	r->extra = extra;
	if (skb_copy_bits(skb, off, ds_cap_data(r), caplen)) {
		/* nothing written past the pad: it stays a pad */
		local64_inc(&pc->lost);
		goto publish;
	}
	r->size = size;
	r->reason = d->k.reason;
	r->tstamp = ktime_get_real_ns();
	r->location = d->k.loc;
	r->ifindex = skb->skb_iif;
	/* looked up once a drop: by the rules, if they use it */
	r->netns = d->have & BIT(DS_F_NETNS) ? d->k.netns :
					       ds_drop_netns(skb);
	r->len = len;
	r->protocol = ntohs(skb->protocol);
	r->caplen = caplen;
	r->stack = stack;
	if (ev) {
		memcpy(r + 1, &ev->x, sizeof(ev->x));
		memcpy((u8 *)(r + 1) + sizeof(ev->x), ev->frames,
		       ev->x.nframes * sizeof(u64));
	}
	head += size;
publish:
	/* the record, then the head: pairs with the drain's acquire */
	smp_store_release(&pc->head, head);
out:
	local_irq_restore(flags);
}

/*
 * The view a filter runs on: only the fields the converted program and
 * its load helpers read (data and the lengths; head and end for the
 * shared info of paged data) are set; the rest stay zero.
 */
static DEFINE_PER_CPU(struct sk_buff, ds_cap_view);

static u32 ds_cap_filter_run(const struct bpf_prog *prog,
			     const struct sk_buff *skb)
{
	int off = skb_network_offset(skb);
	struct sk_buff *v;
	unsigned long flags;
	u32 ret;

	/* a drop in an interrupt must not change the view under us */
	local_irq_save(flags);
	v = ds_this_cpu_ptr(&ds_cap_view);
	v->head = skb->head;
	v->data = skb->data + off;
	v->len = skb->len - off;
	v->data_len = skb->data_len;
	v->tail = skb->tail;
	v->end = skb->end;
	ret = bpf_prog_run(prog, v);
	local_irq_restore(flags);
	return ret;
}

/* A packet with its network header set (a fresh skb has offset 0). */
static bool ds_cap_has_network(const struct sk_buff *skb)
{
	return skb->network_header &&
	       skb->head + skb->network_header < skb_tail_pointer(skb);
}

/* Is a drop of run (0: none) one for c? */
static __always_inline bool ds_cap_run_is(const struct ds_cap *c, u32 run)
{
	return !run || (run == (c->tag & DS_RUN_ID_MASK) &&
			READ_ONCE(ds_run_tags[run]) == c->tag);
}

/*
 * Is the drop among the first per_key of its key in c? The key is looked
 * up without a lock, and claimed under one with interrupts off: no two
 * CPUs claim the same key. A key that finds no room is counted.
 */
static bool ds_cap_key_take(struct ds_cap *c, const struct ds_drop *d)
{
	struct ds_cap_keys *t = c->keys;
	u32 mask = ARRAY_SIZE(t->idx) - 1;
	unsigned long loc = d->k.loc;
	u32 reason = d->k.reason;
	struct ds_cap_key *e;
	unsigned long flags;
	u32 i, x;

	i = jhash_2words((u32)loc, reason, (u32)((u64)loc >> 32)) & mask;
	/* pairs with the smp_store_release() of the claim */
	for (; (x = smp_load_acquire(&t->idx[i])); i = (i + 1) & mask) {
		e = &t->e[x - 1];
		if (e->loc == loc && e->reason == reason)
			goto found;
	}
	/* an NMI could come while this CPU holds the lock */
	if (in_nmi())
		goto lost;
	raw_spin_lock_irqsave(&t->lock, flags);
	/* another CPU may have claimed it since, here or further on */
	for (; (x = t->idx[i]); i = (i + 1) & mask) {
		e = &t->e[x - 1];
		if (e->loc == loc && e->reason == reason) {
			raw_spin_unlock_irqrestore(&t->lock, flags);
			goto found;
		}
	}
	if (t->used == DS_CAP_KEYS) {
		raw_spin_unlock_irqrestore(&t->lock, flags);
		goto lost;
	}
	e = &t->e[t->used];
	e->loc = loc;
	e->reason = reason;
	atomic_set(&e->kept, 0);
	/* the entry, then its index: pairs with the lookup's acquire */
	smp_store_release(&t->idx[i], ++t->used);
	raw_spin_unlock_irqrestore(&t->lock, flags);
found:
	return atomic_add_unless(&e->kept, 1, c->per_key);
lost:
	local64_inc(&ds_this_cpu_ptr(c->pc)->lost_keys);
	return false;
}

/* The drop's inet socket, its addresses and ports, into x. */
static __always_inline void ds_cap_sock(struct ds_cap_ext *x,
					const struct sock *sk)
{
	switch (sk ? sk->sk_family : AF_UNSPEC) {
	case AF_INET:
		x->alen = 4;
		memcpy(x->saddr, &sk->sk_rcv_saddr, 4);
		memcpy(x->daddr, &sk->sk_daddr, 4);
		break;
#if IS_ENABLED(CONFIG_IPV6)
	case AF_INET6:
		x->alen = 16;
		memcpy(x->saddr, &sk->sk_v6_rcv_saddr, 16);
		memcpy(x->daddr, &sk->sk_v6_daddr, 16);
		break;
#endif
	default:
		return;
	}
	/* sock_common's: a request or timewait sock has them too */
	x->sport = sk->sk_num;
	x->dport = ntohs(sk->sk_dport);
}

/*
 * What a per-key capture keeps of the drop, into ev. Inlined into
 * ds_capture(), whose return address ra is: the stack walk finds it
 * among its first frames, and the site after it (stacks.c).
 */
static __always_inline void ds_cap_ev_take(struct ds_cap_ev *ev,
					   const struct ds_drop *d,
					   const struct sock *sk, u32 run,
					   unsigned long ra)
{
	struct ds_cap_ext *x = &ev->x;

	memset(x, 0, sizeof(*x));
	x->run = run;
	x->nframes = ds_stacks_frames(d->k.loc, d->k.reason, ra, ev->frames,
				      &ev->stack);
	ds_cap_sock(x, sk);
	if (in_task() && !(current->flags & PF_KTHREAD)) {
		x->pid = task_tgid_nr(current);
		BUILD_BUG_ON(sizeof(x->comm) != sizeof(current->comm));
		memcpy(x->comm, current->comm, sizeof(x->comm));
		x->comm[sizeof(x->comm) - 1] = '\0';
	}
	ev->taken = true;
}

/*
 * Every drop while a capture exists; sk its socket (or NULL) and run its
 * run (0: none). The mask rules' verdict is taken once a drop, for the
 * first part that asks (ds_drop_masked()).
 */
noinline notrace void ds_capture(struct ds_drop *d, u32 stack,
				 const struct sock *sk, u32 run)
{
	u32 i, hi = READ_ONCE(ds_cap_hi);
	const struct sk_buff *skb = d->skb;
	struct ds_cap_ev ev;
	struct ds_cap *c;

	ev.taken = false;
	for (i = 0; i < hi; i++) {
		c = rcu_dereference_sched(ds_caps[i]);
		if (!c)
			continue;
		if (c->tag && !ds_cap_run_is(c, run))
			continue;
		if (c->rule.match && !ds_rule_matches_drop(&c->rule, d))
			continue;
		if (!c->all && ds_drop_masked(d))
			continue;
		if (!ds_cap_has_network(skb)) {
			local64_inc(&ds_this_cpu_ptr(c->pc)->no_network);
			continue;
		}
		if (c->prog && !ds_cap_filter_run(c->prog, skb))
			continue;
		if (c->per_key && !ds_cap_key_take(c, d))
			continue;
		local64_inc(&ds_this_cpu_ptr(c->pc)->matched);
		if (!c->per_key) {
			ds_cap_copy(c, d, stack, NULL);
			continue;
		}
		if (!ev.taken)
			ds_cap_ev_take(&ev, d, sk, run,
				       (unsigned long)__builtin_return_address(0));
		ds_cap_copy(c, d, ev.stack ?: stack, &ev);
	}
}

/* ---- the drain: under ds_lock, process context ------------------------ */

static int ds_cap_put_counters(struct sk_buff *msg, const struct ds_cap *c,
			       bool end)
{
	u64 matched = 0, lost = 0, nonet = 0, keys = 0;
	struct ds_cap_cpu *pc;
	struct nlattr *nest;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		pc = per_cpu_ptr(c->pc, cpu);
		matched += local64_read(&pc->matched);
		lost += local64_read(&pc->lost);
		nonet += local64_read(&pc->no_network);
		keys += local64_read(&pc->lost_keys);
	}
	nest = nla_nest_start(msg, DROPSCOPE_A_CAPTURE);
	if (!nest ||
	    nla_put_u32(msg, DROPSCOPE_CAPTURE_A_ID, c->id) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_CAPTURE_A_MATCHED, matched,
			      DROPSCOPE_CAPTURE_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_CAPTURE_A_CAPTURED, c->captured,
			      DROPSCOPE_CAPTURE_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_CAPTURE_A_LOST_BUFFER, lost,
			      DROPSCOPE_CAPTURE_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_CAPTURE_A_LOST_SOCKET,
			      c->lost_socket, DROPSCOPE_CAPTURE_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_CAPTURE_A_NO_NETWORK, nonet,
			      DROPSCOPE_CAPTURE_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_CAPTURE_A_LOST_KEYS, keys,
			      DROPSCOPE_CAPTURE_A_PAD) ||
	    (end && nla_put_flag(msg, DROPSCOPE_CAPTURE_A_END)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * The most a packet nest takes, its data (and stack id, and a per-key
 * capture's ext) included.
 */
static size_t ds_cap_packet_size(u32 caplen, bool stack, bool ext)
{
	return nla_total_size(0) + 2 * nla_total_size_64bit(sizeof(u64)) +
		4 * nla_total_size(sizeof(u32)) + nla_total_size(sizeof(u16)) +
		nla_total_size(caplen) + (stack ? nla_total_size(sizeof(u32)) : 0) +
		(ext ? DS_CAP_EXT_SIZE : 0);
}

/* A per-key capture's ext of record r, when it has one. */
static int ds_cap_put_ext(struct sk_buff *msg, const struct ds_cap_rec *r)
{
	const struct ds_cap_ext *x = (const void *)(r + 1);

	if (!r->extra)
		return 0;
	if (nla_put_u32(msg, DROPSCOPE_PACKET_A_RUN, x->run) ||
	    (x->nframes &&
	     nla_put(msg, DROPSCOPE_PACKET_A_FRAMES, x->nframes * sizeof(u64),
		     x + 1)) ||
	    (x->alen &&
	     (nla_put(msg, DROPSCOPE_PACKET_A_SADDR, x->alen, x->saddr) ||
	      nla_put(msg, DROPSCOPE_PACKET_A_DADDR, x->alen, x->daddr) ||
	      nla_put_u16(msg, DROPSCOPE_PACKET_A_SPORT, x->sport) ||
	      nla_put_u16(msg, DROPSCOPE_PACKET_A_DPORT, x->dport))) ||
	    (x->pid &&
	     (nla_put_u32(msg, DROPSCOPE_PACKET_A_PID, x->pid) ||
	      nla_put_string(msg, DROPSCOPE_PACKET_A_COMM, x->comm))))
		return -EMSGSIZE;
	return 0;
}

/* The nest, attribute by attribute: where 64-bit values need padding. */
static int ds_cap_put_packet_padded(struct sk_buff *msg,
				    const struct ds_cap_rec *r)
{
	struct nlattr *nest = nla_nest_start(msg, DROPSCOPE_A_PACKET);

	if (!nest ||
	    nla_put_u64_64bit(msg, DROPSCOPE_PACKET_A_TSTAMP, r->tstamp,
			      DROPSCOPE_PACKET_A_PAD) ||
	    nla_put_u64_64bit(msg, DROPSCOPE_PACKET_A_LOCATION, r->location,
			      DROPSCOPE_PACKET_A_PAD) ||
	    nla_put_u32(msg, DROPSCOPE_PACKET_A_REASON, r->reason) ||
	    nla_put_u32(msg, DROPSCOPE_PACKET_A_IFINDEX, r->ifindex) ||
	    nla_put_u32(msg, DROPSCOPE_PACKET_A_NETNS, r->netns) ||
	    nla_put_u16(msg, DROPSCOPE_PACKET_A_PROTOCOL, r->protocol) ||
	    nla_put_u32(msg, DROPSCOPE_PACKET_A_LEN, r->len) ||
	    nla_put(msg, DROPSCOPE_PACKET_A_DATA, r->caplen, ds_cap_data(r)) ||
	    (r->stack &&
	     nla_put_u32(msg, DROPSCOPE_PACKET_A_STACK, r->stack)) ||
	    ds_cap_put_ext(msg, r)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* One attribute at p, its padding zeroed; returns where the next goes. */
static __always_inline void *ds_cap_attr(void *p, int type, const void *v,
					 int len)
{
	struct nlattr *a = p;

	a->nla_type = type;
	a->nla_len = nla_attr_size(len);
	memcpy(nla_data(a), v, len);
	memset((u8 *)nla_data(a) + len, 0, nla_padlen(len));
	return (u8 *)a + nla_total_size(len);
}

/*
 * A packet's nest, in the order and format nla_put_*() would make it, but
 * in one piece: its size is known, so it is reserved once and written in
 * place. Where 64-bit values need a pad attribute, the nla_put_*() way.
 */
static int ds_cap_put_packet(struct sk_buff *msg, const struct ds_cap_rec *r)
{
	size_t size = ds_cap_packet_size(r->caplen, r->stack, false);
	u32 v32[4] = { r->reason, r->ifindex, r->netns, r->len };
	struct nlattr *nest;
	void *p;

	BUILD_BUG_ON(ds_cap_packet_size(DS_CAP_MAX_CAPLEN, true, false) >
		     U16_MAX);
	BUILD_BUG_ON(ds_cap_packet_size(DS_CAP_KEY_CAPLEN, true, true) >
		     U16_MAX);
	/* a per-key capture's packets are rare: the nla_put_*() way */
	if (nla_need_padding_for_64bit(msg) || r->extra)
		return ds_cap_put_packet_padded(msg, r);
	if (skb_tailroom(msg) < size)
		return -EMSGSIZE;
	nest = skb_put(msg, size);
	nest->nla_type = DROPSCOPE_A_PACKET | NLA_F_NESTED;
	nest->nla_len = size;
	p = ds_cap_attr(nest + 1, DROPSCOPE_PACKET_A_TSTAMP, &r->tstamp, 8);
	p = ds_cap_attr(p, DROPSCOPE_PACKET_A_LOCATION, &r->location, 8);
	p = ds_cap_attr(p, DROPSCOPE_PACKET_A_REASON, &v32[0], 4);
	p = ds_cap_attr(p, DROPSCOPE_PACKET_A_IFINDEX, &v32[1], 4);
	p = ds_cap_attr(p, DROPSCOPE_PACKET_A_NETNS, &v32[2], 4);
	p = ds_cap_attr(p, DROPSCOPE_PACKET_A_PROTOCOL, &r->protocol, 2);
	p = ds_cap_attr(p, DROPSCOPE_PACKET_A_LEN, &v32[3], 4);
	p = ds_cap_attr(p, DROPSCOPE_PACKET_A_DATA, ds_cap_data(r), r->caplen);
	if (r->stack)
		ds_cap_attr(p, DROPSCOPE_PACKET_A_STACK, &r->stack, 4);
	return 0;
}

/* A message of the capture's: its header and counters come at the end. */
struct ds_cap_msg {
	struct sk_buff *skb;
	void *hdr;
	u32 packets;
};

static int ds_cap_msg_new(struct ds_cap_msg *m, size_t need)
{
	m->skb = genlmsg_new(max_t(size_t, need + NLMSG_GOODSIZE / 8,
				   32U << 10), GFP_KERNEL);
	if (!m->skb)
		return -ENOMEM;
	m->hdr = ds_family_capture_put(m->skb);
	m->packets = 0;
	if (!m->hdr) {
		nlmsg_free(m->skb);
		m->skb = NULL;
		return -EMSGSIZE;
	}
	return 0;
}

/*
 * Send m with c's counters. The packets of a message the socket refuses
 * are lost to it, and counted; a socket that is gone ends nothing here
 * (its release does).
 */
static void ds_cap_msg_send(struct ds_cap *c, struct ds_cap_msg *m, bool end)
{
	u32 n = m->packets;

	if (!m->skb)
		return;
	/* counted as delivered before the counters are put: they say so */
	c->captured += n;
	if (ds_cap_put_counters(m->skb, c, end)) {
		/* the room for them was kept: see ds_cap_drain_cpu() */
		WARN_ON_ONCE(1);
	}
	genlmsg_end(m->skb, m->hdr);
	if (genlmsg_unicast(c->net, m->skb, c->portid)) {
		c->captured -= n;
		c->lost_socket += n;
	}
	m->skb = NULL;
}

/* The room kept in every message for the counters */
#define DS_CAP_COUNTERS_SIZE	(nla_total_size(0) + nla_total_size(4) + \
				 6 * nla_total_size_64bit(8) + nla_total_size(0))

/* The next record of pc to drain, pads stepped over; NULL: none left. */
static const struct ds_cap_rec *ds_cap_next(struct ds_cap_cpu *pc)
{
	const struct ds_cap_rec *r;

	while (pc->dtail != pc->dhead) {
		r = (const struct ds_cap_rec *)(pc->buf +
						(pc->dtail & (DS_CAP_RING - 1)));
		if (r->size != DS_CAP_PAD)
			return r;
		pc->dtail += DS_CAP_RING - (pc->dtail & (DS_CAP_RING - 1));
	}
	return NULL;
}

/* One record r of c into messages. */
static void ds_cap_drain_rec(struct ds_cap *c, const struct ds_cap_rec *r,
			     struct ds_cap_msg *m)
{
	size_t need = ds_cap_packet_size(r->caplen, r->stack, r->extra) +
		      DS_CAP_COUNTERS_SIZE;

	if (m->skb && skb_tailroom(m->skb) < need)
		ds_cap_msg_send(c, m, false);
	if (!m->skb && ds_cap_msg_new(m, need)) {
		c->lost_socket++;
		return;
	}
	if (ds_cap_put_packet(m->skb, r))
		c->lost_socket++;
	else
		m->packets++;
}

/* The earliest record so far, *first of *at, or pc's next if earlier. */
static void ds_cap_pick(struct ds_cap_cpu *pc, const struct ds_cap_rec **first,
			struct ds_cap_cpu **at)
{
	const struct ds_cap_rec *r = ds_cap_next(pc);

	if (r && (!*first || r->tstamp < (*first)->tstamp)) {
		*first = r;
		*at = pc;
	}
}

/* The CPUs a drain merges at once; more, and it looks at every CPU. */
#define DS_CAP_MERGE	16

/*
 * Everything c buffered, to its socket; with end, the last message. Each
 * CPU's ring is in the order of its drops; the rings are merged by time,
 * so that the file is in the order the drops happened, as tcpdump's is,
 * even when a sender moved between CPUs. The merge looks at the CPUs
 * whose rings hold records, usually one or two.
 */
static void ds_cap_drain(struct ds_cap *c, bool end)
{
	struct ds_cap_cpu *pc, *at, *busy[DS_CAP_MERGE];
	const struct ds_cap_rec *first;
	struct ds_cap_msg m = { 0 };
	unsigned int cpu, n = 0, i;
	bool all = false;

	lockdep_assert_held(&ds_lock);
	for_each_possible_cpu(cpu) {
		pc = per_cpu_ptr(c->pc, cpu);
		/* pairs with the smp_store_release() in ds_cap_copy() */
		pc->dhead = smp_load_acquire(&pc->head);
		pc->dtail = pc->tail;
		if (pc->dtail == pc->dhead)
			continue;
		if (n < DS_CAP_MERGE)
			busy[n++] = pc;
		else
			all = true;
	}
	for (;;) {
		first = NULL;
		at = NULL;
		if (all) {
			for_each_possible_cpu(cpu)
				ds_cap_pick(per_cpu_ptr(c->pc, cpu), &first, &at);
		} else {
			for (i = 0; i < n; i++)
				ds_cap_pick(busy[i], &first, &at);
		}
		if (!first)
			break;
		ds_cap_drain_rec(c, first, &m);
		at->dtail += first->size;
	}
	for_each_possible_cpu(cpu) {
		pc = per_cpu_ptr(c->pc, cpu);
		/* the records are copied: pairs with the acquire in ds_cap_copy() */
		smp_store_release(&pc->tail, pc->dtail);
	}
	if (!m.skb && end)
		ds_cap_msg_new(&m, DS_CAP_COUNTERS_SIZE);
	ds_cap_msg_send(c, &m, end);
}

/* A round went out: what every capture buffered since, to its socket. */
static void ds_capture_drain(void)
{
	struct ds_cap *c;
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < DROPSCOPE_MAX_CAPTURES; i++) {
		c = rcu_dereference_protected(ds_caps[i],
					      lockdep_is_held(&ds_lock));
		if (c)
			ds_cap_drain(c, false);
	}
}

/* ---- start and stop: under ds_lock ------------------------------------ */

static void ds_cap_free(struct ds_cap *c)
{
	unsigned int cpu;

	if (c->pc) {
		for_each_possible_cpu(cpu)
			kvfree(per_cpu_ptr(c->pc, cpu)->buf);
		free_percpu(c->pc);
	}
	if (c->prog)
		bpf_prog_destroy(c->prog);
	if (c->net)
		put_net(c->net);
	kfree(c->keys);
	kfree(c);
}

static u32 ds_cap_count(void)
{
	u32 i, n = 0;

	for (i = 0; i < DROPSCOPE_MAX_CAPTURES; i++)
		n += !!rcu_access_pointer(ds_caps[i]);
	return n;
}

/* Take capture i out of the probes' sight; they may still hold it. */
static struct ds_cap *ds_cap_unpublish(u32 i)
{
	struct ds_cap *c = rcu_dereference_protected(ds_caps[i],
						     lockdep_is_held(&ds_lock));

	RCU_INIT_POINTER(ds_caps[i], NULL);
	while (ds_cap_hi && !rcu_access_pointer(ds_caps[ds_cap_hi - 1]))
		WRITE_ONCE(ds_cap_hi, ds_cap_hi - 1);
	if (!ds_cap_count() && static_key_enabled(&ds_cap_key)) {
		static_branch_disable(&ds_cap_key);
		static_branch_dec(&ds_slow_key);
	}
	return c;
}

/* Take capture i away and drain it (STOP); the caller frees it. */
static struct ds_cap *ds_cap_remove(u32 i)
{
	struct ds_cap *c = ds_cap_unpublish(i);

	/* the probe disables preemption: none copies into c now */
	synchronize_rcu();
	ds_cap_drain(c, false);
	return c;
}

/*
 * Take away the captures of the slots in mask: no probe sees them once
 * this returns (one grace period for all); with drain, what they
 * buffered is sent (end marks the last message, for a capture its socket
 * did not stop itself); then they are freed.
 */
static void ds_cap_remove_all(unsigned long mask, bool drain, bool end)
{
	struct ds_cap *taken[DROPSCOPE_MAX_CAPTURES];
	u32 i, n = 0;

	for_each_set_bit(i, &mask, DROPSCOPE_MAX_CAPTURES)
		taken[n++] = ds_cap_unpublish(i);
	if (!n)
		return;
	/* the probe disables preemption: none copies into them now */
	synchronize_rcu();
	for (i = 0; i < n; i++) {
		if (drain)
			ds_cap_drain(taken[i], end);
		ds_cap_free(taken[i]);
	}
}

/*
 * Refuse loads beyond the packet: ancillary data (SKF_AD_OFF and the
 * other negative offsets) is the view's, not the packet's. The kernel's
 * checker judges the rest.
 */
static int ds_cap_filter_check(const struct sock_filter *f, u32 n,
			       struct netlink_ext_ack *extack)
{
	u32 i;

	for (i = 0; i < n; i++) {
		u16 code = f[i].code;

		switch (code) {
		case BPF_LD | BPF_W | BPF_ABS:
		case BPF_LD | BPF_H | BPF_ABS:
		case BPF_LD | BPF_B | BPF_ABS:
		case BPF_LD | BPF_W | BPF_IND:
		case BPF_LD | BPF_H | BPF_IND:
		case BPF_LD | BPF_B | BPF_IND:
		case BPF_LDX | BPF_B | BPF_MSH:
			if (f[i].k >= DS_CAP_MAX_OFF) {
				NL_SET_ERR_MSG(extack,
					       "filter: an offset of 0xff000 or beyond, or ancillary data: not a packet's bytes");
				return -EINVAL;
			}
			break;
		}
	}
	return 0;
}

static int ds_cap_filter(struct ds_cap *c, const struct nlattr *a,
			 struct netlink_ext_ack *extack)
{
	struct sock_fprog_kern fprog;
	u32 len = nla_len(a), n = len / sizeof(struct sock_filter);
	struct sock_filter *f;
	int err;

	if (!n || len % sizeof(struct sock_filter) || n > BPF_MAXINSNS) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "filter: 1 to 4096 struct sock_filter instructions");
		return -EINVAL;
	}
	f = kmemdup(nla_data(a), len, GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	err = ds_cap_filter_check(f, n, extack);
	if (err)
		goto out;
	fprog.len = n;
	fprog.filter = f;
	err = bpf_prog_create(&c->prog, &fprog);
	if (err) {
		c->prog = NULL;
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "filter: refused by the kernel's classic BPF checker");
	}
out:
	kfree(f);
	return err;
}

/* A capture of the run of tag (0: of every drop), for info's socket. */
int ds_capture_start(struct nlattr **tb, const struct ds_rule *rule, u32 tag,
		     struct genl_info *info, u32 *id)
{
	struct ds_cap *c;
	unsigned int cpu;
	u32 i, slot = DROPSCOPE_MAX_CAPTURES;
	int err;

	lockdep_assert_held(&ds_lock);
	if (!(ds_running_parts() & DROPSCOPE_PART_DROPS)) {
		NL_SET_ERR_MSG(info->extack,
			       "capture: the drops part is not running (start it first)");
		return -ENOTCONN;
	}
	for (i = 0; i < DROPSCOPE_MAX_CAPTURES; i++)
		if (!rcu_access_pointer(ds_caps[i]))
			slot = min(slot, i);
	if (slot == DROPSCOPE_MAX_CAPTURES) {
		NL_SET_ERR_MSG(info->extack, "capture: "
			       __stringify(DROPSCOPE_MAX_CAPTURES)
			       " captures run already");
		return -ENOSPC;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->snaplen = 65535;
	if (tb[DROPSCOPE_CAPTURE_A_SNAPLEN])
		c->snaplen = nla_get_u32(tb[DROPSCOPE_CAPTURE_A_SNAPLEN]);
	c->all = nla_get_flag(tb[DROPSCOPE_CAPTURE_A_ALL]);
	c->tag = tag;
	err = -ENOMEM;
	if (tb[DROPSCOPE_CAPTURE_A_PER_KEY]) {
		c->per_key = nla_get_u32(tb[DROPSCOPE_CAPTURE_A_PER_KEY]);
		c->snaplen = min(c->snaplen, DS_CAP_KEY_CAPLEN);
		c->keys = kzalloc(sizeof(*c->keys), GFP_KERNEL);
		if (!c->keys)
			goto err;
		raw_spin_lock_init(&c->keys->lock);
	}
	if (rule)
		c->rule = *rule;
	if (tb[DROPSCOPE_CAPTURE_A_FILTER]) {
		err = ds_cap_filter(c, tb[DROPSCOPE_CAPTURE_A_FILTER],
				    info->extack);
		if (err)
			goto err;
	}
	err = -ENOMEM;
	c->pc = alloc_percpu(struct ds_cap_cpu);
	if (!c->pc)
		goto err;
	for_each_possible_cpu(cpu) {
		per_cpu_ptr(c->pc, cpu)->buf =
			kvmalloc_node(DS_CAP_RING, GFP_KERNEL, cpu_to_node(cpu));
		if (!per_cpu_ptr(c->pc, cpu)->buf)
			goto err;
	}
	c->net = get_net(genl_info_net(info));
	c->portid = info->snd_portid;
	c->id = ++ds_cap_last_id;
	rcu_assign_pointer(ds_caps[slot], c);
	WRITE_ONCE(ds_cap_hi, max(ds_cap_hi, slot + 1));
	if (!static_key_enabled(&ds_cap_key)) {
		static_branch_enable(&ds_cap_key);
		static_branch_inc(&ds_slow_key);
	}
	*id = c->id;
	return 0;
err:
	ds_cap_free(c);
	return err;
}

/*
 * Stop capture id of the socket portid: what it buffered goes out. The
 * caller replies with its counters (ds_capture_fill()), then frees it
 * (ds_capture_free()).
 */
struct ds_cap *ds_capture_stop(u32 id, u32 portid,
			       struct netlink_ext_ack *extack)
{
	struct ds_cap *c;
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < DROPSCOPE_MAX_CAPTURES; i++) {
		c = rcu_dereference_protected(ds_caps[i],
					      lockdep_is_held(&ds_lock));
		if (!c || c->id != id)
			continue;
		if (c->portid != portid) {
			NL_SET_ERR_MSG(extack,
				       "capture: it belongs to another socket");
			return ERR_PTR(-EPERM);
		}
		return ds_cap_remove(i);
	}
	NL_SET_ERR_MSG(extack, "capture: no capture has this id");
	return ERR_PTR(-ENOENT);
}

void ds_capture_free(struct ds_cap *c)
{
	ds_cap_free(c);
}

/* The counters of a stopped capture, for the STOP reply. */
int ds_capture_fill(struct sk_buff *msg, const void *cap)
{
	return ds_cap_put_counters(msg, cap, true);
}

/* Monitoring stops, or the module goes: every capture ends, drained. */
static void ds_capture_end_all(void)
{
	unsigned long mask = 0;
	u32 i;

	lockdep_assert_held(&ds_lock);
	for (i = 0; i < DROPSCOPE_MAX_CAPTURES; i++)
		if (rcu_access_pointer(ds_caps[i]))
			__set_bit(i, &mask);
	ds_cap_remove_all(mask, true, true);
}

const struct ds_sink ds_capture_sink = {
	.name = "capture",
	.round = ds_capture_drain,
	.end = ds_capture_end_all,
};

/* A netlink socket is released: its captures end, with nobody to tell. */
static int ds_cap_notify(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct netlink_notify *n = ptr;
	unsigned long mask = 0;
	struct ds_cap *c;
	u32 i;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	mutex_lock(&ds_lock);
	for (i = 0; i < DROPSCOPE_MAX_CAPTURES; i++) {
		c = rcu_dereference_protected(ds_caps[i],
					      lockdep_is_held(&ds_lock));
		if (c && c->portid == n->portid && net_eq(c->net, n->net))
			__set_bit(i, &mask);
	}
	ds_cap_remove_all(mask, false, false);
	mutex_unlock(&ds_lock);
	return NOTIFY_DONE;
}

static struct notifier_block ds_cap_nb = {
	.notifier_call = ds_cap_notify,
};

int ds_capture_init(void)
{
	return netlink_register_notifier(&ds_cap_nb);
}

/* After ds_monitor_exit(): every capture ended with monitoring. */
void ds_capture_exit(void)
{
	netlink_unregister_notifier(&ds_cap_nb);
}
