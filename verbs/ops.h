/* The ops table the front end installs in every context: the entry points
 * that header inline functions and legacy programs reach through ctx->ops. */
#ifndef VERBS_OPS_H
#define VERBS_OPS_H

struct emu_context;

/* Fill a freshly opened context: ibv_context fields and every op slot. */
void emu_verbs_init_context(struct emu_context *ctx);

/* Validated query entry points shared by the exported functions and the
 * op slots (verbs/query.c). */
int emu_verbs_query_port(struct ibv_context *context, uint8_t port_num,
			 struct ibv_port_attr *attr, size_t attr_len);
int emu_verbs_query_device_ex(struct ibv_context *context,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr,
			      size_t attr_size);

#endif
