/* tests/unit/test_opcode.c: the opcode table against the IBTA header layouts,
 * its internal consistency, and wire_pkt_parse()'s acceptance rules.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "net/opcode.h"
#include "net/hdr.h"
#include "tests/unit/testlib.h"

/*
 * The expected layouts, written out by hand from the IBTA packet format
 * tables rather than derived from the code under test: total header length
 * (BTH included) and the offset of the extension headers that matter.
 */
struct expect {
	uint8_t op;
	uint8_t len;
	uint8_t qpt;
};

#define RC WIRE_QPT_RC
#define UC WIRE_QPT_UC
#define UD WIRE_QPT_UD
#define XRC WIRE_QPT_XRC

static const struct expect expected[] = {
	/* RC */
	{ 0x00, 12, RC }, { 0x01, 12, RC }, { 0x02, 12, RC },
	{ 0x03, 16, RC }, { 0x04, 12, RC }, { 0x05, 16, RC },
	{ 0x06, 28, RC }, { 0x07, 12, RC }, { 0x08, 12, RC },
	{ 0x09, 16, RC }, { 0x0a, 28, RC }, { 0x0b, 32, RC },
	{ 0x0c, 28, RC }, { 0x0d, 16, RC }, { 0x0e, 12, RC },
	{ 0x0f, 16, RC }, { 0x10, 16, RC }, { 0x11, 16, RC },
	{ 0x12, 24, RC }, { 0x13, 40, RC }, { 0x14, 40, RC },
	{ 0x16, 16, RC }, { 0x17, 16, RC }, { 0x1c, 32, RC },
	{ 0x1d, 28, RC },
	/* UC */
	{ 0x20, 12, UC }, { 0x21, 12, UC }, { 0x22, 12, UC },
	{ 0x23, 16, UC }, { 0x24, 12, UC }, { 0x25, 16, UC },
	{ 0x26, 28, UC }, { 0x27, 12, UC }, { 0x28, 12, UC },
	{ 0x29, 16, UC }, { 0x2a, 28, UC }, { 0x2b, 32, UC },
	/* UD */
	{ 0x64, 20, UD }, { 0x65, 24, UD },
	/* CNP */
	{ 0x81, 12, RC | UC | UD | XRC },
	/* XRC: requests carry XRCETH, responses do not */
	{ 0xa0, 16, XRC }, { 0xa1, 16, XRC }, { 0xa2, 16, XRC },
	{ 0xa3, 20, XRC }, { 0xa4, 16, XRC }, { 0xa5, 20, XRC },
	{ 0xa6, 32, XRC }, { 0xa7, 16, XRC }, { 0xa8, 16, XRC },
	{ 0xa9, 20, XRC }, { 0xaa, 32, XRC }, { 0xab, 36, XRC },
	{ 0xac, 32, XRC }, { 0xad, 16, XRC }, { 0xae, 12, XRC },
	{ 0xaf, 16, XRC }, { 0xb0, 16, XRC }, { 0xb1, 16, XRC },
	{ 0xb2, 24, XRC }, { 0xb3, 44, XRC }, { 0xb4, 44, XRC },
	{ 0xb6, 20, XRC }, { 0xb7, 20, XRC },
};

#define NEXPECTED (sizeof(expected) / sizeof(expected[0]))

static const struct expect *find_expected(unsigned int op)
{
	for (size_t i = 0; i < NEXPECTED; i++)
		if (expected[i].op == op)
			return &expected[i];
	return NULL;
}

START_TEST(test_lengths_match_ibta)
{
	for (unsigned int op = 0; op < 256; op++) {
		const struct expect *e = find_expected(op);
		const struct wire_opcode_info *info = wire_opcode((uint8_t)op);

		if (!e) {
			ck_assert_msg(!wire_op_valid((uint8_t)op),
				      "opcode 0x%02x should be undefined", op);
			ck_assert_ptr_null(info->name);
			continue;
		}
		ck_assert_msg(wire_op_valid((uint8_t)op),
			      "opcode 0x%02x should be defined", op);
		ck_assert_msg(info->hdr_len == e->len,
			      "opcode 0x%02x (%s): length %u, IBTA says %u",
			      op, info->name, info->hdr_len, e->len);
		ck_assert_uint_eq(wire_op_hdr_len((uint8_t)op), e->len);
		ck_assert_msg(info->qpt == e->qpt,
			      "opcode 0x%02x: transports 0x%x", op, info->qpt);
		ck_assert_uint_eq(info->off[WIRE_PAYLOAD], e->len);
	}
}
END_TEST

START_TEST(test_defined_count)
{
	unsigned int n = 0;

	for (unsigned int op = 0; op < 256; op++)
		n += wire_op_valid((uint8_t)op);
	/* RC 25, UC 12, UD 2, CNP 1, XRC 23 */
	ck_assert_uint_eq(n, 63);
	ck_assert_uint_eq(NEXPECTED, 63);
}
END_TEST

/* Spot checks of offsets, again straight from the packet formats. */
START_TEST(test_offsets)
{
	/* RC RDMA WRITE ONLY WITH IMMEDIATE: BTH RETH ImmDt */
	ck_assert_uint_eq(wire_op_off(0x0b, WIRE_RETH), 12);
	ck_assert_uint_eq(wire_op_off(0x0b, WIRE_IMMDT), 28);
	/* RC SEND LAST WITH IMMEDIATE: BTH ImmDt */
	ck_assert_uint_eq(wire_op_off(0x03, WIRE_IMMDT), 12);
	/* RC SEND ONLY WITH INVALIDATE: BTH IETH */
	ck_assert_uint_eq(wire_op_off(0x17, WIRE_IETH), 12);
	/* RC ATOMIC ACKNOWLEDGE: BTH AETH AtomicAckETH */
	ck_assert_uint_eq(wire_op_off(0x12, WIRE_AETH), 12);
	ck_assert_uint_eq(wire_op_off(0x12, WIRE_ATMACK), 16);
	/* RC COMPARE SWAP: BTH AtomicETH */
	ck_assert_uint_eq(wire_op_off(0x13, WIRE_ATMETH), 12);
	/* RC FLUSH: BTH FETH RETH */
	ck_assert_uint_eq(wire_op_off(0x1c, WIRE_FETH), 12);
	ck_assert_uint_eq(wire_op_off(0x1c, WIRE_RETH), 16);
	/* RC READ RESPONSE FIRST: BTH AETH payload */
	ck_assert_uint_eq(wire_op_off(0x0d, WIRE_AETH), 12);
	ck_assert_uint_eq(wire_op_off(0x0d, WIRE_PAYLOAD), 16);
	/* UD SEND ONLY WITH IMMEDIATE: BTH DETH ImmDt */
	ck_assert_uint_eq(wire_op_off(0x65, WIRE_DETH), 12);
	ck_assert_uint_eq(wire_op_off(0x65, WIRE_IMMDT), 20);
	ck_assert_uint_eq(wire_op_off(0x65, WIRE_PAYLOAD), 24);
	/* XRC RDMA WRITE ONLY WITH IMMEDIATE: BTH XRCETH RETH ImmDt */
	ck_assert_uint_eq(wire_op_off(0xab, WIRE_XRCETH), 12);
	ck_assert_uint_eq(wire_op_off(0xab, WIRE_RETH), 16);
	ck_assert_uint_eq(wire_op_off(0xab, WIRE_IMMDT), 32);
	/* XRC FETCH ADD: BTH XRCETH AtomicETH */
	ck_assert_uint_eq(wire_op_off(0xb4, WIRE_XRCETH), 12);
	ck_assert_uint_eq(wire_op_off(0xb4, WIRE_ATMETH), 16);
	/* XRC SEND LAST WITH INVALIDATE: BTH XRCETH IETH */
	ck_assert_uint_eq(wire_op_off(0xb6, WIRE_IETH), 16);
	/* XRC responses look like RC's */
	ck_assert_uint_eq(wire_op_off(0xb1, WIRE_AETH), 12);
	ck_assert_uint_eq(wire_op_off(0xb1, WIRE_XRCETH), 0);
	ck_assert_uint_eq(wire_op_off(0xb2, WIRE_ATMACK), 16);
}
END_TEST

static const uint8_t hdr_len_of[WIRE_NHDR] = {
	[WIRE_BTH] = WIRE_BTH_LEN,
	[WIRE_DETH] = WIRE_DETH_LEN,
	[WIRE_XRCETH] = WIRE_XRCETH_LEN,
	[WIRE_FETH] = WIRE_FETH_LEN,
	[WIRE_RETH] = WIRE_RETH_LEN,
	[WIRE_ATMETH] = WIRE_ATMETH_LEN,
	[WIRE_AETH] = WIRE_AETH_LEN,
	[WIRE_ATMACK] = WIRE_ATMACK_LEN,
	[WIRE_IMMDT] = WIRE_IMMDT_LEN,
	[WIRE_IETH] = WIRE_IETH_LEN,
};

/* Headers are packed back to back in wire order with no gaps. */
START_TEST(test_offsets_contiguous)
{
	for (unsigned int op = 0; op < 256; op++) {
		const struct wire_opcode_info *info = wire_opcode((uint8_t)op);
		unsigned int at = WIRE_BTH_LEN;

		if (!wire_op_valid((uint8_t)op))
			continue;
		ck_assert_uint_eq(info->off[WIRE_BTH], 0);
		for (int h = WIRE_DETH; h < WIRE_PAYLOAD; h++) {
			if (!(info->flags & WIRE_F_HDR(h))) {
				ck_assert_msg(info->off[h] == 0,
					      "0x%02x: absent hdr %d at %u",
					      op, h, info->off[h]);
				continue;
			}
			ck_assert_msg(info->off[h] == at,
				      "0x%02x: hdr %d at %u, expected %u",
				      op, h, info->off[h], at);
			at += hdr_len_of[h];
		}
		ck_assert_uint_eq(info->hdr_len, at);
		ck_assert_uint_le(info->hdr_len, WIRE_MAX_HDR_LEN);
	}
}
END_TEST

static unsigned int tp_qpt(unsigned int op)
{
	switch (op & WIRE_TP_MASK) {
	case WIRE_TP_RC:
		return WIRE_QPT_RC;
	case WIRE_TP_UC:
		return WIRE_QPT_UC;
	case WIRE_TP_UD:
		return WIRE_QPT_UD;
	case WIRE_TP_XRC:
		return WIRE_QPT_XRC;
	}
	return 0;
}

/* The flags must tell one consistent story for every opcode. */
START_TEST(test_flags_consistent)
{
	for (unsigned int op = 0; op < 256; op++) {
		const struct wire_opcode_info *info = wire_opcode((uint8_t)op);
		uint32_t f = info->flags;
		uint32_t cls = f & (WIRE_F_SEND | WIRE_F_WRITE | WIRE_F_READ |
				    WIRE_F_ATOMIC | WIRE_F_FLUSH |
				    WIRE_F_ATOMIC_WRITE | WIRE_F_CNP);
		bool reliable;

		if (!(f & WIRE_F_VALID))
			continue;
		ck_assert_ptr_nonnull(info->name);
		if (f & WIRE_F_CNP) {
			ck_assert(!(f & (WIRE_F_REQ | WIRE_F_RESP)));
			ck_assert_uint_eq(op, WIRE_OP_CNP);
			continue;
		}
		/* Transport prefix, mask and name agree. */
		ck_assert_uint_eq(info->qpt, tp_qpt(op));
		reliable = info->qpt & (WIRE_QPT_RC | WIRE_QPT_XRC);
		switch (op & WIRE_TP_MASK) {
		case WIRE_TP_RC:
			ck_assert(!strncmp(info->name, "RC_", 3));
			break;
		case WIRE_TP_UC:
			ck_assert(!strncmp(info->name, "UC_", 3));
			break;
		case WIRE_TP_UD:
			ck_assert(!strncmp(info->name, "UD_", 3));
			break;
		case WIRE_TP_XRC:
			ck_assert(!strncmp(info->name, "XRC_", 4));
			break;
		}

		/* Exactly one direction and exactly one class, or an ACK. */
		ck_assert(!!(f & WIRE_F_REQ) != !!(f & WIRE_F_RESP));
		ck_assert(cls == 0 ? (f & WIRE_F_ACK) != 0 :
		       (cls & (cls - 1)) == 0);
		if (f & WIRE_F_ACK)
			ck_assert(f & WIRE_F_RESP);

		/* Position in the message. */
		if (f & WIRE_F_MIDDLE)
			ck_assert(!(f & (WIRE_F_FIRST | WIRE_F_LAST)));
		else
			ck_assert(f & (WIRE_F_FIRST | WIRE_F_LAST));

		/* Only reliable requests need an answer, and all of them. */
		ck_assert_uint_eq(!!(f & WIRE_F_ACKED),
				  reliable && (f & WIRE_F_REQ));
		/* XRCETH on every XRC request and nowhere else. */
		ck_assert_uint_eq(!!(f & WIRE_F_XRCETH),
				  info->qpt == WIRE_QPT_XRC &&
				  (f & WIRE_F_REQ));
		/* DETH on every UD packet and nowhere else. */
		ck_assert_uint_eq(!!(f & WIRE_F_DETH),
				  info->qpt == WIRE_QPT_UD);
		/* AETH on every response but READ RESPONSE MIDDLE. */
		if (f & WIRE_F_RESP)
			ck_assert_uint_eq(!!(f & WIRE_F_AETH),
					  !(f & WIRE_F_MIDDLE));
		else
			ck_assert(!(f & WIRE_F_AETH));

		/* RETH starts every write, read and flush. */
		if (f & (WIRE_F_WRITE | WIRE_F_ATOMIC_WRITE | WIRE_F_FLUSH) ||
		    ((f & WIRE_F_READ) && (f & WIRE_F_REQ)))
			ck_assert_uint_eq(!!(f & WIRE_F_RETH),
					  !!(f & WIRE_F_FIRST));
		else
			ck_assert(!(f & WIRE_F_RETH));

		/* Payload on data-moving packets only. */
		ck_assert_uint_eq(!!(f & WIRE_F_PAYLOAD),
				  !!(f & (WIRE_F_SEND | WIRE_F_WRITE |
					  WIRE_F_ATOMIC_WRITE)) ||
				  ((f & WIRE_F_READ) && (f & WIRE_F_RESP)));

		/* Receive WQEs: every send, writes with immediate. */
		ck_assert_uint_eq(!!(f & WIRE_F_RECV),
				  !!(f & WIRE_F_SEND) ||
				  ((f & WIRE_F_WRITE) && (f & WIRE_F_IMM)));
		/* SE: last packets of messages that complete a receive. */
		ck_assert_uint_eq(!!(f & WIRE_F_SOLICIT),
				  (f & WIRE_F_RECV) && (f & WIRE_F_LAST));
		/* Immediate or invalidate: only on the last packet. */
		if (f & (WIRE_F_IMM | WIRE_F_INV))
			ck_assert(f & WIRE_F_LAST);
		ck_assert(!((f & WIRE_F_IMM) && (f & WIRE_F_INV)));
	}
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(wire_op_name(0x04), "RC_SEND_ONLY");
	ck_assert_str_eq(wire_op_name(0x11), "RC_ACKNOWLEDGE");
	ck_assert_str_eq(wire_op_name(0x2b),
			 "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE");
	ck_assert_str_eq(wire_op_name(0x65), "UD_SEND_ONLY_WITH_IMMEDIATE");
	ck_assert_str_eq(wire_op_name(0x81), "CNP");
	ck_assert_str_eq(wire_op_name(0xb7), "XRC_SEND_ONLY_WITH_INVALIDATE");
	ck_assert_str_eq(wire_op_name(0x15), "UNKNOWN");
	ck_assert_str_eq(wire_op_name(0x40), "UNKNOWN");
	ck_assert_str_eq(wire_op_name(0xff), "UNKNOWN");
	ck_assert_uint_eq(WIRE_OP_RC(SEND_ONLY), 0x04);
	ck_assert_uint_eq(WIRE_OP_UC(WRITE_ONLY_IMM), 0x2b);
	ck_assert_uint_eq(WIRE_OP_UD(SEND_ONLY_IMM), 0x65);
	ck_assert_uint_eq(WIRE_OP_XRC(FETCH_ADD), 0xb4);
	ck_assert_uint_eq(WIRE_OP_RC(ATOMIC_WRITE), 0x1d);
}
END_TEST

START_TEST(test_flag_queries)
{
	ck_assert(wire_op_has(0x05, WIRE_F_SEND | WIRE_F_IMM | WIRE_F_ONLY));
	ck_assert(!wire_op_has(0x04, WIRE_F_IMM));
	ck_assert(wire_op_has(0x0c, WIRE_F_READ | WIRE_F_REQ | WIRE_F_ACKED));
	ck_assert(wire_op_has(0x0e, WIRE_F_READ | WIRE_F_RESP | WIRE_F_MIDDLE));
	ck_assert(wire_op_has(0x12, WIRE_F_ACK | WIRE_F_ATOMIC));
	ck_assert(!wire_op_has(0x24, WIRE_F_ACKED));
	ck_assert(wire_op_has(0x1c, WIRE_F_FLUSH | WIRE_F_FETH | WIRE_F_RETH));
	ck_assert(wire_op_has(0x1d, WIRE_F_ATOMIC_WRITE | WIRE_F_PAYLOAD));
}
END_TEST

/* ---- wire_pkt_parse */

static uint8_t buf[256];

static size_t make(uint8_t op, unsigned int pay, unsigned int pad)
{
	size_t len = wire_op_hdr_len(op) + pay + pad + WIRE_ICRC_LEN;

	memset(buf, 0x5a, sizeof(buf));
	bth_init(buf, op, false, false, pad, 0xffff, 1, false, 0);
	return len;
}

START_TEST(test_parse_ok)
{
	struct wire_pkt pkt;
	size_t len = make(0x05, 13, 3);	/* RC SEND ONLY WITH IMMEDIATE */

	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len), WIRE_OK);
	ck_assert_ptr_eq(pkt.hdr, buf);
	ck_assert_ptr_eq(pkt.info, wire_opcode(0x05));
	ck_assert_uint_eq(pkt.len, 16 + 16);
	ck_assert_uint_eq(pkt.paylen, 13);

	len = make(0x11, 0, 0);		/* ACK: headers only */
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len), WIRE_OK);
	ck_assert_uint_eq(pkt.paylen, 0);

	len = make(0x04, 0, 0);		/* zero-length SEND */
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len), WIRE_OK);
	ck_assert_uint_eq(pkt.paylen, 0);

	len = make(0xa6, 96, 0);	/* XRC RDMA WRITE FIRST */
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len), WIRE_OK);
	ck_assert_uint_eq(pkt.paylen, 96);
}
END_TEST

START_TEST(test_parse_errors)
{
	struct wire_pkt pkt;
	size_t len;

	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, 0), WIRE_ERR_LEN);
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, 15), WIRE_ERR_LEN);

	/* RC RDMA WRITE ONLY cut inside its RETH */
	len = make(0x0a, 0, 0);
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len - 4), WIRE_ERR_LEN);

	make(0x15, 0, 0);
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, 16), WIRE_ERR_OPCODE);
	make(0x44, 0, 0);		/* RD is not emulated */
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, 32), WIRE_ERR_OPCODE);

	len = make(0x04, 4, 0);
	bth_set_tver(buf, 1);
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len), WIRE_ERR_TVER);

	len = make(0x04, 5, 0);
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len), WIRE_ERR_ALIGN);

	len = make(0x04, 0, 0);		/* pad longer than the payload */
	bth_set_pad(buf, 1);
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len), WIRE_ERR_PAD);
	len = make(0x04, 4, 0);		/* all pad is fine */
	bth_set_pad(buf, 3);
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len), WIRE_OK);
	ck_assert_uint_eq(pkt.paylen, 1);

	len = make(0x11, 0, 0);		/* ACK with a pad count */
	bth_set_pad(buf, 3);
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len), WIRE_ERR_PAD);
	len = make(0x11, 4, 0);		/* ACK with payload */
	ck_assert_int_eq(wire_pkt_parse(&pkt, buf, len), WIRE_ERR_LEN);

	ck_assert_str_eq(wire_parse_strerror(WIRE_ERR_OPCODE),
			 "unknown opcode");
	ck_assert_str_eq(wire_parse_strerror(WIRE_OK), "ok");
}
END_TEST

static Suite *opcode_suite(void)
{
	Suite *s = suite_create("opcode");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_lengths_match_ibta);
	tcase_add_test(tc, test_defined_count);
	tcase_add_test(tc, test_offsets);
	tcase_add_test(tc, test_offsets_contiguous);
	tcase_add_test(tc, test_flags_consistent);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_flag_queries);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_ok);
	tcase_add_test(tc, test_parse_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(opcode_suite());
}
