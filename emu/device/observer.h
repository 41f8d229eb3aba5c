/* The device's one observer interface: what the device and the rooms
 * above it publish, and the list of those who subscribe. The device
 * calls up through it and nothing else: the objects keep their tables,
 * the transport starts its sockets, and counters, capture, tracing, the
 * sysfs view and the control socket watch, each subscribed once at
 * emu_init() (emu/emu.c). A publisher knows only this list. */
#ifndef EMU_OBSERVER_H
#define EMU_OBSERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

struct emu_config;
struct emu_device;
struct emu_fault_rule;
struct emu_port;
struct emu_qp;
struct emu_tport;

/*
 * Every member may be NULL. Subscribers are called in the order they
 * subscribed; undoing (unmade, stop, down) runs in the reverse order.
 */
struct emu_observer {
	/* The device was made (keep per-device state: nonzero, a positive
	 * errno, fails the making, says in *what what could not be made,
	 * and unmakes those before) or is unmade. */
	int (*made)(struct emu_device *dev, const char **what);
	void (*unmade)(struct emu_device *dev);
	/* It joined the registry built from cfg, beside all the others. */
	void (*listed)(struct emu_device *dev, const struct emu_config *cfg);
	/* Its engine started, dev->lock held: start work on it (nonzero, a
	 * positive errno, fails the open); stop before the engine stops. */
	int (*start)(struct emu_device *dev);
	void (*stop)(struct emu_device *dev);
	/* On the engine thread, once the transport runs / before it stops:
	 * watchers join and leave the device. */
	void (*up)(struct emu_device *dev);
	void (*down)(struct emu_device *dev);
	/* A context was opened or closed (dev->lock not held). */
	void (*opened)(struct emu_device *dev);
	void (*closed)(struct emu_device *dev);
	/* A port changed, on the engine thread ("link": its link settings;
	 * "down": it went down), then as seen from outside, on the thread
	 * that changed it ("gid", "state", "link"). */
	void (*port_engine)(struct emu_port *port, const char *what);
	void (*port)(struct emu_port *port, const char *what);
	/* A QP's state changed, or it raised an async event. */
	void (*qp_state)(struct emu_qp *qp, enum ibv_qp_state from,
			 enum ibv_qp_state to);
	void (*qp_async)(struct emu_qp *qp, enum ibv_event_type type);
	/* The requester goes back to psn: packets more are sent again. */
	void (*retransmit)(struct emu_qp *qp, uint32_t psn, uint32_t packets);
	void (*timeout)(struct emu_qp *qp, uint32_t psn,
			unsigned int retries_left);
	/* A NAK (AETH syndrome syn) for psn, sent or received by qp. */
	void (*nak)(struct emu_qp *qp, bool sent, uint8_t syn, uint32_t psn);
	/* Fault rule r acted on a packet (dir EMU_FAULT_TX or _RX; its BTH
	 * at bth), or an event rule fired (done: it had a target). */
	void (*fault)(struct emu_tport *tp, const struct emu_fault_rule *r,
		      uint8_t dir, const uint8_t *bth, uint32_t len);
	void (*fault_event)(struct emu_device *dev,
			    const struct emu_fault_rule *r, bool done);
};

#define EMU_OBSERVERS_MAX	8

/* Subscribe o (before any device is made; emu_init() does it once):
 * 0, or ENOSPC past EMU_OBSERVERS_MAX. */
int emu_observe(const struct emu_observer *o);

extern const struct emu_observer *emu_observers[EMU_OBSERVERS_MAX];
extern unsigned int emu_nobservers;

/* Publish event ev with its arguments to every subscriber that has it. */
#define EMU_PUBLISH(ev, ...)                                              \
	do {                                                              \
		unsigned int _o;                                          \
		for (_o = 0; _o < emu_nobservers; _o++)                   \
			if (emu_observers[_o]->ev)                        \
				emu_observers[_o]->ev(__VA_ARGS__);       \
	} while (0)

/* The same in the reverse order, for what undoes. */
#define EMU_PUBLISH_UNDO(ev, ...)                                         \
	do {                                                              \
		unsigned int _o = emu_nobservers;                         \
		while (_o--)                                              \
			if (emu_observers[_o]->ev)                        \
				emu_observers[_o]->ev(__VA_ARGS__);       \
	} while (0)

/* made / start for every subscriber: 0, or the first failure after it
 * and the ones before it were undone (unmade / stop, which must take a
 * half-done one). */
int emu_publish_made(struct emu_device *dev, const char **what);
int emu_publish_start(struct emu_device *dev);

#endif
