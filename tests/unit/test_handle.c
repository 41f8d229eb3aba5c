/* Unit tests for object handles: the process's handle table
 * (emu/handle.c). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <check.h>

#include "emu/handle.h"
#include "tests/unit/testlib.h"

/* ---- the table ---------------------------------------------------------- */

/* Two stand-ins for contexts: the table only compares them. */
static const struct emu_context *const ctx_a =
	(const struct emu_context *)&ctx_a;
static const struct emu_context *const ctx_b =
	(const struct emu_context *)&ctx_b;

START_TEST(t_handle_table_lookup)
{
	int obj[3] = { 0 };
	uint32_t h[3];

	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_PD, &obj[0], &h[0]), 0);
	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_CQ, &obj[1], &h[1]), 0);
	ck_assert_int_eq(emu_handle_add(ctx_b, EMU_OBJ_PD, &obj[2], &h[2]), 0);
	ck_assert_uint_ne(h[0], 0);
	ck_assert_uint_ne(h[0], h[1]);
	ck_assert_uint_ne(h[0], h[2]);
	ck_assert_uint_ne(h[1], h[2]);

	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_PD, &obj[0]),
			 0);
	/* Another type: EINVAL; another object: ENOENT; another context,
	 * or no such handle: ENOENT. */
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[1], EMU_OBJ_PD, &obj[0]),
			 EINVAL);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_PD, &obj[1]),
			 ENOENT);
	ck_assert_int_eq(emu_handle_lookup(ctx_b, h[0], EMU_OBJ_PD, &obj[0]),
			 ENOENT);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[2], EMU_OBJ_PD, &obj[2]),
			 ENOENT);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, 0, EMU_OBJ_PD, &obj[0]),
			 ENOENT);

	/* Removed: gone, and removing again (or with another object) is
	 * harmless. */
	emu_handle_remove(h[0], &obj[1]);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_PD, &obj[0]),
			 0);
	emu_handle_remove(h[0], &obj[0]);
	emu_handle_remove(h[0], &obj[0]);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_PD, &obj[0]),
			 ENOENT);

	/* A context that closes takes its handles along, only its own. */
	emu_handle_forget(ctx_a);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[1], EMU_OBJ_CQ, &obj[1]),
			 ENOENT);
	ck_assert_int_eq(emu_handle_lookup(ctx_b, h[2], EMU_OBJ_PD, &obj[2]),
			 0);
	emu_handle_remove(h[2], &obj[2]);
}
END_TEST

/* The table grows without losing or renumbering an entry, and a handle is
 * not handed out again while it lives. */
START_TEST(t_handle_table_grows)
{
	enum { N = 5000 };
	static int obj[N];
	static uint32_t h[N];
	int i;

	for (i = 0; i < N; i++) {
		ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_MR, &obj[i],
						&h[i]), 0);
		/* Churn: every third one goes again at once. */
		if (i % 3 == 2)
			emu_handle_remove(h[i - 1], &obj[i - 1]);
	}
	for (i = 0; i < N; i++) {
		int want = i % 3 == 1 && i + 1 < N ? ENOENT : 0;

		ck_assert_int_eq(emu_handle_lookup(ctx_a, h[i], EMU_OBJ_MR,
						   &obj[i]), want);
		if (i)
			ck_assert_uint_ne(h[i], h[i - 1]);
	}
	emu_handle_forget(ctx_a);
}
END_TEST

/* Growing needs memory: without it, ENOMEM and the table as it was. */
START_TEST(t_handle_table_nomem)
{
	int obj[2] = { 0 };
	uint32_t h[2];

	emu_test_fail_calloc(1);
	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_PD, &obj[0], &h[0]),
			 ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_PD, &obj[0], &h[0]), 0);
	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_PD, &obj[1], &h[1]), 0);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_PD, &obj[0]),
			 0);
	emu_handle_forget(ctx_a);
}
END_TEST

static Suite *handle_suite(void)
{
	Suite *s = suite_create("handle");
	TCase *tt = tcase_create("table");

	tcase_add_test(tt, t_handle_table_lookup);
	tcase_add_test(tt, t_handle_table_grows);
	tcase_add_test(tt, t_handle_table_nomem);
	suite_add_tcase(s, tt);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(handle_suite());
}
