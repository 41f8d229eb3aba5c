/* Thread domains and parent domains, and the queue memory of CQs, QPs and
 * SRQs: taken from a parent domain's allocators when it has them, as
 * mlx5 takes its rings' buffers (IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS). */
#ifndef EMU_PDOM_H
#define EMU_PDOM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "emu/objects/pd.h"

struct emu_context;

/* The resource_type a parent domain's allocator is called with: which
 * ring it is for. emuverbs' own numbers (driver 0, not mlx5's
 * MLX5DV_RES_TYPE_*): an allocator written for mlx5 sees types it does
 * not know, and should answer IBV_ALLOCATOR_USE_DEFAULT. */
#define EMU_RES_TYPE_QP		((uint64_t)0 << 32 | 1)	/* send, receive */
#define EMU_RES_TYPE_SRQ	((uint64_t)0 << 32 | 2)
#define EMU_RES_TYPE_CQ		((uint64_t)0 << 32 | 3)

/* A thread domain: a promise that one thread at a time uses what is made
 * on parent domains of it. */
struct emu_td {
	struct ibv_td ibv;
	atomic_uint users;		/* parent domains on it */
};

static inline struct emu_td *to_emu_td(struct ibv_td *td)
{
	return (struct emu_td *)td;
}

/* A parent domain: a PD (pd.real is the protection domain, pd.kind
 * EMU_PD_PARENT) with an optional thread domain and allocators. */
struct emu_pdom {
	struct emu_pd pd;		/* must stay first: users hold pd.ibv */
	struct emu_td *td;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
	atomic_uint users;		/* CQs, QPs and SRQs made on it */
};

/* The parent domain pd is, or NULL when it is none. */
static inline struct emu_pdom *emu_pdom_of(struct ibv_pd *pd)
{
	struct emu_pd *p = (struct emu_pd *)pd;

	return p && p->kind == EMU_PD_PARENT ? (struct emu_pdom *)p : NULL;
}

static inline void emu_pdom_get(struct emu_pdom *d)
{
	if (d)
		atomic_fetch_add(&d->users, 1);
}

static inline void emu_pdom_put(struct emu_pdom *d)
{
	if (d)
		atomic_fetch_sub(&d->users, 1);
}

/* A thread domain of ctx: 0 and *out, or ENOMEM. */
int emu_td_alloc(struct emu_context *ctx, struct emu_td **out);
/* 0, or EBUSY (nothing freed) while parent domains use it. */
int emu_td_free(struct emu_td *td);

/*
 * A parent domain of ctx over the plain PD pd, with td (or NULL); alloc
 * and free both set, or both NULL; pd_context passed to them. The caller
 * has checked the arguments. It holds pd and td busy while it lives.
 * 0 and *out, or ENOMEM.
 */
int emu_pdom_alloc(struct emu_context *ctx, struct emu_pd *pd,
		   struct emu_td *td,
		   void *(*alloc)(struct ibv_pd *, void *, size_t, size_t,
				  uint64_t),
		   void (*free_fn)(struct ibv_pd *, void *, void *, uint64_t),
		   void *pd_context, struct emu_pdom **out);
/* 0, or EBUSY (nothing freed) while CQs, QPs or SRQs use it. */
int emu_pdom_free(struct emu_pdom *d);

/* A queue's memory, and the allocator it must go back to. */
struct emu_qmem {
	void *p;
	struct emu_pdom *pdom;		/* its allocator gave p, or NULL */
	uint64_t type;
};

/*
 * size bytes for a queue of resource type on pdom (NULL: none): from its
 * alloc, with the page size as alignment, unless it has none or answers
 * IBV_ALLOCATOR_USE_DEFAULT; then from malloc. zero: cleared. 0, or
 * ENOMEM (the allocator or malloc returned NULL; for size 0 NULL is a
 * valid answer of the allocator, as mlx5 takes it).
 */
int emu_qmem_alloc(struct emu_qmem *m, struct emu_pdom *pdom, size_t size,
		   uint64_t type, bool zero);
/* Give m's memory back where it came from (NULL p: nothing). */
void emu_qmem_free(struct emu_qmem *m);

#endif
