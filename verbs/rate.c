/* Device-independent helper verbs: enum ibv_rate <-> Mb/s <-> multiples of
 * 2.5 Gb/s conversions, and the fork-support verbs (ibv_fork_init & co). */

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/base/log.h"

/* ------------------------------------------------------------------ */
/* Static rates                                                        */

/*
 * One row per defined enum ibv_rate value (IBV_RATE_MAX, 0, means "no
 * limit" and has no row). mbps is the effective data rate rdma-core reports,
 * which for the 64b/66b-encoded speeds (FDR, EDR, ...) is not a round number.
 * mult is the rate as a multiple of the 2.5 Gb/s SDR lane, or -1 where the
 * rate is not such a multiple; rdma-core maps the 28 Gb/s rate to 11, and we
 * keep that so programs see the same answer.
 */
struct rate_row {
	enum ibv_rate rate;
	int mbps;
	int mult;
};

static const struct rate_row rate_table[] = {
	{ IBV_RATE_2_5_GBPS,	  2500,   1 },
	{ IBV_RATE_5_GBPS,	  5000,   2 },
	{ IBV_RATE_10_GBPS,	 10000,   4 },
	{ IBV_RATE_20_GBPS,	 20000,   8 },
	{ IBV_RATE_30_GBPS,	 30000,  12 },
	{ IBV_RATE_40_GBPS,	 40000,  16 },
	{ IBV_RATE_60_GBPS,	 60000,  24 },
	{ IBV_RATE_80_GBPS,	 80000,  32 },
	{ IBV_RATE_120_GBPS,	120000,  48 },
	{ IBV_RATE_14_GBPS,	 14062,  -1 },
	{ IBV_RATE_56_GBPS,	 56250,  -1 },
	{ IBV_RATE_112_GBPS,	112500,  -1 },
	{ IBV_RATE_168_GBPS,	168750,  -1 },
	{ IBV_RATE_25_GBPS,	 25781,  -1 },
	{ IBV_RATE_100_GBPS,	103125,  -1 },
	{ IBV_RATE_200_GBPS,	206250,  -1 },
	{ IBV_RATE_300_GBPS,	309375,  -1 },
	{ IBV_RATE_28_GBPS,	 28125,  11 },
	{ IBV_RATE_50_GBPS,	 53125,  20 },
	{ IBV_RATE_400_GBPS,	425000, 160 },
	{ IBV_RATE_600_GBPS,	637500, 240 },
	{ IBV_RATE_800_GBPS,	850000, 320 },
	{ IBV_RATE_1200_GBPS,  1275000, 480 },
};

#define RATE_ROWS (sizeof(rate_table) / sizeof(rate_table[0]))

static const struct rate_row *row_by_rate(enum ibv_rate rate)
{
	size_t i;

	for (i = 0; i < RATE_ROWS; i++)
		if (rate_table[i].rate == rate)
			return &rate_table[i];
	return NULL;
}

int ibv_rate_to_mult(enum ibv_rate rate)
{
	const struct rate_row *row = row_by_rate(rate);

	return row ? row->mult : -1;
}

enum ibv_rate mult_to_ibv_rate(int mult)
{
	size_t i;

	/* The -1 rows must not match a caller passing -1. */
	if (mult <= 0)
		return IBV_RATE_MAX;
	for (i = 0; i < RATE_ROWS; i++)
		if (rate_table[i].mult == mult)
			return rate_table[i].rate;
	return IBV_RATE_MAX;
}

int ibv_rate_to_mbps(enum ibv_rate rate)
{
	const struct rate_row *row = row_by_rate(rate);

	return row ? row->mbps : -1;
}

enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	size_t i;

	/* Exact match only, as in rdma-core: 2400 is not "about 2.5G". */
	for (i = 0; i < RATE_ROWS; i++)
		if (rate_table[i].mbps == mbps)
			return rate_table[i].rate;
	return IBV_RATE_MAX;
}

/* ------------------------------------------------------------------ */
/* fork() support                                                      */

/*
 * Why fork support exists: a real HCA DMAs into the physical pages that
 * were pinned when memory was registered. After fork(), copy-on-write can
 * give the parent fresh pages while the HCA keeps writing the old ones, now
 * the child's. rdma-core's ibv_fork_init() avoids that by marking
 * registered ranges MADV_DONTFORK, and kernels since 5.13 copy pinned pages
 * at fork so nothing is needed (IBV_FORK_UNNEEDED).
 *
 * Our "HCA" is code in the process reaching registered memory through the
 * process's own virtual addresses; nothing is pinned and nothing bypasses
 * the MMU. After fork() the parent's engine touches the parent's pages and
 * the child gets a private copy, which is exactly the copy-on-fork
 * behaviour IBV_FORK_UNNEEDED promises. So that is what we report, and per
 * the man page it wins whether or not ibv_fork_init() was called.
 * ibv_dontfork_range() must NOT call madvise(MADV_DONTFORK): with no DMA to
 * protect, that would only leave holes in the child's address space.
 *
 * ibv_fork_init() still records that it was asked (directly or through
 * RDMAV_FORK_SAFE / IBV_FORK_SAFE, which rdma-core treats as a call at
 * initialisation). That record is reported when EMUVERBS_LEGACY_FORK is set
 * to a value other than "0": the emulator then answers like an old kernel
 * without copy-on-fork (DISABLED until ibv_fork_init(), then ENABLED, and
 * EINVAL from ibv_fork_init() once a range was marked before it), so that
 * programs' fork-safety paths can be exercised. Memory is still never
 * madvised in that mode.
 */

/* Exported since IBVERBS_1.1 but declared only in rdma-core's private
 * driver.h, which providers include; no public header has them. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

static atomic_bool fork_init_called;
/* A range was marked before fork support was set up ("too late" to init). */
static atomic_bool range_marked_early;

/* rdma-core's rule for boolean environment variables: set and not "0". */
static bool env_true(const char *name)
{
	const char *value = getenv(name);

	return value && strcmp(value, "0") != 0;
}

static bool fork_init_requested(void)
{
	return atomic_load(&fork_init_called) ||
	       env_true("RDMAV_FORK_SAFE") || env_true("IBV_FORK_SAFE");
}

static bool legacy_fork_model(void)
{
	return env_true("EMUVERBS_LEGACY_FORK");
}

int ibv_fork_init(void)
{
	if (legacy_fork_model() && !fork_init_requested() &&
	    atomic_load(&range_marked_early)) {
		errno = emu_refuse(EINVAL, "ibv_fork_init: memory was "
				   "registered before it (legacy fork "
				   "model)");
		return EINVAL;
	}

	atomic_store(&fork_init_called, true);
	return 0;
}

enum ibv_fork_status ibv_is_fork_initialized(void)
{
	if (!legacy_fork_model())
		return IBV_FORK_UNNEEDED;

	return fork_init_requested() ? IBV_FORK_ENABLED : IBV_FORK_DISABLED;
}

static int mark_range(void)
{
	if (!fork_init_requested())
		atomic_store(&range_marked_early, true);
	return 0;
}

int ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return mark_range();
}

int ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return mark_range();
}
