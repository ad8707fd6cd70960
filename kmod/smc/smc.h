/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMC, a source of events of its own (ds_smc_source): the interfaces
 * between its files.
 *
 *   smc.c  the smc.ko tracepoints, hooked through a tracepoint module
 *          notifier, and their per-CPU counters; lockless in the probes,
 *          under ds_lock otherwise. It uses the core's tcp source for two
 *          things: the sessions' SMC mode (ds_sess_smc()) and the owners
 *          of listeners (ds_tcp_watch_listen()); the core never calls SMC
 *          but through ds_smc_source (and the preemptible-probe test,
 *          through ds_ptest_smc(), in its own builds only).
 *   btf.c  the layout of smc.ko's private structs, from the kernel's BTF
 *   tp.c   the probes' prototypes against net/smc's tracepoint header,
 *          where the kernel tree has it (kmod/compat.mk)
 */
#ifndef _DROPSCOPE_SMC_H
#define _DROPSCOPE_SMC_H

#include <linux/types.h>

/*
 * The probes, in the tracepoints' types (opaque: net/smc's own). Found by
 * name; tp.c checks their prototypes against the tracepoints' header
 * where the kernel tree has it (DS_HAVE_SMC_TP_HEADER).
 */
struct smc_link;
struct smc_sock;
void ds_smc_fallback_probe(void *data, const struct smc_sock *smc,
			   int fallback_rsn);
void ds_smc_tx_probe(void *data, const struct smc_sock *smc, size_t len);
void ds_smc_rx_probe(void *data, const struct smc_sock *smc, size_t len);
void ds_smc_link_down_probe(void *data, const struct smc_link *lnk,
			    void *location);
void ds_smc_check_probes(void);

/* ---- btf.c: the layout of smc.ko's sockets, from BTF ------------------ */

/* IB_DEVICE_NAME_MAX: an RDMA device's name, its NUL included */
#define DS_SMC_DEV_NAME	64

/* Byte offsets into smc.ko's structs; all valid when known is set. */
struct ds_smc_layout {
	bool known;
	u32 conn_lnk;		/* smc_sock.conn.lnk: SMC-R's link, or NULL */
	u32 clcsock;		/* smc_sock.clcsock: the struct socket of TCP */
	u32 listen_smc;		/* smc_sock.listen_smc: a server's listener */
	u32 ibname;		/* smc_link.ibname: the RDMA device's name */
	u32 ibname_len;		/* its bytes, at most DS_SMC_DEV_NAME */
};

int ds_smc_btf_resolve(struct ds_smc_layout *l, const void *btf,
		       size_t btf_len, bool builtin);

#endif /* _DROPSCOPE_SMC_H */
