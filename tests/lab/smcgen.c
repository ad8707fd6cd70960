// SPDX-License-Identifier: GPL-2.0
/*
 * smcgen: SMC connections on 127.0.0.1 for the lab's SMC tests. Each
 * client is an AF_SMC socket; each one sends BYTES and reads them back
 * from the server, which echoes them, then closes.
 *
 *   smcgen tcp COUNT PORT BYTES
 *       the server is a plain TCP socket: each client falls back to TCP
 *       (0x03010000, the peer did not indicate SMC)
 *   smcgen smc COUNT PORT BYTES
 *       the server is an AF_SMC socket too: without an SMC device both
 *       fall back (0x03030000 at the client, 0x05000000 at the server);
 *       with one (SMC-R over a soft-RoCE device) they run SMC
 *   smcgen hold COUNT PORT [tcp|smc]
 *       COUNT clients of a plain TCP server (or of an AF_SMC one) held
 *       open; prints "ready" once all are connected, then waits to be
 *       killed
 *   smcgen send COUNT PORT
 *       one AF_SMC connection to an AF_SMC server that reads all; COUNT
 *       writes of 4 KiB, timed from the first to the server's last read;
 *       prints "sends COUNT ns NS" (for make bench: under QEMU -icount
 *       the guest's nanoseconds are instructions)
 *
 * Prints "connections N bytes B" when done (B: sent by the clients).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "genio.h"
#include "gentime.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define SMCPROTO_SMC 0

static struct sockaddr_in lo(int port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	return a;
}

static int listener(int family, int port)
{
	struct sockaddr_in a = lo(port);
	int fd, one = 1;

	fd = socket(family, SOCK_STREAM, family == AF_SMC ? SMCPROTO_SMC : 0);
	if (fd < 0)
		die("socket (listener)");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1024))
		die("bind/listen");
	return fd;
}

static int client(int port)
{
	struct sockaddr_in a = lo(port);
	int fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);

	if (fd < 0)
		die("socket (AF_SMC)");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	return fd;
}

/* Read exactly n bytes, or die. */
static void get_all(int fd, size_t n)
{
	if (get(fd, (ssize_t)n) != n)
		die("read");
}

/* The server: accept each client, echo its BYTES, wait for its close. */
static void serve(int lfd, long count, size_t bytes)
{
	char buf[4096];
	long i;
	int fd;

	for (i = 0; i < count; i++) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		get_all(fd, bytes);
		put(fd, bytes);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* send: COUNT writes of 4 KiB to a server that reads them all. */
static int sends(long count, int port)
{
	unsigned long long t0;
	char buf[4096];
	int lfd, fd, status;
	pid_t srv;
	long i;

	lfd = listener(AF_SMC, port);
	srv = fork();
	if (srv < 0)
		die("fork");
	if (!srv) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	close(lfd);
	fd = client(port);
	t0 = now_ns();
	for (i = 0; i < count; i++)
		put(fd, sizeof(buf));
	close(fd);
	if (waitpid(srv, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("server");
	printf("sends %ld ns %llu\n", count, now_ns() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	long count, i;
	size_t bytes = 0;
	int port, lfd, fd, status;
	pid_t srv;
	bool hold, smc;

	if (argc < 4)
		goto usage;
	count = atol(argv[2]);
	port = atoi(argv[3]);
	hold = !strcmp(argv[1], "hold");
	if (!strcmp(argv[1], "send")) {
		if (argc != 4 || count <= 0 || port <= 0)
			goto usage;
		return sends(count, port);
	}
	if (hold) {
		if (argc > 5 || (argc == 5 && strcmp(argv[4], "tcp") &&
				 strcmp(argv[4], "smc")))
			goto usage;
		smc = argc == 5 && !strcmp(argv[4], "smc");
	} else {
		if (argc != 5)
			goto usage;
		bytes = strtoul(argv[4], NULL, 10);
		smc = !strcmp(argv[1], "smc");
	}
	if (count <= 0 || port <= 0 ||
	    (!hold && strcmp(argv[1], "tcp") && strcmp(argv[1], "smc")))
		goto usage;
	lfd = listener(smc ? AF_SMC : AF_INET, port);
	if (hold) {
		int *fds = calloc(count, sizeof(*fds));

		if (!fds)
			die("calloc");
		for (i = 0; i < count; i++) {
			fds[i] = client(port);
			/* the server's end, accepted: an SMC socket too */
			if (accept(lfd, NULL, NULL) < 0)
				die("accept");
		}
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	srv = fork();
	if (srv < 0)
		die("fork");
	if (!srv) {
		serve(lfd, count, bytes);
		_exit(0);
	}
	close(lfd);
	for (i = 0; i < count; i++) {
		fd = client(port);
		put(fd, bytes);
		shutdown(fd, SHUT_WR);
		get_all(fd, bytes);
		close(fd);
	}
	if (waitpid(srv, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("server");
	printf("connections %ld bytes %zu\n", count, count * bytes);
	return 0;
usage:
	fprintf(stderr, "usage: smcgen tcp|smc COUNT PORT BYTES | hold COUNT PORT [tcp|smc] | send COUNT PORT\n");
	return 2;
}
