/* The exported verbs emuverbs does not emulate: each fails with EOPNOTSUPP
 * in the way its man page promises, or does nothing where doing nothing is
 * the answer. */

/*
 * Every symbol in verbs/libibverbs.map needs a definition so that programs
 * linked against rdma-core load and run until they reach a verb we lack.
 * The kernel-command wrappers (ibv_cmd_*) are generated from the map into
 * verbs/cmd_stubs.c; the entries here each have their own prototype and
 * way of failing, so they are written out (doc/design-notes.md). A verb
 * that gets a real implementation elsewhere cannot keep its entry here:
 * the link fails on the second definition until it is deleted, and
 * tests/unit/test_unsupported.c, which calls every entry, with it.
 *
 * The entries never look at their arguments (so NULL cannot crash them)
 * and always leave errno = EOPNOTSUPP, even for the verbs whose contract
 * is to return the errno value: real libibverbs leaves errno set by the
 * failing system call there too, and programs often perror() either way.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/base/log.h"
#include "verbs/unsupported.h"

/* An entry's whole point is to ignore its arguments. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Each refusal says which verb refused (EMUVERBS_DEBUG=verbs): the
 * helpers take the calling entry's name through the macros below. */
int emu_verbs_unsupported(const char *verb)
{
	errno = emu_refuse(EOPNOTSUPP, "%s: not emulated", verb);
	return EOPNOTSUPP;
}

/* For verbs documented to return 0 or "the value of errno". */
static inline int unsupported_errno_(const char *verb)
{
	return emu_verbs_unsupported(verb);
}

/* For verbs documented to return -1 and set errno. */
static inline int unsupported_minus_one_(const char *verb)
{
	emu_verbs_unsupported(verb);
	return -1;
}

/* For verbs documented to return NULL and set errno. */
static inline void *unsupported_null_(const char *verb)
{
	emu_verbs_unsupported(verb);
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

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */

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
	return -emu_verbs_unsupported(__func__);
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
 * of theirs exists and nothing below runs in practice. Their prototypes
 * are in verbs/unsupported.h. The ibv_cmd_* family of this node is
 * generated (verbs/cmd_stubs.awk).
 */

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
