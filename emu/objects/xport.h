/* What the objects ask of the transport above them, which they may not
 * name: a QP's work started, stopped and run, its port's state, and the
 * polls an application's thread makes while its CQ is empty. The
 * transport fills the table once (emu_init(), emu/emu.c); a NIC's queues
 * likewise reach its engines through doorbells, not calls. */
#ifndef EMU_XPORT_H
#define EMU_XPORT_H

#include <stdbool.h>
#include <stdint.h>

struct emu_device;
struct emu_port_counters;
struct emu_qp;
struct emu_tport;

struct emu_xport_ops {
	/* A QP joined its device's table / stops (timers off, the ACK it
	 * owes sent, its budget given back) / had its send PSN set (the
	 * budget it held starts over). Engine thread. */
	void (*qp_added)(struct emu_qp *qp);
	void (*qp_stop)(struct emu_qp *qp);
	void (*qp_rebase)(struct emu_qp *qp);
	/* Send what the QP's send queue holds, as far as it may. */
	void (*qp_run)(struct emu_qp *qp);
	/* The transport's state of port num of dev (1-based), and the
	 * port's counters into *cnt. */
	struct emu_tport *(*port)(struct emu_device *dev, uint32_t num,
				  struct emu_port_counters **cnt);
	/* Send everything queued on dev's ports. */
	void (*flush)(struct emu_device *dev);
	/* A poll found its CQ empty (claim: its thread may receive in the
	 * engine's place): what it did, as emu_transport_poll says; found
	 * completions; is about to sleep on an armed CQ. */
	int (*poll)(struct emu_device *dev, bool claim);
	void (*polled)(struct emu_device *dev);
	void (*will_sleep)(struct emu_device *dev);
};

/* The transport's table; set before any device is made. */
extern const struct emu_xport_ops *emu_xport;

void emu_objects_use(const struct emu_xport_ops *ops);

#endif
