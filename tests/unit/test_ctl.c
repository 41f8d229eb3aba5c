/* Unit tests for the control socket (emu/observe/ctl.c, ctl_cmd.c, rundir.c,
 * job.c): the private runtime directory and what it refuses, the
 * reply buffer and its allocation failure, the dispatch of bad requests,
 * the server's life with the device's (a socket of mode 0600 while a
 * device is open, gone after, stale ones removed), the job link beside
 * it, other users refused on their credentials, and the commands on a
 * live device. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/observe/ctl.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

static char dir[256];

static void setup(void)
{
	/* The suite's runtime directory (testlib) with the server on. */
	unsetenv("EMUVERBS_NO_CONTROL");
	ck_assert_int_eq(emu_ctl_dir(dir, sizeof(dir)), 0);
	/* Whatever a failed test left open, shut again. */
	chmod(dir, 0700);
}

/* One request to the socket at path: the whole reply, malloc'd. */
static char *ask(const char *path, const char *line)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[65536];
	size_t at = 0;
	ssize_t n;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(buf, sizeof(buf), "connect: %s", strerror(errno));
		close(fd);
		return strdup(buf);
	}
	/* A server that refuses may close before it reads: no SIGPIPE. */
	if (*line)
		(void)send(fd, line, strlen(line), MSG_NOSIGNAL);
	shutdown(fd, SHUT_WR);
	while ((n = read(fd, buf + at, sizeof(buf) - 1 - at)) > 0)
		at += (size_t)n;
	buf[at] = '\0';
	close(fd);
	return strdup(buf);
}

static void expect_reply(const char *path, const char *line,
			 const char *want)
{
	char *r = ask(path, line);

	ck_assert_msg(strstr(r, want), "%s -> '%s', not '%s'", line, r, want);
	free(r);
}

/* ---- the directory ---------------------------------------------------- */

START_TEST(t_dir)
{
	char d[512], f[600], why[256];

	setenv("EMUVERBS_RUNTIME_DIR", "", 1);
	setenv("XDG_RUNTIME_DIR", "/run/user/7", 1);
	ck_assert_int_eq(emu_ctl_dir(d, sizeof(d)), 0);
	ck_assert_str_eq(d, "/run/user/7/emuverbs");
	unsetenv("XDG_RUNTIME_DIR");
	ck_assert_int_eq(emu_ctl_dir(d, sizeof(d)), 0);
	snprintf(f, sizeof(f), "/tmp/emuverbs-%u", (unsigned int)geteuid());
	ck_assert_str_eq(d, f);
	ck_assert_int_eq(emu_ctl_dir(d, 8), -1);		/* too long */

	/* Made 0700; a directory others may enter, a file or a link in
	 * its place is refused, saying why. */
	snprintf(d, sizeof(d), "%s/a", dir);
	ck_assert_int_eq(emu_ctl_dir_make(dir, why, sizeof(why)), 0);
	ck_assert_int_eq(emu_ctl_dir_make(d, why, sizeof(why)), 0);
	ck_assert_int_eq(emu_ctl_dir_make(d, why, sizeof(why)), 0);
	ck_assert_int_eq(chmod(d, 0755), 0);
	ck_assert_int_eq(emu_ctl_dir_make(d, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "mode 755 lets others in"), "%s", why);
	ck_assert_int_eq(rmdir(d), 0);
	snprintf(f, sizeof(f), "%s/b", dir);
	ck_assert_int_eq(symlink(dir, d), 0);
	ck_assert_int_eq(emu_ctl_dir_make(d, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "is not a directory of uid"), "%s", why);
	ck_assert_int_eq(unlink(d), 0);
	ck_assert_int_eq(close(open(f, O_CREAT | O_WRONLY, 0600)), 0);
	ck_assert_int_eq(emu_ctl_dir_make(f, why, sizeof(why)), -1);
	snprintf(d, sizeof(d), "%s/no/such", dir);
	ck_assert_int_eq(emu_ctl_dir_make(d, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "No such file"), "%s", why);
}
END_TEST

/* ---- replies and dispatch --------------------------------------------- */

START_TEST(t_out)
{
	struct emu_ctl_out o = { 0 };
	int i;

	for (i = 0; i < 1000; i++)
		emu_ctl_printf(&o, "line %d\n", i);
	ck_assert(!o.failed && !o.oom);
	ck_assert(!strncmp(o.buf, "line 0\nline 1\n", 14));
	ck_assert_ptr_nonnull(strstr(o.buf, "line 999\n"));
	/* A failure replaces what was printed, keeps its first line only,
	 * and nothing printed after it counts. */
	emu_ctl_fail(&o, "bad %s\nsecond line", "thing");
	emu_ctl_printf(&o, "more");
	emu_ctl_fail(&o, "later");
	ck_assert(o.failed);
	ck_assert_uint_eq(o.len, 9);
	ck_assert(!strncmp(o.buf, "bad thing", 9));
	free(o.buf);

	/* Out of memory: the reply is that, never a part of one. */
	memset(&o, 0, sizeof(o));
	emu_ctl_printf(&o, "first\n");
	emu_test_fail_malloc(1);
	for (i = 0; i < 200; i++)
		emu_ctl_printf(&o, "line %d\n", i);
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert(o.oom);
	free(o.buf);
}
END_TEST

START_TEST(t_dispatch)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{ "", "empty request" },
		{ "  \t\n", "empty request" },
		{ "sideways", "sideways: unknown command" },
		{ "info extra", "info takes no arguments" },
		{ "port", "usage: port DEVICE/PORT" },
		{ "port emu9/1 state=down", "emu9: no such device open" },
		{ "gid emu0/1 swap 1.2.3.4", "usage: gid" },
		{ "event", "usage: event" },
		{ "event qp-explode 5", "usage: event" },
		{ "fault", "usage: fault" },
		{ "fault frob x", "usage: fault" },
		{ "fault add drop dir=sideways", "character 6: dir: sideways" },
	};
	char line[EMU_CTL_LINE];
	unsigned int i;
	size_t at = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct emu_ctl_out o = { 0 };

		snprintf(line, sizeof(line), "%s", bad[i].line);
		emu_ctl_dispatch(line, &o);
		ck_assert_msg(o.failed, "%s", bad[i].line);
		ck_assert_msg(o.buf && strstr(o.buf, bad[i].why) &&
			      !memchr(o.buf, '\n', o.len), "%s: '%.*s'",
			      bad[i].line, (int)o.len, o.buf ? o.buf : "");
		free(o.buf);
	}
	/* More words than a request may have. */
	for (i = 0; i <= EMU_CTL_ARGS; i++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "w ");
	{
		struct emu_ctl_out o = { 0 };

		emu_ctl_dispatch(line, &o);
		ck_assert(o.failed);
		ck_assert_ptr_nonnull(strstr(o.buf, "more than 64 words"));
		free(o.buf);
	}
}
END_TEST

/* ---- the server ------------------------------------------------------- */

/* The socket lives while a device is open, mode 0600, named by the PID;
 * a stale one of a dead process is removed when the next starts; the
 * last close removes it. */
START_TEST(t_server_life)
{
	char stale[600], want[600], why[256];
	struct ibv_context *a, *b;
	struct stat st;

	ck_assert_int_eq(emu_ctl_dir_make(dir, why, sizeof(why)), 0);
	/* PIDs stop far below this (pid_max is at most 2^22). */
	snprintf(stale, sizeof(stale), "%s/99999999.sock", dir);
	ck_assert_int_eq(close(open(stale, O_CREAT | O_WRONLY, 0600)), 0);
	ck_assert_str_eq(emu_ctl_path(), "");
	a = open_default();
	b = open_default();
	snprintf(want, sizeof(want), "%s/%d.sock", dir, (int)getpid());
	ck_assert_str_eq(emu_ctl_path(), want);
	ck_assert_int_eq(lstat(want, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(access(stale, F_OK), -1);
	expect_reply(want, "info\n", "ok\npid ");
	ck_assert_int_eq(ibv_close_device(a), 0);
	/* One device still open: still there. */
	expect_reply(want, "info\n", "port emu0/1 state ACTIVE");
	ck_assert_int_eq(ibv_close_device(b), 0);
	ck_assert_int_eq(access(want, F_OK), -1);
	ck_assert_str_eq(emu_ctl_path(), "");
	/* Open again: a new one. */
	a = open_default();
	expect_reply(want, "info\n", "ok\n");
	ck_assert_int_eq(ibv_close_device(a), 0);
}
END_TEST

/* EMUVERBS_NO_CONTROL=1: no socket at all. */
START_TEST(t_server_off)
{
	struct ibv_context *a;

	setenv("EMUVERBS_NO_CONTROL", "1", 1);
	a = open_default();
	ck_assert_str_eq(emu_ctl_path(), "");
	ck_assert_int_eq(ibv_close_device(a), 0);
}
END_TEST

/* A request that is not one line within a second, or too long, gets one
 * line back and changes nothing. */
START_TEST(t_server_bad_requests)
{
	struct ibv_context *a = open_default();
	char *big = malloc(EMU_CTL_LINE + 10);

	ck_assert_ptr_nonnull(big);
	memset(big, 'x', EMU_CTL_LINE + 9);
	big[EMU_CTL_LINE + 9] = '\0';
	expect_reply(emu_ctl_path(), "", "error: no request line");
	expect_reply(emu_ctl_path(), big, "error: no request line");
	expect_reply(emu_ctl_path(), "frobnicate\n",
		     "error: frobnicate: unknown command\n");
	expect_reply(emu_ctl_path(), "port emu0/1 state=sideways\n",
		     "error: state: sideways is not one of");
	free(big);
	ck_assert_int_eq(ibv_close_device(a), 0);
}
END_TEST

/* ---- jobs --------------------------------------------------------------- */

/* A job name is 1 to EMU_JOB_MAX visible ASCII characters, and the
 * process's own is EMUVERBS_JOB's (none when unset or empty). */
START_TEST(t_job_names)
{
	char n[EMU_JOB_MAX + 2];
	const char *job = "x";

	ck_assert(emu_job_name_ok("alpha"));
	ck_assert(emu_job_name_ok("ci-77_x.y:z@h+1/2"));
	ck_assert(!emu_job_name_ok(""));
	ck_assert(!emu_job_name_ok("two words"));
	ck_assert(!emu_job_name_ok("tab\there"));
	ck_assert(!emu_job_name_ok("line\n"));
	ck_assert(!emu_job_name_ok("del\x7f"));
	ck_assert(!emu_job_name_ok("caf\xc3\xa9"));
	memset(n, 'j', EMU_JOB_MAX);
	n[EMU_JOB_MAX] = '\0';
	ck_assert(emu_job_name_ok(n));
	n[EMU_JOB_MAX] = 'j';
	n[EMU_JOB_MAX + 1] = '\0';
	ck_assert(!emu_job_name_ok(n));

	unsetenv("EMUVERBS_JOB");
	ck_assert_int_eq(emu_job_env(&job), 0);
	ck_assert_ptr_null(job);
	setenv("EMUVERBS_JOB", "", 1);
	ck_assert_int_eq(emu_job_env(&job), 0);
	ck_assert_ptr_null(job);
	setenv("EMUVERBS_JOB", "two words", 1);
	ck_assert_int_eq(emu_job_env(&job), -1);
	ck_assert_ptr_null(job);
	setenv("EMUVERBS_JOB", "alpha", 1);
	ck_assert_int_eq(emu_job_env(&job), 0);
	ck_assert_str_eq(job, "alpha");
	unsetenv("EMUVERBS_JOB");
}
END_TEST

/* In a job, PID.job beside the socket names it for as long as the socket
 * lives; in none there is no link; a job name that is none gets no socket
 * (rather than one outside its job); a stale link of a dead process goes
 * when the next server starts; a link that is not a link names nobody's
 * job. */
START_TEST(t_job_link)
{
	char link[600], stale[600], job[EMU_JOB_MAX + 1], why[256];
	unsigned long me = (unsigned long)getpid();
	struct ibv_context *a;
	struct stat st;

	ck_assert_int_eq(emu_ctl_dir_make(dir, why, sizeof(why)), 0);
	ck_assert_int_eq(emu_job_path(dir, me, stale, 8), -1);
	ck_assert_int_eq(emu_job_path(dir, me, link, sizeof(link)), 0);
	snprintf(stale, sizeof(stale), "%s/99999999.job", dir);
	ck_assert_int_eq(symlink("gone", stale), 0);

	setenv("EMUVERBS_JOB", "unit-job", 1);
	a = open_default();
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(emu_job_read(dir, me, job, sizeof(job)), 1);
	ck_assert_str_eq(job, "unit-job");
	ck_assert_int_eq(lstat(stale, &st), -1);
	ck_assert_int_eq(ibv_close_device(a), 0);
	ck_assert_int_eq(lstat(link, &st), -1);
	/* No socket and no link: gone. */
	ck_assert_int_eq(emu_job_read(dir, me, job, sizeof(job)), -1);

	unsetenv("EMUVERBS_JOB");
	a = open_default();
	ck_assert_str_ne(emu_ctl_path(), "");
	ck_assert_int_eq(lstat(link, &st), -1);
	ck_assert_int_eq(emu_job_read(dir, me, job, sizeof(job)), 0);
	ck_assert_str_eq(job, "");
	/* A file in the link's place is no job's. */
	ck_assert_int_eq(close(open(link, O_CREAT | O_WRONLY, 0600)), 0);
	ck_assert_int_eq(emu_job_read(dir, me, job, sizeof(job)), -1);
	ck_assert_int_eq(ibv_close_device(a), 0);
	ck_assert_int_eq(unlink(link), 0);

	setenv("EMUVERBS_JOB", "two words", 1);
	a = open_default();
	ck_assert_str_eq(emu_ctl_path(), "");
	ck_assert_int_eq(lstat(link, &st), -1);
	ck_assert_int_eq(ibv_close_device(a), 0);
	unsetenv("EMUVERBS_JOB");
}
END_TEST

/* Another user is refused: by the directory's mode first, and by its
 * credentials when the directory and socket let it in (as root only:
 * the test needs a second uid). */
START_TEST(t_server_other_user)
{
	struct ibv_context *a;
	char path[600], parent[256];
	int st, fds[2];
	pid_t pid;

	if (geteuid() != 0) {
		fprintf(stderr, "t_server_other_user: not root, skipped\n");
		return;
	}
	a = open_default();
	snprintf(path, sizeof(path), "%s", emu_ctl_path());
	snprintf(parent, sizeof(parent), "%s", dir);
	*strrchr(parent, '/') = '\0';
	ck_assert_int_eq(chmod(parent, 0711), 0);
	for (int round = 0; round < 2; round++) {
		if (round == 1) {
			/* Open the doors the mode kept shut. */
			ck_assert_int_eq(chmod(dir, 0777), 0);
			ck_assert_int_eq(chmod(path, 0666), 0);
		}
		ck_assert_int_eq(pipe(fds), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			char *r;

			close(fds[0]);
			if (setgid(65534) || setuid(65534))
				_exit(3);
			r = ask(path, "port emu0/1 state=down\n");
			if (write(fds[1], r, strlen(r)) < 0)
				_exit(4);
			_exit(0);
		}
		close(fds[1]);
		{
			char got[512] = "";
			ssize_t n = read(fds[0], got, sizeof(got) - 1);

			got[n > 0 ? n : 0] = '\0';
			close(fds[0]);
			ck_assert_int_eq(waitpid(pid, &st, 0), pid);
			ck_assert_int_eq(WEXITSTATUS(st), 0);
			if (round == 0)
				ck_assert_msg(strstr(got, "Permission denied"),
					      "%s", got);
			else
				ck_assert_msg(strstr(got, "error: permission "
						     "denied: not the owner"),
					      "%s", got);
		}
	}
	chmod(dir, 0700);
	chmod(parent, 0700);
	/* Nothing changed. */
	{
		struct ibv_port_attr pa;

		ck_assert_int_eq(ibv_query_port(a, 1, &pa), 0);
		ck_assert_int_eq(pa.state, IBV_PORT_ACTIVE);
	}
	ck_assert_int_eq(ibv_close_device(a), 0);
}
END_TEST

/* The commands on a live device: port, gid, event, fault. */
START_TEST(t_commands)
{
	struct ibv_context *ctx = open_default();
	struct ibv_async_event ev;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	const char *p = emu_ctl_path();
	char line[128];
	uint64_t speed;

	expect_reply(p, "port emu0/1 speed=HDR width=2x\n",
		     "ok\nemu0/1: speed=HDR width=2x\n");
	ck_assert_int_eq(ibv_query_port_speed(ctx, 1, &speed), 0);
	ck_assert_uint_eq(speed, 1000);
	/* All or nothing. */
	expect_reply(p, "port emu0/1 speed=SDR width=7x\n", "error: width");
	ck_assert_int_eq(ibv_query_port_speed(ctx, 1, &speed), 0);
	ck_assert_uint_eq(speed, 1000);
	expect_reply(p, "port emu0/2 state=down\n", "error: emu0/2: no port 2");

	expect_reply(p, "port emu0/1 state=down\n", "ok\n");
	ck_assert(get_event(ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ERR);
	ibv_ack_async_event(&ev);
	expect_reply(p, "info\n", "state DOWN speed HDR width 2x");
	expect_reply(p, "port emu0/1 state=active\n", "ok\n");
	ck_assert(get_event(ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	ibv_ack_async_event(&ev);

	/* A flap: down now, up by the device's own timer. */
	expect_reply(p, "flap emu0/1 100000\n",
		     "ok\nemu0/1: down, up in 100000 us\n");
	ck_assert(get_event(ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ERR);
	ibv_ack_async_event(&ev);
	{
		double t0 = now_ms();

		ck_assert(get_event(ctx, &ev, 2000));
		ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ACTIVE);
		ck_assert_double_ge(now_ms() - t0, 50);
		ibv_ack_async_event(&ev);
	}
	expect_reply(p, "flap emu0/1 soon\n", "error: flap: soon is not a time");
	expect_reply(p, "flap emu0/1\n", "error: usage: flap");

	expect_reply(p, "gid emu0/1 add 127.88.0.1\n",
		     "ok\nemu0/1: GID 127.88.0.1 added\n");
	ck_assert(get_event(ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_GID_CHANGE);
	ibv_ack_async_event(&ev);
	/* A flap: down now, up by the device's own timer. */
	expect_reply(p, "flap emu0/1 100000\n",
		     "ok\nemu0/1: down, up in 100000 us\n");
	ck_assert(get_event(ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ERR);
	ibv_ack_async_event(&ev);
	{
		double t0 = now_ms();

		ck_assert(get_event(ctx, &ev, 2000));
		ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ACTIVE);
		ck_assert_double_ge(now_ms() - t0, 50);
		ibv_ack_async_event(&ev);
	}
	expect_reply(p, "flap emu0/1 soon\n", "error: flap: soon is not a time");
	expect_reply(p, "flap emu0/1\n", "error: usage: flap");

	expect_reply(p, "gid emu0/1 add 127.88.0.1\n", "error: emu0/1: GID "
		     "127.88.0.1 not added");
	expect_reply(p, "gid emu0/1 del 127.88.0.1\n", "removed");
	ck_assert(get_event(ctx, &ev, 1000));
	ibv_ack_async_event(&ev);
	expect_reply(p, "gid emu0/1 del 127.88.0.1\n", "not in the table");
	expect_reply(p, "gid emu0/1 add 300.1.1.1\n", "error: character");

	expect_reply(p, "event sm-change emu0/1\n", "ok\n");
	ck_assert(get_event(ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_SM_CHANGE);
	ck_assert_int_eq(ev.element.port_num, 1);
	ibv_ack_async_event(&ev);

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	ia.send_cq = ia.recv_cq = cq;
	qp = ibv_create_qp(pd, &ia);
	ck_assert_ptr_nonnull(qp);
	expect_reply(p, "event qp-fatal 0xfffffe\n",
		     "error: qp-fatal 0xfffffe: no such QP");
	snprintf(line, sizeof(line), "event qp-access-err %u\n", qp->qp_num);
	expect_reply(p, line, "ok\n");
	ck_assert(get_event(ctx, &ev, 1000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_QP_ACCESS_ERR);
	ck_assert_ptr_eq(ev.element.qp, qp);
	ibv_ack_async_event(&ev);

	expect_reply(p, "fault add name=c drop dir=rx op=ack count=2\n",
		     "ok\nemu0: added\n");
	expect_reply(p, "fault list\n",
		     "emu0: c: drop dir=rx op=ack count=2 (matched 0, acted 0)");
	expect_reply(p, "fault del c\n", "ok\nc: deleted\n");
	expect_reply(p, "fault del c\n", "error: c: no rule of that name");
	expect_reply(p, "fault add drop device=emu7\n",
		     "error: no open device for the rule");

	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* A close while a command holds the device waits for it; commands on a
 * closing device find it closed, never a stopped engine. */
START_TEST(t_close_races_commands)
{
	const char *p;
	char path[600];
	pid_t pid;
	int i, st;

	for (i = 0; i < 20; i++) {
		struct ibv_context *ctx = open_default();

		p = emu_ctl_path();
		snprintf(path, sizeof(path), "%s", p);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			int k;

			for (k = 0; k < 50; k++)
				free(ask(path, "port emu0/1 latency_us=1\n"));
			_exit(0);
		}
		usleep((useconds_t)(i * 500));
		ck_assert_int_eq(ibv_close_device(ctx), 0);
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_int_eq(WEXITSTATUS(st), 0);
	}
}
END_TEST

static Suite *ctl_suite(void)
{
	Suite *s = suite_create("ctl");
	TCase *tc = tcase_create("ctl");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_dir);
	tcase_add_test(tc, t_out);
	tcase_add_test(tc, t_dispatch);
	tcase_add_test(tc, t_server_life);
	tcase_add_test(tc, t_server_off);
	tcase_add_test(tc, t_server_bad_requests);
	tcase_add_test(tc, t_job_names);
	tcase_add_test(tc, t_job_link);
	tcase_add_test(tc, t_server_other_user);
	tcase_add_test(tc, t_commands);
	tcase_add_test(tc, t_close_races_commands);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(ctl_suite());
}
