/* The op functions of this device's one ops table (verbs/ops.c): what header
 * inline functions and legacy programs reach through ctx->ops and the
 * verbs_context. Each lives with its verb's front end; the table names them
 * all, and nothing else installs an op. */
#ifndef VERBS_OPS_H
#define VERBS_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct emu_context;

/* Fill a freshly opened context: ibv_context fields and every op slot. */
void emu_verbs_init_context(struct emu_context *ctx);

/* Copy the table into vctx's op slots; for contexts built by hand (tests). */
void emu_verbs_set_ops(struct verbs_context *vctx);

/* verbs/query.c; the exported ibv_query_device and ibv_query_port fill the
 * legacy ctx->ops slots, and emu/objects/cq.h's emu_cq_poll the polling one. */
int emu_verbs_query_port(struct ibv_context *context, uint8_t port_num,
			 struct ibv_port_attr *attr, size_t attr_len);
int emu_verbs_query_device_ex(struct ibv_context *context,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr,
			      size_t attr_size);

/* verbs/cq.c */
struct ibv_cq_ex *emu_verbs_create_cq_ex(struct ibv_context *context,
					 struct ibv_cq_init_attr_ex *ia);
int emu_verbs_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* verbs/qp.c */
int emu_verbs_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad_wr);
int emu_verbs_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
struct ibv_qp *emu_verbs_create_qp_ex(struct ibv_context *context,
				      struct ibv_qp_init_attr_ex *init);

/* verbs/srq.c: SRQs, XRC domains and ibv_open_qp */
int emu_verbs_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr);
struct ibv_srq *emu_verbs_create_srq_ex(struct ibv_context *context,
					struct ibv_srq_init_attr_ex *a);
int emu_verbs_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *wr,
			   struct ibv_ops_wr **bad_wr);
int emu_verbs_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
struct ibv_xrcd *emu_verbs_open_xrcd(struct ibv_context *context,
				     struct ibv_xrcd_init_attr *attr);
int emu_verbs_close_xrcd(struct ibv_xrcd *xrcd);
struct ibv_qp *emu_verbs_open_qp(struct ibv_context *context,
				 struct ibv_qp_open_attr *attr);

/* verbs/counters.c: counters, and the count-only flows they count on */
struct ibv_counters *emu_verbs_create_counters(struct ibv_context *context,
					       struct ibv_counters_init_attr *a);
int emu_verbs_destroy_counters(struct ibv_counters *counters);
int emu_verbs_attach_counters_point_flow(struct ibv_counters *counters,
					 struct ibv_counter_attach_attr *a,
					 struct ibv_flow *flow);
int emu_verbs_read_counters(struct ibv_counters *counters, uint64_t *values,
			    uint32_t n, uint32_t flags);
struct ibv_flow *emu_verbs_create_flow(struct ibv_qp *qp,
				       struct ibv_flow_attr *a);
int emu_verbs_destroy_flow(struct ibv_flow *flow);

/* verbs/mw.c */
struct ibv_mw *emu_verbs_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int emu_verbs_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		      struct ibv_mw_bind *mw_bind);
int emu_verbs_dealloc_mw(struct ibv_mw *mw);

/* verbs/odp.c */
int emu_verbs_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			uint32_t flags, struct ibv_sge *sg_list,
			uint32_t num_sge);

/* verbs/dm.c; set_copy installs a DM's memcpy_to/from_dm functions */
struct ibv_dm *emu_verbs_alloc_dm(struct ibv_context *context,
				  struct ibv_alloc_dm_attr *attr);
int emu_verbs_free_dm(struct ibv_dm *dm);
struct ibv_mr *emu_verbs_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
				   uint64_t dm_offset, size_t length,
				   unsigned int access);
void emu_verbs_dm_set_copy(struct ibv_dm *dm);

/* verbs/clock.c */
int emu_verbs_query_rt_values(struct ibv_context *context,
			      struct ibv_values_ex *values);

/* verbs/pdom.c */
struct ibv_td *emu_verbs_alloc_td(struct ibv_context *context,
				  struct ibv_td_init_attr *init_attr);
int emu_verbs_dealloc_td(struct ibv_td *td);
struct ibv_pd *
emu_verbs_alloc_parent_domain(struct ibv_context *context,
			      struct ibv_parent_domain_init_attr *attr);

#endif
