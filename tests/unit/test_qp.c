/* Unit tests for queue pairs through the public API only: create, modify,
 * query, destroy, posting rules, flush, and RC/UC/UD data on one device. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <check.h>
#include <infiniband/verbs.h>
#include <emuverbs/fault.h>
#include <emuverbs/port.h>
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

extern char **environ;


#define ALL_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define BUF_LEN (256 * 1024)

/* A QP with its own CQ, and a registered buffer. */
struct side {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	uint8_t *buf;
	struct ibv_mr *mr;
};

struct fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	struct side a, b;
};

static struct ibv_qp *make_qp(struct fx *f, struct ibv_cq *cq,
			      enum ibv_qp_type type, uint32_t wr)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = wr,
			.max_recv_wr = wr,
			.max_send_sge = 4,
			.max_recv_sge = 4,
			.max_inline_data = 64,
		},
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(f->pd, &ia);

	ck_assert_ptr_nonnull(qp);
	return qp;
}

static void side_init(struct fx *f, struct side *s, enum ibv_qp_type type,
		      uint32_t wr)
{
	s->cq = ibv_create_cq(f->ctx, 1024, NULL, NULL, 0);
	ck_assert_ptr_nonnull(s->cq);
	s->qp = make_qp(f, s->cq, type, wr);
	s->buf = calloc(1, BUF_LEN);
	ck_assert_ptr_nonnull(s->buf);
	s->mr = ibv_reg_mr(f->pd, s->buf, BUF_LEN, ALL_ACCESS);
	ck_assert_ptr_nonnull(s->mr);
}

static void side_fini(struct side *s)
{
	if (s->qp)
		ck_assert_int_eq(ibv_destroy_qp(s->qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(s->mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(s->cq), 0);
	free(s->buf);
}

/* The PSNs wrap during the tests. */
#define PSN 0xfffff0

/* How the tests bring a QP up, with the retries they choose. */
static struct qp_conn conn(uint8_t timeout, uint8_t retry, uint8_t rnr_retry,
			   enum ibv_mtu mtu)
{
	struct qp_conn c = qp_conn_default;

	c.psn = PSN;
	c.timeout = timeout;
	c.retry_cnt = retry;
	c.rnr_retry = rnr_retry;
	c.mtu = mtu;
	return c;
}

/* RESET -> RTS towards dest_qpn at our own GID. */
static void connect_qp_mtu(struct fx *f, struct ibv_qp *qp, uint32_t dest_qpn,
			   uint8_t timeout, uint8_t retry, uint8_t rnr_retry,
			   enum ibv_mtu mtu)
{
	struct qp_conn c = conn(timeout, retry, rnr_retry, mtu);
	struct qp_peer peer = { .qpn = dest_qpn, .psn = PSN, .gid = f->gid };

	ck_assert_int_eq(qp_connect(qp, &c, &peer), 0);
}

static void connect_qp(struct fx *f, struct ibv_qp *qp, uint32_t dest_qpn,
		       uint8_t timeout, uint8_t retry, uint8_t rnr_retry)
{
	connect_qp_mtu(f, qp, dest_qpn, timeout, retry, rnr_retry,
		       IBV_MTU_1024);
}

static void to_init(struct ibv_qp *qp)
{
	ck_assert_int_eq(qp_to_init(qp, &qp_conn_default), 0);
}

static void ud_ready(struct ibv_qp *qp)
{
	struct qp_conn c = qp_conn_default;

	c.psn = 7;
	ck_assert_int_eq(qp_connect(qp, &c, NULL), 0);
}

static void fx_open(struct fx *f, enum ibv_qp_type type)
{
	memset(f, 0, sizeof(*f));
	f->ctx = open_default();
	f->pd = ibv_alloc_pd(f->ctx);
	ck_assert_ptr_nonnull(f->pd);
	ck_assert_int_eq(ibv_query_gid(f->ctx, 1, 0, &f->gid), 0);
	side_init(f, &f->a, type, 64);
	side_init(f, &f->b, type, 64);
}

/* Two connected QPs (RC or UC) on one device: a <-> b. */
static void fx_pair(struct fx *f, enum ibv_qp_type type)
{
	fx_open(f, type);
	connect_qp(f, f->a.qp, f->b.qp->qp_num, 14, 7, 7);
	connect_qp(f, f->b.qp, f->a.qp->qp_num, 14, 7, 7);
}

static void fx_close(struct fx *f)
{
	side_fini(&f->a);
	side_fini(&f->b);
	ck_assert_int_eq(ibv_dealloc_pd(f->pd), 0);
	ck_assert_int_eq(ibv_close_device(f->ctx), 0);
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed);
}

static void post_recv(struct side *s, uint64_t id, void *addr, uint32_t len)
{
	ck_assert_int_eq(qp_recv(s->qp, id, addr, len, s->mr->lkey), 0);
}

static int post_one(struct side *s, enum ibv_wr_opcode op, uint64_t id,
		    void *addr, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(0xabcd0000u + (uint32_t)id),
	};
	struct ibv_send_wr *bad = NULL;

	if (op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(s->qp, &wr, &bad);
}

/* ---- the QP object ------------------------------------------------------ */

START_TEST(t_create_query_destroy)
{
	struct ibv_qp_init_attr init, qia;
	struct ibv_qp_attr attr;
	struct fx f;
	struct ibv_qp *qp;
	struct ibv_cq *cq;

	fx_open(&f, IBV_QPT_RC);
	cq = f.a.cq;
	memset(&init, 0, sizeof(init));
	init.send_cq = cq;
	init.recv_cq = cq;
	init.cap.max_send_wr = 10;
	init.cap.max_recv_wr = 20;
	init.cap.max_send_sge = 2;
	init.cap.max_recv_sge = 3;
	init.cap.max_inline_data = 100;
	init.qp_type = IBV_QPT_RC;
	init.sq_sig_all = 1;
	init.qp_context = &f;
	qp = ibv_create_qp(f.pd, &init);
	ck_assert_ptr_nonnull(qp);
	ck_assert_uint_ge(qp->qp_num, 2);
	ck_assert_uint_le(qp->qp_num, 0xffffff);
	ck_assert_uint_ne(qp->qp_num, f.a.qp->qp_num);
	ck_assert_int_eq(qp->state, IBV_QPS_RESET);
	ck_assert_int_eq(qp->qp_type, IBV_QPT_RC);
	ck_assert_ptr_eq(qp->context, f.ctx);
	ck_assert_ptr_eq(qp->pd, f.pd);
	ck_assert_ptr_eq(qp->qp_context, &f);

	ck_assert_int_eq(ibv_query_qp(qp, &attr, IBV_QP_STATE | IBV_QP_CAP,
				      &qia), 0);
	ck_assert_int_eq(attr.qp_state, IBV_QPS_RESET);
	ck_assert_uint_eq(qia.cap.max_send_wr, 10);
	ck_assert_uint_eq(qia.cap.max_recv_wr, 20);
	ck_assert_uint_eq(qia.cap.max_recv_sge, 3);
	ck_assert_uint_eq(qia.cap.max_inline_data, 100);
	ck_assert_int_eq(qia.sq_sig_all, 1);
	ck_assert_ptr_eq(qia.send_cq, cq);

	to_init(qp);
	ck_assert_int_eq(ibv_query_qp(qp, &attr, IBV_QP_STATE, &qia), 0);
	ck_assert_int_eq(attr.qp_state, IBV_QPS_INIT);
	ck_assert_int_eq(attr.port_num, 1);
	ck_assert_int_eq(attr.qp_access_flags, ALL_ACCESS);
	/* MW_BIND in a QP's access flags means nothing, and is taken and
	 * kept as rxe keeps it (DAPL's dtest sets it). */
	attr.qp_access_flags = ALL_ACCESS | IBV_ACCESS_MW_BIND;
	ck_assert_int_eq(ibv_modify_qp(qp, &attr, IBV_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(ibv_query_qp(qp, &attr, IBV_QP_ACCESS_FLAGS, &qia), 0);
	ck_assert_int_eq(attr.qp_access_flags,
			 ALL_ACCESS | IBV_ACCESS_MW_BIND);
	/* INIT -> RTS skips RTR: refused, state unchanged. */
	attr.qp_state = IBV_QPS_RTS;
	ck_assert_int_eq(ibv_modify_qp(qp, &attr, IBV_QP_STATE), EINVAL);
	ck_assert_int_eq(ibv_query_qp(qp, &attr, IBV_QP_STATE, &qia), 0);
	ck_assert_int_eq(attr.qp_state, IBV_QPS_INIT);

	/* Objects in use cannot go. */
	ck_assert_int_eq(ibv_destroy_cq(cq), EBUSY);
	ck_assert_int_eq(ibv_dealloc_pd(f.pd), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* Bad creation arguments. */
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(NULL, &init));
	ck_assert_int_eq(errno, EINVAL);
	init.cap.max_send_wr = 1u << 30;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(f.pd, &init));
	ck_assert_int_eq(errno, EINVAL);
	init.cap.max_send_wr = 1;
	init.send_cq = NULL;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(f.pd, &init));
	ck_assert_int_eq(errno, EINVAL);
	fx_close(&f);
}
END_TEST

START_TEST(t_create_qp_ex)
{
	struct ibv_qp_init_attr_ex ie;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	struct fx f;

	fx_open(&f, IBV_QPT_RC);
	memset(&ie, 0, sizeof(ie));
	ie.send_cq = f.a.cq;
	ie.recv_cq = f.a.cq;
	ie.cap.max_send_wr = 8;
	ie.cap.max_recv_wr = 8;
	ie.cap.max_send_sge = 1;
	ie.cap.max_recv_sge = 1;
	ie.qp_type = IBV_QPT_RC;
	ie.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ie.pd = f.pd;
	ie.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	qp = ibv_create_qp_ex(f.ctx, &ie);
	ck_assert_ptr_nonnull(qp);
	qpx = ibv_qp_to_qp_ex(qp);
	ck_assert_ptr_nonnull(qpx);
	ck_assert_ptr_eq(&qpx->qp_base, qp);
	ck_assert_ptr_nonnull(qpx->wr_start);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* Operations the type cannot do are refused. */
	ie.qp_type = IBV_QPT_UD;
	ie.send_ops_flags = IBV_QP_EX_WITH_RDMA_READ;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp_ex(f.ctx, &ie));
	ck_assert_int_ne(errno, 0);
	fx_close(&f);
}
END_TEST

/* ---- posting rules ------------------------------------------------------ */

START_TEST(t_post_errors)
{
	struct ibv_sge sge[8];
	struct ibv_send_wr s[3], *sbad;
	struct ibv_recv_wr r[2], *rbad;
	struct ibv_qp *ud;
	struct fx f;
	int i;

	fx_open(&f, IBV_QPT_RC);
	for (i = 0; i < 8; i++) {
		sge[i].addr = (uintptr_t)f.a.buf + 64 * i;
		sge[i].length = 8;
		sge[i].lkey = f.a.mr->lkey;
	}
	memset(s, 0, sizeof(s));
	memset(r, 0, sizeof(r));
	s[0].opcode = IBV_WR_SEND;
	s[0].sg_list = sge;
	s[0].num_sge = 1;
	s[0].wr_id = 1;
	r[0].sg_list = sge;
	r[0].num_sge = 1;

	/* RESET: nothing may be posted (mlx5's errnos). */
	sbad = NULL;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &s[0], &sbad), ENOMEM);
	ck_assert_ptr_eq(sbad, &s[0]);
	rbad = NULL;
	ck_assert_int_eq(ibv_post_recv(f.a.qp, &r[0], &rbad), EINVAL);
	ck_assert_ptr_eq(rbad, &r[0]);

	/* INIT: receives yes, sends no. */
	to_init(f.a.qp);
	ck_assert_int_eq(ibv_post_recv(f.a.qp, &r[0], &rbad), 0);
	sbad = NULL;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &s[0], &sbad), ENOMEM);
	ck_assert_ptr_eq(sbad, &s[0]);

	/* A receive with more SGEs than the QP has: that WR is bad_wr, the
	 * one before it is posted. */
	r[0].next = &r[1];
	r[1] = r[0];
	r[1].next = NULL;
	r[1].num_sge = 5;
	rbad = NULL;
	ck_assert_int_eq(ibv_post_recv(f.a.qp, &r[0], &rbad), EINVAL);
	ck_assert_ptr_eq(rbad, &r[1]);

	/* The receive queue holds 64: 2 are in, 62 more fit, then ENOMEM. */
	r[0].next = NULL;
	for (i = 0; i < 62; i++)
		ck_assert_int_eq(ibv_post_recv(f.a.qp, &r[0], &rbad), 0);
	rbad = NULL;
	errno = 0;
	ck_assert_int_eq(ibv_post_recv(f.a.qp, &r[0], &rbad), ENOMEM);
	ck_assert_int_eq(errno, ENOMEM);	/* errno follows the result */
	ck_assert_ptr_eq(rbad, &r[0]);

	connect_qp(&f, f.a.qp, 0xabcdef, 14, 7, 7);
	/* Chains stop at the first bad WR. */
	s[0].next = &s[1];
	s[1] = s[0];
	s[1].wr_id = 2;
	s[1].num_sge = 5;
	s[1].next = &s[2];
	s[2] = s[0];
	s[2].wr_id = 3;
	s[2].next = NULL;
	sbad = NULL;
	errno = ENOMEM;		/* stale: the failure must replace it */
	ck_assert_int_eq(ibv_post_send(f.a.qp, &s[0], &sbad), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_eq(sbad, &s[1]);
	/* Inline data past max_inline_data (64). */
	s[1].num_sge = 1;
	s[1].send_flags = IBV_SEND_INLINE;
	sge[7].length = 65;
	s[1].sg_list = &sge[7];
	sbad = NULL;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &s[1], &sbad), EINVAL);
	ck_assert_ptr_eq(sbad, &s[1]);
	/* A bind without a window. (An atomic's SGEs need not be 8 bytes:
	 * test_qp_sem's t_atomic_sge_not_8_bytes.) */
	s[1].send_flags = 0;
	s[1].opcode = IBV_WR_BIND_MW;
	sbad = NULL;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &s[1], &sbad), EINVAL);

	/* The peer does not exist, so nothing is acknowledged: the send
	 * queue (64) fills up. */
	s[2].next = NULL;
	for (i = 0; i < 63; i++)
		ck_assert_int_eq(ibv_post_send(f.a.qp, &s[2], &sbad), 0);
	sbad = NULL;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &s[2], &sbad), ENOMEM);
	ck_assert_ptr_eq(sbad, &s[2]);

	/* A UD send needs an AH. (An RDMA WRITE on UD is taken and fails
	 * in its completion: test_qp_sem's t_ud_rdma_atomic_loc_qp_op_err.) */
	ud = make_qp(&f, f.b.cq, IBV_QPT_UD, 4);
	ud_ready(ud);
	s[2].opcode = IBV_WR_SEND;
	s[2].wr.ud.ah = NULL;
	ck_assert_int_eq(ibv_post_send(ud, &s[2], &sbad), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(ud), 0);
	fx_close(&f);
}
END_TEST

START_TEST(t_flush_on_err)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_send_wr s = { .opcode = IBV_WR_SEND, .wr_id = 99 };
	struct ibv_send_wr *sbad;
	struct ibv_wc wc;
	struct fx f;
	int i;

	fx_pair(&f, IBV_QPT_RC);
	for (i = 0; i < 5; i++)
		post_recv(&f.a, 10 + i, f.a.buf, 16);
	ck_assert_int_eq(ibv_modify_qp(f.a.qp, &a, IBV_QP_STATE), 0);
	for (i = 0; i < 5; i++) {
		wait_wc(f.a.cq, &wc, 2000);
		ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(wc.wr_id, 10 + i);
		ck_assert_uint_eq(wc.qp_num, f.a.qp->qp_num);
	}
	/* In ERR new requests are taken and come back flushed, signaled or
	 * not. */
	ck_assert_int_eq(ibv_post_send(f.a.qp, &s, &sbad), 0);
	post_recv(&f.a, 20, f.a.buf, 16);
	wait_wc(f.a.cq, &wc, 2000);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	wait_wc(f.a.cq, &wc, 2000);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	expect_no_wc(f.a.cq, 20);
	/* Back to RESET, then usable again. */
	a.qp_state = IBV_QPS_RESET;
	ck_assert_int_eq(ibv_modify_qp(f.a.qp, &a, IBV_QP_STATE), 0);
	fx_close(&f);
}
END_TEST

/* As mlx5_destroy_qp: a destroyed QP's posted WQEs are discarded without
 * completions and its unpolled completions leave the CQ it shared, while
 * another QP's stay, in order (libfabric's rxm frees the buffers those
 * wr_ids name as it destroys the QP). */
START_TEST(t_destroy_cleans_cq)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp *other;
	struct ibv_wc wc;
	struct fx f;
	int i;

	fx_pair(&f, IBV_QPT_RC);
	other = make_qp(&f, f.a.cq, IBV_QPT_RC, 16);
	to_init(other);
	for (i = 0; i < 3; i++) {
		post_recv(&f.a, 10 + i, f.a.buf, 16);
		ck_assert_int_eq(ibv_post_recv(other, &(struct ibv_recv_wr){
			.wr_id = 50 + i }, &(struct ibv_recv_wr *){ NULL }), 0);
	}
	/* Three flushed completions of each QP wait in the CQ, and three
	 * more receives of f.a's are still posted. */
	ck_assert_int_eq(ibv_modify_qp(f.a.qp, &a, IBV_QP_STATE), 0);
	ck_assert_int_eq(ibv_modify_qp(other, &a, IBV_QP_STATE), 0);
	for (i = 0; i < 3; i++)
		post_recv(&f.a, 20 + i, f.a.buf, 16);
	ck_assert_int_eq(ibv_destroy_qp(f.a.qp), 0);
	f.a.qp = NULL;
	for (i = 0; i < 3; i++) {
		wait_wc(f.a.cq, &wc, 2000);
		ck_assert_uint_eq(wc.wr_id, 50 + i);
		ck_assert_uint_eq(wc.qp_num, other->qp_num);
	}
	expect_no_wc(f.a.cq, 50);
	ck_assert_int_eq(ibv_destroy_qp(other), 0);
	fx_close(&f);
}
END_TEST

/* ---- RC data ------------------------------------------------------------ */

START_TEST(t_rc_send)
{
	static const uint32_t sizes[] = { 0, 1, 100, 1024, 1025, 5000,
					  65536, 200000 };
	struct ibv_wc wc;
	struct fx f;
	unsigned int i;

	fx_pair(&f, IBV_QPT_RC);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i];

		fill(f.a.buf, len, i);
		memset(f.b.buf, 0xee, len + 16);
		post_recv(&f.b, 100 + i, f.b.buf, BUF_LEN);
		ck_assert_int_eq(post_one(&f.a, i & 1 ? IBV_WR_SEND_WITH_IMM :
						IBV_WR_SEND, i, f.a.buf, len,
					  0, 0), 0);
		wait_wc(f.a.cq, &wc, 5000);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
		ck_assert_uint_eq(wc.wr_id, i);
		wait_wc(f.b.cq, &wc, 5000);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
		ck_assert_uint_eq(wc.wr_id, 100 + i);
		ck_assert_uint_eq(wc.byte_len, len);
		ck_assert_uint_eq(wc.qp_num, f.b.qp->qp_num);
		ck_assert_uint_eq(wc.src_qp, f.a.qp->qp_num);
		if (i & 1) {
			ck_assert(wc.wc_flags & IBV_WC_WITH_IMM);
			ck_assert_uint_eq(be32toh(wc.imm_data),
					  0xabcd0000u + i);
		} else {
			ck_assert(!(wc.wc_flags & IBV_WC_WITH_IMM));
		}
		ck_assert(!memcmp(f.a.buf, f.b.buf, len));
		ck_assert_uint_eq(f.b.buf[len], 0xee);
	}
	fx_close(&f);
}
END_TEST

START_TEST(t_rc_send_inline_multi_sge)
{
	struct ibv_sge sge[3];
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	struct fx f;
	int i;

	fx_pair(&f, IBV_QPT_RC);
	fill(f.a.buf, 4096, 3);
	for (i = 0; i < 3; i++) {
		sge[i].addr = (uintptr_t)f.a.buf + 1000 * i;
		sge[i].length = 20;
		sge[i].lkey = 0xdeadbeef;	/* inline: keys unused */
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	wr.sg_list = sge;
	wr.num_sge = 3;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	post_recv(&f.b, 1, f.b.buf, 4096);
	ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
	/* Inline: the buffer may change as soon as the post returns. */
	memset(f.a.buf, 0, 4096);
	wait_wc(f.b.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 60);
	fill(f.a.buf, 4096, 3);
	for (i = 0; i < 3; i++)
		ck_assert(!memcmp(f.b.buf + 20 * i, f.a.buf + 1000 * i, 20));
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);

	/* Unsignaled requests complete silently; the signaled one after
	 * them reports. */
	for (i = 0; i < 3; i++)
		sge[i].lkey = f.a.mr->lkey;
	wr.send_flags = 0;
	for (i = 0; i < 4; i++) {
		post_recv(&f.b, 10 + i, f.b.buf, 4096);
		wr.wr_id = 10 + i;
		wr.send_flags = i == 3 ? IBV_SEND_SIGNALED : 0;
		ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
	}
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_uint_eq(wc.wr_id, 13);
	for (i = 0; i < 4; i++) {
		wait_wc(f.b.cq, &wc, 5000);
		ck_assert_uint_eq(wc.wr_id, 10 + i);
	}
	fx_close(&f);
}
END_TEST

START_TEST(t_rc_write_read)
{
	struct ibv_wc wc;
	struct fx f;
	uint64_t rb;

	fx_pair(&f, IBV_QPT_RC);
	rb = (uintptr_t)f.b.buf;
	/* WRITE of 100000 bytes at an offset. */
	fill(f.a.buf, 100000, 9);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_RDMA_WRITE, 1, f.a.buf, 100000,
				  rb + 10, f.b.mr->rkey), 0);
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_WRITE);
	ck_assert(!memcmp(f.b.buf + 10, f.a.buf, 100000));
	ck_assert_uint_eq(f.b.buf[0], 0);
	ck_assert_uint_eq(f.b.buf[100010], 0);
	/* No receive completion for a plain WRITE. */
	expect_no_wc(f.b.cq, 20);

	/* WRITE with immediate consumes a receive. */
	post_recv(&f.b, 77, f.b.buf + 200000, 16);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_RDMA_WRITE_WITH_IMM, 2,
				  f.a.buf, 3000, rb, f.b.mr->rkey), 0);
	wait_wc(f.b.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(wc.wr_id, 77);
	ck_assert(wc.wc_flags & IBV_WC_WITH_IMM);
	ck_assert_uint_eq(be32toh(wc.imm_data), 0xabcd0002u);
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);

	/* READ back 150000 bytes into a's buffer. */
	fill(f.b.buf, 150000, 33);
	memset(f.a.buf, 0, BUF_LEN);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_RDMA_READ, 3, f.a.buf + 5,
				  150000, rb, f.b.mr->rkey), 0);
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_READ);
	ck_assert_uint_eq(wc.byte_len, 150000);
	ck_assert(!memcmp(f.a.buf + 5, f.b.buf, 150000));
	ck_assert_uint_eq(f.a.buf[4], 0);
	ck_assert_uint_eq(f.a.buf[150005], 0);
	fx_close(&f);
}
END_TEST

START_TEST(t_rc_atomics)
{
	uint64_t *target, *res;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct fx f;
	int i;

	fx_pair(&f, IBV_QPT_RC);
	target = (uint64_t *)(void *)(f.b.buf + 64);
	res = (uint64_t *)(void *)(f.a.buf + 128);
	*target = 1000;
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)res;
	sge.length = 8;
	sge.lkey = f.a.mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = f.b.mr->rkey;
	for (i = 0; i < 10; i++) {
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.compare_add = 5;
		ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
		wait_wc(f.a.cq, &wc, 5000);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_int_eq(wc.opcode, IBV_WC_FETCH_ADD);
		ck_assert_uint_eq(*res, 1000 + 5 * (uint64_t)i);
	}
	ck_assert_uint_eq(*target, 1050);
	/* Compare-and-swap: a miss leaves it, a hit swaps. */
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 7;
	wr.wr.atomic.swap = 0x1122334455667788ull;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_COMP_SWAP);
	ck_assert_uint_eq(*res, 1050);
	ck_assert_uint_eq(*target, 1050);
	wr.wr.atomic.compare_add = 1050;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(*res, 1050);
	ck_assert_uint_eq(*target, 0x1122334455667788ull);
	fx_close(&f);
}
END_TEST

/* The ibv_wr_* interface posts through the same rings. */
START_TEST(t_rc_wr_api)
{
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc;
	struct fx f;

	fx_pair(&f, IBV_QPT_RC);
	qpx = ibv_qp_to_qp_ex(f.a.qp);
	ck_assert_ptr_nonnull(qpx);
	fill(f.a.buf, 3000, 2);
	post_recv(&f.b, 8, f.b.buf, 4096);
	ibv_wr_start(qpx);
	qpx->wr_id = 41;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, f.a.mr->lkey, (uintptr_t)f.a.buf, 3000);
	qpx->wr_id = 42;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, f.b.mr->rkey, (uintptr_t)f.b.buf + 8192);
	ibv_wr_set_sge(qpx, f.a.mr->lkey, (uintptr_t)f.a.buf, 3000);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 41);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 42);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_uint_eq(wc.byte_len, 3000);
	ck_assert(!memcmp(f.b.buf, f.a.buf, 3000));
	ck_assert(!memcmp(f.b.buf + 8192, f.a.buf, 3000));
	fx_close(&f);
}
END_TEST

/* A request to a QP that does not answer: retransmitted retry_cnt times,
 * then IBV_WC_RETRY_EXC_ERR, and the rest flushed. */
START_TEST(t_rc_retry_exceeded)
{
	struct ibv_wc wc;
	struct fx f;
	double t0;

	fx_open(&f, IBV_QPT_RC);
	/* timeout 12: 4.096 us x 2^12 = 16.8 ms, 2 retries. */
	connect_qp(&f, f.a.qp, 0xabcdef, 12, 2, 0);
	t0 = now_ms();
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 1, f.a.buf, 10, 0, 0), 0);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 2, f.a.buf, 10, 0, 0), 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_RETRY_EXC_ERR);
	ck_assert_uint_eq(wc.wr_id, 1);
	/* (1 + retry_cnt) timeouts of ~17 ms, with slack for a busy box. */
	ck_assert_double_ge(now_ms() - t0, 40);
	ck_assert_double_le(now_ms() - t0, 1500 * emu_test_slack());
	wait_wc(f.a.cq, &wc, 1000);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(wc.wr_id, 2);
	fx_close(&f);
}
END_TEST

/* No receive posted: RNR NAKs; rnr_retry 1 gives up, 7 waits forever. */
START_TEST(t_rc_rnr)
{
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, IBV_QPT_RC);
	connect_qp(&f, f.a.qp, f.b.qp->qp_num, 14, 7, 1);
	connect_qp(&f, f.b.qp, f.a.qp->qp_num, 14, 7, 1);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 1, f.a.buf, 10, 0, 0), 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	fx_close(&f);

	fx_open(&f, IBV_QPT_RC);
	connect_qp(&f, f.a.qp, f.b.qp->qp_num, 14, 7, 7);
	connect_qp(&f, f.b.qp, f.a.qp->qp_num, 14, 7, 7);
	fill(f.a.buf, 3000, 1);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 1, f.a.buf, 3000, 0, 0),
			 0);
	expect_no_wc(f.a.cq, 50);
	post_recv(&f.b, 5, f.b.buf, 4096);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 3000);
	ck_assert(!memcmp(f.a.buf, f.b.buf, 3000));
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	fx_close(&f);
}
END_TEST

/* A receive buffer too short: LOC_LEN_ERR there, REM_INV_REQ_ERR at the
 * requester. A bad local key: LOC_PROT_ERR, nothing sent. */
START_TEST(t_rc_length_and_lkey)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct fx f;

	fx_pair(&f, IBV_QPT_RC);
	post_recv(&f.b, 1, f.b.buf, 100);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 2, f.a.buf, 200, 0, 0),
			 0);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_LOC_LEN_ERR);
	ck_assert_uint_eq(wc.wr_id, 1);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);
	ck_assert_uint_eq(wc.wr_id, 2);
	fx_close(&f);

	fx_pair(&f, IBV_QPT_RC);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)f.a.buf;
	sge.length = 10;
	sge.lkey = f.a.mr->lkey ^ 0x5a5a00;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.wr_id = 3;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_LOC_PROT_ERR);
	ck_assert_uint_eq(wc.wr_id, 3);
	fx_close(&f);
}
END_TEST

/* ---- remote access checks against guard pages --------------------------- */

struct guarded {
	uint8_t *map;
	uint8_t *mem;		/* one page between two PROT_NONE pages */
	long pg;
};

static void guarded_alloc(struct guarded *g)
{
	g->pg = sysconf(_SC_PAGESIZE);
	g->map = mmap(NULL, 3 * g->pg, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(g->map, MAP_FAILED);
	g->mem = g->map + g->pg;
	memset(g->mem, 0x5c, g->pg);
	ck_assert_int_eq(mprotect(g->map, g->pg, PROT_NONE), 0);
	ck_assert_int_eq(mprotect(g->mem + g->pg, g->pg, PROT_NONE), 0);
}

static bool untouched(const struct guarded *g)
{
	long i;

	for (i = 0; i < g->pg; i++)
		if (g->mem[i] != 0x5c)
			return false;
	return true;
}

/* One remote operation from a fresh pair against b's guarded MR. */
static void remote_case(enum ibv_wr_opcode op, int access, bool other_pd,
			int64_t off, uint32_t len, bool wrong_key)
{
	struct ibv_pd *pd2 = NULL;
	struct guarded g;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	struct fx f;
	uint32_t rkey;

	guarded_alloc(&g);
	fx_pair(&f, IBV_QPT_RC);
	if (other_pd) {
		pd2 = ibv_alloc_pd(f.ctx);
		ck_assert_ptr_nonnull(pd2);
	}
	mr = ibv_reg_mr(other_pd ? pd2 : f.pd, g.mem, g.pg,
			access | IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	rkey = wrong_key ? mr->rkey + 0x100 : mr->rkey;
	ck_assert_int_eq(post_one(&f.a, op, 1, f.a.buf,
				  len, (uintptr_t)g.mem + off, rkey), 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_REM_ACCESS_ERR);
	ck_assert(untouched(&g));
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	if (pd2)
		ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	fx_close(&f);
	munmap(g.map, 3 * g.pg);
}

START_TEST(t_guard_write_outside)
{
	remote_case(IBV_WR_RDMA_WRITE, ALL_ACCESS, false, -8, 16, false);
	remote_case(IBV_WR_RDMA_WRITE, ALL_ACCESS, false, 4096 - 8, 16, false);
	remote_case(IBV_WR_RDMA_WRITE, ALL_ACCESS, false, 0, 8192, false);
}
END_TEST

START_TEST(t_guard_read_outside)
{
	remote_case(IBV_WR_RDMA_READ, ALL_ACCESS, false, -1, 2, false);
	remote_case(IBV_WR_RDMA_READ, ALL_ACCESS, false, 4096 - 1, 2, false);
}
END_TEST

START_TEST(t_guard_atomic_outside)
{
	remote_case(IBV_WR_ATOMIC_FETCH_AND_ADD, ALL_ACCESS, false, 4096, 8,
		    false);
	remote_case(IBV_WR_ATOMIC_CMP_AND_SWP, ALL_ACCESS, false, -8, 8,
		    false);
}
END_TEST

START_TEST(t_guard_keys_and_rights)
{
	remote_case(IBV_WR_RDMA_WRITE, ALL_ACCESS, false, 0, 16, true);
	remote_case(IBV_WR_RDMA_WRITE, ALL_ACCESS, true, 0, 16, false);
	remote_case(IBV_WR_RDMA_WRITE, IBV_ACCESS_REMOTE_READ, false, 0, 16,
		    false);
	remote_case(IBV_WR_RDMA_READ, IBV_ACCESS_REMOTE_WRITE, false, 0, 16,
		    false);
	remote_case(IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_ACCESS_REMOTE_WRITE,
		    false, 0, 8, false);
}
END_TEST

/* ---- UC and UD ---------------------------------------------------------- */

START_TEST(t_uc)
{
	unsigned long long oob;
	struct ibv_wc wc;
	struct fx f;
	int i;

	fx_pair(&f, IBV_QPT_UC);
	fill(f.a.buf, 5000, 4);
	post_recv(&f.b, 1, f.b.buf, 8192);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 1, f.a.buf, 5000, 0, 0),
			 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 5000);
	ck_assert(!memcmp(f.a.buf, f.b.buf, 5000));

	fill(f.a.buf, 70000, 8);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_RDMA_WRITE, 2, f.a.buf, 70000,
				  (uintptr_t)f.b.buf + 100000, f.b.mr->rkey),
			 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	/* No ACK in UC: poll until the data is there. */
	{
		double end = now_ms() + 3000;

		while (memcmp(f.a.buf, f.b.buf + 100000, 70000) &&
		       now_ms() < end)
			usleep(100);
	}
	ck_assert(!memcmp(f.a.buf, f.b.buf + 100000, 70000));
	/* A message with no receive posted is dropped, the next one
	 * arrives. */
	oob = port_counter(f.ctx, "out_of_buffer");
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 3, f.a.buf, 10, 0, 0), 0);
	wait_wc(f.a.cq, &wc, 3000);
	/* Not a sleep: a slow (sanitized, loaded) receiver may not have
	 * seen it yet, and a receive posted first would take it. */
	for (i = 0; i < 3000 && port_counter(f.ctx, "out_of_buffer") == oob;
	     i++)
		usleep(1000);
	ck_assert_uint_eq(port_counter(f.ctx, "out_of_buffer"), oob + 1);
	post_recv(&f.b, 4, f.b.buf, 8192);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND_WITH_IMM, 5, f.a.buf, 20,
				  0, 0), 0);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 20);
	ck_assert(wc.wc_flags & IBV_WC_WITH_IMM);
	fx_close(&f);
}
END_TEST

/* A port on an IPv6 address: the GRH area is the IPv6 header and the
 * completion says so in sl, as mlx5's does (RoCEv2 = bit 3, IPv6 = 1). */
START_TEST(t_ud_ipv6)
{
	static const uint8_t lo6[16] = { [15] = 1 };
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1 };
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	struct fx f;
	uint8_t *g;

	ck_assert_int_eq(setenv("EMUVERBS_ADDRESS", "::1", 1), 0);
	fx_open(&f, IBV_QPT_UD);
	ck_assert(!memcmp(f.gid.raw, lo6, 16));
	ud_ready(f.a.qp);
	ud_ready(f.b.qp);
	aha.grh.dgid = f.gid;
	aha.grh.hop_limit = 64;
	ah = ibv_create_ah(f.pd, &aha);
	ck_assert_ptr_nonnull(ah);

	fill(f.a.buf, 256, 3);
	post_recv(&f.b, 1, f.b.buf, 40 + 256);
	sge.addr = (uintptr_t)f.a.buf;
	sge.length = 256;
	sge.lkey = f.a.mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = f.b.qp->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 40 + 256);
	ck_assert(wc.wc_flags & IBV_WC_GRH);
	ck_assert_uint_eq(wc.sl, 0x9);
	g = f.b.buf;
	ck_assert_uint_eq(g[0] >> 4, 6);		/* IP version */
	ck_assert_uint_eq(g[6], 17);			/* next header: UDP */
	ck_assert(!memcmp(g + 8, lo6, 16));		/* source */
	ck_assert(!memcmp(g + 24, lo6, 16));		/* destination */
	ck_assert(!memcmp(f.b.buf + 40, f.a.buf, 256));
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	fx_close(&f);
}
END_TEST

START_TEST(t_ud)
{
	struct ibv_ah_attr aha;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	struct fx f;
	uint8_t *g;

	fx_open(&f, IBV_QPT_UD);
	ud_ready(f.a.qp);
	ud_ready(f.b.qp);
	memset(&aha, 0, sizeof(aha));
	aha.is_global = 1;
	aha.grh.dgid = f.gid;
	aha.grh.hop_limit = 64;
	aha.port_num = 1;
	ah = ibv_create_ah(f.pd, &aha);
	ck_assert_ptr_nonnull(ah);

	fill(f.a.buf, 1024, 6);
	post_recv(&f.b, 1, f.b.buf, 40 + 1024);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)f.a.buf;
	sge.length = 1024;
	sge.lkey = f.a.mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0x12345678);
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = f.b.qp->qp_num;
	wr.wr.ud.remote_qkey = 0x80000000;	/* the QP's own Q_Key */
	ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 40 + 1024);
	ck_assert_uint_eq(wc.src_qp, f.a.qp->qp_num);
	ck_assert(wc.wc_flags & IBV_WC_GRH);
	ck_assert(wc.wc_flags & IBV_WC_WITH_IMM);
	ck_assert_uint_eq(be32toh(wc.imm_data), 0x12345678);
	/* As mlx5: RoCEv2 (UDP, bit 3) over IPv4 (2). */
	ck_assert_uint_eq(wc.sl, 0xa);
	/* IPv4: 20 zero bytes, then the IPv4 header. */
	g = f.b.buf;
	ck_assert_uint_eq(g[0], 0);
	ck_assert_uint_eq(g[19], 0);
	ck_assert_uint_eq(g[20], 0x45);
	ck_assert_uint_eq(g[29], 17);
	ck_assert(!memcmp(g + 32, &f.gid.raw[12], 4));	/* source */
	ck_assert(!memcmp(g + 36, &f.gid.raw[12], 4));	/* destination */
	ck_assert(!memcmp(f.b.buf + 40, f.a.buf, 1024));

	/* A wrong Q_Key is dropped. */
	post_recv(&f.b, 2, f.b.buf, 40 + 1024);
	wr.wr.ud.remote_qkey = 0x22222222;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
	wait_wc(f.a.cq, &wc, 3000);
	expect_no_wc(f.b.cq, 50);
	/* Larger than the path MTU: sent as nothing, and no error (test
	 * qp_sem's t_ud_send_over_mtu_dropped). */

	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	fx_close(&f);
}
END_TEST

/*
 * UCX passes grh.flow_label = 0xffffffff. The kernel takes any value in
 * ibv_create_ah and in ibv_modify_qp's address vector and the device keeps
 * the 20 bits a GRH has: both work, traffic flows, and the QP reports the
 * label masked, as mlx5 does.
 */
START_TEST(t_flow_label_any)
{
	struct ibv_qp_init_attr init;
	struct qp_conn c;
	struct ibv_qp_attr a;
	struct ibv_ah_attr aha;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, IBV_QPT_RC);
	to_init(f.a.qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = f.b.qp->qp_num;
	a.rq_psn = 0xfffff0;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = f.gid;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.grh.flow_label = 0xffffffff;
	a.ah_attr.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(f.a.qp, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER), 0);
	ck_assert_int_eq(ibv_query_qp(f.a.qp, &a, IBV_QP_AV, &init), 0);
	ck_assert_uint_eq(a.ah_attr.grh.flow_label, 0xfffff);
	c = conn(14, 7, 7, IBV_MTU_1024);
	ck_assert_int_eq(qp_to_rts(f.a.qp, &c), 0);
	connect_qp(&f, f.b.qp, f.a.qp->qp_num, 14, 7, 7);
	fill(f.a.buf, 100, 3);
	post_recv(&f.b, 1, f.b.buf, BUF_LEN);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 2, f.a.buf, 100, 0, 0),
			 0);
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wait_wc(f.b.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert(!memcmp(f.a.buf, f.b.buf, 100));

	memset(&aha, 0, sizeof(aha));
	aha.is_global = 1;
	aha.grh.dgid = f.gid;
	aha.grh.hop_limit = 64;
	aha.grh.flow_label = 0xffffffff;
	aha.port_num = 1;
	ah = ibv_create_ah(f.pd, &aha);
	ck_assert_ptr_nonnull(ah);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	fx_close(&f);
}
END_TEST

/* The first packet in RTR raises COMM_EST; SQD raises SQ_DRAINED when
 * asked to. Delivered events must be acknowledged before destroy returns;
 * events never read do not hold it up. */
START_TEST(t_async_events)
{
	struct qp_peer peer;
	struct qp_conn c;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	struct ibv_async_event ev;
	struct ibv_wc wc;
	struct fx f;

	/* b stays in RTR. */
	fx_open(&f, IBV_QPT_RC);
	connect_qp(&f, f.a.qp, f.b.qp->qp_num, 14, 7, 7);
	c = conn(14, 7, 7, IBV_MTU_1024);
	peer = (struct qp_peer){ .qpn = f.a.qp->qp_num, .psn = PSN,
				 .gid = f.gid };
	ck_assert_int_eq(qp_to_init(f.b.qp, &c), 0);
	ck_assert_int_eq(qp_to_rtr(f.b.qp, &c, &peer), 0);
	post_recv(&f.b, 1, f.b.buf, 64);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 1, f.a.buf, 10, 0, 0), 0);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_get_async_event(f.ctx, &ev), 0);
	ck_assert_int_eq(ev.event_type, IBV_EVENT_COMM_EST);
	ck_assert_ptr_eq(ev.element.qp, f.b.qp);
	ibv_ack_async_event(&ev);

	/* SQD with notification: SQ_DRAINED, and sq_draining clears. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	ck_assert_int_eq(ibv_modify_qp(f.a.qp, &a, IBV_QP_STATE |
				       IBV_QP_EN_SQD_ASYNC_NOTIFY), 0);
	ck_assert_int_eq(ibv_get_async_event(f.ctx, &ev), 0);
	ck_assert_int_eq(ev.event_type, IBV_EVENT_SQ_DRAINED);
	ck_assert_ptr_eq(ev.element.qp, f.a.qp);
	ck_assert_int_eq(ibv_query_qp(f.a.qp, &a, IBV_QP_STATE, &ia), 0);
	ck_assert_int_eq(a.qp_state, IBV_QPS_SQD);
	ck_assert_int_eq(a.sq_draining, 0);
	ibv_ack_async_event(&ev);
	/* Work posted in SQD waits for RTS. */
	post_recv(&f.b, 2, f.b.buf, 64);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 2, f.a.buf, 10, 0, 0), 0);
	expect_no_wc(f.b.cq, 20);
	a.qp_state = IBV_QPS_RTS;
	ck_assert_int_eq(ibv_modify_qp(f.a.qp, &a, IBV_QP_STATE), 0);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 2);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 2);

	/* An error event nobody reads: destroy must not wait for it. */
	a.qp_state = IBV_QPS_SQD;
	ck_assert_int_eq(ibv_modify_qp(f.a.qp, &a, IBV_QP_STATE |
				       IBV_QP_EN_SQD_ASYNC_NOTIFY), 0);
	fx_close(&f);
}
END_TEST

/*
 * Rules through the C API, on live traffic: a bad line is refused with
 * EINVAL and where, and adds nothing; a rule that drops the first SEND b
 * receives costs one retransmission and no data; list shows what it did;
 * delete by name, then ENOENT.
 */
START_TEST(t_fault_api)
{
	struct fx f;
	struct ibv_wc wc;
	char err[200], list[1024];
	int n;

	fx_pair(&f, IBV_QPT_RC);
	errno = 0;
	ck_assert_int_eq(emuverbs_fault_add(f.ctx, "drop op=sned", err,
					    sizeof(err)), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strstr(err, "character 6: op: sned is not one of"),
		      "%s", err);
	ck_assert_int_eq(emuverbs_fault_list(f.ctx, list, sizeof(list)), 0);
	ck_assert_int_eq(emuverbs_fault_add(NULL, "drop", NULL, 0), EINVAL);
	ck_assert_int_eq(emuverbs_fault_add(f.ctx, "name=d drop dir=rx "
					    "op=send count=1", err,
					    sizeof(err)), 0);
	ck_assert_str_eq(err, "");

	fill(f.a.buf, 3000, 5);
	post_recv(&f.b, 1, f.b.buf, 4096);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 2, f.a.buf, 3000, 0, 0),
			 0);
	wait_wc(f.b.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 3000);
	ck_assert(!memcmp(f.a.buf, f.b.buf, 3000));
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);

	n = emuverbs_fault_list(f.ctx, list, sizeof(list));
	ck_assert_int_eq(n, (int)strlen(list));
	ck_assert_msg(strstr(list, "d: drop dir=rx op=send count=1 "
			     "(matched ") && strstr(list, "acted 1)\n"), "%s",
		      list);
	/* Too small a buffer: what fits, and the length it needed. */
	ck_assert_int_eq(emuverbs_fault_list(f.ctx, list, 4), n);
	ck_assert_int_eq(emuverbs_fault_del(f.ctx, "d"), 0);
	ck_assert_int_eq(emuverbs_fault_del(f.ctx, "d"), ENOENT);
	ck_assert_int_eq(emuverbs_fault_list(f.ctx, list, sizeof(list)), 0);
	fx_close(&f);
}
END_TEST

/*
 * A running port's link through the C API: a bad setting changes nothing
 * and says why; speed and width show in the queries; down stops the
 * traffic with PORT_ERR, up resumes it with PORT_ACTIVE and the request
 * posted meanwhile completes.
 */
START_TEST(t_port_set)
{
	struct ibv_async_event ev;
	struct ibv_port_attr pa;
	struct ibv_wc wc;
	uint64_t speed;
	char err[200];
	struct fx f;

	fx_pair(&f, IBV_QPT_RC);
	ck_assert_int_eq(ibv_query_port_speed(f.ctx, 1, &speed), 0);
	ck_assert_uint_eq(speed, 1000);			/* 4x EDR */
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "width=1x speed=FAST",
					   err, sizeof(err)), EINVAL);
	ck_assert_msg(strstr(err, "speed: FAST is not one of"), "%s", err);
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "mtu=1024", err,
					   sizeof(err)), EINVAL);
	ck_assert_msg(strstr(err, "mtu: not one that changes at run time"),
		      "%s", err);
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 9, "speed=SDR", NULL, 0),
			 EINVAL);
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "speed", NULL, 0),
			 EINVAL);
	ck_assert_int_eq(ibv_query_port_speed(f.ctx, 1, &speed), 0);
	ck_assert_uint_eq(speed, 1000);			/* all or nothing */

	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "speed=SDR width=1x "
					   "latency_us=100", err,
					   sizeof(err)), 0);
	ck_assert_int_eq(ibv_query_port_speed(f.ctx, 1, &speed), 0);
	ck_assert_uint_eq(speed, 25);
	ck_assert_int_eq(ibv_query_port(f.ctx, 1, &pa), 0);
	ck_assert_uint_eq(pa.active_speed, 1);		/* SDR */
	ck_assert_uint_eq(pa.active_width, 1);		/* 1x */

	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "state=down", NULL, 0),
			 0);
	ck_assert(get_event(f.ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ERR);
	ibv_ack_async_event(&ev);
	ck_assert_int_eq(ibv_query_port(f.ctx, 1, &pa), 0);
	ck_assert_int_eq(pa.state, IBV_PORT_DOWN);
	post_recv(&f.b, 1, f.b.buf, 4096);
	fill(f.a.buf, 2000, 3);
	ck_assert_int_eq(post_one(&f.a, IBV_WR_SEND, 2, f.a.buf, 2000, 0, 0),
			 0);
	expect_no_wc(f.b.cq, 150);
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "state=active "
					   "latency_us=0 speed=EDR width=4x",
					   NULL, 0), 0);
	ck_assert(get_event(f.ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	ibv_ack_async_event(&ev);
	wait_wc(f.b.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert(!memcmp(f.a.buf, f.b.buf, 2000));
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_query_port_speed(f.ctx, 1, &speed), 0);
	ck_assert_uint_eq(speed, 1000);
	fx_close(&f);
}
END_TEST

/*
 * A port that flaps in the middle of an RC transfer of 60 WRITEs of 256 KiB
 * at 1x SDR (about 50 ms of wire): PORT_ERR, then PORT_ACTIVE, and
 * nothing else changes. An outage shorter than the QP's retry budget
 * (timeout x (retry_cnt + 1)) costs retransmissions and the data arrives
 * whole; a longer one ends the first incomplete WRITE with RETRY_EXC_ERR
 * and flushes the rest, as a NIC whose link went down would.
 */
static void flap(uint8_t timeout, uint8_t retry, int outage_ms,
		 bool survives)
{
	struct ibv_async_event ev;
	struct ibv_wc wc;
	struct fx f;
	unsigned int i, ok = 0, exc = 0, flushed = 0;
	uint8_t *src;

	fx_open(&f, IBV_QPT_RC);
	connect_qp(&f, f.a.qp, f.b.qp->qp_num, timeout, retry, 7);
	connect_qp(&f, f.b.qp, f.a.qp->qp_num, timeout, retry, 7);
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "speed=SDR width=1x",
					   NULL, 0), 0);
	fill(f.a.buf, BUF_LEN, 9);
	memset(f.b.buf, 0, BUF_LEN);
	/* 60 x 256 KiB: about 50 ms of wire, far longer than a busy
	 * machine keeps this thread from taking the port down. */
	for (i = 0; i < 60; i++) {
		src = f.a.buf;
		ck_assert_int_eq(post_one(&f.a, IBV_WR_RDMA_WRITE, i, src,
					  BUF_LEN, (uintptr_t)f.b.buf,
					  f.b.mr->rkey), 0);
	}
	wait_wc(f.a.cq, &wc, 5000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ok++;
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "state=down", NULL, 0),
			 0);
	ck_assert(get_event(f.ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ERR);
	ibv_ack_async_event(&ev);
	usleep((useconds_t)outage_ms * 1000);
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "state=active", NULL, 0),
			 0);
	ck_assert(get_event(f.ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	ibv_ack_async_event(&ev);
	while (ok + exc + flushed < 60) {
		wait_wc(f.a.cq, &wc, 10000);
		ck_assert_uint_eq(wc.wr_id, ok + exc + flushed);
		if (wc.status == IBV_WC_SUCCESS) {
			ck_assert_uint_eq(exc + flushed, 0);
			ok++;
		} else if (wc.status == IBV_WC_RETRY_EXC_ERR) {
			ck_assert_uint_eq(exc + flushed, 0);
			exc++;
		} else {
			ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
			ck_assert_uint_eq(exc, 1);
			flushed++;
		}
	}
	/* The outage hit packets in flight: the requester timed out. */
	ck_assert_uint_gt(port_counter(f.ctx, "local_ack_timeout_err"), 0);
	ck_assert_uint_gt(port_counter(f.ctx, "rx_port_down") +
			  port_counter(f.ctx, "send_err") +
			  port_counter(f.ctx, "link_dropped"), 0);
	if (survives) {
		ck_assert_uint_eq(ok, 60);
		ck_assert(!memcmp(f.a.buf, f.b.buf, BUF_LEN));
	} else {
		ck_assert_uint_eq(exc, 1);
		ck_assert_uint_lt(ok, 60);
	}
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "speed=EDR width=4x",
					   NULL, 0), 0);
	fx_close(&f);
}

/* 150 ms down against 8 x 67 ms of retries. */
START_TEST(t_port_flap_short)
{
	flap(14, 7, 150, true);
}
END_TEST

/* 600 ms down against 3 x 17 ms of retries. */
START_TEST(t_port_flap_long)
{
	flap(12, 2, 600, false);
}
END_TEST

/*
 * Scheduled events as rules: at= from the device's start, in rule order
 * when due together. The port goes down (PORT_ERR) and later up
 * (PORT_ACTIVE), a GID is added (GID_CHANGE, and it is in the table), a
 * QP dies (QP_FATAL, in ERR), a CQ fails (CQ_ERR), an XRC SRQ reports
 * SRQ_ERR; each rule counts that it acted.
 */
START_TEST(t_fault_events)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
	};
	enum ibv_event_type want[] = {
		IBV_EVENT_PORT_ERR, IBV_EVENT_GID_CHANGE, IBV_EVENT_QP_FATAL,
		IBV_EVENT_CQ_ERR, IBV_EVENT_SRQ_ERR, IBV_EVENT_PORT_ACTIVE,
	};
	struct ibv_async_event ev;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	union ibv_gid gid;
	char line[512], list[2048];
	uint64_t speed;
	uint32_t srqn;
	unsigned int i, k;
	struct fx f;

	fx_pair(&f, IBV_QPT_RC);
	xrcd = ibv_open_xrcd(f.ctx, &xa);
	ck_assert_ptr_nonnull(xrcd);
	sa.pd = f.pd;
	sa.xrcd = xrcd;
	sa.cq = f.b.cq;
	srq = ibv_create_srq_ex(f.ctx, &sa);
	ck_assert_ptr_nonnull(srq);
	ck_assert_int_eq(ibv_get_srq_num(srq, &srqn), 0);
	snprintf(line, sizeof(line), "port_down at=0ms name=e; "
		 "gid_add gid=127.77.0.1 at=0ms name=e; "
		 "qp_fatal qpn=%u at=0ms name=e; cq_err qpn=%u at=0ms name=e; "
		 "srq_err srqn=%u at=0ms name=e; port_up at=300ms name=e; "
		 "port_speed speed=HDR width=1x at=0ms name=e",
		 f.a.qp->qp_num, f.b.qp->qp_num, srqn);
	ck_assert_int_eq(emuverbs_fault_add(f.ctx, line, list, sizeof(list)),
			 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_msg(get_event(f.ctx, &ev, 3000), "event %u", i);
		ck_assert_msg(ev.event_type == want[i], "event %u is %s", i,
			      ibv_event_type_str(ev.event_type));
		if (ev.event_type == IBV_EVENT_QP_FATAL)
			ck_assert_ptr_eq(ev.element.qp, f.a.qp);
		if (ev.event_type == IBV_EVENT_CQ_ERR)
			ck_assert_ptr_eq(ev.element.cq, f.b.cq);
		if (ev.event_type == IBV_EVENT_SRQ_ERR)
			ck_assert_ptr_eq(ev.element.srq, srq);
		ibv_ack_async_event(&ev);
	}
	ck_assert_int_eq(ibv_query_qp(f.a.qp, &qa, IBV_QP_STATE, &qia), 0);
	ck_assert_int_eq(qa.qp_state, IBV_QPS_ERR);
	for (k = 0; k < 16; k++) {
		if (ibv_query_gid(f.ctx, 1, (int)k, &gid))
			continue;
		if (gid.raw[10] == 0xff && gid.raw[12] == 127 &&
		    gid.raw[13] == 77 && gid.raw[15] == 1)
			break;
	}
	ck_assert_uint_lt(k, 16);
	ck_assert_int_gt(emuverbs_fault_list(f.ctx, list, sizeof(list)), 0);
	for (i = 0, k = 0; strstr(list + k, "acted 1)"); i++)
		k = (unsigned int)(strstr(list + k, "acted 1)") - list) + 1;
	ck_assert_msg(i == 7, "%s", list);
	/* The speed event ran on the engine: the queries follow. */
	ck_assert_int_eq(ibv_query_port_speed(f.ctx, 1, &speed), 0);
	ck_assert_uint_eq(speed, 500);			/* 1x HDR */
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "speed=EDR width=4x",
					   NULL, 0), 0);
	ck_assert_int_eq(emuverbs_fault_del(f.ctx, "e"), 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	ck_assert_int_eq(ibv_close_xrcd(xrcd), 0);
	fx_close(&f);
}
END_TEST

/* 1 MiB of WRITEs a -> b in 4 KiB packets through a queue that marks from
 * 4 packets on, at 1x SDR: 16.5 us of wire per packet, about four times
 * what this sender needs to make one under ASan, so a queue forms past
 * the pacer's burst, up to the four bursts a QP may book ahead. */
static void marked_burst(struct fx *f)
{
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < 64; i++)
		ck_assert_int_eq(post_one(&f->a, IBV_WR_RDMA_WRITE, i,
					  f->a.buf + (i % 16) * 16384, 16384,
					  (uintptr_t)f->b.buf +
						  (i % 16) * 16384,
					  f->b.mr->rkey), 0);
	for (i = 0; i < 64; i++) {
		wait_wc(f->a.cq, &wc, 20000);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	}
	/* UC completes a WRITE once it is sent into the link: wait until
	 * the queue is empty, then until every CNP sent has been received
	 * (100 ms at most: on a loaded machine the socket may drop one). */
	for (i = 0; port_counter(f->ctx, "link_queue"); i++) {
		ck_assert_msg(i < 2000, "the link's queue did not drain");
		usleep(1000);
	}
	for (i = 0; i < 100; i++) {
		if (port_counter(f->ctx, "np_cnp_sent") ==
		    port_counter(f->ctx, "rp_cnp_handled") +
			    port_counter(f->ctx, "rp_cnp_ignored"))
			return;
		usleep(1000);
	}
}

/*
 * Congestion: a paced port whose queue passes its ECN threshold marks CE;
 * the receiving QP answers with CNPs (one per interval), and the sender's
 * reaction point cuts its rate with DCQCN on, or counts them ignored with
 * it off. Both ends are on port 1 here, so all four counters are its.
 * UC QPs: an RC QP's packets in flight are held to the port's budget,
 * which is 24 for a user without CAP_NET_ADMIN on a stock kernel (or in a
 * user namespace), leaving 7 packets past the pacer's 17-frame burst: at
 * a threshold of 4 a mark was chance (1 to 38 of 256 under ASan). Marks,
 * CNPs and DCQCN do not depend on the transport.
 */
START_TEST(t_congestion)
{
	unsigned long long handled, ignored;
	struct fx f;

	fx_open(&f, IBV_QPT_UC);
	connect_qp_mtu(&f, f.a.qp, f.b.qp->qp_num, 14, 7, 7, IBV_MTU_4096);
	connect_qp_mtu(&f, f.b.qp, f.a.qp->qp_num, 14, 7, 7, IBV_MTU_4096);
	ck_assert_int_eq(emuverbs_port_counters(f.ctx, 9, NULL, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "speed=SDR width=1x "
					   "ecn_threshold=4 dcqcn=on", NULL,
					   0), 0);
	marked_burst(&f);
	/* Held says whether a queue formed at all: if not, the host could
	 * not outrun the wire here, and nothing else is wrong. */
	ck_assert_msg(port_counter(f.ctx, "link_ecn_marked") > 0,
		      "no CE marks; %llu packets waited for the wire",
		      port_counter(f.ctx, "link_held"));
	ck_assert_uint_gt(port_counter(f.ctx, "np_ecn_marked_roce_packets"), 0);
	ck_assert_uint_gt(port_counter(f.ctx, "np_cnp_sent"), 0);
	handled = port_counter(f.ctx, "rp_cnp_handled");
	ck_assert_uint_gt(handled, 0);
	ck_assert_uint_le(handled, port_counter(f.ctx, "np_cnp_sent"));
	ck_assert_uint_eq(port_counter(f.ctx, "rp_cnp_ignored"), 0);

	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "dcqcn=off", NULL, 0),
			 0);
	marked_burst(&f);
	ignored = port_counter(f.ctx, "rp_cnp_ignored");
	ck_assert_uint_gt(ignored, 0);
	ck_assert_uint_eq(port_counter(f.ctx, "rp_cnp_handled"), handled);
	ck_assert_int_eq(emuverbs_port_set(f.ctx, 1, "speed=EDR width=4x "
					   "ecn_threshold=0", NULL, 0), 0);
	fx_close(&f);
}
END_TEST

static Suite *qp_suite(void)
{
	Suite *s = suite_create("qp");
	TCase *tc = tcase_create("object");
	TCase *td = tcase_create("data");
	TCase *tg = tcase_create("guard");

	tcase_add_test(tc, t_create_query_destroy);
	tcase_add_test(tc, t_create_qp_ex);
	tcase_add_test(tc, t_post_errors);
	tcase_add_test(tc, t_flush_on_err);
	tcase_add_test(tc, t_destroy_cleans_cq);
	tcase_add_test(tc, t_async_events);
	suite_add_tcase(s, tc);
	tcase_add_test(td, t_rc_send);
	tcase_add_test(td, t_fault_api);
	tcase_add_test(td, t_port_set);
	tcase_add_test(td, t_port_flap_short);
	tcase_add_test(td, t_port_flap_long);
	tcase_add_test(td, t_fault_events);
	tcase_add_test(td, t_congestion);
	tcase_add_test(td, t_rc_send_inline_multi_sge);
	tcase_add_test(td, t_rc_write_read);
	tcase_add_test(td, t_rc_atomics);
	tcase_add_test(td, t_rc_wr_api);
	tcase_add_test(td, t_rc_retry_exceeded);
	tcase_add_test(td, t_rc_rnr);
	tcase_add_test(td, t_rc_length_and_lkey);
	tcase_add_test(td, t_uc);
	tcase_add_test(td, t_ud_ipv6);
	tcase_add_test(td, t_ud);
	tcase_add_test(td, t_flow_label_any);
	suite_add_tcase(s, td);
	tcase_add_test(tg, t_guard_write_outside);
	tcase_add_test(tg, t_guard_read_outside);
	tcase_add_test(tg, t_guard_atomic_outside);
	tcase_add_test(tg, t_guard_keys_and_rights);
	suite_add_tcase(s, tg);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(qp_suite());
}
