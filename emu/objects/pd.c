/* emu/objects/pd.c: plain protection domains (emu/objects/pd.h): their making, counted
 * against the device's max_pd, and their end, refused while anything is
 * made on them. Parent domains and imports stand for a PD made here
 * (emu/objects/pdom.c, emu/objects/import.c). */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "emu/device/dev_count.h"
#include "emu/device/device.h"
#include "emu/base/handle.h"
#include "emu/base/log.h"
#include "emu/objects/pd.h"

struct emu_pd *emu_pd_alloc(struct emu_context *ctx)
{
	struct emu_pd *pd;
	int rc;

	rc = emu_dev_count_take(ctx->dev, EMU_COUNT_PD);
	if (rc) {
		errno = rc;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		emu_dev_count_release(ctx->dev, EMU_COUNT_PD);
		errno = ENOMEM;
		return NULL;
	}
	pd->ctx = ctx;
	pd->ibv.context = &ctx->vctx.context;
	atomic_init(&pd->users, 0);
	if (emu_handle_add(ctx, EMU_OBJ_PD, &pd->ibv, &pd->ibv.handle)) {
		free(pd);
		emu_dev_count_release(ctx->dev, EMU_COUNT_PD);
		errno = ENOMEM;
		return NULL;
	}
	return pd;
}

int emu_pd_free(struct emu_pd *pd)
{
	if (atomic_load(&pd->users))
		return emu_refuse(EBUSY, "ibv_dealloc_pd: the PD is in use "
				  "(%u objects)", atomic_load(&pd->users));
	emu_handle_remove(pd->ibv.handle, &pd->ibv);
	emu_dev_count_release(pd->ctx->dev, EMU_COUNT_PD);
	free(pd);
	return 0;
}
