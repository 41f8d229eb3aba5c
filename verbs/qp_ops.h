/* The QP entries of a context's ops table: post_send, post_recv and the
 * verbs_context create_qp_ex slot (verbs/qp.c). */
#ifndef VERBS_QP_OPS_H
#define VERBS_QP_OPS_H

#include <infiniband/verbs.h>

void emu_verbs_set_qp_ops(struct verbs_context *vctx);

#endif
