/* Unit tests for a context's async event queue (emu/device/async.c): order, the
 * eventfd count and poll, O_NONBLOCK, a full ring, blocked readers. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include <check.h>

#include "emu/device/async.h"
#include "tests/unit/testlib.h"

static struct ibv_async_event port_ev(enum ibv_event_type t, int port)
{
	struct ibv_async_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_type = t;
	ev.element.port_num = port;
	return ev;
}

/* The eventfd's counter as the kernel shows it (hex in fdinfo). */
static unsigned long long eventfd_count(int fd)
{
	char path[64], line[256];
	unsigned long long n = ~0ull;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "eventfd-count:", 14))
			n = strtoull(line + 14, NULL, 16);
	fclose(f);
	ck_assert_msg(n != ~0ull, "no eventfd-count in %s", path);
	return n;
}

static int readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	ck_assert_int_ge(poll(&p, 1, 0), 0);
	return !!(p.revents & POLLIN);
}

static void set_nonblock(struct emu_async *a)
{
	int fl = fcntl(a->fd, F_GETFL);

	ck_assert_int_ge(fl, 0);
	ck_assert_int_eq(fcntl(a->fd, F_SETFL, fl | O_NONBLOCK), 0);
}

static void expect_empty(struct emu_async *a)
{
	struct ibv_async_event ev;

	ck_assert_int_eq(eventfd_count(a->fd), 0);
	ck_assert(!readable(a->fd));
	errno = 0;
	ck_assert_int_eq(emu_async_pop(a, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
}

START_TEST(t_init_fini)
{
	struct emu_async a;

	ck_assert_int_eq(emu_async_init(&a), 0);
	ck_assert_int_ge(a.fd, 0);
	ck_assert(fcntl(a.fd, F_GETFD) & FD_CLOEXEC);
	/* Blocking unless the application says otherwise. */
	ck_assert(!(fcntl(a.fd, F_GETFL) & O_NONBLOCK));
	ck_assert_uint_eq(a.dropped, 0);
	ck_assert_int_eq(eventfd_count(a.fd), 0);
	emu_async_fini(&a);
	ck_assert_int_eq(a.fd, -1);
}
END_TEST

START_TEST(t_order)
{
	struct emu_async a;
	struct ibv_async_event ev, in[3] = {
					   port_ev(IBV_EVENT_PORT_ERR, 1),
					   port_ev(IBV_EVENT_PORT_ACTIVE, 2),
					   port_ev(IBV_EVENT_GID_CHANGE, 1),
				   };
	unsigned int i;

	ck_assert_int_eq(emu_async_init(&a), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(emu_async_push(&a, &in[i]), 0);
	for (i = 0; i < 3; i++) {
		memset(&ev, 0xa5, sizeof(ev));
		ck_assert_int_eq(emu_async_pop(&a, &ev), 0);
		ck_assert_int_eq(ev.event_type, in[i].event_type);
		ck_assert_int_eq(ev.element.port_num, in[i].element.port_num);
	}
	emu_async_fini(&a);
}
END_TEST

START_TEST(t_fd_counts_events)
{
	struct emu_async a;
	struct ibv_async_event ev = port_ev(IBV_EVENT_PORT_ERR, 1);
	unsigned int i;

	ck_assert_int_eq(emu_async_init(&a), 0);
	set_nonblock(&a);
	expect_empty(&a);
	for (i = 1; i <= 5; i++) {
		ck_assert_int_eq(emu_async_push(&a, &ev), 0);
		ck_assert_int_eq(eventfd_count(a.fd), i);
		ck_assert(readable(a.fd));
	}
	for (i = 5; i > 0; i--) {
		ck_assert(readable(a.fd));
		ck_assert_int_eq(emu_async_pop(&a, &ev), 0);
		ck_assert_int_eq(eventfd_count(a.fd), i - 1);
	}
	expect_empty(&a);
	emu_async_fini(&a);
}
END_TEST

START_TEST(t_nonblock_empty)
{
	struct emu_async a;
	struct ibv_async_event ev = port_ev(IBV_EVENT_PORT_ERR, 1);

	ck_assert_int_eq(emu_async_init(&a), 0);
	set_nonblock(&a);
	expect_empty(&a);
	ck_assert_int_eq(emu_async_push(&a, &ev), 0);
	ck_assert_int_eq(emu_async_pop(&a, &ev), 0);
	expect_empty(&a);
	emu_async_fini(&a);
}
END_TEST

START_TEST(t_ring_full)
{
	struct emu_async a;
	struct ibv_async_event ev;
	unsigned int i;

	ck_assert_int_eq(emu_async_init(&a), 0);
	set_nonblock(&a);
	for (i = 0; i < EMU_ASYNC_RING; i++) {
		ev = port_ev(IBV_EVENT_PORT_ACTIVE, (int)i);
		ck_assert_int_eq(emu_async_push(&a, &ev), 0);
	}
	ev = port_ev(IBV_EVENT_PORT_ERR, -1);
	ck_assert_int_eq(emu_async_push(&a, &ev), ENOSPC);
	ck_assert_uint_eq(a.dropped, 1);
	ck_assert_int_eq(emu_async_push(&a, &ev), ENOSPC);
	ck_assert_uint_eq(a.dropped, 2);
	/* A dropped event leaves no count behind. */
	ck_assert_int_eq(eventfd_count(a.fd), EMU_ASYNC_RING);

	/* One slot frees one place, in order. */
	ck_assert_int_eq(emu_async_pop(&a, &ev), 0);
	ck_assert_int_eq(ev.element.port_num, 0);
	ev = port_ev(IBV_EVENT_GID_CHANGE, EMU_ASYNC_RING);
	ck_assert_int_eq(emu_async_push(&a, &ev), 0);
	ck_assert_uint_eq(a.dropped, 2);
	for (i = 1; i <= EMU_ASYNC_RING; i++) {
		ck_assert_int_eq(emu_async_pop(&a, &ev), 0);
		ck_assert_int_eq(ev.element.port_num, (int)i);
	}
	ck_assert_int_eq(ev.event_type, IBV_EVENT_GID_CHANGE);
	expect_empty(&a);
	emu_async_fini(&a);
}
END_TEST

/* Many times round the ring: indexes wrap without losing order. */
START_TEST(t_wraparound)
{
	struct emu_async a;
	struct ibv_async_event ev;
	int pushed = 0, popped = 0, i;

	ck_assert_int_eq(emu_async_init(&a), 0);
	set_nonblock(&a);
	while (popped < 5 * EMU_ASYNC_RING) {
		for (i = 0; i < 7; i++) {
			ev = port_ev(IBV_EVENT_PORT_ACTIVE, pushed++);
			ck_assert_int_eq(emu_async_push(&a, &ev), 0);
		}
		for (i = 0; i < 7; i++) {
			ck_assert_int_eq(emu_async_pop(&a, &ev), 0);
			ck_assert_int_eq(ev.element.port_num, popped++);
		}
	}
	expect_empty(&a);
	emu_async_fini(&a);
}
END_TEST

struct reader {
	struct emu_async *a;
	struct ibv_async_event ev;
	int rc;
	atomic_int done;
};

static void *blocked_reader(void *p)
{
	struct reader *r = p;

	r->rc = emu_async_pop(r->a, &r->ev);
	atomic_store(&r->done, 1);
	return NULL;
}

START_TEST(t_blocked_pop_wakes)
{
	struct emu_async a;
	struct reader r = {.a = &a, .rc = -2};
	struct ibv_async_event ev = port_ev(IBV_EVENT_CLIENT_REREGISTER, 3);
	struct timespec deadline;
	pthread_t t;

	ck_assert_int_eq(emu_async_init(&a), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, blocked_reader, &r), 0);
	usleep(100000);
	ck_assert_int_eq(r.done, 0); /* still blocked */
	ck_assert_int_eq(emu_async_push(&a, &ev), 0);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	ck_assert_int_eq(pthread_timedjoin_np(t, NULL, &deadline), 0);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.ev.event_type, IBV_EVENT_CLIENT_REREGISTER);
	ck_assert_int_eq(r.ev.element.port_num, 3);
	ck_assert_int_eq(eventfd_count(a.fd), 0);
	emu_async_fini(&a);
}
END_TEST

/* Producers on several threads, one consumer: nothing lost, nothing
 * duplicated, each producer's events in its own order. */
enum { PRODUCERS = 4, PER_PRODUCER = 5000 };

struct producer {
	struct emu_async *a;
	int id;
};

static void *produce(void *p)
{
	struct producer *pr = p;
	struct ibv_async_event ev;
	int i;

	for (i = 0; i < PER_PRODUCER; i++) {
		ev = port_ev(IBV_EVENT_PORT_ACTIVE, pr->id * PER_PRODUCER + i);
		while (emu_async_push(pr->a, &ev) == ENOSPC)
			sched_yield();
	}
	return NULL;
}

START_TEST(t_concurrent)
{
	struct emu_async a;
	struct producer pr[PRODUCERS];
	pthread_t t[PRODUCERS];
	int next[PRODUCERS] = {0};
	struct ibv_async_event ev;
	int i, id;

	ck_assert_int_eq(emu_async_init(&a), 0);
	for (i = 0; i < PRODUCERS; i++) {
		pr[i].a = &a;
		pr[i].id = i;
		ck_assert_int_eq(pthread_create(&t[i], NULL, produce, &pr[i]),
				 0);
	}
	for (i = 0; i < PRODUCERS * PER_PRODUCER; i++) {
		ck_assert_int_eq(emu_async_pop(&a, &ev), 0);
		id = ev.element.port_num / PER_PRODUCER;
		ck_assert_int_lt(id, PRODUCERS);
		ck_assert_int_eq(ev.element.port_num % PER_PRODUCER, next[id]);
		next[id]++;
	}
	for (i = 0; i < PRODUCERS; i++)
		pthread_join(t[i], NULL);
	set_nonblock(&a);
	expect_empty(&a);
	emu_async_fini(&a);
}
END_TEST

/* No descriptor for the eventfd: init reports it. */
START_TEST(t_init_no_fds)
{
	struct emu_async a;
	struct rlimit rl, saved;
	int lowest = dup(0), rc;

	ck_assert_int_ge(lowest, 0);
	close(lowest);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	rl = saved;
	rl.rlim_cur = (rlim_t)lowest;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	rc = emu_async_init(&a);
	/* Restored first: LeakSanitizer needs descriptors at exit. */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	ck_assert_int_eq(rc, EMFILE);
}
END_TEST

static Suite *async_suite(void)
{
	Suite *s = suite_create("async");
	TCase *tc = tcase_create("queue");

	tcase_add_test(tc, t_init_fini);
	tcase_add_test(tc, t_order);
	tcase_add_test(tc, t_fd_counts_events);
	tcase_add_test(tc, t_nonblock_empty);
	tcase_add_test(tc, t_ring_full);
	tcase_add_test(tc, t_wraparound);
	tcase_add_test(tc, t_blocked_pop_wakes);
	tcase_add_test(tc, t_concurrent);
	tcase_add_test(tc, t_init_no_fds);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(async_suite());
}
