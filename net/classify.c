/* net/classify.c: a packet's class, NAK kind and message start from its
 * opcode's row of the opcode table, its destination QP and its AETH. */
#include "net/classify.h"
#include "net/hdr.h"

static uint8_t class_of(const uint8_t *bth, uint32_t len, uint32_t f)
{
	if (f & WIRE_F_CNP)
		return WIRE_CLS_CNP;
	if (bth_qpn(bth) == WIRE_GSI_QPN)
		return WIRE_CLS_CM;
	if (f & WIRE_F_ATOMIC)
		return WIRE_CLS_ATOMIC;
	if (f & WIRE_F_ACK) {
		if (len < WIRE_BTH_LEN + WIRE_AETH_LEN)
			return WIRE_CLS_OTHER;
		return aeth_syn_kind(aeth_syndrome(bth)) == AETH_ACK ?
		       WIRE_CLS_ACK : WIRE_CLS_NAK;
	}
	if (f & WIRE_F_READ)
		return f & WIRE_F_REQ ? WIRE_CLS_READ_REQ :
					WIRE_CLS_READ_RESP;
	if (f & WIRE_F_WRITE)
		return WIRE_CLS_WRITE;
	if (f & WIRE_F_SEND)
		return WIRE_CLS_SEND;
	return WIRE_CLS_OTHER;
}

/* The kind of the NAK whose syndrome is syn. */
static uint8_t nak_of(uint8_t syn)
{
	if (aeth_syn_kind(syn) == AETH_RNR_NAK)
		return WIRE_NAK_RNR;
	if (aeth_syn_kind(syn) != AETH_NAK)
		return WIRE_NAK_OTHER;
	switch (aeth_syn_value(syn)) {
	case AETH_NAK_PSN_SEQ:
		return WIRE_NAK_PSN_SEQ;
	case AETH_NAK_REMOTE_ACCESS:
		return WIRE_NAK_REM_ACCESS;
	case AETH_NAK_REMOTE_OP:
		return WIRE_NAK_REM_OP;
	case AETH_NAK_INVALID_REQ:
	case AETH_NAK_INVALID_RD_REQ:
		return WIRE_NAK_INV_REQ;
	default:
		return WIRE_NAK_OTHER;
	}
}

void wire_classify(struct wire_class_of *c, const void *bth, uint32_t len)
{
	const uint8_t *p = bth;
	uint32_t f;

	c->nak = WIRE_NAK_NONE;
	if (len < WIRE_BTH_LEN) {
		c->cls = WIRE_CLS_OTHER;
		c->msg_start = true;
		return;
	}
	f = wire_opcode(bth_opcode(p))->flags;
	c->cls = class_of(p, len, f);
	c->msg_start = (f & WIRE_F_FIRST) ||
		       !(f & (WIRE_F_MIDDLE | WIRE_F_LAST));
	/* The class says there is an AETH and that it is no ACK. */
	if (c->cls == WIRE_CLS_NAK)
		c->nak = nak_of(aeth_syndrome(p));
}
