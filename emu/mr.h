/* Memory regions and their keys: registration, the per-device key table,
 * and the one check every local or remote access goes through. */
#ifndef EMU_MR_H
#define EMU_MR_H

#include <stdint.h>

#include <infiniband/verbs.h>

struct emu_device;
struct emu_pd;

struct emu_mr {
	struct ibv_mr ibv;		/* lkey, rkey, addr, length for users */
	struct emu_pd *pd;
	uint8_t *addr;			/* process memory the region covers */
	uint64_t iova;			/* address peers and SGEs use */
	uint64_t length;
	unsigned int access;		/* IBV_ACCESS_* */
	uint32_t index;			/* slot in the device's key table */
};

/* What an access check found; the transport maps it to a completion
 * status (local: LOC_PROT_ERR; remote: a NAK / REM_ACCESS_ERR). */
enum emu_mr_check {
	EMU_MR_OK = 0,
	EMU_MR_BAD_KEY,			/* no such key, or a stale one */
	EMU_MR_BAD_PD,			/* key of another protection domain */
	EMU_MR_BOUNDS,			/* range not inside the region */
	EMU_MR_ACCESS,			/* region lacks the right */
};

/* The device's key table, created with the device (max_mr slots). */
int emu_mr_table_create(struct emu_device *dev);
void emu_mr_table_destroy(struct emu_device *dev);

/* Look a key up; NULL when no live region has exactly that key. Safe on
 * the engine thread while registrations happen on other threads;
 * deregistration waits until the engine is not inside a lookup (it runs
 * the unpublish step through emu_engine_call). */
struct emu_mr *emu_mr_lookup_lkey(struct emu_device *dev, uint32_t lkey);
struct emu_mr *emu_mr_lookup_rkey(struct emu_device *dev, uint32_t rkey);

/* Check that [va, va + len) lies in mr, that mr belongs to pd and grants
 * every IBV_ACCESS_* bit in need (0 for a local read); on success *ptr is
 * the process address of va. len 0 is always in bounds. */
enum emu_mr_check emu_mr_resolve(const struct emu_mr *mr,
				 const struct emu_pd *pd, uint64_t va,
				 uint64_t len, unsigned int need,
				 uint8_t **ptr);

/* Resolve by key in one step (lookup + resolve). */
enum emu_mr_check emu_mr_resolve_key(struct emu_device *dev, uint32_t key,
				     int remote, const struct emu_pd *pd,
				     uint64_t va, uint64_t len,
				     unsigned int need, uint8_t **ptr);

#endif
