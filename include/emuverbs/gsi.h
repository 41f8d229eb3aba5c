/* include/emuverbs/gsi.h: what the emulated device offers its own
 * librdmacm beyond the verbs: a port's QP1 (the GSI), which the kernel's
 * MAD layer owns on a real machine. Exported under EMUVERBS_PRIVATE_1. */
#ifndef EMUVERBS_GSI_H
#define EMUVERBS_GSI_H

#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The Q_Key every QP1 uses (IBTA 13.4.6.1). */
#define EMUVERBS_GSI_QKEY 0x80010000u

/*
 * A UD QP numbered 1 on port_num of pd's device: it receives what peers
 * send to QP 1 at that port (communication management MADs) and sends
 * from QP 1. The caller moves it through INIT (port_num, Q_Key
 * EMUVERBS_GSI_QKEY), RTR and RTS as any UD QP and destroys it with
 * ibv_destroy_qp. NULL with errno: EINVAL (not UD, an SRQ, no such port),
 * EBUSY (the port's QP1 exists), or what ibv_create_qp fails with.
 */
struct ibv_qp *emuverbs_create_gsi_qp(struct ibv_pd *pd,
				      struct ibv_qp_init_attr *qp_init_attr,
				      uint8_t port_num);

/*
 * Move the QP numbered qpn on ctx's device to ERR, as the kernel's CM does
 * when a connection ends, for a caller that may not hold the QP's memory
 * any more (the application can destroy a QP while librdmacm's thread
 * handles a DREQ for it). 0, or an errno value as ibv_modify_qp returns
 * one: EINVAL (no context), ENOENT (no such QP: destroyed already).
 */
int emuverbs_qp_error(struct ibv_context *ctx, uint32_t qpn);

#ifdef __cplusplus
}
#endif

#endif
