/* Address handles: a destination resolved once, at creation, from the GRH
 * (the IP address inside the destination GID) and the source GID index. */
#ifndef EMU_AH_H
#define EMU_AH_H

#include <netinet/in.h>

#include <infiniband/verbs.h>

struct emu_device;
struct emu_pd;

struct emu_ah {
	struct ibv_ah ibv;
	struct emu_pd *pd;
	struct ibv_ah_attr attr;	/* as created */
	struct in6_addr dest;		/* IPv4 kept v4-mapped */
	struct in6_addr src;		/* the source GID's address */
	uint8_t port_num;
};

static inline struct emu_ah *to_emu_ah(struct ibv_ah *ah)
{
	return (struct emu_ah *)ah;
}

/* Check attr against pd's device and build the AH: 0 and *out, or EINVAL
 * (no such port; not global on an Ethernet port; sgid_index not a valid
 * GID; a zero destination or one of the other IP family than the source
 * GID), ENOMEM (max_ah reached, or no memory). */
int emu_ah_create(struct emu_pd *pd, const struct ibv_ah_attr *attr,
		  struct emu_ah **out);
void emu_ah_destroy(struct emu_ah *ah);

/* ibv_init_ah_from_wc's work for a port of dev: 0, or EINVAL (bad port,
 * grh missing when the completion has one, a multicast destination, no
 * local GID for the packet's destination), EPROTONOSUPPORT (the GRH area
 * holds neither an IPv4 nor an IPv6/IB header). attr is zeroed first. */
int emu_ah_attr_from_wc(struct emu_device *dev, uint32_t port_num,
			const struct ibv_wc *wc, const struct ibv_grh *grh,
			struct ibv_ah_attr *attr);

#endif
