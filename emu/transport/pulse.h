/* The pulse: whether a peer process on this machine has had a CPU since a
 * packet reached it, so that a retransmission timer counts only the waits
 * in which the peer could have answered (emu/transport/comp.c). */
#ifndef EMU_PULSE_H
#define EMU_PULSE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "emu/base/engine.h"

/* What a port publishes, in a file of the owner-only runtime directory
 * named after its address, mapped shared by its owner and read by peers. */
struct emu_pulse_page {
	uint32_t magic;
	uint32_t pid;
	/* The last receive batch that found the socket empty started here
	 * (CLOCK_MONOTONIC ns): what had arrived before, the port has
	 * handled, answers queued and flushed. */
	uint64_t drained_ns;
	/* A receive batch is under way: the port has packets in hand. */
	uint32_t busy;
	/* With io_uring, the kernel moves packets out of the socket into the
	 * ring on the receiving thread's behalf, so an empty socket no longer
	 * means all is read: the one thread that receives, whose state
	 * (running or runnable, or asleep) says whether it is behind. */
	uint32_t ring_tid;
};

/* A port's own pulse: page NULL when it has none (no runtime directory,
 * or the address is another live process's), and then costs nothing. */
struct emu_pulse {
	struct emu_pulse_page *page;
	int fd;
	char path[256];
};

/* Publish the pulse of the port at addr:udp_port; never fails the port. */
void emu_pulse_open(struct emu_pulse *p, const struct in6_addr *addr,
		    uint16_t udp_port);
void emu_pulse_close(struct emu_pulse *p);
/* On the thread that will receive: whether it alone receives, through
 * io_uring (then peers look at its state). */
void emu_pulse_receiver(struct emu_pulse *p, bool ring);

/* Around a receive batch: begin returns its start time (0 with no page),
 * end says whether the batch emptied the socket. */
static inline uint64_t emu_pulse_begin(struct emu_pulse *p)
{
	if (!p->page)
		return 0;
	__atomic_store_n(&p->page->busy, 1, __ATOMIC_RELEASE);
	return emu_now_ns();
}

static inline void emu_pulse_end(struct emu_pulse *p, uint64_t t0,
				 bool drained)
{
	if (!p->page)
		return;
	if (drained)
		__atomic_store_n(&p->page->drained_ns, t0, __ATOMIC_RELEASE);
	__atomic_store_n(&p->page->busy, 0, __ATOMIC_RELEASE);
}

/* What a requester may conclude about the peer at addr:udp_port, whose
 * answer to a packet that left at sent_ns has not come. */
enum emu_pulse_verdict {
	EMU_PULSE_UNKNOWN,	/* no pulse: another host, user or directory */
	EMU_PULSE_GONE,		/* its process has exited */
	EMU_PULSE_HAD_TIME,	/* it has been through its socket since */
	EMU_PULSE_STALLED,	/* alive, and not yet run since the packet */
};

/* Peers' pages, looked up when a timer fires (never on the data path). */
#define EMU_PULSE_PEERS	32

struct emu_pulse_peer {
	struct in6_addr addr;
	int fd;
	const struct emu_pulse_page *page;
	uint64_t used;
};

struct emu_pulse_peers {
	struct emu_pulse_peer p[EMU_PULSE_PEERS];
	unsigned int n;
	uint64_t clock;
};

enum emu_pulse_verdict emu_pulse_judge(struct emu_pulse_peers *ps,
				       const struct in6_addr *addr,
				       uint16_t udp_port, uint64_t sent_ns);
void emu_pulse_peers_fini(struct emu_pulse_peers *ps);

/* The bytes waiting in the receive queue of the UDP socket bound to
 * addr:udp_port in this network namespace, or -1 if none is found. */
long emu_pulse_rqueue(const struct in6_addr *addr, uint16_t udp_port);

#endif
