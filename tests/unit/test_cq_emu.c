/* Unit tests for completion queues at the emu level: completions pushed with
 * emu_cq_push (directly or on the engine thread), consumed through verbs. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "emu/emu.h"
#include "emu/objects/cq.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "verbs/ops.h"
#include "tests/unit/testlib.h"

/* ---- fixture: a context on a device that only carries its limits ------ */

static struct emu_device dev;
static struct emu_context *ctx;
static struct ibv_context *ic;

static void setup(void)
{
	memset(&dev, 0, sizeof(dev));
	dev.cfg.limits.max_cqe = 65535;
	/* CQs are counted against max_cq, device-wide (emu/device/dev_count.c). */
	dev.cfg.limits.max_cq = 1024;
	ctx = calloc(1, sizeof(*ctx));
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(emu_async_init(&ctx->async), 0);
	ctx->dev = &dev;
	ic = &ctx->vctx.context;
	ic->device = &dev.ibdev;
	ic->num_comp_vectors = 1;
	ic->async_fd = ctx->async.fd;
	ic->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->vctx.sz = sizeof(ctx->vctx);
	pthread_mutex_init(&ic->mutex, NULL);
	emu_verbs_set_ops(&ctx->vctx);
}

static void teardown(void)
{
	pthread_mutex_destroy(&ic->mutex);
	emu_async_fini(&ctx->async);
	free(ctx);
}

/* ---- helpers ---------------------------------------------------------- */

static struct ibv_wc mkwc(uint64_t id)
{
	struct ibv_wc w = {
		.wr_id = id,
		.status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV,
		.vendor_err = 0,
		.byte_len = (uint32_t)id * 3,
		.imm_data = htobe32((uint32_t)id | 0x80000000u),
		.qp_num = 0x100 + (uint32_t)id,
		.src_qp = 0x200 + (uint32_t)id,
		.wc_flags = IBV_WC_WITH_IMM,
		.pkey_index = 0,
		.slid = (uint16_t)(id + 5),
		.sl = (uint8_t)(id & 15),
		.dlid_path_bits = (uint8_t)(id & 7),
	};
	return w;
}

static void push_ok(struct ibv_cq *cq, uint64_t id, bool solicited)
{
	struct ibv_wc w = mkwc(id);

	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &w, solicited), 0);
}

static void push_range(struct ibv_cq *cq, uint64_t from, uint64_t to)
{
	uint64_t i;

	for (i = from; i < to; i++)
		push_ok(cq, i, false);
}

/* Field by field: the struct has padding that nothing copies reliably. */
static void expect_wc(const struct ibv_wc *got, uint64_t id)
{
	struct ibv_wc w = mkwc(id);

	ck_assert_uint_eq(got->wr_id, w.wr_id);
	ck_assert_int_eq(got->status, w.status);
	ck_assert_int_eq(got->opcode, w.opcode);
	ck_assert_uint_eq(got->vendor_err, w.vendor_err);
	ck_assert_uint_eq(got->byte_len, w.byte_len);
	ck_assert_uint_eq(got->imm_data, w.imm_data);
	ck_assert_uint_eq(got->qp_num, w.qp_num);
	ck_assert_uint_eq(got->src_qp, w.src_qp);
	ck_assert_uint_eq(got->wc_flags, w.wc_flags);
	ck_assert_uint_eq(got->pkey_index, w.pkey_index);
	ck_assert_uint_eq(got->slid, w.slid);
	ck_assert_uint_eq(got->sl, w.sl);
	ck_assert_uint_eq(got->dlid_path_bits, w.dlid_path_bits);
}

/* Poll exactly want entries (in one call asking for ask) and check they
 * are ids first, first+1, ... */
static void poll_expect(struct ibv_cq *cq, int ask, int want, uint64_t first)
{
	struct ibv_wc wc[64];
	int i, n;

	ck_assert_int_le(ask, 64);
	n = ibv_poll_cq(cq, ask, wc);
	ck_assert_int_eq(n, want);
	for (i = 0; i < n; i++)
		expect_wc(&wc[i], first + (uint64_t)i);
}

static struct ibv_cq *mkcq(int cqe, void *cq_context,
			   struct ibv_comp_channel *ch)
{
	struct ibv_cq *cq = ibv_create_cq(ic, cqe, cq_context, ch, 0);

	ck_assert_ptr_nonnull(cq);
	return cq;
}

static int fd_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	ck_assert_int_ge(poll(&p, 1, 0), 0);
	return (p.revents & POLLIN) != 0;
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	ck_assert_int_ge(fl, 0);
	ck_assert_int_eq(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
}

static struct ibv_comp_channel *mkchannel(bool nonblock)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ic);

	ck_assert_ptr_nonnull(ch);
	if (nonblock)
		set_nonblock(ch->fd);
	return ch;
}

/* One CQ event must be pending, for want (and cq_context wantctx). */
static void expect_event(struct ibv_comp_channel *ch, struct ibv_cq *want,
			 void *wantctx)
{
	struct ibv_cq *got = NULL;
	void *gotctx = NULL;

	ck_assert(fd_readable(ch->fd));
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &gotctx), 0);
	ck_assert_ptr_eq(got, want);
	ck_assert_ptr_eq(gotctx, wantctx);
}

static void expect_no_event(struct ibv_comp_channel *ch)
{
	struct ibv_cq *got = NULL;
	void *gotctx = NULL;

	ck_assert(!fd_readable(ch->fd));
	errno = 0;
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &gotctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* ---- polling ---------------------------------------------------------- */

START_TEST(t_poll_order)
{
	struct ibv_cq *cq = mkcq(16, NULL, NULL);
	struct ibv_wc wc[2];

	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 0);
	push_range(cq, 0, 10);
	ck_assert_uint_eq(emu_cq_count(to_emu_cq(cq)), 10);
	poll_expect(cq, 3, 3, 0);
	poll_expect(cq, 1, 1, 3);
	poll_expect(cq, 64, 6, 4);
	poll_expect(cq, 64, 0, 0);
	ck_assert_uint_eq(emu_cq_count(to_emu_cq(cq)), 0);

	/* Arguments: nothing asked is nothing done; nonsense is an error
	 * (negative, as ibv_poll_cq reports failures). */
	push_ok(cq, 42, false);
	ck_assert_int_eq(ibv_poll_cq(cq, 0, wc), 0);
	ck_assert_int_eq(ibv_poll_cq(cq, 0, NULL), 0);
	ck_assert_int_lt(ibv_poll_cq(cq, -1, wc), 0);
	ck_assert_int_lt(ibv_poll_cq(cq, 1, NULL), 0);
	poll_expect(cq, 2, 1, 42);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

/* Many times round a small ring, with partial polls in between. */
START_TEST(t_poll_wraps)
{
	struct ibv_cq *cq = mkcq(4, NULL, NULL);
	uint64_t next_push = 0, next_poll = 0;
	int round;

	ck_assert_int_eq(cq->cqe, 4);
	for (round = 0; round < 1000; round++) {
		int k = 1 + round % 4, room = 4 - (int)(next_push - next_poll);
		int take = 1 + (round * 7) % 3;
		int avail;

		if (k > room)
			k = room;
		push_range(cq, next_push, next_push + (uint64_t)k);
		next_push += (uint64_t)k;
		avail = (int)(next_push - next_poll);
		poll_expect(cq, take, take < avail ? take : avail, next_poll);
		next_poll += (uint64_t)(take < avail ? take : avail);
	}
	ck_assert(!emu_cq_in_error(to_emu_cq(cq)));
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

/* ---- size ------------------------------------------------------------- */

START_TEST(t_cqe_rounding)
{
	static const int asked[] = {1, 2, 3, 5, 8, 9, 100, 1000, 4096, 40000,
				    65535};
	static const int got[] = {1, 2, 4, 8, 8, 16, 128, 1024, 4096, 65535,
				  65535};
	struct ibv_wc w = mkwc(0);
	struct ibv_cq *cq;
	unsigned int i;
	int j;

	for (i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
		cq = mkcq(asked[i], NULL, NULL);
		ck_assert_int_eq(cq->cqe, got[i]);
		ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	}
	/* Clamped to the device's limit, never below the request. */
	ck_assert_uint_eq(emu_cq_size(70, 100), 100);
	ck_assert_uint_eq(emu_cq_size(64, 100), 64);
	ck_assert_uint_eq(emu_cq_size(100, 100), 100);
	ck_assert_uint_eq(emu_cq_size(65, 65), 65);
	ck_assert_uint_eq(emu_cq_size(0x7fffffffu, 0x7fffffffu),
			  0x7fffffffu);
	dev.cfg.limits.max_cqe = 100;
	cq = mkcq(70, NULL, NULL);
	ck_assert_int_eq(cq->cqe, 100);

	/* The size reported is exactly what fits before an overrun. */
	for (j = 0; j < 100; j++)
		push_ok(cq, (uint64_t)j, false);
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &w, false), ENOSPC);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ic, 101, NULL, NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* ---- overrun ---------------------------------------------------------- */

static void expect_no_async(void)
{
	struct ibv_async_event ev;

	errno = 0;
	ck_assert_int_eq(ibv_get_async_event(ic, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
}

START_TEST(t_overrun)
{
	struct ibv_comp_channel *ch = mkchannel(true);
	struct ibv_cq *cq = mkcq(4, NULL, ch);
	struct ibv_cq_ex *cqx = (struct ibv_cq_ex *)cq;
	struct ibv_async_event ev;
	struct ibv_wc w = mkwc(4), wc[4];

	set_nonblock(ic->async_fd);
	push_range(cq, 0, 4);
	ck_assert(!emu_cq_in_error(to_emu_cq(cq)));
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	/* The fifth is lost, the CQ is in error, CQ_ERR raised once. */
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &w, false), ENOSPC);
	ck_assert(emu_cq_in_error(to_emu_cq(cq)));
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &w, true), ENOSPC);
	ck_assert_int_eq(ibv_poll_cq(cq, 1, wc), 1);
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &w, false), ENOSPC);
	ck_assert(fd_readable(ic->async_fd));
	ck_assert_int_eq(ibv_get_async_event(ic, &ev), 0);
	ck_assert_int_eq(ev.event_type, IBV_EVENT_CQ_ERR);
	ck_assert_ptr_eq(ev.element.cq, cq);
	expect_no_async();
	/* An overrun is no completion event, even armed. */
	expect_no_event(ch);

	/* What was queued before comes out in order, then errors only. */
	ck_assert_uint_eq(wc[0].wr_id, 0);
	poll_expect(cq, 4, 3, 1);
	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), -EIO);
	ck_assert_int_eq(ibv_poll_cq(cq, 1, wc), -EIO);
	ck_assert_int_eq(ibv_start_poll(cqx, NULL), EIO);
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &w, false), ENOSPC);
	expect_no_async();

	ibv_ack_async_event(&ev);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

struct destroyer {
	struct ibv_cq *cq;
	atomic_int done;
	int rc;
};

static void *destroy_thread(void *p)
{
	struct destroyer *d = p;

	d->rc = ibv_destroy_cq(d->cq);
	atomic_store(&d->done, 1);
	return NULL;
}

static void destroy_async(struct destroyer *d, pthread_t *t,
			  struct ibv_cq *cq)
{
	d->cq = cq;
	atomic_init(&d->done, 0);
	d->rc = -1;
	ck_assert_int_eq(pthread_create(t, NULL, destroy_thread, d), 0);
}

/* A CQ_ERR event handed out but not acked holds the destroy back. */
START_TEST(t_overrun_destroy_waits_async_ack)
{
	struct ibv_cq *cq = mkcq(1, NULL, NULL);
	struct ibv_wc w = mkwc(1);
	struct ibv_async_event ev;
	struct destroyer d;
	pthread_t t;

	push_ok(cq, 0, false);
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &w, false), ENOSPC);
	ck_assert_int_eq(ibv_get_async_event(ic, &ev), 0);
	ck_assert_ptr_eq(ev.element.cq, cq);
	destroy_async(&d, &t, cq);
	sleep_ms(100);
	ck_assert_int_eq(atomic_load(&d.done), 0);
	ibv_ack_async_event(&ev);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(d.rc, 0);
}
END_TEST

/* Destroyed before anyone read its CQ_ERR: no wait, and the unread event
 * is dropped, as the kernel drops it, so nobody acks into freed memory. */
START_TEST(t_overrun_destroy_unread)
{
	struct ibv_cq *cq = mkcq(1, NULL, NULL);
	struct ibv_wc w = mkwc(1);

	set_nonblock(ic->async_fd);
	push_ok(cq, 0, false);
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &w, false), ENOSPC);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	expect_no_async();
}
END_TEST

START_TEST(t_ignore_overrun)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 2,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
	};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(ic, &a);
	struct ibv_cq *cq;
	struct ibv_wc w = mkwc(2);

	ck_assert_ptr_nonnull(cqx);
	cq = ibv_cq_ex_to_cq(cqx);
	set_nonblock(ic->async_fd);
	push_range(cq, 0, 2);
	/* Full: this one is dropped, nothing else happens. */
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &w, false), ENOSPC);
	ck_assert(!emu_cq_in_error(to_emu_cq(cq)));
	expect_no_async();
	poll_expect(cq, 4, 2, 0);
	push_range(cq, 10, 12);
	poll_expect(cq, 4, 2, 10);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

/* ---- arming and channels ---------------------------------------------- */

START_TEST(t_arm_next)
{
	struct ibv_comp_channel *ch = mkchannel(true);
	int tag;
	struct ibv_cq *cq = mkcq(16, &tag, ch);

	ck_assert_ptr_eq(cq->channel, ch);
	ck_assert_ptr_eq(cq->cq_context, &tag);
	/* Not armed: completions but no event. */
	push_ok(cq, 0, true);
	expect_no_event(ch);
	/* Arming does not fire for what is already queued. */
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	expect_no_event(ch);
	push_ok(cq, 1, false);
	expect_event(ch, cq, &tag);
	/* One shot. */
	push_ok(cq, 2, false);
	expect_no_event(ch);
	/* Arming twice is still one event. */
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	push_ok(cq, 3, false);
	push_ok(cq, 4, false);
	expect_event(ch, cq, &tag);
	expect_no_event(ch);
	poll_expect(cq, 16, 5, 0);
	ibv_ack_cq_events(cq, 2);
	ck_assert_uint_eq(cq->comp_events_completed, 2);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

START_TEST(t_arm_solicited)
{
	struct ibv_comp_channel *ch = mkchannel(true);
	struct ibv_cq *cq = mkcq(16, NULL, ch);
	struct ibv_wc err = mkwc(3);

	/* Solicited only: a plain completion does not fire, a solicited
	 * one does. */
	ck_assert_int_eq(ibv_req_notify_cq(cq, 1), 0);
	push_ok(cq, 0, false);
	expect_no_event(ch);
	push_ok(cq, 1, true);
	expect_event(ch, cq, NULL);
	push_ok(cq, 2, true);
	expect_no_event(ch);

	/* An error completion counts as solicited (IBTA). */
	ck_assert_int_eq(ibv_req_notify_cq(cq, 1), 0);
	err.status = IBV_WC_REM_ACCESS_ERR;
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &err, false), 0);
	expect_event(ch, cq, NULL);

	/* Solicited then next: next wins. */
	ck_assert_int_eq(ibv_req_notify_cq(cq, 1), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	push_ok(cq, 4, false);
	expect_event(ch, cq, NULL);
	/* Next then solicited: still next. */
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 1), 0);
	push_ok(cq, 5, false);
	expect_event(ch, cq, NULL);
	expect_no_event(ch);
	ibv_ack_cq_events(cq, 4);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

START_TEST(t_arm_without_channel)
{
	struct ibv_cq *cq = mkcq(4, NULL, NULL);

	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	push_ok(cq, 0, false);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 1), 0);
	push_ok(cq, 1, true);
	poll_expect(cq, 4, 2, 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

/* Several CQs on one channel, several events per CQ, poll and epoll. */
START_TEST(t_channel_events)
{
	struct ibv_comp_channel *ch = mkchannel(true);
	struct ibv_cq *a = mkcq(8, (void *)1, ch), *b = mkcq(8, (void *)2, ch);
	struct epoll_event ee = {.events = EPOLLIN}, out;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	ck_assert_int_ge(ep, 0);
	ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, ch->fd, &ee), 0);
	ck_assert_int_eq(epoll_wait(ep, &out, 1, 0), 0);
	ck_assert_int_eq(ch->refcnt, 2);

	ck_assert_int_eq(ibv_req_notify_cq(a, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(b, 0), 0);
	push_ok(b, 0, false);
	push_ok(a, 0, false);
	ck_assert_int_eq(ibv_req_notify_cq(b, 0), 0);
	push_ok(b, 1, false);
	ck_assert_int_eq(epoll_wait(ep, &out, 1, 0), 1);
	/* Oldest first; a CQ with more goes behind the others. */
	expect_event(ch, b, (void *)2);
	expect_event(ch, a, (void *)1);
	expect_event(ch, b, (void *)2);
	expect_no_event(ch);
	ck_assert_int_eq(epoll_wait(ep, &out, 1, 0), 0);
	close(ep);

	ibv_ack_cq_events(a, 1);
	ibv_ack_cq_events(b, 2);
	ck_assert_int_eq(ibv_destroy_cq(a), 0);
	ck_assert_int_eq(ibv_destroy_cq(b), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

struct getter {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	void *cq_context;
	atomic_int done;
	int rc;
};

static void *get_thread(void *p)
{
	struct getter *g = p;

	g->rc = ibv_get_cq_event(g->ch, &g->cq, &g->cq_context);
	atomic_store(&g->done, 1);
	return NULL;
}

/* A blocking channel: ibv_get_cq_event sleeps until the event. */
START_TEST(t_channel_blocking)
{
	struct ibv_comp_channel *ch = mkchannel(false);
	struct ibv_cq *cq = mkcq(8, (void *)7, ch);
	struct getter g = {.ch = ch, .rc = -2};
	pthread_t t;

	atomic_init(&g.done, 0);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, get_thread, &g), 0);
	sleep_ms(50);
	ck_assert_int_eq(atomic_load(&g.done), 0);
	push_ok(cq, 0, false);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(g.rc, 0);
	ck_assert_ptr_eq(g.cq, cq);
	ck_assert_ptr_eq(g.cq_context, (void *)7);
	ibv_ack_cq_events(cq, 1);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

START_TEST(t_channel_args)
{
	struct ibv_comp_channel *ch = mkchannel(true);
	struct ibv_cq *cq = NULL;
	void *cqc = NULL;

	ck_assert_ptr_eq(ch->context, ic);
	ck_assert_int_eq(ch->refcnt, 0);
	errno = 0;
	ck_assert_int_eq(ibv_get_cq_event(NULL, &cq, &cqc), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_get_cq_event(ch, NULL, &cqc), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_get_cq_event(ch, &cq, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_comp_channel(NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_destroy_comp_channel(NULL), EINVAL);
	ibv_ack_cq_events(NULL, 1); /* ignored, as nothing to count on */
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

/* ---- destroy ---------------------------------------------------------- */

START_TEST(t_destroy_waits_for_acks)
{
	struct ibv_comp_channel *ch = mkchannel(true);
	struct ibv_cq *cq = mkcq(8, NULL, ch);
	struct destroyer d;
	pthread_t t;

	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	push_ok(cq, 0, false);
	expect_event(ch, cq, NULL);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	push_ok(cq, 1, false);
	expect_event(ch, cq, NULL);
	ibv_ack_cq_events(cq, 1);

	destroy_async(&d, &t, cq);
	sleep_ms(100);
	ck_assert_int_eq(atomic_load(&d.done), 0);
	ibv_ack_cq_events(cq, 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(d.rc, 0);
	ck_assert_int_eq(ch->refcnt, 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

/* Events nobody read are dropped with the CQ; the channel goes on. */
START_TEST(t_destroy_purges_unread)
{
	struct ibv_comp_channel *ch = mkchannel(true);
	struct ibv_cq *a = mkcq(8, NULL, ch), *b = mkcq(8, NULL, ch);
	struct ibv_cq *c = mkcq(8, NULL, ch), *got;
	void *gotctx;

	ck_assert_int_eq(ibv_req_notify_cq(a, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(b, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(c, 0), 0);
	push_ok(a, 0, false);
	push_ok(b, 0, false);
	push_ok(c, 0, false);
	ck_assert_int_eq(ibv_req_notify_cq(a, 0), 0);
	push_ok(a, 1, false);
	/* Queue: b, c, a(2 events). Drop the middle and the last. */
	ck_assert_int_eq(ibv_destroy_cq(c), 0);
	ck_assert_int_eq(ibv_destroy_cq(a), 0);
	expect_event(ch, b, NULL);
	/* The counts a and c left in the fd make it readable still, but a
	 * get finds no event behind them and says so; then it is quiet. */
	errno = 0;
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &gotctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	expect_no_event(ch);
	ck_assert_int_eq(ibv_req_notify_cq(b, 0), 0);
	push_ok(b, 1, false);
	expect_event(ch, b, NULL);
	ibv_ack_cq_events(b, 2);
	ck_assert_int_eq(ibv_destroy_cq(b), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

START_TEST(t_destroy_busy)
{
	struct ibv_cq *cq = mkcq(8, NULL, NULL);

	emu_cq_get(to_emu_cq(cq));
	emu_cq_get(to_emu_cq(cq));
	ck_assert_int_eq(ibv_destroy_cq(cq), EBUSY);
	emu_cq_put(to_emu_cq(cq));
	ck_assert_int_eq(ibv_destroy_cq(cq), EBUSY);
	/* Still fully usable after a refused destroy. */
	push_ok(cq, 0, false);
	poll_expect(cq, 2, 1, 0);
	emu_cq_put(to_emu_cq(cq));
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_cq(NULL), EINVAL);
}
END_TEST

START_TEST(t_destroy_channel_busy)
{
	struct ibv_comp_channel *ch = mkchannel(false);
	struct ibv_cq *cq = mkcq(8, NULL, ch);
	struct ibv_cq_init_attr_ex a = {.cqe = 4, .channel = ch};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(ic, &a);

	ck_assert_ptr_nonnull(cqx);
	ck_assert_int_eq(ch->refcnt, 2);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), EBUSY);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), EBUSY);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	ck_assert_int_eq(ch->refcnt, 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

/* ---- resize ----------------------------------------------------------- */

START_TEST(t_resize)
{
	struct ibv_cq *cq = mkcq(8, NULL, NULL);
	struct ibv_wc w = mkwc(99);
	uint64_t i;

	/* Move head off slot 0 so the copy has to unwrap the ring. */
	push_range(cq, 0, 6);
	poll_expect(cq, 5, 5, 0);
	push_range(cq, 6, 12);		/* 6..11 queued, wrapped */

	ck_assert_int_eq(ibv_resize_cq(cq, 16), 0);
	ck_assert_int_eq(cq->cqe, 16);
	ck_assert_uint_eq(emu_cq_count(to_emu_cq(cq)), 7);
	push_range(cq, 12, 14);
	poll_expect(cq, 2, 2, 5);

	/* Below what is queued (7: 7..13): refused, nothing changed. */
	ck_assert_int_eq(ibv_resize_cq(cq, 6), EINVAL);
	ck_assert_int_eq(cq->cqe, 16);
	ck_assert_uint_eq(emu_cq_count(to_emu_cq(cq)), 7);
	/* Down to exactly what is queued. */
	ck_assert_int_eq(ibv_resize_cq(cq, 7), 0);
	ck_assert_int_eq(cq->cqe, 8);
	push_ok(cq, 14, false);
	ck_assert_int_eq(ibv_resize_cq(cq, 3), EINVAL);
	for (i = 7; i < 15; i++)
		poll_expect(cq, 1, 1, i);
	poll_expect(cq, 1, 0, 0);
	ck_assert_int_eq(ibv_resize_cq(cq, 2), 0);
	ck_assert_int_eq(cq->cqe, 2);
	push_range(cq, 20, 22);
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &w, false), ENOSPC);
	poll_expect(cq, 4, 2, 20);

	ck_assert_int_eq(ibv_resize_cq(cq, 0), EINVAL);
	ck_assert_int_eq(ibv_resize_cq(cq, -1), EINVAL);
	ck_assert_int_eq(ibv_resize_cq(cq, 65536), EINVAL);
	ck_assert_int_eq(ibv_resize_cq(NULL, 4), EINVAL);
	ck_assert_int_eq(cq->cqe, 2);
	ck_assert_int_eq(ibv_resize_cq(cq, 65535), 0);
	ck_assert_int_eq(cq->cqe, 65535);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

/* ---- extended CQs ----------------------------------------------------- */

static void expect_current(struct ibv_cq_ex *cqx, uint64_t id)
{
	struct ibv_wc w = mkwc(id);

	ck_assert_uint_eq(cqx->wr_id, w.wr_id);
	ck_assert_int_eq(cqx->status, w.status);
	ck_assert_int_eq(ibv_wc_read_opcode(cqx), w.opcode);
	ck_assert_uint_eq(ibv_wc_read_vendor_err(cqx), w.vendor_err);
	ck_assert_uint_eq(ibv_wc_read_byte_len(cqx), w.byte_len);
	ck_assert_uint_eq(ibv_wc_read_imm_data(cqx), w.imm_data);
	ck_assert_uint_eq(ibv_wc_read_invalidated_rkey(cqx),
			  w.invalidated_rkey);
	ck_assert_uint_eq(ibv_wc_read_qp_num(cqx), w.qp_num);
	ck_assert_uint_eq(ibv_wc_read_src_qp(cqx), w.src_qp);
	ck_assert_uint_eq(ibv_wc_read_wc_flags(cqx), w.wc_flags);
	ck_assert_uint_eq(ibv_wc_read_slid(cqx), w.slid);
	ck_assert_uint_eq(ibv_wc_read_sl(cqx), w.sl);
	ck_assert_uint_eq(ibv_wc_read_dlid_path_bits(cqx), w.dlid_path_bits);
}

START_TEST(t_cq_ex_poll)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 8,
		.cq_context = (void *)3,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = {.comp_mask = 0};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(ic, &a);
	struct ibv_cq *cq;
	struct ibv_wc err = mkwc(4);

	ck_assert_ptr_nonnull(cqx);
	cq = ibv_cq_ex_to_cq(cqx);
	ck_assert_int_eq(cqx->cqe, 8);
	ck_assert_ptr_eq(cqx->context, ic);
	ck_assert_ptr_eq(cqx->cq_context, (void *)3);
	ck_assert_ptr_null(cqx->channel);
	/* Fields we never produce have no accessor. */
	ck_assert_ptr_null(cqx->read_completion_ts);
	ck_assert_ptr_null(cqx->read_completion_wallclock_ns);
	ck_assert_ptr_null(cqx->read_cvlan);
	ck_assert_ptr_null(cqx->read_flow_tag);
	ck_assert_ptr_null(cqx->read_tm_info);

	ck_assert_int_eq(ibv_start_poll(cqx, &pa), ENOENT);
	/* ENOENT released the CQ: a plain poll from here must not hang. */
	poll_expect(cq, 1, 0, 0);

	push_range(cq, 0, 4);
	err.status = IBV_WC_LOC_PROT_ERR;
	err.vendor_err = 0x33;
	ck_assert_int_eq(emu_cq_push(to_emu_cq(cq), &err, false), 0);
	ck_assert_int_eq(ibv_start_poll(cqx, &pa), 0);
	expect_current(cqx, 0);
	ck_assert_int_eq(ibv_next_poll(cqx), 0);
	expect_current(cqx, 1);
	ibv_end_poll(cqx);
	/* end_poll consumed the current one, not the rest. */
	ck_assert_uint_eq(emu_cq_count(to_emu_cq(cq)), 3);

	ck_assert_int_eq(ibv_start_poll(cqx, NULL), 0);
	expect_current(cqx, 2);
	ck_assert_int_eq(ibv_next_poll(cqx), 0);
	expect_current(cqx, 3);
	ck_assert_int_eq(ibv_next_poll(cqx), 0);
	ck_assert_uint_eq(cqx->wr_id, 4);
	ck_assert_int_eq(cqx->status, IBV_WC_LOC_PROT_ERR);
	ck_assert_uint_eq(ibv_wc_read_vendor_err(cqx), 0x33);
	ck_assert_int_eq(ibv_next_poll(cqx), ENOENT);
	/* A completion arriving mid-batch is found by the next next_poll. */
	push_ok(cq, 5, false);
	ck_assert_int_eq(ibv_next_poll(cqx), 0);
	expect_current(cqx, 5);
	ibv_end_poll(cqx);
	ck_assert_uint_eq(emu_cq_count(to_emu_cq(cq)), 0);
	ck_assert_int_eq(ibv_start_poll(cqx, NULL), ENOENT);

	pa.comp_mask = 1;
	ck_assert_int_eq(ibv_start_poll(cqx, &pa), EINVAL);
	poll_expect(cq, 1, 0, 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

/* A CQ from ibv_create_cq answers the extended accessors too. */
START_TEST(t_plain_cq_as_ex)
{
	struct ibv_cq *cq = mkcq(4, NULL, NULL);
	struct ibv_cq_ex *cqx = (struct ibv_cq_ex *)cq;

	push_range(cq, 7, 9);
	ck_assert_int_eq(ibv_start_poll(cqx, NULL), 0);
	expect_current(cqx, 7);
	ibv_end_poll(cqx);
	poll_expect(cq, 4, 1, 8);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

START_TEST(t_single_threaded)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 4,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
	};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(ic, &a);
	struct ibv_cq *cq;

	ck_assert_ptr_nonnull(cqx);
	cq = ibv_cq_ex_to_cq(cqx);
	push_range(cq, 0, 3);
	ck_assert_int_eq(ibv_start_poll(cqx, NULL), 0);
	expect_current(cqx, 0);
	ibv_end_poll(cqx);
	poll_expect(cq, 4, 2, 1);
	ck_assert_int_eq(ibv_resize_cq(cq, 8), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

static void expect_cq_ex_fails(struct ibv_cq_init_attr_ex *a, int err)
{
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ic, a));
	ck_assert_int_eq(errno, err);
}

START_TEST(t_cq_ex_args)
{
	/* No VLANs and no flow steering to report; the timestamps are
	 * there (test_cq_ts). */
	static const uint64_t unsupported[] = {
		IBV_WC_EX_WITH_CVLAN,
		IBV_WC_EX_WITH_FLOW_TAG,
		1ull << 12,
		1ull << 63,
	};
	struct ibv_context other = *ic;
	struct ibv_comp_channel *och;
	struct ibv_cq_init_attr_ex a;
	struct ibv_cq_ex *cqx;
	unsigned int i;

	for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		a = (struct ibv_cq_init_attr_ex){
			.cqe = 4,
			.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | unsupported[i],
		};
		expect_cq_ex_fails(&a, EOPNOTSUPP);
	}
	a = (struct ibv_cq_init_attr_ex){.cqe = 4, .comp_mask = 1u << 2};
	expect_cq_ex_fails(&a, EINVAL);
	a.comp_mask = 0x80000000u;
	expect_cq_ex_fails(&a, EINVAL);
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	a.flags = 1u << 2;
	expect_cq_ex_fails(&a, EOPNOTSUPP);
	/* Flags are only read when the mask says they are there. */
	a.comp_mask = 0;
	cqx = ibv_create_cq_ex(ic, &a);
	ck_assert_ptr_nonnull(cqx);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	a = (struct ibv_cq_init_attr_ex){
		.cqe = 4,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	expect_cq_ex_fails(&a, EINVAL);
	a = (struct ibv_cq_init_attr_ex){.cqe = 0};
	expect_cq_ex_fails(&a, EINVAL);
	a.cqe = 65536;
	expect_cq_ex_fails(&a, EINVAL);
	a.cqe = 0xffffffffu;
	expect_cq_ex_fails(&a, EINVAL);
	a = (struct ibv_cq_init_attr_ex){.cqe = 4, .comp_vector = 1};
	expect_cq_ex_fails(&a, EINVAL);

	/* A channel of another context. */
	och = mkchannel(false);
	och->context = &other;
	a = (struct ibv_cq_init_attr_ex){.cqe = 4, .channel = och};
	expect_cq_ex_fails(&a, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ic, 4, NULL, och, 0));
	ck_assert_int_eq(errno, EINVAL);
	och->context = ic;
	ck_assert_int_eq(ibv_destroy_comp_channel(och), 0);

	errno = 0;
	ck_assert_ptr_null(
		verbs_get_ctx_op(ic, create_cq_ex)->create_cq_ex(ic, NULL));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(t_create_args)
{
	static const int bad_cqe[] = {0, -1, -65536, 65536, 0x7fffffff};
	struct ibv_cq *cq;
	unsigned int i;

	for (i = 0; i < sizeof(bad_cqe) / sizeof(bad_cqe[0]); i++) {
		errno = 0;
		ck_assert_ptr_null(
			ibv_create_cq(ic, bad_cqe[i], NULL, NULL, 0));
		ck_assert_int_eq(errno, EINVAL);
	}
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ic, 4, NULL, NULL, 1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ic, 4, NULL, NULL, -1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(NULL, 4, NULL, NULL, 0));
	ck_assert_int_eq(errno, EINVAL);

	/* What rdma-core's verbs_init_cq sets. */
	cq = mkcq(65535, (void *)9, NULL);
	ck_assert_ptr_eq(cq->context, ic);
	ck_assert_ptr_null(cq->channel);
	ck_assert_ptr_eq(cq->cq_context, (void *)9);
	ck_assert_int_eq(cq->cqe, 65535);
	ck_assert_uint_eq(cq->comp_events_completed, 0);
	ck_assert_uint_eq(cq->async_events_completed, 0);
	ck_assert_int_eq(pthread_mutex_trylock(&cq->mutex), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&cq->mutex), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

/* ---- allocation failures ---------------------------------------------- */

START_TEST(t_alloc_failure)
{
	struct ibv_cq_init_attr_ex a = {.cqe = 4};
	struct ibv_cq *cq;

	emu_test_fail_calloc(1);
	errno = 0;
	ck_assert_ptr_null(ibv_create_comp_channel(ic));
	ck_assert_int_eq(errno, ENOMEM);

	emu_test_fail_calloc(1);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ic, 4, NULL, NULL, 0));
	ck_assert_int_eq(errno, ENOMEM);
	emu_test_fail_malloc(1);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ic, 4, NULL, NULL, 0));
	ck_assert_int_eq(errno, ENOMEM);
	emu_test_fail_calloc(1);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ic, &a));
	ck_assert_int_eq(errno, ENOMEM);
	emu_test_fail_malloc(1);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ic, &a));
	ck_assert_int_eq(errno, ENOMEM);

	/* A failed resize leaves the CQ as it was. */
	cq = mkcq(4, NULL, NULL);
	push_range(cq, 0, 3);
	emu_test_fail_malloc(1);
	ck_assert_int_eq(ibv_resize_cq(cq, 64), ENOMEM);
	ck_assert_int_eq(cq->cqe, 4);
	push_ok(cq, 3, false);
	poll_expect(cq, 8, 4, 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
}
END_TEST

/* ---- concurrency ------------------------------------------------------ */

#define CONC_TOTAL 200000
#define CONC_BATCH 64

struct conc {
	struct ibv_cq *cq;
	struct emu_engine *eng;
	atomic_uchar seen[CONC_TOTAL];
	atomic_int polled;
	atomic_int disorder;
	atomic_int pushed_all;
	uint64_t next;		/* engine side only */
};

/* Runs on the engine thread: one batch of completions. */
static void engine_push(void *p)
{
	struct conc *c = p;
	int i;

	for (i = 0; i < CONC_BATCH && c->next < CONC_TOTAL; i++, c->next++) {
		struct ibv_wc w = mkwc(c->next);

		if (emu_cq_push(to_emu_cq(c->cq), &w, false))
			atomic_fetch_add(&c->disorder, 1000000);
	}
}

static void *poller(void *p)
{
	struct conc *c = p;
	struct ibv_cq_ex *cqx = (struct ibv_cq_ex *)c->cq;
	struct ibv_wc wc[7];
	uint64_t last = 0;
	bool any = false, ex = false;
	int n, i;

	/* Until everything was pushed and taken: a lost entry shows up as a
	 * short count, not as a hang. */
	while (!atomic_load(&c->pushed_all) ||
	       emu_cq_count(to_emu_cq(c->cq))) {
		if (emu_cq_in_error(to_emu_cq(c->cq)))
			break;
		/* Alternate plain and extended polling on the same CQ. */
		ex = !ex;
		if (ex) {
			if (ibv_start_poll(cqx, NULL)) {
				sched_yield();
				continue;
			}
			do {
				if (any && cqx->wr_id <= last)
					atomic_fetch_add(&c->disorder, 1);
				last = cqx->wr_id;
				any = true;
				atomic_fetch_add(&c->seen[cqx->wr_id], 1);
				atomic_fetch_add(&c->polled, 1);
			} while (ibv_next_poll(cqx) == 0);
			ibv_end_poll(cqx);
			continue;
		}
		n = ibv_poll_cq(c->cq, 7, wc);
		if (n < 0)
			atomic_fetch_add(&c->disorder, 1000000);
		/* Two CPUs may run four busy threads here: let the others
		 * (the engine above all) run when there is nothing to do. */
		if (n == 0)
			sched_yield();
		for (i = 0; i < n; i++) {
			/* Each poller sees an increasing subsequence. */
			if (any && wc[i].wr_id <= last)
				atomic_fetch_add(&c->disorder, 1);
			last = wc[i].wr_id;
			any = true;
			atomic_fetch_add(&c->seen[wc[i].wr_id], 1);
			atomic_fetch_add(&c->polled, 1);
		}
	}
	return NULL;
}

START_TEST(t_concurrent_pollers)
{
	struct conc *c = calloc(1, sizeof(*c));
	pthread_t t[2];
	int i;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(emu_engine_start(&c->eng), 0);
	c->cq = mkcq(256, NULL, NULL);
	atomic_init(&c->polled, 0);
	atomic_init(&c->disorder, 0);
	atomic_init(&c->pushed_all, 0);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, poller, c), 0);
	/* Producer: batches on the engine thread, never past the size. */
	while (c->next < CONC_TOTAL) {
		if (emu_cq_count(to_emu_cq(c->cq)) > 256 - CONC_BATCH) {
			sched_yield();
			continue;
		}
		emu_engine_call(c->eng, engine_push, c);
	}
	atomic_store(&c->pushed_all, 1);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	ck_assert_int_eq(atomic_load(&c->disorder), 0);
	ck_assert_int_eq(atomic_load(&c->polled), CONC_TOTAL);
	for (i = 0; i < CONC_TOTAL; i++)
		ck_assert_msg(atomic_load(&c->seen[i]) == 1, "wr_id %d seen %d",
			      i, atomic_load(&c->seen[i]));
	ck_assert(!emu_cq_in_error(to_emu_cq(c->cq)));
	ck_assert_int_eq(ibv_destroy_cq(c->cq), 0);
	emu_engine_stop(c->eng);
	free(c);
}
END_TEST

static Suite *cq_suite(void)
{
	Suite *s = suite_create("cq_emu");
	TCase *tc = tcase_create("default");
	TCase *tt = tcase_create("threads");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_poll_order);
	tcase_add_test(tc, t_poll_wraps);
	tcase_add_test(tc, t_cqe_rounding);
	tcase_add_test(tc, t_overrun);
	tcase_add_test(tc, t_overrun_destroy_waits_async_ack);
	tcase_add_test(tc, t_overrun_destroy_unread);
	tcase_add_test(tc, t_ignore_overrun);
	tcase_add_test(tc, t_arm_next);
	tcase_add_test(tc, t_arm_solicited);
	tcase_add_test(tc, t_arm_without_channel);
	tcase_add_test(tc, t_channel_events);
	tcase_add_test(tc, t_channel_blocking);
	tcase_add_test(tc, t_channel_args);
	tcase_add_test(tc, t_destroy_waits_for_acks);
	tcase_add_test(tc, t_destroy_purges_unread);
	tcase_add_test(tc, t_destroy_busy);
	tcase_add_test(tc, t_destroy_channel_busy);
	tcase_add_test(tc, t_resize);
	tcase_add_test(tc, t_cq_ex_poll);
	tcase_add_test(tc, t_plain_cq_as_ex);
	tcase_add_test(tc, t_single_threaded);
	tcase_add_test(tc, t_cq_ex_args);
	tcase_add_test(tc, t_create_args);
	tcase_add_test(tc, t_alloc_failure);
	suite_add_tcase(s, tc);
	/* Busy threads on few CPUs, sanitizers: more than the default. */
	tcase_add_checked_fixture(tt, setup, teardown);
	tcase_set_timeout(tt, 60);
	tcase_add_test(tt, t_concurrent_pollers);
	suite_add_tcase(s, tt);
	return s;
}

int main(void)
{
	emu_init();
	return emu_test_run(cq_suite());
}
