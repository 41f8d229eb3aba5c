/* Unit tests for shared receive queues and XRC through the public API:
 * every error path, limits, resize, the limit event, RNR, LAST_WQE_REACHED,
 * destroy rules, XRC domains and traffic, and allocation failures. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		IBV_ACCESS_REMOTE_READ)
#define BUF_LEN (64 * 1024)
#define MSG 64
#define QKEY 0x1234

/* ---- fixture ------------------------------------------------------------ */

struct fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;		/* everything completes here */
	union ibv_gid gid;
	uint8_t *buf;
	struct ibv_mr *mr;
	struct ibv_srq *srq;
};

static struct ibv_srq *make_srq(struct fx *f, uint32_t wr, uint32_t sge)
{
	struct ibv_srq_init_attr a = {
		.attr = { .max_wr = wr, .max_sge = sge },
	};
	struct ibv_srq *srq = ibv_create_srq(f->pd, &a);

	ck_assert_ptr_nonnull(srq);
	ck_assert_uint_ge(a.attr.max_wr, wr);
	ck_assert_uint_ge(a.attr.max_sge, sge);
	return srq;
}

static void fx_open(struct fx *f, uint32_t srq_wr)
{
	memset(f, 0, sizeof(*f));
	f->ctx = open_default();
	ck_assert_int_eq(fcntl(f->ctx->async_fd, F_SETFL,
			       fcntl(f->ctx->async_fd, F_GETFL) | O_NONBLOCK),
			 0);
	f->pd = ibv_alloc_pd(f->ctx);
	ck_assert_ptr_nonnull(f->pd);
	f->cq = ibv_create_cq(f->ctx, 4096, NULL, NULL, 0);
	ck_assert_ptr_nonnull(f->cq);
	ck_assert_int_eq(ibv_query_gid(f->ctx, 1, 0, &f->gid), 0);
	f->buf = calloc(1, BUF_LEN);
	ck_assert_ptr_nonnull(f->buf);
	f->mr = ibv_reg_mr(f->pd, f->buf, BUF_LEN, ACCESS);
	ck_assert_ptr_nonnull(f->mr);
	if (srq_wr)
		f->srq = make_srq(f, srq_wr, 2);
}

static void fx_close(struct fx *f)
{
	if (f->srq)
		ck_assert_int_eq(ibv_destroy_srq(f->srq), 0);
	ck_assert_int_eq(ibv_dereg_mr(f->mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(f->cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(f->pd), 0);
	ck_assert_int_eq(ibv_close_device(f->ctx), 0);
	free(f->buf);
}

static struct ibv_qp *make_qp(struct fx *f, enum ibv_qp_type type,
			      struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = f->cq,
		.recv_cq = f->cq,
		.srq = srq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(f->pd, &a);

	ck_assert_ptr_nonnull(qp);
	if (srq) {
		/* The QP has no receive queue of its own. */
		ck_assert_uint_eq(a.cap.max_recv_wr, 0);
		ck_assert_ptr_eq(qp->srq, srq);
	}
	return qp;
}

/* How the tests bring QPs up; each RC pair says its rnr_retry. */
static struct qp_conn conn(uint8_t rnr_retry)
{
	struct qp_conn c = qp_conn_default;

	c.access = ACCESS;
	c.qkey = QKEY;
	c.psn = 0x100;
	c.timeout = 10;
	c.rnr_retry = rnr_retry;
	c.rd_atomic = 1;
	c.dest_rd_atomic = 1;
	return c;
}

static void to_init(struct ibv_qp *qp)
{
	struct qp_conn c = conn(7);

	ck_assert_int_eq(qp_to_init(qp, &c), 0);
}

/* RESET -> RTS towards dest at our own GID (RC, UC, XRC). */
static void connect_qp(struct fx *f, struct ibv_qp *qp, uint32_t dest,
		       uint8_t rnr_retry)
{
	struct qp_peer peer = { .qpn = dest, .psn = 0x100, .gid = f->gid };
	struct qp_conn c = conn(rnr_retry);

	ck_assert_int_eq(qp_connect(qp, &c, &peer), 0);
}

/* A pair of type t on f's CQ: p->qp[0] sends, p->qp[1] receives through
 * f's SRQ; UD pairs also get an AH each way. */
static void srq_pair(struct fx *f, struct qp_pair *p, enum ibv_qp_type t,
		     uint8_t rnr_retry)
{
	struct qp_conn c = conn(rnr_retry);
	struct qp_pair_opts o = {
		.type = t,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.cq = { f->cq, f->cq },
		.srq = { NULL, f->srq },
		.conn = &c,
	};

	ck_assert_int_eq(qp_pair_open(p, f->ctx, f->pd, &o), 0);
	ck_assert_ptr_eq(p->qp[1]->srq, f->srq);
}

static int post_srq(struct fx *f, struct ibv_srq *srq, uint64_t id,
		    uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->buf + BUF_LEN / 2,
		.length = len,
		.lkey = f->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

static void post_send(struct fx *f, struct ibv_qp *qp, uint64_t id,
		      struct ibv_ah *ah, uint32_t qpn, uint32_t srqn)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->buf, .length = MSG, .lkey = f->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qpn;
		wr.wr.ud.remote_qkey = QKEY;
	}
	wr.qp_type.xrc.remote_srqn = srqn;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}

/* The send's and the receive's completions, in either order. */
static void both_wc(struct fx *f, uint64_t send_id, struct ibv_wc *rwc)
{
	struct ibv_wc wc;
	bool s = false, r = false;

	while (!s || !r) {
		wait_wc(f->cq, &wc, 3000);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS, "status %s",
			      ibv_wc_status_str(wc.status));
		if (wc.opcode == IBV_WC_SEND) {
			ck_assert_uint_eq(wc.wr_id, send_id);
			s = true;
		} else {
			*rwc = wc;
			r = true;
		}
	}
}

/* ---- creation ----------------------------------------------------------- */

START_TEST(t_create_errors)
{
	struct ibv_device_attr_ex dx;
	struct ibv_srq_init_attr_ex x;
	struct ibv_srq_init_attr a;
	struct ibv_context *other;
	struct ibv_pd *opd;
	struct fx f;

	fx_open(&f, 0);
	ck_assert_int_eq(ibv_query_device_ex(f.ctx, NULL, &dx), 0);
	ck_assert(dx.orig_attr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE);
	ck_assert(dx.orig_attr.device_cap_flags & IBV_DEVICE_XRC);
	ck_assert_int_gt(dx.orig_attr.max_srq, 0);
	ck_assert_uint_gt(dx.tm_caps.max_num_tags, 0);

	errno = 0;
	memset(&a, 0, sizeof(a));
	ck_assert_ptr_null(ibv_create_srq(NULL, &a));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ibv_create_srq(f.pd, NULL));
	ck_assert_int_eq(errno, EINVAL);
	a.attr.max_wr = (uint32_t)dx.orig_attr.max_srq_wr + 1;
	a.attr.max_sge = 1;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq(f.pd, &a));
	ck_assert_int_eq(errno, EINVAL);
	a.attr.max_wr = 1;
	a.attr.max_sge = (uint32_t)dx.orig_attr.max_srq_sge + 1;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq(f.pd, &a));
	ck_assert_int_eq(errno, EINVAL);
	/* The limits themselves are accepted, and zero grows to one. */
	a.attr.max_wr = (uint32_t)dx.orig_attr.max_srq_wr;
	a.attr.max_sge = (uint32_t)dx.orig_attr.max_srq_sge;
	f.srq = ibv_create_srq(f.pd, &a);
	ck_assert_ptr_nonnull(f.srq);
	ck_assert_int_eq(ibv_destroy_srq(f.srq), 0);
	a.attr.max_wr = 0;
	a.attr.max_sge = 0;
	f.srq = ibv_create_srq(f.pd, &a);
	ck_assert_ptr_nonnull(f.srq);
	ck_assert_uint_ge(a.attr.max_wr, 1);
	ck_assert_uint_ge(a.attr.max_sge, 1);
	ck_assert_ptr_eq(f.srq->pd, f.pd);
	ck_assert_ptr_eq(f.srq->context, f.ctx);
	ck_assert_int_eq(ibv_destroy_srq(f.srq), 0);
	f.srq = NULL;

	/* The extended verb: masks, types and the fields each needs. */
	memset(&x, 0, sizeof(x));
	x.attr.max_wr = 4;
	x.attr.max_sge = 1;
	x.comp_mask = IBV_SRQ_INIT_ATTR_RESERVED;
	x.pd = f.pd;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);
	x.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_CQ;
	x.srq_type = IBV_SRQT_BASIC;
	x.cq = f.cq;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);		/* no PD */
	x.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	x.srq_type = 7;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);
	x.srq_type = IBV_SRQT_XRC;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);		/* no XRCD, no CQ */
	x.srq_type = IBV_SRQT_TM;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);		/* no tm_cap */
	x.comp_mask |= IBV_SRQ_INIT_ATTR_TM | IBV_SRQ_INIT_ATTR_CQ;
	x.tm_cap.max_num_tags = 1;
	x.tm_cap.max_ops = 1;
	/* Tag matching itself is tested in test_tm.c. */
	f.srq = ibv_create_srq_ex(f.ctx, &x);
	ck_assert_ptr_nonnull(f.srq);
	ck_assert_int_eq(ibv_destroy_srq(f.srq), 0);
	/* A basic SRQ through the extended verb with a CQ named. */
	x.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		      IBV_SRQ_INIT_ATTR_CQ;
	x.srq_type = IBV_SRQT_BASIC;
	x.attr.max_wr = 5;
	f.srq = ibv_create_srq_ex(f.ctx, &x);
	ck_assert_ptr_nonnull(f.srq);
	ck_assert_uint_ge(x.attr.max_wr, 5);

	/* A PD of another context. */
	other = open_default();
	opd = ibv_alloc_pd(other);
	ck_assert_ptr_nonnull(opd);
	x.pd = opd;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_dealloc_pd(opd), 0);
	ck_assert_int_eq(ibv_close_device(other), 0);
	fx_close(&f);
}
END_TEST

/* max_srq counts live SRQs on the device, across contexts. */
START_TEST(t_max_srq)
{
	struct ibv_srq *s[3];
	struct ibv_context *c2;
	struct ibv_pd *pd2;
	struct fx f;

	emu_test_write_config("[device emu0]\nmax_srq = 2\n");
	fx_open(&f, 0);
	s[0] = make_srq(&f, 4, 1);
	c2 = open_default();
	pd2 = ibv_alloc_pd(c2);
	ck_assert_ptr_nonnull(pd2);
	{
		struct ibv_srq_init_attr a = { .attr = { 4, 1, 0 } };

		s[1] = ibv_create_srq(pd2, &a);
		ck_assert_ptr_nonnull(s[1]);
		errno = 0;
		s[2] = ibv_create_srq(f.pd, &a);
		ck_assert_ptr_null(s[2]);
		ck_assert_int_eq(errno, ENOMEM);
		ck_assert_int_eq(ibv_destroy_srq(s[1]), 0);
		s[2] = ibv_create_srq(f.pd, &a);
		ck_assert_ptr_nonnull(s[2]);
		ck_assert_int_eq(ibv_destroy_srq(s[2]), 0);
	}
	ck_assert_int_eq(ibv_destroy_srq(s[0]), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_close_device(c2), 0);
	fx_close(&f);
}
END_TEST

/* An allocation failing anywhere in create leaves nothing behind. */
START_TEST(t_create_nomem)
{
	struct ibv_srq_init_attr a = { .attr = { 8, 2, 0 } };
	struct ibv_srq *srq;
	struct fx f;
	int nth;

	fx_open(&f, 0);
	for (nth = 1; nth <= 4; nth++) {
		emu_test_fail_calloc(nth);
		errno = 0;
		srq = ibv_create_srq(f.pd, &a);
		if (srq) {
			/* Past the allocations create makes. */
			emu_test_fail_calloc(0);
			ck_assert_int_eq(ibv_destroy_srq(srq), 0);
			break;
		}
		ck_assert_int_eq(errno, ENOMEM);
		emu_test_fail_calloc(0);
	}
	ck_assert_int_gt(nth, 1);
	emu_test_fail_calloc(0);
	/* Nothing leaked a reference: fx_close frees the PD. */
	fx_close(&f);
}
END_TEST

/* ---- post, modify, query ------------------------------------------------ */

START_TEST(t_post_full_and_bad)
{
	struct ibv_recv_wr wr[5], *bad;
	struct ibv_sge sge[3];
	struct ibv_srq_attr sa;
	struct fx f;
	int i;

	fx_open(&f, 0);
	f.srq = make_srq(&f, 3, 2);
	ck_assert_int_eq(ibv_query_srq(f.srq, &sa), 0);
	ck_assert_uint_eq(sa.max_wr, 3);
	ck_assert_uint_eq(sa.max_sge, 2);
	ck_assert_uint_eq(sa.srq_limit, 0);
	for (i = 0; i < 3; i++) {
		sge[i].addr = (uintptr_t)f.buf;
		sge[i].length = 16;
		sge[i].lkey = f.mr->lkey;
	}
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 5; i++) {
		wr[i].wr_id = i;
		wr[i].sg_list = sge;
		wr[i].num_sge = 1;
		wr[i].next = i < 4 ? &wr[i + 1] : NULL;
	}
	/* Too many SGEs: that WR is bad, those before it are posted. */
	wr[1].num_sge = 3;
	bad = NULL;
	ck_assert_int_eq(ibv_post_srq_recv(f.srq, wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[1]);
	wr[1].num_sge = 2;
	/* Two more fit, the third does not: ENOMEM at wr[3]. */
	bad = NULL;
	ck_assert_int_eq(ibv_post_srq_recv(f.srq, &wr[1], &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[3]);
	bad = NULL;
	ck_assert_int_eq(ibv_post_srq_recv(f.srq, &wr[4], &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[4]);
	fx_close(&f);
}
END_TEST

START_TEST(t_modify_rules)
{
	struct ibv_device_attr da;
	struct ibv_srq_attr sa = { 0 };
	struct fx f;
	int i;

	fx_open(&f, 0);
	ck_assert_int_eq(ibv_query_device(f.ctx, &da), 0);
	f.srq = make_srq(&f, 8, 1);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(post_srq(&f, f.srq, i, 16), 0);
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa, 1 << 5), EINVAL);
	sa.srq_limit = 9;
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa, IBV_SRQ_LIMIT), EINVAL);
	/* Shrinking below what is posted fails and changes nothing. */
	sa.max_wr = 5;
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa, IBV_SRQ_MAX_WR), EINVAL);
	sa.max_wr = (uint32_t)da.max_srq_wr + 1;
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa, IBV_SRQ_MAX_WR), EINVAL);
	/* A limit above the current size is fine with a resize that makes
	 * room for it, in the same call. */
	sa.max_wr = 16;
	sa.srq_limit = 12;
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa,
					IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT), 0);
	memset(&sa, 0, sizeof(sa));
	ck_assert_int_eq(ibv_query_srq(f.srq, &sa), 0);
	ck_assert_uint_eq(sa.max_wr, 16);
	ck_assert_uint_eq(sa.srq_limit, 12);
	/* The six WRs survived: ten more fit, not eleven. */
	for (i = 6; i < 16; i++)
		ck_assert_int_eq(post_srq(&f, f.srq, i, 16), 0);
	ck_assert_int_eq(post_srq(&f, f.srq, 16, 16), ENOMEM);
	/* Disarming: limit 0. */
	sa.srq_limit = 0;
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa, IBV_SRQ_LIMIT), 0);
	ck_assert_int_eq(ibv_query_srq(f.srq, &sa), 0);
	ck_assert_uint_eq(sa.srq_limit, 0);
	fx_close(&f);
}
END_TEST

/* ---- traffic ------------------------------------------------------------ */

/* Three RC QPs, a UC and a UD QP share one SRQ: receives are consumed in
 * posting order whichever QP a message arrives on, and qp_num says which;
 * the grown SRQ keeps its order too. */
START_TEST(t_shared_order)
{
	static const enum ibv_qp_type type[5] = {
		IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
	};
	struct ibv_qp *r[5], *s[5];
	struct ibv_srq_attr sa = { .max_wr = 64 };
	struct qp_pair p[5];
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct fx f;
	uint64_t id = 0;
	int i, round;

	fx_open(&f, 8);
	for (i = 0; i < 5; i++) {
		srq_pair(&f, &p[i], type[i], 7);
		s[i] = p[i].qp[0];
		r[i] = p[i].qp[1];
	}
	ah = p[4].ah[0];

	for (i = 0; i < 8; i++)
		ck_assert_int_eq(post_srq(&f, f.srq, 100 + i, 1024), 0);
	/* Grow with eight WRs posted, then use them. */
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa, IBV_SRQ_MAX_WR), 0);
	for (i = 8; i < 40; i++)
		ck_assert_int_eq(post_srq(&f, f.srq, 100 + i, 1024), 0);
	for (round = 0; round < 8; round++) {
		for (i = 4; i >= 0; i--) {
			post_send(&f, s[i], 1000 + id, i == 4 ? ah : NULL,
				  r[i]->qp_num, 0);
			both_wc(&f, 1000 + id, &wc);
			ck_assert_uint_eq(wc.wr_id, 100 + id);
			ck_assert_uint_eq(wc.qp_num, r[i]->qp_num);
			ck_assert_uint_eq(wc.byte_len,
					  MSG + (i == 4 ? 40 : 0));
			id++;
		}
	}
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(qp_pair_close(&p[i]), 0);
	fx_close(&f);
}
END_TEST

/* The limit event: exactly one per arming, naming the SRQ; the limit reads
 * 0 once it has fired, and arming again fires again. */
START_TEST(t_limit_event)
{
	struct ibv_srq_attr sa = { .srq_limit = 3 };
	struct ibv_async_event ev;
	struct ibv_qp *s;
	struct qp_pair p;
	struct ibv_wc wc;
	struct fx f;
	int i, events = 0;

	fx_open(&f, 16);
	srq_pair(&f, &p, IBV_QPT_RC, 7);
	s = p.qp[0];
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(post_srq(&f, f.srq, i, 1024), 0);
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa, IBV_SRQ_LIMIT), 0);
	/* 6 -> 5 -> 4 -> 3: not below 3 yet. */
	for (i = 0; i < 3; i++) {
		post_send(&f, s, i, NULL, 0, 0);
		both_wc(&f, i, &wc);
	}
	ck_assert(!get_event(f.ctx, &ev, 50));
	ck_assert_int_eq(ibv_query_srq(f.srq, &sa), 0);
	ck_assert_uint_eq(sa.srq_limit, 3);
	/* 3 -> 2 fires, 2 -> 1 -> 0 do not. */
	for (i = 3; i < 6; i++) {
		post_send(&f, s, i, NULL, 0, 0);
		both_wc(&f, i, &wc);
		while (get_event(f.ctx, &ev, i == 3 ? 500 : 50)) {
			ck_assert_int_eq(ev.event_type,
					 IBV_EVENT_SRQ_LIMIT_REACHED);
			ck_assert_ptr_eq(ev.element.srq, f.srq);
			ibv_ack_async_event(&ev);
			events++;
		}
	}
	ck_assert_int_eq(events, 1);
	ck_assert_int_eq(ibv_query_srq(f.srq, &sa), 0);
	ck_assert_uint_eq(sa.srq_limit, 0);
	/* Armed again with 4 posted and limit 4: the next take fires. */
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(post_srq(&f, f.srq, 10 + i, 1024), 0);
	sa.srq_limit = 4;
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa, IBV_SRQ_LIMIT), 0);
	post_send(&f, s, 99, NULL, 0, 0);
	both_wc(&f, 99, &wc);
	ck_assert(get_event(f.ctx, &ev, 500));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED);
	/* Destroy waits for this ack: give it before. */
	ibv_ack_async_event(&ev);
	post_send(&f, s, 100, NULL, 0, 0);
	both_wc(&f, 100, &wc);
	ck_assert(!get_event(f.ctx, &ev, 50));
	ck_assert_int_eq(qp_pair_close(&p), 0);
	fx_close(&f);
}
END_TEST

/* An empty SRQ makes the RC responder send RNR NAKs; the requester waits
 * and retries, and the message lands once the SRQ is refilled. */
START_TEST(t_rnr_recovery)
{
	struct ibv_qp *r, *s;
	struct qp_pair p;
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, 4);
	srq_pair(&f, &p, IBV_QPT_RC, 7);	/* 7: retry for ever */
	s = p.qp[0];
	r = p.qp[1];
	post_send(&f, s, 1, NULL, 0, 0);
	expect_no_wc(f.cq, 200);
	ck_assert_int_eq(post_srq(&f, f.srq, 42, 1024), 0);
	both_wc(&f, 1, &wc);
	ck_assert_uint_eq(wc.wr_id, 42);
	ck_assert_uint_eq(wc.qp_num, r->qp_num);
	ck_assert_int_eq(qp_pair_close(&p), 0);
	fx_close(&f);
}
END_TEST

/* With a finite rnr_retry the sender gives up: RNR_RETRY_EXC_ERR. */
START_TEST(t_rnr_exhausted)
{
	struct ibv_qp *s;
	struct qp_pair p;
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, 4);
	srq_pair(&f, &p, IBV_QPT_RC, 1);
	s = p.qp[0];
	post_send(&f, s, 1, NULL, 0, 0);
	wait_wc(f.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	ck_assert_int_eq(qp_pair_close(&p), 0);
	fx_close(&f);
}
END_TEST

/* Destroy: EBUSY while a QP uses the SRQ. A QP moved to ERR raises
 * LAST_WQE_REACHED and flushes its own send WRs, but the SRQ's WRs stay
 * for the others (IBTA 10.2.9.5); destroy then succeeds. */
START_TEST(t_destroy_busy_last_wqe)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_async_event ev;
	struct ibv_qp *r, *s2;
	struct qp_pair p;
	struct ibv_wc wc;
	struct fx f;
	bool last = false;

	fx_open(&f, 8);
	r = make_qp(&f, IBV_QPT_RC, f.srq);
	ck_assert_int_eq(ibv_destroy_srq(f.srq), EBUSY);
	ck_assert_int_eq(post_srq(&f, f.srq, 7, 1024), 0);
	ck_assert_int_eq(post_srq(&f, f.srq, 8, 1024), 0);
	/* Posting to a QP's own RQ is refused while it has an SRQ. */
	{
		struct ibv_recv_wr wr = { 0 }, *bad;

		ck_assert_int_eq(ibv_post_recv(r, &wr, &bad), EINVAL);
	}
	to_init(r);
	ck_assert_int_eq(ibv_modify_qp(r, &qa, IBV_QP_STATE), 0);
	while (get_event(f.ctx, &ev, 500)) {
		if (ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED) {
			ck_assert_ptr_eq(ev.element.qp, r);
			last = true;
		}
		ibv_ack_async_event(&ev);
		if (last)
			break;
	}
	ck_assert(last);
	expect_no_wc(f.cq, 50);		/* the SRQ's WRs were not flushed */
	ck_assert_int_eq(ibv_destroy_srq(f.srq), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(r), 0);

	/* Another QP gets the WRs, in order. */
	srq_pair(&f, &p, IBV_QPT_RC, 7);
	s2 = p.qp[0];
	post_send(&f, s2, 1, NULL, 0, 0);
	both_wc(&f, 1, &wc);
	ck_assert_uint_eq(wc.wr_id, 7);
	/* s2 to ERR: its posted send WRs are flushed. */
	ck_assert_int_eq(ibv_modify_qp(s2, &qa, IBV_QP_STATE), 0);
	post_send(&f, s2, 2, NULL, 0, 0);
	wait_wc(f.cq, &wc, 1000);
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(qp_pair_close(&p), 0);
	/* Destroy withdraws undelivered events: none here to wait for. */
	ck_assert_int_eq(ibv_destroy_srq(f.srq), 0);
	f.srq = NULL;
	fx_close(&f);
}
END_TEST

/* An SRQ event left unread is dropped by destroy, which does not wait. */
START_TEST(t_destroy_drops_unread_event)
{
	struct ibv_srq_attr sa = { .srq_limit = 2 };
	struct ibv_qp *s;
	struct qp_pair p;
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, 4);
	srq_pair(&f, &p, IBV_QPT_RC, 7);
	s = p.qp[0];
	ck_assert_int_eq(post_srq(&f, f.srq, 1, 1024), 0);
	ck_assert_int_eq(post_srq(&f, f.srq, 2, 1024), 0);
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa, IBV_SRQ_LIMIT), 0);
	post_send(&f, s, 1, NULL, 0, 0);
	both_wc(&f, 1, &wc);
	ck_assert_int_eq(qp_pair_close(&p), 0);
	ck_assert_int_eq(ibv_destroy_srq(f.srq), 0);
	f.srq = NULL;
	fx_close(&f);
}
END_TEST

static atomic_int destroyed;

static void *destroy_thread(void *arg)
{
	ck_assert_int_eq(ibv_destroy_srq(arg), 0);
	atomic_store(&destroyed, 1);
	return NULL;
}

/* A delivered SRQ event holds destroy until it is acknowledged. */
START_TEST(t_destroy_waits_for_ack)
{
	struct ibv_srq_attr sa = { .srq_limit = 2 };
	struct ibv_async_event ev;
	struct ibv_qp *s;
	struct qp_pair p;
	struct ibv_wc wc;
	pthread_t th;
	struct fx f;

	fx_open(&f, 4);
	srq_pair(&f, &p, IBV_QPT_RC, 7);
	s = p.qp[0];
	ck_assert_int_eq(post_srq(&f, f.srq, 1, 1024), 0);
	ck_assert_int_eq(post_srq(&f, f.srq, 2, 1024), 0);
	ck_assert_int_eq(ibv_modify_srq(f.srq, &sa, IBV_SRQ_LIMIT), 0);
	post_send(&f, s, 1, NULL, 0, 0);
	both_wc(&f, 1, &wc);
	ck_assert(get_event(f.ctx, &ev, 500));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED);
	ck_assert_int_eq(qp_pair_close(&p), 0);
	atomic_store(&destroyed, 0);
	ck_assert_int_eq(pthread_create(&th, NULL, destroy_thread, f.srq), 0);
	usleep(100 * 1000);
	ck_assert_int_eq(atomic_load(&destroyed), 0);
	ibv_ack_async_event(&ev);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(atomic_load(&destroyed), 1);
	f.srq = NULL;
	fx_close(&f);
}
END_TEST

/* A QP cannot take another context's SRQ (nor an XRC SRQ: see
 * t_xrc_create_errors). */
START_TEST(t_qp_srq_checks)
{
	struct ibv_qp_init_attr a;
	struct ibv_context *c2;
	struct ibv_pd *pd2;
	struct ibv_srq *s2;
	struct fx f;

	fx_open(&f, 0);
	c2 = open_default();
	pd2 = ibv_alloc_pd(c2);
	s2 = ibv_create_srq(pd2, &(struct ibv_srq_init_attr){
					 .attr = { 4, 1, 0 } });
	ck_assert_ptr_nonnull(s2);
	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = f.cq;
	a.srq = s2;
	a.cap.max_send_wr = 1;
	a.qp_type = IBV_QPT_RC;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(f.pd, &a));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_destroy_srq(s2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_close_device(c2), 0);
	fx_close(&f);
}
END_TEST

/* ---- XRC ---------------------------------------------------------------- */

static char tmpfile_path[] = "/tmp/emuverbs-xrcd-XXXXXX";

static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx, int fd,
				  int oflags)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflags,
	};

	return ibv_open_xrcd(ctx, &xa);
}

static struct ibv_srq *make_xsrq(struct fx *f, struct ibv_xrcd *x,
				 uint32_t wr)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = wr, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = f->pd,
		.xrcd = x,
		.cq = f->cq,
	};
	struct ibv_srq *s = ibv_create_srq_ex(f->ctx, &a);

	ck_assert_ptr_nonnull(s);
	return s;
}

static struct ibv_qp *make_xqp(struct fx *f, enum ibv_qp_type t,
			       struct ibv_xrcd *x)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = f->cq,
		.recv_cq = f->cq,
		.cap = { .max_send_wr = 16, .max_send_sge = 1 },
		.qp_type = t,
	};

	if (t == IBV_QPT_XRC_RECV) {
		a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
		a.xrcd = x;
	} else {
		a.comp_mask = IBV_QP_INIT_ATTR_PD;
		a.pd = f->pd;
	}
	return ibv_create_qp_ex(f->ctx, &a);
}

START_TEST(t_xrcd_open_close)
{
	struct ibv_xrcd_init_attr xa = { 0 };
	struct ibv_xrcd *x1, *x2, *x3;
	struct ibv_srq *xs;
	struct fx f;
	int fd;

	fx_open(&f, 0);
	fd = mkstemp(tmpfile_path);
	ck_assert_int_ge(fd, 0);
	errno = 0;
	ck_assert_ptr_null(ibv_open_xrcd(f.ctx, &xa));
	ck_assert_int_eq(errno, EINVAL);
	xa.comp_mask = IBV_XRCD_INIT_ATTR_RESERVED | IBV_XRCD_INIT_ATTR_FD |
		       IBV_XRCD_INIT_ATTR_OFLAGS;
	xa.fd = -1;
	errno = 0;
	ck_assert_ptr_null(ibv_open_xrcd(f.ctx, &xa));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	/* No domain for the file yet, and no O_CREAT. */
	errno = 0;
	ck_assert_ptr_null(open_xrcd(f.ctx, fd, 0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(open_xrcd(f.ctx, 999, O_CREAT));
	ck_assert_int_eq(errno, EBADF);
	x1 = open_xrcd(f.ctx, fd, O_CREAT);
	ck_assert_ptr_nonnull(x1);
	/* The same file: the same domain, O_EXCL refuses it. */
	errno = 0;
	ck_assert_ptr_null(open_xrcd(f.ctx, fd, O_CREAT | O_EXCL));
	ck_assert_int_eq(errno, EEXIST);
	x2 = open_xrcd(f.ctx, fd, 0);
	ck_assert_ptr_nonnull(x2);
	x3 = open_xrcd(f.ctx, -1, 0);		/* private */
	ck_assert_ptr_nonnull(x3);

	xs = make_xsrq(&f, x1, 4);
	/* x1 may go: x2 still holds the domain. The last handle may not
	 * while the SRQ lives in it. */
	ck_assert_int_eq(ibv_close_xrcd(x1), 0);
	ck_assert_int_eq(ibv_close_xrcd(x2), EBUSY);
	ck_assert_int_eq(ibv_destroy_srq(xs), 0);
	ck_assert_int_eq(ibv_close_xrcd(x2), 0);
	ck_assert_int_eq(ibv_close_xrcd(x3), 0);
	/* Gone with its last handle: the file has no domain again. */
	errno = 0;
	ck_assert_ptr_null(open_xrcd(f.ctx, fd, 0));
	ck_assert_int_eq(errno, EINVAL);
	close(fd);
	unlink(tmpfile_path);
	fx_close(&f);
}
END_TEST

/* An XRC initiator reaches two XRC SRQs behind one target QP by number;
 * completions land in each SRQ's CQ naming the target QP; open_qp gives
 * another handle on the target; a wrong SRQ number is a remote invalid
 * request. */
START_TEST(t_xrc_traffic)
{
	struct ibv_qp_open_attr oa = { 0 };
	struct ibv_srq *xs[2];
	struct ibv_qp *snd, *rcv, *rcv2;
	struct ibv_xrcd *x, *xo;
	struct ibv_wc wc;
	uint32_t srqn[2];
	struct fx f;
	int i;

	fx_open(&f, 0);
	x = open_xrcd(f.ctx, -1, 0);
	ck_assert_ptr_nonnull(x);
	for (i = 0; i < 2; i++) {
		xs[i] = make_xsrq(&f, x, 8);
		ck_assert_int_eq(ibv_get_srq_num(xs[i], &srqn[i]), 0);
		ck_assert_int_eq(post_srq(&f, xs[i], 10 * (i + 1), 1024), 0);
		ck_assert_int_eq(post_srq(&f, xs[i], 10 * (i + 1) + 1, 1024),
				 0);
	}
	ck_assert_uint_ne(srqn[0], srqn[1]);
	snd = make_xqp(&f, IBV_QPT_XRC_SEND, NULL);
	ck_assert_ptr_nonnull(snd);
	rcv = make_xqp(&f, IBV_QPT_XRC_RECV, x);
	ck_assert_ptr_nonnull(rcv);
	connect_qp(&f, rcv, snd->qp_num, 7);
	connect_qp(&f, snd, rcv->qp_num, 7);

	/* ibv_open_qp: errors, then a second handle. */
	oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
		       IBV_QP_OPEN_ATTR_TYPE;
	oa.qp_num = snd->qp_num;
	oa.xrcd = x;
	oa.qp_type = IBV_QPT_XRC_RECV;
	errno = 0;
	ck_assert_ptr_null(ibv_open_qp(f.ctx, &oa));	/* not a target */
	ck_assert_int_eq(errno, EINVAL);
	xo = open_xrcd(f.ctx, -1, 0);
	oa.qp_num = rcv->qp_num;
	oa.xrcd = xo;
	errno = 0;
	ck_assert_ptr_null(ibv_open_qp(f.ctx, &oa));	/* other domain */
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_close_xrcd(xo), 0);
	oa.xrcd = x;
	rcv2 = ibv_open_qp(f.ctx, &oa);
	ck_assert_ptr_nonnull(rcv2);
	ck_assert_uint_eq(rcv2->qp_num, rcv->qp_num);
	ck_assert_int_eq(ibv_destroy_qp(rcv2), 0);	/* rcv lives on */

	for (i = 0; i < 4; i++) {
		post_send(&f, snd, i, NULL, 0, srqn[i % 2]);
		both_wc(&f, i, &wc);
		ck_assert_uint_eq(wc.wr_id, 10 * (i % 2 + 1) + i / 2);
		ck_assert_uint_eq(wc.qp_num, rcv->qp_num);
		ck_assert_uint_eq(wc.byte_len, MSG);
	}
	/* The target's domain is busy, its SRQs too (they have no QP count,
	 * but the domain has). */
	ck_assert_int_eq(ibv_close_xrcd(x), EBUSY);
	/* An SRQ number that is no SRQ of the domain. */
	post_send(&f, snd, 9, NULL, 0, srqn[0] + 1000);
	wait_wc(f.cq, &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 9);
	ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);

	ck_assert_int_eq(ibv_destroy_qp(snd), 0);
	ck_assert_int_eq(ibv_destroy_qp(rcv), 0);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(ibv_destroy_srq(xs[i]), 0);
	ck_assert_int_eq(ibv_close_xrcd(x), 0);
	fx_close(&f);
}
END_TEST

/*
 * perftest brings both kinds of XRC QP up with RC's masks. The kernel's
 * uverbs layer drops what a type has no use for before checking: an
 * initiator's MAX_DEST_RD_ATOMIC and MIN_RNR_TIMER, a target's
 * MAX_QP_RD_ATOMIC, RETRY_CNT and RNR_RETRY; those are then not applied.
 * Anything else outside the type's masks is still refused.
 */
START_TEST(t_xrc_rc_masks)
{
	int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	int rts = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		  IBV_QP_MAX_QP_RD_ATOMIC;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, q;
	struct ibv_qp *qp[2];
	struct ibv_xrcd *x;
	struct fx f;
	int i;

	fx_open(&f, 0);
	x = open_xrcd(f.ctx, -1, 0);
	ck_assert_ptr_nonnull(x);
	qp[0] = make_xqp(&f, IBV_QPT_XRC_SEND, NULL);
	qp[1] = make_xqp(&f, IBV_QPT_XRC_RECV, x);
	ck_assert_ptr_nonnull(qp[0]);
	ck_assert_ptr_nonnull(qp[1]);
	for (i = 0; i < 2; i++) {
		to_init(qp[i]);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp[1 - i]->qp_num;
		a.rq_psn = 0x10;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = f.gid;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		/* Not part of either type's INIT->RTR, not stripped. */
		ck_assert_int_eq(ibv_modify_qp(qp[i], &a, rtr | IBV_QP_QKEY),
				 EINVAL);
		ck_assert_int_eq(ibv_modify_qp(qp[i], &a, rtr), 0);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0x10;
		a.timeout = 14;
		a.retry_cnt = 6;
		a.rnr_retry = 5;
		a.max_rd_atomic = 2;
		ck_assert_int_eq(ibv_modify_qp(qp[i], &a, rts), 0);
		ck_assert_int_eq(ibv_query_qp(qp[i], &q, IBV_QP_STATE, &init),
				 0);
		ck_assert_int_eq(q.qp_state, IBV_QPS_RTS);
		if (i == 0) {
			/* The initiator kept its requester values and
			 * ignored the responder's. */
			ck_assert_uint_eq(q.min_rnr_timer, 0);
			ck_assert_uint_eq(q.max_dest_rd_atomic, 0);
			ck_assert_uint_eq(q.retry_cnt, 6);
			ck_assert_uint_eq(q.max_rd_atomic, 2);
		} else {
			ck_assert_uint_eq(q.min_rnr_timer, 12);
			ck_assert_uint_eq(q.max_dest_rd_atomic, 4);
			ck_assert_uint_eq(q.retry_cnt, 0);
			ck_assert_uint_eq(q.rnr_retry, 0);
			ck_assert_uint_eq(q.max_rd_atomic, 0);
		}
	}
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(ibv_destroy_qp(qp[i]), 0);
	ck_assert_int_eq(ibv_close_xrcd(x), 0);
	fx_close(&f);
}
END_TEST

START_TEST(t_xrc_create_errors)
{
	struct ibv_srq_init_attr_ex a;
	struct ibv_xrcd *x;
	struct fx f;

	fx_open(&f, 0);
	x = open_xrcd(f.ctx, -1, 0);
	ck_assert_ptr_nonnull(x);
	memset(&a, 0, sizeof(a));
	a.attr.max_wr = 4;
	a.attr.max_sge = 1;
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		      IBV_SRQ_INIT_ATTR_XRCD;
	a.srq_type = IBV_SRQT_XRC;
	a.pd = f.pd;
	a.xrcd = x;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &a));	/* no CQ */
	ck_assert_int_eq(errno, EINVAL);
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		      IBV_SRQ_INIT_ATTR_CQ;
	a.cq = f.cq;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &a));	/* no XRCD */
	ck_assert_int_eq(errno, EINVAL);
	/* An RC QP cannot receive from an XRC SRQ. */
	{
		struct ibv_srq *xs = make_xsrq(&f, x, 4);
		struct ibv_qp_init_attr qa = {
			.send_cq = f.cq,
			.recv_cq = f.cq,
			.srq = xs,
			.cap = { .max_send_wr = 1 },
			.qp_type = IBV_QPT_RC,
		};

		errno = 0;
		ck_assert_ptr_null(ibv_create_qp(f.pd, &qa));
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_int_eq(ibv_destroy_srq(xs), 0);
	}
	/* A target QP needs its domain. */
	{
		struct ibv_qp_init_attr_ex qa = {
			.qp_type = IBV_QPT_XRC_RECV,
			.comp_mask = IBV_QP_INIT_ATTR_PD,
			.pd = f.pd,
		};

		errno = 0;
		ck_assert_ptr_null(ibv_create_qp_ex(f.ctx, &qa));
		ck_assert_int_eq(errno, EINVAL);
	}
	ck_assert_int_eq(ibv_close_xrcd(x), 0);
	fx_close(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("srq");
	TCase *tc = tcase_create("srq");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_create_errors);
	tcase_add_test(tc, t_max_srq);
	tcase_add_test(tc, t_create_nomem);
	tcase_add_test(tc, t_post_full_and_bad);
	tcase_add_test(tc, t_modify_rules);
	tcase_add_test(tc, t_shared_order);
	tcase_add_test(tc, t_limit_event);
	tcase_add_test(tc, t_rnr_recovery);
	tcase_add_test(tc, t_rnr_exhausted);
	tcase_add_test(tc, t_destroy_busy_last_wqe);
	tcase_add_test(tc, t_destroy_drops_unread_event);
	tcase_add_test(tc, t_destroy_waits_for_ack);
	tcase_add_test(tc, t_qp_srq_checks);
	tcase_add_test(tc, t_xrcd_open_close);
	tcase_add_test(tc, t_xrc_traffic);
	tcase_add_test(tc, t_xrc_create_errors);
	tcase_add_test(tc, t_xrc_rc_masks);
	suite_add_tcase(s, tc);
	emu_test_isolate_config();
	return emu_test_run(s);
}
