/* net/iphdr.c: the IP and UDP headers of a datagram as the kernel writes
 * them, with the header checksum and the UDP checksum over the pseudo
 * header and every byte of the datagram (RFC 768, RFC 8200 8.1), and the
 * GRH a UD receive starts with. */
#include <string.h>

#include "net/hdr.h"
#include "net/iphdr.h"

#define IPPROTO_UDP_NUM	17

/* A running one's-complement sum that takes pieces of any length: an odd
 * byte at the end of one piece pairs with the first of the next. */
struct csum {
	uint32_t sum;
	bool odd;
};

static void csum_add(struct csum *c, const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t s = c->sum;

	if (c->odd && len) {
		s += *b++;
		len--;
		c->odd = false;
	}
	for (; len >= 2; b += 2, len -= 2)
		s += (uint32_t)b[0] << 8 | b[1];
	if (len) {
		s += (uint32_t)b[0] << 8;
		c->odd = true;
	}
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	c->sum = (uint32_t)s;
}

static uint16_t csum_fold(const struct csum *c)
{
	return (uint16_t)~c->sum;
}

uint16_t emu_inet_csum(const void *p, size_t len)
{
	struct csum c = { 0 };

	csum_add(&c, p, len);
	return csum_fold(&c);
}

/* The IP header alone for a UDP datagram of ulen bytes (its header
 * included), checksummed: its length, 20 or 40. */
static size_t ip_header(uint8_t *buf, const struct emu_iphdr *h, bool v4,
			uint16_t ulen)
{
	if (v4) {
		buf[0] = 0x45;
		buf[1] = h->tos;
		wire_put16(buf + 2, (uint16_t)(20 + ulen));
		wire_put16(buf + 4, h->ip_id);
		wire_put16(buf + 6, h->df ? 0x4000 : 0);
		buf[8] = h->ttl;
		buf[9] = IPPROTO_UDP_NUM;
		wire_put16(buf + 10, 0);
		memcpy(buf + 12, &h->src.s6_addr[12], 4);
		memcpy(buf + 16, &h->dst.s6_addr[12], 4);
		wire_put16(buf + 10, emu_inet_csum(buf, 20));
		return 20;
	}
	wire_put32(buf, 0x60000000u | (uint32_t)h->tos << 20 |
			(h->flow & 0xfffff));
	wire_put16(buf + 4, ulen);
	buf[6] = IPPROTO_UDP_NUM;
	buf[7] = h->ttl;
	memcpy(buf + 8, h->src.s6_addr, 16);
	memcpy(buf + 24, h->dst.s6_addr, 16);
	return 40;
}

size_t emu_iphdr_build(uint8_t *buf, const struct emu_iphdr *h,
		       const struct iovec *iov, unsigned int niov,
		       uint32_t dgram_len)
{
	bool v4 = IN6_IS_ADDR_V4MAPPED(&h->src) &&
		  IN6_IS_ADDR_V4MAPPED(&h->dst);
	uint16_t ulen = (uint16_t)(8 + dgram_len), sum;
	size_t iplen = ip_header(buf, h, v4, ulen);
	uint8_t *udp = buf + iplen, pseudo[40];
	struct csum c = { 0 };
	unsigned int i;

	if (v4) {
		/* Pseudo header: addresses, zero, protocol, UDP length. */
		memcpy(pseudo, buf + 12, 8);
		pseudo[8] = 0;
		pseudo[9] = IPPROTO_UDP_NUM;
		wire_put16(pseudo + 10, ulen);
		csum_add(&c, pseudo, 12);
	} else {
		memcpy(pseudo, buf + 8, 32);
		wire_put32(pseudo + 32, ulen);
		wire_put32(pseudo + 36, IPPROTO_UDP_NUM);
		csum_add(&c, pseudo, 40);
	}
	wire_put16(udp, h->sport);
	wire_put16(udp + 2, h->dport);
	wire_put16(udp + 4, ulen);
	wire_put16(udp + 6, 0);
	csum_add(&c, udp, 8);
	for (i = 0; i < niov; i++)
		csum_add(&c, iov[i].iov_base, iov[i].iov_len);
	sum = csum_fold(&c);
	/* A computed 0 goes out as all ones: 0 means "no checksum". */
	wire_put16(udp + 6, sum ? sum : 0xffff);
	return iplen + 8;
}

void emu_iphdr_grh(uint8_t *g, const struct emu_iphdr *h, uint32_t dgram_len)
{
	bool v4 = IN6_IS_ADDR_V4MAPPED(&h->src);

	memset(g, 0, EMU_GRH_LEN);
	/* An IPv4 header takes the last 20 bytes, as a RoCEv2 HCA gives it
	 * (ibv_poll_cq(3)): the first 20 stay zero. */
	ip_header(v4 ? g + 20 : g, h, v4, (uint16_t)(8 + dgram_len));
}
