/* Asynchronous event queue of one open context: a bounded ring behind an
 * eventfd, so async_fd works with poll/epoll and honours O_NONBLOCK. */
#ifndef EMU_ASYNC_H
#define EMU_ASYNC_H

#include <pthread.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define EMU_ASYNC_RING 1024

struct emu_async {
	pthread_mutex_t lock;
	int fd;				/* eventfd, semaphore mode */
	unsigned int head, tail;	/* ring indexes, free-running */
	uint64_t dropped;		/* events lost to a full ring */
	struct ibv_async_event ring[EMU_ASYNC_RING];
};

/* 0, or a positive errno (that of eventfd). */
int emu_async_init(struct emu_async *a);
void emu_async_fini(struct emu_async *a);
/* Queue an event; 0, or a positive errno: ENOSPC when the ring is full
 * (counted), or that of the eventfd write. */
int emu_async_push(struct emu_async *a, const struct ibv_async_event *ev);
/* Withdraw the queued events that name obj (a QP, CQ, SRQ or WQ being
 * destroyed): they are never delivered, as the kernel drops them. Returns
 * how many were withdrawn. */
unsigned int emu_async_cancel(struct emu_async *a, const void *obj);
/* Take the oldest event, blocking unless the fd was made non-blocking.
 * 0, or -1 with errno (EAGAIN for a non-blocking fd with nothing queued). */
int emu_async_pop(struct emu_async *a, struct ibv_async_event *ev);

#endif
