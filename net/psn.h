/* net/psn.h: 24-bit packet sequence number arithmetic. PSNs wrap at 2^24,
 * so order is only defined within half the space (2^23) of each other.
 */
#ifndef EMU_NET_PSN_H
#define EMU_NET_PSN_H

#include <stdbool.h>
#include <stdint.h>

#define PSN_BITS	24
#define PSN_MASK	0xffffffu
#define PSN_HALF	0x800000u	/* 2^23: the reach of a comparison */

static inline uint32_t psn_mask(uint32_t v)
{
	return v & PSN_MASK;
}

static inline uint32_t psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & PSN_MASK;
}

static inline uint32_t psn_inc(uint32_t psn)
{
	return psn_add(psn, 1);
}

static inline uint32_t psn_sub(uint32_t psn, uint32_t n)
{
	return (psn - n) & PSN_MASK;
}

/*
 * a - b as a signed distance in [-2^23, 2^23 - 1]: the way round the circle
 * that is shorter. Written without signed shifts so that it is defined C.
 */
static inline int32_t psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & PSN_MASK;

	return d & PSN_HALF ? (int32_t)d - (int32_t)(PSN_MASK + 1) :
			      (int32_t)d;
}

/* <0, 0, >0 like memcmp, in sequence order. */
static inline int psn_cmp(uint32_t a, uint32_t b)
{
	int32_t d = psn_diff(a, b);

	return (d > 0) - (d < 0);
}

static inline bool psn_before(uint32_t a, uint32_t b)
{
	return psn_diff(a, b) < 0;
}

static inline bool psn_after(uint32_t a, uint32_t b)
{
	return psn_diff(a, b) > 0;
}

static inline bool psn_before_eq(uint32_t a, uint32_t b)
{
	return psn_diff(a, b) <= 0;
}

static inline bool psn_after_eq(uint32_t a, uint32_t b)
{
	return psn_diff(a, b) >= 0;
}

/* first <= psn <= last, in sequence order (last may have wrapped). */
static inline bool psn_in_range(uint32_t psn, uint32_t first, uint32_t last)
{
	return psn_sub(psn, first) <= psn_sub(last, first);
}

#endif /* EMU_NET_PSN_H */
