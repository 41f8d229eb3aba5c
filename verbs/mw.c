/* Front end of memory windows: the ops behind ibv_alloc_mw, ibv_bind_mw and
 * ibv_dealloc_mw, their argument checks and errno conventions (emu/objects/mw.c). */
#include <errno.h>
#include <string.h>

#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/mw.h"
#include "emu/objects/pd.h"
#include "emu/objects/qp.h"
#include "verbs/err.h"
#include "verbs/handle.h"
#include "verbs/ops.h"

struct ibv_mw *emu_verbs_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct emu_mw *mw;
	int rc;

	if (!pd)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_mw: pd is "
					     "NULL"));
	/* The kernel's command goes through write(): EINVAL for any PD
	 * its handle does not name. */
	rc = verbs_obj_find_wr(NULL, pd, EMU_OBJ_PD, "ibv_alloc_mw", "pd");
	if (!rc)
		rc = emu_mw_alloc(to_emu_pd(pd), type, &mw);
	if (rc)
		return verbs_null(rc);
	mw->ibv.pd = pd;	/* as given: a parent domain, say */
	return &mw->ibv;
}

/* A bound window may go: deallocation unbinds it (ibv_alloc_mw(3)). */
int emu_verbs_dealloc_mw(struct ibv_mw *mw)
{
	int rc;

	if (!mw)
		return verbs_ret(emu_refuse(EINVAL, "ibv_dealloc_mw: mw is "
					    "NULL"));
	rc = verbs_obj_find(NULL, mw, EMU_OBJ_MW, "ibv_dealloc_mw", "mw");
	if (rc)
		return verbs_ret(rc);
	emu_mw_dealloc(to_emu_mw(mw));
	return 0;
}

/*
 * ibv_bind_mw(3) for a type 1 window (the inline wrapper has checked the
 * type and the region's PD): a BIND_MW request on qp's send queue with the
 * next key (ibv_inc_rkey), completing as IBV_WC_BIND_MW. The new rkey is
 * in mw->rkey on return; should the completion report an error, the
 * caller puts the old one back, as the man page says.
 */
int emu_verbs_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		      struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr;
	int rc;

	if (!qp || !mw || !mw_bind)
		return verbs_ret(emu_refuse(EINVAL, "ibv_bind_mw: qp, mw or "
					    "mw_bind NULL"));
	/* Not the data path's every post: the QP, the window and the
	 * region are looked up before anything behind them is read. */
	rc = verbs_obj_find(NULL, qp, EMU_OBJ_QP, "ibv_bind_mw", "qp");
	if (!rc)
		rc = verbs_obj_find(NULL, mw, EMU_OBJ_MW, "ibv_bind_mw", "mw");
	if (!rc && mw_bind->bind_info.mr)
		rc = verbs_obj_live(mw_bind->bind_info.mr, EMU_OBJ_MR,
				    "ibv_bind_mw", "bind_info.mr");
	if (rc)
		return verbs_ret(rc);
	if (qp->context != mw->context)
		return verbs_ret(emu_refuse(EINVAL, "ibv_bind_mw: qp and mw "
					    "of two contexts"));
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	rc = emu_qp_post_bind_mw(to_emu_qp(qp), &wr);
	if (rc)
		return verbs_ret(rc);
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}
