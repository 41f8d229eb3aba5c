/* tests/unit/test_iphdr.c: the GRH a UD receive starts with (net/iphdr.c),
 * against headers written out by hand from RFC 791 and RFC 8200, their
 * checksums added up by hand (RFC 1071). */
#include <arpa/inet.h>
#include <check.h>
#include <string.h>

#include "net/iphdr.h"
#include "tests/unit/testlib.h"

static struct in6_addr v4mapped(const char *a)
{
	struct in6_addr m = { 0 };

	m.s6_addr[10] = m.s6_addr[11] = 0xff;
	ck_assert_int_eq(inet_pton(AF_INET, a, &m.s6_addr[12]), 1);
	return m;
}

/*
 * IPv4: 20 zero bytes, then the header. 192.0.2.7 to 198.51.100.9, TOS
 * 0x02, TTL 64, identification 0x1234, DF, a 40-byte datagram (total
 * length 20 + 8 + 40 = 0x44). The words 4502 0044 1234 4000 4011 0000
 * c000 0207 c633 6409 sum to 0x2c3ce, folded 0xc3d0: checksum 0x3c2f.
 */
START_TEST(t_grh_v4)
{
	static const uint8_t want[40] = {
		[20] = 0x45, 0x02, 0x00, 0x44, 0x12, 0x34, 0x40, 0x00,
		0x40, 0x11, 0x3c, 0x2f, 192, 0, 2, 7, 198, 51, 100, 9,
	};
	struct emu_iphdr h = {
		.src = v4mapped("192.0.2.7"),
		.dst = v4mapped("198.51.100.9"),
		.sport = 0xc000, .dport = 4791,	/* not in a GRH */
		.tos = 0x02, .ttl = 64, .ip_id = 0x1234, .df = true,
	};
	uint8_t g[EMU_GRH_LEN + 1];

	memset(g, 0xee, sizeof(g));
	emu_iphdr_grh(g, &h, 40);
	ck_assert_mem_eq(g, want, sizeof(want));
	ck_assert_uint_eq(g[EMU_GRH_LEN], 0xee);
}
END_TEST

/*
 * A datagram whose destination the socket did not report (all zero): the
 * source's family decides. 127.0.0.1 to 0.0.0.0, no flags, identification
 * 0: 4500 0044 0000 0000 4011 0000 7f00 0001 0000 0000 sum to 0x10456,
 * folded 0x0457: checksum 0xfba8.
 */
START_TEST(t_grh_v4_no_dst)
{
	static const uint8_t want[40] = {
		[20] = 0x45, 0x00, 0x00, 0x44, 0x00, 0x00, 0x00, 0x00,
		0x40, 0x11, 0xfb, 0xa8, 127, 0, 0, 1, 0, 0, 0, 0,
	};
	struct emu_iphdr h = { .src = v4mapped("127.0.0.1"), .ttl = 64 };
	uint8_t g[EMU_GRH_LEN];

	emu_iphdr_grh(g, &h, 40);
	ck_assert_mem_eq(g, want, sizeof(want));
}
END_TEST

/*
 * IPv6: version 6, traffic class 0x0a, flow label 0x12345 (bits above 20
 * dropped), payload length 8 + 40 = 0x30, next header UDP, hop limit 3,
 * the addresses.
 */
START_TEST(t_grh_v6)
{
	static const uint8_t want[40] = {
		0x60, 0xa1, 0x23, 0x45, 0x00, 0x30, 0x11, 0x03,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	};
	struct emu_iphdr h = {
		.sport = 1, .dport = 2, .tos = 0x0a, .ttl = 3,
		.flow = 0xfff12345,
	};
	uint8_t g[EMU_GRH_LEN];

	ck_assert_int_eq(inet_pton(AF_INET6, "2001:db8::1", &h.src), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:db8::2", &h.dst), 1);
	memset(g, 0xee, sizeof(g));
	emu_iphdr_grh(g, &h, 40);
	ck_assert_mem_eq(g, want, sizeof(want));
}
END_TEST

static Suite *iphdr_suite(void)
{
	Suite *s = suite_create("iphdr");
	TCase *tc = tcase_create("grh");

	tcase_add_test(tc, t_grh_v4);
	tcase_add_test(tc, t_grh_v4_no_dst);
	tcase_add_test(tc, t_grh_v6);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(iphdr_suite());
}
