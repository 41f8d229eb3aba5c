/* Fault rules as text and as matchers: the keys every way of writing a rule
 * shares (config sections, EMUVERBS_FAULT, emuverbs_fault_add), the check
 * of a whole rule, the one-line form, and whether a packet is matched. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/fault.h"
#include "emu/base/rand.h"
#include "emu/device/speed.h"
#include "net/hdr.h"
#include "net/icrc.h"
#include "net/opcode.h"

#define PPM		1000000u

static const char *const actions[] = {
	[EMU_FAULT_DROP] = "drop",
	[EMU_FAULT_DUPLICATE] = "duplicate",
	[EMU_FAULT_DELAY] = "delay",
	[EMU_FAULT_REORDER] = "reorder",
	[EMU_FAULT_CORRUPT] = "corrupt",
	[EMU_FAULT_TRUNCATE] = "truncate",
	[EMU_FAULT_PORT_DOWN] = "port_down",
	[EMU_FAULT_PORT_UP] = "port_up",
	[EMU_FAULT_PORT_SPEED] = "port_speed",
	[EMU_FAULT_GID_ADD] = "gid_add",
	[EMU_FAULT_GID_DEL] = "gid_del",
	[EMU_FAULT_QP_FATAL] = "qp_fatal",
	[EMU_FAULT_CQ_ERR] = "cq_err",
	[EMU_FAULT_SRQ_ERR] = "srq_err",
	[EMU_FAULT_QP_REQ_ERR] = "qp_req_err",
	[EMU_FAULT_QP_ACCESS_ERR] = "qp_access_err",
	[EMU_FAULT_LID_CHANGE] = "lid_change",
	[EMU_FAULT_PKEY_CHANGE] = "pkey_change",
	[EMU_FAULT_SM_CHANGE] = "sm_change",
	[EMU_FAULT_CLIENT_REREGISTER] = "client_reregister",
};

#define NACTIONS (sizeof(actions) / sizeof(actions[0]))

const char *emu_fault_action_name(enum emu_fault_action a)
{
	return (unsigned int)a < NACTIONS && actions[a] ? actions[a] : "none";
}

static const struct {
	const char *name;
	uint32_t bit;
} classes[] = {
	{ "send", EMU_FC_SEND },	{ "write", EMU_FC_WRITE },
	{ "read_req", EMU_FC_READ_REQ }, { "read_resp", EMU_FC_READ_RESP },
	{ "atomic", EMU_FC_ATOMIC },	{ "ack", EMU_FC_ACK },
	{ "nak", EMU_FC_NAK },		{ "cnp", EMU_FC_CNP },
	{ "cm", EMU_FC_CM },		{ "other", EMU_FC_OTHER },
};

#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static void reseed(struct emu_fault_rule *r)
{
	r->rng = emu_rand_seed(r->seed);
}

void emu_fault_rule_init(struct emu_fault_rule *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name ? name : "");
	r->dirs = EMU_FAULT_TX | EMU_FAULT_RX;
	r->prob_ppm = PPM;
	reseed(r);
}

/* An unsigned number, decimal or 0x hex, within [lo, hi]. */
static int num(const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
	       char *err, size_t len)
{
	unsigned long long x;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*v))
		return fail(err, len, "%s is not a number", v);
	x = strtoull(v, &end, 0);
	if (errno || *end)
		return fail(err, len, "%s is not a number", v);
	if (x < lo || x > hi)
		return fail(err, len, "%s is out of range (%llu..%llu)", v,
			    (unsigned long long)lo, (unsigned long long)hi);
	*out = x;
	return 0;
}

/* A time with its unit: 500ns, 20us, 10ms, 2s. */
static int duration(const char *v, uint64_t *ns, char *err, size_t len)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		      { "s", 1000000000 } };
	unsigned long long x;
	unsigned int i;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*v))
		return fail(err, len, "%s is not a time (such as 20us)", v);
	x = strtoull(v, &end, 10);
	for (i = 0; !errno && i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		/* An hour at most: enough for any experiment. */
		if (x > 3600ull * 1000000000 / units[i].ns)
			return fail(err, len, "%s is more than an hour", v);
		*ns = x * units[i].ns;
		return 0;
	}
	return fail(err, len, "%s is not a time (a number and ns, us, ms "
		    "or s)", v);
}

/* An IPv4 (stored v4-mapped) or IPv6 address. */
static int address(const char *v, struct in6_addr *a, char *err, size_t len)
{
	struct in_addr v4;

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, v, &v4) == 1) {
		a->s6_addr[10] = 0xff;
		a->s6_addr[11] = 0xff;
		memcpy(&a->s6_addr[12], &v4, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, v, a) == 1)
		return 0;
	return fail(err, len, "%s is not an IPv4 or IPv6 address", v);
}

/* "A" or "A-B" within [lo, hi]. */
static int range(const char *v, uint64_t lo, uint64_t hi, uint64_t *a,
		 uint64_t *b, char *err, size_t len)
{
	char first[32];
	const char *dash = strchr(v, '-');

	if (!dash)
		return num(v, lo, hi, a, err, len) ? -1 :
		       (*b = *a, 0);
	if ((size_t)(dash - v) >= sizeof(first))
		return fail(err, len, "%s is not a number or A-B", v);
	memcpy(first, v, (size_t)(dash - v));
	first[dash - v] = '\0';
	if (num(first, lo, hi, a, err, len) ||
	    num(dash + 1, lo, hi, b, err, len))
		return -1;
	return 0;
}

static int classes_of(const char *v, uint32_t *out, char *err, size_t len)
{
	char buf[128], *w, *save = NULL;
	unsigned int i;

	if (strlen(v) >= sizeof(buf))
		return fail(err, len, "too long");
	strcpy(buf, v);
	*out = 0;
	for (w = strtok_r(buf, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NCLASSES && strcmp(w, classes[i].name); i++)
			;
		if (i == NCLASSES)
			return fail(err, len, "%s is not one of send, write, "
				    "read_req, read_resp, atomic, ack, nak, "
				    "cnp, cm, other", w);
		*out |= classes[i].bit;
	}
	if (!*out)
		return fail(err, len, "no opcode class");
	return 0;
}

/* A probability as a decimal fraction, to a millionth. */
static int probability(const char *v, uint32_t *ppm, char *err, size_t len)
{
	double p;
	char *end;

	errno = 0;
	p = strtod(v, &end);
	if (errno || *end || end == v || !(p >= 0 && p <= 1))
		return fail(err, len, "%s is not a probability (0..1)", v);
	*ppm = (uint32_t)(p * PPM + 0.5);
	return 0;
}

int emu_fault_set(struct emu_fault_rule *r, const char *key, const char *v,
		  char *err, size_t len)
{
	uint64_t a, b;
	unsigned int i;

	if (!*v)
		return fail(err, len, "missing value");
	if (!strcmp(key, "action")) {
		for (i = 1; i < NACTIONS && strcmp(v, actions[i]); i++)
			;
		if (i == NACTIONS)
			return fail(err, len, "%s is not one of drop, "
				    "duplicate, delay, reorder, corrupt, "
				    "truncate, port_down, port_up, "
				    "port_speed, gid_add, gid_del, qp_fatal, "
				    "cq_err, srq_err, qp_req_err, "
				    "qp_access_err, lid_change, pkey_change, "
				    "sm_change, client_reregister", v);
		r->action = (enum emu_fault_action)i;
	} else if (!strcmp(key, "dir")) {
		if (!strcmp(v, "tx"))
			r->dirs = EMU_FAULT_TX;
		else if (!strcmp(v, "rx"))
			r->dirs = EMU_FAULT_RX;
		else if (!strcmp(v, "both"))
			r->dirs = EMU_FAULT_TX | EMU_FAULT_RX;
		else
			return fail(err, len, "%s is not one of tx, rx, both",
				    v);
	} else if (!strcmp(key, "device")) {
		if (strlen(v) >= sizeof(r->device))
			return fail(err, len, "%s is too long a device name",
				    v);
		strcpy(r->device, v);
	} else if (!strcmp(key, "port")) {
		if (num(v, 1, 255, &a, err, len))
			return -1;
		r->port = (uint32_t)a;
	} else if (!strcmp(key, "qpn") || !strcmp(key, "rqpn")) {
		if (num(v, 0, 0xffffff, &a, err, len))
			return -1;
		if (key[0] == 'q') {
			r->qpn = (uint32_t)a;
			r->has_qpn = true;
		} else {
			r->rqpn = (uint32_t)a;
			r->has_rqpn = true;
		}
	} else if (!strcmp(key, "peer") || !strcmp(key, "gid")) {
		struct in6_addr *addr = key[0] == 'p' ? &r->peer : &r->gid;

		if (address(v, addr, err, len))
			return -1;
		if (key[0] == 'p')
			r->has_peer = true;
		else
			r->has_gid = true;
	} else if (!strcmp(key, "at")) {
		if (duration(v, &r->at_ns, err, len))
			return -1;
		r->has_at = true;
	} else if (!strcmp(key, "speed")) {
		enum emu_speed sp;

		if (emu_speed_parse(v, &sp))
			return fail(err, len, "%s is not one of SDR, DDR, QDR, "
				    "FDR10, FDR, EDR, HDR, NDR, XDR", v);
		snprintf(r->speed, sizeof(r->speed), "%s", v);
	} else if (!strcmp(key, "width")) {
		enum emu_width w;

		if (emu_width_parse(v, &w))
			return fail(err, len, "%s is not one of 1x, 2x, 4x, "
				    "8x, 12x", v);
		snprintf(r->width, sizeof(r->width), "%s", v);
	} else if (!strcmp(key, "srqn")) {
		if (num(v, 0, 0xffffff, &a, err, len))
			return -1;
		r->srqn = (uint32_t)a;
		r->has_srqn = true;
	} else if (!strcmp(key, "op")) {
		return classes_of(v, &r->classes, err, len);
	} else if (!strcmp(key, "psn")) {
		if (range(v, 0, 0xffffff, &a, &b, err, len))
			return -1;
		r->psn_lo = (uint32_t)a;
		r->psn_hi = (uint32_t)b;
		r->has_psn = true;
	} else if (!strcmp(key, "msg")) {
		if (range(v, 1, UINT64_MAX, &a, &b, err, len))
			return -1;
		if (b < a)
			return fail(err, len, "%s ends before it starts", v);
		r->msg_lo = a;
		r->msg_hi = b;
	} else if (!strcmp(key, "every")) {
		if (num(v, 1, UINT32_MAX, &a, err, len))
			return -1;
		r->every = (uint32_t)a;
	} else if (!strcmp(key, "prob")) {
		return probability(v, &r->prob_ppm, err, len);
	} else if (!strcmp(key, "seed")) {
		if (num(v, 0, UINT64_MAX, &r->seed, err, len))
			return -1;
		reseed(r);
	} else if (!strcmp(key, "after")) {
		return duration(v, &r->after_ns, err, len);
	} else if (!strcmp(key, "for")) {
		if (duration(v, &r->for_ns, err, len))
			return -1;
		if (!r->for_ns)
			return fail(err, len, "a window of 0 matches nothing");
	} else if (!strcmp(key, "count")) {
		return num(v, 1, UINT64_MAX, &r->count, err, len);
	} else if (!strcmp(key, "delay")) {
		if (duration(v, &r->delay_ns, err, len))
			return -1;
		if (!r->delay_ns)
			return fail(err, len, "a delay of 0 does nothing");
	} else if (!strcmp(key, "hold")) {
		if (num(v, 1, 1000, &a, err, len))
			return -1;
		r->reorder_n = (uint32_t)a;
	} else if (!strcmp(key, "where")) {
		if (!strcmp(v, "payload"))
			r->corrupt_payload = true;
		else if (!strcmp(v, "header"))
			r->corrupt_payload = false;
		else
			return fail(err, len, "%s is not one of header, "
				    "payload", v);
	} else if (!strcmp(key, "keep")) {
		if (num(v, 0, 65535, &a, err, len))
			return -1;
		r->keep = (uint32_t)a;
	} else {
		return fail(err, len, "unknown fault key (action, dir, device, "
			    "port, qpn, rqpn, peer, op, psn, msg, every, prob, "
			    "seed, after, for, count, delay, hold, where, "
			    "keep, at, speed, width, gid, srqn)");
	}
	return 0;
}

/* What an event needs, and the packet matchers it must not have. */
static int check_event(struct emu_fault_rule *r, char *err, size_t len)
{
	enum emu_fault_action a = r->action;
	bool on_qp = a == EMU_FAULT_QP_FATAL || a == EMU_FAULT_CQ_ERR ||
		     a == EMU_FAULT_QP_REQ_ERR || a == EMU_FAULT_QP_ACCESS_ERR;

	if (!r->has_at)
		return fail(err, len, "%s needs at=TIME", actions[a]);
	if (r->has_peer || r->has_rqpn || r->has_psn || r->classes ||
	    r->msg_lo || r->every || r->prob_ppm != PPM || r->after_ns ||
	    r->for_ns || r->count || r->dirs != (EMU_FAULT_TX | EMU_FAULT_RX))
		return fail(err, len, "%s is an event: it takes at=, port=, "
			    "device= and its own keys, not packet matchers",
			    actions[a]);
	if (on_qp && !r->has_qpn)
		return fail(err, len, "%s needs qpn=", actions[a]);
	if (!on_qp && r->has_qpn)
		return fail(err, len, "qpn= is for qp_fatal, qp_req_err, "
			    "qp_access_err and cq_err");
	if ((a == EMU_FAULT_SRQ_ERR) != r->has_srqn)
		return fail(err, len, a == EMU_FAULT_SRQ_ERR ?
			    "srq_err needs srqn=" :
			    "srqn= is for srq_err");
	if ((a == EMU_FAULT_GID_ADD || a == EMU_FAULT_GID_DEL) != r->has_gid)
		return fail(err, len, r->has_gid ? "gid= is for gid_add and "
			    "gid_del" : "%s needs gid=ADDRESS", actions[a]);
	if ((a == EMU_FAULT_PORT_SPEED) != (r->speed[0] || r->width[0]))
		return fail(err, len, a == EMU_FAULT_PORT_SPEED ?
			    "port_speed needs speed= or width=" :
			    "speed= and width= are for port_speed");
	if (!r->port)
		r->port = 1;
	return 0;
}

int emu_fault_check(struct emu_fault_rule *r, char *err, size_t len)
{
	if (r->action == EMU_FAULT_NONE)
		return fail(err, len, "no action (drop, duplicate, delay, "
			    "reorder, corrupt, truncate, or an event)");
	if (emu_fault_is_event(r)) {
		if (r->delay_ns || r->reorder_n || r->keep)
			return fail(err, len, "delay=, hold= and keep= are "
				    "for packet rules");
		if (check_event(r, err, len))
			return -1;
		r->matched = r->acted = 0;
		r->fired = false;
		return 0;
	}
	if (r->has_at || r->has_gid || r->has_srqn || r->speed[0] ||
	    r->width[0])
		return fail(err, len, "at=, gid=, srqn=, speed= and width= "
			    "are for events");
	if (r->action == EMU_FAULT_DELAY && !r->delay_ns)
		return fail(err, len, "delay needs delay=TIME");
	if (r->action != EMU_FAULT_DELAY && r->delay_ns)
		return fail(err, len, "delay= is for the delay action");
	if (r->action == EMU_FAULT_REORDER && !r->reorder_n)
		r->reorder_n = 1;
	if (r->action != EMU_FAULT_REORDER && r->reorder_n)
		return fail(err, len, "hold= is for the reorder action");
	if (r->action != EMU_FAULT_TRUNCATE && r->keep)
		return fail(err, len, "keep= is for the truncate action");
	reseed(r);
	r->matched = r->acted = r->seen = r->msgs = 0;
	r->sight = NULL;
	return 0;
}

/* One rule's text, s[0..n), whose first character is character base of
 * the whole line (for messages). */
static int parse_one(const char *s, size_t n, size_t base,
		     struct emu_fault_rule *r, char *err, size_t len)
{
	char buf[512], why[160], *w, *eq, *save = NULL;
	bool first = true;

	if (n >= sizeof(buf))
		return fail(err, len, "character %zu: rule too long", base);
	memcpy(buf, s, n);
	buf[n] = '\0';
	emu_fault_rule_init(r, "env");
	for (w = strtok_r(buf, " \t\n", &save); w;
	     w = strtok_r(NULL, " \t\n", &save)) {
		size_t at = base + (size_t)(w - buf);

		eq = strchr(w, '=');
		/* The action is the one word that is not key=value. */
		if (!eq && r->action == EMU_FAULT_NONE) {
			if (emu_fault_set(r, "action", w, why, sizeof(why)))
				return fail(err, len, "character %zu: %s", at,
					    why);
		} else if (!eq) {
			return fail(err, len, "character %zu: %s is not "
				    "key=value", at, w);
		} else {
			*eq = '\0';
			if (!strcmp(w, "name")) {
				snprintf(r->name, sizeof(r->name), "%s",
					 eq + 1);
			} else if (emu_fault_set(r, w, eq + 1, why,
						 sizeof(why))) {
				return fail(err, len, "character %zu: %s: %s",
					    at, w, why);
			}
		}
		first = false;
	}
	if (first)
		return fail(err, len, "character %zu: empty rule", base);
	if (emu_fault_check(r, why, sizeof(why)))
		return fail(err, len, "character %zu: %s", base, why);
	return 0;
}

int emu_fault_parse(const char *s, struct emu_fault_rule *out,
		    unsigned int max, unsigned int *n, char *err,
		    size_t errlen)
{
	const char *p = s, *end;
	unsigned int k = 0;

	*n = 0;
	while (*p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		/* Spaces alone between separators are no rule. */
		if (strspn(p, " \t\n") < (size_t)(end - p)) {
			if (k == max)
				return fail(err, errlen, "character %zu: more "
					    "than %u rules", (size_t)(p - s) +
					    strspn(p, " \t\n") + 1, max);
			if (parse_one(p, (size_t)(end - p),
				      (size_t)(p - s) + 1, &out[k], err,
				      errlen))
				return -1;
			k++;
		}
		p = *end ? end + 1 : end;
	}
	*n = k;
	return 0;
}

/* An address as the grammar takes it: IPv4 dotted, IPv6 otherwise. */
static const char *addr_str(const struct in6_addr *v, char *a, size_t len)
{
	if (IN6_IS_ADDR_V4MAPPED(v))
		return inet_ntop(AF_INET, &v->s6_addr[12], a, (socklen_t)len);
	return inet_ntop(AF_INET6, v, a, (socklen_t)len);
}

void emu_fault_format(const struct emu_fault_rule *r, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	size_t at = 0;
	unsigned int i;
	bool sep = false;

#define PUT(...)                                                        \
	do {                                                            \
		if (at < len)                                           \
			at += (size_t)snprintf(buf + at, len - at,      \
					       __VA_ARGS__);            \
	} while (0)
	PUT("%s: %s", r->name, r->action < NACTIONS && actions[r->action] ?
	    actions[r->action] : "?");
	if (r->dirs != (EMU_FAULT_TX | EMU_FAULT_RX))
		PUT(" dir=%s", r->dirs == EMU_FAULT_TX ? "tx" : "rx");
	if (r->device[0])
		PUT(" device=%s", r->device);
	if (r->port)
		PUT(" port=%u", r->port);
	if (r->has_qpn)
		PUT(" qpn=0x%x", r->qpn);
	if (r->has_rqpn)
		PUT(" rqpn=0x%x", r->rqpn);
	if (r->has_peer)
		PUT(" peer=%s", addr_str(&r->peer, a, sizeof(a)));
	if (r->classes) {
		PUT(" op=");
		for (i = 0; i < NCLASSES; i++)
			if (r->classes & classes[i].bit) {
				PUT("%s%s", sep ? "," : "", classes[i].name);
				sep = true;
			}
	}
	if (r->has_psn)
		PUT(" psn=%u-%u", r->psn_lo, r->psn_hi);
	if (r->msg_lo)
		PUT(" msg=%llu-%llu", (unsigned long long)r->msg_lo,
		    (unsigned long long)r->msg_hi);
	if (r->every)
		PUT(" every=%u", r->every);
	if (r->prob_ppm != PPM)
		PUT(" prob=%.6f seed=%llu", (double)r->prob_ppm / PPM,
		    (unsigned long long)r->seed);
	if (r->after_ns)
		PUT(" after=%lluns", (unsigned long long)r->after_ns);
	if (r->for_ns)
		PUT(" for=%lluns", (unsigned long long)r->for_ns);
	if (r->count)
		PUT(" count=%llu", (unsigned long long)r->count);
	if (r->delay_ns)
		PUT(" delay=%lluns", (unsigned long long)r->delay_ns);
	if (r->reorder_n)
		PUT(" hold=%u", r->reorder_n);
	if (r->action == EMU_FAULT_CORRUPT)
		PUT(" where=%s", r->corrupt_payload ? "payload" : "header");
	if (r->action == EMU_FAULT_TRUNCATE)
		PUT(" keep=%u", r->keep);
	if (r->has_at)
		PUT(" at=%lluns", (unsigned long long)r->at_ns);
	if (r->speed[0])
		PUT(" speed=%s", r->speed);
	if (r->width[0])
		PUT(" width=%s", r->width);
	if (r->has_srqn)
		PUT(" srqn=0x%x", r->srqn);
	if (r->has_gid)
		PUT(" gid=%s", addr_str(&r->gid, a, sizeof(a)));
	PUT(" (matched %llu, acted %llu)", (unsigned long long)r->matched,
	    (unsigned long long)r->acted);
#undef PUT
}

static bool psn_in(const struct emu_fault_rule *r, uint32_t psn)
{
	if (r->psn_lo <= r->psn_hi)
		return psn >= r->psn_lo && psn <= r->psn_hi;
	return psn >= r->psn_lo || psn <= r->psn_hi;	/* wraps */
}

/*
 * The rule's draw for p: from the seed, the packet's identity (the local
 * QP's index, PSN, opcode) and how many times the rule acted on that
 * packet before. The first transmission of a packet so meets the same
 * fate in every run with the seed, whatever the timing let pass before
 * it, and the retransmission of a packet the rule acted on draws anew
 * (else a dropped packet would be dropped forever). Only packets acted on
 * are remembered (rule_acted): they are few, and a window of others may
 * pass before a retransmission. A packet with no BTH, or a rule with no
 * memory of its own, draws from the seed's sequence.
 */
/* The ways of a rule's memory where the packet id may be: a set of
 * EMU_FAULT_WAYS, so that a few packets acted on in one window never push
 * each other out (two that did would meet their first fate forever). */
static struct emu_fault_sight *ways_of(struct emu_fault_rule *r, uint64_t id)
{
	uint64_t set = emu_rand_mix(0, id) %
		       (EMU_FAULT_SIGHTS / EMU_FAULT_WAYS);

	return &r->sight[set * EMU_FAULT_WAYS];
}

static uint64_t draw(struct emu_fault_rule *r, const struct emu_fault_pkt *p)
{
	struct emu_fault_sight *w;
	unsigned int i;

	r->sighting = 0;
	r->draw_id = 0;
	if (p->len < WIRE_BTH_LEN || !r->sight)
		return emu_rand_next(&r->rng);
	r->draw_id = ((uint64_t)bth_opcode(p->bth) << 48 |
		      (uint64_t)(p->qp_index & WIRE_QPN_MASK) << 24 |
		      bth_psn(p->bth)) + 1;
	w = ways_of(r, r->draw_id);
	for (i = 0; i < EMU_FAULT_WAYS; i++)
		if (w[i].id == r->draw_id)
			r->sighting = w[i].times;
	return emu_rand_mix(r->seed, emu_rand_mix(r->draw_id, r->sighting));
}

/* The rule acts on the packet it drew for last: remember it, in its own
 * way of the set if it has one, else in place of the one acted on
 * longest ago. */
static void rule_acted(struct emu_fault_rule *r)
{
	struct emu_fault_sight *w, *v;
	unsigned int i;

	r->acted++;
	if (!r->draw_id)
		return;
	w = ways_of(r, r->draw_id);
	v = w;
	for (i = 0; i < EMU_FAULT_WAYS; i++) {
		if (w[i].id == r->draw_id) {
			v = &w[i];
			break;
		}
		if (w[i].when < v->when)
			v = &w[i];
	}
	v->id = r->draw_id;
	v->times = r->sighting + 1;
	v->when = r->acted;
}

bool emu_fault_match(struct emu_fault_rule *r, const struct emu_fault_pkt *p)
{
	struct wire_class_of c;

	if (emu_fault_is_event(r) || !(r->dirs & p->dir) || (r->port && r->port != p->port))
		return false;
	if (r->has_qpn && r->qpn != p->qpn)
		return false;
	if (r->has_rqpn && r->rqpn != p->rqpn)
		return false;
	if (r->has_peer &&
	    (!p->peer || memcmp(&r->peer, p->peer, sizeof(r->peer))))
		return false;
	wire_classify(&c, p->bth, p->len);
	if (r->classes && !(r->classes & 1u << c.cls))
		return false;
	if (r->has_psn &&
	    (p->len < WIRE_BTH_LEN || !psn_in(r, bth_psn(p->bth))))
		return false;
	if (p->since_ns < r->after_ns ||
	    (r->for_ns && p->since_ns - r->after_ns >= r->for_ns))
		return false;
	if (r->msg_lo) {
		/* A packet that is no part of a message (an ACK) is one
		 * by itself. */
		if (c.msg_start)
			r->msgs++;
		if (r->msgs < r->msg_lo || r->msgs > r->msg_hi)
			return false;
	}
	r->matched++;
	if (r->every > 1 && ++r->seen % r->every)
		return false;
	r->draw = draw(r, p);
	if (r->prob_ppm < PPM && r->draw % PPM >= r->prob_ppm)
		return false;
	if (r->count && r->acted >= r->count)
		return false;
	rule_acted(r);
	return true;
}

void emu_fault_corrupt(struct emu_fault_rule *r, uint8_t *bth, uint32_t len)
{
	uint32_t hdr = WIRE_BTH_LEN, lo = 0, n;
	uint64_t bit;

	if (len <= ICRC_LEN)
		return;
	if (len >= WIRE_BTH_LEN && wire_op_valid(bth_opcode(bth)))
		hdr = wire_op_hdr_len(bth_opcode(bth));
	if (hdr > len - ICRC_LEN)
		hdr = len - ICRC_LEN;
	n = hdr;
	if (r->corrupt_payload && len - ICRC_LEN > hdr) {
		lo = hdr;
		n = len - ICRC_LEN - hdr;
	}
	/* From the packet's draw: the same packet, the same bit. */
	bit = emu_rand_mix(r->draw, 1) % ((uint64_t)n * 8);
	bth[lo + bit / 8] ^= (uint8_t)(1u << (bit % 8));
}
