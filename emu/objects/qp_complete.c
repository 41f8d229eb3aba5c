/* How a QP's work ends (engine thread): the completions every transport
 * engine makes for send and receive WQEs, the counters they feed, the
 * async events that name a QP, and SQD's SQ_DRAINED. */
#include <stdatomic.h>

#include "emu/objects/cq.h"
#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/qp.h"
#include "emu/objects/srq.h"
#include "emu/device/observer.h"
#include "emu/objects/wr.h"

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
