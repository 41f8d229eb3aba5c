/* Device memory: allocating it from a device's budget, freeing it once no
 * region uses it, copying in 32-bit words, and registering a zero-based
 * region over part of it. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/device.h"
#include "emu/objects/dm.h"
#include "emu/objects/import.h"
#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/pd.h"

/* What each device has handed out in this process. Devices are few and
 * live as long as the process: a short list, never pruned. */
struct dm_budget {
	const struct emu_device *dev;
	uint64_t used;
	struct dm_budget *next;
};

static pthread_mutex_t budget_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dm_budget *budgets;

/* Handles are what a kernel's object IDs are to users: unique numbers. */
static atomic_uint dm_handles;

void emu_dm_fill_caps(struct ibv_device_attr_ex *a)
{
	a->max_dm_size = EMU_DM_MAX_SIZE;
}

/* Under budget_lock: dev's entry, made on first use (NULL: no memory). */
static struct dm_budget *budget_of(const struct emu_device *dev)
{
	struct dm_budget *b;

	for (b = budgets; b; b = b->next)
		if (b->dev == dev)
			return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->dev = dev;
	b->next = budgets;
	budgets = b;
	return b;
}

static int charge(const struct emu_device *dev, uint64_t size)
{
	struct dm_budget *b;
	int rc = 0;

	pthread_mutex_lock(&budget_lock);
	b = budget_of(dev);
	if (!b)
		rc = ENOMEM;
	else if (size > EMU_DM_MAX_SIZE - b->used)
		rc = emu_refuse(ENOMEM, "ibv_alloc_dm: %llu bytes asked, %llu "
				"of the device's %u left",
				(unsigned long long)size,
				(unsigned long long)(EMU_DM_MAX_SIZE - b->used),
				EMU_DM_MAX_SIZE);
	else
		b->used += size;
	pthread_mutex_unlock(&budget_lock);
	return rc;
}

static void refund(const struct emu_device *dev, uint64_t size)
{
	pthread_mutex_lock(&budget_lock);
	budget_of(dev)->used -= size;
	pthread_mutex_unlock(&budget_lock);
}

uint64_t emu_dm_used(const struct emu_device *dev)
{
	struct dm_budget *b;
	uint64_t used;

	pthread_mutex_lock(&budget_lock);
	b = budget_of(dev);
	used = b ? b->used : 0;
	pthread_mutex_unlock(&budget_lock);
	return used;
}

int emu_dm_alloc(struct emu_context *ctx, uint64_t length, uint32_t log_align,
		 struct emu_dm **out)
{
	uint64_t size = (length + EMU_DM_BLOCK - 1) &
			~(uint64_t)(EMU_DM_BLOCK - 1);
	size_t align = (size_t)1 << log_align;
	struct emu_dm *dm;
	void *mem = NULL;
	int rc;

	if (align < EMU_DM_BLOCK)
		align = EMU_DM_BLOCK;
	rc = charge(ctx->dev, size);
	if (rc)
		return rc;
	dm = calloc(1, sizeof(*dm));
	if (!dm || posix_memalign(&mem, align, size)) {
		free(dm);
		refund(ctx->dev, size);
		return ENOMEM;
	}
	memset(mem, 0, size);
	dm->ctx = ctx;
	dm->mem = mem;
	dm->length = length;
	dm->size = size;
	atomic_init(&dm->users, 0);
	dm->ibv.context = &ctx->vctx.context;
	dm->ibv.handle = atomic_fetch_add(&dm_handles, 1) + 1;
	/* What ibv_import_dm finds by handle. */
	if (emu_import_track(ctx, EMU_IMPORT_DM, dm->ibv.handle, dm)) {
		refund(ctx->dev, size);
		free(mem);
		free(dm);
		return ENOMEM;
	}
	*out = dm;
	return 0;
}

int emu_dm_free(struct emu_dm *dm)
{
	struct emu_dm *real = dm->real;
	int rc;

	if (real) {
		/* Through an import, the shared DM goes if only this import
		 * holds it; the import goes with it. */
		atomic_fetch_sub(&real->users, 1);
		rc = emu_dm_free(real);
		if (rc) {
			atomic_fetch_add(&real->users, 1);
			return rc;
		}
		free(dm);
		return 0;
	}
	/* Out of the import registry first, under its lock, so no import
	 * can take it from here on. */
	rc = emu_import_untrack_idle(EMU_IMPORT_DM, dm->ibv.handle, dm,
				     offsetof(struct emu_dm, users));
	if (rc || atomic_load(&dm->users))
		return emu_refuse(EBUSY, "ibv_free_dm: %u memory regions or "
				  "imports hold it", atomic_load(&dm->users));
	refund(dm->ctx->dev, dm->size);
	free(dm->mem);
	free(dm);
	return 0;
}

int emu_dm_import(struct emu_context *ctx, uint32_t handle,
		  struct emu_dm **out)
{
	struct emu_dm *real, *dm = calloc(1, sizeof(*dm));

	if (!dm)
		return ENOMEM;
	real = emu_import_find(ctx, EMU_IMPORT_DM, handle,
			       offsetof(struct emu_dm, users));
	if (!real) {
		free(dm);
		return emu_refuse(ENOENT, "ibv_import_dm: no DM with handle "
				  "%u in the context's command file",
				  handle);
	}
	dm->ctx = ctx;
	dm->real = real;
	dm->mem = real->mem;
	dm->length = real->length;
	atomic_init(&dm->users, 0);
	dm->ibv.context = &ctx->vctx.context;
	dm->ibv.handle = handle;
	*out = dm;
	return 0;
}

void emu_dm_unimport(struct emu_dm *dm)
{
	if (!dm->real)
		return;
	atomic_fetch_sub(&dm->real->users, 1);
	free(dm);
}

void emu_dm_copy(struct emu_dm *dm, uint64_t off, void *host, uint64_t len,
		 bool to_dm)
{
	uint8_t *d = dm->mem + off, *h = host;
	uint64_t i;

	/* Word by word, relaxed atomics: the engine may be reading or
	 * writing the same words for a peer's READ or WRITE meanwhile. */
	if (!((uintptr_t)d & 3) && !(len & 3)) {
		uint32_t *w = (uint32_t *)(void *)d, v;

		for (i = 0; i < len / 4; i++) {
			if (to_dm) {
				memcpy(&v, h + 4 * i, 4);
				__atomic_store_n(&w[i], v, __ATOMIC_RELAXED);
			} else {
				v = __atomic_load_n(&w[i], __ATOMIC_RELAXED);
				memcpy(h + 4 * i, &v, 4);
			}
		}
		return;
	}
	if (to_dm)
		memcpy(d, h, len);
	else
		memcpy(h, d, len);
}

int emu_dm_reg_mr(struct emu_pd *pd, struct emu_dm *dm, uint64_t off,
		  uint64_t len, unsigned int access, struct emu_mr **out)
{
	struct emu_mr *mr;
	int rc;

	/* A region on an import is on the DM it shares. */
	if (dm->real)
		dm = dm->real;
	/* Taken first, so a free racing with the registration is refused
	 * rather than pulling the memory from under the new keys. */
	atomic_fetch_add(&dm->users, 1);
	rc = emu_mr_register_dm(pd, dm, dm->mem + off, len, access, &mr);
	if (rc) {
		atomic_fetch_sub(&dm->users, 1);
		return rc;
	}
	*out = mr;
	return 0;
}

void emu_dm_mr_gone(struct emu_dm *dm)
{
	atomic_fetch_sub(&dm->users, 1);
}
