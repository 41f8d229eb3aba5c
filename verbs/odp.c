/* Front end of on-demand paging: the op behind ibv_advise_mr, its argument
 * checks in the kernel's order and errno conventions (emu/objects/odp.c). */
#include <errno.h>

#include "emu/base/log.h"
#include "emu/objects/odp.h"
#include "emu/objects/pd.h"
#include "verbs/err.h"
#include "verbs/handle.h"
#include "verbs/ops.h"

/*
 * The kernel takes the SGE list apart first (UVERBS_ATTR_ADVISE_MR_SGE_LIST
 * holds at least one SGE: EINVAL; an unreadable list: EFAULT), then the
 * flags (uverbs_get_flags32: EINVAL for a bit besides FLUSH), and mlx5
 * answers an advice it does not know with EOPNOTSUPP
 * (drivers/infiniband/core/uverbs_std_types_mr.c, mlx5_ib_advise_mr()).
 */
int emu_verbs_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			uint32_t flags, struct ibv_sge *sg_list,
			uint32_t num_sge)
{
	int rc;

	if (!pd)
		return verbs_ret(emu_refuse(EINVAL, "ibv_advise_mr: pd is "
					    "NULL"));
	/* UVERBS_METHOD_ADVISE_MR finds the PD by handle first. */
	rc = verbs_obj_find(NULL, pd, EMU_OBJ_PD, "ibv_advise_mr", "pd");
	if (rc)
		return verbs_ret(rc);
	if (!num_sge)
		return verbs_ret(emu_refuse(EINVAL, "ibv_advise_mr: num_sge "
					    "is 0"));
	if (!sg_list)
		return verbs_ret(emu_refuse(EFAULT, "ibv_advise_mr: sg_list "
					    "is NULL"));
	if (flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH)
		return verbs_ret(emu_refuse(EINVAL, "ibv_advise_mr: flags %#x "
					    "has unknown bits", flags));
	if (advice != IBV_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return verbs_ret(emu_refuse(EOPNOTSUPP, "ibv_advise_mr: "
					    "advice %d unknown", (int)advice));
	return verbs_ret(emu_odp_advise(to_emu_pd(pd), advice, flags,
					sg_list, num_sge));
}
