/* What the files of cm/ (librdmacm.so.1) share: librdmacm's way of
 * failing, and the length of the socket addresses it accepts. */
#ifndef CM_CM_H
#define CM_CM_H

#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <infiniband/ib.h>

/*
 * librdmacm calls fail as system calls do: -1 with errno = err (rdma-core
 * returns the result of write(2) on the rdma_cm device, or sets errno
 * itself for what it checks first).
 */
static inline int cm_err(int err)
{
	errno = err;
	return -1;
}

/* NULL with errno = err, as the pointer-returning calls fail. */
static inline void *cm_err_null(int err)
{
	errno = err;
	return NULL;
}

/*
 * sizeof the socket address addr points at, by family; 0 for NULL or a
 * family librdmacm does not take (AF_INET, AF_INET6 and AF_IB only).
 */
static inline socklen_t cm_addrlen(const struct sockaddr *addr)
{
	if (addr == NULL)
		return 0;
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	default:
		return 0;
	}
}

#endif
