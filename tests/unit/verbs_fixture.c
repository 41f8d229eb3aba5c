/* Shared by the unit tests that drive the public verbs API: opening the
 * first device or one by name, a monotonic clock, waiting for completions
 * and events, reading a port counter, and traffic to count. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <infiniband/verbs.h>
#include <emuverbs/port.h>

#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

/* only: the list must hold exactly one device, not just one or more. */
static struct ibv_context *open_first(bool only)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n = -1;

	list = ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	if (only)
		ck_assert_int_eq(n, 1);
	else
		ck_assert_int_ge(n, 1);
	ctx = ibv_open_device(list[0]);
	ck_assert_ptr_nonnull(ctx);
	ibv_free_device_list(list);
	return ctx;
}

struct ibv_context *open_named(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	ck_assert_ptr_nonnull(list);
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	ck_assert_msg(ctx != NULL, "no device %s, or it cannot be opened",
		      name);
	return ctx;
}

struct ibv_context *open_default(void)
{
	return open_first(false);
}

struct ibv_context *open_only(void)
{
	return open_first(true);
}

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	double end = now_ms() + ms * emu_test_slack();
	int n;

	/* Nap briefly between polls: completions come from the engine
	 * thread within microseconds, a longer nap only slows the tests. */
	do {
		n = ibv_poll_cq(cq, 1, wc);
		ck_assert_int_ge(n, 0);
		if (n)
			return;
		usleep(50);
	} while (now_ms() < end);
	ck_abort_msg("no completion within %d ms", ms);
}

void expect_status(struct ibv_cq *cq, uint64_t id, enum ibv_wc_status st)
{
	struct ibv_wc wc;

	wait_wc(cq, &wc, 5000);
	ck_assert_msg(wc.status == st, "wr %llu: %s, expected %s",
		      (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status), ibv_wc_status_str(st));
	ck_assert_uint_eq(wc.wr_id, id);
}

void expect_no_wc(struct ibv_cq *cq, int ms)
{
	double end = now_ms() + ms;
	struct ibv_wc wc;

	/* Polls at least once, so ms == 0 still checks the queue is empty. */
	do {
		ck_assert_int_eq(ibv_poll_cq(cq, 1, &wc), 0);
		usleep(200);
	} while (now_ms() < end);
}

bool get_event(struct ibv_context *ctx, struct ibv_async_event *ev, int ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&p, 1, (int)(ms * emu_test_slack())) <= 0)
		return false;
	ck_assert_int_eq(ibv_get_async_event(ctx, ev), 0);
	return true;
}

unsigned long long port_counter(struct ibv_context *ctx, const char *name)
{
	char buf[8192], key[64];
	unsigned long long v;
	const char *p;
	int n;

	ck_assert_int_gt(emuverbs_port_counters(ctx, 1, buf, sizeof(buf)), 0);
	for (p = buf; sscanf(p, "%63s %llu%n", key, &v, &n) == 2; p += n)
		if (!strcmp(key, name))
			return v;
	ck_abort_msg("no counter %s in:\n%s", name, buf);
	return 0;
}

void traffic_open(struct traffic *t)
{
	struct qp_pair_opts o = {
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	memset(t, 0, sizeof(*t));
	t->ctx = open_default();
	t->pd = ibv_alloc_pd(t->ctx);
	ck_assert_ptr_nonnull(t->pd);
	o.cq[0] = o.cq[1] = ibv_create_cq(t->ctx, 256, NULL, NULL, 0);
	ck_assert_ptr_nonnull(o.cq[0]);
	t->buf = calloc(1, TRAFFIC_BUF);
	ck_assert_ptr_nonnull(t->buf);
	t->mr = ibv_reg_mr(t->pd, t->buf, TRAFFIC_BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(t->mr);
	ck_assert_int_eq(qp_pair_open(&t->p, t->ctx, t->pd, &o), 0);
}

void traffic_send(struct traffic *t, uint32_t len, unsigned int n)
{
	uint8_t *rbuf = t->buf + TRAFFIC_BUF / 2;
	struct ibv_wc wc;
	unsigned int i, k;

	ck_assert_uint_le(len, TRAFFIC_BUF / 2);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(qp_recv(t->p.qp[1], i, rbuf, TRAFFIC_BUF / 2,
					 t->mr->lkey), 0);
		ck_assert_int_eq(qp_post(t->p.qp[0], IBV_WR_SEND, i, t->buf,
					 len, t->mr->lkey, 0, 0), 0);
		for (k = 0; k < 2; k++) {
			wait_wc(t->p.cq[0], &wc, 5000);
			ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		}
	}
}

void traffic_close(struct traffic *t)
{
	struct ibv_cq *cq = t->p.cq[0];

	ck_assert_int_eq(qp_pair_close(&t->p), 0);
	ck_assert_int_eq(ibv_dereg_mr(t->mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(t->pd), 0);
	ck_assert_int_eq(ibv_close_device(t->ctx), 0);
	free(t->buf);
}
