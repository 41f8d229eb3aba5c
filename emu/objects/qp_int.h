/* Private to emu/objects/qp*.c: what the QP's life (qp.c), modify and query
 * (qp_modify.c), posting (qp_post.c) and leaving service (qp_flush.c)
 * share. Nothing outside those files includes it; emu/objects/qp.h is the
 * API. */
#ifndef EMU_QP_INT_H
#define EMU_QP_INT_H

#include <infiniband/verbs.h>

struct emu_qp;

/* A verb's call onto the engine thread (emu_engine_call): insert, remove
 * or modify the QP; rc is the engine side's answer. */
struct qp_call {
	struct emu_qp *qp;
	struct ibv_qp_attr *attr;
	int mask;
	int rc;
};

/* The QP's doorbell, on the engine (or on a posting thread that found it
 * idle): flush in ERR, else run the transport. arg is the QP. */
void emu_qp_doorbell(void *arg);

/* Complete every WQE of the SQ, or the RQ (and a held SRQ WQE, and a tag
 * an eager message was filling), with IBV_WC_WR_FLUSH_ERR. */
void emu_qp_flush_sq(struct emu_qp *qp);
void emu_qp_flush_rq(struct emu_qp *qp);

/* RESET and destroy, on the engine: stop the transport and clear its state
 * of the QP, then discard what is queued, without completions. */
void emu_qp_reset_engines(struct emu_qp *qp);
void emu_qp_empty_queues(struct emu_qp *qp);
/* Take the QP's completions not yet polled out of its CQs. */
void emu_qp_clean_cqs(struct emu_qp *qp);

#endif
