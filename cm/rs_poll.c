/* cm/rs_poll.c: progress and waiting for rsockets, and the calls built on
 * them: rpoll, rselect and the repoll (epoll) family. */

/*
 * A socket is ready by its own state, which progress brings up to date
 * from its CM channel and its CQ without blocking. To sleep, each socket
 * arms its CQ, makes progress once more (what arrived before the arm
 * raises no event), and then poll(2) waits on the CQ channel's and the
 * CM channel's descriptors together with the caller's real ones.
 */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "cm/rs.h"

int rs_progress(struct rs *rs)
{
	return rs->type == SOCK_STREAM ? rs_stream_progress(rs) :
					 rs_dgram_progress(rs);
}

short rs_revents(struct rs *rs)
{
	return rs->type == SOCK_STREAM ? rs_stream_revents(rs) :
					 rs_dgram_revents(rs);
}

void rs_arm(struct rs *rs)
{
	if (rs->cq)
		ibv_req_notify_cq(rs->cq, 0);
}

int rs_wait_fds(struct rs *rs, int fds[2])
{
	fds[0] = rs->cc ? rs->cc->fd : -1;
	fds[1] = rs->ch->fd;
	return 2;
}

void rs_drain(struct rs *rs)
{
	struct ibv_cq *cq;
	void *ctx;

	if (!rs->cc)
		return;
	/* The channel's descriptor is nonblocking: this stops at empty. */
	while (!ibv_get_cq_event(rs->cc, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
}

static uint64_t rs_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int rs_wait(struct rs *rs, int timeout_ms)
{
	struct pollfd p[2];
	int fds[2], ret;

	rs_arm(rs);
	if (rs_progress(rs))
		return 0;
	rs_wait_fds(rs, fds);
	p[0] = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	p[1] = (struct pollfd){ .fd = fds[1], .events = POLLIN };
	pthread_mutex_unlock(&rs->lock);
	ret = poll(p, 2, timeout_ms);
	pthread_mutex_lock(&rs->lock);
	if (ret < 0)
		return -1;
	rs_drain(rs);
	if (ret == 0)
		return cm_err(ETIMEDOUT);
	return 0;
}

/* ---- rpoll */

/* What fd reports now: ours from its state, 0 for one that is not. */
static short rs_poll_one(int fd, short events, bool *ours)
{
	struct rs *rs;
	short ev;

	*ours = rs_is_ours(fd);
	if (!*ours)
		return 0;
	rs = rs_get(fd);
	if (!rs) {
		*ours = false;
		return 0;
	}
	rs_progress(rs);
	ev = rs_revents(rs) & (events | POLLERR | POLLHUP);
	rs_put(rs);
	return ev;
}

/* Arm fd and add its descriptors to p; how many were added. */
static int rs_poll_arm(int fd, struct pollfd *p, bool *ready)
{
	struct rs *rs = rs_get(fd);
	int fds[2], n = 0;

	if (!rs)
		return 0;
	rs_arm(rs);
	/* Anything that came before the arm raises no event. */
	if (rs_progress(rs))
		*ready = true;
	rs_wait_fds(rs, fds);
	if (fds[0] >= 0)
		p[n++] = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	p[n++] = (struct pollfd){ .fd = fds[1], .events = POLLIN };
	rs_put(rs);
	return n;
}

static void rs_poll_drain(int fd)
{
	struct rs *rs = rs_get(fd);

	if (!rs)
		return;
	rs_drain(rs);
	rs_put(rs);
}

int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	uint64_t end = timeout > 0 ? rs_now_ms() + (uint64_t)timeout : 0;
	struct pollfd *p = NULL;
	bool *ours = NULL;
	int ret = -1;
	nfds_t i;

	if (nfds && !fds)
		return cm_err(EFAULT);
	ours = calloc(nfds ? nfds : 1, sizeof(*ours));
	p = calloc(nfds ? 2 * nfds : 1, sizeof(*p));
	if (!ours || !p) {
		errno = ENOMEM;
		goto out;
	}
	for (;;) {
		int n = 0, np = 0, wait_ms, r;
		bool ready = false;

		for (i = 0; i < nfds; i++) {
			fds[i].revents = rs_poll_one(fds[i].fd, fds[i].events,
						     &ours[i]);
			if (fds[i].revents)
				n++;
		}
		/* The real descriptors, without waiting. */
		for (i = 0; i < nfds; i++)
			if (!ours[i])
				p[np++] = fds[i];
		if (np && poll(p, (nfds_t)np, 0) > 0)
			for (i = 0, np = 0; i < nfds; i++)
				if (!ours[i]) {
					fds[i].revents = p[np++].revents;
					if (fds[i].revents)
						n++;
				}
		if (n || timeout == 0) {
			ret = n;
			goto out;
		}
		if (timeout > 0 && rs_now_ms() >= end) {
			ret = 0;
			goto out;
		}
		/* Sleep on everything at once. */
		np = 0;
		for (i = 0; i < nfds; i++)
			if (!ours[i])
				p[np++] = fds[i];
		for (i = 0; i < nfds; i++)
			if (ours[i])
				np += rs_poll_arm(fds[i].fd, p + np, &ready);
		if (ready)
			continue;
		wait_ms = timeout < 0 ? -1 : (int)(end - rs_now_ms());
		if (timeout > 0 && wait_ms < 0)
			wait_ms = 0;
		r = poll(p, (nfds_t)np, wait_ms);
		if (r < 0)
			goto out;
		for (i = 0; i < nfds; i++)
			if (ours[i])
				rs_poll_drain(fds[i].fd);
	}
out:
	free(p);
	free(ours);
	return ret;
}

int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
	    struct timeval *timeout)
{
	struct pollfd *p;
	int i, n = 0, ret, ms;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return cm_err(EINVAL);
	p = calloc(nfds ? nfds : 1, sizeof(*p));
	if (!p)
		return cm_err(ENOMEM);
	for (i = 0; i < nfds; i++) {
		short ev = 0;

		if (readfds && FD_ISSET(i, readfds))
			ev |= POLLIN;
		if (writefds && FD_ISSET(i, writefds))
			ev |= POLLOUT;
		if (exceptfds && FD_ISSET(i, exceptfds))
			ev |= POLLPRI;
		if (ev)
			p[n++] = (struct pollfd){ .fd = i, .events = ev };
	}
	ms = timeout ? (int)(timeout->tv_sec * 1000 + timeout->tv_usec / 1000)
		     : -1;
	ret = rpoll(p, (nfds_t)n, ms);
	if (ret < 0) {
		free(p);
		return -1;
	}
	if (readfds)
		FD_ZERO(readfds);
	if (writefds)
		FD_ZERO(writefds);
	if (exceptfds)
		FD_ZERO(exceptfds);
	ret = 0;
	for (i = 0; i < n; i++) {
		if (readfds && (p[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    (p[i].events & POLLIN)) {
			FD_SET(p[i].fd, readfds);
			ret++;
		}
		if (writefds && (p[i].revents & (POLLOUT | POLLERR)) &&
		    (p[i].events & POLLOUT)) {
			FD_SET(p[i].fd, writefds);
			ret++;
		}
		if (exceptfds && (p[i].revents & POLLPRI)) {
			FD_SET(p[i].fd, exceptfds);
			ret++;
		}
	}
	free(p);
	return ret;
}

/* ---- repoll: an epoll set that may hold rsockets */

/*
 * The set's number is a real epoll descriptor, which holds the real
 * descriptors; the rsockets in it are kept on a list beside it and
 * reported level-triggered (EPOLLONESHOT honoured).
 */
struct rs_ep_item {
	int fd;
	struct epoll_event ev;
	bool disabled;
};

struct rs_ep {
	struct rs_ep *next;
	int epfd;
	struct rs_ep_item *items;
	int n, cap;
};

static pthread_mutex_t rs_ep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rs_ep *rs_eps;

static struct rs_ep *rs_ep_find(int epfd)
{
	struct rs_ep *e;

	for (e = rs_eps; e; e = e->next)
		if (e->epfd == epfd)
			return e;
	return NULL;
}

int repoll_create(int flags)
{
	struct rs_ep *e = calloc(1, sizeof(*e));

	if (!e)
		return cm_err(ENOMEM);
	e->epfd = epoll_create1(flags);
	if (e->epfd < 0) {
		free(e);
		return -1;
	}
	pthread_mutex_lock(&rs_ep_lock);
	e->next = rs_eps;
	rs_eps = e;
	pthread_mutex_unlock(&rs_ep_lock);
	return e->epfd;
}

int repoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
	struct rs_ep *e;
	int i, ret = 0;

	if (!rs_is_ours(fd))
		return epoll_ctl(epfd, op, fd, event);
	if (op != EPOLL_CTL_DEL && !event)
		return cm_err(EFAULT);
	pthread_mutex_lock(&rs_ep_lock);
	e = rs_ep_find(epfd);
	if (!e) {
		ret = cm_err(EBADF);
		goto out;
	}
	for (i = 0; i < e->n && e->items[i].fd != fd; i++)
		;
	switch (op) {
	case EPOLL_CTL_ADD:
		if (i < e->n) {
			ret = cm_err(EEXIST);
			break;
		}
		if (e->n == e->cap) {
			int cap = e->cap ? 2 * e->cap : 8;
			struct rs_ep_item *t = realloc(e->items,
						       cap * sizeof(*t));

			if (!t) {
				ret = cm_err(ENOMEM);
				break;
			}
			e->items = t;
			e->cap = cap;
		}
		e->items[e->n++] = (struct rs_ep_item){ fd, *event, false };
		break;
	case EPOLL_CTL_MOD:
		if (i == e->n) {
			ret = cm_err(ENOENT);
			break;
		}
		e->items[i].ev = *event;
		e->items[i].disabled = false;
		break;
	case EPOLL_CTL_DEL:
		if (i == e->n) {
			ret = cm_err(ENOENT);
			break;
		}
		e->items[i] = e->items[--e->n];
		break;
	default:
		ret = cm_err(EINVAL);
	}
out:
	pthread_mutex_unlock(&rs_ep_lock);
	return ret;
}

int repoll_wait(int epfd, struct epoll_event *events, int maxevents,
		int timeout)
{
	uint64_t end = timeout > 0 ? rs_now_ms() + (uint64_t)timeout : 0;
	struct rs_ep *e;
	struct pollfd *p = NULL;
	int n, i, np, ret = -1;

	if (!events || maxevents <= 0)
		return cm_err(EINVAL);
	for (;;) {
		bool ready = false;

		n = 0;
		pthread_mutex_lock(&rs_ep_lock);
		e = rs_ep_find(epfd);
		if (!e) {
			pthread_mutex_unlock(&rs_ep_lock);
			return epoll_wait(epfd, events, maxevents, timeout);
		}
		for (i = 0; i < e->n && n < maxevents; i++) {
			struct rs_ep_item *it = &e->items[i];
			bool ours;
			short rev;

			if (it->disabled)
				continue;
			rev = rs_poll_one(it->fd, (short)it->ev.events, &ours);
			if (!rev)
				continue;
			events[n].events = (uint32_t)rev;
			events[n++].data = it->ev.data;
			if (it->ev.events & EPOLLONESHOT)
				it->disabled = true;
		}
		if (n < maxevents) {
			int r = epoll_wait(epfd, events + n, maxevents - n, 0);

			if (r > 0)
				n += r;
		}
		if (n || timeout == 0 ||
		    (timeout > 0 && rs_now_ms() >= end)) {
			pthread_mutex_unlock(&rs_ep_lock);
			ret = n;
			break;
		}
		free(p);
		p = calloc(2 * e->n + 1, sizeof(*p));
		if (!p) {
			pthread_mutex_unlock(&rs_ep_lock);
			errno = ENOMEM;
			break;
		}
		p[0] = (struct pollfd){ .fd = epfd, .events = POLLIN };
		np = 1;
		for (i = 0; i < e->n; i++)
			if (!e->items[i].disabled)
				np += rs_poll_arm(e->items[i].fd, p + np,
						  &ready);
		pthread_mutex_unlock(&rs_ep_lock);
		if (ready)
			continue;
		if (poll(p, (nfds_t)np, timeout < 0 ? -1 :
				(int)(end > rs_now_ms() ? end - rs_now_ms() :
							  0)) < 0)
			break;
		pthread_mutex_lock(&rs_ep_lock);
		e = rs_ep_find(epfd);
		for (i = 0; e && i < e->n; i++)
			rs_poll_drain(e->items[i].fd);
		pthread_mutex_unlock(&rs_ep_lock);
	}
	free(p);
	return ret;
}
