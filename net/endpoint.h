/* A port's RoCEv2 endpoint: the UDP socket on port 4791 that makes this
 * process one host on the wire, and how its address is claimed. */
#ifndef NET_ENDPOINT_H
#define NET_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#define EMU_ROCE_UDP_PORT 4791
/* Where ports whose peers are emuverbs processes (loopback) meet when
 * another RoCE stack, a loaded kernel rdma_rxe, holds 4791 on the wildcard
 * address: every process on the machine sees the same and picks the same.
 * Below the ephemeral range, so no client socket takes it first. */
#define EMU_ROCE_FALLBACK_PORT 14791

/* First loopback address tried when claiming one; later claims count up. */
#define EMU_LOOPBACK_FIRST 0x7f010001u	/* 127.1.0.1 */
#define EMU_LOOPBACK_LAST 0x7ffffffeu	/* 127.255.255.254 */
#define EMU_LOOPBACK_MAX_TRIES 4096

struct emu_endpoint {
	int fd;			/* UDP socket bound to port 4791, or -1 */
	int family;		/* AF_INET or AF_INET6 */
	struct in6_addr addr;	/* bound address; IPv4 kept v4-mapped */
	char netdev[16];	/* interface it is tied to, if any */
	uint16_t port;		/* UDP port, host order: 4791 or as set */
};

/* Claim the first free address 127.x.y.z (from EMU_LOOPBACK_FIRST up) on
 * UDP port: two processes on one machine so become two hosts. 0 or a
 * negative errno. */
int emu_endpoint_claim_loopback(struct emu_endpoint *ep, uint16_t port);
/* Bind to an explicit address (IPv4 v4-mapped, or IPv6). */
int emu_endpoint_bind_addr(struct emu_endpoint *ep, const struct in6_addr *a,
			   uint16_t port);
/* Bind to every address of one interface (dual-stack, SO_BINDTODEVICE). */
int emu_endpoint_bind_netdev(struct emu_endpoint *ep, const char *ifname,
			     uint16_t port);
/* Whether a socket holds UDP port on the IPv4 wildcard address, as the
 * kernel's rdma_rxe does once loaded: then no loopback address can have
 * it. Probed at the last loopback address, which no claim reaches. */
bool emu_endpoint_port_held(uint16_t port);
/* An address of the loopback network (127.0.0.0/8 or ::1): its peers can
 * only be processes of this machine. */
bool emu_addr_is_loopback(const struct in6_addr *a);
void emu_endpoint_close(struct emu_endpoint *ep);

bool emu_addr_is_v4mapped(const struct in6_addr *a);
void emu_addr_from_ipv4(struct in6_addr *a, uint32_t ipv4_host_order);
/* Text form: dotted quad for v4-mapped addresses, else IPv6 notation. */
const char *emu_addr_str(const struct in6_addr *a, char *buf, size_t len);

#endif
