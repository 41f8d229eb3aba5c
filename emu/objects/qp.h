/* The QP object: its send and receive rings of fixed-size WQE slots, state
 * and attributes, the per-device QPN table, and the transports' QP state. */
#ifndef EMU_QP_H
#define EMU_QP_H

#include <ev.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include <infiniband/verbs.h>

#include "emu/objects/qpc.h"
#include "emu/device/cnt.h"
#include "emu/device/device.h"
#include "emu/objects/pdom.h"
#include "emu/objects/qp_ex.h"
#include "emu/objects/tm.h"

struct emu_device;
struct emu_context;
struct emu_pd;
struct emu_cq;
struct emu_ah;
struct emu_tport;
struct emu_doorbell;
struct emu_srq;
struct emu_xrcd_dom;

/* Lowest QPN handed out: 0 and 1 are the special QPs. */
#define EMU_QPN_MIN	2

/* A send WQE as posted, plus the requester's progress through it. */
struct emu_swqe {
	uint64_t wr_id;
	uint64_t remote_addr;
	uint64_t compare_add;
	uint64_t swap;
	struct emu_ah *ah;		/* UD */
	uint32_t opcode;		/* enum ibv_wr_opcode */
	uint32_t send_flags;		/* IBV_SEND_* */
	uint32_t num_sge;		/* 0 when inline */
	uint32_t length;		/* message bytes */
	uint32_t rkey;
	uint32_t imm_be;		/* as posted: network order */
	uint32_t remote_qpn;
	uint32_t remote_qkey;
	uint32_t remote_srqn;		/* XRC: the SRQ it is for */
	/* BIND_MW: the window (found again by its key's index and its
	 * handle, never by pointer: it may be gone by then), the region by
	 * lkey (0 with length 0: unbind), and the range and rights; rkey is
	 * the new key. LOCAL_INV and SEND_WITH_INV: rkey is the key to
	 * invalidate. */
	uint32_t mw_rkey, mw_handle, mr_lkey, mw_access;
	uint64_t mw_len;		/* the range starts at remote_addr */
	bool local;			/* no packets: BIND_MW, LOCAL_INV */
	bool signaled;
	bool inl;			/* data in the slot, not SGEs */
	uint8_t status;			/* local error while sending, or
					 * from posting (emu_sq_next) */
	/* Work the responder of a TM QP queued (EMU_TM_OP_*): it completes
	 * on the TM SRQ's CQ, never on the send CQ; wr_id is the tag's. */
	uint8_t tm_op;
	uint32_t tm_priv;
	uint64_t tm_tag;
	/* Requester and completer (engine thread only). */
	bool started;			/* PSNs assigned */
	bool done;			/* READ/atomic: answer received */
	uint32_t first_psn, last_psn;
	uint32_t resp_psn;		/* READ: next response PSN expected */
	uint32_t req_psn;		/* READ: PSN of the last request sent,
					 * where a response stream may start */
	/* Followed in the slot by num_sge struct ibv_sge, or the inline
	 * bytes: emu_swqe_sge() / emu_swqe_data(). */
};

static inline struct ibv_sge *emu_swqe_sge(struct emu_swqe *w)
{
	return (struct ibv_sge *)(w + 1);
}

static inline uint8_t *emu_swqe_data(struct emu_swqe *w)
{
	return (uint8_t *)(w + 1);
}

struct emu_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t length;		/* sum of the SGE lengths */
	struct ibv_sge sge[];
};

/* A ring of fixed-size slots: posting threads produce under lock, the
 * engine consumes. Indexes run free and wrap modulo 2^32. */
struct emu_wq {
	uint8_t *slots;			/* mem.p */
	struct emu_qmem mem;		/* from a parent domain, or malloc */
	uint32_t size;			/* slots */
	uint32_t stride;		/* bytes per slot */
	pthread_spinlock_t lock;	/* posters of this queue */
	_Atomic uint32_t prod;		/* next slot to fill */
	_Atomic uint32_t cons;		/* oldest slot in use */
};

static inline void *emu_wq_slot(const struct emu_wq *q, uint32_t idx)
{
	return q->slots + (size_t)(idx % q->size) * q->stride;
}

/* Slots in use, as a poster holding q->lock sees them: its own prod, and
 * the engine's cons with the slots it has released. */
static inline uint32_t emu_wq_in_use(const struct emu_wq *q)
{
	return atomic_load_explicit(&q->prod, memory_order_relaxed) -
	       atomic_load_explicit(&q->cons, memory_order_acquire);
}

/* Check one receive WR (SGE count against max_sge, the 2 GiB message
 * limit) and copy it into w: what posting to an RQ and to an SRQ share.
 * 0 or EINVAL (logged as a refusal of verb); w is scratch until the
 * caller publishes it. */
int emu_rwqe_fill(struct emu_rwqe *w, const struct ibv_recv_wr *wr,
		  uint32_t max_sge, const char *verb);

/* Responder resources: READs (so a duplicate can be answered again) and
 * atomics (whose result is replayed, never executed twice). */
struct emu_rd_res {
	uint8_t kind;			/* 0, RES_READ or RES_ATOMIC */
	uint32_t first_psn, last_psn;
	uint64_t va;
	uint32_t rkey;
	uint32_t len;
	uint64_t orig;			/* atomic: value returned */
};

#define EMU_RES_READ	1
#define EMU_RES_ATOMIC	2

/* Does [va, va + len) lie within the range res, a READ, answered? A
 * duplicate READ may ask for part of it again. Compared as offsets: an
 * end address va + len can wrap past 2^64 and look small. */
static inline bool emu_rd_res_covers(const struct emu_rd_res *res,
				     uint64_t va, uint32_t len)
{
	uint64_t off;

	if (va < res->va)
		return false;
	off = va - res->va;
	return off <= res->len && len <= res->len - off;
}

struct emu_req_state {
	uint32_t psn;			/* next PSN to send */
	uint32_t psn_hi;		/* one past the highest PSN sent */
	uint32_t idx;			/* WQE being sent (sq index) */
	uint32_t off;			/* bytes of it already sent */
	uint32_t noack;			/* packets since ACK requested */
	uint32_t rd_out;		/* READs/atomics begun, unanswered */
	bool rnr_wait;			/* stopped until the RNR timer */
	bool stopped;			/* local error: send no more */
	bool draining;			/* SQD requested: start no WQE */
	bool drained;			/* ... and reached */
	bool notify_drained;		/* raise IBV_EVENT_SQ_DRAINED */
};

#define EMU_TX_GEN_NONE	UINT64_MAX

struct emu_comp_state {
	uint32_t psn;			/* oldest unacknowledged PSN */
	unsigned int retry_left;
	unsigned int rnr_left;
	uint32_t rewind_psn;		/* last rewind, to avoid repeats */
	bool rewound;
	uint32_t rnr_psn;		/* where to resume after the wait */
	ev_timer retry_timer;
	ev_timer rnr_timer;
	/* When the oldest outstanding request times out (CLOCK_MONOTONIC,
	 * ns), 0 when none is timed; retry_timer runs lazily behind it. */
	uint64_t retry_due;
	/* When a NIC's timer would fire: retry_due, or earlier when a floor
	 * or a late timer pushed retry_due on. Re-arms count from here, so a
	 * clamp is not carried into the next timeout. */
	uint64_t retry_sched;
	/* The last requests sent: after flush number tx_gen of the port,
	 * queued at tx_ns (emu/transport/comp.c counts a timeout from when they left). */
	uint64_t tx_gen;		/* or EMU_TX_GEN_NONE */
	uint64_t tx_ns;
	/* Since when timeouts have been excused for a peer that has not
	 * had a CPU (0: none are). */
	uint64_t stalled_since;
	bool peer_gone;			/* its pulse said so at the last timeout */
};

struct emu_resp_state {
	uint32_t psn;			/* expected PSN */
	uint32_t msn;
	bool in_msg;			/* FIRST seen, LAST not yet */
	uint32_t msg_kind;		/* its WIRE_F_SEND or WIRE_F_WRITE */
	bool drop_msg;			/* UC: ignore until FIRST/ONLY */
	bool nak_sent;			/* one sequence NAK per gap */
	bool comm_est;
	/* The message being received. */
	uint32_t rwqe_off;		/* bytes placed into the RQ WQE */
	uint64_t w_va;			/* RDMA WRITE target */
	uint32_t w_rkey, w_len, w_off;
	bool w_err;
	/* On a TM SRQ: what the message being received is, and for a
	 * matched eager one its tag and the bytes placed in its buffer. */
	enum emu_tm_kind tm_kind;
	struct emu_tm_match tm;
	uint32_t tm_off;
	/* Coalesced ACK. */
	bool ack_pending;
	struct emu_qp *ack_next;
	/* Resources, a ring of max_dest_rd_atomic entries. */
	struct emu_rd_res *res;
	unsigned int nres;		/* allocated (device maximum) */
	unsigned int res_next;
};

/*
 * Send WQEs written in place into the send ring: ibv_post_send parses its
 * ibv_send_wr chain into slots through these, and the ibv_wr_* interface
 * writes slots as the application calls it, so both are checked by the
 * same code and nothing is copied twice. One poster at a time holds
 * sq.lock from emu_sq_begin to emu_sq_commit or emu_sq_abort; slots it
 * writes are the engine's only once committed.
 *
 * A WQE is begun by emu_sq_next, which fills what every request has;
 * the caller then writes the opcode's own fields into b->cur (remote
 * address, rkey, compare/swap, immediate data as posted) and its data
 * through emu_sq_sges or emu_sq_inline, and ends it with emu_sq_end,
 * which checks what needs the whole WQE and counts it into the batch.
 * Each returns 0 or an errno, already logged as a refusal of b->verb;
 * a WQE that fails is not counted, and may be begun again over.
 */
struct emu_sq_batch {
	struct emu_qp *qp;
	const char *verb;		/* the API call, for refusals */
	int limit_err;			/* errno for a cap exceeded */
	int closed_err;			/* errno per WQE while !sq_open, or
					 * 0 to leave it to the caller */
	uint32_t prod;			/* the batch's first slot */
	uint32_t n;			/* WQEs ended, not yet published */
	struct emu_swqe *cur;		/* the WQE begun, or NULL */
	uint64_t len;			/* its message bytes so far */
};


struct emu_qp {
	struct emu_qpx qpx;		/* must stay first: users see
					 * &qpx.ibv.qp_base */
	struct emu_device *dev;
	struct emu_context *ctx;
	struct emu_pd *pd;
	struct emu_pdom *pdom;		/* made on a parent domain: its rings */
	struct emu_cq *scq, *rcq;
	enum ibv_qp_type type;
	uint32_t qpn;
	bool sq_sig_all;
	bool qpx_ready;
	uint64_t send_ops_flags;
	struct ibv_qp_cap cap;
	uint32_t max_inline;
	pthread_mutex_t lock;		/* modify, query, destroy, qp_ex */
	struct ibv_qp_attr attr;	/* values as set by modify */
	_Atomic int state;		/* enum ibv_qp_state, for posters */
	/* Sends may be posted: the QP has been moved to RTS since it was
	 * made or last reset (mlx5's qp_state_max_gs). Set by modify. */
	atomic_bool sq_open;
	struct emu_wq sq, rq;
	/* The ibv_wr_* batch being written: under sq.lock. */
	struct emu_sq_batch wrb;
	struct emu_doorbell *db;
	uint32_t events_raised;		/* async events pushed for it */
	bool in_table;
	uint8_t gsi_port;		/* QP1 of this port, or 0 */
	struct emu_srq *srq;		/* basic SRQ its receives come from */
	struct emu_xrcd_dom *xrcd;	/* XRC target: the domain it is in */
	/* XRC target: ibv_open_qp() handles besides the creator's; the QP
	 * goes away with the last of them (under lock). */
	unsigned int extra_handles;
	/* Flows made on it (verbs/counters.c): it is not destroyed while
	 * one is, as the kernel keeps a QP its flows use. */
	atomic_uint flows;

	/* Engine thread only. */
	struct emu_tport *tp;		/* port of the path */
	struct emu_port_counters *port_cnt;	/* and its counters */
	unsigned int sock;		/* send pool socket */
	struct in6_addr dest;		/* RC/UC peer */
	struct in6_addr src;		/* the path's source GID address */
	uint32_t mtu;			/* path MTU in bytes */
	struct emu_req_state req;
	struct emu_comp_state comp;
	struct emu_resp_state resp;
	struct emu_cc cc;		/* CNPs and DCQCN (emu/transport/cc.c) */
	/* Its share of the port's budget of packets in flight. */
	struct emu_budget_user bud;
	/* Receiving from an SRQ: the SRQ this packet's receive comes from
	 * (the QP's own, or the one an XRCETH names), and the WQE taken from
	 * it, which stays the QP's until its message completes (the SRQ is
	 * held busy meanwhile: emu_srq_get). held is sized for the device's
	 * max_srq_sge. */
	struct emu_srq *rx_srq;
	struct emu_srq *held_srq;
	struct emu_rwqe *held;
	/* What it sent and received and what its transport did
	 * (emu/observe/counters.h). */
	struct emu_qp_counters cnt;
};

/* RC, or the XRC initiator, which behaves as RC on its side of the wire. */
static inline bool emu_qp_reliable(const struct emu_qp *qp)
{
	return qp->type == IBV_QPT_RC || qp->type == IBV_QPT_XRC_SEND;
}

static inline struct emu_qp *to_emu_qp(struct ibv_qp *qp)
{
	return (struct emu_qp *)qp;
}

static inline struct ibv_qp *emu_qp_ibv(struct emu_qp *qp)
{
	return &qp->qpx.ibv.qp_base;
}

/* The device's QPN -> QP map: changed only on the engine thread (through
 * emu_engine_call), so the receive path reads it without a lock. */
int emu_qp_table_create(struct emu_device *dev);
void emu_qp_table_destroy(struct emu_device *dev);
/* Engine thread: the live QP with this number, or NULL (QP1 is each
 * port's own: emu_qp_gsi). Inline, for the receive path. */
static inline struct emu_qp *emu_qp_lookup(struct emu_device *dev,
					   uint32_t qpn)
{
	return emu_numtab_lookup(&dev->qps, qpn);
}

/* The verbs, after the front end's argument checks (verbs/qp.c). Return
 * 0 or a positive errno; create sets *out. */
/* QP1, the general services interface, of one port: a UD QP numbered 1
 * that receives what peers send to QP 1 there (CM MADs, for librdmacm).
 * EBUSY when the port has one. */
#define EMU_GSI_QPN	1
#define EMU_GSI_QKEY	0x80010000u
int emu_qp_create_gsi(struct emu_context *ctx, struct ibv_qp_init_attr_ex *init,
		      uint8_t port, struct emu_qp **out);
/* The GSI QP of a port, or NULL. Engine thread. */
struct emu_qp *emu_qp_gsi(struct emu_device *dev, uint32_t port);

int emu_qp_create(struct emu_context *ctx, struct ibv_qp_init_attr_ex *init,
		  struct emu_qp **out);
int emu_qp_destroy(struct emu_qp *qp);
int emu_qp_modify(struct emu_qp *qp, struct ibv_qp_attr *attr, int mask);
int emu_qp_query(struct emu_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init);
int emu_qp_post_send(struct emu_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr);
int emu_qp_post_recv(struct emu_qp *qp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);
/* ibv_bind_mw's work request (one, BIND_MW, a type 1 window): posted as
 * post_send posts, which refuses type 1 windows to everyone else. */
int emu_qp_post_bind_mw(struct emu_qp *qp, struct ibv_send_wr *wr);

/* limit_err: what exceeding max_send_sge or max_inline_data is refused
 * with; ibv_post_send says EINVAL as rxe does, ibv_wr_* ENOMEM as mlx5.
 * closed_err: what each WQE is refused with while the QP may not post
 * (emu_sq_closed), or 0 when the caller asks emu_sq_closed itself. */
void emu_sq_begin(struct emu_qp *qp, struct emu_sq_batch *b,
		  const char *verb, int limit_err, int closed_err);
/* 0 when the QP may post sends (it has been in RTS since it was made or
 * last reset), else err, refused in b's verb's name. */
int emu_sq_closed(struct emu_sq_batch *b, int err);
/* The next free slot as b->cur: EINVAL for an opcode the device does not
 * have or the QP's transport cannot post, ENOMEM when max_send_wr are
 * outstanding, closed_err before the QP may post. RDMA and atomics on a
 * UD QP are taken with status IBV_WC_LOC_QP_OP_ERR, which the requester
 * completes them with. */
int emu_sq_next(struct emu_sq_batch *b, enum ibv_wr_opcode opcode,
		uint64_t wr_id, unsigned int send_flags);
/* BIND_MW of mw (a type 1 window with mw_verb, ibv_bind_mw's, else type
 * 2) to the range of info, with new key rkey. */
int emu_sq_bind(struct emu_sq_batch *b, const struct ibv_mw *mw,
		uint32_t rkey, const struct ibv_mw_bind_info *info,
		bool mw_verb);
/* Destinations, meaningful only on the QP types that have them. */
void emu_sq_ud(struct emu_sq_batch *b, struct ibv_ah *ah, uint32_t qpn,
	       uint32_t qkey);
void emu_sq_xrc(struct emu_sq_batch *b, uint32_t remote_srqn);
/* The data as a scatter list (replacing any set before), or appended to
 * the WQE as inline bytes (emu_sq_clear_data first to replace). */
int emu_sq_sges(struct emu_sq_batch *b, const struct ibv_sge *sg,
		long num_sge);
int emu_sq_inline(struct emu_sq_batch *b, const void *addr, size_t len);
void emu_sq_clear_data(struct emu_sq_batch *b, bool inl);
int emu_sq_end(struct emu_sq_batch *b);
/* Publish the WQEs ended, release the lock, ring the doorbell if any. */
void emu_sq_commit(struct emu_sq_batch *b);
/* Drop everything written since emu_sq_begin and release the lock. */
void emu_sq_abort(struct emu_sq_batch *b);
/* ibv_open_qp: one more handle on the XRC target QP qpn of domain dom.
 * 0 and *out, or EINVAL when there is no such QP. */
int emu_qp_open_xrc(struct emu_device *dev, uint32_t qpn,
		    const struct emu_xrcd_dom *dom, struct emu_qp **out);

/* Move the QP numbered qpn on dev to ERR, as the kernel's CM does when a
 * connection ends (a DREQ, a REJ, a timeout), without a pointer to it: a
 * QP the application destroyed meanwhile is not found. Any thread but
 * the engine's. 0, or ENOENT for no such QP. */
int emu_qp_error_by_number(struct emu_device *dev, uint32_t qpn);

/* ---- engine thread ---- */

/* Move to ERR: flush both queues with IBV_WC_WR_FLUSH_ERR, stop timers.
 * With an event type other than 0, raise it on the QP first. */
void emu_qp_error(struct emu_qp *qp, enum ibv_event_type ev);
/* Raise an async event that names the QP. */
void emu_qp_event(struct emu_qp *qp, enum ibv_event_type ev);
/* Complete a send WQE (if signaled or failed) and retire it: it must be
 * the oldest (sq.cons). */
void emu_qp_complete_send(struct emu_qp *qp, struct emu_swqe *w,
			  enum ibv_wc_status status);
/* Push a receive completion and retire the oldest RQ WQE. */
void emu_qp_complete_recv(struct emu_qp *qp, struct ibv_wc *wc,
			  bool solicited);
/* Queue send work of the emulated HCA itself (a TM rendezvous READ or
 * FIN) behind what the application posted: w, followed by sge_len bytes
 * of SGEs or inline data. 0, or ENOSPC when the ring has no room. */
int emu_qp_post_internal(struct emu_qp *qp, const struct emu_swqe *w,
			 const void *data, uint32_t data_len);
/* The state as the engine sees it. */
static inline enum ibv_qp_state emu_qp_state(struct emu_qp *qp)
{
	return (enum ibv_qp_state)atomic_load_explicit(&qp->state,
						       memory_order_relaxed);
}
/* Called when the SQ has nothing outstanding: SQD's SQ_DRAINED event. */
void emu_qp_check_drained(struct emu_qp *qp);

/* Translate [off, off + len) of a scatter list into a copy to or from
 * buf; need is the IBV_ACCESS_* right required (LOCAL_WRITE to write).
 * 0, or the failing IBV_WC_* status (LOC_PROT_ERR / LOC_LEN_ERR);
 * LOC_PROT_ERR too for a page of the region no longer mapped. */
int emu_sge_copy(struct emu_qp *qp, const struct ibv_sge *sge,
		 uint32_t num_sge, uint32_t off, void *buf, uint32_t len,
		 bool to_sge);

/* The same range, to be read in place: its pieces of registered memory
 * into iov (at most max, *niov of them, none empty). 0, the failing
 * IBV_WC_* status, or EMU_SGE_SCATTERED when it has more than max. */
#define EMU_SGE_SCATTERED	(-1)
int emu_sge_map(struct emu_qp *qp, const struct ibv_sge *sge,
		uint32_t num_sge, uint32_t off, uint32_t len,
		struct iovec *iov, unsigned int max, unsigned int *niov);

#endif
