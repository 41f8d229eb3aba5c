/* Unit tests for the emulated InfiniBand subnet (emu/device/subnet.c): LIDs from
 * the registry (the lowest free, a static one, one taken), entries of
 * dead processes dropped, leaving, routes from the config and the
 * registry and back (lid_of), a LID that moved to another address, the
 * GUID GIDs and where they lead, and the
 * allocation failure of a join. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "emu/observe/ctl.h"
#include "emu/device/device.h"
#include "emu/device/subnet.h"
#include "tests/unit/testlib.h"

static char registry[300];

/* A device with one InfiniBand port at the IPv4 address a. */
static struct emu_device *ib_dev(const char *a)
{
	struct emu_device *dev = calloc(1, sizeof(*dev));
	struct emu_port *p;

	ck_assert_ptr_nonnull(dev);
	snprintf(dev->cfg.name, sizeof(dev->cfg.name), "emu9");
	dev->nports = 1;
	p = &dev->ports[0];
	p->dev = dev;
	p->num = 1;
	p->cfg.link_layer = IBV_LINK_LAYER_INFINIBAND;
	pthread_mutex_init(&p->sn.lock, NULL);
	p->ep.addr.s6_addr[10] = 0xff;
	p->ep.addr.s6_addr[11] = 0xff;
	ck_assert_int_eq(inet_pton(AF_INET, a, &p->ep.addr.s6_addr[12]), 1);
	return dev;
}

static void setup(void)
{
	char dir[256];

	ck_assert_int_eq(emu_ctl_dir(dir, sizeof(dir)), 0);
	snprintf(registry, sizeof(registry), "%s/ib-subnet", dir);
	unlink(registry);
}

static int join(struct emu_device *dev)
{
	return emu_subnet_join(&dev->ports[0], stderr);
}

static struct in6_addr v4(const char *a)
{
	struct in6_addr x = { 0 };

	x.s6_addr[10] = 0xff;
	x.s6_addr[11] = 0xff;
	ck_assert_int_eq(inet_pton(AF_INET, a, &x.s6_addr[12]), 1);
	return x;
}

START_TEST(t_join_lowest_free)
{
	struct emu_device *a = ib_dev("127.5.0.1"), *b = ib_dev("127.5.0.2");
	struct emu_device *c = ib_dev("127.5.0.3");
	char line[200];
	FILE *f;

	ck_assert_int_eq(join(a), 0);
	ck_assert_int_eq(join(b), 0);
	ck_assert_uint_eq(a->ports[0].lid, 2);	/* 1 is the SM's */
	ck_assert_uint_eq(b->ports[0].lid, 3);
	f = fopen(registry, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_msg(!strncmp(line, "2 ::ffff:127.5.0.1 ", 19), "%s", line);
	fclose(f);
	/* A leaves; C takes the hole. */
	emu_subnet_leave(&a->ports[0]);
	ck_assert_int_eq(join(c), 0);
	ck_assert_uint_eq(c->ports[0].lid, 2);
	/* The same address joining again replaces its old entry. */
	ck_assert_int_eq(join(b), 0);
	ck_assert_uint_eq(b->ports[0].lid, 3);
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(t_static_lid)
{
	struct emu_device *a = ib_dev("127.5.0.1"), *b = ib_dev("127.5.0.2");
	char *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);

	a->ports[0].cfg.lid = 7;
	b->ports[0].cfg.lid = 7;
	ck_assert_int_eq(join(a), 0);
	ck_assert_uint_eq(a->ports[0].lid, 7);
	ck_assert_int_eq(emu_subnet_join(&b->ports[0], err), EADDRINUSE);
	fclose(err);
	ck_assert_msg(strstr(text, "emu9 port 1: lid 7 is taken by process"),
		      "%s", text);
	free(text);
	/* A LID the config routes elsewhere is not handed out. */
	b->ports[0].cfg.lid = 0;
	b->ports[0].cfg.n_routes = 1;
	b->ports[0].cfg.routes[0].lid = 2;
	b->ports[0].cfg.routes[0].addr = v4("10.0.0.9");
	ck_assert_int_eq(join(b), 0);
	ck_assert_uint_eq(b->ports[0].lid, 3);
	free(a);
	free(b);
}
END_TEST

/* Entries of processes that are gone are dropped at the next join. */
START_TEST(t_dead_dropped)
{
	struct emu_device *a = ib_dev("127.5.0.1");
	struct in6_addr x, want;
	FILE *f = fopen(registry, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "2 ::ffff:127.6.0.1 99999999\n"
		   "garbage line\n"
		   "3 ::ffff:127.6.0.2 %d\n", (int)getpid());
	fclose(f);
	ck_assert_int_eq(join(a), 0);
	ck_assert_uint_eq(a->ports[0].lid, 2);
	/* The live one stays: LID 3 still routes. */
	ck_assert(emu_subnet_route(&a->ports[0], 3, &x));
	want = v4("127.6.0.2");
	ck_assert(!memcmp(&x, &want, sizeof(x)));
	free(a);
}
END_TEST

START_TEST(t_routes)
{
	struct emu_device *a = ib_dev("127.5.0.1"), *b = ib_dev("127.5.0.2");
	struct emu_port *p = &a->ports[0];
	struct in6_addr x, want;

	p->cfg.n_routes = 1;
	p->cfg.routes[0].lid = 40;
	p->cfg.routes[0].addr = v4("10.0.0.40");
	ck_assert_int_eq(join(a), 0);
	ck_assert(!emu_subnet_route(p, 3, &x));		/* nobody yet */
	ck_assert_int_eq(join(b), 0);
	usleep(60000);		/* past the re-read interval */
	ck_assert(emu_subnet_route(p, 3, &x));
	want = v4("127.5.0.2");
	ck_assert(!memcmp(&x, &want, sizeof(x)));
	ck_assert(emu_subnet_route(p, 40, &x));
	want = v4("10.0.0.40");
	ck_assert(!memcmp(&x, &want, sizeof(x)));
	ck_assert(emu_subnet_route(p, 2, &x));		/* its own */
	ck_assert_uint_eq(emu_subnet_lid_of(p, &b->ports[0].ep.addr), 3);
	ck_assert_uint_eq(emu_subnet_lid_of(p, &want), 40);
	want = v4("10.9.9.9");
	ck_assert_uint_eq(emu_subnet_lid_of(p, &want), 0);
	free(a);
	free(b);
}
END_TEST

/* A peer that closes its device and opens it again at another address
 * (its old one taken meanwhile) gets its LID back: a path set up after
 * that leads to the new address although the old route is remembered
 * and was read moments ago; a packet's own lookup keeps the cache. */
START_TEST(t_moved_lid)
{
	struct emu_device *a = ib_dev("127.5.0.1"), *b = ib_dev("127.5.0.2"),
			  *b2 = ib_dev("127.5.0.3");
	struct ibv_ah_attr ah = { .dlid = 3 };
	struct in6_addr x, src, want;

	ck_assert_int_eq(join(a), 0);
	ck_assert_int_eq(join(b), 0);
	ck_assert(emu_subnet_path(&a->ports[0], &ah, &x, &src, true));
	want = v4("127.5.0.2");
	ck_assert(!memcmp(&x, &want, sizeof(x)));
	emu_subnet_leave(&b->ports[0]);
	ck_assert_int_eq(join(b2), 0);
	ck_assert_uint_eq(b2->ports[0].lid, 3);
	ck_assert(emu_subnet_route(&a->ports[0], 3, &x));
	ck_assert(!memcmp(&x, &want, sizeof(x)));	/* remembered */
	ck_assert(emu_subnet_path(&a->ports[0], &ah, &x, &src, true));
	want = v4("127.5.0.3");
	ck_assert(!memcmp(&x, &want, sizeof(x)));
	free(a);
	free(b);
	free(b2);
}
END_TEST

START_TEST(t_gids)
{
	struct emu_device *a = ib_dev("127.5.0.9");
	struct ibv_ah_attr ah = { .is_global = 1 };
	struct in6_addr x, src, want = v4("127.5.0.9");
	uint8_t gid[16], other[16] = { 0xfe, 0x80, [15] = 1 };

	emu_subnet_port_gid(&a->ports[0], gid);
	ck_assert_uint_eq(gid[0], 0xfe);
	ck_assert_uint_eq(gid[1], 0x80);
	ck_assert_uint_eq(gid[8], 0x02);
	ck_assert(emu_subnet_gid_addr(gid, &x));
	ck_assert(!memcmp(&x, &want, sizeof(x)));
	ck_assert(emu_subnet_gid_addr(want.s6_addr, &x));	/* RoCE GID */
	ck_assert(!emu_subnet_gid_addr(other, &x));
	/* A path by GRH, and one by a LID nobody has: dest zeroed. */
	memcpy(ah.grh.dgid.raw, gid, 16);
	ck_assert(emu_subnet_path(&a->ports[0], &ah, &x, &src, false));
	ck_assert(!memcmp(&x, &want, sizeof(x)));
	ah.is_global = 0;
	ah.dlid = 999;
	ck_assert(!emu_subnet_path(&a->ports[0], &ah, &x, &src, true));
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&x));
	free(a);
}
END_TEST

START_TEST(t_join_no_memory)
{
	struct emu_device *a = ib_dev("127.5.0.1");

	emu_test_fail_calloc(1);
	ck_assert_int_eq(join(a), ENOMEM);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert(!a->ports[0].sn.joined);
	ck_assert_int_eq(join(a), 0);
	free(a);
}
END_TEST

static Suite *subnet_suite(void)
{
	Suite *s = suite_create("subnet");
	TCase *tc = tcase_create("subnet");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, t_join_lowest_free);
	tcase_add_test(tc, t_static_lid);
	tcase_add_test(tc, t_dead_dropped);
	tcase_add_test(tc, t_routes);
	tcase_add_test(tc, t_moved_lid);
	tcase_add_test(tc, t_gids);
	tcase_add_test(tc, t_join_no_memory);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(subnet_suite());
}
