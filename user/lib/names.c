// SPDX-License-Identifier: GPL-2.0
/*
 * Names of what the module reports by number, and back: protocols (l3,
 * l4), devices, network namespaces (their "ip netns" name), TCP states and
 * SMC reason codes. A number without a name prints as a number.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ds.h"

static const struct ds_proto {
	const char *name;
	unsigned int value;
} ds_l3[] = {
	{ "ipv4", 0x0800 }, { "ip", 0x0800 }, { "ipv6", 0x86dd },
	{ "arp", 0x0806 }, { "vlan", 0x8100 }, { "mpls", 0x8847 },
	{ NULL, 0 },
}, ds_l4[] = {
	{ "icmp", 1 }, { "igmp", 2 }, { "tcp", 6 }, { "udp", 17 },
	{ "gre", 47 }, { "esp", 50 }, { "icmpv6", 58 }, { "sctp", 132 },
	{ "udplite", 136 }, { NULL, 0 },
};

static int ds_proto_parse(const struct ds_proto *t, const char *s,
			  unsigned int max, unsigned int *v)
{
	uint64_t n;
	char *end;

	for (; t->name; t++) {
		if (!strcmp(t->name, s)) {
			*v = t->value;
			return 0;
		}
	}
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || *end || !*s || n == 0 || n > max)
		return -EINVAL;
	*v = (unsigned int)n;
	return 0;
}

static const char *ds_proto_name(const struct ds_proto *t, unsigned int v,
				 char *buf, size_t len)
{
	for (; t->name; t++)
		if (t->value == v)
			return t->name;
	snprintf(buf, len, "0x%x", v);
	return buf;
}

/* The names, for completion: NULL-terminated. */
const char *const *ds_proto_names(bool l3)
{
	static const char *names[2][DS_N(ds_l4)];
	const struct ds_proto *t = l3 ? ds_l3 : ds_l4;
	const char **n = names[l3];
	size_t i;

	for (i = 0; t[i].name; i++)
		n[i] = t[i].name;
	n[i] = NULL;
	return n;
}

const char *ds_l3_name(uint32_t l3, char *buf, size_t len)
{
	return ds_proto_name(ds_l3, l3, buf, len);
}

const char *ds_l4_name(uint32_t l4, char *buf, size_t len)
{
	return ds_proto_name(ds_l4, l4, buf, len);
}

int ds_l3_parse(const char *s, unsigned int *v)
{
	return ds_proto_parse(ds_l3, s, 0xffff, v);
}

int ds_l4_parse(const char *s, unsigned int *v)
{
	return ds_proto_parse(ds_l4, s, 255, v);
}

/* A device by name when it exists here, else its ifindex. */
const char *ds_dev_name(uint32_t ifindex, char *buf, size_t len)
{
	char name[IF_NAMESIZE];

	if (if_indextoname(ifindex, name))
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%" PRIu32, ifindex);
	return buf;
}

/* An "ip netns" name, or an inode number. */
int ds_netns_parse(const char *s, uint32_t *inum)
{
	char path[512];
	struct stat st;
	uint64_t n;

	if (!ds_parse_u64(s, 1, UINT32_MAX, &n)) {
		*inum = (uint32_t)n;
		return 0;
	}
	if (strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", DS_NETNS_DIR, s);
	if (stat(path, &st))
		return -ENOENT;
	*inum = (uint32_t)st.st_ino;
	return 0;
}

/* A namespace by its "ip netns" name when it has one, else its inode. */
const char *ds_netns_name(uint32_t inum, char *buf, size_t len)
{
	DIR *d = opendir(DS_NETNS_DIR);
	struct dirent *e;
	char path[512];
	struct stat st;

	snprintf(buf, len, "%u", inum);
	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", DS_NETNS_DIR, e->d_name);
		if (e->d_name[0] != '.' && !stat(path, &st) &&
		    st.st_ino == inum) {
			snprintf(buf, len, "%.*s", (int)len - 1, e->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
	return buf;
}

static const char *const ds_tcp_states[] = {
	[1] = "ESTABLISHED", [2] = "SYN_SENT", [3] = "SYN_RECV",
	[4] = "FIN_WAIT1", [5] = "FIN_WAIT2", [6] = "TIME_WAIT",
	[7] = "CLOSE", [8] = "CLOSE_WAIT", [9] = "LAST_ACK",
	[10] = "LISTEN", [11] = "CLOSING", [12] = "NEW_SYN_RECV",
};

/* The kernel's name of a TCP state (include/net/tcp_states.h). */
const char *ds_tcp_state_name(unsigned int state)
{
	if (state < sizeof(ds_tcp_states) / sizeof(ds_tcp_states[0]) &&
	    ds_tcp_states[state])
		return ds_tcp_states[state];
	return "UNKNOWN";
}

static const char *const ds_layers[DS_LAYERS] = {
	[DS_LAYER_KERNEL] = "kernel",
	[DS_LAYER_HW] = "hw",
	[DS_LAYER_DEV] = "dev",
	[DS_LAYER_QDISC] = "qdisc",
};

/* Where a drop was seen: kernel, hw (a device's trap), dev (its counters),
 * qdisc. */
const char *ds_layer_name(unsigned int layer)
{
	return layer < DS_LAYERS ? ds_layers[layer] : "unknown";
}

/* The counters as struct rtnl_link_stats64 and ip -s -s link name them. */
static const char *const ds_dev_counters[DROPSCOPE_DEV_COUNTERS] = {
	[DROPSCOPE_DEV_RX_DROPPED] = "rx_dropped",
	[DROPSCOPE_DEV_TX_DROPPED] = "tx_dropped",
	[DROPSCOPE_DEV_RX_NOHANDLER] = "rx_nohandler",
	[DROPSCOPE_DEV_RX_OTHERHOST_DROPPED] = "rx_otherhost_dropped",
	[DROPSCOPE_DEV_RX_MISSED_ERRORS] = "rx_missed_errors",
	[DROPSCOPE_DEV_RX_FIFO_ERRORS] = "rx_fifo_errors",
	[DROPSCOPE_DEV_RX_OVER_ERRORS] = "rx_over_errors",
	[DROPSCOPE_DEV_RX_CRC_ERRORS] = "rx_crc_errors",
	[DROPSCOPE_DEV_RX_FRAME_ERRORS] = "rx_frame_errors",
	[DROPSCOPE_DEV_RX_LENGTH_ERRORS] = "rx_length_errors",
	[DROPSCOPE_DEV_TX_FIFO_ERRORS] = "tx_fifo_errors",
	[DROPSCOPE_DEV_TX_ABORTED_ERRORS] = "tx_aborted_errors",
	[DROPSCOPE_DEV_TX_CARRIER_ERRORS] = "tx_carrier_errors",
	[DROPSCOPE_DEV_TX_HEARTBEAT_ERRORS] = "tx_heartbeat_errors",
	[DROPSCOPE_DEV_TX_WINDOW_ERRORS] = "tx_window_errors",
};

const char *ds_dev_counter_name(unsigned int counter)
{
	return counter < DROPSCOPE_DEV_COUNTERS ? ds_dev_counters[counter] :
						   "unknown";
}

/* A trap's type, as devlink trap show names it. */
const char *ds_trap_type_name(unsigned int type)
{
	switch (type) {
	case DROPSCOPE_TRAP_DROP:
		return "drop";
	case DROPSCOPE_TRAP_EXCEPTION:
		return "exception";
	default:
		return "unknown";
	}
}
