/* Unit tests for cm/stubs.c, what librdmacm still does not implement, and
 * for the refusals of the rsockets front end (cm/rsocket.c) that need no
 * peer. Multicast fails with -1/EOPNOTSUPP (arguments it can never take
 * with EINVAL, unknown rdma_join_multicast_ex mask bits with ENOTSUP, as
 * rdma-core), rdma_resolve_addrinfo and rdma_query_addrinfo with ENOSYS.
 * rsockets refuse numbers that are not rsockets with EBADF and sockets
 * they cannot make with ENOTSUP, and rpoll and rselect over real
 * descriptors only behave as poll and select. The implemented rdma_cm
 * calls are test_cm_api.c's; rsockets between two processes are
 * tests/integration/rs_check.c's. */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
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

/* Numbers that are not rsockets: -1, a real descriptor (a pipe's) and
 * one far past any descriptor; every call says EBADF, as rdma-core's
 * finds no socket in its index. */
START_TEST(rsockets_not_ours)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_in name;
	char buf[8] = { 0 };
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	socklen_t len;
	int p[2], fds[3], i, v = 1;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(7471);
	ck_assert_int_eq(pipe(p), 0);
	fds[0] = -1;
	fds[1] = p[0];
	fds[2] = 1 << 20;
	for (i = 0; i < 3; i++) {
		int fd = fds[i];

		CK_FAILS(rbind(fd, (struct sockaddr *)&sin, sizeof(sin)),
			 EBADF);
		CK_FAILS(rlisten(fd, 1), EBADF);
		CK_FAILS(raccept(fd, NULL, NULL), EBADF);
		CK_FAILS(rconnect(fd, (struct sockaddr *)&sin, sizeof(sin)),
			 EBADF);
		CK_FAILS(rshutdown(fd, SHUT_RDWR), EBADF);
		CK_FAILS(rrecv(fd, buf, sizeof(buf), 0), EBADF);
		CK_FAILS(rrecvfrom(fd, buf, sizeof(buf), 0, NULL, NULL),
			 EBADF);
		CK_FAILS(rrecvmsg(fd, &msg, 0), EBADF);
		CK_FAILS(rread(fd, buf, sizeof(buf)), EBADF);
		CK_FAILS(rreadv(fd, &iov, 1), EBADF);
		CK_FAILS(rsend(fd, buf, sizeof(buf), 0), EBADF);
		CK_FAILS(rsendto(fd, buf, sizeof(buf), 0,
				 (struct sockaddr *)&sin, sizeof(sin)), EBADF);
		CK_FAILS(rsendmsg(fd, &msg, 0), EBADF);
		CK_FAILS(rwrite(fd, buf, sizeof(buf)), EBADF);
		CK_FAILS(rwritev(fd, &iov, 1), EBADF);
		len = sizeof(name);
		CK_FAILS(rgetpeername(fd, (struct sockaddr *)&name, &len),
			 EBADF);
		len = sizeof(name);
		CK_FAILS(rgetsockname(fd, (struct sockaddr *)&name, &len),
			 EBADF);
		CK_FAILS(rsetsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &v,
				     sizeof(v)), EBADF);
		len = sizeof(v);
		CK_FAILS(rgetsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len),
			 EBADF);
		CK_FAILS(rfcntl(fd, F_GETFL), EBADF);
		CK_FAILS(rfcntl(fd, F_SETFL, O_NONBLOCK), EBADF);
		errno = 0;
		ck_assert(riomap(fd, buf, sizeof(buf), PROT_WRITE, 0, -1) ==
			  (off_t)-1);
		ck_assert_int_eq(errno, EBADF);
		CK_FAILS(riounmap(fd, buf, sizeof(buf)), EBADF);
		errno = 0;
		ck_assert(riowrite(fd, buf, sizeof(buf), 0, 0) == (size_t)-1);
		ck_assert_int_eq(errno, EBADF);
		CK_FAILS(rclose(fd), EBADF);
	}
	/* rclose of a real descriptor left it alone. */
	ck_assert_int_ge(fcntl(p[0], F_GETFD), 0);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* Sockets rsockets cannot make: refused before any rdma call. */
START_TEST(rsockets_not_supported)
{
	CK_FAILS(rsocket(AF_UNIX, SOCK_STREAM, 0), ENOTSUP);
	CK_FAILS(rsocket(AF_PACKET, SOCK_DGRAM, 0), ENOTSUP);
	CK_FAILS(rsocket(AF_UNSPEC, SOCK_STREAM, 0), ENOTSUP);
	CK_FAILS(rsocket(AF_INET, SOCK_RAW, 0), ENOTSUP);
	CK_FAILS(rsocket(AF_INET, SOCK_SEQPACKET, 0), ENOTSUP);
	CK_FAILS(rsocket(AF_INET6, SOCK_RDM, 0), ENOTSUP);
	CK_FAILS(rsocket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, 0), ENOTSUP);
	CK_FAILS(rsocket(AF_INET, SOCK_STREAM, IPPROTO_UDP), ENOTSUP);
	CK_FAILS(rsocket(AF_INET, SOCK_STREAM, IPPROTO_SCTP), ENOTSUP);
	CK_FAILS(rsocket(AF_INET, SOCK_DGRAM, IPPROTO_TCP), ENOTSUP);
	CK_FAILS(rsocket(AF_INET6, SOCK_DGRAM, IPPROTO_TCP), ENOTSUP);
	CK_FAILS(rsocket(AF_IB, SOCK_DGRAM, 0), ENOTSUP);
}
END_TEST

/* rpoll and rselect with real descriptors only: poll and select. */
START_TEST(rsockets_poll_real_fds)
{
	struct timeval zero = { 0, 0 };
	struct pollfd pfd[2];
	fd_set rd;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	pfd[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	ck_assert_int_eq(rpoll(pfd, 1, 0), 0);
	ck_assert_int_eq(pfd[0].revents, 0);
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	ck_assert_int_eq(rpoll(pfd, 1, 0), 1);
	ck_assert_int_eq(pfd[0].revents, POLLIN);
	ck_assert_int_eq(rpoll(pfd, 1, 1000), 1);
	ck_assert_int_eq(pfd[0].revents, POLLIN);
	/* Both ends: the read end readable, the write end writable. */
	pfd[1] = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	ck_assert_int_eq(rpoll(pfd, 2, 0), 2);
	ck_assert_int_eq(pfd[1].revents, POLLOUT);

	ck_assert_int_eq(rselect(0, NULL, NULL, NULL, &zero), 0);
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	ck_assert_int_eq(rselect(p[0] + 1, &rd, NULL, NULL, &zero), 1);
	ck_assert(FD_ISSET(p[0], &rd));
	close(p[0]);
	close(p[1]);
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
	tcase_add_test(tc, rsockets_not_ours);
	tcase_add_test(tc, rsockets_not_supported);
	tcase_add_test(tc, rsockets_poll_real_fds);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(cm_stubs_suite());
}
