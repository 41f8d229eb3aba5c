/* include/emuverbs/port.h: a running emulated port's link, in process, for
 * tests and experiments: state, speed and width, latency and jitter.
 * Exported under EMUVERBS_PRIVATE_1. */
#ifndef EMUVERBS_PORT_H
#define EMUVERBS_PORT_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Change port_num of ctx's device: settings is "key=value ..." of the port
 * keys state (active, down), speed (SDR .. XDR), width (1x .. 12x),
 * latency_us, jitter_us, jitter (constant, uniform, normal) and link_seed,
 * with the values the config file takes (doc/configuration.md). Every key
 * is checked before any applies. From the next packet on the port is paced
 * to the new rate and delayed by the new latency; ibv_query_port and
 * ibv_query_port_speed report them; a state change stops or resumes the
 * traffic and raises IBV_EVENT_PORT_ERR or IBV_EVENT_PORT_ACTIVE on every
 * context of the device. 0, or an errno (also in errno): EINVAL for no
 * such port or a bad setting, with "key: why" in err (errlen bytes; may be
 * NULL).
 */
int emuverbs_port_set(struct ibv_context *ctx, uint8_t port_num,
		      const char *settings, char *err, size_t errlen);

/*
 * The counters of port_num of ctx's device, one "name value" line each, as
 * `emuverbs stats` and the sysfs view's hw_counters show them: packets and
 * bytes each way by opcode class and NAK kind, fault rules' actions,
 * retransmissions, timeouts, NAKs acted on, duplicates, completions in
 * error, the congestion counters, drops by reason, the link's queue
 * (doc/counters.md lists every name; where rxe or mlx5 has the counter, it
 * has their name). Returns the length the whole text needs (as snprintf),
 * writing what fits into buf; -1 with errno EINVAL for no such port.
 */
int emuverbs_port_counters(struct ibv_context *ctx, uint8_t port_num,
			   char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
