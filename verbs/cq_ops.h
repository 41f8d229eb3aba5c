/* The CQ slots of a context's ops tables, installed by verbs/cq.c: polling
 * and arming (ctx->ops) and extended CQ creation (verbs_context). */
#ifndef VERBS_CQ_OPS_H
#define VERBS_CQ_OPS_H

#include <infiniband/verbs.h>

void emu_verbs_set_cq_ops(struct verbs_context *vctx);

#endif
