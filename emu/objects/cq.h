/* Completion queues: a ring the application polls without a system call,
 * filled by the engine thread; completion channels and CQ events. */
#ifndef EMU_CQ_H
#define EMU_CQ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct emu_context;
struct emu_cq_ring;
struct emu_pdom;

/*
 * Behaviour, where the verbs leave a choice:
 * - Size: the next power of two at or above the request, clamped to the
 *   device's max_cqe (so requested <= cqe <= max_cqe); ibv_cq.cqe is
 *   exactly how many completions fit before an overrun.
 * - Overrun (a push into a full ring): that completion is lost, the CQ
 *   enters the error state and IBV_EVENT_CQ_ERR (element.cq) is queued on
 *   the context once. Polling then returns the completions queued before
 *   the overrun, in order, and after them fails with EIO for good
 *   (ibv_poll_cq returns it negated, start_poll/next_poll as it is);
 *   later pushes are lost too. No completion event fires.
 * - IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN: a push into a full ring drops that
 *   completion (the newest; queued ones are never overwritten) and
 *   nothing else happens. IBV_CREATE_CQ_ATTR_SINGLE_THREADED: consumers
 *   skip the consumer lock, as mlx5 does; the producer lock stays.
 * - A plain ibv_create_cq CQ is an extended CQ with the standard wc_flags:
 *   start_poll and the read_* accessors work on it too.
 * - Destroy drops the CQ's unread channel events (their fd counts stay
 *   behind, so the fd may read ready and a get find nothing: EAGAIN, or
 *   it blocks) and retargets its unread CQ_ERR to a static orphan CQ
 *   (the async queue cannot drop from its middle); it waits for the ack
 *   of every event already handed out.
 */

/*
 * A completion channel: its fd is an eventfd in semaphore mode holding one
 * count per unread CQ event, so poll/epoll and O_NONBLOCK work as on a
 * kernel channel. Which CQs have unread events is a FIFO of CQs, each with
 * its number of unread events, so the engine never allocates to signal.
 */
struct emu_comp_channel {
	struct ibv_comp_channel ibv;	/* must stay first */
	pthread_mutex_t lock;		/* first, last, stale, CQs' ev_* */
	struct emu_cq *first, *last;	/* CQs with unread events */
	/* Counts left in the fd by events of CQs destroyed before anyone read
	 * them: a reader that takes one finds no CQ and reads again. */
	uint64_t stale;
};

static inline struct emu_comp_channel *
to_emu_channel(struct ibv_comp_channel *ch)
{
	return (struct emu_comp_channel *)ch;
}

/* Arming state, in increasing strength: a request never weakens it. */
enum {
	EMU_CQ_DISARMED,
	EMU_CQ_ARMED_SOLICITED,
	EMU_CQ_ARMED_NEXT,
};

struct emu_cq {
	struct ibv_cq_ex ibv;		/* ibv_cq prefix + extended polling */
	struct emu_context *ctx;
	struct emu_cq_ring *ring;	/* owned by cq.c */
	struct emu_pdom *pdom;		/* the ring's allocator, or NULL */
	uint64_t wc_flags;		/* IBV_WC_EX_WITH_* the CQ reports */
	uint32_t flags;			/* IBV_CREATE_CQ_ATTR_* in force */

	/*
	 * QPs (and SRQs, WQs) that complete into this CQ: each takes a
	 * reference with emu_cq_get() when it is created and drops it with
	 * emu_cq_put() once it can no longer call emu_cq_push(). While it is
	 * not zero ibv_destroy_cq() fails with EBUSY, as the kernel's would.
	 */
	atomic_int users;
	atomic_uint empty_polls;		/* run of polls that found nothing */

	/* Producer side: emu_cq_push(), arming, resize. */
	pthread_spinlock_t plock;
	int armed;			/* EMU_CQ_*, under plock */
	atomic_bool error;		/* overrun: the CQ is unusable */
	uint64_t lost;			/* completions dropped, under plock */

	/* Consumer side: poll_cq and start_poll..end_poll. */
	pthread_spinlock_t clock;
	const struct ibv_wc *cur;	/* extended polling: current entry */
	uint32_t cur_idx;

	/* CQ events: ev_* under the channel's lock, *_reported under
	 * ibv.mutex (which destroy waits on with ibv.cond). */
	struct emu_cq *ev_next;		/* in channel->first..last */
	uint32_t ev_pending;		/* unread events in the channel */
	uint32_t comp_reported;		/* events ibv_get_cq_event returned */
	uint32_t async_reported;	/* CQ_ERR events queued (0 or 1) */
};

static inline struct emu_cq *to_emu_cq(struct ibv_cq *cq)
{
	return (struct emu_cq *)cq;
}

static inline struct ibv_cq *emu_cq_ibv(struct emu_cq *cq)
{
	return ibv_cq_ex_to_cq(&cq->ibv);
}

static inline void emu_cq_get(struct emu_cq *cq)
{
	atomic_fetch_add_explicit(&cq->users, 1, memory_order_relaxed);
}

static inline void emu_cq_put(struct emu_cq *cq)
{
	atomic_fetch_sub_explicit(&cq->users, 1, memory_order_release);
}

/* What a CQ is created with; the verbs front end has checked it. */
struct emu_cq_attr {
	uint32_t cqe;			/* 1..max_cqe */
	uint32_t max_cqe;		/* the device's limit */
	void *cq_context;
	struct emu_comp_channel *channel; /* NULL, or of the same context */
	uint64_t wc_flags;		/* standard, TM_INFO, timestamps */
	uint32_t flags;			/* IBV_CREATE_CQ_ATTR_* */
	struct emu_pdom *pdom;		/* IBV_CQ_INIT_ATTR_MASK_PD, or NULL */
};

/* The actual size of a CQ asked to hold cqe entries: the next power of two,
 * but never past max_cqe (so cqe <= size <= max_cqe). */
uint32_t emu_cq_size(uint32_t cqe, uint32_t max_cqe);

/* 0 and *out, or a positive errno (ENOMEM). Fills every ibv_cq field as
 * rdma-core's verbs_init_cq() does and the extended polling ops. */
int emu_cq_create(struct emu_context *ctx, const struct emu_cq_attr *attr,
		  struct emu_cq **out);
/* 0, or EBUSY while users is not zero. Waits until every CQ event
 * reported for it has been acknowledged. */
int emu_cq_destroy(struct emu_cq *cq);
/* 0, or EINVAL when more than cqe completions are queued, or ENOMEM.
 * Queued completions are kept, in order. */
int emu_cq_resize(struct emu_cq *cq, uint32_t cqe, uint32_t max_cqe);

/* The op slot ctx->ops.poll_cq, and what ctx->ops.req_notify_cq does once
 * the front end has checked the CQ (verbs/cq.c). The poll keeps
 * ibv_poll_cq's contract, an exception to emu/'s positive errnos listed in
 * tests/arch/errno.sh: the number of completions taken, or a negative
 * errno (-EINVAL, -EIO) with errno set. */
int emu_cq_poll(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int emu_cq_req_notify(struct ibv_cq *cq, int solicited_only);

/* Put the CQ in the error state an overrun leaves it in, raising
 * IBV_EVENT_CQ_ERR (an injected fault; nothing if it is in error). */
void emu_cq_fail(struct emu_cq *cq);

/* Completions queued now (a snapshot) and whether the CQ overran. */
uint32_t emu_cq_count(struct emu_cq *cq);
bool emu_cq_in_error(struct emu_cq *cq);

/* Producer side, called on the engine thread: append one completion and,
 * if the CQ is armed (for any completion, or solicited-only and this one
 * is solicited or an error), signal its completion channel.
 * Returns 0, or ENOSPC on overrun: the completion is lost, the CQ enters
 * the error state and IBV_EVENT_CQ_ERR is raised on the context.
 * Any thread may call it (a lock serialises producers), but never after
 * its caller's emu_cq_put(). In the error state, or when full with
 * IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN, it also returns ENOSPC: lost. */
int emu_cq_push(struct emu_cq *cq, const struct ibv_wc *wc, bool solicited);
/* The same with the tag-matching information read_tm_info returns for it
 * (NULL: zeros). */
int emu_cq_push_tm(struct emu_cq *cq, const struct ibv_wc *wc,
		   const struct ibv_wc_tm_info *tm, bool solicited);

/* Remove every queued completion of QP qpn, keeping the others in order:
 * a QP moved to RESET leaves nothing behind in its CQs, as rdma-core's
 * providers clean them (mlx5_cq_clean). */
void emu_cq_clean(struct emu_cq *cq, uint32_t qpn);

/* Completion channels. 0 and *out, or a positive errno. */
int emu_comp_channel_create(struct emu_context *ctx,
			    struct emu_comp_channel **out);
/* 0, or EBUSY while a CQ uses it. */
int emu_comp_channel_destroy(struct emu_comp_channel *ch);
/* The next CQ event: 0 and *cq, or -1 with errno (EAGAIN when the fd is
 * non-blocking and no event is pending). */
int emu_comp_channel_get(struct emu_comp_channel *ch, struct emu_cq **cq);

#endif
