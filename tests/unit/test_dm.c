/* Unit tests for device memory: ibv_alloc_dm / ibv_free_dm with mlx5's
 * errnos and the device's budget, ibv_memcpy_to/from_dm, zero-based
 * regions on it (ibv_reg_dm_mr) and traffic through them, a failed
 * allocation giving the memory back. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/device/device.h"
#include "emu/objects/dm.h"
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define DM_ACCESS (IBV_ACCESS_ZERO_BASED | QP_ACCESS_ALL)

static struct ibv_dm *alloc(struct ibv_context *ctx, size_t len,
			    uint32_t log_align, uint32_t comp_mask)
{
	struct ibv_alloc_dm_attr a = {
		.length = len,
		.log_align_req = log_align,
		.comp_mask = comp_mask,
	};

	errno = 0;
	return ibv_alloc_dm(ctx, &a);
}

START_TEST(t_dm_caps_reported)
{
	struct ibv_context *ctx = open_default();
	struct ibv_device_attr_ex a;

	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &a), 0);
	ck_assert_uint_eq(a.max_dm_size, EMU_DM_MAX_SIZE);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* mlx5's answers: comp_mask, too large, empty, too aligned: EINVAL;
 * the device's memory used up: ENOMEM, until some is freed. */
START_TEST(t_dm_alloc_errnos_and_budget)
{
	struct ibv_context *ctx = open_default();
	struct emu_device *dev = emu_ctx(ctx)->dev;
	struct ibv_dm *a, *b;

	ck_assert_ptr_null(alloc(ctx, 64, 0, 1));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(alloc(ctx, EMU_DM_MAX_SIZE + 1, 0, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(alloc(ctx, 0, 0, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(alloc(ctx, 64, EMU_DM_MAX_LOG_ALIGN + 1, 0));
	ck_assert_int_eq(errno, EINVAL);

	/* 100 bytes take two 64-byte blocks of the budget. */
	a = alloc(ctx, 100, 0, 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_eq(a->context, ctx);
	ck_assert_uint_eq(emu_dm_used(dev), 128);
	ck_assert_ptr_null(alloc(ctx, EMU_DM_MAX_SIZE - 64, 0, 0));
	ck_assert_int_eq(errno, ENOMEM);
	b = alloc(ctx, EMU_DM_MAX_SIZE - 128, 0, 0);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_ne(a->handle, b->handle);
	ck_assert_int_eq(ibv_free_dm(a), 0);
	ck_assert_int_eq(ibv_free_dm(b), 0);
	ck_assert_uint_eq(emu_dm_used(dev), 0);
	b = alloc(ctx, EMU_DM_MAX_SIZE, EMU_DM_MAX_LOG_ALIGN, 0);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq((uintptr_t)to_emu_dm(b)->mem &
			  ((1u << EMU_DM_MAX_LOG_ALIGN) - 1), 0);
	ck_assert_int_eq(ibv_free_dm(b), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* A copy round trip; outside the DM: EFAULT; off 4-byte granules:
 * EINVAL (mlx5_access_dm), with errno set too. */
START_TEST(t_dm_memcpy)
{
	struct ibv_context *ctx = open_default();
	struct ibv_dm *dm = alloc(ctx, 100, 0, 0);
	uint8_t in[100], out[100];
	unsigned int i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 13 + 1);
	ck_assert_int_eq(ibv_memcpy_to_dm(dm, 0, in, 100), 0);
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(ibv_memcpy_from_dm(out, dm, 0, 100), 0);
	ck_assert_int_eq(memcmp(in, out, 100), 0);
	ck_assert_int_eq(ibv_memcpy_from_dm(out, dm, 96, 4), 0);
	ck_assert_int_eq(memcmp(out, in + 96, 4), 0);

	errno = 0;
	ck_assert_int_eq(ibv_memcpy_to_dm(dm, 100, in, 4), EFAULT);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_int_eq(ibv_memcpy_to_dm(dm, 0, in, 104), EFAULT);
	ck_assert_int_eq(ibv_memcpy_from_dm(out, dm, UINT64_MAX - 3, 8),
			 EFAULT);
	ck_assert_int_eq(ibv_memcpy_to_dm(dm, 3, in, 4), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_memcpy_from_dm(out, dm, 0, 6), EINVAL);
	ck_assert_int_eq(ibv_free_dm(dm), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* Regions on a DM: the rights and range rules, addr NULL, length 0
 * allowed, no rereg (EINVAL), and the DM busy while one lives. */
START_TEST(t_dm_reg_mr_rules)
{
	struct ibv_context *ctx = open_default(), *ctx2 = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *pd2 = ibv_alloc_pd(ctx2);
	struct ibv_dm *dm = alloc(ctx, 128, 0, 0);
	struct ibv_mr *mr, *empty;

#define REFUSED(p, off, len, acc, e)                                     \
	do {                                                             \
		errno = 0;                                               \
		ck_assert_ptr_null(ibv_reg_dm_mr(p, dm, off, len, acc)); \
		ck_assert_int_eq(errno, e);                              \
	} while (0)

	REFUSED(pd, 0, 64, QP_ACCESS_ALL, EINVAL);
	REFUSED(pd, 0, 64, DM_ACCESS | IBV_ACCESS_ON_DEMAND, EINVAL);
	REFUSED(pd, 0, 64, DM_ACCESS | IBV_ACCESS_MW_BIND, EINVAL);
	REFUSED(pd, 0, 64, IBV_ACCESS_ZERO_BASED | IBV_ACCESS_REMOTE_WRITE,
		EINVAL);
	REFUSED(pd, 64, 65, DM_ACCESS, EINVAL);
	REFUSED(pd, 129, 0, DM_ACCESS, EINVAL);
	REFUSED(pd, UINT64_MAX, 2, DM_ACCESS, EINVAL);
	REFUSED(pd2, 0, 64, DM_ACCESS, ENOENT);
#undef REFUSED

	mr = ibv_reg_dm_mr(pd, dm, 64, 64, DM_ACCESS);
	ck_assert_ptr_nonnull(mr);
	ck_assert_ptr_null(mr->addr);
	ck_assert_uint_eq(mr->length, 64);
	ck_assert_ptr_eq(mr->pd, pd);
	empty = ibv_reg_dm_mr(pd, dm, 0, 0, IBV_ACCESS_ZERO_BASED);
	ck_assert_ptr_nonnull(empty);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, DM_ACCESS),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EINVAL);

	errno = 0;
	ck_assert_int_eq(ibv_free_dm(dm), EBUSY);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_free_dm(dm), EBUSY);
	ck_assert_int_eq(ibv_dereg_mr(empty), 0);
	ck_assert_int_eq(ibv_free_dm(dm), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_close_device(ctx2), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* SEND from a DM region into another, WRITE and READ through the rkey of
 * one at offsets from 0 (zero-based); a WRITE past its end is NAKed. */
START_TEST(t_dm_traffic_zero_based)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_dm *da = alloc(ctx, 256, 0, 0), *db = alloc(ctx, 256, 0, 0);
	struct ibv_mr *ma = ibv_reg_dm_mr(pd, da, 0, 256, DM_ACCESS);
	/* b's region starts 64 bytes into its DM. */
	struct ibv_mr *mb = ibv_reg_dm_mr(pd, db, 64, 128, DM_ACCESS);
	struct qp_pair p;
	uint8_t msg[32], got[32];
	struct ibv_wc wc;

	ck_assert_ptr_nonnull(ma);
	ck_assert_ptr_nonnull(mb);
	ck_assert_int_eq(qp_pair_open(&p, ctx, pd, NULL), 0);
	memset(msg, 0xa5, sizeof(msg));
	ck_assert_int_eq(ibv_memcpy_to_dm(da, 16, msg, sizeof(msg)), 0);

	ck_assert_int_eq(qp_recv(p.qp[1], 1, (void *)(uintptr_t)8, 32,
				 mb->lkey), 0);
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_SEND, 2,
				 (void *)(uintptr_t)16, 32, ma->lkey, 0, 0),
			 0);
	wait_wc(p.cq[0], &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wait_wc(p.cq[1], &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_memcpy_from_dm(got, db, 64 + 8, 32), 0);
	ck_assert_int_eq(memcmp(got, msg, 32), 0);

	/* WRITE a's bytes to b's region offset 96, READ them back to a. */
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_RDMA_WRITE, 3,
				 (void *)(uintptr_t)16, 32, ma->lkey, 96,
				 mb->rkey), 0);
	wait_wc(p.cq[0], &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_memcpy_from_dm(got, db, 64 + 96, 32), 0);
	ck_assert_int_eq(memcmp(got, msg, 32), 0);
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_RDMA_READ, 4,
				 (void *)(uintptr_t)128, 32, ma->lkey, 96,
				 mb->rkey), 0);
	wait_wc(p.cq[0], &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_memcpy_from_dm(got, da, 128, 32), 0);
	ck_assert_int_eq(memcmp(got, msg, 32), 0);

	/* The region ends at 128: the DM's bytes past it are not its. */
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_RDMA_WRITE, 5,
				 (void *)(uintptr_t)16, 32, ma->lkey, 112,
				 mb->rkey), 0);
	wait_wc(p.cq[0], &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_REM_ACCESS_ERR);

	ck_assert_int_eq(qp_pair_close(&p), 0);
	ck_assert_int_eq(ibv_dereg_mr(ma), 0);
	ck_assert_int_eq(ibv_dereg_mr(mb), 0);
	ck_assert_int_eq(ibv_free_dm(da), 0);
	ck_assert_int_eq(ibv_free_dm(db), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* An allocation that runs out of memory gives its budget back: each of
 * its allocations fails in turn (the first that does not is past them
 * all, and succeeds). */
START_TEST(t_dm_alloc_failure_refunds)
{
	struct ibv_context *ctx = open_default();
	struct emu_device *dev = emu_ctx(ctx)->dev;
	struct ibv_dm *dm = NULL;
	int nth, failed = 0;

	/* The device's budget entry exists from here on: the calloc of
	 * its first use is not the one under test. */
	ck_assert_uint_eq(emu_dm_used(dev), 0);
	for (nth = 1; nth < 16 && !dm; nth++) {
		emu_test_fail_calloc(nth);
		dm = alloc(ctx, 4096, 0, 0);
		emu_test_fail_calloc(0);
		if (!dm) {
			ck_assert_int_eq(errno, ENOMEM);
			ck_assert_uint_eq(emu_dm_used(dev), 0);
			failed++;
		}
	}
	ck_assert_ptr_nonnull(dm);
	ck_assert_int_ge(failed, 1);
	ck_assert_uint_eq(emu_dm_used(dev), 4096);
	ck_assert_int_eq(ibv_free_dm(dm), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static Suite *dm_suite(void)
{
	Suite *s = suite_create("dm");
	TCase *tc = tcase_create("dm");

	tcase_add_test(tc, t_dm_caps_reported);
	tcase_add_test(tc, t_dm_alloc_errnos_and_budget);
	tcase_add_test(tc, t_dm_memcpy);
	tcase_add_test(tc, t_dm_reg_mr_rules);
	tcase_add_test(tc, t_dm_traffic_zero_based);
	tcase_add_test(tc, t_dm_alloc_failure_refunds);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(dm_suite());
}
