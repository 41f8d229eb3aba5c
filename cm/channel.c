/* cm/channel.c: event channels and their events. A channel's fd is an
 * eventfd semaphore holding the number of queued events, so poll and epoll
 * see it readable exactly when rdma_get_cm_event would not block, and
 * O_NONBLOCK set with fcntl makes rdma_get_cm_event fail with EAGAIN. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <emuverbs/trace.h>

#include "cm/cm.h"
#include "cm/core.h"

static pthread_cond_t acked = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t ack_lock = PTHREAD_MUTEX_INITIALIZER;

struct cm_channel *cm_channel_new(void)
{
	struct cm_channel *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return NULL;
	ch->pub.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->pub.fd < 0) {
		free(ch);
		return NULL;
	}
	ch->tail = &ch->head;
	return ch;
}

void cm_channel_free(struct cm_channel *ch)
{
	struct cm_event *e;

	while ((e = ch->head)) {
		ch->head = e->next;
		free(e);
	}
	close(ch->pub.fd);
	free(ch);
}

struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct cm_channel *ch;
	int err;

	cm_lock();
	err = cm_devs_open();
	cm_unlock();
	if (err)
		return cm_err_null(err);
	ch = cm_channel_new();
	if (!ch)
		return cm_err_null(errno ? errno : ENOMEM);
	return &ch->pub;
}

void cm_channel_release(struct cm_channel *ch)
{
	uint64_t n = (uint64_t)ch->readers;

	if (!ch->readers) {
		cm_channel_free(ch);
		return;
	}
	/* Wake them: rping's event thread still waits when main destroys
	 * the channel, and must not find it freed. */
	ch->dead = true;
	if (write(ch->pub.fd, &n, sizeof(n)) < 0)
		cm_log("rdma_destroy_event_channel: wake: %s",
		       strerror(errno));
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct cm_channel *ch;

	if (!channel)
		return;
	ch = container_of(channel, struct cm_channel, pub);
	cm_lock();
	if (ch->refs) {
		/* rdma-core's man page: destroy the ids first. */
		cm_log("rdma_destroy_event_channel: %d ids still use it",
		       ch->refs);
		cm_unlock();
		return;
	}
	cm_channel_release(ch);
	cm_unlock();
}

struct cm_event *cma_post(struct cma_id *id, enum rdma_cm_event_type type,
			  int status, const void *pdata, size_t len)
{
	struct cm_channel *ch = id->chan;
	struct cm_event *e = calloc(1, sizeof(*e));
	uint64_t one = 1;

	if (!e) {
		cm_log("no memory for a %s event", rdma_event_str(type));
		return NULL;
	}
	e->ev.id = &id->id;
	e->ev.event = type;
	e->ev.status = status;
	e->owner = id;
	if (len > sizeof(e->pdata))
		len = sizeof(e->pdata);
	if (len && pdata) {
		memcpy(e->pdata, pdata, len);
		e->ev.param.conn.private_data = e->pdata;
		e->ev.param.conn.private_data_len = (uint8_t)len;
	}
	*ch->tail = e;
	ch->tail = &e->next;
	if (write(ch->pub.fd, &one, sizeof(one)) < 0)
		cm_log("event channel write: %s", strerror(errno));
	cm_log("id %p: event %s status %d", (void *)id,
	       rdma_event_str(type), status);
	/* Into the device's event trace, when one runs. The QP is named
	 * by the number kept, not through id.qp: a program may have freed
	 * it with ibv_destroy_qp (rping does) before its peer's DREQ or
	 * DREP comes in on the CM thread. */
	emuverbs_trace_cm(rdma_event_str(type), status, id->qpn,
			  &id->id.route.addr.src_addr,
			  &id->id.route.addr.dst_addr);
	return e;
}

/* Under the lock. Drops the events of id that nobody has read yet. */
void cm_channel_purge(struct cma_id *id)
{
	struct cm_channel *ch = id->chan;
	struct cm_event **pp = &ch->head, *e;

	while ((e = *pp)) {
		if (e->owner == id) {
			*pp = e->next;
			free(e);
			continue;
		}
		pp = &e->next;
	}
	ch->tail = &ch->head;
	while (*ch->tail)
		ch->tail = &(*ch->tail)->next;
}

static struct cm_event *pop(struct cm_channel *ch)
{
	struct cm_event *e = ch->head;

	if (e) {
		ch->head = e->next;
		if (!ch->head)
			ch->tail = &ch->head;
		e->next = NULL;
	}
	return e;
}

/* Under the lock: what rdma-core's librdmacm does to an event before the
 * program sees it. */
static void deliver(struct cm_event *e)
{
	struct cma_id *c = e->owner;

	/* A connect request counts against its listener, as in rdma-core. */
	if (e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST && c->listener) {
		e->ev.listen_id = &c->listener->id;
		c->listener->queued--;
		e->owner = c->listener;
		c->listener = NULL;
	}
	e->owner->events_out++;
}

int rdma_get_cm_event(struct rdma_event_channel *channel,
		      struct rdma_cm_event **event)
{
	struct cm_channel *ch;
	struct cm_event *e;
	uint64_t v;

	if (!channel || !event)
		return cm_refuse(EINVAL, "rdma_get_cm_event: NULL argument");
	ch = container_of(channel, struct cm_channel, pub);
	cm_lock();
	ch->readers++;
	cm_unlock();
	for (;;) {
		ssize_t n = read(ch->pub.fd, &v, sizeof(v));
		int err = errno;

		cm_lock();
		if (ch->dead) {
			/* Destroyed while we waited. With rdma-core this
			 * thread would stay in the kernel's read for good
			 * (programs such as rping rely on it and exit 0):
			 * let go of the channel and wait for the exit too. */
			if (!--ch->readers)
				cm_channel_free(ch);
			cm_unlock();
			cm_log("rdma_get_cm_event: the channel was destroyed "
			       "under a waiting thread; it waits for good");
			for (;;)
				pause(); /* a cancellation point */
		}
		if (n != (ssize_t)sizeof(v)) {
			ch->readers--;
			cm_unlock();
			return cm_err(err); /* EAGAIN, EINTR */
		}
		e = pop(ch);
		if (e) {
			deliver(e);
			ch->readers--;
		}
		cm_unlock();
		/* A destroyed id's events were dropped: read on. */
		if (e)
			break;
	}
	*event = &e->ev;
	if (e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST &&
	    to_cma(e->ev.listen_id)->sync) {
		/* A synchronous listener's children are synchronous. */
		if (rdma_migrate_id(e->ev.id, NULL)) {
			rdma_ack_cm_event(&e->ev);
			return -1;
		}
	}
	return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct cm_event *e;

	if (!event)
		return cm_refuse(EINVAL, "rdma_ack_cm_event: NULL event");
	e = container_of(event, struct cm_event, ev);
	cm_lock();
	pthread_mutex_lock(&ack_lock);
	e->owner->events_out--;
	pthread_cond_broadcast(&acked);
	pthread_mutex_unlock(&ack_lock);
	cm_unlock();
	free(e);
	return 0;
}

/* Under the lock; returns with it held once id has no event out. */
void cm_wait_acked(struct cma_id *c)
{
	while (c->events_out) {
		pthread_mutex_lock(&ack_lock);
		cm_unlock();
		pthread_cond_wait(&acked, &ack_lock);
		pthread_mutex_unlock(&ack_lock);
		cm_lock();
	}
}

int cma_sync_wait(struct cma_id *c)
{
	struct rdma_cm_event *ev;

	if (c->id.event) {
		rdma_ack_cm_event(c->id.event);
		c->id.event = NULL;
	}
	if (rdma_get_cm_event(c->id.channel, &ev))
		return -1;
	c->id.event = ev;
	if (!ev->status)
		return 0;
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		return cm_err(ECONNREFUSED);
	return cm_err(ev->status < 0 ? -ev->status : ev->status);
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct cm_channel *to, *from;
	struct cma_id *c;
	struct cm_event **pp, *e, *moved = NULL, **mt = &moved;
	uint64_t one = 1;

	if (!id)
		return cm_refuse(EINVAL, "rdma_migrate_id: NULL id");
	c = to_cma(id);
	if (channel) {
		to = container_of(channel, struct cm_channel, pub);
	} else {
		to = cm_channel_new();
		if (!to)
			return cm_err(errno ? errno : ENOMEM);
	}
	cm_lock();
	from = c->chan;
	/* The id's queued events go with it, as the kernel moves them. */
	for (pp = &from->head; (e = *pp);) {
		if (e->owner == c) {
			*pp = e->next;
			e->next = NULL;
			*mt = e;
			mt = &e->next;
			/* Its count stays behind: a reader that takes it finds
			 * nothing and reads on (reading here could block
			 * under the lock). */
			continue;
		}
		pp = &e->next;
	}
	from->tail = &from->head;
	while (*from->tail)
		from->tail = &(*from->tail)->next;
	for (e = moved; e; e = e->next) {
		*to->tail = e;
		to->tail = &e->next;
		if (write(to->pub.fd, &one, sizeof(one)) < 0)
			cm_log("rdma_migrate_id: channel count");
	}
	c->chan = to;
	id->channel = &to->pub;
	to->refs++;
	from->refs--;
	if (c->sync && !from->refs)
		cm_channel_release(from);
	cm_unlock();
	c->sync = channel == NULL;
	return 0;
}
