/* tests/unit/test_psn.c: 24-bit PSN arithmetic, above all across the wrap
 * from 0xffffff to 0 and at the edge of the +/- 2^23 comparison window.
 */
#include <check.h>
#include <stdlib.h>

#include "net/psn.h"
#include "tests/unit/testlib.h"

START_TEST(test_add_wraps)
{
	ck_assert_uint_eq(psn_add(0xffffff, 1), 0);
	ck_assert_uint_eq(psn_inc(0xffffff), 0);
	ck_assert_uint_eq(psn_add(0xfffffe, 5), 3);
	ck_assert_uint_eq(psn_add(0, 0x1000000), 0);
	ck_assert_uint_eq(psn_add(7, 0), 7);
	ck_assert_uint_eq(psn_sub(0, 1), 0xffffff);
	ck_assert_uint_eq(psn_sub(3, 5), 0xfffffe);
	ck_assert_uint_eq(psn_mask(0xff123456), 0x123456);
	ck_assert_uint_eq(psn_mask(0x1000000), 0);
	/* Upper bits of the input never leak into the result. */
	ck_assert_uint_eq(psn_add(0xff000001, 1), 2);
	ck_assert_uint_eq(PSN_MASK, (1u << PSN_BITS) - 1);
}
END_TEST

START_TEST(test_diff)
{
	ck_assert_int_eq(psn_diff(5, 3), 2);
	ck_assert_int_eq(psn_diff(3, 5), -2);
	ck_assert_int_eq(psn_diff(0, 0xffffff), 1);
	ck_assert_int_eq(psn_diff(0xffffff, 0), -1);
	ck_assert_int_eq(psn_diff(2, 0xfffffe), 4);
	ck_assert_int_eq(psn_diff(0x123456, 0x123456), 0);
	/* The window edges: +2^23 - 1 ahead, 2^23 counts as behind. */
	ck_assert_int_eq(psn_diff(0x7fffff, 0), 0x7fffff);
	ck_assert_int_eq(psn_diff(0x800000, 0), -0x800000);
	ck_assert_int_eq(psn_diff(0, 0x800000), -0x800000);
	ck_assert_int_eq(psn_diff(0, 0x800001), 0x7fffff);
	ck_assert_int_eq(psn_diff(0xffffff, 0x7fffff), -0x800000);
	ck_assert_int_eq(psn_diff(0xffffff, 0x800000), 0x7fffff);
}
END_TEST

START_TEST(test_compare_across_wrap)
{
	ck_assert(psn_before(0xffffff, 0));
	ck_assert(psn_after(0, 0xffffff));
	ck_assert(psn_before(0xfffff0, 0x10));
	ck_assert(psn_after(0x10, 0xfffff0));
	ck_assert(!psn_before(5, 5));
	ck_assert(!psn_after(5, 5));
	ck_assert(psn_before_eq(5, 5));
	ck_assert(psn_after_eq(5, 5));
	ck_assert(psn_before_eq(0xffffff, 0));
	ck_assert(!psn_after_eq(0xffffff, 0));
	ck_assert(psn_after_eq(1, 0xffffff));
	ck_assert_int_eq(psn_cmp(0xffffff, 0), -1);
	ck_assert_int_eq(psn_cmp(0, 0xffffff), 1);
	ck_assert_int_eq(psn_cmp(42, 42), 0);
}
END_TEST

START_TEST(test_compare_is_antisymmetric)
{
	/* a before b iff b after a, for points all round the circle. */
	static const uint32_t pts[] = {
		0, 1, 2, 0x7ffffe, 0x7fffff, 0x800000, 0x800001,
		0xfffffe, 0xffffff, 0x123456, 0xabcdef,
	};
	const size_t n = sizeof(pts) / sizeof(pts[0]);

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			uint32_t a = pts[i], b = pts[j];
			int32_t d = psn_diff(a, b);

			ck_assert_uint_eq(psn_add(b, (uint32_t)d), a);
			if (d == -0x800000)
				continue;	/* the one ambiguous distance */
			ck_assert_int_eq(psn_before(a, b), psn_after(b, a));
			ck_assert_int_eq(psn_diff(b, a), -d);
		}
	}
}
END_TEST

START_TEST(test_in_range)
{
	ck_assert(psn_in_range(5, 5, 5));
	ck_assert(psn_in_range(6, 5, 10));
	ck_assert(!psn_in_range(4, 5, 10));
	ck_assert(!psn_in_range(11, 5, 10));
	/* A window that wraps: 0xfffffd .. 2 */
	ck_assert(psn_in_range(0xfffffd, 0xfffffd, 2));
	ck_assert(psn_in_range(0xffffff, 0xfffffd, 2));
	ck_assert(psn_in_range(0, 0xfffffd, 2));
	ck_assert(psn_in_range(2, 0xfffffd, 2));
	ck_assert(!psn_in_range(3, 0xfffffd, 2));
	ck_assert(!psn_in_range(0xfffffc, 0xfffffd, 2));
}
END_TEST

START_TEST(test_walk_through_wrap)
{
	uint32_t psn = 0xfffff0, prev;

	for (int i = 0; i < 64; i++) {
		prev = psn;
		psn = psn_inc(psn);
		ck_assert_uint_le(psn, PSN_MASK);
		ck_assert(psn_after(psn, prev));
		ck_assert_int_eq(psn_diff(psn, 0xfffff0), i + 1);
	}
	ck_assert_uint_eq(psn, 0x30);
}
END_TEST

static Suite *psn_suite(void)
{
	Suite *s = suite_create("psn");
	TCase *tc = tcase_create("arith");

	tcase_add_test(tc, test_add_wraps);
	tcase_add_test(tc, test_diff);
	tcase_add_test(tc, test_compare_across_wrap);
	tcase_add_test(tc, test_compare_is_antisymmetric);
	tcase_add_test(tc, test_in_range);
	tcase_add_test(tc, test_walk_through_wrap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(psn_suite());
}
