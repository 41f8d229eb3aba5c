/* One-sided operations served while the target application is blocked in a
 * system call, as a NIC serves them: host B blocks in read(2) and makes no
 * verbs call at all while host A's RDMA WRITEs, READs and atomics on B's
 * memory complete (their ACKs and responses come from B's engine). B first
 * busy-polls its empty CQ for a while, which has its engine leave the
 * socket to B's polls: the engine must take it back once B stops. */
#include <stdio.h>
#include <string.h>

#include "tools/twohost.h"

#define LEN	65536			/* per operation: 16 packets */
#define SRC	0			/* A: what it writes */
#define DST	(1 * LEN)		/* A: what it reads back */
#define B_OLD	0			/* B: what B had, which A reads */
#define B_NEW	(1 * LEN)		/* B: where A writes */
#define B_ATOM	(2 * LEN)		/* B: the atomics' word */
#define A_ATOM	(2 * LEN)		/* A: the atomics' old values */
#define ROUNDS	20

static uint8_t pat(uint32_t i, uint8_t seed)
{
	return (uint8_t)(i * 31 + seed);
}

static int same(const uint8_t *p, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < LEN; i++)
		if (p[i] != pat(i, seed))
			return 0;
	return 1;
}

static int one(struct th_host *h, double *worst_ms)
{
	struct ibv_wc wc;
	double t0 = th_now_us(), ms;
	int rc = th_wait_wc(h, &wc, (unsigned int)(5000 * th_slack()));

	ms = (th_now_us() - t0) / 1e3;
	if (ms > *worst_ms)
		*worst_ms = ms;
	return rc;
}

/* A, with B blocked: each round writes, reads back, reads what B had, and
 * adds 1 and swaps on B's word. */
static void initiator(struct th_host *h)
{
	uint64_t old, want = 1000;
	double worst = 0;
	int ok_w = 1, ok_rb = 1, ok_rold = 1, ok_at = 1, r;
	uint32_t i;

	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < LEN; i++)
			h->buf[SRC + i] = pat(i, (uint8_t)(0x40 + r));
		memset(h->buf + DST, 0, LEN);
		if (th_post_send(h, IBV_WR_RDMA_WRITE, SRC, LEN,
				 h->peer.addr + B_NEW) || one(h, &worst))
			ok_w = 0;
		if (th_post_send(h, IBV_WR_RDMA_READ, DST, LEN,
				 h->peer.addr + B_NEW) || one(h, &worst) ||
		    !same(h->buf + DST, (uint8_t)(0x40 + r)))
			ok_rb = 0;
		memset(h->buf + DST, 0, LEN);
		if (th_post_send(h, IBV_WR_RDMA_READ, DST, LEN,
				 h->peer.addr + B_OLD) || one(h, &worst) ||
		    !same(h->buf + DST, 0x11))
			ok_rold = 0;
		if (th_post_atomic(h, IBV_WR_ATOMIC_FETCH_AND_ADD, A_ATOM,
				   h->peer.addr + B_ATOM, 1, 0) ||
		    one(h, &worst))
			ok_at = 0;
		memcpy(&old, h->buf + A_ATOM, 8);
		if (old != want)
			ok_at = 0;
		want++;
		if (th_post_atomic(h, IBV_WR_ATOMIC_CMP_AND_SWP, A_ATOM,
				   h->peer.addr + B_ATOM, want, want + 100) ||
		    one(h, &worst))
			ok_at = 0;
		memcpy(&old, h->buf + A_ATOM, 8);
		if (old != want)
			ok_at = 0;
		want += 100;
	}
	th_check(ok_w, "RDMA WRITE of 64 KiB completes, the target blocked");
	th_check(ok_rb, "RDMA READ returns what was written");
	th_check(ok_rold, "RDMA READ returns what the target had");
	th_check(ok_at, "fetch-and-add and compare-and-swap execute");
	/* How soon is the machine's business: a figure. Had B's engine not
	 * taken its socket back, nobody would have read A's packets and the
	 * operations above would have failed. */
	printf("slowest completion %.1f ms over %d rounds of 5 operations\n",
	       worst, ROUNDS);
	/* B's word after the last round, for B to check. */
	if (th_send_msg(h, &want, sizeof(want)))
		th_check(0, "waking the target");
}

/* B: blocked in read(2) until A is done, then checks its memory. */
static int target(struct th_host *h)
{
	double until = th_now_us() + 10e3;
	struct ibv_wc wc;
	uint64_t want, got;
	int ok;

	while (th_now_us() < until)
		if (ibv_poll_cq(h->cq, 1, &wc) != 0)
			return -1;
	if (th_recv_msg(h, &want, sizeof(want)))
		return -1;
	memcpy(&got, h->buf + B_ATOM, 8);
	ok = same(h->buf + B_NEW, (uint8_t)(0x40 + ROUNDS - 1)) &&
	     same(h->buf + B_OLD, 0x11) && got == want;
	if (!ok)
		fprintf(stderr, "host B: memory not as A left it (word %llu, "
			"expected %llu)\n", (unsigned long long)got,
			(unsigned long long)want);
	return ok ? 0 : -1;
}

int main(void)
{
	struct th_qp_opts o = {
		.type = IBV_QPT_RC,
		.max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = 1, .max_recv_sge = 1,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
	};
	struct th_host h = { 0 };
	uint64_t start = 1000;
	uint32_t i;
	int rc;

	if (th_fork(&h) ||
	    th_open(&h, 3 * LEN,
		    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		    64)) {
		printf("0 passed, 1 failed\n");
		return 1;
	}
	if (!h.is_a) {
		for (i = 0; i < LEN; i++)
			h.buf[B_OLD + i] = pat(i, 0x11);
		memcpy(h.buf + B_ATOM, &start, 8);
	}
	if (th_create_qp(&h, &o) || th_exchange(&h) || th_connect(&h) ||
	    th_sync(&h)) {
		printf("0 passed, 1 failed\n");
		return 1;
	}
	if (!h.is_a)
		return th_join(&h, target(&h));
	initiator(&h);
	rc = th_join(&h, 0);
	th_check(rc == 0, "the target finds its memory as the initiator left it");
	th_close(&h);
	return th_summary();
}
