/* The QP object: QPN table, create/modify/query/destroy, posting into the
 * WQE rings, flushing, and the completions every transport engine makes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "emu/objects/ah.h"
#include "emu/objects/cq.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/base/handle.h"
#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/mw.h"
#include "emu/objects/names.h"
#include "emu/objects/pd.h"
#include "emu/objects/qp.h"
#include "emu/device/subnet.h"
#include "emu/objects/qp_attr.h"
#include "emu/objects/srq.h"
#include "emu/device/observer.h"
#include "emu/objects/xport.h"
#include "net/udp.h"
#include "emu/objects/wr.h"
#include "net/hdr.h"
#include "net/memguard.h"
#include "net/psn.h"

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

/* ---- events and completions (engine thread) ----------------------------- */

void emu_qp_event(struct emu_qp *qp, enum ibv_event_type type)
{
	struct ibv_async_event ev = {
		.element.qp = emu_qp_ibv(qp),
		.event_type = type,
	};

	emu_log(EMU_LOG_QP, "qp 0x%06x: async event %d", qp->qpn, type);
	EMU_PUBLISH(qp_async, qp, type);
	/* Counted only once queued: destroy waits for exactly these acks. */
	if (!emu_async_push(&qp->ctx->async, &ev))
		qp->events_raised++;
}

/* Completions by outcome, as rxe and mlx5 count them (emu/observe/counters.h). */
static void count_send(struct emu_qp *qp, uint32_t opcode,
		       enum ibv_wc_status status)
{
	switch (status) {
	case IBV_WC_SUCCESS:
		if (opcode == IBV_WR_SEND || opcode == IBV_WR_SEND_WITH_IMM ||
		    opcode == IBV_WR_SEND_WITH_INV)
			EMU_CNT_EV(qp, rdma_sends);
		return;
	case IBV_WC_WR_FLUSH_ERR:
		EMU_CNT_EV(qp, req_cqe_flush_error);
		return;
	case IBV_WC_REM_ACCESS_ERR:
		EMU_CNT_EV(qp, req_remote_access);
		break;
	case IBV_WC_REM_INV_REQ_ERR:
		EMU_CNT_EV(qp, req_remote_invalid);
		break;
	default:
		break;
	}
	EMU_CNT_EV(qp, req_cqe_error);
}

static void count_recv(struct emu_qp *qp, enum ibv_wc_status status)
{
	switch (status) {
	case IBV_WC_SUCCESS:
		EMU_CNT_EV(qp, rdma_recvs);
		return;
	case IBV_WC_WR_FLUSH_ERR:
		EMU_CNT_EV(qp, resp_cqe_flush_error);
		return;
	case IBV_WC_LOC_LEN_ERR:
		EMU_CNT_EV(qp, resp_local_length);
		break;
	default:
		break;
	}
	EMU_CNT_EV(qp, resp_cqe_error);
}

void emu_qp_complete_send(struct emu_qp *qp, struct emu_swqe *w,
			  enum ibv_wc_status status)
{
	uint32_t cons = atomic_load_explicit(&qp->sq.cons,
					     memory_order_relaxed);
	struct emu_swqe copy;

	struct ibv_wc wc = {
		.wr_id = w->wr_id,
		.status = status,
		.opcode = emu_wr_wc_opcode(w->opcode),
		.byte_len = w->length,
		.qp_num = qp->qpn,
	};
	/* Failed requests always complete, signaled or not. */
	bool report = w->signaled || status != IBV_WC_SUCCESS;

	count_send(qp, w->opcode, status);

	if (emu_wr_rd_atomic(w->opcode) && w->started && !w->done &&
	    qp->req.rd_out)
		qp->req.rd_out--;
	if (qp->req.idx == cons)
		qp->req.idx = cons + 1;
	/* The slot is free before the completion is visible: a program that
	 * reposts as soon as it polls must find room (w is not read after). */
	if (w->tm_op) {
		/* The HCA's own work: the TM SRQ's CQ hears of it, after
		 * the slot is free (so a FIN it queues finds room). */
		copy = *w;
		atomic_store_explicit(&qp->sq.cons, cons + 1,
				      memory_order_release);
		emu_tm_send_done(qp, &copy, status);
		return;
	}
	atomic_store_explicit(&qp->sq.cons, cons + 1, memory_order_release);
	if (report)
		emu_cq_push(qp->scq, &wc, false);
}

int emu_qp_post_internal(struct emu_qp *qp, const struct emu_swqe *w,
			 const void *data, uint32_t data_len)
{
	struct emu_wq *q = &qp->sq;
	struct emu_swqe *slot;
	uint32_t prod;

	if (sizeof(*w) + data_len > q->stride)
		return ENOSPC;
	/* Posters hold the lock only to fill a slot: taking it here keeps
	 * their prod and ours apart. */
	pthread_spin_lock(&q->lock);
	if (emu_wq_in_use(q) >= q->size) {
		pthread_spin_unlock(&q->lock);
		return ENOSPC;
	}
	prod = atomic_load_explicit(&q->prod, memory_order_relaxed);
	slot = emu_wq_slot(q, prod);
	*slot = *w;
	if (data_len)
		memcpy(slot + 1, data, data_len);
	atomic_store_explicit(&q->prod, prod + 1, memory_order_release);
	pthread_spin_unlock(&q->lock);
	emu_doorbell_ring(qp->db);
	return 0;
}

void emu_qp_complete_recv(struct emu_qp *qp, struct ibv_wc *wc,
			  bool solicited)
{
	uint32_t cons = atomic_load_explicit(&qp->rq.cons,
					     memory_order_relaxed);
	struct emu_srq *srq = qp->held_srq;

	wc->qp_num = qp->qpn;
	count_recv(qp, wc->status);
	if (srq) {
		/* An XRC SRQ has its own CQ; a basic one completes into the
		 * QP's, which the SRQ's busy count keeps alive till here. */
		qp->held_srq = NULL;
		emu_cq_push(srq->cq ? srq->cq : qp->rcq, wc, solicited);
		emu_srq_put(srq);
		return;
	}
	/* As for sends: room first, then the completion. */
	atomic_store_explicit(&qp->rq.cons, cons + 1, memory_order_release);
	emu_cq_push(qp->rcq, wc, solicited);
}

static void flush_sq(struct emu_qp *qp)
{
	uint32_t prod = atomic_load_explicit(&qp->sq.prod,
					     memory_order_acquire);

	while (atomic_load_explicit(&qp->sq.cons, memory_order_relaxed) !=
	       prod) {
		struct emu_swqe *w = emu_wq_slot(
			&qp->sq, atomic_load_explicit(&qp->sq.cons,
						      memory_order_relaxed));

		emu_qp_complete_send(qp, w, IBV_WC_WR_FLUSH_ERR);
	}
	qp->req.idx = prod;
	qp->req.off = 0;
	qp->req.rd_out = 0;
}

static void flush_rq(struct emu_qp *qp)
{
	uint32_t prod = atomic_load_explicit(&qp->rq.prod,
					     memory_order_acquire);

	/* Of an SRQ only the WQE the QP took is its own to flush; the rest
	 * stay for the other QPs (IBTA 10.2.9.5). */
	if (qp->held_srq) {
		struct ibv_wc wc = {
			.wr_id = qp->held->wr_id,
			.status = IBV_WC_WR_FLUSH_ERR,
			.opcode = IBV_WC_RECV,
		};

		emu_qp_complete_recv(qp, &wc, false);
	}
	/* So is a tag an eager message was filling: it completes flushed
	 * rather than vanish from both the list and the CQ. */
	if (qp->resp.tm_kind == EMU_TM_EAGER && qp->resp.in_msg) {
		struct ibv_wc wc = {
			.wr_id = qp->resp.tm.wr_id,
			.status = IBV_WC_WR_FLUSH_ERR,
			.opcode = IBV_WC_TM_RECV,
		};

		qp->resp.tm_kind = EMU_TM_NONE;
		emu_tm_complete(qp, &wc, NULL, false);
	}
	if (!qp->rcq || qp->srq)
		return;
	while (atomic_load_explicit(&qp->rq.cons, memory_order_relaxed) !=
	       prod) {
		struct emu_rwqe *w = emu_wq_slot(
			&qp->rq, atomic_load_explicit(&qp->rq.cons,
						      memory_order_relaxed));
		struct ibv_wc wc = {
			.wr_id = w->wr_id,
			.status = IBV_WC_WR_FLUSH_ERR,
			.opcode = IBV_WC_RECV,
		};

		emu_qp_complete_recv(qp, &wc, false);
	}
}

void emu_qp_error(struct emu_qp *qp, enum ibv_event_type ev)
{
	enum ibv_qp_state cur = emu_qp_state(qp);
	bool was = cur == IBV_QPS_ERR;

	if (!was)
		emu_log(EMU_LOG_QP, "qp 0x%06x: %s -> ERR", qp->qpn,
			emu_qp_state_name(cur));
	if (!was)
		EMU_PUBLISH(qp_state, qp, cur, IBV_QPS_ERR);
	atomic_store(&qp->state, IBV_QPS_ERR);
	if (!was && ev)
		emu_qp_event(qp, ev);
	/* Timers off; the coalesced ACK still owed goes out first, as a NIC
	 * would have sent it on arrival: the peer, whose message our
	 * application may already have seen complete, must not see it
	 * flushed instead. Nothing it sent will be acknowledged now: its
	 * budget makes room for others. */
	emu_xport->qp_stop(qp);
	qp->req.rnr_wait = false;
	flush_sq(qp);
	flush_rq(qp);
	/* It will take no more WQEs from its SRQ: tell the application it
	 * may now destroy the QP without losing one (IBTA 11.6.3.5). */
	if (!was && (qp->srq || qp->type == IBV_QPT_XRC_RECV))
		emu_qp_event(qp, IBV_EVENT_QP_LAST_WQE_REACHED);
}

void emu_qp_check_drained(struct emu_qp *qp)
{
	uint32_t cons = atomic_load_explicit(&qp->sq.cons,
					     memory_order_relaxed);

	if (emu_qp_state(qp) != IBV_QPS_SQD || !qp->req.draining ||
	    qp->req.drained)
		return;
	/* Drained: every request begun before SQD has been answered. */
	if (cons != qp->req.idx || qp->req.off)
		return;
	qp->req.drained = true;
	if (qp->req.notify_drained)
		emu_qp_event(qp, IBV_EVENT_SQ_DRAINED);
}

/* ---- scatter lists ----------------------------------------------------- */

/* Up to max pieces of [off, off + len) of a scatter list, each checked
 * against its SGE's key for the access need, into iov (*niov of them,
 * *got bytes). 0 with *got == len, or with *got < len when max pieces
 * were not enough; else the failing IBV_WC_* status. */
static int sge_map(struct emu_qp *qp, const struct ibv_sge *sge,
		   uint32_t num_sge, uint32_t off, uint32_t len,
		   unsigned int need, struct iovec *iov, unsigned int max,
		   unsigned int *niov, uint32_t *got)
{
	uint32_t i, want = len;
	unsigned int k = 0;

	for (i = 0; i < num_sge && len && k < max; i++) {
		uint8_t *p;
		uint32_t n;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = sge[i].length - off;
		if (n > len)
			n = len;
		/* Every byte goes through the key check: an MR deregistered
		 * since posting fails here, never as a stray access. */
		if (emu_mr_resolve_key(qp->dev, sge[i].lkey, 0, qp->pd,
				       sge[i].addr + off, n, need,
				       &p) != EMU_MR_OK)
			return IBV_WC_LOC_PROT_ERR;
		iov[k++] = (struct iovec){ p, n };
		len -= n;
		off = 0;
	}
	*niov = k;
	*got = want - len;
	return len && k < max ? IBV_WC_LOC_LEN_ERR : 0;
}

int emu_sge_map(struct emu_qp *qp, const struct ibv_sge *sge,
		uint32_t num_sge, uint32_t off, uint32_t len,
		struct iovec *iov, unsigned int max, unsigned int *niov)
{
	uint32_t got;
	int rc = sge_map(qp, sge, num_sge, off, len, 0, iov, max, niov, &got);

	return rc ? rc : got < len ? EMU_SGE_SCATTERED : 0;
}

int emu_sge_copy(struct emu_qp *qp, const struct ibv_sge *sge,
		 uint32_t num_sge, uint32_t off, void *buf, uint32_t len,
		 bool to_sge)
{
	unsigned int need = to_sge ? IBV_ACCESS_LOCAL_WRITE : 0;
	struct iovec iov[8];
	uint8_t *b = buf;
	unsigned int i, n;
	uint32_t got;
	int rc;

	do {
		rc = sge_map(qp, sge, num_sge, off, len, need, iov, 8, &n,
			     &got);
		if (rc)
			return rc;
		for (i = 0; i < n; i++) {
			/* A page the application unmapped after registering
			 * it is a bad local access, as a bad key is. */
			if (to_sge)
				rc = emu_guard_copy(iov[i].iov_base, b,
						    iov[i].iov_len);
			else
				rc = emu_guard_copy(b, iov[i].iov_base,
						    iov[i].iov_len);
			if (rc) {
				emu_log(EMU_LOG_XPORT, "qp 0x%06x: local "
					"buffer %p not mapped: local "
					"protection error", qp->qpn,
					iov[i].iov_base);
				return IBV_WC_LOC_PROT_ERR;
			}
			b += iov[i].iov_len;
		}
		off += got;
		len -= got;
	} while (len);
	return 0;
}

/* ---- create and destroy ------------------------------------------------- */

static void qp_doorbell(void *arg)
{
	struct emu_qp *qp = arg;

	if (emu_qp_state(qp) == IBV_QPS_ERR) {
		flush_sq(qp);
		flush_rq(qp);
	} else {
		emu_xport->qp_run(qp);
	}
	emu_xport->flush(qp->dev);
}

/* A doorbell rung by the posting thread: if the engine is idle that thread
 * segments and sends the work itself, saving the hand-off; otherwise the
 * engine does it when it gets there. */
static void ring_doorbell(struct emu_qp *qp)
{
	struct emu_engine *e = qp->dev->engine;

	if (!emu_engine_try_enter(e)) {
		emu_doorbell_ring(qp->db);
		return;
	}
	qp_doorbell(qp);
	emu_engine_leave(e);
}

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

struct qp_call {
	struct emu_qp *qp;
	struct ibv_qp_attr *attr;
	int mask;
	int rc;
};

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
	qp->db = emu_engine_doorbell(dev->engine, qp_doorbell, qp);
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

static void reset_engines(struct emu_qp *qp)
{
	unsigned int nres = qp->resp.nres;
	struct emu_rd_res *res = qp->resp.res;

	emu_xport->qp_stop(qp);	/* the ACK owed too, as on a move to ERR */
	/* RESET discards, without a completion, a WQE taken mid-message. */
	if (qp->held_srq) {
		emu_srq_put(qp->held_srq);
		qp->held_srq = NULL;
	}
	memset(&qp->req, 0, sizeof(qp->req));
	qp->comp.psn = 0;
	qp->comp.rewound = false;
	qp->comp.retry_due = 0;
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->resp.res = res;
	qp->resp.nres = nres;
	memset(res, 0, nres * sizeof(*res));
}

/* RESET discards what is queued without completions (IBTA 10.3.1). */
static void empty_queues(struct emu_qp *qp)
{
	pthread_spin_lock(&qp->sq.lock);
	atomic_store(&qp->sq.cons, atomic_load(&qp->sq.prod));
	pthread_spin_unlock(&qp->sq.lock);
	pthread_spin_lock(&qp->rq.lock);
	atomic_store(&qp->rq.cons, atomic_load(&qp->rq.prod));
	pthread_spin_unlock(&qp->rq.lock);
	qp->req.idx = atomic_load(&qp->sq.prod);
}

/* Takes the QP's completions not yet polled out of its CQs. */
static void clean_cqs(struct emu_qp *qp)
{
	if (qp->scq)
		emu_cq_clean(qp->scq, qp->qpn);
	if (qp->rcq && qp->rcq != qp->scq)
		emu_cq_clean(qp->rcq, qp->qpn);
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
	reset_engines(qp);
	empty_queues(qp);
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
	clean_cqs(qp);

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

/* ---- modify and query --------------------------------------------------- */

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
		reset_engines(qp);
		empty_queues(qp);
		clean_cqs(qp);
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

/* ---- posting ------------------------------------------------------------ */

/*
 * RDMA and atomics on a UD QP: mlx5's _mlx5_post_send builds them like any
 * UD request (it looks at the opcode only for RC, UC and XRC) and the
 * hardware fails them in a completion; rxe's requester completes them
 * with IB_WC_LOC_QP_OP_ERR (next_opcode has none for UD). So they are
 * taken, and fail when the requester reaches them (emu/transport/req.c).
 */
static bool ud_fails_later(struct emu_qp *qp, enum ibv_wr_opcode op)
{
	return qp->type == IBV_QPT_UD &&
	       emu_wr_any(op, EMU_WR_F_WRITE | EMU_WR_F_READ |
			  EMU_WR_F_ATOMIC);
}

static bool opcode_ok(struct emu_qp *qp, enum ibv_wr_opcode op)
{
	if (!emu_wr_qp_ok(op, qp->type))
		return false;
	/* The one device capability a request type depends on. */
	return !emu_wr_atomic(op) ||
	       qp->dev->cfg.limits.atomic_cap != IBV_ATOMIC_NONE;
}

/* What can be checked of a bind when it is posted; the rules that need
 * the window's and the region's state are the engine's (emu_mw_bind), and
 * break them with an IBV_WC_MW_BIND_ERR completion. Type 1 windows are
 * bound through ibv_bind_mw (mw_verb), type 2 through a work request. */
static int check_bind(struct emu_sq_batch *b, const struct ibv_mw *mw,
		      const struct ibv_mw_bind_info *bi, bool mw_verb)
{
	struct ibv_context *ctx = emu_qp_ibv(b->qp)->context;
	const char *verb = b->verb;

	if (!mw || mw->context != ctx)
		return emu_refuse(EINVAL, "%s: bind_mw.mw is NULL or of "
				  "another context", verb);
	if (!bi)
		return emu_refuse(EINVAL, "%s: bind_info is NULL", verb);
	if (mw->type != (mw_verb ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2))
		return emu_refuse(EINVAL, "%s: a type %d window (type 1 is "
				  "bound by ibv_bind_mw, type 2 by a WR)",
				  verb, (int)mw->type);
	if (bi->mw_access_flags & ~(unsigned int)EMU_MW_BIND_ACCESS)
		return emu_refuse(EINVAL, "%s: mw_access_flags %#x has bits "
				  "a window cannot grant", verb,
				  bi->mw_access_flags);
	/* o10-36.2.2 (rxe's provider refuses it at the verb too). */
	if (mw->type == IBV_MW_TYPE_1 &&
	    (bi->mw_access_flags & IBV_ACCESS_ZERO_BASED))
		return emu_refuse(EINVAL, "%s: ZERO_BASED on a type 1 window",
				  verb);
	if (bi->length && (!bi->mr || bi->mr->context != ctx))
		return emu_refuse(EINVAL, "%s: bind_info.mr is NULL or of "
				  "another context", verb);
	return 0;
}

void emu_sq_begin(struct emu_qp *qp, struct emu_sq_batch *b,
		  const char *verb, int limit_err, int closed_err)
{
	pthread_spin_lock(&qp->sq.lock);
	b->qp = qp;
	b->verb = verb;
	b->limit_err = limit_err;
	b->closed_err = closed_err;
	b->prod = atomic_load_explicit(&qp->sq.prod, memory_order_relaxed);
	b->n = 0;
	b->cur = NULL;
	b->len = 0;
}

/*
 * As mlx5: a QP made or reset may post no send until it has been moved to
 * RTS (mlx5_modify_qp sets qp_state_max_gs to -1 in RESET and to max_gs
 * only in RTS, and _mlx5_post_send refuses any num_sge above it), so
 * RESET, INIT, RTR and an ERR reached from them refuse; SQD, SQE and an
 * ERR reached from RTS post (ERR flushes).
 */
int emu_sq_closed(struct emu_sq_batch *b, int err)
{
	struct emu_qp *qp = b->qp;
	enum ibv_qp_state s;

	if (atomic_load_explicit(&qp->sq_open, memory_order_relaxed))
		return 0;
	s = emu_qp_state(qp);
	return emu_refuse(err, "%s: the QP (%s) has not been in RTS since "
			  "it was made or last reset", b->verb,
			  emu_qp_state_name(s));
}

int emu_sq_next(struct emu_sq_batch *b, enum ibv_wr_opcode opcode,
		uint64_t wr_id, unsigned int send_flags)
{
	struct emu_qp *qp = b->qp;
	struct emu_swqe *w;
	int rc;

	b->cur = NULL;
	b->len = 0;
	/* mlx5's order: an opcode it has no entry for, a full ring, a QP
	 * that may not post yet. */
	if (!emu_wr_info(opcode))
		return emu_refuse(EINVAL, "%s: opcode %d is not one this "
				  "device has", b->verb, (int)opcode);
	/* The batch's own WQEs count: they will be outstanding too. */
	if (emu_wq_in_use(&qp->sq) + b->n >= qp->cap.max_send_wr)
		return emu_refuse(ENOMEM, "%s: send queue full (max_send_wr "
				  "%u)", b->verb, qp->cap.max_send_wr);
	if (b->closed_err) {
		rc = emu_sq_closed(b, b->closed_err);
		if (rc)
			return rc;
	}
	if (!opcode_ok(qp, opcode) && !ud_fails_later(qp, opcode))
		return emu_refuse(EINVAL, "%s: opcode %d not valid on this QP "
				  "type (%d) or device", b->verb, (int)opcode,
				  (int)qp->type);
	w = emu_wq_slot(&qp->sq, b->prod + b->n);
	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->opcode = opcode;
	w->send_flags = send_flags;
	w->signaled = qp->sq_sig_all || (send_flags & IBV_SEND_SIGNALED);
	/* Local work has no peer and no data to gather. */
	w->local = emu_wr_local(opcode);
	/* Failed already; nothing of it is looked at again but its data
	 * (its wr.rdma is no AH: the union holds an address). */
	if (ud_fails_later(qp, opcode))
		w->status = IBV_WC_LOC_QP_OP_ERR;
	b->cur = w;
	return 0;
}

int emu_sq_bind(struct emu_sq_batch *b, const struct ibv_mw *mw,
		uint32_t rkey, const struct ibv_mw_bind_info *info,
		bool mw_verb)
{
	struct emu_swqe *w = b->cur;
	int rc = check_bind(b, mw, info, mw_verb);

	if (rc)
		return rc;
	w->mw_rkey = mw->rkey;
	w->mw_handle = mw->handle;
	w->rkey = rkey;
	w->remote_addr = info->addr;
	w->mw_len = info->length;
	w->mw_access = info->mw_access_flags;
	w->mr_lkey = w->mw_len ? info->mr->lkey : 0;
	return 0;
}

void emu_sq_ud(struct emu_sq_batch *b, struct ibv_ah *ah, uint32_t qpn,
	       uint32_t qkey)
{
	struct emu_swqe *w = b->cur;

	if (b->qp->type != IBV_QPT_UD || w->local || w->status)
		return;
	w->ah = ah ? to_emu_ah(ah) : NULL;
	w->remote_qpn = qpn & WIRE_QPN_MASK;
	/* IBTA: a Q_Key with the high bit set means the QP's own. */
	w->remote_qkey = qkey;
}

void emu_sq_xrc(struct emu_sq_batch *b, uint32_t remote_srqn)
{
	if (b->qp->type == IBV_QPT_XRC_SEND && !b->cur->local)
		b->cur->remote_srqn = remote_srqn & WIRE_QPN_MASK;
}

void emu_sq_clear_data(struct emu_sq_batch *b, bool inl)
{
	b->cur->num_sge = 0;
	b->cur->inl = inl;
	b->len = 0;
}

static int check_sge_list(struct emu_sq_batch *b, const struct ibv_sge *sg,
			  long num_sge)
{
	struct emu_qp *qp = b->qp;

	if (num_sge < 0 || (unsigned long)num_sge > qp->cap.max_send_sge)
		return emu_refuse(b->limit_err, "%s: num_sge %ld > "
				  "max_send_sge %u", b->verb, num_sge,
				  qp->cap.max_send_sge);
	if (num_sge && !sg)
		return emu_refuse(EINVAL, "%s: num_sge %ld but sg_list NULL",
				  b->verb, num_sge);
	return 0;
}

/* Zero-length elements carry nothing and are dropped, as rxe and mlx5 do:
 * no lkey of theirs is ever looked at, here or by the engine. */
int emu_sq_sges(struct emu_sq_batch *b, const struct ibv_sge *sg,
		long num_sge)
{
	struct ibv_sge *out = emu_swqe_sge(b->cur);
	int rc = check_sge_list(b, sg, num_sge);
	uint32_t n = 0;
	long i;

	if (rc)
		return rc;
	emu_sq_clear_data(b, false);
	for (i = 0; i < num_sge; i++) {
		if (!sg[i].length)
			continue;
		out[n++] = sg[i];
		b->len += sg[i].length;
	}
	b->cur->num_sge = n;
	return 0;
}

/* Copied now: the buffer is the caller's again on return. */
int emu_sq_inline(struct emu_sq_batch *b, const void *addr, size_t len)
{
	struct emu_qp *qp = b->qp;

	b->cur->inl = true;
	if (len > qp->max_inline - b->len)
		return emu_refuse(b->limit_err, "%s: inline data of more than "
				  "max_inline_data %u bytes", b->verb,
				  qp->max_inline);
	/* An empty buffer may have a NULL address (UCX's do). */
	if (len)
		memcpy(emu_swqe_data(b->cur) + b->len, addr, len);
	b->len += len;
	return 0;
}

int emu_sq_end(struct emu_sq_batch *b)
{
	struct emu_qp *qp = b->qp;
	struct emu_swqe *w = b->cur;
	uint64_t len = b->len;

	/* Local work carries no data, whatever a setter gave it. */
	if (w->local) {
		emu_sq_clear_data(b, false);
		len = 0;
	}
	if (len > 0x80000000ull)
		return emu_refuse(EINVAL, "%s: %llu bytes > the 2 GiB IBTA "
				  "message limit", b->verb,
				  (unsigned long long)len);
	/* A UD message larger than the MTU is taken: the requester drops
	 * it (emu/transport/req.c). */
	if (qp->type == IBV_QPT_UD && !w->status && !w->ah)
		return emu_refuse(EINVAL, "%s: a UD send without an address "
				  "handle (wr.ud.ah NULL, or no "
				  "ibv_wr_set_ud_addr)", b->verb);
	w->length = (uint32_t)len;
	b->n++;
	b->cur = NULL;
	b->len = 0;
	return 0;
}

void emu_sq_commit(struct emu_sq_batch *b)
{
	struct emu_qp *qp = b->qp;
	uint32_t n = b->n;

	/* One release store makes every slot of the batch the engine's. */
	if (n)
		atomic_store_explicit(&qp->sq.prod, b->prod + n,
				      memory_order_release);
	b->n = 0;
	b->cur = NULL;
	pthread_spin_unlock(&qp->sq.lock);
	if (n)
		ring_doorbell(qp);
}

void emu_sq_abort(struct emu_sq_batch *b)
{
	b->n = 0;
	b->cur = NULL;
	pthread_spin_unlock(&b->qp->sq.lock);
}

/*
 * ibv_post_send's atomics, as mlx5 builds them: each non-empty SGE becomes
 * a segment of 8 bytes at its address, whatever length it gave
 * (set_data_ptr_seg_atomic), so the old value lands in the first 8 bytes
 * at the first one's address, under its key. The answer is placed, and
 * those bytes checked, when it comes back (emu/transport/comp.c); no SGE at all
 * leaves it nowhere to go (LOC_LEN_ERR there). ibv_wr_* keeps the lengths
 * given, as mlx5's setters do.
 */
static void atomic_sges_8(struct emu_sq_batch *b)
{
	struct ibv_sge *sge = emu_swqe_sge(b->cur);
	uint32_t i;

	for (i = 0; i < b->cur->num_sge; i++)
		sge[i].length = 8;
	b->len = 8ull * b->cur->num_sge;
}

/* The opcode's own members of the work request, then its data: which
 * member of wr->wr is meaningful follows from what the request does, and
 * emu_sq_next has made sure the opcode is in the table. */
static int wr_to_slot(struct emu_sq_batch *b, const struct ibv_send_wr *wr,
		      bool mw_verb)
{
	const struct emu_wr_info *info = emu_wr_info(wr->opcode);
	struct emu_swqe *w = b->cur;
	int rc, i;

	w->imm_be = wr->imm_data;
	if (info->flags & (EMU_WR_F_WRITE | EMU_WR_F_READ)) {
		w->remote_addr = wr->wr.rdma.remote_addr;
		w->rkey = wr->wr.rdma.rkey;
	} else if (info->flags & EMU_WR_F_ATOMIC) {
		w->remote_addr = wr->wr.atomic.remote_addr;
		w->rkey = wr->wr.atomic.rkey;
		w->compare_add = wr->wr.atomic.compare_add;
		w->swap = wr->wr.atomic.swap;
	}
	if (info->flags & EMU_WR_F_INV)
		w->rkey = wr->invalidate_rkey;
	/* Local operations carry no data: their SGEs are not read. */
	if (wr->opcode == IBV_WR_BIND_MW)
		return emu_sq_bind(b, wr->bind_mw.mw, wr->bind_mw.rkey,
				   &wr->bind_mw.bind_info, mw_verb);
	if (w->local)
		return 0;
	emu_sq_xrc(b, wr->qp_type.xrc.remote_srqn);
	emu_sq_ud(b, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
		  wr->wr.ud.remote_qkey);
	/* Inline data is what a send or write carries; a READ's or an
	 * atomic's SGEs are where the answer goes, so they stay SGEs. */
	if (!(wr->send_flags & IBV_SEND_INLINE) ||
	    !emu_wr_any(wr->opcode, EMU_WR_F_INLINE)) {
		rc = emu_sq_sges(b, wr->sg_list, wr->num_sge);
		if (!rc && (info->flags & EMU_WR_F_ATOMIC))
			atomic_sges_8(b);
		return rc;
	}
	rc = check_sge_list(b, wr->sg_list, wr->num_sge);
	emu_sq_clear_data(b, true);
	for (i = 0; !rc && i < wr->num_sge; i++)
		rc = emu_sq_inline(b, (void *)(uintptr_t)wr->sg_list[i].addr,
				   wr->sg_list[i].length);
	return rc;
}

/* The WRs before a refused one are posted; it and the rest are not. */
static int post_send(struct emu_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr, bool mw_verb)
{
	struct emu_sq_batch b;
	int rc = 0;

	emu_sq_begin(qp, &b, mw_verb ? "ibv_bind_mw" : "ibv_post_send",
		     EINVAL, ENOMEM);
	for (; wr; wr = wr->next) {
		rc = emu_sq_next(&b, wr->opcode, wr->wr_id, wr->send_flags);
		if (!rc)
			rc = wr_to_slot(&b, wr, mw_verb);
		if (!rc)
			rc = emu_sq_end(&b);
		if (rc)
			break;
	}
	emu_sq_commit(&b);
	if (rc && bad_wr)
		*bad_wr = wr;
	return rc;
}

int emu_qp_post_send(struct emu_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr)
{
	return post_send(qp, wr, bad_wr, false);
}

int emu_qp_post_bind_mw(struct emu_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	wr->next = NULL;
	return post_send(qp, wr, &bad, true);
}

int emu_rwqe_fill(struct emu_rwqe *w, const struct ibv_recv_wr *wr,
		  uint32_t max_sge, const char *verb)
{
	uint64_t len = 0;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
		return emu_refuse(EINVAL, "%s: num_sge %d > max_sge %u", verb,
				  wr->num_sge, max_sge);
	if (wr->num_sge && !wr->sg_list)
		return emu_refuse(EINVAL, "%s: num_sge %d but sg_list NULL",
				  verb, wr->num_sge);
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	/* No message can be longer than IBTA's 2 GiB. */
	if (len > 0x80000000ull)
		return emu_refuse(EINVAL, "%s: %llu bytes > the 2 GiB IBTA "
				  "message limit", verb,
				  (unsigned long long)len);
	w->wr_id = wr->wr_id;
	w->num_sge = (uint32_t)wr->num_sge;
	w->length = (uint32_t)len;
	if (wr->num_sge)
		memcpy(w->sge, wr->sg_list,
		       (size_t)wr->num_sge * sizeof(struct ibv_sge));
	return 0;
}

int emu_qp_post_recv(struct emu_qp *qp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct emu_wq *q = &qp->rq;
	bool flush = false;
	int rc = 0;

	pthread_spin_lock(&q->lock);
	for (; wr; wr = wr->next) {
		enum ibv_qp_state s = emu_qp_state(qp);
		uint32_t prod = atomic_load_explicit(&q->prod,
						     memory_order_relaxed);

		/* On an SRQ, or XRC: the QP has no receive queue. */
		if (s == IBV_QPS_RESET) {
			rc = emu_refuse(EINVAL, "ibv_post_recv: the QP is in "
					"RESET");
			break;
		}
		if (qp->srq || qp->type == IBV_QPT_XRC_SEND ||
		    qp->type == IBV_QPT_XRC_RECV) {
			rc = emu_refuse(EINVAL, "ibv_post_recv: the QP has no "
					"receive queue (%s)", qp->srq ?
					"it is on an SRQ" : "XRC");
			break;
		}
		if (emu_wq_in_use(q) >= qp->cap.max_recv_wr) {
			rc = emu_refuse(ENOMEM, "ibv_post_recv: receive queue "
					"full (max_recv_wr %u)",
					qp->cap.max_recv_wr);
			break;
		}
		rc = emu_rwqe_fill(emu_wq_slot(q, prod), wr,
				   qp->cap.max_recv_sge, "ibv_post_recv");
		if (rc)
			break;
		atomic_store_explicit(&q->prod, prod + 1, memory_order_release);
		flush |= s == IBV_QPS_ERR;
	}
	pthread_spin_unlock(&q->lock);
	/* Receives need no doorbell: the responder finds them when a
	 * message arrives. In ERR they are flushed at once. */
	if (flush)
		emu_doorbell_ring(qp->db);
	if (rc && bad_wr)
		*bad_wr = wr;
	return rc;
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
