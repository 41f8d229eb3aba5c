/* Unit tests for the RoCEv2 endpoints (net/endpoint.c): loopback claims,
 * explicit binds and their errors, address text, close. Loopback only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <check.h>

#include "net/endpoint.h"
#include "tests/unit/testlib.h"

#define NO_EP            \
	{                \
		.fd = -1 \
	}

static struct in6_addr addr(const char *s)
{
	struct in6_addr a;
	struct in_addr a4;

	if (inet_pton(AF_INET, s, &a4) == 1)
		emu_addr_from_ipv4(&a, ntohl(a4.s_addr));
	else
		ck_assert_int_eq(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

static uint32_t ipv4_of(const struct in6_addr *a)
{
	return ntohl(a->s6_addr32[3]);
}

/* A 127.0.0.x:4791 nobody holds right now. Claims start at 127.1.0.1, so
 * concurrent claims (other tests) do not take it back in between. */
static struct in6_addr free_explicit_addr(void)
{
	unsigned int i, x;

	for (i = 0; i < 200; i++) {
		struct sockaddr_in sin = {
			.sin_family = AF_INET,
			.sin_port = htons(EMU_ROCE_UDP_PORT),
		};
		int fd = socket(AF_INET, SOCK_DGRAM, 0);
		int rc;

		x = 2 + (getpid() + i) % 250;
		sin.sin_addr.s_addr = htonl(0x7f000000u | x);
		ck_assert_int_ge(fd, 0);
		rc = bind(fd, (struct sockaddr *)&sin, sizeof(sin));
		close(fd);
		if (!rc) {
			struct in6_addr a;

			emu_addr_from_ipv4(&a, 0x7f000000u | x);
			return a;
		}
	}
	ck_abort_msg("no free 127.0.0.x:4791");
	return in6addr_any;
}

/* The socket really is bound where the endpoint says it is. */
static void expect_bound(const struct emu_endpoint *ep)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	ck_assert_int_ge(ep->fd, 0);
	ck_assert_int_eq(getsockname(ep->fd, (struct sockaddr *)&ss, &len), 0);
	ck_assert_int_eq(ss.ss_family, ep->family);
	if (ep->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		ck_assert(emu_addr_is_v4mapped(&ep->addr));
		ck_assert_uint_eq(ntohs(sin->sin_port), EMU_ROCE_UDP_PORT);
		ck_assert_uint_eq(sin->sin_addr.s_addr, ep->addr.s6_addr32[3]);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		ck_assert_uint_eq(ntohs(sin6->sin6_port), EMU_ROCE_UDP_PORT);
		ck_assert_mem_eq(&sin6->sin6_addr, &ep->addr, 16);
	}
}

START_TEST(t_addr_helpers)
{
	struct in6_addr a;
	char buf[INET6_ADDRSTRLEN];
	static const uint8_t want[16] = {0, 0, 0,    0,	   0,	0, 0, 0,
					 0, 0, 0xff, 0xff, 127, 1, 2, 3};

	emu_addr_from_ipv4(&a, 0x7f010203u);
	ck_assert_mem_eq(a.s6_addr, want, 16);
	ck_assert(emu_addr_is_v4mapped(&a));
	ck_assert_str_eq(emu_addr_str(&a, buf, sizeof(buf)), "127.1.2.3");

	a = addr("::1");
	ck_assert(!emu_addr_is_v4mapped(&a));
	ck_assert_str_eq(emu_addr_str(&a, buf, sizeof(buf)), "::1");
	a = addr("2001:db8::7");
	ck_assert_str_eq(emu_addr_str(&a, buf, sizeof(buf)), "2001:db8::7");
	/* A v4-compatible (not mapped) address stays IPv6 text. */
	a = addr("::127.0.0.1");
	ck_assert(!emu_addr_is_v4mapped(&a));
	ck_assert_str_eq(emu_addr_str(&a, buf, sizeof(buf)), "::127.0.0.1");

	/* Too small a buffer: NULL, never a truncated address. */
	a = addr("127.1.2.3");
	ck_assert_ptr_null(emu_addr_str(&a, buf, 5));
	a = addr("2001:db8::7");
	ck_assert_ptr_null(emu_addr_str(&a, buf, 5));
}
END_TEST

START_TEST(t_claim_two_distinct)
{
	struct emu_endpoint e1 = NO_EP, e2 = NO_EP;

	ck_assert_int_eq(emu_endpoint_claim_loopback(&e1, EMU_ROCE_UDP_PORT), 0);
	ck_assert_int_eq(emu_endpoint_claim_loopback(&e2, EMU_ROCE_UDP_PORT), 0);
	expect_bound(&e1);
	expect_bound(&e2);
	ck_assert_int_eq(e1.family, AF_INET);
	ck_assert_int_eq(e2.family, AF_INET);
	ck_assert_str_eq(e1.netdev, "");
	ck_assert_uint_eq(e1.addr.s6_addr[12], 127);
	ck_assert_uint_eq(e2.addr.s6_addr[12], 127);
	ck_assert_uint_ge(ipv4_of(&e1.addr), EMU_LOOPBACK_FIRST);
	ck_assert_uint_ge(ipv4_of(&e2.addr), EMU_LOOPBACK_FIRST);
	ck_assert_uint_le(ipv4_of(&e2.addr), EMU_LOOPBACK_LAST);
	ck_assert(memcmp(&e1.addr, &e2.addr, 16) != 0);
	ck_assert_int_ne(e1.fd, e2.fd);
	emu_endpoint_close(&e1);
	emu_endpoint_close(&e2);
}
END_TEST

/* Enough claims to cross at least one /24: none may end in .0 or .255,
 * though Linux binds 127.1.0.255 without complaint. */
START_TEST(t_claim_skips_0_255)
{
	enum { N = 300 };
	static struct emu_endpoint ep[N];
	uint32_t first = 0, ip;
	bool crossed = false;
	unsigned int i;

	for (i = 0; i < N; i++) {
		ep[i].fd = -1;
		ck_assert_int_eq(emu_endpoint_claim_loopback(&ep[i], EMU_ROCE_UDP_PORT), 0);
		ip = ipv4_of(&ep[i].addr);
		ck_assert_msg((ip & 0xff) != 0 && (ip & 0xff) != 0xff,
			      "claimed %08x", ip);
		if (!i)
			first = ip;
		else if ((ip >> 8) != (first >> 8))
			crossed = true;
	}
	ck_assert(crossed);
	for (i = 0; i < N; i++)
		emu_endpoint_close(&ep[i]);
}
END_TEST

START_TEST(t_bind_explicit)
{
	struct emu_endpoint ep = NO_EP;
	struct in6_addr a = free_explicit_addr();

	ck_assert_int_eq(emu_endpoint_bind_addr(&ep, &a, EMU_ROCE_UDP_PORT), 0);
	expect_bound(&ep);
	ck_assert_int_eq(ep.family, AF_INET);
	ck_assert_mem_eq(&ep.addr, &a, 16);
	/* The engine reads it non-blocking; exec must not inherit it. */
	ck_assert(fcntl(ep.fd, F_GETFL) & O_NONBLOCK);
	ck_assert(fcntl(ep.fd, F_GETFD) & FD_CLOEXEC);
	emu_endpoint_close(&ep);
}
END_TEST

START_TEST(t_bind_taken)
{
	struct emu_endpoint e1 = NO_EP, e2 = NO_EP;
	struct in6_addr a = free_explicit_addr();

	ck_assert_int_eq(emu_endpoint_bind_addr(&e1, &a, EMU_ROCE_UDP_PORT), 0);
	ck_assert_int_eq(emu_endpoint_bind_addr(&e2, &a,
							 EMU_ROCE_UDP_PORT), -EADDRINUSE);
	ck_assert_int_eq(e2.fd, -1); /* untouched on failure */
	/* Free again once the holder closes. */
	emu_endpoint_close(&e1);
	ck_assert_int_eq(emu_endpoint_bind_addr(&e2, &a, EMU_ROCE_UDP_PORT), 0);
	emu_endpoint_close(&e2);
}
END_TEST

/* A claimed address is taken for explicit binds too. */
START_TEST(t_bind_claimed_taken)
{
	struct emu_endpoint e1 = NO_EP, e2 = NO_EP;

	ck_assert_int_eq(emu_endpoint_claim_loopback(&e1, EMU_ROCE_UDP_PORT), 0);
	ck_assert_int_eq(emu_endpoint_bind_addr(&e2, &e1.addr,
							 EMU_ROCE_UDP_PORT), -EADDRINUSE);
	ck_assert_int_eq(e2.fd, -1);
	emu_endpoint_close(&e1);
}
END_TEST

/* RFC 5737 / RFC 3849 documentation addresses: never local, and a bind
 * that fails sends nothing. */
START_TEST(t_bind_nonlocal)
{
	struct emu_endpoint ep = NO_EP;
	struct in6_addr a = addr("192.0.2.1");

	ck_assert_int_eq(emu_endpoint_bind_addr(&ep, &a,
							 EMU_ROCE_UDP_PORT), -EADDRNOTAVAIL);
	ck_assert_int_eq(ep.fd, -1);
	a = addr("2001:db8::1");
	ck_assert_int_eq(emu_endpoint_bind_addr(&ep, &a,
							 EMU_ROCE_UDP_PORT), -EADDRNOTAVAIL);
	ck_assert_int_eq(ep.fd, -1);
}
END_TEST

START_TEST(t_bind_v6_loopback)
{
	struct emu_endpoint ep = NO_EP;
	struct in6_addr a = addr("::1");
	int rc, i;

	/* ::1 is one address for the whole machine: wait for a concurrent
	 * test that holds it. */
	for (i = 0; i < 100; i++) {
		rc = emu_endpoint_bind_addr(&ep, &a, EMU_ROCE_UDP_PORT);
		if (rc != -EADDRINUSE)
			break;
		usleep(50000);
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(ep.family, AF_INET6);
	expect_bound(&ep);
	emu_endpoint_close(&ep);
}
END_TEST

START_TEST(t_close_idempotent)
{
	struct emu_endpoint ep = NO_EP;
	int fd;

	emu_endpoint_close(&ep); /* never opened */
	ck_assert_int_eq(ep.fd, -1);
	ck_assert_int_eq(emu_endpoint_claim_loopback(&ep, EMU_ROCE_UDP_PORT), 0);
	fd = ep.fd;
	emu_endpoint_close(&ep);
	ck_assert_int_eq(ep.fd, -1);
	errno = 0;
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);
	/* Again: must not close whatever now has that number. */
	fd = dup(0);
	ck_assert_int_ge(fd, 0);
	emu_endpoint_close(&ep);
	ck_assert_int_ne(fcntl(fd, F_GETFD), -1);
	close(fd);
}
END_TEST

/* No descriptor left: the socket() error comes back as a negative errno. */
START_TEST(t_no_fds)
{
	struct emu_endpoint ep = NO_EP;
	struct in6_addr a = addr("127.0.0.1");
	struct rlimit rl, saved;
	int lowest = dup(0), r1, r2, r3;

	ck_assert_int_ge(lowest, 0);
	close(lowest);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	rl = saved;
	rl.rlim_cur = (rlim_t)lowest;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	r1 = emu_endpoint_claim_loopback(&ep, EMU_ROCE_UDP_PORT);
	r2 = emu_endpoint_bind_addr(&ep, &a, EMU_ROCE_UDP_PORT);
	r3 = emu_endpoint_bind_netdev(&ep, "lo", EMU_ROCE_UDP_PORT);
	/* Restored first: LeakSanitizer needs descriptors at exit. */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	ck_assert_int_eq(r1, -EMFILE);
	ck_assert_int_eq(r2, -EMFILE);
	ck_assert_int_eq(r3, -EMFILE);
	ck_assert_int_eq(ep.fd, -1);
}
END_TEST

START_TEST(t_netdev_name_too_long)
{
	struct emu_endpoint ep = NO_EP;

	ck_assert_int_eq(emu_endpoint_bind_netdev(&ep, "abcdefghijklmnop",
						   EMU_ROCE_UDP_PORT),
			 -ENAMETOOLONG);
	ck_assert_int_eq(ep.fd, -1);
}
END_TEST

/* A wildcard socket on a port (what a loaded rdma_rxe holds on 4791):
 * no loopback address can have it any more, and the probe says so; on a
 * port nothing holds, it says so too, and leaves the port free. */
START_TEST(t_port_held)
{
	uint16_t port = (uint16_t)(20000 + getpid() % 5000);
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct sockaddr_in last = { .sin_family = AF_INET };
	struct emu_endpoint ep = NO_EP;
	int fd, one;

	ck_assert(!emu_endpoint_port_held(port));
	ck_assert_int_eq(emu_endpoint_claim_loopback(&ep, port), 0);
	ck_assert_uint_eq(ep.port, port);
	/* One emuverbs process on the port is not a wildcard holder. */
	ck_assert(!emu_endpoint_port_held(port));
	emu_endpoint_close(&ep);

	/* Nor is another process's probe, bound as ours is at the moment
	 * both start (two processes once met on different ports so). */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	one = 1;
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				    sizeof(one)), 0);
	last.sin_port = htons(port);
	last.sin_addr.s_addr = htonl(EMU_LOOPBACK_LAST);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&last, sizeof(last)), 0);
	ck_assert(!emu_endpoint_port_held(port));
	close(fd);

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	any.sin_port = htons(port);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&any, sizeof(any)), 0);
	ck_assert(emu_endpoint_port_held(port));
	ck_assert_int_eq(emu_endpoint_claim_loopback(&ep, port),
			 -EADDRINUSE);
	close(fd);
	ck_assert(!emu_endpoint_port_held(port));
}
END_TEST

START_TEST(t_addr_is_loopback)
{
	struct in6_addr a;

	a = addr("127.0.0.1");
	ck_assert(emu_addr_is_loopback(&a));
	a = addr("127.200.3.4");
	ck_assert(emu_addr_is_loopback(&a));
	a = addr("::1");
	ck_assert(emu_addr_is_loopback(&a));
	a = addr("128.0.0.1");
	ck_assert(!emu_addr_is_loopback(&a));
	a = addr("10.77.0.1");
	ck_assert(!emu_addr_is_loopback(&a));
	a = addr("fe80::1");
	ck_assert(!emu_addr_is_loopback(&a));
	a = addr("::127.0.0.1");
	ck_assert(!emu_addr_is_loopback(&a));
}
END_TEST

static Suite *endpoint_suite(void)
{
	Suite *s = suite_create("endpoint");
	TCase *tc = tcase_create("endpoint");

	tcase_add_test(tc, t_addr_helpers);
	tcase_add_test(tc, t_claim_two_distinct);
	tcase_add_test(tc, t_claim_skips_0_255);
	tcase_add_test(tc, t_bind_explicit);
	tcase_add_test(tc, t_bind_taken);
	tcase_add_test(tc, t_bind_claimed_taken);
	tcase_add_test(tc, t_bind_nonlocal);
	tcase_add_test(tc, t_bind_v6_loopback);
	tcase_add_test(tc, t_close_idempotent);
	tcase_add_test(tc, t_no_fds);
	tcase_add_test(tc, t_netdev_name_too_long);
	tcase_add_test(tc, t_port_held);
	tcase_add_test(tc, t_addr_is_loopback);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(endpoint_suite());
}
