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
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define SMCPROTO_SMC 0

static void die(const char *what)
{
	perror(what);
	exit(1);
}

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

static void put(int fd, size_t n)
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

static void get(int fd, size_t n)
{
	char buf[4096];
	ssize_t r;

	while (n) {
		r = read(fd, buf, n < sizeof(buf) ? n : sizeof(buf));
		if (r <= 0)
			die("read");
		n -= (size_t)r;
	}
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
		get(fd, bytes);
		put(fd, bytes);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
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
		get(fd, bytes);
		close(fd);
	}
	if (waitpid(srv, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("server");
	printf("connections %ld bytes %zu\n", count, count * bytes);
	return 0;
usage:
	fprintf(stderr, "usage: smcgen tcp|smc COUNT PORT BYTES | hold COUNT PORT [tcp|smc]\n");
	return 2;
}
