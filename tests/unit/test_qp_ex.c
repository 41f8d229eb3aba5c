/* Unit tests for verbs/qp_ex.c: each ibv_wr_* call against a real QP. A
 * QP parked in SQD accepts WQEs but starts none, so what each call wrote
 * into the send ring can be read back from the slots; a connected pair in
 * RTS shows the data arriving. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/objects/ah.h"
#include "emu/objects/qp.h"
#include "emu/objects/qp_ex.h"
#include "verbs/qp_ex.h"
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define BUF_LEN (64 * 1024)

#define OPS_ALL (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |	\
		 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE | \
		 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |			\
		 IBV_QP_EX_WITH_RDMA_READ |				\
		 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |			\
		 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static union ibv_gid gid;
static uint8_t *buf;
static struct ibv_mr *mr;
static struct ibv_qp *qp;
static struct ibv_qp_ex *q;

static struct ibv_qp *make_qp(enum ibv_qp_type type, uint64_t ops,
			      uint32_t max_wr, uint32_t max_sge,
			      uint32_t max_inline)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = max_wr,
			.max_recv_wr = 16,
			.max_send_sge = max_sge,
			.max_recv_sge = 1,
			.max_inline_data = max_inline,
		},
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = ops,
	};
	struct ibv_qp *p = ibv_create_qp_ex(ctx, &ia);

	ck_assert_ptr_nonnull(p);
	/* What the tests count on is what was asked for. */
	ck_assert_uint_eq(to_emu_qp(p)->cap.max_send_wr, max_wr);
	ck_assert_uint_eq(to_emu_qp(p)->cap.max_send_sge, max_sge);
	ck_assert_uint_eq(to_emu_qp(p)->max_inline, max_inline);
	return p;
}

static void to_init(struct ibv_qp *p)
{
	ck_assert_int_eq(qp_to_init(p, &qp_conn_default), 0);
}

/* INIT -> RTR towards dest_qpn at our own GID. */
static void to_rtr(struct ibv_qp *p, uint32_t dest_qpn)
{
	struct qp_peer peer = { .qpn = dest_qpn, .gid = gid };

	ck_assert_int_eq(qp_to_rtr(p, &qp_conn_default, &peer), 0);
}

static void to_rts(struct ibv_qp *p)
{
	ck_assert_int_eq(qp_to_rts(p, &qp_conn_default), 0);
}

/* RTS, then SQD before anything is posted: WQEs are taken and kept. */
static void park(struct ibv_qp *p)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD };

	ck_assert_int_eq(qp_connect_pair(p, p, &qp_conn_default), 0);
	ck_assert_int_eq(ibv_modify_qp(p, &a, IBV_QP_STATE), 0);
}

static void fx_open(void)
{
	ctx = open_default();
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	cq = ibv_create_cq(ctx, 4096, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &gid), 0);
	buf = calloc(1, BUF_LEN);
	ck_assert_ptr_nonnull(buf);
	mr = ibv_reg_mr(pd, buf, BUF_LEN, ACCESS);
	ck_assert_ptr_nonnull(mr);
	qp = NULL;
	q = NULL;
}

/* A parked QP of the type with the operations and caps given. */
static void qp_setup(enum ibv_qp_type type, uint64_t ops, uint32_t max_wr,
		     uint32_t max_sge, uint32_t max_inline)
{
	if (qp)
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qp = make_qp(type, ops, max_wr, max_sge, max_inline);
	park(qp);
	q = ibv_qp_to_qp_ex(qp);
	ck_assert_ptr_eq(q, (struct ibv_qp_ex *)qp);
}

static void rc_setup(void)
{
	fx_open();
	qp_setup(IBV_QPT_RC, OPS_ALL, 16, 4, 64);
}

static void fx_close(void)
{
	if (qp)
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(buf);
}

/* WQEs posted and not yet taken by the engine (none are, in SQD). */
static uint32_t queued(void)
{
	return emu_wq_in_use(&to_emu_qp(qp)->sq);
}

/* The ith of them. */
static struct emu_swqe *slot(uint32_t i)
{
	struct emu_wq *sq = &to_emu_qp(qp)->sq;

	return emu_wq_slot(sq, atomic_load(&sq->cons) + i);
}

/* Forget what is queued, as RESET would, but staying parked. */
static void drop_queued(void)
{
	struct emu_wq *sq = &to_emu_qp(qp)->sq;

	pthread_spin_lock(&sq->lock);
	atomic_store(&sq->cons, atomic_load(&sq->prod));
	pthread_spin_unlock(&sq->lock);
}

/* ---- init ------------------------------------------------------------- */

START_TEST(t_init_fills_every_pointer)
{
	/* Even a QP created for no operation at all: the inline wrappers
	 * call through these unchecked. */
	qp_setup(IBV_QPT_RC, 0, 1, 1, 16);
	ck_assert_ptr_nonnull(q->wr_start);
	ck_assert_ptr_nonnull(q->wr_complete);
	ck_assert_ptr_nonnull(q->wr_abort);
	ck_assert_ptr_nonnull(q->wr_send);
	ck_assert_ptr_nonnull(q->wr_send_imm);
	ck_assert_ptr_nonnull(q->wr_send_inv);
	ck_assert_ptr_nonnull(q->wr_send_tso);
	ck_assert_ptr_nonnull(q->wr_rdma_write);
	ck_assert_ptr_nonnull(q->wr_rdma_write_imm);
	ck_assert_ptr_nonnull(q->wr_rdma_read);
	ck_assert_ptr_nonnull(q->wr_atomic_cmp_swp);
	ck_assert_ptr_nonnull(q->wr_atomic_fetch_add);
	ck_assert_ptr_nonnull(q->wr_atomic_write);
	ck_assert_ptr_nonnull(q->wr_bind_mw);
	ck_assert_ptr_nonnull(q->wr_local_inv);
	ck_assert_ptr_nonnull(q->wr_flush);
	ck_assert_ptr_nonnull(q->wr_set_ud_addr);
	ck_assert_ptr_nonnull(q->wr_set_xrc_srqn);
	ck_assert_ptr_nonnull(q->wr_set_sge);
	ck_assert_ptr_nonnull(q->wr_set_sge_list);
	ck_assert_ptr_nonnull(q->wr_set_inline_data);
	ck_assert_ptr_nonnull(q->wr_set_inline_data_list);
	/* Every operation refused, none written. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), EOPNOTSUPP);
	ck_assert_uint_eq(queued(), 0);
}
END_TEST

START_TEST(t_init_refuses)
{
	static const uint64_t bad[] = {
		IBV_QP_EX_WITH_TSO, IBV_QP_EX_WITH_FLUSH,
		IBV_QP_EX_WITH_ATOMIC_WRITE, 1ull << 13, 1ull << 63,
	};
	struct emu_qpx x;
	size_t i;

	ck_assert_int_eq(emu_verbs_qpx_init(NULL, 0), EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&x, 0, sizeof(x));
		ck_assert_int_eq(emu_verbs_qpx_init(&x, OPS_ALL | bad[i]),
				 EOPNOTSUPP);
		ck_assert_ptr_null(x.ibv.wr_start);
	}
}
END_TEST

/* The interface allocates nothing: it writes the QP's own ring. No
 * device is open, so no other thread's allocation is counted. */
START_TEST(t_init_allocates_nothing)
{
	struct emu_qpx x;

	int rc, armed;

	memset(&x, 0, sizeof(x));
	/* calloc only: Check's asserts malloc as they pass. */
	emu_test_fail_calloc(1);
	rc = emu_verbs_qpx_init(&x, OPS_ALL);
	armed = emu_test_alloc_armed();
	emu_test_fail_calloc(0);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(armed, 1);
	ck_assert_ptr_nonnull(x.ibv.wr_start);
}
END_TEST

/* ---- builders --------------------------------------------------------- */

START_TEST(t_send_sge)
{
	ibv_wr_start(q);
	q->wr_id = 0x1122334455667788ull;
	/* INLINE in wr_flags is not how inline is asked for: dropped. */
	q->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
		      IBV_SEND_FENCE | IBV_SEND_INLINE;
	ibv_wr_send(q);
	ibv_wr_set_sge(q, 0xabc, 0x1000, 100);
	ibv_wr_send(q);		/* no data setter at all */
	/* wr_id and flags are read when the builder runs. */
	q->wr_id = 0;
	q->wr_flags = 0;
	/* Nothing is the engine's before wr_complete. */
	ck_assert_uint_eq(queued(), 0);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 2);
	ck_assert_uint_eq(slot(0)->wr_id, 0x1122334455667788ull);
	ck_assert_int_eq(slot(0)->opcode, IBV_WR_SEND);
	ck_assert_uint_eq(slot(0)->send_flags, IBV_SEND_SIGNALED |
			  IBV_SEND_SOLICITED | IBV_SEND_FENCE);
	ck_assert(slot(0)->signaled);
	ck_assert(!slot(0)->inl);
	ck_assert_uint_eq(slot(0)->num_sge, 1);
	ck_assert_uint_eq(slot(0)->length, 100);
	ck_assert_uint_eq(emu_swqe_sge(slot(0))[0].lkey, 0xabc);
	ck_assert_uint_eq(emu_swqe_sge(slot(0))[0].addr, 0x1000);
	ck_assert_uint_eq(emu_swqe_sge(slot(0))[0].length, 100);
	ck_assert_uint_eq(slot(1)->send_flags, IBV_SEND_SIGNALED |
			  IBV_SEND_SOLICITED | IBV_SEND_FENCE);
	ck_assert_uint_eq(slot(1)->num_sge, 0);
	ck_assert_uint_eq(slot(1)->length, 0);
}
END_TEST

/* What each of t_every_opcode's WQEs holds. */
struct expect {
	enum ibv_wr_opcode opcode;
	uint32_t rkey;
	uint64_t remote_addr, compare_add, swap;
	uint32_t imm_be, length;
};

START_TEST(t_every_opcode)
{
	const struct expect want[8] = {
		{ IBV_WR_SEND_WITH_IMM, 0, 0, 0, 0, htonl(0xdeadbeef), 8 },
		{ IBV_WR_SEND_WITH_INV, 0x5555, 0, 0, 0, 0, 8 },
		{ IBV_WR_RDMA_WRITE, 0x77, 0xfeed0000, 0, 0, 0, 16 },
		{ IBV_WR_RDMA_WRITE_WITH_IMM, 0x78, 0xfeed1000, 0, 0,
		  htonl(42), 16 },
		{ IBV_WR_RDMA_READ, 0x79, 0xfeed2000, 0, 0, 0, 32 },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 0x7a, 0xfeed3000, 111, 222, 0, 8 },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 0x7b, 0xfeed4000, 333, 0, 0, 8 },
		{ IBV_WR_SEND, 0, 0, 0, 0, 0, 0 },
	};
	struct emu_swqe *w;
	int i;

	ibv_wr_start(q);
	q->wr_flags = IBV_SEND_SIGNALED;
	q->wr_id = 1;
	ibv_wr_send_imm(q, htonl(0xdeadbeef));
	ibv_wr_set_sge(q, 1, 0x100, 8);
	q->wr_id = 2;
	ibv_wr_send_inv(q, 0x5555);
	ibv_wr_set_sge(q, 1, 0x200, 8);
	q->wr_id = 3;
	q->wr_flags = 0;
	ibv_wr_rdma_write(q, 0x77, 0xfeed0000);
	ibv_wr_set_sge(q, 1, 0x300, 16);
	q->wr_id = 4;
	ibv_wr_rdma_write_imm(q, 0x78, 0xfeed1000, htonl(42));
	ibv_wr_set_sge(q, 1, 0x400, 16);
	q->wr_id = 5;
	ibv_wr_rdma_read(q, 0x79, 0xfeed2000);
	ibv_wr_set_sge(q, 2, 0x500, 32);
	q->wr_id = 6;
	ibv_wr_atomic_cmp_swp(q, 0x7a, 0xfeed3000, 111, 222);
	ibv_wr_set_sge(q, 3, 0x600, 8);
	q->wr_id = 7;
	ibv_wr_atomic_fetch_add(q, 0x7b, 0xfeed4000, 333);
	ibv_wr_set_sge(q, 3, 0x700, 8);
	q->wr_id = 8;
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);

	ck_assert_uint_eq(queued(), 8);
	for (i = 0; i < 8; i++) {
		const struct expect *x = &want[i];

		w = slot((uint32_t)i);
		ck_assert_int_eq(w->opcode, x->opcode);
		ck_assert_uint_eq(w->rkey, x->rkey);
		ck_assert_uint_eq(w->remote_addr, x->remote_addr);
		ck_assert_uint_eq(w->compare_add, x->compare_add);
		ck_assert_uint_eq(w->swap, x->swap);
		ck_assert_uint_eq(w->imm_be, x->imm_be);
		ck_assert_uint_eq(w->length, x->length);
		ck_assert_uint_eq(w->send_flags, i < 2 ? IBV_SEND_SIGNALED : 0);
		ck_assert(w->signaled == (i < 2));
		ck_assert_uint_eq(w->wr_id, (uint64_t)i + 1);
		if (i < 7)
			ck_assert_uint_eq(emu_swqe_sge(w)[0].addr,
					  0x100u * (unsigned int)(i + 1));
	}
	/* The last, a send with no data setter: a zero-length message. */
	ck_assert_uint_eq(slot(7)->num_sge, 0);
}
END_TEST

/* sq_sig_all signals every WQE, whatever wr_flags say. */
START_TEST(t_sq_sig_all)
{
	to_emu_qp(qp)->sq_sig_all = true;
	ibv_wr_start(q);
	q->wr_flags = 0;
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert(slot(0)->signaled);
	to_emu_qp(qp)->sq_sig_all = false;
}
END_TEST

/* The memory-window builders carry their arguments into the slot; they
 * exist only for QPs created with them. */
START_TEST(t_mw_builders)
{
	struct ibv_mw_bind_info info = {
		.mr = mr, .addr = (uintptr_t)buf, .length = 64,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);

	ck_assert_ptr_nonnull(mw);
	qp_setup(IBV_QPT_RC, OPS_ALL | IBV_QP_EX_WITH_BIND_MW |
		 IBV_QP_EX_WITH_LOCAL_INV, 4, 1, 16);
	ibv_wr_start(q);
	q->wr_id = 1;
	ibv_wr_bind_mw(q, mw, 0x1234, &info);
	q->wr_id = 2;
	ibv_wr_local_inv(q, 0x1234);
	/* Local work has no data: a setter's is not kept. */
	ibv_wr_set_sge(q, mr->lkey, (uintptr_t)buf, 8);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 2);
	ck_assert_int_eq(slot(0)->opcode, IBV_WR_BIND_MW);
	ck_assert(slot(0)->local);
	ck_assert_uint_eq(slot(0)->mw_rkey, mw->rkey);
	ck_assert_uint_eq(slot(0)->mw_handle, mw->handle);
	ck_assert_uint_eq(slot(0)->rkey, 0x1234);
	ck_assert_uint_eq(slot(0)->remote_addr, (uintptr_t)buf);
	ck_assert_uint_eq(slot(0)->mw_len, 64);
	ck_assert_uint_eq(slot(0)->mr_lkey, mr->lkey);
	ck_assert_uint_eq(slot(0)->mw_access, IBV_ACCESS_REMOTE_READ);
	ck_assert_int_eq(slot(1)->opcode, IBV_WR_LOCAL_INV);
	ck_assert(slot(1)->local);
	ck_assert_uint_eq(slot(1)->rkey, 0x1234);
	ck_assert_uint_eq(slot(1)->num_sge, 0);
	ck_assert_uint_eq(slot(1)->length, 0);
	/* No window or no bind information: nothing is posted. */
	ibv_wr_start(q);
	ibv_wr_bind_mw(q, NULL, 1, &info);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ibv_wr_start(q);
	ibv_wr_bind_mw(q, mw, 1, NULL);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ck_assert_uint_eq(queued(), 2);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qp = NULL;
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
}
END_TEST

START_TEST(t_sge_list)
{
	struct ibv_sge list[5] = {
		{ .addr = 0x10, .length = 10, .lkey = 1 },
		{ .addr = 0x20, .length = 0, .lkey = 0xbad },
		{ .addr = 0x30, .length = 30, .lkey = 3 },
		{ .addr = 0x40, .length = 40, .lkey = 4 },
	};
	struct ibv_sge *s;

	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 4, list);
	/* The list was copied: the caller may reuse it at once. */
	memset(list, 0xff, sizeof(list));
	ibv_wr_rdma_write(q, 9, 0x9000);
	ibv_wr_set_sge(q, 5, 0x50, 0);	/* zero length: dropped */
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 2);
	s = emu_swqe_sge(slot(0));
	ck_assert_uint_eq(slot(0)->num_sge, 3);
	ck_assert_uint_eq(slot(0)->length, 80);
	ck_assert_uint_eq(s[0].addr, 0x10);
	ck_assert_uint_eq(s[1].addr, 0x30);
	ck_assert_uint_eq(s[1].lkey, 3);
	ck_assert_uint_eq(s[2].length, 40);
	ck_assert_uint_eq(slot(1)->num_sge, 0);
	drop_queued();

	/* More SGEs than the QP takes: nothing posted. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 5, list);
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	ck_assert_uint_eq(queued(), 0);
	/* A later data setter replaces the earlier one. */
	list[0].length = 1;
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 4, list);
	ibv_wr_set_sge(q, 6, 0x60, 6);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(slot(0)->num_sge, 1);
	ck_assert_uint_eq(slot(0)->length, 6);
	ck_assert_uint_eq(emu_swqe_sge(slot(0))[0].lkey, 6);
}
END_TEST

/* An error in the middle of a batch drops the whole of it: what was
 * written before it, and what comes after. */
START_TEST(t_error_mid_batch)
{
	struct ibv_sge list[5] = {{ .addr = 1, .length = 1, .lkey = 1 }};
	int i;

	ibv_wr_start(q);
	for (i = 0; i < 3; i++) {
		ibv_wr_send(q);
		ibv_wr_set_sge(q, 1, 0x10, 1);
	}
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 5, list);	/* one more than max_send_sge */
	for (i = 0; i < 3; i++)
		ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	ck_assert_uint_eq(queued(), 0);
	/* So does one found only once the WQE is whole: a message past
	 * 2 GiB in two SGEs, then a valid send. */
	list[0].length = 0x40000000;
	list[1] = list[0];
	list[1].length = 0x40000001;
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 2, list);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ck_assert_uint_eq(queued(), 0);
	/* ... and as the last WQE of the batch. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_send(q);
	ibv_wr_set_sge(q, 1, 0x10, 0x80000001u);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ck_assert_uint_eq(queued(), 0);
	/* The ring is as it was: a full batch fits. */
	ibv_wr_start(q);
	for (i = 0; i < 16; i++)
		ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 16);
}
END_TEST

START_TEST(t_inline)
{
	char a[] = "hello, ";
	char b[] = "world";
	char big[65];
	struct ibv_data_buf bufs[3] = {
		{ .addr = a, .length = 7 },
		{ .addr = NULL, .length = 0 },
		{ .addr = b, .length = 5 },
	};

	ibv_wr_start(q);
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, a, 7);
	ibv_wr_rdma_write(q, 1, 0x2000);
	ibv_wr_set_inline_data_list(q, 3, bufs);
	/* Copied by the setter: the buffers are free again. */
	memset(a, 'X', sizeof(a));
	memset(b, 'Y', sizeof(b));
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, big, 0);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 3);
	ck_assert_uint_eq(slot(0)->send_flags,
			  IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	ck_assert(slot(0)->inl);
	ck_assert_uint_eq(slot(0)->num_sge, 0);
	ck_assert_uint_eq(slot(0)->length, 7);
	ck_assert_mem_eq(emu_swqe_data(slot(0)), "hello, ", 7);
	ck_assert_uint_eq(slot(1)->length, 12);
	ck_assert_mem_eq(emu_swqe_data(slot(1)), "hello, world", 12);
	ck_assert_uint_eq(slot(1)->remote_addr, 0x2000);
	ck_assert_uint_eq(slot(2)->send_flags,
			  IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	ck_assert_uint_eq(slot(2)->length, 0);
	drop_queued();

	/* Exactly max_inline fits, one more byte does not. */
	memset(big, 'z', sizeof(big));
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, big, 64);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(slot(0)->length, 64);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, big, 65);
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	bufs[0].addr = big;
	bufs[0].length = 60;
	bufs[2].addr = big;
	bufs[2].length = 5;
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_inline_data_list(q, 3, bufs);
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	ck_assert_uint_eq(queued(), 1);

	/* Inline data is never a destination. */
	ibv_wr_start(q);
	ibv_wr_rdma_read(q, 1, 0x3000);
	ibv_wr_set_inline_data(q, big, 8);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ibv_wr_start(q);
	ibv_wr_atomic_fetch_add(q, 1, 0x3000, 1);
	ibv_wr_set_inline_data(q, big, 8);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);

	/* An SGE setter after an inline one: no longer inline. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, big, 8);
	ibv_wr_set_sge(q, 4, 0x4000, 4);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 2);
	ck_assert_uint_eq(slot(1)->send_flags & IBV_SEND_INLINE, 0);
	ck_assert(!slot(1)->inl);
	ck_assert_uint_eq(slot(1)->length, 4);
	ck_assert_uint_eq(emu_swqe_sge(slot(1))[0].addr, 0x4000);
}
END_TEST

/* Each WQE's inline copy is its own: a batch of inline sends keeps every
 * payload. */
START_TEST(t_inline_per_wr)
{
	char b[8];
	int i;

	ibv_wr_start(q);
	for (i = 0; i < 16; i++) {
		memset(b, 'a' + i, sizeof(b));
		ibv_wr_send(q);
		ibv_wr_set_inline_data(q, b, sizeof(b));
	}
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 16);
	for (i = 0; i < 16; i++) {
		memset(b, 'a' + i, sizeof(b));
		ck_assert_mem_eq(emu_swqe_data(slot((uint32_t)i)), b,
				 sizeof(b));
	}
}
END_TEST

START_TEST(t_ud_addr)
{
	struct ibv_ah_attr aha = {
		.is_global = 1,
		.grh = { .dgid = gid, .hop_limit = 64 },
		.port_num = 1,
	};
	struct ibv_ah *ah = ibv_create_ah(pd, &aha);

	ck_assert_ptr_nonnull(ah);
	qp_setup(IBV_QPT_UD, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM,
		 4, 1, 32);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_ud_addr(q, ah, 0xabcdef, 0x11111111);
	ibv_wr_set_sge(q, 1, 0x100, 10);
	ibv_wr_send_imm(q, htonl(7));
	/* The setters may come in any order. */
	ibv_wr_set_sge(q, 1, 0x100, 10);
	ibv_wr_set_ud_addr(q, ah, 0xff000002, 0x80010000);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 2);
	ck_assert_ptr_eq(slot(0)->ah, to_emu_ah(ah));
	ck_assert_uint_eq(slot(0)->remote_qpn, 0xabcdef);
	ck_assert_uint_eq(slot(0)->remote_qkey, 0x11111111);
	ck_assert_uint_eq(slot(0)->length, 10);
	ck_assert_uint_eq(slot(1)->remote_qpn, 2);	/* 24 bits */
	ck_assert_uint_eq(slot(1)->remote_qkey, 0x80010000);
	ck_assert_uint_eq(slot(1)->imm_be, htonl(7));

	/* A UD send with no destination is refused as a whole. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_ud_addr(q, ah, 3, 3);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ck_assert_uint_eq(queued(), 2);
	/* A UD message longer than the port's MTU is taken: the requester
	 * drops it (test_qp_sem's t_ud_send_over_mtu_dropped). */
	drop_queued();
	qp_setup(IBV_QPT_UD, IBV_QP_EX_WITH_SEND, 4, 2, 32);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_ud_addr(q, ah, 3, 3);
	ibv_wr_set_sge_list(q, 2, (struct ibv_sge[]){
		{ .addr = 0x1000, .length = 4096, .lkey = 1 },
		{ .addr = 0x9000, .length = 4096, .lkey = 1 } });
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 1);
	ck_assert_uint_eq(slot(0)->length, 8192);
	drop_queued();
	/* UD QPs were made for sends only. */
	ibv_wr_start(q);
	ibv_wr_rdma_write(q, 1, 2);
	ck_assert_int_eq(ibv_wr_complete(q), EOPNOTSUPP);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qp = NULL;
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
}
END_TEST

START_TEST(t_xrc_srqn)
{
	qp_setup(IBV_QPT_XRC_SEND, OPS_ALL, 4, 1, 16);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_xrc_srqn(q, 0x4242);
	ibv_wr_rdma_read(q, 5, 0x5000);
	ibv_wr_set_xrc_srqn(q, 0x4343);
	ibv_wr_set_sge(q, 1, 0x10, 8);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 2);
	ck_assert_uint_eq(slot(0)->remote_srqn, 0x4242);
	ck_assert_uint_eq(slot(1)->remote_srqn, 0x4343);
	ck_assert_uint_eq(slot(1)->remote_addr, 0x5000);
}
END_TEST

/* ---- the critical section --------------------------------------------- */

START_TEST(t_ring_full)
{
	int i;

	qp_setup(IBV_QPT_RC, OPS_ALL, 4, 1, 16);
	ibv_wr_start(q);
	for (i = 0; i < 4; i++)
		ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 4);
	/* Full: even one more is refused. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	drop_queued();

	/* A fifth: nothing at all is posted. */
	ibv_wr_start(q);
	for (i = 0; i < 5; i++) {
		ibv_wr_send(q);
		/* lands nowhere for the fifth, never on the fourth */
		ibv_wr_set_sge(q, (uint32_t)i, 0x10, 1);
	}
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	ck_assert_uint_eq(queued(), 0);

	/* The free space is what counts, not max_send_wr: with two WQEs
	 * outstanding, a batch of three does not fit and posts nothing. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ibv_wr_start(q);
	for (i = 0; i < 3; i++)
		ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	ck_assert_uint_eq(queued(), 2);
	/* ... and neither does ibv_post_send's chain of three, which posts
	 * the two that fit, as post_send does. */
	{
		struct ibv_send_wr wr[3] = {
			{ .wr_id = 10, .next = &wr[1], .opcode = IBV_WR_SEND },
			{ .wr_id = 11, .next = &wr[2], .opcode = IBV_WR_SEND },
			{ .wr_id = 12, .opcode = IBV_WR_SEND },
		};
		struct ibv_send_wr *bad = NULL;

		ck_assert_int_eq(ibv_post_send(qp, wr, &bad), ENOMEM);
		ck_assert_ptr_eq(bad, &wr[2]);
		ck_assert_uint_eq(queued(), 4);
		ck_assert_uint_eq(slot(3)->wr_id, 11);
	}
	drop_queued();

	/* The next section starts clean. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 1);
}
END_TEST

START_TEST(t_abort)
{
	ibv_wr_start(q);
	q->wr_id = 1;
	ibv_wr_send(q);
	ibv_wr_rdma_write(q, 1, 2);
	ibv_wr_abort(q);
	ck_assert_uint_eq(queued(), 0);

	/* An empty section posts nothing and succeeds. */
	ibv_wr_start(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 0);

	/* Nothing of the aborted batch leaks into the next. */
	ibv_wr_start(q);
	q->wr_id = 2;
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 1);
	ck_assert_uint_eq(slot(0)->wr_id, 2);
	ck_assert_int_eq(slot(0)->opcode, IBV_WR_SEND);

	/* An abort also clears an error. */
	ibv_wr_start(q);
	ibv_wr_bind_mw(q, NULL, 0, NULL);
	ibv_wr_abort(q);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 2);
	/* ibv_post_send is not held off after a section ends. */
	{
		struct ibv_send_wr wr = { .wr_id = 3, .opcode = IBV_WR_SEND };
		struct ibv_send_wr *bad;

		ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
		ck_assert_uint_eq(queued(), 3);
	}
}
END_TEST

START_TEST(t_unsupported)
{
	uint64_t v = 0;
	int k;

	for (k = 0; k < 5; k++) {
		ibv_wr_start(q);
		ibv_wr_send(q);
		switch (k) {
		case 0:
			ibv_wr_bind_mw(q, NULL, 1, NULL);
			break;
		case 1:
			ibv_wr_local_inv(q, 1);
			break;
		case 2:
			ibv_wr_send_tso(q, NULL, 0, 0);
			break;
		case 3:
			ibv_wr_flush(q, 1, 2, 3, IBV_FLUSH_GLOBAL,
				     IBV_FLUSH_RANGE);
			break;
		default:
			ibv_wr_atomic_write(q, 1, 2, &v);
			break;
		}
		/* A setter after the refused builder: no second error, and
		 * not applied to the send before it. */
		ibv_wr_set_sge(q, 1, 2, 3);
		ck_assert_int_eq(ibv_wr_complete(q), EOPNOTSUPP);
	}
	ck_assert_uint_eq(queued(), 0);

	/* Operations outside the QP's send_ops_flags. */
	qp_setup(IBV_QPT_RC, IBV_QP_EX_WITH_SEND, 4, 1, 16);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_atomic_cmp_swp(q, 1, 2, 3, 4);
	ck_assert_int_eq(ibv_wr_complete(q), EOPNOTSUPP);
	ibv_wr_start(q);
	ibv_wr_send_imm(q, 0);
	ck_assert_int_eq(ibv_wr_complete(q), EOPNOTSUPP);
	ck_assert_uint_eq(queued(), 0);
}
END_TEST

/*
 * Until the QP has been in RTS since it was made or last reset (RESET,
 * INIT, RTR, and ERR reached from those), ibv_wr_complete fails with
 * EINVAL and posts nothing, even for an empty section: mlx5 swaps in a
 * wr_complete that does exactly that until the QP reaches RTS. After,
 * SQD and ERR post as RTS does.
 */
START_TEST(t_wr_complete_before_rts_einval)
{
	struct ibv_qp *p = make_qp(IBV_QPT_RC, OPS_ALL, 4, 1, 16);
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(p);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc;
	int k;

	for (k = 0; k < 4; k++) {
		errno = 0;
		ibv_wr_start(x);
		ibv_wr_send(x);
		ck_assert_int_eq(ibv_wr_complete(x), EINVAL);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_uint_eq(emu_wq_in_use(&to_emu_qp(p)->sq), 0);
		ibv_wr_start(x);
		ck_assert_int_eq(ibv_wr_complete(x), EINVAL);
		if (k == 0)
			to_init(p);
		else if (k == 1)
			to_rtr(p, p->qp_num);
		else if (k == 2)
			ck_assert_int_eq(ibv_modify_qp(p, &a, IBV_QP_STATE),
					 0);
	}
	a.qp_state = IBV_QPS_RESET;
	ck_assert_int_eq(ibv_modify_qp(p, &a, IBV_QP_STATE), 0);
	to_init(p);
	to_rtr(p, p->qp_num);
	to_rts(p);
	ibv_wr_start(x);
	ck_assert_int_eq(ibv_wr_complete(x), 0);
	/* ERR after RTS: posted, and flushed. */
	a.qp_state = IBV_QPS_ERR;
	ck_assert_int_eq(ibv_modify_qp(p, &a, IBV_QP_STATE), 0);
	ibv_wr_start(x);
	x->wr_id = 77;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ck_assert_int_eq(ibv_wr_complete(x), 0);
	wait_wc(cq, &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 77);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(ibv_destroy_qp(p), 0);
}
END_TEST

START_TEST(t_errors)
{
	/* A setter with no builder before it. */
	ibv_wr_start(q);
	ibv_wr_set_sge(q, 1, 2, 3);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ibv_wr_start(q);
	ibv_wr_set_ud_addr(q, NULL, 0, 0);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ibv_wr_start(q);
	ibv_wr_set_xrc_srqn(q, 1);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ibv_wr_start(q);
	ibv_wr_set_inline_data(q, NULL, 0);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 2, NULL);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_inline_data_list(q, 2, NULL);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	/* The first error is the one reported. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 99, NULL);
	ibv_wr_local_inv(q, 1);
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	ck_assert_uint_eq(queued(), 0);

	/* Outside a section: complete refuses, builders and abort do
	 * nothing. */
	errno = 0;
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ibv_wr_send(q);
	ibv_wr_set_sge(q, 1, 2, 3);
	ibv_wr_bind_mw(q, NULL, 0, NULL);
	ibv_wr_abort(q);
	ck_assert_uint_eq(queued(), 0);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(queued(), 1);
}
END_TEST

/* Two threads building at once: start..complete is a critical section, so
 * every batch lands in the ring whole, its WQEs side by side. */
#define THREAD_BATCHES 300

static void *builder_thread(void *arg)
{
	uint64_t tag = (uint64_t)(uintptr_t)arg << 32;
	int i, k, bad = 0;

	for (i = 0; i < THREAD_BATCHES; i++) {
		ibv_wr_start(q);
		for (k = 0; k < 3; k++) {
			q->wr_id = tag | (uint64_t)k;
			ibv_wr_send(q);
		}
		if (ibv_wr_complete(q))
			bad++;
	}
	return (void *)(uintptr_t)bad;
}

START_TEST(t_threads)
{
	pthread_t th[2];
	uint32_t i, k;
	void *bad;

	qp_setup(IBV_QPT_RC, OPS_ALL, 2 * 3 * THREAD_BATCHES, 1, 16);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, builder_thread,
						(void *)(uintptr_t)(i + 1)), 0);
	for (i = 0; i < 2; i++) {
		pthread_join(th[i], &bad);
		ck_assert_ptr_null(bad);
	}
	ck_assert_uint_eq(queued(), 2 * 3 * THREAD_BATCHES);
	for (i = 0; i < 2 * THREAD_BATCHES; i++) {
		uint64_t tag = slot(i * 3)->wr_id & ~0xffffffffull;

		for (k = 0; k < 3; k++)
			ck_assert_uint_eq(slot(i * 3 + k)->wr_id, tag | k);
	}
}
END_TEST

/* ---- data, end to end ------------------------------------------------- */

/* Two QPs of one device, connected to each other, both in RTS. */
static struct ibv_qp *peer;

static void pair_setup(void)
{
	fx_open();
	qp = make_qp(IBV_QPT_RC, OPS_ALL, 16, 4, 64);
	peer = make_qp(IBV_QPT_RC, OPS_ALL, 16, 4, 64);
	ck_assert_int_eq(qp_connect_pair(qp, peer, &qp_conn_default), 0);
	q = ibv_qp_to_qp_ex(qp);
}

static void pair_teardown(void)
{
	ck_assert_int_eq(ibv_destroy_qp(peer), 0);
	fx_close();
}

static void wait_ok(uint64_t wr_id)
{
	struct ibv_wc wc;

	wait_wc(cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, wr_id);
}

START_TEST(t_data)
{
	uint8_t *src = buf, *dst = buf + 16384, *rd = buf + 32768;
	uint64_t *atom = (uint64_t *)(buf + 49152);
	uint64_t *orig = atom + 1;
	struct ibv_sge rsge = {
		.addr = (uintptr_t)(buf + 40960), .length = 4096,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr rwr = { .wr_id = 99, .sg_list = &rsge,
				   .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc;
	char msg[] = "inline, via ibv_wr_set_inline_data";
	int i, k;

	for (i = 0; i < 3000; i++)
		src[i] = (uint8_t)(i * 7 + 1);
	for (i = 0; i < 2000; i++)
		dst[i + 5000] = (uint8_t)(i * 3 + 2);
	*atom = 100;
	ck_assert_int_eq(ibv_post_recv(peer, &rwr, &rbad), 0);

	ibv_wr_start(q);
	q->wr_flags = IBV_SEND_SIGNALED;
	q->wr_id = 1;
	ibv_wr_rdma_write(q, mr->rkey, (uintptr_t)dst);
	ibv_wr_set_sge_list(q, 2, (struct ibv_sge[]){
		{ .addr = (uintptr_t)src, .length = 1000, .lkey = mr->lkey },
		{ .addr = (uintptr_t)src + 1000, .length = 2000,
		  .lkey = mr->lkey } });
	q->wr_id = 2;
	ibv_wr_rdma_read(q, mr->rkey, (uintptr_t)dst + 5000);
	ibv_wr_set_sge(q, mr->lkey, (uintptr_t)rd, 2000);
	q->wr_id = 3;
	ibv_wr_atomic_fetch_add(q, mr->rkey, (uintptr_t)atom, 5);
	ibv_wr_set_sge(q, mr->lkey, (uintptr_t)orig, 8);
	q->wr_id = 4;
	ibv_wr_atomic_cmp_swp(q, mr->rkey, (uintptr_t)atom, 105, 7);
	ibv_wr_set_sge(q, mr->lkey, (uintptr_t)orig, 8);
	q->wr_id = 5;
	ibv_wr_send_imm(q, htonl(0x01020304));
	ibv_wr_set_inline_data(q, msg, sizeof(msg));
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	memset(msg, 0, sizeof(msg));

	/* Ours in order, the peer's receive anywhere among them. */
	for (i = 1, k = 0; i <= 5 || !k;) {
		wait_wc(cq, &wc, 3000);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		if (wc.qp_num == peer->qp_num) {
			ck_assert_uint_eq(wc.wr_id, 99);
			ck_assert_uint_eq(wc.byte_len, sizeof(msg));
			ck_assert(wc.wc_flags & IBV_WC_WITH_IMM);
			ck_assert_uint_eq(wc.imm_data, htonl(0x01020304));
			k++;
			continue;
		}
		ck_assert_uint_eq(wc.wr_id, (uint64_t)i);
		i++;
	}
	ck_assert(!memcmp(dst, src, 3000));
	ck_assert(!memcmp(rd, dst + 5000, 2000));
	ck_assert_uint_eq(*atom, 7);
	ck_assert_uint_eq(*orig, 105);
	ck_assert_str_eq((char *)buf + 40960,
			 "inline, via ibv_wr_set_inline_data");
}
END_TEST

/* A dropped batch sends nothing: no completion, no data. */
START_TEST(t_dropped_sends_nothing)
{
	uint8_t *dst = buf + 16384;
	int i;

	memset(buf, 0xab, 64);
	ibv_wr_start(q);
	q->wr_flags = IBV_SEND_SIGNALED;
	for (i = 0; i < 3; i++) {
		q->wr_id = (uint64_t)i;
		ibv_wr_rdma_write(q, mr->rkey, (uintptr_t)dst + 64 * i);
		ibv_wr_set_sge(q, mr->lkey, (uintptr_t)buf, 64);
	}
	ibv_wr_abort(q);
	ibv_wr_start(q);
	ibv_wr_rdma_write(q, mr->rkey, (uintptr_t)dst);
	ibv_wr_set_sge(q, mr->lkey, (uintptr_t)buf, 64);
	ibv_wr_rdma_write(q, mr->rkey, (uintptr_t)dst + 64);
	ibv_wr_set_sge_list(q, 5, NULL);
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	expect_no_wc(cq, 100);
	for (i = 0; i < 192; i++)
		ck_assert_uint_eq(dst[i], 0);
	/* The QP goes on as before. */
	ibv_wr_start(q);
	q->wr_id = 7;
	ibv_wr_rdma_write(q, mr->rkey, (uintptr_t)dst);
	ibv_wr_set_sge(q, mr->lkey, (uintptr_t)buf, 64);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	wait_ok(7);
	ck_assert(!memcmp(dst, buf, 64));
}
END_TEST

static Suite *qp_ex_suite(void)
{
	Suite *s = suite_create("qp_ex");
	TCase *ti = tcase_create("init");
	TCase *tb = tcase_create("builders");
	TCase *tr = tcase_create("other types");
	TCase *td = tcase_create("data");

	tcase_add_test(ti, t_init_refuses);
	tcase_add_test(ti, t_init_allocates_nothing);
	suite_add_tcase(s, ti);

	tcase_add_checked_fixture(tb, rc_setup, fx_close);
	tcase_add_test(tb, t_init_fills_every_pointer);
	tcase_add_test(tb, t_send_sge);
	tcase_add_test(tb, t_every_opcode);
	tcase_add_test(tb, t_sq_sig_all);
	tcase_add_test(tb, t_sge_list);
	tcase_add_test(tb, t_error_mid_batch);
	tcase_add_test(tb, t_inline);
	tcase_add_test(tb, t_inline_per_wr);
	tcase_add_test(tb, t_abort);
	tcase_add_test(tb, t_unsupported);
	tcase_add_test(tb, t_mw_builders);
	tcase_add_test(tb, t_wr_complete_before_rts_einval);
	tcase_add_test(tb, t_errors);
	tcase_add_test(tb, t_threads);
	suite_add_tcase(s, tb);

	tcase_add_checked_fixture(tr, rc_setup, fx_close);
	tcase_add_test(tr, t_ud_addr);
	tcase_add_test(tr, t_xrc_srqn);
	tcase_add_test(tr, t_ring_full);
	suite_add_tcase(s, tr);

	tcase_add_checked_fixture(td, pair_setup, pair_teardown);
	tcase_add_test(td, t_data);
	tcase_add_test(td, t_dropped_sends_nothing);
	suite_add_tcase(s, td);
	return s;
}

int main(void)
{
	return emu_test_run(qp_ex_suite());
}
