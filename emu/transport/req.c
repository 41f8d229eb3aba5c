/* The requester: turns send WQEs into packets (segmentation at the path MTU,
 * PSNs, ACK requests, READ/atomic limits, fences) and resends on rewind. */
#include <string.h>

#include "emu/transport/cc.h"
#include "emu/objects/ah.h"
#include "emu/base/engine.h"
#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/mw.h"
#include "emu/objects/qp.h"
#include "emu/device/subnet.h"
#include "emu/device/observer.h"
#include "emu/transport/transport.h"
#include "emu/objects/wr.h"
#include "net/hdr.h"
#include "net/icrc.h"
#include "net/psn.h"

/* Unacknowledged PSNs an RC QP may have in flight: about 1 MiB at the
 * largest MTU, well inside the peer's receive buffer. */
#define REQ_WINDOW	256
/* Ask for an ACK at least this often inside a long message. */
#define REQ_ACKREQ_EVERY 64
/* Packets one run sends before yielding the engine to other work. */
#define REQ_BURST	128

static uint32_t npkts(uint32_t len, uint32_t mtu)
{
	return len ? (len + mtu - 1) / mtu : 1;
}

/* PSNs a WQE occupies: one per packet, and a READ one per response. */
static uint32_t wqe_psns(struct emu_qp *qp, const struct emu_swqe *w)
{
	if (emu_wr_atomic(w->opcode) || qp->type == IBV_QPT_UD)
		return 1;
	return npkts(w->length, qp->mtu);
}

/*
 * Before the first packet of what sends local memory (SEND, WRITE): every
 * SGE must name memory the QP may read, so a bad key fails the request as
 * a whole (IBV_WC_LOC_PROT_ERR) and nothing goes out; an HCA gathers the
 * data as it sends, so it finds the fault before the peer sees anything.
 * READ and atomic SGEs are where the answer lands: an HCA first touches
 * them when the answer comes (emu/transport/comp.c), so the request goes out, a
 * remote fault is what the requester hears first, and an atomic is
 * executed at the responder even when its result cannot be placed here
 * (doc/semantics.md).
 */
static int check_local(struct emu_qp *qp, struct emu_swqe *w)
{
	struct ibv_sge *sge = emu_swqe_sge(w);
	uint8_t *p;
	uint32_t i;

	if (w->inl || emu_wr_rd_atomic(w->opcode))
		return 0;
	for (i = 0; i < w->num_sge; i++) {
		if (!sge[i].length)
			continue;
		if (emu_mr_resolve_key(qp->dev, sge[i].lkey, 0, qp->pd,
				       sge[i].addr, sge[i].length, 0,
				       &p) != EMU_MR_OK)
			return IBV_WC_LOC_PROT_ERR;
	}
	return 0;
}

/*
 * Room in the port's budget for the next packet of w. A reliable QP holds
 * a credit for every PSN it has sent and not seen acknowledged, so only
 * PSNs past psn_hi need new ones (a resend is paid for); a READ request
 * pays for all the responses it asks for, which land in our own receive
 * buffer. UC and UD wait their turn like anyone but give the credit back
 * once the packet is out: nothing of theirs is ever resent.
 */
static bool budget_for(struct emu_qp *qp, const struct emu_swqe *w)
{
	uint32_t n = 1, end;

	if (!emu_qp_reliable(qp))
		return emu_budget_take_qp(qp, 1);
	if (w->opcode == IBV_WR_RDMA_READ)
		n = npkts(w->length - qp->req.off, qp->mtu);
	end = psn_add(qp->req.psn, n);
	if (!psn_after(end, qp->req.psn_hi))
		return true;
	return emu_budget_take_qp(qp, (uint32_t)psn_diff(end,
							qp->req.psn_hi));
}

/*
 * How often a long message asks for an ACK: REQ_ACKREQ_EVERY, or a
 * quarter of the port's budget when that is smaller (a user without
 * CAP_NET_ADMIN on a stock kernel gets 24 credits), so that credits come
 * back while there are still some to send with, instead of after an ACK
 * timeout.
 */
static uint32_t ackreq_every(const struct emu_qp *qp)
{
	uint32_t quarter = qp->tp->budget.total / 4;

	if (quarter >= REQ_ACKREQ_EVERY)
		return REQ_ACKREQ_EVERY;
	return quarter ? quarter : 1;
}

/* Whether this packet took the budget's last credit: nothing more leaves
 * until an ACK returns some, so this one asks for it (otherwise QPs that
 * share a small budget can all wait for ACKs nobody asked for). */
static bool budget_spent(const struct emu_qp *qp)
{
	const struct emu_budget *b = &qp->tp->budget;

	return b->used >= b->total;
}

/* Build and queue the next packet of w. Returns true when it was the
 * last one; a local error is left in w->status. */
static bool send_one(struct emu_qp *qp, struct emu_swqe *w)
{
	struct emu_udp *u = &qp->tp->udp;
	uint32_t off = qp->req.off, psn = qp->req.psn;
	uint32_t n = 0, nps = 1, pad, dqpn;
	const struct in6_addr *src, *dst;
	bool first = off == 0, last = true, ackreq, se;
	uint8_t *buf = emu_udp_tx_buf(u);
	struct iovec pay[EMU_UDP_TX_PIECES];
	unsigned int np;
	uint8_t op, tclass;
	int rc = 0;

	if (emu_wr_reads(w->opcode)) {
		nps = npkts(w->length - off, qp->mtu);
	} else if (!emu_wr_atomic(w->opcode)) {
		n = w->length - off;
		if (n > qp->mtu)
			n = qp->mtu;
		last = off + n >= w->length;
	}
	op = emu_wr_wire_opcode(w->opcode, qp->type, first, last);
	pad = wire_pad_len(n);
	dqpn = qp->type == IBV_QPT_UD ? w->remote_qpn : qp->attr.dest_qp_num;
	se = last && (w->send_flags & IBV_SEND_SOLICITED) &&
	     wire_op_has(op, WIRE_F_SOLICIT);
	ackreq = false;
	if (emu_qp_reliable(qp)) {
		ackreq = last || ++qp->req.noack >= ackreq_every(qp) ||
			 budget_spent(qp);
		if (ackreq)
			qp->req.noack = 0;
	}
	bth_init(buf, op, se, false, pad, WIRE_DEFAULT_PKEY, dqpn, ackreq,
		 psn);
	if (wire_op_has(op, WIRE_F_RETH)) {
		reth_set_va(buf, w->remote_addr + off);
		reth_set_rkey(buf, w->rkey);
		reth_set_len(buf, emu_wr_reads(w->opcode) ?
				  w->length - off : w->length);
	}
	if (wire_op_has(op, WIRE_F_ATMETH)) {
		atmeth_set_va(buf, w->remote_addr);
		atmeth_set_rkey(buf, w->rkey);
		if (w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
			atmeth_set_swap_add(buf, w->swap);
			atmeth_set_compare(buf, w->compare_add);
		} else {
			atmeth_set_swap_add(buf, w->compare_add);
			atmeth_set_compare(buf, 0);
		}
	}
	if (wire_op_has(op, WIRE_F_IMMDT))
		immdt_set_imm_be(buf, w->imm_be);
	if (wire_op_has(op, WIRE_F_IETH))
		ieth_set_rkey(buf, w->rkey);
	if (wire_op_has(op, WIRE_F_XRCETH))
		xrceth_init(buf, w->remote_srqn);
	if (wire_op_has(op, WIRE_F_DETH))
		/* A Q_Key with the high bit set stands for the QP's own. */
		deth_init(buf, (w->remote_qkey & 0x80000000u) ?
			       qp->attr.qkey : w->remote_qkey, qp->qpn);
	/* A reliable QP's payload is sent from the region itself: the
	 * application leaves it alone until the peer has acknowledged it,
	 * which is after the batch is flushed. Inline data and what UC and
	 * UD send (complete once queued) are copied. */
	np = 0;
	if (n && !w->inl && emu_qp_reliable(qp)) {
		rc = emu_sge_map(qp, emu_swqe_sge(w), w->num_sge, off, n, pay,
				 EMU_UDP_TX_PIECES, &np);
		if (rc > 0) {
			w->status = (uint8_t)rc;
			return false;
		}
		if (rc)
			np = 0;		/* too scattered: copy it */
	}
	if (n && !np) {
		uint8_t *p = wire_payload(buf);

		if (w->inl) {
			memcpy(p, emu_swqe_data(w) + off, n);
		} else {
			rc = emu_sge_copy(qp, emu_swqe_sge(w), w->num_sge, off,
					  p, n, false);
			if (rc) {
				w->status = (uint8_t)rc;
				return false;
			}
		}
		memset(p + n, 0, pad);
	}

	src = qp->type == IBV_QPT_UD ? &w->ah->src : &qp->src;
	dst = qp->type == IBV_QPT_UD ? &w->ah->dest : &qp->dest;
	tclass = qp->type == IBV_QPT_UD ? w->ah->attr.grh.traffic_class :
					  qp->attr.ah_attr.grh.traffic_class;
	if (psn_before(psn, qp->req.psn_hi))
		EMU_CNT_EV(qp, retransmits);
	/* An InfiniBand path whose LID the subnet did not know yet: ask
	 * again; still unknown, the packet is lost, as a switch drops what
	 * it has no route for (RC retransmits, UD is gone). */
	if (IN6_IS_ADDR_UNSPECIFIED(dst) &&
	    qp->tp->port->cfg.link_layer == IBV_LINK_LAYER_INFINIBAND &&
	    !emu_subnet_path(qp->tp->port, qp->type == IBV_QPT_UD ?
			     &w->ah->attr : &qp->attr.ah_attr,
			     (struct in6_addr *)dst, (struct in6_addr *)src,
			     false))
		emu_log(EMU_LOG_XPORT, "qp 0x%06x: no route to LID %u: "
			"packet lost", qp->qpn, qp->type == IBV_QPT_UD ?
			w->ah->attr.dlid : qp->attr.ah_attr.dlid);
	else if (np)
		rc = emu_tx_packet_parts(qp, src, dst, tclass, buf,
					 wire_op_hdr_len(op), pay, np, n);
	else
		emu_tx_packet(qp, src, dst, tclass, buf,
			      wire_op_hdr_len(op) + n + pad);
	if (np && rc) {
		/* Its source was unmapped after registration: a bad local
		 * access, found as the data is gathered (rxe's requester
		 * fails the WQE with LOC_PROT_ERR when its copy fails). */
		w->status = IBV_WC_LOC_PROT_ERR;
		return false;
	}
	emu_cc_sent(qp, emu_link_wire_len(wire_op_hdr_len(op) + n + pad +
					  ICRC_LEN, IN6_IS_ADDR_V4MAPPED(dst)));

	qp->req.psn = psn_add(psn, nps);
	if (psn_after(qp->req.psn, qp->req.psn_hi))
		qp->req.psn_hi = qp->req.psn;
	qp->req.off = emu_wr_reads(w->opcode) ? w->length : off + n;
	return last;
}

/* A request that failed locally completes in order: at once when nothing
 * is ahead of it, else when the completer reaches it. */
static void local_error(struct emu_qp *qp, struct emu_swqe *w)
{
	qp->req.stopped = true;
	if (atomic_load_explicit(&qp->sq.cons, memory_order_relaxed) ==
	    qp->req.idx) {
		emu_qp_complete_send(qp, w, (enum ibv_wc_status)w->status);
		emu_qp_error(qp, 0);
	}
}

/*
 * BIND_MW and LOCAL_INV: done when the requester reaches them, so after
 * everything posted before them has been started, and before anything
 * after them. They take no PSN: their range is the PSN before them, so
 * the acknowledgement that retires the request before one retires it too,
 * and one with nothing ahead of it completes at once. False when it
 * failed (the QP stops, as for any local error).
 */
static bool run_local(struct emu_qp *qp, struct emu_swqe *w)
{
	bool oldest = atomic_load_explicit(&qp->sq.cons,
					   memory_order_relaxed) == qp->req.idx;

	if (w->opcode == IBV_WR_BIND_MW)
		w->status = (uint8_t)emu_mw_bind(qp, w);
	else if (emu_mw_invalidate(qp, w->rkey))
		w->status = IBV_WC_LOC_QP_OP_ERR;
	w->started = true;
	w->done = true;
	w->first_psn = w->last_psn = psn_sub(qp->req.psn, 1);
	qp->req.off = 0;
	if (w->status) {
		local_error(qp, w);
		return false;
	}
	qp->req.idx++;
	if (oldest)
		emu_qp_complete_send(qp, w, IBV_WC_SUCCESS);
	return true;
}

/*
 * IBTA C10-93.1.1: a UD message longer than the port's MTU makes no
 * packet and no error. It completes successfully at once, as rxe's
 * requester fakes it, before its SGEs are looked at (rxe copies nothing
 * either). True when w was such a message.
 */
static bool ud_too_large(struct emu_qp *qp, struct emu_swqe *w)
{
	if (qp->type != IBV_QPT_UD || w->status || w->length <= qp->mtu)
		return false;
	emu_log(EMU_LOG_XPORT, "qp 0x%06x: UD message of %u bytes > MTU %u: "
		"not sent", qp->qpn, w->length, qp->mtu);
	w->started = true;
	w->done = true;
	qp->req.idx++;
	qp->req.off = 0;
	emu_qp_complete_send(qp, w, IBV_WC_SUCCESS);
	return true;
}

/*
 * Which flush of the port takes what this run sent, for the completer to
 * count its timeout from when it left (emu/transport/comp.c): the next one if it
 * waits in the batch, the last one if a full batch went out meanwhile,
 * none if nothing reached the batch (the port down, or the link model or
 * a fault rule holding it), and then the time it was sent.
 */
static void note_sent(struct emu_qp *qp, uint64_t gen0)
{
	struct emu_udp *u = &qp->tp->udp;

	qp->comp.tx_ns = emu_now_ns();
	if (emu_udp_tx_pending(u))
		qp->comp.tx_gen = u->flushes;
	else if (u->flushes != gen0)
		qp->comp.tx_gen = u->flushes - 1;
	else
		qp->comp.tx_gen = EMU_TX_GEN_NONE;
}

void emu_req_run(struct emu_qp *qp)
{
	enum ibv_qp_state s = emu_qp_state(qp);
	unsigned int burst = REQ_BURST;
	unsigned int max_rd;
	bool sent, any = false;
	uint64_t gen0;

	if (s != IBV_QPS_RTS && s != IBV_QPS_SQD)
		return;
	if (!qp->tp || !qp->tp->open || qp->req.rnr_wait || qp->req.stopped)
		return;
	max_rd = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
	gen0 = qp->tp->udp.flushes;
	while (burst) {
		uint32_t prod = atomic_load_explicit(&qp->sq.prod,
						     memory_order_acquire);
		struct emu_swqe *w;

		if (qp->req.idx == prod)
			break;
		w = emu_wq_slot(&qp->sq, qp->req.idx);
		if (!w->started) {
			/* SQD: what had begun finishes, nothing new starts. */
			if (qp->req.draining)
				break;
			if ((w->send_flags & IBV_SEND_FENCE) && qp->req.rd_out)
				break;
			if (w->local) {
				if (!run_local(qp, w))
					break;
				continue;
			}
			if (emu_wr_rd_atomic(w->opcode) && qp->req.rd_out >= max_rd)
				break;
			if (ud_too_large(qp, w))
				continue;
			/* A status from posting: an opcode the transport
			 * has not (RDMA or atomics on UD) fails here. */
			if (!w->status)
				w->status = (uint8_t)check_local(qp, w);
			w->started = true;
			w->first_psn = qp->req.psn;
			w->last_psn = psn_add(qp->req.psn,
					      wqe_psns(qp, w) - 1);
			w->resp_psn = w->first_psn;
			w->req_psn = w->first_psn;
			qp->req.off = 0;
			if (w->status) {
				local_error(qp, w);
				break;
			}
			if (emu_wr_rd_atomic(w->opcode))
				qp->req.rd_out++;
		} else if (w->local) {
			/* Reached again after a rewind: done already. */
			qp->req.idx++;
			continue;
		}
		if (emu_qp_reliable(qp) &&
		    psn_diff(qp->req.psn, qp->comp.psn) >= REQ_WINDOW)
			break;
		if (!emu_cc_may_send(qp) || !budget_for(qp, w))
			break;
		burst--;
		sent = send_one(qp, w);
		any = true;
		if (!emu_qp_reliable(qp))
			emu_budget_release_qp(qp, 1);
		if (!sent) {
			if (w->status) {
				local_error(qp, w);
				break;
			}
			continue;
		}
		qp->req.idx++;
		qp->req.off = 0;
		/* Unreliable transports complete once the data is out. */
		if (!emu_qp_reliable(qp))
			emu_qp_complete_send(qp, w, IBV_WC_SUCCESS);
	}
	if (!burst)
		emu_doorbell_ring(qp->db);
	if (any && emu_qp_reliable(qp))
		note_sent(qp, gen0);
	if (emu_qp_reliable(qp))
		emu_comp_arm(qp);
	else
		emu_qp_check_drained(qp);
}

void emu_req_rewind(struct emu_qp *qp, uint32_t psn)
{
	uint32_t i = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);
	uint32_t prod = atomic_load_explicit(&qp->sq.prod,
					     memory_order_acquire);

	for (; i != prod; i++) {
		struct emu_swqe *w = emu_wq_slot(&qp->sq, i);
		uint32_t d;

		if (!w->started)
			break;
		/* Local work has no PSN of its own and is never redone. */
		if (w->local)
			continue;
		if (!psn_in_range(psn, w->first_psn, w->last_psn))
			continue;
		d = psn_sub(psn, w->first_psn);
		emu_log(EMU_LOG_XPORT,
			"qp 0x%06x: going back to psn 0x%06x (wr 0x%llx)",
			qp->qpn, psn, (unsigned long long)w->wr_id);
		/* What was sent from psn on goes out again. */
		if (psn_before(psn, qp->req.psn_hi))
			EMU_PUBLISH(retransmit, qp, psn,
				    (uint32_t)psn_diff(qp->req.psn_hi, psn));
		qp->req.idx = i;
		qp->req.noack = 0;
		if (emu_wr_atomic(w->opcode)) {
			qp->req.psn = w->first_psn;
			qp->req.off = 0;
		} else {
			qp->req.psn = psn;
			qp->req.off = d * qp->mtu;
			if (emu_wr_reads(w->opcode)) {
				w->resp_psn = psn;
				/* The rest is asked for again from psn: its
				 * answer starts there with a FIRST or ONLY. */
				w->req_psn = psn;
			}
		}
		return;
	}
}
