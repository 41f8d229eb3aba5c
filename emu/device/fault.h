/* Fault rules: what a rule matches (direction, QPs, peer, opcode class, PSN
 * range, message number, every Nth, a seeded probability, a time window)
 * and what it does (drop, duplicate, delay, reorder, corrupt, truncate);
 * the one grammar of config sections, EMUVERBS_FAULT and the C API. */
#ifndef EMU_FAULT_H
#define EMU_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "net/classify.h"

/* Rules per device at most, and the name of one. */
#define EMU_FAULT_MAX		32
#define EMU_FAULT_NAME_MAX	32
/* Packets a rule remembers having acted on (a power of 2): one forgotten
 * meets the fate of its first sighting again, once. */
#define EMU_FAULT_SIGHTS	256
#define EMU_FAULT_WAYS		8	/* in sets of so many */

/* A packet a rule acted on, by identity, how many times, and when last
 * (the rule's count of actions then). */
struct emu_fault_sight {
	uint64_t id;			/* 0: empty */
	uint64_t when;
	uint32_t times;
};

enum emu_fault_action {
	EMU_FAULT_NONE,		/* not set yet: a rule needs one */
	EMU_FAULT_DROP,
	EMU_FAULT_DUPLICATE,	/* the packet and a copy right after it */
	EMU_FAULT_DELAY,	/* held delay_ns, others pass it */
	EMU_FAULT_REORDER,	/* held until reorder_n more have passed */
	EMU_FAULT_CORRUPT,	/* one bit flipped, in the headers or payload */
	EMU_FAULT_TRUNCATE,	/* cut to keep bytes */
	/* Scheduled events (at=): no packet matches them. */
	EMU_FAULT_PORT_DOWN,
	EMU_FAULT_PORT_UP,
	EMU_FAULT_PORT_SPEED,	/* speed= and/or width= */
	EMU_FAULT_GID_ADD,	/* gid=ADDRESS */
	EMU_FAULT_GID_DEL,
	EMU_FAULT_QP_FATAL,	/* qpn= */
	EMU_FAULT_CQ_ERR,	/* qpn=: the QP's send CQ */
	EMU_FAULT_SRQ_ERR,	/* srqn= */
	EMU_FAULT_QP_REQ_ERR,	/* qpn=: ERR, IBV_EVENT_QP_REQ_ERR */
	EMU_FAULT_QP_ACCESS_ERR, /* qpn=: ERR, IBV_EVENT_QP_ACCESS_ERR */
	/* Port events that change nothing a RoCE port has: raised only. */
	EMU_FAULT_LID_CHANGE,
	EMU_FAULT_PKEY_CHANGE,
	EMU_FAULT_SM_CHANGE,
	EMU_FAULT_CLIENT_REREGISTER,
};

#define EMU_FAULT_FIRST_EVENT	EMU_FAULT_PORT_DOWN

#define EMU_FAULT_TX		(1u << 0)
#define EMU_FAULT_RX		(1u << 1)

/* Opcode classes (op=), a bit for each of net/classify.h's: a packet is
 * in exactly one. */
enum emu_fault_class {
	EMU_FC_SEND = 1u << WIRE_CLS_SEND,
	EMU_FC_WRITE = 1u << WIRE_CLS_WRITE,
	EMU_FC_READ_REQ = 1u << WIRE_CLS_READ_REQ,
	EMU_FC_READ_RESP = 1u << WIRE_CLS_READ_RESP,
	EMU_FC_ATOMIC = 1u << WIRE_CLS_ATOMIC,	/* requests and their ACKs */
	EMU_FC_ACK = 1u << WIRE_CLS_ACK,
	EMU_FC_NAK = 1u << WIRE_CLS_NAK,	/* sequence, access, RNR, ... */
	EMU_FC_CNP = 1u << WIRE_CLS_CNP,
	EMU_FC_CM = 1u << WIRE_CLS_CM,		/* to or from QP1: CM MADs */
	EMU_FC_OTHER = 1u << WIRE_CLS_OTHER,	/* flush, atomic write */
};

struct emu_fault_rule {
	char name[EMU_FAULT_NAME_MAX];
	/* Where it applies: a device by name and a port (empty, 0: all). */
	char device[32];
	uint32_t port;

	enum emu_fault_action action;
	uint8_t dirs;			/* EMU_FAULT_TX | EMU_FAULT_RX */
	bool has_qpn, has_rqpn, has_peer, has_psn;
	uint32_t qpn, rqpn;		/* local, remote */
	struct in6_addr peer;		/* IPv4 v4-mapped */
	uint32_t classes;		/* EMU_FC_*; 0: any */
	uint32_t psn_lo, psn_hi;	/* inclusive, may wrap */
	uint64_t msg_lo, msg_hi;	/* 1-based; 0: any */
	uint32_t every;			/* every Nth match; 0: each */
	uint32_t prob_ppm;		/* parts per million; 1000000: all */
	uint64_t seed;
	uint64_t after_ns, for_ns;	/* window from the device's start;
					 * for_ns 0: no end */
	uint64_t count;			/* actions at most; 0: no limit */
	/* The action's parameters. */
	uint64_t delay_ns;
	uint32_t reorder_n;
	bool corrupt_payload;		/* else the headers */
	uint32_t keep;			/* truncate: bytes kept */
	/* Events: when (from the device's start), and what with. */
	uint64_t at_ns;
	bool has_at, has_srqn, has_gid, fired;
	char speed[8], width[4];	/* port_speed, as the config says */
	uint32_t srqn;
	struct in6_addr gid;

	/* Counted: packets that met every matcher, and what was done. */
	uint64_t matched, acted;
	/* State of every=, prob= and msg=. */
	uint64_t rng, seen, msgs;
	/* prob= draws from the seed and the packet (its local QP's index,
	 * PSN and opcode, and how often this rule acted on it before: a
	 * retransmission draws anew): EMU_FAULT_SIGHTS packets it acted on
	 * lately, kept by the rule set that owns the rule. Without them
	 * (NULL), the draws are the seed's sequence, one per packet. */
	struct emu_fault_sight *sight;
	uint64_t draw;			/* the last draw, for corrupt */
	uint64_t draw_id;		/* of that packet; 0: none */
	uint32_t sighting;		/* times acted on it before */
};

static inline bool emu_fault_is_event(const struct emu_fault_rule *r)
{
	return r->action >= EMU_FAULT_FIRST_EVENT;
}

/* The action's word in the grammar ("drop", "port_down", ...). */
const char *emu_fault_action_name(enum emu_fault_action a);

/* An empty rule named name (no action yet: emu_fault_check says so). */
void emu_fault_rule_init(struct emu_fault_rule *r, const char *name);
/* Set one key from its text: 0, or -1 with a one-line reason in err. */
int emu_fault_set(struct emu_fault_rule *r, const char *key, const char *v,
		  char *err, size_t errlen);
/* A rule with every key read: 0, or -1 and why (no action, parameters of
 * another action). */
int emu_fault_check(struct emu_fault_rule *r, char *err, size_t errlen);

/*
 * One or more rules in one line, separated by ';': "ACTION key=value ...",
 * for example "drop dir=rx op=write prob=0.01 seed=7" (the action is the
 * word without '=', wherever it is; name=NAME names the rule). Rules go to out
 * (*n of them, at most max); on a problem, nothing is kept, *n is 0, and
 * err says at which character (1-based) and why.
 */
int emu_fault_parse(const char *s, struct emu_fault_rule *out,
		    unsigned int max, unsigned int *n, char *err,
		    size_t errlen);

/* A rule back as a line of the same grammar, with its counters. */
void emu_fault_format(const struct emu_fault_rule *r, char *buf, size_t len);

/* What a rule says of one packet. */
struct emu_fault_pkt {
	uint8_t dir;			/* EMU_FAULT_TX or EMU_FAULT_RX */
	uint32_t port;
	uint32_t qpn, rqpn;		/* local, remote (rqpn ~0: unknown) */
	/* The local QP's place in its device: the same in every run that
	 * creates QPs in the same order, as its QPN (random) is not. */
	uint32_t qp_index;
	const struct in6_addr *peer;
	const uint8_t *bth;
	uint32_t len;			/* BTH through ICRC */
	uint64_t since_ns;		/* since the device started */
};

/* Whether r acts on p; counts the match and the action. */
bool emu_fault_match(struct emu_fault_rule *r, const struct emu_fault_pkt *p);

/* Corrupt: flip one bit of the len bytes at bth, in the headers (BTH and
 * extensions) or the payload as r says, at a position from r's seed;
 * the payload of a packet that has none takes it in the headers. */
void emu_fault_corrupt(struct emu_fault_rule *r, uint8_t *bth, uint32_t len);

#endif
