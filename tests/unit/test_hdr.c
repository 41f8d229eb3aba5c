/* tests/unit/test_hdr.c: every header accessor round-trips, touches exactly
 * the bits IBTA gives its field, and decodes packets built by scapy.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "net/hdr.h"
#include "tests/unit/testlib.h"

/* Uniform wrappers so one loop can drive every accessor. */
#define WRAP(n, get, set, T)						\
	static uint64_t get_##n(const void *p)				\
	{								\
		return (uint64_t)get(p);				\
	}								\
	static void set_##n(void *p, uint64_t v)			\
	{								\
		set(p, (T)v);						\
	}

WRAP(opcode, bth_opcode, bth_set_opcode, uint8_t)
WRAP(se, bth_se, bth_set_se, bool)
WRAP(mig, bth_mig, bth_set_mig, bool)
WRAP(pad, bth_pad, bth_set_pad, unsigned int)
WRAP(tver, bth_tver, bth_set_tver, unsigned int)
WRAP(pkey, bth_pkey, bth_set_pkey, uint16_t)
WRAP(fecn, bth_fecn, bth_set_fecn, bool)
WRAP(becn, bth_becn, bth_set_becn, bool)
WRAP(qpn, bth_qpn, bth_set_qpn, uint32_t)
WRAP(ackreq, bth_ackreq, bth_set_ackreq, bool)
WRAP(psn, bth_psn, bth_set_psn, uint32_t)
WRAP(reth_va, reth_va, reth_set_va, uint64_t)
WRAP(reth_rkey, reth_rkey, reth_set_rkey, uint32_t)
WRAP(reth_len, reth_len, reth_set_len, uint32_t)
WRAP(aeth_syn, aeth_syndrome, aeth_set_syndrome, uint8_t)
WRAP(aeth_msn, aeth_msn, aeth_set_msn, uint32_t)
WRAP(atm_va, atmeth_va, atmeth_set_va, uint64_t)
WRAP(atm_rkey, atmeth_rkey, atmeth_set_rkey, uint32_t)
WRAP(atm_swap, atmeth_swap_add, atmeth_set_swap_add, uint64_t)
WRAP(atm_cmp, atmeth_compare, atmeth_set_compare, uint64_t)
WRAP(atmack, atmack_orig, atmack_set_orig, uint64_t)
WRAP(ieth, ieth_rkey, ieth_set_rkey, uint32_t)
WRAP(qkey, deth_qkey, deth_set_qkey, uint32_t)
WRAP(sqpn, deth_sqpn, deth_set_sqpn, uint32_t)
WRAP(srqn, xrceth_srqn, xrceth_set_srqn, uint32_t)

WRAP(feth_sel, feth_sel, feth_set_sel, unsigned int)
WRAP(feth_plt, feth_plt, feth_set_plt, unsigned int)

/*
 * Position of each field in bits from the first bit of the BTH (bit 0 is
 * the most significant bit of byte 0), as the IBTA header diagrams give
 * them, for an opcode that carries the field.
 */
struct field {
	const char *name;
	uint8_t op;
	unsigned int bit;
	unsigned int width;
	uint64_t (*get)(const void *p);
	void (*set)(void *p, uint64_t v);
};

#define FLD(n, op, bit, width) { #n, op, bit, width, get_##n, set_##n }

static const struct field fields[] = {
	FLD(opcode, 0x04, 0, 8),
	FLD(se, 0x04, 8, 1),
	FLD(mig, 0x04, 9, 1),
	FLD(pad, 0x04, 10, 2),
	FLD(tver, 0x04, 12, 4),
	FLD(pkey, 0x04, 16, 16),
	FLD(fecn, 0x04, 32, 1),
	FLD(becn, 0x04, 33, 1),
	FLD(qpn, 0x04, 40, 24),
	FLD(ackreq, 0x04, 64, 1),
	FLD(psn, 0x04, 72, 24),
	/* RC RDMA WRITE ONLY: RETH at byte 12 */
	FLD(reth_va, 0x0a, 96, 64),
	FLD(reth_rkey, 0x0a, 160, 32),
	FLD(reth_len, 0x0a, 192, 32),
	/* XRC RDMA READ REQUEST: RETH at byte 16, after XRCETH */
	FLD(reth_va, 0xac, 128, 64),
	FLD(reth_rkey, 0xac, 192, 32),
	FLD(reth_len, 0xac, 224, 32),
	/* RC FLUSH: FETH at 12, RETH at 16 */
	FLD(feth_sel, 0x1c, 122, 2),
	FLD(feth_plt, 0x1c, 124, 4),
	FLD(reth_len, 0x1c, 224, 32),
	/* RC ACKNOWLEDGE */
	FLD(aeth_syn, 0x11, 96, 8),
	FLD(aeth_msn, 0x11, 104, 24),
	/* RC COMPARE SWAP, and XRC FETCH ADD one word further */
	FLD(atm_va, 0x13, 96, 64),
	FLD(atm_rkey, 0x13, 160, 32),
	FLD(atm_swap, 0x13, 192, 64),
	FLD(atm_cmp, 0x13, 256, 64),
	FLD(atm_va, 0xb4, 128, 64),
	FLD(atm_cmp, 0xb4, 288, 64),
	/* RC ATOMIC ACKNOWLEDGE: AtomicAckETH after AETH */
	FLD(aeth_msn, 0x12, 104, 24),
	FLD(atmack, 0x12, 128, 64),
	/* RC SEND ONLY WITH INVALIDATE, XRC SEND LAST WITH INVALIDATE */
	FLD(ieth, 0x17, 96, 32),
	FLD(ieth, 0xb6, 128, 32),
	/* UD SEND ONLY WITH IMMEDIATE */
	FLD(qkey, 0x65, 96, 32),
	FLD(sqpn, 0x65, 136, 24),
	/* XRC SEND FIRST */
	FLD(srqn, 0xa0, 104, 24),
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
#define BUFLEN 64

static void expected_mask(const struct field *f, uint8_t *mask)
{
	memset(mask, 0, BUFLEN);
	for (unsigned int b = f->bit; b < f->bit + f->width; b++)
		mask[b / 8] |= (uint8_t)(0x80 >> (b % 8));
}

static uint64_t width_mask(unsigned int width)
{
	return width == 64 ? ~0ull : (1ull << width) - 1;
}

/*
 * Set v into a buffer prefilled with fill, then check the read-back and
 * that every bit outside the field kept the fill.
 */
static void check_one(const struct field *f, uint8_t fill, uint64_t v)
{
	uint8_t buf[BUFLEN], mask[BUFLEN];
	uint64_t want = v & width_mask(f->width);

	expected_mask(f, mask);
	memset(buf, fill, sizeof(buf));
	buf[0] = f->op;		/* accessors find headers through it */
	f->set(buf, v);
	ck_assert_msg(f->get(buf) == want,
		      "%s/0x%02x fill %02x: wrote %#llx read %#llx", f->name,
		      f->op, fill, (unsigned long long)v,
		      (unsigned long long)f->get(buf));
	for (unsigned int i = 0; i < BUFLEN; i++) {
		uint8_t outside = (uint8_t)~mask[i];
		uint8_t ref = i == 0 ? f->op : fill;

		if (f->bit == 0 && i == 0)
			continue;	/* the opcode is the field */
		ck_assert_msg((buf[i] & outside) == (ref & outside),
			      "%s/0x%02x: byte %u disturbed (%02x)", f->name,
			      f->op, i, buf[i]);
	}
}

/* The field occupies exactly the bits the IBTA diagram says. */
static void check_position(const struct field *f)
{
	uint8_t buf[BUFLEN], mask[BUFLEN];

	if (f->bit == 0)
		return;
	expected_mask(f, mask);
	memset(buf, 0, sizeof(buf));
	buf[0] = f->op;
	f->set(buf, ~0ull);
	buf[0] = 0;
	ck_assert_msg(!memcmp(buf, mask, BUFLEN), "%s/0x%02x misplaced",
		      f->name, f->op);
}

START_TEST(test_fields_round_trip)
{
	const struct field *f = &fields[_i];
	uint64_t m = width_mask(f->width);
	const uint64_t values[] = {
		0, 1, m, m - 1, m >> 1, (m >> 1) + 1,
		0xaaaaaaaaaaaaaaaaull & m, 0x5555555555555555ull & m,
		0x0123456789abcdefull & m,
	};

	check_position(f);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		/* The opcode field must keep naming the right opcode. */
		if (f->bit == 0 && values[i] != f->op)
			continue;
		check_one(f, 0x00, values[i]);
		check_one(f, 0xff, values[i]);
	}
	/* Wider values are cut to the field, never spill over. */
	if (f->width > 1 && f->width < 64) {
		check_one(f, 0x00, ~0ull);
		check_one(f, 0xff, ~m | 1);
	}
}
END_TEST

/*
 * The IB part of the RC RDMA WRITE ONLY packet that scapy's RoCE layer
 * built for test_icrc.c: an independent encoder of the same fields.
 */
static const uint8_t scapy_write_only[] = {
	0x0a, 0x70, 0x80, 0x01, 0xc0, 0xfe, 0xdc, 0xba, 0x80, 0xff, 0xff, 0xff,
	0x00, 0x00, 0x7f, 0x12, 0x34, 0x56, 0x70, 0x00, 0x12, 0x34, 0xab, 0xcd,
	0x00, 0x00, 0x00, 0x0d,
};

START_TEST(test_decode_scapy)
{
	const uint8_t *p = scapy_write_only;
	uint8_t out[sizeof(scapy_write_only)];

	ck_assert_uint_eq(bth_opcode(p), WIRE_OP_RC(WRITE_ONLY));
	ck_assert(!bth_se(p));
	ck_assert(bth_mig(p));
	ck_assert_uint_eq(bth_pad(p), 3);
	ck_assert_uint_eq(bth_tver(p), 0);
	ck_assert_uint_eq(bth_pkey(p), 0x8001);
	ck_assert(bth_fecn(p));
	ck_assert(bth_becn(p));
	ck_assert_uint_eq(bth_qpn(p), 0xfedcba);
	ck_assert(bth_ackreq(p));
	ck_assert_uint_eq(bth_psn(p), 0xffffff);
	ck_assert_uint_eq(reth_va(p), 0x00007f1234567000ull);
	ck_assert_uint_eq(reth_rkey(p), 0x1234abcd);
	ck_assert_uint_eq(reth_len(p), 13);
	ck_assert_ptr_eq(wire_payload(p), p + 28);

	/* And the encoders produce the same bytes. */
	memset(out, 0xee, sizeof(out));
	bth_init(out, 0x0a, false, true, 3, 0x8001, 0xfedcba, true, 0xffffff);
	bth_set_fecn(out, true);
	bth_set_becn(out, true);
	reth_set_va(out, 0x00007f1234567000ull);
	reth_set_rkey(out, 0x1234abcd);
	reth_set_len(out, 13);
	ck_assert_mem_eq(out, scapy_write_only, sizeof(out));
}
END_TEST

START_TEST(test_bth_init_clears_reserved)
{
	uint8_t b[WIRE_BTH_LEN];
	const uint8_t want[WIRE_BTH_LEN] = {
		0x64, 0x80, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x12, 0x34, 0x56,
	};

	memset(b, 0xff, sizeof(b));
	/* Out-of-range pad, QPN and PSN are cut to their fields. */
	bth_init(b, 0x64, true, false, 4, 0xffff, 0x7000001, false,
		 0xff123456);
	ck_assert_mem_eq(b, want, sizeof(b));
}
END_TEST

START_TEST(test_immdt_is_opaque)
{
	uint8_t b[40] = { 0x05 };	/* RC SEND ONLY WITH IMMEDIATE */
	const uint8_t imm[4] = { 0xde, 0xad, 0xbe, 0xef };
	uint32_t be;

	memcpy(&be, imm, 4);
	immdt_set_imm_be(b, be);
	ck_assert_mem_eq(b + 12, imm, 4);
	ck_assert_uint_eq(immdt_imm_be(b), be);

	/* UD: after the DETH; XRC write-only-imm: after XRCETH and RETH. */
	memset(b, 0, sizeof(b));
	b[0] = 0x65;
	immdt_set_imm_be(b, be);
	ck_assert_mem_eq(b + 20, imm, 4);
	memset(b, 0, sizeof(b));
	b[0] = 0xab;
	immdt_set_imm_be(b, be);
	ck_assert_mem_eq(b + 32, imm, 4);
	ck_assert_uint_eq(immdt_imm_be(b), be);
}
END_TEST

/* The *_init writers zero the reserved bits the single setters leave. */
START_TEST(test_init_clears_reserved)
{
	uint8_t b[40];

	memset(b, 0xff, sizeof(b));
	b[0] = 0x64;
	deth_init(b, 0x80010000u, 0x000001);
	ck_assert_uint_eq(b[16], 0);
	ck_assert_uint_eq(deth_qkey(b), 0x80010000u);
	ck_assert_uint_eq(deth_sqpn(b), 1);

	memset(b, 0xff, sizeof(b));
	b[0] = 0xa4;
	xrceth_init(b, 0xabcdef);
	ck_assert_uint_eq(b[12], 0);
	ck_assert_uint_eq(xrceth_srqn(b), 0xabcdef);

	memset(b, 0xff, sizeof(b));
	b[0] = 0x1c;
	feth_init(b, 1, 2);
	ck_assert_uint_eq(wire_get32(b + 12), 0x12);
	ck_assert_uint_eq(feth_sel(b), 1);
	ck_assert_uint_eq(feth_plt(b), 2);
	ck_assert_uint_eq(b[16], 0xff);	/* the RETH is left alone */
}
END_TEST

START_TEST(test_aeth_syndrome)
{
	uint8_t syn;

	/* ACK with credit code 31 ("no count") is 0x1f on the wire. */
	syn = aeth_syn_ack(AETH_CREDITS_INVALID);
	ck_assert_uint_eq(syn, 0x1f);
	ck_assert_int_eq(aeth_syn_kind(syn), AETH_ACK);
	ck_assert_uint_eq(aeth_syn_value(syn), 31);

	/* RNR NAK, timer code 14 (1.28 ms) */
	syn = aeth_syn_rnr(14);
	ck_assert_uint_eq(syn, 0x2e);
	ck_assert_int_eq(aeth_syn_kind(syn), AETH_RNR_NAK);
	ck_assert_uint_eq(aeth_syn_value(syn), 14);

	/* NAK codes 0..4 are 0x60..0x64 */
	ck_assert_uint_eq(aeth_syn_nak(AETH_NAK_PSN_SEQ), 0x60);
	ck_assert_uint_eq(aeth_syn_nak(AETH_NAK_INVALID_REQ), 0x61);
	ck_assert_uint_eq(aeth_syn_nak(AETH_NAK_REMOTE_ACCESS), 0x62);
	ck_assert_uint_eq(aeth_syn_nak(AETH_NAK_REMOTE_OP), 0x63);
	ck_assert_uint_eq(aeth_syn_nak(AETH_NAK_INVALID_RD_REQ), 0x64);
	ck_assert_int_eq(aeth_syn_kind(0x63), AETH_NAK);
	ck_assert_uint_eq(aeth_syn_value(0x63), AETH_NAK_REMOTE_OP);
	ck_assert_int_eq(aeth_syn_kind(0x40), AETH_RESERVED);

	/* The reserved top bit never leaks into kind or value. */
	ck_assert_int_eq(aeth_syn_kind(0x9f), AETH_ACK);
	ck_assert_uint_eq(aeth_syn_value(0x9f), 31);
	ck_assert_uint_eq(aeth_syn_make(AETH_ACK, 0xff), 0x1f);
}
END_TEST

START_TEST(test_aeth_set_get)
{
	uint8_t b[16] = { 0x11 };

	aeth_init(b, aeth_syn_nak(AETH_NAK_PSN_SEQ), 0xabcdef);
	ck_assert_uint_eq(b[12], 0x60);
	ck_assert_uint_eq(b[13], 0xab);
	ck_assert_uint_eq(b[15], 0xef);
	ck_assert_uint_eq(aeth_msn(b), 0xabcdef);
	ck_assert_uint_eq(aeth_syndrome(b), 0x60);
}
END_TEST

/* IBTA's end-to-end credit table, written out in full. */
static const uint32_t credit_table[31] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256,
	384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768,
};

START_TEST(test_credits)
{
	for (unsigned int c = 0; c < 31; c++) {
		ck_assert_uint_eq(aeth_credits(c), credit_table[c]);
		ck_assert_uint_eq(aeth_credit_code(credit_table[c]), c);
	}
	ck_assert_uint_eq(aeth_credits(31), UINT32_MAX);
	/* Encoding rounds down, never promising more than there is. */
	ck_assert_uint_eq(aeth_credit_code(5), 4);
	ck_assert_uint_eq(aeth_credit_code(7), 5);
	ck_assert_uint_eq(aeth_credit_code(1000), 19);
	ck_assert_uint_eq(aeth_credit_code(UINT32_MAX), 30);
}
END_TEST

START_TEST(test_rnr_timer)
{
	ck_assert_uint_eq(wire_rnr_timer_usec(0), 655360);
	ck_assert_uint_eq(wire_rnr_timer_usec(1), 10);
	ck_assert_uint_eq(wire_rnr_timer_usec(5), 60);
	ck_assert_uint_eq(wire_rnr_timer_usec(12), 640);
	ck_assert_uint_eq(wire_rnr_timer_usec(14), 1280);
	ck_assert_uint_eq(wire_rnr_timer_usec(22), 20480);
	ck_assert_uint_eq(wire_rnr_timer_usec(31), 491520);
	/* From code 2 on each step is x1.5 or x4/3, never a decrease. */
	for (unsigned int c = 2; c < 32; c++)
		ck_assert_uint_gt(wire_rnr_timer_usec(c),
				  wire_rnr_timer_usec(c - 1));
}
END_TEST

START_TEST(test_mtu)
{
	ck_assert_uint_eq(wire_mtu_to_bytes(WIRE_MTU_256), 256);
	ck_assert_uint_eq(wire_mtu_to_bytes(WIRE_MTU_512), 512);
	ck_assert_uint_eq(wire_mtu_to_bytes(WIRE_MTU_1024), 1024);
	ck_assert_uint_eq(wire_mtu_to_bytes(WIRE_MTU_2048), 2048);
	ck_assert_uint_eq(wire_mtu_to_bytes(WIRE_MTU_4096), 4096);
	ck_assert_uint_eq(wire_mtu_to_bytes(0), 0);
	ck_assert_uint_eq(wire_mtu_to_bytes(6), 0);
	ck_assert_uint_eq(wire_mtu_to_bytes(-1), 0);
	ck_assert_int_eq(wire_bytes_to_mtu(255), 0);
	ck_assert_int_eq(wire_bytes_to_mtu(256), WIRE_MTU_256);
	ck_assert_int_eq(wire_bytes_to_mtu(1500), WIRE_MTU_1024);
	ck_assert_int_eq(wire_bytes_to_mtu(4096), WIRE_MTU_4096);
	ck_assert_int_eq(wire_bytes_to_mtu(9000), WIRE_MTU_4096);
}
END_TEST

START_TEST(test_constants)
{
	ck_assert_uint_eq(WIRE_ROCE_UDP_PORT, 4791);
	ck_assert_uint_eq(WIRE_BTH_LEN, 12);
	ck_assert_uint_eq(WIRE_ICRC_LEN, 4);
	ck_assert_uint_eq(wire_pad_len(0), 0);
	ck_assert_uint_eq(wire_pad_len(1), 3);
	ck_assert_uint_eq(wire_pad_len(2), 2);
	ck_assert_uint_eq(wire_pad_len(3), 1);
	ck_assert_uint_eq(wire_pad_len(4096), 0);
}
END_TEST

START_TEST(test_raw_helpers)
{
	uint8_t b[8];

	wire_put64(b, 0x0102030405060708ull);
	ck_assert_uint_eq(b[0], 1);
	ck_assert_uint_eq(b[7], 8);
	ck_assert_uint_eq(wire_get64(b), 0x0102030405060708ull);
	ck_assert_uint_eq(wire_get32(b + 1), 0x02030405);
	ck_assert_uint_eq(wire_get24(b + 5), 0x060708);
	ck_assert_uint_eq(wire_get16(b + 6), 0x0708);
}
END_TEST

static Suite *hdr_suite(void)
{
	Suite *s = suite_create("hdr");
	TCase *tc = tcase_create("fields");

	tcase_add_loop_test(tc, test_fields_round_trip, 0, (int)NFIELDS);
	tcase_add_test(tc, test_decode_scapy);
	tcase_add_test(tc, test_bth_init_clears_reserved);
	tcase_add_test(tc, test_immdt_is_opaque);
	tcase_add_test(tc, test_init_clears_reserved);
	suite_add_tcase(s, tc);

	tc = tcase_create("aeth");
	tcase_add_test(tc, test_aeth_syndrome);
	tcase_add_test(tc, test_aeth_set_get);
	tcase_add_test(tc, test_credits);
	tcase_add_test(tc, test_rnr_timer);
	suite_add_tcase(s, tc);

	tc = tcase_create("misc");
	tcase_add_test(tc, test_mtu);
	tcase_add_test(tc, test_constants);
	tcase_add_test(tc, test_raw_helpers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(hdr_suite());
}
