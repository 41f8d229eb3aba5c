/* cm/core.h: what the connection manager's files share: the process-wide
 * lock and CM thread, the devices and their QP1s, event channels and
 * events, and the private side of an rdma_cm_id with its IBTA CM state. */
#ifndef CM_CORE_H
#define CM_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cm/mad.h"
#include "emu/base/log.h"

#define cm_log(...) emu_log(EMU_LOG_CM, __VA_ARGS__)
/* A refusal: logs why, evaluates to -1 with errno = err. */
#define cm_refuse(err, ...) (cm_log(__VA_ARGS__), cm_err(err))

#ifndef container_of
#define container_of(p, type, member)                                     \
	((type *)((char *)(p) - offsetof(type, member)))
#endif

/* ---- The lock and the CM thread (core.c) */

/*
 * One lock guards every id, channel, port and timer: the API takes it, the
 * CM thread takes it to handle a MAD or a timer. Nothing blocks while
 * holding it: waiting for an event happens on the channel's descriptor.
 */
void cm_lock(void);
void cm_unlock(void);

/* Start the CM thread if it is not running; 0 or an errno value. */
int cm_thread_start(void);
/* Watch fd for input: fn(fd, arg) runs on the CM thread, under the lock. */
int cm_watch(int fd, void (*fn)(int fd, void *arg), void *arg);
void cm_unwatch(int fd);
/* Wake the CM thread so that it looks at the timers again. */
void cm_kick(void);
uint64_t cm_now_ns(void);

/* ---- Devices and QP1 (gsi.c) */

struct cm_dev;

#define CM_GSI_RECVS	64
#define CM_GSI_SENDS	64
#define CM_GRH_LEN	40

struct cm_port {
	struct cm_dev *dev;
	uint8_t num;
	enum ibv_mtu mtu;		/* active MTU */
	uint8_t rate;			/* IBTA rate code */
	int gid_tbl_len;
	/* QP1, made the first time the port is used. */
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;			/* recvs, then sends */
	struct ibv_ah *send_ah[CM_GSI_SENDS];
	unsigned int send_head, send_busy;
	uint64_t dropped;		/* MADs refused on receipt */
};

struct cm_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;		/* rdma_create_qp's default */
	struct ibv_xrcd *xrcd;		/* and XRC's */
	uint8_t max_resp_res, max_init_depth;
	uint64_t guid;			/* node GUID, host order */
	uint8_t ca_ack_delay;
	uint8_t nports;
	struct cm_port *ports;		/* [nports] */
};

/* All devices, opened once per process (rdma_get_devices). */
int cm_devs_open(void);
extern struct cm_dev *cm_devs;
extern int cm_ndevs;

struct cm_dev *cm_dev_of(struct ibv_context *ctx);
/* The device's shared PD, made if need be (qp.c): an id on the device
 * shows it in id->pd, as rdma-core's ucma_get_device() does. */
struct ibv_pd *cm_dev_pd(struct cm_dev *d);
/*
 * The next RoCEv2 GID of port at index *i or after: 0 with *i and gid set,
 * or -1 when there is none. Start with *i = 0, then ++*i between calls.
 */
int cm_gid_next(const struct cm_port *port, int *i, union ibv_gid *gid);
/* The index of gid among port's RoCEv2 GIDs; 0 when it is not one. */
int cm_gid_index(const struct cm_port *port, const union ibv_gid *gid);
/* QP1 of port, made if need be; 0 or an errno value. */
int cm_gsi_up(struct cm_port *port);
/* Send the MAD to QP1 at dgid from port's sgid_index; 0 or errno. */
int cm_gsi_send(struct cm_port *port, int sgid_index,
		const union ibv_gid *dgid, const void *mad);

/* ---- Event channels and events (channel.c) */

struct cm_event {
	struct rdma_cm_event ev;	/* what the program sees: first */
	struct cm_event *next;
	struct cma_id *owner;		/* whose event it is (ev.id's) */
	uint8_t pdata[256];
};

struct cm_channel {
	struct rdma_event_channel pub;	/* pub.fd: an eventfd semaphore */
	struct cm_event *head, **tail;
	int refs;			/* ids on it */
	int readers;			/* threads in rdma_get_cm_event */
	bool dead;			/* destroyed: the last reader frees */
};

struct cm_channel *cm_channel_new(void);
void cm_channel_free(struct cm_channel *ch);
/*
 * Under the lock: the channel goes, now or, if a thread is still inside
 * rdma_get_cm_event on it, when that thread wakes (it then waits for
 * good, as it would in rdma-core's kernel read).
 */
void cm_channel_release(struct cm_channel *ch);
/* Queue an event for id on id's channel and make the fd readable. */
struct cm_event *cma_post(struct cma_id *id, enum rdma_cm_event_type type,
			  int status, const void *pdata, size_t len);
/* Drop the queued events of id (and of children of listener id). */
void cm_channel_purge(struct cma_id *id);

/* ---- The IBTA CM state of a connection (ibcm.c) */

enum ibcm_state {
	IBCM_IDLE,
	IBCM_REQ_SENT,
	IBCM_REQ_RCVD,
	IBCM_REP_SENT,
	IBCM_ESTABLISHED,
	IBCM_DREQ_SENT,
	IBCM_DREQ_RCVD,
	IBCM_TIMEWAIT,
	IBCM_SIDR_REQ_SENT,
	IBCM_SIDR_REQ_RCVD,
	IBCM_REP_RCVD,		/* active, no QP: the RTU waits for
				 * rdma_establish */
};

enum cm_timer_kind {
	CM_TIMER_NONE,
	CM_TIMER_RESEND,		/* the last MAD: resend or give up */
	CM_TIMER_TIMEWAIT,		/* timewait over */
};

struct ibcm {
	enum ibcm_state state;
	uint32_t local_id, remote_id;
	uint64_t remote_guid;
	uint32_t remote_qpn, remote_qkey;
	uint32_t local_psn, remote_psn;	/* ours: we receive at it */
	uint8_t resp_res, init_depth;	/* what this side's QP gets */
	uint8_t retry_count, rnr_retry, flow_control, srq;
	uint8_t ack_timeout;		/* the QP's local ACK timeout code */
	enum ibv_mtu mtu;
	union ibv_gid dgid;		/* the peer's port: MADs go there */
	uint32_t sidr_qpn, sidr_qkey;	/* what a SIDR_REP reported */
	uint8_t mad[MAD_LEN];		/* the MAD to resend */
	int retries;			/* resends left */
	uint64_t resend_ns;		/* between resends */
	enum cm_timer_kind timer;
	uint64_t deadline;
};

/* ---- rdma_cm_id's private side (cma.c) */

enum cma_state {
	CMA_IDLE,
	CMA_ADDR_BOUND,
	CMA_ADDR_RESOLVED,
	CMA_ROUTE_RESOLVED,
	CMA_LISTEN,
	CMA_CONNECT,		/* REQ sent, or REQ received */
	CMA_ESTABLISHED,
	CMA_DISCONNECT,
	CMA_DESTROYING,
};

struct cma_id {
	struct rdma_cm_id id;		/* public: first */
	struct cma_id *next;		/* all ids */
	struct cm_channel *chan;
	bool sync;			/* NULL channel: calls wait */
	enum cma_state state;
	struct cm_port *port;		/* bound or resolved port */
	int sgid_index;
	struct ibv_sa_path_rec path;
	uint8_t tos;
	bool tos_set, reuse, afonly, afonly_set, ack_timeout_set;
	uint8_t ack_timeout;
	uint16_t bport;			/* the port number claimed */
	int rdv_fd;			/* loopback rendezvous socket or -1 */
	int backlog, queued;		/* a listener's limit and queue */
	struct cma_id *listener;	/* a child's, until it is retrieved */
	unsigned int events_out;	/* handed out, not acked yet */
	uint32_t qkey;			/* UD ids */
	uint32_t qpn;			/* rdma_create_qp's QP: events name it
					 * even after a program destroyed it
					 * with ibv_destroy_qp */
	uint8_t resp_res, init_depth;	/* what rdma_accept/connect asked */
	struct ibv_qp_init_attr *ep_attr; /* rdma_create_ep's, passive */
	struct ibcm cm;
};

extern struct cma_id *cma_ids;

static inline struct cma_id *to_cma(struct rdma_cm_id *id)
{
	return container_of(id, struct cma_id, id);
}

/* Ids by port space: RDMA_PS_* to the CM's. */
static inline enum cm_port_space cma_ps(const struct cma_id *c)
{
	return (enum cm_port_space)c->id.ps;
}

bool cma_is_ud(const struct cma_id *c);
/* rdma_create_id with the program's QP type (rdma_create_ep's). */
int cma_create_id_qpt(struct rdma_event_channel *channel,
		      struct rdma_cm_id **id, void *context,
		      enum rdma_port_space ps, enum ibv_qp_type qpt);
void cma_free(struct cma_id *c);
struct cma_id *cma_alloc(struct cm_channel *ch, void *context,
			 enum rdma_port_space ps, enum ibv_qp_type qpt);
/* Wait (lock not held) for the sync id's next event; -1/errno on error. */
int cma_sync_wait(struct cma_id *c);
/* Under the lock: wait until every event of id handed out is acked. */
void cm_wait_acked(struct cma_id *c);
/* Move id's QP to err (when it has one). */
void cma_qp_err(struct cma_id *c);
int cma_qp_rtr_rts(struct cma_id *c, bool rts);

/* ---- Addresses (addr.c) */

/* The port an IP address names (one of its GIDs), or NULL. */
struct cm_port *cm_addr_port(const struct sockaddr *a, int *gid_index);
bool cm_addr_any(const struct sockaddr *a);
bool cm_addr_loopback(const struct sockaddr *a);
void cm_addr_to_gid(const struct sockaddr *a, union ibv_gid *gid);
void cm_gid_to_addr(const union ibv_gid *gid, int family, uint16_t port,
		    struct sockaddr_storage *ss);
uint16_t cm_addr_port_num(const struct sockaddr *a);
void cm_addr_set_port_num(struct sockaddr *a, uint16_t port);
int cma_bind(struct cma_id *c, const struct sockaddr *addr, bool claim);
void cma_unbind(struct cma_id *c);
/* A listener on a wildcard or loopback address answers the rendezvous. */
int cma_rdv_listen(struct cma_id *c);
/* Fill id's path record from its port and the peer's GID. */
void cma_path_fill(struct cma_id *c, const union ibv_gid *dgid);

/* ---- The IBTA CM protocol (ibcm.c) */

void ibcm_recv(struct cm_port *port, const uint8_t *grh, const uint8_t *mad,
	       size_t len);
void ibcm_timer(struct cma_id *c);
int ibcm_send_req(struct cma_id *c, const struct rdma_conn_param *p);
int ibcm_send_rep(struct cma_id *c, const struct rdma_conn_param *p);
int ibcm_send_rej(struct cma_id *c, int reason, const void *pdata,
		  size_t len);
int ibcm_send_dreq(struct cma_id *c);
int ibcm_send_drep(struct cma_id *c);
/* rdma_establish of an active id without a QP: the RTU held back. */
int ibcm_send_rtu(struct cma_id *c);
int ibcm_send_sidr_req(struct cma_id *c, const struct rdma_conn_param *p);
int ibcm_send_sidr_rep(struct cma_id *c, int status,
		       const struct rdma_conn_param *p);
/* The id goes away: tell the peer what its state calls for. */
void ibcm_destroy(struct cma_id *c);
/* The peer of every connection to dgid is gone (liveness.c). */
void ibcm_peer_gone(const union ibv_gid *dgid);

/* The CM's response timeout code (4.096 us * 2^20, about 4.3 s, as Linux),
 * and how often it sends a MAD before giving up. */
#define CM_RESPONSE_TIMEOUT	20
#define CM_MAX_RETRIES		15

/* ---- Same-machine liveness (liveness.c) */

/*
 * A connection to the process behind dgid (from our sgid) got established:
 * if that process is on this machine, link to it, so that its death reads
 * as its DREQ. cm_live_listen() makes our end, once, at thread start.
 */
void cm_live_watch(const union ibv_gid *dgid, const union ibv_gid *sgid);
int cm_live_listen(void);

/* ---- Which local peers we believe (peer.c) */

struct ucred;
/* The credentials of fd's other end, and whether they are our user's or
 * root's (logs why not). */
bool cm_peer_trusted(int fd, struct ucred *cr);
/* Whether the process of cr holds a UDP socket of its uid on GID g's
 * address (logs why not). */
bool cm_peer_holds_gid(const struct ucred *cr, const union ibv_gid *g);

#endif
