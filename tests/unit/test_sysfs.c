/* Unit tests of the historical sysfs helpers (verbs/sysfs.c): the path,
 * real file reads with their edge cases, and the ibdev reader's refusal. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/testlib.h"

const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
struct verbs_sysfs_dev;
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...);

static char dir[] = "/tmp/emuverbs-sysfs-XXXXXX";

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(t_path)
{
	unsetenv("SYSFS_PATH");
	ck_assert_str_eq(ibv_get_sysfs_path(), "/sys");
	setenv("SYSFS_PATH", "/elsewhere", 1);
	ck_assert_str_eq(ibv_get_sysfs_path(), "/elsewhere");
	setenv("SYSFS_PATH", "", 1);
	ck_assert_str_eq(ibv_get_sysfs_path(), "/sys");
}
END_TEST

START_TEST(t_read)
{
	char buf[16];

	put("abi_version", "6\n");
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "abi_version", buf,
					     sizeof(buf)),
			 1);
	ck_assert_str_eq(buf, "6");
	/* Longer than the buffer: cut, and still terminated. */
	put("long", "0123456789abcdefghij\n");
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "long", buf, 8), 7);
	ck_assert_str_eq(buf, "0123456");
	/* No newline to strip. */
	put("bare", "xyz");
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "bare", buf, sizeof(buf)),
			 3);
	ck_assert_str_eq(buf, "xyz");
}
END_TEST

START_TEST(t_read_errors)
{
	char buf[16], big[5000];

	errno = 0;
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "missing", buf, sizeof(buf)),
			 -1);
	ck_assert_int_eq(errno, ENOENT);
	put("empty", "");
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "empty", buf, sizeof(buf)),
			 -1);
	errno = 0;
	ck_assert_int_eq(ibv_read_sysfs_file(NULL, "x", buf, sizeof(buf)), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "x", NULL, 4), -1);
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "x", buf, 0), -1);
	/* A path longer than any file name may be is refused, not cut. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	errno = 0;
	ck_assert_int_eq(ibv_read_sysfs_file(dir, big, buf, sizeof(buf)), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* Emulated devices have no sysfs directory: every read finds nothing. */
START_TEST(t_ibdev_file)
{
	char buf[8] = "junk";

	errno = 0;
	ck_assert_int_eq(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), NULL,
						   "ports/%d/gids/%d", 1, 0),
			 -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(ibv_read_ibdev_sysfs_file(NULL, 0, NULL, "x"), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sysfs");
	TCase *tc = tcase_create("sysfs");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_path);
	tcase_add_test(tc, t_read);
	tcase_add_test(tc, t_read_errors);
	tcase_add_test(tc, t_ibdev_file);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
