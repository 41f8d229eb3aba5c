/* Placeholder definitions for every exported verb emuverbs does not implement
 * yet: each fails cleanly with EOPNOTSUPP in the way its man page promises. */

/*
 * Every symbol in verbs/libibverbs.map needs a definition so that programs
 * linked against rdma-core load and run until they reach a verb we lack.
 * When a verb gets a real implementation elsewhere, delete its stub here:
 * one function per definition so that deletion is a single hunk.
 *
 * The stubs never look at their arguments (so NULL cannot crash them) and
 * always leave errno = EOPNOTSUPP, even for the verbs whose contract is to
 * return the errno value: real libibverbs leaves errno set by the failing
 * system call there too, and programs often perror() either way.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/base/log.h"

/* A stub's whole point is to ignore its arguments. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Each refusal says which verb refused (EMUVERBS_DEBUG=verbs): the
 * helpers take the calling stub's name through the macros below. */
static inline void unsupported(const char *verb)
{
	errno = emu_refuse(EOPNOTSUPP, "%s: not emulated", verb);
}

/* For verbs documented to return 0 or "the value of errno". */
static inline int unsupported_errno_(const char *verb)
{
	unsupported(verb);
	return EOPNOTSUPP;
}

/* For verbs documented to return -1 and set errno. */
static inline int unsupported_minus_one_(const char *verb)
{
	unsupported(verb);
	return -1;
}

/* For verbs documented to return NULL and set errno. */
static inline void *unsupported_null_(const char *verb)
{
	unsupported(verb);
	return NULL;
}

#define unsupported_errno() unsupported_errno_(__func__)
#define unsupported_minus_one() unsupported_minus_one_(__func__)
#define unsupported_null() unsupported_null_(__func__)

/*
 * rdma-core 65 API that Debian 12's header (rdma-core 44) lacks. Our own
 * include/infiniband/verbs.h declares all of it; IBV_DEVICE_CC_DMA_BOUNCE is
 * the one preprocessor-visible mark of a 65-era header. If the guess is ever
 * wrong nothing breaks: repeating an identical prototype is valid C.
 */
#ifndef IBV_DEVICE_CC_DMA_BOUNCE
struct ibv_buf;
struct ibv_comp_cntr;
struct ibv_comp_cntr_caps;
struct ibv_comp_cntr_init_attr;
struct ibv_dmah;
struct ibv_dmah_init_attr;
struct ibv_mr_init_attr;
struct ibv_qp_attach_comp_cntr_attr;

struct ibv_dmah *ibv_alloc_dmah(struct ibv_context *context,
				struct ibv_dmah_init_attr *attr);
int ibv_dealloc_dmah(struct ibv_dmah *dmah);
struct ibv_mr *ibv_reg_mr_ex(struct ibv_pd *pd,
			     struct ibv_mr_init_attr *mr_init_attr);
int ibv_dm_export_dmabuf_fd(struct ibv_dm *dm);
void *ibv_alloc_buf(struct ibv_pd *pd, size_t size, struct ibv_buf **buf);
int ibv_export_buf_dmabuf_fd(struct ibv_buf *buf);
void ibv_free_buf(struct ibv_buf *buf);
struct ibv_mr *ibv_reg_buf_mr(struct ibv_pd *pd, struct ibv_buf *buf,
			      void *addr, size_t length, int access);
int _ibv_query_comp_cntr_caps(struct ibv_context *context,
			      struct ibv_comp_cntr_caps *caps,
			      size_t caps_size);
struct ibv_comp_cntr *
ibv_create_comp_cntr(struct ibv_context *context,
		     struct ibv_comp_cntr_init_attr *cc_attr);
int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr);
int ibv_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_qp_attach_comp_cntr(struct ibv_qp *qp,
			    struct ibv_comp_cntr *comp_cntr,
			    struct ibv_qp_attach_comp_cntr_attr *attr);
#endif

/*
 * Historical exports no public header declares any more (rdma-core keeps
 * them for librdmacm and for very old provider plugins).
 */
struct ib_user_path_rec;
struct ib_uverbs_ah_attr;
struct ib_uverbs_qp_attr;
struct ibv_sa_path_rec;

typedef struct ibv_device *(*emu_legacy_driver_init_fn)(const char *sysfs_path,
							int abi_version);

void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src);
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src);
void ibv_register_driver(const char *name,
			 emu_legacy_driver_init_fn init_func);

/* ------------------------------------------------------------------ */
/* Completion channels and CQ events                                   */

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */

/* The header turns these names into function-like macros that pick the
 * right entry point at compile time; the exported functions themselves
 * keep the plain names. */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				 size_t length, uint64_t iova, int fd,
				 int access)
{
	return unsupported_null();
}

struct ibv_mr *ibv_reg_mr_ex(struct ibv_pd *pd,
			     struct ibv_mr_init_attr *mr_init_attr)
{
	return unsupported_null();
}

/* ------------------------------------------------------------------ */
/* Library-allocated buffers, device memory, DMA handles               */

void *ibv_alloc_buf(struct ibv_pd *pd, size_t size, struct ibv_buf **buf)
{
	return unsupported_null();
}

/* Nothing can have come from ibv_alloc_buf, so there is nothing to free. */
void ibv_free_buf(struct ibv_buf *buf)
{
}

struct ibv_mr *ibv_reg_buf_mr(struct ibv_pd *pd, struct ibv_buf *buf,
			      void *addr, size_t length, int access)
{
	return unsupported_null();
}

int ibv_export_buf_dmabuf_fd(struct ibv_buf *buf)
{
	return unsupported_minus_one();
}

int ibv_dm_export_dmabuf_fd(struct ibv_dm *dm)
{
	return unsupported_minus_one();
}

struct ibv_dmah *ibv_alloc_dmah(struct ibv_context *context,
				struct ibv_dmah_init_attr *attr)
{
	return unsupported_null();
}

int ibv_dealloc_dmah(struct ibv_dmah *dmah)
{
	return unsupported_errno();
}

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */

/* ------------------------------------------------------------------ */
/* Completion counters                                                 */

/* The inline ibv_query_comp_cntr_caps() wrapper passes sizeof(*caps);
 * rdma-core clears the caller's struct before failing, so do we. */
int _ibv_query_comp_cntr_caps(struct ibv_context *context,
			      struct ibv_comp_cntr_caps *caps,
			      size_t caps_size)
{
	if (caps && caps_size)
		memset(caps, 0, caps_size);
	return unsupported_errno();
}

struct ibv_comp_cntr *
ibv_create_comp_cntr(struct ibv_context *context,
		     struct ibv_comp_cntr_init_attr *cc_attr)
{
	return unsupported_null();
}

int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr)
{
	return unsupported_errno();
}

int ibv_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value)
{
	return unsupported_errno();
}

int ibv_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value)
{
	return unsupported_errno();
}

int ibv_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount)
{
	return unsupported_errno();
}

int ibv_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount)
{
	return unsupported_errno();
}

int ibv_read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value)
{
	return unsupported_errno();
}

int ibv_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value)
{
	return unsupported_errno();
}

int ibv_qp_attach_comp_cntr(struct ibv_qp *qp,
			    struct ibv_comp_cntr *comp_cntr,
			    struct ibv_qp_attach_comp_cntr_attr *attr)
{
	return unsupported_errno();
}

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */

/* Not an error code but a capability answer: 0 means "no in-order
 * guarantee", which is what rdma-core answers for devices that cannot
 * say, and the only answer that is safe for a caller to act on. */
int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
			       uint32_t flags)
{
	return 0;
}

int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	return unsupported_errno();
}

int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	return unsupported_errno();
}

/* ------------------------------------------------------------------ */
/* Address handles                                                     */

/* rdma-core returns a negative errno from this one (-EINVAL,
 * -EHOSTUNREACH), unlike the rest of the API. */
int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
				struct ibv_ah_attr *attr,
				uint8_t eth_mac[ETHERNET_LL_SIZE],
				uint16_t *vid)
{
	unsupported(__func__);
	return -EOPNOTSUPP;
}

/* ------------------------------------------------------------------ */
/* Multicast                                                           */

int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	return unsupported_errno();
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	return unsupported_errno();
}

/* ------------------------------------------------------------------ */
/* Historical helpers                                                  */

/*
 * librdmacm uses the ibv_copy_* converters only on structures the kernel's
 * rdma_ucm filled in, and no kernel knows our devices, so they are never
 * reached with real data; leave the destination alone.
 */
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src)
{
}

void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src)
{
}

void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src)
{
}

void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src)
{
}

/* A no-op in rdma-core too: out-of-tree providers from before 2017 call it
 * and only need it to exist. */
void ibv_register_driver(const char *name,
			 emu_legacy_driver_init_fn init_func)
{
}

/* ================================================================== */
/* IBVERBS_PRIVATE_34: rdma-core 44's provider interface               */
/*
 * Present only so that Debian's libmlx5.so.1 and libefa.so.1 (pulled in by
 * perftest and pyverbs) and the other provider libraries of that package
 * can be loaded next to us; see the comment on that node in
 * verbs/libibverbs.map. Their constructors call
 * verbs_register_driver_34(), which drops the registration, so no device
 * of theirs exists and nothing below runs in practice. The prototypes are
 * rdma-core 44's (that is the ABI these libraries were built for); the
 * driver-side types stay incomplete because no stub looks inside them.
 * The ibv_cmd_* family returns an errno value, like the kernel-command
 * wrappers they stand in for.
 */

struct ib_uverbs_alloc_mw_resp;
struct ib_uverbs_alloc_pd_resp;
struct ib_uverbs_create_ah_resp;
struct ib_uverbs_create_cq_resp;
struct ib_uverbs_create_qp_resp;
struct ib_uverbs_create_srq_resp;
struct ib_uverbs_ex_create_cq_resp;
struct ib_uverbs_ex_create_qp_resp;
struct ib_uverbs_ex_create_rwq_ind_table_resp;
struct ib_uverbs_ex_create_wq_resp;
struct ib_uverbs_ex_modify_qp_resp;
struct ib_uverbs_ex_query_device_resp;
struct ib_uverbs_get_context_resp;
struct ib_uverbs_open_xrcd_resp;
struct ib_uverbs_reg_mr_resp;
struct ib_uverbs_rereg_mr_resp;
struct ib_uverbs_resize_cq_resp;
struct ibv_alloc_mw;
struct ibv_alloc_pd;
struct ibv_command_buffer;
struct ibv_create_cq;
struct ibv_create_cq_ex;
struct ibv_create_qp;
struct ibv_create_qp_ex;
struct ibv_create_srq;
struct ibv_create_wq;
struct ibv_create_xsrq;
struct ibv_get_context;
struct ibv_modify_cq;
struct ibv_modify_qp;
struct ibv_modify_qp_ex;
struct ibv_modify_srq;
struct ibv_modify_wq;
struct ibv_open_qp;
struct ibv_open_xrcd;
struct ibv_query_port;
struct ibv_query_qp;
struct ibv_query_srq;
struct ibv_reg_mr;
struct ibv_rereg_mr;
struct ibv_resize_cq;
struct verbs_context;
struct verbs_context_ops;
struct verbs_counters;
struct verbs_cq;
struct verbs_device_ops;
struct verbs_dm;
struct verbs_flow_action;
struct verbs_mr;
struct verbs_qp;
struct verbs_srq;
struct verbs_xrcd;

extern bool verbs_allow_disassociate_destroy;

void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 const char *fmt, ...);
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);
struct ibv_context *verbs_open_device(struct ibv_device *device,
				      void *private_data);
int execute_ioctl(struct ibv_context *context,
		  struct ibv_command_buffer *cmd);

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_context(struct ibv_context *ctx,
			  struct ibv_command_buffer *driver);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp,
		      size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge);
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		      struct ibv_modify_cq *cmd, size_t cmd_size);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd,
		      size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd,
			size_t ucmd_size);
int ibv_cmd_destroy_flow(struct ibv_flow *flow_id);
int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
				   struct ibv_flow_action_esp_attr *attr,
				   struct verbs_flow_action *flow_action,
				   struct ibv_command_buffer *driver);
int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
				   struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver);
int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action);
int ibv_cmd_create_wq(struct ibv_context *context,
		      struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq,
		      struct ibv_create_wq *cmd, size_t cmd_size,
		      struct ib_uverbs_ex_create_wq_resp *resp,
		      size_t resp_size);
int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
		      struct ibv_modify_wq *cmd, size_t cmd_size);
int ibv_cmd_destroy_wq(struct ibv_wq *wq);
int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr,
		struct ibv_rwq_ind_table *rwq_ind_table,
		struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
		size_t resp_size);
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table);
int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters,
			    struct ibv_command_buffer *link);
int ibv_cmd_destroy_counters(struct verbs_counters *vcounters);
int ibv_cmd_read_counters(struct verbs_counters *vcounters,
			  uint64_t *counters_value, uint32_t ncounters,
			  uint32_t flags, struct ibv_command_buffer *link);
int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link);
int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length, unsigned int access,
		      struct verbs_mr *vmr, struct ibv_command_buffer *link);

/* rdma-core sets it from RDMAV_ALLOW_DISASSOC_DESTROY for its providers;
 * no provider of ours reads it. */
bool verbs_allow_disassociate_destroy;

/* Provider plumbing: these only make sense for a provider that registered,
 * and none can (see verbs_register_driver_34). */

void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 const char *fmt, ...)
{
}

/* Called from the constructors of Debian's provider libraries when they are
 * loaded. Dropping the registration keeps their hardware-only code paths
 * unreachable; emuverbs has its own device model. */
void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
}

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id)
{
	return unsupported_null();
}

void verbs_uninit_context(struct verbs_context *context)
{
}

void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops)
{
}

void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context)
{
}

struct ibv_context *verbs_open_device(struct ibv_device *device,
				      void *private_data)
{
	return unsupported_null();
}

int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd)
{
	return unsupported_errno();
}

/* Kernel-command wrappers: device and context */

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_query_context(struct ibv_context *ctx,
			  struct ibv_command_buffer *driver)
{
	return unsupported_errno();
}

int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size)
{
	return unsupported_errno();
}

/* Kernel-command wrappers: PD, XRCD, MR, MW, DM */

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_dealloc_pd(struct ibv_pd *pd)
{
	return unsupported_errno();
}

int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp,
		      size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)
{
	return unsupported_errno();
}

int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz)
{
	return unsupported_errno();
}

int ibv_cmd_dereg_mr(struct verbs_mr *vmr)
{
	return unsupported_errno();
}

int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle)
{
	return unsupported_errno();
}

int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge)
{
	return unsupported_errno();
}

int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr)
{
	return unsupported_errno();
}

int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_dealloc_mw(struct ibv_mw *mw)
{
	return unsupported_errno();
}

int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link)
{
	return unsupported_errno();
}

int ibv_cmd_free_dm(struct verbs_dm *dm)
{
	return unsupported_errno();
}

int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length, unsigned int access,
		      struct verbs_mr *vmr, struct ibv_command_buffer *link)
{
	return unsupported_errno();
}

/* Kernel-command wrappers: CQ */

int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags)
{
	return unsupported_errno();
}

int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_destroy_cq(struct ibv_cq *cq)
{
	return unsupported_errno();
}

int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		      struct ibv_modify_cq *cmd, size_t cmd_size)
{
	return unsupported_errno();
}

/* Kernel-command wrappers: SRQ */

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size)
{
	return unsupported_errno();
}

int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size)
{
	return unsupported_errno();
}

int ibv_cmd_destroy_srq(struct ibv_srq *srq)
{
	return unsupported_errno();
}

/* Kernel-command wrappers: QP, AH, multicast */

int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd,
		      size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		      size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size)
{
	return unsupported_errno();
}

int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size)
{
	return unsupported_errno();
}

int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	return unsupported_errno();
}

int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_destroy_ah(struct ibv_ah *ah)
{
	return unsupported_errno();
}

int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid)
{
	return unsupported_errno();
}

int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid)
{
	return unsupported_errno();
}

/* Kernel-command wrappers: flows, WQs, RSS tables, counters */

int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd,
			size_t ucmd_size)
{
	return unsupported_errno();
}

int ibv_cmd_destroy_flow(struct ibv_flow *flow_id)
{
	return unsupported_errno();
}

int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
				   struct ibv_flow_action_esp_attr *attr,
				   struct verbs_flow_action *flow_action,
				   struct ibv_command_buffer *driver)
{
	return unsupported_errno();
}

int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
				   struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver)
{
	return unsupported_errno();
}

int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)
{
	return unsupported_errno();
}

int ibv_cmd_create_wq(struct ibv_context *context,
		      struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq,
		      struct ibv_create_wq *cmd, size_t cmd_size,
		      struct ib_uverbs_ex_create_wq_resp *resp,
		      size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
		      struct ibv_modify_wq *cmd, size_t cmd_size)
{
	return unsupported_errno();
}

int ibv_cmd_destroy_wq(struct ibv_wq *wq)
{
	return unsupported_errno();
}

int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr,
		struct ibv_rwq_ind_table *rwq_ind_table,
		struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
		size_t resp_size)
{
	return unsupported_errno();
}

int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table)
{
	return unsupported_errno();
}

int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters,
			    struct ibv_command_buffer *link)
{
	return unsupported_errno();
}

int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)
{
	return unsupported_errno();
}

int ibv_cmd_read_counters(struct verbs_counters *vcounters,
			  uint64_t *counters_value, uint32_t ncounters,
			  uint32_t flags, struct ibv_command_buffer *link)
{
	return unsupported_errno();
}
