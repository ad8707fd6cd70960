/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traffic generators' shared helpers: fail loudly, write n bytes,
 * read n bytes.
 */
#ifndef _GENIO_H
#define _GENIO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static inline void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Write n bytes of 'x'; dies on an error. */
static inline void put(int fd, size_t n)
{
	char buf[4096];
	ssize_t w;

	memset(buf, 'x', sizeof(buf));
	while (n) {
		w = write(fd, buf, n < sizeof(buf) ? n : sizeof(buf));
		if (w <= 0)
			die("write");
		n -= (size_t)w;
	}
}

/* Read n bytes (n: -1 for until the end); returns what was read. */
static inline size_t get(int fd, ssize_t n)
{
	char buf[4096];
	size_t got = 0;
	ssize_t r;

	while (n < 0 || got < (size_t)n) {
		size_t want = sizeof(buf);

		if (n >= 0 && (size_t)n - got < want)
			want = (size_t)n - got;
		r = read(fd, buf, want);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

#endif /* _GENIO_H */
