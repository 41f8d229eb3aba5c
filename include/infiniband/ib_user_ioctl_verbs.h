/*
 * emuverbs: the uverbs enums and structs that <infiniband/verbs.h> builds on
 * (access flags, ESP flow actions, MR advice, GID entries), rdma-core 65 level.
 */
#ifndef IB_USER_IOCTL_VERBS_H
/*
 * The guard name is shared with the kernel's <rdma/ib_user_ioctl_verbs.h>
 * on purpose: whichever copy a program includes first wins and the other
 * is skipped, instead of every enum being defined twice.
 */
#define IB_USER_IOCTL_VERBS_H

#include <linux/types.h>

#if defined(__has_include)
#if __has_include(<rdma/ib_user_verbs.h>)
#include <rdma/ib_user_verbs.h>
#define _EMUV_HAVE_UVERBS_PORT_RESP 1
#endif
#endif

/* Without verbs_api.h a user pointer is carried as a plain aligned u64. */
#ifndef RDMA_UAPI_PTR
#define RDMA_UAPI_PTR(_type, _name) __aligned_u64 _name
#endif

/* Access bits 20..29 may be ignored by a kernel that does not know them. */
#define IB_UVERBS_ACCESS_OPTIONAL_FIRST (1 << 20)
#define IB_UVERBS_ACCESS_OPTIONAL_LAST (1 << 29)

enum ib_uverbs_core_support {
	IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS	= 0x1,
	IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA		= 0x2,
};

enum ib_uverbs_access_flags {
	IB_UVERBS_ACCESS_LOCAL_WRITE		= 0x001,
	IB_UVERBS_ACCESS_REMOTE_WRITE		= 0x002,
	IB_UVERBS_ACCESS_REMOTE_READ		= 0x004,
	IB_UVERBS_ACCESS_REMOTE_ATOMIC		= 0x008,
	IB_UVERBS_ACCESS_MW_BIND		= 0x010,
	IB_UVERBS_ACCESS_ZERO_BASED		= 0x020,
	IB_UVERBS_ACCESS_ON_DEMAND		= 0x040,
	IB_UVERBS_ACCESS_HUGETLB		= 0x080,
	IB_UVERBS_ACCESS_FLUSH_GLOBAL		= 0x100,
	IB_UVERBS_ACCESS_FLUSH_PERSISTENT	= 0x200,

	IB_UVERBS_ACCESS_RELAXED_ORDERING = IB_UVERBS_ACCESS_OPTIONAL_FIRST,
	/* every bit from OPTIONAL_FIRST up to and including OPTIONAL_LAST */
	IB_UVERBS_ACCESS_OPTIONAL_RANGE =
		(IB_UVERBS_ACCESS_OPTIONAL_LAST |
		 (IB_UVERBS_ACCESS_OPTIONAL_LAST - 1)) &
		~(IB_UVERBS_ACCESS_OPTIONAL_FIRST - 1)
};

enum ib_uverbs_srq_type {
	IB_UVERBS_SRQT_BASIC	= 0,
	IB_UVERBS_SRQT_XRC	= 1,
	IB_UVERBS_SRQT_TM	= 2,
};

enum ib_uverbs_wq_type {
	IB_UVERBS_WQT_RQ	= 0,
};

enum ib_uverbs_wq_flags {
	IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING		= 0x1,
	IB_UVERBS_WQ_FLAGS_SCATTER_FCS			= 0x2,
	IB_UVERBS_WQ_FLAGS_DELAY_DROP			= 0x4,
	IB_UVERBS_WQ_FLAGS_PCI_WRITE_END_PADDING	= 0x8,
};

enum ib_uverbs_qp_type {
	IB_UVERBS_QPT_RC		= 2,
	IB_UVERBS_QPT_UC		= 3,
	IB_UVERBS_QPT_UD		= 4,
	IB_UVERBS_QPT_RAW_PACKET	= 8,
	IB_UVERBS_QPT_XRC_INI		= 9,
	IB_UVERBS_QPT_XRC_TGT		= 10,
	IB_UVERBS_QPT_DRIVER		= 255,
};

enum ib_uverbs_qp_create_flags {
	IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK	= 1 << 1,
	IB_UVERBS_QP_CREATE_SCATTER_FCS			= 1 << 8,
	IB_UVERBS_QP_CREATE_CVLAN_STRIPPING		= 1 << 9,
	IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING	= 1 << 11,
	IB_UVERBS_QP_CREATE_SQ_SIG_ALL			= 1 << 12,
};

/*
 * Bit 31 does not fit an int; ISO C before C23 complains about that under
 * -pedantic even though every compiler we care about handles it.
 */
#if defined(__GNUC__) && !defined(__cplusplus)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
enum ib_uverbs_query_port_cap_flags {
	IB_UVERBS_PCF_SM				= 1 << 1,
	IB_UVERBS_PCF_NOTICE_SUP			= 1 << 2,
	IB_UVERBS_PCF_TRAP_SUP				= 1 << 3,
	IB_UVERBS_PCF_OPT_IPD_SUP			= 1 << 4,
	IB_UVERBS_PCF_AUTO_MIGR_SUP			= 1 << 5,
	IB_UVERBS_PCF_SL_MAP_SUP			= 1 << 6,
	IB_UVERBS_PCF_MKEY_NVRAM			= 1 << 7,
	IB_UVERBS_PCF_PKEY_NVRAM			= 1 << 8,
	IB_UVERBS_PCF_LED_INFO_SUP			= 1 << 9,
	IB_UVERBS_PCF_SM_DISABLED			= 1 << 10,
	IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP		= 1 << 11,
	IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP		= 1 << 12,
	IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP		= 1 << 14,
	IB_UVERBS_PCF_CM_SUP				= 1 << 16,
	IB_UVERBS_PCF_SNMP_TUNNEL_SUP			= 1 << 17,
	IB_UVERBS_PCF_REINIT_SUP			= 1 << 18,
	IB_UVERBS_PCF_DEVICE_MGMT_SUP			= 1 << 19,
	IB_UVERBS_PCF_VENDOR_CLASS_SUP			= 1 << 20,
	IB_UVERBS_PCF_DR_NOTICE_SUP			= 1 << 21,
	IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP		= 1 << 22,
	IB_UVERBS_PCF_BOOT_MGMT_SUP			= 1 << 23,
	IB_UVERBS_PCF_LINK_LATENCY_SUP			= 1 << 24,
	IB_UVERBS_PCF_CLIENT_REG_SUP			= 1 << 25,
	IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP	= 1 << 27,
	IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP	= 1 << 28,
	IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP	= 1 << 29,
	IB_UVERBS_PCF_MCAST_FDB_TOP_SUP			= 1 << 30,
	IB_UVERBS_PCF_HIERARCHY_INFO_SUP		= 1ULL << 31,

	/*
	 * Not an IBTA bit: the kernel reuses bit 26 to say the GID table is
	 * derived from IP addresses (RoCE).
	 */
	IB_UVERBS_PCF_IP_BASED_GIDS			= 1 << 26,
};
#if defined(__GNUC__) && !defined(__cplusplus)
#pragma GCC diagnostic pop
#endif

enum ib_uverbs_query_port_flags {
	IB_UVERBS_QPF_GRH_REQUIRED	= 0x1,
};

/* IPsec ESP flow actions: key material, replay protection, encapsulation */
enum ib_uverbs_flow_action_esp_keymat {
	IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM	= 0,
};

enum ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo {
	IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ	= 0,
};

struct ib_uverbs_flow_action_esp_keymat_aes_gcm {
	__aligned_u64	iv;
	__u32		iv_algo;	/* enum ..._aes_gcm_iv_algo */
	__u32		salt;
	__u32		icv_len;
	__u32		key_len;
	__u32		aes_key[8];	/* up to 256 bits */
};

enum ib_uverbs_flow_action_esp_replay {
	IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE	= 0,
	IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP	= 1,
};

struct ib_uverbs_flow_action_esp_replay_bmp {
	__u32	size;
};

/* Each pair below is one bit: the zero value names the default choice. */
enum ib_uverbs_flow_action_esp_flags {
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO	= 0x0,
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD	= 0x1,

	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL		= 0x0,
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TRANSPORT	= 0x2,

	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_DECRYPT		= 0x0,
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ENCRYPT		= 0x4,

	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW	= 0x8,
};

/* A linked list of flow filters that wrap the payload in tunnel mode. */
struct ib_uverbs_flow_action_esp_encap {
	RDMA_UAPI_PTR(void *, val_ptr);
	RDMA_UAPI_PTR(struct ib_uverbs_flow_action_esp_encap *, next_ptr);
	__u16	len;	/* size of the filter val_ptr points at */
	__u16	type;	/* an ibv_flow_spec_type */
};

struct ib_uverbs_flow_action_esp {
	__u32		spi;
	__u32		seq;
	__u32		tfc_pad;
	__u32		flags;
	__aligned_u64	hard_limit_pkts;
};

enum ib_uverbs_read_counters_flags {
	IB_UVERBS_READ_COUNTERS_PREFER_CACHED	= 0x1,
};

enum ib_uverbs_advise_mr_advice {
	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH		= 0,
	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE	= 1,
	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT	= 2,
};

enum ib_uverbs_advise_mr_flag {
	IB_UVERBS_ADVISE_MR_FLAG_FLUSH	= 0x1,
};

#ifdef _EMUV_HAVE_UVERBS_PORT_RESP
/* The kernel's extended query-port answer; the legacy part comes first. */
struct ib_uverbs_query_port_resp_ex {
	struct ib_uverbs_query_port_resp legacy_resp;
	__u16	port_cap_flags2;
	__u8	reserved[2];
	__u32	active_speed_ex;
};
#undef _EMUV_HAVE_UVERBS_PORT_RESP
#endif

struct ib_uverbs_qp_cap {
	__u32	max_send_wr;
	__u32	max_recv_wr;
	__u32	max_send_sge;
	__u32	max_recv_sge;
	__u32	max_inline_data;
};

enum rdma_driver_id {
	RDMA_DRIVER_UNKNOWN	= 0,
	RDMA_DRIVER_MLX5	= 1,
	RDMA_DRIVER_MLX4	= 2,
	RDMA_DRIVER_CXGB3	= 3,
	RDMA_DRIVER_CXGB4	= 4,
	RDMA_DRIVER_MTHCA	= 5,
	RDMA_DRIVER_BNXT_RE	= 6,
	RDMA_DRIVER_OCRDMA	= 7,
	RDMA_DRIVER_NES		= 8,
	RDMA_DRIVER_I40IW	= 9,
	RDMA_DRIVER_IRDMA	= RDMA_DRIVER_I40IW,	/* i40iw's successor */
	RDMA_DRIVER_VMW_PVRDMA	= 10,
	RDMA_DRIVER_QEDR	= 11,
	RDMA_DRIVER_HNS		= 12,
	RDMA_DRIVER_USNIC	= 13,
	RDMA_DRIVER_RXE		= 14,
	RDMA_DRIVER_HFI1	= 15,
	RDMA_DRIVER_QIB		= 16,
	RDMA_DRIVER_EFA		= 17,
	RDMA_DRIVER_SIW		= 18,
	RDMA_DRIVER_ERDMA	= 19,
	RDMA_DRIVER_MANA	= 20,
	RDMA_DRIVER_IONIC	= 21,
};

enum ib_uverbs_gid_type {
	IB_UVERBS_GID_TYPE_IB		= 0,
	IB_UVERBS_GID_TYPE_ROCE_V1	= 1,
	IB_UVERBS_GID_TYPE_ROCE_V2	= 2,
};

struct ib_uverbs_gid_entry {
	__aligned_u64	gid[2];
	__u32		gid_index;
	__u32		port_num;
	__u32		gid_type;
	__u32		netdev_ifindex;	/* 0: no net device behind it */
};

enum ib_uverbs_buffer_type {
	IB_UVERBS_BUFFER_TYPE_DMABUF	= 0,
	IB_UVERBS_BUFFER_TYPE_VA	= 1,
};

/*
 * One buffer, either a dma-buf (fd + offset in addr) or plain user memory
 * (virtual address in addr). Unknown bits in flags are rejected, unknown
 * bits in optional_flags are ignored.
 */
struct ib_uverbs_buffer_desc {
	__u32		type;		/* enum ib_uverbs_buffer_type */
	__s32		fd;
	__u32		flags;
	__u32		optional_flags;
	__aligned_u64	addr;
	__aligned_u64	length;
};

enum ib_uverbs_comp_cntr_entry {
	IB_UVERBS_COMP_CNTR_ENTRY_COMP	= 0,
	IB_UVERBS_COMP_CNTR_ENTRY_ERR	= 1,
};

enum ib_uverbs_comp_cntr_modify_op {
	IB_UVERBS_COMP_CNTR_MODIFY_OP_SET	= 0,
	IB_UVERBS_COMP_CNTR_MODIFY_OP_INC	= 1,
};

enum ib_uverbs_qp_attach_comp_cntr_op {
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND			= 0x01,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV			= 0x02,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ		= 0x04,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ	= 0x08,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE		= 0x10,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE	= 0x20,
};

#endif /* IB_USER_IOCTL_VERBS_H */
