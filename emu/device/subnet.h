/* The emulated InfiniBand subnet: what a subnet manager gives the ports
 * whose link layer is InfiniBand (a LID, the SM's LID) and the routes a
 * switch would know (LID -> the endpoint that has it), so that programs
 * that address peers by LID alone reach them. */
#ifndef EMU_SUBNET_H
#define EMU_SUBNET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>

struct emu_port;

/* LIDs of the registry a port remembers between reads of it. */
#define EMU_SUBNET_CACHE	256

/* A port's part of the subnet (in struct emu_port). */
struct emu_subnet_cache {
	pthread_mutex_t lock;		/* the cache: lookups come from the
					 * verbs and the engine */
	unsigned int n;
	uint16_t lid[EMU_SUBNET_CACHE];
	struct in6_addr addr[EMU_SUBNET_CACHE];
	uint64_t read_ns;		/* last read of the registry */
	bool joined;			/* in the registry */
};

/* The subnet manager's own LID, as ports report it (sm_lid). */
#define EMU_SM_LID	1

/*
 * Give an InfiniBand port its LID: the config's `lid`, else the lowest
 * free one from 2 up in this user's registry (the file ib-subnet in the
 * runtime directory of emu/observe/ctl.h, shared by the processes of one
 * machine; entries of processes that are gone are dropped). 0, or a
 * positive errno with a line on errf (the LID taken by a live process, the
 * registry not writable).
 */
int emu_subnet_join(struct emu_port *port, FILE *errf);
/* The port leaves the registry (its device is destroyed). */
void emu_subnet_leave(struct emu_port *port);

/*
 * Where LID lid is from port: the config's routes first, then the
 * registry (read again at most every 50 ms when a LID is not known).
 * true and *addr, or false.
 */
bool emu_subnet_route(struct emu_port *port, uint16_t lid,
		      struct in6_addr *addr);
/* The LID of the endpoint at addr, as a receiver reports it (wc.slid): 0
 * when it is not known. */
uint16_t emu_subnet_lid_of(struct emu_port *port, const struct in6_addr *addr);

/* Where a GID of an InfiniBand port is (the ports' GIDs are fe80:: and a
 * GUID made of the endpoint's IPv4 address, emu_subnet_port_gid): true
 * and *addr for such a GID or an IP address's own, else false. */
bool emu_subnet_gid_addr(const uint8_t gid[16], struct in6_addr *addr);
/* The GID of an InfiniBand port: the link-local prefix and the port's
 * GUID. */
void emu_subnet_port_gid(const struct emu_port *port, uint8_t gid[16]);

struct ibv_ah_attr;

/*
 * The two ends of a path from an InfiniBand port: src is the port's own
 * endpoint, dest what the GRH's dgid names (emu_subnet_gid_addr) or, with
 * no GRH, where the subnet routes the DLID. false, dest zeroed, when the
 * destination is not known (yet: a LID joins the registry when its
 * process opens its device). fresh, for a path being set up (an AH, a QP
 * to RTR), reads the registry first: a peer that closed its device and
 * opened it again may have the LID it had at a new address, and a route
 * remembered from before would lead to whoever took the old one. The
 * lookup a packet makes while the LID is unknown is not fresh.
 */
bool emu_subnet_path(struct emu_port *port, const struct ibv_ah_attr *ah,
		     struct in6_addr *dest, struct in6_addr *src, bool fresh);

#endif
