/* The transport's state on each device (dev->tr): every port's UDP I/O,
 * counters and budget of packets in flight, and what the engines share
 * across ports. The entry points that use it are in emu/transport/transport.h. */
#ifndef EMU_TPORT_H
#define EMU_TPORT_H

#include <ev.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/transport/budget.h"
#include "emu/device/config.h"
#include "emu/device/cnt.h"
#include "emu/transport/inject.h"
#include "emu/device/link.h"
#include "emu/transport/pulse.h"
#include "emu/transport/wire.h"
#include "net/udp.h"

struct emu_device;
struct emu_doorbell;
struct emu_port;
struct emu_qp;
struct emu_trace_dev;
struct emu_watch;

struct emu_tport {
	struct emu_port *port;
	struct emu_udp udp;
	struct emu_watch *watch;
	bool open;
	/* While application threads receive on the port (emu_transport_poll)
	 * the engine leaves the socket to them: a wake-up per packet on
	 * both would cost each round trip two futex calls and a core. */
	_Atomic uint64_t polled_ns;	/* last such receive (emu_now_ns); 0
					 * once a poll found completions or a
					 * CQ was armed: the claim lapsed */
	atomic_bool handed_off;		/* the watch is off, idle_check runs */
	ev_timer idle_check;
	struct emu_port_counters cnt;	/* emu/device/cnt.h */
	/* The values of emu_cnt_names the sysfs view's hw_counters files
	 * hold (emu/observe/hwcnt.c), under the view's write lock. */
	uint64_t hw_shown[EMU_CNT_NAMES_MAX];
	/* Egress pacing and delay between the transports and udp. */
	struct emu_link link;
	/* What fault rules hold on the port. */
	struct emu_fault_port faults;
	/* Packets in flight from every QP of the port, sized from what the
	 * endpoint's receive buffer holds (emu/transport/budget.h). */
	struct emu_budget budget;
	/* What the port publishes of its receive path for requesters on
	 * this machine (emu/transport/pulse.h). */
	struct emu_pulse pulse;
	/* The shared-memory wire to this host's ports (emu/transport/wire.h):
	 * its rings are read beside the socket, and its eventfd is watched
	 * beside the socket while the engine receives. */
	struct emu_wire_port wire;
	/* Polls that skip the socket while rings carry the traffic: an
	 * empty receive of the socket costs a system call, a look at the
	 * rings a few loads. */
	unsigned int sock_skip;
	unsigned int claims;		/* polls that claimed the port */
	/* Receive paths handed to pollers, taken back when the polling
	 * stopped (timer), taken back when asked (an armed CQ, a ring
	 * peer's wake-up after a lapsed claim): EMUVERBS_DEBUG=xport. */
	uint64_t handoffs, idle_takes, asked_takes;
};

struct emu_transport {
	struct emu_device *dev;
	struct emu_tport ports[EMU_MAX_PORTS];
	/* QPs that owe their peer a coalesced ACK, sent at the end of the
	 * current receive batch (linked through qp->resp.ack_next). */
	struct emu_qp *ack_list;
	/* Active while QPs wait for a port's budget: before the engine
	 * blocks again, it serves them the credits the callbacks of this
	 * iteration released (ACKs, errors, destroys). */
	ev_prepare resume;
	/* Rung when an application arms a CQ: the ports it was receiving
	 * on go back to the engine at once. */
	struct emu_doorbell *take_back;
	/* The pulses of peers on this machine whose answers were late. */
	struct emu_pulse_peers peers;
	/* The device's fault rules (emu/transport/inject.h). */
	struct emu_fault_set faults;
	/* Rewrites the sysfs view's hw_counters while there is a view. */
	ev_timer hwcnt;
	bool hwcnt_on;
	/* While a trace runs, its sampling of the device's QPs
	 * (emu/observe/tracer.c). */
	struct emu_trace_dev *trace;
};

#endif
