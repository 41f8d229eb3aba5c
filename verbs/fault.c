/* The fault-rule entry points of include/emuverbs/fault.h: checked here,
 * done on the device's engine (emu/transport/inject.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <emuverbs/fault.h>

#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/transport/inject.h"
#include "emu/base/log.h"
#include "emu/transport/transport.h"
#include "verbs/err.h"
#include "verbs/handle.h"

int emuverbs_fault_add(struct ibv_context *ctx, const char *rules,
		       char *err, size_t errlen)
{
	char why[256] = "";
	int rc;

	if (!ctx || !rules)
		return verbs_ret(emu_refuse(EINVAL, "emuverbs_fault_add: "
					    "NULL %s", ctx ? "rules" :
					    "context"));
	if (verbs_ctx_live(ctx, "emuverbs_fault_add"))
		return verbs_ret(EIO);
	rc = emu_inject_add(emu_ctx(ctx)->dev, rules, why, sizeof(why));
	if (rc)
		emu_log(EMU_LOG_VERBS, "emuverbs_fault_add: %s", why);
	if (err && errlen)
		snprintf(err, errlen, "%s", rc ? why : "");
	return verbs_ret(rc);
}

int emuverbs_fault_del(struct ibv_context *ctx, const char *name)
{
	if (!ctx || !name)
		return verbs_ret(emu_refuse(EINVAL, "emuverbs_fault_del: "
					    "NULL %s", ctx ? "name" :
					    "context"));
	if (verbs_ctx_live(ctx, "emuverbs_fault_del"))
		return verbs_ret(EIO);
	return verbs_ret(emu_inject_del(emu_ctx(ctx)->dev, name));
}

struct list_call {
	struct emu_device *dev;
	char *buf;
	size_t len;
	size_t need;
};

static void do_list(void *arg)
{
	struct list_call *c = arg;
	const struct emu_fault_set *s = &emu_transport_of(c->dev)->faults;
	char line[512];
	unsigned int i;
	size_t n;

	for (i = 0; i < s->n; i++) {
		emu_fault_format(&s->rule[i], line, sizeof(line));
		n = strlen(line);
		if (c->need + n + 1 < c->len) {
			memcpy(c->buf + c->need, line, n);
			c->buf[c->need + n] = '\n';
			c->buf[c->need + n + 1] = '\0';
		}
		c->need += n + 1;
	}
}

int emuverbs_fault_list(struct ibv_context *ctx, char *buf, size_t len)
{
	struct list_call c = { .buf = buf, .len = buf ? len : 0 };

	if (!ctx) {
		errno = emu_refuse(EINVAL, "emuverbs_fault_list: NULL context");
		return -1;
	}
	if (verbs_ctx_live(ctx, "emuverbs_fault_list")) {
		errno = EIO;
		return -1;
	}
	c.dev = emu_ctx(ctx)->dev;
	if (c.len)
		buf[0] = '\0';
	emu_device_run(c.dev, do_list, &c);
	return (int)c.need;
}
