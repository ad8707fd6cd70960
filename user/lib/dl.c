// SPDX-License-Identifier: GPL-2.0
/*
 * The libraries that only some commands use, opened when one of those
 * first needs them: libpcap (capture filters), libmicrohttpd (export),
 * libdw (source lines) and readline (the shell). Linked, they and the two
 * dozen libraries they pull in are mapped and relocated before every
 * command: 8.0 M instructions before main(), against 0.3 M with libnl
 * and libc alone (valgrind --tool=callgrind dropscope -h), which every
 * command of a script pays.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "ds.h"

int ds_dl_open(const char *soname, const char *const *names, size_t n,
	       void *syms, char *why, size_t len)
{
	void *h, *p;
	size_t i;

	/* the first symbol is there: all of them are */
	memcpy(&p, syms, sizeof(p));
	if (p)
		return 0;
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, len, "%s", dlerror());
		return -1;
	}
	/* the last first: the first, which says all are there, at the end */
	for (i = n; i-- > 0;) {
		dlerror();
		p = dlsym(h, names[i]);
		if (!p) {
			snprintf(why, len, "%s: no %s", soname, names[i]);
			memset(syms, 0, n * sizeof(p));
			dlclose(h);
			return -1;
		}
		memcpy((char *)syms + i * sizeof(p), &p, sizeof(p));
	}
	/* open for as long as the CLI runs: its pointers are kept */
	return 0;
}
