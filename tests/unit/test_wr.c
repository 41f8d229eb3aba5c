/* tests/unit/test_wr.c: the work-request opcode table (emu/objects/wr.c) against
 * expectations written out by hand from ibv_post_send(3) and the IBTA
 * opcode list: the QP types each ibv_wr_opcode may be posted on, what it
 * does, its completion opcode and the BTH opcodes of its packets.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/objects/wr.h"
#include "net/opcode.h"
#include "tests/unit/testlib.h"

enum { RC, UC, UD, XRC, NQPT };

static const enum ibv_qp_type qpt_of[NQPT] = {
	[RC] = IBV_QPT_RC,
	[UC] = IBV_QPT_UC,
	[UD] = IBV_QPT_UD,
	[XRC] = IBV_QPT_XRC_SEND,
};

struct expect {
	enum ibv_wr_opcode op;
	bool qpt[NQPT];			/* may be posted on RC, UC, UD, XRC */
	enum ibv_wc_opcode wc;
	bool send, write, read, atomic, local, inl;
	/* RC's BTH opcodes, first/middle/last/only; -1 for local work. */
	int wire[EMU_WR_NPOS];
};

static const struct expect expected[] = {
	{ IBV_WR_RDMA_WRITE, { 1, 1, 0, 1 }, IBV_WC_RDMA_WRITE,
	  .write = 1, .inl = 1, .wire = { 0x06, 0x07, 0x08, 0x0a } },
	{ IBV_WR_RDMA_WRITE_WITH_IMM, { 1, 1, 0, 1 }, IBV_WC_RDMA_WRITE,
	  .write = 1, .inl = 1, .wire = { 0x06, 0x07, 0x09, 0x0b } },
	{ IBV_WR_SEND, { 1, 1, 1, 1 }, IBV_WC_SEND,
	  .send = 1, .inl = 1, .wire = { 0x00, 0x01, 0x02, 0x04 } },
	{ IBV_WR_SEND_WITH_IMM, { 1, 1, 1, 1 }, IBV_WC_SEND,
	  .send = 1, .inl = 1, .wire = { 0x00, 0x01, 0x03, 0x05 } },
	{ IBV_WR_RDMA_READ, { 1, 0, 0, 1 }, IBV_WC_RDMA_READ,
	  .read = 1, .wire = { 0x0c, 0x0c, 0x0c, 0x0c } },
	{ IBV_WR_ATOMIC_CMP_AND_SWP, { 1, 0, 0, 1 }, IBV_WC_COMP_SWAP,
	  .atomic = 1, .wire = { 0x13, 0x13, 0x13, 0x13 } },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, { 1, 0, 0, 1 }, IBV_WC_FETCH_ADD,
	  .atomic = 1, .wire = { 0x14, 0x14, 0x14, 0x14 } },
	{ IBV_WR_LOCAL_INV, { 1, 1, 0, 1 }, IBV_WC_LOCAL_INV,
	  .local = 1, .wire = { -1, -1, -1, -1 } },
	{ IBV_WR_BIND_MW, { 1, 1, 0, 1 }, IBV_WC_BIND_MW,
	  .local = 1, .wire = { -1, -1, -1, -1 } },
	{ IBV_WR_SEND_WITH_INV, { 1, 0, 0, 1 }, IBV_WC_SEND,
	  .send = 1, .inl = 1, .wire = { 0x00, 0x01, 0x16, 0x17 } },
};

#define NEXPECTED (sizeof(expected) / sizeof(expected[0]))

START_TEST(test_qp_types)
{
	const struct expect *e = &expected[_i];
	int t;

	for (t = 0; t < NQPT; t++)
		ck_assert_msg(emu_wr_qp_ok(e->op, qpt_of[t]) == e->qpt[t],
			      "opcode %d on QP type %d", (int)e->op,
			      (int)qpt_of[t]);
	/* No send queue to post to: refused whatever the opcode. */
	ck_assert(!emu_wr_qp_ok(e->op, IBV_QPT_XRC_RECV));
	ck_assert(!emu_wr_qp_ok(e->op, IBV_QPT_RAW_PACKET));
}
END_TEST

START_TEST(test_completion)
{
	const struct expect *e = &expected[_i];

	ck_assert_int_eq(emu_wr_wc_opcode(e->op), e->wc);
	ck_assert_ptr_nonnull(emu_wr_info(e->op));
	ck_assert_int_eq(emu_wr_info(e->op)->wc_opcode, e->wc);
	ck_assert_ptr_nonnull(emu_wr_info(e->op)->name);
}
END_TEST

START_TEST(test_flags)
{
	const struct expect *e = &expected[_i];
	uint32_t op = e->op;

	ck_assert_int_eq(emu_wr_any(op, EMU_WR_F_SEND), e->send);
	ck_assert_int_eq(emu_wr_any(op, EMU_WR_F_WRITE), e->write);
	ck_assert_int_eq(emu_wr_reads(op), e->read);
	ck_assert_int_eq(emu_wr_atomic(op), e->atomic);
	ck_assert_int_eq(emu_wr_local(op), e->local);
	ck_assert_int_eq(emu_wr_any(op, EMU_WR_F_INLINE), e->inl);
	ck_assert_int_eq(emu_wr_rd_atomic(op), e->read || e->atomic);
	/* Every request does exactly one kind of thing. */
	ck_assert_int_eq(e->send + e->write + e->read + e->atomic + e->local,
			 1);
	ck_assert_int_eq(emu_wr_any(op, EMU_WR_F_IMM),
			 op == IBV_WR_SEND_WITH_IMM ||
			 op == IBV_WR_RDMA_WRITE_WITH_IMM);
	ck_assert_int_eq(emu_wr_any(op, EMU_WR_F_INV),
			 op == IBV_WR_SEND_WITH_INV || op == IBV_WR_LOCAL_INV);
}
END_TEST

static uint8_t wire_at(uint32_t op, enum ibv_qp_type t, int pos)
{
	return emu_wr_wire_opcode(op, t, pos == EMU_WR_FIRST ||
				  pos == EMU_WR_ONLY,
				  pos == EMU_WR_LAST || pos == EMU_WR_ONLY);
}

START_TEST(test_wire_opcodes)
{
	static const uint8_t tp[NQPT] = {
		[RC] = 0x00, [UC] = 0x20, [UD] = 0x60, [XRC] = 0xa0,
	};
	const struct expect *e = &expected[_i];
	int t, pos;
	uint8_t got, want;

	if (e->local)
		return;
	for (t = 0; t < NQPT; t++) {
		if (!e->qpt[t])
			continue;
		for (pos = 0; pos < EMU_WR_NPOS; pos++) {
			got = wire_at(e->op, qpt_of[t], pos);
			/* A UD message is always a single ONLY packet. */
			want = tp[t] | e->wire[t == UD ? EMU_WR_ONLY : pos];
			ck_assert_msg(got == want, "opcode %d, QP type %d, "
				      "position %d: 0x%02x, not 0x%02x",
				      (int)e->op, (int)qpt_of[t], pos, got,
				      want);
			/* And the wire table knows it as a request. */
			ck_assert(wire_op_valid(got));
			ck_assert(wire_op_has(got, WIRE_F_REQ));
		}
	}
}
END_TEST

/* Not emulated, or not an opcode at all: the table has no row, so a post
 * is refused on every QP type (EINVAL, test_qp checks the errno). */
START_TEST(test_unknown_refused)
{
	static const uint32_t bad[] = {
		IBV_WR_TSO, IBV_WR_DRIVER1, 12, 13, IBV_WR_FLUSH,
		IBV_WR_ATOMIC_WRITE, EMU_WR_NOPCODES, 0x100, 0xffffffffu,
	};
	unsigned int i;
	int t;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_ptr_null(emu_wr_info(bad[i]));
		for (t = 0; t < NQPT; t++)
			ck_assert(!emu_wr_qp_ok(bad[i], qpt_of[t]));
		ck_assert(!emu_wr_any(bad[i], ~0u));
		ck_assert(!emu_wr_rd_atomic(bad[i]));
	}
}
END_TEST

/* Every row the table has is one this test expects, so a row added
 * without a test fails here. */
START_TEST(test_no_unexpected_rows)
{
	unsigned int op, i, rows = 0;

	for (op = 0; op < EMU_WR_NOPCODES; op++) {
		if (!emu_wr_info(op))
			continue;
		rows++;
		for (i = 0; i < NEXPECTED; i++)
			if (expected[i].op == op)
				break;
		ck_assert_msg(i < NEXPECTED, "row %u is not expected", op);
	}
	ck_assert_uint_eq(rows, NEXPECTED);
}
END_TEST

static Suite *wr_suite(void)
{
	Suite *s = suite_create("wr");
	TCase *tc = tcase_create("table");

	tcase_add_loop_test(tc, test_qp_types, 0, NEXPECTED);
	tcase_add_loop_test(tc, test_completion, 0, NEXPECTED);
	tcase_add_loop_test(tc, test_flags, 0, NEXPECTED);
	tcase_add_loop_test(tc, test_wire_opcodes, 0, NEXPECTED);
	tcase_add_test(tc, test_unknown_refused);
	tcase_add_test(tc, test_no_unexpected_rows);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(wr_suite());
}
