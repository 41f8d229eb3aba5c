/* UDP I/O of one RoCEv2 port: batched receives on the endpoint socket and
 * batched sends through a small pool of source-port sockets (flow entropy). */
#ifndef NET_UDP_H
#define NET_UDP_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

struct emu_cap;
struct emu_shm;

/* Send sockets per port; a QP picks one by QPN hash, so its packets leave
 * from a stable UDP source port and flows spread over several. */
#define EMU_UDP_TX_SOCKS	8
/* Datagrams moved per recvmmsg/sendmmsg call. */
#define EMU_UDP_BATCH		32
/* Largest datagram handled: 4096 bytes of payload at the largest MTU plus
 * the longest header stack, pad and ICRC, rounded up. A bigger one is
 * reported truncated. */
#define EMU_UDP_BUF		4224

/* What one full-size datagram costs a receiving socket's buffer (the
 * kernel's skb truesize): its EMU_UDP_BUF bytes and headers land in an
 * 8 KiB allocation, plus the sk_buff itself. Measured on loopback: a
 * 32 MiB buffer holds 3971 datagrams of 4200 bytes, 8450 bytes each. */
#define EMU_UDP_TRUESIZE	8704

/* With UDP GRO (mmsg I/O), one received datagram may carry up to 64
 * segments of one size, up to the largest UDP payload: each receive slot
 * holds that much, and the batch as many packets as its slots could. */
#define EMU_UDP_GRO_BUF		65536
#define EMU_UDP_RX_PKTS		(EMU_UDP_BATCH * 64)

/* Receive buffers the kernel fills with io_uring's multishot recvmsg, and
 * send buffers in flight at most, per port. */
#define EMU_UDP_RX_BUFS		256
#define EMU_UDP_TX_BUFS		256

/* Pieces of payload one datagram may reference outside its send buffer
 * (emu_udp_tx_queue_parts), and the iovecs a queued datagram takes: the
 * buffer's head, those pieces, the buffer's tail. */
#define EMU_UDP_TX_PIECES	6
#define EMU_UDP_TX_IOV		(EMU_UDP_TX_PIECES + 2)

enum emu_udp_mode {
	EMU_UDP_URING,		/* io_uring where the kernel allows, else mmsg */
	EMU_UDP_MMSG,		/* recvmmsg/sendmmsg only */
};

/* One received datagram, valid until the next emu_udp_recv() call. */
struct emu_udp_pkt {
	uint8_t *data;
	uint32_t len;
	bool truncated;		/* longer than EMU_UDP_BUF: cut */
	struct in6_addr src;	/* IPv4 kept v4-mapped */
	struct in6_addr dst;	/* the local address it was sent to */
	uint16_t sport;		/* host order */
	uint8_t ttl;		/* IPv4 TTL or IPv6 hop limit */
	uint8_t tos;		/* IPv4 TOS or IPv6 traffic class */
	/* From a ring, without its ICRC (net/shm.h, EMU_SHM_F_NO_ICRC):
	 * the last 4 bytes are not one. */
	bool no_icrc;
	/* From a ring and read in place: data holds a copy of the first
	 * EMU_SHM_HDR_COPY bytes (every header), the payload is read from
	 * here, the frame in the ring, until the batch is done. */
	const uint8_t *shared;
};

/* io_uring state (net/udp.c). */
struct emu_udp_uring;

#define EMU_UDP_FLUSH_LOG	16

struct emu_udp {
	struct emu_udp_uring *ur;	/* io_uring in use, else NULL */
	bool uring_wanted;		/* emu_udp_start tries io_uring */
	bool gso;			/* the send sockets take UDP_SEGMENT */
	bool gro;			/* the endpoint socket has UDP_GRO on */
	int rx_fd;			/* the endpoint socket (not owned) */
	int family;			/* AF_INET or AF_INET6 */
	bool any;			/* endpoint bound to the wildcard */
	struct in6_addr local;		/* its address when not any */
	char ifname[16];		/* interface the endpoint is tied to */
	int tx_fd[EMU_UDP_TX_SOCKS];
	uint16_t tx_port[EMU_UDP_TX_SOCKS];	/* host order */

	/* Receive batch: buffers and headers allocated once. */
	uint8_t *rx_buf;
	struct mmsghdr rx_msg[EMU_UDP_BATCH];
	struct iovec rx_iov[EMU_UDP_BATCH];
	struct sockaddr_in6 rx_name[EMU_UDP_BATCH];
	uint8_t *rx_ctl;
	struct emu_udp_pkt rx_pkt[EMU_UDP_RX_PKTS];

	/* Send batch, flushed when full or by emu_udp_flush(). */
	uint8_t *tx_buf;
	unsigned int tx_n;
	struct mmsghdr tx_msg[EMU_UDP_BATCH];
	/* Datagram i's iovecs are tx_iov[tx_iov_at[i] .. tx_iov_at[i + 1]),
	 * so a run of datagrams is one run of iovecs (a GSO send). */
	struct iovec tx_iov[EMU_UDP_BATCH * EMU_UDP_TX_IOV];
	uint16_t tx_iov_at[EMU_UDP_BATCH + 1];
	uint32_t tx_len[EMU_UDP_BATCH];		/* datagram i's bytes */
	struct sockaddr_in6 tx_name[EMU_UDP_BATCH];
	uint8_t *tx_ctl;
	uint8_t tx_sock[EMU_UDP_BATCH];
	/* The batch as sent: runs to one peer joined into GSO sends. */
	struct mmsghdr tx_gmsg[EMU_UDP_BATCH];
	uint8_t tx_gsegs[EMU_UDP_BATCH];
	uint8_t *tx_gctl;

	bool tx_ce;			/* the next datagram queued: CE */
	/* The next datagram queued has no ICRC yet (its sender expected a
	 * ring): a ring takes it so, a socket after sealing it here. */
	bool tx_unsealed;
	uint8_t tx_tclass;		/* ... and its traffic class */
	uint64_t tx_packets, tx_bytes, tx_dropped;
	uint64_t rx_joined;		/* GRO datagrams of several packets */

	/* Capture (net/udp_cap.c): NULL while none runs, which is all the
	 * send and receive paths test. */
	struct emu_cap *cap;
	uint32_t cap_iface;		/* the port's interface number */
	uint32_t tx_note;		/* the next one queued: its note */
	uint32_t tx_notes[EMU_UDP_BATCH];	/* of each one queued */
	/* tx_gmsg[g]'s first datagram in tx_msg. */
	uint8_t tx_gfirst[EMU_UDP_BATCH];
	uint16_t port;			/* the endpoint's UDP port */
	/* Flushes so far, and when the last EMU_UDP_FLUSH_LOG of them ended
	 * (CLOCK_MONOTONIC ns, by number modulo the log): a datagram queued
	 * after flush n had left by the end of flush n + 1. */
	uint64_t flushes;
	uint64_t flush_end[EMU_UDP_FLUSH_LOG];

	/* The shared-memory wire (net/shm.h), NULL when the port uses UDP
	 * alone: a datagram to a peer it reaches goes into that peer's ring
	 * instead of a socket, as the same bytes. Not owned. */
	struct emu_shm *shm;
};

/* Set up the I/O of an endpoint socket: receive options on rx_fd, the send
 * pool bound to the same address (IP_PMTUDISC_DO: DF set, IPv4 ID 0), the
 * batch buffers. local is the endpoint address (ignored when any). 0 or a
 * negative errno; emu_udp_close() undoes a partial open. */
int emu_udp_open(struct emu_udp *u, int rx_fd, int family,
		 const struct in6_addr *local, bool any,
		 enum emu_udp_mode mode);
void emu_udp_close(struct emu_udp *u);
/* On the thread that will call everything else (the engine): start
 * receiving. With io_uring, requests belong to the thread that made them,
 * so this must not run elsewhere. Falls back to mmsg if the kernel turns
 * the multishot receive down. */
void emu_udp_start(struct emu_udp *u);
/* The descriptor that becomes readable when emu_udp_recv() has work:
 * the io_uring's, or the endpoint socket. Valid after emu_udp_start(). */
int emu_udp_fd(const struct emu_udp *u);

/* The endpoint socket's receive buffer in bytes, as the kernel grants it
 * (SO_RCVBUF: twice what was asked, within the limits); 0 if unknown. */
uint64_t emu_udp_rcvbuf(const struct emu_udp *u);

/* Receive up to EMU_UDP_BATCH datagrams without blocking, each split into
 * the packets a GRO datagram joined; returns how many packets
 * (u->rx_pkt[0..n)), 0 when none is waiting. */
unsigned int emu_udp_recv(struct emu_udp *u);
/* Whether emu_udp_recv() may be called from a thread other than the one
 * that started the port (serialised with it): with mmsg, yes; io_uring's
 * receive completions are made by the starting thread's task work, and a
 * multishot receive re-armed elsewhere would belong to that thread. */
bool emu_udp_recv_any_thread(const struct emu_udp *u);

/* The buffer for the next datagram to send (EMU_UDP_BUF bytes); a full
 * batch is flushed first, so this never fails. */
uint8_t *emu_udp_tx_buf(struct emu_udp *u);
/* Queue the buffer last returned by emu_udp_tx_buf(): len bytes from pool
 * socket sock to dst:dport. src is the source address to use when the
 * endpoint is a wildcard (NULL: the kernel's choice). */
void emu_udp_tx_queue(struct emu_udp *u, unsigned int sock,
		      const struct in6_addr *src, const struct in6_addr *dst,
		      uint16_t dport, uint32_t len);
/*
 * The same for a datagram whose payload stays where it is: the buffer's
 * first hdr_len bytes, then the npay (<= EMU_UDP_TX_PIECES) pieces at pay,
 * then tail_len bytes of the buffer from hdr_len on, whose last 4 are the
 * ICRC. With mmsg the pieces are referenced, not copied, and must stay
 * as they are until the next emu_udp_flush(); io_uring sends later than
 * that, so there they are copied into the buffer.
 */
void emu_udp_tx_queue_parts(struct emu_udp *u, unsigned int sock,
			    const struct in6_addr *src,
			    const struct in6_addr *dst, uint16_t dport,
			    uint32_t hdr_len, const struct iovec *pay,
			    unsigned int npay, uint32_t tail_len);
/* The next datagram queued carries CE (congestion experienced) in its
 * ECN bits instead of ECT(0), which every other one carries. */
static inline void emu_udp_tx_mark_ce(struct emu_udp *u)
{
	u->tx_ce = true;
}

/* The next datagram queued carries traffic class tclass in its IPv4 TOS
 * or IPv6 traffic class, where the others carry 0: its DSCP, that is, for
 * the low two bits are ECN's (ECT(0), or CE as above) whatever tclass
 * says, as a RoCE NIC marks them. */
static inline void emu_udp_tx_tclass(struct emu_udp *u, uint8_t tclass)
{
	u->tx_tclass = tclass & 0xfc;
}

/* Receive up to EMU_UDP_BATCH frames from the shared-memory wire's rings
 * into u->rx_pkt, as emu_udp_recv() does datagrams: how many. Any thread
 * serialised with the rest may call it. in_place: payloads are read from
 * the rings (net/shm.h, emu_shm_recv_shared) until emu_shm_release. */
unsigned int emu_udp_recv_shm(struct emu_udp *u, bool in_place);

/* Whether a datagram to dst:dport goes into a ring now. */
bool emu_udp_ring_bound(struct emu_udp *u, const struct in6_addr *dst,
			uint16_t dport);

/* Something queued and not yet sent. */
bool emu_udp_tx_pending(const struct emu_udp *u);
/* Send what is queued. A datagram the kernel refuses is counted in
 * tx_dropped: the transports above recover as from a loss. */
void emu_udp_flush(struct emu_udp *u);
/* The time by which whatever was queued after flush number gen had been
 * handed to the kernel, while the flush that took it is among the last
 * EMU_UDP_FLUSH_LOG; 0 while it has not happened yet, 1 when it is older
 * than the log remembers. */
uint64_t emu_udp_left_by(const struct emu_udp *u, uint64_t gen);

/* Capture (net/udp_cap.c). Attach c to the port (a reference is taken;
 * NULL detaches, dropping it): from then on what the port sends and
 * receives is written to c as interface iface. Engine thread. */
void emu_udp_cap_attach(struct emu_udp *u, struct emu_cap *c, uint32_t iface);
/* A datagram sent (mh as sendmsg got it, from pool socket sock; the niov
 * pieces at iov) as IPv4 identification ip_id. */
void emu_udp_cap_tx(struct emu_udp *u, const struct msghdr *mh,
		    unsigned int sock, const struct iovec *iov,
		    unsigned int niov, uint16_t ip_id, uint32_t note);
/* A datagram received, as recvmsg gave it. */
void emu_udp_cap_rx(struct emu_udp *u, const struct emu_udp_pkt *p,
		    uint32_t note);
/* A datagram that never reached the socket (a fault rule or the link's
 * queue dropped it), as emu_udp_tx_queue_parts would have taken it, with
 * the traffic class it would have gone with. */
void emu_udp_cap_unsent(struct emu_udp *u, unsigned int sock,
			const struct in6_addr *src, const struct in6_addr *dst,
			uint16_t dport, uint8_t tclass, const uint8_t *buf,
			uint32_t hdr_len,
			const struct iovec *pay, unsigned int npay,
			uint32_t tail_len, uint32_t note);

/* The pool socket for a flow key (the QPN) and its source port. */
static inline unsigned int emu_udp_sock_for(uint32_t key)
{
	key ^= key >> 13;
	key *= 0x9e3779b1u;
	return (key >> 16) % EMU_UDP_TX_SOCKS;
}

static inline uint16_t emu_udp_sport(const struct emu_udp *u,
				     unsigned int sock)
{
	return u->tx_port[sock];
}

#endif
