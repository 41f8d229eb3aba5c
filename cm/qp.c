/* cm/qp.c: the QPs, CQs and SRQs the RDMA CM makes for an id, and the QP
 * attributes each step of a connection gives them (rdma_init_qp_attr), as
 * Linux's CM computes them from the connection it set up. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include <emuverbs/gsi.h>
#include <rdma/rdma_verbs.h>

#include "cm/cm.h"
#include "cm/core.h"

#define CMA_MIN_RNR_TIMER 0	/* what Linux's CM sets: 655 ms */

static int init_attr(struct cma_id *c, struct ibv_qp_attr *a, int *mask)
{
	bool ud = cma_is_ud(c), uc = c->id.qp_type == IBV_QPT_UC;

	if (!c->port)
		return EINVAL;
	switch (a->qp_state) {
	case IBV_QPS_INIT:
		a->pkey_index = 0;
		a->port_num = c->port->num;
		*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (ud) {
			a->qkey = c->qkey;
			*mask |= IBV_QP_QKEY;
		} else {
			a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
			if (!uc)
				a->qp_access_flags |= IBV_ACCESS_REMOTE_READ |
						      IBV_ACCESS_REMOTE_ATOMIC;
			*mask |= IBV_QP_ACCESS_FLAGS;
		}
		return 0;
	case IBV_QPS_RTR:
		*mask = IBV_QP_STATE;
		if (ud)
			return 0;
		a->path_mtu = c->cm.mtu ? c->cm.mtu : c->port->mtu;
		a->dest_qp_num = c->cm.remote_qpn;
		/* The Starting PSN a side puts in its REQ or REP is the
		 * PSN it will receive at, Linux's cm.c: ib_send_cm_req()
		 * and ib_send_cm_rep() keep it as their rq_psn,
		 * cm_req_handler() and cm_rep_handler() take the peer's as
		 * their sq_psn. */
		a->rq_psn = c->cm.local_psn;
		memset(&a->ah_attr, 0, sizeof(a->ah_attr));
		a->ah_attr.is_global = 1;
		a->ah_attr.grh.dgid = c->path.dgid;
		a->ah_attr.grh.sgid_index = (uint8_t)c->sgid_index;
		a->ah_attr.grh.hop_limit = c->path.hop_limit;
		a->ah_attr.grh.traffic_class = c->tos;
		a->ah_attr.dlid = 0xffff;
		a->ah_attr.port_num = c->port->num;
		*mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			 IBV_QP_RQ_PSN;
		if (!uc) {
			a->max_dest_rd_atomic = c->resp_res;
			a->min_rnr_timer = CMA_MIN_RNR_TIMER;
			*mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				 IBV_QP_MIN_RNR_TIMER;
		}
		return 0;
	case IBV_QPS_RTS:
		a->sq_psn = ud ? 0 : c->cm.remote_psn;
		*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (ud || uc)
			return 0;
		a->timeout = c->cm.ack_timeout;
		a->retry_cnt = c->cm.retry_count;
		a->rnr_retry = c->cm.rnr_retry;
		a->max_rd_atomic = c->init_depth;
		*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC;
		return 0;
	default:
		return EINVAL;
	}
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	int err;

	if (!id || !qp_attr || !qp_attr_mask)
		return cm_refuse(EINVAL, "rdma_init_qp_attr: NULL argument");
	cm_lock();
	err = init_attr(to_cma(id), qp_attr, qp_attr_mask);
	cm_unlock();
	if (err)
		return cm_refuse(err, "rdma_init_qp_attr: state %d: id not "
				 "on a port, or no such step",
				 qp_attr->qp_state);
	return 0;
}

static int modify(struct cma_id *c, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };
	int mask, err;

	err = init_attr(c, &a, &mask);
	if (!err && ibv_modify_qp(c->id.qp, &a, mask))
		err = errno ? errno : EINVAL;
	if (err)
		cm_log("id %p: QP %u to state %d: %s", (void *)c,
		       c->id.qp->qp_num, s, strerror(err));
	return err;
}

/* Under the lock: the CM's RTR (and RTS) step; no QP, nothing to do. */
int cma_qp_rtr_rts(struct cma_id *c, bool rts)
{
	int err;

	if (!c->id.qp)
		return 0;
	err = modify(c, IBV_QPS_RTR);
	if (!err && rts)
		err = modify(c, IBV_QPS_RTS);
	return err;
}

void cma_qp_err(struct cma_id *c)
{
	/* By number, not through id.qp: this runs on the CM's thread, and the
	 * program may be destroying the QP right now (perftest calls
	 * ibv_destroy_qp itself), as a kernel's CM never has to fear. */
	if (c->id.qp && !cma_is_ud(c))
		emuverbs_qp_error(c->id.verbs, c->qpn);
}

static void destroy_cqs(struct rdma_cm_id *id)
{
	if (id->send_cq)
		ibv_destroy_cq(id->send_cq);
	if (id->send_cq_channel)
		ibv_destroy_comp_channel(id->send_cq_channel);
	if (id->recv_cq)
		ibv_destroy_cq(id->recv_cq);
	if (id->recv_cq_channel)
		ibv_destroy_comp_channel(id->recv_cq_channel);
	id->send_cq = id->recv_cq = NULL;
	id->send_cq_channel = id->recv_cq_channel = NULL;
}

/* rdma-core's: CQs with their own completion channels, for ids whose
 * program gave none (the rdma_verbs.h helpers wait on them). */
static int create_cqs(struct rdma_cm_id *id, uint32_t send, uint32_t recv)
{
	if (recv) {
		id->recv_cq_channel = ibv_create_comp_channel(id->verbs);
		if (!id->recv_cq_channel)
			goto fail;
		id->recv_cq = ibv_create_cq(id->verbs, (int)recv, id,
					    id->recv_cq_channel, 0);
		if (!id->recv_cq)
			goto fail;
	}
	if (send) {
		id->send_cq_channel = ibv_create_comp_channel(id->verbs);
		if (!id->send_cq_channel)
			goto fail;
		id->send_cq = ibv_create_cq(id->verbs, (int)send, id,
					    id->send_cq_channel, 0);
		if (!id->send_cq)
			goto fail;
	}
	return 0;
fail:
	destroy_cqs(id);
	return -1;
}

struct ibv_pd *cm_dev_pd(struct cm_dev *d)
{
	if (!d->pd)
		d->pd = ibv_alloc_pd(d->ctx);
	return d->pd;
}

static struct ibv_pd *default_pd(struct cma_id *c)
{
	struct cm_dev *d = c->port ? c->port->dev : NULL;

	if (!d)
		return NULL;
	if (!d->pd)
		d->pd = ibv_alloc_pd(d->ctx);
	return d->pd;
}

static struct ibv_xrcd *default_xrcd(struct cma_id *c)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct cm_dev *d = c->port ? c->port->dev : NULL;

	if (!d)
		return NULL;
	if (!d->xrcd)
		d->xrcd = ibv_open_xrcd(d->ctx, &xa);
	return d->xrcd;
}

static int ud_ready(struct cma_id *c)
{
	int err = modify(c, IBV_QPS_INIT);

	if (!err)
		err = modify(c, IBV_QPS_RTR);
	if (!err)
		err = modify(c, IBV_QPS_RTS);
	return err;
}

int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct cma_id *c;
	struct ibv_qp *qp;
	int err;

	if (!id || !attr)
		return cm_refuse(EINVAL, "rdma_create_qp_ex: NULL argument");
	c = to_cma(id);
	if (id->qp)
		return cm_refuse(EINVAL, "rdma_create_qp_ex: id has a QP");
	if (!id->verbs)
		return cm_refuse(EINVAL, "rdma_create_qp_ex: id not on a "
				 "device yet");
	cm_lock();
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
		attr->pd = id->pd ? id->pd : default_pd(c);
	} else if (attr->pd->context != id->verbs) {
		cm_unlock();
		return cm_refuse(EINVAL, "rdma_create_qp_ex: PD of another "
				 "device");
	}
	if (id->qp_type == IBV_QPT_XRC_RECV &&
	    (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd)) {
		attr->xrcd = default_xrcd(c);
		attr->comp_mask |= IBV_QP_INIT_ATTR_XRCD;
	}
	cm_unlock();
	if (!attr->pd ||
	    (id->qp_type == IBV_QPT_XRC_RECV && !attr->xrcd))
		return cm_err(errno ? errno : ENOMEM);
	if (create_cqs(id, attr->send_cq || id->send_cq ?
				   0 : attr->cap.max_send_wr,
		       attr->recv_cq || id->recv_cq ?
			       0 : attr->cap.max_recv_wr))
		return -1;
	if (!attr->send_cq)
		attr->send_cq = id->send_cq;
	if (!attr->recv_cq)
		attr->recv_cq = id->recv_cq;
	if (id->srq && !attr->srq)
		attr->srq = id->srq;
	qp = ibv_create_qp_ex(id->verbs, attr);
	if (!qp) {
		err = errno;
		destroy_cqs(id);
		return cm_err(err ? err : ENOMEM);
	}
	cm_lock();
	id->qp = qp;
	err = cma_is_ud(c) ? ud_ready(c) : modify(c, IBV_QPS_INIT);
	if (err)
		id->qp = NULL;
	else
		c->qpn = qp->qp_num;
	cm_unlock();
	if (err) {
		ibv_destroy_qp(qp);
		destroy_cqs(id);
		return cm_err(err);
	}
	id->pd = qp->pd;
	return 0;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ex;
	int ret;

	if (!id || !qp_init_attr)
		return cm_refuse(EINVAL, "rdma_create_qp: NULL argument");
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, qp_init_attr, sizeof(*qp_init_attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd ? pd : id->pd;
	ret = rdma_create_qp_ex(id, &ex);
	/* Only the capabilities go back, as in rdma-core: the CQs we made
	 * are the id's, and a program that reuses its attributes for the
	 * next id must not hand that id ours. */
	if (!ret)
		qp_init_attr->cap = ex.cap;
	return ret;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct ibv_qp *qp;

	if (!id)
		return;
	cm_lock();
	qp = id->qp;
	id->qp = NULL;
	cm_unlock();
	if (qp)
		ibv_destroy_qp(qp);
	destroy_cqs(id);
}

int rdma_create_srq_ex(struct rdma_cm_id *id,
		       struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq *srq;
	struct cma_id *c;

	if (!id || !attr)
		return cm_refuse(EINVAL, "rdma_create_srq_ex: NULL argument");
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE))
		return cm_refuse(EINVAL, "rdma_create_srq_ex: no SRQ type");
	if (!id->verbs)
		return cm_refuse(EINVAL, "rdma_create_srq_ex: id not on a "
				 "device yet");
	c = to_cma(id);
	cm_lock();
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = id->pd ? id->pd : default_pd(c);
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	}
	if (attr->srq_type == IBV_SRQT_XRC &&
	    (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd))
		attr->xrcd = default_xrcd(c);
	cm_unlock();
	if (!attr->pd || (attr->srq_type == IBV_SRQT_XRC && !attr->xrcd))
		return cm_err(errno ? errno : ENOMEM);
	if (attr->srq_type == IBV_SRQT_XRC) {
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq) {
			if (create_cqs(id, 0, attr->attr.max_wr))
				return -1;
			attr->cq = id->recv_cq;
		}
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_XRCD |
				   IBV_SRQ_INIT_ATTR_CQ;
	}
	srq = ibv_create_srq_ex(id->verbs, attr);
	if (!srq) {
		int err = errno;

		destroy_cqs(id);
		return cm_err(err ? err : ENOMEM);
	}
	if (!id->pd)
		id->pd = attr->pd;
	id->srq = srq;
	return 0;
}

int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		    struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex;
	int ret;

	if (!id || !attr)
		return cm_refuse(EINVAL, "rdma_create_srq: NULL argument");
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	ex.srq_type = id->qp_type == IBV_QPT_XRC_RECV ? IBV_SRQT_XRC :
							IBV_SRQT_BASIC;
	ex.pd = pd;
	ret = rdma_create_srq_ex(id, &ex);
	if (!ret)
		attr->attr = ex.attr;
	return ret;
}

void rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (!id || !id->srq)
		return;
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
	/* Only an XRC SRQ made CQs of its own (rdma_create_srq_ex). */
	if (id->qp_type == IBV_QPT_XRC_RECV)
		destroy_cqs(id);
}
