/* Control and observability as subscribers: the sysfs view follows the
 * registry, contexts and ports; hardware-counter files, captures and
 * traces join a device while its transport runs; the control socket
 * lives while a context is open; trace lines for what the objects and
 * the transport publish. Nothing below this room calls into it. */
#include "emu/device/device.h"
#include "emu/observe/capture.h"
#include "emu/observe/counters.h"
#include "emu/observe/ctl.h"
#include "emu/observe/hooks.h"
#include "emu/observe/hwcnt.h"
#include "emu/observe/sysview.h"
#include "emu/observe/tracer.h"

static void listed(struct emu_device *dev, const struct emu_config *cfg)
{
	(void)cfg;
	emu_sysview_refresh(dev);
}

static void up(struct emu_device *dev)
{
	emu_hwcnt_start(dev);
	/* Its ports join a capture, its QPs a trace (or EMUVERBS_CAPTURE's
	 * and EMUVERBS_TRACE's start with the process's first device). */
	emu_capture_device_up(dev);
	emu_tracer_device_up(dev);
}

static void down(struct emu_device *dev)
{
	/* The view's counters last, while the ports still have them. */
	emu_hwcnt_stop(dev);
	emu_tracer_device_down(dev);
	emu_cnt_log_device(dev);
}

static void opened(struct emu_device *dev)
{
	emu_sysview_refresh(dev);
	emu_ctl_device_opened();
}

static void closed(struct emu_device *dev)
{
	(void)dev;
	emu_ctl_device_closed();
}

/* The view first: a program woken by the port's event reads it anew. */
static void port(struct emu_port *port, const char *what)
{
	emu_sysview_refresh(port->dev);
	if (emu_trace_on())
		emu_trace_port(port, what);
}

static void qp_state(struct emu_qp *qp, enum ibv_qp_state from,
		     enum ibv_qp_state to)
{
	if (emu_trace_on())
		emu_trace_qp_state(qp, from, to);
}

static void qp_async(struct emu_qp *qp, enum ibv_event_type type)
{
	if (emu_trace_on())
		emu_trace_async(qp, type);
}

static void retransmit(struct emu_qp *qp, uint32_t psn, uint32_t packets)
{
	if (emu_trace_on())
		emu_trace_retransmit(qp, psn, packets);
}

static void timeout(struct emu_qp *qp, uint32_t psn, unsigned int left)
{
	if (emu_trace_on())
		emu_trace_timeout(qp, psn, left);
}

static void nak(struct emu_qp *qp, bool sent, uint8_t syn, uint32_t psn)
{
	if (emu_trace_on())
		emu_trace_nak(qp, sent, syn, psn);
}

static void fault(struct emu_tport *tp, const struct emu_fault_rule *r,
		  uint8_t dir, const uint8_t *bth, uint32_t len)
{
	if (emu_trace_on())
		emu_trace_fault(tp, r, dir, bth, len);
}

static void fault_event(struct emu_device *dev,
			const struct emu_fault_rule *r, bool done)
{
	if (emu_trace_on())
		emu_trace_fault_event(dev, r, done);
}

const struct emu_observer emu_observe_hooks = {
	.listed = listed,
	.up = up,
	.down = down,
	.opened = opened,
	.closed = closed,
	.port = port,
	.qp_state = qp_state,
	.qp_async = qp_async,
	.retransmit = retransmit,
	.timeout = timeout,
	.nak = nak,
	.fault = fault,
	.fault_event = fault_event,
};
