/*
 * emuverbs: <rdma/rdma_verbs.h>, librdmacm's shorthand verbs on an
 * rdma_cm_id (its PD, QP, SRQ and CQs), as rdma-core 65 defines them:
 * the same inline helpers with the same results and errno conventions.
 */
#ifndef RDMA_VERBS_H
#define RDMA_VERBS_H

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Turns a verb's result into librdmacm's convention: 0 stays 0, anything
 * else is stored in errno and becomes -1.
 */
static inline int rdma_seterrno(int ret)
{
	if (ret == 0)
		return 0;
	errno = ret;
	return -1;
}

/* An SRQ on the id (id->srq), on pd or the id's PD. */
int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		    struct ibv_srq_init_attr *attr);
int rdma_create_srq_ex(struct rdma_cm_id *id,
		       struct ibv_srq_init_attr_ex *attr);
void rdma_destroy_srq(struct rdma_cm_id *id);

/* ------------------------------------------------------------------ */
/* Registration on the id's PD                                        */
/* ------------------------------------------------------------------ */

/* For buffers that are only sent from and received into. */
static inline struct ibv_mr *rdma_reg_msgs(struct rdma_cm_id *id,
					   void *addr, size_t length)
{
	return ibv_reg_mr(id->pd, addr, length, IBV_ACCESS_LOCAL_WRITE);
}

/* For buffers the peer will RDMA READ. */
static inline struct ibv_mr *rdma_reg_read(struct rdma_cm_id *id,
					   void *addr, size_t length)
{
	return ibv_reg_mr(id->pd, addr, length,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
}

/* For buffers the peer will RDMA WRITE. */
static inline struct ibv_mr *rdma_reg_write(struct rdma_cm_id *id,
					    void *addr, size_t length)
{
	return ibv_reg_mr(id->pd, addr, length,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

static inline int rdma_dereg_mr(struct ibv_mr *mr)
{
	return rdma_seterrno(ibv_dereg_mr(mr));
}

/* ------------------------------------------------------------------ */
/* Posting with a scatter/gather list                                 */
/* ------------------------------------------------------------------ */

/*
 * One receive of nsge entries, its wr_id the context pointer: on the id's
 * SRQ when it has one, else on its QP.
 */
static inline int rdma_post_recvv(struct rdma_cm_id *id, void *context,
				  struct ibv_sge *sgl, int nsge)
{
	struct ibv_recv_wr wr, *bad;

	wr.wr_id = (uintptr_t)context;
	wr.next = NULL;
	wr.sg_list = sgl;
	wr.num_sge = nsge;
	if (id->srq != NULL)
		return rdma_seterrno(ibv_post_srq_recv(id->srq, &wr, &bad));
	return rdma_seterrno(ibv_post_recv(id->qp, &wr, &bad));
}

/* One SEND of nsge entries; flags are ibv_send_flags. */
static inline int rdma_post_sendv(struct rdma_cm_id *id, void *context,
				  struct ibv_sge *sgl, int nsge, int flags)
{
	struct ibv_send_wr wr, *bad;

	wr.wr_id = (uintptr_t)context;
	wr.next = NULL;
	wr.sg_list = sgl;
	wr.num_sge = nsge;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = (unsigned int)flags;
	return rdma_seterrno(ibv_post_send(id->qp, &wr, &bad));
}

/* One RDMA READ or WRITE of nsge entries at the peer's remote_addr. */
static inline int __rdma_post_rdma_sgl(struct rdma_cm_id *id,
				       void *context, struct ibv_sge *sgl,
				       int nsge, int flags,
				       enum ibv_wr_opcode opcode,
				       uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_send_wr wr, *bad;

	wr.wr_id = (uintptr_t)context;
	wr.next = NULL;
	wr.sg_list = sgl;
	wr.num_sge = nsge;
	wr.opcode = opcode;
	wr.send_flags = (unsigned int)flags;
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	return rdma_seterrno(ibv_post_send(id->qp, &wr, &bad));
}

static inline int rdma_post_readv(struct rdma_cm_id *id, void *context,
				  struct ibv_sge *sgl, int nsge, int flags,
				  uint64_t remote_addr, uint32_t rkey)
{
	return __rdma_post_rdma_sgl(id, context, sgl, nsge, flags,
				    IBV_WR_RDMA_READ, remote_addr, rkey);
}

static inline int rdma_post_writev(struct rdma_cm_id *id, void *context,
				   struct ibv_sge *sgl, int nsge, int flags,
				   uint64_t remote_addr, uint32_t rkey)
{
	return __rdma_post_rdma_sgl(id, context, sgl, nsge, flags,
				    IBV_WR_RDMA_WRITE, remote_addr, rkey);
}

/* ------------------------------------------------------------------ */
/* Posting one buffer                                                 */
/* ------------------------------------------------------------------ */

/*
 * The single entry for [addr, addr + length). Sends and writes accept a
 * NULL mr (inline data: lkey 0); receives and reads need one.
 */
static inline struct ibv_sge __rdma_sge(void *addr, size_t length,
					uint32_t lkey)
{
	struct ibv_sge sge;

	sge.addr = (uint64_t)(uintptr_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = lkey;
	return sge;
}

static inline int rdma_post_recv(struct rdma_cm_id *id, void *context,
				 void *addr, size_t length, struct ibv_mr *mr)
{
	struct ibv_sge sge;

	/* the buffer must lie inside the registration */
	assert((uint8_t *)addr >= (uint8_t *)mr->addr &&
	       (uint8_t *)addr + length <= (uint8_t *)mr->addr + mr->length);
	sge = __rdma_sge(addr, length, mr->lkey);
	return rdma_post_recvv(id, context, &sge, 1);
}

static inline int rdma_post_send(struct rdma_cm_id *id, void *context,
				 void *addr, size_t length, struct ibv_mr *mr,
				 int flags)
{
	struct ibv_sge sge = __rdma_sge(addr, length, mr ? mr->lkey : 0);

	return rdma_post_sendv(id, context, &sge, 1, flags);
}

static inline int rdma_post_read(struct rdma_cm_id *id, void *context,
				 void *addr, size_t length, struct ibv_mr *mr,
				 int flags, uint64_t remote_addr,
				 uint32_t rkey)
{
	struct ibv_sge sge = __rdma_sge(addr, length, mr->lkey);

	return rdma_post_readv(id, context, &sge, 1, flags, remote_addr,
			       rkey);
}

static inline int rdma_post_write(struct rdma_cm_id *id, void *context,
				  void *addr, size_t length,
				  struct ibv_mr *mr, int flags,
				  uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_sge sge = __rdma_sge(addr, length, mr ? mr->lkey : 0);

	return rdma_post_writev(id, context, &sge, 1, flags, remote_addr,
				rkey);
}

/* A UD SEND to QP remote_qpn behind ah, with the rdma_cm's Q_Key. */
static inline int rdma_post_ud_send(struct rdma_cm_id *id, void *context,
				    void *addr, size_t length,
				    struct ibv_mr *mr, int flags,
				    struct ibv_ah *ah, uint32_t remote_qpn)
{
	struct ibv_sge sge = __rdma_sge(addr, length, mr ? mr->lkey : 0);
	struct ibv_send_wr wr, *bad;

	wr.wr_id = (uintptr_t)context;
	wr.next = NULL;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = (unsigned int)flags;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = remote_qpn;
	wr.wr.ud.remote_qkey = RDMA_UDP_QKEY;
	return rdma_seterrno(ibv_post_send(id->qp, &wr, &bad));
}

/* ------------------------------------------------------------------ */
/* Waiting for one completion                                         */
/* ------------------------------------------------------------------ */

/*
 * Polls cq for one completion, sleeping on its channel between polls
 * (arm, poll once more, then wait: nothing that lands in between is
 * missed). Returns what ibv_poll_cq returned (1 once one is there); a
 * failure to arm, or a negative poll, is -1 with errno set (to that
 * negative value in the latter case); a failed wait returns -1 as
 * ibv_get_cq_event did. The event must belong to cq and carry the id as
 * the CQ's context.
 */
static inline int __rdma_get_comp(struct rdma_cm_id *id, struct ibv_cq *cq,
				  struct ibv_comp_channel *channel,
				  struct ibv_wc *wc)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int ret;

	for (;;) {
		ret = ibv_poll_cq(cq, 1, wc);
		if (ret != 0)
			break;
		ret = ibv_req_notify_cq(cq, 0);
		if (ret != 0)
			return rdma_seterrno(ret);
		ret = ibv_poll_cq(cq, 1, wc);
		if (ret != 0)
			break;
		ret = ibv_get_cq_event(channel, &ev_cq, &ev_ctx);
		if (ret != 0)
			return ret;
		assert(ev_cq == cq && ev_ctx == (void *)id);
		(void)ev_cq;
		(void)ev_ctx;
		ibv_ack_cq_events(cq, 1);
	}
	return ret < 0 ? rdma_seterrno(ret) : ret;
}

static inline int rdma_get_send_comp(struct rdma_cm_id *id,
				     struct ibv_wc *wc)
{
	return __rdma_get_comp(id, id->send_cq, id->send_cq_channel, wc);
}

static inline int rdma_get_recv_comp(struct rdma_cm_id *id,
				     struct ibv_wc *wc)
{
	return __rdma_get_comp(id, id->recv_cq, id->recv_cq_channel, wc);
}

#ifdef __cplusplus
}
#endif

#endif /* RDMA_VERBS_H */
