/* emu/device/dev_count.c: the device-wide PD, AH and CQ counts (emu/device/dev_count.h).
 * A real HCA sizes one table per object kind for the whole device, however
 * many contexts are open; these counts stand for those tables. */
#include <errno.h>

#include "emu/device/dev_count.h"
#include "emu/device/device.h"
#include "emu/base/log.h"

/* What each count is of, for the refusal: the verb and the objects. */
static const struct {
	const char *verb, *objects;
} kinds[EMU_COUNT_N] = {
	[EMU_COUNT_PD] = { "ibv_alloc_pd", "PDs" },
	[EMU_COUNT_AH] = { "ibv_create_ah", "AHs" },
	[EMU_COUNT_CQ] = { "ibv_create_cq", "CQs" },
};

static uint32_t limit(const struct emu_device *dev, enum emu_dev_count what)
{
	const struct emu_limits *l = &dev->cfg.limits;

	switch (what) {
	case EMU_COUNT_PD:
		return l->max_pd;
	case EMU_COUNT_AH:
		return l->max_ah;
	default:
		return l->max_cq;
	}
}

int emu_dev_count_take(struct emu_device *dev, enum emu_dev_count what)
{
	atomic_uint *n = &dev->counts.n[what];
	uint32_t max = limit(dev, what);
	unsigned int cur;

	cur = atomic_load(n);
	do {
		if (cur >= max)
			return emu_refuse(ENOMEM, "%s: the device has its %u "
					  "%s already", kinds[what].verb, max,
					  kinds[what].objects);
	} while (!atomic_compare_exchange_weak(n, &cur, cur + 1));
	return 0;
}

void emu_dev_count_release(struct emu_device *dev, enum emu_dev_count what)
{
	atomic_fetch_sub(&dev->counts.n[what], 1);
}
