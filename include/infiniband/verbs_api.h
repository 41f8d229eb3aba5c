/*
 * emuverbs: RDMA_UAPI_PTR and the ibv_* spellings of the uverbs enums and
 * structs that <infiniband/verbs.h> uses (ESP flow actions, MR advice, ...).
 */
#ifndef VERBS_API_H
#define VERBS_API_H

#include <stdint.h>
#include <endian.h>

/*
 * A user pointer that the kernel ABI always carries in 64 bits. On 32-bit
 * hosts the pointer shares the low-address half with a reserved word, on
 * whichever side byte order puts the low 32 bits of the u64.
 */
/* The kernel's uapi header may have defined the plain u64 form first. */
#undef RDMA_UAPI_PTR
#if UINTPTR_MAX == UINT64_MAX
#define RDMA_UAPI_PTR(_type, _name)					\
	__extension__ union {						\
		_type _name;						\
		__aligned_u64 _name##_data_u64;				\
	}
#elif UINTPTR_MAX == UINT32_MAX
#if __BYTE_ORDER == __BIG_ENDIAN
#define RDMA_UAPI_PTR(_type, _name)					\
	__extension__ union {						\
		__extension__ struct {					\
			__u32 _name##_reserved;				\
			_type _name;					\
		};							\
		__aligned_u64 _name##_data_u64;				\
	}
#else
#define RDMA_UAPI_PTR(_type, _name)					\
	__extension__ union {						\
		__extension__ struct {					\
			_type _name;					\
			__u32 _name##_reserved;				\
		};							\
		__aligned_u64 _name##_data_u64;				\
	}
#endif
#else
#error "emuverbs: unsupported pointer width"
#endif

#include <infiniband/ib_user_ioctl_verbs.h>

/* ESP flow action types are the kernel's, under libibverbs names. */
#define ibv_flow_action_esp_keymat	ib_uverbs_flow_action_esp_keymat
#define ibv_flow_action_esp_keymat_aes_gcm_iv_algo \
	ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo
#define ibv_flow_action_esp_keymat_aes_gcm \
	ib_uverbs_flow_action_esp_keymat_aes_gcm
#define ibv_flow_action_esp_replay	ib_uverbs_flow_action_esp_replay
#define ibv_flow_action_esp_replay_bmp	ib_uverbs_flow_action_esp_replay_bmp
#define ibv_flow_action_esp_flags	ib_uverbs_flow_action_esp_flags
#define ibv_flow_action_esp_encap	ib_uverbs_flow_action_esp_encap
#define ibv_flow_action_esp		ib_uverbs_flow_action_esp

#define IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM \
	IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM
#define IBV_FLOW_ACTION_IV_ALGO_SEQ	IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ
#define IBV_FLOW_ACTION_ESP_REPLAY_NONE	IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE
#define IBV_FLOW_ACTION_ESP_REPLAY_BMP	IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP
#define IBV_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO
#define IBV_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD
#define IBV_FLOW_ACTION_ESP_FLAGS_TUNNEL \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL
#define IBV_FLOW_ACTION_ESP_FLAGS_TRANSPORT \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TRANSPORT
#define IBV_FLOW_ACTION_ESP_FLAGS_DECRYPT \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_DECRYPT
#define IBV_FLOW_ACTION_ESP_FLAGS_ENCRYPT \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ENCRYPT
#define IBV_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW

/* ibv_advise_mr() advice and flags */
#define ibv_advise_mr_advice		ib_uverbs_advise_mr_advice
#define IBV_ADVISE_MR_ADVICE_PREFETCH	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH
#define IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE \
	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE
#define IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT \
	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT
#define IBV_ADVISE_MR_FLAG_FLUSH	IB_UVERBS_ADVISE_MR_FLAG_FLUSH

/* ibv_port_attr.flags */
#define IBV_QPF_GRH_REQUIRED		IB_UVERBS_QPF_GRH_REQUIRED

/* MR access bits a kernel may silently drop (see ibv_reg_mr below) */
#define IBV_ACCESS_OPTIONAL_RANGE	IB_UVERBS_ACCESS_OPTIONAL_RANGE
#define IBV_ACCESS_OPTIONAL_FIRST	IB_UVERBS_ACCESS_OPTIONAL_FIRST

#endif /* VERBS_API_H */
