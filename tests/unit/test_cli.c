// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the CLI's parsing, command table, completion and JSON
 * output. They run on the host, without the module.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <netlink/attr.h>

#include "dropscope.h"

static void test_parse_u64(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(ds_parse_u64("42", 1, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(ds_parse_u64("0", 1, 100, &v), -ERANGE);
	assert_int_equal(ds_parse_u64("101", 1, 100, &v), -ERANGE);
	assert_int_equal(ds_parse_u64("-1", 0, 100, &v), -EINVAL);
	assert_int_equal(ds_parse_u64("12x", 0, 100, &v), -EINVAL);
	assert_int_equal(ds_parse_u64("", 0, 100, &v), -EINVAL);
	assert_int_equal(ds_parse_u64("99999999999999999999", 0, UINT64_MAX, &v),
			 -EINVAL);
	assert_int_equal(v, 42);
}

static void test_parse_duration(void **state)
{
	static const struct {
		const char *s;
		int err;
		uint64_t ms;
	} cases[] = {
		{ "250ms", 0, 250 }, { "250", 0, 250 }, { "2s", 0, 2000 },
		{ "1.5s", 0, 1500 }, { "0.01s", 0, 10 }, { "1m", 0, 60000 },
		{ "1.0005s", -EINVAL, 0 }, { "10us", -EINVAL, 0 },
		{ "s", -EINVAL, 0 }, { "1.s", -EINVAL, 0 }, { "-1s", -EINVAL, 0 },
		{ "1 s", -EINVAL, 0 }, { "5h", 0, 18000000 }, { "0.5h", 0, 1800000 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ms = 12345;

		assert_int_equal(ds_parse_duration_ms(cases[i].s, &ms),
				 cases[i].err);
		assert_int_equal(ms, cases[i].err ? 12345 : cases[i].ms);
	}
}

/* NAME VALUE options: in range, or refused with usage and nothing set */
static void test_parse_opts(void **state)
{
	static const struct ds_cmd self = { "watch smc", NULL, "[ARGS]", "", 0 };
	static const struct {
		const char *args[5];
		int argc;
		int status;
		uint64_t interval, count;
	} cases[] = {
		{ { "interval", "250ms", "count", "3" }, 4, DS_OK, 250, 3 },
		{ { "count", "7" }, 2, DS_OK, 1000, 7 },
		{ { 0 }, 0, DS_OK, 1000, 0 },
		{ { "interval", "50ms" }, 2, DS_EUSAGE, 1000, 0 },
		{ { "interval", "61s" }, 2, DS_EUSAGE, 1000, 0 },
		{ { "interval", "fast" }, 2, DS_EUSAGE, 1000, 0 },
		{ { "count", "0" }, 2, DS_EUSAGE, 1000, 0 },
		{ { "count" }, 1, DS_EUSAGE, 1000, 0 },
		{ { "rounds", "3" }, 2, DS_EUSAGE, 1000, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t interval = 1000, count = 0;
		const struct ds_opt opts[] = {
			{ "interval", true, 100, 60000, &interval, "bad interval" },
			{ "count", false, 1, UINT32_MAX, &count, "bad count" },
			{ NULL },
		};

		assert_int_equal(ds_parse_opts(&self, cases[i].argc,
					       (char **)cases[i].args, opts),
				 cases[i].status);
		if (cases[i].status == DS_OK) {
			assert_int_equal(interval, cases[i].interval);
			assert_int_equal(count, cases[i].count);
		}
	}
}

static void test_split(void **state)
{
	char line[] = "  set  \"inter val\" 'a b'  # comment";
	char bad[] = "show 'sites";
	char many[] = "a b c";
	char *argv[4];

	(void)state;
	assert_int_equal(ds_split(line, argv, 4), 3);
	assert_string_equal(argv[0], "set");
	assert_string_equal(argv[1], "inter val");
	assert_string_equal(argv[2], "a b");
	assert_int_equal(ds_split(bad, argv, 4), -EINVAL);
	assert_int_equal(ds_split(many, argv, 2), -E2BIG);
}

static void test_cmd_find(void **state)
{
	char *show_sites[] = { "show", "sites", "top", "5" };
	char *show[] = { "show" };
	char *bogus[] = { "shows" };
	char *rule_add[] = { "mask", "add", "l4", "udp" };
	char *show_masks[] = { "show", "masks" };
	const struct ds_cmd *c;
	int used = 0;

	(void)state;
	c = ds_cmd_find(4, show_sites, &used);
	assert_non_null(c);
	assert_string_equal(c->name, "show sites");
	assert_int_equal(used, 2);
	assert_null(ds_cmd_find(1, show, &used));
	assert_null(ds_cmd_find(1, bogus, &used));
	/* an older spelling runs the command it became */
	c = ds_cmd_find(4, rule_add, &used);
	assert_non_null(c);
	assert_string_equal(c->name, "rule mask");
	assert_int_equal(used, 2);
	c = ds_cmd_find(2, show_masks, &used);
	assert_non_null(c);
	assert_string_equal(c->name, "rule list");
	assert_int_equal(used, 2);
}

/* Every completion of prefix after words, joined by spaces. */
static void complete(char **words, int n, const char *prefix, char *out,
		     size_t len)
{
	const char *w;
	int state;

	out[0] = '\0';
	for (state = 0; (w = ds_cmd_complete(words, n, prefix, state));
	     state++) {
		if (state)
			strncat(out, " ", len - strlen(out) - 1);
		strncat(out, w, len - strlen(out) - 1);
	}
}

static void test_complete(void **state)
{
	char *show[] = { "show" };
	char *set[] = { "set" };
	char *start[] = { "start" };
	char *smc[] = { "show", "smc" };
	char *sort[] = { "show", "sessions", "sort" };
	char *sessions[] = { "show", "sessions" };
	char *l4[] = { "rule", "mask", "l4" };
	char *mask[] = { "rule", "only", "l4", "tcp" };
	char *rule[] = { "rule" };
	char *cap[] = { "capture", "f.pcapng", "l3" };
	char *exp[] = { "export" };
	char *help[] = { "help" };
	char *top[] = { "top", "count" };
	char out[256];

	(void)state;
	complete(NULL, 0, "s", out, sizeof(out));
	assert_string_equal(out, "start stop status set show stacks");
	/* the older spellings (mask ...) are not offered */
	complete(NULL, 0, "m", out, sizeof(out));
	assert_string_equal(out, "");
	complete(NULL, 0, "r", out, sizeof(out));
	assert_string_equal(out, "rule run record reset");
	complete(rule, 1, "", out, sizeof(out));
	assert_string_equal(out, "mask only del list clear save load");
	complete(NULL, 0, "sh", out, sizeof(out));
	assert_string_equal(out, "show");
	complete(show, 1, "", out, sizeof(out));
	assert_string_equal(out, "sites reasons sessions smc stacks stats rules");
	complete(show, 1, "r", out, sizeof(out));
	assert_string_equal(out, "reasons rules");
	complete(smc, 2, "", out, sizeof(out));
	assert_string_equal(out, "sockets linkgroups devices");
	complete(set, 1, "", out, sizeof(out));
	assert_string_equal(out, "interval threshold top ratelimit");
	/* arguments, from the usage strings of the command table */
	complete(start, 1, "", out, sizeof(out));
	assert_string_equal(out, "drops tcp smc hw dev qdisc");
	complete(NULL, 0, "t", out, sizeof(out));
	assert_string_equal(out, "top");
	complete(sort, 3, "r", out, sizeof(out));
	assert_string_equal(out, "rx retrans");
	complete(sessions, 2, "", out, sizeof(out));
	assert_string_equal(out, "live closed all top sort pid port info");
	complete(l4, 3, "u", out, sizeof(out));
	assert_string_equal(out, "udp udplite");
	complete(mask, 4, "", out, sizeof(out));
	assert_string_equal(out, "site reason dev l3 l4 netns smc layer trap group counter kind");
	complete(cap, 3, "ipv", out, sizeof(out));
	assert_string_equal(out, "ipv4 ipv6");
	complete(exp, 1, "--t", out, sizeof(out));
	assert_string_equal(out, "--textfile");
	complete(help, 1, "wa", out, sizeof(out));
	assert_string_equal(out, "watch");
	/* a placeholder value: nothing to offer */
	complete(top, 2, "", out, sizeof(out));
	assert_string_equal(out, "");
}

/* top's arguments: each kind, the defaults, and a clear word on bad ones. */
static void test_top_parse(void **state)
{
	static const struct {
		const char *line;
		const char *err;
	} bad[] = {
		{ "bogus", "unknown argument" },
		{ "interval", "interval, top, sort, pid, port and count need a value" },
		{ "interval 0", "interval needs seconds, 0.1 to 60 (e.g. 2, 0.5, 500ms)" },
		{ "interval 61", "interval needs seconds, 0.1 to 60 (e.g. 2, 0.5, 500ms)" },
		{ "interval 99ms", "interval needs seconds, 0.1 to 60 (e.g. 2, 0.5, 500ms)" },
		{ "interval -1", "interval needs seconds, 0.1 to 60 (e.g. 2, 0.5, 500ms)" },
		{ "interval 1x", "interval needs seconds, 0.1 to 60 (e.g. 2, 0.5, 500ms)" },
		{ "interval 1.", "interval needs seconds, 0.1 to 60 (e.g. 2, 0.5, 500ms)" },
		{ "top 0", "top needs a positive number" },
		{ "count 0", "count needs a positive number" },
		{ "count x", "count needs a positive number" },
		{ "sort age", "sort by bytes, rx, tx, retrans or drops" },
		{ "pid x", "pid and port need a number" },
		{ "port 65536", "pid and port need a number" },
		{ "port", "interval, top, sort, pid, port and count need a value" },
		{ "top 5 extra", "unknown argument" },
	};
	struct ds_top_args t;
	struct ds_ctx ctx = { 0 };
	const char *err = NULL;
	char line[128], *argv[16];
	size_t i;
	int argc;

	(void)state;
	assert_int_equal(ds_top_parse(&t, 0, NULL, &err), 0);
	assert_int_equal(t.interval_ms, 1000);
	assert_true(t.top == UINT64_MAX && t.count == 0);
	assert_true(t.sort == DS_TOP_BYTES);
	assert_true(t.f.pid == UINT64_MAX && t.f.port == UINT64_MAX);
	snprintf(line, sizeof(line),
		 "interval 0.5 top 3 sort retrans pid 42 port 5001 count 7");
	argc = ds_split(line, argv, 16);
	assert_int_equal(ds_top_parse(&t, argc, argv, &err), 0);
	assert_int_equal(t.interval_ms, 500);
	assert_int_equal(t.top, 3);
	assert_int_equal(t.count, 7);
	assert_true(t.sort == DS_TOP_RETRANS);
	assert_int_equal(t.f.pid, 42);
	assert_int_equal(t.f.port, 5001);
	snprintf(line, sizeof(line), "interval 2");
	argc = ds_split(line, argv, 16);
	assert_int_equal(ds_top_parse(&t, argc, argv, &err), 0);
	assert_int_equal(t.interval_ms, 2000);
	snprintf(line, sizeof(line), "interval 250ms");
	argc = ds_split(line, argv, 16);
	assert_int_equal(ds_top_parse(&t, argc, argv, &err), 0);
	assert_int_equal(t.interval_ms, 250);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "%s", bad[i].line);
		argc = ds_split(line, argv, 16);
		err = NULL;
		assert_int_equal(ds_top_parse(&t, argc, argv, &err), -EINVAL);
		assert_non_null(err);
		assert_string_equal(err, bad[i].err);
	}
	/* the command refuses it before it talks to the module */
	snprintf(line, sizeof(line), "top sort age");
	argc = ds_split(line, argv, 16);
	assert_int_equal(ds_cmd_run(&ctx, argc, argv), DS_EUSAGE);
	assert_null(ctx.nl);
}

/* What fn prints, in JSON or in text; the caller frees it. */
static char *render(bool json, void (*fn)(struct ds_print *p, void *arg),
		    void *arg)
{
	struct ds_print p = { .json = json };
	char *buf = NULL;
	size_t len = 0;

	p.f = open_memstream(&buf, &len);
	assert_non_null(p.f);
	fn(&p, arg);
	fclose(p.f);
	return buf;
}

/* fn prints exactly want. */
static void assert_renders(bool json, void (*fn)(struct ds_print *p, void *arg),
			   void *arg, const char *want)
{
	char *s = render(json, fn, arg);

	assert_string_equal(s, want);
	free(s);
}

/* Every kind of field, nested, through the one print path. */
static void print_fields(struct ds_print *p, void *arg)
{
	(void)arg;
	ds_print_open_obj(p, NULL);
	ds_print_str(p, DS_ANY, "name", "name %s\n", "eth0");
	ds_print_u64(p, DS_ANY, "big", "big %" PRIu64 "\n", UINT64_MAX);
	ds_print_u32(p, DS_ANY, "small", "small %" PRIu32 "\n", 7);
	ds_print_hex(p, DS_ANY, "where", "where %s\n", 0xffffffff81000010ULL);
	ds_print_bool(p, DS_ANY, "on", "on %s\n", true);
	ds_print_bool_as(p, DS_ANY, "running", "%s\n", false, "stopped");
	ds_print_null(p, DS_ANY, "none", "none %s\n");
	ds_print_u64_as(p, DS_ANY, "ifindex", "dev %s\n", 1, "lo");
	ds_print_u32(p, DS_JSON, "json_only", "never in text\n", 1);
	ds_print_str(p, DS_FP, "text_only", "text only %s\n", "yes");
	ds_print_text(p, "-- %d --\n", 42);
	ds_print_str(p, DS_ANY, "no_text", NULL, "json");
	ds_print_open_arr(p, "list");
	ds_print_open_obj(p, NULL);
	ds_print_u32(p, DS_ANY, "a", "a=%" PRIu32 "\n", 1);
	ds_print_close_obj(p);
	ds_print_open_obj(p, NULL);
	ds_print_open_arr(p, "empty");
	ds_print_close_arr(p);
	ds_print_close_obj(p);
	ds_print_close_arr(p);
	ds_print_close_obj(p);
}

static void test_print_fields(void **state)
{
	(void)state;
	assert_renders(true, print_fields, NULL,
		"{\"name\":\"eth0\",\"big\":18446744073709551615,\"small\":7,"
		"\"where\":\"0xffffffff81000010\",\"on\":true,\"running\":false,"
		"\"none\":null,\"ifindex\":1,\"json_only\":1,\"no_text\":\"json\","
		"\"list\":[{\"a\":1},{\"empty\":[]}]}\n");
	assert_renders(false, print_fields, NULL,
		"name eth0\nbig 18446744073709551615\nsmall 7\n"
		"where 0xffffffff81000010\non true\nstopped\nnone -\ndev lo\n"
		"text only yes\n-- 42 --\na=1\n");
}

/* Awkward strings: JSON escapes them, text shows controls as '?'. */
static void print_awkward(struct ds_print *p, void *arg)
{
	ds_print_open_arr(p, NULL);
	ds_print_str(p, DS_ANY, NULL, "[%s]\n", arg);
	ds_print_close_arr(p);
}

static void test_print_escaping(void **state)
{
	static const struct {
		const char *in, *json, *text;
	} cases[] = {
		{ "a\"b\\c", "[\"a\\\"b\\\\c\"]\n", "[a\"b\\c]\n" },
		{ "nl\ntab\tcr\r", "[\"nl\\ntab\\tcr\\u000d\"]\n", "[nl?tab?cr?]\n" },
		{ "\x01\x1f\x7f", "[\"\\u0001\\u001f\x7f\"]\n", "[???]\n" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]\n",
		  "[caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80]\n" },
		/* not UTF-8: a stray byte, an overlong '/', a surrogate, a
		 * sequence cut short by the end of the string */
		{ "x\xffy", "[\"x\\ufffdy\"]\n", "[x\xffy]\n" },
		{ "\xc0\xaf", "[\"\\ufffd\\ufffd\"]\n", "[\xc0\xaf]\n" },
		{ "\xed\xa0\x80", "[\"\\ufffd\\ufffd\\ufffd\"]\n", "[\xed\xa0\x80]\n" },
		{ "end\xe2\x82", "[\"end\\ufffd\\ufffd\"]\n", "[end\xe2\x82]\n" },
		{ "", "[\"\"]\n", "[]\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_renders(true, print_awkward, (void *)cases[i].in,
			       cases[i].json);
		assert_renders(false, print_awkward, (void *)cases[i].in,
			       cases[i].text);
	}
}

/* A table: text columns in their own order, the rest at the end. */
static const struct ds_col test_cols[] = {
	{ "n", "N", "", 3, DS_COL_RIGHT },
	{ "opt", "OPT", "  ", 0, DS_COL_OPT },
	{ "name", "NAME", "  ", 6, 0 },
	{ NULL, "REST", "  ", 0, 0 },
};

struct test_rows {
	int n;
	bool opt;
};

static void print_table(struct ds_print *p, void *arg)
{
	const struct test_rows *t = arg;
	int i;

	ds_print_open_obj(p, NULL);
	ds_print_open_table(p, "rows", test_cols, 4, DS_TABLE_HEAD);
	for (i = 0; i < t->n; i++) {
		ds_print_open_obj(p, NULL);
		ds_print_str(p, DS_ANY, "name", "%s", i ? "b" : "a\tz");
		ds_print_str(p, DS_ANY, "x", "x %s", "1");
		if (t->opt && i)
			ds_print_u64_as(p, DS_ANY, "opt", "%s", 9, "nine");
		ds_print_u32(p, DS_ANY, "n", "%" PRIu32, (uint32_t)i);
		ds_print_str(p, DS_ANY, "y", "y %s", "2");
		ds_print_close_obj(p);
	}
	ds_print_close_table(p);
	ds_print_close_obj(p);
}

static void test_print_table(void **state)
{
	struct test_rows none = { 0, false }, two = { 2, false };
	struct test_rows opt = { 2, true };

	(void)state;
	assert_renders(false, print_table, &two,
		"  N  NAME  REST\n"
		"  0  a?z  x 1 y 2\n"
		"  1  b  x 1 y 2\n");
	/* the optional column shows once a row has it, "-" where not */
	assert_renders(false, print_table, &opt,
		"  N  OPT   NAME  REST\n"
		"  0  -     a?z  x 1 y 2\n"
		"  1  nine  b  x 1 y 2\n");
	assert_renders(true, print_table, &opt,
		"{\"rows\":[{\"name\":\"a\\tz\",\"x\":\"1\",\"n\":0,\"y\":\"2\"},"
		"{\"name\":\"b\",\"x\":\"1\",\"opt\":9,\"n\":1,\"y\":\"2\"}]}\n");
	assert_renders(false, print_table, &none, "");
	assert_renders(true, print_table, &none, "{\"rows\":[]}\n");
}

static const struct ds_site test_site = {
	.location = 0xffffffff81a2b3c4ULL, .total = 70, .reason = 2,
	.symbol = "__udp4_lib_rcv+0x545/0xdd0", .reason_name = "NO_SOCKET",
};

struct test_sites {
	struct ds_site v[8];
	size_t n, top;
};

static void print_sites(struct ds_print *p, void *arg)
{
	struct test_sites *t = arg;

	ds_sites_print(p, t->v, t->n, t->top);
}

/* show sites without packet fields: the JSON and the columns as always. */
static void test_sites_plain(void **state)
{
	struct test_sites t = { .n = 2, .top = 2 };
	char want[512];
	char *s;

	(void)state;
	t.v[0] = test_site;
	t.v[0].total = 500;
	t.v[1] = test_site;
	t.v[1].total = 200;
	t.v[1].masked = 5;
	t.v[1].reason = 6;
	strcpy(t.v[1].reason_name, "NETFILTER_DROP");
	strcpy(t.v[1].symbol, "nft_do_chain+0x47f/0x5f0 [nf_tables]");
	/* the layout these lines always had */
	snprintf(want, sizeof(want),
		 "%12s  %-22s %s\n" "%12d  %-22s %s\n" "%12d  %-22s %s  %s\n",
		 "COUNT", "REASON", "SITE",
		 500, "NO_SOCKET", "__udp4_lib_rcv+0x545/0xdd0",
		 200, "NETFILTER_DROP", "nft_do_chain+0x47f/0x5f0 [nf_tables]",
		 "(masked: 5)");
	assert_renders(false, print_sites, &t, want);
	assert_renders(true, print_sites, &t,
		"[{\"layer\":\"kernel\",\"symbol\":\"__udp4_lib_rcv+0x545/0xdd0\",\"location\":\"0xffffffff81a2b3c4\","
		"\"reason\":\"NO_SOCKET\",\"reason_id\":2,\"count\":500,\"masked\":0},"
		"{\"layer\":\"kernel\",\"symbol\":\"nft_do_chain+0x47f/0x5f0 [nf_tables]\",\"location\":\"0xffffffff81a2b3c4\","
		"\"reason\":\"NETFILTER_DROP\",\"reason_id\":6,\"count\":200,\"masked\":5}]\n");
	t.top = 1;
	s = render(false, print_sites, &t);
	assert_non_null(strstr(s, "(1 more sites)\n"));
	free(s);
	t.n = 0;
	assert_renders(false, print_sites, &t, "no drops seen\n");
	assert_renders(true, print_sites, &t, "[]\n");
}

/* show sites of the four layers: a LAYER column, and each layer's keys. */
static void test_sites_layers(void **state)
{
	struct test_sites t = { .n = 4, .top = 4 };

	(void)state;
	t.v[0] = test_site;
	t.v[0].total = 500;
	t.v[1] = (struct ds_site){
		.layer = DS_LAYER_HW, .total = 40, .ifindex = 7, .netns = 1,
		.trap_type = DROPSCOPE_TRAP_EXCEPTION,
		.device = "netdevsim/netdevsim1",
		.trap = "ttl_value_is_too_small", .group = "l3_exceptions",
		.dev = "eth0",
		.symbol = "ttl_value_is_too_small [l3_exceptions] netdevsim/netdevsim1",
		.reason_name = "exception",
	};
	t.v[2] = (struct ds_site){
		.layer = DS_LAYER_DEV, .total = 3, .ifindex = 9, .netns = 1,
		.counter = DROPSCOPE_DEV_TX_DROPPED, .dev = "veth0",
		.symbol = "veth0 tx_dropped", .reason_name = "tx_dropped",
	};
	t.v[3] = (struct ds_site){
		.layer = DS_LAYER_QDISC, .total = 2, .ifindex = 9, .netns = 1,
		.dev = "veth0", .kind = "fq", .handle = 0x80000000,
		.parent = 0xffffffff, .reason = 0x70008,
		.symbol = "fq 8000: veth0", .reason_name = "FLOW_LIMIT",
	};
	/* wider than 80 with the optional columns: each column as wide as
	 * its widest cell */
	assert_renders(false, print_sites, &t,
		 "COUNT  LAYER   REASON      DEV    SITE\n"
		 "  500  kernel  NO_SOCKET   -      __udp4_lib_rcv+0x545/0xdd0\n"
		 "   40  hw      exception   eth0   ttl_value_is_too_small [l3_exceptions] netdevsim/netdevsim1\n"
		 "    3  dev     tx_dropped  veth0  veth0 tx_dropped\n"
		 "    2  qdisc   FLOW_LIMIT  veth0  fq 8000: veth0\n");
	assert_renders(true, print_sites, &t,
		"[{\"layer\":\"kernel\",\"symbol\":\"__udp4_lib_rcv+0x545/0xdd0\",\"location\":\"0xffffffff81a2b3c4\","
		"\"reason\":\"NO_SOCKET\",\"reason_id\":2,\"count\":500,\"masked\":0},"
		"{\"layer\":\"hw\",\"device\":\"netdevsim/netdevsim1\",\"trap\":\"ttl_value_is_too_small\","
		"\"group\":\"l3_exceptions\",\"type\":\"exception\",\"count\":40,\"masked\":0,"
		"\"dev\":\"eth0\",\"ifindex\":7,\"netns\":1},"
		"{\"layer\":\"dev\",\"counter\":\"tx_dropped\",\"count\":3,\"masked\":0,"
		"\"dev\":\"veth0\",\"ifindex\":9,\"netns\":1},"
		"{\"layer\":\"qdisc\",\"reason\":\"FLOW_LIMIT\",\"kind\":\"fq\",\"handle\":\"8000:\","
		"\"reason_id\":458760,\"count\":2,\"masked\":0,"
		"\"dev\":\"veth0\",\"ifindex\":9,\"netns\":1}]\n");
}

/*
 * Sites a packet-field rule split: the same symbol, reason and count,
 * told apart only by ifindex, netns, l3 or l4. Fills t with the base and
 * one variant per field.
 */
static void split_sites(struct test_sites *t)
{
	size_t i;

	for (i = 0; i < 5; i++) {
		t->v[i] = test_site;
		t->v[i].ifindex = 1000001;	/* no such device here */
		t->v[i].netns = 4026532001U;
		t->v[i].l3 = 0x0800;
		t->v[i].l4 = 17;
	}
	t->v[1].ifindex = 1000002;
	t->v[2].netns = 4026532002U;
	t->v[3].l3 = 0x86dd;
	t->v[4].l4 = 6;
	t->n = t->top = 5;
}

/* Every line of s differs from every other. */
static void assert_lines_distinct(const char *s, size_t want)
{
	char *copy = strdup(s), *line[16], *save = NULL, *l;
	size_t n = 0, i, j;

	assert_non_null(copy);
	for (l = strtok_r(copy, "\n", &save); l && n < 16;
	     l = strtok_r(NULL, "\n", &save))
		line[n++] = l;
	assert_int_equal(n, want);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (!strcmp(line[i], line[j]))
				fail_msg("lines %zu and %zu are the same: %s",
					 i, j, line[i]);
	free(copy);
}

static void test_sites_split(void **state)
{
	struct test_sites t = { 0 };
	char *s;

	(void)state;
	split_sites(&t);
	s = render(false, print_sites, &t);
	assert_lines_distinct(s, 6);
	/* with packet fields, past 80 columns, the minimum widths give way */
	assert_string_equal(s,
		"COUNT  REASON     DEV      NETNS       L3    L4   SITE\n"
		"   70  NO_SOCKET  1000001  4026532001  ipv4  udp  __udp4_lib_rcv+0x545/0xdd0\n"
		"   70  NO_SOCKET  1000002  4026532001  ipv4  udp  __udp4_lib_rcv+0x545/0xdd0\n"
		"   70  NO_SOCKET  1000001  4026532002  ipv4  udp  __udp4_lib_rcv+0x545/0xdd0\n"
		"   70  NO_SOCKET  1000001  4026532001  ipv6  udp  __udp4_lib_rcv+0x545/0xdd0\n"
		"   70  NO_SOCKET  1000001  4026532001  ipv4  tcp  __udp4_lib_rcv+0x545/0xdd0\n");
	free(s);

	/* a site keyed by none of them, with others that are: "-" */
	t.v[1] = test_site;
	t.v[1].masked = 3;
	t.v[3].l3 = 0x88cc;
	t.v[4].l4 = 200;
	assert_renders(false, print_sites, &t,
		"COUNT  REASON     DEV      NETNS       L3      L4    SITE\n"
		"   70  NO_SOCKET  1000001  4026532001  ipv4    udp   __udp4_lib_rcv+0x545/0xdd0\n"
		"   70  NO_SOCKET  -        -           -       -     __udp4_lib_rcv+0x545/0xdd0  (masked: 3)\n"
		"   70  NO_SOCKET  1000001  4026532002  ipv4    udp   __udp4_lib_rcv+0x545/0xdd0\n"
		"   70  NO_SOCKET  1000001  4026532001  0x88cc  udp   __udp4_lib_rcv+0x545/0xdd0\n"
		"   70  NO_SOCKET  1000001  4026532001  ipv4    0xc8  __udp4_lib_rcv+0x545/0xdd0\n");

	/* JSON keeps the numbers, and leaves out what a site is not keyed by */
	t.n = 2;
	assert_renders(true, print_sites, &t,
		"[{\"layer\":\"kernel\",\"symbol\":\"__udp4_lib_rcv+0x545/0xdd0\",\"location\":\"0xffffffff81a2b3c4\","
		"\"reason\":\"NO_SOCKET\",\"reason_id\":2,\"count\":70,\"masked\":0,"
		"\"ifindex\":1000001,\"netns\":4026532001,\"l3\":2048,\"l4\":17},"
		"{\"layer\":\"kernel\",\"symbol\":\"__udp4_lib_rcv+0x545/0xdd0\",\"location\":\"0xffffffff81a2b3c4\","
		"\"reason\":\"NO_SOCKET\",\"reason_id\":2,\"count\":70,\"masked\":3}]\n");
}

static void print_alert(struct ds_print *p, void *arg)
{
	ds_alert_print(p, arg);
}

static void test_alert_split(void **state)
{
	struct test_sites t = { 0 };
	struct ds_alert a = {
		.stamp = "12:00:00.000", .round = 7, .end = true,
		.sites = t.v,
	};
	char want[256];
	size_t i;
	char *s;

	(void)state;
	split_sites(&t);
	for (i = 0; i < t.n; i++) {
		t.v[i].has_delta = true;
		t.v[i].delta = 3;
	}
	a.n = t.n;
	s = render(false, print_alert, &a);
	assert_lines_distinct(s, 5);
	snprintf(want, sizeof(want), "%s  %10d drops  %-22s %s  %s\n",
		 "12:00:00.000", 3, "NO_SOCKET", "__udp4_lib_rcv+0x545/0xdd0",
		 "dev 1000002 netns 4026532001 l3 ipv4 l4 udp");
	assert_non_null(strstr(s, want));
	assert_non_null(strstr(s, "l3 ipv6 l4 udp\n"));
	assert_non_null(strstr(s, "l3 ipv4 l4 tcp\n"));
	free(s);

	/* without packet fields, and with overflow: the lines as always */
	t.v[1] = test_site;
	t.v[1].has_delta = true;
	t.v[1].delta = 12;
	a.sites = &t.v[1];
	a.n = 1;
	a.overflow = 4;
	snprintf(want, sizeof(want),
		 "%s  %10d drops did not fit the per-CPU tables (overflow)\n"
		 "%s  %10d drops  %-22s %s\n",
		 "12:00:00.000", 4, "12:00:00.000", 12, "NO_SOCKET",
		 "__udp4_lib_rcv+0x545/0xdd0");
	assert_renders(false, print_alert, &a, want);

	a.sites = t.v;
	a.n = 3;
	a.overflow = 0;
	assert_renders(true, print_alert, &a,
		"{\"round\":7,\"end\":true,\"overflow_delta\":0,\"sites\":["
		"{\"layer\":\"kernel\",\"symbol\":\"__udp4_lib_rcv+0x545/0xdd0\",\"location\":\"0xffffffff81a2b3c4\","
		"\"reason\":\"NO_SOCKET\",\"reason_id\":2,\"count\":70,\"delta\":3,"
		"\"ifindex\":1000001,\"netns\":4026532001,\"l3\":2048,\"l4\":17},"
		"{\"layer\":\"kernel\",\"symbol\":\"__udp4_lib_rcv+0x545/0xdd0\",\"location\":\"0xffffffff81a2b3c4\","
		"\"reason\":\"NO_SOCKET\",\"reason_id\":2,\"count\":70,\"delta\":12},"
		"{\"layer\":\"kernel\",\"symbol\":\"__udp4_lib_rcv+0x545/0xdd0\",\"location\":\"0xffffffff81a2b3c4\","
		"\"reason\":\"NO_SOCKET\",\"reason_id\":2,\"count\":70,\"delta\":3,"
		"\"ifindex\":1000001,\"netns\":4026532002,\"l3\":2048,\"l4\":17}]}\n");
}

static void test_site_sort(void **state)
{
	struct ds_site v[3] = {
		{ .total = 1, .symbol = "b" },
		{ .total = 9, .symbol = "z" },
		{ .total = 1, .symbol = "a" },
	};

	(void)state;
	qsort(v, 3, sizeof(v[0]), ds_site_cmp_total);
	assert_string_equal(v[0].symbol, "z");
	assert_string_equal(v[1].symbol, "a");
	assert_string_equal(v[2].symbol, "b");
}

static void test_kallsyms(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 T tcp_v4_rcv\n"
		"ffffffff81000180 t dup\n"
		"ffffffff81000180 t alias_of_dup\n"
		"ffffffff81000200 t nft_do_chain\t[nf_tables]\n"
		"ffffffff81000300 t dup\n";
	static const char hidden[] = "0000000000000000 T tcp_v4_rcv\n";
	struct ds_syms *syms = NULL;
	uint64_t start, end;
	char name[64];
	FILE *f;

	(void)state;
	f = fmemopen((void *)hidden, sizeof(hidden) - 1, "r");
	assert_int_equal(ds_syms_load(f, &syms), -EACCES);
	fclose(f);

	f = fmemopen((void *)text, sizeof(text) - 1, "r");
	assert_int_equal(ds_syms_load(f, &syms), 0);
	fclose(f);
	assert_int_equal(ds_syms_resolve(syms, "tcp_v4_rcv", &start, &end), 0);
	assert_int_equal(start, 0xffffffff81000100ULL);
	assert_int_equal(end, 0xffffffff81000180ULL);
	assert_int_equal(ds_syms_resolve(syms, "tcp_v4_rcv+0x1c", &start, &end), 0);
	assert_int_equal(start, 0xffffffff8100011cULL);
	assert_int_equal(end, start + 1);
	assert_int_equal(ds_syms_resolve(syms, "tcp_v4_rcv+0x80", &start, &end),
			 -ERANGE);
	assert_int_equal(ds_syms_resolve(syms, "nft_do_chain", &start, &end), 0);
	assert_int_equal(start, 0xffffffff81000200ULL);
	assert_int_equal(end, 0xffffffff81000300ULL);
	assert_int_equal(ds_syms_resolve(syms, "dup", &start, &end), -ENOTUNIQ);
	assert_int_equal(ds_syms_resolve(syms, "nope", &start, &end), -ENOENT);
	assert_int_equal(ds_syms_resolve(syms, "tcp_v4", &start, &end), -ENOENT);
	assert_int_equal(ds_syms_resolve(syms, "tcp_v4_rcv+zz", &start, &end),
			 -EINVAL);
	assert_int_equal(ds_syms_resolve(syms, "0xffffffff81000123", &start, &end), 0);
	assert_int_equal(start, 0xffffffff81000123ULL);
	ds_syms_name(syms, 0xffffffff8100011cULL, name, sizeof(name));
	assert_string_equal(name, "tcp_v4_rcv+0x1c");
	ds_syms_name(syms, 0xffffffff81000200ULL, name, sizeof(name));
	assert_string_equal(name, "nft_do_chain [nf_tables]");
	ds_syms_name(syms, 0x10, name, sizeof(name));
	assert_string_equal(name, "0x10");
	ds_syms_free(syms);
}

/* show sessions: the JSON keys of a session, numbers as numbers; the text
 * table in KiB with resets sent/received. */
static const struct ds_session test_sess = {
	.cookie = 0x1f, .pid = 42, .comm = "tcli7", .laddr = "127.0.0.1",
	.lport = 5001, .raddr = "127.0.0.1", .rport = 40000, .family = 2,
	.state = 7, .closed = true, .rx_bytes = 4097, .tx_bytes = 1,
	.retransmits = 2, .drops = 3, .resets_sent = 1,
	.duration_ns = 2500000, .run = 2,
};

static void print_sessions(struct ds_print *p, void *arg)
{
	ds_sessions_print(p, arg, 1, 1);
}

static void print_event(struct ds_print *p, void *arg)
{
	ds_sess_event_print(p, arg);
}

/* Session events as tcpstates and tcpretrans -l print them, and in JSON. */
static void test_events_print(void **state)
{
	struct ds_sess_event e = {
		.time_ns = 5113042170123ULL, .pid = 4711, .kind = 1,
		.family = AF_INET, .oldstate = 2, .newstate = 1,
		.lport = 48812, .rport = 80, .laddr = "10.0.0.2",
		.raddr = "10.0.0.9", .comm = "curl", .cookie = 0x1f,
	};

	(void)state;
	assert_renders(false, print_event, &e,
		"5113.042170       4711    curl            10.0.0.2 48812 10.0.0.9 80 SYN_SENT -> ESTABLISHED\n");
	assert_renders(true, print_event, &e,
		"{\"kind\":\"state\",\"time_ns\":5113042170123,\"pid\":4711,"
		"\"comm\":\"curl\",\"family\":\"ipv4\",\"laddr\":\"10.0.0.2\","
		"\"lport\":48812,\"raddr\":\"10.0.0.9\",\"rport\":80,"
		"\"oldstate\":\"SYN_SENT\",\"newstate\":\"ESTABLISHED\","
		"\"cookie\":\"0x1f\"}\n");
	e.kind = 3;
	assert_renders(false, print_event, &e,
		"5113.042170       4711    curl            10.0.0.2:48812 L> 10.0.0.9:80 ESTABLISHED 0\n");
	e.kind = 2;
	e.segs = 2;
	assert_renders(false, print_event, &e,
		"5113.042170       4711    curl            10.0.0.2:48812 R> 10.0.0.9:80 ESTABLISHED 2\n");
}

static void print_no_sessions(struct ds_print *p, void *arg)
{
	ds_sessions_print(p, arg, 0, 0);
}

static void print_two_sessions(struct ds_print *p, void *arg)
{
	ds_sessions_print(p, arg, 2, 2);
}

static void test_sessions_print(void **state)
{
	struct ds_session v[2];

	(void)state;
	assert_renders(true, print_sessions, (void *)&test_sess,
		"[{\"pid\":42,\"comm\":\"tcli7\",\"family\":\"ipv4\","
		"\"laddr\":\"127.0.0.1\",\"lport\":5001,\"raddr\":\"127.0.0.1\","
		"\"rport\":40000,\"state\":\"CLOSE\",\"rx_bytes\":4097,"
		"\"tx_bytes\":1,\"retransmits\":2,\"drops\":3,"
		"\"resets_sent\":1,\"resets_received\":0,\"duration_ms\":2,"
		"\"closed\":true,\"run\":2,\"found\":false,\"cookie\":\"0x1f\"}]\n");
	assert_renders(false, print_sessions, (void *)&test_sess,
		"PID     COMM            LADDR           LPORT RADDR           RPORT     RX_KB     TX_KB RETRANS  DROPS RESETS  STATE              MS\n"
		"42      tcli7           127.0.0.1        5001 127.0.0.1       40000         4         0       2      3     1/0 CLOSE           2.500\n");
	/* a COMM with a control character, a wide address, two rows */
	v[0] = test_sess;
	v[1] = test_sess;
	strcpy(v[1].comm, "a\tb");
	strcpy(v[1].raddr, "2001:db8::1234:5678:9abc");
	v[1].pid = 1234567;
	assert_renders(false, print_two_sessions, v,
		"PID     COMM            LADDR           LPORT RADDR                    RPORT     RX_KB     TX_KB RETRANS  DROPS RESETS  STATE              MS\n"
		"42      tcli7           127.0.0.1        5001 127.0.0.1                40000         4         0       2      3     1/0 CLOSE           2.500\n"
		"1234567 a?b             127.0.0.1        5001 2001:db8::1234:5678:9abc 40000         4         0       2      3     1/0 CLOSE           2.500\n");
	/* open before start: its age is at least that */
	v[0] = test_sess;
	v[0].closed = false;
	v[0].state = 1;
	v[0].found = true;
	assert_renders(false, print_sessions, v,
		"PID     COMM            LADDR           LPORT RADDR           RPORT     RX_KB     TX_KB RETRANS  DROPS RESETS  STATE              MS\n"
		"42      tcli7           127.0.0.1        5001 127.0.0.1       40000         4         0       2      3     1/0 ESTABLISHED    >2.500\n");
	/* a live one's transport state, in ss -ti's names and units */
	v[0] = test_sess;
	v[0].closed = false;
	v[0].run = 0;
	v[0].has_tcp = true;
	v[0].rtt_us = 41;
	v[0].rttvar_us = 20;
	v[0].cwnd = 10;
	v[0].ssthresh = 0x7fffffff;
	v[0].snd_wnd = 65536;
	v[0].rcv_wnd = 65483;
	v[0].delivery_rate = 1000;
	assert_renders(true, print_sessions, v,
		"[{\"pid\":42,\"comm\":\"tcli7\",\"family\":\"ipv4\","
		"\"laddr\":\"127.0.0.1\",\"lport\":5001,\"raddr\":\"127.0.0.1\","
		"\"rport\":40000,\"state\":\"CLOSE\",\"rx_bytes\":4097,"
		"\"tx_bytes\":1,\"retransmits\":2,\"drops\":3,"
		"\"resets_sent\":1,\"resets_received\":0,\"duration_ms\":2,"
		"\"closed\":false,\"run\":0,\"found\":false,\"cookie\":\"0x1f\","
		"\"rtt\":0.041,\"rttvar\":0.02,\"cwnd\":10,\"snd_wnd\":65536,"
		"\"rcv_wnd\":65483,\"unacked\":0,\"lost\":0,\"retrans\":0,"
		"\"delivery_rate\":8000}]\n");
	assert_renders(false, print_sessions, v,
		"PID     COMM            LADDR           LPORT RADDR           RPORT     RX_KB     TX_KB RETRANS  DROPS RESETS  STATE              MS\n"
		"42      tcli7           127.0.0.1        5001 127.0.0.1       40000         4         0       2      3     1/0 CLOSE           2.500 rtt:0.041/0.02 cwnd:10 snd_wnd:65536 rcv_wnd:65483 unacked:0 lost:0 retrans:0 delivery_rate:8000bps\n");
	assert_renders(true, print_no_sessions, NULL, "[]\n");
	assert_renders(false, print_no_sessions, NULL, "no sessions\n");
}

/* ds_nla_parse(): framing and the policy's lengths, as libnl checks them. */
static size_t put_attr(unsigned char *b, size_t off, uint16_t type,
		       const void *data, uint16_t n)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + n),
			    .nla_type = type };

	memcpy(b + off, &a, sizeof(a));
	memcpy(b + off + NLA_HDRLEN, data, n);
	return off + NLA_ALIGN(a.nla_len);
}

static void test_nla_parse(void **state)
{
	static const struct nla_policy pol[4] = {
		[1] = { .type = NLA_U32 }, [2] = { .type = NLA_STRING },
		[3] = { .type = NLA_U64 },
	};
	uint64_t v64 = 7;
	uint32_t v32 = 5;
	unsigned char b[128] __attribute__((aligned(4)));
	struct nlattr *tb[4];
	size_t n;

	(void)state;
	memset(b, 0, sizeof(b));
	n = put_attr(b, 0, 1, &v32, 4);
	n = put_attr(b, n, 2, "abc", 4);
	n = put_attr(b, n, 3, &v64, 8);
	n = put_attr(b, n, 9, "x", 1);		/* above max: skipped */
	assert_int_equal(ds_nla_parse(tb, 3, (struct nlattr *)b, (int)n, pol), 0);
	assert_non_null(tb[1]);
	assert_int_equal(nla_get_u32(tb[1]), 5);
	assert_string_equal(nla_get_string(tb[2]), "abc");
	assert_int_equal(nla_get_u64(tb[3]), 7);
	assert_null(tb[0]);
	/* a u64 of 4 bytes, a string without its NUL, an empty string */
	n = put_attr(b, 0, 3, &v32, 4);
	assert_int_equal(ds_nla_parse(tb, 3, (struct nlattr *)b, (int)n, pol), -EINVAL);
	n = put_attr(b, 0, 2, "abc", 3);
	assert_int_equal(ds_nla_parse(tb, 3, (struct nlattr *)b, (int)n, pol), -EINVAL);
	n = put_attr(b, 0, 2, "", 0);
	assert_int_equal(ds_nla_parse(tb, 3, (struct nlattr *)b, (int)n, pol), -EINVAL);
	/* without a policy the same pass; an attribute past the end */
	n = put_attr(b, 0, 3, &v32, 4);
	assert_int_equal(ds_nla_parse(tb, 3, (struct nlattr *)b, (int)n, NULL), 0);
	assert_non_null(tb[3]);
	assert_int_equal(ds_nla_parse(tb, 3, (struct nlattr *)b, (int)n - 1, NULL), -EINVAL);
	/* a length below the header */
	((struct nlattr *)b)->nla_len = 2;
	assert_int_equal(ds_nla_parse(tb, 3, (struct nlattr *)b, 8, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_opts),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_cmd_find),
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_top_parse),
		cmocka_unit_test(test_print_fields),
		cmocka_unit_test(test_print_escaping),
		cmocka_unit_test(test_print_table),
		cmocka_unit_test(test_sites_plain),
		cmocka_unit_test(test_sites_layers),
		cmocka_unit_test(test_sites_split),
		cmocka_unit_test(test_alert_split),
		cmocka_unit_test(test_sessions_print),
		cmocka_unit_test(test_events_print),
		cmocka_unit_test(test_site_sort),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_nla_parse),
	};

	return cmocka_run_group_tests_name("dropscope CLI", tests, NULL, NULL);
}
