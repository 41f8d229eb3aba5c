/* Shared by the unit tests of ODP, device memory, parent domains, CQ
 * timestamps and imports: two QPs of one context connected to each other
 * at the port's own GID, and posting one request or receive. */
#ifndef EMU_TEST_RC_PAIR_H
#define EMU_TEST_RC_PAIR_H

#include <stdint.h>

#include <infiniband/verbs.h>

struct rc_pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;		/* the QPs' PD (a parent domain, say) */
	struct ibv_cq *cq[2];		/* each QP's send and receive CQ */
	struct ibv_qp *qp[2];		/* qp[0] <-> qp[1] */
};

/* The remote rights the QPs are brought up with. */
#define RC_PAIR_ACCESS                                                    \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |               \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* Make two QPs of type (RC or UC) on pd of ctx with a CQ each (cq[i] is
 * used as given when not NULL) and bring them to RTS towards each other,
 * with a short retry timeout. Fails the test on any error. */
void rc_pair_open(struct rc_pair *p, struct ibv_context *ctx,
		  struct ibv_pd *pd, enum ibv_qp_type type);

/* The same with qp[i] and cq[i] on ctx[i] and pd[i], each towards the
 * other's port 1 GID 0: two devices of one process, say. p->ctx and p->pd
 * are the first's. */
void rc_pair_open_across(struct rc_pair *p, struct ibv_context *ctx[2],
			 struct ibv_pd *pd[2], enum ibv_qp_type type);

/* Destroy the QPs, and the CQs rc_pair_open made. */
void rc_pair_close(struct rc_pair *p);

/* One signaled request on qp: SEND, RDMA WRITE/READ or an atomic (swap
 * and compare_add 1, 0). Returns ibv_post_send's answer. */
int rc_post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id,
	    void *addr, uint32_t len, uint32_t lkey, uint64_t raddr,
	    uint32_t rkey);

/* One receive on qp; fails the test if it cannot be posted. */
void rc_recv(struct ibv_qp *qp, uint64_t id, void *addr, uint32_t len,
	     uint32_t lkey);

#endif
