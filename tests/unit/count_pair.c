/* Two connected RC QPs on one port for the tests that count their traffic
 * (tests/unit/count_pair.h). */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/unit/count_pair.h"
#include "tests/unit/verbs_fixture.h"

#define ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ)

static struct ibv_qp *make(struct count_pair *p)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = p->cq, .recv_cq = p->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct ibv_qp *qp = ibv_create_qp(p->pd, &ia);

	ck_assert_ptr_nonnull(qp);
	return qp;
}

static void connect(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = ACCESS,
	};

	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE |
				       IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				       IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY |
				       IBV_QP_MAX_QP_RD_ATOMIC), 0);
}

void count_pair_open(struct count_pair *p)
{
	union ibv_gid gid;

	memset(p, 0, sizeof(*p));
	p->ctx = open_default();
	p->pd = ibv_alloc_pd(p->ctx);
	ck_assert_ptr_nonnull(p->pd);
	p->cq = ibv_create_cq(p->ctx, 256, NULL, NULL, 0);
	ck_assert_ptr_nonnull(p->cq);
	p->buf = calloc(1, COUNT_PAIR_BUF);
	ck_assert_ptr_nonnull(p->buf);
	p->mr = ibv_reg_mr(p->pd, p->buf, COUNT_PAIR_BUF, ACCESS);
	ck_assert_ptr_nonnull(p->mr);
	p->a = make(p);
	p->b = make(p);
	ck_assert_int_eq(ibv_query_gid(p->ctx, 1, 0, &gid), 0);
	connect(p->a, p->b->qp_num, &gid);
	connect(p->b, p->a->qp_num, &gid);
}

void count_pair_send(struct count_pair *p, uint32_t len, unsigned int n)
{
	struct ibv_sge rs = {
		.addr = (uintptr_t)p->buf + COUNT_PAIR_BUF / 2,
		.length = COUNT_PAIR_BUF / 2, .lkey = p->mr->lkey,
	};
	struct ibv_sge ss = {
		.addr = (uintptr_t)p->buf, .length = len, .lkey = p->mr->lkey,
	};
	struct ibv_recv_wr rw = { .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct ibv_send_wr sw = {
		.sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
	}, *sbad;
	struct ibv_wc wc;
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		ck_assert_int_eq(ibv_post_recv(p->b, &rw, &rbad), 0);
		ck_assert_int_eq(ibv_post_send(p->a, &sw, &sbad), 0);
		for (k = 0; k < 2; k++) {
			wait_wc(p->cq, &wc, 5000);
			ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		}
	}
}

void count_pair_close(struct count_pair *p)
{
	ck_assert_int_eq(ibv_destroy_qp(p->a), 0);
	ck_assert_int_eq(ibv_destroy_qp(p->b), 0);
	ck_assert_int_eq(ibv_dereg_mr(p->mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(p->cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(p->pd), 0);
	ck_assert_int_eq(ibv_close_device(p->ctx), 0);
	free(p->buf);
}
