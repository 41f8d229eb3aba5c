/* Unit tests for the receive path: malformed, truncated, unknown-opcode,
 * wrong-QPN and ICRC-bad datagrams from a raw UDP socket are counted and
 * dropped; IPv4 headers with the sender's own identification pass. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/ip.h>

#include <check.h>

#include "emu/emu.h"
#include "emu/device/device.h"
#include "emu/objects/qp.h"
#include "emu/transport/transport.h"
#include "net/hdr.h"
#include "net/icrc.h"
#include "tests/unit/testlib.h"

extern char **environ;


static struct emu_device *dev;
static struct emu_context *ctx;
static int sock = -1;
static uint16_t sport;
static struct sockaddr_in dst;

static void setup(void)
{
	struct emu_device **devs;
	struct sockaddr_in me = { .sin_family = AF_INET };
	socklen_t len = sizeof(me);
	unsigned int n;

	ck_assert_int_eq(emu_registry_get(&devs, &n), 0);
	ck_assert_uint_ge(n, 1);
	dev = devs[0];
	ctx = emu_context_open(dev);
	ck_assert_ptr_nonnull(ctx);

	sock = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(sock, 0);
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(sock, (struct sockaddr *)&me, sizeof(me)), 0);
	ck_assert_int_eq(getsockname(sock, (struct sockaddr *)&me, &len), 0);
	sport = ntohs(me.sin_port);
	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_port = htons(EMU_ROCE_UDP_PORT);
	dst.sin_addr.s_addr = dev->ports[0].ep.addr.s6_addr32[3];
}

static void teardown(void)
{
	if (sock >= 0)
		close(sock);
	sock = -1;
	emu_context_close(ctx);
}

static void counters(struct emu_port_counters *c)
{
	ck_assert_int_eq(emu_transport_counters(dev, 1, c), 0);
}

/* Wait until the port has seen n datagrams in all (bounded). */
static void wait_rx(uint64_t n, struct emu_port_counters *c)
{
	struct timespec ts = { 0, 1000000 };
	int i;

	for (i = 0; i < 2000; i++) {
		counters(c);
		if (c->rx.pkts >= n)
			return;
		nanosleep(&ts, NULL);
	}
	ck_abort_msg("only %llu of %llu datagrams seen",
		     (unsigned long long)c->rx.pkts,
		     (unsigned long long)n);
}

static void send_raw(const void *p, size_t len)
{
	ck_assert_int_eq(sendto(sock, p, len, 0, (struct sockaddr *)&dst,
				sizeof(dst)), (ssize_t)len);
}

/* A SEND_ONLY with a good ICRC for the pseudo header our socket makes. */
static size_t build(uint8_t *pkt, uint8_t opcode, uint32_t qpn,
		    uint32_t paylen)
{
	uint8_t ph[ICRC_PSEUDO_MAX];
	struct in_addr s, d;
	size_t iplen, len;

	memset(pkt, 0, 64 + paylen);
	bth_init(pkt, opcode, false, false, 0, WIRE_DEFAULT_PKEY, qpn, false,
		 5);
	len = WIRE_BTH_LEN + paylen;
	s.s_addr = htonl(INADDR_LOOPBACK);
	d.s_addr = dst.sin_addr.s_addr;
	iplen = icrc_pseudo_v4(ph, &s, &d, sport, EMU_ROCE_UDP_PORT,
			       len + ICRC_LEN);
	icrc_put(pkt + len, icrc_compute(ph, iplen, ph + iplen, pkt, len));
	return len + ICRC_LEN;
}

START_TEST(t_rx_counts_and_drops)
{
	struct emu_port_counters c0, c;
	uint8_t pkt[8192];
	size_t len;

	counters(&c0);

	/* Truncated: shorter than a BTH and an ICRC. */
	memset(pkt, 0, sizeof(pkt));
	send_raw(pkt, 10);
	/* Malformed: a SEND_ONLY whose length is not whole words. */
	len = build(pkt, WIRE_OP_RC(SEND_ONLY), 0x123, 8);
	send_raw(pkt, len - 2);
	/* Malformed: transport version 1. */
	len = build(pkt, WIRE_OP_RC(SEND_ONLY), 0x123, 8);
	pkt[1] |= 1;
	send_raw(pkt, len);
	/* Unknown opcode (RD is not emulated; 0x1f is reserved). */
	len = build(pkt, 0x1f, 0x123, 8);
	send_raw(pkt, len);
	len = build(pkt, WIRE_TP_RD | WIRE_OPB_SEND_ONLY, 0x123, 8);
	send_raw(pkt, len);
	/* ICRC bad: one payload bit flipped after the ICRC was made. */
	len = build(pkt, WIRE_OP_RC(SEND_ONLY), 0x123, 8);
	pkt[WIRE_BTH_LEN] ^= 1;
	send_raw(pkt, len);
	/* ICRC bad: the masked FECN bit may change, the P_Key may not. */
	len = build(pkt, WIRE_OP_RC(SEND_ONLY), 0x123, 8);
	pkt[4] |= BTH_FECN;
	send_raw(pkt, len);
	len = build(pkt, WIRE_OP_RC(SEND_ONLY), 0x123, 8);
	pkt[2] ^= 0x80;
	send_raw(pkt, len);
	/* Good ICRC, no such QP (and QPN 1, the GSI, is not emulated). */
	len = build(pkt, WIRE_OP_RC(SEND_ONLY), 0xabcdef, 8);
	send_raw(pkt, len);
	len = build(pkt, WIRE_OP_UD(SEND_ONLY), 1, 16);
	send_raw(pkt, len);
	/* Longer than any packet the port accepts. */
	len = build(pkt, WIRE_OP_RC(SEND_ONLY), 0x123, 6000);
	send_raw(pkt, len);

	wait_rx(c0.rx.pkts + 11, &c);
	ck_assert_uint_eq(c.rx_malformed - c0.rx_malformed, 3);
	ck_assert_uint_eq(c.rx_bad_opcode - c0.rx_bad_opcode, 2);
	/* The FECN packet passes the ICRC (the bit is masked) and then
	 * finds no QP. */
	ck_assert_uint_eq(c.rx_bad_icrc - c0.rx_bad_icrc, 2);
	ck_assert_uint_eq(c.rx_bad_qpn - c0.rx_bad_qpn, 3);
	ck_assert_uint_eq(c.rx_truncated - c0.rx_truncated, 1);
	ck_assert_uint_eq(c.rx_delivered - c0.rx_delivered, 0);
}
END_TEST

/*
 * What kernel rxe and RoCE NICs send: IPv4 headers with identifications of
 * their own (covered by the ICRC), DF set or not. A raw socket writes the
 * header exactly; the port must verify the ICRC all the same, and still
 * drop a damaged packet.
 */
static void send_hdrincl(int raw, uint8_t *pkt, size_t len, uint16_t id,
			 uint16_t frag, bool damage)
{
	uint8_t dgram[20 + 8 + 256];
	uint8_t ph[ICRC_PSEUDO_MAX];
	struct in_addr a, b;
	size_t n;

	ck_assert_uint_le(len, 256);
	a.s_addr = htonl(INADDR_LOOPBACK);
	b.s_addr = dst.sin_addr.s_addr;
	n = icrc_pseudo_v4(ph, &a, &b, sport, EMU_ROCE_UDP_PORT, len);
	wire_put16(ph + 4, id);
	wire_put16(ph + 6, frag);
	icrc_put(pkt + len - ICRC_LEN,
		 icrc_compute(ph, n, ph + n, pkt, len - ICRC_LEN));
	if (damage)
		pkt[WIRE_BTH_LEN] ^= 0x10;
	/* The real header: TTL and TOS as any, checksum filled in by the
	 * kernel, the UDP checksum 0 (none), as rxe sends. */
	memcpy(dgram, ph, 28);
	dgram[1] = 0x02;
	dgram[8] = 64;
	dgram[10] = dgram[11] = 0;
	dgram[26] = dgram[27] = 0;
	memcpy(dgram + 28, pkt, len);
	ck_assert_int_eq(sendto(raw, dgram, 28 + len, 0,
				(struct sockaddr *)&dst, sizeof(dst)),
			 (ssize_t)(28 + len));
}

START_TEST(t_rx_any_ipv4_id)
{
	struct emu_port_counters c0, c;
	uint8_t pkt[256];
	size_t len;
	int raw, one = 1;

	raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (raw < 0) {
		printf("t_rx_any_ipv4_id: no raw socket (%s): not run\n",
		       strerror(errno));
		return;
	}
	ck_assert_int_eq(setsockopt(raw, IPPROTO_IP, IP_HDRINCL, &one,
				    sizeof(one)), 0);
	counters(&c0);
	/* Good ICRCs under identifications 0x1234 (DF) and 0xfffe (no
	 * flags): they reach the QP lookup, and there find no QP. */
	len = build(pkt, WIRE_OP_RC(SEND_ONLY), 0xabcdef, 8);
	send_hdrincl(raw, pkt, len, 0x1234, 0x4000, false);
	len = build(pkt, WIRE_OP_RC(SEND_ONLY), 0xabcdef, 8);
	send_hdrincl(raw, pkt, len, 0xfffe, 0, false);
	/* The same, damaged. (A fragment's header never reaches a
	 * socket: the kernel reassembles; test_icrc refuses its flags.) */
	len = build(pkt, WIRE_OP_RC(SEND_ONLY), 0xabcdef, 8);
	send_hdrincl(raw, pkt, len, 0x1234, 0x4000, true);
	close(raw);
	wait_rx(c0.rx.pkts + 3, &c);
	ck_assert_uint_eq(c.rx_bad_qpn - c0.rx_bad_qpn, 2);
	ck_assert_uint_eq(c.rx_bad_icrc - c0.rx_bad_icrc, 1);
}
END_TEST

/* udp_io = mmsg, and auto (the default), keep the port off io_uring, so
 * that polling threads can receive; io_uring is asked for by name. One
 * registry per process: one configuration per test. */
static void udp_io_is(const char *conf, bool uring)
{
	struct emu_device **devs;
	unsigned int n;

	unsetenv("EMUVERBS_UDP_IO");
	emu_test_write_config(conf);
	ck_assert_int_eq(emu_registry_get(&devs, &n), 0);
	ck_assert_uint_ge(n, 1);
	ctx = emu_context_open(devs[0]);
	ck_assert_ptr_nonnull(ctx);
	ck_assert(devs[0]->ports[0].cfg.udp_uring == uring);
	if (!uring)
		ck_assert_ptr_null(emu_transport_of(devs[0])->ports[0].udp.ur);
	emu_context_close(ctx);
}

START_TEST(t_rx_udp_io_mmsg)
{
	udp_io_is("[device emu0]\n[port emu0 1]\nudp_io = mmsg\n", false);
}
END_TEST

START_TEST(t_rx_udp_io_auto)
{
	udp_io_is("[device emu0]\n[port emu0 1]\n", false);
}
END_TEST

START_TEST(t_rx_udp_io_uring)
{
	udp_io_is("[device emu0]\n[port emu0 1]\nudp_io = io_uring\n", true);
}
END_TEST

/* The responder answers a duplicate READ only for part of the range it
 * answered before; an end address that wraps past 2^64 must not pass. */
START_TEST(t_dup_read_range)
{
	struct emu_rd_res res = {
		.kind = EMU_RES_READ, .va = 0x10000, .len = 0x2000,
	};
	struct emu_rd_res top = {
		.kind = EMU_RES_READ, .va = UINT64_MAX - 0xfff, .len = 0x1000,
	};

	/* Inside: all of it, a tail, the empty end, nothing. */
	ck_assert(emu_rd_res_covers(&res, 0x10000, 0x2000));
	ck_assert(emu_rd_res_covers(&res, 0x11000, 0x1000));
	ck_assert(emu_rd_res_covers(&res, 0x12000, 0));
	ck_assert(emu_rd_res_covers(&res, 0x10000, 0));
	/* Before it, past its end, longer than what is left. */
	ck_assert(!emu_rd_res_covers(&res, 0xffff, 1));
	ck_assert(!emu_rd_res_covers(&res, 0x12001, 0));
	ck_assert(!emu_rd_res_covers(&res, 0x11000, 0x1001));
	/* va + len wraps to 0x10 (<= va + len of the original). */
	ck_assert(!emu_rd_res_covers(&res, UINT64_MAX - 0xf, 0x20));
	ck_assert(!emu_rd_res_covers(&res, 0x11000, UINT32_MAX));
	/* A READ that ends at the very top of the address space. */
	ck_assert(emu_rd_res_covers(&top, UINT64_MAX - 0xfff, 0x1000));
	ck_assert(emu_rd_res_covers(&top, UINT64_MAX, 1));
	ck_assert(!emu_rd_res_covers(&top, UINT64_MAX, 2));
	ck_assert(!emu_rd_res_covers(&top, UINT64_MAX - 0x7ff, 0x801));
}
END_TEST

static Suite *rx_suite(void)
{
	Suite *s = suite_create("rx");
	TCase *tc = tcase_create("drops");
	TCase *td = tcase_create("duplicates");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_rx_counts_and_drops);
	tcase_add_test(tc, t_rx_any_ipv4_id);
	suite_add_tcase(s, tc);

	tc = tcase_create("io");
	tcase_add_test(tc, t_rx_udp_io_mmsg);
	tcase_add_test(tc, t_rx_udp_io_auto);
	tcase_add_test(tc, t_rx_udp_io_uring);
	suite_add_tcase(s, tc);
	tcase_add_test(td, t_dup_read_range);
	suite_add_tcase(s, td);
	return s;
}

int main(void)
{
	emu_init();
	emu_test_isolate_config();
	return emu_test_run(rx_suite());
}
