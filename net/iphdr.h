/* The IPv4 or IPv6 header and the UDP header that the kernel puts in front
 * of a datagram, rebuilt with their checksums: what a capture shows of the
 * packets a UDP socket sends and receives without ever seeing them, and
 * the GRH a UD receive buffer starts with. */
#ifndef NET_IPHDR_H
#define NET_IPHDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/uio.h>

/* The longest pair of headers: IPv6 (40) and UDP (8). */
#define EMU_IPHDR_MAX	48

/* What the headers say besides the lengths and checksums. */
struct emu_iphdr {
	struct in6_addr src, dst;	/* IPv4 kept v4-mapped: then IPv4 */
	uint16_t sport, dport;		/* host order */
	uint8_t tos;			/* TOS or traffic class */
	uint8_t ttl;			/* TTL or hop limit */
	uint16_t ip_id;			/* IPv4 identification */
	bool df;			/* IPv4 don't fragment */
	uint32_t flow;			/* IPv6 flow label (20 bits) */
};

/* The IP and UDP headers for a datagram of dgram_len bytes, whose bytes
 * are the niov pieces at iov (the UDP checksum covers them), into buf:
 * their length (28 or 48). IPv4 when both addresses are v4-mapped. */
size_t emu_iphdr_build(uint8_t *buf, const struct emu_iphdr *h,
		       const struct iovec *iov, unsigned int niov,
		       uint32_t dgram_len);

/* What a UD receive buffer starts with: the 40-byte GRH. */
#define EMU_GRH_LEN	40

/* The GRH area of a UD receive for a datagram of dgram_len bytes (BTH
 * through ICRC) that came with the headers h says, into g: for IPv6 the
 * IPv6 header, for IPv4 20 zero bytes and then the IPv4 header, with its
 * checksum, as it was on the wire. The family is the source's (a received
 * datagram's destination may be unknown, all zero); no UDP header. */
void emu_iphdr_grh(uint8_t *g, const struct emu_iphdr *h, uint32_t dgram_len);

/* The Internet checksum (RFC 1071) of len bytes, folded and inverted:
 * what a header holds, 0 written as 0xffff for UDP. */
uint16_t emu_inet_csum(const void *p, size_t len);

#endif
