/* The front end's check of a verb's objects against their handles: which
 * errno each kind of mismatch gets, and the refusal log saying why. */
#include <errno.h>
#include <stddef.h>

#include "emu/device/device.h"
#include "emu/objects/import.h"
#include "emu/base/log.h"
#include "emu/objects/pd.h"
#include "verbs/handle.h"

static const char *type_name(unsigned int t)
{
	static const char *const names[] = {
		[EMU_OBJ_PD] = "PD", [EMU_OBJ_CQ] = "CQ", [EMU_OBJ_QP] = "QP",
		[EMU_OBJ_SRQ] = "SRQ", [EMU_OBJ_MR] = "MR", [EMU_OBJ_MW] = "MW",
		[EMU_OBJ_AH] = "AH", [EMU_OBJ_XRCD] = "XRCD",
	};

	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] :
								  "object";
}

/* The context and handle obj carries: read only once emu_handle_check()
 * has found obj a live object of type. */
static void fields_of(const void *obj, enum emu_obj_type type,
		      struct ibv_context **context, uint32_t *handle)
{
	switch (type) {
	case EMU_OBJ_PD:
		*context = ((const struct ibv_pd *)obj)->context;
		*handle = ((const struct ibv_pd *)obj)->handle;
		break;
	case EMU_OBJ_CQ:
		*context = ((const struct ibv_cq *)obj)->context;
		*handle = ((const struct ibv_cq *)obj)->handle;
		break;
	case EMU_OBJ_QP:
		*context = ((const struct ibv_qp *)obj)->context;
		*handle = ((const struct ibv_qp *)obj)->handle;
		break;
	case EMU_OBJ_SRQ:
		*context = ((const struct ibv_srq *)obj)->context;
		*handle = ((const struct ibv_srq *)obj)->handle;
		break;
	case EMU_OBJ_MR:
		*context = ((const struct ibv_mr *)obj)->context;
		*handle = ((const struct ibv_mr *)obj)->handle;
		break;
	case EMU_OBJ_MW:
		*context = ((const struct ibv_mw *)obj)->context;
		*handle = ((const struct ibv_mw *)obj)->handle;
		break;
	case EMU_OBJ_AH:
		*context = ((const struct ibv_ah *)obj)->context;
		*handle = ((const struct ibv_ah *)obj)->handle;
		break;
	case EMU_OBJ_XRCD:
		*context = ((const struct ibv_xrcd *)obj)->context;
		*handle = 0;
		break;
	}
}

int verbs_ctx_live(struct ibv_context *context, const char *verb)
{
	if (!emu_ctx_inherited(emu_ctx(context)))
		return 0;
	return emu_refuse(EIO, "%s: the context is the parent process's: a "
			  "fork() child cannot use it", verb);
}

int verbs_obj_live(const void *obj, enum emu_obj_type type, const char *verb,
		   const char *what)
{
	int rc = emu_handle_check(obj, type);

	if (rc == EIO)
		return emu_refuse(rc, "%s: %s %p is the parent process's: "
				  "a fork() child cannot use it", verb, what,
				  obj);
	if (rc == EINVAL)
		return emu_refuse(rc, "%s: %s %p is a live object of another "
				  "kind than a %s", verb, what, obj,
				  type_name(type));
	if (rc)
		return emu_refuse(rc, "%s: %s %p is no live %s (destroyed, "
				  "freed, or never made)", verb, what, obj,
				  type_name(type));
	return 0;
}

int verbs_obj_find(struct ibv_context *context, const void *obj,
		   enum emu_obj_type type, const char *verb, const char *what)
{
	struct ibv_context *own = NULL;
	uint32_t handle = 0;
	int rc;

	/* The address first: nothing behind a pointer is read before the
	 * table says a live object of that type is there. */
	rc = verbs_obj_live(obj, type, verb, what);
	if (rc)
		return rc;
	fields_of(obj, type, &own, &handle);
	if (!context)
		context = own;
	/* No context, no file to look in: rdma-core would not even reach
	 * the kernel. The pointer is only compared, never followed, so a
	 * context swapped for another one's is simply not this one. */
	if (!context)
		return emu_refuse(ENOENT, "%s: %s has no context", verb, what);
	if (type == EMU_OBJ_XRCD)
		return 0;
	/* A parent domain or an imported PD carries the handle of the PD
	 * it stands for: that one is looked up, in its own context, which
	 * must be the command's or one opened from the same command file
	 * (an import's), as the kernel shares one file's objects. */
	if (type == EMU_OBJ_PD) {
		const struct emu_pd *p = obj;

		if (p->real && p->ibv.handle == handle &&
		    emu_import_same_family(emu_ctx(context), p->real->ctx)) {
			context = &p->real->ctx->vctx.context;
			obj = &p->real->ibv;
		}
	}
	rc = emu_handle_lookup(emu_ctx(context), handle, type, obj);
	if (rc == EINVAL)
		emu_log(EMU_LOG_VERBS, "%s: %s handle %u names another kind "
			"of object than a %s", verb, what, handle,
			type_name(type));
	else if (rc)
		emu_log(EMU_LOG_VERBS, "%s: %s handle %u names no such %s of "
			"its context (changed, of another context, or "
			"destroyed)", verb, what, handle, type_name(type));
	return rc;
}
