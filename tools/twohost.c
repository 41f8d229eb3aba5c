/* twohost: two processes, each its own host on the emulated device, one QP
 * pair between them; shared by the demo and the integration tests. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/twohost.h"

int th_fail(const struct th_host *h, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", h->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

double th_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

double th_slack(void)
{
	const char *e = getenv("CK_TIMEOUT_MULTIPLIER");
	double f = e ? atof(e) : 0;

	return f > 1 ? f : 1;
}

int th_fork(struct th_host *h)
{
	pid_t pid, parent = getpid();
	int sv[2];

	memset(h, 0, sizeof(*h));
	/* Fork before touching verbs: each process must claim its own
	 * loopback endpoint, i.e. be its own host. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("socketpair");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	/* B must not outlive A (killed by a test's timeout, say), or it
	 * would hold its endpoint and spin on its CQ forever. */
	if (!pid && (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent))
		_exit(1);
	h->is_a = pid != 0;
	h->child = pid;
	h->name = pid ? "host A" : "host B";
	h->sock = pid ? sv[0] : sv[1];
	close(pid ? sv[1] : sv[0]);
	return 0;
}

static int th_passed, th_failed;

void th_check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	if (ok)
		th_passed++;
	else
		th_failed++;
}

int th_summary(void)
{
	printf("%d passed, %d failed\n", th_passed, th_failed);
	return th_failed ? 1 : 0;
}

int th_join(struct th_host *h, int rc)
{
	int status = 0;

	if (!h->is_a)
		_exit(rc ? 1 : 0);
	close(h->sock);
	h->sock = -1;
	if (waitpid(h->child, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		rc = -1;
	return rc ? -1 : 0;
}

int th_open(struct th_host *h, size_t buf_size, int mr_access, int cqe)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (!list || !list[0]) {
		if (list)
			ibv_free_device_list(list);
		return th_fail(h, "no emulated device");
	}
	h->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!h->ctx)
		return th_fail(h, "ibv_open_device: %s", strerror(errno));
	/* aligned_alloc wants a multiple of the alignment */
	h->buf_size = buf_size;
	h->buf = aligned_alloc(4096, (buf_size + 4095) & ~(size_t)4095);
	h->pd = ibv_alloc_pd(h->ctx);
	h->cq = ibv_create_cq(h->ctx, cqe, NULL, NULL, 0);
	if (!h->buf || !h->pd || !h->cq)
		return th_fail(h, "allocating PD/CQ: %s", strerror(errno));
	memset(h->buf, 0, buf_size);
	h->mr = ibv_reg_mr(h->pd, h->buf, buf_size, mr_access);
	if (!h->mr)
		return th_fail(h, "creating MR: %s", strerror(errno));
	if (ibv_query_gid(h->ctx, 1, 0, &h->me.gid))
		return th_fail(h, "ibv_query_gid failed");
	h->me.rkey = h->mr->rkey;
	h->me.addr = (uintptr_t)h->buf;
	return 0;
}

int th_create_qp(struct th_host *h, const struct th_qp_opts *o)
{
	struct ibv_qp_init_attr qia = {
		.send_cq = h->cq, .recv_cq = h->cq, .qp_type = o->type,
		.cap = { .max_send_wr = o->max_send_wr,
			 .max_recv_wr = o->max_recv_wr,
			 .max_send_sge = o->max_send_sge,
			 .max_recv_sge = o->max_recv_sge,
			 .max_inline_data = o->max_inline },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = (unsigned int)o->access,
		.qkey = TH_QKEY,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	h->qp = ibv_create_qp(h->pd, &qia);
	if (!h->qp)
		return th_fail(h, "creating QP: %s", strerror(errno));
	h->qp_type = o->type;
	h->path_mtu = o->path_mtu ? o->path_mtu : IBV_MTU_4096;
	h->max_inline = qia.cap.max_inline_data;
	mask |= o->type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	if (ibv_modify_qp(h->qp, &a, mask))
		return th_fail(h, "QP to INIT failed");
	h->me.qpn = h->qp->qp_num;
	h->me.psn = (uint32_t)getpid() & 0xffffff;
	h->me.qkey = TH_QKEY;
	return 0;
}

int th_exchange(struct th_host *h)
{
	if (th_send_msg(h, &h->me, sizeof(h->me)) ||
	    th_recv_msg(h, &h->peer, sizeof(h->peer)))
		return -1;
	return 0;
}

static int connect_ud(struct th_host *h)
{
	struct ibv_ah_attr ah = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = h->peer.gid, .hop_limit = 64 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };

	if (ibv_modify_qp(h->qp, &a, IBV_QP_STATE))
		return th_fail(h, "QP to RTR failed");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = h->me.psn;
	if (ibv_modify_qp(h->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return th_fail(h, "QP to RTS failed");
	h->ah = ibv_create_ah(h->pd, &ah);
	if (!h->ah)
		return th_fail(h, "ibv_create_ah: %s", strerror(errno));
	return 0;
}

int th_connect(struct th_host *h)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = h->path_mtu,
		.dest_qp_num = h->peer.qpn, .rq_psn = h->peer.psn,
		.max_dest_rd_atomic = 16, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = h->peer.gid, .hop_limit = 64 } },
	};
	int rc = h->qp_type == IBV_QPT_RC;
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	if (h->qp_type == IBV_QPT_UD)
		return connect_ud(h);
	/* Only the reliable connection has responder resources and an RNR
	 * timer; IBTA rejects them in a UC QP's mask. */
	if (rc)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	if (ibv_modify_qp(h->qp, &a, mask))
		return th_fail(h, "QP to RTR failed");
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = h->me.psn;
	a.max_rd_atomic = 16;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	if (ibv_modify_qp(h->qp, &a, mask))
		return th_fail(h, "QP to RTS failed");
	return 0;
}

void th_destroy_qp(struct th_host *h)
{
	struct ibv_wc wc;

	if (h->ah)
		ibv_destroy_ah(h->ah);
	if (h->qp)
		ibv_destroy_qp(h->qp);
	h->ah = NULL;
	h->qp = NULL;
	/* Completions of the old QP (flushed work) must not be taken for
	 * the next one's. */
	while (h->cq && ibv_poll_cq(h->cq, 1, &wc) > 0)
		;
}

void th_close(struct th_host *h)
{
	th_destroy_qp(h);
	if (h->mr)
		ibv_dereg_mr(h->mr);
	if (h->cq)
		ibv_destroy_cq(h->cq);
	if (h->pd)
		ibv_dealloc_pd(h->pd);
	if (h->ctx)
		ibv_close_device(h->ctx);
	free(h->buf);
	h->mr = NULL;
	h->cq = NULL;
	h->pd = NULL;
	h->ctx = NULL;
	h->buf = NULL;
}

static int xfer(int fd, void *p, size_t n, int out)
{
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		/* MSG_NOSIGNAL: a peer that died is an error, not SIGPIPE */
		r = out ? send(fd, (char *)p + done, n - done, MSG_NOSIGNAL)
			: read(fd, (char *)p + done, n - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

int th_send_msg(struct th_host *h, const void *p, size_t n)
{
	if (xfer(h->sock, (void *)p, n, 1))
		return th_fail(h, "lost the other process");
	return 0;
}

int th_recv_msg(struct th_host *h, void *p, size_t n)
{
	if (xfer(h->sock, p, n, 0))
		return th_fail(h, "lost the other process");
	return 0;
}

/* A one-byte rendezvous between the two processes. */
int th_sync(struct th_host *h)
{
	char c = 's';

	if (th_send_msg(h, &c, 1) || th_recv_msg(h, &c, 1))
		return -1;
	return 0;
}

int th_wait_wc(struct th_host *h, struct ibv_wc *wc, unsigned int ms)
{
	double deadline = th_now_us() + ms * 1e3;
	int n;

	/* Busy polling, as latency-minded applications do. */
	do {
		n = ibv_poll_cq(h->cq, 1, wc);
		if (n < 0)
			return th_fail(h, "ibv_poll_cq failed");
		if (n == 1) {
			if (wc->status != IBV_WC_SUCCESS)
				return th_fail(h, "completion error: %s",
					       ibv_wc_status_str(wc->status));
			return 0;
		}
	} while (th_now_us() < deadline);
	return th_fail(h, "no completion within %g s", ms / 1e3);
}

struct ibv_sge th_sge(const struct th_host *h, uint64_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)h->buf + off, .length = len,
		.lkey = h->mr->lkey,
	};

	return sge;
}

int th_post_recv(struct th_host *h, uint64_t off, uint32_t len)
{
	struct ibv_sge sge = th_sge(h, off, len);
	struct ibv_recv_wr wr = { .wr_id = off, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(h->qp, &wr, &bad);
}

int th_post_wr(struct th_host *h, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	if (h->qp_type == IBV_QPT_UD) {
		wr->wr.ud.ah = h->ah;
		wr->wr.ud.remote_qpn = h->peer.qpn;
		wr->wr.ud.remote_qkey = h->peer.qkey;
	}
	return ibv_post_send(h->qp, wr, &bad);
}

int th_post_send(struct th_host *h, enum ibv_wr_opcode op, uint64_t off,
		 uint32_t len, uint64_t raddr)
{
	struct ibv_sge sge = th_sge(h, off, len);
	struct ibv_send_wr wr = {
		.wr_id = off, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};

	if (h->qp_type != IBV_QPT_UD) {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = h->peer.rkey;
	}
	return th_post_wr(h, &wr);
}

int th_post_atomic(struct th_host *h, enum ibv_wr_opcode op, uint64_t off,
		   uint64_t raddr, uint64_t compare_add, uint64_t swap)
{
	struct ibv_sge sge = th_sge(h, off, 8);
	struct ibv_send_wr wr = {
		.wr_id = off, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = h->peer.rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	return th_post_wr(h, &wr);
}
