/* The transport's state on each device (dev->tr): every port's UDP I/O,
 * counters and budget of packets in flight, and what the engines share
 * across ports. The entry points that use it are in emu/transport.h. */
#ifndef EMU_TPORT_H
#define EMU_TPORT_H

#include <ev.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/budget.h"
#include "emu/config.h"
#include "emu/inject.h"
#include "emu/link.h"
#include "net/udp.h"

struct emu_device;
struct emu_doorbell;
struct emu_port;
struct emu_qp;
struct emu_trace_dev;
struct emu_watch;

/* Every packet a port receives lands in exactly one rx_* bucket besides
 * rx_packets; the rest count what the engines did. */
struct emu_port_counters {
	uint64_t rx_packets;		/* datagrams read from the socket */
	uint64_t rx_delivered;		/* to a responder or completer */
	uint64_t rx_truncated;		/* longer than any valid packet */
	uint64_t rx_malformed;		/* lengths, pad, version */
	uint64_t rx_bad_opcode;		/* undefined or not emulated */
	uint64_t rx_bad_icrc;
	uint64_t rx_bad_qpn;		/* no such QP, or not its type */
	uint64_t rx_bad_state;		/* QP in a state that drops it */
	uint64_t rx_bad_peer;		/* RC/UC packet from a stranger */
	uint64_t rx_bad_qkey;		/* UD Q_Key mismatch */
	uint64_t rx_port_down;		/* dropped: the port is down */
	uint64_t tx_packets;		/* queued for sending */
	uint64_t retransmits;		/* packets sent again */
	uint64_t timeouts;		/* retransmission timer expiries */
	uint64_t naks_sent, naks_rcvd;
	uint64_t rnr_naks_sent, rnr_naks_rcvd;
	uint64_t dup_requests;		/* duplicates responders saw */
	uint64_t seq_drops;		/* out-of-sequence packets dropped */
	uint64_t budget_waits;		/* a QP waited for the budget */
	/* Congestion, named as mlx5 names them: CE-marked packets this
	 * port received and the CNPs it sent for them (notification point),
	 * CNPs it received and acted on, or not with DCQCN off. */
	uint64_t np_ecn_marked_roce_packets, np_cnp_sent;
	uint64_t rp_cnp_handled, rp_cnp_ignored;
};

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
	struct emu_port_counters cnt;
	/* Egress pacing and delay between the transports and udp. */
	struct emu_link link;
	/* What fault rules hold on the port. */
	struct emu_fault_port faults;
	/* Packets in flight from every QP of the port, sized from what the
	 * endpoint's receive buffer holds (emu/budget.h). */
	struct emu_budget budget;
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
	/* The device's fault rules (emu/inject.h). */
	struct emu_fault_set faults;
	/* While a trace runs, its sampling of the device's QPs
	 * (emu/tracer.c). */
	struct emu_trace_dev *trace;
};

#endif
