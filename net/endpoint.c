/* Claims and binds the UDP sockets that are this process's RoCEv2 endpoints:
 * a free loopback address, an explicit address, or a whole interface. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/endpoint.h"

bool emu_addr_is_v4mapped(const struct in6_addr *a)
{
	return IN6_IS_ADDR_V4MAPPED(a);
}

void emu_addr_from_ipv4(struct in6_addr *a, uint32_t ipv4_host_order)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[10] = 0xff;
	a->s6_addr[11] = 0xff;
	a->s6_addr32[3] = htonl(ipv4_host_order);
}

const char *emu_addr_str(const struct in6_addr *a, char *buf, size_t len)
{
	if (emu_addr_is_v4mapped(a))
		return inet_ntop(AF_INET, &a->s6_addr32[3], buf, len);
	return inet_ntop(AF_INET6, a, buf, len);
}

static int open_udp(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	return fd < 0 ? -errno : fd;
}

bool emu_addr_is_loopback(const struct in6_addr *a)
{
	return emu_addr_is_v4mapped(a) ? a->s6_addr[12] == 127 :
					 IN6_IS_ADDR_LOOPBACK(a);
}

/* Binds fd to addr:port; IPv4 addresses go through an AF_INET socket so
 * the packets the kernel builds are plain IPv4 (the ICRC covers that
 * header). */
static int bind_to(int fd, int family, const struct in6_addr *a,
		   uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	int rc;

	if (family == AF_INET) {
		sin.sin_port = htons(port);
		sin.sin_addr.s_addr = a->s6_addr32[3];
		rc = bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	} else {
		sin6.sin6_port = htons(port);
		sin6.sin6_addr = *a;
		rc = bind(fd, (struct sockaddr *)&sin6, sizeof(sin6));
	}
	return rc ? -errno : 0;
}

int emu_endpoint_bind_addr(struct emu_endpoint *ep, const struct in6_addr *a,
			   uint16_t port)
{
	int family = emu_addr_is_v4mapped(a) ? AF_INET : AF_INET6;
	int fd = open_udp(family);
	int rc;

	if (fd < 0)
		return fd;
	rc = bind_to(fd, family, a, port);
	if (rc) {
		close(fd);
		return rc;
	}
	ep->fd = fd;
	ep->family = family;
	ep->addr = *a;
	ep->netdev[0] = '\0';
	ep->port = port;
	return 0;
}

/*
 * Probes with SO_REUSEADDR: processes starting together probe the same
 * address at the same moment, and each must not take the other's probe
 * for a wildcard listener. A listener that did not ask for reuse (the
 * kernel's rxe tunnel socket) still makes the bind fail.
 */
bool emu_endpoint_port_held(uint16_t port)
{
	struct in6_addr a;
	int one = 1;
	int fd, rc;

	fd = open_udp(AF_INET);
	if (fd < 0)
		return false;
	emu_addr_from_ipv4(&a, EMU_LOOPBACK_LAST);
	rc = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ?
		     -errno : bind_to(fd, AF_INET, &a, port);
	close(fd);
	return rc == -EADDRINUSE;
}

int emu_endpoint_claim_loopback(struct emu_endpoint *ep, uint16_t port)
{
	struct in6_addr a;
	unsigned int tries = 0;
	uint32_t ip;
	int rc;

	/* Addresses ending in .0 or .255 are skipped: tools treat them as
	 * network or broadcast addresses even on loopback. The number of
	 * tries is capped because a wildcard listener on 4791 (a loaded
	 * rdma_rxe, say) makes every address busy. */
	for (ip = EMU_LOOPBACK_FIRST; ip <= EMU_LOOPBACK_LAST; ip++) {
		if ((ip & 0xff) == 0 || (ip & 0xff) == 0xff)
			continue;
		emu_addr_from_ipv4(&a, ip);
		rc = emu_endpoint_bind_addr(ep, &a, port);
		if (rc != -EADDRINUSE || ++tries >= EMU_LOOPBACK_MAX_TRIES)
			return rc;
	}
	return -EADDRNOTAVAIL;
}

int emu_endpoint_bind_netdev(struct emu_endpoint *ep, const char *ifname,
			     uint16_t port)
{
	struct in6_addr any = IN6ADDR_ANY_INIT;
	int off = 0;
	int fd, rc;

	if (strlen(ifname) >= sizeof(ep->netdev))
		return -ENAMETOOLONG;
	fd = open_udp(AF_INET6);
	if (fd < 0)
		return fd;
	/* One dual-stack socket serves the interface's IPv4 and IPv6 GIDs. */
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname,
		       strlen(ifname) + 1)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	rc = bind_to(fd, AF_INET6, &any, port);
	if (rc) {
		close(fd);
		return rc;
	}
	ep->fd = fd;
	ep->family = AF_INET6;
	ep->addr = any;
	strcpy(ep->netdev, ifname);
	ep->port = port;
	return 0;
}

void emu_endpoint_close(struct emu_endpoint *ep)
{
	if (ep->fd >= 0)
		close(ep->fd);
	ep->fd = -1;
}
