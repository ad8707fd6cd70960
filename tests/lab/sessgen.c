// SPDX-License-Identifier: GPL-2.0
/*
 * sessgen: the drivers of the session rows of make bench. Each says how
 * long it took in guest nanoseconds: under QEMU -icount shift=0 that is
 * the number of instructions executed.
 *
 *   sessgen sess COUNT
 *       COUNT short TCP sessions on 127.0.0.1 (a listener on a port of
 *       its own), one after the other, both ends in this process:
 *       connect, 4 KiB each way, the client closes, then the server.
 *       Prints "sessions N ns T".
 *   sessgen tcpdrop COUNT
 *       one session on 127.0.0.1, then COUNT bare ACKs sent to its
 *       server end from a raw socket, a gigabyte of sequence space behind
 *       what it has received: TCP drops each, with the socket, as an old
 *       sequence (the answer it owes is rate-limited by
 *       net.ipv4.tcp_invalid_ratelimit). Prints "sent N ns T".
 *   sessgen time CMD [ARGS...]
 *       run CMD with its output to /dev/null, and print "ns T user U
 *       sys S": the CPU time it took, in all (exec and exit included),
 *       then in user space and in the kernel (split as the kernel's
 *       accounting samples it: the whole is exact, the parts are not). Not the
 *       wall time: while a command waits for its binary and libraries to
 *       be read (from the lab's 9p root), the vCPU idles and the guest
 *       clock runs on with the host's; CPU time counts only what ran.
 *       Fails if CMD fails.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "gentime.h"

#define DS_CHUNK 4096

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	return a;
}

/* A listener on 127.0.0.1 on a port of its own; *port says which. */
static int listener(int *port)
{
	struct sockaddr_in a = loopback(0);
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("sessgen: socket");
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		die("sessgen: bind/listen");
	*port = ntohs(a.sin_port);
	return fd;
}

static int connector(int port)
{
	struct sockaddr_in a = loopback(port);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("sessgen: socket");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die("sessgen: connect");
	return fd;
}

static void put(int fd, const char *buf, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, buf, n);
		if (w <= 0)
			die("sessgen: write");
		buf += w;
		n -= (size_t)w;
	}
}

static void get(int fd, char *buf, size_t n)
{
	ssize_t r;

	while (n) {
		r = read(fd, buf, n);
		if (r <= 0)
			die("sessgen: read");
		buf += r;
		n -= (size_t)r;
	}
}

static int sess(unsigned long count)
{
	static char out[DS_CHUNK], in[DS_CHUNK];
	int port, lfd = listener(&port), c, s;
	unsigned long long t0;
	unsigned long i;

	memset(out, 'x', sizeof(out));
	t0 = now_ns();
	for (i = 0; i < count; i++) {
		c = connector(port);
		s = accept(lfd, NULL, NULL);
		if (s < 0)
			die("sessgen: accept");
		put(c, out, sizeof(out));
		get(s, in, sizeof(in));
		put(s, out, sizeof(out));
		get(c, in, sizeof(in));
		close(c);
		close(s);
	}
	printf("sessions %lu ns %llu\n", i, now_ns() - t0);
	return 0;
}

static uint16_t csum(const void *p, size_t len, uint32_t sum)
{
	const uint16_t *w = p;

	for (; len > 1; len -= 2)
		sum += *w++;
	if (len)
		sum += *(const uint8_t *)w;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The next sequence number fd sends: TCP_REPAIR lets it be read. */
static uint32_t snd_nxt(int fd)
{
	int on = 1, off = 0, q = TCP_SEND_QUEUE;
	socklen_t len = sizeof(uint32_t);
	uint32_t seq;

	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)) ||
	    getsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, &seq, &len) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &off, sizeof(off)))
		die("sessgen: TCP_REPAIR");
	return seq;
}

static int tcpdrop(unsigned long count)
{
	struct {
		struct iphdr ip;
		struct tcphdr tcp;
	} pkt;
	struct {
		uint32_t saddr, daddr;
		uint8_t zero, proto;
		uint16_t len;
		struct tcphdr tcp;
	} ph;
	struct sockaddr_in to, me;
	socklen_t mlen = sizeof(me);
	int port, lfd = listener(&port), c, s, raw;
	unsigned long long t0;
	unsigned long i;
	char byte = 'x';

	to = loopback(port);
	c = connector(port);
	s = accept(lfd, NULL, NULL);
	if (s < 0)
		die("sessgen: accept");
	put(c, &byte, 1);
	get(s, &byte, 1);
	if (getsockname(c, (struct sockaddr *)&me, &mlen))
		die("sessgen: getsockname");
	raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (raw < 0)
		die("sessgen: raw socket");

	memset(&pkt, 0, sizeof(pkt));
	pkt.ip.version = 4;
	pkt.ip.ihl = 5;
	pkt.ip.ttl = 64;
	pkt.ip.protocol = IPPROTO_TCP;
	pkt.ip.tot_len = htons(sizeof(pkt));
	pkt.ip.saddr = htonl(INADDR_LOOPBACK);
	pkt.ip.daddr = htonl(INADDR_LOOPBACK);
	pkt.tcp.source = me.sin_port;
	pkt.tcp.dest = htons(port);
	pkt.tcp.seq = htonl(snd_nxt(c) - 0x40000000U);
	pkt.tcp.ack_seq = htonl(snd_nxt(s));
	pkt.tcp.doff = 5;
	pkt.tcp.ack = 1;
	pkt.tcp.window = htons(1024);
	ph.saddr = pkt.ip.saddr;
	ph.daddr = pkt.ip.daddr;
	ph.zero = 0;
	ph.proto = IPPROTO_TCP;
	ph.len = htons(sizeof(pkt.tcp));
	ph.tcp = pkt.tcp;
	pkt.tcp.check = csum(&ph, sizeof(ph), 0);

	t0 = now_ns();
	for (i = 0; i < count; i++)
		if (sendto(raw, &pkt, sizeof(pkt), 0, (struct sockaddr *)&to,
			   sizeof(to)) != sizeof(pkt))
			die("sessgen: sendto");
	printf("sent %lu ns %llu\n", i, now_ns() - t0);
	return 0;
}

static unsigned long long tv_ns(struct timeval tv)
{
	return (unsigned long long)tv.tv_sec * 1000000000ULL +
	       (unsigned long long)tv.tv_usec * 1000ULL;
}

static int timed(char **argv)
{
	unsigned long long user, sys;
	struct rusage ru;
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		die("sessgen: fork");
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			die("sessgen: /dev/null");
		execvp(argv[0], argv);
		die("sessgen: exec");
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		die("sessgen: wait4");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "sessgen: %s failed\n", argv[0]);
		return 1;
	}
	user = tv_ns(ru.ru_utime);
	sys = tv_ns(ru.ru_stime);
	printf("ns %llu user %llu sys %llu\n", user + sys, user, sys);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "sess"))
		return sess(strtoul(argv[2], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "tcpdrop"))
		return tcpdrop(strtoul(argv[2], NULL, 10));
	if (argc >= 3 && !strcmp(argv[1], "time"))
		return timed(argv + 2);
	fprintf(stderr, "usage: sessgen sess COUNT | tcpdrop COUNT | time CMD [ARGS...]\n");
	return 2;
}
