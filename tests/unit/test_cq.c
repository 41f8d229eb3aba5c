/* Unit tests for completion queues and channels through the public API only
 * (libibverbs.la and include/infiniband/verbs.h): wiring, sizes, errors. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

static int max_cqe(struct ibv_context *ctx)
{
	struct ibv_device_attr a;

	ck_assert_int_eq(ibv_query_device(ctx, &a), 0);
	return a.max_cqe;
}

START_TEST(t_create_destroy)
{
	struct ibv_context *ctx = open_default();
	struct ibv_cq *cq;
	struct ibv_wc wc;
	int tag;

	ck_assert_int_eq(max_cqe(ctx), 4194303);	/* mlx5's */
	cq = ibv_create_cq(ctx, 3, &tag, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_ptr_eq(cq->context, ctx);
	ck_assert_ptr_eq(cq->cq_context, &tag);
	ck_assert_ptr_null(cq->channel);
	ck_assert_int_eq(cq->cqe, 4); /* next power of two */
	ck_assert_uint_eq(cq->comp_events_completed, 0);
	ck_assert_uint_eq(cq->async_events_completed, 0);
	/* The ops are ours, not the EOPNOTSUPP placeholders. */
	ck_assert_int_eq(ibv_poll_cq(cq, 1, &wc), 0);
	ck_assert_int_eq(ibv_poll_cq(cq, 0, &wc), 0);
	ck_assert_int_lt(ibv_poll_cq(cq, -1, &wc), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 1), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);

	cq = ibv_create_cq(ctx, max_cqe(ctx), NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(cq->cqe, max_cqe(ctx));
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_cq(NULL), EINVAL);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_create_args)
{
	struct ibv_context *ctx = open_default();
	struct ibv_context *other = open_default();
	struct ibv_comp_channel *och = ibv_create_comp_channel(other);
	const int bad[] = {0, -1, 4194304, 0x7fffffff};
	unsigned int i;

	ck_assert_ptr_nonnull(och);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ck_assert_ptr_null(ibv_create_cq(ctx, bad[i], NULL, NULL, 0));
		ck_assert_int_eq(errno, EINVAL);
	}
	errno = 0;
	ck_assert_ptr_null(
		ibv_create_cq(ctx, 4, NULL, NULL, ctx->num_comp_vectors));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ctx, 4, NULL, NULL, -1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ctx, 4, NULL, och, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(och->refcnt, 0);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(NULL, 4, NULL, NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_destroy_comp_channel(och), 0);
	ck_assert_int_eq(ibv_close_device(other), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_channel)
{
	struct ibv_context *ctx = open_default();
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct pollfd p;
	struct ibv_cq *cq, *got = NULL;
	void *gotctx = NULL;
	int fl;

	ck_assert_ptr_nonnull(ch);
	ck_assert_ptr_eq(ch->context, ctx);
	ck_assert_int_ge(ch->fd, 0);
	ck_assert_int_ne(ch->fd, ctx->async_fd);
	ck_assert_int_eq(ch->refcnt, 0);
	ck_assert(fcntl(ch->fd, F_GETFD) & FD_CLOEXEC);

	cq = ibv_create_cq(ctx, 16, (void *)5, ch, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_ptr_eq(cq->channel, ch);
	ck_assert_int_eq(ch->refcnt, 1);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);

	/* Nothing happened: not readable, and non-blocking says EAGAIN. */
	p = (struct pollfd){.fd = ch->fd, .events = POLLIN};
	ck_assert_int_eq(poll(&p, 1, 0), 0);
	fl = fcntl(ch->fd, F_GETFL);
	ck_assert_int_eq(fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &gotctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_ptr_null(got);

	ck_assert_int_eq(ibv_destroy_comp_channel(ch), EBUSY);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ch->refcnt, 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);

	errno = 0;
	ck_assert_ptr_null(ibv_create_comp_channel(NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_destroy_comp_channel(NULL), EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_get_cq_event(NULL, &got, &gotctx), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends a blocked ibv_get_cq_event with EINTR (rdma-core reads
 * the channel once): qperf stops its blocked tests with an alarm. */
START_TEST(t_channel_eintr)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no RESTART */
	struct itimerval it = { .it_value = { .tv_usec = 50000 } };
	struct ibv_context *ctx = open_default();
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq, *got = NULL;
	void *cq_ctx;

	ck_assert_ptr_nonnull(ch);
	cq = ibv_create_cq(ctx, 4, NULL, ch, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	errno = 0;
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &cq_ctx), -1);
	ck_assert_int_eq(errno, EINTR);
	ck_assert_ptr_null(got);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_resize)
{
	struct ibv_context *ctx = open_default();
	struct ibv_cq *cq = ibv_create_cq(ctx, 5, NULL, NULL, 0);

	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(cq->cqe, 8);
	ck_assert_int_eq(ibv_resize_cq(cq, 100), 0);
	ck_assert_int_eq(cq->cqe, 128);
	ck_assert_int_eq(ibv_resize_cq(cq, 1), 0);
	ck_assert_int_eq(cq->cqe, 1);
	ck_assert_int_eq(ibv_resize_cq(cq, 0), EINVAL);
	ck_assert_int_eq(ibv_resize_cq(cq, -3), EINVAL);
	ck_assert_int_eq(ibv_resize_cq(cq, max_cqe(ctx) + 1), EINVAL);
	ck_assert_int_eq(ibv_resize_cq(NULL, 4), EINVAL);
	ck_assert_int_eq(cq->cqe, 1);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_cq_ex)
{
	struct ibv_context *ctx = open_default();
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq_init_attr_ex a = {
		.cqe = 10,
		.cq_context = (void *)4,
		.channel = ch,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
	};
	struct ibv_cq_ex *cqx;
	struct ibv_wc wc;

	ck_assert_ptr_nonnull(ch);
	cqx = ibv_create_cq_ex(ctx, &a);
	ck_assert_ptr_nonnull(cqx);
	ck_assert_int_eq(cqx->cqe, 16);
	ck_assert_ptr_eq(cqx->context, ctx);
	ck_assert_ptr_eq(cqx->channel, ch);
	ck_assert_ptr_eq(cqx->cq_context, (void *)4);
	ck_assert_int_eq(ch->refcnt, 1);
	ck_assert_int_eq(ibv_start_poll(cqx, NULL), ENOENT);
	ck_assert_int_eq(ibv_poll_cq(ibv_cq_ex_to_cq(cqx), 1, &wc), 0);
	ck_assert_int_eq(ibv_req_notify_cq(ibv_cq_ex_to_cq(cqx), 1), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), EBUSY);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);

	a = (struct ibv_cq_init_attr_ex){
		.cqe = 4,
		.wc_flags = IBV_WC_EX_WITH_CVLAN,
	};
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &a));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	a.wc_flags = 0;
	a.comp_mask = 1u << 5;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
	a.comp_mask = 0;
	a.cqe = 0;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* The device's max_cqe from the config file bounds and clamps sizes. */
START_TEST(t_config_max_cqe)
{
	struct ibv_context *ctx;
	struct ibv_cq *cq;

	emu_test_write_config("[device emu0]\nmax_cqe = 100\n");
	ctx = open_default();
	ck_assert_int_eq(max_cqe(ctx), 100);
	cq = ibv_create_cq(ctx, 70, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(cq->cqe, 100);
	ck_assert_int_eq(ibv_resize_cq(cq, 101), EINVAL);
	ck_assert_int_eq(ibv_resize_cq(cq, 33), 0);
	ck_assert_int_eq(cq->cqe, 64);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ctx, 101, NULL, NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* Resident memory of this process, in KiB (/proc/self/statm). */
static long rss_kib(void)
{
	long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%ld %ld", &size, &resident), 2);
	fclose(f);
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/*
 * A CQ costs memory in proportion to its size, and only as completions
 * fill it: the largest one (4194303 entries, some 256 MiB of ring) is
 * created without touching its ring, and a thousand small ones stay
 * small.
 */
START_TEST(t_memory_follows_use)
{
	struct ibv_context *ctx = open_default();
	struct ibv_cq *big, *small[1000];
	long before;
	int i;

	before = rss_kib();
	big = ibv_create_cq(ctx, 4194303, NULL, NULL, 0);
	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(big->cqe, 4194303);
	ck_assert_msg(rss_kib() - before < 8 * 1024, "RSS grew %ld KiB",
		      rss_kib() - before);
	ck_assert_int_eq(ibv_destroy_cq(big), 0);

	before = rss_kib();
	for (i = 0; i < 1000; i++) {
		small[i] = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		ck_assert_ptr_nonnull(small[i]);
	}
	/* A 16-entry ring is 1 KiB; a CQ with its locks a few more. */
	ck_assert_msg(rss_kib() - before < 8 * 1024, "RSS grew %ld KiB",
		      rss_kib() - before);
	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(ibv_destroy_cq(small[i]), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* max_cq counts the device's CQs, plain and extended, of every context:
 * one past it is ENOMEM, as for PDs. */
START_TEST(t_config_max_cq)
{
	struct ibv_cq_init_attr_ex cia = { .cqe = 4 };
	struct ibv_context *ctx, *ctx2;
	struct ibv_cq *cq[3];

	emu_test_write_config("[device emu0]\nmax_cq = 2\n");
	ctx = open_default();
	cq[0] = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	cq[1] = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq[0]);
	ck_assert_ptr_nonnull(cq[1]);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ctx, 4, NULL, NULL, 0));
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &cia));
	ck_assert_int_eq(errno, ENOMEM);
	ctx2 = open_default();
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ctx2, 4, NULL, NULL, 0));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(ibv_close_device(ctx2), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq[0]), 0);
	cq[2] = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq[2]);
	ck_assert_int_eq(ibv_destroy_cq(cq[1]), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq[2]), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static Suite *cq_suite(void)
{
	Suite *s = suite_create("verbs_cq");
	TCase *tc = tcase_create("default");

	tcase_add_test(tc, t_create_destroy);
	tcase_add_test(tc, t_create_args);
	tcase_add_test(tc, t_channel);
	tcase_add_test(tc, t_channel_eintr);
	tcase_add_test(tc, t_resize);
	tcase_add_test(tc, t_cq_ex);
	tcase_add_test(tc, t_config_max_cqe);
	tcase_add_test(tc, t_memory_follows_use);
	tcase_add_test(tc, t_config_max_cq);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(cq_suite());
}
