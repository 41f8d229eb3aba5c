/* Completion queues: a ring the application polls without a system call,
 * filled by the engine thread; completion channels and CQ events. */
#ifndef EMU_CQ_H
#define EMU_CQ_H

#include <stdbool.h>

#include <infiniband/verbs.h>

struct emu_context;
struct emu_cq_ring;

struct emu_cq {
	struct ibv_cq_ex ibv;		/* ibv_cq prefix + extended polling */
	struct emu_context *ctx;
	struct emu_cq_ring *ring;	/* owned by cq.c */
};

static inline struct emu_cq *to_emu_cq(struct ibv_cq *cq)
{
	return (struct emu_cq *)cq;
}

/* Producer side, called on the engine thread: append one completion and,
 * if the CQ is armed (for any completion, or solicited-only and this one
 * is solicited or an error), signal its completion channel.
 * Returns 0, or -ENOSPC on overrun: the completion is lost, the CQ enters
 * the error state and IBV_EVENT_CQ_ERR is raised on the context. */
int emu_cq_push(struct emu_cq *cq, const struct ibv_wc *wc, bool solicited);

#endif
