/* The ibv_wr_* work-request interface of extended QPs, as mlx5 builds it:
 * ibv_wr_start takes the send queue, each builder writes the next slot of
 * the ring in place, ibv_wr_complete publishes them all and rings the
 * doorbell once, ibv_wr_abort leaves them unwritten. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/qp.h"
#include "emu/objects/qp_ex.h"
#include "emu/objects/wr.h"
#include "verbs/err.h"
#include "verbs/qp_ex.h"

/* Operations the emulated HCA implements at all; the others (TSO, flush,
 * atomic write) are refused. */
#define QPX_OPS_SUPPORTED (IBV_QP_EX_WITH_RDMA_WRITE |			\
			   IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		\
			   IBV_QP_EX_WITH_SEND |			\
			   IBV_QP_EX_WITH_SEND_WITH_IMM |		\
			   IBV_QP_EX_WITH_RDMA_READ |			\
			   IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |		\
			   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |	\
			   IBV_QP_EX_WITH_SEND_WITH_INV |		\
			   IBV_QP_EX_WITH_BIND_MW |			\
			   IBV_QP_EX_WITH_LOCAL_INV)

static struct emu_qpx *qpx_of(struct ibv_qp_ex *ibqp)
{
	return (struct emu_qpx *)ibqp;
}

static struct emu_sq_batch *batch_of(struct ibv_qp_ex *ibqp)
{
	return &to_emu_qp(&ibqp->qp_base)->wrb;
}

/* The first error of a section is the one wr_complete reports, as
 * rdma-core providers do; everything after it is written for nothing. */
static void set_err(struct emu_qpx *x, int err)
{
	if (!x->err)
		x->err = err;
}

/* Outside a section nothing happens: no lock is held and there is no one
 * to report to. */
static bool active(struct ibv_qp_ex *ibqp)
{
	return atomic_load_explicit(&qpx_of(ibqp)->active,
				    memory_order_relaxed);
}

/* The WQE before the next one is complete once the next is begun (or at
 * wr_complete): only then may its setters no longer come, so only then
 * can what needs all of it (a UD address, the message size) be
 * checked. */
static void end_cur(struct ibv_qp_ex *ibqp)
{
	struct emu_sq_batch *b = batch_of(ibqp);
	int rc;

	if (!b->cur)
		return;
	rc = emu_sq_end(b);
	if (rc) {
		set_err(qpx_of(ibqp), rc);
		b->cur = NULL;
	}
}

/*
 * Every builder starts here: the next slot, or an error and no current
 * WQE, so that the setters that follow a refused builder do not land on
 * the WQE before it.
 */
static struct emu_swqe *new_wqe(struct ibv_qp_ex *ibqp, uint64_t op_flag,
				enum ibv_wr_opcode opcode)
{
	struct emu_sq_batch *b = batch_of(ibqp);
	struct emu_qpx *x = qpx_of(ibqp);
	int rc;

	if (!active(ibqp))
		return NULL;
	end_cur(ibqp);
	if (!(x->ops & op_flag)) {
		set_err(x, emu_refuse(EOPNOTSUPP, "ibv_wr_*: opcode %d not in "
				      "the QP's send_ops_flags",
				      (int)opcode));
		return NULL;
	}
	/* Inline is what the inline setters say, not a flag: a stray
	 * IBV_SEND_INLINE would make the SGEs be read as data. wr_id and
	 * the flags are read now, as the builder runs. */
	rc = emu_sq_next(b, opcode, ibqp->wr_id,
			 ibqp->wr_flags & ~(unsigned int)IBV_SEND_INLINE);
	if (rc) {
		set_err(x, rc);
		return NULL;
	}
	return b->cur;
}

/* The WQE a setter applies to; a setter with no builder before it is an
 * error, one after a refused builder is already accounted for. */
static struct emu_swqe *cur_wqe(struct ibv_qp_ex *ibqp)
{
	struct emu_sq_batch *b = batch_of(ibqp);
	struct emu_qpx *x = qpx_of(ibqp);

	if (!active(ibqp))
		return NULL;
	if (!b->cur && !x->err)
		set_err(x, emu_refuse(EINVAL, "ibv_wr_set_*: no WR builder "
				      "before the setter"));
	return b->cur;
}

/* ---- builders --------------------------------------------------------- */

static void qpx_send(struct ibv_qp_ex *ibqp)
{
	new_wqe(ibqp, IBV_QP_EX_WITH_SEND, IBV_WR_SEND);
}

static void qpx_send_imm(struct ibv_qp_ex *ibqp, __be32 imm_data)
{
	struct emu_swqe *w = new_wqe(ibqp, IBV_QP_EX_WITH_SEND_WITH_IMM,
				     IBV_WR_SEND_WITH_IMM);

	if (w)
		w->imm_be = imm_data;
}

static void qpx_send_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	struct emu_swqe *w = new_wqe(ibqp, IBV_QP_EX_WITH_SEND_WITH_INV,
				     IBV_WR_SEND_WITH_INV);

	if (w)
		w->rkey = invalidate_rkey;
}

static void rdma_wqe(struct ibv_qp_ex *ibqp, uint64_t op_flag,
		     enum ibv_wr_opcode opcode, uint32_t rkey,
		     uint64_t remote_addr, __be32 imm_data)
{
	struct emu_swqe *w = new_wqe(ibqp, op_flag, opcode);

	if (!w)
		return;
	w->rkey = rkey;
	w->remote_addr = remote_addr;
	w->imm_be = imm_data;
}

static void qpx_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			   uint64_t remote_addr)
{
	rdma_wqe(ibqp, IBV_QP_EX_WITH_RDMA_WRITE, IBV_WR_RDMA_WRITE, rkey,
		 remote_addr, 0);
}

static void qpx_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
			       uint64_t remote_addr, __be32 imm_data)
{
	rdma_wqe(ibqp, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
		 IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr, imm_data);
}

static void qpx_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey,
			  uint64_t remote_addr)
{
	rdma_wqe(ibqp, IBV_QP_EX_WITH_RDMA_READ, IBV_WR_RDMA_READ, rkey,
		 remote_addr, 0);
}

static void atomic_wqe(struct ibv_qp_ex *ibqp, uint64_t op_flag,
		       enum ibv_wr_opcode opcode, uint32_t rkey,
		       uint64_t remote_addr, uint64_t compare_add,
		       uint64_t swap)
{
	struct emu_swqe *w = new_wqe(ibqp, op_flag, opcode);

	if (!w)
		return;
	w->rkey = rkey;
	w->remote_addr = remote_addr;
	w->compare_add = compare_add;
	w->swap = swap;
}

static void qpx_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
			       uint64_t remote_addr, uint64_t compare,
			       uint64_t swap)
{
	atomic_wqe(ibqp, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
		   IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare,
		   swap);
}

static void qpx_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				 uint64_t remote_addr, uint64_t add)
{
	atomic_wqe(ibqp, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		   IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

/* Bind a type 2 window (ibv_wr_post(3)). */
static void qpx_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw,
			uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	int rc;

	if (!new_wqe(ibqp, IBV_QP_EX_WITH_BIND_MW, IBV_WR_BIND_MW))
		return;
	rc = emu_sq_bind(batch_of(ibqp), mw, rkey, info, false);
	if (rc)
		set_err(qpx_of(ibqp), rc);
}

static void qpx_local_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	struct emu_swqe *w = new_wqe(ibqp, IBV_QP_EX_WITH_LOCAL_INV,
				     IBV_WR_LOCAL_INV);

	if (w)
		w->rkey = invalidate_rkey;
}

/*
 * Operations the HCA does not implement. The inline ibv_wr_* wrappers call
 * through the pointers unchecked, so these exist to turn the call into an
 * error at wr_complete rather than a jump to NULL; like a refused builder
 * they leave no current WQE behind.
 */
static void refuse(struct ibv_qp_ex *ibqp)
{
	if (!active(ibqp))
		return;
	end_cur(ibqp);
	batch_of(ibqp)->cur = NULL;
	set_err(qpx_of(ibqp), emu_refuse(EOPNOTSUPP, "ibv_wr_tso/flush/"
					 "atomic_write: not emulated"));
}

static void qpx_send_tso(struct ibv_qp_ex *ibqp, void *hdr, uint16_t hdr_sz,
			 uint16_t mss)
{
	refuse(ibqp);
}

static void qpx_flush(struct ibv_qp_ex *ibqp, uint32_t rkey,
		      uint64_t remote_addr, size_t len, uint8_t type,
		      uint8_t level)
{
	refuse(ibqp);
}

static void qpx_atomic_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			     uint64_t remote_addr, const void *atomic_wr)
{
	refuse(ibqp);
}

/* ---- setters ---------------------------------------------------------- */

static void qpx_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah,
			    uint32_t remote_qpn, uint32_t remote_qkey)
{
	if (cur_wqe(ibqp))
		emu_sq_ud(batch_of(ibqp), ah, remote_qpn, remote_qkey);
}

static void qpx_set_xrc_srqn(struct ibv_qp_ex *ibqp, uint32_t remote_srqn)
{
	if (cur_wqe(ibqp))
		emu_sq_xrc(batch_of(ibqp), remote_srqn);
}

static void set_sges(struct ibv_qp_ex *ibqp, size_t num_sge,
		     const struct ibv_sge *sg_list)
{
	struct emu_swqe *w = cur_wqe(ibqp);
	int rc;

	if (!w)
		return;
	/* A count past LONG_MAX reads as negative: refused all the same. */
	rc = emu_sq_sges(batch_of(ibqp), sg_list, (long)num_sge);
	if (rc)
		set_err(qpx_of(ibqp), rc);
	w->send_flags &= ~(unsigned int)IBV_SEND_INLINE;
}

static void qpx_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey, uint64_t addr,
			uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	set_sges(ibqp, 1, &sge);
}

static void qpx_set_sge_list(struct ibv_qp_ex *ibqp, size_t num_sge,
			     const struct ibv_sge *sg_list)
{
	set_sges(ibqp, num_sge, sg_list);
}

/* The buffers are concatenated into the slot now, so the caller may
 * reuse them as soon as the setter returns. Inline data is data a send
 * or a write carries, never a destination. */
static void set_inline(struct ibv_qp_ex *ibqp, size_t num_buf,
		       const struct ibv_data_buf *bufs)
{
	struct emu_sq_batch *b = batch_of(ibqp);
	struct emu_qpx *x = qpx_of(ibqp);
	struct emu_swqe *w = cur_wqe(ibqp);
	size_t i;
	int rc = 0;

	if (!w)
		return;
	if (!emu_wr_any(w->opcode, EMU_WR_F_INLINE) || (num_buf && !bufs)) {
		set_err(x, emu_refuse(EINVAL, "ibv_wr_set_inline_data: opcode "
				      "%d carries no inline data, or bufs "
				      "NULL", (int)w->opcode));
		return;
	}
	emu_sq_clear_data(b, true);
	for (i = 0; !rc && i < num_buf; i++)
		rc = emu_sq_inline(b, bufs[i].addr, bufs[i].length);
	if (rc)
		set_err(x, rc);
	w->send_flags |= IBV_SEND_INLINE;
}

static void qpx_set_inline_data(struct ibv_qp_ex *ibqp, void *addr,
				size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	set_inline(ibqp, 1, &buf);
}

static void qpx_set_inline_data_list(struct ibv_qp_ex *ibqp, size_t num_buf,
				     const struct ibv_data_buf *buf_list)
{
	set_inline(ibqp, num_buf, buf_list);
}

/* ---- the critical section --------------------------------------------- */

/*
 * ibv_wr_post(3): start/complete/abort form a per-QP critical section no
 * other thread may enter; it holds the send queue's lock throughout, so
 * ibv_post_send on the same QP waits for it, and the calls in between
 * need no lock of their own. Whether the QP may post at all is asked at
 * wr_complete, as mlx5 asks it: before, the builders write slots that
 * are then dropped.
 */
static void qpx_start(struct ibv_qp_ex *ibqp)
{
	struct emu_qpx *x = qpx_of(ibqp);

	/* A fork() child's copy of the parent's QP: no section, so every
	 * builder is a no-op and wr_complete fails (EIO, below). */
	if (emu_ctx_inherited(emu_ctx(ibqp->qp_base.context)))
		return;
	emu_sq_begin(to_emu_qp(&ibqp->qp_base), batch_of(ibqp), "ibv_wr_*",
		     ENOMEM, 0);
	x->err = 0;
	atomic_store_explicit(&x->active, true, memory_order_relaxed);
}

static int qpx_complete(struct ibv_qp_ex *ibqp)
{
	struct emu_qpx *x = qpx_of(ibqp);
	int err;

	if (emu_ctx_inherited(emu_ctx(ibqp->qp_base.context)))
		return verbs_ret(emu_refuse(EIO, "ibv_wr_complete: QP %u is "
					    "the parent process's: a fork() "
					    "child cannot use it",
					    ibqp->qp_base.qp_num));
	/* Without wr_start there is no lock to release and nothing built. */
	if (!active(ibqp))
		return verbs_ret(emu_refuse(EINVAL, "ibv_wr_complete: no "
					    "ibv_wr_start before it"));
	end_cur(ibqp);
	/* Before the QP may post, mlx5's wr_complete is one that fails
	 * with EINVAL whatever the section holds, even nothing. */
	err = emu_sq_closed(batch_of(ibqp), EINVAL);
	if (!err)
		err = x->err;
	atomic_store_explicit(&x->active, false, memory_order_relaxed);
	/* On any error nothing is posted: the whole batch is dropped. */
	if (err)
		emu_sq_abort(batch_of(ibqp));
	else
		emu_sq_commit(batch_of(ibqp));
	return verbs_ret(err);
}

static void qpx_abort(struct ibv_qp_ex *ibqp)
{
	if (!active(ibqp))
		return;
	atomic_store_explicit(&qpx_of(ibqp)->active, false,
			      memory_order_relaxed);
	emu_sq_abort(batch_of(ibqp));
}

/* ---- setup ------------------------------------------------------------ */

static void fill_ops(struct ibv_qp_ex *q)
{
	q->wr_start = qpx_start;
	q->wr_complete = qpx_complete;
	q->wr_abort = qpx_abort;
	q->wr_send = qpx_send;
	q->wr_send_imm = qpx_send_imm;
	q->wr_send_inv = qpx_send_inv;
	q->wr_rdma_write = qpx_rdma_write;
	q->wr_rdma_write_imm = qpx_rdma_write_imm;
	q->wr_rdma_read = qpx_rdma_read;
	q->wr_atomic_cmp_swp = qpx_atomic_cmp_swp;
	q->wr_atomic_fetch_add = qpx_atomic_fetch_add;
	q->wr_bind_mw = qpx_bind_mw;
	q->wr_local_inv = qpx_local_inv;
	q->wr_send_tso = qpx_send_tso;
	q->wr_flush = qpx_flush;
	q->wr_atomic_write = qpx_atomic_write;
	q->wr_set_ud_addr = qpx_set_ud_addr;
	q->wr_set_xrc_srqn = qpx_set_xrc_srqn;
	q->wr_set_sge = qpx_set_sge;
	q->wr_set_sge_list = qpx_set_sge_list;
	q->wr_set_inline_data = qpx_set_inline_data;
	q->wr_set_inline_data_list = qpx_set_inline_data_list;
}

int emu_verbs_qpx_init(struct emu_qpx *qpx, uint64_t send_ops_flags)
{
	if (!qpx)
		return EINVAL;
	if (send_ops_flags & ~(uint64_t)QPX_OPS_SUPPORTED)
		return emu_refuse(EOPNOTSUPP, "ibv_create_qp_ex: "
				  "send_ops_flags %#llx beyond what ibv_wr_* "
				  "offers here",
				  (unsigned long long)send_ops_flags);
	qpx->ops = send_ops_flags;
	qpx->err = 0;
	atomic_init(&qpx->active, false);
	fill_ops(&qpx->ibv);
	return 0;
}
