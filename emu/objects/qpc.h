/* The transport's state that each QP carries, as a NIC's QP context holds
 * it beside the queues: its share of the port's budget of packets in
 * flight (emu/transport/budget.c) and its congestion control state
 * (emu/transport/cc.c). The QP owns the storage; the transport alone
 * reads and writes it. */
#ifndef EMU_QPC_H
#define EMU_QPC_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

struct emu_budget;

/* A QP's side of the budget (struct emu_qp embeds one). */
struct emu_budget_user {
	struct emu_budget *b;		/* budget it holds or waits on */
	struct emu_budget_user *prev, *next;	/* in b's wait queue */
	uint32_t held;			/* credits taken, not released */
	uint32_t quantum;		/* left in its turn, when turn */
	bool queued;
	bool turn;			/* being resumed by emu_budget_resume */
};

/* DCQCN: the notification point's and the reaction point's. */
struct emu_cc {
	/* Notification point. */
	uint64_t last_cnp_ns;
	/* Reaction point: rates in Mb/s; active from the first CNP. */
	bool limited;
	double rc, rt, alpha;
	uint64_t last_alpha_ns, last_timer_ns;
	uint64_t bytes;			/* since the last byte-counter step */
	uint32_t t_steps, bc_steps;	/* increase steps since the cut */
	uint64_t next_ps;		/* when the QP may send again */
	ev_timer resume;
	uint64_t cuts;			/* CNPs that cut the rate */
};

#endif
