/* Sharing a device context within the process, as a uverbs file is shared:
 * contexts opened from one command file form a family, and the PDs, MRs
 * and DMs any of them made can be imported into any other by handle. */
#ifndef EMU_IMPORT_H
#define EMU_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct emu_context;
struct emu_dm;
struct emu_mr;
struct emu_pd;

/* The kinds of object imported by handle. */
enum emu_import_type {
	EMU_IMPORT_PD = 1,
	EMU_IMPORT_DM,
};

/*
 * A new family for ctx, named by its command file (st_dev, st_ino of the
 * file behind its cmd_fd): 0, or ENOMEM. join: ctx opened from the
 * command file of the family named (dev, ino), which some live context of
 * this process holds: 0, or ENODEV when none does. leave: ctx is closing
 * (a family goes with its last context). Imports see a family's objects.
 */
int emu_import_family_new(struct emu_context *ctx, dev_t dev, ino_t ino);
int emu_import_family_join(struct emu_context *ctx, dev_t dev, ino_t ino,
			   struct emu_context **origin);
void emu_import_family_leave(struct emu_context *ctx);

/* Whether a and b share a command file (a context is its own family when
 * it has none). */
bool emu_import_same_family(const struct emu_context *a,
			    const struct emu_context *b);

/*
 * Enter obj (a PD or DM of ctx) under its handle: what imports find.
 * 0, or ENOMEM (it is then not importable). Its use count, an atomic_uint
 * at users_off in obj, is what find and untrack_idle work on.
 */
int emu_import_track(const struct emu_context *ctx, enum emu_import_type type,
		     uint32_t handle, void *obj);

/* Take obj out, unless its use count shows it held (EBUSY, it stays):
 * the step before freeing it. 0 when it was not entered. */
int emu_import_untrack_idle(enum emu_import_type type, uint32_t handle,
			    void *obj, size_t users_off);

/* The object of type under handle made in ctx's family, its use count
 * raised (the importer holds it, and drops it on unimport), or NULL. */
void *emu_import_find(const struct emu_context *ctx,
		      enum emu_import_type type, uint32_t handle,
		      size_t users_off);

/*
 * What an imported MR needs of the region with handle in ctx's family
 * (looked up on the engine thread, which keeps regions in place): 0 and
 * the keys and length, or ENOENT.
 */
struct emu_import_mr_info {
	uint32_t lkey, rkey;
	uint64_t length;
};
int emu_import_mr_info(struct emu_context *ctx, uint32_t handle,
		       struct emu_import_mr_info *out);

/* The live region with handle in ctx's family, for destroying it through
 * an import (on the engine thread, or NULL): ENOENT when none. */
int emu_import_mr_find(struct emu_context *ctx, uint32_t handle,
		       struct emu_mr **out);

#endif
