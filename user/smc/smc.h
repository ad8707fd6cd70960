/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMC, the CLI's part of it (user/smc/): lib.c reads smc.ko's own
 * netlink family, SMC sock_diag and dropscope's SMC counters; cmd.c is
 * the show smc and watch smc commands. The library (user/lib/) names this
 * header's functions where SMC's figures join the others': alerts,
 * export.
 */
#ifndef DS_SMC_H
#define DS_SMC_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/smc.h>

/* lib.c: SMC, from smc.ko's SMC_GEN_NETLINK family and SMC sock_diag,
 * and dropscope's own SMC counters */
/*
 * Attributes of 6.12's smc.ko beyond the 6.1 uapi headers dropscope builds
 * against; their numbers follow the last one those headers have. The
 * byte counts are the kernel's variable-width "uint": 4 or 8 bytes.
 */
enum {
	DS_SMC_LGR_R_SNDBUF_ALLOC = SMC_NLA_LGR_R_BUF_TYPE + 1,
	DS_SMC_LGR_R_RMB_ALLOC,
	DS_SMC_LGR_R_MAX = DS_SMC_LGR_R_RMB_ALLOC,
};

enum {
	DS_SMC_LGR_D_EXT_GID = SMC_NLA_LGR_D_V2_COMMON + 1,
	DS_SMC_LGR_D_PEER_EXT_GID,
	DS_SMC_LGR_D_SNDBUF_ALLOC,
	DS_SMC_LGR_D_DMB_ALLOC,
	DS_SMC_LGR_D_MAX = DS_SMC_LGR_D_DMB_ALLOC,
};

enum {
	DS_SMC_STATS_T_RX_RMB_USAGE = SMC_NLA_STATS_T_TX_CNT + 1,
	DS_SMC_STATS_T_TX_RMB_USAGE,
};

/* The size histograms of a mode's statistics: buffers and requests */
enum { DS_SMC_TX_BUFS, DS_SMC_RX_BUFS, DS_SMC_TX_REQS, DS_SMC_RX_REQS,
       DS_SMC_NSIZES };
/* Their buckets: up to 8 KiB, 16, 32 ... 1024 KiB, then more */
#define DS_SMC_NBUCKETS	SMC_NLA_STATS_PLOAD_MAX

/* The kernel's statistics of one SMC mode (SMC_NLA_STATS_*_TECH). */
struct ds_smc_tech {
	uint64_t v[SMC_NLA_STATS_T_MAX + 1];	/* the u64 attributes */
	uint64_t rmb[2][SMC_NLA_STATS_RMB_MAX + 1];	/* tx, rx */
	/* [DS_SMC_TX_BUFS...][bucket]: bucket i counts up to 8 KiB << i */
	uint64_t sizes[DS_SMC_NSIZES][DS_SMC_NBUCKETS];
	uint64_t usage[2];	/* tx, rx: bytes of buffers in use (6.12) */
	bool has_usage;
};

struct ds_smc_fback {
	uint32_t code;
	bool server;
	uint64_t count;
	uint32_t pid;		/* owners only */
	char comm[16];
	uint64_t masked;	/* dropscope's: hidden by mask rules */
	bool own;		/* dropscope's: masked is known */
};

struct ds_smc_stats {
	struct ds_smc_tech tech[2];	/* SMC-R, SMC-D */
	uint64_t hs_err[2];		/* client, server */
	uint64_t fback[2];		/* client, server */
	struct ds_smc_fback *fb;
	size_t nfb, capfb;
	bool got;
};

/* An RDMA device SMC-R moved data on. */
struct ds_smc_dev {
	char name[64];
	uint64_t v[4];		/* tx bytes, tx copies, rx bytes, rx copies */
};

struct ds_smc_own {
	uint8_t hooked;
	uint8_t layout;
	struct ds_smc_dev devs[16];
	size_t ndevs;
	uint64_t v[DROPSCOPE_SMC_A_MAX + 1];
	struct ds_smc_stats fbs;	/* only fb, nfb, capfb */
	struct ds_smc_stats owners;	/* the same, with pid and comm */
};

struct ds_smc_sock {
	uint64_t inode;
	uint32_t uid;
	uint32_t reason;	/* fallback reason, when it fell back */
	uint32_t peer_reason;	/* the peer's, when it said one */
	uint32_t pid;
	uint16_t lport, rport;
	uint8_t state;
	uint8_t mode;
	uint8_t shutdown;	/* RCV_SHUTDOWN 1, SEND_SHUTDOWN 2 */
	bool has_reason;
	char laddr[48], raddr[48];
	char comm[16];
	/* SMC_DIAG_CONNINFO: an SMC connection's buffers */
	bool has_conn;
	uint32_t token, sndbuf, rmb, peer_rmb;
	/* SMC_DIAG_LGRINFO: an SMC-R connection's link */
	bool has_link;
	uint8_t role, link_id, ibport;
	char ibdev[64], gid[48], peer_gid[48];
	/* SMC_DIAG_DMBINFO: an SMC-D connection's DMB */
	bool has_dmb;
	uint32_t dmb_lgr;
	uint64_t dmb_gid, dmb_peer_gid, dmb_token, dmb_peer_token;
};

struct ds_smc_socks {
	struct ds_smc_sock *v;
	size_t n, cap;
};

/* smc.ko itself, as smcd info and the EID tables show it. */
struct ds_smc_sys {
	bool got;			/* SMC_GEN_SYS_INFO came */
	uint8_t version, release, ism_v2, smcr_v2;
	char host[40];
	bool has_seid;			/* only with an ISM v2 device */
	uint8_t seid_enabled;
	char seid[40];
	char ueids[SMC_MAX_UEID][40];
	size_t nueids;
	bool has_hs_limit;
	uint8_t hs_limit;		/* this namespace's */
};

/* A link of an SMC-R link group (SMC_GEN_LINK_SMCR). */
struct ds_smc_link {
	uint8_t id, ibport;
	uint32_t state, conns, ifindex, uid, peer_uid;
	char ibdev[64], gid[48], peer_gid[48];
};

/* A link group, SMC-R (SMC_GEN_LGR_SMCR) or SMC-D (SMC_GEN_LGR_SMCD). */
struct ds_smc_lgr {
	bool smcd;
	uint32_t id, conns;
	uint8_t role, type, vlan, buf_type;
	char pnetid[20];
	bool has_alloc;			/* 6.12: the pools' bytes */
	uint64_t sndbuf_alloc, rmb_alloc;	/* rmb: the DMBs for SMC-D */
	bool v2;			/* SMC_NLA_LGR_*_V2_COMMON */
	uint8_t version, release, os;
	char peer_host[40], eid[40];
	bool has_direct;
	uint8_t direct, max_conns, max_links;
	uint32_t chid;			/* SMC-D */
	uint64_t gid, peer_gid;		/* SMC-D */
	struct ds_smc_link links[3];	/* SMC_LINKS_PER_LGR_MAX */
	size_t nlinks;
	uint64_t links_dropped;		/* links past the three */
};

struct ds_smc_lgrs {
	struct ds_smc_lgr *v;
	size_t n, cap;
};

/* A port of an SMC device (SMC_NLA_DEV_PORT, _PORT2). */
struct ds_smc_port {
	bool present, pnet_user, active;
	uint32_t ifindex, links;
	char pnetid[20];
};

/* An RDMA device SMC-R may use, or an ISM device of SMC-D. */
struct ds_smc_device {
	bool smcd, crit, has_pci;
	uint32_t use_cnt, fid;
	uint16_t chid, vendor, device;
	char name[64], pci_id[20];
	struct ds_smc_port port[2];
};

struct ds_smc_devices {
	struct ds_smc_device *v;
	size_t n, cap;
};

/* Is the kernel's SMC support there? Asked before any request. */
bool ds_smc_loaded(void);
/* Says that smc.ko is not loaded; DS_EFAIL. */
int ds_smc_absent(void);
/* The kernel's SMC statistics and fallbacks (st->fb the caller frees); a
 * DS_ status, the reason said on standard error. */
int ds_smc_read(struct ds_smc_stats *st);
/* dropscope's own (SMC_GET); ds_smc_own_free() frees what it holds. */
int ds_smc_own_fetch(struct ds_nl *nl, struct ds_smc_own *o);
void ds_smc_own_free(struct ds_smc_own *o);
/* The link groups with their links, SMC-R then SMC-D; the devices. A DS_
 * status, the reason said on standard error; out->v the caller frees. */
int ds_smc_lgrs_read(struct ds_smc_lgrs *out);
int ds_smc_sys_read(struct ds_smc_sys *out);
int ds_smc_devices_read(struct ds_smc_devices *out);
/* What the link groups hold, summed. */
struct ds_smc_pools {
	size_t n;
	uint64_t conns, sndbuf, rmb;
	bool alloc;		/* some group told its pools (6.12) */
};
void ds_smc_pools_sum(struct ds_smc_pools *m, const struct ds_smc_lgrs *g);
/* The bytes of buffers in use, both modes and directions; false when the
 * kernel does not report them (before 6.12). */
bool ds_smc_in_use(const struct ds_smc_stats *st, uint64_t *bytes);
const char *ds_smc_lgr_role_name(uint8_t role);
const char *ds_smc_lgr_type_name(uint8_t type);
const char *ds_smc_link_state_name(uint32_t state);
/* The SMC sockets, then the process that holds each. */
int ds_smc_diag_dump(struct ds_smc_socks *out);
void ds_smc_owners(struct ds_smc_socks *s);
const char *ds_smc_state_name(unsigned int st);

/* SMC in dropscope's alerts: a fallback's nest, and the fallbacks of an
 * alert message printed by reason, or by owner. */
struct ds_smc_alert;
struct ds_alert;
struct ds_print;
struct nlattr;
int ds_smc_alert_parse(struct nlattr *at, struct ds_smc_alert *f);
void ds_smc_alerts_print(struct ds_print *p, const struct ds_alert *a,
			 bool owners);
/* The name of an SMC fallback or decline reason code (the kernel's
 * SMC_CLC_DECL_*, which it names none of). */
const char *ds_smc_reason_name(uint32_t code);

/* The readers of SMC's messages: dropscope's SMC_GET reply (a ds_msg_fn) */
int ds_smc_own_cb(struct nlattr **tb, struct nlattr *attrs, int len,
		  void *arg);	/* struct ds_smc_own */
/* smc.ko's replies (libnl's callbacks), into struct ds_smc_stats */
int ds_smc_stats_cb(struct nl_msg *msg, void *arg);
int ds_smc_lgr_cb(struct nl_msg *msg, void *arg);	/* struct ds_smc_lgrs */
int ds_smc_sys_cb(struct nl_msg *msg, void *arg);	/* struct ds_smc_sys */
int ds_smc_device_cb(struct nl_msg *msg, void *arg);	/* ds_smc_devices */
int ds_smc_fback_cb(struct nl_msg *msg, void *arg);
/* One SMC sock_diag message, appended to out */
struct nlmsghdr;
int ds_smc_diag_msg(struct nlmsghdr *h, struct ds_smc_socks *out);

#endif /* DS_SMC_H */
