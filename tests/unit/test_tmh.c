/* tests/unit/test_tmh.c: the TMH and RVH accessors (net/tmh.h) against
 * headers written out by hand from rdma-core's tm_types.h layout (TMH:
 * opcode, 3 reserved bytes, application context, tag; RVH: address,
 * R_Key, length; all big-endian), at an odd address. */
#include <check.h>
#include <string.h>

#include "net/tmh.h"
#include "tests/unit/testlib.h"

/* A rendezvous TMH and its RVH, one byte into the buffer. */
static const uint8_t rndv[1 + 32] = {
	0x5a,						/* not a header */
	0x01, 0x00, 0x00, 0x00,				/* RNDV, reserved */
	0xca, 0xfe, 0xf0, 0x0d,				/* app_ctx */
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,	/* tag */
	0x00, 0x00, 0x7f, 0xff, 0x12, 0x34, 0x50, 0x00,	/* va */
	0x00, 0xab, 0xcd, 0xef,				/* rkey */
	0x00, 0x01, 0x00, 0x00,				/* len */
};

START_TEST(t_read)
{
	const uint8_t *tmh = rndv + 1;

	ck_assert_uint_eq(WIRE_TMH_LEN, 16);
	ck_assert_uint_eq(WIRE_RVH_LEN, 16);
	ck_assert_uint_eq(tmh_opcode(tmh), IBV_TMH_RNDV);
	ck_assert_uint_eq(tmh_opcode(tmh), 1);
	ck_assert_uint_eq(tmh_app_ctx(tmh), 0xcafef00d);
	ck_assert_uint_eq(tmh_tag(tmh), 0x0123456789abcdefull);
	ck_assert_ptr_eq(tmh_rvh(tmh), rndv + 17);
	ck_assert_uint_eq(rvh_va(tmh_rvh(tmh)), 0x00007fff12345000ull);
	ck_assert_uint_eq(rvh_rkey(tmh_rvh(tmh)), 0x00abcdef);
	ck_assert_uint_eq(rvh_len(tmh_rvh(tmh)), 0x10000);
}
END_TEST

/* rdma-core's opcode numbers, as senders put them on the wire. */
START_TEST(t_opcodes)
{
	uint8_t tmh[16] = { 0 };

	tmh[0] = 0;
	ck_assert_uint_eq(tmh_opcode(tmh), IBV_TMH_NO_TAG);
	tmh[0] = 2;
	ck_assert_uint_eq(tmh_opcode(tmh), IBV_TMH_FIN);
	tmh[0] = 3;
	ck_assert_uint_eq(tmh_opcode(tmh), IBV_TMH_EAGER);
}
END_TEST

/* A FIN as the responder sends it: every byte, reserved ones zeroed
 * over what was there. */
START_TEST(t_init)
{
	static const uint8_t want[1 + 16 + 1] = {
		0xee,
		0x02, 0x00, 0x00, 0x00,
		0x80, 0x00, 0x00, 0x01,
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
		0xee,
	};
	uint8_t b[sizeof(want)];

	memset(b, 0xee, sizeof(b));
	tmh_init(b + 1, IBV_TMH_FIN, 0x80000001, 0xfedcba9876543210ull);
	ck_assert_mem_eq(b, want, sizeof(want));
}
END_TEST

static Suite *tmh_suite(void)
{
	Suite *s = suite_create("tmh");
	TCase *tc = tcase_create("tmh");

	tcase_add_test(tc, t_read);
	tcase_add_test(tc, t_opcodes);
	tcase_add_test(tc, t_init);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(tmh_suite());
}
