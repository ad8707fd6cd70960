// SPDX-License-Identifier: GPL-2.0
/*
 * Source lines of kernel addresses, from the running kernel's vmlinux with
 * DWARF, read with elfutils' libdwfl: the file DROPSCOPE_VMLINUX names,
 * else Debian's -dbg package's, else a build tree's. A file is taken only
 * if its GNU build id is the running kernel's (/sys/kernel/notes). The
 * addresses of stacks and sites are return addresses: the line given is
 * that of the call, the byte before (as the kernel's decode_stacktrace.sh
 * and perf do). KASLR moves the kernel: the offset is _stext's address in
 * /proc/kallsyms less its address in the file. Addresses in modules have
 * no line here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "ds.h"

struct ds_lines {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	uint64_t start, end;	/* the kernel's text, as it runs */
	int64_t bias;		/* running address less the file's */
};

/* libdw: opened when lines are asked for */
#define DS_DW_SYMS(X) X(dwfl_begin) X(dwfl_end) X(dwfl_errmsg) \
	X(dwfl_report_offline) X(dwfl_report_end) X(dwfl_module_build_id) \
	X(dwfl_module_getsymtab) X(dwfl_module_getsym) \
	X(dwfl_module_getdwarf) X(dwfl_module_getsrc) X(dwfl_lineinfo) \
	X(dwfl_standard_find_debuginfo) X(dwfl_offline_section_address)
static struct { DS_DW_SYMS(DS_DL_PTR) } ds_dw;
static const char *const ds_dw_names[] = { DS_DW_SYMS(DS_DL_NAME) };
static Dwfl_Callbacks ds_dwfl_cb;

/* The file's GNU build id as hex, "" if none. */
static void ds_file_build_id(Dwfl_Module *mod, char *out, size_t len)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n, i;

	out[0] = '\0';
	n = ds_dw.dwfl_module_build_id(mod, &bits, &vaddr);
	for (i = 0; i < n && (size_t)(2 * i + 2) < len; i++)
		snprintf(out + 2 * i, 3, "%02x", bits[i]);
}

/* _stext's address in the file, or 0. */
static uint64_t ds_file_stext(Dwfl_Module *mod)
{
	int i, n = ds_dw.dwfl_module_getsymtab(mod);
	const char *name;
	GElf_Sym sym;

	for (i = 1; i < n; i++) {
		name = ds_dw.dwfl_module_getsym(mod, i, &sym, NULL);
		if (name && !strcmp(name, "_stext"))
			return sym.st_value;
	}
	return 0;
}

/* Try one file: the running kernel's, with DWARF? */
static struct ds_lines *ds_lines_try(const char *path,
				     const struct ds_syms *syms,
				     const char *want_id, char *why, size_t len)
{
	struct ds_lines *l = calloc(1, sizeof(*l));
	uint64_t run_stext, run_end, file_stext;
	char id[96];
	Dwarf_Addr bias;

	if (!l)
		return NULL;
	l->dwfl = ds_dw.dwfl_begin(&ds_dwfl_cb);
	if (!l->dwfl)
		goto fail;
	l->mod = ds_dw.dwfl_report_offline(l->dwfl, "kernel", path, -1);
	ds_dw.dwfl_report_end(l->dwfl, NULL, NULL);
	if (!l->mod) {
		snprintf(why, len, "%.400s: %s", path, ds_dw.dwfl_errmsg(-1));
		goto fail;
	}
	ds_file_build_id(l->mod, id, sizeof(id));
	if (want_id[0] && strcmp(id, want_id)) {
		snprintf(why, len, "%.400s: another build (build id %s)", path,
			 id[0] ? id : "none");
		goto fail;
	}
	if (!ds_dw.dwfl_module_getdwarf(l->mod, &bias)) {
		snprintf(why, len, "%.400s: no DWARF", path);
		goto fail;
	}
	file_stext = ds_file_stext(l->mod);
	if (!file_stext || ds_syms_resolve(syms, "_stext", &run_stext, &run_end) ||
	    ds_syms_resolve(syms, "_etext", &l->end, &run_end)) {
		snprintf(why, len, "%.400s: no _stext (or no /proc/kallsyms)", path);
		goto fail;
	}
	l->start = run_stext;
	l->bias = (int64_t)(run_stext - file_stext);
	return l;
fail:
	ds_lines_close(l);
	return NULL;
}

/* Append sep and s to buf (of len bytes), as much as fits. */
static void ds_append(char *buf, size_t len, const char *sep, const char *s)
{
	size_t at = strlen(buf);

	if (at && at + 1 < len) {
		strncat(buf, sep, len - at - 1);
		at = strlen(buf);
	}
	if (at + 1 < len)
		strncat(buf, s, len - at - 1);
}

struct ds_lines *ds_lines_open(const struct ds_syms *syms, char *why,
			       size_t len)
{
	char paths[3][512], id[96], tried[1024] = "", one[600];
	const char *env = getenv("DROPSCOPE_VMLINUX");
	struct ds_lines *l;
	struct utsname u;
	size_t i, n = 0;

	uname(&u);
	ds_kernel_build_id(id, sizeof(id));
	if (env && *env) {
		snprintf(paths[n++], sizeof(paths[0]), "%s", env);
	} else {
		snprintf(paths[n++], sizeof(paths[0]),
			 "/usr/lib/debug/boot/vmlinux-%s", u.release);
		snprintf(paths[n++], sizeof(paths[0]),
			 "/usr/lib/debug/lib/modules/%s/vmlinux", u.release);
		snprintf(paths[n++], sizeof(paths[0]),
			 "/lib/modules/%s/build/vmlinux", u.release);
	}
	if (ds_dl_open(DS_SO_DW, ds_dw_names, DS_N(ds_dw_names), &ds_dw, one,
		       sizeof(one))) {
		snprintf(why, len, "frames without lines: %s", one);
		return NULL;
	}
	ds_dwfl_cb.find_debuginfo = ds_dw.dwfl_standard_find_debuginfo;
	ds_dwfl_cb.section_address = ds_dw.dwfl_offline_section_address;
	for (i = 0; i < n; i++) {
		if (access(paths[i], R_OK)) {
			ds_append(tried, sizeof(tried), ", ", paths[i]);
			continue;
		}
		l = ds_lines_try(paths[i], syms, id, one, sizeof(one));
		if (l)
			return l;
		ds_append(tried, sizeof(tried), ", ", one);
	}
	snprintf(why, len, "no vmlinux with DWARF of this kernel: frames without lines (tried %.*s; DROPSCOPE_VMLINUX names one)",
		 (int)(len > 200 ? len - 200 : 0), tried);
	return NULL;
}

/* The line of the call that returns to addr: "file:line", or false. */
bool ds_lines_get(struct ds_lines *l, uint64_t addr, char *buf, size_t len)
{
	Dwfl_Line *line;
	const char *file;
	int lineno;

	if (!l || addr < l->start || addr > l->end)
		return false;
	line = ds_dw.dwfl_module_getsrc(l->mod, (Dwarf_Addr)(addr - 1 - l->bias));
	if (!line)
		return false;
	file = ds_dw.dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!file)
		return false;
	snprintf(buf, len, "%s:%d", file, lineno);
	return true;
}

void ds_lines_close(struct ds_lines *l)
{
	if (!l)
		return;
	if (l->dwfl)
		ds_dw.dwfl_end(l->dwfl);
	free(l);
}
