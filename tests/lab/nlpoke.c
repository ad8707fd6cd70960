// SPDX-License-Identifier: GPL-2.0
/*
 * nlpoke: send dropscope.ko a raw request, bypassing the CLI's own checks,
 * and print what the kernel answered.
 *
 *   nlpoke CMD [TYPE:ATTR=VALUE ...]   TYPE is u8, u16, u32, u64, str,
 *                                      flag (no value) or hex (bytes);
 *                                      nest:ATTR= opens a nest, end:0=
 *                                      closes it
 *   nlpoke dCMD ...                    the same as a dump request
 *   nlpoke join                        join the alert group
 *   nlpoke stall SECONDS               join with a small buffer, read
 *                                      nothing for that long, then read:
 *                                      prints "overrun" if alerts were lost
 *
 * Prints "ok", or "error ERRNO_NAME: MESSAGE" with the extended ack, and
 * exits 0 or 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "dropscope.h"

static int put(struct nl_msg *msg, const char *spec)
{
	static struct nlattr *nests[4];
	static int depth;
	char type[8];
	unsigned int attr;
	int off = 0;

	if (sscanf(spec, "%7[a-z0-9]:%u=%n", type, &attr, &off) != 2 || !off)
		return -1;
	spec += off;
	if (!strcmp(type, "nest")) {
		if (depth == 4 || !(nests[depth] = nla_nest_start(msg, (int)attr)))
			return -1;
		depth++;
		return 0;
	}
	if (!strcmp(type, "end"))
		return depth ? nla_nest_end(msg, nests[--depth]) : -1;
	if (!strcmp(type, "u8"))
		return nla_put_u8(msg, attr, (uint8_t)strtoul(spec, NULL, 0));
	if (!strcmp(type, "u16"))
		return nla_put_u16(msg, attr, (uint16_t)strtoul(spec, NULL, 0));
	if (!strcmp(type, "u32"))
		return nla_put_u32(msg, attr, (uint32_t)strtoul(spec, NULL, 0));
	if (!strcmp(type, "u64"))
		return nla_put_u64(msg, attr, strtoull(spec, NULL, 0));
	if (!strcmp(type, "str"))
		return nla_put_string(msg, attr, spec);
	if (!strcmp(type, "flag"))
		return nla_put_flag(msg, attr);
	if (!strcmp(type, "hex")) {
		unsigned char b[4096];
		size_t n = 0;
		unsigned int x;

		while (spec[0] && spec[1] && n < sizeof(b) &&
		       sscanf(spec, "%2x", &x) == 1) {
			b[n++] = (unsigned char)x;
			spec += 2;
		}
		return *spec ? -1 : nla_put(msg, attr, (int)n, b);
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ds_nl *nl = NULL;
	struct nl_msg *msg;
	int i, err;

	if (argc < 2) {
		fprintf(stderr, "usage: nlpoke CMD|join [TYPE:ATTR=VALUE ...]\n");
		return 2;
	}
	err = ds_nl_open(&nl);
	if (!err && !strcmp(argv[1], "join")) {
		err = ds_nl_join_alerts(nl);
	} else if (!err && !strcmp(argv[1], "stall") && argc == 3) {
		int small = 1;	/* the kernel rounds it up to its minimum */

		err = ds_nl_join_alerts(nl);
		if (!err) {
			setsockopt(ds_nl_fd(nl), SOL_SOCKET, SO_RCVBUF, &small,
				   sizeof(small));
			printf("joined\n");
			fflush(stdout);
			sleep((unsigned int)atoi(argv[2]));
			err = ds_nl_recv_alerts(nl, NULL, NULL);
			if (err == -ENOBUFS) {
				printf("overrun\n");
				err = 0;
			}
		}
	} else if (!err) {
		bool dump = argv[1][0] == 'd';

		msg = ds_nl_msg(nl, (uint8_t)atoi(argv[1] + dump), dump);
		for (i = 2; i < argc; i++) {
			if (!msg || put(msg, argv[i])) {
				fprintf(stderr, "nlpoke: bad attribute %s\n",
					argv[i]);
				return 2;
			}
		}
		err = ds_nl_send(nl, msg, NULL, NULL);
	}
	if (err)
		printf("error %s: %s\n", strerrorname_np(-err), ds_nl_error(nl));
	else
		printf("ok\n");
	ds_nl_close(nl);
	return err ? 1 : 0;
}
