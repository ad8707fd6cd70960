/* SPDX-License-Identifier: GPL-2.0 */
/* kallsyms.c: kernel symbols. Included through ds.h. */
#ifndef DS_LIB_KALLSYMS_H
#define DS_LIB_KALLSYMS_H

struct ds_syms;
int ds_syms_load(FILE *f, struct ds_syms **out);
void ds_syms_free(struct ds_syms *s);
int ds_syms_resolve(const struct ds_syms *s, const char *spec,
		    uint64_t *start, uint64_t *end);
void ds_syms_name(const struct ds_syms *s, uint64_t addr, char *buf,
		  size_t len);

#endif /* DS_LIB_KALLSYMS_H */
