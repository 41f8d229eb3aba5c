/* Unit tests for sharing a context within the process: ibv_import_device
 * on a dup of a context's command file (and its refusals), importing
 * PDs, MRs and DMs by handle, traffic on what was imported, and what
 * destroying or unimporting through an import does. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <check.h>
#include <infiniband/verbs.h>
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

static struct ibv_context *import_of(struct ibv_context *ctx)
{
	int fd = dup(ctx->cmd_fd);
	struct ibv_context *imp;

	ck_assert_int_ge(fd, 0);
	imp = ibv_import_device(fd);
	ck_assert_ptr_nonnull(imp);
	ck_assert_int_eq(imp->cmd_fd, fd);
	ck_assert_ptr_eq(imp->device, ctx->device);
	ck_assert_int_ne(imp->async_fd, ctx->async_fd);
	return imp;
}

/* What rdma-core answers for fds that name no context it can import, and
 * ours for command files it cannot honour. */
START_TEST(t_import_device_refusals)
{
	struct ibv_context *ctx = open_default();
	int fds[2], nul = open("/dev/null", O_RDWR), fd, forged;
	char head[64];
	ssize_t n;

#define REFUSED(f, e)                                                    \
	do {                                                             \
		errno = 0;                                               \
		ck_assert_ptr_null(ibv_import_device(f));                \
		ck_assert_int_eq(errno, e);                              \
	} while (0)

	ck_assert_int_eq(pipe(fds), 0);
	REFUSED(-1, EINVAL);			/* fstat fails */
	REFUSED(fds[0], EINVAL);		/* no character device */
	REFUSED(ctx->async_fd, EINVAL);
	REFUSED(nul, ENODEV);			/* a char device, no HCA's */
	/* A command file of another process (its pid after the 16-byte
	 * magic, verbs/import.c): its device is there. */
	n = pread(ctx->cmd_fd, head, sizeof(head), 0);
	ck_assert_int_ge(n, 16 + (ssize_t)sizeof(pid_t));
	forged = memfd_create("forged", 0);
	ck_assert_int_ge(forged, 0);
	*(pid_t *)(void *)(head + 16) = getpid() + 1;
	ck_assert_int_eq(pwrite(forged, head, (size_t)n, 0), n);
	REFUSED(forged, EOPNOTSUPP);
	/* A command file whose contexts are all closed. */
	fd = dup(ctx->cmd_fd);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	REFUSED(fd, ENODEV);
#undef REFUSED
	close(fd);
	close(forged);
	close(nul);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* An imported context uses the original's PD and MR by handle: QPs made
 * on it move data through the original's region; the import of an
 * import is of the same family; a context of another file sees none of
 * it (ENOENT). */
START_TEST(t_import_pd_mr_traffic)
{
	struct ibv_context *ctx = open_default(), *imp, *imp2;
	struct ibv_context *other = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *ipd;
	uint8_t buf[128];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), QP_ACCESS_ALL);
	struct ibv_mr *imr;
	struct qp_pair p;
	struct ibv_wc wc;

	imp = import_of(ctx);
	imp2 = import_of(imp);
	ipd = ibv_import_pd(imp2, pd->handle);
	ck_assert_ptr_nonnull(ipd);
	ck_assert_uint_eq(ipd->handle, pd->handle);
	ck_assert_ptr_eq(ipd->context, imp2);
	imr = ibv_import_mr(ipd, mr->handle);
	ck_assert_ptr_nonnull(imr);
	ck_assert_ptr_null(imr->addr);
	ck_assert_uint_eq(imr->length, sizeof(buf));
	ck_assert_uint_eq(imr->lkey, mr->lkey);
	ck_assert_uint_eq(imr->rkey, mr->rkey);
	ck_assert_ptr_eq(imr->pd, ipd);
	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(other, pd->handle));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(ibv_import_mr(ipd, 0xfffffff0u));
	ck_assert_int_eq(errno, ENOENT);

	ck_assert_int_eq(qp_pair_open(&p, imp2, ipd, NULL), 0);
	memset(buf, 0x42, 64);
	memset(buf + 64, 0, 64);
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_RDMA_WRITE, 1, buf, 64,
				 imr->lkey, (uintptr_t)buf + 64, imr->rkey),
			 0);
	wait_wc(p.cq[0], &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(buf[127], 0x42);
	ck_assert_int_eq(qp_pair_close(&p), 0);

	/* No rereg of an import (rdma-core: not IBV_MR_TYPE_MR). */
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(imr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, IBV_ACCESS_LOCAL_WRITE),
			 IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, EINVAL);
	/* The original PD is held while imported. */
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	errno = 0;
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	ibv_unimport_mr(imr);
	ibv_unimport_pd(ipd);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(imp2), 0);
	ck_assert_int_eq(ibv_close_device(imp), 0);
	ck_assert_int_eq(ibv_close_device(other), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* Destroying through an import destroys the object, as the kernel does:
 * an MR's keys stop working; a PD goes when nothing else holds it. */
START_TEST(t_import_destroy_through_import)
{
	struct ibv_context *ctx = open_default(), *imp;
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *ipd, *ipd2;
	uint8_t buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), QP_ACCESS_ALL);
	struct ibv_mr *imr;
	struct qp_pair p;
	uint32_t lkey = mr->lkey;
	struct ibv_wc wc;

	imp = import_of(ctx);
	ipd = ibv_import_pd(imp, pd->handle);
	ipd2 = ibv_import_pd(imp, pd->handle);
	imr = ibv_import_mr(ipd, mr->handle);
	ck_assert_ptr_nonnull(imr);
	ck_assert_int_eq(ibv_dereg_mr(imr), 0);	/* mr is gone with it */
	ck_assert_int_eq(qp_pair_open(&p, ctx, pd, NULL), 0);
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_SEND, 1, buf, 8, lkey, 0, 0),
			 0);
	wait_wc(p.cq[0], &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_LOC_PROT_ERR);
	ck_assert_int_eq(qp_pair_close(&p), 0);
	/* Another import holds the PD: busy; then the last one takes it
	 * (pd is gone with it). */
	errno = 0;
	ck_assert_int_eq(ibv_dealloc_pd(ipd), EBUSY);
	ck_assert_int_eq(errno, EBUSY);
	ibv_unimport_pd(ipd2);
	ck_assert_int_eq(ibv_dealloc_pd(ipd), 0);
	ck_assert_int_eq(ibv_close_device(imp), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* An imported DM reads what the original wrote (one memory), holds it
 * against ibv_free_dm, and a region registered on it is on the DM. */
START_TEST(t_import_dm_shares_memory)
{
	struct ibv_context *ctx = open_default(), *imp;
	struct ibv_alloc_dm_attr a = { .length = 256 };
	struct ibv_dm *dm = ibv_alloc_dm(ctx, &a), *idm;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint32_t in[4] = { 1, 2, 3, 4 }, out[4] = { 0 };

	ck_assert_ptr_nonnull(dm);
	imp = import_of(ctx);
	idm = ibv_import_dm(imp, dm->handle);
	ck_assert_ptr_nonnull(idm);
	ck_assert_ptr_eq(idm->context, imp);
	ck_assert_uint_eq(idm->handle, dm->handle);
	ck_assert_int_eq(ibv_memcpy_to_dm(dm, 16, in, sizeof(in)), 0);
	ck_assert_int_eq(ibv_memcpy_from_dm(out, idm, 16, sizeof(out)), 0);
	ck_assert_int_eq(memcmp(in, out, sizeof(in)), 0);
	ck_assert_int_eq(ibv_memcpy_from_dm(out, idm, 256, 4), EFAULT);
	errno = 0;
	ck_assert_ptr_null(ibv_import_dm(imp, dm->handle + 1000));
	ck_assert_int_eq(errno, ENOENT);

	pd = ibv_alloc_pd(imp);
	mr = ibv_reg_dm_mr(pd, idm, 0, 64, IBV_ACCESS_ZERO_BASED);
	ck_assert_ptr_nonnull(mr);
	ck_assert_int_eq(ibv_free_dm(dm), EBUSY);
	ibv_unimport_dm(idm);
	ck_assert_int_eq(ibv_free_dm(dm), EBUSY);	/* the region */
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	/* Freed through an import when only that import holds it. */
	idm = ibv_import_dm(imp, dm->handle);
	ck_assert_ptr_nonnull(idm);
	ck_assert_int_eq(ibv_free_dm(idm), 0);		/* dm is gone too */
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(imp), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* The original may close first: the import goes on, and is a family of
 * its command file still (a dup of its fd imports again). */
START_TEST(t_import_outlives_original)
{
	struct ibv_context *ctx = open_default(), *imp, *imp2;
	struct ibv_pd *pd;

	imp = import_of(ctx);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	pd = ibv_alloc_pd(imp);
	ck_assert_ptr_nonnull(pd);
	imp2 = import_of(imp);
	ck_assert_int_eq(ibv_close_device(imp2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(imp), 0);
}
END_TEST

/* Allocations failing inside: a PD whose import entry cannot be made is
 * not made; a failed import holds nothing; a failed DM import neither. */
START_TEST(t_import_alloc_failures)
{
	struct ibv_context *ctx = open_default(), *imp;
	struct ibv_alloc_dm_attr a = { .length = 64 };
	struct ibv_pd *pd = NULL;
	struct ibv_dm *dm;
	int nth;

	/* Each calloc of ibv_alloc_pd in turn, until it has none left. */
	for (nth = 1; nth < 8 && !pd; nth++) {
		emu_test_fail_calloc(nth);
		errno = 0;
		pd = ibv_alloc_pd(ctx);
		emu_test_fail_calloc(0);
		if (!pd)
			ck_assert_int_eq(errno, ENOMEM);
	}
	ck_assert_ptr_nonnull(pd);
	ck_assert_int_gt(nth, 2);
	dm = ibv_alloc_dm(ctx, &a);
	ck_assert_ptr_nonnull(dm);
	imp = import_of(ctx);
	emu_test_fail_calloc(1);
	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(imp, pd->handle));
	ck_assert_int_eq(errno, ENOMEM);
	emu_test_fail_calloc(1);
	errno = 0;
	ck_assert_ptr_null(ibv_import_dm(imp, dm->handle));
	ck_assert_int_eq(errno, ENOMEM);
	emu_test_fail_calloc(0);
	/* Nothing holds them. */
	ck_assert_int_eq(ibv_free_dm(dm), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(imp), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static Suite *import_suite(void)
{
	Suite *s = suite_create("import");
	TCase *tc = tcase_create("import");

	tcase_add_test(tc, t_import_device_refusals);
	tcase_add_test(tc, t_import_pd_mr_traffic);
	tcase_add_test(tc, t_import_destroy_through_import);
	tcase_add_test(tc, t_import_dm_shares_memory);
	tcase_add_test(tc, t_import_outlives_original);
	tcase_add_test(tc, t_import_alloc_failures);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(import_suite());
}
