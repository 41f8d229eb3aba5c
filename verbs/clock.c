/* Front end of the HCA's clock: the op behind ibv_query_rt_values_ex, as
 * mlx5 answers it (emu/base/clock.c reads the clock). */
#include <errno.h>

#include "emu/base/clock.h"
#include "emu/base/log.h"
#include "verbs/err.h"
#include "verbs/ops.h"

/*
 * mlx5_query_rt_values(): a comp_mask bit besides RAW_CLOCK is EINVAL;
 * RAW_CLOCK gets the core clock's ticks in raw_clock.tv_nsec (tv_sec 0),
 * and comp_mask comes back saying which values were filled.
 */
int emu_verbs_query_rt_values(struct ibv_context *context,
			      struct ibv_values_ex *values)
{
	uint32_t filled = 0;

	if (!context || !values)
		return verbs_ret(emu_refuse(EINVAL, "ibv_query_rt_values_ex: "
					    "context or values is NULL"));
	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return verbs_ret(emu_refuse(EINVAL, "ibv_query_rt_values_ex: "
					    "comp_mask %#x has unknown bits",
					    values->comp_mask));
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		values->raw_clock.tv_sec = 0;
		values->raw_clock.tv_nsec = (long)emu_clock_core();
		filled |= IBV_VALUES_MASK_RAW_CLOCK;
	}
	values->comp_mask = filled;
	return 0;
}
