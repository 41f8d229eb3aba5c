/* Congestion control: CNPs from a QP that receives CE-marked requests, and
 * DCQCN on the QP that receives them (Zhu et al., SIGCOMM 2015: the rate
 * cut by alpha/2 at each CNP, alpha's decay, then fast recovery, additive
 * and hyper increase by a timer and a byte counter). The paper's timers
 * are evaluated lazily, when the QP next wants to send, so an idle QP
 * costs nothing; only the wait for its next slot is an engine timer. */
#include <math.h>
#include <string.h>

#include "emu/transport/cc.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/base/log.h"
#include "emu/objects/qp.h"
#include "emu/transport/transport.h"
#include "net/hdr.h"

static double line_mbps(const struct emu_qp *qp)
{
	return (double)qp->tp->link.cfg.rate_mbps;
}

static const struct emu_dcqcn_cfg *params(const struct emu_qp *qp)
{
	return &qp->tp->port->cfg.dcqcn_cfg;
}

static void increase(struct emu_cc *cc, const struct emu_dcqcn_cfg *p,
		     double line)
{
	uint32_t hi = cc->t_steps > cc->bc_steps ? cc->t_steps : cc->bc_steps;
	uint32_t lo = cc->t_steps < cc->bc_steps ? cc->t_steps : cc->bc_steps;

	if (hi < p->f)
		;				/* fast recovery */
	else if (lo > p->f)
		cc->rt += (double)(lo - p->f) * p->hai_mbps;
	else
		cc->rt += p->ai_mbps;
	if (cc->rt > line)
		cc->rt = line;
	cc->rc = (cc->rt + cc->rc) / 2;
	if (cc->rc > line)
		cc->rc = line;
}

void emu_dcqcn_advance(struct emu_cc *cc, const struct emu_dcqcn_cfg *p,
		       double line, uint64_t now)
{
	uint64_t alpha_ns = (uint64_t)p->alpha_us * 1000;
	uint64_t timer_ns = (uint64_t)p->timer_us * 1000;
	uint64_t n, i;

	if (!cc->limited)
		return;
	if (now > cc->last_alpha_ns) {
		n = (now - cc->last_alpha_ns) / alpha_ns;
		cc->alpha *= pow(1 - p->g, (double)n);
		cc->last_alpha_ns += n * alpha_ns;
	}
	if (now > cc->last_timer_ns) {
		n = (now - cc->last_timer_ns) / timer_ns;
		cc->last_timer_ns += n * timer_ns;
		/* Past a few hundred steps the rate is back at the line. */
		for (i = 0; i < n && i < 512 && cc->limited; i++) {
			cc->t_steps++;
			increase(cc, p, line);
			if (cc->rc >= line)
				cc->limited = false;
		}
	}
}

void emu_dcqcn_cut(struct emu_cc *cc, const struct emu_dcqcn_cfg *p,
		   double line, uint64_t now)
{
	if (!cc->limited) {
		/* From the line rate; alpha goes on from where it was (it
		 * starts at 1, the paper's value, with the first CNP). */
		cc->limited = true;
		cc->rc = cc->rt = line;
		if (!cc->cuts)
			cc->alpha = 1.0;
		else if (now > cc->last_alpha_ns)
			cc->alpha *= pow(1 - p->g,
					 (double)((now - cc->last_alpha_ns) /
						  ((uint64_t)p->alpha_us *
						   1000)));
	} else {
		emu_dcqcn_advance(cc, p, line, now);
	}
	cc->rt = cc->rc;
	cc->rc *= 1 - cc->alpha / 2;
	if (cc->rc < p->min_mbps)
		cc->rc = p->min_mbps;
	cc->alpha = (1 - p->g) * cc->alpha + p->g;
	cc->last_alpha_ns = now;
	cc->last_timer_ns = now;
	cc->t_steps = cc->bc_steps = 0;
	cc->bytes = 0;
	cc->limited = true;
	cc->cuts++;
}

static void on_resume(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct emu_qp *qp = t->data;

	(void)revents;
	ev_timer_stop(loop, t);
	emu_req_run(qp);
	emu_transport_flush(emu_transport_of(qp->dev));
}

void emu_cc_init(struct emu_qp *qp)
{
	memset(&qp->cc, 0, sizeof(qp->cc));
	ev_timer_init(&qp->cc.resume, on_resume, 0., 0.);
	qp->cc.resume.data = qp;
}

void emu_cc_stop(struct emu_qp *qp)
{
	ev_timer_stop(emu_engine_loop(qp->dev->engine), &qp->cc.resume);
}

/* Wait on the QP's timer until due_ns (CLOCK_MONOTONIC). */
static void resume_at(struct emu_qp *qp, uint64_t due_ns, uint64_t now)
{
	struct emu_cc *cc = &qp->cc;

	if (ev_is_active(&cc->resume))
		return;
	emu_engine_will_start(qp->dev->engine);
	ev_timer_set(&cc->resume,
		     due_ns > now ? (double)(due_ns - now) / 1e9 : 0., 0.);
	ev_timer_start(emu_engine_loop(qp->dev->engine), &cc->resume);
}

bool emu_cc_may_send(struct emu_qp *qp)
{
	struct emu_cc *cc = &qp->cc;
	struct emu_link *l = &qp->tp->link;
	uint64_t now;

	/* A NIC cannot put more on its port than the wire takes: when the
	 * pacer is EMU_CC_BACKLOG bursts ahead of the clock, the QP waits
	 * for the wire instead of queueing more (what waits in the delay
	 * line is the wire's, not a backlog, and does not count). */
	if (l->cfg.rate_mbps) {
		uint64_t ahead, most = EMU_CC_BACKLOG * l->burst_ps / 1000;

		now = emu_now_ns();
		ahead = emu_link_ahead_ns(l, now);
		if (ahead > most) {
			resume_at(qp, now + ahead - most, now);
			return false;
		}
	}
	if (!cc->limited)
		return true;
	/* DCQCN turned off on a running port frees the QPs it held. */
	if (!qp->tp->port->cfg.dcqcn) {
		cc->limited = false;
		return true;
	}
	now = emu_now_ns();
	emu_dcqcn_advance(cc, params(qp), line_mbps(qp), now);
	/* Like the port's pacer, the QP's may run a little ahead of its
	 * rate: a wake-up per packet would cost more than the packet. */
	if (!cc->limited || now * 1000 + EMU_CC_BURST_NS * 1000 >= cc->next_ps)
		return true;
	resume_at(qp, cc->next_ps / 1000 - EMU_CC_BURST_NS, now);
	return false;
}

void emu_cc_sent(struct emu_qp *qp, uint32_t len)
{
	struct emu_cc *cc = &qp->cc;
	uint64_t now_ps;

	if (!cc->limited)
		return;
	cc->bytes += len;
	while (cc->bytes >= (uint64_t)params(qp)->bytes_kb * 1024 &&
	       cc->limited) {
		cc->bytes -= (uint64_t)params(qp)->bytes_kb * 1024;
		cc->bc_steps++;
		increase(cc, params(qp), line_mbps(qp));
	}
	now_ps = emu_now_ns() * 1000;
	if (cc->next_ps < now_ps)
		cc->next_ps = now_ps;
	cc->next_ps += (uint64_t)((double)len * 8e6 / cc->rc);
}

void emu_cc_ce(struct emu_qp *qp, const struct emu_rx_pkt *pkt)
{
	struct emu_tport *tp = qp->tp;
	uint64_t now = emu_now_ns(), gap;
	uint32_t dqpn;
	uint8_t *buf;

	EMU_CNT_EV(qp, ecn_marked);
	gap = (uint64_t)tp->port->cfg.cnp_interval_us * 1000;
	if (qp->cc.last_cnp_ns && now - qp->cc.last_cnp_ns < gap)
		return;
	qp->cc.last_cnp_ns = now;
	dqpn = wire_op_has(pkt->opcode, WIRE_F_DETH) ?
	       deth_sqpn(pkt->w.hdr) : qp->attr.dest_qp_num;
	buf = emu_udp_tx_buf(&tp->udp);
	/* BTH with BECN, PSN 0, then 16 reserved bytes (RoCEv2 Annex A17). */
	bth_init(buf, WIRE_OP_CNP, false, false, 0, WIRE_DEFAULT_PKEY, dqpn,
		 false, 0);
	bth_set_becn(buf, true);
	memset(buf + WIRE_BTH_LEN, 0, 16);
	/* A CNP goes with traffic class 0: its priority is the port's
	 * business, which has no setting for it here. Counted as a CNP
	 * sent (np_cnp_sent) where every packet is. */
	emu_tx_packet(qp, &pkt->u->dst, &pkt->u->src, 0, buf,
		      WIRE_BTH_LEN + 16);
}

void emu_cc_cnp(struct emu_qp *qp)
{
	struct emu_tport *tp = qp->tp;

	if (!tp->port->cfg.dcqcn) {
		EMU_CNT_EV(qp, cnp_ignored);
		return;
	}
	EMU_CNT_EV(qp, cnp_handled);
	emu_dcqcn_cut(&qp->cc, params(qp), line_mbps(qp), emu_now_ns());
	emu_log(EMU_LOG_XPORT, "qp 0x%06x: CNP, rate %.0f Mb/s (alpha %.3f)",
		qp->qpn, qp->cc.rc, qp->cc.alpha);
}
