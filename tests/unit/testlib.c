/* Shared by the Check unit tests: the runner, a private configuration for
 * public-API tests, and calloc/malloc failure injection. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

extern char **environ;

static char config_dir[PATH_MAX];	/* empty until isolated */
static char run_dir[PATH_MAX + 8];	/* control sockets, in it */

/* ---- the runner ------------------------------------------------------- */

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int emu_test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	/* Here rather than atexit: every forked test exits too. Config
	 * files go with the directory, even those a failed test left. */
	if (config_dir[0])
		nftw(config_dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ---- configuration ---------------------------------------------------- */

/* Set before the runner forks, so every test inherits it and, being its
 * own process, builds the registry afresh: from the embedded default
 * unless it calls emu_test_write_config. */
void emu_test_isolate_config(void)
{
	char **e;

	snprintf(config_dir, sizeof(config_dir), "/tmp/emuverbs-%s-XXXXXX",
		 program_invocation_short_name);
	if (!mkdtemp(config_dir)) {
		perror(config_dir);
		exit(EXIT_FAILURE);
	}
	setenv("HOME", config_dir, 1);
	setenv("XDG_CONFIG_HOME", config_dir, 1);
	for (e = environ; *e;) {
		char name[128];
		size_t len = strcspn(*e, "=");

		/* The I/O path is the suite's choice (scripts/test.sh runs
		 * one build on each), not the user's setup. */
		if (strncmp(*e, "EMUVERBS_", 9) || len >= sizeof(name) ||
		    !strncmp(*e, "EMUVERBS_UDP_IO=", 16)) {
			e++;
			continue;
		}
		memcpy(name, *e, len);
		name[len] = '\0';
		unsetenv(name); /* shifts environ: do not advance */
	}
	/* The control socket is a module of its own (test_ctl): elsewhere
	 * its thread and allocations would only move the counts of the
	 * allocation-failure tests. Where it runs, its sockets are this
	 * run's, never the user's. */
	setenv("EMUVERBS_NO_CONTROL", "1", 1);
	snprintf(run_dir, sizeof(run_dir), "%s/run", config_dir);
	setenv("EMUVERBS_RUNTIME_DIR", run_dir, 1);
}

const char *emu_test_write_config(const char *text)
{
	static char path[PATH_MAX + 16];
	FILE *f;

	ck_assert_msg(config_dir[0], "emu_test_isolate_config not called");
	snprintf(path, sizeof(path), "%s/emuverbs.conf", config_dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(setenv("EMUVERBS_CONFIG", path, 1), 0);
	return path;
}

/* ---- allocation failures ---------------------------------------------- */

/* --wrap=calloc turns the library's and the test's calls to calloc into
 * calls to __wrap_calloc, and __real_calloc into calloc itself: no hook
 * in the library. Weak, so that tests linked without the flag need no
 * __real_calloc; arming a failure there would never fire, and aborts. */
void *__real_calloc(size_t n, size_t size) __attribute__((weak));
void *__wrap_calloc(size_t n, size_t size);
void *__real_malloc(size_t size) __attribute__((weak));
void *__wrap_malloc(size_t size);

/* Atomic: engine threads allocate too, and two of them must not both
 * take the failure, nor both miss it. */
static atomic_int calloc_left, malloc_left;

/* Counts one call down; true for the one that is to fail. */
static bool fail_now(atomic_int *left)
{
	int n = atomic_load(left);

	while (n > 0)
		if (atomic_compare_exchange_weak(left, &n, n - 1))
			return n == 1;
	return false;
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (fail_now(&calloc_left))
		return NULL;
	return __real_calloc(n, size);
}

void *__wrap_malloc(size_t size)
{
	if (fail_now(&malloc_left))
		return NULL;
	return __real_malloc(size);
}

void emu_test_fail_calloc(int nth)
{
	ck_assert_msg(!nth || __real_calloc,
		      "link the test with -Wl,--wrap=calloc");
	atomic_store(&calloc_left, nth);
}

void emu_test_fail_malloc(int nth)
{
	ck_assert_msg(!nth || __real_malloc,
		      "link the test with -Wl,--wrap=malloc");
	atomic_store(&malloc_left, nth);
}

int emu_test_alloc_armed(void)
{
	return atomic_load(&calloc_left) + atomic_load(&malloc_left);
}

double emu_test_slack(void)
{
	const char *e = getenv("CK_TIMEOUT_MULTIPLIER");
	double f = e ? strtod(e, NULL) : 1.0;

	return f > 1.0 ? f : 1.0;
}
