/* The engine thread and its libev loop, and the run lock that makes the
 * engine's state one thread's at a time: the engine thread holds it except
 * while it blocks, and an application thread that finds it free may do the
 * engine's work itself (emu_engine_try_enter), as rxe's tasks run in the
 * caller's context when they can. Other calls hand a function over an
 * ev_async and wait (emu_engine_call). */
#include <errno.h>
#include <ev.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "emu/base/engine.h"

struct emu_engine {
	struct ev_loop *loop;
	pthread_t thread;
	ev_async wake;
	/* The engine's state (everything its callbacks touch) belongs to
	 * whoever holds this: the engine thread but while it waits, or a
	 * thread that entered. */
	pthread_mutex_t run_lock;
	bool rewatch;		/* an entered thread changed the loop */

	pthread_mutex_t call_lock;	/* one caller at a time */
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	emu_engine_fn fn;
	void *arg;
	bool done;
	bool stopping;
};

struct emu_watch {
	ev_io io;
	emu_engine_fn cb;
	void *arg;
};

/* The engine this thread holds the run lock of, if any. */
static __thread struct emu_engine *held;
static __thread bool engine_thread;	/* this is an engine's own thread */

/* libev drops the lock around its wait and takes it back after. */
static void loop_release(struct ev_loop *loop)
{
	struct emu_engine *e = ev_userdata(loop);

	held = NULL;
	pthread_mutex_unlock(&e->run_lock);
}

static void loop_acquire(struct ev_loop *loop)
{
	struct emu_engine *e = ev_userdata(loop);

	pthread_mutex_lock(&e->run_lock);
	held = e;
}

static void on_wake(struct ev_loop *loop, ev_async *w, int revents)
{
	struct emu_engine *e = w->data;

	pthread_mutex_lock(&e->lock);
	if (e->fn) {
		emu_engine_fn fn = e->fn;
		void *arg = e->arg;

		pthread_mutex_unlock(&e->lock);
		fn(arg);
		pthread_mutex_lock(&e->lock);
		e->fn = NULL;
		e->done = true;
		pthread_cond_broadcast(&e->done_cond);
	}
	if (e->stopping)
		ev_break(loop, EVBREAK_ALL);
	pthread_mutex_unlock(&e->lock);
}

static void *engine_main(void *p)
{
	struct emu_engine *e = p;

	engine_thread = true;
	loop_acquire(e->loop);
	ev_run(e->loop, 0);
	loop_release(e->loop);
	return NULL;
}

int emu_engine_start(struct emu_engine **out)
{
	struct emu_engine *e = calloc(1, sizeof(*e));
	sigset_t all, old;
	int rc;

	if (!e)
		return ENOMEM;
	/* A private loop: the application may use libev's default loop. */
	e->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
	if (!e->loop) {
		free(e);
		return ENOMEM;
	}
	ev_set_userdata(e->loop, e);
	ev_set_loop_release_cb(e->loop, loop_release, loop_acquire);
	pthread_mutex_init(&e->run_lock, NULL);
	pthread_mutex_init(&e->call_lock, NULL);
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->done_cond, NULL);
	ev_async_init(&e->wake, on_wake);
	e->wake.data = e;
	ev_async_start(e->loop, &e->wake);
	/* The engine thread takes no signals: the application's handlers
	 * must run on its own threads, as they would with a real NIC. But
	 * for its own faults: a SIGSEGV or SIGBUS raised by a blocked
	 * thread kills the process at once, and the engine's access to a
	 * page the application unmapped must come back as an error
	 * (net/memguard.c). A kill() of the process goes to the main
	 * thread first, which does not block them. */
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&e->thread, NULL, engine_main, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		ev_loop_destroy(e->loop);
		free(e);
		return rc;
	}
	pthread_setname_np(e->thread, "emuverbs-engine");
	*out = e;
	return 0;
}

int emu_engine_on_thread(struct emu_engine *e)
{
	return held == e;
}

bool emu_engine_try_enter(struct emu_engine *e)
{
	/* One engine at a time: a thread inside one takes no other's lock,
	 * so no two threads can each hold one and want the other's. */
	if (held || pthread_mutex_trylock(&e->run_lock))
		return false;
	held = e;
	return true;
}

void emu_engine_leave(struct emu_engine *e)
{
	bool rewatch = e->rewatch;

	e->rewatch = false;
	held = NULL;
	pthread_mutex_unlock(&e->run_lock);
	/* The loop chose how long to block before this thread changed its
	 * timers: it must wake and choose again. */
	if (rewatch)
		ev_async_send(e->loop, &e->wake);
}

void emu_engine_will_start(struct emu_engine *e)
{
	if (engine_thread)
		return;
	/* The loop's clock stopped when it blocked: a timer started from
	 * it would be due at once. */
	ev_now_update(e->loop);
	e->rewatch = true;
}

void emu_engine_sync_clock(struct emu_engine *e)
{
	if (!engine_thread)
		ev_now_update(e->loop);
}

void emu_engine_call(struct emu_engine *e, emu_engine_fn fn, void *arg)
{
	if (emu_engine_on_thread(e)) {
		fn(arg);
		return;
	}
	pthread_mutex_lock(&e->call_lock);
	pthread_mutex_lock(&e->lock);
	e->fn = fn;
	e->arg = arg;
	e->done = false;
	ev_async_send(e->loop, &e->wake);
	while (!e->done)
		pthread_cond_wait(&e->done_cond, &e->lock);
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_unlock(&e->call_lock);
}

void emu_engine_stop(struct emu_engine *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	e->stopping = true;
	ev_async_send(e->loop, &e->wake);
	pthread_mutex_unlock(&e->lock);
	pthread_join(e->thread, NULL);
	ev_async_stop(e->loop, &e->wake);
	ev_loop_destroy(e->loop);
	pthread_cond_destroy(&e->done_cond);
	pthread_mutex_destroy(&e->lock);
	pthread_mutex_destroy(&e->call_lock);
	pthread_mutex_destroy(&e->run_lock);
	free(e);
}

static void on_io(struct ev_loop *loop, ev_io *io, int revents)
{
	struct emu_watch *w = (struct emu_watch *)io;

	w->cb(w->arg);
}

struct watch_req {
	struct emu_engine *e;
	struct emu_watch *w;
};

static void do_watch(void *p)
{
	struct watch_req *r = p;

	ev_io_start(r->e->loop, &r->w->io);
}

static void do_unwatch(void *p)
{
	struct watch_req *r = p;

	ev_io_stop(r->e->loop, &r->w->io);
}

struct emu_watch *emu_engine_watch_fd(struct emu_engine *e, int fd,
				      emu_engine_fn cb, void *arg)
{
	struct emu_watch *w = calloc(1, sizeof(*w));
	struct watch_req r = { e, w };

	if (!w)
		return NULL;
	ev_io_init(&w->io, on_io, fd, EV_READ);
	w->cb = cb;
	w->arg = arg;
	emu_engine_call(e, do_watch, &r);
	return w;
}

void emu_engine_watch_set(struct emu_engine *e, struct emu_watch *w, bool on)
{
	if (on) {
		emu_engine_will_start(e);
		ev_io_start(e->loop, &w->io);
	} else {
		ev_io_stop(e->loop, &w->io);
	}
}

void emu_engine_unwatch(struct emu_engine *e, struct emu_watch *w)
{
	struct watch_req r = { e, w };

	if (!w)
		return;
	emu_engine_call(e, do_unwatch, &r);
	free(w);
}

static void nothing(void *arg)
{
}

/* The first call's iteration may run before the other callbacks that were
 * pending with it; the second iteration starts after all of them. */
void emu_engine_sync(struct emu_engine *e)
{
	if (!e || emu_engine_on_thread(e))
		return;
	emu_engine_call(e, nothing, NULL);
	emu_engine_call(e, nothing, NULL);
}

struct ev_loop *emu_engine_loop(struct emu_engine *e)
{
	return e->loop;
}

struct emu_doorbell {
	ev_async async;
	struct emu_engine *e;
	emu_engine_fn cb;
	void *arg;
};

static void on_doorbell(struct ev_loop *loop, ev_async *w, int revents)
{
	struct emu_doorbell *d = (struct emu_doorbell *)w;

	d->cb(d->arg);
}

static void do_doorbell_start(void *p)
{
	struct emu_doorbell *d = p;

	ev_async_start(d->e->loop, &d->async);
}

static void do_doorbell_stop(void *p)
{
	struct emu_doorbell *d = p;

	ev_async_stop(d->e->loop, &d->async);
}

struct emu_doorbell *emu_engine_doorbell(struct emu_engine *e,
					 emu_engine_fn cb, void *arg)
{
	struct emu_doorbell *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	ev_async_init(&d->async, on_doorbell);
	d->e = e;
	d->cb = cb;
	d->arg = arg;
	emu_engine_call(e, do_doorbell_start, d);
	return d;
}

/* ev_async_send coalesces: rings before the engine runs cost one wakeup. */
void emu_doorbell_ring(struct emu_doorbell *d)
{
	ev_async_send(d->e->loop, &d->async);
}

void emu_doorbell_free(struct emu_doorbell *d)
{
	if (!d)
		return;
	emu_engine_call(d->e, do_doorbell_stop, d);
	free(d);
}
