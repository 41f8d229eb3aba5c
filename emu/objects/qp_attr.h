/* The rules of ibv_modify_qp that depend only on the QP type, its states
 * and the attribute values: IBTA's state machine and attribute masks. */
#ifndef EMU_QP_ATTR_H
#define EMU_QP_ATTR_H

#include <infiniband/verbs.h>

struct emu_device;

/* 0 when moving a QP of this type from cur to next with exactly this
 * attr_mask is allowed (every required attribute present, none outside
 * the required and optional sets); EINVAL otherwise, including for a
 * transition IBTA does not define. IBV_QP_STATE must be in the mask. */
int emu_qp_transition_check(enum ibv_qp_type type, enum ibv_qp_state cur,
			    enum ibv_qp_state next, int attr_mask);

/* The mask ibv_modify_qp checks and applies for a QP of this type: an XRC
 * initiator drops the responder's attributes (IBV_QP_MAX_DEST_RD_ATOMIC,
 * IBV_QP_MIN_RNR_TIMER) and an XRC target the requester's
 * (IBV_QP_MAX_QP_RD_ATOMIC, IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY), as the
 * kernel's uverbs layer does before its checks; other types keep it all. */
int emu_qp_modify_mask(enum ibv_qp_type type, int attr_mask);

/* ibv_modify_qp's state rules for a QP now in qp_state: IBV_QP_CUR_STATE,
 * if given, must equal qp_state; without IBV_QP_STATE the call modifies
 * attributes only and is checked as qp_state -> qp_state (valid in INIT,
 * RTS and SQD, and in RESET/ERR with an empty mask), as kernel drivers do.
 * 0 and *next (may be NULL) the state to enter, or EINVAL. */
int emu_qp_modify_check(enum ibv_qp_type type, enum ibv_qp_state qp_state,
			const struct ibv_qp_attr *attr, int attr_mask,
			enum ibv_qp_state *next);

/* 0 when every attribute the mask names has a value this device accepts
 * (port, P_Key index, path MTU, address vector and its GID index, rd_atomic
 * limits, timer and retry ranges, access flags); EINVAL otherwise. */
int emu_qp_attr_values_check(struct emu_device *dev, enum ibv_qp_type type,
			     const struct ibv_qp_attr *attr, int attr_mask);

/* 0 when ibv_qp_init_attr(_ex) capabilities fit the device's limits and
 * the type; EOPNOTSUPP for a known feature the device lacks (raw/driver
 * QPs, create flags, TSO, RSS, send ops such as BIND_MW), EINVAL otherwise
 * (ENOMEM-free: no allocation here). */
int emu_qp_init_attr_check(struct emu_device *dev,
			   const struct ibv_qp_init_attr_ex *init);

#endif
