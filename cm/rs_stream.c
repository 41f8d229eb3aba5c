/* cm/rs_stream.c: stream rsockets: an RC QP per connection, set up by the
 * rdma_cm, carrying SENDs into the peer's posted buffers under credit flow
 * control, FIN for the end of the stream, and riomap windows that the
 * peer's riowrite fills with RDMA WRITEs (doc/rsockets.md). */

/*
 * Each side posts nrecv buffers of seg bytes and advertises all but
 * RS_CTRL_RECVS of them as credits in the CM private data. A DATA or
 * IOMAP message spends a credit; the receiver returns it when the
 * application has read the buffer, in the immediate data of its next
 * message or, once half the credits are owed, in a CREDIT message. CREDIT
 * and FIN spend none: they land in the held-back buffers, which the
 * receiver reposts as soon as it sees them. rnr_retry is 7 (retry for
 * ever), so even a miscount only slows the stream down.
 *
 * The RC QP's ordering does the rest: a FIN arrives after every DATA
 * before it, and an RDMA WRITE's last byte lands after its first.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <endian.h>

#include "cm/rs.h"

#define RS_TIMEOUT_MS	2000
#define RS_CQ_BATCH	16
/* wr_id of a send that holds no slot. */
#define RS_NOSLOT	0

/* ---- iovecs */

size_t rs_iov_len(const struct iovec *iov, int iovcnt)
{
	size_t n = 0;
	int i;

	for (i = 0; i < iovcnt; i++)
		n += iov[i].iov_len;
	return n;
}

/* Copy len bytes between the iovec, skip bytes in, and buf: into the
 * iovec when in is true, out of it otherwise. */
static void rs_iov_copy(const struct iovec *iov, int iovcnt, size_t skip,
			uint8_t *buf, size_t len, bool in)
{
	int i;

	for (i = 0; i < iovcnt && len; i++) {
		size_t n = iov[i].iov_len;
		uint8_t *p = (uint8_t *)iov[i].iov_base + skip;

		if (skip >= n) {
			skip -= n;
			continue;
		}
		n -= skip;
		if (n > len)
			n = len;
		if (in)
			memcpy(p, buf, n);
		else
			memcpy(buf, p, n);
		buf += n;
		len -= n;
		skip = 0;
	}
}

void rs_iov_to(const struct iovec *iov, int iovcnt, size_t skip, void *dst,
	       size_t len)
{
	rs_iov_copy(iov, iovcnt, skip, dst, len, false);
}

void rs_iov_from(const struct iovec *iov, int iovcnt, size_t skip,
		 const void *src, size_t len)
{
	rs_iov_copy(iov, iovcnt, skip, (uint8_t *)src, len, true);
}

/* ---- The queues */

int rs_queues_alloc(struct rs *rs, struct ibv_context *ctx)
{
	size_t slen = (size_t)rs->nsend * rs->seg;
	size_t rlen = (size_t)rs->nrecv * rs->seg;
	uint32_t i;
	int fl;

	rs->pd = ibv_alloc_pd(ctx);
	if (!rs->pd)
		goto fail;
	rs->cc = ibv_create_comp_channel(ctx);
	if (!rs->cc)
		goto fail;
	fl = fcntl(rs->cc->fd, F_GETFL);
	if (fl < 0 || fcntl(rs->cc->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto fail;
	rs->sq_depth = rs->nsend + RS_CTRL_RECVS + 2;
	rs->cq = ibv_create_cq(ctx, (int)(rs->sq_depth + rs->nrecv), rs,
			       rs->cc, 0);
	if (!rs->cq)
		goto fail;
	rs->sbuf = malloc(slen);
	rs->rbuf = malloc(rlen);
	rs->free_slots = calloc(rs->nsend, sizeof(*rs->free_slots));
	rs->rxq = calloc(rs->nrecv, sizeof(*rs->rxq));
	if (!rs->sbuf || !rs->rbuf || !rs->free_slots || !rs->rxq) {
		errno = ENOMEM;
		goto fail;
	}
	rs->smr = ibv_reg_mr(rs->pd, rs->sbuf, slen, 0);
	rs->rmr = ibv_reg_mr(rs->pd, rs->rbuf, rlen, IBV_ACCESS_LOCAL_WRITE);
	if (!rs->smr || !rs->rmr)
		goto fail;
	for (i = 0; i < rs->nsend; i++)
		rs->free_slots[i] = rs->nsend - 1 - i;
	rs->nfree = rs->nsend;
	return 0;
fail:
	if (!errno)
		errno = ENOMEM;
	rs_log("cannot make the socket's queues: %s", strerror(errno));
	return -1;
}

void rs_queues_free(struct rs *rs)
{
	if (rs->qp) {
		if (rs->id && rs->id->qp == rs->qp)
			rdma_destroy_qp(rs->id);
		else
			ibv_destroy_qp(rs->qp);
		rs->qp = NULL;
	}
	if (rs->smr)
		ibv_dereg_mr(rs->smr);
	if (rs->rmr)
		ibv_dereg_mr(rs->rmr);
	if (rs->cq) {
		rs_drain(rs);
		ibv_destroy_cq(rs->cq);
	}
	if (rs->cc)
		ibv_destroy_comp_channel(rs->cc);
	free(rs->sbuf);
	free(rs->rbuf);
	free(rs->free_slots);
	free(rs->rxq);
	rs->smr = rs->rmr = NULL;
	rs->cq = NULL;
	rs->cc = NULL;
	rs->sbuf = rs->rbuf = NULL;
	rs->free_slots = NULL;
	rs->rxq = NULL;
}

void rs_stream_free(struct rs *rs)
{
	uint32_t i;

	for (i = 0; rs->lmaps && i < rs->nlmaps; i++)
		if (rs->lmaps[i].mr)
			ibv_dereg_mr(rs->lmaps[i].mr);
	free(rs->lmaps);
	free(rs->rmaps);
	rs_queues_free(rs);
	if (rs->pd)
		ibv_dealloc_pd(rs->pd);
	rs->pd = NULL;
}

static uint32_t rs_clamp(long v, uint32_t lo, uint32_t hi)
{
	return v < (long)lo ? lo : v > (long)hi ? hi : (uint32_t)v;
}

int rs_post_recv(struct rs *rs, uint32_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(rs->rbuf + (size_t)slot * rs->seg),
		.length = rs->seg,
		.lkey = rs->rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(rs->qp, &wr, &bad);
}

/* The connection's queues and QP on id's device, receives posted. */
static int rs_stream_setup(struct rs *rs, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = { 0 };
	uint32_t i;

	rs->seg = RS_SEG;
	rs->nsend = rs_clamp(rs->sq_size ? (long)rs->sq_size :
					   rs->sndbuf / (long)rs->seg,
			     RS_MIN_SLOTS, RS_MAX_SLOTS);
	rs->nrecv = rs_clamp(rs->rq_size ? (long)rs->rq_size :
					   rs->rcvbuf / (long)rs->seg,
			     RS_MIN_SLOTS, RS_MAX_SLOTS) + RS_CTRL_RECVS;
	if (rs_queues_alloc(rs, id->verbs))
		return -1;
	rs->nrmaps = rs->iomap_size;
	if (rs->nrmaps) {
		rs->rmaps = calloc(rs->nrmaps, sizeof(*rs->rmaps));
		if (!rs->rmaps)
			return cm_err(ENOMEM);
	}
	attr.send_cq = rs->cq;
	attr.recv_cq = rs->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	attr.cap.max_send_wr = rs->sq_depth;
	attr.cap.max_recv_wr = rs->nrecv;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.cap.max_inline_data = rs->inline_size;
	if (rdma_create_qp(id, rs->pd, &attr)) {
		/* A device with less inline room: without inline data. */
		attr.cap.max_inline_data = 0;
		if (rdma_create_qp(id, rs->pd, &attr))
			return rs_refuse(errno, "cannot create the QP: %s",
					 strerror(errno));
	}
	rs->qp = id->qp;
	rs->max_inline = attr.cap.max_inline_data < rs->inline_size ?
				 attr.cap.max_inline_data : rs->inline_size;
	for (i = 0; i < rs->nrecv; i++)
		if (rs_post_recv(rs, i))
			return rs_refuse(errno ? errno : ENOMEM,
					 "cannot post receives");
	return 0;
}

static void rs_conn_data_make(struct rs *rs, struct rs_conn_data *cd)
{
	memset(cd, 0, sizeof(*cd));
	cd->magic = htobe32(RS_MAGIC);
	cd->version = htobe16(RS_VERSION);
	cd->credits = htobe32(rs->nrecv - RS_CTRL_RECVS);
	cd->seg = htobe32(rs->seg);
	cd->iomaps = htobe32(rs->iomap_size);
}

/* The peer's connection data, from private data; 0 or EPROTO. */
static int rs_conn_data_take(struct rs *rs, const void *pd, uint8_t len)
{
	struct rs_conn_data cd;

	if (!pd || len < sizeof(cd))
		return EPROTO;
	memcpy(&cd, pd, sizeof(cd));
	if (be32toh(cd.magic) != RS_MAGIC ||
	    be16toh(cd.version) != RS_VERSION || !be32toh(cd.seg) ||
	    !be32toh(cd.credits))
		return EPROTO;
	rs->credits = be32toh(cd.credits);
	rs->peer_seg = be32toh(cd.seg);
	rs->nlmaps = rs_clamp(be32toh(cd.iomaps), 0, 1024);
	free(rs->lmaps);
	rs->lmaps = NULL;
	if (rs->nlmaps) {
		rs->lmaps = calloc(rs->nlmaps, sizeof(*rs->lmaps));
		if (!rs->lmaps)
			return ENOMEM;
	}
	return 0;
}

static void rs_conn_param(struct rs *rs, struct rdma_conn_param *p,
			  struct rs_conn_data *cd)
{
	rs_conn_data_make(rs, cd);
	memset(p, 0, sizeof(*p));
	p->private_data = cd;
	p->private_data_len = sizeof(*cd);
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

/* ---- Sending */

static bool rs_sq_room(struct rs *rs)
{
	return rs->qp && rs->sq_out < rs->sq_depth;
}

/*
 * Post one message: len bytes from iov (skip bytes in), a SEND with
 * immediate data of type msg, or an RDMA WRITE to raddr/rkey when msg is
 * 0. The caller has checked rs_sq_room and, for DATA and IOMAP, a
 * credit; small payloads go inline, larger ones through a free slot.
 */
static int rs_post(struct rs *rs, enum rs_msg msg, const struct iovec *iov,
		   int iovcnt, size_t skip, size_t len, uint64_t raddr,
		   uint32_t rkey)
{
	uint8_t tmp[256];
	struct ibv_sge sge = { 0 };
	struct ibv_send_wr wr = { 0 }, *bad;
	uint32_t slot = 0;
	bool inl = len <= rs->max_inline && len <= sizeof(tmp);
	int err;

	if (len && !inl) {
		if (!rs->nfree)
			return EAGAIN;
		slot = rs->free_slots[--rs->nfree];
		sge.addr = (uintptr_t)(rs->sbuf + (size_t)slot * rs->seg);
		sge.lkey = rs->smr->lkey;
		wr.wr_id = slot + 1;
	} else {
		sge.addr = (uintptr_t)tmp;
		wr.wr_id = RS_NOSLOT;
		if (len)
			wr.send_flags = IBV_SEND_INLINE;
	}
	if (len)
		rs_iov_to(iov, iovcnt, skip, (void *)(uintptr_t)sge.addr, len);
	sge.length = (uint32_t)len;
	wr.sg_list = len ? &sge : NULL;
	wr.num_sge = len ? 1 : 0;
	wr.send_flags |= IBV_SEND_SIGNALED;
	if (msg) {
		uint32_t owed = rs->owed > RS_CREDIT_MASK ? RS_CREDIT_MASK :
							    rs->owed;

		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htobe32((uint32_t)msg << RS_MSG_SHIFT | owed);
		rs->owed -= owed;
	} else {
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	err = ibv_post_send(rs->qp, &wr, &bad);
	if (err) {
		if (msg)
			rs->owed += be32toh(wr.imm_data) & RS_CREDIT_MASK;
		if (wr.wr_id != RS_NOSLOT)
			rs->free_slots[rs->nfree++] = slot;
		rs_log("post_send failed: %s", strerror(err));
		return err;
	}
	rs->sq_out++;
	if (msg == RS_MSG_DATA || msg == RS_MSG_IOMAP)
		rs->credits--;
	return 0;
}

static bool rs_writable(struct rs *rs)
{
	return rs->state == RS_CONNECTED && !rs->shut_wr && rs_sq_room(rs) &&
	       rs->credits > 0 && rs->nfree > 0;
}

/* Half the peer's credits owed: tell it, unless data will carry them. */
static void rs_credit_maybe(struct rs *rs)
{
	uint32_t half = (rs->nrecv - RS_CTRL_RECVS + 1) / 2;

	if (rs->owed >= half && rs_sq_room(rs) &&
	    (rs->state == RS_CONNECTED || rs->state == RS_ACCEPTING))
		rs_post(rs, RS_MSG_CREDIT, NULL, 0, 0, 0, 0, 0);
}

static void rs_announce(struct rs *rs, struct rs_map *m, bool unmap);

/* Announce the windows mapped before the connection came up. */
static void rs_announce_pending(struct rs *rs)
{
	uint32_t i;

	for (i = 0; rs->lmaps && i < rs->nlmaps; i++)
		if (rs->lmaps[i].used)
			rs_announce(rs, &rs->lmaps[i], false);
}

/* ---- Progress */

static void rs_fail(struct rs *rs, int err)
{
	if (rs->state == RS_FAILED || rs->state == RS_CLOSED)
		return;
	rs_log("socket %d fails: %s", rs->fd, strerror(err));
	rs->state = RS_FAILED;
	rs->err = err;
}

static void rs_take_iomap(struct rs *rs, const uint8_t *p, uint32_t len)
{
	struct rs_iomap_msg m;
	uint64_t off, alen;
	uint32_t i, free_i = UINT32_MAX;

	if (len < sizeof(m))
		return;
	memcpy(&m, p, sizeof(m));
	off = be64toh(m.offset);
	alen = be64toh(m.len);
	for (i = 0; i < rs->nrmaps; i++) {
		if (rs->rmaps[i].used && rs->rmaps[i].offset == off) {
			rs->rmaps[i].used = false;
			free_i = i;
			break;
		}
		if (!rs->rmaps[i].used && free_i == UINT32_MAX)
			free_i = i;
	}
	if (!alen || free_i == UINT32_MAX)
		return;
	rs->rmaps[free_i] = (struct rs_map){ .offset = off, .len = alen,
					     .addr = be64toh(m.addr),
					     .rkey = be32toh(m.rkey),
					     .used = true };
}

static void rs_stream_wc(struct rs *rs, struct ibv_wc *wc)
{
	uint32_t imm, slot = (uint32_t)wc->wr_id;
	uint8_t *buf;

	if (!(wc->opcode & IBV_WC_RECV)) {
		rs->sq_out--;
		if (wc->wr_id != RS_NOSLOT)
			rs->free_slots[rs->nfree++] = (uint32_t)wc->wr_id - 1;
		if (wc->status != IBV_WC_SUCCESS &&
		    wc->status != IBV_WC_WR_FLUSH_ERR)
			rs_fail(rs, ECONNRESET);
		return;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			rs_fail(rs, ECONNRESET);
		return;
	}
	imm = be32toh(wc->imm_data);
	buf = rs->rbuf + (size_t)slot * rs->seg;
	rs->credits += imm & RS_CREDIT_MASK;
	switch (imm >> RS_MSG_SHIFT) {
	case RS_MSG_DATA:
		if (wc->byte_len) {
			rs->rxq[(rs->rx_head + rs->rx_count++) % rs->nrecv] =
				(struct rs_rx){ slot, wc->byte_len, 0 };
			return;
		}
		rs->owed++;
		break;
	case RS_MSG_IOMAP:
		rs_take_iomap(rs, buf, wc->byte_len);
		rs->owed++;
		break;
	case RS_MSG_FIN:
		rs->fin_rcvd = true;
		break;
	case RS_MSG_CREDIT:
		break;
	default:
		rs_log("socket %d: unknown message %u dropped", rs->fd,
		       imm >> RS_MSG_SHIFT);
		break;
	}
	if (rs_post_recv(rs, slot))
		rs_fail(rs, ECONNRESET);
}

static int rs_cq_progress(struct rs *rs)
{
	struct ibv_wc wc[RS_CQ_BATCH];
	int n, i, total = 0;

	if (!rs->cq)
		return 0;
	do {
		n = ibv_poll_cq(rs->cq, RS_CQ_BATCH, wc);
		for (i = 0; i < n; i++)
			rs_stream_wc(rs, &wc[i]);
		total += n > 0 ? n : 0;
	} while (n == RS_CQ_BATCH);
	return total;
}

static int rs_event_errno(const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		return ECONNREFUSED;
	case RDMA_CM_EVENT_UNREACHABLE:
		return ev->status ? ETIMEDOUT : EHOSTUNREACH;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return EHOSTUNREACH;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return ENODEV;
	default:
		return ev->status < 0 ? -ev->status :
					(ev->status ? ev->status : ECONNRESET);
	}
}

static void rs_take_request(struct rs *rs, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *child = ev->id;
	struct rs_conn_data *cd = malloc(sizeof(*cd));

	if (!cd || rs->nbacklog >= rs->backlog_max ||
	    ev->param.conn.private_data_len < sizeof(*cd)) {
		rs_log("listener %d: connect request refused (%s)", rs->fd,
		       cd ? "backlog full or not an rsocket" : "no memory");
		free(cd);
		rdma_reject(child, NULL, 0);
		rdma_ack_cm_event(ev);
		rdma_destroy_id(child);
		return;
	}
	memcpy(cd, ev->param.conn.private_data, sizeof(*cd));
	child->context = cd;
	rs->backlog[rs->nbacklog++] = child;
	rdma_ack_cm_event(ev);
}

static void rs_stream_event(struct rs *rs, struct rdma_cm_event *ev)
{
	struct rs_conn_data cd;
	struct rdma_conn_param p;
	int err;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		rs_take_request(rs, ev);
		return;
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rs->state == RS_RESOLVING &&
		    rdma_resolve_route(rs->id, RS_TIMEOUT_MS))
			rs_fail(rs, errno);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rs->state != RS_RESOLVING)
			break;
		if (rs_stream_setup(rs, rs->id)) {
			rs_fail(rs, errno);
			break;
		}
		rs_conn_param(rs, &p, &cd);
		if (rdma_connect(rs->id, &p))
			rs_fail(rs, errno);
		else
			rs->state = RS_CONNECTING;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (rs->state == RS_CONNECTING) {
			err = rs_conn_data_take(rs,
						ev->param.conn.private_data,
						ev->param.conn.private_data_len);
			if (err) {
				rs_fail(rs, err);
				rdma_disconnect(rs->id);
				break;
			}
		}
		if (rs->state == RS_CONNECTING || rs->state == RS_ACCEPTING) {
			rs->state = RS_CONNECTED;
			rs_announce_pending(rs);
		}
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (rs->state == RS_CONNECTED || rs->state == RS_ACCEPTING)
			rs->state = RS_CLOSED;
		rs->fin_rcvd = true;
		rdma_disconnect(rs->id);
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		rs_fail(rs, rs_event_errno(ev));
		break;
	default:
		break;
	}
	rdma_ack_cm_event(ev);
}

int rs_cm_progress(struct rs *rs, void (*fn)(struct rs *,
					     struct rdma_cm_event *))
{
	struct rdma_cm_event *ev;
	int n = 0;

	while (!rdma_get_cm_event(rs->ch, &ev)) {
		fn(rs, ev);
		n++;
	}
	return n;
}

int rs_stream_progress(struct rs *rs)
{
	int n = rs_cm_progress(rs, rs_stream_event);

	n += rs_cq_progress(rs);
	rs_credit_maybe(rs);
	return n;
}

short rs_stream_revents(struct rs *rs)
{
	short ev = 0;

	switch (rs->state) {
	case RS_NEW:
		return 0;
	case RS_LISTENING:
		return rs->nbacklog ? POLLIN : 0;
	case RS_RESOLVING:
	case RS_CONNECTING:
		return 0;
	case RS_ACCEPTING:
	case RS_CONNECTED:
		if (rs->rx_count || rs->fin_rcvd || rs->shut_rd)
			ev |= POLLIN;
		if (rs_writable(rs) || rs->shut_wr)
			ev |= POLLOUT;
		if (rs->fin_rcvd)
			ev |= POLLRDHUP;
		return ev;
	case RS_CLOSED:
		/* The hang-up once what came before it has been read, so
		 * that a program which takes POLLHUP for the end (rstream
		 * does) reads everything first. */
		return POLLIN | POLLOUT | POLLRDHUP |
		       (rs->rx_count ? 0 : POLLHUP);
	case RS_FAILED:
		return POLLIN | POLLOUT | POLLERR | POLLHUP;
	}
	return 0;
}

/* ---- Connecting */

int rs_stream_connect(struct rs *rs, const struct sockaddr *addr)
{
	int err;

	switch (rs->state) {
	case RS_NEW:
		break;
	case RS_RESOLVING:
	case RS_CONNECTING:
		/* rdma-core says EINPROGRESS again, not EALREADY. */
		return cm_err(EINPROGRESS);
	case RS_CONNECTED:
	case RS_ACCEPTING:
		return 0;
	case RS_LISTENING:
		return rs_refuse(EINVAL, "rconnect: socket is listening");
	default:
		return rs_refuse(ENOTCONN, "rconnect: socket failed or "
				 "closed");
	}
	if (rdma_resolve_addr(rs->id, NULL, (struct sockaddr *)addr,
			      RS_TIMEOUT_MS))
		return -1;
	rs->state = RS_RESOLVING;
	if (rs->fl & O_NONBLOCK)
		return cm_err(EINPROGRESS);
	for (;;) {
		rs_progress(rs);
		if (rs->state == RS_CONNECTED)
			return 0;
		if (rs->state == RS_FAILED) {
			err = rs->err;
			rs->err = 0;
			return cm_err(err);
		}
		if (rs_wait(rs, -1) && errno != ETIMEDOUT)
			return -1;
	}
}

int rs_stream_accept(struct rs *lrs, struct rdma_cm_id *child,
		     struct rs **out)
{
	struct rs_conn_data cd, *peer = child->context;
	struct rdma_conn_param p;
	struct rs *rs = calloc(1, sizeof(*rs));
	int err, fl;

	if (!rs) {
		err = ENOMEM;
		goto reject;
	}
	*rs = (struct rs){ .fd = -1, .domain = lrs->domain,
			   .type = SOCK_STREAM, .sndbuf = lrs->sndbuf,
			   .rcvbuf = lrs->rcvbuf, .sq_size = lrs->sq_size,
			   .rq_size = lrs->rq_size,
			   .inline_size = lrs->inline_size,
			   .iomap_size = lrs->iomap_size,
			   .opt_nodelay = lrs->opt_nodelay,
			   .opt_keepalive = lrs->opt_keepalive,
			   .fl = lrs->fl, .bound = true };
	pthread_mutex_init(&rs->lock, NULL);
	rs->ch = rdma_create_event_channel();
	if (!rs->ch) {
		err = errno;
		goto reject;
	}
	fl = fcntl(rs->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(rs->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    rdma_migrate_id(child, rs->ch)) {
		err = errno;
		goto reject;
	}
	rs->fd = rs->ch->fd;
	rs->id = child;
	child->context = rs;
	err = rs_conn_data_take(rs, peer, sizeof(*peer));
	if (err) {
		rs_log("connect request without rsocket data refused");
		goto reject;
	}
	if (rs_stream_setup(rs, child)) {
		err = errno;
		goto reject;
	}
	rs_conn_param(rs, &p, &cd);
	if (rdma_accept(child, &p)) {
		err = errno;
		goto fail;
	}
	free(peer);
	rs->state = RS_ACCEPTING;
	*out = rs;
	return 0;
reject:
	rdma_reject(child, NULL, 0);
fail:
	free(peer);
	if (rs) {
		rs_stream_free(rs);
		rdma_destroy_id(child);
		if (rs->ch)
			rdma_destroy_event_channel(rs->ch);
		pthread_mutex_destroy(&rs->lock);
		free(rs);
	} else {
		rdma_destroy_id(child);
	}
	return cm_err(err);
}

/* ---- Send and receive */

static bool rs_nonblock(struct rs *rs, int flags)
{
	return (rs->fl & O_NONBLOCK) || (flags & MSG_DONTWAIT);
}

/* Wait for the connection to come up; 0, or -1 with errno. */
static int rs_wait_connected(struct rs *rs, int flags)
{
	for (;;) {
		switch (rs->state) {
		case RS_CONNECTED:
		case RS_CLOSED:
		case RS_FAILED:
			return 0;
		case RS_RESOLVING:
		case RS_CONNECTING:
		case RS_ACCEPTING:
			break;
		default:
			return cm_err(ENOTCONN);
		}
		if (rs_nonblock(rs, flags))
			return cm_err(EAGAIN);
		if (rs_wait(rs, -1) && errno != ETIMEDOUT)
			return -1;
		rs_progress(rs);
	}
}

ssize_t rs_stream_send(struct rs *rs, const struct iovec *iov, int iovcnt,
		       int flags)
{
	size_t len = rs_iov_len(iov, iovcnt), sent = 0;
	int err;

	rs_progress(rs);
	if (rs_wait_connected(rs, flags))
		return -1;
	while (sent < len || (!len && !sent)) {
		/* rdma-core: ECONNRESET, never EPIPE or SIGPIPE. */
		if (rs->state == RS_FAILED || rs->state == RS_CLOSED ||
		    rs->shut_wr)
			return sent ? (ssize_t)sent : cm_err(ECONNRESET);
		if (!len)
			return 0;
		if (rs_writable(rs)) {
			size_t n = len - sent;
			uint32_t max = rs->seg < rs->peer_seg ? rs->seg :
								rs->peer_seg;

			if (n > max)
				n = max;
			err = rs_post(rs, RS_MSG_DATA, iov, iovcnt, sent, n,
				      0, 0);
			if (err)
				return sent ? (ssize_t)sent : cm_err(err);
			sent += n;
			continue;
		}
		rs_progress(rs);
		if (rs_writable(rs))
			continue;
		if (rs_nonblock(rs, flags))
			return sent ? (ssize_t)sent : cm_err(EAGAIN);
		if (rs_wait(rs, -1) && errno != ETIMEDOUT)
			return sent ? (ssize_t)sent : -1;
	}
	return (ssize_t)sent;
}

ssize_t rs_stream_recv(struct rs *rs, const struct iovec *iov, int iovcnt,
		       int flags)
{
	size_t want = rs_iov_len(iov, iovcnt), got = 0;
	bool peek = flags & MSG_PEEK, all = (flags & MSG_WAITALL) && !peek;

	rs_progress(rs);
	if (rs_wait_connected(rs, flags))
		return -1;
	for (;;) {
		uint32_t i = 0;

		while (got < want && i < rs->rx_count) {
			struct rs_rx *rx =
				&rs->rxq[(rs->rx_head + i) % rs->nrecv];
			size_t n = rx->len - rx->off;

			if (n > want - got)
				n = want - got;
			rs_iov_from(iov, iovcnt, got,
				    rs->rbuf + (size_t)rx->slot * rs->seg +
					    rx->off,
				    n);
			got += n;
			if (peek) {
				i++;
				continue;
			}
			rx->off += (uint32_t)n;
			if (rx->off < rx->len)
				break;
			if (rs_post_recv(rs, rx->slot))
				rs_fail(rs, ECONNRESET);
			rs->rx_head = (rs->rx_head + 1) % rs->nrecv;
			rs->rx_count--;
			rs->owed++;
		}
		if (!peek)
			rs_credit_maybe(rs);
		if (got == want || (got && !all) || !want)
			return (ssize_t)got;
		/* After the data, the end of the stream: 0, for a broken
		 * connection too, as rdma-core. */
		if (rs->shut_rd || rs->fin_rcvd || rs->state == RS_CLOSED ||
		    rs->state == RS_FAILED)
			return (ssize_t)got;
		if (rs_nonblock(rs, flags))
			return got ? (ssize_t)got : cm_err(EAGAIN);
		if (rs_wait(rs, -1) && errno != ETIMEDOUT)
			return got ? (ssize_t)got : -1;
		rs_progress(rs);
		if (peek)
			got = 0;
	}
}

/* Wait, for at most ms, until every posted send has completed. */
static void rs_flush_sends(struct rs *rs, int ms)
{
	uint64_t end = (uint64_t)ms;

	while (rs->sq_out && rs->state != RS_FAILED && rs->cq && end) {
		rs_progress(rs);
		if (!rs->sq_out)
			break;
		if (rs_wait(rs, 10) && errno != ETIMEDOUT)
			break;
		end = end > 10 ? end - 10 : 0;
	}
}

int rs_stream_shutdown(struct rs *rs, int how)
{
	rs_progress(rs);
	if (rs->state == RS_NEW || rs->state == RS_LISTENING ||
	    rs->state == RS_RESOLVING || rs->state == RS_CONNECTING)
		return cm_err(ENOTCONN);
	if (how == SHUT_RD || how == SHUT_RDWR)
		rs->shut_rd = true;
	if ((how == SHUT_WR || how == SHUT_RDWR) && !rs->fin_sent) {
		int tries = 0;

		rs->shut_wr = true;
		while ((rs->state == RS_CONNECTED ||
			rs->state == RS_ACCEPTING) && !rs_sq_room(rs) &&
		       tries++ < 200) {
			rs_wait(rs, 10);
			rs_progress(rs);
		}
		if ((rs->state == RS_CONNECTED || rs->state == RS_ACCEPTING) &&
		    rs_sq_room(rs) &&
		    !rs_post(rs, RS_MSG_FIN, NULL, 0, 0, 0, 0, 0))
			rs->fin_sent = true;
	}
	if (how == SHUT_RDWR && rs->state != RS_FAILED &&
	    rs->state != RS_CLOSED) {
		/* Delivered before the DREQ moves the QP to the error
		 * state, which would flush what is still queued. */
		rs_flush_sends(rs, RS_TIMEOUT_MS);
		rdma_disconnect(rs->id);
		rs->state = RS_CLOSED;
	}
	return 0;
}

/* ---- riomap and riowrite */

static void rs_announce(struct rs *rs, struct rs_map *m, bool unmap)
{
	struct rs_iomap_msg msg = {
		.offset = htobe64(m->offset),
		.addr = htobe64(m->addr),
		.len = htobe64(unmap ? 0 : m->len),
		.rkey = htobe32(m->rkey),
	};
	struct iovec iov = { &msg, sizeof(msg) };
	int tries = 0;

	if (rs->state != RS_CONNECTED)
		return;
	/* Rare and small: wait a little for room rather than lose it. */
	while (!(rs_sq_room(rs) && rs->credits > 0 &&
		 (rs->nfree > 0 || rs->max_inline >= sizeof(msg))) &&
	       rs->state == RS_CONNECTED && tries++ < 500) {
		rs_wait(rs, 10);
		rs_progress(rs);
	}
	if (rs_post(rs, RS_MSG_IOMAP, &iov, 1, 0, sizeof(msg), 0, 0))
		rs_log("socket %d: iomap announcement lost", rs->fd);
}

off_t rs_iomap(struct rs *rs, void *buf, size_t len, int prot, off_t off)
{
	struct rs_map *m = NULL;
	uint32_t i;

	if (prot != PROT_WRITE)
		return rs_refuse(EINVAL, "riomap: only PROT_WRITE windows");
	rs_progress(rs);
	if (rs->state != RS_CONNECTED && rs->state != RS_ACCEPTING)
		return rs_refuse(ENOTCONN, "riomap: not connected");
	for (i = 0; rs->lmaps && i < rs->nlmaps; i++)
		if (!rs->lmaps[i].used) {
			m = &rs->lmaps[i];
			break;
		}
	if (!m)
		return rs_refuse(ENOMEM, "riomap: no free window (the "
				 "peer's RDMA_IOMAPSIZE is %u)", rs->nlmaps);
	if (off == -1) {
		/* As rdma-core: the buffer's address is its offset. */
		off = (off_t)(uintptr_t)buf;
	} else if (off < 0) {
		return cm_err(EINVAL);
	}
	m->mr = ibv_reg_mr(rs->pd, buf, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!m->mr)
		return -1;
	m->offset = (uint64_t)off;
	m->len = len;
	m->addr = (uintptr_t)buf;
	m->rkey = m->mr->rkey;
	m->used = true;
	rs_announce(rs, m, false);
	return off;
}

int rs_iounmap(struct rs *rs, void *buf, size_t len)
{
	uint32_t i;

	for (i = 0; rs->lmaps && i < rs->nlmaps; i++) {
		struct rs_map *m = &rs->lmaps[i];

		if (m->used && m->addr == (uintptr_t)buf && m->len == len) {
			rs_announce(rs, m, true);
			ibv_dereg_mr(m->mr);
			memset(m, 0, sizeof(*m));
			return 0;
		}
	}
	return rs_refuse(EINVAL, "riounmap: no such window");
}

static struct rs_map *rs_rmap_find(struct rs *rs, uint64_t off)
{
	uint32_t i;

	for (i = 0; i < rs->nrmaps; i++)
		if (rs->rmaps[i].used && off >= rs->rmaps[i].offset &&
		    off < rs->rmaps[i].offset + rs->rmaps[i].len)
			return &rs->rmaps[i];
	return NULL;
}

ssize_t rs_iowrite(struct rs *rs, const void *buf, size_t count, off_t off,
		   int flags)
{
	struct iovec iov = { (void *)buf, count };
	size_t done = 0;
	int err;

	rs_progress(rs);
	if (rs_wait_connected(rs, flags))
		return -1;
	while (done < count) {
		struct rs_map *m;
		size_t n = count - done;

		if (rs->state != RS_CONNECTED || rs->shut_wr)
			return done ? (ssize_t)done : cm_err(ECONNRESET);
		m = rs_rmap_find(rs, (uint64_t)off + done);
		if (!m)
			return done ? (ssize_t)done :
				      rs_refuse(EINVAL, "riowrite: offset "
						"%lld not mapped by the peer",
						(long long)off + (long long)done);
		if (n > m->offset + m->len - ((uint64_t)off + done))
			n = m->offset + m->len - ((uint64_t)off + done);
		if (n > rs->seg)
			n = rs->seg;
		if (rs_sq_room(rs) && (rs->nfree || n <= rs->max_inline)) {
			err = rs_post(rs, 0, &iov, 1, done, n,
				      m->addr + ((uint64_t)off + done -
						 m->offset),
				      m->rkey);
			if (err)
				return done ? (ssize_t)done : cm_err(err);
			done += n;
			continue;
		}
		rs_progress(rs);
		if (rs_sq_room(rs) && (rs->nfree || n <= rs->max_inline))
			continue;
		if (rs_nonblock(rs, flags))
			return done ? (ssize_t)done : cm_err(EAGAIN);
		if (rs_wait(rs, -1) && errno != ETIMEDOUT)
			return done ? (ssize_t)done : -1;
	}
	return (ssize_t)done;
}
