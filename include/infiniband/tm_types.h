/*
 * emuverbs: wire formats of tag matching headers (TMH) and rendezvous
 * headers (RVH) carried in sends to a tag-matching SRQ.
 */
#ifndef _TM_TYPES_H
#define _TM_TYPES_H

#include <linux/types.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ibv_tmh_op {
	IBV_TMH_NO_TAG	= 0,
	IBV_TMH_RNDV	= 1,
	IBV_TMH_FIN	= 2,
	IBV_TMH_EAGER	= 3,
};

/* 16 bytes, big endian on the wire */
struct ibv_tmh {
	uint8_t		opcode;		/* enum ibv_tmh_op */
	uint8_t		reserved[3];	/* zero */
	__be32		app_ctx;	/* opaque to the HCA */
	__be64		tag;
};

/* Where the receiver should RDMA READ the rendezvous payload from. */
struct ibv_rvh {
	__be64		va;
	__be32		rkey;
	__be32		len;
};

#ifdef __cplusplus
}
#endif

#endif /* _TM_TYPES_H */
