/* The run-time port entry point of include/emuverbs/port.h: checked here,
 * applied by the device (emu_port_change). */
#include <errno.h>
#include <stdio.h>

#include <emuverbs/port.h>

#include "emu/observe/counters.h"
#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/transport/transport.h"
#include "verbs/err.h"
#include "verbs/handle.h"

int emuverbs_port_set(struct ibv_context *ctx, uint8_t port_num,
		      const char *settings, char *err, size_t errlen)
{
	struct emu_port *port;
	char why[256] = "";
	int rc;

	if (!ctx || !settings)
		return verbs_ret(emu_refuse(EINVAL, "emuverbs_port_set: NULL "
					    "%s", ctx ? "settings" :
					    "context"));
	if (verbs_ctx_live(ctx, "emuverbs_port_set"))
		return verbs_ret(EIO);
	port = emu_device_port(emu_ctx(ctx)->dev, port_num);
	if (!port)
		return verbs_ret(emu_refuse(EINVAL, "emuverbs_port_set: no "
					    "port %u", port_num));
	rc = emu_port_change(port, settings, why, sizeof(why));
	if (rc)
		emu_log(EMU_LOG_VERBS, "emuverbs_port_set: %s", why);
	if (err && errlen)
		snprintf(err, errlen, "%s", why);
	return verbs_ret(rc);
}

struct counters_call {
	struct emu_device *dev;
	uint32_t port;
	char *buf;
	size_t len;
	int need;
};

static void do_counters(void *arg)
{
	struct counters_call *c = arg;
	struct emu_port_counters pc;
	size_t at = 0;
	unsigned int i;
	int w;

	emu_cnt_port_read(c->dev, c->port, &pc);
	for (i = 0; i < emu_cnt_nnames; i++) {
		const struct emu_cnt_name *n = &emu_cnt_names[i];

		w = snprintf(c->buf ? c->buf + (at < c->len ? at : c->len) :
				      NULL,
			     at < c->len ? c->len - at : 0, "%s %llu\n",
			     n->name,
			     (unsigned long long)emu_cnt_value(n, &pc));
		at += (size_t)w;
	}
	c->need = (int)at;
}

int emuverbs_port_counters(struct ibv_context *ctx, uint8_t port_num,
			   char *buf, size_t len)
{
	struct counters_call c = { .port = port_num, .buf = buf,
				   .len = buf ? len : 0 };

	if (!ctx || !emu_device_port(emu_ctx(ctx)->dev, port_num)) {
		errno = emu_refuse(EINVAL, "emuverbs_port_counters: %s",
				   ctx ? "no such port" : "NULL context");
		return -1;
	}
	/* The parent's engine, which would answer, is not in this one. */
	if (verbs_ctx_live(ctx, "emuverbs_port_counters")) {
		errno = EIO;
		return -1;
	}
	c.dev = emu_ctx(ctx)->dev;
	if (c.len)
		buf[0] = '\0';
	emu_device_run(c.dev, do_counters, &c);
	return c.need;
}
