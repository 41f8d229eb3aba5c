/* Unit tests for the HCA's clock: hca_core_clock and the timestamp mask,
 * ibv_query_rt_values_ex, and completion timestamps (core clock and wall
 * clock) in extended CQs, kept across a resize. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <check.h>
#include <infiniband/verbs.h>
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define TS_FLAGS                                                          \
	(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |                            \
	 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

static uint64_t ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

START_TEST(t_clock_caps_reported)
{
	struct ibv_context *ctx = open_default();
	struct ibv_device_attr_ex a;

	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &a), 0);
	ck_assert_uint_eq(a.hca_core_clock, 1000000);	/* kHz: 1 GHz */
	ck_assert_uint_eq(a.completion_timestamp_mask, 0x7fffffffffffffffull);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* RAW_CLOCK: the core clock's ticks (ns of CLOCK_MONOTONIC_RAW) in
 * tv_nsec, tv_sec 0, as mlx5; comp_mask says what was filled; unknown
 * bits are EINVAL. */
START_TEST(t_query_rt_values)
{
	struct ibv_context *ctx = open_default();
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	uint64_t before, after;

	before = ns(CLOCK_MONOTONIC_RAW);
	ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v), 0);
	after = ns(CLOCK_MONOTONIC_RAW);
	ck_assert_uint_eq(v.comp_mask, IBV_VALUES_MASK_RAW_CLOCK);
	ck_assert_int_eq(v.raw_clock.tv_sec, 0);
	ck_assert_uint_ge((uint64_t)v.raw_clock.tv_nsec, before);
	ck_assert_uint_le((uint64_t)v.raw_clock.tv_nsec, after);

	v.comp_mask = 0;
	ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v), 0);
	ck_assert_uint_eq(v.comp_mask, 0);
	v.comp_mask = 2;
	errno = 0;
	ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static struct ibv_cq_ex *make_cq(struct ibv_context *ctx, uint64_t flags)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS | flags,
	};
	struct ibv_cq_ex *cq = ibv_create_cq_ex(ctx, &a);

	ck_assert_ptr_nonnull(cq);
	return cq;
}

/* The next completion of cq, within 5 s, left current (start_poll). */
static void start(struct ibv_cq_ex *cq)
{
	double end = now_ms() + 5000;
	int rc;

	while ((rc = ibv_start_poll(cq, NULL)) == ENOENT && now_ms() < end)
		;
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(cq->status, IBV_WC_SUCCESS);
}

/* A SEND's two completions carry both clocks, each read between the
 * post and the poll that found it; a CQ that did not ask has neither
 * accessor. */
START_TEST(t_cq_completion_timestamps)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq_ex *plain = make_cq(ctx, 0);
	struct qp_pair_opts o = { 0 };
	struct qp_pair p;
	uint64_t raw0, wall0, raw1, wall1, ts[2], wc[2];
	struct ibv_cq_ex *cqx[2];
	char buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	int i;

	ck_assert_ptr_null(plain->read_completion_ts);
	ck_assert_ptr_null(plain->read_completion_wallclock_ns);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(plain)), 0);
	for (i = 0; i < 2; i++) {
		cqx[i] = make_cq(ctx, TS_FLAGS);
		o.cq[i] = ibv_cq_ex_to_cq(cqx[i]);
	}
	ck_assert_int_eq(qp_pair_open(&p, ctx, pd, &o), 0);

	ck_assert_int_eq(qp_recv(p.qp[1], 1, buf + 32, 32, mr->lkey), 0);
	raw0 = ns(CLOCK_MONOTONIC_RAW);
	wall0 = ns(CLOCK_REALTIME);
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_SEND, 2, buf, 32, mr->lkey,
				 0, 0), 0);
	for (i = 0; i < 2; i++) {
		struct ibv_cq_ex *cq = cqx[i];

		start(cq);
		ck_assert_ptr_nonnull(cq->read_completion_ts);
		ts[i] = ibv_wc_read_completion_ts(cq);
		wc[i] = ibv_wc_read_completion_wallclock_ns(cq);
		ibv_end_poll(cq);
	}
	raw1 = ns(CLOCK_MONOTONIC_RAW);
	wall1 = ns(CLOCK_REALTIME);
	for (i = 0; i < 2; i++) {
		ck_assert_uint_ge(ts[i], raw0);
		ck_assert_uint_le(ts[i], raw1);
		ck_assert_uint_ge(wc[i], wall0);
		ck_assert_uint_le(wc[i], wall1);
	}
	ck_assert_int_eq(qp_pair_close(&p), 0);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx[i])), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* Completions queued before a resize keep their timestamps, in order. */
START_TEST(t_cq_timestamps_survive_resize)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct qp_pair_opts o = { 0 };
	struct qp_pair p;
	char buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_cq_ex *cq;
	uint64_t first, second;
	struct ibv_wc wc;

	cq = make_cq(ctx, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
	o.cq[0] = ibv_cq_ex_to_cq(cq);
	ck_assert_int_eq(qp_pair_open(&p, ctx, pd, &o), 0);
	ck_assert_int_eq(qp_recv(p.qp[1], 1, buf, 8, mr->lkey), 0);
	ck_assert_int_eq(qp_recv(p.qp[1], 2, buf, 8, mr->lkey), 0);
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_SEND, 3, buf, 8, mr->lkey,
				 0, 0), 0);
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_SEND, 4, buf, 8, mr->lkey,
				 0, 0), 0);
	wait_wc(p.cq[1], &wc, 5000);
	wait_wc(p.cq[1], &wc, 5000);
	ck_assert_int_eq(ibv_resize_cq(p.cq[0], 64), 0);
	start(cq);
	ck_assert_uint_eq(cq->wr_id, 3);
	first = ibv_wc_read_completion_ts(cq);
	ck_assert_int_eq(ibv_next_poll(cq), 0);
	ck_assert_uint_eq(cq->wr_id, 4);
	second = ibv_wc_read_completion_ts(cq);
	ibv_end_poll(cq);
	ck_assert_uint_ne(first, 0);
	ck_assert_uint_ge(second, first);
	ck_assert_int_eq(qp_pair_close(&p), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static Suite *cq_ts_suite(void)
{
	Suite *s = suite_create("cq_ts");
	TCase *tc = tcase_create("clock");

	tcase_add_test(tc, t_clock_caps_reported);
	tcase_add_test(tc, t_query_rt_values);
	tcase_add_test(tc, t_cq_completion_timestamps);
	tcase_add_test(tc, t_cq_timestamps_survive_resize);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(cq_ts_suite());
}
