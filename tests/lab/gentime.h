/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a lab run's time goes: a traffic generator that includes this adds
 * the wall time it ran, in microseconds, to the file $DS_LAB_TIMES (when
 * set) as a line "traffic US". tests/lab/run.sh sums those lines per test.
 * Only the process that started writes: the processes it forks do not.
 */
#ifndef _GENTIME_H
#define _GENTIME_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static struct timespec gentime_t0;
static pid_t gentime_pid;

static long long gentime_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - gentime_t0.tv_sec) * 1000000LL +
	       (t.tv_nsec - gentime_t0.tv_nsec) / 1000;
}

static void gentime_end(void)
{
	const char *path = getenv("DS_LAB_TIMES");
	FILE *f;

	if (!path || getpid() != gentime_pid)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "traffic %lld\n", gentime_us());
	fclose(f);
}

__attribute__((constructor)) static void gentime_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &gentime_t0);
	gentime_pid = getpid();
	atexit(gentime_end);
}

#endif
