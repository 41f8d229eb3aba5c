/* cm/stubs.c: the librdmacm calls emuverbs does not implement: multicast
 * (EOPNOTSUPP) and asynchronous addrinfo resolution (ENOSYS). Each checks
 * what it obviously can first. */

/*
 * Every symbol in cm/librdmacm.map needs a definition, so that a program
 * linked against rdma-core's librdmacm loads against ours and fails where
 * it uses what is missing instead of at startup. The conventions are
 * librdmacm's: int calls return 0, or -1 with errno set; arguments the
 * call can never accept are refused first with EINVAL (ENOTSUP for
 * unknown rdma_join_multicast_ex mask bits, as rdma-core).
 *
 * Multicast fails with EOPNOTSUPP: the emulated device has no multicast
 * groups (doc/rdma-cm.md).
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "cm/cm.h"
#include "emu/base/log.h"

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
