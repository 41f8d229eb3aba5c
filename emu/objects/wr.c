/* emu/objects/wr.c: the work-request opcode table (what each ibv_wr_opcode may be
 * posted on, does, sends and completes as) and its lookups. Posting checks
 * a request against it once; the requester and completer then ask it
 * instead of keeping their own lists of opcodes.
 */
#include "emu/objects/wr.h"
#include "net/opcode.h"

/* The transports every connected request exists on, and the reliable ones
 * that alone answer with data (READ responses, atomic ACKs). */
#define CONNECTED	(EMU_WR_QPT_RC | EMU_WR_QPT_UC | EMU_WR_QPT_XRC)
#define RELIABLE	(EMU_WR_QPT_RC | EMU_WR_QPT_XRC)
#define ANY_QPT		(CONNECTED | EMU_WR_QPT_UD)

/* A multi-packet message: first, middle, then the given last and only. */
#define MSG(kind, last, only) {						\
	[EMU_WR_FIRST] = WIRE_OPB_##kind##_FIRST,			\
	[EMU_WR_MIDDLE] = WIRE_OPB_##kind##_MIDDLE,			\
	[EMU_WR_LAST] = WIRE_OPB_##last,				\
	[EMU_WR_ONLY] = WIRE_OPB_##only,				\
}
/* A request that is a single packet wherever it (re)starts. */
#define ONE(b) {							\
	[EMU_WR_FIRST] = WIRE_OPB_##b,					\
	[EMU_WR_MIDDLE] = WIRE_OPB_##b,					\
	[EMU_WR_LAST] = WIRE_OPB_##b,					\
	[EMU_WR_ONLY] = WIRE_OPB_##b,					\
}

/*
 * Missing rows are refused at post time: TSO is raw-packet only, DRIVER1
 * belongs to other providers, and flush and atomic write are not emulated.
 * SEND_WITH_INV is RC/XRC only because IBTA defines its IETH opcodes for
 * those transports alone; UC has writes but no READ or atomics because it
 * never answers; BIND_MW and LOCAL_INV are work of a connected send queue
 * (ibv_bind_mw(3)), so UD cannot post them.
 */
const struct emu_wr_info emu_wr_table[EMU_WR_NOPCODES] = {
	[IBV_WR_RDMA_WRITE] = {
		.name = "RDMA_WRITE",
		.flags = EMU_WR_F_WRITE | EMU_WR_F_INLINE,
		.qpt = CONNECTED,
		.wc_opcode = IBV_WC_RDMA_WRITE,
		.wire = MSG(WRITE, WRITE_LAST, WRITE_ONLY),
	},
	[IBV_WR_RDMA_WRITE_WITH_IMM] = {
		.name = "RDMA_WRITE_WITH_IMM",
		.flags = EMU_WR_F_WRITE | EMU_WR_F_IMM | EMU_WR_F_INLINE,
		.qpt = CONNECTED,
		/* The requester's side is a write; the peer sees RECV_RDMA_
		 * WITH_IMM, which is the responder's business. */
		.wc_opcode = IBV_WC_RDMA_WRITE,
		.wire = MSG(WRITE, WRITE_LAST_IMM, WRITE_ONLY_IMM),
	},
	[IBV_WR_SEND] = {
		.name = "SEND",
		.flags = EMU_WR_F_SEND | EMU_WR_F_INLINE,
		.qpt = ANY_QPT,
		.wc_opcode = IBV_WC_SEND,
		.wire = MSG(SEND, SEND_LAST, SEND_ONLY),
	},
	[IBV_WR_SEND_WITH_IMM] = {
		.name = "SEND_WITH_IMM",
		.flags = EMU_WR_F_SEND | EMU_WR_F_IMM | EMU_WR_F_INLINE,
		.qpt = ANY_QPT,
		.wc_opcode = IBV_WC_SEND,
		.wire = MSG(SEND, SEND_LAST_IMM, SEND_ONLY_IMM),
	},
	[IBV_WR_RDMA_READ] = {
		.name = "RDMA_READ",
		.flags = EMU_WR_F_READ,
		.qpt = RELIABLE,
		.wc_opcode = IBV_WC_RDMA_READ,
		.wire = ONE(READ_REQ),
	},
	[IBV_WR_ATOMIC_CMP_AND_SWP] = {
		.name = "ATOMIC_CMP_AND_SWP",
		.flags = EMU_WR_F_ATOMIC,
		.qpt = RELIABLE,
		.wc_opcode = IBV_WC_COMP_SWAP,
		.wire = ONE(CMP_SWAP),
	},
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = {
		.name = "ATOMIC_FETCH_AND_ADD",
		.flags = EMU_WR_F_ATOMIC,
		.qpt = RELIABLE,
		.wc_opcode = IBV_WC_FETCH_ADD,
		.wire = ONE(FETCH_ADD),
	},
	[IBV_WR_LOCAL_INV] = {
		.name = "LOCAL_INV",
		.flags = EMU_WR_F_LOCAL | EMU_WR_F_INV,
		.qpt = CONNECTED,
		.wc_opcode = IBV_WC_LOCAL_INV,
	},
	[IBV_WR_BIND_MW] = {
		.name = "BIND_MW",
		.flags = EMU_WR_F_LOCAL,
		.qpt = CONNECTED,
		.wc_opcode = IBV_WC_BIND_MW,
	},
	[IBV_WR_SEND_WITH_INV] = {
		.name = "SEND_WITH_INV",
		/* The IETH rides on the message's last packet only. */
		.flags = EMU_WR_F_SEND | EMU_WR_F_INV | EMU_WR_F_INLINE,
		.qpt = RELIABLE,
		.wc_opcode = IBV_WC_SEND,
		.wire = MSG(SEND, SEND_LAST_INV, SEND_ONLY_INV),
	},
};

static unsigned int qpt_bit(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC:
		return EMU_WR_QPT_RC;
	case IBV_QPT_UC:
		return EMU_WR_QPT_UC;
	case IBV_QPT_UD:
		return EMU_WR_QPT_UD;
	case IBV_QPT_XRC_SEND:
		return EMU_WR_QPT_XRC;
	default:
		/* XRC targets, raw packet: no send queue to post to. */
		return 0;
	}
}

bool emu_wr_qp_ok(uint32_t op, enum ibv_qp_type t)
{
	const struct emu_wr_info *info = emu_wr_info(op);

	return info && (info->qpt & qpt_bit(t));
}

enum ibv_wc_opcode emu_wr_wc_opcode(uint32_t op)
{
	const struct emu_wr_info *info = emu_wr_info(op);

	/* Posting refuses unknown opcodes, so this is only a safe answer for
	 * a WQE that should not exist. */
	return info ? info->wc_opcode : IBV_WC_SEND;
}

uint8_t emu_wr_wire_opcode(uint32_t op, enum ibv_qp_type t, bool first,
			   bool last)
{
	const struct emu_wr_info *info = &emu_wr_table[op];
	enum emu_wr_pos pos;

	/* A UD message is a single packet: posting held it to the MTU. */
	if (t == IBV_QPT_UD)
		return WIRE_TP_UD | info->wire[EMU_WR_ONLY];
	if (first && last)
		pos = EMU_WR_ONLY;
	else if (first)
		pos = EMU_WR_FIRST;
	else if (last)
		pos = EMU_WR_LAST;
	else
		pos = EMU_WR_MIDDLE;
	return (t == IBV_QPT_UC ? WIRE_TP_UC :
		t == IBV_QPT_XRC_SEND ? WIRE_TP_XRC : WIRE_TP_RC) |
	       info->wire[pos];
}
