/* Unit tests for the requester's ACK requests (emu/transport/req.c) against a small
 * port budget, as a user without CAP_NET_ADMIN gets on a stock kernel (24
 * credits): long messages, on one QP and on QPs that share the budget,
 * must ask for ACKs early enough that credits return before they run out,
 * not after an ACK timeout per budget's worth of packets. */
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/transport/budget.h"
#include "emu/device/device.h"
#include "emu/transport/transport.h"
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define MSG_LEN	(1u << 20)	/* 1024 packets at the pair's 1 KiB MTU */
#define PAIRS	3

static struct emu_budget *budget;
static uint32_t budget_total;

static void shrink(void *arg)
{
	(void)arg;
	emu_budget_init(budget, budget_total);
}

/* Give port 1 of ctx a budget of total credits; nothing may be in flight. */
static void set_budget(struct ibv_context *ctx, uint32_t total)
{
	struct emu_device *dev = emu_ctx(ctx)->dev;

	budget = &emu_transport_of(dev)->ports[0].budget;
	budget_total = total;
	emu_device_run(dev, shrink, NULL);
}

/*
 * npairs pairs each WRITE 1 MiB at once through a 24-credit budget. The
 * pairs' QPs wait 16.8 ms for an ACK: asking for one every 64 packets,
 * as long messages did, cost a timeout every 24 packets (42 timeouts on
 * one QP, 250 on three, seconds for what takes milliseconds). A loaded
 * machine may still miss an ACK deadline now and then, hence the margin
 * of two.
 */
static const struct qp_pair_opts acked = { .conn = &qp_conn_fail_fast };

static void long_writes(unsigned int npairs)
{
	struct qp_pair p[PAIRS];
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint8_t *buf;
	unsigned int i;

	ck_assert_ptr_nonnull(ctx);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	buf = calloc(2 * npairs, MSG_LEN);
	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < npairs * MSG_LEN; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	mr = ibv_reg_mr(pd, buf, 2ul * npairs * MSG_LEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(mr);
	for (i = 0; i < npairs; i++)
		ck_assert_int_eq(qp_pair_open(&p[i], ctx, pd, &acked), 0);
	set_budget(ctx, 24);
	for (i = 0; i < npairs; i++) {
		uint8_t *src = buf + (size_t)i * MSG_LEN;
		uint8_t *dst = buf + (size_t)(npairs + i) * MSG_LEN;

		ck_assert_int_eq(qp_post(p[i].qp[0], IBV_WR_RDMA_WRITE, i, src,
					 MSG_LEN, mr->lkey, (uintptr_t)dst,
					 mr->rkey), 0);
	}
	for (i = 0; i < npairs; i++) {
		wait_wc(p[i].cq[0], &wc, 20000);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS, "pair %u: %s", i,
			      ibv_wc_status_str(wc.status));
	}
	ck_assert_int_eq(memcmp(buf, buf + (size_t)npairs * MSG_LEN,
				(size_t)npairs * MSG_LEN), 0);
	ck_assert_uint_le(port_counter(ctx, "local_ack_timeout_err"), 2);
	for (i = 0; i < npairs; i++)
		ck_assert_int_eq(qp_pair_close(&p[i]), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(buf);
}

/*
 * A QP that waits for room is resumed by the engine's prepare watcher,
 * and a thread that frees room from outside the engine (a poller that
 * took the ACK) must wake it even when the watcher is on already: it did
 * not, and the engine slept until a timer of its own woke it (ib_write_bw
 * between two processes through 24 credits: 1.5 to 175 MB/s, now 720 to
 * 830). The requester's device here hears only ACKs, all taken by this
 * thread's polls, as in a process of its own; the responder's engine
 * works alone. In one process the engine's other timers cut each stall
 * short (4 MiB took 67 to 72 ms, now 12 to 22), so what this asserts is
 * that the transfer is not left waiting, with a hang's deadline.
 */
START_TEST(t_resumed_from_outside)
{
	struct ibv_context *ctx[2];
	struct ibv_mr *mr[2];
	struct ibv_pd *pd[2];
	uint8_t *buf[2];
	struct qp_pair p;
	struct ibv_wc wc;
	double t0, took;
	unsigned int i, n;

	emu_test_write_config("[device emua]\n[device emub]\n");
	for (i = 0; i < 2; i++) {
		ctx[i] = open_named(i ? "emub" : "emua");
		pd[i] = ibv_alloc_pd(ctx[i]);
		ck_assert_ptr_nonnull(pd[i]);
		buf[i] = calloc(1, MSG_LEN);
		ck_assert_ptr_nonnull(buf[i]);
		mr[i] = ibv_reg_mr(pd[i], buf[i], MSG_LEN,
				   IBV_ACCESS_LOCAL_WRITE |
					   IBV_ACCESS_REMOTE_WRITE);
		ck_assert_ptr_nonnull(mr[i]);
	}
	ck_assert_int_eq(qp_pair_open_across(&p, ctx, pd, &acked), 0);
	set_budget(ctx[0], 24);
	t0 = now_ms();
	for (i = 0; i < 64; i++) {
		size_t off = (size_t)(i % 16) * 65536;

		/* Two rounds of 32, the send queue's depth. */
		ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_RDMA_WRITE, i,
					 buf[0] + off, 65536, mr[0]->lkey,
					 (uintptr_t)buf[1] + off,
					 mr[1]->rkey), 0);
		if (i % 32 != 31)
			continue;
		for (n = 0; n < 32; n++) {
			wait_wc(p.cq[0], &wc, 20000);
			ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		}
	}
	took = now_ms() - t0;
	ck_assert_msg(took < 1000 * emu_test_slack(), "64 x 64 KiB took %.0f ms", took);
	ck_assert_int_eq(qp_pair_close(&p), 0);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(ibv_dereg_mr(mr[i]), 0);
		ck_assert_int_eq(ibv_dealloc_pd(pd[i]), 0);
		ck_assert_int_eq(ibv_close_device(ctx[i]), 0);
		free(buf[i]);
	}
}
END_TEST

START_TEST(t_one_qp)
{
	long_writes(1);
}
END_TEST

START_TEST(t_shared_budget)
{
	long_writes(PAIRS);
}
END_TEST

static Suite *ackreq_suite(void)
{
	Suite *s = suite_create("ackreq");
	TCase *tc = tcase_create("small budget");

	tcase_add_test(tc, t_one_qp);
	tcase_add_test(tc, t_shared_budget);
	tcase_add_test(tc, t_resumed_from_outside);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(ackreq_suite());
}
