/* A port's RoCEv2 endpoint: the UDP socket on port 4791 that makes this
 * process one host on the wire, and how its address is claimed. */
#ifndef NET_ENDPOINT_H
#define NET_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#define EMU_ROCE_UDP_PORT 4791

/* First loopback address tried when claiming one; later claims count up. */
#define EMU_LOOPBACK_FIRST 0x7f010001u	/* 127.1.0.1 */
#define EMU_LOOPBACK_LAST 0x7ffffffeu	/* 127.255.255.254 */
#define EMU_LOOPBACK_MAX_TRIES 4096

struct emu_endpoint {
	int fd;			/* UDP socket bound to port 4791, or -1 */
	int family;		/* AF_INET or AF_INET6 */
	struct in6_addr addr;	/* bound address; IPv4 kept v4-mapped */
	char netdev[16];	/* interface it is tied to, if any */
};

/* Claim the first free address 127.x.y.z (from EMU_LOOPBACK_FIRST up): two
 * processes on one machine so become two hosts. 0 or a negative errno. */
int emu_endpoint_claim_loopback(struct emu_endpoint *ep);
/* Bind to an explicit address (IPv4 v4-mapped, or IPv6). */
int emu_endpoint_bind_addr(struct emu_endpoint *ep, const struct in6_addr *a);
/* Bind to every address of one interface (dual-stack, SO_BINDTODEVICE). */
int emu_endpoint_bind_netdev(struct emu_endpoint *ep, const char *ifname);
void emu_endpoint_close(struct emu_endpoint *ep);

bool emu_addr_is_v4mapped(const struct in6_addr *a);
void emu_addr_from_ipv4(struct in6_addr *a, uint32_t ipv4_host_order);
/* Text form: dotted quad for v4-mapped addresses, else IPv6 notation. */
const char *emu_addr_str(const struct in6_addr *a, char *buf, size_t len);

#endif
