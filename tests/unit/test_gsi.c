/* tests/unit/test_gsi.c: a port's QP1 (include/emuverbs/gsi.h) through the
 * public API: it is numbered 1, one per port, UD with the GSI Q_Key only,
 * and it receives what is sent to QP 1 at the port and sends from QP 1.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "emuverbs/gsi.h"
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define BUF 4096
#define MAD 256
#define UD_QKEY 0x11111111u

struct fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
};

static void fx_open(struct fx *f)
{
	f->ctx = open_default();
	f->pd = ibv_alloc_pd(f->ctx);
	f->cq = ibv_create_cq(f->ctx, 64, NULL, NULL, 0);
	f->buf = calloc(1, BUF);
	ck_assert_ptr_nonnull(f->pd);
	ck_assert_ptr_nonnull(f->cq);
	ck_assert_ptr_nonnull(f->buf);
	f->mr = ibv_reg_mr(f->pd, f->buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(f->mr);
	ck_assert_int_eq(ibv_query_gid(f->ctx, 1, 0, &f->gid), 0);
}

static void fx_close(struct fx *f)
{
	ibv_dereg_mr(f->mr);
	ibv_destroy_cq(f->cq);
	ibv_dealloc_pd(f->pd);
	ibv_close_device(f->ctx);
	free(f->buf);
}

static struct ibv_qp_init_attr ud_attr(struct fx *f)
{
	struct ibv_qp_init_attr a = {
		.send_cq = f->cq,
		.recv_cq = f->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};

	return a;
}

/* RESET -> RTS with Q_Key qkey: 0 or ibv_modify_qp's errno. */
static int to_rts(struct ibv_qp *qp, uint32_t qkey)
{
	struct qp_conn c = qp_conn_default;

	c.qkey = qkey;
	return qp_connect(qp, &c, NULL);
}

static void post_recv(struct fx *f, struct ibv_qp *qp, uint32_t off)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->buf + off,
		.length = 40 + MAD,
		.lkey = f->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = off, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
}

static void send_to(struct fx *f, struct ibv_qp *qp, struct ibv_ah *ah,
		    uint32_t qpn, uint32_t qkey, uint8_t fill)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->buf + 3072,
		.length = MAD,
		.lkey = f->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 7,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	memset(f->buf + 3072, fill, MAD);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}

START_TEST(t_gsi_create_rules)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *gsi, *again;
	struct fx f;

	fx_open(&f);
	a = ud_attr(&f);
	gsi = emuverbs_create_gsi_qp(f.pd, &a, 1);
	ck_assert_ptr_nonnull(gsi);
	ck_assert_uint_eq(gsi->qp_num, 1);
	/* One per port. */
	errno = 0;
	ck_assert_ptr_null(emuverbs_create_gsi_qp(f.pd, &a, 1));
	ck_assert_int_eq(errno, EBUSY);
	/* No such port; not UD; no arguments. */
	ck_assert_ptr_null(emuverbs_create_gsi_qp(f.pd, &a, 2));
	ck_assert_int_eq(errno, EINVAL);
	a.qp_type = IBV_QPT_RC;
	ck_assert_ptr_null(emuverbs_create_gsi_qp(f.pd, &a, 1));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(emuverbs_create_gsi_qp(NULL, &a, 1));
	ck_assert_int_eq(errno, EINVAL);
	/* Only its own port, only the GSI Q_Key. */
	ck_assert_int_eq(to_rts(gsi, UD_QKEY), EINVAL);
	ck_assert_int_eq(to_rts(gsi, EMUVERBS_GSI_QKEY), 0);
	/* Gone, it can be made again. */
	ck_assert_int_eq(ibv_destroy_qp(gsi), 0);
	a = ud_attr(&f);
	again = emuverbs_create_gsi_qp(f.pd, &a, 1);
	ck_assert_ptr_nonnull(again);
	ck_assert_uint_eq(again->qp_num, 1);
	ck_assert_int_eq(ibv_destroy_qp(again), 0);
	fx_close(&f);
}
END_TEST

/* QP1 hears what is sent to QP 1 with the GSI Q_Key and answers from QP 1.
 * An ordinary QP cannot reach it: the GSI Q_Key is a controlled one (high
 * bit set), which a send replaces with the sending QP's own (IBTA 10.2.4),
 * so only another QP1 can send with it. */
START_TEST(t_gsi_traffic)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .hop_limit = 1 },
	};
	struct ibv_qp_init_attr a;
	struct ibv_qp *gsi, *ud;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct fx f;

	fx_open(&f);
	a = ud_attr(&f);
	gsi = emuverbs_create_gsi_qp(f.pd, &a, 1);
	a = ud_attr(&f);
	ud = ibv_create_qp(f.pd, &a);
	ck_assert_ptr_nonnull(gsi);
	ck_assert_ptr_nonnull(ud);
	ck_assert_int_eq(to_rts(gsi, EMUVERBS_GSI_QKEY), 0);
	ck_assert_int_eq(to_rts(ud, UD_QKEY), 0);
	aa.grh.dgid = f.gid;
	ah = ibv_create_ah(f.pd, &aa);
	ck_assert_ptr_nonnull(ah);

	post_recv(&f, gsi, 0);
	post_recv(&f, ud, 1024);
	/* From an ordinary QP, with its own Q_Key or asking for the GSI's:
	 * dropped both times, nothing completes on QP1. */
	send_to(&f, ud, ah, 1, UD_QKEY, 0x11);
	wait_wc(f.cq, &wc, 2000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.qp_num, ud->qp_num);
	send_to(&f, ud, ah, 1, EMUVERBS_GSI_QKEY, 0x22);
	wait_wc(f.cq, &wc, 2000);
	ck_assert_uint_eq(wc.qp_num, ud->qp_num);
	expect_no_wc(f.cq, 200);

	/* From QP1 to QP 1 at the same port (a MAD to itself). */
	send_to(&f, gsi, ah, 1, EMUVERBS_GSI_QKEY, 0x5a);
	wait_wc(f.cq, &wc, 2000);	/* the send */
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert(!(wc.opcode & IBV_WC_RECV));
	wait_wc(f.cq, &wc, 2000);	/* the receive */
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert(wc.opcode & IBV_WC_RECV);
	ck_assert_uint_eq(wc.qp_num, 1);
	ck_assert_uint_eq(wc.src_qp, 1);
	ck_assert_uint_eq(wc.byte_len, 40 + MAD);
	ck_assert(wc.wc_flags & IBV_WC_GRH);
	ck_assert_uint_eq(f.buf[40], 0x5a);
	ck_assert_uint_eq(f.buf[40 + MAD - 1], 0x5a);

	/* From QP1 to an ordinary QP, with that QP's Q_Key. */
	send_to(&f, gsi, ah, ud->qp_num, UD_QKEY, 0xa5);
	wait_wc(f.cq, &wc, 2000);
	ck_assert_uint_eq(wc.qp_num, 1);
	wait_wc(f.cq, &wc, 2000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.qp_num, ud->qp_num);
	ck_assert_uint_eq(wc.src_qp, 1);
	ck_assert_uint_eq(f.buf[1024 + 40], 0xa5);

	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_qp(ud), 0);
	ck_assert_int_eq(ibv_destroy_qp(gsi), 0);
	fx_close(&f);
}
END_TEST

/* A connection's end moves its QP to ERR by number (what librdmacm's
 * thread does on a DREQ): found while it lives, ENOENT once destroyed. */
static const struct ibv_qp_cap rc_cap = {
	.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
	.max_recv_sge = 1,
};

START_TEST(t_qp_error_by_number)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	struct ibv_qp *qp;
	uint32_t qpn;
	struct fx f;

	fx_open(&f);
	qp = qp_create(f.pd, f.cq, NULL, IBV_QPT_RC, &rc_cap);
	ck_assert_ptr_nonnull(qp);
	ck_assert_int_eq(qp_to_init(qp, &qp_conn_default), 0);
	qpn = qp->qp_num;
	ck_assert_int_eq(emuverbs_qp_error(f.ctx, qpn), 0);
	ck_assert_int_eq(ibv_query_qp(qp, &attr, IBV_QP_STATE, &init), 0);
	ck_assert_int_eq(attr.qp_state, IBV_QPS_ERR);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(emuverbs_qp_error(f.ctx, qpn), ENOENT);
	ck_assert_int_eq(emuverbs_qp_error(NULL, qpn), EINVAL);
	fx_close(&f);
}
END_TEST

struct hammer {
	struct ibv_context *ctx;
	_Atomic uint32_t qpn;
	atomic_bool stop;
};

static void *hammer_main(void *arg)
{
	struct hammer *h = arg;

	while (!atomic_load(&h->stop))
		emuverbs_qp_error(h->ctx, atomic_load(&h->qpn));
	return NULL;
}

/* The same while another thread destroys the QPs it names: never a QP's
 * memory after ibv_destroy_qp (ASan sees it if it were). */
START_TEST(t_qp_error_races_destroy)
{
	struct hammer h;
	pthread_t t;
	struct fx f;
	int n;

	fx_open(&f);
	h.ctx = f.ctx;
	atomic_init(&h.qpn, 0);
	atomic_init(&h.stop, false);
	ck_assert_int_eq(pthread_create(&t, NULL, hammer_main, &h), 0);
	for (n = 0; n < 200; n++) {
		struct ibv_qp *qp = qp_create(f.pd, f.cq, NULL, IBV_QPT_RC,
					      &rc_cap);

		ck_assert_ptr_nonnull(qp);
		ck_assert_int_eq(qp_to_init(qp, &qp_conn_default), 0);
		atomic_store(&h.qpn, qp->qp_num);
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	}
	atomic_store(&h.stop, true);
	pthread_join(t, NULL);
	fx_close(&f);
}
END_TEST

static Suite *gsi_suite(void)
{
	Suite *s = suite_create("gsi");
	TCase *tc = tcase_create("gsi");

	tcase_add_test(tc, t_gsi_create_rules);
	tcase_add_test(tc, t_gsi_traffic);
	tcase_add_test(tc, t_qp_error_by_number);
	tcase_add_test(tc, t_qp_error_races_destroy);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(gsi_suite());
}
