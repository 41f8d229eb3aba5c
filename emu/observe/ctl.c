/* The control socket's server: a Unix socket per process, PID.sock in the
 * user's private runtime directory (rundir.c), mode 0600, served by an
 * engine of its own while the process has an emulated device open; in a
 * job, the link PID.job beside it names the job (job.c). A
 * connection from another user is refused on its credentials (SO_PEERCRED)
 * before it is read; a request is one line, the reply "ok" or "error: why"
 * and then the command's text, and the connection closes. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>

#include "emu/observe/ctl.h"
#include "emu/base/engine.h"
#include "emu/base/log.h"

static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int opened;		/* devices open in the process */
static struct emu_engine *engine;
static struct emu_watch *watch;
static int listen_fd = -1;
static char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static char job_path[sizeof(path) + 8];	/* PID.job beside it, or empty */
static bool atfork_set;

/* ---- replies -------------------------------------------------------------- */

static void out_vadd(struct emu_ctl_out *o, const char *fmt, va_list ap)
{
	va_list aq;
	size_t cap;
	char *b;
	int n;

	if (o->oom)
		return;
	va_copy(aq, ap);
	n = vsnprintf(o->buf ? o->buf + o->len : NULL,
		      o->buf ? o->cap - o->len : 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if (o->buf && o->len + (size_t)n < o->cap) {
		o->len += (size_t)n;
		return;
	}
	for (cap = o->cap ? o->cap : 1024; cap <= o->len + (size_t)n;)
		cap *= 2;
	b = malloc(cap);
	if (!b) {
		o->oom = true;
		return;
	}
	if (o->len)
		memcpy(b, o->buf, o->len);
	free(o->buf);
	o->buf = b;
	o->cap = cap;
	vsnprintf(o->buf + o->len, cap - o->len, fmt, ap);
	o->len += (size_t)n;
}

void emu_ctl_printf(struct emu_ctl_out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->failed)
		return;
	va_start(ap, fmt);
	out_vadd(o, fmt, ap);
	va_end(ap);
}

void emu_ctl_fail(struct emu_ctl_out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->failed)
		return;
	o->failed = true;
	o->len = 0;
	va_start(ap, fmt);
	out_vadd(o, fmt, ap);
	va_end(ap);
	/* One line: what follows a newline in a reason is not shown. */
	if (o->buf) {
		char *nl = memchr(o->buf, '\n', o->len);

		if (nl)
			o->len = (size_t)(nl - o->buf);
	}
}

/* ---- requests ------------------------------------------------------------- */

void emu_ctl_dispatch(char *line, struct emu_ctl_out *o)
{
	char *argv[EMU_CTL_ARGS + 1], *save = NULL, *w;
	const struct emu_ctl_cmd *c;
	int argc = 0;

	for (w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (argc == EMU_CTL_ARGS) {
			emu_ctl_fail(o, "more than %d words", EMU_CTL_ARGS);
			return;
		}
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	if (!argc) {
		emu_ctl_fail(o, "empty request");
		return;
	}
	for (c = emu_ctl_cmds; c->name; c++)
		if (!strcmp(c->name, argv[0]))
			break;
	if (!c->name) {
		emu_ctl_fail(o, "%s: unknown command", argv[0]);
		return;
	}
	c->fn(argc, argv, o);
}

static void write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void reply(int fd, struct emu_ctl_out *o)
{
	if (o->oom) {
		write_all(fd, "error: out of memory\n", 21);
		return;
	}
	if (o->failed) {
		write_all(fd, "error: ", 7);
		write_all(fd, o->buf ? o->buf : "", o->len);
		write_all(fd, "\n", 1);
		return;
	}
	write_all(fd, "ok\n", 3);
	write_all(fd, o->buf ? o->buf : "", o->len);
}

/* Read one line of at most EMU_CTL_LINE bytes, within a second: the
 * length, or -1 (closed early, too long, too slow). */
static ssize_t read_line(int fd, char *buf)
{
	size_t at = 0;
	ssize_t n;

	while (at < EMU_CTL_LINE - 1) {
		n = recv(fd, buf + at, EMU_CTL_LINE - 1 - at, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		at += (size_t)n;
		if (memchr(buf, '\n', at)) {
			buf[at] = '\0';
			return (ssize_t)at;
		}
	}
	return -1;
}

/* Serve one connection on the control engine: it is its own thread, so
 * a slow client stalls no device (and waits a second at most). */
static void on_accept(void *arg)
{
	struct timeval tv = { .tv_sec = 1 };
	struct emu_ctl_out o = { 0 };
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	char *line;
	int fd;

	(void)arg;
	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) ||
	    cred.uid != geteuid()) {
		emu_log(EMU_LOG_VERBS, "control: refused a connection from "
			"uid %d: not the owner", (int)cred.uid);
		write_all(fd, "error: permission denied: not the owner\n", 40);
		close(fd);
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	line = malloc(EMU_CTL_LINE);
	if (!line) {
		write_all(fd, "error: out of memory\n", 21);
	} else if (read_line(fd, line) < 0) {
		write_all(fd, "error: no request line (one line of at most "
			  "4095 bytes, within a second)\n", 73);
	} else {
		emu_ctl_dispatch(line, &o);
		if (o.failed)
			emu_log(EMU_LOG_VERBS, "control: refused: %.*s",
				(int)o.len, o.buf ? o.buf : "");
		reply(fd, &o);
	}
	free(line);
	free(o.buf);
	close(fd);
}

/* ---- the server's life ---------------------------------------------------- */

/* Remove the sockets and job links of processes that are gone (killed
 * before they could), and any of our own PID's. */
static void clean_stale(const char *dir)
{
	char p[sizeof(path)];
	struct dirent *de;
	unsigned long pid;
	char *end;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		pid = strtoul(de->d_name, &end, 10);
		if (end == de->d_name ||
		    (strcmp(end, ".sock") && strcmp(end, ".job")))
			continue;
		if (pid != (unsigned long)getpid() &&
		    (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir,
				     de->d_name) < sizeof(p))
			unlink(p);
	}
	closedir(d);
}

static void server_stop(void)
{
	if (watch)
		emu_engine_unwatch(engine, watch);
	watch = NULL;
	if (engine)
		emu_engine_stop(engine);
	engine = NULL;
	if (listen_fd >= 0)
		close(listen_fd);
	listen_fd = -1;
	/* The socket before its link: while the socket is there, the
	 * tools find its job (emu_job_read). */
	if (path[0])
		unlink(path);
	path[0] = '\0';
	if (job_path[0])
		unlink(job_path);
	job_path[0] = '\0';
}

/* A forked child has no server thread: it forgets the parent's (without
 * touching its socket) and starts its own when it opens a device. */
static void after_fork_child(void)
{
	if (listen_fd >= 0)
		close(listen_fd);
	listen_fd = -1;
	engine = NULL;
	watch = NULL;
	path[0] = '\0';
	job_path[0] = '\0';
	opened = 0;
	pthread_mutex_init(&ctl_lock, NULL);
}

static void unlink_at_exit(void)
{
	/* The process ends with devices open: the socket goes with it. */
	if (path[0])
		unlink(path);
	if (job_path[0])
		unlink(job_path);
}

static int server_start(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(path) - 16], why[256];
	const char *job;
	int rc;

	if (!atfork_set) {
		pthread_atfork(NULL, NULL, after_fork_child);
		atexit(unlink_at_exit);
		atfork_set = true;
	}
	if (emu_ctl_dir(dir, sizeof(dir))) {
		emu_log(EMU_LOG_VERBS, "control: runtime directory too long");
		return -1;
	}
	if (emu_ctl_dir_make(dir, why, sizeof(why))) {
		emu_log(EMU_LOG_VERBS, "control: no socket: %s", why);
		return -1;
	}
	/* Undriven rather than outside its job: in none, every caller in
	 * none would reach it. */
	if (emu_job_env(&job)) {
		emu_log(EMU_LOG_VERBS, "control: no socket: EMUVERBS_JOB is "
			"not a job name (1 to %d visible ASCII characters)",
			EMU_JOB_MAX);
		return -1;
	}
	clean_stale(dir);
	snprintf(path, sizeof(path), "%s/%d.sock", dir, (int)getpid());
	memcpy(sa.sun_path, path, sizeof(path));
	/* The job's link before the socket: a socket is never seen without
	 * it. One call makes it whole, and readlink reads it whole. */
	if (job) {
		if (emu_job_path(dir, (unsigned long)getpid(), job_path,
				 sizeof(job_path))) {
			errno = ENAMETOOLONG;
			job_path[0] = '\0';
			goto fail;
		}
		if (symlink(job, job_path)) {
			job_path[0] = '\0';
			goto fail;
		}
	}
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0)
		goto fail;
	unlink(path);
	if (bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(path, 0600) || listen(listen_fd, 16))
		goto fail;
	rc = emu_engine_start(&engine);
	if (rc) {
		errno = rc;
		goto fail;
	}
	watch = emu_engine_watch_fd(engine, listen_fd, on_accept, NULL);
	if (!watch) {
		errno = ENOMEM;
		goto fail;
	}
	emu_log(EMU_LOG_VERBS, "control: listening on %s, in %s%s", path,
		job ? "job " : "no job", job ? job : "");
	return 0;
fail:
	emu_log(EMU_LOG_VERBS, "control: no socket at %s: %s", path,
		strerror(errno));
	server_stop();
	return -1;
}

/* EMUVERBS_NO_CONTROL=1: no socket, for a process that must not be driven
 * (and the unit tests of other modules). */
static bool control_off(void)
{
	const char *e = getenv("EMUVERBS_NO_CONTROL");

	return e && *e && strcmp(e, "0");
}

void emu_ctl_device_opened(void)
{
	pthread_mutex_lock(&ctl_lock);
	/* A process without its socket still works: it cannot be driven. */
	if (opened++ == 0 && !control_off())
		server_start();
	pthread_mutex_unlock(&ctl_lock);
}

void emu_ctl_device_closed(void)
{
	pthread_mutex_lock(&ctl_lock);
	if (opened && --opened == 0)
		server_stop();
	pthread_mutex_unlock(&ctl_lock);
}

const char *emu_ctl_path(void)
{
	return path;
}
