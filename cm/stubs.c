/* cm/stubs.c: the librdmacm calls emuverbs does not implement: multicast
 * (EOPNOTSUPP), asynchronous addrinfo resolution and rsockets (ENOSYS).
 * Each checks what it obviously can first. */

/*
 * Every symbol in cm/librdmacm.map needs a definition, so that a program
 * linked against rdma-core's librdmacm loads against ours and fails where
 * it uses what is missing instead of at startup. The conventions are
 * librdmacm's: int calls return 0, or -1 with errno set; arguments the
 * call can never accept are refused first with EINVAL (ENOTSUP for
 * unknown rdma_join_multicast_ex mask bits, as rdma-core).
 *
 * Multicast fails with EOPNOTSUPP: the emulated device has no multicast
 * groups (doc/rdma-cm.md). rsockets fail with ENOSYS whatever their
 * arguments: no rsocket of ours exists, so each descriptor they are given
 * is one they do not own.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>

#include "cm/cm.h"
#include "emu/log.h"

/* A stub's whole point is to ignore most of its arguments. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

static int cm_nosys(void)
{
	return cm_err(ENOSYS);
}

/* No multicast groups on the emulated device. */
static int cm_no_multicast(const char *call)
{
	emu_log(EMU_LOG_CM, "%s: multicast is not supported", call);
	return cm_err(EOPNOTSUPP);
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
/* Multicast                                                          */

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			void *context)
{
	if (id == NULL || cm_addrlen(addr) == 0)
		return cm_err(EINVAL);
	return cm_no_multicast("rdma_join_multicast");
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
	return cm_no_multicast("rdma_join_multicast_ex");
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (id == NULL || cm_addrlen(addr) == 0)
		return cm_err(EINVAL);
	return cm_no_multicast("rdma_leave_multicast");
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
