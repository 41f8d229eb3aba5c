/* emuverbs-bench: the emulated device against raw UDP on loopback, both
 * measured in the same run between the same two processes, as ratios. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "tools/twohost.h"

#define PING_SIZE 64
#define MSG_SIZE 4096
#define WINDOW 64		/* streamed messages in flight */
#define CREDIT 16		/* UDP datagrams per returned credit */
#define BUF_SIZE (WINDOW * MSG_SIZE)

struct figures {
	double rtt_us;		/* median round trip */
	double mbps;		/* streamed payload, MB/s */
};

static int pings = 2000;
static int stream_msgs = 20000;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* ---- raw UDP ----------------------------------------------------------- */

static int udp_socket(uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int big = 8 << 20;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		return -1;
	/* Room for the whole window, so no datagram of the stream is lost
	 * (the FORCE variant passes rmem_max where we may). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	*port = ntohs(a.sin_port);
	return fd;
}

static int udp_connect(int fd, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return connect(fd, (struct sockaddr *)&a, sizeof(a));
}

static int raw_udp(struct th_host *h, struct figures *f)
{
	static char msg[MSG_SIZE];
	double *rtt = calloc((size_t)pings, sizeof(*rtt));
	uint16_t mine, theirs;
	double t0;
	int fd, i, got;

	fd = udp_socket(&mine);
	if (!rtt || fd < 0 || th_send_msg(h, &mine, sizeof(mine)) ||
	    th_recv_msg(h, &theirs, sizeof(theirs)) || udp_connect(fd, theirs))
		return th_fail(h, "raw UDP setup: %s", strerror(errno));
	for (i = 0; i < pings; i++) {
		t0 = th_now_us();
		if (h->is_a && send(fd, msg, PING_SIZE, 0) != PING_SIZE)
			return th_fail(h, "UDP send: %s", strerror(errno));
		if (recv(fd, msg, sizeof(msg), 0) != PING_SIZE)
			return th_fail(h, "UDP recv: %s", strerror(errno));
		if (!h->is_a && send(fd, msg, PING_SIZE, 0) != PING_SIZE)
			return th_fail(h, "UDP send: %s", strerror(errno));
		rtt[i] = th_now_us() - t0;
	}
	f->rtt_us = median(rtt, pings);
	free(rtt);

	/* The stream, with the same window the RDMA stream keeps in flight:
	 * B returns a credit for every CREDIT datagrams, so the baseline is
	 * what UDP carries without losing, not how fast a sender can drop. */
	if (th_sync(h))
		return -1;
	{
		struct timeval tv = { .tv_sec = 2 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (h->is_a) {
		int out = 0;

		t0 = th_now_us();
		for (i = 0; i < stream_msgs; i++) {
			while (out + CREDIT > WINDOW) {
				if (recv(fd, msg, sizeof(msg), 0) != 1)
					return th_fail(h, "UDP credit lost");
				out -= CREDIT;
			}
			if (send(fd, msg, MSG_SIZE, 0) != MSG_SIZE)
				return th_fail(h, "UDP stream: %s",
					       strerror(errno));
			out++;
		}
		/* The last credit says everything arrived. */
		while (out > 0) {
			if (recv(fd, msg, sizeof(msg), 0) != 1)
				return th_fail(h, "UDP credit lost");
			out -= CREDIT;
		}
		f->mbps = (double)stream_msgs * MSG_SIZE / (th_now_us() - t0);
	} else {
		for (got = 1; got <= stream_msgs; got++) {
			if (recv(fd, msg, sizeof(msg), 0) != MSG_SIZE)
				return th_fail(h, "UDP stream lost a datagram");
			if (got % CREDIT == 0 || got == stream_msgs)
				if (send(fd, msg, 1, 0) != 1)
					return th_fail(h, "UDP credit: %s",
						       strerror(errno));
		}
	}
	close(fd);
	return th_sync(h);
}

/* ---- the emulated device ----------------------------------------------- */

static int emulated(struct th_host *h, struct figures *f)
{
	struct th_qp_opts o = {
		.type = IBV_QPT_RC, .max_send_wr = WINDOW * 2,
		.max_recv_wr = WINDOW * 2, .max_send_sge = 1,
		.max_recv_sge = 1, .access = IBV_ACCESS_REMOTE_WRITE,
	};
	double *rtt = calloc((size_t)pings, sizeof(*rtt));
	struct ibv_wc wc;
	int i, out = 0;
	double t0;

	if (!rtt || th_open(h, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
					   IBV_ACCESS_REMOTE_WRITE, WINDOW * 4) ||
	    th_create_qp(h, &o) || th_exchange(h) || th_connect(h))
		return -1;
	/* The receive for each ping is posted before the peer may send it,
	 * so no round trip pays for an RNR NAK. */
	if (th_post_recv(h, MSG_SIZE, PING_SIZE) || th_sync(h))
		return -1;
	for (i = 0; i < pings; i++) {
		t0 = th_now_us();
		if (h->is_a && (th_post_send(h, IBV_WR_SEND, 0, PING_SIZE, 0) ||
				th_wait_wc(h, &wc, TH_DEADLINE_MS)))
			return -1;
		if (th_wait_wc(h, &wc, TH_DEADLINE_MS) ||
		    th_post_recv(h, MSG_SIZE, PING_SIZE))
			return -1;
		if (!h->is_a && (th_post_send(h, IBV_WR_SEND, 0, PING_SIZE, 0) ||
				 th_wait_wc(h, &wc, TH_DEADLINE_MS)))
			return -1;
		rtt[i] = th_now_us() - t0;
	}
	f->rtt_us = median(rtt, pings);
	free(rtt);

	/* The stream: RDMA WRITEs with a window in flight; B stays idle, as
	 * a one-sided target does. */
	if (th_sync(h))
		return -1;
	if (h->is_a) {
		t0 = th_now_us();
		for (i = 0; i < stream_msgs; i++) {
			uint64_t off = (uint64_t)(i % WINDOW) * MSG_SIZE;

			if (out == WINDOW) {
				if (th_wait_wc(h, &wc, TH_DEADLINE_MS))
					return -1;
				out--;
			}
			if (th_post_send(h, IBV_WR_RDMA_WRITE, off, MSG_SIZE,
					 h->peer.addr + off))
				return th_fail(h, "post RDMA WRITE");
			out++;
		}
		while (out--)
			if (th_wait_wc(h, &wc, TH_DEADLINE_MS))
				return -1;
		f->mbps = (double)stream_msgs * MSG_SIZE / (th_now_us() - t0);
	}
	if (th_sync(h))
		return -1;
	th_destroy_qp(h);
	th_close(h);
	return 0;
}

int main(int argc, char **argv)
{
	struct figures udp = { 0 }, emu = { 0 };
	struct th_host h;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "--quick")) {
		pings = 200;
		stream_msgs = 2000;
	} else if (argc > 1) {
		fprintf(stderr, "usage: emuverbs bench [--quick]\n");
		return 2;
	}
	if (th_fork(&h))
		return 1;
	rc = raw_udp(&h, &udp);
	if (!rc)
		rc = emulated(&h, &emu);
	/* B exits inside th_join; A goes on with both results. */
	rc = th_join(&h, rc);
	if (rc) {
		printf("bench FAILED\n");
		return 1;
	}
	printf("emuverbs bench: raw UDP on loopback against the emulated "
	       "device (RC),\nsame two processes, same run\n"
	       "%-28s %12s %12s %9s\n"
	       "%-28s %9.1f us %9.1f us %8.2fx\n"
	       "%-28s %7.0f MB/s %7.0f MB/s %8.2fx\n",
	       "", "raw UDP", "emulated", "ratio",
	       "64 B round trip (median)", udp.rtt_us, emu.rtt_us,
	       emu.rtt_us / udp.rtt_us, "4 KiB stream (WRITE vs UDP)",
	       udp.mbps, emu.mbps, emu.mbps / udp.mbps);
	return 0;
}
