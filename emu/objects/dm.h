/* Device memory: the emulated HCA's own memory (as mlx5's MEMIC), handed
 * out by ibv_alloc_dm within a per-device budget, copied to and from by
 * the application and registered as zero-based memory regions. */
#ifndef EMU_DM_H
#define EMU_DM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct emu_context;
struct emu_device;
struct emu_mr;
struct emu_pd;

/* The device's memory: what max_dm_size reports and the budget all its
 * DMs share in this process (doc/features.md). */
#define EMU_DM_MAX_SIZE (256u * 1024)
/* Allocations are made, and charged, in blocks of this many bytes, and
 * start at least this aligned (MLX5_MEMIC_BASE_SIZE / _ALIGN). */
#define EMU_DM_BLOCK 64u
/* The largest log_align_req honoured: a page (EINVAL above). */
#define EMU_DM_MAX_LOG_ALIGN 12u

struct emu_dm {
	struct ibv_dm ibv;		/* context, memcpy_*, handle */
	struct emu_context *ctx;
	uint8_t *mem;			/* the memory, in this process */
	uint64_t length;		/* as asked: what copies may reach */
	uint64_t size;			/* charged: length rounded to a block */
	atomic_uint users;		/* memory regions and imports of it */
	/* An ibv_import_dm view: the DM it shares mem with, or NULL. */
	struct emu_dm *real;
};

static inline struct emu_dm *to_emu_dm(struct ibv_dm *dm)
{
	return (struct emu_dm *)dm;
}

/* The device's max_dm_size for ibv_query_device_ex. */
void emu_dm_fill_caps(struct ibv_device_attr_ex *a);

/*
 * A DM of length bytes (1..EMU_DM_MAX_SIZE, checked by the caller) on
 * ctx's device, starting 2^log_align aligned (log_align <=
 * EMU_DM_MAX_LOG_ALIGN, checked by the caller), zero-filled. 0 and *out
 * (context and handle set; the copy functions are the caller's), or
 * ENOMEM when the device has not that much memory left, or no memory.
 */
int emu_dm_alloc(struct emu_context *ctx, uint64_t length, uint32_t log_align,
		 struct emu_dm **out);

/* 0, and the memory goes back to the device; EBUSY, nothing changed,
 * while memory regions are registered on it (the kernel's usecnt) or
 * imports hold it. Through an import: the shared DM goes, as the kernel
 * destroys the object, unless anything but that import holds it. */
int emu_dm_free(struct emu_dm *dm);

/* ibv_import_dm: a view on ctx of the DM with handle in ctx's family
 * (emu/objects/import.c), which it holds until emu_dm_unimport. 0 and *out
 * (context, handle; the copy functions are the caller's), ENOENT when
 * there is none, ENOMEM. */
int emu_dm_import(struct emu_context *ctx, uint32_t handle,
		  struct emu_dm **out);
/* Drop an import (never the DM itself); a DM that is no import: nothing. */
void emu_dm_unimport(struct emu_dm *dm);

/* Copy between host memory and [off, off + len) of dm, which the caller
 * has checked lies in it: in 32-bit words when both are aligned, as the
 * HCA's memory is written, so a concurrent reader never sees a torn word.
 * to_dm: host -> device. */
void emu_dm_copy(struct emu_dm *dm, uint64_t off, void *host, uint64_t len,
		 bool to_dm);

/* Register [off, off + len) of dm (checked by the caller; len may be 0)
 * on pd as a zero-based region (emu_mr_register_dm): 0 and *out, or
 * ENOMEM; dm (the shared one, for an import) cannot be freed while the
 * region lives. */
int emu_dm_reg_mr(struct emu_pd *pd, struct emu_dm *dm, uint64_t off,
		  uint64_t len, unsigned int access, struct emu_mr **out);

/* A region on dm went away (emu_mr_deregister). */
void emu_dm_mr_gone(struct emu_dm *dm);

/* Bytes of device memory in use on dev in this process (tests). */
uint64_t emu_dm_used(const struct emu_device *dev);

#endif
