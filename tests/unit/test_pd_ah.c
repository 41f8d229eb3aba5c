/* Unit tests for the PD, MR and AH verbs through the public API only
 * (libibverbs.la and include/infiniband/verbs.h), error paths included. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

static long pg;

/* Device emua: port 1 RoCE with static IPv6 GIDs (RoCEv2 at 4, RoCEv1
 * at 6), port 2 InfiniBand; small limits. */
static const char config_text[] = "[device emua]\n"
				  "max_mr = 3\n"
				  "max_pd = 2\n"
				  "max_ah = 2\n"
				  "[port emua 1]\n"
				  "gid = 4 fd00::5 roce_v2\n"
				  "gid = 6 fd00::6 roce_v1\n"
				  "[port emua 2]\n"
				  "link_layer = infiniband\n";

/* Opened with config_text in effect (each test is its own process). */
static struct ibv_context *open_configured(void)
{
	emu_test_write_config(config_text);
	return open_default();
}

static uint8_t *map_pages(size_t n, int prot)
{
	void *p = mmap(NULL, n * (size_t)pg, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

/* Pages for making holes in: 64 GiB below the process's mappings. New
 * mappings go to the highest gap that fits, which is never a hole down
 * there, so one we unmap stays unmapped while the test runs (the
 * sanitizers map memory as they go, and would fill a hole nearby). */
static uint8_t *map_far(size_t n)
{
	uint8_t *near = map_pages(1, PROT_READ);
	void *p = mmap(near - ((uintptr_t)64 << 30), n * (size_t)pg,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	ck_assert_int_eq(munmap(near, (size_t)pg), 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

/* ibv_reg_mr with access chosen at run time: the header's inline then
 * takes the ibv_reg_mr_iova2 road, as it does for optional bits. */
static int reg_errno(struct ibv_pd *pd, void *addr, size_t len,
		     unsigned int access)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr_iova2(pd, addr, len, (uintptr_t)addr, access);
	if (mr) {
		ck_assert_int_eq(ibv_dereg_mr(mr), 0);
		return 0;
	}
	ck_assert_int_ne(errno, 0);
	return errno;
}

/* ---- protection domains ----------------------------------------------- */

START_TEST(t_alloc_pd)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *a, *b;

	a = ibv_alloc_pd(ctx);
	b = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_eq(a->context, ctx);
	ck_assert_uint_ne(a->handle, b->handle);
	ck_assert_int_eq(ibv_dealloc_pd(a), 0);
	ck_assert_int_eq(ibv_dealloc_pd(b), 0);

	errno = 0;
	ck_assert_ptr_null(ibv_alloc_pd(NULL));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_dealloc_pd(NULL), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_dealloc_pd_busy)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_ah_attr attr;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	char buf[64];

	ck_assert_ptr_nonnull(pd);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	errno = 0;
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	ck_assert_int_eq(errno, EBUSY);

	memset(&attr, 0, sizeof(attr));
	attr.is_global = 1;
	attr.port_num = 1;
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &attr.grh.dgid), 0);
	ah = ibv_create_ah(pd, &attr);
	ck_assert_ptr_nonnull(ah);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	/* The AH alone still holds it. */
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* ---- memory regions --------------------------------------------------- */

START_TEST(t_reg_mr)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *a, *b, *c;
	char *buf = malloc(8192);

	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_nonnull(buf);
	/* A constant access: the IBVERBS_1.1 ibv_reg_mr symbol. */
	a = ibv_reg_mr(pd, buf, 8192,
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_eq(a->context, ctx);
	ck_assert_ptr_eq(a->pd, pd);
	ck_assert_ptr_eq(a->addr, buf);
	ck_assert_uint_eq(a->length, 8192);
	ck_assert_uint_ne(a->lkey, a->rkey);
	/* An optional bit: through ibv_reg_mr_iova2. */
	b = ibv_reg_mr(pd, buf + 1, 100,
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_eq(b->addr, buf + 1);
	ck_assert_uint_ne(a->handle, b->handle);
	ck_assert_uint_ne(a->lkey, b->lkey);
	ck_assert_uint_ne(a->rkey, b->rkey);
	/* An iova of its own: addr and length are still the memory's. */
	c = ibv_reg_mr_iova(pd, buf, 4096, 0x1000, IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_eq(c->addr, buf);
	ck_assert_uint_eq(c->length, 4096);
	ck_assert_int_eq(ibv_dereg_mr(a), 0);
	ck_assert_int_eq(ibv_dereg_mr(b), 0);
	ck_assert_int_eq(ibv_dereg_mr(c), 0);

	errno = 0;
	ck_assert_int_eq(ibv_dereg_mr(NULL), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	free(buf);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_reg_mr_access_flags)
{
	static const struct {
		unsigned int access;
		int err;
	} cases[] = {
		{ 0, 0 },
		{ IBV_ACCESS_LOCAL_WRITE, 0 },
		{ IBV_ACCESS_REMOTE_READ, 0 },
		{ IBV_ACCESS_REMOTE_WRITE, EINVAL },
		{ IBV_ACCESS_REMOTE_ATOMIC, EINVAL },
		{ IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, EINVAL },
		{ IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 0 },
		{ IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC, 0 },
		{ IBV_ACCESS_MW_BIND, 0 },
		{ IBV_ACCESS_ZERO_BASED, 0 },
		{ IBV_ACCESS_HUGETLB, 0 },
		/* The device has ODP (test_odp has the rest). */
		{ IBV_ACCESS_ON_DEMAND, 0 },
		{ IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB, 0 },
		{ IBV_ACCESS_FLUSH_GLOBAL, EOPNOTSUPP },
		{ IBV_ACCESS_FLUSH_PERSISTENT, EOPNOTSUPP },
		/* The optional range: accepted and ignored. */
		{ IBV_ACCESS_RELAXED_ORDERING, 0 },
		{ 1u << 25, 0 },
		{ 1u << 29, 0 },
		{ IBV_ACCESS_OPTIONAL_RANGE | IBV_ACCESS_LOCAL_WRITE, 0 },
		/* Unknown bits, below and above the optional range. */
		{ 1u << 10, EINVAL },
		{ 1u << 19, EINVAL },
		{ 1u << 30, EINVAL },
		{ 1u << 31, EINVAL },
		/* The local-write rule comes before anything else. */
		{ IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND, EINVAL },
	};
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	char buf[256];
	unsigned int i;

	ck_assert_ptr_nonnull(pd);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = reg_errno(pd, buf, sizeof(buf), cases[i].access);

		ck_assert_msg(err == cases[i].err,
			      "access %#x: errno %d, expected %d",
			      cases[i].access, err, cases[i].err);
	}
	/* The signed entry points take the same bits. */
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, buf, sizeof(buf), -1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr_iova(pd, buf, sizeof(buf), 0,
					   IBV_ACCESS_REMOTE_ATOMIC));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_reg_mr_errors)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	uint8_t *buf, *ro;

	ck_assert_ptr_nonnull(pd);
	buf = map_far(3);
	ck_assert_int_eq(reg_errno(NULL, buf, 8, 0), EINVAL);
	ck_assert_int_eq(reg_errno(pd, buf, 0, 0), EINVAL);
	ck_assert_int_eq(reg_errno(pd, NULL, 8, 0), EFAULT);
	/* Memory that was mapped and is no more: pinning fails. */
	ck_assert_int_eq(munmap(buf + pg, (size_t)pg), 0);
	ck_assert_int_eq(reg_errno(pd, buf, 3 * (size_t)pg, 0), EFAULT);
	ck_assert_int_eq(reg_errno(pd, buf + pg, 8, 0), EFAULT);
	ck_assert_int_eq(reg_errno(pd, buf, (size_t)pg, 0), 0);
	ck_assert_int_eq(reg_errno(pd, buf + 2 * pg, (size_t)pg, 0), 0);
	/* Read-only memory with a right that writes. */
	ro = map_pages(1, PROT_READ);
	ck_assert_int_eq(reg_errno(pd, ro, 8, IBV_ACCESS_REMOTE_READ), 0);
	ck_assert_int_eq(reg_errno(pd, ro, 8, IBV_ACCESS_LOCAL_WRITE),
			 EFAULT);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/*
 * A region of no bytes registers, as on mlx5 (and rxe): the kernel pins
 * the page its address is in and hands out keys. At an address where a
 * page starts there is no such page, and it refuses (EINVAL); a page that
 * is not mapped cannot be pinned (EFAULT).
 */
START_TEST(t_zero_length_mr)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr;
	uint8_t *buf;

	ck_assert_ptr_nonnull(pd);
	buf = map_far(2);
	mr = ibv_reg_mr(pd, buf + 100, 0, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(mr);
	ck_assert_ptr_eq(mr->addr, buf + 100);
	ck_assert_uint_eq(mr->length, 0);
	ck_assert_uint_ne(mr->lkey, mr->rkey);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(reg_errno(pd, buf + pg - 1, 0, 0), 0);
	ck_assert_int_eq(reg_errno(pd, buf, 0, 0), EINVAL);
	ck_assert_int_eq(reg_errno(pd, buf + pg, 0, 0), EINVAL);
	ck_assert_int_eq(munmap(buf + pg, (size_t)pg), 0);
	ck_assert_int_eq(reg_errno(pd, buf + pg + 8, 0, 0), EFAULT);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_rereg_mr)
{
	struct ibv_context *ctx = open_default();
	struct ibv_context *ctx2 = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *pd2 = ibv_alloc_pd(ctx);
	struct ibv_pd *foreign = ibv_alloc_pd(ctx2);
	uint8_t *buf, *hole;
	struct ibv_mr *mr;
	uint32_t l, r;

	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_nonnull(pd2);
	ck_assert_ptr_nonnull(foreign);
	buf = map_pages(2, PROT_READ | PROT_WRITE);
	hole = map_far(1);
	ck_assert_int_eq(munmap(hole, (size_t)pg), 0);
	mr = ibv_reg_mr(pd, buf, 64, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	l = mr->lkey;
	r = mr->rkey;

#define INPUT_ERR(flags, p, a, len, acc, e)                                \
	do {                                                               \
		errno = 0;                                                 \
		ck_assert_int_eq(ibv_rereg_mr(mr, flags, p, a, len, acc),  \
				 IBV_REREG_MR_ERR_INPUT);                  \
		ck_assert_int_eq(errno, e);                                \
		ck_assert_uint_eq(mr->lkey, l);                            \
		ck_assert_uint_eq(mr->rkey, r);                            \
	} while (0)

	INPUT_ERR(0, NULL, NULL, 0, 0, EINVAL);
	INPUT_ERR(1 << 3, NULL, NULL, 0, 0, EINVAL);
	INPUT_ERR(IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, 64, 0, EINVAL);
	INPUT_ERR(IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf, 0, 0, EINVAL);
	INPUT_ERR(IBV_REREG_MR_CHANGE_PD, NULL, NULL, 0,
		  IBV_ACCESS_LOCAL_WRITE, EINVAL);
	INPUT_ERR(IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		  IBV_ACCESS_REMOTE_WRITE, EINVAL);
	INPUT_ERR(IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		  IBV_ACCESS_FLUSH_GLOBAL, EOPNOTSUPP);
	INPUT_ERR(IBV_REREG_MR_CHANGE_PD, NULL, NULL, 0, 0, EINVAL);
	INPUT_ERR(IBV_REREG_MR_CHANGE_PD, foreign, NULL, 0, 0, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(NULL, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, 0),
			 IBV_REREG_MR_ERR_INPUT);
	ck_assert_int_eq(errno, EINVAL);

	/* Rights, then the PD, then the memory. */
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_REMOTE_READ),
			 0);
	/* The keys survive: peers hold the rkey they were given. */
	ck_assert_uint_eq(mr->lkey, l);
	ck_assert_uint_eq(mr->rkey, r);
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL,
				      0, 0),
			 0);
	ck_assert_ptr_eq(mr->pd, pd2);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), EBUSY);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION,
				      NULL, buf + pg, 128, 0),
			 0);
	ck_assert_ptr_eq(mr->addr, buf + pg);
	ck_assert_uint_eq(mr->length, 128);
	ck_assert_ptr_eq(mr->context, ctx);

	/* The change itself fails: the command error, then dereg. */
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION,
				      NULL, hole, 64, 0),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(foreign), 0);
	ck_assert_int_eq(ibv_close_device(ctx2), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_limits)
{
	struct ibv_context *ctx = open_configured();
	struct ibv_pd *pd, *pd2;
	struct ibv_ah_attr attr;
	struct ibv_mr *m[3];
	struct ibv_ah *a[2];
	char buf[64];
	int i;

	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_nonnull(pd2);
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_pd(ctx));
	ck_assert_int_eq(errno, ENOMEM);

	for (i = 0; i < 3; i++) {
		m[i] = ibv_reg_mr(pd, buf, sizeof(buf), 0);
		ck_assert_ptr_nonnull(m[i]);
	}
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd2, buf, sizeof(buf), 0));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(ibv_dereg_mr(m[0]), 0);
	m[0] = ibv_reg_mr(pd2, buf, sizeof(buf), 0);
	ck_assert_ptr_nonnull(m[0]);

	memset(&attr, 0, sizeof(attr));
	attr.is_global = 1;
	attr.port_num = 1;
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &attr.grh.dgid), 0);
	for (i = 0; i < 2; i++) {
		a[i] = ibv_create_ah(pd, &attr);
		ck_assert_ptr_nonnull(a[i]);
	}
	errno = 0;
	ck_assert_ptr_null(ibv_create_ah(pd, &attr));
	ck_assert_int_eq(errno, ENOMEM);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(ibv_destroy_ah(a[i]), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(ibv_dereg_mr(m[i]), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* ---- address handles -------------------------------------------------- */

static struct ibv_ah_attr global_attr(struct ibv_context *ctx,
				      uint8_t sgid_index)
{
	struct ibv_ah_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.is_global = 1;
	attr.port_num = 1;
	attr.grh.sgid_index = sgid_index;
	attr.grh.hop_limit = 64;
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &attr.grh.dgid), 0);
	/* A peer on loopback: ::ffff:127.1.2.3. */
	attr.grh.dgid.raw[13] = 1;
	attr.grh.dgid.raw[14] = 2;
	attr.grh.dgid.raw[15] = 3;
	return attr;
}

static int ah_errno(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah;

	errno = 0;
	ah = ibv_create_ah(pd, attr);
	if (ah) {
		ck_assert_int_eq(ibv_destroy_ah(ah), 0);
		return 0;
	}
	return errno;
}

START_TEST(t_create_ah)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_ah_attr attr;
	struct ibv_ah *ah, *ah2;

	ck_assert_ptr_nonnull(pd);
	attr = global_attr(ctx, 0);
	ah = ibv_create_ah(pd, &attr);
	ck_assert_ptr_nonnull(ah);
	ck_assert_ptr_eq(ah->context, ctx);
	ck_assert_ptr_eq(ah->pd, pd);
	ah2 = ibv_create_ah(pd, &attr);
	ck_assert_ptr_nonnull(ah2);
	ck_assert_uint_ne(ah->handle, ah2->handle);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah2), 0);
	/* The RoCEv1 twin at index 1 is a valid source too. */
	attr = global_attr(ctx, 1);
	ck_assert_int_eq(ah_errno(pd, &attr), 0);

	/* RoCE needs a GRH. */
	attr = global_attr(ctx, 0);
	attr.is_global = 0;
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);
	/* Ports that do not exist. */
	attr = global_attr(ctx, 0);
	attr.port_num = 0;
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);
	attr.port_num = 2;
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);
	/* Source GID index: empty slot, beyond the table. */
	attr = global_attr(ctx, 2);
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);
	attr = global_attr(ctx, 16);
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);
	attr = global_attr(ctx, 255);
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);
	/* Destinations: unspecified, or not the source's IP family. */
	attr = global_attr(ctx, 0);
	memset(attr.grh.dgid.raw, 0, 16);
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);
	attr.grh.dgid.raw[10] = attr.grh.dgid.raw[11] = 0xff;
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);
	ck_assert_int_eq(inet_pton(AF_INET6, "fd00::7", attr.grh.dgid.raw),
			 1);
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);

	errno = 0;
	ck_assert_ptr_null(ibv_create_ah(NULL, &attr));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_ah(pd, NULL));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_destroy_ah(NULL), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_create_ah_configured)
{
	struct ibv_context *ctx = open_configured();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_ah_attr attr;

	ck_assert_ptr_nonnull(pd);
	/* IPv6 source, IPv6 destination. */
	attr = global_attr(ctx, 4);
	ck_assert_int_eq(inet_pton(AF_INET6, "fd00::7", attr.grh.dgid.raw),
			 1);
	ck_assert_int_eq(ah_errno(pd, &attr), 0);
	/* ... and an IPv4 one from it: no route. */
	attr = global_attr(ctx, 4);
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);
	/* An InfiniBand port takes an AH without a GRH (LID routed). */
	memset(&attr, 0, sizeof(attr));
	attr.port_num = 2;
	attr.dlid = 7;
	ck_assert_int_eq(ah_errno(pd, &attr), 0);
	attr.port_num = 3;
	ck_assert_int_eq(ah_errno(pd, &attr), EINVAL);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* ---- AH attributes from a received packet ----------------------------- */

/* The GRH area of an IPv4 packet: 20 bytes of padding, then the header. */
static void ipv4_area(struct ibv_grh *grh, const uint8_t src[4],
		      const uint8_t dst[4], uint8_t tos, uint8_t ttl)
{
	uint8_t *b = (uint8_t *)grh, *h = b + 20;
	uint32_t sum = 0;
	int i;

	memset(b, 0, 40);
	h[0] = 0x45;
	h[1] = tos;
	h[3] = 100;		/* total length */
	h[6] = 0x40;		/* DF */
	h[8] = ttl;
	h[9] = 17;		/* UDP */
	memcpy(h + 12, src, 4);
	memcpy(h + 16, dst, 4);
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	h[10] = (uint8_t)(sum >> 8);
	h[11] = (uint8_t)sum;
}

static struct ibv_wc grh_wc(void)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wc_flags = IBV_WC_GRH;
	wc.slid = 0x21;
	wc.sl = 3;
	wc.dlid_path_bits = 1;
	return wc;
}

START_TEST(t_init_ah_from_wc_ipv4)
{
	static const uint8_t peer[4] = { 127, 9, 8, 7 };
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	uint8_t expect[16] = { [10] = 0xff, [11] = 0xff };
	struct ibv_ah_attr attr;
	struct ibv_grh grh;
	union ibv_gid me;
	struct ibv_wc wc = grh_wc();
	struct ibv_ah *ah;
	uint8_t other[4];

	ck_assert_ptr_nonnull(pd);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &me), 0);
	ipv4_area(&grh, peer, me.raw + 12, 0x28, 61);
	memcpy(expect + 12, peer, 4);
	memset(&attr, 0xa5, sizeof(attr));
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), 0);
	ck_assert_uint_eq(attr.is_global, 1);
	ck_assert_uint_eq(attr.port_num, 1);
	ck_assert_mem_eq(attr.grh.dgid.raw, expect, 16);
	ck_assert_uint_eq(attr.grh.sgid_index, 0);
	ck_assert_uint_eq(attr.grh.hop_limit, 61);
	ck_assert_uint_eq(attr.grh.traffic_class, 0x28);
	ck_assert_uint_eq(attr.grh.flow_label, 0);
	ck_assert_uint_eq(attr.dlid, 0x21);
	ck_assert_uint_eq(attr.sl, 3);
	ck_assert_uint_eq(attr.src_path_bits, 1);
	ck_assert_uint_eq(attr.static_rate, 0);

	/* Padding that is not zero but an intact IPv4 header behind it. */
	grh.version_tclass_flow = htonl(0x60000000);
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), 0);
	ck_assert_mem_eq(attr.grh.dgid.raw, expect, 16);

	ah = ibv_create_ah_from_wc(pd, &wc, &grh, 1);
	ck_assert_ptr_nonnull(ah);
	ck_assert_ptr_eq(ah->pd, pd);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);

	/* Addressed to an IPv4 address that is not ours. */
	memcpy(other, me.raw + 12, 4);
	other[3] ^= 0x40;
	ipv4_area(&grh, peer, other, 0, 64);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_ah_from_wc(pd, &wc, &grh, 1));
	ck_assert_int_eq(errno, EINVAL);
	/* To a multicast group. */
	other[0] = 224;
	ipv4_area(&grh, peer, other, 0, 64);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* Neither IPv4 nor IPv6. */
	ipv4_area(&grh, peer, me.raw + 12, 0, 64);
	((uint8_t *)&grh)[20] = 0x55;
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EPROTONOSUPPORT);

	/* Without a GRH: nothing global, and RoCE cannot use that. */
	wc.wc_flags = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, NULL, &attr), 0);
	ck_assert_uint_eq(attr.is_global, 0);
	ck_assert_uint_eq(attr.port_num, 1);
	ck_assert_uint_eq(attr.dlid, 0x21);
	errno = 0;
	ck_assert_ptr_null(ibv_create_ah_from_wc(pd, &wc, NULL, 1));
	ck_assert_int_eq(errno, EINVAL);

	/* Bad arguments. */
	wc.wc_flags = IBV_WC_GRH;
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, NULL, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 2, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 0, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(NULL, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, NULL, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_create_ah_from_wc(NULL, &wc, &grh, 1));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* An IPv6 (or RoCEv1) header fills the GRH area itself. */
static void ipv6_area(struct ibv_grh *grh, const char *src, const char *dst,
		      uint8_t next_hdr)
{
	memset(grh, 0, sizeof(*grh));
	grh->version_tclass_flow = htonl(6u << 28 | 0x12u << 20 | 0xabcde);
	grh->paylen = htons(100);
	grh->next_hdr = next_hdr;
	grh->hop_limit = 33;
	ck_assert_int_eq(inet_pton(AF_INET6, src, grh->sgid.raw), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, dst, grh->dgid.raw), 1);
}

START_TEST(t_init_ah_from_wc_ipv6)
{
	struct ibv_context *ctx = open_configured();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_ah_attr attr;
	struct ibv_grh grh;
	struct ibv_wc wc = grh_wc();
	union ibv_gid me, peer;
	char me_str[64];
	struct ibv_ah *ah;

	ck_assert_ptr_nonnull(pd);
	ipv6_area(&grh, "fd00::99", "fd00::5", 17);
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), 0);
	ck_assert_int_eq(inet_pton(AF_INET6, "fd00::99", peer.raw), 1);
	ck_assert_mem_eq(attr.grh.dgid.raw, peer.raw, 16);
	ck_assert_uint_eq(attr.grh.sgid_index, 4);
	ck_assert_uint_eq(attr.grh.traffic_class, 0x12);
	ck_assert_uint_eq(attr.grh.flow_label, 0xabcde);
	ck_assert_uint_eq(attr.grh.hop_limit, 33);
	ck_assert_uint_eq(attr.is_global, 1);
	ck_assert_uint_eq(attr.port_num, 1);
	ah = ibv_create_ah_from_wc(pd, &wc, &grh, 1);
	ck_assert_ptr_nonnull(ah);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);

	/* RoCEv1 (IB next header): the v1 entries match. */
	ipv6_area(&grh, "fd00::99", "fd00::6", 0x1b);
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), 0);
	ck_assert_uint_eq(attr.grh.sgid_index, 6);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &me), 0);
	ck_assert_ptr_nonnull(inet_ntop(AF_INET6, me.raw, me_str,
					sizeof(me_str)));
	ipv6_area(&grh, "fd00::99", me_str, 0x1b);
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), 0);
	ck_assert_uint_eq(attr.grh.sgid_index, 1);
	/* A RoCEv2 packet to a v1-only GID, and the other way round. */
	ipv6_area(&grh, "fd00::99", "fd00::6", 17);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	ipv6_area(&grh, "fd00::99", "fd00::5", 0x1b);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* Multicast destination; a next header that is neither. */
	ipv6_area(&grh, "fd00::99", "ff02::1", 17);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	ipv6_area(&grh, "fd00::99", "fd00::5", 6);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EPROTONOSUPPORT);
	/* Port 2 has no such GID. */
	ipv6_area(&grh, "fd00::99", "fd00::5", 17);
	errno = 0;
	ck_assert_int_eq(ibv_init_ah_from_wc(ctx, 2, &wc, &grh, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static Suite *pd_ah_suite(void)
{
	Suite *s = suite_create("pd_mr_ah");
	TCase *p = tcase_create("pd_mr");
	TCase *a = tcase_create("ah");

	tcase_add_test(p, t_alloc_pd);
	tcase_add_test(p, t_dealloc_pd_busy);
	tcase_add_test(p, t_reg_mr);
	tcase_add_test(p, t_reg_mr_access_flags);
	tcase_add_test(p, t_reg_mr_errors);
	tcase_add_test(p, t_zero_length_mr);
	tcase_add_test(p, t_rereg_mr);
	tcase_add_test(p, t_limits);
	suite_add_tcase(s, p);
	tcase_add_test(a, t_create_ah);
	tcase_add_test(a, t_create_ah_configured);
	tcase_add_test(a, t_init_ah_from_wc_ipv4);
	tcase_add_test(a, t_init_ah_from_wc_ipv6);
	suite_add_tcase(s, a);
	return s;
}

int main(void)
{
	pg = sysconf(_SC_PAGESIZE);
	emu_test_isolate_config();
	return emu_test_run(pd_ah_suite());
}
