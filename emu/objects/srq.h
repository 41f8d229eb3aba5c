/* Shared receive queues (basic and XRC), the per-device SRQ-number table,
 * and XRC domains with their inode-keyed sharing inside the process. */
#ifndef EMU_SRQ_H
#define EMU_SRQ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>

#include "emu/objects/qp.h"

struct emu_context;
struct emu_device;
struct emu_pd;
struct emu_cq;
struct emu_tm;

/*
 * An XRC domain. Without a kernel, "sharing through a file" can only mean
 * sharing inside this process: every ibv_open_xrcd() on one device with an
 * fd whose (st_dev, st_ino) is the same reaches the same domain, whichever
 * context opens it. Another process opening the same file gets a domain of
 * its own (its XRC SRQs and target QPs live in its own emulated HCA), so
 * ibv_open_qp() finds only target QPs this process created.
 */
struct emu_xrcd_dom {
	struct emu_device *dev;
	bool has_inode;
	dev_t st_dev;
	ino_t st_ino;
	unsigned int opens;		/* handles (under the global lock) */
	atomic_uint users;		/* XRC SRQs and target QPs in it */
	struct emu_xrcd_dom *next;
};

/* One ibv_open_xrcd() handle on a domain. */
struct emu_xrcd {
	struct ibv_xrcd ibv;
	struct emu_xrcd_dom *dom;
};

static inline struct emu_xrcd *to_emu_xrcd(struct ibv_xrcd *x)
{
	return (struct emu_xrcd *)x;
}

struct emu_srq {
	struct ibv_srq ibv;		/* must stay first */
	struct emu_context *ctx;
	struct emu_device *dev;
	struct emu_pd *pd;
	struct emu_pdom *pdom;		/* its ring's allocator, or NULL */
	struct emu_cq *cq;		/* XRC: where its receives complete */
	struct emu_xrcd_dom *xrcd;	/* XRC: its domain */
	enum ibv_srq_type type;
	uint32_t srqn;			/* 24 bits, unique on the device */
	uint32_t max_sge;		/* as created (slot size) */
	uint32_t max_wr;		/* capacity, under lock */
	/* Posters take rq.lock; the engine thread alone consumes. */
	struct emu_wq rq;
	pthread_mutex_t lock;		/* modify, query, destroy */
	/* The armed limit, 0 when disarmed: the engine disarms it with a
	 * compare-and-swap, so one arming raises exactly one event. */
	_Atomic uint32_t limit;
	atomic_int users;		/* QPs associated with it */
	uint32_t events_raised;		/* engine thread and destroy */
	bool in_table;
	struct emu_tm *tm;		/* IBV_SRQT_TM: its tag list */
};

static inline struct emu_srq *to_emu_srq(struct ibv_srq *s)
{
	return (struct emu_srq *)s;
}

/* Bytes of a receive WQE holding max_sge SGEs: what a QP reserves to
 * hold the WQE it took from any SRQ of the device. */
size_t emu_srq_wqe_size(uint32_t max_sge);

/* The device's SRQN -> SRQ map, created and freed with the device. */
int emu_srq_table_create(struct emu_device *dev);
void emu_srq_table_destroy(struct emu_device *dev);

/* What a new SRQ is made of; the verbs front end has checked it. */
struct emu_srq_attr {
	enum ibv_srq_type type;
	void *srq_context;
	struct emu_pd *pd;
	struct emu_pdom *pdom;		/* made on a parent domain, or NULL */
	struct emu_cq *cq;		/* XRC only */
	struct emu_xrcd *xrcd;		/* XRC only */
	uint32_t max_wr;		/* in: asked; out: made (>=) */
	uint32_t max_sge;
	uint32_t max_num_tags;		/* TM only */
	uint32_t max_ops;		/* TM only */
};

/* 0 and *out, or a positive errno (ENOMEM: no memory or max_srq live). */
int emu_srq_create(struct emu_context *ctx, struct emu_srq_attr *attr,
		   struct emu_srq **out);
/* 0, or EBUSY while a QP is associated (nothing changes then). */
int emu_srq_destroy(struct emu_srq *srq);
/* IBV_SRQ_MAX_WR grows or shrinks the ring keeping what is posted
 * (EINVAL below the posted count or past the device limit); IBV_SRQ_LIMIT
 * arms (EINVAL above max_wr). Nothing changes on an error. */
int emu_srq_modify(struct emu_srq *srq, const struct ibv_srq_attr *attr,
		   int mask);
void emu_srq_query(struct emu_srq *srq, struct ibv_srq_attr *attr);
int emu_srq_post_recv(struct emu_srq *srq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

static inline void emu_srq_get(struct emu_srq *srq)
{
	atomic_fetch_add(&srq->users, 1);
}

static inline void emu_srq_put(struct emu_srq *srq)
{
	atomic_fetch_sub(&srq->users, 1);
}

/* ---- engine thread ---- */

/* The live SRQ with this number, or NULL. */
static inline struct emu_srq *emu_srq_lookup(struct emu_device *dev,
					     uint32_t srqn)
{
	return emu_numtab_lookup(&dev->srqs, srqn);
}

/* IBV_EVENT_SRQ_ERR on the SRQ's context (an injected fault; engine). */
void emu_srq_fail(struct emu_srq *srq);

/* Take the oldest WQE into dst (emu_srq_wqe_size(srq->max_sge) bytes):
 * false when the SRQ is empty. Raises IBV_EVENT_SRQ_LIMIT_REACHED when
 * this leaves fewer WQEs than an armed limit, and disarms it. */
bool emu_srq_take(struct emu_srq *srq, struct emu_rwqe *dst);
/* Whether a WQE is posted (a take would succeed): only the engine takes,
 * so the answer holds until it does. */
bool emu_srq_has_wqe(struct emu_srq *srq);

/* XRC domains. */
int emu_xrcd_open(struct emu_context *ctx,
		  const struct ibv_xrcd_init_attr *attr,
		  struct emu_xrcd **out);
/* 0, or EBUSY when this is the domain's last handle and an XRC SRQ or
 * target QP still lives in it. */
int emu_xrcd_close(struct emu_xrcd *x);

#endif
