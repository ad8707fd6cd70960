// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the CLI's library (user/lib/): its readers fed with canned
 * messages of the dropscope family, whole, truncated and hostile; the rule
 * words, and a rule's way to the wire and back; capture messages; pcapng
 * blocks. They run on the host, without the module.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <linux/rtnetlink.h>
#include <linux/smc_diag.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "lib/ds.h"

/* ---- canned messages ----------------------------------------------------- */

/* A message's attributes, as the transport hands them to a reader. */
struct canned {
	struct nl_msg *msg;
	struct nlattr *tb[DROPSCOPE_A_MAX + 1];
	struct nlattr *attrs;
	int len;
};

static struct nl_msg *canned_new(void)
{
	struct nl_msg *m = nlmsg_alloc();

	assert_non_null(m);
	return m;
}

/* The top-level attributes of m, parsed as the transport does. */
static void canned_parse(struct canned *c, struct nl_msg *m)
{
	c->msg = m;
	c->attrs = nlmsg_attrdata(nlmsg_hdr(m), 0);
	c->len = nlmsg_attrlen(nlmsg_hdr(m), 0);
	assert_int_equal(ds_nla_parse(c->tb, DROPSCOPE_A_MAX, c->attrs, c->len,
				      NULL), 0);
}

static void put_site(struct nl_msg *m, uint64_t loc, uint64_t total,
		     uint64_t delta, uint32_t reason)
{
	struct nlattr *n = nla_nest_start(m, DROPSCOPE_A_SITE);

	assert_non_null(n);
	assert_int_equal(nla_put_u64(m, DROPSCOPE_SITE_A_LOCATION, loc), 0);
	assert_int_equal(nla_put_u64(m, DROPSCOPE_SITE_A_TOTAL, total), 0);
	assert_int_equal(nla_put_u64(m, DROPSCOPE_SITE_A_DELTA, delta), 0);
	assert_int_equal(nla_put_u32(m, DROPSCOPE_SITE_A_REASON, reason), 0);
	nla_nest_end(m, n);
}

static void put_session(struct nl_msg *m, uint64_t cookie, uint16_t sport,
			uint64_t drops)
{
	static const unsigned char lo[4] = { 127, 0, 0, 1 };
	struct nlattr *n = nla_nest_start(m, DROPSCOPE_A_SESSION);

	assert_non_null(n);
	assert_int_equal(nla_put_u64(m, DROPSCOPE_SESSION_A_COOKIE, cookie), 0);
	assert_int_equal(nla_put_u8(m, DROPSCOPE_SESSION_A_FAMILY, 2), 0);
	assert_int_equal(nla_put_u16(m, DROPSCOPE_SESSION_A_SPORT, sport), 0);
	assert_int_equal(nla_put_u16(m, DROPSCOPE_SESSION_A_DPORT, 80), 0);
	assert_int_equal(nla_put(m, DROPSCOPE_SESSION_A_SADDR, 4, lo), 0);
	assert_int_equal(nla_put(m, DROPSCOPE_SESSION_A_DADDR, 4, lo), 0);
	assert_int_equal(nla_put_u8(m, DROPSCOPE_SESSION_A_STATE, 7), 0);
	assert_int_equal(nla_put_u32(m, DROPSCOPE_SESSION_A_PID, 42), 0);
	assert_int_equal(nla_put_string(m, DROPSCOPE_SESSION_A_COMM, "curl"), 0);
	assert_int_equal(nla_put_u64(m, DROPSCOPE_SESSION_A_DROPS, drops), 0);
	nla_nest_end(m, n);
}

/* ---- sites, sessions, alerts -------------------------------------------- */

static void test_site_read(void **state)
{
	struct nl_msg *m = canned_new();
	struct canned c;
	struct ds_site s;
	struct nlattr *n;

	(void)state;
	put_site(m, 0xffffffff81000100ULL, 10, 3, 2);
	canned_parse(&c, m);
	assert_int_equal(ds_site_parse(c.tb[DROPSCOPE_A_SITE], &s), 0);
	assert_int_equal(s.location, 0xffffffff81000100ULL);
	assert_int_equal(s.total, 10);
	assert_true(s.has_delta);
	assert_int_equal(s.delta, 3);
	assert_int_equal(s.reason, 2);
	nlmsg_free(m);

	/* a site without its location */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SITE);
	nla_put_u64(m, DROPSCOPE_SITE_A_TOTAL, 1);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_site_parse(c.tb[DROPSCOPE_A_SITE], &s), -EINVAL);
	nlmsg_free(m);

	/* a total of four bytes, where the family says eight */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SITE);
	nla_put_u64(m, DROPSCOPE_SITE_A_LOCATION, 1);
	nla_put_u32(m, DROPSCOPE_SITE_A_TOTAL, 1);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_site_parse(c.tb[DROPSCOPE_A_SITE], &s), -EINVAL);
	nlmsg_free(m);
}

/* A trap and a device counter read into sites of their layers. */
static void test_layer_read(void **state)
{
	struct nl_msg *m = canned_new();
	struct canned c;
	struct ds_site s;
	struct nlattr *n;

	(void)state;
	n = nla_nest_start(m, DROPSCOPE_A_TRAP);
	nla_put_string(m, DROPSCOPE_TRAP_A_DEVICE, "netdevsim/netdevsim1");
	nla_put_string(m, DROPSCOPE_TRAP_A_NAME, "blackhole_route");
	nla_put_string(m, DROPSCOPE_TRAP_A_GROUP, "l3_drops");
	nla_put_u8(m, DROPSCOPE_TRAP_A_TYPE, DROPSCOPE_TRAP_DROP);
	nla_put_u32(m, DROPSCOPE_TRAP_A_IFINDEX, 7);
	nla_put_string(m, DROPSCOPE_TRAP_A_DEV, "eth0");
	nla_put_u64(m, DROPSCOPE_TRAP_A_TOTAL, 12);
	nla_put_u64(m, DROPSCOPE_TRAP_A_DELTA, 2);
	nla_nest_end(m, n);
	n = nla_nest_start(m, DROPSCOPE_A_DEVCTR);
	nla_put_u32(m, DROPSCOPE_DEVCTR_A_IFINDEX, 9);
	nla_put_string(m, DROPSCOPE_DEVCTR_A_DEV, "veth0");
	nla_put_u8(m, DROPSCOPE_DEVCTR_A_COUNTER, DROPSCOPE_DEV_RX_MISSED_ERRORS);
	nla_put_u64(m, DROPSCOPE_DEVCTR_A_TOTAL, 5);
	nla_put_u64(m, DROPSCOPE_DEVCTR_A_MASKED, 1);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_trap_parse(c.tb[DROPSCOPE_A_TRAP], &s), 0);
	assert_int_equal(s.layer, DS_LAYER_HW);
	assert_string_equal(s.trap, "blackhole_route");
	assert_string_equal(s.group, "l3_drops");
	assert_string_equal(s.device, "netdevsim/netdevsim1");
	assert_string_equal(s.dev, "eth0");
	assert_int_equal(s.ifindex, 7);
	assert_int_equal(s.total, 12);
	assert_true(s.has_delta);
	assert_int_equal(s.delta, 2);
	assert_string_equal(s.reason_name, "drop");
	assert_int_equal(ds_devctr_parse(c.tb[DROPSCOPE_A_DEVCTR], &s), 0);
	assert_int_equal(s.layer, DS_LAYER_DEV);
	assert_int_equal(s.counter, DROPSCOPE_DEV_RX_MISSED_ERRORS);
	assert_string_equal(s.reason_name, "rx_missed_errors");
	assert_string_equal(s.dev, "veth0");
	assert_int_equal(s.total, 5);
	assert_int_equal(s.masked, 1);
	assert_false(s.has_delta);
	nlmsg_free(m);

	/* a trap without its device, a counter without its counter */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_TRAP);
	nla_put_string(m, DROPSCOPE_TRAP_A_NAME, "blackhole_route");
	nla_put_u64(m, DROPSCOPE_TRAP_A_TOTAL, 1);
	nla_nest_end(m, n);
	n = nla_nest_start(m, DROPSCOPE_A_DEVCTR);
	nla_put_string(m, DROPSCOPE_DEVCTR_A_DEV, "veth0");
	nla_put_u64(m, DROPSCOPE_DEVCTR_A_TOTAL, 1);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_trap_parse(c.tb[DROPSCOPE_A_TRAP], &s), -EINVAL);
	assert_int_equal(ds_devctr_parse(c.tb[DROPSCOPE_A_DEVCTR], &s), -EINVAL);
	nlmsg_free(m);

	/* a qdisc's drops of one reason; one of a reason the module has no
	 * name for; one without its handle */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_QDISC);
	nla_put_u32(m, DROPSCOPE_QDISC_A_IFINDEX, 4);
	nla_put_u32(m, DROPSCOPE_QDISC_A_NETNS, 4026531840U);
	nla_put_string(m, DROPSCOPE_QDISC_A_DEV, "eth0");
	nla_put_string(m, DROPSCOPE_QDISC_A_KIND, "fq");
	nla_put_u32(m, DROPSCOPE_QDISC_A_HANDLE, 0x80000000);
	nla_put_u32(m, DROPSCOPE_QDISC_A_PARENT, 0xffffffff);
	nla_put_u32(m, DROPSCOPE_QDISC_A_REASON, 0x70008);
	nla_put_string(m, DROPSCOPE_QDISC_A_REASON_NAME, "FLOW_LIMIT");
	nla_put_u64(m, DROPSCOPE_QDISC_A_TOTAL, 182);
	nla_put_u64(m, DROPSCOPE_QDISC_A_DELTA, 7);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_qdisc_parse(c.tb[DROPSCOPE_A_QDISC], &s), 0);
	assert_int_equal(s.layer, DS_LAYER_QDISC);
	assert_string_equal(s.kind, "fq");
	assert_int_equal(s.handle, 0x80000000);
	assert_int_equal(s.parent, 0xffffffff);
	assert_int_equal(s.reason, 0x70008);
	assert_string_equal(s.reason_name, "FLOW_LIMIT");
	assert_string_equal(s.symbol, "fq 8000: eth0");
	assert_string_equal(s.dev, "eth0");
	assert_int_equal(s.ifindex, 4);
	assert_int_equal(s.total, 182);
	assert_true(s.has_delta);
	assert_int_equal(s.delta, 7);
	nlmsg_free(m);
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_QDISC);
	nla_put_string(m, DROPSCOPE_QDISC_A_KIND, "sfq");
	nla_put_u32(m, DROPSCOPE_QDISC_A_HANDLE, 0x10002);
	nla_put_u32(m, DROPSCOPE_QDISC_A_REASON, 0x7000f);
	nla_put_u64(m, DROPSCOPE_QDISC_A_TOTAL, 1);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_qdisc_parse(c.tb[DROPSCOPE_A_QDISC], &s), 0);
	assert_string_equal(s.reason_name, "0x7000f");
	assert_string_equal(s.symbol, "sfq 1:2 -");
	nlmsg_free(m);
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_QDISC);
	nla_put_string(m, DROPSCOPE_QDISC_A_KIND, "fq");
	nla_put_u32(m, DROPSCOPE_QDISC_A_REASON, 0x70008);
	nla_put_u64(m, DROPSCOPE_QDISC_A_TOTAL, 1);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_qdisc_parse(c.tb[DROPSCOPE_A_QDISC], &s), -EINVAL);
	nlmsg_free(m);
}

static void test_session_read(void **state)
{
	const struct dropscope_tcp_state tcp = {
		.rtt_us = 41, .snd_cwnd = 10, .delivery_rate = 1000,
	};
	struct nl_msg *m = canned_new();
	struct ds_session s;
	struct canned c;
	struct nlattr *n;

	(void)state;
	put_session(m, 77, 40000, 5);
	canned_parse(&c, m);
	assert_int_equal(ds_session_parse(c.tb[DROPSCOPE_A_SESSION], &s), 0);
	assert_int_equal(s.cookie, 77);
	assert_int_equal(s.lport, 40000);
	assert_int_equal(s.rport, 80);
	assert_int_equal(s.drops, 5);
	assert_int_equal(s.pid, 42);
	assert_string_equal(s.comm, "curl");
	assert_string_equal(s.laddr, "127.0.0.1");
	assert_string_equal(ds_tcp_state_name(s.state), "CLOSE");
	assert_int_equal(s.run, 0);
	nlmsg_free(m);

	/* every byte value in every place of an IPv4 address, as inet_ntop() */
	for (int v = 0; v < 256; v++) {
		const unsigned char a4[4] = { v, 255 - v, v / 2, (v * 7) % 256 };
		char want[INET_ADDRSTRLEN];

		m = canned_new();
		n = nla_nest_start(m, DROPSCOPE_A_SESSION);
		assert_int_equal(nla_put_u64(m, DROPSCOPE_SESSION_A_COOKIE, 1), 0);
		assert_int_equal(nla_put_u8(m, DROPSCOPE_SESSION_A_FAMILY, AF_INET), 0);
		assert_int_equal(nla_put(m, DROPSCOPE_SESSION_A_SADDR, 4, a4), 0);
		nla_nest_end(m, n);
		canned_parse(&c, m);
		assert_int_equal(ds_session_parse(c.tb[DROPSCOPE_A_SESSION], &s), 0);
		assert_non_null(inet_ntop(AF_INET, a4, want, sizeof(want)));
		assert_string_equal(s.laddr, want);
		assert_string_equal(s.raddr, "-");
		nlmsg_free(m);
	}

	/* a session of run 3, born at 123456789 ns */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SESSION);
	nla_put_u64(m, DROPSCOPE_SESSION_A_COOKIE, 2);
	nla_put_u8(m, DROPSCOPE_SESSION_A_FAMILY, AF_INET);
	nla_put_u64(m, DROPSCOPE_SESSION_A_START_NS, 123456789);
	nla_put_u32(m, DROPSCOPE_SESSION_A_RUN, 3);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_session_parse(c.tb[DROPSCOPE_A_SESSION], &s), 0);
	assert_int_equal(s.run, 3);
	assert_false(s.found);
	assert_int_equal(s.start_ns, 123456789);
	assert_false(s.has_tcp);
	nlmsg_free(m);

	/* a session open before start, found by it */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SESSION);
	nla_put_u64(m, DROPSCOPE_SESSION_A_COOKIE, 3);
	nla_put_u8(m, DROPSCOPE_SESSION_A_FAMILY, AF_INET);
	nla_put_flag(m, DROPSCOPE_SESSION_A_FOUND);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_session_parse(c.tb[DROPSCOPE_A_SESSION], &s), 0);
	assert_true(s.found);
	assert_int_equal(s.run, 0);
	nlmsg_free(m);

	/* a live one's transport state */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SESSION);
	nla_put_u64(m, DROPSCOPE_SESSION_A_COOKIE, 4);
	nla_put_u8(m, DROPSCOPE_SESSION_A_FAMILY, AF_INET);
	nla_put(m, DROPSCOPE_SESSION_A_TCP, sizeof(tcp), &tcp);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_session_parse(c.tb[DROPSCOPE_A_SESSION], &s), 0);
	assert_true(s.has_tcp);
	assert_int_equal(s.rtt_us, 41);
	assert_int_equal(s.cwnd, 10);
	assert_int_equal(s.delivery_rate, 1000);
	nlmsg_free(m);

	/* a state too short to hold the windows */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SESSION);
	nla_put_u64(m, DROPSCOPE_SESSION_A_COOKIE, 5);
	nla_put_u8(m, DROPSCOPE_SESSION_A_FAMILY, AF_INET);
	nla_put(m, DROPSCOPE_SESSION_A_TCP, 8, &tcp);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_session_parse(c.tb[DROPSCOPE_A_SESSION], &s), -EINVAL);
	nlmsg_free(m);

	/* a comm without its NUL */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SESSION);
	nla_put_u64(m, DROPSCOPE_SESSION_A_COOKIE, 1);
	nla_put(m, DROPSCOPE_SESSION_A_COMM, 4, "curl");
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_session_parse(c.tb[DROPSCOPE_A_SESSION], &s), -EINVAL);
	nlmsg_free(m);
}

static void test_alert_read(void **state)
{
	struct nl_msg *m = canned_new();
	struct ds_alert a;
	struct canned c;
	struct nlattr *n;

	(void)state;
	nla_put_u64(m, DROPSCOPE_A_ROUND, 9);
	nla_put_u64(m, DROPSCOPE_A_OVERFLOW_DELTA, 4);
	nla_put_flag(m, DROPSCOPE_A_ROUND_END);
	put_site(m, 0x100, 10, 3, 2);
	put_site(m, 0x200, 20, 20, 5);
	n = nla_nest_start(m, DROPSCOPE_A_SMC_FALLBACK);
	nla_put_u32(m, DROPSCOPE_SMC_FB_A_CODE, 0x03010000);
	nla_put_u8(m, DROPSCOPE_SMC_FB_A_SIDE, DROPSCOPE_SMC_SERVER);
	nla_put_u64(m, DROPSCOPE_SMC_FB_A_DELTA, 1);
	nla_put_u64(m, DROPSCOPE_SMC_FB_A_TOTAL, 6);
	nla_nest_end(m, n);
	put_session(m, 77, 40000, 5);
	canned_parse(&c, m);
	assert_int_equal(ds_alert_read(c.tb, c.attrs, c.len, &a), 0);
	assert_int_equal(a.round, 9);
	assert_true(a.end);
	assert_int_equal(a.overflow, 4);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.sites[1].location, 0x200);
	assert_int_equal(a.nsmc, 1);
	assert_true(a.smc[0].server);
	assert_int_equal(a.smc[0].total, 6);
	assert_int_equal(a.nsess, 1);
	assert_int_equal(a.sessions[0].cookie, 77);
	ds_alert_free(&a);
	assert_null(a.sites);
	nlmsg_free(m);

	/* a fallback without its side: the message is refused whole */
	m = canned_new();
	put_site(m, 0x100, 10, 3, 2);
	n = nla_nest_start(m, DROPSCOPE_A_SMC_FALLBACK);
	nla_put_u32(m, DROPSCOPE_SMC_FB_A_CODE, 0x03010000);
	nla_put_u64(m, DROPSCOPE_SMC_FB_A_DELTA, 1);
	nla_put_u64(m, DROPSCOPE_SMC_FB_A_TOTAL, 6);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_alert_read(c.tb, c.attrs, c.len, &a), -EINVAL);
	assert_null(a.sites);
	nlmsg_free(m);

	/* session events, in order, and those lost */
	m = canned_new();
	nla_put_u64(m, DROPSCOPE_A_ROUND, 11);
	nla_put_u64(m, DROPSCOPE_A_SESS_EVENTS_LOST_DELTA, 3);
	n = nla_nest_start(m, DROPSCOPE_A_SESS_EVENT);
	nla_put_u8(m, DROPSCOPE_EVENT_A_KIND, DROPSCOPE_SESS_EVENT_STATE);
	nla_put_u8(m, DROPSCOPE_EVENT_A_FAMILY, AF_INET);
	nla_put(m, DROPSCOPE_EVENT_A_SADDR, 4, "\x7f\0\0\x01");
	nla_put_u16(m, DROPSCOPE_EVENT_A_SPORT, 5025);
	nla_put_u8(m, DROPSCOPE_EVENT_A_OLDSTATE, 2);
	nla_put_u8(m, DROPSCOPE_EVENT_A_NEWSTATE, 1);
	nla_put_string(m, DROPSCOPE_EVENT_A_COMM, "curl");
	nla_nest_end(m, n);
	n = nla_nest_start(m, DROPSCOPE_A_SESS_EVENT);
	nla_put_u8(m, DROPSCOPE_EVENT_A_KIND, DROPSCOPE_SESS_EVENT_RETRANS);
	nla_put_u8(m, DROPSCOPE_EVENT_A_FAMILY, AF_INET6);
	nla_put_u32(m, DROPSCOPE_EVENT_A_SEGS, 2);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_alert_read(c.tb, c.attrs, c.len, &a), 0);
	assert_int_equal(a.events_lost, 3);
	assert_int_equal(a.nev, 2);
	assert_int_equal(a.events[0].lport, 5025);
	assert_string_equal(a.events[0].laddr, "127.0.0.1");
	assert_string_equal(a.events[0].comm, "curl");
	assert_int_equal(a.events[0].newstate, 1);
	assert_int_equal(a.events[1].segs, 2);
	assert_string_equal(a.events[1].comm, "-");
	assert_string_equal(a.events[1].laddr, "-");
	ds_alert_free(&a);
	assert_null(a.events);
	nlmsg_free(m);

	/* an event without its kind, or with a comm that never ends */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SESS_EVENT);
	nla_put_u8(m, DROPSCOPE_EVENT_A_FAMILY, AF_INET);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_alert_read(c.tb, c.attrs, c.len, &a), -EINVAL);
	nlmsg_free(m);
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SESS_EVENT);
	nla_put_u8(m, DROPSCOPE_EVENT_A_KIND, DROPSCOPE_SESS_EVENT_TLP);
	nla_put_u8(m, DROPSCOPE_EVENT_A_FAMILY, AF_INET);
	nla_put(m, DROPSCOPE_EVENT_A_COMM, 4, "curl");
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_alert_read(c.tb, c.attrs, c.len, &a), -EINVAL);
	nlmsg_free(m);

	/* an empty round: nothing, and nothing to free */
	m = canned_new();
	nla_put_u64(m, DROPSCOPE_A_ROUND, 10);
	canned_parse(&c, m);
	assert_int_equal(ds_alert_read(c.tb, c.attrs, c.len, &a), 0);
	assert_int_equal(a.n + a.nsmc + a.nsess, 0);
	assert_false(a.end);
	ds_alert_free(&a);
	nlmsg_free(m);
}

/* ---- rules ------------------------------------------------------------- */

static const char syms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T tcp_v4_rcv\n"
	"ffffffff81000180 T udp_rcv\n";

/* A context with the symbols and reasons of a made-up kernel. */
static void rule_ctx(struct ds_ctx *ctx)
{
	static struct ds_reason reasons[] = {
		{ .id = 2, .name = "NOT_SPECIFIED" },
		{ .id = 5, .name = "NO_SOCKET" },
	};
	FILE *f = fmemopen((void *)syms_text, sizeof(syms_text) - 1, "r");

	memset(ctx, 0, sizeof(*ctx));
	assert_int_equal(ds_syms_load(f, &ctx->syms), 0);
	fclose(f);
	ctx->reasons.v = reasons;
	ctx->reasons.n = DS_N(reasons);
}

static int rule_words(struct ds_ctx *ctx, struct ds_rule *r, const char *line)
{
	char buf[256], *argv[16];
	int argc;

	snprintf(buf, sizeof(buf), "%s", line);
	argc = ds_split(buf, argv, 16);
	return ds_rule_parse(ctx, argc, argv, r);
}

static void test_rule_words(void **state)
{
	static const char *const bad[] = {
		"site", "color red", "l4 udp l4 tcp", "site no_such_fn",
		"site tcp_v4_rcv+0x200", "reason NO_SUCH_REASON", "l3 0x10000",
		"l4 256", "l4 nothing", "smc 0x03010000 l4 tcp", "smc x",
		"netns a/b", "dev 0", "trap x counter rx_dropped",
		"counter rx_bogus", "layer hw site tcp_v4_rcv", "layer dev trap x",
		"layer kernel counter tx_dropped", "layer bogus", "trap",
		"group 0123456789012345678901234567890123456789",
	};
	struct ds_ctx ctx;
	struct ds_rule r;
	size_t i;

	(void)state;
	rule_ctx(&ctx);
	assert_int_equal(rule_words(&ctx, &r,
				    "site tcp_v4_rcv reason NO_SOCKET l3 ipv6 l4 udp dev 3 netns 4026531840"),
			 0);
	assert_int_equal(r.has, 1U << DS_RF_SITE | 1U << DS_RF_REASON |
				1U << DS_RF_L3 | 1U << DS_RF_L4 |
				1U << DS_RF_DEV | 1U << DS_RF_NETNS);
	assert_int_equal(r.loc_start, 0xffffffff81000100ULL);
	assert_int_equal(r.loc_end, 0xffffffff81000180ULL);
	assert_int_equal(r.reason, 5);
	assert_int_equal(r.l3, 0x86dd);
	assert_int_equal(r.l4, 17);
	assert_int_equal(r.ifindex, 3);
	assert_int_equal(r.netns, 4026531840U);
	assert_int_equal(r.mode, DROPSCOPE_RULE_MASK);
	assert_int_equal(rule_words(&ctx, &r, "smc 0x03010000"), 0);
	assert_int_equal(r.smc_reason, 0x03010000);
	for (i = 0; i < DS_N(bad); i++) {
		print_message("bad: %s\n", bad[i]);
		assert_int_equal(rule_words(&ctx, &r, bad[i]), DS_EUSAGE);
	}
	ds_syms_free(ctx.syms);
}

/* A rule as the module would send it (id, mode and, with hits, its
 * hits) with one attribute more of n bytes (none when type is 0): what
 * ds_rule_read() says of it. */
static int read_rule(int type, int n, bool hits)
{
	static const unsigned char zero[8];
	struct nl_msg *m = canned_new();
	struct ds_rule back;
	struct nlattr *nest;
	struct canned c;
	int err;

	nest = nla_nest_start(m, DROPSCOPE_A_RULE);
	nla_put_u32(m, DROPSCOPE_RULE_A_ID, 1);
	nla_put_u8(m, DROPSCOPE_RULE_A_MODE, 1);
	if (hits)
		nla_put_u64(m, DROPSCOPE_RULE_A_HITS, 0);
	if (type)
		nla_put(m, type, n, zero);
	nla_nest_end(m, nest);
	canned_parse(&c, m);
	err = ds_rule_read(c.tb[DROPSCOPE_A_RULE], &back);
	nlmsg_free(m);
	return err;
}

static void test_rule_wire(void **state)
{
	struct ds_rule r = {
		.id = 3, .mode = DROPSCOPE_RULE_ONLY, .loc_start = 0x100,
		.loc_end = 0x180, .reason = 5, .l3 = 0x800, .l4 = 6,
		.ifindex = 2, .netns = 9, .hits = 0,
		.has = 1U << DS_RF_SITE | 1U << DS_RF_REASON | 1U << DS_RF_L3 |
		       1U << DS_RF_L4 | 1U << DS_RF_DEV | 1U << DS_RF_NETNS,
	}, back;
	struct nl_msg *m = canned_new();
	struct canned c;
	struct nlattr *n;

	(void)state;
	/* put, then read back with hits added as the module does */
	m = canned_new();
	assert_int_equal(ds_rule_put(m, &r), 0);
	n = nlmsg_attrdata(nlmsg_hdr(m), 0);
	{
		struct nl_msg *m2 = canned_new();
		struct nlattr *n2 = nla_nest_start(m2, DROPSCOPE_A_RULE);
		struct nlattr *a;
		int rem;

		nla_for_each_nested(a, n, rem)
			nla_put(m2, nla_type(a), nla_len(a), nla_data(a));
		nla_put_u64(m2, DROPSCOPE_RULE_A_HITS, 12);
		nla_nest_end(m2, n2);
		canned_parse(&c, m2);
		assert_int_equal(ds_rule_read(c.tb[DROPSCOPE_A_RULE], &back), 0);
		nlmsg_free(m2);
	}
	assert_int_equal(back.id, 3);
	assert_int_equal(back.mode, DROPSCOPE_RULE_ONLY);
	assert_int_equal(back.has, r.has);
	assert_int_equal(back.loc_start, 0x100);
	assert_int_equal(back.loc_end, 0x180);
	assert_int_equal(back.reason, 5);
	assert_int_equal(back.l3, 0x800);
	assert_int_equal(back.l4, 6);
	assert_int_equal(back.ifindex, 2);
	assert_int_equal(back.netns, 9);
	assert_int_equal(back.hits, 12);
	nlmsg_free(m);

	/* hostile: a start without an end, an l3 of one byte, no hits */
	assert_int_equal(read_rule(DROPSCOPE_RULE_A_LOC_START, 8, true), -EINVAL);
	assert_int_equal(read_rule(DROPSCOPE_RULE_A_L3, 1, true), -EINVAL);
	assert_int_equal(read_rule(0, 0, false), -EINVAL);
	assert_int_equal(read_rule(DROPSCOPE_RULE_A_L3, 2, true), 0);
}

/* ---- captures ----------------------------------------------------------- */

struct got {
	int n;
	uint32_t caplen[4];
	uint64_t loc[4];
};

static int got_packet(void *arg, const struct ds_packet *pk)
{
	struct got *g = arg;

	if (g->n == 4)
		return -E2BIG;
	g->caplen[g->n] = pk->caplen;
	g->loc[g->n++] = pk->loc;
	return 0;
}

static void put_packet(struct nl_msg *m, uint64_t loc, const char *data,
		       bool with_len)
{
	struct nlattr *n = nla_nest_start(m, DROPSCOPE_A_PACKET);

	nla_put_u64(m, DROPSCOPE_PACKET_A_TSTAMP, 1000);
	nla_put_u64(m, DROPSCOPE_PACKET_A_LOCATION, loc);
	nla_put_u32(m, DROPSCOPE_PACKET_A_REASON, 2);
	if (with_len)
		nla_put_u32(m, DROPSCOPE_PACKET_A_LEN, (uint32_t)strlen(data));
	nla_put(m, DROPSCOPE_PACKET_A_DATA, (int)strlen(data), data);
	nla_nest_end(m, n);
}

static void test_capture_read(void **state)
{
	struct ds_cap_counters k = { 0 };
	struct nl_msg *m = canned_new();
	struct got g = { 0 };
	struct canned c;
	struct nlattr *n;

	(void)state;
	put_packet(m, 0x100, "abcdef", true);
	put_packet(m, 0x200, "xyz", true);
	n = nla_nest_start(m, DROPSCOPE_A_CAPTURE);
	nla_put_u32(m, DROPSCOPE_CAPTURE_A_ID, 7);
	nla_put_u64(m, DROPSCOPE_CAPTURE_A_MATCHED, 3);
	nla_put_u64(m, DROPSCOPE_CAPTURE_A_CAPTURED, 2);
	nla_put_u64(m, DROPSCOPE_CAPTURE_A_LOST_BUFFER, 1);
	nla_put_u64(m, DROPSCOPE_CAPTURE_A_LOST_SOCKET, 0);
	nla_put_u64(m, DROPSCOPE_CAPTURE_A_NO_NETWORK, 0);
	nla_put_flag(m, DROPSCOPE_CAPTURE_A_END);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_capture_read(c.tb, c.attrs, c.len, got_packet, &g, &k), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.caplen[0], 6);
	assert_int_equal(g.loc[1], 0x200);
	assert_int_equal(k.id, 7);
	assert_int_equal(k.matched, 3);
	assert_int_equal(k.lost_buffer, 1);
	assert_true(k.ended);
	nlmsg_free(m);

	/* a packet without its length; counters cut short */
	m = canned_new();
	put_packet(m, 0x100, "abcdef", false);
	canned_parse(&c, m);
	g.n = 0;
	assert_int_equal(ds_capture_read(c.tb, c.attrs, c.len, got_packet, &g, &k), -EINVAL);
	assert_int_equal(g.n, 0);
	nlmsg_free(m);
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_CAPTURE);
	nla_put_u32(m, DROPSCOPE_CAPTURE_A_ID, 7);
	nla_put_u64(m, DROPSCOPE_CAPTURE_A_MATCHED, 3);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_capture_read(c.tb, c.attrs, c.len, got_packet, &g, &k), -EINVAL);
	nlmsg_free(m);
}

/* ---- configuration, statistics, reasons ------------------------------------ */

static void test_config_stats_reasons(void **state)
{
	struct ds_stats_read st;
	struct ds_reasons r = { 0 };
	struct ds_config cfg = { 0 };
	struct nl_msg *m = canned_new();
	struct canned c;
	struct nlattr *n;

	(void)state;
	nla_put_u8(m, DROPSCOPE_A_RUNNING, 1);
	nla_put_u32(m, DROPSCOPE_A_INTERVAL_MS, 250);
	nla_put_u32(m, DROPSCOPE_A_CAPACITY, 4096);
	nla_put_u32(m, DROPSCOPE_A_TOP, 7);
	nla_put_u32(m, DROPSCOPE_A_PARTS, DROPSCOPE_PART_DROPS);
	canned_parse(&c, m);
	assert_int_equal(ds_config_cb(c.tb, c.attrs, c.len, &cfg), 0);
	assert_true(cfg.running);
	assert_int_equal(cfg.interval_ms, 250);
	assert_int_equal(cfg.capacity, 4096);
	assert_int_equal(cfg.top, 7);
	assert_int_equal(cfg.parts, DROPSCOPE_PART_DROPS);
	nlmsg_free(m);
	/* a configuration without its interval */
	m = canned_new();
	nla_put_u8(m, DROPSCOPE_A_RUNNING, 1);
	nla_put_u32(m, DROPSCOPE_A_CAPACITY, 4096);
	canned_parse(&c, m);
	assert_int_equal(ds_config_cb(c.tb, c.attrs, c.len, &cfg), -EINVAL);
	nlmsg_free(m);

	/* statistics: a u64 of the wrong size is not taken */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_STATS);
	nla_put_u64(m, DROPSCOPE_STATS_A_EVENTS, 10);
	nla_put_u64(m, DROPSCOPE_STATS_A_MASKED, 3);
	nla_put_u32(m, DROPSCOPE_STATS_A_SHOWN, 7);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	memset(&st, 0, sizeof(st));
	assert_int_equal(ds_stats_cb(c.tb, c.attrs, c.len, &st), 0);
	assert_true(st.has[DROPSCOPE_STATS_A_EVENTS]);
	assert_int_equal(st.v[DROPSCOPE_STATS_A_EVENTS], 10);
	assert_int_equal(st.v[DROPSCOPE_STATS_A_MASKED], 3);
	assert_false(st.has[DROPSCOPE_STATS_A_SHOWN]);
	nlmsg_free(m);
	m = canned_new();
	canned_parse(&c, m);
	assert_int_equal(ds_stats_cb(c.tb, c.attrs, c.len, &st), -EINVAL);
	nlmsg_free(m);

	/* reasons: appended, one a message; a reason without its name */
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_REASON);
	nla_put_u32(m, DROPSCOPE_REASON_A_ID, 2);
	nla_put_string(m, DROPSCOPE_REASON_A_NAME, "NO_SOCKET");
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_reasons_cb(c.tb, c.attrs, c.len, &r), 0);
	assert_int_equal(ds_reasons_cb(c.tb, c.attrs, c.len, &r), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.v[1].name, "NO_SOCKET");
	nlmsg_free(m);
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_REASON);
	nla_put_u32(m, DROPSCOPE_REASON_A_ID, 3);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_reasons_cb(c.tb, c.attrs, c.len, &r), -EINVAL);
	assert_int_equal(r.n, 2);
	nlmsg_free(m);
	free(r.v);
}

/* ---- SMC ------------------------------------------------------------------ */

static void test_smc_own(void **state)
{
	struct nl_msg *m = canned_new();
	struct ds_smc_own o = { 0 };
	struct canned c;
	struct nlattr *n;

	(void)state;
	n = nla_nest_start(m, DROPSCOPE_A_SMC);
	nla_put_u8(m, DROPSCOPE_SMC_A_HOOKED, 1);
	nla_put_u64(m, DROPSCOPE_SMC_A_FALLBACKS, 5);
	nla_put_u64(m, DROPSCOPE_SMC_A_TX_BYTES, 1000);
	nla_nest_end(m, n);
	n = nla_nest_start(m, DROPSCOPE_A_SMC_FALLBACK);
	nla_put_u32(m, DROPSCOPE_SMC_FB_A_CODE, 0x03010000);
	nla_put_u8(m, DROPSCOPE_SMC_FB_A_SIDE, DROPSCOPE_SMC_CLIENT);
	nla_put_u64(m, DROPSCOPE_SMC_FB_A_TOTAL, 5);
	nla_put_u64(m, DROPSCOPE_SMC_FB_A_MASKED, 1);
	nla_nest_end(m, n);
	n = nla_nest_start(m, DROPSCOPE_A_SMC_DEV);
	nla_put_string(m, DROPSCOPE_SMC_DEV_A_NAME, "rxe0");
	nla_put_u64(m, DROPSCOPE_SMC_DEV_A_RX_BYTES, 300);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	assert_int_equal(ds_smc_own_cb(c.tb, c.attrs, c.len, &o), 0);
	assert_int_equal(o.hooked, 1);
	assert_int_equal(o.v[DROPSCOPE_SMC_A_FALLBACKS], 5);
	assert_int_equal(o.v[DROPSCOPE_SMC_A_TX_BYTES], 1000);
	assert_int_equal(o.fbs.nfb, 1);
	assert_int_equal(o.fbs.fb[0].count, 5);
	assert_int_equal(o.fbs.fb[0].masked, 1);
	assert_false(o.fbs.fb[0].server);
	assert_int_equal(o.ndevs, 1);
	assert_string_equal(o.devs[0].name, "rxe0");
	assert_int_equal(o.devs[0].v[2], 300);
	ds_smc_own_free(&o);
	nlmsg_free(m);

	/* no counters nest; a device without its name; more devices than
	 * the module sends */
	m = canned_new();
	put_site(m, 1, 1, 1, 1);
	canned_parse(&c, m);
	memset(&o, 0, sizeof(o));
	assert_int_equal(ds_smc_own_cb(c.tb, c.attrs, c.len, &o), -EINVAL);
	nlmsg_free(m);
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SMC);
	nla_put_u8(m, DROPSCOPE_SMC_A_HOOKED, 1);
	nla_nest_end(m, n);
	n = nla_nest_start(m, DROPSCOPE_A_SMC_DEV);
	nla_put_u64(m, DROPSCOPE_SMC_DEV_A_RX_BYTES, 300);
	nla_nest_end(m, n);
	canned_parse(&c, m);
	memset(&o, 0, sizeof(o));
	assert_int_equal(ds_smc_own_cb(c.tb, c.attrs, c.len, &o), -EINVAL);
	ds_smc_own_free(&o);
	nlmsg_free(m);
	m = canned_new();
	n = nla_nest_start(m, DROPSCOPE_A_SMC);
	nla_put_u8(m, DROPSCOPE_SMC_A_HOOKED, 1);
	nla_nest_end(m, n);
	for (int i = 0; i < 17; i++) {
		n = nla_nest_start(m, DROPSCOPE_A_SMC_DEV);
		nla_put_string(m, DROPSCOPE_SMC_DEV_A_NAME, "rxe");
		nla_nest_end(m, n);
	}
	canned_parse(&c, m);
	memset(&o, 0, sizeof(o));
	assert_int_equal(ds_smc_own_cb(c.tb, c.attrs, c.len, &o), -EINVAL);
	assert_int_equal(o.ndevs, 16);
	ds_smc_own_free(&o);
	nlmsg_free(m);
}

/* A message of smc.ko's family: the genetlink header, then attrs. */
static struct nl_msg *smc_msg(void)
{
	struct nl_msg *m = canned_new();

	assert_non_null(genlmsg_put(m, 0, 0, 30, 0, 0, 1, 1));
	return m;
}

static void test_smc_kernel(void **state)
{
	struct ds_smc_stats st;
	struct nl_msg *m = smc_msg();
	struct nlattr *n, *t;

	(void)state;
	memset(&st, 0, sizeof(st));
	n = nla_nest_start(m, SMC_GEN_STATS);
	t = nla_nest_start(m, SMC_NLA_STATS_SMCR_TECH);
	nla_put_u64(m, SMC_NLA_STATS_T_TX_BYTES, 4096);
	nla_nest_end(m, t);
	nla_put_u64(m, SMC_NLA_STATS_SRV_HS_ERR_CNT, 2);
	nla_nest_end(m, n);
	assert_int_equal(ds_smc_stats_cb(m, &st), NL_OK);
	assert_true(st.got);
	assert_int_equal(st.tech[0].v[SMC_NLA_STATS_T_TX_BYTES], 4096);
	assert_int_equal(st.hs_err[1], 2);
	nlmsg_free(m);
	/* a message without the stats: skipped, nothing taken */
	m = smc_msg();
	memset(&st, 0, sizeof(st));
	assert_int_equal(ds_smc_stats_cb(m, &st), NL_SKIP);
	assert_false(st.got);
	nlmsg_free(m);

	m = smc_msg();
	n = nla_nest_start(m, SMC_GEN_FBACK_STATS);
	nla_put_u8(m, SMC_NLA_FBACK_STATS_TYPE, 1);
	nla_put_u32(m, SMC_NLA_FBACK_STATS_RSN_CODE, 0x03030000);
	nla_put_u16(m, SMC_NLA_FBACK_STATS_RSN_CNT, 9);
	nla_put_u64(m, SMC_NLA_FBACK_STATS_SRV_CNT, 9);
	nla_nest_end(m, n);
	assert_int_equal(ds_smc_fback_cb(m, &st), NL_OK);
	assert_int_equal(st.nfb, 1);
	assert_true(st.fb[0].server);
	assert_int_equal(st.fb[0].count, 9);
	assert_int_equal(st.fback[1], 9);
	assert_string_equal(ds_smc_reason_name(st.fb[0].code),
			    "no SMC device found (R or D)");
	nlmsg_free(m);
	/* a reason without its code */
	m = smc_msg();
	n = nla_nest_start(m, SMC_GEN_FBACK_STATS);
	nla_put_u8(m, SMC_NLA_FBACK_STATS_TYPE, 1);
	nla_nest_end(m, n);
	assert_int_equal(ds_smc_fback_cb(m, &st), NL_SKIP);
	assert_int_equal(st.nfb, 1);
	nlmsg_free(m);
	free(st.fb);
}

/* An attribute of a sock_diag message, at its end. */
static void diag_put(struct nlmsghdr *h, unsigned short type, const void *v,
		     size_t n)
{
	struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(n);
	memcpy(RTA_DATA(a), v, n);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* smcss -d and -R: a connection's buffers and link; a short one ignored */
static void test_smc_diag_detail(struct ds_smc_socks *out)
{
	uint64_t buf[128] = { 0 };
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct smc_diag_msg *r = NLMSG_DATA(h);
	struct smc_diag_conninfo c = { 0 };
	struct smc_diag_lgrinfo l;
	uint8_t shut = 2, dmb[8] = { 0 };

	h->nlmsg_len = NLMSG_LENGTH(sizeof(*r));
	r->diag_state = 1;
	c.sndbuf_size = 65536;
	c.rmbe_size = 32768;
	diag_put(h, SMC_DIAG_CONNINFO, &c, sizeof(c));
	memset(&l, 0, sizeof(l));
	l.role = 1;
	l.lnk[0].link_id = 2;
	l.lnk[0].ibport = 1;
	/* a name that fills its field, without a NUL */
	memset(l.lnk[0].ibname, 'x', sizeof(l.lnk[0].ibname));
	memcpy(l.lnk[0].gid, "fe80::1", 8);
	diag_put(h, SMC_DIAG_LGRINFO, &l, sizeof(l));
	diag_put(h, SMC_DIAG_SHUTDOWN, &shut, 1);
	/* DMB info cut short */
	diag_put(h, SMC_DIAG_DMBINFO, dmb, sizeof(dmb));
	assert_true(h->nlmsg_len <= sizeof(buf));
	assert_int_equal(ds_smc_diag_msg(h, out), 0);
	assert_int_equal(out->n, 1);
	assert_true(out->v[0].has_conn);
	assert_int_equal(out->v[0].sndbuf, 65536);
	assert_int_equal(out->v[0].rmb, 32768);
	assert_true(out->v[0].has_link);
	assert_int_equal(out->v[0].link_id, 2);
	assert_int_equal(strlen(out->v[0].ibdev), sizeof(out->v[0].ibdev) - 1);
	assert_string_equal(out->v[0].gid, "fe80::1");
	assert_int_equal(out->v[0].shutdown, 2);
	assert_false(out->v[0].has_dmb);
}

static void test_smc_diag(void **state)
{
	struct {
		struct nlmsghdr h;
		struct smc_diag_msg r;
		struct rtattr a;
		struct smc_diag_fallback fb;
	} msg;
	struct ds_smc_socks out = { 0 };

	(void)state;
	memset(&msg, 0, sizeof(msg));
	msg.h.nlmsg_len = sizeof(msg);
	msg.r.diag_state = 1;
	msg.r.id.idiag_sport = htons(5000);
	msg.r.id.idiag_dport = htons(40000);
	msg.r.id.idiag_src[0] = htonl(0x7f000001);
	msg.r.id.idiag_dst[0] = htonl(0x7f000001);
	msg.a.rta_type = SMC_DIAG_FALLBACK;
	msg.a.rta_len = RTA_LENGTH(sizeof(msg.fb));
	msg.fb.reason = 0x03010000;
	assert_int_equal(ds_smc_diag_msg(&msg.h, &out), 0);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.v[0].laddr, "127.0.0.1:5000");
	assert_string_equal(out.v[0].raddr, "127.0.0.1:40000");
	assert_true(out.v[0].has_reason);
	assert_int_equal(out.v[0].reason, 0x03010000);
	assert_string_equal(ds_smc_state_name(out.v[0].state), "ACTIVE");
	/* cut short of its header: refused, nothing added */
	msg.h.nlmsg_len = NLMSG_LENGTH(sizeof(msg.r) - 1);
	assert_int_equal(ds_smc_diag_msg(&msg.h, &out), -EINVAL);
	assert_int_equal(out.n, 1);
	free(out.v);
	memset(&out, 0, sizeof(out));
	test_smc_diag_detail(&out);
	free(out.v);
}

/* A link group of smc.ko's GET_LINK_SMCR dump, with its V2 nest. */
static struct nl_msg *smc_lgr_msg(uint32_t id, uint32_t conns)
{
	struct nl_msg *m = smc_msg();
	struct nlattr *n, *v;

	n = nla_nest_start(m, SMC_GEN_LGR_SMCR);
	nla_put_u32(m, SMC_NLA_LGR_R_ID, id);
	nla_put_u32(m, SMC_NLA_LGR_R_CONNS_NUM, conns);
	nla_put_u8(m, SMC_NLA_LGR_R_ROLE, 1);
	nla_put_u8(m, SMC_NLA_LGR_R_TYPE, 2);
	nla_put_string(m, SMC_NLA_LGR_R_PNETID, "NET1            ");
	/* 6.12's pools: a "uint", 4 bytes here, 8 there */
	nla_put_u32(m, DS_SMC_LGR_R_SNDBUF_ALLOC, 65536);
	nla_put_u64(m, DS_SMC_LGR_R_RMB_ALLOC, 1ULL << 33);
	v = nla_nest_start(m, SMC_NLA_LGR_R_V2_COMMON);
	nla_put_u8(m, SMC_NLA_LGR_V2_VER, 2);	/* attribute type 0 */
	nla_put_u8(m, SMC_NLA_LGR_V2_OS, 2);
	nla_put_string(m, SMC_NLA_LGR_V2_NEG_EID, "DROPSCOPE-LAB");
	nla_nest_end(m, v);
	v = nla_nest_start(m, SMC_NLA_LGR_R_V2);
	nla_put_u8(m, SMC_NLA_LGR_R_V2_DIRECT, 1);
	nla_nest_end(m, v);
	nla_nest_end(m, n);
	return m;
}

static struct nl_msg *smc_link_msg(uint8_t id)
{
	struct nl_msg *m = smc_msg();
	struct nlattr *n;

	n = nla_nest_start(m, SMC_GEN_LINK_SMCR);
	nla_put_u8(m, SMC_NLA_LINK_ID, id);
	nla_put_string(m, SMC_NLA_LINK_IB_DEV, "rxe0");
	nla_put_u8(m, SMC_NLA_LINK_IB_PORT, 1);
	nla_put_u32(m, SMC_NLA_LINK_CONN_CNT, 3);
	nla_put_u32(m, SMC_NLA_LINK_NET_DEV, 1);
	nla_put_u32(m, SMC_NLA_LINK_UID, htonl(0x101));
	nla_put_u32(m, SMC_NLA_LINK_STATE, 3);
	nla_put_string(m, SMC_NLA_LINK_GID, "fe80:0000:0000:0000:0000:0000:0000:0001");
	nla_nest_end(m, n);
	return m;
}

static void test_smc_lgrs(void **state)
{
	struct ds_smc_lgrs g = { 0 };
	struct nl_msg *m;
	struct nlattr *n;
	int i;

	(void)state;
	/* a link before any group: whose is it? skipped */
	m = smc_link_msg(1);
	assert_int_equal(ds_smc_lgr_cb(m, &g), NL_SKIP);
	nlmsg_free(m);
	assert_int_equal(g.n, 0);

	m = smc_lgr_msg(0x100, 3);
	assert_int_equal(ds_smc_lgr_cb(m, &g), NL_OK);
	nlmsg_free(m);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.v[0].id, 0x100);
	assert_int_equal(g.v[0].conns, 3);
	assert_string_equal(ds_smc_lgr_role_name(g.v[0].role), "SERV");
	assert_string_equal(ds_smc_lgr_type_name(g.v[0].type), "SYM");
	assert_string_equal(g.v[0].pnetid, "NET1");
	assert_true(g.v[0].has_alloc);
	assert_int_equal(g.v[0].sndbuf_alloc, 65536);
	assert_int_equal(g.v[0].rmb_alloc, 1ULL << 33);
	assert_true(g.v[0].v2);
	assert_int_equal(g.v[0].version, 2);
	assert_int_equal(g.v[0].os, 2);
	assert_string_equal(g.v[0].eid, "DROPSCOPE-LAB");
	assert_true(g.v[0].has_direct);
	assert_int_equal(g.v[0].direct, 1);
	/* its links: three kept, a fourth counted */
	for (i = 1; i <= 4; i++) {
		m = smc_link_msg(i);
		assert_int_equal(ds_smc_lgr_cb(m, &g), i <= 3 ? NL_OK : NL_SKIP);
		nlmsg_free(m);
	}
	assert_int_equal(g.v[0].nlinks, 3);
	assert_int_equal(g.v[0].links_dropped, 1);
	assert_int_equal(g.v[0].links[2].id, 3);
	assert_string_equal(g.v[0].links[0].ibdev, "rxe0");
	assert_int_equal(g.v[0].links[0].uid, 0x101);
	assert_int_equal(g.v[0].links[0].ifindex, 1);
	assert_string_equal(ds_smc_link_state_name(g.v[0].links[0].state),
			    "ACTIVE");

	/* hostile: a group without its id, a u32 cut to a byte, a string
	 * without its NUL: each skipped, nothing added */
	for (i = 0; i < 3; i++) {
		m = smc_msg();
		n = nla_nest_start(m, SMC_GEN_LGR_SMCR);
		if (i == 0)
			nla_put_u32(m, SMC_NLA_LGR_R_CONNS_NUM, 1);
		else if (i == 1)
			nla_put_u8(m, SMC_NLA_LGR_R_ID, 1);
		else
			nla_put_u32(m, SMC_NLA_LGR_R_ID, 2);
		if (i == 2)
			nla_put(m, SMC_NLA_LGR_R_PNETID, 4, "NET1");
		nla_nest_end(m, n);
		assert_int_equal(ds_smc_lgr_cb(m, &g), NL_SKIP);
		nlmsg_free(m);
	}
	assert_int_equal(g.n, 1);

	/* SMC-D: its own group; a link after it is not its */
	m = smc_msg();
	n = nla_nest_start(m, SMC_GEN_LGR_SMCD);
	nla_put_u32(m, SMC_NLA_LGR_D_ID, 0x200);
	nla_put_u32(m, SMC_NLA_LGR_D_CONNS_NUM, 2);
	nla_put_u64(m, SMC_NLA_LGR_D_GID, 0x1234);
	nla_put_u32(m, SMC_NLA_LGR_D_CHID, 0x0302);	/* u32 on the wire */
	nla_nest_end(m, n);
	assert_int_equal(ds_smc_lgr_cb(m, &g), NL_OK);
	nlmsg_free(m);
	m = smc_link_msg(1);
	assert_int_equal(ds_smc_lgr_cb(m, &g), NL_SKIP);
	nlmsg_free(m);
	assert_int_equal(g.n, 2);
	assert_true(g.v[1].smcd);
	assert_int_equal(g.v[1].conns, 2);
	assert_int_equal(g.v[1].gid, 0x1234);
	assert_int_equal(g.v[1].chid, 0x0302);
	assert_false(g.v[1].has_alloc);
	assert_int_equal(g.v[1].nlinks, 0);
	free(g.v);
}

/* A message of one of smc.ko's commands: attribute 1 means each's own */
static struct nl_msg *smc_cmd_msg(uint8_t cmd)
{
	struct nl_msg *m = canned_new();

	assert_non_null(genlmsg_put(m, 0, 0, 30, 0, 0, cmd, 1));
	return m;
}

static void test_smc_sys(void **state)
{
	struct ds_smc_sys y = { 0 };
	struct nl_msg *m = smc_cmd_msg(SMC_NETLINK_GET_SYS_INFO);
	struct nlattr *n;

	(void)state;
	n = nla_nest_start(m, SMC_GEN_SYS_INFO);
	nla_put_u8(m, SMC_NLA_SYS_VER, 2);
	nla_put_u8(m, SMC_NLA_SYS_REL, 1);
	nla_put_u8(m, SMC_NLA_SYS_IS_SMCR_V2, 1);
	nla_put_string(m, SMC_NLA_SYS_LOCAL_HOST, "lab     ");
	nla_nest_end(m, n);
	assert_int_equal(ds_smc_sys_cb(m, &y), NL_OK);
	nlmsg_free(m);
	assert_true(y.got);
	assert_int_equal(y.version, 2);
	assert_int_equal(y.release, 1);
	assert_int_equal(y.smcr_v2, 1);
	assert_string_equal(y.host, "lab");
	/* user EIDs: five, of which four fit; the same attribute number */
	for (int i = 0; i < 5; i++) {
		m = smc_cmd_msg(SMC_NETLINK_DUMP_UEID);
		nla_put_string(m, SMC_NLA_EID_TABLE_ENTRY, "DROPSCOPE-LAB  ");
		assert_int_equal(ds_smc_sys_cb(m, &y), i < 4 ? NL_OK : NL_SKIP);
		nlmsg_free(m);
	}
	assert_int_equal(y.nueids, 4);
	assert_string_equal(y.ueids[3], "DROPSCOPE-LAB");
	/* no ISM v2: an empty SEID message */
	m = smc_cmd_msg(SMC_NETLINK_DUMP_SEID);
	assert_int_equal(ds_smc_sys_cb(m, &y), NL_OK);
	nlmsg_free(m);
	assert_false(y.has_seid);
	m = smc_cmd_msg(SMC_NETLINK_DUMP_HS_LIMITATION);
	nla_put_u8(m, SMC_NLA_HS_LIMITATION_ENABLED, 1);
	assert_int_equal(ds_smc_sys_cb(m, &y), NL_OK);
	nlmsg_free(m);
	assert_true(y.has_hs_limit);
	assert_int_equal(y.hs_limit, 1);
	/* SYS_INFO without its nest, an unknown command: skipped */
	m = smc_cmd_msg(SMC_NETLINK_GET_SYS_INFO);
	nla_put_u8(m, SMC_GEN_SYS_INFO, 2);
	assert_int_equal(ds_smc_sys_cb(m, &y), NL_SKIP);
	nlmsg_free(m);
	m = smc_cmd_msg(200);
	nla_put_u8(m, 1, 2);
	assert_int_equal(ds_smc_sys_cb(m, &y), NL_SKIP);
	nlmsg_free(m);
}

static void test_smc_devices(void **state)
{
	struct ds_smc_devices d = { 0 };
	struct nl_msg *m = smc_msg();
	struct nlattr *n, *p;

	(void)state;
	/* rxe on lo: no PCI, one port */
	n = nla_nest_start(m, SMC_GEN_DEV_SMCR);
	nla_put_u8(m, SMC_NLA_DEV_IS_CRIT, 0);
	nla_put_string(m, SMC_NLA_DEV_IB_NAME, "rxe0");
	p = nla_nest_start(m, SMC_NLA_DEV_PORT);
	nla_put_u8(m, SMC_NLA_DEV_PORT_PNET_USR, 0);
	nla_put_string(m, SMC_NLA_DEV_PORT_PNETID, "");
	nla_put_u32(m, SMC_NLA_DEV_PORT_NETDEV, 1);
	nla_put_u8(m, SMC_NLA_DEV_PORT_VALID, 1);
	nla_put_u8(m, SMC_NLA_DEV_PORT_STATE, 1);
	nla_put_u32(m, SMC_NLA_DEV_PORT_LNK_CNT, 2);
	nla_nest_end(m, p);
	nla_nest_end(m, n);
	assert_int_equal(ds_smc_device_cb(m, &d), NL_OK);
	nlmsg_free(m);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.v[0].name, "rxe0");
	assert_false(d.v[0].smcd);
	assert_false(d.v[0].has_pci);
	assert_true(d.v[0].port[0].present);
	assert_true(d.v[0].port[0].active);
	assert_int_equal(d.v[0].port[0].ifindex, 1);
	assert_int_equal(d.v[0].port[0].links, 2);
	assert_false(d.v[0].port[1].present);
	/* an RDMA device without its name, a port with a short link count */
	m = smc_msg();
	n = nla_nest_start(m, SMC_GEN_DEV_SMCR);
	nla_put_u8(m, SMC_NLA_DEV_IS_CRIT, 1);
	nla_nest_end(m, n);
	assert_int_equal(ds_smc_device_cb(m, &d), NL_SKIP);
	nlmsg_free(m);
	m = smc_msg();
	n = nla_nest_start(m, SMC_GEN_DEV_SMCR);
	nla_put_string(m, SMC_NLA_DEV_IB_NAME, "mlx5_0");
	p = nla_nest_start(m, SMC_NLA_DEV_PORT);
	nla_put_u8(m, SMC_NLA_DEV_PORT_LNK_CNT, 2);
	nla_nest_end(m, p);
	nla_nest_end(m, n);
	assert_int_equal(ds_smc_device_cb(m, &d), NL_OK);
	nlmsg_free(m);
	assert_int_equal(d.n, 2);
	assert_false(d.v[1].port[0].present);
	free(d.v);
}

/* ---- records and rule files -------------------------------------------- */

static void test_rule_words_back(void **state)
{
	static const char *const lines[] = {
		"site tcp_v4_rcv reason NO_SOCKET l4 udp",
		"site tcp_v4_rcv+0x10 l3 ipv6",
		"smc 0x03010000",
		"dev 3 netns 4026531840",
		"trap ttl_value_is_too_small",
		"group l2_drops layer hw",
		"counter rx_missed_errors",
		"layer dev netns 4026531840",
	};
	static const char *const want[] = {
		"mask site tcp_v4_rcv reason NO_SOCKET l4 udp",
		"mask site tcp_v4_rcv+0x10 l3 ipv6",
		"mask smc 0x03010000",
		NULL,	/* a device by name where there is one: not fixed */
		"mask trap ttl_value_is_too_small",
		"mask layer hw group l2_drops",
		"mask counter rx_missed_errors",
		"mask netns 4026531840 layer dev",
	};
	struct ds_rule r, back;
	struct ds_ctx ctx;
	char words[256], *argv[16], buf[256];
	size_t i;
	int argc;

	(void)state;
	rule_ctx(&ctx);
	for (i = 0; i < DS_N(lines); i++) {
		assert_int_equal(rule_words(&ctx, &r, lines[i]), 0);
		assert_int_equal(ds_rule_words(&ctx, &r, words, sizeof(words)), 0);
		if (want[i])
			assert_string_equal(words, want[i]);
		/* the words give the same rule back */
		snprintf(buf, sizeof(buf), "%s", words + strlen("mask "));
		argc = ds_split(buf, argv, 16);
		assert_int_equal(ds_rule_parse(&ctx, argc, argv, &back), 0);
		assert_memory_equal(&back, &r, sizeof(r));
	}
	ds_syms_free(ctx.syms);
}

static void test_record_file(void **state)
{
	struct ds_record r = { 0 }, back;
	struct ds_rec_site *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	snprintf(r.kernel, sizeof(r.kernel), "6.12.117+deb12-amd64");
	snprintf(r.build, sizeof(r.build), "#1 SMP PREEMPT_DYNAMIC Debian 6.12.117-1");
	snprintf(r.build_id, sizeof(r.build_id), "2f8e00");
	snprintf(r.time, sizeof(r.time), "2026-12-02T12:00:00Z");
	r.has_stats = true;
	r.events = 120;
	r.shown = 100;
	r.masked = 20;
	r.sites = calloc(2, sizeof(*r.sites));
	r.n = r.cap = 2;
	s = &r.sites[0];
	snprintf(s->reason, sizeof(s->reason), "NO_SOCKET");
	snprintf(s->symbol, sizeof(s->symbol), "__udp4_lib_rcv+0x545/0xdd0");
	s->count = 100;
	s = &r.sites[1];
	snprintf(s->reason, sizeof(s->reason), "NETFILTER_DROP");
	snprintf(s->symbol, sizeof(s->symbol), "nft_do_chain+0x3c/0xb0 [nf_tables]");
	snprintf(s->fields, sizeof(s->fields), "dev lo l4 udp");
	s->masked = 20;
	r.rules = calloc(1, sizeof(*r.rules));
	r.rules[0] = strdup("mask reason NETFILTER_DROP");
	r.nrules = r.caprules = 1;

	f = open_memstream(&buf, &len);
	assert_int_equal(ds_record_write(f, &r), 0);
	fclose(f);
	f = fmemopen(buf, len, "r");
	assert_int_equal(ds_record_read(f, "r.rec", &back), 0);
	fclose(f);
	assert_string_equal(back.kernel, r.kernel);
	assert_string_equal(back.build, r.build);
	assert_string_equal(back.build_id, r.build_id);
	assert_string_equal(back.time, r.time);
	assert_int_equal(back.masked, 20);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.sites[1].symbol, r.sites[1].symbol);
	assert_string_equal(back.sites[1].fields, "dev lo l4 udp");
	assert_int_equal(back.sites[1].masked, 20);
	assert_int_equal(back.sites[0].count, 100);
	assert_int_equal(back.nrules, 1);
	assert_string_equal(back.rules[0], "mask reason NETFILTER_DROP");
	ds_record_free(&back);
	ds_record_free(&r);
	free(buf);
}

static void test_record_bad(void **state)
{
	static const char *const bad[] = {
		"",					/* empty */
		"kernel x\n",				/* no format first */
		"format 2\n",				/* a later format */
		"format 1\nsite NO_SOCKET x 0 f\n",	/* a count not a number */
		"format 1\nsite NO_SOCKET 1 0\n",	/* no symbol */
		"format 1\nsite NO_SOCKET 1 0 f port 80\n",
		"format 1\nkernel 'x\n",		/* an unclosed quote */
		"format 1\nstats events\n",
		"format 1\nstats bogus 1\n",
		"format 1\nrule del 3\n",
		"format 1\ncolour red\n",
	};
	struct ds_record r;
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < DS_N(bad); i++) {
		print_message("bad record %zu\n", i);
		f = fmemopen((void *)bad[i], strlen(bad[i]) ? strlen(bad[i]) : 1, "r");
		assert_int_equal(ds_record_read(f, "bad.rec", &r), DS_EUSAGE);
		assert_null(r.sites);
		fclose(f);
	}
}

/* A record of sites "REASON COUNT SYMBOL", one a word triple. */
static void record_of(struct ds_record *r, const char *build,
		      const char *const *sites, size_t n)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	snprintf(r->kernel, sizeof(r->kernel), "6.12");
	snprintf(r->build, sizeof(r->build), "%s", build);
	r->sites = calloc(n, sizeof(*r->sites));
	r->n = r->cap = n;
	for (i = 0; i < n; i++)
		assert_int_equal(sscanf(sites[i], "%63s %" SCNu64 " %159s",
					r->sites[i].reason, &r->sites[i].count,
					r->sites[i].symbol), 3);
}

static void test_record_diff(void **state)
{
	static const char *const a_sites[] = {
		"NO_SOCKET 10 __udp4_lib_rcv+0x545/0xdd0",
		"NO_SOCKET 5 tcp_v4_rcv+0x1a4/0xf30",
		"QDISC_DROP 7 __dev_queue_xmit+0x20/0x900",
	};
	static const char *const b_sites[] = {
		"NO_SOCKET 10 __udp4_lib_rcv+0x545/0xdd0",
		"NO_SOCKET 8 tcp_v4_rcv+0x1a4/0xf30",
		"NETFILTER_DROP 3 nft_do_chain+0x3c/0xb0",
	};
	static const char *const c_sites[] = {	/* another build */
		"NO_SOCKET 4 __udp4_lib_rcv+0x551/0xde0",
		"NO_SOCKET 6 __udp4_lib_rcv+0x3a0/0xde0",
	};
	struct ds_record a, b, c;
	struct ds_rec_diff d;

	(void)state;
	record_of(&a, "#1", a_sites, DS_N(a_sites));
	record_of(&b, "#1", b_sites, DS_N(b_sites));
	record_of(&c, "#2", c_sites, DS_N(c_sites));
	assert_int_equal(ds_record_diff(&a, &b, &d), 0);
	assert_true(d.same_build);
	assert_int_equal(d.count[DS_REC_NEW], 1);
	assert_int_equal(d.count[DS_REC_GONE], 1);
	assert_int_equal(d.count[DS_REC_CHANGED], 1);
	assert_int_equal(d.count[DS_REC_SAME], 1);
	assert_int_equal(d.n, 3);
	/* B's order, then what only A had */
	assert_int_equal(d.v[0].kind, DS_REC_CHANGED);
	assert_int_equal(d.v[0].a, 5);
	assert_int_equal(d.v[0].b, 8);
	assert_int_equal(d.v[1].kind, DS_REC_NEW);
	assert_string_equal(d.v[1].site.reason, "NETFILTER_DROP");
	assert_int_equal(d.v[2].kind, DS_REC_GONE);
	assert_int_equal(d.v[2].a, 7);
	ds_rec_diff_free(&d);
	/* a record against itself: nothing */
	assert_int_equal(ds_record_diff(&b, &b, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(d.count[DS_REC_SAME], 3);
	ds_rec_diff_free(&d);
	/* across builds, by function: two sites of one function are one */
	assert_int_equal(ds_record_diff(&a, &c, &d), 0);
	assert_false(d.same_build);
	assert_true(d.by_function);
	assert_int_equal(d.count[DS_REC_SAME], 1);
	assert_int_equal(d.count[DS_REC_GONE], 2);
	assert_string_equal(d.v[0].site.symbol, "tcp_v4_rcv");
	ds_rec_diff_free(&d);
	ds_record_free(&a);
	ds_record_free(&b);
	ds_record_free(&c);
}

/* ---- Prometheus text ------------------------------------------------------ */

/* One read of made-up totals: the epoch, overflow and sites, two sites. */
static void metrics_read(struct ds_metrics *m, uint64_t epoch,
			 uint64_t overflow, uint64_t sites, uint64_t a,
			 uint64_t b)
{
	uint64_t v[DROPSCOPE_STATS_A_MAX + 1] = { 0 };
	struct ds_site s[2] = {
		{ .total = a, .masked = 1, .reason_name = "NO_SOCKET",
		  .symbol = "__udp4_lib_rcv+0x10/0x20" },
		{ .total = b, .reason_name = "A\"B", .symbol = "x\\y" },
	};
	struct ds_sites all = { .v = s, .n = 2 };

	v[DROPSCOPE_STATS_A_OVERFLOW] = overflow;
	v[DROPSCOPE_STATS_A_SITES] = sites;
	m->up = true;
	m->reads++;
	ds_metrics_epoch(m, epoch);
	ds_metrics_stats(m, v);
	ds_metrics_sites(m, &all);
	ds_metrics_finish(m);
}

/* The line of the text that starts with what, or "". */
static const char *metrics_line(const char *text, const char *what,
				char *buf, size_t len)
{
	const char *p;

	buf[0] = '\0';
	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, what, strlen(what))) {
			snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
			break;
		}
	}
	return buf;
}

static void test_metrics_text(void **state)
{
	struct ds_metrics m = { .max_sites = 1 };
	char *text, buf[256];
	size_t len;

	(void)state;
	metrics_read(&m, 5, 2, 9, 10, 4);
	text = ds_metrics_text(&m, &len);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	/* a family: its HELP and TYPE once, then its series */
	assert_non_null(strstr(text, "# HELP dropscope_drops_total "));
	assert_non_null(strstr(text, "# TYPE dropscope_drops_total counter\n"));
	assert_non_null(strstr(text, "# TYPE dropscope_sites gauge\n"));
	/* the first site has its label; the next is "other"; labels escaped;
	 * drops count the masked ones too */
	assert_string_equal(metrics_line(text, "dropscope_drops_total{reason=\"NO_SOCKET\"", buf, sizeof(buf)),
			    "dropscope_drops_total{reason=\"NO_SOCKET\",site=\"__udp4_lib_rcv+0x10/0x20\"} 11");
	assert_string_equal(metrics_line(text, "dropscope_drops_total{reason=\"A", buf, sizeof(buf)),
			    "dropscope_drops_total{reason=\"A\\\"B\",site=\"other\"} 4");
	assert_string_equal(metrics_line(text, "dropscope_drops_unsited_total{cause=\"table_full\"}", buf, sizeof(buf)),
			    "dropscope_drops_unsited_total{cause=\"table_full\"} 2");
	assert_string_equal(metrics_line(text, "dropscope_up ", buf, sizeof(buf)),
			    "dropscope_up 1");
	assert_string_equal(metrics_line(text, "dropscope_exporter_site_labels_limit ", buf, sizeof(buf)),
			    "dropscope_exporter_site_labels_limit 1");
	free(text);

	/* the same epoch, more drops; then a new epoch from zero: counters
	 * go on from where they were, gauges take the new value */
	metrics_read(&m, 5, 3, 9, 20, 4);
	metrics_read(&m, 6, 1, 2, 5, 0);
	text = ds_metrics_text(&m, &len);
	assert_non_null(text);
	assert_string_equal(metrics_line(text, "dropscope_drops_total{reason=\"NO_SOCKET\"", buf, sizeof(buf)),
			    "dropscope_drops_total{reason=\"NO_SOCKET\",site=\"__udp4_lib_rcv+0x10/0x20\"} 27");
	assert_string_equal(metrics_line(text, "dropscope_drops_unsited_total{cause=\"table_full\"}", buf, sizeof(buf)),
			    "dropscope_drops_unsited_total{cause=\"table_full\"} 4");
	assert_string_equal(metrics_line(text, "dropscope_sites ", buf, sizeof(buf)),
			    "dropscope_sites 2");
	assert_string_equal(metrics_line(text, "dropscope_exporter_epochs_total ", buf, sizeof(buf)),
			    "dropscope_exporter_epochs_total 1");
	free(text);
	ds_metrics_free(&m);
}

/* ---- pcapng --------------------------------------------------------------- */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The table's decimals, without printf: each as snprintf() writes it. */
static void test_print_dec(void **state)
{
	static const uint64_t v[] = {
		0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535, 99999,
		4294967295ULL, 4294967296ULL, 9999999999999999999ULL,
		10000000000000000000ULL, UINT64_MAX,
	};
	const size_t nv = sizeof(v) / sizeof(v[0]);
	char want[32], buf[24], fwd[32];
	uint64_t x, p10 = 1;
	size_t i, n;

	(void)state;
	for (i = 0; i < nv + 2 * 20 + 100000; i++) {
		if (i < nv) {
			x = v[i];
		} else if (i < nv + 2 * 20) {
			/* each power of ten and the number before it */
			x = (i - nv) % 2 ? p10 : p10 - 1;
			if ((i - nv) % 2)
				p10 *= 10;
		} else {
			x = i * 7919;
		}
		snprintf(want, sizeof(want), "%" PRIu64, x);
		assert_string_equal(ds_print_dec(buf, x), want);
		memset(fwd, 'x', sizeof(fwd));
		n = ds_print_udec(fwd, x);
		assert_int_equal(n, strlen(want));
		assert_memory_equal(fwd, want, n);
		assert_int_equal(fwd[n], 'x');	/* no byte past its digits */
	}
}

static void test_pcapng_blocks(void **state)
{
	static const unsigned char pkt[] = { 0x45, 0, 0, 20, 1, 2, 3 };
	unsigned char *buf = NULL;
	struct ds_pcapng *w;
	size_t len = 0, off = 0, blocks = 0;
	uint32_t types[8];
	FILE *f;

	(void)state;
	f = open_memstream((char **)&buf, &len);
	assert_non_null(f);
	w = ds_pcapng_open(f, 96);
	assert_non_null(w);
	assert_int_equal(ds_pcapng_write(w, 1500000000123ULL, 1, 0x0800, pkt,
					 sizeof(pkt), 60, "reason X"), 0);
	assert_int_equal(ds_pcapng_close(w), 0);
	/* every block: a type, a length that is a multiple of 4, and the
	 * same length again at its end */
	while (off + 12 <= len && blocks < DS_N(types)) {
		uint32_t bl = le32(buf + off + 4);

		assert_int_equal(bl % 4, 0);
		assert_true(off + bl <= len);
		assert_int_equal(le32(buf + off + bl - 4), bl);
		types[blocks++] = le32(buf + off);
		off += bl;
	}
	assert_int_equal(off, len);
	/* section header, then interface descriptions, then the packet */
	assert_int_equal(types[0], 0x0a0d0d0a);
	assert_int_equal(types[blocks - 1], 6);
	assert_int_equal(le32(buf + 8), 0x1a2b3c4d);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_site_read),
		cmocka_unit_test(test_layer_read),
		cmocka_unit_test(test_session_read),
		cmocka_unit_test(test_alert_read),
		cmocka_unit_test(test_rule_words),
		cmocka_unit_test(test_rule_wire),
		cmocka_unit_test(test_capture_read),
		cmocka_unit_test(test_config_stats_reasons),
		cmocka_unit_test(test_smc_own),
		cmocka_unit_test(test_smc_kernel),
		cmocka_unit_test(test_smc_diag),
		cmocka_unit_test(test_smc_lgrs),
		cmocka_unit_test(test_smc_devices),
		cmocka_unit_test(test_smc_sys),
		cmocka_unit_test(test_metrics_text),
		cmocka_unit_test(test_rule_words_back),
		cmocka_unit_test(test_record_file),
		cmocka_unit_test(test_record_bad),
		cmocka_unit_test(test_record_diff),
		cmocka_unit_test(test_pcapng_blocks),
		cmocka_unit_test(test_print_dec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
