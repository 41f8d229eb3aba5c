/* Thread domains and parent domains, and queue memory taken from a parent
 * domain's allocators (or malloc) and given back to them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/device/device.h"
#include "emu/base/handle.h"
#include "emu/base/log.h"
#include "emu/objects/pdom.h"

int emu_td_alloc(struct emu_context *ctx, struct emu_td **out)
{
	struct emu_td *td = calloc(1, sizeof(*td));

	if (!td)
		return ENOMEM;
	td->ibv.context = &ctx->vctx.context;
	atomic_init(&td->users, 0);
	*out = td;
	return 0;
}

int emu_td_free(struct emu_td *td)
{
	if (atomic_load(&td->users))
		return emu_refuse(EBUSY, "ibv_dealloc_td: %u parent domains "
				  "use it", atomic_load(&td->users));
	free(td);
	return 0;
}

int emu_pdom_alloc(struct emu_context *ctx, struct emu_pd *pd,
		   struct emu_td *td,
		   void *(*alloc)(struct ibv_pd *, void *, size_t, size_t,
				  uint64_t),
		   void (*free_fn)(struct ibv_pd *, void *, void *, uint64_t),
		   void *pd_context, struct emu_pdom **out)
{
	struct emu_pdom *d = calloc(1, sizeof(*d));

	/* Found by its address as the PD it stands for (emu/base/handle.h). */
	if (!d || emu_handle_alias_add(ctx, EMU_OBJ_PD, &d->pd.ibv)) {
		free(d);
		return ENOMEM;
	}
	d->pd.ctx = ctx;
	d->pd.kind = EMU_PD_PARENT;
	d->pd.real = pd;
	atomic_init(&d->pd.users, 0);
	/* As ibv_initialize_parent_domain: interchangeable with its PD. */
	d->pd.ibv.context = &ctx->vctx.context;
	d->pd.ibv.handle = pd->ibv.handle;
	d->td = td;
	d->alloc = alloc;
	d->free = free_fn;
	d->pd_context = pd_context;
	atomic_init(&d->users, 0);
	emu_pd_get(pd);
	if (td)
		atomic_fetch_add(&td->users, 1);
	*out = d;
	return 0;
}

int emu_pdom_free(struct emu_pdom *d)
{
	if (atomic_load(&d->users))
		return emu_refuse(EBUSY, "ibv_dealloc_pd: %u CQs, QPs or SRQs "
				  "use the parent domain",
				  atomic_load(&d->users));
	emu_pd_put(d->pd.real);
	if (d->td)
		atomic_fetch_sub(&d->td->users, 1);
	emu_handle_alias_remove(&d->pd.ibv);
	free(d);
	return 0;
}

int emu_qmem_alloc(struct emu_qmem *m, struct emu_pdom *pdom, size_t size,
		   uint64_t type, bool zero)
{
	void *p;

	m->p = NULL;
	m->pdom = NULL;
	m->type = type;
	if (pdom && pdom->alloc) {
		/* The page as alignment, as mlx5 asks for its rings. */
		p = pdom->alloc(&pdom->pd.ibv, pdom->pd_context, size,
				(size_t)sysconf(_SC_PAGESIZE), type);
		if (p != IBV_ALLOCATOR_USE_DEFAULT) {
			if (!p && size)
				return emu_refuse(ENOMEM, "the parent domain's "
						  "allocator gave no memory "
						  "for %zu bytes", size);
			if (zero && size)
				memset(p, 0, size);
			m->p = p;
			m->pdom = pdom;
			return 0;
		}
	}
	m->p = zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
	return m->p ? 0 : ENOMEM;
}

void emu_qmem_free(struct emu_qmem *m)
{
	if (m->pdom)
		m->pdom->free(&m->pdom->pd.ibv, m->pdom->pd_context, m->p,
			      m->type);
	else
		free(m->p);
	m->p = NULL;
	m->pdom = NULL;
}
