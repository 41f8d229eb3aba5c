/* tools/bench_udp.c: the raw UDP baselines the emulated device is held
 * against, between the same two processes on loopback: round trips with
 * busy-polling and with blocking sockets, and a 64 KiB stream with GSO
 * (UDP_SEGMENT, MTU-sized segments) and GRO, flow-controlled so that it
 * measures what UDP carries without loss; and the helpers the bench's
 * parts share (medians, CPU time). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "tools/bench.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* Half a bulk message per sendmsg: a UDP datagram, GSO or not, carries
 * at most 65507 bytes. */
#define HALF (BENCH_BULK / 2)

double bench_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int bench_cpu_both(struct th_host *h, double a0, double *a, double *b)
{
	double mine = bench_cpu_s() - a0;

	if (h->is_a) {
		*a = mine;
		return th_recv_msg(h, b, sizeof(*b));
	}
	return th_send_msg(h, &mine, sizeof(mine));
}

int bench_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp);
	return v[n / 2];
}

static int udp_pair(struct th_host *h)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 5 };
	socklen_t len = sizeof(a);
	uint16_t mine, theirs;
	int big = 8 << 20;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		return -1;
	/* Room for the whole window (FORCE passes rmem_max where we may). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	/* A lost datagram fails the figure instead of hanging it. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	mine = ntohs(a.sin_port);
	if (th_send_msg(h, &mine, sizeof(mine)) ||
	    th_recv_msg(h, &theirs, sizeof(theirs)))
		return -1;
	a.sin_port = htons(theirs);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	return fd;
}

/* recv, again after an interruption: CI saw a blocking one end in EINTR
 * once, in the io_uring suite, in the raw run right after an emulated one
 * whose rings were being torn down; a benchmark must not fail on it. */
static ssize_t recv_again(int fd, void *buf, size_t len, int flags)
{
	ssize_t n;

	do
		n = recv(fd, buf, len, flags);
	while (n < 0 && errno == EINTR);
	return n;
}

/* One ping's receive: spinning (MSG_DONTWAIT) or blocking. */
static int ping_recv(int fd, char *buf, int spin)
{
	ssize_t n;

	do
		n = recv_again(fd, buf, BENCH_PING, spin ? MSG_DONTWAIT : 0);
	while (n < 0 && spin && (errno == EAGAIN || errno == EWOULDBLOCK));
	return n == BENCH_PING ? 0 : -1;
}

static int round_trips(struct th_host *h, int fd, int n, int spin,
		       double *out)
{
	double *rtt = calloc((size_t)n, sizeof(*rtt)), t0;
	char buf[BENCH_PING] = { 0 };
	int i;

	if (!rtt || th_sync(h))
		return th_fail(h, "UDP round trips: setup");
	for (i = 0; i < n; i++) {
		t0 = th_now_us();
		if ((h->is_a && send(fd, buf, BENCH_PING, 0) != BENCH_PING) ||
		    ping_recv(fd, buf, spin) ||
		    (!h->is_a && send(fd, buf, BENCH_PING, 0) != BENCH_PING)) {
			free(rtt);
			return th_fail(h, "UDP round trip %d: %s", i,
				       strerror(errno));
		}
		rtt[i] = th_now_us() - t0;
	}
	*out = bench_median(rtt, n);
	free(rtt);
	return 0;
}

/* A sends msgs bulk messages, each as two GSO sends of 8 segments; B
 * receives with GRO and returns a one-byte credit per message. */
static int stream(struct th_host *h, int fd, int msgs, struct bench_run *r)
{
	static char buf[BENCH_BULK];
	int seg = BENCH_SEG, on = 1, out = 0, i;
	double t0, c0, ca = 0, cb = 0;
	long long got = 0, want = (long long)msgs * BENCH_BULK;
	char credit;
	ssize_t n;

	if (h->is_a && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)))
		return th_fail(h, "UDP_SEGMENT: %s", strerror(errno));
	if (!h->is_a && setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof(on)))
		return th_fail(h, "UDP_GRO: %s", strerror(errno));
	if (th_sync(h))
		return -1;
	c0 = bench_cpu_s();
	t0 = th_now_us();
	if (h->is_a) {
		for (i = 0; i < msgs; i++) {
			while (out == BENCH_BULK_WIN) {
				if (recv_again(fd, &credit, 1, 0) != 1)
					return th_fail(h, "UDP credit lost");
				out--;
			}
			if (send(fd, buf, HALF, 0) != HALF ||
			    send(fd, buf + HALF, HALF, 0) != HALF)
				return th_fail(h, "UDP GSO send: %s",
					       strerror(errno));
			out++;
		}
		while (out--)
			if (recv_again(fd, &credit, 1, 0) != 1)
				return th_fail(h, "UDP credit lost");
		r->write_mbps = (double)want / (th_now_us() - t0);
	} else {
		long long next = BENCH_BULK;

		while (got < want) {
			n = recv_again(fd, buf, sizeof(buf), 0);
			if (n <= 0)
				return th_fail(h, "UDP stream: lost a datagram");
			got += n;
			while (got >= next) {
				if (send(fd, &credit, 1, 0) != 1)
					return th_fail(h, "UDP credit: %s",
						       strerror(errno));
				next += BENCH_BULK;
			}
		}
	}
	if (bench_cpu_both(h, c0, &ca, &cb))
		return -1;
	r->read_mbps = r->write_mbps;
	r->cpu_a_s_gb = ca / ((double)want / 1e9);
	r->cpu_b_s_gb = cb / ((double)want / 1e9);
	return 0;
}

int bench_udp(struct th_host *h, const struct bench_sizes *z,
	      struct bench_run *r)
{
	int fd = udp_pair(h), rc;

	if (fd < 0)
		return th_fail(h, "raw UDP setup: %s", strerror(errno));
	rc = round_trips(h, fd, z->pings, 1, &r->rtt_poll_us);
	if (!rc)
		rc = round_trips(h, fd, z->pings, 0, &r->rtt_event_us);
	r->rtt_spin_us = r->rtt_poll_us;
	if (!rc)
		rc = stream(h, fd, z->bulk_msgs, r);
	close(fd);
	return rc ? -1 : th_sync(h);
}
