/* The process's table of object handles (emu/handle.h): one numbering for
 * every context and type, each number found from its low bits in one
 * slot, the table doubling as it fills. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "emu/handle.h"

struct handle_slot {
	const void *obj;		/* NULL while the slot is free */
	const struct emu_context *ctx;
	uint32_t handle;
	uint8_t type;			/* enum emu_obj_type */
};

/* One table for the process rather than one per context: a handle then
 * never repeats across contexts, so an object moved to another context
 * finds nothing there, and the memory windows, which tell a window from
 * its slot's next one by handle, never meet an old number again soon.
 * Creating and destroying objects is not a fast path; the lock is held
 * for a few compares. */
static struct {
	pthread_mutex_t lock;
	struct handle_slot *slot;
	uint32_t mask;			/* slots - 1 (slot NULL: none yet) */
	uint32_t live;
	uint32_t next;			/* the next handle to try */
} tab = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.next = 1,
};

#define FIRST_SLOTS 64

/*
 * Room for one more at a load of at most one half, so that an insert
 * meets a free slot within a few numbers. Doubling keeps live handles
 * apart: two that differ in their low k bits differ in their low k + 1.
 */
static int make_room(void)
{
	uint32_t n = tab.slot ? tab.mask + 1 : 0, i;
	uint32_t nn = n ? n * 2 : FIRST_SLOTS;
	struct handle_slot *s;

	if (tab.slot && (tab.live + 1) * 2 <= n)
		return 0;
	if (n && !nn)
		return ENOMEM;		/* 2^31 slots in use: no more */
	s = calloc(nn, sizeof(*s));
	if (!s)
		return ENOMEM;
	for (i = 0; i < n; i++)
		if (tab.slot[i].obj)
			s[tab.slot[i].handle & (nn - 1)] = tab.slot[i];
	free(tab.slot);
	tab.slot = s;
	tab.mask = nn - 1;
	return 0;
}

int emu_handle_add(const struct emu_context *ctx, enum emu_obj_type type,
		   const void *obj, uint32_t *handle)
{
	struct handle_slot *s;
	uint32_t h;
	int rc;

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

	pthread_mutex_lock(&tab.lock);
	s = find(handle);
	if (s && s->obj == obj) {
		s->obj = NULL;
		tab.live--;
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

	pthread_mutex_lock(&tab.lock);
	for (i = 0; tab.slot && i <= tab.mask; i++) {
		if (tab.slot[i].obj && tab.slot[i].ctx == ctx) {
			tab.slot[i].obj = NULL;
			tab.live--;
		}
	}
	pthread_mutex_unlock(&tab.lock);
}
