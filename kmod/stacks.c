// SPDX-License-Identifier: GPL-2.0
/*
 * Drop stacks: every distinct kernel stack behind the drops that the
 * stacks rule matches (all of them without one), counted per CPU and
 * folded with the sites.
 *
 * A matching drop's stack is taken in the probe: the kernel's unwinder
 * walks it the first time it is seen on a CPU, and the drops after it
 * replay that walk, a few loads and a compare a frame (below: "Walks
 * learnt"). The frames below the drop site, the probe, the tracepoint and
 * the function that fired it, are cut at the first frame equal to the
 * drop's location, so that frames[0] is the site. At most DS_STACK_DEPTH
 * frames are kept. The frames, site and reason are hashed (jhash2) into
 * the stack's id.
 *
 * Each CPU counts in a table of its own, written by the probe on that CPU
 * only, as the site tables are (probe.c): an open-addressing index of
 * twice as many slots as entries, a lookup that compares the id, the site,
 * the reason and the frames, and a local64_inc. A new entry is claimed
 * with local interrupts off, so that a drop in an interrupt cannot claim
 * it half-way, and published with release. ds_stacks_cap stacks with
 * frames fit; a stack that finds no room is counted in an entry of its
 * site and reason without frames (no_room), DS_STACKS_NO_ROOM of them;
 * what finds no room there either is counted as lost. A drop whose stack
 * does not reach its site (an unwinder that failed) is counted without
 * frames too, and in siteless.
 *
 * The folder (under ds_lock) adds each entry's growth since the last fold
 * to a table of the same kind that holds every CPU's stacks; dumps read
 * that one. Clear and reset empty it; the per-CPU tables are emptied only
 * while the probe is detached, as the site tables are.
 *
 * The stacks rule is set with the stacks key off and a grace period
 * between: the probe never sees it change. A rule on a site alone costs a
 * drop outside the site one range test in the probe's fast path
 * (ds_stacks_site_key); any other rule sends every drop to the slow path
 * (ds_slow_key), where the rule is matched.
 */

#include <linux/irqflags.h>
#include <linux/jhash.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/task_stack.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/local64.h>
#include <asm/unwind.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "compat.h"
#include "dropscope.h"

unsigned int ds_stacks_cap = 1024;
module_param_cb(stacks, &ds_param_count_ops, &ds_stacks_cap, 0444);
MODULE_PARM_DESC(stacks,
		 "distinct drop stacks counted per CPU, 1 to 1048576 (default 1024)");

/* Entries without frames for stacks that find the table full. */
#define DS_STACKS_NO_ROOM	DROPSCOPE_STACKS_NO_ROOM
/*
 * Where the site may be: among the DS_STACK_SKIP frames after the return
 * address of ds_stacks_drop() (the probe's, the tracepoint's, the freeing
 * function's), which is among the first DS_STACK_OWN frames of a walk.
 */
#define DS_STACK_SKIP		16
#define DS_STACK_OWN		4
/* The frames a walk keeps at most. */
#define DS_STACK_MAX		(DS_STACK_OWN + DS_STACK_SKIP + DS_STACK_DEPTH)

struct ds_stack {
	unsigned long loc;
	u32 reason;
	u32 id;			/* jhash2 of frames, site and reason; not 0 */
	u16 nr;			/* frames; 0: counted without them */
	bool siteless;		/* the unwinder did not reach the site */
	local64_t count;
	unsigned long frames[DS_STACK_DEPTH];
};

/* A table of stacks: one per CPU, and the folded one. */
struct ds_stab {
	u32 *idx;		/* entry index + 1, or 0: an empty slot */
	struct ds_stack *e;
	u64 *last;		/* per CPU: each entry's count at the last fold */
	u32 mask;		/* index slots - 1 */
	u32 used;		/* entries claimed; published with release */
	u32 framed;		/* of them, with frames */
	local64_t lost;		/* no room even without frames */
	local64_t siteless;
	local64_t walked;	/* stacks the unwinder walked */
};

DEFINE_STATIC_KEY_FALSE(ds_stacks_key);
DEFINE_STATIC_KEY_FALSE(ds_stacks_site_key);
/* The site range of a rule on a site alone, for the fast path. */
unsigned long ds_stacks_start __read_mostly;
unsigned long ds_stacks_len __read_mostly;

static DEFINE_PER_CPU(struct ds_stab *, ds_stabs);

/* All of it under ds_lock. */
static struct {
	struct ds_stab *folded;
	struct ds_rule rule;	/* match 0: every drop */
	bool on;
	bool slow;		/* holds a reference on ds_slow_key */
	u32 gen;		/* bumped when the folded table empties */
	/* per-CPU sums at the last clear */
	u64 lost_base, siteless_base, walked_base;
} st;

/* What a stack is looked up by. */
struct ds_skey {
	unsigned long loc;
	u32 reason;
	u32 id;
	u16 nr;
	bool siteless;
	const unsigned long *frames;
};

static __always_inline bool ds_stack_is(const struct ds_stack *e,
					const struct ds_skey *k)
{
	return e->id == k->id && e->loc == k->loc && e->reason == k->reason &&
	       e->nr == k->nr && e->siteless == k->siteless &&
	       !memcmp(e->frames, k->frames, k->nr * sizeof(*k->frames));
}

/* The entry of key k, or NULL and the empty slot where it would go. */
static struct ds_stack *ds_stab_find(struct ds_stab *t,
				     const struct ds_skey *k, u32 *slot)
{
	u32 i = k->id & t->mask, v;

	for (;; i = (i + 1) & t->mask) {
		/* pairs with the smp_store_release() in ds_stab_claim() */
		v = smp_load_acquire(&t->idx[i]);
		if (!v) {
			*slot = i;
			return NULL;
		}
		if (ds_stack_is(&t->e[v - 1], k))
			return &t->e[v - 1];
	}
}

/*
 * Claim an entry for k with count n at slot, if there is room: with
 * frames, ds_stacks_cap of them; without, DS_STACKS_NO_ROOM more.
 */
static bool ds_stab_claim(struct ds_stab *t, const struct ds_skey *k,
			  u32 slot, u64 n)
{
	struct ds_stack *e;
	u32 j = t->used;

	if (k->nr ? t->framed >= ds_stacks_cap :
		    j >= ds_stacks_cap + DS_STACKS_NO_ROOM)
		return false;
	e = &t->e[j];
	e->loc = k->loc;
	e->reason = k->reason;
	e->id = k->id;
	e->nr = k->nr;
	e->siteless = k->siteless;
	memcpy(e->frames, k->frames, k->nr * sizeof(*k->frames));
	local64_set(&e->count, n);
	if (t->last)
		t->last[j] = 0;
	if (k->nr)
		t->framed++;
	/* the entry, then its slot: pairs with ds_stab_find()'s acquire */
	smp_store_release(&t->idx[slot], j + 1);
	/* the entry, then the count: pairs with ds_stacks_fold()'s acquire */
	smp_store_release(&t->used, j + 1);
	return true;
}

/* The key of the same site and reason without frames. */
static void ds_skey_frameless(struct ds_skey *k)
{
	k->nr = 0;
	k->id = jhash_2words((u32)k->loc, k->reason,
			     (u32)((u64)k->loc >> 32) ^ k->siteless) | 1;
}

/*
 * Count n of k in t: in its entry, else a new one, else its site's entry
 * without frames. Returns the entry it was counted in (k->id its id), or
 * NULL: lost. With irq, a claim is made with local interrupts off (a
 * CPU's table).
 */
static struct ds_stack *ds_stab_add(struct ds_stab *t, struct ds_skey *k,
				    u64 n, bool irq)
{
	struct ds_stack *e;
	unsigned long flags = 0;
	u32 slot;

	for (;;) {
		e = ds_stab_find(t, k, &slot);
		if (e) {
			local64_add(n, &e->count);
			return e;
		}
		if (irq)
			local_irq_save(flags);
		/* an interrupt may have claimed it meanwhile: look again */
		e = ds_stab_find(t, k, &slot);
		if (e)
			local64_add(n, &e->count);
		else if (ds_stab_claim(t, k, slot, n))
			e = &t->e[t->used - 1];
		if (irq)
			local_irq_restore(flags);
		if (e)
			return e;
		if (!k->nr) {
			local64_add(n, &t->lost);
			return NULL;
		}
		ds_skey_frameless(k);
	}
}

/*
 * Where in frames[0..n) the site loc is: after ra, ds_stacks_drop()'s
 * return address, by at most DS_STACK_SKIP frames; or -1.
 */
static int ds_stack_site(const unsigned long *frames, unsigned int n,
			 unsigned long ra, unsigned long loc)
{
	unsigned int r, i;

	for (r = 0; r < n && r < DS_STACK_OWN && frames[r] != ra; r++)
		;
	for (i = r + 1; i < n && i <= r + DS_STACK_SKIP; i++)
		if (r < DS_STACK_OWN && frames[i] == loc)
			return i;
	return -1;
}

/*
 * The drop's stack, from its site outward, into k (frames in buf), as the
 * unwinder walks it from here.
 */
static noinline notrace void ds_stack_take(unsigned long loc, u32 reason,
					   unsigned long ra,
					   unsigned long *buf,
					   struct ds_skey *k)
{
	unsigned int n;
	int i;

	n = stack_trace_save(buf, DS_STACK_MAX, 0);
	k->loc = loc;
	k->reason = reason;
	k->siteless = false;
	i = ds_stack_site(buf, n, ra, loc);
	if (i < 0) {
		k->siteless = true;
		k->frames = buf;
		ds_skey_frameless(k);
		return;
	}
	k->frames = buf + i;
	k->nr = min_t(unsigned int, n - i, DS_STACK_DEPTH);
	k->id = jhash2((const u32 *)k->frames,
		       k->nr * sizeof(*k->frames) / sizeof(u32),
		       (u32)loc ^ reason) | 1;
}

/*
 * Walks learnt. Each CPU keeps the last DS_CHAINS distinct walks its drops
 * took from ds_stack_count()'s caller out to the end of the stack or past
 * the site's DS_STACK_DEPTH frames: for each frame, the return address the
 * unwinder found and the step that led to it from the frame before. A
 * step is what one unwind_next_frame() does from a given ip and signal,
 * which depends on that ip's ORC entry alone: where the previous frame's
 * stack pointer is (an offset from this one's sp or bp, or the word there:
 * a switch of stacks, a realigned frame), where its return address is
 * (the word below, or the ip and sp of a pt_regs: an interrupt or entry
 * frame), and where its bp is (kept, the word at an offset from the new
 * sp or from bp, or the pt_regs' bp).
 *
 * A module cannot read the ORC tables; it can take a step on memory of its
 * own. ds_step_learn() runs unwind_next_frame() from the ip on a pattern
 * buffer of four regions, sp in the first and bp in the second, whose
 * every word holds the address of the same word in another region: where
 * the new sp, the regs and the new bp land says which register and which
 * word each came from, and at what offset. The step found must then give,
 * on the drop's own stack, exactly what the unwinder gave there. Steps
 * through the registers of an earlier frame, and code the module cannot
 * tell is text for good (BPF, ftrace trampolines), are not learnt: such a
 * walk is taken whole each time.
 *
 * A drop then replays the walks of its site and reason, with interrupts
 * off, from its own frame: each step a few loads, and a compare of the
 * return address found with the one learnt. A walk whose every return
 * address is the same visits the frames the unwinder would, one by one,
 * so the drop's stack is the learnt one and it is counted in that stack's
 * entry. Every pointer read from memory must point into the task's stack
 * or the stack the walk started on; a walk that ends in user space checks
 * that its last pt_regs are user mode. Any difference sends the drop to
 * the unwinder, and its walk is learnt in place of the oldest. Loading or
 * unloading a module forgets every walk (ds_chain_gen): its text, and so
 * its ORC data, can change under an address.
 */
#define DS_CHAINS	16

/* The new sp's place: off from sp or bp, or at the word sp or bp+off. */
enum { DS_SP_SP, DS_SP_BP, DS_SP_SP_IND, DS_SP_BP_IND };
/* The return address: below the new sp, or a pt_regs' (full, iret only) */
enum { DS_RA_CALL, DS_RA_REGS, DS_RA_IRET };
/* The new bp: kept, the word at boff from the new sp or bp, the regs' */
enum { DS_BP_KEEP, DS_BP_PREV_SP, DS_BP_BP, DS_BP_REGS };

struct ds_step {
	u8 sp, ra, bp;
	s16 boff;
	s32 off;
};

struct ds_chain {
	unsigned long loc;
	u32 reason;
	u32 gen;		/* ds_chain_gen when learnt; 0: none */
	struct ds_stack *e;	/* where its drops count; NULL: lost */
	unsigned long lo, hi;	/* the stack it starts on, if not the task's */
	u32 id;
	u8 nr;			/* frames walked: ip[0..nr) */
	u8 site;		/* ip[site] is loc */
	u8 frames;		/* of them, counted: from the site on */
	bool user;		/* one more step, to user-mode pt_regs */
	struct ds_step step[DS_STACK_MAX + 1];
	unsigned long ip[DS_STACK_MAX];
};

struct ds_chains {
	bool learning;		/* a walk is being learnt on this CPU */
	u8 next;		/* the walk to replace next */
	u8 last;		/* the last replayed */
	struct ds_chain c[DS_CHAINS];
};

static DEFINE_PER_CPU(struct ds_chains *, ds_chainsp);
static atomic_t ds_chain_gen = ATOMIC_INIT(1);

/*
 * The pattern buffer: region r's word at offset o holds the address of
 * offset o in region r ^ 2. Steps start with sp at DS_PAT_SP in region 0
 * and bp at the middle of region 1.
 */
#define DS_PAT_REGION	8192
#define DS_PAT_SP	1024
static unsigned long *ds_pat;

static unsigned long ds_pat_at(unsigned int region)
{
	return (unsigned long)ds_pat + region * DS_PAT_REGION;
}

/* The region of address a, or -1. */
static int ds_pat_region(unsigned long a)
{
	if (a < ds_pat_at(0) || a >= ds_pat_at(4))
		return -1;
	return (a - ds_pat_at(0)) / DS_PAT_REGION;
}

/* Where the word that holds v is. */
static unsigned long ds_pat_src(unsigned long v)
{
	return v ^ (2 * DS_PAT_REGION);
}

static int ds_pat_alloc(void)
{
	unsigned int i, n = 4 * DS_PAT_REGION / sizeof(long);

	if (ds_pat)
		return 0;
	/* aligned to its size, so that region r ^ 2 is an xor away */
	ds_pat = (unsigned long *)__get_free_pages(GFP_KERNEL,
						   get_order(4 * DS_PAT_REGION));
	if (!ds_pat)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ds_pat[i] = ds_pat_src((unsigned long)&ds_pat[i]);
	return 0;
}

/* A module's text, not BPF's, an ftrace or kprobe trampoline's. */
static noinline bool ds_module_text(unsigned long ip)
{
	char sym[KSYM_SYMBOL_LEN], *mod;
	size_t n;

	sprint_symbol(sym, ip);
	n = strlen(sym);
	mod = strrchr(sym, '[');
	return n && sym[n - 1] == ']' && mod && strcmp(mod, "[bpf]") &&
	       strncmp(mod, "[__builtin__", 12);
}

/* The text of ip stays the same code until a module comes or goes. */
static bool ds_text_lasts(unsigned long ip)
{
	if (ip >= __START_KERNEL_map && ip < MODULES_VADDR)
		return true;
	return ip >= MODULES_VADDR && ip < MODULES_END && ds_module_text(ip);
}

/*
 * A walk replayed: the frame's ip, sp, bp and pt_regs, and the stacks it
 * may read: the task's, and the one it started on (lo, hi) until it
 * leaves it, as the unwinder visits a stack only once; cur and len are
 * the one sp is on, where nearly every read is.
 */
struct ds_walk {
	unsigned long ip, sp, bp;
	struct pt_regs *regs;
	unsigned long task, lo, hi;
	unsigned long cur, len;
};

/* len bytes at a lie in a stack the walk may read */
static __always_inline bool ds_on_stack(const struct ds_walk *w,
					unsigned long a, size_t len)
{
	if (a - w->cur <= w->len - len)
		return true;
	return (a - w->task <= THREAD_SIZE - len) ||
	       (a >= w->lo && a < w->hi && w->hi - a >= len);
}

/* w's stacks, from the first one (lo, hi; 0: the task's) */
static __always_inline void ds_walk_init(struct ds_walk *w, unsigned long lo,
					 unsigned long hi)
{
	w->task = (unsigned long)task_stack_page(current);
	w->lo = lo;
	w->hi = hi;
	w->cur = lo ? lo : w->task;
	w->len = lo ? hi - lo : THREAD_SIZE;
}

static __always_inline unsigned long ds_word(unsigned long a)
{
	return READ_ONCE_NOCHECK(*(unsigned long *)a);
}

/* The word at a, if it lies in a stack the walk may read. */
static __always_inline bool ds_read(const struct ds_walk *w, unsigned long a,
				    unsigned long *v)
{
	if (!ds_on_stack(w, a, sizeof(long)))
		return false;
	*v = ds_word(a);
	return true;
}

/*
 * Step t on the drop's stack: w becomes the frame before. False where the
 * unwinder would have refused a read, or gone down its stack. A frame of
 * user-mode pt_regs ends the walk: its sp is not followed.
 */
static __always_inline bool ds_step_take(struct ds_walk *w,
					 const struct ds_step *t)
{
	unsigned long a, v = 0, nsp;
	struct pt_regs *regs;

	switch (t->sp) {
	case DS_SP_SP:
		v = w->sp + t->off;
		break;
	case DS_SP_BP:
		v = w->bp + t->off;
		break;
	case DS_SP_SP_IND:
		if (!ds_read(w, w->sp, &v))
			return false;
		v += t->off;
		break;
	case DS_SP_BP_IND:
		if (!ds_read(w, w->bp + t->off, &v))
			return false;
		break;
	}
	if ((t->bp == DS_BP_BP && !ds_read(w, w->bp + t->boff, &w->bp)) ||
	    (t->bp == DS_BP_PREV_SP && !ds_read(w, v + t->boff, &w->bp)))
		return false;
	if (t->ra == DS_RA_CALL) {
		if (!ds_read(w, v - sizeof(long), &w->ip))
			return false;
		w->regs = NULL;
		if (t->sp == DS_SP_SP) {	/* up by a positive offset */
			w->sp = v;
			return true;
		}
		nsp = v;
	} else {
		regs = (struct pt_regs *)(t->ra == DS_RA_REGS ? v :
					  v - IRET_FRAME_OFFSET);
		if (!ds_on_stack(w, (unsigned long)regs, sizeof(*regs)))
			return false;
		w->ip = ds_word((unsigned long)&regs->ip);
		nsp = ds_word((unsigned long)&regs->sp);
		if (t->bp == DS_BP_REGS)
			w->bp = ds_word((unsigned long)&regs->bp);
		w->regs = regs;
		if (ds_word((unsigned long)&regs->cs) & 3) {
			w->sp = nsp;
			return true;
		}
	}
	/* up the stack it is on, as the unwinder checks; leaving the first */
	a = nsp - w->task;
	if (a < THREAD_SIZE) {
		if (w->sp - w->task < THREAD_SIZE && nsp <= w->sp)
			return false;
		ds_walk_init(w, 0, 0);
	} else if (nsp - w->lo < w->hi - w->lo && nsp <= w->sp) {
		return false;
	}
	w->sp = nsp;
	return true;
}

/* A frame of user-mode pt_regs whose ip is not kernel text. */
static __always_inline bool ds_walk_user(const struct ds_walk *w)
{
	return w->regs && (ds_word((unsigned long)&w->regs->cs) & 3) &&
	       w->ip < __START_KERNEL_map;
}

/*
 * The step the unwinder took from *b (before) to *a (after), into c's
 * step i; false if it is not one a replay can take.
 */
static bool ds_step_learn(struct ds_chain *c, unsigned int i,
			  const struct unwind_state *b,
			  const struct unwind_state *a)
{
	unsigned long sp0 = ds_pat_at(0) + DS_PAT_SP;
	unsigned long bp0 = ds_pat_at(1) + DS_PAT_REGION / 2;
	struct ds_step *t = &c->step[i];
	unsigned long v, src;
	struct unwind_state s;
	struct ds_walk w;
	long boff;

	memset(&s, 0, sizeof(s));
	s.task = current;
	s.stack_info.type = STACK_TYPE_TASK;
	s.stack_info.begin = ds_pat;
	s.stack_info.end = (unsigned long *)ds_pat_at(4);
	s.ip = b->ip;
	s.signal = b->signal;
	s.sp = sp0;
	s.bp = bp0;
	/* a step that fails on the pattern is no bug to warn of: quiet */
	s.error = true;
	if (!unwind_next_frame(&s))
		return false;

	/* the pt_regs, or the new sp, where the step computed them */
	t->ra = !s.regs ? DS_RA_CALL : s.full_regs ? DS_RA_REGS : DS_RA_IRET;
	v = !s.regs ? s.sp : (unsigned long)s.regs +
			     (s.full_regs ? 0 : IRET_FRAME_OFFSET);
	switch (ds_pat_region(v)) {
	case 0:
		t->sp = DS_SP_SP;
		t->off = v - sp0;
		break;
	case 1:
		t->sp = DS_SP_BP;
		t->off = v - bp0;
		break;
	case 2:		/* *(sp) + off: the word at sp0 holds sp0 ^ 2 regions */
		t->sp = DS_SP_SP_IND;
		t->off = v - ds_pat_src(sp0);
		break;
	default:	/* *(bp + off), a word of region 1's */
		if (ds_pat_region(v) != 3)
			return false;
		t->sp = DS_SP_BP_IND;
		t->off = ds_pat_src(v) - bp0;
		break;
	}

	/* the new bp: kept, or the word it was read from */
	if (s.bp == bp0) {
		t->bp = DS_BP_KEEP;
		boff = 0;
	} else if (s.regs && s.full_regs &&
		   s.bp == ds_pat_src((unsigned long)&s.regs->bp)) {
		t->bp = DS_BP_REGS;
		boff = 0;
	} else {
		src = ds_pat_src(s.bp);
		if (ds_pat_region(src) == 1) {
			t->bp = DS_BP_BP;
			boff = src - bp0;
		} else {
			t->bp = DS_BP_PREV_SP;
			boff = src - v;
		}
	}
	if (boff != (s16)boff)
		return false;
	t->boff = boff;

	/* The same step on the drop's stack must give what the unwinder did. */
	w.ip = b->ip;
	w.sp = b->sp;
	w.bp = b->bp;
	w.regs = b->regs;
	if (b->sp - (unsigned long)task_stack_page(current) < THREAD_SIZE)
		ds_walk_init(&w, 0, 0);
	else
		ds_walk_init(&w, c->lo, c->hi);
	return ds_step_take(&w, t) && w.ip == a->ip && w.sp == a->sp &&
	       w.bp == a->bp && w.regs == a->regs;
}

/*
 * The unwinder's walk, as stack_trace_save() takes it, into c, from the
 * frame at stack pointer start (ds_stack_count()'s caller's), where bp
 * is the caller's. Returns whether the site is where ds_stack_site()
 * looks for it, and in *ok whether every step can be replayed.
 */
static noinline notrace bool ds_chain_learn(struct ds_chain *c,
					    unsigned long start,
					    unsigned long bp,
					    unsigned long ra,
					    unsigned long loc, bool *ok)
{
	struct unwind_state s, b;
	unsigned int i;
	unsigned long ip;
	int site = -1;

	c->user = false;
	unwind_start(&s, current, NULL, NULL);
	for (i = 0; i < 3 && !unwind_done(&s) && s.sp != start; i++)
		unwind_next_frame(&s);
	/* there, bp is the one ds_stack_count() saved */
	*ok = !unwind_done(&s) && s.sp == start && s.bp == bp &&
	      (s.stack_info.type == STACK_TYPE_TASK ||
	       s.stack_info.type == STACK_TYPE_IRQ);
	c->lo = 0;
	c->hi = 0;
	if (*ok && s.stack_info.type != STACK_TYPE_TASK) {
		c->lo = (unsigned long)s.stack_info.begin;
		c->hi = (unsigned long)s.stack_info.end;
	}
	for (i = 0; !unwind_done(&s) && i < DS_STACK_MAX; i++) {
		ip = unwind_get_return_address(&s);
		if (!ip) {
			/* the end of a walk from user space */
			*ok = *ok && i && c->step[i].ra == DS_RA_REGS &&
			      s.regs && user_mode(s.regs) &&
			      s.ip < __START_KERNEL_map;
			c->user = true;
			break;
		}
		*ok = *ok && ds_text_lasts(ip);
		c->ip[i] = ip;
		/* once found, more frames do not move it */
		if (site < 0)
			site = ds_stack_site(c->ip, i + 1, ra, loc);
		if (site >= 0 && i + 1 == site + DS_STACK_DEPTH) {
			i++;
			break;
		}
		b = s;
		unwind_next_frame(&s);
		/* an error: a guess (no ORC entry), or the end */
		*ok = *ok && !s.error;
		if (!unwind_done(&s) && *ok)
			*ok = ds_step_learn(c, i + 1, &b, &s);
	}
	c->nr = i;
	if (site < 0)
		return false;
	c->site = site;
	c->frames = i - site;
	return true;
}

/*
 * Replay c from its first frame (sp start, bp): true if every frame is the
 * same, and the walk ends where it ended.
 */
static __always_inline bool ds_chain_replay(const struct ds_chain *c,
					    unsigned long start,
					    unsigned long bp)
{
	unsigned int i, n = c->nr + c->user;
	struct ds_walk w = { .sp = start, .bp = bp };

	ds_walk_init(&w, c->lo, c->hi);

	for (i = 1; i < n; i++) {
		if (!ds_step_take(&w, &c->step[i]))
			return false;
		if (w.regs && (ds_word((unsigned long)&w.regs->cs) & 3))
			return i == c->nr && ds_walk_user(&w);
		if (i == c->nr || w.ip != c->ip[i])
			return false;
	}
	return true;
}

/* A drop whose stack is taken: its site and reason, and where its walk starts. */
struct ds_sdrop {
	unsigned long loc;
	u32 reason;
	unsigned long ra;	/* ds_stacks_drop()'s return address */
	unsigned long start;	/* the first frame's sp, ds_stacks_drop()'s */
	unsigned long bp;	/* and its bp */
};

/*
 * Learn the drop's walk in place of this CPU's oldest, and count its stack
 * in t. Returns false if it counted nothing (an interrupt while this CPU
 * learns a walk), else true and in *id the stack's id, or 0: lost.
 */
static noinline notrace bool ds_stack_learn(struct ds_stab *t,
					    struct ds_chains *cs,
					    const struct ds_sdrop *d, u32 *id)
{
	u32 gen = atomic_read(&ds_chain_gen);
	unsigned long flags;
	struct ds_chain *c;
	struct ds_skey k;
	bool ok;

	local_irq_save(flags);
	if (cs->learning) {
		local_irq_restore(flags);
		return false;
	}
	cs->learning = true;
	local64_inc(&t->walked);
	c = &cs->c[cs->next];
	c->gen = 0;
	cs->next = (cs->next + 1) % DS_CHAINS;
	local_irq_restore(flags);

	k.loc = d->loc;
	k.reason = d->reason;
	k.siteless = !ds_chain_learn(c, d->start, d->bp, d->ra, d->loc, &ok);
	if (k.siteless) {
		local64_inc(&t->siteless);
		ds_skey_frameless(&k);
		ok = false;
	} else {
		k.frames = c->ip + c->site;
		k.nr = c->frames;
		k.id = jhash2((const u32 *)k.frames,
			      k.nr * sizeof(*k.frames) / sizeof(u32),
			      (u32)d->loc ^ d->reason) | 1;
	}
	c->e = ds_stab_add(t, &k, 1, true);
	c->id = c->e ? k.id : 0;
	c->loc = d->loc;
	c->reason = d->reason;
	*id = c->id;

	local_irq_save(flags);
	c->gen = ok ? gen : 0;
	cs->last = c - cs->c;
	cs->learning = false;
	local_irq_restore(flags);
	return true;
}

/*
 * Count the drop's stack in t: a learnt walk replayed, else the unwinder's
 * walk, learnt. The walks start at this function's caller's frame, found
 * from this one's frame address. Returns as ds_stack_learn() does.
 */
static noinline notrace bool ds_stack_count(struct ds_stab *t,
					    struct ds_chains *cs,
					    struct ds_sdrop *d, u32 *id)
{
	/* the saved frame pointer (the caller's bp), the return address */
	unsigned long *fa = __builtin_frame_address(0);
	u32 gen = atomic_read(&ds_chain_gen);
	const struct ds_chain *c;
	unsigned long flags, ip0;
	unsigned int i, j;

	d->start = (unsigned long)(fa + 2);
	d->bp = ds_word((unsigned long)fa);
	ip0 = ds_word((unsigned long)(fa + 1));
	local_irq_save(flags);
	for (i = 0; i < DS_CHAINS; i++) {
		j = (cs->last + i) % DS_CHAINS;
		c = &cs->c[j];
		if (c->gen != gen || c->loc != d->loc ||
		    c->reason != d->reason || c->ip[0] != ip0 ||
		    !ds_chain_replay(c, d->start, d->bp))
			continue;
		cs->last = j;
		if (c->e)
			local64_inc(&c->e->count);
		else
			local64_inc(&t->lost);
		*id = c->id;
		local_irq_restore(flags);
		return true;
	}
	local_irq_restore(flags);
	return ds_stack_learn(t, cs, d, id);
}

/* The drop's stack taken whole and counted in t: its id, or 0: lost. */
static noinline notrace u32 ds_stack_whole(struct ds_stab *t,
					   const struct ds_sdrop *d)
{
	unsigned long buf[DS_STACK_MAX];
	struct ds_skey k;

	local64_inc(&t->walked);
	ds_stack_take(d->loc, d->reason, d->ra, buf, &k);
	if (k.siteless)
		local64_inc(&t->siteless);
	return ds_stab_add(t, &k, 1, true) ? k.id : 0;
}

/*
 * A drop while stacks are on, in the probe's slow path (preemption off):
 * its stack counted when the rule matches. Returns its id, or 0: not
 * taken, or lost. A drop in an NMI, which could come between any two
 * steps of the CPU's tables, is counted as lost.
 */
notrace u32 ds_stacks_drop(struct ds_drop *drop)
{
	struct ds_sdrop d = {
		.loc = drop->k.loc, .reason = drop->k.reason,
		.ra = (unsigned long)__builtin_return_address(0),
	};
	struct ds_stab *t;
	u32 id;

	if (st.rule.match && !ds_rule_matches_drop(&st.rule, drop))
		return 0;
	t = *ds_this_cpu_ptr(&ds_stabs);
	if (unlikely(in_nmi())) {
		local64_inc(&t->lost);
		return 0;
	}
	if (ds_stack_count(t, *ds_this_cpu_ptr(&ds_chainsp), &d, &id))
		return id;
	return ds_stack_whole(t, &d);
}

/*
 * A capture's drop (capture.c): its stack walked whole, not counted. The
 * caller is ds_capture(), whose return address is ra, so that the walk
 * from here finds it where ds_stacks_drop()'s is.
 */
notrace u32 ds_stacks_frames(unsigned long loc, u32 reason, unsigned long ra,
			     u64 *frames, u32 *id)
{
	unsigned long buf[DS_STACK_MAX];
	struct ds_skey k;
	u32 i;

	*id = 0;
	if (unlikely(in_nmi()))
		return 0;
	ds_stack_take(loc, reason, ra, buf, &k);
	if (k.siteless)
		return 0;
	*id = k.id;
	for (i = 0; i < k.nr; i++)
		frames[i] = k.frames[i];
	return k.nr;
}

/* ---- under ds_lock ------------------------------------------------------ */

static void ds_stab_free(struct ds_stab *t)
{
	if (!t)
		return;
	kvfree(t->idx);
	kvfree(t->e);
	kvfree(t->last);
	kfree(t);
}

static struct ds_stab *ds_stab_alloc(bool percpu, int node)
{
	u32 n = ds_stacks_cap + DS_STACKS_NO_ROOM;
	u32 slots = roundup_pow_of_two(2 * n);
	struct ds_stab *t;

	t = kzalloc_node(sizeof(*t), GFP_KERNEL, node);
	if (!t)
		return NULL;
	t->mask = slots - 1;
	t->idx = kvzalloc_node(array_size(slots, sizeof(*t->idx)),
			       GFP_KERNEL, node);
	t->e = kvzalloc_node(array_size(n, sizeof(*t->e)), GFP_KERNEL, node);
	if (percpu)
		t->last = kvzalloc_node(array_size(n, sizeof(*t->last)),
					GFP_KERNEL, node);
	if (!t->idx || !t->e || (percpu && !t->last)) {
		ds_stab_free(t);
		return NULL;
	}
	local64_set(&t->lost, 0);
	local64_set(&t->siteless, 0);
	local64_set(&t->walked, 0);
	return t;
}

static void ds_stab_empty(struct ds_stab *t)
{
	memset(t->idx, 0, (t->mask + 1) * sizeof(*t->idx));
	t->used = 0;
	t->framed = 0;
	local64_set(&t->lost, 0);
	local64_set(&t->siteless, 0);
	local64_set(&t->walked, 0);
}

/* A module comes or goes: the walks learnt may cross its text. */
static int ds_chain_module(struct notifier_block *nb, unsigned long val,
			   void *data)
{
	if (atomic_inc_return(&ds_chain_gen) == 0)
		atomic_inc(&ds_chain_gen);
	return NOTIFY_DONE;
}

static struct notifier_block ds_chain_nb = {
	.notifier_call = ds_chain_module,
};

static void ds_stacks_free(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		ds_stab_free(per_cpu(ds_stabs, cpu));
		per_cpu(ds_stabs, cpu) = NULL;
		kvfree(per_cpu(ds_chainsp, cpu));
		per_cpu(ds_chainsp, cpu) = NULL;
	}
	ds_stab_free(st.folded);
	st.folded = NULL;
	if (ds_pat)
		free_pages((unsigned long)ds_pat, get_order(4 * DS_PAT_REGION));
	ds_pat = NULL;
}

/* The tables, on first use; kept until the module goes. */
static int ds_stacks_alloc(void)
{
	unsigned int cpu;

	if (st.folded)
		return 0;
	for_each_possible_cpu(cpu) {
		struct ds_stab *t = ds_stab_alloc(true, cpu_to_node(cpu));

		per_cpu(ds_stabs, cpu) = t;
		per_cpu(ds_chainsp, cpu) =
			kvzalloc_node(sizeof(struct ds_chains), GFP_KERNEL,
				      cpu_to_node(cpu));
		if (!t || !per_cpu(ds_chainsp, cpu))
			goto err;
	}
	if (ds_pat_alloc())
		goto err;
	st.folded = ds_stab_alloc(false, NUMA_NO_NODE);
	if (st.folded && !register_module_notifier(&ds_chain_nb))
		return 0;
err:
	ds_stacks_free();
	return -ENOMEM;
}

static u64 ds_stacks_sum(size_t off)
{
	unsigned int cpu;
	u64 n = 0;

	for_each_possible_cpu(cpu)
		n += local64_read((local64_t *)((char *)per_cpu(ds_stabs, cpu) +
						off));
	return n;
}

/* Add each CPU's growth since the last fold to the folded table. */
void ds_stacks_fold(void)
{
	unsigned int cpu;

	lockdep_assert_held(&ds_lock);
	if (!st.folded)
		return;
	for_each_possible_cpu(cpu) {
		struct ds_stab *t = per_cpu(ds_stabs, cpu);
		/* pairs with the smp_store_release() in ds_stab_claim() */
		u32 used = smp_load_acquire(&t->used), j;

		for (j = 0; j < used; j++) {
			struct ds_stack *e = &t->e[j];
			u64 c = local64_read(&e->count);
			struct ds_skey k = {
				.loc = e->loc, .reason = e->reason,
				.id = e->id, .nr = e->nr,
				.siteless = e->siteless, .frames = e->frames,
			};

			if (c == t->last[j])
				continue;
			ds_stab_add(st.folded, &k, c - t->last[j], false);
			t->last[j] = c;
		}
	}
}

/*
 * Forget the folded stacks. With the probe detached (!attached) the
 * per-CPU tables are emptied too; while it runs, they keep counting and
 * only their growth from here on is folded.
 */
void ds_stacks_reset(bool attached)
{
	unsigned int cpu;

	lockdep_assert_held(&ds_lock);
	if (!st.folded)
		return;
	if (attached) {
		ds_stacks_fold();
	} else {
		for_each_possible_cpu(cpu) {
			ds_stab_empty(per_cpu(ds_stabs, cpu));
			memset(per_cpu(ds_chainsp, cpu), 0,
			       sizeof(struct ds_chains));
		}
	}
	ds_stab_empty(st.folded);
	st.lost_base = ds_stacks_sum(offsetof(struct ds_stab, lost));
	st.siteless_base = ds_stacks_sum(offsetof(struct ds_stab, siteless));
	st.walked_base = ds_stacks_sum(offsetof(struct ds_stab, walked));
	st.gen++;
}

/* Stop taking stacks; no probe takes one once this returns. */
static void ds_stacks_stop(void)
{
	if (!st.on)
		return;
	if (static_key_enabled(&ds_stacks_site_key))
		static_branch_disable(&ds_stacks_site_key);
	if (st.slow)
		static_branch_dec(&ds_slow_key);
	st.slow = false;
	static_branch_disable(&ds_stacks_key);
	st.on = false;
	synchronize_rcu();
}

/* A rule on a site alone (start, end): tested in the fast path. */
static bool ds_stacks_site_only(const struct ds_rule *r)
{
	return r->match == DS_M_LOC;
}

/*
 * Stacks on for the drops rule r matches (NULL: every drop), or off.
 * Under ds_lock. The tables are allocated on first use.
 */
int ds_stacks_set(bool on, const struct ds_rule *r,
		  struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&ds_lock);
	ds_stacks_stop();
	if (!on)
		return 0;
	err = ds_stacks_alloc();
	if (err) {
		NL_SET_ERR_MSG(extack, "stacks: no memory for the stack tables");
		return err;
	}
	memset(&st.rule, 0, sizeof(st.rule));
	if (r)
		st.rule = *r;
	static_branch_enable(&ds_stacks_key);
	if (r && ds_stacks_site_only(r)) {
		WRITE_ONCE(ds_stacks_start, r->start);
		WRITE_ONCE(ds_stacks_len, r->end - r->start);
		static_branch_enable(&ds_stacks_site_key);
	} else {
		static_branch_inc(&ds_slow_key);
		st.slow = true;
	}
	st.on = true;
	return 0;
}

bool ds_stacks_on(const struct ds_rule **r)
{
	lockdep_assert_held(&ds_lock);
	*r = &st.rule;
	return st.on;
}

/* Clear: forget the stacks counted so far; they go on being taken. */
void ds_stacks_clear(void)
{
	lockdep_assert_held(&ds_lock);
	ds_stacks_reset(true);
}

void ds_stacks_stats(struct ds_stacks_stats *s)
{
	lockdep_assert_held(&ds_lock);
	memset(s, 0, sizeof(*s));
	if (!st.folded)
		return;
	s->stacks = st.folded->used;
	s->lost = ds_stacks_sum(offsetof(struct ds_stab, lost)) -
		  st.lost_base + local64_read(&st.folded->lost);
	s->siteless = ds_stacks_sum(offsetof(struct ds_stab, siteless)) -
		      st.siteless_base;
	s->walked = ds_stacks_sum(offsetof(struct ds_stab, walked)) -
		    st.walked_base;
}

const u32 *ds_stacks_generation(void)
{
	return &st.gen;
}

u32 ds_stacks_count(void)
{
	lockdep_assert_held(&ds_lock);
	return st.folded ? st.folded->used : 0;
}

/* addr as the kernel prints it, "sym+0x1c/0x80 [module]" */
static int ds_put_symbol(struct sk_buff *skb, int type, unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	return nla_put_string(skb, type, sym);
}

/* One DROPSCOPE_A_STACK nest: the i-th folded stack. */
int ds_stack_put(struct sk_buff *skb, u32 i)
{
	const struct ds_stack *e = &st.folded->e[i];
	struct nlattr *nest;
	u16 f;

	nest = nla_nest_start(skb, DROPSCOPE_A_STACK);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, DROPSCOPE_STACK_A_LOCATION, e->loc,
			      DROPSCOPE_STACK_A_PAD) ||
	    nla_put_u32(skb, DROPSCOPE_STACK_A_REASON, e->reason) ||
	    ds_put_symbol(skb, DROPSCOPE_STACK_A_SITE, e->loc) ||
	    nla_put_u32(skb, DROPSCOPE_STACK_A_ID, e->id) ||
	    nla_put_u64_64bit(skb, DROPSCOPE_STACK_A_COUNT,
			      local64_read(&e->count), DROPSCOPE_STACK_A_PAD) ||
	    (!e->nr && nla_put_flag(skb, DROPSCOPE_STACK_A_NO_ROOM)) ||
	    (e->siteless && nla_put_flag(skb, DROPSCOPE_STACK_A_SITELESS)))
		goto cancel;
	for (f = 0; f < e->nr; f++)
		if (nla_put_u64_64bit(skb, DROPSCOPE_STACK_A_FRAME,
				      e->frames[f], DROPSCOPE_STACK_A_PAD))
			goto cancel;
	for (f = 0; f < e->nr; f++)
		if (ds_put_symbol(skb, DROPSCOPE_STACK_A_SYMBOL, e->frames[f]))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* The module goes: the probe is detached already. */
void ds_stacks_exit(void)
{
	mutex_lock(&ds_lock);
	ds_stacks_stop();
	mutex_unlock(&ds_lock);
	if (st.folded)
		unregister_module_notifier(&ds_chain_nb);
	ds_stacks_free();
}
