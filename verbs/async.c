/* Front end of asynchronous events: ibv_get_async_event takes the next one
 * from the context's queue, ibv_ack_async_event lets a destroy proceed. */
#include <errno.h>

#include "emu/device/device.h"
#include "emu/base/log.h"
#include "verbs/handle.h"

int ibv_get_async_event(struct ibv_context *context,
			struct ibv_async_event *event)
{
	if (!context || !event) {
		errno = emu_refuse(EINVAL, "ibv_get_async_event: context or "
				   "event is NULL");
		return -1;
	}
	/* The parent's events never come here: nothing to wait for. */
	if (verbs_ctx_live(context, "ibv_get_async_event")) {
		errno = EIO;
		return -1;
	}
	return emu_async_pop(&emu_ctx(context)->async, event);
}

/* Destroying a CQ, QP, SRQ or WQ waits until every event that named it has
 * been acknowledged; these counters are what the destroy waits on. */
static void ack(pthread_mutex_t *m, pthread_cond_t *c, uint32_t *count)
{
	pthread_mutex_lock(m);
	++*count;
	pthread_cond_signal(c);
	pthread_mutex_unlock(m);
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	if (!event)
		return;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		ack(&event->element.cq->mutex, &event->element.cq->cond,
		    &event->element.cq->async_events_completed);
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		ack(&event->element.qp->mutex, &event->element.qp->cond,
		    &event->element.qp->events_completed);
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		ack(&event->element.srq->mutex, &event->element.srq->cond,
		    &event->element.srq->events_completed);
		break;
	case IBV_EVENT_WQ_FATAL:
		ack(&event->element.wq->mutex, &event->element.wq->cond,
		    &event->element.wq->events_completed);
		break;
	default:
		/* Port and device events name no object to wait on. */
		break;
	}
}
