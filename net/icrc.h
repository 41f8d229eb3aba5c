/* net/icrc.h: the RoCEv2 invariant CRC over the masked IP/UDP/IB headers and
 * payload, and the pseudo IP/UDP headers a sender computes it over.
 */
#ifndef EMU_NET_ICRC_H
#define EMU_NET_ICRC_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/*
 * The ICRC is the Ethernet/zlib CRC-32 (reflected, init and final xor all
 * ones) over, in order:
 *   8 bytes of 0xff         where InfiniBand has its LRH;
 *   the IP header           IPv4: TOS, TTL and header checksum as ones;
 *                           IPv6: traffic class, flow label, hop limit as
 *                           ones (the version nibble is kept);
 *   the UDP header          checksum as ones;
 *   the BTH                 byte 4 (FECN, BECN, reserved) as ones;
 *   the rest                extension headers, payload and pad, unmasked.
 * The 32-bit result follows the payload least significant byte first, as
 * the Ethernet FCS does. The masked fields are those a router may rewrite.
 */

#define ICRC_LEN		4
#define ICRC_UDP_LEN		8
#define ICRC_IPV4_LEN		20
#define ICRC_IPV6_LEN		40
/* Room for the largest pseudo header icrc_pseudo_*() writes. */
#define ICRC_PSEUDO_MAX		(ICRC_IPV6_LEN + ICRC_UDP_LEN)

/*
 * A socket sender never sees the IP and UDP headers, yet the ICRC covers
 * their unmasked fields. These build what the kernel will send for a
 * datagram of dgram_len bytes (BTH through ICRC, exactly what sendmsg gets)
 * into buf: IP header at buf, UDP header right after it. Ports are in host
 * order, addresses in network order as in struct in_addr/in6_addr.
 *
 * The IPv4 header has identification 0 and DF set: what Linux puts on a
 * datagram from an unconnected UDP socket with IP_PMTUDISC_DO (and what
 * rdma_rxe sends). The masked fields are written as ones already.
 *
 * Returns the IP header length (20 or 40); the UDP header is at buf + that.
 */
size_t icrc_pseudo_v4(uint8_t *buf, const struct in_addr *src,
		      const struct in_addr *dst, uint16_t sport,
		      uint16_t dport, size_t dgram_len);
size_t icrc_pseudo_v6(uint8_t *buf, const struct in6_addr *src,
		      const struct in6_addr *dst, uint16_t sport,
		      uint16_t dport, size_t dgram_len);

/*
 * The CRC so far over the LRH stand-in, ip (ip_len bytes, IPv4 with any
 * options or IPv6 with any extension headers; the version nibble picks the
 * masking), the 8-byte udp header and the 12-byte BTH at bth. Continue with
 * icrc_update() over the rest of the IB headers and the payload, which may
 * sit in any number of separate buffers. The value is in zlib's form: ready
 * to be stored after the last update, or to be continued.
 */
uint32_t icrc_start(const void *ip, size_t ip_len, const void *udp,
		    const void *bth);
uint32_t icrc_update(uint32_t crc, const void *buf, size_t len);

/*
 * Which library computes the CRC-32 ("isa-l" or "zlib", fixed at build
 * time): for the tests' and the benchmark's reports. Both give the same
 * values, so peers built either way interoperate.
 */
const char *icrc_crc32_impl(void);

/*
 * ICRC of a packet whose IB part (BTH through pad, ICRC excluded) is
 * contiguous at ib, ib_len >= 12 bytes.
 */
uint32_t icrc_compute(const void *ip, size_t ip_len, const void *udp,
		      const void *ib, size_t ib_len);

/*
 * True if the ICRC stored in the last 4 of the ib_len bytes at ib (BTH
 * through ICRC, i.e. the whole UDP payload) matches the packet.
 */
bool icrc_check(const void *ip, size_t ip_len, const void *udp,
		const void *ib, size_t ib_len);

/*
 * Sealing an outgoing datagram with its ICRC, over the IP and UDP headers
 * the sending stack will write for src:sport to dst:dport (host-order
 * ports, IPv4 v4-mapped; the family is dst's): icrc_pseudo_v4/_v6, IPv4
 * with identification 0 and DF. The datagram is the hdr_len IB header
 * bytes at buf (BTH first), then the npay payload pieces at pay (pay_len
 * bytes in all, application memory: read through the memory guard,
 * net/memguard.h), then pad bytes this writes as zeros at buf + hdr_len,
 * then the ICRC, which this writes after the pad. 0, or EFAULT when a
 * page of the payload was missing: nothing is written then.
 */
int icrc_seal(const struct in6_addr *src, const struct in6_addr *dst,
	      uint16_t sport, uint16_t dport, uint8_t *buf, uint32_t hdr_len,
	      const struct iovec *pay, unsigned int npay, uint32_t pay_len,
	      uint32_t pad);

/*
 * Checking a received packet whose IP and UDP headers the kernel hid: the
 * headers are rebuilt from recvmsg's addresses and ports (src:sport to
 * dst:dport, host-order ports, IPv4 v4-mapped), for the dgram_len bytes
 * at ib (BTH through ICRC).
 *
 * IPv6 has nothing unmasked that a socket does not report. IPv4 does: the
 * identification and flags, which a socket never shows and which senders
 * other than emuverbs (kernel rxe, RoCE NICs) set to values of their own.
 * The CRC is affine in those 32 bits, so the one identification/flags
 * word that reconciles the ICRC carried with the one computed over a
 * header with identification 0 and DF can be solved for; the packet is
 * accepted when that word is an unfragmented datagram's (DF set or no
 * flags, offset 0), and *ip_id (if not NULL) is the identification the
 * sender used. A damaged packet therefore passes with probability 2^-15
 * instead of 2^-32 (doc/design-notes.md).
 */
bool icrc_check_rebuilt(const struct in6_addr *src, const struct in6_addr *dst,
			uint16_t sport, uint16_t dport, const void *ib,
			size_t dgram_len, uint16_t *ip_id, uint16_t *ip_frag);

/*
 * The solving step alone: computed is the ICRC over the rebuilt header
 * (identification 0, DF), got the one the packet carries. True when an
 * unfragmented datagram's identification and flags explain the
 * difference; then *id and *frag (the flags/offset word) are set.
 */
bool icrc_solve_ipv4_id(uint32_t computed, uint32_t got, size_t dgram_len,
			uint16_t *id, uint16_t *frag);

/*
 * The ICRC of the same datagram (dgram_len bytes, BTH through ICRC) sent
 * over IPv4 with identification id instead of 0, DF unchanged: for the
 * segments of a GSO send, which the kernel numbers 0, 1, 2, ...
 */
uint32_t icrc_with_ipv4_id(uint32_t icrc, size_t dgram_len, uint16_t id);

static inline void icrc_put(void *dst, uint32_t crc)
{
	uint8_t *p = dst;

	p[0] = (uint8_t)crc;
	p[1] = (uint8_t)(crc >> 8);
	p[2] = (uint8_t)(crc >> 16);
	p[3] = (uint8_t)(crc >> 24);
}

static inline uint32_t icrc_get(const void *src)
{
	const uint8_t *p = src;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#endif /* EMU_NET_ICRC_H */
