/* Port speed model: IBTA lane speeds x link widths, their struct
 * ibv_port_attr encodings, the effective data rate and its enum ibv_rate. */
#include <stddef.h>
#include <strings.h>

#include "emu/device/speed.h"

/*
 * Numeric values below are the verbs ABI (rdma-core libibverbs/verbs.h and
 * the kernel's enum ib_port_speed / ib_rate). They are spelled out rather
 * than taken from <infiniband/verbs.h> so this file depends on nothing but
 * its own header.
 */

struct speed_info {
	const char *name;
	uint32_t ibta;		/* enum ib_port_speed: IB_SPEED_* */
	uint32_t lane_100mbps;	/* nominal data rate of one lane */
};

static const struct speed_info speeds[EMU_SPEED_COUNT] = {
	[EMU_SPEED_SDR]   = { "SDR",     1,   25 },
	[EMU_SPEED_DDR]   = { "DDR",     2,   50 },
	[EMU_SPEED_QDR]   = { "QDR",     4,  100 },
	[EMU_SPEED_FDR10] = { "FDR10",   8,  100 },
	[EMU_SPEED_FDR]   = { "FDR",    16,  140 },
	[EMU_SPEED_EDR]   = { "EDR",    32,  250 },
	[EMU_SPEED_HDR]   = { "HDR",    64,  500 },
	[EMU_SPEED_NDR]   = { "NDR",   128, 1000 },
	[EMU_SPEED_XDR]   = { "XDR",   256, 2000 },
};

struct width_info {
	const char *name;
	uint8_t ibta;		/* IB_WIDTH_*: 1x=1, 4x=2, 8x=4, 12x=8, 2x=16 */
	unsigned int lanes;
};

static const struct width_info widths[EMU_WIDTH_COUNT] = {
	[EMU_WIDTH_1X]  = { "1x",   1,  1 },
	[EMU_WIDTH_2X]  = { "2x",  16,  2 },
	[EMU_WIDTH_4X]  = { "4x",   2,  4 },
	[EMU_WIDTH_8X]  = { "8x",   4,  8 },
	[EMU_WIDTH_12X] = { "12x",  8, 12 },
};

/* enum ibv_rate values are named by the nominal data rate ("100_GBPS" is
 * 4x EDR) while ibv_rate_to_mbps() returns the signalling rate (103125 for
 * it), so the lookup goes by nominal rate in units of 100 Mb/s. */
struct rate_info {
	uint32_t nominal_100mbps;
	int ibv_rate;
};

static const struct rate_info rates[] = {
	{    25,  2 },	/* IBV_RATE_2_5_GBPS */
	{    50,  5 },	/* IBV_RATE_5_GBPS */
	{   100,  3 },	/* IBV_RATE_10_GBPS */
	{   140, 11 },	/* IBV_RATE_14_GBPS */
	{   200,  6 },	/* IBV_RATE_20_GBPS */
	{   250, 15 },	/* IBV_RATE_25_GBPS */
	{   280, 19 },	/* IBV_RATE_28_GBPS */
	{   300,  4 },	/* IBV_RATE_30_GBPS */
	{   400,  7 },	/* IBV_RATE_40_GBPS */
	{   500, 20 },	/* IBV_RATE_50_GBPS */
	{   560, 12 },	/* IBV_RATE_56_GBPS */
	{   600,  8 },	/* IBV_RATE_60_GBPS */
	{   800,  9 },	/* IBV_RATE_80_GBPS */
	{  1000, 16 },	/* IBV_RATE_100_GBPS */
	{  1120, 13 },	/* IBV_RATE_112_GBPS */
	{  1200, 10 },	/* IBV_RATE_120_GBPS */
	{  1680, 14 },	/* IBV_RATE_168_GBPS */
	{  2000, 17 },	/* IBV_RATE_200_GBPS */
	{  3000, 18 },	/* IBV_RATE_300_GBPS */
	{  4000, 21 },	/* IBV_RATE_400_GBPS */
	{  6000, 22 },	/* IBV_RATE_600_GBPS */
	{  8000, 23 },	/* IBV_RATE_800_GBPS */
	{ 12000, 24 },	/* IBV_RATE_1200_GBPS */
};

/* The largest speed active_speed (8 bits) can carry: the kernel reports
 * min(speed, NDR) there and the full value in active_speed_ex. */
#define IBTA_SPEED_NDR 128

static int speed_ok(enum emu_speed s)
{
	return (unsigned int)s < EMU_SPEED_COUNT;
}

static int width_ok(enum emu_width w)
{
	return (unsigned int)w < EMU_WIDTH_COUNT;
}

int emu_speed_parse(const char *name, enum emu_speed *out)
{
	unsigned int i;

	if (!name)
		return -1;
	for (i = 0; i < EMU_SPEED_COUNT; i++) {
		if (!strcasecmp(name, speeds[i].name)) {
			*out = (enum emu_speed)i;
			return 0;
		}
	}
	return -1;
}

int emu_width_parse(const char *name, enum emu_width *out)
{
	unsigned int i;

	if (!name)
		return -1;
	for (i = 0; i < EMU_WIDTH_COUNT; i++) {
		if (!strcasecmp(name, widths[i].name)) {
			*out = (enum emu_width)i;
			return 0;
		}
	}
	return -1;
}

const char *emu_speed_name(enum emu_speed s)
{
	return speed_ok(s) ? speeds[s].name : "invalid";
}

const char *emu_width_name(enum emu_width w)
{
	return width_ok(w) ? widths[w].name : "invalid";
}

uint8_t emu_speed_to_active_speed(enum emu_speed s)
{
	if (!speed_ok(s))
		return 0;
	/* As the kernel does (uverbs copy_port_attr_to_resp) and the
	 * ibv_query_port(3) man page says: NDR when it does not fit. */
	if (speeds[s].ibta > IBTA_SPEED_NDR)
		return IBTA_SPEED_NDR;
	return (uint8_t)speeds[s].ibta;
}

uint32_t emu_speed_to_active_speed_ex(enum emu_speed s)
{
	/* The kernel fills active_speed_ex with the speed for every speed,
	 * not only for XDR; 0 means "old kernel, read active_speed". */
	return speed_ok(s) ? speeds[s].ibta : 0;
}

uint8_t emu_width_to_active_width(enum emu_width w)
{
	return width_ok(w) ? widths[w].ibta : 0;
}

unsigned int emu_width_lanes(enum emu_width w)
{
	return width_ok(w) ? widths[w].lanes : 0;
}

uint64_t emu_port_speed_100mbps(enum emu_speed s, enum emu_width w)
{
	if (!speed_ok(s) || !width_ok(w))
		return 0;
	return (uint64_t)speeds[s].lane_100mbps * widths[w].lanes;
}

uint64_t emu_port_speed_mbps(enum emu_speed s, enum emu_width w)
{
	return emu_port_speed_100mbps(s, w) * 100;
}

int emu_port_rate(enum emu_speed s, enum emu_width w)
{
	uint64_t r = emu_port_speed_100mbps(s, w);
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].nominal_100mbps == r)
			return rates[i].ibv_rate;
	return 0;	/* IBV_RATE_MAX: no enum value for this rate */
}

uint64_t emu_rate_to_mbps(int ibv_rate)
{
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].ibv_rate == ibv_rate)
			return (uint64_t)rates[i].nominal_100mbps * 100;
	return 0;
}
