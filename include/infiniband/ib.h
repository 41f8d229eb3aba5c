/*
 * emuverbs: <infiniband/ib.h>, the AF_IB address family of librdmacm
 * (struct sockaddr_ib and the 128-bit struct ib_addr inside it), binary
 * compatible with rdma-core's header of the same name.
 */
#ifndef _RDMA_IB_H
#define _RDMA_IB_H

#include <linux/types.h>
#include <endian.h>
#include <string.h>

/* The kernel's number for the native InfiniBand address family. */
#ifndef AF_IB
#define AF_IB 27
#endif
#ifndef PF_IB
#define PF_IB AF_IB
#endif

/* A GID seen as an address: 16 bytes, readable in four widths. */
struct ib_addr {
	union {
		__u8	uib_addr8[16];
		__be16	uib_addr16[8];
		__be32	uib_addr32[4];
		__be64	uib_addr64[2];
	} ib_u;
};

/* Shorthands for the views of ib_u (part of the API, as in sin6_addr). */
#define sib_addr8		ib_u.uib_addr8
#define sib_addr16		ib_u.uib_addr16
#define sib_addr32		ib_u.uib_addr32
#define sib_addr64		ib_u.uib_addr64
#define sib_raw			ib_u.uib_addr8
#define sib_subnet_prefix	ib_u.uib_addr64[0]
#define sib_interface_id	ib_u.uib_addr64[1]

/* Whether a is the unspecified address (all zero). */
static inline int ib_addr_any(const struct ib_addr *a)
{
	return (a->sib_addr64[0] | a->sib_addr64[1]) == 0;
}

/*
 * Whether a is the loopback address ::1. Compared byte by byte, so that it
 * needs no byte-order helper (htobe32 is missing under strict ISO C).
 */
static inline int ib_addr_loopback(const struct ib_addr *a)
{
	return (a->sib_addr32[0] | a->sib_addr32[1] | a->sib_addr32[2]) == 0 &&
	       a->sib_addr8[12] == 0 && a->sib_addr8[13] == 0 &&
	       a->sib_addr8[14] == 0 && a->sib_addr8[15] == 1;
}

/* Set a from four 32-bit words already in network order. */
static inline void ib_addr_set(struct ib_addr *addr, __be32 w1, __be32 w2,
			       __be32 w3, __be32 w4)
{
	addr->sib_addr32[0] = w1;
	addr->sib_addr32[1] = w2;
	addr->sib_addr32[2] = w3;
	addr->sib_addr32[3] = w4;
}

/* memcmp order of two addresses: 0 when equal. */
static inline int ib_addr_cmp(const struct ib_addr *a1,
			      const struct ib_addr *a2)
{
	return memcmp(a1, a2, sizeof(struct ib_addr));
}

/*
 * An AF_IB socket address: P_Key, flow label, GID, and a service ID with
 * its mask (rdma_cm's port spaces live in the service ID's upper bits).
 */
struct sockaddr_ib {
	unsigned short int	sib_family;	/* AF_IB */
	__be16			sib_pkey;
	__be32			sib_flowinfo;
	struct ib_addr		sib_addr;
	__be64			sib_sid;
	__be64			sib_sid_mask;
	__u64			sib_scope_id;
};

#endif /* _RDMA_IB_H */
