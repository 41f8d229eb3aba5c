/* Unit tests for tag-matching SRQs through the public API: tm_caps, create
 * errors, list operations, eager, unexpected, sync, NO_TAG and rendezvous. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>

#include <check.h>
#include <infiniband/verbs.h>
#include <infiniband/tm_types.h>

#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		IBV_ACCESS_REMOTE_READ)
#define BUF_LEN (64 * 1024)
#define TMH_LEN ((uint32_t)sizeof(struct ibv_tmh))
#define RVH_LEN ((uint32_t)sizeof(struct ibv_rvh))
/* Where things live in the one registered buffer. */
#define SEND_OFF 0			/* client's outgoing messages */
#define FIN_OFF (8 * 1024)		/* client's receive (the FIN) */
#define RNDV_OFF (12 * 1024)		/* client's rendezvous data */
#define TAG_OFF (24 * 1024)		/* tag buffers, 4 KiB apart */
#define PLAIN_OFF (56 * 1024)		/* the SRQ's plain WQE */

/* ---- fixture: a client RC QP talking to a server RC QP on a TM SRQ ----- */

struct fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *scq;		/* the TM SRQ's and server QP's CQ */
	struct ibv_cq *ccq;		/* the client's */
	uint8_t *buf;
	struct ibv_mr *mr;
	struct ibv_srq *srq;
	struct ibv_qp *server, *client;
};

/* One completion as the extended CQ reports it. */
struct xwc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	unsigned int flags;
	uint32_t byte_len;
	struct ibv_wc_tm_info tm;
};

static struct ibv_cq_ex *make_cqx(struct ibv_context *ctx, uint64_t flags)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 256,
		.wc_flags = flags,
	};

	return ibv_create_cq_ex(ctx, &a);
}

static struct ibv_srq *make_tm_srq(struct fx *f, uint32_t tags,
				   uint32_t ops)
{
	struct ibv_srq_init_attr_ex x = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM,
		.srq_type = IBV_SRQT_TM,
		.pd = f->pd,
		.cq = ibv_cq_ex_to_cq(f->scq),
		.tm_cap = { .max_num_tags = tags, .max_ops = ops },
	};

	return ibv_create_srq_ex(f->ctx, &x);
}

static void fx_open(struct fx *f, bool traffic)
{
	static const struct ibv_qp_cap server_cap = {
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	static const struct ibv_qp_cap client_cap = {
		.max_send_wr = 8, .max_recv_wr = 8,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct qp_conn c = qp_conn_default;

	c.access = ACCESS;
	c.psn = 0x100;
	c.timeout = 10;
	c.rd_atomic = 1;
	c.dest_rd_atomic = 1;
	memset(f, 0, sizeof(*f));
	f->ctx = open_default();
	f->pd = ibv_alloc_pd(f->ctx);
	ck_assert_ptr_nonnull(f->pd);
	f->scq = make_cqx(f->ctx, IBV_WC_STANDARD_FLAGS |
			  IBV_WC_EX_WITH_TM_INFO);
	ck_assert_ptr_nonnull(f->scq);
	f->ccq = ibv_create_cq(f->ctx, 256, NULL, NULL, 0);
	ck_assert_ptr_nonnull(f->ccq);
	f->buf = calloc(1, BUF_LEN);
	ck_assert_ptr_nonnull(f->buf);
	f->mr = ibv_reg_mr(f->pd, f->buf, BUF_LEN, ACCESS);
	ck_assert_ptr_nonnull(f->mr);
	f->srq = make_tm_srq(f, 8, 4);
	ck_assert_ptr_nonnull(f->srq);
	if (!traffic)
		return;
	/* As rdma-core's test: the server QP has no send queue at all. */
	f->server = qp_create(f->pd, ibv_cq_ex_to_cq(f->scq), f->srq,
			      IBV_QPT_RC, &server_cap);
	ck_assert_ptr_nonnull(f->server);
	f->client = qp_create(f->pd, f->ccq, NULL, IBV_QPT_RC, &client_cap);
	ck_assert_ptr_nonnull(f->client);
	ck_assert_int_eq(qp_connect_pair(f->server, f->client, &c), 0);
}

static void fx_close(struct fx *f)
{
	if (f->client)
		ck_assert_int_eq(ibv_destroy_qp(f->client), 0);
	if (f->server)
		ck_assert_int_eq(ibv_destroy_qp(f->server), 0);
	ck_assert_int_eq(ibv_destroy_srq(f->srq), 0);
	ck_assert_int_eq(ibv_dereg_mr(f->mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(f->ccq), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(f->scq)), 0);
	ck_assert_int_eq(ibv_dealloc_pd(f->pd), 0);
	ck_assert_int_eq(ibv_close_device(f->ctx), 0);
	free(f->buf);
}

/* ---- helpers ------------------------------------------------------------ */

static void poll_x(struct ibv_cq_ex *cq, struct xwc *x)
{
	struct ibv_poll_cq_attr pa = { 0 };
	double end = now_ms() + 3000;
	int rc;

	while ((rc = ibv_start_poll(cq, &pa)) == ENOENT && now_ms() < end)
		usleep(50);
	ck_assert_msg(rc == 0, "no completion (%d)", rc);
	memset(x, 0, sizeof(*x));
	x->wr_id = cq->wr_id;
	x->status = cq->status;
	x->opcode = ibv_wc_read_opcode(cq);
	x->flags = ibv_wc_read_wc_flags(cq);
	x->byte_len = ibv_wc_read_byte_len(cq);
	ibv_wc_read_tm_info(cq, &x->tm);
	ibv_end_poll(cq);
}

static void expect_none(struct ibv_cq_ex *cq)
{
	struct ibv_poll_cq_attr pa = { 0 };

	usleep(20000);
	ck_assert_int_eq(ibv_start_poll(cq, &pa), ENOENT);
}

static void poll_plain(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = now_ms() + 3000;
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0 && now_ms() < end)
		usleep(50);
	ck_assert_int_eq(n, 1);
}

static int post_op(struct fx *f, enum ibv_ops_wr_opcode op, uint64_t wr_id,
		   int flags, uint32_t *handle, uint64_t tag, uint64_t mask,
		   uint32_t cnt, struct ibv_sge *sge)
{
	struct ibv_ops_wr wr = {
		.wr_id = wr_id,
		.opcode = op,
		.flags = flags,
	};
	struct ibv_ops_wr *bad = NULL;
	int rc;

	wr.tm.unexpected_cnt = cnt;
	wr.tm.handle = handle ? *handle : 0;
	wr.tm.add.recv_wr_id = wr_id + 1000;
	wr.tm.add.tag = tag;
	wr.tm.add.mask = mask;
	wr.tm.add.sg_list = sge;
	wr.tm.add.num_sge = sge ? 1 : 0;
	rc = ibv_post_srq_ops(f->srq, &wr, &bad);
	if (rc)
		ck_assert_ptr_eq(bad, &wr);
	else if (handle && op == IBV_WR_TAG_ADD)
		*handle = wr.tm.handle;
	return rc;
}

/* Post a tag whose buffer is tag buffer n, 4 KiB; its CQE says ADD. */
static uint32_t add_tag(struct fx *f, unsigned int n, uint64_t tag,
			uint64_t mask, bool sync_req)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->buf + TAG_OFF + n * 4096,
		.length = 4096,
		.lkey = f->mr->lkey,
	};
	uint32_t h = 0;
	struct xwc x;

	ck_assert_int_eq(post_op(f, IBV_WR_TAG_ADD, n, IBV_OPS_SIGNALED, &h,
				 tag, mask, 0, &sge), 0);
	poll_x(f->scq, &x);
	ck_assert_int_eq(x.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_ADD);
	ck_assert_uint_eq(x.wr_id, n);
	ck_assert_uint_eq(!!(x.flags & IBV_WC_TM_SYNC_REQ), sync_req);
	return h;
}

static void post_plain(struct fx *f, uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->buf + PLAIN_OFF,
		.length = 8192,
		.lkey = f->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ck_assert_int_eq(ibv_post_srq_recv(f->srq, &wr, &bad), 0);
}

/* A message of len bytes: TMH (op, tag, priv) then a byte pattern. */
static void client_send(struct fx *f, uint8_t op, uint64_t tag,
			uint32_t priv, uint32_t len, bool wait)
{
	struct ibv_tmh *h = (struct ibv_tmh *)(void *)(f->buf + SEND_OFF);
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->buf + SEND_OFF,
		.length = len,
		.lkey = f->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = tag, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	uint32_t i;

	for (i = TMH_LEN; i < len; i++)
		f->buf[SEND_OFF + i] = (uint8_t)(i * 7 + tag);
	memset(h, 0, sizeof(*h));
	h->opcode = op;
	h->app_ctx = htobe32(priv);
	h->tag = htobe64(tag);
	ck_assert_int_eq(ibv_post_send(f->client, &wr, &bad), 0);
	if (!wait)
		return;
	poll_plain(f->ccq, &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
}

static void check_payload(struct fx *f, size_t at, uint64_t tag,
			  uint32_t from, uint32_t len)
{
	uint32_t i;

	for (i = from; i < len; i++)
		ck_assert_uint_eq(f->buf[at + i - from],
				  (uint8_t)(i * 7 + tag));
}

/* ---- tests -------------------------------------------------------------- */

START_TEST(t_caps_and_create)
{
	struct ibv_device_attr_ex dx;
	struct ibv_srq_init_attr_ex x;
	struct ibv_cq_ex *plain;
	struct ibv_srq *basic, *tm;
	struct ibv_qp_init_attr qa;
	struct fx f;

	fx_open(&f, false);
	ck_assert_int_eq(ibv_query_device_ex(f.ctx, NULL, &dx), 0);
	ck_assert(dx.tm_caps.flags & IBV_TM_CAP_RC);
	ck_assert_uint_ge(dx.tm_caps.max_rndv_hdr_size, TMH_LEN + RVH_LEN);
	ck_assert_uint_ge(dx.tm_caps.max_num_tags, 8);
	ck_assert_uint_ge(dx.tm_caps.max_ops, 4);
	ck_assert_uint_ge(dx.tm_caps.max_sge, 1);
	/* The TM accessor exists exactly when the CQ asked for it. */
	ck_assert_ptr_nonnull(f.scq->read_tm_info);
	plain = make_cqx(f.ctx, IBV_WC_STANDARD_FLAGS);
	ck_assert_ptr_nonnull(plain);
	ck_assert_ptr_null(plain->read_tm_info);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(plain)), 0);

	memset(&x, 0, sizeof(x));
	x.attr.max_wr = 4;
	x.attr.max_sge = 1;
	x.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		      IBV_SRQ_INIT_ATTR_CQ;
	x.srq_type = IBV_SRQT_TM;
	x.pd = f.pd;
	x.cq = ibv_cq_ex_to_cq(f.scq);
	x.tm_cap.max_num_tags = 4;
	x.tm_cap.max_ops = 4;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);		/* no tm_cap */
	x.comp_mask |= IBV_SRQ_INIT_ATTR_TM;
	x.comp_mask &= ~IBV_SRQ_INIT_ATTR_CQ;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);		/* no CQ */
	x.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
	x.tm_cap.max_num_tags = dx.tm_caps.max_num_tags + 1;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);
	x.tm_cap.max_num_tags = 0;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);
	x.tm_cap.max_num_tags = dx.tm_caps.max_num_tags;
	x.tm_cap.max_ops = dx.tm_caps.max_ops + 1;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(f.ctx, &x));
	ck_assert_int_eq(errno, EINVAL);

	/* Only RC QPs may use a TM SRQ. */
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = f.ccq;
	qa.srq = f.srq;
	qa.cap.max_send_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.qp_type = IBV_QPT_UD;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(f.pd, &qa));
	ck_assert_int_eq(errno, EINVAL);

	/* A basic SRQ has no tag list. */
	x.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	x.srq_type = IBV_SRQT_BASIC;
	basic = ibv_create_srq_ex(f.ctx, &x);
	ck_assert_ptr_nonnull(basic);
	tm = f.srq;
	f.srq = basic;
	ck_assert_int_eq(post_op(&f, IBV_WR_TAG_SYNC, 1, 0, NULL, 0, 0, 0,
				 NULL), EINVAL);
	ck_assert_int_eq(ibv_destroy_srq(basic), 0);
	f.srq = tm;
	fx_close(&f);
}
END_TEST

START_TEST(t_list_ops)
{
	struct ibv_sge two[2] = { { 0 }, { 0 } };
	struct ibv_ops_wr wr, *bad;
	uint32_t h[8], stale;
	unsigned int i;
	struct xwc x;
	struct fx f;

	fx_open(&f, false);
	for (i = 0; i < 8; i++)
		h[i] = add_tag(&f, i, i, ~0ull, false);
	/* The list holds max_num_tags. */
	ck_assert_int_eq(post_op(&f, IBV_WR_TAG_ADD, 9, IBV_OPS_SIGNALED,
				 NULL, 9, ~0ull, 0, NULL), ENOMEM);
	/* Remove one: TM_DEL; again: the tag is gone, TM_ERR. */
	ck_assert_int_eq(post_op(&f, IBV_WR_TAG_DEL, 20, IBV_OPS_SIGNALED,
				 &h[3], 0, 0, 0, NULL), 0);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_DEL);
	ck_assert_int_eq(x.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(x.wr_id, 20);
	stale = h[3];
	ck_assert_int_eq(post_op(&f, IBV_WR_TAG_DEL, 21, 0, &stale, 0, 0, 0,
				 NULL), 0);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_DEL);
	ck_assert_int_eq(x.status, IBV_WC_TM_ERR);
	ck_assert_uint_eq(x.wr_id, 21);
	stale = 1000;
	ck_assert_int_eq(post_op(&f, IBV_WR_TAG_DEL, 22, 0, &stale, 0, 0, 0,
				 NULL), EINVAL);
	/* The freed entry is reused; an unsignaled ADD completes silently. */
	ck_assert_int_eq(post_op(&f, IBV_WR_TAG_ADD, 23, 0, NULL, 3, ~0ull,
				 0, NULL), 0);
	expect_none(f.scq);
	/* SYNC completes as TM_SYNC; bad opcode, flags or SGE list fail. */
	ck_assert_int_eq(post_op(&f, IBV_WR_TAG_SYNC, 24, IBV_OPS_SIGNALED |
				 IBV_OPS_TM_SYNC, NULL, 0, 0, 0, NULL), 0);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_SYNC);
	ck_assert_uint_eq(x.wr_id, 24);
	ck_assert_uint_eq(x.tm.tag, 0);
	ck_assert_int_eq(post_op(&f, (enum ibv_ops_wr_opcode)7, 25, 0, NULL,
				 0, 0, 0, NULL), EINVAL);
	ck_assert_int_eq(post_op(&f, IBV_WR_TAG_SYNC, 26, 1 << 5, NULL, 0, 0,
				 0, NULL), EINVAL);
	ck_assert_int_eq(post_op(&f, IBV_WR_TAG_DEL, 27, 0, &h[0], 0, 0, 0,
				 NULL), 0);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_TAG_ADD;
	wr.tm.add.sg_list = two;
	wr.tm.add.num_sge = 2;
	ck_assert_int_eq(ibv_post_srq_ops(f.srq, &wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	ck_assert_int_eq(ibv_post_srq_ops(f.srq, NULL, &bad), 0);
	expect_none(f.scq);
	fx_close(&f);
}
END_TEST

START_TEST(t_eager)
{
	struct xwc x;
	struct fx f;

	fx_open(&f, true);
	/* Two tags match 0x15 (masked); the first posted wins. */
	add_tag(&f, 0, 0x05, 0x0f, false);
	add_tag(&f, 1, 0x15, ~0ull, false);
	add_tag(&f, 2, 0x200, 0xf00, false);
	client_send(&f, IBV_TMH_EAGER, 0x15, 0xabcd, 100, true);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_RECV);
	ck_assert_uint_eq(x.flags & (IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID),
			  IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID);
	ck_assert_uint_eq(x.wr_id, 1000);		/* recv_wr_id of 0 */
	ck_assert_uint_eq(x.byte_len, 100 - TMH_LEN);
	ck_assert_uint_eq(x.tm.tag, 0x15);
	ck_assert_uint_eq(x.tm.priv, 0xabcd);
	check_payload(&f, TAG_OFF, 0x15, TMH_LEN, 100);
	client_send(&f, IBV_TMH_EAGER, 0x15, 0, 60, true);
	poll_x(f.scq, &x);
	ck_assert_uint_eq(x.wr_id, 1001);
	check_payload(&f, TAG_OFF + 4096, 0x15, TMH_LEN, 60);
	/* Several packets (MTU 1024): the data lands whole. */
	client_send(&f, IBV_TMH_EAGER, 0x2ff, 7, 3000, true);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(x.wr_id, 1002);
	ck_assert_uint_eq(x.byte_len, 3000 - TMH_LEN);
	ck_assert_uint_eq(x.tm.tag, 0x2ff);
	check_payload(&f, TAG_OFF + 2 * 4096, 0x2ff, TMH_LEN, 3000);
	expect_none(f.scq);
	fx_close(&f);
}
END_TEST

/* A message longer than its tag's buffer fails that tag, once, and the
 * QP: the sender hears of an invalid request. */
START_TEST(t_eager_too_long)
{
	struct ibv_wc wc;
	struct xwc x;
	struct fx f;

	fx_open(&f, true);
	add_tag(&f, 0, 4, ~0ull, false);
	client_send(&f, IBV_TMH_EAGER, 4, 0, 6000, false);
	poll_plain(f.ccq, &wc);
	ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.status, IBV_WC_LOC_LEN_ERR);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_RECV);
	ck_assert_uint_eq(x.wr_id, 1000);
	expect_none(f.scq);
	fx_close(&f);
}
END_TEST

START_TEST(t_unexpected_sync)
{
	struct xwc x;
	struct fx f;

	fx_open(&f, true);
	add_tag(&f, 0, 1, ~0ull, false);
	post_plain(&f, 77);
	/* No tag: the whole message, TMH included, in the plain WQE. */
	client_send(&f, IBV_TMH_EAGER, 2, 0, 200, true);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_RECV);
	ck_assert_uint_eq(x.flags & (IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID),
			  0);
	ck_assert_uint_eq(x.wr_id, 77);
	ck_assert_uint_eq(x.byte_len, 200);
	ck_assert_uint_eq(x.tm.tag, 0);
	ck_assert_uint_eq(f.buf[PLAIN_OFF], IBV_TMH_EAGER);
	check_payload(&f, PLAIN_OFF + TMH_LEN, 2, TMH_LEN, 200);
	/* Until software reports that message, tag 1 does not match. */
	post_plain(&f, 78);
	add_tag(&f, 1, 3, ~0ull, true);
	client_send(&f, IBV_TMH_EAGER, 1, 0, 50, true);
	poll_x(f.scq, &x);
	ck_assert_uint_eq(x.wr_id, 78);
	ck_assert_uint_eq(x.flags & IBV_WC_TM_MATCH, 0);
	ck_assert_int_eq(post_op(&f, IBV_WR_TAG_SYNC, 5, IBV_OPS_SIGNALED |
				 IBV_OPS_TM_SYNC, NULL, 0, 0, 2, NULL), 0);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_SYNC);
	ck_assert_uint_eq(x.flags & IBV_WC_TM_SYNC_REQ, 0);
	client_send(&f, IBV_TMH_EAGER, 1, 0, 50, true);
	poll_x(f.scq, &x);
	ck_assert_uint_eq(x.wr_id, 1000);
	ck_assert(x.flags & IBV_WC_TM_MATCH);
	/* Without a plain WQE an unexpected message waits (RNR). */
	client_send(&f, IBV_TMH_EAGER, 9, 0, 50, false);
	usleep(20000);
	expect_none(f.scq);
	post_plain(&f, 79);
	poll_x(f.scq, &x);
	ck_assert_uint_eq(x.wr_id, 79);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_RECV);
	fx_close(&f);
}
END_TEST

START_TEST(t_no_tag_and_fin)
{
	struct ibv_wc wc;
	struct xwc x;
	struct fx f;

	fx_open(&f, true);
	add_tag(&f, 0, 0, 0, false);		/* would match anything */
	post_plain(&f, 50);
	client_send(&f, IBV_TMH_NO_TAG, 1, 0, 80, true);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_NO_TAG);
	ck_assert_uint_eq(x.wr_id, 50);
	ck_assert_uint_eq(x.byte_len, 80);
	ck_assert_uint_eq(x.flags & IBV_WC_TM_MATCH, 0);
	/* A FIN is an ordinary receive. */
	post_plain(&f, 51);
	client_send(&f, IBV_TMH_FIN, 1, 0, TMH_LEN, true);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(x.wr_id, 51);
	/* An opcode TM does not know is an invalid request. */
	client_send(&f, 9, 1, 0, 40, false);
	poll_plain(f.ccq, &wc);
	ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);
	fx_close(&f);
}
END_TEST

START_TEST(t_rndv)
{
	struct ibv_send_wr *bad;
	struct ibv_rvh *rvh;
	struct ibv_tmh *fin;
	struct ibv_wc wc;
	struct xwc x;
	struct fx f;
	uint32_t i;

	fx_open(&f, true);
	add_tag(&f, 0, 0x42, ~0ull, false);
	/* Build the header by hand: the RVH names the client's data. */
	{
		struct ibv_sge rsge = {
			.addr = (uintptr_t)f.buf + FIN_OFF,
			.length = 64,
			.lkey = f.mr->lkey,
		};
		struct ibv_recv_wr rwr = { .wr_id = 600, .sg_list = &rsge,
					   .num_sge = 1 };
		struct ibv_recv_wr *rbad;
		struct ibv_tmh *h;
		struct ibv_sge sge = {
			.addr = (uintptr_t)f.buf + SEND_OFF,
			.length = TMH_LEN + RVH_LEN,
			.lkey = f.mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = 1, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		};

		ck_assert_int_eq(ibv_post_recv(f.client, &rwr, &rbad), 0);
		for (i = 0; i < 3000; i++)
			f.buf[RNDV_OFF + i] = (uint8_t)(i * 13 + 1);
		h = (struct ibv_tmh *)(void *)(f.buf + SEND_OFF);
		memset(h, 0, TMH_LEN + RVH_LEN);
		h->opcode = IBV_TMH_RNDV;
		h->app_ctx = htobe32(0x99);
		h->tag = htobe64(0x42);
		rvh = (struct ibv_rvh *)(void *)(h + 1);
		rvh->va = htobe64((uintptr_t)f.buf + RNDV_OFF);
		rvh->rkey = htobe32(f.mr->rkey);
		rvh->len = htobe32(3000);
		ck_assert_int_eq(ibv_post_send(f.client, &wr, &bad), 0);
	}
	/* The match, then the data once the READ is answered. */
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_RECV);
	ck_assert_uint_eq(x.flags & (IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID),
			  IBV_WC_TM_MATCH);
	ck_assert_uint_eq(x.wr_id, 1000);
	ck_assert_uint_eq(x.tm.tag, 0x42);
	ck_assert_uint_eq(x.tm.priv, 0x99);
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_RECV);
	ck_assert_uint_eq(x.flags & (IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID),
			  IBV_WC_TM_DATA_VALID);
	ck_assert_uint_eq(x.wr_id, 1000);
	ck_assert_uint_eq(x.byte_len, 3000);
	ck_assert_int_eq(memcmp(f.buf + TAG_OFF, f.buf + RNDV_OFF, 3000), 0);
	/* The client: its SEND, then the FIN naming the tag. */
	poll_plain(f.ccq, &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
	poll_plain(f.ccq, &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc.wr_id, 600);
	ck_assert_uint_eq(wc.byte_len, TMH_LEN);
	fin = (struct ibv_tmh *)(void *)(f.buf + FIN_OFF);
	ck_assert_uint_eq(fin->opcode, IBV_TMH_FIN);
	ck_assert_uint_eq(be64toh(fin->tag), 0x42);
	expect_none(f.scq);
	fx_close(&f);
}
END_TEST

START_TEST(t_rndv_incomplete)
{
	struct ibv_send_wr *bad;
	struct ibv_tmh *h;
	struct ibv_rvh *rvh;
	struct ibv_wc wc;
	struct xwc x;
	struct fx f;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};

	fx_open(&f, true);
	add_tag(&f, 0, 0x43, ~0ull, false);
	sge.addr = (uintptr_t)f.buf + SEND_OFF;
	sge.length = TMH_LEN + RVH_LEN;
	sge.lkey = f.mr->lkey;
	h = (struct ibv_tmh *)(void *)(f.buf + SEND_OFF);
	memset(h, 0, TMH_LEN + RVH_LEN);
	h->opcode = IBV_TMH_RNDV;
	h->tag = htobe64(0x43);
	rvh = (struct ibv_rvh *)(void *)(h + 1);
	rvh->va = htobe64((uintptr_t)f.buf + RNDV_OFF);
	rvh->rkey = htobe32(f.mr->rkey);
	rvh->len = htobe32(8192);		/* more than the tag's 4 KiB */
	ck_assert_int_eq(ibv_post_send(f.client, &wr, &bad), 0);
	/* Software must fetch it: the header is in the tag's buffer. */
	poll_x(f.scq, &x);
	ck_assert_int_eq(x.status, IBV_WC_TM_RNDV_INCOMPLETE);
	ck_assert_int_eq(x.opcode, IBV_WC_TM_RECV);
	ck_assert_uint_eq(x.wr_id, 1000);
	ck_assert_uint_eq(x.byte_len, TMH_LEN + RVH_LEN);
	ck_assert_int_eq(memcmp(f.buf + TAG_OFF, h, TMH_LEN + RVH_LEN), 0);
	poll_plain(f.ccq, &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	/* A header with no RVH is refused. */
	sge.length = TMH_LEN + 4;
	add_tag(&f, 1, 0x43, ~0ull, false);
	ck_assert_int_eq(ibv_post_send(f.client, &wr, &bad), 0);
	poll_plain(f.ccq, &wc);
	ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);
	fx_close(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tm");
	TCase *tc = tcase_create("tm");

	emu_test_isolate_config();
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_caps_and_create);
	tcase_add_test(tc, t_list_ops);
	tcase_add_test(tc, t_eager);
	tcase_add_test(tc, t_eager_too_long);
	tcase_add_test(tc, t_unexpected_sync);
	tcase_add_test(tc, t_no_tag_and_fin);
	tcase_add_test(tc, t_rndv);
	tcase_add_test(tc, t_rndv_incomplete);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
