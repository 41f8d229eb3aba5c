/* On-demand paging: faulting in the pages of an access to an ODP region
 * through the kernel, so an unmapped page fails the access instead of
 * crashing the process; ibv_advise_mr's prefetch; the ODP capabilities. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/odp.h"
#include "emu/objects/pd.h"

/* Linux 5.14's madvise advice; older C libraries lack the names. */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void emu_odp_fill_caps(struct ibv_device_attr_ex *a)
{
	a->odp_caps.general_caps = EMU_ODP_GENERAL_CAPS;
	a->odp_caps.per_transport_caps.rc_odp_caps = EMU_ODP_RC_CAPS;
	a->odp_caps.per_transport_caps.uc_odp_caps = EMU_ODP_UC_CAPS;
	a->odp_caps.per_transport_caps.ud_odp_caps = EMU_ODP_UD_CAPS;
	a->xrc_odp_caps = EMU_ODP_XRC_CAPS;
}

/* Whether this kernel knows MADV_POPULATE_*: 0 unknown, 1 yes, -1 no.
 * Asked once, of a page that is surely mapped and writable. */
static atomic_int populate_ok;

static bool have_populate(void)
{
	static long probe;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	int v = atomic_load_explicit(&populate_ok, memory_order_relaxed);

	if (v)
		return v > 0;
	/* An old kernel answers an advice it does not know with EINVAL. */
	v = madvise((void *)((uintptr_t)&probe & ~(pg - 1)), pg,
		    MADV_POPULATE_WRITE) == 0 ? 1 : -1;
	atomic_store_explicit(&populate_ok, v, memory_order_relaxed);
	return v > 0;
}

int emu_odp_fault(const void *addr, uint64_t len, bool write)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start, end;
	int rc;

	if (!len)
		return 0;
	/* Nothing ending in the last page of the address space is user
	 * memory; it also keeps the rounding below from wrapping. */
	if (len > UINTPTR_MAX - pg || (uintptr_t)addr > UINTPTR_MAX - pg - len)
		return EFAULT;
	if (!have_populate())
		return emu_mr_check_mapped(addr, len, write);
	start = (uintptr_t)addr & ~(pg - 1);
	end = ((uintptr_t)addr + len + pg - 1) & ~(pg - 1);
	/*
	 * What get_user_pages / hmm_range_fault do for an ODP HCA: fault
	 * every page in with the access's protection. ENOMEM is a hole,
	 * EFAULT a page that would raise SIGBUS or SIGSEGV, EINVAL a mapping
	 * without the protection (or one of I/O memory): all fail the
	 * access. EINTR (a fatal signal pending) and EAGAIN are retried.
	 */
	do
		rc = madvise((void *)start, end - start,
			     write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
	while (rc && (errno == EINTR || errno == EAGAIN));
	return rc ? EFAULT : 0;
}

/* ---- ibv_advise_mr ------------------------------------------------------ */

/* One SGE's pages, found on the engine thread (where regions are looked
 * up safely) and faulted in by the caller. */
struct advise_range {
	const void *addr;
	uint64_t len;
};

struct advise_call {
	const struct emu_pd *pd;
	enum ibv_advise_mr_advice advice;
	const struct ibv_sge *sg;
	uint32_t n;
	struct advise_range *out;
	int rc;
};

static int advise_one(struct advise_call *c, const struct ibv_sge *sge,
		      struct advise_range *out)
{
	struct emu_device *dev = c->pd->ctx->dev;
	struct emu_mr *mr = emu_mr_lookup_lkey(dev, sge->lkey);
	uint8_t *p;

	/* mlx5's get_prefetchable_mr: only ODP regions are prefetchable,
	 * any other key is not found. */
	if (!mr || !mr->odp)
		return emu_refuse(ENOENT, "ibv_advise_mr: lkey %#x names no "
				  "ODP region", sge->lkey);
	if (mr->pd != c->pd)
		return emu_refuse(EPERM, "ibv_advise_mr: lkey %#x is of "
				  "another PD", sge->lkey);
	if (c->advice == IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    !(mr->access & EMU_MR_WRITABLE_ACCESS))
		return emu_refuse(EPERM, "ibv_advise_mr: PREFETCH_WRITE on a "
				  "region that is not writable");
	/* The range alone: faulting comes after, off the engine. */
	if (emu_mr_locate(mr, sge->addr, sge->length, &p) != EMU_MR_OK)
		return emu_refuse(EFAULT, "ibv_advise_mr: [%#llx, +%u) is "
				  "outside the region",
				  (unsigned long long)sge->addr, sge->length);
	out->addr = p;
	out->len = sge->length;
	return 0;
}

static void advise_on_engine(void *arg)
{
	struct advise_call *c = arg;
	uint32_t i;

	for (i = 0; i < c->n && !c->rc; i++)
		c->rc = advise_one(c, &c->sg[i], &c->out[i]);
}

int emu_odp_advise(struct emu_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, const struct ibv_sge *sg_list,
		   uint32_t num_sge)
{
	bool write = advice == IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	struct advise_call c = {
		.pd = pd,
		.advice = advice,
		.sg = sg_list,
		.n = num_sge,
	};
	uint32_t i;
	int rc = 0;

	c.out = calloc(num_sge, sizeof(*c.out));
	if (!c.out)
		return ENOMEM;
	emu_device_run(pd->ctx->dev, advise_on_engine, &c);
	/* NO_FAULT maps only what is present already: here, nothing to do.
	 * The region may go away meanwhile: madvise on a range no longer
	 * mapped fails, it never faults. */
	for (i = 0; !c.rc && i < num_sge &&
		    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT; i++) {
		rc = emu_odp_fault(c.out[i].addr, c.out[i].len, write);
		/* Without FLUSH, mlx5 faults in a work queue and only logs
		 * what fails: the call has already returned 0. */
		if (rc && !(flags & IBV_ADVISE_MR_FLAG_FLUSH))
			rc = 0;
		if (rc) {
			emu_log(EMU_LOG_VERBS, "ibv_advise_mr: [%#llx, +%u) "
				"cannot be faulted in",
				(unsigned long long)sg_list[i].addr,
				sg_list[i].length);
			break;
		}
	}
	free(c.out);
	return c.rc ? c.rc : rc;
}
