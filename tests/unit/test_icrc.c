/* tests/unit/test_icrc.c: the RoCEv2 ICRC against packets built by scapy,
 * its masking rules bit by bit, the sender's pseudo IP/UDP headers and its
 * seal of a datagram, the IPv4 identification solve, and the CRC-32
 * library built in (isa-l or zlib) against zlib's.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "net/icrc.h"
#include "net/hdr.h"
#include "net/memguard.h"
#include "tests/unit/testlib.h"

/*
 * The vectors below were produced by scapy's RoCE layer
 * (scapy.contrib.roce, which computes the ICRC itself) with
 * tests/scapy_icrc_vectors.py: the IPv4 ones by Debian's scapy 2.5.0, the
 * IPv6 ones by upstream scapy's roce.py with IPv6 support (PR #4154)
 * loaded through --roce; the script cross-checks every one against its own
 * hand-written masking. Each is the IP header, the UDP header, and the UDP
 * payload (BTH through ICRC), exactly as on the wire.
 */
/* RC SEND ONLY, 13 bytes + 3 pad: ICRC 0xbbee94b8 */
static const uint8_t v4_rc_send_only_ip[20] = {
	0x45, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x3c, 0xac,
	0x7f, 0x00, 0x00, 0x02, 0x7f, 0x00, 0x00, 0x03,
};
static const uint8_t v4_rc_send_only_udp[8] = {
	0xc0, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x10, 0x23,
};
static const uint8_t v4_rc_send_only_ib[32] = {
	0x04, 0xb0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x00, 0x00, 0x00,
	0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c,
	0x4d, 0x00, 0x00, 0x00, 0xb8, 0x94, 0xee, 0xbb,
};
/* RC RDMA WRITE ONLY, ECN and TTL set: ICRC 0x04768dc0 */
static const uint8_t v4_rc_write_only_ip[20] = {
	0x45, 0xb9, 0x00, 0x4c, 0x04, 0xd2, 0x40, 0x00, 0x07, 0x11, 0x5a, 0x14,
	0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
};
static const uint8_t v4_rc_write_only_udp[8] = {
	0xc0, 0xde, 0x12, 0xb7, 0x00, 0x38, 0x64, 0x05,
};
static const uint8_t v4_rc_write_only_ib[48] = {
	0x0a, 0x70, 0x80, 0x01, 0xc0, 0xfe, 0xdc, 0xba, 0x80, 0xff, 0xff, 0xff,
	0x00, 0x00, 0x7f, 0x12, 0x34, 0x56, 0x70, 0x00, 0x12, 0x34, 0xab, 0xcd,
	0x00, 0x00, 0x00, 0x0d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
	0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x00, 0x00, 0x00, 0xc0, 0x8d, 0x76, 0x04,
};
/* RC ACKNOWLEDGE: ICRC 0xc70e8b90 */
static const uint8_t v4_rc_ack_ip[20] = {
	0x45, 0x00, 0x00, 0x30, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb6, 0xad,
	0xc0, 0x00, 0x02, 0x07, 0xc0, 0x00, 0x02, 0x08,
};
static const uint8_t v4_rc_ack_udp[8] = {
	0xc3, 0x50, 0x12, 0xb7, 0x00, 0x1c, 0x96, 0x04,
};
static const uint8_t v4_rc_ack_ib[20] = {
	0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x0a, 0xbc, 0x00, 0x12, 0x34, 0x56,
	0x1f, 0x00, 0x01, 0x23, 0x90, 0x8b, 0x0e, 0xc7,
};
/* UC SEND FIRST, IPv4 with an option: ICRC 0x82f99c99 */
static const uint8_t v4_opt_uc_send_first_ip[24] = {
	0x46, 0x00, 0x01, 0x30, 0x00, 0x00, 0x40, 0x00, 0x01, 0x11, 0x8f, 0x4e,
	0xc6, 0x33, 0x64, 0x01, 0xc6, 0x33, 0x64, 0x02, 0x94, 0x04, 0x00, 0x00,
};
static const uint8_t v4_opt_uc_send_first_udp[8] = {
	0xff, 0xff, 0x12, 0xb7, 0x01, 0x18, 0x22, 0x3e,
};
static const uint8_t v4_opt_uc_send_first_ib[272] = {
	0x20, 0x00, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
	0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23,
	0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f,
	0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b,
	0x3c, 0x3d, 0x3e, 0x3f, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
	0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0x53,
	0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,
	0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b,
	0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77,
	0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f, 0x80, 0x81, 0x82, 0x83,
	0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
	0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b,
	0x9c, 0x9d, 0x9e, 0x9f, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
	0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3,
	0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf,
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb,
	0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7,
	0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xe1, 0xe2, 0xe3,
	0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed, 0xee, 0xef,
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb,
	0xfc, 0xfd, 0xfe, 0xff, 0x99, 0x9c, 0xf9, 0x82,
};
/* UD SEND ONLY WITH IMMEDIATE over IPv6: ICRC 0xa633885b */
static const uint8_t v6_ud_send_imm_ip[40] = {
	0x65, 0xda, 0xbc, 0xde, 0x00, 0x34, 0x11, 0x03, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02,
};
static const uint8_t v6_ud_send_imm_udp[8] = {
	0xd0, 0x0d, 0x12, 0xb7, 0x00, 0x34, 0x17, 0x7f,
};
static const uint8_t v6_ud_send_imm_ib[44] = {
	0x65, 0xb0, 0xff, 0xff, 0x00, 0x00, 0x01, 0x02, 0x00, 0x7f, 0xff, 0xff,
	0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x01, 0x02, 0xde, 0xad, 0xbe, 0xef,
	0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c,
	0x4d, 0x00, 0x00, 0x00, 0x5b, 0x88, 0x33, 0xa6,
};
/* XRC SEND ONLY over IPv6, link-local: ICRC 0xf87dc82f */
static const uint8_t v6_xrc_send_only_ip[40] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x11, 0x40, 0xfe, 0x80, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02,
};
static const uint8_t v6_xrc_send_only_udp[8] = {
	0x12, 0xb7, 0x12, 0xb7, 0x00, 0x2c, 0x9f, 0x3c,
};
static const uint8_t v6_xrc_send_only_ib[36] = {
	0xa4, 0x00, 0x7f, 0xff, 0x00, 0x00, 0x00, 0x05, 0x80, 0x00, 0x00, 0x01,
	0x00, 0x0a, 0xbc, 0xde, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,
	0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x2f, 0xc8, 0x7d, 0xf8,
};

struct vector {
	const char *name;
	const uint8_t *ip;
	size_t ip_len;
	const uint8_t *udp;
	const uint8_t *ib;
	size_t ib_len;		/* BTH through ICRC */
	uint32_t icrc;
};

#define VEC(n, crc) { #n, n##_ip, sizeof(n##_ip), n##_udp, n##_ib,	\
		      sizeof(n##_ib), crc }

static const struct vector vectors[] = {
	VEC(v4_rc_send_only, 0xbbee94b8),
	VEC(v4_rc_write_only, 0x04768dc0),
	VEC(v4_rc_ack, 0xc70e8b90),
	VEC(v4_opt_uc_send_first, 0x82f99c99),
	VEC(v6_ud_send_imm, 0xa633885b),
	VEC(v6_xrc_send_only, 0xf87dc82f),
};

#define NVEC (int)(sizeof(vectors) / sizeof(vectors[0]))

START_TEST(test_crc32_is_ieee)
{
	static const uint8_t ones[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};

	/* The standard CRC-32 check value, then the LRH stand-in's CRC. */
	ck_assert_uint_eq(icrc_update(0, "123456789", 9), 0xcbf43926);
	ck_assert_uint_eq(icrc_update(0, ones, 8), 0x2144df1c);
}
END_TEST

START_TEST(test_vectors)
{
	const struct vector *v = &vectors[_i];
	size_t body = v->ib_len - ICRC_LEN;

	ck_assert_uint_eq(icrc_get(v->ib + body), v->icrc);
	ck_assert_msg(icrc_compute(v->ip, v->ip_len, v->udp, v->ib, body) ==
		      v->icrc, "%s: computed %08x, scapy %08x", v->name,
		      icrc_compute(v->ip, v->ip_len, v->udp, v->ib, body),
		      v->icrc);
	ck_assert(icrc_check(v->ip, v->ip_len, v->udp, v->ib, v->ib_len));
}
END_TEST

/* Any way of cutting the IB part into pieces gives the same CRC. */
START_TEST(test_incremental)
{
	const struct vector *v = &vectors[_i];
	size_t body = v->ib_len - ICRC_LEN;

	for (size_t cut = WIRE_BTH_LEN; cut <= body; cut++) {
		uint32_t crc = icrc_start(v->ip, v->ip_len, v->udp, v->ib);

		crc = icrc_update(crc, v->ib + WIRE_BTH_LEN,
				  cut - WIRE_BTH_LEN);
		crc = icrc_update(crc, v->ib + cut, body - cut);
		ck_assert_uint_eq(crc, v->icrc);
	}
}
END_TEST

/*
 * Which bits the ICRC must ignore: the fields IBTA masks. Offsets are into
 * the concatenation ip | udp | ib.
 */
static bool masked_bit(const struct vector *v, size_t byte, unsigned int bit)
{
	bool v6 = v->ip[0] >> 4 == 6;

	if (byte < v->ip_len) {
		if (v6)
			return (byte == 0 && bit < 4) || byte == 1 ||
			       byte == 2 || byte == 3 || byte == 7;
		return byte == 1 || byte == 8 || byte == 10 || byte == 11;
	}
	byte -= v->ip_len;
	if (byte < ICRC_UDP_LEN)
		return byte == 6 || byte == 7;
	byte -= ICRC_UDP_LEN;
	return byte == 4;
}

/*
 * Flip every single bit of the packet in turn: the check must fail for
 * every covered bit (the ICRC itself included) and pass for masked ones.
 */
START_TEST(test_flipped_bits)
{
	const struct vector *v = &vectors[_i];
	size_t total = v->ip_len + ICRC_UDP_LEN + v->ib_len;
	uint8_t *pkt = malloc(total);
	unsigned int caught = 0, ignored = 0;

	ck_assert_ptr_nonnull(pkt);
	memcpy(pkt, v->ip, v->ip_len);
	memcpy(pkt + v->ip_len, v->udp, ICRC_UDP_LEN);
	memcpy(pkt + v->ip_len + ICRC_UDP_LEN, v->ib, v->ib_len);

	for (size_t i = 0; i < total; i++) {
		for (unsigned int b = 0; b < 8; b++) {
			bool ok;

			pkt[i] ^= (uint8_t)(1u << b);
			ok = icrc_check(pkt, v->ip_len, pkt + v->ip_len,
					pkt + v->ip_len + ICRC_UDP_LEN,
					v->ib_len);
			pkt[i] ^= (uint8_t)(1u << b);
			if (masked_bit(v, i, b)) {
				ck_assert_msg(ok, "%s: masked bit %zu.%u "
					      "changed the ICRC", v->name,
					      i, b);
				ignored++;
			} else {
				ck_assert_msg(!ok, "%s: bit %zu.%u flipped "
					      "unnoticed", v->name, i, b);
				caught++;
			}
		}
	}
	ck_assert_uint_eq(caught + ignored, total * 8);
	ck_assert_uint_eq(ignored, v->ip[0] >> 4 == 6 ? 4 + 8 * 4 + 16 + 8 :
			  8 * 4 + 16 + 8);
	free(pkt);
}
END_TEST

START_TEST(test_check_rejects_short)
{
	const struct vector *v = &vectors[0];

	ck_assert(!icrc_check(v->ip, v->ip_len, v->udp, v->ib, 0));
	ck_assert(!icrc_check(v->ip, v->ip_len, v->udp, v->ib, 15));
	/* Right bytes, wrong length: the ICRC is read from elsewhere. */
	ck_assert(!icrc_check(v->ip, v->ip_len, v->udp, v->ib,
			      v->ib_len - 4));
}
END_TEST

START_TEST(test_put_get_little_endian)
{
	uint8_t b[4];

	icrc_put(b, 0x04768dc0);
	ck_assert_uint_eq(b[0], 0xc0);
	ck_assert_uint_eq(b[1], 0x8d);
	ck_assert_uint_eq(b[2], 0x76);
	ck_assert_uint_eq(b[3], 0x04);
	ck_assert_uint_eq(icrc_get(b), 0x04768dc0);
}
END_TEST

/*
 * A sender that knows only addresses, ports and its datagram gets the
 * same ICRC as scapy computed over the real headers (id 0, DF).
 */
START_TEST(test_pseudo_v4)
{
	const struct vector *v = &vectors[0];	/* v4_rc_send_only */
	uint8_t ph[ICRC_PSEUDO_MAX];
	struct in_addr src, dst;
	size_t n;

	ck_assert_int_eq(inet_pton(AF_INET, "127.0.0.2", &src), 1);
	ck_assert_int_eq(inet_pton(AF_INET, "127.0.0.3", &dst), 1);
	n = icrc_pseudo_v4(ph, &src, &dst, 49152, WIRE_ROCE_UDP_PORT,
			   v->ib_len);
	ck_assert_uint_eq(n, 20);
	ck_assert_uint_eq(icrc_compute(ph, n, ph + n, v->ib,
				       v->ib_len - ICRC_LEN), v->icrc);

	/* Byte for byte the kernel's header, masked fields aside. */
	for (size_t i = 0; i < 20; i++)
		if (i != 1 && i != 8 && i != 10 && i != 11)
			ck_assert_uint_eq(ph[i], v->ip[i]);
	ck_assert_mem_eq(ph + n, v->udp, 6);
	ck_assert_uint_eq(ph[6], 0x40);		/* DF */
	ck_assert_uint_eq(ph[4] | ph[5], 0);	/* identification 0 */
}
END_TEST

START_TEST(test_pseudo_v6)
{
	static const struct {
		int vec;
		const char *src, *dst;
		uint16_t sport;
	} cases[] = {
		{ 4, "2001:db8::1", "2001:db8::2", 0xd00d },
		{ 5, "fe80::1", "fe80::2", 4791 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct vector *v = &vectors[cases[c].vec];
		uint8_t ph[ICRC_PSEUDO_MAX];
		struct in6_addr src, dst;
		size_t n;

		ck_assert_int_eq(inet_pton(AF_INET6, cases[c].src, &src), 1);
		ck_assert_int_eq(inet_pton(AF_INET6, cases[c].dst, &dst), 1);
		n = icrc_pseudo_v6(ph, &src, &dst, cases[c].sport,
				   WIRE_ROCE_UDP_PORT, v->ib_len);
		ck_assert_uint_eq(n, 40);
		ck_assert_uint_eq(icrc_compute(ph, n, ph + n, v->ib,
					       v->ib_len - ICRC_LEN),
				  v->icrc);
		ck_assert_mem_eq(ph + 4, v->ip + 4, 3);	/* length, UDP */
		ck_assert_mem_eq(ph + 8, v->ip + 8, 32);
		ck_assert_mem_eq(ph + n, v->udp, 6);
	}
}
END_TEST

/* What a sender does: build the datagram, append the ICRC, send. */
START_TEST(test_sender_round_trip)
{
	uint8_t dgram[12 + 8 + 100 + 4 + ICRC_LEN];
	uint8_t ph[ICRC_PSEUDO_MAX];
	struct in_addr a = { htonl(0x7f000102) }, b = { htonl(0x7f000103) };
	size_t len = sizeof(dgram), n;
	uint32_t crc;

	memset(dgram, 0, sizeof(dgram));
	bth_init(dgram, WIRE_OP_UD(SEND_ONLY), false, false, 0,
		 WIRE_DEFAULT_PKEY, 7, false, 99);
	deth_init(dgram, 0x11111111, 3);
	memset(wire_payload(dgram), 0xa5, 104);
	n = icrc_pseudo_v4(ph, &a, &b, 50001, WIRE_ROCE_UDP_PORT, len);
	crc = icrc_compute(ph, n, ph + n, dgram, len - ICRC_LEN);
	icrc_put(dgram + len - ICRC_LEN, crc);
	ck_assert(icrc_check(ph, n, ph + n, dgram, len));

	/* The receiver's view differs in the source port: no match. */
	n = icrc_pseudo_v4(ph, &a, &b, 50002, WIRE_ROCE_UDP_PORT, len);
	ck_assert(!icrc_check(ph, n, ph + n, dgram, len));
}
END_TEST

/* A vector's addresses as a sender names them: v4-mapped for IPv4. */
static void vec_v4mapped(struct in6_addr *a, const uint8_t *ip4)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[10] = a->s6_addr[11] = 0xff;
	memcpy(&a->s6_addr[12], ip4, 4);
}

/*
 * The sender's one call: headers in its buffer, the payload in pieces
 * elsewhere, and the pad and ICRC written after the headers: the bytes
 * scapy put on the wire, whatever was in the pad before.
 */
START_TEST(test_seal_scapy_vectors)
{
	static const struct {
		int vec;
		uint32_t hdr_len, pad;
	} cases[] = {
		{ 0, 12, 3 },	/* v4 RC SEND ONLY: BTH, 13 bytes, pad 3 */
		{ 5, 16, 0 },	/* v6 XRC SEND ONLY: BTH + XRCETH, 16 */
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct vector *v = &vectors[cases[c].vec];
		uint32_t hl = cases[c].hdr_len, pad = cases[c].pad;
		uint32_t pay_len = (uint32_t)v->ib_len - hl - pad - ICRC_LEN;
		uint8_t buf[64];
		struct in6_addr src, dst;
		struct iovec iov[2] = {
			{ (void *)(v->ib + hl), 5 },
			{ (void *)(v->ib + hl + 5), pay_len - 5 },
		};
		uint16_t sport = (uint16_t)(v->udp[0] << 8 | v->udp[1]);
		uint16_t dport = (uint16_t)(v->udp[2] << 8 | v->udp[3]);

		if (v->ip_len == 20) {
			vec_v4mapped(&src, v->ip + 12);
			vec_v4mapped(&dst, v->ip + 16);
		} else {
			memcpy(&src, v->ip + 8, 16);
			memcpy(&dst, v->ip + 24, 16);
		}
		memset(buf, 0xee, sizeof(buf));
		memcpy(buf, v->ib, hl);
		ck_assert_int_eq(icrc_seal(&src, &dst, sport, dport, buf, hl,
					   iov, 2, pay_len, pad), 0);
		/* Pad (zeros) and ICRC, and not a byte beyond. */
		ck_assert_mem_eq(buf + hl, v->ib + hl + pay_len,
				 pad + ICRC_LEN);
		ck_assert_uint_eq(icrc_get(buf + hl + pad), v->icrc);
		ck_assert_uint_eq(buf[hl + pad + ICRC_LEN], 0xee);
		ck_assert_mem_eq(buf, v->ib, hl);
	}
}
END_TEST

/* A payload page that is gone: EFAULT, and nothing written. */
START_TEST(test_seal_unmapped)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t buf[12 + 4 + ICRC_LEN], *gone;
	struct in6_addr a, b;
	struct iovec iov;

	ck_assert_int_eq(emu_guard_install(), 0);
	gone = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(gone != MAP_FAILED);
	ck_assert_int_eq(munmap(gone, (size_t)page), 0);
	vec_v4mapped(&a, (const uint8_t[]){ 127, 0, 0, 2 });
	vec_v4mapped(&b, (const uint8_t[]){ 127, 0, 0, 3 });
	memset(buf, 0xee, sizeof(buf));
	memcpy(buf, v4_rc_send_only_ib, 12);
	iov.iov_base = gone;
	iov.iov_len = 13;
	ck_assert_int_eq(icrc_seal(&a, &b, 49152, WIRE_ROCE_UDP_PORT, buf, 12,
				   &iov, 1, 13, 3), EFAULT);
	for (size_t i = 12; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xee);
}
END_TEST

/* ---- the IPv4 identification solve ------------------------------------- */

/* Addresses and ports of a vector, as recvmsg would report them. */
static void vec_addrs(const struct vector *v, struct in6_addr *src,
		      struct in6_addr *dst, uint16_t *sport, uint16_t *dport)
{
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	src->s6_addr[10] = dst->s6_addr[10] = 0xff;
	src->s6_addr[11] = dst->s6_addr[11] = 0xff;
	memcpy(&src->s6_addr32[3], v->ip + 12, 4);
	memcpy(&dst->s6_addr32[3], v->ip + 16, 4);
	*sport = (uint16_t)(v->udp[0] << 8 | v->udp[1]);
	*dport = (uint16_t)(v->udp[2] << 8 | v->udp[3]);
}

/* scapy's write-only vector carries identification 0x04d2 with DF: the
 * receiver finds it from the ICRC alone. */
START_TEST(test_solve_scapy_vector)
{
	const struct vector *v = &vectors[1];
	struct in6_addr src, dst;
	uint16_t sport, dport, id = 0, frag = 0;

	ck_assert_uint_eq(v->ip[4] << 8 | v->ip[5], 0x04d2);
	vec_addrs(v, &src, &dst, &sport, &dport);
	ck_assert(icrc_check_rebuilt(&src, &dst, sport, dport, v->ib,
				     v->ib_len, &id, &frag));
	ck_assert_uint_eq(id, 0x04d2);
	ck_assert_uint_eq(frag, 0x4000);
	/* The others were sent with 0 and DF: equal at once. */
	v = &vectors[0];
	vec_addrs(v, &src, &dst, &sport, &dport);
	ck_assert(icrc_check_rebuilt(&src, &dst, sport, dport, v->ib,
				     v->ib_len, &id, &frag));
	ck_assert_uint_eq(id, 0);
	ck_assert_uint_eq(frag, 0x4000);
}
END_TEST

static uint32_t rng_state = 12345;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/*
 * The built-in CRC-32 (isa-l's when configure found it) gives zlib's value
 * for every length a datagram can have, any seed, any alignment, and when
 * chained: isa-l's folding loop has separate paths for the tail under 16,
 * 64 and 256 bytes, and a wrong seed convention would show only in a chain.
 * zlib is the reference, as the ICRC's definition is (net/icrc.h).
 */
#define CRC_MAX_LEN	4200

START_TEST(test_crc32_matches_zlib)
{
	static uint8_t buf[CRC_MAX_LEN + 8];
	uint32_t saved = rng_state;
	size_t len, i, cut;

	for (len = 0; len <= CRC_MAX_LEN; len++) {
		uint8_t *p = buf + (len & 7);
		uint32_t seed = rnd(), want, got;

		for (i = 0; i < len; i++)
			p[i] = (uint8_t)rnd();

		/* A fresh start, and from a random earlier result. */
		ck_assert_msg(icrc_update(0, p, len) == crc32_z(0, p, len),
			      "%s, length %zu, seed 0", icrc_crc32_impl(),
			      len);
		want = (uint32_t)crc32_z(seed, p, len);
		got = icrc_update(seed, p, len);
		ck_assert_msg(got == want,
			      "%s, length %zu, seed %08x: %08x, zlib %08x",
			      icrc_crc32_impl(), len, seed, got, want);

		/* Chained at a random cut: each call's seed is the previous
		 * call's result, as icrc_start()/icrc_update() use it. */
		cut = len ? rnd() % (len + 1) : 0;
		got = icrc_update(icrc_update(seed, p, cut), p + cut,
				  len - cut);
		ck_assert_msg(got == want,
			      "%s, length %zu cut at %zu: %08x, zlib %08x",
			      icrc_crc32_impl(), len, cut, got, want);
	}
	printf("crc32: %s matches zlib for lengths 0..%d\n",
	       icrc_crc32_impl(), CRC_MAX_LEN);
	/* The solve's damage counts stay those of the same random packets
	 * whether or not the tests run in one process (CK_FORK=no). */
	rng_state = saved;
}
END_TEST

/* A datagram of len bytes (BTH through ICRC) with random contents whose
 * ICRC is that of a real IPv4 header carrying id and frag. */
static void stamp_dgram(uint8_t *d, size_t len, const struct in_addr *a,
			const struct in_addr *b, uint16_t sport, uint16_t id,
			uint16_t frag);

static void make_dgram(uint8_t *d, size_t len, const struct in_addr *a,
		       const struct in_addr *b, uint16_t sport, uint16_t id,
		       uint16_t frag)
{
	size_t i;

	for (i = 0; i < len; i++)
		d[i] = (uint8_t)rnd();
	stamp_dgram(d, len, a, b, sport, id, frag);
}

/* The ICRC of d as sent with identification id and flags frag. */
static void stamp_dgram(uint8_t *d, size_t len, const struct in_addr *a,
			const struct in_addr *b, uint16_t sport, uint16_t id,
			uint16_t frag)
{
	uint8_t ph[ICRC_PSEUDO_MAX];
	size_t n;

	n = icrc_pseudo_v4(ph, a, b, sport, WIRE_ROCE_UDP_PORT, len);
	wire_put16(ph + 4, id);
	wire_put16(ph + 6, frag);
	icrc_put(d + len - ICRC_LEN,
		 icrc_compute(ph, n, ph + n, d, len - ICRC_LEN));
}

static void v4(struct in6_addr *m, const struct in_addr *a)
{
	memset(m, 0, sizeof(*m));
	m->s6_addr[10] = m->s6_addr[11] = 0xff;
	m->s6_addr32[3] = a->s_addr;
}

/* Every identification, with DF or without flags, at every length a port
 * receives, is found exactly. */
START_TEST(test_solve_any_id)
{
	static uint8_t d[4300];
	struct in_addr a = { htonl(0x0a4d0002) }, b = { htonl(0x0a4d0001) };
	struct in6_addr sa, sb;
	uint16_t id, frag, want, wfrag;
	size_t len;
	int i;

	v4(&sa, &a);
	v4(&sb, &b);
	for (i = 0; i < 3000; i++) {
		len = 16 + rnd() % (sizeof(d) - 16);
		want = (uint16_t)rnd();
		wfrag = rnd() & 1 ? 0x4000 : 0;
		make_dgram(d, len, &a, &b, 0xc123, want, wfrag);
		ck_assert_msg(icrc_check_rebuilt(&sa, &sb, 0xc123,
						 WIRE_ROCE_UDP_PORT, d, len,
						 &id, &frag),
			      "len %zu id %04x frag %04x", len, want, wfrag);
		ck_assert_uint_eq(id, want);
		ck_assert_uint_eq(frag, wfrag);
	}
	/* Fragments (MF, or an offset) are never what RoCE sends. */
	make_dgram(d, 100, &a, &b, 0xc123, 7, 0x2000);
	ck_assert(!icrc_check_rebuilt(&sa, &sb, 0xc123, WIRE_ROCE_UDP_PORT,
				      d, 100, &id, &frag));
	make_dgram(d, 100, &a, &b, 0xc123, 7, 0x4001);
	ck_assert(!icrc_check_rebuilt(&sa, &sb, 0xc123, WIRE_ROCE_UDP_PORT,
				      d, 100, &id, &frag));
	/* Too short to hold a BTH and an ICRC. */
	ck_assert(!icrc_check_rebuilt(&sa, &sb, 0xc123, WIRE_ROCE_UDP_PORT,
				      d, 15, &id, &frag));
	ck_assert(!icrc_solve_ipv4_id(1, 2, 15, &id, &frag));
}
END_TEST

/* A datagram made for identification 0 and moved to another with
 * icrc_with_ipv4_id carries the ICRC a sender of that identification
 * computes, as the segments of a GSO send must. */
START_TEST(test_with_ipv4_id)
{
	static uint8_t d[4300], e[4300];
	struct in_addr a = { htonl(0x0a4d0002) }, b = { htonl(0x0a4d0001) };
	struct in6_addr sa, sb;
	uint16_t id, frag, want;
	size_t len;
	uint32_t moved;
	int i;

	v4(&sa, &a);
	v4(&sb, &b);
	for (i = 0; i < 2000; i++) {
		len = 16 + rnd() % (sizeof(d) - 16);
		want = (uint16_t)rnd();
		make_dgram(d, len, &a, &b, 0xc123, 0, 0x4000);
		memcpy(e, d, len);
		stamp_dgram(e, len, &a, &b, 0xc123, want, 0x4000);
		moved = icrc_with_ipv4_id(icrc_get(d + len - 4), len, want);
		ck_assert_msg(moved == icrc_get(e + len - 4),
			      "len %zu id %04x", len, want);
		icrc_put(d + len - 4, moved);
		ck_assert(icrc_check_rebuilt(&sa, &sb, 0xc123,
					     WIRE_ROCE_UDP_PORT, d, len, &id,
					     &frag));
		ck_assert_uint_eq(id, want);
	}
	/* Identification 0 changes nothing. */
	ck_assert_uint_eq(icrc_with_ipv4_id(0x12345678, 100, 0), 0x12345678);
}
END_TEST

/*
 * How strong the check stays. For any damage pattern there is exactly one
 * identification/flags word that would explain it, and the packet passes
 * when that word's flags half is DF or zero: 2 values in 2^16, whatever
 * the pattern, single bits included. So about 1 damaged packet in 32768
 * passes, where a receiver that saw the header would let 1 in 2^32 pass.
 */
static unsigned int single_bit_passes(size_t len, unsigned int *tried)
{
	static uint8_t d[4300];
	struct in_addr a = { htonl(0x0a4d0002) }, b = { htonl(0x0a4d0001) };
	struct in6_addr sa, sb;
	unsigned int bit, passed = 0;
	uint16_t id, frag;

	v4(&sa, &a);
	v4(&sb, &b);
	make_dgram(d, len, &a, &b, 0xc200, 0x8b21, 0x4000);
	ck_assert(icrc_check_rebuilt(&sa, &sb, 0xc200, WIRE_ROCE_UDP_PORT, d,
				     len, &id, &frag));
	for (bit = 0; bit < len * 8; bit++) {
		/* BTH byte 4 (FECN, BECN, reserved) is masked. */
		if (bit / 8 == 4)
			continue;
		(*tried)++;
		d[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (icrc_check_rebuilt(&sa, &sb, 0xc200, WIRE_ROCE_UDP_PORT, d,
				       len, &id, &frag))
			passed++;
		d[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	return passed;
}

static bool memchr_u(const unsigned int *v, unsigned int n, unsigned int x)
{
	while (n--)
		if (v[n] == x)
			return true;
	return false;
}

START_TEST(test_solve_damage)
{
	static uint8_t d[1100];
	struct in_addr a = { htonl(0x0a4d0002) }, b = { htonl(0x0a4d0001) };
	unsigned int passed = 0, trials, tried = 0, n, k;
	struct in6_addr sa, sb;
	uint16_t id, frag;
	size_t len = sizeof(d);
	uint8_t x;

	/* Every single bit of datagrams of four lengths: 76928 flips,
	 * about 2.3 expected to pass. */
	passed = single_bit_passes(64, &tried) +
		 single_bit_passes(1100, &tried) +
		 single_bit_passes(4200, &tried) +
		 single_bit_passes(4256, &tried);
	ck_assert_uint_eq(tried, 76928);
	ck_assert_msg(passed <= 12, "%u of %u bit flips passed", passed,
		      tried);
	printf("solve: %u of %u single-bit flips passed\n", passed, tried);

	/* Random damage, 1 to 8 random bytes anywhere covered: about 6.1 of
	 * 200000 expected; 24 is far in the tail. */
	v4(&sa, &a);
	v4(&sb, &b);
	make_dgram(d, len, &a, &b, 0xc200, 0x8b21, 0x4000);
	passed = 0;
	for (trials = 0; trials < 200000; trials++) {
		unsigned int at[8];
		uint8_t saved[8];

		n = 1 + rnd() % 8;
		for (k = 0; k < n; k++) {
			/* Distinct bytes (two hits on one could cancel), and
			 * not BTH byte 4: the ICRC masks it. */
			do
				at[k] = rnd() % len;
			while (at[k] == 4 || memchr_u(at, k, at[k]));
			saved[k] = d[at[k]];
			x = (uint8_t)rnd();
			d[at[k]] ^= x ? x : 1;
		}
		if (icrc_check_rebuilt(&sa, &sb, 0xc200, WIRE_ROCE_UDP_PORT, d,
				       len, &id, &frag))
			passed++;
		while (k--)
			d[at[k]] = saved[k];
	}
	ck_assert_msg(passed <= 24, "%u of %u damaged packets passed", passed,
		      trials);
	printf("solve: %u of %u randomly damaged packets passed\n", passed,
	       trials);
}
END_TEST

static Suite *icrc_suite(void)
{
	Suite *s = suite_create("icrc");
	TCase *tc = tcase_create("vectors");

	tcase_add_test(tc, test_crc32_is_ieee);
	tcase_add_test(tc, test_crc32_matches_zlib);
	tcase_add_loop_test(tc, test_vectors, 0, NVEC);
	tcase_add_loop_test(tc, test_incremental, 0, NVEC);
	tcase_add_loop_test(tc, test_flipped_bits, 0, NVEC);
	tcase_add_test(tc, test_check_rejects_short);
	tcase_add_test(tc, test_put_get_little_endian);
	suite_add_tcase(s, tc);

	tc = tcase_create("pseudo");
	tcase_add_test(tc, test_pseudo_v4);
	tcase_add_test(tc, test_pseudo_v6);
	tcase_add_test(tc, test_sender_round_trip);
	tcase_add_test(tc, test_seal_scapy_vectors);
	tcase_add_test(tc, test_seal_unmapped);
	suite_add_tcase(s, tc);

	tc = tcase_create("ipv4_id");
	tcase_add_test(tc, test_solve_scapy_vector);
	tcase_add_test(tc, test_solve_any_id);
	tcase_add_test(tc, test_with_ipv4_id);
	tcase_add_test(tc, test_solve_damage);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(icrc_suite());
}
