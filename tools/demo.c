/* emuverbs-demo: two processes, each its own host on the emulated device,
 * move data over one RC QP pair and print what they measured. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/twohost.h"

#define PING_SIZE 64
#define PINGS 1000
#define CHUNK (64u * 1024)	/* RDMA WRITE / READ message size */
#define CHUNKS 64
#define ATOMICS 1000
/* Each host's registered buffer: the chunks, then a page whose last 8
 * bytes are the atomic counter, which must start at 0 (out of their way). */
#define BUF_SIZE (CHUNK * CHUNKS + 4096)
#define COUNTER_OFF (BUF_SIZE - 8)
#define ACCESS (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		IBV_ACCESS_REMOTE_ATOMIC)

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* 0 when buf holds the pattern fill(seed) writes, 1 when not, -1 on ENOMEM */
static int pattern_differs(const uint8_t *buf, size_t n, uint32_t seed)
{
	uint8_t *want = malloc(n);
	int bad;

	if (!want)
		return -1;
	fill(want, n, seed);
	bad = memcmp(want, buf, n) != 0;
	free(want);
	return bad;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int wait_wc(struct th_host *h)
{
	struct ibv_wc wc;

	return th_wait_wc(h, &wc, TH_DEADLINE_MS);
}

/* A (the requester) pings, B (the responder) answers: SEND latency. */
static int ping_pong(struct th_host *h)
{
	static double rtt[PINGS];
	int i;

	if (th_post_recv(h, 4096, PING_SIZE))
		return th_fail(h, "post_recv failed");
	if (th_sync(h))
		return -1;
	for (i = 0; i < PINGS; i++) {
		double t0 = th_now_us();

		if (h->is_a && (th_post_send(h, IBV_WR_SEND, 0, PING_SIZE, 0) ||
				wait_wc(h)))
			return th_fail(h, "ping %d", i);
		if (wait_wc(h))
			return th_fail(h, "pong %d", i);
		/* The next round's receive goes up before this one is
		 * answered, so the peer's next message never finds the queue
		 * empty (an RNR NAK would cost min_rnr_timer, 0.64 ms). */
		if (th_post_recv(h, 4096, PING_SIZE))
			return th_fail(h, "post_recv failed");
		if (!h->is_a &&
		    (th_post_send(h, IBV_WR_SEND, 0, PING_SIZE, 0) ||
		     wait_wc(h)))
			return th_fail(h, "pong send %d", i);
		rtt[i] = th_now_us() - t0;
	}
	if (h->is_a) {
		qsort(rtt, PINGS, sizeof(rtt[0]), cmp_double);
		printf("  SEND/RECV ping-pong   %d x %d B: median round trip "
		       "%.1f us, 99th %.1f us\n",
		       PINGS, PING_SIZE, rtt[PINGS / 2], rtt[PINGS * 99 / 100]);
	}
	return 0;
}

static void report_bw(const char *what, double us, size_t bytes)
{
	printf("  %-22s %u x %u KiB: %.2f ms, %.2f Gb/s, data verified\n", what,
	       CHUNKS, CHUNK / 1024, us / 1e3, bytes * 8 / us / 1e3);
}

/* CHUNKS RDMA ops of CHUNK bytes between our buffer and the peer's, all
 * posted before the first completion is reaped. */
static int rdma_chunks(struct th_host *h, enum ibv_wr_opcode op)
{
	uint64_t off;
	int i;

	for (i = 0; i < CHUNKS; i++) {
		off = (uint64_t)i * CHUNK;
		if (th_post_send(h, op, off, CHUNK, h->peer.addr + off))
			return th_fail(h, "post %s",
				       op == IBV_WR_RDMA_READ ? "RDMA READ" :
								"RDMA WRITE");
	}
	for (i = 0; i < CHUNKS; i++)
		if (wait_wc(h))
			return -1;
	return 0;
}

/* A writes a pattern into B's buffer, B checks it; A reads it back. */
static int write_read(struct th_host *h)
{
	size_t total = (size_t)CHUNK * CHUNKS;
	int bad = 0;
	double t0;

	if (!h->is_a) {
		if (th_sync(h) || th_sync(h))
			return -1;
		bad = pattern_differs(h->buf, total, 7) != 0;
		if (th_send_msg(h, &bad, sizeof(bad)))
			return -1;
		return th_sync(h);
	}
	fill(h->buf, total, 7);
	if (th_sync(h))
		return -1;
	t0 = th_now_us();
	if (rdma_chunks(h, IBV_WR_RDMA_WRITE))
		return -1;
	report_bw("RDMA WRITE", th_now_us() - t0, total);
	memset(h->buf, 0, total);
	if (th_sync(h) || th_recv_msg(h, &bad, sizeof(bad)))
		return -1;
	if (bad)
		return th_fail(h, "B found the written data wrong");
	t0 = th_now_us();
	if (rdma_chunks(h, IBV_WR_RDMA_READ))
		return -1;
	t0 = th_now_us() - t0;
	if (pattern_differs(h->buf, total, 7))
		return th_fail(h, "RDMA READ returned wrong data");
	report_bw("RDMA READ", t0, total);
	return th_sync(h);
}

/* A adds 1 to B's counter ATOMICS times, then swaps it with CMP_SWP. */
static int atomics(struct th_host *h)
{
	uint64_t *counter = (uint64_t *)(h->buf + COUNTER_OFF);
	uint64_t *result = (uint64_t *)(h->buf + 8192);
	uint64_t raddr = h->peer.addr + COUNTER_OFF;
	uint64_t final = 0;
	double t0;
	int i;

	if (!h->is_a) {
		if (th_sync(h) || th_sync(h))
			return -1;
		final = *counter;
		return th_send_msg(h, &final, sizeof(final));
	}
	if (th_sync(h))
		return -1;
	t0 = th_now_us();
	for (i = 0; i < ATOMICS; i++) {
		if (th_post_atomic(h, IBV_WR_ATOMIC_FETCH_AND_ADD, 8192, raddr,
				   1, 0) ||
		    wait_wc(h))
			return th_fail(h, "FETCH_ADD %d", i);
		if (*result != (uint64_t)i)
			return th_fail(h, "FETCH_ADD %d returned %" PRIu64, i,
				       *result);
	}
	t0 = th_now_us() - t0;
	if (th_post_atomic(h, IBV_WR_ATOMIC_CMP_AND_SWP, 8192, raddr, ATOMICS,
			   ATOMICS + 1) ||
	    wait_wc(h) || *result != ATOMICS)
		return th_fail(h, "CMP_SWP did not see %d", ATOMICS);
	if (th_sync(h) || th_recv_msg(h, &final, sizeof(final)))
		return -1;
	if (final != ATOMICS + 1)
		return th_fail(h, "B's counter is %" PRIu64 ", not %d", final,
			       ATOMICS + 1);
	printf("  ATOMIC FETCH_ADD      %d x 8 B: %.1f us each; CMP_SWP "
	       "swapped %d -> %d; counter verified on B\n",
	       ATOMICS, t0 / ATOMICS, ATOMICS, ATOMICS + 1);
	return 0;
}

static void print_hosts(const struct th_host *h)
{
	const uint8_t *a = h->me.gid.raw + 12, *b = h->peer.gid.raw + 12;

	printf("emuverbs demo: two processes, one RC QP each, on %s\n"
	       "  host A %u.%u.%u.%u QPN 0x%06x  <->  host B %u.%u.%u.%u QPN "
	       "0x%06x\n",
	       ibv_get_device_name(h->ctx->device), a[0], a[1], a[2], a[3],
	       h->me.qpn, b[0], b[1], b[2], b[3], h->peer.qpn);
	fflush(stdout);
}

static int run(struct th_host *h)
{
	static const struct th_qp_opts rc = {
		.type = IBV_QPT_RC, .max_send_wr = 128, .max_recv_wr = 128,
		.max_send_sge = 1, .max_recv_sge = 1,
		.path_mtu = IBV_MTU_4096, .access = ACCESS,
	};

	if (th_open(h, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE | ACCESS, 256) ||
	    th_create_qp(h, &rc) || th_exchange(h) || th_connect(h))
		return -1;
	if (h->is_a)
		print_hosts(h);
	if (ping_pong(h) || write_read(h) || atomics(h))
		return -1;
	return 0;
}

int main(void)
{
	struct th_host h;
	int rc;

	if (th_fork(&h))
		return 1;
	rc = run(&h);
	th_close(&h);
	rc = th_join(&h, rc);	/* B exits here */
	printf(rc ? "demo FAILED\n" : "all data verified\n");
	return rc ? 1 : 0;
}
