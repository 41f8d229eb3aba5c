/* The control socket's view of the counters: `stats` (every counter of the
 * ports and QPs chosen, as lines or JSON) and `qps` (a line per QP, for
 * emuverbs top). The counters are copied on each device's engine, where
 * they are counted, and formatted here, off it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu/observe/counters.h"
#include "emu/observe/ctl.h"
#include "emu/observe/ctl_stats.h"
#include "emu/device/device.h"
#include "emu/objects/names.h"
#include "emu/objects/qp.h"
#include "emu/transport/transport.h"

#define MAX_DEVS 16

/* A QP as the engine saw it. */
struct qp_snap {
	uint32_t qpn, port, dqpn, inflight;
	const char *type, *state;
	const char *wire;		/* "shm", "udp", or "-" for UD */
	char peer[INET6_ADDRSTRLEN];
	struct emu_qp_counters cnt;
};

/* What one device's engine copies out: its ports' counters and those of
 * the QPs asked for. */
struct snap {
	struct emu_device *dev;
	uint32_t port;			/* 0: every port */
	bool one_qp;
	uint32_t qpn;
	struct emu_port_counters ports[EMU_MAX_PORTS];
	char addr[EMU_MAX_PORTS][INET6_ADDRSTRLEN];
	/* Each port's peers and the wire each one's frames take. */
	struct emu_wire_peer peers[EMU_MAX_PORTS][EMU_SHM_PEERS];
	unsigned int npeers[EMU_MAX_PORTS];
	struct qp_snap *qps;
	unsigned int nqps, cap;
	bool oom;
};

/* What a request asks for. */
struct req {
	const char *spec;		/* DEVICE[/PORT], or NULL: all */
	bool one_qp, json;
	uint32_t qpn;
};

/* A port's QP1 is shown as what it is for, not as the UD QP it runs. */
static const char *type_name(const struct emu_qp *qp)
{
	return qp->gsi_port ? "GSI" : emu_qp_type_name(qp->type);
}

/* The port a QP's traffic uses: its path's, else the one it was put on. */
static uint32_t port_of(const struct emu_qp *qp)
{
	if (qp->tp)
		return qp->tp->port->num;
	return qp->gsi_port ? qp->gsi_port : qp->attr.port_num;
}

static void take_qp(struct snap *s, struct emu_qp *qp)
{
	struct qp_snap *q;

	if (s->one_qp && qp->qpn != s->qpn)
		return;
	if (s->port && port_of(qp) != s->port)
		return;
	if (s->nqps == s->cap) {
		unsigned int cap = s->cap ? s->cap * 2 : 16;
		struct qp_snap *n = realloc(s->qps, cap * sizeof(*n));

		if (!n) {
			s->oom = true;
			return;
		}
		s->qps = n;
		s->cap = cap;
	}
	q = &s->qps[s->nqps++];
	q->qpn = qp->qpn;
	q->port = port_of(qp);
	q->type = type_name(qp);
	q->state = emu_qp_state_name(emu_qp_state(qp));
	q->dqpn = qp->type == IBV_QPT_UD ? 0 : qp->attr.dest_qp_num;
	q->inflight = emu_cnt_qp_inflight(qp);
	strcpy(q->peer, "-");
	q->wire = "-";
	if (qp->tp && qp->type != IBV_QPT_UD) {
		emu_addr_str(&qp->dest, q->peer, sizeof(q->peer));
		q->wire = emu_wire_name(qp->tp, &qp->dest,
					qp->tp->port->ep.port);
	}
	q->cnt = qp->cnt;
}

/* On the device's engine: nothing there changes while it copies. */
static void collect(void *arg)
{
	struct snap *s = arg;
	struct emu_device *dev = s->dev;
	const struct emu_numtab *t = &dev->qps;
	uint32_t i;

	for (i = 0; i < dev->nports; i++) {
		struct emu_tport *tp = &emu_transport_of(dev)->ports[i];

		s->npeers[i] = tp->open ? emu_wire_peers(tp, s->peers[i],
							 EMU_SHM_PEERS) : 0;
		emu_cnt_port_read(dev, i + 1, &s->ports[i]);
		emu_addr_str(&dev->ports[i].ep.addr, s->addr[i],
			     sizeof(s->addr[i]));
	}
	for (i = 0; i < dev->nports && !s->oom; i++)
		if (dev->ports[i].gsi)
			take_qp(s, dev->ports[i].gsi);
	for (i = 0; t->slot && i <= t->mask && !s->oom; i++)
		if (t->slot[i].obj)
			take_qp(s, t->slot[i].obj);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Parse the words after the command into r: 0, or -1 with o failed. */
static int parse(int argc, char **argv, struct req *r, bool stats,
		 struct emu_ctl_out *o)
{
	char *end;
	int i;

	for (i = 1; i < argc; i++) {
		if (stats && !strcmp(argv[i], "json")) {
			r->json = true;
		} else if (stats && !strcmp(argv[i], "qp")) {
			if (i + 1 == argc) {
				emu_ctl_fail(o, "qp: no QP number");
				return -1;
			}
			errno = 0;
			r->qpn = (uint32_t)strtoul(argv[++i], &end, 0);
			if (errno || end == argv[i] || *end ||
			    argv[i][0] == '-' || r->qpn > 0xffffff) {
				emu_ctl_fail(o, "qp %s: not a QP number",
					     argv[i]);
				return -1;
			}
			r->one_qp = true;
		} else if (!r->spec && strchr("abcdefghijklmnopqrstuvwxyz",
					      argv[i][0])) {
			r->spec = argv[i];
		} else {
			emu_ctl_fail(o, "%s: not %s", argv[i], stats ?
				     "DEVICE[/PORT], qp QPN or json" :
				     "DEVICE[/PORT]");
			return -1;
		}
	}
	return 0;
}

/* Hold the devices r names (one, or every open one) and copy their
 * counters: how many snaps, or -1 with o failed. */
static int gather(const struct req *r, struct snap *snaps,
		  struct emu_ctl_out *o)
{
	struct emu_device *devs[MAX_DEVS];
	struct emu_port *port;
	unsigned int i, n;
	int rc = 0;

	if (r->spec) {
		devs[0] = emu_ctl_hold(r->spec, &port, o);
		if (!devs[0])
			return -1;
		n = 1;
	} else {
		n = emu_ctl_hold_all(devs, MAX_DEVS);
	}
	for (i = 0; i < n; i++) {
		memset(&snaps[i], 0, sizeof(snaps[i]));
		snaps[i].dev = devs[i];
		snaps[i].port = r->spec && strchr(r->spec, '/') ? port->num : 0;
		snaps[i].one_qp = r->one_qp;
		snaps[i].qpn = r->qpn;
		emu_device_run(devs[i], collect, &snaps[i]);
		emu_ctl_release(devs[i]);
		if (snaps[i].oom)
			rc = -1;
	}
	if (rc) {
		for (i = 0; i < n; i++)
			free(snaps[i].qps);
		emu_ctl_fail(o, "out of memory");
		return -1;
	}
	return (int)n;
}

static bool port_chosen(const struct snap *s, uint32_t i)
{
	return !s->port || s->port == i + 1;
}

static void qp_header(struct emu_ctl_out *o, const struct snap *s,
		      const struct qp_snap *q)
{
	emu_ctl_printf(o, "qp %u port %s/%u type %s state %s peer %s dqpn %u "
		       "inflight %u wire %s", q->qpn, s->dev->ibdev.name,
		       q->port, q->type, q->state, q->peer, q->dqpn,
		       q->inflight, q->wire);
}

/* A port's peers: a line each, or a JSON array's members. */
static void put_peers(struct emu_ctl_out *o, const struct snap *s,
		      uint32_t i, bool json)
{
	char a[INET6_ADDRSTRLEN];
	unsigned int k;

	for (k = 0; k < s->npeers[i]; k++) {
		const struct emu_wire_peer *p = &s->peers[i][k];
		unsigned long long tx = p->tx_frames, rx = p->rx_frames,
				   full = p->tx_full, bad = p->rx_bad;
		const char *w = p->shm ? "shm" : "udp";

		emu_addr_str(&p->addr, a, sizeof(a));
		if (json)
			emu_ctl_printf(o, "%s{\"peer\":\"%s\",\"udp_port\":%u,"
				       "\"wire\":\"%s\",\"ring_tx_frames\":%llu,"
				       "\"ring_rx_frames\":%llu,"
				       "\"ring_full\":%llu,\"ring_bad\":%llu}",
				       k ? "," : "", a, p->port, w, tx, rx,
				       full, bad);
		else
			emu_ctl_printf(o, "peer %s:%u port %s/%u wire %s\n"
				       "ring_tx_frames %llu\n"
				       "ring_rx_frames %llu\nring_full %llu\n"
				       "ring_bad %llu\n", a, p->port,
				       s->dev->ibdev.name, i + 1, w, tx, rx,
				       full, bad);
	}
}

/* Every counter of c, a line each, or as JSON members. */
static void put_counters(struct emu_ctl_out *o, const void *c, bool port,
			 bool json)
{
	const char *sep = "";
	unsigned int i;

	for (i = 0; i < emu_cnt_nnames; i++) {
		const struct emu_cnt_name *n = &emu_cnt_names[i];

		if (n->port_only && !port)
			continue;
		if (json)
			emu_ctl_printf(o, "%s\"%s\":%llu", sep, n->name,
				       (unsigned long long)emu_cnt_value(n, c));
		else
			emu_ctl_printf(o, "%s %llu\n", n->name,
				       (unsigned long long)emu_cnt_value(n, c));
		sep = ",";
	}
}

static void put_plain(struct emu_ctl_out *o, const struct req *r,
		      const struct snap *snaps, int n)
{
	unsigned int i, k;
	int d;

	emu_ctl_printf(o, "time_ns %llu\n", (unsigned long long)now_ns());
	for (d = 0; d < n; d++) {
		const struct snap *s = &snaps[d];

		for (i = 0; !r->one_qp && i < s->dev->nports; i++) {
			if (!port_chosen(s, i))
				continue;
			emu_ctl_printf(o, "port %s/%u address %s\n",
				       s->dev->ibdev.name, i + 1, s->addr[i]);
			put_counters(o, &s->ports[i], true, false);
			put_peers(o, s, i, false);
		}
		for (k = 0; k < s->nqps; k++) {
			qp_header(o, s, &s->qps[k]);
			emu_ctl_printf(o, "\n");
			put_counters(o, &s->qps[k].cnt, false, false);
		}
	}
}

static void put_json(struct emu_ctl_out *o, const struct req *r,
		     const struct snap *snaps, int n)
{
	const char *sep = "";
	unsigned int i, k;
	int d;

	emu_ctl_printf(o, "{\"time_ns\":%llu,\"ports\":[",
		       (unsigned long long)now_ns());
	for (d = 0; d < n; d++) {
		const struct snap *s = &snaps[d];

		for (i = 0; !r->one_qp && i < s->dev->nports; i++) {
			if (!port_chosen(s, i))
				continue;
			emu_ctl_printf(o, "%s{\"port\":\"%s/%u\",\"address\":"
				       "\"%s\",\"counters\":{", sep,
				       s->dev->ibdev.name, i + 1, s->addr[i]);
			put_counters(o, &s->ports[i], true, true);
			emu_ctl_printf(o, "},\"peers\":[");
			put_peers(o, s, i, true);
			emu_ctl_printf(o, "]}");
			sep = ",";
		}
	}
	emu_ctl_printf(o, "],\"qps\":[");
	sep = "";
	for (d = 0; d < n; d++) {
		const struct snap *s = &snaps[d];

		for (k = 0; k < s->nqps; k++) {
			const struct qp_snap *q = &s->qps[k];

			emu_ctl_printf(o, "%s{\"qpn\":%u,\"port\":\"%s/%u\","
				       "\"type\":\"%s\",\"state\":\"%s\","
				       "\"peer\":\"%s\",\"dqpn\":%u,"
				       "\"inflight\":%u,\"wire\":\"%s\","
				       "\"counters\":{", sep,
				       q->qpn, s->dev->ibdev.name, q->port,
				       q->type, q->state, q->peer, q->dqpn,
				       q->inflight, q->wire);
			put_counters(o, &q->cnt, false, true);
			emu_ctl_printf(o, "}}");
			sep = ",";
		}
	}
	emu_ctl_printf(o, "]}\n");
}

void emu_ctl_cmd_stats(int argc, char **argv, struct emu_ctl_out *o)
{
	struct snap *snaps;
	struct req r = { 0 };
	unsigned int k;
	int n, d;

	if (parse(argc, argv, &r, true, o))
		return;
	snaps = calloc(MAX_DEVS, sizeof(*snaps));
	if (!snaps) {
		emu_ctl_fail(o, "out of memory");
		return;
	}
	n = gather(&r, snaps, o);
	if (n < 0)
		goto out;
	for (d = 0, k = 0; d < n; d++)
		k += snaps[d].nqps;
	if (r.one_qp && !k)
		emu_ctl_fail(o, "qp %u: no such QP on %s", r.qpn,
			     r.spec ? r.spec : "an open device");
	else if (!n)
		emu_ctl_fail(o, "no device open");
	else if (r.json)
		put_json(o, &r, snaps, n);
	else
		put_plain(o, &r, snaps, n);
	for (d = 0; d < n; d++)
		free(snaps[d].qps);
out:
	free(snaps);
}

/* The counters `emuverbs top` shows of each QP. */
static const char *const top_names[] = {
	"sent_pkts", "rdma_tx_bytes", "rcvd_pkts", "rdma_rx_bytes",
	"retransmits",
};

void emu_ctl_cmd_qps(int argc, char **argv, struct emu_ctl_out *o)
{
	const struct emu_cnt_name *names[5];
	struct snap *snaps;
	struct req r = { 0 };
	unsigned int i, k;
	int n, d;

	if (parse(argc, argv, &r, false, o))
		return;
	for (i = 0; i < 5; i++)
		names[i] = emu_cnt_find(top_names[i]);
	snaps = calloc(MAX_DEVS, sizeof(*snaps));
	if (!snaps) {
		emu_ctl_fail(o, "out of memory");
		return;
	}
	n = gather(&r, snaps, o);
	if (n >= 0)
		emu_ctl_printf(o, "time_ns %llu\n",
			       (unsigned long long)now_ns());
	for (d = 0; d < n; d++) {
		for (k = 0; k < snaps[d].nqps; k++) {
			qp_header(o, &snaps[d], &snaps[d].qps[k]);
			for (i = 0; i < 5; i++)
				emu_ctl_printf(o, " %s %llu", top_names[i],
					       (unsigned long long)emu_cnt_value(
						       names[i],
						       &snaps[d].qps[k].cnt));
			emu_ctl_printf(o, "\n");
		}
		free(snaps[d].qps);
	}
	free(snaps);
}
