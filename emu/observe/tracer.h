/* The process's event trace: started by EMUVERBS_TRACE when the first
 * device opens or by the control socket (`emuverbs trace --events`), it
 * records what the devices do (QP states, retransmissions, NAKs, timeouts,
 * fault actions, port and async events, librdmacm's events) and, every
 * interval, each busy QP's counters. Event sites test emu_trace_on()
 * first: one predictable branch while no trace runs. */
#ifndef EMU_TRACER_H
#define EMU_TRACER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct emu_ctl_out;
struct emu_device;
struct emu_fault_rule;
struct emu_port;
struct emu_qp;
struct emu_tport;

/* The default time between two samples of the QPs' counters. */
#define EMU_TRACE_INTERVAL_MS	100

extern atomic_bool emu_tracing;

static inline bool emu_trace_on(void)
{
	return __builtin_expect(atomic_load_explicit(&emu_tracing,
						     memory_order_relaxed), 0);
}

/*
 * Start tracing into path (absolute, or relative to the process's working
 * directory; "%p" is replaced by the process's PID), sampling every
 * interval_ms: 0, or -1 with a one-line reason (a trace runs already, the
 * file cannot be made) and nothing changed. Not on an engine thread.
 */
int emu_tracer_start(const char *path, unsigned int interval_ms, char *why,
		     size_t whylen);
/* Stop: a last sample of every QP, then the file is closed; what it
 * holds into info. -1 when no trace runs. Not on an engine thread. */
int emu_tracer_stop(char *info, size_t len);
/* "trace running PATH events N" or "trace off". */
void emu_tracer_status(char *buf, size_t len);

/* A device's engine starts or stops (engine thread): its sampling, and
 * EMUVERBS_TRACE's start on the process's first. */
void emu_tracer_device_up(struct emu_device *dev);
void emu_tracer_device_down(struct emu_device *dev);

/* Events. Each writes one line if a trace runs; call them behind
 * emu_trace_on(). */
void emu_trace_qp_state(struct emu_qp *qp, enum ibv_qp_state from,
			enum ibv_qp_state to);
void emu_trace_async(struct emu_qp *qp, enum ibv_event_type type);
/* The requester goes back to psn: packets sent before go out again. */
void emu_trace_retransmit(struct emu_qp *qp, uint32_t psn, uint32_t packets);
void emu_trace_timeout(struct emu_qp *qp, uint32_t psn,
		       unsigned int retries_left);
/* A NAK (AETH syndrome syn) for psn, sent or received by qp. */
void emu_trace_nak(struct emu_qp *qp, bool sent, uint8_t syn, uint32_t psn);
/* Rule r acted on a packet (dir EMU_FAULT_TX or _RX; its BTH at bth). */
void emu_trace_fault(struct emu_tport *tp, const struct emu_fault_rule *r,
		     uint8_t dir, const uint8_t *bth, uint32_t len);
/* An event rule fired (done: there was something to do it to). */
void emu_trace_fault_event(struct emu_device *dev,
			   const struct emu_fault_rule *r, bool done);
/* A port changed: its state, speed and width, or its GID table. */
void emu_trace_port(struct emu_port *port, const char *what);
/* Any other event: fields as emu_trace_event takes them. */
void emu_trace_emit(const char *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The control socket's command: trace start PATH [interval MS] | stop |
 * status (emu/observe/watch_ctl.c). */
void emu_tracer_ctl(int argc, char **argv, struct emu_ctl_out *o);

#endif
