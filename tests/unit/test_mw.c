/* Unit tests for memory windows through the public API only: alloc/dealloc,
 * type 1 and 2 binds, remote access through windows, invalidation. */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <check.h>
#include <infiniband/verbs.h>
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define ALL_REMOTE (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		    IBV_ACCESS_REMOTE_ATOMIC)
#define BUF_LEN 4096
/* Where b's windows start in its guarded page, and how long they are. */
#define WIN_OFF 256
#define WIN_LEN 512

/* p.qp[0] is a, p.qp[1] b; b's memory is one page between two PROT_NONE
 * pages. */
struct fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct qp_pair p;
	uint8_t *abuf;			/* a's local buffer */
	struct ibv_mr *amr;
	uint8_t *map, *mem;		/* b's guarded page */
	long pg;
	struct ibv_mr *bmr;		/* over mem, rights as asked */
};

/* a <-> b connected; b's page registered with mr_access. */
static void fx_open(struct fx *f, enum ibv_qp_type type,
		    unsigned int mr_access)
{
	struct qp_conn c = qp_conn_default;
	struct qp_pair_opts o = {
		.type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.conn = &c,
	};

	c.psn = 0x10;
	memset(f, 0, sizeof(*f));
	f->ctx = open_default();
	f->pd = ibv_alloc_pd(f->ctx);
	ck_assert_ptr_nonnull(f->pd);
	ck_assert_int_eq(qp_pair_open(&f->p, f->ctx, f->pd, &o), 0);

	f->abuf = calloc(1, BUF_LEN);
	ck_assert_ptr_nonnull(f->abuf);
	f->amr = ibv_reg_mr(f->pd, f->abuf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(f->amr);
	f->pg = sysconf(_SC_PAGESIZE);
	f->map = mmap(NULL, 3 * f->pg, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(f->map, MAP_FAILED);
	f->mem = f->map + f->pg;
	memset(f->mem, 0x5c, f->pg);
	ck_assert_int_eq(mprotect(f->map, f->pg, PROT_NONE), 0);
	ck_assert_int_eq(mprotect(f->mem + f->pg, f->pg, PROT_NONE), 0);
	f->bmr = ibv_reg_mr(f->pd, f->mem, f->pg, mr_access);
	ck_assert_ptr_nonnull(f->bmr);
}

static void fx_close(struct fx *f)
{
	ck_assert_int_eq(qp_pair_close(&f->p), 0);
	ck_assert_int_eq(ibv_dereg_mr(f->amr), 0);
	ck_assert_int_eq(ibv_dereg_mr(f->bmr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(f->pd), 0);
	ck_assert_int_eq(ibv_close_device(f->ctx), 0);
	munmap(f->map, 3 * f->pg);
	free(f->abuf);
}

/* Bytes of b's page outside [off, off + len) still hold the fill. */
static bool untouched_outside(const struct fx *f, long off, long len)
{
	long i;

	for (i = 0; i < f->pg; i++)
		if ((i < off || i >= off + len) && f->mem[i] != 0x5c)
			return false;
	return true;
}

#define MR_BIND_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND)
#define WIN_ADDR(f) ((uintptr_t)(f)->mem + WIN_OFF)

/* Bind type 1 window mw on b to [mem + WIN_OFF, + len) with access;
 * returns the completion's status. */
static enum ibv_wc_status bind1(struct fx *f, struct ibv_mw *mw,
				uint64_t addr, uint64_t len,
				unsigned int access)
{
	struct ibv_mw_bind b = {
		.wr_id = 77,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = f->bmr, .addr = addr, .length = len,
			       .mw_access_flags = access },
	};
	uint32_t old = mw->rkey;
	struct ibv_wc wc;

	ck_assert_int_eq(ibv_bind_mw(f->p.qp[1], mw, &b), 0);
	ck_assert_uint_eq(mw->rkey, ibv_inc_rkey(old));
	wait_wc(f->p.cq[1], &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 77);
	if (wc.status == IBV_WC_SUCCESS)
		ck_assert_int_eq(wc.opcode, IBV_WC_BIND_MW);
	return wc.status;
}

/* Bind type 2 window mw on b with a work request and key byte key. */
static enum ibv_wc_status bind2(struct fx *f, struct ibv_mw *mw,
				uint32_t rkey, uint64_t addr, uint64_t len,
				unsigned int access)
{
	struct ibv_send_wr wr = {
		.wr_id = 78,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_wc wc;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = f->bmr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	ck_assert_int_eq(ibv_post_send(f->p.qp[1], &wr, &bad), 0);
	wait_wc(f->p.cq[1], &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 78);
	if (wc.status == IBV_WC_SUCCESS)
		ck_assert_int_eq(wc.opcode, IBV_WC_BIND_MW);
	return wc.status;
}

/* One remote op from a to raddr/rkey of len bytes; its status. */
static enum ibv_wc_status remote_op(struct fx *f, enum ibv_wr_opcode op,
				    uint64_t raddr, uint32_t rkey,
				    uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->abuf, .length = len,
		.lkey = f->amr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 5, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_wc wc;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	ck_assert_int_eq(ibv_post_send(f->p.qp[0], &wr, &bad), 0);
	wait_wc(f->p.cq[0], &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 5);
	return wc.status;
}

/* ---- objects ------------------------------------------------------------ */

START_TEST(t_alloc_dealloc)
{
	struct ibv_device_attr attr;
	struct ibv_mw *m1, *m2;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	ck_assert_int_eq(ibv_query_device(f.ctx, &attr), 0);
	ck_assert(attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW);
	ck_assert(attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	ck_assert_int_gt(attr.max_mw, 0);
	m1 = ibv_alloc_mw(f.pd, IBV_MW_TYPE_1);
	ck_assert_ptr_nonnull(m1);
	m2 = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(m2);
	ck_assert_int_eq(m1->type, IBV_MW_TYPE_1);
	ck_assert_int_eq(m2->type, IBV_MW_TYPE_2);
	ck_assert_ptr_eq(m1->pd, f.pd);
	ck_assert_ptr_eq(m2->context, f.ctx);
	ck_assert_uint_ne(m1->rkey >> 8, m2->rkey >> 8);
	ck_assert_uint_ne(m1->handle, m2->handle);
	/* Neither names a region. */
	ck_assert_uint_ne(m1->rkey >> 8, f.bmr->rkey >> 8);
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_mw(f.pd, (enum ibv_mw_type)3));
	ck_assert_int_eq(errno, EINVAL);
	/* A PD with windows on it stays. */
	ck_assert_int_eq(ibv_dealloc_pd(f.pd), EBUSY);
	ck_assert_int_eq(ibv_dealloc_mw(m1), 0);
	ck_assert_int_eq(ibv_dealloc_mw(m2), 0);
	fx_close(&f);
}
END_TEST

START_TEST(t_max_mw)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct ibv_mw *mw[3];
	struct ibv_pd *pd;

	emu_test_write_config("[device emu0]\nmax_mw = 2\n");
	ctx = open_default();
	ck_assert_int_eq(ibv_query_device(ctx, &attr), 0);
	ck_assert_int_eq(attr.max_mw, 2);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	mw[0] = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	mw[1] = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw[0]);
	ck_assert_ptr_nonnull(mw[1]);
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_mw(pd, IBV_MW_TYPE_1));
	ck_assert_int_eq(errno, ENOMEM);
	/* A slot given back is a slot to take, under a different key. */
	ck_assert_int_eq(ibv_dealloc_mw(mw[0]), 0);
	mw[2] = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw[2]);
	ck_assert_int_eq(ibv_dealloc_mw(mw[1]), 0);
	ck_assert_int_eq(ibv_dealloc_mw(mw[2]), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_no_mw_configured)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct ibv_pd *pd;

	emu_test_write_config("[device emu0]\nmax_mw = 0\n");
	ctx = open_default();
	ck_assert_int_eq(ibv_query_device(ctx, &attr), 0);
	ck_assert(!(attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW));
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_mw(pd, IBV_MW_TYPE_2));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* What posting refuses at once, before any work is queued. */
START_TEST(t_post_errors)
{
	struct ibv_mw *m1, *m2;
	struct ibv_send_wr wr, *bad;
	struct ibv_mw_bind b = {
		.bind_info = { .addr = 0, .length = 0 },
	};
	struct ibv_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_qp *ud;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	m1 = ibv_alloc_mw(f.pd, IBV_MW_TYPE_1);
	m2 = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(m1);
	ck_assert_ptr_nonnull(m2);
	/* ibv_bind_mw is for type 1, the work request for type 2. */
	b.bind_info.mr = f.bmr;
	ck_assert_int_eq(ibv_bind_mw(f.p.qp[1], m2, &b), EINVAL);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_BIND_MW;
	wr.bind_mw.mw = m1;
	wr.bind_mw.bind_info.mr = f.bmr;
	wr.bind_mw.bind_info.length = 8;
	wr.bind_mw.bind_info.addr = WIN_ADDR(&f);
	ck_assert_int_eq(ibv_post_send(f.p.qp[1], &wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	wr.bind_mw.mw = NULL;
	ck_assert_int_eq(ibv_post_send(f.p.qp[1], &wr, &bad), EINVAL);
	/* Rights a window cannot have; no region for a length. */
	wr.bind_mw.mw = m2;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_MW_BIND;
	ck_assert_int_eq(ibv_post_send(f.p.qp[1], &wr, &bad), EINVAL);
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	wr.bind_mw.bind_info.mr = NULL;
	ck_assert_int_eq(ibv_post_send(f.p.qp[1], &wr, &bad), EINVAL);
	/* Type 1 windows are never zero-based (o10-36.2.2). */
	b.bind_info.length = 8;
	b.bind_info.addr = WIN_ADDR(&f);
	b.bind_info.mw_access_flags = IBV_ACCESS_ZERO_BASED;
	ck_assert_int_eq(ibv_bind_mw(f.p.qp[1], m1, &b), EINVAL);
	/* The mismatch of region and window PDs is the wrapper's EPERM. */

	/* A UD QP has no binds or invalidations; UC no SEND_WITH_INV. The
	 * UD QP is brought up: before RTS nothing posts at all. */
	ud = qp_create(f.pd, f.p.cq[0], NULL, IBV_QPT_UD, &cap);
	ck_assert_ptr_nonnull(ud);
	ck_assert_int_eq(qp_connect(ud, &qp_conn_default, NULL), 0);
	wr.bind_mw.bind_info.mr = f.bmr;
	ck_assert_int_eq(ibv_post_send(ud, &wr, &bad), EINVAL);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_LOCAL_INV;
	ck_assert_int_eq(ibv_post_send(ud, &wr, &bad), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(ud), 0);
	ck_assert_int_eq(ibv_dealloc_mw(m1), 0);
	ck_assert_int_eq(ibv_dealloc_mw(m2), 0);
	fx_close(&f);

	fx_open(&f, IBV_QPT_UC, MR_BIND_ALL);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND_WITH_INV;
	ck_assert_int_eq(ibv_post_send(f.p.qp[0], &wr, &bad), EINVAL);
	fx_close(&f);
}
END_TEST

/* ---- type 1 ------------------------------------------------------------- */

/* Inside the window every kind of access works; the bytes around it are
 * never touched. */
START_TEST(t_type1_access)
{
	struct ibv_mw *mw;
	uint64_t v;
	struct fx f;
	int i;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_1);
	ck_assert_ptr_nonnull(mw);
	ck_assert_int_eq(bind1(&f, mw, WIN_ADDR(&f), WIN_LEN, ALL_REMOTE |
			       IBV_ACCESS_LOCAL_WRITE), IBV_WC_SUCCESS);
	/* Bound: the region cannot go. */
	ck_assert_int_eq(ibv_dereg_mr(f.bmr), EBUSY);

	for (i = 0; i < WIN_LEN; i++)
		f.abuf[i] = (uint8_t)(i * 3 + 1);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f),
				   mw->rkey, WIN_LEN), IBV_WC_SUCCESS);
	ck_assert_int_eq(memcmp(f.mem + WIN_OFF, f.abuf, WIN_LEN), 0);
	ck_assert(untouched_outside(&f, WIN_OFF, WIN_LEN));
	memset(f.abuf, 0, BUF_LEN);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_READ, WIN_ADDR(&f) + 8,
				   mw->rkey, WIN_LEN - 8), IBV_WC_SUCCESS);
	ck_assert_int_eq(memcmp(f.mem + WIN_OFF + 8, f.abuf, WIN_LEN - 8), 0);
	memcpy(&v, f.mem + WIN_OFF + WIN_LEN - 8, 8);
	ck_assert_int_eq(remote_op(&f, IBV_WR_ATOMIC_FETCH_AND_ADD,
				   WIN_ADDR(&f) + WIN_LEN - 8, mw->rkey, 8),
			 IBV_WC_SUCCESS);
	ck_assert_int_eq(memcmp(f.abuf, &v, 8), 0);
	v++;
	ck_assert_int_eq(memcmp(f.mem + WIN_OFF + WIN_LEN - 8, &v, 8), 0);
	ck_assert(untouched_outside(&f, WIN_OFF, WIN_LEN));

	/* Rebinding to nothing (length 0) unbinds; the region may go. */
	ck_assert_int_eq(bind1(&f, mw, 0, 0, 0), IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}
END_TEST

/* One access by a to a fresh type 1 window over [WIN_OFF, + WIN_LEN) with
 * rights, at off from the window's start: REM_ACCESS_ERR, page intact. */
static void type1_denied(unsigned int rights, enum ibv_wr_opcode op,
			 long off, uint32_t len)
{
	struct ibv_mw *mw;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_1);
	ck_assert_ptr_nonnull(mw);
	ck_assert_int_eq(bind1(&f, mw, WIN_ADDR(&f), WIN_LEN, rights),
			 IBV_WC_SUCCESS);
	memset(f.abuf, 0xee, BUF_LEN);
	ck_assert_int_eq(remote_op(&f, op, WIN_ADDR(&f) + off, mw->rkey,
				   len), IBV_WC_REM_ACCESS_ERR);
	ck_assert(untouched_outside(&f, 0, 0));
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}

START_TEST(t_type1_outside)
{
	/* One byte before and one byte past the window. */
	type1_denied(ALL_REMOTE, IBV_WR_RDMA_WRITE, -1, 16);
	type1_denied(ALL_REMOTE, IBV_WR_RDMA_WRITE, WIN_LEN - 15, 16);
	type1_denied(ALL_REMOTE, IBV_WR_RDMA_READ, -1, 2);
	type1_denied(ALL_REMOTE, IBV_WR_RDMA_READ, WIN_LEN - 1, 2);
	type1_denied(ALL_REMOTE, IBV_WR_ATOMIC_FETCH_AND_ADD, WIN_LEN, 8);
	type1_denied(ALL_REMOTE, IBV_WR_ATOMIC_CMP_AND_SWP, -8, 8);
	/* Rights the window lacks (the region is never the question). */
	type1_denied(IBV_ACCESS_REMOTE_READ, IBV_WR_RDMA_WRITE, 0, 16);
	type1_denied(IBV_ACCESS_REMOTE_WRITE, IBV_WR_RDMA_READ, 0, 16);
	type1_denied(IBV_ACCESS_REMOTE_WRITE, IBV_WR_ATOMIC_FETCH_AND_ADD, 0,
		     8);
}
END_TEST

/* Unbound, then stale after a rebind, then gone after dealloc. */
START_TEST(t_type1_rebind_and_dealloc)
{
	uint32_t k0, k1;
	struct ibv_mw *mw;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_1);
	ck_assert_ptr_nonnull(mw);
	ck_assert_int_eq(bind1(&f, mw, WIN_ADDR(&f), WIN_LEN, ALL_REMOTE),
			 IBV_WC_SUCCESS);
	k0 = mw->rkey;
	ck_assert_int_eq(bind1(&f, mw, WIN_ADDR(&f), 64, ALL_REMOTE),
			 IBV_WC_SUCCESS);
	k1 = mw->rkey;
	ck_assert_uint_ne(k0, k1);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f), k1,
				   64), IBV_WC_SUCCESS);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f), k0,
				   8), IBV_WC_REM_ACCESS_ERR);
	/* Deallocation unbinds: the region may go after it. */
	ck_assert_int_eq(ibv_dereg_mr(f.bmr), EBUSY);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}
END_TEST

/* A bind the region does not allow completes in error (IBTA C10-73..75),
 * and leaves the window as it was. */
static void bind_refused(unsigned int mr_access, uint64_t off, uint64_t len,
			 unsigned int rights)
{
	struct ibv_mw *mw;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, mr_access);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_1);
	ck_assert_ptr_nonnull(mw);
	ck_assert_int_eq(bind1(&f, mw, (uintptr_t)f.mem + off, len, rights),
			 IBV_WC_MW_BIND_ERR);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	/* Nothing was bound to the region. */
	fx_close(&f);
}

START_TEST(t_bind_refused)
{
	long pg = sysconf(_SC_PAGESIZE);

	/* No MW_BIND right on the region. */
	bind_refused(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, 0, 8,
		     IBV_ACCESS_REMOTE_READ);
	/* Writes or atomics need the region's local write. */
	bind_refused(IBV_ACCESS_MW_BIND, 0, 8, IBV_ACCESS_REMOTE_WRITE);
	bind_refused(IBV_ACCESS_MW_BIND, 0, 8, IBV_ACCESS_REMOTE_ATOMIC);
	/* A range past the region by one byte. */
	bind_refused(MR_BIND_ALL, (uint64_t)pg - 8, 9,
		     IBV_ACCESS_REMOTE_READ);
	bind_refused(MR_BIND_ALL, (uint64_t)-1, 2, IBV_ACCESS_REMOTE_READ);
}
END_TEST

START_TEST(t_bind_read_only_region)
{
	struct ibv_mw *mw;
	struct fx f;

	/* Reading through a window needs nothing of the region but the
	 * bind right. */
	fx_open(&f, IBV_QPT_RC, IBV_ACCESS_MW_BIND);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_1);
	ck_assert_ptr_nonnull(mw);
	ck_assert_int_eq(bind1(&f, mw, WIN_ADDR(&f), WIN_LEN,
			       IBV_ACCESS_REMOTE_READ), IBV_WC_SUCCESS);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_READ, WIN_ADDR(&f),
				   mw->rkey, 32), IBV_WC_SUCCESS);
	ck_assert_uint_eq(f.abuf[0], 0x5c);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}
END_TEST

/* ---- type 2 ------------------------------------------------------------- */

START_TEST(t_type2_local_inv)
{
	struct ibv_send_wr wr = {
		.wr_id = 9, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t rkey;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	rkey = ibv_inc_rkey(mw->rkey);
	ck_assert_int_eq(bind2(&f, mw, rkey, WIN_ADDR(&f), WIN_LEN,
			       ALL_REMOTE), IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_dereg_mr(f.bmr), EBUSY);
	memset(f.abuf, 0x11, 64);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f), rkey,
				   64), IBV_WC_SUCCESS);
	ck_assert_uint_eq(f.mem[WIN_OFF], 0x11);
	ck_assert(untouched_outside(&f, WIN_OFF, 64));

	/* Invalidated by its QP: the key reaches nothing after. */
	wr.invalidate_rkey = rkey;
	ck_assert_int_eq(ibv_post_send(f.p.qp[1], &wr, &bad), 0);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_LOCAL_INV);
	ck_assert_uint_eq(wc.wr_id, 9);
	memset(f.abuf, 0x22, 64);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f), rkey,
				   64), IBV_WC_REM_ACCESS_ERR);
	ck_assert_uint_eq(f.mem[WIN_OFF], 0x11);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}
END_TEST

/* Invalidations that must fail: the QP's LOC_QP_OP_ERR. */
static void local_inv_refused(int what)
{
	struct ibv_send_wr wr = {
		.wr_id = 9, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, what == 0 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	switch (what) {
	case 0:		/* a bound type 1 window */
		ck_assert_int_eq(bind1(&f, mw, WIN_ADDR(&f), 8,
				       IBV_ACCESS_REMOTE_READ),
				 IBV_WC_SUCCESS);
		wr.invalidate_rkey = mw->rkey;
		break;
	case 1:		/* a region of ours */
		wr.invalidate_rkey = f.bmr->rkey;
		break;
	case 2:		/* a type 2 window not bound */
		wr.invalidate_rkey = mw->rkey;
		break;
	default:	/* bound, but on a's QP: not b's to invalidate */
		wr.invalidate_rkey = ibv_inc_rkey(mw->rkey);
		{
			struct ibv_send_wr bw = {
				.wr_id = 1, .opcode = IBV_WR_BIND_MW,
				.send_flags = IBV_SEND_SIGNALED,
			};

			bw.bind_mw.mw = mw;
			bw.bind_mw.rkey = wr.invalidate_rkey;
			bw.bind_mw.bind_info.mr = f.bmr;
			bw.bind_mw.bind_info.addr = WIN_ADDR(&f);
			bw.bind_mw.bind_info.length = 8;
			bw.bind_mw.bind_info.mw_access_flags =
				IBV_ACCESS_REMOTE_READ;
			ck_assert_int_eq(ibv_post_send(f.p.qp[0], &bw, &bad),
					 0);
			wait_wc(f.p.cq[0], &wc, 3000);
			ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		}
		break;
	}
	ck_assert_int_eq(ibv_post_send(f.p.qp[1], &wr, &bad), 0);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_LOC_QP_OP_ERR);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}

START_TEST(t_local_inv_refused)
{
	int i;

	for (i = 0; i < 4; i++)
		local_inv_refused(i);
}
END_TEST

/* Type 2B: only the QP a window was bound on reaches it; a second bind
 * of a bound window fails; a zero-based window takes offsets. */
START_TEST(t_type2_rules)
{
	struct ibv_mw *mw;
	uint32_t rkey;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	/* Bound on a's QP: b's receiving QP may not use it. */
	rkey = ibv_inc_rkey(mw->rkey);
	{
		struct ibv_send_wr wr = {
			.wr_id = 78, .opcode = IBV_WR_BIND_MW,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad = NULL;
		struct ibv_wc wc;

		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = rkey;
		wr.bind_mw.bind_info.mr = f.bmr;
		wr.bind_mw.bind_info.addr = WIN_ADDR(&f);
		wr.bind_mw.bind_info.length = WIN_LEN;
		wr.bind_mw.bind_info.mw_access_flags = ALL_REMOTE;
		ck_assert_int_eq(ibv_post_send(f.p.qp[0], &wr, &bad), 0);
		wait_wc(f.p.cq[0], &wc, 3000);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	}
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f), rkey,
				   8), IBV_WC_REM_ACCESS_ERR);
	ck_assert(untouched_outside(&f, 0, 0));
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);

	/* A bound type 2 window is not bound again. */
	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	rkey = ibv_inc_rkey(mw->rkey);
	ck_assert_int_eq(bind2(&f, mw, rkey, WIN_ADDR(&f), WIN_LEN,
			       ALL_REMOTE), IBV_WC_SUCCESS);
	ck_assert_int_eq(bind2(&f, mw, ibv_inc_rkey(rkey), WIN_ADDR(&f), 8,
			       ALL_REMOTE), IBV_WC_MW_BIND_ERR);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);

	/* Zero length never binds a type 2 window. */
	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	ck_assert_int_eq(bind2(&f, mw, mw->rkey, WIN_ADDR(&f), 0,
			       ALL_REMOTE), IBV_WC_MW_BIND_ERR);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);

	/* Zero-based: remote addresses are offsets into the window. */
	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	rkey = (mw->rkey & ~0xffu) | 0x42;
	ck_assert_int_eq(bind2(&f, mw, rkey, WIN_ADDR(&f), WIN_LEN,
			       ALL_REMOTE | IBV_ACCESS_ZERO_BASED),
			 IBV_WC_SUCCESS);
	memset(f.abuf, 0x33, 16);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, 16, rkey, 16),
			 IBV_WC_SUCCESS);
	ck_assert_uint_eq(f.mem[WIN_OFF + 16], 0x33);
	ck_assert(untouched_outside(&f, WIN_OFF + 16, 16));
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_LEN - 8, rkey,
				   16), IBV_WC_REM_ACCESS_ERR);
	ck_assert(untouched_outside(&f, WIN_OFF + 16, 16));
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}
END_TEST

/* SEND_WITH_INV: the receiver's window dies with the message. */
START_TEST(t_send_with_inv)
{
	struct ibv_sge sge;
	struct ibv_recv_wr rw = { .wr_id = 30, .num_sge = 1, .sg_list = &sge };
	struct ibv_send_wr wr = {
		.wr_id = 31, .opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED, .num_sge = 1,
	}, *bad = NULL;
	struct ibv_recv_wr *rbad = NULL;
	struct ibv_sge ssge;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t rkey;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	rkey = ibv_inc_rkey(mw->rkey);
	ck_assert_int_eq(bind2(&f, mw, rkey, WIN_ADDR(&f), WIN_LEN,
			       ALL_REMOTE), IBV_WC_SUCCESS);
	/* b receives into its page (the region's). */
	sge.addr = (uintptr_t)f.mem;
	sge.length = 3000;
	sge.lkey = f.bmr->lkey;
	ck_assert_int_eq(ibv_post_recv(f.p.qp[1], &rw, &rbad), 0);
	/* A message of three packets: the IETH is on the last. */
	ssge.addr = (uintptr_t)f.abuf;
	ssge.length = 2500;
	ssge.lkey = f.amr->lkey;
	memset(f.abuf, 0x44, 2500);
	wr.sg_list = &ssge;
	wr.invalidate_rkey = rkey;
	ck_assert_int_eq(ibv_post_send(f.p.qp[0], &wr, &bad), 0);
	wait_wc(f.p.cq[0], &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
	ck_assert(wc.wc_flags & IBV_WC_WITH_INV);
	ck_assert(!(wc.wc_flags & IBV_WC_WITH_IMM));
	ck_assert_uint_eq(wc.invalidated_rkey, rkey);
	ck_assert_uint_eq(wc.byte_len, 2500);
	ck_assert_uint_eq(f.mem[2499], 0x44);
	ck_assert_uint_eq(f.mem[2500], 0x5c);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_READ, WIN_ADDR(&f), rkey,
				   8), IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}
END_TEST

/* An rkey the receiver cannot invalidate: an invalid request NAK. */
START_TEST(t_send_with_inv_refused)
{
	struct ibv_sge sge;
	struct ibv_recv_wr rw = { .wr_id = 30, .num_sge = 1, .sg_list = &sge };
	struct ibv_send_wr wr = {
		.wr_id = 31, .opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_recv_wr *rbad = NULL;
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	sge.addr = (uintptr_t)f.mem;
	sge.length = 128;
	sge.lkey = f.bmr->lkey;
	ck_assert_int_eq(ibv_post_recv(f.p.qp[1], &rw, &rbad), 0);
	wr.invalidate_rkey = f.bmr->rkey;
	ck_assert_int_eq(ibv_post_send(f.p.qp[0], &wr, &bad), 0);
	wait_wc(f.p.cq[0], &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 30);
	ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);
	/* The region is untouched by it and still registered. */
	fx_close(&f);
}
END_TEST

/* A bound window deallocated: its key reaches nothing, the region is
 * free to go. */
START_TEST(t_dealloc_bound)
{
	struct ibv_mw *mw;
	uint32_t rkey;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	rkey = ibv_inc_rkey(mw->rkey);
	ck_assert_int_eq(bind2(&f, mw, rkey, WIN_ADDR(&f), WIN_LEN,
			       ALL_REMOTE), IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f), rkey,
				   8), IBV_WC_REM_ACCESS_ERR);
	ck_assert(untouched_outside(&f, 0, 0));
	fx_close(&f);
}
END_TEST

/* The ibv_wr_* interface: bind, send with invalidate, local invalidate. */
START_TEST(t_qp_ex)
{
	struct ibv_mw_bind_info info;
	struct ibv_sge sge;
	struct ibv_recv_wr rw = { .wr_id = 30, .num_sge = 1, .sg_list = &sge };
	struct ibv_recv_wr *rbad = NULL;
	struct ibv_qp_ex *ax, *bx;
	struct ibv_mw *m1, *m2;
	uint32_t k1, k2;
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	ax = ibv_qp_to_qp_ex(f.p.qp[0]);
	bx = ibv_qp_to_qp_ex(f.p.qp[1]);
	ck_assert_ptr_nonnull(ax);
	ck_assert_ptr_nonnull(bx);
	m1 = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	m2 = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(m1);
	ck_assert_ptr_nonnull(m2);
	k1 = ibv_inc_rkey(m1->rkey);
	k2 = ibv_inc_rkey(m2->rkey);
	info.mr = f.bmr;
	info.addr = WIN_ADDR(&f);
	info.length = WIN_LEN;
	info.mw_access_flags = ALL_REMOTE;
	ibv_wr_start(bx);
	bx->wr_id = 1;
	bx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(bx, m1, k1, &info);
	bx->wr_id = 2;
	ibv_wr_bind_mw(bx, m2, k2, &info);
	ck_assert_int_eq(ibv_wr_complete(bx), 0);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_BIND_MW);
	ck_assert_uint_eq(wc.wr_id, 1);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f), k1,
				   8), IBV_WC_SUCCESS);

	/* m1 goes with a's send, m2 with b's own local invalidate. */
	sge.addr = (uintptr_t)f.mem;
	sge.length = 64;
	sge.lkey = f.bmr->lkey;
	ck_assert_int_eq(ibv_post_recv(f.p.qp[1], &rw, &rbad), 0);
	ibv_wr_start(ax);
	ax->wr_id = 3;
	ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_inv(ax, k1);
	ibv_wr_set_sge(ax, f.amr->lkey, (uintptr_t)f.abuf, 16);
	ck_assert_int_eq(ibv_wr_complete(ax), 0);
	wait_wc(f.p.cq[0], &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert(wc.wc_flags & IBV_WC_WITH_INV);
	ck_assert_uint_eq(wc.invalidated_rkey, k1);
	ibv_wr_start(bx);
	bx->wr_id = 4;
	ibv_wr_local_inv(bx, k2);
	ck_assert_int_eq(ibv_wr_complete(bx), 0);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_LOCAL_INV);
	/* Both windows are gone from the region: it may be deregistered. */
	ck_assert_int_eq(ibv_dereg_mr(f.bmr), 0);
	f.bmr = ibv_reg_mr(f.pd, f.mem, f.pg, MR_BIND_ALL);
	ck_assert_ptr_nonnull(f.bmr);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f), k2,
				   8), IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(ibv_dealloc_mw(m1), 0);
	ck_assert_int_eq(ibv_dealloc_mw(m2), 0);
	fx_close(&f);
}
END_TEST

/* A local invalidation of key on b; its completion status. */
static enum ibv_wc_status local_inv(struct fx *f, uint32_t key)
{
	struct ibv_send_wr wr = {
		.wr_id = 9, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_wc wc;

	wr.invalidate_rkey = key;
	ck_assert_int_eq(ibv_post_send(f->p.qp[1], &wr, &bad), 0);
	wait_wc(f->p.cq[1], &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 9);
	return wc.status;
}

/* A SEND_WITH_INV of key from a to b, into a receive b posts; the status
 * of a's request (b's receive completes as well, and is checked). */
static enum ibv_wc_status send_inv(struct fx *f, uint32_t key)
{
	struct ibv_sge rsge = {
		.addr = (uintptr_t)f->mem, .length = 64, .lkey = f->bmr->lkey,
	};
	struct ibv_recv_wr rw = { .wr_id = 30, .num_sge = 1,
				  .sg_list = &rsge }, *rbad = NULL;
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->abuf, .length = 8, .lkey = f->amr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 31, .opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED, .num_sge = 1,
		.sg_list = &sge,
	}, *bad = NULL;
	struct ibv_wc wc;

	ck_assert_int_eq(ibv_post_recv(f->p.qp[1], &rw, &rbad), 0);
	wr.invalidate_rkey = key;
	ck_assert_int_eq(ibv_post_send(f->p.qp[0], &wr, &bad), 0);
	wait_wc(f->p.cq[0], &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 31);
	if (wc.status == IBV_WC_SUCCESS) {
		wait_wc(f->p.cq[1], &wc, 3000);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert(wc.wc_flags & IBV_WC_WITH_INV);
		ck_assert_uint_eq(wc.invalidated_rkey, key);
		return IBV_WC_SUCCESS;
	}
	return wc.status;
}

/*
 * The key a type 2 bind gives is the one its work request carries, index
 * and tag: writes, local invalidation and SEND_WITH_INV all answer to it,
 * through ibv_post_send and ibv_wr_bind_mw alike, bind after bind. The
 * ibv_mw's own rkey is left as it was (mlx5 and rxe write nothing back
 * on a work-request bind), and it is not a key the window answers to.
 */
START_TEST(t_type2_bind_key_is_the_wr_key)
{
	struct ibv_mw_bind_info info = {
		.addr = 0, .length = WIN_LEN, .mw_access_flags = ALL_REMOTE,
	};
	struct ibv_qp_ex *bx;
	uint32_t alloc_key, k1, k2, k3;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	alloc_key = mw->rkey;
	/* A work-request bind, its key from ibv_inc_rkey. */
	k1 = ibv_inc_rkey(alloc_key);
	ck_assert_int_eq(bind2(&f, mw, k1, WIN_ADDR(&f), WIN_LEN,
			       ALL_REMOTE), IBV_WC_SUCCESS);
	ck_assert_uint_eq(mw->rkey, alloc_key);
	memset(f.abuf, 0x61, 16);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f), k1,
				   16), IBV_WC_SUCCESS);
	ck_assert_uint_eq(f.mem[WIN_OFF + 15], 0x61);
	ck_assert_int_eq(local_inv(&f, k1), IBV_WC_SUCCESS);
	/* Bound again under the next key; invalidated by the peer. */
	k2 = ibv_inc_rkey(k1);
	ck_assert_int_eq(bind2(&f, mw, k2, WIN_ADDR(&f), WIN_LEN,
			       ALL_REMOTE), IBV_WC_SUCCESS);
	ck_assert_uint_eq(mw->rkey, alloc_key);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_READ, WIN_ADDR(&f), k2,
				   16), IBV_WC_SUCCESS);
	ck_assert_int_eq(send_inv(&f, k2), IBV_WC_SUCCESS);
	/* Through ibv_wr_bind_mw: the same. */
	bx = ibv_qp_to_qp_ex(f.p.qp[1]);
	ck_assert_ptr_nonnull(bx);
	k3 = ibv_inc_rkey(k2);
	info.mr = f.bmr;
	info.addr = WIN_ADDR(&f);
	ibv_wr_start(bx);
	bx->wr_id = 12;
	bx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(bx, mw, k3, &info);
	ck_assert_int_eq(ibv_wr_complete(bx), 0);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(mw->rkey, alloc_key);
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f), k3,
				   16), IBV_WC_SUCCESS);
	/* The allocation key (what mw->rkey still says) is not the
	 * window's: using it is an access error, as on mlx5. */
	ck_assert_int_eq(remote_op(&f, IBV_WR_RDMA_WRITE, WIN_ADDR(&f),
				   alloc_key, 16), IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}
END_TEST

/*
 * A bind whose key names another index than the window's (here the
 * region's, or the next slot's) cannot give the window that key: the
 * index is the window's own, only the tag is the consumer's (IBTA). It
 * completes with MW_BIND_ERR and binds nothing, rather than leave the
 * window answering to a key the work request never named.
 */
START_TEST(t_type2_bind_key_of_another_index_fails)
{
	uint32_t keys[2];
	struct ibv_mw *mw;
	unsigned int i;
	struct fx f;

	for (i = 0; i < 2; i++) {
		fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
		mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
		ck_assert_ptr_nonnull(mw);
		keys[0] = ibv_inc_rkey(f.bmr->rkey);
		keys[1] = mw->rkey + 0x100;
		ck_assert_int_eq(bind2(&f, mw, keys[i], WIN_ADDR(&f),
				       WIN_LEN, ALL_REMOTE),
				 IBV_WC_MW_BIND_ERR);
		/* Nothing is bound to the region: it may go. */
		ck_assert_int_eq(ibv_dereg_mr(f.bmr), 0);
		f.bmr = ibv_reg_mr(f.pd, f.mem, f.pg, MR_BIND_ALL);
		ck_assert_ptr_nonnull(f.bmr);
		ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
		fx_close(&f);
	}
}
END_TEST

/* Binds and invalidations complete in order behind the requests before
 * them, and a local operation behind a READ waits for its data. */
START_TEST(t_ordering)
{
	struct ibv_sge sge = { .length = 8 };
	struct ibv_send_wr wr[3], *bad = NULL;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t rkey;
	struct fx f;
	int i;

	fx_open(&f, IBV_QPT_RC, MR_BIND_ALL);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	rkey = ibv_inc_rkey(mw->rkey);
	/* b READs a's buffer, then binds and invalidates a window. */
	sge.addr = (uintptr_t)f.mem;
	sge.lkey = f.bmr->lkey;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		wr[i].wr_id = (uint64_t)i + 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	wr[0].opcode = IBV_WR_RDMA_READ;
	wr[0].sg_list = &sge;
	wr[0].num_sge = 1;
	wr[0].wr.rdma.remote_addr = (uintptr_t)f.abuf;
	wr[0].wr.rdma.rkey = f.amr->rkey;
	wr[1].opcode = IBV_WR_BIND_MW;
	wr[1].bind_mw.mw = mw;
	wr[1].bind_mw.rkey = rkey;
	wr[1].bind_mw.bind_info.mr = f.bmr;
	wr[1].bind_mw.bind_info.addr = WIN_ADDR(&f);
	wr[1].bind_mw.bind_info.length = WIN_LEN;
	wr[1].bind_mw.bind_info.mw_access_flags = ALL_REMOTE;
	wr[2].opcode = IBV_WR_LOCAL_INV;
	wr[2].invalidate_rkey = rkey;
	ck_assert_int_eq(ibv_post_send(f.p.qp[1], wr, &bad), 0);
	/* a's region has no remote read: the READ fails, so the bind and
	 * the invalidation after it are flushed, in order. */
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IBV_WC_REM_ACCESS_ERR);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert_int_ne(wc.status, IBV_WC_SUCCESS);
	wait_wc(f.p.cq[1], &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 3);
	ck_assert_int_ne(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}
END_TEST

static Suite *mw_suite(void)
{
	Suite *s = suite_create("mw");
	TCase *to = tcase_create("objects");
	TCase *t1 = tcase_create("type1");
	TCase *t2 = tcase_create("type2");

	tcase_add_test(to, t_alloc_dealloc);
	tcase_add_test(to, t_max_mw);
	tcase_add_test(to, t_no_mw_configured);
	tcase_add_test(to, t_post_errors);
	suite_add_tcase(s, to);
	tcase_add_test(t1, t_type1_access);
	tcase_add_test(t1, t_type1_outside);
	tcase_add_test(t1, t_type1_rebind_and_dealloc);
	tcase_add_test(t1, t_bind_refused);
	tcase_add_test(t1, t_bind_read_only_region);
	suite_add_tcase(s, t1);
	tcase_add_test(t2, t_type2_local_inv);
	tcase_add_test(t2, t_local_inv_refused);
	tcase_add_test(t2, t_type2_rules);
	tcase_add_test(t2, t_send_with_inv);
	tcase_add_test(t2, t_send_with_inv_refused);
	tcase_add_test(t2, t_dealloc_bound);
	tcase_add_test(t2, t_qp_ex);
	tcase_add_test(t2, t_ordering);
	tcase_add_test(t2, t_type2_bind_key_is_the_wr_key);
	tcase_add_test(t2, t_type2_bind_key_of_another_index_fails);
	suite_add_tcase(s, t2);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(mw_suite());
}
