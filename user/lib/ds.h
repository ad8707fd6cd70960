/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CLI's library: the transport and the model of the dropscope family
 * (nl.c, model.c, rule.c), smc.ko's families (user/smc/), names (names.c),
 * kernel symbols (kallsyms.c), the loop of the commands that run on
 * (loop.c), arguments (util.c), what several commands print (show.c,
 * through print.c), Prometheus series (metrics.c), pcapng (pcapng.c), the
 * evidence of a run (evidence.c) and
 * the libraries opened when first needed (dl.c).
 * It calls nothing above it. Each object has a header of its own, named
 * after its .c and included here.
 */
#ifndef DS_LIB_H
#define DS_LIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/dropscope.h>
#include <linux/netlink.h>
#include <linux/smc.h>

#include "print.h"

#define DS_N(a) (sizeof(a) / sizeof((a)[0]))
#define DS_NCOLS(c) ((int)DS_N(c))

/* Exit statuses, also documented in the man page. */
enum ds_status {
	DS_OK = 0,
	DS_EFAIL = 1,		/* the kernel refused or the command failed */
	DS_EUSAGE = 2,		/* bad command line */
	DS_ENOMOD = 3,		/* dropscope.ko is not loaded */
	DS_EPERM = 4,		/* not permitted (CAP_NET_ADMIN needed) */
	DS_ECONDITION = 5,	/* run: a condition failed */
};

/* The library's objects, one header each, in the order they build on. */
#include "dl.h"
#include "nl.h"
#include "kallsyms.h"
#include "model.h"
#include "ctx.h"
#include "util.h"
#include "rule.h"
#include "names.h"
#include "show.h"
#include "lines.h"
#include "stacks.h"
#include "smc/smc.h"
#include "capture.h"
#include "evidence.h"
#include "pcapng.h"
#include "loop.h"
#include "metrics.h"
#include "record.h"

#endif /* DS_LIB_H */
