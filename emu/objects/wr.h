/* emu/objects/wr.h: the work-request opcode table. For each enum ibv_wr_opcode it
 * says which QP types may post it, what it does (send, write, read, atomic,
 * local work), which BTH opcodes its packets carry and what its completion
 * reports. The meaning of each BTH opcode itself stays in net/opcode.h.
 */
#ifndef EMU_WR_H
#define EMU_WR_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* QP types that may post an opcode. XRC means the initiator (XRC_SEND):
 * an XRC target has no send queue. */
#define EMU_WR_QPT_RC	(1u << 0)
#define EMU_WR_QPT_UC	(1u << 1)
#define EMU_WR_QPT_UD	(1u << 2)
#define EMU_WR_QPT_XRC	(1u << 3)

/* What a request does. */
#define EMU_WR_F_SEND	(1u << 0)	/* lands in a receive WQE at the peer */
#define EMU_WR_F_WRITE	(1u << 1)	/* writes remote memory (RETH) */
#define EMU_WR_F_READ	(1u << 2)	/* reads remote memory (RETH) */
#define EMU_WR_F_ATOMIC	(1u << 3)	/* 8-byte atomic (AtomicETH) */
#define EMU_WR_F_LOCAL	(1u << 4)	/* the HCA's own work: no packet */
#define EMU_WR_F_IMM	(1u << 5)	/* carries immediate data */
#define EMU_WR_F_INV	(1u << 6)	/* invalidates wr->invalidate_rkey */
#define EMU_WR_F_INLINE	(1u << 7)	/* IBV_SEND_INLINE means something */

/* Where a packet sits in its message; indexes emu_wr_info.wire. */
enum emu_wr_pos {
	EMU_WR_FIRST,
	EMU_WR_MIDDLE,
	EMU_WR_LAST,
	EMU_WR_ONLY,
	EMU_WR_NPOS
};

struct emu_wr_info {
	const char *name;	/* NULL: not an opcode we emulate */
	uint32_t flags;		/* EMU_WR_F_* */
	uint8_t qpt;		/* EMU_WR_QPT_* */
	enum ibv_wc_opcode wc_opcode;
	/* The operation half of the BTH opcode (enum wire_op_base) for each
	 * position; the transport half comes from the QP. A READ or atomic
	 * request is one packet however far a resend has got, so all four
	 * name the same opcode. Meaningless for local work. */
	uint8_t wire[EMU_WR_NPOS];
};

/* Indexed by enum ibv_wr_opcode; IBV_WR_ATOMIC_WRITE is the largest. */
#define EMU_WR_NOPCODES	(IBV_WR_ATOMIC_WRITE + 1)

extern const struct emu_wr_info emu_wr_table[EMU_WR_NOPCODES];

/* NULL for an opcode out of range or not emulated (TSO, flush, atomic
 * write, the driver's own), so callers can refuse it in one place. */
static inline const struct emu_wr_info *emu_wr_info(uint32_t op)
{
	if (op >= EMU_WR_NOPCODES || !emu_wr_table[op].name)
		return NULL;
	return &emu_wr_table[op];
}

/* True when op does any of flags; false for an unknown op. */
static inline bool emu_wr_any(uint32_t op, uint32_t flags)
{
	const struct emu_wr_info *info = emu_wr_info(op);

	return info && (info->flags & flags);
}

/* READs and atomics hold one of the responder's max_dest_rd_atomic
 * resources until answered, and complete on the answer, not an ACK. */
static inline bool emu_wr_rd_atomic(uint32_t op)
{
	return emu_wr_any(op, EMU_WR_F_READ | EMU_WR_F_ATOMIC);
}

static inline bool emu_wr_atomic(uint32_t op)
{
	return emu_wr_any(op, EMU_WR_F_ATOMIC);
}

static inline bool emu_wr_reads(uint32_t op)
{
	return emu_wr_any(op, EMU_WR_F_READ);
}

static inline bool emu_wr_local(uint32_t op)
{
	return emu_wr_any(op, EMU_WR_F_LOCAL);
}

/* Whether a QP of type t may post op at all; device capabilities (atomic
 * support) are the caller's to check. */
bool emu_wr_qp_ok(uint32_t op, enum ibv_qp_type t);

/* The completion opcode of a send-queue request. */
enum ibv_wc_opcode emu_wr_wc_opcode(uint32_t op);

/* The full BTH opcode of a packet of op on a QP of type t, given whether
 * it starts and ends the message. op must be a known, non-local opcode
 * the QP type allows. */
uint8_t emu_wr_wire_opcode(uint32_t op, enum ibv_qp_type t, bool first,
			   bool last);

#endif /* EMU_WR_H */
