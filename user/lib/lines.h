/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lines.c: source lines, from the running kernel's vmlinux with DWARF.
 * Included through ds.h.
 */
#ifndef DS_LIB_LINES_H
#define DS_LIB_LINES_H

struct ds_lines;
/* NULL, and why says why (once, to the user), when there is none. */
struct ds_lines *ds_lines_open(const struct ds_syms *syms, char *why,
			       size_t len);
/* The line of the call that returns to addr, "file:line"; false: none. */
bool ds_lines_get(struct ds_lines *l, uint64_t addr, char *buf, size_t len);
void ds_lines_close(struct ds_lines *l);
/*
 * The context's lines, opened on first use; NULL when the kernel has no
 * DWARF here, which is said once on standard error (ctx.c).
 */
struct ds_lines *ds_ctx_lines(struct ds_ctx *ctx);

#endif /* DS_LIB_LINES_H */
