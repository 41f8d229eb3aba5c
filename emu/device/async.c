/* Asynchronous events of one context: producers are the engine and control
 * paths, the consumer is ibv_get_async_event on the application's thread. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "emu/device/async.h"

int emu_async_init(struct emu_async *a)
{
	memset(a, 0, sizeof(*a));
	/* Semaphore mode: each read takes exactly one event, so a program
	 * that polls the fd and reads one event at a time sees them all. */
	a->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (a->fd < 0)
		return errno;
	pthread_mutex_init(&a->lock, NULL);
	return 0;
}

void emu_async_fini(struct emu_async *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	pthread_mutex_destroy(&a->lock);
}

int emu_async_push(struct emu_async *a, const struct ibv_async_event *ev)
{
	uint64_t one = 1;

	pthread_mutex_lock(&a->lock);
	if (a->tail - a->head >= EMU_ASYNC_RING) {
		a->dropped++;
		pthread_mutex_unlock(&a->lock);
		return ENOSPC;
	}
	a->ring[a->tail % EMU_ASYNC_RING] = *ev;
	a->tail++;
	pthread_mutex_unlock(&a->lock);
	/* Only after the event is in the ring, so a reader woken by the
	 * counter always finds one. */
	if (write(a->fd, &one, sizeof(one)) != sizeof(one))
		return errno;
	return 0;
}

/* A withdrawn entry stays in the ring (its count is in the eventfd) and is
 * skipped by the reader; no real event has this type. */
#define EMU_ASYNC_WITHDRAWN ((enum ibv_event_type)-1)

/* Events whose element is an object pointer (the rest carry a port). */
static bool names_object(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_CQ_ERR:
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
	case IBV_EVENT_WQ_FATAL:
		return true;
	default:
		return false;
	}
}

unsigned int emu_async_cancel(struct emu_async *a, const void *obj)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&a->lock);
	for (i = a->head; i != a->tail; i++) {
		struct ibv_async_event *ev = &a->ring[i % EMU_ASYNC_RING];

		/* The element union's object members share one pointer. */
		if (names_object(ev->event_type) &&
		    (const void *)ev->element.qp == obj) {
			ev->event_type = EMU_ASYNC_WITHDRAWN;
			ev->element.qp = NULL;
			n++;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return n;
}

int emu_async_pop(struct emu_async *a, struct ibv_async_event *ev)
{
	uint64_t n;
	ssize_t r;

	for (;;) {
		do
			r = read(a->fd, &n, sizeof(n));
		while (r < 0 && errno == EINTR);
		if (r != sizeof(n))
			return -1;
		pthread_mutex_lock(&a->lock);
		*ev = a->ring[a->head % EMU_ASYNC_RING];
		a->head++;
		pthread_mutex_unlock(&a->lock);
		if (ev->event_type != EMU_ASYNC_WITHDRAWN)
			return 0;
	}
}
