/* A table of 24-bit object numbers, as QPNs and SRQNs are: each number
 * handed out once in a pass through the whole space, and found again
 * from its low bits in one slot. The QP and SRQ modules wrap it with
 * lookups of their own type. Changed on the engine thread only. */
#ifndef EMU_NUMTAB_H
#define EMU_NUMTAB_H

#include <stdint.h>

/* The number is kept beside its object, so that a lookup (per received
 * packet) reads one slot and compares once, whatever it finds. */
struct emu_numtab_slot {
	void *obj;			/* NULL while the slot is free */
	uint32_t num;
};

struct emu_numtab {
	struct emu_numtab_slot *slot;
	uint32_t mask;			/* slots - 1: a number's low bits */
	uint32_t max;			/* live objects allowed */
	uint32_t live;
	uint32_t lowest;		/* smaller numbers are never given */
	uint32_t first;			/* the first number given */
	uint32_t next;			/* the next number to try */
};

/* Room for max objects, numbers from first on (lowest <= first < 2^24);
 * 0, or a positive errno (ENOMEM). */
int emu_numtab_create(struct emu_numtab *t, uint32_t max, uint32_t lowest,
		      uint32_t first);
/* Frees the slots; t may have failed to create or be destroyed already. */
void emu_numtab_destroy(struct emu_numtab *t);

/* obj's new number, or -ENOMEM: max objects are live (a number-or-
 * negative return, an exception to emu/'s positive errnos kept in
 * tests/arch/errno.sh: a number is below 2^24, so the sign tells).
 * Numbers advance through the 24-bit space and come back only after the
 * whole of it has gone by, so a late packet for a destroyed object never
 * reaches its successor. */
int emu_numtab_insert(struct emu_numtab *t, void *obj);
/* Frees num if obj holds it: removing twice, or what failed to insert,
 * does nothing. */
void emu_numtab_remove(struct emu_numtab *t, uint32_t num, const void *obj);

/* An object numbered outside the slots (each port's QP1) that counts
 * against max all the same: 0 or ENOMEM, and its release. */
int emu_numtab_count_in(struct emu_numtab *t);
void emu_numtab_count_out(struct emu_numtab *t);

/* The object numbered num, or NULL (a free slot's object is NULL). */
static inline void *emu_numtab_lookup(const struct emu_numtab *t,
				      uint32_t num)
{
	const struct emu_numtab_slot *s = &t->slot[num & t->mask];

	return s->num == num ? s->obj : NULL;
}

#endif
