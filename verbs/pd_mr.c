/* Front end of PDs, MRs and AHs: argument and access-flag checks and the
 * errno conventions of each verb; emu/objects/mr.c and emu/objects/ah.c do the work. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/objects/ah.h"
#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/pd.h"
#include "emu/objects/pdom.h"
#include "verbs/err.h"
#include "verbs/handle.h"
#include "verbs/import.h"

/* The header turns these into inline selectors; we define the symbols. */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

/* Exported by verbs/rate.c; rdma-core's private driver.h declares them. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/* Every access bit the kernel's uAPI defines below the optional range. */
#define KNOWN_ACCESS (((unsigned int)IBV_ACCESS_FLUSH_PERSISTENT << 1) - 1)

/*
 * The kernel's rules for MR access flags (ib_check_mr_access), in its
 * order:
 * - remote write or atomic needs local write (IBTA): EINVAL;
 * - a bit outside the known set and the optional range: EINVAL;
 * - ON_DEMAND on a device without ODP: EOPNOTSUPP. Ours has ODP
 *   (emu/objects/odp.c), so ON_DEMAND is a right like the others;
 * - FLUSH_GLOBAL / FLUSH_PERSISTENT on a device without those capability
 *   flags (ours has neither): EOPNOTSUPP.
 * Accepted and ignored: the optional range (RELAXED_ORDERING among it:
 * we never reorder, which relaxed ordering allows), HUGETLB (a promise
 * about pages that only matters to an IOMMU mapping), ZERO_BASED (iova 0,
 * applied in emu/objects/mr.c). MW_BIND is a right like the others (emu/objects/mw.c).
 */
static int check_access(unsigned int access, const char *verb)
{
	access &= ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return emu_refuse(EINVAL, "%s: access %#x: remote write or "
				  "atomic needs IBV_ACCESS_LOCAL_WRITE", verb,
				  access);
	if (access & ~KNOWN_ACCESS)
		return emu_refuse(EINVAL, "%s: access %#x has unknown bits",
				  verb, access);
	if (access & (IBV_ACCESS_FLUSH_GLOBAL | IBV_ACCESS_FLUSH_PERSISTENT))
		return emu_refuse(EOPNOTSUPP, "%s: IBV_ACCESS_FLUSH_*: no "
				  "flush on this device", verb);
	return 0;
}

/* ---- protection domains ----------------------------------------------- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct emu_pd *pd;
	int rc;

	if (!context)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_pd: context "
					     "is NULL"));
	rc = verbs_ctx_live(context, "ibv_alloc_pd");
	if (rc)
		return verbs_null(rc);
	pd = emu_pd_alloc(emu_ctx(context));
	if (!pd)
		return NULL;
	/* Importable by its handle (ibv_import_pd). */
	if (emu_verbs_pd_created(pd)) {
		emu_pd_free(pd);
		return verbs_null(ENOMEM);
	}
	return &pd->ibv;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	int rc;

	if (!pd)
		return verbs_ret(emu_refuse(EINVAL, "ibv_dealloc_pd: pd is "
					    "NULL"));
	/* The handle first: it names the PD (an import's, the one it stands
	 * for) in its context, or the call ends here. A parent domain goes
	 * as itself, not as the PD it stands for; an import takes the PD
	 * with it (verbs/import.c). */
	rc = verbs_obj_find(NULL, pd, EMU_OBJ_PD, "ibv_dealloc_pd", "pd");
	if (rc)
		return verbs_ret(rc);
	if (emu_pdom_of(pd))
		return verbs_ret(emu_pdom_free(emu_pdom_of(pd)));
	return verbs_ret(emu_verbs_pd_free(emu_pd_self(pd)));
}

/* ---- memory regions ---------------------------------------------------- */

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	bool odp = access & IBV_ACCESS_ON_DEMAND;
	struct emu_mr *mr;
	int rc;

	if (!pd)
		rc = emu_refuse(EINVAL, "ibv_reg_mr: pd is NULL");
	else
		rc = check_access(access, "ibv_reg_mr");
	if (!rc)
		rc = verbs_obj_find_wr(NULL, pd, EMU_OBJ_PD, "ibv_reg_mr",
				       "pd");
	if (rc)
		return verbs_null(rc);
	/* As rdma-core: the range is marked for fork handling first, and
	 * unmarked if registration fails; not an ODP range, which pins
	 * nothing (and may be the whole address space). */
	if (!odp && ibv_dontfork_range(addr, length))
		return NULL;
	rc = emu_mr_register(to_emu_pd(pd), addr, length, iova, access, &mr);
	if (rc) {
		if (!odp)
			ibv_dofork_range(addr, length);
		return verbs_null(rc);
	}
	/* The PD as given (a parent domain, say), as libibverbs sets it. */
	mr->ibv.pd = pd;
	return &mr->ibv;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr,
				(unsigned int)access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

/*
 * What the return codes promise (ibv_rereg_mr(3)):
 * IBV_REREG_MR_ERR_INPUT: an argument is wrong and the MR is untouched:
 *   unknown or no flags, CHANGE_TRANSLATION without addr or length,
 *   access bits without CHANGE_ACCESS, bad access bits, an mr that is no
 *   live MR (ENOENT: deregistered, freed, garbage; EIO: the parent's, in
 *   a fork() child), an imported MR, CHANGE_PD without a PD of the MR's
 *   context;
 * IBV_REREG_MR_ERR_CMD: the change itself failed (a range that is not
 *   mapped or wraps); the MR's keys no longer work, as on a real HCA, and
 *   it must still be deregistered;
 * the fork codes: marking the new range or unmarking the old one failed.
 * rdma-core lets flags 0, bad access bits and a dead MR's handle reach the
 * kernel, which makes them ERR_CMD; we catch them first, so the code says
 * the MR is as it was (a dead one is not to be deregistered again).
 */
static int rereg_check(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		       void *addr, size_t length, int access)
{
	int rc;

	if (!mr)
		return emu_refuse(EINVAL, "ibv_rereg_mr: mr is NULL");
	if (!flags || (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED))
		return emu_refuse(EINVAL, "ibv_rereg_mr: flags %#x: none, or "
				  "unknown bits", flags);
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && (!addr || !length))
		return emu_refuse(EINVAL, "ibv_rereg_mr: CHANGE_TRANSLATION "
				  "without addr or length");
	if (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS))
		return emu_refuse(EINVAL, "ibv_rereg_mr: access %#x without "
				  "IBV_REREG_MR_CHANGE_ACCESS", access);
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		rc = check_access((unsigned int)access, "ibv_rereg_mr");
		if (rc)
			return rc;
	}
	/* The kernel's command finds the MR by handle (ENOENT when it is
	 * gone); an import is not a region of this context's own. */
	rc = verbs_obj_live(mr, EMU_OBJ_MR, "ibv_rereg_mr", "mr");
	if (rc)
		return rc;
	if (to_emu_mr(mr)->imported)
		return emu_refuse(EINVAL, "ibv_rereg_mr: an imported MR");
	rc = verbs_obj_find(NULL, mr, EMU_OBJ_MR, "ibv_rereg_mr", "mr");
	if (rc || !(flags & IBV_REREG_MR_CHANGE_PD))
		return rc;
	/* The new PD through write()'s lookup: EINVAL for anything else. */
	if (!pd)
		return emu_refuse(EINVAL, "ibv_rereg_mr: CHANGE_PD without a "
				  "pd");
	rc = verbs_obj_find_wr(mr->context, pd, EMU_OBJ_PD, "ibv_rereg_mr",
			       "pd");
	if (!rc && pd->context != mr->context)
		rc = emu_refuse(EINVAL, "ibv_rereg_mr: CHANGE_PD with a pd of "
				"another context");
	return rc;
}

int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		 size_t length, int access)
{
	void *old_addr;
	size_t old_len;
	int rc;

	rc = rereg_check(mr, flags, pd, addr, length, access);
	if (rc) {
		errno = rc;
		return IBV_REREG_MR_ERR_INPUT;
	}

	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
	    ibv_dontfork_range(addr, length))
		return IBV_REREG_MR_ERR_DONT_FORK_NEW;
	old_addr = mr->addr;
	old_len = mr->length;
	/* Without CHANGE_PD the pd argument is not looked at: callers
	 * (pyverbs among them) pass whatever they have there. */
	rc = emu_mr_reregister(to_emu_mr(mr), flags,
			       (flags & IBV_REREG_MR_CHANGE_PD) ?
			       to_emu_pd(pd) : NULL, addr, length,
			       (unsigned int)access);
	if (!rc && (flags & IBV_REREG_MR_CHANGE_PD))
		mr->pd = pd;
	if (rc) {
		if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
		    ibv_dofork_range(addr, length)) {
			errno = rc;
			return IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW;
		}
		errno = rc;
		return IBV_REREG_MR_ERR_CMD;
	}
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
	    ibv_dofork_range(old_addr, old_len))
		return IBV_REREG_MR_ERR_DO_FORK_OLD;
	return 0;
}

/* EBUSY while memory windows are bound to the region (ibv_alloc_mw(3)). */
int ibv_dereg_mr(struct ibv_mr *mr)
{
	void *addr;
	size_t length;
	bool odp;
	int rc;

	if (!mr)
		return verbs_ret(emu_refuse(EINVAL, "ibv_dereg_mr: mr is "
					    "NULL"));
	rc = verbs_obj_live(mr, EMU_OBJ_MR, "ibv_dereg_mr", "mr");
	if (rc)
		return verbs_ret(rc);
	/* As the kernel: deregistering an import deregisters the region
	 * (found by its handle in the family, verbs/import.c). */
	if (to_emu_mr(mr)->imported)
		return verbs_ret(emu_verbs_imported_mr_dereg(mr));
	rc = verbs_obj_find(NULL, mr, EMU_OBJ_MR, "ibv_dereg_mr", "mr");
	if (rc)
		return verbs_ret(rc);
	addr = mr->addr;
	length = mr->length;
	odp = to_emu_mr(mr)->odp;
	rc = emu_mr_deregister(to_emu_mr(mr));
	if (rc)
		return verbs_ret(rc);
	if (!odp)
		ibv_dofork_range(addr, length);
	return 0;
}

/* ---- address handles --------------------------------------------------- */

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct emu_ah *ah;
	int rc;

	if (!pd || !attr)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_ah: pd or "
					     "attr is NULL"));
	rc = verbs_obj_find_wr(NULL, pd, EMU_OBJ_PD, "ibv_create_ah", "pd");
	if (!rc)
		rc = emu_ah_create(to_emu_pd(pd), attr, &ah);
	if (rc)
		return verbs_null(rc);
	ah->ibv.pd = pd;
	return &ah->ibv;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	int rc;

	if (!ah)
		return verbs_ret(emu_refuse(EINVAL, "ibv_destroy_ah: ah is "
					    "NULL"));
	rc = verbs_obj_find(NULL, ah, EMU_OBJ_AH, "ibv_destroy_ah", "ah");
	if (rc)
		return verbs_ret(rc);
	emu_ah_destroy(to_emu_ah(ah));
	return 0;
}

int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
			struct ibv_wc *wc, struct ibv_grh *grh,
			struct ibv_ah_attr *ah_attr)
{
	int rc;

	if (!context || !wc || !ah_attr) {
		errno = emu_refuse(EINVAL, "ibv_init_ah_from_wc: context, wc "
				   "or ah_attr is NULL");
		return -1;
	}
	rc = emu_ah_attr_from_wc(emu_ctx(context)->dev, port_num, wc, grh,
				 ah_attr);
	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
				     struct ibv_grh *grh, uint8_t port_num)
{
	struct ibv_ah_attr attr;

	int rc;

	if (!pd)
		return verbs_null(emu_refuse(EINVAL, "ibv_create_ah_from_wc: "
					     "pd is NULL"));
	rc = verbs_obj_find_wr(NULL, pd, EMU_OBJ_PD, "ibv_create_ah_from_wc",
			       "pd");
	if (rc)
		return verbs_null(rc);
	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}
