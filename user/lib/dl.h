/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dl.c: the libraries opened when a command first needs them. Included
 * through ds.h.
 */
#ifndef DS_LIB_DL_H
#define DS_LIB_DL_H

/*
 * dl.c: a library opened when first needed. Its symbols are listed once,
 * X(name) for each, in a macro LIST; then
 *   static struct { LIST(DS_DL_PTR) } lib;
 *   static const char *const lib_names[] = { LIST(DS_DL_NAME) };
 * and ds_dl_open(SONAME, lib_names, DS_N(lib_names), &lib, ...) fills lib
 * with the symbols' addresses (once: 0 at once afterwards), typed as the
 * library's header declares them; -1 with why if the library or a symbol
 * is missing. The SONAMEs are the build's (Makefile: DS_SO_*).
 */
#define DS_DL_PTR(sym) __typeof__(sym) *sym;
#define DS_DL_NAME(sym) #sym,
int ds_dl_open(const char *soname, const char *const *names, size_t n,
	       void *syms, char *why, size_t len);

#endif /* DS_LIB_DL_H */
