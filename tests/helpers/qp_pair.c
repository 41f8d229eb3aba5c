/* Bringing QPs up for the tests, and posting on them
 * (tests/helpers/qp_pair.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "tests/helpers/qp_pair.h"

/* What the two presets share. */
#define QP_CONN_BASE                                                      \
	.port = 1, .access = QP_ACCESS_ALL, .qkey = 0x11111111,           \
	.mtu = IBV_MTU_1024, .rd_atomic = 4, .min_rnr_timer = 1,          \
	.dest_rd_atomic = 4

const struct qp_conn qp_conn_default = {
	QP_CONN_BASE, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
};

const struct qp_conn qp_conn_fail_fast = {
	QP_CONN_BASE, .timeout = 12, .retry_cnt = 1, .rnr_retry = 1,
};

/* rc: ibv_modify_qp's answer (an errno); says which step failed. */
static int said(int rc, const char *step, const struct ibv_qp *qp)
{
	if (rc)
		fprintf(stderr, "qp_pair: %s of QP %#x: %s\n", step,
			qp ? qp->qp_num : 0, strerror(rc));
	return rc;
}

/* The responder's half of RC: XRC's target has it, its initiator not. */
static bool responds(const struct ibv_qp *qp)
{
	return qp->qp_type == IBV_QPT_RC || qp->qp_type == IBV_QPT_XRC_RECV;
}

/* The requester's half of RC. */
static bool requests(const struct ibv_qp *qp)
{
	return qp->qp_type == IBV_QPT_RC || qp->qp_type == IBV_QPT_XRC_SEND;
}

int qp_peer_of(struct ibv_qp *qp, const struct qp_conn *c,
	       struct qp_peer *out)
{
	memset(out, 0, sizeof(*out));
	out->qpn = qp->qp_num;
	out->psn = c->psn;
	return said(ibv_query_gid(qp->context, c->port, c->sgid_index,
				  &out->gid), "ibv_query_gid", qp);
}

int qp_to_init(struct ibv_qp *qp, const struct qp_conn *c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = c->port,
		.qp_access_flags = c->access,
		.qkey = c->qkey,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	return said(ibv_modify_qp(qp, &a, mask), "INIT", qp);
}

int qp_to_rtr(struct ibv_qp *qp, const struct qp_conn *c,
	      const struct qp_peer *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = c->mtu,
		.max_dest_rd_atomic = c->dest_rd_atomic,
		.min_rnr_timer = c->min_rnr_timer,
		.ah_attr = {
			.is_global = 1,
			.grh = { .sgid_index = c->sgid_index,
				 .hop_limit = 1 },
			.port_num = c->port,
		},
	};
	int mask = IBV_QP_STATE;

	if (qp->qp_type != IBV_QPT_UD) {
		if (!peer)
			return said(EINVAL, "RTR without a peer", qp);
		a.dest_qp_num = peer->qpn;
		a.rq_psn = peer->psn;
		a.ah_attr.grh.dgid = peer->gid;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	}
	if (responds(qp))
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	return said(ibv_modify_qp(qp, &a, mask), "RTR", qp);
}

int qp_to_rts(struct ibv_qp *qp, const struct qp_conn *c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = c->psn,
		.timeout = c->timeout,
		.retry_cnt = c->retry_cnt,
		.rnr_retry = c->rnr_retry,
		.max_rd_atomic = c->rd_atomic,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (requests(qp))
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	else if (qp->qp_type == IBV_QPT_XRC_RECV)
		mask |= IBV_QP_TIMEOUT;
	return said(ibv_modify_qp(qp, &a, mask), "RTS", qp);
}

int qp_connect(struct ibv_qp *qp, const struct qp_conn *c,
	       const struct qp_peer *peer)
{
	int rc = qp_to_init(qp, c);

	if (!rc)
		rc = qp_to_rtr(qp, c, peer);
	if (!rc)
		rc = qp_to_rts(qp, c);
	return rc;
}

int qp_connect_pair(struct ibv_qp *a, struct ibv_qp *b,
		    const struct qp_conn *c)
{
	struct qp_peer pa, pb;
	int rc;

	rc = qp_peer_of(a, c, &pa);
	if (!rc)
		rc = qp_peer_of(b, c, &pb);
	if (!rc)
		rc = qp_connect(a, c, &pb);
	if (!rc && b != a)
		rc = qp_connect(b, c, &pa);
	return rc;
}

struct ibv_qp *qp_create(struct ibv_pd *pd, struct ibv_cq *cq,
			 struct ibv_srq *srq, enum ibv_qp_type type,
			 const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = *cap,
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		said(errno ? errno : EINVAL, "ibv_create_qp", NULL);
	return qp;
}

/* UD: an AH on pd at c's port towards peer's GID. */
static int make_ah(struct ibv_pd *pd, const struct qp_conn *c,
		   const struct qp_peer *peer, struct ibv_ah **ah)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = c->port,
		.grh = { .dgid = peer->gid, .sgid_index = c->sgid_index,
			 .hop_limit = 1 },
	};

	*ah = ibv_create_ah(pd, &aa);
	return *ah ? 0 : said(errno ? errno : EINVAL, "ibv_create_ah", NULL);
}

int qp_pair_open_across(struct qp_pair *p, struct ibv_context *ctx[2],
			struct ibv_pd *pd[2], const struct qp_pair_opts *o)
{
	static const struct qp_pair_opts none;
	static const struct ibv_qp_cap dflt_cap = {
		.max_send_wr = 32, .max_recv_wr = 32,
		.max_send_sge = 2, .max_recv_sge = 2,
	};
	const struct qp_conn *c;
	struct ibv_qp_cap cap;
	struct qp_peer peer[2];
	int i, rc = 0;

	if (!o)
		o = &none;
	c = o->conn ? o->conn : &qp_conn_default;
	memset(p, 0, sizeof(*p));
	p->ctx = ctx[0];
	p->pd = pd[0];
	p->qkey = c->qkey;
	cap = o->cap;
	if (!cap.max_send_wr && !cap.max_recv_wr && !cap.max_send_sge &&
	    !cap.max_recv_sge && !cap.max_inline_data)
		cap = dflt_cap;
	for (i = 0; i < 2; i++) {
		p->cq[i] = o->cq[i];
		if (!p->cq[i]) {
			p->cq[i] = ibv_create_cq(ctx[i], 64, NULL, NULL, 0);
			if (!p->cq[i])
				return said(errno ? errno : ENOMEM,
					    "ibv_create_cq", NULL);
			p->made_cq[i] = true;
		}
		p->qp[i] = qp_create(pd[i], p->cq[i], o->srq[i],
				     o->type ? o->type : IBV_QPT_RC, &cap);
		if (!p->qp[i])
			return errno ? errno : EINVAL;
	}
	rc = qp_connect_pair(p->qp[0], p->qp[1], c);
	if (rc || p->qp[0]->qp_type != IBV_QPT_UD)
		return rc;
	for (i = 0; i < 2 && !rc; i++)
		rc = qp_peer_of(p->qp[i], c, &peer[i]);
	for (i = 0; i < 2 && !rc; i++)
		rc = make_ah(pd[i], c, &peer[1 - i], &p->ah[i]);
	return rc;
}

int qp_pair_open(struct qp_pair *p, struct ibv_context *ctx,
		 struct ibv_pd *pd, const struct qp_pair_opts *o)
{
	struct ibv_context *ctxs[2] = { ctx, ctx };
	struct ibv_pd *pds[2] = { pd, pd };

	return qp_pair_open_across(p, ctxs, pds, o);
}

int qp_pair_close(struct qp_pair *p)
{
	int i, rc = 0;

	for (i = 0; i < 2; i++) {
		if (p->ah[i] && !rc)
			rc = said(ibv_destroy_ah(p->ah[i]), "ibv_destroy_ah",
				  NULL);
		if (p->qp[i] && !rc)
			rc = said(ibv_destroy_qp(p->qp[i]), "ibv_destroy_qp",
				  p->qp[i]);
		if (p->made_cq[i] && !rc)
			rc = said(ibv_destroy_cq(p->cq[i]), "ibv_destroy_cq",
				  NULL);
	}
	memset(p, 0, sizeof(*p));
	return rc;
}

int qp_post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id,
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

int qp_recv(struct ibv_qp *qp, uint64_t id, void *addr, uint32_t len,
	    uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	return ibv_post_recv(qp, &wr, &bad);
}
