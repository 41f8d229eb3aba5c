/* tests/unit/test_numtab.c: the 24-bit number table behind QPNs and
 * SRQNs (emu/base/numtab.c): insert, lookup and remove, numbers advancing
 * past occupied slots and through the whole space before one comes back,
 * stale numbers, the max limit and allocation failure at create. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "emu/base/numtab.h"
#include "tests/unit/testlib.h"

#define SPACE	(1u << 24)

static struct emu_numtab t;
static int obj[8];

static void teardown(void)
{
	emu_numtab_destroy(&t);
}

START_TEST(t_insert_lookup_remove)
{
	ck_assert_int_eq(emu_numtab_create(&t, 4, 2, 100), 0);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[0]), 100);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[1]), 101);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[2]), 102);
	ck_assert_uint_eq(t.live, 3);
	ck_assert_ptr_eq(emu_numtab_lookup(&t, 100), &obj[0]);
	ck_assert_ptr_eq(emu_numtab_lookup(&t, 101), &obj[1]);
	ck_assert_ptr_eq(emu_numtab_lookup(&t, 102), &obj[2]);
	/* Free slots, and numbers sharing a live one's low bits. */
	ck_assert_ptr_null(emu_numtab_lookup(&t, 103));
	ck_assert_ptr_null(emu_numtab_lookup(&t, 0));
	ck_assert_ptr_null(emu_numtab_lookup(&t, 100 + t.mask + 1));
	ck_assert_ptr_null(emu_numtab_lookup(&t, 100 | SPACE));

	emu_numtab_remove(&t, 101, &obj[1]);
	ck_assert_ptr_null(emu_numtab_lookup(&t, 101));
	ck_assert_uint_eq(t.live, 2);
	/* Twice, with another object, or a number it does not hold. */
	emu_numtab_remove(&t, 101, &obj[1]);
	emu_numtab_remove(&t, 100, &obj[2]);
	emu_numtab_remove(&t, 100 + t.mask + 1, &obj[0]);
	emu_numtab_remove(&t, 103, NULL);
	ck_assert_uint_eq(t.live, 2);
	ck_assert_ptr_eq(emu_numtab_lookup(&t, 100), &obj[0]);
	ck_assert_ptr_eq(emu_numtab_lookup(&t, 102), &obj[2]);
}
END_TEST

START_TEST(t_advance_stale)
{
	uint32_t i;

	/* 2 objects: 4 slots. Number 10 stays; the others come and go. */
	ck_assert_int_eq(emu_numtab_create(&t, 2, 1, 10), 0);
	ck_assert_uint_eq(t.mask, 3);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[0]), 10);
	for (i = 11; i <= 13; i++) {
		ck_assert_int_eq(emu_numtab_insert(&t, &obj[1]), (int)i);
		emu_numtab_remove(&t, i, &obj[1]);
		/* Not given again at once: the next insert moves on. */
		ck_assert_ptr_null(emu_numtab_lookup(&t, i));
	}
	/* 14 would share 10's slot: passed over. */
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[1]), 15);
	emu_numtab_remove(&t, 15, &obj[1]);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[2]), 16);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[3]), -ENOMEM);

	/* The stale 16 - 4 = 12 is in 16's slot now: it finds nothing. */
	ck_assert_ptr_null(emu_numtab_lookup(&t, 12));
	ck_assert_ptr_eq(emu_numtab_lookup(&t, 16), &obj[2]);
	emu_numtab_remove(&t, 10, &obj[0]);
	ck_assert_ptr_null(emu_numtab_lookup(&t, 10));
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[0]), 17);
	ck_assert_ptr_null(emu_numtab_lookup(&t, 13));
}
END_TEST

START_TEST(t_wrap)
{
	uint32_t n, expect = 0x20;
	int got;

	/* At the top of the space numbers go on from lowest: 0 and 1 are
	 * never given. */
	ck_assert_int_eq(emu_numtab_create(&t, 1, 2, 0xfffffe), 0);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[0]), 0xfffffe);
	emu_numtab_remove(&t, 0xfffffe, &obj[0]);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[0]), 0xffffff);
	emu_numtab_remove(&t, 0xffffff, &obj[0]);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[0]), 2);
	emu_numtab_remove(&t, 2, &obj[0]);
	emu_numtab_destroy(&t);

	/* Once round the whole space from 0x20: every number but 0 and 1
	 * in turn, and 0x20 only when all have been given. */
	ck_assert_int_eq(emu_numtab_create(&t, 1, 2, expect), 0);
	for (n = 0; n < SPACE - 2; n++) {
		got = emu_numtab_insert(&t, &obj[0]);
		if (got != (int)expect)
			ck_abort_msg("insert %u gave %#x, not %#x", n, got,
				     expect);
		emu_numtab_remove(&t, (uint32_t)got, &obj[0]);
		expect = expect == SPACE - 1 ? 2 : expect + 1;
	}
	ck_assert_uint_eq(expect, 0x20);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[0]), 0x20);
}
END_TEST

START_TEST(t_max)
{
	ck_assert_int_eq(emu_numtab_create(&t, 2, 2, 2), 0);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[0]), 2);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[1]), 3);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[2]), -ENOMEM);
	ck_assert_int_eq(emu_numtab_count_in(&t), ENOMEM);
	ck_assert_uint_eq(t.live, 2);
	ck_assert_ptr_null(emu_numtab_lookup(&t, 4));

	/* An object counted outside the slots takes a place as well. */
	emu_numtab_remove(&t, 2, &obj[0]);
	ck_assert_int_eq(emu_numtab_count_in(&t), 0);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[2]), -ENOMEM);
	emu_numtab_count_out(&t);
	ck_assert_int_eq(emu_numtab_insert(&t, &obj[2]), 4);
	ck_assert_uint_eq(t.live, 2);
}
END_TEST

START_TEST(t_create_enomem)
{
	emu_test_fail_calloc(1);
	ck_assert_int_eq(emu_numtab_create(&t, 16, 2, 2), ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert_ptr_null(t.slot);
	/* Destroying what failed to create, or twice, is harmless. */
	emu_numtab_destroy(&t);
	ck_assert_int_eq(emu_numtab_create(&t, 16, 2, 2), 0);
	ck_assert_uint_eq(t.mask, 31);
	emu_numtab_destroy(&t);
	emu_numtab_destroy(&t);
}
END_TEST

static Suite *numtab_suite(void)
{
	Suite *s = suite_create("numtab");
	TCase *tc = tcase_create("numtab");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, t_insert_lookup_remove);
	tcase_add_test(tc, t_advance_stale);
	tcase_add_test(tc, t_wrap);
	tcase_add_test(tc, t_max);
	tcase_add_test(tc, t_create_enomem);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(numtab_suite());
}
