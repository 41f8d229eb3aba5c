/* The client side of the control socket that every emuverbs tool which
 * talks to running processes shares (tools/ctl.h): which processes a
 * TARGET names, in which jobs, and one request to one of them. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "emu/observe/ctl.h"
#include "tools/ctl.h"

const char ctl_scope_usage[] =
	"  -A, --all-jobs  every process of yours, whatever its job\n"
	"  --job NAME      the processes of job NAME\n"
	"ps, all and a command name reach your job (EMUVERBS_JOB; each "
	"emuverbs\nrun starts one unless it is set), a PID its process\n";

int ctl_scope_init(struct ctl_scope *s, const char *prog)
{
	memset(s, 0, sizeof(*s));
	if (emu_job_env(&s->job)) {
		fprintf(stderr, "%s: EMUVERBS_JOB is not a job name (1 to %d "
			"visible ASCII characters)\n", prog, EMU_JOB_MAX);
		return -1;
	}
	return 0;
}

int ctl_scope_set(struct ctl_scope *s, const char *prog, const char *name)
{
	if (s->chosen) {
		fprintf(stderr, "%s: one --job or --all-jobs at most\n", prog);
		return -1;
	}
	if (name && !emu_job_name_ok(name)) {
		fprintf(stderr, "%s: --job %s: not a job name (1 to %d visible "
			"ASCII characters)\n", prog, name, EMU_JOB_MAX);
		return -1;
	}
	s->job = name;
	s->all_jobs = !name;
	s->chosen = true;
	return 0;
}

int ctl_scope_arg(struct ctl_scope *s, const char *prog, int argc,
		  char **argv, int *i)
{
	const char *a = argv[*i];

	if (!strcmp(a, "-A") || !strcmp(a, "--all-jobs"))
		return ctl_scope_set(s, prog, NULL) ? -1 : 1;
	if (!strncmp(a, "--job=", 6))
		return ctl_scope_set(s, prog, a + 6) ? -1 : 1;
	if (strcmp(a, "--job"))
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: --job: a job name is missing\n", prog);
		return -1;
	}
	++*i;
	return ctl_scope_set(s, prog, argv[*i]) ? -1 : 1;
}

static bool is_pid(const char *target)
{
	const char *c;

	for (c = target; isdigit((unsigned char)*c); c++)
		;
	return c != target && !*c;
}

/* Whether target names the process pid whose command is comm. */
static bool names(const char *target, unsigned long pid, const char *comm)
{
	if (!strcmp(target, "all") || !strcmp(target, comm))
		return true;
	return is_pid(target) && strtoul(target, NULL, 10) == pid;
}

int ctl_targets(const char *target, struct ctl_scope *s,
		struct ctl_target *out, int max)
{
	char dir[200], p[512], comm[64], job[EMU_JOB_MAX + 1];
	bool by_pid = is_pid(target);
	struct dirent *de;
	unsigned long pid;
	char *end;
	int n = 0;
	DIR *d;
	FILE *f;

	s->others = 0;
	if (emu_ctl_dir(dir, sizeof(dir)))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		pid = strtoul(de->d_name, &end, 10);
		if (end == de->d_name || strcmp(end, ".sock") ||
		    (kill((pid_t)pid, 0) && errno == ESRCH))
			continue;
		snprintf(p, sizeof(p), "/proc/%lu/comm", pid);
		strcpy(comm, "?");
		f = fopen(p, "r");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		if (!names(target, pid, comm))
			continue;
		/* Its job from the link beside its socket: another job's
		 * processes are never even asked. */
		if (emu_job_read(dir, pid, job, sizeof(job)) < 0)
			continue;
		if (!by_pid && !s->all_jobs &&
		    strcmp(s->job ? s->job : "", job)) {
			s->others++;
			continue;
		}
		out[n].pid = (int)pid;
		snprintf(out[n].job, sizeof(out[n].job), "%s", job);
		snprintf(out[n].comm, sizeof(out[n].comm), "%s", comm);
		if ((size_t)snprintf(out[n].path, sizeof(out[n].path),
				     "%s/%.20s", dir, de->d_name) <
		    sizeof(out[n].path))
			n++;
	}
	closedir(d);
	return n;
}

void ctl_others_note(const char *prog, const struct ctl_scope *s)
{
	if (s->others)
		fprintf(stderr, "%s: %d process%s of yours in other jobs left "
			"out: -A (--all-jobs) or --job NAME reaches them\n",
			prog, s->others, s->others == 1 ? "" : "es");
}

void ctl_no_target(const char *prog, const char *target,
		   const struct ctl_scope *s)
{
	fprintf(stderr, "%s: no process of yours with an emulated device "
		"open matches %s", prog, target);
	if (!s->all_jobs && !is_pid(target)) {
		if (s->job)
			fprintf(stderr, " in job %s", s->job);
		else
			fprintf(stderr, " outside any job (EMUVERBS_JOB is "
				"unset; each emuverbs run starts a job)");
	}
	fputc('\n', stderr);
	ctl_others_note(prog, s);
}

int ctl_send(const struct ctl_target *t, const char *line, int *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memcpy(sa.sun_path, t->path, sizeof(t->path));
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		*err = errno;
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* A server that refuses us closes before it reads, and its reason
	 * is still there to read: a failed send is not the end. */
	if (send(fd, line, strlen(line), MSG_NOSIGNAL) >= 0)
		(void)send(fd, "\n", 1, MSG_NOSIGNAL);
	shutdown(fd, SHUT_WR);
	return fd;
}

char *ctl_reply(int fd, int err, bool *ok)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *b;
	ssize_t r;

	*ok = false;
	if (!buf) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (fd < 0) {
		snprintf(buf, cap, "error: cannot connect: %s\n",
			 strerror(err));
		return buf;
	}
	for (;;) {
		if (len + 1 >= cap) {
			b = realloc(buf, cap * 2);
			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	close(fd);
	if (!strncmp(buf, "ok\n", 3)) {
		*ok = true;
		memmove(buf, buf + 3, len - 2);
	} else if (!len) {
		snprintf(buf, cap, "error: no reply\n");
	}
	return buf;
}

char *ctl_request(const struct ctl_target *t, const char *line, bool *ok)
{
	int err = 0, fd = ctl_send(t, line, &err);

	return ctl_reply(fd, err, ok);
}
