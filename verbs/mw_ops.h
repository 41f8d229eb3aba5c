/* The memory-window entries of a context's ops table: alloc_mw, bind_mw
 * and dealloc_mw, which ibv_alloc_mw and friends reach inline (verbs/mw.c). */
#ifndef VERBS_MW_OPS_H
#define VERBS_MW_OPS_H

#include <infiniband/verbs.h>

void emu_verbs_set_mw_ops(struct verbs_context *vctx);

#endif
