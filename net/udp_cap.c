/* net/udp_cap.c: what a port's capture records of each datagram, with the
 * IP and UDP headers the socket never shows rebuilt as the kernel writes
 * them (sent) or as the sender must have written them (received). */
#include <stdio.h>
#include <string.h>

#include "net/capture.h"
#include "net/hdr.h"
#include "net/icrc.h"
#include "net/udp.h"

/* What every pool socket sends with (net/udp.c sets IP_TOS and
 * IPV6_TCLASS to ECT(0)); a CE mark comes as a control message. */
#define ECN_ECT0	0x02

void emu_udp_cap_attach(struct emu_udp *u, struct emu_cap *c, uint32_t iface)
{
	struct emu_cap *old = u->cap;

	if (c)
		emu_cap_get(c);
	u->cap = c;
	u->cap_iface = iface;
	/* A note is the capture's that made it. */
	u->tx_note = 0;
	if (old)
		emu_cap_put(old);
}

static void v4_mapped(struct in6_addr *a, const void *be4)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[10] = 0xff;
	a->s6_addr[11] = 0xff;
	memcpy(&a->s6_addr[12], be4, 4);
}

/* The destination, source and TOS of a message as net/udp.c fills it. */
static void from_msg(const struct emu_udp *u, const struct msghdr *mh,
		     struct emu_iphdr *h)
{
	struct msghdr m = *mh;
	struct cmsghdr *c;
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;
	sa_family_t fam;
	int tos;

	memcpy(&fam, mh->msg_name, sizeof(fam));
	if (fam == AF_INET) {
		memcpy(&s4, mh->msg_name, sizeof(s4));
		v4_mapped(&h->dst, &s4.sin_addr);
		h->dport = ntohs(s4.sin_port);
	} else {
		memcpy(&s6, mh->msg_name, sizeof(s6));
		h->dst = s6.sin6_addr;
		h->dport = ntohs(s6.sin6_port);
	}
	if (!u->any)
		h->src = u->local;
	h->tos = ECN_ECT0;
	if (!m.msg_control)
		return;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == IPPROTO_IP &&
		    c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			v4_mapped(&h->src, &pi.ipi_spec_dst);
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			h->src = pi.ipi6_addr;
		} else if ((c->cmsg_level == IPPROTO_IP &&
			    c->cmsg_type == IP_TOS) ||
			   (c->cmsg_level == IPPROTO_IPV6 &&
			    c->cmsg_type == IPV6_TCLASS)) {
			memcpy(&tos, CMSG_DATA(c), sizeof(tos));
			h->tos = (uint8_t)tos;
		}
	}
}

void emu_udp_cap_tx(struct emu_udp *u, const struct msghdr *mh,
		    unsigned int sock, const struct iovec *iov,
		    unsigned int niov, uint16_t ip_id, uint32_t note)
{
	struct emu_iphdr h = { .ip_id = ip_id, .df = true };

	from_msg(u, mh, &h);
	/* A wildcard endpoint told no source: the kernel chose it, and the
	 * capture shows the unspecified address of the family. */
	if (u->any && IN6_IS_ADDR_UNSPECIFIED(&h.src) &&
	    IN6_IS_ADDR_V4MAPPED(&h.dst))
		v4_mapped(&h.src, "\0\0\0\0");
	h.sport = u->tx_port[sock % EMU_UDP_TX_SOCKS];
	h.ttl = emu_cap_ttl(u->cap, IN6_IS_ADDR_V4MAPPED(&h.dst));
	emu_cap_packet(u->cap, u->cap_iface, EMU_CAP_TX, &h, iov, niov, note);
}

void emu_udp_cap_rx(struct emu_udp *u, const struct emu_udp_pkt *p,
		    uint32_t note)
{
	struct emu_iphdr h = {
		.src = p->src, .dst = p->dst, .sport = p->sport,
		.dport = u->port, .tos = p->tos, .ttl = p->ttl, .df = true,
	};
	struct iovec v = { p->data, p->len };
	uint16_t id = 0, frag = 0x4000;

	/* The socket does not show the sender's IPv4 identification; the
	 * ICRC covers it, so for a packet whose ICRC holds it is the one
	 * the check solves for (net/icrc.h). Otherwise 0 and DF, as every
	 * emuverbs sender's single datagrams carry. */
	if (IN6_IS_ADDR_V4MAPPED(&p->src) && !p->truncated &&
	    icrc_check_rebuilt(&p->src, &p->dst, p->sport, u->port, p->data,
			       p->len, &id, &frag)) {
		h.ip_id = id;
		h.df = frag & 0x4000;
	} else if (IN6_IS_ADDR_V4MAPPED(&p->src) && !note) {
		note = emu_cap_note(u->cap, "ICRC does not check: the "
				    "sender's IPv4 identification is unknown "
				    "(0 written)%s", p->truncated ?
				    "; longer than the receive buffer: cut" :
				    "");
	}
	emu_cap_packet(u->cap, u->cap_iface, EMU_CAP_RX, &h, &v, 1, note);
}

void emu_udp_cap_unsent(struct emu_udp *u, unsigned int sock,
			const struct in6_addr *src, const struct in6_addr *dst,
			uint16_t dport, uint8_t tclass, const uint8_t *buf,
			uint32_t hdr_len, const struct iovec *pay,
			unsigned int npay, uint32_t tail_len, uint32_t note)
{
	/* Its DSCP, and the ECN bits every datagram leaves with. */
	struct emu_iphdr h = {
		.dst = *dst, .dport = dport, .df = true,
		.tos = (uint8_t)((tclass & 0xfc) | ECN_ECT0),
		.sport = u->tx_port[sock % EMU_UDP_TX_SOCKS],
	};
	struct iovec v[EMU_UDP_TX_IOV];
	unsigned int i, n = 0;

	if (!u->any)
		h.src = u->local;
	else if (src)
		h.src = *src;
	else if (IN6_IS_ADDR_V4MAPPED(dst))
		v4_mapped(&h.src, "\0\0\0\0");
	h.ttl = emu_cap_ttl(u->cap, IN6_IS_ADDR_V4MAPPED(dst));
	v[n++] = (struct iovec){ (void *)buf, hdr_len };
	for (i = 0; i < npay && n < EMU_UDP_TX_IOV - 1; i++)
		v[n++] = pay[i];
	if (npay)
		v[n++] = (struct iovec){ (void *)(buf + hdr_len), tail_len };
	else
		v[0].iov_len = hdr_len + tail_len;
	emu_cap_packet(u->cap, u->cap_iface, EMU_CAP_TX, &h, v, n, note);
}
