/* The verbs counters (ibv_create_counters, ibv_attach_counters_point_flow,
 * ibv_read_counters, ibv_destroy_counters) and the one kind of flow they
 * are bound to here: rdma-core attaches counters to flows only, and a flow
 * is made on a QP (ibv_create_flow), so a flow with a count action and no
 * match counts every packet its QP receives. Flows that match (steering)
 * are not emulated. Errnos as mlx5 and the kernel's uverbs give them;
 * doc/counters.md says why this is the choice. */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "emu/observe/counters.h"
#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/qp.h"
#include "verbs/err.h"
#include "verbs/handle.h"
#include "verbs/ops.h"

/* One attach point: where in the values a description is summed. */
struct point {
	uint32_t index;
	enum ibv_counter_description desc;
};

struct vflow;

struct vcounters {
	struct ibv_counters ibv;	/* must stay first */
	pthread_mutex_t lock;
	struct point *points;
	unsigned int npoints;
	uint64_t nvalues;		/* the highest index + 1 */
	unsigned int bound;		/* flows using it */
	struct vflow *flows;
	/* What flows counted before they were destroyed: the values only
	 * grow, from 0 when the counters were made. */
	uint64_t retired[2];
};

struct vflow {
	struct ibv_flow ibv;		/* must stay first */
	struct vcounters *c;
	struct emu_qp *qp;
	uint64_t base[2];		/* the QP's counts when it was made */
	struct vflow *next;
};

static struct vcounters *to_vc(struct ibv_counters *c)
{
	return (struct vcounters *)c;
}

struct ibv_counters *emu_verbs_create_counters(struct ibv_context *context,
					       struct ibv_counters_init_attr *a)
{
	struct vcounters *c;

	if (!context || !a)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_counters: "
					     "NULL %s", context ? "init_attr" :
					     "context"));
	if (verbs_ctx_live(context, "ibv_create_counters"))
		return verbs_null(EIO);
	if (a->comp_mask)
		return verbs_null(emu_refuse(EOPNOTSUPP, "ibv_create_counters: "
					     "comp_mask 0x%x", a->comp_mask));
	c = calloc(1, sizeof(*c));
	if (!c)
		return verbs_null(ENOMEM);
	pthread_mutex_init(&c->lock, NULL);
	c->ibv.context = context;
	return &c->ibv;
}

int emu_verbs_destroy_counters(struct ibv_counters *counters)
{
	struct vcounters *c = to_vc(counters);

	if (!counters)
		return verbs_ret(emu_refuse(EINVAL, "ibv_destroy_counters: "
					    "NULL counters"));
	if (verbs_ctx_live(counters->context, "ibv_destroy_counters"))
		return verbs_ret(EIO);
	pthread_mutex_lock(&c->lock);
	if (c->bound) {
		pthread_mutex_unlock(&c->lock);
		return verbs_ret(emu_refuse(EBUSY, "ibv_destroy_counters: %u "
					    "flows use them", c->bound));
	}
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_destroy(&c->lock);
	free(c->points);
	free(c);
	return 0;
}

int emu_verbs_attach_counters_point_flow(struct ibv_counters *counters,
					 struct ibv_counter_attach_attr *a,
					 struct ibv_flow *flow)
{
	struct vcounters *c = to_vc(counters);
	struct point *p;

	/* Static attach only, as mlx5: points first, then the flow. */
	if (flow)
		return verbs_ret(emu_refuse(EOPNOTSUPP, "ibv_attach_counters_"
					    "point_flow: only before the flow "
					    "is made (flow must be NULL)"));
	if (!counters || !a)
		return verbs_ret(emu_refuse(EINVAL, "ibv_attach_counters_"
					    "point_flow: NULL %s", a ?
					    "counters" : "attr"));
	if (a->comp_mask)
		return verbs_ret(emu_refuse(EOPNOTSUPP, "ibv_attach_counters_"
					    "point_flow: comp_mask 0x%x",
					    a->comp_mask));
	if (a->counter_desc != IBV_COUNTER_PACKETS &&
	    a->counter_desc != IBV_COUNTER_BYTES)
		return verbs_ret(emu_refuse(EOPNOTSUPP, "ibv_attach_counters_"
					    "point_flow: counter_desc %d",
					    (int)a->counter_desc));
	pthread_mutex_lock(&c->lock);
	if (c->bound) {
		pthread_mutex_unlock(&c->lock);
		return verbs_ret(emu_refuse(EBUSY, "ibv_attach_counters_point_"
					    "flow: bound to a flow already"));
	}
	p = realloc(c->points, (c->npoints + 1) * sizeof(*p));
	if (!p) {
		pthread_mutex_unlock(&c->lock);
		return verbs_ret(ENOMEM);
	}
	c->points = p;
	c->points[c->npoints].index = a->index;
	c->points[c->npoints++].desc = a->counter_desc;
	if ((uint64_t)a->index + 1 > c->nvalues)
		c->nvalues = (uint64_t)a->index + 1;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* What f's QP has received since f was made (lock held). */
static void flow_counts(const struct vflow *f, uint64_t out[2])
{
	emu_cnt_qp_rx(f->qp, &out[0], &out[1]);
	out[0] -= f->base[0];
	out[1] -= f->base[1];
}

int emu_verbs_read_counters(struct ibv_counters *counters, uint64_t *values,
			    uint32_t n, uint32_t flags)
{
	struct vcounters *c = to_vc(counters);
	uint64_t sum[2], v[2];
	const struct vflow *f;
	unsigned int i;

	if (!counters ||
	    (flags & ~(uint32_t)IBV_READ_COUNTERS_ATTR_PREFER_CACHED))
		return verbs_ret(emu_refuse(EINVAL, "ibv_read_counters: %s "
					    "0x%x", counters ? "flags" :
					    "NULL counters, flags", flags));
	if (verbs_ctx_live(counters->context, "ibv_read_counters"))
		return verbs_ret(EIO);
	pthread_mutex_lock(&c->lock);
	/* The kernel's uverbs: counters no flow uses have nothing to read. */
	if (!c->bound || n < c->nvalues || (!values && n)) {
		pthread_mutex_unlock(&c->lock);
		return verbs_ret(emu_refuse(EINVAL, "ibv_read_counters: %s",
					    !c->bound ? "bound to no flow" :
					    !values ? "NULL values" :
					    "fewer values than indexes"));
	}
	sum[0] = c->retired[0];
	sum[1] = c->retired[1];
	for (f = c->flows; f; f = f->next) {
		flow_counts(f, v);
		sum[0] += v[0];
		sum[1] += v[1];
	}
	memset(values, 0, n * sizeof(*values));
	for (i = 0; i < c->npoints; i++)
		values[c->points[i].index] += sum[c->points[i].desc];
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* The counters of the flow's one count action: 0, or the errno why not
 * (only counting is emulated, matching, steering, is not). */
#define SPEC_OFF(f) offsetof(struct ibv_flow_spec_counter_action, f)

static int count_only(struct ibv_qp *qp, struct ibv_flow_attr *a,
		      struct vcounters **out)
{
	/* The specs follow the attr packed, each as long as its size says
	 * (rdma-core walks them so): read them by bytes, unaligned. */
	const uint8_t *p = (const uint8_t *)(a + 1);
	struct ibv_counters *counters;
	struct ibv_flow_spec_counter_action spec;
	unsigned int i;

	*out = NULL;
	if (a->comp_mask)
		return emu_refuse(EINVAL, "ibv_create_flow: comp_mask 0x%x",
				  a->comp_mask);
	if (!a->port || !emu_device_port(emu_ctx(qp->context)->dev, a->port))
		return emu_refuse(EINVAL, "ibv_create_flow: no port %u",
				  a->port);
	if (a->type != IBV_FLOW_ATTR_NORMAL || a->flags)
		return emu_refuse(EOPNOTSUPP, "ibv_create_flow: type %d, "
				  "flags 0x%x: only a count action is "
				  "emulated", (int)a->type, a->flags);
	for (i = 0; i < a->num_of_specs; i++, p += spec.size) {
		memcpy(&spec.type, p + SPEC_OFF(type), sizeof(spec.type));
		memcpy(&spec.size, p + SPEC_OFF(size), sizeof(spec.size));
		if (spec.type != IBV_FLOW_SPEC_ACTION_COUNT)
			return emu_refuse(EOPNOTSUPP, "ibv_create_flow: spec "
					  "0x%x: flow steering is not "
					  "emulated, only a count action",
					  (unsigned int)spec.type);
		if (spec.size != sizeof(spec))
			return emu_refuse(EINVAL, "ibv_create_flow: a count "
					  "action of %u bytes", spec.size);
		memcpy(&counters, p + SPEC_OFF(counters), sizeof(counters));
		/* One count action, as mlx5 takes. */
		if (*out || !counters || counters->context != qp->context)
			return emu_refuse(EINVAL, "ibv_create_flow: %s",
					  *out ? "more than one count action" :
					  "counters of another context");
		*out = to_vc(counters);
	}
	if (!*out)
		return emu_refuse(EOPNOTSUPP, "ibv_create_flow: no count "
				  "action: flow steering is not emulated");
	return 0;
}

struct ibv_flow *emu_verbs_create_flow(struct ibv_qp *qp,
				       struct ibv_flow_attr *a)
{
	struct vcounters *c;
	struct vflow *f;
	int rc;

	if (!qp || !a)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_flow: NULL "
					     "%s", qp ? "flow_attr" : "qp"));
	/* The kernel's command goes through write(): EINVAL for a QP its
	 * handle does not name. */
	rc = verbs_obj_find_wr(NULL, qp, EMU_OBJ_QP, "ibv_create_flow", "qp");
	if (!rc)
		rc = count_only(qp, a, &c);
	if (rc)
		return verbs_null(rc);
	f = calloc(1, sizeof(*f));
	if (!f)
		return verbs_null(ENOMEM);
	f->ibv.context = qp->context;
	f->c = c;
	f->qp = to_emu_qp(qp);
	pthread_mutex_lock(&c->lock);
	if (!c->npoints) {
		pthread_mutex_unlock(&c->lock);
		free(f);
		return verbs_null(emu_refuse(EINVAL, "ibv_create_flow: the "
					     "counters have no attach point"));
	}
	emu_cnt_qp_rx(f->qp, &f->base[0], &f->base[1]);
	f->next = c->flows;
	c->flows = f;
	c->bound++;
	atomic_fetch_add(&f->qp->flows, 1);
	pthread_mutex_unlock(&c->lock);
	return &f->ibv;
}

int emu_verbs_destroy_flow(struct ibv_flow *flow)
{
	struct vflow *f = (struct vflow *)flow, **pp;
	struct vcounters *c;
	uint64_t v[2];

	if (!flow)
		return verbs_ret(emu_refuse(EINVAL, "ibv_destroy_flow: NULL "
					    "flow"));
	if (verbs_ctx_live(flow->context, "ibv_destroy_flow"))
		return verbs_ret(EIO);
	c = f->c;
	pthread_mutex_lock(&c->lock);
	/* What it counted stays in the counters. */
	flow_counts(f, v);
	c->retired[0] += v[0];
	c->retired[1] += v[1];
	for (pp = &c->flows; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	c->bound--;
	atomic_fetch_sub(&f->qp->flows, 1);
	pthread_mutex_unlock(&c->lock);
	free(f);
	return 0;
}
