/* The counter registers a device keeps, per port and per QP: packets and
 * bytes each way by opcode class and NAK kind, what fault rules did to
 * them, and what the transports did (retransmissions, timeouts, NAKs acted
 * on, duplicates, completions in error, congestion). The QPs and the
 * transport count into them on the hot path; their names and readers are
 * observe/'s (emu/observe/counters.h, doc/counters.md). Plain fields,
 * touched by the engine thread or a thread that entered it, read through
 * emu_device_run: no lock or atomic on the hot path. */
#ifndef EMU_CNT_H
#define EMU_CNT_H

#include <stddef.h>
#include <stdint.h>

#include "net/classify.h"

/* Packets are counted by class and NAK kind (net/classify.h: enum
 * wire_class, as fault rules' op= names them, and enum wire_nak_kind). */

/* What fault rules did to packets, EMU_FAULT_DROP first (emu/device/fault.h). */
enum emu_cnt_fault {
	EMU_CNT_F_DROP,
	EMU_CNT_F_DUPLICATE,
	EMU_CNT_F_DELAY,
	EMU_CNT_F_REORDER,
	EMU_CNT_F_CORRUPT,
	EMU_CNT_F_TRUNCATE,
	EMU_CNT_NFAULT
};

/* One direction. Sent: what the transports handed to the link, before
 * fault rules and the link's queue; received: what the device handled,
 * after fault rules (a duplicated packet twice, a dropped one not at all).
 * Bytes are the UDP payload, BTH through ICRC. */
struct emu_cnt_dir {
	uint64_t pkts, bytes;
	uint64_t cls[WIRE_NCLASS];
	uint64_t nak[WIRE_NNAK];
	uint64_t fault[EMU_CNT_NFAULT];
};

/* What the transports did, counted where it happens, for the QP and its
 * port alike (EMU_CNT_EV). */
struct emu_cnt_ev {
	uint64_t retransmits;		/* packets sent again */
	uint64_t timeouts;		/* retransmission timer expiries */
	uint64_t retries;		/* resends begun: timeouts, NAKs */
	uint64_t retry_exceeded;	/* RETRY_EXC_ERR */
	uint64_t rnr_waits;		/* RNR NAKs waited out */
	uint64_t rnr_exceeded;		/* RNR_RETRY_EXC_ERR */
	uint64_t seq_naks;		/* sequence NAKs acted on */
	uint64_t implied_naks;		/* ACKs past an unanswered READ */
	uint64_t dup_requests;
	uint64_t oos_requests;		/* requests past the PSN due */
	uint64_t oos_read_resp;		/* READ responses out of order */
	uint64_t out_of_buffer;		/* no receive WQE for it */
	uint64_t rx_write, rx_read, rx_atomic;	/* requests executed */
	uint64_t rdma_sends, rdma_recvs;	/* successful completions */
	uint64_t req_cqe_error, req_cqe_flush_error;
	uint64_t resp_cqe_error, resp_cqe_flush_error;
	uint64_t req_remote_access, req_remote_invalid;
	uint64_t resp_local_length;
	uint64_t budget_waits;		/* waited for the port's budget */
	uint64_t ecn_marked;		/* CE-marked requests received */
	uint64_t cnp_handled, cnp_ignored;
};

struct emu_qp_counters {
	struct emu_cnt_dir tx, rx;
	struct emu_cnt_ev ev;
};

/* A port's: its QPs' sum (QPs destroyed included) and what happens to
 * packets before a QP is found, then values kept elsewhere. Every packet
 * received lands in exactly one of rx_delivered .. rx_port_down. */
struct emu_port_counters {
	struct emu_cnt_dir tx, rx;	/* as in struct emu_qp_counters */
	struct emu_cnt_ev ev;
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
	uint64_t tx_port_down;		/* not sent: the port is down */
	uint64_t link_downed;		/* times the port went down */
	/* Filled in by emu_cnt_port_read from the UDP I/O, the link and
	 * the fault rules' holder, which count them. */
	uint64_t tx_wire_pkts, tx_wire_bytes, send_err;
	uint64_t link_queue, link_held, link_dropped, link_ecn_marked;
	uint64_t fault_hold_overflow;
};

_Static_assert(offsetof(struct emu_port_counters, ev) ==
		       offsetof(struct emu_qp_counters, ev),
	       "a port's counters begin as a QP's");

/* An event of qp's, on the QP and its port (whose counters it knows once
 * it has a path; a QP flushed before that counts on itself only). */
#define EMU_CNT_EV(qp, f)                          \
	do {                                       \
		(qp)->cnt.ev.f++;                  \
		if ((qp)->port_cnt)                \
			(qp)->port_cnt->ev.f++;    \
	} while (0)

/* What counting a packet needs, worked out once for its port and QP. */
struct emu_cnt_pkt {
	uint32_t len;
	uint8_t cls;			/* enum wire_class */
	uint8_t nak;			/* enum wire_nak_kind */
};

/* The class and NAK kind of the len bytes from the BTH at bth. */
static inline void emu_cnt_classify(struct emu_cnt_pkt *p, const uint8_t *bth,
				    uint32_t len)
{
	struct wire_class_of c;

	wire_classify(&c, bth, len);
	p->len = len;
	p->cls = c.cls;
	p->nak = c.nak;
}

static inline void emu_cnt_add(struct emu_cnt_dir *d,
			       const struct emu_cnt_pkt *p)
{
	d->pkts++;
	d->bytes += p->len;
	d->cls[p->cls]++;
	if (p->nak != WIRE_NAK_NONE)
		d->nak[p->nak]++;
}

/* How many counters readers name at most (emu/observe/counters.h), for
 * arrays of their values kept beside the registers. */
#define EMU_CNT_NAMES_MAX	128

#endif
