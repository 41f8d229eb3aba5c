/*
 * emuverbs ABI test: prints the layout (sizes, offsets), constant values,
 * prototypes and inline-helper behaviour of <infiniband/verbs.h>, one fact
 * per line, so the output of two headers can be diffed line by line.
 *
 * Built once against Debian's rdma-core 44 header and once against ours
 * with -DEMU_V65; facts the 44 header lacks are printed only with EMU_V65
 * and carry a "v65 " prefix (abi_test.sh compares them with a fixed list).
 */
#include <stdio.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <infiniband/tm_types.h>

#include "dump.h"

/* verbs_context ops are printed relative to the trailing context member */
#define VREL(f) printf("%svctx %s rel=%ld\n", pfx, #f,			\
		       (long)offsetof(struct verbs_context, f) -	\
		       (long)offsetof(struct verbs_context, context))
#define VFN(f, type) do {						\
	_Static_assert(__builtin_types_compatible_p(			\
		__typeof__(((struct verbs_context *)0)->f), type), #f);	\
	VREL(f);							\
} while (0)

static void dump_basic(void)
{
#define T union ibv_gid
	S(); F(raw); F(global); F(global.subnet_prefix);
	F(global.interface_id);
#undef T
	K(IBV_GID_TYPE_IB); K(IBV_GID_TYPE_ROCE_V1); K(IBV_GID_TYPE_ROCE_V2);
	KE(enum ibv_gid_type);
#define T struct ibv_gid_entry
	S(); F(gid); F(gid_index); F(port_num); F(gid_type); F(ndev_ifindex);
#undef T
	K(IBV_NODE_UNKNOWN); K(IBV_NODE_CA); K(IBV_NODE_SWITCH);
	K(IBV_NODE_ROUTER); K(IBV_NODE_RNIC); K(IBV_NODE_USNIC);
	K(IBV_NODE_USNIC_UDP); K(IBV_NODE_UNSPECIFIED);
	KE(enum ibv_node_type);
	K(IBV_TRANSPORT_UNKNOWN); K(IBV_TRANSPORT_IB);
	K(IBV_TRANSPORT_IWARP); K(IBV_TRANSPORT_USNIC);
	K(IBV_TRANSPORT_USNIC_UDP); K(IBV_TRANSPORT_UNSPECIFIED);
	KE(enum ibv_transport_type);
	K((uintptr_t)__VERBS_ABI_IS_EXTENDED == UINTPTR_MAX);
	K(vext_field_avail(struct ibv_port_attr, lid, 34));
	K(vext_field_avail(struct ibv_port_attr, lid, 35));
}

static void dump_device(void)
{
	K(IBV_DEVICE_RESIZE_MAX_WR); K(IBV_DEVICE_BAD_PKEY_CNTR);
	K(IBV_DEVICE_BAD_QKEY_CNTR); K(IBV_DEVICE_RAW_MULTI);
	K(IBV_DEVICE_AUTO_PATH_MIG); K(IBV_DEVICE_CHANGE_PHY_PORT);
	K(IBV_DEVICE_UD_AV_PORT_ENFORCE); K(IBV_DEVICE_CURR_QP_STATE_MOD);
	K(IBV_DEVICE_SHUTDOWN_PORT); K(IBV_DEVICE_INIT_TYPE);
	K(IBV_DEVICE_PORT_ACTIVE_EVENT); K(IBV_DEVICE_SYS_IMAGE_GUID);
	K(IBV_DEVICE_RC_RNR_NAK_GEN); K(IBV_DEVICE_SRQ_RESIZE);
	K(IBV_DEVICE_N_NOTIFY_CQ); K(IBV_DEVICE_MEM_WINDOW);
	K(IBV_DEVICE_UD_IP_CSUM); K(IBV_DEVICE_XRC);
	K(IBV_DEVICE_MEM_MGT_EXTENSIONS); K(IBV_DEVICE_MEM_WINDOW_TYPE_2A);
	K(IBV_DEVICE_MEM_WINDOW_TYPE_2B); K(IBV_DEVICE_RC_IP_CSUM);
	K(IBV_DEVICE_RAW_IP_CSUM); K(IBV_DEVICE_MANAGED_FLOW_STEERING);
	KE(enum ibv_device_cap_flags);
	K(IBV_DEVICE_RAW_SCATTER_FCS); K(IBV_DEVICE_PCI_WRITE_END_PADDING);
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_DEVICE_CC_DMA_BOUNCE);
	V65_END;
#endif
	K(IBV_FORK_DISABLED); K(IBV_FORK_ENABLED); K(IBV_FORK_UNNEEDED);
	KE(enum ibv_fork_status);
	K(IBV_ATOMIC_NONE); K(IBV_ATOMIC_HCA); K(IBV_ATOMIC_GLOB);
	KE(enum ibv_atomic_cap);

#define T struct ibv_device_attr
	S(); F(fw_ver); F(node_guid); F(sys_image_guid); F(max_mr_size);
	F(page_size_cap); F(vendor_id); F(vendor_part_id); F(hw_ver);
	F(max_qp); F(max_qp_wr); F(device_cap_flags); F(max_sge);
	F(max_sge_rd); F(max_cq); F(max_cqe); F(max_mr); F(max_pd);
	F(max_qp_rd_atom); F(max_ee_rd_atom); F(max_res_rd_atom);
	F(max_qp_init_rd_atom); F(max_ee_init_rd_atom); F(atomic_cap);
	F(max_ee); F(max_rdd); F(max_mw); F(max_raw_ipv6_qp);
	F(max_raw_ethy_qp); F(max_mcast_grp); F(max_mcast_qp_attach);
	F(max_total_mcast_qp_attach); F(max_ah); F(max_fmr);
	F(max_map_per_fmr); F(max_srq); F(max_srq_wr); F(max_srq_sge);
	F(max_pkeys); F(local_ca_ack_delay); F(phys_port_cnt);
#undef T
#define T struct ibv_query_device_ex_input
	S(); F(comp_mask);
#undef T
	K(IBV_ODP_SUPPORT); K(IBV_ODP_SUPPORT_IMPLICIT);
	KE(enum ibv_odp_general_caps);
	K(IBV_ODP_SUPPORT_SEND); K(IBV_ODP_SUPPORT_RECV);
	K(IBV_ODP_SUPPORT_WRITE); K(IBV_ODP_SUPPORT_READ);
	K(IBV_ODP_SUPPORT_ATOMIC); K(IBV_ODP_SUPPORT_SRQ_RECV);
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_ODP_SUPPORT_FLUSH); K(IBV_ODP_SUPPORT_ATOMIC_WRITE);
	V65_END;
#endif
	KE(enum ibv_odp_transport_cap_bits);
#define T struct ibv_odp_caps
	S(); F(general_caps); F(per_transport_caps);
	F(per_transport_caps.rc_odp_caps); F(per_transport_caps.uc_odp_caps);
	F(per_transport_caps.ud_odp_caps);
#undef T
#define T struct ibv_tso_caps
	S(); F(max_tso); F(supported_qpts);
#undef T
	K(IBV_RX_HASH_FUNC_TOEPLITZ); KE(enum ibv_rx_hash_function_flags);
	K(IBV_RX_HASH_SRC_IPV4); K(IBV_RX_HASH_DST_IPV4);
	K(IBV_RX_HASH_SRC_IPV6); K(IBV_RX_HASH_DST_IPV6);
	K(IBV_RX_HASH_SRC_PORT_TCP); K(IBV_RX_HASH_DST_PORT_TCP);
	K(IBV_RX_HASH_SRC_PORT_UDP); K(IBV_RX_HASH_DST_PORT_UDP);
	K(IBV_RX_HASH_IPSEC_SPI); K(IBV_RX_HASH_INNER);
	KE(enum ibv_rx_hash_fields);
	/* the value must not sign-extend when or'ed into a u64 mask */
	K((uint64_t)0 | IBV_RX_HASH_INNER);
#define T struct ibv_rss_caps
	S(); F(supported_qpts); F(max_rwq_indirection_tables);
	F(max_rwq_indirection_table_size); F(rx_hash_fields_mask);
	F(rx_hash_function);
#undef T
#define T struct ibv_packet_pacing_caps
	S(); F(qp_rate_limit_min); F(qp_rate_limit_max); F(supported_qpts);
#undef T
	K(IBV_RAW_PACKET_CAP_CVLAN_STRIPPING);
	K(IBV_RAW_PACKET_CAP_SCATTER_FCS); K(IBV_RAW_PACKET_CAP_IP_CSUM);
	K(IBV_RAW_PACKET_CAP_DELAY_DROP); KE(enum ibv_raw_packet_caps);
	K(IBV_TM_CAP_RC); KE(enum ibv_tm_cap_flags);
#define T struct ibv_tm_caps
	S(); F(max_rndv_hdr_size); F(max_num_tags); F(flags); F(max_ops);
	F(max_sge);
#undef T
#define T struct ibv_cq_moderation_caps
	S(); F(max_cq_count); F(max_cq_period);
#undef T
	K(IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP);
	K(IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP);
	K(IBV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP);
	KE(enum ibv_pci_atomic_op_size);
#define T struct ibv_pci_atomic_caps
	S(); F(fetch_add); F(swap); F(compare_swap);
#undef T
#define T struct ibv_device_attr_ex
	S(); F(orig_attr); F(comp_mask); F(odp_caps);
	F(completion_timestamp_mask); F(hca_core_clock);
	F(device_cap_flags_ex); F(tso_caps); F(rss_caps); F(max_wq_type_rq);
	F(packet_pacing_caps); F(raw_packet_caps); F(tm_caps);
	F(cq_mod_caps); F(max_dm_size); F(pci_atomic_caps); F(xrc_odp_caps);
	F(phys_port_cnt_ex);
#undef T

#define T struct ibv_alloc_dm_attr
	S(); F(length); F(log_align_req); F(comp_mask);
#undef T
	K(IBV_DM_MASK_HANDLE); KE(enum ibv_dm_mask);
#define T struct ibv_dm
	S(); F(context); F(comp_mask); F(handle);
	FN(memcpy_to_dm, int (*)(struct ibv_dm *, uint64_t, const void *,
				 size_t));
	FN(memcpy_from_dm, int (*)(void *, struct ibv_dm *, uint64_t,
				   size_t));
#undef T
}

static void dump_port(void)
{
	K(IBV_MTU_256); K(IBV_MTU_512); K(IBV_MTU_1024); K(IBV_MTU_2048);
	K(IBV_MTU_4096); KE(enum ibv_mtu);
	K(IBV_PORT_NOP); K(IBV_PORT_DOWN); K(IBV_PORT_INIT);
	K(IBV_PORT_ARMED); K(IBV_PORT_ACTIVE); K(IBV_PORT_ACTIVE_DEFER);
	KE(enum ibv_port_state);
	K(IBV_LINK_LAYER_UNSPECIFIED); K(IBV_LINK_LAYER_INFINIBAND);
	K(IBV_LINK_LAYER_ETHERNET);
	K(IBV_PORT_SM); K(IBV_PORT_NOTICE_SUP); K(IBV_PORT_TRAP_SUP);
	K(IBV_PORT_OPT_IPD_SUP); K(IBV_PORT_AUTO_MIGR_SUP);
	K(IBV_PORT_SL_MAP_SUP); K(IBV_PORT_MKEY_NVRAM);
	K(IBV_PORT_PKEY_NVRAM); K(IBV_PORT_LED_INFO_SUP);
	K(IBV_PORT_SYS_IMAGE_GUID_SUP); K(IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP);
	K(IBV_PORT_EXTENDED_SPEEDS_SUP); K(IBV_PORT_CAP_MASK2_SUP);
	K(IBV_PORT_CM_SUP); K(IBV_PORT_SNMP_TUNNEL_SUP);
	K(IBV_PORT_REINIT_SUP); K(IBV_PORT_DEVICE_MGMT_SUP);
	K(IBV_PORT_VENDOR_CLASS_SUP); K(IBV_PORT_DR_NOTICE_SUP);
	K(IBV_PORT_CAP_MASK_NOTICE_SUP); K(IBV_PORT_BOOT_MGMT_SUP);
	K(IBV_PORT_LINK_LATENCY_SUP); K(IBV_PORT_CLIENT_REG_SUP);
	K(IBV_PORT_IP_BASED_GIDS); KE(enum ibv_port_cap_flags);
	K(IBV_PORT_SET_NODE_DESC_SUP); K(IBV_PORT_INFO_EXT_SUP);
	K(IBV_PORT_VIRT_SUP); K(IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP);
	K(IBV_PORT_LINK_WIDTH_2X_SUP); K(IBV_PORT_LINK_SPEED_HDR_SUP);
	K(IBV_PORT_LINK_SPEED_NDR_SUP);
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_PORT_LINK_SPEED_XDR_SUP);
	V65_END;
#endif
	KE(enum ibv_port_cap_flags2);
	/* grows at the end: its size is version specific */
#define T struct ibv_port_attr
	F(state); F(max_mtu); F(active_mtu); F(gid_tbl_len);
	F(port_cap_flags); F(max_msg_sz); F(bad_pkey_cntr);
	F(qkey_viol_cntr); F(pkey_tbl_len); F(lid); F(sm_lid); F(lmc);
	F(max_vl_num); F(sm_sl); F(subnet_timeout); F(init_type_reply);
	F(active_width); F(active_speed); F(phys_state); F(link_layer);
	F(flags); F(port_cap_flags2);
#ifdef EMU_V65
	V65_BEGIN;
	S(); F(active_speed_ex);
	V65_END;
#endif
#undef T

	K(IBV_EVENT_CQ_ERR); K(IBV_EVENT_QP_FATAL); K(IBV_EVENT_QP_REQ_ERR);
	K(IBV_EVENT_QP_ACCESS_ERR); K(IBV_EVENT_COMM_EST);
	K(IBV_EVENT_SQ_DRAINED); K(IBV_EVENT_PATH_MIG);
	K(IBV_EVENT_PATH_MIG_ERR); K(IBV_EVENT_DEVICE_FATAL);
	K(IBV_EVENT_PORT_ACTIVE); K(IBV_EVENT_PORT_ERR);
	K(IBV_EVENT_LID_CHANGE); K(IBV_EVENT_PKEY_CHANGE);
	K(IBV_EVENT_SM_CHANGE); K(IBV_EVENT_SRQ_ERR);
	K(IBV_EVENT_SRQ_LIMIT_REACHED); K(IBV_EVENT_QP_LAST_WQE_REACHED);
	K(IBV_EVENT_CLIENT_REREGISTER); K(IBV_EVENT_GID_CHANGE);
	K(IBV_EVENT_WQ_FATAL);
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_EVENT_DEVICE_SPEED_CHANGE);
	V65_END;
#endif
	KE(enum ibv_event_type);
#define T struct ibv_async_event
	S(); F(element); F(element.cq); F(element.qp); F(element.srq);
	F(element.wq); F(element.port_num); F(event_type);
#undef T
}

static void dump_wc(void)
{
	K(IBV_WC_SUCCESS); K(IBV_WC_LOC_LEN_ERR); K(IBV_WC_LOC_QP_OP_ERR);
	K(IBV_WC_LOC_EEC_OP_ERR); K(IBV_WC_LOC_PROT_ERR);
	K(IBV_WC_WR_FLUSH_ERR); K(IBV_WC_MW_BIND_ERR);
	K(IBV_WC_BAD_RESP_ERR); K(IBV_WC_LOC_ACCESS_ERR);
	K(IBV_WC_REM_INV_REQ_ERR); K(IBV_WC_REM_ACCESS_ERR);
	K(IBV_WC_REM_OP_ERR); K(IBV_WC_RETRY_EXC_ERR);
	K(IBV_WC_RNR_RETRY_EXC_ERR); K(IBV_WC_LOC_RDD_VIOL_ERR);
	K(IBV_WC_REM_INV_RD_REQ_ERR); K(IBV_WC_REM_ABORT_ERR);
	K(IBV_WC_INV_EECN_ERR); K(IBV_WC_INV_EEC_STATE_ERR);
	K(IBV_WC_FATAL_ERR); K(IBV_WC_RESP_TIMEOUT_ERR);
	K(IBV_WC_GENERAL_ERR); K(IBV_WC_TM_ERR); K(IBV_WC_TM_RNDV_INCOMPLETE);
	KE(enum ibv_wc_status);
	K(IBV_WC_SEND); K(IBV_WC_RDMA_WRITE); K(IBV_WC_RDMA_READ);
	K(IBV_WC_COMP_SWAP); K(IBV_WC_FETCH_ADD); K(IBV_WC_BIND_MW);
	K(IBV_WC_LOCAL_INV); K(IBV_WC_TSO);
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_WC_FLUSH);
	V65_END;
#endif
	K(IBV_WC_ATOMIC_WRITE); K(IBV_WC_RECV);
	K(IBV_WC_RECV_RDMA_WITH_IMM); K(IBV_WC_TM_ADD); K(IBV_WC_TM_DEL);
	K(IBV_WC_TM_SYNC); K(IBV_WC_TM_RECV); K(IBV_WC_TM_NO_TAG);
	K(IBV_WC_DRIVER1); K(IBV_WC_DRIVER2); K(IBV_WC_DRIVER3);
	KE(enum ibv_wc_opcode);
	K(IBV_WC_IP_CSUM_OK_SHIFT);
	K(IBV_WC_EX_WITH_BYTE_LEN); K(IBV_WC_EX_WITH_IMM);
	K(IBV_WC_EX_WITH_QP_NUM); K(IBV_WC_EX_WITH_SRC_QP);
	K(IBV_WC_EX_WITH_SLID); K(IBV_WC_EX_WITH_SL);
	K(IBV_WC_EX_WITH_DLID_PATH_BITS);
	K(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP); K(IBV_WC_EX_WITH_CVLAN);
	K(IBV_WC_EX_WITH_FLOW_TAG); K(IBV_WC_EX_WITH_TM_INFO);
	K(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	KE(enum ibv_create_cq_wc_flags);
	K(IBV_WC_STANDARD_FLAGS); K(IBV_CREATE_CQ_SUP_WC_FLAGS);
	K(IBV_WC_GRH); K(IBV_WC_WITH_IMM); K(IBV_WC_IP_CSUM_OK);
	K(IBV_WC_WITH_INV); K(IBV_WC_TM_SYNC_REQ); K(IBV_WC_TM_MATCH);
	K(IBV_WC_TM_DATA_VALID); KE(enum ibv_wc_flags);
#define T struct ibv_wc
	S(); F(wr_id); F(status); F(opcode); F(vendor_err); F(byte_len);
	F(imm_data); F(invalidated_rkey); F(qp_num); F(src_qp); F(wc_flags);
	F(pkey_index); F(slid); F(sl); F(dlid_path_bits);
#undef T
}

static void dump_memory(void)
{
	K(IBV_ACCESS_LOCAL_WRITE); K(IBV_ACCESS_REMOTE_WRITE);
	K(IBV_ACCESS_REMOTE_READ); K(IBV_ACCESS_REMOTE_ATOMIC);
	K(IBV_ACCESS_MW_BIND); K(IBV_ACCESS_ZERO_BASED);
	K(IBV_ACCESS_ON_DEMAND); K(IBV_ACCESS_HUGETLB);
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_ACCESS_FLUSH_GLOBAL); K(IBV_ACCESS_FLUSH_PERSISTENT);
	V65_END;
#endif
	K(IBV_ACCESS_RELAXED_ORDERING); KE(enum ibv_access_flags);
	K(IBV_ACCESS_OPTIONAL_FIRST); K(IBV_ACCESS_OPTIONAL_RANGE);
#define T struct ibv_mw_bind_info
	S(); F(mr); F(addr); F(length); F(mw_access_flags);
#undef T
#define T struct ibv_pd
	S(); F(context); F(handle);
#undef T
#define T struct ibv_td_init_attr
	S(); F(comp_mask);
#undef T
#define T struct ibv_td
	S(); F(context);
#undef T
	K(IBV_XRCD_INIT_ATTR_FD); K(IBV_XRCD_INIT_ATTR_OFLAGS);
	K(IBV_XRCD_INIT_ATTR_RESERVED); KE(enum ibv_xrcd_init_attr_mask);
#define T struct ibv_xrcd_init_attr
	S(); F(comp_mask); F(fd); F(oflags);
#undef T
#define T struct ibv_xrcd
	S(); F(context);
#undef T
	K(IBV_REREG_MR_CHANGE_TRANSLATION); K(IBV_REREG_MR_CHANGE_PD);
	K(IBV_REREG_MR_CHANGE_ACCESS); K(IBV_REREG_MR_FLAGS_SUPPORTED);
	KE(enum ibv_rereg_mr_flags);
#define T struct ibv_mr
	S(); F(context); F(pd); F(addr); F(length); F(handle); F(lkey);
	F(rkey);
#undef T
#ifdef EMU_V65
	V65_BEGIN;
#define T struct ibv_dmah
	S(); F(context);
#undef T
	K(IBV_REG_MR_MASK_IOVA); K(IBV_REG_MR_MASK_ADDR);
	K(IBV_REG_MR_MASK_FD); K(IBV_REG_MR_MASK_FD_OFFSET);
	K(IBV_REG_MR_MASK_DMAH); K(IBV_REG_MR_MASK_BUF);
	KE(enum ibv_mr_init_attr_mask);
#define T struct ibv_mr_init_attr
	S(); F(length); F(access); F(comp_mask); F(iova); F(addr); F(fd);
	F(fd_offset); F(dmah); F(buf);
#undef T
	V65_END;
#endif
	K(IBV_MW_TYPE_1); K(IBV_MW_TYPE_2); KE(enum ibv_mw_type);
#define T struct ibv_mw
	S(); F(context); F(pd); F(rkey); F(handle); F(type);
#undef T
	K(IBV_REREG_MR_ERR_INPUT); K(IBV_REREG_MR_ERR_DONT_FORK_NEW);
	K(IBV_REREG_MR_ERR_DO_FORK_OLD); K(IBV_REREG_MR_ERR_CMD);
	K(IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW);
	KE(enum ibv_rereg_mr_err_code);
}

static void dump_address(void)
{
#define T struct ibv_global_route
	S(); F(dgid); F(flow_label); F(sgid_index); F(hop_limit);
	F(traffic_class);
#undef T
#define T struct ibv_grh
	S(); F(version_tclass_flow); F(paylen); F(next_hdr); F(hop_limit);
	F(sgid); F(dgid);
#undef T
	K(IBV_RATE_MAX); K(IBV_RATE_2_5_GBPS); K(IBV_RATE_5_GBPS);
	K(IBV_RATE_10_GBPS); K(IBV_RATE_20_GBPS); K(IBV_RATE_30_GBPS);
	K(IBV_RATE_40_GBPS); K(IBV_RATE_60_GBPS); K(IBV_RATE_80_GBPS);
	K(IBV_RATE_120_GBPS); K(IBV_RATE_14_GBPS); K(IBV_RATE_56_GBPS);
	K(IBV_RATE_112_GBPS); K(IBV_RATE_168_GBPS); K(IBV_RATE_25_GBPS);
	K(IBV_RATE_100_GBPS); K(IBV_RATE_200_GBPS); K(IBV_RATE_300_GBPS);
	K(IBV_RATE_28_GBPS); K(IBV_RATE_50_GBPS); K(IBV_RATE_400_GBPS);
	K(IBV_RATE_600_GBPS); K(IBV_RATE_800_GBPS); K(IBV_RATE_1200_GBPS);
	KE(enum ibv_rate);
#define T struct ibv_ah_attr
	S(); F(grh); F(dlid); F(sl); F(src_path_bits); F(static_rate);
	F(is_global); F(port_num);
#undef T
#define T struct ibv_ah
	S(); F(context); F(pd); F(handle);
#undef T
}

static void dump_srq_wq(void)
{
	K(IBV_SRQ_MAX_WR); K(IBV_SRQ_LIMIT); KE(enum ibv_srq_attr_mask);
#define T struct ibv_srq_attr
	S(); F(max_wr); F(max_sge); F(srq_limit);
#undef T
#define T struct ibv_srq_init_attr
	S(); F(srq_context); F(attr);
#undef T
	K(IBV_SRQT_BASIC); K(IBV_SRQT_XRC); K(IBV_SRQT_TM);
	KE(enum ibv_srq_type);
	K(IBV_SRQ_INIT_ATTR_TYPE); K(IBV_SRQ_INIT_ATTR_PD);
	K(IBV_SRQ_INIT_ATTR_XRCD); K(IBV_SRQ_INIT_ATTR_CQ);
	K(IBV_SRQ_INIT_ATTR_TM); K(IBV_SRQ_INIT_ATTR_RESERVED);
	KE(enum ibv_srq_init_attr_mask);
#define T struct ibv_tm_cap
	S(); F(max_num_tags); F(max_ops);
#undef T
#define T struct ibv_srq_init_attr_ex
	S(); F(srq_context); F(attr); F(comp_mask); F(srq_type); F(pd);
	F(xrcd); F(cq); F(tm_cap);
#undef T
	K(IBV_WQT_RQ); KE(enum ibv_wq_type);
	K(IBV_WQ_INIT_ATTR_FLAGS); K(IBV_WQ_INIT_ATTR_RESERVED);
	KE(enum ibv_wq_init_attr_mask);
	K(IBV_WQ_FLAGS_CVLAN_STRIPPING); K(IBV_WQ_FLAGS_SCATTER_FCS);
	K(IBV_WQ_FLAGS_DELAY_DROP); K(IBV_WQ_FLAGS_PCI_WRITE_END_PADDING);
	K(IBV_WQ_FLAGS_RESERVED); KE(enum ibv_wq_flags);
#define T struct ibv_wq_init_attr
	S(); F(wq_context); F(wq_type); F(max_wr); F(max_sge); F(pd); F(cq);
	F(comp_mask); F(create_flags);
#undef T
	K(IBV_WQS_RESET); K(IBV_WQS_RDY); K(IBV_WQS_ERR); K(IBV_WQS_UNKNOWN);
	KE(enum ibv_wq_state);
	K(IBV_WQ_ATTR_STATE); K(IBV_WQ_ATTR_CURR_STATE); K(IBV_WQ_ATTR_FLAGS);
	K(IBV_WQ_ATTR_RESERVED); KE(enum ibv_wq_attr_mask);
#define T struct ibv_wq_attr
	S(); F(attr_mask); F(wq_state); F(curr_wq_state); F(flags);
	F(flags_mask);
#undef T
#define T struct ibv_rwq_ind_table
	S(); F(context); F(ind_tbl_handle); F(ind_tbl_num); F(comp_mask);
#undef T
	K(IBV_CREATE_IND_TABLE_RESERVED); KE(enum ibv_ind_table_init_attr_mask);
#define T struct ibv_rwq_ind_table_init_attr
	S(); F(log_ind_tbl_size); F(ind_tbl); F(comp_mask);
#undef T
#define T struct ibv_srq
	S(); F(context); F(srq_context); F(pd); F(handle); F(mutex); F(cond);
	F(events_completed);
#undef T
#define T struct ibv_wq
	S(); F(context); F(wq_context); F(pd); F(cq); F(wq_num); F(handle);
	F(state); F(wq_type); F(mutex); F(cond); F(events_completed);
	F(comp_mask);
	FN(post_recv, int (*)(struct ibv_wq *, struct ibv_recv_wr *,
			      struct ibv_recv_wr **));
#undef T
}

static void dump_qp(void)
{
	K(IBV_QPT_RC); K(IBV_QPT_UC); K(IBV_QPT_UD); K(IBV_QPT_RAW_PACKET);
	K(IBV_QPT_XRC_SEND); K(IBV_QPT_XRC_RECV); K(IBV_QPT_DRIVER);
	KE(enum ibv_qp_type);
#define T struct ibv_qp_cap
	S(); F(max_send_wr); F(max_recv_wr); F(max_send_sge);
	F(max_recv_sge); F(max_inline_data);
#undef T
#define T struct ibv_qp_init_attr
	S(); F(qp_context); F(send_cq); F(recv_cq); F(srq); F(cap);
	F(qp_type); F(sq_sig_all);
#undef T
	K(IBV_QP_INIT_ATTR_PD); K(IBV_QP_INIT_ATTR_XRCD);
	K(IBV_QP_INIT_ATTR_CREATE_FLAGS); K(IBV_QP_INIT_ATTR_MAX_TSO_HEADER);
	K(IBV_QP_INIT_ATTR_IND_TABLE); K(IBV_QP_INIT_ATTR_RX_HASH);
	K(IBV_QP_INIT_ATTR_SEND_OPS_FLAGS); KE(enum ibv_qp_init_attr_mask);
	K(IBV_QP_CREATE_BLOCK_SELF_MCAST_LB); K(IBV_QP_CREATE_SCATTER_FCS);
	K(IBV_QP_CREATE_CVLAN_STRIPPING); K(IBV_QP_CREATE_SOURCE_QPN);
	K(IBV_QP_CREATE_PCI_WRITE_END_PADDING);
	KE(enum ibv_qp_create_flags);
	K(IBV_QP_EX_WITH_RDMA_WRITE); K(IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM);
	K(IBV_QP_EX_WITH_SEND); K(IBV_QP_EX_WITH_SEND_WITH_IMM);
	K(IBV_QP_EX_WITH_RDMA_READ); K(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP);
	K(IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD); K(IBV_QP_EX_WITH_LOCAL_INV);
	K(IBV_QP_EX_WITH_BIND_MW); K(IBV_QP_EX_WITH_SEND_WITH_INV);
	K(IBV_QP_EX_WITH_TSO);
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_QP_EX_WITH_FLUSH);
	V65_END;
#endif
	K(IBV_QP_EX_WITH_ATOMIC_WRITE); KE(enum ibv_qp_create_send_ops_flags);
#define T struct ibv_rx_hash_conf
	S(); F(rx_hash_function); F(rx_hash_key_len); F(rx_hash_key);
	F(rx_hash_fields_mask);
#undef T
#define T struct ibv_qp_init_attr_ex
	S(); F(qp_context); F(send_cq); F(recv_cq); F(srq); F(cap);
	F(qp_type); F(sq_sig_all); F(comp_mask); F(pd); F(xrcd);
	F(create_flags); F(max_tso_header); F(rwq_ind_tbl); F(rx_hash_conf);
	F(source_qpn); F(send_ops_flags);
#undef T
	K(IBV_QP_OPEN_ATTR_NUM); K(IBV_QP_OPEN_ATTR_XRCD);
	K(IBV_QP_OPEN_ATTR_CONTEXT); K(IBV_QP_OPEN_ATTR_TYPE);
	K(IBV_QP_OPEN_ATTR_RESERVED); KE(enum ibv_qp_open_attr_mask);
#define T struct ibv_qp_open_attr
	S(); F(comp_mask); F(qp_num); F(xrcd); F(qp_context); F(qp_type);
#undef T
	K(IBV_QP_STATE); K(IBV_QP_CUR_STATE); K(IBV_QP_EN_SQD_ASYNC_NOTIFY);
	K(IBV_QP_ACCESS_FLAGS); K(IBV_QP_PKEY_INDEX); K(IBV_QP_PORT);
	K(IBV_QP_QKEY); K(IBV_QP_AV); K(IBV_QP_PATH_MTU); K(IBV_QP_TIMEOUT);
	K(IBV_QP_RETRY_CNT); K(IBV_QP_RNR_RETRY); K(IBV_QP_RQ_PSN);
	K(IBV_QP_MAX_QP_RD_ATOMIC); K(IBV_QP_ALT_PATH);
	K(IBV_QP_MIN_RNR_TIMER); K(IBV_QP_SQ_PSN);
	K(IBV_QP_MAX_DEST_RD_ATOMIC); K(IBV_QP_PATH_MIG_STATE);
	K(IBV_QP_CAP); K(IBV_QP_DEST_QPN); K(IBV_QP_RATE_LIMIT);
	KE(enum ibv_qp_attr_mask);
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);
	K(IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY);
	KE(enum ibv_query_qp_data_in_order_flags);
	K(IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG);
	K(IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES);
	KE(enum ibv_query_qp_data_in_order_caps);
	V65_END;
#endif
	K(IBV_QPS_RESET); K(IBV_QPS_INIT); K(IBV_QPS_RTR); K(IBV_QPS_RTS);
	K(IBV_QPS_SQD); K(IBV_QPS_SQE); K(IBV_QPS_ERR); K(IBV_QPS_UNKNOWN);
	KE(enum ibv_qp_state);
	K(IBV_MIG_MIGRATED); K(IBV_MIG_REARM); K(IBV_MIG_ARMED);
	KE(enum ibv_mig_state);
#define T struct ibv_qp_attr
	S(); F(qp_state); F(cur_qp_state); F(path_mtu); F(path_mig_state);
	F(qkey); F(rq_psn); F(sq_psn); F(dest_qp_num); F(qp_access_flags);
	F(cap); F(ah_attr); F(alt_ah_attr); F(pkey_index); F(alt_pkey_index);
	F(en_sqd_async_notify); F(sq_draining); F(max_rd_atomic);
	F(max_dest_rd_atomic); F(min_rnr_timer); F(port_num); F(timeout);
	F(retry_cnt); F(rnr_retry); F(alt_port_num); F(alt_timeout);
	F(rate_limit);
#undef T
#define T struct ibv_qp_rate_limit_attr
	S(); F(rate_limit); F(max_burst_sz); F(typical_pkt_sz); F(comp_mask);
#undef T
#define T struct ibv_qp
	S(); F(context); F(qp_context); F(pd); F(send_cq); F(recv_cq);
	F(srq); F(handle); F(qp_num); F(state); F(qp_type); F(mutex);
	F(cond); F(events_completed);
#undef T
#define T struct ibv_ece
	S(); F(vendor_id); F(options); F(comp_mask);
#undef T
}

static void dump_qp_ex(void)
{
#define T struct ibv_qp_ex
	F(qp_base); F(comp_mask); F(wr_id); F(wr_flags);
	FN(wr_atomic_cmp_swp, void (*)(struct ibv_qp_ex *, uint32_t,
				       uint64_t, uint64_t, uint64_t));
	FN(wr_atomic_fetch_add, void (*)(struct ibv_qp_ex *, uint32_t,
					 uint64_t, uint64_t));
	FN(wr_bind_mw, void (*)(struct ibv_qp_ex *, struct ibv_mw *, uint32_t,
				const struct ibv_mw_bind_info *));
	FN(wr_local_inv, void (*)(struct ibv_qp_ex *, uint32_t));
	FN(wr_rdma_read, void (*)(struct ibv_qp_ex *, uint32_t, uint64_t));
	FN(wr_rdma_write, void (*)(struct ibv_qp_ex *, uint32_t, uint64_t));
	FN(wr_rdma_write_imm, void (*)(struct ibv_qp_ex *, uint32_t, uint64_t,
				       __be32));
	FN(wr_send, void (*)(struct ibv_qp_ex *));
	FN(wr_send_imm, void (*)(struct ibv_qp_ex *, __be32));
	FN(wr_send_inv, void (*)(struct ibv_qp_ex *, uint32_t));
	FN(wr_send_tso, void (*)(struct ibv_qp_ex *, void *, uint16_t,
				 uint16_t));
	FN(wr_set_ud_addr, void (*)(struct ibv_qp_ex *, struct ibv_ah *,
				    uint32_t, uint32_t));
	FN(wr_set_xrc_srqn, void (*)(struct ibv_qp_ex *, uint32_t));
	FN(wr_set_inline_data, void (*)(struct ibv_qp_ex *, void *, size_t));
	FN(wr_set_inline_data_list, void (*)(struct ibv_qp_ex *, size_t,
					     const struct ibv_data_buf *));
	FN(wr_set_sge, void (*)(struct ibv_qp_ex *, uint32_t, uint64_t,
				uint32_t));
	FN(wr_set_sge_list, void (*)(struct ibv_qp_ex *, size_t,
				     const struct ibv_sge *));
	FN(wr_start, void (*)(struct ibv_qp_ex *));
	FN(wr_complete, int (*)(struct ibv_qp_ex *));
	FN(wr_abort, void (*)(struct ibv_qp_ex *));
	FN(wr_atomic_write, void (*)(struct ibv_qp_ex *, uint32_t, uint64_t,
				     const void *));
#ifdef EMU_V65
	V65_BEGIN;
	S();
	FN(wr_flush, void (*)(struct ibv_qp_ex *, uint32_t, uint64_t, size_t,
			      uint8_t, uint8_t));
	V65_END;
#endif
#undef T
}

static void dump_wr(void)
{
	K(IBV_WR_RDMA_WRITE); K(IBV_WR_RDMA_WRITE_WITH_IMM); K(IBV_WR_SEND);
	K(IBV_WR_SEND_WITH_IMM); K(IBV_WR_RDMA_READ);
	K(IBV_WR_ATOMIC_CMP_AND_SWP); K(IBV_WR_ATOMIC_FETCH_AND_ADD);
	K(IBV_WR_LOCAL_INV); K(IBV_WR_BIND_MW); K(IBV_WR_SEND_WITH_INV);
	K(IBV_WR_TSO); K(IBV_WR_DRIVER1);
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_WR_FLUSH);
	V65_END;
#endif
	K(IBV_WR_ATOMIC_WRITE); KE(enum ibv_wr_opcode);
	K(IBV_SEND_FENCE); K(IBV_SEND_SIGNALED); K(IBV_SEND_SOLICITED);
	K(IBV_SEND_INLINE); K(IBV_SEND_IP_CSUM); KE(enum ibv_send_flags);
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_FLUSH_GLOBAL); K(IBV_FLUSH_PERSISTENT);
	KE(enum ibv_placement_type);
	K(IBV_FLUSH_RANGE); K(IBV_FLUSH_MR); KE(enum ibv_selectivity_level);
#define T struct ibv_fd_arr
	S(); F(arr); F(count);
#undef T
	V65_END;
#endif
#define T struct ibv_data_buf
	S(); F(addr); F(length);
#undef T
#define T struct ibv_sge
	S(); F(addr); F(length); F(lkey);
#undef T
#define T struct ibv_send_wr
	S(); F(wr_id); F(next); F(sg_list); F(num_sge); F(opcode);
	F(send_flags); F(imm_data); F(invalidate_rkey); F(wr);
	F(wr.rdma); F(wr.rdma.remote_addr); F(wr.rdma.rkey);
	F(wr.atomic); F(wr.atomic.remote_addr); F(wr.atomic.compare_add);
	F(wr.atomic.swap); F(wr.atomic.rkey);
	F(wr.ud); F(wr.ud.ah); F(wr.ud.remote_qpn); F(wr.ud.remote_qkey);
	F(qp_type); F(qp_type.xrc); F(qp_type.xrc.remote_srqn);
	F(bind_mw); F(bind_mw.mw); F(bind_mw.rkey); F(bind_mw.bind_info);
	F(tso); F(tso.hdr); F(tso.hdr_sz); F(tso.mss);
#undef T
#define T struct ibv_recv_wr
	S(); F(wr_id); F(next); F(sg_list); F(num_sge);
#undef T
	K(IBV_WR_TAG_ADD); K(IBV_WR_TAG_DEL); K(IBV_WR_TAG_SYNC);
	KE(enum ibv_ops_wr_opcode);
	K(IBV_OPS_SIGNALED); K(IBV_OPS_TM_SYNC); KE(enum ibv_ops_flags);
#define T struct ibv_ops_wr
	S(); F(wr_id); F(next); F(opcode); F(flags); F(tm);
	F(tm.unexpected_cnt); F(tm.handle); F(tm.add); F(tm.add.recv_wr_id);
	F(tm.add.sg_list); F(tm.add.num_sge); F(tm.add.tag); F(tm.add.mask);
#undef T
#define T struct ibv_mw_bind
	S(); F(wr_id); F(send_flags); F(bind_info);
#undef T
}

static void dump_cq(void)
{
#define T struct ibv_comp_channel
	S(); F(context); F(fd); F(refcnt);
#undef T
#define T struct ibv_cq
	S(); F(context); F(channel); F(cq_context); F(handle); F(cqe);
	F(mutex); F(cond); F(comp_events_completed);
	F(async_events_completed);
#undef T
#define T struct ibv_poll_cq_attr
	S(); F(comp_mask);
#undef T
#define T struct ibv_wc_tm_info
	S(); F(tag); F(priv);
#undef T
#define T struct ibv_cq_ex
	S(); F(context); F(channel); F(cq_context); F(handle); F(cqe);
	F(mutex); F(cond); F(comp_events_completed);
	F(async_events_completed); F(comp_mask); F(status); F(wr_id);
	FN(start_poll, int (*)(struct ibv_cq_ex *, struct ibv_poll_cq_attr *));
	FN(next_poll, int (*)(struct ibv_cq_ex *));
	FN(end_poll, void (*)(struct ibv_cq_ex *));
	FN(read_opcode, enum ibv_wc_opcode (*)(struct ibv_cq_ex *));
	FN(read_vendor_err, uint32_t (*)(struct ibv_cq_ex *));
	FN(read_byte_len, uint32_t (*)(struct ibv_cq_ex *));
	FN(read_imm_data, __be32 (*)(struct ibv_cq_ex *));
	FN(read_qp_num, uint32_t (*)(struct ibv_cq_ex *));
	FN(read_src_qp, uint32_t (*)(struct ibv_cq_ex *));
	FN(read_wc_flags, unsigned int (*)(struct ibv_cq_ex *));
	FN(read_slid, uint32_t (*)(struct ibv_cq_ex *));
	FN(read_sl, uint8_t (*)(struct ibv_cq_ex *));
	FN(read_dlid_path_bits, uint8_t (*)(struct ibv_cq_ex *));
	FN(read_completion_ts, uint64_t (*)(struct ibv_cq_ex *));
	FN(read_cvlan, uint16_t (*)(struct ibv_cq_ex *));
	FN(read_flow_tag, uint32_t (*)(struct ibv_cq_ex *));
	FN(read_tm_info, void (*)(struct ibv_cq_ex *,
				  struct ibv_wc_tm_info *));
	FN(read_completion_wallclock_ns, uint64_t (*)(struct ibv_cq_ex *));
#undef T
	K(IBV_CQ_ATTR_MODERATE); K(IBV_CQ_ATTR_RESERVED);
	KE(enum ibv_cq_attr_mask);
#define T struct ibv_moderate_cq
	S(); F(cq_count); F(cq_period);
#undef T
#define T struct ibv_modify_cq_attr
	S(); F(attr_mask); F(moderate);
#undef T
	K(IBV_CQ_INIT_ATTR_MASK_FLAGS); K(IBV_CQ_INIT_ATTR_MASK_PD);
	KE(enum ibv_cq_init_attr_mask);
	K(IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
	K(IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN);
	KE(enum ibv_create_cq_attr_flags);
#define T struct ibv_cq_init_attr_ex
	S(); F(cqe); F(cq_context); F(channel); F(comp_vector); F(wc_flags);
	F(comp_mask); F(flags); F(parent_domain);
#undef T
}

static void dump_flow(void)
{
	K(IBV_FLOW_ATTR_FLAGS_DONT_TRAP); K(IBV_FLOW_ATTR_FLAGS_EGRESS);
	KE(enum ibv_flow_flags);
	K(IBV_FLOW_ATTR_NORMAL); K(IBV_FLOW_ATTR_ALL_DEFAULT);
	K(IBV_FLOW_ATTR_MC_DEFAULT); K(IBV_FLOW_ATTR_SNIFFER);
	KE(enum ibv_flow_attr_type);
	K(IBV_FLOW_SPEC_ETH); K(IBV_FLOW_SPEC_IPV4); K(IBV_FLOW_SPEC_IPV6);
	K(IBV_FLOW_SPEC_IPV4_EXT); K(IBV_FLOW_SPEC_ESP); K(IBV_FLOW_SPEC_TCP);
	K(IBV_FLOW_SPEC_UDP); K(IBV_FLOW_SPEC_VXLAN_TUNNEL);
	K(IBV_FLOW_SPEC_GRE); K(IBV_FLOW_SPEC_MPLS); K(IBV_FLOW_SPEC_INNER);
	K(IBV_FLOW_SPEC_ACTION_TAG); K(IBV_FLOW_SPEC_ACTION_DROP);
	K(IBV_FLOW_SPEC_ACTION_HANDLE); K(IBV_FLOW_SPEC_ACTION_COUNT);
	KE(enum ibv_flow_spec_type);
	K(ETHERNET_LL_SIZE);
#define T struct ibv_flow_eth_filter
	S(); F(dst_mac); F(src_mac); F(ether_type); F(vlan_tag);
#undef T
#define T struct ibv_flow_spec_eth
	S(); F(type); F(size); F(val); F(mask);
#undef T
#define T struct ibv_flow_ipv4_filter
	S(); F(src_ip); F(dst_ip);
#undef T
#define T struct ibv_flow_spec_ipv4
	S(); F(type); F(size); F(val); F(mask);
#undef T
#define T struct ibv_flow_ipv4_ext_filter
	S(); F(src_ip); F(dst_ip); F(proto); F(tos); F(ttl); F(flags);
#undef T
#define T struct ibv_flow_spec_ipv4_ext
	S(); F(type); F(size); F(val); F(mask);
#undef T
#define T struct ibv_flow_ipv6_filter
	S(); F(src_ip); F(dst_ip); F(flow_label); F(next_hdr);
	F(traffic_class); F(hop_limit);
#undef T
#define T struct ibv_flow_spec_ipv6
	S(); F(type); F(size); F(val); F(mask);
#undef T
#define T struct ibv_flow_esp_filter
	S(); F(spi); F(seq);
#undef T
#define T struct ibv_flow_spec_esp
	S(); F(type); F(size); F(val); F(mask);
#undef T
#define T struct ibv_flow_tcp_udp_filter
	S(); F(dst_port); F(src_port);
#undef T
#define T struct ibv_flow_spec_tcp_udp
	S(); F(type); F(size); F(val); F(mask);
#undef T
#define T struct ibv_flow_gre_filter
	S(); F(c_ks_res0_ver); F(protocol); F(key);
#undef T
#define T struct ibv_flow_spec_gre
	S(); F(type); F(size); F(val); F(mask);
#undef T
#define T struct ibv_flow_mpls_filter
	S(); F(label);
#undef T
#define T struct ibv_flow_spec_mpls
	S(); F(type); F(size); F(val); F(mask);
#undef T
#define T struct ibv_flow_tunnel_filter
	S(); F(tunnel_id);
#undef T
#define T struct ibv_flow_spec_tunnel
	S(); F(type); F(size); F(val); F(mask);
#undef T
#define T struct ibv_flow_spec_action_tag
	S(); F(type); F(size); F(tag_id);
#undef T
#define T struct ibv_flow_spec_action_drop
	S(); F(type); F(size);
#undef T
#define T struct ibv_flow_spec_action_handle
	S(); F(type); F(size); F(action);
#undef T
#define T struct ibv_flow_spec_counter_action
	S(); F(type); F(size); F(counters);
#undef T
#define T struct ibv_flow_spec
	S(); F(hdr); F(hdr.type); F(hdr.size); F(eth); F(ipv4); F(tcp_udp);
	F(ipv4_ext); F(ipv6); F(esp); F(tunnel); F(gre); F(mpls);
	F(flow_tag); F(drop); F(handle); F(flow_count);
#undef T
#define T struct ibv_flow_attr
	S(); F(comp_mask); F(type); F(size); F(priority); F(num_of_specs);
	F(port); F(flags);
#undef T
#define T struct ibv_flow
	S(); F(comp_mask); F(context); F(handle);
#undef T
#define T struct ibv_flow_action
	S(); F(context);
#undef T
	K(IBV_FLOW_ACTION_ESP_MASK_ESN); KE(enum ibv_flow_action_esp_mask);
#define T struct ibv_flow_action_esp_attr
	S(); F(esp_attr); F(keymat_proto); F(keymat_len); F(keymat_ptr);
	F(replay_proto); F(replay_len); F(replay_ptr); F(esp_encap);
	F(comp_mask); F(esn);
#undef T
}

static void dump_device_context(void)
{
	K(IBV_SYSFS_NAME_MAX); K(IBV_SYSFS_PATH_MAX);
#define T struct _ibv_device_ops
	S();
	FN(_dummy1, struct ibv_context *(*)(struct ibv_device *, int));
	FN(_dummy2, void (*)(struct ibv_context *));
#undef T
#define T struct ibv_device
	S(); F(_ops); F(node_type); F(transport_type); F(name); F(dev_name);
	F(dev_path); F(ibdev_path);
#undef T
#define T struct ibv_context_ops
	S();
	FN(_compat_query_device, int (*)(struct ibv_context *,
					 struct ibv_device_attr *));
	FN(_compat_query_port, int (*)(struct ibv_context *, uint8_t,
				       struct _compat_ibv_port_attr *));
	FN(_compat_alloc_pd, void *(*)(void));
	FN(_compat_dealloc_pd, void *(*)(void));
	FN(_compat_reg_mr, void *(*)(void));
	FN(_compat_rereg_mr, void *(*)(void));
	FN(_compat_dereg_mr, void *(*)(void));
	FN(alloc_mw, struct ibv_mw *(*)(struct ibv_pd *, enum ibv_mw_type));
	FN(bind_mw, int (*)(struct ibv_qp *, struct ibv_mw *,
			    struct ibv_mw_bind *));
	FN(dealloc_mw, int (*)(struct ibv_mw *));
	FN(_compat_create_cq, void *(*)(void));
	FN(poll_cq, int (*)(struct ibv_cq *, int, struct ibv_wc *));
	FN(req_notify_cq, int (*)(struct ibv_cq *, int));
	FN(_compat_cq_event, void *(*)(void));
	FN(_compat_resize_cq, void *(*)(void));
	FN(_compat_destroy_cq, void *(*)(void));
	FN(_compat_create_srq, void *(*)(void));
	FN(_compat_modify_srq, void *(*)(void));
	FN(_compat_query_srq, void *(*)(void));
	FN(_compat_destroy_srq, void *(*)(void));
	FN(post_srq_recv, int (*)(struct ibv_srq *, struct ibv_recv_wr *,
				  struct ibv_recv_wr **));
	FN(_compat_create_qp, void *(*)(void));
	FN(_compat_query_qp, void *(*)(void));
	FN(_compat_modify_qp, void *(*)(void));
	FN(_compat_destroy_qp, void *(*)(void));
	FN(post_send, int (*)(struct ibv_qp *, struct ibv_send_wr *,
			      struct ibv_send_wr **));
	FN(post_recv, int (*)(struct ibv_qp *, struct ibv_recv_wr *,
			      struct ibv_recv_wr **));
	FN(_compat_create_ah, void *(*)(void));
	FN(_compat_destroy_ah, void *(*)(void));
	FN(_compat_attach_mcast, void *(*)(void));
	FN(_compat_detach_mcast, void *(*)(void));
	FN(_compat_async_event, void *(*)(void));
#undef T
#define T struct ibv_context
	S(); F(device); F(ops); F(cmd_fd); F(async_fd); F(num_comp_vectors);
	F(mutex); F(abi_compat);
#undef T
}

static void dump_misc(void)
{
#ifdef EMU_V65
	V65_BEGIN;
	K(IBV_QP_ATTACH_COMP_CNTR_OP_SEND); K(IBV_QP_ATTACH_COMP_CNTR_OP_RECV);
	K(IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ);
	K(IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ);
	K(IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE);
	K(IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE);
	KE(enum ibv_qp_attach_comp_cntr_op);
#define T struct ibv_comp_cntr_caps
	S(); F(max_value); F(max_counters); F(supported_qp_attach_ops);
#undef T
#define T struct ibv_comp_cntr
	S(); F(context); F(handle);
#undef T
	K(IBV_COMP_CNTR_TYPE_WRS); K(IBV_COMP_CNTR_TYPE_BYTES);
	KE(enum ibv_comp_cntr_type);
#define T struct ibv_comp_cntr_init_attr
	S(); F(comp_mask); F(type); F(flags);
#undef T
#define T struct ibv_qp_attach_comp_cntr_attr
	S(); F(comp_mask); F(op_mask);
#undef T
	K(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC);
	K(IBV_TPH_MEM_TYPE_VM); K(IBV_TPH_MEM_TYPE_PM);
	KE(enum ibv_tph_mem_type);
	K(IBV_DMAH_INIT_ATTR_MASK_CPU_ID); K(IBV_DMAH_INIT_ATTR_MASK_PH);
	K(IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE);
	KE(enum ibv_dmah_init_attr_mask);
#define T struct ibv_dmah_init_attr
	S(); F(comp_mask); F(cpu_id); F(ph); F(tph_mem_type);
#undef T
	V65_END;
#endif
	K(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS);
	K(IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT);
	KE(enum ibv_parent_domain_init_attr_mask);
	K((intptr_t)IBV_ALLOCATOR_USE_DEFAULT);
#define T struct ibv_parent_domain_init_attr
	S(); F(pd); F(td); F(comp_mask); F(pd_context);
	FN(alloc, void *(*)(struct ibv_pd *, void *, size_t, size_t,
			    uint64_t));
	FN(free, void (*)(struct ibv_pd *, void *, void *, uint64_t));
#undef T
#define T struct ibv_counters_init_attr
	S(); F(comp_mask);
#undef T
#define T struct ibv_counters
	S(); F(context);
#undef T
	K(IBV_COUNTER_PACKETS); K(IBV_COUNTER_BYTES);
	KE(enum ibv_counter_description);
#define T struct ibv_counter_attach_attr
	S(); F(counter_desc); F(index); F(comp_mask);
#undef T
	K(IBV_READ_COUNTERS_ATTR_PREFER_CACHED);
	KE(enum ibv_read_counters_flags);
	K(IBV_VALUES_MASK_RAW_CLOCK); K(IBV_VALUES_MASK_RESERVED);
	KE(enum ibv_values_mask);
#define T struct ibv_values_ex
	S(); F(comp_mask); F(raw_clock);
#undef T
	K(IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
	K(IB_ROCE_UDP_ENCAP_VALID_PORT_MAX); K(IB_GRH_FLOWLABEL_MASK);

	/* tm_types.h */
	K(IBV_TMH_NO_TAG); K(IBV_TMH_RNDV); K(IBV_TMH_FIN); K(IBV_TMH_EAGER);
	KE(enum ibv_tmh_op);
#define T struct ibv_tmh
	S(); F(opcode); F(reserved); F(app_ctx); F(tag);
#undef T
#define T struct ibv_rvh
	S(); F(va); F(rkey); F(len);
#undef T
}

/* Every op of struct verbs_context, relative to its context member. */
static void dump_verbs_context(void)
{
#ifdef EMU_V65
	V65_BEGIN;
	printf("%ssize struct verbs_context %zu\n", pfx,
	       sizeof(struct verbs_context));
	VFN(free_buf, void (*)(struct ibv_buf *));
	VFN(alloc_buf, void *(*)(struct ibv_pd *, size_t, struct ibv_buf **));
	VFN(dm_export_dmabuf_fd, int (*)(struct ibv_dm *));
	VFN(reg_mr_ex, struct ibv_mr *(*)(struct ibv_pd *,
					  struct ibv_mr_init_attr *));
	VFN(dealloc_dmah, int (*)(struct ibv_dmah *));
	VFN(alloc_dmah, struct ibv_dmah *(*)(struct ibv_context *,
					     struct ibv_dmah_init_attr *));
	V65_END;
#endif
	VFN(query_port, int (*)(struct ibv_context *, uint8_t,
				struct ibv_port_attr *, size_t));
	VFN(advise_mr, int (*)(struct ibv_pd *, enum ibv_advise_mr_advice,
			       uint32_t, struct ibv_sge *, uint32_t));
	VFN(alloc_null_mr, struct ibv_mr *(*)(struct ibv_pd *));
	VFN(read_counters, int (*)(struct ibv_counters *, uint64_t *,
				   uint32_t, uint32_t));
	VFN(attach_counters_point_flow,
	    int (*)(struct ibv_counters *, struct ibv_counter_attach_attr *,
		    struct ibv_flow *));
	VFN(create_counters,
	    struct ibv_counters *(*)(struct ibv_context *,
				     struct ibv_counters_init_attr *));
	VFN(destroy_counters, int (*)(struct ibv_counters *));
	VFN(reg_dm_mr, struct ibv_mr *(*)(struct ibv_pd *, struct ibv_dm *,
					  uint64_t, size_t, unsigned int));
	VFN(alloc_dm, struct ibv_dm *(*)(struct ibv_context *,
					 struct ibv_alloc_dm_attr *));
	VFN(free_dm, int (*)(struct ibv_dm *));
	VFN(modify_flow_action_esp,
	    int (*)(struct ibv_flow_action *,
		    struct ibv_flow_action_esp_attr *));
	VFN(destroy_flow_action, int (*)(struct ibv_flow_action *));
	VFN(create_flow_action_esp,
	    struct ibv_flow_action *(*)(struct ibv_context *,
					struct ibv_flow_action_esp_attr *));
	VFN(modify_qp_rate_limit, int (*)(struct ibv_qp *,
					  struct ibv_qp_rate_limit_attr *));
	VFN(alloc_parent_domain,
	    struct ibv_pd *(*)(struct ibv_context *,
			       struct ibv_parent_domain_init_attr *));
	VFN(dealloc_td, int (*)(struct ibv_td *));
	VFN(alloc_td, struct ibv_td *(*)(struct ibv_context *,
					 struct ibv_td_init_attr *));
	VFN(modify_cq, int (*)(struct ibv_cq *, struct ibv_modify_cq_attr *));
	VFN(post_srq_ops, int (*)(struct ibv_srq *, struct ibv_ops_wr *,
				  struct ibv_ops_wr **));
	VFN(destroy_rwq_ind_table, int (*)(struct ibv_rwq_ind_table *));
	VFN(create_rwq_ind_table,
	    struct ibv_rwq_ind_table *(*)(struct ibv_context *,
					  struct ibv_rwq_ind_table_init_attr *));
	VFN(destroy_wq, int (*)(struct ibv_wq *));
	VFN(modify_wq, int (*)(struct ibv_wq *, struct ibv_wq_attr *));
	VFN(create_wq, struct ibv_wq *(*)(struct ibv_context *,
					  struct ibv_wq_init_attr *));
	VFN(query_rt_values, int (*)(struct ibv_context *,
				     struct ibv_values_ex *));
	VFN(create_cq_ex, struct ibv_cq_ex *(*)(struct ibv_context *,
						struct ibv_cq_init_attr_ex *));
	VFN(priv, struct verbs_ex_private *);
	VFN(query_device_ex,
	    int (*)(struct ibv_context *,
		    const struct ibv_query_device_ex_input *,
		    struct ibv_device_attr_ex *, size_t));
	VFN(ibv_destroy_flow, int (*)(struct ibv_flow *));
	VFN(ABI_placeholder2, void (*)(void));
	VFN(ibv_create_flow, struct ibv_flow *(*)(struct ibv_qp *,
						  struct ibv_flow_attr *));
	VFN(ABI_placeholder1, void (*)(void));
	VFN(open_qp, struct ibv_qp *(*)(struct ibv_context *,
					struct ibv_qp_open_attr *));
	VFN(create_qp_ex, struct ibv_qp *(*)(struct ibv_context *,
					     struct ibv_qp_init_attr_ex *));
	VFN(get_srq_num, int (*)(struct ibv_srq *, uint32_t *));
	VFN(create_srq_ex, struct ibv_srq *(*)(struct ibv_context *,
					       struct ibv_srq_init_attr_ex *));
	VFN(open_xrcd, struct ibv_xrcd *(*)(struct ibv_context *,
					    struct ibv_xrcd_init_attr *));
	VFN(close_xrcd, int (*)(struct ibv_xrcd *));
	VFN(_ABI_placeholder3, uint64_t);
	VFN(sz, size_t);
	VFN(context, struct ibv_context);
	/* bytes from each op to the end: what verbs_get_ctx_op() checks */
	printf("%svctx tail %zu\n", pfx, sizeof(struct verbs_context) -
	       offsetof(struct verbs_context, query_port));
}

/* The uverbs types verbs_api.h brings in, under both spellings. */
static void dump_uverbs(void)
{
	K(IB_UVERBS_ACCESS_OPTIONAL_FIRST); K(IB_UVERBS_ACCESS_OPTIONAL_LAST);
	K(IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS);
	K(IB_UVERBS_ACCESS_LOCAL_WRITE); K(IB_UVERBS_ACCESS_REMOTE_WRITE);
	K(IB_UVERBS_ACCESS_REMOTE_READ); K(IB_UVERBS_ACCESS_REMOTE_ATOMIC);
	K(IB_UVERBS_ACCESS_MW_BIND); K(IB_UVERBS_ACCESS_ZERO_BASED);
	K(IB_UVERBS_ACCESS_ON_DEMAND); K(IB_UVERBS_ACCESS_HUGETLB);
	K(IB_UVERBS_ACCESS_RELAXED_ORDERING);
	K(IB_UVERBS_ACCESS_OPTIONAL_RANGE);
	KE(enum ib_uverbs_access_flags);
	K(IB_UVERBS_SRQT_BASIC); K(IB_UVERBS_SRQT_XRC); K(IB_UVERBS_SRQT_TM);
	K(IB_UVERBS_WQT_RQ);
	K(IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING);
	K(IB_UVERBS_WQ_FLAGS_SCATTER_FCS); K(IB_UVERBS_WQ_FLAGS_DELAY_DROP);
	K(IB_UVERBS_WQ_FLAGS_PCI_WRITE_END_PADDING);
	K(IB_UVERBS_QPT_RC); K(IB_UVERBS_QPT_UC); K(IB_UVERBS_QPT_UD);
	K(IB_UVERBS_QPT_RAW_PACKET); K(IB_UVERBS_QPT_XRC_INI);
	K(IB_UVERBS_QPT_XRC_TGT); K(IB_UVERBS_QPT_DRIVER);
	K(IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK);
	K(IB_UVERBS_QP_CREATE_SCATTER_FCS);
	K(IB_UVERBS_QP_CREATE_CVLAN_STRIPPING);
	K(IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING);
	K(IB_UVERBS_QP_CREATE_SQ_SIG_ALL);
	K(IB_UVERBS_PCF_SM); K(IB_UVERBS_PCF_NOTICE_SUP);
	K(IB_UVERBS_PCF_TRAP_SUP); K(IB_UVERBS_PCF_OPT_IPD_SUP);
	K(IB_UVERBS_PCF_AUTO_MIGR_SUP); K(IB_UVERBS_PCF_SL_MAP_SUP);
	K(IB_UVERBS_PCF_MKEY_NVRAM); K(IB_UVERBS_PCF_PKEY_NVRAM);
	K(IB_UVERBS_PCF_LED_INFO_SUP); K(IB_UVERBS_PCF_SM_DISABLED);
	K(IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP);
	K(IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP);
	K(IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP); K(IB_UVERBS_PCF_CM_SUP);
	K(IB_UVERBS_PCF_SNMP_TUNNEL_SUP); K(IB_UVERBS_PCF_REINIT_SUP);
	K(IB_UVERBS_PCF_DEVICE_MGMT_SUP); K(IB_UVERBS_PCF_VENDOR_CLASS_SUP);
	K(IB_UVERBS_PCF_DR_NOTICE_SUP); K(IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP);
	K(IB_UVERBS_PCF_BOOT_MGMT_SUP); K(IB_UVERBS_PCF_LINK_LATENCY_SUP);
	K(IB_UVERBS_PCF_CLIENT_REG_SUP);
	K(IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP);
	K(IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP);
	K(IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP);
	K(IB_UVERBS_PCF_MCAST_FDB_TOP_SUP); K(IB_UVERBS_PCF_HIERARCHY_INFO_SUP);
	K(IB_UVERBS_PCF_IP_BASED_GIDS);
	KE(enum ib_uverbs_query_port_cap_flags);
	K(IB_UVERBS_QPF_GRH_REQUIRED); K(IBV_QPF_GRH_REQUIRED);
	K(IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM); K(IBV_FLOW_ACTION_IV_ALGO_SEQ);
#define T struct ibv_flow_action_esp_keymat_aes_gcm
	S(); F(iv); F(iv_algo); F(salt); F(icv_len); F(key_len); F(aes_key);
#undef T
	K(IBV_FLOW_ACTION_ESP_REPLAY_NONE); K(IBV_FLOW_ACTION_ESP_REPLAY_BMP);
	KE(enum ibv_flow_action_esp_replay);
#define T struct ibv_flow_action_esp_replay_bmp
	S(); F(size);
#undef T
	K(IBV_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO);
	K(IBV_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD);
	K(IBV_FLOW_ACTION_ESP_FLAGS_TUNNEL);
	K(IBV_FLOW_ACTION_ESP_FLAGS_TRANSPORT);
	K(IBV_FLOW_ACTION_ESP_FLAGS_DECRYPT);
	K(IBV_FLOW_ACTION_ESP_FLAGS_ENCRYPT);
	K(IBV_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW);
	KE(enum ibv_flow_action_esp_flags);
#define T struct ibv_flow_action_esp_encap
	S(); F(val_ptr); F(val_ptr_data_u64); F(next_ptr);
	F(next_ptr_data_u64); F(len); F(type);
#undef T
#define T struct ibv_flow_action_esp
	S(); F(spi); F(seq); F(tfc_pad); F(flags); F(hard_limit_pkts);
#undef T
	K(IB_UVERBS_READ_COUNTERS_PREFER_CACHED);
	K(IBV_ADVISE_MR_ADVICE_PREFETCH); K(IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE);
	K(IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT);
	KE(enum ibv_advise_mr_advice);
	K(IBV_ADVISE_MR_FLAG_FLUSH);
#define T struct ib_uverbs_qp_cap
	S(); F(max_send_wr); F(max_recv_wr); F(max_send_sge);
	F(max_recv_sge); F(max_inline_data);
#undef T
	K(RDMA_DRIVER_UNKNOWN); K(RDMA_DRIVER_MLX5); K(RDMA_DRIVER_MLX4);
	K(RDMA_DRIVER_CXGB3); K(RDMA_DRIVER_CXGB4); K(RDMA_DRIVER_MTHCA);
	K(RDMA_DRIVER_BNXT_RE); K(RDMA_DRIVER_OCRDMA); K(RDMA_DRIVER_NES);
	K(RDMA_DRIVER_I40IW); K(RDMA_DRIVER_IRDMA); K(RDMA_DRIVER_VMW_PVRDMA);
	K(RDMA_DRIVER_QEDR); K(RDMA_DRIVER_HNS); K(RDMA_DRIVER_USNIC);
	K(RDMA_DRIVER_RXE); K(RDMA_DRIVER_HFI1); K(RDMA_DRIVER_QIB);
	K(RDMA_DRIVER_EFA); K(RDMA_DRIVER_SIW); K(RDMA_DRIVER_ERDMA);
	K(RDMA_DRIVER_MANA);
	KE(enum rdma_driver_id);
	K(IB_UVERBS_GID_TYPE_IB); K(IB_UVERBS_GID_TYPE_ROCE_V1);
	K(IB_UVERBS_GID_TYPE_ROCE_V2); KE(enum ib_uverbs_gid_type);
	KE(enum ib_uverbs_core_support); KE(enum ib_uverbs_srq_type);
	KE(enum ib_uverbs_wq_type); KE(enum ib_uverbs_wq_flags);
	KE(enum ib_uverbs_qp_type); KE(enum ib_uverbs_qp_create_flags);
	KE(enum ib_uverbs_query_port_flags);
	KE(enum ib_uverbs_flow_action_esp_keymat);
	KE(enum ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo);
	KE(enum ib_uverbs_read_counters_flags);
	KE(enum ib_uverbs_advise_mr_flag);
#define T struct ib_uverbs_gid_entry
	S(); F(gid); F(gid_index); F(port_num); F(gid_type);
	F(netdev_ifindex);
#undef T
#define T struct ib_uverbs_query_port_resp_ex
	F(legacy_resp); F(port_cap_flags2);
#ifdef EMU_V65
	V65_BEGIN;
	S(); F(reserved); F(active_speed_ex);
	V65_END;
#endif
#undef T
#ifdef EMU_V65
	V65_BEGIN;
	K(IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA);
	K(IB_UVERBS_ACCESS_FLUSH_GLOBAL); K(IB_UVERBS_ACCESS_FLUSH_PERSISTENT);
	K(RDMA_DRIVER_IONIC);
	K(IB_UVERBS_BUFFER_TYPE_DMABUF); K(IB_UVERBS_BUFFER_TYPE_VA);
#define T struct ib_uverbs_buffer_desc
	S(); F(type); F(fd); F(flags); F(optional_flags); F(addr); F(length);
#undef T
	K(IB_UVERBS_COMP_CNTR_ENTRY_COMP); K(IB_UVERBS_COMP_CNTR_ENTRY_ERR);
	K(IB_UVERBS_COMP_CNTR_MODIFY_OP_SET);
	K(IB_UVERBS_COMP_CNTR_MODIFY_OP_INC);
	K(IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND);
	K(IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV);
	K(IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ);
	K(IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ);
	K(IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE);
	K(IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE);
	KE(enum ib_uverbs_buffer_type); KE(enum ib_uverbs_comp_cntr_entry);
	KE(enum ib_uverbs_comp_cntr_modify_op);
	KE(enum ib_uverbs_qp_attach_comp_cntr_op);
	V65_END;
#endif
}

/* Exact prototypes of every exported and inline function. */
static void dump_prototypes(void)
{
	SIG(ibv_wc_status_str, const char *(*)(enum ibv_wc_status));
	SIGC(ibv_rate_to_mult, int (*)(enum ibv_rate));
	SIGC(mult_to_ibv_rate, enum ibv_rate (*)(int));
	SIGC(ibv_rate_to_mbps, int (*)(enum ibv_rate));
	SIGC(mbps_to_ibv_rate, enum ibv_rate (*)(int));
	SIG(ibv_qp_to_qp_ex, struct ibv_qp_ex *(*)(struct ibv_qp *));
	SIG(ibv_get_device_list, struct ibv_device **(*)(int *));
	SIG(ibv_free_device_list, void (*)(struct ibv_device **));
	SIG(ibv_get_device_name, const char *(*)(struct ibv_device *));
	SIG(ibv_get_device_index, int (*)(struct ibv_device *));
	SIG(ibv_get_device_guid, __be64 (*)(struct ibv_device *));
	SIG(ibv_open_device, struct ibv_context *(*)(struct ibv_device *));
	SIG(ibv_close_device, int (*)(struct ibv_context *));
	SIG(ibv_import_device, struct ibv_context *(*)(int));
	SIG(ibv_import_pd, struct ibv_pd *(*)(struct ibv_context *, uint32_t));
	SIG(ibv_unimport_pd, void (*)(struct ibv_pd *));
	SIG(ibv_import_mr, struct ibv_mr *(*)(struct ibv_pd *, uint32_t));
	SIG(ibv_unimport_mr, void (*)(struct ibv_mr *));
	SIG(ibv_import_dm, struct ibv_dm *(*)(struct ibv_context *, uint32_t));
	SIG(ibv_unimport_dm, void (*)(struct ibv_dm *));
	SIG(ibv_get_async_event, int (*)(struct ibv_context *,
					 struct ibv_async_event *));
	SIG(ibv_ack_async_event, void (*)(struct ibv_async_event *));
	SIG(ibv_query_device, int (*)(struct ibv_context *,
				      struct ibv_device_attr *));
	SIG(ibv_query_port, int (*)(struct ibv_context *, uint8_t,
				    struct _compat_ibv_port_attr *));
	SIG(___ibv_query_port, int (*)(struct ibv_context *, uint8_t,
				       struct ibv_port_attr *));
	SIG(ibv_query_gid, int (*)(struct ibv_context *, uint8_t, int,
				   union ibv_gid *));
	SIG(_ibv_query_gid_ex, int (*)(struct ibv_context *, uint32_t,
				       uint32_t, struct ibv_gid_entry *,
				       uint32_t, size_t));
	SIG(ibv_query_gid_ex, int (*)(struct ibv_context *, uint32_t, uint32_t,
				      struct ibv_gid_entry *, uint32_t));
	SIG(_ibv_query_gid_table, ssize_t (*)(struct ibv_context *,
					      struct ibv_gid_entry *, size_t,
					      uint32_t, size_t));
	SIG(ibv_query_gid_table, ssize_t (*)(struct ibv_context *,
					     struct ibv_gid_entry *, size_t,
					     uint32_t));
	SIG(ibv_query_pkey, int (*)(struct ibv_context *, uint8_t, int,
				    __be16 *));
	SIG(ibv_get_pkey_index, int (*)(struct ibv_context *, uint8_t,
					__be16));
	SIG(ibv_alloc_pd, struct ibv_pd *(*)(struct ibv_context *));
	SIG(ibv_dealloc_pd, int (*)(struct ibv_pd *));
	SIG(ibv_create_flow, struct ibv_flow *(*)(struct ibv_qp *,
						  struct ibv_flow_attr *));
	SIG(ibv_destroy_flow, int (*)(struct ibv_flow *));
	SIG(ibv_create_flow_action_esp,
	    struct ibv_flow_action *(*)(struct ibv_context *,
					struct ibv_flow_action_esp_attr *));
	SIG(ibv_modify_flow_action_esp,
	    int (*)(struct ibv_flow_action *,
		    struct ibv_flow_action_esp_attr *));
	SIG(ibv_destroy_flow_action, int (*)(struct ibv_flow_action *));
	SIG(ibv_open_xrcd, struct ibv_xrcd *(*)(struct ibv_context *,
						struct ibv_xrcd_init_attr *));
	SIG(ibv_close_xrcd, int (*)(struct ibv_xrcd *));
	SIG(ibv_reg_mr_iova2, struct ibv_mr *(*)(struct ibv_pd *, void *,
						 size_t, uint64_t,
						 unsigned int));
	SIG(ibv_reg_mr, struct ibv_mr *(*)(struct ibv_pd *, void *, size_t,
					   int));
	SIG(__ibv_reg_mr, struct ibv_mr *(*)(struct ibv_pd *, void *, size_t,
					     unsigned int, int));
	SIG(ibv_reg_mr_iova, struct ibv_mr *(*)(struct ibv_pd *, void *,
						size_t, uint64_t, int));
	SIG(__ibv_reg_mr_iova, struct ibv_mr *(*)(struct ibv_pd *, void *,
						  size_t, uint64_t,
						  unsigned int, int));
	SIG(ibv_reg_dmabuf_mr, struct ibv_mr *(*)(struct ibv_pd *, uint64_t,
						  size_t, uint64_t, int, int));
	SIG(ibv_rereg_mr, int (*)(struct ibv_mr *, int, struct ibv_pd *,
				  void *, size_t, int));
	SIG(ibv_dereg_mr, int (*)(struct ibv_mr *));
	SIG(ibv_alloc_mw, struct ibv_mw *(*)(struct ibv_pd *,
					     enum ibv_mw_type));
	SIG(ibv_dealloc_mw, int (*)(struct ibv_mw *));
	SIG(ibv_inc_rkey, uint32_t (*)(uint32_t));
	SIG(ibv_bind_mw, int (*)(struct ibv_qp *, struct ibv_mw *,
				 struct ibv_mw_bind *));
	SIG(ibv_create_comp_channel,
	    struct ibv_comp_channel *(*)(struct ibv_context *));
	SIG(ibv_destroy_comp_channel, int (*)(struct ibv_comp_channel *));
	SIG(ibv_advise_mr, int (*)(struct ibv_pd *, enum ibv_advise_mr_advice,
				   uint32_t, struct ibv_sge *, uint32_t));
	SIG(ibv_alloc_dm, struct ibv_dm *(*)(struct ibv_context *,
					     struct ibv_alloc_dm_attr *));
	SIG(ibv_free_dm, int (*)(struct ibv_dm *));
	SIG(ibv_memcpy_to_dm, int (*)(struct ibv_dm *, uint64_t, const void *,
				      size_t));
	SIG(ibv_memcpy_from_dm, int (*)(void *, struct ibv_dm *, uint64_t,
					size_t));
	SIG(ibv_alloc_null_mr, struct ibv_mr *(*)(struct ibv_pd *));
	SIG(ibv_reg_dm_mr, struct ibv_mr *(*)(struct ibv_pd *, struct ibv_dm *,
					      uint64_t, size_t,
					      unsigned int));
	SIG(ibv_create_cq, struct ibv_cq *(*)(struct ibv_context *, int,
					      void *,
					      struct ibv_comp_channel *, int));
	SIG(ibv_create_cq_ex,
	    struct ibv_cq_ex *(*)(struct ibv_context *,
				  struct ibv_cq_init_attr_ex *));
	SIG(ibv_resize_cq, int (*)(struct ibv_cq *, int));
	SIG(ibv_destroy_cq, int (*)(struct ibv_cq *));
	SIG(ibv_get_cq_event, int (*)(struct ibv_comp_channel *,
				      struct ibv_cq **, void **));
	SIG(ibv_ack_cq_events, void (*)(struct ibv_cq *, unsigned int));
	SIG(ibv_poll_cq, int (*)(struct ibv_cq *, int, struct ibv_wc *));
	SIG(ibv_req_notify_cq, int (*)(struct ibv_cq *, int));
	SIG(ibv_modify_cq, int (*)(struct ibv_cq *,
				   struct ibv_modify_cq_attr *));
	SIG(ibv_create_srq, struct ibv_srq *(*)(struct ibv_pd *,
						struct ibv_srq_init_attr *));
	SIG(ibv_create_srq_ex,
	    struct ibv_srq *(*)(struct ibv_context *,
				struct ibv_srq_init_attr_ex *));
	SIG(ibv_modify_srq, int (*)(struct ibv_srq *, struct ibv_srq_attr *,
				    int));
	SIG(ibv_query_srq, int (*)(struct ibv_srq *, struct ibv_srq_attr *));
	SIG(ibv_get_srq_num, int (*)(struct ibv_srq *, uint32_t *));
	SIG(ibv_destroy_srq, int (*)(struct ibv_srq *));
	SIG(ibv_post_srq_recv, int (*)(struct ibv_srq *, struct ibv_recv_wr *,
				       struct ibv_recv_wr **));
	SIG(ibv_post_srq_ops, int (*)(struct ibv_srq *, struct ibv_ops_wr *,
				      struct ibv_ops_wr **));
	SIG(ibv_create_qp, struct ibv_qp *(*)(struct ibv_pd *,
					      struct ibv_qp_init_attr *));
	SIG(ibv_create_qp_ex,
	    struct ibv_qp *(*)(struct ibv_context *,
			       struct ibv_qp_init_attr_ex *));
	SIG(ibv_alloc_td, struct ibv_td *(*)(struct ibv_context *,
					     struct ibv_td_init_attr *));
	SIG(ibv_dealloc_td, int (*)(struct ibv_td *));
	SIG(ibv_alloc_parent_domain,
	    struct ibv_pd *(*)(struct ibv_context *,
			       struct ibv_parent_domain_init_attr *));
	SIG(ibv_query_rt_values_ex, int (*)(struct ibv_context *,
					    struct ibv_values_ex *));
	SIG(ibv_query_device_ex,
	    int (*)(struct ibv_context *,
		    const struct ibv_query_device_ex_input *,
		    struct ibv_device_attr_ex *));
	SIG(ibv_open_qp, struct ibv_qp *(*)(struct ibv_context *,
					    struct ibv_qp_open_attr *));
	SIG(ibv_modify_qp, int (*)(struct ibv_qp *, struct ibv_qp_attr *,
				   int));
	SIG(ibv_modify_qp_rate_limit,
	    int (*)(struct ibv_qp *, struct ibv_qp_rate_limit_attr *));
	SIG(ibv_query_qp_data_in_order, int (*)(struct ibv_qp *,
						enum ibv_wr_opcode, uint32_t));
	SIG(ibv_query_qp, int (*)(struct ibv_qp *, struct ibv_qp_attr *, int,
				  struct ibv_qp_init_attr *));
	SIG(ibv_destroy_qp, int (*)(struct ibv_qp *));
	SIG(ibv_create_wq, struct ibv_wq *(*)(struct ibv_context *,
					      struct ibv_wq_init_attr *));
	SIG(ibv_modify_wq, int (*)(struct ibv_wq *, struct ibv_wq_attr *));
	SIG(ibv_destroy_wq, int (*)(struct ibv_wq *));
	SIG(ibv_create_rwq_ind_table,
	    struct ibv_rwq_ind_table *(*)(struct ibv_context *,
					  struct ibv_rwq_ind_table_init_attr *));
	SIG(ibv_destroy_rwq_ind_table, int (*)(struct ibv_rwq_ind_table *));
	SIG(ibv_post_send, int (*)(struct ibv_qp *, struct ibv_send_wr *,
				   struct ibv_send_wr **));
	SIG(ibv_post_recv, int (*)(struct ibv_qp *, struct ibv_recv_wr *,
				   struct ibv_recv_wr **));
	SIG(ibv_post_wq_recv, int (*)(struct ibv_wq *, struct ibv_recv_wr *,
				      struct ibv_recv_wr **));
	SIG(ibv_create_ah, struct ibv_ah *(*)(struct ibv_pd *,
					      struct ibv_ah_attr *));
	SIG(ibv_init_ah_from_wc, int (*)(struct ibv_context *, uint8_t,
					 struct ibv_wc *, struct ibv_grh *,
					 struct ibv_ah_attr *));
	SIG(ibv_create_ah_from_wc, struct ibv_ah *(*)(struct ibv_pd *,
						      struct ibv_wc *,
						      struct ibv_grh *,
						      uint8_t));
	SIG(ibv_destroy_ah, int (*)(struct ibv_ah *));
	SIG(ibv_attach_mcast, int (*)(struct ibv_qp *, const union ibv_gid *,
				      uint16_t));
	SIG(ibv_detach_mcast, int (*)(struct ibv_qp *, const union ibv_gid *,
				      uint16_t));
	SIG(ibv_fork_init, int (*)(void));
	SIG(ibv_is_fork_initialized, enum ibv_fork_status (*)(void));
	SIG(ibv_node_type_str, const char *(*)(enum ibv_node_type));
	SIG(ibv_port_state_str, const char *(*)(enum ibv_port_state));
	SIG(ibv_event_type_str, const char *(*)(enum ibv_event_type));
	SIG(ibv_resolve_eth_l2_from_gid, int (*)(struct ibv_context *,
						 struct ibv_ah_attr *,
						 uint8_t *, uint16_t *));
	SIG(ibv_is_qpt_supported, int (*)(uint32_t, enum ibv_qp_type));
	SIG(ibv_create_counters,
	    struct ibv_counters *(*)(struct ibv_context *,
				     struct ibv_counters_init_attr *));
	SIG(ibv_destroy_counters, int (*)(struct ibv_counters *));
	SIG(ibv_attach_counters_point_flow,
	    int (*)(struct ibv_counters *, struct ibv_counter_attach_attr *,
		    struct ibv_flow *));
	SIG(ibv_read_counters, int (*)(struct ibv_counters *, uint64_t *,
				       uint32_t, uint32_t));
	SIG(ibv_flow_label_to_udp_sport, uint16_t (*)(uint32_t));
	SIG(ibv_set_ece, int (*)(struct ibv_qp *, struct ibv_ece *));
	SIG(ibv_query_ece, int (*)(struct ibv_qp *, struct ibv_ece *));
	SIG(verbs_get_ctx, struct verbs_context *(*)(struct ibv_context *));
	SIG(ibv_cq_ex_to_cq, struct ibv_cq *(*)(struct ibv_cq_ex *));

	/* the extended QP work request builders */
	SIG(ibv_wr_atomic_cmp_swp, void (*)(struct ibv_qp_ex *, uint32_t,
					    uint64_t, uint64_t, uint64_t));
	SIG(ibv_wr_atomic_fetch_add, void (*)(struct ibv_qp_ex *, uint32_t,
					      uint64_t, uint64_t));
	SIG(ibv_wr_bind_mw, void (*)(struct ibv_qp_ex *, struct ibv_mw *,
				     uint32_t,
				     const struct ibv_mw_bind_info *));
	SIG(ibv_wr_local_inv, void (*)(struct ibv_qp_ex *, uint32_t));
	SIG(ibv_wr_rdma_read, void (*)(struct ibv_qp_ex *, uint32_t,
				       uint64_t));
	SIG(ibv_wr_rdma_write, void (*)(struct ibv_qp_ex *, uint32_t,
					uint64_t));
	SIG(ibv_wr_rdma_write_imm, void (*)(struct ibv_qp_ex *, uint32_t,
					    uint64_t, __be32));
	SIG(ibv_wr_send, void (*)(struct ibv_qp_ex *));
	SIG(ibv_wr_send_imm, void (*)(struct ibv_qp_ex *, __be32));
	SIG(ibv_wr_send_inv, void (*)(struct ibv_qp_ex *, uint32_t));
	SIG(ibv_wr_send_tso, void (*)(struct ibv_qp_ex *, void *, uint16_t,
				      uint16_t));
	SIG(ibv_wr_set_ud_addr, void (*)(struct ibv_qp_ex *, struct ibv_ah *,
					 uint32_t, uint32_t));
	SIG(ibv_wr_set_xrc_srqn, void (*)(struct ibv_qp_ex *, uint32_t));
	SIG(ibv_wr_set_inline_data, void (*)(struct ibv_qp_ex *, void *,
					     size_t));
	SIG(ibv_wr_set_inline_data_list,
	    void (*)(struct ibv_qp_ex *, size_t,
		     const struct ibv_data_buf *));
	SIG(ibv_wr_set_sge, void (*)(struct ibv_qp_ex *, uint32_t, uint64_t,
				     uint32_t));
	SIG(ibv_wr_set_sge_list, void (*)(struct ibv_qp_ex *, size_t,
					  const struct ibv_sge *));
	SIG(ibv_wr_start, void (*)(struct ibv_qp_ex *));
	SIG(ibv_wr_complete, int (*)(struct ibv_qp_ex *));
	SIG(ibv_wr_abort, void (*)(struct ibv_qp_ex *));
	SIG(ibv_wr_atomic_write, void (*)(struct ibv_qp_ex *, uint32_t,
					  uint64_t, const void *));

	/* extended CQ polling */
	SIG(ibv_start_poll, int (*)(struct ibv_cq_ex *,
				    struct ibv_poll_cq_attr *));
	SIG(ibv_next_poll, int (*)(struct ibv_cq_ex *));
	SIG(ibv_end_poll, void (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_opcode, enum ibv_wc_opcode (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_vendor_err, uint32_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_byte_len, uint32_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_imm_data, __be32 (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_invalidated_rkey, uint32_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_qp_num, uint32_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_src_qp, uint32_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_wc_flags, unsigned int (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_slid, uint32_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_sl, uint8_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_dlid_path_bits, uint8_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_completion_ts, uint64_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_completion_wallclock_ns,
	    uint64_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_cvlan, uint16_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_flow_tag, uint32_t (*)(struct ibv_cq_ex *));
	SIG(ibv_wc_read_tm_info, void (*)(struct ibv_cq_ex *,
					  struct ibv_wc_tm_info *));

#ifdef EMU_V65
	V65_BEGIN;
	SIG(ibv_wr_opcode_str, const char *(*)(enum ibv_wr_opcode));
	SIG(ibv_query_port_speed, int (*)(struct ibv_context *, uint32_t,
					  uint64_t *));
	SIG(ibv_reg_mr_ex, struct ibv_mr *(*)(struct ibv_pd *,
					      struct ibv_mr_init_attr *));
	SIG(ibv_dm_export_dmabuf_fd, int (*)(struct ibv_dm *));
	SIG(_ibv_query_comp_cntr_caps, int (*)(struct ibv_context *,
					       struct ibv_comp_cntr_caps *,
					       size_t));
	SIG(ibv_query_comp_cntr_caps, int (*)(struct ibv_context *,
					      struct ibv_comp_cntr_caps *));
	SIG(ibv_create_comp_cntr,
	    struct ibv_comp_cntr *(*)(struct ibv_context *,
				      struct ibv_comp_cntr_init_attr *));
	SIG(ibv_destroy_comp_cntr, int (*)(struct ibv_comp_cntr *));
	SIG(ibv_set_comp_cntr, int (*)(struct ibv_comp_cntr *, uint64_t));
	SIG(ibv_set_err_comp_cntr, int (*)(struct ibv_comp_cntr *, uint64_t));
	SIG(ibv_inc_comp_cntr, int (*)(struct ibv_comp_cntr *, uint64_t));
	SIG(ibv_inc_err_comp_cntr, int (*)(struct ibv_comp_cntr *, uint64_t));
	SIG(ibv_read_comp_cntr, int (*)(struct ibv_comp_cntr *, uint64_t *));
	SIG(ibv_read_err_comp_cntr, int (*)(struct ibv_comp_cntr *,
					    uint64_t *));
	SIG(ibv_qp_attach_comp_cntr,
	    int (*)(struct ibv_qp *, struct ibv_comp_cntr *,
		    struct ibv_qp_attach_comp_cntr_attr *));
	SIG(ibv_alloc_buf, void *(*)(struct ibv_pd *, size_t,
				     struct ibv_buf **));
	SIG(ibv_export_buf_dmabuf_fd, int (*)(struct ibv_buf *));
	SIG(ibv_free_buf, void (*)(struct ibv_buf *));
	SIG(ibv_reg_buf_mr, struct ibv_mr *(*)(struct ibv_pd *,
					       struct ibv_buf *, void *,
					       size_t, int));
	SIG(ibv_alloc_dmah, struct ibv_dmah *(*)(struct ibv_context *,
						 struct ibv_dmah_init_attr *));
	SIG(ibv_dealloc_dmah, int (*)(struct ibv_dmah *));
	SIG(ibv_wr_flush, void (*)(struct ibv_qp_ex *, uint32_t, uint64_t,
				   size_t, uint8_t, uint8_t));
	V65_END;
#endif
}

/* Pure inline helpers: same inputs must give the same outputs. */
static void dump_pure_inlines(void)
{
	static const uint32_t rkeys[] = {
		0, 1, 0xfe, 0xff, 0x100, 0x12345678, 0xabcdefff, 0xffffffff
	};
	static const uint32_t labels[] = {
		0, 1, 0x3fff, 0x4000, 0xfc000, 0xfffff, 0x12345, 0xfedcb
	};
	static const uint32_t caps[] = { 0, 0x4, 0x1c, 0x310, 0xffffffff };
	static const int qpts[] = { 2, 3, 4, 8, 9, 10 };
	size_t i, j;

	for (i = 0; i < sizeof(rkeys) / sizeof(rkeys[0]); i++)
		printf("%sinline ibv_inc_rkey(%#x) = %#x\n", pfx, rkeys[i],
		       ibv_inc_rkey(rkeys[i]));
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		printf("%sinline ibv_flow_label_to_udp_sport(%#x) = %#x\n",
		       pfx, labels[i],
		       (unsigned int)ibv_flow_label_to_udp_sport(labels[i]));
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		for (j = 0; j < sizeof(qpts) / sizeof(qpts[0]); j++)
			printf("%sinline ibv_is_qpt_supported(%#x, %d) = %d\n",
			       pfx, caps[i], qpts[j],
			       ibv_is_qpt_supported(caps[i],
						    (enum ibv_qp_type)qpts[j]));
}

/*
 * Inline helpers that dispatch through a context: run each against a fake
 * verbs_context and log which slot it reached and what it returned, for
 * a complete context, one whose library copy is too short (sz), one with
 * the ops unset, and a legacy (non-extended) one.
 */
static const char *called;
static size_t called_len;

#define STUB(name, ret, val, ...)					\
	static ret stub_##name(__VA_ARGS__)				\
	{								\
		called = #name;						\
		return val;						\
	}

static struct ibv_mw fake_mw_obj;
static struct ibv_flow fake_flow_obj;
static struct ibv_wq fake_wq_obj;

STUB(query_port, int, 10, struct ibv_context *c, uint8_t p,
     struct ibv_port_attr *a, size_t len)
STUB(advise_mr, int, 11, struct ibv_pd *pd, enum ibv_advise_mr_advice a,
     uint32_t f, struct ibv_sge *s, uint32_t n)
STUB(alloc_null_mr, struct ibv_mr *, NULL, struct ibv_pd *pd)
STUB(read_counters, int, 12, struct ibv_counters *c, uint64_t *v,
     uint32_t n, uint32_t f)
STUB(attach_counters_point_flow, int, 13, struct ibv_counters *c,
     struct ibv_counter_attach_attr *a, struct ibv_flow *f)
STUB(create_counters, struct ibv_counters *, NULL, struct ibv_context *c,
     struct ibv_counters_init_attr *a)
STUB(destroy_counters, int, 14, struct ibv_counters *c)
STUB(reg_dm_mr, struct ibv_mr *, NULL, struct ibv_pd *pd, struct ibv_dm *dm,
     uint64_t o, size_t l, unsigned int a)
STUB(alloc_dm, struct ibv_dm *, NULL, struct ibv_context *c,
     struct ibv_alloc_dm_attr *a)
STUB(free_dm, int, 15, struct ibv_dm *dm)
STUB(modify_flow_action_esp, int, 16, struct ibv_flow_action *a,
     struct ibv_flow_action_esp_attr *e)
STUB(destroy_flow_action, int, 17, struct ibv_flow_action *a)
STUB(create_flow_action_esp, struct ibv_flow_action *, NULL,
     struct ibv_context *c, struct ibv_flow_action_esp_attr *e)
STUB(modify_qp_rate_limit, int, 18, struct ibv_qp *qp,
     struct ibv_qp_rate_limit_attr *a)
STUB(alloc_parent_domain, struct ibv_pd *, NULL, struct ibv_context *c,
     struct ibv_parent_domain_init_attr *a)
STUB(dealloc_td, int, 19, struct ibv_td *td)
STUB(alloc_td, struct ibv_td *, NULL, struct ibv_context *c,
     struct ibv_td_init_attr *a)
STUB(modify_cq, int, 20, struct ibv_cq *cq, struct ibv_modify_cq_attr *a)
STUB(post_srq_ops, int, 21, struct ibv_srq *s, struct ibv_ops_wr *o,
     struct ibv_ops_wr **b)
STUB(destroy_rwq_ind_table, int, 22, struct ibv_rwq_ind_table *t)
STUB(create_rwq_ind_table, struct ibv_rwq_ind_table *, NULL,
     struct ibv_context *c, struct ibv_rwq_ind_table_init_attr *a)
STUB(destroy_wq, int, 23, struct ibv_wq *wq)
STUB(modify_wq, int, 24, struct ibv_wq *wq, struct ibv_wq_attr *a)
STUB(create_wq, struct ibv_wq *, &fake_wq_obj, struct ibv_context *c,
     struct ibv_wq_init_attr *a)
STUB(query_rt_values, int, 25, struct ibv_context *c,
     struct ibv_values_ex *v)
STUB(create_cq_ex, struct ibv_cq_ex *, NULL, struct ibv_context *c,
     struct ibv_cq_init_attr_ex *a)
STUB(query_device_ex, int, 26, struct ibv_context *c,
     const struct ibv_query_device_ex_input *i,
     struct ibv_device_attr_ex *a, size_t s)
STUB(query_device_ex_nosup, int, EOPNOTSUPP, struct ibv_context *c,
     const struct ibv_query_device_ex_input *i,
     struct ibv_device_attr_ex *a, size_t s)
STUB(query_device_ex_nosys, int, ENOSYS, struct ibv_context *c,
     const struct ibv_query_device_ex_input *i,
     struct ibv_device_attr_ex *a, size_t s)
STUB(ibv_destroy_flow, int, 27, struct ibv_flow *f)
STUB(ibv_create_flow, struct ibv_flow *, &fake_flow_obj, struct ibv_qp *qp,
     struct ibv_flow_attr *a)
STUB(open_qp, struct ibv_qp *, NULL, struct ibv_context *c,
     struct ibv_qp_open_attr *a)
STUB(create_qp_ex, struct ibv_qp *, NULL, struct ibv_context *c,
     struct ibv_qp_init_attr_ex *a)
STUB(get_srq_num, int, 28, struct ibv_srq *s, uint32_t *n)
STUB(create_srq_ex, struct ibv_srq *, NULL, struct ibv_context *c,
     struct ibv_srq_init_attr_ex *a)
STUB(open_xrcd, struct ibv_xrcd *, NULL, struct ibv_context *c,
     struct ibv_xrcd_init_attr *a)
STUB(close_xrcd, int, 29, struct ibv_xrcd *x)
STUB(alloc_mw, struct ibv_mw *, &fake_mw_obj, struct ibv_pd *pd,
     enum ibv_mw_type t)
STUB(bind_mw, int, 30, struct ibv_qp *qp, struct ibv_mw *mw,
     struct ibv_mw_bind *b)
STUB(dealloc_mw, int, 31, struct ibv_mw *mw)
STUB(poll_cq, int, 32, struct ibv_cq *cq, int n, struct ibv_wc *wc)
STUB(req_notify_cq, int, 33, struct ibv_cq *cq, int s)
STUB(post_srq_recv, int, 34, struct ibv_srq *s, struct ibv_recv_wr *w,
     struct ibv_recv_wr **b)
STUB(post_send, int, 35, struct ibv_qp *qp, struct ibv_send_wr *w,
     struct ibv_send_wr **b)
STUB(post_recv, int, 36, struct ibv_qp *qp, struct ibv_recv_wr *w,
     struct ibv_recv_wr **b)

/* The wq ops the library gives every WQ. */
STUB(wq_post_recv, int, 37, struct ibv_wq *wq, struct ibv_recv_wr *w,
     struct ibv_recv_wr **b)

/*
 * Stand-ins for the exported functions the inline helpers fall back to,
 * so the test links without any libibverbs and can see those calls too.
 */
int (ibv_query_port)(struct ibv_context *c, uint8_t p,
		     struct _compat_ibv_port_attr *a)
{
	(void)c; (void)p; (void)a;
	called = "exported ibv_query_port";
	return 40;
}

int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	(void)c; (void)a;
	called = "exported ibv_query_device";
	return 41;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	(void)pd; (void)a;
	called = "exported ibv_create_qp";
	return NULL;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *a)
{
	(void)pd; (void)a;
	called = "exported ibv_create_srq";
	return NULL;
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t len,
			    int access)
{
	(void)pd; (void)addr; (void)len; (void)access;
	called = "exported ibv_reg_mr";
	return NULL;
}

struct ibv_mr *(ibv_reg_mr_iova)(struct ibv_pd *pd, void *addr, size_t len,
				 uint64_t iova, int access)
{
	(void)pd; (void)addr; (void)len; (void)iova; (void)access;
	called = "exported ibv_reg_mr_iova";
	return NULL;
}

static uint64_t iova_seen;

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len,
				uint64_t iova, unsigned int access)
{
	(void)pd; (void)addr; (void)len; (void)access;
	called = "exported ibv_reg_mr_iova2";
	iova_seen = iova;
	return NULL;
}

int _ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t index,
		      struct ibv_gid_entry *e, uint32_t flags, size_t size)
{
	(void)c; (void)port; (void)index; (void)e; (void)flags;
	called = "exported _ibv_query_gid_ex";
	called_len = size;
	return 42;
}

ssize_t _ibv_query_gid_table(struct ibv_context *c, struct ibv_gid_entry *e,
			     size_t max, uint32_t flags, size_t size)
{
	(void)c; (void)e; (void)max; (void)flags;
	called = "exported _ibv_query_gid_table";
	called_len = size;
	return 43;
}

#ifdef EMU_V65
int _ibv_query_comp_cntr_caps(struct ibv_context *c,
			      struct ibv_comp_cntr_caps *caps, size_t size)
{
	(void)c; (void)caps;
	called = "exported _ibv_query_comp_cntr_caps";
	called_len = size;
	return 44;
}
#endif

static struct verbs_context fake;

static int stub_query_port_len(struct ibv_context *c, uint8_t p,
			       struct ibv_port_attr *a, size_t len)
{
	(void)c; (void)p; (void)a;
	called = "query_port";
	called_len = len;
	return 0;
}

static void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
	fake.sz = sizeof(fake);
	fake.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	fake.query_port = stub_query_port;
	fake.advise_mr = stub_advise_mr;
	fake.alloc_null_mr = stub_alloc_null_mr;
	fake.read_counters = stub_read_counters;
	fake.attach_counters_point_flow = stub_attach_counters_point_flow;
	fake.create_counters = stub_create_counters;
	fake.destroy_counters = stub_destroy_counters;
	fake.reg_dm_mr = stub_reg_dm_mr;
	fake.alloc_dm = stub_alloc_dm;
	fake.free_dm = stub_free_dm;
	fake.modify_flow_action_esp = stub_modify_flow_action_esp;
	fake.destroy_flow_action = stub_destroy_flow_action;
	fake.create_flow_action_esp = stub_create_flow_action_esp;
	fake.modify_qp_rate_limit = stub_modify_qp_rate_limit;
	fake.alloc_parent_domain = stub_alloc_parent_domain;
	fake.dealloc_td = stub_dealloc_td;
	fake.alloc_td = stub_alloc_td;
	fake.modify_cq = stub_modify_cq;
	fake.post_srq_ops = stub_post_srq_ops;
	fake.destroy_rwq_ind_table = stub_destroy_rwq_ind_table;
	fake.create_rwq_ind_table = stub_create_rwq_ind_table;
	fake.destroy_wq = stub_destroy_wq;
	fake.modify_wq = stub_modify_wq;
	fake.create_wq = stub_create_wq;
	fake.query_rt_values = stub_query_rt_values;
	fake.create_cq_ex = stub_create_cq_ex;
	fake.query_device_ex = stub_query_device_ex;
	fake.ibv_destroy_flow = stub_ibv_destroy_flow;
	fake.ibv_create_flow = stub_ibv_create_flow;
	fake.open_qp = stub_open_qp;
	fake.create_qp_ex = stub_create_qp_ex;
	fake.get_srq_num = stub_get_srq_num;
	fake.create_srq_ex = stub_create_srq_ex;
	fake.open_xrcd = stub_open_xrcd;
	fake.close_xrcd = stub_close_xrcd;
	fake.context.ops.alloc_mw = stub_alloc_mw;
	fake.context.ops.bind_mw = stub_bind_mw;
	fake.context.ops.dealloc_mw = stub_dealloc_mw;
	fake.context.ops.poll_cq = stub_poll_cq;
	fake.context.ops.req_notify_cq = stub_req_notify_cq;
	fake.context.ops.post_srq_recv = stub_post_srq_recv;
	fake.context.ops.post_send = stub_post_send;
	fake.context.ops.post_recv = stub_post_recv;
}

/* Log one call: the slot reached (or "-"), its result and errno. */
static void report(const char *what, const char *mode, long ret, int err)
{
	printf("%sdispatch %s [%s] called=%s ret=%ld errno=%d\n", pfx, what,
	       mode, called ? called : "-", ret, err);
}

#define CALL_INT(what, mode, expr) do {					\
	long _r;							\
	called = NULL; errno = 0;					\
	_r = (long)(expr);						\
	report(what, mode, _r, errno);					\
} while (0)
#define CALL_PTR(what, mode, expr) do {					\
	long _r;							\
	called = NULL; errno = 0;					\
	_r = (expr) != NULL;						\
	report(what, mode, _r, errno);					\
} while (0)

/*
 * Calls every inline that dispatches through the verbs_context once. All
 * objects point at the fake context; the stubs return NULL or a dummy
 * object, so nothing is dereferenced beyond the context.
 */
static void run_dispatch(const char *mode)
{
	struct ibv_context *ctx = &fake.context;
	struct verbs_context *vctx = verbs_get_ctx(ctx);
	struct ibv_pd pd = { .context = ctx };
	struct ibv_qp qp = { .context = ctx, .pd = &pd };
	struct ibv_cq cq = { .context = ctx };
	struct ibv_srq srq = { .context = ctx };
	struct ibv_wq wq = { .context = ctx };
	struct ibv_td td = { .context = ctx };
	struct ibv_xrcd xrcd = { .context = ctx };
	struct ibv_dm dm = { .context = ctx };
	struct ibv_counters counters = { .context = ctx };
	struct ibv_flow flow = { .context = ctx };
	struct ibv_flow_action action = { .context = ctx };
	struct ibv_rwq_ind_table ind = { .context = ctx };
	struct ibv_port_attr port_attr;
	struct ibv_device_attr_ex dev_attr;
	struct ibv_ops_wr ops_wr, *bad_ops = NULL;
	struct ibv_srq_init_attr_ex srq_attr;
	struct ibv_qp_init_attr_ex qp_attr;
	struct ibv_wq_init_attr wq_attr;
	struct ibv_values_ex values;
	uint32_t srqn;

	memset(&ops_wr, 0, sizeof(ops_wr));
	memset(&srq_attr, 0, sizeof(srq_attr));
	memset(&qp_attr, 0, sizeof(qp_attr));
	memset(&wq_attr, 0, sizeof(wq_attr));
	memset(&values, 0, sizeof(values));

	memset(&port_attr, 0xa5, sizeof(port_attr));
	CALL_INT("ibv_query_port", mode, ibv_query_port(ctx, 1, &port_attr));
	/* the fallback clears the caller's struct before the legacy call */
	printf("%sdispatch ibv_query_port [%s] cleared=%d\n", pfx, mode,
	       port_attr.lid == 0);
	CALL_INT("ibv_advise_mr", mode,
		 ibv_advise_mr(&pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, NULL, 0));
	CALL_PTR("ibv_alloc_null_mr", mode, ibv_alloc_null_mr(&pd));
	CALL_INT("ibv_read_counters", mode,
		 ibv_read_counters(&counters, NULL, 0, 0));
	CALL_INT("ibv_attach_counters_point_flow", mode,
		 ibv_attach_counters_point_flow(&counters, NULL, &flow));
	CALL_PTR("ibv_create_counters", mode, ibv_create_counters(ctx, NULL));
	CALL_INT("ibv_destroy_counters", mode, ibv_destroy_counters(&counters));
	CALL_PTR("ibv_reg_dm_mr", mode, ibv_reg_dm_mr(&pd, &dm, 0, 0, 0));
	CALL_PTR("ibv_alloc_dm", mode, ibv_alloc_dm(ctx, NULL));
	CALL_INT("ibv_free_dm", mode, ibv_free_dm(&dm));
	CALL_INT("ibv_modify_flow_action_esp", mode,
		 ibv_modify_flow_action_esp(&action, NULL));
	CALL_INT("ibv_destroy_flow_action", mode,
		 ibv_destroy_flow_action(&action));
	CALL_PTR("ibv_create_flow_action_esp", mode,
		 ibv_create_flow_action_esp(ctx, NULL));
	CALL_INT("ibv_modify_qp_rate_limit", mode,
		 ibv_modify_qp_rate_limit(&qp, NULL));
	CALL_PTR("ibv_alloc_parent_domain", mode,
		 ibv_alloc_parent_domain(ctx, NULL));
	CALL_INT("ibv_dealloc_td", mode, ibv_dealloc_td(&td));
	CALL_PTR("ibv_alloc_td", mode, ibv_alloc_td(ctx, NULL));
	CALL_INT("ibv_modify_cq", mode, ibv_modify_cq(&cq, NULL));
	CALL_INT("ibv_post_srq_ops", mode,
		 ibv_post_srq_ops(&srq, &ops_wr, &bad_ops));
	printf("%sdispatch ibv_post_srq_ops [%s] bad_op_is_first=%d\n", pfx,
	       mode, bad_ops == &ops_wr);
	CALL_INT("ibv_destroy_rwq_ind_table", mode,
		 ibv_destroy_rwq_ind_table(&ind));
	CALL_PTR("ibv_create_rwq_ind_table", mode,
		 ibv_create_rwq_ind_table(ctx, NULL));
	CALL_INT("ibv_destroy_wq", mode, ibv_destroy_wq(&wq));
	CALL_INT("ibv_modify_wq", mode, ibv_modify_wq(&wq, NULL));
	CALL_INT("ibv_query_rt_values_ex", mode,
		 ibv_query_rt_values_ex(ctx, &values));
	CALL_PTR("ibv_create_cq_ex", mode, ibv_create_cq_ex(ctx, NULL));
	memset(&dev_attr, 0xa5, sizeof(dev_attr));
	CALL_INT("ibv_query_device_ex", mode,
		 ibv_query_device_ex(ctx, NULL, &dev_attr));
	printf("%sdispatch ibv_query_device_ex [%s] cleared=%d\n", pfx, mode,
	       dev_attr.max_dm_size == 0);
	CALL_INT("ibv_destroy_flow", mode, ibv_destroy_flow(&flow));
	CALL_PTR("ibv_create_flow", mode, ibv_create_flow(&qp, NULL));
	CALL_PTR("ibv_open_qp", mode, ibv_open_qp(ctx, NULL));
	CALL_INT("ibv_get_srq_num", mode, ibv_get_srq_num(&srq, &srqn));
	CALL_PTR("ibv_open_xrcd", mode, ibv_open_xrcd(ctx, NULL));
	/* ibv_close_xrcd trusts the context: only call it where it can work */
	if (vctx != NULL && vctx->close_xrcd != NULL)
		CALL_INT("ibv_close_xrcd", mode, ibv_close_xrcd(&xrcd));

	/* which masks take the legacy exported calls */
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	CALL_PTR("ibv_create_qp_ex pd", mode, ibv_create_qp_ex(ctx, &qp_attr));
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD;
	CALL_PTR("ibv_create_qp_ex pd+xrcd", mode,
		 ibv_create_qp_ex(ctx, &qp_attr));
	qp_attr.comp_mask = 0;
	CALL_PTR("ibv_create_qp_ex none", mode,
		 ibv_create_qp_ex(ctx, &qp_attr));
	srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	CALL_PTR("ibv_create_srq_ex pd", mode,
		 ibv_create_srq_ex(ctx, &srq_attr));
	srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	srq_attr.srq_type = IBV_SRQT_BASIC;
	CALL_PTR("ibv_create_srq_ex pd+basic", mode,
		 ibv_create_srq_ex(ctx, &srq_attr));
	srq_attr.srq_type = IBV_SRQT_XRC;
	CALL_PTR("ibv_create_srq_ex pd+xrc", mode,
		 ibv_create_srq_ex(ctx, &srq_attr));
	srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
	srq_attr.srq_type = IBV_SRQT_BASIC;
	CALL_PTR("ibv_create_srq_ex basic-no-pd", mode,
		 ibv_create_srq_ex(ctx, &srq_attr));
	srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ;
	CALL_PTR("ibv_create_srq_ex pd+cq", mode,
		 ibv_create_srq_ex(ctx, &srq_attr));

	/* a created WQ gets its consumer fields set up by the inline */
	memset(&fake_wq_obj, 0x5a, sizeof(fake_wq_obj));
	wq_attr.wq_context = &wq_attr;
	CALL_PTR("ibv_create_wq", mode, ibv_create_wq(ctx, &wq_attr));
	if (called != NULL)
		printf("%sdispatch ibv_create_wq [%s] wq_context=%d "
		       "events_completed=%u\n", pfx, mode,
		       fake_wq_obj.wq_context == (void *)&wq_attr,
		       fake_wq_obj.events_completed);
}

/* Inlines that go through ibv_context.ops or other objects' ops. */
static void run_direct_ops(void)
{
	struct ibv_context *ctx = &fake.context;
	struct ibv_pd pd = { .context = ctx }, other_pd = { .context = ctx };
	struct ibv_mr mr = { .context = ctx, .pd = &pd };
	struct ibv_mw mw = { .context = ctx, .pd = &pd,
			     .type = IBV_MW_TYPE_1 };
	struct ibv_qp qp = { .context = ctx };
	struct ibv_cq cq = { .context = ctx };
	struct ibv_srq srq = { .context = ctx };
	struct ibv_wq wq = { .context = ctx, .post_recv = stub_wq_post_recv };
	struct ibv_gid_entry gid_entry;
	struct ibv_mw_bind bind;
	const char *mode = "ops";
	volatile int runtime_access = IBV_ACCESS_LOCAL_WRITE;
	char buf[8];

	memset(&bind, 0, sizeof(bind));
	CALL_PTR("ibv_alloc_mw", mode, ibv_alloc_mw(&pd, IBV_MW_TYPE_2));
	CALL_INT("ibv_dealloc_mw", mode, ibv_dealloc_mw(&mw));
	CALL_INT("ibv_bind_mw unbind", mode, ibv_bind_mw(&qp, &mw, &bind));
	bind.bind_info.addr = 1;
	CALL_INT("ibv_bind_mw no-mr-addr", mode,
		 ibv_bind_mw(&qp, &mw, &bind));
	bind.bind_info.addr = 0;
	bind.bind_info.length = 1;
	CALL_INT("ibv_bind_mw no-mr-length", mode,
		 ibv_bind_mw(&qp, &mw, &bind));
	bind.bind_info.mr = &mr;
	CALL_INT("ibv_bind_mw same-pd", mode, ibv_bind_mw(&qp, &mw, &bind));
	mr.pd = &other_pd;
	CALL_INT("ibv_bind_mw other-pd", mode, ibv_bind_mw(&qp, &mw, &bind));
	mw.type = IBV_MW_TYPE_2;
	CALL_INT("ibv_bind_mw type2", mode, ibv_bind_mw(&qp, &mw, &bind));
	CALL_INT("ibv_poll_cq", mode, ibv_poll_cq(&cq, 1, NULL));
	CALL_INT("ibv_req_notify_cq", mode, ibv_req_notify_cq(&cq, 0));
	CALL_INT("ibv_post_srq_recv", mode,
		 ibv_post_srq_recv(&srq, NULL, NULL));
	CALL_INT("ibv_post_send", mode, ibv_post_send(&qp, NULL, NULL));
	CALL_INT("ibv_post_recv", mode, ibv_post_recv(&qp, NULL, NULL));
	CALL_INT("ibv_post_wq_recv", mode, ibv_post_wq_recv(&wq, NULL, NULL));
	fake.context.ops.alloc_mw = NULL;
	CALL_PTR("ibv_alloc_mw unset", mode, ibv_alloc_mw(&pd, IBV_MW_TYPE_2));

	/* the size arguments the wrappers pass to the exported functions */
	called_len = 0;
	CALL_INT("ibv_query_gid_ex", mode,
		 ibv_query_gid_ex(ctx, 1, 0, &gid_entry, 0));
	printf("%sdispatch ibv_query_gid_ex size=%zu\n", pfx, called_len);
	called_len = 0;
	CALL_INT("ibv_query_gid_table", mode,
		 ibv_query_gid_table(ctx, &gid_entry, 1, 0));
	printf("%sdispatch ibv_query_gid_table size=%zu\n", pfx, called_len);

	/* which registration symbol a call compiles to */
	CALL_PTR("ibv_reg_mr const", mode,
		 ibv_reg_mr(&pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE));
	iova_seen = 0;
	CALL_PTR("ibv_reg_mr relaxed", mode,
		 ibv_reg_mr(&pd, buf, sizeof(buf),
			    IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_RELAXED_ORDERING));
	printf("%sdispatch ibv_reg_mr relaxed iova_is_addr=%d\n", pfx,
	       iova_seen == (uintptr_t)buf);
	CALL_PTR("ibv_reg_mr runtime", mode,
		 ibv_reg_mr(&pd, buf, sizeof(buf), runtime_access));
	CALL_PTR("ibv_reg_mr_iova const", mode,
		 ibv_reg_mr_iova(&pd, buf, sizeof(buf), 0x1000,
				 IBV_ACCESS_LOCAL_WRITE));
	iova_seen = 0;
	CALL_PTR("ibv_reg_mr_iova relaxed", mode,
		 ibv_reg_mr_iova(&pd, buf, sizeof(buf), 0x1000,
				 IBV_ACCESS_RELAXED_ORDERING));
	printf("%sdispatch ibv_reg_mr_iova relaxed iova=%#llx\n", pfx,
	       (unsigned long long)iova_seen);
	CALL_PTR("ibv_reg_mr_iova runtime", mode,
		 ibv_reg_mr_iova(&pd, buf, sizeof(buf), 0x1000,
				 runtime_access));
#ifdef EMU_V65
	V65_BEGIN;
	{
		struct ibv_comp_cntr_caps cc_caps;

		called_len = 0;
		CALL_INT("ibv_query_comp_cntr_caps", mode,
			 ibv_query_comp_cntr_caps(ctx, &cc_caps));
		printf("%sdispatch ibv_query_comp_cntr_caps size=%zu\n", pfx,
		       called_len);
	}
	V65_END;
#endif
}

static void dump_dispatch(void)
{
	struct ibv_device_attr_ex dev_attr;
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	struct ibv_port_attr port_attr;

	fake_reset();
	run_dispatch("full");

	/*
	 * The library's copy ends (towards the front) just after
	 * post_srq_ops: that op and every newer one are out of reach.
	 */
	fake_reset();
	fake.sz = sizeof(fake) - offsetof(struct verbs_context, post_srq_ops)
		  - 1;
	run_dispatch("short");

	fake_reset();
	memset(&fake, 0, offsetof(struct verbs_context, _ABI_placeholder3));
	run_dispatch("unset");

	fake_reset();
	fake.context.abi_compat = NULL;
	run_dispatch("legacy");

	fake_reset();
	run_direct_ops();

	/* an input comp_mask bit is refused before any op is looked at */
	fake_reset();
	CALL_INT("ibv_query_device_ex input-mask", "full",
		 ibv_query_device_ex(&fake.context, &in, &dev_attr));
	fake.query_device_ex = stub_query_device_ex_nosup;
	CALL_INT("ibv_query_device_ex eopnotsupp", "full",
		 ibv_query_device_ex(&fake.context, NULL, &dev_attr));
	fake.query_device_ex = stub_query_device_ex_nosys;
	CALL_INT("ibv_query_device_ex enosys", "full",
		 ibv_query_device_ex(&fake.context, NULL, &dev_attr));

	/* the op learns sizeof() of the caller's struct */
	fake_reset();
	fake.query_port = stub_query_port_len;
	called_len = 0;
	(void)ibv_query_port(&fake.context, 1, &port_attr);
#ifdef EMU_V65
	/* 52 bytes from a rdma-core 44 program, 56 from a 65 one */
	V65_BEGIN;
	printf("%sdispatch ibv_query_port op len=%zu\n", pfx, called_len);
	V65_END;
#endif
}

int main(void)
{
	dump_basic();
	dump_device();
	dump_port();
	dump_wc();
	dump_memory();
	dump_address();
	dump_srq_wq();
	dump_qp();
	dump_qp_ex();
	dump_wr();
	dump_cq();
	dump_flow();
	dump_device_context();
	dump_misc();
	dump_verbs_context();
	dump_uverbs();
	dump_prototypes();
	dump_pure_inlines();
	dump_dispatch();
	return 0;
}
