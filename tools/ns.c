/* emuverbs-ns: what `emuverbs run` execs. Puts the program in a job of
 * its own unless it is in one (EMUVERBS_JOB), gives it its private view
 * of the device (tools/nsview.c), or says in one line why it cannot, and
 * execs the program in place (same pid, same environment otherwise). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <time.h>
#include <sys/random.h>

#include "emu/device/config.h"
#include "emu/observe/ctl.h"
#include "tools/nsview.h"

/* The devices the library will build, from the same configuration (and
 * environment) the program's library reads: one uverbs node each. Config
 * problems are the library's to report, once, when the program starts. */
static unsigned int count_devices(void)
{
	struct emu_config *cfg = malloc(sizeof(*cfg));
	unsigned int n;

	if (!cfg)
		return 0;
	emu_config_load(cfg, NULL);
	n = cfg->ndevices;
	free(cfg);
	return n;
}

static void make_view(void)
{
	struct emu_nsview v = {
		.dev = "/dev",
		.sys_class = "/sys/class",
		.null_dev = "/dev/null",
	};
	const char *what = "";
	const char *env = getenv("EMUVERBS_VIEW");
	int rc;

	if (env && !strcmp(env, "0"))
		return;
	v.ndevices = count_devices();
	rc = emu_ns_enter(&what);
	if (!rc)
		rc = emu_nsview_build(&v, &what);
	if (rc)
		fprintf(stderr,
			"emuverbs: no private /dev and /sys view (%s: %s); "
			"running without it\n",
			what, strerror(-rc));
}

/*
 * The job the program and everything it starts are in, which the emuverbs
 * commands reach by default (doc/control.md): the caller's when it is in
 * one, else a new one named after this run's PID (the program's, once
 * exec'd) and a random part, so that a job whose first process has gone
 * and whose PID came back to another run is not that run's. 0, or -1
 * after saying why not.
 */
static int join_job(void)
{
	const char *job;
	char name[32];
	unsigned short r;
	struct timespec ts;

	if (emu_job_env(&job)) {
		fprintf(stderr, "emuverbs run: EMUVERBS_JOB is not a job name "
			"(1 to %d visible ASCII characters)\n", EMU_JOB_MAX);
		return -1;
	}
	if (job)
		return 0;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		r = (unsigned short)(ts.tv_nsec ^ (ts.tv_nsec >> 16));
	}
	snprintf(name, sizeof(name), "%d-%04x", (int)getpid(), r);
	if (setenv("EMUVERBS_JOB", name, 1)) {
		fprintf(stderr, "emuverbs run: no job: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: emuverbs-ns PROGRAM [ARGS...]\n");
		return 2;
	}
	if (join_job())
		return 2;
	make_view();
	execvp(argv[1], argv + 1);
	/* The shell's conventions, as `exec` in tools/emuverbs.in had. */
	fprintf(stderr, "emuverbs run: %s: %s\n", argv[1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
