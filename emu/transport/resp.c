/* The responder: places SENDs and RDMA WRITEs, answers READs and atomics,
 * detects duplicates and sequence errors, and sends ACKs, NAKs and RNR NAKs. */
#include <string.h>

#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/mw.h"
#include "emu/objects/qp.h"
#include "emu/device/subnet.h"
#include "emu/objects/srq.h"
#include "emu/device/observer.h"
#include "emu/transport/transport.h"
#include "net/hdr.h"
#include "net/icrc.h"
#include "net/iphdr.h"
#include "net/memguard.h"
#include "net/psn.h"
#include "net/tmh.h"

/* What handling one request packet came to. */
enum resp_res {
	R_ACK,		/* done: a coalesced ACK will follow */
	R_ANSWERED,	/* done and answered (READ response, atomic ACK) */
	R_RNR,		/* no receive WQE: RNR NAK, packet not taken */
	R_NAK_INV,	/* invalid request */
	R_NAK_ACC,	/* remote access error */
	R_NAK_OP,	/* remote operational error */
	R_DROP,		/* silently ignored (UC, UD) */
	R_PLAIN,	/* TM: no tag involved, place it as any SEND */
};

static void nak_error(struct emu_qp *qp, uint32_t psn, enum resp_res r);

static uint32_t dest_qpn(struct emu_qp *qp)
{
	return qp->attr.dest_qp_num;
}

/*
 * The key was good but a page behind it is gone: the application unmapped
 * it after registering it. A NIC reports a page it cannot reach as rxe
 * reports a copy into or out of a region that fails: an rkey violation,
 * answered with a remote access error NAK (doc/semantics.md).
 */
static enum resp_res unmapped(struct emu_qp *qp, const char *what,
			      uint64_t va)
{
	emu_log(EMU_LOG_XPORT, "qp 0x%06x: %s at va %#llx: page not mapped: "
		"remote access error", qp->qpn, what, (unsigned long long)va);
	return R_NAK_ACC;
}

/* Answers travel on the requester's transport: an XRC target answers
 * with XRC opcodes, which is what its XRC initiator accepts. */
static uint8_t resp_op(const struct emu_qp *qp, uint8_t opb)
{
	return (qp->type == IBV_QPT_XRC_RECV ? WIRE_TP_XRC : WIRE_TP_RC) | opb;
}

/* Answers go on the QP's own path, with its traffic class, as an HCA's
 * responder answers with the QP's address vector. */
static uint8_t resp_tclass(const struct emu_qp *qp)
{
	return qp->attr.ah_attr.grh.traffic_class;
}

static uint8_t *resp_buf(struct emu_qp *qp)
{
	return emu_udp_tx_buf(&qp->tp->udp);
}

static void send_aeth(struct emu_qp *qp, uint8_t op, uint8_t syn,
		      uint32_t psn)
{
	uint8_t *buf = resp_buf(qp);

	bth_init(buf, op, false, false, 0, WIRE_DEFAULT_PKEY, dest_qpn(qp),
		 false, psn);
	aeth_init(buf, syn, qp->resp.msn);
	emu_tx_packet(qp, &qp->src, &qp->dest, resp_tclass(qp), buf,
		      wire_op_hdr_len(op));
}

static void ack_unlink(struct emu_qp *qp)
{
	struct emu_transport *t = emu_transport_of(qp->dev);
	struct emu_qp **pp;

	for (pp = &t->ack_list; *pp; pp = &(*pp)->resp.ack_next) {
		if (*pp == qp) {
			*pp = qp->resp.ack_next;
			break;
		}
	}
	qp->resp.ack_pending = false;
	qp->resp.ack_next = NULL;
}

/* ACKs are coalesced: one per QP and receive batch, for the newest PSN;
 * it acknowledges every packet before it too. */
static void ack_later(struct emu_qp *qp)
{
	struct emu_transport *t = emu_transport_of(qp->dev);

	if (qp->resp.ack_pending)
		return;
	qp->resp.ack_pending = true;
	qp->resp.ack_next = t->ack_list;
	t->ack_list = qp;
}

static void send_ack(struct emu_qp *qp)
{
	send_aeth(qp, resp_op(qp, WIRE_OPB_ACK),
		  aeth_syn_ack(AETH_CREDITS_INVALID), psn_sub(qp->resp.psn, 1));
}

void emu_resp_ack_now(struct emu_qp *qp)
{
	if (!qp->resp.ack_pending)
		return;
	ack_unlink(qp);
	send_ack(qp);
}

void emu_resp_flush_acks(struct emu_transport *t)
{
	while (t->ack_list) {
		struct emu_qp *qp = t->ack_list;

		t->ack_list = qp->resp.ack_next;
		qp->resp.ack_next = NULL;
		qp->resp.ack_pending = false;
		if (emu_qp_state(qp) != IBV_QPS_ERR)
			send_ack(qp);
	}
}

/* A NAK overtakes nothing: a coalesced ACK still owed goes first. */
static void send_nak(struct emu_qp *qp, uint8_t syn, uint32_t psn)
{
	emu_log(EMU_LOG_XPORT, "qp 0x%06x: sending %s at psn 0x%06x",
		qp->qpn, aeth_syn_kind(syn) == AETH_RNR_NAK ? "RNR NAK" :
			 aeth_nak_str(aeth_syn_value(syn)), psn);
	EMU_PUBLISH(nak, qp, true, syn, psn);
	emu_resp_ack_now(qp);
	send_aeth(qp, resp_op(qp, WIRE_OPB_ACK), syn, psn);
}

static struct emu_rwqe *rq_head(struct emu_qp *qp)
{
	uint32_t cons;

	/* From an SRQ: the WQE is taken at once and stays this QP's until
	 * its message completes, whatever other QPs take meanwhile. */
	if (qp->held_srq)
		return qp->held;
	if (qp->rx_srq) {
		if (!emu_srq_take(qp->rx_srq, qp->held))
			return NULL;
		qp->held_srq = qp->rx_srq;
		emu_srq_get(qp->held_srq);
		return qp->held;
	}
	cons = atomic_load_explicit(&qp->rq.cons,
					     memory_order_relaxed);

	if (cons == atomic_load_explicit(&qp->rq.prod, memory_order_acquire))
		return NULL;
	return emu_wq_slot(&qp->rq, cons);
}

/* The receive WQE ends in error, and the QP with it. */
static void recv_error(struct emu_qp *qp, struct emu_rwqe *w,
		       enum ibv_wc_status status)
{
	struct ibv_wc wc = {
		.wr_id = w->wr_id,
		.status = status,
		.opcode = IBV_WC_RECV,
	};

	emu_qp_complete_recv(qp, &wc, false);
}

static void recv_done(struct emu_qp *qp, struct emu_rwqe *w,
		      struct emu_rx_pkt *pkt, enum ibv_wc_opcode op,
		      uint32_t byte_len)
{
	struct ibv_wc wc = {
		.wr_id = w->wr_id,
		.status = IBV_WC_SUCCESS,
		.opcode = op,
		.byte_len = byte_len,
		.src_qp = dest_qpn(qp),
	};

	if (wire_op_has(pkt->opcode, WIRE_F_IMMDT)) {
		wc.imm_data = immdt_imm_be(pkt->w.hdr);
		wc.wc_flags |= IBV_WC_WITH_IMM;
	}
	if (wire_op_has(pkt->opcode, WIRE_F_IETH)) {
		wc.invalidated_rkey = ieth_rkey(pkt->w.hdr);
		wc.wc_flags |= IBV_WC_WITH_INV;
	}
	emu_qp_complete_recv(qp, &wc, bth_se(pkt->w.hdr));
}

/* ---- tag matching ------------------------------------------------------- */

static bool on_tm_srq(const struct emu_qp *qp)
{
	return qp->srq && qp->srq->type == IBV_SRQT_TM;
}

/* The opcode a message placed in a plain WQE completes with. */
static enum ibv_wc_opcode plain_opcode(const struct emu_qp *qp)
{
	switch (qp->resp.tm_kind) {
	case EMU_TM_NO_TAG:
		return IBV_WC_TM_NO_TAG;
	case EMU_TM_UNEXP:
		return IBV_WC_TM_RECV;
	default:
		return IBV_WC_RECV;
	}
}

/* A matched eager message fails in its tag, and the QP with it. */
static void tm_error(struct emu_qp *qp, enum ibv_wc_status status)
{
	struct ibv_wc wc = {
		.wr_id = qp->resp.tm.wr_id,
		.status = status,
		.opcode = IBV_WC_TM_RECV,
	};

	/* Completed once: the flush of the QP's error must not again. */
	qp->resp.tm_kind = EMU_TM_NONE;
	emu_tm_complete(qp, &wc, NULL, false);
}

/* Eager data goes to the tag's buffer without the TMH. */
static enum resp_res tm_eager(struct emu_qp *qp, struct emu_rx_pkt *pkt,
			      uint32_t skip)
{
	uint32_t flags = pkt->w.info->flags, n = pkt->w.paylen - skip;
	struct emu_resp_state *r = &qp->resp;
	uint32_t room = r->tm.num_sge ? r->tm.sge.length : 0;
	int rc;

	if (r->tm_off + n > room) {
		tm_error(qp, IBV_WC_LOC_LEN_ERR);
		return R_NAK_INV;
	}
	if (n) {
		rc = emu_sge_copy(qp, &r->tm.sge, r->tm.num_sge, r->tm_off,
				  pkt->w.pay + skip, n, true);
		if (rc) {
			tm_error(qp, (enum ibv_wc_status)rc);
			return R_NAK_OP;
		}
	}
	r->tm_off += n;
	if ((flags & WIRE_F_IETH) &&
	    emu_mw_invalidate(qp, ieth_rkey(pkt->w.hdr))) {
		tm_error(qp, IBV_WC_REM_INV_REQ_ERR);
		return R_NAK_INV;
	}
	if (flags & WIRE_F_LAST) {
		struct ibv_wc wc = {
			.wr_id = r->tm.wr_id,
			.status = IBV_WC_SUCCESS,
			.opcode = IBV_WC_TM_RECV,
			.byte_len = r->tm_off,
			.wc_flags = IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID,
		};

		if (flags & WIRE_F_IMMDT) {
			wc.imm_data = immdt_imm_be(pkt->w.hdr);
			wc.wc_flags |= IBV_WC_WITH_IMM;
		}
		if (flags & WIRE_F_IETH) {
			wc.invalidated_rkey = ieth_rkey(pkt->w.hdr);
			wc.wc_flags |= IBV_WC_WITH_INV;
		}
		emu_tm_complete(qp, &wc, &r->tm, bth_se(pkt->w.hdr));
	}
	return R_ACK;
}

/*
 * A SEND on a QP of a TM SRQ. Its first packet's TMH decides where the
 * message goes (emu_tm_classify); a tag matched takes the eager data, or
 * the rendezvous is started; everything else is R_PLAIN, for do_send to
 * place in a plain WQE and complete with plain_opcode().
 */
static enum resp_res tm_send(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t flags = pkt->w.info->flags, len = pkt->w.paylen;
	struct emu_resp_state *r = &qp->resp;
	uint8_t *pay = pkt->w.pay;
	struct emu_tm_match m;
	bool have;

	if (!(flags & WIRE_F_FIRST)) {
		if (r->tm_kind == EMU_TM_EAGER)
			return tm_eager(qp, pkt, 0);
		return R_PLAIN;
	}
	/* Peek, not take: a matched message leaves the WQEs alone. */
	have = qp->held_srq || emu_srq_has_wqe(qp->srq);
	if (!emu_tm_classify(qp, pay, len, (flags & WIRE_F_LAST) != 0, have,
			     &r->tm_kind, &m))
		return R_NAK_INV;
	switch (r->tm_kind) {
	case EMU_TM_EAGER:
		r->tm = m;
		r->tm_off = 0;
		return tm_eager(qp, pkt, WIRE_TMH_LEN);
	case EMU_TM_RNDV:
		r->tm = m;
		emu_tm_rndv(qp, &r->tm, pay, len, bth_se(pkt->w.hdr));
		return R_ACK;
	default:
		return R_PLAIN;
	}
}

/* ---- the operations ------------------------------------------------------ */

static enum resp_res do_send(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t flags = pkt->w.info->flags, len = pkt->w.paylen;
	struct emu_rwqe *w;
	int rc;

	if (len > qp->mtu || (!(flags & WIRE_F_LAST) && len != qp->mtu))
		return R_NAK_INV;
	if (on_tm_srq(qp)) {
		enum resp_res tr = tm_send(qp, pkt);

		if (tr != R_PLAIN)
			return tr;
	}
	w = rq_head(qp);
	if (!w)
		return R_RNR;
	if (flags & WIRE_F_FIRST)
		qp->resp.rwqe_off = 0;
	if (qp->resp.rwqe_off + len > w->length) {
		recv_error(qp, w, IBV_WC_LOC_LEN_ERR);
		return R_NAK_INV;
	}
	rc = emu_sge_copy(qp, w->sge, w->num_sge, qp->resp.rwqe_off,
			  pkt->w.pay, len, true);
	if (rc) {
		recv_error(qp, w, (enum ibv_wc_status)rc);
		return R_NAK_OP;
	}
	qp->resp.rwqe_off += len;
	/* SEND with invalidate: the named window dies with the message
	 * (IBTA 10.6.7.2.3); one that cannot is a class J error, answered
	 * with an invalid request NAK, the receive failing as rxe fails it. */
	if ((flags & WIRE_F_IETH) &&
	    emu_mw_invalidate(qp, ieth_rkey(pkt->w.hdr))) {
		recv_error(qp, w, IBV_WC_REM_INV_REQ_ERR);
		return R_NAK_INV;
	}
	if (flags & WIRE_F_LAST) {
		recv_done(qp, w, pkt, plain_opcode(qp), qp->resp.rwqe_off);
		qp->resp.rwqe_off = 0;
	}
	return R_ACK;
}

static enum resp_res do_write(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t flags = pkt->w.info->flags, len = pkt->w.paylen;
	struct emu_resp_state *r = &qp->resp;
	struct emu_rwqe *w = NULL;
	uint8_t *p;

	if (flags & WIRE_F_FIRST) {
		if (!(qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE))
			return R_NAK_ACC;
		r->w_va = reth_va(pkt->w.hdr);
		r->w_rkey = reth_rkey(pkt->w.hdr);
		r->w_len = reth_len(pkt->w.hdr);
		r->w_off = 0;
		if (r->w_len > 0x80000000u)
			return R_NAK_INV;
		/* The whole target is checked before any byte lands. */
		if (r->w_len &&
		    emu_mr_resolve_rkey(qp->dev, r->w_rkey, qp->pd, qp->qpn,
					r->w_va, r->w_len,
					IBV_ACCESS_REMOTE_WRITE,
					&p) != EMU_MR_OK)
			return R_NAK_ACC;
	}
	if (len > qp->mtu || (!(flags & WIRE_F_LAST) && len != qp->mtu) ||
	    r->w_off + len > r->w_len ||
	    ((flags & WIRE_F_LAST) && r->w_off + len != r->w_len))
		return R_NAK_INV;
	if (flags & WIRE_F_IMMDT) {
		/* The immediate consumes a receive WQE; without one the
		 * packet is refused before it writes anything. */
		w = rq_head(qp);
		if (!w)
			return R_RNR;
	}
	if (len) {
		if (emu_mr_resolve_rkey(qp->dev, r->w_rkey, qp->pd, qp->qpn,
					r->w_va + r->w_off, len,
					IBV_ACCESS_REMOTE_WRITE,
					&p) != EMU_MR_OK)
			return R_NAK_ACC;
		if (emu_guard_copy(p, pkt->w.pay, len))
			return unmapped(qp, "RDMA WRITE", r->w_va + r->w_off);
	}
	r->w_off += len;
	if (w)
		recv_done(qp, w, pkt, IBV_WC_RECV_RDMA_WITH_IMM, r->w_len);
	return R_ACK;
}

static struct emu_rd_res *res_new(struct emu_qp *qp)
{
	struct emu_resp_state *r = &qp->resp;
	unsigned int n = qp->attr.max_dest_rd_atomic;
	struct emu_rd_res *res;

	if (n > r->nres)
		n = r->nres;
	if (r->res_next >= n)
		r->res_next = 0;
	res = &r->res[r->res_next++];
	memset(res, 0, sizeof(*res));
	return res;
}

static struct emu_rd_res *res_find(struct emu_qp *qp, uint32_t psn,
				   uint8_t kind)
{
	unsigned int i;

	for (i = 0; i < qp->resp.nres; i++) {
		struct emu_rd_res *res = &qp->resp.res[i];

		if (res->kind == kind &&
		    psn_in_range(psn, res->first_psn, res->last_psn))
			return res;
	}
	return NULL;
}

/* Send READ responses for [va, va + len) starting at psn. Returns how
 * many went out: fewer than the READ's packets when a page of the region
 * was not mapped (the first not sent is the one that met it). */
static uint32_t read_reply(struct emu_qp *qp, uint32_t psn,
			   const uint8_t *src, uint32_t len)
{
	uint32_t n = len ? (len + qp->mtu - 1) / qp->mtu : 1;
	uint32_t i, off = 0;

	for (i = 0; i < n; i++) {
		uint32_t chunk = len - off > qp->mtu ? qp->mtu : len - off;
		uint32_t pad = wire_pad_len(chunk);
		uint8_t *buf = resp_buf(qp);
		struct iovec piece;
		uint8_t op;

		if (n == 1)
			op = resp_op(qp, WIRE_OPB_READ_RESP_ONLY);
		else if (i == 0)
			op = resp_op(qp, WIRE_OPB_READ_RESP_FIRST);
		else if (i == n - 1)
			op = resp_op(qp, WIRE_OPB_READ_RESP_LAST);
		else
			op = resp_op(qp, WIRE_OPB_READ_RESP_MIDDLE);
		bth_init(buf, op, false, false, pad, WIRE_DEFAULT_PKEY,
			 dest_qpn(qp), false, psn_add(psn, i));
		if (wire_op_has(op, WIRE_F_AETH))
			aeth_init(buf, aeth_syn_ack(AETH_CREDITS_INVALID),
				  qp->resp.msn);
		/* Sent from the region itself, which cannot be deregistered
		 * before the batch is flushed (emu/objects/mr.c). A zero-length READ
		 * has no region behind it (src is NULL). */
		piece = (struct iovec){ chunk ? (uint8_t *)src + off : NULL,
					chunk };
		if (emu_tx_packet_parts(qp, &qp->src, &qp->dest,
					resp_tclass(qp), buf,
					wire_op_hdr_len(op), &piece,
					chunk ? 1 : 0, chunk))
			return i;
		off += chunk;
	}
	return n;
}

static enum resp_res read_checked(struct emu_qp *qp, uint64_t va,
				  uint32_t rkey, uint32_t len,
				  const uint8_t **src)
{
	uint8_t *p = NULL;

	if (len > 0x80000000u)
		return R_NAK_INV;
	if (len && emu_mr_resolve_rkey(qp->dev, rkey, qp->pd, qp->qpn, va,
				       len, IBV_ACCESS_REMOTE_READ,
				       &p) != EMU_MR_OK)
		return R_NAK_ACC;
	*src = p;
	return R_ANSWERED;
}

static enum resp_res do_read(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint64_t va = reth_va(pkt->w.hdr);
	uint32_t rkey = reth_rkey(pkt->w.hdr), len = reth_len(pkt->w.hdr);
	struct emu_rd_res *res;
	const uint8_t *src;
	enum resp_res rc;
	uint32_t n, sent;

	if (!qp->attr.max_dest_rd_atomic)
		return R_NAK_INV;
	if (!(qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_READ))
		return R_NAK_ACC;
	rc = read_checked(qp, va, rkey, len, &src);
	if (rc != R_ANSWERED)
		return rc;
	n = len ? (len + qp->mtu - 1) / qp->mtu : 1;
	emu_resp_ack_now(qp);
	qp->resp.msn = (qp->resp.msn + 1) & WIRE_MSN_MASK;
	sent = read_reply(qp, pkt->psn, src, len);
	if (sent < n) {
		/* As rxe's read_reply: the response that meets the missing
		 * page is an rkey violation at its own PSN; the READ did
		 * not complete, so it spends no MSN. */
		qp->resp.msn = (qp->resp.msn - 1) & WIRE_MSN_MASK;
		unmapped(qp, "RDMA READ", va + sent * qp->mtu);
		nak_error(qp, psn_add(pkt->psn, sent), R_NAK_ACC);
		return R_ANSWERED;
	}
	res = res_new(qp);
	res->kind = EMU_RES_READ;
	res->first_psn = pkt->psn;
	res->last_psn = psn_add(pkt->psn, n - 1);
	res->va = va;
	res->rkey = rkey;
	res->len = len;
	qp->resp.psn = psn_add(pkt->psn, n);
	return R_ANSWERED;
}

static void atomic_ack(struct emu_qp *qp, uint32_t psn, uint64_t orig)
{
	uint8_t op = resp_op(qp, WIRE_OPB_ATOMIC_ACK);
	uint8_t *buf = resp_buf(qp);

	bth_init(buf, op, false, false, 0, WIRE_DEFAULT_PKEY, dest_qpn(qp),
		 false, psn);
	aeth_init(buf, aeth_syn_ack(AETH_CREDITS_INVALID), qp->resp.msn);
	atmack_set_orig(buf, orig);
	emu_tx_packet(qp, &qp->src, &qp->dest, resp_tclass(qp), buf,
		      wire_op_hdr_len(op));
}

static enum resp_res do_atomic(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint64_t va = atmeth_va(pkt->w.hdr), orig;
	struct emu_rd_res *res;
	uint8_t *p;

	if (!qp->attr.max_dest_rd_atomic)
		return R_NAK_INV;
	if (!(qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC))
		return R_NAK_ACC;
	if (va & 7)
		return R_NAK_INV;
	if (emu_mr_resolve_rkey(qp->dev, atmeth_rkey(pkt->w.hdr), qp->pd,
				qp->qpn, va, 8, IBV_ACCESS_REMOTE_ATOMIC,
				&p) != EMU_MR_OK)
		return R_NAK_ACC;
	/* Atomic against the CPU too: the application may be spinning on
	 * the word. The engine thread serialises this HCA's atomics. */
	if (emu_guard_atomic((uint64_t *)(void *)p,
			     (pkt->opcode & 0x1f) == WIRE_OPB_CMP_SWAP,
			     atmeth_compare(pkt->w.hdr),
			     atmeth_swap_add(pkt->w.hdr), &orig))
		return unmapped(qp, "atomic", va);
	res = res_new(qp);
	res->kind = EMU_RES_ATOMIC;
	res->first_psn = res->last_psn = pkt->psn;
	res->orig = orig;
	emu_resp_ack_now(qp);
	qp->resp.msn = (qp->resp.msn + 1) & WIRE_MSN_MASK;
	atomic_ack(qp, pkt->psn, orig);
	qp->resp.psn = psn_inc(pkt->psn);
	return R_ANSWERED;
}

/* IBTA 9.7.5.1.2: a duplicate SEND or WRITE is acknowledged again, a
 * duplicate READ answered again, a duplicate atomic answered from the
 * result kept for it, never executed a second time. */
static void duplicate(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t flags = pkt->w.info->flags;
	struct emu_rd_res *res;

	EMU_CNT_EV(qp, dup_requests);
	if (flags & (WIRE_F_SEND | WIRE_F_WRITE)) {
		ack_later(qp);
	} else if (flags & WIRE_F_READ) {
		uint64_t va = reth_va(pkt->w.hdr);
		uint32_t len = reth_len(pkt->w.hdr);
		const uint8_t *src;

		res = res_find(qp, pkt->psn, EMU_RES_READ);
		/* Only a part of the original request is asked again. */
		if (!res || reth_rkey(pkt->w.hdr) != res->rkey ||
		    !emu_rd_res_covers(res, va, len))
			return;
		if (read_checked(qp, va, res->rkey, len, &src) != R_ANSWERED)
			return;
		emu_resp_ack_now(qp);
		/* A page gone since stops the answer here, silently, as a
		 * key gone since does above. */
		read_reply(qp, pkt->psn, src, len);
	} else if (flags & WIRE_F_ATOMIC) {
		res = res_find(qp, pkt->psn, EMU_RES_ATOMIC);
		if (!res)
			return;
		emu_resp_ack_now(qp);
		atomic_ack(qp, pkt->psn, res->orig);
	}
}

/* Is op a valid next packet given what came before (IBTA 9.7.5.1.5)? */
static bool sequence_ok(struct emu_qp *qp, uint32_t flags)
{
	if (qp->resp.in_msg)
		return !(flags & WIRE_F_FIRST) &&
		       (flags & (WIRE_F_SEND | WIRE_F_WRITE)) ==
		       qp->resp.msg_kind;
	return flags & WIRE_F_FIRST;
}

static enum resp_res execute(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t flags = pkt->w.info->flags;

	/* Requests taken in sequence, as mlx5 counts them: messages for
	 * WRITEs, packets for READ requests and atomics. */
	if ((flags & (WIRE_F_WRITE | WIRE_F_FIRST)) ==
	    (WIRE_F_WRITE | WIRE_F_FIRST))
		EMU_CNT_EV(qp, rx_write);
	else if ((flags & (WIRE_F_READ | WIRE_F_REQ)) ==
		 (WIRE_F_READ | WIRE_F_REQ))
		EMU_CNT_EV(qp, rx_read);
	else if (flags & WIRE_F_ATOMIC)
		EMU_CNT_EV(qp, rx_atomic);
	if (flags & WIRE_F_SEND)
		return do_send(qp, pkt);
	if (flags & WIRE_F_WRITE)
		return do_write(qp, pkt);
	if (flags & WIRE_F_READ)
		return do_read(qp, pkt);
	if (flags & WIRE_F_ATOMIC)
		return do_atomic(qp, pkt);
	return R_NAK_INV;
}

/* After a packet is taken: track the message it belongs to. */
static void advance(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t flags = pkt->w.info->flags;

	if (flags & (WIRE_F_SEND | WIRE_F_WRITE)) {
		qp->resp.in_msg = !(flags & WIRE_F_LAST);
		qp->resp.msg_kind = flags & (WIRE_F_SEND | WIRE_F_WRITE);
		qp->resp.psn = psn_inc(pkt->psn);
		if (flags & WIRE_F_LAST)
			qp->resp.msn = (qp->resp.msn + 1) & WIRE_MSN_MASK;
	}
}

/* Class A/C errors: NAK the request and take the QP to ERR. */
static void nak_error(struct emu_qp *qp, uint32_t psn, enum resp_res r)
{
	enum ibv_event_type ev;
	uint8_t syn;

	switch (r) {
	case R_NAK_ACC:
		syn = aeth_syn_nak(AETH_NAK_REMOTE_ACCESS);
		ev = IBV_EVENT_QP_ACCESS_ERR;
		break;
	case R_NAK_OP:
		syn = aeth_syn_nak(AETH_NAK_REMOTE_OP);
		ev = IBV_EVENT_QP_FATAL;
		break;
	default:
		syn = aeth_syn_nak(AETH_NAK_INVALID_REQ);
		ev = IBV_EVENT_QP_REQ_ERR;
		break;
	}
	send_nak(qp, syn, psn);
	emu_qp_error(qp, ev);
}

static void rc_request(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t flags = pkt->w.info->flags;
	int32_t d = psn_diff(pkt->psn, qp->resp.psn);
	enum resp_res r;

	if (d < 0) {
		duplicate(qp, pkt);
		return;
	}
	if (d > 0) {
		/* A gap: one sequence NAK per gap names the PSN expected;
		 * everything until it arrives is dropped. */
		EMU_CNT_EV(qp, oos_requests);
		if (!qp->resp.nak_sent) {
			qp->resp.nak_sent = true;
			send_nak(qp, aeth_syn_nak(AETH_NAK_PSN_SEQ),
				 qp->resp.psn);
		}
		return;
	}
	qp->resp.nak_sent = false;
	/* An XRCETH naming no XRC SRQ of the target's domain is invalid. */
	if (qp->type == IBV_QPT_XRC_RECV && !qp->rx_srq)
		r = R_NAK_INV;
	else
		r = sequence_ok(qp, flags) ? execute(qp, pkt) : R_NAK_INV;
	switch (r) {
	case R_ACK:
		advance(qp, pkt);
		/* Acknowledged when the requester asks (the last packet of
		 * a message, and every so many inside a long one), as rxe
		 * and NICs do; the batch's requests share one ACK. */
		if (bth_ackreq(pkt->w.hdr))
			ack_later(qp);
		break;
	case R_ANSWERED:
		break;
	case R_RNR:
		EMU_CNT_EV(qp, out_of_buffer);
		send_nak(qp, aeth_syn_rnr(qp->attr.min_rnr_timer), pkt->psn);
		break;
	default:
		nak_error(qp, pkt->psn, r);
		break;
	}
}

/* UC: no acknowledgements; a lost packet loses the rest of its message,
 * and reception resumes at the next FIRST or ONLY. */
static void uc_request(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t flags = pkt->w.info->flags;
	struct emu_resp_state *r = &qp->resp;
	enum resp_res res;

	if (pkt->psn != r->psn) {
		EMU_CNT_EV(qp, oos_requests);
		r->in_msg = false;
		r->drop_msg = true;
	}
	r->psn = psn_inc(pkt->psn);
	if (flags & WIRE_F_FIRST) {
		/* A new message abandons a broken one; its receive WQE
		 * is used again from the start. */
		r->drop_msg = false;
		r->in_msg = false;
	}
	if (r->drop_msg)
		return;
	if (!sequence_ok(qp, flags)) {
		r->drop_msg = !(flags & WIRE_F_LAST);
		r->in_msg = false;
		return;
	}
	res = execute(qp, pkt);
	switch (res) {
	case R_ACK:
		advance(qp, pkt);
		break;
	case R_NAK_OP:
		/* The local receive buffer was bad: that is this QP's
		 * error, whatever the transport. */
		emu_qp_error(qp, 0);
		break;
	default:
		if (res == R_RNR)
			EMU_CNT_EV(qp, out_of_buffer);
		r->in_msg = false;
		/* Class D: the message is dropped, the QP goes on (a
		 * receive WQE too short for it has completed in error). */
		r->drop_msg = !(flags & WIRE_F_LAST);
		break;
	}
}

/* The 40 bytes a UD receive buffer starts with, from what came with the
 * datagram. */
static void build_grh(uint8_t *g, const struct emu_rx_pkt *pkt)
{
	const struct emu_udp_pkt *u = pkt->u;
	struct emu_iphdr h = {
		.src = u->src,
		.dst = u->dst,
		.tos = u->tos,
		.ttl = u->ttl,
		.ip_id = pkt->ip_id,
		/* The ICRC solve finds DF or no flags, no offset. */
		.df = pkt->ip_frag & 0x4000,
	};

	emu_iphdr_grh(g, &h, u->len);
}

static void ud_request(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t len = pkt->w.paylen;
	struct ibv_wc wc = { 0 };
	struct emu_rwqe *w;
	uint8_t grh[EMU_GRH_LEN];
	int rc;

	if (deth_qkey(pkt->w.hdr) != qp->attr.qkey) {
		pkt->tp->cnt.rx_bad_qkey++;
		emu_log(EMU_LOG_RX, "qp 0x%06x: UD packet dropped: Q_Key "
			"0x%08x, the QP's is 0x%08x", qp->qpn,
			deth_qkey(pkt->w.hdr), qp->attr.qkey);
		return;
	}
	w = rq_head(qp);
	if (!w) {
		EMU_CNT_EV(qp, out_of_buffer);
		emu_log(EMU_LOG_RX, "qp 0x%06x: UD packet dropped: no receive "
			"posted", qp->qpn);
		return;
	}
	if (len > qp->mtu) {
		emu_log(EMU_LOG_RX, "qp 0x%06x: UD packet dropped: %u bytes "
			"exceed the MTU %u", qp->qpn, len, qp->mtu);
		return;
	}
	if (40 + len > w->length) {
		/* Too long for the receive at the head of the queue: dropped
		 * without a word, the receive left for the next datagram, as
		 * mlx5 and rxe (IBTA class D) drop it. From an SRQ the WQE is
		 * taken before its size is known: it completes in error (rxe
		 * completes it too), and the QP carries on. */
		if (!qp->held_srq) {
			EMU_CNT_EV(qp, resp_local_length);
			emu_log(EMU_LOG_RX, "qp 0x%06x: UD packet dropped: "
				"40 + %u bytes do not fit the %u of the "
				"receive", qp->qpn, len, w->length);
			return;
		}
		recv_error(qp, w, IBV_WC_LOC_LEN_ERR);
		return;
	}
	build_grh(grh, pkt);
	rc = emu_sge_copy(qp, w->sge, w->num_sge, 0, grh, sizeof(grh), true);
	if (!rc && len)
		rc = emu_sge_copy(qp, w->sge, w->num_sge, sizeof(grh),
				  pkt->w.pay, len, true);
	if (rc) {
		recv_error(qp, w, (enum ibv_wc_status)rc);
		emu_qp_error(qp, 0);
		return;
	}
	wc.wr_id = w->wr_id;
	wc.status = IBV_WC_SUCCESS;
	wc.opcode = IBV_WC_RECV;
	wc.byte_len = (uint32_t)sizeof(grh) + len;
	wc.src_qp = deth_sqpn(pkt->w.hdr);
	wc.wc_flags = IBV_WC_GRH;
	/* On RoCE, mlx5 reports the packet type in sl rather than a service
	 * level: bit 3 set for a UDP (RoCEv2) frame, bits 2:0 the L3 header
	 * (1 IPv6, 2 IPv4). UCX's ud_verbs reads the destination GID out of
	 * the GRH area according to it (doc/ucx.md). */
	wc.sl = 0x8 | (IN6_IS_ADDR_V4MAPPED(&pkt->u->src) ? 0x2 : 0x1);
	/* On InfiniBand: service level 0, and the sender's LID. */
	if (qp->tp->port->cfg.link_layer == IBV_LINK_LAYER_INFINIBAND) {
		wc.sl = 0;
		wc.slid = emu_subnet_lid_of(qp->tp->port, &pkt->u->src);
	}
	if (wire_op_has(pkt->opcode, WIRE_F_IMMDT)) {
		wc.imm_data = immdt_imm_be(pkt->w.hdr);
		wc.wc_flags |= IBV_WC_WITH_IMM;
	}
	emu_qp_complete_recv(qp, &wc, bth_se(pkt->w.hdr));
}

void emu_resp_packet(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	if (!qp->resp.comm_est) {
		/* The first packet in RTR establishes communication. */
		qp->resp.comm_est = true;
		if (emu_qp_state(qp) == IBV_QPS_RTR &&
		    qp->type != IBV_QPT_UD)
			emu_qp_event(qp, IBV_EVENT_COMM_EST);
	}
	if (qp->type == IBV_QPT_XRC_RECV) {
		struct emu_srq *srq = emu_srq_lookup(qp->dev,
						     xrceth_srqn(pkt->w.hdr));

		if (srq && (srq->type != IBV_SRQT_XRC || srq->xrcd != qp->xrcd))
			srq = NULL;
		qp->rx_srq = srq;
		/* A target QP has no PD: IBTA has the SRQ's PD check the
		 * keys of the request (it is read only while the packet
		 * is handled, and never dropped). */
		qp->pd = srq ? srq->pd : NULL;
	}
	switch (qp->type) {
	case IBV_QPT_RC:
	case IBV_QPT_XRC_RECV:
		rc_request(qp, pkt);
		break;
	case IBV_QPT_UC:
		uc_request(qp, pkt);
		break;
	case IBV_QPT_UD:
		ud_request(qp, pkt);
		break;
	default:
		break;
	}
}
