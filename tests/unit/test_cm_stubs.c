/* Unit tests for cm/stubs.c: what librdmacm still does not implement.
 * Multicast fails with -1/EOPNOTSUPP (arguments it can never take with
 * EINVAL, unknown rdma_join_multicast_ex mask bits with ENOTSUP, as
 * rdma-core), rdma_resolve_addrinfo and rdma_query_addrinfo with ENOSYS,
 * and every rsockets call with ENOSYS. The implemented calls are
 * test_cm_api.c's. */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>
#include <infiniband/ib.h>

#include "tests/unit/testlib.h"

/* expr fails as an int call: -1 with errno = err. */
#define CK_FAILS(expr, err) do {					\
	errno = 0;							\
	ck_assert_int_eq((int)(expr), -1);				\
	ck_assert_int_eq(errno, (err));					\
} while (0)

/* A real id on a channel of its own, bound to 127.0.0.1 so that its
 * state is not the reason a call fails. */
static struct rdma_event_channel *ch;
static struct rdma_cm_id *id;

static void id_open(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(ch);
	ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_UDP), 0);
	ck_assert_int_eq(rdma_bind_addr(id, (struct sockaddr *)&sin), 0);
}

static void id_close(void)
{
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
}

/* ------------------------------------------------------------------ */
/* Multicast                                                           */

START_TEST(multicast_null)
{
	struct rdma_cm_join_mc_attr_ex mc;
	struct sockaddr_in sin = { .sin_family = AF_INET };

	memset(&mc, 0, sizeof(mc));
	CK_FAILS(rdma_join_multicast(NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_join_multicast(NULL, (struct sockaddr *)&sin, NULL),
		 EINVAL);
	CK_FAILS(rdma_join_multicast_ex(NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_join_multicast_ex(NULL, &mc, NULL), EINVAL);
	CK_FAILS(rdma_leave_multicast(NULL, NULL), EINVAL);
	CK_FAILS(rdma_leave_multicast(NULL, (struct sockaddr *)&sin), EINVAL);
	id_open();
	CK_FAILS(rdma_join_multicast(id, NULL, NULL), EINVAL);
	CK_FAILS(rdma_join_multicast_ex(id, NULL, NULL), EINVAL);
	CK_FAILS(rdma_leave_multicast(id, NULL), EINVAL);
	id_close();
}
END_TEST

/* Arguments that are there but can never be valid. */
START_TEST(multicast_bad_arguments)
{
	struct rdma_cm_join_mc_attr_ex mc;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr unix_addr = { .sa_family = AF_UNIX };

	sin.sin_addr.s_addr = htonl(0xe0000101); /* 224.0.1.1 */
	id_open();
	CK_FAILS(rdma_join_multicast(id, &unix_addr, NULL), EINVAL);
	CK_FAILS(rdma_leave_multicast(id, &unix_addr), EINVAL);

	/* rdma_join_multicast_ex's mask: unknown bits, then missing ones */
	memset(&mc, 0, sizeof(mc));
	mc.addr = (struct sockaddr *)&sin;
	mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_RESERVED;
	CK_FAILS(rdma_join_multicast_ex(id, &mc, NULL), ENOTSUP);
	mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
		       RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS |
		       RDMA_CM_JOIN_MC_ATTR_RESERVED;
	CK_FAILS(rdma_join_multicast_ex(id, &mc, NULL), ENOTSUP);
	mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS;
	CK_FAILS(rdma_join_multicast_ex(id, &mc, NULL), EINVAL);
	mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	CK_FAILS(rdma_join_multicast_ex(id, &mc, NULL), EINVAL);
	mc.comp_mask |= RDMA_CM_JOIN_MC_ATTR_ADDRESS;
	mc.join_flags = RDMA_MC_JOIN_FLAG_RESERVED;
	CK_FAILS(rdma_join_multicast_ex(id, &mc, NULL), EINVAL);
	mc.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	mc.addr = &unix_addr;
	CK_FAILS(rdma_join_multicast_ex(id, &mc, NULL), EINVAL);
	mc.addr = NULL;
	CK_FAILS(rdma_join_multicast_ex(id, &mc, NULL), EINVAL);
	id_close();
}
END_TEST

/* Valid arguments: no multicast groups on the emulated device. */
START_TEST(multicast_not_supported)
{
	struct rdma_cm_join_mc_attr_ex mc;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct rdma_cm_event *ev;
	int f;

	sin.sin_addr.s_addr = htonl(0xe0000101);
	sin6.sin6_addr.s6_addr[0] = 0xff;
	sin6.sin6_addr.s6_addr[1] = 0x0e;
	sin6.sin6_addr.s6_addr[15] = 1;
	id_open();
	CK_FAILS(rdma_join_multicast(id, (struct sockaddr *)&sin, NULL),
		 EOPNOTSUPP);
	CK_FAILS(rdma_join_multicast(id, (struct sockaddr *)&sin6, NULL),
		 EOPNOTSUPP);
	CK_FAILS(rdma_leave_multicast(id, (struct sockaddr *)&sin),
		 EOPNOTSUPP);
	memset(&mc, 0, sizeof(mc));
	mc.addr = (struct sockaddr *)&sin;
	mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
		       RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	for (f = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	     f < RDMA_MC_JOIN_FLAG_RESERVED; f++) {
		mc.join_flags = (uint32_t)f;
		CK_FAILS(rdma_join_multicast_ex(id, &mc, NULL), EOPNOTSUPP);
	}
	/* Nothing was queued for the refused joins. */
	ck_assert_int_eq(fcntl(ch->fd, F_SETFL, O_NONBLOCK), 0);
	CK_FAILS(rdma_get_cm_event(ch, &ev), EAGAIN);
	id_close();
}
END_TEST

/* ------------------------------------------------------------------ */
/* Asynchronous addrinfo resolution                                    */

START_TEST(addrinfo_async)
{
	struct rdma_addrinfo *res = NULL;

	CK_FAILS(rdma_resolve_addrinfo(NULL, NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_resolve_addrinfo(NULL, "127.0.0.1", "7471", NULL),
		 EINVAL);
	CK_FAILS(rdma_query_addrinfo(NULL, NULL), EINVAL);
	CK_FAILS(rdma_query_addrinfo(NULL, &res), EINVAL);
	id_open();
	CK_FAILS(rdma_resolve_addrinfo(id, NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_query_addrinfo(id, NULL), EINVAL);
	CK_FAILS(rdma_resolve_addrinfo(id, "127.0.0.1", NULL, NULL), ENOSYS);
	CK_FAILS(rdma_resolve_addrinfo(id, NULL, "7471", NULL), ENOSYS);
	CK_FAILS(rdma_resolve_addrinfo(id, "127.0.0.1", "7471", NULL),
		 ENOSYS);
	CK_FAILS(rdma_query_addrinfo(id, &res), ENOSYS);
	ck_assert_ptr_null(res);
	id_close();
}
END_TEST

/* ------------------------------------------------------------------ */
/* rsockets                                                            */

START_TEST(rsockets)
{
	char buf[8];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	struct epoll_event epev;
	socklen_t len = 0;

	CK_FAILS(rsocket(AF_INET, SOCK_STREAM, 0), ENOSYS);
	CK_FAILS(rbind(3, NULL, 0), ENOSYS);
	CK_FAILS(rlisten(3, 1), ENOSYS);
	CK_FAILS(raccept(3, NULL, NULL), ENOSYS);
	CK_FAILS(rconnect(3, NULL, 0), ENOSYS);
	CK_FAILS(rshutdown(3, SHUT_RDWR), ENOSYS);
	CK_FAILS(rclose(3), ENOSYS);
	CK_FAILS(rrecv(3, buf, sizeof(buf), 0), ENOSYS);
	CK_FAILS(rrecvfrom(3, buf, sizeof(buf), 0, NULL, NULL), ENOSYS);
	CK_FAILS(rrecvmsg(3, &msg, 0), ENOSYS);
	CK_FAILS(rsend(3, buf, sizeof(buf), 0), ENOSYS);
	CK_FAILS(rsendto(3, buf, sizeof(buf), 0, NULL, 0), ENOSYS);
	CK_FAILS(rsendmsg(3, &msg, 0), ENOSYS);
	CK_FAILS(rread(3, buf, sizeof(buf)), ENOSYS);
	CK_FAILS(rreadv(3, &iov, 1), ENOSYS);
	CK_FAILS(rwrite(3, buf, sizeof(buf)), ENOSYS);
	CK_FAILS(rwritev(3, &iov, 1), ENOSYS);
	CK_FAILS(rpoll(&pfd, 1, 0), ENOSYS);
	CK_FAILS(rselect(0, NULL, NULL, NULL, NULL), ENOSYS);
	CK_FAILS(rgetpeername(3, NULL, &len), ENOSYS);
	CK_FAILS(rgetsockname(3, NULL, NULL), ENOSYS);
	CK_FAILS(rsetsockopt(3, SOL_RDMA, RDMA_SQSIZE, NULL, 0), ENOSYS);
	CK_FAILS(rgetsockopt(3, SOL_RDMA, RDMA_RQSIZE, NULL, NULL), ENOSYS);
	CK_FAILS(rfcntl(3, F_GETFL), ENOSYS);
	CK_FAILS(rfcntl(3, F_SETFL, O_NONBLOCK), ENOSYS);
	errno = 0;
	ck_assert(riomap(3, buf, sizeof(buf), PROT_WRITE, 0, -1) ==
		  (off_t)-1);
	ck_assert_int_eq(errno, ENOSYS);
	CK_FAILS(riounmap(3, buf, sizeof(buf)), ENOSYS);
	errno = 0;
	ck_assert(riowrite(3, buf, sizeof(buf), 0, 0) == (size_t)-1);
	ck_assert_int_eq(errno, ENOSYS);
	CK_FAILS(repoll_create(0), ENOSYS);
	CK_FAILS(repoll_ctl(3, EPOLL_CTL_ADD, 4, &epev), ENOSYS);
	CK_FAILS(repoll_wait(3, &epev, 1, 0), ENOSYS);
}
END_TEST

static Suite *cm_stubs_suite(void)
{
	Suite *s = suite_create("cm_stubs");
	TCase *tc;

	tc = tcase_create("multicast");
	tcase_add_test(tc, multicast_null);
	tcase_add_test(tc, multicast_bad_arguments);
	tcase_add_test(tc, multicast_not_supported);
	suite_add_tcase(s, tc);

	tc = tcase_create("addrinfo");
	tcase_add_test(tc, addrinfo_async);
	suite_add_tcase(s, tc);

	tc = tcase_create("rsocket");
	tcase_add_test(tc, rsockets);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(cm_stubs_suite());
}
