/* Unit tests for the query verbs through the public API only (libibverbs.la
 * and include/infiniband/verbs.h): devices, open/close, device, port, GIDs. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define GUID_PREFIX 0x02656d75u
#define CANARY 0xa5

static int all_bytes(const void *p, size_t len, uint8_t v)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

/* ---- devices, open, close --------------------------------------------- */

START_TEST(t_device_list)
{
	struct ibv_device **list;
	int n = -1;

	list = ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_nonnull(list[0]);
	ck_assert_ptr_null(list[1]);
	ck_assert_str_eq(ibv_get_device_name(list[0]), "emu0");
	ck_assert_str_eq(list[0]->name, "emu0");
	ck_assert_int_eq(ibv_get_device_index(list[0]), 0);
	ck_assert_uint_eq(be64toh(ibv_get_device_guid(list[0])) >> 32,
			  GUID_PREFIX);
	ck_assert_int_eq(list[0]->node_type, IBV_NODE_CA);
	ck_assert_int_eq(list[0]->transport_type, IBV_TRANSPORT_IB);
	ibv_free_device_list(list);

	/* The same device every time, and num_devices may be NULL. */
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(list);
	ck_assert_str_eq(ibv_get_device_name(list[0]), "emu0");
	ibv_free_device_list(list);

	errno = 0;
	ck_assert_ptr_null(ibv_get_device_name(NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_get_device_index(NULL), -1);
	ck_assert_uint_eq(ibv_get_device_guid(NULL), 0);
}
END_TEST

START_TEST(t_open_close)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *c1, *c2;

	ck_assert_ptr_nonnull(list);
	c1 = ibv_open_device(list[0]);
	c2 = ibv_open_device(list[0]);
	ck_assert_ptr_nonnull(c1);
	ck_assert_ptr_nonnull(c2);
	ck_assert_ptr_ne(c1, c2);
	ck_assert_ptr_eq(c1->device, list[0]);
	ck_assert_int_ge(c1->async_fd, 0);
	ck_assert_int_ne(c1->async_fd, c2->async_fd);
	ck_assert_int_ge(c1->num_comp_vectors, 1);
	/* The device outlives the list it came from. */
	ibv_free_device_list(list);
	ck_assert_str_eq(ibv_get_device_name(c1->device), "emu0");
	ck_assert_int_eq(ibv_close_device(c1), 0);
	ck_assert_int_eq(ibv_close_device(c2), 0);

	errno = 0;
	ck_assert_ptr_null(ibv_open_device(NULL));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_close_device(NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* ---- device attributes ------------------------------------------------ */

START_TEST(t_query_device)
{
	struct ibv_context *ctx = open_only();
	struct ibv_device_attr a;

	memset(&a, CANARY, sizeof(a));
	ck_assert_int_eq(ibv_query_device(ctx, &a), 0);
	ck_assert_uint_eq(a.node_guid, ibv_get_device_guid(ctx->device));
	ck_assert_uint_eq(a.sys_image_guid, a.node_guid);
	ck_assert_uint_eq(a.phys_port_cnt, 1);
	ck_assert_int_gt(a.max_qp, 0);
	ck_assert_int_gt(a.max_cqe, 0);
	ck_assert_int_gt(a.max_pd, 0);
	ck_assert_uint_eq(a.max_pkeys, 1);
	/* A ConnectX-5's part number and limits (emu/device/config.c). */
	ck_assert_uint_eq(a.vendor_part_id, 4119);
	ck_assert_int_eq(a.max_qp, 262144);
	ck_assert_int_eq(a.max_qp_wr, 32768);
	ck_assert_int_eq(a.max_sge, 30);
	ck_assert_int_eq(a.max_cq, 16777216);
	ck_assert_int_eq(a.max_cqe, 4194303);
	ck_assert_int_eq(a.max_srq_wr, 32767);
	ck_assert_int_eq(a.max_res_rd_atom, 262144 * 16);
	ck_assert_uint_eq(a.max_mr_size, UINT64_MAX);
	ck_assert_int_ne(a.fw_ver[0], 0);
	ck_assert(memchr(a.fw_ver, 0, sizeof(a.fw_ver)));
	ck_assert_int_eq(ibv_query_device(NULL, &a), EINVAL);
	ck_assert_int_eq(ibv_query_device(ctx, NULL), EINVAL);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_query_device_ex)
{
	struct ibv_context *ctx = open_only();
	struct ibv_query_device_ex_input in = {.comp_mask = 0};
	struct ibv_device_attr_ex x;
	struct ibv_device_attr a;
	struct verbs_context *vctx;
	struct {
		struct ibv_device_attr_ex x;
		uint8_t tail[16];
	} big;

	ck_assert_int_eq(ibv_query_device(ctx, &a), 0);
	memset(&x, CANARY, sizeof(x));
	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &x), 0);
	ck_assert_mem_eq(&x.orig_attr, &a, sizeof(a));
	ck_assert_uint_eq(x.phys_port_cnt_ex, 1);
	ck_assert_uint_eq(x.comp_mask, 0);
	/* The kernel repeats the basic capability bits in the 64-bit field
	 * (and has no extended ones to add here). */
	ck_assert_uint_ne(a.device_cap_flags, 0);
	ck_assert_uint_eq(x.device_cap_flags_ex, a.device_cap_flags);
	memset(&x, CANARY, sizeof(x));
	ck_assert_int_eq(ibv_query_device_ex(ctx, &in, &x), 0);
	ck_assert_mem_eq(&x.orig_attr, &a, sizeof(a));

	in.comp_mask = 1;
	memset(&x, CANARY, sizeof(x));
	ck_assert_int_eq(ibv_query_device_ex(ctx, &in, &x), EINVAL);

	/* The library's own op checks too (the inline may be older). */
	vctx = verbs_get_ctx_op(ctx, query_device_ex);
	ck_assert_ptr_nonnull(vctx);
	ck_assert_int_eq(vctx->query_device_ex(ctx, &in, &x, sizeof(x)),
			 EINVAL);
	ck_assert(all_bytes(&x, sizeof(x), CANARY));
	in.comp_mask = 0;
	ck_assert_int_eq(vctx->query_device_ex(ctx, &in, &x,
					       sizeof(x.orig_attr) - 1),
			 EINVAL);
	ck_assert(all_bytes(&x, sizeof(x), CANARY));
	/* A caller with an older, shorter struct: nothing past it. */
	ck_assert_int_eq(
		vctx->query_device_ex(ctx, NULL, &x, sizeof(x.orig_attr)), 0);
	ck_assert_mem_eq(&x.orig_attr, &a, sizeof(a));
	ck_assert(all_bytes((char *)&x + sizeof(x.orig_attr),
			    sizeof(x) - sizeof(x.orig_attr), CANARY));
	/* A newer, longer one: what we do not know is zero. */
	memset(&big, CANARY, sizeof(big));
	ck_assert_int_eq(vctx->query_device_ex(ctx, NULL, &big.x, sizeof(big)),
			 0);
	ck_assert(all_bytes(big.tail, sizeof(big.tail), 0));
	ck_assert_int_eq(vctx->query_device_ex(NULL, NULL, &x, sizeof(x)),
			 EINVAL);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* ---- ports ------------------------------------------------------------ */

START_TEST(t_query_port)
{
	struct ibv_context *ctx = open_only();
	struct ibv_port_attr a;

	memset(&a, CANARY, sizeof(a));
	ck_assert_int_eq(ibv_query_port(ctx, 1, &a), 0);
	ck_assert_int_eq(a.state, IBV_PORT_ACTIVE);
	ck_assert_uint_eq(a.phys_state, 5);
	ck_assert_int_eq(a.max_mtu, IBV_MTU_4096);
	ck_assert_int_eq(a.active_mtu, IBV_MTU_4096);
	ck_assert_int_eq(a.gid_tbl_len, 16);
	ck_assert_uint_eq(a.pkey_tbl_len, 1);
	ck_assert_uint_eq(a.link_layer, IBV_LINK_LAYER_ETHERNET);
	ck_assert_uint_eq(a.active_width, 2); /* 4x */
	ck_assert_uint_eq(a.active_speed, 32); /* EDR */
	ck_assert_uint_eq(a.active_speed_ex, 32);
	ck_assert_uint_eq(a.port_cap_flags2, 0);

	memset(&a, CANARY, sizeof(a));
	ck_assert_int_eq(ibv_query_port(ctx, 0, &a), EINVAL);
	ck_assert_int_eq(ibv_query_port(ctx, 2, &a), EINVAL);
	ck_assert_int_eq(ibv_query_port(ctx, 255, &a), EINVAL);
	ck_assert(all_bytes(&a, sizeof(a), CANARY));
	ck_assert_int_eq(verbs_get_ctx_op(ctx, query_port)
				 ->query_port(ctx, 1, NULL, sizeof(a)),
			 EINVAL);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* A program built with a shorter struct ibv_port_attr (48 bytes, before
 * port_cap_flags2): not one byte written past it. */
START_TEST(t_query_port_short_struct)
{
	struct ibv_context *ctx = open_only();
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_port);
	struct ibv_port_attr full;
	uint8_t buf[sizeof(struct ibv_port_attr) + 16];

	ck_assert_ptr_nonnull(vctx);
	ck_assert_int_eq(ibv_query_port(ctx, 1, &full), 0);
	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(
		vctx->query_port(ctx, 1, (struct ibv_port_attr *)buf, 48), 0);
	ck_assert_mem_eq(buf, &full, 48);
	ck_assert(all_bytes(buf + 48, sizeof(buf) - 48, CANARY));

	/* The legacy exported symbol fills the same 48 bytes. */
	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq((ibv_query_port)(ctx, 1,
					  (struct _compat_ibv_port_attr *)buf),
			 0);
	ck_assert_mem_eq(buf, &full, 48);
	ck_assert(all_bytes(buf + 48, sizeof(buf) - 48, CANARY));

	/* A longer one: the unknown tail is zeroed. */
	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(vctx->query_port(ctx, 1, (struct ibv_port_attr *)buf,
					  sizeof(buf)),
			 0);
	ck_assert_mem_eq(buf, &full, sizeof(full));
	ck_assert(all_bytes(buf + sizeof(full), sizeof(buf) - sizeof(full), 0));

	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(vctx->query_port(ctx, 2, (struct ibv_port_attr *)buf,
					  48),
			 EINVAL);
	ck_assert(all_bytes(buf, sizeof(buf), CANARY));
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_query_port_speed)
{
	struct ibv_context *ctx = open_only();
	uint64_t speed = 12345;

	ck_assert_int_eq(ibv_query_port_speed(ctx, 1, &speed), 0);
	ck_assert_uint_eq(speed, 1000); /* 4x EDR: 100 Gb/s */
	speed = 12345;
	ck_assert_int_eq(ibv_query_port_speed(ctx, 0, &speed), EINVAL);
	ck_assert_int_eq(ibv_query_port_speed(ctx, 2, &speed), EINVAL);
	ck_assert_int_eq(ibv_query_port_speed(ctx, 0x10001, &speed), EINVAL);
	ck_assert_uint_eq(speed, 12345);
	ck_assert_int_eq(ibv_query_port_speed(ctx, 1, NULL), EINVAL);
	ck_assert_int_eq(ibv_query_port_speed(NULL, 1, &speed), EINVAL);
	ck_assert_uint_eq(speed, 12345);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* ---- GIDs ------------------------------------------------------------- */

START_TEST(t_query_gid_ex)
{
	struct ibv_context *ctx = open_only();
	struct ibv_gid_entry e0, e1, e;
	uint64_t guid = be64toh(ibv_get_device_guid(ctx->device));
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0,    0,
					     0, 0, 0, 0, 0xff, 0xff};

	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 0, &e0, 0), 0);
	ck_assert_uint_eq(e0.gid_type, IBV_GID_TYPE_ROCE_V2);
	ck_assert_uint_eq(e0.gid_index, 0);
	ck_assert_uint_eq(e0.port_num, 1);
	ck_assert_uint_eq(e0.ndev_ifindex, if_nametoindex("lo"));
	ck_assert_mem_eq(e0.gid.raw, v4mapped, 12);
	ck_assert_uint_eq(e0.gid.raw[12], 127);
	/* The node GUID carries the endpoint's IPv4 address. */
	ck_assert_mem_eq(&e0.gid.raw[12], &(uint32_t){htobe32((uint32_t)guid)},
			 4);

	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 1, &e1, 0), 0);
	ck_assert_uint_eq(e1.gid_type, IBV_GID_TYPE_ROCE_V1);
	ck_assert_uint_eq(e1.gid_index, 1);
	ck_assert_mem_eq(e1.gid.raw, e0.gid.raw, 16);
	ck_assert_uint_eq(e1.ndev_ifindex, e0.ndev_ifindex);

	memset(&e, CANARY, sizeof(e));
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 2, &e, 0), ENODATA);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 15, &e, 0), ENODATA);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 16, &e, 0), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, UINT32_MAX, &e, 0), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 0, 0, &e, 0), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 2, 0, &e, 0), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 0, &e, 1), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 0, &e, 0x80000000u), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(NULL, 1, 0, &e, 0), EINVAL);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 0, NULL, 0), EINVAL);
	ck_assert(all_bytes(&e, sizeof(e), CANARY));
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_query_gid_table)
{
	struct ibv_context *ctx = open_only();
	struct ibv_gid_entry t[5], e;
	unsigned int i;

	memset(t, CANARY, sizeof(t));
	ck_assert_int_eq(ibv_query_gid_table(ctx, t, 4, 0), 2);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, i, &e, 0), 0);
		ck_assert_mem_eq(&t[i], &e, sizeof(e));
	}
	ck_assert(all_bytes(&t[2], 3 * sizeof(t[0]), CANARY));
	/* Exactly enough room. */
	memset(t, CANARY, sizeof(t));
	ck_assert_int_eq(ibv_query_gid_table(ctx, t, 2, 0), 2);
	ck_assert(all_bytes(&t[2], 3 * sizeof(t[0]), CANARY));

	/* Too little room: an error and an untouched array. */
	memset(t, CANARY, sizeof(t));
	ck_assert_int_lt(ibv_query_gid_table(ctx, t, 1, 0), 0);
	ck_assert_int_eq(ibv_query_gid_table(ctx, t, 1, 0), -EINVAL);
	ck_assert_int_lt(ibv_query_gid_table(ctx, t, 0, 0), 0);
	ck_assert_int_lt(ibv_query_gid_table(ctx, t, 4, 1), 0);
	ck_assert_int_lt(ibv_query_gid_table(ctx, NULL, 4, 0), 0);
	ck_assert_int_lt(ibv_query_gid_table(NULL, t, 4, 0), 0);
	ck_assert(all_bytes(t, sizeof(t), CANARY));
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(t_query_gid)
{
	struct ibv_context *ctx = open_only();
	struct ibv_gid_entry e;
	union ibv_gid g;

	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 0, &e, 0), 0);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &g), 0);
	ck_assert_mem_eq(g.raw, e.gid.raw, 16);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 1, &g), 0);
	ck_assert_mem_eq(g.raw, e.gid.raw, 16);

	/* An empty slot reads as the zero GID. */
	memset(&g, CANARY, sizeof(g));
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 2, &g), 0);
	ck_assert(all_bytes(&g, sizeof(g), 0));
	memset(&g, CANARY, sizeof(g));
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 15, &g), 0);
	ck_assert(all_bytes(&g, sizeof(g), 0));

	memset(&g, CANARY, sizeof(g));
	errno = 0;
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 16, &g), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, -1, &g), -1);
	ck_assert_int_eq(ibv_query_gid(ctx, 0, 0, &g), -1);
	ck_assert_int_eq(ibv_query_gid(ctx, 2, 0, &g), -1);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, NULL), -1);
	ck_assert(all_bytes(&g, sizeof(g), CANARY));
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* ---- P_Keys ----------------------------------------------------------- */

START_TEST(t_query_pkey)
{
	struct ibv_context *ctx = open_only();
	__be16 p = 0x1111;

	ck_assert_int_eq(ibv_query_pkey(ctx, 1, 0, &p), 0);
	ck_assert_uint_eq(p, htobe16(0xffff));
	p = 0x1111;
	ck_assert_int_eq(ibv_query_pkey(ctx, 1, 1, &p), -1); /* len 1 */
	ck_assert_int_eq(ibv_query_pkey(ctx, 1, -1, &p), -1);
	ck_assert_int_eq(ibv_query_pkey(ctx, 0, 0, &p), -1);
	ck_assert_int_eq(ibv_query_pkey(ctx, 2, 0, &p), -1);
	ck_assert_int_eq(ibv_query_pkey(ctx, 1, 0, NULL), -1);
	ck_assert_uint_eq(p, 0x1111);

	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0xffff)), 0);
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0x7fff)), -1);
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0x1234)), -1);
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 2, htobe16(0xffff)), -1);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* ---- async events ----------------------------------------------------- */

START_TEST(t_async_fd)
{
	struct ibv_context *ctx = open_only();
	struct pollfd pfd = {.events = POLLIN};
	struct ibv_async_event ev;
	int fl;

	pfd.fd = ctx->async_fd;
	ck_assert_int_eq(poll(&pfd, 1, 0), 0); /* a real fd, nothing yet */
	ck_assert_int_eq(pfd.revents, 0);
	fl = fcntl(ctx->async_fd, F_GETFL);
	ck_assert_int_ge(fl, 0);
	ck_assert_int_eq(fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	ck_assert_int_eq(ibv_get_async_event(ctx, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
	errno = 0;
	ck_assert_int_eq(ibv_get_async_event(ctx, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_get_async_event(NULL, &ev), -1);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* ---- a configuration file --------------------------------------------- */

static const char config_text[] = "; two devices, the first with two ports\n"
				  "[device emuq]\n"
				  "node_guid = 0x0002c9fffe000001\n"
				  "max_qp = 1000\n"
				  "[port emuq 1]\n"
				  "speed = HDR\n"
				  "width = 2x\n"
				  "mtu = 1024\n"
				  "gid_tbl_len = 6\n"
				  "pkey_tbl_len = 4\n"
				  "[port emuq 2]\n"
				  "link_layer = infiniband\n"
				  "state = down\n"
				  "[device emur]\n";

START_TEST(t_config_file)
{
	const char *path;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_device_attr a;
	struct ibv_port_attr pa;
	struct ibv_gid_entry t[8], e;
	uint64_t speed;
	__be16 p;
	int n = -1;

	path = emu_test_write_config(config_text);
	list = ibv_get_device_list(&n);
	unlink(path);
	ck_assert_ptr_nonnull(list);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(ibv_get_device_name(list[0]), "emuq");
	ck_assert_str_eq(ibv_get_device_name(list[1]), "emur");
	ck_assert_int_eq(ibv_get_device_index(list[0]), 0);
	ck_assert_int_eq(ibv_get_device_index(list[1]), 1);
	ck_assert_uint_eq(ibv_get_device_guid(list[0]),
			  htobe64(0x0002c9fffe000001ull));
	ck_assert_uint_eq(be64toh(ibv_get_device_guid(list[1])) >> 32,
			  GUID_PREFIX);

	ctx = ibv_open_device(list[0]);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(ibv_query_device(ctx, &a), 0);
	ck_assert_uint_eq(a.phys_port_cnt, 2);
	ck_assert_int_eq(a.max_qp, 1000);
	ck_assert_uint_eq(a.max_pkeys, 4);

	ck_assert_int_eq(ibv_query_port(ctx, 1, &pa), 0);
	ck_assert_int_eq(pa.active_mtu, IBV_MTU_1024);
	ck_assert_int_eq(pa.gid_tbl_len, 6);
	ck_assert_uint_eq(pa.pkey_tbl_len, 4);
	ck_assert_uint_eq(pa.active_speed, 64); /* HDR */
	ck_assert_uint_eq(pa.active_width, 16); /* 2x */
	ck_assert_int_eq(ibv_query_port_speed(ctx, 1, &speed), 0);
	ck_assert_uint_eq(speed, 1000); /* 2x HDR */
	ck_assert_int_eq(ibv_query_port(ctx, 2, &pa), 0);
	ck_assert_uint_eq(pa.link_layer, IBV_LINK_LAYER_INFINIBAND);
	ck_assert_int_eq(pa.state, IBV_PORT_DOWN);
	ck_assert_int_eq(ibv_query_port_speed(ctx, 2, &speed), 0);
	ck_assert_uint_eq(speed, 1000); /* 4x EDR */
	ck_assert_int_eq(ibv_query_port(ctx, 3, &pa), EINVAL);

	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 5, &e, 0), ENODATA);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 6, &e, 0), EINVAL);
	ck_assert_int_eq(ibv_query_pkey(ctx, 1, 3, &p), 0);
	ck_assert_int_eq(ibv_query_pkey(ctx, 1, 4, &p), -1);

	/* Both ports' GIDs, in port then index order: the RoCE port's
	 * address pair, the InfiniBand port's one link-local GID. */
	ck_assert_int_eq(ibv_query_gid_table(ctx, t, 8, 0), 3);
	ck_assert_uint_eq(t[0].port_num, 1);
	ck_assert_uint_eq(t[1].port_num, 1);
	ck_assert_uint_eq(t[2].port_num, 2);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 2, 0, &e, 0), 0);
	ck_assert_mem_eq(&t[2], &e, sizeof(e));
	ck_assert_uint_eq(e.gid_type, IBV_GID_TYPE_IB);
	ck_assert_uint_eq(e.gid.raw[0], 0xfe);
	ck_assert_uint_eq(e.gid.raw[1], 0x80);
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 2, 1, &e, 0), ENODATA);
	memset(t, CANARY, sizeof(t));
	ck_assert_int_lt(ibv_query_gid_table(ctx, t, 2, 0), 0);
	ck_assert(all_bytes(t, sizeof(t), CANARY));
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
}
END_TEST

static Suite *query_suite(void)
{
	Suite *s = suite_create("verbs_query");
	TCase *tc = tcase_create("default");
	TCase *tf = tcase_create("config");

	tcase_add_test(tc, t_device_list);
	tcase_add_test(tc, t_open_close);
	tcase_add_test(tc, t_query_device);
	tcase_add_test(tc, t_query_device_ex);
	tcase_add_test(tc, t_query_port);
	tcase_add_test(tc, t_query_port_short_struct);
	tcase_add_test(tc, t_query_port_speed);
	tcase_add_test(tc, t_query_gid_ex);
	tcase_add_test(tc, t_query_gid_table);
	tcase_add_test(tc, t_query_gid);
	tcase_add_test(tc, t_query_pkey);
	tcase_add_test(tc, t_async_fd);
	suite_add_tcase(s, tc);
	tcase_add_test(tf, t_config_file);
	suite_add_tcase(s, tf);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(query_suite());
}
