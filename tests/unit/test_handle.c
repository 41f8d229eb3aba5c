/* Unit tests for object handles: the process's handle table (emu/base/handle.c)
 * and every verb given an object whose handle or context was changed,
 * which must fail as the kernel's object lookup fails, and leave the
 * object whole for a later, correct call. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/base/handle.h"
#include "tests/helpers/qp_pair.h"
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

/* Objects by their address: what a verb asks before it reads anything
 * behind a pointer it was handed. */
START_TEST(t_handle_table_by_address)
{
	int obj[4] = { 0 };
	uint32_t h[2];

	ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_MR, &obj[0], &h[0]), 0);
	ck_assert_int_eq(emu_handle_add(ctx_b, EMU_OBJ_PD, &obj[1], &h[1]), 0);
	ck_assert_int_eq(emu_handle_alias_add(ctx_a, EMU_OBJ_PD, &obj[2]), 0);
	ck_assert_int_eq(emu_handle_check(&obj[0], EMU_OBJ_MR), 0);
	ck_assert_int_eq(emu_handle_check(&obj[0], EMU_OBJ_PD), EINVAL);
	ck_assert_int_eq(emu_handle_check(&obj[2], EMU_OBJ_PD), 0);
	ck_assert_int_eq(emu_handle_check(&obj[3], EMU_OBJ_PD), ENOENT);
	ck_assert_int_eq(emu_handle_check(NULL, EMU_OBJ_PD), ENOENT);
	/* An alias has no handle: the numbered table does not know it. */
	ck_assert_int_eq(emu_handle_lookup(ctx_a, h[0], EMU_OBJ_MR, &obj[0]),
			 0);

	/* Gone by handle, gone by address; the alias likewise. */
	emu_handle_remove(h[0], &obj[0]);
	ck_assert_int_eq(emu_handle_check(&obj[0], EMU_OBJ_MR), ENOENT);
	emu_handle_alias_remove(&obj[2]);
	ck_assert_int_eq(emu_handle_check(&obj[2], EMU_OBJ_PD), ENOENT);

	/* A closing context takes its aliases too, only its own. */
	ck_assert_int_eq(emu_handle_alias_add(ctx_a, EMU_OBJ_XRCD, &obj[3]),
			 0);
	emu_handle_forget(ctx_a);
	ck_assert_int_eq(emu_handle_check(&obj[3], EMU_OBJ_XRCD), ENOENT);
	ck_assert_int_eq(emu_handle_check(&obj[1], EMU_OBJ_PD), 0);
	emu_handle_forget(ctx_b);
}
END_TEST

/* Many objects come and go: every live one is found by its address, no
 * gone one is, however often the index was rebuilt. */
START_TEST(t_handle_table_by_address_churn)
{
	enum { N = 3000 };
	static int obj[N];
	static uint32_t h[N];
	int i, round;

	for (round = 0; round < 3; round++) {
		for (i = 0; i < N; i++)
			ck_assert_int_eq(emu_handle_add(ctx_a, EMU_OBJ_QP,
							&obj[i], &h[i]), 0);
		for (i = 0; i < N; i += 2)
			emu_handle_remove(h[i], &obj[i]);
		for (i = 0; i < N; i++)
			ck_assert_int_eq(emu_handle_check(&obj[i],
							  EMU_OBJ_QP),
					 i % 2 ? 0 : ENOENT);
		for (i = 1; i < N; i += 2)
			emu_handle_remove(h[i], &obj[i]);
	}
	for (i = 0; i < N; i++)
		ck_assert_int_eq(emu_handle_check(&obj[i], EMU_OBJ_QP),
				 ENOENT);
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

/*
 * Stand-ins for objects that are none: bytes that are no pointer (0xa5 in
 * every byte is not even a canonical address), big enough for every
 * emuverbs object, so that a verb that read behind the pointer would
 * follow garbage. A verb must find out from the address alone.
 */
static void *junk(void)
{
	static uint64_t bytes[512];

	memset(bytes, 0xa5, sizeof(bytes));
	return bytes;
}

/* A garbage ibv_mr and ibv_pd, and ones of objects already gone: the
 * errno of a lookup that finds nothing, nothing read, nothing crashes. */
START_TEST(t_garbage_mr_and_pd)
{
	struct ibv_qp_init_attr qia = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 4,
						   .max_sge = 1 } };
	struct ibv_mr *mr = junk();
	struct ibv_pd *pd = junk();
	struct ibv_context *ctx;
	struct ibv_pd *dead_pd;
	struct ibv_mr *dead_mr;
	struct fx f;

	fx_open(&f);
	ctx = f.ctx;
	qia.send_cq = f.cq;
	qia.recv_cq = f.cq;

	/* ioctl commands: ENOENT; write() commands: EINVAL. */
	ck_fails(ibv_dereg_mr(mr), ENOENT);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, IBV_ACCESS_LOCAL_WRITE),
			 IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, ENOENT);
	ck_fails(ibv_dealloc_pd(pd), ENOENT);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, f.buf, 64, IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	/* Through the op: the header's inline ibv_alloc_mw reads
	 * pd->context itself, before any library code runs. */
	errno = 0;
	ck_assert_ptr_null(f.ctx->ops.alloc_mw(pd, IBV_MW_TYPE_2));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(pd, &qia));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq(pd, &sia));
	ck_assert_int_eq(errno, ENOENT);
	/* A real MR changing to a garbage PD: refused, the MR unchanged. */
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(f.mr, IBV_REREG_MR_CHANGE_PD, pd, NULL,
				      0, 0), IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_eq(f.mr->pd, f.pd);

	/* Pointers to objects already destroyed. */
	dead_pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(dead_pd);
	dead_mr = ibv_reg_mr(f.pd, f.buf, 64, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(dead_mr);
	ck_assert_int_eq(ibv_dealloc_pd(dead_pd), 0);
	ck_assert_int_eq(ibv_dereg_mr(dead_mr), 0);
	ck_fails(ibv_dealloc_pd(dead_pd), ENOENT);
	ck_fails(ibv_dereg_mr(dead_mr), ENOENT);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(dead_pd, f.buf, 64,
				      IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	fx_close(&f);
}
END_TEST

/* The verbs the previous round left unchecked, given garbage: resizing a
 * CQ, modifying and querying an SRQ, binding a window, closing an XRC
 * domain. Each fails as its kernel command's lookup does. */
START_TEST(t_garbage_other_objects)
{
	struct ibv_mw_bind bind = { .bind_info = { .mr = NULL } };
	struct ibv_srq_attr sa = { .max_wr = 4 };
	struct fx f;

	fx_open(&f);
	ck_fails(ibv_resize_cq(junk(), 32), EINVAL);
	ck_fails(ibv_modify_srq(junk(), &sa, IBV_SRQ_LIMIT), EINVAL);
	ck_fails(ibv_query_srq(junk(), &sa), EINVAL);
	/* Through the ops: the header's inline ibv_bind_mw and
	 * ibv_close_xrcd read the object (mw->type, xrcd->context) before
	 * any library code runs. */
	ck_fails(f.ctx->ops.bind_mw(junk(), f.mw, &bind), ENOENT);
	ck_fails(f.ctx->ops.bind_mw(f.qp, junk(), &bind), ENOENT);
	ck_fails(verbs_get_ctx(f.ctx)->close_xrcd(junk()), ENOENT);
	/* The real objects still work. */
	ck_assert_int_eq(ibv_query_srq(f.srq, &sa), 0);
	ck_assert_int_eq(ibv_resize_cq(f.cq, 32), 0);
	fx_close(&f);
}
END_TEST

/*
 * ibv_rereg_mr on a deregistered MR fails as a lookup of a gone object
 * does (ENOENT) and does nothing: a remote WRITE with the old rkey then
 * finds no region (remote access error) and the memory is untouched.
 */
START_TEST(t_rereg_after_dereg)
{
	static uint8_t src[256], dst[256];
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *smr, *dmr;
	struct qp_pair p;
	struct ibv_wc wc;
	uint32_t rkey;
	unsigned int i;

	ck_assert_ptr_nonnull(pd);
	memset(src, 0x5a, sizeof(src));
	memset(dst, 0, sizeof(dst));
	smr = ibv_reg_mr(pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE);
	dmr = ibv_reg_mr(pd, dst, sizeof(dst), QP_ACCESS_ALL);
	ck_assert_ptr_nonnull(smr);
	ck_assert_ptr_nonnull(dmr);
	ck_assert_int_eq(qp_pair_open(&p, ctx, pd, NULL), 0);
	rkey = dmr->rkey;
	ck_assert_int_eq(ibv_dereg_mr(dmr), 0);

	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(dmr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, QP_ACCESS_ALL),
			 IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(dmr, IBV_REREG_MR_CHANGE_TRANSLATION,
				      NULL, dst, sizeof(dst), 0),
			 IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, ENOENT);

	ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_RDMA_WRITE, 7, src,
				 sizeof(src), smr->lkey, (uintptr_t)dst, rkey),
			 0);
	wait_wc(p.cq[0], &wc, 5000);
	ck_assert_uint_eq(wc.wr_id, 7);
	ck_assert_int_eq(wc.status, IBV_WC_REM_ACCESS_ERR);
	for (i = 0; i < sizeof(dst); i++)
		ck_assert_uint_eq(dst[i], 0);

	ck_assert_int_eq(qp_pair_close(&p), 0);
	ck_assert_int_eq(ibv_dereg_mr(smr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
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
	tcase_add_test(tt, t_handle_table_by_address);
	tcase_add_test(tt, t_handle_table_by_address_churn);
	suite_add_tcase(s, tt);
	tcase_add_test(tv, t_destroy_with_corrupt_handle);
	tcase_add_test(tv, t_destroy_with_handle_of_other_type);
	tcase_add_test(tv, t_destroy_with_swapped_context);
	tcase_add_test(tv, t_create_with_corrupt_parent);
	tcase_add_test(tv, t_modify_query_with_corrupt_qp);
	tcase_add_test(tv, t_req_notify_with_corrupt_cq);
	tcase_add_test(tv, t_create_handle_nomem);
	tcase_add_test(tv, t_garbage_mr_and_pd);
	tcase_add_test(tv, t_garbage_other_objects);
	tcase_add_test(tv, t_rereg_after_dereg);
	suite_add_tcase(s, tv);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(handle_suite());
}
