/* The run-time port entry point of include/emuverbs/port.h: checked here,
 * applied by the device (emu_port_change). */
#include <errno.h>
#include <stdio.h>

#include <emuverbs/port.h>

#include "emu/device.h"
#include "emu/log.h"
#include "verbs/err.h"

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
