/* net/classify.h: what a packet is, read from its BTH and AETH alone, for
 * those that count packets and those that pick packets to fault: its
 * class (every packet in exactly one), the kind of a NAK, and whether it
 * starts a message. It reads the bytes from the BTH on, whichever wire
 * carried them.
 */
#ifndef EMU_NET_CLASSIFY_H
#define EMU_NET_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

/* The classes, in the order counters list them and fault rules' op=
 * bits take them. */
enum wire_class {
	WIRE_CLS_SEND,
	WIRE_CLS_WRITE,
	WIRE_CLS_READ_REQ,
	WIRE_CLS_READ_RESP,
	WIRE_CLS_ATOMIC,	/* requests and their atomic ACKs */
	WIRE_CLS_ACK,
	WIRE_CLS_NAK,		/* every kind, RNR NAKs among them */
	WIRE_CLS_CNP,
	WIRE_CLS_CM,		/* to or from QP1: CM MADs */
	WIRE_CLS_OTHER,		/* flush, atomic write, no BTH */
	WIRE_NCLASS
};

/* The NAKs of WIRE_CLS_NAK by their AETH syndrome. */
enum wire_nak_kind {
	WIRE_NAK_PSN_SEQ,
	WIRE_NAK_RNR,
	WIRE_NAK_REM_ACCESS,
	WIRE_NAK_REM_OP,
	WIRE_NAK_INV_REQ,	/* invalid request, invalid RD request */
	WIRE_NAK_OTHER,		/* reserved codes and kinds */
	WIRE_NNAK,
	WIRE_NAK_NONE = WIRE_NNAK	/* not a NAK */
};

struct wire_class_of {
	uint8_t cls;		/* enum wire_class */
	uint8_t nak;		/* enum wire_nak_kind */
	/* A FIRST or ONLY packet, or one that is no part of a message
	 * (an ACK, an undefined opcode, no BTH): a message starts here. */
	bool msg_start;
};

/* The class of the len bytes from the BTH at bth (ICRC included or not:
 * only the BTH and an AETH are read, when len covers them). */
void wire_classify(struct wire_class_of *c, const void *bth, uint32_t len);

#endif /* EMU_NET_CLASSIFY_H */
