/* Context families (the contexts sharing one command file) and the PDs
 * and DMs entered under their handles for import; regions are found in
 * the device's key table instead. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "emu/device/device.h"
#include "emu/objects/import.h"
#include "emu/objects/mr.h"
#include "emu/objects/pd.h"

/* A command file and how many live contexts hold it. */
struct family {
	dev_t dev;
	ino_t ino;
	unsigned int members;
	struct family *next;
};

struct member {
	const struct emu_context *ctx;
	struct family *fam;
	struct member *next;
};

struct tracked {
	enum emu_import_type type;
	uint32_t handle;
	void *obj;
	const struct emu_context *ctx;	/* where it was made */
	struct tracked *next;
};

/* Few contexts, few PDs and DMs, imports rare: short lists, one lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct family *families;
static struct member *members;
static struct tracked *objects;

/* Under lock: ctx's family, or NULL. */
static struct family *family_of(const struct emu_context *ctx)
{
	struct member *m;

	for (m = members; m; m = m->next)
		if (m->ctx == ctx)
			return m->fam;
	return NULL;
}

static int add_member(const struct emu_context *ctx, struct family *f)
{
	struct member *m = calloc(1, sizeof(*m));

	if (!m)
		return ENOMEM;
	m->ctx = ctx;
	m->fam = f;
	m->next = members;
	members = m;
	f->members++;
	return 0;
}

int emu_import_family_new(struct emu_context *ctx, dev_t dev, ino_t ino)
{
	struct family *f = calloc(1, sizeof(*f));
	int rc;

	if (!f)
		return ENOMEM;
	f->dev = dev;
	f->ino = ino;
	pthread_mutex_lock(&lock);
	rc = add_member(ctx, f);
	if (!rc) {
		f->next = families;
		families = f;
	}
	pthread_mutex_unlock(&lock);
	if (rc)
		free(f);
	return rc;
}

int emu_import_family_join(struct emu_context *ctx, dev_t dev, ino_t ino,
			   struct emu_context **origin)
{
	struct family *f;
	struct member *m;
	int rc = ENODEV;

	pthread_mutex_lock(&lock);
	for (f = families; f; f = f->next)
		if (f->dev == dev && f->ino == ino)
			break;
	/* Any live member stands for the family: its device is ours. */
	for (m = f ? members : NULL; m; m = m->next)
		if (m->fam == f)
			break;
	if (m) {
		*origin = (struct emu_context *)m->ctx;
		rc = ctx ? add_member(ctx, f) : 0;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

void emu_import_family_leave(struct emu_context *ctx)
{
	struct member **pm, *m = NULL;
	struct family **pf;

	pthread_mutex_lock(&lock);
	for (pm = &members; *pm; pm = &(*pm)->next) {
		if ((*pm)->ctx == ctx) {
			m = *pm;
			*pm = m->next;
			break;
		}
	}
	if (m && --m->fam->members == 0) {
		for (pf = &families; *pf; pf = &(*pf)->next) {
			if (*pf == m->fam) {
				*pf = m->fam->next;
				free(m->fam);
				break;
			}
		}
	}
	pthread_mutex_unlock(&lock);
	free(m);
}

/* Under lock. A context outside every family is a family of its own. */
static bool same_family(const struct emu_context *a,
			const struct emu_context *b)
{
	struct family *fa = family_of(a);

	return a == b || (fa && fa == family_of(b));
}

bool emu_import_same_family(const struct emu_context *a,
			    const struct emu_context *b)
{
	bool same;

	pthread_mutex_lock(&lock);
	same = same_family(a, b);
	pthread_mutex_unlock(&lock);
	return same;
}

int emu_import_track(const struct emu_context *ctx, enum emu_import_type type,
		     uint32_t handle, void *obj)
{
	struct tracked *t = calloc(1, sizeof(*t));

	if (!t)
		return ENOMEM;
	t->type = type;
	t->handle = handle;
	t->obj = obj;
	t->ctx = ctx;
	pthread_mutex_lock(&lock);
	t->next = objects;
	objects = t;
	pthread_mutex_unlock(&lock);
	return 0;
}

static atomic_uint *users_of(void *obj, size_t users_off)
{
	return (atomic_uint *)(void *)((char *)obj + users_off);
}

int emu_import_untrack_idle(enum emu_import_type type, uint32_t handle,
			    void *obj, size_t users_off)
{
	struct tracked **pt, *t = NULL;
	int rc = 0;

	pthread_mutex_lock(&lock);
	for (pt = &objects; *pt; pt = &(*pt)->next) {
		if ((*pt)->type == type && (*pt)->handle == handle &&
		    (*pt)->obj == obj) {
			/* Held, by an import among others: it stays. */
			if (atomic_load(users_of(obj, users_off))) {
				rc = EBUSY;
				break;
			}
			t = *pt;
			*pt = t->next;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	free(t);
	return rc;
}

void *emu_import_find(const struct emu_context *ctx,
		      enum emu_import_type type, uint32_t handle,
		      size_t users_off)
{
	struct tracked *t;
	void *obj = NULL;

	/* Held under the lock: a destroy untracks under it, so what is
	 * found here cannot be freed before the count shows it held. */
	pthread_mutex_lock(&lock);
	for (t = objects; t && !obj; t = t->next)
		if (t->type == type && t->handle == handle &&
		    same_family(ctx, t->ctx))
			obj = t->obj;
	if (obj)
		atomic_fetch_add(users_of(obj, users_off), 1);
	pthread_mutex_unlock(&lock);
	return obj;
}

/* ---- regions ------------------------------------------------------------ */

struct mr_call {
	struct emu_context *ctx;
	uint32_t handle;
	struct emu_import_mr_info info;
	struct emu_mr *mr;
};

/* Engine thread: regions stay in place while it looks. */
static void find_on_engine(void *arg)
{
	struct mr_call *c = arg;
	struct emu_mr *mr = emu_mr_by_handle(c->ctx->dev, c->handle);

	if (!mr || !emu_import_same_family(c->ctx, mr->pd->ctx))
		return;
	c->mr = mr;
	c->info.lkey = mr->ibv.lkey;
	c->info.rkey = mr->ibv.rkey;
	c->info.length = mr->ibv.length;
}

int emu_import_mr_info(struct emu_context *ctx, uint32_t handle,
		       struct emu_import_mr_info *out)
{
	struct mr_call c = { .ctx = ctx, .handle = handle };

	emu_device_run(ctx->dev, find_on_engine, &c);
	if (!c.mr)
		return ENOENT;
	*out = c.info;
	return 0;
}

int emu_import_mr_find(struct emu_context *ctx, uint32_t handle,
		       struct emu_mr **out)
{
	struct mr_call c = { .ctx = ctx, .handle = handle };

	emu_device_run(ctx->dev, find_on_engine, &c);
	*out = c.mr;
	return c.mr ? 0 : ENOENT;
}
