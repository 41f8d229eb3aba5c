/* UDP I/O of a RoCEv2 port with recvmmsg/sendmmsg: batch buffers allocated
 * once, a pool of send sockets whose source ports carry flow entropy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/ip.h>

#include "net/udp.h"

/* Room for the ancillary data one datagram may bring: packet info, TTL and
 * TOS (or their IPv6 twins), each a small cmsg. */
#define RX_CTL_LEN	256
#define TX_CTL_LEN	CMSG_SPACE(sizeof(struct in6_pktinfo))

static int setopt(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val)) ? -errno : 0;
}

/* What the kernel must do for the ICRC to hold: never fragment, and so
 * send IPv4 with DF set and identification 0. */
static int tx_socket(const struct emu_udp *u, uint16_t *port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	socklen_t len;
	int fd, rc;

	fd = socket(u->family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	rc = setopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO);
	if (!rc && u->family == AF_INET6)
		rc = setopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER,
			    IPV6_PMTUDISC_DO);
	if (!rc && u->family == AF_INET6 && u->any)
		rc = setopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0);
	if (rc)
		goto fail;
	/* Large enough for a window of full-size packets in one go. */
	setopt(fd, SOL_SOCKET, SO_SNDBUF, 4 << 20);
	if (u->family == AF_INET) {
		s4.sin_addr.s_addr = u->local.s6_addr32[3];
		rc = bind(fd, (struct sockaddr *)&s4, sizeof(s4));
		len = sizeof(s4);
		if (!rc)
			rc = getsockname(fd, (struct sockaddr *)&s4, &len);
		*port = ntohs(s4.sin_port);
	} else {
		if (!u->any)
			s6.sin6_addr = u->local;
		rc = bind(fd, (struct sockaddr *)&s6, sizeof(s6));
		len = sizeof(s6);
		if (!rc)
			rc = getsockname(fd, (struct sockaddr *)&s6, &len);
		*port = ntohs(s6.sin6_port);
	}
	if (rc) {
		rc = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return rc;
}

int emu_udp_open(struct emu_udp *u, int rx_fd, int family,
		 const struct in6_addr *local, bool any)
{
	unsigned int i;
	int fd;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < EMU_UDP_TX_SOCKS; i++)
		u->tx_fd[i] = -1;
	u->rx_fd = rx_fd;
	u->family = family;
	u->any = any;
	if (local && !any)
		u->local = *local;

	/* The receiver rebuilds the IP header (ICRC, UD's GRH) from these. */
	if (any) {
		setopt(rx_fd, IPPROTO_IP, IP_PKTINFO, 1);
		if (family == AF_INET6)
			setopt(rx_fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1);
	}
	setopt(rx_fd, IPPROTO_IP, IP_RECVTTL, 1);
	setopt(rx_fd, IPPROTO_IP, IP_RECVTOS, 1);
	if (family == AF_INET6) {
		setopt(rx_fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1);
		setopt(rx_fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1);
	}
	/* Bursts of a whole send window must not overflow the default
	 * receive buffer (a loss costs a retransmission). */
	setopt(rx_fd, SOL_SOCKET, SO_RCVBUF, 4 << 20);

	u->rx_buf = malloc((size_t)EMU_UDP_BATCH * EMU_UDP_BUF);
	u->rx_ctl = calloc(EMU_UDP_BATCH, RX_CTL_LEN);
	u->tx_buf = malloc((size_t)EMU_UDP_BATCH * EMU_UDP_BUF);
	u->tx_ctl = calloc(EMU_UDP_BATCH, TX_CTL_LEN);
	if (!u->rx_buf || !u->rx_ctl || !u->tx_buf || !u->tx_ctl)
		return -ENOMEM;
	for (i = 0; i < EMU_UDP_TX_SOCKS; i++) {
		fd = tx_socket(u, &u->tx_port[i]);
		if (fd < 0)
			return fd;
		u->tx_fd[i] = fd;
	}
	return 0;
}

void emu_udp_close(struct emu_udp *u)
{
	unsigned int i;

	for (i = 0; i < EMU_UDP_TX_SOCKS; i++) {
		if (u->tx_fd[i] >= 0)
			close(u->tx_fd[i]);
		u->tx_fd[i] = -1;
	}
	free(u->rx_buf);
	free(u->rx_ctl);
	free(u->tx_buf);
	free(u->tx_ctl);
	u->rx_buf = u->rx_ctl = u->tx_buf = u->tx_ctl = NULL;
}

static void addr_from_sockaddr(struct in6_addr *a, uint16_t *port,
			       const struct sockaddr_in6 *sa)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

	if (sa->sin6_family == AF_INET) {
		memset(a, 0, sizeof(*a));
		a->s6_addr[10] = 0xff;
		a->s6_addr[11] = 0xff;
		a->s6_addr32[3] = s4->sin_addr.s_addr;
		*port = ntohs(s4->sin_port);
	} else {
		*a = sa->sin6_addr;
		*port = ntohs(sa->sin6_port);
	}
}

static void parse_ctl(struct emu_udp *u, struct msghdr *mh,
		      struct emu_udp_pkt *p)
{
	struct cmsghdr *c;
	int v;

	p->ttl = 64;
	p->tos = 0;
	if (!u->any)
		p->dst = u->local;
	else
		memset(&p->dst, 0, sizeof(p->dst));
	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			memset(&p->dst, 0, sizeof(p->dst));
			p->dst.s6_addr[10] = 0xff;
			p->dst.s6_addr[11] = 0xff;
			p->dst.s6_addr32[3] = pi.ipi_addr.s_addr;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			p->dst = pi.ipi6_addr;
		} else if (c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_TTL) {
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			p->ttl = (uint8_t)v;
		} else if (c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_TOS) {
			/* IP_TOS arrives as a single byte. */
			p->tos = *(uint8_t *)CMSG_DATA(c);
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_HOPLIMIT) {
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			p->ttl = (uint8_t)v;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_TCLASS) {
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			p->tos = (uint8_t)v;
		}
	}
}

unsigned int emu_udp_recv(struct emu_udp *u)
{
	unsigned int i;
	int n;

	for (i = 0; i < EMU_UDP_BATCH; i++) {
		struct msghdr *mh = &u->rx_msg[i].msg_hdr;

		u->rx_iov[i].iov_base = u->rx_buf + (size_t)i * EMU_UDP_BUF;
		u->rx_iov[i].iov_len = EMU_UDP_BUF;
		mh->msg_name = &u->rx_name[i];
		mh->msg_namelen = sizeof(u->rx_name[i]);
		mh->msg_iov = &u->rx_iov[i];
		mh->msg_iovlen = 1;
		mh->msg_control = u->rx_ctl + (size_t)i * RX_CTL_LEN;
		mh->msg_controllen = RX_CTL_LEN;
		mh->msg_flags = 0;
	}
	do
		n = recvmmsg(u->rx_fd, u->rx_msg, EMU_UDP_BATCH, MSG_DONTWAIT,
			     NULL);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return 0;
	for (i = 0; i < (unsigned int)n; i++) {
		struct msghdr *mh = &u->rx_msg[i].msg_hdr;
		struct emu_udp_pkt *p = &u->rx_pkt[i];

		p->data = u->rx_iov[i].iov_base;
		p->len = u->rx_msg[i].msg_len;
		p->truncated = mh->msg_flags & MSG_TRUNC;
		if (p->len > EMU_UDP_BUF)
			p->len = EMU_UDP_BUF;
		addr_from_sockaddr(&p->src, &p->sport, &u->rx_name[i]);
		parse_ctl(u, mh, p);
	}
	return (unsigned int)n;
}

uint8_t *emu_udp_tx_buf(struct emu_udp *u)
{
	if (u->tx_n == EMU_UDP_BATCH)
		emu_udp_flush(u);
	return u->tx_buf + (size_t)u->tx_n * EMU_UDP_BUF;
}

/* A source address for a wildcard endpoint goes in as packet info. */
static socklen_t put_src(struct emu_udp *u, unsigned int i,
			 const struct in6_addr *src, bool v4)
{
	uint8_t *ctl = u->tx_ctl + (size_t)i * TX_CTL_LEN;
	struct msghdr mh = { .msg_control = ctl, .msg_controllen = TX_CTL_LEN };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	memset(ctl, 0, TX_CTL_LEN);
	if (v4) {
		struct in_pktinfo pi = { 0 };

		pi.ipi_spec_dst.s_addr = src->s6_addr32[3];
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		return CMSG_SPACE(sizeof(pi));
	} else {
		struct in6_pktinfo pi = { 0 };

		pi.ipi6_addr = *src;
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		return CMSG_SPACE(sizeof(pi));
	}
}

void emu_udp_tx_queue(struct emu_udp *u, unsigned int sock,
		      const struct in6_addr *src, const struct in6_addr *dst,
		      uint16_t dport, uint32_t len)
{
	unsigned int i = u->tx_n;
	struct msghdr *mh = &u->tx_msg[i].msg_hdr;
	bool v4 = IN6_IS_ADDR_V4MAPPED(dst);

	memset(mh, 0, sizeof(*mh));
	memset(&u->tx_name[i], 0, sizeof(u->tx_name[i]));
	if (u->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&u->tx_name[i];

		if (!v4) {
			/* An IPv4 endpoint cannot reach an IPv6 peer. */
			u->tx_dropped++;
			return;
		}
		s4->sin_family = AF_INET;
		s4->sin_port = htons(dport);
		s4->sin_addr.s_addr = dst->s6_addr32[3];
		mh->msg_namelen = sizeof(*s4);
	} else {
		u->tx_name[i].sin6_family = AF_INET6;
		u->tx_name[i].sin6_port = htons(dport);
		u->tx_name[i].sin6_addr = *dst;
		mh->msg_namelen = sizeof(u->tx_name[i]);
	}
	mh->msg_name = &u->tx_name[i];
	u->tx_iov[i].iov_base = u->tx_buf + (size_t)i * EMU_UDP_BUF;
	u->tx_iov[i].iov_len = len;
	mh->msg_iov = &u->tx_iov[i];
	mh->msg_iovlen = 1;
	if (u->any && src) {
		mh->msg_control = u->tx_ctl + (size_t)i * TX_CTL_LEN;
		mh->msg_controllen = put_src(u, i, src,
					     IN6_IS_ADDR_V4MAPPED(src));
	}
	u->tx_sock[i] = (uint8_t)(sock % EMU_UDP_TX_SOCKS);
	u->tx_n++;
}

void emu_udp_flush(struct emu_udp *u)
{
	unsigned int i = 0, j, k;
	int n;

	/* sendmmsg takes one socket: send each run of datagrams that leave
	 * from the same pool socket in one call. */
	while (i < u->tx_n) {
		for (j = i + 1; j < u->tx_n && u->tx_sock[j] == u->tx_sock[i];
		     j++)
			;
		k = i;
		while (k < j) {
			n = sendmmsg(u->tx_fd[u->tx_sock[i]], &u->tx_msg[k],
				     j - k, MSG_DONTWAIT);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				/* Dropped like a lost packet: the reliable
				 * transport retransmits it. */
				u->tx_dropped++;
				k++;
				continue;
			}
			for (n += (int)k; k < (unsigned int)n; k++) {
				u->tx_packets++;
				u->tx_bytes += u->tx_iov[k].iov_len;
			}
		}
		i = j;
	}
	u->tx_n = 0;
}
