/* Front end of queue pairs: argument checks and errno conventions of the
 * QP verbs and of posting; the QP itself lives in emu/objects/qp.c. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "emuverbs/gsi.h"
#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/pd.h"
#include "emu/objects/qp.h"
#include "emu/objects/qp_attr.h"
#include "emu/objects/srq.h"
#include "verbs/err.h"
#include "verbs/handle.h"
#include "verbs/ops.h"
#include "verbs/qp_ex.h"

/* What this device builds on top of the checks in emu/objects/qp_attr.c: a QP
 * on an SRQ takes a basic SRQ of its own context (XRC SRQs are reached
 * only through XRC target QPs); XRC objects must be of the context too. */
static int create_supported(struct ibv_context *context,
			    const struct ibv_qp_init_attr_ex *init)
{
	if (init->qp_type == IBV_QPT_XRC_RECV)
		return init->xrcd->context == context ? 0 :
		       emu_refuse(EINVAL, "ibv_create_qp: xrcd of another "
				  "context");
	if (init->pd->context != context)
		return emu_refuse(EINVAL, "ibv_create_qp: pd of another "
				  "context");
	if ((init->send_cq && init->send_cq->context != context) ||
	    (init->qp_type != IBV_QPT_XRC_SEND && init->recv_cq &&
	     init->recv_cq->context != context))
		return emu_refuse(EINVAL, "ibv_create_qp: send_cq or recv_cq "
				  "of another context");
	if (init->srq && init->qp_type != IBV_QPT_XRC_SEND &&
	    init->srq->context != context)
		return emu_refuse(EINVAL, "ibv_create_qp: srq of another "
				  "context");
	/* Tag matching is offered on RC only (tm_caps.flags). */
	if (init->srq && init->qp_type != IBV_QPT_XRC_SEND &&
	    to_emu_srq(init->srq)->type != IBV_SRQT_BASIC &&
	    (to_emu_srq(init->srq)->type != IBV_SRQT_TM ||
	     init->qp_type != IBV_QPT_RC))
		return emu_refuse(EINVAL, "ibv_create_qp: srq is an XRC SRQ, "
				  "or a tag-matching one for a non-RC QP");
	return 0;
}

/*
 * The objects the QP is made of must be what their handles name in the
 * QP's context. The kernel takes a QP's creation through ioctl (rdma-core
 * tries it first), whose lookups answer ENOENT, or EINVAL for an object
 * of another type; the same order as its attributes: PD, CQs, SRQ.
 */
static int find_parts(struct ibv_context *context,
		      const struct ibv_qp_init_attr_ex *init)
{
	static const char verb[] = "ibv_create_qp";
	int rc = 0;

	if (init->qp_type == IBV_QPT_XRC_RECV)
		return 0;
	rc = verbs_obj_find(context, init->pd, EMU_OBJ_PD, verb, "pd");
	if (!rc && init->send_cq)
		rc = verbs_obj_find(context, init->send_cq, EMU_OBJ_CQ, verb,
				    "send_cq");
	if (!rc && init->recv_cq && init->qp_type != IBV_QPT_XRC_SEND)
		rc = verbs_obj_find(context, init->recv_cq, EMU_OBJ_CQ, verb,
				    "recv_cq");
	if (!rc && init->srq && init->qp_type != IBV_QPT_XRC_SEND)
		rc = verbs_obj_find(context, init->srq, EMU_OBJ_SRQ, verb,
				    "srq");
	return rc;
}

/*
 * Before anything behind the parts is read (their contexts, the SRQ's
 * type): each must be a live object of its kind, by address alone. The
 * same parts as find_parts() and the checks of emu/objects/qp_attr.c look at.
 */
static int parts_live(const struct ibv_qp_init_attr_ex *init)
{
	static const char verb[] = "ibv_create_qp";
	bool xrc_send = init->qp_type == IBV_QPT_XRC_SEND;
	int rc = 0;

	if (init->qp_type == IBV_QPT_XRC_RECV)
		return (init->comp_mask & IBV_QP_INIT_ATTR_XRCD) &&
		       init->xrcd ?
		       verbs_obj_live(init->xrcd, EMU_OBJ_XRCD, verb,
				      "xrcd") : 0;
	if ((init->comp_mask & IBV_QP_INIT_ATTR_PD) && init->pd)
		rc = verbs_obj_live(init->pd, EMU_OBJ_PD, verb, "pd");
	if (!rc && init->send_cq)
		rc = verbs_obj_live(init->send_cq, EMU_OBJ_CQ, verb,
				    "send_cq");
	if (!rc && init->recv_cq && !xrc_send)
		rc = verbs_obj_live(init->recv_cq, EMU_OBJ_CQ, verb,
				    "recv_cq");
	if (!rc && init->srq && !xrc_send)
		rc = verbs_obj_live(init->srq, EMU_OBJ_SRQ, verb, "srq");
	return rc;
}

/* gsi_port: 0, or the port whose QP1 this is. */
static struct ibv_qp *create(struct ibv_context *context,
			     struct ibv_qp_init_attr_ex *init, uint8_t gsi_port)
{
	struct emu_context *ctx = emu_ctx(context);
	struct emu_qp *qp;
	int rc;

	rc = verbs_ctx_live(context, "ibv_create_qp");
	if (!rc)
		rc = parts_live(init);
	if (!rc)
		rc = emu_qp_init_attr_check(ctx->dev, init);
	if (!rc)
		rc = create_supported(context, init);
	if (!rc)
		rc = find_parts(context, init);
	if (!rc)
		rc = gsi_port ? emu_qp_create_gsi(ctx, init, gsi_port, &qp) :
				emu_qp_create(ctx, init, &qp);
	if (!rc && (init->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		rc = emu_verbs_qpx_init(&qp->qpx, init->send_ops_flags);
		qp->qpx_ready = !rc;
		if (rc)
			emu_qp_destroy(qp);
	}
	if (rc)
		return verbs_null(rc);
	return emu_qp_ibv(qp);
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex init;
	struct ibv_qp *qp;

	int rc;

	if (!pd || !qp_init_attr)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_qp: pd or "
					     "qp_init_attr is NULL"));
	rc = verbs_obj_live(pd, EMU_OBJ_PD, "ibv_create_qp", "pd");
	if (rc)
		return verbs_null(rc);
	memset(&init, 0, sizeof(init));
	memcpy(&init, qp_init_attr, sizeof(*qp_init_attr));
	init.comp_mask = IBV_QP_INIT_ATTR_PD;
	init.pd = pd;
	qp = create(pd->context, &init, 0);
	/* The caps granted go back to the caller, as with rdma-core. */
	if (qp)
		qp_init_attr->cap = init.cap;
	return qp;
}

struct ibv_qp *emuverbs_create_gsi_qp(struct ibv_pd *pd,
				      struct ibv_qp_init_attr *qp_init_attr,
				      uint8_t port_num)
{
	struct ibv_qp_init_attr_ex init;
	struct ibv_qp *qp;

	int rc;

	if (!pd || !qp_init_attr)
		return verbs_null(emu_refuse(EINVAL, "emuverbs_create_gsi_qp: "
					     "pd or qp_init_attr is NULL"));
	rc = verbs_obj_live(pd, EMU_OBJ_PD, "emuverbs_create_gsi_qp", "pd");
	if (rc)
		return verbs_null(rc);
	memset(&init, 0, sizeof(init));
	memcpy(&init, qp_init_attr, sizeof(*qp_init_attr));
	init.comp_mask = IBV_QP_INIT_ATTR_PD;
	init.pd = pd;
	qp = create(pd->context, &init, port_num);
	if (qp)
		qp_init_attr->cap = init.cap;
	return qp;
}

int emuverbs_qp_error(struct ibv_context *ctx, uint32_t qpn)
{
	int rc;

	if (!ctx)
		return verbs_ret(emu_refuse(EINVAL, "emuverbs_qp_error: "
					    "context is NULL"));
	rc = emu_qp_error_by_number(emu_ctx(ctx)->dev, qpn);
	if (rc)
		emu_log(EMU_LOG_QP, "qp 0x%06x: not moved to ERR: gone", qpn);
	return verbs_ret(rc);
}

struct ibv_qp *emu_verbs_create_qp_ex(struct ibv_context *context,
				      struct ibv_qp_init_attr_ex *init)
{
	if (!context || !init)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_qp_ex: "
					     "context or qp_init_attr is "
					     "NULL"));
	return create(context, init, 0);
}

/* Modify and query reach the kernel through write(), whose lookups
 * answer EINVAL whatever went wrong. */
int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	int rc;

	if (!qp || !attr)
		return verbs_ret(emu_refuse(EINVAL, "ibv_modify_qp: qp or attr "
					    "is NULL"));
	rc = verbs_obj_find_wr(NULL, qp, EMU_OBJ_QP, "ibv_modify_qp", "qp");
	if (!rc)
		rc = emu_qp_modify(to_emu_qp(qp), attr, attr_mask);
	return verbs_ret(rc);
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	int rc;

	if (!qp || !attr || !init_attr)
		return verbs_ret(emu_refuse(EINVAL, "ibv_query_qp: qp, attr or "
					    "init_attr is NULL"));
	rc = verbs_obj_find_wr(NULL, qp, EMU_OBJ_QP, "ibv_query_qp", "qp");
	if (!rc)
		rc = emu_qp_query(to_emu_qp(qp), attr, attr_mask, init_attr);
	return verbs_ret(rc);
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct emu_qp *eqp;
	int rc;

	if (!qp)
		return verbs_ret(emu_refuse(EINVAL, "ibv_destroy_qp: qp is "
					    "NULL"));
	rc = verbs_obj_find(NULL, qp, EMU_OBJ_QP, "ibv_destroy_qp", "qp");
	if (rc)
		return verbs_ret(rc);
	eqp = to_emu_qp(qp);
	if (atomic_load(&eqp->flows))
		return verbs_ret(emu_refuse(EBUSY, "ibv_destroy_qp: flows "
					    "still use the QP"));
	eqp->qpx_ready = false;
	return verbs_ret(emu_qp_destroy(eqp));
}

/* The operations each type can post through the ibv_wr_* interface. */
static uint64_t type_send_ops(enum ibv_qp_type type)
{
	uint64_t ops = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;

	if (type == IBV_QPT_XRC_RECV)
		return 0;
	if (type == IBV_QPT_RC || type == IBV_QPT_UC ||
	    type == IBV_QPT_XRC_SEND)
		ops |= IBV_QP_EX_WITH_RDMA_WRITE |
		       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		       IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV;
	if (type == IBV_QPT_RC || type == IBV_QPT_XRC_SEND)
		ops |= IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_SEND_WITH_INV;
	return ops;
}

/* A QP created without send_ops_flags gets the interface on first use,
 * with every operation its type supports. */
struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct emu_qp *eqp;
	int rc = 0;

	if (!qp)
		return verbs_null(emu_refuse(EINVAL, "ibv_qp_to_qp_ex: qp is "
					     "NULL"));
	/* Not a kernel command (rdma-core casts), but it writes the QP. */
	rc = verbs_obj_find(NULL, qp, EMU_OBJ_QP, "ibv_qp_to_qp_ex", "qp");
	if (rc)
		return verbs_null(rc);
	eqp = to_emu_qp(qp);
	pthread_mutex_lock(&eqp->lock);
	if (!eqp->qpx_ready) {
		rc = emu_verbs_qpx_init(&eqp->qpx,
					type_send_ops(eqp->type));
		eqp->qpx_ready = !rc;
	}
	pthread_mutex_unlock(&eqp->lock);
	if (rc)
		return verbs_null(rc);
	return &eqp->qpx.ibv;
}

/*
 * The data path looks at no handle (as mlx5 rings its doorbell without
 * one): a lookup under the table's lock would cost every post. It does
 * ask, with one compare, whether the QP is the parent's in a fork()
 * child, which must not send on the parent's behalf (doc/semantics.md).
 */
static int inherited(struct ibv_qp *qp, const char *verb)
{
	if (!emu_ctx_inherited(emu_ctx(qp->context)))
		return 0;
	return emu_refuse(EIO, "%s: QP %u is the parent process's: a fork() "
			  "child cannot use it", verb, qp->qp_num);
}

int emu_verbs_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad_wr)
{
	int rc;

	if (!wr)
		return 0;
	rc = inherited(qp, "ibv_post_send");
	if (rc) {
		*bad_wr = wr;
		return verbs_ret(rc);
	}
	return verbs_ret(emu_qp_post_send(to_emu_qp(qp), wr, bad_wr));
}

int emu_verbs_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	int rc;

	if (!wr)
		return 0;
	rc = inherited(qp, "ibv_post_recv");
	if (rc) {
		*bad_wr = wr;
		return verbs_ret(rc);
	}
	return verbs_ret(emu_qp_post_recv(to_emu_qp(qp), wr, bad_wr));
}
