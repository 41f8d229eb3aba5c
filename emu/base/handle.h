/* Object handles, as the kernel's uverbs file keeps them: every PD, CQ, QP,
 * SRQ, MR, MW and AH is entered under a number (its ibv_*.handle) in the
 * context that made it, and a verb finds it again by that number there.
 * Every object is also found by its address, so that a verb can tell a
 * live object from a stale or garbage pointer without reading it. */
#ifndef EMU_HANDLE_H
#define EMU_HANDLE_H

#include <stdint.h>

struct emu_context;

/* The kinds of object a handle names; a lookup asks for one of them. */
enum emu_obj_type {
	EMU_OBJ_PD = 1,
	EMU_OBJ_CQ,
	EMU_OBJ_QP,
	EMU_OBJ_SRQ,
	EMU_OBJ_MR,
	EMU_OBJ_MW,
	EMU_OBJ_AH,
	EMU_OBJ_XRCD,		/* by address only: no handle field */
};

/*
 * Enter obj (the ibv_* structure the application holds), made on ctx, as
 * an object of type: 0 and its new handle in *handle, or ENOMEM. Handles
 * are never 0 and are unique in the whole process until 2^32 more have
 * been handed out, so a handle copied from another context, or kept from
 * a destroyed object, names nothing here.
 */
int emu_handle_add(const struct emu_context *ctx, enum emu_obj_type type,
		   const void *obj, uint32_t *handle);

/* Take handle out, if it still names obj (so removing twice, or what was
 * never entered, does nothing). */
void emu_handle_remove(uint32_t handle, const void *obj);

/*
 * What the kernel's object lookup answers for a handle passed in a
 * command on ctx's file, asking for an object of type:
 * 0        the handle names obj, a live object of that type on ctx;
 * ENOENT   it names nothing on ctx (no such handle, one of another
 *          context, one gone), or another object than obj;
 * EINVAL   it names an object of another type on ctx.
 * Nothing behind ctx or obj is read: they are only compared.
 */
int emu_handle_lookup(const struct emu_context *ctx, uint32_t handle,
		      enum emu_obj_type type, const void *obj);

/* Forget every handle of ctx, which is closing (and its aliases). */
void emu_handle_forget(const struct emu_context *ctx);

/*
 * Enter obj by its address only, as an object of type on ctx: what stands
 * for an object without being one (a parent domain or an imported PD,
 * an imported MR) or what has no handle field (an XRC domain). 0, or
 * ENOMEM. emu_handle_alias_remove takes it out again.
 */
int emu_handle_alias_add(const struct emu_context *ctx,
			 enum emu_obj_type type, const void *obj);
void emu_handle_alias_remove(const void *obj);

/*
 * Whether obj, a pointer a verb was handed, is a live object of type,
 * read from nothing but the pointer's value (a garbage pointer, or one to
 * a freed object, is only compared):
 * 0        it is (entered by emu_handle_add or as an alias);
 * ENOENT   no live object has that address;
 * EINVAL   the live object there is of another type;
 * EIO      it is the parent's: this process is a fork() child and
 *          inherited it (emu/base/fork.h).
 */
int emu_handle_check(const void *obj, enum emu_obj_type type);

#endif
