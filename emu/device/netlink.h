/* The rtnetlink follower: keeps a port's GID table equal to the addresses of
 * a host interface (config `netdev = eth0`), as rdma_rxe's table follows its
 * netdev. Runs on the engine thread; the table it feeds is thread-safe. */
#ifndef EMU_NETLINK_H
#define EMU_NETLINK_H

#include <stdint.h>
#include <netinet/in.h>

#include "emu/device/gid.h"

struct emu_nl;

/* Follow interface ifname into t. Subscribes to link and IPv4/IPv6 address
 * notifications, then fills t from a dump: IPv4 addresses (v4-mapped) first,
 * then IPv6 ones including link-local fe80::, each as a RoCEv2+RoCEv1 pair
 * (see gid.h). The initial fill does not call changed. The follower is bound
 * to the name: if the interface is deleted or renamed away its addresses
 * leave the table; an interface that later takes the name is followed.
 * Returns NULL with *err set to ENODEV (no such interface), EINVAL (bad
 * name) or another errno value. */
struct emu_nl *emu_nl_open(const char *ifname, struct emu_gid_table *t,
			   void (*changed)(void *arg), void *arg, int *err);

/* Non-blocking fd to watch for readability (EV_READ). */
int emu_nl_fd(struct emu_nl *nl);

/* Call when emu_nl_fd() is readable: applies every pending notification for
 * the followed interface to the table and calls changed(arg) once if the
 * table changed (the caller raises IBV_EVENT_GID_CHANGE). A lost-message
 * overrun (ENOBUFS) is repaired by re-dumping and reconciling. Returns 0, or
 * an errno value if the table could not be brought up to date (a later call
 * retries). */
int emu_nl_process(struct emu_nl *nl);

/* ifindex of the followed interface; 0 while no interface has the name. */
uint32_t emu_nl_ifindex(struct emu_nl *nl);

/* Stop following; the table keeps its entries. NULL is a no-op. */
void emu_nl_close(struct emu_nl *nl);

/* The address a port bound to ifname should use as its endpoint: the
 * interface's first IPv4 address (v4-mapped, ::ffff:a.b.c.d), else its first
 * IPv6 address that is not link-local. 0, ENODEV (no such interface),
 * EADDRNOTAVAIL (no such address), EINVAL (bad name) or another errno. */
int emu_netdev_first_addr(const char *ifname, struct in6_addr *out);

#endif
