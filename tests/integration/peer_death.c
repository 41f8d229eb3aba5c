/* A peer process that dies: the survivor's outstanding RC work requests end
 * in IBV_WC_RETRY_EXC_ERR within what timeout and retry_cnt allow, and what
 * the survivor held for the pair's wire (on shared memory: the unix
 * connection, the peer's eventfd, the mapped area) is given back. */
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/twohost.h"

/* twohost connects with timeout 14 (4.096 us x 2^14 = 67 ms) and
 * retry_cnt 7: the first request gives up after 8 such timeouts. */
#define ACK_TIMEOUT_MS 67.1
#define TRIES 8

/* Poll with no judgement of the status: errors are what we expect. */
static int next_wc(struct th_host *h, struct ibv_wc *wc, double deadline_us)
{
	int n;

	do {
		n = ibv_poll_cq(h->cq, 1, wc);
		if (n)
			return n;
	} while (th_now_us() < deadline_us);
	return 0;
}

/* The descriptors this process holds (*all), and how many of them are
 * eventfds (*events): a channel on shared memory holds its peer's. */
static void fd_census(int *all, int *events)
{
	char link[64];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	ssize_t n;

	*all = *events = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		(*all)++;
		n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			if (strstr(link, "[eventfd]"))
				(*events)++;
		}
	}
	closedir(d);
}

/* Whether a wire area (its memfd's name) is mapped in this process. */
static bool area_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "emuverbs-wire") != NULL;
	fclose(f);
	return found;
}

/* Whether the pair is meant to meet on shared memory: the tests leave the
 * wire to its default (auto) unless they ask for UDP. */
static bool want_shm(void)
{
	const char *w = getenv("EMUVERBS_WIRE");

	return !w || strcmp(w, "udp");
}

/* Whether this side's channel to its peer is up: the area mapped and the
 * peer's eventfd held (ev0 eventfds before, our own wake-up's among
 * them). */
static bool channel_up(int ev0)
{
	int all, ev;

	fd_census(&all, &ev);
	return ev == ev0 + 1 && area_mapped();
}

/*
 * A, before B dies: WRITEs to B until A's channel to it is up, so that the
 * death is a shared-memory peer's. The first frames go by UDP while the
 * peer is asked, so this takes a few.
 */
static int warm_up(struct th_host *h, int base, int ev0)
{
	double deadline = th_now_us() + 10e6 * th_slack();
	struct ibv_wc wc;
	int all, ev, n = 0;

	struct pollfd pfd = { .fd = h->sock, .events = POLLIN };

	/* Until B says its side is up too (b_ready): B asks again only when
	 * it has something to send, so the traffic must go on while the
	 * two engines settle a handshake they both began. */
	for (;;) {
		if (th_post_send(h, IBV_WR_RDMA_WRITE, 0, 64, h->peer.addr) ||
		    th_wait_wc(h, &wc, TH_DEADLINE_MS))
			return -1;
		n++;
		if (!want_shm() ? n >= 8 :
		    channel_up(ev0) && poll(&pfd, 1, 0) == 1)
			break;
		if (th_now_us() > deadline)
			return th_fail(h, "no channel to B after %d WRITEs", n);
	}
	fd_census(&all, &ev);
	printf("%s after %d WRITEs: %d descriptors, %d before\n",
	       want_shm() ? "channel up" : "on UDP", n, all, base);
	/* A few more over the channel itself. */
	while (n++ < 16)
		if (th_post_send(h, IBV_WR_RDMA_WRITE, 0, 64, h->peer.addr) ||
		    th_wait_wc(h, &wc, TH_DEADLINE_MS))
			return -1;
	return 0;
}

/* B, before it dies: its side of the channel is up too (its engine takes
 * the handshake's last message in its own time), and it says so. */
static int b_ready(struct th_host *h, int ev0)
{
	double deadline = th_now_us() + 10e6 * th_slack();
	char up;

	/* Up twice 5 ms apart: a hello the engine is refusing holds its
	 * descriptors for a moment too. */
	while (want_shm() && th_now_us() < deadline) {
		if (channel_up(ev0)) {
			usleep(5000);
			if (channel_up(ev0))
				break;
		}
		usleep(1000);
	}
	up = !want_shm() || channel_up(ev0);
	return th_send_msg(h, &up, 1);
}

/* A, once its QPs are in error: what it holds goes back to base
 * descriptors and no area. The peer's end is seen by the engine as its
 * own time allows, so this is a wait for a condition, with a generous
 * bound. */
static void given_back(int base)
{
	double deadline = th_now_us() + 10e6 * th_slack();
	bool mapped;
	int all, ev;
	char what[128];

	for (;;) {
		fd_census(&all, &ev);
		mapped = area_mapped();
		if ((all == base && !mapped) || th_now_us() > deadline)
			break;
		usleep(10000);
	}
	printf("descriptors: %d before the pair's first packet, %d now\n",
	       base, all);
	snprintf(what, sizeof(what),
		 "descriptors back to %d once the peer is gone", base);
	th_check(all == base, what);
	th_check(!mapped, "no wire area mapped once the peer is gone");
}

static void survive(struct th_host *h)
{
	double t0, took_ms;
	struct ibv_wc wc;
	int status;

	/* Make sure B is gone, not just quiet. */
	if (waitpid(h->child, &status, 0) != h->child ||
	    !WIFSIGNALED(status)) {
		th_check(0, "peer killed");
		return;
	}
	t0 = th_now_us();
	if (th_post_send(h, IBV_WR_SEND, 0, 64, 0) ||
	    th_post_send(h, IBV_WR_RDMA_WRITE, 4096, 4096,
			 h->peer.addr + 4096) ||
	    th_post_send(h, IBV_WR_RDMA_READ, 8192, 4096, h->peer.addr)) {
		th_check(0, "posting to a dead peer");
		return;
	}
	th_check(next_wc(h, &wc, t0 + 10e6) == 1 &&
		      wc.status == IBV_WC_RETRY_EXC_ERR && wc.wr_id == 0,
	      "first WR: IBV_WC_RETRY_EXC_ERR");
	took_ms = (th_now_us() - t0) / 1e3;
	printf("gave up after %.0f ms (%d timeouts of %.1f ms)\n", took_ms,
	       TRIES, ACK_TIMEOUT_MS);
	th_check(took_ms >= 0.9 * TRIES * ACK_TIMEOUT_MS,
	      "not before timeout x (retry_cnt + 1)");
	th_check(took_ms <= 4 * TRIES * ACK_TIMEOUT_MS,
	      "not long after timeout x (retry_cnt + 1)");
	th_check(next_wc(h, &wc, th_now_us() + 2e6) == 1 &&
		      wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 4096,
	      "second WR flushed");
	th_check(next_wc(h, &wc, th_now_us() + 2e6) == 1 &&
		      wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 8192,
	      "third WR flushed");
}

int main(void)
{
	struct th_qp_opts o = {
		.type = IBV_QPT_RC,
		.max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = 1, .max_recv_sge = 1,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	struct th_host h = { 0 };
	int base, ev0;
	char b_up = 0;

	if (th_fork(&h) ||
	    th_open(&h, 65536,
		    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ,
		    64) ||
	    th_create_qp(&h, &o) || th_exchange(&h) || th_connect(&h) ||
	    th_sync(&h)) {
		printf("0 passed, 1 failed\n");
		return 1;
	}
	/* What each side holds before the pair has sent a packet: the
	 * wire's channel is made by the first packet between them. */
	fd_census(&base, &ev0);
	/* Both counted before A's first packet: on a busy machine B's count
	 * could otherwise include the channel that packet brings. */
	if (th_sync(&h) ||
	    (h.is_a ? warm_up(&h, base, ev0) || th_recv_msg(&h, &b_up, 1)
		    : b_ready(&h, ev0)) ||
	    th_sync(&h)) {
		printf("0 passed, 1 failed\n");
		return 1;
	}
	if (!h.is_a) {
		/* With PEER_DEATH_HOLDER set, B first forks a child that
		 * keeps every descriptor B had (its wire connection among
		 * them) open after B has gone, as a program that forks a
		 * helper would: A must still see B's end. The child leaves
		 * with A. */
		pid_t a = getppid();	/* B is A's child */

		if (getenv("PEER_DEATH_HOLDER") && fork() == 0) {
			/* The parent-death signal is not inherited. */
			while (kill(a, 0) == 0)
				usleep(10000);
			_exit(0);
		}
		/* Die as a crash would: no destroy, no goodbye. */
		kill(getpid(), SIGKILL);
		_exit(1);
	}
	th_check(b_up, want_shm() ? "B's side of the channel up before it dies"
				  : "B on UDP");
	survive(&h);
	given_back(base);
	th_close(&h);
	return th_summary();
}
