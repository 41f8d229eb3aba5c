/* Placeholder definitions for every librdmacm call emuverbs does not
 * implement yet: each checks what it obviously can and fails with ENOSYS. */

/*
 * Every symbol in cm/librdmacm.map needs a definition, so that a program
 * linked against rdma-core's librdmacm loads against ours and fails at its
 * first rdma_cm call instead of at startup. When a call gets a real
 * implementation elsewhere in cm/, delete its stub here: one function per
 * definition, so that removing one is a single hunk; this file is meant to
 * end up empty.
 *
 * The conventions are librdmacm's (its man pages): int calls return 0, or
 * -1 with errno set; pointer calls return NULL with errno set; void calls
 * cannot fail. Arguments the call can never accept are refused first with
 * EINVAL (ENOTSUP for unknown rdma_join_multicast_ex mask bits, as
 * rdma-core), so nothing here dereferences a NULL pointer; everything else
 * is ENOSYS. rdma_create_event_channel() failing is what programs meet
 * first: there is no connection manager behind these calls yet, so no
 * channel, id, event or device list of ours exists, and the destroy and
 * free calls (which could only be handed one) do nothing.
 *
 * rsockets fail with ENOSYS whatever their arguments: no rsocket of ours
 * exists either, so each descriptor they are given is one they do not own.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>

#include "cm/cm.h"

/* A stub's whole point is to ignore most of its arguments. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* The connection manager is not there yet. */
static int cm_nosys(void)
{
	return cm_err(ENOSYS);
}

/* Whether (data, len) can be private data: a length needs a buffer. */
static int cm_bad_private_data(const void *data, uint8_t len)
{
	return len != 0 && data == NULL;
}

static int cm_bad_conn_param(const struct rdma_conn_param *param)
{
	return param != NULL &&
	       cm_bad_private_data(param->private_data,
				   param->private_data_len);
}

/* ------------------------------------------------------------------ */
/* Event channels and events                                          */

struct rdma_event_channel *rdma_create_event_channel(void)
{
	return cm_err_null(ENOSYS);
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
}

int rdma_get_cm_event(struct rdma_event_channel *channel,
		      struct rdma_cm_event **event)
{
	if (channel == NULL || event == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	if (event == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_write_cm_event(struct rdma_cm_id *id, enum rdma_cm_event_type event,
			int status, uint64_t arg)
{
	/* the only event a program may write is its own */
	if (id == NULL || event != RDMA_CM_EVENT_USER)
		return cm_err(EINVAL);
	return cm_nosys();
}

/* ------------------------------------------------------------------ */
/* Identifiers                                                        */

int rdma_create_id(struct rdma_event_channel *channel,
		   struct rdma_cm_id **id, void *context,
		   enum rdma_port_space ps)
{
	if (id == NULL)
		return cm_err(EINVAL);
	switch (ps) {
	case RDMA_PS_IPOIB:
	case RDMA_PS_TCP:
	case RDMA_PS_UDP:
	case RDMA_PS_IB:
		break;
	default:
		return cm_err(EINVAL);
	}
	return cm_nosys();
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	if (id == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	if (id == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
		   struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	if (id == NULL || res == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
}

int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
		    void *optval, size_t optlen)
{
	if (id == NULL || optval == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

/* ------------------------------------------------------------------ */
/* Addresses and routes                                               */

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (id == NULL || cm_addrlen(addr) == 0)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      struct sockaddr *dst_addr, int timeout_ms)
{
	/* the source is optional, but when given it must be an address */
	if (id == NULL || cm_addrlen(dst_addr) == 0 ||
	    (src_addr != NULL && cm_addrlen(src_addr) == 0))
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	if (id == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_getaddrinfo(const char *node, const char *service,
		     const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	if ((node == NULL && service == NULL && hints == NULL) || res == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
}

int rdma_resolve_addrinfo(struct rdma_cm_id *id, const char *node,
			  const char *service,
			  const struct rdma_addrinfo *hints)
{
	if (id == NULL || (node == NULL && service == NULL))
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_query_addrinfo(struct rdma_cm_id *id, struct rdma_addrinfo **info)
{
	if (id == NULL || info == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

/* ------------------------------------------------------------------ */
/* Devices                                                            */

struct ibv_context **rdma_get_devices(int *num_devices)
{
	if (num_devices != NULL)
		*num_devices = 0;
	return cm_err_null(ENOSYS);
}

void rdma_free_devices(struct ibv_context **list)
{
}

/* ------------------------------------------------------------------ */
/* QPs and SRQs on an id                                              */

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr)
{
	if (id == NULL || qp_init_attr == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_create_qp_ex(struct rdma_cm_id *id,
		      struct ibv_qp_init_attr_ex *qp_init_attr)
{
	if (id == NULL || qp_init_attr == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	if (id == NULL || qp_attr == NULL || qp_attr_mask == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		    struct ibv_srq_init_attr *attr)
{
	if (id == NULL || attr == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_create_srq_ex(struct rdma_cm_id *id,
		       struct ibv_srq_init_attr_ex *attr)
{
	if (id == NULL || attr == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

void rdma_destroy_srq(struct rdma_cm_id *id)
{
}

/* ------------------------------------------------------------------ */
/* Connections                                                        */

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	if (id == NULL || cm_bad_conn_param(conn_param))
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_establish(struct rdma_cm_id *id)
{
	if (id == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	if (id == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	if (listen == NULL || id == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	if (id == NULL || cm_bad_conn_param(conn_param))
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		uint8_t private_data_len)
{
	if (id == NULL || cm_bad_private_data(private_data, private_data_len))
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
		    uint8_t private_data_len)
{
	if (id == NULL || cm_bad_private_data(private_data, private_data_len))
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	if (id == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	if (id == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

/* ECE of a program's own QP: none on an id that has a QP of the rdma_cm's,
 * and a local offer names its vendor and carries no unknown mask bits. */
int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	if (id == NULL || id->qp != NULL || ece == NULL ||
	    ece->vendor_id == 0 || ece->comp_mask != 0)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	if (id == NULL || id->qp != NULL || ece == NULL)
		return cm_err(EINVAL);
	return cm_nosys();
}

/* ------------------------------------------------------------------ */
/* Multicast                                                          */

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			void *context)
{
	if (id == NULL || cm_addrlen(addr) == 0)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_join_multicast_ex(struct rdma_cm_id *id,
			   struct rdma_cm_join_mc_attr_ex *mc_join_attr,
			   void *context)
{
	uint32_t need = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
			RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;

	if (id == NULL || mc_join_attr == NULL)
		return cm_err(EINVAL);
	if (mc_join_attr->comp_mask >= RDMA_CM_JOIN_MC_ATTR_RESERVED)
		return cm_err(ENOTSUP);
	if ((mc_join_attr->comp_mask & need) != need ||
	    mc_join_attr->join_flags >= RDMA_MC_JOIN_FLAG_RESERVED ||
	    cm_addrlen(mc_join_attr->addr) == 0)
		return cm_err(EINVAL);
	return cm_nosys();
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (id == NULL || cm_addrlen(addr) == 0)
		return cm_err(EINVAL);
	return cm_nosys();
}

/* ================================================================== */
/* rsockets                                                           */

int rsocket(int domain, int type, int protocol)
{
	return cm_nosys();
}

int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	return cm_nosys();
}

int rlisten(int socket, int backlog)
{
	return cm_nosys();
}

int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return cm_nosys();
}

int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	return cm_nosys();
}

int rshutdown(int socket, int how)
{
	return cm_nosys();
}

int rclose(int socket)
{
	return cm_nosys();
}

ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	return cm_nosys();
}

ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags,
		  struct sockaddr *src_addr, socklen_t *addrlen)
{
	return cm_nosys();
}

ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	return cm_nosys();
}

ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	return cm_nosys();
}

ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
		const struct sockaddr *dest_addr, socklen_t addrlen)
{
	return cm_nosys();
}

ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	return cm_nosys();
}

ssize_t rread(int socket, void *buf, size_t count)
{
	return cm_nosys();
}

ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	return cm_nosys();
}

ssize_t rwrite(int socket, const void *buf, size_t count)
{
	return cm_nosys();
}

ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	return cm_nosys();
}

int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return cm_nosys();
}

int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
	    struct timeval *timeout)
{
	return cm_nosys();
}

int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return cm_nosys();
}

int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return cm_nosys();
}

int rsetsockopt(int socket, int level, int optname, const void *optval,
		socklen_t optlen)
{
	return cm_nosys();
}

int rgetsockopt(int socket, int level, int optname, void *optval,
		socklen_t *optlen)
{
	return cm_nosys();
}

int rfcntl(int socket, int cmd, ...)
{
	return cm_nosys();
}

/* -1 as an off_t, as riomap() fails. */
off_t riomap(int socket, void *buf, size_t len, int prot, int flags,
	     off_t offset)
{
	return cm_nosys();
}

int riounmap(int socket, void *buf, size_t len)
{
	return cm_nosys();
}

/* (size_t)-1, as riowrite() fails. */
size_t riowrite(int socket, const void *buf, size_t count, off_t offset,
		int flags)
{
	return (size_t)cm_nosys();
}

int repoll_create(int flags)
{
	return cm_nosys();
}

int repoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
	return cm_nosys();
}

int repoll_wait(int epfd, struct epoll_event *events, int maxevents,
		int timeout)
{
	return cm_nosys();
}
