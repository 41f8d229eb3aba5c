/* net/tmh.h: the tag-matching header (TMH) a SEND to a tag-matching SRQ
 * starts its payload with, and the rendezvous header (RVH) after it:
 * accessors on the public layouts of <infiniband/tm_types.h>, read and
 * written big-endian at any alignment (a payload sits anywhere in a
 * receive buffer).
 */
#ifndef EMU_NET_TMH_H
#define EMU_NET_TMH_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/tm_types.h>

#include "net/hdr.h"

#define WIRE_TMH_LEN	sizeof(struct ibv_tmh)
#define WIRE_RVH_LEN	sizeof(struct ibv_rvh)

_Static_assert(sizeof(struct ibv_tmh) == 16 && sizeof(struct ibv_rvh) == 16,
	       "TMH and RVH are 16 bytes each on the wire");

#define TMH_AT(p, f)	((const uint8_t *)(p) + offsetof(struct ibv_tmh, f))
#define RVH_AT(p, f)	((const uint8_t *)(p) + offsetof(struct ibv_rvh, f))

/* ---- TMH: opcode | reserved(24) | application context | tag(64) */
static inline uint8_t tmh_opcode(const void *tmh)
{
	return *TMH_AT(tmh, opcode);
}

static inline uint32_t tmh_app_ctx(const void *tmh)
{
	return wire_get32(TMH_AT(tmh, app_ctx));
}

static inline uint64_t tmh_tag(const void *tmh)
{
	return wire_get64(TMH_AT(tmh, tag));
}

/* A whole TMH, reserved bytes zero. */
static inline void tmh_init(void *tmh, enum ibv_tmh_op op, uint32_t app_ctx,
			    uint64_t tag)
{
	uint8_t *p = tmh;

	memset(p, 0, WIRE_TMH_LEN);
	p[offsetof(struct ibv_tmh, opcode)] = (uint8_t)op;
	wire_put32(p + offsetof(struct ibv_tmh, app_ctx), app_ctx);
	wire_put64(p + offsetof(struct ibv_tmh, tag), tag);
}

/* ---- RVH, right after a rendezvous TMH: VA(64) | R_Key | length */
static inline const uint8_t *tmh_rvh(const void *tmh)
{
	return (const uint8_t *)tmh + WIRE_TMH_LEN;
}

static inline uint64_t rvh_va(const void *rvh)
{
	return wire_get64(RVH_AT(rvh, va));
}

static inline uint32_t rvh_rkey(const void *rvh)
{
	return wire_get32(RVH_AT(rvh, rkey));
}

static inline uint32_t rvh_len(const void *rvh)
{
	return wire_get32(RVH_AT(rvh, len));
}

#undef TMH_AT
#undef RVH_AT

#endif /* EMU_NET_TMH_H */
