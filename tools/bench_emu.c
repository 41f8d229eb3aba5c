/* tools/bench_emu.c: the emulated device's figures, between the same two
 * processes as the raw UDP ones: RC SEND round trips busy-polling the CQ
 * and waiting on a completion channel, RC WRITE round trips with both
 * applications spinning on memory (as ib_write_lat does), 64 KiB WRITE and
 * READ goodput at MTU 4096 with the CPU each side spent, and CPU per
 * message at 1 QP against many. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench.h"

#define BUF_SIZE ((size_t)BENCH_BULK * BENCH_BULK_WIN)

int bench_rc_qp(struct th_host *h, uint32_t wr)
{
	struct th_qp_opts o = {
		.type = IBV_QPT_RC, .max_send_wr = wr, .max_recv_wr = wr,
		.max_send_sge = 1, .max_recv_sge = 1,
		.max_inline = BENCH_PING,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	return th_create_qp(h, &o) || th_exchange(h) || th_connect(h) ? -1 : 0;
}

/* A completion, by the channel when the CQ is empty (ms at most). */
static int wait_event(struct th_host *h, struct ibv_comp_channel *cc,
		      struct ibv_wc *wc)
{
	struct pollfd p = { .fd = cc->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(h->cq, 1, wc);
		if (n == 0) {
			if (ibv_req_notify_cq(h->cq, 0))
				return th_fail(h, "ibv_req_notify_cq");
			/* What arrived before the request was armed. */
			n = ibv_poll_cq(h->cq, 1, wc);
		}
		if (n < 0)
			return th_fail(h, "ibv_poll_cq failed");
		if (n == 1)
			return wc->status == IBV_WC_SUCCESS ? 0 :
			       th_fail(h, "completion error: %s",
				       ibv_wc_status_str(wc->status));
		if (poll(&p, 1, TH_DEADLINE_MS) != 1)
			return th_fail(h, "no completion event in time");
		if (ibv_get_cq_event(cc, &cq, &ctx))
			return th_fail(h, "ibv_get_cq_event");
		ibv_ack_cq_events(cq, 1);
	}
}

/* SEND round trips; cc NULL: busy polling, else the channel. */
int bench_send_pings(struct th_host *h, int n, struct ibv_comp_channel *cc,
		     double *out)
{
	double *rtt = calloc((size_t)n, sizeof(*rtt)), t0;
	struct ibv_wc wc;
	int i, rc = 0;

#define WAIT() (cc ? wait_event(h, cc, &wc) : th_wait_wc(h, &wc, TH_DEADLINE_MS))
	/* Each ping's receive is posted before the peer may send it, so no
	 * round trip pays for an RNR NAK. */
	if (!rtt || th_post_recv(h, BENCH_BULK, BENCH_PING) || th_sync(h)) {
		free(rtt);
		return -1;
	}
	for (i = 0; i < n && !rc; i++) {
		t0 = th_now_us();
		if (h->is_a)
			rc = th_post_send(h, IBV_WR_SEND, 0, BENCH_PING, 0) ||
			     WAIT();
		rc = rc || WAIT() || th_post_recv(h, BENCH_BULK, BENCH_PING);
		if (!h->is_a)
			rc = rc ||
			     th_post_send(h, IBV_WR_SEND, 0, BENCH_PING, 0) ||
			     WAIT();
		rtt[i] = th_now_us() - t0;
	}
#undef WAIT
	if (!rc)
		*out = bench_median(rtt, n);
	free(rtt);
	return rc ? -1 : th_sync(h);
}

/* WRITE round trips: each side spins on the last byte of what the other
 * writes into it, as ib_write_lat does, then polls its own completion. */
static int write_spin(struct th_host *h, int n, double *out)
{
	volatile uint8_t *in = h->buf + BENCH_BULK;
	double *rtt = calloc((size_t)n, sizeof(*rtt)), t0, dl;
	uint64_t raddr = h->peer.addr + BENCH_BULK;
	struct ibv_wc wc;
	int i, rc = 0;

	if (!rtt || th_sync(h)) {
		free(rtt);
		return -1;
	}
	memset(h->buf + BENCH_BULK, 0, BENCH_PING);
	if (th_sync(h))
		return -1;
	for (i = 1; i <= n && !rc; i++) {
		uint8_t want = (uint8_t)(i % 255 + 1);

		t0 = th_now_us();
		dl = t0 + TH_DEADLINE_MS * 1e3;
		if (h->is_a) {
			h->buf[BENCH_PING - 1] = want;
			rc = th_post_send(h, IBV_WR_RDMA_WRITE, 0, BENCH_PING,
					  raddr);
		}
		while (!rc && in[BENCH_PING - 1] != want)
			if (th_now_us() > dl)
				rc = th_fail(h, "WRITE %d never landed", i);
		if (!rc && !h->is_a) {
			h->buf[BENCH_PING - 1] = want;
			rc = th_post_send(h, IBV_WR_RDMA_WRITE, 0, BENCH_PING,
					  raddr);
		}
		rc = rc || th_wait_wc(h, &wc, TH_DEADLINE_MS);
		rtt[i - 1] = th_now_us() - t0;
	}
	if (!rc)
		*out = bench_median(rtt, n);
	free(rtt);
	return rc ? -1 : th_sync(h);
}

/* msgs 64 KiB WRITEs or READs by A with a window in flight; B stays idle,
 * as a one-sided target does. Goodput in MB/s, CPU s/GB on each side. */
int bench_bulk(struct th_host *h, enum ibv_wr_opcode op, int msgs,
	       double *mbps, double *cpu_a, double *cpu_b)
{
	double t0, c0, ca = 0, cb = 0, gb = (double)msgs * BENCH_BULK / 1e9;
	struct ibv_wc wc;
	int i, out = 0;

	if (th_sync(h))
		return -1;
	c0 = bench_cpu_s();
	t0 = th_now_us();
	if (h->is_a) {
		for (i = 0; i < msgs; i++) {
			uint64_t off = (uint64_t)(i % BENCH_BULK_WIN) *
				       BENCH_BULK;

			if (out == BENCH_BULK_WIN) {
				if (th_wait_wc(h, &wc, TH_DEADLINE_MS))
					return -1;
				out--;
			}
			if (th_post_send(h, op, off, BENCH_BULK,
					 h->peer.addr + off))
				return th_fail(h, "post bulk %d", i);
			out++;
		}
		while (out--)
			if (th_wait_wc(h, &wc, TH_DEADLINE_MS))
				return -1;
		*mbps = (double)msgs * BENCH_BULK / (th_now_us() - t0);
	}
	if (th_sync(h) || bench_cpu_both(h, c0, &ca, &cb))
		return -1;
	if (cpu_a) {
		*cpu_a = ca / gb;
		*cpu_b = cb / gb;
	}
	return 0;
}

/*
 * msgs 4 KiB WRITEs spread over nqp RC QPs, each with BENCH_SCALE_WIN in
 * flight: CPU per message (both sides) and the failed completions, which
 * stop the figure (the QP is in error then).
 */
static int scale(struct th_host *h, struct ibv_comp_channel *cc, int nqp,
		 int msgs, double *cpu_us, int *errors)
{
	struct ibv_qp **qps = calloc((size_t)nqp, sizeof(*qps));
	int *sent = calloc((size_t)nqp, sizeof(*sent));
	int *out = calloc((size_t)nqp, sizeof(*out));
	int i, q, done = 0, posted = 0, bad = 0, rc = -1, n;
	struct ibv_wc wc[32];
	double c0, ca = 0, cb = 0, dl;
	int per = (msgs + nqp - 1) / nqp;

	if (!qps || !sent || !out)
		goto free;
	for (q = 0; q < nqp; q++) {
		if (bench_rc_qp(h, BENCH_SCALE_WIN * 2))
			goto destroy;
		qps[q] = h->qp;
		h->qp = NULL;
	}
	if (th_sync(h))
		goto destroy;
	c0 = bench_cpu_s();
	dl = th_now_us() + 60e6;
	if (h->is_a) {
		while (done < per * nqp && !bad && th_now_us() < dl) {
			for (q = 0; q < nqp && posted < per * nqp; q++) {
				while (out[q] < BENCH_SCALE_WIN &&
				       sent[q] < per) {
					struct ibv_sge sge = th_sge(
						h, (uint64_t)(q % 256) *
							   BENCH_SCALE_MSG,
						BENCH_SCALE_MSG);
					struct ibv_send_wr wr = {
						.wr_id = (uint64_t)q,
						.sg_list = &sge, .num_sge = 1,
						.opcode = IBV_WR_RDMA_WRITE,
						.send_flags = IBV_SEND_SIGNALED,
					}, *badwr;

					wr.wr.rdma.remote_addr =
						h->peer.addr + sge.addr -
						(uintptr_t)h->buf;
					wr.wr.rdma.rkey = h->peer.rkey;
					if (ibv_post_send(qps[q], &wr, &badwr))
						break;
					out[q]++;
					sent[q]++;
					posted++;
				}
			}
			n = ibv_poll_cq(h->cq, 32, wc);
			/* Nothing done: sleep on the channel, so that the CPU
			 * counted is work, not a spinning wait. */
			if (n == 0) {
				if (wait_event(h, cc, wc) && wc->status ==
							  IBV_WC_SUCCESS)
					break;
				n = 1;
			}
			for (i = 0; i < n; i++) {
				if (wc[i].status != IBV_WC_SUCCESS)
					bad++;
				out[wc[i].wr_id]--;
				done++;
			}
		}
		*errors = bad;
		if (done < per * nqp && !bad)
			*errors = -1; /* out of time */
	}
	if (th_sync(h) || bench_cpu_both(h, c0, &ca, &cb))
		goto destroy;
	*cpu_us = (ca + cb) * 1e6 / ((double)per * nqp);
	rc = 0;
destroy:
	for (q = 0; q < nqp; q++)
		if (qps[q])
			ibv_destroy_qp(qps[q]);
	while (ibv_poll_cq(h->cq, 32, wc) > 0)
		;
free:
	free(qps);
	free(sent);
	free(out);
	return rc;
}

int bench_emu(struct th_host *h, const struct bench_sizes *z,
	      struct bench_run *r)
{
	struct ibv_comp_channel *cc = NULL;
	struct ibv_cq *polled;
	int cqe = z->scale_qps * BENCH_SCALE_WIN + 256;

	if (th_open(h, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ, cqe) ||
	    bench_rc_qp(h, 64))
		return -1;
	if (bench_send_pings(h, z->pings, NULL, &r->rtt_poll_us) ||
	    write_spin(h, z->pings, &r->rtt_spin_us) ||
	    bench_bulk(h, IBV_WR_RDMA_WRITE, z->bulk_msgs, &r->write_mbps,
		 &r->cpu_a_s_gb, &r->cpu_b_s_gb) ||
	    bench_bulk(h, IBV_WR_RDMA_READ, z->bulk_msgs, &r->read_mbps, NULL,
		 NULL))
		return -1;
	th_destroy_qp(h);

	/* The event mode: a CQ of its own, with a completion channel. */
	polled = h->cq;
	cc = ibv_create_comp_channel(h->ctx);
	h->cq = cc ? ibv_create_cq(h->ctx, 256, NULL, cc, 0) : NULL;
	if (!h->cq || bench_rc_qp(h, 64) ||
	    bench_send_pings(h, z->pings, cc, &r->rtt_event_us)) {
		if (!h->cq)
			th_fail(h, "a CQ with a channel: %s", strerror(errno));
		return -1;
	}
	th_destroy_qp(h);
	ibv_destroy_cq(h->cq);
	ibv_destroy_comp_channel(cc);
	h->cq = polled;

	/* At scale, on a CQ with a channel too: see scale(). */
	polled = h->cq;
	cc = ibv_create_comp_channel(h->ctx);
	h->cq = cc ? ibv_create_cq(h->ctx, cqe, NULL, cc, 0) : NULL;
	if (!h->cq ||
	    scale(h, cc, 1, z->scale_msgs, &r->cpu_1qp_us, &r->scale_errors) ||
	    scale(h, cc, z->scale_qps, z->scale_msgs, &r->cpu_nqp_us,
		  &r->scale_errors))
		return -1;
	ibv_destroy_cq(h->cq);
	ibv_destroy_comp_channel(cc);
	h->cq = polled;
	th_close(h);
	return 0;
}
