/* The engine's timer that carries a device's port counters into the sysfs
 * view's hw_counters files (emu/observe/hwcnt.h). Counters change with every
 * packet, and files cannot follow them: they are rewritten once a
 * lifespan, each only when its value changed (a busy port rewrites a few
 * dozen small files a second on tmpfs, an idle one none). Readers of the
 * files see values at most a lifespan old, the final ones once the
 * device is closed. */
#include <stdbool.h>

#include "emu/observe/counters.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/observe/hwcnt.h"
#include "emu/base/log.h"
#include "emu/observe/sysview.h"
#include "emu/transport/transport.h"

static void refresh(struct emu_device *dev)
{
	struct emu_transport *t = emu_transport_of(dev);
	uint64_t values[EMU_CNT_NAMES_MAX];
	const char *dir = emu_sysview_dir();
	struct emu_port_counters c;
	unsigned int k;
	uint32_t i;
	int rc;

	for (i = 0; dir && i < dev->nports; i++) {
		if (!t->ports[i].open)
			continue;
		emu_cnt_port_read(dev, i + 1, &c);
		for (k = 0; k < emu_cnt_nnames; k++)
			values[k] = emu_cnt_value(&emu_cnt_names[k], &c);
		rc = emu_sysview_counters(dev, dir, i + 1, values);
		/* Another process of the view shows its own: not an error. */
		if (rc && rc != ESRCH)
			emu_log(EMU_LOG_XPORT, "%s/%u: hw_counters not "
				"rewritten: errno %d", dev->ibdev.name, i + 1,
				rc);
	}
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	refresh(w->data);
}

void emu_hwcnt_start(struct emu_device *dev)
{
	struct emu_transport *t = emu_transport_of(dev);
	double period = EMU_SYSVIEW_LIFESPAN_MS / 1000.0;

	if (t->hwcnt_on || !emu_sysview_dir())
		return;
	ev_timer_init(&t->hwcnt, on_tick, period, period);
	t->hwcnt.data = dev;
	emu_engine_will_start(dev->engine);
	ev_timer_start(emu_engine_loop(dev->engine), &t->hwcnt);
	t->hwcnt_on = true;
}

void emu_hwcnt_stop(struct emu_device *dev)
{
	struct emu_transport *t = emu_transport_of(dev);

	if (!t->hwcnt_on)
		return;
	ev_timer_stop(emu_engine_loop(dev->engine), &t->hwcnt);
	t->hwcnt_on = false;
	refresh(dev);
}
