/* The emulated HCA as this process sees it: the device registry built from
 * the configuration, each device's ports, and its open contexts. */
#ifndef EMU_DEVICE_H
#define EMU_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "emu/device/async.h"
#include "emu/device/config.h"
#include "emu/device/dev_count.h"
#include "emu/base/fork.h"
#include "emu/device/gid.h"
#include "emu/base/numtab.h"
#include "emu/device/subnet.h"
#include "net/endpoint.h"

struct emu_nl;
struct emu_engine;
struct emu_watch;
struct emu_device;
struct emu_mr_table;
struct emu_transport;
struct emu_qp;

struct emu_port {
	struct emu_device *dev;
	uint32_t num;			/* 1-based, as verbs number ports */
	struct emu_port_config cfg;
	_Atomic int state;		/* enum ibv_port_state */
	struct emu_gid_table gids;
	struct emu_endpoint ep;
	struct emu_nl *nl;		/* netdev-bound ports follow rtnetlink */
	struct emu_watch *nl_watch;	/* the engine's watch on nl's fd */
	uint32_t ndev_ifindex;
	/* Its QP1 (the GSI), outside dev->qps: every port has its own QP
	 * number 1 (emu/objects/qp.c). */
	struct emu_qp *gsi;
	/* An InfiniBand port's LID, and its view of the subnet. */
	uint16_t lid;
	struct emu_subnet_cache sn;
};

/* Per-open state: what ibv_open_device returns, through vctx.context. */
struct emu_context {
	struct verbs_context vctx;	/* must stay first: see emu_ctx() */
	unsigned int fork_gen;		/* emu_fork_gen when opened */
	struct emu_device *dev;
	struct emu_async async;
	struct emu_context *next;	/* dev->contexts list */
};

/* Whether ctx is the parent's, inherited by this fork() child: a verb on
 * it fails with EIO and sends nothing (emu/base/fork.h). One compare, for the
 * data path. */
static inline bool emu_ctx_inherited(const struct emu_context *ctx)
{
	return emu_fork_inherited(ctx->fork_gen);
}

struct emu_device {
	struct ibv_device ibdev;	/* handed out by ibv_get_device_list */
	/* Where rdma-core keeps a provider's ops right after ibv_device:
	 * mlx5dv_is_supported() and friends read it, so it must be NULL. */
	const void *provider_ops;
	struct emu_device_config cfg;
	unsigned int index;
	uint64_t node_guid;		/* host order */
	uint64_t sys_image_guid;
	unsigned int nports;
	struct emu_port ports[EMU_MAX_PORTS];

	struct emu_mr_table *mrs;	/* lkey/rkey -> MR (emu/objects/mr.c) */
	struct emu_dev_counts counts;	/* PDs, AHs, CQs (emu/device/dev_count.c) */
	struct emu_numtab qps;		/* QPN -> QP (emu/objects/qp.c) */
	struct emu_numtab srqs;		/* SRQN -> SRQ (emu/objects/srq.c) */
	struct emu_transport *tr;	/* the engines' (emu/transport/tport.h) */
	/* Its observers made their state (emu/device/observer.h), and the
	 * engine's work started. */
	bool made, started;

	pthread_mutex_t lock;		/* contexts, engine, open_count */
	struct emu_context *contexts;
	unsigned int open_count;
	struct emu_engine *engine;
	/* The fork generation whose engine runs the device, EMU_FORK_NONE
	 * while none does: a fork() child cannot open a device its parent
	 * had open (the engine, the sockets are the parent's). */
	_Atomic unsigned int busy_gen;
	/* Control commands acting on the device (emu/observe/ctl.h): the last close
	 * waits for them before it stops the engine. */
	unsigned int ctl_holds;
	pthread_cond_t ctl_done;
};

static inline struct emu_context *emu_ctx(struct ibv_context *c)
{
	return (struct emu_context *)((char *)c -
				      offsetof(struct emu_context, vctx.context));
}

static inline struct emu_device *emu_dev(struct ibv_device *d)
{
	return (struct emu_device *)d;
}

/* Run fn(arg) on the device's engine thread, or here when it has none
 * (then nothing can be using the state fn touches either). */
void emu_device_run(struct emu_device *dev, void (*fn)(void *), void *arg);

/* The registry: built once per process from emu_config_load(); problems are
 * reported on stderr, one line each, and the device concerned left out.
 * 0 and the devices, or a positive errno (ENOMEM). */
int emu_registry_get(struct emu_device ***devices, unsigned int *n);
/* Build the registry from an explicit config (tests); replaces nothing if
 * one exists already. */
int emu_registry_init_from(const struct emu_config *cfg, FILE *errf);

/* One device from its config; NULL and a message on errf on failure. */
struct emu_device *emu_device_create(const struct emu_device_config *cfg,
				     unsigned int index, FILE *errf);
void emu_device_destroy(struct emu_device *dev);

struct emu_port *emu_device_port(struct emu_device *dev, uint32_t port_num);

/* Opening and closing: the first open starts the engine, the last close
 * stops it. */
struct emu_context *emu_context_open(struct emu_device *dev);
void emu_context_close(struct emu_context *ctx);

/* Raise an async event on every open context of the device. */
void emu_device_broadcast(struct emu_device *dev,
			  const struct ibv_async_event *ev);

/* Port state at run time: raises PORT_ACTIVE / PORT_ERR when it changes. */
int emu_port_set_state(struct emu_port *port, int ibv_port_state);
/* The port's GID table changed: the view, then IBV_EVENT_GID_CHANGE. */
void emu_port_gid_changed(struct emu_port *port);

/* Change a running port: "key=value ..." of state, speed, width,
 * latency_us, jitter_us, jitter and link_seed, all checked before any
 * applies; queries, the pacer and the delay follow, and a state change
 * raises PORT_ERR or PORT_ACTIVE. 0, or EINVAL with "key: why" in err. */
int emu_port_change(struct emu_port *port, const char *settings, char *err,
		    size_t errlen);

/* A port's P_Key table as ibv_query_pkey reports it: the default
 * full-member key at index 0, every other slot empty. */
static inline uint16_t emu_port_pkey(const struct emu_port *port,
				     unsigned int index)
{
	(void)port;
	return index == 0 ? 0xffff : 0;
}

/* Attribute snapshots in verbs encodings. */
void emu_device_fill_attr(struct emu_device *dev, struct ibv_device_attr *a);
void emu_port_fill_attr(struct emu_port *port, struct ibv_port_attr *a);
void emu_device_fill_attr_ex(struct emu_device *dev,
			     struct ibv_device_attr_ex *a);

#endif
