/* Memory regions and their keys: registration, the per-device key table,
 * and the one check every local or remote access goes through. */
#ifndef EMU_MR_H
#define EMU_MR_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct emu_device;
struct emu_dm;
struct emu_pd;
struct emu_mw;

struct emu_mr {
	struct ibv_mr ibv;		/* lkey, rkey, addr, length for users */
	struct emu_pd *pd;
	uint8_t *addr;			/* process memory the region covers */
	uint64_t iova;			/* address peers and SGEs use */
	uint64_t length;
	unsigned int access;		/* IBV_ACCESS_* */
	uint32_t index;			/* slot in the device's key table */
	uint32_t num_mw;		/* windows bound to it (engine) */
	/* IBV_ACCESS_ON_DEMAND: pages are faulted in at each access and
	 * may be missing (emu/objects/odp.c); implicit: the whole address space,
	 * addr NULL and iova 0, so va is the process address. */
	bool odp, implicit;
	/* Registered on device memory (emu/objects/dm.c), or NULL. */
	struct emu_dm *dm;
	/* An ibv_import_mr view of a region (emu/objects/import.c): a copy of its
	 * keys and length for the application, in no slot of the table. */
	bool imported;
};

/* Rights that make the kernel pin pages for writing (ib_access_writable),
 * and an ODP region writable. */
#define EMU_MR_WRITABLE_ACCESS                                            \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |               \
	 IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND)

static inline struct emu_mr *to_emu_mr(struct ibv_mr *mr)
{
	return (struct emu_mr *)mr;
}

/* What an access check found; the transport maps it to a completion
 * status (local: LOC_PROT_ERR; remote: a NAK / REM_ACCESS_ERR). */
enum emu_mr_check {
	EMU_MR_OK = 0,
	EMU_MR_BAD_KEY,			/* no such key, or a stale one */
	EMU_MR_BAD_PD,			/* key of another protection domain */
	EMU_MR_BOUNDS,			/* range not inside the region */
	EMU_MR_ACCESS,			/* region lacks the right */
	EMU_MR_FAULT,			/* ODP: a page not faulted in */
};

/* The device's key table, created with the device (max_mr slots for
 * regions then max_mw for memory windows, at most EMU_MR_MAX_SLOTS in all
 * (emu/device/config.h):
 * a key carries the slot in its upper 24 bits and an 8-bit tag, new on
 * every registration, in the low byte). Returns 0, or ENOMEM / EEXIST (the
 * device has one already). Destroy frees the table, not the regions still
 * in it, and leaves dev->mrs NULL. */
int emu_mr_table_create(struct emu_device *dev);
void emu_mr_table_destroy(struct emu_device *dev);

/* Register [addr, addr + length) of this process on pd, reached through
 * the keys at iova. The caller has checked the access bits (the front end
 * does); optional bits are dropped here. Returns 0 and *out, filled for
 * the user (context, pd, addr, length, handle, lkey, rkey), or:
 * EINVAL (length 0, a range that wraps, above max_mr_size, an implicit
 * ODP region at an iova other than 0), EFAULT (not mapped, or mapped
 * without the protection the rights need, as pinning fails on a real
 * HCA; never for IBV_ACCESS_ON_DEMAND, whose pages need not exist yet),
 * ENOMEM (max_mr reached, or no memory). With IBV_ACCESS_ON_DEMAND,
 * addr NULL and length UINT64_MAX register the implicit ODP region that
 * covers the whole address space. */
int emu_mr_register(struct emu_pd *pd, void *addr, uint64_t length,
		    uint64_t iova, unsigned int access, struct emu_mr **out);

/* Register length bytes of device memory at mem, part of dm (emu/objects/dm.c,
 * which has checked the range; length may be 0), zero-based: as
 * emu_mr_register, with no page to pin; the user's addr stays NULL. */
int emu_mr_register_dm(struct emu_pd *pd, struct emu_dm *dm, void *mem,
		       uint64_t length, unsigned int access,
		       struct emu_mr **out);

/* ibv_rereg_mr's work: flags IBV_REREG_MR_CHANGE_*; the new values only
 * for the flags given (a new translation maps iova to addr, or 0 with
 * IBV_ACCESS_ZERO_BASED). The region keeps its keys. On error (the codes
 * of emu_mr_register, EINVAL for a pd of another context) the region is
 * left registered but its keys no longer resolve, as after a failed
 * command on a real HCA; emu_mr_deregister still frees it. */
int emu_mr_reregister(struct emu_mr *mr, int flags, struct emu_pd *pd,
		      void *addr, uint64_t length, unsigned int access);

/* Unpublish the keys (on the engine thread, so it is never inside an
 * access to mr when this returns), release the slot and the PD, free: 0.
 * EBUSY, with nothing changed, while memory windows are bound to it
 * (ibv_alloc_mw(3): deregistration fails then). */
int emu_mr_deregister(struct emu_mr *mr);

/* 0 if every page of [addr, addr + length) is mapped in this process,
 * readable, and writable too when writable is set; else EFAULT. */
int emu_mr_check_mapped(const void *addr, uint64_t length, int writable);

/* Look a key up; NULL when no live region has exactly that key. Safe on
 * the engine thread while registrations happen on other threads;
 * deregistration waits until the engine is not inside a lookup (it runs
 * the unpublish step through emu_engine_call). So the engine must not keep
 * an emu_mr pointer from one callback to the next: look the key up again. */
struct emu_mr *emu_mr_lookup_lkey(struct emu_device *dev, uint32_t lkey);
struct emu_mr *emu_mr_lookup_rkey(struct emu_device *dev, uint32_t rkey);

/* The live region whose ibv_mr.handle is handle, or NULL, under the same
 * rule as the lookups (the engine thread). A scan of the table: for
 * imports (emu/objects/import.c), never for the data path. */
struct emu_mr *emu_mr_by_handle(struct emu_device *dev, uint32_t handle);

/* Where [va, va + len) of mr is in this process: EMU_MR_OK and *ptr, or
 * EMU_MR_BOUNDS. No right is checked and no page faulted in. len 0 is
 * always in bounds, and *ptr then valid to pass to memcpy. */
enum emu_mr_check emu_mr_locate(const struct emu_mr *mr, uint64_t va,
				uint64_t len, uint8_t **ptr);

/* Check that [va, va + len) lies in mr, that mr belongs to pd and grants
 * every IBV_ACCESS_* bit in need (0 for a local read); on success *ptr is
 * the process address of va. len 0 is always in bounds. For an ODP region
 * the pages are faulted in too, for writing when need has a write right:
 * EMU_MR_FAULT when they cannot be (nothing was touched). */
enum emu_mr_check emu_mr_resolve(const struct emu_mr *mr,
				 const struct emu_pd *pd, uint64_t va,
				 uint64_t len, unsigned int need,
				 uint8_t **ptr);

/* Resolve by key in one step (lookup + resolve). A remote key may name a
 * type 1 memory window too (see emu_mr_resolve_rkey). */
enum emu_mr_check emu_mr_resolve_key(struct emu_device *dev, uint32_t key,
				     int remote, const struct emu_pd *pd,
				     uint64_t va, uint64_t len,
				     unsigned int need, uint8_t **ptr);

/* No QP: a QPN no QP has, for callers without one. */
#define EMU_MR_NO_QPN	0xffffffffu

/*
 * The responder's check of an rkey, on the engine thread, for the QP qpn
 * of PD pd. The key names a region (as emu_mr_resolve_key), or a bound
 * memory window: then va/len must lie in the window's range (an offset
 * into it when bound zero-based), need within the window's rights, the
 * window of pd, and a type 2 window bound to that very QP (type 2B). The
 * access goes through the region the window is bound to as it is now, so
 * nothing outside the region can ever be reached.
 */
enum emu_mr_check emu_mr_resolve_rkey(struct emu_device *dev, uint32_t rkey,
				      const struct emu_pd *pd, uint32_t qpn,
				      uint64_t va, uint64_t len,
				      unsigned int need, uint8_t **ptr);

/* Memory windows' slots (emu/objects/mw.c). add: a free window slot and a fresh
 * key in mw->index, mw->rkey and mw->ibv.rkey, then visible to lookups;
 * 0 or ENOMEM (max_mw windows exist, or none of max_mw's slots remain
 * under the 24-bit index). clear (engine thread): no longer visible.
 * remove (after clear): the slot is free again. window (engine thread):
 * the window in the slot key names, whatever its key now, or NULL. */
int emu_mr_table_add_mw(struct emu_device *dev, struct emu_mw *mw);
void emu_mr_table_clear_mw(struct emu_device *dev, struct emu_mw *mw);
void emu_mr_table_remove_mw(struct emu_device *dev, struct emu_mw *mw);
struct emu_mw *emu_mr_table_mw(struct emu_device *dev, uint32_t key);

#endif
