/* tools/bench_cc.c: emuverbs bench --congestion, two senders into one paced
 * port: two RC QPs of host A stream 64 KiB WRITEs to host B through A's
 * port at 1x QDR with an ECN threshold, with DCQCN off and then on, each
 * in a process pair of its own. Every 100 ms A prints each QP's goodput,
 * the port's queue and what was marked, CNP'd and cut since the last line,
 * then the second half's averages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <emuverbs/port.h>

#include "tools/bench.h"

#define CC_QPS		2
#define CC_WIN		16		/* WRITEs in flight per QP */
#define CC_STEPS	10		/* samples of CC_STEP_US */
#define CC_STEP_US	100000.0
#define CC_THRESHOLD	"32"

/* A counter of port 1 ("name value" lines), 0 when absent. */
static unsigned long long counter(struct th_host *h, const char *name)
{
	char buf[8192], key[64];
	unsigned long long v;
	const char *p;
	int n;

	if (emuverbs_port_counters(h->ctx, 1, buf, sizeof(buf)) <= 0)
		return 0;
	for (p = buf; sscanf(p, "%63s %llu%n", key, &v, &n) == 2; p += n)
		if (!strcmp(key, name))
			return v;
	return 0;
}

static int post_write(struct th_host *h, struct ibv_qp *qp, int q, int i)
{
	uint64_t off = (uint64_t)(q * CC_WIN + i % CC_WIN) * BENCH_BULK;
	struct ibv_sge sge = th_sge(h, off, BENCH_BULK);
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)q, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.rdma.remote_addr = h->peer.addr + off;
	wr.wr.rdma.rkey = h->peer.rkey;
	return ibv_post_send(qp, &wr, &bad);
}

/* A's side: keep each QP's window full, sample every step. */
static int stream(struct th_host *h, struct ibv_qp **qps, double *avg)
{
	unsigned long long done[CC_QPS] = { 0 }, last[CC_QPS] = { 0 };
	unsigned long long mk0 = 0, cut0 = 0, held0 = 0;
	double t0 = th_now_us(), next = t0 + CC_STEP_US;
	int posted[CC_QPS], q, step = 0, n, i;
	struct ibv_wc wc[16];

	for (q = 0; q < CC_QPS; q++)
		for (posted[q] = 0; posted[q] < CC_WIN; posted[q]++)
			if (post_write(h, qps[q], q, posted[q]))
				return th_fail(h, "post");
	printf("%6s %9s %9s %7s %9s %9s %6s\n", "ms", "QP0 MB/s",
	       "QP1 MB/s", "queue", "held", "marked", "cuts");
	while (step < CC_STEPS) {
		n = ibv_poll_cq(h->cq, 16, wc);
		if (n < 0)
			return th_fail(h, "ibv_poll_cq");
		for (i = 0; i < n; i++) {
			q = (int)wc[i].wr_id;
			if (wc[i].status != IBV_WC_SUCCESS)
				return th_fail(h, "completion error: %s",
					       ibv_wc_status_str(wc[i].status));
			done[q]++;
			if (post_write(h, qps[q], q, posted[q]++))
				return th_fail(h, "post");
		}
		if (th_now_us() < next)
			continue;
		step++;
		{
			unsigned long long mk = counter(h, "link_ecn_marked"),
					   held = counter(h, "link_held"),
					   cut = counter(h, "rp_cnp_handled");
			double r[CC_QPS];

			for (q = 0; q < CC_QPS; q++) {
				r[q] = (double)(done[q] - last[q]) *
				       BENCH_BULK / CC_STEP_US;
				last[q] = done[q];
				if (step > CC_STEPS / 2)
					avg[q] += r[q] / (CC_STEPS / 2);
			}
			printf("%6.0f %9.1f %9.1f %7llu %9llu %9llu %6llu\n",
			       (th_now_us() - t0) / 1e3, r[0], r[1],
			       counter(h, "link_queue"), held - held0,
			       mk - mk0, cut - cut0);
			if (step > CC_STEPS / 2) {
				avg[2] += (double)(held - held0);
				avg[3] += (double)(mk - mk0);
			}
			mk0 = mk;
			held0 = held;
			cut0 = cut;
		}
		next += CC_STEP_US;
	}
	/* Drain what is in flight before the QPs go. */
	for (q = 0, n = 0; q < CC_QPS; q++)
		n += posted[q] - (int)done[q];
	while (n > 0) {
		i = ibv_poll_cq(h->cq, 16, wc);
		if (i < 0)
			return -1;
		n -= i;
	}
	return 0;
}

int bench_cc_one(void)
{
	struct ibv_qp *qps[CC_QPS] = { 0 };
	double avg[4] = { 0 };
	struct th_host h;
	int q, rc;

	if (th_fork(&h))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = th_open(&h, (size_t)CC_QPS * CC_WIN * BENCH_BULK,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		     CC_QPS * CC_WIN * 2);
	for (q = 0; q < CC_QPS && !rc; q++) {
		rc = bench_rc_qp(&h, CC_WIN * 2);
		qps[q] = h.qp;
		h.qp = NULL;
	}
	rc = rc || th_sync(&h);
	if (!rc && h.is_a)
		rc = stream(&h, qps, avg);
	rc = rc || th_sync(&h);
	for (q = 0; q < CC_QPS; q++)
		if (qps[q])
			ibv_destroy_qp(qps[q]);
	if (!rc)
		th_close(&h);
	rc = th_join(&h, rc);
	if (!rc)
		printf("second half: QP0 %.1f MB/s, QP1 %.1f MB/s, %.0f%% of "
		       "the packets the pacer held marked\n", avg[0], avg[1],
		       avg[2] > 0 ? 100.0 * avg[3] / avg[2] : 0.0);
	return rc ? 1 : 0;
}

static int run_one(const char *self, const char *dcqcn)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		setenv("EMUVERBS_SPEED", "QDR", 1);
		setenv("EMUVERBS_WIDTH", "1x", 1);
		setenv("EMUVERBS_ECN_THRESHOLD", CC_THRESHOLD, 1);
		setenv("EMUVERBS_DCQCN", dcqcn, 1);
		execl(self, self, "--congestion-one", (char *)NULL);
		_exit(127);
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
			       !WEXITSTATUS(st) ? 0 : -1;
}

int bench_cc(const char *self)
{
	int rc = 0;

	printf("emuverbs bench --congestion: two RC QPs stream 64 KiB WRITEs "
	       "through one port\nat 1x QDR (1225 MB/s of goodput) whose "
	       "queue marks CE from %s packets on\n\nDCQCN off:\n",
	       CC_THRESHOLD);
	fflush(stdout);
	rc |= run_one(self, "off");
	printf("\nDCQCN on:\n");
	fflush(stdout);
	rc |= run_one(self, "on");
	printf("units: MB/s (10^6); queue: packets the pacer holds at the "
	       "sample; held, marked, cuts: since the last line\n");
	return rc ? 1 : 0;
}
