/* cm/core.c: the connection manager's one lock and its thread. The thread
 * waits on QP1 completion channels, loopback rendezvous and liveness
 * sockets and the earliest CM timer, and handles each under the lock, as
 * the kernel's CM work queue does for a real device. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "cm/cm.h"
#include "cm/core.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t thread;
static bool running;
static int epfd = -1, wakefd = -1;

/* One per QP1 channel, listener and liveness link: a server with a
 * thousand peer processes holds a thousand links, so the table grows. */
static struct watch {
	int fd;
	void (*fn)(int fd, void *arg);
	void *arg;
} *watches;
static unsigned int nwatches;

void cm_lock(void)
{
	pthread_mutex_lock(&lock);
}

void cm_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

uint64_t cm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void cm_kick(void)
{
	uint64_t one = 1;

	if (wakefd >= 0 && write(wakefd, &one, sizeof(one)) < 0)
		cm_log("cannot wake the CM thread: %s", strerror(errno));
}

int cm_watch(int fd, void (*fn)(int fd, void *arg), void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct watch *w;
	unsigned int i, n;
	int err = cm_thread_start();

	if (err)
		return err;
	for (i = 0; i < nwatches && watches[i].fn; i++)
		;
	if (i == nwatches) {
		n = nwatches ? 2 * nwatches : 64;
		w = realloc(watches, n * sizeof(*w));
		if (!w)
			return ENOMEM;
		memset(w + nwatches, 0, (n - nwatches) * sizeof(*w));
		watches = w;
		nwatches = n;
	}
	ev.data.u32 = (uint32_t)i;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev))
		return errno;
	watches[i] = (struct watch){ fd, fn, arg };
	return 0;
}

void cm_unwatch(int fd)
{
	unsigned int i;

	for (i = 0; i < nwatches; i++)
		if (watches[i].fn && watches[i].fd == fd) {
			epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
			watches[i].fn = NULL;
		}
}

/* Run the timers that are due; the time to wait for the next, in ms. */
static int run_timers(void)
{
	uint64_t now = cm_now_ns(), next = UINT64_MAX;
	struct cma_id *c;
	bool again;

	do {
		again = false;
		for (c = cma_ids; c; c = c->next) {
			if (c->cm.timer == CM_TIMER_NONE)
				continue;
			if (c->cm.deadline <= now) {
				ibcm_timer(c);
				/* It may have freed ids: walk again. */
				again = true;
				break;
			}
		}
	} while (again);
	for (c = cma_ids; c; c = c->next)
		if (c->cm.timer != CM_TIMER_NONE && c->cm.deadline < next)
			next = c->cm.deadline;
	if (next == UINT64_MAX)
		return -1;
	return (int)((next - now) / 1000000 + 1);
}

static void *cm_thread(void *unused)
{
	struct epoll_event evs[16];
	uint64_t v;
	int n, i, wait_ms;

	(void)unused;
	for (;;) {
		cm_lock();
		wait_ms = run_timers();
		cm_unlock();
		n = epoll_wait(epfd, evs, 16, wait_ms);
		if (n < 0 && errno != EINTR)
			return NULL;
		cm_lock();
		for (i = 0; i < n; i++) {
			uint32_t w = evs[i].data.u32;

			if (w == UINT32_MAX) {
				if (read(wakefd, &v, sizeof(v)) < 0)
					v = 0;
				continue;
			}
			if (w < nwatches && watches[w].fn)
				watches[w].fn(watches[w].fd, watches[w].arg);
		}
		cm_unlock();
	}
	return NULL;
}

/* Under the lock. */
int cm_thread_start(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = UINT32_MAX };
	sigset_t all, old;
	int err;

	if (running)
		return 0;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (epfd < 0 || wakefd < 0 ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, wakefd, &ev)) {
		err = errno;
		goto fail;
	}
	/* The program's signals are its own threads' business. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&thread, NULL, cm_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto fail;
	pthread_detach(thread);
	running = true;
	/* Without it peers see our death only by their QP errors. */
	if (cm_live_listen())
		cm_log("no liveness socket: %s", strerror(errno));
	return 0;
fail:
	if (epfd >= 0)
		close(epfd);
	if (wakefd >= 0)
		close(wakefd);
	epfd = wakefd = -1;
	return err;
}
