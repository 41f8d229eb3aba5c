/* The counters' one table of names (what the control socket, the sysfs
 * view, emuverbs_port_counters and the verbs counters show), the packet
 * classification the transports count with, and reading a port's counters
 * together with those its link and UDP I/O keep. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "emu/observe/counters.h"
#include "emu/base/log.h"
#include "emu/device/device.h"
#include "emu/device/fault.h"
#include "emu/objects/qp.h"
#include "emu/transport/transport.h"
#include "net/hdr.h"
#include "net/psn.h"

_Static_assert(EMU_FAULT_TRUNCATE - EMU_FAULT_DROP == EMU_CNT_F_TRUNCATE,
	       "fault actions in the order the counters keep them");

#define OFF(f) ((uint16_t)offsetof(struct emu_port_counters, f))
/* Counted for QPs and ports; one field, or the sum of two. */
#define C(n, f) { n, OFF(f), EMU_CNT_NO_OFF, false }
#define C2(n, f, g) { n, OFF(f), OFF(g), false }
/* The port's alone. */
#define P(n, f) { n, OFF(f), EMU_CNT_NO_OFF, true }

#define DIR(d, x)							\
	C(#x "_send_pkts", d.cls[WIRE_CLS_SEND]),			\
	C(#x "_write_pkts", d.cls[WIRE_CLS_WRITE]),			\
	C(#x "_read_req_pkts", d.cls[WIRE_CLS_READ_REQ]),		\
	C(#x "_read_resp_pkts", d.cls[WIRE_CLS_READ_RESP]),		\
	C(#x "_atomic_pkts", d.cls[WIRE_CLS_ATOMIC]),			\
	C(#x "_ack_pkts", d.cls[WIRE_CLS_ACK]),				\
	C(#x "_nak_pkts", d.cls[WIRE_CLS_NAK]),				\
	C(#x "_cnp_pkts", d.cls[WIRE_CLS_CNP]),				\
	C(#x "_cm_pkts", d.cls[WIRE_CLS_CM]),				\
	C(#x "_other_pkts", d.cls[WIRE_CLS_OTHER]),			\
	C(#x "_nak_psn_seq", d.nak[WIRE_NAK_PSN_SEQ]),		\
	C(#x "_nak_rnr", d.nak[WIRE_NAK_RNR]),			\
	C(#x "_nak_rem_access", d.nak[WIRE_NAK_REM_ACCESS]),	\
	C(#x "_nak_rem_op", d.nak[WIRE_NAK_REM_OP]),		\
	C(#x "_nak_inv_req", d.nak[WIRE_NAK_INV_REQ]),		\
	C(#x "_nak_other", d.nak[WIRE_NAK_OTHER]),			\
	C(#x "_fault_drop", d.fault[EMU_CNT_F_DROP]),			\
	C(#x "_fault_duplicate", d.fault[EMU_CNT_F_DUPLICATE]),	\
	C(#x "_fault_delay", d.fault[EMU_CNT_F_DELAY]),		\
	C(#x "_fault_reorder", d.fault[EMU_CNT_F_REORDER]),		\
	C(#x "_fault_corrupt", d.fault[EMU_CNT_F_CORRUPT]),		\
	C(#x "_fault_truncate", d.fault[EMU_CNT_F_TRUNCATE])

/*
 * Where rxe or mlx5 has a counter of the same thing, its name (both, when
 * each has its own); the rest are ours. doc/counters.md says what each
 * counts and where its name comes from.
 */
const struct emu_cnt_name emu_cnt_names[] = {
	C("sent_pkts", tx.pkts),
	C("rcvd_pkts", rx.pkts),
	C("rdma_tx_bytes", tx.bytes),
	C("rdma_rx_bytes", rx.bytes),
	DIR(tx, tx),
	DIR(rx, rx),
	C("retransmits", ev.retransmits),
	C("local_ack_timeout_err", ev.timeouts),
	C("completer_retry_err", ev.retries),
	C("retry_exceeded_err", ev.retry_exceeded),
	C("req_transport_retries_exceeded", ev.retry_exceeded),
	C2("rcvd_rnr_err", ev.rnr_waits, ev.rnr_exceeded),
	C("rnr_nak_retry_err", ev.rnr_waits),
	C("retry_rnr_exceeded_err", ev.rnr_exceeded),
	C("req_rnr_retries_exceeded", ev.rnr_exceeded),
	C("send_rnr_err", tx.nak[WIRE_NAK_RNR]),
	C("rcvd_seq_err", ev.seq_naks),
	C("packet_seq_err", ev.seq_naks),
	C("implied_nak_seq_err", ev.implied_naks),
	C("duplicate_request", ev.dup_requests),
	C("out_of_seq_request", ev.oos_requests),
	C2("out_of_sequence", ev.oos_requests, ev.oos_read_resp),
	C("out_of_buffer", ev.out_of_buffer),
	C("rx_write_requests", ev.rx_write),
	C("rx_read_requests", ev.rx_read),
	C("rx_atomic_requests", ev.rx_atomic),
	C("rdma_sends", ev.rdma_sends),
	C("rdma_recvs", ev.rdma_recvs),
	C("req_cqe_error", ev.req_cqe_error),
	C("req_cqe_flush_error", ev.req_cqe_flush_error),
	C("resp_cqe_error", ev.resp_cqe_error),
	C("resp_cqe_flush_error", ev.resp_cqe_flush_error),
	C("req_remote_access_errors", ev.req_remote_access),
	C("req_remote_invalid_request", ev.req_remote_invalid),
	C("resp_remote_access_errors", tx.nak[WIRE_NAK_REM_ACCESS]),
	C("resp_local_length_error", ev.resp_local_length),
	C("budget_waits", ev.budget_waits),
	C("np_ecn_marked_roce_packets", ev.ecn_marked),
	C("np_cnp_sent", tx.cls[WIRE_CLS_CNP]),
	C("rp_cnp_handled", ev.cnp_handled),
	C("rp_cnp_ignored", ev.cnp_ignored),
	P("rx_delivered", rx_delivered),
	P("rx_truncated", rx_truncated),
	P("rx_malformed", rx_malformed),
	P("rx_bad_opcode", rx_bad_opcode),
	P("rx_icrc_encapsulated", rx_bad_icrc),
	P("rx_bad_qpn", rx_bad_qpn),
	P("rx_bad_state", rx_bad_state),
	P("rx_bad_peer", rx_bad_peer),
	P("rx_bad_qkey", rx_bad_qkey),
	P("rx_port_down", rx_port_down),
	P("tx_port_down", tx_port_down),
	P("link_downed", link_downed),
	P("tx_wire_pkts", tx_wire_pkts),
	P("tx_wire_bytes", tx_wire_bytes),
	P("send_err", send_err),
	P("link_queue", link_queue),
	P("link_held", link_held),
	P("link_dropped", link_dropped),
	P("link_ecn_marked", link_ecn_marked),
	P("fault_hold_overflow", fault_hold_overflow),
};

const unsigned int emu_cnt_nnames = sizeof(emu_cnt_names) /
				    sizeof(emu_cnt_names[0]);

_Static_assert(sizeof(emu_cnt_names) / sizeof(emu_cnt_names[0]) <=
		       EMU_CNT_NAMES_MAX, "EMU_CNT_NAMES_MAX too small");

const struct emu_cnt_name *emu_cnt_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < emu_cnt_nnames; i++)
		if (!strcmp(emu_cnt_names[i].name, name))
			return &emu_cnt_names[i];
	return NULL;
}

int emu_cnt_port_read(struct emu_device *dev, uint32_t port_num,
		      struct emu_port_counters *out)
{
	const struct emu_tport *tp;

	if (!dev || port_num < 1 || port_num > dev->nports)
		return EINVAL;
	tp = &emu_transport_of(dev)->ports[port_num - 1];
	*out = tp->cnt;
	out->tx_wire_pkts = tp->udp.tx_packets;
	out->tx_wire_bytes = tp->udp.tx_bytes;
	out->send_err = tp->udp.tx_dropped;
	out->link_queue = tp->link.n;
	out->link_held = tp->link.held;
	out->link_dropped = tp->link.dropped;
	out->link_ecn_marked = tp->link.marked;
	out->fault_hold_overflow = tp->faults.overflow;
	return 0;
}

uint32_t emu_cnt_qp_inflight(const struct emu_qp *qp)
{
	int32_t d;

	if (!emu_qp_reliable(qp))
		return 0;
	d = psn_diff(qp->req.psn_hi, qp->comp.psn);
	return d > 0 ? (uint32_t)d : 0;
}

struct rx_call {
	struct emu_qp *qp;
	uint64_t pkts, bytes;
};

static void do_qp_rx(void *arg)
{
	struct rx_call *c = arg;

	c->pkts = c->qp->cnt.rx.pkts;
	c->bytes = c->qp->cnt.rx.bytes;
}

void emu_cnt_qp_rx(struct emu_qp *qp, uint64_t *pkts, uint64_t *bytes)
{
	struct rx_call c = { .qp = qp };

	emu_device_run(qp->dev, do_qp_rx, &c);
	*pkts = c.pkts;
	*bytes = c.bytes;
}

/* Every counter of tp that is not 0, as name=value words on lines of
 * "DEV/PORT ADDRESS: counters ..." short enough for the log. */
static void log_port(struct emu_device *dev, struct emu_tport *tp)
{
	struct emu_port_counters c;
	char line[400], addr[INET6_ADDRSTRLEN];
	size_t at = 0;
	unsigned int i;
	uint64_t v;
	int n;

	emu_cnt_port_read(dev, tp->port->num, &c);
	emu_addr_str(&tp->port->ep.addr, addr, sizeof(addr));
	for (i = 0; i <= emu_cnt_nnames; i++) {
		v = i < emu_cnt_nnames ? emu_cnt_value(&emu_cnt_names[i], &c) :
					 0;
		n = v ? snprintf(line + at, sizeof(line) - at, " %s=%llu",
				 emu_cnt_names[i].name,
				 (unsigned long long)v) : 0;
		if (at && (i == emu_cnt_nnames ||
			   at + (size_t)n >= sizeof(line))) {
			line[at] = '\0';
			emu_log(EMU_LOG_XPORT, "%s/%u %s: counters%s",
				dev->ibdev.name, tp->port->num, addr, line);
			at = 0;
			if (v)
				n = snprintf(line, sizeof(line), " %s=%llu",
					     emu_cnt_names[i].name,
					     (unsigned long long)v);
		}
		at += (size_t)n;
	}
}

void emu_cnt_log_device(struct emu_device *dev)
{
	struct emu_transport *t = emu_transport_of(dev);
	uint32_t i;

	if (!emu_log_on(EMU_LOG_XPORT))
		return;
	for (i = 0; i < dev->nports; i++)
		if (t->ports[i].open)
			log_port(dev, &t->ports[i]);
}
