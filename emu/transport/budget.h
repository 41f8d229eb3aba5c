/* The device-wide budget of packets in flight: what every RC QP of a port
 * has sent and not yet seen acknowledged (or, for a READ, answered), held
 * to what the peer's receiving socket can queue, with the QPs that wait
 * for room served in turn. Engine thread only; no allocation. */
#ifndef EMU_BUDGET_H
#define EMU_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/objects/qpc.h"

/* Credits one QP may take in a turn before the next waiter gets room:
 * small enough that a thousand QPs interleave, large enough that one
 * turn amortises its wakeup over several packets. */
#define EMU_BUDGET_QUANTUM	16

struct emu_budget {
	uint32_t total;			/* credits: packets in flight */
	uint32_t used;			/* may pass total: see take */
	struct emu_budget_user *head, *tail;	/* waiting, oldest first */
	uint32_t nwait;
	uint64_t waits;			/* times a QP had to queue */
	bool stalled;			/* resume: the head did not fit */
};

/* The credits a receive buffer of rcvbuf bytes (as SO_RCVBUF reports it,
 * the kernel's doubled figure) gives: the packets of truesize bytes it
 * holds, halved (the peer's own requests and our READ responses share
 * that buffer with what we send), within [EMU_BUDGET_MIN, EMU_BUDGET_MAX].
 * The cap bounds the queueing delay in the peer's socket: 512 full-size
 * packets are 2 MiB, under 10 ms at loopback rates, well inside the usual
 * ACK timeout (14: 67 ms); 2048 (8 MiB) queued for tens of ms and cost
 * timeouts at 256 QPs. */
#define EMU_BUDGET_MIN		16
#define EMU_BUDGET_MAX		512
uint32_t emu_budget_size(uint64_t rcvbuf, uint32_t truesize);

void emu_budget_init(struct emu_budget *b, uint32_t total);

/* Take n credits for u. True when they were granted: nobody is waiting
 * ahead of u (or u is being resumed, within its quantum) and they fit,
 * or nothing at all is in flight (so that a request larger than the
 * whole budget, a long READ, still goes, alone). Otherwise u joins the
 * wait queue (at the tail; a resumed u that did not fit goes back to the
 * head, keeping its place) and false. n == 0 is always granted. */
bool emu_budget_take(struct emu_budget *b, struct emu_budget_user *u,
		     uint32_t n);
/* Give back n of u's credits (at most what it holds). True when waiters
 * could now be served (call emu_budget_resume soon). */
bool emu_budget_release(struct emu_budget_user *u, uint32_t n);
/* u is going away or starting over (error, reset, destroy, a new path):
 * release everything it holds and leave the queue. */
void emu_budget_forget(struct emu_budget_user *u);

/* Whether a waiter could be served now. */
static inline bool emu_budget_runnable(const struct emu_budget *b)
{
	return b->head && b->used < b->total;
}

/* Serve waiters in order while credits are free: each gets a turn of
 * EMU_BUDGET_QUANTUM credits through run(u), which takes what it needs
 * (a waiter whose turn ends with work left queues again at the tail).
 * Stops when the head does not fit, so the oldest waiter is never
 * overtaken for room. */
void emu_budget_resume(struct emu_budget *b,
		       void (*run)(struct emu_budget_user *u));

#endif
