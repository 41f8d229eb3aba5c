/* Unit tests for librdmacm (cm/) when memory runs out: calloc or malloc
 * failing in rdma_create_event_channel, rdma_create_id (with a channel
 * and without), rdma_getaddrinfo, a passive rdma_create_ep, event
 * posting (rdma_write_cm_event, rdma_resolve_addr, rdma_resolve_route)
 * a listener's side of a connect request, and rsocket. Each fails with
 * ENOMEM or rejects the request, leaves no channel, port, backlog slot or
 * descriptor behind, and the next try succeeds. cm/ is built into this program so that
 * -Wl,--wrap reaches its allocations. */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "tests/unit/testlib.h"

#define CK_FAILS(expr, err) do {					\
	errno = 0;							\
	ck_assert_int_eq((int)(expr), -1);				\
	ck_assert_int_eq(errno, (err));					\
} while (0)

#define REJ_NO_RESOURCES	3
#define MAX_ALLOCS		16	/* no call here makes more */

static struct sockaddr_in loop4(uint16_t port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	return sin;
}

#define SA(x) ((struct sockaddr *)&(x))

static bool readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, (int)(ms * emu_test_slack())) == 1 &&
	       (pfd.revents & POLLIN);
}

/* The devices are opened once per process: open them first, so that the
 * countdown counts only the call under test's allocations. */
static void open_devices(void)
{
	struct ibv_context **list = rdma_get_devices(NULL);

	ck_assert_ptr_nonnull(list);
	rdma_free_devices(list);
}

/* An fd that was closed: the channel is really gone. */
static void ck_closed(int fd)
{
	errno = 0;
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);
}

static struct rdma_cm_event *next_event(struct rdma_event_channel *ch,
					enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;

	ck_assert_msg(readable(ch->fd, 3000), "no %s", rdma_event_str(want));
	ck_assert_int_eq(rdma_get_cm_event(ch, &ev), 0);
	ck_assert_msg(ev->event == want, "%s (status %d), expected %s",
		      rdma_event_str(ev->event), ev->status,
		      rdma_event_str(want));
	return ev;
}

/* ------------------------------------------------------------------ */

START_TEST(channel_calloc)
{
	struct rdma_event_channel *ch;
	int n, failed = 0;

	open_devices();
	for (n = 1; n <= MAX_ALLOCS; n++) {
		emu_test_fail_calloc(n);
		errno = 0;
		ch = rdma_create_event_channel();
		if (!ch) {
			ck_assert_int_eq(errno, ENOMEM);
			ck_assert_int_eq(emu_test_alloc_armed(), 0);
			failed++;
			continue;
		}
		emu_test_fail_calloc(0);
		rdma_destroy_event_channel(ch);
		break;
	}
	ck_assert_int_le(n, MAX_ALLOCS);
	ck_assert_int_eq(failed, 1);
}
END_TEST

/* rdma_create_id on ch (NULL: a synchronous id with a channel of its own):
 * every allocation failing in turn is ENOMEM, *id untouched. */
static void create_id_each(struct rdma_event_channel *ch, int *failed)
{
	struct rdma_cm_id *id;
	int n;

	*failed = 0;
	for (n = 1; n <= MAX_ALLOCS; n++) {
		id = NULL;
		emu_test_fail_calloc(n);
		errno = 0;
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
			ck_assert_int_eq(errno, ENOMEM);
			ck_assert_ptr_null(id);
			ck_assert_int_eq(emu_test_alloc_armed(), 0);
			(*failed)++;
			continue;
		}
		emu_test_fail_calloc(0);
		ck_assert_ptr_nonnull(id);
		ck_assert_int_eq(rdma_destroy_id(id), 0);
		break;
	}
	ck_assert_int_le(n, MAX_ALLOCS);
}

START_TEST(create_id_calloc)
{
	struct rdma_event_channel *ch;
	int failed, fd;

	open_devices();
	ch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(ch);
	fd = ch->fd;
	create_id_each(ch, &failed);
	ck_assert_int_eq(failed, 1);
	/* no id left on it: it really goes */
	rdma_destroy_event_channel(ch);
	ck_closed(fd);

	/* its own channel, then the id */
	create_id_each(NULL, &failed);
	ck_assert_int_eq(failed, 2);
}
END_TEST

/* rdma_getaddrinfo: its result (calloc) and the address in it (malloc). */
START_TEST(getaddrinfo_enomem)
{
	struct rdma_addrinfo hints, *res = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	emu_test_fail_calloc(1);
	CK_FAILS(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res), ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert_ptr_null(res);
	emu_test_fail_malloc(1);
	CK_FAILS(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res), ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert_ptr_null(res);
	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res),
			 0);
	ck_assert_ptr_nonnull(res->ai_dst_addr);
	rdma_freeaddrinfo(res);
}
END_TEST

/* A passive rdma_create_ep keeps the QP attributes (malloc): without
 * memory, ENOMEM and no id, and the port it bound is free again. */
START_TEST(create_ep_enomem)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct ibv_qp_init_attr qa;
	struct rdma_cm_id *id = NULL;

	open_devices();
	memset(&hints, 0, sizeof(hints));
	memset(&qa, 0, sizeof(qa));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "0", &hints, &res), 0);
	/* a port of our own choosing, to see it freed */
	ck_assert_int_eq(rdma_create_ep(&id, res, NULL, NULL), 0);
	((struct sockaddr_in *)res->ai_src_addr)->sin_port =
		rdma_get_src_port(id);
	rdma_destroy_ep(id);
	id = NULL;
	emu_test_fail_malloc(1);
	CK_FAILS(rdma_create_ep(&id, res, NULL, &qa), ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert_ptr_null(id);
	ck_assert_int_eq(rdma_create_ep(&id, res, NULL, &qa), 0);
	ck_assert_ptr_nonnull(id);
	rdma_destroy_ep(id);
	rdma_freeaddrinfo(res);
}
END_TEST

/* An event that cannot be queued: rdma_write_cm_event says so. */
START_TEST(post_event)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	open_devices();
	ch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(ch);
	ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	emu_test_fail_calloc(1);
	CK_FAILS(rdma_write_cm_event(id, RDMA_CM_EVENT_USER, 0, 1), ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert(!readable(ch->fd, 0));
	ck_assert_int_eq(rdma_write_cm_event(id, RDMA_CM_EVENT_USER, 0, 2), 0);
	ck_assert(readable(ch->fd, 0));
	ck_assert_int_eq(rdma_get_cm_event(ch, &ev), 0);
	ck_assert_uint_eq(ev->param.arg, 2);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
}
END_TEST

/* rdma_resolve_addr and rdma_resolve_route whose event cannot be queued
 * fail with ENOMEM rather than leave the program waiting for it; the id
 * can try again. */
static void resolve_enomem(struct rdma_event_channel *ch)
{
	struct sockaddr_in dst = loop4(7471);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	emu_test_fail_calloc(1);
	CK_FAILS(rdma_resolve_addr(id, NULL, SA(dst), 2000), ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	if (ch)
		ck_assert(!readable(ch->fd, 50));
	ck_assert_int_eq(rdma_resolve_addr(id, NULL, SA(dst), 2000), 0);
	if (ch) {
		ev = next_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
		ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	}
	emu_test_fail_calloc(1);
	CK_FAILS(rdma_resolve_route(id, 2000), ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	if (ch)
		ck_assert(!readable(ch->fd, 50));
	ck_assert_int_eq(rdma_resolve_route(id, 2000), 0);
	if (ch) {
		ev = next_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
		ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	} else {
		ck_assert_int_eq(id->event->event,
				 RDMA_CM_EVENT_ROUTE_RESOLVED);
	}
	ck_assert_int_eq(rdma_destroy_id(id), 0);
}

START_TEST(resolve_event)
{
	struct rdma_event_channel *ch;

	open_devices();
	ch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(ch);
	resolve_enomem(ch);
	rdma_destroy_event_channel(ch);
}
END_TEST

START_TEST(resolve_event_sync)
{
	open_devices();
	resolve_enomem(NULL);
}
END_TEST

/* The listener's side of a REQ: no memory for the child id (the 1st
 * allocation) or for its CONNECT_REQUEST (the 2nd) rejects the request,
 * "no resources", and frees the backlog slot it took. */
static void request_enomem(int nth)
{
	struct rdma_event_channel *sch, *cch;
	struct sockaddr_in lo = loop4(0), dst;
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param cp;
	struct rdma_cm_id *l, *c;
	struct rdma_cm_event *ev;
	int i;

	open_devices();
	sch = rdma_create_event_channel();
	cch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(sch);
	ck_assert_ptr_nonnull(cch);
	ck_assert_int_eq(rdma_create_id(sch, &l, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_bind_addr(l, SA(lo)), 0);
	/* a backlog of one: a slot not given back shows */
	ck_assert_int_eq(rdma_listen(l, 1), 0);
	dst = loop4(ntohs(rdma_get_src_port(l)));
	ck_assert_int_eq(rdma_create_id(cch, &c, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_resolve_addr(c, NULL, SA(dst), 2000), 0);
	ck_assert_int_eq(rdma_ack_cm_event(next_event(cch,
					   RDMA_CM_EVENT_ADDR_RESOLVED)), 0);
	ck_assert_int_eq(rdma_resolve_route(c, 2000), 0);
	ck_assert_int_eq(rdma_ack_cm_event(next_event(cch,
					   RDMA_CM_EVENT_ROUTE_RESOLVED)), 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	ck_assert_int_eq(rdma_create_qp(c, NULL, &qa), 0);
	memset(&cp, 0, sizeof(cp));
	for (i = 0; i < 2; i++) {
		/* rdma_connect allocates nothing of cm/'s: the countdown
		 * is the CM thread's, which takes the REQ. */
		emu_test_fail_calloc(nth);
		ck_assert_int_eq(rdma_connect(c, &cp), 0);
		ev = next_event(cch, RDMA_CM_EVENT_REJECTED);
		ck_assert_int_eq(ev->status, REJ_NO_RESOURCES);
		ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
		ck_assert_int_eq(emu_test_alloc_armed(), 0);
		ck_assert(!readable(sch->fd, 50));
	}
	/* and with memory, the request comes through */
	ck_assert_int_eq(rdma_connect(c, &cp), 0);
	ev = next_event(sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	ck_assert_ptr_eq(ev->listen_id, l);
	ck_assert_int_eq(rdma_reject(ev->id, NULL, 0), 0);
	ck_assert_int_eq(rdma_destroy_id(ev->id), 0);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	rdma_ack_cm_event(next_event(cch, RDMA_CM_EVENT_REJECTED));
	rdma_destroy_qp(c);
	ck_assert_int_eq(rdma_destroy_id(c), 0);
	ck_assert_int_eq(rdma_destroy_id(l), 0);
	rdma_destroy_event_channel(cch);
	rdma_destroy_event_channel(sch);
}

START_TEST(request_no_child)
{
	request_enomem(1);
}
END_TEST

START_TEST(request_no_event)
{
	request_enomem(2);
}
END_TEST

/* The lowest free descriptor, to see that a failed call leaks none. */
static int free_fd(void)
{
	int fd = dup(0);

	ck_assert_int_ge(fd, 0);
	close(fd);
	return fd;
}

/* rsocket: the socket, its channel and its id, each allocation failing in
 * turn (every one is a calloc): -1 with ENOMEM, no descriptor left. */
static void rsocket_each(void (*arm)(int), int type)
{
	int n, fd, lowest, failed = 0;

	open_devices();
	lowest = free_fd();
	for (n = 1; n <= MAX_ALLOCS; n++) {
		arm(n);
		errno = 0;
		fd = rsocket(AF_INET, type, 0);
		if (fd < 0) {
			ck_assert_int_eq(errno, ENOMEM);
			ck_assert_int_eq(emu_test_alloc_armed(), 0);
			ck_assert_int_eq(free_fd(), lowest);
			failed++;
			continue;
		}
		arm(0);
		ck_assert_int_eq(rclose(fd), 0);
		ck_assert_int_eq(free_fd(), lowest);
		break;
	}
	ck_assert_int_le(n, MAX_ALLOCS);
	ck_assert_int_eq(failed, n - 1);
}

START_TEST(rsocket_calloc)
{
	rsocket_each(emu_test_fail_calloc, SOCK_STREAM);
	rsocket_each(emu_test_fail_calloc, SOCK_DGRAM);
}
END_TEST

static Suite *cm_alloc_suite(void)
{
	Suite *s = suite_create("cm_alloc");
	TCase *tc = tcase_create("enomem");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, channel_calloc);
	tcase_add_test(tc, create_id_calloc);
	tcase_add_test(tc, getaddrinfo_enomem);
	tcase_add_test(tc, create_ep_enomem);
	tcase_add_test(tc, post_event);
	tcase_add_test(tc, resolve_event);
	tcase_add_test(tc, resolve_event_sync);
	tcase_add_test(tc, request_no_child);
	tcase_add_test(tc, request_no_event);
	tcase_add_test(tc, rsocket_calloc);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(cm_alloc_suite());
}
