/* net/opcode.c: the BTH opcode table (header layout, meaning, transports)
 * and the one-time sanity check of a received packet against it.
 */
#include "net/opcode.h"
#include "net/hdr.h"

/*
 * Offsets are computed at compile time from the set of headers an opcode
 * carries, walking the headers in wire order; a row is then just a name,
 * its flags and its transports, and cannot disagree with itself.
 */
#define HLEN(f, h)	(((f) & WIRE_F_##h) ? WIRE_##h##_LEN : 0)
#define END_BTH(f)	WIRE_BTH_LEN
#define END_DETH(f)	(END_BTH(f) + HLEN(f, DETH))
#define END_XRCETH(f)	(END_DETH(f) + HLEN(f, XRCETH))
#define END_FETH(f)	(END_XRCETH(f) + HLEN(f, FETH))
#define END_RETH(f)	(END_FETH(f) + HLEN(f, RETH))
#define END_ATMETH(f)	(END_RETH(f) + HLEN(f, ATMETH))
#define END_AETH(f)	(END_ATMETH(f) + HLEN(f, AETH))
#define END_ATMACK(f)	(END_AETH(f) + HLEN(f, ATMACK))
#define END_IMMDT(f)	(END_ATMACK(f) + HLEN(f, IMMDT))
#define END_IETH(f)	(END_IMMDT(f) + HLEN(f, IETH))
#define HDRS_LEN(f)	END_IETH(f)

/* Where header h starts: the end of the one before it, if h is present. */
#define AT(f, h, prev)	(((f) & WIRE_F_##h) ? END_##prev(f) : 0)

#define ROW(code, str, f, q) [code] = {					\
	.name = (str),							\
	.flags = (f) | WIRE_F_VALID,					\
	.qpt = (q),							\
	.hdr_len = HDRS_LEN(f),						\
	.off = {							\
		[WIRE_BTH] = 0,						\
		[WIRE_DETH] = AT(f, DETH, BTH),				\
		[WIRE_XRCETH] = AT(f, XRCETH, DETH),			\
		[WIRE_FETH] = AT(f, FETH, XRCETH),			\
		[WIRE_RETH] = AT(f, RETH, FETH),			\
		[WIRE_ATMETH] = AT(f, ATMETH, RETH),			\
		[WIRE_AETH] = AT(f, AETH, ATMETH),			\
		[WIRE_ATMACK] = AT(f, ATMACK, AETH),			\
		[WIRE_IMMDT] = AT(f, IMMDT, ATMACK),			\
		[WIRE_IETH] = AT(f, IETH, IMMDT),			\
		[WIRE_PAYLOAD] = HDRS_LEN(f),				\
	},								\
}

/* Building blocks of the rows. */
#define SND	(WIRE_F_REQ | WIRE_F_SEND | WIRE_F_PAYLOAD | WIRE_F_RECV)
#define WR	(WIRE_F_REQ | WIRE_F_WRITE | WIRE_F_PAYLOAD)
#define RRSP	(WIRE_F_RESP | WIRE_F_READ | WIRE_F_PAYLOAD)
#define SE	WIRE_F_SOLICIT
#define F	WIRE_F_FIRST
#define M	WIRE_F_MIDDLE
#define L	WIRE_F_LAST
#define O	WIRE_F_ONLY

/*
 * Sends and RDMA writes exist on RC, UC and XRC alike; X adds what the
 * transport puts on every request (XRCETH, the need for an answer).
 */
#define SEND_WRITE_ROWS(T, TP, X, Q)					\
	ROW(TP | WIRE_OPB_SEND_FIRST, T "_SEND_FIRST",			\
	    X | SND | F, Q),						\
	ROW(TP | WIRE_OPB_SEND_MIDDLE, T "_SEND_MIDDLE",		\
	    X | SND | M, Q),						\
	ROW(TP | WIRE_OPB_SEND_LAST, T "_SEND_LAST",			\
	    X | SND | L | SE, Q),					\
	ROW(TP | WIRE_OPB_SEND_LAST_IMM, T "_SEND_LAST_WITH_IMMEDIATE",	\
	    X | SND | L | SE | WIRE_F_IMM, Q),				\
	ROW(TP | WIRE_OPB_SEND_ONLY, T "_SEND_ONLY",			\
	    X | SND | O | SE, Q),					\
	ROW(TP | WIRE_OPB_SEND_ONLY_IMM, T "_SEND_ONLY_WITH_IMMEDIATE",	\
	    X | SND | O | SE | WIRE_F_IMM, Q),				\
	ROW(TP | WIRE_OPB_WRITE_FIRST, T "_RDMA_WRITE_FIRST",		\
	    X | WR | F | WIRE_F_RETH, Q),				\
	ROW(TP | WIRE_OPB_WRITE_MIDDLE, T "_RDMA_WRITE_MIDDLE",		\
	    X | WR | M, Q),						\
	ROW(TP | WIRE_OPB_WRITE_LAST, T "_RDMA_WRITE_LAST",		\
	    X | WR | L, Q),						\
	ROW(TP | WIRE_OPB_WRITE_LAST_IMM,				\
	    T "_RDMA_WRITE_LAST_WITH_IMMEDIATE",			\
	    X | WR | L | SE | WIRE_F_IMM | WIRE_F_RECV, Q),		\
	ROW(TP | WIRE_OPB_WRITE_ONLY, T "_RDMA_WRITE_ONLY",		\
	    X | WR | O | WIRE_F_RETH, Q),				\
	ROW(TP | WIRE_OPB_WRITE_ONLY_IMM,				\
	    T "_RDMA_WRITE_ONLY_WITH_IMMEDIATE",			\
	    X | WR | O | SE | WIRE_F_RETH | WIRE_F_IMM | WIRE_F_RECV, Q)

/*
 * What only the reliable transports (RC and XRC) have. Responses go back to
 * the requesting QP, which is addressed by the BTH alone, so they never
 * carry XRCETH: only the requests get X.
 */
#define RELIABLE_ROWS(T, TP, X, Q)					\
	ROW(TP | WIRE_OPB_READ_REQ, T "_RDMA_READ_REQUEST",		\
	    X | WIRE_F_REQ | WIRE_F_READ | O | WIRE_F_RETH, Q),		\
	ROW(TP | WIRE_OPB_READ_RESP_FIRST, T "_RDMA_READ_RESPONSE_FIRST", \
	    RRSP | F | WIRE_F_AETH, Q),					\
	ROW(TP | WIRE_OPB_READ_RESP_MIDDLE,				\
	    T "_RDMA_READ_RESPONSE_MIDDLE", RRSP | M, Q),		\
	ROW(TP | WIRE_OPB_READ_RESP_LAST, T "_RDMA_READ_RESPONSE_LAST",	\
	    RRSP | L | WIRE_F_AETH, Q),					\
	ROW(TP | WIRE_OPB_READ_RESP_ONLY, T "_RDMA_READ_RESPONSE_ONLY",	\
	    RRSP | O | WIRE_F_AETH, Q),					\
	ROW(TP | WIRE_OPB_ACK, T "_ACKNOWLEDGE",			\
	    WIRE_F_RESP | WIRE_F_ACK | O | WIRE_F_AETH, Q),		\
	ROW(TP | WIRE_OPB_ATOMIC_ACK, T "_ATOMIC_ACKNOWLEDGE",		\
	    WIRE_F_RESP | WIRE_F_ACK | WIRE_F_ATOMIC | O |		\
	    WIRE_F_AETH | WIRE_F_ATMACK, Q),				\
	ROW(TP | WIRE_OPB_CMP_SWAP, T "_COMPARE_SWAP",			\
	    X | WIRE_F_REQ | WIRE_F_ATOMIC | O | WIRE_F_ATMETH, Q),	\
	ROW(TP | WIRE_OPB_FETCH_ADD, T "_FETCH_ADD",			\
	    X | WIRE_F_REQ | WIRE_F_ATOMIC | O | WIRE_F_ATMETH, Q),	\
	ROW(TP | WIRE_OPB_SEND_LAST_INV, T "_SEND_LAST_WITH_INVALIDATE", \
	    X | SND | L | SE | WIRE_F_INV, Q),				\
	ROW(TP | WIRE_OPB_SEND_ONLY_INV, T "_SEND_ONLY_WITH_INVALIDATE", \
	    X | SND | O | SE | WIRE_F_INV, Q)

const struct wire_opcode_info wire_opcode_table[256] = {
	SEND_WRITE_ROWS("RC", WIRE_TP_RC, WIRE_F_ACKED, WIRE_QPT_RC),
	RELIABLE_ROWS("RC", WIRE_TP_RC, WIRE_F_ACKED, WIRE_QPT_RC),
	/*
	 * The IBTA 1.5 memory placement extensions; like Linux's rxe we
	 * offer them on RC only.
	 */
	ROW(WIRE_OP_RC(FLUSH), "RC_FLUSH",
	    WIRE_F_ACKED | WIRE_F_REQ | WIRE_F_FLUSH | O |
	    WIRE_F_FETH | WIRE_F_RETH, WIRE_QPT_RC),
	ROW(WIRE_OP_RC(ATOMIC_WRITE), "RC_ATOMIC_WRITE",
	    WIRE_F_ACKED | WIRE_F_REQ | WIRE_F_ATOMIC_WRITE | O |
	    WIRE_F_RETH | WIRE_F_PAYLOAD, WIRE_QPT_RC),

	SEND_WRITE_ROWS("UC", WIRE_TP_UC, 0, WIRE_QPT_UC),

	ROW(WIRE_OP_UD(SEND_ONLY), "UD_SEND_ONLY",
	    SND | O | SE | WIRE_F_DETH, WIRE_QPT_UD),
	ROW(WIRE_OP_UD(SEND_ONLY_IMM), "UD_SEND_ONLY_WITH_IMMEDIATE",
	    SND | O | SE | WIRE_F_DETH | WIRE_F_IMM, WIRE_QPT_UD),

	/*
	 * A CNP is followed by 16 reserved bytes, which the table treats as
	 * payload; any QP may be its target.
	 */
	ROW(WIRE_OP_CNP, "CNP", WIRE_F_CNP | WIRE_F_PAYLOAD, WIRE_QPT_ALL),

	SEND_WRITE_ROWS("XRC", WIRE_TP_XRC, WIRE_F_ACKED | WIRE_F_XRCETH,
			WIRE_QPT_XRC),
	RELIABLE_ROWS("XRC", WIRE_TP_XRC, WIRE_F_ACKED | WIRE_F_XRCETH,
		      WIRE_QPT_XRC),
};

const char *wire_op_name(uint8_t op)
{
	const char *name = wire_opcode_table[op].name;

	return name ? name : "UNKNOWN";
}

enum wire_parse_err wire_pkt_parse(struct wire_pkt *pkt, void *buf,
				   size_t len)
{
	const struct wire_opcode_info *info;
	uint8_t *p = buf;
	size_t body, pay;
	unsigned int pad;

	if (len < WIRE_BTH_LEN + WIRE_ICRC_LEN)
		return WIRE_ERR_LEN;
	info = wire_opcode(bth_opcode(p));
	if (!(info->flags & WIRE_F_VALID))
		return WIRE_ERR_OPCODE;
	body = len - WIRE_ICRC_LEN;
	if (body < info->hdr_len)
		return WIRE_ERR_LEN;
	/* A UDP datagram never exceeds 64 KiB, so the lengths fit 32 bits. */
	if (body > UINT32_MAX)
		return WIRE_ERR_LEN;
	if (bth_tver(p) != WIRE_BTH_TVER)
		return WIRE_ERR_TVER;
	/* Headers are whole words and pad rounds the payload up to one. */
	if (body & 3)
		return WIRE_ERR_ALIGN;
	pay = body - info->hdr_len;
	pad = bth_pad(p);
	if (!(info->flags & WIRE_F_PAYLOAD) && (pay || pad))
		return pay ? WIRE_ERR_LEN : WIRE_ERR_PAD;
	if (pad > pay)
		return WIRE_ERR_PAD;

	pkt->hdr = p;
	pkt->pay = p + info->hdr_len;
	pkt->info = info;
	pkt->len = (uint32_t)body;
	pkt->paylen = (uint32_t)(pay - pad);
	return WIRE_OK;
}

const char *wire_parse_strerror(enum wire_parse_err err)
{
	switch (err) {
	case WIRE_OK:
		return "ok";
	case WIRE_ERR_LEN:
		return "length does not fit the opcode";
	case WIRE_ERR_OPCODE:
		return "unknown opcode";
	case WIRE_ERR_TVER:
		return "unsupported transport header version";
	case WIRE_ERR_PAD:
		return "bad pad count";
	case WIRE_ERR_ALIGN:
		return "length not a multiple of 4";
	}
	return "unknown error";
}
