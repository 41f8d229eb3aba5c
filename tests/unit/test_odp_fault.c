/* Unit tests for emu_odp_fault (emu/objects/odp.c): the kernel faults pages in for
 * an ODP access, and a page that is missing or lacks the protection the
 * access needs is an answer (EFAULT), never a signal. */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/mman.h>

#include <check.h>

#include "emu/objects/odp.h"
#include "tests/unit/testlib.h"

static size_t pg(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

START_TEST(t_odp_fault_present_and_absent)
{
	uint8_t *m = mmap(NULL, 4 * pg(), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char vec[4];

	ck_assert_ptr_ne(m, MAP_FAILED);
	ck_assert_int_eq(mprotect(m + pg(), pg(), PROT_READ), 0);
	ck_assert_int_eq(mprotect(m + 2 * pg(), pg(), PROT_NONE), 0);
	ck_assert_int_eq(munmap(m + 3 * pg(), pg()), 0);

	/* Untouched pages are faulted in, for reading or writing. */
	ck_assert_int_eq(emu_odp_fault(m + 10, 100, true), 0);
	ck_assert_int_eq(mincore(m, pg(), vec), 0);
	ck_assert_int_eq(vec[0] & 1, 1);
	ck_assert_int_eq(emu_odp_fault(m + pg(), pg(), false), 0);
	/* Read-only: no write; PROT_NONE: nothing; a hole: nothing. */
	ck_assert_int_eq(emu_odp_fault(m + pg(), 8, true), EFAULT);
	ck_assert_int_eq(emu_odp_fault(m + 2 * pg(), 1, false), EFAULT);
	ck_assert_int_eq(emu_odp_fault(m + 3 * pg(), 1, false), EFAULT);
	/* A range running from good pages into a bad one fails whole. */
	ck_assert_int_eq(emu_odp_fault(m, 2 * pg() + 1, false), EFAULT);
	/* Nothing to fault; the page at 0; the end of the address space. */
	ck_assert_int_eq(emu_odp_fault(NULL, 0, true), 0);
	ck_assert_int_eq(emu_odp_fault(NULL, 8, false), EFAULT);
	ck_assert_int_eq(emu_odp_fault((void *)(UINTPTR_MAX - 4), 4, false),
			 EFAULT);
	ck_assert_int_eq(emu_odp_fault(m, UINT64_MAX, false), EFAULT);
	munmap(m, 3 * pg());
}
END_TEST

START_TEST(t_odp_implicit_range)
{
	ck_assert(emu_odp_is_implicit(NULL, UINT64_MAX));
	ck_assert(!emu_odp_is_implicit(NULL, UINT64_MAX - 1));
	ck_assert(!emu_odp_is_implicit((void *)4096, UINT64_MAX));
}
END_TEST

static Suite *odp_fault_suite(void)
{
	Suite *s = suite_create("odp_fault");
	TCase *tc = tcase_create("fault");

	tcase_add_test(tc, t_odp_fault_present_and_absent);
	tcase_add_test(tc, t_odp_implicit_range);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(odp_fault_suite());
}
