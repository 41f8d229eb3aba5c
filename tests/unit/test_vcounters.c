/* Unit tests for verbs/counters.c: counters bound to a QP through a
 * count-only flow count what the QP receives from the flow's creation on,
 * at every index a description was attached to, summed where indexes
 * repeat, and keep it when the flow goes; the refusals rdma-core's
 * contract and mlx5 give (unbound, too few values, static attach only,
 * steering, busy objects), and failed allocations. */
#include <errno.h>
#include <string.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

/* A flow attr and its specs as rdma-core lays them out: each spec right
 * after the one before, as long as its size says (no padding). */
struct count_flow {
	struct ibv_flow_attr attr;
	uint8_t specs[2 * sizeof(struct ibv_flow_spec_counter_action)];
};

/* Spec i of f: a count action of counters c, size bytes long. */
static void put_count(struct count_flow *f, unsigned int i,
		      struct ibv_counters *c, uint16_t size)
{
	struct ibv_flow_spec_counter_action a = {
		.type = IBV_FLOW_SPEC_ACTION_COUNT, .size = size, .counters = c,
	};

	memcpy(f->specs + i * sizeof(a), &a, sizeof(a));
}

/* A flow on port 1 with one count action for c (and room for two). */
static struct count_flow flow_of(struct ibv_counters *c)
{
	struct count_flow f = {
		.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(f),
			  .num_of_specs = 1, .port = 1 },
	};

	put_count(&f, 0, c, sizeof(struct ibv_flow_spec_counter_action));
	put_count(&f, 1, c, sizeof(struct ibv_flow_spec_counter_action));
	return f;
}

static void attach(struct ibv_counters *c, enum ibv_counter_description d,
		   uint32_t index, int want)
{
	struct ibv_counter_attach_attr a = { .counter_desc = d,
					     .index = index };

	ck_assert_int_eq(ibv_attach_counters_point_flow(c, &a, NULL), want);
}

static void values(struct ibv_counters *c, uint64_t v0, uint64_t v1,
		   uint64_t v2, uint64_t v3)
{
	uint64_t v[5];

	memset(v, 0xee, sizeof(v));
	ck_assert_int_eq(ibv_read_counters(c, v, 5, 0), 0);
	ck_assert_uint_eq(v[0], v0);
	ck_assert_uint_eq(v[1], v1);
	ck_assert_uint_eq(v[2], v2);
	ck_assert_uint_eq(v[3], v3);
	ck_assert_uint_eq(v[4], 0);
}

#define MSG_BYTES (2 * 1040 + 968)	/* 3000 bytes in 1024-byte packets */

START_TEST(t_counters_on_qp)
{
	struct ibv_counters_init_attr ia = { 0 };
	struct ibv_counters *c;
	struct count_flow fa;
	struct ibv_flow *f;
	struct traffic t;
	uint64_t v[4];

	traffic_open(&t);
	c = ibv_create_counters(t.ctx, &ia);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_eq(c->context, t.ctx);
	attach(c, IBV_COUNTER_PACKETS, 0, 0);
	attach(c, IBV_COUNTER_BYTES, 1, 0);
	/* Descriptions at one index add up. */
	attach(c, IBV_COUNTER_PACKETS, 3, 0);
	attach(c, IBV_COUNTER_BYTES, 3, 0);
	/* Bound to nothing: nothing to read (the kernel's EINVAL). */
	ck_assert_int_eq(ibv_read_counters(c, v, 4, 0), EINVAL);

	traffic_send(&t, 3000, 2);	/* before the flow: not counted */
	fa = flow_of(c);
	f = ibv_create_flow(t.p.qp[1], &fa.attr);
	ck_assert_ptr_nonnull(f);
	values(c, 0, 0, 0, 0);
	traffic_send(&t, 3000, 5);
	values(c, 15, 5 * MSG_BYTES, 0, 15 + 5 * MSG_BYTES);
	ck_assert_int_eq(ibv_read_counters(
				 c, v, 4, IBV_READ_COUNTERS_ATTR_PREFER_CACHED),
			 0);
	ck_assert_int_eq(ibv_read_counters(c, v, 3, 0), EINVAL);
	ck_assert_int_eq(ibv_read_counters(c, v, 4, 2), EINVAL);
	ck_assert_int_eq(ibv_read_counters(c, NULL, 4, 0), EINVAL);
	/* Bound: no more points, no destroying what is in use. */
	attach(c, IBV_COUNTER_PACKETS, 2, EBUSY);
	ck_assert_int_eq(ibv_destroy_counters(c), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(t.p.qp[1]), EBUSY);
	traffic_send(&t, 3000, 1);	/* the QP still works */
	values(c, 18, 6 * MSG_BYTES, 0, 18 + 6 * MSG_BYTES);

	/* The flow goes, its counts stay; unbound, unreadable again. */
	ck_assert_int_eq(ibv_destroy_flow(f), 0);
	ck_assert_int_eq(ibv_read_counters(c, v, 4, 0), EINVAL);
	/* Bound anew, to the sender's QP: its ACKs add up from here. */
	f = ibv_create_flow(t.p.qp[0], &fa.attr);
	ck_assert_ptr_nonnull(f);
	traffic_send(&t, 3000, 2);
	values(c, 20, 6 * MSG_BYTES + 2 * 20, 0, 20 + 6 * MSG_BYTES + 40);
	ck_assert_int_eq(ibv_destroy_flow(f), 0);
	ck_assert_int_eq(ibv_destroy_counters(c), 0);
	traffic_close(&t);
}
END_TEST

START_TEST(t_refusals)
{
	struct ibv_counters_init_attr ia = { 0 };
	struct ibv_counter_attach_attr aa = { 0 };
	struct ibv_counters *c, *bare, *other;
	struct ibv_context *ctx2;
	struct count_flow fa;
	struct traffic t;
	struct ibv_flow_spec_eth eth = {
		.type = IBV_FLOW_SPEC_ETH, .size = sizeof(eth),
	};
	struct {
		struct ibv_flow_attr attr;
		uint8_t specs[sizeof(eth)];
	} steer = {
		.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(steer),
			  .num_of_specs = 1, .port = 1 },
	};

	memcpy(steer.specs, &eth, sizeof(eth));
	traffic_open(&t);
	ia.comp_mask = 1;
	errno = 0;
	ck_assert_ptr_null(ibv_create_counters(t.ctx, &ia));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ia.comp_mask = 0;
	c = ibv_create_counters(t.ctx, &ia);
	bare = ibv_create_counters(t.ctx, &ia);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(bare);
	/* Static attach only, the two descriptions, no comp_mask. */
	ck_assert_int_eq(ibv_attach_counters_point_flow(c, &aa,
							(struct ibv_flow *)1),
			 EOPNOTSUPP);
	aa.counter_desc = (enum ibv_counter_description)2;
	ck_assert_int_eq(ibv_attach_counters_point_flow(c, &aa, NULL),
			 EOPNOTSUPP);
	aa.counter_desc = IBV_COUNTER_PACKETS;
	aa.comp_mask = 1;
	ck_assert_int_eq(ibv_attach_counters_point_flow(c, &aa, NULL),
			 EOPNOTSUPP);
	aa.comp_mask = 0;
	ck_assert_int_eq(ibv_attach_counters_point_flow(c, NULL, NULL),
			 EINVAL);
	ck_assert_int_eq(ibv_attach_counters_point_flow(c, &aa, NULL), 0);

	/* Flows: steering is not there, a count action is. */
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[0], &steer.attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	fa = flow_of(c);
	fa.attr.num_of_specs = 0;
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[0], &fa.attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	fa = flow_of(c);
	fa.attr.type = IBV_FLOW_ATTR_SNIFFER;
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[0], &fa.attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	fa = flow_of(c);
	fa.attr.num_of_specs = 2;	/* two count actions */
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[0], &fa.attr));
	ck_assert_int_eq(errno, EINVAL);
	fa = flow_of(c);
	put_count(&fa, 0, c, 4);
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[0], &fa.attr));
	ck_assert_int_eq(errno, EINVAL);
	fa = flow_of(c);
	fa.attr.port = 0;
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[0], &fa.attr));
	ck_assert_int_eq(errno, EINVAL);
	fa.attr.port = 9;
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[0], &fa.attr));
	ck_assert_int_eq(errno, EINVAL);
	fa = flow_of(c);
	fa.attr.comp_mask = 1;
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[0], &fa.attr));
	ck_assert_int_eq(errno, EINVAL);
	/* Counters with no point attached: mlx5's EINVAL. */
	fa = flow_of(bare);
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[0], &fa.attr));
	ck_assert_int_eq(errno, EINVAL);
	/* Counters of another context. */
	ctx2 = open_default();
	other = ibv_create_counters(ctx2, &ia);
	ck_assert_ptr_nonnull(other);
	ck_assert_int_eq(ibv_attach_counters_point_flow(other, &aa, NULL), 0);
	fa = flow_of(other);
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[0], &fa.attr));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_destroy_counters(other), 0);
	ck_assert_int_eq(ibv_close_device(ctx2), 0);
	/* None of that bound anything. */
	ck_assert_int_eq(ibv_destroy_counters(c), 0);
	ck_assert_int_eq(ibv_destroy_counters(bare), 0);
	traffic_close(&t);
}
END_TEST

START_TEST(t_oom)
{
	struct ibv_counters_init_attr ia = { 0 };
	struct ibv_counters *c;
	struct count_flow fa;
	struct ibv_flow *f;
	struct traffic t;
	uint64_t v;

	traffic_open(&t);
	emu_test_fail_calloc(1);
	errno = 0;
	ck_assert_ptr_null(ibv_create_counters(t.ctx, &ia));
	ck_assert_int_eq(errno, ENOMEM);
	c = ibv_create_counters(t.ctx, &ia);
	ck_assert_ptr_nonnull(c);
	attach(c, IBV_COUNTER_PACKETS, 0, 0);
	fa = flow_of(c);
	emu_test_fail_calloc(1);
	errno = 0;
	ck_assert_ptr_null(ibv_create_flow(t.p.qp[1], &fa.attr));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	/* Nothing was bound: the QP and the counters go freely after. */
	ck_assert_int_eq(ibv_read_counters(c, &v, 1, 0), EINVAL);
	f = ibv_create_flow(t.p.qp[1], &fa.attr);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ibv_destroy_flow(f), 0);
	ck_assert_int_eq(ibv_destroy_counters(c), 0);
	traffic_close(&t);
}
END_TEST

static Suite *vcounters_suite(void)
{
	Suite *s = suite_create("vcounters");
	TCase *tc = tcase_create("counters");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_counters_on_qp);
	tcase_add_test(tc, t_refusals);
	tcase_add_test(tc, t_oom);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(vcounters_suite());
}
