/* The front end's check of the objects a verb is handed: the object must
 * be what its handle names in the context it claims, as the kernel finds
 * objects by handle in the command's file (emu/base/handle.h). */
#ifndef VERBS_HANDLE_H
#define VERBS_HANDLE_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "emu/base/handle.h"

/* 0 when context may be used here; EIO (logged as a refusal of verb) when
 * it is the parent's and this process its fork() child (emu/base/fork.h). */
int verbs_ctx_live(struct ibv_context *context, const char *verb);

/*
 * The first half of verbs_obj_find(): 0 when obj is a live object of
 * type, found by its address alone; else ENOENT, EINVAL or EIO as below,
 * logged. For what must know the kind of object before its handle means
 * anything (an imported MR is found through its own handle elsewhere).
 */
int verbs_obj_live(const void *obj, enum emu_obj_type type, const char *verb,
		   const char *what);

/*
 * 0 when obj is a live object of type whose handle names it on context
 * (the context the command goes to: NULL for the object's own, as for a
 * destroy, modify or query; the one it is created on for a parent
 * object). Nothing behind obj is read until the handle table has found
 * a live object of that type at its address (emu_handle_check()). Else,
 * logged as a refusal of verb naming the argument what:
 * ENOENT  no live object there (destroyed, freed, garbage), or its handle
 *         names nothing on context (no such handle, another context's,
 *         another object);
 * EINVAL  an object of another type (at that address, or under its
 *         handle);
 * EIO     the object is the parent process's, and this is its fork()
 *         child (emu/base/fork.h).
 */
int verbs_obj_find(struct ibv_context *context, const void *obj,
		   enum emu_obj_type type, const char *verb, const char *what);

/* The same for a command the kernel takes through write(): those answer
 * a failed lookup with EINVAL; the fork() child's EIO stays, as the
 * kernel answers EIO before it looks at a command for a file whose
 * device it has let go. */
static inline int verbs_obj_find_wr(struct ibv_context *context,
				    const void *obj, enum emu_obj_type type,
				    const char *verb, const char *what)
{
	int rc = verbs_obj_find(context, obj, type, verb, what);

	return rc && rc != EIO ? EINVAL : rc;
}

#endif
