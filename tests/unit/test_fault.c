/* Unit tests for emu/device/fault_rule.c: every key of the grammar and its
 * refusals (with the character they are at), the check of a whole rule,
 * each matcher (the classes themselves: test_classify), the determinism of
 * every= and prob=, corruption's reach, and the rules of a config file
 * and of EMUVERBS_FAULT. */
#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/config.h"
#include "emu/device/fault.h"
#include "net/hdr.h"
#include "net/opcode.h"
#include "tests/unit/testlib.h"

static char err[256];
/* Memories for the rules of a test, as a device's rule set gives them. */
static struct emu_fault_sight sights[8][EMU_FAULT_SIGHTS];
static unsigned int nsights;

/* One rule from a line; fails the test if it does not parse. */
static struct emu_fault_rule one(const char *line)
{
	struct emu_fault_rule r[4];
	unsigned int n = 9;

	ck_assert_msg(!emu_fault_parse(line, r, 4, &n, err, sizeof(err)),
		      "%s: %s", line, err);
	ck_assert_uint_eq(n, 1);
	memset(sights[nsights % 8], 0, sizeof(sights[0]));
	r[0].sight = sights[nsights++ % 8];
	return r[0];
}

/* A line that must be refused with why in the message. */
static void refused(const char *line, const char *why)
{
	struct emu_fault_rule r[4];
	unsigned int n = 9;

	ck_assert_msg(emu_fault_parse(line, r, 4, &n, err, sizeof(err)),
		      "%s parsed", line);
	ck_assert_uint_eq(n, 0);
	ck_assert_msg(strstr(err, why), "%s: got '%s', not '%s'", line, err,
		      why);
}

START_TEST(t_grammar)
{
	struct emu_fault_rule r;
	struct emu_fault_rule rs[4];
	unsigned int n;

	r = one("drop");
	ck_assert_int_eq(r.action, EMU_FAULT_DROP);
	ck_assert_uint_eq(r.dirs, EMU_FAULT_TX | EMU_FAULT_RX);
	ck_assert_uint_eq(r.prob_ppm, 1000000);
	r = one("  corrupt dir=rx where=payload qpn=0x12 rqpn=7 port=1 "
		"device=emu0 op=write,read_resp psn=10-20 msg=3-4 every=2 "
		"prob=0.25 seed=9 after=10ms for=2s count=5 name=x");
	ck_assert_int_eq(r.action, EMU_FAULT_CORRUPT);
	ck_assert_uint_eq(r.dirs, EMU_FAULT_RX);
	ck_assert(r.corrupt_payload);
	ck_assert(r.has_qpn && r.qpn == 0x12 && r.has_rqpn && r.rqpn == 7);
	ck_assert_uint_eq(r.port, 1);
	ck_assert_str_eq(r.device, "emu0");
	ck_assert_uint_eq(r.classes, EMU_FC_WRITE | EMU_FC_READ_RESP);
	ck_assert(r.has_psn && r.psn_lo == 10 && r.psn_hi == 20);
	ck_assert(r.msg_lo == 3 && r.msg_hi == 4);
	ck_assert_uint_eq(r.every, 2);
	ck_assert_uint_eq(r.prob_ppm, 250000);
	ck_assert_uint_eq(r.seed, 9);
	ck_assert_uint_eq(r.after_ns, 10000000);
	ck_assert_uint_eq(r.for_ns, 2000000000);
	ck_assert_uint_eq(r.count, 5);
	ck_assert_str_eq(r.name, "x");
	r = one("delay delay=20us peer=127.0.0.2");
	ck_assert_uint_eq(r.delay_ns, 20000);
	ck_assert(r.has_peer && IN6_IS_ADDR_V4MAPPED(&r.peer));
	r = one("reorder peer=::1");
	ck_assert_uint_eq(r.reorder_n, 1);	/* the default */
	ck_assert(r.has_peer && IN6_IS_ADDR_LOOPBACK(&r.peer));
	r = one("truncate keep=20 dir=tx");
	ck_assert_uint_eq(r.keep, 20);
	ck_assert_uint_eq(r.dirs, EMU_FAULT_TX);
	r = one("duplicate op=cm dir=both psn=16777215-1");
	ck_assert(r.psn_lo == 0xffffff && r.psn_hi == 1);

	r = one("port_speed at=2s speed=HDR width=2x port=2");
	ck_assert(emu_fault_is_event(&r));
	ck_assert_uint_eq(r.at_ns, 2000000000ull);
	ck_assert_str_eq(r.speed, "HDR");
	ck_assert_str_eq(r.width, "2x");
	ck_assert_uint_eq(r.port, 2);
	r = one("gid_add gid=127.0.0.9 at=0ms");
	ck_assert(r.has_gid && r.port == 1);	/* port 1 by default */
	r = one("srq_err srqn=0x41 at=1us");
	ck_assert(r.has_srqn && r.srqn == 0x41);
	r = one("qp_req_err qpn=9 at=0ms");
	ck_assert_int_eq(r.action, EMU_FAULT_QP_REQ_ERR);
	r = one("qp_access_err qpn=9 at=0ms");
	ck_assert_int_eq(r.action, EMU_FAULT_QP_ACCESS_ERR);
	r = one("client_reregister at=0ms port=2");
	ck_assert_int_eq(r.action, EMU_FAULT_CLIENT_REREGISTER);
	ck_assert(emu_fault_is_event(&r) && r.port == 2);
	r = one("lid_change at=0ms");
	ck_assert_int_eq(r.action, EMU_FAULT_LID_CHANGE);
	r = one("pkey_change at=0ms");
	ck_assert_int_eq(r.action, EMU_FAULT_PKEY_CHANGE);
	r = one("sm_change at=0ms");
	ck_assert_int_eq(r.action, EMU_FAULT_SM_CHANGE);

	/* Several, with empty ones between. */
	ck_assert(!emu_fault_parse("drop every=3; ;duplicate;", rs, 4, &n,
				   err, sizeof(err)));
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(rs[1].action, EMU_FAULT_DUPLICATE);
	ck_assert(!emu_fault_parse("", rs, 4, &n, err, sizeof(err)));
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(t_refusals)
{
	struct emu_fault_rule rs[2];
	unsigned int n;

	refused("explode", "character 1: explode is not one of drop");
	refused("drop dir=up", "character 6: dir: up is not one of tx, rx");
	refused("drop qpn=0x1000000", "character 6: qpn: 0x1000000 is out "
		"of range");
	refused("drop qpn=x", "qpn: x is not a number");
	refused("drop peer=host", "peer: host is not an IPv4 or IPv6");
	refused("drop op=write,reed", "op: reed is not one of send");
	refused("drop psn=5-x", "psn: x is not a number");
	refused("drop msg=5-2", "msg: 5-2 ends before it starts");
	refused("drop msg=0", "msg: 0 is out of range");
	refused("drop every=0", "every: 0 is out of range");
	refused("drop prob=1.5", "prob: 1.5 is not a probability");
	refused("drop prob=", "prob: missing value");
	refused("drop after=10", "after: 10 is not a time");
	refused("drop after=2h", "after: 2h is not a time");
	refused("drop for=0s", "for: a window of 0 matches nothing");
	refused("drop after=3601s", "is more than an hour");
	refused("drop count=0", "count: 0 is out of range");
	refused("drop colour=red", "colour: unknown fault key");
	refused("drop seed", "character 6: seed is not key=value");
	refused("drop delay=5us", "delay= is for the delay action");
	refused("delay", "delay needs delay=TIME");
	refused("delay delay=0us", "a delay of 0 does nothing");
	refused("drop hold=2", "hold= is for the reorder action");
	refused("reorder hold=0", "hold: 0 is out of range");
	refused("drop keep=10", "keep= is for the truncate action");
	refused("corrupt where=tail", "where: tail is not one of header");
	refused("port_down", "port_down needs at=TIME");
	refused("port_down at=1ms prob=0.5", "port_down is an event");
	refused("qp_fatal at=1ms", "qp_fatal needs qpn=");
	refused("qp_req_err at=1ms", "qp_req_err needs qpn=");
	refused("qp_access_err at=1ms srqn=2", "qp_access_err needs qpn=");
	refused("port_up at=1ms qpn=3", "qpn= is for qp_fatal, qp_req_err, "
		"qp_access_err and cq_err");
	refused("sm_change at=1ms qpn=3", "qpn= is for qp_fatal");
	refused("lid_change", "lid_change needs at=TIME");
	refused("srq_err at=1ms", "srq_err needs srqn=");
	refused("gid_del at=1ms", "gid_del needs gid=ADDRESS");
	refused("port_speed at=1ms", "port_speed needs speed= or width=");
	refused("port_speed at=1ms speed=FAST", "speed: FAST is not one of");
	refused("port_up at=1ms width=3x", "width: 3x is not one of");
	refused("drop at=1s", "at=, gid=, srqn=, speed= and width= are for "
		"events");
	refused("port_down at=1ms delay=1ms", "are for packet rules");
	refused("drop; drop; dup", "character 13: dup is not one of");
	/* Nothing is kept of a line with one bad rule. */
	ck_assert(emu_fault_parse("drop; bad", rs, 2, &n, err, sizeof(err)));
	ck_assert_uint_eq(n, 0);
	ck_assert(emu_fault_parse("drop; drop; drop", rs, 2, &n, err,
				  sizeof(err)));
	ck_assert(strstr(err, "character 13: more than 2 rules"));
}
END_TEST

/* A packet of opcode op to dqpn at psn; an AETH syndrome when it has one. */
static uint32_t make(uint8_t *b, uint8_t op, uint32_t dqpn, uint32_t psn,
		     uint8_t syn)
{
	memset(b, 0, 256);
	bth_init(b, op, false, false, 0, 0xffff, dqpn, false, psn);
	if (wire_op_has(op, WIRE_F_AETH))
		aeth_init(b, syn, 0);
	return wire_op_hdr_len(op) + 64 + 4;
}

struct pktset {
	uint8_t b[256];
	struct emu_fault_pkt p;
	struct in6_addr peer;
};

static void pkt(struct pktset *s, uint8_t dir, uint8_t op, uint32_t psn)
{
	memset(&s->p, 0, sizeof(s->p));
	s->p.dir = dir;
	s->p.port = 1;
	s->p.qpn = 0x11;
	s->p.rqpn = 0x22;
	inet_pton(AF_INET6, "::ffff:127.0.0.2", &s->peer);
	s->p.peer = &s->peer;
	s->p.len = make(s->b, op, 0x22, psn, 0x1f);
	s->p.bth = s->b;
	s->p.since_ns = 5000000;	/* 5 ms */
}

/* Whether the rule of line acts on the packet of s. */
static bool acts(const char *line, struct pktset *s)
{
	struct emu_fault_rule r = one(line);

	return emu_fault_match(&r, &s->p);
}

START_TEST(t_matchers)
{
	struct pktset s;

	pkt(&s, EMU_FAULT_RX, WIRE_OP_RC(WRITE_ONLY), 100);
	ck_assert(acts("drop", &s));
	ck_assert(acts("drop dir=rx", &s));
	ck_assert(!acts("drop dir=tx", &s));
	ck_assert(acts("drop port=1", &s));
	ck_assert(!acts("drop port=2", &s));
	ck_assert(acts("drop qpn=0x11 rqpn=0x22", &s));
	ck_assert(!acts("drop qpn=0x12", &s));
	ck_assert(!acts("drop rqpn=0x23", &s));
	ck_assert(acts("drop peer=127.0.0.2", &s));
	ck_assert(!acts("drop peer=127.0.0.3", &s));
	ck_assert(!acts("drop peer=::1", &s));
	ck_assert(acts("drop op=send,write", &s));
	ck_assert(!acts("drop op=read_req,ack", &s));
	ck_assert(acts("drop psn=100", &s));
	ck_assert(acts("drop psn=90-110", &s));
	ck_assert(!acts("drop psn=101-200", &s));
	ck_assert(acts("drop psn=16777000-100", &s));	/* wraps */
	ck_assert(!acts("drop psn=16777000-99", &s));
	ck_assert(acts("drop after=4ms", &s));
	ck_assert(!acts("drop after=6ms", &s));
	ck_assert(acts("drop after=4ms for=2ms", &s));
	ck_assert(!acts("drop after=1ms for=4ms", &s));
	ck_assert(acts("drop prob=1", &s));
	ck_assert(!acts("drop prob=0", &s));
	s.p.rqpn = ~0u;			/* not known */
	ck_assert(!acts("drop rqpn=0x22", &s));
	s.p.peer = NULL;
	ck_assert(!acts("drop peer=127.0.0.2", &s));
	/* An event never matches a packet. */
	s.p.peer = &s.peer;
	ck_assert(!acts("port_down at=0ms", &s));
}
END_TEST

/* every=, count= and msg= count what the other matchers let through;
 * matched counts those, acted what was done. */
START_TEST(t_counting)
{
	struct emu_fault_rule r = one("drop every=3 op=write");
	struct pktset s, other;
	unsigned int i, hits = 0;

	pkt(&s, EMU_FAULT_TX, WIRE_OP_RC(WRITE_ONLY), 1);
	pkt(&other, EMU_FAULT_TX, WIRE_OP_RC(SEND_ONLY), 1);
	for (i = 1; i <= 9; i++) {
		ck_assert(!emu_fault_match(&r, &other.p));
		if (emu_fault_match(&r, &s.p)) {
			ck_assert_uint_eq(i % 3, 0);
			hits++;
		}
	}
	ck_assert_uint_eq(hits, 3);
	ck_assert_uint_eq(r.matched, 9);
	ck_assert_uint_eq(r.acted, 3);

	r = one("drop count=2");
	for (i = 0, hits = 0; i < 5; i++)
		hits += emu_fault_match(&r, &s.p);
	ck_assert_uint_eq(hits, 2);
	ck_assert_uint_eq(r.matched, 5);

	/* Messages 2 and 3 of FIRST MIDDLE LAST, ONLY, FIRST LAST, ONLY:
	 * the ONLY and the FIRST LAST after it. */
	{
		static const uint8_t ops[] = {
			WIRE_OP_RC(SEND_FIRST), WIRE_OP_RC(SEND_MIDDLE),
			WIRE_OP_RC(SEND_LAST), WIRE_OP_RC(SEND_ONLY),
			WIRE_OP_RC(SEND_FIRST), WIRE_OP_RC(SEND_LAST),
			WIRE_OP_RC(SEND_ONLY),
		};
		static const bool want[] = { 0, 0, 0, 1, 1, 1, 0 };

		r = one("drop msg=2-3");
		for (i = 0; i < sizeof(ops); i++) {
			pkt(&s, EMU_FAULT_TX, ops[i], i);
			ck_assert_msg(emu_fault_match(&r, &s.p) == want[i],
				      "packet %u", i);
		}
	}
}
END_TEST

/* prob= draws from the rule's seed: the same seed the same packets, about
 * the rate asked for, another seed other packets. */
START_TEST(t_prob)
{
	struct emu_fault_rule a = one("drop prob=0.1 seed=7"),
			      b = one("drop prob=0.1 seed=7"),
			      c = one("drop prob=0.1 seed=8");
	struct pktset s;
	unsigned int i, na = 0, same = 0;

	for (i = 0; i < 10000; i++) {
		bool x;

		pkt(&s, EMU_FAULT_RX, WIRE_OP_RC(WRITE_MIDDLE), i);
		x = emu_fault_match(&a, &s.p);

		ck_assert(x == emu_fault_match(&b, &s.p));
		same += x && emu_fault_match(&c, &s.p);
		na += x;
	}
	/* 1000 expected; 5 standard deviations either way. */
	ck_assert_msg(na > 850 && na < 1150, "%u", na);
	ck_assert_msg(same < 200, "%u", same);
	ck_assert_uint_eq(a.matched, 10000);
	ck_assert_uint_eq(a.acted, na);
}
END_TEST

/* A draw belongs to the packet, not to its place in the traffic: the
 * first sighting of each PSN meets the same fate whatever other packets
 * came before it (a timing change lets through more or fewer); a packet
 * passed is passed again, and one acted on draws anew when it comes back
 * (a retransmission), so that a dropped packet is not dropped forever,
 * even after a window of other packets went by. */
START_TEST(t_prob_keyed)
{
	struct emu_fault_rule a = one("drop prob=0.3 seed=7"),
			      b = one("drop prob=0.3 seed=7");
	bool fate[200], again_differs = false;
	struct pktset s;
	uint32_t psn;

	for (psn = 0; psn < 200; psn++) {
		pkt(&s, EMU_FAULT_RX, WIRE_OP_RC(WRITE_MIDDLE), psn);
		fate[psn] = emu_fault_match(&a, &s.p);
	}
	/* b sees the odd PSNs first, then all of them: the even ones meet
	 * a's fate at their first sighting, the odd ones are repeats. */
	for (psn = 1; psn < 200; psn += 2) {
		pkt(&s, EMU_FAULT_RX, WIRE_OP_RC(WRITE_MIDDLE), psn);
		ck_assert_msg(emu_fault_match(&b, &s.p) == fate[psn], "%u", psn);
	}
	for (psn = 0; psn < 200; psn++) {
		bool x;

		pkt(&s, EMU_FAULT_RX, WIRE_OP_RC(WRITE_MIDDLE), psn);
		x = emu_fault_match(&b, &s.p);
		if (psn % 2 == 0 || !fate[psn])
			ck_assert_msg(x == fate[psn], "%u", psn);
		else
			again_differs |= x != fate[psn];
	}
	ck_assert(again_differs);
	/* A dropped packet comes back after a window of 512 others: it draws
	 * anew until it passes. */
	{
		uint32_t lost = 0, i, tries;

		while (!fate[lost])
			lost++;
		for (tries = 0; tries < 20; tries++) {
			for (i = 1000; i < 1512; i++) {
				pkt(&s, EMU_FAULT_RX,
				    WIRE_OP_RC(WRITE_MIDDLE), i);
				emu_fault_match(&a, &s.p);
			}
			pkt(&s, EMU_FAULT_RX, WIRE_OP_RC(WRITE_MIDDLE), lost);
			if (!emu_fault_match(&a, &s.p))
				break;
		}
		ck_assert_uint_lt(tries, 20);
	}
	/* Another opcode at the same PSN is another packet. */
	{
		unsigned int same = 0;

		for (psn = 0; psn < 200; psn++) {
			pkt(&s, EMU_FAULT_RX, WIRE_OP_RC(SEND_MIDDLE), psn);
			same += emu_fault_match(&a, &s.p) == fate[psn];
		}
		ck_assert_uint_lt(same, 190);
	}
}
END_TEST

/* Corruption flips exactly one bit, in the headers or the payload, never
 * the ICRC; the same seed and packet the same bit, other packets others. */
START_TEST(t_corrupt)
{
	struct emu_fault_rule h = one("corrupt seed=3"),
			      p = one("corrupt where=payload seed=3"),
			      p2 = one("corrupt where=payload seed=3");
	uint8_t a[256], b[256], c[256];
	uint32_t len, i, diff, hdr = wire_op_hdr_len(WIRE_OP_RC(WRITE_FIRST));
	uint32_t first_bit = ~0u;
	bool moved = false;
	struct pktset s;
	int k;

	for (k = 0; k < 50; k++) {
		pkt(&s, EMU_FAULT_RX, WIRE_OP_RC(WRITE_FIRST), (uint32_t)k);
		len = make(a, WIRE_OP_RC(WRITE_FIRST), 0x22, (uint32_t)k, 0);
		ck_assert(emu_fault_match(&h, &s.p));
		memcpy(b, a, sizeof(a));
		emu_fault_corrupt(&h, b, len);
		for (i = 0, diff = 0; i < len; i++) {
			if (a[i] == b[i])
				continue;
			ck_assert_uint_lt(i, hdr);
			ck_assert_uint_eq(__builtin_popcount(a[i] ^ b[i]), 1);
			diff++;
		}
		ck_assert_uint_eq(diff, 1);
		ck_assert(emu_fault_match(&p, &s.p));
		ck_assert(emu_fault_match(&p2, &s.p));
		memcpy(b, a, sizeof(a));
		memcpy(c, a, sizeof(a));
		emu_fault_corrupt(&p, b, len);
		emu_fault_corrupt(&p2, c, len);
		ck_assert(!memcmp(b, c, len));
		for (i = 0, diff = 0; i < len; i++) {
			if (a[i] == b[i])
				continue;
			ck_assert_uint_ge(i, hdr);
			ck_assert_uint_lt(i, len - 4);
			if (first_bit == ~0u)
				first_bit = i;
			moved |= i != first_bit;
			diff++;
		}
		ck_assert_uint_eq(diff, 1);
	}
	ck_assert(moved);
	/* No payload: the headers take it. */
	len = make(a, WIRE_OP_RC(ACK), 5, 1, 0x1f) - 64;
	memcpy(b, a, sizeof(a));
	emu_fault_corrupt(&p, b, len);
	ck_assert(memcmp(a, b, len));
}
END_TEST

START_TEST(t_format)
{
	struct emu_fault_rule r = one("reorder dir=rx op=write,ack psn=1-9 "
				      "hold=3 prob=0.5 seed=4 name=r1");
	char line[512];
	struct emu_fault_rule back;

	emu_fault_format(&r, line, sizeof(line));
	ck_assert_msg(strstr(line, "r1: reorder dir=rx op=write,ack psn=1-9 "
			      "prob=0.500000 seed=4") &&
		      strstr(line, "hold=3") &&
		      strstr(line, "(matched 0, acted 0)"), "%s", line);
	/* What it prints parses back to the same rule. */
	*strstr(line, " (matched") = '\0';
	back = one(strchr(line, ' ') + 1);
	ck_assert_uint_eq(back.classes, r.classes);
	ck_assert_uint_eq(back.reorder_n, 3);
	ck_assert_uint_eq(back.prob_ppm, r.prob_ppm);
}
END_TEST

/* [fault NAME] sections: kept when good; a bad key or an incomplete rule
 * is one line naming file:line and key, and then no device starts. */
START_TEST(t_config)
{
	static struct emu_config cfg;
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	emu_test_isolate_config();
	ck_assert_int_eq(emu_config_parse_string(&cfg, "[device emu0]\n"
				"[fault lossy]\naction = drop\ndir = rx\n"
				"op = write\nprob = 0.01\nseed = 7\n"
				"[fault slow]\naction = delay\ndelay = 1ms\n",
				"t.conf", f), 0);
	fflush(f);
	ck_assert_str_eq(buf, "");
	ck_assert_uint_eq(cfg.ndevices, 1);
	ck_assert_uint_eq(cfg.nfaults, 2);
	ck_assert_str_eq(cfg.faults[0].name, "lossy");
	ck_assert_uint_eq(cfg.faults[0].prob_ppm, 10000);
	ck_assert_uint_eq(cfg.faults[1].delay_ns, 1000000);
	fclose(f);
	free(buf);

	f = open_memstream(&buf, &len);
	ck_assert_int_ne(emu_config_parse_string(&cfg, "[device emu0]\n"
				"[fault a]\naction = drop\nprob = lots\n",
				"t.conf", f), 0);
	fflush(f);
	ck_assert_str_eq(buf, "t.conf:4: prob: lots is not a probability "
			 "(0..1)\n");
	ck_assert_uint_eq(cfg.ndevices, 0);
	fclose(f);
	free(buf);

	f = open_memstream(&buf, &len);
	ck_assert_int_ne(emu_config_parse_string(&cfg, "[device emu0]\n"
				"[fault a]\naction = drop\n[fault a]\n"
				"action = drop\n[fault b]\ndir = rx\n",
				"t.conf", f), 0);
	fflush(f);
	ck_assert_msg(strstr(buf, "t.conf:4: fault a: a second rule") &&
		      strstr(buf, "t.conf:6: fault b: no action"), "%s", buf);
	ck_assert_uint_eq(cfg.ndevices, 0);
	fclose(f);
	free(buf);
}
END_TEST

START_TEST(t_env)
{
	static struct emu_config cfg;
	char *buf;
	size_t len;
	FILE *f;

	emu_test_isolate_config();
	emu_config_default(&cfg);
	setenv("EMUVERBS_FAULT", "drop dir=rx op=write prob=0.01 seed=7; "
	       "duplicate every=10", 1);
	ck_assert_int_eq(emu_config_apply_env(&cfg, NULL), 0);
	ck_assert_uint_eq(cfg.nfaults, 2);
	ck_assert_uint_eq(cfg.ndevices, 1);

	emu_config_default(&cfg);
	setenv("EMUVERBS_FAULT", "drop; drop prob=2", 1);
	f = open_memstream(&buf, &len);
	ck_assert_int_ne(emu_config_apply_env(&cfg, f), 0);
	fflush(f);
	ck_assert_msg(strstr(buf, "EMUVERBS_FAULT") &&
		      strstr(buf, "character 12: prob: 2 is not a "
			     "probability"), "%s", buf);
	ck_assert_uint_eq(cfg.ndevices, 0);
	ck_assert_uint_eq(cfg.nfaults, 0);
	fclose(f);
	free(buf);
	unsetenv("EMUVERBS_FAULT");
}
END_TEST

static Suite *fault_suite(void)
{
	Suite *s = suite_create("fault");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, t_grammar);
	tcase_add_test(tc, t_refusals);
	tcase_add_test(tc, t_matchers);
	tcase_add_test(tc, t_counting);
	tcase_add_test(tc, t_prob);
	tcase_add_test(tc, t_prob_keyed);
	tcase_add_test(tc, t_corrupt);
	tcase_add_test(tc, t_format);
	tcase_add_test(tc, t_config);
	tcase_add_test(tc, t_env);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(fault_suite());
}
