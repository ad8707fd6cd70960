// SPDX-License-Identifier: GPL-2.0
/*
 * Where the lab's bpftrace oracle (tests/lab/tcplife.bt) reads the
 * kernel's structs, from the kernel's own headers (make oracle): bpftrace
 * 0.17 reads the BTF of some kernels (7.2 PREEMPT_RT) with members at
 * places they are not. Built to assembly only, as the kernel's
 * asm-offsets are; never a module.
 */
#include <linux/kbuild.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/inet_sock.h>
#include <net/sock.h>

void ds_offsets(void);

void ds_offsets(void)
{
	OFFSET(SKB_SK, sk_buff, sk);
	OFFSET(TCP_BYTES_ACKED, tcp_sock, bytes_acked);
	OFFSET(TCP_BYTES_RECEIVED, tcp_sock, bytes_received);
	OFFSET(TCP_TOTAL_RETRANS, tcp_sock, total_retrans);
	OFFSET(INET_SPORT, inet_sock, inet_sport);
	OFFSET(SK_DPORT, sock, __sk_common.skc_dport);
	OFFSET(SK_NUM, sock, __sk_common.skc_num);
}
