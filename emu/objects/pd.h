/* Protection domains: the object every MR, AH and QP hangs off; counts its
 * users so that ibv_dealloc_pd can refuse with EBUSY. */
#ifndef EMU_PD_H
#define EMU_PD_H

#include <stdatomic.h>

#include <infiniband/verbs.h>

struct emu_context;

/* What an ibv_pd the application holds is. */
enum emu_pd_kind {
	EMU_PD_PLAIN,			/* ibv_alloc_pd */
	EMU_PD_PARENT,			/* a parent domain (emu/objects/pdom.c) */
	EMU_PD_IMPORTED,		/* ibv_import_pd (emu/objects/import.c) */
};

struct emu_pd {
	struct ibv_pd ibv;
	struct emu_context *ctx;
	atomic_uint users;		/* MRs, AHs, QPs, SRQs, MWs on it */
	/* A parent domain or an imported PD stands for a plain PD, whose
	 * handle it carries (rdma-core's ibv_initialize_parent_domain):
	 * every object made on it is made on that one. NULL when plain. */
	struct emu_pd *real;
	enum emu_pd_kind kind;
};

/* The protection domain an ibv_pd names: itself, or the plain PD a parent
 * domain or an import stands for. */
static inline struct emu_pd *to_emu_pd(struct ibv_pd *pd)
{
	struct emu_pd *p = (struct emu_pd *)pd;

	return p->real ? p->real : p;
}

/* The ibv_pd's own object, whatever its kind. */
static inline struct emu_pd *emu_pd_self(struct ibv_pd *pd)
{
	return (struct emu_pd *)pd;
}

static inline void emu_pd_get(struct emu_pd *pd)
{
	atomic_fetch_add(&pd->users, 1);
}

static inline void emu_pd_put(struct emu_pd *pd)
{
	atomic_fetch_sub(&pd->users, 1);
}

/* A new PD on ctx's device (emu/objects/pd.c; PDs count against max_pd):
 * NULL with errno ENOMEM at the limit or without memory. */
struct emu_pd *emu_pd_alloc(struct emu_context *ctx);
/* 0, or EBUSY while anything still uses the PD (nothing is freed then). */
int emu_pd_free(struct emu_pd *pd);

#endif
