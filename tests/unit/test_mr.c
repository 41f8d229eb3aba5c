/* Unit tests for memory regions at the emu level (emu/objects/mr.c): the key table,
 * keys, registration rules, the access check, PD/AH accounting, the engine. */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <check.h>

#include "emu/emu.h"
#include "emu/objects/ah.h"
#include "emu/device/device.h"
#include "emu/base/engine.h"
#include "emu/objects/mr.h"
#include "emu/objects/pd.h"
#include "tests/unit/testlib.h"

#define ALL_RIGHTS                                                        \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |               \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |              \
	 IBV_ACCESS_MW_BIND)

static struct emu_device *dev;
static struct emu_context *ctx;
static struct emu_pd *pd;
static long pg;

/* A device with its own key table of max_mr slots, an open context (so
 * the engine runs and deregistration goes through it) and a PD. */
static void setup_dev(uint32_t max_mr)
{
	struct emu_device_config cfg;

	pg = sysconf(_SC_PAGESIZE);
	emu_device_config_default(&cfg, "mrtest");
	cfg.limits.max_mr = max_mr;
	cfg.limits.max_pd = 4;
	cfg.limits.max_ah = 2;
	dev = emu_device_create(&cfg, 0, stderr);
	ck_assert_ptr_nonnull(dev);
	/* Whether or not emu_device_create made one: this test's own. */
	emu_mr_table_destroy(dev);
	ck_assert_ptr_null(dev->mrs);
	ck_assert_int_eq(emu_mr_table_create(dev), 0);
	ctx = emu_context_open(dev);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_ptr_nonnull(dev->engine);
	pd = emu_pd_alloc(ctx);
	ck_assert_ptr_nonnull(pd);
}

static void teardown_dev(void)
{
	ck_assert_int_eq(emu_pd_free(pd), 0);
	emu_context_close(ctx);
	emu_mr_table_destroy(dev);
	emu_device_destroy(dev);
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

static struct emu_mr *reg(void *addr, uint64_t len, uint64_t iova,
			  unsigned int access)
{
	struct emu_mr *mr = NULL;

	ck_assert_int_eq(emu_mr_register(pd, addr, len, iova, access, &mr),
			 0);
	ck_assert_ptr_nonnull(mr);
	return mr;
}

static int reg_err(void *addr, uint64_t len, uint64_t iova,
		   unsigned int access)
{
	struct emu_mr *mr = NULL;
	int rc = emu_mr_register(pd, addr, len, iova, access, &mr);

	ck_assert_ptr_null(mr);
	return rc;
}

/* ---- the table --------------------------------------------------------- */

START_TEST(t_table)
{
	struct emu_mr *mr;
	uint8_t *buf;
	int i;

	setup_dev(8);
	ck_assert_int_eq(emu_mr_table_create(dev), EEXIST);

	/* 1: the table; 2: its slots; 3: its free-slot queue. */
	for (i = 1; i <= 3; i++) {
		emu_mr_table_destroy(dev);
		emu_test_fail_calloc(i);
		ck_assert_int_eq(emu_mr_table_create(dev), ENOMEM);
		emu_test_fail_calloc(0);
		ck_assert_ptr_null(dev->mrs);
	}
	/* Without a table nothing resolves and nothing registers. */
	buf = map_pages(1, PROT_READ | PROT_WRITE);
	ck_assert_ptr_null(emu_mr_lookup_lkey(dev, 0x100));
	ck_assert_ptr_null(emu_mr_lookup_rkey(dev, 0x100));
	ck_assert_int_eq(reg_err(buf, 16, 0, 0), ENOMEM);
	emu_mr_table_destroy(dev);	/* twice is harmless */

	ck_assert_int_eq(emu_mr_table_create(dev), 0);
	mr = reg(buf, 16, 0, 0);
	ck_assert_ptr_eq(emu_mr_lookup_lkey(dev, mr->ibv.lkey), mr);
	emu_mr_deregister(mr);
	teardown_dev();
}
END_TEST

/* ---- keys ------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

#define NREG 4096

START_TEST(t_keys_unique)
{
	static struct emu_mr *mrs[NREG];
	static uint32_t keys[2 * NREG];
	uint8_t *buf;
	int i;

	setup_dev(65536);
	buf = map_pages(2, PROT_READ | PROT_WRITE);
	for (i = 0; i < NREG; i++) {
		mrs[i] = reg(buf + i % 64, 100, (uintptr_t)buf, ALL_RIGHTS);
		ck_assert_uint_ne(mrs[i]->ibv.lkey, mrs[i]->ibv.rkey);
		ck_assert_uint_eq(mrs[i]->ibv.lkey >> 8, mrs[i]->index);
		ck_assert_uint_eq(mrs[i]->ibv.rkey >> 8, mrs[i]->index);
		keys[2 * i] = mrs[i]->ibv.lkey;
		keys[2 * i + 1] = mrs[i]->ibv.rkey;
		/* What ibv_reg_mr hands the user. */
		ck_assert_ptr_eq(mrs[i]->ibv.pd, &pd->ibv);
		ck_assert_ptr_eq(mrs[i]->ibv.context, pd->ibv.context);
		ck_assert_ptr_eq(mrs[i]->ibv.addr, buf + i % 64);
		ck_assert_uint_eq(mrs[i]->ibv.length, 100);
		ck_assert_uint_ne(mrs[i]->ibv.handle, 0);
		if (i)
			ck_assert_uint_ne(mrs[i]->ibv.handle,
					  mrs[i - 1]->ibv.handle);
	}
	ck_assert_uint_eq(atomic_load(&pd->users), NREG);
	qsort(keys, 2 * NREG, sizeof(keys[0]), cmp_u32);
	for (i = 1; i < 2 * NREG; i++)
		ck_assert_uint_ne(keys[i - 1], keys[i]);
	for (i = 0; i < NREG; i++) {
		ck_assert_ptr_eq(emu_mr_lookup_lkey(dev, mrs[i]->ibv.lkey),
				 mrs[i]);
		ck_assert_ptr_eq(emu_mr_lookup_rkey(dev, mrs[i]->ibv.rkey),
				 mrs[i]);
		/* One kind of key never opens the other door. */
		ck_assert_ptr_null(emu_mr_lookup_lkey(dev, mrs[i]->ibv.rkey));
		ck_assert_ptr_null(emu_mr_lookup_rkey(dev, mrs[i]->ibv.lkey));
	}
	for (i = 0; i < NREG; i++) {
		uint32_t l = mrs[i]->ibv.lkey, r = mrs[i]->ibv.rkey;

		emu_mr_deregister(mrs[i]);
		ck_assert_ptr_null(emu_mr_lookup_lkey(dev, l));
		ck_assert_ptr_null(emu_mr_lookup_rkey(dev, r));
	}
	ck_assert_uint_eq(atomic_load(&pd->users), 0);
	/* Keys naming slots the table does not have. */
	ck_assert_ptr_null(emu_mr_lookup_lkey(dev, 0xffffff00u));
	ck_assert_ptr_null(emu_mr_lookup_rkey(dev, 65536u << 8));
	teardown_dev();
}
END_TEST

START_TEST(t_stale_key)
{
	struct emu_mr *mr;
	uint32_t ol, orr;
	uint8_t *buf, *p;
	int i;

	setup_dev(1);
	buf = map_pages(1, PROT_READ | PROT_WRITE);
	mr = reg(buf, 64, 0x1000, ALL_RIGHTS);
	for (i = 0; i < 2000; i++) {
		ol = mr->ibv.lkey;
		orr = mr->ibv.rkey;
		emu_mr_deregister(mr);
		ck_assert_ptr_null(emu_mr_lookup_lkey(dev, ol));
		ck_assert_ptr_null(emu_mr_lookup_rkey(dev, orr));
		mr = reg(buf, 64, 0x1000, ALL_RIGHTS);
		/* Same slot, and none of the old keys is a new one. */
		ck_assert_uint_eq(mr->index, 0);
		ck_assert_uint_ne(mr->ibv.lkey, ol);
		ck_assert_uint_ne(mr->ibv.lkey, orr);
		ck_assert_uint_ne(mr->ibv.rkey, ol);
		ck_assert_uint_ne(mr->ibv.rkey, orr);
		ck_assert_uint_ne(mr->ibv.lkey, mr->ibv.rkey);
		ck_assert_ptr_null(emu_mr_lookup_lkey(dev, ol));
		ck_assert_ptr_null(emu_mr_lookup_rkey(dev, orr));
		ck_assert_int_eq(emu_mr_resolve_key(dev, orr, 1, pd, 0x1000,
						    8, 0, &p),
				 EMU_MR_BAD_KEY);
		ck_assert_int_eq(emu_mr_resolve_key(dev, mr->ibv.rkey, 1, pd,
						    0x1000, 8, 0, &p),
				 EMU_MR_OK);
	}
	emu_mr_deregister(mr);
	teardown_dev();
}
END_TEST

/* A released slot comes back only after the never-used ones, and then in
 * the order slots were released: a stale key stays dead for longest. */
START_TEST(t_slot_reuse_order)
{
	struct emu_mr *a, *b, *c, *d, *e;
	uint8_t *buf;

	setup_dev(4);
	buf = map_pages(1, PROT_READ | PROT_WRITE);
	a = reg(buf, 8, 0, 0);
	b = reg(buf, 8, 0, 0);
	ck_assert_uint_eq(a->index, 0);
	ck_assert_uint_eq(b->index, 1);
	emu_mr_deregister(b);
	emu_mr_deregister(a);
	c = reg(buf, 8, 0, 0);
	d = reg(buf, 8, 0, 0);
	ck_assert_uint_eq(c->index, 2);
	ck_assert_uint_eq(d->index, 3);
	e = reg(buf, 8, 0, 0);
	ck_assert_uint_eq(e->index, 1);
	a = reg(buf, 8, 0, 0);
	ck_assert_uint_eq(a->index, 0);
	ck_assert_int_eq(reg_err(buf, 8, 0, 0), ENOMEM);
	emu_mr_deregister(a);
	emu_mr_deregister(c);
	emu_mr_deregister(d);
	emu_mr_deregister(e);
	teardown_dev();
}
END_TEST

/* ---- the access check ------------------------------------------------- */

START_TEST(t_resolve_bounds)
{
	const uint64_t iova = 0x10000, len = 2 * 4096;
	struct emu_mr *mr;
	uint8_t *buf, *p;

	setup_dev(16);
	buf = map_pages(2, PROT_READ | PROT_WRITE);
	mr = reg(buf, len, iova, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_uint_eq(mr->iova, iova);

	/* Both edges, from inside and from outside. */
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova, len, 0, &p), EMU_MR_OK);
	ck_assert_ptr_eq(p, buf);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova + len - 1, 1, 0, &p),
			 EMU_MR_OK);
	ck_assert_ptr_eq(p, buf + len - 1);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova + 100, 50, 0, &p),
			 EMU_MR_OK);
	ck_assert_ptr_eq(p, buf + 100);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova - 1, 1, 0, &p),
			 EMU_MR_BOUNDS);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova - 1, 2, 0, &p),
			 EMU_MR_BOUNDS);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova + len, 1, 0, &p),
			 EMU_MR_BOUNDS);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova, len + 1, 0, &p),
			 EMU_MR_BOUNDS);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova + 1, len, 0, &p),
			 EMU_MR_BOUNDS);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, 0, 1, 0, &p), EMU_MR_BOUNDS);
	/* va + len wrapping past 2^64 lands "inside" if added naively. */
	ck_assert_int_eq(emu_mr_resolve(mr, pd, UINT64_MAX, 2, 0, &p),
			 EMU_MR_BOUNDS);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova + 1, UINT64_MAX, 0, &p),
			 EMU_MR_BOUNDS);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, UINT64_MAX - 5,
					iova + 16, 0, &p),
			 EMU_MR_BOUNDS);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova, UINT64_MAX, 0, &p),
			 EMU_MR_BOUNDS);
	/* Zero length: in bounds wherever it points, with a pointer that
	 * memcpy may be given. */
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova + len, 0, 0, &p),
			 EMU_MR_OK);
	ck_assert_ptr_eq(p, buf + len);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, 0, 0, 0, &p), EMU_MR_OK);
	ck_assert_ptr_eq(p, buf);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, UINT64_MAX, 0, 0, &p),
			 EMU_MR_OK);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova, 8, 0, NULL), EMU_MR_OK);
	emu_mr_deregister(mr);
	teardown_dev();
}
END_TEST

/* A region that ends exactly at 2^64, and one that would pass it. */
START_TEST(t_resolve_top_of_iova_space)
{
	const uint64_t len = 4096, iova = UINT64_MAX - len + 1;
	struct emu_mr *mr;
	uint8_t *buf, *p;

	setup_dev(16);
	buf = map_pages(1, PROT_READ | PROT_WRITE);
	mr = reg(buf, len, iova, 0);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova, len, 0, &p), EMU_MR_OK);
	ck_assert_ptr_eq(p, buf);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, UINT64_MAX, 1, 0, &p),
			 EMU_MR_OK);
	ck_assert_ptr_eq(p, buf + len - 1);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, UINT64_MAX, 2, 0, &p),
			 EMU_MR_BOUNDS);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova + 1, len, 0, &p),
			 EMU_MR_BOUNDS);
	ck_assert_int_eq(emu_mr_resolve(mr, pd, iova - 1, 1, 0, &p),
			 EMU_MR_BOUNDS);
	emu_mr_deregister(mr);
	ck_assert_int_eq(reg_err(buf, len, iova + 1, 0), EINVAL);
	ck_assert_int_eq(reg_err(buf, 2, UINT64_MAX, 0), EINVAL);
	mr = reg(buf, 1, UINT64_MAX, 0);
	emu_mr_deregister(mr);
	teardown_dev();
}
END_TEST

START_TEST(t_resolve_pd_and_rights)
{
	static const unsigned int rights[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_MW_BIND,
	};
	struct emu_pd *other;
	struct emu_mr *none, *all, *mr;
	uint8_t *buf, *p;
	uint64_t va;
	unsigned int i;

	setup_dev(16);
	buf = map_pages(1, PROT_READ | PROT_WRITE);
	va = (uintptr_t)buf;
	other = emu_pd_alloc(ctx);
	ck_assert_ptr_nonnull(other);
	none = reg(buf, 64, va, 0);
	all = reg(buf, 64, va, ALL_RIGHTS | IBV_ACCESS_RELAXED_ORDERING);
	/* Optional bits are dropped, rights kept. */
	ck_assert_uint_eq(all->access, ALL_RIGHTS);

	ck_assert_int_eq(emu_mr_resolve(none, other, va, 8, 0, &p),
			 EMU_MR_BAD_PD);
	ck_assert_int_eq(emu_mr_resolve(none, other, va, 0, 0, &p),
			 EMU_MR_BAD_PD);
	ck_assert_int_eq(emu_mr_resolve(all, NULL, va, 8, 0, &p),
			 EMU_MR_BAD_PD);
	/* Local read needs no right at all. */
	ck_assert_int_eq(emu_mr_resolve(none, pd, va, 8, 0, &p), EMU_MR_OK);
	for (i = 0; i < sizeof(rights) / sizeof(rights[0]); i++) {
		ck_assert_int_eq(emu_mr_resolve(none, pd, va, 8, rights[i],
						&p),
				 EMU_MR_ACCESS);
		ck_assert_int_eq(emu_mr_resolve(all, pd, va, 8, rights[i],
						&p),
				 EMU_MR_OK);
		/* Every right but this one is not enough. */
		mr = reg(buf, 64, va, (ALL_RIGHTS & ~rights[i]) |
				      IBV_ACCESS_LOCAL_WRITE);
		if (rights[i] != IBV_ACCESS_LOCAL_WRITE)
			ck_assert_int_eq(emu_mr_resolve(mr, pd, va, 8,
							rights[i], &p),
					 EMU_MR_ACCESS);
		ck_assert_int_eq(emu_mr_resolve(mr, pd, va, 8,
						IBV_ACCESS_LOCAL_WRITE, &p),
				 EMU_MR_OK);
		emu_mr_deregister(mr);
	}
	ck_assert_int_eq(emu_mr_resolve(all, pd, va, 8, ALL_RIGHTS, &p),
			 EMU_MR_OK);

	/* By key: lkeys are local, rkeys remote, each only so. */
	ck_assert_int_eq(emu_mr_resolve_key(dev, all->ibv.lkey, 0, pd, va, 8,
					    IBV_ACCESS_LOCAL_WRITE, &p),
			 EMU_MR_OK);
	ck_assert_ptr_eq(p, buf);
	ck_assert_int_eq(emu_mr_resolve_key(dev, all->ibv.rkey, 1, pd, va + 8,
					    8, IBV_ACCESS_REMOTE_WRITE, &p),
			 EMU_MR_OK);
	ck_assert_ptr_eq(p, buf + 8);
	ck_assert_int_eq(emu_mr_resolve_key(dev, all->ibv.lkey, 1, pd, va, 8,
					    0, &p),
			 EMU_MR_BAD_KEY);
	ck_assert_int_eq(emu_mr_resolve_key(dev, all->ibv.rkey, 0, pd, va, 8,
					    0, &p),
			 EMU_MR_BAD_KEY);
	ck_assert_int_eq(emu_mr_resolve_key(dev, none->ibv.rkey, 1, pd, va, 8,
					    IBV_ACCESS_REMOTE_READ, &p),
			 EMU_MR_ACCESS);
	ck_assert_int_eq(emu_mr_resolve_key(dev, all->ibv.rkey, 1, other, va,
					    8, 0, &p),
			 EMU_MR_BAD_PD);
	ck_assert_int_eq(emu_mr_resolve_key(dev, all->ibv.rkey, 1, pd, va + 60,
					    8, 0, &p),
			 EMU_MR_BOUNDS);
	emu_mr_deregister(none);
	emu_mr_deregister(all);
	ck_assert_int_eq(emu_pd_free(other), 0);
	teardown_dev();
}
END_TEST

/* ---- registration rules ---------------------------------------------- */

START_TEST(t_register_ranges)
{
	struct emu_mr *mr;
	uint8_t *buf;

	setup_dev(16);
	buf = map_pages(4, PROT_READ | PROT_WRITE);
	ck_assert_int_eq(reg_err(buf, 0, 0, 0), EINVAL);
	/* The process range may not wrap, nor may the iova range. */
	ck_assert_int_eq(reg_err((void *)(UINTPTR_MAX - 10), 100, 0, 0),
			 EINVAL);
	ck_assert_int_eq(reg_err(buf, 100, UINT64_MAX - 10, 0), EINVAL);
	ck_assert_int_eq(reg_err(buf, UINT64_MAX, 0, 0), EINVAL);
	/* max_mr_size. */
	dev->cfg.limits.max_mr_size = 4096;
	ck_assert_int_eq(reg_err(buf, 4097, 0, 0), EINVAL);
	mr = reg(buf, 4096, 0, 0);
	emu_mr_deregister(mr);
	/* ZERO_BASED: reached from iova 0 whatever iova was asked for. */
	mr = reg(buf + 10, 100, 0x5000, IBV_ACCESS_ZERO_BASED);
	ck_assert_uint_eq(mr->iova, 0);
	emu_mr_deregister(mr);
	ck_assert_uint_eq(atomic_load(&pd->users), 0);
	teardown_dev();
}
END_TEST

START_TEST(t_register_unmapped)
{
	struct emu_mr *mr;
	uint8_t *buf, *ro, *none;

	setup_dev(16);
	/* Three pages with a hole in the middle. */
	buf = map_far(3);
	ck_assert_int_eq(munmap(buf + pg, (size_t)pg), 0);
	ck_assert_int_eq(reg_err(buf, 3 * (uint64_t)pg, 0, 0), EFAULT);
	ck_assert_int_eq(reg_err(buf + pg - 1, 2, 0, 0), EFAULT);
	ck_assert_int_eq(reg_err(buf + pg + 100, 10, 0, 0), EFAULT);
	ck_assert_int_eq(reg_err(buf + 2 * pg - 1, 2, 0, 0), EFAULT);
	ck_assert_int_eq(reg_err(NULL, 64, 0, 0), EFAULT);
	mr = reg(buf, (uint64_t)pg, 0, IBV_ACCESS_LOCAL_WRITE);
	emu_mr_deregister(mr);
	mr = reg(buf + 2 * pg + 5, (uint64_t)pg - 5, 0,
		 IBV_ACCESS_LOCAL_WRITE);
	emu_mr_deregister(mr);

	/* Pinning needs read access, and write access for rights that
	 * let anything write. */
	none = map_pages(1, PROT_NONE);
	ck_assert_int_eq(reg_err(none, 8, 0, 0), EFAULT);
	ro = map_pages(1, PROT_READ);
	mr = reg(ro, 8, 0, IBV_ACCESS_REMOTE_READ);
	emu_mr_deregister(mr);
	ck_assert_int_eq(reg_err(ro, 8, 0, IBV_ACCESS_LOCAL_WRITE), EFAULT);
	ck_assert_int_eq(reg_err(ro, 8, 0, IBV_ACCESS_LOCAL_WRITE |
						  IBV_ACCESS_REMOTE_ATOMIC),
			 EFAULT);
	ck_assert_int_eq(reg_err(ro, 8, 0, IBV_ACCESS_MW_BIND), EFAULT);

	/* The helper itself. */
	ck_assert_int_eq(emu_mr_check_mapped(buf, 0, 1), 0);
	ck_assert_int_eq(emu_mr_check_mapped(buf, (uint64_t)pg, 1), 0);
	ck_assert_int_eq(emu_mr_check_mapped((void *)(UINTPTR_MAX - 100), 10,
					     0),
			 EFAULT);
	ck_assert_int_eq(emu_mr_check_mapped(buf, UINT64_MAX, 0), EFAULT);
	ck_assert_uint_eq(atomic_load(&pd->users), 0);
	teardown_dev();
}
END_TEST

/* A region several mincore() batches long. */
START_TEST(t_register_large)
{
	const size_t n = 3000;
	struct emu_mr *mr;
	uint8_t *buf;

	setup_dev(16);
	buf = map_far(n);
	mr = reg(buf, n * (uint64_t)pg, 0, IBV_ACCESS_LOCAL_WRITE);
	emu_mr_deregister(mr);
	ck_assert_int_eq(munmap(buf + (n - 1) * pg, (size_t)pg), 0);
	ck_assert_int_eq(reg_err(buf, n * (uint64_t)pg, 0, 0), EFAULT);
	teardown_dev();
}
END_TEST

START_TEST(t_max_mr_and_enomem)
{
	struct emu_mr *m[3];
	uint8_t *buf;
	int i;

	setup_dev(3);
	buf = map_pages(1, PROT_READ | PROT_WRITE);
	/* calloc of the region fails: nothing is taken. */
	emu_test_fail_calloc(1);
	ck_assert_int_eq(reg_err(buf, 8, 0, 0), ENOMEM);
	emu_test_fail_calloc(0);
	ck_assert_uint_eq(atomic_load(&pd->users), 0);
	for (i = 0; i < 3; i++)
		m[i] = reg(buf, 8, 0, 0);
	ck_assert_int_eq(reg_err(buf, 8, 0, 0), ENOMEM);
	ck_assert_uint_eq(atomic_load(&pd->users), 3);
	emu_mr_deregister(m[1]);
	m[1] = reg(buf, 8, 0, 0);
	ck_assert_int_eq(reg_err(buf, 8, 0, 0), ENOMEM);
	for (i = 0; i < 3; i++)
		emu_mr_deregister(m[i]);
	teardown_dev();
}
END_TEST

/* A max_mr beyond what 24 index bits can name is capped, not wrapped. */
START_TEST(t_max_mr_capped)
{
	struct emu_mr *mr;
	uint8_t *buf;

	setup_dev(0x7fffffff);
	buf = map_pages(1, PROT_READ | PROT_WRITE);
	mr = reg(buf, 8, 0, 0);
	ck_assert_uint_eq(mr->index, 0);
	ck_assert_ptr_eq(emu_mr_lookup_lkey(dev, mr->ibv.lkey), mr);
	ck_assert_ptr_null(emu_mr_lookup_lkey(dev, EMU_MR_MAX_SLOTS << 8));
	emu_mr_deregister(mr);
	teardown_dev();
}
END_TEST

/* ---- re-registration -------------------------------------------------- */

START_TEST(t_reregister)
{
	struct emu_pd *pd2, *foreign;
	struct emu_context *ctx2;
	struct emu_mr *mr;
	uint8_t *a, *b, *ro, *p;
	uint32_t l, r;

	setup_dev(16);
	a = map_pages(1, PROT_READ | PROT_WRITE);
	b = map_pages(2, PROT_READ | PROT_WRITE);
	ro = map_pages(1, PROT_READ);
	pd2 = emu_pd_alloc(ctx);
	ck_assert_ptr_nonnull(pd2);
	mr = reg(a, 64, (uintptr_t)a, IBV_ACCESS_LOCAL_WRITE);
	l = mr->ibv.lkey;
	r = mr->ibv.rkey;

	/* New rights, same keys: peers keep the rkey they were given. */
	ck_assert_int_eq(emu_mr_reregister(mr, IBV_REREG_MR_CHANGE_ACCESS,
					   NULL, NULL, 0,
					   IBV_ACCESS_LOCAL_WRITE |
						   IBV_ACCESS_REMOTE_WRITE),
			 0);
	ck_assert_uint_eq(mr->ibv.lkey, l);
	ck_assert_uint_eq(mr->ibv.rkey, r);
	ck_assert_ptr_eq(emu_mr_lookup_lkey(dev, l), mr);
	ck_assert_ptr_eq(emu_mr_lookup_rkey(dev, r), mr);
	ck_assert_int_eq(emu_mr_resolve_key(dev, mr->ibv.rkey, 1, pd,
					    (uintptr_t)a, 8,
					    IBV_ACCESS_REMOTE_WRITE, &p),
			 EMU_MR_OK);

	/* New translation: reached at its own address. */
	ck_assert_int_eq(emu_mr_reregister(mr,
					   IBV_REREG_MR_CHANGE_TRANSLATION,
					   NULL, b + 16, 100, 0),
			 0);
	ck_assert_ptr_eq(mr->ibv.addr, b + 16);
	ck_assert_uint_eq(mr->ibv.length, 100);
	ck_assert_uint_eq(mr->iova, (uintptr_t)(b + 16));
	ck_assert_int_eq(emu_mr_resolve_key(dev, mr->ibv.lkey, 0, pd,
					    (uintptr_t)(b + 16), 100,
					    IBV_ACCESS_LOCAL_WRITE, &p),
			 EMU_MR_OK);
	ck_assert_ptr_eq(p, b + 16);

	/* New PD: the users move with it. */
	ck_assert_int_eq(emu_mr_reregister(mr, IBV_REREG_MR_CHANGE_PD, pd2,
					   NULL, 0, 0),
			 0);
	ck_assert_ptr_eq(mr->ibv.pd, &pd2->ibv);
	ck_assert_uint_eq(atomic_load(&pd->users), 0);
	ck_assert_uint_eq(atomic_load(&pd2->users), 1);
	ck_assert_int_eq(emu_pd_free(pd2), EBUSY);
	ck_assert_int_eq(emu_mr_resolve_key(dev, mr->ibv.lkey, 0, pd2,
					    (uintptr_t)(b + 16), 1, 0, &p),
			 EMU_MR_OK);

	/* All three at once, ZERO_BASED. */
	ck_assert_int_eq(emu_mr_reregister(mr, IBV_REREG_MR_FLAGS_SUPPORTED,
					   pd, a, 32,
					   IBV_ACCESS_ZERO_BASED |
						   IBV_ACCESS_LOCAL_WRITE),
			 0);
	ck_assert_uint_eq(mr->iova, 0);
	ck_assert_uint_eq(atomic_load(&pd2->users), 0);
	ck_assert_int_eq(emu_mr_resolve_key(dev, mr->ibv.lkey, 0, pd, 0, 32,
					    IBV_ACCESS_LOCAL_WRITE, &p),
			 EMU_MR_OK);
	ck_assert_ptr_eq(p, a);

	/* A PD of another context. */
	ctx2 = emu_context_open(dev);
	ck_assert_ptr_nonnull(ctx2);
	foreign = emu_pd_alloc(ctx2);
	ck_assert_ptr_nonnull(foreign);
	ck_assert_int_eq(emu_mr_reregister(mr, IBV_REREG_MR_CHANGE_PD,
					   foreign, NULL, 0, 0),
			 EINVAL);
	ck_assert_int_eq(emu_mr_reregister(mr, IBV_REREG_MR_CHANGE_PD, NULL,
					   NULL, 0, 0),
			 EINVAL);
	ck_assert_uint_eq(atomic_load(&foreign->users), 0);

	/* A failed change leaves the MR registered with dead keys. */
	ck_assert_int_eq(emu_mr_reregister(mr, IBV_REREG_MR_CHANGE_ACCESS,
					   NULL, NULL, 0, 0),
			 0);
	l = mr->ibv.lkey;
	ck_assert_ptr_eq(emu_mr_lookup_lkey(dev, l), mr);
	ck_assert_int_eq(emu_mr_reregister(mr,
					   IBV_REREG_MR_CHANGE_TRANSLATION,
					   NULL, ro, 8, 0),
			 0);
	ck_assert_int_eq(emu_mr_reregister(mr, IBV_REREG_MR_CHANGE_ACCESS,
					   NULL, NULL, 0,
					   IBV_ACCESS_LOCAL_WRITE),
			 EFAULT);
	l = mr->ibv.lkey;
	ck_assert_ptr_null(emu_mr_lookup_lkey(dev, l));
	ck_assert_int_eq(emu_mr_reregister(mr,
					   IBV_REREG_MR_CHANGE_TRANSLATION,
					   NULL, NULL, 8, 0),
			 EFAULT);
	ck_assert_int_eq(emu_mr_reregister(mr,
					   IBV_REREG_MR_CHANGE_TRANSLATION,
					   NULL, a, UINT64_MAX, 0),
			 EINVAL);
	/* ... and a later good change brings it back. */
	ck_assert_int_eq(emu_mr_reregister(mr,
					   IBV_REREG_MR_CHANGE_TRANSLATION,
					   NULL, a, 8, 0),
			 0);
	ck_assert_ptr_eq(emu_mr_lookup_lkey(dev, mr->ibv.lkey), mr);
	ck_assert_uint_eq(atomic_load(&pd->users), 1);
	emu_mr_deregister(mr);
	ck_assert_uint_eq(atomic_load(&pd->users), 0);
	ck_assert_int_eq(emu_pd_free(pd2), 0);
	ck_assert_int_eq(emu_pd_free(foreign), 0);
	emu_context_close(ctx2);
	teardown_dev();
}
END_TEST

/* ---- PDs, AHs, counts ------------------------------------------------- */

START_TEST(t_pd_counts)
{
	struct emu_pd *p[3];
	struct emu_mr *mr;
	uint8_t *buf;
	int i;

	setup_dev(16);	/* max_pd 4, one taken by the fixture */
	buf = map_pages(1, PROT_READ | PROT_WRITE);
	emu_test_fail_calloc(1);
	errno = 0;
	ck_assert_ptr_null(emu_pd_alloc(ctx));
	emu_test_fail_calloc(0);
	ck_assert_int_eq(errno, ENOMEM);
	for (i = 0; i < 3; i++) {
		p[i] = emu_pd_alloc(ctx);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_ptr_eq(p[i]->ctx, ctx);
		ck_assert_ptr_eq(p[i]->ibv.context, &ctx->vctx.context);
		ck_assert_uint_ne(p[i]->ibv.handle, pd->ibv.handle);
	}
	ck_assert_uint_ne(p[0]->ibv.handle, p[1]->ibv.handle);
	errno = 0;
	ck_assert_ptr_null(emu_pd_alloc(ctx));
	ck_assert_int_eq(errno, ENOMEM);

	mr = NULL;
	ck_assert_int_eq(emu_mr_register(p[0], buf, 8, 0, 0, &mr), 0);
	ck_assert_int_eq(emu_pd_free(p[0]), EBUSY);
	emu_mr_deregister(mr);
	ck_assert_int_eq(emu_pd_free(p[0]), 0);
	p[0] = emu_pd_alloc(ctx);
	ck_assert_ptr_nonnull(p[0]);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(emu_pd_free(p[i]), 0);
	teardown_dev();
}
END_TEST

START_TEST(t_ah_counts)
{
	struct ibv_ah_attr attr;
	struct ibv_gid_entry e;
	struct emu_ah *a[2], *x = NULL;

	setup_dev(16);	/* max_ah 2 */
	ck_assert_int_eq(emu_gid_table_query(&dev->ports[0].gids, 0, &e), 0);
	memset(&attr, 0, sizeof(attr));
	attr.is_global = 1;
	attr.port_num = 1;
	attr.grh.dgid = e.gid;
	emu_test_fail_calloc(1);
	ck_assert_int_eq(emu_ah_create(pd, &attr, &x), ENOMEM);
	emu_test_fail_calloc(0);
	ck_assert_ptr_null(x);
	ck_assert_uint_eq(atomic_load(&pd->users), 0);
	ck_assert_int_eq(emu_ah_create(pd, &attr, &a[0]), 0);
	ck_assert_int_eq(emu_ah_create(pd, &attr, &a[1]), 0);
	ck_assert_int_eq(emu_ah_create(pd, &attr, &x), ENOMEM);
	ck_assert_ptr_null(x);
	ck_assert_uint_eq(atomic_load(&pd->users), 2);
	ck_assert_int_eq(emu_pd_free(pd), EBUSY);
	ck_assert_mem_eq(&a[0]->dest, e.gid.raw, 16);
	ck_assert_uint_eq(a[0]->port_num, 1);
	ck_assert_ptr_eq(a[0]->pd, pd);
	emu_ah_destroy(a[0]);
	ck_assert_int_eq(emu_ah_create(pd, &attr, &a[0]), 0);
	emu_ah_destroy(a[0]);
	emu_ah_destroy(a[1]);
	ck_assert_uint_eq(atomic_load(&pd->users), 0);
	teardown_dev();
}
END_TEST

/* ---- deregistration against the engine -------------------------------- */

#define NKEYS 8

struct hammer {
	_Atomic uint32_t keys[NKEYS];
	atomic_uint runs, hits;
	struct emu_pd *pd;
};

/* On the engine thread, as the transport will: resolve every published
 * key and touch the memory and the region it names. */
static void hammer_cb(void *arg)
{
	struct hammer *h = arg;
	struct emu_mr *mr;
	uint8_t *p;
	int i, round;

	for (round = 0; round < 50; round++) {
		for (i = 0; i < NKEYS; i++) {
			uint32_t k = atomic_load(&h->keys[i]);

			if (emu_mr_resolve_key(dev, k, 1, h->pd, 0, 8,
					       IBV_ACCESS_REMOTE_READ,
					       &p) != EMU_MR_OK)
				continue;
			mr = emu_mr_lookup_rkey(dev, k);
			if (mr && p[0] == 0x5a && mr->length == 64)
				atomic_fetch_add(&h->hits, 1);
		}
	}
	atomic_fetch_add(&h->runs, 1);
}

START_TEST(t_dereg_vs_engine)
{
	static struct hammer h;
	struct emu_doorbell *db;
	struct emu_mr *mr[NKEYS] = { 0 };
	uint8_t *buf[NKEYS];
	int i, n;

	setup_dev(64);
	h.pd = pd;
	db = emu_engine_doorbell(dev->engine, hammer_cb, &h);
	ck_assert_ptr_nonnull(db);
	for (i = 0; i < NKEYS; i++) {
		/* Each region its own heap block, so that a freed one is
		 * poisoned under ASan if the engine still reads it. */
		buf[i] = malloc(64);
		ck_assert_ptr_nonnull(buf[i]);
		memset(buf[i], 0x5a, 64);
	}
	for (n = 0; n < 3000; n++) {
		i = n % NKEYS;
		if (mr[i]) {
			if (n % 3 == 0) {
				ck_assert_int_eq(emu_mr_reregister(
						mr[i],
						IBV_REREG_MR_CHANGE_ACCESS,
						NULL, NULL, 0,
						IBV_ACCESS_REMOTE_READ),
						 0);
				atomic_store(&h.keys[i], mr[i]->ibv.rkey);
				emu_doorbell_ring(db);
				continue;
			}
			emu_mr_deregister(mr[i]);
			mr[i] = NULL;
		}
		mr[i] = reg(buf[i], 64, 0, IBV_ACCESS_REMOTE_READ |
					     IBV_ACCESS_ZERO_BASED);
		atomic_store(&h.keys[i], mr[i]->ibv.rkey);
		emu_doorbell_ring(db);
	}
	/* Let the engine finish a last pass over live regions. */
	for (i = 0; i < 200 && !atomic_load(&h.hits); i++)
		usleep(1000);
	for (i = 0; i < NKEYS; i++)
		if (mr[i])
			emu_mr_deregister(mr[i]);
	emu_doorbell_free(db);
	ck_assert_uint_gt(atomic_load(&h.runs), 0);
	ck_assert_uint_gt(atomic_load(&h.hits), 0);
	for (i = 0; i < NKEYS; i++)
		free(buf[i]);
	teardown_dev();
}
END_TEST

/* Without an open context there is no engine: deregistration unpublishes
 * directly. */
START_TEST(t_no_engine)
{
	struct emu_context fake;
	struct emu_pd *p;
	struct emu_mr *mr = NULL;
	uint8_t *buf;

	setup_dev(4);
	memset(&fake, 0, sizeof(fake));
	fake.dev = dev;
	buf = map_pages(1, PROT_READ | PROT_WRITE);
	p = emu_pd_alloc(&fake);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(emu_pd_free(pd), 0);
	emu_context_close(ctx);
	ck_assert_ptr_null(dev->engine);
	ck_assert_int_eq(emu_mr_register(p, buf, 8, 0, 0, &mr), 0);
	ck_assert_ptr_eq(emu_mr_lookup_lkey(dev, mr->ibv.lkey), mr);
	ck_assert_int_eq(emu_mr_reregister(mr, IBV_REREG_MR_CHANGE_ACCESS,
					   NULL, NULL, 0,
					   IBV_ACCESS_LOCAL_WRITE),
			 0);
	emu_mr_deregister(mr);
	ck_assert_int_eq(emu_pd_free(p), 0);
	emu_mr_table_destroy(dev);
	emu_device_destroy(dev);
}
END_TEST

static Suite *mr_suite(void)
{
	Suite *s = suite_create("mr");
	TCase *t = tcase_create("table");
	TCase *k = tcase_create("keys");
	TCase *r = tcase_create("resolve");
	TCase *g = tcase_create("register");
	TCase *o = tcase_create("objects");

	tcase_add_test(t, t_table);
	tcase_add_test(t, t_max_mr_capped);
	suite_add_tcase(s, t);
	tcase_add_test(k, t_keys_unique);
	tcase_add_test(k, t_stale_key);
	tcase_add_test(k, t_slot_reuse_order);
	suite_add_tcase(s, k);
	tcase_add_test(r, t_resolve_bounds);
	tcase_add_test(r, t_resolve_top_of_iova_space);
	tcase_add_test(r, t_resolve_pd_and_rights);
	suite_add_tcase(s, r);
	tcase_add_test(g, t_register_ranges);
	tcase_add_test(g, t_register_unmapped);
	tcase_add_test(g, t_register_large);
	tcase_add_test(g, t_max_mr_and_enomem);
	tcase_add_test(g, t_reregister);
	suite_add_tcase(s, g);
	tcase_add_test(o, t_pd_counts);
	tcase_add_test(o, t_ah_counts);
	tcase_add_test(o, t_dereg_vs_engine);
	tcase_add_test(o, t_no_engine);
	suite_add_tcase(s, o);
	return s;
}

int main(void)
{
	emu_init();
	return emu_test_run(mr_suite());
}
