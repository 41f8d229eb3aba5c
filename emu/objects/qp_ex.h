/* The ibv_qp_ex work-request interface (ibv_wr_start ... ibv_wr_complete):
 * each ibv_wr_* call writes the QP's next send-queue slot in place. The
 * QP carries this state; the builders that fill it are the front end's
 * (verbs/qp_ex.h), which emu/ never calls. */
#ifndef EMU_QP_EX_H
#define EMU_QP_EX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* Every emulated QP starts with this, so the wr_* callbacks, which get
 * only the ibv_qp_ex, find the QP and what the section has met so far;
 * the slots being written are the QP's (struct emu_qp's wrb). */
struct emu_qpx {
	struct ibv_qp_ex ibv;
	uint64_t ops;			/* IBV_QP_EX_WITH_* it was made for */
	/* Inside wr_start ... wr_complete/abort: told apart from the
	 * send-queue lock, which cannot be asked whether it is held. */
	atomic_bool active;
	int err;			/* first error of the section, or 0 */
};

#endif
