/* Fault injection on a device's traffic: each packet sent or received goes
 * through the device's rules (emu/device/fault_rule.c matches), and what they say
 * is done here: drop, duplicate, corrupt and truncate at once, delay and
 * reorder by holding a copy on the port until a timer or later packets
 * release it. Engine thread, or a thread that entered the engine. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/transport/inject.h"
#include "emu/base/log.h"
#include "emu/objects/cq.h"
#include "emu/objects/qp.h"
#include "emu/objects/srq.h"
#include "emu/device/observer.h"
#include "emu/transport/transport.h"
#include "net/hdr.h"
#include "net/capture.h"
#include "net/icrc.h"

struct emu_fault_held {
	uint8_t dir;			/* EMU_FAULT_TX or EMU_FAULT_RX */
	uint64_t due_ns;		/* delay: when; 0 for reorder */
	uint32_t left;			/* reorder: packets still to pass */
	uint32_t len;
	/* tx: where it goes; rx: what recvmsg said of it. */
	uint8_t sock;
	uint8_t tclass;
	uint16_t dport;
	bool has_src;
	uint32_t note;			/* tx: its capture note */
	struct emu_udp_pkt u;		/* rx: its data points at data */
	struct in6_addr src, dst;
	uint8_t data[EMU_UDP_BUF];
};

static struct emu_fault_set *set_of(struct emu_tport *tp)
{
	return &emu_transport_of(tp->port->dev)->faults;
}

/* Rule i of s is r from now on, with a memory of its own, empty. */
static void keep(struct emu_fault_set *s, unsigned int i,
		 const struct emu_fault_rule *r)
{
	s->rule[i] = *r;
	s->rule[i].sight = s->sight[i];
	memset(s->sight[i], 0, sizeof(s->sight[i]));
}

void emu_inject_init(struct emu_device *dev,
		     const struct emu_fault_rule *rules, unsigned int n)
{
	struct emu_fault_set *s = &emu_transport_of(dev)->faults;
	unsigned int i;

	s->n = 0;
	for (i = 0; i < n && s->n < EMU_FAULT_MAX; i++) {
		if (rules[i].device[0] &&
		    strcmp(rules[i].device, dev->ibdev.name))
			continue;
		keep(s, s->n++, &rules[i]);
		emu_log(EMU_LOG_XPORT, "%s: fault rule %s", dev->ibdev.name,
			rules[i].name);
	}
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents);

/* The note a capture running on tp shows beside a packet rule r acted on
 * (dir EMU_FAULT_TX or _RX): 0 when none runs. */
static uint32_t fault_note(struct emu_tport *tp,
			   const struct emu_fault_rule *r, uint8_t dir)
{
	struct emu_cap *c = tp->udp.cap;
	const char *rx = dir == EMU_FAULT_RX ? " after it arrived (shown as "
					       "it arrived)" : "";
	const char *n = r->name;

	if (!c)
		return 0;
	switch (r->action) {
	case EMU_FAULT_DROP:
		return emu_cap_note(c, "fault rule %s: dropped %s", n,
				    dir == EMU_FAULT_RX ? "on arrival, never "
				    "handled" : "before sending, never sent");
	case EMU_FAULT_DUPLICATE:
		return emu_cap_note(c, "fault rule %s: duplicated (%s)", n,
				    dir == EMU_FAULT_RX ? "handled twice" :
				    "sent twice");
	case EMU_FAULT_DELAY:
		return emu_cap_note(c, "fault rule %s: delayed %llu us%s", n,
				    (unsigned long long)(r->delay_ns / 1000),
				    dir == EMU_FAULT_RX ? " before it was "
				    "handled" : " (the time is when it left)");
	case EMU_FAULT_REORDER:
		return emu_cap_note(c, "fault rule %s: held until %u later "
				    "packets had %s", n, r->reorder_n,
				    dir == EMU_FAULT_RX ? "been handled" :
				    "left");
	case EMU_FAULT_CORRUPT:
		return emu_cap_note(c, "fault rule %s: one bit flipped in the "
				    "%s%s", n, r->corrupt_payload ? "payload" :
				    "headers", rx);
	case EMU_FAULT_TRUNCATE:
		return emu_cap_note(c, "fault rule %s: truncated%s", n, rx);
	default:
		return emu_cap_note(c, "fault rule %s: %s", n,
				    emu_fault_action_name(r->action));
	}
}

/* ---- scheduled events --------------------------------------------------- */

/* Raise an event of the port's that changes nothing else. */
static void port_event(struct emu_port *port, enum ibv_event_type type)
{
	struct ibv_async_event ev = {
		.element.port_num = (int)port->num, .event_type = type,
	};

	emu_device_broadcast(port->dev, &ev);
}

/* Do what an event rule says, now: whether there was something to do it
 * to (the port, the QP, the SRQ). */
static bool fire(struct emu_device *dev, struct emu_fault_rule *r)
{
	struct emu_port *port = emu_device_port(dev, r->port);
	char what[64], why[128];
	struct emu_qp *qp;
	struct emu_srq *srq;
	bool done = true;

	if (!port) {
		emu_log(EMU_LOG_XPORT, "fault %s: no port %u", r->name,
			r->port);
		return false;
	}
	switch (r->action) {
	case EMU_FAULT_PORT_DOWN:
	case EMU_FAULT_PORT_UP:
		emu_port_set_state(port, r->action == EMU_FAULT_PORT_UP ?
					 IBV_PORT_ACTIVE : IBV_PORT_DOWN);
		break;
	case EMU_FAULT_PORT_SPEED:
		snprintf(what, sizeof(what), "%s%s%s%s",
			 r->speed[0] ? "speed=" : "", r->speed,
			 r->width[0] ? " width=" : "", r->width);
		done = !emu_port_change(port, what, why, sizeof(why));
		break;
	case EMU_FAULT_GID_ADD:
	case EMU_FAULT_GID_DEL:
		done = r->action == EMU_FAULT_GID_ADD ?
		       emu_gid_table_add_addr(&port->gids, &r->gid, 0) :
		       emu_gid_table_del_addr(&port->gids, &r->gid);
		if (done)
			emu_port_gid_changed(port);
		break;
	case EMU_FAULT_QP_FATAL:
	case EMU_FAULT_QP_REQ_ERR:
	case EMU_FAULT_QP_ACCESS_ERR:
	case EMU_FAULT_CQ_ERR:
		qp = emu_qp_lookup(dev, r->qpn);
		done = qp != NULL;
		if (qp && r->action == EMU_FAULT_CQ_ERR)
			emu_cq_fail(qp->scq);
		else if (qp)
			emu_qp_error(qp, r->action == EMU_FAULT_QP_FATAL ?
					 IBV_EVENT_QP_FATAL :
					 r->action == EMU_FAULT_QP_REQ_ERR ?
					 IBV_EVENT_QP_REQ_ERR :
					 IBV_EVENT_QP_ACCESS_ERR);
		break;
	case EMU_FAULT_LID_CHANGE:
		port_event(port, IBV_EVENT_LID_CHANGE);
		break;
	case EMU_FAULT_PKEY_CHANGE:
		port_event(port, IBV_EVENT_PKEY_CHANGE);
		break;
	case EMU_FAULT_SM_CHANGE:
		port_event(port, IBV_EVENT_SM_CHANGE);
		break;
	case EMU_FAULT_CLIENT_REREGISTER:
		port_event(port, IBV_EVENT_CLIENT_REREGISTER);
		break;
	case EMU_FAULT_SRQ_ERR:
		srq = emu_srq_lookup(dev, r->srqn);
		done = srq != NULL;
		if (srq)
			emu_srq_fail(srq);
		break;
	default:
		return false;
	}
	r->matched++;
	r->acted += done;
	emu_log(EMU_LOG_XPORT, "fault %s: %s", r->name,
		done ? "done" : "nothing to do it to");
	EMU_PUBLISH(fault_event, dev, r, done);
	return done;
}

static void sched_arm(struct emu_fault_set *s)
{
	struct ev_loop *loop = emu_engine_loop(s->dev->engine);
	uint64_t now = emu_now_ns(), due = 0, at;
	unsigned int i;

	if (s->sched_on)
		ev_timer_stop(loop, &s->sched);
	s->sched_on = false;
	for (i = 0; i < s->n; i++) {
		if (!emu_fault_is_event(&s->rule[i]) || s->rule[i].fired)
			continue;
		at = s->t0_ns + s->rule[i].at_ns;
		if (!due || at < due)
			due = at;
	}
	if (!due)
		return;
	emu_engine_will_start(s->dev->engine);
	ev_timer_set(&s->sched, due > now ? (double)(due - now) / 1e9 : 0.,
		     0.);
	ev_timer_start(loop, &s->sched);
	s->sched_on = true;
}

static void on_sched(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct emu_fault_set *s = w->data;
	uint64_t now = emu_now_ns();
	unsigned int i;

	(void)loop;
	(void)revents;
	s->sched_on = false;
	for (i = 0; i < s->n; i++) {
		struct emu_fault_rule *r = &s->rule[i];

		if (!emu_fault_is_event(r) || r->fired ||
		    s->t0_ns + r->at_ns > now)
			continue;
		r->fired = true;
		fire(s->dev, r);
	}
	emu_transport_flush(emu_transport_of(s->dev));
	sched_arm(s);
}

void emu_inject_start(struct emu_device *dev)
{
	struct emu_fault_set *s = &emu_transport_of(dev)->faults;

	s->dev = dev;
	s->t0_ns = emu_now_ns();
	ev_timer_init(&s->sched, on_sched, 0., 0.);
	s->sched.data = s;
	s->started = true;
	sched_arm(s);
}

void emu_inject_stop(struct emu_device *dev)
{
	struct emu_fault_set *s = &emu_transport_of(dev)->faults;

	if (s->sched_on)
		ev_timer_stop(emu_engine_loop(dev->engine), &s->sched);
	s->sched_on = false;
	s->started = false;
}

void emu_inject_port_init(struct emu_tport *tp)
{
	struct emu_fault_port *f = &tp->faults;

	memset(f, 0, sizeof(*f));
	ev_timer_init(&f->timer, on_timer, 0., 0.);
	f->timer.data = tp;
}

void emu_inject_port_fini(struct emu_tport *tp)
{
	struct emu_fault_port *f = &tp->faults;

	if (f->timer_on)
		ev_timer_stop(emu_engine_loop(tp->port->dev->engine),
			      &f->timer);
	f->timer_on = false;
	free(f->held);
	f->held = NULL;
	f->n = 0;
}

/* Wake the engine for the earliest delayed packet. */
static void arm(struct emu_tport *tp, uint64_t now)
{
	struct emu_fault_port *f = &tp->faults;
	struct ev_loop *loop = emu_engine_loop(tp->port->dev->engine);
	uint64_t due = 0;
	unsigned int i;

	for (i = 0; i < f->n; i++)
		if (f->held[i].due_ns && (!due || f->held[i].due_ns < due))
			due = f->held[i].due_ns;
	if (f->timer_on)
		ev_timer_stop(loop, &f->timer);
	f->timer_on = false;
	if (!due)
		return;
	emu_engine_will_start(tp->port->dev->engine);
	ev_timer_set(&f->timer, due > now ? (double)(due - now) / 1e9 : 0.,
		     0.);
	ev_timer_start(loop, &f->timer);
	f->timer_on = true;
}

/* The datagram in buf as one piece: the payload pieces copied in after the
 * headers and the tail moved behind them. Returns its length. */
static uint32_t flatten(uint8_t *buf, uint32_t hdr_len,
			const struct iovec *pay, unsigned int npay,
			uint32_t tail_len)
{
	uint32_t paylen = 0, at = hdr_len;
	unsigned int i;

	for (i = 0; i < npay; i++)
		paylen += (uint32_t)pay[i].iov_len;
	if (!npay)
		return hdr_len + tail_len;
	memmove(buf + hdr_len + paylen, buf + hdr_len, tail_len);
	for (i = 0; i < npay; i++) {
		memcpy(buf + at, pay[i].iov_base, pay[i].iov_len);
		at += (uint32_t)pay[i].iov_len;
	}
	return hdr_len + paylen + tail_len;
}

static struct emu_fault_held *hold_slot(struct emu_tport *tp)
{
	struct emu_fault_port *f = &tp->faults;

	if (!f->held) {
		f->held = calloc(EMU_FAULT_HELD_MAX, sizeof(*f->held));
		if (!f->held) {
			emu_log(EMU_LOG_XPORT, "fault: no memory to hold a "
				"packet: it passes");
			return NULL;
		}
	}
	if (f->n == EMU_FAULT_HELD_MAX) {
		f->overflow++;
		emu_log(EMU_LOG_XPORT, "fault: %d packets held already: this "
			"one passes", EMU_FAULT_HELD_MAX);
		return NULL;
	}
	return &f->held[f->n++];
}

/* A slot for a packet r holds, its release set from r (delay: a time;
 * reorder: packets to let pass); NULL when it cannot be held. */
static struct emu_fault_held *hold(struct emu_tport *tp,
				   const struct emu_fault_rule *r,
				   uint8_t dir, const uint8_t *data,
				   uint32_t len)
{
	struct emu_fault_held *h = hold_slot(tp);

	if (!h)
		return NULL;
	h->dir = dir;
	h->due_ns = r->action == EMU_FAULT_DELAY ?
		    emu_now_ns() + r->delay_ns : 0;
	h->left = r->reorder_n;
	h->len = len < EMU_UDP_BUF ? len : EMU_UDP_BUF;
	memcpy(h->data, data, h->len);
	if (h->due_ns)
		arm(tp, emu_now_ns());
	return h;
}

static void release_one(struct emu_tport *tp, struct emu_fault_held *h)
{
	if (h->dir == EMU_FAULT_TX) {
		uint8_t *b = emu_udp_tx_buf(&tp->udp);

		memcpy(b, h->data, h->len);
		if (tp->udp.cap)
			tp->udp.tx_note = h->note;
		emu_link_send(&tp->link, emu_now_ns(), h->sock,
			      h->has_src ? &h->src : NULL, &h->dst, h->dport,
			      h->tclass, b, h->len, NULL, 0, 0);
	} else {
		h->u.data = h->data;
		emu_rx_one(tp, &h->u);
	}
}

/* Release the held packets of dir that are due: by time (now, 0 for
 * none) or, with passed, because one more packet of dir went by. */
static void release(struct emu_tport *tp, uint8_t dir, uint64_t now,
		    bool passed)
{
	struct emu_fault_port *f = &tp->faults;
	unsigned int i = 0;
	bool any = false;

	while (i < f->n) {
		struct emu_fault_held *h = &f->held[i];
		bool due;

		if (h->dir != dir) {
			i++;
			continue;
		}
		if (h->due_ns)
			due = now && h->due_ns <= now;
		else
			due = passed && --h->left == 0;
		if (!due) {
			i++;
			continue;
		}
		/* Out of the array first: an rx packet released may make
		 * the transport send, which may hold again. */
		{
			struct emu_fault_held *copy = malloc(sizeof(*copy));

			if (!copy) {
				i++;
				continue;
			}
			*copy = *h;
			f->held[i] = f->held[--f->n];
			release_one(tp, copy);
			free(copy);
		}
		any = true;
	}
	if (any && dir == EMU_FAULT_RX) {
		struct emu_transport *t = emu_transport_of(tp->port->dev);

		emu_resp_flush_acks(t);
		emu_transport_flush(t);
	}
}

void emu_inject_release(struct emu_tport *tp, uint64_t now_ns)
{
	if (!tp->faults.n)
		return;
	release(tp, EMU_FAULT_TX, now_ns, false);
	release(tp, EMU_FAULT_RX, now_ns, false);
	emu_transport_flush(emu_transport_of(tp->port->dev));
	arm(tp, emu_now_ns());
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct emu_tport *tp = w->data;

	(void)loop;
	(void)revents;
	tp->faults.timer_on = false;
	emu_inject_release(tp, emu_now_ns());
}

/* The first rule that acts on p, or NULL. */
static struct emu_fault_rule *first_acting(struct emu_tport *tp,
					   struct emu_fault_pkt *p)
{
	struct emu_fault_set *s = set_of(tp);
	unsigned int i;

	p->port = tp->port->num;
	p->since_ns = emu_now_ns() - s->t0_ns;
	for (i = 0; i < s->n; i++)
		if (emu_fault_match(&s->rule[i], p))
			return &s->rule[i];
	return NULL;
}

/* qpn's place among the device's QPs (emu_fault_pkt.qp_index); QP0 and
 * QP1 are their own. */
static uint32_t qp_index(struct emu_tport *tp, uint32_t qpn)
{
	const struct emu_numtab *t = &tp->port->dev->qps;

	if (qpn < t->lowest)
		return qpn;
	return (qpn - t->first) & WIRE_QPN_MASK;
}

static uint32_t truncated_len(const struct emu_fault_rule *r, uint32_t len)
{
	uint32_t keep = r->keep ? r->keep : len / 2;

	return keep < len ? keep : len;
}

/* A rule acted on a packet of QP qpn's (the sender's for tx, the BTH's
 * destination for rx): on the port's counters and the QP's, if it has
 * one here. Counted only when done: a hold that failed let it pass. */
static void count_action(struct emu_tport *tp, uint8_t dir, uint32_t qpn,
			 enum emu_fault_action action)
{
	struct emu_device *dev = tp->port->dev;
	unsigned int a = (unsigned int)(action - EMU_FAULT_DROP);
	struct emu_qp *qp;

	qp = qpn == EMU_GSI_QPN ? emu_qp_gsi(dev, tp->port->num) :
				  emu_qp_lookup(dev, qpn);
	if (dir == EMU_FAULT_TX) {
		tp->cnt.tx.fault[a]++;
		if (qp && qp->tp == tp)
			qp->cnt.tx.fault[a]++;
	} else {
		tp->cnt.rx.fault[a]++;
		if (qp && qp->tp == tp)
			qp->cnt.rx.fault[a]++;
	}
}

void emu_inject_tx(struct emu_tport *tp, uint32_t qpn,
		   const struct in6_addr *src, const struct in6_addr *dst,
		   uint16_t dport, uint8_t tclass, unsigned int sock,
		   uint8_t *buf, uint32_t hdr_len, const struct iovec *pay,
		   unsigned int npay, uint32_t tail_len)
{
	struct emu_fault_pkt p = {
		.dir = EMU_FAULT_TX, .qpn = qpn, .peer = dst, .bth = buf,
	};
	struct emu_fault_rule *r;
	struct emu_fault_held *h;
	uint32_t len = hdr_len + tail_len, note = 0;
	unsigned int i;
	uint8_t *b2;

	p.qp_index = qp_index(tp, qpn);
	for (i = 0; i < npay; i++)
		len += (uint32_t)pay[i].iov_len;
	p.len = len;
	p.rqpn = hdr_len >= WIRE_BTH_LEN ? bth_qpn(buf) : ~0u;
	r = first_acting(tp, &p);
	if (!r) {
		emu_link_send(&tp->link, emu_now_ns(), sock, src, dst, dport,
			      tclass, buf, hdr_len, pay, npay, tail_len);
		release(tp, EMU_FAULT_TX, 0, true);
		return;
	}
	emu_log(EMU_LOG_XPORT,
		"fault %s: tx %s qpn 0x%06x psn 0x%06x acted before %u", r->name, wire_op_name(bth_opcode(buf)), bth_qpn(buf),
		bth_psn(buf), r->sighting);
	EMU_PUBLISH(fault, tp, r, EMU_FAULT_TX, buf, len);
	/* A capture shows what the rule did: the packet it dropped too. */
	if (tp->udp.cap)
		note = fault_note(tp, r, EMU_FAULT_TX);
	if (r->action == EMU_FAULT_DROP) {
		count_action(tp, EMU_FAULT_TX, qpn, r->action);
		if (tp->udp.cap)
			emu_udp_cap_unsent(&tp->udp, sock, src, dst, dport,
					   tclass, buf, hdr_len, pay, npay,
					   tail_len, note);
		return;
	}
	/* Everything else works on a copy of its own: the payload may be
	 * the application's memory, which must not change. */
	len = flatten(buf, hdr_len, pay, npay, tail_len);
	switch (r->action) {
	case EMU_FAULT_DUPLICATE:
		tp->udp.tx_note = note;
		emu_link_send(&tp->link, emu_now_ns(), sock, src, dst, dport,
			      tclass, buf, len, NULL, 0, 0);
		b2 = emu_udp_tx_buf(&tp->udp);
		memmove(b2, buf, len);
		buf = b2;
		break;
	case EMU_FAULT_DELAY:
	case EMU_FAULT_REORDER:
		h = hold(tp, r, EMU_FAULT_TX, buf, len);
		if (!h) {
			note = 0;	/* it passes, as it is */
			break;
		}
		h->sock = (uint8_t)sock;
		h->tclass = tclass;
		h->dport = dport;
		h->note = note;
		h->has_src = src != NULL;
		if (src)
			h->src = *src;
		h->dst = *dst;
		count_action(tp, EMU_FAULT_TX, qpn, r->action);
		return;
	case EMU_FAULT_CORRUPT:
		emu_fault_corrupt(r, buf, len);
		break;
	case EMU_FAULT_TRUNCATE:
		len = truncated_len(r, len);
		break;
	default:
		break;
	}
	if (r->action != EMU_FAULT_DELAY && r->action != EMU_FAULT_REORDER)
		count_action(tp, EMU_FAULT_TX, qpn, r->action);
	tp->udp.tx_note = note;
	emu_link_send(&tp->link, emu_now_ns(), sock, src, dst, dport, tclass,
		      buf, len, NULL, 0, 0);
	release(tp, EMU_FAULT_TX, 0, true);
}

/* The remote QPN of a received packet: a UD sender's from its DETH, a
 * connected QP's peer from the QP; ~0 when neither is known. */
static uint32_t rx_rqpn(struct emu_tport *tp, const struct emu_udp_pkt *u)
{
	struct emu_qp *qp;
	uint8_t op;

	if (u->len < WIRE_BTH_LEN)
		return ~0u;
	op = bth_opcode(u->data);
	if (wire_op_has(op, WIRE_F_DETH) &&
	    u->len >= wire_op_off(op, WIRE_DETH) + WIRE_DETH_LEN)
		return deth_sqpn(u->data);
	qp = emu_qp_lookup(tp->port->dev, bth_qpn(u->data));
	return qp && qp->type != IBV_QPT_UD ? qp->attr.dest_qp_num : ~0u;
}

void emu_inject_rx(struct emu_tport *tp, struct emu_udp_pkt *u)
{
	struct emu_fault_pkt p = {
		.dir = EMU_FAULT_RX, .peer = &u->src, .bth = u->data,
		.len = u->len,
	};
	struct emu_fault_rule *r;
	struct emu_fault_held *h;

	p.qpn = u->len >= WIRE_BTH_LEN ? bth_qpn(u->data) : ~0u;
	p.qp_index = qp_index(tp, p.qpn);
	p.rqpn = rx_rqpn(tp, u);
	r = first_acting(tp, &p);
	/* Captured as it arrived, with a note of what the rule does. */
	if (tp->udp.cap)
		emu_udp_cap_rx(&tp->udp, u, r ? fault_note(
					 tp, r, EMU_FAULT_RX) : 0);
	if (!r) {
		/* Handled before anything it lets go. */
		emu_rx_one(tp, u);
		release(tp, EMU_FAULT_RX, 0, true);
		return;
	}
	if (u->len >= WIRE_BTH_LEN)
		emu_log(EMU_LOG_XPORT,
			"fault %s: rx %s qpn 0x%06x psn 0x%06x acted before %u",
			r->name, wire_op_name(bth_opcode(u->data)),
			bth_qpn(u->data), bth_psn(u->data), r->sighting);
	if (r->action != EMU_FAULT_DELAY && r->action != EMU_FAULT_REORDER)
		count_action(tp, EMU_FAULT_RX, p.qpn, r->action);
	EMU_PUBLISH(fault, tp, r, EMU_FAULT_RX, u->data, u->len);
	switch (r->action) {
	case EMU_FAULT_DROP:
		return;
	case EMU_FAULT_DUPLICATE:
		emu_rx_one(tp, u);
		break;
	case EMU_FAULT_DELAY:
	case EMU_FAULT_REORDER:
		h = hold(tp, r, EMU_FAULT_RX, u->data, u->len);
		if (!h)
			break;
		h->u = *u;
		h->u.len = h->len;
		count_action(tp, EMU_FAULT_RX, p.qpn, r->action);
		return;
	case EMU_FAULT_CORRUPT:
		emu_fault_corrupt(r, u->data, u->len);
		break;
	case EMU_FAULT_TRUNCATE:
		u->len = truncated_len(r, u->len);
		break;
	default:
		break;
	}
	emu_rx_one(tp, u);
	release(tp, EMU_FAULT_RX, 0, true);
}

struct add_call {
	struct emu_device *dev;
	const char *line;
	char *err;
	size_t errlen;
	int rc;
	bool from_now;			/* at= counts from now */
	uint64_t now_ns;
};

static void do_add(void *arg)
{
	struct add_call *c = arg;
	struct emu_fault_set *s = &emu_transport_of(c->dev)->faults;
	struct emu_fault_rule tmp[EMU_FAULT_MAX];
	unsigned int n, i;

	if (emu_fault_parse(c->line, tmp, EMU_FAULT_MAX - s->n, &n, c->err,
			    c->errlen)) {
		c->rc = EINVAL;
		return;
	}
	for (i = 0; i < n; i++) {
		if (c->from_now && emu_fault_is_event(&tmp[i]))
			tmp[i].at_ns += c->now_ns - s->t0_ns;
		keep(s, s->n++, &tmp[i]);
	}
	if (s->started)
		sched_arm(s);
	c->rc = 0;
}

int emu_inject_add_from_now(struct emu_device *dev, const char *line,
			    char *err, size_t errlen)
{
	struct add_call c = { dev, line, err, errlen, 0, true, emu_now_ns() };

	emu_device_run(dev, do_add, &c);
	return c.rc;
}

int emu_inject_add(struct emu_device *dev, const char *line, char *err,
		   size_t errlen)
{
	struct add_call c = { dev, line, err, errlen, 0, false, 0 };

	emu_device_run(dev, do_add, &c);
	return c.rc;
}

struct del_call {
	struct emu_device *dev;
	const char *name;
	int rc;
};

static void do_del(void *arg)
{
	struct del_call *c = arg;
	struct emu_fault_set *s = &emu_transport_of(c->dev)->faults;
	unsigned int i, out = 0;

	c->rc = ENOENT;
	for (i = 0; i < s->n; i++) {
		if (!strcmp(s->rule[i].name, c->name)) {
			c->rc = 0;
			continue;
		}
		if (out != i) {
			s->rule[out] = s->rule[i];
			s->rule[out].sight = s->sight[out];
			memcpy(s->sight[out], s->sight[i],
			       sizeof(s->sight[out]));
		}
		out++;
	}
	s->n = out;
}

int emu_inject_del(struct emu_device *dev, const char *name)
{
	struct del_call c = { dev, name, 0 };

	emu_device_run(dev, do_del, &c);
	return c.rc;
}

struct now_call {
	struct emu_device *dev;
	struct emu_fault_rule *rules;
	unsigned int n;
	unsigned int done;
};

static void do_now(void *arg)
{
	struct now_call *c = arg;
	unsigned int i;

	for (i = 0; i < c->n; i++)
		c->done += fire(c->dev, &c->rules[i]);
	emu_transport_flush(emu_transport_of(c->dev));
}

int emu_inject_now(struct emu_device *dev, const char *line, char *err,
		   size_t errlen)
{
	struct emu_fault_rule *rules = calloc(EMU_FAULT_MAX, sizeof(*rules));
	struct now_call c = { dev, rules, 0, 0 };
	unsigned int i;
	int rc = 0;

	if (!rules) {
		snprintf(err, errlen, "out of memory");
		return ENOMEM;
	}
	if (emu_fault_parse(line, rules, EMU_FAULT_MAX, &c.n, err, errlen)) {
		rc = EINVAL;
		goto out;
	}
	for (i = 0; i < c.n; i++) {
		if (!emu_fault_is_event(&rules[i])) {
			snprintf(err, errlen, "%s is not an event", line);
			rc = EINVAL;
			goto out;
		}
	}
	emu_device_run(dev, do_now, &c);
	if (c.done < c.n) {
		snprintf(err, errlen, "nothing to do it to (no such port, QP "
			 "or SRQ)");
		rc = ENOENT;
	}
out:
	free(rules);
	return rc;
}
