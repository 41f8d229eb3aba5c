/* Unit tests for on-demand paging through the public API: the ODP caps,
 * explicit and implicit ODP registration, traffic on ODP regions, what an
 * access to a page that is not there (or not writable) completes with on
 * either side, and ibv_advise_mr's prefetch and refusals. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <check.h>
#include <infiniband/verbs.h>
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define ODP_ACCESS (QP_ACCESS_ALL | IBV_ACCESS_ON_DEMAND)

static size_t pg(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* Three anonymous pages, never touched (so not yet present). */
static uint8_t *map3(void)
{
	void *m = mmap(NULL, 3 * pg(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(m, MAP_FAILED);
	return m;
}

/* A test's world: a context, a PD and a connected RC pair on it. */
struct odp_fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct qp_pair p;
};

static void fx_open(struct odp_fx *f)
{
	memset(f, 0, sizeof(*f));
	f->ctx = open_default();
	f->pd = ibv_alloc_pd(f->ctx);
	ck_assert_ptr_nonnull(f->pd);
	ck_assert_int_eq(qp_pair_open(&f->p, f->ctx, f->pd, NULL), 0);
}

static void fx_close(struct odp_fx *f)
{
	ck_assert_int_eq(qp_pair_close(&f->p), 0);
	ck_assert_int_eq(ibv_dealloc_pd(f->pd), 0);
	ck_assert_int_eq(ibv_close_device(f->ctx), 0);
}

/* ---- capabilities and registration ------------------------------------- */

START_TEST(t_odp_caps_reported)
{
	struct ibv_context *ctx = open_default();
	struct ibv_device_attr_ex a;
	const uint32_t rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			    IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			    IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;

	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &a), 0);
	ck_assert_uint_eq(a.odp_caps.general_caps,
			  IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT);
	ck_assert_uint_eq(a.odp_caps.per_transport_caps.rc_odp_caps, rc);
	ck_assert_uint_eq(a.xrc_odp_caps, rc);
	ck_assert_uint_eq(a.odp_caps.per_transport_caps.uc_odp_caps,
			  IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			  IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_SRQ_RECV);
	ck_assert_uint_eq(a.odp_caps.per_transport_caps.ud_odp_caps,
			  IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			  IBV_ODP_SUPPORT_SRQ_RECV);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* An ODP region needs no pages at registration; a pinned one does. */
START_TEST(t_odp_reg_unmapped_range)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	uint8_t *m = map3();
	struct ibv_mr *mr;

	ck_assert_int_eq(munmap(m, 3 * pg()), 0);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, m, 3 * pg(), QP_ACCESS_ALL));
	ck_assert_int_eq(errno, EFAULT);
	mr = ibv_reg_mr(pd, m, 3 * pg(), ODP_ACCESS);
	ck_assert_ptr_nonnull(mr);
	ck_assert_ptr_eq(mr->addr, m);
	ck_assert_uint_eq(mr->length, 3 * pg());
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* ibv_reg_mr(pd, NULL, SIZE_MAX, ON_DEMAND): the whole address space;
 * at an iova other than 0 it is refused (mlx5_ib_reg_user_mr). */
START_TEST(t_odp_implicit_reg)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr;

	mr = ibv_reg_mr(pd, NULL, SIZE_MAX, ODP_ACCESS);
	ck_assert_ptr_nonnull(mr);
	ck_assert_ptr_null(mr->addr);
	ck_assert_uint_eq(mr->length, SIZE_MAX);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr_iova(pd, NULL, SIZE_MAX, 4096,
					   ODP_ACCESS));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* ibv_rereg_mr may make a region ODP (mlx5 recreates it), which then
 * needs no pages; an implicit region cannot drop ON_DEMAND without a new
 * translation (mlx5_ib_rereg_user_mr: EOPNOTSUPP, region untouched). */
START_TEST(t_odp_rereg)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	uint8_t *m = map3();
	struct ibv_mr *mr = ibv_reg_mr(pd, m, pg(), QP_ACCESS_ALL);
	struct ibv_mr *imp = ibv_reg_mr(pd, NULL, SIZE_MAX, ODP_ACCESS);
	uint32_t lkey;

	ck_assert_ptr_nonnull(mr);
	ck_assert_ptr_nonnull(imp);
	ck_assert_int_eq(munmap(m + pg(), 2 * pg()), 0);
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, ODP_ACCESS), 0);
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION,
				      NULL, m + pg(), 2 * pg(), 0), 0);
	ck_assert_ptr_eq(mr->addr, m + pg());
	lkey = imp->lkey;
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(imp, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, QP_ACCESS_ALL),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_uint_eq(imp->lkey, lkey);
	ck_assert_int_eq(ibv_dereg_mr(imp), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	munmap(m, pg());
}
END_TEST

/* ---- traffic ------------------------------------------------------------ */

/* SEND, WRITE, READ and atomics between ODP regions whose pages were
 * never touched: each access faults them in, the data arrives. */
START_TEST(t_odp_rc_traffic_faults_pages_in)
{
	struct odp_fx f;
	uint8_t *a = map3(), *b = map3();
	struct ibv_mr *ma, *mb;
	unsigned char vec[3];
	uint64_t v;

	fx_open(&f);
	ma = ibv_reg_mr(f.pd, a, 3 * pg(), ODP_ACCESS);
	mb = ibv_reg_mr(f.pd, b, 3 * pg(), ODP_ACCESS);
	ck_assert_ptr_nonnull(ma);
	ck_assert_ptr_nonnull(mb);
	ck_assert_int_eq(mincore(b, 3 * pg(), vec), 0);
	ck_assert_int_eq(vec[1] & 1, 0);

	/* SEND a's zero page into b's second page. */
	ck_assert_int_eq(qp_recv(f.p.qp[1], 1, b + pg(), 100, mb->lkey), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_SEND, 2, a, 100, ma->lkey,
				 0, 0), 0);
	expect_status(f.p.cq[0], 2, IBV_WC_SUCCESS);
	expect_status(f.p.cq[1], 1, IBV_WC_SUCCESS);
	ck_assert_int_eq(mincore(b, 3 * pg(), vec), 0);
	ck_assert_int_eq(vec[1] & 1, 1);

	/* WRITE, then READ it back into a's third page. */
	memset(a, 0x5a, 64);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_WRITE, 3, a, 64,
				 ma->lkey, (uintptr_t)b + 2 * pg(), mb->rkey),
			 0);
	expect_status(f.p.cq[0], 3, IBV_WC_SUCCESS);
	ck_assert_int_eq(b[2 * pg() + 63], 0x5a);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_READ, 4,
				 a + 2 * pg(), 64, ma->lkey,
				 (uintptr_t)b + 2 * pg(), mb->rkey), 0);
	expect_status(f.p.cq[0], 4, IBV_WC_SUCCESS);
	ck_assert_int_eq(memcmp(a + 2 * pg(), a, 64), 0);

	/* Fetch-and-add 1 on b's (untouched) first word. */
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_ATOMIC_FETCH_AND_ADD, 5,
				 a + 8, 8, ma->lkey, (uintptr_t)b, mb->rkey),
			 0);
	expect_status(f.p.cq[0], 5, IBV_WC_SUCCESS);
	memcpy(&v, b, 8);
	ck_assert_uint_eq(v, 1);

	ck_assert_int_eq(ibv_dereg_mr(ma), 0);
	ck_assert_int_eq(ibv_dereg_mr(mb), 0);
	fx_close(&f);
	munmap(a, 3 * pg());
	munmap(b, 3 * pg());
}
END_TEST

/* UC moves data through ODP regions as RC does; a WRITE into a page that
 * is not there is dropped by the responder (UC has no NAK), the bytes
 * around it untouched, and the requester completes. */
START_TEST(t_odp_uc_traffic)
{
	struct qp_pair_opts uc = { .type = IBV_QPT_UC };
	struct odp_fx f;
	uint8_t *a = map3(), *b = map3();
	struct ibv_mr *ma, *mb;

	memset(&f, 0, sizeof(f));
	f.ctx = open_default();
	f.pd = ibv_alloc_pd(f.ctx);
	ck_assert_int_eq(qp_pair_open(&f.p, f.ctx, f.pd, &uc), 0);
	ma = ibv_reg_mr(f.pd, a, 3 * pg(), ODP_ACCESS);
	mb = ibv_reg_mr(f.pd, b, 3 * pg(), ODP_ACCESS);
	memset(a, 0x77, 64);
	ck_assert_int_eq(qp_recv(f.p.qp[1], 1, b + 8, 64, mb->lkey), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_SEND, 2, a, 64, ma->lkey,
				 0, 0), 0);
	expect_status(f.p.cq[0], 2, IBV_WC_SUCCESS);
	expect_status(f.p.cq[1], 1, IBV_WC_SUCCESS);
	ck_assert_int_eq(b[71], 0x77);
	ck_assert_int_eq(munmap(b + pg(), pg()), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_WRITE, 3, a, 64,
				 ma->lkey, (uintptr_t)b + pg(), mb->rkey), 0);
	expect_status(f.p.cq[0], 3, IBV_WC_SUCCESS);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_WRITE, 4, a, 8,
				 ma->lkey, (uintptr_t)b + 2 * pg(), mb->rkey),
			 0);
	expect_status(f.p.cq[0], 4, IBV_WC_SUCCESS);
	/* The next message lands: a UC responder drops and goes on. */
	{
		double end = now_ms() + 2000;

		while (b[2 * pg() + 7] != 0x77 && now_ms() < end)
			usleep(100);
	}
	ck_assert_int_eq(b[2 * pg() + 7], 0x77);
	ck_assert_int_eq(ibv_dereg_mr(ma), 0);
	ck_assert_int_eq(ibv_dereg_mr(mb), 0);
	fx_close(&f);
	munmap(a, 3 * pg());
	munmap(b, pg());
	munmap(b + 2 * pg(), pg());
}
END_TEST

/* The implicit region's keys reach any buffer of the process: a stack
 * buffer is sent from, a heap one written. */
START_TEST(t_odp_implicit_traffic)
{
	struct odp_fx f;
	uint8_t src[256], dst[256];
	struct ibv_mr *mr;

	fx_open(&f);
	mr = ibv_reg_mr(f.pd, NULL, SIZE_MAX, ODP_ACCESS);
	ck_assert_ptr_nonnull(mr);
	memset(src, 0xc3, sizeof(src));
	memset(dst, 0, sizeof(dst));
	ck_assert_int_eq(qp_recv(f.p.qp[1], 1, dst, sizeof(dst), mr->lkey), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_SEND, 2, src, sizeof(src),
				 mr->lkey, 0, 0), 0);
	expect_status(f.p.cq[0], 2, IBV_WC_SUCCESS);
	expect_status(f.p.cq[1], 1, IBV_WC_SUCCESS);
	ck_assert_int_eq(memcmp(src, dst, sizeof(src)), 0);
	memset(src, 0x3c, 16);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_WRITE, 3, src, 16,
				 mr->lkey, (uintptr_t)dst + 100, mr->rkey), 0);
	expect_status(f.p.cq[0], 3, IBV_WC_SUCCESS);
	ck_assert_int_eq(dst[115], 0x3c);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	fx_close(&f);
}
END_TEST

/* ---- pages that are not there ------------------------------------------ */

/* A SEND from an unmapped page of an ODP region completes with
 * LOC_PROT_ERR: the engine never touches the page (it would crash). */
START_TEST(t_odp_send_unmapped_loc_prot_err)
{
	struct odp_fx f;
	uint8_t *a = map3();
	struct ibv_mr *ma;

	fx_open(&f);
	ma = ibv_reg_mr(f.pd, a, 3 * pg(), ODP_ACCESS);
	ck_assert_ptr_nonnull(ma);
	ck_assert_int_eq(munmap(a + pg(), pg()), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_SEND, 1, a + pg(), 64,
				 ma->lkey, 0, 0), 0);
	expect_status(f.p.cq[0], 1, IBV_WC_LOC_PROT_ERR);
	ck_assert_int_eq(ibv_dereg_mr(ma), 0);
	fx_close(&f);
	munmap(a, 3 * pg());
}
END_TEST

/* A WRITE into an unmapped page of the peer's ODP region is NAKed as a
 * remote access error; so is a READ of a page without PROT_READ. */
START_TEST(t_odp_remote_unmapped_rem_access_err)
{
	struct odp_fx f;
	uint8_t *a = map3(), *b = map3();
	struct ibv_mr *ma, *mb;

	fx_open(&f);
	ma = ibv_reg_mr(f.pd, a, 3 * pg(), ODP_ACCESS);
	mb = ibv_reg_mr(f.pd, b, 3 * pg(), ODP_ACCESS);
	ck_assert_int_eq(munmap(b + pg(), pg()), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_WRITE, 1, a, 64,
				 ma->lkey, (uintptr_t)b + pg() + 8, mb->rkey),
			 0);
	expect_status(f.p.cq[0], 1, IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(qp_pair_close(&f.p), 0);

	ck_assert_int_eq(qp_pair_open(&f.p, f.ctx, f.pd, NULL), 0);
	ck_assert_int_eq(mprotect(b + 2 * pg(), pg(), PROT_NONE), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_READ, 2, a, 64,
				 ma->lkey, (uintptr_t)b + 2 * pg(), mb->rkey),
			 0);
	expect_status(f.p.cq[0], 2, IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(ibv_dereg_mr(ma), 0);
	ck_assert_int_eq(ibv_dereg_mr(mb), 0);
	fx_close(&f);
	munmap(a, 3 * pg());
	munmap(b, 3 * pg());
}
END_TEST

/* An atomic on a read-only page: the write fault fails, the request is
 * NAKed and the word is left as it was. */
START_TEST(t_odp_atomic_readonly_rem_access_err)
{
	struct odp_fx f;
	uint8_t *a = map3(), *b = map3();
	struct ibv_mr *ma, *mb;
	uint64_t v = 41;

	fx_open(&f);
	ma = ibv_reg_mr(f.pd, a, 3 * pg(), ODP_ACCESS);
	mb = ibv_reg_mr(f.pd, b, 3 * pg(), ODP_ACCESS);
	memcpy(b, &v, 8);
	ck_assert_int_eq(mprotect(b, pg(), PROT_READ), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_ATOMIC_FETCH_AND_ADD, 1,
				 a, 8, ma->lkey, (uintptr_t)b, mb->rkey), 0);
	expect_status(f.p.cq[0], 1, IBV_WC_REM_ACCESS_ERR);
	memcpy(&v, b, 8);
	ck_assert_uint_eq(v, 41);
	ck_assert_int_eq(ibv_dereg_mr(ma), 0);
	ck_assert_int_eq(ibv_dereg_mr(mb), 0);
	fx_close(&f);
	munmap(a, 3 * pg());
	munmap(b, 3 * pg());
}
END_TEST

/* A receive into an unmapped page: the receive fails with LOC_PROT_ERR
 * and the sender is NAKed with a remote operational error, as for a
 * receive buffer of a bad key. */
START_TEST(t_odp_recv_unmapped_loc_prot_err)
{
	struct odp_fx f;
	uint8_t *a = map3(), *b = map3();
	struct ibv_mr *ma, *mb;

	fx_open(&f);
	ma = ibv_reg_mr(f.pd, a, 3 * pg(), ODP_ACCESS);
	mb = ibv_reg_mr(f.pd, b, 3 * pg(), ODP_ACCESS);
	ck_assert_int_eq(munmap(b + pg(), pg()), 0);
	ck_assert_int_eq(qp_recv(f.p.qp[1], 1, b + pg(), 64, mb->lkey), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_SEND, 2, a, 64, ma->lkey,
				 0, 0), 0);
	expect_status(f.p.cq[1], 1, IBV_WC_LOC_PROT_ERR);
	expect_status(f.p.cq[0], 2, IBV_WC_REM_OP_ERR);
	ck_assert_int_eq(ibv_dereg_mr(ma), 0);
	ck_assert_int_eq(ibv_dereg_mr(mb), 0);
	fx_close(&f);
	munmap(a, 3 * pg());
}
END_TEST

/* Through the implicit region, the page at address 0 is as absent as
 * any other: a local error, no crash. */
START_TEST(t_odp_implicit_null_page_loc_prot_err)
{
	struct odp_fx f;
	struct ibv_mr *mr;

	fx_open(&f);
	mr = ibv_reg_mr(f.pd, NULL, SIZE_MAX, ODP_ACCESS);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_SEND, 1, NULL, 64,
				 mr->lkey, 0, 0), 0);
	expect_status(f.p.cq[0], 1, IBV_WC_LOC_PROT_ERR);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	fx_close(&f);
}
END_TEST

/* A QP's access flags may carry ON_DEMAND, as programs pass MR flags
 * there (rdma-core's test_odp does; mlx5 reads the remote enables). */
START_TEST(t_odp_qp_access_flag_accepted)
{
	struct odp_fx f;
	struct ibv_qp_attr a = { .qp_access_flags = ODP_ACCESS };

	fx_open(&f);
	ck_assert_int_eq(ibv_modify_qp(f.p.qp[0], &a, IBV_QP_ACCESS_FLAGS),
			 0);
	fx_close(&f);
}
END_TEST

/* ---- ibv_advise_mr ------------------------------------------------------ */

static int advise(struct ibv_pd *pd, int advice, uint32_t flags, void *addr,
		  uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};

	errno = 0;
	return ibv_advise_mr(pd, (enum ibv_advise_mr_advice)advice, flags,
			     &sge, 1);
}

/* PREFETCH_WRITE with FLUSH makes the pages present before it returns;
 * NO_FAULT leaves them alone. */
START_TEST(t_advise_mr_prefetch_faults_in)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	uint8_t *m = map3();
	struct ibv_mr *mr = ibv_reg_mr(pd, m, 3 * pg(), ODP_ACCESS);
	unsigned char vec[3];

	ck_assert_int_eq(advise(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
				IBV_ADVISE_MR_FLAG_FLUSH, m, 3 * pg(),
				mr->lkey), 0);
	ck_assert_int_eq(mincore(m, 3 * pg(), vec), 0);
	ck_assert_int_eq(vec[0] & 1, 0);
	ck_assert_int_eq(advise(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				IBV_ADVISE_MR_FLAG_FLUSH, m + pg(), 10,
				mr->lkey), 0);
	ck_assert_int_eq(mincore(m, 3 * pg(), vec), 0);
	ck_assert_int_eq(vec[0] & 1, 0);
	ck_assert_int_eq(vec[1] & 1, 1);
	ck_assert_int_eq(advise(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, m,
				3 * pg(), mr->lkey), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	munmap(m, 3 * pg());
}
END_TEST

/* The kernel's and mlx5's answers, each with errno set too. */
START_TEST(t_advise_mr_errnos)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *pd2 = ibv_alloc_pd(ctx);
	uint8_t *m = map3();
	struct ibv_mr *odp = ibv_reg_mr(pd, m, 3 * pg(), ODP_ACCESS);
	struct ibv_mr *pinned = ibv_reg_mr(pd, m, pg(), QP_ACCESS_ALL);
	struct ibv_mr *ro = ibv_reg_mr(pd, m, pg(), IBV_ACCESS_ON_DEMAND |
				       IBV_ACCESS_REMOTE_READ);
	struct ibv_sge sge = {
		.addr = (uintptr_t)m, .length = 8, .lkey = odp->lkey,
	};
	const int W = IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	const uint32_t F = IBV_ADVISE_MR_FLAG_FLUSH;

	ck_assert_ptr_nonnull(ro);
	ck_assert_int_eq(ibv_advise_mr(pd, W, F, &sge, 0), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_advise_mr(pd, W, F, NULL, 1), EFAULT);
	ck_assert_int_eq(ibv_advise_mr(pd, W, 2, &sge, 1), EINVAL);
	ck_assert_int_eq(ibv_advise_mr(pd, (enum ibv_advise_mr_advice)7, F,
				       &sge, 1), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	/* Not an ODP region, or no region: not found. */
	ck_assert_int_eq(advise(pd, W, F, m, 8, pinned->lkey), ENOENT);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(advise(pd, W, F, m, 8, odp->lkey ^ 0x80), ENOENT);
	ck_assert_int_eq(advise(pd2, W, F, m, 8, odp->lkey), EPERM);
	ck_assert_int_eq(advise(pd, W, F, m, 8, ro->lkey), EPERM);
	ck_assert_int_eq(advise(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, F, m, 8,
				ro->lkey), 0);
	ck_assert_int_eq(advise(pd, W, F, m + 2 * pg(), 2 * pg(), odp->lkey),
			 EFAULT);
	/* A hole: FLUSH reports it, the asynchronous form only tries. */
	ck_assert_int_eq(munmap(m + pg(), pg()), 0);
	ck_assert_int_eq(advise(pd, W, F, m, 3 * pg(), odp->lkey), EFAULT);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_int_eq(advise(pd, W, 0, m, 3 * pg(), odp->lkey), 0);
	ck_assert_int_eq(advise(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, F,
				m, 3 * pg(), odp->lkey), 0);

	ck_assert_int_eq(ibv_dereg_mr(ro), 0);
	ck_assert_int_eq(ibv_dereg_mr(pinned), 0);
	ck_assert_int_eq(ibv_dereg_mr(odp), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	munmap(m, pg());
	munmap(m + 2 * pg(), pg());
}
END_TEST

static Suite *odp_suite(void)
{
	Suite *s = suite_create("odp");
	TCase *tc = tcase_create("odp");

	tcase_add_test(tc, t_odp_caps_reported);
	tcase_add_test(tc, t_odp_reg_unmapped_range);
	tcase_add_test(tc, t_odp_implicit_reg);
	tcase_add_test(tc, t_odp_rereg);
	tcase_add_test(tc, t_odp_rc_traffic_faults_pages_in);
	tcase_add_test(tc, t_odp_implicit_traffic);
	tcase_add_test(tc, t_odp_uc_traffic);
	tcase_add_test(tc, t_odp_send_unmapped_loc_prot_err);
	tcase_add_test(tc, t_odp_remote_unmapped_rem_access_err);
	tcase_add_test(tc, t_odp_atomic_readonly_rem_access_err);
	tcase_add_test(tc, t_odp_recv_unmapped_loc_prot_err);
	tcase_add_test(tc, t_odp_implicit_null_page_loc_prot_err);
	tcase_add_test(tc, t_odp_qp_access_flag_accepted);
	tcase_add_test(tc, t_advise_mr_prefetch_faults_in);
	tcase_add_test(tc, t_advise_mr_errnos);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(odp_suite());
}
