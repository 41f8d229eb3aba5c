/* The front end's check of the objects a verb is handed: the object must
 * be what its handle names in the context it claims, as the kernel finds
 * objects by handle in the command's file (emu/handle.h). */
#ifndef VERBS_HANDLE_H
#define VERBS_HANDLE_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "emu/handle.h"

/*
 * 0 when handle names obj, a live object of type, on context (the
 * context the command goes to: the object's own for a destroy, the one
 * it is created on for a parent object); else what the kernel's lookup
 * answers, ENOENT (nothing there, or another object) or EINVAL (an object
 * of another type), logged as a refusal of verb, naming the argument
 * what.
 */
int verbs_obj_find(struct ibv_context *context, uint32_t handle,
		   enum emu_obj_type type, const void *obj, const char *verb,
		   const char *what);

/* The same for a command the kernel takes through write(): those answer
 * any failed lookup with EINVAL. */
static inline int verbs_obj_find_wr(struct ibv_context *context,
				    uint32_t handle, enum emu_obj_type type,
				    const void *obj, const char *verb,
				    const char *what)
{
	return verbs_obj_find(context, handle, type, obj, verb, what) ?
	       EINVAL : 0;
}

#endif
