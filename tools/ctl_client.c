/* The client side of the control socket that every emuverbs tool which
 * talks to running processes shares (tools/ctl.h). */
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

#include "emu/ctl.h"
#include "tools/ctl.h"

/* Whether target names the process pid whose command is comm. */
static bool names(const char *target, unsigned long pid, const char *comm)
{
	const char *c;

	if (!strcmp(target, "all") || !strcmp(target, comm))
		return true;
	for (c = target; isdigit((unsigned char)*c); c++)
		;
	return c != target && !*c && strtoul(target, NULL, 10) == pid;
}

int ctl_targets(const char *target, struct ctl_target *out, int max)
{
	char dir[200], p[512], comm[64];
	struct dirent *de;
	unsigned long pid;
	char *end;
	int n = 0;
	DIR *d;
	FILE *f;

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
		out[n].pid = (int)pid;
		snprintf(out[n].comm, sizeof(out[n].comm), "%s", comm);
		if ((size_t)snprintf(out[n].path, sizeof(out[n].path),
				     "%s/%.20s", dir, de->d_name) <
		    sizeof(out[n].path))
			n++;
	}
	closedir(d);
	return n;
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
