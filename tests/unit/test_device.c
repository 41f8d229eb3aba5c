/* Unit tests for the emulated device (emu/device/device.c, emu/objects/attr.c): creation
 * from a config, endpoints and GIDs, GUIDs, attributes, contexts, events. */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/resource.h>

#include <check.h>

#include "emu/emu.h"
#include "emu/device/device.h"
#include "tests/unit/testlib.h"

#define GUID_PREFIX 0x02656d7500000000ull

/* ---- helpers ---------------------------------------------------------- */

static struct emu_device_config cfg_default(const char *name)
{
	struct emu_device_config c;

	emu_device_config_default(&c, name);
	return c;
}

/* errf capture: everything the code under test reports. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static void cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	ck_assert_ptr_nonnull(c->f);
}

/* Closes the stream; the text stays in c->buf until cap_free. */
static const char *cap_text(struct capture *c)
{
	if (c->f) {
		fclose(c->f);
		c->f = NULL;
	}
	return c->buf ? c->buf : "";
}

static void cap_free(struct capture *c)
{
	cap_text(c);
	free(c->buf);
	c->buf = NULL;
}

/* Exactly one line, containing want. */
static void expect_one_line(struct capture *c, const char *want)
{
	const char *t = cap_text(c);
	const char *nl = strchr(t, '\n');

	ck_assert_msg(nl && nl[1] == '\0', "not one line: \"%s\"", t);
	ck_assert_msg(strstr(t, want), "\"%s\" lacks \"%s\"", t, want);
}

static unsigned int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A 127.0.0.x:4791 nobody holds right now (claims start at 127.1.0.1). */
static struct in6_addr free_explicit_addr(void)
{
	struct emu_endpoint ep = {.fd = -1};
	struct in6_addr a;
	unsigned int i;

	for (i = 0; i < 200; i++) {
		emu_addr_from_ipv4(&a,
				   0x7f000000u | (2 + (getpid() + i) % 250));
		if (!emu_endpoint_bind_addr(&ep, &a, EMU_ROCE_UDP_PORT)) {
			emu_endpoint_close(&ep);
			return a;
		}
	}
	ck_abort_msg("no free 127.0.0.x:4791");
	return a;
}

static struct emu_device *create_ok(const struct emu_device_config *cfg,
				    unsigned int index)
{
	struct capture c;
	struct emu_device *dev;

	cap_open(&c);
	dev = emu_device_create(cfg, index, c.f);
	ck_assert_msg(dev, "create failed: %s", cap_text(&c));
	ck_assert_str_eq(cap_text(&c), "");
	cap_free(&c);
	return dev;
}

static void expect_gid(struct emu_port *port, uint32_t idx,
		       const struct in6_addr *a, uint32_t type)
{
	struct ibv_gid_entry e;

	ck_assert_int_eq(emu_gid_table_query(&port->gids, idx, &e), 0);
	ck_assert_mem_eq(e.gid.raw, a->s6_addr, 16);
	ck_assert_uint_eq(e.gid_index, idx);
	ck_assert_uint_eq(e.port_num, port->num);
	ck_assert_uint_eq(e.gid_type, type);
	ck_assert_uint_eq(e.ndev_ifindex, port->ndev_ifindex);
}

static void set_nonblock(int fd)
{
	ck_assert_int_eq(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK),
			 0);
}

/* Exactly one event of this type and port is queued, then nothing. */
static void expect_event(struct emu_context *ctx, enum ibv_event_type t,
			 int port)
{
	struct ibv_async_event ev;

	ck_assert_int_eq(emu_async_pop(&ctx->async, &ev), 0);
	ck_assert_int_eq(ev.event_type, t);
	ck_assert_int_eq(ev.element.port_num, port);
}

static void expect_no_event(struct emu_context *ctx)
{
	struct ibv_async_event ev;

	errno = 0;
	ck_assert_int_eq(emu_async_pop(&ctx->async, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
}

static uint32_t ipv4_of(const struct in6_addr *a)
{
	return ntohl(a->s6_addr32[3]);
}

/* ---- creation, endpoints, GIDs ---------------------------------------- */

START_TEST(t_create_default)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev = create_ok(&cfg, 3);
	struct emu_port *port = emu_device_port(dev, 1);
	struct ibv_gid_entry e;

	ck_assert_ptr_eq(port, &dev->ports[0]);
	ck_assert_ptr_null(emu_device_port(dev, 0));
	ck_assert_ptr_null(emu_device_port(dev, 2));
	ck_assert_ptr_null(emu_device_port(NULL, 1));
	ck_assert_uint_eq(dev->nports, 1);
	ck_assert_uint_eq(dev->index, 3);
	ck_assert_str_eq(dev->ibdev.name, "emut");
	ck_assert_str_eq(dev->ibdev.dev_name, "uverbs3");
	ck_assert_str_eq(dev->ibdev.dev_path,
			 "/sys/class/infiniband_verbs/uverbs3");
	ck_assert_str_eq(dev->ibdev.ibdev_path, "/sys/class/infiniband/emut");
	ck_assert_int_eq(dev->ibdev.node_type, IBV_NODE_CA);
	ck_assert_int_eq(dev->ibdev.transport_type, IBV_TRANSPORT_IB);
	ck_assert_ptr_null(dev->engine);
	ck_assert_uint_eq(dev->open_count, 0);

	ck_assert_uint_eq(port->num, 1);
	ck_assert_ptr_eq(port->dev, dev);
	ck_assert_int_ge(port->ep.fd, 0);
	ck_assert(emu_addr_is_v4mapped(&port->ep.addr));
	ck_assert_uint_eq(port->ep.addr.s6_addr[12], 127);
	ck_assert_uint_ne(port->ndev_ifindex, 0);
	ck_assert_uint_eq(port->ndev_ifindex, if_nametoindex("lo"));
	ck_assert_int_eq(port->state, IBV_PORT_ACTIVE);

	/* 0: RoCEv2 ::ffff:127.x.y.z; 1: its RoCEv1 twin; the rest empty. */
	expect_gid(port, 0, &port->ep.addr, IBV_GID_TYPE_ROCE_V2);
	expect_gid(port, 1, &port->ep.addr, IBV_GID_TYPE_ROCE_V1);
	ck_assert_int_eq(emu_gid_table_count(&port->gids), 2);
	ck_assert_int_eq(emu_gid_table_query(&port->gids, 2, &e), ENODATA);
	ck_assert_int_eq(emu_gid_table_query(&port->gids,
					     EMU_DEFAULT_GID_TBL_LEN - 1, &e),
			 ENODATA);
	ck_assert_int_eq(emu_gid_table_query(&port->gids,
					     EMU_DEFAULT_GID_TBL_LEN, &e),
			 EINVAL);
	emu_device_destroy(dev);
	emu_device_destroy(NULL);
}
END_TEST

START_TEST(t_ports_distinct)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev, *dev2;
	uint32_t i, j;

	cfg.nports = EMU_MAX_PORTS;
	dev = create_ok(&cfg, 0);
	dev2 = create_ok(&cfg, 1);
	ck_assert_uint_eq(dev->nports, EMU_MAX_PORTS);
	for (i = 1; i <= EMU_MAX_PORTS; i++) {
		struct emu_port *p = emu_device_port(dev, i);

		ck_assert_uint_eq(p->num, i);
		ck_assert_uint_eq(p->gids.port_num, i);
		expect_gid(p, 0, &p->ep.addr, IBV_GID_TYPE_ROCE_V2);
		expect_gid(p, 1, &p->ep.addr, IBV_GID_TYPE_ROCE_V1);
		for (j = 1; j <= EMU_MAX_PORTS; j++) {
			struct emu_port *q = emu_device_port(dev2, j);

			ck_assert(memcmp(&p->ep.addr, &q->ep.addr, 16));
			if (j == i)
				continue;
			q = emu_device_port(dev, j);
			ck_assert(memcmp(&p->ep.addr, &q->ep.addr, 16));
			ck_assert_int_ne(p->ep.fd, q->ep.fd);
		}
	}
	ck_assert_ptr_null(emu_device_port(dev, EMU_MAX_PORTS + 1));
	/* Different hosts, different node GUIDs. */
	ck_assert(dev->node_guid != dev2->node_guid);
	emu_device_destroy(dev);
	emu_device_destroy(dev2);
}
END_TEST

START_TEST(t_explicit_address)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev;
	struct in6_addr a = free_explicit_addr();

	cfg.ports[0].has_address = true;
	cfg.ports[0].address = a;
	dev = create_ok(&cfg, 0);
	ck_assert_mem_eq(&dev->ports[0].ep.addr, &a, 16);
	ck_assert_uint_eq(dev->ports[0].ndev_ifindex, if_nametoindex("lo"));
	expect_gid(&dev->ports[0], 0, &a, IBV_GID_TYPE_ROCE_V2);
	expect_gid(&dev->ports[0], 1, &a, IBV_GID_TYPE_ROCE_V1);
	ck_assert_uint_eq(dev->node_guid, GUID_PREFIX | ipv4_of(&a));
	emu_device_destroy(dev);
}
END_TEST

START_TEST(t_taken_address)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_endpoint holder = {.fd = -1};
	struct in6_addr a = free_explicit_addr();
	struct capture c;
	unsigned int fds;

	ck_assert_int_eq(emu_endpoint_bind_addr(&holder, &a, EMU_ROCE_UDP_PORT),
			 0);
	cfg.ports[0].has_address = true;
	cfg.ports[0].address = a;
	fds = open_fds();
	cap_open(&c);
	ck_assert_ptr_null(emu_device_create(&cfg, 0, c.f));
	expect_one_line(&c, "emut");
	expect_one_line(&c, "port 1");
	expect_one_line(&c, strerror(EADDRINUSE));
	cap_free(&c);
	ck_assert_uint_eq(open_fds(), fds);

	/* The failing port is the last: the earlier ones are undone. */
	cfg = cfg_default("emut");
	cfg.nports = 3;
	cfg.ports[2].has_address = true;
	cfg.ports[2].address = a;
	cap_open(&c);
	ck_assert_ptr_null(emu_device_create(&cfg, 0, c.f));
	expect_one_line(&c, "port 3");
	cap_free(&c);
	ck_assert_uint_eq(open_fds(), fds);

	/* A NULL errf is allowed: fail quietly. */
	ck_assert_ptr_null(emu_device_create(&cfg, 0, NULL));
	emu_endpoint_close(&holder);
}
END_TEST

START_TEST(t_nonlocal_address)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct capture c;

	cfg.ports[0].has_address = true;
	emu_addr_from_ipv4(&cfg.ports[0].address, 0xc0000201u); /* 192.0.2.1 */
	cap_open(&c);
	ck_assert_ptr_null(emu_device_create(&cfg, 0, c.f));
	expect_one_line(&c, strerror(EADDRNOTAVAIL));
	cap_free(&c);
}
END_TEST

/* ::1 for the endpoint: still a GID pair and a node GUID with our prefix. */
START_TEST(t_ipv6_address)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev = NULL;
	uint64_t guid0;
	int i;

	cfg.ports[0].has_address = true;
	cfg.ports[0].address = in6addr_loopback;
	/* ::1 is one address for the whole machine: wait for concurrent
	 * tests that may hold it. */
	for (i = 0; i < 100 && !dev; i++) {
		dev = emu_device_create(&cfg, 0, NULL);
		if (!dev)
			usleep(50000);
	}
	ck_assert_ptr_nonnull(dev);
	ck_assert_mem_eq(&dev->ports[0].ep.addr, &in6addr_loopback, 16);
	ck_assert_uint_eq(dev->ports[0].ndev_ifindex, if_nametoindex("lo"));
	expect_gid(&dev->ports[0], 0, &in6addr_loopback, IBV_GID_TYPE_ROCE_V2);
	expect_gid(&dev->ports[0], 1, &in6addr_loopback, IBV_GID_TYPE_ROCE_V1);
	ck_assert_uint_eq(dev->node_guid >> 32, GUID_PREFIX >> 32);
	guid0 = dev->node_guid;
	emu_device_destroy(dev);
	dev = emu_device_create(&cfg, 1, NULL);
	ck_assert_ptr_nonnull(dev);
	ck_assert_uint_eq(dev->node_guid >> 32, GUID_PREFIX >> 32);
	ck_assert(dev->node_guid != guid0); /* the index goes in */
	emu_device_destroy(dev);
}
END_TEST

START_TEST(t_guid)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev = create_ok(&cfg, 0);
	struct ibv_device_attr attr;

	ck_assert_uint_eq(dev->node_guid,
			  GUID_PREFIX | ipv4_of(&dev->ports[0].ep.addr));
	ck_assert_uint_eq(dev->sys_image_guid, dev->node_guid);
	emu_device_fill_attr(dev, &attr);
	ck_assert_uint_eq(attr.node_guid, htobe64(dev->node_guid));
	ck_assert_uint_eq(attr.sys_image_guid, htobe64(dev->node_guid));
	emu_device_destroy(dev);

	cfg.node_guid = 0x1122334455667788ull;
	dev = create_ok(&cfg, 0);
	ck_assert_uint_eq(dev->node_guid, 0x1122334455667788ull);
	ck_assert_uint_eq(dev->sys_image_guid, 0x1122334455667788ull);
	emu_device_destroy(dev);

	cfg.sys_image_guid = 0xaabbccdd00000001ull;
	dev = create_ok(&cfg, 0);
	ck_assert_uint_eq(dev->node_guid, 0x1122334455667788ull);
	ck_assert_uint_eq(dev->sys_image_guid, 0xaabbccdd00000001ull);
	emu_device_fill_attr(dev, &attr);
	ck_assert_uint_eq(attr.node_guid, htobe64(0x1122334455667788ull));
	ck_assert_uint_eq(attr.sys_image_guid, htobe64(0xaabbccdd00000001ull));
	emu_device_destroy(dev);

	/* Only sys_image_guid given: node GUID still derived. */
	cfg.node_guid = 0;
	dev = create_ok(&cfg, 0);
	ck_assert_uint_eq(dev->node_guid,
			  GUID_PREFIX | ipv4_of(&dev->ports[0].ep.addr));
	ck_assert_uint_eq(dev->sys_image_guid, 0xaabbccdd00000001ull);
	emu_device_destroy(dev);
}
END_TEST

/* Static entries are pinned first; the endpoint's pair goes around them. */
START_TEST(t_static_gid)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_port_config *pc = &cfg.ports[0];
	struct emu_device *dev;
	struct ibv_gid_entry e;
	struct in6_addr s;

	ck_assert_int_eq(inet_pton(AF_INET6, "fe80::1", &s), 1);
	pc->n_static_gids = 1;
	pc->static_gids[0].index = 1;
	memcpy(pc->static_gids[0].raw, s.s6_addr, 16);
	pc->static_gids[0].type = IBV_GID_TYPE_ROCE_V1;
	dev = create_ok(&cfg, 0);
	ck_assert_int_eq(emu_gid_table_query(&dev->ports[0].gids, 1, &e), 0);
	ck_assert_mem_eq(e.gid.raw, s.s6_addr, 16);
	ck_assert_uint_eq(e.gid_type, IBV_GID_TYPE_ROCE_V1);
	ck_assert_int_eq(emu_gid_table_query(&dev->ports[0].gids, 0, &e),
			 ENODATA);
	expect_gid(&dev->ports[0], 2, &dev->ports[0].ep.addr,
		   IBV_GID_TYPE_ROCE_V2);
	expect_gid(&dev->ports[0], 3, &dev->ports[0].ep.addr,
		   IBV_GID_TYPE_ROCE_V1);
	emu_device_destroy(dev);
}
END_TEST

START_TEST(t_static_gid_bad_index)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_port_config *pc = &cfg.ports[1];
	struct capture c;
	unsigned int fds = open_fds();

	cfg.nports = 2;
	pc->n_static_gids = 1;
	pc->static_gids[0].index = pc->gid_tbl_len;
	pc->static_gids[0].raw[15] = 1;
	cap_open(&c);
	ck_assert_ptr_null(emu_device_create(&cfg, 0, c.f));
	expect_one_line(&c, "port 2");
	cap_free(&c);
	ck_assert_uint_eq(open_fds(), fds);
}
END_TEST

START_TEST(t_gid_tbl_len_bad)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct capture c;

	cfg.ports[0].gid_tbl_len = 0;
	cap_open(&c);
	ck_assert_ptr_null(emu_device_create(&cfg, 0, c.f));
	expect_one_line(&c, "port 1");
	cap_free(&c);
}
END_TEST

/*
 * Statics that leave no free pair for the endpoint's address: the port
 * would have no GID to be reached at. The config promises nothing is
 * silently dropped, so creation must fail with one line.
 * FAILS: emu/device/device.c port_setup_endpoint() ignores the result of
 * emu_gid_table_add_addr() (see the report).
 */
START_TEST(t_no_room_for_endpoint_gid)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_port_config *pc = &cfg.ports[0];
	struct emu_device *dev;
	struct capture c;

	pc->gid_tbl_len = 2;
	pc->n_static_gids = 1;
	pc->static_gids[0].index = 1;
	pc->static_gids[0].raw[15] = 1;
	pc->static_gids[0].type = IBV_GID_TYPE_ROCE_V2;
	cap_open(&c);
	dev = emu_device_create(&cfg, 0, c.f);
	if (dev)
		emu_device_destroy(dev);
	ck_assert_ptr_null(dev);
	expect_one_line(&c, "port 1");
	cap_free(&c);
}
END_TEST

/*
 * More ports than the device has room for must be refused, not written
 * past dev->ports[].
 * FAILS: emu/device/device.c emu_device_create() does not check cfg->nports
 * against EMU_MAX_PORTS (see the report).
 */
START_TEST(t_too_many_ports)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev;
	struct capture c;

	cfg.nports = EMU_MAX_PORTS + 1;
	cap_open(&c);
	dev = emu_device_create(&cfg, 0, c.f);
	ck_assert_ptr_null(dev);
	expect_one_line(&c, "emut");
	cap_free(&c);
}
END_TEST

START_TEST(t_create_enomem)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct capture c;
	unsigned int fds = open_fds();

	/* 1: the device itself. */
	cap_open(&c);
	emu_test_fail_calloc(1);
	ck_assert_ptr_null(emu_device_create(&cfg, 0, c.f));
	emu_test_fail_calloc(0);
	expect_one_line(&c, strerror(ENOMEM));
	cap_free(&c);

	/* 2: port 1's GID table; 3: port 2's, after port 1 is complete. */
	cfg.nports = 2;
	cap_open(&c);
	emu_test_fail_calloc(2);
	ck_assert_ptr_null(emu_device_create(&cfg, 0, c.f));
	emu_test_fail_calloc(0);
	expect_one_line(&c, "port 1");
	cap_free(&c);
	cap_open(&c);
	emu_test_fail_calloc(3);
	ck_assert_ptr_null(emu_device_create(&cfg, 0, c.f));
	emu_test_fail_calloc(0);
	expect_one_line(&c, "port 2");
	cap_free(&c);
	ck_assert_uint_eq(open_fds(), fds);
}
END_TEST

START_TEST(t_create_enomem_tables)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev;
	bool qp_seen = false, srq_seen = false;
	struct capture c;
	int n;

	/* Every allocation after port 1's (the key, QPN and SRQN tables)
	 * fails cleanly with one line, until there is none left to fail. */
	for (n = 3;; n++) {
		ck_assert_int_lt(n, 64);
		cap_open(&c);
		emu_test_fail_calloc(n);
		dev = emu_device_create(&cfg, 0, c.f);
		if (emu_test_alloc_armed()) {
			emu_test_fail_calloc(0);
			cap_free(&c);
			ck_assert_ptr_nonnull(dev);
			emu_device_destroy(dev);
			break;
		}
		ck_assert_ptr_null(dev);
		expect_one_line(&c, "emut");
		qp_seen |= strstr(cap_text(&c), "QP table") != NULL;
		srq_seen |= strstr(cap_text(&c), "SRQ table") != NULL;
		cap_free(&c);
	}
	ck_assert(qp_seen);
	ck_assert(srq_seen);
}
END_TEST

/* ---- attributes ------------------------------------------------------- */

START_TEST(t_device_attr)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_limits *l = &cfg.limits;
	struct ibv_device_attr a;
	struct ibv_device_attr_ex x;
	struct emu_device *dev;

	snprintf(cfg.fw_ver, sizeof(cfg.fw_ver), "1.2.3");
	cfg.vendor_id = 0x1234;
	cfg.vendor_part_id = 0x5678;
	cfg.hw_ver = 9;
	l->max_qp = 101;
	l->max_qp_wr = 102;
	l->max_sge = 103;
	l->max_sge_rd = 104;
	l->max_cq = 105;
	l->max_cqe = 106;
	l->max_mr = 107;
	l->max_pd = 108;
	l->max_ah = 109;
	l->max_mw = 110;
	l->max_mr_size = 1ull << 40;
	l->max_qp_rd_atom = 111;
	l->max_qp_init_rd_atom = 112;
	l->max_res_rd_atom = 113;
	l->max_srq = 114;
	l->max_srq_wr = 115;
	l->max_srq_sge = 116;
	l->max_mcast_grp = 117;
	l->max_mcast_qp_attach = 118;
	l->atomic_cap = IBV_ATOMIC_GLOB;
	cfg.nports = 3;
	cfg.ports[0].pkey_tbl_len = 4;
	dev = create_ok(&cfg, 0);

	memset(&a, 0x5a, sizeof(a));
	emu_device_fill_attr(dev, &a);
	ck_assert_str_eq(a.fw_ver, "1.2.3");
	ck_assert_uint_eq(a.vendor_id, 0x1234);
	ck_assert_uint_eq(a.vendor_part_id, 0x5678);
	ck_assert_uint_eq(a.hw_ver, 9);
	ck_assert_uint_eq(a.max_mr_size, 1ull << 40);
	ck_assert_int_eq(a.max_qp, 101);
	ck_assert_int_eq(a.max_qp_wr, 102);
	ck_assert_int_eq(a.max_sge, 103);
	ck_assert_int_eq(a.max_sge_rd, 104);
	ck_assert_int_eq(a.max_cq, 105);
	ck_assert_int_eq(a.max_cqe, 106);
	ck_assert_int_eq(a.max_mr, 107);
	ck_assert_int_eq(a.max_pd, 108);
	ck_assert_int_eq(a.max_ah, 109);
	ck_assert_int_eq(a.max_mw, 110);
	ck_assert_int_eq(a.max_qp_rd_atom, 111);
	ck_assert_int_eq(a.max_qp_init_rd_atom, 112);
	ck_assert_int_eq(a.max_res_rd_atom, 113);
	ck_assert_int_eq(a.max_srq, 114);
	ck_assert_int_eq(a.max_srq_wr, 115);
	ck_assert_int_eq(a.max_srq_sge, 116);
	ck_assert_int_eq(a.max_mcast_grp, 117);
	ck_assert_int_eq(a.max_mcast_qp_attach, 118);
	ck_assert_int_eq(a.max_total_mcast_qp_attach, 117 * 118);
	ck_assert_int_eq(a.atomic_cap, IBV_ATOMIC_GLOB);
	ck_assert_uint_eq(a.phys_port_cnt, 3);
	ck_assert_uint_eq(a.max_pkeys, 4);
	ck_assert_uint_eq(a.node_guid, htobe64(dev->node_guid));
	ck_assert(a.device_cap_flags & IBV_DEVICE_PORT_ACTIVE_EVENT);
	ck_assert(a.device_cap_flags & IBV_DEVICE_SYS_IMAGE_GUID);
	ck_assert_int_eq(a.max_ee, 0);
	ck_assert_int_eq(a.max_rdd, 0);
	ck_assert_int_eq(a.max_raw_ipv6_qp, 0);
	ck_assert_uint_ne(a.page_size_cap & 4096, 0);

	memset(&x, 0x5a, sizeof(x));
	emu_device_fill_attr_ex(dev, &x);
	ck_assert_mem_eq(&x.orig_attr, &a, sizeof(a));
	ck_assert_uint_eq(x.phys_port_cnt_ex, 3);
	ck_assert_uint_eq(x.comp_mask, 0);
	/* The clock, device memory and ODP (doc/features.md). */
	ck_assert_uint_eq(x.hca_core_clock, 1000000);
	ck_assert_uint_eq(x.completion_timestamp_mask, 0x7fffffffffffffffull);
	ck_assert_uint_eq(x.max_dm_size, 256 * 1024);
	ck_assert_uint_eq(x.odp_caps.general_caps,
			  IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT);
	emu_device_destroy(dev);
}
END_TEST

/*
 * Limits up to INT_MAX each are valid config (emu/device/config.c), so their
 * product must not wrap: it saturates at INT_MAX.
 * FAILS: emu/objects/attr.c multiplies in 32 bits (see the report).
 */
START_TEST(t_device_attr_mcast_overflow)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct ibv_device_attr a;
	struct emu_device *dev;

	cfg.limits.max_mcast_grp = 65536;
	cfg.limits.max_mcast_qp_attach = 65536;
	dev = create_ok(&cfg, 0);
	emu_device_fill_attr(dev, &a);
	ck_assert_int_eq(a.max_total_mcast_qp_attach, 2147483647);
	emu_device_destroy(dev);
}
END_TEST

static void port_attr(struct emu_device_config *cfg, struct ibv_port_attr *a)
{
	struct emu_device *dev = create_ok(cfg, 0);

	memset(a, 0x5a, sizeof(*a));
	emu_port_fill_attr(&dev->ports[0], a);
	emu_device_destroy(dev);
}

START_TEST(t_port_attr_default)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct ibv_port_attr a;

	port_attr(&cfg, &a);
	ck_assert_int_eq(a.state, IBV_PORT_ACTIVE);
	ck_assert_uint_eq(a.phys_state, 5);
	ck_assert_int_eq(a.max_mtu, IBV_MTU_4096);
	ck_assert_int_eq(a.active_mtu, IBV_MTU_4096);
	ck_assert_int_eq(a.gid_tbl_len, EMU_DEFAULT_GID_TBL_LEN);
	ck_assert_uint_eq(a.pkey_tbl_len, 1);
	ck_assert_uint_eq(a.link_layer, IBV_LINK_LAYER_ETHERNET);
	ck_assert(a.port_cap_flags & IBV_PORT_IP_BASED_GIDS);
	ck_assert(a.port_cap_flags & IBV_PORT_CM_SUP);
	ck_assert_uint_eq(a.flags, IBV_QPF_GRH_REQUIRED);
	ck_assert_uint_eq(a.lid, 0);
	ck_assert_uint_eq(a.sm_lid, 0);
	ck_assert_uint_eq(a.active_width, 2); /* 4x */
	ck_assert_uint_eq(a.active_speed, 32); /* EDR */
	ck_assert_uint_eq(a.active_speed_ex, 32);
	ck_assert_uint_eq(a.max_msg_sz, 0x80000000u);
	ck_assert_uint_eq(a.max_vl_num, 1);
	ck_assert_uint_eq(a.bad_pkey_cntr, 0);
	ck_assert_uint_eq(a.qkey_viol_cntr, 0);
	ck_assert_uint_eq(a.port_cap_flags2, 0);
}
END_TEST

START_TEST(t_port_attr_mtu)
{
	static const struct {
		uint32_t bytes;
		enum ibv_mtu mtu;
	} m[] = {{256, IBV_MTU_256},
		 {512, IBV_MTU_512},
		 {1024, IBV_MTU_1024},
		 {2048, IBV_MTU_2048},
		 {4096, IBV_MTU_4096}};
	struct emu_device_config cfg = cfg_default("emut");
	struct ibv_port_attr a;
	unsigned int i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		cfg.ports[0].mtu = m[i].bytes;
		port_attr(&cfg, &a);
		ck_assert_int_eq(a.max_mtu, m[i].mtu);
		ck_assert_int_eq(a.active_mtu, m[i].mtu);
	}
}
END_TEST

START_TEST(t_port_attr_speed_width)
{
	static const uint32_t speed_ex[EMU_SPEED_COUNT] = {
		[EMU_SPEED_SDR] = 1,   [EMU_SPEED_DDR] = 2,
		[EMU_SPEED_QDR] = 4,   [EMU_SPEED_FDR10] = 8,
		[EMU_SPEED_FDR] = 16,  [EMU_SPEED_EDR] = 32,
		[EMU_SPEED_HDR] = 64,  [EMU_SPEED_NDR] = 128,
		[EMU_SPEED_XDR] = 256,
	};
	static const uint8_t width[EMU_WIDTH_COUNT] = {
		[EMU_WIDTH_1X] = 1, [EMU_WIDTH_2X] = 16, [EMU_WIDTH_4X] = 2,
		[EMU_WIDTH_8X] = 4, [EMU_WIDTH_12X] = 8,
	};
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev;
	struct ibv_port_attr a;
	unsigned int s, w;

	cfg.nports = 1;
	dev = create_ok(&cfg, 0);
	for (s = 0; s < EMU_SPEED_COUNT; s++) {
		for (w = 0; w < EMU_WIDTH_COUNT; w++) {
			/* Attributes are read from the port's copy. */
			dev->ports[0].cfg.speed = (enum emu_speed)s;
			dev->ports[0].cfg.width = (enum emu_width)w;
			emu_port_fill_attr(&dev->ports[0], &a);
			ck_assert_uint_eq(a.active_speed_ex, speed_ex[s]);
			ck_assert_uint_eq(a.active_speed,
					  speed_ex[s] > 128 ? 128
							    : speed_ex[s]);
			ck_assert_uint_eq(a.active_width, width[w]);
		}
	}
	emu_device_destroy(dev);

	/* And from the config it was created with. */
	cfg.ports[0].speed = EMU_SPEED_HDR;
	cfg.ports[0].width = EMU_WIDTH_2X;
	port_attr(&cfg, &a);
	ck_assert_uint_eq(a.active_speed, 64);
	ck_assert_uint_eq(a.active_width, 16);
}
END_TEST

START_TEST(t_port_attr_config)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct ibv_port_attr a;

	cfg.ports[0].gid_tbl_len = 8;
	cfg.ports[0].pkey_tbl_len = 3;
	port_attr(&cfg, &a);
	ck_assert_int_eq(a.gid_tbl_len, 8);
	ck_assert_uint_eq(a.pkey_tbl_len, 3);

	cfg.ports[0].active = false;
	port_attr(&cfg, &a);
	ck_assert_int_eq(a.state, IBV_PORT_DOWN);
	ck_assert_uint_eq(a.phys_state, 3);
}
END_TEST

START_TEST(t_port_attr_ib)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev;
	struct ibv_port_attr a, b;

	cfg.nports = 2;
	cfg.ports[0].link_layer = IBV_LINK_LAYER_INFINIBAND;
	cfg.ports[1].link_layer = IBV_LINK_LAYER_INFINIBAND;
	dev = create_ok(&cfg, 0);
	emu_port_fill_attr(&dev->ports[0], &a);
	emu_port_fill_attr(&dev->ports[1], &b);
	ck_assert_uint_eq(a.link_layer, IBV_LINK_LAYER_INFINIBAND);
	ck_assert(!(a.port_cap_flags & IBV_PORT_IP_BASED_GIDS));
	ck_assert_uint_eq(a.flags, 0);
	ck_assert_uint_ne(a.lid, 0);
	ck_assert_uint_lt(a.lid, 0xc000); /* unicast LID range */
	ck_assert_uint_ne(b.lid, 0);
	ck_assert_uint_ne(a.lid, b.lid); /* distinct endpoints */
	ck_assert_uint_eq(a.sm_lid, 1);
	emu_device_destroy(dev);
}
END_TEST

/* ---- contexts and events ---------------------------------------------- */

START_TEST(t_context_open_close)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev = create_ok(&cfg, 0);
	struct emu_context *c1, *c2;
	struct emu_engine *eng;

	ck_assert_ptr_null(dev->engine);
	c1 = emu_context_open(dev);
	ck_assert_ptr_nonnull(c1);
	ck_assert_ptr_eq(c1->dev, dev);
	ck_assert_int_ge(c1->async.fd, 0);
	ck_assert_ptr_eq(emu_ctx(&c1->vctx.context), c1);
	eng = dev->engine;
	ck_assert_ptr_nonnull(eng);
	ck_assert_uint_eq(dev->open_count, 1);

	c2 = emu_context_open(dev);
	ck_assert_ptr_nonnull(c2);
	ck_assert_ptr_ne(c1, c2);
	ck_assert_int_ne(c1->async.fd, c2->async.fd);
	ck_assert_ptr_eq(dev->engine, eng); /* shared, not restarted */
	ck_assert_uint_eq(dev->open_count, 2);

	emu_context_close(c1);
	ck_assert_ptr_eq(dev->engine, eng);
	ck_assert_uint_eq(dev->open_count, 1);
	ck_assert_ptr_eq(dev->contexts, c2);
	ck_assert_ptr_null(c2->next);
	emu_context_close(c2);
	ck_assert_ptr_null(dev->engine);
	ck_assert_uint_eq(dev->open_count, 0);
	ck_assert_ptr_null(dev->contexts);

	/* And again from scratch. */
	c1 = emu_context_open(dev);
	ck_assert_ptr_nonnull(c1);
	ck_assert_ptr_nonnull(dev->engine);
	emu_context_close(c1);
	ck_assert_ptr_null(dev->engine);
	emu_device_destroy(dev);
}
END_TEST

START_TEST(t_context_open_errors)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev = create_ok(&cfg, 0);
	struct emu_context *c, *c2;
	unsigned int fds = open_fds();
	struct rlimit rl, saved;
	int lowest, err;

	/* 1: the context; 2: the engine, started by the first open. */
	emu_test_fail_calloc(1);
	errno = 0;
	ck_assert_ptr_null(emu_context_open(dev));
	ck_assert_int_eq(errno, ENOMEM);
	emu_test_fail_calloc(2);
	errno = 0;
	ck_assert_ptr_null(emu_context_open(dev));
	emu_test_fail_calloc(0);
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_ptr_null(dev->engine);
	ck_assert_uint_eq(dev->open_count, 0);
	ck_assert_ptr_null(dev->contexts);
	ck_assert_uint_eq(open_fds(), fds);

	/* No descriptor for the async eventfd. */
	c = emu_context_open(dev);
	ck_assert_ptr_nonnull(c);
	lowest = dup(0);
	ck_assert_int_ge(lowest, 0);
	close(lowest);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	rl = saved;
	rl.rlim_cur = (rlim_t)lowest;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	errno = 0;
	c2 = emu_context_open(dev);
	err = errno;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	ck_assert_ptr_null(c2);
	ck_assert_int_eq(err, EMFILE);
	ck_assert_uint_eq(dev->open_count, 1);
	ck_assert_ptr_eq(dev->contexts, c);

	/* Still works afterwards. */
	c2 = emu_context_open(dev);
	ck_assert_ptr_nonnull(c2);
	emu_context_close(c2);
	emu_context_close(c);
	ck_assert_ptr_null(dev->engine);
	emu_device_destroy(dev);
}
END_TEST

START_TEST(t_port_state_events)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev;
	struct emu_context *c[3];
	struct emu_port *p1, *p2;
	struct ibv_port_attr a;
	unsigned int i;

	cfg.nports = 2;
	dev = create_ok(&cfg, 0);
	p1 = emu_device_port(dev, 1);
	p2 = emu_device_port(dev, 2);
	for (i = 0; i < 3; i++) {
		c[i] = emu_context_open(dev);
		ck_assert_ptr_nonnull(c[i]);
		set_nonblock(c[i]->async.fd);
		expect_no_event(c[i]);
	}

	/* No-op: already ACTIVE. */
	ck_assert_int_eq(emu_port_set_state(p1, IBV_PORT_ACTIVE), 0);
	for (i = 0; i < 3; i++)
		expect_no_event(c[i]);

	ck_assert_int_eq(emu_port_set_state(p1, IBV_PORT_DOWN), 0);
	emu_port_fill_attr(p1, &a);
	ck_assert_int_eq(a.state, IBV_PORT_DOWN);
	ck_assert_uint_eq(a.phys_state, 3);
	ck_assert_int_eq(emu_port_set_state(p1, IBV_PORT_DOWN), 0);
	for (i = 0; i < 3; i++) {
		expect_event(c[i], IBV_EVENT_PORT_ERR, 1);
		expect_no_event(c[i]);
	}

	/* Bad states: EINVAL, nothing changes, nothing raised. */
	ck_assert_int_eq(emu_port_set_state(p1, IBV_PORT_INIT), EINVAL);
	ck_assert_int_eq(emu_port_set_state(p1, IBV_PORT_ARMED), EINVAL);
	ck_assert_int_eq(emu_port_set_state(p1, IBV_PORT_NOP), EINVAL);
	ck_assert_int_eq(emu_port_set_state(p1, IBV_PORT_ACTIVE_DEFER), EINVAL);
	ck_assert_int_eq(emu_port_set_state(p1, 42), EINVAL);
	ck_assert_int_eq(emu_port_set_state(p1, -1), EINVAL);
	ck_assert_int_eq(p1->state, IBV_PORT_DOWN);
	for (i = 0; i < 3; i++)
		expect_no_event(c[i]);

	/* A closed context hears nothing; the others hear it once. */
	emu_context_close(c[1]);
	ck_assert_int_eq(emu_port_set_state(p1, IBV_PORT_ACTIVE), 0);
	ck_assert_int_eq(emu_port_set_state(p1, IBV_PORT_ACTIVE), 0);
	emu_port_fill_attr(p1, &a);
	ck_assert_int_eq(a.state, IBV_PORT_ACTIVE);
	ck_assert_uint_eq(a.phys_state, 5);
	expect_event(c[0], IBV_EVENT_PORT_ACTIVE, 1);
	expect_no_event(c[0]);
	expect_event(c[2], IBV_EVENT_PORT_ACTIVE, 1);
	expect_no_event(c[2]);

	/* Port 2's events name port 2; port 1 is not touched. */
	ck_assert_int_eq(emu_port_set_state(p2, IBV_PORT_DOWN), 0);
	ck_assert_int_eq(emu_port_set_state(p2, IBV_PORT_ACTIVE), 0);
	expect_event(c[0], IBV_EVENT_PORT_ERR, 2);
	expect_event(c[0], IBV_EVENT_PORT_ACTIVE, 2);
	expect_no_event(c[0]);
	ck_assert_int_eq(p1->state, IBV_PORT_ACTIVE);

	emu_context_close(c[0]);
	emu_context_close(c[2]);
	emu_device_destroy(dev);
}
END_TEST

/* With nobody listening the state still changes. */
START_TEST(t_port_state_no_contexts)
{
	struct emu_device_config cfg = cfg_default("emut");
	struct emu_device *dev = create_ok(&cfg, 0);
	struct emu_context *c;

	ck_assert_int_eq(emu_port_set_state(&dev->ports[0], IBV_PORT_DOWN), 0);
	ck_assert_int_eq(dev->ports[0].state, IBV_PORT_DOWN);
	/* A context opened later starts with an empty queue. */
	c = emu_context_open(dev);
	ck_assert_ptr_nonnull(c);
	set_nonblock(c->async.fd);
	expect_no_event(c);
	emu_context_close(c);
	emu_device_destroy(dev);
}
END_TEST

/* The registry keeps what could be created and reports the rest. */
START_TEST(t_registry)
{
	static struct emu_config cfg;
	struct emu_endpoint holder = {.fd = -1};
	struct in6_addr a = free_explicit_addr();
	struct emu_device **devs;
	struct capture c;
	unsigned int n;

	ck_assert_int_eq(emu_endpoint_bind_addr(&holder, &a, EMU_ROCE_UDP_PORT),
			 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.ndevices = 3;
	emu_device_config_default(&cfg.devices[0], "emua");
	emu_device_config_default(&cfg.devices[1], "emub");
	emu_device_config_default(&cfg.devices[2], "emuc");
	cfg.devices[1].ports[0].has_address = true;
	cfg.devices[1].ports[0].address = a;
	cap_open(&c);
	ck_assert_int_eq(emu_registry_init_from(&cfg, c.f), 1);
	expect_one_line(&c, "emub");
	cap_free(&c);
	ck_assert_int_eq(emu_registry_get(&devs, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(devs[0]->ibdev.name, "emua");
	ck_assert_str_eq(devs[1]->ibdev.name, "emuc");
	/* Indexes are dense, as ibv_get_device_index reports them. */
	ck_assert_uint_eq(devs[0]->index, 0);
	ck_assert_uint_eq(devs[1]->index, 1);
	ck_assert_str_eq(devs[1]->ibdev.dev_name, "uverbs1");

	/* Built once: a second init changes nothing. */
	cfg.ndevices = 1;
	ck_assert_int_eq(emu_registry_init_from(&cfg, NULL), 0);
	ck_assert_int_eq(emu_registry_get(&devs, &n), 0);
	ck_assert_uint_eq(n, 2);
	emu_endpoint_close(&holder);
}
END_TEST

static Suite *device_suite(void)
{
	Suite *s = suite_create("device");
	TCase *tc = tcase_create("create");
	TCase *ta = tcase_create("attr");
	TCase *tx = tcase_create("context");

	tcase_add_test(tc, t_create_default);
	tcase_add_test(tc, t_ports_distinct);
	tcase_add_test(tc, t_explicit_address);
	tcase_add_test(tc, t_taken_address);
	tcase_add_test(tc, t_nonlocal_address);
	tcase_add_test(tc, t_ipv6_address);
	tcase_add_test(tc, t_guid);
	tcase_add_test(tc, t_static_gid);
	tcase_add_test(tc, t_static_gid_bad_index);
	tcase_add_test(tc, t_gid_tbl_len_bad);
	tcase_add_test(tc, t_no_room_for_endpoint_gid);
	tcase_add_test(tc, t_too_many_ports);
	tcase_add_test(tc, t_create_enomem);
	tcase_add_test(tc, t_create_enomem_tables);
	tcase_add_test(tc, t_registry);
	suite_add_tcase(s, tc);

	tcase_add_test(ta, t_device_attr);
	tcase_add_test(ta, t_device_attr_mcast_overflow);
	tcase_add_test(ta, t_port_attr_default);
	tcase_add_test(ta, t_port_attr_mtu);
	tcase_add_test(ta, t_port_attr_speed_width);
	tcase_add_test(ta, t_port_attr_config);
	tcase_add_test(ta, t_port_attr_ib);
	suite_add_tcase(s, ta);

	tcase_add_test(tx, t_context_open_close);
	tcase_add_test(tx, t_context_open_errors);
	tcase_add_test(tx, t_port_state_events);
	tcase_add_test(tx, t_port_state_no_contexts);
	suite_add_tcase(s, tx);
	return s;
}

int main(void)
{
	emu_init();
	return emu_test_run(device_suite());
}
