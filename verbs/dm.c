/* Front end of device memory: the ops behind ibv_alloc_dm, ibv_free_dm and
 * ibv_reg_dm_mr, and each DM's ibv_memcpy_to/from_dm, with the argument
 * checks and errnos of rdma-core's mlx5 provider and the kernel (emu/objects/dm.c
 * does the work). */
#include <errno.h>

#include "emu/device/device.h"
#include "emu/objects/dm.h"
#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/pd.h"
#include "verbs/err.h"
#include "verbs/handle.h"
#include "verbs/ops.h"

/* The rights a region on device memory may have (mlx5_reg_dm_mr's
 * MLX5_DM_ALLOWED_ACCESS, the kernel's MEMIC list): no ODP, no windows. */
#define DM_MR_ACCESS                                                      \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |               \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |              \
	 IBV_ACCESS_ZERO_BASED | IBV_ACCESS_OPTIONAL_RANGE)

/* mlx5_access_dm(): the range first (EFAULT), then the 4-byte alignment
 * the HCA's memory is accessed with (EINVAL). */
static int check_copy(struct ibv_dm *dm, uint64_t off, size_t len,
		      const char *verb)
{
	struct emu_dm *d = to_emu_dm(dm);

	if (off > d->length || len > d->length - off)
		return emu_refuse(EFAULT, "%s: [%llu, +%zu) outside the "
				  "%llu-byte DM", verb,
				  (unsigned long long)off, len,
				  (unsigned long long)d->length);
	if ((off | len) & 3)
		return emu_refuse(EINVAL, "%s: offset %llu or length %zu not "
				  "a multiple of 4", verb,
				  (unsigned long long)off, len);
	return 0;
}

static int memcpy_to_dm(struct ibv_dm *dm, uint64_t dm_offset,
			const void *host_addr, size_t length)
{
	int rc = check_copy(dm, dm_offset, length, "ibv_memcpy_to_dm");

	if (!rc)
		emu_dm_copy(to_emu_dm(dm), dm_offset, (void *)host_addr,
			    length, true);
	return verbs_ret(rc);
}

static int memcpy_from_dm(void *host_addr, struct ibv_dm *dm,
			  uint64_t dm_offset, size_t length)
{
	int rc = check_copy(dm, dm_offset, length, "ibv_memcpy_from_dm");

	if (!rc)
		emu_dm_copy(to_emu_dm(dm), dm_offset, host_addr, length,
			    false);
	return verbs_ret(rc);
}

void emu_verbs_dm_set_copy(struct ibv_dm *dm)
{
	dm->memcpy_to_dm = memcpy_to_dm;
	dm->memcpy_from_dm = memcpy_from_dm;
}

/*
 * mlx5's order: the comp_mask (none is defined: EINVAL), the size against
 * max_dm_size (EINVAL) in the provider; then the kernel's MEMIC
 * allocation: no bytes (EINVAL), an alignment beyond the device's
 * (EINVAL), no room left (ENOMEM).
 */
/*
 * A fork() child may allocate, use and free device memory on a context it
 * inherited (rdma-core's multi-process DM test does): it is memory only,
 * the child's copy, and needs no engine (doc/semantics.md).
 */
struct ibv_dm *emu_verbs_alloc_dm(struct ibv_context *context,
				  struct ibv_alloc_dm_attr *attr)
{
	struct emu_dm *dm;
	int rc;

	if (!context || !attr)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_dm: context "
					     "or attr is NULL"));
	if (attr->comp_mask)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_dm: comp_mask "
					     "%#x, none is defined",
					     attr->comp_mask));
	if (attr->length > EMU_DM_MAX_SIZE)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_dm: length "
					     "%zu > max_dm_size %u",
					     attr->length, EMU_DM_MAX_SIZE));
	if (!attr->length)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_dm: length "
					     "0"));
	if (attr->log_align_req > EMU_DM_MAX_LOG_ALIGN)
		return verbs_null(emu_refuse(EINVAL, "ibv_alloc_dm: "
					     "log_align_req %u > %u",
					     attr->log_align_req,
					     EMU_DM_MAX_LOG_ALIGN));
	rc = emu_dm_alloc(emu_ctx(context), attr->length, attr->log_align_req,
			  &dm);
	if (rc)
		return verbs_null(rc);
	emu_verbs_dm_set_copy(&dm->ibv);
	return &dm->ibv;
}

int emu_verbs_free_dm(struct ibv_dm *dm)
{
	if (!dm)
		return verbs_ret(emu_refuse(EINVAL, "ibv_free_dm: dm is NULL"));
	return verbs_ret(emu_dm_free(to_emu_dm(dm)));
}

/*
 * In the order the refusals come on mlx5: rights outside the DM list
 * (mlx5_reg_dm_mr: EINVAL), no ZERO_BASED (ibv_cmd_reg_dm_mr: EINVAL),
 * then the kernel's UVERBS_METHOD_DM_MR_REG: ib_check_mr_access (remote
 * write or atomic without local write: EINVAL), the DM looked up in the
 * PD's context (ENOENT when it is another's), the range within the DM
 * (EINVAL).
 */
struct ibv_mr *emu_verbs_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
				   uint64_t dm_offset, size_t length,
				   unsigned int access)
{
	struct emu_dm *d;
	struct emu_mr *mr;
	int rc;

	if (!pd || !dm)
		return verbs_null(emu_refuse(EINVAL, "ibv_reg_dm_mr: pd or dm "
					     "is NULL"));
	/* The kernel's UVERBS_METHOD_DM_MR_REG finds the PD by handle. */
	rc = verbs_obj_find(NULL, pd, EMU_OBJ_PD, "ibv_reg_dm_mr", "pd");
	if (rc)
		return verbs_null(rc);
	d = to_emu_dm(dm);
	if (access & ~(unsigned int)DM_MR_ACCESS)
		return verbs_null(emu_refuse(EINVAL, "ibv_reg_dm_mr: access "
					     "%#x beyond the DM rights",
					     access));
	if (!(access & IBV_ACCESS_ZERO_BASED))
		return verbs_null(emu_refuse(EINVAL, "ibv_reg_dm_mr: "
					     "IBV_ACCESS_ZERO_BASED missing"));
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return verbs_null(emu_refuse(EINVAL, "ibv_reg_dm_mr: remote "
					     "write or atomic needs "
					     "IBV_ACCESS_LOCAL_WRITE"));
	if (dm->context != pd->context)
		return verbs_null(emu_refuse(ENOENT, "ibv_reg_dm_mr: dm of "
					     "another context"));
	if (dm_offset > d->length || length > d->length - dm_offset)
		return verbs_null(emu_refuse(EINVAL, "ibv_reg_dm_mr: [%llu, "
					     "+%zu) outside the %llu-byte DM",
					     (unsigned long long)dm_offset,
					     length, (unsigned long long)
					     d->length));
	rc = emu_dm_reg_mr(to_emu_pd(pd), d, dm_offset, length, access, &mr);
	if (rc)
		return verbs_null(rc);
	mr->ibv.pd = pd;	/* as given: a parent domain, say */
	return &mr->ibv;
}
