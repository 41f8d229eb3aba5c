/* include/emuverbs/trace.h: what the emulated device offers its own
 * librdmacm for the event trace (doc/observability.md): librdmacm's
 * events go into the trace the device writes, when one runs. Exported
 * under EMUVERBS_PRIVATE_1; not installed. */
#ifndef EMUVERBS_TRACE_H
#define EMUVERBS_TRACE_H

#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An rdma_cm event (its name as rdma_event_str gives it, its status) of
 * the id whose QP is qpn (0: none) between the addresses src and dst
 * (either may be NULL): one "cm" line in the running trace, nothing when
 * none runs.
 */
void emuverbs_trace_cm(const char *event, int status, uint32_t qpn,
		       const struct sockaddr *src,
		       const struct sockaddr *dst);

#ifdef __cplusplus
}
#endif

#endif
