/* emuverbs-top, behind `emuverbs top TARGET [-d SECS] [-n COUNT]`: a live
 * view of the QPs of the processes TARGET names (the control socket's qps
 * command), refreshed every SECS (1), with each QP's type, state, peer,
 * packets in flight, send and receive rates and resends; q quits. The
 * terminal is put in raw mode and restored on every way out: q, COUNT
 * refreshes, end of input, and the signals that end a program. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "tools/ctl.h"

#define MAX_TARGETS 64

/* One QP as a qps line gives it. */
struct row {
	int pid;
	char comm[16];
	uint32_t qpn, dqpn, inflight;
	char port[24], type[12], state[8], peer[48], wire[8];
	uint64_t time_ns, tx_pkts, tx_bytes, rx_pkts, rx_bytes, resent;
};

struct rows {
	struct row *r;
	unsigned int n, cap;
};

static struct termios saved;
static bool raw_on;
static volatile sig_atomic_t quit, resized;

static void restore(void)
{
	/* Leave the screen and cursor as they were: the other screen off,
	 * the cursor shown, the line discipline back. */
	if (raw_on) {
		if (write(STDOUT_FILENO, "\033[?25h\033[?1049l", 14) < 0)
			raw_on = true;	/* nothing more to do about it */
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
		raw_on = false;
	}
}

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		resized = 1;
	else
		quit = sig;
}

/* Raw input (keys one at a time, no echo) on the other screen; signals
 * still come from the keyboard, so ^C ends it as it ends top. */
static int raw_mode(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved))
		return 0;
	t = saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t))
		return -1;
	raw_on = true;
	atexit(restore);
	if (write(STDOUT_FILENO, "\033[?1049h\033[?25l", 14) < 0)
		return -1;
	return 0;
}

static void rows_add(struct rows *rs, const struct row *r)
{
	struct row *n;

	if (rs->n == rs->cap) {
		n = realloc(rs->r, (rs->cap ? rs->cap * 2 : 64) * sizeof(*n));
		if (!n)
			return;	/* shown next time, with memory */
		rs->r = n;
		rs->cap = rs->cap ? rs->cap * 2 : 64;
	}
	rs->r[rs->n++] = *r;
}

/* The QPs of t, from its qps reply, into rs; false when it did not
 * answer (gone, or refused). */
static bool sample(const struct ctl_target *t, struct rows *rs)
{
	uint64_t time_ns = 0;
	struct row r;
	char *text, *line, *save = NULL;
	bool ok;

	text = ctl_request(t, "qps", &ok);
	if (!text || !ok) {
		free(text);
		return false;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		memset(&r, 0, sizeof(r));
		if (sscanf(line, "time_ns %" SCNu64, &time_ns) == 1)
			continue;
		if (sscanf(line, "qp %" SCNu32 " port %23s type %11s state %7s "
			   "peer %47s dqpn %" SCNu32 " inflight %" SCNu32
			   " wire %7s sent_pkts %" SCNu64 " rdma_tx_bytes %"
			   SCNu64 " rcvd_pkts %" SCNu64 " rdma_rx_bytes %"
			   SCNu64 " retransmits %" SCNu64, &r.qpn, r.port,
			   r.type, r.state, r.peer, &r.dqpn, &r.inflight,
			   r.wire, &r.tx_pkts, &r.tx_bytes, &r.rx_pkts,
			   &r.rx_bytes, &r.resent) != 13)
			continue;
		r.pid = t->pid;
		snprintf(r.comm, sizeof(r.comm), "%s", t->comm);
		r.time_ns = time_ns;
		rows_add(rs, &r);
	}
	free(text);
	return true;
}

static const struct row *before(const struct rows *prev, const struct row *r)
{
	unsigned int i;

	for (i = 0; i < prev->n; i++)
		if (prev->r[i].pid == r->pid && prev->r[i].qpn == r->qpn &&
		    !strcmp(prev->r[i].port, r->port))
			return &prev->r[i];
	return NULL;
}

static double per_s(uint64_t now, uint64_t then, uint64_t dt_ns)
{
	return dt_ns && now >= then ? (double)(now - then) * 1e9 /
					      (double)dt_ns : 0;
}

/* One screen: a header, the column names, a line per QP, each cut to
 * the terminal's width and no more lines than it has; with none, whether
 * processes of other jobs were left out. */
static void draw(const char *target, const struct ctl_scope *s,
		 const struct rows *cur, const struct rows *prev, int answered)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	char line[512], clock[16];
	unsigned int i, lines, cols;
	time_t now = time(NULL);

	ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
	lines = ws.ws_row ? ws.ws_row : 24;
	cols = ws.ws_col ? ws.ws_col : 80;
	if (cols >= sizeof(line))
		cols = sizeof(line) - 1;
	strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&now));
	printf("\033[H\033[2J");
	snprintf(line, sizeof(line), "emuverbs top %s - %s - %d process%s, "
		 "%u QP%s - q quits", target, clock, answered,
		 answered == 1 ? "" : "es", cur->n, cur->n == 1 ? "" : "s");
	printf("%.*s\r\n", (int)cols, line);
	snprintf(line, sizeof(line), "%7s %-12s %8s %-7s %-8s %-5s %-19s %8s "
		 "%9s %8s %9s %8s %6s %8s", "PID", "COMMAND", "QPN", "PORT",
		 "TYPE", "STATE", "PEER (WIRE)", "DQPN", "TX pkt/s", "TX MB/s",
		 "RX pkt/s", "RX MB/s", "FLIGHT", "RESENT");
	printf("%.*s\r\n", (int)cols, line);
	for (i = 0; i < cur->n && i + 3 < lines; i++) {
		const struct row *r = &cur->r[i];
		const struct row *p = before(prev, r);
		uint64_t dt = p ? r->time_ns - p->time_ns : 0;
		char peer[64];

		/* The peer with the wire its packets take: "udp" or "shm". */
		if (strcmp(r->wire, "-"))
			snprintf(peer, sizeof(peer), "%s %s", r->peer, r->wire);
		else
			snprintf(peer, sizeof(peer), "%s", r->peer);

		snprintf(line, sizeof(line), "%7d %-12.12s %8u %-7s %-8s "
			 "%-5s %-19.19s %8u %9.0f %8.2f %9.0f %8.2f %6u "
			 "%8" PRIu64,
			 r->pid, r->comm, r->qpn, r->port, r->type, r->state,
			 peer, r->dqpn,
			 p ? per_s(r->tx_pkts, p->tx_pkts, dt) : 0,
			 p ? per_s(r->tx_bytes, p->tx_bytes, dt) / 1e6 : 0,
			 p ? per_s(r->rx_pkts, p->rx_pkts, dt) : 0,
			 p ? per_s(r->rx_bytes, p->rx_bytes, dt) / 1e6 : 0,
			 r->inflight, r->resent);
		printf("%.*s\r\n", (int)cols, line);
	}
	if (!answered)
		printf("no process of yours with an emulated device open "
		       "matches %s\r\n", target);
	if (!answered && s->others)
		printf("%d of yours in other jobs left out: -A (--all-jobs) "
		       "or --job NAME reaches them\r\n", s->others);
	fflush(stdout);
}

/* Wait up to ms for a key: true when it says to quit. */
static bool keys(int ms, bool *eof)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char c[16];
	ssize_t n, i;

	if (*eof) {
		pfd.fd = -1;		/* nothing to read: just wait */
	}
	if (poll(&pfd, 1, ms) <= 0 || !(pfd.revents & (POLLIN | POLLHUP)))
		return false;
	n = read(STDIN_FILENO, c, sizeof(c));
	if (n == 0)
		*eof = true;	/* input closed: refresh until a signal */
	for (i = 0; i < n; i++)
		if (c[i] == 'q' || c[i] == 'Q')
			return true;
	return false;
}

static void usage(FILE *f)
{
	fputs("usage: emuverbs top TARGET [-d SECS] [-n COUNT]\n"
	      "TARGET: a PID, a command name, or all\n"
	      "  -d SECS   refresh every SECS seconds (1)\n"
	      "  -n COUNT  COUNT refreshes, then exit\n", f);
	fputs(ctl_scope_usage, f);
	fputs("keys: q quits\n", f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "all-jobs", no_argument, NULL, 'A' },
		{ "job", required_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl_target t[MAX_TARGETS];
	struct ctl_scope scope;
	struct rows cur = { 0 }, prev = { 0 }, tmp;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long count = 0, shown;
	double delay = 1;
	bool eof = false;
	uint64_t next;
	struct timespec ts;
	char *end;
	int c, i, n, answered;

	if (ctl_scope_init(&scope, "emuverbs top"))
		return 2;
	while ((c = getopt_long(argc, argv, "d:n:hA", opts, NULL)) != -1) {
		switch (c) {
		case 'A':
		case 'J':
			if (ctl_scope_set(&scope, "emuverbs top",
					  c == 'J' ? optarg : NULL))
				return 2;
			break;
		case 'd':
			errno = 0;
			delay = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(delay >= 0.1) ||
			    delay > 3600) {
				fprintf(stderr, "emuverbs top: -d %s: not a "
					"number of seconds from 0.1\n", optarg);
				return 2;
			}
			break;
		case 'n':
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !count ||
			    optarg[0] == '-') {
				fprintf(stderr, "emuverbs top: -n %s: not a "
					"count\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 1) {
		usage(stderr);
		return 2;
	}
	/* No SA_RESTART: a signal ends the wait for keys at once. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (raw_mode()) {
		restore();
		fprintf(stderr, "emuverbs top: cannot set up the terminal: "
			"%s\n", strerror(errno));
		return 1;
	}
	for (shown = 0; !quit; shown++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		next = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec /
			1000000 + (uint64_t)(delay * 1000);
		tmp = prev;
		prev = cur;
		cur = tmp;
		cur.n = 0;
		n = ctl_targets(argv[optind], &scope, t, MAX_TARGETS);
		for (i = 0, answered = 0; i < n; i++)
			answered += sample(&t[i], &cur);
		draw(argv[optind], &scope, &cur, &prev, answered);
		if (count && shown + 1 >= count)
			break;
		/* Until the next refresh: keys, a resize redraws at once. */
		for (;;) {
			uint64_t now;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			now = (uint64_t)ts.tv_sec * 1000 +
			      (uint64_t)ts.tv_nsec / 1000000;
			if (quit || now >= next)
				break;
			if (keys((int)(next - now), &eof)) {
				quit = -1;
				break;
			}
			if (resized) {
				resized = 0;
				draw(argv[optind], &scope, &cur, &prev, answered);
			}
		}
	}
	restore();
	free(cur.r);
	free(prev.r);
	return quit > 0 ? 128 + quit : 0;
}
