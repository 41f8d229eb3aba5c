/* A process's job, shared by the control socket's server (which records
 * it) and the emuverbs tools (which act on one job by default): what a
 * job name may be, where a process finds its own ($EMUVERBS_JOB), and the
 * link beside its socket, PID.job, that tells the tools without their
 * having to ask the process (doc/control.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/base/rundir.h"

bool emu_job_name_ok(const char *name)
{
	size_t n;

	/* Visible ASCII: a name is one word of a line, in any locale. */
	for (n = 0; name[n]; n++)
		if (n == EMU_JOB_MAX || (unsigned char)name[n] < 0x21 ||
		    (unsigned char)name[n] > 0x7e)
			return false;
	return n > 0;
}

int emu_job_env(const char **job)
{
	const char *e = getenv("EMUVERBS_JOB");

	*job = NULL;
	if (!e || !*e)
		return 0;
	if (!emu_job_name_ok(e))
		return -1;
	*job = e;
	return 0;
}

int emu_job_path(const char *dir, unsigned long pid, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%lu.job", dir, pid);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int emu_job_read(const char *dir, unsigned long pid, char *buf, size_t len)
{
	char p[512];
	ssize_t n;

	if (emu_job_path(dir, pid, p, sizeof(p)))
		return -1;
	n = readlink(p, buf, len);
	if (n > 0 && (size_t)n < len) {
		buf[n] = '\0';
		return emu_job_name_ok(buf) ? 1 : -1;
	}
	if (n >= 0 || errno != ENOENT)
		return -1;	/* not a link of ours: nobody's job */
	/* No link: a process in no job, unless it is gone. A server makes
	 * the link before its socket and removes it after, so while the
	 * socket is there, a process with a job has its link. */
	buf[0] = '\0';
	snprintf(p, sizeof(p), "%s/%lu.sock", dir, pid);
	return access(p, F_OK) ? -1 : 0;
}
