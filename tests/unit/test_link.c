/* Unit tests for emu/device/link.c: the pacer's departures at the modelled rate
 * and its burst, the delay line and its seeded jitter (in order, bounded,
 * repeatable), the queue's limit and allocation failure, ECN marks from
 * the pacer's queue only, and that a held datagram in parts arrives as it
 * was queued. Time is the caller's, so
 * every figure is exact; the engine is left out (nothing is released but
 * by emu_link_release). */
#include <arpa/inet.h>
#include <check.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu/device/link.h"
#include "net/udp.h"
#include "tests/unit/testlib.h"

#define T0	1000000000ull		/* 1 s: "now" at the start */

struct rig {
	struct emu_udp u;
	struct emu_link l;
	struct in6_addr lo;
	int fa, fb;
	uint16_t pa, pb;
	uint8_t hdr[64];
};

static int endpoint(uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	ck_assert_int_ge(fd, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

static void rig_up(struct rig *r, const struct emu_link_cfg *cfg)
{
	memset(r, 0, sizeof(*r));
	r->lo.s6_addr[10] = 0xff;
	r->lo.s6_addr[11] = 0xff;
	r->lo.s6_addr32[3] = htonl(INADDR_LOOPBACK);
	r->fa = endpoint(&r->pa);	/* receives */
	r->fb = endpoint(&r->pb);	/* the sender's endpoint */
	ck_assert_int_eq(emu_udp_open(&r->u, r->fb, AF_INET, &r->lo, false,
				      EMU_UDP_MMSG), 0);
	emu_udp_start(&r->u);
	emu_link_init(&r->l, cfg, &r->u, NULL);
}

static void rig_down(struct rig *r)
{
	emu_link_fini(&r->l);
	emu_udp_close(&r->u);
	close(r->fa);
	close(r->fb);
}

/* One datagram of len bytes, all in its send buffer (which the transport
 * takes from emu_udp_tx_buf too: a full batch is flushed there). */
static void send_at(struct rig *r, uint64_t now, uint32_t len)
{
	uint8_t *buf = emu_udp_tx_buf(&r->u);

	memset(buf, 0x5a, len);
	emu_link_send(&r->l, now, 0, NULL, &r->lo, r->pa, 0, buf, len - 4, NULL,
		      0, 4);
}

/* Datagrams that reached the UDP batch or the socket so far. */
static uint64_t passed(struct rig *r)
{
	return r->u.tx_packets + r->u.tx_n;
}

static unsigned int drain(int fd)
{
	uint8_t b[EMU_UDP_BUF];
	unsigned int n = 0;

	while (recv(fd, b, sizeof(b), 0) > 0)
		n++;
	return n;
}

/*
 * 1000 Mb/s, 1000-byte datagrams: each costs 1066 bytes on the wire
 * (IPv4, UDP, Ethernet), 8528 ns. The burst is 17 frames of at most
 * 4310 bytes, 586160 ns: an idle link lets 69 leave at once (start times
 * 0 .. 68 x 8528 ns behind the burst's edge), and holds the rest until
 * their turn, spaced exactly 8528 ns apart.
 */
START_TEST(t_pacing)
{
	struct emu_link_cfg cfg = { .rate_mbps = 1000, .limit = 1000 };
	struct rig r;
	uint64_t burst = 17ull * 4310 * 8, next, t, got;
	unsigned int i, now_ok = (unsigned int)(burst / 8528) + 1;

	ck_assert_uint_eq(emu_link_wire_len(1000, true), 1066);
	ck_assert_uint_eq(emu_link_wire_len(1000, false), 1086);
	rig_up(&r, &cfg);
	for (i = 0; i < 200; i++)
		send_at(&r, T0, 1000);
	ck_assert_uint_eq(passed(&r), now_ok);
	ck_assert_uint_eq(r.l.n, 200 - now_ok);
	ck_assert_uint_eq(r.l.held, 200 - now_ok);
	/* Packet now_ok starts when the wire has sent now_ok before it. */
	next = emu_link_release(&r.l, T0);
	ck_assert_uint_eq(next, T0 - burst + now_ok * 8528ull);
	got = drain(r.fa);
	for (i = 0, t = next; i < 200 - now_ok; i++, t += 8528) {
		/* One nanosecond early is too early; on time is in time. */
		ck_assert_uint_eq(emu_link_release(&r.l, t - 1), t);
		ck_assert_uint_eq(r.l.released, i);
		emu_link_release(&r.l, t);
		ck_assert_uint_eq(r.l.released, i + 1);
		got += drain(r.fa);
	}
	ck_assert_uint_eq(r.l.n, 0);
	ck_assert_uint_eq(got, 200);
	/* Idle long enough, the full burst is back. */
	t += burst * 2;
	for (i = 0; i < now_ok; i++)
		send_at(&r, t, 1000);
	ck_assert_uint_eq(r.l.n, 0);
	rig_down(&r);
}
END_TEST

/* An unshaped link sends everything at once and never allocates. */
START_TEST(t_unshaped)
{
	struct emu_link_cfg cfg = { .limit = 4 };
	struct rig r;
	unsigned int i;

	rig_up(&r, &cfg);
	ck_assert(!emu_link_shaped(&r.l));
	for (i = 0; i < 20; i++)
		send_at(&r, T0, 100);
	emu_udp_flush(&r.u);
	ck_assert_uint_eq(passed(&r), 20);
	ck_assert_ptr_null(r.l.q);
	ck_assert_uint_eq(drain(r.fa), 20);
	rig_down(&r);
}
END_TEST

/* A constant delay holds every packet exactly that long, in order. */
START_TEST(t_latency)
{
	struct emu_link_cfg cfg = { .latency_ns = 50000, .limit = 100 };
	struct rig r;
	unsigned int i;

	rig_up(&r, &cfg);
	for (i = 0; i < 10; i++)
		send_at(&r, T0 + i * 1000, 100);
	ck_assert_uint_eq(passed(&r), 0);
	ck_assert_uint_eq(emu_link_release(&r.l, T0 + 49999), T0 + 50000);
	ck_assert_uint_eq(r.l.released, 0);
	ck_assert_uint_eq(emu_link_release(&r.l, T0 + 54500), T0 + 55000);
	ck_assert_uint_eq(r.l.released, 5);
	ck_assert_uint_eq(emu_link_release(&r.l, T0 + 60000), 0);
	ck_assert_uint_eq(r.l.released, 10);
	ck_assert_uint_eq(drain(r.fa), 10);
	rig_down(&r);
}
END_TEST

/* The release times of n packets sent gap ns apart under cfg. */
static void delays(const struct emu_link_cfg *cfg, uint64_t *out,
		   unsigned int n, uint64_t gap)
{
	struct rig r;
	unsigned int i;

	rig_up(&r, cfg);
	for (i = 0; i < n; i++)
		send_at(&r, T0 + i * gap, 100);
	ck_assert_uint_eq(r.l.n, n);
	for (i = 0; i < n; i++)
		out[i] = emu_link_due(&r.l, i);
	rig_down(&r);
}

/*
 * Jitter: the same seed gives the same delays, another seed others; the
 * packets stay in order, each held back at most to the one before it;
 * uniform stays within latency +- jitter; normal, with packets far enough
 * apart that the order never binds, has the mean and spread it was given
 * (1000 draws: within 3 standard errors).
 */
START_TEST(t_jitter)
{
	enum { N = 1000 };
	static uint64_t a[N], b[N], c[N];
	struct emu_link_cfg cfg = {
		.latency_ns = 100000, .jitter_ns = 20000,
		.jitter = EMU_JITTER_UNIFORM, .seed = 7, .limit = N,
	};
	unsigned int i, same = 0;
	double sum = 0, sq = 0, mean, sd;

	delays(&cfg, a, N, 1000);
	delays(&cfg, b, N, 1000);
	cfg.seed = 8;
	delays(&cfg, c, N, 1000);
	for (i = 0; i < N; i++) {
		uint64_t sent = T0 + i * 1000;

		ck_assert_uint_eq(a[i], b[i]);
		same += a[i] == c[i];
		if (i)
			ck_assert_uint_ge(a[i], a[i - 1]);
		ck_assert_uint_ge(a[i], sent + 80000);
		/* Held back only by the one before it. */
		ck_assert(a[i] <= sent + 120000 ||
			  (i && a[i] == a[i - 1]));
	}
	ck_assert_uint_lt(same, N / 10);

	cfg.jitter = EMU_JITTER_NORMAL;
	cfg.seed = 7;
	delays(&cfg, a, N, 1000000);
	delays(&cfg, b, N, 1000000);
	for (i = 0; i < N; i++) {
		double d = (double)(a[i] - (T0 + i * 1000000ull));

		ck_assert_uint_eq(a[i], b[i]);
		sum += d;
		sq += d * d;
	}
	mean = sum / N;
	sd = sqrt(sq / N - mean * mean);
	ck_assert_msg(mean > 98100 && mean < 101900, "mean %f", mean);
	ck_assert_msg(sd > 18650 && sd < 21350, "sd %f", sd);
}
END_TEST

/* A full queue drops at its tail, counted, and the dropped packets do not
 * use the wire: the next one leaves when the last one kept is done. */
START_TEST(t_limit)
{
	struct emu_link_cfg cfg = { .rate_mbps = 1000, .limit = 8 };
	struct rig r;
	unsigned int i, first;

	rig_up(&r, &cfg);
	for (i = 0; i < 200; i++)
		send_at(&r, T0, 1000);
	first = (unsigned int)passed(&r);
	ck_assert_uint_eq(r.l.n, 8);
	ck_assert_uint_eq(r.l.dropped, 200 - first - 8);
	ck_assert_uint_eq(r.l.start_ps / 1000,
			  T0 - 17ull * 4310 * 8 + (first + 8) * 8528ull);
	emu_link_release(&r.l, T0 + 10000000);
	ck_assert_uint_eq(drain(r.fa), first + 8);
	rig_down(&r);
}
END_TEST

/* No memory for the queue: the packet is dropped, the next one tries
 * again and is held. */
START_TEST(t_enomem)
{
	struct emu_link_cfg cfg = { .latency_ns = 1000, .limit = 4 };
	struct rig r;

	rig_up(&r, &cfg);
	emu_test_fail_malloc(1);
	send_at(&r, T0, 100);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert_uint_eq(r.l.dropped, 1);
	ck_assert_uint_eq(r.l.n, 0);
	emu_test_fail_calloc(1);
	send_at(&r, T0, 100);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert_uint_eq(r.l.dropped, 2);
	send_at(&r, T0, 100);
	ck_assert_uint_eq(r.l.n, 1);
	rig_down(&r);
}
END_TEST

/* A held datagram in parts is copied whole: the pieces may change after
 * the call, what arrives is what was queued. */
START_TEST(t_parts)
{
	struct emu_link_cfg cfg = { .latency_ns = 1000, .limit = 4 };
	static uint8_t pay[3000], got[EMU_UDP_BUF];
	uint8_t *buf;
	struct iovec v[2] = { { pay, 1000 }, { pay + 1000, 2000 } };
	struct pollfd p;
	struct rig r;
	unsigned int i;
	ssize_t n;

	rig_up(&r, &cfg);
	for (i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(i * 13);
	buf = emu_udp_tx_buf(&r.u);
	memset(buf, 0x11, 12);			/* head */
	memset(buf + 12, 0x22, 6);		/* tail: pad and ICRC */
	emu_link_send(&r.l, T0, 0, NULL, &r.lo, r.pa, 0, buf, 12, v, 2, 6);
	memset(pay, 0, sizeof(pay));
	memset(buf, 0, 18);
	emu_link_release(&r.l, T0 + 1000);
	p = (struct pollfd){ .fd = r.fa, .events = POLLIN };
	ck_assert_int_eq(poll(&p, 1, 1000), 1);
	n = recv(r.fa, got, sizeof(got), 0);
	ck_assert_int_eq(n, 12 + 3000 + 6);
	for (i = 0; i < 12; i++)
		ck_assert_uint_eq(got[i], 0x11);
	for (i = 0; i < 3000; i++)
		ck_assert_uint_eq(got[12 + i], (uint8_t)(i * 13));
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(got[3012 + i], 0x22);
	rig_down(&r);
}
END_TEST

/* Datagrams waiting on fd, and how many of them carry CE. */
static unsigned int drain_ce(int fd, unsigned int *ce)
{
	uint8_t b[EMU_UDP_BUF], ctl[64];
	struct iovec v = { b, sizeof(b) };
	struct msghdr m;
	struct cmsghdr *c;
	unsigned int n = 0;

	*ce = 0;
	for (;;) {
		m = (struct msghdr){ .msg_iov = &v, .msg_iovlen = 1,
				     .msg_control = ctl,
				     .msg_controllen = sizeof(ctl) };
		if (recvmsg(fd, &m, 0) < 0)
			return n;
		n++;
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == IPPROTO_IP &&
			    c->cmsg_type == IP_TOS &&
			    (*(uint8_t *)CMSG_DATA(c) & 3) == 3)
				(*ce)++;
	}
}

/*
 * ECN: a packet leaving the pacer's queue with ecn_threshold packets
 * waiting for the wire, itself included, is marked CE. 200 sent at once
 * at 1000 Mb/s: 69 leave on the burst's credit, unmarked; of the 131
 * held, all but the last 3 leave with 3 or more behind them. A one-way
 * delay changes nothing: the delay line is not a queue. And a sender at
 * exactly the line rate is never marked, however long the delay line
 * behind it (it holds 1172 packets of 8528 ns in 10 ms).
 */
START_TEST(t_ecn)
{
	struct emu_link_cfg cfg = { .rate_mbps = 1000, .limit = 2000,
				    .ecn_threshold = 4 };
	unsigned int i, lat, ce, n, got, on = 1;
	struct rig r;
	uint64_t t;

	for (lat = 0; lat < 2; lat++) {
		cfg.latency_ns = lat ? 10000000 : 0;
		rig_up(&r, &cfg);
		ck_assert_int_eq(setsockopt(r.fa, IPPROTO_IP, IP_RECVTOS, &on,
					    sizeof(on)), 0);
		for (i = 0; i < 200; i++)
			send_at(&r, T0, 1000);
		ck_assert_uint_eq(r.l.held, lat ? 200 : 131);
		/* Released a few at a time: the receiver's buffer is small. */
		got = drain_ce(r.fa, &ce);
		for (t = T0; r.l.n; t += 16 * 8528) {
			emu_link_release(&r.l, t);
			got += drain_ce(r.fa, &n);
			ce += n;
		}
		ck_assert_uint_eq(r.l.marked, 128);
		ck_assert_uint_eq(got, 200);
		ck_assert_uint_eq(ce, 128);
		rig_down(&r);
	}
	rig_up(&r, &cfg);
	for (i = 0; i < 1500; i++)
		send_at(&r, T0 + i * 8528ull, 1000);
	ck_assert_uint_eq(r.l.held, 1500);
	ck_assert_uint_ge(r.l.n, 1172);
	emu_link_release(&r.l, T0 + 1000000000);
	ck_assert_uint_eq(r.l.n, 0);
	ck_assert_uint_eq(r.l.marked, 0);
	rig_down(&r);
	/* Off: nothing is marked. */
	cfg.ecn_threshold = 0;
	cfg.latency_ns = 0;
	rig_up(&r, &cfg);
	for (i = 0; i < 200; i++)
		send_at(&r, T0, 1000);
	emu_link_release(&r.l, T0 + 1000000000);
	ck_assert_uint_eq(r.l.marked, 0);
	rig_down(&r);
}
END_TEST

static Suite *link_suite(void)
{
	Suite *s = suite_create("link");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, t_pacing);
	tcase_add_test(tc, t_unshaped);
	tcase_add_test(tc, t_latency);
	tcase_add_test(tc, t_jitter);
	tcase_add_test(tc, t_limit);
	tcase_add_test(tc, t_enomem);
	tcase_add_test(tc, t_parts);
	tcase_add_test(tc, t_ecn);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(link_suite());
}
