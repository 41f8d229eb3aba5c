/* The QP object's life: the QPN table (and each port's QP1), the rings'
 * memory, create and destroy, the references a QP holds on its PD, CQs,
 * SRQ and XRC domain, and the extra handles ibv_open_qp() adds to an XRC
 * target. Modify and query are in qp_modify.c, posting in qp_post.c,
 * completions and events in qp_complete.c, ERR and RESET in qp_flush.c,
 * scatter lists in qp_sge.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "emu/objects/cq.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/base/handle.h"
#include "emu/base/log.h"
#include "emu/objects/pd.h"
#include "emu/objects/qp.h"
#include "emu/objects/qp_int.h"
#include "emu/objects/srq.h"
#include "emu/objects/xport.h"
#include "net/udp.h"
#include "net/hdr.h"

/* QPNs start at a random point of the 24-bit space, as an HCA shared by
 * many processes gives each a fresh range: RC has no source QPN on the
 * wire, so a peer still retransmitting to a QP of an earlier process at
 * this address would otherwise feed the new process's first QP. */
static uint32_t qpn_start(void)
{
	uint32_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = (uint32_t)getpid() * 2654435761u;
	return EMU_QPN_MIN + r % (WIRE_QPN_MASK + 1 - EMU_QPN_MIN);
}

/* ---- QPN table ---------------------------------------------------------- */

int emu_qp_table_create(struct emu_device *dev)
{
	return emu_numtab_create(&dev->qps, dev->cfg.limits.max_qp,
				 EMU_QPN_MIN, qpn_start());
}

void emu_qp_table_destroy(struct emu_device *dev)
{
	emu_numtab_destroy(&dev->qps);
}

/* Engine thread. A port's QP1 is not in the slots, every port having its
 * own, but it counts against max_qp as the others do. */
static int table_insert(struct emu_device *dev, struct emu_qp *qp)
{
	struct emu_qp **gsi;
	int qpn;

	if (qp->gsi_port) {
		gsi = &dev->ports[qp->gsi_port - 1].gsi;
		if (emu_numtab_count_in(&dev->qps))
			goto full;
		if (*gsi) {
			emu_numtab_count_out(&dev->qps);
			return emu_refuse(EBUSY, "GSI QP: port %u has one "
					  "already", qp->gsi_port);
		}
		qp->qpn = EMU_GSI_QPN;
		*gsi = qp;
		return 0;
	}
	qpn = emu_numtab_insert(&dev->qps, qp);
	if (qpn < 0)
		goto full;
	qp->qpn = (uint32_t)qpn;
	return 0;
full:
	return emu_refuse(ENOMEM, "ibv_create_qp: max_qp (%u) QPs exist "
			  "already", dev->qps.max);
}

static void table_remove(struct emu_device *dev, struct emu_qp *qp)
{
	struct emu_qp **gsi;

	if (!qp->gsi_port) {
		emu_numtab_remove(&dev->qps, qp->qpn, qp);
		return;
	}
	gsi = &dev->ports[qp->gsi_port - 1].gsi;
	if (*gsi == qp) {
		*gsi = NULL;
		emu_numtab_count_out(&dev->qps);
	}
}

/* ---- create and destroy ------------------------------------------------- */

/* A QP made on a parent domain takes its rings from its allocators. */
static int wq_init(struct emu_wq *q, uint32_t n, size_t stride,
		   struct emu_pdom *pdom)
{
	q->size = n ? n : 1;
	q->stride = (uint32_t)((stride + 7) & ~(size_t)7);
	if (emu_qmem_alloc(&q->mem, pdom, (size_t)q->size * q->stride,
			   EMU_RES_TYPE_QP, true))
		return ENOMEM;
	q->slots = q->mem.p;
	pthread_spin_init(&q->lock, PTHREAD_PROCESS_PRIVATE);
	atomic_init(&q->prod, 0);
	atomic_init(&q->cons, 0);
	return 0;
}

static void wq_fini(struct emu_wq *q)
{
	if (!q->slots)
		return;
	emu_qmem_free(&q->mem);
	q->slots = NULL;
	pthread_spin_destroy(&q->lock);
}

static void do_insert(void *p)
{
	struct qp_call *c = p;

	c->rc = table_insert(c->qp->dev, c->qp);
	if (!c->rc) {
		c->qp->in_table = true;
		emu_xport->qp_added(c->qp);
	}
}

static void qp_free(struct emu_qp *qp)
{
	emu_handle_remove(emu_qp_ibv(qp)->handle, emu_qp_ibv(qp));
	free(qp->held);
	wq_fini(&qp->sq);
	wq_fini(&qp->rq);
	free(qp->resp.res);
	pthread_mutex_destroy(&qp->lock);
	pthread_mutex_destroy(&qp->qpx.ibv.qp_base.mutex);
	pthread_cond_destroy(&qp->qpx.ibv.qp_base.cond);
	free(qp);
}

static int qp_create(struct emu_context *ctx, struct ibv_qp_init_attr_ex *init,
		     uint8_t gsi_port, struct emu_qp **out)
{
	struct emu_device *dev = ctx->dev;
	struct ibv_qp_cap *cap = &init->cap;
	struct qp_call call;
	struct emu_qp *qp;
	struct ibv_qp *ibqp;
	size_t area;
	int rc;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return ENOMEM;
	ibqp = emu_qp_ibv(qp);
	pthread_mutex_init(&qp->lock, NULL);
	pthread_mutex_init(&ibqp->mutex, NULL);
	pthread_cond_init(&ibqp->cond, NULL);
	qp->dev = dev;
	qp->ctx = ctx;
	qp->type = init->qp_type;
	qp->gsi_port = gsi_port;
	/* What each kind of QP ignores, the kernel ignores and zeroes too:
	 * an XRC target has no PD, CQs or queues, an XRC initiator and a QP
	 * on an SRQ no receive queue of their own. */
	if (qp->type == IBV_QPT_XRC_RECV) {
		memset(cap, 0, sizeof(*cap));
		qp->xrcd = to_emu_xrcd(init->xrcd)->dom;
	} else {
		qp->pd = to_emu_pd(init->pd);
		qp->pdom = emu_pdom_of(init->pd);
		qp->scq = to_emu_cq(init->send_cq);
		if (qp->type != IBV_QPT_XRC_SEND) {
			qp->rcq = to_emu_cq(init->recv_cq);
			qp->srq = init->srq ? to_emu_srq(init->srq) : NULL;
		}
		if (qp->type == IBV_QPT_XRC_SEND || qp->srq) {
			cap->max_recv_wr = 0;
			cap->max_recv_sge = 0;
		}
	}
	qp->rx_srq = qp->srq;
	qp->sq_sig_all = init->sq_sig_all;
	qp->cap = *cap;
	qp->max_inline = cap->max_inline_data;

	/* Slots are sized once for the largest request the caps allow:
	 * posting never allocates. Inline data shares the SGE area. */
	area = (size_t)(cap->max_send_sge ? cap->max_send_sge : 1) *
	       sizeof(struct ibv_sge);
	if (area < cap->max_inline_data)
		area = cap->max_inline_data;
	/* As rxe and mlx5: inline data may fill the whole slot, so grant
	 * (and report) what it holds, within the device's limit. Programs
	 * that ask for 0 and send inline anyway (rdma_xclient) work. */
	if (area > cap->max_inline_data &&
	    cap->max_inline_data < dev->cfg.limits.max_inline_data) {
		cap->max_inline_data = (uint32_t)(area <
			dev->cfg.limits.max_inline_data ? area :
			dev->cfg.limits.max_inline_data);
		qp->max_inline = cap->max_inline_data;
		qp->cap.max_inline_data = cap->max_inline_data;
	}
	/* Room for the rendezvous READs and FINs the HCA itself sends on a
	 * QP of a TM SRQ, beyond what the application may post. */
	rc = wq_init(&qp->sq, cap->max_send_wr +
		     (qp->srq && qp->srq->type == IBV_SRQT_TM ?
		      EMU_TM_SQ_RESERVE : 0),
		     sizeof(struct emu_swqe) + area, qp->pdom);
	if (!rc)
		rc = wq_init(&qp->rq, cap->max_recv_wr,
			     sizeof(struct emu_rwqe) +
			     (size_t)(cap->max_recv_sge ?: 1) *
			     sizeof(struct ibv_sge), qp->pdom);
	qp->resp.nres = dev->cfg.limits.max_qp_rd_atom ?
			dev->cfg.limits.max_qp_rd_atom : 1;
	qp->resp.res = calloc(qp->resp.nres, sizeof(*qp->resp.res));
	if (!rc && !qp->resp.res)
		rc = ENOMEM;
	if (!rc && (qp->srq || qp->xrcd)) {
		qp->held = calloc(1, emu_srq_wqe_size(
					     dev->cfg.limits.max_srq_sge));
		if (!qp->held)
			rc = ENOMEM;
	}
	if (rc) {
		qp_free(qp);
		return rc;
	}

	atomic_init(&qp->state, IBV_QPS_RESET);
	qp->attr.qp_state = IBV_QPS_RESET;
	qp->attr.cur_qp_state = IBV_QPS_RESET;
	qp->attr.path_mtu = IBV_MTU_1024;
	qp->attr.port_num = 1;
	qp->attr.cap = *cap;

	ibqp->context = &ctx->vctx.context;
	ibqp->qp_context = init->qp_context;
	ibqp->pd = qp->pd ? init->pd : NULL;
	ibqp->send_cq = qp->scq ? init->send_cq : NULL;
	ibqp->recv_cq = qp->rcq ? init->recv_cq : NULL;
	ibqp->srq = qp->srq ? init->srq : NULL;
	ibqp->state = IBV_QPS_RESET;
	ibqp->qp_type = init->qp_type;
	ibqp->events_completed = 0;

	if (emu_handle_add(ctx, EMU_OBJ_QP, ibqp, &ibqp->handle)) {
		qp_free(qp);
		return ENOMEM;
	}
	qp->db = emu_engine_doorbell(dev->engine, emu_qp_doorbell, qp);
	if (!qp->db) {
		qp_free(qp);
		return ENOMEM;
	}
	call.qp = qp;
	emu_engine_call(dev->engine, do_insert, &call);
	if (call.rc) {
		emu_doorbell_free(qp->db);
		qp_free(qp);
		return call.rc;
	}
	ibqp->qp_num = qp->qpn;
	qp->sock = emu_udp_sock_for(qp->qpn);

	if (qp->pd)
		emu_pd_get(qp->pd);
	emu_pdom_get(qp->pdom);
	if (qp->scq)
		emu_cq_get(qp->scq);
	if (qp->rcq)
		emu_cq_get(qp->rcq);
	if (qp->srq)
		emu_srq_get(qp->srq);
	if (qp->xrcd)
		atomic_fetch_add(&qp->xrcd->users, 1);
	*out = qp;
	return 0;
}

int emu_qp_create(struct emu_context *ctx, struct ibv_qp_init_attr_ex *init,
		  struct emu_qp **out)
{
	return qp_create(ctx, init, 0, out);
}

int emu_qp_create_gsi(struct emu_context *ctx, struct ibv_qp_init_attr_ex *init,
		      uint8_t port, struct emu_qp **out)
{
	if (init->qp_type != IBV_QPT_UD || init->srq)
		return emu_refuse(EINVAL, "GSI QP: must be UD with a receive "
				  "queue of its own");
	if (!emu_device_port(ctx->dev, port))
		return emu_refuse(EINVAL, "GSI QP: no port %u", port);
	return qp_create(ctx, init, port, out);
}

struct emu_qp *emu_qp_gsi(struct emu_device *dev, uint32_t port)
{
	if (port < 1 || port > dev->nports)
		return NULL;
	return dev->ports[port - 1].gsi;
}

static void do_remove(void *p)
{
	struct qp_call *c = p;
	struct emu_qp *qp = c->qp;

	/* An XRC target opened through another handle lives on. Counted
	 * here, on the engine thread, as ibv_open_qp() counts: a QP found
	 * by number is never freed under the opener. */
	if (qp->extra_handles) {
		qp->extra_handles--;
		c->rc = 1;
		return;
	}
	/* As mlx5 destroys a QP: what is still queued is discarded without
	 * completions; emu_qp_destroy() then takes the QP's unpolled
	 * entries out of its CQs. */
	atomic_store(&qp->state, IBV_QPS_RESET);
	emu_qp_reset_engines(qp);
	emu_qp_empty_queues(qp);
	table_remove(qp->dev, qp);
	qp->in_table = false;
}

int emu_qp_destroy(struct emu_qp *qp)
{
	struct ibv_qp *ibqp = emu_qp_ibv(qp);
	struct qp_call call = { .qp = qp };
	struct emu_pdom *pdom = qp->pdom;

	pthread_mutex_lock(&qp->lock);
	emu_engine_call(qp->dev->engine, do_remove, &call);
	pthread_mutex_unlock(&qp->lock);
	if (call.rc)
		return 0;
	emu_doorbell_free(qp->db);
	qp->db = NULL;
	/* No completion may name a QP the application has freed: its
	 * wr_ids point into buffers that went with it (mlx5_destroy_qp
	 * cleans both CQs the same way). Done here, not on the engine, so
	 * the engine never waits on a consumer; the QP is out of the table
	 * and produces nothing more. */
	emu_qp_clean_cqs(qp);

	/* As rdma-core does: every async event that named the QP and was
	 * delivered must have been acknowledged before the memory goes
	 * away; those still queued are withdrawn, as the kernel drops them. */
	qp->events_raised -= emu_async_cancel(&qp->ctx->async, ibqp);
	pthread_mutex_lock(&ibqp->mutex);
	while (ibqp->events_completed != qp->events_raised)
		pthread_cond_wait(&ibqp->cond, &ibqp->mutex);
	pthread_mutex_unlock(&ibqp->mutex);

	if (qp->pd && qp->type != IBV_QPT_XRC_RECV)
		emu_pd_put(qp->pd);
	if (qp->scq)
		emu_cq_put(qp->scq);
	if (qp->rcq)
		emu_cq_put(qp->rcq);
	if (qp->srq)
		emu_srq_put(qp->srq);
	if (qp->xrcd)
		atomic_fetch_sub(&qp->xrcd->users, 1);
	/* The rings go back to the parent domain's allocator first. */
	qp_free(qp);
	emu_pdom_put(pdom);
	return 0;
}

/* ---- XRC target handles ------------------------------------------------- */

struct open_call {
	uint32_t qpn;
	const struct emu_xrcd_dom *dom;
	struct emu_qp *qp;
};

static void do_open(void *p)
{
	struct open_call *c = p;
	struct emu_qp *qp = emu_qp_lookup(c->dom->dev, c->qpn);

	if (qp && qp->type == IBV_QPT_XRC_RECV && qp->xrcd == c->dom) {
		qp->extra_handles++;
		c->qp = qp;
	}
}

int emu_qp_open_xrc(struct emu_device *dev, uint32_t qpn,
		    const struct emu_xrcd_dom *dom, struct emu_qp **out)
{
	struct open_call c = { .qpn = qpn, .dom = dom };

	emu_engine_call(dev->engine, do_open, &c);
	if (!c.qp)
		return emu_refuse(EINVAL, "ibv_open_qp: qp_num %#x is no XRC "
				  "target QP of this domain", qpn);
	*out = c.qp;
	return 0;
}
