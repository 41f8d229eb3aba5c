/* Front end of thread and parent domains: the ops behind ibv_alloc_td,
 * ibv_dealloc_td and ibv_alloc_parent_domain, with mlx5's checks and
 * errnos (emu/objects/pdom.c does the work; ibv_dealloc_pd frees a parent
 * domain, verbs/pd_mr.c). */
#include <errno.h>

#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/pdom.h"
#include "verbs/err.h"
#include "verbs/handle.h"
#include "verbs/ops.h"

#define PDOM_MASK_KNOWN                                                   \
	(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |                         \
	 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT |                         \
	 IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC)

/* mlx5_alloc_td: no comp_mask bit is defined (EINVAL). */
struct ibv_td *emu_verbs_alloc_td(struct ibv_context *context,
				  struct ibv_td_init_attr *init_attr)
{
	struct emu_td *td;
	int rc;

	if (!context || !init_attr)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_td: context "
					     "or init_attr is NULL"));
	rc = verbs_ctx_live(context, "ibv_alloc_td");
	if (rc)
		return verbs_null(rc);
	if (init_attr->comp_mask)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_td: comp_mask "
					     "%#x, none is defined",
					     init_attr->comp_mask));
	rc = emu_td_alloc(emu_ctx(context), &td);
	if (rc)
		return verbs_null(rc);
	return &td->ibv;
}

/* mlx5_dealloc_td: EBUSY while a parent domain holds it. */
int emu_verbs_dealloc_td(struct ibv_td *td)
{
	if (!td)
		return verbs_ret(emu_refuse(EINVAL, "ibv_dealloc_td: td is "
					    "NULL"));
	if (verbs_ctx_live(td->context, "ibv_dealloc_td"))
		return verbs_ret(EIO);
	return verbs_ret(emu_td_free(to_emu_td(td)));
}

/*
 * mlx5_alloc_parent_domain: a PD is required (ibv_check_alloc_parent_domain,
 * EINVAL), comp_mask bits beyond the three defined are EINVAL. Stricter
 * than mlx5, which would fail later or crash: a PD or TD of another
 * context, or ALLOCATORS without both functions, are EINVAL here. The
 * confidential-computing bit asks for memory a device outside the guest
 * may reach: all of ours is, so it changes nothing.
 */
struct ibv_pd *
emu_verbs_alloc_parent_domain(struct ibv_context *context,
			      struct ibv_parent_domain_init_attr *attr)
{
	struct emu_pdom *d;
	int rc;

	if (!context || !attr)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_parent_domain: "
					     "context or attr is NULL"));
	if (!attr->pd)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_parent_domain: "
					     "attr->pd is NULL"));
	rc = verbs_ctx_live(context, "ibv_alloc_parent_domain");
	if (!rc)
		rc = verbs_obj_live(attr->pd, EMU_OBJ_PD,
				    "ibv_alloc_parent_domain", "pd");
	if (rc)
		return verbs_null(rc);
	if (attr->comp_mask & ~(uint32_t)PDOM_MASK_KNOWN)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_parent_domain: "
					     "comp_mask %#x has unknown bits",
					     attr->comp_mask));
	if (attr->pd->context != context ||
	    (attr->td && attr->td->context != context))
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_parent_domain: "
					     "pd or td of another context"));
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (!attr->alloc || !attr->free))
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_parent_domain: "
					     "ALLOCATORS without alloc and "
					     "free"));
	rc = emu_pdom_alloc(emu_ctx(context), to_emu_pd(attr->pd),
			    attr->td ? to_emu_td(attr->td) : NULL,
			    attr->comp_mask &
			    IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS ?
			    attr->alloc : NULL,
			    attr->comp_mask &
			    IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS ?
			    attr->free : NULL,
			    attr->comp_mask &
			    IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT ?
			    attr->pd_context : NULL, &d);
	if (rc)
		return verbs_null(rc);
	return &d->pd.ibv;
}
