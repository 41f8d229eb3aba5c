/* Error paths of the seed verbs, compiled against Debian's own
 * <infiniband/verbs.h> (not ours) and run on the emulated device. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static int passed, failed;

#define CHECK(name, cond)                                                     \
	do {                                                                  \
		if (cond) {                                                   \
			passed++;                                             \
			printf("PASS: %s\n", name);                           \
		} else {                                                      \
			failed++;                                             \
			printf("FAIL: %s (%s:%d)\n", name, __FILE__, __LINE__); \
		}                                                             \
	} while (0)

/* Newer than Debian's header: reached the way a program built against an
 * older header would, through the dynamic linker. */
typedef int (*query_port_speed_fn)(struct ibv_context *, uint32_t,
				   uint64_t *);

static void gid_ex(struct ibv_context *ctx, const struct ibv_port_attr *pa)
{
	struct ibv_gid_entry e;
	int rc;

	rc = ibv_query_gid_ex(ctx, 1, 0, &e, 0);
	CHECK("gid_ex: index 0 valid", rc == 0 && e.gid_index == 0 &&
					       e.port_num == 1 &&
					       e.gid_type == IBV_GID_TYPE_ROCE_V2);
	CHECK("gid_ex: index 0 is ::ffff:127.x",
	      rc == 0 && e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff &&
		      e.gid.raw[12] == 127);
	CHECK("gid_ex: index 0 has lo's ifindex", rc == 0 &&
						  e.ndev_ifindex ==
							  if_nametoindex("lo"));
	rc = ibv_query_gid_ex(ctx, 1, 1, &e, 0);
	CHECK("gid_ex: index 1 RoCEv1", rc == 0 &&
					       e.gid_type == IBV_GID_TYPE_ROCE_V1);
	CHECK("gid_ex: empty in-range slot -> ENODATA",
	      ibv_query_gid_ex(ctx, 1, 2, &e, 0) == ENODATA);
	CHECK("gid_ex: last slot empty -> ENODATA",
	      ibv_query_gid_ex(ctx, 1, pa->gid_tbl_len - 1, &e, 0) == ENODATA);
	CHECK("gid_ex: index == gid_tbl_len -> EINVAL",
	      ibv_query_gid_ex(ctx, 1, pa->gid_tbl_len, &e, 0) == EINVAL);
	CHECK("gid_ex: huge index -> EINVAL",
	      ibv_query_gid_ex(ctx, 1, 0xffffffffu, &e, 0) == EINVAL);
	CHECK("gid_ex: port 0 -> EINVAL",
	      ibv_query_gid_ex(ctx, 0, 0, &e, 0) == EINVAL);
	CHECK("gid_ex: port 2 -> EINVAL",
	      ibv_query_gid_ex(ctx, 2, 0, &e, 0) == EINVAL);
	CHECK("gid_ex: flags != 0 -> EINVAL",
	      ibv_query_gid_ex(ctx, 1, 0, &e, 1) == EINVAL);
}

static void gid_table(struct ibv_context *ctx)
{
	struct ibv_gid_entry t[8], e;
	ssize_t n;
	int i, same = 1;

	memset(t, 0xa5, sizeof(t));
	n = ibv_query_gid_table(ctx, t, 8, 0);
	CHECK("gid_table: two valid entries", n == 2);
	for (i = 0; i < n; i++) {
		if (ibv_query_gid_ex(ctx, t[i].port_num, t[i].gid_index, &e,
				     0) ||
		    memcmp(&e, &t[i], sizeof(e)))
			same = 0;
	}
	CHECK("gid_table: entries equal gid_ex's", n == 2 && same);
	CHECK("gid_table: nothing past the count", t[2].gid_index == 0xa5a5a5a5);

	memset(t, 0xa5, sizeof(t));
	n = ibv_query_gid_table(ctx, t, 1, 0);
	CHECK("gid_table: max_entries too small -> negative errno", n < 0);
	CHECK("gid_table: too small leaves the array untouched",
	      t[0].gid_index == 0xa5a5a5a5 && t[1].gid_index == 0xa5a5a5a5);
	CHECK("gid_table: flags != 0 fails", ibv_query_gid_table(ctx, t, 8, 1) < 0);
	CHECK("gid_table: max_entries 0 fails", ibv_query_gid_table(ctx, t, 0, 0) < 0);
}

static void port_speed(struct ibv_context *ctx)
{
	query_port_speed_fn qps = (query_port_speed_fn)dlsym(
		RTLD_DEFAULT, "ibv_query_port_speed");
	uint64_t speed = 12345;

	CHECK("ibv_query_port_speed is exported", qps != NULL);
	if (!qps)
		return;
	CHECK("port_speed: 4x EDR -> 1000", qps(ctx, 1, &speed) == 0 &&
						 speed == 1000);
	speed = 12345;
	CHECK("port_speed: port 0 -> EINVAL", qps(ctx, 0, &speed) == EINVAL);
	CHECK("port_speed: port 2 -> EINVAL", qps(ctx, 2, &speed) == EINVAL);
	CHECK("port_speed: untouched on error", speed == 12345);
}

static void port_and_pkeys(struct ibv_context *ctx, struct ibv_port_attr *pa)
{
	struct ibv_device_attr_ex dx;
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	struct ibv_port_attr p2;
	union ibv_gid gid;
	__be16 pkey;

	CHECK("query_port: port 1", ibv_query_port(ctx, 1, pa) == 0 &&
					    pa->state == IBV_PORT_ACTIVE &&
					    pa->link_layer ==
						    IBV_LINK_LAYER_ETHERNET);
	CHECK("query_port: 4x EDR encodings", pa->active_width == 2 &&
						      pa->active_speed == 32);
	CHECK("query_port: port 0 -> error", ibv_query_port(ctx, 0, &p2) != 0);
	CHECK("query_port: port 2 -> error", ibv_query_port(ctx, 2, &p2) != 0);
	CHECK("query_pkey: index 0 is 0xffff",
	      ibv_query_pkey(ctx, 1, 0, &pkey) == 0 && pkey == htobe16(0xffff));
	CHECK("query_pkey: index past the table -> -1",
	      ibv_query_pkey(ctx, 1, pa->pkey_tbl_len, &pkey) == -1);
	CHECK("query_pkey: bad port -> -1",
	      ibv_query_pkey(ctx, 3, 0, &pkey) == -1);
	CHECK("get_pkey_index: default P_Key at 0",
	      ibv_get_pkey_index(ctx, 1, htobe16(0xffff)) == 0);
	CHECK("get_pkey_index: unknown P_Key -> -1",
	      ibv_get_pkey_index(ctx, 1, htobe16(0x1234)) == -1);
	CHECK("query_gid: bad port -> -1", ibv_query_gid(ctx, 7, 0, &gid) == -1);
	memset(&gid, 0xff, sizeof(gid));
	CHECK("query_gid: empty slot reads zero",
	      ibv_query_gid(ctx, 1, 3, &gid) == 0 && gid.global.interface_id == 0);
	CHECK("query_device_ex: comp_mask -> EINVAL",
	      ibv_query_device_ex(ctx, &in, &dx) == EINVAL);
	CHECK("query_device_ex: ok", ibv_query_device_ex(ctx, NULL, &dx) == 0 &&
					     dx.orig_attr.phys_port_cnt == 1);
}

static void async_fd(struct ibv_context *ctx)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int fl = fcntl(ctx->async_fd, F_GETFL);

	CHECK("async fd: poll-able, nothing pending", poll(&pfd, 1, 0) == 0);
	fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	errno = 0;
	CHECK("async: non-blocking get with nothing -> EAGAIN",
	      ibv_get_async_event(ctx, &ev) == -1 && errno == EAGAIN);
}

static void device_memory(struct ibv_context *ctx)
{
	struct ibv_alloc_dm_attr attr = { .length = 64, .comp_mask = 1 };
	uint32_t in = 0x12345678, out = 0;
	struct ibv_dm *dm;

	/* Through the inline wrappers and the ibv_dm of rdma-core 44's
	 * header: the slots and the copy functions are where it looks. */
	errno = 0;
	CHECK("alloc_dm: comp_mask -> EINVAL",
	      ibv_alloc_dm(ctx, &attr) == NULL && errno == EINVAL);
	attr.comp_mask = 0;
	dm = ibv_alloc_dm(ctx, &attr);
	CHECK("alloc_dm: 64 bytes", dm != NULL);
	if (!dm)
		return;
	CHECK("memcpy_to_dm / from_dm: round trip",
	      ibv_memcpy_to_dm(dm, 4, &in, 4) == 0 &&
	      ibv_memcpy_from_dm(&out, dm, 4, 4) == 0 && out == in);
	CHECK("memcpy_to_dm: past the end -> EFAULT",
	      ibv_memcpy_to_dm(dm, 64, &in, 4) == EFAULT);
	CHECK("free_dm", ibv_free_dm(dm) == 0);
}

static void import(struct ibv_context *ctx)
{
	struct ibv_context *imp;
	struct ibv_pd *pd, *ipd;
	int fd;

	/* Not a context's command file: rdma-core's EINVAL (no character
	 * device). A dup of one: a context sharing its objects. */
	errno = 0;
	CHECK("import_device: async fd -> EINVAL",
	      ibv_import_device(ctx->async_fd) == NULL && errno == EINVAL);
	fd = dup(ctx->cmd_fd);
	imp = fd >= 0 ? ibv_import_device(fd) : NULL;
	CHECK("import_device: dup(cmd_fd)", imp != NULL);
	if (!imp)
		return;
	pd = ibv_alloc_pd(ctx);
	ipd = pd ? ibv_import_pd(imp, pd->handle) : NULL;
	CHECK("import_pd: same handle", ipd && ipd->handle == pd->handle &&
					   ipd->context == imp);
	if (ipd)
		ibv_unimport_pd(ipd);
	errno = 0;
	CHECK("import_pd: unknown handle -> ENOENT",
	      ibv_import_pd(imp, 0xfffffff0u) == NULL && errno == ENOENT);
	CHECK("dealloc_pd", pd && ibv_dealloc_pd(pd) == 0);
	CHECK("close imported", ibv_close_device(imp) == 0);
}

/*
 * A failing verb leaves its errno in errno, whatever was there before: the
 * int-returning ones too (UCX prints errno after them), and the inline
 * ones this header compiles into the program (post_send, post_recv).
 */
#define STALE ENOMEM

static void errno_set(struct ibv_context *ctx)
{
	struct ibv_qp_init_attr qia = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_send_wr swr = { .opcode = IBV_WR_SEND }, *bad_s;
	struct ibv_recv_wr rwr = { .num_sge = 9 }, *bad_r;
	struct ibv_srq_attr sa = { .max_wr = 1u << 30 };
	struct ibv_qp_init_attr qi;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	int rc;

	CHECK("errno: pd and cq", pd && cq);
	if (!pd || !cq)
		return;
	qia.send_cq = qia.recv_cq = cq;
	qia.cap.max_send_wr = 1u << 30;
	errno = STALE;
	CHECK("errno: create_qp past max_qp_wr -> NULL, EINVAL",
	      !ibv_create_qp(pd, &qia) && errno == EINVAL);
	qia.cap.max_send_wr = 4;
	qp = ibv_create_qp(pd, &qia);
	CHECK("errno: create_qp", qp != NULL);
	if (!qp)
		return;

	errno = STALE;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS |
			   IBV_QP_PATH_MTU);
	CHECK("errno: modify_qp bad mask -> EINVAL in rc and errno",
	      rc == EINVAL && errno == EINVAL);
	errno = STALE;
	rc = ibv_query_qp(qp, NULL, IBV_QP_STATE, &qi);
	CHECK("errno: query_qp NULL attr -> EINVAL in rc and errno",
	      rc == EINVAL && errno == EINVAL);
	errno = STALE;
	rc = ibv_post_send(qp, &swr, &bad_s);
	CHECK("errno: post_send in RESET -> ENOMEM in rc and errno",
	      rc == ENOMEM && errno == ENOMEM && bad_s == &swr);
	errno = STALE;
	rc = ibv_post_recv(qp, &rwr, &bad_r);
	CHECK("errno: post_recv in RESET -> EINVAL in rc and errno",
	      rc == EINVAL && errno == EINVAL);
	errno = STALE;
	rc = ibv_destroy_cq(cq);
	CHECK("errno: destroy_cq in use -> EBUSY in rc and errno",
	      rc == EBUSY && errno == EBUSY);
	errno = STALE;
	rc = ibv_dealloc_pd(pd);
	CHECK("errno: dealloc_pd in use -> EBUSY in rc and errno",
	      rc == EBUSY && errno == EBUSY);
	errno = STALE;
	rc = ibv_resize_cq(cq, 1 << 30);
	CHECK("errno: resize_cq past max_cqe -> EINVAL in rc and errno",
	      rc == EINVAL && errno == EINVAL);
	srq = ibv_create_srq(pd, &si);
	CHECK("errno: create_srq", srq != NULL);
	if (srq) {
		errno = STALE;
		rc = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR);
		CHECK("errno: modify_srq past max_srq_wr -> EINVAL in rc "
		      "and errno", rc == EINVAL && errno == EINVAL);
		CHECK("errno: destroy_srq", ibv_destroy_srq(srq) == 0);
	}
	CHECK("errno: destroy_qp", ibv_destroy_qp(qp) == 0);
	CHECK("errno: destroy_cq", ibv_destroy_cq(cq) == 0);
	CHECK("errno: dealloc_pd", ibv_dealloc_pd(pd) == 0);
}

/* UCX's grh.flow_label = 0xffffffff: accepted, as by the kernel. */
static void flow_label(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah;

	if (!pd || ibv_query_gid(ctx, 1, 0, &aa.grh.dgid)) {
		CHECK("flow_label: pd and gid", 0);
		return;
	}
	aa.grh.hop_limit = 64;
	aa.grh.flow_label = 0xffffffff;
	ah = ibv_create_ah(pd, &aa);
	CHECK("flow_label: create_ah with 0xffffffff", ah != NULL);
	if (ah)
		ibv_destroy_ah(ah);
	ibv_dealloc_pd(pd);
}

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_port_attr pa;
	int n;

	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		printf("FAIL: no device\n0 passed, 1 failed\n");
		return 1;
	}
	ctx = ibv_open_device(list[0]);
	if (!ctx) {
		printf("FAIL: open\n0 passed, 1 failed\n");
		return 1;
	}
	port_and_pkeys(ctx, &pa);
	gid_ex(ctx, &pa);
	gid_table(ctx);
	port_speed(ctx);
	async_fd(ctx);
	device_memory(ctx);
	import(ctx);
	errno_set(ctx);
	flow_label(ctx);
	CHECK("close", ibv_close_device(ctx) == 0);
	ibv_free_device_list(list);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
