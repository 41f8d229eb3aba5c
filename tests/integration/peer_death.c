/* A peer process that dies: the survivor's outstanding RC work requests end
 * in IBV_WC_RETRY_EXC_ERR within what timeout and retry_cnt allow. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/twohost.h"

/* twohost connects with timeout 14 (4.096 us x 2^14 = 67 ms) and
 * retry_cnt 7: the first request gives up after 8 such timeouts. */
#define ACK_TIMEOUT_MS 67.1
#define TRIES 8

/* Poll with no judgement of the status: errors are what we expect. */
static int next_wc(struct th_host *h, struct ibv_wc *wc, double deadline_us)
{
	int n;

	do {
		n = ibv_poll_cq(h->cq, 1, wc);
		if (n)
			return n;
	} while (th_now_us() < deadline_us);
	return 0;
}

static void survive(struct th_host *h)
{
	double t0, took_ms;
	struct ibv_wc wc;
	int status;

	/* Make sure B is gone, not just quiet. */
	if (waitpid(h->child, &status, 0) != h->child ||
	    !WIFSIGNALED(status)) {
		th_check(0, "peer killed");
		return;
	}
	t0 = th_now_us();
	if (th_post_send(h, IBV_WR_SEND, 0, 64, 0) ||
	    th_post_send(h, IBV_WR_RDMA_WRITE, 4096, 4096,
			 h->peer.addr + 4096) ||
	    th_post_send(h, IBV_WR_RDMA_READ, 8192, 4096, h->peer.addr)) {
		th_check(0, "posting to a dead peer");
		return;
	}
	th_check(next_wc(h, &wc, t0 + 10e6) == 1 &&
		      wc.status == IBV_WC_RETRY_EXC_ERR && wc.wr_id == 0,
	      "first WR: IBV_WC_RETRY_EXC_ERR");
	took_ms = (th_now_us() - t0) / 1e3;
	printf("gave up after %.0f ms (%d timeouts of %.1f ms)\n", took_ms,
	       TRIES, ACK_TIMEOUT_MS);
	th_check(took_ms >= 0.9 * TRIES * ACK_TIMEOUT_MS,
	      "not before timeout x (retry_cnt + 1)");
	th_check(took_ms <= 4 * TRIES * ACK_TIMEOUT_MS,
	      "not long after timeout x (retry_cnt + 1)");
	th_check(next_wc(h, &wc, th_now_us() + 2e6) == 1 &&
		      wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 4096,
	      "second WR flushed");
	th_check(next_wc(h, &wc, th_now_us() + 2e6) == 1 &&
		      wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 8192,
	      "third WR flushed");
}

int main(void)
{
	struct th_qp_opts o = {
		.type = IBV_QPT_RC,
		.max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = 1, .max_recv_sge = 1,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	struct th_host h = { 0 };

	if (th_fork(&h) ||
	    th_open(&h, 65536,
		    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ,
		    64) ||
	    th_create_qp(&h, &o) || th_exchange(&h) || th_connect(&h) ||
	    th_sync(&h)) {
		printf("0 passed, 1 failed\n");
		return 1;
	}
	if (!h.is_a) {
		/* Die as a crash would: no destroy, no goodbye. */
		kill(getpid(), SIGKILL);
		_exit(1);
	}
	survive(&h);
	th_close(&h);
	return th_summary();
}
