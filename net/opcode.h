/* net/opcode.h: the table of BTH opcodes (RC, UC, UD, XRC, CNP) that tells
 * every other layer which headers a packet carries and what the packet means.
 */
#ifndef EMU_NET_OPCODE_H
#define EMU_NET_OPCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Headers that may follow the BTH, in the order IBTA puts them on the wire.
 * The order matters: the table derives every offset by adding up the lengths
 * of the headers before it. RDETH is absent because RD is not emulated.
 */
enum wire_hdr {
	WIRE_BTH,
	WIRE_DETH,
	WIRE_XRCETH,
	WIRE_FETH,
	WIRE_RETH,
	WIRE_ATMETH,
	WIRE_AETH,
	WIRE_ATMACK,
	WIRE_IMMDT,
	WIRE_IETH,
	WIRE_PAYLOAD,
	WIRE_NHDR
};

#define WIRE_BTH_LEN	12
#define WIRE_DETH_LEN	8
#define WIRE_XRCETH_LEN	4
#define WIRE_FETH_LEN	4
#define WIRE_RETH_LEN	16
#define WIRE_ATMETH_LEN	28
#define WIRE_AETH_LEN	4
#define WIRE_ATMACK_LEN	8
#define WIRE_IMMDT_LEN	4
#define WIRE_IETH_LEN	4
/* The longest header stack: BTH + XRCETH + AtomicETH. */
#define WIRE_MAX_HDR_LEN (WIRE_BTH_LEN + WIRE_XRCETH_LEN + WIRE_ATMETH_LEN)

/*
 * Flags. The low bits mirror enum wire_hdr so that "does this opcode carry
 * header h" is a single AND with WIRE_F_HDR(h).
 */
#define WIRE_F_HDR(h)	(1u << (h))
#define WIRE_F_DETH	WIRE_F_HDR(WIRE_DETH)
#define WIRE_F_XRCETH	WIRE_F_HDR(WIRE_XRCETH)
#define WIRE_F_FETH	WIRE_F_HDR(WIRE_FETH)
#define WIRE_F_RETH	WIRE_F_HDR(WIRE_RETH)
#define WIRE_F_ATMETH	WIRE_F_HDR(WIRE_ATMETH)
#define WIRE_F_AETH	WIRE_F_HDR(WIRE_AETH)
#define WIRE_F_ATMACK	WIRE_F_HDR(WIRE_ATMACK)
#define WIRE_F_IMMDT	WIRE_F_HDR(WIRE_IMMDT)
#define WIRE_F_IETH	WIRE_F_HDR(WIRE_IETH)
#define WIRE_F_PAYLOAD	WIRE_F_HDR(WIRE_PAYLOAD)

#define WIRE_F_VALID	(1u << 12)	/* opcode is defined and emulated */
#define WIRE_F_REQ	(1u << 13)	/* sent by the requester */
#define WIRE_F_RESP	(1u << 14)	/* sent by the responder */
#define WIRE_F_ACK	(1u << 15)	/* ACKNOWLEDGE or ATOMIC ACKNOWLEDGE */
#define WIRE_F_FIRST	(1u << 16)	/* starts a message */
#define WIRE_F_MIDDLE	(1u << 17)
#define WIRE_F_LAST	(1u << 18)	/* ends a message */
#define WIRE_F_ONLY	(WIRE_F_FIRST | WIRE_F_LAST)
/* The responder must answer (ACK, read response or atomic ACK). */
#define WIRE_F_ACKED	(1u << 19)
/* The SE bit is meaningful: the message may raise a solicited event. */
#define WIRE_F_SOLICIT	(1u << 20)
/* The message consumes a receive WQE (sends; writes with immediate). */
#define WIRE_F_RECV	(1u << 21)
#define WIRE_F_SEND	(1u << 22)
#define WIRE_F_WRITE	(1u << 23)
#define WIRE_F_READ	(1u << 24)	/* read request and read responses */
#define WIRE_F_ATOMIC	(1u << 25)	/* CmpSwap, FetchAdd and their ACK */
#define WIRE_F_FLUSH	(1u << 26)
#define WIRE_F_ATOMIC_WRITE (1u << 27)
#define WIRE_F_CNP	(1u << 28)	/* RoCEv2 congestion notification */

/* Shorthand the flags are written in. */
#define WIRE_F_IMM	WIRE_F_IMMDT
#define WIRE_F_INV	WIRE_F_IETH

/* Which QP transports may send or receive an opcode. */
#define WIRE_QPT_RC	(1u << 0)
#define WIRE_QPT_UC	(1u << 1)
#define WIRE_QPT_UD	(1u << 2)
#define WIRE_QPT_XRC	(1u << 3)
#define WIRE_QPT_ALL	(WIRE_QPT_RC | WIRE_QPT_UC | WIRE_QPT_UD | WIRE_QPT_XRC)

/* The top three bits of the opcode name the transport. */
#define WIRE_TP_MASK	0xe0
#define WIRE_TP_RC	0x00
#define WIRE_TP_UC	0x20
#define WIRE_TP_RD	0x40
#define WIRE_TP_UD	0x60
#define WIRE_TP_CNP	0x80
#define WIRE_TP_XRC	0xa0

/* The low five bits name the operation. */
enum wire_op_base {
	WIRE_OPB_SEND_FIRST		= 0x00,
	WIRE_OPB_SEND_MIDDLE		= 0x01,
	WIRE_OPB_SEND_LAST		= 0x02,
	WIRE_OPB_SEND_LAST_IMM		= 0x03,
	WIRE_OPB_SEND_ONLY		= 0x04,
	WIRE_OPB_SEND_ONLY_IMM		= 0x05,
	WIRE_OPB_WRITE_FIRST		= 0x06,
	WIRE_OPB_WRITE_MIDDLE		= 0x07,
	WIRE_OPB_WRITE_LAST		= 0x08,
	WIRE_OPB_WRITE_LAST_IMM		= 0x09,
	WIRE_OPB_WRITE_ONLY		= 0x0a,
	WIRE_OPB_WRITE_ONLY_IMM		= 0x0b,
	WIRE_OPB_READ_REQ		= 0x0c,
	WIRE_OPB_READ_RESP_FIRST	= 0x0d,
	WIRE_OPB_READ_RESP_MIDDLE	= 0x0e,
	WIRE_OPB_READ_RESP_LAST		= 0x0f,
	WIRE_OPB_READ_RESP_ONLY		= 0x10,
	WIRE_OPB_ACK			= 0x11,
	WIRE_OPB_ATOMIC_ACK		= 0x12,
	WIRE_OPB_CMP_SWAP		= 0x13,
	WIRE_OPB_FETCH_ADD		= 0x14,
	/* 0x15 is RD's RESYNC */
	WIRE_OPB_SEND_LAST_INV		= 0x16,
	WIRE_OPB_SEND_ONLY_INV		= 0x17,
	WIRE_OPB_FLUSH			= 0x1c,
	WIRE_OPB_ATOMIC_WRITE		= 0x1d,
};

#define WIRE_OP_RC(b)	(WIRE_TP_RC | WIRE_OPB_##b)
#define WIRE_OP_UC(b)	(WIRE_TP_UC | WIRE_OPB_##b)
#define WIRE_OP_UD(b)	(WIRE_TP_UD | WIRE_OPB_##b)
#define WIRE_OP_XRC(b)	(WIRE_TP_XRC | WIRE_OPB_##b)
#define WIRE_OP_CNP	0x81

/*
 * One row per 8-bit opcode. off[h] is the byte offset of header h from the
 * start of the BTH; 0 means "absent" for every header but the BTH itself.
 * off[WIRE_PAYLOAD] always equals hdr_len, so the payload is found even for
 * opcodes that carry none (its length is then zero).
 */
struct wire_opcode_info {
	const char *name;	/* NULL when the opcode is not defined */
	uint32_t flags;		/* WIRE_F_* */
	uint8_t qpt;		/* WIRE_QPT_* */
	uint8_t hdr_len;	/* BTH through the last extension header */
	uint8_t off[WIRE_NHDR];
};

extern const struct wire_opcode_info wire_opcode_table[256];

static inline const struct wire_opcode_info *wire_opcode(uint8_t op)
{
	return &wire_opcode_table[op];
}

static inline bool wire_op_valid(uint8_t op)
{
	return wire_opcode_table[op].flags & WIRE_F_VALID;
}

static inline bool wire_op_has(uint8_t op, uint32_t flags)
{
	return (wire_opcode_table[op].flags & flags) == flags;
}

static inline unsigned int wire_op_hdr_len(uint8_t op)
{
	return wire_opcode_table[op].hdr_len;
}

static inline unsigned int wire_op_off(uint8_t op, enum wire_hdr h)
{
	return wire_opcode_table[op].off[h];
}

/* Never NULL, so it can go straight into a log line. */
const char *wire_op_name(uint8_t op);

/*
 * A received IB packet (BTH through the end of the payload, ICRC excluded),
 * checked once on arrival so that the accessors in hdr.h can be trusted.
 */
struct wire_pkt {
	uint8_t *hdr;		/* the BTH */
	const struct wire_opcode_info *info;
	uint32_t len;		/* BTH .. last payload byte, pad included */
	uint32_t paylen;	/* payload bytes, pad excluded */
	/* The payload: right after the headers, unless the receiver has
	 * it elsewhere (a ring's frame read in place, net/shm.h). */
	uint8_t *pay;
};

enum wire_parse_err {
	WIRE_OK = 0,
	WIRE_ERR_LEN,		/* too short for the opcode's headers and the
				 * ICRC, or payload where none may be */
	WIRE_ERR_OPCODE,	/* opcode not defined or not emulated */
	WIRE_ERR_TVER,		/* transport header version is not 0 */
	WIRE_ERR_PAD,		/* pad count where no payload may be, or
				 * more pad than payload */
	WIRE_ERR_ALIGN,		/* payload plus pad not a multiple of 4 */
};

/*
 * buf/len is the whole UDP payload, ICRC included. Checks lengths and
 * header-level consistency only; the ICRC is icrc_check()'s business.
 */
enum wire_parse_err wire_pkt_parse(struct wire_pkt *pkt, void *buf,
				   size_t len);

const char *wire_parse_strerror(enum wire_parse_err err);

#endif /* EMU_NET_OPCODE_H */
