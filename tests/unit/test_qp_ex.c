/* Unit tests for verbs/qp_ex.c: each ibv_wr_* call against a fake context
 * whose post_send records the chain it is handed. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <check.h>

#include "emu/qp_ex.h"
#include "tests/unit/testlib.h"

/* ---- the fake device: post_send deep-copies what it is given ---------- */

#define CAP_WRS 64
#define CAP_SGES 8
#define CAP_DATA 512

struct cap_wr {
	struct ibv_send_wr wr;
	struct ibv_sge sge[CAP_SGES];
	uint8_t data[CAP_DATA];		/* inline bytes, as posted */
	size_t data_len;
};

static struct cap_wr cap[CAP_WRS];
static int ncap;		/* WRs in the last post */
static int nposts;		/* post_send calls */
static int post_ret;		/* what post_send answers */
static struct ibv_qp *post_qp;

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	int i;

	nposts++;
	post_qp = qp;
	ncap = 0;
	for (; wr; wr = wr->next) {
		struct cap_wr *c = &cap[ncap++];

		ck_assert_int_le(ncap, CAP_WRS);
		ck_assert_int_le(wr->num_sge, CAP_SGES);
		c->wr = *wr;
		c->data_len = 0;
		for (i = 0; i < wr->num_sge; i++) {
			c->sge[i] = wr->sg_list[i];
			if (!(wr->send_flags & IBV_SEND_INLINE))
				continue;
			ck_assert_uint_le(c->data_len + wr->sg_list[i].length,
					  CAP_DATA);
			memcpy(c->data + c->data_len,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			c->data_len += wr->sg_list[i].length;
		}
	}
	if (post_ret)
		*bad = wr;
	return post_ret;
}

static struct ibv_context ctx;
static struct emu_qpx qpx;
static struct ibv_qp_ex *q = &qpx.ibv;

#define OPS_ALL (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |	\
		 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE | \
		 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |			\
		 IBV_QP_EX_WITH_RDMA_READ |				\
		 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |			\
		 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

static void qp_setup(enum ibv_qp_type type, uint64_t ops, uint32_t max_wr,
		     uint32_t max_sge, uint32_t max_inline)
{
	memset(&ctx, 0, sizeof(ctx));
	ctx.ops.post_send = fake_post_send;
	memset(&qpx, 0, sizeof(qpx));
	q->qp_base.context = &ctx;
	q->qp_base.qp_type = type;
	ncap = 0;
	nposts = 0;
	post_ret = 0;
	post_qp = NULL;
	memset(cap, 0, sizeof(cap));
	ck_assert_int_eq(emu_qpx_init(&qpx, ops, max_wr, max_sge, max_inline),
			 0);
	ck_assert_ptr_nonnull(qpx.wrb);
}

static void rc_setup(void)
{
	qp_setup(IBV_QPT_RC, OPS_ALL, 16, 4, 64);
}

static void qp_teardown(void)
{
	emu_qpx_fini(&qpx);
	ck_assert_ptr_null(qpx.wrb);
}

/* ---- init ------------------------------------------------------------- */

START_TEST(t_init_fills_every_pointer)
{
	/* Even a QP created for no operation at all: the inline wrappers
	 * call through these unchecked. */
	qp_setup(IBV_QPT_RC, 0, 1, 1, 0);
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
	qp_teardown();
	/* fini is idempotent and NULL-safe. */
	emu_qpx_fini(&qpx);
	emu_qpx_fini(NULL);
}
END_TEST

START_TEST(t_init_refuses)
{
	static const uint64_t bad[] = {
		IBV_QP_EX_WITH_TSO, IBV_QP_EX_WITH_FLUSH,
		IBV_QP_EX_WITH_ATOMIC_WRITE, 1ull << 13, 1ull << 63,
	};
	size_t i;

	ck_assert_int_eq(emu_qpx_init(NULL, 0, 1, 1, 0), EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&qpx, 0, sizeof(qpx));
		qpx.wrb = (struct emu_wr_builder *)&qpx;	/* poison */
		ck_assert_int_eq(emu_qpx_init(&qpx, OPS_ALL | bad[i], 4, 1, 0),
				 EOPNOTSUPP);
		ck_assert_ptr_null(qpx.wrb);
		ck_assert_ptr_null(q->wr_start);
	}
}
END_TEST

START_TEST(t_init_enomem)
{
	int k;

	/* Each of the builder's allocations failing in turn; ASan/LSan
	 * would see anything the failure path forgot to free. */
	for (k = 1; k <= 4; k++) {
		memset(&qpx, 0, sizeof(qpx));
		emu_test_fail_calloc(k);
		ck_assert_int_eq(emu_qpx_init(&qpx, OPS_ALL, 8, 2, 16),
				 ENOMEM);
		ck_assert_ptr_null(qpx.wrb);
		ck_assert_ptr_null(q->wr_start);
	}
	/* Four allocations in all: the fifth would be past init. */
	memset(&qpx, 0, sizeof(qpx));
	emu_test_fail_calloc(5);
	ck_assert_int_eq(emu_qpx_init(&qpx, OPS_ALL, 8, 2, 16), 0);
	ck_assert_int_eq(emu_test_alloc_armed(), 1);
	emu_test_fail_calloc(0);
	emu_qpx_fini(&qpx);
	/* A zero-sized send queue still initialises. */
	memset(&qpx, 0, sizeof(qpx));
	ck_assert_int_eq(emu_qpx_init(&qpx, OPS_ALL, 0, 0, 0), 0);
	emu_qpx_fini(&qpx);
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
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(nposts, 1);
	ck_assert_ptr_eq(post_qp, &q->qp_base);
	ck_assert_int_eq(ncap, 2);
	ck_assert_uint_eq(cap[1].wr.send_flags, IBV_SEND_SIGNALED |
			  IBV_SEND_SOLICITED | IBV_SEND_FENCE);
	ck_assert_int_eq(cap[1].wr.num_sge, 0);
	ck_assert_ptr_nonnull(cap[0].wr.next);
	ck_assert_ptr_null(cap[1].wr.next);
	ck_assert_uint_eq(cap[0].wr.wr_id, 0x1122334455667788ull);
	ck_assert_int_eq(cap[0].wr.opcode, IBV_WR_SEND);
	ck_assert_uint_eq(cap[0].wr.send_flags, IBV_SEND_SIGNALED |
			  IBV_SEND_SOLICITED | IBV_SEND_FENCE);
	ck_assert_int_eq(cap[0].wr.num_sge, 1);
	ck_assert_uint_eq(cap[0].sge[0].lkey, 0xabc);
	ck_assert_uint_eq(cap[0].sge[0].addr, 0x1000);
	ck_assert_uint_eq(cap[0].sge[0].length, 100);
}
END_TEST

START_TEST(t_every_opcode_chained)
{
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

	ck_assert_int_eq(nposts, 1);
	ck_assert_int_eq(ncap, 8);
	ck_assert_int_eq(cap[0].wr.opcode, IBV_WR_SEND_WITH_IMM);
	ck_assert_uint_eq(cap[0].wr.imm_data, htonl(0xdeadbeef));
	ck_assert_uint_eq(cap[0].wr.send_flags, IBV_SEND_SIGNALED);
	ck_assert_int_eq(cap[1].wr.opcode, IBV_WR_SEND_WITH_INV);
	ck_assert_uint_eq(cap[1].wr.invalidate_rkey, 0x5555);
	ck_assert_int_eq(cap[2].wr.opcode, IBV_WR_RDMA_WRITE);
	ck_assert_uint_eq(cap[2].wr.wr.rdma.rkey, 0x77);
	ck_assert_uint_eq(cap[2].wr.wr.rdma.remote_addr, 0xfeed0000);
	ck_assert_uint_eq(cap[2].wr.send_flags, 0);
	ck_assert_int_eq(cap[3].wr.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	ck_assert_uint_eq(cap[3].wr.wr.rdma.rkey, 0x78);
	ck_assert_uint_eq(cap[3].wr.wr.rdma.remote_addr, 0xfeed1000);
	ck_assert_uint_eq(cap[3].wr.imm_data, htonl(42));
	ck_assert_int_eq(cap[4].wr.opcode, IBV_WR_RDMA_READ);
	ck_assert_uint_eq(cap[4].wr.wr.rdma.rkey, 0x79);
	ck_assert_uint_eq(cap[4].wr.wr.rdma.remote_addr, 0xfeed2000);
	ck_assert_uint_eq(cap[4].sge[0].length, 32);
	ck_assert_int_eq(cap[5].wr.opcode, IBV_WR_ATOMIC_CMP_AND_SWP);
	ck_assert_uint_eq(cap[5].wr.wr.atomic.rkey, 0x7a);
	ck_assert_uint_eq(cap[5].wr.wr.atomic.remote_addr, 0xfeed3000);
	ck_assert_uint_eq(cap[5].wr.wr.atomic.compare_add, 111);
	ck_assert_uint_eq(cap[5].wr.wr.atomic.swap, 222);
	ck_assert_int_eq(cap[6].wr.opcode, IBV_WR_ATOMIC_FETCH_AND_ADD);
	ck_assert_uint_eq(cap[6].wr.wr.atomic.rkey, 0x7b);
	ck_assert_uint_eq(cap[6].wr.wr.atomic.remote_addr, 0xfeed4000);
	ck_assert_uint_eq(cap[6].wr.wr.atomic.compare_add, 333);
	ck_assert_uint_eq(cap[6].wr.wr.atomic.swap, 0);
	/* A send with no data setter: a zero-length message. */
	ck_assert_int_eq(cap[7].wr.opcode, IBV_WR_SEND);
	ck_assert_int_eq(cap[7].wr.num_sge, 0);
	for (int i = 0; i < 8; i++) {
		ck_assert_uint_eq(cap[i].wr.wr_id, (uint64_t)i + 1);
		if (i < 7)
			ck_assert_uint_eq(cap[i].sge[0].addr,
					  0x100u * (unsigned int)(i + 1));
	}
}
END_TEST

/* The memory-window builders carry their arguments into the WR; they
 * exist only for QPs created with them. */
START_TEST(t_mw_builders)
{
	struct ibv_mw_bind_info info = {
		.mr = (struct ibv_mr *)&ctx, .addr = 0x1000, .length = 64,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_mw mw = { .context = &ctx, .type = IBV_MW_TYPE_2 };

	emu_qpx_fini(&qpx);
	qp_setup(IBV_QPT_RC, OPS_ALL | IBV_QP_EX_WITH_BIND_MW |
		 IBV_QP_EX_WITH_LOCAL_INV, 4, 1, 0);
	ibv_wr_start(q);
	q->wr_id = 1;
	ibv_wr_bind_mw(q, &mw, 0x1234, &info);
	q->wr_id = 2;
	ibv_wr_local_inv(q, 0x1234);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(ncap, 2);
	ck_assert_int_eq(cap[0].wr.opcode, IBV_WR_BIND_MW);
	ck_assert_ptr_eq(cap[0].wr.bind_mw.mw, &mw);
	ck_assert_uint_eq(cap[0].wr.bind_mw.rkey, 0x1234);
	ck_assert_uint_eq(cap[0].wr.bind_mw.bind_info.addr, 0x1000);
	ck_assert_uint_eq(cap[0].wr.bind_mw.bind_info.length, 64);
	ck_assert_int_eq(cap[1].wr.opcode, IBV_WR_LOCAL_INV);
	ck_assert_uint_eq(cap[1].wr.invalidate_rkey, 0x1234);
	/* No window or no bind information: nothing is posted. */
	ibv_wr_start(q);
	ibv_wr_bind_mw(q, NULL, 1, &info);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ibv_wr_start(q);
	ibv_wr_bind_mw(q, &mw, 1, NULL);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ck_assert_int_eq(nposts, 1);
}
END_TEST

START_TEST(t_sge_list)
{
	struct ibv_sge list[4] = {
		{ .addr = 0x10, .length = 10, .lkey = 1 },
		{ .addr = 0x20, .length = 0, .lkey = 0xbad },
		{ .addr = 0x30, .length = 30, .lkey = 3 },
		{ .addr = 0x40, .length = 40, .lkey = 4 },
	};

	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 4, list);
	/* The list was copied: the caller may reuse it at once. */
	memset(list, 0xff, sizeof(list));
	ibv_wr_rdma_write(q, 9, 0x9000);
	ibv_wr_set_sge(q, 5, 0x50, 0);	/* zero length: dropped */
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(ncap, 2);
	ck_assert_int_eq(cap[0].wr.num_sge, 3);
	ck_assert_uint_eq(cap[0].sge[0].addr, 0x10);
	ck_assert_uint_eq(cap[0].sge[1].addr, 0x30);
	ck_assert_uint_eq(cap[0].sge[1].lkey, 3);
	ck_assert_uint_eq(cap[0].sge[2].length, 40);
	ck_assert_int_eq(cap[1].wr.num_sge, 0);

	/* More SGEs than the QP takes: nothing posted. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 5, list);
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	ck_assert_int_eq(nposts, 1);
	/* A later data setter replaces the earlier one. */
	list[0].length = 1;
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 4, list);
	ibv_wr_set_sge(q, 6, 0x60, 6);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(cap[0].wr.num_sge, 1);
	ck_assert_uint_eq(cap[0].sge[0].lkey, 6);
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
	ck_assert_int_eq(ncap, 3);
	ck_assert_uint_eq(cap[0].wr.send_flags,
			  IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	ck_assert_uint_eq(cap[0].data_len, 7);
	ck_assert_mem_eq(cap[0].data, "hello, ", 7);
	ck_assert_uint_eq(cap[1].data_len, 12);
	ck_assert_mem_eq(cap[1].data, "hello, world", 12);
	ck_assert_uint_eq(cap[1].wr.wr.rdma.remote_addr, 0x2000);
	ck_assert_uint_eq(cap[2].wr.send_flags,
			  IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	ck_assert_int_eq(cap[2].wr.num_sge, 0);

	/* Exactly max_inline fits, one more byte does not. */
	memset(big, 'z', sizeof(big));
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, big, 64);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_uint_eq(cap[0].data_len, 64);
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
	ck_assert_int_eq(nposts, 2);

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
	ck_assert_uint_eq(cap[0].wr.send_flags & IBV_SEND_INLINE, 0);
	ck_assert_uint_eq(cap[0].sge[0].addr, 0x4000);
	ck_assert_int_eq(nposts, 3);
}
END_TEST

/* Each WR's inline copy is its own: a batch of inline sends keeps every
 * payload. */
START_TEST(t_inline_per_wr)
{
	char buf[8];
	int i;

	ibv_wr_start(q);
	for (i = 0; i < 16; i++) {
		memset(buf, 'a' + i, sizeof(buf));
		ibv_wr_send(q);
		ibv_wr_set_inline_data(q, buf, sizeof(buf));
	}
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(ncap, 16);
	for (i = 0; i < 16; i++) {
		memset(buf, 'a' + i, sizeof(buf));
		ck_assert_mem_eq(cap[i].data, buf, sizeof(buf));
	}
}
END_TEST

START_TEST(t_ud_addr)
{
	struct ibv_ah *ah = (struct ibv_ah *)&ctx;	/* never read */

	qp_setup(IBV_QPT_UD, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM,
		 4, 1, 32);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_ud_addr(q, ah, 0xabcdef, 0x11111111);
	ibv_wr_set_sge(q, 1, 0x100, 10);
	ibv_wr_send_imm(q, htonl(7));
	ibv_wr_set_ud_addr(q, ah, 2, 0x80010000);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(ncap, 2);
	ck_assert_ptr_eq(cap[0].wr.wr.ud.ah, ah);
	ck_assert_uint_eq(cap[0].wr.wr.ud.remote_qpn, 0xabcdef);
	ck_assert_uint_eq(cap[0].wr.wr.ud.remote_qkey, 0x11111111);
	ck_assert_uint_eq(cap[0].sge[0].length, 10);
	ck_assert_uint_eq(cap[1].wr.wr.ud.remote_qpn, 2);
	ck_assert_uint_eq(cap[1].wr.imm_data, htonl(7));

	/* A UD send with no destination is refused as a whole. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_ud_addr(q, ah, 3, 3);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ck_assert_int_eq(nposts, 1);
	/* UD QPs were made for sends only. */
	ibv_wr_start(q);
	ibv_wr_rdma_write(q, 1, 2);
	ck_assert_int_eq(ibv_wr_complete(q), EOPNOTSUPP);
	qp_teardown();
}
END_TEST

START_TEST(t_xrc_srqn)
{
	qp_setup(IBV_QPT_XRC_SEND, OPS_ALL, 4, 1, 0);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_xrc_srqn(q, 0x4242);
	ibv_wr_rdma_read(q, 5, 0x5000);
	ibv_wr_set_xrc_srqn(q, 0x4343);
	ibv_wr_set_sge(q, 1, 0x10, 8);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(ncap, 2);
	ck_assert_uint_eq(cap[0].wr.qp_type.xrc.remote_srqn, 0x4242);
	ck_assert_uint_eq(cap[1].wr.qp_type.xrc.remote_srqn, 0x4343);
	ck_assert_uint_eq(cap[1].wr.wr.rdma.remote_addr, 0x5000);
	qp_teardown();
}
END_TEST

/* ---- the critical section --------------------------------------------- */

START_TEST(t_max_wr)
{
	int i;

	qp_setup(IBV_QPT_RC, OPS_ALL, 4, 1, 0);
	ibv_wr_start(q);
	for (i = 0; i < 4; i++)
		ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(ncap, 4);

	/* A fifth: nothing at all is posted. */
	ibv_wr_start(q);
	for (i = 0; i < 5; i++) {
		ibv_wr_send(q);
		/* lands nowhere for the fifth, never on the fourth */
		ibv_wr_set_sge(q, (uint32_t)i, 0x10, 1);
	}
	ck_assert_int_eq(ibv_wr_complete(q), ENOMEM);
	ck_assert_int_eq(nposts, 1);

	/* The next section starts clean. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(nposts, 2);
	ck_assert_int_eq(ncap, 1);
	qp_teardown();
}
END_TEST

START_TEST(t_abort)
{
	ibv_wr_start(q);
	q->wr_id = 1;
	ibv_wr_send(q);
	ibv_wr_rdma_write(q, 1, 2);
	ibv_wr_abort(q);
	ck_assert_int_eq(nposts, 0);

	/* An empty section posts nothing and succeeds. */
	ibv_wr_start(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(nposts, 0);

	/* Nothing of the aborted batch leaks into the next. */
	ibv_wr_start(q);
	q->wr_id = 2;
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(nposts, 1);
	ck_assert_int_eq(ncap, 1);
	ck_assert_uint_eq(cap[0].wr.wr_id, 2);

	/* An abort also clears an error. */
	ibv_wr_start(q);
	ibv_wr_bind_mw(q, NULL, 0, NULL);
	ibv_wr_abort(q);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
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
	ck_assert_int_eq(nposts, 0);

	/* Operations outside the QP's send_ops_flags. */
	emu_qpx_fini(&qpx);
	qp_setup(IBV_QPT_RC, IBV_QP_EX_WITH_SEND, 4, 1, 0);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_atomic_cmp_swp(q, 1, 2, 3, 4);
	ck_assert_int_eq(ibv_wr_complete(q), EOPNOTSUPP);
	ibv_wr_start(q);
	ibv_wr_send_imm(q, 0);
	ck_assert_int_eq(ibv_wr_complete(q), EOPNOTSUPP);
	ck_assert_int_eq(nposts, 0);
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
	ck_assert_int_eq(nposts, 0);

	/* post_send's answer is wr_complete's. */
	post_ret = EAGAIN;
	ibv_wr_start(q);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), EAGAIN);
	ck_assert_int_eq(nposts, 1);
	post_ret = 0;

	/* Outside a section: complete refuses, builders and abort do
	 * nothing. */
	ck_assert_int_eq(ibv_wr_complete(q), EINVAL);
	ibv_wr_send(q);
	ibv_wr_set_sge(q, 1, 2, 3);
	ibv_wr_bind_mw(q, NULL, 0, NULL);
	ibv_wr_abort(q);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ck_assert_int_eq(ibv_wr_complete(q), 0);
	ck_assert_int_eq(ncap, 1);
	ck_assert_int_eq(nposts, 2);
}
END_TEST

/* Two threads building at once: start..complete is a critical section, so
 * every post is one thread's whole batch. */
static atomic_int mixed;

static int thread_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			    struct ibv_send_wr **bad)
{
	uint64_t tag = wr->wr_id >> 32;
	int n = 0;

	for (; wr; wr = wr->next, n++)
		if (wr->wr_id >> 32 != tag)
			atomic_fetch_add(&mixed, 1);
	if (n != 3)
		atomic_fetch_add(&mixed, 1);
	return 0;
}

static void *builder_thread(void *arg)
{
	uint64_t tag = (uint64_t)(uintptr_t)arg << 32;
	int i, k;

	for (i = 0; i < 2000; i++) {
		ibv_wr_start(q);
		for (k = 0; k < 3; k++) {
			q->wr_id = tag | (uint64_t)k;
			ibv_wr_send(q);
		}
		if (ibv_wr_complete(q))
			atomic_fetch_add(&mixed, 1);
	}
	return NULL;
}

START_TEST(t_threads)
{
	pthread_t th[2];
	uintptr_t i;

	ctx.ops.post_send = thread_post_send;
	atomic_store(&mixed, 0);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, builder_thread,
						(void *)(i + 1)), 0);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_eq(atomic_load(&mixed), 0);
}
END_TEST

static Suite *qp_ex_suite(void)
{
	Suite *s = suite_create("qp_ex");
	TCase *ti = tcase_create("init");
	TCase *tb = tcase_create("builders");
	TCase *tr = tcase_create("other types");

	tcase_add_test(ti, t_init_fills_every_pointer);
	tcase_add_test(ti, t_init_refuses);
	tcase_add_test(ti, t_init_enomem);
	suite_add_tcase(s, ti);

	tcase_add_checked_fixture(tb, rc_setup, qp_teardown);
	tcase_add_test(tb, t_send_sge);
	tcase_add_test(tb, t_every_opcode_chained);
	tcase_add_test(tb, t_sge_list);
	tcase_add_test(tb, t_inline);
	tcase_add_test(tb, t_inline_per_wr);
	tcase_add_test(tb, t_abort);
	tcase_add_test(tb, t_unsupported);
	tcase_add_test(tb, t_mw_builders);
	tcase_add_test(tb, t_errors);
	tcase_add_test(tb, t_threads);
	suite_add_tcase(s, tb);

	tcase_add_test(tr, t_ud_addr);
	tcase_add_test(tr, t_xrc_srqn);
	tcase_add_test(tr, t_max_wr);
	suite_add_tcase(s, tr);
	return s;
}

int main(void)
{
	return emu_test_run(qp_ex_suite());
}
