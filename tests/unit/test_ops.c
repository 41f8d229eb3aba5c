/* Unit tests for the ops table an opened context carries (verbs/ops.c):
 * every slot it names holds its verb's function, every other slot is
 * NULL, and calls through the slots answer as the verbs do. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/objects/cq.h"
#include "verbs/ops.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

typedef void (*fnptr)(void);

struct slot {
	const char *name;
	size_t off; /* in struct verbs_context */
	fnptr fn;
};

#define SLOT(field, f) { #field, offsetof(struct verbs_context, field), \
			 (fnptr)(f) }

/* What the table must install, written out again here so that a slot
 * dropped from (or misdirected in) verbs/ops.c fails the test. */
static const struct slot slots[] = {
	SLOT(context.ops._compat_query_device, ibv_query_device),
	SLOT(context.ops._compat_query_port, ibv_query_port),
	SLOT(context.ops.alloc_mw, emu_verbs_alloc_mw),
	SLOT(context.ops.bind_mw, emu_verbs_bind_mw),
	SLOT(context.ops.dealloc_mw, emu_verbs_dealloc_mw),
	SLOT(context.ops.poll_cq, emu_cq_poll),
	SLOT(context.ops.req_notify_cq, emu_verbs_req_notify_cq),
	SLOT(context.ops.post_srq_recv, emu_verbs_post_srq_recv),
	SLOT(context.ops.post_send, emu_verbs_post_send),
	SLOT(context.ops.post_recv, emu_verbs_post_recv),
	SLOT(query_port, emu_verbs_query_port),
	SLOT(query_device_ex, emu_verbs_query_device_ex),
	SLOT(create_cq_ex, emu_verbs_create_cq_ex),
	SLOT(create_qp_ex, emu_verbs_create_qp_ex),
	SLOT(create_srq_ex, emu_verbs_create_srq_ex),
	SLOT(post_srq_ops, emu_verbs_post_srq_ops),
	SLOT(get_srq_num, emu_verbs_get_srq_num),
	SLOT(open_xrcd, emu_verbs_open_xrcd),
	SLOT(close_xrcd, emu_verbs_close_xrcd),
	SLOT(open_qp, emu_verbs_open_qp),
	SLOT(advise_mr, emu_verbs_advise_mr),
	SLOT(alloc_dm, emu_verbs_alloc_dm),
	SLOT(free_dm, emu_verbs_free_dm),
	SLOT(reg_dm_mr, emu_verbs_reg_dm_mr),
	SLOT(query_rt_values, emu_verbs_query_rt_values),
	SLOT(alloc_td, emu_verbs_alloc_td),
	SLOT(dealloc_td, emu_verbs_dealloc_td),
	SLOT(alloc_parent_domain, emu_verbs_alloc_parent_domain),
	SLOT(create_counters, emu_verbs_create_counters),
	SLOT(destroy_counters, emu_verbs_destroy_counters),
	SLOT(attach_counters_point_flow, emu_verbs_attach_counters_point_flow),
	SLOT(read_counters, emu_verbs_read_counters),
	SLOT(ibv_create_flow, emu_verbs_create_flow),
	SLOT(ibv_destroy_flow, emu_verbs_destroy_flow),
};

#define NSLOTS (sizeof(slots) / sizeof(slots[0]))

static fnptr slot_at(const struct verbs_context *vctx, size_t off)
{
	fnptr f;

	memcpy(&f, (const char *)vctx + off, sizeof(f));
	return f;
}

static const struct slot *named(size_t off)
{
	size_t i;

	for (i = 0; i < NSLOTS; i++)
		if (slots[i].off == off)
			return &slots[i];
	return NULL;
}

/* Each slot off..end (pointer-sized steps) is the table's function if the
 * table names it, NULL otherwise; returns how many were named. */
static unsigned int check_range(const struct verbs_context *vctx, size_t off,
				size_t end)
{
	const size_t priv = offsetof(struct verbs_context, priv);
	unsigned int n = 0;

	for (; off + sizeof(fnptr) <= end; off += sizeof(fnptr)) {
		const struct slot *s = named(off);

		if (off == priv)
			continue;
		if (s) {
			ck_assert_msg(slot_at(vctx, off) == s->fn,
				      "%s is not the table's op", s->name);
			n++;
		} else {
			ck_assert_msg(!slot_at(vctx, off),
				      "slot at offset %zu set behind the "
				      "table's back", off);
		}
	}
	return n;
}

/* The extended slots, then the legacy ones: together, exactly the slots
 * listed above. */
static void check_all(const struct verbs_context *vctx)
{
	const size_t ops = offsetof(struct verbs_context, context.ops);
	unsigned int n;

	n = check_range(vctx, 0, offsetof(struct verbs_context, sz));
	n += check_range(vctx, ops, ops + sizeof(struct ibv_context_ops));
	ck_assert_uint_eq(n, NSLOTS);
}

START_TEST(t_every_slot)
{
	struct ibv_context *ctx = open_default();
	struct verbs_context *vctx = verbs_get_ctx(ctx);

	ck_assert_ptr_nonnull(vctx);
	ck_assert_uint_eq(vctx->sz, sizeof(*vctx));
	check_all(vctx);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* A context built by hand gets the same table from emu_verbs_set_ops. */
START_TEST(t_set_ops)
{
	struct verbs_context v;

	memset(&v, 0, sizeof(v));
	emu_verbs_set_ops(&v);
	check_all(&v);
}
END_TEST

static void expect_einval(int rc)
{
	ck_assert_int_eq(rc, EINVAL);
}

static void expect_null_einval(const void *p)
{
	ck_assert_ptr_null(p);
	ck_assert_int_eq(errno, EINVAL);
}

/* Calls through the slots take the verbs' own paths: the same answers as
 * the exported or inline verb, and NULL arguments refused, not crashed on. */
START_TEST(t_calls)
{
	struct ibv_context *ctx = open_default();
	struct verbs_context *vctx = verbs_get_ctx(ctx);
	struct ibv_device_attr a1, a2;
	struct ibv_port_attr p1, p2;
	struct ibv_ops_wr *bad_op = (void *)1;
	struct ibv_wc wc;
	struct ibv_cq *cq;

	memset(&a1, 0, sizeof(a1));
	memset(&a2, 0, sizeof(a2));
	ck_assert_int_eq(ctx->ops._compat_query_device(ctx, &a1), 0);
	ck_assert_int_eq(ibv_query_device(ctx, &a2), 0);
	ck_assert_mem_eq(&a1, &a2, sizeof(a1));
	/* The legacy slot fills the IBVERBS_1.1 layout, a prefix of ours. */
	memset(&p1, 0, sizeof(p1));
	memset(&p2, 0, sizeof(p2));
	ck_assert_int_eq(vctx->query_port(ctx, 1, &p1, sizeof(p1)), 0);
	ck_assert_int_eq(ctx->ops._compat_query_port(
				 ctx, 1, (struct _compat_ibv_port_attr *)&p2),
			 0);
	ck_assert_int_eq(p1.state, p2.state);
	ck_assert_int_eq(p1.lid, p2.lid);
	ck_assert_int_eq(p1.gid_tbl_len, p2.gid_tbl_len);
	expect_einval(vctx->query_port(ctx, 0, &p1, sizeof(p1)));
	/* The exported function itself: parentheses keep the macro out. */
	expect_einval((ibv_query_port)(ctx, 0,
				       (struct _compat_ibv_port_attr *)&p1));
	expect_einval(vctx->query_device_ex(NULL, NULL, NULL, 0));

	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(ctx->ops.poll_cq(cq, 1, &wc), 0);
	ck_assert_int_eq(ibv_poll_cq(cq, 1, &wc), 0);
	ck_assert_int_eq(ctx->ops.req_notify_cq(cq, 0), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);

	errno = 0;
	expect_null_einval(vctx->create_cq_ex(ctx, NULL));
	errno = 0;
	expect_null_einval(vctx->create_qp_ex(ctx, NULL));
	errno = 0;
	expect_null_einval(vctx->create_srq_ex(ctx, NULL));
	errno = 0;
	expect_null_einval(vctx->open_xrcd(ctx, NULL));
	errno = 0;
	expect_null_einval(vctx->open_qp(ctx, NULL));
	errno = 0;
	expect_null_einval(ctx->ops.alloc_mw(NULL, IBV_MW_TYPE_1));
	expect_einval(ctx->ops.dealloc_mw(NULL));
	expect_einval(ctx->ops.bind_mw(NULL, NULL, NULL));
	expect_einval(vctx->get_srq_num(NULL, NULL));
	expect_einval(vctx->close_xrcd(NULL));
	expect_einval(vctx->post_srq_ops(NULL, NULL, &bad_op));
	ck_assert_ptr_null(bad_op);
	expect_einval(vctx->advise_mr(NULL, IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
				      NULL, 0));
	expect_null_einval(vctx->alloc_dm(NULL, NULL));
	expect_einval(vctx->free_dm(NULL));
	expect_null_einval(vctx->reg_dm_mr(NULL, NULL, 0, 0, 0));
	expect_einval(vctx->query_rt_values(NULL, NULL));
	expect_null_einval(vctx->alloc_td(NULL, NULL));
	expect_einval(vctx->dealloc_td(NULL));
	expect_null_einval(vctx->alloc_parent_domain(NULL, NULL));
	expect_null_einval(vctx->create_counters(NULL, NULL));
	expect_einval(vctx->destroy_counters(NULL));
	expect_einval(vctx->attach_counters_point_flow(NULL, NULL, NULL));
	expect_einval(vctx->read_counters(NULL, NULL, 0, 0));
	expect_null_einval(vctx->ibv_create_flow(NULL, NULL));
	expect_einval(vctx->ibv_destroy_flow(NULL));
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* The slots the table leaves out are refused by the header's wrappers
 * with EOPNOTSUPP: the reason the table needs no stubs. */
START_TEST(t_left_out)
{
	struct ibv_context *ctx = open_default();
	struct ibv_rwq_ind_table_init_attr ra = {0};
	struct ibv_wq_init_attr wa = {0};

	errno = 0;
	ck_assert_ptr_null(ibv_create_wq(ctx, &wa));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_ptr_null(ibv_create_rwq_ind_table(ctx, &ra));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static Suite *ops_suite(void)
{
	Suite *s = suite_create("ops");
	TCase *tc = tcase_create("default");

	tcase_add_test(tc, t_every_slot);
	tcase_add_test(tc, t_set_ops);
	tcase_add_test(tc, t_calls);
	tcase_add_test(tc, t_left_out);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(ops_suite());
}
