/* cm/rs.h: what the rsockets files share: the socket object, the table
 * from socket numbers to sockets, progress and waiting, and the wire
 * format of emuverbs' rsocket protocol (doc/rsockets.md). */
#ifndef CM_RS_H
#define CM_RS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cm/cm.h"
#include "emu/base/log.h"

#define rs_log(...) emu_log(EMU_LOG_CM, "rsocket: " __VA_ARGS__)
/* A refusal: logs why, evaluates to -1 with errno = err. */
#define rs_refuse(err, ...) (rs_log(__VA_ARGS__), cm_err(err))

/* ---- The stream protocol's wire format */

/*
 * Every message is a SEND with immediate data: the top four bits of the
 * immediate say what it is, the rest return receive credits. DATA and
 * IOMAP carry a payload and use one of the peer's advertised buffers;
 * CREDIT and FIN carry none and use the few buffers held back for them.
 */
#define RS_MSG_SHIFT	28
#define RS_CREDIT_MASK	((1u << RS_MSG_SHIFT) - 1)
enum rs_msg {
	RS_MSG_DATA = 1,
	RS_MSG_CREDIT = 2,
	RS_MSG_FIN = 3,
	RS_MSG_IOMAP = 4,
};

#define RS_MAGIC	0x65525331u	/* "eRS1" */
#define RS_VERSION	1

/* In the CM REQ and REP private data, all fields big-endian. */
struct rs_conn_data {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved;
	uint32_t credits;	/* receive buffers the peer may fill */
	uint32_t seg;		/* bytes each of them holds */
	uint32_t iomaps;	/* windows of the peer's the sender can hold */
};

/* An IOMAP message's payload, big-endian: a window riowrite may write. */
struct rs_iomap_msg {
	uint64_t offset;
	uint64_t addr;
	uint64_t len;
	uint32_t rkey;
	uint32_t reserved;
};

/* A datagram's header, ahead of its payload: who sent it. */
struct rs_dgram_hdr {
	uint8_t version;
	uint8_t family;		/* 4 or 6 */
	uint16_t port;		/* big-endian */
	uint8_t addr[16];
};

/* Buffers held back for CREDIT and FIN messages. */
#define RS_CTRL_RECVS	4
#define RS_SEG		(32 * 1024)
#define RS_DEF_BUF	(256 * 1024)
#define RS_MIN_SLOTS	2
#define RS_MAX_SLOTS	512
#define RS_DEF_INLINE	64

/* ---- The socket */

enum rs_state {
	RS_NEW,			/* created, maybe bound */
	RS_LISTENING,
	RS_RESOLVING,		/* rconnect: address and route */
	RS_CONNECTING,		/* REQ sent */
	RS_ACCEPTING,		/* REP sent, RTU not seen */
	RS_CONNECTED,
	RS_CLOSED,		/* disconnected: reads drain, writes fail */
	RS_FAILED,		/* connect failed or the QP broke */
};

struct rs_map {
	uint64_t offset, len;
	uint64_t addr;		/* local buffer, or the peer's */
	uint32_t rkey;
	struct ibv_mr *mr;	/* local windows only */
	bool used;
};

struct rs_rx {			/* a received DATA segment */
	uint32_t slot, len, off;
};

struct rs_dest;

struct rs {
	int fd;			/* socket number: the CM channel's fd */
	int type;		/* SOCK_STREAM or SOCK_DGRAM */
	int domain;
	pthread_mutex_t lock;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	enum rs_state state;
	int err;		/* pending SO_ERROR */
	int fl;			/* F_GETFL: O_NONBLOCK */
	bool bound;

	/* Options, applied when the connection's resources are made. */
	int sndbuf, rcvbuf;
	uint32_t sq_size, rq_size, inline_size, iomap_size;
	int opt_nodelay, opt_keepalive, opt_reuse, opt_oobinline;
	int opt_keepidle, opt_v6only;
	struct linger linger;

	/* The queues. */
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *sbuf, *rbuf;
	struct ibv_mr *smr, *rmr;
	uint32_t seg;		/* bytes per slot */
	uint32_t nsend, nrecv;	/* slots */
	uint32_t *free_slots;	/* stack of free send slots */
	uint32_t nfree;
	uint32_t sq_depth, sq_out;
	uint32_t max_inline;

	/* Stream: credits and the received data, in order. */
	uint32_t credits;	/* peer buffers this side may fill */
	uint32_t owed;		/* buffers reposted, not yet told */
	uint32_t peer_seg;
	struct rs_rx *rxq;	/* ring of nrecv */
	uint32_t rx_head, rx_count;
	bool fin_rcvd, fin_sent, shut_rd, shut_wr;
	/* riomap windows: ours, as many as the peer's RDMA_IOMAPSIZE
	 * allows, and the peer's, as many as ours. */
	struct rs_map *lmaps, *rmaps;
	uint32_t nlmaps, nrmaps;

	/* Listening: connect requests not yet taken by raccept. */
	struct rdma_cm_id **backlog;
	int nbacklog, backlog_max;

	/* Datagram. */
	struct rs_dest *dests, *conn_dest;
	unsigned int ndests;
	uint32_t max_dgram;
	uint8_t port_num;
	struct rs_rx *dgq;	/* received datagrams, in order */
};

/* ---- The table (rsocket.c) */

/* The socket numbered fd, locked; NULL with errno EBADF. */
struct rs *rs_get(int fd);
/* Unlock it; errno is left as it was. */
void rs_put(struct rs *rs);
/* Whether fd is one of ours, without locking it. */
bool rs_is_ours(int fd);

/* ---- Progress (rs_poll.c) */

/* Handle what the CM channel and the CQ have, never blocking; how many
 * events and completions that was. */
int rs_progress(struct rs *rs);
/* Take the CM channel's events, each to fn, which acks it; how many. */
int rs_cm_progress(struct rs *rs,
		   void (*fn)(struct rs *rs, struct rdma_cm_event *ev));
/*
 * Block until something may have changed, or for timeout_ms (-1: no
 * limit); the lock is released while waiting. 0, or -1 with errno
 * (ETIMEDOUT at the limit, EINTR on a signal).
 */
int rs_wait(struct rs *rs, int timeout_ms);
/* poll(2) events the socket would report now. */
short rs_revents(struct rs *rs);
/* Arm the CQ's notification, so that rs_wait's descriptors wake. */
void rs_arm(struct rs *rs);
/* The descriptors a wait watches: the CQ channel's (or -1), the CM's. */
int rs_wait_fds(struct rs *rs, int fds[2]);
/* Take what a descriptor signalled, after a wait. */
void rs_drain(struct rs *rs);

/* Stream (rs_stream.c). */
int rs_stream_connect(struct rs *rs, const struct sockaddr *addr);
int rs_stream_accept(struct rs *lrs, struct rdma_cm_id *child,
		     struct rs **out);
ssize_t rs_stream_send(struct rs *rs, const struct iovec *iov, int iovcnt,
		       int flags);
ssize_t rs_stream_recv(struct rs *rs, const struct iovec *iov, int iovcnt,
		       int flags);
int rs_stream_shutdown(struct rs *rs, int how);
void rs_stream_free(struct rs *rs);
off_t rs_iomap(struct rs *rs, void *buf, size_t len, int prot, off_t off);
int rs_iounmap(struct rs *rs, void *buf, size_t len);
ssize_t rs_iowrite(struct rs *rs, const void *buf, size_t count, off_t off,
		   int flags);
int rs_stream_progress(struct rs *rs);
short rs_stream_revents(struct rs *rs);

/* Datagram (rs_dgram.c). */
int rs_dgram_bind(struct rs *rs, const struct sockaddr *addr);
int rs_dgram_connect(struct rs *rs, const struct sockaddr *addr);
ssize_t rs_dgram_send(struct rs *rs, const struct iovec *iov, int iovcnt,
		      int flags, const struct sockaddr *to);
ssize_t rs_dgram_recv(struct rs *rs, const struct iovec *iov, int iovcnt,
		      int flags, struct sockaddr *from, socklen_t *fromlen);
void rs_dgram_free(struct rs *rs);
int rs_dgram_progress(struct rs *rs);
const struct sockaddr *rs_dgram_peer(struct rs *rs);
short rs_dgram_revents(struct rs *rs);

/* Shared helpers (rs_stream.c). */
size_t rs_iov_len(const struct iovec *iov, int iovcnt);
/* Copy between an iovec, starting skip bytes in, and a flat buffer. */
void rs_iov_to(const struct iovec *iov, int iovcnt, size_t skip, void *dst,
	       size_t len);
void rs_iov_from(const struct iovec *iov, int iovcnt, size_t skip,
		 const void *src, size_t len);
/* Make the PD, CQ (with its channel), buffers and free-slot stack for
 * nsend send and nrecv receive slots of seg bytes. */
int rs_queues_alloc(struct rs *rs, struct ibv_context *ctx);
void rs_queues_free(struct rs *rs);
/* Post receive slot slot: all seg bytes of it. */
int rs_post_recv(struct rs *rs, uint32_t slot);

#endif
