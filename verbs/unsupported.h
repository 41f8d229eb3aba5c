/* The refusal every not-emulated entry point makes (verbs/unsupported.c,
 * and the generated verbs/cmd_stubs.c), and the prototypes of the exports
 * there that no public header declares. */
#ifndef VERBS_UNSUPPORTED_H
#define VERBS_UNSUPPORTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* Says under EMUVERBS_DEBUG=verbs that verb is not emulated, leaves errno
 * EOPNOTSUPP and returns EOPNOTSUPP. */
int emu_verbs_unsupported(const char *verb);

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

/*
 * IBVERBS_PRIVATE_34, rdma-core 44's provider interface, apart from the
 * generated ibv_cmd_* family. The prototypes are rdma-core 44's (the ABI
 * Debian's provider libraries were built for); the driver-side types stay
 * incomplete because no entry looks inside them.
 */
struct ibv_command_buffer;
struct verbs_context;
struct verbs_context_ops;
struct verbs_device_ops;

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

#endif
