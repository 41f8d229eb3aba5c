/* tests/unit/test_classify.c: packet classes (net/classify.c) of packets
 * written out by hand, their opcodes the numbers of the IBTA opcode table
 * (RC 0x00-0x1d, UC 0x20-, UD 0x60-, XRC 0xa0-, CNP 0x81) and their AETH
 * syndromes its bits (kind in bits 6-5, value in 4-0). */
#include <check.h>
#include <string.h>

#include "net/classify.h"
#include "tests/unit/testlib.h"

/* A BTH to dqpn, PSN 7, and one AETH syndrome byte after it (an ACK's;
 * payload to any other). */
static void pkt(uint8_t *b, uint8_t op, uint32_t dqpn, uint8_t syn)
{
	memset(b, 0, 64);
	b[0] = op;
	b[2] = b[3] = 0xff;			/* P_Key */
	b[5] = (uint8_t)(dqpn >> 16);
	b[6] = (uint8_t)(dqpn >> 8);
	b[7] = (uint8_t)dqpn;
	b[11] = 7;				/* PSN */
	b[12] = syn;
}

static const struct {
	uint8_t op;
	uint32_t dqpn;
	uint8_t syn;
	enum wire_class cls;
	enum wire_nak_kind nak;
	bool start;
} cases[] = {
	{ 0x04, 5, 0, WIRE_CLS_SEND, WIRE_NAK_NONE, true },	/* RC ONLY */
	{ 0x00, 5, 0, WIRE_CLS_SEND, WIRE_NAK_NONE, true },	/* FIRST */
	{ 0x01, 5, 0, WIRE_CLS_SEND, WIRE_NAK_NONE, false },	/* MIDDLE */
	{ 0x02, 5, 0, WIRE_CLS_SEND, WIRE_NAK_NONE, false },	/* LAST */
	{ 0x17, 5, 0, WIRE_CLS_SEND, WIRE_NAK_NONE, true },	/* ONLY_INV */
	{ 0x64, 5, 0, WIRE_CLS_SEND, WIRE_NAK_NONE, true },	/* UD */
	{ 0x64, 1, 0, WIRE_CLS_CM, WIRE_NAK_NONE, true },	/* to QP1 */
	{ 0xa4, 5, 0, WIRE_CLS_SEND, WIRE_NAK_NONE, true },	/* XRC */
	{ 0x06, 5, 0, WIRE_CLS_WRITE, WIRE_NAK_NONE, true },
	{ 0x07, 5, 0, WIRE_CLS_WRITE, WIRE_NAK_NONE, false },
	{ 0x2b, 5, 0, WIRE_CLS_WRITE, WIRE_NAK_NONE, true },	/* UC */
	{ 0x0c, 5, 0, WIRE_CLS_READ_REQ, WIRE_NAK_NONE, true },
	{ 0x0d, 5, 0, WIRE_CLS_READ_RESP, WIRE_NAK_NONE, true },
	{ 0x0e, 5, 0, WIRE_CLS_READ_RESP, WIRE_NAK_NONE, false },
	{ 0x0f, 5, 0, WIRE_CLS_READ_RESP, WIRE_NAK_NONE, false },
	{ 0x13, 5, 0, WIRE_CLS_ATOMIC, WIRE_NAK_NONE, true },	/* CmpSwap */
	{ 0x14, 5, 0, WIRE_CLS_ATOMIC, WIRE_NAK_NONE, true },	/* FetchAdd */
	/* An atomic ACK is the atomic's, whatever its syndrome. */
	{ 0x12, 5, 0x60, WIRE_CLS_ATOMIC, WIRE_NAK_NONE, true },
	{ 0x11, 5, 0x1f, WIRE_CLS_ACK, WIRE_NAK_NONE, true },
	{ 0x11, 5, 0x00, WIRE_CLS_ACK, WIRE_NAK_NONE, true },
	{ 0x11, 5, 0x21, WIRE_CLS_NAK, WIRE_NAK_RNR, true },
	{ 0x11, 5, 0x60, WIRE_CLS_NAK, WIRE_NAK_PSN_SEQ, true },
	{ 0x11, 5, 0x61, WIRE_CLS_NAK, WIRE_NAK_INV_REQ, true },
	{ 0x11, 5, 0x62, WIRE_CLS_NAK, WIRE_NAK_REM_ACCESS, true },
	{ 0x11, 5, 0x63, WIRE_CLS_NAK, WIRE_NAK_REM_OP, true },
	{ 0x11, 5, 0x64, WIRE_CLS_NAK, WIRE_NAK_INV_REQ, true },
	{ 0x11, 5, 0x65, WIRE_CLS_NAK, WIRE_NAK_OTHER, true },	/* reserved */
	{ 0x11, 5, 0x40, WIRE_CLS_NAK, WIRE_NAK_OTHER, true },	/* kind 2 */
	{ 0x11, 1, 0x60, WIRE_CLS_CM, WIRE_NAK_NONE, true },
	{ 0x81, 5, 0, WIRE_CLS_CNP, WIRE_NAK_NONE, true },
	{ 0x81, 1, 0, WIRE_CLS_CNP, WIRE_NAK_NONE, true },
	{ 0x1c, 5, 0, WIRE_CLS_OTHER, WIRE_NAK_NONE, true },	/* FLUSH */
	{ 0x1d, 5, 0, WIRE_CLS_OTHER, WIRE_NAK_NONE, true },	/* ATOMIC WR */
	{ 0x1f, 5, 0, WIRE_CLS_OTHER, WIRE_NAK_NONE, true },	/* undefined */
};

START_TEST(t_case)
{
	struct wire_class_of c;
	uint8_t b[64];

	pkt(b, cases[_i].op, cases[_i].dqpn, cases[_i].syn);
	memset(&c, 0xee, sizeof(c));
	wire_classify(&c, b, sizeof(b));
	ck_assert_msg(c.cls == cases[_i].cls && c.nak == cases[_i].nak &&
		      c.msg_start == cases[_i].start,
		      "opcode 0x%02x syndrome 0x%02x: class %u nak %u start %d",
		      cases[_i].op, cases[_i].syn, c.cls, c.nak, c.msg_start);
}
END_TEST

/* What is too short for a BTH, or for the AETH an ACK needs, is OTHER
 * and a message by itself. */
START_TEST(t_short)
{
	struct wire_class_of c;
	uint8_t b[64];

	pkt(b, 0x11, 5, 0x60);
	wire_classify(&c, b, 11);
	ck_assert_uint_eq(c.cls, WIRE_CLS_OTHER);
	ck_assert_uint_eq(c.nak, WIRE_NAK_NONE);
	ck_assert(c.msg_start);
	wire_classify(&c, b, 15);
	ck_assert_uint_eq(c.cls, WIRE_CLS_OTHER);
	ck_assert_uint_eq(c.nak, WIRE_NAK_NONE);
	wire_classify(&c, b, 16);
	ck_assert_uint_eq(c.cls, WIRE_CLS_NAK);
	ck_assert_uint_eq(c.nak, WIRE_NAK_PSN_SEQ);
	/* A SEND needs its BTH only. */
	pkt(b, 0x04, 5, 0);
	wire_classify(&c, b, 12);
	ck_assert_uint_eq(c.cls, WIRE_CLS_SEND);
}
END_TEST

static Suite *classify_suite(void)
{
	Suite *s = suite_create("classify");
	TCase *tc = tcase_create("classify");

	tcase_add_loop_test(tc, t_case, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, t_short);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(classify_suite());
}
