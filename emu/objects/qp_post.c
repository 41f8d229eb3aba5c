/* Posting into a QP's rings: the send WQE writer (emu_sq_*) that
 * ibv_post_send, ibv_bind_mw and the ibv_wr_* API share, ibv_post_recv,
 * the HCA's own send work (emu_qp_post_internal), and the doorbell that
 * hands the work to the engine or, when it is idle, runs it in place. */
#include <errno.h>
#include <string.h>

#include "emu/objects/ah.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/base/log.h"
#include "emu/objects/mw.h"
#include "emu/objects/names.h"
#include "emu/objects/qp.h"
#include "emu/objects/qp_int.h"
#include "emu/objects/xport.h"
#include "emu/objects/wr.h"
#include "net/hdr.h"

void emu_qp_doorbell(void *arg)
{
	struct emu_qp *qp = arg;

	if (emu_qp_state(qp) == IBV_QPS_ERR) {
		emu_qp_flush_sq(qp);
		emu_qp_flush_rq(qp);
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
	emu_qp_doorbell(qp);
	emu_engine_leave(e);
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
