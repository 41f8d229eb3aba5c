/* Unit tests for librdmacm's public API (cm/) over the built librdmacm and
 * libibverbs: every error path with the errno rdma-core gives (NULL
 * arguments, port spaces, bind rules and port numbers, calls out of
 * order, options), event channels as descriptors (poll, O_NONBLOCK,
 * rdma_migrate_id), synchronous ids, rdma_get_devices and
 * rdma_getaddrinfo, and whole exchanges on 127.0.0.1 in one process:
 * connect, accept, disconnect and timewait; a REQ nobody listens for; a
 * reject with private data; a UD (SIDR) connect. Allocation failures are
 * test_cm_alloc.c's. */

/*
 * Expected event names are rdma-core 65's, spelled out here on purpose:
 * if an edit to cm/strings.c changes one, a test must fail.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/wait.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <infiniband/ib.h>

#include "tests/unit/testlib.h"

/* expr fails as an int call: -1 with errno = err. */
#define CK_FAILS(expr, err) do {					\
	errno = 0;							\
	ck_assert_int_eq((int)(expr), -1);				\
	ck_assert_int_eq(errno, (err));					\
} while (0)

#define REJ_INVALID_SERVICE_ID	8	/* IBTA's REJ reasons */
#define REJ_CONSUMER		28

static struct sockaddr_in in4(uint32_t addr, uint16_t port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(addr);
	sin.sin_port = htons(port);
	return sin;
}

#define SA(x) ((struct sockaddr *)&(x))
#define LOOP INADDR_LOOPBACK
#define ANY INADDR_ANY

static bool readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, (int)(ms * emu_test_slack())) == 1 &&
	       (pfd.revents & POLLIN);
}

/* The next event on ch within ms, which must be of type want. */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch,
					enum rdma_cm_event_type want, int ms)
{
	struct rdma_cm_event *ev = NULL;

	ck_assert_msg(readable(ch->fd, ms), "no %s within %d ms",
		      rdma_event_str(want), ms);
	ck_assert_int_eq(rdma_get_cm_event(ch, &ev), 0);
	ck_assert_ptr_nonnull(ev);
	ck_assert_msg(ev->event == want, "%s (status %d), expected %s",
		      rdma_event_str(ev->event), ev->status,
		      rdma_event_str(want));
	return ev;
}

static void expect_event(struct rdma_event_channel *ch,
			 enum rdma_cm_event_type want, int ms)
{
	ck_assert_int_eq(rdma_ack_cm_event(next_event(ch, want, ms)), 0);
}

static void expect_quiet(struct rdma_event_channel *ch, int ms)
{
	struct rdma_cm_event *ev;

	if (!readable(ch->fd, ms))
		return;
	ck_assert_int_eq(rdma_get_cm_event(ch, &ev), 0);
	ck_abort_msg("unexpected %s (status %d)", rdma_event_str(ev->event),
		     ev->status);
}

static struct ibv_qp_init_attr qp_attr(enum ibv_qp_type t)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_type = t;
	a.cap.max_send_wr = a.cap.max_recv_wr = 8;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	return a;
}

/* A listener on 127.0.0.1, on a port of the CM's choosing: its number. */
static uint16_t listen_loop(struct rdma_event_channel *ch,
			    struct rdma_cm_id **id, enum rdma_port_space ps)
{
	struct sockaddr_in sin = in4(LOOP, 0);

	ck_assert_int_eq(rdma_create_id(ch, id, NULL, ps), 0);
	ck_assert_int_eq(rdma_bind_addr(*id, SA(sin)), 0);
	ck_assert_int_eq(rdma_listen(*id, 4), 0);
	ck_assert_uint_ne(rdma_get_src_port(*id), 0);
	return ntohs(rdma_get_src_port(*id));
}

/* An active id with its address and route resolved to 127.0.0.1:port. */
static void resolve_loop(struct rdma_event_channel *ch, struct rdma_cm_id **id,
			 enum rdma_port_space ps, uint16_t port)
{
	struct sockaddr_in dst = in4(LOOP, port);

	ck_assert_int_eq(rdma_create_id(ch, id, NULL, ps), 0);
	ck_assert_int_eq(rdma_resolve_addr(*id, NULL, SA(dst), 2000), 0);
	expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, 2000);
	ck_assert_int_eq(rdma_resolve_route(*id, 2000), 0);
	expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 2000);
}

static void destroy(struct rdma_cm_id *id)
{
	rdma_destroy_qp(id);
	ck_assert_int_eq(rdma_destroy_id(id), 0);
}

/* A listener on sch (RDMA_PS_TCP, 127.0.0.1, its port into *port) into
 * *l, and a client id on cch resolved to it, with an RC QP: the client,
 * ready to connect. */
static struct rdma_cm_id *rc_client(struct rdma_event_channel *sch,
				    struct rdma_event_channel *cch,
				    struct rdma_cm_id **l, uint16_t *port)
{
	struct ibv_qp_init_attr qa = qp_attr(IBV_QPT_RC);
	struct rdma_cm_id *c;

	ck_assert_ptr_nonnull(sch);
	ck_assert_ptr_nonnull(cch);
	*port = listen_loop(sch, l, RDMA_PS_TCP);
	resolve_loop(cch, &c, RDMA_PS_TCP, *port);
	ck_assert_int_eq(rdma_create_qp(c, NULL, &qa), 0);
	ck_assert_ptr_nonnull(c->qp);
	return c;
}

/* ------------------------------------------------------------------ */
/* rdma_event_str, rdma_get_src_port / rdma_get_dst_port               */

static const char *const event_names[] = {
	"RDMA_CM_EVENT_ADDR_RESOLVED",
	"RDMA_CM_EVENT_ADDR_ERROR",
	"RDMA_CM_EVENT_ROUTE_RESOLVED",
	"RDMA_CM_EVENT_ROUTE_ERROR",
	"RDMA_CM_EVENT_CONNECT_REQUEST",
	"RDMA_CM_EVENT_CONNECT_RESPONSE",
	"RDMA_CM_EVENT_CONNECT_ERROR",
	"RDMA_CM_EVENT_UNREACHABLE",
	"RDMA_CM_EVENT_REJECTED",
	"RDMA_CM_EVENT_ESTABLISHED",
	"RDMA_CM_EVENT_DISCONNECTED",
	"RDMA_CM_EVENT_DEVICE_REMOVAL",
	"RDMA_CM_EVENT_MULTICAST_JOIN",
	"RDMA_CM_EVENT_MULTICAST_ERROR",
	"RDMA_CM_EVENT_ADDR_CHANGE",
	"RDMA_CM_EVENT_TIMEWAIT_EXIT",
	"RDMA_CM_EVENT_ADDRINFO_RESOLVED",
	"RDMA_CM_EVENT_ADDRINFO_ERROR",
};

START_TEST(event_str_known)
{
	int e;

	for (e = RDMA_CM_EVENT_ADDR_RESOLVED;
	     e <= RDMA_CM_EVENT_ADDRINFO_ERROR; e++)
		ck_assert_str_eq(rdma_event_str((enum rdma_cm_event_type)e),
				 event_names[e]);
}
END_TEST

START_TEST(event_str_unknown)
{
	int e;

	/* rdma-core names neither of the two newest events */
	ck_assert_str_eq(rdma_event_str(RDMA_CM_EVENT_USER), "UNKNOWN EVENT");
	ck_assert_str_eq(rdma_event_str(RDMA_CM_EVENT_INTERNAL),
			 "UNKNOWN EVENT");
	for (e = -5; e < 0; e++)
		ck_assert_str_eq(rdma_event_str((enum rdma_cm_event_type)e),
				 "UNKNOWN EVENT");
	for (e = RDMA_CM_EVENT_INTERNAL + 1; e < 300; e++)
		ck_assert_str_eq(rdma_event_str((enum rdma_cm_event_type)e),
				 "UNKNOWN EVENT");
}
END_TEST

START_TEST(ports)
{
	struct rdma_cm_id id;
	struct sockaddr_ib *sib;

	memset(&id, 0, sizeof(id));
	/* not bound: family 0 */
	ck_assert_uint_eq(rdma_get_src_port(&id), 0);
	ck_assert_uint_eq(rdma_get_dst_port(&id), 0);
	ck_assert_uint_eq(rdma_get_src_port(NULL), 0);
	ck_assert_uint_eq(rdma_get_dst_port(NULL), 0);

	id.route.addr.src_sin.sin_family = AF_INET;
	id.route.addr.src_sin.sin_port = htons(7471);
	id.route.addr.dst_sin6.sin6_family = AF_INET6;
	id.route.addr.dst_sin6.sin6_port = htons(4791);
	ck_assert_uint_eq(rdma_get_src_port(&id), htons(7471));
	ck_assert_uint_eq(rdma_get_dst_port(&id), htons(4791));

	/* AF_IB: the low 16 bits of the service ID */
	sib = (struct sockaddr_ib *)&id.route.addr.src_storage;
	memset(sib, 0, sizeof(*sib));
	sib->sib_family = AF_IB;
	sib->sib_sid = htobe64(RDMA_IB_IP_PS_TCP | 18515);
	ck_assert_uint_eq(rdma_get_src_port(&id), htons(18515));

	id.route.addr.dst_addr.sa_family = AF_UNIX;
	ck_assert_uint_eq(rdma_get_dst_port(&id), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Arguments                                                           */

START_TEST(null_arguments)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL, *idp = NULL;
	struct ibv_qp_attr qpa;
	int mask, tos = 0;

	ck_assert_ptr_nonnull(ch);
	CK_FAILS(rdma_get_cm_event(NULL, NULL), EINVAL);
	CK_FAILS(rdma_get_cm_event(ch, NULL), EINVAL);
	CK_FAILS(rdma_ack_cm_event(NULL), EINVAL);
	CK_FAILS(rdma_write_cm_event(NULL, RDMA_CM_EVENT_USER, 0, 0), EINVAL);
	CK_FAILS(rdma_create_id(NULL, NULL, NULL, RDMA_PS_TCP), EINVAL);
	CK_FAILS(rdma_create_id(ch, NULL, NULL, RDMA_PS_TCP), EINVAL);
	CK_FAILS(rdma_destroy_id(NULL), EINVAL);
	CK_FAILS(rdma_migrate_id(NULL, NULL), EINVAL);
	CK_FAILS(rdma_migrate_id(NULL, ch), EINVAL);
	CK_FAILS(rdma_create_ep(NULL, NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_ep(&idp, NULL, NULL, NULL), EINVAL);
	ck_assert_ptr_null(idp);
	CK_FAILS(rdma_set_option(NULL, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
				 &tos, 1), EINVAL);
	CK_FAILS(rdma_bind_addr(NULL, NULL), EINVAL);
	CK_FAILS(rdma_resolve_addr(NULL, NULL, NULL, 2000), EINVAL);
	CK_FAILS(rdma_resolve_route(NULL, 2000), EINVAL);
	CK_FAILS(rdma_getaddrinfo(NULL, NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_getaddrinfo("127.0.0.1", "7471", NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_qp(NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_qp_ex(NULL, NULL), EINVAL);
	CK_FAILS(rdma_init_qp_attr(NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_srq(NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_srq_ex(NULL, NULL), EINVAL);
	CK_FAILS(rdma_connect(NULL, NULL), EINVAL);
	CK_FAILS(rdma_establish(NULL), EINVAL);
	CK_FAILS(rdma_listen(NULL, 1), EINVAL);
	CK_FAILS(rdma_get_request(NULL, NULL), EINVAL);
	CK_FAILS(rdma_accept(NULL, NULL), EINVAL);
	CK_FAILS(rdma_reject(NULL, NULL, 0), EINVAL);
	CK_FAILS(rdma_reject_ece(NULL, NULL, 0), EINVAL);
	CK_FAILS(rdma_notify(NULL, IBV_EVENT_COMM_EST), EINVAL);
	CK_FAILS(rdma_disconnect(NULL), EINVAL);
	CK_FAILS(rdma_set_local_ece(NULL, NULL), EINVAL);
	CK_FAILS(rdma_get_remote_ece(NULL, NULL), EINVAL);

	/* An id, but NULL for what goes with it. */
	ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	CK_FAILS(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
				 NULL, 1), EINVAL);
	CK_FAILS(rdma_bind_addr(id, NULL), EINVAL);
	CK_FAILS(rdma_resolve_addr(id, NULL, NULL, 2000), EINVAL);
	CK_FAILS(rdma_create_qp(id, NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_qp_ex(id, NULL), EINVAL);
	CK_FAILS(rdma_init_qp_attr(id, NULL, &mask), EINVAL);
	CK_FAILS(rdma_init_qp_attr(id, &qpa, NULL), EINVAL);
	CK_FAILS(rdma_create_srq(id, NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_srq_ex(id, NULL), EINVAL);
	CK_FAILS(rdma_get_request(id, NULL), EINVAL);
	CK_FAILS(rdma_set_local_ece(id, NULL), EINVAL);
	CK_FAILS(rdma_get_remote_ece(id, NULL), EINVAL);
	/* private data with a length needs a buffer */
	CK_FAILS(rdma_reject(id, NULL, 4), EINVAL);
	CK_FAILS(rdma_reject_ece(id, NULL, 4), EINVAL);
	ck_assert_int_eq(rdma_destroy_id(id), 0);

	/* The calls without a result take NULL quietly. */
	rdma_destroy_event_channel(NULL);
	rdma_free_devices(NULL);
	rdma_freeaddrinfo(NULL);
	rdma_destroy_ep(NULL);
	rdma_destroy_qp(NULL);
	rdma_destroy_srq(NULL);
	rdma_destroy_event_channel(ch);
}
END_TEST

START_TEST(port_spaces)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	static const struct {
		enum rdma_port_space ps;
		enum ibv_qp_type qpt;
	} good[] = {
		{ RDMA_PS_TCP, IBV_QPT_RC }, { RDMA_PS_UDP, IBV_QPT_UD },
		{ RDMA_PS_IB, IBV_QPT_RC }, { RDMA_PS_IPOIB, IBV_QPT_UD },
	};
	static const int bad[] = { 0, 1, 0x0100, 0x0105, 0x0112, 0xffff, -1 };
	struct rdma_cm_id *id;
	unsigned int i;

	ck_assert_ptr_nonnull(ch);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		id = NULL;
		CK_FAILS(rdma_create_id(ch, &id, NULL,
					(enum rdma_port_space)bad[i]), EINVAL);
		ck_assert_ptr_null(id);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ck_assert_int_eq(rdma_create_id(ch, &id, &i, good[i].ps), 0);
		ck_assert_int_eq(id->ps, good[i].ps);
		ck_assert_int_eq(id->qp_type, good[i].qpt);
		ck_assert_ptr_eq(id->context, &i);
		ck_assert_ptr_eq(id->channel, ch);
		ck_assert_ptr_null(id->verbs);
		ck_assert_int_eq(rdma_destroy_id(id), 0);
	}
	rdma_destroy_event_channel(ch);
}
END_TEST

/* ------------------------------------------------------------------ */
/* rdma_bind_addr                                                      */

START_TEST(bind_rules)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in lo = in4(LOOP, 0), far = in4(0xc0000201, 0);
	struct sockaddr_in6 lo6 = { .sin6_family = AF_INET6 };
	struct sockaddr_ib sib = { .sib_family = AF_IB };
	struct sockaddr unix_addr = { .sa_family = AF_UNIX };
	struct rdma_cm_id *id, *id2;

	ck_assert_ptr_nonnull(ch);
	ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	CK_FAILS(rdma_bind_addr(id, &unix_addr), EINVAL);
	CK_FAILS(rdma_bind_addr(id, SA(sib)), EINVAL);
	/* 192.0.2.1 (TEST-NET-1): on no device, and not the host's */
	CK_FAILS(rdma_bind_addr(id, SA(far)), EADDRNOTAVAIL);
	/* none of that bound it */
	ck_assert_int_eq(rdma_bind_addr(id, SA(lo)), 0);
	/* Loopback binds no device, as the wildcard (Linux's cma_any_addr) */
	ck_assert_ptr_null(id->verbs);
	ck_assert_int_eq(id->route.addr.src_addr.sa_family, AF_INET);
	ck_assert_uint_eq(id->route.addr.src_sin.sin_addr.s_addr,
			  htonl(LOOP));
	/* twice */
	CK_FAILS(rdma_bind_addr(id, SA(lo)), EINVAL);
	lo.sin_port = htons(1);
	CK_FAILS(rdma_bind_addr(id, SA(lo)), EINVAL);

	/* ::1 is the first port's too */
	ck_assert_int_eq(rdma_create_id(ch, &id2, NULL, RDMA_PS_TCP), 0);
	lo6.sin6_addr = in6addr_loopback;
	ck_assert_int_eq(rdma_bind_addr(id2, SA(lo6)), 0);
	ck_assert_ptr_eq(id2->verbs, id->verbs);
	ck_assert_uint_ne(rdma_get_src_port(id2), 0);
	ck_assert_int_eq(rdma_destroy_id(id2), 0);
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
}
END_TEST

/* Port 0: the CM picks a port, a different one for each id. */
START_TEST(bind_port_zero)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in lo = in4(LOOP, 0), any = in4(ANY, 0);
	struct rdma_cm_id *a, *b, *c;

	ck_assert_ptr_nonnull(ch);
	ck_assert_int_eq(rdma_create_id(ch, &a, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_create_id(ch, &b, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_create_id(ch, &c, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_bind_addr(a, SA(lo)), 0);
	ck_assert_int_eq(rdma_bind_addr(b, SA(lo)), 0);
	ck_assert_int_eq(rdma_bind_addr(c, SA(any)), 0);
	ck_assert_uint_ne(rdma_get_src_port(a), 0);
	ck_assert_uint_ne(rdma_get_src_port(b), 0);
	ck_assert_uint_ne(rdma_get_src_port(c), 0);
	ck_assert_uint_ne(rdma_get_src_port(a), rdma_get_src_port(b));
	ck_assert_uint_ne(rdma_get_src_port(a), rdma_get_src_port(c));
	ck_assert_uint_ne(rdma_get_src_port(b), rdma_get_src_port(c));
	/* A wildcard is on no device yet. */
	ck_assert_ptr_null(c->verbs);
	ck_assert_int_eq(rdma_destroy_id(a), 0);
	ck_assert_int_eq(rdma_destroy_id(b), 0);
	ck_assert_int_eq(rdma_destroy_id(c), 0);
	rdma_destroy_event_channel(ch);
}
END_TEST

/* Two wildcard binds on one port: the second is EADDRINUSE, until the
 * first id goes; the port spaces are apart. */
START_TEST(bind_in_use)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in any = in4(ANY, 0), lo;
	struct rdma_cm_id *a, *b, *u;

	ck_assert_ptr_nonnull(ch);
	ck_assert_int_eq(rdma_create_id(ch, &a, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_create_id(ch, &b, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_create_id(ch, &u, NULL, RDMA_PS_UDP), 0);
	ck_assert_int_eq(rdma_bind_addr(a, SA(any)), 0);
	any.sin_port = rdma_get_src_port(a);
	lo = in4(LOOP, ntohs(any.sin_port));
	CK_FAILS(rdma_bind_addr(b, SA(any)), EADDRINUSE);
	CK_FAILS(rdma_bind_addr(b, SA(lo)), EADDRINUSE);
	/* the same number in another port space is another port */
	ck_assert_int_eq(rdma_bind_addr(u, SA(any)), 0);
	ck_assert_int_eq(rdma_destroy_id(a), 0);
	ck_assert_int_eq(rdma_bind_addr(b, SA(any)), 0);
	ck_assert_uint_eq(rdma_get_src_port(b), any.sin_port);
	ck_assert_int_eq(rdma_destroy_id(b), 0);
	ck_assert_int_eq(rdma_destroy_id(u), 0);
	rdma_destroy_event_channel(ch);
}
END_TEST

/* The same across processes: a child holds the port first. */
START_TEST(bind_in_use_across_processes)
{
	int up[2], down[2], status;
	struct sockaddr_in any, lo;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	uint16_t port = 0;
	char go = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(up), 0);
	ck_assert_int_eq(pipe(down), 0);
	/* Before any rdma call here: the child claims a device of its own. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sockaddr_in a = in4(ANY, 0);

		ch = rdma_create_event_channel();
		if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
		    rdma_bind_addr(id, SA(a)))
			_exit(1);
		port = ntohs(rdma_get_src_port(id));
		if (write(up[1], &port, sizeof(port)) != sizeof(port) ||
		    read(down[0], &go, 1) != 1)
			_exit(2);
		_exit(0);
	}
	ck_assert_int_eq(read(up[0], &port, sizeof(port)), sizeof(port));
	ck_assert_uint_ne(port, 0);
	ch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(ch);
	ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	any = in4(ANY, port);
	lo = in4(LOOP, port);
	CK_FAILS(rdma_bind_addr(id, SA(any)), EADDRINUSE);
	CK_FAILS(rdma_bind_addr(id, SA(lo)), EADDRINUSE);
	/* The child lets go of it by dying. */
	ck_assert_int_eq(write(down[1], &go, 1), 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(rdma_bind_addr(id, SA(any)), 0);
	ck_assert_uint_eq(ntohs(rdma_get_src_port(id)), port);
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Calls out of order                                                  */

START_TEST(out_of_order)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in lo = in4(LOOP, 0), dst;
	struct ibv_qp_init_attr qa = qp_attr(IBV_QPT_RC);
	struct rdma_conn_param cp;
	struct rdma_cm_id *id, *l;
	uint16_t port;

	ck_assert_ptr_nonnull(ch);
	memset(&cp, 0, sizeof(cp));
	port = listen_loop(ch, &l, RDMA_PS_TCP);
	dst = in4(LOOP, port);
	ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);

	/* A fresh id */
	CK_FAILS(rdma_resolve_route(id, 2000), EINVAL);
	CK_FAILS(rdma_connect(id, &cp), EINVAL);
	CK_FAILS(rdma_accept(id, &cp), EINVAL);
	CK_FAILS(rdma_accept(id, NULL), EINVAL);
	CK_FAILS(rdma_reject(id, NULL, 0), EINVAL);
	CK_FAILS(rdma_disconnect(id), EINVAL);
	CK_FAILS(rdma_establish(id), EINVAL);
	CK_FAILS(rdma_create_qp(id, NULL, &qa), EINVAL);
	ck_assert_ptr_null(id->qp);

	/* bound */
	ck_assert_int_eq(rdma_bind_addr(id, SA(lo)), 0);
	CK_FAILS(rdma_resolve_route(id, 2000), EINVAL);
	CK_FAILS(rdma_connect(id, &cp), EINVAL);
	CK_FAILS(rdma_accept(id, &cp), EINVAL);
	CK_FAILS(rdma_reject(id, "x", 1), EINVAL);
	CK_FAILS(rdma_disconnect(id), EINVAL);

	/* address resolved, route not */
	ck_assert_int_eq(rdma_resolve_addr(id, NULL, SA(dst), 2000), 0);
	expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, 2000);
	CK_FAILS(rdma_connect(id, &cp), EINVAL);
	CK_FAILS(rdma_listen(id, 1), EINVAL);
	CK_FAILS(rdma_bind_addr(id, SA(lo)), EINVAL);

	/* route resolved, not connected */
	ck_assert_int_eq(rdma_resolve_route(id, 2000), 0);
	expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 2000);
	CK_FAILS(rdma_accept(id, &cp), EINVAL);
	CK_FAILS(rdma_reject(id, NULL, 0), EINVAL);
	CK_FAILS(rdma_disconnect(id), EINVAL);
	/* RC with neither a QP nor a conn_param to name one */
	CK_FAILS(rdma_connect(id, NULL), EINVAL);

	/* A listener has no request until one comes. */
	CK_FAILS(rdma_accept(l, &cp), EINVAL);
	CK_FAILS(rdma_reject(l, NULL, 0), EINVAL);
	CK_FAILS(rdma_disconnect(l), EINVAL);
	CK_FAILS(rdma_connect(l, &cp), EINVAL);
	CK_FAILS(rdma_bind_addr(l, SA(lo)), EINVAL);
	expect_quiet(ch, 100);

	ck_assert_int_eq(rdma_destroy_id(id), 0);
	ck_assert_int_eq(rdma_destroy_id(l), 0);
	rdma_destroy_event_channel(ch);
}
END_TEST

/* ------------------------------------------------------------------ */
/* rdma_set_option                                                     */

START_TEST(options)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in lo = in4(LOOP, 0);
	struct rdma_cm_id *id;
	uint8_t u8 = 5;
	int one = 1;

	ck_assert_ptr_nonnull(ch);
	ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	/* The right lengths work ... */
	ck_assert_int_eq(rdma_set_option(id, RDMA_OPTION_ID,
					 RDMA_OPTION_ID_TOS, &u8, 1), 0);
	ck_assert_int_eq(rdma_set_option(id, RDMA_OPTION_ID,
					 RDMA_OPTION_ID_REUSEADDR, &one,
					 sizeof(one)), 0);
	ck_assert_int_eq(rdma_set_option(id, RDMA_OPTION_ID,
					 RDMA_OPTION_ID_AFONLY, &one,
					 sizeof(one)), 0);
	ck_assert_int_eq(rdma_set_option(id, RDMA_OPTION_ID,
					 RDMA_OPTION_ID_ACK_TIMEOUT, &u8, 1),
			 0);
	/* ... any other is EINVAL */
	CK_FAILS(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
				 &one, sizeof(one)), EINVAL);
	CK_FAILS(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
				 &u8, 0), EINVAL);
	CK_FAILS(rdma_set_option(id, RDMA_OPTION_ID,
				 RDMA_OPTION_ID_REUSEADDR, &u8, 1), EINVAL);
	CK_FAILS(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY,
				 &one, 8), EINVAL);
	CK_FAILS(rdma_set_option(id, RDMA_OPTION_ID,
				 RDMA_OPTION_ID_ACK_TIMEOUT, &one,
				 sizeof(one)), EINVAL);
	/* an option the kernel does not know */
	CK_FAILS(rdma_set_option(id, RDMA_OPTION_ID, 99, &one, sizeof(one)),
		 ENOSYS);
	CK_FAILS(rdma_set_option(id, RDMA_OPTION_ID, -1, &one, sizeof(one)),
		 ENOSYS);
	/* and a level it does not know (ucma_set_option_level's default) */
	CK_FAILS(rdma_set_option(id, 77, RDMA_OPTION_ID_TOS, &u8, 1), ENOSYS);
	CK_FAILS(rdma_set_option(id, -1, RDMA_OPTION_ID_TOS, &u8, 1), ENOSYS);
	/* AFONLY only before the id is bound */
	ck_assert_int_eq(rdma_bind_addr(id, SA(lo)), 0);
	CK_FAILS(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY,
				 &one, sizeof(one)), EINVAL);
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Event channels                                                      */

START_TEST(channel_fd)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in dst = in4(LOOP, 7471);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int fl;

	ck_assert_ptr_nonnull(ch);
	ck_assert_int_ge(ch->fd, 0);
	ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	ck_assert(!readable(ch->fd, 50));
	/* O_NONBLOCK: an empty channel is EAGAIN, not a wait */
	fl = fcntl(ch->fd, F_GETFL);
	ck_assert_int_ge(fl, 0);
	ck_assert_int_eq(fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK), 0);
	CK_FAILS(rdma_get_cm_event(ch, &ev), EAGAIN);

	ck_assert_int_eq(rdma_resolve_addr(id, NULL, SA(dst), 2000), 0);
	ck_assert(readable(ch->fd, 2000));
	ck_assert_int_eq(rdma_get_cm_event(ch, &ev), 0);
	ck_assert_int_eq(ev->event, RDMA_CM_EVENT_ADDR_RESOLVED);
	ck_assert_int_eq(ev->status, 0);
	ck_assert_ptr_eq(ev->id, id);
	ck_assert_ptr_null(ev->listen_id);
	/* one event: read, the channel is empty again */
	ck_assert(!readable(ch->fd, 0));
	CK_FAILS(rdma_get_cm_event(ch, &ev), EAGAIN);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);

	/* two events, two reads */
	ck_assert_int_eq(rdma_write_cm_event(id, RDMA_CM_EVENT_USER, 3, 42),
			 0);
	ck_assert_int_eq(rdma_resolve_route(id, 2000), 0);
	ck_assert_int_eq(rdma_get_cm_event(ch, &ev), 0);
	ck_assert_int_eq(ev->event, RDMA_CM_EVENT_USER);
	ck_assert_int_eq(ev->status, 3);
	ck_assert_uint_eq(ev->param.arg, 42);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	ck_assert(readable(ch->fd, 0));
	ck_assert_int_eq(rdma_get_cm_event(ch, &ev), 0);
	ck_assert_int_eq(ev->event, RDMA_CM_EVENT_ROUTE_RESOLVED);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	ck_assert(!readable(ch->fd, 0));

	/* A destroyed id takes its unread events with it. */
	ck_assert_int_eq(rdma_write_cm_event(id, RDMA_CM_EVENT_USER, 0, 1),
			 0);
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	CK_FAILS(rdma_get_cm_event(ch, &ev), EAGAIN);
	rdma_destroy_event_channel(ch);
}
END_TEST

/* rdma_migrate_id moves the id's queued events, and only them. */
START_TEST(migrate)
{
	struct rdma_event_channel *c1 = rdma_create_event_channel();
	struct rdma_event_channel *c2 = rdma_create_event_channel();
	struct sockaddr_in dst = in4(LOOP, 7471);
	struct rdma_cm_id *a, *b;
	struct rdma_cm_event *ev;

	ck_assert_ptr_nonnull(c1);
	ck_assert_ptr_nonnull(c2);
	ck_assert_int_eq(rdma_create_id(c1, &a, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_create_id(c1, &b, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_resolve_addr(a, NULL, SA(dst), 2000), 0);
	ck_assert_int_eq(rdma_write_cm_event(b, RDMA_CM_EVENT_USER, 0, 7), 0);
	ck_assert_int_eq(rdma_write_cm_event(a, RDMA_CM_EVENT_USER, 0, 8), 0);
	ck_assert(readable(c1->fd, 2000));
	ck_assert(!readable(c2->fd, 0));

	ck_assert_int_eq(rdma_migrate_id(a, c2), 0);
	ck_assert_ptr_eq(a->channel, c2);
	ck_assert_ptr_eq(b->channel, c1);
	ck_assert_int_eq(fcntl(c1->fd, F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(fcntl(c2->fd, F_SETFL, O_NONBLOCK), 0);
	/* c2: a's two, in their order */
	ck_assert_int_eq(rdma_get_cm_event(c2, &ev), 0);
	ck_assert_ptr_eq(ev->id, a);
	ck_assert_int_eq(ev->event, RDMA_CM_EVENT_ADDR_RESOLVED);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	ck_assert_int_eq(rdma_get_cm_event(c2, &ev), 0);
	ck_assert_ptr_eq(ev->id, a);
	ck_assert_uint_eq(ev->param.arg, 8);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	CK_FAILS(rdma_get_cm_event(c2, &ev), EAGAIN);
	/* c1: b's one */
	ck_assert_int_eq(rdma_get_cm_event(c1, &ev), 0);
	ck_assert_ptr_eq(ev->id, b);
	ck_assert_uint_eq(ev->param.arg, 7);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	CK_FAILS(rdma_get_cm_event(c1, &ev), EAGAIN);

	/* New events follow the id. */
	ck_assert_int_eq(rdma_resolve_route(a, 2000), 0);
	ck_assert(readable(c2->fd, 2000));
	ck_assert(!readable(c1->fd, 0));
	ck_assert_int_eq(rdma_get_cm_event(c2, &ev), 0);
	ck_assert_int_eq(ev->event, RDMA_CM_EVENT_ROUTE_RESOLVED);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);

	/* c1 can go once b does, though a came from it. */
	ck_assert_int_eq(rdma_destroy_id(b), 0);
	rdma_destroy_event_channel(c1);
	ck_assert_int_eq(rdma_destroy_id(a), 0);
	rdma_destroy_event_channel(c2);
}
END_TEST

/* With a NULL channel, resolve_addr and resolve_route return once done,
 * the event on id->event. */
START_TEST(sync_ids)
{
	struct sockaddr_in dst = in4(LOOP, 7471);
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;

	ck_assert_int_eq(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	ck_assert_ptr_nonnull(id->channel);
	ck_assert_int_eq(rdma_resolve_addr(id, NULL, SA(dst), 2000), 0);
	ck_assert_ptr_nonnull(id->event);
	ck_assert_int_eq(id->event->event, RDMA_CM_EVENT_ADDR_RESOLVED);
	ck_assert_ptr_nonnull(id->verbs);
	ck_assert_int_eq(id->route.addr.dst_addr.sa_family, AF_INET);
	ck_assert_uint_eq(rdma_get_dst_port(id), htons(7471));
	ck_assert_int_eq(rdma_resolve_route(id, 2000), 0);
	ck_assert_ptr_nonnull(id->event);
	ck_assert_int_eq(id->event->event, RDMA_CM_EVENT_ROUTE_RESOLVED);
	ck_assert_int_eq(id->route.num_paths, 1);
	ck_assert_ptr_nonnull(id->route.path_rec);
	/* nothing left to read */
	ch = id->channel;
	ck_assert(!readable(ch->fd, 0));
	ck_assert_int_eq(rdma_destroy_id(id), 0);

	/* A synchronous id can take a channel, and give it up again. */
	ck_assert_int_eq(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	ch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(ch);
	ck_assert_int_eq(rdma_migrate_id(id, ch), 0);
	ck_assert_int_eq(rdma_resolve_addr(id, NULL, SA(dst), 2000), 0);
	ck_assert_ptr_null(id->event);
	expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, 2000);
	ck_assert_int_eq(rdma_migrate_id(id, NULL), 0);
	ck_assert_ptr_ne(id->channel, ch);
	ck_assert_int_eq(rdma_resolve_route(id, 2000), 0);
	ck_assert_int_eq(id->event->event, RDMA_CM_EVENT_ROUTE_RESOLVED);
	ck_assert(!readable(ch->fd, 0));
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Devices and addrinfo                                                */

START_TEST(devices)
{
	struct ibv_context **list, **again;
	int n = -1;

	list = rdma_get_devices(&n);
	ck_assert_ptr_nonnull(list);
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_nonnull(list[0]);
	ck_assert_str_eq(ibv_get_device_name(list[0]->device), "emu0");
	ck_assert_ptr_null(list[1]);
	/* the same contexts every time, the count optional */
	again = rdma_get_devices(NULL);
	ck_assert_ptr_nonnull(again);
	ck_assert_ptr_eq(again[0], list[0]);
	ck_assert_ptr_null(again[1]);
	rdma_free_devices(again);
	rdma_free_devices(list);
}
END_TEST

START_TEST(getaddrinfo_passive)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct sockaddr_in *sin;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_family = AF_INET;
	hints.ai_port_space = RDMA_PS_TCP;
	ck_assert_int_eq(rdma_getaddrinfo(NULL, "7471", &hints, &res), 0);
	ck_assert_ptr_nonnull(res);
	ck_assert(res->ai_flags & RAI_PASSIVE);
	ck_assert_int_eq(res->ai_family, AF_INET);
	ck_assert_int_eq(res->ai_qp_type, IBV_QPT_RC);
	ck_assert_int_eq(res->ai_port_space, RDMA_PS_TCP);
	ck_assert_uint_eq(res->ai_src_len, sizeof(struct sockaddr_in));
	ck_assert_ptr_nonnull(res->ai_src_addr);
	sin = (struct sockaddr_in *)res->ai_src_addr;
	ck_assert_int_eq(sin->sin_family, AF_INET);
	ck_assert_uint_eq(sin->sin_addr.s_addr, htonl(INADDR_ANY));
	ck_assert_uint_eq(sin->sin_port, htons(7471));
	ck_assert_uint_eq(res->ai_dst_len, 0);
	ck_assert_ptr_null(res->ai_dst_addr);
	rdma_freeaddrinfo(res);

	/* UDP: datagrams */
	hints.ai_port_space = RDMA_PS_UDP;
	res = NULL;
	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res),
			 0);
	ck_assert_int_eq(res->ai_qp_type, IBV_QPT_UD);
	ck_assert_int_eq(res->ai_port_space, RDMA_PS_UDP);
	sin = (struct sockaddr_in *)res->ai_src_addr;
	ck_assert_uint_eq(sin->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	rdma_freeaddrinfo(res);

	/* active: the address is the destination */
	hints.ai_flags = 0;
	hints.ai_port_space = RDMA_PS_TCP;
	res = NULL;
	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res),
			 0);
	ck_assert(!(res->ai_flags & RAI_PASSIVE));
	ck_assert_ptr_null(res->ai_src_addr);
	ck_assert_uint_eq(res->ai_dst_len, sizeof(struct sockaddr_in));
	sin = (struct sockaddr_in *)res->ai_dst_addr;
	ck_assert_uint_eq(sin->sin_port, htons(7471));
	rdma_freeaddrinfo(res);

	/* what RoCE has no use for */
	hints.ai_flags = RAI_SA;
	CK_FAILS(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res),
		 EOPNOTSUPP);
	hints.ai_flags = 0;
	hints.ai_family = AF_IB;
	CK_FAILS(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res), EINVAL);
}
END_TEST

/* rdma_create_ep on a passive rdma_getaddrinfo: a bound synchronous id. */
START_TEST(create_ep_passive)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct rdma_cm_id *id = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "0", &hints, &res), 0);
	ck_assert_int_eq(rdma_create_ep(&id, res, NULL, NULL), 0);
	ck_assert_ptr_nonnull(id);
	ck_assert_ptr_null(id->verbs); /* loopback: no device, as Linux */
	ck_assert_uint_ne(rdma_get_src_port(id), 0);
	ck_assert_int_eq(rdma_listen(id, 1), 0);
	rdma_destroy_ep(id);
	rdma_freeaddrinfo(res);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Connections on 127.0.0.1                                            */

START_TEST(connect_accept_disconnect)
{
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param cp;
	struct rdma_cm_id *l, *c, *s;
	struct rdma_cm_event *ev;
	static const char hello[] = "hello", welcome[] = "welcome";
	uint16_t port;

	c = rc_client(sch, cch, &l, &port);
	memset(&cp, 0, sizeof(cp));
	cp.private_data = hello;
	cp.private_data_len = sizeof(hello);
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	ck_assert_int_eq(rdma_connect(c, &cp), 0);

	ev = next_event(sch, RDMA_CM_EVENT_CONNECT_REQUEST, 3000);
	ck_assert_ptr_eq(ev->listen_id, l);
	ck_assert_ptr_ne(ev->id, l);
	ck_assert_int_eq(ev->status, 0);
	ck_assert_uint_ge(ev->param.conn.private_data_len, sizeof(hello));
	ck_assert_mem_eq(ev->param.conn.private_data, hello, sizeof(hello));
	ck_assert_uint_eq(ev->param.conn.qp_num, c->qp->qp_num);
	s = ev->id;
	ck_assert_ptr_eq(s->channel, sch);
	ck_assert_ptr_nonnull(s->verbs);
	ck_assert_uint_eq(rdma_get_dst_port(s), rdma_get_src_port(c));
	ck_assert_uint_eq(rdma_get_src_port(s), htons(port));
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	qa = qp_attr(IBV_QPT_RC);
	ck_assert_int_eq(rdma_create_qp(s, NULL, &qa), 0);
	cp.private_data = welcome;
	cp.private_data_len = sizeof(welcome);
	ck_assert_int_eq(rdma_accept(s, &cp), 0);

	ev = next_event(cch, RDMA_CM_EVENT_ESTABLISHED, 3000);
	ck_assert_ptr_eq(ev->id, c);
	ck_assert_mem_eq(ev->param.conn.private_data, welcome,
			 sizeof(welcome));
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	ev = next_event(sch, RDMA_CM_EVENT_ESTABLISHED, 3000);
	ck_assert_ptr_eq(ev->id, s);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	/* accepted once */
	CK_FAILS(rdma_accept(s, &cp), EINVAL);
	CK_FAILS(rdma_reject(s, NULL, 0), EINVAL);

	/* The client hangs up; the server answers by hanging up too. */
	ck_assert_int_eq(rdma_disconnect(c), 0);
	ev = next_event(sch, RDMA_CM_EVENT_DISCONNECTED, 3000);
	ck_assert_ptr_eq(ev->id, s);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	ck_assert_int_eq(rdma_disconnect(s), 0);
	ev = next_event(cch, RDMA_CM_EVENT_DISCONNECTED, 3000);
	ck_assert_ptr_eq(ev->id, c);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	/* a second disconnect changes nothing */
	ck_assert_int_eq(rdma_disconnect(c), 0);
	expect_event(cch, RDMA_CM_EVENT_TIMEWAIT_EXIT, 3000);
	expect_event(sch, RDMA_CM_EVENT_TIMEWAIT_EXIT, 3000);
	expect_quiet(cch, 100);
	expect_quiet(sch, 0);
	CK_FAILS(rdma_disconnect(c), EINVAL);

	destroy(c);
	destroy(s);
	ck_assert_int_eq(rdma_destroy_id(l), 0);
	rdma_destroy_event_channel(cch);
	rdma_destroy_event_channel(sch);
}
END_TEST

/*
 * rping's order: the client hangs up, then frees its QP with
 * ibv_destroy_qp, leaving id->qp behind it, and the server's DREP and
 * DREQ arrive after that on the CM's thread. The events they post must
 * not look at the QP (they named it through id->qp: a use after free
 * that the ASan build reports).
 */
START_TEST(disconnect_after_ibv_destroy_qp)
{
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param cp;
	struct rdma_cm_id *l, *c, *s;
	struct rdma_cm_event *ev;
	uint16_t port;

	c = rc_client(sch, cch, &l, &port);
	memset(&cp, 0, sizeof(cp));
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	ck_assert_int_eq(rdma_connect(c, &cp), 0);
	ev = next_event(sch, RDMA_CM_EVENT_CONNECT_REQUEST, 3000);
	s = ev->id;
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	qa = qp_attr(IBV_QPT_RC);
	ck_assert_int_eq(rdma_create_qp(s, NULL, &qa), 0);
	ck_assert_int_eq(rdma_accept(s, &cp), 0);
	expect_event(cch, RDMA_CM_EVENT_ESTABLISHED, 3000);
	expect_event(sch, RDMA_CM_EVENT_ESTABLISHED, 3000);

	ck_assert_int_eq(rdma_disconnect(c), 0);
	ck_assert_int_eq(ibv_destroy_qp(c->qp), 0);	/* c->qp dangles */
	expect_event(sch, RDMA_CM_EVENT_DISCONNECTED, 3000);
	ck_assert_int_eq(rdma_disconnect(s), 0);
	expect_event(cch, RDMA_CM_EVENT_DISCONNECTED, 3000);
	expect_event(cch, RDMA_CM_EVENT_TIMEWAIT_EXIT, 3000);
	expect_event(sch, RDMA_CM_EVENT_TIMEWAIT_EXIT, 3000);

	c->qp = NULL;			/* the id's CQs remain to free */
	destroy(c);
	destroy(s);
	ck_assert_int_eq(rdma_destroy_id(l), 0);
	rdma_destroy_event_channel(cch);
	rdma_destroy_event_channel(sch);
}
END_TEST

/* A REQ to a port nobody listens on: REJ, reason "invalid service ID". */
START_TEST(connect_no_listener)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in lo = in4(LOOP, 0);
	struct ibv_qp_init_attr qa = qp_attr(IBV_QPT_RC);
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *c, *hold;
	uint16_t port;

	ck_assert_ptr_nonnull(ch);
	/* a port surely free: take one, then let it go */
	ck_assert_int_eq(rdma_create_id(ch, &hold, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_bind_addr(hold, SA(lo)), 0);
	port = ntohs(rdma_get_src_port(hold));
	ck_assert_int_eq(rdma_destroy_id(hold), 0);
	resolve_loop(ch, &c, RDMA_PS_TCP, port);
	ck_assert_int_eq(rdma_create_qp(c, NULL, &qa), 0);
	memset(&cp, 0, sizeof(cp));
	ck_assert_int_eq(rdma_connect(c, &cp), 0);
	ev = next_event(ch, RDMA_CM_EVENT_REJECTED, 3000);
	ck_assert_ptr_eq(ev->id, c);
	ck_assert_int_eq(ev->status, REJ_INVALID_SERVICE_ID);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	expect_quiet(ch, 100);
	/* Not connected; it may try again. */
	CK_FAILS(rdma_disconnect(c), EINVAL);
	ck_assert_int_eq(rdma_connect(c, &cp), 0);
	ev = next_event(ch, RDMA_CM_EVENT_REJECTED, 3000);
	ck_assert_int_eq(ev->status, REJ_INVALID_SERVICE_ID);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	destroy(c);
	rdma_destroy_event_channel(ch);
}
END_TEST

/* rdma_reject's private data reaches the active side's REJECTED. */
START_TEST(reject_private_data)
{
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_event_channel *cch = rdma_create_event_channel();
	static const char why[] = "go away";
	uint8_t big[149];
	struct rdma_conn_param cp;
	struct rdma_cm_id *l, *c, *s;
	struct rdma_cm_event *ev;
	uint16_t port;

	c = rc_client(sch, cch, &l, &port);
	memset(&cp, 0, sizeof(cp));
	ck_assert_int_eq(rdma_connect(c, &cp), 0);
	ev = next_event(sch, RDMA_CM_EVENT_CONNECT_REQUEST, 3000);
	s = ev->id;
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	/* more than a REJ carries (148 bytes) */
	memset(big, 0xab, sizeof(big));
	CK_FAILS(rdma_reject(s, big, sizeof(big)), EINVAL);
	ck_assert_int_eq(rdma_reject(s, why, sizeof(why)), 0);
	/* rejected once */
	CK_FAILS(rdma_reject(s, why, sizeof(why)), EINVAL);
	CK_FAILS(rdma_accept(s, &cp), EINVAL);

	ev = next_event(cch, RDMA_CM_EVENT_REJECTED, 3000);
	ck_assert_ptr_eq(ev->id, c);
	ck_assert_int_eq(ev->status, REJ_CONSUMER);
	ck_assert_ptr_nonnull(ev->param.conn.private_data);
	ck_assert_uint_ge(ev->param.conn.private_data_len, sizeof(why));
	ck_assert_mem_eq(ev->param.conn.private_data, why, sizeof(why));
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	expect_quiet(sch, 100);
	expect_quiet(cch, 0);
	ck_assert_int_eq(rdma_destroy_id(s), 0);
	destroy(c);
	ck_assert_int_eq(rdma_destroy_id(l), 0);
	rdma_destroy_event_channel(cch);
	rdma_destroy_event_channel(sch);
}
END_TEST

/* RDMA_PS_UDP: SIDR; the active side learns the QPN and the Q_Key. */
START_TEST(connect_ud)
{
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct ibv_qp_init_attr qa = qp_attr(IBV_QPT_UD);
	static const char hi[] = "hi";
	struct rdma_conn_param cp;
	struct rdma_cm_id *l, *c, *s;
	struct rdma_cm_event *ev;
	uint16_t port;

	ck_assert_ptr_nonnull(sch);
	ck_assert_ptr_nonnull(cch);
	port = listen_loop(sch, &l, RDMA_PS_UDP);
	resolve_loop(cch, &c, RDMA_PS_UDP, port);
	ck_assert_int_eq(rdma_create_qp(c, NULL, &qa), 0);
	memset(&cp, 0, sizeof(cp));
	cp.private_data = hi;
	cp.private_data_len = sizeof(hi);
	ck_assert_int_eq(rdma_connect(c, &cp), 0);

	ev = next_event(sch, RDMA_CM_EVENT_CONNECT_REQUEST, 3000);
	ck_assert_ptr_eq(ev->listen_id, l);
	ck_assert_mem_eq(ev->param.ud.private_data, hi, sizeof(hi));
	s = ev->id;
	ck_assert_int_eq(s->qp_type, IBV_QPT_UD);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	qa = qp_attr(IBV_QPT_UD);
	ck_assert_int_eq(rdma_create_qp(s, NULL, &qa), 0);
	ck_assert_int_eq(rdma_accept(s, NULL), 0);

	ev = next_event(cch, RDMA_CM_EVENT_ESTABLISHED, 3000);
	ck_assert_ptr_eq(ev->id, c);
	ck_assert_int_eq(ev->status, 0);
	ck_assert_uint_eq(ev->param.ud.qp_num, s->qp->qp_num);
	ck_assert_uint_eq(ev->param.ud.qkey, RDMA_UDP_QKEY);
	ck_assert_uint_eq(ev->param.ud.qkey, 0x01234567);
	ck_assert_int_eq(ev->param.ud.ah_attr.is_global, 1);
	ck_assert_int_eq(ev->param.ud.ah_attr.port_num, 1);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	/* The passive side of SIDR hears nothing more. */
	expect_quiet(sch, 200);
	expect_quiet(cch, 0);
	destroy(c);
	destroy(s);
	ck_assert_int_eq(rdma_destroy_id(l), 0);
	rdma_destroy_event_channel(cch);
	rdma_destroy_event_channel(sch);
}
END_TEST

static Suite *cm_api_suite(void)
{
	Suite *s = suite_create("cm_api");
	TCase *tc;

	tc = tcase_create("pure");
	tcase_add_test(tc, event_str_known);
	tcase_add_test(tc, event_str_unknown);
	tcase_add_test(tc, ports);
	suite_add_tcase(s, tc);

	tc = tcase_create("arguments");
	tcase_add_test(tc, null_arguments);
	tcase_add_test(tc, port_spaces);
	tcase_add_test(tc, bind_rules);
	tcase_add_test(tc, bind_port_zero);
	tcase_add_test(tc, bind_in_use);
	tcase_add_test(tc, bind_in_use_across_processes);
	tcase_add_test(tc, out_of_order);
	tcase_add_test(tc, options);
	suite_add_tcase(s, tc);

	tc = tcase_create("channels");
	tcase_add_test(tc, channel_fd);
	tcase_add_test(tc, migrate);
	tcase_add_test(tc, sync_ids);
	suite_add_tcase(s, tc);

	tc = tcase_create("lookup");
	tcase_add_test(tc, devices);
	tcase_add_test(tc, getaddrinfo_passive);
	tcase_add_test(tc, create_ep_passive);
	suite_add_tcase(s, tc);

	tc = tcase_create("connections");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, connect_accept_disconnect);
	tcase_add_test(tc, disconnect_after_ibv_destroy_qp);
	tcase_add_test(tc, connect_no_listener);
	tcase_add_test(tc, reject_private_data);
	tcase_add_test(tc, connect_ud);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(cm_api_suite());
}
