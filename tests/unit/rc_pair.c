/* Shared by the unit tests of ODP, device memory, parent domains, CQ
 * timestamps and imports: a connected pair of QPs of one context, and
 * posting one request or receive on them. */
#include <string.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "tests/unit/rc_pair.h"

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			      enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = 32,
			.max_recv_wr = 32,
			.max_send_sge = 2,
			.max_recv_sge = 2,
		},
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	ck_assert_ptr_nonnull(qp);
	return qp;
}

/* RESET -> INIT -> RTR -> RTS towards dest at gid. A 4 ms timeout and one
 * retry: the failure tests end in milliseconds, not seconds. */
static void bring_up(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = RC_PAIR_ACCESS,
	};
	int rc_only = qp->qp_type == IBV_QPT_RC;

	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE |
				       IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN |
				       (rc_only ? IBV_QP_MAX_DEST_RD_ATOMIC |
					IBV_QP_MIN_RNR_TIMER : 0)), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 12;
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.max_rd_atomic = 4;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				       (rc_only ? IBV_QP_TIMEOUT |
					IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					IBV_QP_MAX_QP_RD_ATOMIC : 0)), 0);
}

void rc_pair_open(struct rc_pair *p, struct ibv_context *ctx,
		  struct ibv_pd *pd, enum ibv_qp_type type)
{
	struct ibv_context *ctxs[2] = { ctx, ctx };
	struct ibv_pd *pds[2] = { pd, pd };

	rc_pair_open_across(p, ctxs, pds, type);
}

void rc_pair_open_across(struct rc_pair *p, struct ibv_context *ctx[2],
			 struct ibv_pd *pd[2], enum ibv_qp_type type)
{
	union ibv_gid gid[2];
	int i;

	p->ctx = ctx[0];
	p->pd = pd[0];
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(ibv_query_gid(ctx[i], 1, 0, &gid[i]), 0);
		if (!p->cq[i]) {
			p->cq[i] = ibv_create_cq(ctx[i], 64, NULL, NULL, 0);
			ck_assert_ptr_nonnull(p->cq[i]);
		}
		p->qp[i] = make_qp(pd[i], p->cq[i], type);
	}
	bring_up(p->qp[0], p->qp[1]->qp_num, &gid[1]);
	bring_up(p->qp[1], p->qp[0]->qp_num, &gid[0]);
}

void rc_pair_close(struct rc_pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(ibv_destroy_qp(p->qp[i]), 0);
		ck_assert_int_eq(ibv_destroy_cq(p->cq[i]), 0);
		p->qp[i] = NULL;
		p->cq[i] = NULL;
	}
}

int rc_post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id,
	    void *addr, uint32_t len, uint32_t lkey, uint64_t raddr,
	    uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad = NULL;

	if (op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = op == IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.swap = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(qp, &wr, &bad);
}

void rc_recv(struct ibv_qp *qp, uint64_t id, void *addr, uint32_t len,
	     uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
}
