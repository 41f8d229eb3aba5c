/* Modify and query of a QP: the attributes a modify sets, the state
 * transition it makes on the engine (RESET's discard, ERR, SQD's drain,
 * RTS starting the requester), the path (port, MTU, addresses) it
 * resolves, and what ibv_query_qp reports. The rules of which attributes
 * a transition takes are in qp_attr.c. */
#include <string.h>

#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/base/log.h"
#include "emu/objects/names.h"
#include "emu/objects/qp.h"
#include "emu/objects/qp_int.h"
#include "emu/device/subnet.h"
#include "emu/objects/qp_attr.h"
#include "emu/device/observer.h"
#include "emu/objects/xport.h"
#include "net/hdr.h"
#include "net/psn.h"

static void set_path(struct emu_qp *qp)
{
	uint32_t port = qp->attr.port_num;
	uint32_t mtu;

	if (qp->type != IBV_QPT_UD && qp->attr.ah_attr.port_num)
		port = qp->attr.ah_attr.port_num;
	if (port < 1 || port > qp->dev->nports)
		port = 1;
	qp->tp = emu_xport->port(qp->dev, port, &qp->port_cnt);
	if (qp->type == IBV_QPT_UD) {
		qp->mtu = qp->dev->ports[port - 1].cfg.mtu;
	} else {
		mtu = wire_mtu_to_bytes(qp->attr.path_mtu);
		if (!mtu || mtu > qp->dev->ports[port - 1].cfg.mtu)
			mtu = qp->dev->ports[port - 1].cfg.mtu;
		qp->mtu = mtu;
	}
	if (qp->type != IBV_QPT_UD &&
	    qp->dev->ports[port - 1].cfg.link_layer ==
	    IBV_LINK_LAYER_INFINIBAND) {
		/* Where the subnet routes the path (looked up again at
		 * send time while it is not known). */
		emu_subnet_path(&qp->dev->ports[port - 1], &qp->attr.ah_attr,
				&qp->dest, &qp->src, true);
	} else if (qp->type != IBV_QPT_UD) {
		struct ibv_gid_entry e;

		memcpy(&qp->dest, qp->attr.ah_attr.grh.dgid.raw,
		       sizeof(qp->dest));
		/* Resolved once, as the destination is: the address the
		 * path's source GID stands for. */
		if (emu_gid_table_query(&qp->dev->ports[port - 1].gids,
					qp->attr.ah_attr.grh.sgid_index, &e))
			memset(&qp->src, 0, sizeof(qp->src));
		else
			memcpy(&qp->src, e.gid.raw, sizeof(qp->src));
	}
}

static void do_modify(void *p)
{
	struct qp_call *c = p;
	struct emu_qp *qp = c->qp;
	struct ibv_qp_attr *a = c->attr;
	int m = c->mask;
	enum ibv_qp_state cur = emu_qp_state(qp);
	enum ibv_qp_state next = (m & IBV_QP_STATE) ? a->qp_state : cur;

	if (m & IBV_QP_PKEY_INDEX)
		qp->attr.pkey_index = a->pkey_index;
	if (m & IBV_QP_PORT)
		qp->attr.port_num = a->port_num;
	if (m & IBV_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = a->qp_access_flags;
	if (m & IBV_QP_QKEY)
		qp->attr.qkey = a->qkey;
	if (m & IBV_QP_AV) {
		qp->attr.ah_attr = a->ah_attr;
		/* The 20 bits a GRH has room for, as mlx5 reports them back
		 * (UCX passes 0xffffffff). */
		qp->attr.ah_attr.grh.flow_label &= IB_GRH_FLOWLABEL_MASK;
	}
	if (m & IBV_QP_PATH_MTU)
		qp->attr.path_mtu = a->path_mtu;
	if (m & IBV_QP_TIMEOUT)
		qp->attr.timeout = a->timeout;
	if (m & IBV_QP_RETRY_CNT) {
		qp->attr.retry_cnt = a->retry_cnt;
		qp->comp.retry_left = a->retry_cnt;
	}
	if (m & IBV_QP_RNR_RETRY) {
		qp->attr.rnr_retry = a->rnr_retry;
		qp->comp.rnr_left = a->rnr_retry;
	}
	if (m & IBV_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = a->min_rnr_timer;
	if (m & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = a->max_rd_atomic;
	if (m & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (m & IBV_QP_DEST_QPN)
		qp->attr.dest_qp_num = a->dest_qp_num & WIRE_QPN_MASK;
	if (m & IBV_QP_ALT_PATH) {
		qp->attr.alt_ah_attr = a->alt_ah_attr;
		qp->attr.alt_pkey_index = a->alt_pkey_index;
		qp->attr.alt_port_num = a->alt_port_num;
		qp->attr.alt_timeout = a->alt_timeout;
	}
	if (m & IBV_QP_PATH_MIG_STATE)
		qp->attr.path_mig_state = a->path_mig_state;
	if (m & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		qp->attr.en_sqd_async_notify = a->en_sqd_async_notify;

	if (next == IBV_QPS_RESET) {
		emu_qp_reset_engines(qp);
		emu_qp_empty_queues(qp);
		emu_qp_clean_cqs(qp);
	}
	if (m & (IBV_QP_PORT | IBV_QP_AV | IBV_QP_PATH_MTU) ||
	    next == IBV_QPS_INIT)
		set_path(qp);
	if (m & IBV_QP_RQ_PSN) {
		qp->attr.rq_psn = a->rq_psn & PSN_MASK;
		qp->resp.psn = qp->attr.rq_psn;
	}
	if (m & IBV_QP_SQ_PSN) {
		qp->attr.sq_psn = a->sq_psn & PSN_MASK;
		/* Credits follow [comp.psn, psn_hi), which starts over. */
		emu_xport->qp_rebase(qp);
		qp->req.psn = qp->attr.sq_psn;
		qp->req.psn_hi = qp->attr.sq_psn;
		qp->comp.psn = qp->attr.sq_psn;
	}
	if (m & IBV_QP_STATE)
		qp->attr.qp_state = next;

	if (next == IBV_QPS_ERR) {
		emu_qp_error(qp, 0);
		return;
	}
	if (next != cur)
		emu_log(EMU_LOG_QP, "qp 0x%06x: %s -> %s", qp->qpn,
			emu_qp_state_name(cur), emu_qp_state_name(next));
	if (next != cur)
		EMU_PUBLISH(qp_state, qp, cur, next);
	atomic_store(&qp->state, next);
	if (next == IBV_QPS_SQD && cur != IBV_QPS_SQD) {
		qp->req.draining = true;
		qp->req.drained = false;
		qp->req.notify_drained = (m & IBV_QP_EN_SQD_ASYNC_NOTIFY) &&
					 a->en_sqd_async_notify;
		emu_qp_check_drained(qp);
	} else if (next == IBV_QPS_RTS) {
		qp->req.draining = false;
		emu_xport->qp_run(qp);
		emu_xport->flush(qp->dev);
	}
}

int emu_qp_modify(struct emu_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct qp_call call = { .qp = qp, .attr = attr };
	enum ibv_qp_state next;
	int rc;

	mask = emu_qp_modify_mask(qp->type, mask);
	call.mask = mask;
	/* A GSI QP serves the port it was made for, with the GSI Q_Key. */
	if (qp->gsi_port && (((mask & IBV_QP_PORT) &&
			      attr->port_num != qp->gsi_port) ||
			     ((mask & IBV_QP_QKEY) &&
			      attr->qkey != EMU_GSI_QKEY)))
		return emu_refuse(EINVAL, "ibv_modify_qp: QP1 is port %u's, "
				  "with Q_Key 0x%08x", qp->gsi_port,
				  EMU_GSI_QKEY);
	pthread_mutex_lock(&qp->lock);
	rc = emu_qp_modify_check(qp->type, emu_qp_state(qp), attr, mask,
				 &next);
	if (!rc)
		rc = emu_qp_attr_values_check(qp->dev, qp->type, attr, mask);
	if (!rc && (mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > qp->resp.nres)
		rc = emu_refuse(EINVAL, "ibv_modify_qp: max_dest_rd_atomic %u "
				"> the %u responder resources of the QP",
				attr->max_dest_rd_atomic, qp->resp.nres);
	if (!rc) {
		/* Posting follows the states asked for, as mlx5's does (a
		 * move to ERR by the HCA itself changes nothing). Closed
		 * before RESET empties the ring, so that no post slips in
		 * between; opened once the QP is in RTS. */
		if ((mask & IBV_QP_STATE) && next == IBV_QPS_RESET)
			atomic_store(&qp->sq_open, false);
		emu_engine_call(qp->dev->engine, do_modify, &call);
		emu_qp_ibv(qp)->state = emu_qp_state(qp);
		if ((mask & IBV_QP_STATE) && next == IBV_QPS_RTS)
			atomic_store(&qp->sq_open, true);
	}
	pthread_mutex_unlock(&qp->lock);
	return rc;
}

int emu_qp_query(struct emu_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init)
{
	struct ibv_qp *ibqp = emu_qp_ibv(qp);
	enum ibv_qp_state s;

	pthread_mutex_lock(&qp->lock);
	s = emu_qp_state(qp);
	*attr = qp->attr;
	attr->qp_state = s;
	attr->cur_qp_state = s;
	attr->cap = qp->cap;
	attr->sq_draining = s == IBV_QPS_SQD && !qp->req.drained;
	ibqp->state = s;
	memset(init, 0, sizeof(*init));
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->qp_type = qp->type;
	init->sq_sig_all = qp->sq_sig_all;
	pthread_mutex_unlock(&qp->lock);
	return 0;
}
