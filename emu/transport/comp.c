/* The completer: ACKs, NAKs, READ responses and atomic ACKs retire send
 * WQEs; retransmission and RNR timers; remote and local error completions. */
#include <string.h>

#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/base/engine.h"
#include "emu/objects/qp.h"
#include "emu/device/observer.h"
#include "emu/transport/cc.h"
#include "emu/transport/transport.h"
#include "emu/objects/wr.h"
#include "net/hdr.h"
#include "net/psn.h"

/*
 * IBTA's local ACK timeout is 4.096 us x 2^timeout, and every wait for an
 * ACK is one such timeout: a requester whose peer never answers (gone, or
 * its QP in RESET, INIT or ERR, which drop requests silently) ends in
 * RETRY_EXC_ERR after retry_cnt + 1 of them, as rxe and mlx5 do, and
 * programs size their own waits by that. Below about 4 ms a software peer
 * on a busy machine misses it for scheduling reasons alone, so shorter
 * values are raised to 2^10.
 */
#define COMP_MIN_TIMEOUT_EXP	10

/* How long timeouts are excused for a peer that has not had a CPU (one
 * stopped in a debugger, say, which a NIC would still answer for). */
#define COMP_STALL_MAX_NS	30000000000ull

static struct ev_loop *loop_of(struct emu_qp *qp)
{
	return emu_engine_loop(qp->dev->engine);
}

static bool outstanding(struct emu_qp *qp)
{
	return psn_before(qp->comp.psn, qp->req.psn_hi);
}

static struct emu_swqe *oldest(struct emu_qp *qp)
{
	uint32_t cons = atomic_load_explicit(&qp->sq.cons,
					     memory_order_relaxed);

	if (cons == atomic_load_explicit(&qp->sq.prod, memory_order_acquire))
		return NULL;
	return emu_wq_slot(&qp->sq, cons);
}

/* The oldest request ends in error, and with it the QP. */
static void fail(struct emu_qp *qp, enum ibv_wc_status status)
{
	struct emu_swqe *w = oldest(qp);

	emu_log(EMU_LOG_XPORT, "qp 0x%06x: wr 0x%llx fails with status %d",
		qp->qpn, w ? (unsigned long long)w->wr_id : 0ull, status);
	if (w)
		emu_qp_complete_send(qp, w, status);
	emu_qp_error(qp, 0);
}

static void retry_timer_start(struct emu_qp *qp, uint64_t in_ns)
{
	emu_engine_will_start(qp->dev->engine);
	ev_timer_set(&qp->comp.retry_timer, (double)in_ns * 1e-9, 0.);
	ev_timer_start(loop_of(qp), &qp->comp.retry_timer);
}

/*
 * The retransmission timer is lazy: progress moves retry_due and nothing
 * else, and the libev timer, when it fires early, sleeps again until then.
 * Requests and ACKs are handled on application threads too (engine.h), and
 * a timer started there costs the engine a wakeup: this way a ping-pong
 * starts it once per timeout, not once per message. It may fire late,
 * never early.
 */
static uint64_t timeout_ns(const struct emu_qp *qp)
{
	unsigned int exp = qp->attr.timeout;

	if (exp < COMP_MIN_TIMEOUT_EXP)
		exp = COMP_MIN_TIMEOUT_EXP;
	return 4096ull << exp;
}

void emu_comp_arm(struct emu_qp *qp)
{
	unsigned int exp = qp->attr.timeout;
	uint64_t in_ns;

	/* Timeout 0 means wait forever (IBTA 9.7.6.1.3). */
	if (!exp || qp->req.rnr_wait || !outstanding(qp)) {
		qp->comp.retry_due = 0;
		return;
	}
	if (qp->comp.retry_due)
		return;
	in_ns = timeout_ns(qp);
	qp->comp.retry_due = emu_now_ns() + in_ns;
	qp->comp.retry_sched = qp->comp.retry_due;
	if (!ev_is_active(&qp->comp.retry_timer))
		retry_timer_start(qp, in_ns);
}

/* Progress: the retry budgets start over and the timer with them. */
static void progress(struct emu_qp *qp)
{
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	qp->comp.rewound = false;
	qp->comp.retry_due = 0;
	qp->comp.stalled_since = 0;
	emu_comp_arm(qp);
}

static void rewind_once(struct emu_qp *qp, uint32_t psn)
{
	if (qp->comp.rewound && qp->comp.rewind_psn == psn)
		return;
	qp->comp.rewound = true;
	qp->comp.rewind_psn = psn;
	EMU_CNT_EV(qp, retries);
	emu_req_rewind(qp, psn);
}

/*
 * Retire, in order, the requests that an acknowledgement of every PSN up
 * to psn completes. A READ or atomic completes only with its data; an ACK
 * beyond one still waiting means its response was lost (IBTA's implicit
 * NAK), so it is asked for again.
 */
static void ack_upto(struct emu_qp *qp, uint32_t psn)
{
	struct emu_swqe *w;
	bool moved = false;

	if (psn_before(psn, qp->comp.psn) &&
	    psn_diff(qp->comp.psn, psn) > 1) {
		/* Old news, but it may still let a request finish. */
		psn = psn_sub(qp->comp.psn, 1);
	}
	while ((w = oldest(qp)) && w->started) {
		if (w->status) {
			fail(qp, (enum ibv_wc_status)w->status);
			return;
		}
		if (emu_wr_rd_atomic(w->opcode)) {
			if (!w->done) {
				if (psn_after(psn, w->last_psn)) {
					EMU_CNT_EV(qp, implied_naks);
					rewind_once(qp, w->resp_psn);
				}
				/* Acknowledged no further than its data. */
				if (psn_after_eq(psn, w->resp_psn))
					psn = psn_sub(w->resp_psn, 1);
				break;
			}
		} else if (psn_after(w->last_psn, psn)) {
			break;
		}
		/* A request the requester was resending is done: carry on
		 * after it. */
		if (qp->req.idx == atomic_load_explicit(&qp->sq.cons,
							memory_order_relaxed)) {
			qp->req.off = 0;
			qp->req.psn = psn_inc(w->last_psn);
		}
		emu_qp_complete_send(qp, w, IBV_WC_SUCCESS);
		moved = true;
	}
	if (psn_after(psn_inc(psn), qp->comp.psn) &&
	    psn_before_eq(psn_inc(psn), qp->req.psn_hi)) {
		qp->comp.psn = psn_inc(psn);
		moved = true;
	}
	if (psn_before(qp->req.psn, qp->comp.psn))
		emu_req_rewind(qp, qp->comp.psn);
	if (moved) {
		/* What is acknowledged is out of flight: its credits go
		 * back to the port's budget. */
		emu_budget_sync_qp(qp);
		progress(qp);
	}
}

/* Wait again, until at, without counting a retry or sending anything. */
static void excuse(struct emu_qp *qp, uint64_t now, uint64_t at,
		   const char *why)
{
	emu_log(EMU_LOG_XPORT, "qp 0x%06x: no ACK for psn 0x%06x yet, "
		"not counted: %s", qp->qpn, qp->comp.psn, why);
	qp->comp.retry_due = at;
	qp->comp.retry_sched = at;
	retry_timer_start(qp, at - now);
}

/*
 * Whether a timeout that fired is one a NIC would have had: the requests
 * have been out long enough (half a timeout at least: the rest may be
 * our own late firing, which rearm_after() does not let add up) and the
 * peer had the time to answer them. Our
 * engine and a peer's on this machine are threads that the host may not
 * run for a while, which a NIC's hardware never waits for; those waits are
 * excused (doc/design-notes.md). False when the timer was re-armed, or
 * what it waited for has come.
 */
static bool timed_out(struct emu_qp *qp, uint64_t now)
{
	struct emu_tport *tp = qp->tp;
	uint64_t in_ns = timeout_ns(qp), left;
	uint32_t psn = qp->comp.psn;
	enum emu_pulse_verdict v;
	enum ibv_qp_state s;

	if (!tp || !tp->open)
		return true;
	/* An answer that waited in our socket while we waited for a CPU
	 * counts first. */
	emu_rx_port(tp);
	s = emu_qp_state(qp);
	if (qp->comp.psn != psn || qp->comp.retry_due || !outstanding(qp) ||
	    (s != IBV_QPS_RTS && s != IBV_QPS_SQD))
		return false;
	/* When the requests really left: a batch flushed late was queued
	 * while the engine waited for a CPU. */
	left = qp->comp.tx_gen == EMU_TX_GEN_NONE ? qp->comp.tx_ns :
		emu_udp_left_by(&tp->udp, qp->comp.tx_gen);
	if (left == 1)
		left = qp->comp.tx_ns;
	v = emu_pulse_judge(&emu_transport_of(qp->dev)->peers, &qp->dest,
			    tp->port->ep.port, left ? left : now);
	/* A peer that is gone answers nothing: every timeout counts. */
	qp->comp.peer_gone = v == EMU_PULSE_GONE;
	if (qp->comp.peer_gone)
		return true;
	if (!left || now - left < in_ns / 2) {
		excuse(qp, now, (left ? left : now) + in_ns,
		       "sent less than half a timeout ago");
		return false;
	}
	if (v == EMU_PULSE_STALLED) {
		if (!qp->comp.stalled_since)
			qp->comp.stalled_since = now;
		if (now - qp->comp.stalled_since < COMP_STALL_MAX_NS) {
			excuse(qp, now, now + in_ns,
			       "the peer has not run since they arrived");
			return false;
		}
	}
	qp->comp.stalled_since = 0;
	return true;
}

/*
 * After a counted timeout the next wait runs from when this one was due,
 * not from when the timer got a CPU: a NIC's timer is never late, and
 * late firings must not add up over retry_cnt retries. What was just sent
 * again still gets half a timeout at least (timed_out() excuses less),
 * unless the peer is gone.
 */
static void rearm_after(struct emu_qp *qp, uint64_t sched, uint64_t now)
{
	uint64_t in_ns = timeout_ns(qp), at = sched + in_ns;

	if (!qp->comp.retry_due)
		return;
	/* The schedule goes on from the NIC's, not from the floor below:
	 * a clamp taken once must not move every later timeout. */
	qp->comp.retry_sched = at;
	/* Nobody will answer a peer that is gone: its schedule stays the
	 * NIC's however late our timer was. */
	if (at < now + (qp->comp.peer_gone ? 1000 : in_ns / 2))
		at = now + (qp->comp.peer_gone ? 1000 : in_ns / 2);
	if (at >= qp->comp.retry_due)
		return;
	qp->comp.retry_due = at;
	ev_timer_stop(loop_of(qp), &qp->comp.retry_timer);
	retry_timer_start(qp, at - now);
}

static void on_retry_timeout(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct emu_qp *qp = (struct emu_qp *)((char *)t -
		offsetof(struct emu_qp, comp.retry_timer));
	enum ibv_qp_state s = emu_qp_state(qp);
	uint64_t now, due;

	ev_timer_stop(loop, t);
	if (!qp->comp.retry_due)
		return;
	if ((s != IBV_QPS_RTS && s != IBV_QPS_SQD) || !outstanding(qp)) {
		qp->comp.retry_due = 0;
		return;
	}
	now = emu_now_ns();
	if (now < qp->comp.retry_due) {
		retry_timer_start(qp, qp->comp.retry_due - now);
		return;
	}
	due = qp->comp.retry_due;
	if (qp->comp.retry_sched && qp->comp.retry_sched < due)
		due = qp->comp.retry_sched;
	qp->comp.retry_due = 0;
	if (!timed_out(qp, now))
		return;
	EMU_CNT_EV(qp, timeouts);
	/* How late the timer ran is the host's, not the QP's: say it, so a
	 * log shows the schedule apart from the scheduler. */
	emu_log(EMU_LOG_XPORT,
		"qp 0x%06x: no ACK for psn 0x%06x in time, %u retries left "
		"(timer %llu us late)", qp->qpn, qp->comp.psn,
		qp->comp.retry_left, (unsigned long long)(now - due) / 1000);
	EMU_PUBLISH(timeout, qp, qp->comp.psn, qp->comp.retry_left);
	if (!qp->comp.retry_left) {
		EMU_CNT_EV(qp, retry_exceeded);
		fail(qp, IBV_WC_RETRY_EXC_ERR);
	} else {
		EMU_CNT_EV(qp, retries);
		qp->comp.retry_left--;
		qp->comp.rewound = false;
		emu_req_rewind(qp, qp->comp.psn);
		emu_req_run(qp);
		rearm_after(qp, due, now);
	}
	emu_transport_flush(emu_transport_of(qp->dev));
}

static void on_rnr_timeout(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct emu_qp *qp = (struct emu_qp *)((char *)t -
		offsetof(struct emu_qp, comp.rnr_timer));
	enum ibv_qp_state s = emu_qp_state(qp);

	ev_timer_stop(loop, t);
	qp->req.rnr_wait = false;
	if (s != IBV_QPS_RTS && s != IBV_QPS_SQD)
		return;
	emu_req_rewind(qp, qp->comp.rnr_psn);
	emu_req_run(qp);
	emu_transport_flush(emu_transport_of(qp->dev));
}

void emu_comp_timers_init(struct emu_qp *qp)
{
	ev_timer_init(&qp->comp.retry_timer, on_retry_timeout, 0., 0.);
	ev_timer_init(&qp->comp.rnr_timer, on_rnr_timeout, 0., 0.);
	emu_cc_init(qp);
}

void emu_comp_timers_stop(struct emu_qp *qp)
{
	struct ev_loop *loop = loop_of(qp);

	ev_timer_stop(loop, &qp->comp.retry_timer);
	ev_timer_stop(loop, &qp->comp.rnr_timer);
	qp->comp.retry_due = 0;
	emu_cc_stop(qp);
}

static void rnr_nak(struct emu_qp *qp, uint32_t psn, unsigned int timer)
{
	struct ev_loop *loop = loop_of(qp);

	emu_log(EMU_LOG_XPORT, "qp 0x%06x: RNR NAK at psn 0x%06x, waiting %u us",
		qp->qpn, psn, wire_rnr_timer_usec(timer));
	EMU_PUBLISH(nak, qp, false, aeth_syn_rnr(timer), psn);
	/* rnr_retry 7 means retry forever. */
	if (qp->attr.rnr_retry != 7) {
		if (!qp->comp.rnr_left) {
			EMU_CNT_EV(qp, rnr_exceeded);
			fail(qp, IBV_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->comp.rnr_left--;
	}
	EMU_CNT_EV(qp, rnr_waits);
	qp->req.rnr_wait = true;
	qp->comp.rnr_psn = psn;
	qp->comp.retry_due = 0;
	ev_timer_stop(loop, &qp->comp.retry_timer);
	ev_timer_stop(loop, &qp->comp.rnr_timer);
	emu_engine_will_start(qp->dev->engine);
	ev_timer_set(&qp->comp.rnr_timer,
		     (double)wire_rnr_timer_usec(timer) * 1e-6, 0.);
	ev_timer_start(loop, &qp->comp.rnr_timer);
}

static void on_ack(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint8_t syn = aeth_syndrome(pkt->w.hdr);
	uint32_t psn = pkt->psn;

	switch (aeth_syn_kind(syn)) {
	case AETH_ACK:
		ack_upto(qp, psn);
		break;
	case AETH_RNR_NAK:
		ack_upto(qp, psn_sub(psn, 1));
		if (emu_qp_state(qp) != IBV_QPS_ERR)
			rnr_nak(qp, psn, aeth_syn_value(syn));
		break;
	case AETH_NAK:
		emu_log(EMU_LOG_XPORT, "qp 0x%06x: NAK %s at psn 0x%06x",
			qp->qpn, aeth_nak_str(aeth_syn_value(syn)), psn);
		EMU_PUBLISH(nak, qp, false, syn, psn);
		ack_upto(qp, psn_sub(psn, 1));
		if (emu_qp_state(qp) == IBV_QPS_ERR)
			break;
		switch (aeth_syn_value(syn)) {
		case AETH_NAK_PSN_SEQ:
			/* The peer is alive and says where it stands: go
			 * back there at once, without spending a retry. */
			EMU_CNT_EV(qp, seq_naks);
			rewind_once(qp, psn);
			break;
		case AETH_NAK_INVALID_REQ:
			fail(qp, IBV_WC_REM_INV_REQ_ERR);
			break;
		case AETH_NAK_REMOTE_ACCESS:
			fail(qp, IBV_WC_REM_ACCESS_ERR);
			break;
		case AETH_NAK_REMOTE_OP:
			fail(qp, IBV_WC_REM_OP_ERR);
			break;
		case AETH_NAK_INVALID_RD_REQ:
			fail(qp, IBV_WC_REM_INV_RD_REQ_ERR);
			break;
		default:
			/* Reserved codes are ignored. */
			break;
		}
		break;
	default:
		break;
	}
}

/* The request an answer at psn belongs to, once everything before it has
 * been acknowledged by the answer itself; NULL if none is waiting. Local
 * work (bind, invalidate) borrows the PSN before it and answers nothing. */
static struct emu_swqe *answered(struct emu_qp *qp, uint32_t psn)
{
	struct emu_swqe *w;

	ack_upto(qp, psn_sub(psn, 1));
	if (emu_qp_state(qp) == IBV_QPS_ERR)
		return NULL;
	w = oldest(qp);
	if (!w || !w->started || w->done || w->local ||
	    !psn_in_range(psn, w->first_psn, w->last_psn))
		return NULL;
	return w;
}

/*
 * Does a READ response at psn, the PSN expected next, fit where it stands
 * in the READ? A requester that finds it does not reports a bad response
 * and stops the QP (IBTA 9.9.2, requester errors; rxe's check_ack). Its
 * opcode: a stream of responses opens with FIRST or ONLY, at the READ's
 * first PSN or where the requester asked again for the rest; MIDDLE and
 * LAST continue it; LAST or ONLY stand at the READ's last PSN and nowhere
 * else. Its AETH, where it has one, is an ACK. Its payload: one MTU
 * before the last PSN, exactly the rest of the READ at it.
 */
static bool read_resp_fits(struct emu_qp *qp, const struct emu_swqe *w,
			   const struct emu_rx_pkt *pkt)
{
	uint32_t flags = pkt->w.info->flags, psn = pkt->psn;
	uint32_t off = psn_sub(psn, w->first_psn) * qp->mtu;
	uint32_t len = pkt->w.paylen;
	bool at_last = psn == w->last_psn;

	if (!(flags & WIRE_F_LAST) != !at_last)
		return false;
	if (flags & WIRE_F_FIRST) {
		if (psn != w->first_psn && psn != w->req_psn)
			return false;
	} else if (psn == w->first_psn) {
		return false;
	}
	if ((flags & WIRE_F_AETH) &&
	    aeth_syn_kind(aeth_syndrome(pkt->w.hdr)) != AETH_ACK)
		return false;
	if (at_last)
		return off <= w->length && len == w->length - off;
	return len == qp->mtu;
}

static void on_read_resp(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t psn = pkt->psn, off, len = pkt->w.paylen;
	uint32_t flags = pkt->w.info->flags;
	struct emu_swqe *w = answered(qp, psn);
	int rc;

	if (!w)
		return;
	/* A READ response where a SEND, WRITE or atomic is outstanding is
	 * a response the responder had no reason to send. */
	if (!emu_wr_reads(w->opcode)) {
		fail(qp, IBV_WC_BAD_RESP_ERR);
		return;
	}
	if (psn != w->resp_psn) {
		/* A response went missing: ask again from the gap. */
		if (psn_after(psn, w->resp_psn))
			rewind_once(qp, w->resp_psn);
		EMU_CNT_EV(qp, oos_read_resp);
		return;
	}
	/* Placing it anyway would leave a READ that never completes and
	 * ends, a retry timeout later, in RETRY_EXC_ERR: end it now. */
	if (!read_resp_fits(qp, w, pkt)) {
		fail(qp, IBV_WC_BAD_RESP_ERR);
		return;
	}
	off = psn_sub(psn, w->first_psn) * qp->mtu;
	if (len) {
		rc = emu_sge_copy(qp, emu_swqe_sge(w), w->num_sge, off,
				  pkt->w.pay, len, true);
		if (rc) {
			fail(qp, (enum ibv_wc_status)rc);
			return;
		}
	}
	w->resp_psn = psn_inc(psn);
	if (flags & WIRE_F_LAST) {
		w->done = true;
		if (qp->req.rd_out)
			qp->req.rd_out--;
	}
	ack_upto(qp, psn);
}

static void on_atomic_ack(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	struct emu_swqe *w = answered(qp, pkt->psn);
	uint64_t orig;
	int rc;

	if (!w)
		return;
	if (aeth_syn_kind(aeth_syndrome(pkt->w.hdr)) != AETH_ACK) {
		on_ack(qp, pkt);
		return;
	}
	/* An atomic ACK answers an atomic, and nothing else. */
	if (!emu_wr_atomic(w->opcode)) {
		fail(qp, IBV_WC_BAD_RESP_ERR);
		return;
	}
	/* The original value lands in the local buffer in host order. */
	orig = atmack_orig(pkt->w.hdr);
	rc = emu_sge_copy(qp, emu_swqe_sge(w), w->num_sge, 0, &orig,
			  sizeof(orig), true);
	if (rc) {
		fail(qp, (enum ibv_wc_status)rc);
		return;
	}
	w->done = true;
	if (qp->req.rd_out)
		qp->req.rd_out--;
	ack_upto(qp, pkt->psn);
}

void emu_comp_packet(struct emu_qp *qp, struct emu_rx_pkt *pkt)
{
	uint32_t flags = pkt->w.info->flags;

	/* Answers to what was never sent are ignored. */
	if (psn_after_eq(pkt->psn, qp->req.psn_hi))
		return;
	if (flags & WIRE_F_READ)
		on_read_resp(qp, pkt);
	else if (flags & WIRE_F_ATOMIC)
		on_atomic_ack(qp, pkt);
	else
		on_ack(qp, pkt);
	if (emu_qp_state(qp) == IBV_QPS_ERR)
		return;
	emu_qp_check_drained(qp);
	/* Acknowledgements open the window: send what waits. */
	emu_req_run(qp);
}
