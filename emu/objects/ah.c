/* Address handles: checking an ibv_ah_attr against the port and its GID
 * table, and rebuilding one from a received UD packet's GRH area. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "emu/objects/ah.h"
#include "emu/device/dev_count.h"
#include "emu/device/device.h"
#include "emu/base/handle.h"
#include "emu/base/log.h"
#include "emu/objects/pd.h"
#include "emu/device/subnet.h"

/* next_hdr of a RoCEv1 packet's GRH: the IB BTH follows. */
#define NEXT_HDR_IB 0x1b
#define NEXT_HDR_UDP 17

static bool raw_v4mapped(const uint8_t raw[16])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(raw, prefix, sizeof(prefix));
}

/* The unspecified address, IPv6 or v4-mapped: no host answers there. */
static bool raw_unspecified(const uint8_t raw[16])
{
	static const uint8_t zero[16];

	return !memcmp(raw, zero, 16) ||
	       (raw_v4mapped(raw) && !memcmp(raw + 12, zero, 4));
}

int emu_ah_create(struct emu_pd *pd, const struct ibv_ah_attr *attr,
		  struct emu_ah **out)
{
	struct emu_device *dev = pd->ctx->dev;
	struct emu_port *port = emu_device_port(dev, attr->port_num);
	struct ibv_gid_entry sgid;
	struct emu_ah *ah;
	int rc;

	if (!port)
		return emu_refuse(EINVAL, "ibv_create_ah: port_num %u: no such "
				  "port", attr->port_num);
	if (attr->is_global) {
		if (emu_gid_table_query(&port->gids, attr->grh.sgid_index,
					&sgid))
			return emu_refuse(EINVAL, "ibv_create_ah: "
					  "grh.sgid_index %u: no GID there on "
					  "port %u", attr->grh.sgid_index,
					  attr->port_num);
		/* The packet goes out from the source GID's address to the
		 * one in dgid: both must be of one IP family, and dgid a
		 * place a packet can be sent to. */
		if (raw_unspecified(attr->grh.dgid.raw))
			return emu_refuse(EINVAL, "ibv_create_ah: grh.dgid is "
					  "the unspecified address");
		if (raw_v4mapped(attr->grh.dgid.raw) !=
		    raw_v4mapped(sgid.gid.raw))
			return emu_refuse(EINVAL, "ibv_create_ah: grh.dgid and "
					  "the source GID are not of one IP "
					  "family");
	} else if (port->cfg.link_layer == IBV_LINK_LAYER_ETHERNET) {
		/* RoCE routes by GID only: providers refuse an AH without
		 * a GRH on an Ethernet port. */
		return emu_refuse(EINVAL, "ibv_create_ah: is_global 0: RoCE "
				  "needs a GRH");
	}
	rc = emu_dev_count_take(dev, EMU_COUNT_AH);
	if (rc)
		return rc;
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		emu_dev_count_release(dev, EMU_COUNT_AH);
		return ENOMEM;
	}
	ah->ibv.context = pd->ibv.context;
	ah->ibv.pd = &pd->ibv;
	if (emu_handle_add(pd->ctx, EMU_OBJ_AH, &ah->ibv, &ah->ibv.handle)) {
		free(ah);
		emu_dev_count_release(dev, EMU_COUNT_AH);
		return ENOMEM;
	}
	ah->pd = pd;
	ah->attr = *attr;
	/* Whatever the caller passed, a GRH carries 20 bits of flow label:
	 * the kernel accepts any value and mlx5 keeps the low 20 bits. */
	ah->attr.grh.flow_label &= IB_GRH_FLOWLABEL_MASK;
	ah->port_num = (uint8_t)attr->port_num;
	/* An InfiniBand port's peers are where the subnet says (a LID not
	 * known yet is looked up again when a packet leaves); a RoCE GID is
	 * its own address. */
	if (port->cfg.link_layer == IBV_LINK_LAYER_INFINIBAND) {
		emu_subnet_path(port, attr, &ah->dest, &ah->src, true);
	} else {
		memcpy(&ah->dest, attr->grh.dgid.raw, sizeof(ah->dest));
		memcpy(&ah->src, sgid.gid.raw, sizeof(ah->src));
	}
	emu_pd_get(pd);
	*out = ah;
	return 0;
}

void emu_ah_destroy(struct emu_ah *ah)
{
	emu_handle_remove(ah->ibv.handle, &ah->ibv);
	emu_pd_put(ah->pd);
	emu_dev_count_release(ah->pd->ctx->dev, EMU_COUNT_AH);
	free(ah);
}

/* ---- from a work completion ------------------------------------------- */

/* The header checksum of the 20-byte IPv4 header at h is right. */
static bool ipv4_csum_ok(const uint8_t *h)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* Which header the 40-byte GRH area holds. An IPv4 packet's area is 20
 * bytes of padding then the IPv4 header; an IPv6 (or RoCEv1) one is the
 * header itself. The first nibble decides, except that an intact IPv4
 * header behind a nibble of 6 still counts as IPv4 (padding some HCAs do
 * not zero): the rule rdma-core applies, so both read a buffer alike.
 * 4, 6, or 0 for neither. */
static int grh_area_version(const uint8_t *b)
{
	const uint8_t *ip4 = b + 20;

	if (b[0] >> 4 != 6)
		return ip4[0] >> 4 == 4 ? 4 : 0;
	if (ip4[0] == 0x45 && ipv4_csum_ok(ip4))
		return 4;
	return 6;
}

/* Index of the port's GID equal to raw whose type is RoCEv2 (v2) or of
 * the v1/IB family; -1 if none. sgid_index has 8 bits: higher indexes
 * cannot be named in an ibv_ah_attr. */
static int find_gid(struct emu_port *port, const uint8_t raw[16], bool v2)
{
	struct ibv_gid_entry e;
	uint32_t i;

	for (i = 0; i < port->gids.len && i <= UINT8_MAX; i++) {
		if (emu_gid_table_query(&port->gids, i, &e))
			continue;
		if (memcmp(e.gid.raw, raw, 16))
			continue;
		if ((e.gid_type == IBV_GID_TYPE_ROCE_V2) == v2)
			return (int)i;
	}
	return -1;
}

static int from_ipv4(struct emu_port *port, const uint8_t *ip4,
		     struct ibv_ah_attr *attr)
{
	uint32_t saddr, daddr;
	uint8_t local[16];
	int idx;

	memcpy(&saddr, ip4 + 12, 4);
	memcpy(&daddr, ip4 + 16, 4);
	/* A multicast destination is no GID of ours to reply from. */
	if ((ip4[16] & 0xf0) == 0xe0)
		return emu_refuse(EINVAL, "ibv_init_ah_from_wc: the packet "
				  "went to an IPv4 multicast address");
	emu_gid_from_ipv4(local, daddr);
	idx = find_gid(port, local, true);
	if (idx < 0)
		return emu_refuse(EINVAL, "ibv_init_ah_from_wc: no RoCEv2 GID "
				  "of the port is the IPv4 destination");
	emu_gid_from_ipv4(attr->grh.dgid.raw, saddr);
	attr->grh.sgid_index = (uint8_t)idx;
	attr->grh.hop_limit = ip4[8];		/* TTL */
	attr->grh.traffic_class = ip4[1];	/* TOS */
	return 0;
}

static int from_ipv6(struct emu_port *port, const struct ibv_grh *grh,
		     uint32_t vtf, struct ibv_ah_attr *attr)
{
	bool v2;
	int idx;

	if (grh->dgid.raw[0] == 0xff)
		return emu_refuse(EINVAL, "ibv_init_ah_from_wc: the packet "
				  "went to a multicast GID");
	if (grh->next_hdr == NEXT_HDR_UDP)
		v2 = true;
	else if (grh->next_hdr == NEXT_HDR_IB)
		v2 = false;
	else
		return emu_refuse(EPROTONOSUPPORT, "ibv_init_ah_from_wc: GRH "
				  "next_hdr %u is neither UDP nor IB",
				  grh->next_hdr);
	idx = find_gid(port, grh->dgid.raw, v2);
	if (idx < 0)
		return emu_refuse(EINVAL, "ibv_init_ah_from_wc: no GID of the "
				  "port is the packet's destination");
	attr->grh.dgid = grh->sgid;
	attr->grh.sgid_index = (uint8_t)idx;
	attr->grh.hop_limit = grh->hop_limit;
	attr->grh.traffic_class = (uint8_t)(vtf >> 20);
	return 0;
}

int emu_ah_attr_from_wc(struct emu_device *dev, uint32_t port_num,
			const struct ibv_wc *wc, const struct ibv_grh *grh,
			struct ibv_ah_attr *attr)
{
	struct emu_port *port = emu_device_port(dev, port_num);
	const uint8_t *b = (const uint8_t *)grh;
	uint32_t vtf;

	memset(attr, 0, sizeof(*attr));
	if (!port)
		return emu_refuse(EINVAL, "ibv_init_ah_from_wc: port_num %u: "
				  "no such port", port_num);
	/* The reply goes back the way the packet came. */
	attr->dlid = wc->slid;
	attr->sl = wc->sl;
	attr->src_path_bits = wc->dlid_path_bits;
	attr->port_num = (uint8_t)port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;
	if (!grh)
		return emu_refuse(EINVAL, "ibv_init_ah_from_wc: IBV_WC_GRH but "
				  "grh is NULL");
	attr->is_global = 1;
	vtf = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	      (uint32_t)b[2] << 8 | b[3];
	attr->grh.flow_label = vtf & 0xfffff;
	switch (grh_area_version(b)) {
	case 4:
		/* IPv4 has no flow label; the padding carries none. */
		attr->grh.flow_label = 0;
		return from_ipv4(port, b + 20, attr);
	case 6:
		return from_ipv6(port, grh, vtf, attr);
	default:
		return emu_refuse(EPROTONOSUPPORT, "ibv_init_ah_from_wc: the "
				  "GRH area holds neither IPv4 nor IPv6");
	}
}
