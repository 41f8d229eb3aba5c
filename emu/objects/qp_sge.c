/* A WQE's scatter list as the engine reads or writes it: each piece checked
 * against its SGE's key, then mapped in place (emu_sge_map) or copied to
 * or from a buffer (emu_sge_copy). */
#include <sys/uio.h>

#include "emu/base/log.h"
#include "emu/objects/mr.h"
#include "emu/objects/qp.h"
#include "net/memguard.h"

/* Up to max pieces of [off, off + len) of a scatter list, each checked
 * against its SGE's key for the access need, into iov (*niov of them,
 * *got bytes). 0 with *got == len, or with *got < len when max pieces
 * were not enough; else the failing IBV_WC_* status. */
static int sge_map(struct emu_qp *qp, const struct ibv_sge *sge,
		   uint32_t num_sge, uint32_t off, uint32_t len,
		   unsigned int need, struct iovec *iov, unsigned int max,
		   unsigned int *niov, uint32_t *got)
{
	uint32_t i, want = len;
	unsigned int k = 0;

	for (i = 0; i < num_sge && len && k < max; i++) {
		uint8_t *p;
		uint32_t n;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = sge[i].length - off;
		if (n > len)
			n = len;
		/* Every byte goes through the key check: an MR deregistered
		 * since posting fails here, never as a stray access. */
		if (emu_mr_resolve_key(qp->dev, sge[i].lkey, 0, qp->pd,
				       sge[i].addr + off, n, need,
				       &p) != EMU_MR_OK)
			return IBV_WC_LOC_PROT_ERR;
		iov[k++] = (struct iovec){ p, n };
		len -= n;
		off = 0;
	}
	*niov = k;
	*got = want - len;
	return len && k < max ? IBV_WC_LOC_LEN_ERR : 0;
}

int emu_sge_map(struct emu_qp *qp, const struct ibv_sge *sge,
		uint32_t num_sge, uint32_t off, uint32_t len,
		struct iovec *iov, unsigned int max, unsigned int *niov)
{
	uint32_t got;
	int rc = sge_map(qp, sge, num_sge, off, len, 0, iov, max, niov, &got);

	return rc ? rc : got < len ? EMU_SGE_SCATTERED : 0;
}

int emu_sge_copy(struct emu_qp *qp, const struct ibv_sge *sge,
		 uint32_t num_sge, uint32_t off, void *buf, uint32_t len,
		 bool to_sge)
{
	unsigned int need = to_sge ? IBV_ACCESS_LOCAL_WRITE : 0;
	struct iovec iov[8];
	uint8_t *b = buf;
	unsigned int i, n;
	uint32_t got;
	int rc;

	do {
		rc = sge_map(qp, sge, num_sge, off, len, need, iov, 8, &n,
			     &got);
		if (rc)
			return rc;
		for (i = 0; i < n; i++) {
			/* A page the application unmapped after registering
			 * it is a bad local access, as a bad key is. */
			if (to_sge)
				rc = emu_guard_copy(iov[i].iov_base, b,
						    iov[i].iov_len);
			else
				rc = emu_guard_copy(b, iov[i].iov_base,
						    iov[i].iov_len);
			if (rc) {
				emu_log(EMU_LOG_XPORT, "qp 0x%06x: local "
					"buffer %p not mapped: local "
					"protection error", qp->qpn,
					iov[i].iov_base);
				return IBV_WC_LOC_PROT_ERR;
			}
			b += iov[i].iov_len;
		}
		off += got;
		len -= got;
	} while (len);
	return 0;
}
