/* A port's link: the pacer (a virtual clock of when the wire is free), the
 * delay line with its jitter, and the bounded queue of what waits for
 * either, released in order by one engine timer. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emu/base/engine.h"
#include "emu/device/link.h"
#include "emu/base/log.h"
#include "emu/base/rand.h"
#include "net/capture.h"
#include "net/udp.h"

/* Ethernet header 14, FCS 4, preamble and start delimiter 8, inter-frame
 * gap 12: what a frame costs the wire besides its IP datagram. */
#define ETH_WIRE_EXTRA	38
#define IPV4_UDP_LEN	28
#define IPV6_UDP_LEN	48

/* The pacer may run ahead of the rate by 17 full-size frames (the 16
 * segments of one 64 KiB GSO send and one more) or by 100 us of the rate,
 * whichever is more: a message the host sends in one call, and a batch of
 * READ responses, leave at once at the rates the host can carry, instead
 * of being copied and released by timer wake-ups that would make the host
 * slower than the model; the error over any measurement stays a fraction
 * of a millisecond (72 KB is 290 us at 1x SDR). */
#define BURST_FRAMES	17
#define BURST_NS	100000
#define FRAME_MAX	(EMU_UDP_BUF + IPV6_UDP_LEN + ETH_WIRE_EXTRA)

struct emu_link_pkt {
	uint64_t release_ns;
	uint64_t queued_ns;		/* when it was sent into the link */
	uint64_t wire_ns;		/* when it starts on the wire */
	uint32_t len;
	uint16_t dport;
	uint8_t sock;
	uint8_t tclass;
	bool has_src;
	bool unsealed;			/* without its ICRC (net/udp.h) */
	uint32_t note;			/* its capture note */
	struct in6_addr src, dst;
};

uint32_t emu_link_wire_len(uint32_t dgram_len, bool ipv4)
{
	return dgram_len + (ipv4 ? IPV4_UDP_LEN : IPV6_UDP_LEN) +
	       ETH_WIRE_EXTRA;
}

/* Picoseconds the wire takes for bytes at mbps (Mb/s). */
static uint64_t wire_ps(uint64_t bytes, uint64_t mbps)
{
	return bytes * 8000000u / mbps;
}

/* A uniform draw in [0, 1). */
static double unit(struct emu_link *l)
{
	return (double)(emu_rand_next(&l->rng) >> 11) / 9007199254740992.0;
}

static uint64_t draw_delay(struct emu_link *l)
{
	double d = (double)l->cfg.latency_ns, j = (double)l->cfg.jitter_ns;

	switch (l->cfg.jitter) {
	case EMU_JITTER_UNIFORM:
		d += (2.0 * unit(l) - 1.0) * j;
		break;
	case EMU_JITTER_NORMAL: {
		/* Box-Muller; 1 - unit() is in (0, 1], so log() is finite. */
		double u = 1.0 - unit(l), v = unit(l);

		d += j * sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
		break;
	}
	case EMU_JITTER_CONSTANT:
		break;
	}
	return d > 0 ? (uint64_t)d : 0;
}

void emu_link_configure(struct emu_link *l, const struct emu_link_cfg *cfg)
{
	bool reseed = !l->rng || cfg->seed != l->cfg.seed;
	uint32_t limit = l->cfg.limit;

	l->cfg = *cfg;
	if (!l->cfg.limit)
		l->cfg.limit = 1;
	/* The ring, once made, keeps its size. */
	if (l->q)
		l->cfg.limit = limit;
	if (reseed)
		l->rng = emu_rand_seed(cfg->seed);
	l->burst_ps = cfg->rate_mbps ?
		      wire_ps(BURST_FRAMES * FRAME_MAX, cfg->rate_mbps) : 0;
	if (cfg->rate_mbps && l->burst_ps < BURST_NS * 1000ull)
		l->burst_ps = BURST_NS * 1000ull;
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents);

void emu_link_init(struct emu_link *l, const struct emu_link_cfg *cfg,
		   struct emu_udp *udp, struct emu_engine *engine)
{
	memset(l, 0, sizeof(*l));
	l->udp = udp;
	l->engine = engine;
	emu_link_configure(l, cfg);
	ev_timer_init(&l->timer, on_timer, 0., 0.);
	l->timer.data = l;
}

void emu_link_fini(struct emu_link *l)
{
	if (l->timer_on && l->engine)
		ev_timer_stop(emu_engine_loop(l->engine), &l->timer);
	l->timer_on = false;
	l->dropped += l->n;
	l->n = 0;
	free(l->q);
	free(l->data);
	l->q = NULL;
	l->data = NULL;
}

bool emu_link_shaped(const struct emu_link *l)
{
	return l->cfg.rate_mbps || l->cfg.latency_ns || l->cfg.jitter_ns;
}

/* Wake the engine when the head of the queue is due. */
static void arm(struct emu_link *l, uint64_t now_ns)
{
	struct ev_loop *loop;
	uint64_t due;

	if (!l->engine || !l->n)
		return;
	loop = emu_engine_loop(l->engine);
	due = l->q[l->head].release_ns;
	if (l->timer_on)
		ev_timer_stop(loop, &l->timer);
	/* While a poller has the port (emu/transport/transport.c's hand-off), it
	 * releases what is due, and the engine's hand-off timer wakes it
	 * anyway if the polling stops: waking it for each packet held cost
	 * a context switch per packet on a machine whose cores the pollers
	 * take (a 50 us one-way latency added 117 to 120 us to a busy-polled
	 * round trip, now 107 to 113). */
	if (l->handoff && atomic_load(l->handoff))
		emu_engine_sync_clock(l->engine);
	else
		emu_engine_will_start(l->engine);
	ev_timer_set(&l->timer,
		     due > now_ns ? (double)(due - now_ns) / 1e9 : 0., 0.);
	ev_timer_start(loop, &l->timer);
	l->timer_on = true;
}

static struct emu_link_pkt *
hold(struct emu_link *l, uint64_t release_ns, unsigned int sock,
     const struct in6_addr *src, const struct in6_addr *dst, uint16_t dport,
     uint8_t tclass, const uint8_t *buf, uint32_t hdr_len,
     const struct iovec *pay, unsigned int npay, uint32_t tail_len)
{
	struct emu_link_pkt *p;
	uint8_t *d;
	unsigned int i;
	uint32_t at;

	if (l->n >= l->cfg.limit)
		return NULL;
	if (!l->q) {
		l->q = calloc(l->cfg.limit, sizeof(*l->q));
		l->data = malloc((size_t)l->cfg.limit * EMU_UDP_BUF);
		if (!l->q || !l->data) {
			free(l->q);
			free(l->data);
			l->q = NULL;
			l->data = NULL;
			emu_log(EMU_LOG_XPORT, "link: no memory for a queue of "
				"%u packets: dropping", l->cfg.limit);
			return NULL;
		}
	}
	at = (l->head + l->n) % l->cfg.limit;
	p = &l->q[at];
	d = l->data + (size_t)at * EMU_UDP_BUF;
	/* One datagram, contiguous: the pieces are only valid until the
	 * batch is flushed, and this one leaves later. */
	memcpy(d, buf, hdr_len);
	p->len = hdr_len;
	for (i = 0; i < npay; i++) {
		memcpy(d + p->len, pay[i].iov_base, pay[i].iov_len);
		p->len += (uint32_t)pay[i].iov_len;
	}
	memcpy(d + p->len, buf + hdr_len, tail_len);
	p->len += tail_len;
	p->release_ns = release_ns;
	p->sock = (uint8_t)sock;
	p->dport = dport;
	p->tclass = tclass;
	/* A fault rule's note leaves with the packet, not the next one. */
	p->note = l->udp->tx_note;
	l->udp->tx_note = 0;
	p->has_src = src != NULL;
	if (src)
		p->src = *src;
	p->dst = *dst;
	/* Left without its ICRC for a ring: so it stays until it leaves. */
	p->unsealed = l->udp->tx_unsealed;
	l->udp->tx_unsealed = false;
	l->n++;
	l->held++;
	return p;
}

void emu_link_send(struct emu_link *l, uint64_t now_ns, unsigned int sock,
		   const struct in6_addr *src, const struct in6_addr *dst,
		   uint16_t dport, uint8_t tclass, uint8_t *buf,
		   uint32_t hdr_len, const struct iovec *pay, unsigned int npay,
		   uint32_t tail_len)
{
	uint64_t start_ns = now_ns, release, tx = 0;
	uint32_t len = hdr_len + tail_len;
	struct emu_link_pkt *p;
	unsigned int i;

	if (!emu_link_shaped(l)) {
		emu_udp_tx_tclass(l->udp, tclass);
		emu_udp_tx_queue_parts(l->udp, sock, src, dst, dport, hdr_len,
				       pay, npay, tail_len);
		return;
	}
	for (i = 0; i < npay; i++)
		len += (uint32_t)pay[i].iov_len;
	if (l->cfg.rate_mbps) {
		/* The packet starts when the wire is free, or now if it has
		 * been idle; an idle wire has a burst's credit at most. */
		uint64_t now_ps = now_ns * 1000, floor_ps = 0;

		if (now_ps > l->burst_ps)
			floor_ps = now_ps - l->burst_ps;
		if (l->start_ps < floor_ps)
			l->start_ps = floor_ps;
		if (l->start_ps / 1000 > now_ns)
			start_ns = (l->start_ps + 999) / 1000;
		tx = wire_ps(emu_link_wire_len(len,
					       IN6_IS_ADDR_V4MAPPED(dst)),
			     l->cfg.rate_mbps);
		l->start_ps += tx;
	}
	release = start_ns;
	if (l->cfg.latency_ns || l->cfg.jitter_ns)
		release += draw_delay(l);
	/* In order: jitter delays, it does not reorder (fault rules do). */
	if (release < l->last_release_ns)
		release = l->last_release_ns;
	l->last_release_ns = release;
	if (!l->n && release <= now_ns) {
		emu_udp_tx_tclass(l->udp, tclass);
		emu_udp_tx_queue_parts(l->udp, sock, src, dst, dport, hdr_len,
				       pay, npay, tail_len);
		return;
	}
	p = hold(l, release, sock, src, dst, dport, tclass, buf, hdr_len, pay,
		 npay, tail_len);
	if (!p) {
		/* Tail drop: the lost packet never used the wire. */
		l->udp->tx_unsealed = false;
		l->start_ps -= tx;
		l->dropped++;
		if (l->udp->cap)
			emu_udp_cap_unsent(l->udp, sock, src, dst, dport,
					   tclass, buf, hdr_len, pay, npay,
					   tail_len,
					   emu_cap_note(l->udp->cap, "dropped: "
							"the link's egress "
							"queue was full (%u "
							"packets)", l->n));
		l->udp->tx_note = 0;
		return;
	}
	p->queued_ns = now_ns;
	p->wire_ns = start_ns;
	if (l->n == 1)
		arm(l, now_ns);
}

/*
 * Whether the head packet waited for the wire and left the egress queue
 * with at least ecn_threshold packets in it, itself included: those behind
 * it that had been sent into the link by the time it started on the wire
 * and that start after it. Packets ahead of it are on the wire or in the
 * delay line, which is not a queue; packets sent after its start did not
 * see it waiting (the engine's timer may release it late, the model may
 * not); one that left on the burst's credit did not wait, as one sent
 * straight through does not.
 */
static bool leaves_congested(const struct emu_link *l)
{
	const struct emu_link_pkt *p = &l->q[l->head], *b;
	uint32_t waiting = 1, i;

	if (l->n < l->cfg.ecn_threshold || p->wire_ns <= p->queued_ns)
		return false;
	for (i = 1; i < l->n && waiting < l->cfg.ecn_threshold; i++) {
		b = &l->q[(l->head + i) % l->cfg.limit];
		if (b->queued_ns > p->wire_ns)
			break;
		if (b->wire_ns > p->wire_ns)
			waiting++;
	}
	return waiting >= l->cfg.ecn_threshold;
}

uint64_t emu_link_release(struct emu_link *l, uint64_t now_ns)
{
	bool any = false;

	while (l->n && l->q[l->head].release_ns <= now_ns) {
		struct emu_link_pkt *p = &l->q[l->head];
		uint8_t *b = emu_udp_tx_buf(l->udp);

		memcpy(b, l->data + (size_t)l->head * EMU_UDP_BUF, p->len);
		/* A queue still above its threshold marks what leaves it (a
		 * switch's egress port with ECN, one RED step): marking on the
		 * way out, not in, tells the senders a queue's delay sooner,
		 * as DCTCP and DCQCN deployments do. */
		if (l->cfg.ecn_threshold && leaves_congested(l)) {
			emu_udp_tx_mark_ce(l->udp);
			l->marked++;
		}
		emu_udp_tx_tclass(l->udp, p->tclass);
		l->udp->tx_unsealed = p->unsealed;
		if (l->udp->cap)
			l->udp->tx_note = p->note;
		emu_udp_tx_queue(l->udp, p->sock, p->has_src ? &p->src : NULL,
				 &p->dst, p->dport, p->len);
		l->head = (l->head + 1) % l->cfg.limit;
		l->n--;
		l->released++;
		any = true;
	}
	if (any)
		emu_udp_flush(l->udp);
	return l->n ? l->q[l->head].release_ns : 0;
}

uint64_t emu_link_due(const struct emu_link *l, uint32_t i)
{
	return l->q[(l->head + i) % l->cfg.limit].release_ns;
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct emu_link *l = w->data;
	uint64_t now = emu_now_ns();

	(void)loop;
	(void)revents;
	l->timer_on = false;
	if (emu_link_release(l, now))
		arm(l, emu_now_ns());
}
