/* rdma_get_src_port and rdma_get_dst_port: the port number inside an
 * rdma_cm_id's source or destination address. */

#include <endian.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

#include "cm/cm.h"

/*
 * The port of a socket address in network order: sin_port or sin6_port,
 * and for AF_IB the low 16 bits of the service ID (where the rdma_cm's
 * IP port spaces keep the port). 0 for any other family, as for an id not
 * bound yet (its addresses are all zero).
 */
static __be16 cm_sockaddr_port(const struct sockaddr *addr)
{
	const struct sockaddr_ib *sib;

	switch (addr->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)addr)->sin_port;
	case AF_INET6:
		return ((const struct sockaddr_in6 *)addr)->sin6_port;
	case AF_IB:
		sib = (const struct sockaddr_ib *)addr;
		return htobe16((uint16_t)be64toh(sib->sib_sid));
	default:
		return 0;
	}
}

__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	if (id == NULL)
		return 0;
	return cm_sockaddr_port(&id->route.addr.src_addr);
}

__be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	if (id == NULL)
		return 0;
	return cm_sockaddr_port(&id->route.addr.dst_addr);
}
