/* Unit tests for the port UDP I/O (net/udp.c) in both of its modes, io_uring
 * and recvmmsg/sendmmsg: batches, addresses, source ports, truncation, and
 * GSO sends with each segment's ICRC moved to its IPv4 identification. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <check.h>

#include "net/icrc.h"
#include "net/udp.h"

static void addr_v4(struct in6_addr *a, const char *dotted)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[10] = 0xff;
	a->s6_addr[11] = 0xff;
	ck_assert_int_eq(inet_pton(AF_INET, dotted, &a->s6_addr32[3]), 1);
}

/* A UDP socket on ip with an ephemeral port, as an endpoint would be. */
static int endpoint(const char *ip, uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	ck_assert_int_ge(fd, 0);
	inet_pton(AF_INET, ip, &sa.sin_addr);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

static unsigned int recv_some(struct emu_udp *u, unsigned int want,
			      void (*check)(const struct emu_udp_pkt *, void *),
			      void *arg)
{
	struct pollfd pfd = { .fd = emu_udp_fd(u), .events = POLLIN };
	unsigned int got = 0, i, n;
	int spins = 0;

	while (got < want && spins < 200) {
		if (poll(&pfd, 1, 10) == 0) {
			spins++;
			continue;
		}
		n = emu_udp_recv(u);
		for (i = 0; i < n; i++)
			check(&u->rx_pkt[i], arg);
		got += n;
	}
	return got;
}

/* Whatever u has received by now, without waiting. */
static unsigned int recv_ready(struct emu_udp *u,
			       void (*check)(const struct emu_udp_pkt *,
					     void *),
			       void *arg)
{
	struct pollfd pfd = { .fd = emu_udp_fd(u), .events = POLLIN };
	unsigned int got = 0, i, n;

	while (poll(&pfd, 1, 0) == 1) {
		n = emu_udp_recv(u);
		for (i = 0; i < n; i++)
			check(&u->rx_pkt[i], arg);
		got += n;
		if (!n)
			break;
	}
	return got;
}

struct expect {
	struct emu_udp *tx;
	struct in6_addr src, dst;
	unsigned int seen[8];
};

static void check_pkt(const struct emu_udp_pkt *p, void *arg)
{
	struct expect *e = arg;
	unsigned int i, len = p->len, k;

	ck_assert(!p->truncated);
	ck_assert(!memcmp(&p->src, &e->src, sizeof(p->src)));
	ck_assert(!memcmp(&p->dst, &e->dst, sizeof(p->dst)));
	ck_assert_uint_gt(p->ttl, 0);
	ck_assert_uint_ge(len, 4);
	k = p->data[0];
	ck_assert_uint_lt(k, 8);
	/* Datagram k left from pool socket k % 8: its source port. */
	ck_assert_uint_eq(p->sport, emu_udp_sport(e->tx, k % EMU_UDP_TX_SOCKS));
	for (i = 1; i < len; i++)
		ck_assert_uint_eq(p->data[i], (uint8_t)(i + k));
	e->seen[k]++;
}

static void roundtrip(enum emu_udp_mode mode)
{
	struct emu_udp ua, ub;
	struct expect e;
	uint16_t pa, pb;
	int fa, fb;
	unsigned int i, j, got;

	fa = endpoint("127.0.0.1", &pa);
	fb = endpoint("127.0.0.1", &pb);
	memset(&e, 0, sizeof(e));
	addr_v4(&e.src, "127.0.0.1");
	addr_v4(&e.dst, "127.0.0.1");
	ck_assert_int_eq(emu_udp_open(&ua, fa, AF_INET, &e.dst, false, mode),
			 0);
	ck_assert_int_eq(emu_udp_open(&ub, fb, AF_INET, &e.src, false, mode),
			 0);
	emu_udp_start(&ua);
	emu_udp_start(&ub);
	if (mode == EMU_UDP_MMSG)
		ck_assert_int_eq(emu_udp_fd(&ua), fa);
	e.tx = &ub;

	/* 400 datagrams: more than a batch, fewer than the buffers. */
	for (i = 0; i < 400; i++) {
		uint8_t *b = emu_udp_tx_buf(&ub);
		unsigned int k = i % 8, len = 4 + (i * 37) % 4000;

		b[0] = (uint8_t)k;
		for (j = 1; j < len; j++)
			b[j] = (uint8_t)(j + k);
		emu_udp_tx_queue(&ub, k, NULL, &e.dst, pa, len);
		/* Keep the socket buffer from overflowing, even at the
		 * 425984 bytes an unprivileged user gets on a stock kernel
		 * (25 datagrams are at most 218 KB of it). */
		if (i % 25 == 24) {
			emu_udp_flush(&ub);
			recv_ready(&ua, check_pkt, &e);
		}
	}
	emu_udp_flush(&ub);
	got = 0;
	for (i = 0; i < 8; i++)
		got += e.seen[i];
	got += recv_some(&ua, 400 - got, check_pkt, &e);
	ck_assert_uint_eq(got, 400);
	for (i = 0; i < 8; i++)
		ck_assert_uint_eq(e.seen[i], 50);
	for (i = 0; i < 100 && ub.tx_packets < 400; i++) {
		emu_udp_flush(&ub);
		usleep(1000);
	}
	ck_assert_uint_eq(ub.tx_packets, 400);
	ck_assert_uint_eq(ub.tx_dropped, 0);

	/* An IPv6 destination from an IPv4 endpoint is dropped, counted. */
	emu_udp_tx_buf(&ub);
	emu_udp_tx_queue(&ub, 0, NULL, &in6addr_loopback, pa, 10);
	ck_assert_uint_eq(ub.tx_dropped, 1);

	emu_udp_close(&ua);
	emu_udp_close(&ub);
	close(fa);
	close(fb);
}

static void check_trunc(const struct emu_udp_pkt *p, void *arg)
{
	int *t = arg;

	if (p->truncated) {
		ck_assert_uint_le(p->len, EMU_UDP_BUF);
		++*t;
	}
}

static void truncation(enum emu_udp_mode mode)
{
	static uint8_t big[9000];
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct in6_addr lo;
	struct emu_udp ua;
	uint16_t pa;
	int fa, s, t = 0;

	fa = endpoint("127.0.0.1", &pa);
	addr_v4(&lo, "127.0.0.1");
	ck_assert_int_eq(emu_udp_open(&ua, fa, AF_INET, &lo, false, mode), 0);
	emu_udp_start(&ua);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	to.sin_port = htons(pa);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(sendto(s, big, sizeof(big), 0, (struct sockaddr *)&to,
				sizeof(to)), (ssize_t)sizeof(big));
	ck_assert_int_eq(sendto(s, big, 100, 0, (struct sockaddr *)&to,
				sizeof(to)), 100);
	ck_assert_uint_eq(recv_some(&ua, 2, check_trunc, &t), 2);
	ck_assert_int_eq(t, 1);
	close(s);
	emu_udp_close(&ua);
	close(fa);
}

struct gso_seen {
	unsigned int n;
	uint16_t id[16];
	uint16_t sport;
};

static void check_gso(const struct emu_udp_pkt *p, void *arg)
{
	struct gso_seen *g = arg;
	uint16_t id, frag;
	unsigned int i, k = p->data[0];

	ck_assert_uint_lt(k, 16);
	ck_assert_uint_eq(p->len, k == 10 ? 300 : 1000);
	for (i = 1; i < p->len - ICRC_LEN; i++)
		ck_assert_uint_eq(p->data[i], (uint8_t)(i * 7 + k));
	ck_assert(icrc_check_rebuilt(&p->src, &p->dst, p->sport, g->sport,
				     p->data, p->len, &id, &frag));
	g->id[k] = id;
	g->n++;
}

/* Queue datagram k (len bytes, ICRC last) from b, or with parts: its
 * first 12 bytes from b, the payload from two pieces of ext, the ICRC
 * after the head in b, as emu_tx_packet_parts queues a packet. */
static void queue_gso(struct emu_udp *u, uint8_t *b, uint8_t *ext,
		      bool parts, const struct in6_addr *to, uint16_t port,
		      uint32_t len)
{
	struct iovec pay[2];
	uint32_t mid = (len - 12 - ICRC_LEN) / 3;

	if (!parts) {
		emu_udp_tx_queue(u, 0, NULL, to, port, len);
		return;
	}
	memcpy(ext, b + 12, len - 12 - ICRC_LEN);
	memcpy(b + 12, b + len - ICRC_LEN, ICRC_LEN);
	memset(b + 16, 0xee, len - 16);		/* must not be sent */
	pay[0] = (struct iovec){ ext, mid };
	pay[1] = (struct iovec){ ext + mid, len - 12 - ICRC_LEN - mid };
	emu_udp_tx_queue_parts(u, 0, NULL, to, port, 12, pay, 2, ICRC_LEN);
}

/*
 * Ten datagrams of 1000 bytes and one of 300, one after the other to one
 * peer from one socket, each framed for identification 0: with GSO they
 * are one send, and datagram k arrives with its ICRC moved to k (what the
 * receiver's solver finds); without, each keeps 0. With parts, each
 * payload is queued from outside the send buffer.
 */
static void gso(enum emu_udp_mode mode, bool on, bool gro, bool parts)
{
	static uint8_t ext[11][1000];
	struct emu_udp ua, ub;
	struct in6_addr lo;
	struct gso_seen g;
	uint8_t ph[ICRC_PSEUDO_MAX];
	struct in_addr a4;
	uint16_t pa, pb;
	unsigned int k, i, len;
	size_t n;
	int fa, fb;

	if (!on)
		setenv("EMUVERBS_GSO", "0", 1);
	fa = endpoint("127.0.0.1", &pa);
	fb = endpoint("127.0.0.1", &pb);
	addr_v4(&lo, "127.0.0.1");
	memcpy(&a4, &lo.s6_addr32[3], 4);
	ck_assert_int_eq(emu_udp_open(&ua, fa, AF_INET, &lo, false, mode), 0);
	ck_assert_int_eq(emu_udp_open(&ub, fb, AF_INET, &lo, false, mode), 0);
	unsetenv("EMUVERBS_GSO");
	if (on && !ub.gso) {
		/* A kernel without UDP_SEGMENT: nothing to check. */
		emu_udp_close(&ua);
		emu_udp_close(&ub);
		close(fa);
		close(fb);
		return;
	}
	ck_assert(on == ub.gso);
	if (!gro)
		setenv("EMUVERBS_GRO", "0", 1);
	emu_udp_start(&ua);
	emu_udp_start(&ub);
	unsetenv("EMUVERBS_GRO");
	/* recvmmsg receives with GRO unless told not to; io_uring never. */
	ck_assert(ua.gro == (gro && !ua.ur));
	memset(&g, 0, sizeof(g));
	g.sport = pa;
	for (k = 0; k <= 10; k++) {
		uint8_t *b = emu_udp_tx_buf(&ub);

		len = k == 10 ? 300 : 1000;
		b[0] = (uint8_t)k;
		for (i = 1; i < len - ICRC_LEN; i++)
			b[i] = (uint8_t)(i * 7 + k);
		n = icrc_pseudo_v4(ph, &a4, &a4, emu_udp_sport(&ub, 0), pa,
				   len);
		icrc_put(b + len - ICRC_LEN,
			 icrc_compute(ph, n, ph + n, b, len - ICRC_LEN));
		queue_gso(&ub, b, ext[k], parts, &lo, pa, len);
	}
	emu_udp_flush(&ub);
	ck_assert_uint_eq(recv_some(&ua, 11, check_gso, &g), 11);
	for (k = 0; k <= 10; k++)
		ck_assert_uint_eq(g.id[k], on ? k : 0);
	/* Loopback hands a GSO send whole to a GRO socket: one datagram,
	 * split back into the eleven it carried. */
	ck_assert_uint_eq(ua.rx_joined, on && ua.gro ? 1 : 0);
	for (i = 0; i < 100 && ub.tx_packets < 11; i++) {
		emu_udp_flush(&ub);
		usleep(1000);
	}
	ck_assert_uint_eq(ub.tx_packets, 11);
	ck_assert_uint_eq(ub.tx_dropped, 0);
	emu_udp_close(&ua);
	emu_udp_close(&ub);
	close(fa);
	close(fb);
}

START_TEST(t_gso)
{
	gso(EMU_UDP_URING, true, true, false);
	gso(EMU_UDP_MMSG, true, true, false);
	gso(EMU_UDP_MMSG, true, false, false);
	gso(EMU_UDP_URING, false, true, false);
	gso(EMU_UDP_MMSG, false, true, false);
	gso(EMU_UDP_URING, true, true, true);
	gso(EMU_UDP_MMSG, true, true, true);
	gso(EMU_UDP_MMSG, false, false, true);
}
END_TEST

START_TEST(t_roundtrip_auto)
{
	roundtrip(EMU_UDP_URING);
}
END_TEST

START_TEST(t_roundtrip_mmsg)
{
	roundtrip(EMU_UDP_MMSG);
}
END_TEST

START_TEST(t_truncation)
{
	truncation(EMU_UDP_URING);
	truncation(EMU_UDP_MMSG);
}
END_TEST

START_TEST(t_sock_for_spreads)
{
	unsigned int hits[EMU_UDP_TX_SOCKS] = { 0 }, i;

	for (i = 2; i < 2 + 8 * 64; i++)
		hits[emu_udp_sock_for(i)]++;
	for (i = 0; i < EMU_UDP_TX_SOCKS; i++)
		ck_assert_uint_gt(hits[i], 16);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("udp");
	TCase *tc = tcase_create("io");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, t_roundtrip_auto);
	tcase_add_test(tc, t_roundtrip_mmsg);
	tcase_add_test(tc, t_truncation);
	tcase_add_test(tc, t_sock_for_spreads);
	tcase_add_test(tc, t_gso);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
