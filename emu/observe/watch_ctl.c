/* The control socket's capture and trace commands, behind `emuverbs trace`:
 * start one into a file the tool names (an absolute path: the tool
 * resolves it in its own directory), ask how far it is, stop it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/observe/capture.h"
#include "emu/observe/ctl.h"
#include "emu/observe/tracer.h"

/* A positive number of at most max in s: 0 and *v, or -1. */
static int number(const char *s, unsigned long long max,
		  unsigned long long *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return *end || errno || !*v || *v > max ? -1 : 0;
}

static bool absolute(const char *path, struct emu_ctl_out *o)
{
	if (path[0] == '/')
		return true;
	emu_ctl_fail(o, "%s: not an absolute path (emuverbs trace makes a "
		     "relative one absolute)", path);
	return false;
}

/* capture start PATH [count N] | capture stop | capture status */
void emu_capture_ctl(int argc, char **argv, struct emu_ctl_out *o)
{
	char buf[512], why[512];
	unsigned long long count = 0;

	if (argc == 2 && !strcmp(argv[1], "status")) {
		emu_capture_status(buf, sizeof(buf));
		emu_ctl_printf(o, "%s\n", buf);
		return;
	}
	if (argc == 2 && !strcmp(argv[1], "stop")) {
		if (emu_capture_stop(buf, sizeof(buf)))
			emu_ctl_fail(o, "%s", buf);
		else
			emu_ctl_printf(o, "%s\n", buf);
		return;
	}
	if ((argc != 3 && argc != 5) || strcmp(argv[1], "start") ||
	    (argc == 5 && (strcmp(argv[3], "count") ||
			   number(argv[4], ~0ull, &count)))) {
		emu_ctl_fail(o, "usage: capture start PATH [count N] | capture "
			     "stop | capture status");
		return;
	}
	if (!absolute(argv[2], o))
		return;
	if (emu_capture_start(argv[2], count, why, sizeof(why))) {
		emu_ctl_fail(o, "%s", why);
		return;
	}
	emu_capture_status(buf, sizeof(buf));
	emu_ctl_printf(o, "%s\n", buf);
}

/* trace start PATH [interval MS] | trace stop | trace status */
void emu_tracer_ctl(int argc, char **argv, struct emu_ctl_out *o)
{
	char buf[512], why[512];
	unsigned long long ms = 0;

	if (argc == 2 && !strcmp(argv[1], "status")) {
		emu_tracer_status(buf, sizeof(buf));
		emu_ctl_printf(o, "%s\n", buf);
		return;
	}
	if (argc == 2 && !strcmp(argv[1], "stop")) {
		if (emu_tracer_stop(buf, sizeof(buf)))
			emu_ctl_fail(o, "%s", buf);
		else
			emu_ctl_printf(o, "%s\n", buf);
		return;
	}
	if ((argc != 3 && argc != 5) || strcmp(argv[1], "start") ||
	    (argc == 5 && (strcmp(argv[3], "interval") ||
			   number(argv[4], 3600000, &ms)))) {
		emu_ctl_fail(o, "usage: trace start PATH [interval MS] | trace "
			     "stop | trace status");
		return;
	}
	if (!absolute(argv[2], o))
		return;
	if (emu_tracer_start(argv[2], (unsigned int)ms, why, sizeof(why))) {
		emu_ctl_fail(o, "%s", why);
		return;
	}
	emu_tracer_status(buf, sizeof(buf));
	emu_ctl_printf(o, "%s\n", buf);
}
