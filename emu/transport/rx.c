/* Receive dispatch: every datagram is parsed, its ICRC checked and its QP
 * found before a responder or completer sees it; the rest is counted. */
#include <string.h>
#include <unistd.h>

#include "emu/transport/cc.h"
#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/qp.h"
#include "emu/transport/transport.h"
#include "net/hdr.h"
#include "net/icrc.h"
#include "net/shm.h"

/* Batches read per wakeup before other sockets and timers get a turn. */
#define RX_ROUNDS	8

static uint8_t qpt_bit(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC:
		return WIRE_QPT_RC;
	case IBV_QPT_UC:
		return WIRE_QPT_UC;
	case IBV_QPT_UD:
		return WIRE_QPT_UD;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return WIRE_QPT_XRC;
	default:
		return 0;
	}
}

/* Why a packet was dropped, for EMUVERBS_DEBUG=rx. */
static void drop_log(const struct emu_tport *tp, const struct emu_udp_pkt *u,
		     const char *why)
{
	char a[INET6_ADDRSTRLEN];

	emu_log_print(EMU_LOG_RX, "%s/%u: dropped %u bytes from %s:%u: %s",
		      tp->port->dev->ibdev.name, tp->port->num, u->len,
		      emu_addr_str(&u->src, a, sizeof(a)), u->sport, why);
}

#define DROP(why)                                                        \
	do {                                                              \
		if (emu_log_on(EMU_LOG_RX))                               \
			drop_log(tp, u, why);                             \
	} while (0)

void emu_rx_one(struct emu_tport *tp, const struct emu_udp_pkt *u)
{
	struct emu_port_counters *c = &tp->cnt;
	struct emu_rx_pkt pkt = { .tp = tp, .u = u };
	struct emu_cnt_pkt cp;
	enum wire_parse_err err;
	enum ibv_qp_state s;
	struct emu_qp *qp;
	uint32_t flags;

	/* Every datagram, by what its BTH says it is, whatever becomes of
	 * it; a QP counts it too once it is found to be the QP's. */
	emu_cnt_classify(&cp, u->data, u->len);
	emu_cnt_add(&c->rx, &cp);
	if (u->truncated) {
		c->rx_truncated++;
		DROP("longer than any valid packet");
		return;
	}
	if (atomic_load(&tp->port->state) != IBV_PORT_ACTIVE) {
		c->rx_port_down++;
		DROP("the port is down");
		return;
	}
	err = wire_pkt_parse(&pkt.w, u->data, u->len);
	if (!err && u->shared) {
		/* Headers from our copy, the payload from the ring. */
		if (pkt.w.info->hdr_len > EMU_SHM_HDR_COPY)
			err = WIRE_ERR_LEN;
		else
			pkt.w.pay = (uint8_t *)u->shared +
				    (pkt.w.pay - u->data);
	}
	if (err == WIRE_ERR_OPCODE) {
		c->rx_bad_opcode++;
		DROP("opcode undefined or not emulated");
		return;
	}
	if (err) {
		c->rx_malformed++;
		DROP(wire_parse_strerror(err));
		return;
	}
	/* The kernel hid the IP and UDP headers: the check rebuilds them
	 * from the addresses and ports, solving for an IPv4 sender's own
	 * identification (net/icrc.h). A ring's frame may come without an
	 * ICRC (net/shm.h): as sent with identification 0 and DF. */
	if (u->no_icrc) {
		pkt.ip_id = 0;
		pkt.ip_frag = 0x4000;
	} else if (!icrc_check_rebuilt(&u->src, &u->dst, u->sport,
				       tp->port->ep.port, u->data, u->len,
				       &pkt.ip_id, &pkt.ip_frag)) {
		c->rx_bad_icrc++;
		DROP("bad ICRC");
		return;
	}
	pkt.opcode = bth_opcode(pkt.w.hdr);
	pkt.psn = bth_psn(pkt.w.hdr);
	flags = pkt.w.info->flags;
	if (flags & WIRE_F_CNP) {
		/* For the QP whose flow was marked: its reaction point. */
		qp = emu_qp_lookup(tp->port->dev, bth_qpn(pkt.w.hdr));
		c->rx_delivered++;
		if (qp && qp->tp == tp) {
			emu_cnt_add(&qp->cnt.rx, &cp);
			emu_cc_cnp(qp);
		}
		return;
	}
	qp = bth_qpn(pkt.w.hdr) == EMU_GSI_QPN ?
	     emu_qp_gsi(tp->port->dev, tp->port->num) :
	     emu_qp_lookup(tp->port->dev, bth_qpn(pkt.w.hdr));
	if (!qp || !(pkt.w.info->qpt & qpt_bit(qp->type)) || qp->tp != tp) {
		c->rx_bad_qpn++;
		DROP(!qp ? "no such QP" :
		     !qp->tp ? "QP in RESET, never brought to INIT" :
		     qp->tp != tp ? "QP of another port" :
		     "opcode not of the QP's transport");
		return;
	}
	/* A connected QP hears only its peer. */
	if (qp->type != IBV_QPT_UD &&
	    memcmp(&u->src, &qp->dest, sizeof(qp->dest))) {
		c->rx_bad_peer++;
		DROP("not from the connected QP's peer");
		return;
	}
	emu_cnt_add(&qp->cnt.rx, &cp);
	s = emu_qp_state(qp);
	if (flags & WIRE_F_REQ) {
		if (s != IBV_QPS_RTR && s != IBV_QPS_RTS &&
		    s != IBV_QPS_SQD && s != IBV_QPS_SQE) {
			c->rx_bad_state++;
			DROP("request for a QP that is not receiving");
			return;
		}
		c->rx_delivered++;
		/* Congestion on the way here: tell the sender (CE is 3 in
		 * the two ECN bits of the TOS or traffic class). */
		if ((u->tos & 3) == 3)
			emu_cc_ce(qp, &pkt);
		emu_resp_packet(qp, &pkt);
	} else {
		if (s != IBV_QPS_RTS && s != IBV_QPS_SQD) {
			c->rx_bad_state++;
			DROP("response for a QP that is not sending");
			return;
		}
		c->rx_delivered++;
		emu_comp_packet(qp, &pkt);
	}
}

void emu_rx_datagram(struct emu_tport *tp, const struct emu_udp_pkt *u)
{
	struct emu_transport *t = emu_transport_of(tp->port->dev);

	emu_rx_one(tp, u);
	emu_resp_flush_acks(t);
	emu_transport_flush(t);
}

/* The n packets u->rx_pkt holds, each to fault rules or the capture and
 * then to dispatch. */
static void rx_pkts(struct emu_transport *t, struct emu_tport *tp,
		    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct emu_udp_pkt *p = &tp->udp.rx_pkt[i];

		/* A fault rule may damage it and a capture shows it: either
		 * needs the ICRC its sender left to the ring, made here as
		 * the sender would have (the frame is our copy). */
		if (p->no_icrc && p->len >= ICRC_LEN &&
		    (tp->udp.cap || emu_inject_active(&t->faults))) {
			icrc_seal(&p->src, &p->dst, p->sport, tp->port->ep.port,
				  p->data, p->len - ICRC_LEN, NULL, 0, 0, 0);
			p->no_icrc = false;
		}
		if (emu_inject_active(&t->faults)) {
			/* Captured there, with what a rule did to it. */
			emu_inject_rx(tp, &tp->udp.rx_pkt[i]);
			continue;
		}
		if (tp->udp.cap)
			emu_udp_cap_rx(&tp->udp, &tp->udp.rx_pkt[i], 0);
		emu_rx_one(tp, &tp->udp.rx_pkt[i]);
	}
}

unsigned int emu_rx_batch(struct emu_tport *tp, bool sock)
{
	struct emu_transport *t = emu_transport_of(tp->port->dev);
	/* The pulse tells peers about the socket: a batch that looks at the
	 * rings alone says nothing of it (and saves two clock reads). */
	uint64_t t0 = sock ? emu_pulse_begin(&tp->pulse) : 0;
	bool rings = emu_shm_any(tp->udp.shm);
	unsigned int n = 0, m = 0;

	if (sock && emu_shm_unordered(tp->udp.shm)) {
		/* A ring new since its peer last sent by UDP: the socket is
		 * emptied first, so its older datagrams come first. */
		unsigned int round, k;

		emu_shm_order_begin(tp->udp.shm);
		for (round = 0; round < EMU_RX_ORDER_ROUNDS; round++) {
			k = emu_udp_recv(&tp->udp);
			rx_pkts(t, tp, k);
			n += k;
			if (k < EMU_UDP_BATCH)
				break;
		}
		if (round < EMU_RX_ORDER_ROUNDS)
			emu_shm_order_end(tp->udp.shm);
	} else if (sock) {
		n = emu_udp_recv(&tp->udp);
		rx_pkts(t, tp, n);
		tp->sock_skip = n ? 0 : EMU_RX_SOCK_SKIP;
	}
	if (rings) {
		/* Payloads stay in the rings and go straight to their
		 * memory, unless a capture or a fault rule wants the whole
		 * frame in hand. */
		bool in_place = !tp->udp.cap && !emu_inject_active(&t->faults);

		m = emu_udp_recv_shm(&tp->udp, in_place);
		rx_pkts(t, tp, m);
		if (in_place)
			emu_shm_release(tp->udp.shm);
	}
	/* One ACK per QP for the whole batch. */
	emu_resp_flush_acks(t);
	emu_transport_flush(t);
	/* A batch short of full emptied the socket: what had arrived before
	 * it began is handled and answered. */
	/* Drained: the socket, and the rings this batch read, had nothing
	 * left. A requester on a ring counts a timeout as a retry only when
	 * we have been through everything it sent since (comp.c). */
	if (sock)
		emu_pulse_end(&tp->pulse, t0,
			      n < EMU_UDP_BATCH && m < EMU_UDP_BATCH);
	return n > m ? n : m;
}

void emu_rx_port(struct emu_tport *tp)
{
	struct emu_shm *s = tp->wire.on ? &tp->wire.shm : NULL;
	/* The engine receives for the port (not handed to pollers): while
	 * it is awake its ring peers need not write its eventfd, so the
	 * flags say so until it is about to sleep again. */
	bool rings = s && s->waiting;
	unsigned int round;

	if (rings)
		emu_shm_set_waiting(s, false);
	for (round = 0; round < RX_ROUNDS; round++)
		if (emu_rx_batch(tp, true) < EMU_UDP_BATCH)
			break;
	if (rings && emu_shm_set_waiting(s, true)) {
		/* Frames came between the last look and the flags: nobody
		 * will write for them, so the engine wakes itself. */
		uint64_t one = 1;

		if (write(tp->wire.wake_fd, &one, sizeof(one)) < 0)
			emu_rx_batch(tp, false);
	}
}
