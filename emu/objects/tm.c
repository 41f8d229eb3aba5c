/* Tag-matching SRQs: the tag list, ibv_post_srq_ops, phase counting, and
 * what the responder does with a TMH (eager, rendezvous, unexpected). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/objects/cq.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/base/log.h"
#include "emu/objects/qp.h"
#include "emu/objects/srq.h"
#include "emu/objects/tm.h"
#include "net/tmh.h"

struct tm_entry {
	struct emu_tm_match m;
	uint64_t mask;
	int32_t prev, next;		/* posting order, -1 at the ends */
	bool posted;
};

/*
 * Everything here is touched on the engine thread only: list operations
 * come through emu_engine_call, matching runs in the responder. So the
 * order of ADDs and arriving messages is the engine's order, as it is
 * the HCA's on mlx5, and no lock is needed.
 */
struct emu_tm {
	struct tm_entry *e;
	uint32_t max_tags;
	int32_t head, tail;		/* posted tags, oldest first */
	int32_t free_head;		/* free entries, linked by next */
	/* Phase synchronisation: unexpected messages the HCA has seen, and
	 * the count software last reported with IBV_OPS_TM_SYNC. Matching
	 * is off while they differ: software may hold an unexpected
	 * message that the newer tags should have been checked against. */
	uint32_t hw_cnt;
	uint32_t sw_cnt;
};

int emu_tm_create(struct emu_srq *srq, uint32_t max_tags, uint32_t max_ops)
{
	struct emu_tm *tm = calloc(1, sizeof(*tm));
	uint32_t i;

	(void)max_ops;	/* operations run synchronously: none queue up */
	if (!tm)
		return ENOMEM;
	tm->e = calloc(max_tags, sizeof(*tm->e));
	if (!tm->e) {
		free(tm);
		return ENOMEM;
	}
	tm->max_tags = max_tags;
	tm->head = tm->tail = -1;
	for (i = 0; i < max_tags; i++)
		tm->e[i].next = i + 1 < max_tags ? (int32_t)i + 1 : -1;
	tm->free_head = 0;
	srq->tm = tm;
	return 0;
}

void emu_tm_destroy(struct emu_srq *srq)
{
	if (!srq->tm)
		return;
	free(srq->tm->e);
	free(srq->tm);
	srq->tm = NULL;
}

static void unlink_entry(struct emu_tm *tm, int32_t i)
{
	struct tm_entry *x = &tm->e[i];

	if (x->prev >= 0)
		tm->e[x->prev].next = x->next;
	else
		tm->head = x->next;
	if (x->next >= 0)
		tm->e[x->next].prev = x->prev;
	else
		tm->tail = x->prev;
	x->posted = false;
	x->next = tm->free_head;
	tm->free_head = i;
}

/* ---- list operations ---------------------------------------------------- */

static void op_complete(struct emu_srq *srq, uint64_t wr_id,
			enum ibv_wc_opcode op, enum ibv_wc_status status,
			bool sync_req)
{
	struct ibv_wc wc = {
		.wr_id = wr_id,
		.status = status,
		.opcode = op,
		.wc_flags = sync_req ? IBV_WC_TM_SYNC_REQ : 0,
	};

	emu_cq_push(srq->cq, &wc, false);
}

static int add_tag(struct emu_srq *srq, struct ibv_ops_wr *wr)
{
	struct emu_tm *tm = srq->tm;
	struct tm_entry *x;
	int32_t i;

	if (wr->tm.add.num_sge < 0 ||
	    wr->tm.add.num_sge > EMU_TM_MAX_SGE ||
	    (wr->tm.add.num_sge && !wr->tm.add.sg_list))
		return emu_refuse(EINVAL, "ibv_post_srq_ops: TAG_ADD num_sge "
				  "%d (at most %d, with an sg_list)",
				  wr->tm.add.num_sge, EMU_TM_MAX_SGE);
	if (wr->tm.add.num_sge && wr->tm.add.sg_list[0].length > 0x80000000u)
		return emu_refuse(EINVAL, "ibv_post_srq_ops: TAG_ADD buffer "
				  "of %u bytes > 2 GiB",
				  wr->tm.add.sg_list[0].length);
	if (tm->free_head < 0)
		return emu_refuse(ENOMEM, "ibv_post_srq_ops: TAG_ADD: all %u "
				  "tags are in use", tm->max_tags);
	i = tm->free_head;
	x = &tm->e[i];
	tm->free_head = x->next;
	memset(x, 0, sizeof(*x));
	x->m.wr_id = wr->tm.add.recv_wr_id;
	x->m.tag = wr->tm.add.tag;
	x->mask = wr->tm.add.mask;
	x->m.num_sge = (uint32_t)wr->tm.add.num_sge;
	if (x->m.num_sge)
		x->m.sge = wr->tm.add.sg_list[0];
	x->posted = true;
	x->next = -1;
	x->prev = tm->tail;
	if (tm->tail >= 0)
		tm->e[tm->tail].next = i;
	else
		tm->head = i;
	tm->tail = i;
	wr->tm.handle = (uint32_t)i;
	/* A tag added while software lags the HCA's unexpected count is
	 * not matched until it syncs: the completion says so. */
	if (wr->flags & IBV_OPS_SIGNALED)
		op_complete(srq, wr->wr_id, IBV_WC_TM_ADD, IBV_WC_SUCCESS,
			    tm->sw_cnt != tm->hw_cnt);
	return 0;
}

static int del_tag(struct emu_srq *srq, struct ibv_ops_wr *wr)
{
	struct emu_tm *tm = srq->tm;
	bool ok;

	if (wr->tm.handle >= tm->max_tags)
		return emu_refuse(EINVAL, "ibv_post_srq_ops: TAG_DEL handle "
				  "%u >= max_num_tags %u", wr->tm.handle,
				  tm->max_tags);
	/* A tag consumed meanwhile cannot be removed: IBV_WC_TM_ERR, which
	 * is reported even unsignaled, as any failed operation. */
	ok = tm->e[wr->tm.handle].posted;
	if (ok)
		unlink_entry(tm, (int32_t)wr->tm.handle);
	if (!ok || (wr->flags & IBV_OPS_SIGNALED))
		op_complete(srq, wr->wr_id, IBV_WC_TM_DEL,
			    ok ? IBV_WC_SUCCESS : IBV_WC_TM_ERR,
			    tm->sw_cnt != tm->hw_cnt);
	return 0;
}

struct ops_call {
	struct emu_srq *srq;
	struct ibv_ops_wr *wr;
	struct ibv_ops_wr *bad;
	int rc;
};

static void do_ops(void *p)
{
	struct ops_call *c = p;
	struct ibv_ops_wr *wr;

	for (wr = c->wr; wr; wr = wr->next) {
		int rc = 0;

		if (wr->opcode != IBV_WR_TAG_ADD &&
		    wr->opcode != IBV_WR_TAG_DEL &&
		    wr->opcode != IBV_WR_TAG_SYNC)
			rc = emu_refuse(EINVAL, "ibv_post_srq_ops: opcode %d "
					"unknown", (int)wr->opcode);
		else if (wr->flags & ~(IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC))
			rc = emu_refuse(EINVAL, "ibv_post_srq_ops: flags %#x "
					"unknown", wr->flags);
		if (!rc && (wr->flags & IBV_OPS_TM_SYNC))
			c->srq->tm->sw_cnt = wr->tm.unexpected_cnt;
		if (!rc && wr->opcode == IBV_WR_TAG_ADD)
			rc = add_tag(c->srq, wr);
		else if (!rc && wr->opcode == IBV_WR_TAG_DEL)
			rc = del_tag(c->srq, wr);
		else if (!rc && (wr->flags & IBV_OPS_SIGNALED))
			op_complete(c->srq, wr->wr_id, IBV_WC_TM_SYNC,
				    IBV_WC_SUCCESS, false);
		if (rc) {
			c->rc = rc;
			c->bad = wr;
			return;
		}
	}
}

int emu_tm_post_ops(struct emu_srq *srq, struct ibv_ops_wr *wr,
		    struct ibv_ops_wr **bad)
{
	struct ops_call c = { .srq = srq, .wr = wr };

	emu_engine_call(srq->dev->engine, do_ops, &c);
	if (c.rc && bad)
		*bad = c.bad;
	return c.rc;
}

/* ---- the responder ------------------------------------------------------ */

static struct emu_srq *tm_srq(struct emu_qp *qp)
{
	return qp->srq;
}

void emu_tm_complete(struct emu_qp *qp, struct ibv_wc *wc,
		     const struct emu_tm_match *m, bool solicited)
{
	struct ibv_wc_tm_info info = { 0 };

	wc->qp_num = qp->qpn;
	wc->src_qp = qp->attr.dest_qp_num;
	/* The tag is reported with the match only, as mlx5 fills it. */
	if (m && (wc->wc_flags & IBV_WC_TM_MATCH)) {
		info.tag = m->tag;
		info.priv = m->priv;
	}
	emu_cq_push_tm(tm_srq(qp)->cq, wc, &info, solicited);
}

bool emu_tm_classify(struct emu_qp *qp, const uint8_t *pay, uint32_t len,
		     bool whole, bool have_wqe, enum emu_tm_kind *kind,
		     struct emu_tm_match *m)
{
	struct emu_tm *tm = tm_srq(qp)->tm;
	uint64_t tag;
	uint8_t op;
	int32_t i;

	/* Too short for a TMH: nothing to match, a plain message. */
	if (len < WIRE_TMH_LEN || tmh_opcode(pay) == IBV_TMH_NO_TAG) {
		*kind = EMU_TM_NO_TAG;
		return true;
	}
	op = tmh_opcode(pay);
	if (op == IBV_TMH_FIN) {
		*kind = EMU_TM_PLAIN;
		return true;
	}
	if (op != IBV_TMH_EAGER && op != IBV_TMH_RNDV)
		return false;
	/* max_rndv_hdr_size is below the smallest MTU: a header that is
	 * not one packet, or has no RVH, is not one we announced. */
	if (op == IBV_TMH_RNDV &&
	    (!whole || len < WIRE_TMH_LEN + WIRE_RVH_LEN))
		return false;
	tag = tmh_tag(pay);
	if (tm->sw_cnt == tm->hw_cnt) {
		for (i = tm->head; i >= 0; i = tm->e[i].next) {
			struct tm_entry *x = &tm->e[i];

			/* ibv_post_srq_ops(3): TMH.tag & mask == tag. */
			if ((tag & x->mask) != x->m.tag)
				continue;
			*m = x->m;
			m->tag = tag;
			m->priv = tmh_app_ctx(pay);
			unlink_entry(tm, i);
			*kind = op == IBV_TMH_RNDV ? EMU_TM_RNDV :
						     EMU_TM_EAGER;
			return true;
		}
	}
	/* Unexpected: software gets the whole message in a plain WQE and
	 * one more unexpected message to account for. Counted only once
	 * a WQE takes it: an RNR-refused packet comes back. */
	*kind = EMU_TM_UNEXP;
	if (have_wqe)
		tm->hw_cnt++;
	return true;
}

/* The match completed without its data: software must fetch it. The
 * header goes into the tag's buffer, as much as fits, for it to read. */
static void rndv_incomplete(struct emu_qp *qp, struct emu_tm_match *m,
			    uint8_t *pay, uint32_t len, bool solicited)
{
	struct ibv_wc wc = {
		.wr_id = m->wr_id,
		.status = IBV_WC_TM_RNDV_INCOMPLETE,
		.opcode = IBV_WC_TM_RECV,
		.wc_flags = IBV_WC_TM_MATCH,
	};
	uint32_t n = m->num_sge ? m->sge.length : 0;

	if (n > len)
		n = len;
	if (n && emu_sge_copy(qp, &m->sge, 1, 0, pay, n, true))
		n = 0;
	wc.byte_len = n;
	emu_tm_complete(qp, &wc, m, solicited);
}

void emu_tm_rndv(struct emu_qp *qp, struct emu_tm_match *m, uint8_t *pay,
		 uint32_t len, bool solicited)
{
	const uint8_t *rvh = tmh_rvh(pay);
	struct ibv_wc wc = {
		.wr_id = m->wr_id,
		.status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_TM_RECV,
		.wc_flags = IBV_WC_TM_MATCH,
	};
	struct emu_swqe w = { 0 };
	uint32_t rlen = rvh_len(rvh);

	/* Only a QP that may send can read; a buffer too small for the
	 * data is software's to handle. Either way the tag is consumed. */
	if (emu_qp_state(qp) != IBV_QPS_RTS ||
	    rlen > (m->num_sge ? m->sge.length : 0)) {
		rndv_incomplete(qp, m, pay, len, solicited);
		return;
	}
	w.wr_id = m->wr_id;
	w.opcode = IBV_WR_RDMA_READ;
	w.remote_addr = rvh_va(rvh);
	w.rkey = rvh_rkey(rvh);
	w.length = rlen;
	w.num_sge = m->num_sge;
	w.tm_op = EMU_TM_OP_READ;
	w.tm_tag = m->tag;
	w.tm_priv = m->priv;
	if (emu_qp_post_internal(qp, &w, &m->sge,
				 m->num_sge * sizeof(struct ibv_sge))) {
		rndv_incomplete(qp, m, pay, len, solicited);
		return;
	}
	/* The match now, the data (IBV_WC_TM_DATA_VALID) when the READ
	 * is answered: the two completions mlx5 gives. */
	emu_tm_complete(qp, &wc, m, solicited);
}

void emu_tm_send_done(struct emu_qp *qp, const struct emu_swqe *w,
		      enum ibv_wc_status status)
{
	struct ibv_wc wc = {
		.wr_id = w->wr_id,
		.status = status,
		.opcode = IBV_WC_TM_RECV,
		.byte_len = w->length,
	};
	struct emu_swqe fin = { 0 };
	uint8_t tmh[WIRE_TMH_LEN];

	/* A FIN that fails fails with its QP, whose error the application
	 * hears of anyway; the data was delivered before it. */
	if (w->tm_op != EMU_TM_OP_READ)
		return;
	if (status == IBV_WC_SUCCESS)
		wc.wc_flags = IBV_WC_TM_DATA_VALID;
	emu_tm_complete(qp, &wc, NULL, false);
	if (status != IBV_WC_SUCCESS)
		return;
	/* The sender learns its buffer is free: a SEND of a bare TMH. */
	tmh_init(tmh, IBV_TMH_FIN, w->tm_priv, w->tm_tag);
	fin.opcode = IBV_WR_SEND;
	fin.length = WIRE_TMH_LEN;
	fin.inl = true;
	fin.tm_op = EMU_TM_OP_FIN;
	fin.tm_tag = w->tm_tag;
	fin.wr_id = w->wr_id;
	/* Room was freed by the READ itself; the QP may have failed. */
	(void)emu_qp_post_internal(qp, &fin, tmh, sizeof(tmh));
}
