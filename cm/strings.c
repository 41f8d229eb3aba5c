/* rdma_event_str: the names of the rdma_cm's events, as programs print
 * them. */

/*
 * Each string is the enumerator's own name, byte for byte what rdma-core
 * 65 returns; test suites and scripts grep program output for them. The
 * two events rdma-core has no name for (RDMA_CM_EVENT_USER and _INTERNAL)
 * and any value outside the enum are "UNKNOWN EVENT", as there. Indexed
 * by the int value so that a value a newer header knows reaches the
 * default rather than being undefined behaviour.
 */

#include <rdma/rdma_cma.h>

#define CM_EVENT_NAME(e) [e] = #e

static const char *const cm_event_names[] = {
	CM_EVENT_NAME(RDMA_CM_EVENT_ADDR_RESOLVED),
	CM_EVENT_NAME(RDMA_CM_EVENT_ADDR_ERROR),
	CM_EVENT_NAME(RDMA_CM_EVENT_ROUTE_RESOLVED),
	CM_EVENT_NAME(RDMA_CM_EVENT_ROUTE_ERROR),
	CM_EVENT_NAME(RDMA_CM_EVENT_CONNECT_REQUEST),
	CM_EVENT_NAME(RDMA_CM_EVENT_CONNECT_RESPONSE),
	CM_EVENT_NAME(RDMA_CM_EVENT_CONNECT_ERROR),
	CM_EVENT_NAME(RDMA_CM_EVENT_UNREACHABLE),
	CM_EVENT_NAME(RDMA_CM_EVENT_REJECTED),
	CM_EVENT_NAME(RDMA_CM_EVENT_ESTABLISHED),
	CM_EVENT_NAME(RDMA_CM_EVENT_DISCONNECTED),
	CM_EVENT_NAME(RDMA_CM_EVENT_DEVICE_REMOVAL),
	CM_EVENT_NAME(RDMA_CM_EVENT_MULTICAST_JOIN),
	CM_EVENT_NAME(RDMA_CM_EVENT_MULTICAST_ERROR),
	CM_EVENT_NAME(RDMA_CM_EVENT_ADDR_CHANGE),
	CM_EVENT_NAME(RDMA_CM_EVENT_TIMEWAIT_EXIT),
	CM_EVENT_NAME(RDMA_CM_EVENT_ADDRINFO_RESOLVED),
	CM_EVENT_NAME(RDMA_CM_EVENT_ADDRINFO_ERROR),
};

const char *rdma_event_str(enum rdma_cm_event_type event)
{
	unsigned int i = (unsigned int)event;

	if (i < sizeof(cm_event_names) / sizeof(cm_event_names[0]) &&
	    cm_event_names[i] != NULL)
		return cm_event_names[i];
	return "UNKNOWN EVENT";
}
