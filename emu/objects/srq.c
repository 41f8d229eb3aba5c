/* Shared receive queues: the SRQN table, create/modify/query/destroy,
 * posting, the engine's take with the limit event, and XRC domains. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emu/objects/cq.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/base/handle.h"
#include "emu/base/log.h"
#include "emu/objects/pd.h"
#include "emu/objects/srq.h"
#include "emu/objects/tm.h"
#include "net/hdr.h"

/* First SRQN handed out; 0 is kept out so that it never names an SRQ. */
#define SRQN_START	0x41

size_t emu_srq_wqe_size(uint32_t max_sge)
{
	return sizeof(struct emu_rwqe) +
	       (size_t)(max_sge ? max_sge : 1) * sizeof(struct ibv_sge);
}

/* ---- SRQN table (changed on the engine thread only) -------------------- */

int emu_srq_table_create(struct emu_device *dev)
{
	return emu_numtab_create(&dev->srqs, dev->cfg.limits.max_srq, 1,
				 SRQN_START);
}

void emu_srq_table_destroy(struct emu_device *dev)
{
	emu_numtab_destroy(&dev->srqs);
}

struct srq_call {
	struct emu_srq *srq;
	struct emu_qmem mem;		/* resize: new ring in, old one out */
	uint32_t size;
	int rc;
};

/* SRQNs advance through the 24-bit space like QPNs, so a late packet for
 * a destroyed XRC SRQ does not reach the next one. */
static void do_insert(void *p)
{
	struct srq_call *c = p;
	int srqn = emu_numtab_insert(&c->srq->dev->srqs, c->srq);

	c->rc = srqn < 0 ? -srqn : 0;
	if (srqn < 0)
		return;
	c->srq->srqn = (uint32_t)srqn;
	c->srq->in_table = true;
}

static void do_remove(void *p)
{
	struct srq_call *c = p;

	if (c->srq->in_table)
		emu_numtab_remove(&c->srq->dev->srqs, c->srq->srqn, c->srq);
	c->srq->in_table = false;
}

/* ---- create, destroy, modify, query ------------------------------------ */

static void srq_free(struct emu_srq *srq)
{
	emu_handle_remove(srq->ibv.handle, &srq->ibv);
	emu_tm_destroy(srq);
	emu_qmem_free(&srq->rq.mem);
	pthread_spin_destroy(&srq->rq.lock);
	pthread_mutex_destroy(&srq->lock);
	pthread_mutex_destroy(&srq->ibv.mutex);
	pthread_cond_destroy(&srq->ibv.cond);
	free(srq);
}

int emu_srq_create(struct emu_context *ctx, struct emu_srq_attr *attr,
		   struct emu_srq **out)
{
	struct srq_call call;
	struct emu_srq *srq;
	uint32_t max_wr = attr->max_wr ? attr->max_wr : 1;
	uint32_t max_sge = attr->max_sge ? attr->max_sge : 1;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return ENOMEM;
	srq->rq.size = max_wr;
	srq->rq.stride = (uint32_t)((emu_srq_wqe_size(max_sge) + 7) & ~7ul);
	/* On a parent domain, from its allocators (emu/objects/pdom.c). */
	if (emu_qmem_alloc(&srq->rq.mem, attr->pdom,
			   (size_t)max_wr * srq->rq.stride, EMU_RES_TYPE_SRQ,
			   true)) {
		free(srq);
		return ENOMEM;
	}
	srq->rq.slots = srq->rq.mem.p;
	pthread_spin_init(&srq->rq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_init(&srq->lock, NULL);
	pthread_mutex_init(&srq->ibv.mutex, NULL);
	pthread_cond_init(&srq->ibv.cond, NULL);
	srq->ctx = ctx;
	srq->dev = ctx->dev;
	srq->pd = attr->pd;
	srq->pdom = attr->pdom;
	srq->cq = attr->cq;
	srq->xrcd = attr->xrcd ? attr->xrcd->dom : NULL;
	srq->type = attr->type;
	srq->max_sge = max_sge;
	srq->max_wr = max_wr;
	if ((attr->type == IBV_SRQT_TM &&
	     emu_tm_create(srq, attr->max_num_tags, attr->max_ops)) ||
	    emu_handle_add(ctx, EMU_OBJ_SRQ, &srq->ibv, &srq->ibv.handle)) {
		srq_free(srq);
		return ENOMEM;
	}

	call.srq = srq;
	emu_engine_call(ctx->dev->engine, do_insert, &call);
	if (call.rc) {
		srq_free(srq);
		return emu_refuse(call.rc, "ibv_create_srq: max_srq (%u) SRQs "
				  "exist already",
				  ctx->dev->cfg.limits.max_srq);
	}
	srq->ibv.context = &ctx->vctx.context;
	srq->ibv.srq_context = attr->srq_context;
	/* The PD as the application gave it: a parent domain, say. */
	srq->ibv.pd = attr->pdom ? &attr->pdom->pd.ibv : &attr->pd->ibv;
	emu_pd_get(srq->pd);
	emu_pdom_get(srq->pdom);
	if (srq->cq)
		emu_cq_get(srq->cq);
	if (srq->xrcd)
		atomic_fetch_add(&srq->xrcd->users, 1);
	attr->max_wr = max_wr;
	attr->max_sge = max_sge;
	*out = srq;
	return 0;
}

int emu_srq_destroy(struct emu_srq *srq)
{
	struct ibv_srq *ib = &srq->ibv;
	struct srq_call call = { .srq = srq };
	struct emu_pdom *pdom = srq->pdom;

	pthread_mutex_lock(&srq->lock);
	if (atomic_load(&srq->users)) {
		pthread_mutex_unlock(&srq->lock);
		return emu_refuse(EBUSY, "ibv_destroy_srq: %u QPs still use "
				  "the SRQ", atomic_load(&srq->users));
	}
	/* Out of the table first: no packet reaches it from now on, and
	 * with no QP associated nothing takes from it or raises events. */
	emu_engine_call(srq->dev->engine, do_remove, &call);
	pthread_mutex_unlock(&srq->lock);

	/* Delivered events must be acknowledged, undelivered ones are
	 * withdrawn, as for CQs and QPs. */
	srq->events_raised -= emu_async_cancel(&srq->ctx->async, ib);
	pthread_mutex_lock(&ib->mutex);
	while (ib->events_completed != srq->events_raised)
		pthread_cond_wait(&ib->cond, &ib->mutex);
	pthread_mutex_unlock(&ib->mutex);

	emu_pd_put(srq->pd);
	if (srq->cq)
		emu_cq_put(srq->cq);
	if (srq->xrcd)
		atomic_fetch_sub(&srq->xrcd->users, 1);
	/* The ring goes back to the parent domain's allocator first. */
	srq_free(srq);
	emu_pdom_put(pdom);
	return 0;
}

/* Engine thread, with every poster held off: move what is posted into the
 * new ring, oldest first, so no WQE is lost or reordered. */
static void do_resize(void *p)
{
	struct srq_call *c = p;
	struct emu_wq *q = &c->srq->rq;
	uint32_t cons = atomic_load(&q->cons), prod = atomic_load(&q->prod);
	uint32_t n = prod - cons, i;
	struct emu_qmem old;

	if (n > c->size) {
		c->rc = EINVAL;
		return;
	}
	for (i = 0; i < n; i++)
		memcpy((uint8_t *)c->mem.p + (size_t)i * q->stride,
		       emu_wq_slot(q, cons + i), q->stride);
	/* The old ring leaves in c->mem, for the caller to free: never a
	 * parent domain's free callback on the engine thread. */
	old = q->mem;
	q->mem = c->mem;
	q->slots = q->mem.p;
	q->size = c->size;
	atomic_store(&q->cons, 0);
	atomic_store(&q->prod, n);
	c->mem = old;
	c->rc = 0;
}

int emu_srq_modify(struct emu_srq *srq, const struct ibv_srq_attr *attr,
		   int mask)
{
	struct srq_call call = { .srq = srq };
	uint32_t max_wr;
	int rc = 0;

	if (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		return emu_refuse(EINVAL, "ibv_modify_srq: srq_attr_mask %#x "
				  "has unknown bits", mask);
	pthread_mutex_lock(&srq->lock);
	max_wr = srq->max_wr;
	if (mask & IBV_SRQ_MAX_WR) {
		if (!attr->max_wr ||
		    attr->max_wr > srq->dev->cfg.limits.max_srq_wr) {
			rc = emu_refuse(EINVAL, "ibv_modify_srq: max_wr %u not "
					"in 1..max_srq_wr %u", attr->max_wr,
					srq->dev->cfg.limits.max_srq_wr);
			goto out;
		}
		max_wr = attr->max_wr;
	}
	/* The limit is checked against the size the SRQ will have. */
	if ((mask & IBV_SRQ_LIMIT) && attr->srq_limit > max_wr) {
		rc = emu_refuse(EINVAL, "ibv_modify_srq: srq_limit %u > max_wr "
				"%u", attr->srq_limit, max_wr);
		goto out;
	}
	if ((mask & IBV_SRQ_MAX_WR) && max_wr != srq->max_wr) {
		call.size = max_wr;
		if (emu_qmem_alloc(&call.mem, srq->pdom,
				   (size_t)max_wr * srq->rq.stride,
				   EMU_RES_TYPE_SRQ, true)) {
			rc = ENOMEM;
			goto out;
		}
		pthread_spin_lock(&srq->rq.lock);
		emu_engine_call(srq->dev->engine, do_resize, &call);
		pthread_spin_unlock(&srq->rq.lock);
		/* The ring not taken: the old one, or the new on failure. */
		emu_qmem_free(&call.mem);
		rc = call.rc;
		if (rc) {
			emu_log(EMU_LOG_VERBS, "ibv_modify_srq: max_wr %u < "
				"the WRs posted", max_wr);
			goto out;
		}
		srq->max_wr = max_wr;
	}
	if (mask & IBV_SRQ_LIMIT)
		atomic_store(&srq->limit, attr->srq_limit);
out:
	pthread_mutex_unlock(&srq->lock);
	return rc;
}

void emu_srq_query(struct emu_srq *srq, struct ibv_srq_attr *attr)
{
	pthread_mutex_lock(&srq->lock);
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = atomic_load(&srq->limit);
	pthread_mutex_unlock(&srq->lock);
}

int emu_srq_post_recv(struct emu_srq *srq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	struct emu_wq *q = &srq->rq;
	int rc = 0;

	pthread_spin_lock(&q->lock);
	for (; wr; wr = wr->next) {
		uint32_t prod = atomic_load_explicit(&q->prod,
						     memory_order_relaxed);

		if (emu_wq_in_use(q) >= q->size) {
			rc = emu_refuse(ENOMEM, "ibv_post_srq_recv: SRQ full "
					"(max_wr %u)", q->size);
			break;
		}
		rc = emu_rwqe_fill(emu_wq_slot(q, prod), wr, srq->max_sge,
				   "ibv_post_srq_recv");
		if (rc)
			break;
		atomic_store_explicit(&q->prod, prod + 1, memory_order_release);
	}
	pthread_spin_unlock(&q->lock);
	/* No doorbell: responders find the WQEs when messages arrive, and a
	 * requester told RNR retries on its own timer. */
	if (rc && bad_wr)
		*bad_wr = wr;
	return rc;
}

/* ---- engine thread ------------------------------------------------------ */

static void limit_event(struct emu_srq *srq)
{
	struct ibv_async_event ev = {
		.element.srq = &srq->ibv,
		.event_type = IBV_EVENT_SRQ_LIMIT_REACHED,
	};

	if (!emu_async_push(&srq->ctx->async, &ev))
		srq->events_raised++;
}

void emu_srq_fail(struct emu_srq *srq)
{
	struct ibv_async_event ev = {
		.element.srq = &srq->ibv,
		.event_type = IBV_EVENT_SRQ_ERR,
	};

	if (!emu_async_push(&srq->ctx->async, &ev))
		srq->events_raised++;
}

bool emu_srq_has_wqe(struct emu_srq *srq)
{
	return atomic_load_explicit(&srq->rq.cons, memory_order_relaxed) !=
	       atomic_load_explicit(&srq->rq.prod, memory_order_acquire);
}

bool emu_srq_take(struct emu_srq *srq, struct emu_rwqe *dst)
{
	struct emu_wq *q = &srq->rq;
	uint32_t cons = atomic_load_explicit(&q->cons, memory_order_relaxed);
	uint32_t prod = atomic_load_explicit(&q->prod, memory_order_acquire);
	struct emu_rwqe *w;
	uint32_t lim;

	if (cons == prod)
		return false;
	w = emu_wq_slot(q, cons);
	memcpy(dst, w, sizeof(*w) + (size_t)w->num_sge * sizeof(w->sge[0]));
	/* The slot is free again before anyone learns of the take. */
	atomic_store_explicit(&q->cons, cons + 1, memory_order_release);
	lim = atomic_load(&srq->limit);
	if (lim) {
		prod = atomic_load_explicit(&q->prod, memory_order_acquire);
		/* Only the take that wins the disarm raises the event. */
		if (prod - (cons + 1) < lim &&
		    atomic_compare_exchange_strong(&srq->limit, &lim, 0))
			limit_event(srq);
	}
	return true;
}

/* ---- XRC domains -------------------------------------------------------- */

/* Domains opened through a file, for every device of the process. */
static pthread_mutex_t xrcd_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_xrcd_dom *xrcd_list;

int emu_xrcd_open(struct emu_context *ctx,
		  const struct ibv_xrcd_init_attr *attr,
		  struct emu_xrcd **out)
{
	struct emu_xrcd_dom *dom = NULL;
	struct emu_xrcd *x;
	struct stat st;
	bool inode = attr->fd != -1;
	int rc = 0;

	if (attr->oflags & ~(O_CREAT | O_EXCL))
		return emu_refuse(EINVAL, "ibv_open_xrcd: oflags %#x beyond "
				  "O_CREAT|O_EXCL", attr->oflags);
	if (inode && fstat(attr->fd, &st))
		return emu_refuse(EBADF, "ibv_open_xrcd: fd %d is no open "
				  "file", attr->fd);
	x = calloc(1, sizeof(*x));
	/* Found by its address (emu/base/handle.h): it has no handle field. */
	if (!x || emu_handle_alias_add(ctx, EMU_OBJ_XRCD, &x->ibv)) {
		free(x);
		return ENOMEM;
	}
	pthread_mutex_lock(&xrcd_lock);
	if (inode) {
		for (dom = xrcd_list; dom; dom = dom->next)
			if (dom->dev == ctx->dev && dom->st_dev == st.st_dev &&
			    dom->st_ino == st.st_ino)
				break;
		/* As the kernel: an existing domain is shared unless
		 * O_CREAT|O_EXCL, and none is made without O_CREAT. */
		if (dom && (attr->oflags & O_EXCL) &&
		    (attr->oflags & O_CREAT))
			rc = emu_refuse(EEXIST, "ibv_open_xrcd: O_CREAT|O_EXCL "
					"and the file has a domain already");
		else if (!dom && !(attr->oflags & O_CREAT))
			rc = emu_refuse(EINVAL, "ibv_open_xrcd: no domain for "
					"the file yet, and no O_CREAT");
	}
	if (!rc && !dom) {
		dom = calloc(1, sizeof(*dom));
		if (!dom) {
			rc = ENOMEM;
		} else {
			dom->dev = ctx->dev;
			if (inode) {
				dom->has_inode = true;
				dom->st_dev = st.st_dev;
				dom->st_ino = st.st_ino;
				dom->next = xrcd_list;
				xrcd_list = dom;
			}
		}
	}
	if (!rc)
		dom->opens++;
	pthread_mutex_unlock(&xrcd_lock);
	if (rc) {
		emu_handle_alias_remove(&x->ibv);
		free(x);
		return rc;
	}
	x->ibv.context = &ctx->vctx.context;
	x->dom = dom;
	*out = x;
	return 0;
}

int emu_xrcd_close(struct emu_xrcd *x)
{
	struct emu_xrcd_dom *dom = x->dom, **pp;

	pthread_mutex_lock(&xrcd_lock);
	if (dom->opens == 1 && atomic_load(&dom->users)) {
		pthread_mutex_unlock(&xrcd_lock);
		return emu_refuse(EBUSY, "ibv_close_xrcd: the domain still has "
				  "%u QPs or SRQs", atomic_load(&dom->users));
	}
	if (--dom->opens) {
		pthread_mutex_unlock(&xrcd_lock);
		emu_handle_alias_remove(&x->ibv);
		free(x);
		return 0;
	}
	for (pp = &xrcd_list; *pp; pp = &(*pp)->next) {
		if (*pp == dom) {
			*pp = dom->next;
			break;
		}
	}
	pthread_mutex_unlock(&xrcd_lock);
	free(dom);
	emu_handle_alias_remove(&x->ibv);
	free(x);
	return 0;
}
