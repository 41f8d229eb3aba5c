/* The control socket's commands, in one table: what a process tells
 * `emuverbs ps` of itself, and the run-time changes `emuverbs port`,
 * `speed`, `latency`, `gid`, `fault` and `event` make to its open
 * devices, through the same calls the in-process API makes. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/observe/capture.h"
#include "emu/observe/ctl.h"
#include "emu/observe/ctl_stats.h"
#include "emu/device/device.h"
#include "emu/device/fault.h"
#include "emu/transport/inject.h"
#include "emu/device/speed.h"
#include "emu/observe/tracer.h"
#include "emu/transport/transport.h"

/* ---- holding devices ------------------------------------------------------ */

/* Hold dev if it is open: true, and then emu_ctl_release it. */
static bool hold(struct emu_device *dev)
{
	bool ok;

	pthread_mutex_lock(&dev->lock);
	ok = dev->open_count > 0 && dev->engine;
	if (ok)
		dev->ctl_holds++;
	pthread_mutex_unlock(&dev->lock);
	return ok;
}

void emu_ctl_release(struct emu_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	if (--dev->ctl_holds == 0)
		pthread_cond_broadcast(&dev->ctl_done);
	pthread_mutex_unlock(&dev->lock);
}

unsigned int emu_ctl_hold_all(struct emu_device **devs, unsigned int n)
{
	struct emu_device **all;
	unsigned int i, nall, k = 0;

	if (emu_registry_get(&all, &nall))
		return 0;
	for (i = 0; i < nall && k < n; i++)
		if (hold(all[i]))
			devs[k++] = all[i];
	return k;
}

struct emu_device *emu_ctl_hold(const char *spec, struct emu_port **port,
				struct emu_ctl_out *o)
{
	struct emu_device **all, *dev = NULL;
	unsigned int i, nall;
	unsigned long num = 1;
	const char *slash = strchr(spec, '/');
	size_t nlen = slash ? (size_t)(slash - spec) : strlen(spec);
	char *end;

	if (slash) {
		num = strtoul(slash + 1, &end, 10);
		if (end == slash + 1 || *end) {
			emu_ctl_fail(o, "%s: not DEVICE/PORT", spec);
			return NULL;
		}
	}
	if (!emu_registry_get(&all, &nall)) {
		for (i = 0; i < nall; i++)
			if (strlen(all[i]->ibdev.name) == nlen &&
			    !strncmp(all[i]->ibdev.name, spec, nlen))
				dev = all[i];
	}
	if (!dev || !hold(dev)) {
		emu_ctl_fail(o, "%.*s: no such device open", (int)nlen, spec);
		return NULL;
	}
	if (port) {
		*port = emu_device_port(dev, (uint32_t)num);
		if (!*port) {
			emu_ctl_release(dev);
			emu_ctl_fail(o, "%s: no port %lu", spec, num);
			return NULL;
		}
	}
	return dev;
}

/* ---- info ----------------------------------------------------------------- */

struct info_call {
	struct emu_device *dev;
	struct emu_ctl_out *o;
};

static void do_info(void *arg)
{
	struct info_call *c = arg;
	struct emu_device *dev = c->dev;
	char addr[INET6_ADDRSTRLEN];
	unsigned int i;

	for (i = 0; i < dev->nports; i++) {
		struct emu_port *p = &dev->ports[i];
		const struct in6_addr *a = &p->ep.addr;
		struct emu_wire_peer peers[EMU_SHM_PEERS];
		unsigned int k, n, shm = 0;

		n = emu_transport_of(dev)->ports[i].open ?
		    emu_wire_peers(&emu_transport_of(dev)->ports[i], peers,
				   EMU_SHM_PEERS) : 0;
		for (k = 0; k < n; k++)
			shm += peers[k].shm;

		if (IN6_IS_ADDR_V4MAPPED(a))
			inet_ntop(AF_INET, &a->s6_addr[12], addr, sizeof(addr));
		else
			inet_ntop(AF_INET6, a, addr, sizeof(addr));
		emu_ctl_printf(c->o, "port %s/%u state %s speed %s width %s "
			       "address %s qps %u wire %s shm_peers %u "
			       "udp_peers %u\n", dev->ibdev.name, p->num,
			       atomic_load(&p->state) == IBV_PORT_ACTIVE ?
			       "ACTIVE" : "DOWN",
			       emu_speed_name(p->cfg.speed),
			       emu_width_name(p->cfg.width),
			       p->ep.fd >= 0 ? addr : "-", dev->qps.live,
			       emu_wire_config_name(p->cfg.wire), shm, n - shm);
	}
}

/* info: the process and its open devices' ports, a line each. */
static void cmd_info(int argc, char **argv, struct emu_ctl_out *o)
{
	struct emu_device *devs[16];
	struct info_call c = { .o = o };
	char comm[64] = "?";
	unsigned int i, n;
	FILE *f;

	(void)argv;
	if (argc != 1) {
		emu_ctl_fail(o, "info takes no arguments");
		return;
	}
	f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	emu_ctl_printf(o, "pid %d\ncommand %s\n", (int)getpid(), comm);
	n = emu_ctl_hold_all(devs, 16);
	for (i = 0; i < n; i++) {
		c.dev = devs[i];
		emu_device_run(devs[i], do_info, &c);
		emu_ctl_release(devs[i]);
	}
}

/* ---- port ----------------------------------------------------------------- */

/* port DEV/PORT KEY=VALUE...: what emuverbs_port_set takes. */
static void cmd_port(int argc, char **argv, struct emu_ctl_out *o)
{
	char settings[EMU_CTL_LINE], why[256] = "";
	struct emu_device *dev;
	struct emu_port *port;
	size_t at = 0;
	int i;

	if (argc < 3) {
		emu_ctl_fail(o, "usage: port DEVICE/PORT KEY=VALUE...");
		return;
	}
	for (i = 2; i < argc; i++)
		at += (size_t)snprintf(settings + at, sizeof(settings) - at,
				       "%s%s", i > 2 ? " " : "", argv[i]);
	dev = emu_ctl_hold(argv[1], &port, o);
	if (!dev)
		return;
	if (emu_port_change(port, settings, why, sizeof(why)))
		emu_ctl_fail(o, "%s", why);
	else
		emu_ctl_printf(o, "%s: %s\n", argv[1], settings);
	emu_ctl_release(dev);
}

/* flap DEV/PORT MICROSECONDS: down now, up by itself that much later, on
 * the device's own timer: the outage does not depend on how soon another
 * command could come. */
static void cmd_flap(int argc, char **argv, struct emu_ctl_out *o)
{
	char line[128], why[256] = "";
	struct emu_device *dev;
	struct emu_port *port;
	unsigned long us;
	char *end;

	if (argc != 3) {
		emu_ctl_fail(o, "usage: flap DEVICE/PORT MICROSECONDS");
		return;
	}
	us = strtoul(argv[2], &end, 10);
	if (end == argv[2] || *end || us > 3600000000ul) {
		emu_ctl_fail(o, "flap: %s is not a time in us (at most an "
			     "hour)", argv[2]);
		return;
	}
	dev = emu_ctl_hold(argv[1], &port, o);
	if (!dev)
		return;
	snprintf(line, sizeof(line), "port_up port=%u at=%luus name=ctl-flap",
		 port->num, us);
	/* The way up first: a refusal leaves the port as it was. */
	if (emu_inject_add_from_now(dev, line, why, sizeof(why)))
		emu_ctl_fail(o, "%s", why);
	else if (emu_port_change(port, "state=down", why, sizeof(why)))
		emu_ctl_fail(o, "%s", why);
	else
		emu_ctl_printf(o, "%s: down, up in %lu us\n", argv[1], us);
	emu_ctl_release(dev);
}

/* ---- events --------------------------------------------------------------- */

/* Do the event line on dev now: 0, or ENOENT/EINVAL with o failed. */
static int event_on(struct emu_device *dev, const char *line,
		    struct emu_ctl_out *o, bool quiet_enoent)
{
	char why[256] = "";
	int rc = emu_inject_now(dev, line, why, sizeof(why));

	if (rc && !(rc == ENOENT && quiet_enoent))
		emu_ctl_fail(o, "%s", why);
	return rc;
}

/* gid DEV/PORT add|del ADDRESS */
static void cmd_gid(int argc, char **argv, struct emu_ctl_out *o)
{
	char line[256], why[256] = "";
	struct emu_device *dev;
	struct emu_port *port;
	bool add;
	int rc;

	if (argc != 4 || (strcmp(argv[2], "add") && strcmp(argv[2], "del"))) {
		emu_ctl_fail(o, "usage: gid DEVICE/PORT add|del ADDRESS");
		return;
	}
	add = !strcmp(argv[2], "add");
	dev = emu_ctl_hold(argv[1], &port, o);
	if (!dev)
		return;
	snprintf(line, sizeof(line), "gid_%s gid=%s port=%u at=0ms name=ctl",
		 argv[2], argv[3], port->num);
	rc = emu_inject_now(dev, line, why, sizeof(why));
	if (rc == ENOENT)
		emu_ctl_fail(o, "%s: GID %s %s", argv[1], argv[3],
			     add ? "not added: in the table already, or it "
				   "is full" : "not in the table");
	else if (rc)
		emu_ctl_fail(o, "%s", why);
	else
		emu_ctl_printf(o, "%s: GID %s %s\n", argv[1], argv[3],
			       add ? "added" : "removed");
	emu_ctl_release(dev);
}

static const struct {
	const char *name, *rule;
	bool on_port;			/* else on a QP or SRQ number */
	const char *key;
} events[] = {
	{ "qp-fatal", "qp_fatal", false, "qpn" },
	{ "qp-req-err", "qp_req_err", false, "qpn" },
	{ "qp-access-err", "qp_access_err", false, "qpn" },
	{ "cq-err", "cq_err", false, "qpn" },
	{ "srq-err", "srq_err", false, "srqn" },
	{ "lid-change", "lid_change", true, NULL },
	{ "pkey-change", "pkey_change", true, NULL },
	{ "sm-change", "sm_change", true, NULL },
	{ "client-reregister", "client_reregister", true, NULL },
};

#define NEVENTS (sizeof(events) / sizeof(events[0]))

/* event KIND QPN|SRQN [DEVICE], event KIND DEVICE/PORT */
static void cmd_event(int argc, char **argv, struct emu_ctl_out *o)
{
	struct emu_device *devs[16], *dev;
	struct emu_port *port;
	unsigned int i, k, n;
	char line[256];
	int rc = ENOENT;

	for (k = 0; argc >= 3 && k < NEVENTS; k++)
		if (!strcmp(argv[1], events[k].name))
			break;
	if (argc < 3 || k == NEVENTS) {
		emu_ctl_fail(o, "usage: event qp-fatal|qp-req-err|"
			     "qp-access-err|cq-err QPN, event srq-err SRQN, "
			     "event lid-change|pkey-change|sm-change|"
			     "client-reregister DEVICE/PORT");
		return;
	}
	if (events[k].on_port) {
		dev = emu_ctl_hold(argv[2], &port, o);
		if (!dev)
			return;
		snprintf(line, sizeof(line), "%s port=%u at=0ms name=ctl",
			 events[k].rule, port->num);
		if (!event_on(dev, line, o, false))
			emu_ctl_printf(o, "%s: %s\n", argv[2], argv[1]);
		emu_ctl_release(dev);
		return;
	}
	snprintf(line, sizeof(line), "%s %s=%s at=0ms name=ctl",
		 events[k].rule, events[k].key, argv[2]);
	if (argc > 3) {
		dev = emu_ctl_hold(argv[3], NULL, o);
		if (!dev)
			return;
		devs[0] = dev;
		n = 1;
	} else {
		n = emu_ctl_hold_all(devs, 16);
	}
	/* QP and SRQ numbers are the device's: the first that has it. */
	for (i = 0; i < n; i++) {
		if (rc == ENOENT)
			rc = event_on(devs[i], line, o, true);
		emu_ctl_release(devs[i]);
	}
	if (rc == ENOENT)
		emu_ctl_fail(o, "%s %s: no such %s on an open device",
			     argv[1], argv[2],
			     !strcmp(events[k].key, "qpn") ? "QP" : "SRQ");
	else if (!rc)
		emu_ctl_printf(o, "%s %s\n", argv[1], argv[2]);
}

/* ---- fault ---------------------------------------------------------------- */

/* The rest of argv from i, space-separated, into buf. */
static void join(char *buf, size_t len, int argc, char **argv, int i)
{
	size_t at = 0;

	buf[0] = '\0';
	for (; i < argc && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       at ? " " : "", argv[i]);
}

static bool rule_for(const char *line, const struct emu_device *dev)
{
	struct emu_fault_rule r;
	unsigned int n;
	char err[8];

	/* A rule naming a device is that device's; checked as a whole
	 * already, so the first rule's device says it. */
	if (emu_fault_parse(line, &r, 1, &n, err, sizeof(err)) || !n)
		return true;
	return !r.device[0] || !strcmp(r.device, dev->ibdev.name);
}

struct list_call {
	struct emu_device *dev;
	struct emu_ctl_out *o;
};

static void do_list(void *arg)
{
	struct list_call *c = arg;
	struct emu_fault_set *s = &emu_transport_of(c->dev)->faults;
	char line[512];
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		emu_fault_format(&s->rule[i], line, sizeof(line));
		emu_ctl_printf(c->o, "%s: %s\n", c->dev->ibdev.name, line);
	}
}

/* fault add RULE..., fault del NAME, fault list */
static void cmd_fault(int argc, char **argv, struct emu_ctl_out *o)
{
	struct emu_device *devs[16];
	struct list_call lc = { .o = o };
	char line[EMU_CTL_LINE], why[256];
	unsigned int i, n, done = 0;
	int rc = 0;

	if (argc < 2 || (strcmp(argv[1], "list") && argc < 3) ||
	    (strcmp(argv[1], "add") && strcmp(argv[1], "del") &&
	     strcmp(argv[1], "list"))) {
		emu_ctl_fail(o, "usage: fault add RULE | fault del NAME | "
			     "fault list");
		return;
	}
	join(line, sizeof(line), argc, argv, 2);
	if (!strcmp(argv[1], "add")) {
		/* Checked once for all: a bad rule changes no device. */
		struct emu_fault_rule *tmp = calloc(EMU_FAULT_MAX,
						    sizeof(*tmp));

		if (!tmp) {
			emu_ctl_fail(o, "out of memory");
			return;
		}
		rc = emu_fault_parse(line, tmp, EMU_FAULT_MAX, &n, why,
				     sizeof(why));
		free(tmp);
		if (rc) {
			emu_ctl_fail(o, "%s", why);
			return;
		}
	}
	n = emu_ctl_hold_all(devs, 16);
	for (i = 0; i < n; i++) {
		if (!strcmp(argv[1], "list")) {
			lc.dev = devs[i];
			emu_device_run(devs[i], do_list, &lc);
		} else if (!strcmp(argv[1], "del")) {
			done += !emu_inject_del(devs[i], line);
		} else if (rule_for(line, devs[i]) && !rc) {
			rc = emu_inject_add(devs[i], line, why, sizeof(why));
			if (rc)
				emu_ctl_fail(o, "%s: %s", devs[i]->ibdev.name,
					     why);
			else
				emu_ctl_printf(o, "%s: added\n",
					       devs[i]->ibdev.name);
			done++;
		}
		emu_ctl_release(devs[i]);
	}
	if (!strcmp(argv[1], "del") && !done)
		emu_ctl_fail(o, "%s: no rule of that name", line);
	else if (!strcmp(argv[1], "del"))
		emu_ctl_printf(o, "%s: deleted\n", line);
	else if (!strcmp(argv[1], "add") && !done && !o->failed)
		emu_ctl_fail(o, "no open device for the rule");
}

const struct emu_ctl_cmd emu_ctl_cmds[] = {
	{ "info", "", cmd_info },
	{ "port", "DEVICE/PORT KEY=VALUE...", cmd_port },
	{ "flap", "DEVICE/PORT MICROSECONDS", cmd_flap },
	{ "gid", "DEVICE/PORT add|del ADDRESS", cmd_gid },
	{ "event", "KIND QPN|SRQN|DEVICE/PORT [DEVICE]", cmd_event },
	{ "fault", "add RULE | del NAME | list", cmd_fault },
	{ "stats", "[DEVICE[/PORT]] [qp QPN] [json]", emu_ctl_cmd_stats },
	{ "qps", "[DEVICE[/PORT]]", emu_ctl_cmd_qps },
	{ "capture", "start PATH [count N] | stop | status", emu_capture_ctl },
	{ "trace", "start PATH [interval MS] | stop | status", emu_tracer_ctl },
	{ NULL, NULL, NULL },
};
