/* Building emuverbs run's private view of /dev and /sys/class: the
 * namespaces, the tmpfs overlays with the real entries bound back, and the
 * uverbs nodes. Runs in emuverbs-ns before it execs the program. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "tools/nsview.h"

static int fail(const char **what, const char *step)
{
	int err = errno ? errno : EIO;

	if (what)
		*what = step;
	return -err;
}

static int write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	if (close(fd) || n != (ssize_t)len) {
		if (n >= 0 && n != (ssize_t)len)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* Our own ids only: an unprivileged process may map exactly those, and
 * mapping them to themselves (not to root) keeps programs that refuse to
 * run as root working. setgroups must be denied before gid_map. */
static int map_ids(uid_t uid, gid_t gid, const char **what)
{
	char line[64];

	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned int)uid,
		 (unsigned int)uid);
	if (write_file("/proc/self/uid_map", line))
		return fail(what, "writing uid_map");
	if (write_file("/proc/self/setgroups", "deny\n") && errno != ENOENT)
		return fail(what, "writing setgroups");
	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned int)gid,
		 (unsigned int)gid);
	if (write_file("/proc/self/gid_map", line))
		return fail(what, "writing gid_map");
	return 0;
}

int emu_ns_enter(const char **what)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int rc;

	/* A mount namespace alone needs CAP_SYS_ADMIN; a root without it
	 * (some containers) can still make a user namespace. */
	if (unshare(CLONE_NEWNS)) {
		if (errno != EPERM)
			return fail(what, "unshare(CLONE_NEWNS)");
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			return fail(what, "unshare(CLONE_NEWUSER)");
		rc = map_ids(uid, gid, what);
		if (rc)
			return rc;
	}
	/* Slave: mounts the host makes later still show here, and nothing
	 * mounted here reaches the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL))
		return fail(what, "making / a slave mount");
	return 0;
}

/* ---- one directory overlaid ------------------------------------------- */

struct entry {
	char *name;
	mode_t mode;
};

static bool skipped(const char *name, const char *const *skip)
{
	for (; skip && *skip; skip++)
		if (!strcmp(name, *skip))
			return true;
	return false;
}

static void free_entries(struct entry *e, size_t n)
{
	while (n)
		free(e[--n].name);
	free(e);
}

/* The entries of the directory open at fd, before anything hides it. */
static int list_entries(int fd, const char *const *skip, struct entry **out,
			size_t *nout)
{
	struct entry *e = NULL, *grown;
	size_t n = 0, cap = 0;
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int dfd;

	dfd = dup(fd);
	if (dfd < 0)
		return -1;
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return -1;
	}
	for (;;) {
		/* readdir says end and error apart only through errno. */
		errno = 0;
		d = readdir(dir);
		if (!d)
			break;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    skipped(d->d_name, skip))
			continue;
		/* Gone since readdir (a device unplugged): not ours to show. */
		if (fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(e, cap * sizeof(*e));
			if (!grown)
				goto oom;
			e = grown;
		}
		e[n].name = strdup(d->d_name);
		if (!e[n].name)
			goto oom;
		e[n++].mode = st.st_mode;
	}
	if (errno) {
		int err = errno;

		closedir(dir);
		free_entries(e, n);
		errno = err;
		return -1;
	}
	closedir(dir);
	*out = e;
	*nout = n;
	return 0;
oom:
	closedir(dir);
	free_entries(e, n);
	errno = ENOMEM;
	return -1;
}

/* An empty file or directory at path for a bind mount to cover. */
static int placeholder(const char *path, bool dir)
{
	int fd;

	if (dir)
		return mkdir(path, 0755);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	return close(fd);
}

static int bind_onto(const char *src, const char *dst, bool dir)
{
	if (placeholder(dst, dir))
		return -1;
	/* Recursive: /dev/pts, /dev/shm and the like are mounts of their
	 * own, and a non-recursive bind of a locked tree is refused. */
	return mount(src, dst, NULL, MS_BIND | MS_REC, NULL);
}

/* Put back one entry of the real directory (open at fd) into the tmpfs
 * that now covers path. Symlinks are copied (a bind cannot be one);
 * everything else is bound, so device nodes keep working. */
static int restore(int fd, const char *path, const struct entry *e)
{
	char src[PATH_MAX], dst[PATH_MAX], target[PATH_MAX];
	ssize_t len;

	if (snprintf(dst, sizeof(dst), "%s/%s", path, e->name) >=
		    (int)sizeof(dst) ||
	    snprintf(src, sizeof(src), "/proc/self/fd/%d/%s", fd, e->name) >=
		    (int)sizeof(src)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (S_ISLNK(e->mode)) {
		len = readlinkat(fd, e->name, target, sizeof(target));
		if (len < 0)
			return -1;
		if ((size_t)len == sizeof(target)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		target[len] = '\0';
		return symlink(target, dst);
	}
	return bind_onto(src, dst, S_ISDIR(e->mode));
}

/* Cover path with a tmpfs holding everything it held but the skipped
 * names. The real directory stays reachable through an fd opened before
 * the mount, which is where the binds come from. */
static int overlay(const char *path, unsigned long flags,
		   const char *const *skip, const char **what)
{
	struct entry *e = NULL;
	size_t n = 0, i;
	int fd, rc;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail(what, "opening the directory to overlay");
	if (list_entries(fd, skip, &e, &n)) {
		rc = fail(what, "listing the directory to overlay");
		close(fd);
		return rc;
	}
	if (mount("tmpfs", path, "tmpfs", flags, "mode=0755")) {
		rc = fail(what, "mounting a tmpfs");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (restore(fd, path, &e[i])) {
			rc = fail(what, "binding an entry back");
			umount2(path, MNT_DETACH);
			goto out;
		}
	}
	rc = 0;
out:
	free_entries(e, n);
	close(fd);
	return rc;
}

/* Read-only from now on: only the library's own directories (separate
 * mounts) stay writable, as nothing else of sysfs or /dev is. */
static int seal(const char *path, unsigned long flags)
{
	return mount(NULL, path, NULL,
		     MS_REMOUNT | MS_BIND | MS_RDONLY | flags, NULL);
}

static int join(char *buf, size_t size, const char *dir, const char *name)
{
	if (snprintf(buf, size, "%s/%s", dir, name) >= (int)size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

#define DEV_FLAGS (MS_NOSUID)
#define SYS_FLAGS (MS_NOSUID | MS_NODEV | MS_NOEXEC)

/* After overlay() succeeded: a failure here leaves the overlay mounted,
 * for emu_nsview_build to take away as a whole. */
static int fill_dev(const struct emu_nsview *v, const char **what)
{
	char dir[PATH_MAX], node[PATH_MAX + 32];
	unsigned int i;

	if (join(dir, sizeof(dir), v->dev, "infiniband") || mkdir(dir, 0755))
		return fail(what, "making dev/infiniband");
	/* Character devices that open, as UCX checks (doc/ucx.md); the
	 * library never reads them, so /dev/null is all they need be. */
	for (i = 0; i < v->ndevices; i++) {
		snprintf(node, sizeof(node), "%s/uverbs%u", dir, i);
		if (bind_onto(v->null_dev, node, false))
			return fail(what, "binding a uverbs node");
	}
	if (seal(v->dev, DEV_FLAGS))
		return fail(what, "making the /dev view read-only");
	return 0;
}

static const char *const sys_mine[] = { "infiniband", "infiniband_verbs",
					 NULL };

static int fill_sys(const struct emu_nsview *v, const char **what)
{
	char dir[PATH_MAX];
	unsigned int i;

	for (i = 0; sys_mine[i]; i++) {
		if (join(dir, sizeof(dir), v->sys_class, sys_mine[i]) ||
		    mkdir(dir, 0755))
			return fail(what, "making a class directory");
		if (mount("tmpfs", dir, "tmpfs", SYS_FLAGS, "mode=0755"))
			return fail(what, "mounting a class directory");
	}
	if (seal(v->sys_class, SYS_FLAGS))
		return fail(what, "making the /sys/class view read-only");
	return 0;
}

int emu_nsview_build(const struct emu_nsview *v, const char **what)
{
	static const char *const dev_mine[] = { "infiniband", NULL };
	int rc;

	/* Each overlay undoes itself when it fails; once it stands, a
	 * later failure takes it away here. Only what we mounted is ever
	 * unmounted: the real /dev is a mount point too. */
	rc = overlay(v->sys_class, SYS_FLAGS, sys_mine, what);
	if (rc)
		return rc;
	rc = fill_sys(v, what);
	if (!rc) {
		rc = overlay(v->dev, DEV_FLAGS, dev_mine, what);
		if (!rc) {
			rc = fill_dev(v, what);
			if (rc)
				umount2(v->dev, MNT_DETACH);
		}
	}
	if (rc)
		umount2(v->sys_class, MNT_DETACH);
	return rc;
}
