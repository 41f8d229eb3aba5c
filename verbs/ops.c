/* Installs the ops table into each opened context: which verbs this device
 * implements, and the safe EOPNOTSUPP entries for the data path it lacks. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "emu/device.h"
#include "emu/log.h"
#include "verbs/cq_ops.h"
#include "verbs/mw_ops.h"
#include "verbs/ops.h"
#include "verbs/qp_ops.h"
#include "verbs/srq_ops.h"

/* Data-path slots the header's inline functions call directly, before the
 * QP ops replace them; they refuse without touching their arguments. */
static int no_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad_wr)
{
	if (bad_wr)
		*bad_wr = wr;
	errno = emu_refuse(EOPNOTSUPP, "ibv_post_send: no send path here");
	return EOPNOTSUPP;
}

static int no_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	if (bad_wr)
		*bad_wr = wr;
	errno = emu_refuse(EOPNOTSUPP, "ibv_post_recv: no receive path "
			   "here");
	return EOPNOTSUPP;
}

void emu_verbs_init_context(struct emu_context *ctx)
{
	struct verbs_context *vctx = &ctx->vctx;
	struct ibv_context *c = &vctx->context;

	c->device = &ctx->dev->ibdev;
	/* No kernel behind us, but programs dup or poll this fd (to import
	 * the device elsewhere, say): it must be a real descriptor. */
	c->cmd_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	c->async_fd = ctx->async.fd;
	c->num_comp_vectors = 1;
	pthread_mutex_init(&c->mutex, NULL);
	/* Tells verbs_get_ctx() the extended ops below are present. */
	c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx->sz = sizeof(*vctx);

	c->ops._compat_query_device = ibv_query_device;
	c->ops._compat_query_port =
		(int (*)(struct ibv_context *, uint8_t,
			 struct _compat_ibv_port_attr *))ibv_query_port;
	c->ops.post_send = no_post_send;
	c->ops.post_recv = no_post_recv;

	vctx->query_port = emu_verbs_query_port;
	vctx->query_device_ex = emu_verbs_query_device_ex;
	emu_verbs_set_cq_ops(vctx);
	emu_verbs_set_qp_ops(vctx);
	emu_verbs_set_srq_ops(vctx);
	emu_verbs_set_mw_ops(vctx);
}
