/* The process's table of object handles (emu/base/handle.h): one numbering for
 * every context and type, each number found from its low bits in one
 * slot, the table doubling as it fills; and beside it the index of the
 * same objects by address, which lets a verb learn whether a pointer it
 * was handed is a live object before it reads anything behind it. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "emu/base/fork.h"
#include "emu/base/handle.h"

struct handle_slot {
	const void *obj;		/* NULL while the slot is free */
	const struct emu_context *ctx;
	uint32_t handle;
	uint8_t type;			/* enum emu_obj_type */
};

/* An object by its address: open addressing, linear probing; a removed
 * entry leaves a tombstone until the next rebuild. */
struct ptr_slot {
	const void *obj;		/* NULL: free; TOMB: removed */
	const struct emu_context *ctx;
	unsigned int gen;		/* emu_fork_gen when entered */
	uint8_t type;			/* enum emu_obj_type */
};

static const char tomb_mark;
#define TOMB ((const void *)&tomb_mark)

/* One table for the process rather than one per context: a handle then
 * never repeats across contexts, so an object moved to another context
 * finds nothing there, and the memory windows, which tell a window from
 * its slot's next one by handle, never meet an old number again soon.
 * Creating and destroying objects is not a fast path; the lock is held
 * for a few compares. */
static struct {
	pthread_mutex_t lock;
	struct handle_slot *slot;
	struct ptr_slot *ptr;		/* as many slots as slot[] */
	uint32_t mask;			/* slots - 1 (slot NULL: none yet) */
	uint32_t live;
	uint32_t ptr_live;		/* handles and aliases */
	uint32_t ptr_tombs;
	uint32_t next;			/* the next handle to try */
} tab = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.next = 1,
};

#define FIRST_SLOTS 64

static uint32_t ptr_hash(const void *obj)
{
	return (uint32_t)(((uint64_t)(uintptr_t)obj *
			   0x9e3779b97f4a7c15ull) >> 32);
}

/* obj's entry in the address index, or NULL. */
static struct ptr_slot *ptr_find(const void *obj)
{
	uint32_t i;

	if (!tab.ptr || !obj)
		return NULL;
	for (i = ptr_hash(obj) & tab.mask; tab.ptr[i].obj;
	     i = (i + 1) & tab.mask)
		if (tab.ptr[i].obj == obj)
			return &tab.ptr[i];
	return NULL;
}

/* Enter obj (not there yet) into ptr, of mask + 1 slots with room:
 * whether it took a tombstone's place. */
static bool ptr_put(struct ptr_slot *ptr, uint32_t mask,
		    const struct ptr_slot *e)
{
	uint32_t i = ptr_hash(e->obj) & mask;
	bool tomb;

	while (ptr[i].obj && ptr[i].obj != TOMB)
		i = (i + 1) & mask;
	tomb = ptr[i].obj == TOMB;
	ptr[i] = *e;
	return tomb;
}

static void ptr_drop(struct ptr_slot *s)
{
	s->obj = TOMB;
	tab.ptr_live--;
	tab.ptr_tombs++;
}

/*
 * Room for one more at a load of at most one half in both tables, so
 * that an insert meets a free slot within a few numbers. Doubling keeps
 * live handles apart: two that differ in their low k bits differ in
 * their low k + 1. Tombstones count as load; a rebuild clears them, at
 * the same size when the live entries alone would fit.
 */
static int make_room(void)
{
	uint32_t n = tab.slot ? tab.mask + 1 : 0, i;
	uint32_t nn = n ? n * 2 : FIRST_SLOTS;
	struct handle_slot *s;
	struct ptr_slot *p;

	if (tab.slot && (tab.ptr_live + tab.ptr_tombs + 1) * 2 <= n)
		return 0;
	if (tab.slot && (tab.ptr_live + 1) * 4 <= n)
		nn = n;
	if (n && !nn)
		return ENOMEM;		/* 2^31 slots in use: no more */
	s = calloc(nn, sizeof(*s));
	p = s ? calloc(nn, sizeof(*p)) : NULL;
	if (!p) {
		free(s);
		return ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (tab.slot[i].obj)
			s[tab.slot[i].handle & (nn - 1)] = tab.slot[i];
		if (tab.ptr[i].obj && tab.ptr[i].obj != TOMB)
			ptr_put(p, nn - 1, &tab.ptr[i]);
	}
	free(tab.slot);
	free(tab.ptr);
	tab.slot = s;
	tab.ptr = p;
	tab.mask = nn - 1;
	tab.ptr_tombs = 0;
	return 0;
}

/* The table's lock is taken across fork(), so that the child's copy is
 * whole and unlocked, whatever another thread was doing. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&tab.lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&tab.lock);
}

static void fork_child(void)
{
	pthread_mutex_init(&tab.lock, NULL);
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_hooks(void)
{
	emu_fork_watch();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static void enter_ptr(const struct emu_context *ctx,
		      enum emu_obj_type type, const void *obj)
{
	struct ptr_slot e = {
		.obj = obj, .ctx = ctx, .gen = emu_fork_gen,
		.type = (uint8_t)type,
	};
	struct ptr_slot *old = ptr_find(obj);

	/* An address freed without its entry removed (never, when every
	 * path is right) now holds the new object: the new one wins. */
	if (old)
		ptr_drop(old);
	if (ptr_put(tab.ptr, tab.mask, &e))
		tab.ptr_tombs--;
	tab.ptr_live++;
}

int emu_handle_add(const struct emu_context *ctx, enum emu_obj_type type,
		   const void *obj, uint32_t *handle)
{
	struct handle_slot *s;
	uint32_t h;
	int rc;

	pthread_once(&fork_once, fork_hooks);
	pthread_mutex_lock(&tab.lock);
	rc = make_room();
	if (rc) {
		pthread_mutex_unlock(&tab.lock);
		return rc;
	}
	/* Half the slots at least are free, so this ends within as many
	 * numbers as there are slots. A number whose slot is taken is
	 * skipped: that slot may hold the very same number, still live
	 * after the counter went all the way round. */
	for (;;) {
		h = tab.next++;
		s = &tab.slot[h & tab.mask];
		if (h && !s->obj)
			break;
	}
	s->obj = obj;
	s->ctx = ctx;
	s->handle = h;
	s->type = (uint8_t)type;
	tab.live++;
	enter_ptr(ctx, type, obj);
	pthread_mutex_unlock(&tab.lock);
	*handle = h;
	return 0;
}

static struct handle_slot *find(uint32_t handle)
{
	struct handle_slot *s;

	if (!tab.slot)
		return NULL;
	s = &tab.slot[handle & tab.mask];
	return s->obj && s->handle == handle ? s : NULL;
}

void emu_handle_remove(uint32_t handle, const void *obj)
{
	struct handle_slot *s;
	struct ptr_slot *p;

	pthread_mutex_lock(&tab.lock);
	s = find(handle);
	if (s && s->obj == obj) {
		s->obj = NULL;
		tab.live--;
		p = ptr_find(obj);
		if (p)
			ptr_drop(p);
	}
	pthread_mutex_unlock(&tab.lock);
}

int emu_handle_lookup(const struct emu_context *ctx, uint32_t handle,
		      enum emu_obj_type type, const void *obj)
{
	struct handle_slot *s;
	int rc;

	pthread_mutex_lock(&tab.lock);
	s = find(handle);
	/* The kernel looks in the file of the command's context: another
	 * context's handle is not there. A handle of the right type that
	 * names another object than the one passed, the kernel would act
	 * on, destroying what the application still uses and freeing the
	 * structure it passed: we find no such object instead. */
	if (!s || s->ctx != ctx)
		rc = ENOENT;
	else if (s->type != type)
		rc = EINVAL;
	else
		rc = s->obj == obj ? 0 : ENOENT;
	pthread_mutex_unlock(&tab.lock);
	return rc;
}

void emu_handle_forget(const struct emu_context *ctx)
{
	uint32_t i;

	pthread_once(&fork_once, fork_hooks);
	pthread_mutex_lock(&tab.lock);
	for (i = 0; tab.slot && i <= tab.mask; i++) {
		if (tab.slot[i].obj && tab.slot[i].ctx == ctx) {
			tab.slot[i].obj = NULL;
			tab.live--;
		}
		if (tab.ptr[i].obj && tab.ptr[i].obj != TOMB &&
		    tab.ptr[i].ctx == ctx)
			ptr_drop(&tab.ptr[i]);
	}
	pthread_mutex_unlock(&tab.lock);
}

int emu_handle_alias_add(const struct emu_context *ctx,
			 enum emu_obj_type type, const void *obj)
{
	int rc;

	pthread_once(&fork_once, fork_hooks);
	pthread_mutex_lock(&tab.lock);
	rc = make_room();
	if (!rc)
		enter_ptr(ctx, type, obj);
	pthread_mutex_unlock(&tab.lock);
	return rc;
}

void emu_handle_alias_remove(const void *obj)
{
	struct ptr_slot *p;

	pthread_mutex_lock(&tab.lock);
	p = ptr_find(obj);
	if (p)
		ptr_drop(p);
	pthread_mutex_unlock(&tab.lock);
}

int emu_handle_check(const void *obj, enum emu_obj_type type)
{
	struct ptr_slot *p;
	int rc;

	pthread_once(&fork_once, fork_hooks);
	pthread_mutex_lock(&tab.lock);
	p = ptr_find(obj);
	if (!p)
		rc = ENOENT;
	else if (emu_fork_inherited(p->gen))
		rc = EIO;
	else if (p->type != type)
		rc = EINVAL;
	else
		rc = 0;
	pthread_mutex_unlock(&tab.lock);
	return rc;
}
