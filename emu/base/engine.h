/* The engine: one thread per open device running a libev loop, which does
 * everything that must happen without the application (events, timers). */
#ifndef EMU_ENGINE_H
#define EMU_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct emu_engine;
struct emu_watch;

/* CLOCK_MONOTONIC in ns: the clock of the deadlines engine code keeps
 * beside libev's timers (which an application thread cannot read). */
static inline uint64_t emu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef void (*emu_engine_fn)(void *arg);

/* 0 and *out, or a positive errno. */
int emu_engine_start(struct emu_engine **out);
/* Stops the thread after the current callback; watches must be gone. */
void emu_engine_stop(struct emu_engine *e);

/* Run fn(arg) on the engine thread and wait until it has returned; runs it
 * directly when called from the engine thread itself. */
void emu_engine_call(struct emu_engine *e, emu_engine_fn fn, void *arg);

/* Call cb(arg) on the engine thread whenever fd is readable. */
struct emu_watch *emu_engine_watch_fd(struct emu_engine *e, int fd,
				      emu_engine_fn cb, void *arg);
void emu_engine_unwatch(struct emu_engine *e, struct emu_watch *w);
/* Stop or restart calling a watch's callback (engine thread). */
void emu_engine_watch_set(struct emu_engine *e, struct emu_watch *w, bool on);

/* True on the engine thread and on a thread that has entered the engine:
 * where the engine's state may be touched. */
int emu_engine_on_thread(struct emu_engine *e);
/* If the engine is idle (blocked, or between callbacks), make its state the
 * calling thread's and return true, until emu_engine_leave(); never waits.
 * False on a thread already inside an engine. */
bool emu_engine_try_enter(struct emu_engine *e);
void emu_engine_leave(struct emu_engine *e);
/* Call before starting a timer or prepare watcher: from an entered thread,
 * brings the loop's clock up to date and has the loop wake when the thread
 * leaves, to take the new watcher into account. */
void emu_engine_will_start(struct emu_engine *e);
/* The clock update alone: for a timer that may wait for the loop's next
 * wake-up, which something else (a timer of its own) brings soon. */
void emu_engine_sync_clock(struct emu_engine *e);

/* Return once the engine has run every callback that was already due when
 * this was called (doorbells rung, sockets readable): what the emulated
 * HCA was handed before now, it has acted on. */
void emu_engine_sync(struct emu_engine *e);

/* The libev loop, for code running on the engine thread only (timers). */
struct ev_loop *emu_engine_loop(struct emu_engine *e);

/* A doorbell: any thread rings it, cheaply and without waiting, and the
 * engine thread then calls cb(arg) once for one or more rings. */
struct emu_doorbell;
struct emu_doorbell *emu_engine_doorbell(struct emu_engine *e,
					 emu_engine_fn cb, void *arg);
void emu_doorbell_ring(struct emu_doorbell *d);
void emu_doorbell_free(struct emu_doorbell *d);

#endif
