/* Device and port attributes in verbs encodings: what ibv_query_device(_ex)
 * and ibv_query_port report, derived from the config and the live state. */
#include <limits.h>
#include <string.h>

#include "emu/base/clock.h"
#include "emu/device/device.h"
#include "emu/device/subnet.h"
#include "emu/objects/dm.h"
#include "emu/objects/odp.h"
#include "emu/device/speed.h"
#include "emu/objects/tm.h"

/* Capabilities this HCA model has; a flag is listed only where the verbs it
 * promises behave as the flag says. */
#define EMU_DEVICE_CAP_FLAGS                                                  \
	(IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT |           \
	 IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_N_NOTIFY_CQ |                \
	 IBV_DEVICE_SRQ_RESIZE | IBV_DEVICE_XRC)

/* Local CA ACK delay, as rxe reports: 4.096 us x 2^15. */
#define EMU_LOCAL_CA_ACK_DELAY 15

static uint64_t to_be64(uint64_t v)
{
	return __builtin_bswap64(v);
}

void emu_device_fill_attr(struct emu_device *dev, struct ibv_device_attr *a)
{
	const struct emu_limits *l = &dev->cfg.limits;
	uint64_t total;

	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%s", dev->cfg.fw_ver);
	a->node_guid = to_be64(dev->node_guid);
	a->sys_image_guid = to_be64(dev->sys_image_guid);
	a->max_mr_size = l->max_mr_size;
	a->page_size_cap = 0xfffff000ull;	/* 4 KiB and every larger power */
	a->vendor_id = dev->cfg.vendor_id;
	a->vendor_part_id = dev->cfg.vendor_part_id;
	a->hw_ver = dev->cfg.hw_ver;
	a->max_qp = (int)l->max_qp;
	a->max_qp_wr = (int)l->max_qp_wr;
	a->device_cap_flags = EMU_DEVICE_CAP_FLAGS;
	/* Memory windows of type 1 and 2B (emu/objects/mw.c), as rxe has them;
	 * not promised by a device configured for none. */
	if (l->max_mw)
		a->device_cap_flags |= IBV_DEVICE_MEM_WINDOW |
				       IBV_DEVICE_MEM_WINDOW_TYPE_2B;
	a->max_sge = (int)l->max_sge;
	a->max_sge_rd = (int)l->max_sge_rd;
	a->max_cq = (int)l->max_cq;
	a->max_cqe = (int)l->max_cqe;
	a->max_mr = (int)l->max_mr;
	a->max_pd = (int)l->max_pd;
	a->max_qp_rd_atom = (int)l->max_qp_rd_atom;
	a->max_res_rd_atom = (int)l->max_res_rd_atom;
	a->max_qp_init_rd_atom = (int)l->max_qp_init_rd_atom;
	a->atomic_cap = (enum ibv_atomic_cap)l->atomic_cap;
	a->max_mw = (int)l->max_mw;
	a->max_mcast_grp = (int)l->max_mcast_grp;
	a->max_mcast_qp_attach = (int)l->max_mcast_qp_attach;
	total = (uint64_t)l->max_mcast_grp * l->max_mcast_qp_attach;
	a->max_total_mcast_qp_attach = total > INT_MAX ? INT_MAX : (int)total;
	a->max_ah = (int)l->max_ah;
	a->max_srq = (int)l->max_srq;
	a->max_srq_wr = (int)l->max_srq_wr;
	a->max_srq_sge = (int)l->max_srq_sge;
	a->max_pkeys = dev->nports ? dev->ports[0].cfg.pkey_tbl_len : 1;
	a->local_ca_ack_delay = EMU_LOCAL_CA_ACK_DELAY;
	a->phys_port_cnt = (uint8_t)dev->nports;
}

void emu_device_fill_attr_ex(struct emu_device *dev,
			     struct ibv_device_attr_ex *a)
{
	memset(a, 0, sizeof(*a));
	emu_device_fill_attr(dev, &a->orig_attr);
	/* The kernel answers query_device_ex with all its capability bits
	 * here, the basic ones included (uverbs' ib_uverbs_ex_query_device
	 * copies device_cap_flags whole); this device has no others. */
	a->device_cap_flags_ex = a->orig_attr.device_cap_flags;
	a->phys_port_cnt_ex = dev->nports;
	/* Tag matching on RC (emu/objects/tm.c), with mlx5's one SGE per tag. */
	a->tm_caps.max_rndv_hdr_size = EMU_TM_RNDV_HDR;
	a->tm_caps.max_num_tags = EMU_TM_MAX_TAGS;
	a->tm_caps.flags = IBV_TM_CAP_RC;
	a->tm_caps.max_ops = EMU_TM_MAX_OPS;
	a->tm_caps.max_sge = EMU_TM_MAX_SGE;
	emu_odp_fill_caps(a);
	emu_dm_fill_caps(a);
	emu_clock_fill_caps(a);
}

static enum ibv_mtu mtu_enum(uint32_t bytes)
{
	switch (bytes) {
	case 256:
		return IBV_MTU_256;
	case 512:
		return IBV_MTU_512;
	case 1024:
		return IBV_MTU_1024;
	case 2048:
		return IBV_MTU_2048;
	default:
		return IBV_MTU_4096;
	}
}

void emu_port_fill_attr(struct emu_port *port, struct ibv_port_attr *a)
{
	const struct emu_port_config *pc = &port->cfg;
	int state = atomic_load(&port->state);
	bool eth = pc->link_layer == IBV_LINK_LAYER_ETHERNET;

	memset(a, 0, sizeof(*a));
	a->state = (enum ibv_port_state)state;
	a->max_mtu = mtu_enum(pc->mtu);
	a->active_mtu = a->max_mtu;
	a->gid_tbl_len = (int)pc->gid_tbl_len;
	a->port_cap_flags = IBV_PORT_CM_SUP;
	if (eth)
		a->port_cap_flags |= IBV_PORT_IP_BASED_GIDS;
	a->max_msg_sz = 0x80000000u;	/* 2 GiB, the IBTA message limit */
	a->pkey_tbl_len = pc->pkey_tbl_len;
	if (!eth) {
		/* What the subnet manager gave it (emu/device/subnet.c); LMC 0,
		 * the SM at SL 0. */
		a->lid = port->lid;
		a->sm_lid = EMU_SM_LID;
		a->lmc = 0;
		a->sm_sl = 0;
	}
	a->max_vl_num = 1;		/* VL0 only */
	a->active_width = emu_width_to_active_width(pc->width);
	a->active_speed = emu_speed_to_active_speed(pc->speed);
	a->active_speed_ex = emu_speed_to_active_speed_ex(pc->speed);
	a->phys_state = state == IBV_PORT_ACTIVE ? 5 /* LinkUp */
						 : 3 /* Disabled */;
	a->link_layer = pc->link_layer;
	a->flags = eth ? IBV_QPF_GRH_REQUIRED : 0;
}
