/* twohost: two processes, each its own host on the emulated device, one QP
 * pair between them; shared by the demo and the integration tests. */
#ifndef EMUVERBS_TWOHOST_H
#define EMUVERBS_TWOHOST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>

/* How long a completion may take before we call it lost. */
#define TH_DEADLINE_MS 10000
#define TH_QKEY 0x11111111u	/* UD QKey, the same on both hosts */

/* What each side tells the other over the socketpair before RTR. */
struct th_peer {
	uint32_t qpn, psn, rkey, qkey;
	uint64_t addr;
	union ibv_gid gid;
};

struct th_qp_opts {
	enum ibv_qp_type type;		/* IBV_QPT_RC, _UC or _UD */
	uint32_t max_send_wr, max_recv_wr;
	uint32_t max_send_sge, max_recv_sge;
	uint32_t max_inline;
	enum ibv_mtu path_mtu;		/* RC, UC (0: 4096) */
	int access;			/* RC and UC: IBV_ACCESS_REMOTE_* */
};

struct th_host {
	const char *name;		/* "host A" or "host B" */
	int is_a;			/* A is the parent, B the child */
	int sock;			/* out-of-band channel to the peer */
	pid_t child;			/* on A: B's pid */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;		/* send and receive completions */
	struct ibv_mr *mr;		/* covers all of buf */
	uint8_t *buf;
	size_t buf_size;
	struct ibv_qp *qp;
	enum ibv_qp_type qp_type;
	enum ibv_mtu path_mtu;
	uint32_t max_inline;		/* what the QP granted */
	struct ibv_ah *ah;		/* UD: the address of the peer */
	struct th_peer me, peer;
};

/*
 * The lifetime, in order: th_fork (before any verbs call), th_open,
 * th_create_qp (the QP ends in INIT; me.psn may be changed after it),
 * th_exchange, th_connect (RTR, RTS), traffic, th_destroy_qp (and back to
 * th_create_qp for another pair), th_close, th_join.
 * Every int function returns 0 on success and -1 after saying why on
 * stderr, prefixed with the host's name.
 */
int th_fork(struct th_host *h);
int th_open(struct th_host *h, size_t buf_size, int mr_access, int cqe);
int th_create_qp(struct th_host *h, const struct th_qp_opts *o);
int th_exchange(struct th_host *h);
int th_connect(struct th_host *h);
void th_destroy_qp(struct th_host *h);
void th_close(struct th_host *h);
/* B exits with rc; A waits for B and returns -1 unless both succeeded. */
int th_join(struct th_host *h, int rc);

int th_fail(const struct th_host *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
double th_now_us(void);
/* How much longer than on a quiet machine a test may wait for something
 * to happen: CK_TIMEOUT_MULTIPLIER, the factor the test suite gives a
 * loaded machine or a sanitized build (at least 1). */
double th_slack(void);

/* One "PASS: what" or "FAIL: what" line, counted for th_summary. */
void th_check(int ok, const char *what);
/* Prints "N passed, N failed"; the exit status: 1 if any failed. */
int th_summary(void);

/* Out-of-band: a rendezvous, and small blocking messages. */
int th_sync(struct th_host *h);
int th_send_msg(struct th_host *h, const void *p, size_t n);
int th_recv_msg(struct th_host *h, void *p, size_t n);

/* Waits for one completion; a completion with an error status fails. */
int th_wait_wc(struct th_host *h, struct ibv_wc *wc, unsigned int ms);

/* An SGE of buf[off, off + len) under the MR. */
struct ibv_sge th_sge(const struct th_host *h, uint64_t off, uint32_t len);
int th_post_recv(struct th_host *h, uint64_t off, uint32_t len);
/* Posts wr as given; on a UD QP it is first addressed to the peer. */
int th_post_wr(struct th_host *h, struct ibv_send_wr *wr);
/* One signaled SEND or RDMA op from buf[off], wr_id off, to the peer's
 * raddr (ignored by SEND). */
int th_post_send(struct th_host *h, enum ibv_wr_opcode op, uint64_t off,
		 uint32_t len, uint64_t raddr);
/* One signaled atomic on the peer's raddr; the old value lands at
 * buf[off]. */
int th_post_atomic(struct th_host *h, enum ibv_wr_opcode op, uint64_t off,
		   uint64_t raddr, uint64_t compare_add, uint64_t swap);

#endif
