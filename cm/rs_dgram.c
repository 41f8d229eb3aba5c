/* cm/rs_dgram.c: datagram rsockets: one UD QP per socket, its address a
 * RDMA_PS_UDP rdma_cm id that answers SIDR requests with the QP's number,
 * destinations resolved with SIDR, and every datagram headed by its
 * sender's address so that rrecvfrom can name it (doc/rsockets.md). */

/*
 * A destination is looked up in the socket's list by address. The first
 * datagram to a new one resolves it through the rdma_cm (address, route,
 * SIDR REQ/REP: the peer's QPN and Q_Key), which blocks for at most the
 * CM's timeouts. A datagram received from an unknown sender adds it to
 * the list from the work completion and its GRH, so that replies need no
 * resolution. Datagrams are unreliable, as UDP's: what finds no receive
 * buffer is lost.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <endian.h>

#include "cm/rs.h"

#define RS_GRH		40
#define RS_RESOLVE_MS	2000
#define RS_MAX_DESTS	4096
#define RS_DGRAM_RECVS	512

struct rs_dest {
	struct rs_dest *next;
	struct sockaddr_storage addr;	/* the peer's */
	struct sockaddr_storage src;	/* ours, as the peer reaches us */
	struct ibv_ah *ah;
	uint32_t qpn, qkey;
};

static bool rs_same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a,
					 *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->sa_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a,
					  *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       !memcmp(&x->sin6_addr, &y->sin6_addr, 16);
	}
	return false;
}

static struct rs_dest *rs_dest_find(struct rs *rs, const struct sockaddr *a)
{
	struct rs_dest *d;

	for (d = rs->dests; d; d = d->next)
		if (rs_same_addr((struct sockaddr *)&d->addr, a))
			return d;
	return NULL;
}

void rs_dgram_free(struct rs *rs)
{
	struct rs_dest *d, *n;

	for (d = rs->dests; d; d = n) {
		n = d->next;
		ibv_destroy_ah(d->ah);
		free(d);
	}
	rs->dests = rs->conn_dest = NULL;
	rs->ndests = 0;
	rs_queues_free(rs);
	if (rs->pd)
		ibv_dealloc_pd(rs->pd);
	rs->pd = NULL;
}

/* ---- The QP */

/* The UD QP, its queues and receives, on ctx's port. */
static int rs_ud_setup(struct rs *rs, struct ibv_context *ctx, uint8_t port)
{
	struct ibv_port_attr pa;
	struct ibv_qp_init_attr ia = { 0 };
	struct ibv_qp_attr qa = { 0 };
	uint32_t mtu, i;

	if (ibv_query_port(ctx, port, &pa))
		return rs_refuse(errno ? errno : ENODEV, "no port %u", port);
	mtu = 128u << pa.active_mtu;
	rs->port_num = port;
	rs->max_dgram = mtu - sizeof(struct rs_dgram_hdr);
	rs->seg = RS_GRH + mtu;
	rs->nsend = (uint32_t)(rs->sndbuf / (long)rs->seg);
	if (rs->nsend < RS_MIN_SLOTS)
		rs->nsend = RS_MIN_SLOTS;
	if (rs->nsend > RS_MAX_SLOTS)
		rs->nsend = RS_MAX_SLOTS;
	/* Every buffer holds a whole MTU, whatever the datagram: at least
	 * as many as a UDP socket's default buffer holds small datagrams,
	 * so that a burst is not lost to the sizing alone. */
	rs->nrecv = (uint32_t)(rs->rcvbuf / (long)rs->seg);
	if (rs->nrecv < RS_DGRAM_RECVS)
		rs->nrecv = RS_DGRAM_RECVS;
	if (rs->nrecv > RS_MAX_SLOTS)
		rs->nrecv = RS_MAX_SLOTS;
	if (rs_queues_alloc(rs, ctx))
		return -1;
	ia.send_cq = rs->cq;
	ia.recv_cq = rs->cq;
	ia.qp_type = IBV_QPT_UD;
	ia.sq_sig_all = 1;
	ia.cap.max_send_wr = rs->sq_depth;
	ia.cap.max_recv_wr = rs->nrecv;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	rs->qp = ibv_create_qp(rs->pd, &ia);
	if (!rs->qp)
		return rs_refuse(errno ? errno : ENOMEM, "cannot make UD QP");
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = port;
	qa.qkey = RDMA_UDP_QKEY;
	if (ibv_modify_qp(rs->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(rs->qp, &qa, IBV_QP_STATE))
		return -1;
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = 0;
	if (ibv_modify_qp(rs->qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return -1;
	for (i = 0; i < rs->nrecv; i++)
		if (rs_post_recv(rs, i))
			return rs_refuse(ENOMEM, "cannot post UD receives");
	return 0;
}

/* The QP on the bound device, or on the first one for a wildcard. */
static int rs_ud_setup_bound(struct rs *rs)
{
	struct ibv_context **devs;
	int n, err;

	if (rs->qp)
		return 0;
	if (rs->id->verbs)
		return rs_ud_setup(rs, rs->id->verbs,
				   rs->id->port_num ? rs->id->port_num : 1);
	devs = rdma_get_devices(&n);
	if (!devs || n < 1) {
		if (devs)
			rdma_free_devices(devs);
		return rs_refuse(ENODEV, "no RDMA device");
	}
	err = rs_ud_setup(rs, devs[0], 1);
	rdma_free_devices(devs);
	return err;
}

/* ---- Binding */

int rs_dgram_bind(struct rs *rs, const struct sockaddr *addr)
{
	if (rs->bound)
		return rs_refuse(EINVAL, "rbind: already bound");
	if (rdma_bind_addr(rs->id, (struct sockaddr *)addr))
		return -1;
	/* Listening, so that SIDR requests for this port reach us. */
	if (rdma_listen(rs->id, 128))
		return -1;
	rs->bound = true;
	return rs_ud_setup_bound(rs);
}

/* A socket used before rbind takes a free port on every address. */
static int rs_autobind(struct rs *rs)
{
	struct sockaddr_storage any = { .ss_family = rs->domain };

	if (rs->bound)
		return 0;
	return rs_dgram_bind(rs, (struct sockaddr *)&any);
}

/* ---- Destinations */

static void rs_sa_from_gid(struct sockaddr_storage *ss, const uint8_t *gid,
			   uint16_t port_be)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0,
					      0, 0, 0, 0, 0xff, 0xff };

	memset(ss, 0, sizeof(*ss));
	if (!memcmp(gid, v4mapped, 12)) {
		struct sockaddr_in *s = (void *)ss;

		s->sin_family = AF_INET;
		s->sin_port = port_be;
		memcpy(&s->sin_addr, gid + 12, 4);
	} else {
		struct sockaddr_in6 *s = (void *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = port_be;
		memcpy(&s->sin6_addr, gid, 16);
	}
}

static struct rs_dest *rs_dest_resolve(struct rs *rs, const struct sockaddr *to)
{
	struct rdma_conn_param p = { 0 };
	struct rdma_cm_id *tid;
	struct rs_dest *d;
	struct rdma_ud_param *ud;
	int err;

	d = rs_dest_find(rs, to);
	if (d)
		return d;
	if (rs->ndests >= RS_MAX_DESTS)
		return rs_refuse(ENOBUFS, "too many destinations"), NULL;
	if (rs_autobind(rs))
		return NULL;
	if (rdma_create_id(NULL, &tid, NULL, RDMA_PS_UDP))
		return NULL;
	if (rdma_resolve_addr(tid, NULL, (struct sockaddr *)to, RS_RESOLVE_MS) ||
	    rdma_resolve_route(tid, RS_RESOLVE_MS))
		goto fail;
	if (!rs->qp && rs_ud_setup(rs, tid->verbs, tid->port_num))
		goto fail;
	if (tid->verbs != rs->qp->context) {
		errno = EHOSTUNREACH;
		rs_log("destination is on another device");
		goto fail;
	}
	p.qp_num = rs->qp->qp_num;
	if (rdma_connect(tid, &p)) {
		rs_log("no datagram rsocket answers there: %s",
		       strerror(errno));
		goto fail;
	}
	ud = &tid->event->param.ud;
	d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		goto fail;
	}
	d->ah = ibv_create_ah(rs->pd, &ud->ah_attr);
	if (!d->ah) {
		free(d);
		goto fail;
	}
	memcpy(&d->addr, to, cm_addrlen(to));
	memcpy(&d->src, rdma_get_local_addr(tid),
	       cm_addrlen(rdma_get_local_addr(tid)));
	d->qpn = ud->qp_num;
	d->qkey = ud->qkey;
	d->next = rs->dests;
	rs->dests = d;
	rs->ndests++;
	rdma_destroy_id(tid);
	return d;
fail:
	err = errno ? errno : EHOSTUNREACH;
	rdma_destroy_id(tid);
	errno = err;
	return NULL;
}

/* A sender seen for the first time: reachable by the way it came. */
static void rs_dest_learn(struct rs *rs, const struct sockaddr *from,
			  struct ibv_wc *wc, const uint8_t *grh)
{
	struct rs_dest *d;

	if (rs_dest_find(rs, from) || rs->ndests >= RS_MAX_DESTS)
		return;
	d = calloc(1, sizeof(*d));
	if (!d)
		return;
	d->ah = ibv_create_ah_from_wc(rs->pd, wc, (struct ibv_grh *)grh,
				      rs->port_num);
	if (!d->ah) {
		free(d);
		return;
	}
	memcpy(&d->addr, from, cm_addrlen(from));
	/* The GRH's destination is our GID as the sender addressed it. */
	rs_sa_from_gid(&d->src, grh + 24, 0);
	d->qpn = wc->src_qp;
	d->qkey = RDMA_UDP_QKEY;
	d->next = rs->dests;
	rs->dests = d;
	rs->ndests++;
}

int rs_dgram_connect(struct rs *rs, const struct sockaddr *addr)
{
	struct rs_dest *d = rs_dest_resolve(rs, addr);

	if (!d)
		return -1;
	rs->conn_dest = d;
	return 0;
}

const struct sockaddr *rs_dgram_peer(struct rs *rs)
{
	return rs->conn_dest ? (struct sockaddr *)&rs->conn_dest->addr : NULL;
}

/* ---- Progress */

static void rs_hdr_addr(const struct rs_dgram_hdr *h,
			struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (h->family == 4) {
		struct sockaddr_in *s = (void *)ss;

		s->sin_family = AF_INET;
		s->sin_port = h->port;
		memcpy(&s->sin_addr, h->addr, 4);
	} else {
		struct sockaddr_in6 *s = (void *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = h->port;
		memcpy(&s->sin6_addr, h->addr, 16);
	}
}

static void rs_dgram_wc(struct rs *rs, struct ibv_wc *wc)
{
	struct rs_dgram_hdr h;
	struct sockaddr_storage from;
	uint32_t slot = (uint32_t)wc->wr_id;
	uint8_t *buf;

	if (!(wc->opcode & IBV_WC_RECV)) {
		rs->sq_out--;
		rs->free_slots[rs->nfree++] = slot;
		return;
	}
	if (wc->status != IBV_WC_SUCCESS)
		return;
	buf = rs->rbuf + (size_t)slot * rs->seg;
	if (wc->byte_len < RS_GRH + sizeof(h))
		goto drop;
	memcpy(&h, buf + RS_GRH, sizeof(h));
	if (h.version != RS_VERSION || (h.family != 4 && h.family != 6))
		goto drop;
	rs_hdr_addr(&h, &from);
	rs_dest_learn(rs, (struct sockaddr *)&from, wc, buf);
	rs->rxq[(rs->rx_head + rs->rx_count++) % rs->nrecv] = (struct rs_rx){
		slot, wc->byte_len - RS_GRH - (uint32_t)sizeof(h), 0
	};
	return;
drop:
	rs_log("socket %d: datagram without an rsocket header dropped",
	       rs->fd);
	if (rs_post_recv(rs, slot))
		rs_log("socket %d: cannot repost a receive", rs->fd);
}

static void rs_dgram_event(struct rs *rs, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *child = ev->id;
	struct rdma_conn_param p = { 0 };

	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		rdma_ack_cm_event(ev);
		return;
	}
	/* A SIDR request for our port: answer with the QP's number. */
	if (rs->qp && child->verbs == rs->qp->context) {
		p.qp_num = rs->qp->qp_num;
		if (rdma_accept(child, &p))
			rs_log("socket %d: SIDR reply failed", rs->fd);
	} else {
		rdma_reject(child, NULL, 0);
	}
	rdma_ack_cm_event(ev);
	rdma_destroy_id(child);
}

int rs_dgram_progress(struct rs *rs)
{
	struct ibv_wc wc[16];
	int n, i, total = rs_cm_progress(rs, rs_dgram_event);

	if (!rs->cq)
		return total;
	do {
		n = ibv_poll_cq(rs->cq, 16, wc);
		for (i = 0; i < n; i++)
			rs_dgram_wc(rs, &wc[i]);
		total += n > 0 ? n : 0;
	} while (n == 16);
	return total;
}

short rs_dgram_revents(struct rs *rs)
{
	short ev = 0;

	if (rs->rx_count)
		ev |= POLLIN;
	if (!rs->qp || rs->nfree)
		ev |= POLLOUT;
	return ev;
}

/* ---- Send and receive */

static bool rs_dg_nonblock(struct rs *rs, int flags)
{
	return (rs->fl & O_NONBLOCK) || (flags & MSG_DONTWAIT);
}

static void rs_hdr_make(struct rs *rs, struct rs_dest *d,
			struct rs_dgram_hdr *h)
{
	const struct sockaddr *local = rdma_get_local_addr(rs->id);
	const struct sockaddr *src = (struct sockaddr *)&d->src;
	uint16_t port = local->sa_family == AF_INET6 ?
				((const struct sockaddr_in6 *)local)->sin6_port :
				((const struct sockaddr_in *)local)->sin_port;

	memset(h, 0, sizeof(*h));
	h->version = RS_VERSION;
	h->port = port;
	/* Our bound address, or the one the peer reaches us by. */
	if (local->sa_family == AF_INET &&
	    ((const struct sockaddr_in *)local)->sin_addr.s_addr)
		src = local;
	if (local->sa_family == AF_INET6 &&
	    !IN6_IS_ADDR_UNSPECIFIED(
		    &((const struct sockaddr_in6 *)local)->sin6_addr))
		src = local;
	if (src->sa_family == AF_INET6) {
		h->family = 6;
		memcpy(h->addr, &((const struct sockaddr_in6 *)src)->sin6_addr,
		       16);
	} else {
		h->family = 4;
		memcpy(h->addr, &((const struct sockaddr_in *)src)->sin_addr,
		       4);
	}
}

ssize_t rs_dgram_send(struct rs *rs, const struct iovec *iov, int iovcnt,
		      int flags, const struct sockaddr *to)
{
	size_t len = rs_iov_len(iov, iovcnt);
	struct rs_dest *d;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;
	uint8_t *p;
	uint32_t slot;
	int err;

	d = to ? rs_dest_resolve(rs, to) : rs->conn_dest;
	if (!d)
		return to ? -1 : rs_refuse(EDESTADDRREQ, "rsend: no "
					   "destination");
	if (len > rs->max_dgram)
		return rs_refuse(EMSGSIZE, "datagram of %zu bytes exceeds %u",
				 len, rs->max_dgram);
	while (!rs->nfree || rs->sq_out >= rs->sq_depth) {
		rs_dgram_progress(rs);
		if (rs->nfree && rs->sq_out < rs->sq_depth)
			break;
		if (rs_dg_nonblock(rs, flags))
			return cm_err(EAGAIN);
		if (rs_wait(rs, -1) && errno != ETIMEDOUT)
			return -1;
	}
	slot = rs->free_slots[--rs->nfree];
	p = rs->sbuf + (size_t)slot * rs->seg;
	rs_hdr_make(rs, d, (struct rs_dgram_hdr *)p);
	rs_iov_to(iov, iovcnt, 0, p + sizeof(struct rs_dgram_hdr), len);
	sge.addr = (uintptr_t)p;
	sge.length = (uint32_t)(len + sizeof(struct rs_dgram_hdr));
	sge.lkey = rs->smr->lkey;
	wr.wr_id = slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = d->ah;
	wr.wr.ud.remote_qpn = d->qpn;
	wr.wr.ud.remote_qkey = d->qkey;
	err = ibv_post_send(rs->qp, &wr, &bad);
	if (err) {
		rs->free_slots[rs->nfree++] = slot;
		return rs_refuse(err, "UD post_send failed");
	}
	rs->sq_out++;
	return (ssize_t)len;
}

ssize_t rs_dgram_recv(struct rs *rs, const struct iovec *iov, int iovcnt,
		      int flags, struct sockaddr *from, socklen_t *fromlen)
{
	size_t want = rs_iov_len(iov, iovcnt), n;
	struct sockaddr_storage src;
	struct rs_rx *rx;
	uint8_t *buf;

	if (rs_autobind(rs))
		return -1;
	for (;;) {
		rs_dgram_progress(rs);
		if (rs->rx_count)
			break;
		if (rs_dg_nonblock(rs, flags))
			return cm_err(EAGAIN);
		if (rs_wait(rs, -1) && errno != ETIMEDOUT)
			return -1;
	}
	rx = &rs->rxq[rs->rx_head];
	buf = rs->rbuf + (size_t)rx->slot * rs->seg + RS_GRH;
	n = rx->len < want ? rx->len : want;
	rs_iov_from(iov, iovcnt, 0, buf + sizeof(struct rs_dgram_hdr), n);
	if (from && fromlen) {
		socklen_t alen;

		rs_hdr_addr((struct rs_dgram_hdr *)buf, &src);
		alen = cm_addrlen((struct sockaddr *)&src);
		memcpy(from, &src, *fromlen < alen ? *fromlen : alen);
		*fromlen = alen;
	}
	if (flags & MSG_TRUNC)
		n = rx->len;
	if (!(flags & MSG_PEEK)) {
		if (rs_post_recv(rs, rx->slot))
			rs_log("socket %d: cannot repost a receive", rs->fd);
		rs->rx_head = (rs->rx_head + 1) % rs->nrecv;
		rs->rx_count--;
	}
	return (ssize_t)n;
}
