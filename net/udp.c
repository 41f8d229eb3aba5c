/* UDP I/O of a RoCEv2 port: io_uring (multishot recvmsg into provided
 * buffers, batched sendmsg) when the kernel allows, else recvmmsg/sendmmsg. */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <time.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <net/if.h>
#include <stdio.h>

#include "net/capture.h"
#include "net/icrc.h"
#include "net/memguard.h"
#include "net/shm.h"
#include "net/udp.h"

/* Room for the ancillary data one datagram may bring: packet info, TTL and
 * TOS (or their IPv6 twins), each a small cmsg. */
#define RX_CTL_LEN	256
#define TX_PKTINFO_LEN	CMSG_SPACE(sizeof(struct in6_pktinfo))
#define TX_CTL_LEN	(TX_PKTINFO_LEN + CMSG_SPACE(sizeof(int)) + \
			 CMSG_SPACE(sizeof(uint16_t)))
/* The ECN bits: ECT(0) on every packet, as RoCE NICs send, and CE where
 * the link model's queue marked one. */
#define ECN_ECT0	0x02
#define ECN_CE		0x03

#ifndef UDP_SEGMENT
#define UDP_SEGMENT	103
#endif
#ifndef UDP_GRO
#define UDP_GRO		104
#endif
/* Segments one GSO send carries at most (the kernel's UDP_MAX_SEGMENTS),
 * and the bytes, under IPv4's largest datagram. */
#define GSO_MAX_SEGS	64
#define GSO_MAX_BYTES	65000

/* A provided receive buffer: what multishot recvmsg writes in it is its
 * header, the source address, the control data, then the datagram. The
 * address room is rounded up so that the control messages that follow
 * are aligned as struct cmsghdr must be. */
#define RX_NAME_LEN	32
#define RX_SLOT	(sizeof(struct io_uring_recvmsg_out) + RX_NAME_LEN + \
		 RX_CTL_LEN + EMU_UDP_BUF)
_Static_assert(sizeof(struct sockaddr_in6) <= RX_NAME_LEN &&
	       (sizeof(struct io_uring_recvmsg_out) + RX_NAME_LEN) % 8 == 0 &&
	       RX_CTL_LEN % 8 == 0 && EMU_UDP_BUF % 8 == 0,
	       "receive slots keep control messages aligned");
#define RX_BGID	0
#define RX_TAG	(~0ull)

struct emu_udp_uring {
	struct io_uring rx;		/* its fd: what the engine watches */
	struct io_uring tx;		/* reaped inline: UDP sends finish at
					 * submission */
	bool rx_init, tx_init;
	struct io_uring_buf_ring *br;
	size_t br_len;
	uint8_t *rx_buf;		/* EMU_UDP_RX_BUFS slots */
	struct msghdr rx_tmpl;		/* name and control sizes */
	bool rx_armed;
	uint16_t held[EMU_UDP_BATCH];	/* buffers of the last batch */
	unsigned int nheld;

	uint8_t *tx_buf;		/* EMU_UDP_TX_BUFS slots */
	struct msghdr tx_msg[EMU_UDP_TX_BUFS];
	struct iovec tx_iov[EMU_UDP_TX_BUFS];
	struct sockaddr_in6 tx_name[EMU_UDP_TX_BUFS];
	uint8_t *tx_ctl;
	uint16_t tx_free[EMU_UDP_TX_BUFS];	/* stack of free slots */
	unsigned int nfree;
	int tx_cur;			/* slot handed out, not yet queued */
	unsigned int tx_queued;		/* prepared, not yet submitted */

	/* GSO: datagrams of one size to one peer, queued one after the
	 * other, join the send that the first of them opened (its slot is
	 * the group's head), as long as it is not yet submitted. */
	bool gso;
	int grp_head, grp_last;		/* slots, -1: no open group */
	unsigned int grp_n, grp_sock;
	uint32_t grp_seg, grp_bytes;
	int16_t grp_next[EMU_UDP_TX_BUFS];	/* the slots of a group */
	struct iovec *gso_iov;		/* [TX_BUFS][GSO_MAX_SEGS] */
};

static int setopt(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val)) ? -errno : 0;
}

/* Socket buffers as deep as a NIC's: the FORCE option passes the system's
 * rmem_max/wmem_max where we have CAP_NET_ADMIN (a stock kernel caps plain
 * requests at about 208 KiB, which a burst overflows while the engine
 * waits for a core); otherwise as much as the caps allow. */
#define EMU_UDP_SNDBUF (4 << 20)
#define EMU_UDP_RCVBUF (16 << 20)

uint64_t emu_udp_rcvbuf(const struct emu_udp *u)
{
	socklen_t len;
	int val = 0;

	len = sizeof(val);
	if (u->rx_fd < 0 ||
	    getsockopt(u->rx_fd, SOL_SOCKET, SO_RCVBUF, &val, &len) ||
	    val < 0)
		return 0;
	return (uint64_t)val;
}

static void deep_buffer(int fd, int force, int plain, int bytes)
{
	if (setopt(fd, SOL_SOCKET, force, bytes))
		setopt(fd, SOL_SOCKET, plain, bytes);
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
	/* ECT(0) on everything sent, IPv4 or IPv6 (a dual-stack socket's
	 * IPv4 datagrams take IP_TOS); the ICRC masks these bits. */
	if (!rc && u->family == AF_INET)
		rc = setopt(fd, IPPROTO_IP, IP_TOS, ECN_ECT0);
	if (!rc && u->family == AF_INET6) {
		rc = setopt(fd, IPPROTO_IPV6, IPV6_TCLASS, ECN_ECT0);
		(void)setopt(fd, IPPROTO_IP, IP_TOS, ECN_ECT0);
	}
	if (!rc && u->family == AF_INET6)
		rc = setopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER,
			    IPV6_PMTUDISC_DO);
	if (!rc && u->family == AF_INET6 && u->any)
		rc = setopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0);
	/* A port tied to an interface sends out of it, as it receives: that
	 * also gives link-local IPv6 peers (fe80::) their scope. */
	if (!rc && u->ifname[0] &&
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, u->ifname,
		       (socklen_t)strlen(u->ifname) + 1))
		rc = -errno;
	if (rc)
		goto fail;
	/* Large enough for a window of full-size packets in one go. */
	deep_buffer(fd, SO_SNDBUFFORCE, SO_SNDBUF, EMU_UDP_SNDBUF);
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

/* ---- io_uring ----------------------------------------------------------- */

static uint8_t *rx_slot(struct emu_udp_uring *ur, unsigned int bid)
{
	return ur->rx_buf + (size_t)bid * RX_SLOT;
}

static void uring_close(struct emu_udp *u)
{
	struct emu_udp_uring *ur = u->ur;

	if (!ur)
		return;
	if (ur->rx_init)
		io_uring_queue_exit(&ur->rx);
	if (ur->tx_init)
		io_uring_queue_exit(&ur->tx);
	if (ur->br)
		munmap(ur->br, ur->br_len);
	free(ur->rx_buf);
	free(ur->tx_buf);
	free(ur->tx_ctl);
	free(ur->gso_iov);
	free(ur);
	u->ur = NULL;
}

static int uring_open(struct emu_udp *u)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE,
		.cq_entries = 4 * EMU_UDP_RX_BUFS,
	};
	struct io_uring_buf_reg reg = { 0 };
	struct emu_udp_uring *ur = calloc(1, sizeof(*ur));
	unsigned int i;
	int rc;

	if (!ur)
		return -ENOMEM;
	u->ur = ur;
	rc = io_uring_queue_init_params(64, &ur->rx, &p);
	if (rc)
		goto fail;
	ur->rx_init = true;
	rc = io_uring_queue_init(EMU_UDP_TX_BUFS, &ur->tx, 0);
	if (rc)
		goto fail;
	ur->tx_init = true;

	/* The buffer ring must be page aligned: mmap gives that. */
	ur->br_len = EMU_UDP_RX_BUFS * sizeof(struct io_uring_buf);
	ur->br = mmap(NULL, ur->br_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ur->br == MAP_FAILED) {
		ur->br = NULL;
		rc = -ENOMEM;
		goto fail;
	}
	ur->rx_buf = malloc((size_t)EMU_UDP_RX_BUFS * RX_SLOT);
	ur->tx_buf = malloc((size_t)EMU_UDP_TX_BUFS * EMU_UDP_BUF);
	ur->tx_ctl = calloc(EMU_UDP_TX_BUFS, TX_CTL_LEN);
	ur->gso_iov = calloc((size_t)EMU_UDP_TX_BUFS * GSO_MAX_SEGS,
			     sizeof(struct iovec));
	if (!ur->rx_buf || !ur->tx_buf || !ur->tx_ctl || !ur->gso_iov) {
		rc = -ENOMEM;
		goto fail;
	}
	reg.ring_addr = (uintptr_t)ur->br;
	reg.ring_entries = EMU_UDP_RX_BUFS;
	reg.bgid = RX_BGID;
	rc = io_uring_register_buf_ring(&ur->rx, &reg, 0);
	if (rc)
		goto fail;
	io_uring_buf_ring_init(ur->br);
	for (i = 0; i < EMU_UDP_RX_BUFS; i++)
		io_uring_buf_ring_add(ur->br, rx_slot(ur, i), RX_SLOT,
				      (unsigned short)i,
				      io_uring_buf_ring_mask(EMU_UDP_RX_BUFS),
				      (int)i);
	io_uring_buf_ring_advance(ur->br, EMU_UDP_RX_BUFS);
	ur->rx_tmpl.msg_namelen = RX_NAME_LEN;
	ur->rx_tmpl.msg_controllen = RX_CTL_LEN;
	for (i = 0; i < EMU_UDP_TX_BUFS; i++)
		ur->tx_free[i] = (uint16_t)i;
	ur->nfree = EMU_UDP_TX_BUFS;
	ur->tx_cur = -1;
	ur->grp_head = -1;
	ur->gso = u->gso;
	return 0;
fail:
	uring_close(u);
	return rc;
}

static struct io_uring_sqe *get_sqe(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe) {
		io_uring_submit(ring);
		sqe = io_uring_get_sqe(ring);
	}
	return sqe;
}

/* Submitted sends are the kernel's: no more segments join them. */
static void tx_submit(struct emu_udp_uring *ur)
{
	io_uring_submit(&ur->tx);
	ur->tx_queued = 0;
	ur->grp_head = -1;
}

/* One multishot recvmsg keeps delivering until the buffers run out. */
static void uring_arm(struct emu_udp *u)
{
	struct emu_udp_uring *ur = u->ur;
	struct io_uring_sqe *sqe = get_sqe(&ur->rx);

	if (!sqe)
		return;
	io_uring_prep_recvmsg_multishot(sqe, u->rx_fd, &ur->rx_tmpl, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = RX_BGID;
	io_uring_sqe_set_data64(sqe, RX_TAG);
	io_uring_submit(&ur->rx);
	ur->rx_armed = true;
}

/* ---- receiving ---------------------------------------------------------- */

static void ipv4_mapped(struct in6_addr *a, uint32_t be)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[10] = 0xff;
	a->s6_addr[11] = 0xff;
	a->s6_addr32[3] = be;
}

static void addr_from_sockaddr(struct in6_addr *a, uint16_t *port,
			       const void *name)
{
	struct sockaddr_in6 sa;
	struct sockaddr_in s4;

	memcpy(&sa, name, sizeof(sa));
	if (sa.sin6_family == AF_INET) {
		memcpy(&s4, name, sizeof(s4));
		ipv4_mapped(a, s4.sin_addr.s_addr);
		*port = ntohs(s4.sin_port);
	} else {
		*a = sa.sin6_addr;
		*port = ntohs(sa.sin6_port);
	}
}

static void pkt_defaults(const struct emu_udp *u, struct emu_udp_pkt *p)
{
	p->ttl = 64;
	p->tos = 0;
	/* A datagram carries its ICRC and is all in our buffer (the same
	 * slots hold ring frames too). */
	p->no_icrc = false;
	p->shared = NULL;
	if (!u->any)
		p->dst = u->local;
	else
		memset(&p->dst, 0, sizeof(p->dst));
}

/* What one control message tells about the datagram. */
static void parse_cmsg(const struct cmsghdr *c, struct emu_udp_pkt *p)
{
	const uint8_t *d = CMSG_DATA(c);
	int v;

	if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
		struct in_pktinfo pi;

		memcpy(&pi, d, sizeof(pi));
		ipv4_mapped(&p->dst, pi.ipi_addr.s_addr);
	} else if (c->cmsg_level == IPPROTO_IPV6 &&
		   c->cmsg_type == IPV6_PKTINFO) {
		struct in6_pktinfo pi;

		memcpy(&pi, d, sizeof(pi));
		p->dst = pi.ipi6_addr;
	} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) {
		memcpy(&v, d, sizeof(v));
		p->ttl = (uint8_t)v;
	} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
		p->tos = d[0];		/* a single byte */
	} else if (c->cmsg_level == IPPROTO_IPV6 &&
		   c->cmsg_type == IPV6_HOPLIMIT) {
		memcpy(&v, d, sizeof(v));
		p->ttl = (uint8_t)v;
	} else if (c->cmsg_level == IPPROTO_IPV6 &&
		   c->cmsg_type == IPV6_TCLASS) {
		memcpy(&v, d, sizeof(v));
		p->tos = (uint8_t)v;
	}
}

static unsigned int uring_recv(struct emu_udp *u)
{
	struct emu_udp_uring *ur = u->ur;
	int mask = io_uring_buf_ring_mask(EMU_UDP_RX_BUFS);
	struct io_uring_cqe *cqe;
	unsigned int i, n = 0;

	/* The previous batch has been dealt with: its buffers go back. */
	for (i = 0; i < ur->nheld; i++)
		io_uring_buf_ring_add(ur->br, rx_slot(ur, ur->held[i]),
				      RX_SLOT, ur->held[i], mask, (int)i);
	io_uring_buf_ring_advance(ur->br, (int)ur->nheld);
	ur->nheld = 0;

	while (ur->nheld < EMU_UDP_BATCH &&
	       !io_uring_peek_cqe(&ur->rx, &cqe)) {
		if (!(cqe->flags & IORING_CQE_F_MORE))
			ur->rx_armed = false;
		if (cqe->res >= 0 && (cqe->flags & IORING_CQE_F_BUFFER)) {
			unsigned int bid =
				cqe->flags >> IORING_CQE_BUFFER_SHIFT;
			uint8_t *b = rx_slot(ur, bid);
			struct io_uring_recvmsg_out *o;
			struct emu_udp_pkt *p = &u->rx_pkt[n];
			struct cmsghdr *c;

			ur->held[ur->nheld++] = (uint16_t)bid;
			o = io_uring_recvmsg_validate(b, cqe->res,
						      &ur->rx_tmpl);
			if (o) {
				pkt_defaults(u, p);
				addr_from_sockaddr(&p->src, &p->sport,
						   io_uring_recvmsg_name(o));
				for (c = io_uring_recvmsg_cmsg_firsthdr(
					     o, &ur->rx_tmpl);
				     c; c = io_uring_recvmsg_cmsg_nexthdr(
					     o, &ur->rx_tmpl, c))
					parse_cmsg(c, p);
				p->data = io_uring_recvmsg_payload(
					o, &ur->rx_tmpl);
				p->len = io_uring_recvmsg_payload_length(
					o, cqe->res, &ur->rx_tmpl);
				p->truncated = o->flags & MSG_TRUNC;
				n++;
			}
		}
		io_uring_cqe_seen(&ur->rx, cqe);
	}
	/* Out of buffers, or ended for another reason: start again (the
	 * datagrams wait in the socket meanwhile). */
	if (!ur->rx_armed)
		uring_arm(u);
	return n;
}

/* The segment size a GRO datagram's control data gives, 0 for none. */
static uint32_t gro_size(struct msghdr *mh)
{
	struct cmsghdr *c;
	int v;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			return v > 0 ? (uint32_t)v : 0;
		}
	return 0;
}

static unsigned int mmsg_recv(struct emu_udp *u)
{
	size_t slot = u->gro ? EMU_UDP_GRO_BUF : EMU_UDP_BUF;
	unsigned int i, k = 0;
	int n;

	for (i = 0; i < EMU_UDP_BATCH; i++) {
		struct msghdr *mh = &u->rx_msg[i].msg_hdr;

		u->rx_iov[i].iov_base = u->rx_buf + (size_t)i * slot;
		u->rx_iov[i].iov_len = slot;
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
		uint8_t *d = u->rx_iov[i].iov_base;
		uint32_t len = u->rx_msg[i].msg_len, seg = gro_size(mh), off;
		struct emu_udp_pkt t;
		struct cmsghdr *c;

		addr_from_sockaddr(&t.src, &t.sport, &u->rx_name[i]);
		pkt_defaults(u, &t);
		for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
			parse_cmsg(c, &t);
		if (len > slot)
			len = (uint32_t)slot;
		if (!seg)
			seg = len ? len : 1;
		if (len > seg)
			u->rx_joined++;
		/* Each segment is a datagram of its own, as the sender
		 * wrote it; only an unjoined one can be cut by the slot. */
		off = 0;
		do {
			struct emu_udp_pkt *p = &u->rx_pkt[k++];

			*p = t;
			p->data = d + off;
			p->len = len - off < seg ? len - off : seg;
			p->truncated = p->len > EMU_UDP_BUF ||
				       (off + p->len == len &&
					(mh->msg_flags & MSG_TRUNC));
			if (p->len > EMU_UDP_BUF)
				p->len = EMU_UDP_BUF;
			off += seg;
		} while (off < len);
	}
	return k;
}

unsigned int emu_udp_recv(struct emu_udp *u)
{
	return u->ur ? uring_recv(u) : mmsg_recv(u);
}

bool emu_udp_recv_any_thread(const struct emu_udp *u)
{
	return !u->ur;
}

/* ---- opening ------------------------------------------------------------ */

int emu_udp_open(struct emu_udp *u, int rx_fd, int family,
		 const struct in6_addr *local, bool any, enum emu_udp_mode mode)
{
	unsigned int i;
	const char *gso;
	int fd;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < EMU_UDP_TX_SOCKS; i++)
		u->tx_fd[i] = -1;
	u->rx_fd = rx_fd;
	u->family = family;
	u->any = any;
	if (local && !any)
		u->local = *local;

	/* The send pool follows the endpoint's tie to an interface. */
	if (any) {
		char name[IFNAMSIZ + 1] = "";
		socklen_t n = IFNAMSIZ;	/* the kernel wants room for all */

		if (!getsockopt(rx_fd, SOL_SOCKET, SO_BINDTODEVICE, name, &n))
			snprintf(u->ifname, sizeof(u->ifname), "%s", name);
	}
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
		/* Kernel rxe sends IPv6 RoCEv2 with UDP checksum 0, which
		 * the ICRC makes redundant; IPv6 drops such datagrams
		 * unless the socket says it takes them. */
		setopt(rx_fd, IPPROTO_UDP, UDP_NO_CHECK6_RX, 1);
	}
	/* The port received datagrams were sent to, for the capture. */
	{
		struct sockaddr_in6 sa;
		socklen_t sl = sizeof(sa);

		if (!getsockname(rx_fd, (struct sockaddr *)&sa, &sl))
			u->port = ntohs(sa.sin6_port);
	}
	/* Bursts of a whole send window must not overflow the default
	 * receive buffer (a loss costs RC a retransmission, UC a message). */
	deep_buffer(rx_fd, SO_RCVBUFFORCE, SO_RCVBUF, EMU_UDP_RCVBUF);

	u->rx_buf = malloc((size_t)EMU_UDP_BATCH * EMU_UDP_GRO_BUF);
	u->rx_ctl = calloc(EMU_UDP_BATCH, RX_CTL_LEN);
	u->tx_buf = malloc((size_t)EMU_UDP_BATCH * EMU_UDP_BUF);
	u->tx_ctl = calloc(EMU_UDP_BATCH, TX_CTL_LEN);
	u->tx_gctl = calloc(EMU_UDP_BATCH, TX_CTL_LEN);
	if (!u->rx_buf || !u->rx_ctl || !u->tx_buf || !u->tx_ctl ||
	    !u->tx_gctl)
		return -ENOMEM;
	for (i = 0; i < EMU_UDP_TX_SOCKS; i++) {
		fd = tx_socket(u, &u->tx_port[i]);
		if (fd < 0)
			return fd;
		u->tx_fd[i] = fd;
	}
	u->uring_wanted = mode == EMU_UDP_URING;
	/* GSO where the kernel has it (4.18 on) and EMUVERBS_GSO is not
	 * "0": setting a socket-wide segment size of 0 is a no-op that
	 * only a kernel with UDP_SEGMENT accepts. */
	gso = getenv("EMUVERBS_GSO");
	u->gso = !(gso && !strcmp(gso, "0")) &&
		 !setopt(u->tx_fd[0], SOL_UDP, UDP_SEGMENT, 0);
	return 0;
}

void emu_udp_start(struct emu_udp *u)
{
	const char *gro = getenv("EMUVERBS_GRO");
	struct io_uring_cqe *cqe;

	/* The rings are made here, on the thread that drives them: the
	 * kernel counts a ring's creator among its tasks and, while a
	 * closed ring winds down, interrupts their blocking calls (EINTR
	 * in the program's own epoll_wait if it made them). io_uring may
	 * be missing or forbidden (old kernels, seccomp in containers):
	 * recvmmsg/sendmmsg then do the same job. */
	if (u->uring_wanted && !u->ur)
		uring_open(u);
	if (u->ur) {
		uring_arm(u);
		/* A kernel without multishot recvmsg (before 6.0) refuses
		 * it at once; then do without io_uring. */
		if (!io_uring_peek_cqe(&u->ur->rx, &cqe) && cqe->res < 0 &&
		    !(cqe->flags & IORING_CQE_F_MORE) &&
		    cqe->res != -ENOBUFS)
			uring_close(u);
	}
	/* recvmmsg takes a GSO send whole, as one datagram (loopback
	 * delivers it unsegmented to a socket with UDP_GRO), and the
	 * kernel joins a burst from the wire: one receive per burst
	 * instead of one per packet. EMUVERBS_GRO=0 turns it off. */
	if (!u->ur && !(gro && !strcmp(gro, "0")))
		u->gro = !setopt(u->rx_fd, SOL_UDP, UDP_GRO, 1);
}

int emu_udp_fd(const struct emu_udp *u)
{
	return u->ur ? u->ur->rx.ring_fd : u->rx_fd;
}

void emu_udp_close(struct emu_udp *u)
{
	unsigned int i;

	if (u->cap)
		emu_udp_cap_attach(u, NULL, 0);
	uring_close(u);
	for (i = 0; i < EMU_UDP_TX_SOCKS; i++) {
		if (u->tx_fd[i] >= 0)
			close(u->tx_fd[i]);
		u->tx_fd[i] = -1;
	}
	free(u->rx_buf);
	free(u->rx_ctl);
	free(u->tx_buf);
	free(u->tx_ctl);
	free(u->tx_gctl);
	u->rx_buf = u->rx_ctl = u->tx_buf = u->tx_ctl = u->tx_gctl = NULL;
}

/* ---- sending ------------------------------------------------------------ */

/* Completed sends give their slots back; with wait, block until one has
 * (UDP sends complete at submission, so that is never long). */
static void uring_reap(struct emu_udp *u, bool wait)
{
	struct emu_udp_uring *ur = u->ur;
	struct io_uring_cqe *cqe;
	unsigned int n;
	int slot;

	if (ur->tx_queued)
		tx_submit(ur);
	for (;;) {
		if (io_uring_peek_cqe(&ur->tx, &cqe)) {
			if (!wait || ur->nfree)
				break;
			if (io_uring_wait_cqe(&ur->tx, &cqe))
				break;
		}
		n = 0;
		for (slot = (int)io_uring_cqe_get_data64(cqe); slot >= 0;
		     slot = ur->grp_next[slot]) {
			ur->tx_free[ur->nfree++] = (uint16_t)slot;
			n++;
		}
		if (cqe->res < 0) {
			/* Dropped like lost packets: the reliable transport
			 * retransmits them. A kernel or device that cannot
			 * segment (EIO: no checksum offload) gets no more
			 * GSO sends. */
			u->tx_dropped += n;
			if (n > 1 && ur->gso) {
				ur->gso = false;
				fprintf(stderr, "emuverbs: UDP GSO send "
					"failed (%s): sending datagram by "
					"datagram\n", strerror(-cqe->res));
			}
		} else {
			u->tx_packets += n;
			u->tx_bytes += (uint64_t)cqe->res;
		}
		io_uring_cqe_seen(&ur->tx, cqe);
	}
}

uint8_t *emu_udp_tx_buf(struct emu_udp *u)
{
	struct emu_udp_uring *ur = u->ur;

	if (ur) {
		if (ur->tx_cur < 0) {
			if (!ur->nfree)
				uring_reap(u, true);
			ur->tx_cur = ur->tx_free[--ur->nfree];
		}
		return ur->tx_buf + (size_t)ur->tx_cur * EMU_UDP_BUF;
	}
	if (u->tx_n == EMU_UDP_BATCH)
		emu_udp_flush(u);
	return u->tx_buf + (size_t)u->tx_n * EMU_UDP_BUF;
}

/* A source address for a wildcard endpoint goes in as packet info. */
static socklen_t put_src(uint8_t *ctl, const struct in6_addr *src)
{
	struct msghdr mh = { .msg_control = ctl, .msg_controllen = TX_CTL_LEN };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	memset(ctl, 0, TX_CTL_LEN);
	if (IN6_IS_ADDR_V4MAPPED(src)) {
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

/* The iovecs of a datagram in parts (emu_udp_tx_queue_parts) into iov;
 * returns how many. A datagram all in its buffer is one. */
static unsigned int put_parts(struct iovec *iov, uint8_t *buf,
			      uint32_t hdr_len, const struct iovec *pay,
			      unsigned int npay, uint32_t tail_len)
{
	unsigned int i, n = 0;

	if (!npay) {
		iov[0] = (struct iovec){ buf, hdr_len + tail_len };
		return 1;
	}
	iov[n++] = (struct iovec){ buf, hdr_len };
	for (i = 0; i < npay; i++)
		if (pay[i].iov_len)
			iov[n++] = pay[i];
	iov[n++] = (struct iovec){ buf + hdr_len, tail_len };
	return n;
}

/* Fill one message header around the niov iovecs at iov; false if the
 * endpoint cannot reach dst. */
static bool fill_msg(struct emu_udp *u, struct msghdr *mh,
		     struct sockaddr_in6 *name, struct iovec *iov,
		     unsigned int niov, uint8_t *ctl,
		     const struct in6_addr *src, const struct in6_addr *dst,
		     uint16_t dport)
{
	bool ce = u->tx_ce;
	uint8_t tclass = u->tx_tclass;

	/* Both are for this datagram, sent or not. */
	u->tx_ce = false;
	u->tx_tclass = 0;
	memset(mh, 0, sizeof(*mh));
	memset(name, 0, sizeof(*name));
	if (u->family == AF_INET) {
		struct sockaddr_in s4 = { .sin_family = AF_INET };

		/* An IPv4 endpoint cannot reach an IPv6 peer. */
		if (!IN6_IS_ADDR_V4MAPPED(dst))
			return false;
		s4.sin_port = htons(dport);
		s4.sin_addr.s_addr = dst->s6_addr32[3];
		memcpy(name, &s4, sizeof(s4));
		mh->msg_namelen = sizeof(s4);
	} else {
		name->sin6_family = AF_INET6;
		name->sin6_port = htons(dport);
		name->sin6_addr = *dst;
		mh->msg_namelen = sizeof(*name);
	}
	mh->msg_name = name;
	mh->msg_iov = iov;
	mh->msg_iovlen = niov;
	if (u->any && src) {
		mh->msg_control = ctl;
		mh->msg_controllen = put_src(ctl, src);
	}
	if (ce || tclass) {
		struct cmsghdr *c;
		int tos = tclass | (ce ? ECN_CE : ECN_ECT0);
		bool v4 = IN6_IS_ADDR_V4MAPPED(dst);

		mh->msg_control = ctl;
		c = (struct cmsghdr *)(ctl + mh->msg_controllen);
		memset(c, 0, CMSG_SPACE(sizeof(tos)));
		c->cmsg_level = v4 ? IPPROTO_IP : IPPROTO_IPV6;
		c->cmsg_type = v4 ? IP_TOS : IPV6_TCLASS;
		c->cmsg_len = CMSG_LEN(sizeof(tos));
		memcpy(CMSG_DATA(c), &tos, sizeof(tos));
		mh->msg_controllen += CMSG_SPACE(sizeof(tos));
	}
	return true;
}

/*
 * Slot i (already filled for its own send) joins the open group as its
 * next segment, if it goes to the same peer from the same socket and
 * fits: true if it did. A segment shorter than the group's size ends it.
 * The kernel numbers the segments' IPv4 identifications 0, 1, 2, ...:
 * segment k's ICRC, made for 0, is moved to k.
 */
static bool gso_join(struct emu_udp *u, unsigned int i, unsigned int sock,
		     uint32_t len)
{
	struct emu_udp_uring *ur = u->ur;
	int h = ur->grp_head;
	struct msghdr *hm, *m = &ur->tx_msg[i];
	struct cmsghdr *c;
	uint8_t *buf, *ctl;
	uint16_t seg;

	if (h < 0 || !ur->gso || sock != ur->grp_sock || len > ur->grp_seg ||
	    ur->grp_n >= GSO_MAX_SEGS ||
	    ur->grp_bytes + len > GSO_MAX_BYTES)
		return false;
	hm = &ur->tx_msg[h];
	if (m->msg_namelen != hm->msg_namelen ||
	    memcmp(m->msg_name, hm->msg_name, m->msg_namelen) ||
	    (m->msg_controllen && !hm->msg_controllen) ||
	    (m->msg_controllen &&
	     memcmp(m->msg_control, hm->msg_control, m->msg_controllen)))
		return false;
	buf = ur->tx_buf + (size_t)i * EMU_UDP_BUF;
	if (u->family == AF_INET ||
	    IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)m->msg_name)
					   ->sin6_addr))
		icrc_put(buf + len - ICRC_LEN,
			 icrc_with_ipv4_id(icrc_get(buf + len - ICRC_LEN), len,
					   (uint16_t)ur->grp_n));
	if (ur->grp_n == 1) {
		/* Two segments make it a GSO send: say the size. */
		ctl = ur->tx_ctl + (size_t)h * TX_CTL_LEN;
		c = (struct cmsghdr *)(ctl + hm->msg_controllen);
		memset(c, 0, CMSG_SPACE(sizeof(seg)));
		c->cmsg_level = SOL_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(seg));
		seg = (uint16_t)ur->grp_seg;
		memcpy(CMSG_DATA(c), &seg, sizeof(seg));
		hm->msg_control = ctl;
		hm->msg_controllen += CMSG_SPACE(sizeof(seg));
	}
	hm->msg_iov[ur->grp_n++] = (struct iovec){ buf, len };
	hm->msg_iovlen = ur->grp_n;
	ur->grp_bytes += len;
	ur->grp_next[ur->grp_last] = (int16_t)i;
	ur->grp_next[i] = -1;
	ur->grp_last = (int)i;
	if (len < ur->grp_seg)
		ur->grp_head = -1;
	ur->tx_cur = -1;
	return true;
}

/* io_uring's datagram in slot i, queued for the kernel: into the
 * capture with the note that was waiting for it. */
static void cap_uring(struct emu_udp *u, unsigned int i, unsigned int sock,
		      uint8_t *buf, uint32_t len, uint16_t ip_id)
{
	struct iovec v = { buf, len };

	emu_udp_cap_tx(u, &u->ur->tx_msg[i], sock, &v, 1, ip_id, u->tx_note);
	u->tx_note = 0;
}

/* The send buffer emu_udp_tx_buf() last handed out, whose datagram is
 * being queued. */
static uint8_t *handed_buf(const struct emu_udp *u)
{
	if (u->ur)
		return u->ur->tx_buf + (size_t)u->ur->tx_cur * EMU_UDP_BUF;
	return u->tx_buf + (size_t)u->tx_n * EMU_UDP_BUF;
}

/* What was set for the datagram being queued (its CE mark, traffic class
 * and capture note) is spent, whether it went or not. */
static void marks_done(struct emu_udp *u)
{
	u->tx_ce = false;
	u->tx_tclass = 0;
	u->tx_note = 0;
}

/* The ICRC of a datagram whose sender left it to a ring, made here: it
 * goes to a socket or into a capture after all. 0 or EFAULT. */
static int seal(const struct emu_udp *u, unsigned int sock,
		const struct in6_addr *src, const struct in6_addr *dst,
		uint16_t dport, uint8_t *buf, uint32_t hdr_len,
		const struct iovec *pay, unsigned int npay, uint32_t tail_len)
{
	uint32_t pay_len = 0, pad = 0;
	unsigned int i;

	for (i = 0; i < npay; i++)
		pay_len += (uint32_t)pay[i].iov_len;
	if (!npay || tail_len < ICRC_LEN) {
		/* All in the buffer, its last 4 bytes the ICRC's. */
		hdr_len += tail_len - ICRC_LEN;
	} else {
		pad = tail_len - ICRC_LEN;
	}
	return icrc_seal(u->any && src ? src : &u->local, dst,
			 u->tx_port[sock], dport, buf, hdr_len, pay, npay,
			 pay_len, pad);
}

bool emu_udp_ring_bound(struct emu_udp *u, const struct in6_addr *dst,
			uint16_t dport)
{
	return u->shm && !u->cap && emu_shm_route(u->shm, dst, dport);
}

/*
 * The datagram as emu_udp_tx_queue_parts got it, into the ring of the
 * peer's channel c: the same bytes, with the source port and traffic
 * class that would have gone in its headers. The send buffer stays the
 * caller's next one.
 */
static void shm_queue(struct emu_udp *u, struct emu_shm_chan *c,
		      unsigned int sock, const struct in6_addr *src,
		      const struct in6_addr *dst, uint16_t dport, uint8_t *buf,
		      uint32_t hdr_len, const struct iovec *pay,
		      unsigned int npay, uint32_t tail_len, uint32_t len)
{
	struct iovec iov[EMU_UDP_TX_IOV];
	unsigned int niov = put_parts(iov, buf, hdr_len, pay, npay, tail_len);
	uint8_t tos = u->tx_tclass | (u->tx_ce ? ECN_CE : ECN_ECT0);
	uint8_t flags = u->tx_unsealed ? EMU_SHM_F_NO_ICRC : 0;
	int rc = 0;

	u->tx_unsealed = false;
	/* A capture shows the datagram with its ICRC: made now if the
	 * sender left it to the ring. */
	if (flags && u->cap) {
		rc = seal(u, sock, src, dst, dport, buf, hdr_len, pay, npay,
			  tail_len);
		flags = 0;
	}
	if (!rc)
		rc = emu_shm_put(c, iov, niov, len, u->tx_port[sock], tos,
				 flags);
	if (rc) {
		/* A full ring is a peer that stopped reading: lost, as a
		 * datagram its socket had no room for (the channel counts
		 * it too, as ring_full). */
		u->tx_dropped++;
	} else {
		u->tx_packets++;
		u->tx_bytes += len;
	}
	if (u->cap && !rc) {
		/* What the capture sees is the datagram it stands for. */
		struct sockaddr_in6 name;
		struct msghdr mh;
		uint8_t ctl[TX_CTL_LEN];

		fill_msg(u, &mh, &name, iov, niov, ctl, src, dst, dport);
		emu_udp_cap_tx(u, &mh, sock, iov, niov, 0, u->tx_note);
	}
	marks_done(u);
}

void emu_udp_tx_queue_parts(struct emu_udp *u, unsigned int sock,
			    const struct in6_addr *src,
			    const struct in6_addr *dst, uint16_t dport,
			    uint32_t hdr_len, const struct iovec *pay,
			    unsigned int npay, uint32_t tail_len)
{
	struct emu_udp_uring *ur = u->ur;
	unsigned int i, at, niov;
	uint8_t *buf;
	uint32_t len = hdr_len + tail_len;

	sock %= EMU_UDP_TX_SOCKS;
	for (i = 0; i < npay; i++)
		len += (uint32_t)pay[i].iov_len;
	if (u->shm) {
		struct emu_shm_chan *c = emu_shm_route(u->shm, dst, dport);

		if (c) {
			shm_queue(u, c, sock, src, dst, dport, handed_buf(u),
				  hdr_len, pay, npay, tail_len, len);
			return;
		}
	}
	if (u->tx_unsealed) {
		/* Meant for a ring that has gone since (its peer died while
		 * the link held this): sealed for the socket. */
		u->tx_unsealed = false;
		if (seal(u, sock, src, dst, dport, handed_buf(u), hdr_len, pay,
			 npay, tail_len)) {
			u->tx_dropped++;
			marks_done(u);
			return;
		}
	}
	if (ur) {
		struct io_uring_sqe *sqe;

		i = (unsigned int)ur->tx_cur;
		buf = ur->tx_buf + (size_t)i * EMU_UDP_BUF;
		/* The kernel reads the data when it gets to the request, so
		 * nothing outside the buffer may be left to change. A piece
		 * of a region whose page the application has unmapped since
		 * its ICRC was made loses the datagram, as a lost packet. */
		if (npay) {
			uint8_t *d = buf + hdr_len;

			memmove(d + (len - hdr_len - tail_len), d, tail_len);
			for (at = 0; at < npay; at++) {
				if (pay[at].iov_len &&
				    emu_guard_copy(d, pay[at].iov_base,
						   pay[at].iov_len)) {
					u->tx_dropped++;
					u->tx_note = 0;
					return;	/* the slot stays handed out */
				}
				d += pay[at].iov_len;
			}
		}
		ur->tx_iov[i] = (struct iovec){ buf, len };
		if (!fill_msg(u, &ur->tx_msg[i], &ur->tx_name[i],
			      &ur->tx_iov[i], 1,
			      ur->tx_ctl + (size_t)i * TX_CTL_LEN, src, dst,
			      dport)) {
			u->tx_dropped++;
			u->tx_note = 0;
			return;		/* the slot stays handed out */
		}
		if (gso_join(u, i, sock, len)) {
			/* Segment grp_n - 1 of its send: that is its IPv4
			 * identification. */
			if (u->cap)
				cap_uring(u, i, sock, buf, len,
					  (uint16_t)(ur->grp_n - 1));
			return;
		}
		ur->grp_next[i] = -1;
		if (ur->gso) {
			/* Open a group: later segments add iovecs here. */
			struct iovec *v = ur->gso_iov + (size_t)i * GSO_MAX_SEGS;

			v[0] = ur->tx_iov[i];
			ur->tx_msg[i].msg_iov = v;
			ur->grp_head = ur->grp_last = (int)i;
			ur->grp_n = 1;
			ur->grp_sock = sock;
			ur->grp_seg = len;
			ur->grp_bytes = len;
		}
		sqe = get_sqe(&ur->tx);
		if (!sqe) {
			u->tx_dropped++;
			u->tx_note = 0;
			return;
		}
		io_uring_prep_sendmsg(sqe, u->tx_fd[sock], &ur->tx_msg[i],
				      MSG_DONTWAIT);
		io_uring_sqe_set_data64(sqe, i);
		ur->tx_cur = -1;
		ur->tx_queued++;
		if (u->cap)
			cap_uring(u, i, sock, buf, len, 0);
		return;
	}
	i = u->tx_n;
	at = u->tx_iov_at[i];
	buf = u->tx_buf + (size_t)i * EMU_UDP_BUF;
	niov = put_parts(u->tx_iov + at, buf, hdr_len, pay, npay, tail_len);
	if (!fill_msg(u, &u->tx_msg[i].msg_hdr, &u->tx_name[i],
		      u->tx_iov + at, niov, u->tx_ctl + (size_t)i * TX_CTL_LEN,
		      src, dst, dport)) {
		u->tx_dropped++;
		u->tx_note = 0;
		return;
	}
	u->tx_len[i] = len;
	u->tx_iov_at[i + 1] = (uint16_t)(at + niov);
	u->tx_sock[i] = (uint8_t)sock;
	if (u->cap) {
		/* Written at flush, when the GSO sends are known. */
		u->tx_notes[i] = u->tx_note;
		u->tx_note = 0;
	}
	u->tx_n++;
}

void emu_udp_tx_queue(struct emu_udp *u, unsigned int sock,
		      const struct in6_addr *src, const struct in6_addr *dst,
		      uint16_t dport, uint32_t len)
{
	emu_udp_tx_queue_parts(u, sock, src, dst, dport, len, NULL, 0, 0);
}

bool emu_udp_tx_pending(const struct emu_udp *u)
{
	if (emu_shm_pending(u->shm))
		return true;
	return u->ur ? u->ur->tx_queued > 0 : u->tx_n > 0;
}

unsigned int emu_udp_recv_shm(struct emu_udp *u, bool in_place)
{
	if (in_place)
		return emu_shm_recv_shared(u->shm, u->rx_pkt, EMU_UDP_BATCH,
					   &u->local);
	return emu_shm_recv(u->shm, u->rx_pkt, EMU_UDP_BATCH, &u->local);
}

/* Whether message m of the batch can follow message k's run as one more
 * GSO segment: same peer, same control data, no longer than the run's
 * size, which every segment but the last has. */
static bool mmsg_joins(const struct emu_udp *u, unsigned int k,
		       unsigned int m, uint32_t bytes)
{
	const struct msghdr *a = &u->tx_msg[k].msg_hdr,
			    *b = &u->tx_msg[m].msg_hdr;

	return m - k < GSO_MAX_SEGS &&
	       u->tx_len[m - 1] == u->tx_len[k] &&
	       u->tx_len[m] <= u->tx_len[k] &&
	       bytes + u->tx_len[m] <= GSO_MAX_BYTES &&
	       a->msg_namelen == b->msg_namelen &&
	       !memcmp(a->msg_name, b->msg_name, a->msg_namelen) &&
	       a->msg_controllen == b->msg_controllen &&
	       (!a->msg_controllen ||
		!memcmp(a->msg_control, b->msg_control, a->msg_controllen));
}

/* Messages k..m-1 as one GSO send into slot g of tx_gmsg: their iovecs in
 * a row, UDP_SEGMENT added to the control data, and each segment's
 * ICRC moved to the IPv4 identification the kernel will give it. */
static void mmsg_gso(struct emu_udp *u, unsigned int g, unsigned int k,
		     unsigned int m)
{
	struct msghdr *h = &u->tx_gmsg[g].msg_hdr;
	uint8_t *ctl = u->tx_gctl + (size_t)g * TX_CTL_LEN;
	uint16_t seg = (uint16_t)u->tx_len[k];
	struct cmsghdr *c;
	unsigned int t;
	bool v4 = u->family == AF_INET ||
		  IN6_IS_ADDR_V4MAPPED(&u->tx_name[k].sin6_addr);

	*h = u->tx_msg[k].msg_hdr;
	h->msg_iovlen = (size_t)(u->tx_iov_at[m] - u->tx_iov_at[k]);
	u->tx_gsegs[g] = (uint8_t)(m - k);
	u->tx_gfirst[g] = (uint8_t)k;
	if (m - k == 1)
		return;
	memset(ctl, 0, TX_CTL_LEN);
	if (h->msg_controllen)
		memcpy(ctl, h->msg_control, h->msg_controllen);
	c = (struct cmsghdr *)(ctl + h->msg_controllen);
	c->cmsg_level = SOL_UDP;
	c->cmsg_type = UDP_SEGMENT;
	c->cmsg_len = CMSG_LEN(sizeof(seg));
	memcpy(CMSG_DATA(c), &seg, sizeof(seg));
	h->msg_control = ctl;
	h->msg_controllen += CMSG_SPACE(sizeof(seg));
	/* A datagram's ICRC ends its last iovec, which is in its buffer. */
	for (t = 1; v4 && t < m - k; t++) {
		const struct iovec *e = &u->tx_iov[u->tx_iov_at[k + t + 1] - 1];
		uint8_t *c4 = (uint8_t *)e->iov_base + e->iov_len - ICRC_LEN;

		icrc_put(c4, icrc_with_ipv4_id(icrc_get(c4), u->tx_len[k + t],
					       (uint16_t)t));
	}
}

/* The datagrams of send g into the capture: segment t of a GSO send has
 * IPv4 identification t. A send the kernel refused is there too, noted,
 * unless it refused it for a payload page that is gone (EFAULT): the
 * capture would read that page too. */
static void cap_mmsg(struct emu_udp *u, unsigned int g, unsigned int sock,
		     int err)
{
	unsigned int t, k = u->tx_gfirst[g];

	if (err == EFAULT)
		return;

	for (t = 0; t < u->tx_gsegs[g]; t++, k++) {
		uint32_t note = u->tx_notes[k];

		if (err)
			note = emu_cap_note(u->cap, "not sent: the kernel "
					    "refused it (%s)", strerror(err));
		emu_udp_cap_tx(u, &u->tx_msg[k].msg_hdr, sock,
			       u->tx_iov + u->tx_iov_at[k],
			       (unsigned int)(u->tx_iov_at[k + 1] -
					      u->tx_iov_at[k]),
			       (uint16_t)t, note);
	}
}

/* Send tx_gmsg[0..ng) from pool socket sock; the ICRCs are final by now. */
static void mmsg_send(struct emu_udp *u, unsigned int sock, unsigned int ng)
{
	int fd = u->tx_fd[sock];
	unsigned int g = 0, t;
	int n;

	while (g < ng) {
		n = sendmmsg(fd, &u->tx_gmsg[g], ng - g, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : EAGAIN;

			if (u->cap)
				cap_mmsg(u, g, sock, err);
			/* Dropped like lost packets: the reliable transport
			 * retransmits them. A kernel or device that cannot
			 * segment (EIO) gets no more GSO sends; EFAULT is a
			 * payload page the application unmapped after the
			 * ICRC was made, not the segmentation's fault. */
			u->tx_dropped += u->tx_gsegs[g];
			if (u->tx_gsegs[g] > 1 && u->gso && err != EFAULT) {
				u->gso = false;
				fprintf(stderr, "emuverbs: UDP GSO send failed "
					"(%s): sending datagram by datagram\n",
					strerror(err));
			}
			g++;
			continue;
		}
		for (n += (int)g; g < (unsigned int)n; g++) {
			if (u->cap)
				cap_mmsg(u, g, sock, 0);
			u->tx_packets += u->tx_gsegs[g];
			for (t = 0; t < u->tx_gmsg[g].msg_hdr.msg_iovlen; t++)
				u->tx_bytes +=
					u->tx_gmsg[g].msg_hdr.msg_iov[t].iov_len;
		}
	}
}

static void mmsg_flush(struct emu_udp *u)
{
	unsigned int i = 0, j, k, m, ng;
	uint32_t bytes;

	/* sendmmsg takes one socket: send each run of datagrams that leave
	 * from the same pool socket in one call, a GSO send for each run of
	 * those that go to one peer at one size. */
	while (i < u->tx_n) {
		for (j = i + 1; j < u->tx_n && u->tx_sock[j] == u->tx_sock[i];
		     j++)
			;
		for (k = i, ng = 0; k < j; k = m, ng++) {
			bytes = u->tx_len[k];
			for (m = k + 1; u->gso && m < j &&
			     mmsg_joins(u, k, m, bytes); m++)
				bytes += u->tx_len[m];
			mmsg_gso(u, ng, k, m);
		}
		mmsg_send(u, u->tx_sock[i], ng);
		i = j;
	}
	u->tx_n = 0;
}

void emu_udp_flush(struct emu_udp *u)
{
	struct timespec ts;

	/* Frames in rings are out already: their sleeping peers are
	 * woken. */
	emu_shm_flush(u->shm);
	if (u->ur)
		uring_reap(u, false);
	else
		mmsg_flush(u);
	/* When it left, for a retransmission timer that must not count
	 * the time a datagram waited here for a CPU (emu/transport/comp.c). */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	u->flushes++;
	u->flush_end[u->flushes % EMU_UDP_FLUSH_LOG] =
		(uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t emu_udp_left_by(const struct emu_udp *u, uint64_t gen)
{
	uint64_t n = gen + 1;

	if (u->flushes < n)
		return 0;
	if (u->flushes - n >= EMU_UDP_FLUSH_LOG)
		return 1;
	return u->flush_end[n % EMU_UDP_FLUSH_LOG];
}
