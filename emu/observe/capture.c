/* emu/observe/capture.c: the process's capture (emu/observe/capture.h): which file, how
 * the ports of each device join it and leave it, and the notes that say
 * what a fault rule did to a packet. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/observe/capture.h"
#include "emu/observe/ctl.h"
#include "emu/device/device.h"
#include "emu/device/fault.h"
#include "emu/observe/trace.h"
#include "emu/observe/tracer.h"
#include "emu/transport/transport.h"
#include "net/capture.h"

static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_cap *cur;		/* under cap_lock; one reference */
static bool env_tried, hooks_set;

/* Engine thread: dev's open ports write to c (once each). */
static void attach_ports(struct emu_device *dev, struct emu_cap *c)
{
	struct emu_transport *t = emu_transport_of(dev);
	char name[96], desc[192], a[64];
	uint32_t i;

	for (i = 0; i < dev->nports; i++) {
		struct emu_tport *tp = &t->ports[i];

		if (!tp->open || tp->udp.cap == c)
			continue;
		snprintf(name, sizeof(name), "%s/%u", dev->ibdev.name,
			 tp->port->num);
		snprintf(desc, sizeof(desc), "emuverbs %s port %u, %s UDP %u",
			 dev->ibdev.name, tp->port->num,
			 emu_addr_str(&tp->port->ep.addr, a, sizeof(a)),
			 tp->udp.port);
		emu_udp_cap_attach(&tp->udp, c,
				   emu_cap_iface(c, name, desc));
	}
}

struct attach_call {
	struct emu_device *dev;
	struct emu_cap *c;		/* NULL: detach from old */
	struct emu_cap *old;
};

static void do_attach(void *arg)
{
	struct attach_call *a = arg;
	struct emu_transport *t = emu_transport_of(a->dev);
	uint32_t i;

	if (a->c) {
		attach_ports(a->dev, a->c);
		return;
	}
	for (i = 0; i < a->dev->nports; i++)
		if (t->ports[i].open && t->ports[i].udp.cap == a->old)
			emu_udp_cap_attach(&t->ports[i].udp, NULL, 0);
}

/* Every open device: attach to c, or (c NULL) detach from old. */
static void each_device(struct emu_cap *c, struct emu_cap *old)
{
	struct emu_device *devs[16];
	struct attach_call a = { .c = c, .old = old };
	unsigned int i, n = emu_ctl_hold_all(devs, 16);

	for (i = 0; i < n; i++) {
		a.dev = devs[i];
		emu_device_run(devs[i], do_attach, &a);
		emu_ctl_release(devs[i]);
	}
}

/* A forked child forgets the parent's capture without touching its file
 * (what stdio holds of it is the parent's to write). */
static void after_fork_child(void)
{
	pthread_mutex_init(&cap_lock, NULL);
	cur = NULL;
	env_tried = false;
}

static void close_at_exit(void)
{
	pthread_mutex_lock(&cap_lock);
	if (cur)
		emu_cap_stop(cur);
	pthread_mutex_unlock(&cap_lock);
}

/* Open the file as the process's capture: under cap_lock. */
static int open_locked(const char *path, uint64_t count, char *why,
		       size_t whylen)
{
	char full[4096];
	struct emu_cap *c;

	if (cur) {
		snprintf(why, whylen, "a capture runs already, into %s",
			 emu_cap_path(cur));
		return -1;
	}
	if (emu_path_expand(path, full, sizeof(full))) {
		snprintf(why, whylen, "%.64s...: name too long", path);
		return -1;
	}
	if (emu_cap_open(&c, full, count, why, whylen))
		return -1;
	if (!hooks_set) {
		pthread_atfork(NULL, NULL, after_fork_child);
		atexit(close_at_exit);
		hooks_set = true;
	}
	cur = c;
	if (emu_trace_on()) {
		char p[512];

		emu_trace_emit("capture", ",\"what\":\"start\",\"path\":%s",
			       emu_trace_str(p, sizeof(p), full));
	}
	return 0;
}

int emu_capture_start(const char *path, uint64_t count, char *why,
		      size_t whylen)
{
	struct emu_cap *c;
	int rc;

	pthread_mutex_lock(&cap_lock);
	rc = open_locked(path, count, why, whylen);
	c = cur;
	if (!rc)
		emu_cap_get(c);
	pthread_mutex_unlock(&cap_lock);
	if (rc)
		return -1;
	/* Devices opening meanwhile join by themselves; attaching twice is
	 * nothing. */
	each_device(c, NULL);
	emu_cap_put(c);
	return 0;
}

static void describe(struct emu_cap *c, const char *what, char *buf,
		     size_t len)
{
	uint64_t count = emu_cap_count(c);
	int n;

	n = snprintf(buf, len, "capture %s %s packets %llu", what,
		     emu_cap_path(c),
		     (unsigned long long)emu_cap_packets(c));
	if (n > 0 && (size_t)n < len && count)
		n += snprintf(buf + n, len - (size_t)n, " of %llu",
			      (unsigned long long)count);
	if (n > 0 && (size_t)n < len && emu_cap_error(c)[0])
		snprintf(buf + n, len - (size_t)n, " error %s",
			 emu_cap_error(c));
}

int emu_capture_stop(char *info, size_t len)
{
	struct emu_cap *c;

	pthread_mutex_lock(&cap_lock);
	c = cur;
	cur = NULL;
	pthread_mutex_unlock(&cap_lock);
	if (!c) {
		snprintf(info, len, "no capture runs");
		return -1;
	}
	emu_cap_stop(c);
	/* Ports that do not let go here (a device closing meanwhile) do
	 * when their I/O closes; the file is closed already. */
	each_device(NULL, c);
	describe(c, "stopped", info, len);
	if (emu_trace_on())
		emu_trace_emit("capture", ",\"what\":\"stop\",\"packets\":%llu",
			       (unsigned long long)emu_cap_packets(c));
	emu_cap_put(c);
	return 0;
}

void emu_capture_status(char *buf, size_t len)
{
	pthread_mutex_lock(&cap_lock);
	if (cur)
		describe(cur, emu_cap_done(cur) ? "done" : "running", buf, len);
	else
		snprintf(buf, len, "capture off");
	pthread_mutex_unlock(&cap_lock);
}

void emu_capture_device_up(struct emu_device *dev)
{
	const char *env = getenv("EMUVERBS_CAPTURE");
	char why[256];
	struct emu_cap *c = NULL;

	pthread_mutex_lock(&cap_lock);
	if (!cur && !env_tried && env && *env) {
		env_tried = true;
		if (open_locked(env, 0, why, sizeof(why)))
			fprintf(stderr, "emuverbs: EMUVERBS_CAPTURE: %s\n",
				why);
	}
	c = cur;
	if (c)
		emu_cap_get(c);
	pthread_mutex_unlock(&cap_lock);
	if (c) {
		attach_ports(dev, c);
		emu_cap_put(c);
	}
}
