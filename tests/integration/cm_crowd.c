/* cm_crowd: one rdma_cm server and many client processes on one machine,
 * over 127.0.0.1. Every connection must stay up, whatever another user
 * does to our liveness sockets meanwhile (a command run in the middle),
 * and clients that come after it must connect and stay up too. And
 * `cm_crowd --bind PORT`: what rdma_bind_addr and rdma_listen say.
 *
 * cm_crowd PORT EARLY LATE PER [COMMAND]
 *   EARLY processes connect PER ids each; then COMMAND runs (sh -c, its
 *   first line of output awaited, its stdin held open until the end,
 *   CROWD_GIDS in its environment: the GIDs of every process, in hex);
 *   then LATE more processes connect PER ids each, and the early ones two
 *   more. Each process ends each round with two more connections, one
 *   after the other: when the second is up, both CM threads have handled
 *   whatever came before, so a DISCONNECTED caused by anything earlier
 *   has been delivered. Every process, the server too, must have seen no
 *   DISCONNECTED and no failure at the end.
 *
 * main forks the clients at once, before any rdma call, and is the server.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#define ALARM_S		240	/* the script's timeout is longer */
#define MAX_PROCS	256

struct report {
	int who;
	int established;	/* connections up */
	int disconnected;	/* DISCONNECTED events seen */
	int failed;		/* any other unexpected event or error */
};

static uint16_t port;
static int report_fd;

static int set_nonblock(int fd)
{
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void open_files(void)
{
	struct rlimit r;

	/* A thousand ids, and a link per peer process. */
	if (!getrlimit(RLIMIT_NOFILE, &r)) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

/* Handle one event of a client's; the number of connections it made. */
static int client_event(struct rdma_cm_event *ev, struct report *r)
{
	struct rdma_conn_param p = { .qp_num = 1, .retry_count = 7,
				     .rnr_retry_count = 7 };
	struct rdma_cm_id *id = ev->id;
	int up = 0;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(id, 2000))
			r->failed++;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rdma_connect(id, &p))
			r->failed++;
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		/* No QP: the RTU is ours to send. */
		if (rdma_establish(id))
			r->failed++;
		else
			up = 1;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		r->disconnected++;
		break;
	default:
		fprintf(stderr, "client %d: %s (%d)\n", r->who,
			rdma_event_str(ev->event), ev->status);
		r->failed++;
		break;
	}
	return up;
}

/* Wait for an event on ch, or for input on fd (-1: none); true if fd. */
static bool wait_either(struct rdma_event_channel *ch, int fd)
{
	struct pollfd p[2] = { { ch->fd, POLLIN, 0 }, { fd, POLLIN, 0 } };

	while (poll(p, fd >= 0 ? 2 : 1, -1) < 0)
		;
	return fd >= 0 && p[1].revents;
}

static void drain(struct rdma_event_channel *ch, struct report *r, int *up)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(ch, &ev)) {
		*up += client_event(ev, r);
		rdma_ack_cm_event(ev);
	}
}

/* Connect n more ids; back when all are up or one failed. */
static void connect_n(struct rdma_event_channel *ch, int n, struct report *r)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	struct rdma_cm_id *id;
	int i, up = 0, failed = r->failed;

	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < n; i++)
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
		    rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				      2000))
			r->failed++;
	while (up < n && r->failed == failed) {
		wait_either(ch, -1);
		drain(ch, r, &up);
	}
	r->established += up;
}

/* A round: n ids at once, then one more twice, one after the other: when
 * the second is up, whatever came before the first (an end of file on a
 * liveness link, say) has been handled by both CM threads. */
static void round_of(struct rdma_event_channel *ch, int n, struct report *r)
{
	connect_n(ch, n, r);
	connect_n(ch, 1, r);
	connect_n(ch, 1, r);
}

static void send_report(const struct report *r)
{
	if (write(report_fd, r, sizeof(*r)) != sizeof(*r))
		_exit(3);
}

/* A client process: waits for its turn, connects per ids and one more,
 * reports; an early one connects one more when told to, and reports
 * again; all stay until go closes. */
static int client(int who, int go, int per)
{
	struct rdma_event_channel *ch;
	struct report r = { .who = who };
	char c;
	int up = 0;

	alarm(ALARM_S);
	if (read(go, &c, 1) != 1)
		return 0;
	ch = rdma_create_event_channel();
	if (!ch || set_nonblock(ch->fd))
		return 2;
	round_of(ch, per, &r);
	send_report(&r);
	for (;;) {
		if (!wait_either(ch, go)) {
			drain(ch, &r, &up);
			continue;
		}
		if (read(go, &c, 1) != 1)
			return 0;	/* the end: we go, with our ids */
		round_of(ch, 0, &r);
		send_report(&r);
	}
}

/* ---- The server */

static struct rdma_event_channel *sch;
static struct report server = { .who = -1 };
static uint8_t gids[MAX_PROCS + 1][16];
static int ngids;

static void note_gid(const uint8_t *g)
{
	int i;

	for (i = 0; i < ngids; i++)
		if (!memcmp(gids[i], g, 16))
			return;
	if (ngids <= MAX_PROCS)
		memcpy(gids[ngids++], g, 16);
}

static void server_events(void)
{
	struct rdma_conn_param p = { .qp_num = 2, .retry_count = 7,
				     .rnr_retry_count = 7 };
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(sch, &ev)) {
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (rdma_accept(ev->id, &p))
				server.failed++;
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			server.established++;
			note_gid(ev->id->route.addr.addr.ibaddr.sgid.raw);
			note_gid(ev->id->route.addr.addr.ibaddr.dgid.raw);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			server.disconnected++;
			break;
		default:
			fprintf(stderr, "server: %s (%d)\n",
				rdma_event_str(ev->event), ev->status);
			server.failed++;
			break;
		}
		rdma_ack_cm_event(ev);
	}
}

/* Connections the clients reported up. */
static int reported(const struct report *reps, int procs)
{
	int i, up = 0;

	for (i = 0; i < procs; i++)
		up += reps[i].established;
	return up;
}

/* Serve until n more reports came and every connection they reported is
 * up here too (its RTU may still be on its way); they land in reps. */
static void serve_until(int n, int from, struct report *reps, int procs)
{
	struct report r;

	while (n > 0 || server.established < reported(reps, procs)) {
		if (!wait_either(sch, n > 0 ? from : -1)) {
			server_events();
			continue;
		}
		if (read(from, &r, sizeof(r)) != sizeof(r) || r.who < 0 ||
		    r.who >= procs) {
			fprintf(stderr, "a client is gone\n");
			exit(1);
		}
		reps[r.who] = r;
		n--;
	}
	server_events();
}

/* Run cmd with CROWD_GIDS; its first line of output awaited. The pipe
 * to its stdin, held open until the end, or -1. */
static int run_command(const char *cmd, pid_t *pid)
{
	char env[(MAX_PROCS + 1) * 33 + 1] = "", line[256];
	int in[2], out[2], i, j;
	FILE *f;

	for (i = 0; i < ngids; i++) {
		for (j = 0; j < 16; j++)
			sprintf(env + strlen(env), "%02x", gids[i][j]);
		strcat(env, " ");
	}
	setenv("CROWD_GIDS", env, 1);
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -1;
	*pid = fork();
	if (*pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = fdopen(out[0], "r");
	if (f && fgets(line, sizeof(line), f))
		printf("# command: %s", line);
	else
		printf("# command: no output\n");
	return in[1];
}

static int crowd(int early, int late, int per, const char *cmd)
{
	struct sockaddr_in any = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	static struct report reps[MAX_PROCS];
	int go[MAX_PROCS], rep[2], i, hold = -1, bad = 0, want;
	int procs = early + late, up;
	struct rdma_cm_id *listener;
	pid_t kids[MAX_PROCS], cmd_pid = 0;
	int fds[2];

	if (procs > MAX_PROCS || pipe2(rep, O_CLOEXEC))
		return 2;
	report_fd = rep[1];
	for (i = 0; i < procs; i++) {
		if (pipe2(fds, O_CLOEXEC))
			return 2;
		kids[i] = fork();
		if (kids[i] == 0) {
			int me = i;

			/* Only the server may hold a go pipe open. */
			while (i--)
				close(go[i]);
			close(fds[1]);
			close(rep[0]);
			_exit(client(me, fds[0], per));
		}
		close(fds[0]);
		go[i] = fds[1];
	}
	close(rep[1]);
	alarm(ALARM_S);
	sch = rdma_create_event_channel();
	if (!sch || set_nonblock(sch->fd) ||
	    rdma_create_id(sch, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, (struct sockaddr *)&any) ||
	    rdma_listen(listener, 1024)) {
		perror("server");
		return 2;
	}
	for (i = 0; i < early; i++)
		if (write(go[i], "L", 1) != 1)
			return 2;
	serve_until(early, rep[0], reps, procs);
	if (cmd)
		hold = run_command(cmd, &cmd_pid);
	/* The early ones connect once more; the late ones come. */
	for (i = 0; i < procs; i++)
		if (write(go[i], "L", 1) != 1)
			return 2;
	serve_until(procs, rep[0], reps, procs);
	want = procs * (per + 2) + early * 2;
	up = reported(reps, procs);
	for (i = 0; i < procs; i++) {
		if (reps[i].disconnected || reps[i].failed) {
			printf("# client %d: %d up, %d disconnected, %d "
			       "failed\n", i, reps[i].established,
			       reps[i].disconnected, reps[i].failed);
			bad++;
		}
	}
	printf("%s - %d of %d connections up on the clients\n",
	       up == want ? "ok" : "not ok", up, want);
	printf("%s - %d of %d connections up on the server\n",
	       server.established == want ? "ok" : "not ok",
	       server.established, want);
	printf("%s - no client saw a disconnection or a failure (%d did)\n",
	       bad ? "not ok" : "ok", bad);
	printf("%s - the server saw %d disconnections, %d failures\n",
	       server.disconnected || server.failed ? "not ok" : "ok",
	       server.disconnected, server.failed);
	fflush(stdout);
	if (hold >= 0) {
		close(hold);
		waitpid(cmd_pid, NULL, 0);
	}
	for (i = 0; i < procs; i++) {
		close(go[i]);
		waitpid(kids[i], NULL, 0);
	}
	return up == want && server.established == want && !bad &&
			       !server.disconnected && !server.failed ?
		       0 : 1;
}

/* rdma_bind_addr on 0.0.0.0:p, then rdma_listen: what each says. */
static int bind_only(void)
{
	struct sockaddr_in any = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	struct rdma_cm_id *id;

	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
		return 2;
	if (rdma_bind_addr(id, (struct sockaddr *)&any)) {
		printf("bind %u: %s\n", port, strerror(errno));
		return 0;
	}
	printf("bind %u: ok\n", port);
	printf("listen %u: %s\n", port,
	       rdma_listen(id, 1) ? strerror(errno) : "ok");
	rdma_destroy_id(id);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	open_files();
	if (argc == 3 && !strcmp(argv[1], "--bind")) {
		port = (uint16_t)atoi(argv[2]);
		return bind_only();
	}
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: cm_crowd PORT EARLY LATE PER "
			"[COMMAND] | --bind PORT\n");
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	return crowd(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
		     argc == 6 ? argv[5] : NULL);
}
