/* The historical sysfs helpers of IBVERBS_1.0: real file reads, since other
 * libraries call them; they find emulated devices under `emuverbs run`'s view
 * (emu/observe/sysview.c), nothing elsewhere. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "emu/base/log.h"

const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);

/* librdmacm passes the result straight to ibv_read_sysfs_file. */
const char *ibv_get_sysfs_path(void)
{
	const char *env = getenv("SYSFS_PATH");

	return env && *env ? env : "/sys";
}

int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size)
{
	char path[4096];
	ssize_t len;
	int fd;

	if (!dir || !file || !buf || !size ||
	    snprintf(path, sizeof(path), "%s/%s", dir, file) >=
		    (int)sizeof(path)) {
		errno = emu_refuse(EINVAL, "ibv_read_sysfs_file: dir, file or "
				   "buf NULL, size 0, or the path too long");
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len <= 0)
		return -1;
	if ((size_t)len == size)
		len--;
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return (int)len;
}

/* rdma-core's private helper for reading a kernel device's sysfs files,
 * for its providers. Emulated devices have no kernel sysfs directory (the
 * view is for other programs), so every read finds nothing; the handle is
 * opaque here and never dereferenced. */
struct verbs_sysfs_dev;
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...);

int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
{
	if (buf && size)
		buf[0] = '\0';
	errno = ENOENT;
	return -1;
}
