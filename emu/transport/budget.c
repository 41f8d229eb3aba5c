/* The device-wide budget of packets in flight (emu/transport/budget.h): credit
 * accounting and the FIFO of QPs waiting for room, served round robin. */
#include <stddef.h>

#include "emu/transport/budget.h"

uint32_t emu_budget_size(uint64_t rcvbuf, uint32_t truesize)
{
	uint64_t n = truesize ? rcvbuf / truesize / 2 : 0;

	if (n < EMU_BUDGET_MIN)
		return EMU_BUDGET_MIN;
	if (n > EMU_BUDGET_MAX)
		return EMU_BUDGET_MAX;
	return (uint32_t)n;
}

void emu_budget_init(struct emu_budget *b, uint32_t total)
{
	b->total = total ? total : 1;
	b->used = 0;
	b->head = b->tail = NULL;
	b->nwait = 0;
	b->waits = 0;
	b->stalled = false;
}

static void unlink_user(struct emu_budget *b, struct emu_budget_user *u)
{
	if (!u->queued)
		return;
	if (u->prev)
		u->prev->next = u->next;
	else
		b->head = u->next;
	if (u->next)
		u->next->prev = u->prev;
	else
		b->tail = u->prev;
	u->prev = u->next = NULL;
	u->queued = false;
	b->nwait--;
}

static void enqueue(struct emu_budget *b, struct emu_budget_user *u,
		    bool front)
{
	if (u->queued)
		return;
	u->queued = true;
	b->nwait++;
	b->waits++;
	if (front) {
		u->prev = NULL;
		u->next = b->head;
		if (b->head)
			b->head->prev = u;
		else
			b->tail = u;
		b->head = u;
	} else {
		u->next = NULL;
		u->prev = b->tail;
		if (b->tail)
			b->tail->next = u;
		else
			b->head = u;
		b->tail = u;
	}
}

/* Room for n more: always when nothing is in flight. */
static bool fits(const struct emu_budget *b, uint32_t n)
{
	return !b->used || (b->used < b->total && n <= b->total - b->used);
}

bool emu_budget_take(struct emu_budget *b, struct emu_budget_user *u,
		     uint32_t n)
{
	if (!n)
		return true;
	/* Credits held on one budget are released to it: a QP moved to
	 * another port forgets the old one first. */
	if (u->b != b) {
		emu_budget_forget(u);
		u->b = b;
	}
	if (u->turn) {
		/* Its turn is over once it has used its quantum (the first
		 * take of a turn may be larger: a READ asks for all its
		 * responses at once). */
		if (u->quantum < EMU_BUDGET_QUANTUM && n > u->quantum) {
			u->turn = false;
			enqueue(b, u, false);
			return false;
		}
	} else if (u->queued || b->head) {
		/* Others were waiting first. */
		enqueue(b, u, false);
		return false;
	}
	if (!fits(b, n)) {
		/* A resumed QP that does not fit keeps its place. */
		if (u->turn)
			b->stalled = true;
		enqueue(b, u, u->turn);
		u->turn = false;
		return false;
	}
	if (u->turn)
		u->quantum = n >= u->quantum ? 0 : u->quantum - n;
	b->used += n;
	u->held += n;
	return true;
}

bool emu_budget_release(struct emu_budget_user *u, uint32_t n)
{
	struct emu_budget *b = u->b;

	if (!b)
		return false;
	if (n > u->held)
		n = u->held;
	u->held -= n;
	b->used -= n;
	return n && emu_budget_runnable(b);
}

void emu_budget_forget(struct emu_budget_user *u)
{
	struct emu_budget *b = u->b;

	if (!b)
		return;
	unlink_user(b, u);
	b->used -= u->held;
	u->held = 0;
	u->turn = false;
}

void emu_budget_resume(struct emu_budget *b,
		       void (*run)(struct emu_budget_user *u))
{
	/* Bounded: every turn either ends a waiter's wait for good, stops
	 * the pass (the head does not fit), or takes credits, of which
	 * there are only so many. */
	while (emu_budget_runnable(b)) {
		struct emu_budget_user *u = b->head;

		unlink_user(b, u);
		u->turn = true;
		u->quantum = EMU_BUDGET_QUANTUM;
		b->stalled = false;
		run(u);
		u->turn = false;
		/* The head did not fit and went back to the front: the
		 * others wait behind it. */
		if (b->stalled)
			break;
	}
}
