/* The SRQ and XRC entries of a context's ops table: post_srq_recv and the
 * verbs_context create_srq_ex, get_srq_num, open/close_xrcd, open_qp. */
#ifndef VERBS_SRQ_OPS_H
#define VERBS_SRQ_OPS_H

#include <infiniband/verbs.h>

void emu_verbs_set_srq_ops(struct verbs_context *vctx);

#endif
