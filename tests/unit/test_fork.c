/* Unit tests for fork(): a child that uses what it inherited from its
 * parent (a context, a QP, its CQ and MRs) gets EIO and sends nothing,
 * closing and exiting disturb nothing of the parent's, and the parent's
 * traffic afterwards lands byte for byte. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/observe/ctl.h"
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define NWRITES 8
#define CHUNK 512

static uint8_t src[NWRITES * CHUNK], dst[NWRITES * CHUNK];
/* Where the child aims its WRITE: nothing may ever land here. */
static uint8_t bait[CHUNK];

/* What the child checks, in order; it exits with the number of the first
 * that failed (Check's asserts belong to the test's own process). */
enum child_check {
	C_POST_SEND = 1,
	C_POST_SEND_BAD_WR,
	C_POST_RECV,
	C_POLL_CQ,
	C_REQ_NOTIFY,
	C_MODIFY_QP,
	C_QUERY_QP,
	C_REG_MR,
	C_DEREG_MR,
	C_REREG_MR,
	C_ALLOC_PD,
	C_CREATE_CQ,
	C_OPEN_DEVICE,
	C_DESTROY_QP,
	C_CLOSE_DEVICE,
};

#define CHILD_EXPECT(cond, which)                                         \
	do {                                                              \
		if (!(cond))                                              \
			exit(which);                                      \
	} while (0)

/* The child: every verb on what it inherited fails with EIO. It ends
 * with exit(), so that whatever runs at exit runs. */
static void child(struct qp_pair *p, struct ibv_mr *smr, struct ibv_mr *bmr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = CHUNK,
			       .lkey = smr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 99, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)bait,
			     .rkey = bmr->rkey },
	}, *bad = NULL;
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge,
				   .num_sge = 1 }, *rbad = NULL;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_wc wc;

	memset(src, 0xcc, CHUNK);
	errno = 0;
	CHILD_EXPECT(ibv_post_send(p->qp[0], &wr, &bad) == EIO &&
		     errno == EIO, C_POST_SEND);
	CHILD_EXPECT(bad == &wr, C_POST_SEND_BAD_WR);
	errno = 0;
	CHILD_EXPECT(ibv_post_recv(p->qp[1], &rwr, &rbad) == EIO &&
		     errno == EIO && rbad == &rwr, C_POST_RECV);
	errno = 0;
	CHILD_EXPECT(ibv_poll_cq(p->cq[0], 1, &wc) < 0 && errno == EIO,
		     C_POLL_CQ);
	errno = 0;
	CHILD_EXPECT(ibv_req_notify_cq(p->cq[0], 0) == EIO && errno == EIO,
		     C_REQ_NOTIFY);
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_ERR;
	errno = 0;
	CHILD_EXPECT(ibv_modify_qp(p->qp[0], &attr, IBV_QP_STATE) == EIO &&
		     errno == EIO, C_MODIFY_QP);
	CHILD_EXPECT(ibv_query_qp(p->qp[0], &attr, IBV_QP_STATE,
				  &init) == EIO, C_QUERY_QP);
	errno = 0;
	CHILD_EXPECT(!ibv_reg_mr(p->pd, src, CHUNK, IBV_ACCESS_LOCAL_WRITE) &&
		     errno == EIO, C_REG_MR);
	errno = 0;
	CHILD_EXPECT(ibv_dereg_mr(bmr) == EIO && errno == EIO, C_DEREG_MR);
	errno = 0;
	CHILD_EXPECT(ibv_rereg_mr(bmr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
				  0, IBV_ACCESS_LOCAL_WRITE) ==
		     IBV_REREG_MR_ERR_INPUT && errno == EIO, C_REREG_MR);
	errno = 0;
	CHILD_EXPECT(!ibv_alloc_pd(p->ctx) && errno == EIO, C_ALLOC_PD);
	errno = 0;
	CHILD_EXPECT(!ibv_create_cq(p->ctx, 4, NULL, NULL, 0) &&
		     errno == EIO, C_CREATE_CQ);
	errno = 0;
	CHILD_EXPECT(!ibv_open_device(p->ctx->device) && errno == EIO,
		     C_OPEN_DEVICE);
	errno = 0;
	CHILD_EXPECT(ibv_destroy_qp(p->qp[0]) == EIO && errno == EIO,
		     C_DESTROY_QP);
	/* Letting go of the inherited context succeeds and touches nothing
	 * of the parent's; so does the exit after it. */
	CHILD_EXPECT(ibv_close_device(p->ctx) == 0, C_CLOSE_DEVICE);
	exit(0);
}

/* The port's sent and received packet counts, in the parent, which runs
 * both ends: equal once nothing is in flight, unless someone else sent. */
static void wait_counts_settle(struct ibv_context *ctx)
{
	double end = now_ms() + 5000;
	unsigned long long sent, rcvd;

	do {
		sent = port_counter(ctx, "sent_pkts");
		rcvd = port_counter(ctx, "rcvd_pkts");
		if (sent == rcvd)
			return;
		usleep(200);
	} while (now_ms() < end);
	ck_abort_msg("port received %llu packets, sent %llu: someone else "
		     "sent on this process's endpoint", rcvd, sent);
}

/*
 * The reproduction: the child posts a WRITE on the parent's QP.
 * It must fail (EIO) and send nothing, so that the parent's next WRITEs
 * take the PSNs they own and land, checked byte for byte; the bait the
 * child aimed at stays untouched, and the control socket survives the
 * child's close and exit.
 */
START_TEST(t_child_cannot_use_parent_qp)
{
	struct ibv_context *ctx;
	struct ibv_mr *smr, *dmr, *bmr;
	struct ibv_pd *pd;
	struct qp_pair p;
	char ctl[600];
	struct ibv_wc wc;
	unsigned int i;
	int st;
	pid_t pid;

	/* With the control socket, whose file the child must not remove. */
	unsetenv("EMUVERBS_NO_CONTROL");
	ctx = open_default();
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ck_assert_str_ne(emu_ctl_path(), "");
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + i / CHUNK + 1);
	memset(dst, 0, sizeof(dst));
	memset(bait, 0, sizeof(bait));
	smr = ibv_reg_mr(pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE);
	dmr = ibv_reg_mr(pd, dst, sizeof(dst), QP_ACCESS_ALL);
	bmr = ibv_reg_mr(pd, bait, sizeof(bait), QP_ACCESS_ALL);
	ck_assert_ptr_nonnull(smr);
	ck_assert_ptr_nonnull(dmr);
	ck_assert_ptr_nonnull(bmr);
	ck_assert_int_eq(qp_pair_open(&p, ctx, pd, NULL), 0);
	snprintf(ctl, sizeof(ctl), "%s", emu_ctl_path());
	wait_counts_settle(ctx);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		child(&p, smr, bmr);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "the child's check %d failed (status %#x)",
		      WIFEXITED(st) ? WEXITSTATUS(st) : -1, st);

	/* The parent's own: each WRITE completes and lands. */
	for (i = 0; i < NWRITES; i++) {
		ck_assert_int_eq(qp_post(p.qp[0], IBV_WR_RDMA_WRITE, i,
					 src + i * CHUNK, CHUNK, smr->lkey,
					 (uintptr_t)(dst + i * CHUNK),
					 dmr->rkey), 0);
		wait_wc(p.cq[0], &wc, 5000);
		ck_assert_uint_eq(wc.wr_id, i);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	}
	ck_assert_int_eq(memcmp(dst, src, sizeof(dst)), 0);
	for (i = 0; i < sizeof(bait); i++)
		ck_assert_uint_eq(bait[i], 0);
	wait_counts_settle(ctx);
	ck_assert_int_eq(access(ctl, F_OK), 0);

	ck_assert_int_eq(qp_pair_close(&p), 0);
	ck_assert_int_eq(ibv_dereg_mr(bmr), 0);
	ck_assert_int_eq(ibv_dereg_mr(dmr), 0);
	ck_assert_int_eq(ibv_dereg_mr(smr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static Suite *fork_suite(void)
{
	Suite *s = suite_create("fork");
	TCase *tc = tcase_create("child");

	tcase_add_test(tc, t_child_cannot_use_parent_qp);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(fork_suite());
}
