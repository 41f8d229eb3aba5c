/* The emulated InfiniBand subnet manager: LIDs for the InfiniBand ports
 * of this user's processes on one machine, kept in a small registry file
 * (one line per port: LID, address, PID) that every process reads and
 * writes under flock; and the routes from LIDs and GIDs to the endpoints
 * that carry them, the registry's and the config's (other hosts). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>

#include "emu/base/rundir.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/base/log.h"
#include "emu/device/subnet.h"

#include <infiniband/verbs.h>

#define REGISTRY_MAX	4096	/* ports in one user's registry */
#define REREAD_NS	50000000ull

struct entry {
	uint16_t lid;
	struct in6_addr addr;
	long pid;
};

static int registry_path(char *buf, size_t len)
{
	char dir[200], why[256];

	if (emu_ctl_dir(dir, sizeof(dir)) ||
	    emu_ctl_dir_make(dir, why, sizeof(why)))
		return -1;
	return (size_t)snprintf(buf, len, "%s/ib-subnet", dir) < len ? 0 : -1;
}

/* The registry's entries (n at most) from fd: how many. */
static unsigned int read_entries(int fd, struct entry *e, unsigned int n)
{
	char line[128], addr[INET6_ADDRSTRLEN];
	unsigned int k = 0, lid;
	long pid;
	FILE *f;
	int dfd = dup(fd);

	if (dfd < 0)
		return 0;
	f = fdopen(dfd, "r");
	if (!f) {
		close(dfd);
		return 0;
	}
	rewind(f);
	while (k < n && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u %45s %ld", &lid, addr, &pid) != 3 ||
		    !lid || lid > 0xbfff)
			continue;
		if (inet_pton(AF_INET6, addr, &e[k].addr) != 1)
			continue;
		e[k].lid = (uint16_t)lid;
		e[k].pid = pid;
		k++;
	}
	fclose(f);
	return k;
}

static bool alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static int write_entries(int fd, const struct entry *e, unsigned int n)
{
	char addr[INET6_ADDRSTRLEN];
	unsigned int i;
	FILE *f;
	int dfd = dup(fd), rc = 0;

	if (dfd < 0 || ftruncate(fd, 0)) {
		if (dfd >= 0)
			close(dfd);
		return errno;
	}
	f = fdopen(dfd, "w");
	if (!f) {
		close(dfd);
		return ENOMEM;
	}
	rewind(f);
	for (i = 0; i < n; i++) {
		inet_ntop(AF_INET6, &e[i].addr, addr, sizeof(addr));
		fprintf(f, "%u %s %ld\n", e[i].lid, addr, e[i].pid);
	}
	if (fclose(f))
		rc = EIO;
	return rc;
}

static bool lid_used(const struct entry *e, unsigned int n,
		     const struct emu_port_config *pc, uint16_t lid)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (e[i].lid == lid)
			return true;
	for (i = 0; i < pc->n_routes; i++)
		if (pc->routes[i].lid == lid)
			return true;
	return false;
}

void emu_subnet_port_gid(const struct emu_port *port, uint8_t gid[16])
{
	const struct in6_addr *a = &port->ep.addr;
	uint32_t low = 0;
	unsigned int i;

	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	/* The GUID: 02:'e':'m':'u' and the IPv4 address, so that a GID
	 * names its endpoint on any host; an IPv6 endpoint's is a hash. */
	gid[8] = 0x02;
	gid[9] = 0x65;
	gid[10] = 0x6d;
	gid[11] = 0x75;
	if (IN6_IS_ADDR_V4MAPPED(a)) {
		memcpy(gid + 12, &a->s6_addr[12], 4);
		return;
	}
	low = 2166136261u;
	for (i = 0; i < 16; i++)
		low = (low ^ a->s6_addr[i]) * 16777619u;
	low = htonl(low);
	memcpy(gid + 12, &low, 4);
	gid[8] = 0x06;		/* not an IPv4 one: no address in it */
}

bool emu_subnet_gid_addr(const uint8_t gid[16], struct in6_addr *addr)
{
	static const uint8_t ours[12] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					  0x02, 0x65, 0x6d, 0x75 };

	if (IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)gid)) {
		memcpy(addr, gid, 16);
		return true;
	}
	if (memcmp(gid, ours, sizeof(ours)))
		return false;
	memset(addr, 0, sizeof(*addr));
	addr->s6_addr[10] = 0xff;
	addr->s6_addr[11] = 0xff;
	memcpy(&addr->s6_addr[12], gid + 12, 4);
	return true;
}

int emu_subnet_join(struct emu_port *port, FILE *errf)
{
	const struct emu_port_config *pc = &port->cfg;
	char path[256];
	struct entry *e;
	unsigned int n, i, k = 0;
	uint16_t lid = pc->lid;
	int fd, rc = 0;

	port->lid = lid;
	if (registry_path(path, sizeof(path))) {
		/* Routes from the config still work; this machine's other
		 * processes cannot find it by LID. */
		if (!lid)
			port->lid = (uint16_t)(ntohl(port->ep.addr.s6_addr32[3]) %
					       0xbffe + 2);
		fprintf(errf, "emuverbs: %s port %u: no subnet registry (the "
			"runtime directory is not private): LID %u is not "
			"known to other processes\n", port->dev->cfg.name,
			port->num, port->lid);
		return 0;
	}
	e = calloc(REGISTRY_MAX, sizeof(*e));
	if (!e)
		return ENOMEM;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		rc = errno;
		fprintf(errf, "emuverbs: %s: %s\n", path, strerror(errno));
		goto out;
	}
	n = read_entries(fd, e, REGISTRY_MAX);
	/* What is left of processes gone, and of our address, goes. */
	for (i = 0; i < n; i++)
		if (alive(e[i].pid) &&
		    memcmp(&e[i].addr, &port->ep.addr, sizeof(e[i].addr)))
			e[k++] = e[i];
	n = k;
	if (lid) {
		for (i = 0; i < n && e[i].lid != lid; i++)
			;
		if (i < n) {
			fprintf(errf, "emuverbs: %s port %u: lid %u is taken "
				"by process %ld (%s)\n", port->dev->cfg.name,
				port->num, lid, e[i].pid, path);
			rc = EADDRINUSE;
			goto out;
		}
	} else {
		for (lid = EMU_SM_LID + 1; lid <= 0xbfff &&
		     lid_used(e, n, pc, lid); lid++)
			;
	}
	if (n == REGISTRY_MAX || lid > 0xbfff) {
		fprintf(errf, "emuverbs: %s: the subnet is full\n", path);
		rc = ENOSPC;
		goto out;
	}
	e[n].lid = lid;
	e[n].addr = port->ep.addr;
	e[n].pid = (long)getpid();
	rc = write_entries(fd, e, n + 1);
	if (rc) {
		fprintf(errf, "emuverbs: %s: %s\n", path, strerror(rc));
		goto out;
	}
	port->lid = lid;
	port->sn.joined = true;
	emu_log(EMU_LOG_QP, "%s/%u: LID %u from the subnet manager",
		port->dev->cfg.name, port->num, lid);
out:
	if (fd >= 0)
		close(fd);
	free(e);
	return rc;
}

void emu_subnet_leave(struct emu_port *port)
{
	char path[256];
	struct entry *e;
	unsigned int n, i, k = 0;
	int fd;

	if (!port->sn.joined || registry_path(path, sizeof(path)))
		return;
	port->sn.joined = false;
	e = calloc(REGISTRY_MAX, sizeof(*e));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (e && fd >= 0 && !flock(fd, LOCK_EX)) {
		n = read_entries(fd, e, REGISTRY_MAX);
		for (i = 0; i < n; i++)
			if (e[i].lid != port->lid ||
			    e[i].pid != (long)getpid())
				e[k++] = e[i];
		write_entries(fd, e, k);
	}
	if (fd >= 0)
		close(fd);
	free(e);
}

/* Read the registry into the port's cache if the last read is older than
 * REREAD_NS (or force). Under sn.lock. */
static void refresh(struct emu_port *port, bool force)
{
	struct emu_subnet_cache *c = &port->sn;
	uint64_t now = emu_now_ns();
	struct entry *e;
	char path[256];
	unsigned int n, i;
	int fd;

	if (!force && c->read_ns && now - c->read_ns < REREAD_NS)
		return;
	c->read_ns = now;
	if (registry_path(path, sizeof(path)))
		return;
	e = calloc(EMU_SUBNET_CACHE, sizeof(*e));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e && fd >= 0 && !flock(fd, LOCK_SH)) {
		n = read_entries(fd, e, EMU_SUBNET_CACHE);
		for (i = 0; i < n; i++) {
			c->lid[i] = e[i].lid;
			c->addr[i] = e[i].addr;
		}
		c->n = n;
	}
	if (fd >= 0)
		close(fd);
	free(e);
}

/* fresh: read the registry first, whenever it was read last. */
static bool route(struct emu_port *port, uint16_t lid, struct in6_addr *addr,
		  bool fresh)
{
	const struct emu_port_config *pc = &port->cfg;
	struct emu_subnet_cache *c = &port->sn;
	unsigned int i, round;
	bool found = false;

	for (i = 0; i < pc->n_routes; i++) {
		if (pc->routes[i].lid == lid) {
			*addr = pc->routes[i].addr;
			return true;
		}
	}
	if (lid == port->lid) {
		*addr = port->ep.addr;
		return true;
	}
	pthread_mutex_lock(&c->lock);
	if (fresh)
		refresh(port, true);
	for (round = fresh; round < 2 && !found; round++) {
		if (round && !fresh)
			refresh(port, !c->read_ns);
		for (i = 0; i < c->n && !found; i++) {
			if (c->lid[i] == lid) {
				*addr = c->addr[i];
				found = true;
			}
		}
	}
	pthread_mutex_unlock(&c->lock);
	if (!found)
		emu_log(EMU_LOG_QP, "%s/%u: no route to LID %u",
			port->dev->cfg.name, port->num, lid);
	return found;
}

bool emu_subnet_route(struct emu_port *port, uint16_t lid,
		      struct in6_addr *addr)
{
	return route(port, lid, addr, false);
}

uint16_t emu_subnet_lid_of(struct emu_port *port, const struct in6_addr *addr)
{
	const struct emu_port_config *pc = &port->cfg;
	struct emu_subnet_cache *c = &port->sn;
	unsigned int i, round;
	uint16_t lid = 0;

	if (!memcmp(addr, &port->ep.addr, sizeof(*addr)))
		return port->lid;
	for (i = 0; i < pc->n_routes; i++)
		if (!memcmp(&pc->routes[i].addr, addr, sizeof(*addr)))
			return pc->routes[i].lid;
	pthread_mutex_lock(&c->lock);
	for (round = 0; round < 2 && !lid; round++) {
		if (round)
			refresh(port, !c->read_ns);
		for (i = 0; i < c->n && !lid; i++)
			if (!memcmp(&c->addr[i], addr, sizeof(*addr)))
				lid = c->lid[i];
	}
	pthread_mutex_unlock(&c->lock);
	return lid;
}

bool emu_subnet_path(struct emu_port *port, const struct ibv_ah_attr *ah,
		     struct in6_addr *dest, struct in6_addr *src, bool fresh)
{
	bool ok;

	*src = port->ep.addr;
	if (ah->is_global)
		ok = emu_subnet_gid_addr(ah->grh.dgid.raw, dest);
	else
		ok = route(port, ah->dlid, dest, fresh);
	if (!ok)
		memset(dest, 0, sizeof(*dest));
	return ok;
}
