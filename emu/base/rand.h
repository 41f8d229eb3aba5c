/* The seeded random numbers of the link model (jitter) and fault rules
 * (prob=, corruption): xorshift64*, small and the same on every machine,
 * so that a seed names the same run everywhere. */
#ifndef EMU_RAND_H
#define EMU_RAND_H

#include <stdint.h>

/* A state from a seed: xorshift must not start at 0, and a seed of 0 is
 * still a seed. */
static inline uint64_t emu_rand_seed(uint64_t seed)
{
	return seed ^ 0x9e3779b97f4a7c15ull;
}

static inline uint64_t emu_rand_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* A well-mixed 64-bit value from two (splitmix64's finaliser over their
 * combination): a fault rule's draw for one packet from the rule's seed
 * and the packet's identity, so that its fate does not depend on what
 * other packets came before it. */
static inline uint64_t emu_rand_mix(uint64_t a, uint64_t b)
{
	uint64_t z = a + 0x9e3779b97f4a7c15ull * (b + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
