/* Unit tests for DCQCN's arithmetic in emu/cc.c (Zhu et al., SIGCOMM 2015):
 * the cut by alpha/2 and alpha's rise at a CNP, alpha's decay, fast
 * recovery towards the target, additive and hyper increase, the floor and
 * the release at the line rate; time is the caller's, so each is exact. */
#include <check.h>
#include <math.h>

#include "emu/cc.h"
#include "tests/unit/testlib.h"

#define LINE	10000.0		/* Mb/s: 1x QDR */
#define T0	1000000000ull
#define K	EMU_DCQCN_ALPHA_NS

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6 * (fabs(b) + 1);
}

START_TEST(t_cut)
{
	struct emu_cc cc = { 0 };
	double a;

	emu_dcqcn_cut(&cc, LINE, T0);
	ck_assert(cc.limited);
	/* alpha starts at 1: the rate halves, the target is the old rate. */
	ck_assert(near(cc.rc, LINE / 2));
	ck_assert(near(cc.rt, LINE));
	ck_assert(near(cc.alpha, 1.0));
	/* Another CNP at once: half again, alpha rises towards 1 (it is). */
	emu_dcqcn_cut(&cc, LINE, T0 + 1000);
	ck_assert(near(cc.rc, LINE / 4));
	ck_assert(near(cc.rt, LINE / 2));
	/* Ten alpha periods without a CNP: alpha x (1 - g)^10, and a cut by
	 * alpha / 2 of the rate fast recovery brought up meanwhile. */
	a = pow(1 - EMU_DCQCN_G, 10);
	emu_dcqcn_advance(&cc, LINE, T0 + 1000 + 10 * K);
	ck_assert(near(cc.alpha, a));
	ck_assert_uint_eq(cc.cuts, 2);
}
END_TEST

START_TEST(t_recovery)
{
	struct emu_cc cc = { 0 };
	double rc;
	int i;

	emu_dcqcn_cut(&cc, LINE, T0);
	/* Fast recovery: each timer step halves the way to the target. */
	for (i = 1, rc = LINE / 2; i < EMU_DCQCN_F; i++) {
		emu_dcqcn_advance(&cc, LINE, T0 + (uint64_t)i * K);
		rc = (LINE + rc) / 2;
		ck_assert_msg(near(cc.rc, rc), "step %d: %f", i, cc.rc);
		ck_assert(near(cc.rt, LINE));
	}
	ck_assert(cc.limited);
	/* At the line rate the limiter lets go. */
	emu_dcqcn_advance(&cc, LINE, T0 + 600 * K);
	ck_assert(!cc.limited);
}
END_TEST

/* Below the line, past F timer steps: the target grows by R_AI per step
 * (additive), and by (steps - F) x R_HAI once the byte counter has had
 * more than F steps too (hyper). */
START_TEST(t_increase)
{
	struct emu_cc cc = { 0 };
	double rt;
	int i;

	emu_dcqcn_cut(&cc, LINE, T0);
	emu_dcqcn_cut(&cc, LINE, T0);
	emu_dcqcn_cut(&cc, LINE, T0);		/* target LINE / 4 */
	for (i = 1; i <= EMU_DCQCN_F; i++)
		emu_dcqcn_advance(&cc, LINE, T0 + (uint64_t)i * K);
	rt = cc.rt;
	emu_dcqcn_advance(&cc, LINE, T0 + (uint64_t)(EMU_DCQCN_F + 1) * K);
	ck_assert(near(cc.rt, rt + EMU_DCQCN_RAI_MBPS));
	/* Hyper: both counters past F. */
	cc.bc_steps = EMU_DCQCN_F + 2;
	rt = cc.rt;
	emu_dcqcn_advance(&cc, LINE, T0 + (uint64_t)(EMU_DCQCN_F + 2) * K);
	ck_assert(near(cc.rt, rt + 2 * EMU_DCQCN_RHAI_MBPS));
}
END_TEST

/* Many CNPs in a row never take the rate below the floor. */
START_TEST(t_floor)
{
	struct emu_cc cc = { 0 };
	int i;

	for (i = 0; i < 100; i++)
		emu_dcqcn_cut(&cc, LINE, T0 + (uint64_t)i);
	ck_assert(near(cc.rc, EMU_DCQCN_MIN_MBPS));
	ck_assert_uint_eq(cc.cuts, 100);
}
END_TEST

static Suite *cc_suite(void)
{
	Suite *s = suite_create("cc");
	TCase *tc = tcase_create("dcqcn");

	tcase_add_test(tc, t_cut);
	tcase_add_test(tc, t_recovery);
	tcase_add_test(tc, t_increase);
	tcase_add_test(tc, t_floor);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(cc_suite());
}
