/* Receive dispatch: every datagram is parsed, its ICRC checked and its QP
 * found before a responder or completer sees it; the rest is counted. */
#include <string.h>

#include "emu/device.h"
#include "emu/qp.h"
#include "emu/transport.h"
#include "net/hdr.h"
#include "net/icrc.h"

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

static void rx_one(struct emu_tport *tp, const struct emu_udp_pkt *u)
{
	struct emu_port_counters *c = &tp->cnt;
	struct emu_rx_pkt pkt = { .tp = tp, .u = u };
	enum wire_parse_err err;
	enum ibv_qp_state s;
	struct emu_qp *qp;
	uint32_t flags;

	c->rx_packets++;
	if (u->truncated) {
		c->rx_truncated++;
		return;
	}
	if (atomic_load(&tp->port->state) != IBV_PORT_ACTIVE) {
		c->rx_port_down++;
		return;
	}
	err = wire_pkt_parse(&pkt.w, u->data, u->len);
	if (err == WIRE_ERR_OPCODE) {
		c->rx_bad_opcode++;
		return;
	}
	if (err) {
		c->rx_malformed++;
		return;
	}
	/* The kernel hid the IP and UDP headers: the check rebuilds them
	 * from the addresses and ports, solving for an IPv4 sender's own
	 * identification (net/icrc.h). */
	if (!icrc_check_rebuilt(&u->src, &u->dst, u->sport, EMU_ROCE_UDP_PORT,
				u->data, u->len, &pkt.ip_id, &pkt.ip_frag)) {
		c->rx_bad_icrc++;
		return;
	}
	pkt.opcode = bth_opcode(pkt.w.hdr);
	pkt.psn = bth_psn(pkt.w.hdr);
	flags = pkt.w.info->flags;
	if (flags & WIRE_F_CNP) {
		/* No congestion control is modelled: noted, not acted on. */
		c->rx_delivered++;
		return;
	}
	qp = emu_qp_lookup(tp->port->dev, bth_qpn(pkt.w.hdr));
	if (!qp || !(pkt.w.info->qpt & qpt_bit(qp->type)) || qp->tp != tp) {
		c->rx_bad_qpn++;
		return;
	}
	/* A connected QP hears only its peer. */
	if (qp->type != IBV_QPT_UD &&
	    memcmp(&u->src, &qp->dest, sizeof(qp->dest))) {
		c->rx_bad_peer++;
		return;
	}
	s = emu_qp_state(qp);
	if (flags & WIRE_F_REQ) {
		if (s != IBV_QPS_RTR && s != IBV_QPS_RTS &&
		    s != IBV_QPS_SQD && s != IBV_QPS_SQE) {
			c->rx_bad_state++;
			return;
		}
		c->rx_delivered++;
		emu_resp_packet(qp, &pkt);
	} else {
		if (s != IBV_QPS_RTS && s != IBV_QPS_SQD) {
			c->rx_bad_state++;
			return;
		}
		c->rx_delivered++;
		emu_comp_packet(qp, &pkt);
	}
}

void emu_rx_port(struct emu_tport *tp)
{
	struct emu_transport *t = emu_transport_of(tp->port->dev);
	unsigned int round, i, n;

	for (round = 0; round < RX_ROUNDS; round++) {
		n = emu_udp_recv(&tp->udp);
		for (i = 0; i < n; i++)
			rx_one(tp, &tp->udp.rx_pkt[i]);
		/* One ACK per QP for the whole batch. */
		emu_resp_flush_acks(t);
		emu_transport_flush(t);
		if (n < EMU_UDP_BATCH)
			break;
	}
}
