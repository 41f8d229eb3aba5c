/* Unit tests for emu/observe/counters.c: the class and NAK kind of every kind of
 * packet, the table of names (unique, in range, QP counters within a QP's
 * struct, sums), reading a port's counters and its refusals, and events
 * counted on a QP and on its port. */
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "emu/emu.h"
#include "emu/observe/counters.h"
#include "emu/device/device.h"
#include "emu/objects/qp.h"
#include "emu/transport/transport.h"
#include "net/hdr.h"
#include "net/opcode.h"
#include "tests/unit/testlib.h"

static uint8_t pkt[64];

/* A packet of opcode op to dqpn, with an AETH of syndrome syn where the
 * opcode has one; its class and NAK kind. */
static struct emu_cnt_pkt classify(uint8_t op, uint32_t dqpn, uint8_t syn,
				   uint32_t len)
{
	struct emu_cnt_pkt p;

	memset(pkt, 0, sizeof(pkt));
	bth_init(pkt, op, false, false, 0, WIRE_DEFAULT_PKEY, dqpn, false, 7);
	if (wire_op_has(op, WIRE_F_AETH))
		aeth_init(pkt, syn, 0);
	emu_cnt_classify(&p, pkt, len);
	ck_assert_uint_eq(p.len, len);
	return p;
}

static void is(uint8_t op, uint32_t dqpn, uint8_t syn, unsigned int cls,
	       unsigned int nak)
{
	struct emu_cnt_pkt p = classify(op, dqpn, syn, 40);

	ck_assert_msg(p.cls == cls && p.nak == nak,
		      "opcode 0x%02x qpn %u syndrome 0x%02x: class %u nak %u, "
		      "not %u %u", op, dqpn, syn, p.cls, p.nak, cls, nak);
}

START_TEST(t_classes)
{
	const unsigned int none = WIRE_NAK_NONE;
	struct emu_cnt_pkt p;

	is(WIRE_OP_RC(SEND_ONLY), 9, 0, WIRE_CLS_SEND, none);
	is(WIRE_OP_UC(SEND_FIRST), 9, 0, WIRE_CLS_SEND, none);
	is(WIRE_OP_UD(SEND_ONLY_IMM), 9, 0, WIRE_CLS_SEND, none);
	is(WIRE_OP_RC(WRITE_MIDDLE), 9, 0, WIRE_CLS_WRITE, none);
	is(WIRE_OP_XRC(WRITE_ONLY), 9, 0, WIRE_CLS_WRITE, none);
	is(WIRE_OP_RC(READ_REQ), 9, 0, WIRE_CLS_READ_REQ, none);
	is(WIRE_OP_RC(READ_RESP_LAST), 9, aeth_syn_ack(31), WIRE_CLS_READ_RESP,
	   none);
	is(WIRE_OP_RC(READ_RESP_MIDDLE), 9, 0, WIRE_CLS_READ_RESP, none);
	is(WIRE_OP_RC(CMP_SWAP), 9, 0, WIRE_CLS_ATOMIC, none);
	is(WIRE_OP_RC(ATOMIC_ACK), 9, aeth_syn_ack(31), WIRE_CLS_ATOMIC, none);
	is(WIRE_OP_RC(ACK), 9, aeth_syn_ack(31), WIRE_CLS_ACK, none);
	is(WIRE_OP_CNP, 9, 0, WIRE_CLS_CNP, none);
	/* Whatever its opcode, a packet for QP1 is the CM's. */
	is(WIRE_OP_UD(SEND_ONLY), 1, 0, WIRE_CLS_CM, none);
	is(WIRE_OP_RC(FLUSH), 9, 0, WIRE_CLS_OTHER, none);
	/* NAKs by kind. */
	is(WIRE_OP_RC(ACK), 9, aeth_syn_rnr(14), WIRE_CLS_NAK, WIRE_NAK_RNR);
	is(WIRE_OP_RC(ACK), 9, aeth_syn_nak(AETH_NAK_PSN_SEQ), WIRE_CLS_NAK,
	   WIRE_NAK_PSN_SEQ);
	is(WIRE_OP_RC(ACK), 9, aeth_syn_nak(AETH_NAK_INVALID_REQ), WIRE_CLS_NAK,
	   WIRE_NAK_INV_REQ);
	is(WIRE_OP_RC(ACK), 9, aeth_syn_nak(AETH_NAK_INVALID_RD_REQ),
	   WIRE_CLS_NAK, WIRE_NAK_INV_REQ);
	is(WIRE_OP_RC(ACK), 9, aeth_syn_nak(AETH_NAK_REMOTE_ACCESS),
	   WIRE_CLS_NAK, WIRE_NAK_REM_ACCESS);
	is(WIRE_OP_RC(ACK), 9, aeth_syn_nak(AETH_NAK_REMOTE_OP), WIRE_CLS_NAK,
	   WIRE_NAK_REM_OP);
	is(WIRE_OP_RC(ACK), 9, aeth_syn_nak(9), WIRE_CLS_NAK,
	   WIRE_NAK_OTHER);
	is(WIRE_OP_RC(ACK), 9, aeth_syn_make(AETH_RESERVED, 0), WIRE_CLS_NAK,
	   WIRE_NAK_OTHER);
	/* No BTH, or no room for the AETH: counted, as something else. */
	memset(pkt, 0xff, sizeof(pkt));
	emu_cnt_classify(&p, pkt, 5);
	ck_assert_uint_eq(p.cls, WIRE_CLS_OTHER);
	ck_assert_uint_eq(p.nak, none);
	p = classify(WIRE_OP_RC(ACK), 9, aeth_syn_rnr(1), WIRE_BTH_LEN + 2);
	ck_assert_uint_eq(p.cls, WIRE_CLS_OTHER);
}
END_TEST

START_TEST(t_add)
{
	struct emu_cnt_dir d = { 0 };
	struct emu_cnt_pkt p;
	unsigned int i;
	uint64_t sum = 0, naks = 0;

	p = classify(WIRE_OP_RC(ACK), 9, aeth_syn_rnr(3), 20);
	emu_cnt_add(&d, &p);
	p = classify(WIRE_OP_RC(SEND_ONLY), 9, 0, 100);
	emu_cnt_add(&d, &p);
	emu_cnt_add(&d, &p);
	ck_assert_uint_eq(d.pkts, 3);
	ck_assert_uint_eq(d.bytes, 220);
	ck_assert_uint_eq(d.cls[WIRE_CLS_SEND], 2);
	ck_assert_uint_eq(d.cls[WIRE_CLS_NAK], 1);
	ck_assert_uint_eq(d.nak[WIRE_NAK_RNR], 1);
	for (i = 0; i < WIRE_NCLASS; i++)
		sum += d.cls[i];
	for (i = 0; i < WIRE_NNAK; i++)
		naks += d.nak[i];
	ck_assert_uint_eq(sum, d.pkts);
	ck_assert_uint_eq(naks, d.cls[WIRE_CLS_NAK]);
}
END_TEST

/* Names are what scripts and the sysfs view go by: unique, lower case
 * words of a file name, every offset inside the counters it reads. */
START_TEST(t_names)
{
	const struct emu_cnt_name *n;
	unsigned int i, j;
	bool port_only_seen = false;

	ck_assert_uint_gt(emu_cnt_nnames, 50);
	for (i = 0; i < emu_cnt_nnames; i++) {
		n = &emu_cnt_names[i];
		ck_assert_uint_gt(strlen(n->name), 0);
		ck_assert_uint_eq(strspn(n->name, "abcdefghijklmnopqrstuvwxyz"
					 "0123456789_"), strlen(n->name));
		for (j = 0; j < i; j++)
			ck_assert_msg(strcmp(n->name, emu_cnt_names[j].name),
				      "%s twice", n->name);
		ck_assert_uint_eq(n->off % 8, 0);
		ck_assert_uint_lt(n->off, n->port_only ?
				  sizeof(struct emu_port_counters) :
				  sizeof(struct emu_qp_counters));
		if (n->off2 != EMU_CNT_NO_OFF)
			ck_assert_uint_lt(n->off2,
					  sizeof(struct emu_qp_counters));
		/* The port's own come after those a QP has too. */
		if (n->port_only)
			port_only_seen = true;
		else
			ck_assert(!port_only_seen);
		ck_assert_ptr_eq(emu_cnt_find(n->name), n);
	}
	ck_assert(port_only_seen);
	ck_assert_ptr_null(emu_cnt_find("no_such_counter"));
	ck_assert_ptr_null(emu_cnt_find(""));
}
END_TEST

START_TEST(t_values)
{
	struct emu_port_counters c = { 0 };

	c.tx.pkts = 5;
	c.rx.bytes = 77;
	c.ev.rnr_waits = 2;
	c.ev.rnr_exceeded = 1;
	c.ev.oos_requests = 4;
	c.ev.oos_read_resp = 3;
	c.tx.nak[WIRE_NAK_RNR] = 6;
	c.tx.cls[WIRE_CLS_CNP] = 8;
	c.rx_bad_icrc = 9;
	c.link_queue = 10;
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("sent_pkts"), &c), 5);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("rdma_rx_bytes"), &c),
			  77);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("rcvd_rnr_err"), &c), 3);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("rnr_nak_retry_err"), &c),
			  2);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("retry_rnr_exceeded_err"),
					&c), 1);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("out_of_sequence"), &c),
			  7);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("out_of_seq_request"),
					&c), 4);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("send_rnr_err"), &c), 6);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("tx_nak_rnr"), &c), 6);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("np_cnp_sent"), &c), 8);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("tx_cnp_pkts"), &c), 8);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("rx_icrc_encapsulated"),
					&c), 9);
	ck_assert_uint_eq(emu_cnt_value(emu_cnt_find("link_queue"), &c), 10);
}
END_TEST

/* An event counts on the QP and, once it has a path, on its port. */
START_TEST(t_events)
{
	static struct emu_qp qp;
	static struct emu_tport tp;

	EMU_CNT_EV(&qp, timeouts);
	ck_assert_uint_eq(qp.cnt.ev.timeouts, 1);
	qp.tp = &tp;
	qp.port_cnt = &tp.cnt;
	EMU_CNT_EV(&qp, timeouts);
	EMU_CNT_EV(&qp, dup_requests);
	ck_assert_uint_eq(qp.cnt.ev.timeouts, 2);
	ck_assert_uint_eq(tp.cnt.ev.timeouts, 1);
	ck_assert_uint_eq(tp.cnt.ev.dup_requests, 1);
}
END_TEST

START_TEST(t_port_read)
{
	struct emu_port_counters c;
	struct emu_device **devs;
	struct emu_context *ctx;
	struct emu_tport *tp;
	unsigned int n;

	ck_assert_int_eq(emu_registry_get(&devs, &n), 0);
	ck_assert_uint_ge(n, 1);
	ck_assert_int_eq(emu_cnt_port_read(NULL, 1, &c), EINVAL);
	ck_assert_int_eq(emu_cnt_port_read(devs[0], 0, &c), EINVAL);
	ck_assert_int_eq(emu_cnt_port_read(devs[0], devs[0]->nports + 1, &c),
			 EINVAL);
	ctx = emu_context_open(devs[0]);
	ck_assert_ptr_nonnull(ctx);
	tp = &emu_transport_of(devs[0])->ports[0];
	/* The values kept where they are counted come along. */
	tp->cnt.rx_malformed = 3;
	tp->udp.tx_packets = 11;
	tp->udp.tx_dropped = 2;
	tp->link.dropped = 4;
	tp->faults.overflow = 5;
	ck_assert_int_eq(emu_cnt_port_read(devs[0], 1, &c), 0);
	ck_assert_uint_eq(c.rx_malformed, 3);
	ck_assert_uint_eq(c.tx_wire_pkts, 11);
	ck_assert_uint_eq(c.send_err, 2);
	ck_assert_uint_eq(c.link_dropped, 4);
	ck_assert_uint_eq(c.fault_hold_overflow, 5);
	emu_context_close(ctx);
}
END_TEST

static Suite *counters_suite(void)
{
	Suite *s = suite_create("counters");
	TCase *tc = tcase_create("counters");

	tcase_add_test(tc, t_classes);
	tcase_add_test(tc, t_add);
	tcase_add_test(tc, t_names);
	tcase_add_test(tc, t_values);
	tcase_add_test(tc, t_events);
	tcase_add_test(tc, t_port_read);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_init();
	emu_test_isolate_config();
	return emu_test_run(counters_suite());
}
