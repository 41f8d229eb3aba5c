/* The device's one ops table and its installer: every op slot of
 * ibv_context_ops and verbs_context this device implements, and how each
 * opened context gets them. */
#include "emu/objects/cq.h"
#include "emu/device/device.h"
#include "verbs/ops.h"

/*
 * The slots of ibv_context_ops and verbs_context we fill. A struct of our
 * own rather than rdma-core's verbs_context_ops: we are the libibverbs that
 * would provide verbs_set_ops, and the two halves of the ABI we answer to
 * (ctx->ops, the verbs_context before it) are only reached by copying.
 */
struct emu_verbs_ops {
	/* ibv_context_ops: the inline wrappers call the data-path slots
	 * without a NULL check, so those must always be set. */
	int (*query_device)(struct ibv_context *context,
			    struct ibv_device_attr *device_attr);
	int (*query_port_compat)(struct ibv_context *context, uint8_t port_num,
				 struct _compat_ibv_port_attr *port_attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);

	/* verbs_context: the extended verbs, reached through
	 * verbs_get_ctx_op(). */
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *attr, size_t attr_len);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *wr,
			    struct ibv_ops_wr **bad_wr);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *attr);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sge);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	int (*free_dm)(struct ibv_dm *dm);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	int (*dealloc_td)(struct ibv_td *td);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	int (*destroy_flow)(struct ibv_flow *flow);
};

/*
 * Every op this device implements. A slot left out stays NULL, and that is
 * the refusal: the header's inline wrappers answer a NULL extended slot
 * (and a NULL alloc_mw) with EOPNOTSUPP, so no stub is needed here, and
 * verbs/unsupported.c only defines exported symbols, never an op.
 */
static const struct emu_verbs_ops emu_ops = {
	.query_device = ibv_query_device,
	.query_port_compat = ibv_query_port,
	.alloc_mw = emu_verbs_alloc_mw,
	.bind_mw = emu_verbs_bind_mw,
	.dealloc_mw = emu_verbs_dealloc_mw,
	.poll_cq = emu_cq_poll,
	.req_notify_cq = emu_verbs_req_notify_cq,
	.post_srq_recv = emu_verbs_post_srq_recv,
	.post_send = emu_verbs_post_send,
	.post_recv = emu_verbs_post_recv,

	.query_port = emu_verbs_query_port,
	.query_device_ex = emu_verbs_query_device_ex,
	.create_cq_ex = emu_verbs_create_cq_ex,
	.create_qp_ex = emu_verbs_create_qp_ex,
	.create_srq_ex = emu_verbs_create_srq_ex,
	.post_srq_ops = emu_verbs_post_srq_ops,
	.get_srq_num = emu_verbs_get_srq_num,
	.open_xrcd = emu_verbs_open_xrcd,
	.close_xrcd = emu_verbs_close_xrcd,
	.open_qp = emu_verbs_open_qp,
	.advise_mr = emu_verbs_advise_mr,
	.alloc_dm = emu_verbs_alloc_dm,
	.free_dm = emu_verbs_free_dm,
	.reg_dm_mr = emu_verbs_reg_dm_mr,
	.query_rt_values = emu_verbs_query_rt_values,
	.alloc_td = emu_verbs_alloc_td,
	.dealloc_td = emu_verbs_dealloc_td,
	.alloc_parent_domain = emu_verbs_alloc_parent_domain,
	.create_counters = emu_verbs_create_counters,
	.destroy_counters = emu_verbs_destroy_counters,
	.attach_counters_point_flow = emu_verbs_attach_counters_point_flow,
	.read_counters = emu_verbs_read_counters,
	.create_flow = emu_verbs_create_flow,
	.destroy_flow = emu_verbs_destroy_flow,
};

void emu_verbs_set_ops(struct verbs_context *vctx)
{
	struct ibv_context_ops *o = &vctx->context.ops;
	const struct emu_verbs_ops *t = &emu_ops;

	o->_compat_query_device = t->query_device;
	o->_compat_query_port = t->query_port_compat;
	o->alloc_mw = t->alloc_mw;
	o->bind_mw = t->bind_mw;
	o->dealloc_mw = t->dealloc_mw;
	o->poll_cq = t->poll_cq;
	o->req_notify_cq = t->req_notify_cq;
	o->post_srq_recv = t->post_srq_recv;
	o->post_send = t->post_send;
	o->post_recv = t->post_recv;

	vctx->query_port = t->query_port;
	vctx->query_device_ex = t->query_device_ex;
	vctx->create_cq_ex = t->create_cq_ex;
	vctx->create_qp_ex = t->create_qp_ex;
	vctx->create_srq_ex = t->create_srq_ex;
	vctx->post_srq_ops = t->post_srq_ops;
	vctx->get_srq_num = t->get_srq_num;
	vctx->open_xrcd = t->open_xrcd;
	vctx->close_xrcd = t->close_xrcd;
	vctx->open_qp = t->open_qp;
	vctx->advise_mr = t->advise_mr;
	vctx->alloc_dm = t->alloc_dm;
	vctx->free_dm = t->free_dm;
	vctx->reg_dm_mr = t->reg_dm_mr;
	vctx->query_rt_values = t->query_rt_values;
	vctx->alloc_td = t->alloc_td;
	vctx->dealloc_td = t->dealloc_td;
	vctx->alloc_parent_domain = t->alloc_parent_domain;
	vctx->create_counters = t->create_counters;
	vctx->destroy_counters = t->destroy_counters;
	vctx->attach_counters_point_flow = t->attach_counters_point_flow;
	vctx->read_counters = t->read_counters;
	vctx->ibv_create_flow = t->create_flow;
	vctx->ibv_destroy_flow = t->destroy_flow;
}

void emu_verbs_init_context(struct emu_context *ctx)
{
	struct verbs_context *vctx = &ctx->vctx;
	struct ibv_context *c = &vctx->context;

	c->device = &ctx->dev->ibdev;
	/* The command file comes from whoever opens the context: a file of
	 * its own (verbs/import.c), or the one ibv_import_device is given. */
	c->cmd_fd = -1;
	c->async_fd = ctx->async.fd;
	c->num_comp_vectors = 1;
	pthread_mutex_init(&c->mutex, NULL);
	/* Tells verbs_get_ctx() the extended ops below are present. */
	c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx->sz = sizeof(*vctx);
	emu_verbs_set_ops(vctx);
}
