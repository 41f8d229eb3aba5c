/* The ibv_qp_ex work-request interface (ibv_wr_start ... ibv_wr_complete):
 * a per-QP builder that turns ibv_wr_* calls into an ibv_send_wr chain. */
#ifndef EMU_QP_EX_H
#define EMU_QP_EX_H

#include <stdint.h>

#include <infiniband/verbs.h>

struct emu_wr_builder;

/* Every emulated QP starts with this, so the wr_* callbacks that get only
 * the ibv_qp_ex can find their builder. */
struct emu_qpx {
	struct ibv_qp_ex ibv;
	struct emu_wr_builder *wrb;
};

/* Fill qpx->ibv's wr_* function pointers and allocate the builder for up
 * to max_wr requests between wr_start and wr_complete, each with max_sge
 * SGEs and max_inline bytes of inline data. send_ops_flags (IBV_QP_EX_
 * WITH_*) are the operations the QP was created for; an operation outside
 * them, or one this device does not implement, fails at wr_complete with
 * EOPNOTSUPP/EINVAL as rdma-core providers do. 0 or ENOMEM/EOPNOTSUPP.
 * wr_complete posts the chain through qp_base.context->ops.post_send. */
int emu_qpx_init(struct emu_qpx *qpx, uint64_t send_ops_flags,
		 uint32_t max_wr, uint32_t max_sge, uint32_t max_inline);
void emu_qpx_fini(struct emu_qpx *qpx);

#endif
