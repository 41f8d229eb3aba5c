/* emu/observe/tracer.c: the process's event trace (emu/observe/tracer.h): which file,
 * started and stopped how, each device's timer that samples its QPs'
 * counters, and the lines each kind of event writes (doc/observability.md
 * is their schema). */
#include <ev.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu/observe/ctl.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/device/fault.h"
#include "emu/objects/names.h"
#include "emu/objects/qp.h"
#include "emu/device/speed.h"
#include "emu/observe/trace.h"
#include "emu/observe/tracer.h"
#include "emu/transport/transport.h"
#include "net/hdr.h"
#include "net/opcode.h"

atomic_bool emu_tracing;

static pthread_mutex_t tr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_trace *cur;		/* under tr_lock */
static _Atomic unsigned int interval_ms = EMU_TRACE_INTERVAL_MS;
static bool env_tried, hooks_set;

/* Per device: the sampling timer, and the QPs it samples with their
 * counters at the last sample. QPs join when the trace starts and when
 * they change state (every QP that carries traffic left RESET), and leave
 * once their number finds nothing: no list of QPs is kept otherwise, and
 * scanning the whole QP table (half a million slots by default) every
 * interval would cost more than the sampling. Engine thread only. */
struct trace_qp {
	uint32_t qpn;
	bool busy;			/* it moved at the last sample */
	uint64_t bytes;			/* tx + rx, to see a change */
};

struct emu_trace_dev {
	struct emu_device *dev;
	ev_timer timer;
	uint32_t n, cap;
	struct trace_qp *qp;
};

static void track(struct emu_trace_dev *td, uint32_t qpn);

/* ---- lines ------------------------------------------------------------ */

static void vemit(const char *ev, const char *fmt, va_list ap)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	pthread_mutex_lock(&tr_lock);
	if (cur)
		emu_trace_vevent(cur, (uint64_t)ts.tv_sec * 1000000000ull +
					 (uint64_t)ts.tv_nsec, ev, fmt, ap);
	pthread_mutex_unlock(&tr_lock);
}

void emu_trace_emit(const char *ev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vemit(ev, fmt, ap);
	va_end(ap);
}

/* The fields every QP event starts with. */
#define QP_FMT ",\"dev\":%s,\"port\":%u,\"qpn\":%u,\"type\":\"%s\""
#define QP_ARGS(qp, buf)                                                \
	emu_trace_str(buf, sizeof(buf), (qp)->dev->ibdev.name),          \
		(qp)->tp ? (qp)->tp->port->num : 0u, (qp)->qpn,           \
		emu_qp_type_name((qp)->type)

void emu_trace_qp_state(struct emu_qp *qp, enum ibv_qp_state from,
			enum ibv_qp_state to)
{
	char n[80];

	struct emu_trace_dev *td = emu_transport_of(qp->dev)->trace;

	emu_trace_emit("qp_state", QP_FMT ",\"from\":\"%s\",\"to\":\"%s\"",
		       QP_ARGS(qp, n), emu_qp_state_name(from),
		       emu_qp_state_name(to));
	if (td)
		track(td, qp->qpn);
}

static const char *event_name(enum ibv_event_type t)
{
	static const char *const names[] = {
		[IBV_EVENT_CQ_ERR] = "CQ_ERR",
		[IBV_EVENT_QP_FATAL] = "QP_FATAL",
		[IBV_EVENT_QP_REQ_ERR] = "QP_REQ_ERR",
		[IBV_EVENT_QP_ACCESS_ERR] = "QP_ACCESS_ERR",
		[IBV_EVENT_COMM_EST] = "COMM_EST",
		[IBV_EVENT_SQ_DRAINED] = "SQ_DRAINED",
		[IBV_EVENT_PATH_MIG] = "PATH_MIG",
		[IBV_EVENT_PATH_MIG_ERR] = "PATH_MIG_ERR",
		[IBV_EVENT_DEVICE_FATAL] = "DEVICE_FATAL",
		[IBV_EVENT_PORT_ACTIVE] = "PORT_ACTIVE",
		[IBV_EVENT_PORT_ERR] = "PORT_ERR",
		[IBV_EVENT_LID_CHANGE] = "LID_CHANGE",
		[IBV_EVENT_PKEY_CHANGE] = "PKEY_CHANGE",
		[IBV_EVENT_SM_CHANGE] = "SM_CHANGE",
		[IBV_EVENT_SRQ_ERR] = "SRQ_ERR",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ_LIMIT_REACHED",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "QP_LAST_WQE_REACHED",
		[IBV_EVENT_CLIENT_REREGISTER] = "CLIENT_REREGISTER",
		[IBV_EVENT_GID_CHANGE] = "GID_CHANGE",
		[IBV_EVENT_WQ_FATAL] = "WQ_FATAL",
	};

	return (unsigned int)t < sizeof(names) / sizeof(names[0]) &&
	       names[t] ? names[t] : "UNKNOWN";
}

void emu_trace_async(struct emu_qp *qp, enum ibv_event_type type)
{
	char n[80];

	emu_trace_emit("async", QP_FMT ",\"event\":\"%s\"", QP_ARGS(qp, n),
		       event_name(type));
}

void emu_trace_retransmit(struct emu_qp *qp, uint32_t psn, uint32_t packets)
{
	char n[80];

	emu_trace_emit("retransmit", QP_FMT ",\"psn\":%u,\"packets\":%u",
		       QP_ARGS(qp, n), psn, packets);
}

void emu_trace_timeout(struct emu_qp *qp, uint32_t psn,
		       unsigned int retries_left)
{
	char n[80];

	emu_trace_emit("timeout", QP_FMT ",\"psn\":%u,\"retries_left\":%u",
		       QP_ARGS(qp, n), psn, retries_left);
}

static const char *nak_kind(uint8_t syn)
{
	static const char *const codes[] = {
		[AETH_NAK_PSN_SEQ] = "seq",
		[AETH_NAK_INVALID_REQ] = "inv_req",
		[AETH_NAK_REMOTE_ACCESS] = "rem_access",
		[AETH_NAK_REMOTE_OP] = "rem_op",
		[AETH_NAK_INVALID_RD_REQ] = "inv_rd_req",
	};
	unsigned int v = aeth_syn_value(syn);

	if (aeth_syn_kind(syn) == AETH_RNR_NAK)
		return "rnr";
	return v < sizeof(codes) / sizeof(codes[0]) && codes[v] ? codes[v] :
								  "reserved";
}

void emu_trace_nak(struct emu_qp *qp, bool sent, uint8_t syn, uint32_t psn)
{
	char n[80];

	emu_trace_emit("nak", QP_FMT ",\"dir\":\"%s\",\"kind\":\"%s\","
		       "\"psn\":%u", QP_ARGS(qp, n), sent ? "tx" : "rx",
		       nak_kind(syn), psn);
}

void emu_trace_fault(struct emu_tport *tp, const struct emu_fault_rule *r,
		     uint8_t dir, const uint8_t *bth, uint32_t len)
{
	char n[80], rule[80];
	bool b = len >= WIRE_BTH_LEN;

	emu_trace_emit("fault", ",\"dev\":%s,\"port\":%u,\"rule\":%s,"
		       "\"action\":\"%s\",\"dir\":\"%s\",\"qpn\":%d,"
		       "\"psn\":%d,\"opcode\":\"%s\",\"len\":%u",
		       emu_trace_str(n, sizeof(n), tp->port->dev->ibdev.name),
		       tp->port->num,
		       emu_trace_str(rule, sizeof(rule), r->name),
		       emu_fault_action_name(r->action),
		       dir == EMU_FAULT_TX ? "tx" : "rx",
		       b ? (int)bth_qpn(bth) : -1, b ? (int)bth_psn(bth) : -1,
		       b ? wire_op_name(bth_opcode(bth)) : "?", len);
}

void emu_trace_fault_event(struct emu_device *dev,
			   const struct emu_fault_rule *r, bool done)
{
	char n[80], rule[80];

	emu_trace_emit("fault", ",\"dev\":%s,\"port\":%u,\"rule\":%s,"
		       "\"action\":\"%s\",\"done\":%s",
		       emu_trace_str(n, sizeof(n), dev->ibdev.name), r->port,
		       emu_trace_str(rule, sizeof(rule), r->name),
		       emu_fault_action_name(r->action),
		       done ? "true" : "false");
}

void emu_trace_port(struct emu_port *port, const char *what)
{
	const struct emu_port_config *c = &port->cfg;
	char n[80];

	emu_trace_emit("port", ",\"dev\":%s,\"port\":%u,\"what\":\"%s\","
		       "\"state\":\"%s\",\"speed\":\"%s\",\"width\":\"%s\","
		       "\"rate_mbps\":%llu",
		       emu_trace_str(n, sizeof(n), port->dev->ibdev.name),
		       port->num, what,
		       atomic_load(&port->state) == IBV_PORT_ACTIVE ?
		       "ACTIVE" : "DOWN", emu_speed_name(c->speed),
		       emu_width_name(c->width),
		       (unsigned long long)emu_port_speed_mbps(c->speed,
							       c->width));
}

/* ---- sampling --------------------------------------------------------- */

/* Engine thread: qpn joins td's QPs if it is not there. */
static void track(struct emu_trace_dev *td, uint32_t qpn)
{
	struct trace_qp *q;
	uint32_t i;

	for (i = 0; i < td->n; i++)
		if (td->qp[i].qpn == qpn)
			return;
	if (td->n == td->cap) {
		uint32_t cap = td->cap ? td->cap * 2 : 64;

		q = realloc(td->qp, cap * sizeof(*q));
		if (!q)
			return;	/* unsampled; its events still go */
		td->qp = q;
		td->cap = cap;
	}
	td->qp[td->n++] = (struct trace_qp){ .qpn = qpn };
}

/* Whether q's QP is still there; its sample line if it moved, or moved
 * at the last sample (so a plot sees its rate fall to zero), or always
 * in the last sample of a trace. */
static bool sample_qp(struct emu_trace_dev *td, struct trace_qp *q, bool last)
{
	struct emu_qp *qp = emu_numtab_lookup(&td->dev->qps, q->qpn);
	uint64_t bytes;
	bool moved;
	char n[80];

	if (!qp)
		return false;
	bytes = qp->cnt.tx.bytes + qp->cnt.rx.bytes;
	moved = bytes != q->bytes;
	if (moved || q->busy || last)
		emu_trace_emit("sample", QP_FMT ",\"tx_pkts\":%llu,"
			       "\"tx_bytes\":%llu,\"rx_pkts\":%llu,"
			       "\"rx_bytes\":%llu", QP_ARGS(qp, n),
			       (unsigned long long)qp->cnt.tx.pkts,
			       (unsigned long long)qp->cnt.tx.bytes,
			       (unsigned long long)qp->cnt.rx.pkts,
			       (unsigned long long)qp->cnt.rx.bytes);
	q->busy = moved;
	q->bytes = bytes;
	return true;
}

static void sample(struct emu_trace_dev *td, bool last)
{
	uint32_t i = 0;

	while (i < td->n) {
		if (sample_qp(td, &td->qp[i], last))
			i++;
		else
			td->qp[i] = td->qp[--td->n];
	}
	pthread_mutex_lock(&tr_lock);
	if (cur)
		emu_trace_flush(cur);
	pthread_mutex_unlock(&tr_lock);
}

static void on_sample(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	sample(w->data, false);
}

/* Engine thread: dev's sampling starts (once). */
static void attach_dev(void *arg)
{
	struct emu_device *dev = arg;
	struct emu_transport *t = emu_transport_of(dev);
	struct emu_trace_dev *td;
	double every = atomic_load(&interval_ms) / 1e3;
	uint32_t i;

	if (t->trace || !dev->engine)
		return;
	td = calloc(1, sizeof(*td));
	if (!td) {
		emu_trace_emit("error", ",\"what\":\"no memory to sample "
			       "the QPs of a device\"");
		return;
	}
	td->dev = dev;
	/* The QPs there already: one walk of the table, this once. */
	for (i = 0; dev->qps.slot && i <= dev->qps.mask; i++)
		if (dev->qps.slot[i].obj)
			track(td, dev->qps.slot[i].num);
	ev_timer_init(&td->timer, on_sample, every, every);
	td->timer.data = td;
	emu_engine_will_start(dev->engine);
	ev_timer_start(emu_engine_loop(dev->engine), &td->timer);
	t->trace = td;
}

/* Engine thread: dev's sampling ends, with a last sample if a trace
 * still runs. */
static void detach_dev(void *arg)
{
	struct emu_device *dev = arg;
	struct emu_transport *t = emu_transport_of(dev);
	struct emu_trace_dev *td = t->trace;

	if (!td)
		return;
	sample(td, true);
	ev_timer_stop(emu_engine_loop(dev->engine), &td->timer);
	t->trace = NULL;
	free(td->qp);
	free(td);
}

/* ---- the trace's life ------------------------------------------------- */

/* A forked child traces nothing of its parent's: it forgets the file
 * without flushing the parent's buffered lines a second time. */
static void after_fork_child(void)
{
	pthread_mutex_init(&tr_lock, NULL);
	cur = NULL;
	atomic_store(&emu_tracing, false);
	env_tried = false;
}

static void close_at_exit(void)
{
	pthread_mutex_lock(&tr_lock);
	if (cur) {
		emu_trace_event(cur, "trace_stop", ",\"why\":\"exit\"");
		emu_trace_close(cur);
		cur = NULL;
		atomic_store(&emu_tracing, false);
	}
	pthread_mutex_unlock(&tr_lock);
}

/* Open the file and make it the process's: under tr_lock. */
static int open_locked(const char *path, unsigned int every, char *why,
		       size_t whylen)
{
	char full[4096], comm[64] = "?";
	struct emu_trace *t;
	FILE *f;

	if (cur) {
		snprintf(why, whylen, "a trace runs already, into %s",
			 emu_trace_path(cur));
		return -1;
	}
	if (emu_path_expand(path, full, sizeof(full))) {
		snprintf(why, whylen, "%.64s...: name too long", path);
		return -1;
	}
	if (emu_trace_open(&t, full, why, whylen))
		return -1;
	if (!hooks_set) {
		pthread_atfork(NULL, NULL, after_fork_child);
		atexit(close_at_exit);
		hooks_set = true;
	}
	f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	atomic_store(&interval_ms, every ? every : EMU_TRACE_INTERVAL_MS);
	cur = t;
	{
		char c[96];

		emu_trace_event(t, "trace_start", ",\"pid\":%d,\"comm\":%s,"
				"\"interval_ms\":%u,\"version\":1",
				(int)getpid(),
				emu_trace_str(c, sizeof(c), comm),
				atomic_load(&interval_ms));
	}
	atomic_store(&emu_tracing, true);
	return 0;
}

int emu_tracer_start(const char *path, unsigned int every, char *why,
		     size_t whylen)
{
	struct emu_device *devs[16];
	unsigned int i, n;
	int rc;

	pthread_mutex_lock(&tr_lock);
	rc = open_locked(path, every, why, whylen);
	pthread_mutex_unlock(&tr_lock);
	if (rc)
		return -1;
	/* The devices open now; those opening meanwhile start themselves
	 * (emu_tracer_device_up), and attach_dev does it once. */
	n = emu_ctl_hold_all(devs, 16);
	for (i = 0; i < n; i++) {
		emu_device_run(devs[i], attach_dev, devs[i]);
		emu_ctl_release(devs[i]);
	}
	return 0;
}

int emu_tracer_stop(char *info, size_t len)
{
	struct emu_device *devs[16];
	unsigned int i, n;
	struct emu_trace *t;
	char err[160] = "";

	pthread_mutex_lock(&tr_lock);
	t = cur;
	pthread_mutex_unlock(&tr_lock);
	if (!t) {
		snprintf(info, len, "no trace runs");
		return -1;
	}
	/* Last samples while the file is still the process's. */
	n = emu_ctl_hold_all(devs, 16);
	for (i = 0; i < n; i++) {
		emu_device_run(devs[i], detach_dev, devs[i]);
		emu_ctl_release(devs[i]);
	}
	pthread_mutex_lock(&tr_lock);
	if (cur != t) {
		pthread_mutex_unlock(&tr_lock);
		snprintf(info, len, "no trace runs");
		return -1;
	}
	atomic_store(&emu_tracing, false);
	emu_trace_event(t, "trace_stop", ",\"why\":\"stopped\"");
	cur = NULL;
	pthread_mutex_unlock(&tr_lock);
	snprintf(err, sizeof(err), "%s", emu_trace_error(t));
	snprintf(info, len, "trace stopped %s events %llu%s%s",
		 emu_trace_path(t), (unsigned long long)emu_trace_events(t),
		 err[0] ? " error " : "", err);
	if (emu_trace_close(t) && !err[0])
		snprintf(info, len, "trace stopped %s: closing failed: %s",
			 emu_trace_path(t), strerror(errno));
	return 0;
}

void emu_tracer_status(char *buf, size_t len)
{
	pthread_mutex_lock(&tr_lock);
	if (cur)
		snprintf(buf, len, "trace running %s events %llu%s%s",
			 emu_trace_path(cur),
			 (unsigned long long)emu_trace_events(cur),
			 emu_trace_error(cur)[0] ? " error " : "",
			 emu_trace_error(cur));
	else
		snprintf(buf, len, "trace off");
	pthread_mutex_unlock(&tr_lock);
}

void emu_tracer_device_up(struct emu_device *dev)
{
	const char *env = getenv("EMUVERBS_TRACE");
	const char *every = getenv("EMUVERBS_TRACE_INTERVAL_MS");
	char why[256];

	unsigned long ms = 0;
	char *end = NULL;

	pthread_mutex_lock(&tr_lock);
	if (!cur && !env_tried && env && *env) {
		env_tried = true;
		if (every && *every)
			ms = strtoul(every, &end, 10);
		if (end && (*end || !ms || ms > 3600000 || *every == '-'))
			fprintf(stderr, "emuverbs: EMUVERBS_TRACE_INTERVAL_MS: "
				"%s is not a number of milliseconds (1 to "
				"3600000): no trace\n", every);
		else if (open_locked(env, (unsigned int)ms, why, sizeof(why)))
			fprintf(stderr, "emuverbs: EMUVERBS_TRACE: %s\n", why);
	}
	pthread_mutex_unlock(&tr_lock);
	if (emu_trace_on())
		attach_dev(dev);
}

void emu_tracer_device_down(struct emu_device *dev)
{
	detach_dev(dev);
}
