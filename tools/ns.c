/* emuverbs-ns: what `emuverbs run` execs. Gives the program its private
 * view of the device (tools/nsview.c), or says in one line why it cannot,
 * and execs the program in place (same pid, same environment). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/config.h"
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

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: emuverbs-ns PROGRAM [ARGS...]\n");
		return 2;
	}
	make_view();
	execvp(argv[1], argv + 1);
	/* The shell's conventions, as `exec` in tools/emuverbs.in had. */
	fprintf(stderr, "emuverbs run: %s: %s\n", argv[1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
