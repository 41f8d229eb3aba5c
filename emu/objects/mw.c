/* Memory windows (IBTA 10.6.7): allocation against max_mw, and the engine's
 * side of binding and invalidating type 1 and type 2B windows, as rxe has. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/base/handle.h"
#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/mw.h"
#include "emu/objects/pd.h"
#include "emu/objects/qp.h"

int emu_mw_alloc(struct emu_pd *pd, enum ibv_mw_type type,
		 struct emu_mw **out)
{
	struct emu_mw *mw;
	int rc;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2)
		return emu_refuse(EINVAL, "ibv_alloc_mw: type %d is neither "
				  "1 nor 2", (int)type);
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return ENOMEM;
	mw->pd = pd;
	mw->ibv.context = pd->ibv.context;
	mw->ibv.pd = &pd->ibv;
	mw->ibv.type = type;
	/* Handles also tell a window from a later one in the same slot: a
	 * bind work request names its window by slot and handle (it may be
	 * gone by then), and the process's handles do not repeat soon. */
	if (emu_handle_add(pd->ctx, EMU_OBJ_MW, &mw->ibv, &mw->ibv.handle)) {
		free(mw);
		return ENOMEM;
	}
	/* Every field is set before the table makes it visible. */
	emu_pd_get(pd);
	rc = emu_mr_table_add_mw(pd->ctx->dev, mw);
	if (rc) {
		emu_handle_remove(mw->ibv.handle, &mw->ibv);
		emu_pd_put(pd);
		free(mw);
		return rc;
	}
	*out = mw;
	return 0;
}

static void unbind(struct emu_mw *mw)
{
	if (mw->bound)
		mw->mr->num_mw--;
	mw->bound = false;
	mw->zero_based = false;
	mw->mr = NULL;
	mw->addr = 0;
	mw->length = 0;
	mw->access = 0;
	mw->qpn = 0;
}

struct dealloc_call {
	struct emu_device *dev;
	struct emu_mw *mw;
};

static void dealloc_on_engine(void *arg)
{
	struct dealloc_call *c = arg;

	unbind(c->mw);
	emu_mr_table_clear_mw(c->dev, c->mw);
}

void emu_mw_dealloc(struct emu_mw *mw)
{
	struct dealloc_call c = { .dev = mw->pd->ctx->dev, .mw = mw };
	struct emu_engine *engine;

	pthread_mutex_lock(&c.dev->lock);
	engine = c.dev->engine;
	pthread_mutex_unlock(&c.dev->lock);
	if (engine)
		emu_engine_call(engine, dealloc_on_engine, &c);
	else
		dealloc_on_engine(&c);
	emu_mr_table_remove_mw(c.dev, mw);
	emu_handle_remove(mw->ibv.handle, &mw->ibv);
	emu_pd_put(mw->pd);
	free(mw);
}

/* ---- engine thread ------------------------------------------------------ */

/* IBTA's rules for binding mw to [addr, addr + len) of mr with access
 * (the IBV_ACCESS_REMOTE_* bits) on qp; mr is NULL for a zero length. */
static bool bind_ok(const struct emu_qp *qp, const struct emu_mw *mw,
		    const struct emu_mr *mr, uint64_t addr, uint64_t len,
		    unsigned int access, bool zero_based)
{
	/* Window, QP and region of one PD (C10-72 for type 2; the verb
	 * checks the region's for type 1, and the QP's is checked here). */
	if (mw->pd != qp->pd)
		return false;
	if (mw->ibv.type == IBV_MW_TYPE_1) {
		/* o10-36.2.2: type 1 windows are never zero-based. */
		if (zero_based)
			return false;
	} else {
		/* o10-37.2.30: a type 2 window is bound only when free;
		 * o10-37.2.40: it is invalidated, never bound, to nothing. */
		if (mw->bound || !len)
			return false;
	}
	if (!len)
		return true;
	if (!mr || mr->pd != mw->pd)
		return false;
	/* C10-73: the region allows binding; C10-74: a window that may be
	 * written needs a region the HCA may write. */
	if (!(mr->access & IBV_ACCESS_MW_BIND))
		return false;
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IBV_ACCESS_LOCAL_WRITE))
		return false;
	/* C10-75: the range lies in the region (no wrap: subtract). */
	return addr >= mr->iova && addr - mr->iova <= mr->length &&
	       len <= mr->length - (addr - mr->iova);
}

int emu_mw_bind(struct emu_qp *qp, const struct emu_swqe *w)
{
	struct emu_mw *mw = emu_mr_table_mw(qp->dev, w->mw_rkey);
	unsigned int access = w->mw_access & (IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_REMOTE_READ |
					      IBV_ACCESS_REMOTE_ATOMIC);
	bool zb = w->mw_access & IBV_ACCESS_ZERO_BASED;
	struct emu_mr *mr = NULL;

	if (!mw || mw->ibv.handle != w->mw_handle)
		return IBV_WC_MW_BIND_ERR;
	/*
	 * The window answers to exactly the key the request carries. Its
	 * index is the window's own slot and only the low byte is the
	 * consumer's, so a key of another index is one it can never have:
	 * fail the bind rather than answer to a key nobody was given.
	 * (mlx5 and rxe take the low byte and ignore the rest.)
	 */
	if ((w->rkey >> 8) != mw->index)
		return IBV_WC_MW_BIND_ERR;
	if (w->mw_len)
		mr = emu_mr_lookup_lkey(qp->dev, w->mr_lkey);
	if (!bind_ok(qp, mw, mr, w->remote_addr, w->mw_len, access, zb))
		return IBV_WC_MW_BIND_ERR;
	unbind(mw);
	mw->rkey = w->rkey;
	if (!w->mw_len)
		return 0;
	mw->mr = mr;
	mr->num_mw++;
	mw->addr = w->remote_addr;
	mw->length = w->mw_len;
	mw->access = access;
	mw->zero_based = zb;
	mw->qpn = qp->qpn;
	mw->bound = true;
	return 0;
}

int emu_mw_invalidate(struct emu_qp *qp, uint32_t rkey)
{
	struct emu_mw *mw = emu_mr_table_mw(qp->dev, rkey);

	/* A region's key finds no window: ours are never fast-registered,
	 * so they cannot be invalidated. o10-37.2.26: nor can type 1. */
	if (!mw || mw->rkey != rkey || mw->ibv.type != IBV_MW_TYPE_2 ||
	    !mw->bound)
		return EINVAL;
	if (mw->pd != qp->pd || mw->qpn != qp->qpn)
		return EINVAL;
	unbind(mw);
	return 0;
}
