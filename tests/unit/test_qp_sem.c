/* Unit tests for what QPs do where the kernel, rxe and mlx5 define it
 * (doc/semantics.md): receives posted before RTR, requesters whose peer
 * never answers, which error a request with several faults reports, UD
 * receive details, and the rest of issue 12's list. Public API only. */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define ALL_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define BUF_LEN 65536
#define UD_QKEY 0x11111111u

/* ---- fixture: two QPs of one type on one device ------------------------- */

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

static void side_open(struct fx *f, struct side *s, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.qp_type = type,
	};

	s->cq = ibv_create_cq(f->ctx, 64, NULL, NULL, 0);
	ck_assert_ptr_nonnull(s->cq);
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	s->qp = ibv_create_qp(f->pd, &ia);
	ck_assert_ptr_nonnull(s->qp);
	s->buf = calloc(1, BUF_LEN);
	ck_assert_ptr_nonnull(s->buf);
	s->mr = ibv_reg_mr(f->pd, s->buf, BUF_LEN, ALL_ACCESS);
	ck_assert_ptr_nonnull(s->mr);
}

static void side_close(struct side *s)
{
	ck_assert_int_eq(ibv_destroy_qp(s->qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(s->mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(s->cq), 0);
	free(s->buf);
}

/* Both QPs made, in RESET: a of type ta, b of type tb. */
static void fx_open2(struct fx *f, enum ibv_qp_type ta, enum ibv_qp_type tb)
{
	memset(f, 0, sizeof(*f));
	f->ctx = open_default();
	f->pd = ibv_alloc_pd(f->ctx);
	ck_assert_ptr_nonnull(f->pd);
	ck_assert_int_eq(ibv_query_gid(f->ctx, 1, 0, &f->gid), 0);
	side_open(f, &f->a, ta);
	side_open(f, &f->b, tb);
}

static void fx_open(struct fx *f, enum ibv_qp_type type)
{
	fx_open2(f, type, type);
}

static void fx_close(struct fx *f)
{
	side_close(&f->a);
	side_close(&f->b);
	ck_assert_int_eq(ibv_dealloc_pd(f->pd), 0);
	ck_assert_int_eq(ibv_close_device(f->ctx), 0);
}

static void to_state(struct ibv_qp *qp, enum ibv_qp_state st)
{
	struct ibv_qp_attr a = { .qp_state = st };

	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
}

/* The PSN both sides start from. */
#define PSN 0x123

/* How the tests bring QPs up; timeout and retry_cnt matter to RC only. */
static struct qp_conn conn(uint8_t timeout, uint8_t retry)
{
	struct qp_conn c = qp_conn_default;

	c.qkey = UD_QKEY;
	c.psn = PSN;
	c.timeout = timeout;
	c.retry_cnt = retry;
	return c;
}

static void to_init(struct ibv_qp *qp)
{
	struct qp_conn c = conn(0, 0);

	ck_assert_int_eq(qp_to_init(qp, &c), 0);
}

/* INIT -> RTR towards dest_qpn at our own GID (RC, UC), or just RTR (UD). */
static void to_rtr(struct fx *f, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct qp_peer peer = { .qpn = dest_qpn, .psn = PSN, .gid = f->gid };
	struct qp_conn c = conn(0, 0);

	ck_assert_int_eq(qp_to_rtr(qp, &c, &peer), 0);
}

static void to_rts(struct ibv_qp *qp, uint8_t timeout, uint8_t retry)
{
	struct qp_conn c = conn(timeout, retry);

	ck_assert_int_eq(qp_to_rts(qp, &c), 0);
}

/* a and b connected to each other and in RTS. */
static void fx_connect(struct fx *f)
{
	struct qp_conn c = conn(14, 7);

	ck_assert_int_eq(qp_connect_pair(f->a.qp, f->b.qp, &c), 0);
}

static void post_recv(struct side *s, uint64_t id, void *addr, uint32_t len)
{
	ck_assert_int_eq(qp_recv(s->qp, id, addr, len, s->mr->lkey), 0);
}

/* A signaled SEND of len bytes from the start of s's buffer. */
static void post_send(struct side *s, uint64_t id, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = len, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad = NULL;

	ck_assert_int_eq(ibv_post_send(s->qp, &wr, &bad), 0);
}

/* ---- receives posted before RTR ----------------------------------------- */

/*
 * A receive posted while the QP is in INIT (IBTA allows it: receives may
 * be posted from INIT on, and are consumed once the QP receives, from
 * RTR) completes with the first message after the QP is up, whether the
 * sender starts before or after the receiver reaches RTR.
 */
START_TEST(t_recv_posted_in_init_completes)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC };
	unsigned int i, late;
	struct ibv_wc wc;
	struct fx f;

	for (i = 0; i < 2; i++) {
		for (late = 0; late < 2; late++) {
			fx_open(&f, types[i]);
			to_init(f.a.qp);
			to_init(f.b.qp);
			memset(f.a.buf, 0x3c, 3000);
			post_recv(&f.b, 7, f.b.buf, 4096);
			post_recv(&f.b, 8, f.b.buf + 4096, 4096);
			to_rtr(&f, f.a.qp, f.b.qp->qp_num);
			to_rts(f.a.qp, 12, 7);
			if (late) {
				/* Sent while b is still in INIT: an RC
				 * sender resends until b answers; a UC
				 * message is lost, as on the wire. */
				post_send(&f.a, 1, 3000);
				usleep(20000);
			}
			to_rtr(&f, f.b.qp, f.a.qp->qp_num);
			to_rts(f.b.qp, 12, 7);
			if (!late || types[i] == IBV_QPT_UC)
				post_send(&f.a, 2, 3000);
			wait_wc(f.b.cq, &wc, 3000);
			ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
			ck_assert_uint_eq(wc.wr_id, 7);
			ck_assert_uint_eq(wc.byte_len, 3000);
			ck_assert_uint_eq(f.b.buf[2999], 0x3c);
			do
				wait_wc(f.a.cq, &wc, 3000);
			while (wc.status == IBV_WC_SUCCESS && wc.wr_id == 1 &&
			       types[i] == IBV_QPT_UC);
			ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
			fx_close(&f);
		}
	}
}
END_TEST

/* The same for UD: the datagram that arrives once the QP is in RTR lands
 * in the receive posted in INIT. */
START_TEST(t_ud_recv_posted_in_init_completes)
{
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1 };
	struct ibv_send_wr wr = { .wr_id = 1, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	struct fx f;

	fx_open(&f, IBV_QPT_UD);
	to_init(f.a.qp);
	to_init(f.b.qp);
	post_recv(&f.b, 9, f.b.buf, 40 + 512);
	to_rtr(&f, f.b.qp, 0);
	to_rtr(&f, f.a.qp, 0);
	to_rts(f.a.qp, 0, 0);
	aha.grh.dgid = f.gid;
	aha.grh.hop_limit = 1;
	ah = ibv_create_ah(f.pd, &aha);
	ck_assert_ptr_nonnull(ah);
	sge.addr = (uintptr_t)f.a.buf;
	sge.length = 512;
	sge.lkey = f.a.mr->lkey;
	wr.sg_list = &sge;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = f.b.qp->qp_num;
	wr.wr.ud.remote_qkey = UD_QKEY;
	ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 9);
	ck_assert_uint_eq(wc.byte_len, 40 + 512);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	fx_close(&f);
}
END_TEST

/* ---- a requester whose responder never answers ------------------------- */

/*
 * The responder's QP in RESET (never set up), INIT, or ERR after having
 * been connected: it drops the requests silently (rxe's check_type_state
 * and the IBTA state table), so the requester's ACK timer runs out
 * retry_cnt + 1 times and the request ends in RETRY_EXC_ERR, within
 * timeout x (retry_cnt + 1) and no later. Timeout 14 is 67.1 ms; the
 * slack is for a busy machine, not for a longer schedule.
 */
START_TEST(t_dead_responder_retry_exc_err)
{
	static const enum ibv_qp_state states[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_ERR,
	};
	const double one = 4.096e-3 * (1 << 14), bound = one * 4;
	struct ibv_wc wc;
	unsigned int i;
	unsigned long long timeouts;
	struct fx f;
	double t0, took;

	for (i = 0; i < 3; i++) {
		fx_open(&f, IBV_QPT_RC);
		if (states[i] != IBV_QPS_RESET)
			to_init(f.b.qp);
		if (states[i] == IBV_QPS_ERR) {
			to_rtr(&f, f.b.qp, f.a.qp->qp_num);
			to_rts(f.b.qp, 14, 3);
			to_state(f.b.qp, IBV_QPS_ERR);
		}
		to_init(f.a.qp);
		to_rtr(&f, f.a.qp, f.b.qp->qp_num);
		to_rts(f.a.qp, 14, 3);
		post_recv(&f.a, 50, f.a.buf, 64);
		timeouts = port_counter(f.ctx, "local_ack_timeout_err");
		t0 = now_ms();
		post_send(&f.a, 1, 100);
		wait_wc(f.a.cq, &wc, 5000);
		took = now_ms() - t0;
		ck_assert_int_eq(wc.status, IBV_WC_RETRY_EXC_ERR);
		ck_assert_uint_eq(wc.wr_id, 1);
		/* Never sooner than retry_cnt + 1 timeouts; on a busy machine
		 * a late timer may make it later, so what is counted is the
		 * timeouts, not the time: the old schedule, doubling, took 7
		 * timeouts (470 ms) where 4 are due. */
		ck_assert_msg(took >= bound * 0.95, "responder in state %d: "
			      "RETRY_EXC_ERR after %.0f ms, before %.0f",
			      states[i], took, bound);
		ck_assert_msg(took <= (bound * 1.25 + 30) * emu_test_slack(),
			      "responder in state %d: RETRY_EXC_ERR after "
			      "%.0f ms, want %.0f", states[i], took, bound);
		ck_assert_uint_eq(port_counter(f.ctx, "local_ack_timeout_err") -
					  timeouts, 4);
		/* The QP is in ERR: its receive is flushed. */
		wait_wc(f.a.cq, &wc, 1000);
		ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(wc.wr_id, 50);
		fx_close(&f);
	}
}
END_TEST

/* ---- which error a request with several faults reports ----------------- */

/* One signaled request from a: READ, WRITE or an atomic of len bytes
 * between a's buffer at loff (under lkey) and raddr (under rkey). */
static void post_rdma(struct fx *f, enum ibv_wr_opcode op, uint32_t lkey,
		      uint32_t loff, uint32_t len, uint64_t raddr,
		      uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->a.buf + loff, .length = len,
		.lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad = NULL;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
		wr.wr.atomic.swap = 6;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	ck_assert_int_eq(ibv_post_send(f->a.qp, &wr, &bad), 0);
}

/* A fresh connected RC pair, one request from a, the status it ends in. */
static enum ibv_wc_status one_request(struct fx *f, enum ibv_wr_opcode op,
				      bool bad_lkey, bool bad_rkey,
				      unsigned int misalign)
{
	struct ibv_wc wc;

	fx_open(f, IBV_QPT_RC);
	fx_connect(f);
	post_rdma(f, op, f->a.mr->lkey ^ (bad_lkey ? 0x00ab0000 : 0), 64,
		  op == IBV_WR_RDMA_READ || op == IBV_WR_RDMA_WRITE ? 3000 : 8,
		  (uintptr_t)f->b.buf + 256 + misalign,
		  f->b.mr->rkey ^ (bad_rkey ? 0x00cd0000 : 0));
	wait_wc(f->a.cq, &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 1);
	return wc.status;
}

/*
 * A bad local key and a bad remote key together: a READ or an atomic
 * goes out, its local buffer being touched only when the answer comes, so
 * the responder's NAK is what the requester reports (REM_ACCESS_ERR). A
 * WRITE reads its local buffer to send it: LOC_PROT_ERR, nothing sent,
 * as mlx5 and rxe gather the payload before it leaves.
 */
START_TEST(t_bad_lkey_and_rkey_remote_first)
{
	static const struct {
		enum ibv_wr_opcode op;
		enum ibv_wc_status want;
	} c[] = {
		{ IBV_WR_RDMA_READ, IBV_WC_REM_ACCESS_ERR },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WC_REM_ACCESS_ERR },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WC_REM_ACCESS_ERR },
		{ IBV_WR_RDMA_WRITE, IBV_WC_LOC_PROT_ERR },
	};
	unsigned int i;
	struct fx f;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ck_assert_int_eq(one_request(&f, c[i].op, true, true, 0),
				 c[i].want);
		fx_close(&f);
	}
}
END_TEST

/* An atomic at an address that is not 8-byte aligned, with a bad local
 * key: the responder refuses it, REM_INV_REQ_ERR, before anything is
 * placed locally. */
START_TEST(t_unaligned_atomic_bad_lkey_rem_inv_req)
{
	struct fx f;

	ck_assert_int_eq(one_request(&f, IBV_WR_ATOMIC_CMP_AND_SWP, true,
				     false, 4), IBV_WC_REM_INV_REQ_ERR);
	fx_close(&f);
	ck_assert_int_eq(one_request(&f, IBV_WR_ATOMIC_FETCH_AND_ADD, true,
				     false, 2), IBV_WC_REM_INV_REQ_ERR);
	fx_close(&f);
}
END_TEST

/* An atomic whose local buffer is bad is still executed at the
 * responder; the requester fails placing the result (LOC_PROT_ERR). A
 * READ likewise fails at placement, having asked. */
START_TEST(t_atomic_bad_landing_executes)
{
	uint64_t word;
	struct fx f;

	ck_assert_int_eq(one_request(&f, IBV_WR_ATOMIC_FETCH_AND_ADD, true,
				     false, 0), IBV_WC_LOC_PROT_ERR);
	memcpy(&word, f.b.buf + 256, sizeof(word));
	ck_assert_uint_eq(word, 5);
	fx_close(&f);

	ck_assert_int_eq(one_request(&f, IBV_WR_RDMA_READ, true, false, 0),
			 IBV_WC_LOC_PROT_ERR);
	fx_close(&f);
}
END_TEST

/* ---- UD receives --------------------------------------------------------- */

/* Both UD QPs up; an AH from a to b's GID with traffic class tclass. */
static struct ibv_ah *ud_up(struct fx *f, uint8_t tclass)
{
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah;

	to_init(f->a.qp);
	to_init(f->b.qp);
	to_rtr(f, f->a.qp, 0);
	to_rtr(f, f->b.qp, 0);
	to_rts(f->a.qp, 0, 0);
	to_rts(f->b.qp, 0, 0);
	aha.grh.dgid = f->gid;
	aha.grh.hop_limit = 1;
	aha.grh.traffic_class = tclass;
	ah = ibv_create_ah(f->pd, &aha);
	ck_assert_ptr_nonnull(ah);
	return ah;
}

/* A signaled datagram of len bytes from a to b. */
static void ud_send(struct fx *f, struct ibv_ah *ah, uint64_t id,
		    uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->a.buf, .length = len,
		.lkey = f->a.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_wc wc;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = f->b.qp->qp_num;
	wr.wr.ud.remote_qkey = UD_QKEY;
	ck_assert_int_eq(ibv_post_send(f->a.qp, &wr, &bad), 0);
	wait_wc(f->a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, id);
}

/*
 * The GRH a UD receive gets carries the traffic class the sender's AH
 * asked for: the IP header's TOS (IPv4, whose header fills the last 20
 * bytes of the GRH area) is what the sender set, its DSCP at least (the
 * two ECN bits are the HCA's), and ibv_init_ah_from_wc reads it back.
 */
static void ud_grh_traffic_class(void)
{
	static const uint8_t tcs[] = { 0x60, 0xb8, 0 };
	struct ibv_ah_attr back;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	unsigned int i;
	struct fx f;

	for (i = 0; i < sizeof(tcs); i++) {
		fx_open(&f, IBV_QPT_UD);
		ah = ud_up(&f, tcs[i]);
		post_recv(&f.b, 3, f.b.buf, 40 + 256);
		ud_send(&f, ah, 1, 256);
		wait_wc(f.b.cq, &wc, 3000);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert(wc.wc_flags & IBV_WC_GRH);
		ck_assert_uint_eq(f.b.buf[20], 0x45);
		ck_assert_uint_eq(f.b.buf[21] & 0xfc, tcs[i]);
		ck_assert_int_eq(ibv_init_ah_from_wc(f.ctx, 1, &wc,
						     (struct ibv_grh *)f.b.buf,
						     &back), 0);
		ck_assert_uint_eq(back.grh.traffic_class & 0xfc, tcs[i]);
		ck_assert_int_eq(ibv_destroy_ah(ah), 0);
		fx_close(&f);
	}
}

START_TEST(t_ud_grh_traffic_class)
{
	ud_grh_traffic_class();
}
END_TEST

/* The same through a link that holds every packet a while (a latency):
 * the class is kept with the packet until it leaves. */
START_TEST(t_ud_grh_traffic_class_held)
{
	emu_test_write_config("[device emu0]\n[port emu0 1]\n"
			      "latency_us = 300\n");
	ud_grh_traffic_class();
}
END_TEST

/*
 * A datagram larger than the receive at the head of the queue is dropped
 * without a completion, and that receive waits for the next datagram, as
 * mlx5 and rxe (IBTA class D) do.
 */
START_TEST(t_ud_recv_too_small_dropped)
{
	struct ibv_wc wc;
	struct ibv_ah *ah;
	struct fx f;

	fx_open(&f, IBV_QPT_UD);
	ah = ud_up(&f, 0);
	post_recv(&f.b, 4, f.b.buf, 40 + 100);
	memset(f.a.buf, 0x7e, 512);
	ud_send(&f, ah, 1, 101);
	expect_no_wc(f.b.cq, 100);
	ud_send(&f, ah, 2, 100);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 4);
	ck_assert_uint_eq(wc.byte_len, 40 + 100);
	ck_assert_uint_eq(f.b.buf[40 + 99], 0x7e);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	fx_close(&f);
}
END_TEST

/* ---- the rest of the list ------------------------------------------------ */

/* An RC QP whose destination QP is a UD QP: the UD QP drops RC packets
 * (rxe's check_type_state), nothing reaches its receive, and the RC
 * requester ends in RETRY_EXC_ERR like any requester whose peer is
 * silent. */
START_TEST(t_rc_to_ud_qp_retry_exc_err)
{
	struct ibv_wc wc;
	struct fx f;

	fx_open2(&f, IBV_QPT_RC, IBV_QPT_UD);
	to_init(f.b.qp);
	to_rtr(&f, f.b.qp, 0);
	to_rts(f.b.qp, 0, 0);
	post_recv(&f.b, 5, f.b.buf, 4096);
	to_init(f.a.qp);
	to_rtr(&f, f.a.qp, f.b.qp->qp_num);
	to_rts(f.a.qp, 12, 1);
	post_send(&f.a, 1, 64);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_RETRY_EXC_ERR);
	expect_no_wc(f.b.cq, 50);
	fx_close(&f);
}
END_TEST

/*
 * SEND_WITH_INV naming a key the responder cannot invalidate (no object,
 * or a region's): an invalid request NAK, as mlx5 answers it, so the
 * requester sees REM_INV_REQ_ERR and the receive completes in error too.
 * (rxe completes the receive in error but acknowledges the SEND.)
 */
START_TEST(t_send_with_inv_bad_key_nak)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	unsigned int i;
	struct ibv_wc wc;
	struct fx f;

	for (i = 0; i < 2; i++) {
		fx_open(&f, IBV_QPT_RC);
		fx_connect(&f);
		post_recv(&f.b, 6, f.b.buf, 4096);
		sge.addr = (uintptr_t)f.a.buf;
		sge.length = 64;
		sge.lkey = f.a.mr->lkey;
		wr.invalidate_rkey = i ? f.b.mr->rkey : 0x12345600;
		ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
		wait_wc(f.a.cq, &wc, 3000);
		ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);
		wait_wc(f.b.cq, &wc, 3000);
		ck_assert_uint_eq(wc.wr_id, 6);
		ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);
		fx_close(&f);
	}
}
END_TEST

/* ibv_req_notify_cq on a CQ made without a completion channel succeeds,
 * as on mlx5 and through the kernel, and changes nothing about polling. */
START_TEST(t_req_notify_without_channel)
{
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, IBV_QPT_RC);
	ck_assert_ptr_null(f.a.cq->channel);
	ck_assert_int_eq(ibv_req_notify_cq(f.a.cq, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(f.a.cq, 1), 0);
	fx_connect(&f);
	post_recv(&f.b, 7, f.b.buf, 64);
	ck_assert_int_eq(ibv_req_notify_cq(f.b.cq, 0), 0);
	post_send(&f.a, 1, 64);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	fx_close(&f);
}
END_TEST

/* ---- posting: what mlx5 refuses, and what it takes and fails later ---- */

/* A signaled SEND of 64 bytes from s with wr_id id: ibv_post_send's
 * result, errno and bad_wr checked against it. */
static int try_send(struct side *s, uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = 64, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad = NULL;
	int rc;

	errno = 0;
	rc = ibv_post_send(s->qp, &wr, &bad);
	if (rc) {
		ck_assert_int_eq(errno, rc);
		ck_assert_ptr_eq(bad, &wr);
	}
	return rc;
}

/*
 * mlx5 lets a QP post sends only once it has been in RTS since it was
 * made or last reset: before (RESET, INIT, RTR, and ERR reached from
 * those) ibv_post_send fails with ENOMEM, ibv_bind_mw too, and nothing
 * of it is ever sent. Once the QP has been in RTS it posts in every
 * state but RESET (ERR flushes).
 */
START_TEST(t_post_send_before_rts_enomem)
{
	struct ibv_mw_bind mb = { .wr_id = 3 };
	struct ibv_recv_wr rw = { .wr_id = 9 }, *rbad = NULL;
	struct ibv_mw *mw;
	uint32_t key;
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f, IBV_QPT_RC);
	mw = ibv_alloc_mw(f.pd, IBV_MW_TYPE_1);
	ck_assert_ptr_nonnull(mw);
	key = mw->rkey;
	/* RESET: no send, no bind; a receive is EINVAL (mlx5 too). */
	ck_assert_int_eq(try_send(&f.a, 1), ENOMEM);
	ck_assert_int_eq(ibv_bind_mw(f.a.qp, mw, &mb), ENOMEM);
	ck_assert_uint_eq(mw->rkey, key);
	ck_assert_int_eq(ibv_post_recv(f.a.qp, &rw, &rbad), EINVAL);
	to_init(f.a.qp);
	ck_assert_int_eq(try_send(&f.a, 2), ENOMEM);
	to_rtr(&f, f.a.qp, f.b.qp->qp_num);
	ck_assert_int_eq(try_send(&f.a, 3), ENOMEM);
	ck_assert_int_eq(ibv_bind_mw(f.a.qp, mw, &mb), ENOMEM);
	/* ERR without RTS before it: still nothing to post on. */
	to_state(f.a.qp, IBV_QPS_ERR);
	ck_assert_int_eq(try_send(&f.a, 4), ENOMEM);
	to_state(f.a.qp, IBV_QPS_RESET);
	/* Up: a send goes, and only it: nothing refused comes back. */
	to_init(f.a.qp);
	to_init(f.b.qp);
	to_rtr(&f, f.a.qp, f.b.qp->qp_num);
	to_rtr(&f, f.b.qp, f.a.qp->qp_num);
	to_rts(f.a.qp, 14, 7);
	to_rts(f.b.qp, 14, 7);
	post_recv(&f.b, 20, f.b.buf, 4096);
	ck_assert_int_eq(try_send(&f.a, 5), 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 5);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 20);
	expect_no_wc(f.a.cq, 50);
	expect_no_wc(f.b.cq, 0);
	/* ERR after RTS: posted and flushed. */
	to_state(f.a.qp, IBV_QPS_ERR);
	ck_assert_int_eq(try_send(&f.a, 6), 0);
	wait_wc(f.a.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(wc.wr_id, 6);
	/* RESET starts it over. */
	to_state(f.a.qp, IBV_QPS_RESET);
	ck_assert_int_eq(try_send(&f.a, 7), ENOMEM);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	fx_close(&f);
}
END_TEST

/* One fetch-and-add of 1 from a to the word at b.buf + 256 (which holds
 * 41), its result landing in the n SGEs given (offsets into a.buf and
 * lengths), posted with ibv_post_send or, with wr, ibv_wr_*; a.buf is
 * 0xee throughout before. The status it completes with. */
static enum ibv_wc_status atomic_into(struct fx *f, const uint32_t *off,
				      const uint32_t *len, unsigned int n,
				      bool wr)
{
	struct ibv_sge sge[2];
	struct ibv_send_wr w = {
		.wr_id = 1, .sg_list = sge, .num_sge = (int)n,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	uint64_t word = 41;
	struct ibv_qp_ex *x;
	struct ibv_wc wc;
	unsigned int i;

	fx_open(f, IBV_QPT_RC);
	fx_connect(f);
	memset(f->a.buf, 0xee, BUF_LEN);
	memcpy(f->b.buf + 256, &word, sizeof(word));
	for (i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)f->a.buf + off[i];
		sge[i].length = len[i];
		sge[i].lkey = f->a.mr->lkey;
	}
	if (!wr) {
		w.wr.atomic.remote_addr = (uintptr_t)f->b.buf + 256;
		w.wr.atomic.rkey = f->b.mr->rkey;
		w.wr.atomic.compare_add = 1;
		ck_assert_int_eq(ibv_post_send(f->a.qp, &w, &bad), 0);
	} else {
		x = ibv_qp_to_qp_ex(f->a.qp);
		ck_assert_ptr_nonnull(x);
		ibv_wr_start(x);
		x->wr_id = 1;
		x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_fetch_add(x, f->b.mr->rkey,
					(uintptr_t)f->b.buf + 256, 1);
		ibv_wr_set_sge_list(x, n, sge);
		ck_assert_int_eq(ibv_wr_complete(x), 0);
	}
	wait_wc(f->a.cq, &wc, 3000);
	ck_assert_uint_eq(wc.wr_id, 1);
	/* Whatever happened here, the responder did the add. */
	memcpy(&word, f->b.buf + 256, sizeof(word));
	ck_assert_uint_eq(word, 42);
	return wc.status;
}

/* The 8 bytes at a.buf + off hold the old value 41. */
static bool landed(const struct fx *f, uint32_t off)
{
	uint64_t v;

	memcpy(&v, f->a.buf + off, sizeof(v));
	return v == 41;
}

/*
 * An atomic's SGEs need not be 8 bytes. ibv_post_send takes them as mlx5
 * builds them, every non-empty one as an 8-byte segment, so the old value
 * lands in the first 8 bytes at its address whatever its length (those
 * bytes checked against its key); ibv_wr_* takes the lengths as given, as
 * mlx5's setters do. Where the list holds fewer than 8 bytes the answer
 * does not fit: LOC_LEN_ERR, the atomic having been executed.
 */
START_TEST(t_atomic_sge_not_8_bytes)
{
	static const uint32_t o1[] = { 64 }, o2[] = { 64, 128 };
	static const uint32_t l4[] = { 4 }, l16[] = { 16 }, l44[] = { 4, 4 };
	static const uint32_t oend[] = { BUF_LEN - 4 };
	struct fx f;

	/* ibv_post_send: 4 bytes become 8. */
	ck_assert_int_eq(atomic_into(&f, o1, l4, 1, false), IBV_WC_SUCCESS);
	ck_assert(landed(&f, 64));
	ck_assert_uint_eq(f.a.buf[72], 0xee);
	fx_close(&f);
	/* 16 bytes: the first 8. */
	ck_assert_int_eq(atomic_into(&f, o1, l16, 1, false), IBV_WC_SUCCESS);
	ck_assert(landed(&f, 64));
	ck_assert_uint_eq(f.a.buf[72], 0xee);
	fx_close(&f);
	/* 4 + 4: all 8 in the first. */
	ck_assert_int_eq(atomic_into(&f, o2, l44, 2, false), IBV_WC_SUCCESS);
	ck_assert(landed(&f, 64));
	ck_assert_uint_eq(f.a.buf[128], 0xee);
	fx_close(&f);
	/* 4 bytes at the region's end: the 8 would cross it. */
	ck_assert_int_eq(atomic_into(&f, oend, l4, 1, false),
			 IBV_WC_LOC_PROT_ERR);
	ck_assert_uint_eq(f.a.buf[BUF_LEN - 1], 0xee);
	fx_close(&f);
	/* No SGE at all: nowhere to put the answer. */
	ck_assert_int_eq(atomic_into(&f, o1, l4, 0, false),
			 IBV_WC_LOC_LEN_ERR);
	fx_close(&f);
	/* ibv_wr_*: 16 bytes take the 8, 4 bytes are too few. */
	ck_assert_int_eq(atomic_into(&f, o1, l16, 1, true), IBV_WC_SUCCESS);
	ck_assert(landed(&f, 64));
	ck_assert_uint_eq(f.a.buf[72], 0xee);
	fx_close(&f);
	ck_assert_int_eq(atomic_into(&f, o1, l4, 1, true), IBV_WC_LOC_LEN_ERR);
	fx_close(&f);
}
END_TEST

/*
 * RDMA and atomic requests posted on a UD QP: accepted, as mlx5 accepts
 * them, and completed with LOC_QP_OP_ERR, as rxe's requester completes an
 * opcode the transport does not have; the QP moves to ERR and flushes
 * what follows; nothing reaches the peer. The request's wr.rdma overlaps
 * wr.ud, so its address must not be taken for an AH.
 */
START_TEST(t_ud_rdma_atomic_loc_qp_op_err)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	unsigned int i;
	struct fx f;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		fx_open(&f, IBV_QPT_UD);
		ah = ud_up(&f, 0);
		post_recv(&f.b, 9, f.b.buf, 40 + 64);
		memset(&wr, 0, sizeof(wr));
		sge.addr = (uintptr_t)f.a.buf;
		sge.length = 8;
		sge.lkey = f.a.mr->lkey;
		wr.wr_id = 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = ops[i];
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = 0x10;
		wr.wr.rdma.rkey = f.b.mr->rkey;
		bad = NULL;
		ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
		wait_wc(f.a.cq, &wc, 3000);
		ck_assert_uint_eq(wc.wr_id, 1);
		ck_assert_int_eq(wc.status, IBV_WC_LOC_QP_OP_ERR);
		wr.wr_id = 2;
		wr.opcode = IBV_WR_SEND;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = f.b.qp->qp_num;
		wr.wr.ud.remote_qkey = UD_QKEY;
		ck_assert_int_eq(ibv_post_send(f.a.qp, &wr, &bad), 0);
		wait_wc(f.a.cq, &wc, 3000);
		ck_assert_uint_eq(wc.wr_id, 2);
		ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
		expect_no_wc(f.b.cq, 50);
		ck_assert_int_eq(ibv_destroy_ah(ah), 0);
		fx_close(&f);
	}
}
END_TEST

/*
 * A UD send larger than the port's MTU completes successfully and sends
 * nothing (IBTA C10-93.1.1, as rxe's requester does it): the peer's
 * receive waits for the next datagram that fits.
 */
START_TEST(t_ud_send_over_mtu_dropped)
{
	struct ibv_port_attr pa;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	uint32_t mtu;
	struct fx f;

	fx_open(&f, IBV_QPT_UD);
	ck_assert_int_eq(ibv_query_port(f.ctx, 1, &pa), 0);
	mtu = 128u << pa.active_mtu;
	ck_assert_uint_lt(mtu + 1, BUF_LEN);
	ah = ud_up(&f, 0);
	post_recv(&f.b, 4, f.b.buf, BUF_LEN);
	memset(f.a.buf, 0x5a, BUF_LEN);
	ud_send(&f, ah, 1, mtu + 1);
	expect_no_wc(f.b.cq, 100);
	ud_send(&f, ah, 2, mtu);
	wait_wc(f.b.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 4);
	ck_assert_uint_eq(wc.byte_len, 40 + mtu);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	fx_close(&f);
}
END_TEST

static Suite *qp_sem_suite(void)
{
	Suite *s = suite_create("qp_sem");
	TCase *tr = tcase_create("recv");
	TCase *tt = tcase_create("timeout");
	TCase *te = tcase_create("errors");
	TCase *tu = tcase_create("ud");
	TCase *tm = tcase_create("more");
	TCase *tp = tcase_create("post");

	tcase_add_test(tr, t_recv_posted_in_init_completes);
	tcase_add_test(tr, t_ud_recv_posted_in_init_completes);
	suite_add_tcase(s, tr);
	tcase_set_timeout(tt, 30);
	tcase_add_test(tt, t_dead_responder_retry_exc_err);
	suite_add_tcase(s, tt);
	tcase_add_test(te, t_bad_lkey_and_rkey_remote_first);
	tcase_add_test(te, t_unaligned_atomic_bad_lkey_rem_inv_req);
	tcase_add_test(te, t_atomic_bad_landing_executes);
	suite_add_tcase(s, te);
	tcase_add_test(tu, t_ud_grh_traffic_class);
	tcase_add_test(tu, t_ud_grh_traffic_class_held);
	tcase_add_test(tu, t_ud_recv_too_small_dropped);
	suite_add_tcase(s, tu);
	tcase_add_test(tm, t_rc_to_ud_qp_retry_exc_err);
	tcase_add_test(tm, t_send_with_inv_bad_key_nak);
	tcase_add_test(tm, t_req_notify_without_channel);
	suite_add_tcase(s, tm);
	tcase_add_test(tp, t_post_send_before_rts_enomem);
	tcase_add_test(tp, t_atomic_sge_not_8_bytes);
	tcase_add_test(tp, t_ud_rdma_atomic_loc_qp_op_err);
	tcase_add_test(tp, t_ud_send_over_mtu_dropped);
	suite_add_tcase(s, tp);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(qp_sem_suite());
}
