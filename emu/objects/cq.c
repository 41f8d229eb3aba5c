/* The CQ ring and completion channels: the engine pushes completions, the
 * application polls them lock-free of system calls, events go to channels. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "emu/base/clock.h"
#include "emu/objects/cq.h"
#include "emu/device/dev_count.h"
#include "emu/device/device.h"
#include "emu/base/handle.h"
#include "emu/base/log.h"
#include "emu/objects/pdom.h"
#include "emu/objects/xport.h"

/*
 * Single producer (serialised by cq->plock), single consumer (serialised by
 * cq->clock) ring. Indexes run free and are masked on use; the producer
 * publishes tail with release after writing a slot, the consumer publishes
 * head with release after reading one, so neither side ever takes the
 * other's lock. limit is the CQ's size, slots the power of two above it.
 */
struct emu_cq_ring {
	uint32_t limit;
	uint32_t mask;
	/* Apart, so the two sides do not bounce one cache line. */
	_Atomic uint32_t head;
	char pad1[60];
	_Atomic uint32_t tail;
	char pad2[60];
	struct emu_qmem mem;		/* where this ring itself came from */
	/* Tag-matching information of slot i (zero unless matched), beside
	 * the ibv_wc ring rather than in it: struct ibv_wc has no room. */
	struct ibv_wc_tm_info *tm;
	/* Completion timestamps of slot i, for a CQ that asked for them
	 * (NULL otherwise: the ring is no larger than it was). */
	struct emu_cq_stamp {
		uint64_t core;		/* the HCA's core clock */
		uint64_t wall;		/* ns since the Epoch */
	} *ts;
	struct ibv_wc slot[];
};

/* The timestamps a CQ may ask for (emu/base/clock.c). */
#define CQ_STAMP_FLAGS                                                    \
	(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |                            \
	 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

static struct emu_cq *ex_to_cq(struct ibv_cq_ex *c)
{
	return (struct emu_cq *)c;
}

static uint32_t pow2_above(uint32_t n)
{
	uint32_t p = 1;

	while (p < n && p < 0x80000000u)
		p <<= 1;
	return p;
}

uint32_t emu_cq_size(uint32_t cqe, uint32_t max_cqe)
{
	uint32_t size = pow2_above(cqe ? cqe : 1);

	if (size > max_cqe)
		size = max_cqe;
	return size < cqe ? cqe : size;
}

/* A ring for limit completions, from the CQ's parent domain's allocator
 * when it has one (as mlx5 takes its CQ buffer), else malloc: untouched
 * slots cost no memory. */
static struct emu_cq_ring *ring_alloc(uint32_t limit, uint64_t wc_flags,
				      struct emu_pdom *pdom)
{
	uint32_t slots = pow2_above(limit);
	size_t per = sizeof(struct ibv_wc) + sizeof(struct ibv_wc_tm_info);
	bool stamps = wc_flags & CQ_STAMP_FLAGS;
	struct emu_cq_ring *r;
	struct emu_qmem m;

	/* Free-running 32-bit indexes tell full from empty up to 2^31. */
	if (!limit || slots < limit)
		return NULL;
	if (stamps)
		per += sizeof(struct emu_cq_stamp);
	if (emu_qmem_alloc(&m, pdom, sizeof(*r) + (size_t)slots * per,
			   EMU_RES_TYPE_CQ, false))
		return NULL;
	r = m.p;
	r->mem = m;
	r->tm = (struct ibv_wc_tm_info *)(void *)(r->slot + slots);
	r->ts = stamps ? (struct emu_cq_stamp *)(void *)(r->tm + slots) : NULL;
	r->limit = limit;
	r->mask = slots - 1;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	return r;
}

static void ring_free(struct emu_cq_ring *r)
{
	struct emu_qmem m = r->mem;

	emu_qmem_free(&m);
}

/* ---- consumer lock ---------------------------------------------------- */

/* A CQ created IBV_CREATE_CQ_ATTR_SINGLE_THREADED has one polling thread
 * by contract, so it polls without the lock, as mlx5 does. */
static void consumer_lock(struct emu_cq *cq)
{
	if (!(cq->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		pthread_spin_lock(&cq->clock);
}

static void consumer_unlock(struct emu_cq *cq)
{
	if (!(cq->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		pthread_spin_unlock(&cq->clock);
}

/* ---- completion channels ---------------------------------------------- */

int emu_comp_channel_create(struct emu_context *ctx,
			    struct emu_comp_channel **out)
{
	struct emu_comp_channel *ch = calloc(1, sizeof(*ch));
	int err;

	if (!ch)
		return ENOMEM;
	/* Semaphore mode: one read takes one event, so a program that polls
	 * the fd and then reads one event at a time sees them all. */
	ch->ibv.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->ibv.fd < 0) {
		err = errno;
		free(ch);
		return err;
	}
	ch->ibv.context = &ctx->vctx.context;
	ch->ibv.refcnt = 0;
	pthread_mutex_init(&ch->lock, NULL);
	*out = ch;
	return 0;
}

int emu_comp_channel_destroy(struct emu_comp_channel *ch)
{
	struct ibv_context *c = ch->ibv.context;

	/* refcnt is guarded by the context's mutex, as in rdma-core, where
	 * ibv_create_cq and ibv_destroy_cq change it. */
	pthread_mutex_lock(&c->mutex);
	if (ch->ibv.refcnt) {
		pthread_mutex_unlock(&c->mutex);
		return EBUSY;
	}
	pthread_mutex_unlock(&c->mutex);
	close(ch->ibv.fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
	return 0;
}

/* Queue one event for cq on its channel: no allocation, one write. */
static void channel_signal(struct emu_cq *cq)
{
	struct emu_comp_channel *ch = to_emu_channel(cq->ibv.channel);
	uint64_t one = 1;

	pthread_mutex_lock(&ch->lock);
	if (cq->ev_pending++ == 0) {
		cq->ev_next = NULL;
		if (ch->last)
			ch->last->ev_next = cq;
		else
			ch->first = cq;
		ch->last = cq;
	}
	pthread_mutex_unlock(&ch->lock);
	/* After queueing, so whoever takes the count finds the event. A full
	 * counter (2^64 - 2 unread events) cannot happen in practice. */
	if (write(ch->ibv.fd, &one, sizeof(one)) != sizeof(one))
		return;
}

static void channel_unlink_first(struct emu_comp_channel *ch)
{
	struct emu_cq *cq = ch->first;

	ch->first = cq->ev_next;
	if (!ch->first)
		ch->last = NULL;
	cq->ev_next = NULL;
}

int emu_comp_channel_get(struct emu_comp_channel *ch, struct emu_cq **out)
{
	struct emu_cq *cq;
	uint64_t n;
	ssize_t r;

	for (;;) {
		/* A signal ends the wait with EINTR, as rdma-core's one read
		 * does: programs (qperf) stop a blocked test with an alarm. */
		r = read(ch->ibv.fd, &n, sizeof(n));
		if (r != sizeof(n)) {
			if (r >= 0)
				errno = EIO;
			return -1;
		}
		pthread_mutex_lock(&ch->lock);
		cq = ch->first;
		if (!cq) {
			/* A count whose CQ was destroyed unread. */
			if (ch->stale)
				ch->stale--;
			pthread_mutex_unlock(&ch->lock);
			continue;
		}
		channel_unlink_first(ch);
		/* A CQ with more unread events goes to the back, so the
		 * events of busy CQs do not starve the others. */
		if (--cq->ev_pending) {
			if (ch->last)
				ch->last->ev_next = cq;
			else
				ch->first = cq;
			ch->last = cq;
		}
		/* Counted before the channel lock is dropped, so a destroy
		 * that purges the channel after us waits for this ack. */
		pthread_mutex_lock(&cq->ibv.mutex);
		cq->comp_reported++;
		pthread_mutex_unlock(&cq->ibv.mutex);
		pthread_mutex_unlock(&ch->lock);
		*out = cq;
		return 0;
	}
}

/* Forget cq's unread events: the kernel drops them on destroy too. */
static void channel_purge(struct emu_cq *cq)
{
	struct emu_comp_channel *ch = to_emu_channel(cq->ibv.channel);
	struct emu_cq **pp, *prev = NULL;

	pthread_mutex_lock(&ch->lock);
	if (cq->ev_pending) {
		for (pp = &ch->first; *pp; prev = *pp, pp = &(*pp)->ev_next) {
			if (*pp != cq)
				continue;
			*pp = cq->ev_next;
			if (ch->last == cq)
				ch->last = prev;
			break;
		}
		ch->stale += cq->ev_pending;
		cq->ev_pending = 0;
		cq->ev_next = NULL;
	}
	pthread_mutex_unlock(&ch->lock);
}

/* ---- async events ----------------------------------------------------- */

static void raise_cq_err(struct emu_cq *cq)
{
	struct ibv_async_event ev = {
		.element.cq = emu_cq_ibv(cq),
		.event_type = IBV_EVENT_CQ_ERR,
	};

	/* Counted first: a destroy must wait for the ack of an event that
	 * may be read the moment it is queued. */
	pthread_mutex_lock(&cq->ibv.mutex);
	cq->async_reported++;
	pthread_mutex_unlock(&cq->ibv.mutex);
	if (emu_async_push(&cq->ctx->async, &ev) == ENOSPC) {
		pthread_mutex_lock(&cq->ibv.mutex);
		cq->async_reported--;
		pthread_mutex_unlock(&cq->ibv.mutex);
	}
}

void emu_cq_fail(struct emu_cq *cq)
{
	pthread_spin_lock(&cq->plock);
	if (atomic_load(&cq->error)) {
		pthread_spin_unlock(&cq->plock);
		return;
	}
	atomic_store_explicit(&cq->error, true, memory_order_release);
	cq->armed = EMU_CQ_DISARMED;
	pthread_spin_unlock(&cq->plock);
	raise_cq_err(cq);
}

/* ---- producer --------------------------------------------------------- */

int emu_cq_push(struct emu_cq *cq, const struct ibv_wc *wc, bool solicited)
{
	return emu_cq_push_tm(cq, wc, NULL, solicited);
}

int emu_cq_push_tm(struct emu_cq *cq, const struct ibv_wc *wc,
		   const struct ibv_wc_tm_info *tm, bool solicited)
{
	static const struct ibv_wc_tm_info none;

	struct emu_cq_ring *r;
	bool fire = false;
	uint32_t t;

	pthread_spin_lock(&cq->plock);
	if (atomic_load_explicit(&cq->error, memory_order_relaxed)) {
		cq->lost++;
		pthread_spin_unlock(&cq->plock);
		return ENOSPC;
	}
	r = cq->ring;
	t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (t - atomic_load_explicit(&r->head, memory_order_acquire) >=
	    r->limit) {
		cq->lost++;
		if (cq->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN) {
			pthread_spin_unlock(&cq->plock);
			return ENOSPC;
		}
		/* Release: a poller that sees the error also sees every
		 * completion queued before it. */
		atomic_store_explicit(&cq->error, true, memory_order_release);
		cq->armed = EMU_CQ_DISARMED;
		pthread_spin_unlock(&cq->plock);
		raise_cq_err(cq);
		return ENOSPC;
	}
	r->slot[t & r->mask] = *wc;
	r->tm[t & r->mask] = tm ? *tm : none;
	/* When the CQE is written, as a NIC stamps it; a clock read only
	 * for the CQs that asked. */
	if (r->ts) {
		r->ts[t & r->mask].core = cq->wc_flags &
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP ?
			emu_clock_core() : 0;
		r->ts[t & r->mask].wall = cq->wc_flags &
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK ?
			emu_clock_wall_ns() : 0;
	}
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	/* IBTA: solicited-only fires for solicited and for error
	 * completions; either arming is one-shot. */
	if (cq->armed == EMU_CQ_ARMED_NEXT ||
	    (cq->armed == EMU_CQ_ARMED_SOLICITED &&
	     (solicited || wc->status != IBV_WC_SUCCESS))) {
		cq->armed = EMU_CQ_DISARMED;
		fire = cq->ibv.channel != NULL;
	}
	pthread_spin_unlock(&cq->plock);
	if (fire)
		channel_signal(cq);
	return 0;
}

int emu_cq_req_notify(struct ibv_cq *ibcq, int solicited_only)
{
	struct emu_cq *cq = to_emu_cq(ibcq);
	int want = solicited_only ? EMU_CQ_ARMED_SOLICITED : EMU_CQ_ARMED_NEXT;

	pthread_spin_lock(&cq->plock);
	if (cq->armed < want)
		cq->armed = want;
	pthread_spin_unlock(&cq->plock);
	/* Arming is how a program says it will sleep: whatever it was
	 * receiving for itself, the engine must receive now. */
	emu_xport->will_sleep(cq->ctx->dev);
	return 0;
}

/* ---- consumers -------------------------------------------------------- */

/* A poll of an empty CQ first tries to receive for itself (polling drives
 * receive, emu_transport_poll). Where it cannot, the emulated HCA's work
 * runs on engine threads that share the cores with the application, and a
 * program busy-polling an empty CQ would starve them (on 2 cores, a
 * ping-pong's latency grows eightfold): so a run of such polls gives the
 * core away now and then. A poll that finds completions never makes a
 * system call. */
#define EMU_CQ_EMPTY_POLLS_PER_YIELD 4

/* Armed for an event: its poller means to sleep, not to spin. */
static bool busy_armed(struct emu_cq *cq)
{
	return __atomic_load_n(&cq->armed, __ATOMIC_RELAXED) !=
	       EMU_CQ_DISARMED;
}

static void empty_poll(struct emu_cq *cq, int progress)
{
	/* A poll that received for itself needs no engine to run. */
	if (progress >= 0)
		return;
	if (atomic_fetch_add_explicit(&cq->empty_polls, 1,
				      memory_order_relaxed) %
		    EMU_CQ_EMPTY_POLLS_PER_YIELD ==
	    EMU_CQ_EMPTY_POLLS_PER_YIELD - 1)
		sched_yield();
}

int emu_cq_poll(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct emu_cq *cq = to_emu_cq(ibcq);
	struct emu_cq_ring *r;
	int progress = -1;
	uint32_t h, n, i;
	bool err;

	if (num_entries < 0 || (num_entries && !wc)) {
		errno = emu_refuse(EINVAL, "ibv_poll_cq: num_entries %d, wc "
				   "%p", num_entries, (void *)wc);
		return -EINVAL;
	}
	/* A fork() child's copy of the parent's CQ: no lock of it is
	 * taken, which a parent's thread may have held at the fork. */
	if (emu_ctx_inherited(emu_ctx(ibcq->context))) {
		errno = emu_refuse(EIO, "ibv_poll_cq: the CQ is the parent "
				   "process's: a fork() child cannot use it");
		return -EIO;
	}
	if (!num_entries)
		return 0;
again:
	consumer_lock(cq);
	r = cq->ring;
	/* The error first: seen set, the tail read after it is final. */
	err = atomic_load_explicit(&cq->error, memory_order_acquire);
	h = atomic_load_explicit(&r->head, memory_order_relaxed);
	n = atomic_load_explicit(&r->tail, memory_order_acquire) - h;
	if (n > (uint32_t)num_entries)
		n = (uint32_t)num_entries;
	for (i = 0; i < n; i++)
		wc[i] = r->slot[(h + i) & r->mask];
	atomic_store_explicit(&r->head, h + n, memory_order_release);
	consumer_unlock(cq);
	/* An overrun CQ gives back what it held, then fails for good. */
	if (!n && err) {
		errno = emu_refuse(EIO, "ibv_poll_cq: the CQ overran and is "
				   "in error");
		return -EIO;
	}
	if (n) {
		emu_xport->polled(cq->ctx->dev);
	} else {
		if (progress < 0) {
			progress = emu_xport->poll(cq->ctx->dev, !busy_armed(cq));
			if (progress > 0)
				goto again;
		}
		empty_poll(cq, progress);
	}
	return (int)n;
}

uint32_t emu_cq_count(struct emu_cq *cq)
{
	struct emu_cq_ring *r;
	uint32_t n;

	/* The producer lock keeps the ring in place (resize takes it too)
	 * and, unlike the consumer lock, is never held across a caller's
	 * start_poll..end_poll batch. */
	pthread_spin_lock(&cq->plock);
	r = cq->ring;
	n = atomic_load_explicit(&r->tail, memory_order_relaxed) -
	    atomic_load_explicit(&r->head, memory_order_acquire);
	pthread_spin_unlock(&cq->plock);
	return n;
}

bool emu_cq_in_error(struct emu_cq *cq)
{
	return atomic_load_explicit(&cq->error, memory_order_acquire);
}

/* ---- extended polling ------------------------------------------------- */

/* Make entry idx current, or report why there is none. */
static int ex_take(struct emu_cq *cq, uint32_t idx, bool err)
{
	struct emu_cq_ring *r = cq->ring;

	if (atomic_load_explicit(&r->tail, memory_order_acquire) == idx) {
		cq->cur = NULL;
		if (!err) {
			/* Empty is an answer, not a failure: no errno. */
			return ENOENT;
		}
		errno = emu_refuse(EIO, "ibv_start_poll/ibv_next_poll: the CQ "
				   "overran and is in error");
		return EIO;
	}
	cq->cur = &r->slot[idx & r->mask];
	cq->cur_idx = idx;
	/* Providers expose the two hottest fields directly. */
	cq->ibv.status = cq->cur->status;
	cq->ibv.wr_id = cq->cur->wr_id;
	return 0;
}

/* The consumer lock is held from a successful start_poll to end_poll, so
 * the current entry stays in place while the caller reads it. */
static int ex_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct emu_cq *cq = ex_to_cq(ibcq);
	int progress;
	uint32_t h;
	bool err;
	int rc;

	if (attr && attr->comp_mask) {
		errno = emu_refuse(EINVAL, "ibv_start_poll: attr->comp_mask "
				   "%#x, none is defined", attr->comp_mask);
		return EINVAL;
	}
	if (emu_ctx_inherited(emu_ctx(ibcq->context))) {
		errno = emu_refuse(EIO, "ibv_start_poll: the CQ is the parent "
				   "process's: a fork() child cannot use it");
		return EIO;
	}
	consumer_lock(cq);
	err = atomic_load_explicit(&cq->error, memory_order_acquire);
	h = atomic_load_explicit(&cq->ring->head, memory_order_relaxed);
	rc = ex_take(cq, h, err);
	if (rc == ENOENT) {
		/* Nothing yet: receive for ourselves, then look again. */
		consumer_unlock(cq);
		progress = emu_xport->poll(cq->ctx->dev, !busy_armed(cq));
		consumer_lock(cq);
		err = atomic_load_explicit(&cq->error, memory_order_acquire);
		h = atomic_load_explicit(&cq->ring->head,
					 memory_order_relaxed);
		rc = ex_take(cq, h, err);
		if (rc == ENOENT)
			empty_poll(cq, progress);
	}
	if (!rc)
		emu_xport->polled(cq->ctx->dev);
	if (rc)
		consumer_unlock(cq);
	return rc;
}

static int ex_next_poll(struct ibv_cq_ex *ibcq)
{
	struct emu_cq *cq = ex_to_cq(ibcq);
	struct emu_cq_ring *r = cq->ring;
	uint32_t h;
	bool err;

	/* The previous entry is consumed now: its slot may be reused. */
	if (cq->cur) {
		h = cq->cur_idx + 1;
		atomic_store_explicit(&r->head, h, memory_order_release);
	} else {
		h = atomic_load_explicit(&r->head, memory_order_relaxed);
	}
	err = atomic_load_explicit(&cq->error, memory_order_acquire);
	return ex_take(cq, h, err);
}

static void ex_end_poll(struct ibv_cq_ex *ibcq)
{
	struct emu_cq *cq = ex_to_cq(ibcq);

	if (cq->cur)
		atomic_store_explicit(&cq->ring->head, cq->cur_idx + 1,
				      memory_order_release);
	cq->cur = NULL;
	consumer_unlock(cq);
}

static const struct ibv_wc *cur(struct ibv_cq_ex *ibcq)
{
	return ex_to_cq(ibcq)->cur;
}

static enum ibv_wc_opcode ex_read_opcode(struct ibv_cq_ex *c)
{
	return cur(c)->opcode;
}

static uint32_t ex_read_vendor_err(struct ibv_cq_ex *c)
{
	return cur(c)->vendor_err;
}

static uint32_t ex_read_byte_len(struct ibv_cq_ex *c)
{
	return cur(c)->byte_len;
}

static __be32 ex_read_imm_data(struct ibv_cq_ex *c)
{
	return cur(c)->imm_data;
}

static uint32_t ex_read_qp_num(struct ibv_cq_ex *c)
{
	return cur(c)->qp_num;
}

static uint32_t ex_read_src_qp(struct ibv_cq_ex *c)
{
	return cur(c)->src_qp;
}

static unsigned int ex_read_wc_flags(struct ibv_cq_ex *c)
{
	return cur(c)->wc_flags;
}

static uint32_t ex_read_slid(struct ibv_cq_ex *c)
{
	return cur(c)->slid;
}

static uint8_t ex_read_sl(struct ibv_cq_ex *c)
{
	return cur(c)->sl;
}

static uint8_t ex_read_dlid_path_bits(struct ibv_cq_ex *c)
{
	return cur(c)->dlid_path_bits;
}

static void ex_read_tm_info(struct ibv_cq_ex *c, struct ibv_wc_tm_info *tm)
{
	struct emu_cq *cq = ex_to_cq(c);

	*tm = cq->ring->tm[cq->cur_idx & cq->ring->mask];
}

static uint64_t ex_read_completion_ts(struct ibv_cq_ex *c)
{
	struct emu_cq *cq = ex_to_cq(c);

	return cq->ring->ts[cq->cur_idx & cq->ring->mask].core;
}

static uint64_t ex_read_completion_wallclock_ns(struct ibv_cq_ex *c)
{
	struct emu_cq *cq = ex_to_cq(c);

	return cq->ring->ts[cq->cur_idx & cq->ring->mask].wall;
}

/* Every ring entry is a full ibv_wc, so each standard field can be read
 * whatever wc_flags asked for; the accessors of fields we never produce
 * (CVLAN, flow tag) stay NULL, as a provider leaves the ones not
 * requested; the TM and timestamp ones are set when the CQ asked. */
static void ex_fill_ops(struct ibv_cq_ex *c)
{
	c->start_poll = ex_start_poll;
	c->next_poll = ex_next_poll;
	c->end_poll = ex_end_poll;
	c->read_opcode = ex_read_opcode;
	c->read_vendor_err = ex_read_vendor_err;
	c->read_byte_len = ex_read_byte_len;
	c->read_imm_data = ex_read_imm_data;
	c->read_qp_num = ex_read_qp_num;
	c->read_src_qp = ex_read_src_qp;
	c->read_wc_flags = ex_read_wc_flags;
	c->read_slid = ex_read_slid;
	c->read_sl = ex_read_sl;
	c->read_dlid_path_bits = ex_read_dlid_path_bits;
}

/* ---- create, resize, destroy ------------------------------------------ */

int emu_cq_create(struct emu_context *ctx, const struct emu_cq_attr *attr,
		  struct emu_cq **out)
{
	struct ibv_context *c = &ctx->vctx.context;
	uint32_t size = emu_cq_size(attr->cqe, attr->max_cqe);
	struct emu_cq *cq;
	int rc;

	/* max_cq is a device-wide count, as a real HCA's CQ table is. */
	rc = emu_dev_count_take(ctx->dev, EMU_COUNT_CQ);
	if (rc)
		return rc;
	cq = calloc(1, sizeof(*cq));
	if (cq)
		cq->ring = ring_alloc(size, attr->wc_flags, attr->pdom);
	if (!cq || !cq->ring ||
	    emu_handle_add(ctx, EMU_OBJ_CQ, emu_cq_ibv(cq), &cq->ibv.handle)) {
		if (cq && cq->ring)
			ring_free(cq->ring);
		free(cq);
		emu_dev_count_release(ctx->dev, EMU_COUNT_CQ);
		return ENOMEM;
	}
	cq->ctx = ctx;
	cq->pdom = attr->pdom;
	cq->wc_flags = attr->wc_flags;
	cq->flags = attr->flags;
	atomic_init(&cq->users, 0);
	atomic_init(&cq->error, false);
	pthread_spin_init(&cq->plock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&cq->clock, PTHREAD_PROCESS_PRIVATE);

	/* What rdma-core's verbs_init_cq() does for every provider. */
	cq->ibv.context = c;
	cq->ibv.channel = attr->channel ? &attr->channel->ibv : NULL;
	cq->ibv.cq_context = attr->cq_context;
	cq->ibv.cqe = (int)size;
	cq->ibv.comp_events_completed = 0;
	cq->ibv.async_events_completed = 0;
	pthread_mutex_init(&cq->ibv.mutex, NULL);
	pthread_cond_init(&cq->ibv.cond, NULL);
	ex_fill_ops(&cq->ibv);
	if (attr->wc_flags & IBV_WC_EX_WITH_TM_INFO)
		cq->ibv.read_tm_info = ex_read_tm_info;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		cq->ibv.read_completion_ts = ex_read_completion_ts;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		cq->ibv.read_completion_wallclock_ns =
			ex_read_completion_wallclock_ns;
	if (attr->channel) {
		pthread_mutex_lock(&c->mutex);
		attr->channel->ibv.refcnt++;
		pthread_mutex_unlock(&c->mutex);
	}
	emu_pdom_get(cq->pdom);
	*out = cq;
	return 0;
}

int emu_cq_resize(struct emu_cq *cq, uint32_t cqe, uint32_t max_cqe)
{
	uint32_t size = emu_cq_size(cqe, max_cqe);
	struct emu_cq_ring *old, *r = ring_alloc(size, cq->wc_flags,
						 cq->pdom);
	uint32_t h, n, i;

	if (!r)
		return ENOMEM;
	/* Both sides stopped: pollers (clock) and producers (plock). */
	consumer_lock(cq);
	pthread_spin_lock(&cq->plock);
	old = cq->ring;
	h = atomic_load_explicit(&old->head, memory_order_relaxed);
	n = atomic_load_explicit(&old->tail, memory_order_relaxed) - h;
	if (n > cqe) {
		pthread_spin_unlock(&cq->plock);
		consumer_unlock(cq);
		ring_free(r);
		return EINVAL;
	}
	for (i = 0; i < n; i++) {
		r->slot[i] = old->slot[(h + i) & old->mask];
		r->tm[i] = old->tm[(h + i) & old->mask];
		if (r->ts)
			r->ts[i] = old->ts[(h + i) & old->mask];
	}
	atomic_store_explicit(&r->tail, n, memory_order_relaxed);
	cq->ring = r;
	cq->ibv.cqe = (int)size;
	pthread_spin_unlock(&cq->plock);
	consumer_unlock(cq);
	ring_free(old);
	return 0;
}

void emu_cq_clean(struct emu_cq *cq, uint32_t qpn)
{
	struct emu_cq_ring *r;
	uint32_t i, h, t, w;

	consumer_lock(cq);
	pthread_spin_lock(&cq->plock);
	r = cq->ring;
	h = atomic_load_explicit(&r->head, memory_order_relaxed);
	t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	/* Compact in place, oldest first: the write index never passes the
	 * read index, and the survivors keep their order. */
	for (i = h, w = h; i != t; i++) {
		if (r->slot[i & r->mask].qp_num == qpn)
			continue;
		if (w != i) {
			r->slot[w & r->mask] = r->slot[i & r->mask];
			r->tm[w & r->mask] = r->tm[i & r->mask];
			if (r->ts)
				r->ts[w & r->mask] = r->ts[i & r->mask];
		}
		w++;
	}
	atomic_store_explicit(&r->tail, w, memory_order_release);
	pthread_spin_unlock(&cq->plock);
	consumer_unlock(cq);
}

int emu_cq_destroy(struct emu_cq *cq)
{
	struct ibv_comp_channel *ch = cq->ibv.channel;
	uint32_t forgotten;

	if (atomic_load_explicit(&cq->users, memory_order_acquire))
		return EBUSY;
	if (ch)
		channel_purge(cq);
	forgotten = emu_async_cancel(&cq->ctx->async, emu_cq_ibv(cq));

	/* As rdma-core: every event handed out must be acked first, so the
	 * application never acks into freed memory. */
	pthread_mutex_lock(&cq->ibv.mutex);
	while (cq->ibv.comp_events_completed != cq->comp_reported ||
	       cq->ibv.async_events_completed !=
		       cq->async_reported - forgotten)
		pthread_cond_wait(&cq->ibv.cond, &cq->ibv.mutex);
	pthread_mutex_unlock(&cq->ibv.mutex);

	if (ch) {
		pthread_mutex_lock(&ch->context->mutex);
		ch->refcnt--;
		pthread_mutex_unlock(&ch->context->mutex);
	}
	pthread_cond_destroy(&cq->ibv.cond);
	pthread_mutex_destroy(&cq->ibv.mutex);
	pthread_spin_destroy(&cq->clock);
	pthread_spin_destroy(&cq->plock);
	/* The ring goes back to the parent domain's allocator first. */
	ring_free(cq->ring);
	emu_pdom_put(cq->pdom);
	emu_handle_remove(cq->ibv.handle, emu_cq_ibv(cq));
	emu_dev_count_release(cq->ctx->dev, EMU_COUNT_CQ);
	free(cq);
	return 0;
}
