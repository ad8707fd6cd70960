/* SPDX-License-Identifier: GPL-2.0 */
/* evidence.c: what run --evidence keeps and writes. Included through ds.h. */
#ifndef DS_LIB_EVIDENCE_H
#define DS_LIB_EVIDENCE_H

struct ds_evidence;

/*
 * Keep the first keep packets (snaplen bytes each) of each drop key of
 * run and of no run, on a socket of its own, from now on. DIR is made
 * now: it must not exist, or be an empty directory. Errors are printed.
 */
int ds_evidence_start(const char *dir, uint32_t run, uint32_t keep,
		      uint32_t snaplen, struct ds_evidence **evp);
/*
 * The socket to poll while the command runs, and what came on it: false
 * when it is to be polled no more (a message could not be read).
 */
int ds_evidence_fd(const struct ds_evidence *ev);
bool ds_evidence_read(struct ds_evidence *ev);
/* The command ended: what the module still holds, then the capture ends. */
void ds_evidence_stop(struct ds_evidence *ev);
/*
 * The process of each kept packet's socket, where one TCP session of the
 * run's dumps (live and closed, v[n]) has its addresses and ports, or all
 * that have are of one process: the owner in the files.
 */
void ds_evidence_owners(struct ds_evidence *ev, const struct ds_session *v,
			size_t n);
/*
 * Write the files of the keys want() names (it gives the key's site, or
 * NULL for a key not to write): a pcapng each, stacks.txt, index.json.
 * Errors are printed.
 */
typedef const struct ds_site *(*ds_evidence_want)(void *arg, uint64_t loc,
						  uint32_t reason);
int ds_evidence_write(struct ds_evidence *ev, struct ds_ctx *ctx,
		      ds_evidence_want want, void *arg);
/* The files written, in the report: text and JSON, or KTAP diagnostics. */
void ds_evidence_print(const struct ds_evidence *ev, struct ds_print *p);
void ds_evidence_ktap(const struct ds_evidence *ev, FILE *f);
void ds_evidence_free(struct ds_evidence *ev);

#endif /* DS_LIB_EVIDENCE_H */
