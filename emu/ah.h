/* Address handles: a destination resolved once, at creation, from the GRH
 * (the IP address inside the destination GID) and the source GID index. */
#ifndef EMU_AH_H
#define EMU_AH_H

#include <netinet/in.h>

#include <infiniband/verbs.h>

struct emu_pd;

struct emu_ah {
	struct ibv_ah ibv;
	struct emu_pd *pd;
	struct ibv_ah_attr attr;	/* as created */
	struct in6_addr dest;		/* IPv4 kept v4-mapped */
	uint8_t port_num;
};

static inline struct emu_ah *to_emu_ah(struct ibv_ah *ah)
{
	return (struct emu_ah *)ah;
}

#endif
