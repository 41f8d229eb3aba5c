/* Unit tests for thread domains and parent domains: their refusals and
 * reference counts, a parent domain standing for its PD everywhere, and
 * the queue memory of CQs, QPs and SRQs coming from (and going back to)
 * its allocators, resizes included. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <infiniband/verbs.h>
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

/* What the allocators below saw. */
struct book {
	int allocs, frees, defaults;
	int fail;			/* answer NULL to every request */
	int use_default;		/* answer IBV_ALLOCATOR_USE_DEFAULT */
	uint64_t types[64];
	void *live[64];
	int nlive;
	size_t last_align;
	struct ibv_pd *pd_seen;
};

static void *book_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			size_t alignment, uint64_t resource_type)
{
	struct book *b = pd_context;
	void *p = NULL;

	b->pd_seen = pd;
	b->last_align = alignment;
	if (b->fail)
		return NULL;
	if (b->use_default) {
		b->defaults++;
		return IBV_ALLOCATOR_USE_DEFAULT;
	}
	ck_assert_int_eq(posix_memalign(&p, alignment, size), 0);
	memset(p, 0xee, size);	/* the device must not rely on zeroes */
	b->types[b->allocs++ % 64] = resource_type;
	b->live[b->nlive++] = p;
	return p;
}

static void book_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		      uint64_t resource_type)
{
	struct book *b = pd_context;
	int i;

	(void)pd;
	(void)resource_type;
	for (i = 0; i < b->nlive; i++)
		if (b->live[i] == ptr)
			break;
	ck_assert_msg(i < b->nlive, "free of %p, never allocated", ptr);
	b->live[i] = b->live[--b->nlive];
	b->frees++;
	free(ptr);
}

static struct ibv_pd *parent(struct ibv_context *ctx, struct ibv_pd *pd,
			     struct ibv_td *td, struct book *b)
{
	struct ibv_parent_domain_init_attr a = {
		.pd = pd,
		.td = td,
		.comp_mask = b ? IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
				 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT : 0,
		.alloc = book_alloc,
		.free = book_free,
		.pd_context = b,
	};
	struct ibv_pd *p = ibv_alloc_parent_domain(ctx, &a);

	ck_assert_ptr_nonnull(p);
	return p;
}

static struct ibv_cq_ex *cq_on(struct ibv_context *ctx, struct ibv_pd *pdom)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 32,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
		.parent_domain = pdom,
	};

	errno = 0;
	return ibv_create_cq_ex(ctx, &a);
}

START_TEST(t_td_alloc_dealloc_busy)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *pdom;
	struct ibv_td_init_attr ta = { .comp_mask = 1 };
	struct ibv_td *td;

	errno = 0;
	ck_assert_ptr_null(ibv_alloc_td(ctx, &ta));
	ck_assert_int_eq(errno, EINVAL);
	ta.comp_mask = 0;
	td = ibv_alloc_td(ctx, &ta);
	ck_assert_ptr_nonnull(td);
	ck_assert_ptr_eq(td->context, ctx);
	pdom = parent(ctx, pd, td, NULL);
	errno = 0;
	ck_assert_int_eq(ibv_dealloc_td(td), EBUSY);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_int_eq(ibv_dealloc_pd(pdom), 0);
	ck_assert_int_eq(ibv_dealloc_td(td), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_parent_domain_refusals)
{
	struct ibv_context *ctx = open_default(), *ctx2 = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *pd2 = ibv_alloc_pd(ctx2);
	struct ibv_parent_domain_init_attr a = { .pd = NULL };
	struct ibv_cq_ex *cq;

#define REFUSED(c)                                                       \
	do {                                                             \
		errno = 0;                                               \
		ck_assert_ptr_null(ibv_alloc_parent_domain(c, &a));      \
		ck_assert_int_eq(errno, EINVAL);                         \
	} while (0)

	REFUSED(ctx);				/* no PD */
	a.pd = pd;
	a.comp_mask = 1u << 3;			/* unknown bit */
	REFUSED(ctx);
	a.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	a.alloc = book_alloc;			/* and no free */
	REFUSED(ctx);
	a.comp_mask = 0;
	a.pd = pd2;				/* another context's PD */
	REFUSED(ctx);
#undef REFUSED
	/* A CQ's parent_domain must be one (mlx5: EINVAL). */
	cq = cq_on(ctx, pd);
	ck_assert_ptr_null(cq);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_close_device(ctx2), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* As ibv_initialize_parent_domain: the PD's handle and context, and
 * interchangeable with it: a QP on the parent domain uses keys of the
 * PD's regions and the other way round; the PD stays busy meanwhile. */
START_TEST(t_parent_domain_stands_for_its_pd)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_pd *pdom = parent(ctx, pd, NULL, NULL);
	char a[64], b[64];
	struct ibv_mr *on_pd = ibv_reg_mr(pd, a, sizeof(a), QP_ACCESS_ALL);
	struct ibv_mr *on_pdom = ibv_reg_mr(pdom, b, sizeof(b),
					    QP_ACCESS_ALL);
	struct qp_pair p;
	struct ibv_wc wc;

	ck_assert_uint_eq(pdom->handle, pd->handle);
	ck_assert_ptr_eq(pdom->context, ctx);
	ck_assert_ptr_nonnull(on_pdom);
	ck_assert_ptr_eq(on_pdom->pd, pdom);
	errno = 0;
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	ck_assert_int_eq(qp_pair_open(&p, ctx, pdom, NULL), 0);
	ck_assert_ptr_eq(p.qp[0]->pd, pdom);
	memset(a, 7, sizeof(a));
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_RDMA_WRITE, 1, a, 64,
				 on_pd->lkey, (uintptr_t)b, on_pdom->rkey), 0);
	wait_wc(p.cq[0], &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(b[63], 7);
	/* QPs keep the parent domain busy. */
	ck_assert_int_eq(ibv_dealloc_pd(pdom), EBUSY);
	ck_assert_int_eq(qp_pair_close(&p), 0);
	ck_assert_int_eq(ibv_dereg_mr(on_pd), 0);
	ck_assert_int_eq(ibv_dereg_mr(on_pdom), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pdom), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* CQ, QP and SRQ rings come from the allocators (page-aligned, of their
 * kind, with the parent domain and its pd_context), hold live data (the
 * allocator's garbage notwithstanding), follow resizes and go back on
 * destroy. */
START_TEST(t_parent_domain_allocators_hold_rings)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct book bk = { 0 };
	struct ibv_pd *pdom = parent(ctx, pd, NULL, &bk);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq_attr mod = { .max_wr = 64 };
	struct ibv_cq_ex *cqx[2];
	struct qp_pair_opts o = { 0 };
	struct qp_pair p;
	struct ibv_srq *srq;
	char buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pdom, buf, sizeof(buf),
				       QP_ACCESS_ALL);
	struct ibv_wc wc;
	int i, cqs = 0, qps = 0, srqs = 0;

	for (i = 0; i < 2; i++) {
		cqx[i] = cq_on(ctx, pdom);
		ck_assert_ptr_nonnull(cqx[i]);
		o.cq[i] = ibv_cq_ex_to_cq(cqx[i]);
	}
	ck_assert_int_eq(qp_pair_open(&p, ctx, pdom, &o), 0);
	srq = ibv_create_srq(pdom, &sa);
	ck_assert_ptr_nonnull(srq);
	ck_assert_ptr_eq(srq->pd, pdom);
	ck_assert_ptr_eq(bk.pd_seen, pdom);
	ck_assert_uint_eq(bk.last_align, (size_t)sysconf(_SC_PAGESIZE));
	for (i = 0; i < bk.allocs; i++) {
		cqs += bk.types[i] == 3;
		qps += bk.types[i] == 1;
		srqs += bk.types[i] == 2;
	}
	/* Two CQs, two QPs of two rings each, one SRQ. */
	ck_assert_int_eq(cqs, 2);
	ck_assert_int_eq(qps, 4);
	ck_assert_int_eq(srqs, 1);
	ck_assert_int_eq(bk.frees, 0);

	/* Traffic through rings that started as 0xee garbage. */
	ck_assert_int_eq(qp_recv(p.qp[1], 1, buf + 32, 32, mr->lkey), 0);
	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_SEND, 2, buf, 32, mr->lkey,
				 0, 0), 0);
	wait_wc(p.cq[0], &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 2);
	wait_wc(p.cq[1], &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 1);

	/* Resizes: a new ring from the allocator, the old one back. */
	ck_assert_int_eq(ibv_resize_cq(p.cq[0], 200), 0);
	ck_assert_int_eq(ibv_modify_srq(srq, &mod, IBV_SRQ_MAX_WR), 0);
	ck_assert_int_eq(bk.allocs, 9);
	ck_assert_int_eq(bk.frees, 2);
	ck_assert_int_eq(ibv_dealloc_pd(pdom), EBUSY);

	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	ck_assert_int_eq(qp_pair_close(&p), 0);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(ibv_destroy_cq(o.cq[i]), 0);
	ck_assert_int_eq(bk.frees, bk.allocs);
	ck_assert_int_eq(bk.nlive, 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pdom), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* IBV_ALLOCATOR_USE_DEFAULT: the device allocates, and never hands that
 * memory to the domain's free. NULL: the creation fails with ENOMEM, and
 * what it had from the allocator goes back. */
START_TEST(t_parent_domain_default_and_failing_allocator)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct book bk = { .use_default = 1 };
	struct ibv_pd *pdom = parent(ctx, pd, NULL, &bk);
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_cq_ex *cq = cq_on(ctx, pdom);
	struct ibv_qp *qp;

	ck_assert_ptr_nonnull(cq);
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(cq);
	qp = ibv_create_qp(pdom, &qa);
	ck_assert_ptr_nonnull(qp);
	ck_assert_int_eq(bk.defaults, 3);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(bk.frees, 0);

	bk.use_default = 0;
	bk.fail = 1;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(pdom, &qa));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_ptr_null(cq_on(ctx, pdom));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(bk.frees, 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pdom), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static Suite *pdom_suite(void)
{
	Suite *s = suite_create("pdom");
	TCase *tc = tcase_create("pdom");

	tcase_add_test(tc, t_td_alloc_dealloc_busy);
	tcase_add_test(tc, t_parent_domain_refusals);
	tcase_add_test(tc, t_parent_domain_stands_for_its_pd);
	tcase_add_test(tc, t_parent_domain_allocators_hold_rings);
	tcase_add_test(tc, t_parent_domain_default_and_failing_allocator);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(pdom_suite());
}
