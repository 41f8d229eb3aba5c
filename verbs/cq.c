/* Front end of completion queues and channels: argument checks and errno
 * conventions of the CQ verbs; the ring and events live in emu/objects/cq.c. */
#include <errno.h>
#include <stddef.h>

#include "emu/objects/cq.h"
#include "emu/base/engine.h"
#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/pdom.h"
#include "verbs/err.h"
#include "verbs/handle.h"
#include "verbs/ops.h"

static uint32_t max_cqe(struct ibv_context *context)
{
	return emu_ctx(context)->dev->cfg.limits.max_cqe;
}

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct emu_comp_channel *ch;
	int rc;

	if (!context)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_comp_channel: "
					     "context is NULL"));
	rc = verbs_ctx_live(context, "ibv_create_comp_channel");
	if (rc)
		return verbs_null(rc);
	rc = emu_comp_channel_create(emu_ctx(context), &ch);
	if (rc)
		return verbs_null(rc);
	return &ch->ibv;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	int rc;

	if (!channel)
		return verbs_ret(emu_refuse(EINVAL, "ibv_destroy_comp_channel: "
					    "channel is NULL"));
	if (verbs_ctx_live(channel->context, "ibv_destroy_comp_channel"))
		return verbs_ret(EIO);
	rc = emu_comp_channel_destroy(to_emu_channel(channel));
	if (rc == EBUSY)
		emu_log(EMU_LOG_VERBS, "ibv_destroy_comp_channel: CQs still "
			"use the channel");
	return verbs_ret(rc);
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		     void **cq_context)
{
	struct emu_cq *ecq;

	if (!channel || !cq || !cq_context) {
		errno = emu_refuse(EINVAL, "ibv_get_cq_event: channel, cq or "
				   "cq_context is NULL");
		return -1;
	}
	/* The parent's engine, which would signal it, is not here. */
	if (verbs_ctx_live(channel->context, "ibv_get_cq_event")) {
		errno = EIO;
		return -1;
	}
	if (emu_comp_channel_get(to_emu_channel(channel), &ecq))
		return -1;
	*cq = emu_cq_ibv(ecq);
	*cq_context = (*cq)->cq_context;
	return 0;
}

/* As rdma-core: the count ibv_destroy_cq waits on, under the CQ's mutex. */
void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (!cq || verbs_obj_live(cq, EMU_OBJ_CQ, "ibv_ack_cq_events", "cq"))
		return;
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* The checks both creation verbs share; 0 or an errno value. */
static int check_common(struct ibv_context *context, uint32_t cqe,
			struct ibv_comp_channel *channel, uint32_t comp_vector)
{
	int rc = verbs_ctx_live(context, "ibv_create_cq");

	if (rc)
		return rc;
	if (cqe < 1 || cqe > max_cqe(context))
		return emu_refuse(EINVAL, "ibv_create_cq: cqe %u not in "
				  "1..max_cqe %u", cqe, max_cqe(context));
	if (comp_vector >= (uint32_t)context->num_comp_vectors)
		return emu_refuse(EINVAL, "ibv_create_cq: comp_vector %u >= "
				  "num_comp_vectors %d", comp_vector,
				  context->num_comp_vectors);
	if (channel && channel->context != context)
		return emu_refuse(EINVAL, "ibv_create_cq: channel of another "
				  "context");
	return 0;
}

static struct emu_cq *create(struct ibv_context *context,
			     struct emu_cq_attr *attr,
			     struct ibv_comp_channel *channel)
{
	struct emu_cq *cq;
	int rc;

	attr->max_cqe = max_cqe(context);
	attr->channel = channel ? to_emu_channel(channel) : NULL;
	rc = emu_cq_create(emu_ctx(context), attr, &cq);
	if (rc)
		return verbs_null(rc);
	return cq;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
			     void *cq_context, struct ibv_comp_channel *channel,
			     int comp_vector)
{
	/* A plain CQ is an extended one reporting the standard fields, so
	 * ibv_cq_ex accessors work on it too. */
	struct emu_cq_attr attr = {
		.cq_context = cq_context,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct emu_cq *cq;
	int rc;

	if (!context)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_cq: context "
					     "is NULL"));
	if (cqe < 1 || comp_vector < 0)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_cq: cqe %d "
					     "or comp_vector %d negative or "
					     "0", cqe, comp_vector));
	rc = check_common(context, (uint32_t)cqe, channel,
			  (uint32_t)comp_vector);
	if (rc)
		return verbs_null(rc);
	attr.cqe = (uint32_t)cqe;
	cq = create(context, &attr, channel);
	return cq ? emu_cq_ibv(cq) : NULL;
}

#define CQ_INIT_ATTR_KNOWN \
	(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD)
#define CQ_FLAGS_SUPPORTED \
	(IBV_CREATE_CQ_ATTR_SINGLE_THREADED | IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)

struct ibv_cq_ex *emu_verbs_create_cq_ex(struct ibv_context *context,
					 struct ibv_cq_init_attr_ex *ia)
{
	struct emu_cq_attr attr = {0};
	struct emu_cq *cq;
	int rc;

	if (!context || !ia)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_cq_ex: "
					     "context or cq_attr is NULL"));
	if (ia->comp_mask & ~(uint32_t)CQ_INIT_ATTR_KNOWN)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_cq_ex: "
					     "comp_mask %#x has unknown bits",
					     ia->comp_mask));
	/* rdma-core refuses the fields a provider cannot report with
	 * EOPNOTSUPP; we report the standard ones, for tag-matching SRQs
	 * the TM information, and completion timestamps (emu/base/clock.c). */
	if (ia->wc_flags & ~((uint64_t)IBV_WC_STANDARD_FLAGS |
			     IBV_WC_EX_WITH_TM_INFO |
			     IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			     IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK))
		return verbs_null(emu_refuse(EOPNOTSUPP, "ibv_create_cq_ex: "
					     "wc_flags %#llx: only the "
					     "standard fields, TM info and "
					     "timestamps",
					     (unsigned long long)
					     ia->wc_flags));
	if (ia->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		if (ia->flags & ~(uint32_t)CQ_FLAGS_SUPPORTED)
			return verbs_null(emu_refuse(EOPNOTSUPP,
						     "ibv_create_cq_ex: flags "
						     "%#x not supported",
						     ia->flags));
		attr.flags = ia->flags;
	}
	/* A CQ on a parent domain takes its ring from the domain's
	 * allocators; anything else given there is EINVAL, as on mlx5
	 * (mlx5_create_cq_ex: to_mparent_domain() NULL). */
	if (ia->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		if (!ia->parent_domain)
			return verbs_null(emu_refuse(EINVAL,
				"ibv_create_cq_ex: parent_domain is NULL"));
		rc = verbs_obj_live(ia->parent_domain, EMU_OBJ_PD,
				    "ibv_create_cq_ex", "parent_domain");
		if (rc)
			return verbs_null(rc);
		attr.pdom = emu_pdom_of(ia->parent_domain);
		if (!attr.pdom || ia->parent_domain->context != context)
			return verbs_null(emu_refuse(EINVAL,
				"ibv_create_cq_ex: parent_domain is not a "
				"parent domain of this context"));
	}
	rc = check_common(context, ia->cqe, ia->channel, ia->comp_vector);
	if (rc)
		return verbs_null(rc);
	attr.cqe = ia->cqe;
	attr.cq_context = ia->cq_context;
	attr.wc_flags = ia->wc_flags;
	cq = create(context, &attr, ia->channel);
	return cq ? &cq->ibv : NULL;
}

int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	int rc;

	if (!cq)
		return verbs_ret(emu_refuse(EINVAL, "ibv_resize_cq: cq is "
					    "NULL"));
	/* The kernel's command goes through write(): EINVAL for any CQ
	 * its handle does not name. */
	rc = verbs_obj_find_wr(NULL, cq, EMU_OBJ_CQ, "ibv_resize_cq", "cq");
	if (rc)
		return verbs_ret(rc);
	if (cqe < 1 || (uint32_t)cqe > max_cqe(cq->context))
		return verbs_ret(emu_refuse(EINVAL, "ibv_resize_cq: cqe %d "
					    "not in 1..max_cqe %u", cqe,
					    max_cqe(cq->context)));
	/* Shrinking below what the CQ holds fails; "holds" includes the
	 * completions of work the application already handed over. */
	emu_engine_sync(emu_ctx(cq->context)->dev->engine);
	rc = emu_cq_resize(to_emu_cq(cq), (uint32_t)cqe, max_cqe(cq->context));
	if (rc == EINVAL)
		emu_log(EMU_LOG_VERBS, "ibv_resize_cq: cqe %d < the "
			"completions the CQ holds", cqe);
	return verbs_ret(rc);
}

/*
 * A CQ whose handle names nothing is refused, where mlx5 arms it anyway
 * (the doorbell needs no handle, so nothing checks it): the kernel's own
 * command, which rxe's provider sends, finds no such CQ and answers
 * EINVAL, and a program that corrupted or mixed up its CQ learns it here
 * rather than by waiting for an event that cannot come (doc/semantics.md).
 * A CQ without a completion channel arms as mlx5 and the kernel arm it:
 * it succeeds, and no event can follow.
 */
int emu_verbs_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	int rc;

	if (!cq)
		return verbs_ret(emu_refuse(EINVAL, "ibv_req_notify_cq: cq is "
					    "NULL"));
	rc = verbs_obj_find_wr(NULL, cq, EMU_OBJ_CQ, "ibv_req_notify_cq",
			       "cq");
	if (rc)
		return verbs_ret(rc);
	return emu_cq_req_notify(cq, solicited_only);
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	int rc;

	if (!cq)
		return verbs_ret(emu_refuse(EINVAL, "ibv_destroy_cq: cq is "
					    "NULL"));
	rc = verbs_obj_find(NULL, cq, EMU_OBJ_CQ, "ibv_destroy_cq", "cq");
	if (rc)
		return verbs_ret(rc);
	rc = emu_cq_destroy(to_emu_cq(cq));
	if (rc == EBUSY)
		emu_log(EMU_LOG_VERBS, "ibv_destroy_cq: QPs or SRQs still use "
			"the CQ");
	return verbs_ret(rc);
}
