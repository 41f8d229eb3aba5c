/* The device registry and each device's life: building ports, endpoints and
 * GID tables from the config, opening contexts, and raising device events. */
#include <errno.h>
#include <stdatomic.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "emu/base/engine.h"
#include "emu/base/handle.h"
#include "emu/base/log.h"
#include "emu/device/device.h"
#include "emu/device/netlink.h"
#include "emu/device/observer.h"

static struct emu_device *registry[EMU_MAX_DEVICES];
static unsigned int registry_len;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static int registry_built;

/* Contexts are linked and unlinked under ctx_lock alone, so an event raised
 * on the engine thread never waits for an open or close in progress. */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

static void report(FILE *errf, const struct emu_device_config *cfg,
		   uint32_t port, const char *what, int err)
{
	if (!errf)
		return;
	if (port)
		fprintf(errf, "emuverbs: device %s: port %u: %s: %s\n",
			cfg->name, port, what, strerror(err));
	else
		fprintf(errf, "emuverbs: device %s: %s: %s\n", cfg->name,
			what, strerror(err));
}

/* The interface that owns an address, so GID entries carry the ndev_ifindex
 * a RoCE NIC reports; 0 when no interface has it. */
static uint32_t ifindex_of_addr(const struct in6_addr *a)
{
	struct ifaddrs *ifa, *i;
	uint32_t idx = 0;

	if (emu_addr_is_v4mapped(a) && a->s6_addr[12] == 127)
		return if_nametoindex("lo");
	if (getifaddrs(&ifa))
		return 0;
	for (i = ifa; i && !idx; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET &&
		    emu_addr_is_v4mapped(a) &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
			    a->s6_addr32[3])
			idx = if_nametoindex(i->ifa_name);
		if (i->ifa_addr->sa_family == AF_INET6 &&
		    !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			    a, sizeof(*a)))
			idx = if_nametoindex(i->ifa_name);
	}
	freeifaddrs(ifa);
	return idx;
}

void emu_port_gid_changed(struct emu_port *port)
{
	struct ibv_async_event ev = {
		.element.port_num = (int)port->num,
		.event_type = IBV_EVENT_GID_CHANGE,
	};

	EMU_PUBLISH(port, port, "gid");
	emu_device_broadcast(port->dev, &ev);
}

/* The netlink follower's callback. */
static void gid_changed(void *arg)
{
	emu_port_gid_changed(arg);
}

/* Bytes a RoCEv2 packet adds around its payload at most: IPv6 (the larger
 * IP header), UDP, BTH, a RETH (the largest extension before payload) and
 * the ICRC. A payload of the path MTU must fit the interface's MTU with
 * these, or the kernel refuses the DF datagram. */
#define EMU_ROCE_OVERHEAD (40 + 8 + 12 + 16 + 4)

/* The largest IB MTU (256..4096) a frame of the interface can carry, or 0
 * when the interface's MTU cannot be read. */
static uint32_t netdev_ib_mtu(const char *ifname)
{
	struct ifreq ifr = { 0 };
	uint32_t mtu;
	int fd, rc;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	rc = ioctl(fd, SIOCGIFMTU, &ifr);
	close(fd);
	if (rc || ifr.ifr_mtu <= EMU_ROCE_OVERHEAD)
		return 0;
	for (mtu = 4096; mtu > 256; mtu /= 2)
		if (mtu + EMU_ROCE_OVERHEAD <= (uint32_t)ifr.ifr_mtu)
			break;
	return mtu;
}

/* Said once per process: why loopback ports left 4791. */
static atomic_bool fallback_said;

/*
 * The UDP port a port binds, where a loaded kernel rdma_rxe may hold 4791
 * on the wildcard address. Ports whose peers can only be emuverbs
 * processes (loopback) then meet on EMU_ROCE_FALLBACK_PORT, as every
 * process on the machine decides alike; ports that may face a kernel or
 * NIC peer, which answers on 4791 only, cannot start (bind_failed says
 * so). A udp_port set in the configuration is taken as it is.
 */
static uint16_t udp_port_for(struct emu_port *port, FILE *errf)
{
	const struct emu_port_config *pc = &port->cfg;
	bool loopback = !pc->netdev[0] &&
			(!pc->has_address || emu_addr_is_loopback(&pc->address));

	if (pc->udp_port_set || !loopback ||
	    !emu_endpoint_port_held(EMU_ROCE_UDP_PORT))
		return pc->udp_port;
	if (errf && !atomic_exchange(&fallback_said, true))
		fprintf(errf, "emuverbs: UDP %u is held by another RoCE stack "
			"(kernel rdma_rxe loaded?): loopback ports meet on "
			"UDP %u instead (decode captures with tshark -d "
			"udp.port==%u,infiniband)\n", EMU_ROCE_UDP_PORT,
			EMU_ROCE_FALLBACK_PORT, EMU_ROCE_FALLBACK_PORT);
	return EMU_ROCE_FALLBACK_PORT;
}

static void bind_failed(FILE *errf, struct emu_port *port, const char *what,
			uint16_t udp, int rc)
{
	char msg[256];

	if (rc == EADDRINUSE && emu_endpoint_port_held(udp)) {
		snprintf(msg, sizeof(msg), "%s: UDP %u is held by another "
			 "RoCE stack on every address (kernel rdma_rxe "
			 "loaded?); a kernel or NIC peer answers only there, "
			 "so this port cannot start (udp_port = N meets "
			 "emuverbs peers on another port)", what, udp);
		what = msg;
	}
	report(errf, &port->dev->cfg, port->num, what, rc);
}

/* An InfiniBand port: its GID is the link-local one of its GUID (no IP
 * address in the table, as on an IB HCA), its LID the subnet's. */
static int port_join_subnet(struct emu_port *port, FILE *errf)
{
	uint8_t gid[16];
	int rc;

	emu_subnet_port_gid(port, gid);
	rc = emu_gid_table_set_static(&port->gids, 0, gid, IBV_GID_TYPE_IB,
				      0);
	if (rc) {
		report(errf, &port->dev->cfg, port->num, "port GID", rc);
		return rc;
	}
	return emu_subnet_join(port, errf);
}

static int port_setup_endpoint(struct emu_port *port, FILE *errf)
{
	const struct emu_port_config *pc = &port->cfg;
	uint16_t udp = udp_port_for(port, errf);
	uint32_t mtu;
	int rc;

	port->ep.fd = -1;
	/* net/ answers with errnos negated, as the kernel's socket calls
	 * do; here they turn positive, as emu/ returns them. */
	if (pc->netdev[0]) {
		rc = -emu_endpoint_bind_netdev(&port->ep, pc->netdev, udp);
		if (rc) {
			bind_failed(errf, port, "cannot bind to netdev", udp,
				    rc);
			return rc;
		}
		port->nl = emu_nl_open(pc->netdev, &port->gids, gid_changed,
				       port, &rc);
		if (!port->nl) {
			report(errf, &port->dev->cfg, port->num,
			       "cannot follow netdev addresses", rc);
			return rc;
		}
		port->ndev_ifindex = emu_nl_ifindex(port->nl);
		/* As rdma_rxe does: the port's MTU is what the interface
		 * carries, whatever larger value the config asked for. */
		mtu = netdev_ib_mtu(pc->netdev);
		if (mtu && mtu < port->cfg.mtu)
			port->cfg.mtu = mtu;
		return 0;
	}
	if (pc->has_address)
		rc = -emu_endpoint_bind_addr(&port->ep, &pc->address, udp);
	else
		rc = -emu_endpoint_claim_loopback(&port->ep, udp);
	if (rc) {
		bind_failed(errf, port, pc->has_address ?
			    "cannot bind address" :
			    "cannot claim a loopback address", udp, rc);
		return rc;
	}
	port->ndev_ifindex = ifindex_of_addr(&port->ep.addr);
	if (pc->link_layer == IBV_LINK_LAYER_INFINIBAND)
		return port_join_subnet(port, errf);
	/* Static GIDs may have taken every pair: a port that cannot name
	 * its own address is unusable, so say so rather than limp on. */
	if (!emu_gid_table_add_addr(&port->gids, &port->ep.addr,
				    port->ndev_ifindex)) {
		report(errf, &port->dev->cfg, port->num,
		       "no free GID pair for the endpoint address", ENOSPC);
		return ENOSPC;
	}
	return 0;
}

static int port_init(struct emu_device *dev, uint32_t num, FILE *errf)
{
	struct emu_port *port = &dev->ports[num - 1];
	unsigned int i;
	int rc;

	port->dev = dev;
	port->num = num;
	port->cfg = dev->cfg.ports[num - 1];
	port->ep.fd = -1;
	pthread_mutex_init(&port->sn.lock, NULL);
	atomic_store(&port->state, port->cfg.active ? IBV_PORT_ACTIVE :
						      IBV_PORT_DOWN);
	rc = emu_gid_table_init(&port->gids, num, port->cfg.gid_tbl_len);
	if (rc) {
		report(errf, &dev->cfg, num, "GID table", rc);
		return rc;
	}
	/* Static entries first, so the endpoint's pair lands around them. */
	for (i = 0; i < port->cfg.n_static_gids; i++) {
		const struct emu_static_gid *sg = &port->cfg.static_gids[i];

		rc = emu_gid_table_set_static(&port->gids, sg->index, sg->raw,
					      sg->type, 0);
		if (rc) {
			report(errf, &dev->cfg, num, "static GID", rc);
			return rc;
		}
	}
	return port_setup_endpoint(port, errf);
}

static void port_fini(struct emu_port *port)
{
	emu_subnet_leave(port);
	if (port->nl)
		emu_nl_close(port->nl);
	port->nl = NULL;
	emu_endpoint_close(&port->ep);
	if (port->gids.slots)
		emu_gid_table_fini(&port->gids);
}

/* A node GUID from the endpoint address: 02:'e':'m':'u' then the IPv4
 * address (or a hash of the IPv6 one), unique per host on the wire and
 * recognisable in captures. */
static uint64_t guid_from_addr(const struct in6_addr *a, unsigned int index)
{
	uint64_t g = 0x02656d7500000000ull;
	uint32_t low = 0;
	unsigned int i;

	if (emu_addr_is_v4mapped(a)) {
		low = ntohl(a->s6_addr32[3]);
	} else {
		low = 2166136261u;
		for (i = 0; i < 16; i++)
			low = (low ^ a->s6_addr[i]) * 16777619u;
		low ^= index;
	}
	return g | low;
}

struct emu_device *emu_device_create(const struct emu_device_config *cfg,
				     unsigned int index, FILE *errf)
{
	struct emu_device *dev;
	const char *what = "";
	uint32_t i;
	int rc;

	if (cfg->nports < 1 || cfg->nports > EMU_MAX_PORTS) {
		report(errf, cfg, 0, "port count out of range", EINVAL);
		return NULL;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		report(errf, cfg, 0, "cannot allocate", ENOMEM);
		return NULL;
	}
	dev->cfg = *cfg;
	dev->index = index;
	atomic_init(&dev->busy_gen, EMU_FORK_NONE);
	dev->nports = cfg->nports;
	pthread_mutex_init(&dev->lock, NULL);
	pthread_cond_init(&dev->ctl_done, NULL);
	for (i = 0; i < EMU_MAX_PORTS; i++)
		dev->ports[i].ep.fd = -1;
	for (i = 1; i <= dev->nports; i++) {
		if (port_init(dev, i, errf)) {
			emu_device_destroy(dev);
			return NULL;
		}
	}
	dev->node_guid = cfg->node_guid ? cfg->node_guid :
		guid_from_addr(&dev->ports[0].ep.addr, index);
	if (!cfg->node_guid && dev->ports[0].nl)
		dev->node_guid = guid_from_addr(&dev->ports[0].ep.addr,
						dev->ports[0].ndev_ifindex);
	dev->sys_image_guid = cfg->sys_image_guid ? cfg->sys_image_guid :
						    dev->node_guid;

	dev->ibdev.node_type = IBV_NODE_CA;
	dev->ibdev.transport_type = IBV_TRANSPORT_IB;
	snprintf(dev->ibdev.name, sizeof(dev->ibdev.name), "%s", cfg->name);
	snprintf(dev->ibdev.dev_name, sizeof(dev->ibdev.dev_name), "uverbs%u",
		 index);
	/* Paths a kernel device would have; nothing exists there, so any
	 * program reading sysfs through them gets a clean ENOENT. */
	snprintf(dev->ibdev.dev_path, sizeof(dev->ibdev.dev_path),
		 "/sys/class/infiniband_verbs/uverbs%u", index);
	snprintf(dev->ibdev.ibdev_path, sizeof(dev->ibdev.ibdev_path),
		 "/sys/class/infiniband/%s", cfg->name);
	/* The rooms above keep their per-device state: key, QPN and SRQN
	 * tables, the transport's. */
	rc = emu_publish_made(dev, &what);
	if (rc) {
		report(errf, cfg, 0, what, rc);
		emu_device_destroy(dev);
		return NULL;
	}
	dev->made = true;
	return dev;
}

void emu_device_destroy(struct emu_device *dev)
{
	uint32_t i;

	if (!dev)
		return;
	for (i = 0; i < dev->nports; i++)
		port_fini(&dev->ports[i]);
	if (dev->made)
		EMU_PUBLISH_UNDO(unmade, dev);
	pthread_mutex_destroy(&dev->lock);
	pthread_cond_destroy(&dev->ctl_done);
	free(dev);
}

struct emu_port *emu_device_port(struct emu_device *dev, uint32_t port_num)
{
	if (!dev || port_num < 1 || port_num > dev->nports)
		return NULL;
	return &dev->ports[port_num - 1];
}

void emu_device_run(struct emu_device *dev, void (*fn)(void *), void *arg)
{
	struct emu_engine *engine;

	/* Already in the engine (a scheduled event changing a port): run
	 * here, and never take dev->lock, which a thread closing the device
	 * holds while it waits for this engine to stop. */
	engine = dev->engine;
	if (engine && emu_engine_on_thread(engine)) {
		fn(arg);
		return;
	}
	pthread_mutex_lock(&dev->lock);
	engine = dev->engine;
	pthread_mutex_unlock(&dev->lock);
	if (engine)
		emu_engine_call(engine, fn, arg);
	else
		fn(arg);
}

int emu_registry_init_from(const struct emu_config *cfg, FILE *errf)
{
	unsigned int i;
	int problems = 0;

	pthread_mutex_lock(&registry_lock);
	if (registry_built) {
		pthread_mutex_unlock(&registry_lock);
		return 0;
	}
	for (i = 0; i < cfg->ndevices; i++) {
		struct emu_device *dev =
			emu_device_create(&cfg->devices[i], registry_len, errf);

		if (dev)
			registry[registry_len++] = dev;
		else
			problems++;
	}
	/* Discovery claimed the endpoints: the GIDs the view shows are
	 * known from here on (doc/ucx.md); each device takes its fault
	 * rules. */
	for (i = 0; i < registry_len; i++)
		EMU_PUBLISH(listed, registry[i], cfg);
	registry_built = 1;
	pthread_mutex_unlock(&registry_lock);
	return problems;
}

int emu_registry_get(struct emu_device ***devices, unsigned int *n)
{
	pthread_mutex_lock(&registry_lock);
	if (!registry_built) {
		struct emu_config *cfg = malloc(sizeof(*cfg));

		pthread_mutex_unlock(&registry_lock);
		if (!cfg)
			return ENOMEM;
		emu_config_load(cfg, stderr);
		emu_registry_init_from(cfg, stderr);
		free(cfg);
		pthread_mutex_lock(&registry_lock);
	}
	*devices = registry;
	*n = registry_len;
	pthread_mutex_unlock(&registry_lock);
	return 0;
}

static void nl_readable(void *arg)
{
	emu_nl_process(arg);
}

static int engine_up(struct emu_device *dev)
{
	struct emu_watch *w;
	uint32_t i;
	int rc;

	rc = emu_engine_start(&dev->engine);
	if (rc)
		return rc;
	for (i = 0; i < dev->nports; i++) {
		struct emu_port *port = &dev->ports[i];

		if (!port->nl)
			continue;
		/* Catch up with changes made while nobody had the device
		 * open; no context exists yet to be told about them. */
		emu_nl_process(port->nl);
		w = emu_engine_watch_fd(dev->engine, emu_nl_fd(port->nl),
					nl_readable, port->nl);
		if (!w)
			return ENOMEM;
		port->nl_watch = w;
	}
	rc = emu_publish_start(dev);
	dev->started = !rc;
	return rc;
}

static void engine_down(struct emu_device *dev)
{
	uint32_t i;

	if (!dev->engine)
		return;
	for (i = 0; i < dev->nports; i++) {
		emu_engine_unwatch(dev->engine, dev->ports[i].nl_watch);
		dev->ports[i].nl_watch = NULL;
	}
	if (dev->started)
		EMU_PUBLISH_UNDO(stop, dev);
	dev->started = false;
	emu_engine_stop(dev->engine);
	dev->engine = NULL;
	atomic_store(&dev->busy_gen, EMU_FORK_NONE);
}

struct emu_context *emu_context_open(struct emu_device *dev)
{
	struct emu_context *ctx;
	unsigned int busy;
	int rc;

	/* Checked before dev->lock, which a thread of the parent may have
	 * held when it forked: the child never takes it. */
	emu_fork_watch();
	busy = atomic_load(&dev->busy_gen);
	if (busy != EMU_FORK_NONE && emu_fork_inherited(busy)) {
		errno = emu_refuse(EIO, "ibv_open_device: %s is open in the "
				   "parent process, whose engine and sockets "
				   "it runs on: a fork() child cannot open "
				   "it", dev->ibdev.name);
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}
	rc = emu_async_init(&ctx->async);
	if (rc) {
		free(ctx);
		errno = rc;
		return NULL;
	}
	ctx->dev = dev;
	ctx->fork_gen = emu_fork_gen;
	pthread_mutex_lock(&dev->lock);
	if (!dev->open_count) {
		rc = engine_up(dev);
		if (rc) {
			engine_down(dev);
			pthread_mutex_unlock(&dev->lock);
			emu_async_fini(&ctx->async);
			free(ctx);
			errno = rc;
			return NULL;
		}
		atomic_store(&dev->busy_gen, emu_fork_gen);
	}
	dev->open_count++;
	pthread_mutex_lock(&ctx_lock);
	ctx->next = dev->contexts;
	dev->contexts = ctx;
	pthread_mutex_unlock(&ctx_lock);
	pthread_mutex_unlock(&dev->lock);
	/* Processes sharing one view each show themselves when they open
	 * the device, as they did when they discovered it. */
	EMU_PUBLISH(opened, dev);
	return ctx;
}

void emu_context_close(struct emu_context *ctx)
{
	struct emu_device *dev = ctx->dev;
	struct emu_context **pp;

	pthread_mutex_lock(&dev->lock);
	pthread_mutex_lock(&ctx_lock);
	for (pp = &dev->contexts; *pp; pp = &(*pp)->next) {
		if (*pp == ctx) {
			*pp = ctx->next;
			break;
		}
	}
	pthread_mutex_unlock(&ctx_lock);
	if (--dev->open_count == 0) {
		/* A control command using the device finishes first. */
		while (dev->ctl_holds)
			pthread_cond_wait(&dev->ctl_done, &dev->lock);
		engine_down(dev);
	}
	pthread_mutex_unlock(&dev->lock);
	/* Objects left open lose their handles with it, as the kernel's
	 * file takes its objects along when it is closed. */
	emu_handle_forget(ctx);
	emu_async_fini(&ctx->async);
	free(ctx);
	EMU_PUBLISH_UNDO(closed, dev);
}

void emu_device_broadcast(struct emu_device *dev,
			  const struct ibv_async_event *ev)
{
	struct emu_context *c;

	pthread_mutex_lock(&ctx_lock);
	for (c = dev->contexts; c; c = c->next)
		emu_async_push(&c->async, ev);
	pthread_mutex_unlock(&ctx_lock);
}

/* The engine's to count (link_downed), as every counter is. */
static void went_down(void *arg)
{
	struct emu_port *port = arg;

	EMU_PUBLISH(port_engine, port, "down");
}

int emu_port_set_state(struct emu_port *port, int ibv_port_state)
{
	struct ibv_async_event ev = { .element.port_num = (int)port->num };
	int old;

	if (ibv_port_state != IBV_PORT_ACTIVE &&
	    ibv_port_state != IBV_PORT_DOWN)
		return EINVAL;
	old = atomic_exchange(&port->state, ibv_port_state);
	if (old == ibv_port_state)
		return 0;
	if (ibv_port_state == IBV_PORT_DOWN)
		emu_device_run(port->dev, went_down, port);
	ev.event_type = ibv_port_state == IBV_PORT_ACTIVE ? IBV_EVENT_PORT_ACTIVE
							  : IBV_EVENT_PORT_ERR;
	/* The view first: a program woken by the event reads the new state. */
	EMU_PUBLISH(port, port, "state");
	emu_device_broadcast(port->dev, &ev);
	return 0;
}

struct change_call {
	struct emu_port *port;
	const struct emu_port_config *cfg;
};

static void do_change(void *arg)
{
	struct change_call *c = arg;
	struct emu_port *port = c->port;

	port->cfg.speed = c->cfg->speed;
	port->cfg.width = c->cfg->width;
	port->cfg.latency_us = c->cfg->latency_us;
	port->cfg.jitter_us = c->cfg->jitter_us;
	port->cfg.jitter = c->cfg->jitter;
	port->cfg.link_seed = c->cfg->link_seed;
	port->cfg.ecn_threshold = c->cfg->ecn_threshold;
	port->cfg.cnp_interval_us = c->cfg->cnp_interval_us;
	port->cfg.dcqcn = c->cfg->dcqcn;
	port->cfg.dcqcn_cfg = c->cfg->dcqcn_cfg;
	EMU_PUBLISH(port_engine, port, "link");
}

int emu_port_change(struct emu_port *port, const char *settings, char *err,
		    size_t errlen)
{
	struct emu_port_config cfg = port->cfg;
	struct change_call c = { port, &cfg };
	char buf[256], *w, *eq, *save = NULL;
	bool state_set = false;
	int state;

	if (strlen(settings) >= sizeof(buf)) {
		snprintf(err, errlen, "too long");
		return EINVAL;
	}
	strcpy(buf, settings);
	cfg.active = atomic_load(&port->state) == IBV_PORT_ACTIVE;
	/* All or nothing: every key is checked before anything changes. */
	for (w = strtok_r(buf, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		eq = strchr(w, '=');
		if (!eq) {
			snprintf(err, errlen, "%s is not key=value", w);
			return EINVAL;
		}
		*eq = '\0';
		if (emu_port_config_set_live(&cfg, w, eq + 1, err, errlen))
			return EINVAL;
		state_set |= !strcasecmp(w, "state");
	}
	emu_device_run(port->dev, do_change, &c);
	/* The view first, then the event: a program woken by it reads the
	 * new speed and state. */
	EMU_PUBLISH(port, port, "link");
	if (state_set) {
		state = cfg.active ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
		emu_port_set_state(port, state);
	}
	if (err && errlen)
		err[0] = '\0';
	return 0;
}
