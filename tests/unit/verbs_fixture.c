/* Shared by the unit tests that drive the public verbs API: opening the
 * first device or one by name, a monotonic clock, waiting for completions
 * and events, and reading a port counter. */
#include <poll.h>
#include <stdio.h>
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
