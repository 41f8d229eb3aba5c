/* The ibv_wr_* work-request builder of extended QPs: ibv_wr_start ...
 * ibv_wr_complete builds an ibv_send_wr chain and posts it in one call. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/log.h"
#include "emu/qp_ex.h"
#include "emu/wr.h"
#include "verbs/err.h"

/*
 * Everything a critical section can need is allocated once, here: max_wr
 * work requests, each with its own SGE slots and its own inline buffer, so
 * that inline data is copied when the setter runs (the caller may reuse
 * its buffer at once) and nothing is allocated on the posting path.
 */
struct emu_wr_builder {
	pthread_mutex_t lock;		/* wr_start to complete/abort */
	atomic_bool active;		/* inside a critical section */
	uint64_t ops;			/* IBV_QP_EX_WITH_* it was made for */
	uint32_t max_wr, max_sge, max_inline;
	uint32_t sge_slots;		/* per WR: max_sge, >= 1 for inline */
	uint32_t n;			/* WRs built since wr_start */
	int err;			/* first error since wr_start, or 0 */
	struct ibv_send_wr *cur;	/* the WR setters apply to, or NULL */
	struct ibv_send_wr *wrs;	/* [max_wr] */
	struct ibv_sge *sges;		/* [max_wr * sge_slots] */
	uint8_t *inl;			/* [max_wr * max_inline] */
};

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

static struct emu_wr_builder *wrb_of(struct ibv_qp_ex *ibqp)
{
	return ((struct emu_qpx *)ibqp)->wrb;
}

/* The first error of a critical section is the one wr_complete reports,
 * as rdma-core providers do. */
static void set_err(struct emu_wr_builder *b, int err)
{
	if (!b->err)
		b->err = err;
}

static size_t wr_index(struct emu_wr_builder *b, struct ibv_send_wr *wr)
{
	return (size_t)(wr - b->wrs);
}

static struct ibv_sge *wr_sges(struct emu_wr_builder *b,
			       struct ibv_send_wr *wr)
{
	return b->sges + wr_index(b, wr) * b->sge_slots;
}

/*
 * Every builder starts here: one new WR, or an error and no current WR so
 * that the setters that follow a refused builder do not land on the WR
 * before it. Outside a critical section nothing happens: there is no lock
 * held and no one to report to.
 */
static struct ibv_send_wr *new_wr(struct ibv_qp_ex *ibqp, uint64_t op_flag,
				  enum ibv_wr_opcode opcode)
{
	struct emu_wr_builder *b = wrb_of(ibqp);
	struct ibv_send_wr *wr;

	if (!atomic_load(&b->active))
		return NULL;
	b->cur = NULL;
	if (!(b->ops & op_flag)) {
		set_err(b, emu_refuse(EOPNOTSUPP, "ibv_wr_*: opcode %d not in "
				      "the QP's send_ops_flags",
				      (int)opcode));
		return NULL;
	}
	/* More than the send queue holds cannot be posted at once. */
	if (b->n >= b->max_wr) {
		set_err(b, emu_refuse(ENOMEM, "ibv_wr_*: more than max_send_wr "
				      "%u WRs in one wr_start", b->max_wr));
		return NULL;
	}
	wr = &b->wrs[b->n++];
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = ibqp->wr_id;
	/* Inline is what the inline setters say, not a flag: a stray
	 * IBV_SEND_INLINE would make the SGEs be read as data. */
	wr->send_flags = ibqp->wr_flags & ~IBV_SEND_INLINE;
	wr->opcode = opcode;
	wr->sg_list = wr_sges(b, wr);
	b->cur = wr;
	return wr;
}

/* The WR a setter applies to; a setter with no builder before it is an
 * error, one after a refused builder is already accounted for. */
static struct ibv_send_wr *cur_wr(struct ibv_qp_ex *ibqp)
{
	struct emu_wr_builder *b = wrb_of(ibqp);

	if (!atomic_load(&b->active))
		return NULL;
	if (!b->cur)
		set_err(b, emu_refuse(EINVAL, "ibv_wr_set_*: no WR builder "
				      "before the setter"));
	return b->cur;
}

/* ---- builders --------------------------------------------------------- */

static void qpx_send(struct ibv_qp_ex *ibqp)
{
	new_wr(ibqp, IBV_QP_EX_WITH_SEND, IBV_WR_SEND);
}

static void qpx_send_imm(struct ibv_qp_ex *ibqp, __be32 imm_data)
{
	struct ibv_send_wr *wr = new_wr(ibqp, IBV_QP_EX_WITH_SEND_WITH_IMM,
					IBV_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm_data;
}

static void qpx_send_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = new_wr(ibqp, IBV_QP_EX_WITH_SEND_WITH_INV,
					IBV_WR_SEND_WITH_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

static void rdma_wr(struct ibv_qp_ex *ibqp, uint64_t op_flag,
		    enum ibv_wr_opcode opcode, uint32_t rkey,
		    uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr *wr = new_wr(ibqp, op_flag, opcode);

	if (!wr)
		return;
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm_data;
}

static void qpx_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			   uint64_t remote_addr)
{
	rdma_wr(ibqp, IBV_QP_EX_WITH_RDMA_WRITE, IBV_WR_RDMA_WRITE, rkey,
		remote_addr, 0);
}

static void qpx_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
			       uint64_t remote_addr, __be32 imm_data)
{
	rdma_wr(ibqp, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr, imm_data);
}

static void qpx_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey,
			  uint64_t remote_addr)
{
	rdma_wr(ibqp, IBV_QP_EX_WITH_RDMA_READ, IBV_WR_RDMA_READ, rkey,
		remote_addr, 0);
}

static void atomic_wr(struct ibv_qp_ex *ibqp, uint64_t op_flag,
		      enum ibv_wr_opcode opcode, uint32_t rkey,
		      uint64_t remote_addr, uint64_t compare_add,
		      uint64_t swap)
{
	struct ibv_send_wr *wr = new_wr(ibqp, op_flag, opcode);

	if (!wr)
		return;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

static void qpx_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
			       uint64_t remote_addr, uint64_t compare,
			       uint64_t swap)
{
	atomic_wr(ibqp, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
		  IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare, swap);
}

/* Bind a type 2 window (ibv_wr_post(3)); post_send checks the rest. */
static void qpx_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw,
			uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct ibv_send_wr *wr = new_wr(ibqp, IBV_QP_EX_WITH_BIND_MW,
					IBV_WR_BIND_MW);

	if (!wr)
		return;
	if (!mw || !info) {
		set_err(wrb_of(ibqp), emu_refuse(EINVAL, "ibv_wr_bind_mw: mw "
						 "or bind_info is NULL"));
		return;
	}
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *info;
}

static void qpx_local_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = new_wr(ibqp, IBV_QP_EX_WITH_LOCAL_INV,
					IBV_WR_LOCAL_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

static void qpx_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				 uint64_t remote_addr, uint64_t add)
{
	atomic_wr(ibqp, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		  IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

/*
 * Operations the HCA does not implement. The inline ibv_wr_* wrappers call
 * through the pointers unchecked, so these exist to turn the call into an
 * error at wr_complete rather than a jump to NULL; like a refused builder
 * they leave no current WR behind.
 */
static void refuse(struct ibv_qp_ex *ibqp)
{
	struct emu_wr_builder *b = wrb_of(ibqp);

	if (!atomic_load(&b->active))
		return;
	b->cur = NULL;
	set_err(b, emu_refuse(EOPNOTSUPP, "ibv_wr_tso/flush/atomic_write: "
			      "not emulated"));
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
	struct ibv_send_wr *wr = cur_wr(ibqp);

	if (!wr)
		return;
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

static void qpx_set_xrc_srqn(struct ibv_qp_ex *ibqp, uint32_t remote_srqn)
{
	struct ibv_send_wr *wr = cur_wr(ibqp);

	if (wr)
		wr->qp_type.xrc.remote_srqn = remote_srqn;
}

/* Zero-length elements carry nothing and are dropped, as rxe and mlx5 do,
 * so their lkeys are never looked at. */
static void set_sges(struct ibv_qp_ex *ibqp, size_t num_sge,
		     const struct ibv_sge *sg_list)
{
	struct emu_wr_builder *b = wrb_of(ibqp);
	struct ibv_send_wr *wr = cur_wr(ibqp);
	struct ibv_sge *out;
	size_t i;
	int n = 0;

	if (!wr)
		return;
	if (num_sge > b->max_sge) {
		set_err(b, emu_refuse(ENOMEM, "ibv_wr_set_sge_list: num_sge "
				      "%zu > max_send_sge %u", num_sge,
				      b->max_sge));
		return;
	}
	if (num_sge && !sg_list) {
		set_err(b, emu_refuse(EINVAL, "ibv_wr_set_sge_list: num_sge "
				      "%zu but sg_list NULL", num_sge));
		return;
	}
	out = wr_sges(b, wr);
	for (i = 0; i < num_sge; i++)
		if (sg_list[i].length)
			out[n++] = sg_list[i];
	wr->sg_list = out;
	wr->num_sge = n;
	wr->send_flags &= ~IBV_SEND_INLINE;
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

/* Inline data is data a send or a write carries, never a destination. */
static bool inline_ok(enum ibv_wr_opcode opcode)
{
	return emu_wr_any(opcode, EMU_WR_F_INLINE);
}

/*
 * The buffers are concatenated into the WR's own inline buffer now; the WR
 * then carries one SGE over that copy with IBV_SEND_INLINE, which
 * post_send copies again, so the copy may be reused after wr_complete.
 */
static void set_inline(struct ibv_qp_ex *ibqp, size_t num_buf,
		       const struct ibv_data_buf *bufs)
{
	struct emu_wr_builder *b = wrb_of(ibqp);
	struct ibv_send_wr *wr = cur_wr(ibqp);
	uint8_t *dst;
	size_t total = 0;
	size_t i;

	if (!wr)
		return;
	if (!inline_ok(wr->opcode) || (num_buf && !bufs)) {
		set_err(b, emu_refuse(EINVAL, "ibv_wr_set_inline_data: opcode "
				      "%d carries no inline data, or bufs "
				      "NULL", (int)wr->opcode));
		return;
	}
	for (i = 0; i < num_buf; i++) {
		if (bufs[i].length > b->max_inline - total) {
			set_err(b, emu_refuse(ENOMEM, "ibv_wr_set_inline_data: "
					      "more than max_inline_data %u "
					      "bytes", b->max_inline));
			return;
		}
		total += bufs[i].length;
	}
	dst = b->inl + wr_index(b, wr) * b->max_inline;
	total = 0;
	for (i = 0; i < num_buf; i++) {
		if (!bufs[i].length)
			continue;
		memcpy(dst + total, bufs[i].addr, bufs[i].length);
		total += bufs[i].length;
	}
	wr->sg_list = wr_sges(b, wr);
	wr->sg_list[0].addr = (uintptr_t)dst;
	wr->sg_list[0].length = (uint32_t)total;
	wr->sg_list[0].lkey = 0;
	wr->num_sge = total ? 1 : 0;
	wr->send_flags |= IBV_SEND_INLINE;
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

static void reset(struct emu_wr_builder *b)
{
	b->n = 0;
	b->err = 0;
	b->cur = NULL;
}

/* ibv_wr_post(3): start/complete/abort form a per-QP critical section no
 * other thread may enter, so the builder's state needs no other lock. */
static void qpx_start(struct ibv_qp_ex *ibqp)
{
	struct emu_wr_builder *b = wrb_of(ibqp);

	pthread_mutex_lock(&b->lock);
	reset(b);
	atomic_store(&b->active, true);
}

/* A UD send without a destination has nowhere to go; catching it here
 * keeps post_send from being handed a NULL address handle. */
static int check_chain(struct ibv_qp_ex *ibqp, struct emu_wr_builder *b)
{
	uint32_t i;

	if (ibqp->qp_base.qp_type != IBV_QPT_UD)
		return 0;
	for (i = 0; i < b->n; i++)
		if (!b->wrs[i].wr.ud.ah)
			return emu_refuse(EINVAL, "ibv_wr_complete: UD WR %u "
					  "has no ibv_wr_set_ud_addr", i);
	return 0;
}

static void end(struct emu_wr_builder *b)
{
	reset(b);
	atomic_store(&b->active, false);
	pthread_mutex_unlock(&b->lock);
}

static int qpx_complete(struct ibv_qp_ex *ibqp)
{
	struct emu_wr_builder *b = wrb_of(ibqp);
	struct ibv_qp *qp = &ibqp->qp_base;
	struct ibv_send_wr *bad = NULL;
	uint32_t i;
	int ret;

	/* Without wr_start there is no lock to release and nothing built. */
	if (!atomic_load(&b->active))
		return verbs_ret(emu_refuse(EINVAL, "ibv_wr_complete: no "
					    "ibv_wr_start before it"));
	ret = b->err;
	if (!ret)
		ret = check_chain(ibqp, b);
	/* On any error nothing is posted: the whole batch is dropped. */
	if (!ret && b->n) {
		for (i = 0; i + 1 < b->n; i++)
			b->wrs[i].next = &b->wrs[i + 1];
		b->wrs[b->n - 1].next = NULL;
		ret = qp->context->ops.post_send(qp, b->wrs, &bad);
	}
	end(b);
	return verbs_ret(ret);
}

static void qpx_abort(struct ibv_qp_ex *ibqp)
{
	struct emu_wr_builder *b = wrb_of(ibqp);

	if (atomic_load(&b->active))
		end(b);
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

static void builder_free(struct emu_wr_builder *b)
{
	free(b->wrs);
	free(b->sges);
	free(b->inl);
	free(b);
}

int emu_qpx_init(struct emu_qpx *qpx, uint64_t send_ops_flags,
		 uint32_t max_wr, uint32_t max_sge, uint32_t max_inline)
{
	struct emu_wr_builder *b;
	size_t nsge, ninl;

	if (!qpx)
		return EINVAL;
	qpx->wrb = NULL;
	if (send_ops_flags & ~(uint64_t)QPX_OPS_SUPPORTED)
		return emu_refuse(EOPNOTSUPP, "ibv_create_qp_ex: "
				  "send_ops_flags %#llx beyond what ibv_wr_* "
				  "offers here",
				  (unsigned long long)send_ops_flags);

	b = calloc(1, sizeof(*b));
	if (!b)
		return ENOMEM;
	b->ops = send_ops_flags;
	b->max_wr = max_wr;
	b->max_sge = max_sge;
	b->max_inline = max_inline;
	b->sge_slots = max_sge ? max_sge : 1;
	/* A zero-sized queue still gets one slot of each, so that calloc's
	 * answer to a zero size never reads as a failure. */
	if (__builtin_mul_overflow((size_t)(max_wr ? max_wr : 1),
				   (size_t)b->sge_slots, &nsge) ||
	    __builtin_mul_overflow((size_t)(max_wr ? max_wr : 1),
				   (size_t)(max_inline ? max_inline : 1),
				   &ninl)) {
		free(b);
		return ENOMEM;
	}
	b->wrs = calloc(max_wr ? max_wr : 1, sizeof(*b->wrs));
	b->sges = calloc(nsge, sizeof(*b->sges));
	b->inl = calloc(ninl, 1);
	if (!b->wrs || !b->sges || !b->inl) {
		builder_free(b);
		return ENOMEM;
	}
	if (pthread_mutex_init(&b->lock, NULL)) {
		builder_free(b);
		return ENOMEM;
	}
	atomic_init(&b->active, false);
	qpx->wrb = b;
	fill_ops(&qpx->ibv);
	return 0;
}

void emu_qpx_fini(struct emu_qpx *qpx)
{
	if (!qpx || !qpx->wrb)
		return;
	pthread_mutex_destroy(&qpx->wrb->lock);
	builder_free(qpx->wrb);
	qpx->wrb = NULL;
}
