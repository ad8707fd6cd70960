/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences, all in one place. Kbuild tests the headers of the
 * kernel built against (kmod/compat.mk) and defines DS_HAVE_* when it
 * has the newer one; each block names the release that changed it.
 */
#ifndef _DROPSCOPE_COMPAT_H
#define _DROPSCOPE_COMPAT_H

#include <net/dropreason.h>

/*
 * 6.11 added the receiving socket to skb:kfree_skb
 * (commit "net: add rx_sk to trace_kfree_skb"); 7.2 made it const.
 */
#ifdef DS_HAVE_KFREE_SKB_CONST_RX_SK
#define DS_KFREE_SKB_PROBE_ARGS						\
	void *data, struct sk_buff *skb, void *location,		\
	enum skb_drop_reason reason, const struct sock *rx_sk
#elif defined(DS_HAVE_KFREE_SKB_RX_SK)
#define DS_KFREE_SKB_PROBE_ARGS						\
	void *data, struct sk_buff *skb, void *location,		\
	enum skb_drop_reason reason, struct sock *rx_sk
#else
#define DS_KFREE_SKB_PROBE_ARGS						\
	void *data, struct sk_buff *skb, void *location,		\
	enum skb_drop_reason reason
#endif

/*
 * The receiving socket, or NULL where skb:kfree_skb does not pass it: the
 * drop path attributes a drop to skb->sk, else to it.
 */
#ifdef DS_HAVE_KFREE_SKB_RX_SK
#define DS_KFREE_SKB_RX_SK	rx_sk
#else
#define DS_KFREE_SKB_RX_SK	NULL
#endif

/*
 * 6.10 gave udp:udp_fail_queue_rcv_skb the datagram (commit "net: udp:
 * add IP/port data to the tracepoint udp/udp_fail_queue_rcv_skb").
 */
#ifdef DS_HAVE_UDP_FAIL_SKB
#define DS_UDP_FAIL_PROBE_ARGS	void *data, int rc, struct sock *sk,	\
				struct sk_buff *skb
#else
#define DS_UDP_FAIL_PROBE_ARGS	void *data, int rc, struct sock *sk
#endif

/*
 * 6.17 gave tcp:tcp_retransmit_skb the retransmit's error
 * (trace_tcp_retransmit_skb(sk, skb, err)): it now fires for a retransmit
 * that failed too. The probe counts the ones sent, as 6.x fired for them
 * only; one whose transmit failed after the kernel counted it (a qdisc
 * dropped it) is in total_retrans and TcpRetransSegs, not in the events.
 */
#ifdef DS_HAVE_TCP_RETRANSMIT_ERR
#define DS_TCP_RETRANSMIT_PROBE_ARGS					\
	void *data, const struct sock *sk, const struct sk_buff *skb, int err
#define DS_TCP_RETRANSMIT_FAILED	(err)
#else
#define DS_TCP_RETRANSMIT_PROBE_ARGS					\
	void *data, const struct sock *sk, const struct sk_buff *skb
#define DS_TCP_RETRANSMIT_FAILED	0
#endif

/*
 * 6.10 gave tcp:tcp_send_reset the reason of the reset
 * (commit "tcp: add reasons for sending RST", enum sk_rst_reason).
 */
#ifdef DS_HAVE_TCP_SEND_RESET_REASON
#include <net/rstreason.h>
#define DS_TCP_SEND_RESET_PROBE_ARGS					\
	void *data, const struct sock *sk, const struct sk_buff *skb,	\
	const enum sk_rst_reason reason
#else
#define DS_TCP_SEND_RESET_PROBE_ARGS					\
	void *data, const struct sock *sk, const struct sk_buff *skb
#endif

/*
 * 6.4 split drop reasons into subsystems, each registering its own name
 * list (drop_reasons_by_subsys, DS_HAVE_REASON_SUBSYS); before, one array
 * drop_reasons[] covered the core reasons below SKB_DROP_REASON_MAX.
 */

/*
 * 6.2 gave pre_doit and post_doit the split op
 * (commit "genetlink: use split ops in pre_doit/post_doit").
 */
#ifdef DS_HAVE_GENL_SPLIT_PRE_DOIT
#define ds_genl_op genl_split_ops
#else
#define ds_genl_op genl_ops
#endif

/*
 * 6.17 named the per-CPU system workqueue system_percpu_wq (commit
 * "workqueue: Add system_percpu_wq and system_dfl_wq"), and later kernels
 * warn when work is queued on system_wq; stable kernels have it too.
 */
#ifdef DS_HAVE_SYSTEM_PERCPU_WQ
#define ds_percpu_wq	system_percpu_wq
#else
#define ds_percpu_wq	system_wq
#endif

/*
 * 7.x calls every tracepoint's probes under SRCU-fast
 * (guard(srcu_fast_notrace) in __DECLARE_TRACE), preemptible on every
 * configuration; 6.x disabled preemption around them. The probes do so
 * themselves either way (ds_probe_begin()); the preemptible-probe test
 * expects the kernel's own preemptible calls where there are some.
 */
#ifdef DS_HAVE_TP_PREEMPTIBLE
#define DS_TP_PREEMPTIBLE	1
#else
#define DS_TP_PREEMPTIBLE	0
#endif

#endif /* _DROPSCOPE_COMPAT_H */
