/* net/icrc.c: RoCEv2 ICRC computation and checking on top of zlib's CRC-32,
 * fed piece by piece so that no packet is ever copied whole.
 */
#include <string.h>
#include <zlib.h>

#include "net/icrc.h"
#include "net/hdr.h"

/*
 * zlib's CRC-32 of the eight 0xff bytes that stand in for the LRH: every
 * ICRC starts from here. tests/unit/test_icrc.c recomputes it.
 */
#define ICRC_LRH_SEED	0x2144df1cu

#define IPPROTO_UDP_NUM	17
#define IPV4_DF		0x4000

size_t icrc_pseudo_v4(uint8_t *buf, const struct in_addr *src,
		      const struct in_addr *dst, uint16_t sport,
		      uint16_t dport, size_t dgram_len)
{
	uint8_t *udp = buf + ICRC_IPV4_LEN;

	buf[0] = 0x45;			/* version 4, 5 words, no options */
	buf[1] = 0xff;			/* TOS: masked */
	wire_put16(buf + 2,
		   (uint16_t)(ICRC_IPV4_LEN + ICRC_UDP_LEN + dgram_len));
	wire_put16(buf + 4, 0);		/* identification */
	wire_put16(buf + 6, IPV4_DF);
	buf[8] = 0xff;			/* TTL: masked */
	buf[9] = IPPROTO_UDP_NUM;
	buf[10] = 0xff;			/* header checksum: masked */
	buf[11] = 0xff;
	memcpy(buf + 12, &src->s_addr, 4);
	memcpy(buf + 16, &dst->s_addr, 4);

	wire_put16(udp, sport);
	wire_put16(udp + 2, dport);
	wire_put16(udp + 4, (uint16_t)(ICRC_UDP_LEN + dgram_len));
	wire_put16(udp + 6, 0xffff);	/* checksum: masked */
	return ICRC_IPV4_LEN;
}

size_t icrc_pseudo_v6(uint8_t *buf, const struct in6_addr *src,
		      const struct in6_addr *dst, uint16_t sport,
		      uint16_t dport, size_t dgram_len)
{
	uint8_t *udp = buf + ICRC_IPV6_LEN;

	/* Version 6; traffic class and flow label masked. */
	wire_put32(buf, 0x6fffffffu);
	wire_put16(buf + 4, (uint16_t)(ICRC_UDP_LEN + dgram_len));
	buf[6] = IPPROTO_UDP_NUM;
	buf[7] = 0xff;			/* hop limit: masked */
	memcpy(buf + 8, src->s6_addr, 16);
	memcpy(buf + 24, dst->s6_addr, 16);

	wire_put16(udp, sport);
	wire_put16(udp + 2, dport);
	wire_put16(udp + 4, (uint16_t)(ICRC_UDP_LEN + dgram_len));
	wire_put16(udp + 6, 0xffff);
	return ICRC_IPV6_LEN;
}

uint32_t icrc_update(uint32_t crc, const void *buf, size_t len)
{
	return (uint32_t)crc32_z(crc, buf, len);
}

/*
 * The masked copies are small (at most 60 + 8 + 12 bytes) and go through
 * one staging buffer, so the common case is a single crc32 call for all
 * headers up to and including the BTH.
 */
uint32_t icrc_start(const void *ip, size_t ip_len, const void *udp,
		    const void *bth)
{
	uint8_t st[60 + ICRC_UDP_LEN + WIRE_BTH_LEN];
	const uint8_t *ipb = ip;
	uint32_t crc = ICRC_LRH_SEED;
	size_t fixed = 0, n;

	if (ip_len >= ICRC_IPV4_LEN && ipb[0] >> 4 == 4)
		fixed = ICRC_IPV4_LEN;
	else if (ip_len >= ICRC_IPV6_LEN && ipb[0] >> 4 == 6)
		fixed = ICRC_IPV6_LEN;

	/* IPv4 options are covered as they are; so are IPv6 extensions. */
	n = ip_len <= 60 ? ip_len : fixed;
	memcpy(st, ip, n);
	if (fixed == ICRC_IPV4_LEN) {
		st[1] = 0xff;
		st[8] = 0xff;
		st[10] = 0xff;
		st[11] = 0xff;
	} else if (fixed == ICRC_IPV6_LEN) {
		st[0] |= 0x0f;
		st[1] = 0xff;
		st[2] = 0xff;
		st[3] = 0xff;
		st[7] = 0xff;
	}
	if (n < ip_len) {
		crc = icrc_update(crc, st, n);
		crc = icrc_update(crc, ipb + n, ip_len - n);
		n = 0;
	}

	memcpy(st + n, udp, ICRC_UDP_LEN);
	st[n + 6] = 0xff;
	st[n + 7] = 0xff;
	n += ICRC_UDP_LEN;

	memcpy(st + n, bth, WIRE_BTH_LEN);
	st[n + 4] = 0xff;
	n += WIRE_BTH_LEN;

	return icrc_update(crc, st, n);
}

uint32_t icrc_compute(const void *ip, size_t ip_len, const void *udp,
		      const void *ib, size_t ib_len)
{
	uint32_t crc = icrc_start(ip, ip_len, udp, ib);

	return icrc_update(crc, (const uint8_t *)ib + WIRE_BTH_LEN,
			   ib_len - WIRE_BTH_LEN);
}

bool icrc_check(const void *ip, size_t ip_len, const void *udp,
		const void *ib, size_t ib_len)
{
	const uint8_t *p = ib;

	if (ib_len < WIRE_BTH_LEN + ICRC_LEN)
		return false;
	ib_len -= ICRC_LEN;
	return icrc_compute(ip, ip_len, udp, ib, ib_len) ==
	       icrc_get(p + ib_len);
}
