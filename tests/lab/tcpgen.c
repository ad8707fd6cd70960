// SPDX-License-Identifier: GPL-2.0
/*
 * tcpgen: TCP sessions on loopback with known byte counts and owners.
 *
 *   tcpgen [-6] run N PORT RST_EVERY
 *       a server process (comm "tsrv") and N client processes, one after
 *       the other, client i with comm "tcli<i>". Client i sends 1000+37*i
 *       bytes, the server answers half of that plus 3 and shuts down its
 *       side; the client reads to the end and closes, with a reset
 *       (SO_LINGER 0) when i % RST_EVERY == 0 (RST_EVERY 0: never).
 *       Prints one line per client: "cli PID COMM LPORT TX RX RST" and
 *       one for the server: "srv PID COMM".
 *   tcpgen [-6] hold N PORT
 *       N sessions, both ends in this process (comm "thold"), client i
 *       sends 500+i bytes and the server 200+i; prints "ready" and waits
 *       for SIGTERM with all of them open.
 *   tcpgen [-6] pump N PORT BYTES
 *       N sessions, both ends in this process (comm "tpump"); prints
 *       "ready", then at each SIGUSR1 client i sends BYTES*(i+1) bytes
 *       and the server answers half of that, and it prints "pumped K"
 *       for the K-th time; all of them stay open until SIGTERM.
 *   tcpgen [-6] churn SECONDS PORT [PAUSE_US]
 *       open and close sessions as fast as possible for SECONDS, or with
 *       a pause of PAUSE_US microseconds after each.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "genio.h"
#include "gentime.h"

static int v6;

static socklen_t addr(struct sockaddr_storage *ss, int port)
{
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		a->sin6_addr = in6addr_loopback;
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(*a);
}

static int listener(int port)
{
	struct sockaddr_storage ss;
	socklen_t len = addr(&ss, port);
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		die("socket");
	/*
	 * On the wildcard address: a passive session is cloned from its
	 * listener before its own addresses are set, so that what is read
	 * at its birth (::, 0.0.0.0) is not what it ends up with.
	 */
	if (v6)
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_any;
	else
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_ANY);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 1024))
		die("bind/listen");
	return fd;
}

static int connector(int port)
{
	struct sockaddr_storage ss;
	socklen_t len = addr(&ss, port);
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&ss, len))
		die("connect");
	return fd;
}

static int lport(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	getsockname(fd, (struct sockaddr *)&ss, &len);
	return ntohs(ss.ss_family == AF_INET6 ?
		     ((struct sockaddr_in6 *)&ss)->sin6_port :
		     ((struct sockaddr_in *)&ss)->sin_port);
}

static void rst_close(int fd)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

static int run(int n, int port, int rst_every)
{
	int lfd = listener(port), i, status;
	pid_t srv;

	srv = fork();
	if (srv < 0)
		die("fork");
	if (!srv) {
		prctl(PR_SET_NAME, "tsrv");
		printf("srv %d tsrv\n", getpid());
		fflush(stdout);
		for (i = 0; i < n; i++) {
			int fd = accept(lfd, NULL, NULL);
			size_t tx = 1000 + 37 * (size_t)i;

			if (fd < 0)
				die("accept");
			get(fd, (ssize_t)tx);
			put(fd, tx / 2 + 3);
			shutdown(fd, SHUT_WR);
			get(fd, -1);
			close(fd);
		}
		exit(0);
	}
	close(lfd);
	for (i = 0; i < n; i++) {
		pid_t c = fork();

		if (c < 0)
			die("fork");
		if (!c) {
			char comm[16];
			size_t tx = 1000 + 37 * (size_t)i, rx;
			int fd, rst = rst_every && i % rst_every == 0;

			snprintf(comm, sizeof(comm), "tcli%d", i);
			prctl(PR_SET_NAME, comm);
			fd = connector(port);
			put(fd, tx);
			rx = get(fd, -1);
			printf("cli %d %s %d %zu %zu %d\n", getpid(), comm,
			       lport(fd), tx, rx, rst);
			fflush(stdout);
			if (rst)
				rst_close(fd);
			else
				close(fd);
			exit(0);
		}
		waitpid(c, &status, 0);
	}
	waitpid(srv, &status, 0);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int hold(int n, int port)
{
	int lfd = listener(port), i;

	prctl(PR_SET_NAME, "thold");
	signal(SIGTERM, on_term);
	for (i = 0; i < n; i++) {
		int c = connector(port), s = accept(lfd, NULL, NULL);

		if (s < 0)
			die("accept");
		put(c, 500 + (size_t)i);
		get(s, 500 + i);
		put(s, 200 + (size_t)i);
		get(c, 200 + i);
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	return 0;
}

static volatile sig_atomic_t pumps;

static void on_usr1(int sig)
{
	(void)sig;
	pumps++;
}

static int pump(int n, int port, size_t bytes)
{
	int lfd = listener(port), i, *c, *s;
	sigset_t block, old;
	long done = 0;

	c = calloc((size_t)n, sizeof(*c));
	s = calloc((size_t)n, sizeof(*s));
	if (!c || !s)
		die("calloc");
	prctl(PR_SET_NAME, "tpump");
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGTERM, on_term);
	signal(SIGUSR1, on_usr1);
	for (i = 0; i < n; i++) {
		c[i] = connector(port);
		s[i] = accept(lfd, NULL, NULL);
		if (s[i] < 0)
			die("accept");
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		if (pumps == done) {
			sigsuspend(&old);
			continue;
		}
		for (i = 0; i < n; i++) {
			size_t b = bytes * (size_t)(i + 1);

			put(c[i], b);
			if (get(s[i], (ssize_t)b) != b)
				die("short read");
			put(s[i], b / 2);
			if (get(c[i], (ssize_t)(b / 2)) != b / 2)
				die("short read");
		}
		printf("pumped %ld\n", ++done);
		fflush(stdout);
	}
	return 0;
}

static int churn(int seconds, int port, int pause_us)
{
	int lfd = listener(port);
	time_t end = time(NULL) + seconds;
	long n = 0;

	while (time(NULL) < end) {
		int c = connector(port), s = accept(lfd, NULL, NULL);

		if (s < 0)
			die("accept");
		put(c, 100);
		get(s, 100);
		if (n & 1)
			rst_close(c);
		else
			close(c);
		close(s);
		n++;
		if (pause_us)
			usleep((useconds_t)pause_us);
	}
	printf("churned %ld\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "-6")) {
		v6 = 1;
		argv++;
		argc--;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "run"))
		return run(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return hold(atoi(argv[2]), atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "pump"))
		return pump(atoi(argv[2]), atoi(argv[3]),
			    (size_t)atol(argv[4]));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "churn"))
		return churn(atoi(argv[2]), atoi(argv[3]),
			     argc == 5 ? atoi(argv[4]) : 0);
	fprintf(stderr, "usage: tcpgen [-6] run N PORT RST_EVERY | hold N PORT | pump N PORT BYTES | churn SECONDS PORT [PAUSE_US]\n");
	return 2;
}
