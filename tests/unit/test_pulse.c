/* tests/unit/test_pulse.c: a port's pulse (emu/transport/pulse.c) as its owner
 * publishes it and a requester judges it: a file of the runtime directory
 * held under flock, one owner per address, and the verdicts (no pulse, a
 * peer gone, a peer that had the time, one stalled with packets in its
 * socket or in hand); files not ours or not whole; the peers' cache; and
 * when a flushed batch left (net/udp.c emu_udp_left_by). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "emu/base/engine.h"
#include "emu/transport/pulse.h"
#include "net/endpoint.h"
#include "net/udp.h"
#include "tests/unit/testlib.h"

#define PORT	24791

static char dir[] = "/tmp/emuverbs-pulse.XXXXXX";

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("EMUVERBS_RUNTIME_DIR", dir, 1);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* 127.1.254.n */
static struct in6_addr addr(unsigned int n)
{
	struct in6_addr a;

	emu_addr_from_ipv4(&a, 0x7f01fe00u + n);
	return a;
}

static void path_of(char *buf, size_t len, unsigned int n)
{
	snprintf(buf, len, "%s/pulse-127.1.254.%u-%u", dir, n, PORT);
}

START_TEST(t_publish)
{
	struct in6_addr a = addr(1);
	struct emu_pulse p;
	struct stat st;
	char path[256];
	uint64_t t0;

	path_of(path, sizeof(path), 1);
	emu_pulse_open(&p, &a, PORT);
	ck_assert_ptr_nonnull(p.page);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_uint_eq(p.page->pid, (uint32_t)getpid());
	t0 = emu_pulse_begin(&p);
	ck_assert_uint_eq(p.page->busy, 1);
	/* A full batch: the socket may hold more, nothing is said. */
	emu_pulse_end(&p, t0, false);
	ck_assert_uint_eq(p.page->busy, 0);
	ck_assert_uint_lt(p.page->drained_ns, t0);
	t0 = emu_pulse_begin(&p);
	emu_pulse_end(&p, t0, true);
	ck_assert_uint_eq(p.page->drained_ns, t0);
	emu_pulse_close(&p);
	ck_assert_ptr_null(p.page);
	ck_assert_int_eq(stat(path, &st), -1);
	/* Closing twice, or what never opened, is harmless. */
	emu_pulse_close(&p);
}
END_TEST

START_TEST(t_one_owner)
{
	struct in6_addr a = addr(2);
	struct emu_pulse p, q;

	emu_pulse_open(&p, &a, PORT);
	ck_assert_ptr_nonnull(p.page);
	/* The address is another live holder's: no pulse, no cost. */
	emu_pulse_open(&q, &a, PORT);
	ck_assert_ptr_null(q.page);
	ck_assert_uint_eq(emu_pulse_begin(&q), 0);
	emu_pulse_end(&q, 0, true);
	emu_pulse_close(&q);
	emu_pulse_close(&p);
	/* Without a runtime directory there is none either. */
	setenv("EMUVERBS_RUNTIME_DIR", "/proc/no/such/dir", 1);
	emu_pulse_open(&q, &a, PORT);
	ck_assert_ptr_null(q.page);
	setenv("EMUVERBS_RUNTIME_DIR", dir, 1);
}
END_TEST

START_TEST(t_judge)
{
	struct emu_pulse_peers ps = { 0 };
	struct in6_addr a = addr(3);
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT),
		.sin_addr.s_addr = htonl(0x7f01fe03u),
	};
	struct emu_pulse p;
	uint64_t sent, t0;
	char b[64] = "x";
	int s, c;

	ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, emu_now_ns()),
			 EMU_PULSE_UNKNOWN);
	emu_pulse_open(&p, &a, PORT);
	ck_assert_ptr_nonnull(p.page);
	sent = emu_now_ns();
	/* Idle, nothing in a socket (there is none): the packet was lost. */
	ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, sent),
			 EMU_PULSE_HAD_TIME);
	/* A batch in its hands. */
	t0 = emu_pulse_begin(&p);
	ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, sent),
			 EMU_PULSE_STALLED);
	emu_pulse_end(&p, t0, true);
	ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, sent),
			 EMU_PULSE_HAD_TIME);
	/* Packets waiting in its socket since. */
	s = socket(AF_INET, SOCK_DGRAM, 0);
	c = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	sent = emu_now_ns();
	ck_assert_int_eq(sendto(c, b, sizeof(b), 0, (struct sockaddr *)&sa,
				sizeof(sa)), sizeof(b));
	ck_assert_int_gt(emu_pulse_rqueue(&a, PORT), 0);
	ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, sent),
			 EMU_PULSE_STALLED);
	ck_assert_int_eq(recv(s, b, sizeof(b), 0), sizeof(b));
	ck_assert_int_eq(emu_pulse_rqueue(&a, PORT), 0);
	ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, sent),
			 EMU_PULSE_HAD_TIME);
	ck_assert_uint_eq(ps.n, 1);
	close(s);
	close(c);
	emu_pulse_close(&p);
	/* Its owner closed it: nothing to believe any more. */
	ck_assert_int_ne(emu_pulse_judge(&ps, &a, PORT, sent),
			 EMU_PULSE_STALLED);
	emu_pulse_peers_fini(&ps);
	ck_assert_uint_eq(ps.n, 0);
}
END_TEST

static _Atomic int spin_stop;
static _Atomic uint32_t spin_tid;

static void *spin(void *arg)
{
	spin_tid = (uint32_t)gettid();
	while (!spin_stop)
		;
	return arg;
}

static void *nap(void *arg)
{
	int *fds = arg;
	char c;

	spin_tid = (uint32_t)gettid();
	return read(fds[0], &c, 1) == 1 ? NULL : arg;
}

/* With io_uring the socket says nothing: the receiving thread's state. */
START_TEST(t_ring_receiver)
{
	struct emu_pulse_peers ps = { 0 };
	struct in6_addr a = addr(9);
	struct emu_pulse p;
	pthread_t th;
	uint64_t sent;
	int fds[2];

	emu_pulse_open(&p, &a, PORT);
	ck_assert_ptr_nonnull(p.page);
	sent = emu_now_ns();
	spin_tid = 0;
	ck_assert_int_eq(pthread_create(&th, NULL, spin, NULL), 0);
	while (!spin_tid)
		;
	p.page->ring_tid = spin_tid;
	ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, sent),
			 EMU_PULSE_STALLED);
	spin_stop = 1;
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	/* Asleep (in a read): idle, so the packet was lost. */
	ck_assert_int_eq(pipe(fds), 0);
	spin_tid = 0;
	ck_assert_int_eq(pthread_create(&th, NULL, nap, fds), 0);
	while (!spin_tid)
		;
	p.page->ring_tid = spin_tid;
	while (emu_pulse_judge(&ps, &a, PORT, sent) != EMU_PULSE_HAD_TIME)
		usleep(1000);	/* until it is in the read */
	ck_assert_int_eq(write(fds[1], "x", 1), 1);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	/* Its receiver set from the thread that receives. */
	emu_pulse_receiver(&p, true);
	ck_assert_uint_eq(p.page->ring_tid, (uint32_t)gettid());
	emu_pulse_receiver(&p, false);
	ck_assert_uint_eq(p.page->ring_tid, 0);
	close(fds[0]);
	close(fds[1]);
	emu_pulse_peers_fini(&ps);
	emu_pulse_close(&p);
}
END_TEST

START_TEST(t_gone)
{
	struct emu_pulse_peers ps = { 0 };
	struct in6_addr a = addr(4);
	int st, sig;

	for (sig = 0; sig <= SIGKILL; sig += SIGKILL) {
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (!pid) {
			struct emu_pulse p;

			emu_pulse_open(&p, &a, PORT);
			if (!p.page)
				_exit(1);
			if (sig)
				kill(getpid(), sig);
			_exit(0);	/* without a close, as a crash */
		}
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert(sig ? WIFSIGNALED(st) : WEXITSTATUS(st) == 0);
		ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, 0),
				 EMU_PULSE_GONE);
		ck_assert_uint_eq(ps.n, 0);
	}
}
END_TEST

/* Write a page of n bytes with magic m at address k's path. */
static void forge(unsigned int k, size_t n, uint32_t m)
{
	struct emu_pulse_page pg = { .magic = m, .pid = 1 };
	char path[256];
	int fd;

	path_of(path, sizeof(path), k);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, &pg, n), (ssize_t)n);
	close(fd);
}

START_TEST(t_not_believed)
{
	struct emu_pulse_peers ps = { 0 };
	struct in6_addr a = addr(5), b = addr(6);
	struct emu_pulse p;
	char path[256];

	/* Too short to be a page, or not one. */
	forge(5, 4, 0);
	ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, 0),
			 EMU_PULSE_UNKNOWN);
	forge(6, sizeof(struct emu_pulse_page), 0x12345678);
	ck_assert_int_eq(emu_pulse_judge(&ps, &b, PORT, 0),
			 EMU_PULSE_UNKNOWN);
	emu_pulse_peers_fini(&ps);
	/* A link in the file's place is not followed by either side. */
	path_of(path, sizeof(path), 7);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	a = addr(7);
	emu_pulse_open(&p, &a, PORT);
	ck_assert_ptr_null(p.page);
	ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, 0),
			 EMU_PULSE_UNKNOWN);
	/* Another user's file says nothing (needs root to make one). */
	if (!geteuid()) {
		path_of(path, sizeof(path), 8);
		a = addr(8);
		emu_pulse_open(&p, &a, PORT);
		ck_assert_ptr_nonnull(p.page);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, 0),
				 EMU_PULSE_UNKNOWN);
		emu_pulse_close(&p);
	}
	emu_pulse_peers_fini(&ps);
}
END_TEST

START_TEST(t_cache)
{
	struct emu_pulse_peers ps = { 0 };
	struct emu_pulse p[EMU_PULSE_PEERS + 8];
	struct in6_addr old, last;
	unsigned int i, found = 0;

	for (i = 0; i < EMU_PULSE_PEERS + 8; i++) {
		struct in6_addr a = addr(10 + i);

		emu_pulse_open(&p[i], &a, PORT);
		ck_assert_ptr_nonnull(p[i].page);
		ck_assert_int_eq(emu_pulse_judge(&ps, &a, PORT, 0),
				 EMU_PULSE_HAD_TIME);
		ck_assert_uint_le(ps.n, EMU_PULSE_PEERS);
	}
	/* The oldest went first; the newest is there. */
	old = addr(10);
	last = addr(10 + EMU_PULSE_PEERS + 7);
	for (i = 0; i < ps.n; i++) {
		ck_assert(memcmp(&ps.p[i].addr, &old, sizeof(old)));
		found += !memcmp(&ps.p[i].addr, &last, sizeof(last));
	}
	ck_assert_uint_eq(found, 1);
	emu_pulse_peers_fini(&ps);
	for (i = 0; i < EMU_PULSE_PEERS + 8; i++)
		emu_pulse_close(&p[i]);
}
END_TEST

START_TEST(t_left_by)
{
	static struct emu_udp u;
	unsigned int n;

	memset(&u, 0, sizeof(u));
	/* Queued after flush 0: not left while flush 1 has not happened. */
	ck_assert_uint_eq(emu_udp_left_by(&u, 0), 0);
	for (n = 1; n <= EMU_UDP_FLUSH_LOG + 3; n++) {
		u.flushes = n;
		u.flush_end[n % EMU_UDP_FLUSH_LOG] = 1000 * n;
	}
	/* Within the log: when the flush after it ended. */
	ck_assert_uint_eq(emu_udp_left_by(&u, u.flushes - 1), 1000 * u.flushes);
	ck_assert_uint_eq(emu_udp_left_by(&u, 4), 5000);
	/* Older than the log remembers. */
	ck_assert_uint_eq(emu_udp_left_by(&u, 2), 1);
	ck_assert_uint_eq(emu_udp_left_by(&u, u.flushes), 0);
}
END_TEST

static Suite *pulse_suite(void)
{
	Suite *s = suite_create("pulse");
	TCase *tc = tcase_create("pulse");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_publish);
	tcase_add_test(tc, t_one_owner);
	tcase_add_test(tc, t_judge);
	tcase_add_test(tc, t_ring_receiver);
	tcase_add_test(tc, t_gone);
	tcase_add_test(tc, t_not_believed);
	tcase_add_test(tc, t_cache);
	tcase_add_test(tc, t_left_by);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(pulse_suite());
}
