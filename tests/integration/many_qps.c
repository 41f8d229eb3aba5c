/* A thousand RC QPs, each with 128 RDMA WRITEs of 4 KiB in flight at once,
 * between two processes: every WR must complete successfully and every
 * byte must land where its WR sent it. Each WR gathers an 8-byte tag naming
 * its QP and WR, then a pattern of its own, so a WRITE placed in another
 * WR's slot, or lost, or resent with other data, is caught by the target.
 * Usage: many_qps [QPS [DEPTH]] (defaults 1000 and 128). */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "tests/helpers/qp_pair.h"

#define SLOT		4096u
#define TAG		8u
#define BODY		(SLOT - TAG)
#define DEADLINE_S	120

struct info {
	uint32_t nqp;
	uint32_t rkey;
	uint64_t addr;
	union ibv_gid gid;
};

struct host {
	const char *name;
	int sock;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp **qp;
	uint32_t *qpn, *peer_qpn;
	struct info me, peer;
};

static unsigned int nqp = 1000, depth = 128;

/* QP i of either side, brought up: WRITEs only, MTU 4096, PSN i. */
static struct qp_conn conn(uint32_t i)
{
	struct qp_conn c = qp_conn_default;

	c.access = IBV_ACCESS_REMOTE_WRITE;
	c.mtu = IBV_MTU_4096;
	c.psn = i;
	c.rd_atomic = 0;
	c.dest_rd_atomic = 0;
	c.min_rnr_timer = 12;
	return c;
}

static int fail(const struct host *h, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", h->name, what, strerror(errno));
	return -1;
}

static uint8_t pat(uint32_t w, uint32_t i)
{
	return (uint8_t)(w * 7 + i * 13 + 1);
}

static uint64_t tag_of(uint32_t q, uint32_t w)
{
	return 0x5a00000000000000ull | (uint64_t)q << 16 | w;
}

static int xfer(int fd, void *p, size_t n, int out)
{
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		r = out ? write(fd, (char *)p + done, n - done) :
			  read(fd, (char *)p + done, n - done);
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

static int open_host(struct host *h)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = depth, .max_recv_wr = 1,
			 .max_send_sge = 2, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct qp_conn c;
	unsigned int i;

	if (!list || !list[0])
		return fail(h, "no device");
	h->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!h->ctx)
		return fail(h, "ibv_open_device");
	h->pd = ibv_alloc_pd(h->ctx);
	h->cq = ibv_create_cq(h->ctx, (int)(nqp * depth), NULL, NULL, 0);
	h->qp = calloc(nqp, sizeof(*h->qp));
	h->qpn = calloc(nqp, sizeof(*h->qpn));
	h->peer_qpn = calloc(nqp, sizeof(*h->peer_qpn));
	if (!h->pd || !h->cq || !h->qp || !h->qpn || !h->peer_qpn)
		return fail(h, "PD, CQ or tables");
	if (ibv_query_gid(h->ctx, 1, 0, &h->me.gid))
		return fail(h, "ibv_query_gid");
	ia.send_cq = h->cq;
	ia.recv_cq = h->cq;
	for (i = 0; i < nqp; i++) {
		h->qp[i] = ibv_create_qp(h->pd, &ia);
		if (!h->qp[i])
			return fail(h, "ibv_create_qp");
		c = conn(i);
		errno = qp_to_init(h->qp[i], &c);
		if (errno)
			return fail(h, "INIT");
		h->qpn[i] = h->qp[i]->qp_num;
	}
	h->me.nqp = nqp;
	return 0;
}

/* Both sides tell each other their info and QP numbers, then connect. */
static int exchange_and_connect(struct host *h)
{
	unsigned int i;

	if (xfer(h->sock, &h->me, sizeof(h->me), 1) ||
	    xfer(h->sock, h->qpn, nqp * sizeof(*h->qpn), 1) ||
	    xfer(h->sock, &h->peer, sizeof(h->peer), 0) ||
	    xfer(h->sock, h->peer_qpn, nqp * sizeof(*h->peer_qpn), 0))
		return fail(h, "exchange");
	for (i = 0; i < nqp; i++) {
		struct qp_peer peer = {
			.qpn = h->peer_qpn[i], .psn = i, .gid = h->peer.gid,
		};
		struct qp_conn c = conn(i);

		errno = qp_to_rtr(h->qp[i], &c, &peer);
		if (errno)
			return fail(h, "RTR");
		errno = qp_to_rts(h->qp[i], &c);
		if (errno)
			return fail(h, "RTS");
	}
	return 0;
}

/* A: posts every WR on every QP, then reaps nqp * depth completions. */
static int initiator(struct host *h, long *bad_status)
{
	uint64_t *tags = calloc((size_t)nqp * depth, TAG);
	uint8_t *body = malloc((size_t)depth * BODY);
	struct ibv_mr *tmr, *bmr;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge[2];
	struct ibv_wc wc[64];
	unsigned long left = (unsigned long)nqp * depth;
	time_t end = time(NULL) + DEADLINE_S;
	uint32_t q, w, i;
	int n;

	if (!tags || !body)
		return fail(h, "buffers");
	for (w = 0; w < depth; w++)
		for (i = 0; i < BODY; i++)
			body[(size_t)w * BODY + i] = pat(w, i);
	for (q = 0; q < nqp; q++)
		for (w = 0; w < depth; w++)
			tags[(size_t)q * depth + w] = htole64(tag_of(q, w));
	tmr = ibv_reg_mr(h->pd, tags, (size_t)nqp * depth * TAG, 0);
	bmr = ibv_reg_mr(h->pd, body, (size_t)depth * BODY, 0);
	if (!tmr || !bmr)
		return fail(h, "ibv_reg_mr");
	for (q = 0; q < nqp; q++) {
		for (w = 0; w < depth; w++) {
			sge[0].addr = (uintptr_t)&tags[(size_t)q * depth + w];
			sge[0].length = TAG;
			sge[0].lkey = tmr->lkey;
			sge[1].addr = (uintptr_t)&body[(size_t)w * BODY];
			sge[1].length = BODY;
			sge[1].lkey = bmr->lkey;
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = (uint64_t)q * depth + w;
			wr.sg_list = sge;
			wr.num_sge = 2;
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.wr.rdma.rkey = h->peer.rkey;
			wr.wr.rdma.remote_addr = h->peer.addr +
				((uint64_t)q * depth + w) * SLOT;
			if (ibv_post_send(h->qp[q], &wr, &bad))
				return fail(h, "ibv_post_send");
		}
	}
	while (left) {
		n = ibv_poll_cq(h->cq, 64, wc);
		if (n < 0)
			return fail(h, "ibv_poll_cq");
		for (i = 0; i < (uint32_t)n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (!*bad_status)
					fprintf(stderr, "%s: WR %llu: %s\n",
						h->name,
						(unsigned long long)wc[i].wr_id,
						ibv_wc_status_str(wc[i].status));
				(*bad_status)++;
			}
		}
		left -= (unsigned long)n;
		if (!n && time(NULL) > end) {
			fprintf(stderr, "%s: %lu completions missing after "
				"%d s\n", h->name, left, DEADLINE_S);
			return -1;
		}
	}
	ibv_dereg_mr(tmr);
	ibv_dereg_mr(bmr);
	free(tags);
	free(body);
	return 0;
}

/* B: counts the slots whose tag or body is not what their WR sent. */
static long verify(const uint8_t *dst)
{
	long wrong = 0;
	uint64_t t;
	uint32_t q, w, i;
	const uint8_t *s;

	for (q = 0; q < nqp; q++) {
		for (w = 0; w < depth; w++) {
			s = dst + ((size_t)q * depth + w) * SLOT;
			memcpy(&t, s, TAG);
			if (le64toh(t) != tag_of(q, w)) {
				wrong++;
				continue;
			}
			for (i = 0; i < BODY; i++)
				if (s[TAG + i] != pat(w, i))
					break;
			wrong += i < BODY;
		}
	}
	return wrong;
}

static void close_host(struct host *h)
{
	unsigned int i;

	for (i = 0; h->qp && i < nqp; i++)
		if (h->qp[i])
			ibv_destroy_qp(h->qp[i]);
	if (h->cq)
		ibv_destroy_cq(h->cq);
	if (h->pd)
		ibv_dealloc_pd(h->pd);
	if (h->ctx)
		ibv_close_device(h->ctx);
	free(h->qp);
	free(h->qpn);
	free(h->peer_qpn);
}

static int target(struct host *h)
{
	size_t len = (size_t)nqp * depth * SLOT;
	uint8_t *dst = calloc(1, len);
	struct ibv_mr *mr;
	long wrong;
	char go;

	if (!dst)
		return fail(h, "target buffer");
	mr = ibv_reg_mr(h->pd, dst, len, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		return fail(h, "ibv_reg_mr");
	h->me.rkey = mr->rkey;
	h->me.addr = (uintptr_t)dst;
	if (exchange_and_connect(h))
		return -1;
	/* A says when every WRITE has completed, then hears the verdict. */
	if (xfer(h->sock, &go, 1, 0))
		return fail(h, "waiting for A");
	wrong = verify(dst);
	if (xfer(h->sock, &wrong, sizeof(wrong), 1))
		return fail(h, "verdict");
	ibv_dereg_mr(mr);
	free(dst);
	return 0;
}

int main(int argc, char **argv)
{
	struct host h = { 0 };
	long bad_status = 0, wrong = -1;
	int sv[2], st = 0, rc = 0, ok_done, ok_data, ok_b;
	double t0, secs;
	struct timespec ts;
	pid_t pid;

	if (argc > 1)
		nqp = (unsigned int)strtoul(argv[1], NULL, 0);
	if (argc > 2)
		depth = (unsigned int)strtoul(argv[2], NULL, 0);
	if (!nqp || !depth || nqp > 0xffff || depth > 0xffff) {
		fprintf(stderr, "usage: many_qps [QPS [DEPTH]]\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		h.name = "host B";
		h.sock = sv[1];
		close(sv[0]);
		rc = open_host(&h) || target(&h);
		close_host(&h);
		_exit(rc ? 1 : 0);
	}
	h.name = "host A";
	h.sock = sv[0];
	close(sv[1]);
	if (open_host(&h) || exchange_and_connect(&h)) {
		rc = 1;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t0 = ts.tv_sec + ts.tv_nsec / 1e9;
		if (initiator(&h, &bad_status))
			rc = 1;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		secs = ts.tv_sec + ts.tv_nsec / 1e9 - t0;
		if (!rc && (xfer(h.sock, "g", 1, 1) ||
			    xfer(h.sock, &wrong, sizeof(wrong), 0)))
			rc = 1;
		if (!rc)
			printf("    %u QPs x %u WRITEs of %u B: %.2f s, "
			       "%.0f MB/s\n", nqp, depth, SLOT, secs,
			       (double)nqp * depth * SLOT / secs / 1e6);
	}
	close(h.sock);
	close_host(&h);
	waitpid(pid, &st, 0);
	ok_done = !rc && !bad_status;
	ok_data = wrong == 0;
	ok_b = WIFEXITED(st) && !WEXITSTATUS(st);
	printf("%s: %u QPs x %u WRITEs all completed successfully "
	       "(%ld failed)\n", ok_done ? "PASS" : "FAIL", nqp, depth,
	       bad_status);
	printf("%s: every slot holds what its WRITE sent (%ld wrong)\n",
	       ok_data ? "PASS" : "FAIL", wrong);
	printf("%s: host B exits 0\n", ok_b ? "PASS" : "FAIL");
	printf("%d passed, %d failed\n", ok_done + ok_data + ok_b,
	       3 - (ok_done + ok_data + ok_b));
	return ok_done && ok_data && ok_b ? 0 : 1;
}
