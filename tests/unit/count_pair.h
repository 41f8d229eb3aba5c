/* Shared by the unit tests that need traffic to count: two RC QPs of the
 * first device's port 1, connected to each other, and SENDs between them
 * that complete. */
#ifndef EMU_COUNT_PAIR_H
#define EMU_COUNT_PAIR_H

#include <stdint.h>

#include <infiniband/verbs.h>

#define COUNT_PAIR_BUF	65536

struct count_pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;		/* a sends, b receives */
	struct ibv_mr *mr;
	uint8_t *buf;
};

/* Open the device, make both QPs and bring them to RTS (MTU 1024), or
 * fail the test. */
void count_pair_open(struct count_pair *p);

/* n SENDs of len bytes (at most COUNT_PAIR_BUF / 2) from a to b, each
 * received and both completions polled, or fail the test. */
void count_pair_send(struct count_pair *p, uint32_t len, unsigned int n);

void count_pair_close(struct count_pair *p);

#endif
