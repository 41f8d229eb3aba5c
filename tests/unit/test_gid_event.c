/* End to end through the public API: a port bound to an interface follows
 * its addresses and raises IBV_EVENT_GID_CHANGE on the async fd. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

/* Runs in a network namespace of its own: nothing here touches the host's
 * interfaces. Addresses come from the benchmarking range 198.18.0.0/15. */
static void sh(const char *cmd)
{
	ck_assert_msg(system(cmd) == 0, "command failed: %s", cmd);
}

static int table_has(struct ibv_context *ctx, const char *v4)
{
	struct ibv_gid_entry e[16];
	struct in_addr a;
	ssize_t n, i;

	ck_assert_int_eq(inet_pton(AF_INET, v4, &a), 1);
	n = ibv_query_gid_table(ctx, e, 16, 0);
	ck_assert_int_ge(n, 0);
	for (i = 0; i < n; i++)
		if (!memcmp(&e[i].gid.raw[12], &a, 4) &&
		    e[i].gid.raw[10] == 0xff && e[i].gid.raw[11] == 0xff &&
		    e[i].gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    e[i].ndev_ifindex != 0)
			return 1;
	return 0;
}

/* Wait up to 5 s for one async event; returns its type or -1. */
static int next_event(struct ibv_context *ctx, int *port)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int type;

	if (poll(&p, 1, 5000) != 1)
		return -1;
	if (ibv_get_async_event(ctx, &ev))
		return -1;
	type = ev.event_type;
	*port = ev.element.port_num;
	ibv_ack_async_event(&ev);
	return type;
}

static void drain_events(struct ibv_context *ctx)
{
	struct ibv_async_event ev;
	int fl = fcntl(ctx->async_fd, F_GETFL);

	fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	while (ibv_get_async_event(ctx, &ev) == 0)
		ibv_ack_async_event(&ev);
	fcntl(ctx->async_fd, F_SETFL, fl);
}

static void in_namespace(void)
{
	struct ibv_context *ctx;
	int port = 0;

	sh("ip link add emv0 type veth peer name emv1");
	sh("ip link set emv0 up && ip link set emv1 up");
	sh("ip addr add 198.18.0.1/24 dev emv0");
	emu_test_write_config("[device emunet]\n[port emunet 1]\n"
			      "netdev = emv0\n");

	ctx = open_only();
	ck_assert_msg(table_has(ctx, "198.18.0.1"), "initial address missing");
	/* The kernel may still be settling the new link (IPv6 link-local);
	 * start from an empty queue so each check sees its own change. */
	usleep(200000);
	drain_events(ctx);

	/* Another subnet: deleting a primary address would take its
	 * secondaries in the same subnet with it. */
	sh("ip addr add 198.18.2.1/24 dev emv0");
	ck_assert_int_eq(next_event(ctx, &port), IBV_EVENT_GID_CHANGE);
	ck_assert_int_eq(port, 1);
	ck_assert_msg(table_has(ctx, "198.18.2.1"), "added address missing");

	sh("ip addr del 198.18.0.1/24 dev emv0");
	ck_assert_int_eq(next_event(ctx, &port), IBV_EVENT_GID_CHANGE);
	ck_assert_msg(!table_has(ctx, "198.18.0.1"), "deleted address stays");
	ck_assert_msg(table_has(ctx, "198.18.2.1"), "other address lost");

	/* An address on another interface is none of this port's business. */
	drain_events(ctx);
	sh("ip addr add 198.18.1.1/24 dev emv1");
	ck_assert_int_eq(next_event(ctx, &port), -1);

	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

/* Check runs each test in a child process of its own, so the namespace
 * created here ends with it. */
START_TEST(t_gid_change_event)
{
	ck_assert_msg(unshare(CLONE_NEWNET) == 0, "unshare: %s",
		      strerror(errno));
	in_namespace();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gid_event");
	TCase *tc = tcase_create("netns");

	if (geteuid() != 0 || system("command -v ip >/dev/null") != 0) {
		printf("SKIP: GID change events need root and iproute2 "
		       "(network namespace)\n");
		return 77;
	}
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_gid_change_event);
	suite_add_tcase(s, tc);
	emu_test_isolate_config();
	return emu_test_run(s);
}
