/* A QP leaving service (engine thread): the move to ERR, which flushes both
 * queues with IBV_WC_WR_FLUSH_ERR completions, and the discard of RESET
 * and destroy, which empties them and the QP's CQ entries without any. */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "emu/objects/cq.h"
#include "emu/base/log.h"
#include "emu/objects/names.h"
#include "emu/objects/qp.h"
#include "emu/objects/qp_int.h"
#include "emu/objects/srq.h"
#include "emu/device/observer.h"
#include "emu/objects/xport.h"

void emu_qp_flush_sq(struct emu_qp *qp)
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

void emu_qp_flush_rq(struct emu_qp *qp)
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
	emu_qp_flush_sq(qp);
	emu_qp_flush_rq(qp);
	/* It will take no more WQEs from its SRQ: tell the application it
	 * may now destroy the QP without losing one (IBTA 11.6.3.5). */
	if (!was && (qp->srq || qp->type == IBV_QPT_XRC_RECV))
		emu_qp_event(qp, IBV_EVENT_QP_LAST_WQE_REACHED);
}

void emu_qp_reset_engines(struct emu_qp *qp)
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
void emu_qp_empty_queues(struct emu_qp *qp)
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
void emu_qp_clean_cqs(struct emu_qp *qp)
{
	if (qp->scq)
		emu_cq_clean(qp->scq, qp->qpn);
	if (qp->rcq && qp->rcq != qp->scq)
		emu_cq_clean(qp->rcq, qp->qpn);
}

struct error_call {
	struct emu_device *dev;
	uint32_t qpn;
	int rc;
};

/* One engine call finds the QP and moves it: a destroy removes it from
 * the table on the engine too, so it is either still there or not found,
 * never half gone. */
static void do_error_by_number(void *p)
{
	struct error_call *c = p;
	struct emu_qp *qp = emu_qp_lookup(c->dev, c->qpn);

	if (!qp) {
		c->rc = ENOENT;
		return;
	}
	qp->attr.qp_state = IBV_QPS_ERR;
	emu_qp_error(qp, 0);
	emu_xport->flush(c->dev);
}

int emu_qp_error_by_number(struct emu_device *dev, uint32_t qpn)
{
	struct error_call c = { .dev = dev, .qpn = qpn };

	emu_device_run(dev, do_error_by_number, &c);
	return c.rc;
}
