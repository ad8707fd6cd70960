// SPDX-License-Identifier: GPL-2.0
/*
 * tbprof: a QEMU 7.2 TCG plugin that counts the guest's instructions per
 * translation block (TB), for scripts/profile.
 *
 * Each TB that QEMU translates gets a slot keyed by its start address and
 * its number of instructions, and an inline add of 1 to the slot's count
 * each time it is entered: no call out of the generated code. A TB that
 * is translated again (after a flush, or in another process at the same
 * address) lands in the same slot.
 *
 * The guest asks for windows through files in a directory of the lab's
 * share, given as dir=DIR; a thread of the plugin looks there every
 * millisecond:
 *
 *   DIR/reset.NAME  zero every count, then create DIR/reset.NAME.ack
 *   DIR/dump.NAME   write DIR/NAME.prof, a line per slot entered since the
 *                   last reset: start address (hex), instructions in the
 *                   TB, times entered; then create DIR/dump.NAME.ack
 *
 * A request is served once: its ack says it was, and the request file
 * stays. (Removing it raced with QEMU's 9p server, which looks the file
 * up by its path right after creating it for the guest: a request
 * removed in between failed the guest's create with ENOENT.) The guest
 * names each request once.
 *
 * Translation and the inline adds run on the one vCPU thread; the reset
 * races with its adds, which costs at most the few blocks the guest runs
 * while it waits for the ack.
 */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "qemu-plugin.h"

#define __maybe_unused __attribute__((unused))

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct tb_slot {
	uint64_t vaddr;
	uint64_t count;		/* the inline add's target */
	uint32_t insns;		/* 0: the slot is free */
};

/* 4M slots: 96 MiB of address space, of which only the used part is touched */
#define TB_BITS		22
#define TB_SLOTS	(1u << TB_BITS)

static struct tb_slot *tb_slots;
static unsigned int tb_used;
static char ctl_dir[PATH_MAX];
static pthread_t ctl_thread;
static bool ctl_stop;

static struct tb_slot *tb_slot(uint64_t vaddr, uint32_t insns)
{
	uint64_t h = (vaddr ^ ((uint64_t)insns << 56)) * 0x9e3779b97f4a7c15ull;
	unsigned int i = h >> (64 - TB_BITS);
	struct tb_slot *s;

	for (;; i = (i + 1) & (TB_SLOTS - 1)) {
		s = &tb_slots[i];
		if (!s->insns)
			break;
		if (s->vaddr == vaddr && s->insns == insns)
			return s;
	}
	if (++tb_used > TB_SLOTS / 10 * 9) {
		fprintf(stderr, "tbprof: more than %u translation blocks\n",
			tb_used - 1);
		abort();
	}
	s->vaddr = vaddr;
	/* the control thread reads vaddr once it sees insns */
	__atomic_store_n(&s->insns, insns, __ATOMIC_RELEASE);
	return s;
}

static void tb_trans(qemu_plugin_id_t id __maybe_unused,
		     struct qemu_plugin_tb *tb)
{
	struct tb_slot *s = tb_slot(qemu_plugin_tb_vaddr(tb),
				    qemu_plugin_tb_n_insns(tb));

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &s->count, 1);
}

static void tb_reset(void)
{
	unsigned int i;

	for (i = 0; i < TB_SLOTS; i++)
		if (__atomic_load_n(&tb_slots[i].insns, __ATOMIC_ACQUIRE))
			__atomic_store_n(&tb_slots[i].count, 0, __ATOMIC_RELAXED);
}

static int tb_dump(const char *path)
{
	char tmp[PATH_MAX];
	unsigned int i;
	uint32_t insns;
	uint64_t count;
	FILE *f;
	int err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -1;
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "# vaddr insns count\n");
	for (i = 0; i < TB_SLOTS; i++) {
		insns = __atomic_load_n(&tb_slots[i].insns, __ATOMIC_ACQUIRE);
		count = __atomic_load_n(&tb_slots[i].count, __ATOMIC_RELAXED);
		if (insns && count)
			fprintf(f, "%016" PRIx64 " %" PRIu32 " %" PRIu64 "\n",
				tb_slots[i].vaddr, insns, count);
	}
	err = ferror(f);
	if (fclose(f) || err || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* One request: a file reset.NAME or dump.NAME in ctl_dir */
static void ctl_request(const char *req)
{
	char path[PATH_MAX], failed[PATH_MAX], out[PATH_MAX];
	size_t len = strlen(req);
	FILE *ack;
	int err;

	if ((len > 4 && !strcmp(req + len - 4, ".ack")) ||
	    (len > 7 && !strcmp(req + len - 7, ".failed")))
		return;
	if (snprintf(path, sizeof(path), "%s/%s.ack", ctl_dir, req) >=
	    (int)sizeof(path) ||
	    snprintf(failed, sizeof(failed), "%s/%s.failed", ctl_dir, req) >=
	    (int)sizeof(failed))
		return;
	/* served already */
	if (!access(path, F_OK) || !access(failed, F_OK))
		return;
	if (!strncmp(req, "reset.", 6) && req[6]) {
		tb_reset();
		err = 0;
	} else if (!strncmp(req, "dump.", 5) && req[5]) {
		err = snprintf(out, sizeof(out), "%s/%s.prof", ctl_dir,
			       req + 5) >= (int)sizeof(out) || tb_dump(out);
	} else {
		return;
	}
	if (err) {
		/* no ack: the guest gives up waiting, and says so */
		fprintf(stderr, "tbprof: %s/%s failed\n", ctl_dir, req);
		ack = fopen(failed, "w");
		if (ack)
			fclose(ack);
		return;
	}
	ack = fopen(path, "w");
	if (ack)
		fclose(ack);
}

static void *ctl_loop(void *arg __maybe_unused)
{
	const struct timespec ms = { .tv_nsec = 1000000 };
	struct dirent *e;
	DIR *d;

	while (!__atomic_load_n(&ctl_stop, __ATOMIC_RELAXED)) {
		d = opendir(ctl_dir);
		if (d) {
			while ((e = readdir(d)))
				ctl_request(e->d_name);
			closedir(d);
		}
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static void plugin_exit(qemu_plugin_id_t id __maybe_unused,
			void *arg __maybe_unused)
{
	__atomic_store_n(&ctl_stop, true, __ATOMIC_RELAXED);
	pthread_join(ctl_thread, NULL);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "dir=", 4) ||
		    snprintf(ctl_dir, sizeof(ctl_dir), "%s", argv[i] + 4) >=
		    (int)sizeof(ctl_dir)) {
			fprintf(stderr, "tbprof: unknown argument %s (dir=DIR)\n",
				argv[i]);
			return -1;
		}
	}
	if (!ctl_dir[0]) {
		fprintf(stderr, "tbprof: no dir=DIR\n");
		return -1;
	}
	if (!info->system_emulation || info->system.smp_vcpus != 1) {
		fprintf(stderr, "tbprof: system emulation with one vCPU only\n");
		return -1;
	}
	tb_slots = mmap(NULL, TB_SLOTS * sizeof(*tb_slots),
			PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (tb_slots == MAP_FAILED)
		return -1;
	if (pthread_create(&ctl_thread, NULL, ctl_loop, NULL))
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	fprintf(stderr, "tbprof: %s, control directory %s\n",
		info->target_name, ctl_dir);
	return 0;
}
