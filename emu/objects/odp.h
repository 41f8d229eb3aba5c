/* On-demand paging: how an access to an ODP region faults its pages in
 * without ever touching an unmapped one, ibv_advise_mr's prefetch, and the
 * ODP capabilities the device reports. */
#ifndef EMU_ODP_H
#define EMU_ODP_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct emu_pd;

/* The ODP capabilities of ibv_query_device_ex (doc/features.md). */
#define EMU_ODP_GENERAL_CAPS (IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT)
#define EMU_ODP_RC_CAPS                                                   \
	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |                    \
	 IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |                   \
	 IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV)
#define EMU_ODP_UC_CAPS                                                   \
	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |                    \
	 IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_SRQ_RECV)
#define EMU_ODP_UD_CAPS                                                   \
	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |                    \
	 IBV_ODP_SUPPORT_SRQ_RECV)
#define EMU_ODP_XRC_CAPS EMU_ODP_RC_CAPS

/* Fill odp_caps and xrc_odp_caps of a device's extended attributes. */
void emu_odp_fill_caps(struct ibv_device_attr_ex *a);

/* An implicit ODP registration: ibv_reg_mr(pd, NULL, SIZE_MAX, ...). */
static inline bool emu_odp_is_implicit(const void *addr, uint64_t length)
{
	return !addr && length == UINT64_MAX;
}

/*
 * Fault in the pages of [addr, addr + len) for a read, or for a write,
 * as an ODP HCA asks the kernel to before it touches them: 0 once every
 * page is present with the protection the access needs, EFAULT when one
 * is not mapped, or mapped without that protection (the access must then
 * fail instead of touching it). len 0 faults nothing. Never raises a
 * signal: the kernel does the faulting (madvise MADV_POPULATE_READ/WRITE,
 * or mincore and /proc/self/maps where the kernel lacks those).
 */
int emu_odp_fault(const void *addr, uint64_t len, bool write);

/*
 * ibv_advise_mr on pd (checked by the front end: a known advice, known
 * flags, 1 or more SGEs). Each SGE must name an ODP region of pd by its
 * lkey, lie within it, and for PREFETCH_WRITE the region must be
 * writable; then its pages are faulted in (PREFETCH for reading,
 * PREFETCH_WRITE for writing, PREFETCH_NO_FAULT not at all). Returns 0,
 * or as mlx5: ENOENT (no ODP region has that lkey), EPERM (a region of
 * another PD, or PREFETCH_WRITE on one that is not writable), EFAULT
 * (outside the region, or, with IBV_ADVISE_MR_FLAG_FLUSH, a page that
 * cannot be faulted in; without it the faulting is only advice and its
 * failure is not reported).
 */
int emu_odp_advise(struct emu_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, const struct ibv_sge *sg_list,
		   uint32_t num_sge);

#endif
