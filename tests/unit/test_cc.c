/* Unit tests for DCQCN's arithmetic in emu/transport/cc.c (Zhu et al., SIGCOMM 2015):
 * the cut by alpha/2 and alpha's rise at a CNP, alpha's decay, fast
 * recovery towards the target, additive and hyper increase, the floor and
 * the release at the line rate; time is the caller's, so each is exact. */
#include <check.h>
#include <math.h>

#include "emu/transport/cc.h"
#include "emu/device/config.h"
#include "tests/unit/testlib.h"

#define LINE	10000.0		/* Mb/s: 1x QDR */
#define T0	1000000000ull

static const struct emu_dcqcn_cfg P = EMU_DCQCN_DEFAULTS;
#define K	((uint64_t)P.alpha_us * 1000)	/* = the timer's period */
#define G	P.g
#define F	((int)P.f)

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6 * (fabs(b) + 1);
}

START_TEST(t_cut)
{
	struct emu_cc cc = { 0 };
	double a;

	emu_dcqcn_cut(&cc, &P, LINE, T0);
	ck_assert(cc.limited);
	/* alpha starts at 1: the rate halves, the target is the old rate. */
	ck_assert(near(cc.rc, LINE / 2));
	ck_assert(near(cc.rt, LINE));
	ck_assert(near(cc.alpha, 1.0));
	/* Another CNP at once: half again, alpha rises towards 1 (it is). */
	emu_dcqcn_cut(&cc, &P, LINE, T0 + 1000);
	ck_assert(near(cc.rc, LINE / 4));
	ck_assert(near(cc.rt, LINE / 2));
	/* Ten alpha periods without a CNP: alpha x (1 - g)^10, and a cut by
	 * alpha / 2 of the rate fast recovery brought up meanwhile. */
	a = pow(1 - G, 10);
	emu_dcqcn_advance(&cc, &P, LINE, T0 + 1000 + 10 * K);
	ck_assert(near(cc.alpha, a));
	ck_assert_uint_eq(cc.cuts, 2);
}
END_TEST

START_TEST(t_recovery)
{
	struct emu_cc cc = { 0 };
	double rc;
	int i;

	emu_dcqcn_cut(&cc, &P, LINE, T0);
	/* Fast recovery: each timer step halves the way to the target. */
	for (i = 1, rc = LINE / 2; i < F; i++) {
		emu_dcqcn_advance(&cc, &P, LINE, T0 + (uint64_t)i * K);
		rc = (LINE + rc) / 2;
		ck_assert_msg(near(cc.rc, rc), "step %d: %f", i, cc.rc);
		ck_assert(near(cc.rt, LINE));
	}
	ck_assert(cc.limited);
	/* At the line rate the limiter lets go. */
	emu_dcqcn_advance(&cc, &P, LINE, T0 + 600 * K);
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

	emu_dcqcn_cut(&cc, &P, LINE, T0);
	emu_dcqcn_cut(&cc, &P, LINE, T0);
	emu_dcqcn_cut(&cc, &P, LINE, T0);		/* target LINE / 4 */
	for (i = 1; i <= F; i++)
		emu_dcqcn_advance(&cc, &P, LINE, T0 + (uint64_t)i * K);
	rt = cc.rt;
	emu_dcqcn_advance(&cc, &P, LINE, T0 + (uint64_t)(F + 1) * K);
	ck_assert(near(cc.rt, rt + P.ai_mbps));
	/* Hyper: both counters past F. */
	cc.bc_steps = F + 2;
	rt = cc.rt;
	emu_dcqcn_advance(&cc, &P, LINE, T0 + (uint64_t)(F + 2) * K);
	ck_assert(near(cc.rt, rt + 2 * P.hai_mbps));
}
END_TEST

/* Many CNPs in a row never take the rate below the floor. */
START_TEST(t_floor)
{
	struct emu_cc cc = { 0 };
	int i;

	for (i = 0; i < 100; i++)
		emu_dcqcn_cut(&cc, &P, LINE, T0 + (uint64_t)i);
	ck_assert(near(cc.rc, P.min_mbps));
	ck_assert_uint_eq(cc.cuts, 100);
}
END_TEST

/* The parameters are the port's: a larger g and additive step, F = 0. */
START_TEST(t_params)
{
	struct emu_dcqcn_cfg q = P;
	struct emu_cc cc = { 0 };

	q.g = 0.5;
	q.f = 0;
	q.ai_mbps = 1000;
	q.min_mbps = 4000;
	emu_dcqcn_cut(&cc, &q, LINE, T0);
	ck_assert(near(cc.rc, LINE / 2));
	ck_assert(near(cc.alpha, 1.0));
	emu_dcqcn_cut(&cc, &q, LINE, T0);
	ck_assert(near(cc.rc, 4000));			/* the floor */
	/* F = 0: the first timer step is additive, by 1000 Mb/s. */
	emu_dcqcn_advance(&cc, &q, LINE, T0 + (uint64_t)q.timer_us * 1000);
	ck_assert(near(cc.rt, LINE / 2 + 1000));
	ck_assert(near(cc.alpha, 0.5));	/* one alpha period at g = 1/2 */
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
	tcase_add_test(tc, t_params);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(cc_suite());
}
