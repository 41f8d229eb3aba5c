/* The front end's check of a verb's objects against their handles: which
 * errno each kind of mismatch gets, and the refusal log saying why. */
#include <errno.h>
#include <stddef.h>

#include "emu/device.h"
#include "emu/import.h"
#include "emu/log.h"
#include "emu/pd.h"
#include "verbs/handle.h"

static const char *type_name(unsigned int t)
{
	static const char *const names[] = {
		[EMU_OBJ_PD] = "PD", [EMU_OBJ_CQ] = "CQ", [EMU_OBJ_QP] = "QP",
		[EMU_OBJ_SRQ] = "SRQ", [EMU_OBJ_MR] = "MR", [EMU_OBJ_MW] = "MW",
		[EMU_OBJ_AH] = "AH",
	};

	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] :
								  "object";
}

int verbs_obj_find(struct ibv_context *context, uint32_t handle,
		   enum emu_obj_type type, const void *obj, const char *verb,
		   const char *what)
{
	int rc;

	/* No context, no file to look in: rdma-core would not even reach
	 * the kernel. The pointer is only compared, never followed, so a
	 * context swapped for another one's is simply not this one. */
	if (!context)
		return emu_refuse(ENOENT, "%s: %s has no context", verb, what);
	/* A parent domain or an imported PD carries the handle of the PD
	 * it stands for: that one is looked up, in its own context, which
	 * must be the command's or one opened from the same command file
	 * (an import's), as the kernel shares one file's objects. */
	if (type == EMU_OBJ_PD && obj) {
		struct emu_pd *p = (struct emu_pd *)obj;

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
