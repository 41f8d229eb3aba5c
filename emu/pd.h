/* Protection domains: the object every MR, AH and QP hangs off; counts its
 * users so that ibv_dealloc_pd can refuse with EBUSY. */
#ifndef EMU_PD_H
#define EMU_PD_H

#include <stdatomic.h>

#include <infiniband/verbs.h>

struct emu_context;

struct emu_pd {
	struct ibv_pd ibv;
	struct emu_context *ctx;
	atomic_uint users;		/* MRs, AHs, QPs, SRQs, MWs on it */
};

static inline struct emu_pd *to_emu_pd(struct ibv_pd *pd)
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

/* A new PD on ctx's device (emu/mr.c, which counts PDs against max_pd):
 * NULL with errno ENOMEM at the limit or without memory. */
struct emu_pd *emu_pd_alloc(struct emu_context *ctx);
/* 0, or EBUSY while anything still uses the PD (nothing is freed then). */
int emu_pd_free(struct emu_pd *pd);

#endif
