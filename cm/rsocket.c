/* cm/rsocket.c: the rsockets front end: the table from socket numbers to
 * sockets, and the calls that check their arguments and dispatch to the
 * stream (cm/rs_stream.c) or datagram (cm/rs_dgram.c) side: rsocket, rbind,
 * rlisten, raccept, rconnect, rshutdown, rclose, the send and receive
 * family, the socket options, rfcntl, the names, and riomap. */

/*
 * A socket's number is the descriptor of its own rdma_cm event channel,
 * as in rdma-core, so that it never collides with a real descriptor of
 * the process; the table maps it back to the socket. The errnos are
 * rdma-core's (doc/rsockets.md says where each comes from).
 */

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "cm/rs.h"

/* ---- The table */

static pthread_mutex_t rs_table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rs **rs_table;
static int rs_table_len;

static int rs_table_add(struct rs *rs)
{
	int err = 0;

	pthread_mutex_lock(&rs_table_lock);
	if (rs->fd >= rs_table_len) {
		int n = rs->fd + 64;
		struct rs **t = realloc(rs_table, n * sizeof(*t));

		if (!t) {
			err = ENOMEM;
			goto out;
		}
		memset(t + rs_table_len, 0, (n - rs_table_len) * sizeof(*t));
		rs_table = t;
		rs_table_len = n;
	}
	rs_table[rs->fd] = rs;
out:
	pthread_mutex_unlock(&rs_table_lock);
	return err;
}

static void rs_table_del(struct rs *rs)
{
	pthread_mutex_lock(&rs_table_lock);
	if (rs->fd >= 0 && rs->fd < rs_table_len && rs_table[rs->fd] == rs)
		rs_table[rs->fd] = NULL;
	pthread_mutex_unlock(&rs_table_lock);
}

static struct rs *rs_lookup(int fd)
{
	struct rs *rs = NULL;

	pthread_mutex_lock(&rs_table_lock);
	if (fd >= 0 && fd < rs_table_len)
		rs = rs_table[fd];
	pthread_mutex_unlock(&rs_table_lock);
	return rs;
}

bool rs_is_ours(int fd)
{
	return rs_lookup(fd) != NULL;
}

struct rs *rs_get(int fd)
{
	struct rs *rs = rs_lookup(fd);

	if (!rs) {
		errno = EBADF;
		return NULL;
	}
	pthread_mutex_lock(&rs->lock);
	return rs;
}

void rs_put(struct rs *rs)
{
	int err = errno;

	pthread_mutex_unlock(&rs->lock);
	/* The callers return right after: what failed stays in errno. */
	errno = err;
}

/* ---- Creating and destroying */

static struct rs *rs_alloc(int domain, int type)
{
	struct rs *rs = calloc(1, sizeof(*rs));
	int fl;

	if (!rs)
		return cm_err_null(ENOMEM);
	rs->fd = -1;
	rs->domain = domain;
	rs->type = type;
	rs->sndbuf = RS_DEF_BUF;
	rs->rcvbuf = RS_DEF_BUF;
	rs->inline_size = RS_DEF_INLINE;
	pthread_mutex_init(&rs->lock, NULL);
	rs->ch = rdma_create_event_channel();
	if (!rs->ch)
		goto fail;
	/* Progress never blocks on the channel; waits poll it. */
	fl = fcntl(rs->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(rs->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto fail;
	rs->fd = rs->ch->fd;
	return rs;
fail:
	if (rs->ch)
		rdma_destroy_event_channel(rs->ch);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
	return NULL;
}

static void rs_free(struct rs *rs)
{
	int i;

	rs_table_del(rs);
	if (rs->type == SOCK_STREAM)
		rs_stream_free(rs);
	else
		rs_dgram_free(rs);
	for (i = 0; i < rs->nbacklog; i++)
		rdma_reject(rs->backlog[i], NULL, 0),
			rdma_destroy_id(rs->backlog[i]);
	free(rs->backlog);
	if (rs->id)
		rdma_destroy_id(rs->id);
	rdma_destroy_event_channel(rs->ch);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
}

int rsocket(int domain, int type, int protocol)
{
	int flags = type & (SOCK_CLOEXEC | SOCK_NONBLOCK);
	enum rdma_port_space ps;
	struct rs *rs;
	int err;

	type &= ~(SOCK_CLOEXEC | SOCK_NONBLOCK);
	if ((domain != AF_INET && domain != AF_INET6 && domain != AF_IB) ||
	    (type != SOCK_STREAM && type != SOCK_DGRAM) ||
	    (type == SOCK_STREAM && protocol && protocol != IPPROTO_TCP) ||
	    (type == SOCK_DGRAM && protocol && protocol != IPPROTO_UDP))
		return rs_refuse(ENOTSUP, "domain %d type %d protocol %d "
				 "not supported", domain, type, protocol);
	if (type == SOCK_DGRAM && domain == AF_IB)
		return rs_refuse(ENOTSUP, "no AF_IB datagrams");
	rs = rs_alloc(domain, type);
	if (!rs)
		return -1;
	/* The channel's descriptor is close-on-exec already. */
	if (flags & SOCK_NONBLOCK)
		rs->fl = O_NONBLOCK;
	ps = type == SOCK_STREAM ? RDMA_PS_TCP : RDMA_PS_UDP;
	if (rdma_create_id(rs->ch, &rs->id, rs, ps))
		goto fail;
	err = rs_table_add(rs);
	if (err) {
		errno = err;
		goto fail;
	}
	return rs->fd;
fail:
	err = errno;
	rs_free(rs);
	errno = err;
	return -1;
}

int rclose(int socket)
{
	struct rs *rs = rs_get(socket);

	if (!rs)
		return -1;
	rs_table_del(rs);
	if (rs->type == SOCK_STREAM &&
	    (rs->state == RS_CONNECTED || rs->state == RS_ACCEPTING))
		rs_stream_shutdown(rs, SHUT_RDWR);
	rs_put(rs);
	rs_free(rs);
	return 0;
}

/* ---- Addresses */

static int rs_check_addr(struct rs *rs, const struct sockaddr *addr,
			 socklen_t len)
{
	socklen_t need = cm_addrlen(addr);

	if (!addr || need == 0 || len < need)
		return EINVAL;
	if (rs->type == SOCK_DGRAM && addr->sa_family != AF_INET &&
	    addr->sa_family != AF_INET6)
		return EAFNOSUPPORT;
	return 0;
}

int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rs *rs = rs_get(socket);
	int err, ret;

	if (!rs)
		return -1;
	err = rs_check_addr(rs, addr, addrlen);
	if (err || rs->state != RS_NEW || rs->bound) {
		rs_put(rs);
		return rs_refuse(err ? err : EINVAL,
				 "rbind: bad address or already bound");
	}
	if (rs->type == SOCK_STREAM) {
		ret = rdma_bind_addr(rs->id, (struct sockaddr *)addr);
		if (!ret)
			rs->bound = true;
	} else {
		ret = rs_dgram_bind(rs, addr);
	}
	rs_put(rs);
	return ret;
}

int rlisten(int socket, int backlog)
{
	struct rs *rs = rs_get(socket);
	int err, ret;

	if (!rs)
		return -1;
	if (rs->type != SOCK_STREAM) {
		rs_put(rs);
		return rs_refuse(EOPNOTSUPP, "rlisten: not a stream socket");
	}
	if (rs->state == RS_LISTENING) {
		rs_put(rs);
		return 0;
	}
	if (rs->state != RS_NEW) {
		rs_put(rs);
		return rs_refuse(EINVAL, "rlisten: socket is connected");
	}
	if (backlog <= 0 || backlog > 1024)
		backlog = 1024;
	free(rs->backlog);
	rs->backlog = calloc(backlog, sizeof(*rs->backlog));
	if (!rs->backlog) {
		rs_put(rs);
		return cm_err(ENOMEM);
	}
	rs->backlog_max = backlog;
	ret = rdma_listen(rs->id, backlog);
	err = errno;
	if (!ret) {
		rs->state = RS_LISTENING;
		rs->bound = true;
	}
	rs_put(rs);
	errno = err;
	return ret;
}

static void rs_copy_addr(struct sockaddr *to, socklen_t *tolen,
			 const struct sockaddr *from)
{
	socklen_t len = cm_addrlen(from);

	if (!to || !tolen)
		return;
	if (len == 0) {
		/* Nothing known yet: the family's wildcard. */
		*tolen = 0;
		return;
	}
	memcpy(to, from, *tolen < len ? *tolen : len);
	*tolen = len;
}

int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rs *lrs = rs_get(socket), *rs;
	struct rdma_cm_id *child;
	int err;

	if (!lrs)
		return -1;
	if (lrs->state != RS_LISTENING) {
		/* rdma-core's raccept finds no listener: EBADF. */
		rs_put(lrs);
		return rs_refuse(EBADF, "raccept: socket is not listening");
	}
	for (;;) {
		rs_progress(lrs);
		if (lrs->nbacklog)
			break;
		if (lrs->fl & O_NONBLOCK) {
			rs_put(lrs);
			return cm_err(EAGAIN);
		}
		if (rs_wait(lrs, -1)) {
			err = errno;
			rs_put(lrs);
			return cm_err(err);
		}
	}
	child = lrs->backlog[0];
	memmove(lrs->backlog, lrs->backlog + 1,
		--lrs->nbacklog * sizeof(*lrs->backlog));
	err = rs_stream_accept(lrs, child, &rs) ? errno : 0;
	rs_put(lrs);
	if (err)
		return cm_err(err);
	if (rs_table_add(rs)) {
		pthread_mutex_lock(&rs->lock);
		rs_put(rs);
		rs_free(rs);
		return cm_err(ENOMEM);
	}
	rs_copy_addr(addr, addrlen, rdma_get_peer_addr(rs->id));
	return rs->fd;
}

int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rs *rs = rs_get(socket);
	int err, ret;

	if (!rs)
		return -1;
	err = rs_check_addr(rs, addr, addrlen);
	if (err) {
		rs_put(rs);
		return rs_refuse(err, "rconnect: bad address");
	}
	ret = rs->type == SOCK_STREAM ? rs_stream_connect(rs, addr) :
					rs_dgram_connect(rs, addr);
	rs_put(rs);
	return ret;
}

int rshutdown(int socket, int how)
{
	struct rs *rs = rs_get(socket);
	int ret;

	if (!rs)
		return -1;
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) {
		rs_put(rs);
		return rs_refuse(EINVAL, "rshutdown: how %d", how);
	}
	if (rs->type != SOCK_STREAM) {
		/* Datagrams have no connection to shut. */
		rs_put(rs);
		return 0;
	}
	if (rs->state != RS_CONNECTED && rs->state != RS_ACCEPTING &&
	    rs->state != RS_CLOSED) {
		/* As rdma-core: nothing to shut, and no error. */
		rs_put(rs);
		return 0;
	}
	ret = rs_stream_shutdown(rs, how);
	rs_put(rs);
	return ret;
}

/* ---- Sending and receiving */

static ssize_t rs_sendv(int socket, const struct iovec *iov, int iovcnt,
			int flags, const struct sockaddr *to, socklen_t tolen)
{
	struct rs *rs;
	ssize_t ret;

	if (iovcnt < 0 || (iovcnt && !iov))
		return cm_err(EINVAL);
	rs = rs_get(socket);
	if (!rs)
		return -1;
	if (rs->type == SOCK_STREAM && to) {
		ret = rs_refuse(EISCONN, "rsendto: a stream has its peer");
	} else if (rs->type == SOCK_STREAM) {
		ret = rs_stream_send(rs, iov, iovcnt, flags);
	} else if (to && rs_check_addr(rs, to, tolen)) {
		ret = rs_refuse(EINVAL, "rsendto: bad address");
	} else {
		ret = rs_dgram_send(rs, iov, iovcnt, flags, to);
	}
	rs_put(rs);
	return ret;
}

static ssize_t rs_recvv(int socket, const struct iovec *iov, int iovcnt,
			int flags, struct sockaddr *from, socklen_t *fromlen)
{
	struct rs *rs;
	ssize_t ret;

	if (iovcnt < 0 || (iovcnt && !iov))
		return cm_err(EINVAL);
	rs = rs_get(socket);
	if (!rs)
		return -1;
	if (rs->type == SOCK_STREAM) {
		ret = rs_stream_recv(rs, iov, iovcnt, flags);
		if (ret >= 0 && from && fromlen)
			rs_copy_addr(from, fromlen, rdma_get_peer_addr(rs->id));
	} else {
		ret = rs_dgram_recv(rs, iov, iovcnt, flags, from, fromlen);
	}
	rs_put(rs);
	return ret;
}

ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	struct iovec iov = { (void *)buf, len };

	return rs_sendv(socket, &iov, 1, flags, NULL, 0);
}

ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
		const struct sockaddr *dest_addr, socklen_t addrlen)
{
	struct iovec iov = { (void *)buf, len };

	return rs_sendv(socket, &iov, 1, flags, dest_addr, addrlen);
}

ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	if (!msg)
		return cm_err(EINVAL);
	return rs_sendv(socket, msg->msg_iov, (int)msg->msg_iovlen, flags,
			msg->msg_name, msg->msg_namelen);
}

ssize_t rwrite(int socket, const void *buf, size_t count)
{
	return rsend(socket, buf, count, 0);
}

ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	return rs_sendv(socket, iov, iovcnt, 0, NULL, 0);
}

ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	struct iovec iov = { buf, len };

	return rs_recvv(socket, &iov, 1, flags, NULL, NULL);
}

ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags,
		  struct sockaddr *src_addr, socklen_t *addrlen)
{
	struct iovec iov = { buf, len };

	return rs_recvv(socket, &iov, 1, flags, src_addr, addrlen);
}

ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	socklen_t len;
	ssize_t ret;

	if (!msg)
		return cm_err(EINVAL);
	len = msg->msg_namelen;
	ret = rs_recvv(socket, msg->msg_iov, (int)msg->msg_iovlen, flags,
		       msg->msg_name, msg->msg_name ? &len : NULL);
	if (ret >= 0) {
		if (msg->msg_name)
			msg->msg_namelen = len;
		msg->msg_controllen = 0;
		msg->msg_flags = 0;
	}
	return ret;
}

ssize_t rread(int socket, void *buf, size_t count)
{
	return rrecv(socket, buf, count, 0);
}

ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	return rs_recvv(socket, iov, iovcnt, 0, NULL, NULL);
}

/* ---- Names */

static int rs_name(int socket, struct sockaddr *addr, socklen_t *addrlen,
		   bool peer)
{
	struct rs *rs;

	if (!addr || !addrlen)
		return cm_err(EINVAL);
	rs = rs_get(socket);
	if (!rs)
		return -1;
	if (peer && rs->type == SOCK_STREAM &&
	    rs->state != RS_CONNECTED && rs->state != RS_ACCEPTING &&
	    rs->state != RS_CLOSED) {
		rs_put(rs);
		return cm_err(ENOTCONN);
	}
	if (peer && rs->type == SOCK_DGRAM && !rs->conn_dest) {
		rs_put(rs);
		return cm_err(ENOTCONN);
	}
	if (peer && rs->type == SOCK_DGRAM)
		rs_copy_addr(addr, addrlen, rs_dgram_peer(rs));
	else
		rs_copy_addr(addr, addrlen,
			     peer ? rdma_get_peer_addr(rs->id) :
				    rdma_get_local_addr(rs->id));
	if (*addrlen == 0) {
		/* Unbound: the family's wildcard, port 0. */
		struct sockaddr_storage any = { .ss_family = rs->domain };

		*addrlen = rs->domain == AF_INET6 ?
				   sizeof(struct sockaddr_in6) :
				   sizeof(struct sockaddr_in);
		memcpy(addr, &any, *addrlen);
	}
	rs_put(rs);
	return 0;
}

int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return rs_name(socket, addr, addrlen, true);
}

int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return rs_name(socket, addr, addrlen, false);
}

/* ---- Options */

static bool rs_before_connect(struct rs *rs)
{
	return rs->state == RS_NEW || rs->state == RS_LISTENING;
}

static int rs_set_int(int *to, const void *v, socklen_t len)
{
	if (!v || len < sizeof(int))
		return EINVAL;
	*to = *(const int *)v;
	return 0;
}

static int rs_set_u32(uint32_t *to, const void *v, socklen_t len)
{
	if (!v || len < sizeof(uint32_t))
		return EINVAL;
	*to = *(const uint32_t *)v;
	return 0;
}

static int rs_setopt(struct rs *rs, int level, int name, const void *v,
		     socklen_t len)
{
	int err, on;

	switch (level) {
	case SOL_SOCKET:
		switch (name) {
		case SO_REUSEADDR:
			err = rs_set_int(&rs->opt_reuse, v, len);
			if (err || rs->type != SOCK_STREAM)
				return err;
			on = rs->opt_reuse != 0;
			if (rdma_set_option(rs->id, RDMA_OPTION_ID,
					    RDMA_OPTION_ID_REUSEADDR, &on,
					    sizeof(on)))
				return errno;
			return 0;
		case SO_RCVBUF:
		case SO_SNDBUF:
			/* Doubled, as Linux and rdma-core store it; it sizes
			 * buffers made later, so a change after connecting
			 * is kept but has no effect. */
			err = rs_set_int(&on, v, len);
			if (err)
				return err;
			if (on < 0 || on > (1 << 28))
				return EINVAL;
			*(name == SO_RCVBUF ? &rs->rcvbuf : &rs->sndbuf) =
				2 * on;
			return 0;
		case SO_LINGER:
			if (!v || len < sizeof(struct linger))
				return EINVAL;
			memcpy(&rs->linger, v, sizeof(rs->linger));
			return 0;
		case SO_KEEPALIVE:
			return rs_set_int(&rs->opt_keepalive, v, len);
		case SO_OOBINLINE:
			return rs_set_int(&rs->opt_oobinline, v, len);
		}
		break;
	case IPPROTO_TCP:
		if (rs->type != SOCK_STREAM)
			break;
		switch (name) {
		case TCP_NODELAY:
			return rs_set_int(&rs->opt_nodelay, v, len);
		case TCP_MAXSEG:
			return 0;
		case TCP_KEEPIDLE:
			return rs_set_int(&rs->opt_keepidle, v, len);
		}
		break;
	case IPPROTO_IPV6:
		if (name == IPV6_V6ONLY) {
			err = rs_set_int(&rs->opt_v6only, v, len);
			if (err)
				return err;
			on = rs->opt_v6only != 0;
			if (rdma_set_option(rs->id, RDMA_OPTION_ID,
					    RDMA_OPTION_ID_AFONLY, &on,
					    sizeof(on)))
				return errno;
			return 0;
		}
		break;
	case SOL_RDMA:
		if (!rs_before_connect(rs))
			return EINVAL;
		switch (name) {
		case RDMA_SQSIZE:
			return rs_set_u32(&rs->sq_size, v, len);
		case RDMA_RQSIZE:
			return rs_set_u32(&rs->rq_size, v, len);
		case RDMA_INLINE:
			return rs_set_u32(&rs->inline_size, v, len);
		case RDMA_IOMAPSIZE:
			err = rs_set_u32(&rs->iomap_size, v, len);
			if (!err && rs->iomap_size > 1024)
				rs->iomap_size = 1024;
			return err;
		case RDMA_ROUTE:
			/* The CM resolves the route itself. */
			rs_log("RDMA_ROUTE: paths are resolved by the CM");
			return ENOTSUP;
		}
		break;
	}
	rs_log("setsockopt: level %d option %d not supported", level, name);
	return ENOTSUP;
}

int rsetsockopt(int socket, int level, int optname, const void *optval,
		socklen_t optlen)
{
	struct rs *rs = rs_get(socket);
	int err;

	if (!rs)
		return -1;
	err = rs_setopt(rs, level, optname, optval, optlen);
	rs_put(rs);
	return err ? cm_err(err) : 0;
}

static int rs_get_int(void *v, socklen_t *len, int val)
{
	if (!v || !len || *len < sizeof(int))
		return EINVAL;
	*(int *)v = val;
	*len = sizeof(int);
	return 0;
}

static int rs_getopt(struct rs *rs, int level, int name, void *v,
		     socklen_t *len)
{
	switch (level) {
	case SOL_SOCKET:
		switch (name) {
		case SO_REUSEADDR:
			return rs_get_int(v, len, rs->opt_reuse);
		case SO_RCVBUF:
			return rs_get_int(v, len, rs->rcvbuf);
		case SO_SNDBUF:
			return rs_get_int(v, len, rs->sndbuf);
		case SO_KEEPALIVE:
			return rs_get_int(v, len, rs->opt_keepalive);
		case SO_OOBINLINE:
			return rs_get_int(v, len, rs->opt_oobinline);
		case SO_LINGER:
			if (!v || !len || *len < sizeof(struct linger))
				return EINVAL;
			memcpy(v, &rs->linger, sizeof(rs->linger));
			*len = sizeof(struct linger);
			return 0;
		case SO_ERROR: {
			int e;

			rs_progress(rs);
			e = rs->err;
			rs->err = 0;
			return rs_get_int(v, len, e);
		}
		case SO_TYPE:
			return rs_get_int(v, len, rs->type);
		}
		break;
	case IPPROTO_TCP:
		if (rs->type != SOCK_STREAM)
			break;
		switch (name) {
		case TCP_NODELAY:
			return rs_get_int(v, len, rs->opt_nodelay);
		case TCP_MAXSEG:
			return rs_get_int(v, len, rs->seg ? rs->seg : RS_SEG);
		case TCP_KEEPIDLE:
			return rs_get_int(v, len, rs->opt_keepidle);
		}
		break;
	case IPPROTO_IPV6:
		if (name == IPV6_V6ONLY)
			return rs_get_int(v, len, rs->opt_v6only);
		break;
	case SOL_RDMA:
		switch (name) {
		case RDMA_SQSIZE:
			return rs_get_int(v, len, rs->sq_size ? rs->sq_size :
					  rs->nsend);
		case RDMA_RQSIZE:
			return rs_get_int(v, len, rs->rq_size ? rs->rq_size :
					  rs->nrecv);
		case RDMA_INLINE:
			return rs_get_int(v, len, rs->inline_size);
		case RDMA_IOMAPSIZE:
			return rs_get_int(v, len, rs->iomap_size);
		}
		break;
	}
	rs_log("getsockopt: level %d option %d not supported", level, name);
	return ENOTSUP;
}

int rgetsockopt(int socket, int level, int optname, void *optval,
		socklen_t *optlen)
{
	struct rs *rs = rs_get(socket);
	int err;

	if (!rs)
		return -1;
	err = rs_getopt(rs, level, optname, optval, optlen);
	rs_put(rs);
	return err ? cm_err(err) : 0;
}

int rfcntl(int socket, int cmd, ...)
{
	struct rs *rs = rs_get(socket);
	va_list ap;
	int ret = 0, arg;

	if (!rs)
		return -1;
	va_start(ap, cmd);
	switch (cmd) {
	case F_GETFL:
		ret = rs->fl;
		break;
	case F_SETFL:
		arg = va_arg(ap, int);
		rs->fl = arg & O_NONBLOCK;
		break;
	default:
		rs_log("fcntl: command %d not supported", cmd);
		ret = cm_err(ENOSYS);
	}
	va_end(ap);
	rs_put(rs);
	return ret;
}

/* ---- riomap */

off_t riomap(int socket, void *buf, size_t len, int prot, int flags,
	     off_t offset)
{
	struct rs *rs;
	off_t ret;

	if (!buf || !len || flags)
		return cm_err(EINVAL);
	rs = rs_get(socket);
	if (!rs)
		return -1;
	if (rs->type != SOCK_STREAM) {
		rs_put(rs);
		return rs_refuse(EOPNOTSUPP, "riomap: not a stream socket");
	}
	ret = rs_iomap(rs, buf, len, prot, offset);
	rs_put(rs);
	return ret;
}

int riounmap(int socket, void *buf, size_t len)
{
	struct rs *rs = rs_get(socket);
	int ret;

	if (!rs)
		return -1;
	ret = rs->type == SOCK_STREAM ? rs_iounmap(rs, buf, len) :
					cm_err(EINVAL);
	rs_put(rs);
	return ret;
}

size_t riowrite(int socket, const void *buf, size_t count, off_t offset,
		int flags)
{
	struct rs *rs;
	ssize_t ret;

	if (!buf && count)
		return (size_t)cm_err(EINVAL);
	rs = rs_get(socket);
	if (!rs)
		return (size_t)-1;
	ret = rs->type == SOCK_STREAM ?
		      rs_iowrite(rs, buf, count, offset, flags) :
		      cm_err(EOPNOTSUPP);
	rs_put(rs);
	return (size_t)ret;
}
