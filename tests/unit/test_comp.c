/* Unit tests for the completer's checks of READ responses: an RC QP reads
 * from a scripted peer (a UDP socket on 127.0.0.x:4791) that answers with
 * crafted response packets, in and out of the sequence IBTA allows. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "net/hdr.h"
#include "net/icrc.h"
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define MTU		1024
#define PEER_QPN	0x4242
#define BUF_LEN		(64 * 1024)
#define REMOTE_VA	0x7000000000ull
#define REMOTE_RKEY	0x1234

struct fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *buf;
	struct ibv_mr *mr;
	int peer;			/* the scripted peer's socket */
	struct in_addr peer_addr, dev_addr;
};

/* A socket on a 127.0.0.x:4791 nobody holds (devices claim 127.1.0.x). */
static int peer_socket(struct in_addr *addr)
{
	unsigned int i;

	for (i = 0; i < 250; i++) {
		struct sockaddr_in sin = {
			.sin_family = AF_INET,
			.sin_port = htons(WIRE_ROCE_UDP_PORT),
		};
		int fd = socket(AF_INET, SOCK_DGRAM, 0);

		ck_assert_int_ge(fd, 0);
		sin.sin_addr.s_addr = htonl(0x7f000000u |
					    (2 + (getpid() + i) % 250));
		if (!bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
			*addr = sin.sin_addr;
			return fd;
		}
		close(fd);
	}
	ck_abort_msg("no free 127.0.0.x:4791");
	return -1;
}

static void fx_open(struct fx *f)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct qp_conn c = qp_conn_default;
	struct qp_peer peer;
	union ibv_gid gid;

	memset(f, 0, sizeof(*f));
	f->ctx = open_default();
	f->pd = ibv_alloc_pd(f->ctx);
	ck_assert_ptr_nonnull(f->pd);
	f->cq = ibv_create_cq(f->ctx, 64, NULL, NULL, 0);
	ck_assert_ptr_nonnull(f->cq);
	ia.send_cq = ia.recv_cq = f->cq;
	f->qp = ibv_create_qp(f->pd, &ia);
	ck_assert_ptr_nonnull(f->qp);
	f->buf = calloc(1, BUF_LEN);
	ck_assert_ptr_nonnull(f->buf);
	f->mr = ibv_reg_mr(f->pd, f->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(f->mr);
	ck_assert_int_eq(ibv_query_gid(f->ctx, 1, 0, &gid), 0);
	memcpy(&f->dev_addr, &gid.raw[12], 4);
	f->peer = peer_socket(&f->peer_addr);

	peer.qpn = PEER_QPN;
	peer.psn = 0x500;
	peer.gid = gid;
	memcpy(&peer.gid.raw[12], &f->peer_addr, 4);
	/* A retransmission timer of about a second, with no retries: a
	 * READ left hanging ends in RETRY_EXC_ERR well after the 300 ms
	 * a bad response gets to be reported in. */
	c.access = IBV_ACCESS_REMOTE_READ;
	c.psn = 0xfffffe;		/* the PSNs wrap in the READs */
	c.timeout = 18;
	c.retry_cnt = 0;
	c.rnr_retry = 0;
	c.dest_rd_atomic = 1;
	ck_assert_int_eq(qp_connect(f->qp, &c, &peer), 0);
}

static void fx_close(struct fx *f)
{
	close(f->peer);
	ck_assert_int_eq(ibv_destroy_qp(f->qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(f->mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(f->cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(f->pd), 0);
	ck_assert_int_eq(ibv_close_device(f->ctx), 0);
	free(f->buf);
}

static void post_read(struct fx *f, uint64_t id, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->buf, .length = len, .lkey = f->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad = NULL;

	wr.wr.rdma.remote_addr = REMOTE_VA;
	wr.wr.rdma.rkey = REMOTE_RKEY;
	ck_assert_int_eq(ibv_post_send(f->qp, &wr, &bad), 0);
}

/* The next request the QP sends the peer: its opcode, PSN and RETH. */
struct req {
	uint8_t opcode;
	uint32_t psn;
	uint64_t va;
	uint32_t len;
};

static void peer_recv(struct fx *f, struct req *r)
{
	struct pollfd p = { .fd = f->peer, .events = POLLIN };
	uint8_t pkt[8192];
	ssize_t n;

	ck_assert_int_eq(poll(&p, 1, 3000), 1);
	n = recv(f->peer, pkt, sizeof(pkt), 0);
	ck_assert_int_ge(n, WIRE_BTH_LEN + WIRE_ICRC_LEN);
	r->opcode = bth_opcode(pkt);
	r->psn = bth_psn(pkt);
	ck_assert_uint_eq(bth_qpn(pkt), PEER_QPN);
	if (r->opcode == WIRE_OP_RC(READ_REQ)) {
		r->va = reth_va(pkt);
		r->len = reth_len(pkt);
	}
}

/* Send a response of opcode at psn with paylen bytes of pattern (and, for
 * an atomic ACK, an original value) to the QP, with a good ICRC. */
static void peer_send(struct fx *f, uint8_t op, uint32_t psn,
		      uint32_t paylen, uint8_t syn)
{
	struct sockaddr_in to = {
		.sin_family = AF_INET,
		.sin_port = htons(WIRE_ROCE_UDP_PORT),
		.sin_addr = f->dev_addr,
	};
	uint8_t pkt[8192], ph[ICRC_PSEUDO_MAX];
	unsigned int pad = wire_pad_len(paylen), i;
	size_t len = wire_op_hdr_len(op) + paylen + pad, iplen;

	memset(pkt, 0, sizeof(pkt));
	bth_init(pkt, op, false, false, pad, WIRE_DEFAULT_PKEY,
		 f->qp->qp_num, false, psn);
	if (wire_op_has(op, WIRE_F_AETH))
		aeth_init(pkt, syn, 1);
	if (wire_op_has(op, WIRE_F_ATMACK))
		atmack_set_orig(pkt, 77);
	for (i = 0; i < paylen; i++)
		wire_payload(pkt)[i] = (uint8_t)(psn * 3 + i);
	iplen = icrc_pseudo_v4(ph, &f->peer_addr, &f->dev_addr,
			       WIRE_ROCE_UDP_PORT, WIRE_ROCE_UDP_PORT,
			       len + ICRC_LEN);
	icrc_put(pkt + len, icrc_compute(ph, iplen, ph + iplen, pkt, len));
	ck_assert_int_eq(sendto(f->peer, pkt, len + ICRC_LEN, 0,
				(struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)(len + ICRC_LEN));
}

#define RESP(x) WIRE_OP_RC(READ_RESP_##x)
/* Syndromes as constants (the table below is static): an ACK with no
 * credit count, and a remote access NAK. */
#define ACK_SYN (AETH_ACK << AETH_KIND_SHIFT | AETH_CREDITS_INVALID)
#define NAK_SYN (AETH_NAK << AETH_KIND_SHIFT | AETH_NAK_REMOTE_ACCESS)

/* One response of a script: opcode, PSN offset in the READ, payload. */
struct step {
	uint8_t op;
	uint32_t dpsn, len;
	uint8_t syn;
};

struct script {
	const char *what;
	uint32_t read_len;
	struct step steps[4];
	unsigned int n;
};

/* Each answers a READ in a way IBTA does not allow: the READ must end
 * with BAD_RESP_ERR at once, not hang until the retry timer. */
static const struct script bad[] = {
	{ "MIDDLE at the last PSN", 2 * MTU,
	  { { RESP(FIRST), 0, MTU, ACK_SYN }, { RESP(MIDDLE), 1, MTU, 0 } },
	  2 },
	{ "MIDDLE for a one-packet READ", MTU,
	  { { RESP(MIDDLE), 0, MTU, 0 } }, 1 },
	{ "LAST for a one-packet READ", 100,
	  { { RESP(LAST), 0, 100, ACK_SYN } }, 1 },
	{ "LAST before the last PSN", 3 * MTU,
	  { { RESP(FIRST), 0, MTU, ACK_SYN }, { RESP(LAST), 1, MTU, ACK_SYN } },
	  2 },
	{ "ONLY for a two-packet READ", 2 * MTU,
	  { { RESP(ONLY), 0, MTU, ACK_SYN } }, 1 },
	{ "FIRST again with no request there", 3 * MTU,
	  { { RESP(FIRST), 0, MTU, ACK_SYN },
	    { RESP(FIRST), 1, MTU, ACK_SYN } }, 2 },
	{ "FIRST shorter than the MTU", 2 * MTU,
	  { { RESP(FIRST), 0, MTU - 4, ACK_SYN } }, 1 },
	{ "LAST shorter than the rest", 2 * MTU,
	  { { RESP(FIRST), 0, MTU, ACK_SYN }, { RESP(LAST), 1, 500, ACK_SYN } },
	  2 },
	{ "ONLY longer than the READ", 100,
	  { { RESP(ONLY), 0, 104, ACK_SYN } }, 1 },
	{ "ONLY with a NAK syndrome", 100,
	  { { RESP(ONLY), 0, 100, NAK_SYN } }, 1 },
	{ "an atomic ACK for a READ", 8,
	  { { WIRE_OP_RC(ATOMIC_ACK), 0, 0, ACK_SYN } }, 1 },
};

START_TEST(t_bad_read_response)
{
	const struct script *sc = &bad[_i];
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;
	struct ibv_wc wc;
	struct req r;
	struct fx f;
	unsigned int i;
	double t0;

	fx_open(&f);
	post_read(&f, 7, sc->read_len);
	peer_recv(&f, &r);
	ck_assert_uint_eq(r.opcode, WIRE_OP_RC(READ_REQ));
	ck_assert_uint_eq(r.len, sc->read_len);
	t0 = now_ms();
	for (i = 0; i < sc->n; i++)
		peer_send(&f, sc->steps[i].op,
			  (r.psn + sc->steps[i].dpsn) & 0xffffff,
			  sc->steps[i].len, sc->steps[i].syn);
	wait_wc(f.cq, &wc, 3000);
	ck_assert_msg(wc.status == IBV_WC_BAD_RESP_ERR,
		      "%s: status %s", sc->what, ibv_wc_status_str(wc.status));
	ck_assert_uint_eq(wc.wr_id, 7);
	ck_assert_msg(now_ms() - t0 < 300 * emu_test_slack(), "%s: after %.0f ms", sc->what,
		      now_ms() - t0);
	ck_assert_int_eq(ibv_query_qp(f.qp, &qa, IBV_QP_STATE, &init), 0);
	ck_assert_int_eq(qa.qp_state, IBV_QPS_ERR);
	fx_close(&f);
}
END_TEST

static void expect_data(struct fx *f, uint32_t first_psn, uint32_t len)
{
	uint32_t off;

	for (off = 0; off < len; off++) {
		uint32_t psn = (first_psn + off / MTU) & 0xffffff;

		ck_assert_uint_eq(f->buf[off],
				  (uint8_t)(psn * 3 + off % MTU));
	}
}

/* In sequence, across the PSN wrap: the READ completes with the data. */
START_TEST(t_good_read_response)
{
	struct ibv_wc wc;
	struct req r;
	struct fx f;

	fx_open(&f);
	post_read(&f, 1, 3 * MTU - 72);
	peer_recv(&f, &r);
	peer_send(&f, RESP(FIRST), r.psn, MTU, ACK_SYN);
	peer_send(&f, RESP(MIDDLE), (r.psn + 1) & 0xffffff, MTU, 0);
	peer_send(&f, RESP(LAST), (r.psn + 2) & 0xffffff, MTU - 72,
		  ACK_SYN);
	wait_wc(f.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	expect_data(&f, r.psn, 3 * MTU - 72);
	/* A single-packet READ answered by ONLY. */
	post_read(&f, 2, 40);
	peer_recv(&f, &r);
	peer_send(&f, RESP(ONLY), r.psn, 40, ACK_SYN);
	wait_wc(f.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 2);
	fx_close(&f);
}
END_TEST

/*
 * A response goes missing: the requester asks again for the rest, and the
 * responder answers that with a new stream, FIRST at the PSN asked from.
 * That FIRST is in sequence there, where it would not be without the
 * request.
 */
START_TEST(t_read_retry_restarts)
{
	struct ibv_wc wc;
	struct req r, r2;
	struct fx f;

	fx_open(&f);
	post_read(&f, 1, 4 * MTU);
	peer_recv(&f, &r);
	peer_send(&f, RESP(FIRST), r.psn, MTU, ACK_SYN);
	/* psn + 1 lost: psn + 2 arriving says so. */
	peer_send(&f, RESP(MIDDLE), (r.psn + 2) & 0xffffff, MTU, 0);
	peer_recv(&f, &r2);
	ck_assert_uint_eq(r2.opcode, WIRE_OP_RC(READ_REQ));
	ck_assert_uint_eq(r2.psn, (r.psn + 1) & 0xffffff);
	ck_assert_uint_eq(r2.va, REMOTE_VA + MTU);
	ck_assert_uint_eq(r2.len, 3 * MTU);
	peer_send(&f, RESP(FIRST), r2.psn, MTU, ACK_SYN);
	peer_send(&f, RESP(MIDDLE), (r.psn + 2) & 0xffffff, MTU, 0);
	peer_send(&f, RESP(LAST), (r.psn + 3) & 0xffffff, MTU, ACK_SYN);
	wait_wc(f.cq, &wc, 3000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	expect_data(&f, r.psn, 4 * MTU);
	fx_close(&f);
}
END_TEST

static Suite *comp_suite(void)
{
	Suite *s = suite_create("comp");
	TCase *tc = tcase_create("read_responses");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, t_bad_read_response, 0,
			    sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, t_good_read_response);
	tcase_add_test(tc, t_read_retry_restarts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(comp_suite());
}
