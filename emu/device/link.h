/* The link a port sends on: its egress paced to the port's data rate, and
 * a one-way delay with seeded jitter, between the transport and the UDP
 * batch. Packets that cannot leave at once wait, copied, in a bounded
 * queue released by one engine timer per port. */
#ifndef EMU_LINK_H
#define EMU_LINK_H

#include <ev.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/uio.h>

struct emu_engine;
struct emu_udp;

/* How the delay of each packet is drawn around latency_ns. */
enum emu_jitter {
	EMU_JITTER_CONSTANT,	/* latency_ns exactly, jitter_ns unused */
	EMU_JITTER_UNIFORM,	/* uniform in latency_ns +- jitter_ns */
	EMU_JITTER_NORMAL,	/* normal, mean latency_ns, sd jitter_ns */
};

struct emu_link_cfg {
	uint64_t rate_mbps;	/* the port's data rate; 0: not paced */
	uint64_t latency_ns;	/* one-way delay added to every packet */
	uint64_t jitter_ns;
	enum emu_jitter jitter;
	uint64_t seed;		/* of the jitter's draws */
	uint32_t limit;		/* packets the queue holds; more are dropped */
	uint32_t ecn_threshold;	/* from this many waiting, CE marks; 0 off */
};

/* Bytes a datagram of dgram_len (BTH through ICRC) takes on the wire of
 * a RoCEv2 port: IP and UDP headers, Ethernet header, FCS, preamble and
 * inter-frame gap. The pacer charges this, as a NIC's link would. */
uint32_t emu_link_wire_len(uint32_t dgram_len, bool ipv4);

struct emu_link_pkt;

struct emu_link {
	struct emu_link_cfg cfg;
	struct emu_udp *udp;
	struct emu_engine *engine;	/* NULL: release only by tests */
	const atomic_bool *handoff;	/* the port's: a poller has it */
	uint64_t burst_ps;		/* how far the pacer may run ahead */
	uint64_t start_ps;		/* when the link is free to start the
					 * next packet (virtual time) */
	uint64_t last_release_ns;	/* packets leave in order */
	uint64_t rng;
	struct emu_link_pkt *q;		/* ring of cfg.limit, made lazily */
	uint8_t *data;
	uint32_t head, n;
	ev_timer timer;
	bool timer_on;
	uint64_t held, released, dropped, marked;
};

/* Set up l for udp (engine may be NULL in tests: nothing is released
 * then but by emu_link_release). No allocation happens until a packet
 * must wait. */
void emu_link_init(struct emu_link *l, const struct emu_link_cfg *cfg,
		   struct emu_udp *udp, struct emu_engine *engine);
/* Drop what is held and stop the timer (engine thread). */
void emu_link_fini(struct emu_link *l);
/* New rate, delay or jitter from now on; what is held keeps its time. */
void emu_link_configure(struct emu_link *l, const struct emu_link_cfg *cfg);

/* Send a datagram through the link, as emu_udp_tx_queue_parts() takes it,
 * with traffic class tclass (emu_udp_tx_tclass): straight into the UDP
 * batch when the link lets it leave now and nothing is waiting, else
 * copied into the queue (dropped, counted, when full). now_ns is
 * emu_now_ns(). Engine thread or a thread that entered it. */
void emu_link_send(struct emu_link *l, uint64_t now_ns, unsigned int sock,
		   const struct in6_addr *src, const struct in6_addr *dst,
		   uint16_t dport, uint8_t tclass, uint8_t *buf,
		   uint32_t hdr_len, const struct iovec *pay, unsigned int npay,
		   uint32_t tail_len);

/* Queue everything due by now_ns into the UDP batch and flush it; returns
 * the release time of the next packet held, 0 when none is. */
uint64_t emu_link_release(struct emu_link *l, uint64_t now_ns);

/* How far ahead of now_ns the pacer's wire is booked (0: idle). */
static inline uint64_t emu_link_ahead_ns(const struct emu_link *l,
					 uint64_t now_ns)
{
	uint64_t free_ns = l->start_ps / 1000;

	return free_ns > now_ns ? free_ns - now_ns : 0;
}

/* When the i-th packet held (0: the oldest, i < l->n) is due. */
uint64_t emu_link_due(const struct emu_link *l, uint32_t i);

/* Whether the link does anything to traffic (pacing that can bind, a
 * delay): for reports. */
bool emu_link_shaped(const struct emu_link *l);

#endif
