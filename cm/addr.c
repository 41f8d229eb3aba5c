/* cm/addr.c: IP addresses and the emulated ports: which port an address
 * names (one of its RoCEv2 GIDs), rdma_bind_addr with its port numbers,
 * rdma_resolve_addr and rdma_resolve_route, and the loopback rendezvous
 * that lets a program reach a listener in another process by 127.0.0.1
 * or a wildcard address (doc/design-notes.md, "rdma_cm on one machine"). */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "cm/cm.h"
#include "cm/core.h"

#define CMA_PACKET_LIFETIME	16	/* Linux's for RoCE: about 268 ms */
#define CMA_EPHEMERAL_LO	32768
#define CMA_EPHEMERAL_N		28232
#define CMA_PROT_SOCK		1024	/* Linux's PROT_SOCK, no sysctl */

void cm_addr_to_gid(const struct sockaddr *a, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (a->sa_family == AF_INET) {
		gid->raw[10] = gid->raw[11] = 0xff;
		memcpy(gid->raw + 12,
		       &((const struct sockaddr_in *)a)->sin_addr, 4);
	} else if (a->sa_family == AF_INET6) {
		memcpy(gid->raw, &((const struct sockaddr_in6 *)a)->sin6_addr,
		       16);
	}
}

static bool gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0,
					 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

void cm_gid_to_addr(const union ibv_gid *gid, int family, uint16_t port,
		    struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET && gid_is_v4(gid)) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		memcpy(&in->sin_addr, gid->raw + 12, 4);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		memcpy(&in6->sin6_addr, gid->raw, 16);
	}
}

uint16_t cm_addr_port_num(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	if (a->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	return 0;
}

void cm_addr_set_port_num(struct sockaddr *a, uint16_t port)
{
	if (a->sa_family == AF_INET)
		((struct sockaddr_in *)a)->sin_port = htons(port);
	else if (a->sa_family == AF_INET6)
		((struct sockaddr_in6 *)a)->sin6_port = htons(port);
}

bool cm_addr_any(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	if (a->sa_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(
			&((const struct sockaddr_in6 *)a)->sin6_addr);
	return false;
}

bool cm_addr_loopback(const struct sockaddr *a)
{
	const struct in6_addr *a6;

	if (a->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >>
			24) == 127;
	if (a->sa_family != AF_INET6)
		return false;
	a6 = &((const struct sockaddr_in6 *)a)->sin6_addr;
	return IN6_IS_ADDR_LOOPBACK(a6) ||
	       (IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127);
}

struct cm_port *cm_addr_port(const struct sockaddr *a, int *gid_index)
{
	union ibv_gid want, g;
	int d, p, i;

	cm_addr_to_gid(a, &want);
	for (d = 0; d < cm_ndevs; d++)
		for (p = 0; p < cm_devs[d].nports; p++)
			for (i = 0; !cm_gid_next(&cm_devs[d].ports[p], &i, &g);
			     i++)
				if (!memcmp(&g, &want, sizeof(want))) {
					*gid_index = i;
					return &cm_devs[d].ports[p];
				}
	return NULL;
}

/* The first RoCEv2 GID of port of the given family (v4-mapped or not),
 * else its first RoCEv2 GID. 0, or ENODATA when it has none. */
static int port_gid(struct cm_port *port, int family, int *index,
		    union ibv_gid *gid)
{
	union ibv_gid g;
	int i, any = -1;

	for (i = 0; !cm_gid_next(port, &i, &g); i++) {
		if (any < 0) {
			any = i;
			*gid = g;
		}
		if (gid_is_v4(&g) == (family == AF_INET)) {
			*index = i;
			*gid = g;
			return 0;
		}
	}
	if (any < 0)
		return ENODATA;
	*index = any;
	return 0;
}

/* ---- Port numbers, and the loopback rendezvous */

/*
 * Abstract: the kernel frees it when the process dies. One name space per
 * user: a name anyone may bind cannot be machine-wide without letting one
 * user take another's port, and a listener of another user is not
 * believed anyway (cm_peer_trusted).
 */
static void rdv_name(struct sockaddr_un *un, socklen_t *len, uid_t uid,
		     enum cm_port_space ps, uint16_t port)
{
	int n;

	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	n = snprintf(un->sun_path + 1, sizeof(un->sun_path) - 1,
		     "emuverbs-rdma-cm/%u/%04x/%u", (unsigned int)uid,
		     (unsigned int)ps, port);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)n);
}

/* Claim (ps, port) on this machine; the socket, or -1 with errno. */
static int rdv_claim(enum cm_port_space ps, uint16_t port)
{
	struct sockaddr_un un;
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	rdv_name(&un, &len, geteuid(), ps, port);
	if (bind(fd, (struct sockaddr *)&un, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Which other id of ours holds (ps, port) in a way that excludes c. */
static bool port_taken_here(const struct cma_id *c, uint16_t port,
			    const struct sockaddr *a)
{
	const struct cma_id *o;

	for (o = cma_ids; o; o = o->next) {
		const struct sockaddr *oa = &o->id.route.addr.src_addr;

		if (o == c || o->id.ps != c->id.ps || o->bport != port ||
		    o->state == CMA_IDLE)
			continue;
		if (c->reuse && o->reuse && o->state != CMA_LISTEN)
			continue;
		if (cm_addr_any(oa) || cm_addr_any(a) ||
		    cm_addr_loopback(oa) || cm_addr_loopback(a))
			return true;
		if (cm_addrlen(oa) == cm_addrlen(a) &&
		    !memcmp(oa, a, cm_addrlen(a)))
			return true;
	}
	return false;
}

static uint16_t next_ephemeral;

/* Whether we may bind port: Linux's cma_use_port() asks for
 * CAP_NET_BIND_SERVICE below PROT_SOCK (a constant: the rdma_cm does not
 * read ip_unprivileged_port_start). */
static bool port_allowed(uint16_t port)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (!port || port >= CMA_PROT_SOCK)
		return true;
	if (syscall(SYS_capget, &h, d))
		return false;
	return d[CAP_NET_BIND_SERVICE / 32].effective &
	       (1u << (CAP_NET_BIND_SERVICE % 32));
}

/*
 * Take port (0: a free one) for c at address a; with claim, a wildcard or
 * loopback address claims it on the whole machine. 0 or an errno value.
 */
static int claim_port(struct cma_id *c, const struct sockaddr *a,
		      uint16_t port, bool claim)
{
	bool shared = claim && (cm_addr_any(a) || cm_addr_loopback(a));
	int tries = port ? 1 : CMA_EPHEMERAL_N, fd = -1;
	uint16_t p = port;

	if (!next_ephemeral)
		next_ephemeral = (uint16_t)(getpid() * 7919 % CMA_EPHEMERAL_N);
	while (tries--) {
		if (!port) {
			p = (uint16_t)(CMA_EPHEMERAL_LO + next_ephemeral);
			next_ephemeral = (uint16_t)((next_ephemeral + 1) %
						    CMA_EPHEMERAL_N);
		}
		if (port_taken_here(c, p, a))
			continue;
		if (shared) {
			fd = rdv_claim(cma_ps(c), p);
			if (fd < 0)
				continue;
		}
		c->bport = p;
		c->rdv_fd = fd;
		return 0;
	}
	return EADDRINUSE;
}

/* Whether the host holds the address (then it is just not on a device). */
static bool host_has(const struct sockaddr *a)
{
	struct sockaddr_storage ss;
	int fd = socket(a->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	memcpy(&ss, a, cm_addrlen(a));
	cm_addr_set_port_num((struct sockaddr *)&ss, 0);
	ok = !bind(fd, (struct sockaddr *)&ss, cm_addrlen(a));
	close(fd);
	return ok;
}

/* Under the lock. 0 or an errno value. */
int cma_bind(struct cma_id *c, const struct sockaddr *addr, bool claim)
{
	struct cm_port *port = NULL;
	int idx = 0, err;

	if (cm_addr_any(addr)) {
		port = NULL;
	} else if ((port = cm_addr_port(addr, &idx)) == NULL) {
		if (!cm_addr_loopback(addr))
			return host_has(addr) ? ENODEV : EADDRNOTAVAIL;
		/* 127.0.0.1 and ::1 bind no device, as the wildcard: Linux's
		 * cma_any_addr() counts loopback addresses as "any". */
	}
	if (!port_allowed(cm_addr_port_num(addr))) {
		cm_log("port %u needs CAP_NET_BIND_SERVICE",
		       cm_addr_port_num(addr));
		return EACCES;
	}
	memcpy(&c->id.route.addr.src_storage, addr, cm_addrlen(addr));
	err = claim_port(c, addr, cm_addr_port_num(addr), claim);
	if (err)
		return err;
	cm_addr_set_port_num(&c->id.route.addr.src_addr, c->bport);
	c->port = port;
	c->sgid_index = idx;
	if (port) {
		c->id.verbs = port->dev->ctx;
		if (!c->id.pd)
			c->id.pd = cm_dev_pd(port->dev);
		c->id.port_num = port->num;
		if (!cm_addr_loopback(addr))
			cm_addr_to_gid(addr, &c->path.sgid);
		memcpy(&c->id.route.addr.addr.ibaddr.sgid, &c->path.sgid,
		       sizeof(c->path.sgid));
		c->id.route.addr.addr.ibaddr.pkey = htobe16(0xffff);
	}
	c->state = CMA_ADDR_BOUND;
	cm_log("id %p bound to port %u (%s)", (void *)c, c->bport,
	       port ? ibv_get_device_name(port->dev->ctx->device) : "any");
	return 0;
}

void cma_unbind(struct cma_id *c)
{
	if (c->rdv_fd >= 0) {
		cm_unwatch(c->rdv_fd);
		close(c->rdv_fd);
		c->rdv_fd = -1;
	}
	c->bport = 0;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct cma_id *c;
	int err;

	if (!id || !cm_addrlen(addr))
		return cm_refuse(EINVAL, "rdma_bind_addr: NULL id or address "
				 "family not AF_INET/AF_INET6/AF_IB");
	if (addr->sa_family == AF_IB)
		return cm_refuse(EINVAL, "rdma_bind_addr: AF_IB addresses "
				 "are not supported (doc/rdma-cm.md)");
	c = to_cma(id);
	cm_lock();
	if (c->state != CMA_IDLE) {
		cm_unlock();
		return cm_refuse(EINVAL, "rdma_bind_addr: id already bound");
	}
	err = cma_bind(c, addr, true);
	cm_unlock();
	if (err)
		return cm_refuse(err, "rdma_bind_addr: %s", strerror(err));
	return 0;
}

/* ---- Address resolution */

/* A connection to the listener of (ps, port) among uid's, or -1. */
static int rdv_connect(uid_t uid, enum cm_port_space ps, uint16_t port,
		       bool *retry)
{
	struct sockaddr_un un;
	struct ucred cr;
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	rdv_name(&un, &len, uid, ps, port);
	if (connect(fd, (struct sockaddr *)&un, len)) {
		*retry |= errno == ECONNREFUSED || errno == ENOENT;
		close(fd);
		return -1;
	}
	/* Anyone may bind the name: believe only our user or root. */
	if (!cm_peer_trusted(fd, &cr)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Ask the process that holds (ps, port) on this machine for its GID: a
 * listener of our own user, else one of root's. A port nobody holds is
 * asked again for up to 200 ms: programs that make a new listener on a
 * port right after destroying the old one (perftest's -R does, between
 * its two connections) would otherwise lose the race that a kernel CM,
 * which needs no rendezvous, wins by microseconds.
 */
static bool rdv_ask(enum cm_port_space ps, uint16_t port, union ibv_gid *gid)
{
	struct pollfd pfd;
	ssize_t n = -1;
	int fd, tries = 40;
	bool retry;

	for (;;) {
		retry = false;
		fd = rdv_connect(geteuid(), ps, port, &retry);
		if (fd < 0 && geteuid())
			fd = rdv_connect(0, ps, port, &retry);
		if (fd >= 0)
			break;
		if (!retry || !--tries)
			return false;
		usleep(5000);
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 2000) == 1)
		n = read(fd, gid, sizeof(*gid));
	close(fd);
	return n == (ssize_t)sizeof(*gid);
}

/* The listener's side: answer with the GID of the port it listens on. */
static void rdv_answer(int fd, void *arg)
{
	struct cma_id *c = arg;
	union ibv_gid gid;
	int idx, s = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (s < 0)
		return;
	if (c->port && !cm_addr_loopback(&c->id.route.addr.src_addr))
		gid = c->path.sgid;
	else if (port_gid(c->port ? c->port : &cm_devs[0].ports[0],
			  c->id.route.addr.src_addr.sa_family, &idx, &gid))
		memset(&gid, 0, sizeof(gid));
	if (write(s, &gid, sizeof(gid)) < 0)
		cm_log("rendezvous answer: %s", strerror(errno));
	close(s);
}

int cma_rdv_listen(struct cma_id *c)
{
	if (c->rdv_fd < 0)
		return 0;
	if (listen(c->rdv_fd, 64))
		return errno;
	return cm_watch(c->rdv_fd, rdv_answer, c);
}

/* The port the host routes dst from, by the source address it picks. */
static struct cm_port *route_port(const struct sockaddr *dst, int *idx,
				  int *err)
{
	struct sockaddr_storage src;
	socklen_t len = sizeof(src);
	struct cm_port *p;
	int fd = socket(dst->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	*err = ENETUNREACH;
	if (fd < 0)
		return NULL;
	if (connect(fd, dst, cm_addrlen(dst)) ||
	    getsockname(fd, (struct sockaddr *)&src, &len)) {
		*err = errno == ENETUNREACH ? ENETUNREACH : EHOSTUNREACH;
		close(fd);
		return NULL;
	}
	close(fd);
	p = cm_addr_port((struct sockaddr *)&src, idx);
	if (!p)
		*err = ENODEV;
	return p;
}

/* 127.0.0.1 or ::1: the loopback address programs dial by default. */
static bool loopback_one(const struct sockaddr *a)
{
	const struct in6_addr *a6;

	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_LOOPBACK);
	a6 = &((const struct sockaddr_in6 *)a)->sin6_addr;
	return IN6_IS_ADDR_LOOPBACK(a6) ||
	       (IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127 &&
		!a6->s6_addr[13] && !a6->s6_addr[14] && a6->s6_addr[15] == 1);
}

/*
 * Under the lock, with the rendezvous answer (if any) in rdv. Sets port,
 * sgid and dgid of c; 0 or the errno value an ADDR_ERROR carries.
 */
static int resolve(struct cma_id *c, const struct sockaddr *dst,
		   const union ibv_gid *rdv)
{
	const struct sockaddr *src = &c->id.route.addr.src_addr;
	bool loop = cm_addr_loopback(dst) || cm_addr_any(dst);
	struct cm_port *port, *dp;
	union ibv_gid g;
	int idx = 0, didx = 0, err;

	dp = cm_addr_port(dst, &didx);
	if (c->port && !cm_addr_any(src) && !cm_addr_loopback(src)) {
		port = c->port;
		idx = c->sgid_index;
	} else if (dp) {
		port = dp;
		idx = didx;
	} else if (loop) {
		port = c->port ? c->port : &cm_devs[0].ports[0];
		if (port_gid(port, dst->sa_family, &idx, &g))
			return EADDRNOTAVAIL;
	} else if ((port = route_port(dst, &idx, &err)) == NULL) {
		return err;
	}
	if (ibv_query_gid(port->dev->ctx, port->num, idx, &c->path.sgid))
		return EADDRNOTAVAIL;
	if (dp || !loop)
		cm_addr_to_gid(dst, &c->path.dgid);
	else if (rdv && (rdv->global.subnet_prefix || rdv->global.interface_id))
		c->path.dgid = *rdv;
	else if (!cm_addr_any(dst) && !loopback_one(dst))
		/* Another loopback address may be another process's port:
		 * if nobody has it, the REQ goes unanswered (UNREACHABLE). */
		cm_addr_to_gid(dst, &c->path.dgid);
	else
		/* A listener of ours, or nobody: our own CM answers. */
		c->path.dgid = c->path.sgid;
	c->port = port;
	c->sgid_index = idx;
	return 0;
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      struct sockaddr *dst_addr, int timeout_ms)
{
	struct rdma_addr *ra;
	union ibv_gid rdv;
	bool have_rdv = false;
	struct cma_id *c;
	int err;

	if (!id || !cm_addrlen(dst_addr) ||
	    (src_addr && !cm_addrlen(src_addr)))
		return cm_refuse(EINVAL, "rdma_resolve_addr: NULL id or bad "
				 "address family");
	if (dst_addr->sa_family == AF_IB ||
	    (src_addr && src_addr->sa_family == AF_IB))
		return cm_refuse(EINVAL, "rdma_resolve_addr: AF_IB addresses "
				 "are not supported (doc/rdma-cm.md)");
	(void)timeout_ms; /* resolution is local: it never takes that long */
	c = to_cma(id);
	/* The rendezvous needs the other side's CM thread: ask unlocked. */
	if ((cm_addr_loopback(dst_addr) || cm_addr_any(dst_addr)) &&
	    !cm_addr_port(dst_addr, &err))
		have_rdv = rdv_ask(cma_ps(c), cm_addr_port_num(dst_addr),
				   &rdv);
	cm_lock();
	ra = &id->route.addr;
	if (c->state == CMA_IDLE) {
		struct sockaddr_storage any;

		memset(&any, 0, sizeof(any));
		if (src_addr)
			memcpy(&any, src_addr, cm_addrlen(src_addr));
		else
			any.ss_family = dst_addr->sa_family;
		/* An active id's port needs no rendezvous claim. */
		err = cma_bind(c, (struct sockaddr *)&any, false);
		if (err)
			goto refuse;
	}
	if (c->state != CMA_ADDR_BOUND && c->state != CMA_ADDR_RESOLVED) {
		err = EINVAL;
		goto refuse;
	}
	memcpy(&ra->dst_storage, dst_addr, cm_addrlen(dst_addr));
	err = resolve(c, dst_addr, have_rdv ? &rdv : NULL);
	if (err) {
		if (!cma_post(c, RDMA_CM_EVENT_ADDR_ERROR, -err, NULL, 0))
			goto enomem;
		goto out;
	}
	/* The source: the port's address, or the loopback one dialled. */
	if (cm_addr_any(&ra->src_addr) || cm_addr_loopback(&ra->src_addr)) {
		uint16_t sport = c->bport;

		if (cm_addr_loopback(dst_addr) || cm_addr_any(dst_addr))
			memcpy(&ra->src_storage, dst_addr,
			       cm_addrlen(dst_addr));
		else
			cm_gid_to_addr(&c->path.sgid, dst_addr->sa_family, 0,
				       &ra->src_storage);
		cm_addr_set_port_num(&ra->src_addr, sport);
	}
	id->verbs = c->port->dev->ctx;
	if (!id->pd)
		id->pd = cm_dev_pd(c->port->dev);
	id->port_num = c->port->num;
	memcpy(&ra->addr.ibaddr.sgid, &c->path.sgid, 16);
	memcpy(&ra->addr.ibaddr.dgid, &c->path.dgid, 16);
	ra->addr.ibaddr.pkey = htobe16(0xffff);
	c->state = CMA_ADDR_RESOLVED;
	/* An event the program would wait for in vain: say so now. */
	if (!cma_post(c, RDMA_CM_EVENT_ADDR_RESOLVED, 0, NULL, 0))
		goto enomem;
out:
	cm_unlock();
	return c->sync ? cma_sync_wait(c) : 0;
enomem:
	err = ENOMEM;
refuse:
	cm_unlock();
	return cm_refuse(err, "rdma_resolve_addr: %s", strerror(err));
}

void cma_path_fill(struct cma_id *c, const union ibv_gid *dgid)
{
	struct ibv_sa_path_rec *p = &c->path;

	p->dgid = *dgid;
	p->dlid = htobe16(0xffff);
	p->slid = htobe16(0xffff);
	p->hop_limit = 64;
	p->traffic_class = c->tos;
	p->reversible = 1;
	p->numb_path = 1;
	p->pkey = htobe16(0xffff);
	p->sl = 0;
	p->mtu_selector = 2; /* exactly */
	p->mtu = (uint8_t)c->port->mtu;
	p->rate_selector = 2;
	p->rate = c->port->rate;
	p->packet_life_time_selector = 2;
	p->packet_life_time = CMA_PACKET_LIFETIME;
	c->id.route.path_rec = p;
	c->id.route.num_paths = 1;
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct cma_id *c;

	if (!id)
		return cm_refuse(EINVAL, "rdma_resolve_route: NULL id");
	(void)timeout_ms;
	c = to_cma(id);
	cm_lock();
	if (c->state != CMA_ADDR_RESOLVED && c->state != CMA_ROUTE_RESOLVED) {
		cm_unlock();
		return cm_refuse(EINVAL, "rdma_resolve_route: address not "
				 "resolved");
	}
	cma_path_fill(c, &c->path.dgid);
	c->state = CMA_ROUTE_RESOLVED;
	if (!cma_post(c, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0)) {
		cm_unlock();
		return cm_refuse(ENOMEM, "rdma_resolve_route: no memory for "
				 "the event");
	}
	cm_unlock();
	return c->sync ? cma_sync_wait(c) : 0;
}
