/* Tag-matching SRQs: the tag list and its operations, the unexpected-message
 * phase counters, and the responder's eager and rendezvous offload. */
#ifndef EMU_TM_H
#define EMU_TM_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct emu_srq;
struct emu_qp;
struct emu_swqe;
struct emu_rx_pkt;

/* What ibv_query_device_ex reports in tm_caps. */
#define EMU_TM_MAX_TAGS		127
#define EMU_TM_MAX_OPS		32
#define EMU_TM_MAX_SGE		1
#define EMU_TM_RNDV_HDR		64
/* Send slots a QP on a TM SRQ keeps beyond its max_send_wr for the
 * rendezvous READs and FINs its responder issues (mlx5 does them in
 * hardware, so a receive-only QP with no send queue must manage them). */
#define EMU_TM_SQ_RESERVE	16

/* What kind of TM message the responder is receiving (emu_resp_state). */
enum emu_tm_kind {
	EMU_TM_NONE = 0,	/* not on a TM SRQ: a plain receive */
	EMU_TM_PLAIN,		/* FIN: a plain receive, IBV_WC_RECV */
	EMU_TM_NO_TAG,		/* plain WQE, IBV_WC_TM_NO_TAG */
	EMU_TM_UNEXP,		/* plain WQE, IBV_WC_TM_RECV, no match */
	EMU_TM_EAGER,		/* matched: into the tag's buffer */
	EMU_TM_RNDV,		/* matched: the READ fetches the data */
};

/* Internal send work of a TM QP's requester (emu_swqe.tm_op). */
enum {
	EMU_TM_OP_NONE = 0,
	EMU_TM_OP_READ,		/* rendezvous: fetch into the tag buffer */
	EMU_TM_OP_FIN,		/* rendezvous: tell the sender it is done */
};

/* The tag a matched message consumed, kept by the QP till it completes. */
struct emu_tm_match {
	uint64_t wr_id;
	uint64_t tag;
	uint32_t priv;
	uint32_t num_sge;
	struct ibv_sge sge;
};

struct emu_tm;

/* 0 and srq->tm, or ENOMEM. max_tags/max_ops were checked by the front
 * end against tm_caps. */
int emu_tm_create(struct emu_srq *srq, uint32_t max_tags, uint32_t max_ops);
void emu_tm_destroy(struct emu_srq *srq);

/* ibv_post_srq_ops, run on the engine thread: 0, or EINVAL (bad opcode,
 * handle or SGE list) or ENOMEM (tag list full) with *bad set. */
int emu_tm_post_ops(struct emu_srq *srq, struct ibv_ops_wr *wr,
		    struct ibv_ops_wr **bad);

/* ---- engine thread ---- */

/* The first packet of a SEND on a QP whose SRQ is a TM SRQ: classify it
 * by its TMH. Sets *kind and, for a match, *m (the tag is taken off the
 * list). have_wqe tells whether a plain WQE is there for an unmatched
 * message: without one nothing changes (the caller answers RNR). whole:
 * the packet is the whole message, as a rendezvous header must be.
 * Returns false for a TMH the responder must refuse (invalid request):
 * an unknown opcode, or a rendezvous header cut short. */
bool emu_tm_classify(struct emu_qp *qp, const uint8_t *pay, uint32_t len,
		     bool whole, bool have_wqe, enum emu_tm_kind *kind,
		     struct emu_tm_match *m);
/* A rendezvous header matched m: queue the READ of the sender's data into
 * the tag's buffer, or fail the tag with IBV_WC_TM_RNDV_INCOMPLETE (the
 * header copied into the buffer for software to finish). Reports the
 * match completion first. */
void emu_tm_rndv(struct emu_qp *qp, struct emu_tm_match *m, uint8_t *pay,
		 uint32_t len, bool solicited);
/* Completion of an internal send WQE of a TM QP (any status). */
void emu_tm_send_done(struct emu_qp *qp, const struct emu_swqe *w,
		      enum ibv_wc_status status);
/* Push a TM completion onto the SRQ's CQ, with the tag when matched. */
void emu_tm_complete(struct emu_qp *qp, struct ibv_wc *wc,
		     const struct emu_tm_match *m, bool solicited);

#endif
