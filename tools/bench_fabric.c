/* tools/bench_fabric.c: the bench's libfabric baseline: fi_pingpong from
 * libfabric-bin on the shm provider (-p shm -e rdm), a server and a client
 * on this host, at 8 B and at 64 KiB, its output parsed into a round trip
 * and a ping-pong bandwidth. Any trouble (no fi_pingpong, a provider that
 * will not start, output we do not understand) makes the baseline
 * unavailable with a reason; it never fails the bench.
 *
 * What fi_pingpong prints, and what we take from it: it times its
 * iterations of one send and one receive and divides the time by twice
 * the iterations, so "usec/xfer" is half a round trip; we report twice it.
 * "MB/sec" is the bytes of both directions (2 x iterations x size) over
 * the same time, 10^6 bytes per second, with one message in flight: we
 * report it as it is. Both are means over a pair's iterations; a run's
 * figure is the median of three pairs. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bench.h"

#define TOOL		"fi_pingpong"
#define OUT_MAX		8192	/* what we keep of the client's output */
#define MAX_TOKENS	16
#define DEADLINE_S	20	/* per pair, times th_slack() */
#define REPS		3	/* pairs per figure and run */

static int why(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int why(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}

int bench_fabric_find(char *err, size_t len)
{
	const char *path = getenv("PATH");
	char dir[4096];
	const char *p, *e;

	for (p = path; p && *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ':');
		if (snprintf(dir, sizeof(dir), "%.*s/%s", (int)(e - p),
			     e > p ? p : ".", TOOL) >= (int)sizeof(dir))
			continue;
		if (!access(dir, X_OK))
			return 0;
	}
	return why(err, len, "%s not found (Debian: libfabric-bin)", TOOL);
}

/* A TCP port free now on loopback, for fi_pingpong's control socket: its
 * default (47592) would be shared by benches that run at once. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* 1 when some socket listens on TCP port (v4 or v6), 0 when none does,
 * -1 when /proc does not tell. */
static int listening(int port)
{
	static const char *const files[] = { "/proc/net/tcp",
					     "/proc/net/tcp6" };
	unsigned int lport, st;
	char line[512];
	int seen = 0, found = 0;
	size_t i;
	FILE *f;

	for (i = 0; i < sizeof(files) / sizeof(files[0]) && !found; i++) {
		f = fopen(files[i], "re");
		if (!f)
			continue;
		seen = 1;
		while (!found && fgets(line, sizeof(line), f))
			/* "sl: local_addr:PORT rem_addr:PORT st ..." in hex;
			 * 0A is LISTEN. */
			if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:"
					 "%*x %x", &lport, &st) == 2 &&
			    (int)lport == port && st == 0x0A)
				found = 1;
		fclose(f);
	}
	return seen ? found : -1;
}

/* fi_pingpong with args, stdout and stderr to out (or /dev/null). */
static pid_t spawn(char *const argv[], int out)
{
	pid_t parent = getpid(), pid = fork();
	int null;

	if (pid)
		return pid;
	/* Never left behind by a bench that is killed: a server would wait
	 * for its client forever. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(126);
	signal(SIGPIPE, SIG_DFL);
	if (out < 0) {
		null = open("/dev/null", O_WRONLY);
		out = null < 0 ? STDERR_FILENO : null;
	}
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	/* Only the shm provider: libfabric then does not start the others
	 * (the verbs one would find the emulated device of `emuverbs run`). */
	setenv("FI_PROVIDER", "shm", 1);
	execvp(TOOL, argv);
	_exit(127);
}

/* Waits for pid until the deadline (th_now_us); its status, or -1 and
 * SIGKILLed when it is still there then. */
static int reap(pid_t pid, double deadline)
{
	int st;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) :
					       128 + WTERMSIG(st);
		if (w < 0 && errno != EINTR)
			return -1;
		if (th_now_us() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		/* A wait for a condition, a millisecond at a time. */
		poll(NULL, 0, 1);
	}
}

/* Reads fd to its end or the deadline into out (NUL-terminated). */
static int read_all(int fd, char *out, size_t len, double deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char tmp[1024];
	size_t got = 0;
	ssize_t n;
	int ms;

	for (;;) {
		ms = (int)((deadline - th_now_us()) / 1e3);
		if (ms <= 0)
			return -1;
		if (poll(&p, 1, ms) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!p.revents)
			continue;
		n = read(fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (got + (size_t)n >= len)
			n = (ssize_t)(len - 1 - got);
		memcpy(out + got, tmp, (size_t)n);
		got += (size_t)n;
	}
	out[got] = '\0';
	return 0;
}

static int split(char *line, char **tok)
{
	int n = 0;
	char *s, *save = NULL;

	for (s = strtok_r(line, " \t\r", &save); s && n < MAX_TOKENS;
	     s = strtok_r(NULL, " \t\r", &save))
		tok[n++] = s;
	return n;
}

static int number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	/* 0.00 is a figure: MB/sec of 8 B when a round trip takes ms. */
	return errno || end == s || *end || !(*v >= 0) || *v > 1e12 ? -1 : 0;
}

/*
 * The figures of fi_pingpong's output: the header that names "MB/sec" and
 * "usec/xfer" says where they are, and the first line after it with as
 * many fields is the result (the order and the other columns have moved
 * between libfabric versions; fields are never empty).
 */
static int parse(char *out, double *mbps, double *usec, char *err,
		 size_t len)
{
	int ncol = 0, imb = -1, ius = -1, n, i;
	char *tok[MAX_TOKENS], *line, *save = NULL, first[80] = "";

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!*first)
			snprintf(first, sizeof(first), "%s", line);
		n = split(line, tok);
		if (ncol && n == ncol) {
			if (number(tok[imb], mbps) || number(tok[ius], usec))
				return why(err, len, "unexpected figures in "
					   "%s's output", TOOL);
			return 0;
		}
		for (i = 0; i < n; i++) {
			if (!strcmp(tok[i], "MB/sec"))
				imb = i;
			if (!strcmp(tok[i], "usec/xfer"))
				ius = i;
		}
		if (imb >= 0 && ius >= 0 && !ncol)
			ncol = n;
	}
	return why(err, len, "no result in %s's output%s%s", TOOL,
		   *first ? ": " : "", first);
}

/* The last line of what a process that ended wrote into fd: where
 * fi_pingpong says what went wrong, after its header if any. */
static void last_line(int fd, char *out, size_t len)
{
	char buf[OUT_MAX], *nl;
	size_t got = 0;
	ssize_t n;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (;;) {
		/* Keep the last half of a full buffer and read on. */
		if (got == sizeof(buf) - 1) {
			memmove(buf, buf + got / 2, got - got / 2);
			got -= got / 2;
		}
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	while (got && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
		got--;
	buf[got] = '\0';
	nl = strrchr(buf, '\n');
	nl = nl ? nl + 1 : buf;
	got = strlen(nl) < len ? strlen(nl) : len - 1;
	memcpy(out, nl, got);
	out[got] = '\0';
}

/*
 * Starts argv's server on a free port (its -B, written into port) and
 * waits until it listens: the client gives up at once when nobody does.
 * What the server writes is left in *said_fd's pipe.
 * A port taken between our pick and the server's bind makes the server
 * exit; then another port.
 */
static pid_t start_server(char *const argv[], char *port, size_t plen,
			  int *said_fd, double deadline, char *err, size_t len)
{
	char said[160] = "";
	int tries, up = 0, st = 0, p[2];
	pid_t sp = -1;

	for (tries = 0; tries < 3; tries++) {
		int n = free_port();

		if (n < 0)
			return why(err, len, "no free TCP port: %s",
				   strerror(errno));
		snprintf(port, plen, "%d", n);
		/* Its output kept for a failure; it is small, the pipe
		 * never fills. */
		if (pipe2(p, O_CLOEXEC))
			return why(err, len, "pipe: %s", strerror(errno));
		sp = spawn(argv, p[1]);
		close(p[1]);
		if (sp < 0) {
			close(p[0]);
			return why(err, len, "fork: %s", strerror(errno));
		}
		while (!up && th_now_us() < deadline) {
			if (waitpid(sp, &st, WNOHANG) == sp)
				break;
			up = listening(n);
			if (!up)
				poll(NULL, 0, 1);
		}
		if (up > 0) {
			*said_fd = p[0];
			return sp;
		}
		if (up == 0 && th_now_us() < deadline) {
			/* Exited: say what it said, try another port. */
			last_line(p[0], said, sizeof(said));
			close(p[0]);
			continue;
		}
		close(p[0]);
		kill(sp, SIGKILL);
		reap(sp, deadline);
		return why(err, len, up < 0 ? "/proc/net/tcp unreadable: "
			   "cannot tell when %s listens" :
			   "%s's server never listened", TOOL);
	}
	return why(err, len, "%s's server exited (status %d) before it "
		   "listened%s%s", TOOL, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		   *said ? ": " : "", said);
}

/* One server and client pair at size bytes, iters iterations. */
static int pair(int size, int iters, double *mbps, double *usec, char *err,
		size_t len)
{
	char s_size[16], s_iters[16], s_port[16], out[OUT_MAX];
	char *server[] = { TOOL, "-p", "shm", "-e", "rdm", "-S", s_size,
			   "-I", s_iters, "-B", s_port, NULL };
	char *client[] = { TOOL, "-p", "shm", "-e", "rdm", "-S", s_size,
			   "-I", s_iters, "-P", s_port, "127.0.0.1", NULL };
	double deadline = th_now_us() + DEADLINE_S * 1e6 * th_slack();
	int p[2], st, sst, said_fd = -1;
	char said[160] = "";
	pid_t sp, cp = -1;

	snprintf(s_size, sizeof(s_size), "%d", size);
	snprintf(s_iters, sizeof(s_iters), "%d", iters);
	sp = start_server(server, s_port, sizeof(s_port), &said_fd, deadline,
			  err, len);
	if (sp < 0)
		return -1;
	if (!pipe2(p, O_CLOEXEC)) {
		cp = spawn(client, p[1]);
		close(p[1]);
		if (cp > 0 && read_all(p[0], out, sizeof(out), deadline)) {
			kill(cp, SIGKILL);
			reap(cp, deadline);
			cp = -1;
		}
		close(p[0]);
	}
	if (cp < 0) {
		kill(sp, SIGKILL);
		reap(sp, deadline);
		close(said_fd);
		return why(err, len, "%s at %d B did not finish in time",
			   TOOL, size);
	}
	st = reap(cp, deadline);
	/* The figures are the client's: a server that ends badly after it
	 * (once under load in the test suite) does not undo them, but a
	 * client that failed may have been let down by it. It has seconds
	 * to end once its client did. */
	sst = reap(sp, st ? deadline : th_now_us() + 5e6 * th_slack());
	last_line(said_fd, said, sizeof(said));
	close(said_fd);
	if (st && sst)
		return why(err, len, "%s's server at %d B: exit %d%s%s", TOOL,
			   size, sst, *said ? ": " : "", said);
	if (st) {
		char *nl;

		while (*out && strchr("\r\n", out[strlen(out) - 1]))
			out[strlen(out) - 1] = '\0';
		nl = strrchr(out, '\n');
		return why(err, len, "%s's client at %d B: exit %d%s%s", TOOL,
			   size, st, *out ? ": " : "", nl ? nl + 1 : out);
	}
	return parse(out, mbps, usec, err, len);
}

int bench_fabric(const struct bench_sizes *z, struct bench_fabric *f,
		 char *err, size_t len)
{
	double rtt[REPS], mbps[REPS], usec, unused;
	int i;

	/*
	 * A mean over a run is at the mercy of one moment the machine gives
	 * a spinning side's CPU to someone else (on 2 busy cores, means of
	 * 0.3 and 14 us per transfer came a second apart), where the
	 * emulated figures are medians of each round trip. So each figure
	 * of a run is the median of REPS pairs' means, each pair as many
	 * round trips as the emulated figure (milliseconds on a quiet
	 * machine; on an oversubscribed one fi_pingpong, which spins and
	 * never yields, can take a time slice per round trip).
	 */
	for (i = 0; i < REPS; i++) {
		if (pair(BENCH_PING, z->pings, &unused, &usec, err, len))
			return -1;
		rtt[i] = 2 * usec;
		if (pair(BENCH_BULK, z->bulk_msgs, &mbps[i], &unused, err,
			 len))
			return -1;
		if (!(rtt[i] > 0) || !(mbps[i] > 0))
			return why(err, len, "%s reported a zero figure",
				   TOOL);
	}
	f->rtt_us = bench_median(rtt, REPS);
	f->pp_mbps = bench_median(mbps, REPS);
	return 0;
}
