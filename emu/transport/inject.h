/* Fault injection on a device's traffic: its rule set, and the hooks the
 * transport calls for every packet sent and received while rules exist,
 * with the packets that delay and reorder rules hold. */
#ifndef EMU_INJECT_H
#define EMU_INJECT_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "emu/device/fault.h"

struct emu_device;
struct emu_tport;
struct emu_udp_pkt;

/* A device's rules, in the order they are tried: the first that acts on
 * a packet decides what happens to it. */
struct emu_fault_set {
	struct emu_fault_rule rule[EMU_FAULT_MAX];
	/* Each rule's memory of the packets it acted on (rule[i].sight). */
	struct emu_fault_sight sight[EMU_FAULT_MAX][EMU_FAULT_SIGHTS];
	unsigned int n;
	uint64_t t0_ns;			/* when the device's engine started:
					 * after=, for= and at= count from it */
	/* The next scheduled event (port, GID, QP/CQ/SRQ error) is due. */
	ev_timer sched;
	bool sched_on, started;
	struct emu_device *dev;
};

/* Packets held by delay and reorder rules, per port. */
struct emu_fault_held;

struct emu_fault_port {
	struct emu_fault_held *held;	/* EMU_FAULT_HELD_MAX, made lazily */
	unsigned int n;
	ev_timer timer;
	bool timer_on;
	uint64_t overflow;		/* holds refused: the packet passed */
};

#define EMU_FAULT_HELD_MAX	256

/* Of the config's rules (checked when it was read: [fault] sections and
 * EMUVERBS_FAULT), those for dev: all without device=, else by name. */
void emu_inject_init(struct emu_device *dev,
		     const struct emu_fault_rule *rules, unsigned int n);
/* With the transport, on the engine thread: events start counting their
 * at= from here; stop cancels those not yet due. */
void emu_inject_start(struct emu_device *dev);
void emu_inject_stop(struct emu_device *dev);

/* Per port, with the transport (engine thread); fini drops what is held. */
void emu_inject_port_init(struct emu_tport *tp);
void emu_inject_port_fini(struct emu_tport *tp);

/* Whether dev has rules: when not, nothing here is called per packet. */
static inline bool emu_inject_active(const struct emu_fault_set *s)
{
	return s->n > 0;
}

/* Send a packet (as emu_link_send takes it) through the rules and on to
 * the link: dropped, duplicated, held, corrupted or truncated by the first
 * rule that acts, else sent as it is. qpn is the sending QP's. */
void emu_inject_tx(struct emu_tport *tp, uint32_t qpn,
		   const struct in6_addr *src, const struct in6_addr *dst,
		   uint16_t dport, uint8_t tclass, unsigned int sock,
		   uint8_t *buf, uint32_t hdr_len, const struct iovec *pay,
		   unsigned int npay, uint32_t tail_len);
/* Handle a received packet through the rules: dropped, held, handled
 * twice, corrupted or truncated in place first, or handled as it is. */
void emu_inject_rx(struct emu_tport *tp, struct emu_udp_pkt *u);
/* Release what is due on tp by now_ns (engine thread, or a thread that
 * entered the engine). */
void emu_inject_release(struct emu_tport *tp, uint64_t now_ns);

/* Run-time rules (engine thread): add the rules of a line (the one-line
 * grammar), delete by name, list. 0 or an errno with a reason in err. */
int emu_inject_add(struct emu_device *dev, const char *line, char *err,
		   size_t errlen);
int emu_inject_del(struct emu_device *dev, const char *name);
/* The same, with the events' at= counting from now rather than from the
 * device's start (a port that comes back up in 150 ms). */
int emu_inject_add_from_now(struct emu_device *dev, const char *line,
			    char *err, size_t errlen);
/* Do the events of a line now ("qp_fatal qpn=N at=0ms", the grammar of
 * event rules), without keeping them: 0, EINVAL for a line that is not
 * all events, ENOENT when one had nothing to act on; why in err. */
int emu_inject_now(struct emu_device *dev, const char *line, char *err,
		   size_t errlen);

#endif
