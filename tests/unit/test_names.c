/* tests/unit/test_names.c: the QP type and state names (emu/objects/names.c) that
 * the log, the trace and the control socket's statistics print. The
 * oracle is the verbs ABI's numbers for the enumerators (rdma-core's
 * verbs.h: RC 2, UC 3, UD 4, RAW_PACKET 8, XRC_SEND 9, XRC_RECV 10,
 * DRIVER 0xff; states RESET 0 to ERR 6), written out here as numbers, and
 * the spellings doc/observability.md documents for trace events. */
#include <check.h>

#include "emu/objects/names.h"
#include "tests/unit/testlib.h"

START_TEST(t_types)
{
	static const struct {
		int v;
		const char *name;
	} rows[] = {
		{ 2, "RC" },	   { 3, "UC" },	      { 4, "UD" },
		{ 9, "XRC_SEND" }, { 10, "XRC_RECV" },
		/* Never made: raw packet and driver QPs. */
		{ 8, "?" },	   { 0xff, "?" },
		/* Holes below and between, past the end, negative. */
		{ 0, "?" },	   { 1, "?" },	      { 5, "?" },
		{ 7, "?" },	   { 11, "?" },	      { -1, "?" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ck_assert_str_eq(emu_qp_type_name((enum ibv_qp_type)rows[i].v),
				 rows[i].name);
}
END_TEST

START_TEST(t_states)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};
	int s;

	for (s = 0; s < 7; s++)
		ck_assert_str_eq(emu_qp_state_name((enum ibv_qp_state)s),
				 names[s]);
	/* IBV_QPS_UNKNOWN (7), beyond, and what a caller made up. */
	ck_assert_str_eq(emu_qp_state_name((enum ibv_qp_state)7), "?");
	ck_assert_str_eq(emu_qp_state_name((enum ibv_qp_state)100), "?");
	ck_assert_str_eq(emu_qp_state_name((enum ibv_qp_state)-1), "?");
}
END_TEST

static Suite *names_suite(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, t_types);
	tcase_add_test(tc, t_states);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(names_suite());
}
