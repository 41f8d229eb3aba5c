/* Front end of shared receive queues, XRC domains and ibv_open_qp: the
 * argument checks and errno conventions; the objects live in emu/objects/srq.c. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "emu/objects/cq.h"
#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/pd.h"
#include "emu/objects/pdom.h"
#include "emu/objects/qp.h"
#include "emu/objects/srq.h"
#include "emu/objects/tm.h"
#include "verbs/err.h"
#include "verbs/handle.h"
#include "verbs/ops.h"

#define SRQ_INIT_KNOWN (IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |	\
			IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |	\
			IBV_SRQ_INIT_ATTR_TM)

static int caps_check(struct emu_context *ctx, const struct ibv_srq_attr *a)
{
	const struct emu_limits *l = &ctx->dev->cfg.limits;

	if (a->max_wr > l->max_srq_wr)
		return emu_refuse(EINVAL, "ibv_create_srq: max_wr %u > "
				  "max_srq_wr %u", a->max_wr, l->max_srq_wr);
	if (a->max_sge > l->max_srq_sge)
		return emu_refuse(EINVAL, "ibv_create_srq: max_sge %u > "
				  "max_srq_sge %u", a->max_sge,
				  l->max_srq_sge);
	return 0;
}

/*
 * Errors, as rdma-core and the kernel give them: EINVAL for unknown mask
 * bits or type, a missing PD (any type), XRC domain or CQ (XRC and TM),
 * tm_cap (TM) or a tm_cap outside tm_caps (none of its two may be 0),
 * objects of another context, or sizes past the device's limits; ENOMEM
 * at max_srq or without memory.
 */
static int create_check(struct ibv_context *context,
			const struct ibv_srq_init_attr_ex *a)
{
	uint32_t mask = a->comp_mask;
	enum ibv_srq_type type = (mask & IBV_SRQ_INIT_ATTR_TYPE) ?
				 a->srq_type : IBV_SRQT_BASIC;

	if (mask & ~SRQ_INIT_KNOWN)
		return emu_refuse(EINVAL, "ibv_create_srq_ex: comp_mask %#x "
				  "has unknown bits", mask);
	if (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC &&
	    type != IBV_SRQT_TM)
		return emu_refuse(EINVAL, "ibv_create_srq_ex: srq_type %d "
				  "unknown", (int)type);
	if (!(mask & IBV_SRQ_INIT_ATTR_PD) || !a->pd ||
	    a->pd->context != context)
		return emu_refuse(EINVAL, "ibv_create_srq: no pd, or one of "
				  "another context");
	if (type == IBV_SRQT_XRC &&
	    (!(mask & IBV_SRQ_INIT_ATTR_XRCD) || !a->xrcd ||
	     a->xrcd->context != context))
		return emu_refuse(EINVAL, "ibv_create_srq_ex: an XRC SRQ "
				  "without an xrcd of this context");
	/* XRC and TM SRQs complete into a CQ of their own. */
	if ((type == IBV_SRQT_XRC || type == IBV_SRQT_TM) &&
	    (!(mask & IBV_SRQ_INIT_ATTR_CQ) || !a->cq ||
	     a->cq->context != context))
		return emu_refuse(EINVAL, "ibv_create_srq_ex: an XRC or TM "
				  "SRQ without a cq of this context");
	if (type == IBV_SRQT_TM &&
	    (!(mask & IBV_SRQ_INIT_ATTR_TM) || !a->tm_cap.max_num_tags ||
	     a->tm_cap.max_num_tags > EMU_TM_MAX_TAGS ||
	     !a->tm_cap.max_ops || a->tm_cap.max_ops > EMU_TM_MAX_OPS))
		return emu_refuse(EINVAL, "ibv_create_srq_ex: tm_cap "
				  "max_num_tags %u / max_ops %u not in "
				  "1..%u / 1..%u", a->tm_cap.max_num_tags,
				  a->tm_cap.max_ops, EMU_TM_MAX_TAGS,
				  EMU_TM_MAX_OPS);
	return caps_check(emu_ctx(context), &a->attr);
}

/* The PD, and the CQ of an XRC or TM SRQ, must be what their handles name
 * on context: the kernel takes an SRQ's creation through ioctl, whose
 * lookups answer ENOENT (EINVAL for an object of another type). */
static int find_parts(struct ibv_context *context,
		      const struct ibv_srq_init_attr_ex *a, bool with_cq)
{
	static const char verb[] = "ibv_create_srq";
	int rc;

	rc = verbs_obj_find(context, a->pd, EMU_OBJ_PD, verb, "pd");
	if (!rc && with_cq)
		rc = verbs_obj_find(context, a->cq, EMU_OBJ_CQ, verb, "cq");
	return rc;
}

/* Before create_check() reads their contexts: the PD, XRC domain and CQ
 * given must be live objects of their kinds, by address alone. */
static int parts_live(const struct ibv_srq_init_attr_ex *a)
{
	static const char verb[] = "ibv_create_srq";
	uint32_t mask = a->comp_mask;
	int rc = 0;

	if ((mask & IBV_SRQ_INIT_ATTR_PD) && a->pd)
		rc = verbs_obj_live(a->pd, EMU_OBJ_PD, verb, "pd");
	if (!rc && (mask & IBV_SRQ_INIT_ATTR_XRCD) && a->xrcd)
		rc = verbs_obj_live(a->xrcd, EMU_OBJ_XRCD, verb, "xrcd");
	if (!rc && (mask & IBV_SRQ_INIT_ATTR_CQ) && a->cq)
		rc = verbs_obj_live(a->cq, EMU_OBJ_CQ, verb, "cq");
	return rc;
}

static struct ibv_srq *create(struct ibv_context *context,
			      struct ibv_srq_init_attr_ex *a)
{
	struct emu_srq_attr ea = { 0 };
	struct emu_srq *srq;
	int rc;

	ea.type = (a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) ? a->srq_type :
							     IBV_SRQT_BASIC;
	rc = verbs_ctx_live(context, "ibv_create_srq");
	if (!rc)
		rc = parts_live(a);
	if (!rc)
		rc = create_check(context, a);
	if (!rc)
		rc = find_parts(context, a, ea.type != IBV_SRQT_BASIC);
	if (rc)
		return verbs_null(rc);
	ea.srq_context = a->srq_context;
	ea.pd = to_emu_pd(a->pd);
	ea.pdom = emu_pdom_of(a->pd);
	if (ea.type == IBV_SRQT_XRC) {
		ea.cq = to_emu_cq(a->cq);
		ea.xrcd = to_emu_xrcd(a->xrcd);
	}
	if (ea.type == IBV_SRQT_TM) {
		ea.cq = to_emu_cq(a->cq);
		ea.max_num_tags = a->tm_cap.max_num_tags;
		ea.max_ops = a->tm_cap.max_ops;
	}
	ea.max_wr = a->attr.max_wr;
	ea.max_sge = a->attr.max_sge;
	rc = emu_srq_create(emu_ctx(context), &ea, &srq);
	if (rc)
		return verbs_null(rc);
	/* What was made, never less than what was asked. */
	a->attr.max_wr = ea.max_wr;
	a->attr.max_sge = ea.max_sge;
	return &srq->ibv;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *srq_init_attr)
{
	struct ibv_srq_init_attr_ex a;
	struct ibv_srq *srq;

	int rc;

	if (!pd || !srq_init_attr)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_srq: pd or "
					     "srq_init_attr is NULL"));
	rc = verbs_obj_live(pd, EMU_OBJ_PD, "ibv_create_srq", "pd");
	if (rc)
		return verbs_null(rc);
	memset(&a, 0, sizeof(a));
	a.srq_context = srq_init_attr->srq_context;
	a.attr = srq_init_attr->attr;
	a.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	a.pd = pd;
	srq = create(pd->context, &a);
	if (srq) {
		srq_init_attr->attr.max_wr = a.attr.max_wr;
		srq_init_attr->attr.max_sge = a.attr.max_sge;
	}
	return srq;
}

struct ibv_srq *emu_verbs_create_srq_ex(struct ibv_context *context,
					struct ibv_srq_init_attr_ex *a)
{
	if (!context || !a)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_srq_ex: "
					     "context or srq_init_attr is "
					     "NULL"));
	return create(context, a);
}

/* Modify and query reach the kernel through write(), whose lookups
 * answer EINVAL whatever went wrong. */
int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		   int srq_attr_mask)
{
	int rc;

	if (!srq || !srq_attr)
		return verbs_ret(emu_refuse(EINVAL, "ibv_modify_srq: srq or "
					    "srq_attr is NULL"));
	rc = verbs_obj_find_wr(NULL, srq, EMU_OBJ_SRQ, "ibv_modify_srq",
			       "srq");
	if (rc)
		return verbs_ret(rc);
	return verbs_ret(emu_srq_modify(to_emu_srq(srq), srq_attr,
					srq_attr_mask));
}

int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	int rc;

	if (!srq || !srq_attr)
		return verbs_ret(emu_refuse(EINVAL, "ibv_query_srq: srq or "
					    "srq_attr is NULL"));
	rc = verbs_obj_find_wr(NULL, srq, EMU_OBJ_SRQ, "ibv_query_srq",
			       "srq");
	if (rc)
		return verbs_ret(rc);
	emu_srq_query(to_emu_srq(srq), srq_attr);
	return 0;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	int rc;

	if (!srq)
		return verbs_ret(emu_refuse(EINVAL, "ibv_destroy_srq: srq is "
					    "NULL"));
	rc = verbs_obj_find(NULL, srq, EMU_OBJ_SRQ, "ibv_destroy_srq", "srq");
	if (!rc)
		rc = emu_srq_destroy(to_emu_srq(srq));
	return verbs_ret(rc);
}

int emu_verbs_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr)
{
	if (!wr)
		return 0;
	/* No handle lookup on the data path; the fork() check is one
	 * compare (doc/semantics.md). */
	if (emu_ctx_inherited(emu_ctx(srq->context))) {
		*bad_wr = wr;
		return verbs_ret(emu_refuse(EIO, "ibv_post_srq_recv: the SRQ "
					    "is the parent process's: a "
					    "fork() child cannot use it"));
	}
	return verbs_ret(emu_srq_post_recv(to_emu_srq(srq), wr, bad_wr));
}

/* Tag-list operations: only a TM SRQ has a list (mlx5: EINVAL). */
int emu_verbs_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *wr,
			   struct ibv_ops_wr **bad_wr)
{
	int rc = srq ? verbs_obj_find(NULL, srq, EMU_OBJ_SRQ,
				      "ibv_post_srq_ops", "srq") : 0;

	if (rc) {
		if (bad_wr)
			*bad_wr = wr;
		return verbs_ret(rc);
	}
	if (!srq || to_emu_srq(srq)->type != IBV_SRQT_TM) {
		if (bad_wr)
			*bad_wr = wr;
		return verbs_ret(emu_refuse(EINVAL, "ibv_post_srq_ops: not a "
					    "tag-matching SRQ"));
	}
	if (!wr)
		return 0;
	return verbs_ret(emu_tm_post_ops(to_emu_srq(srq), wr, bad_wr));
}

/* Every SRQ has a number; only XRC initiators have a use for it. */
int emu_verbs_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	int rc;

	if (!srq || !srq_num)
		return verbs_ret(emu_refuse(EINVAL, "ibv_get_srq_num: srq or "
					    "srq_num is NULL"));
	rc = verbs_obj_find(NULL, srq, EMU_OBJ_SRQ, "ibv_get_srq_num", "srq");
	if (rc)
		return verbs_ret(rc);
	*srq_num = to_emu_srq(srq)->srqn;
	return 0;
}

struct ibv_xrcd *emu_verbs_open_xrcd(struct ibv_context *context,
				     struct ibv_xrcd_init_attr *attr)
{
	const uint32_t need = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	struct emu_xrcd *x;
	int rc;

	if (!context || !attr)
		return verbs_null(emu_refuse(EINVAL, "ibv_open_xrcd: context "
					     "or xrcd_init_attr is NULL"));
	rc = verbs_ctx_live(context, "ibv_open_xrcd");
	if (rc)
		return verbs_null(rc);
	/* rdma-core's ibv_cmd_open_xrcd(): unknown bits are unsupported,
	 * and both the fd (-1 for none) and the open flags must be given. */
	if (attr->comp_mask & ~need)
		return verbs_null(emu_refuse(EOPNOTSUPP, "ibv_open_xrcd: "
					     "comp_mask %#x has unknown bits",
					     attr->comp_mask));
	if ((attr->comp_mask & need) != need)
		return verbs_null(emu_refuse(EINVAL, "ibv_open_xrcd: "
					     "comp_mask lacks FD or OFLAGS"));
	rc = emu_xrcd_open(emu_ctx(context), attr, &x);
	if (rc)
		return verbs_null(rc);
	return &x->ibv;
}

int emu_verbs_close_xrcd(struct ibv_xrcd *xrcd)
{
	int rc;

	if (!xrcd)
		return verbs_ret(emu_refuse(EINVAL, "ibv_close_xrcd: xrcd is "
					    "NULL"));
	/* The kernel's command is an ioctl: ENOENT for a dead domain. */
	rc = verbs_obj_find(NULL, xrcd, EMU_OBJ_XRCD, "ibv_close_xrcd",
			    "xrcd");
	if (rc)
		return verbs_ret(rc);
	return verbs_ret(emu_xrcd_close(to_emu_xrcd(xrcd)));
}

/* Only an XRC target QP can be opened by number; the handle is the QP
 * object itself (its qp_context stays the creator's), and the QP lives
 * until every handle has been destroyed. */
struct ibv_qp *emu_verbs_open_qp(struct ibv_context *context,
				 struct ibv_qp_open_attr *attr)
{
	const uint32_t need = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			      IBV_QP_OPEN_ATTR_TYPE;
	struct emu_qp *qp;
	int rc;

	if (!context || !attr)
		return verbs_null(emu_refuse(EINVAL, "ibv_open_qp: context or "
					     "qp_open_attr is NULL"));
	rc = verbs_ctx_live(context, "ibv_open_qp");
	if (!rc && (attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) && attr->xrcd)
		rc = verbs_obj_live(attr->xrcd, EMU_OBJ_XRCD, "ibv_open_qp",
				    "xrcd");
	if (rc)
		return verbs_null(rc);
	if (attr->comp_mask & ~(need | IBV_QP_OPEN_ATTR_CONTEXT))
		return verbs_null(emu_refuse(EOPNOTSUPP, "ibv_open_qp: "
					     "comp_mask %#x has unknown bits",
					     attr->comp_mask));
	if ((attr->comp_mask & need) != need || !attr->xrcd ||
	    attr->xrcd->context != context ||
	    attr->qp_type != IBV_QPT_XRC_RECV)
		return verbs_null(emu_refuse(EINVAL, "ibv_open_qp: needs "
					     "qp_num, an xrcd of this context "
					     "and qp_type XRC_RECV"));
	rc = emu_qp_open_xrc(emu_ctx(context)->dev, attr->qp_num,
			     to_emu_xrcd(attr->xrcd)->dom, &qp);
	if (rc)
		return verbs_null(rc);
	return emu_qp_ibv(qp);
}
