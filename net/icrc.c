/* net/icrc.c: RoCEv2 ICRC computation, a sender's seal and a receiver's
 * check, on top of a CRC-32 library (isa-l's, else zlib's: icrc_crc32() is
 * the one call to either), fed piece by piece so that no packet is ever
 * copied whole, and the solve for the IPv4 identification a receiving
 * socket cannot see.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

#include "net/icrc.h"
#include "net/hdr.h"
#include "net/memguard.h"

/*
 * The CRC-32 of the eight 0xff bytes that stand in for the LRH: every
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

/*
 * The CRC-32 itself, the only place that calls a library for it. isa-l's
 * crc32_gzip_refl folds 64 bytes at a time with carry-less multiplies
 * (PCLMULQDQ, chosen at run time; a table loop on CPUs without it) where
 * zlib looks a table up for every byte (four or eight at a time, but one
 * lookup a byte still): on 4 KiB packets that was half the receiver's CPU.
 * Both take and return the CRC in the same form (reflected, the final XOR
 * applied, seed = previous result), so everything else here, the solve's
 * arithmetic included, is the same whichever is built in.
 */
static inline uint32_t icrc_crc32(uint32_t crc, const void *buf, size_t len)
{
#ifdef HAVE_ISAL
	return crc32_gzip_refl(crc, buf, len);
#else
	return (uint32_t)crc32_z(crc, buf, len);
#endif
}

const char *icrc_crc32_impl(void)
{
#ifdef HAVE_ISAL
	return "isa-l";
#else
	return "zlib";
#endif
}

uint32_t icrc_update(uint32_t crc, const void *buf, size_t len)
{
	return icrc_crc32(crc, buf, len);
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

/* ---- solving for the IPv4 identification --------------------------------
 *
 * Polynomials mod the CRC-32 generator P are kept as zlib keeps them:
 * reflected, bit 31 the coefficient of x^0. XORing a 4-byte word D into a
 * message, k bytes before its end, changes the CRC by D(x) * x^(32 + 8k)
 * mod P, whatever the rest of the message and the CRC's initial value and
 * final XOR (those cancel). The identification and flags are such a word
 * (IPv4 header bytes 4..7), so the change they caused is multiplied back
 * by x^-(32 + 8k) to give the word itself.
 */
#define CRC32_POLY	0xedb88320u	/* P, reflected */
#define GF_ONE		0x80000000u	/* x^0 */

/* a * b mod P. */
static uint32_t gf_mul(uint32_t a, uint32_t b)
{
	uint32_t m = GF_ONE, p = 0;

	while (m) {
		if (a & m)
			p ^= b;
		m >>= 1;
		b = b & 1 ? (b >> 1) ^ CRC32_POLY : b >> 1;
	}
	return p;
}

/* a / x mod P: undoes one step of b = b * x above. P has a constant term,
 * so x is invertible: a step that reduced left bit 31 set. */
static uint32_t gf_div_x(uint32_t a)
{
	return a & GF_ONE ? ((a ^ CRC32_POLY) << 1) | 1 : a << 1;
}

/* b^n mod P by squaring. */
static uint32_t gf_pow(uint32_t b, uint32_t n)
{
	uint32_t r = GF_ONE;

	while (n) {
		if (n & 1)
			r = gf_mul(r, b);
		b = gf_mul(b, b);
		n >>= 1;
	}
	return r;
}

/* x^-(8n) mod P. */
static uint32_t gf_x_inv_bytes(uint32_t n)
{
	uint32_t b = GF_ONE;
	int i;

	for (i = 0; i < 8; i++)
		b = gf_div_x(b);
	return gf_pow(b, n);
}

/* The factors for the datagram lengths one port can receive, computed
 * once each; 0 (never a factor: x is invertible) marks one not yet done.
 * Any thread may fill a slot: they all write the same value. */
#define SOLVE_CACHE	4608
static _Atomic uint32_t solve_factor[SOLVE_CACHE];

static uint32_t solve_factor_for(size_t dgram_len)
{
	/* The word, then IPv4 bytes 8..19, the UDP header and the datagram
	 * up to its ICRC; and 4 more for the word's own x^32. */
	uint32_t n = (uint32_t)(12 + ICRC_UDP_LEN + dgram_len - ICRC_LEN + 4);
	uint32_t f;

	if (dgram_len >= SOLVE_CACHE)
		return gf_x_inv_bytes(n);
	f = atomic_load_explicit(&solve_factor[dgram_len],
				 memory_order_relaxed);
	if (!f) {
		f = gf_x_inv_bytes(n);
		atomic_store_explicit(&solve_factor[dgram_len], f,
				      memory_order_relaxed);
	}
	return f;
}

bool icrc_solve_ipv4_id(uint32_t computed, uint32_t got, size_t dgram_len,
			uint16_t *id, uint16_t *frag)
{
	uint32_t w;
	uint16_t fl;

	if (dgram_len < WIRE_BTH_LEN + ICRC_LEN)
		return false;
	/* The difference in the word, as its bytes in wire order from the
	 * low end (reflected), then the DF the rebuilt header assumed. */
	w = gf_mul(computed ^ got, solve_factor_for(dgram_len));
	w ^= (uint32_t)(IPV4_DF >> 8) << 16;
	fl = (uint16_t)((w >> 16 & 0xff) << 8 | w >> 24);
	if (fl != IPV4_DF && fl != 0)
		return false;
	*id = (uint16_t)((w & 0xff) << 8 | (w >> 8 & 0xff));
	*frag = fl;
	return true;
}

/* x^(8n) mod P: what moving a word n bytes back multiplies its effect on
 * the CRC by. */
static uint32_t gf_x_bytes(uint32_t n)
{
	uint32_t b = GF_ONE;
	int i;

	for (i = 0; i < 8; i++)
		b = b & 1 ? (b >> 1) ^ CRC32_POLY : b >> 1;
	return gf_pow(b, n);
}

static _Atomic uint32_t move_factor[SOLVE_CACHE];

uint32_t icrc_with_ipv4_id(uint32_t icrc, size_t dgram_len, uint16_t id)
{
	/* As the solver counts: the word, IPv4 bytes 8..19, UDP, the
	 * datagram up to its ICRC, and the word's own x^32. */
	uint32_t n = (uint32_t)(12 + ICRC_UDP_LEN + dgram_len - ICRC_LEN + 4);
	uint32_t f = 0, w;

	if (!id || dgram_len < ICRC_LEN)
		return icrc;
	if (dgram_len < SOLVE_CACHE)
		f = atomic_load_explicit(&move_factor[dgram_len],
					 memory_order_relaxed);
	if (!f) {
		f = gf_x_bytes(n);
		if (dgram_len < SOLVE_CACHE)
			atomic_store_explicit(&move_factor[dgram_len], f,
					      memory_order_relaxed);
	}
	/* The identification's two bytes in wire order, reflected. */
	w = (uint32_t)(id >> 8) | (uint32_t)(id & 0xff) << 8;
	return icrc ^ gf_mul(w, f);
}

/*
 * The CRC through the BTH at bth of a datagram of dgram_len bytes whose IP
 * and UDP headers are rebuilt from its addresses and ports: what both the
 * sender and a receiver whose socket hid the headers start from. The
 * family is the peer's: IPv4 when v4 (the addresses v4-mapped).
 */
static uint32_t rebuilt_start(bool v4, const struct in6_addr *src,
			      const struct in6_addr *dst, uint16_t sport,
			      uint16_t dport, const void *bth,
			      size_t dgram_len)
{
	uint8_t ph[ICRC_PSEUDO_MAX];
	size_t iplen;

	if (v4) {
		struct in_addr s, d;

		memcpy(&s, &src->s6_addr32[3], 4);
		memcpy(&d, &dst->s6_addr32[3], 4);
		iplen = icrc_pseudo_v4(ph, &s, &d, sport, dport, dgram_len);
	} else {
		iplen = icrc_pseudo_v6(ph, src, dst, sport, dport, dgram_len);
	}
	return icrc_start(ph, iplen, ph + iplen, bth);
}

int icrc_seal(const struct in6_addr *src, const struct in6_addr *dst,
	      uint16_t sport, uint16_t dport, uint8_t *buf, uint32_t hdr_len,
	      const struct iovec *pay, unsigned int npay, uint32_t pay_len,
	      uint32_t pad)
{
	size_t dlen = (size_t)hdr_len + pay_len + pad + ICRC_LEN;
	uint32_t crc;

	/* The destination decides what the sending stack writes. */
	crc = rebuilt_start(IN6_IS_ADDR_V4MAPPED(dst), src, dst, sport, dport,
			    buf, dlen);
	crc = icrc_update(crc, buf + WIRE_BTH_LEN, hdr_len - WIRE_BTH_LEN);
	/* The first touch of the payload, application memory: a page
	 * unmapped under it fails the seal instead of the process. */
	if (npay && emu_guard_icrc(&crc, pay, npay))
		return EFAULT;
	memset(buf + hdr_len, 0, pad);
	crc = icrc_update(crc, buf + hdr_len, pad);
	icrc_put(buf + hdr_len + pad, crc);
	return 0;
}

bool icrc_check_rebuilt(const struct in6_addr *src, const struct in6_addr *dst,
			uint16_t sport, uint16_t dport, const void *ib,
			size_t dgram_len, uint16_t *ip_id, uint16_t *ip_frag)
{
	const uint8_t *p = ib;
	uint32_t crc, got;
	uint16_t id = 0, frag = IPV4_DF;
	bool v4 = IN6_IS_ADDR_V4MAPPED(src);

	if (dgram_len < WIRE_BTH_LEN + ICRC_LEN)
		return false;
	/* The source is the peer: its family is the datagram's (the
	 * destination may be unknown, all zero, on a wildcard socket). */
	crc = rebuilt_start(v4, src, dst, sport, dport, ib, dgram_len);
	crc = icrc_update(crc, p + WIRE_BTH_LEN,
			  dgram_len - WIRE_BTH_LEN - ICRC_LEN);
	got = icrc_get(p + dgram_len - ICRC_LEN);
	/* What every emuverbs sender sends comes out equal at once. */
	if (crc != got &&
	    (!v4 || !icrc_solve_ipv4_id(crc, got, dgram_len, &id, &frag)))
		return false;
	if (ip_id)
		*ip_id = id;
	if (ip_frag)
		*ip_frag = frag;
	return true;
}
