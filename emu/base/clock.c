/* The HCA's clocks: the core clock (CLOCK_MONOTONIC_RAW in nanoseconds)
 * and the wall clock, and the capabilities that describe them. */
#include <time.h>

#include "emu/base/clock.h"

void emu_clock_fill_caps(struct ibv_device_attr_ex *a)
{
	a->hca_core_clock = EMU_HCA_CORE_CLOCK_KHZ;
	a->completion_timestamp_mask = EMU_TIMESTAMP_MASK;
}

static uint64_t ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t emu_clock_core(void)
{
	return ns_of(CLOCK_MONOTONIC_RAW) & EMU_TIMESTAMP_MASK;
}

uint64_t emu_clock_wall_ns(void)
{
	return ns_of(CLOCK_REALTIME);
}
