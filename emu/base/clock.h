/* The HCA's clocks: the free-running core clock completion timestamps and
 * ibv_query_rt_values_ex read, and the wall clock of _WALLCLOCK
 * timestamps; what ibv_query_device_ex says of them. */
#ifndef EMU_CLOCK_H
#define EMU_CLOCK_H

#include <stdint.h>

#include <infiniband/verbs.h>

/* The core clock ticks in nanoseconds: 1 GHz, in kHz as reported. */
#define EMU_HCA_CORE_CLOCK_KHZ 1000000ull
/* The bits of a completion timestamp that count: mlx5's 63. */
#define EMU_TIMESTAMP_MASK 0x7fffffffffffffffull

/* hca_core_clock and completion_timestamp_mask of ibv_query_device_ex. */
void emu_clock_fill_caps(struct ibv_device_attr_ex *a);

/* The core clock now, in its ticks: CLOCK_MONOTONIC_RAW, which no one
 * steps or slews, as an oscillator on a card, masked to
 * EMU_TIMESTAMP_MASK. */
uint64_t emu_clock_core(void);

/* The wall clock now, in nanoseconds since the Epoch (CLOCK_REALTIME). */
uint64_t emu_clock_wall_ns(void);

#endif
