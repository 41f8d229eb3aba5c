/* Per device: the engine's watch on every port's endpoint socket, the UDP
 * I/O it drives, and the framing (ICRC over the pseudo IP/UDP header). */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/base/log.h"
#include "emu/objects/qp.h"
#include "emu/device/observer.h"
#include "emu/transport/transport.h"
#include "net/hdr.h"
#include "net/icrc.h"
#include "net/memguard.h"
#include "net/psn.h"

/* How long after an application thread last looked at a port's socket in
 * vain the engine stays off it, and how often it checks: what a packet may
 * wait, at most, once the polling stops, far below any ACK timeout. */
#define HANDOFF_NS	50000ull
/* Polls per clock read of a standing claim (emu_transport_poll). */
#define CLAIM_EVERY	8

/* The engine's watches on what brings a port packets: the socket, and
 * the eventfd its ring peers write when it said it sleeps. */
/* The engine's watch on the socket, and the rings' flags that tell their
 * peers whether to write our eventfd: both say who receives. The
 * eventfd itself stays watched: it is written only while a flag says
 * nobody polls. */
static void watches_set(struct emu_tport *tp, bool on)
{
	emu_engine_watch_set(tp->port->dev->engine, tp->watch, on);
	if (tp->wire.on)
		emu_shm_set_waiting(&tp->wire.shm, on);
}

static bool claimed(struct emu_tport *tp)
{
	return emu_now_ns() - atomic_load(&tp->polled_ns) < HANDOFF_NS;
}

static void on_readable(void *arg)
{
	struct emu_tport *tp = arg;
	struct emu_device *dev = tp->port->dev;

	if (claimed(tp)) {
		/* Somebody polls: the packet is theirs to take. */
		watches_set(tp, false);
		atomic_store(&tp->handed_off, true);
		tp->handoffs++;
		ev_timer_set(&tp->idle_check, (double)HANDOFF_NS * 1e-9, 0.);
		ev_timer_start(emu_engine_loop(dev->engine), &tp->idle_check);
		return;
	}
	emu_rx_port(tp);
}

static void take_back(struct emu_tport *tp);

/* A ring peer woke us: the count is only a signal. */
static void on_wake(void *arg)
{
	struct emu_tport *tp = arg;
	uint64_t n;

	if (read(tp->wire.wake_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		emu_log(EMU_LOG_XPORT, "%s/%u: wire: eventfd: %s",
			tp->port->dev->ibdev.name, tp->port->num,
			strerror(errno));
	if (atomic_load(&tp->handed_off)) {
		/* Written before the peer saw our flag go down: the rings
		 * stay the poller's while it polls, else they are ours. */
		if (claimed(tp)) {
			emu_shm_set_waiting(&tp->wire.shm, false);
		} else {
			tp->asked_takes++;
			take_back(tp);
		}
		return;
	}
	on_readable(arg);
}

/* Nobody polls any more: the socket and the rings are the engine's
 * again; what came while the flags said nobody sleeps is read now. */
static void take_back(struct emu_tport *tp)
{
	ev_timer_stop(emu_engine_loop(tp->port->dev->engine), &tp->idle_check);
	atomic_store(&tp->handed_off, false);
	watches_set(tp, true);
	emu_rx_port(tp);
}

static void on_idle_check(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct emu_tport *tp = (struct emu_tport *)((char *)w -
		offsetof(struct emu_tport, idle_check));
	uint64_t since = emu_now_ns() - atomic_load(&tp->polled_ns);

	ev_timer_stop(loop, w);
	if (!atomic_load(&tp->handed_off))
		return;
	if (since < HANDOFF_NS) {
		ev_timer_set(w, (double)(HANDOFF_NS - since) * 1e-9, 0.);
		ev_timer_start(loop, w);
		return;
	}
	tp->idle_takes++;
	take_back(tp);
}

/* The doorbell of emu_transport_will_sleep. */
static void on_take_back(void *arg)
{
	struct emu_transport *t = arg;
	uint32_t i;

	for (i = 0; i < t->dev->nports; i++)
		if (t->ports[i].open &&
		    atomic_load(&t->ports[i].handed_off)) {
			t->ports[i].asked_takes++;
			take_back(&t->ports[i]);
		}
}

void emu_transport_polled(struct emu_device *dev)
{
	struct emu_transport *t = emu_transport_of(dev);
	uint32_t i;

	for (i = 0; i < dev->nports; i++)
		if (atomic_load_explicit(&t->ports[i].polled_ns,
					 memory_order_relaxed))
			atomic_store_explicit(&t->ports[i].polled_ns, 0,
					      memory_order_relaxed);
}

void emu_transport_will_sleep(struct emu_device *dev)
{
	struct emu_transport *t;
	bool ring = false;
	uint32_t i;

	if (!dev->engine)
		return;
	emu_transport_polled(dev);
	t = emu_transport_of(dev);
	for (i = 0; i < dev->nports; i++)
		ring |= atomic_load(&t->ports[i].handed_off);
	if (ring && t->take_back)
		emu_doorbell_ring(t->take_back);
}

static void udp_start(void *arg)
{
	struct emu_tport *tp = arg;

	emu_udp_start(&tp->udp);
	/* With io_uring only this thread receives: its state tells the
	 * peers whether it is idle or waiting for a CPU (emu/transport/pulse.c). */
	emu_pulse_receiver(&tp->pulse, tp->udp.ur != NULL);
}

static void resume_run(struct emu_budget_user *u)
{
	struct emu_qp *qp = (struct emu_qp *)((char *)u -
		offsetof(struct emu_qp, bud));

	emu_req_run(qp);
}

/* Before the engine blocks: serve the QPs waiting for room with what this
 * iteration's callbacks released, and send it. */
static void on_prepare(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct emu_transport *t = (struct emu_transport *)((char *)w -
		offsetof(struct emu_transport, resume));
	bool waiting = false;
	uint32_t i;

	for (i = 0; i < t->dev->nports; i++) {
		struct emu_budget *b = &t->ports[i].budget;

		if (!t->ports[i].open)
			continue;
		emu_budget_resume(b, resume_run);
		if (b->head)
			waiting = true;
	}
	emu_transport_flush(t);
	if (!waiting)
		ev_prepare_stop(loop, w);
}

static void kick(struct emu_qp *qp)
{
	struct emu_transport *t = emu_transport_of(qp->dev);

	/* The loop must run its prepare watcher soon even when the watcher
	 * is on already: an engine blocked with QPs still waiting sleeps
	 * until its next timer (an ACK timeout, say) unless a thread that
	 * freed room from outside wakes it. */
	emu_engine_will_start(qp->dev->engine);
	if (!ev_is_active(&t->resume))
		ev_prepare_start(emu_engine_loop(qp->dev->engine), &t->resume);
}

bool emu_budget_take_qp(struct emu_qp *qp, uint32_t n)
{
	struct emu_budget *b = &qp->tp->budget;
	bool was = qp->bud.queued;

	if (emu_budget_take(b, &qp->bud, n))
		return true;
	if (!was)
		EMU_CNT_EV(qp, budget_waits);
	kick(qp);
	return false;
}

void emu_budget_release_qp(struct emu_qp *qp, uint32_t n)
{
	if (emu_budget_release(&qp->bud, n))
		kick(qp);
}

void emu_budget_sync_qp(struct emu_qp *qp)
{
	int32_t out = psn_diff(qp->req.psn_hi, qp->comp.psn);
	uint32_t want = out > 0 ? (uint32_t)out : 0;

	if (qp->bud.held > want)
		emu_budget_release_qp(qp, qp->bud.held - want);
}

void emu_budget_forget_qp(struct emu_qp *qp)
{
	struct emu_budget *b = qp->bud.b;

	emu_budget_forget(&qp->bud);
	if (b && emu_budget_runnable(b))
		kick(qp);
}

void emu_transport_link_config(struct emu_tport *tp)
{
	const struct emu_port_config *c = &tp->port->cfg;
	struct emu_link_cfg lc = {
		.rate_mbps = emu_port_speed_mbps(c->speed, c->width),
		.latency_ns = (uint64_t)c->latency_us * 1000,
		.jitter_ns = (uint64_t)c->jitter_us * 1000,
		.jitter = (enum emu_jitter)c->jitter,
		.seed = c->link_seed,
		/* What the port's budget lets be in flight, and room for
		 * the ACKs, NAKs and READ responses it does not count. */
		.limit = tp->budget.total + 256,
		.ecn_threshold = c->ecn_threshold,
	};

	emu_link_configure(&tp->link, &lc);
}

static void inject_start(void *dev)
{
	emu_inject_start(dev);
	/* Watchers join now that there is something to watch. */
	EMU_PUBLISH(up, (struct emu_device *)dev);
}

int emu_transport_start(struct emu_device *dev)
{
	struct emu_transport *t = emu_transport_of(dev);
	uint32_t i;
	int rc;

	t->dev = dev;
	t->ack_list = NULL;
	t->take_back = emu_engine_doorbell(dev->engine, on_take_back, t);
	if (!t->take_back)
		return ENOMEM;
	ev_prepare_init(&t->resume, on_prepare);
	for (i = 0; i < dev->nports; i++) {
		struct emu_tport *tp = &t->ports[i];
		struct emu_port *port = &dev->ports[i];

		tp->port = port;
		atomic_store(&tp->polled_ns, 0);
		atomic_store(&tp->handed_off, false);
		ev_timer_init(&tp->idle_check, on_idle_check, 0., 0.);
		if (port->ep.fd < 0)
			continue;
		/* net/ answers with errnos negated: turned positive. */
		rc = -emu_udp_open(&tp->udp, port->ep.fd, port->ep.family,
				   &port->ep.addr, port->ep.netdev[0] != '\0',
				   port->cfg.udp_uring ? EMU_UDP_URING
						       : EMU_UDP_MMSG);
		if (rc) {
			emu_udp_close(&tp->udp);
			emu_transport_stop(dev);
			return rc;
		}
		tp->open = true;
		emu_budget_init(&tp->budget,
				emu_budget_size(emu_udp_rcvbuf(&tp->udp),
						EMU_UDP_TRUESIZE));
		emu_link_init(&tp->link, &(struct emu_link_cfg){ 0 }, &tp->udp,
			      dev->engine);
		tp->link.handoff = &tp->handed_off;
		emu_transport_link_config(tp);
		emu_inject_port_init(tp);
		if (!port->ep.netdev[0])
			emu_pulse_open(&tp->pulse, &port->ep.addr,
				       port->ep.port);
		emu_log(EMU_LOG_XPORT, "%s/%u: %u packets in flight at most",
			dev->ibdev.name, port->num, tp->budget.total);
		/* io_uring requests belong to the thread that submits them:
		 * all of this port's are the engine's. */
		emu_engine_call(dev->engine, udp_start, tp);
		tp->watch = emu_engine_watch_fd(dev->engine,
						emu_udp_fd(&tp->udp),
						on_readable, tp);
		if (!tp->watch) {
			emu_transport_stop(dev);
			return ENOMEM;
		}
		emu_wire_open(tp);
		if (tp->wire.on) {
			tp->wire.wake_watch = emu_engine_watch_fd(
				dev->engine, tp->wire.wake_fd, on_wake, tp);
			if (!tp->wire.wake_watch) {
				emu_transport_stop(dev);
				return ENOMEM;
			}
		}
	}
	emu_engine_call(dev->engine, inject_start, dev);
	return 0;
}

/* On the engine thread, so that nothing there is using a port's I/O while
 * it goes away (io_uring requests are the engine's too). */
static void do_stop(void *arg)
{
	struct emu_device *dev = arg;
	struct emu_transport *t = emu_transport_of(dev);
	uint32_t i;

	emu_inject_stop(dev);
	EMU_PUBLISH_UNDO(down, dev);
	ev_prepare_stop(emu_engine_loop(dev->engine), &t->resume);
	for (i = 0; i < dev->nports; i++) {
		struct emu_tport *tp = &t->ports[i];

		ev_timer_stop(emu_engine_loop(dev->engine), &tp->idle_check);
		if (tp->watch)
			emu_engine_unwatch(dev->engine, tp->watch);
		tp->watch = NULL;
		if (tp->wire.wake_watch)
			emu_engine_unwatch(dev->engine, tp->wire.wake_watch);
		tp->wire.wake_watch = NULL;
		if (tp->open) {
			emu_log(EMU_LOG_XPORT, "%s/%u: receive handed to pollers "
				"%llu times, taken back %llu when idle, %llu "
				"when asked", dev->ibdev.name, tp->port->num,
				(unsigned long long)tp->handoffs,
				(unsigned long long)tp->idle_takes,
				(unsigned long long)tp->asked_takes);
			emu_wire_close(tp);
			emu_pulse_close(&tp->pulse);
			emu_inject_port_fini(tp);
			emu_link_fini(&tp->link);
			emu_udp_close(&tp->udp);
		}
		tp->open = false;
	}
	emu_pulse_peers_fini(&t->peers);
	/* Each rule's counts (EMUVERBS_DEBUG=xport). */
	for (i = 0; i < t->faults.n; i++) {
		char line[512];

		emu_fault_format(&t->faults.rule[i], line, sizeof(line));
		emu_log(EMU_LOG_XPORT, "%s: fault %s", dev->ibdev.name, line);
	}
}

void emu_transport_stop(struct emu_device *dev)
{
	if (!dev->engine)
		return;
	emu_engine_call(dev->engine, do_stop, dev);
	emu_doorbell_free(emu_transport_of(dev)->take_back);
	emu_transport_of(dev)->take_back = NULL;
}

int emu_transport_counters(struct emu_device *dev, uint32_t port_num,
			   struct emu_port_counters *out)
{
	struct emu_transport *t;

	if (!dev || port_num < 1 || port_num > dev->nports)
		return EINVAL;
	t = emu_transport_of(dev);
	*out = t->ports[port_num - 1].cnt;
	return 0;
}

int emu_transport_poll(struct emu_device *dev, bool claim)
{
	struct emu_transport *t;
	unsigned int n = 0;
	uint32_t i;
	int rc = 0;

	if (!dev->engine || !emu_engine_try_enter(dev->engine))
		return -1;
	t = emu_transport_of(dev);
	for (i = 0; i < dev->nports; i++) {
		struct emu_tport *tp = &t->ports[i];

		if (!tp->open)
			continue;
		/* The link's due packets go from here too: a poller that
		 * keeps entering can keep the engine's timer from running. */
		if (tp->link.n)
			emu_link_release(&tp->link, emu_now_ns());
		if (tp->faults.n)
			emu_inject_release(tp, emu_now_ns());
		if (!emu_udp_recv_any_thread(&tp->udp)) {
			/* Rings are anyone's who holds the engine. */
			if (emu_shm_any(tp->udp.shm))
				n += emu_rx_batch(tp, false);
			else
				rc = -1;
			continue;
		}
		if (emu_shm_any(tp->udp.shm) && tp->sock_skip &&
		    !emu_shm_unordered(tp->udp.shm)) {
			/* Ring peers carry the traffic: the socket is
			 * looked at one poll in EMU_RX_SOCK_SKIP + 1. */
			tp->sock_skip--;
			n += emu_rx_batch(tp, false);
		} else {
			n += emu_rx_batch(tp, true);
		}
		/* The claim's time, read one poll in CLAIM_EVERY while it
		 * stands: a poll of the rings alone is cheaper than the
		 * clock, and the claim's 50 us need no finer time. */
		if (claim && (!atomic_load_explicit(&tp->polled_ns,
						    memory_order_relaxed) ||
			      !(tp->claims++ % CLAIM_EVERY)))
			atomic_store(&tp->polled_ns, emu_now_ns());
	}
	emu_engine_leave(dev->engine);
	return n ? 1 : rc;
}

void emu_transport_flush(struct emu_transport *t)
{
	uint32_t i;

	for (i = 0; i < t->dev->nports; i++)
		if (t->ports[i].open && emu_udp_tx_pending(&t->ports[i].udp))
			emu_udp_flush(&t->ports[i].udp);
}

void emu_transport_flush_device(struct emu_device *dev)
{
	emu_transport_flush(emu_transport_of(dev));
}

int emu_tx_packet_parts(struct emu_qp *qp, const struct in6_addr *src,
			const struct in6_addr *dst, uint8_t tclass,
			uint8_t *buf, uint32_t hdr_len,
			const struct iovec *pay, unsigned int npay,
			uint32_t pay_len)
{
	struct emu_tport *tp = qp->tp;
	uint16_t sport = emu_udp_sport(&tp->udp, qp->sock);
	bool faults, unsealed = false;
	int rc;
	uint32_t pad = npay ? wire_pad_len(pay_len) : 0;
	uint32_t dlen = hdr_len + pay_len + pad + ICRC_LEN;
	struct emu_cnt_pkt cp;

	if (!tp->open)
		return 0;
	if (atomic_load(&tp->port->state) != IBV_PORT_ACTIVE) {
		tp->cnt.tx_port_down++;
		return 0;
	}
	if (!tp->udp.any)
		src = &tp->udp.local;
	faults = emu_inject_active(&emu_transport_of(qp->dev)->faults);
	/* A payload page the application has unmapped fails the packet
	 * here, before anything is counted or queued (a NIC's DMA read of
	 * a page it cannot reach). A packet for a ring leaves without its
	 * ICRC, unless a fault rule may damage it (net/shm.h): its pages
	 * are only looked at. */
	if (!faults && emu_udp_ring_bound(&tp->udp, dst, tp->port->ep.port)) {
		rc = npay ? emu_guard_touch(pay, npay) : 0;
		if (!rc) {
			memset(buf + hdr_len, 0, pad + ICRC_LEN);
			unsealed = true;
		}
	} else {
		rc = icrc_seal(src, dst, sport, tp->port->ep.port, buf,
			       hdr_len, pay, npay, pay_len, pad);
	}
	if (rc) {
		emu_log(EMU_LOG_XPORT, "qp 0x%06x: payload at %p not mapped: "
			"packet not sent", qp->qpn, pay[0].iov_base);
		return EFAULT;
	}
	/* Counted as the transport sends it: what fault rules and the
	 * link do to it next is counted where they do it. */
	emu_cnt_classify(&cp, buf, dlen);
	emu_cnt_add(&qp->cnt.tx, &cp);
	emu_cnt_add(&tp->cnt.tx, &cp);
	tp->udp.tx_unsealed = unsealed;
	if (faults)
		emu_inject_tx(tp, qp->qpn, src, dst, tp->port->ep.port,
			      tclass, qp->sock, buf, hdr_len, pay, npay,
			      pad + ICRC_LEN);
	else
		emu_link_send(&tp->link, emu_now_ns(), qp->sock, src, dst,
			      tp->port->ep.port, tclass, buf, hdr_len, pay,
			      npay, pad + ICRC_LEN);
	return 0;
}

void emu_tx_packet(struct emu_qp *qp, const struct in6_addr *src,
		   const struct in6_addr *dst, uint8_t tclass, uint8_t *buf,
		   uint32_t ib_len)
{
	emu_tx_packet_parts(qp, src, dst, tclass, buf, ib_len, NULL, 0, 0);
}
