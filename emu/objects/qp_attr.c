/* The QP state machine and the attribute rules of ibv_modify_qp and
 * ibv_create_qp(_ex): IBTA's masks per transition and type, value ranges. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/names.h"
#include "emu/objects/qp_attr.h"

/* Short names keep the table below readable. */
#define M_STATE		IBV_QP_STATE
#define M_CUR		IBV_QP_CUR_STATE
#define M_SQD_NOTIFY	IBV_QP_EN_SQD_ASYNC_NOTIFY
#define M_ACCESS	IBV_QP_ACCESS_FLAGS
#define M_PKEY		IBV_QP_PKEY_INDEX
#define M_PORT		IBV_QP_PORT
#define M_QKEY		IBV_QP_QKEY
#define M_AV		IBV_QP_AV
#define M_MTU		IBV_QP_PATH_MTU
#define M_TIMEOUT	IBV_QP_TIMEOUT
#define M_RETRY		IBV_QP_RETRY_CNT
#define M_RNR_RETRY	IBV_QP_RNR_RETRY
#define M_RQ_PSN	IBV_QP_RQ_PSN
#define M_RD_ATOMIC	IBV_QP_MAX_QP_RD_ATOMIC
#define M_ALT		IBV_QP_ALT_PATH
#define M_RNR_TIMER	IBV_QP_MIN_RNR_TIMER
#define M_SQ_PSN	IBV_QP_SQ_PSN
#define M_DEST_RD	IBV_QP_MAX_DEST_RD_ATOMIC
#define M_MIG		IBV_QP_PATH_MIG_STATE
#define M_CAP		IBV_QP_CAP
#define M_DEST_QPN	IBV_QP_DEST_QPN
#define M_RATE_LIMIT	IBV_QP_RATE_LIMIT

#define M_KNOWN (M_STATE | M_CUR | M_SQD_NOTIFY | M_ACCESS | M_PKEY |	\
		 M_PORT | M_QKEY | M_AV | M_MTU | M_TIMEOUT | M_RETRY |	\
		 M_RNR_RETRY | M_RQ_PSN | M_RD_ATOMIC | M_ALT |		\
		 M_RNR_TIMER | M_SQ_PSN | M_DEST_RD | M_MIG | M_CAP |	\
		 M_DEST_QPN | M_RATE_LIMIT)

/* Column of the table for each QP type we model. */
enum { T_RC, T_UC, T_UD, T_XSND, T_XRCV, T_N };

static int type_col(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return T_RC;
	case IBV_QPT_UC:
		return T_UC;
	case IBV_QPT_UD:
		return T_UD;
	case IBV_QPT_XRC_SEND:
		return T_XSND;
	case IBV_QPT_XRC_RECV:
		return T_XRCV;
	default:
		return -1;
	}
}

struct qp_trans {
	bool valid;
	int req[T_N];
	int opt[T_N];
};

#define NSTATES (IBV_QPS_ERR + 1)

/* Attributes that may change while the QP returns to RTS (from RTR, RTS
 * itself, or SQD): per IBTA the current-state hint, Q_Key, access flags,
 * the alternate path and its migration state; RC and the XRC target also
 * the RNR timer, which only a responder uses. */
#define TO_RTS_OPT {							\
	[T_RC] = M_CUR | M_ALT | M_ACCESS | M_RNR_TIMER | M_MIG,	\
	[T_UC] = M_CUR | M_ALT | M_ACCESS | M_MIG,			\
	[T_UD] = M_CUR | M_QKEY,					\
	[T_XSND] = M_CUR | M_ALT | M_ACCESS | M_MIG,			\
	[T_XRCV] = M_CUR | M_ALT | M_ACCESS | M_RNR_TIMER | M_MIG,	\
}

#define TO_RESET_OR_ERR \
	[IBV_QPS_RESET] = { .valid = true }, [IBV_QPS_ERR] = { .valid = true }

/*
 * qp_trans[cur][next]: the IBTA QP state diagram (Vol 1, 10.3.1) with the
 * required and optional attributes of its Modify QP tables (11.2.5), in
 * the form Linux's ib_modify_qp_is_ok() applies them. IBV_QP_STATE itself
 * is implied. Every state may go to RESET and ERR, with nothing else.
 */
static const struct qp_trans qp_trans[NSTATES][NSTATES] = {
	[IBV_QPS_RESET] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_INIT] = {
			.valid = true,
			.req = {
				[T_RC] = M_PKEY | M_PORT | M_ACCESS,
				[T_UC] = M_PKEY | M_PORT | M_ACCESS,
				[T_UD] = M_PKEY | M_PORT | M_QKEY,
				[T_XSND] = M_PKEY | M_PORT | M_ACCESS,
				[T_XRCV] = M_PKEY | M_PORT | M_ACCESS,
			},
		},
	},
	[IBV_QPS_INIT] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_INIT] = {
			.valid = true,
			.opt = {
				[T_RC] = M_PKEY | M_PORT | M_ACCESS,
				[T_UC] = M_PKEY | M_PORT | M_ACCESS,
				[T_UD] = M_PKEY | M_PORT | M_QKEY,
				[T_XSND] = M_PKEY | M_PORT | M_ACCESS,
				[T_XRCV] = M_PKEY | M_PORT | M_ACCESS,
			},
		},
		[IBV_QPS_RTR] = {
			.valid = true,
			/* The responder side comes up here: the path, the
			 * remote QP, the expected PSN; RC and the XRC
			 * target also their read/atomic resources and RNR
			 * timer. A UD QP needs nothing new. */
			.req = {
				[T_RC] = M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN |
					 M_DEST_RD | M_RNR_TIMER,
				[T_UC] = M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN,
				[T_XSND] = M_AV | M_MTU | M_DEST_QPN |
					   M_RQ_PSN,
				[T_XRCV] = M_AV | M_MTU | M_DEST_QPN |
					   M_RQ_PSN | M_DEST_RD | M_RNR_TIMER,
			},
			.opt = {
				[T_RC] = M_ALT | M_ACCESS | M_PKEY,
				[T_UC] = M_ALT | M_ACCESS | M_PKEY,
				[T_UD] = M_PKEY | M_QKEY,
				[T_XSND] = M_ALT | M_ACCESS | M_PKEY,
				[T_XRCV] = M_ALT | M_ACCESS | M_PKEY,
			},
		},
	},
	[IBV_QPS_RTR] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_RTS] = {
			.valid = true,
			/* The requester side: first PSN, and for a reliable
			 * sender its ACK timeout, retries and outstanding
			 * reads. The XRC target only responds, but IBTA
			 * still has it carry a timeout and an SQ PSN. */
			.req = {
				[T_RC] = M_TIMEOUT | M_RETRY | M_RNR_RETRY |
					 M_SQ_PSN | M_RD_ATOMIC,
				[T_UC] = M_SQ_PSN,
				[T_UD] = M_SQ_PSN,
				[T_XSND] = M_TIMEOUT | M_RETRY | M_RNR_RETRY |
					   M_SQ_PSN | M_RD_ATOMIC,
				[T_XRCV] = M_TIMEOUT | M_SQ_PSN,
			},
			.opt = TO_RTS_OPT,
		},
	},
	[IBV_QPS_RTS] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_RTS] = { .valid = true, .opt = TO_RTS_OPT },
		[IBV_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_RC] = M_SQD_NOTIFY,
				[T_UC] = M_SQD_NOTIFY,
				[T_UD] = M_SQD_NOTIFY,
				[T_XSND] = M_SQD_NOTIFY,
				[T_XRCV] = M_SQD_NOTIFY,
			},
		},
	},
	[IBV_QPS_SQD] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_RTS] = { .valid = true, .opt = TO_RTS_OPT },
		/* A drained send queue is where IBTA lets the path and the
		 * requester/responder parameters change. */
		[IBV_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_RC] = M_PORT | M_AV | M_TIMEOUT | M_RETRY |
					 M_RNR_RETRY | M_RD_ATOMIC | M_DEST_RD |
					 M_ALT | M_ACCESS | M_PKEY |
					 M_RNR_TIMER | M_MIG,
				[T_UC] = M_AV | M_ALT | M_ACCESS | M_PKEY |
					 M_MIG,
				[T_UD] = M_PKEY | M_QKEY,
				[T_XSND] = M_PORT | M_AV | M_TIMEOUT |
					   M_RETRY | M_RNR_RETRY |
					   M_RD_ATOMIC | M_ALT | M_ACCESS |
					   M_PKEY | M_MIG,
				[T_XRCV] = M_PORT | M_AV | M_TIMEOUT |
					   M_DEST_RD | M_ALT | M_ACCESS |
					   M_PKEY | M_RNR_TIMER | M_MIG,
			},
		},
	},
	[IBV_QPS_SQE] = {
		TO_RESET_OR_ERR,
		/* Only UD and UC QPs ever reach SQE (a reliable QP goes to
		 * ERR instead); the kernel keeps the entry valid for every
		 * type with nothing optional, and so do we. */
		[IBV_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_UC] = M_CUR | M_ACCESS,
				[T_UD] = M_CUR | M_QKEY,
			},
		},
	},
	[IBV_QPS_ERR] = {
		TO_RESET_OR_ERR,
	},
};

/*
 * Programs set up both halves of an XRC connection with one RC-style mask
 * (perftest does), so the half a type does not have is ignored rather
 * than refused: Linux's uverbs modify_qp_mask() strips these bits before
 * ib_modify_qp_is_ok() sees the mask, and they are then never applied.
 */
int emu_qp_modify_mask(enum ibv_qp_type type, int attr_mask)
{
	switch (type) {
	case IBV_QPT_XRC_SEND:
		return attr_mask & ~(M_DEST_RD | M_RNR_TIMER);
	case IBV_QPT_XRC_RECV:
		return attr_mask & ~(M_RD_ATOMIC | M_RETRY | M_RNR_RETRY);
	default:
		return attr_mask;
	}
}

static bool state_ok(int s)
{
	return s >= IBV_QPS_RESET && s <= IBV_QPS_ERR;
}

/* ---- names for the refusal log (emu/base/log.h) ------------------------- */

/* The name of the lowest attribute bit in mask: a refusal names one. */
static const char *mask_bit_name(int mask)
{
	static const char *const names[] = {
		"IBV_QP_STATE", "IBV_QP_CUR_STATE",
		"IBV_QP_EN_SQD_ASYNC_NOTIFY", "IBV_QP_ACCESS_FLAGS",
		"IBV_QP_PKEY_INDEX", "IBV_QP_PORT", "IBV_QP_QKEY",
		"IBV_QP_AV", "IBV_QP_PATH_MTU", "IBV_QP_TIMEOUT",
		"IBV_QP_RETRY_CNT", "IBV_QP_RNR_RETRY", "IBV_QP_RQ_PSN",
		"IBV_QP_MAX_QP_RD_ATOMIC", "IBV_QP_ALT_PATH",
		"IBV_QP_MIN_RNR_TIMER", "IBV_QP_SQ_PSN",
		"IBV_QP_MAX_DEST_RD_ATOMIC", "IBV_QP_PATH_MIG_STATE",
		"IBV_QP_CAP", "IBV_QP_DEST_QPN", "bit 21", "bit 22",
		"bit 23", "bit 24", "IBV_QP_RATE_LIMIT",
	};
	unsigned int bit;

	if (!mask)
		return "no bit";
	bit = (unsigned int)__builtin_ctz((unsigned int)mask);
	return bit < sizeof(names) / sizeof(names[0]) ? names[bit] :
							"an unknown bit";
}

int emu_qp_transition_check(enum ibv_qp_type type, enum ibv_qp_state cur,
			    enum ibv_qp_state next, int attr_mask)
{
	const struct qp_trans *t;
	int col = type_col(type);
	int req, opt;

	if (col < 0)
		return emu_refuse(EINVAL, "ibv_modify_qp: QP type %d has no "
				  "state machine here", (int)type);
	if (!state_ok(cur) || !state_ok(next))
		return emu_refuse(EINVAL, "ibv_modify_qp: state %d -> %d: "
				  "not QP states", (int)cur, (int)next);
	if (!(attr_mask & M_STATE))
		return emu_refuse(EINVAL, "ibv_modify_qp: attr_mask lacks "
				  "IBV_QP_STATE");
	/* IBTA accepts the current-state hint only when leaving RTR, RTS,
	 * SQD or SQE (the states a consumer may not be sure the QP is in)
	 * for RTS: the table has M_CUR in those entries' options only. */
	t = &qp_trans[cur][next];
	if (!t->valid)
		return emu_refuse(EINVAL, "ibv_modify_qp: %s QP cannot go "
				  "from %s to %s", emu_qp_type_name(type),
				  emu_qp_state_name(cur),
				  emu_qp_state_name(next));
	req = t->req[col];
	opt = t->opt[col];
	if ((attr_mask & req) != req)
		return emu_refuse(EINVAL, "ibv_modify_qp: attr_mask lacks %s, "
				  "required for %s->%s of %s",
				  mask_bit_name(req & ~attr_mask),
				  emu_qp_state_name(cur),
				  emu_qp_state_name(next),
				  emu_qp_type_name(type));
	if (attr_mask & ~(req | opt | M_STATE))
		return emu_refuse(EINVAL, "ibv_modify_qp: attr_mask has %s, "
				  "not allowed for %s->%s of %s",
				  mask_bit_name(attr_mask &
						~(req | opt | M_STATE)),
				  emu_qp_state_name(cur),
				  emu_qp_state_name(next),
				  emu_qp_type_name(type));
	return 0;
}

int emu_qp_modify_check(enum ibv_qp_type type, enum ibv_qp_state qp_state,
			const struct ibv_qp_attr *attr, int attr_mask,
			enum ibv_qp_state *next)
{
	enum ibv_qp_state to = qp_state;
	int err;

	if (!attr)
		return emu_refuse(EINVAL, "ibv_modify_qp: attr is NULL");
	if (!state_ok(qp_state))
		return emu_refuse(EINVAL, "ibv_modify_qp: the QP is in no "
				  "state (%d)", (int)qp_state);
	/* The hint is checked, not believed: the emulator knows the state,
	 * and a consumer that guessed wrong must not get a transition the
	 * real state does not allow. */
	if ((attr_mask & M_CUR) && attr->cur_qp_state != qp_state)
		return emu_refuse(EINVAL, "ibv_modify_qp: cur_qp_state %s, "
				  "but the QP is in %s",
				  emu_qp_state_name(attr->cur_qp_state),
				  emu_qp_state_name(qp_state));
	if (attr_mask & M_STATE) {
		if (!state_ok(attr->qp_state))
			return emu_refuse(EINVAL, "ibv_modify_qp: qp_state %d "
					  "is not a QP state",
					  (int)attr->qp_state);
		to = attr->qp_state;
	}
	/* Without IBV_QP_STATE the kernel drivers read the call as
	 * cur -> cur with the same mask, so only states with a self loop
	 * (INIT, RTS, SQD, and RESET/ERR with nothing else) accept it. */
	err = emu_qp_transition_check(type, qp_state, to,
				      attr_mask | M_STATE);
	if (err)
		return err;
	if (next)
		*next = to;
	return 0;
}

/* ---- attribute values ------------------------------------------------ */

#define PSN_MASK	0xffffffu	/* PSNs and QPNs are 24-bit */

static uint32_t mtu_bytes(enum ibv_mtu mtu)
{
	switch (mtu) {
	case IBV_MTU_256:
		return 256;
	case IBV_MTU_512:
		return 512;
	case IBV_MTU_1024:
		return 1024;
	case IBV_MTU_2048:
		return 2048;
	case IBV_MTU_4096:
		return 4096;
	default:
		return 0;
	}
}

/* IBTA StaticRate encodings ibv_rate names: 0 (port rate) and 2..24. */
static bool static_rate_ok(uint8_t rate)
{
	return rate == IBV_RATE_MAX ||
	       (rate >= IBV_RATE_2_5_GBPS && rate <= IBV_RATE_1200_GBPS);
}

/*
 * The port an attribute refers to when the mask does not name one: the
 * address vector's if present (the kernel insists it equals the QP's
 * port), else the IBV_QP_PORT being set. NULL when neither is there; the
 * caller then checks against the most permissive port, and the QP layer,
 * which knows its own port, narrows it.
 */
static struct emu_port *attr_port(struct emu_device *dev,
				  const struct ibv_qp_attr *attr,
				  int attr_mask)
{
	if (attr_mask & M_AV)
		return emu_device_port(dev, attr->ah_attr.port_num);
	if (attr_mask & M_PORT)
		return emu_device_port(dev, attr->port_num);
	return NULL;
}

static bool pkey_index_ok(struct emu_device *dev, struct emu_port *port,
			  uint16_t index)
{
	unsigned int i;

	if (port)
		return index < port->cfg.pkey_tbl_len;
	for (i = 1; i <= dev->nports; i++)
		if (index < emu_device_port(dev, i)->cfg.pkey_tbl_len)
			return true;
	return false;
}

static bool path_mtu_ok(struct emu_device *dev, struct emu_port *port,
			enum ibv_mtu mtu)
{
	uint32_t bytes = mtu_bytes(mtu);
	unsigned int i;

	if (!bytes)
		return false;
	if (port)
		return bytes <= port->cfg.mtu;
	for (i = 1; i <= dev->nports; i++)
		if (bytes <= emu_device_port(dev, i)->cfg.mtu)
			return true;
	return false;
}

/*
 * A primary-path address vector. Traffic is RoCEv2 whatever the port
 * claims, so the peer is found through the GRH: on an Ethernet port it is
 * mandatory (as on any RoCE HCA) and the LID is ignored; on an IB port it
 * is optional. A GRH must name a filled slot of the port's GID table.
 */
/* Prefixes of the refusal messages: the verb whose rule refused. */
#define MOD "ibv_modify_qp: "
#define CRE "ibv_create_qp: "

static int ah_attr_check(struct emu_device *dev, const struct ibv_ah_attr *ah)
{
	struct emu_port *port = emu_device_port(dev, ah->port_num);
	struct ibv_gid_entry entry;

	if (!port)
		return emu_refuse(EINVAL, MOD "ah_attr.port_num %u: no such "
				  "port", ah->port_num);
	if (ah->sl > 15)
		return emu_refuse(EINVAL, MOD "ah_attr.sl %u > 15", ah->sl);
	if (!static_rate_ok(ah->static_rate))
		return emu_refuse(EINVAL, MOD "ah_attr.static_rate %u is no "
				  "IBTA rate", ah->static_rate);
	if (port->cfg.link_layer == IBV_LINK_LAYER_ETHERNET && !ah->is_global)
		return emu_refuse(EINVAL, MOD "ah_attr.is_global 0: RoCE "
				  "needs a GRH");
	if (!ah->is_global)
		return 0;
	/* Any flow label goes: the kernel passes all 32 bits through and
	 * the device keeps the low 20 (emu_qp_modify stores those). */
	if (emu_gid_table_query(&port->gids, ah->grh.sgid_index, &entry))
		return emu_refuse(EINVAL, MOD "ah_attr.grh.sgid_index %u: no "
				  "GID there on port %u", ah->grh.sgid_index,
				  ah->port_num);
	return 0;
}

/* What a QP's access flags may hold: IBTA's three remote enables. Local
 * write is accepted and ignored, as the kernel does: many programs pass
 * their MR flags here, and a QP's local writes are always allowed. So is
 * ON_DEMAND, an MR flag rdma-core's test_odp passes the same way: mlx5
 * reads only the remote enables (to_mlx5_access_flags()). */
int emu_qp_attr_values_check(struct emu_device *dev, enum ibv_qp_type type,
			     const struct ibv_qp_attr *attr, int attr_mask)
{
	const struct emu_limits *lim;
	struct emu_port *port;
	int rc;

	if (!dev || !attr)
		return emu_refuse(EINVAL, MOD "no device or attr");
	if (type_col(type) < 0)
		return emu_refuse(EINVAL, MOD "QP type %d not modelled",
				  (int)type);
	if (attr_mask & ~M_KNOWN)
		return emu_refuse(EINVAL, MOD "attr_mask has %s, unknown",
				  mask_bit_name(attr_mask & ~M_KNOWN));
	lim = &dev->cfg.limits;

	if ((attr_mask & M_STATE) && !state_ok(attr->qp_state))
		return emu_refuse(EINVAL, MOD "qp_state %d is not a QP state",
				  (int)attr->qp_state);
	if ((attr_mask & M_CUR) && !state_ok(attr->cur_qp_state))
		return emu_refuse(EINVAL, MOD "cur_qp_state %d is not a QP "
				  "state", (int)attr->cur_qp_state);
	/* Not modelled: automatic path migration (no alternate path can be
	 * loaded, so only the MIGRATED state makes sense), QP resizing
	 * (IBV_DEVICE_RESIZE_MAX_WR is not advertised) and packet pacing. */
	if (attr_mask & (M_ALT | M_CAP | M_RATE_LIMIT))
		return emu_refuse(EINVAL, MOD "attr_mask has %s, not modelled",
				  mask_bit_name(attr_mask & (M_ALT | M_CAP |
							     M_RATE_LIMIT)));
	if ((attr_mask & M_MIG) && attr->path_mig_state != IBV_MIG_MIGRATED)
		return emu_refuse(EINVAL, MOD "path_mig_state %d: only "
				  "IBV_MIG_MIGRATED (no alternate path)",
				  (int)attr->path_mig_state);

	if ((attr_mask & M_PORT) && !emu_device_port(dev, attr->port_num))
		return emu_refuse(EINVAL, MOD "port_num %u: no such port",
				  attr->port_num);
	if (attr_mask & M_AV) {
		rc = ah_attr_check(dev, &attr->ah_attr);
		if (rc)
			return rc;
		/* Both in one call (SQD->SQD): the path's port is the
		 * QP's port, so they must agree, as the kernel demands. */
		if ((attr_mask & M_PORT) &&
		    attr->port_num != attr->ah_attr.port_num)
			return emu_refuse(EINVAL, MOD "port_num %u but "
					  "ah_attr.port_num %u",
					  attr->port_num,
					  attr->ah_attr.port_num);
	}
	port = attr_port(dev, attr, attr_mask);
	if ((attr_mask & M_PKEY) && !pkey_index_ok(dev, port,
						   attr->pkey_index))
		return emu_refuse(EINVAL, MOD "pkey_index %u past the P_Key "
				  "table", attr->pkey_index);
	if ((attr_mask & M_MTU) && !path_mtu_ok(dev, port, attr->path_mtu))
		return emu_refuse(EINVAL, MOD "path_mtu %d: not an MTU, or "
				  "above the port's", (int)attr->path_mtu);

	/* IBTA field widths: 5-bit timers, 3-bit retry counters. */
	if ((attr_mask & M_TIMEOUT) && attr->timeout > 31)
		return emu_refuse(EINVAL, MOD "timeout %u > 31",
				  attr->timeout);
	if ((attr_mask & M_RETRY) && attr->retry_cnt > 7)
		return emu_refuse(EINVAL, MOD "retry_cnt %u > 7",
				  attr->retry_cnt);
	if ((attr_mask & M_RNR_RETRY) && attr->rnr_retry > 7)
		return emu_refuse(EINVAL, MOD "rnr_retry %u > 7",
				  attr->rnr_retry);
	if ((attr_mask & M_RNR_TIMER) && attr->min_rnr_timer > 31)
		return emu_refuse(EINVAL, MOD "min_rnr_timer %u > 31",
				  attr->min_rnr_timer);

	if ((attr_mask & M_RD_ATOMIC) &&
	    attr->max_rd_atomic > lim->max_qp_init_rd_atom)
		return emu_refuse(EINVAL, MOD "max_rd_atomic %u > "
				  "max_qp_init_rd_atom %u",
				  attr->max_rd_atomic,
				  lim->max_qp_init_rd_atom);
	if ((attr_mask & M_DEST_RD) &&
	    attr->max_dest_rd_atomic > lim->max_qp_rd_atom)
		return emu_refuse(EINVAL, MOD "max_dest_rd_atomic %u > "
				  "max_qp_rd_atom %u",
				  attr->max_dest_rd_atomic,
				  lim->max_qp_rd_atom);

	if (attr_mask & M_ACCESS) {
		/* Bits other than the remote enables (MW_BIND, as DAPL sets,
		 * ZERO_BASED, ...) mean nothing to a QP: kept and ignored, as
		 * rxe and mlx5 do (doc/semantics.md). */
		/* A device without atomics cannot promise to serve them. */
		if ((attr->qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC) &&
		    lim->atomic_cap == IBV_ATOMIC_NONE)
			return emu_refuse(EINVAL, MOD "qp_access_flags has "
					  "REMOTE_ATOMIC, but atomic_cap is "
					  "none");
	}

	if ((attr_mask & M_SQ_PSN) && attr->sq_psn > PSN_MASK)
		return emu_refuse(EINVAL, MOD "sq_psn %#x wider than 24 bits",
				  attr->sq_psn);
	if ((attr_mask & M_RQ_PSN) && attr->rq_psn > PSN_MASK)
		return emu_refuse(EINVAL, MOD "rq_psn %#x wider than 24 bits",
				  attr->rq_psn);
	if ((attr_mask & M_DEST_QPN) && attr->dest_qp_num > PSN_MASK)
		return emu_refuse(EINVAL, MOD "dest_qp_num %#x wider than 24 "
				  "bits", attr->dest_qp_num);
	/* Q_Key and en_sqd_async_notify: every value is meaningful. */
	return 0;
}

/* ---- creation attributes --------------------------------------------- */

#define INIT_MASK_KNOWN (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |	\
			 IBV_QP_INIT_ATTR_CREATE_FLAGS |		\
			 IBV_QP_INIT_ATTR_MAX_TSO_HEADER |		\
			 IBV_QP_INIT_ATTR_IND_TABLE |			\
			 IBV_QP_INIT_ATTR_RX_HASH |			\
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/* TSO and RSS belong to raw Ethernet QPs, which are not modelled. */
#define INIT_MASK_UNSUPPORTED (IBV_QP_INIT_ATTR_MAX_TSO_HEADER |	\
			       IBV_QP_INIT_ATTR_IND_TABLE |		\
			       IBV_QP_INIT_ATTR_RX_HASH)

/* The ibv_wr_* operations each type can carry on the wire (IBTA's opcode
 * table): UC has no READ, atomics or SEND with invalidate, UD only SEND.
 * Connected send queues also do the local memory-window work. */
#define OPS_RC (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |	\
		IBV_QP_EX_WITH_SEND_WITH_INV |				\
		IBV_QP_EX_WITH_RDMA_WRITE |				\
		IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |			\
		IBV_QP_EX_WITH_RDMA_READ |				\
		IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |			\
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |			\
		IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV)
#define OPS_UC (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |	\
		IBV_QP_EX_WITH_RDMA_WRITE |				\
		IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |			\
		IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV)
#define OPS_UD (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

static uint64_t send_ops_allowed(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:
		return OPS_RC;
	case IBV_QPT_UC:
		return OPS_UC;
	case IBV_QPT_UD:
		return OPS_UD;
	default:
		return 0;
	}
}

static int send_caps_check(const struct emu_limits *lim,
			   const struct ibv_qp_cap *cap)
{
	if (cap->max_send_wr > lim->max_qp_wr)
		return emu_refuse(EINVAL, CRE "max_send_wr %u > max_qp_wr %u",
				  cap->max_send_wr, lim->max_qp_wr);
	if (cap->max_send_sge > lim->max_sge)
		return emu_refuse(EINVAL, CRE "max_send_sge %u > max_sge %u",
				  cap->max_send_sge, lim->max_sge);
	if (cap->max_inline_data > lim->max_inline_data)
		return emu_refuse(EINVAL, CRE "max_inline_data %u > %u",
				  cap->max_inline_data, lim->max_inline_data);
	return 0;
}

static int recv_caps_check(const struct emu_limits *lim,
			   const struct ibv_qp_cap *cap)
{
	if (cap->max_recv_wr > lim->max_qp_wr)
		return emu_refuse(EINVAL, CRE "max_recv_wr %u > max_qp_wr %u",
				  cap->max_recv_wr, lim->max_qp_wr);
	if (cap->max_recv_sge > lim->max_sge)
		return emu_refuse(EINVAL, CRE "max_recv_sge %u > max_sge %u",
				  cap->max_recv_sge, lim->max_sge);
	return 0;
}

/*
 * Errors: EINVAL for a value that is wrong for any device (unknown mask
 * bits or type, a missing PD or CQ, a capability past the limits);
 * EOPNOTSUPP for a known feature this device lacks (raw packet and driver
 * QPs, creation flags, TSO, RSS, flush/atomic-write operations), as
 * rdma-core's software providers answer.
 *
 * Zero work requests or SGEs are accepted (a send-only or receive-only
 * QP), as rxe and mlx5 accept them.
 */
int emu_qp_init_attr_check(struct emu_device *dev,
			   const struct ibv_qp_init_attr_ex *init)
{
	const struct emu_limits *lim;
	uint32_t mask;
	int rc;

	if (!dev || !init)
		return emu_refuse(EINVAL, CRE "no device or init_attr");
	lim = &dev->cfg.limits;
	mask = init->comp_mask;

	if (mask & ~INIT_MASK_KNOWN)
		return emu_refuse(EINVAL, CRE "comp_mask %#x has unknown bits",
				  mask);
	switch (init->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		break;
	case IBV_QPT_RAW_PACKET:
	case IBV_QPT_DRIVER:
		return emu_refuse(EOPNOTSUPP, CRE "qp_type %d (raw packet or "
				  "driver) not emulated", (int)init->qp_type);
	default:
		return emu_refuse(EINVAL, CRE "qp_type %d unknown",
				  (int)init->qp_type);
	}
	if (mask & INIT_MASK_UNSUPPORTED)
		return emu_refuse(EOPNOTSUPP, CRE "comp_mask asks for TSO or "
				  "RSS (raw Ethernet), not emulated");
	/* Self-multicast blocking, FCS scatter, VLAN stripping, a chosen
	 * source QPN (and with it source_qpn), end padding: none apply. */
	if ((mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && init->create_flags)
		return emu_refuse(EOPNOTSUPP, CRE "create_flags %#x: none is "
				  "supported", init->create_flags);

	/*
	 * An XRC target QP has no queues of its own: it lives in an XRC
	 * domain and delivers into the SRQ each packet names, so the PD,
	 * CQs, SRQ and capabilities are ignored (as the kernel ignores
	 * them) and it cannot have send operations.
	 */
	if (init->qp_type == IBV_QPT_XRC_RECV) {
		if (!(mask & IBV_QP_INIT_ATTR_XRCD) || !init->xrcd)
			return emu_refuse(EINVAL, CRE "an XRC_RECV QP needs "
					  "an xrcd");
		if ((mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
		    init->send_ops_flags)
			return emu_refuse(EINVAL, CRE "send_ops_flags on an "
					  "XRC_RECV QP, which cannot send");
		return 0;
	}
	/* Everything else is in a PD, and an XRC domain means nothing. */
	if (!(mask & IBV_QP_INIT_ATTR_PD) || !init->pd)
		return emu_refuse(EINVAL, CRE "no pd");
	if (mask & IBV_QP_INIT_ATTR_XRCD)
		return emu_refuse(EINVAL, CRE "an xrcd for a %s QP",
				  emu_qp_type_name(init->qp_type));
	if (!init->send_cq)
		return emu_refuse(EINVAL, CRE "no send_cq");
	rc = send_caps_check(lim, &init->cap);
	if (rc)
		return rc;
	/* An XRC initiator has no receive queue: the kernel zeroes its
	 * receive capabilities and ignores recv_cq and srq; so do we. */
	if (init->qp_type != IBV_QPT_XRC_SEND) {
		/* Completions of receives, SRQ ones included, go to the
		 * QP's recv_cq: the kernel requires it. */
		if (!init->recv_cq)
			return emu_refuse(EINVAL, CRE "no recv_cq");
		/* With an SRQ the receive capabilities are ignored. */
		if (!init->srq) {
			rc = recv_caps_check(lim, &init->cap);
			if (rc)
				return rc;
		}
	}
	if ((mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (init->send_ops_flags & ~send_ops_allowed(init->qp_type)))
		return emu_refuse(EOPNOTSUPP, CRE "send_ops_flags %#llx: a %s "
				  "QP carries only %#llx",
				  (unsigned long long)init->send_ops_flags,
				  emu_qp_type_name(init->qp_type),
				  (unsigned long long)
				  send_ops_allowed(init->qp_type));
	return 0;
}
