/* The 24-bit number table behind QPNs and SRQNs (emu/base/numtab.h): slot
 * sizing, handing numbers out in turn, and giving them back. */
#include <errno.h>
#include <stdlib.h>

#include "emu/base/numtab.h"
#include "net/hdr.h"

int emu_numtab_create(struct emu_numtab *t, uint32_t max, uint32_t lowest,
		      uint32_t first)
{
	uint32_t nslots = 1;

	/* Two slots more than max objects: while fewer than max are live,
	 * at least two slots are free and an insert never spins long. */
	while (nslots < max + 2 && nslots < (1u << 24))
		nslots <<= 1;
	t->slot = calloc(nslots, sizeof(*t->slot));
	if (!t->slot)
		return ENOMEM;
	t->mask = nslots - 1;
	t->max = max;
	t->live = 0;
	t->lowest = lowest;
	t->first = t->next = first;
	return 0;
}

void emu_numtab_destroy(struct emu_numtab *t)
{
	free(t->slot);
	t->slot = NULL;
}

int emu_numtab_insert(struct emu_numtab *t, void *obj)
{
	uint32_t tries;

	if (t->live >= t->max)
		return -ENOMEM;
	for (tries = 0; tries < (1u << 24); tries++) {
		uint32_t n = t->next & WIRE_QPN_MASK;
		struct emu_numtab_slot *s = &t->slot[n & t->mask];

		t->next = n + 1;
		if (n < t->lowest || s->obj)
			continue;
		s->num = n;
		s->obj = obj;
		t->live++;
		return (int)n;
	}
	return -ENOMEM;
}

void emu_numtab_remove(struct emu_numtab *t, uint32_t num, const void *obj)
{
	struct emu_numtab_slot *s = &t->slot[num & t->mask];

	if (!s->obj || s->obj != obj || s->num != num)
		return;
	s->obj = NULL;
	t->live--;
}

int emu_numtab_count_in(struct emu_numtab *t)
{
	if (t->live >= t->max)
		return ENOMEM;
	t->live++;
	return 0;
}

void emu_numtab_count_out(struct emu_numtab *t)
{
	t->live--;
}
