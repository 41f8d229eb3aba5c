/* tests/fuzz/fuzz_rx.c: a libFuzzer target over the receive path. Each input
 * is one datagram for one of a set of live QPs (RC, UC, UD, RC on a basic
 * and on a tag-matching SRQ, an XRC target, an RC requester with READs and
 * atomics outstanding), handed to the port on the engine thread as if it
 * had just arrived, next to bound memory windows of both types; or a
 * shared-memory ring as a hostile peer on this host would leave it, which
 * the port reads as it reads its ring peers'.
 *
 * Input: byte 0 picks the target and how each packet is fixed up:
 *   bits 0-2  target QP (modulo the number of targets)
 *   bit 3     keep the ICRC as given (else it is made right, so that the
 *             packet gets past the check; damage is still fuzzed this way)
 *   bit 4     keep the destination QPN as given (else the target's)
 *   bit 5     keep the PSN as given (else moved next to the one the target
 *             expects, keeping the low 4 bits as an offset)
 *   bit 7     ring mode (below); else the rest is the UDP payload (BTH
 *             through ICRC)
 * R_Keys 0..3 in a RETH, AtomicETH or IETH stand for the region and the
 * windows, and virtual addresses below 64 KiB for offsets into the region,
 * so that inputs reach memory the QPs may touch.
 *
 * Ring mode: the rest is what the peer wrote into the area it shares with
 * the target's port (net/shm.h), all numbers little-endian:
 *   4 bytes   start: where both rings' counters stood (a channel that has
 *             run for a while; near 2^32 they wrap)
 *   4 bytes   the head the peer publishes, minus start
 *   4 bytes   the tail it leaves in our send ring, minus start
 *   1 byte    bit 0: the peer says it sleeps (our sends write its eventfd)
 * then frames, one after the other, into the slots from start on:
 *   4 bytes   the slot's length field, as written (never trusted)
 *   2 bytes   UDP source port, 1 byte TOS, 1 byte TTL
 *   2 bytes   how many bytes of the frame follow here (the rest of its
 *             length reads as zeros)
 * Published slots the input leaves out hold empty frames. The port takes
 * the frames as in production (emu_rx_batch: emu_shm_recv, then the
 * checks every datagram goes through), and what it answers goes into the
 * peer's ring through emu_shm_put, under the tail the peer left.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/objects/qp.h"
#include "emu/transport/transport.h"
#include "net/hdr.h"
#include "net/icrc.h"
#include "net/psn.h"
#include "net/shm.h"

#define MEM_LEN		(64 * 1024)
#define RECV_LEN	4096
#define RECVS		16
#define QKEY		0x11111111u
#define PEER_QPN	0x123456u
#define PEER_SPORT	49152
#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
		IBV_ACCESS_MW_BIND)

enum target { T_RC, T_UC, T_UD, T_SRQ, T_TM, T_XRC, T_REQ, NTARGETS };

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_srq *srq, *tm, *xsrq;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *qp[NTARGETS];
	struct ibv_mw *mw1, *mw2;
	uint32_t keys[4];
	uint8_t *mem;
	union ibv_gid peer;
	struct emu_device *dev;
	/* Receives posted and not completed, per target (for those on an
	 * SRQ: the SRQ's). */
	unsigned int recvs[NTARGETS];
	unsigned int tm_tags;
	uint32_t xsrqn;
	char xrcd_path[64];
} f;

static void die(const char *what)
{
	fprintf(stderr, "fuzz_rx: setup: %s failed\n", what);
	exit(1);
}

static void post_recvs(struct ibv_qp *qp, struct ibv_srq *srq,
		       unsigned int *count, unsigned int want)
{
	struct ibv_recv_wr wr = { 0 }, *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)f.mem + MEM_LEN - RECV_LEN,
		.length = RECV_LEN,
		.lkey = f.mr->lkey,
	};

	wr.sg_list = &sge;
	wr.num_sge = 1;
	while (*count < want) {
		wr.wr_id = *count;
		if (srq ? ibv_post_srq_recv(srq, &wr, &bad) :
			  ibv_post_recv(qp, &wr, &bad))
			return;
		(*count)++;
	}
}

static void add_tags(void)
{
	struct ibv_ops_wr wr = { .opcode = IBV_WR_TAG_ADD }, *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)f.mem,
		.length = RECV_LEN,
		.lkey = f.mr->lkey,
	};

	wr.tm.add.sg_list = &sge;
	wr.tm.add.num_sge = 1;
	wr.tm.add.mask = 0xffff;
	while (f.tm_tags < 8) {
		wr.wr_id = f.tm_tags;
		wr.tm.add.tag = f.tm_tags;
		wr.tm.add.recv_wr_id = 100 + f.tm_tags;
		if (ibv_post_srq_ops(f.tm, &wr, &bad))
			return;
		f.tm_tags++;
	}
}

/* RESET -> INIT -> RTR -> RTS towards the fake peer; false if refused. */
static bool connect_qp(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	enum ibv_qp_type t = qp->qp_type;
	int mask;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return false;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ACCESS & ~IBV_ACCESS_LOCAL_WRITE &
			    ~IBV_ACCESS_MW_BIND;
	a.qkey = QKEY;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	mask |= t == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	if (ibv_modify_qp(qp, &a, mask))
		return false;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (t != IBV_QPT_UD) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = PEER_QPN;
		a.rq_psn = 0x100;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = f.peer;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (t != IBV_QPT_UC)
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
	}
	if (ibv_modify_qp(qp, &a, mask))
		return false;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x200;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (t == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	if (t == IBV_QPT_XRC_RECV)
		mask |= IBV_QP_TIMEOUT;
	return !ibv_modify_qp(qp, &a, mask);
}

/* The requester's outstanding work: a READ, both atomics and a SEND,
 * which the fuzzed responses then answer (or not). */
static void post_requests(void)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_SEND, IBV_WR_RDMA_WRITE,
	};
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge = { .lkey = f.mr->lkey };
	unsigned int i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		wr.wr_id = i;
		wr.opcode = ops[i];
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		sge.addr = (uintptr_t)f.mem + 8192 * (i + 1);
		sge.length = i == 1 || i == 2 ? 8 : 3000;
		wr.wr.rdma.remote_addr = 0x10000;
		wr.wr.rdma.rkey = 0x77;
		if (i == 1 || i == 2) {
			wr.wr.atomic.remote_addr = 0x10000;
			wr.wr.atomic.rkey = 0x77;
			wr.wr.atomic.compare_add = 1;
			wr.wr.atomic.swap = 2;
		}
		if (ibv_post_send(f.qp[T_REQ], &wr, &bad))
			return;
	}
}

static void bind_windows(void)
{
	struct ibv_mw_bind b = {
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = f.mr,
			.addr = (uintptr_t)f.mem + 4096,
			.length = 8192,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_ATOMIC,
		},
	};
	struct ibv_send_wr wr = { 0 }, *bad;

	if (f.mw1 && !ibv_bind_mw(f.qp[T_RC], f.mw1, &b))
		f.keys[2] = f.mw1->rkey;
	if (!f.mw2)
		return;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = f.mw2;
	wr.bind_mw.rkey = ibv_inc_rkey(f.mw2->rkey);
	wr.bind_mw.bind_info = b.bind_info;
	if (!ibv_post_send(f.qp[T_RC], &wr, &bad))
		f.keys[3] = wr.bind_mw.rkey;
}

static struct ibv_qp *make_qp(enum ibv_qp_type t, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = f.cq,
		.recv_cq = f.cq,
		.srq = srq,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = t,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = f.pd,
	};

	if (t == IBV_QPT_XRC_RECV) {
		memset(&a, 0, sizeof(a));
		a.qp_type = t;
		a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
		a.xrcd = f.xrcd;
	}
	return ibv_create_qp_ex(f.ctx, &a);
}

static struct ibv_srq *make_srq(enum ibv_srq_type t)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 64, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = t,
		.pd = f.pd,
		.cq = f.cq,
	};

	if (t == IBV_SRQT_TM) {
		a.comp_mask |= IBV_SRQ_INIT_ATTR_TM;
		a.tm_cap.max_num_tags = 16;
		a.tm_cap.max_ops = 16;
	} else if (t == IBV_SRQT_XRC) {
		a.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD;
		a.xrcd = f.xrcd;
	}
	return ibv_create_srq_ex(f.ctx, &a);
}

static void setup(void)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.oflags = O_CREAT,
	};
	struct ibv_device **list;
	unsigned int i;
	int fd;

	list = ibv_get_device_list(NULL);
	if (!list || !list[0])
		die("ibv_get_device_list");
	f.ctx = ibv_open_device(list[0]);
	if (!f.ctx)
		die("ibv_open_device");
	f.dev = emu_ctx(f.ctx)->dev;
	f.pd = ibv_alloc_pd(f.ctx);
	f.mem = aligned_alloc(4096, MEM_LEN);
	if (!f.pd || !f.mem)
		die("ibv_alloc_pd");
	memset(f.mem, 0, MEM_LEN);
	f.mr = ibv_reg_mr(f.pd, f.mem, MEM_LEN, ACCESS);
	f.cq = ibv_create_cq(f.ctx, 4096, NULL, NULL, 0);
	if (!f.mr || !f.cq)
		die("ibv_reg_mr/ibv_create_cq");
	snprintf(f.xrcd_path, sizeof(f.xrcd_path), "/tmp/fuzz_rx-xrcd-%d",
		 (int)getpid());
	fd = open(f.xrcd_path, O_RDWR | O_CREAT, 0600);
	xa.fd = fd;
	f.xrcd = ibv_open_xrcd(f.ctx, &xa);
	if (fd < 0 || !f.xrcd)
		die("ibv_open_xrcd");
	close(fd);
	unlink(f.xrcd_path);
	f.srq = make_srq(IBV_SRQT_BASIC);
	f.tm = make_srq(IBV_SRQT_TM);
	f.xsrq = make_srq(IBV_SRQT_XRC);
	if (!f.srq || !f.tm || !f.xsrq)
		die("ibv_create_srq_ex");
	f.qp[T_RC] = make_qp(IBV_QPT_RC, NULL);
	f.qp[T_UC] = make_qp(IBV_QPT_UC, NULL);
	f.qp[T_UD] = make_qp(IBV_QPT_UD, NULL);
	f.qp[T_SRQ] = make_qp(IBV_QPT_RC, f.srq);
	f.qp[T_TM] = make_qp(IBV_QPT_RC, f.tm);
	f.qp[T_XRC] = make_qp(IBV_QPT_XRC_RECV, NULL);
	f.qp[T_REQ] = make_qp(IBV_QPT_RC, NULL);
	/* The fake peer: an address nobody listens at. */
	memset(&f.peer, 0, sizeof(f.peer));
	f.peer.raw[10] = f.peer.raw[11] = 0xff;
	f.peer.raw[12] = 127;
	f.peer.raw[13] = 254;
	f.peer.raw[15] = 1;
	for (i = 0; i < NTARGETS; i++)
		if (!f.qp[i] || !connect_qp(f.qp[i]))
			die("QP setup");
	f.mw1 = ibv_alloc_mw(f.pd, IBV_MW_TYPE_1);
	f.mw2 = ibv_alloc_mw(f.pd, IBV_MW_TYPE_2);
	f.keys[1] = f.mr->rkey;
	bind_windows();
	for (i = 0; i < NTARGETS; i++)
		if (i != T_SRQ && i != T_TM && i != T_XRC)
			post_recvs(f.qp[i], NULL, &f.recvs[i], RECVS);
	post_recvs(NULL, f.srq, &f.recvs[T_SRQ], 32);
	post_recvs(NULL, f.tm, &f.recvs[T_TM], 32);
	post_recvs(NULL, f.xsrq, &f.recvs[T_XRC], 32);
	if (ibv_get_srq_num(f.xsrq, &f.xsrqn))
		die("ibv_get_srq_num");
	add_tags();
	post_requests();
	ibv_free_device_list(list);
}

/* Ring mode: the port's table of ring peers while an input runs, with the
 * fake peer's channel over an area the input fills (we did not make it:
 * the peer sends on ring 0). */
static struct {
	struct emu_shm shm;
	struct emu_shm_area *area;
	int efd;		/* the peer's eventfd, never read */
} ring;

static void setup_ring(void)
{
	void *a = mmap(NULL, EMU_SHM_AREA_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED || emu_shm_init(&ring.shm))
		die("the ring's area");
	ring.area = a;
	emu_shm_area_init(ring.area);
	ring.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ring.efd < 0)
		die("eventfd");
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/fuzz_rx-home-XXXXXX";

	/* The embedded default device, whatever the user's setup. */
	if (mkdtemp(dir)) {
		setenv("HOME", dir, 1);
		setenv("XDG_CONFIG_HOME", dir, 1);
	}
	unsetenv("EMUVERBS_CONFIG");
	setup();
	setup_ring();
	return 0;
}

/* Completions keep coming: count them back, and replenish. */
static void drain(void)
{
	struct ibv_wc wc[32];
	int n, i, t;

	while ((n = ibv_poll_cq(f.cq, 32, wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (!(wc[i].opcode & IBV_WC_RECV))
				continue;
			for (t = 0; t < NTARGETS; t++)
				if (f.qp[t]->qp_num == wc[i].qp_num &&
				    f.recvs[t])
					f.recvs[t]--;
		}
	}
}

/* A QP the last input took to ERR is made whole, and its receives, tags
 * and outstanding requests topped up. */
static void restore(enum target t)
{
	struct ibv_srq *srq = t == T_SRQ ? f.srq : t == T_TM ? f.tm :
			      t == T_XRC ? f.xsrq : NULL;
	struct ibv_qp *qp = f.qp[t];
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	drain();
	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) ||
	    a.qp_state != IBV_QPS_RTS) {
		connect_qp(qp);
		drain();
		/* Its own receive queue was flushed; an SRQ keeps its. */
		if (!srq)
			f.recvs[t] = 0;
		if (t == T_REQ)
			post_requests();
		if (t == T_RC)
			bind_windows();
	}
	post_recvs(srq ? NULL : qp, srq, &f.recvs[t], srq ? 32 : RECVS);
	if (t == T_TM) {
		f.tm_tags = 0;
		add_tags();
	}
}

/* R_Keys 0..3 stand for the keys the target may use. */
static uint32_t key_for(uint32_t k)
{
	return k < 4 ? f.keys[k] : k;
}

static uint32_t expected_psn(struct emu_qp *qp, bool response)
{
	return response ? qp->comp.psn : qp->resp.psn;
}

struct inject {
	struct emu_tport *tp;
	struct emu_udp_pkt u;
};

static void do_inject(void *arg)
{
	struct inject *in = arg;

	emu_rx_datagram(in->tp, &in->u);
}

/*
 * The fix-ups byte 0 (ctl) asks for, on the len bytes at buf of a packet
 * from src, UDP port sport, to dst at port tp: for target qp, its QPN,
 * its PSN next to the one expected, the keys and addresses of its
 * extended headers, and its ICRC.
 */
static void fix_up(uint8_t ctl, struct emu_qp *qp, struct emu_tport *tp,
		   uint8_t *buf, size_t len, const struct in6_addr *src,
		   const struct in6_addr *dst, uint16_t sport)
{
	uint8_t ph[ICRC_PSEUDO_MAX], op;
	struct wire_pkt w;
	size_t iplen;
	uint32_t psn;

	if (len >= WIRE_BTH_LEN) {
		op = bth_opcode(buf);
		if (!(ctl & 0x10))
			bth_set_qpn(buf, qp->qpn);
		if (!(ctl & 0x20)) {
			psn = expected_psn(qp, !wire_op_has(op, WIRE_F_REQ));
			bth_set_psn(buf, psn_add(psn_sub(psn, 2),
						 bth_psn(buf) & 0xf));
		}
		if (len >= ICRC_LEN && wire_pkt_parse(&w, buf, len) ==
		    WIRE_OK) {
			if (wire_op_has(op, WIRE_F_RETH)) {
				reth_set_rkey(buf, key_for(reth_rkey(buf)));
				if (reth_va(buf) < MEM_LEN)
					reth_set_va(buf, (uintptr_t)f.mem +
							 reth_va(buf));
			}
			if (wire_op_has(op, WIRE_F_ATMETH)) {
				atmeth_set_rkey(buf,
						key_for(atmeth_rkey(buf)));
				if (atmeth_va(buf) < MEM_LEN)
					atmeth_set_va(buf, (uintptr_t)f.mem +
							   atmeth_va(buf));
			}
			if (wire_op_has(op, WIRE_F_IETH))
				ieth_set_rkey(buf, key_for(ieth_rkey(buf)));
			if (wire_op_has(op, WIRE_F_XRCETH))
				xrceth_init(buf, f.xsrqn);
		}
	}
	if (!(ctl & 0x08) && len >= WIRE_BTH_LEN + ICRC_LEN) {
		struct in_addr s, d;

		memcpy(&s, &src->s6_addr32[3], 4);
		memcpy(&d, &dst->s6_addr32[3], 4);
		iplen = icrc_pseudo_v4(ph, &s, &d, sport, tp->port->ep.port,
				       len);
		icrc_put(buf + len - ICRC_LEN,
			 icrc_compute(ph, iplen, ph + iplen, buf,
				      len - ICRC_LEN));
	}
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

#define RING_HDR	13
#define RING_FRAME	10

struct ring_job {
	uint8_t ctl;
	struct emu_qp *qp;
	struct emu_tport *tp;
	const uint8_t *d;	/* the input after byte 0 */
	size_t n;
};

/* On the engine thread, like every receive: fill the peer's ring and our
 * send ring's tail as the input says, then let the port read. */
static void do_ring(void *arg)
{
	struct ring_job *j = arg;
	struct emu_tport *tp = j->tp;
	struct emu_shm *saved = tp->udp.shm;
	struct emu_shm_ring *rx = &ring.area->ring[0];
	struct emu_shm_ring *tx = &ring.area->ring[1];
	uint32_t start = le32(j->d), head = start + le32(j->d + 4), k;
	const uint8_t *d = j->d + RING_HDR;
	size_t left = j->n - RING_HDR;
	struct emu_shm_chan *c;
	struct in6_addr peer;

	memcpy(&peer, f.peer.raw, sizeof(peer));
	/* What the transport sends to the peer goes to its UDP port, ours. */
	c = emu_shm_slot(&ring.shm, &peer, tp->port->ep.port);
	if (!c)
		die("the ring's channel");
	emu_shm_up(&ring.shm, c, ring.area, false, dup(ring.efd));
	c->rx_tail = start;
	c->tx_head = start;
	c->tx_room = start;	/* the first put reads the peer's tail */
	atomic_store_explicit(&rx->tail, start, memory_order_relaxed);
	atomic_store_explicit(&tx->head, start, memory_order_relaxed);
	atomic_store_explicit(&tx->tail, start + le32(j->d + 8),
			      memory_order_relaxed);
	atomic_store_explicit(&tx->waiting, j->d[12] & 1,
			      memory_order_relaxed);
	/* Published slots the input leaves out: empty frames, not the last
	 * input's (so that an input replays alone). */
	for (k = 0; k < head - start && k < EMU_SHM_SLOTS; k++)
		memset(rx->slot[(start + k) % EMU_SHM_SLOTS], 0,
		       sizeof(struct emu_shm_frame));
	for (k = 0; k < EMU_SHM_SLOTS && left >= RING_FRAME; k++) {
		struct emu_shm_frame *fr = (struct emu_shm_frame *)(void *)
			rx->slot[(start + k) % EMU_SHM_SLOTS];
		uint32_t len = le32(d), given = le16(d + 8);
		uint32_t in_slot = len < EMU_SHM_FRAME_MAX ? len :
				   EMU_SHM_FRAME_MAX;

		fr->len = len;
		fr->sport = le16(d + 4);
		fr->tos = d[6];
		fr->flags = d[7];
		d += RING_FRAME;
		left -= RING_FRAME;
		if (given > left)
			given = (uint32_t)left;
		if (given > EMU_SHM_FRAME_MAX)
			given = EMU_SHM_FRAME_MAX;
		memcpy(fr->data, d, given);
		if (given < in_slot)
			memset(fr->data + given, 0, in_slot - given);
		/* The bytes the port will take: those fixed up. */
		fix_up(j->ctl, j->qp, tp, fr->data, in_slot, &peer,
		       &tp->udp.local, fr->sport);
		d += given;
		left -= given;
	}
	atomic_store_explicit(&rx->head, head, memory_order_release);
	/* No datagram is waiting in the socket: the new ring is read from
	 * here on (what the transport does after emptying it). */
	emu_shm_order_begin(&ring.shm);
	emu_shm_order_end(&ring.shm);
	tp->udp.shm = &ring.shm;
	for (k = 0; k < EMU_SHM_SLOTS / EMU_UDP_BATCH + 2; k++)
		if (!emu_rx_batch(tp, false))
			break;
	tp->udp.shm = saved;
	emu_shm_down(&ring.shm, c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[EMU_UDP_BUF];
	struct inject in = { 0 };
	struct emu_qp *qp;
	enum target t;
	uint8_t ctl;
	size_t len;

	if (size < 1)
		return 0;
	ctl = data[0];
	if (ctl & 0x80) {
		struct ring_job j = { .ctl = ctl, .d = data + 1,
				      .n = size - 1 };

		if (j.n < RING_HDR)
			return 0;
		t = (enum target)((ctl & 7) % NTARGETS);
		restore(t);
		j.qp = to_emu_qp(f.qp[t]);
		j.tp = j.qp->tp ? j.qp->tp :
		       &emu_transport_of(f.dev)->ports[0];
		emu_engine_call(f.dev->engine, do_ring, &j);
		return 0;
	}
	if (size - 1 > sizeof(buf))
		return 0;
	len = size - 1;
	memcpy(buf, data + 1, len);
	t = (enum target)((ctl & 7) % NTARGETS);
	restore(t);
	qp = to_emu_qp(f.qp[t]);

	in.tp = qp->tp ? qp->tp : &emu_transport_of(f.dev)->ports[0];
	in.u.data = buf;
	in.u.len = (uint32_t)len;
	memcpy(&in.u.src, f.peer.raw, sizeof(in.u.src));
	in.u.dst = in.tp->port->ep.addr;
	in.u.sport = PEER_SPORT;
	in.u.ttl = 64;
	fix_up(ctl, qp, in.tp, buf, len, &in.u.src, &in.u.dst, PEER_SPORT);
	emu_engine_call(f.dev->engine, do_inject, &in);
	return 0;
}
