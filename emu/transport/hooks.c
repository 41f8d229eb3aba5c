/* The transport's part in a device's life: its state is made with the
 * device, takes the device's fault rules when the registry is built,
 * opens the ports' sockets when the engine starts, and follows a port's
 * link settings and its going down on the engine thread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/config.h"
#include "emu/transport/hooks.h"
#include "emu/transport/inject.h"
#include "emu/transport/transport.h"

static int made(struct emu_device *dev, const char **what)
{
	dev->tr = calloc(1, sizeof(*dev->tr));
	if (!dev->tr) {
		*what = "cannot allocate the transport's state";
		return ENOMEM;
	}
	dev->tr->dev = dev;
	return 0;
}

static void unmade(struct emu_device *dev)
{
	free(dev->tr);
	dev->tr = NULL;
}

static void listed(struct emu_device *dev, const struct emu_config *cfg)
{
	emu_inject_init(dev, cfg->faults, cfg->nfaults);
}

static void port_engine(struct emu_port *port, const char *what)
{
	struct emu_tport *tp = &emu_transport_of(port->dev)->ports[port->num -
								    1];

	/* link_downed is the engine's to count, as every counter is. */
	if (!strcmp(what, "down"))
		tp->cnt.link_downed++;
	else if (!strcmp(what, "link") && tp->open)
		emu_transport_link_config(tp);
}

static void qp_stop(struct emu_qp *qp)
{
	emu_comp_timers_stop(qp);
	emu_resp_ack_now(qp);
	emu_budget_forget_qp(qp);
}

static struct emu_tport *port_of(struct emu_device *dev, uint32_t num,
				 struct emu_port_counters **cnt)
{
	struct emu_tport *tp = &emu_transport_of(dev)->ports[num - 1];

	*cnt = &tp->cnt;
	return tp;
}

const struct emu_xport_ops emu_transport_xport = {
	.qp_added = emu_comp_timers_init,
	.qp_stop = qp_stop,
	.qp_rebase = emu_budget_forget_qp,
	.qp_run = emu_req_run,
	.port = port_of,
	.flush = emu_transport_flush_device,
	.poll = emu_transport_poll,
	.polled = emu_transport_polled,
	.will_sleep = emu_transport_will_sleep,
};

const struct emu_observer emu_transport_hooks = {
	.made = made,
	.unmade = unmade,
	.listed = listed,
	.start = emu_transport_start,
	.stop = emu_transport_stop,
	.port_engine = port_engine,
};
