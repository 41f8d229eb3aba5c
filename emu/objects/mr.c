/* Memory regions: the per-device key table, registration, re-registration
 * and deregistration, and the access check. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/random.h>

#include "emu/device/device.h"
#include "emu/objects/dm.h"
#include "emu/base/engine.h"
#include "emu/base/handle.h"
#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/mw.h"
#include "emu/objects/odp.h"
#include "emu/objects/pd.h"
#include "emu/objects/xport.h"
#include "net/memguard.h"

/* One key slot: a region's, or a window's (emu/objects/mw.c). Readers (the engine)
 * only load the pointers; the tags are touched under the table lock when
 * keys are handed out. */
struct mr_slot {
	_Atomic(struct emu_mr *) mr;
	_Atomic(struct emu_mw *) mw;
	uint8_t ltag, rtag;		/* low bytes of the slot's last keys */
};

/* A range of slots handed out one at a time. Regions have [0, max_mr) and
 * windows the max_mw slots after them, so neither can starve the other
 * and a key's index alone says which kind it names. */
struct key_pool {
	uint32_t base, n;
	uint32_t used;
	/* Slots from fresh up have never been used. Released slots wait in
	 * a FIFO, so a slot comes back as late as possible and a stale key
	 * names an empty slot for as long as possible. */
	uint32_t fresh;
	uint32_t *freeq;		/* n entries of the table's array */
	uint32_t fq_head, fq_len;
};

struct emu_mr_table {
	pthread_mutex_t lock;		/* slot allocation, tags, rng */
	uint32_t nslots;		/* both pools */
	struct key_pool mrs, mws;
	uint32_t *freeq;
	uint64_t rng;			/* xorshift64* state */
	struct mr_slot *slots;
};

/* Rights that make the kernel pin pages for writing (ib_access_writable). */
#define WRITABLE_ACCESS EMU_MR_WRITABLE_ACCESS

/* ---- the table --------------------------------------------------------- */

static uint64_t rng_seed(void)
{
	uint64_t s = 0;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s))
		s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^
		    (uint64_t)(uintptr_t)&s;
	return s ? s : 0x9e3779b97f4a7c15ull;
}

static uint8_t rng_byte(struct emu_mr_table *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return (uint8_t)((t->rng * 0x2545f4914f6cdd1dull) >> 56);
}

/* A random tag equal to none of a, b, c. */
static uint8_t new_tag(struct emu_mr_table *t, uint8_t a, uint8_t b,
		       uint8_t c)
{
	uint8_t tag;

	do
		tag = rng_byte(t);
	while (tag == a || tag == b || tag == c);
	return tag;
}

int emu_mr_table_create(struct emu_device *dev)
{
	struct emu_mr_table *t;
	uint32_t n = dev->cfg.limits.max_mr;
	uint32_t nw = dev->cfg.limits.max_mw;

	if (dev->mrs)
		return EEXIST;
	/* The index has 24 bits of the key: more slots cannot be named.
	 * Windows get what the regions leave of that space. */
	if (n > EMU_MR_MAX_SLOTS)
		n = EMU_MR_MAX_SLOTS;
	if (nw > EMU_MR_MAX_SLOTS - n)
		nw = EMU_MR_MAX_SLOTS - n;
	t = calloc(1, sizeof(*t));
	if (!t)
		return ENOMEM;
	/* Large arrays come from fresh zero pages: only the slots in use
	 * ever cost memory. */
	t->slots = calloc(n + nw ? n + nw : 1, sizeof(*t->slots));
	t->freeq = calloc(n + nw ? n + nw : 1, sizeof(*t->freeq));
	if (!t->slots || !t->freeq) {
		free(t->slots);
		free(t->freeq);
		free(t);
		return ENOMEM;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->nslots = n + nw;
	t->mrs.n = n;
	t->mrs.freeq = t->freeq;
	t->mws.base = n;
	t->mws.n = nw;
	t->mws.freeq = t->freeq + n;
	t->rng = rng_seed();
	dev->mrs = t;
	return 0;
}

void emu_mr_table_destroy(struct emu_device *dev)
{
	struct emu_mr_table *t = dev->mrs;

	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t->slots);
	free(t->freeq);
	free(t);
	dev->mrs = NULL;
}

/* Under the lock: a free slot of p, or ENOMEM when all are in use. */
static int slot_take(struct key_pool *p, uint32_t *idx)
{
	if (p->used >= p->n)
		return ENOMEM;
	if (p->fresh < p->n) {
		*idx = p->base + p->fresh++;
	} else {
		*idx = p->freeq[p->fq_head];
		p->fq_head = (p->fq_head + 1) % p->n;
		p->fq_len--;
	}
	p->used++;
	return 0;
}

static void slot_give(struct key_pool *p, uint32_t idx)
{
	p->freeq[(p->fq_head + p->fq_len) % p->n] = idx;
	p->fq_len++;
	p->used--;
}

/* Under the lock: new lkey and rkey for mr in its slot, then make them
 * visible. Neither tag repeats either of the slot's previous ones, so no
 * key of the last registration in this slot can name this one, and the
 * two keys differ from each other. */
static void publish(struct emu_mr_table *t, struct emu_mr *mr)
{
	struct mr_slot *s = &t->slots[mr->index];
	uint8_t l = new_tag(t, s->ltag, s->rtag, s->ltag);
	uint8_t r = new_tag(t, s->ltag, s->rtag, l);

	s->ltag = l;
	s->rtag = r;
	mr->ibv.lkey = mr->index << 8 | l;
	mr->ibv.rkey = mr->index << 8 | r;
	atomic_store_explicit(&s->mr, mr, memory_order_release);
}

struct unpublish_call {
	struct mr_slot *s;
	struct emu_mr *mr;
	bool keep_if_bound;		/* dereg: refuse with windows */
	bool busy;
};

/* Windows are bound and unbound on the engine thread, so asking there
 * gives an answer no bind can overtake before the keys are gone. */
static void unpublish_on_engine(void *arg)
{
	struct unpublish_call *c = arg;

	if (c->keep_if_bound && c->mr->num_mw) {
		c->busy = true;
		return;
	}
	atomic_store_explicit(&c->s->mr, NULL, memory_order_release);
	/* Packets queued from the region (RC payloads and READ responses
	 * are sent from it in place) go now, while it is still there. */
	emu_xport->flush(c->mr->pd->ctx->dev);
}

static struct emu_device *mr_dev(const struct emu_mr *mr)
{
	return mr->pd->ctx->dev;
}


/* Take mr's keys out of the table. The engine is the reader that must
 * never see a region being changed or freed: clearing the slot from its
 * own thread means that when this returns, it is in no access to mr and
 * can no longer find it. With keep_if_bound, a region that windows are
 * bound to keeps its keys and EBUSY is returned. */
static int unpublish(struct emu_mr *mr, bool keep_if_bound)
{
	struct emu_device *dev = mr_dev(mr);
	struct unpublish_call c = {
		.s = &dev->mrs->slots[mr->index],
		.mr = mr,
		.keep_if_bound = keep_if_bound,
	};

	emu_device_run(dev, unpublish_on_engine, &c);
	return c.busy ? EBUSY : 0;
}

/* ---- lookups and the access check ------------------------------------ */

static struct emu_mr *lookup(struct emu_device *dev, uint32_t key,
			     int remote)
{
	struct emu_mr_table *t = dev->mrs;
	struct emu_mr *mr;
	uint32_t idx = key >> 8;

	if (!t || idx >= t->nslots)
		return NULL;
	mr = atomic_load_explicit(&t->slots[idx].mr, memory_order_acquire);
	if (!mr || (remote ? mr->ibv.rkey : mr->ibv.lkey) != key)
		return NULL;
	return mr;
}

struct emu_mr *emu_mr_lookup_lkey(struct emu_device *dev, uint32_t lkey)
{
	return lookup(dev, lkey, 0);
}

struct emu_mr *emu_mr_lookup_rkey(struct emu_device *dev, uint32_t rkey)
{
	return lookup(dev, rkey, 1);
}

struct emu_mr *emu_mr_by_handle(struct emu_device *dev, uint32_t handle)
{
	struct emu_mr_table *t = dev->mrs;
	struct emu_mr *mr, *found = NULL;
	uint32_t i;

	if (!t)
		return NULL;
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < t->mrs.fresh && !found; i++) {
		mr = atomic_load_explicit(&t->slots[t->mrs.base + i].mr,
					  memory_order_acquire);
		if (mr && mr->ibv.handle == handle)
			found = mr;
	}
	pthread_mutex_unlock(&t->lock);
	return found;
}

enum emu_mr_check emu_mr_locate(const struct emu_mr *mr, uint64_t va,
				uint64_t len, uint8_t **ptr)
{
	/* Where a zero-length access lands when the region has no address
	 * of its own (an implicit ODP region at va 0). */
	static uint8_t nowhere;
	uint64_t off;
	uint8_t *p;

	/* Subtract rather than add: va + len may wrap past 2^64, the
	 * offset and the room left after it cannot. */
	if (va >= mr->iova && va - mr->iova <= mr->length) {
		off = va - mr->iova;
		if (len > mr->length - off)
			return EMU_MR_BOUNDS;
		/* In integers: an implicit region's addr is NULL, and an
		 * offset from NULL is no pointer arithmetic C allows. */
		p = (uint8_t *)((uintptr_t)mr->addr + off);
		if (ptr)
			*ptr = p || len ? p : &nowhere;
		return EMU_MR_OK;
	}
	if (len)
		return EMU_MR_BOUNDS;
	/* A zero-length access touches nothing, so any va passes (IBTA
	 * does not check the R_Key's range for it); hand back a pointer
	 * that is valid to pass to memcpy with length 0. */
	if (ptr)
		*ptr = mr->addr ? mr->addr : &nowhere;
	return EMU_MR_OK;
}

/* Rights whose access writes the region's memory. */
#define WRITE_NEEDS                                                       \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |               \
	 IBV_ACCESS_REMOTE_ATOMIC)

enum emu_mr_check emu_mr_resolve(const struct emu_mr *mr,
				 const struct emu_pd *pd, uint64_t va,
				 uint64_t len, unsigned int need,
				 uint8_t **ptr)
{
	enum emu_mr_check rc;
	uint8_t *p;

	if (mr->pd != pd)
		return EMU_MR_BAD_PD;
	if (need & ~mr->access)
		return EMU_MR_ACCESS;
	rc = emu_mr_locate(mr, va, len, &p);
	if (rc != EMU_MR_OK)
		return rc;
	/* An ODP region's pages are faulted in before the engine touches
	 * them, as an ODP HCA's are: a page that cannot be fails the
	 * access, it never reaches a load or store (emu/objects/odp.c). */
	if (mr->odp && emu_odp_fault(p, len, need & WRITE_NEEDS))
		return EMU_MR_FAULT;
	if (ptr)
		*ptr = p;
	return EMU_MR_OK;
}

enum emu_mr_check emu_mr_resolve_key(struct emu_device *dev, uint32_t key,
				     int remote, const struct emu_pd *pd,
				     uint64_t va, uint64_t len,
				     unsigned int need, uint8_t **ptr)
{
	struct emu_mr *mr;

	if (remote)
		return emu_mr_resolve_rkey(dev, key, pd, EMU_MR_NO_QPN, va, len,
					   need, ptr);
	mr = lookup(dev, key, 0);
	if (!mr)
		return EMU_MR_BAD_KEY;
	return emu_mr_resolve(mr, pd, va, len, need, ptr);
}

/* Rights the region under a window must still have for need: a window
 * that writes needs a region the HCA may write (IBTA C10-74), and that is
 * what made registration check the pages are writable. */
static unsigned int region_need(unsigned int need)
{
	return need & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC) ?
	       IBV_ACCESS_LOCAL_WRITE : 0;
}

enum emu_mr_check emu_mr_resolve_rkey(struct emu_device *dev, uint32_t rkey,
				      const struct emu_pd *pd, uint32_t qpn,
				      uint64_t va, uint64_t len,
				      unsigned int need, uint8_t **ptr)
{
	struct emu_mr_table *t = dev->mrs;
	uint32_t idx = rkey >> 8;
	uint64_t base, off = 0;
	struct emu_mr *mr;
	struct emu_mw *mw;

	if (!t || idx >= t->nslots)
		return EMU_MR_BAD_KEY;
	mr = atomic_load_explicit(&t->slots[idx].mr, memory_order_acquire);
	if (mr) {
		if (mr->ibv.rkey != rkey)
			return EMU_MR_BAD_KEY;
		return emu_mr_resolve(mr, pd, va, len, need, ptr);
	}
	mw = atomic_load_explicit(&t->slots[idx].mw, memory_order_acquire);
	if (!mw || !mw->bound || mw->rkey != rkey)
		return EMU_MR_BAD_KEY;
	/* IBTA 10.6.7: a window is used through a QP of its PD; a type 2
	 * one only through the QP it was bound on. */
	if (mw->pd != pd ||
	    (mw->ibv.type == IBV_MW_TYPE_2 && mw->qpn != qpn))
		return EMU_MR_BAD_PD;
	if (need & ~mw->access)
		return EMU_MR_ACCESS;
	/* The window's range, checked as emu_mr_resolve checks a region's
	 * (a zero-length access touches nothing and may name any va). */
	base = mw->zero_based ? 0 : mw->addr;
	if (va >= base && va - base <= mw->length) {
		off = va - base;
		if (len > mw->length - off)
			return EMU_MR_BOUNDS;
	} else if (len) {
		return EMU_MR_BOUNDS;
	}
	/* The region as it is now: a re-registration may have moved it or
	 * (failing) withdrawn its keys since the bind. Its slot is compared
	 * first, so none of its fields is read while it is being changed. */
	mr = mw->mr;
	if (atomic_load_explicit(&t->slots[mr->index].mr,
				 memory_order_acquire) != mr)
		return EMU_MR_BAD_KEY;
	return emu_mr_resolve(mr, mr->pd, mw->addr + off, len,
			      region_need(need), ptr);
}

/* ---- pinning ----------------------------------------------------------- */

/* Every page of [start, end) in a mapping that is readable, and writable
 * too if asked: what get_user_pages needs before a real HCA may DMA. The
 * engine reaches memory through plain loads and stores, so a region it
 * could not touch would crash the process instead of failing an access.
 * Without /proc, mincore's answer has to do. */
static int check_protection(uintptr_t start, uintptr_t end, int writable)
{
	FILE *f = fopen("/proc/self/maps", "re");
	uintptr_t at = start;
	char line[512];
	int bad = 0;

	if (!f)
		return 0;
	while (at < end && !bad && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[5];
		bool whole = strchr(line, '\n') != NULL;

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 &&
		    hi > at) {
			/* A hole: unmapped since mincore looked. */
			if (lo > at)
				bad = 1;
			else if (perms[0] != 'r' ||
				 (writable && perms[1] != 'w'))
				bad = 1;
			else
				at = hi;
		}
		/* A long path name: skip the rest of its line. */
		while (!whole && fgets(line, sizeof(line), f))
			whole = strchr(line, '\n') != NULL;
	}
	fclose(f);
	return bad || at < end ? EFAULT : 0;
}

int emu_mr_check_mapped(const void *addr, uint64_t length, int writable)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)addr & ~(pg - 1);
	uintptr_t end, at, n;
	unsigned char vec[1024];
	int tries = 0;

	if (!length)
		return 0;
	/* Nothing that ends in the last page of the address space is user
	 * memory; it also keeps the rounding below from wrapping. */
	if (length > UINTPTR_MAX - pg ||
	    (uintptr_t)addr > UINTPTR_MAX - pg - length)
		return EFAULT;
	end = ((uintptr_t)addr + length + pg - 1) & ~(pg - 1);
	for (at = start; at < end; at += n) {
		n = end - at;
		if (n > sizeof(vec) * pg)
			n = sizeof(vec) * pg;
		if (mincore((void *)at, n, vec) == 0)
			continue;
		/* ENOMEM: part of the range is not mapped. EAGAIN is the
		 * kernel short of memory for a moment: ask again. */
		if (errno == EAGAIN && ++tries < 8) {
			n = 0;
			continue;
		}
		return EFAULT;
	}
	return check_protection(start, end, writable);
}

/*
 * The range checks a kernel makes before pinning: some page to pin, no
 * wrap of the process range or of the iova range, within max_mr_size.
 * A region of no bytes is registered as mlx5 and rxe register it: the
 * kernel pins the pages [addr, addr + length) touches, counted from the
 * page addr is in (ib_umem_get), so length 0 pins that one page, unless
 * addr is where a page starts: then it counts none and refuses.
 */
static int check_range(struct emu_device *dev, const void *addr,
		       uint64_t length, uint64_t iova, const char *verb)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	if (!length)
		return (uintptr_t)addr & (pg - 1) ? 0 :
		       emu_refuse(EINVAL, "%s: length 0 at %p, where a page "
				  "starts: no page to pin", verb, addr);
	if (length > dev->cfg.limits.max_mr_size)
		return emu_refuse(EINVAL, "%s: length %llu not in "
				  "1..max_mr_size %llu", verb,
				  (unsigned long long)length,
				  (unsigned long long)
				  dev->cfg.limits.max_mr_size);
	if (length - 1 > UINTPTR_MAX - (uintptr_t)addr)
		return emu_refuse(EINVAL, "%s: addr %p + length %llu wraps",
				  verb, addr, (unsigned long long)length);
	/* The region may end exactly at 2^64, not beyond. */
	if (length - 1 > UINT64_MAX - iova)
		return emu_refuse(EINVAL, "%s: iova %#llx + length %llu "
				  "wraps", verb, (unsigned long long)iova,
				  (unsigned long long)length);
	return 0;
}

/* ---- registration ------------------------------------------------------ */

/* Enter a checked region: its fields, a slot and fresh keys. */
static int add_region(struct emu_pd *pd, void *addr, uint64_t length,
		      uint64_t iova, unsigned int access, struct emu_dm *dm,
		      struct emu_mr **out)
{
	struct emu_mr_table *t = pd->ctx->dev->mrs;
	struct emu_mr *mr;
	int rc;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return ENOMEM;
	mr->pd = pd;
	mr->addr = addr;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->odp = access & IBV_ACCESS_ON_DEMAND;
	mr->implicit = mr->odp && emu_odp_is_implicit(addr, length);
	mr->dm = dm;
	mr->ibv.context = pd->ibv.context;
	mr->ibv.pd = &pd->ibv;
	/* The device memory has no address of the application's
	 * (ibv_cmd_reg_dm_mr leaves addr NULL): SGEs use offsets. */
	mr->ibv.addr = dm ? NULL : addr;
	mr->ibv.length = length;
	if (emu_handle_add(pd->ctx, EMU_OBJ_MR, &mr->ibv, &mr->ibv.handle)) {
		free(mr);
		return ENOMEM;
	}

	pthread_mutex_lock(&t->lock);
	rc = slot_take(&t->mrs, &mr->index);
	if (!rc) {
		emu_pd_get(pd);
		publish(t, mr);
	}
	pthread_mutex_unlock(&t->lock);
	if (rc) {
		emu_handle_remove(mr->ibv.handle, &mr->ibv);
		free(mr);
		return emu_refuse(rc, "ibv_reg_mr: max_mr (%u) regions exist "
				  "already", t->mrs.n);
	}
	*out = mr;
	return 0;
}

int emu_mr_register(struct emu_pd *pd, void *addr, uint64_t length,
		    uint64_t iova, unsigned int access, struct emu_mr **out)
{
	struct emu_device *dev = pd->ctx->dev;
	bool odp = access & IBV_ACCESS_ON_DEMAND;
	int rc;

	/* Optional bits ask for nothing we must honour: relaxed ordering
	 * allows reordering and we simply do not reorder. */
	access &= ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	if (access & IBV_ACCESS_ZERO_BASED)
		iova = 0;
	if (!dev->mrs)
		return ENOMEM;
	/* mlx5_ib_reg_user_mr: the implicit region is at iova 0. */
	if (odp && emu_odp_is_implicit(addr, length) && iova)
		return emu_refuse(EINVAL, "ibv_reg_mr: implicit ODP at iova "
				  "%#llx, not 0", (unsigned long long)iova);
	rc = check_range(dev, addr, length, iova, "ibv_reg_mr");
	if (rc)
		return rc;
	/* An ODP region's pages need not exist yet: each access faults in
	 * what it touches, and fails on what is not there. */
	/* Of a region of no bytes, the page its address is in is pinned. */
	rc = odp ? 0 : emu_mr_check_mapped(addr, length ? length : 1,
					    !!(access & WRITABLE_ACCESS));
	if (rc)
		return emu_refuse(rc, "ibv_reg_mr: [%p, +%llu) is not all "
				  "mapped%s", addr, (unsigned long long)length,
				  access & WRITABLE_ACCESS ?
				  " writable" : " readable");
	/* From now on the application may unmap what it registered: an
	 * access to such a page must fail, not kill (net/memguard.c). */
	rc = emu_guard_install();
	if (rc)
		emu_log(EMU_LOG_VERBS, "ibv_reg_mr: no fault handler (%s): an "
			"access to an unmapped page will kill the process",
			strerror(rc));
	return add_region(pd, addr, length, iova, access, NULL, out);
}

int emu_mr_register_dm(struct emu_pd *pd, struct emu_dm *dm, void *mem,
		       uint64_t length, unsigned int access,
		       struct emu_mr **out)
{
	access &= ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	if (!pd->ctx->dev->mrs)
		return ENOMEM;
	/* No user pages, nothing pinned: any length the DM holds, even
	 * none, as the kernel's mlx5_ib_reg_dm_mr takes it. */
	return add_region(pd, mem, length, 0, access | IBV_ACCESS_ZERO_BASED,
			  dm, out);
}

int emu_mr_reregister(struct emu_mr *mr, int flags, struct emu_pd *pd,
		      void *addr, uint64_t length, unsigned int access)
{
	struct emu_device *dev = mr_dev(mr);
	struct emu_pd *npd = mr->pd;
	uint8_t *naddr = mr->addr;
	uint64_t nlen = mr->length, niova = mr->iova;
	unsigned int nacc = mr->access;
	int rc = 0;

	if (flags & IBV_REREG_MR_CHANGE_PD)
		npd = pd;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		nacc = access & ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	/* As the kernel's rereg: the new translation is reached at its own
	 * address (rdma-core passes addr as the new hca_va). */
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		naddr = addr;
		nlen = length;
		niova = nacc & IBV_ACCESS_ZERO_BASED ? 0 : (uintptr_t)addr;
	}

	/* ib_uverbs_rereg_mr: a region on device memory cannot change. */
	if (mr->dm)
		return emu_refuse(EINVAL, "ibv_rereg_mr: a region on device "
				  "memory");
	/* mlx5 rebuilds an implicit ODP region on every rereg, and refuses
	 * before touching it when the rights would drop ON_DEMAND and no
	 * new translation is given. */
	if (mr->implicit && !(flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
	    !(nacc & IBV_ACCESS_ON_DEMAND))
		return emu_refuse(EOPNOTSUPP, "ibv_rereg_mr: an implicit ODP "
				  "region cannot lose IBV_ACCESS_ON_DEMAND");
	/* Out of the engine's sight before anything changes; left out on
	 * failure, as a real HCA may have destroyed the old key already.
	 * Windows bound to it stay bound: each access through one checks
	 * the region again (emu_mr_resolve_rkey). */
	unpublish(mr, false);
	if (!npd || npd->ctx != mr->pd->ctx)
		rc = emu_refuse(EINVAL, "ibv_rereg_mr: pd of another context");
	if (!rc)
		rc = check_range(dev, naddr, nlen, niova, "ibv_rereg_mr");
	if (!rc && !(nacc & IBV_ACCESS_ON_DEMAND) &&
	    (flags & (IBV_REREG_MR_CHANGE_TRANSLATION |
		      IBV_REREG_MR_CHANGE_ACCESS))) {
		rc = emu_mr_check_mapped(naddr, nlen,
					 !!(nacc & WRITABLE_ACCESS));
		if (rc)
			emu_log(EMU_LOG_VERBS, "ibv_rereg_mr: [%p, +%llu) is "
				"not all mapped%s", (void *)naddr,
				(unsigned long long)nlen,
				nacc & WRITABLE_ACCESS ? " writable" :
				" readable");
	}
	if (rc)
		return rc;

	if (npd != mr->pd) {
		emu_pd_get(npd);
		emu_pd_put(mr->pd);
		mr->pd = npd;
		mr->ibv.pd = &npd->ibv;
	}
	mr->addr = naddr;
	mr->length = nlen;
	mr->iova = niova;
	mr->access = nacc;
	mr->odp = nacc & IBV_ACCESS_ON_DEMAND;
	mr->implicit = mr->odp && emu_odp_is_implicit(naddr, nlen);
	mr->ibv.addr = naddr;
	mr->ibv.length = nlen;

	/* Same keys as before: programs go on using the keys they handed
	 * to their peers (an mlx5 rereg keeps its mkey too), and rdma-core's
	 * own tests rely on it. Only deregistration retires a key. */
	atomic_store_explicit(&dev->mrs->slots[mr->index].mr, mr,
			      memory_order_release);
	return 0;
}

int emu_mr_deregister(struct emu_mr *mr)
{
	struct emu_mr_table *t = mr_dev(mr)->mrs;

	if (unpublish(mr, true))
		return emu_refuse(EBUSY, "ibv_dereg_mr: memory windows are "
				  "bound to the region");
	pthread_mutex_lock(&t->lock);
	slot_give(&t->mrs, mr->index);
	pthread_mutex_unlock(&t->lock);
	emu_handle_remove(mr->ibv.handle, &mr->ibv);
	emu_pd_put(mr->pd);
	if (mr->dm)
		emu_dm_mr_gone(mr->dm);
	free(mr);
	return 0;
}

/* ---- memory windows' slots -------------------------------------------- */

int emu_mr_table_add_mw(struct emu_device *dev, struct emu_mw *mw)
{
	struct emu_mr_table *t = dev->mrs;
	struct mr_slot *s;
	uint8_t tag;
	int rc;

	if (!t)
		return ENOMEM;
	pthread_mutex_lock(&t->lock);
	rc = slot_take(&t->mws, &mw->index);
	if (rc)
		emu_log(EMU_LOG_VERBS, "ibv_alloc_mw: max_mw (%u) windows "
			"exist already", t->mws.n);
	if (!rc) {
		/* Not the last key of the window that had the slot before. */
		s = &t->slots[mw->index];
		tag = new_tag(t, s->rtag, s->rtag, s->rtag);
		s->rtag = tag;
		mw->rkey = mw->index << 8 | tag;
		mw->ibv.rkey = mw->rkey;
		atomic_store_explicit(&s->mw, mw, memory_order_release);
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

void emu_mr_table_clear_mw(struct emu_device *dev, struct emu_mw *mw)
{
	atomic_store_explicit(&dev->mrs->slots[mw->index].mw, NULL,
			      memory_order_release);
}

void emu_mr_table_remove_mw(struct emu_device *dev, struct emu_mw *mw)
{
	struct emu_mr_table *t = dev->mrs;

	pthread_mutex_lock(&t->lock);
	/* The key the window ended with (binds choose their own). */
	t->slots[mw->index].rtag = (uint8_t)mw->rkey;
	slot_give(&t->mws, mw->index);
	pthread_mutex_unlock(&t->lock);
}

struct emu_mw *emu_mr_table_mw(struct emu_device *dev, uint32_t key)
{
	struct emu_mr_table *t = dev->mrs;
	uint32_t idx = key >> 8;

	if (!t || idx >= t->nslots)
		return NULL;
	return atomic_load_explicit(&t->slots[idx].mw, memory_order_acquire);
}
