/* Unit tests of emu/device/speed.c: every speed x width, its verbs encodings, its
 * rate in units of 100 Mb/s and its enum ibv_rate, and the name parsers. */
#include <check.h>
#include <stdlib.h>

#include "emu/device/speed.h"
#include "tests/unit/testlib.h"

#define NSPEED EMU_SPEED_COUNT
#define NWIDTH EMU_WIDTH_COUNT

/* struct ibv_port_attr active_speed / active_speed_ex per speed: the
 * kernel reports NDR (128) in the 8-bit field for XDR. */
static const struct {
	const char *name;
	uint8_t active_speed;
	uint32_t active_speed_ex;
	unsigned int lane_100mbps;
} speed_facts[NSPEED] = {
	[EMU_SPEED_SDR]   = { "SDR",     1,   1,   25 },
	[EMU_SPEED_DDR]   = { "DDR",     2,   2,   50 },
	[EMU_SPEED_QDR]   = { "QDR",     4,   4,  100 },
	[EMU_SPEED_FDR10] = { "FDR10",   8,   8,  100 },
	[EMU_SPEED_FDR]   = { "FDR",    16,  16,  140 },
	[EMU_SPEED_EDR]   = { "EDR",    32,  32,  250 },
	[EMU_SPEED_HDR]   = { "HDR",    64,  64,  500 },
	[EMU_SPEED_NDR]   = { "NDR",   128, 128, 1000 },
	[EMU_SPEED_XDR]   = { "XDR",   128, 256, 2000 },
};

static const struct {
	const char *name;
	uint8_t active_width;
	unsigned int lanes;
} width_facts[NWIDTH] = {
	[EMU_WIDTH_1X]  = { "1x",   1,  1 },
	[EMU_WIDTH_2X]  = { "2x",  16,  2 },
	[EMU_WIDTH_4X]  = { "4x",   2,  4 },
	[EMU_WIDTH_8X]  = { "8x",   4,  8 },
	[EMU_WIDTH_12X] = { "12x",  8, 12 },
};

/* Expected 100 Mb/s figure and enum ibv_rate value (rdma-core verbs.h) of
 * every combination, written out rather than computed. */
static const struct {
	uint64_t r100;
	int rate;
} combo[NSPEED][NWIDTH] = {
	/*                1x          2x          4x          8x        12x */
	[EMU_SPEED_SDR]   = { {   25,  2 }, {   50,  5 }, {  100,  3 },
			      {  200,  6 }, {   300,  4 } },
	[EMU_SPEED_DDR]   = { {   50,  5 }, {  100,  3 }, {  200,  6 },
			      {  400,  7 }, {   600,  8 } },
	[EMU_SPEED_QDR]   = { {  100,  3 }, {  200,  6 }, {  400,  7 },
			      {  800,  9 }, {  1200, 10 } },
	[EMU_SPEED_FDR10] = { {  100,  3 }, {  200,  6 }, {  400,  7 },
			      {  800,  9 }, {  1200, 10 } },
	[EMU_SPEED_FDR]   = { {  140, 11 }, {  280, 19 }, {  560, 12 },
			      { 1120, 13 }, {  1680, 14 } },
	[EMU_SPEED_EDR]   = { {  250, 15 }, {  500, 20 }, { 1000, 16 },
			      { 2000, 17 }, {  3000, 18 } },
	[EMU_SPEED_HDR]   = { {  500, 20 }, { 1000, 16 }, { 2000, 17 },
			      { 4000, 21 }, {  6000, 22 } },
	[EMU_SPEED_NDR]   = { { 1000, 16 }, { 2000, 17 }, { 4000, 21 },
			      { 8000, 23 }, { 12000, 24 } },
	[EMU_SPEED_XDR]   = { { 2000, 17 }, { 4000, 21 }, { 8000, 23 },
			      { 16000, 0 }, { 24000,  0 } },
};

/* rdma-core's ibv_rate_to_mbps(): the signalling rate of each enum value,
 * indexed by the enum. */
static const int rate_to_mbps[] = {
	[2] = 2500, [5] = 5000, [3] = 10000, [6] = 20000, [4] = 30000,
	[7] = 40000, [8] = 60000, [9] = 80000, [10] = 120000, [11] = 14062,
	[12] = 56250, [13] = 112500, [14] = 168750, [15] = 25781,
	[16] = 103125, [17] = 206250, [18] = 309375, [19] = 28125,
	[20] = 53125, [21] = 425000, [22] = 637500, [23] = 850000,
	[24] = 1275000,
};

START_TEST(issue_examples)
{
	/* Verbatim from the issue. */
	ck_assert_uint_eq(emu_port_speed_100mbps(EMU_SPEED_EDR, EMU_WIDTH_4X),
			  1000);
	ck_assert_uint_eq(emu_port_speed_100mbps(EMU_SPEED_HDR, EMU_WIDTH_4X),
			  2000);
	ck_assert_uint_eq(emu_port_speed_100mbps(EMU_SPEED_SDR, EMU_WIDTH_1X),
			  25);
	ck_assert_uint_eq(emu_port_speed_100mbps(EMU_SPEED_NDR, EMU_WIDTH_2X),
			  2000);
	ck_assert_uint_eq(emu_port_speed_100mbps(EMU_SPEED_FDR, EMU_WIDTH_4X),
			  560);
	ck_assert_uint_eq(emu_port_speed_100mbps(EMU_SPEED_FDR10,
						 EMU_WIDTH_4X), 400);
	ck_assert_uint_eq(emu_port_speed_mbps(EMU_SPEED_EDR, EMU_WIDTH_4X),
			  100000);
	ck_assert_int_eq(emu_port_rate(EMU_SPEED_EDR, EMU_WIDTH_4X), 16);
	ck_assert_int_eq(emu_port_rate(EMU_SPEED_FDR, EMU_WIDTH_4X), 12);
	ck_assert_int_eq(emu_port_rate(EMU_SPEED_SDR, EMU_WIDTH_1X), 2);
}
END_TEST

/* Loop index i = speed * NWIDTH + width: one check per combination. */
START_TEST(every_combination)
{
	enum emu_speed s = (enum emu_speed)(_i / NWIDTH);
	enum emu_width w = (enum emu_width)(_i % NWIDTH);
	uint64_t r100 = emu_port_speed_100mbps(s, w);
	int rate = emu_port_rate(s, w);

	ck_assert_uint_eq(r100, combo[s][w].r100);
	ck_assert_uint_eq(r100, (uint64_t)speed_facts[s].lane_100mbps *
				width_facts[w].lanes);
	ck_assert_uint_eq(emu_port_speed_mbps(s, w), r100 * 100);
	ck_assert_int_eq(rate, combo[s][w].rate);
	if (rate) {
		int sig = rate_to_mbps[rate];

		/* Same nominal rate back, and the signalling rate verbs
		 * report for it is at most 6.25% (PAM4 + FEC) above. */
		ck_assert_uint_eq(emu_rate_to_mbps(rate), r100 * 100);
		ck_assert_int_ge(sig, (int)(r100 * 100));
		ck_assert_int_le(sig, (int)(r100 * 100 * 10625 / 10000));
	}
}
END_TEST

START_TEST(speed_encodings)
{
	enum emu_speed s = (enum emu_speed)_i;

	ck_assert_uint_eq(emu_speed_to_active_speed(s),
			  speed_facts[s].active_speed);
	ck_assert_uint_eq(emu_speed_to_active_speed_ex(s),
			  speed_facts[s].active_speed_ex);
	ck_assert_str_eq(emu_speed_name(s), speed_facts[s].name);
}
END_TEST

START_TEST(width_encodings)
{
	enum emu_width w = (enum emu_width)_i;

	ck_assert_uint_eq(emu_width_to_active_width(w),
			  width_facts[w].active_width);
	ck_assert_uint_eq(emu_width_lanes(w), width_facts[w].lanes);
	ck_assert_str_eq(emu_width_name(w), width_facts[w].name);
}
END_TEST

START_TEST(xdr_encoding)
{
	/* XDR does not fit 8 bits: NDR there, the real value in _ex. */
	ck_assert_uint_eq(emu_speed_to_active_speed(EMU_SPEED_XDR), 128);
	ck_assert_uint_eq(emu_speed_to_active_speed_ex(EMU_SPEED_XDR), 256);
	/* Below XDR both fields carry the same value. */
	ck_assert_uint_eq(emu_speed_to_active_speed(EMU_SPEED_EDR), 32);
	ck_assert_uint_eq(emu_speed_to_active_speed_ex(EMU_SPEED_EDR), 32);
}
END_TEST

START_TEST(rate_enum_unique)
{
	/* Two combinations share an enum value only if they share a rate. */
	int i, j;

	for (i = 0; i < NSPEED * NWIDTH; i++) {
		for (j = 0; j < NSPEED * NWIDTH; j++) {
			enum emu_speed si = i / NWIDTH, sj = j / NWIDTH;
			enum emu_width wi = i % NWIDTH, wj = j % NWIDTH;
			int ri = emu_port_rate(si, wi);

			if (!ri || ri != emu_port_rate(sj, wj))
				continue;
			ck_assert_uint_eq(emu_port_speed_100mbps(si, wi),
					  emu_port_speed_100mbps(sj, wj));
		}
	}
	ck_assert_uint_eq(emu_rate_to_mbps(0), 0);
	ck_assert_uint_eq(emu_rate_to_mbps(1), 0);	/* unused value */
	ck_assert_uint_eq(emu_rate_to_mbps(25), 0);
	ck_assert_uint_eq(emu_rate_to_mbps(-1), 0);
}
END_TEST

START_TEST(parse_good)
{
	static const struct {
		const char *s;
		enum emu_speed v;
	} sp[] = {
		{ "SDR", EMU_SPEED_SDR }, { "ddr", EMU_SPEED_DDR },
		{ "Qdr", EMU_SPEED_QDR }, { "FDR10", EMU_SPEED_FDR10 },
		{ "fdr10", EMU_SPEED_FDR10 }, { "FDR", EMU_SPEED_FDR },
		{ "EDR", EMU_SPEED_EDR }, { "hdr", EMU_SPEED_HDR },
		{ "NDR", EMU_SPEED_NDR }, { "XDR", EMU_SPEED_XDR },
	};
	static const struct {
		const char *s;
		enum emu_width v;
	} wd[] = {
		{ "1x", EMU_WIDTH_1X }, { "2X", EMU_WIDTH_2X },
		{ "4x", EMU_WIDTH_4X }, { "8X", EMU_WIDTH_8X },
		{ "12x", EMU_WIDTH_12X },
	};
	enum emu_speed s;
	enum emu_width w;
	unsigned int i;

	for (i = 0; i < sizeof(sp) / sizeof(sp[0]); i++) {
		s = EMU_SPEED_COUNT;
		ck_assert_int_eq(emu_speed_parse(sp[i].s, &s), 0);
		ck_assert_int_eq(s, sp[i].v);
	}
	for (i = 0; i < sizeof(wd) / sizeof(wd[0]); i++) {
		w = EMU_WIDTH_COUNT;
		ck_assert_int_eq(emu_width_parse(wd[i].s, &w), 0);
		ck_assert_int_eq(w, wd[i].v);
	}
	/* Every name the module prints parses back. */
	for (i = 0; i < NSPEED; i++) {
		ck_assert_int_eq(emu_speed_parse(emu_speed_name(i), &s), 0);
		ck_assert_int_eq(s, i);
	}
	for (i = 0; i < NWIDTH; i++) {
		ck_assert_int_eq(emu_width_parse(emu_width_name(i), &w), 0);
		ck_assert_int_eq(w, i);
	}
}
END_TEST

START_TEST(parse_bad)
{
	static const char *const bad_speed[] = {
		"", " EDR", "EDR ", "FDR14", "4", "E", "EDRX", "25", "invalid",
		"SDR\n",
	};
	static const char *const bad_width[] = {
		"", "x4", "4", "3x", "16x", "4xx", " 4x", "12", "x", "invalid",
	};
	enum emu_speed s = EMU_SPEED_HDR;
	enum emu_width w = EMU_WIDTH_8X;
	unsigned int i;

	for (i = 0; i < sizeof(bad_speed) / sizeof(bad_speed[0]); i++)
		ck_assert_int_eq(emu_speed_parse(bad_speed[i], &s), -1);
	for (i = 0; i < sizeof(bad_width) / sizeof(bad_width[0]); i++)
		ck_assert_int_eq(emu_width_parse(bad_width[i], &w), -1);
	ck_assert_int_eq(emu_speed_parse(NULL, &s), -1);
	ck_assert_int_eq(emu_width_parse(NULL, &w), -1);
	/* A failed parse leaves the output alone. */
	ck_assert_int_eq(s, EMU_SPEED_HDR);
	ck_assert_int_eq(w, EMU_WIDTH_8X);
}
END_TEST

START_TEST(out_of_range_enums)
{
	enum emu_speed s = EMU_SPEED_COUNT;
	enum emu_width w = EMU_WIDTH_COUNT;

	ck_assert_str_eq(emu_speed_name(s), "invalid");
	ck_assert_str_eq(emu_width_name(w), "invalid");
	ck_assert_uint_eq(emu_speed_to_active_speed(s), 0);
	ck_assert_uint_eq(emu_speed_to_active_speed_ex(s), 0);
	ck_assert_uint_eq(emu_width_to_active_width(w), 0);
	ck_assert_uint_eq(emu_width_lanes(w), 0);
	ck_assert_uint_eq(emu_port_speed_100mbps(s, EMU_WIDTH_4X), 0);
	ck_assert_uint_eq(emu_port_speed_100mbps(EMU_SPEED_EDR, w), 0);
	ck_assert_int_eq(emu_port_rate(s, w), 0);
}
END_TEST

START_TEST(defaults)
{
	/* The default port: 4x EDR, 100 Gb/s. */
	ck_assert_uint_eq(emu_port_speed_100mbps(EMU_DEFAULT_SPEED,
						 EMU_DEFAULT_WIDTH), 1000);
}
END_TEST

static Suite *speed_suite(void)
{
	Suite *s = suite_create("speed");
	TCase *tc = tcase_create("speed");

	tcase_add_test(tc, issue_examples);
	tcase_add_loop_test(tc, every_combination, 0, NSPEED * NWIDTH);
	tcase_add_loop_test(tc, speed_encodings, 0, NSPEED);
	tcase_add_loop_test(tc, width_encodings, 0, NWIDTH);
	tcase_add_test(tc, xdr_encoding);
	tcase_add_test(tc, rate_enum_unique);
	tcase_add_test(tc, parse_good);
	tcase_add_test(tc, parse_bad);
	tcase_add_test(tc, out_of_range_enums);
	tcase_add_test(tc, defaults);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(speed_suite());
}
