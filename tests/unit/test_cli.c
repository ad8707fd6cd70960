// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the CLI's parsing, command table, completion and JSON
 * output. They run on the host, without the module.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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
		{ "1 s", -EINVAL, 0 },
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
	const struct ds_cmd *c;
	int used = 0;

	(void)state;
	c = ds_cmd_find(4, show_sites, &used);
	assert_non_null(c);
	assert_string_equal(c->name, "show sites");
	assert_int_equal(used, 2);
	assert_null(ds_cmd_find(1, show, &used));
	assert_null(ds_cmd_find(1, bogus, &used));
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
	char out[256];

	(void)state;
	complete(NULL, 0, "s", out, sizeof(out));
	assert_string_equal(out, "start stop status set show");
	complete(NULL, 0, "m", out, sizeof(out));
	assert_string_equal(out, "mask");
	complete(NULL, 0, "sh", out, sizeof(out));
	assert_string_equal(out, "show");
	complete(show, 1, "", out, sizeof(out));
	assert_string_equal(out, "sites reasons sessions stats masks");
	complete(show, 1, "r", out, sizeof(out));
	assert_string_equal(out, "reasons");
	complete(set, 1, "", out, sizeof(out));
	assert_string_equal(out, "interval threshold top ratelimit");
	complete(start, 1, "", out, sizeof(out));
	assert_string_equal(out, "");
}

static void test_session_json(void **state)
{
	struct ds_session s = {
		.cookie = 0x1f, .pid = 42, .lport = 5001, .rport = 40000,
		.family = 2, .state = 7, .closed = true, .rx_bytes = 4097,
		.tx_bytes = 1, .retransmits = 2, .drops = 3, .resets_sent = 1,
		.duration_ns = 2500000,
	};
	struct ds_out o = { .json = true };
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	strcpy(s.comm, "tcli7");
	strcpy(s.laddr, "127.0.0.1");
	strcpy(s.raddr, "127.0.0.1");
	o.f = open_memstream(&buf, &len);
	assert_non_null(o.f);
	ds_out_session(&o, &s);
	fclose(o.f);
	assert_string_equal(buf,
		"{\"pid\":42,\"comm\":\"tcli7\",\"family\":\"ipv4\","
		"\"laddr\":\"127.0.0.1\",\"lport\":5001,\"raddr\":\"127.0.0.1\","
		"\"rport\":40000,\"state\":\"CLOSE\",\"rx_bytes\":4097,"
		"\"tx_bytes\":1,\"retransmits\":2,\"drops\":3,"
		"\"resets_sent\":1,\"resets_received\":0,\"duration_ms\":2,"
		"\"closed\":true,\"cookie\":\"1f\"}\n");
	free(buf);
}

static void test_json(void **state)
{
	struct ds_site s = {
		.location = 0xffffffff81000010ULL, .total = 7, .reason = 2,
	};
	struct ds_out o = { .json = true };
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	strcpy(s.symbol, "a\"b\\c\n");
	strcpy(s.reason_name, "NO_SOCKET");
	o.f = open_memstream(&buf, &len);
	assert_non_null(o.f);
	ds_out_begin(&o, NULL, '[');
	ds_out_site(&o, &s);
	s.has_delta = true;
	s.delta = 3;
	ds_out_site(&o, &s);
	ds_out_end(&o, ']');
	fclose(o.f);
	assert_string_equal(buf,
		"[{\"symbol\":\"a\\\"b\\\\c\\n\",\"location\":\"0xffffffff81000010\","
		"\"reason\":\"NO_SOCKET\",\"reason_id\":2,\"count\":7,\"masked\":0},"
		"{\"symbol\":\"a\\\"b\\\\c\\n\",\"location\":\"0xffffffff81000010\","
		"\"reason\":\"NO_SOCKET\",\"reason_id\":2,\"count\":7,\"delta\":3}]\n");
	free(buf);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_cmd_find),
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_session_json),
		cmocka_unit_test(test_site_sort),
		cmocka_unit_test(test_kallsyms),
	};

	return cmocka_run_group_tests_name("dropscope CLI", tests, NULL, NULL);
}
