/* tests/unit/test_plot.c: emuverbs plot's reader of trace lines
 * (tools/plot_json.c): the flat JSON objects a trace holds are taken
 * field by field, strings decoded, and anything else refused whole
 * rather than half read. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/testlib.h"
#include "tools/plot.h"

static struct plot_line l;

START_TEST(test_fields)
{
	ck_assert_int_eq(plot_parse("{\"ts\":1796320392.745136,\"ev\":"
				    "\"sample\",\"qpn\":18,\"neg\":-2.5e3,"
				    "\"ok\":true,\"no\":false,\"x\":null}\n",
				    &l), 0);
	ck_assert_uint_eq(l.n, 7);
	ck_assert_double_eq_tol(plot_num(&l, "ts", 0), 1796320392.745136,
				1e-6);
	ck_assert_str_eq(plot_str(&l, "ev", ""), "sample");
	ck_assert_double_eq(plot_num(&l, "qpn", 0), 18);
	ck_assert_double_eq(plot_num(&l, "neg", 0), -2500);
	ck_assert_double_eq(plot_num(&l, "ok", 0), 1);
	ck_assert_double_eq(plot_num(&l, "no", 1), 0);
	/* Missing, or of the other kind: the default. */
	ck_assert_double_eq(plot_num(&l, "ev", 7), 7);
	ck_assert_str_eq(plot_str(&l, "qpn", "d"), "d");
	ck_assert_str_eq(plot_str(&l, "nope", "d"), "d");
	ck_assert_int_eq(plot_parse(" { } ", &l), 0);
	ck_assert_uint_eq(l.n, 0);
}
END_TEST

START_TEST(test_strings)
{
	ck_assert_int_eq(plot_parse("{\"s\":\"a\\\"b\\\\c\\/d\\n\\t\\u0041"
				    "\\u00e9\\u20ac\"}", &l), 0);
	ck_assert_str_eq(plot_str(&l, "s", ""),
			 "a\"b\\c/d\n\tA\xc3\xa9\xe2\x82\xac");
}
END_TEST

/* Each of these is refused, and says nothing after. */
START_TEST(test_refused)
{
	static const char *const bad[] = {
		"", "[]", "{", "{\"a\":1", "{\"a\":1}x", "{\"a\" 1}",
		"{\"a\":}", "{\"a\":{}}", "{\"a\":[1]}", "{a:1}",
		"{\"a\":\"open}", "{\"a\":\"\\q\"}", "{\"a\":\"\\u12\"}",
		"{\"a\":tru}", "{\"a\":1,}", "{\"a\":\"x\ny\"}", "{,}",
	};
	char many[2048];
	size_t i, at;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(plot_parse(bad[i], &l) == -1, "took %s", bad[i]);
		ck_assert_uint_eq(l.n, 0);
	}
	/* More fields than a line holds. */
	at = (size_t)snprintf(many, sizeof(many), "{\"f0\":0");
	for (i = 1; i <= PLOT_FIELDS; i++)
		at += (size_t)snprintf(many + at, sizeof(many) - at,
				       ",\"f%zu\":%zu", i, i);
	snprintf(many + at, sizeof(many) - at, "}");
	ck_assert_int_eq(plot_parse(many, &l), -1);
}
END_TEST

static Suite *plot_suite(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("json");

	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(plot_suite());
}
