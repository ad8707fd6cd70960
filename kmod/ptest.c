// SPDX-License-Identifier: GPL-2.0
/*
 * The preemptible-probe test: built only with DS_PREEMPT_TEST=1 (make
 * module PREEMPT_TEST=1), never in the module users load.
 *
 * Tracepoints may call probes preemptible (see ds_probe_begin()); the
 * kernels of the lab call them with preemption disabled. This test calls
 * every probe the way such a kernel would: from kernel threads, two per
 * online CPU, not bound to any CPU, with preemption enabled, while the
 * real probes run on real drops, TCP sessions and the interval's folds.
 *
 * Writing N to /sys/kernel/debug/dropscope/preempt_test runs N
 * rounds in each thread, and returns when all are done. Meanwhile the
 * writer moves the threads from CPU to CPU (set_cpus_allowed_ptr(), which
 * preempts a running thread wherever it is preemptible and migrates it),
 * so that a probe that were preemptible would be moved in its middle.
 * A round is:
 *   - the drop probe on the thread's own packet, without a socket, at
 *     the site ds_ptest_site, reason NOT_SPECIFIED;
 *   - the session hooks on the thread's own TCP socket: a birth
 *     (CLOSE to SYN_SENT), the drop probe on the packet with that socket
 *     (the site again, and the session's drop), a reset received, and a
 *     close (SYN_SENT to CLOSE);
 *   - the SMC probes on the thread's own SMC socket: a send and a receive
 *     of one byte, a fallback of reason DS_PTEST_SMC_REASON, and a link
 *     down.
 * So every round adds exactly 2 drops to the site, 1 session closed with
 * 1 drop and 1 reset received, 1 byte each way, 1 fallback and 1 link
 * down. On a kernel without SMC (Debian's 7.x: no DIBS), the rounds
 * leave the SMC probes out.
 *
 * Meanwhile the kernel calls the probes too, from its tracepoints, on
 * the real drops and sessions the lab makes: where tracepoints call
 * probes preemptible (7.x, DS_HAVE_TP_PREEMPTIBLE), those calls are the
 * real path made preemptible, and K counts them.
 *
 * Reading the file gives the last run: "threads T rounds N
 * moves M passes P errors E unsafe U checked C ms D smc S kernel K
 * tpreempt R": M how often a
 * thread found itself on another CPU than in its previous round, P the
 * writer's passes over the threads to move them, U the accesses to this
 * CPU's part of per-CPU data that a probe made preemptible (every one is
 * counted: ds_this_cpu_ptr()), C whether the kernel keeps the preemption
 * count that tells (CONFIG_PREEMPT_COUNT), D how long it took, S whether
 * the rounds had SMC sockets, K the probe calls the kernel itself made
 * preemptible (not the test's threads), R whether this kernel's
 * tracepoints call probes preemptible.
 *
 * The test's packet has a network header of 20 bytes, so that a capture
 * of its site copies it.
 *
 * The test needs the three parts running (start), and is refused
 * otherwise; one run at a time.
 */

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/ip.h>
#include <linux/kthread.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "compat.h"
#include "dropscope.h"

#define DS_PTEST_ROUNDS_MAX	1000000
/* no SMC_CLC_DECL_* has it: the test's fallbacks are told apart */
#define DS_PTEST_SMC_REASON	0x7e570001
#define DS_PTEST_HEADROOM	32

static DEFINE_MUTEX(ds_ptest_lock);
static struct {
	u32 threads, rounds, moves, passes, errors;
	u64 ms;
} ds_ptest_last;

/* per-CPU data that a probe touched preemptible, since the run began */
static atomic_t ds_ptest_unsafe;
/* probes the kernel's tracepoints called preemptible, since then */
static atomic_t ds_ptest_kernel;
/* every thread of the run had its SMC socket */
static bool ds_ptest_smc_on;

void ds_ptest_cpu_check(void)
{
	if (preemptible())
		atomic_inc(&ds_ptest_unsafe);
}

/* A probe begins: the test's own threads call it, or the kernel did. */
void ds_ptest_enter(void)
{
	if (preemptible() &&
	    (!(current->flags & PF_KTHREAD) ||
	     strncmp(current->comm, "ds_ptest/", strlen("ds_ptest/"))))
		atomic_inc(&ds_ptest_kernel);
}

struct ds_ptest_thread {
	struct task_struct *task;
	atomic_t *running;	/* threads still in their rounds */
	u32 rounds;
	u32 moves;
	int err;
};

/* The site of the test's drops: a place in this module, by its name. */
static noinline void ds_ptest_site(void)
{
	barrier();
}

static void ds_ptest_round(struct sk_buff *skb, struct sock *tcp,
			   struct sock *smc)
{
	void *site = (void *)ds_ptest_site;

	ds_ptest_drop(skb, site);
	ds_ptest_state(tcp, TCP_CLOSE, TCP_SYN_SENT);
	skb->sk = tcp;
	ds_ptest_drop(skb, site);
	skb->sk = NULL;
	ds_ptest_reset(tcp);
	ds_ptest_state(tcp, TCP_SYN_SENT, TCP_CLOSE);
	if (smc)
		ds_ptest_smc(smc, DS_PTEST_SMC_REASON);
}

static int ds_ptest_thread(void *arg)
{
	struct ds_ptest_thread *t = arg;
	struct socket *tcp = NULL, *smc = NULL;
	struct sk_buff *skb;
	struct iphdr *iph;
	int cpu, last;
	u32 i;

	skb = alloc_skb(DS_PTEST_HEADROOM + sizeof(struct iphdr), GFP_KERNEL);
	t->err = skb ? 0 : -ENOMEM;
	if (skb) {
		skb_reserve(skb, DS_PTEST_HEADROOM);
		skb->protocol = htons(ETH_P_IP);
		skb_reset_network_header(skb);
		iph = skb_put_zero(skb, sizeof(*iph));
		iph->version = 4;
		iph->ihl = 5;
		iph->tot_len = htons(sizeof(*iph));
		/* RFC 3692's protocol for experiments */
		iph->protocol = 253;
	}
	if (!t->err)
		t->err = sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					  IPPROTO_TCP, &tcp);
	if (!t->err) {
		t->err = sock_create_kern(&init_net, AF_SMC, SOCK_STREAM, 0,
					  &smc);
		/* a kernel without SMC: the rounds leave it out */
		if (t->err == -EAFNOSUPPORT) {
			t->err = 0;
			smc = NULL;
			WRITE_ONCE(ds_ptest_smc_on, false);
		}
	}
	last = raw_smp_processor_id();
	for (i = 0; !t->err && i < t->rounds; i++) {
		ds_ptest_round(skb, tcp->sk, smc ? smc->sk : NULL);
		cpu = raw_smp_processor_id();
		t->moves += cpu != last;
		last = cpu;
		cond_resched();
	}
	if (smc)
		sock_release(smc);
	if (tcp)
		sock_release(tcp);
	/* not a drop */
	consume_skb(skb);
	atomic_dec(t->running);
	/* kthread_stop() collects the result */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* Move the threads from CPU to CPU until they are done. */
static void ds_ptest_move(struct ds_ptest_thread *t, u32 n, atomic_t *running)
{
	unsigned int cpus = num_online_cpus(), pass, cpu;
	u32 i;

	for (pass = 0; atomic_read(running); pass++) {
		for (i = 0; i < n; i++) {
			cpu = cpumask_nth((i + pass) % cpus, cpu_online_mask);
			if (cpu < nr_cpu_ids)
				set_cpus_allowed_ptr(t[i].task, cpumask_of(cpu));
		}
		cond_resched();
	}
	ds_ptest_last.passes = pass;
	for (i = 0; i < n; i++)
		set_cpus_allowed_ptr(t[i].task, cpu_possible_mask);
}

static int ds_ptest_run(u32 rounds)
{
	u32 n = 2 * num_online_cpus(), i, started = 0;
	u64 t0 = ktime_get_ns();
	struct ds_ptest_thread *t;
	atomic_t running;
	bool on;
	int err = 0;

	mutex_lock(&ds_lock);
	/* every part this kernel has */
	on = (ds_running_parts() | ds_parts_absent()) == DROPSCOPE_PARTS_ALL;
	mutex_unlock(&ds_lock);
	if (!on) {
		pr_warn("preempt_test: start every part first\n");
		return -EINVAL;
	}
	t = kcalloc(n, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	memset(&ds_ptest_last, 0, sizeof(ds_ptest_last));
	atomic_set(&ds_ptest_unsafe, 0);
	atomic_set(&ds_ptest_kernel, 0);
	ds_ptest_smc_on = true;
	atomic_set(&running, n);
	for (i = 0; i < n; i++) {
		t[i].rounds = rounds;
		t[i].running = &running;
		t[i].task = kthread_create(ds_ptest_thread, &t[i],
					   "ds_ptest/%u", i);
		if (IS_ERR(t[i].task)) {
			err = PTR_ERR(t[i].task);
			break;
		}
		started++;
	}
	/* the threads that did not start are not running either */
	atomic_sub(n - started, &running);
	for (i = 0; i < started; i++)
		wake_up_process(t[i].task);
	ds_ptest_move(t, started, &running);
	ds_ptest_last.threads = started;
	ds_ptest_last.rounds = rounds;
	for (i = 0; i < started; i++) {
		kthread_stop(t[i].task);
		ds_ptest_last.moves += t[i].moves;
		if (t[i].err) {
			ds_ptest_last.errors++;
			err = err ?: t[i].err;
		}
	}
	ds_ptest_last.ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
	kfree(t);
	return err;
}

/*
 * debugfs, not a module parameter: a parameter's write holds the module's
 * param_lock, which reading a parameter takes inside kernfs' own mutex,
 * and start takes that (reading BTF) under ds_lock: lockdep's cycle.
 */
static ssize_t ds_ptest_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *pos)
{
	u32 rounds;
	int err;

	err = kstrtou32_from_user(buf, len, 0, &rounds);
	if (err || !rounds || rounds > DS_PTEST_ROUNDS_MAX) {
		pr_warn("preempt_test: rounds from 1 to %u\n",
			DS_PTEST_ROUNDS_MAX);
		return -EINVAL;
	}
	if (!mutex_trylock(&ds_ptest_lock))
		return -EBUSY;
	err = ds_ptest_run(rounds);
	mutex_unlock(&ds_ptest_lock);
	return err ?: len;
}

static ssize_t ds_ptest_read(struct file *file, char __user *buf,
			     size_t len, loff_t *pos)
{
	char out[200];
	int n;

	mutex_lock(&ds_ptest_lock);
	n = scnprintf(out, sizeof(out),
		      "threads %u rounds %u moves %u passes %u errors %u unsafe %d checked %d ms %llu smc %d kernel %d tpreempt %d\n",
		      ds_ptest_last.threads, ds_ptest_last.rounds,
		      ds_ptest_last.moves, ds_ptest_last.passes,
		      ds_ptest_last.errors, atomic_read(&ds_ptest_unsafe),
		      IS_ENABLED(CONFIG_PREEMPT_COUNT), ds_ptest_last.ms,
		      READ_ONCE(ds_ptest_smc_on), atomic_read(&ds_ptest_kernel),
		      DS_TP_PREEMPTIBLE);
	mutex_unlock(&ds_ptest_lock);
	return simple_read_from_buffer(buf, len, pos, out, n);
}

static const struct file_operations ds_ptest_fops = {
	.owner = THIS_MODULE,
	.write = ds_ptest_write,
	.read = ds_ptest_read,
	.llseek = default_llseek,
};

static struct dentry *ds_ptest_dir;

void ds_ptest_init(void)
{
	ds_ptest_dir = debugfs_create_dir("dropscope", NULL);
	debugfs_create_file("preempt_test", 0600, ds_ptest_dir, NULL,
			    &ds_ptest_fops);
}

void ds_ptest_exit(void)
{
	debugfs_remove(ds_ptest_dir);
}
