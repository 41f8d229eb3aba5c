/* What the rest of the front end asks of verbs/qp_ex.c: the ibv_wr_*
 * builders of an extended QP, installed when the QP is made. */
#ifndef VERBS_QP_EX_H
#define VERBS_QP_EX_H

#include <stdint.h>

struct emu_qpx;

/* Fill qpx->ibv's wr_* function pointers for a QP that is the start of a
 * struct emu_qp. send_ops_flags (IBV_QP_EX_WITH_*) are the operations the
 * QP was created for; an operation outside them fails at wr_complete with
 * EOPNOTSUPP as rdma-core providers do. 0, EINVAL for no qpx, or
 * EOPNOTSUPP for an operation this device does not implement. Nothing is
 * allocated: there is nothing to free. */
int emu_verbs_qpx_init(struct emu_qpx *qpx, uint64_t send_ops_flags);

#endif
