/* Bringing QPs up for the tests: one QP's walk RESET -> INIT -> RTR -> RTS
 * towards a peer, with the attribute masks ibv_modify_qp(3) asks of each
 * type; two QPs made and connected to each other (on one device or two,
 * or one QP looped back to itself); posting one request or receive.
 * Check-free, so that the integration programs use it too: every function
 * answers 0 or an errno and names the step that failed on stderr; the
 * tests assert on the answer. */
#ifndef EMU_TEST_QP_PAIR_H
#define EMU_TEST_QP_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define QP_ACCESS_ALL                                                     \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |               \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* How a QP is brought up: the values of INIT, RTR and RTS that tests
 * vary. Start from qp_conn_default (or qp_conn_fail_fast) and change what
 * the test is about. Types take what they use: UD the Q_Key, RC all. */
struct qp_conn {
	uint8_t port;			/* port_num, and the AV's port */
	uint8_t sgid_index;		/* our GID: the peer's dgid */
	unsigned int access;		/* qp_access_flags (not UD) */
	uint32_t qkey;			/* UD */
	enum ibv_mtu mtu;
	uint32_t psn;			/* the first PSN this QP sends */
	uint8_t timeout;		/* RC requester: 4.096 us << timeout */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t rd_atomic;		/* max_rd_atomic: ours in flight */
	uint8_t min_rnr_timer;		/* RC responder */
	uint8_t dest_rd_atomic;		/* max_dest_rd_atomic: the peer's */
};

/* Patient: a 67 ms ACK timeout, seven retries of each kind, four READs or
 * atomics in flight each way, MTU 1024, every remote right, PSN 0, Q_Key
 * 0x11111111, port 1 and GID index 0. */
extern const struct qp_conn qp_conn_default;

/* The same with a 16.8 ms ACK timeout and one retry of each kind: tests
 * of failures end in milliseconds, not seconds. */
extern const struct qp_conn qp_conn_fail_fast;

/* The far end of a connection: its QP number, the PSN it sends from and
 * the GID it is reached at. */
struct qp_peer {
	uint32_t qpn;
	uint32_t psn;
	union ibv_gid gid;
};

/* qp's own end as its peer sees it, brought up with c. */
int qp_peer_of(struct ibv_qp *qp, const struct qp_conn *c,
	       struct qp_peer *out);

/* One step each: RESET -> INIT, INIT -> RTR towards peer (UD: none, peer
 * may be NULL), RTR -> RTS. */
int qp_to_init(struct ibv_qp *qp, const struct qp_conn *c);
int qp_to_rtr(struct ibv_qp *qp, const struct qp_conn *c,
	      const struct qp_peer *peer);
int qp_to_rts(struct ibv_qp *qp, const struct qp_conn *c);

/* All three. */
int qp_connect(struct ibv_qp *qp, const struct qp_conn *c,
	       const struct qp_peer *peer);

/* a and b (made, in RESET) brought to RTS towards each other, each at its
 * own context's port c->port; a == b loops the QP back to itself. */
int qp_connect_pair(struct ibv_qp *a, struct ibv_qp *b,
		    const struct qp_conn *c);

/* A QP of type on pd, sending and receiving on cq (receiving through srq
 * when not NULL), with cap; NULL (errno set) when it cannot be made. */
struct ibv_qp *qp_create(struct ibv_pd *pd, struct ibv_cq *cq,
			 struct ibv_srq *srq, enum ibv_qp_type type,
			 const struct ibv_qp_cap *cap);

/* What qp_pair_open makes. Everything zero or NULL is the default. */
struct qp_pair_opts {
	enum ibv_qp_type type;		/* 0: RC */
	struct ibv_qp_cap cap;		/* all 0: 32 WRs, 2 SGEs each way */
	struct ibv_cq *cq[2];		/* qp[i]'s CQ, else one of 64 made */
	struct ibv_srq *srq[2];		/* qp[i] receives through srq[i] */
	const struct qp_conn *conn;	/* NULL: qp_conn_default */
};

struct qp_pair {
	struct ibv_context *ctx;	/* qp[0]'s */
	struct ibv_pd *pd;		/* qp[0]'s */
	struct ibv_cq *cq[2];		/* qp[i]'s send and receive CQ */
	struct ibv_qp *qp[2];		/* qp[0] <-> qp[1] */
	struct ibv_ah *ah[2];		/* UD: qp[i]'s towards qp[1 - i] */
	uint32_t qkey;			/* UD: the Q_Key both were given */
	bool made_cq[2];
};

/* Two QPs of o->type on pd of ctx, in RTS towards each other; o may be
 * NULL (RC, defaults). UD pairs get an AH each way. On failure what was
 * made stays in p for qp_pair_close. */
int qp_pair_open(struct qp_pair *p, struct ibv_context *ctx,
		 struct ibv_pd *pd, const struct qp_pair_opts *o);

/* The same with qp[i] on pd[i] of ctx[i]: two devices of one process. */
int qp_pair_open_across(struct qp_pair *p, struct ibv_context *ctx[2],
			struct ibv_pd *pd[2], const struct qp_pair_opts *o);

/* Destroy the AHs, the QPs and the CQs qp_pair_open made; p is zeroed. */
int qp_pair_close(struct qp_pair *p);

/* One signaled request on qp: SEND, RDMA WRITE/READ or an atomic (swap
 * and compare_add 1, 0). Returns ibv_post_send's answer. */
int qp_post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id,
	    void *addr, uint32_t len, uint32_t lkey, uint64_t raddr,
	    uint32_t rkey);

/* One receive on qp. Returns ibv_post_recv's answer. */
int qp_recv(struct ibv_qp *qp, uint64_t id, void *addr, uint32_t len,
	    uint32_t lkey);

#endif
