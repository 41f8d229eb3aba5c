/* Finding a port's peers on this host and handing them rings: the unix
 * socket each port listens on in the owner-only runtime directory, the
 * credential check, the sealed memory area, and the eventfds that wake a
 * sleeping side (emu/transport/wire.c; the rings are net/shm.c). */
#ifndef EMU_WIRE_H
#define EMU_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "net/shm.h"

struct emu_doorbell;
struct emu_tport;
struct emu_watch;
struct wire_conn;

struct emu_wire_port {
	bool on;			/* the shared-memory wire is offered */
	struct emu_shm shm;
	int listen_fd;			/* peers connect here, or -1 */
	struct emu_watch *listen_watch;
	int wake_fd;			/* our eventfd: peers write it */
	struct emu_watch *wake_watch;
	struct emu_doorbell *ask;	/* rung when an entry needs asking */
	uint64_t netns;			/* our network namespace's inode */
	char path[108];			/* the listening socket's path */
	/* Connections whose hello has not come yet (accepted), or whose
	 * answer has not (made), and those that carry a channel. */
	struct wire_conn *conns;
};

/* Offer the shared-memory wire on tp's port when its configuration and
 * endpoint allow: listen, and route datagrams to this host's peers into
 * rings. Never fails the port: without it, UDP carries everything. */
void emu_wire_open(struct emu_tport *tp);
/* On the engine thread: every channel down, the socket gone. */
void emu_wire_close(struct emu_tport *tp);
/* A peer as the port's wire table has it: every destination the port
 * has sent to (and every ring peer), up to EMU_SHM_PEERS. */
struct emu_wire_peer {
	struct in6_addr addr;
	uint16_t port;
	bool shm;		/* its frames go through rings now */
	uint64_t tx_frames, rx_frames, tx_full, rx_bad;
};

/* Up to max of tp's peers into out: how many. Engine thread. */
unsigned int emu_wire_peers(struct emu_tport *tp, struct emu_wire_peer *out,
			    unsigned int max);
/* The configured wire's name: "auto", "udp" or "shm". */
const char *emu_wire_config_name(unsigned int wire);

/* The wire a peer's frames take from this port now: "shm" or "udp". */
const char *emu_wire_name(struct emu_tport *tp, const void *addr16,
			  uint16_t port);

#endif
