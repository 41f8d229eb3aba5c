/* Memory windows: the object, binding it to a region and invalidating it
 * (all on the engine thread), and allocation against max_mw. */
#ifndef EMU_MW_H
#define EMU_MW_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct emu_mr;
struct emu_pd;
struct emu_qp;
struct emu_swqe;

/*
 * A window lives in a slot of the device's key table after the regions'
 * slots (emu/objects/mr.c); its rkey is that index and an 8-bit key. Type 1 keys
 * change with every ibv_bind_mw (ibv_inc_rkey), type 2 keys are what the
 * bind work request names. Everything below ibv and pd is read and written
 * on the engine thread only: binds and invalidations are work the engine
 * does, and it is the one that checks accesses.
 */
struct emu_mw {
	struct ibv_mw ibv;		/* rkey: the user's copy */
	struct emu_pd *pd;
	uint32_t index;			/* slot in the device's key table */
	uint32_t rkey;			/* the key that reaches it now */
	bool bound;			/* a range of mr is reachable */
	bool zero_based;		/* remote addresses are offsets */
	struct emu_mr *mr;		/* while bound: refuses dereg */
	uint64_t addr, length;		/* range, in mr's iova space */
	unsigned int access;		/* IBV_ACCESS_REMOTE_* granted */
	uint32_t qpn;			/* type 2: the QP it is bound to */
};

static inline struct emu_mw *to_emu_mw(struct ibv_mw *mw)
{
	return (struct emu_mw *)mw;
}

/* Rights a bind may grant; LOCAL_WRITE is accepted and means nothing for
 * a window (rxe accepts it too, and pyverbs' tests pass it). */
#define EMU_MW_BIND_ACCESS (IBV_ACCESS_LOCAL_WRITE |			\
			    IBV_ACCESS_REMOTE_WRITE |			\
			    IBV_ACCESS_REMOTE_READ |			\
			    IBV_ACCESS_REMOTE_ATOMIC |			\
			    IBV_ACCESS_ZERO_BASED)

/* A new unbound window on pd. 0 and *out, or EINVAL (not type 1 or 2),
 * ENOMEM (max_mw windows exist, or no memory). A type 1 window can be
 * bound at once; its rkey is valid but reaches nothing until then. */
int emu_mw_alloc(struct emu_pd *pd, enum ibv_mw_type type,
		 struct emu_mw **out);

/* Unbind (on the engine thread: no access is inside it on return), give
 * back the slot and the PD, free. A bound window may be deallocated
 * (ibv_alloc_mw(3): dealloc unbinds). */
void emu_mw_dealloc(struct emu_mw *mw);

/* ---- engine thread ---- */

/* Execute a BIND_MW work request of qp: 0, or IBV_WC_MW_BIND_ERR when the
 * window, the region, the range or the rights break IBTA's rules, or the
 * new key is not of the window's index (the window is then left as it
 * was). Bound, the window answers to exactly that key. */
int emu_mw_bind(struct emu_qp *qp, const struct emu_swqe *w);

/* Invalidate the type 2 window rkey names, as LOCAL_INV or a received
 * SEND_WITH_INV asks on behalf of qp. 0, or EINVAL: no such key, a region
 * (none of ours is fast-registered), a type 1 window, one not bound, or
 * bound to another QP. */
int emu_mw_invalidate(struct emu_qp *qp, uint32_t rkey);

#endif
