/* Unit tests for the engine thread (emu/base/engine.c): start and stop, calls
 * handed to the thread, fd watches, allocation failures. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <ev.h>

#include "emu/base/engine.h"
#include "tests/unit/testlib.h"

static struct emu_engine *start(void)
{
	struct emu_engine *e = NULL;

	ck_assert_int_eq(emu_engine_start(&e), 0);
	ck_assert_ptr_nonnull(e);
	return e;
}

/* Wait up to 5 s for *flag to reach want. */
static int wait_for(atomic_int *flag, int want)
{
	int i;

	for (i = 0; i < 5000; i++) {
		if (atomic_load(flag) >= want)
			return 1;
		usleep(1000);
	}
	return 0;
}

START_TEST(t_start_stop)
{
	struct emu_engine *e = start();

	ck_assert(!emu_engine_on_thread(e));
	emu_engine_stop(e);
}
END_TEST

/* Nothing pending, many times over: no thread, loop or fd left behind. */
START_TEST(t_start_stop_repeat)
{
	int i;

	for (i = 0; i < 50; i++)
		emu_engine_stop(start());
	emu_engine_stop(NULL);
}
END_TEST

START_TEST(t_start_enomem)
{
	struct emu_engine *e = (struct emu_engine *)&e;

	emu_test_fail_calloc(1);
	ck_assert_int_eq(emu_engine_start(&e), ENOMEM);
	ck_assert_ptr_eq(e, (struct emu_engine *)&e); /* untouched */
	emu_test_fail_calloc(0);
}
END_TEST

struct probe {
	struct emu_engine *e;
	int on_thread;
	pthread_t self;
	atomic_int ran;
	atomic_int inner_ran;
	int inner_before_return;
};

static void probe_fn(void *arg)
{
	struct probe *p = arg;

	p->on_thread = emu_engine_on_thread(p->e);
	p->self = pthread_self();
	usleep(50000); /* the caller must wait for this */
	atomic_store(&p->ran, 1);
}

START_TEST(t_call_on_engine_thread)
{
	struct probe p = {0};

	p.e = start();
	emu_engine_call(p.e, probe_fn, &p);
	/* Returned only after fn ran, and fn ran on another thread. */
	ck_assert_int_eq(p.ran, 1);
	ck_assert_int_ne(p.on_thread, 0);
	ck_assert(!pthread_equal(p.self, pthread_self()));
	ck_assert(!emu_engine_on_thread(p.e));
	emu_engine_stop(p.e);
}
END_TEST

static void inner_fn(void *arg)
{
	struct probe *p = arg;

	atomic_store(&p->inner_ran, 1);
	p->self = pthread_self();
}

static void outer_fn(void *arg)
{
	struct probe *p = arg;
	pthread_t me = pthread_self();

	/* Would deadlock if not run inline (the test times out). */
	emu_engine_call(p->e, inner_fn, p);
	p->inner_before_return = p->inner_ran && pthread_equal(p->self, me);
	atomic_store(&p->ran, 1);
}

START_TEST(t_call_from_engine_inline)
{
	struct probe p = {0};

	p.e = start();
	emu_engine_call(p.e, outer_fn, &p);
	ck_assert_int_eq(p.ran, 1);
	ck_assert_int_eq(p.inner_before_return, 1);
	emu_engine_stop(p.e);
}
END_TEST

/* Callers on many threads: one call at a time, each waits for its own. */
enum { CALLERS = 4, CALLS = 2000 };

struct counter {
	struct emu_engine *e;
	long n; /* touched only on the engine thread */
	atomic_int bad;
};

static void bump(void *arg)
{
	struct counter *c = arg;

	if (!emu_engine_on_thread(c->e))
		atomic_store(&c->bad, 1);
	c->n++;
}

static void *caller(void *arg)
{
	struct counter *c = arg;
	int i;

	for (i = 0; i < CALLS; i++)
		emu_engine_call(c->e, bump, c);
	return NULL;
}

START_TEST(t_call_concurrent)
{
	struct counter c = {0};
	pthread_t t[CALLERS];
	int i;

	c.e = start();
	for (i = 0; i < CALLERS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, caller, &c), 0);
	for (i = 0; i < CALLERS; i++)
		pthread_join(t[i], NULL);
	emu_engine_call(c.e, bump, &c); /* and a barrier for reading n */
	ck_assert_int_eq(c.n, CALLERS * CALLS + 1);
	ck_assert_int_eq(c.bad, 0);
	emu_engine_stop(c.e);
}
END_TEST

struct pipe_watch {
	struct emu_engine *e;
	int fds[2];
	int drain; /* read the byte in the callback */
	atomic_int fired;
	atomic_int off_thread; /* or another misbehaviour */
	struct emu_watch *self_unwatch;
};

static void on_readable(void *arg)
{
	struct pipe_watch *w = arg;
	char c;

	if (!emu_engine_on_thread(w->e))
		atomic_store(&w->off_thread, 1);
	if (w->drain && read(w->fds[0], &c, 1) != 1)
		atomic_store(&w->off_thread, 1); /* reported below */
	atomic_fetch_add(&w->fired, 1);
}

static void noop(void *arg)
{
}

START_TEST(t_watch_fd)
{
	struct pipe_watch w = {.drain = 1};
	struct emu_watch *h;

	w.e = start();
	ck_assert_int_eq(pipe(w.fds), 0);
	h = emu_engine_watch_fd(w.e, w.fds[0], on_readable, &w);
	ck_assert_ptr_nonnull(h);
	usleep(50000);
	ck_assert_int_eq(w.fired, 0); /* not readable yet */
	ck_assert_int_eq(write(w.fds[1], "x", 1), 1);
	ck_assert(wait_for(&w.fired, 1));
	ck_assert_int_eq(write(w.fds[1], "y", 1), 1);
	ck_assert(wait_for(&w.fired, 2));
	ck_assert_int_eq(w.off_thread, 0);
	emu_engine_unwatch(w.e, h);
	emu_engine_stop(w.e);
	close(w.fds[0]);
	close(w.fds[1]);
}
END_TEST

/* The callback leaves the byte in the pipe, so it would fire again and
 * again; after unwatch it must not fire at all. */
START_TEST(t_unwatch_stops)
{
	struct pipe_watch w = {.drain = 0};
	struct emu_watch *h;
	int n;

	w.e = start();
	ck_assert_int_eq(pipe(w.fds), 0);
	h = emu_engine_watch_fd(w.e, w.fds[0], on_readable, &w);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(write(w.fds[1], "x", 1), 1);
	ck_assert(wait_for(&w.fired, 3));
	emu_engine_unwatch(w.e, h);
	n = w.fired;
	usleep(100000);
	emu_engine_call(w.e, noop, NULL);
	ck_assert_int_eq(w.fired, n);
	emu_engine_unwatch(w.e, NULL); /* no-op */
	emu_engine_stop(w.e);
	close(w.fds[0]);
	close(w.fds[1]);
}
END_TEST

static void unwatch_self(void *arg)
{
	struct pipe_watch *w = arg;

	atomic_fetch_add(&w->fired, 1);
	emu_engine_unwatch(w->e, w->self_unwatch);
}

/* A callback may drop its own watch: the engine runs that inline. */
START_TEST(t_unwatch_from_callback)
{
	struct pipe_watch w = {0};

	w.e = start();
	ck_assert_int_eq(pipe(w.fds), 0);
	/* The engine cannot fire before the handle is stored: the pipe is
	 * not readable until the write below. */
	w.self_unwatch = emu_engine_watch_fd(w.e, w.fds[0], unwatch_self, &w);
	ck_assert_ptr_nonnull(w.self_unwatch);
	ck_assert_int_eq(write(w.fds[1], "x", 1), 1);
	ck_assert(wait_for(&w.fired, 1));
	usleep(100000);
	emu_engine_call(w.e, noop, NULL);
	ck_assert_int_eq(w.fired, 1);
	emu_engine_stop(w.e);
	close(w.fds[0]);
	close(w.fds[1]);
}
END_TEST

START_TEST(t_watch_enomem)
{
	struct pipe_watch w = {.drain = 1};

	w.e = start();
	ck_assert_int_eq(pipe(w.fds), 0);
	emu_test_fail_calloc(1);
	ck_assert_ptr_null(emu_engine_watch_fd(w.e, w.fds[0], on_readable, &w));
	emu_test_fail_calloc(0);
	/* Nothing half-registered: readability goes unnoticed. */
	ck_assert_int_eq(write(w.fds[1], "x", 1), 1);
	usleep(100000);
	emu_engine_call(w.e, noop, NULL);
	ck_assert_int_eq(w.fired, 0);
	emu_engine_stop(w.e);
	close(w.fds[0]);
	close(w.fds[1]);
}
END_TEST

/* Two engines are independent threads. */
START_TEST(t_two_engines)
{
	struct probe p1 = {0}, p2 = {0};

	p1.e = start();
	p2.e = start();
	emu_engine_call(p1.e, probe_fn, &p1);
	emu_engine_call(p2.e, probe_fn, &p2);
	ck_assert(!pthread_equal(p1.self, p2.self));
	ck_assert(!emu_engine_on_thread(p1.e) && !emu_engine_on_thread(p2.e));
	emu_engine_stop(p1.e);
	emu_engine_stop(p2.e);
}
END_TEST

/* ---- entering: an application thread doing the engine's work ---------- */

struct held_call {
	atomic_int in, out;
};

static void hold_fn(void *arg)
{
	struct held_call *h = arg;

	atomic_store(&h->in, 1);
	while (!atomic_load(&h->out))
		usleep(1000);
}

struct caller {
	struct emu_engine *e;
	struct held_call *h;
};

static void *call_thread(void *arg)
{
	struct caller *c = arg;

	emu_engine_call(c->e, hold_fn, c->h);
	return NULL;
}

/* The engine thread wakes the caller before it leaves the callback's run
 * lock, so "idle again" comes a moment after the call returns. */
static int enter_when_idle(struct emu_engine *e)
{
	int i;

	for (i = 0; i < 5000; i++) {
		if (emu_engine_try_enter(e))
			return 1;
		usleep(1000);
	}
	return 0;
}

static void inline_fn(void *arg)
{
	*(pthread_t *)arg = pthread_self();
}

/* An idle engine lets a thread in, one at a time, and not while it runs. */
START_TEST(t_enter)
{
	struct emu_engine *e = start(), *e2 = start();
	struct held_call h = {0};
	struct caller c = { e, &h };
	pthread_t t, who;

	ck_assert(enter_when_idle(e));
	ck_assert(emu_engine_on_thread(e));
	ck_assert(!emu_engine_on_thread(e2));
	/* Inside one engine, no other (nor the same one again). */
	ck_assert(!emu_engine_try_enter(e));
	ck_assert(!emu_engine_try_enter(e2));
	/* A call made inside runs here, not on the engine thread. */
	emu_engine_call(e, inline_fn, &who);
	ck_assert(pthread_equal(who, pthread_self()));
	emu_engine_leave(e);
	ck_assert(!emu_engine_on_thread(e));

	/* While the engine runs a callback, nobody gets in. */
	ck_assert_int_eq(pthread_create(&t, NULL, call_thread, &c), 0);
	ck_assert(wait_for(&h.in, 1));
	ck_assert(!emu_engine_try_enter(e));
	ck_assert(enter_when_idle(e2));
	emu_engine_leave(e2);
	atomic_store(&h.out, 1);
	pthread_join(t, NULL);
	/* ... and once it is idle again, somebody does. */
	ck_assert(enter_when_idle(e));
	emu_engine_leave(e);
	emu_engine_stop(e);
	emu_engine_stop(e2);
}
END_TEST

static atomic_int timer_fired;
static struct timespec timer_at;

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	clock_gettime(CLOCK_MONOTONIC, &timer_at);
	atomic_store(&timer_fired, 1);
}

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

/* A timer started by an entered thread on an engine blocked with nothing
 * to wait for fires when it is due: not at once (the blocked loop's clock
 * is stale), not never (the loop chose to block forever). */
START_TEST(t_enter_timer)
{
	struct emu_engine *e = start();
	struct timespec t0;
	ev_timer tm;

	/* Let the engine block, and its clock fall behind. */
	emu_engine_sync(e);
	usleep(300000);
	ev_timer_init(&tm, on_timer, 0.1, 0.);
	ck_assert(enter_when_idle(e));
	emu_engine_will_start(e);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ev_timer_start(emu_engine_loop(e), &tm);
	emu_engine_leave(e);
	ck_assert(wait_for(&timer_fired, 1));
	ck_assert_msg(since(&t0, &timer_at) >= 0.09, "fired after %.3f s",
		      since(&t0, &timer_at));
	emu_engine_stop(e);
}
END_TEST

static Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_add_test(tc, t_start_stop);
	tcase_add_test(tc, t_start_stop_repeat);
	tcase_add_test(tc, t_start_enomem);
	tcase_add_test(tc, t_call_on_engine_thread);
	tcase_add_test(tc, t_call_from_engine_inline);
	tcase_add_test(tc, t_call_concurrent);
	tcase_add_test(tc, t_watch_fd);
	tcase_add_test(tc, t_unwatch_stops);
	tcase_add_test(tc, t_unwatch_from_callback);
	tcase_add_test(tc, t_watch_enomem);
	tcase_add_test(tc, t_two_engines);
	tcase_add_test(tc, t_enter);
	tcase_add_test(tc, t_enter_timer);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(engine_suite());
}
