/* Unit tests for the GID table (emu/device/gid.c): bounds, the pair layout, index
 * stability, static pins, snapshots, generations, locking, init failure. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/device/gid.h"
#include "tests/unit/testlib.h"

static struct in6_addr ip(const char *s)
{
	struct in6_addr a;
	struct in_addr a4;

	if (inet_pton(AF_INET, s, &a4) == 1)
		emu_gid_from_ipv4(a.s6_addr, a4.s_addr);
	else
		ck_assert_int_eq(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

/* Assert slot idx holds addr with the given type. */
static void expect_slot(struct emu_gid_table *t, uint32_t idx, const char *addr,
			uint32_t type, uint32_t ifindex)
{
	struct in6_addr a = ip(addr);
	struct ibv_gid_entry e;

	ck_assert_int_eq(emu_gid_table_query(t, idx, &e), 0);
	ck_assert_mem_eq(e.gid.raw, a.s6_addr, 16);
	ck_assert_uint_eq(e.gid_index, idx);
	ck_assert_uint_eq(e.port_num, t->port_num);
	ck_assert_uint_eq(e.gid_type, type);
	ck_assert_uint_eq(e.ndev_ifindex, ifindex);
}

static void expect_pair(struct emu_gid_table *t, uint32_t k, const char *addr,
			uint32_t ifindex)
{
	expect_slot(t, 2 * k, addr, IBV_GID_TYPE_ROCE_V2, ifindex);
	expect_slot(t, 2 * k + 1, addr, IBV_GID_TYPE_ROCE_V1, ifindex);
}

static void expect_empty(struct emu_gid_table *t, uint32_t idx)
{
	struct ibv_gid_entry e;

	ck_assert_int_eq(emu_gid_table_query(t, idx, &e), ENODATA);
}

static bool add(struct emu_gid_table *t, const char *addr)
{
	struct in6_addr a = ip(addr);

	return emu_gid_table_add_addr(t, &a, 7);
}

static bool del(struct emu_gid_table *t, const char *addr)
{
	struct in6_addr a = ip(addr);

	return emu_gid_table_del_addr(t, &a);
}

START_TEST(t_init_bounds)
{
	struct emu_gid_table t;

	ck_assert_int_eq(emu_gid_table_init(NULL, 1, 16), EINVAL);
	ck_assert_int_eq(emu_gid_table_init(&t, 1, 0), EINVAL);
	ck_assert_int_eq(emu_gid_table_init(&t, 1, EMU_GID_TABLE_MAX_LEN + 1),
			 EINVAL);
	ck_assert_int_eq(emu_gid_table_init(&t, 1, UINT32_MAX), EINVAL);

	ck_assert_int_eq(emu_gid_table_init(&t, 1, 1), 0);
	ck_assert_uint_eq(t.len, 1);
	ck_assert_int_eq(emu_gid_table_count(&t), 0);
	ck_assert_uint_eq(emu_gid_table_generation(&t), 0);
	/* One slot holds no pair: nothing dynamic fits. */
	ck_assert(!add(&t, "198.18.0.1"));
	emu_gid_table_fini(&t);
	emu_gid_table_fini(&t);		/* twice is harmless */

	ck_assert_int_eq(emu_gid_table_init(&t, 2, EMU_GID_TABLE_MAX_LEN), 0);
	ck_assert_uint_eq(t.port_num, 2);
	expect_empty(&t, EMU_GID_TABLE_MAX_LEN - 1);
	emu_gid_table_fini(&t);
}
END_TEST

START_TEST(t_init_enomem)
{
	struct emu_gid_table t;

	emu_test_fail_calloc(1);
	ck_assert_int_eq(emu_gid_table_init(&t, 1, 16), ENOMEM);
	ck_assert_ptr_null(t.slots);
	emu_gid_table_fini(&t);		/* safe after a failed init */
	ck_assert_int_eq(emu_gid_table_init(&t, 1, 16), 0);
	emu_gid_table_fini(&t);
}
END_TEST

START_TEST(t_query)
{
	struct emu_gid_table t;
	struct ibv_gid_entry e;

	ck_assert_int_eq(emu_gid_table_init(&t, 1, 16), 0);
	expect_empty(&t, 0);
	expect_empty(&t, 15);
	ck_assert_int_eq(emu_gid_table_query(&t, 16, &e), EINVAL);
	ck_assert_int_eq(emu_gid_table_query(&t, UINT32_MAX, &e), EINVAL);
	ck_assert_int_eq(emu_gid_table_query(&t, 0, NULL), EINVAL);

	ck_assert(add(&t, "198.18.0.1"));
	expect_pair(&t, 0, "::ffff:198.18.0.1", 7);
	expect_empty(&t, 2);
	ck_assert_int_eq(emu_gid_table_query(&t, 16, &e), EINVAL);
	emu_gid_table_fini(&t);
}
END_TEST

START_TEST(t_helpers)
{
	uint8_t raw[16];
	struct in6_addr a = ip("2001:db8::42");
	static const uint8_t v4m[16] = { [10] = 0xff, [11] = 0xff,
					 198, 18, 0, 1 };

	emu_gid_from_ipv4(raw, inet_addr("198.18.0.1"));
	ck_assert_mem_eq(raw, v4m, 16);
	emu_gid_from_in6(raw, &a);
	ck_assert_mem_eq(raw, a.s6_addr, 16);
}
END_TEST

START_TEST(t_pairs_layout)
{
	struct emu_gid_table t;

	ck_assert_int_eq(emu_gid_table_init(&t, 1, 16), 0);
	ck_assert(add(&t, "198.18.0.1"));
	ck_assert(add(&t, "2001:db8::1"));
	ck_assert(add(&t, "fe80::1"));
	expect_pair(&t, 0, "198.18.0.1", 7);
	expect_pair(&t, 1, "2001:db8::1", 7);
	expect_pair(&t, 2, "fe80::1", 7);
	expect_empty(&t, 6);
	ck_assert_int_eq(emu_gid_table_count(&t), 6);
	emu_gid_table_fini(&t);
}
END_TEST

START_TEST(t_add_del_stable)
{
	struct emu_gid_table t;

	ck_assert_int_eq(emu_gid_table_init(&t, 1, 16), 0);
	ck_assert(add(&t, "198.18.0.1"));
	ck_assert(add(&t, "198.18.0.2"));
	ck_assert(add(&t, "198.18.0.3"));

	/* Removing the middle one leaves a hole; the others do not move. */
	ck_assert(del(&t, "198.18.0.2"));
	expect_pair(&t, 0, "198.18.0.1", 7);
	expect_empty(&t, 2);
	expect_empty(&t, 3);
	expect_pair(&t, 2, "198.18.0.3", 7);

	/* The next address fills the first hole. */
	ck_assert(add(&t, "2001:db8::4"));
	expect_pair(&t, 1, "2001:db8::4", 7);

	ck_assert(del(&t, "198.18.0.1"));
	expect_empty(&t, 0);
	expect_empty(&t, 1);
	expect_pair(&t, 1, "2001:db8::4", 7);
	expect_pair(&t, 2, "198.18.0.3", 7);

	/* No-ops: duplicates and unknown addresses change nothing. */
	ck_assert(!add(&t, "198.18.0.3"));
	ck_assert(!del(&t, "198.18.0.1"));
	ck_assert(!del(&t, "2001:db8::99"));
	ck_assert_int_eq(emu_gid_table_count(&t), 4);
	emu_gid_table_fini(&t);
}
END_TEST

START_TEST(t_full)
{
	struct emu_gid_table t;

	ck_assert_int_eq(emu_gid_table_init(&t, 1, 4), 0);
	ck_assert(add(&t, "198.18.0.1"));
	ck_assert(add(&t, "198.18.0.2"));
	ck_assert(!add(&t, "198.18.0.3"));
	ck_assert_int_eq(emu_gid_table_count(&t), 4);
	ck_assert(del(&t, "198.18.0.1"));
	ck_assert(add(&t, "198.18.0.3"));
	expect_pair(&t, 0, "198.18.0.3", 7);
	emu_gid_table_fini(&t);

	/* Odd length: the last slot cannot hold a pair. */
	ck_assert_int_eq(emu_gid_table_init(&t, 1, 5), 0);
	ck_assert(add(&t, "198.18.0.1"));
	ck_assert(add(&t, "198.18.0.2"));
	ck_assert(!add(&t, "198.18.0.3"));
	expect_empty(&t, 4);
	emu_gid_table_fini(&t);
}
END_TEST

START_TEST(t_static_pins)
{
	struct emu_gid_table t;
	struct in6_addr s0 = ip("2001:db8::a"), s3 = ip("198.18.0.1");
	struct in6_addr none[1];

	ck_assert_int_eq(emu_gid_table_init(&t, 1, 8), 0);
	ck_assert_int_eq(emu_gid_table_set_static(&t, 8, s0.s6_addr,
						  IBV_GID_TYPE_IB, 0), EINVAL);
	ck_assert_int_eq(emu_gid_table_set_static(&t, 0, s0.s6_addr, 3, 0),
			 EINVAL);
	ck_assert_int_eq(emu_gid_table_count(&t), 0);

	ck_assert_int_eq(emu_gid_table_set_static(&t, 0, s0.s6_addr,
						  IBV_GID_TYPE_IB, 0), 0);
	ck_assert_int_eq(emu_gid_table_set_static(&t, 3, s3.s6_addr,
						  IBV_GID_TYPE_ROCE_V2, 5), 0);

	/* Pairs 0 and 1 each hold a pin: the address goes to pair 2. */
	ck_assert(add(&t, "198.18.0.9"));
	expect_pair(&t, 2, "198.18.0.9", 7);
	expect_empty(&t, 1);
	expect_empty(&t, 2);

	/* Same GID as a pin: the pin is not the dynamic pair, so the add
	 * makes one and del removes only that. */
	ck_assert(add(&t, "198.18.0.1"));
	expect_pair(&t, 3, "198.18.0.1", 7);
	ck_assert(del(&t, "198.18.0.1"));
	ck_assert(!del(&t, "198.18.0.1"));
	ck_assert(!del(&t, "2001:db8::a"));
	expect_slot(&t, 0, "2001:db8::a", IBV_GID_TYPE_IB, 0);
	expect_slot(&t, 3, "198.18.0.1", IBV_GID_TYPE_ROCE_V2, 5);

	/* A sync of everything away leaves the pins. */
	ck_assert(emu_gid_table_sync_addrs(&t, 7, none, 0));
	ck_assert_int_eq(emu_gid_table_count(&t), 2);
	expect_slot(&t, 0, "2001:db8::a", IBV_GID_TYPE_IB, 0);
	expect_slot(&t, 3, "198.18.0.1", IBV_GID_TYPE_ROCE_V2, 5);

	/* Pinning over half a dynamic pair evicts the whole pair. */
	ck_assert(add(&t, "198.18.0.7"));
	expect_pair(&t, 2, "198.18.0.7", 7);
	ck_assert_int_eq(emu_gid_table_set_static(&t, 5, s0.s6_addr,
						  IBV_GID_TYPE_ROCE_V1, 0), 0);
	expect_empty(&t, 4);
	expect_slot(&t, 5, "2001:db8::a", IBV_GID_TYPE_ROCE_V1, 0);
	emu_gid_table_fini(&t);
}
END_TEST

START_TEST(t_clear)
{
	struct emu_gid_table t;
	struct in6_addr s = ip("2001:db8::a");

	ck_assert_int_eq(emu_gid_table_init(&t, 1, 8), 0);
	ck_assert_int_eq(emu_gid_table_clear(&t, 8), EINVAL);
	ck_assert_int_eq(emu_gid_table_clear(&t, 0), ENODATA);
	ck_assert(add(&t, "198.18.0.1"));
	ck_assert(add(&t, "198.18.0.2"));
	ck_assert_int_eq(emu_gid_table_set_static(&t, 6, s.s6_addr,
						  IBV_GID_TYPE_IB, 0), 0);
	/* Clearing the RoCEv1 half takes the RoCEv2 half along. */
	ck_assert_int_eq(emu_gid_table_clear(&t, 1), 0);
	expect_empty(&t, 0);
	expect_pair(&t, 1, "198.18.0.2", 7);
	ck_assert_int_eq(emu_gid_table_clear(&t, 6), 0);
	expect_empty(&t, 6);
	ck_assert_int_eq(emu_gid_table_count(&t), 2);
	emu_gid_table_fini(&t);
}
END_TEST

START_TEST(t_sync)
{
	struct emu_gid_table t;
	struct in6_addr a[3] = { ip("198.18.0.1"), ip("198.18.0.2"),
				 ip("2001:db8::1") };
	struct in6_addr b[3] = { ip("2001:db8::1"), ip("198.18.0.3"),
				 ip("198.18.0.1") };
	struct in6_addr other = ip("198.19.0.1");

	ck_assert_int_eq(emu_gid_table_init(&t, 1, 16), 0);
	ck_assert(emu_gid_table_add_addr(&t, &other, 9));
	ck_assert(emu_gid_table_sync_addrs(&t, 7, a, 3));
	expect_pair(&t, 0, "198.19.0.1", 9);
	expect_pair(&t, 1, "198.18.0.1", 7);
	expect_pair(&t, 2, "198.18.0.2", 7);
	expect_pair(&t, 3, "2001:db8::1", 7);
	ck_assert(!emu_gid_table_sync_addrs(&t, 7, a, 3));

	/* .2 leaves, .3 takes its pair; the rest keep their index and the
	 * entry of another interface is not touched. */
	ck_assert(emu_gid_table_sync_addrs(&t, 7, b, 3));
	expect_pair(&t, 0, "198.19.0.1", 9);
	expect_pair(&t, 1, "198.18.0.1", 7);
	expect_pair(&t, 2, "198.18.0.3", 7);
	expect_pair(&t, 3, "2001:db8::1", 7);
	ck_assert_int_eq(emu_gid_table_count(&t), 8);

	ck_assert(emu_gid_table_sync_addrs(&t, 7, NULL, 0));
	ck_assert_int_eq(emu_gid_table_count(&t), 2);
	emu_gid_table_fini(&t);
}
END_TEST

START_TEST(t_snapshot)
{
	struct emu_gid_table t;
	struct ibv_gid_entry e[8], canary;
	struct in6_addr s = ip("2001:db8::a");
	int i;

	memset(&canary, 0xa5, sizeof(canary));
	ck_assert_int_eq(emu_gid_table_init(&t, 3, 8), 0);
	ck_assert_int_eq(emu_gid_table_snapshot(&t, NULL, 0), 0);
	ck_assert(add(&t, "198.18.0.1"));
	ck_assert_int_eq(emu_gid_table_set_static(&t, 3, s.s6_addr,
						  IBV_GID_TYPE_IB, 0), 0);
	ck_assert(add(&t, "2001:db8::1"));	/* goes to pair 2 */

	/* Too small: refused, and not one byte written anywhere. */
	for (i = 0; i < 8; i++)
		e[i] = canary;
	ck_assert_int_eq(emu_gid_table_snapshot(&t, e, 4), -EINVAL);
	ck_assert_int_eq(emu_gid_table_snapshot(&t, e, 0), -EINVAL);
	ck_assert_int_eq(emu_gid_table_snapshot(&t, NULL, 0), -EINVAL);
	for (i = 0; i < 8; i++)
		ck_assert_mem_eq(&e[i], &canary, sizeof(canary));

	/* Exactly enough, then more than enough: index order, and nothing
	 * past the entries returned. */
	ck_assert_int_eq(emu_gid_table_snapshot(&t, e, 5), 5);
	ck_assert_mem_eq(&e[5], &canary, sizeof(canary));
	ck_assert_int_eq(emu_gid_table_snapshot(&t, e, 7), 5);
	ck_assert_mem_eq(&e[5], &canary, sizeof(canary));
	ck_assert_mem_eq(&e[6], &canary, sizeof(canary));
	ck_assert_uint_eq(e[0].gid_index, 0);
	ck_assert_uint_eq(e[0].gid_type, IBV_GID_TYPE_ROCE_V2);
	ck_assert_uint_eq(e[1].gid_index, 1);
	ck_assert_uint_eq(e[1].gid_type, IBV_GID_TYPE_ROCE_V1);
	ck_assert_uint_eq(e[2].gid_index, 3);
	ck_assert_uint_eq(e[2].gid_type, IBV_GID_TYPE_IB);
	ck_assert_mem_eq(e[2].gid.raw, s.s6_addr, 16);
	ck_assert_uint_eq(e[3].gid_index, 4);
	ck_assert_uint_eq(e[4].gid_index, 5);
	for (i = 0; i < 5; i++)
		ck_assert_uint_eq(e[i].port_num, 3);
	emu_gid_table_fini(&t);
}
END_TEST

START_TEST(t_generation)
{
	struct emu_gid_table t;
	struct in6_addr s = ip("2001:db8::a"), a = ip("198.18.0.5");
	uint64_t g;

	ck_assert_int_eq(emu_gid_table_init(&t, 1, 8), 0);
	g = emu_gid_table_generation(&t);
#define BUMPED(expr) do { ck_assert(expr); \
	ck_assert_uint_gt(emu_gid_table_generation(&t), g); \
	g = emu_gid_table_generation(&t); } while (0)
#define SAME(expr) do { ck_assert(expr); \
	ck_assert_uint_eq(emu_gid_table_generation(&t), g); } while (0)
	BUMPED(add(&t, "198.18.0.1"));
	SAME(!add(&t, "198.18.0.1"));
	BUMPED(del(&t, "198.18.0.1"));
	SAME(!del(&t, "198.18.0.1"));
	BUMPED(!emu_gid_table_set_static(&t, 0, s.s6_addr, 0, 0));
	SAME(emu_gid_table_set_static(&t, 9, s.s6_addr, 0, 0) == EINVAL);
	BUMPED(!emu_gid_table_clear(&t, 0));
	SAME(emu_gid_table_clear(&t, 0) == ENODATA);
	BUMPED(emu_gid_table_sync_addrs(&t, 7, &a, 1));
	SAME(!emu_gid_table_sync_addrs(&t, 7, &a, 1));
	BUMPED(emu_gid_table_sync_addrs(&t, 7, NULL, 0));
#undef BUMPED
#undef SAME
	emu_gid_table_fini(&t);
}
END_TEST

/* Readers must never see half a pair or an entry that disagrees with its
 * slot, while a writer churns addresses. */
struct race {
	struct emu_gid_table t;
	atomic_int stop;
	atomic_int bad;
};

static void *reader(void *arg)
{
	struct race *r = arg;
	struct ibv_gid_entry e[16], q;
	int n, i, rc;

	while (!r->stop) {
		n = emu_gid_table_snapshot(&r->t, e, 16);
		if (n < 0 || n % 2) {
			r->bad = 1;
			break;
		}
		for (i = 0; i < n; i += 2)
			if (e[i].gid_index + 1 != e[i + 1].gid_index ||
			    e[i].gid_type != IBV_GID_TYPE_ROCE_V2 ||
			    memcmp(e[i].gid.raw, e[i + 1].gid.raw, 16))
				r->bad = 1;
		rc = emu_gid_table_query(&r->t, 0, &q);
		if (rc && rc != ENODATA)
			r->bad = 1;
	}
	return NULL;
}

START_TEST(t_concurrent)
{
	static struct race r;
	pthread_t th[4];
	struct in6_addr a;
	int i, k;

	ck_assert_int_eq(emu_gid_table_init(&r.t, 1, 16), 0);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, reader, &r), 0);
	for (i = 0; i < 20000; i++) {
		memset(&a, 0, sizeof(a));
		a.s6_addr[0] = 0x20;
		a.s6_addr[15] = (uint8_t)(i % 11);
		k = i % 3;
		if (k == 2)
			emu_gid_table_del_addr(&r.t, &a);
		else
			emu_gid_table_add_addr(&r.t, &a, 1);
	}
	r.stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_eq(r.bad, 0);
	ck_assert_uint_gt(emu_gid_table_generation(&r.t), 0);
	emu_gid_table_fini(&r.t);
}
END_TEST

static Suite *gid_suite(void)
{
	Suite *s = suite_create("gid");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, t_init_bounds);
	tcase_add_test(tc, t_init_enomem);
	tcase_add_test(tc, t_query);
	tcase_add_test(tc, t_helpers);
	tcase_add_test(tc, t_pairs_layout);
	tcase_add_test(tc, t_add_del_stable);
	tcase_add_test(tc, t_full);
	tcase_add_test(tc, t_static_pins);
	tcase_add_test(tc, t_clear);
	tcase_add_test(tc, t_sync);
	tcase_add_test(tc, t_snapshot);
	tcase_add_test(tc, t_generation);
	tcase_add_test(tc, t_concurrent);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(gid_suite());
}
