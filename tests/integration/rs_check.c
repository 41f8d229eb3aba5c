/* rs_check: rsockets (<rdma/rsocket.h>) between a server and a client
 * process over 127.0.0.1: the refusals, connecting, streams byte for byte,
 * polling, the end of a stream, riomap/riowrite and datagrams, each check
 * one TAP-like line, with the errnos rdma-core's rsocket.c gives. */

/*
 * main forks at once, before any rdma call, into the server and the
 * client; it makes none itself, only collects their results from a pipe
 * (one record per write, so the two never interleave), numbers them and
 * prints them. That keeps one numbering, and lets a child that dies or
 * hangs (each has an alarm) still show up as a failure.
 *
 * The two pace each other with real pipes until they share a connection,
 * and with single bytes on the connection after. The ports are argv[1]
 * and the next few: the server's stream listener (P), a stream port
 * nothing listens on (P + 1), the server's datagram port (P + 2), a
 * datagram port nothing is bound to (P + 3) and one for the bind checks
 * (P + 4); lib.sh's next_port leaves room for them in its block.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#define P_LISTEN	0
#define P_NOBODY	1
#define P_DGRAM		2
#define P_DGRAM_NOBODY	3
#define P_BIND		4

#define BIG		(8u << 20)	/* the stream's bulk transfer */
#define IOMAP_LEN	(64u * 1024)
#define NDGRAMS		100
#define WAIT_MS		5000	/* for anything the peer does */
#define CHILD_ALARM	90	/* s; the script's timeout is 120 */

/* ---- Results: children write records, main prints them */

struct record {
	char kind;			/* 'o' ok, 'n' not ok, '#' a note */
	char who;			/* 's' server, 'c' client */
	char text[254];
};

static int report_fd = -1;
static char me;
static volatile sig_atomic_t sigpipes;

static void emit(char kind, const char *fmt, va_list ap)
{
	struct record r = { .kind = kind, .who = me };

	vsnprintf(r.text, sizeof(r.text), fmt, ap);
	/* Below PIPE_BUF: the write is atomic. */
	if (write(report_fd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
}

static bool check(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static bool check(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(ok ? 'o' : 'n', fmt, ap);
	va_end(ap);
	return ok;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit('#', fmt, ap);
	va_end(ap);
}

/* A step the rest depends on failed: report it and stop this side. */
static void bail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit('n', fmt, ap);
	va_end(ap);
	exit(1);
}

static const char *ename(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "0";
	case EBADF: return "EBADF";
	case EINVAL: return "EINVAL";
	case ENOTSUP: return "ENOTSUP";
	case EADDRINUSE: return "EADDRINUSE";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ECONNRESET: return "ECONNRESET";
	case EINPROGRESS: return "EINPROGRESS";
	case EISCONN: return "EISCONN";
	case ENOTCONN: return "ENOTCONN";
	case EAGAIN: return "EAGAIN";
	case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT";
	case ENOMEM: return "ENOMEM";
	case EDESTADDRREQ: return "EDESTADDRREQ";
	case EMSGSIZE: return "EMSGSIZE";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case EPIPE: return "EPIPE";
	case ENOSYS: return "ENOSYS";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* ret is what a call returned, err the errno it left: -1 with want? */
static bool check_err(long ret, int err, int want, const char *what)
{
	if (ret == -1 && err == want)
		return check(true, "%s: %s", what, ename(want));
	return check(false, "%s: %s (got %ld, %s)", what, ename(want), ret,
		     ret == -1 ? ename(err) : "no error");
}

/* Evaluates call once, then checks it against -1/want. */
#define CHECK_ERR(call, want, what) do {				\
	long r_;							\
	errno = 0;							\
	r_ = (long)(call);						\
	check_err(r_, errno, (want), (what));				\
} while (0)

static bool check_zero(long ret, int err, const char *what)
{
	if (ret == 0)
		return check(true, "%s: 0", what);
	return check(false, "%s: 0 (got %ld, %s)", what, ret, ename(err));
}

#define CHECK_ZERO(call, what) do {					\
	long r_;							\
	errno = 0;							\
	r_ = (long)(call);						\
	check_zero(r_, errno, (what));					\
} while (0)

/* fn on a number that is not an rsocket (described by name): EBADF. */
#define NOT_OURS(call, fn, name) do {					\
	char w_[80];							\
									\
	snprintf(w_, sizeof(w_), "%s on %s", (fn), (name));		\
	CHECK_ERR(call, EBADF, w_);					\
} while (0)

/* ---- Helpers */

static uint16_t base_port;

static struct sockaddr_in loopback(int which)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)(base_port + which));
	return sin;
}

#define SA(p) ((struct sockaddr *)(p))

/* A byte of the known pattern: position i of stream seed. */
static uint8_t pat(uint64_t i, uint32_t seed)
{
	uint64_t x = (i + 1 + seed * 0x9e3779b97f4a7c15ull) *
		     0xff51afd7ed558ccdull;

	return (uint8_t)(x >> 56 ^ x >> 24);
}

static void fill(uint8_t *b, size_t len, uint64_t start, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = pat(start + i, seed);
}

/* The first position where b differs from the pattern, or len. */
static size_t first_bad(const uint8_t *b, size_t len, uint64_t start,
			uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != pat(start + i, seed))
			break;
	return i;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Whether rsocket fd becomes readable within ms. */
static bool wait_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return rpoll(&p, 1, ms) == 1 && (p.revents & (POLLIN | POLLHUP));
}

/* Control pipes, for pacing before the two share a connection. */
static int ctl_in = -1, ctl_out = -1;

static void ctl_send(const void *b, size_t len)
{
	if (write(ctl_out, b, len) != (ssize_t)len)
		bail("control pipe write: %s", strerror(errno));
}

static void ctl_recv(void *b, size_t len, const char *what)
{
	struct pollfd p = { .fd = ctl_in, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		if (poll(&p, 1, 20000) != 1)
			bail("peer never got to: %s", what);
		n = read(ctl_in, (char *)b + got, len - got);
		if (n <= 0)
			bail("peer gone before: %s", what);
		got += (size_t)n;
	}
}

static void ctl_wait(char c, const char *what)
{
	char got;

	ctl_recv(&got, 1, what);
	if (got != c)
		bail("out of step: %c, not %c, before %s", got, c, what);
}

/* One pacing byte on an rsocket, and waiting for it. */
static void rs_sync_send(int fd, char c)
{
	if (rsend(fd, &c, 1, 0) != 1)
		bail("rsend of pacing byte %c: %s", c, strerror(errno));
}

static void rs_sync_wait(int fd, char c)
{
	char got = 0;
	ssize_t n;

	if (!wait_in(fd, 3 * WAIT_MS))
		bail("pacing byte %c never came", c);
	n = rrecv(fd, &got, 1, 0);
	if (n != 1 || got != c)
		bail("pacing byte %c: rrecv %zd, byte %c, %s", c, n, got,
		     n < 0 ? strerror(errno) : "");
}

/* rsend all of b, in whatever pieces rsend takes. */
static ssize_t send_all(int fd, const uint8_t *b, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = rsend(fd, b + done, len - done, 0);
		if (n <= 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static void on_sigpipe(int sig)
{
	sigpipes++;
}

static void child_setup(char who)
{
	me = who;
	signal(SIGPIPE, on_sigpipe);
	alarm(CHILD_ALARM);
}

/* ---- Client: the checks that need no peer */

static void refusals(void)
{
	int p[2], bad[2], i, s, fl;
	struct sockaddr_in sin = loopback(P_BIND);
	socklen_t len = sizeof(int);
	char buf[8] = { 0 };

	CHECK_ERR(rsocket(AF_UNIX, SOCK_STREAM, 0), ENOTSUP,
		  "rsocket(AF_UNIX, SOCK_STREAM)");
	CHECK_ERR(rsocket(AF_INET, SOCK_RAW, 0), ENOTSUP,
		  "rsocket(AF_INET, SOCK_RAW)");
	CHECK_ERR(rsocket(AF_INET, SOCK_STREAM, IPPROTO_UDP), ENOTSUP,
		  "rsocket(AF_INET, SOCK_STREAM, IPPROTO_UDP)");
	s = rsocket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	check(s >= 0, "rsocket(SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK) "
	      "accepted (%d, %s)", s, s < 0 ? ename(errno) : "ok");
	if (s >= 0) {
		fl = rfcntl(s, F_GETFL);
		check(fl >= 0 && (fl & O_NONBLOCK),
		      "SOCK_NONBLOCK shows in rfcntl(F_GETFL) (%#x)", fl);
		CHECK_ZERO(rclose(s), "rclose");
	}

	/* Numbers that are not rsockets: a pipe's, and -1. */
	if (pipe(p))
		bail("pipe: %s", strerror(errno));
	bad[0] = p[0];
	bad[1] = -1;
	for (i = 0; i < 2; i++) {
		int fd = bad[i];
		const char *name = i ? "-1" : "a pipe fd";
		int v;

		NOT_OURS(rbind(fd, SA(&sin), sizeof(sin)), "rbind", name);
		NOT_OURS(rlisten(fd, 1), "rlisten", name);
		NOT_OURS(raccept(fd, NULL, NULL), "raccept", name);
		NOT_OURS(rconnect(fd, SA(&sin), sizeof(sin)), "rconnect",
			 name);
		NOT_OURS(rsend(fd, buf, 1, 0), "rsend", name);
		NOT_OURS(rrecv(fd, buf, 1, MSG_DONTWAIT), "rrecv", name);
		len = sizeof(v);
		NOT_OURS(rgetsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len),
			 "rgetsockopt", name);
		NOT_OURS(rfcntl(fd, F_GETFL), "rfcntl", name);
		NOT_OURS(rclose(fd), "rclose", name);
	}
	/* rclose of a number not ours must leave the descriptor alone. */
	check(fcntl(p[0], F_GETFD) >= 0, "rclose on a pipe fd left it open");
	close(p[0]);
	close(p[1]);
}

static void unconnected(void)
{
	struct sockaddr_in sin = loopback(P_BIND), name;
	socklen_t len = sizeof(name);
	int s, t, v, r;

	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		bail("rsocket: %s", strerror(errno));
	CHECK_ERR(raccept(s, NULL, NULL), EBADF,
		  "raccept on a socket not listening");
	CHECK_ZERO(rshutdown(s, SHUT_RDWR),
		   "rshutdown on an unconnected stream socket");
	CHECK_ERR(rgetpeername(s, SA(&name), &len), ENOTCONN,
		  "rgetpeername on an unconnected socket");

	CHECK_ZERO(rbind(s, SA(&sin), sizeof(sin)), "rbind 127.0.0.1:P+4");
	CHECK_ERR(rbind(s, SA(&sin), sizeof(sin)), EINVAL, "rbind twice");
	t = rsocket(AF_INET, SOCK_STREAM, 0);
	if (t < 0)
		bail("rsocket: %s", strerror(errno));
	CHECK_ERR(rbind(t, SA(&sin), sizeof(sin)), EADDRINUSE,
		  "second socket binding the same port");
	rclose(t);
	rclose(s);

	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		bail("rsocket: %s", strerror(errno));
	sin.sin_port = 0;
	len = sizeof(name);
	memset(&name, 0, sizeof(name));
	if (check(!rbind(s, SA(&sin), sizeof(sin)), "rbind to port 0")) {
		r = rgetsockname(s, SA(&name), &len);
		check(!r && name.sin_family == AF_INET && name.sin_port,
		      "rgetsockname after rbind to port 0: port %u",
		      ntohs(name.sin_port));
	}

	v = 1;
	CHECK_ERR(rsetsockopt(s, SOL_SOCKET, SO_BROADCAST, &v, sizeof(v)),
		  ENOTSUP, "rsetsockopt(SO_BROADCAST), an unknown option");
	CHECK_ERR(rsetsockopt(s, SOL_RDMA, 99, &v, sizeof(v)), ENOTSUP,
		  "rsetsockopt(SOL_RDMA, 99)");
	v = 65536;
	CHECK_ZERO(rsetsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)),
		   "rsetsockopt(SO_RCVBUF, 65536)");
	v = 0;
	len = sizeof(v);
	r = rgetsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, &len);
	check(!r && v == 131072, "SO_RCVBUF reads back 131072 (%d)", v);
	rclose(s);
}

/* Connecting where nothing listens, blocking and not. */
static void refused(void)
{
	struct sockaddr_in sin = loopback(P_NOBODY);
	struct pollfd p;
	socklen_t len;
	uint64_t t0;
	int s, v, r;

	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		bail("rsocket: %s", strerror(errno));
	CHECK_ERR(rconnect(s, SA(&sin), sizeof(sin)), ECONNREFUSED,
		  "blocking rconnect where nothing listens");
	rclose(s);

	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		bail("rsocket: %s", strerror(errno));
	CHECK_ZERO(rfcntl(s, F_SETFL, O_NONBLOCK),
		   "rfcntl(F_SETFL, O_NONBLOCK)");
	CHECK_ERR(rconnect(s, SA(&sin), sizeof(sin)), EINPROGRESS,
		  "nonblocking rconnect where nothing listens");
	CHECK_ERR(rconnect(s, SA(&sin), sizeof(sin)), EINPROGRESS,
		  "rconnect again while it is in progress");
	p = (struct pollfd){ .fd = s, .events = POLLOUT };
	t0 = now_ms();
	r = rpoll(&p, 1, WAIT_MS);
	check(r == 1 && (p.revents & (POLLERR | POLLOUT)),
	      "rpoll(POLLOUT) reports the refusal (%d, revents %#x, "
	      "%llu ms)", r, (unsigned int)p.revents,
	      (unsigned long long)(now_ms() - t0));
	v = -1;
	len = sizeof(v);
	r = rgetsockopt(s, SOL_SOCKET, SO_ERROR, &v, &len);
	check(!r && v == ECONNREFUSED, "SO_ERROR after it: ECONNREFUSED (%s)",
	      r ? "call failed" : ename(v));
	v = -1;
	len = sizeof(v);
	r = rgetsockopt(s, SOL_SOCKET, SO_ERROR, &v, &len);
	check(!r && v == 0, "SO_ERROR read again: 0 (%s)",
	      r ? "call failed" : ename(v));
	rclose(s);
}

/* ---- The stream: client and server halves, step by step */

static uint8_t *big;

static int client_connect_nonblocking(void)
{
	struct sockaddr_in sin = loopback(P_LISTEN), peer;
	socklen_t len;
	struct pollfd p;
	int s, v, r;

	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		bail("rsocket: %s", strerror(errno));
	v = 1;
	CHECK_ZERO(rsetsockopt(s, SOL_RDMA, RDMA_IOMAPSIZE, &v, sizeof(v)),
		   "client RDMA_IOMAPSIZE 1 before connecting");
	rfcntl(s, F_SETFL, O_NONBLOCK);
	errno = 0;
	r = rconnect(s, SA(&sin), sizeof(sin));
	if (!check_err(r, errno, EINPROGRESS, "nonblocking rconnect to the "
		       "server") && r)
		bail("cannot connect to the server");
	p = (struct pollfd){ .fd = s, .events = POLLOUT };
	r = rpoll(&p, 1, 2 * WAIT_MS);
	check(r == 1 && (p.revents & POLLOUT) && !(p.revents & POLLERR),
	      "rpoll(POLLOUT) once connected (%d, revents %#x)", r,
	      (unsigned int)p.revents);
	v = -1;
	len = sizeof(v);
	r = rgetsockopt(s, SOL_SOCKET, SO_ERROR, &v, &len);
	if (!check(!r && v == 0, "SO_ERROR once connected: 0 (%s)",
		   r ? "call failed" : ename(v)))
		bail("no connection to the server");
	rfcntl(s, F_SETFL, 0);
	len = sizeof(peer);
	r = rgetpeername(s, SA(&peer), &len);
	check(!r && peer.sin_port == sin.sin_port &&
		      peer.sin_addr.s_addr == sin.sin_addr.s_addr,
	      "rgetpeername names the server");
	v = 64;
	CHECK_ERR(rsetsockopt(s, SOL_RDMA, RDMA_SQSIZE, &v, sizeof(v)),
		  EINVAL, "RDMA_SQSIZE after connecting");
	CHECK_ERR(rsendto(s, "x", 1, 0, SA(&sin), sizeof(sin)), EISCONN,
		  "rsendto with an address on a connected stream");
	return s;
}

static const size_t odd_sizes[] = { 1, 7, 4097, 100000 };

static void client_data(int s)
{
	struct iovec iov[3];
	uint8_t a[10], b[300], c[5000];
	char peek[16] = "peek-0123456789";
	ssize_t n;
	size_t i;
	bool all = true;

	/* 8 MiB. */
	fill(big, BIG, 0, 1);
	n = send_all(s, big, BIG);
	check(n == (ssize_t)BIG, "rsend of 8 MiB: %zd bytes", n);

	/* Odd sizes, each a pattern of its own. */
	for (i = 0; i < sizeof(odd_sizes) / sizeof(odd_sizes[0]); i++) {
		fill(big, odd_sizes[i], 0, 10 + (uint32_t)i);
		n = rsend(s, big, odd_sizes[i], 0);
		if (n != (ssize_t)odd_sizes[i]) {
			all = false;
			note("rsend of %zu returned %zd (%s)", odd_sizes[i], n,
			     n < 0 ? ename(errno) : "short");
		}
	}
	check(all, "blocking rsend of 1, 7, 4097 and 100000 bytes returns "
	      "each size");

	n = rsend(s, peek, sizeof(peek), 0);
	check(n == sizeof(peek), "rsend of 16 bytes to peek at: %zd", n);

	fill(a, sizeof(a), 0, 20);
	fill(b, sizeof(b), sizeof(a), 20);
	fill(c, sizeof(c), sizeof(a) + sizeof(b), 20);
	iov[0] = (struct iovec){ a, sizeof(a) };
	iov[1] = (struct iovec){ b, sizeof(b) };
	iov[2] = (struct iovec){ c, sizeof(c) };
	n = rwritev(s, iov, 3);
	check(n == (ssize_t)(sizeof(a) + sizeof(b) + sizeof(c)),
	      "rwritev of 3 iovecs (10 + 300 + 5000): %zd", n);
}

/* rrecv len bytes with MSG_WAITALL, checked against seed's pattern. */
static void recv_waitall(int s, size_t len, uint32_t seed)
{
	ssize_t n;
	size_t bad;

	memset(big, 0, len);
	n = rrecv(s, big, len, MSG_WAITALL);
	bad = n > 0 ? first_bad(big, (size_t)n, 0, seed) : 0;
	check(n == (ssize_t)len && bad == len,
	      "rrecv MSG_WAITALL of %zu bytes: %zd, first wrong byte at %zu",
	      len, n, bad);
}

static void server_data(int s)
{
	struct iovec iov[3];
	uint8_t a[1000], b[4000], c[310], flat[5310];
	char peek[16], again[16];
	size_t got = 0, bad, i;
	ssize_t n;
	int k;

	/* 8 MiB, in pieces as they come. */
	memset(big, 0, BIG);
	while (got < BIG) {
		n = rrecv(s, big + got, BIG - got < 100000 ? BIG - got : 100000,
			  0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	bad = first_bad(big, got, 0, 1);
	check(got == BIG && bad == BIG,
	      "8 MiB client->server: %zu bytes, first wrong byte at %zu", got,
	      bad);

	for (i = 0; i < sizeof(odd_sizes) / sizeof(odd_sizes[0]); i++)
		recv_waitall(s, odd_sizes[i], 10 + (uint32_t)i);

	memset(peek, 0, sizeof(peek));
	n = rrecv(s, peek, sizeof(peek), MSG_PEEK);
	check(n == sizeof(peek) && !memcmp(peek, "peek-0123456789", 16),
	      "rrecv MSG_PEEK returns the data: %zd", n);
	memset(again, 0, sizeof(again));
	n = rrecv(s, again, sizeof(again), MSG_WAITALL);
	check(n == sizeof(again) && !memcmp(again, "peek-0123456789", 16),
	      "and it is still there for rrecv: %zd", n);

	/* rreadv with a split of its own, until the 5310 bytes are in. */
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	memset(c, 0, sizeof(c));
	got = 0;
	for (k = 0; k < 100 && got < sizeof(flat); k++) {
		size_t skip = got;
		int j = 0;

		iov[0] = (struct iovec){ a, sizeof(a) };
		iov[1] = (struct iovec){ b, sizeof(b) };
		iov[2] = (struct iovec){ c, sizeof(c) };
		while (skip >= iov[j].iov_len) {
			skip -= iov[j].iov_len;
			j++;
		}
		iov[j].iov_base = (uint8_t *)iov[j].iov_base + skip;
		iov[j].iov_len -= skip;
		n = rreadv(s, iov + j, 3 - j);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	memcpy(flat, a, sizeof(a));
	memcpy(flat + sizeof(a), b, sizeof(b));
	memcpy(flat + sizeof(a) + sizeof(b), c, sizeof(c));
	bad = first_bad(flat, got, 0, 20);
	check(got == sizeof(flat) && bad == sizeof(flat),
	      "rreadv into 3 iovecs (1000 + 4000 + 310): %zu bytes in %d "
	      "calls, first wrong byte at %zu", got, k, bad);
}

/* Server: no data waiting; then a pipe and the socket in one rpoll. */
static void server_polling(int s, int lsock, int pollpipe)
{
	struct pollfd p[2];
	struct epoll_event ev, evs[4];
	struct timeval tv = { WAIT_MS / 1000, 0 };
	fd_set rd;
	char c;
	ssize_t n;
	int r, ep;

	errno = 0;
	n = rrecv(s, &c, 1, MSG_DONTWAIT);
	check_err(n, errno, EAGAIN, "rrecv MSG_DONTWAIT with no data");
	rfcntl(s, F_SETFL, O_NONBLOCK);
	errno = 0;
	n = rrecv(s, &c, 1, 0);
	check_err(n, errno, EAGAIN, "rrecv on an O_NONBLOCK socket with no "
		  "data");
	rfcntl(s, F_SETFL, 0);

	p[0] = (struct pollfd){ .fd = pollpipe, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = s, .events = POLLIN };
	r = rpoll(p, 2, 0);
	check(r == 0, "rpoll of a pipe and the rsocket, nothing ready, "
	      "timeout 0: %d", r);

	/* The client writes the pipe, then (once told) the socket. */
	rs_sync_send(s, 'P');
	r = rpoll(p, 2, 2 * WAIT_MS);
	check(r == 1 && (p[0].revents & POLLIN) && !(p[1].revents & POLLIN),
	      "rpoll: the pipe first (%d, pipe %#x, rsocket %#x)", r,
	      (unsigned int)p[0].revents, (unsigned int)p[1].revents);
	if (read(pollpipe, &c, 1) != 1)
		bail("poll pipe read: %s", strerror(errno));
	ctl_send("p", 1);
	r = rpoll(p, 2, 2 * WAIT_MS);
	check(r == 1 && !(p[0].revents & POLLIN) && (p[1].revents & POLLIN),
	      "rpoll: then the rsocket (%d, pipe %#x, rsocket %#x)", r,
	      (unsigned int)p[0].revents, (unsigned int)p[1].revents);

	/* Its byte still unread: rselect and repoll see it too. */
	FD_ZERO(&rd);
	FD_SET(s, &rd);
	r = rselect(s + 1, &rd, NULL, NULL, &tv);
	check(r == 1 && FD_ISSET(s, &rd), "rselect reports readability (%d)",
	      r);

	ep = repoll_create(0);
	if (!check(ep >= 0, "repoll_create: %d", ep))
		return;
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = 42 };
	CHECK_ZERO(repoll_ctl(ep, EPOLL_CTL_ADD, s, &ev),
		   "repoll_ctl(EPOLL_CTL_ADD) of the rsocket");
	CHECK_ERR(repoll_ctl(ep, EPOLL_CTL_ADD, s, &ev), EEXIST,
		  "repoll_ctl(EPOLL_CTL_ADD) twice");
	CHECK_ERR(repoll_ctl(ep, EPOLL_CTL_DEL, lsock, NULL), ENOENT,
		  "repoll_ctl(EPOLL_CTL_DEL) of an rsocket not in the set");
	memset(evs, 0, sizeof(evs));
	r = repoll_wait(ep, evs, 4, WAIT_MS);
	check(r == 1 && (evs[0].events & EPOLLIN) && evs[0].data.u32 == 42,
	      "repoll_wait reports EPOLLIN for the rsocket (%d, events %#x, "
	      "data %u)", r, evs[0].events, evs[0].data.u32);
	close(ep);
	rs_sync_wait(s, 'Q');
}

static void client_polling(int s, int pollpipe)
{
	rs_sync_wait(s, 'P');
	if (write(pollpipe, "!", 1) != 1)
		bail("poll pipe write: %s", strerror(errno));
	ctl_wait('p', "the server saw the pipe");
	rs_sync_send(s, 'Q');
}

static uint8_t iobuf[IOMAP_LEN] __attribute__((aligned(4096)));
static uint8_t iobuf2[4096] __attribute__((aligned(4096)));

static void server_iomap(int s)
{
	volatile uint8_t *last = &iobuf[IOMAP_LEN - 1];
	uint8_t want = pat(IOMAP_LEN - 1, 30);
	uint64_t t0;
	size_t bad;
	off_t off;

	errno = 0;
	off = riomap(s, iobuf, IOMAP_LEN, PROT_READ, 0, 0);
	check_err((long)off, errno, EINVAL, "riomap(PROT_READ)");
	memset(iobuf, (uint8_t)~want, IOMAP_LEN);
	errno = 0;
	off = riomap(s, iobuf, IOMAP_LEN, PROT_WRITE, 0, 0);
	if (!check(off == 0, "riomap of 64 KiB at offset 0: %lld (%s)",
		   (long long)off, off ? ename(errno) : "ok"))
		return;
	rs_sync_send(s, 'M');
	/* As riostream: the last byte says the write has landed. */
	t0 = now_ms();
	while (*last != want && now_ms() - t0 < WAIT_MS)
		;
	bad = first_bad(iobuf, IOMAP_LEN, 0, 30);
	check(bad == IOMAP_LEN, "the peer's riowrite landed in the window "
	      "(%llu ms, first wrong byte at %zu)",
	      (unsigned long long)(now_ms() - t0), bad);
	CHECK_ERR(riounmap(s, iobuf, 1000), EINVAL,
		  "riounmap with a wrong length");
	CHECK_ZERO(riounmap(s, iobuf, IOMAP_LEN), "riounmap");
	errno = 0;
	off = riomap(s, iobuf2, sizeof(iobuf2), PROT_WRITE, 0, -1);
	check(off == (off_t)(uintptr_t)iobuf2,
	      "riomap at offset -1 returns the buffer's address (%s)",
	      off == -1 ? ename(errno) : "ok");
	if (off != -1)
		riounmap(s, iobuf2, sizeof(iobuf2));
	rs_sync_send(s, 'U');
}

static void client_iomap(int s)
{
	static uint8_t src[IOMAP_LEN];
	size_t n;

	fill(src, IOMAP_LEN, 0, 30);
	rs_sync_wait(s, 'M');
	errno = 0;
	n = riowrite(s, src, IOMAP_LEN, 0, 0);
	check(n == IOMAP_LEN, "riowrite of 64 KiB at offset 0: %zd (%s)",
	      (ssize_t)n, n == (size_t)-1 ? ename(errno) : "ok");
	errno = 0;
	n = riowrite(s, src, 16, (off_t)1 << 30, 0);
	check_err((long)(ssize_t)n, errno, EINVAL,
		  "riowrite at an unmapped offset (1 << 30)");
	rs_sync_wait(s, 'U');
}

/* End of stream: the client shuts its writing side, then reads. */
static void client_shut_wr(int s)
{
	uint8_t b[1000];
	char half[4];
	ssize_t n;

	rs_sync_wait(s, 'S');
	fill(b, sizeof(b), 0, 40);
	n = rsend(s, b, sizeof(b), 0);
	check(n == sizeof(b), "rsend of 1000 bytes before rshutdown: %zd", n);
	CHECK_ZERO(rshutdown(s, SHUT_WR), "rshutdown(SHUT_WR)");
	CHECK_ERR(rsend(s, b, 1, 0), ECONNRESET,
		  "rsend after its own rshutdown(SHUT_WR)");
	memset(half, 0, sizeof(half));
	n = wait_in(s, WAIT_MS) ? rrecv(s, half, sizeof(half), MSG_WAITALL) :
				  -2;
	check(n == 4 && !memcmp(half, "half", 4),
	      "after rshutdown(SHUT_WR) it still receives: %zd", n);
}

static void server_shut_wr(int s)
{
	uint8_t b[4096];
	ssize_t n, m = -2;

	rs_sync_send(s, 'S');
	memset(b, 0, sizeof(b));
	n = wait_in(s, WAIT_MS) ? rrecv(s, b, sizeof(b), MSG_WAITALL) : -2;
	check(n == 1000 && first_bad(b, 1000, 0, 40) == 1000,
	      "after the peer's rshutdown(SHUT_WR), rrecv returns the rest "
	      "(%zd of 1000)", n);
	if (n > 0)
		m = wait_in(s, WAIT_MS) ? rrecv(s, b, sizeof(b), 0) : -2;
	check(m == 0, "and then 0 (%zd%s%s)", m, m == -1 ? ", " : "",
	      m == -1 ? ename(errno) : "");
	n = rsend(s, "half", 4, 0);
	check(n == 4, "rsend to a peer that shut its writing side: %zd", n);
}

/* The peer rcloses: rrecv says 0, rsend ECONNRESET, never EPIPE. */
static void server_peer_closed(int s)
{
	uint64_t t0;
	ssize_t n;
	char c;
	int tries = 0, last = 0;
	bool epipe = false;

	rs_sync_send(s, 'C');
	n = wait_in(s, WAIT_MS) ? rrecv(s, &c, 1, 0) : -2;
	check(n == 0, "after the peer's rclose, rrecv returns 0 (%zd%s%s)", n,
	      n == -1 ? ", " : "", n == -1 ? ename(errno) : "");
	t0 = now_ms();
	for (;;) {
		errno = 0;
		n = rsend(s, "gone", 4, MSG_DONTWAIT);
		tries++;
		if (n < 0 && errno == EPIPE)
			epipe = true;
		if (n < 0 && errno != EAGAIN) {
			last = errno;
			break;
		}
		if (now_ms() - t0 > 2 * WAIT_MS)
			break;
		usleep(10000);
	}
	check(last == ECONNRESET, "then rsend fails with ECONNRESET (%s "
	      "after %d calls, %llu ms)", ename(last), tries,
	      (unsigned long long)(now_ms() - t0));
	check(!epipe && !sigpipes, "never EPIPE, no SIGPIPE");
}

/* ---- Datagrams */

static size_t dgram_size(int i)
{
	return 1 + (size_t)i * 999 / (NDGRAMS - 1);
}

static void server_dgram(void)
{
	struct sockaddr_in sin = loopback(P_DGRAM), from;
	uint8_t b[2048];
	socklen_t len;
	uint16_t cport = 0;
	int s, i, intact = 0, right_port = 0, echoed = 0;
	ssize_t n;

	s = rsocket(AF_INET, SOCK_DGRAM, 0);
	if (!check(s >= 0, "rsocket(AF_INET, SOCK_DGRAM): %d", s))
		return;
	if (!check(!rbind(s, SA(&sin), sizeof(sin)),
		   "datagram rbind 127.0.0.1:P+2"))
		return;
	ctl_send("D", 1);
	for (i = 0; i < NDGRAMS; i++) {
		if (!wait_in(s, WAIT_MS)) {
			note("datagram %d never came", i);
			break;
		}
		len = sizeof(from);
		memset(&from, 0, sizeof(from));
		n = rrecvfrom(s, b, sizeof(b), 0, SA(&from), &len);
		if (i == 0)
			ctl_recv(&cport, sizeof(cport), "the client's port");
		if (n == (ssize_t)dgram_size(i) &&
		    first_bad(b, (size_t)n, 0, 100 + (uint32_t)i) == (size_t)n)
			intact++;
		else
			note("datagram %d: %zd bytes of %zu", i, n,
			     dgram_size(i));
		if (n >= 0 && from.sin_family == AF_INET &&
		    from.sin_port == cport)
			right_port++;
		if (n > 0 && rsendto(s, b, (size_t)n, 0, SA(&from), len) == n)
			echoed++;
	}
	check(intact == NDGRAMS, "%d of %d datagrams of 1..1000 bytes "
	      "arrived intact", intact, NDGRAMS);
	check(right_port == NDGRAMS, "%d of %d came from the client's "
	      "rgetsockname port (%u)", right_port, NDGRAMS, ntohs(cport));
	check(echoed == NDGRAMS, "%d of %d echoed with rsendto to the source",
	      echoed, NDGRAMS);
	ctl_wait('E', "the client's end");
	rclose(s);
}

static void client_dgram(void)
{
	struct sockaddr_in srv = loopback(P_DGRAM), from, name;
	struct sockaddr_in nobody = loopback(P_DGRAM_NOBODY);
	uint8_t b[2048], big_dgram[4097] = { 0 };
	socklen_t len;
	int s, t, i, r, intact = 0, from_srv = 0;
	ssize_t n;

	ctl_wait('D', "the server's datagram socket");
	s = rsocket(AF_INET, SOCK_DGRAM, 0);
	if (!check(s >= 0, "client rsocket(AF_INET, SOCK_DGRAM): %d", s))
		bail("no datagram socket");
	CHECK_ERR(rsend(s, "x", 1, 0), EDESTADDRREQ,
		  "rsend on an unconnected datagram socket");
	for (i = 0; i < NDGRAMS; i++) {
		fill(b, dgram_size(i), 0, 100 + (uint32_t)i);
		n = rsendto(s, b, dgram_size(i), 0, SA(&srv), sizeof(srv));
		if (n != (ssize_t)dgram_size(i))
			note("rsendto %d: %zd (%s)", i, n, ename(errno));
		if (i == 0) {
			len = sizeof(name);
			memset(&name, 0, sizeof(name));
			r = rgetsockname(s, SA(&name), &len);
			check(!r && name.sin_port, "an unbound datagram socket "
			      "has a port after rsendto: %u",
			      ntohs(name.sin_port));
			ctl_send(&name.sin_port, sizeof(name.sin_port));
		}
		if (!wait_in(s, WAIT_MS)) {
			note("echo %d never came", i);
			break;
		}
		len = sizeof(from);
		memset(b, 0, sizeof(b));
		n = rrecvfrom(s, b, sizeof(b), 0, SA(&from), &len);
		if (n == (ssize_t)dgram_size(i) &&
		    first_bad(b, (size_t)n, 0, 100 + (uint32_t)i) == (size_t)n)
			intact++;
		if (n >= 0 && from.sin_port == srv.sin_port &&
		    from.sin_addr.s_addr == srv.sin_addr.s_addr)
			from_srv++;
	}
	check(intact == NDGRAMS, "%d of %d echoes arrived intact", intact,
	      NDGRAMS);
	check(from_srv == NDGRAMS, "%d of %d echoes came from 127.0.0.1:P+2",
	      from_srv, NDGRAMS);
	CHECK_ERR(rsendto(s, big_dgram, sizeof(big_dgram), 0, SA(&srv),
			  sizeof(srv)),
		  EMSGSIZE, "a datagram of 4097 bytes");
	ctl_send("E", 1);
	rclose(s);

	t = rsocket(AF_INET, SOCK_DGRAM, 0);
	if (t < 0)
		bail("rsocket: %s", strerror(errno));
	errno = 0;
	r = rconnect(t, SA(&nobody), sizeof(nobody));
	check(r == -1 && (errno == ECONNREFUSED || errno == ETIMEDOUT ||
			  errno == EHOSTUNREACH),
	      "datagram rconnect where no rsocket is bound fails: %s",
	      r ? ename(errno) : "succeeded");
	rclose(t);
}

/* ---- The two sides */

static void server(int pollpipe)
{
	struct sockaddr_in sin = loopback(P_LISTEN), peer;
	socklen_t len;
	int l, s1, s2, v;
	off_t off;

	l = rsocket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		bail("server rsocket: %s", strerror(errno));
	v = 1;
	CHECK_ZERO(rsetsockopt(l, SOL_RDMA, RDMA_IOMAPSIZE, &v, sizeof(v)),
		   "listener RDMA_IOMAPSIZE 1");
	if (rbind(l, SA(&sin), sizeof(sin)) || rlisten(l, 8))
		bail("server rbind/rlisten on 127.0.0.1:%u: %s",
		     ntohs(sin.sin_port), strerror(errno));
	ctl_send("L", 1);

	len = sizeof(peer);
	s1 = raccept(l, SA(&peer), &len);
	if (!check(s1 >= 0, "raccept: %d (%s)", s1, s1 < 0 ? ename(errno) :
		   "ok"))
		bail("no connection");
	check(len == sizeof(peer) && peer.sin_family == AF_INET &&
		      peer.sin_addr.s_addr == htonl(INADDR_LOOPBACK),
	      "raccept names the peer 127.0.0.1");
	server_data(s1);
	server_polling(s1, l, pollpipe);
	server_iomap(s1);
	server_shut_wr(s1);

	/* A second connection: the client left RDMA_IOMAPSIZE at 0. */
	s2 = raccept(l, NULL, NULL);
	if (!check(s2 >= 0, "second raccept: %d", s2))
		bail("no second connection");
	errno = 0;
	off = riomap(s2, iobuf2, sizeof(iobuf2), PROT_WRITE, 0, 0);
	check_err((long)off, errno, ENOMEM, "riomap when the peer's "
		  "RDMA_IOMAPSIZE is 0");
	server_peer_closed(s2);
	rclose(s2);
	rclose(s1);
	rclose(l);

	server_dgram();
}

static void client(int pollpipe)
{
	struct sockaddr_in sin = loopback(P_LISTEN);
	int c1, c2, r;

	refusals();
	unconnected();
	refused();

	ctl_wait('L', "listening");
	c1 = client_connect_nonblocking();
	client_data(c1);
	client_polling(c1, pollpipe);
	client_iomap(c1);
	client_shut_wr(c1);

	c2 = rsocket(AF_INET, SOCK_STREAM, 0);
	if (c2 < 0)
		bail("rsocket: %s", strerror(errno));
	errno = 0;
	r = rconnect(c2, SA(&sin), sizeof(sin));
	if (!check(!r, "blocking rconnect to the server (%s)",
		   r ? ename(errno) : "ok"))
		bail("no second connection");
	rs_sync_wait(c2, 'C');
	CHECK_ZERO(rclose(c2), "rclose of a connected socket");
	rclose(c1);

	client_dgram();
}

/* ---- main: fork, collect, count */

static int collect(pid_t spid, pid_t cpid)
{
	struct record r;
	int n = 0, passed = 0, failed = 0, status;
	pid_t pids[2] = { spid, cpid };
	bool done[2] = { false, false };
	const char *names[2] = { "server", "client" };
	struct pollfd p = { .fd = report_fd, .events = POLLIN };
	int i;

	for (;;) {
		int w = done[0] && done[1] ? 0 : 200;

		if (poll(&p, 1, w) == 1 &&
		    read(report_fd, &r, sizeof(r)) == sizeof(r)) {
			r.text[sizeof(r.text) - 1] = 0;
			if (r.kind == '#') {
				printf("# %s: %s\n", r.who == 's' ?
				       "server" : "client", r.text);
				continue;
			}
			n++;
			if (r.kind == 'o')
				passed++;
			else
				failed++;
			printf("%s %d - %s: %s\n", r.kind == 'o' ? "ok" :
			       "not ok", n, r.who == 's' ? "server" : "client",
			       r.text);
			continue;
		}
		if (done[0] && done[1])
			break;
		for (i = 0; i < 2; i++) {
			if (done[i] || waitpid(pids[i], &status, WNOHANG) !=
					       pids[i])
				continue;
			done[i] = true;
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				continue;
			n++;
			failed++;
			if (WIFSIGNALED(status))
				printf("not ok %d - %s killed by signal %d%s\n",
				       n, names[i], WTERMSIG(status),
				       WTERMSIG(status) == SIGALRM ?
				       " (it hung)" : "");
			else
				printf("not ok %d - %s stopped early "
				       "(exit %d)\n", n, names[i],
				       WEXITSTATUS(status));
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed || !n ? 1 : 0;
}

int main(int argc, char **argv)
{
	int rep[2], s2c[2], c2s[2], pp[2];
	pid_t spid, cpid;
	long port;

	if (argc != 2 || (port = strtol(argv[1], NULL, 10)) < 1024 ||
	    port > 65535 - 8) {
		fprintf(stderr, "usage: %s PORT\n", argv[0]);
		return 2;
	}
	base_port = (uint16_t)port;
	setvbuf(stdout, NULL, _IOLBF, 0);
	big = malloc(BIG);
	if (!big || pipe(rep) || pipe(s2c) || pipe(c2s) || pipe(pp)) {
		perror("rs_check");
		return 2;
	}
	spid = fork();
	if (spid == 0) {
		close(rep[0]);
		close(s2c[0]);
		close(c2s[1]);
		close(pp[1]);
		report_fd = rep[1];
		ctl_in = c2s[0];
		ctl_out = s2c[1];
		child_setup('s');
		server(pp[0]);
		exit(0);
	}
	cpid = spid < 0 ? -1 : fork();
	if (cpid == 0) {
		close(rep[0]);
		close(s2c[1]);
		close(c2s[0]);
		close(pp[0]);
		report_fd = rep[1];
		ctl_in = s2c[0];
		ctl_out = c2s[1];
		child_setup('c');
		client(pp[1]);
		exit(0);
	}
	if (spid < 0 || cpid < 0) {
		perror("rs_check: fork");
		if (spid > 0)
			kill(spid, SIGKILL);
		return 2;
	}
	/* Only the children hold the pipes' other ends: when one dies,
	 * the other's reads see it. */
	close(rep[1]);
	close(s2c[0]);
	close(s2c[1]);
	close(c2s[0]);
	close(c2s[1]);
	close(pp[0]);
	close(pp[1]);
	report_fd = rep[0];
	return collect(spid, cpid);
}
