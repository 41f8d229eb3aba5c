/* Unit tests for tools/nsview.c: entering the namespaces (privileged and
 * not), the view over the real /dev and /sys/class and over directories of
 * the test's own, and a failure at each stage leaving nothing mounted. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include <check.h>
#include "tests/unit/testlib.h"
#include "tools/nsview.h"

#define TMPFS 0x01021994

static bool is_tmpfs(const char *path)
{
	struct statfs fs;

	return !statfs(path, &fs) && fs.f_type == TMPFS;
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static void enter(void)
{
	const char *what = NULL;
	int rc = emu_ns_enter(&what);

	ck_assert_msg(rc == 0, "emu_ns_enter: %s: %s", what, strerror(-rc));
}

static void check_real_view(unsigned int ndevices)
{
	struct stat st, shm_before, shm_after;
	char target[64], node[64];
	ssize_t len;
	int fd;

	ck_assert_int_eq(stat("/dev/shm", &shm_before), 0);
	{
		struct emu_nsview v = { "/dev", "/sys/class", "/dev/null",
					ndevices };
		const char *what = NULL;
		int rc = emu_nsview_build(&v, &what);

		ck_assert_msg(rc == 0, "build: %s: %s", what, strerror(-rc));
	}
	/* The nodes: character devices that open for reading and writing. */
	ck_assert_int_eq(stat("/dev/infiniband/uverbs0", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_int_eq(access("/dev/infiniband/uverbs0", R_OK | W_OK), 0);
	snprintf(node, sizeof(node), "/dev/infiniband/uverbs%u", ndevices - 1);
	fd = open(node, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
	snprintf(node, sizeof(node), "/dev/infiniband/uverbs%u", ndevices);
	ck_assert(!exists(node));
	/* The rest of /dev as it was: devices work, mounts and symlinks are
	 * the real ones, and the overlay itself takes no new files. */
	fd = open("/dev/null", O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
	ck_assert_int_eq(stat("/dev/shm", &shm_after), 0);
	ck_assert_uint_eq(shm_after.st_dev, shm_before.st_dev);
	len = readlink("/dev/fd", target, sizeof(target) - 1);
	if (len > 0) {
		target[len] = '\0';
		ck_assert_str_eq(target, "/proc/self/fd");
	}
	ck_assert_int_eq(mkdir("/dev/emuverbs-test", 0755), -1);
	ck_assert_int_eq(errno, EROFS);
	/* /sys/class: the real classes, and two empty writable tmpfs. */
	ck_assert(exists("/sys/class/net/lo"));
	ck_assert(is_tmpfs("/sys/class/infiniband"));
	ck_assert(is_tmpfs("/sys/class/infiniband_verbs"));
	ck_assert_int_eq(access("/sys/class/infiniband", W_OK), 0);
	ck_assert_int_eq(mkdir("/sys/class/infiniband/emu0", 0755), 0);
	ck_assert_int_eq(mkdir("/sys/class/emuverbs-test", 0755), -1);
	ck_assert_int_eq(errno, EROFS);
}

/* As the tests run (root in CI: a mount namespace alone). */
START_TEST(t_real_view)
{
	enter();
	check_real_view(2);
}
END_TEST

/* Unprivileged: a user namespace mapping our ids to themselves only; the
 * program would keep its uid, and the view is the same. */
START_TEST(t_real_view_unprivileged)
{
	char map[128] = "";
	unsigned int in, out, count;
	FILE *f;

	if (geteuid() == 0) {
		ck_assert_int_eq(setgroups(0, NULL), 0);
		ck_assert_int_eq(setgid(65534), 0);
		ck_assert_int_eq(setuid(65534), 0);
		/* As an exec would: a changed uid leaves the process
		 * undumpable, and /proc/self/uid_map root's to write. */
		ck_assert_int_eq(prctl(PR_SET_DUMPABLE, 1), 0);
	}
	enter();
	f = fopen("/proc/self/uid_map", "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(map, sizeof(map), f));
	fclose(f);
	ck_assert_int_eq(sscanf(map, "%u %u %u", &in, &out, &count), 3);
	ck_assert_uint_eq(in, getuid());
	ck_assert_uint_eq(out, getuid());
	ck_assert_uint_eq(count, 1);
	check_real_view(1);
}
END_TEST

/* ---- directories of our own ------------------------------------------- */

struct tree {
	char root[PATH_MAX], dev[PATH_MAX + 8], cls[PATH_MAX + 8];
};

static void mk(const char *dir, const char *name, const char *kind)
{
	char p[PATH_MAX * 2];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (!strcmp(kind, "dir")) {
		ck_assert_int_eq(mkdir(p, 0755), 0);
	} else if (!strcmp(kind, "fifo")) {
		ck_assert_int_eq(mkfifo(p, 0600), 0);
	} else if (kind[0] == '>') {
		ck_assert_int_eq(symlink(kind + 1, p), 0);
	} else {
		fd = open(p, O_WRONLY | O_CREAT, 0644);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, kind, strlen(kind)),
				 (ssize_t)strlen(kind));
		close(fd);
	}
}

/* dev: a directory with a file, a symlink, a file and a fifo; class: a
 * class with an entry, and a stale infiniband the view must hide. */
static void tree_make(struct tree *t)
{
	/* Under the runner's own directory, which it removes at the end. */
	snprintf(t->root, sizeof(t->root), "%s/nsview-XXXXXX", getenv("HOME"));
	ck_assert_ptr_nonnull(mkdtemp(t->root));
	snprintf(t->dev, sizeof(t->dev), "%s/dev", t->root);
	snprintf(t->cls, sizeof(t->cls), "%s/class", t->root);
	mk(t->root, "dev", "dir");
	mk(t->root, "class", "dir");
	mk(t->dev, "pts", "dir");
	mk(t->dev, "pts/0", "tty");
	mk(t->dev, "fd", ">/proc/self/fd");
	mk(t->dev, "zero", "zeros");
	mk(t->dev, "fifo", "fifo");
	mk(t->cls, "net", "dir");
	mk(t->cls, "net/lo", "loopback");
	mk(t->cls, "infiniband", "dir");
	mk(t->cls, "infiniband/mlx5_0", "stale");
}

static void read_is(const char *dir, const char *name, const char *want)
{
	char p[PATH_MAX * 2], buf[64] = "";
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_RDONLY);
	ck_assert_msg(fd >= 0, "%s: %s", p, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	ck_assert_str_eq(buf, want);
}

/* Both directories exactly as tree_make left them: nothing mounted. */
static void tree_untouched(const struct tree *t)
{
	char p[PATH_MAX * 2];

	read_is(t->dev, "pts/0", "tty");
	read_is(t->dev, "zero", "zeros");
	read_is(t->cls, "net/lo", "loopback");
	read_is(t->cls, "infiniband/mlx5_0", "stale");
	snprintf(p, sizeof(p), "%s/infiniband", t->dev);
	ck_assert(!exists(p));
	snprintf(p, sizeof(p), "%s/infiniband_verbs", t->cls);
	ck_assert(!exists(p));
	ck_assert(!is_tmpfs(t->dev) || is_tmpfs(t->root));
}

START_TEST(t_own_dirs)
{
	struct tree t;
	struct emu_nsview v;
	char p[PATH_MAX * 2], target[64];
	const char *what = NULL;
	struct stat st;
	ssize_t len;
	int rc;

	enter();
	tree_make(&t);
	v = (struct emu_nsview){ t.dev, t.cls, "/dev/null", 1 };
	rc = emu_nsview_build(&v, &what);
	ck_assert_msg(rc == 0, "build: %s: %s", what, strerror(-rc));
	ck_assert(is_tmpfs(t.dev));
	ck_assert(is_tmpfs(t.cls));
	read_is(t.dev, "pts/0", "tty");
	read_is(t.dev, "zero", "zeros");
	read_is(t.cls, "net/lo", "loopback");
	snprintf(p, sizeof(p), "%s/fd", t.dev);
	len = readlink(p, target, sizeof(target) - 1);
	ck_assert_int_gt(len, 0);
	target[len] = '\0';
	ck_assert_str_eq(target, "/proc/self/fd");
	snprintf(p, sizeof(p), "%s/fifo", t.dev);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	snprintf(p, sizeof(p), "%s/infiniband/uverbs0", t.dev);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	/* The stale entry is hidden, the class directory empty. */
	snprintf(p, sizeof(p), "%s/infiniband/mlx5_0", t.cls);
	ck_assert(!exists(p));
	mk(t.cls, "infiniband_verbs/abi_version", "6\n");
	read_is(t.cls, "infiniband_verbs/abi_version", "6\n");
	snprintf(p, sizeof(p), "%s/new", t.dev);
	ck_assert_int_eq(mkdir(p, 0755), -1);
	ck_assert_int_eq(errno, EROFS);
}
END_TEST

/* A uverbs node that cannot be made: the whole view goes, the class
 * overlay made before it included. */
START_TEST(t_undo_late_failure)
{
	struct tree t;
	struct emu_nsview v;
	const char *what = NULL;

	enter();
	tree_make(&t);
	v = (struct emu_nsview){ t.dev, t.cls, "/nonexistent/null", 2 };
	ck_assert_int_eq(emu_nsview_build(&v, &what), -ENOENT);
	ck_assert_str_eq(what, "binding a uverbs node");
	tree_untouched(&t);
}
END_TEST

/* No class directory: nothing is mounted anywhere. */
START_TEST(t_undo_no_class)
{
	struct tree t;
	struct emu_nsview v;
	const char *what = NULL;
	char missing[PATH_MAX * 2];

	enter();
	tree_make(&t);
	snprintf(missing, sizeof(missing), "%s/none", t.root);
	v = (struct emu_nsview){ t.dev, missing, "/dev/null", 1 };
	ck_assert_int_eq(emu_nsview_build(&v, &what), -ENOENT);
	ck_assert_str_eq(what, "opening the directory to overlay");
	tree_untouched(&t);
}
END_TEST

/* A /dev that cannot be overlaid (a file): the class overlay goes too. */
START_TEST(t_undo_dev_not_dir)
{
	struct tree t;
	struct emu_nsview v;
	const char *what = NULL;
	char file[PATH_MAX * 2];

	enter();
	tree_make(&t);
	snprintf(file, sizeof(file), "%s/zero", t.dev);
	v = (struct emu_nsview){ file, t.cls, "/dev/null", 1 };
	ck_assert_int_eq(emu_nsview_build(&v, &what), -ENOTDIR);
	ck_assert_str_eq(what, "opening the directory to overlay");
	tree_untouched(&t);
}
END_TEST

/* The view never reaches the host: after a child built it, the real /dev
 * is as it was. */
START_TEST(t_host_untouched)
{
	bool had = exists("/dev/infiniband/uverbs0");
	int status;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		const char *what;
		struct emu_nsview v = { "/dev", "/sys/class", "/dev/null", 1 };

		_exit(emu_ns_enter(&what) || emu_nsview_build(&v, &what) ||
		      !exists("/dev/infiniband/uverbs0"));
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(exists("/dev/infiniband/uverbs0"), had);
	ck_assert(!is_tmpfs("/sys/class/infiniband"));
}
END_TEST

/* Whether this machine lets us have namespaces at all, tried in a child. */
static bool namespaces_available(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (!pid) {
		const char *what;

		_exit(emu_ns_enter(&what) ? 1 : 0);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static Suite *nsview_suite(void)
{
	Suite *s = suite_create("nsview");
	TCase *tc = tcase_create("view");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_real_view);
	tcase_add_test(tc, t_real_view_unprivileged);
	tcase_add_test(tc, t_own_dirs);
	tcase_add_test(tc, t_undo_late_failure);
	tcase_add_test(tc, t_undo_no_class);
	tcase_add_test(tc, t_undo_dev_not_dir);
	tcase_add_test(tc, t_host_untouched);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	if (!namespaces_available()) {
		printf("SKIP: no mount or user namespaces here\n");
		return 77;
	}
	return emu_test_run(nsview_suite());
}
