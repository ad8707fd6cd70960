// SPDX-License-Identifier: GPL-2.0
/*
 * dropgen: make the kernel drop packets on loopback, a known number of
 * times, and say how long it took (in guest nanoseconds: under QEMU
 * -icount shift=0 that is the number of instructions executed).
 *
 *   dropgen [-a ADDR] [-c CPU] [-P PROCS] [-d MS] [-r RATE] udp|tcp|netlink COUNT PORT
 *
 * udp: COUNT datagrams to ADDR:PORT (default 127.0.0.1, IPv4 or IPv6)
 *      from an unconnected socket; with
 *      PORT closed each is dropped with NO_SOCKET.
 * tcp: COUNT connects to 127.0.0.1:PORT; with PORT closed each SYN is
 *      dropped with NO_SOCKET and refused.
 * netlink: COUNT messages to netlink port PORT of NETLINK_USERSOCK, which
 *      no socket has: the kernel frees each one in the sender's own
 *      sendmsg (netlink_unicast), in process context, and refuses it.
 * -c CPU: pin to that CPU.  -P PROCS: that many processes, process i on
 * CPU i, each sending COUNT.  -d MS: keep sending for MS milliseconds
 * instead (COUNT is then a cap); prints what was sent.  -r RATE: at most
 * RATE drops a second (each process), sleeping in between.
 * Prints "sent N ns T" on standard output.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "gentime.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("dropgen: sched_setaffinity");
		return -1;
	}
	return 0;
}

static struct sockaddr_storage to;
static socklen_t tolen;

enum gen { GEN_UDP, GEN_TCP, GEN_NETLINK };

static int target(enum gen kind, const char *addr, int port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&to;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&to;
	struct sockaddr_nl *nl = (struct sockaddr_nl *)&to;

	if (kind == GEN_NETLINK) {
		nl->nl_family = AF_NETLINK;
		nl->nl_pid = (unsigned int)port;
		tolen = sizeof(*nl);
		return 0;
	}

	if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		tolen = sizeof(*in);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		tolen = sizeof(*in6);
		return 0;
	}
	fprintf(stderr, "dropgen: bad address %s\n", addr);
	return -1;
}

/* Sleep until the i-th drop at rate a second is due. */
static void pace(unsigned long long t0, unsigned long i, unsigned long rate)
{
	unsigned long long due = t0 + i * 1000000000ULL / rate, now = now_ns();
	struct timespec ts;

	if (now >= due)
		return;
	ts.tv_sec = (time_t)((due - now) / 1000000000ULL);
	ts.tv_nsec = (long)((due - now) % 1000000000ULL);
	nanosleep(&ts, NULL);
}

/* One message to a netlink port nobody has: refused, the kernel freed it. */
static int send_netlink(int fd)
{
	struct nlmsghdr h = { .nlmsg_len = sizeof(h), .nlmsg_type = NLMSG_MIN_TYPE };

	if (sendto(fd, &h, sizeof(h), 0, (struct sockaddr *)&to, tolen) < 0 &&
	    errno == ECONNREFUSED)
		return 0;
	fprintf(stderr, "dropgen: netlink port not refused: %s\n",
		strerror(errno));
	return -1;
}

static int run(enum gen kind, unsigned long count, unsigned long ms,
	       unsigned long rate)
{
	unsigned long long t0 = now_ns(), stop = t0 + ms * 1000000ULL;
	int tcp = kind == GEN_TCP, fd = -1;
	unsigned long i;
	char byte = 'x';

	if (kind == GEN_NETLINK) {
		fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_USERSOCK);
		if (fd < 0) {
			perror("dropgen: socket");
			return 1;
		}
	} else if (!tcp) {
		fd = socket(to.ss_family, SOCK_DGRAM, 0);
		if (fd < 0) {
			perror("dropgen: socket");
			return 1;
		}
	}
	for (i = 0; i < count; i++) {
		if (ms && now_ns() >= stop)
			break;
		if (rate)
			pace(t0, i, rate);
		if (tcp) {
			fd = socket(to.ss_family, SOCK_STREAM, 0);
			if (fd < 0) {
				perror("dropgen: socket");
				return 1;
			}
			if (!connect(fd, (struct sockaddr *)&to, tolen) ||
			    errno != ECONNREFUSED) {
				fprintf(stderr, "dropgen: the port is not closed\n");
				return 1;
			}
			close(fd);
		} else if (kind == GEN_NETLINK) {
			if (send_netlink(fd))
				return 1;
		} else if (sendto(fd, &byte, 1, 0, (struct sockaddr *)&to,
				  tolen) != 1) {
			perror("dropgen: sendto");
			return 1;
		}
	}
	printf("sent %lu ns %llu\n", i, now_ns() - t0);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long count, ms = 0, rate = 0;
	int opt, cpu = -1, procs = 0, port, i, status, rc = 0;
	enum gen kind;
	const char *addr = "127.0.0.1";

	while ((opt = getopt(argc, argv, "a:c:P:d:r:")) != -1) {
		switch (opt) {
		case 'a':
			addr = optarg;
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'P':
			procs = atoi(optarg);
			break;
		case 'd':
			ms = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			rate = strtoul(optarg, NULL, 10);
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 3 ||
	    (strcmp(argv[optind], "udp") && strcmp(argv[optind], "tcp") &&
	     strcmp(argv[optind], "netlink"))) {
		fprintf(stderr, "usage: dropgen [-a ADDR] [-c CPU] [-P PROCS] [-d MS] [-r RATE] udp|tcp|netlink COUNT PORT\n");
		return 2;
	}
	kind = !strcmp(argv[optind], "tcp") ? GEN_TCP :
	       !strcmp(argv[optind], "netlink") ? GEN_NETLINK : GEN_UDP;
	count = strtoul(argv[optind + 1], NULL, 10);
	port = atoi(argv[optind + 2]);
	if (target(kind, addr, port))
		return 2;
	if (cpu >= 0 && pin(cpu))
		return 1;
	if (!procs)
		return run(kind, count, ms, rate);
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("dropgen: fork");
			return 1;
		}
		if (!pid)
			return pin(i) ? 1 : run(kind, count, ms, rate);
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	return rc;
}
