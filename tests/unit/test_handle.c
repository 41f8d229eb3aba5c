/* Unit tests for object handles: the process's handle table (emu/handle.c)
 * and every verb given an object whose handle or context was changed,
 * which must fail as the kernel's object lookup fails, and leave the
 * object whole for a later, correct call. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/handle.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

/* ---- the table ---------------------------------------------------------- */

/* Two stand-ins for contexts: the table only compares them. */
static const struct emu_context *const ctx_a =
	(const struct emu_context *)&ctx_a;
static const struct emu_context *const ctx_b =
	(const struct emu_context *)&ctx_b;

START_TEST(t_handle_table_lookup)
{
	int obj[3] = { 0 };
	uint32_t h[3];

	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_PD, &obj[0], &h[0]), 0);
	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_CQ, &obj[1], &h[1]), 0);
	ck_assert_int_eq(emu_handle_add(ctx_b, EMU_OBJ_PD, &obj[2], &h[2]), 0);
	ck_assert_uint_ne(h[0], 0);
	ck_assert_uint_ne(h[0], h[1]);
	ck_assert_uint_ne(h[0], h[2]);
	ck_assert_uint_ne(h[1], h[2]);

	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_PD, &obj[0]),
			 0);
	/* Another type: EINVAL; another object: ENOENT; another context,
	 * or no such handle: ENOENT. */
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[1], EMU_OBJ_PD, &obj[0]),
			 EINVAL);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_PD, &obj[1]),
			 ENOENT);
	ck_assert_int_eq(emu_handle_lookup(ctx_b, h[0], EMU_OBJ_PD, &obj[0]),
			 ENOENT);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[2], EMU_OBJ_PD, &obj[2]),
			 ENOENT);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, 0, EMU_OBJ_PD, &obj[0]),
			 ENOENT);

	/* Removed: gone, and removing again (or with another object) is
	 * harmless. */
	emu_handle_remove(h[0], &obj[1]);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_PD, &obj[0]),
			 0);
	emu_handle_remove(h[0], &obj[0]);
	emu_handle_remove(h[0], &obj[0]);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_PD, &obj[0]),
			 ENOENT);

	/* A context that closes takes its handles along, only its own. */
	emu_handle_forget(ctx_a);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[1], EMU_OBJ_CQ, &obj[1]),
			 ENOENT);
	ck_assert_int_eq(emu_handle_lookup(ctx_b, h[2], EMU_OBJ_PD, &obj[2]),
			 0);
	emu_handle_remove(h[2], &obj[2]);
}
END_TEST

/* The table grows without losing or renumbering an entry, and a handle is
 * not handed out again while it lives. */
START_TEST(t_handle_table_grows)
{
	enum { N = 5000 };
	static int obj[N];
	static uint32_t h[N];
	int i;

	for (i = 0; i < N; i++) {
		ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_MR, &obj[i],
						&h[i]), 0);
		/* Churn: every third one goes again at once. */
		if (i % 3 == 2)
			emu_handle_remove(h[i - 1], &obj[i - 1]);
	}
	for (i = 0; i < N; i++) {
		int want = i % 3 == 1 && i + 1 < N ? ENOENT : 0;

		ck_assert_int_eq(emu_handle_lookup(ctx_a, h[i], EMU_OBJ_MR,
						   &obj[i]), want);
		if (i)
			ck_assert_uint_ne(h[i], h[i - 1]);
	}
	emu_handle_forget(ctx_a);
}
END_TEST

/* Growing needs memory: without it, ENOMEM and the table as it was. */
START_TEST(t_handle_table_nomem)
{
	int obj[2] = { 0 };
	uint32_t h[2];

	emu_test_fail_calloc(1);
	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_PD, &obj[0], &h[0]),
			 ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_PD, &obj[0], &h[0]), 0);
	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_PD, &obj[1], &h[1]), 0);
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_PD, &obj[0]),
			 0);
	emu_handle_forget(ctx_a);
}
END_TEST

/* ---- the verbs ---------------------------------------------------------- */

struct fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_ah *ah;
	uint8_t buf[4096];
};

static void fx_open(struct fx *f)
{
	struct ibv_cq_init_attr_ex cia = { .cqe = 16 };
	struct ibv_qp_init_attr qia = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 4,
						   .max_sge = 1 } };
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1,
				   .grh = { .hop_limit = 1 } };

	memset(f, 0, sizeof(*f));
	f->ctx = open_default();
	f->pd = ibv_alloc_pd(f->ctx);
	ck_assert_ptr_nonnull(f->pd);
	f->cq = ibv_create_cq(f->ctx, 16, NULL, NULL, 0);
	ck_assert_ptr_nonnull(f->cq);
	f->cqx = ibv_create_cq_ex(f->ctx, &cia);
	ck_assert_ptr_nonnull(f->cqx);
	qia.send_cq = f->cq;
	qia.recv_cq = f->cq;
	f->qp = ibv_create_qp(f->pd, &qia);
	ck_assert_ptr_nonnull(f->qp);
	f->srq = ibv_create_srq(f->pd, &sia);
	ck_assert_ptr_nonnull(f->srq);
	f->mr = ibv_reg_mr(f->pd, f->buf, sizeof(f->buf),
			   IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(f->mr);
	f->mw = ibv_alloc_mw(f->pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(f->mw);
	ck_assert_int_eq(ibv_query_gid(f->ctx, 1, 0, &aha.grh.dgid), 0);
	f->ah = ibv_create_ah(f->pd, &aha);
	ck_assert_ptr_nonnull(f->ah);
}

/* Everything goes, once each: under ASan a double free would show. */
static void fx_close(struct fx *f)
{
	ck_assert_int_eq(ibv_destroy_ah(f->ah), 0);
	ck_assert_int_eq(ibv_dealloc_mw(f->mw), 0);
	ck_assert_int_eq(ibv_dereg_mr(f->mr), 0);
	ck_assert_int_eq(ibv_destroy_qp(f->qp), 0);
	ck_assert_int_eq(ibv_destroy_srq(f->srq), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(f->cqx)), 0);
	ck_assert_int_eq(ibv_destroy_cq(f->cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(f->pd), 0);
	ck_assert_int_eq(ibv_close_device(f->ctx), 0);
}

/* rc is the verb's return; it and errno must be want. */
#define ck_fails(rc, want)                                                \
	do {                                                              \
		errno = 0;                                                \
		ck_assert_int_eq((rc), (want));                           \
		ck_assert_int_eq(errno, (want));                          \
	} while (0)

/* Destroy through a handle that names nothing (changed by one, or made
 * up): ENOENT, nothing destroyed; the real handle still works after. */
START_TEST(t_destroy_with_corrupt_handle)
{
	struct fx f;
	unsigned int i;
	uint32_t keep;

	fx_open(&f);
	/* One bit flipped, then a number made up. */
	for (i = 0; i < 2; i++) {
#define TRY(field, call)                                                  \
	do {                                                              \
		keep = (field);                                           \
		(field) = i ? 0x5a5a5a5a : keep ^ 0x00100000;             \
		ck_fails((call), ENOENT);                                 \
		(field) = keep;                                           \
	} while (0)
		TRY(f.pd->handle, ibv_dealloc_pd(f.pd));
		TRY(f.cq->handle, ibv_destroy_cq(f.cq));
		TRY(f.cqx->handle, ibv_destroy_cq(ibv_cq_ex_to_cq(f.cqx)));
		TRY(f.qp->handle, ibv_destroy_qp(f.qp));
		TRY(f.srq->handle, ibv_destroy_srq(f.srq));
		TRY(f.mr->handle, ibv_dereg_mr(f.mr));
		TRY(f.mw->handle, ibv_dealloc_mw(f.mw));
		TRY(f.ah->handle, ibv_destroy_ah(f.ah));
#undef TRY
	}
	fx_close(&f);
}
END_TEST

/* A handle of a live object of another type: EINVAL, as the kernel's
 * lookup says when the object it finds is not of the kind asked for. */
START_TEST(t_destroy_with_handle_of_other_type)
{
	struct fx f;
	uint32_t keep;

	fx_open(&f);
	keep = f.pd->handle;
	f.pd->handle = f.cq->handle;
	ck_fails(ibv_dealloc_pd(f.pd), EINVAL);
	f.pd->handle = keep;
	keep = f.qp->handle;
	f.qp->handle = f.srq->handle;
	ck_fails(ibv_destroy_qp(f.qp), EINVAL);
	f.qp->handle = keep;
	/* Another object's handle of the same type names that one, not
	 * this: refused, and neither is destroyed. */
	keep = f.cq->handle;
	f.cq->handle = f.cqx->handle;
	ck_fails(ibv_destroy_cq(f.cq), ENOENT);
	f.cq->handle = keep;
	fx_close(&f);
}
END_TEST

/* An object whose context was swapped for another open context: looked
 * up there, it is not found. */
START_TEST(t_destroy_with_swapped_context)
{
	struct ibv_context *other;
	struct fx f;

	fx_open(&f);
	other = open_default();
#define SWAP(obj, call)                                                   \
	do {                                                              \
		(obj)->context = other;                                   \
		ck_fails((call), ENOENT);                                 \
		(obj)->context = f.ctx;                                   \
	} while (0)
	SWAP(f.pd, ibv_dealloc_pd(f.pd));
	SWAP(f.cq, ibv_destroy_cq(f.cq));
	SWAP(f.cqx, ibv_destroy_cq(ibv_cq_ex_to_cq(f.cqx)));
	SWAP(f.qp, ibv_destroy_qp(f.qp));
	SWAP(f.srq, ibv_destroy_srq(f.srq));
	SWAP(f.mr, ibv_dereg_mr(f.mr));
	SWAP(f.mw, ibv_dealloc_mw(f.mw));
	SWAP(f.ah, ibv_destroy_ah(f.ah));
#undef SWAP
	ck_assert_int_eq(ibv_close_device(other), 0);
	fx_close(&f);
}
END_TEST

/* Creating on a parent whose handle names nothing: a QP or SRQ (the
 * kernel's ioctl commands) ENOENT; an MR, MW or AH (write commands)
 * EINVAL. Nothing is created. */
START_TEST(t_create_with_corrupt_parent)
{
	struct ibv_qp_init_attr qia = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 1,
						   .max_sge = 1 } };
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1,
				   .grh = { .hop_limit = 1 } };
	struct fx f;
	uint32_t keep;

	fx_open(&f);
	ck_assert_int_eq(ibv_query_gid(f.ctx, 1, 0, &aha.grh.dgid), 0);
	qia.send_cq = f.cq;
	qia.recv_cq = ibv_cq_ex_to_cq(f.cqx);

	keep = f.cq->handle;
	f.cq->handle ^= 0x40000000;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(f.pd, &qia));
	ck_assert_int_eq(errno, ENOENT);
	f.cq->handle = keep;

	keep = f.cqx->handle;
	f.cqx->handle = f.pd->handle;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(f.pd, &qia));
	ck_assert_int_eq(errno, EINVAL);
	f.cqx->handle = keep;

	qia.srq = f.srq;
	keep = f.srq->handle;
	f.srq->handle ^= 0x40000000;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(f.pd, &qia));
	ck_assert_int_eq(errno, ENOENT);
	f.srq->handle = keep;

	keep = f.pd->handle;
	f.pd->handle ^= 0x40000000;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(f.pd, &qia));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq(f.pd, &sia));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(f.pd, f.buf, 64, 0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_mw(f.pd, IBV_MW_TYPE_1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_ah(f.pd, &aha));
	ck_assert_int_eq(errno, EINVAL);
	f.pd->handle = keep;

	/* Nothing was made on the PD: it goes once the fixture's do. */
	fx_close(&f);
}
END_TEST

/* ibv_modify_qp and ibv_query_qp on a QP whose handle names nothing:
 * EINVAL (the kernel's write commands), the QP unchanged. */
START_TEST(t_modify_query_with_corrupt_qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_init_attr ia;
	struct fx f;
	uint32_t keep;

	fx_open(&f);
	keep = f.qp->handle;
	f.qp->handle += 77;
	ck_fails(ibv_modify_qp(f.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), EINVAL);
	ck_fails(ibv_query_qp(f.qp, &a, IBV_QP_STATE, &ia), EINVAL);
	f.qp->context = NULL;
	f.qp->handle = keep;
	ck_fails(ibv_query_qp(f.qp, &a, IBV_QP_STATE, &ia), EINVAL);
	f.qp->context = f.ctx;
	ck_assert_int_eq(ibv_query_qp(f.qp, &a, IBV_QP_STATE, &ia), 0);
	ck_assert_int_eq(a.qp_state, IBV_QPS_RESET);
	fx_close(&f);
}
END_TEST

/* ibv_req_notify_cq on a CQ whose handle names nothing: EINVAL, where
 * the kernel's command would have been sent. */
START_TEST(t_req_notify_with_corrupt_cq)
{
	struct fx f;
	uint32_t keep;

	fx_open(&f);
	keep = f.cq->handle;
	f.cq->handle = ~keep;
	ck_fails(ibv_req_notify_cq(f.cq, 0), EINVAL);
	f.cq->handle = keep;
	ck_assert_int_eq(ibv_req_notify_cq(f.cq, 0), 0);
	fx_close(&f);
}
END_TEST

/* No room for a handle: the object is not made, its device count is
 * given back (one PD allowed, and it can still be had). */
START_TEST(t_create_handle_nomem)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int nth;

	emu_test_write_config("[device emu0]\nmax_pd = 1\n");
	ctx = open_default();
	/* The first object of a process makes the table: somewhere among
	 * the allocations of ibv_alloc_pd. */
	for (nth = 1; nth <= 10; nth++) {
		emu_test_fail_calloc(nth);
		errno = 0;
		pd = ibv_alloc_pd(ctx);
		emu_test_fail_calloc(0);
		if (pd)
			break;
		ck_assert_int_eq(errno, ENOMEM);
	}
	ck_assert_int_gt(nth, 2);
	ck_assert_ptr_nonnull(pd);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static Suite *handle_suite(void)
{
	Suite *s = suite_create("handle");
	TCase *tt = tcase_create("table");
	TCase *tv = tcase_create("verbs");

	tcase_add_test(tt, t_handle_table_lookup);
	tcase_add_test(tt, t_handle_table_grows);
	tcase_add_test(tt, t_handle_table_nomem);
	suite_add_tcase(s, tt);
	tcase_add_test(tv, t_destroy_with_corrupt_handle);
	tcase_add_test(tv, t_destroy_with_handle_of_other_type);
	tcase_add_test(tv, t_destroy_with_swapped_context);
	tcase_add_test(tv, t_create_with_corrupt_parent);
	tcase_add_test(tv, t_modify_query_with_corrupt_qp);
	tcase_add_test(tv, t_req_notify_with_corrupt_cq);
	tcase_add_test(tv, t_create_handle_nomem);
	suite_add_tcase(s, tv);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(handle_suite());
}
