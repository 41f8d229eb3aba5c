/* Where this user's control sockets live, shared by the server in each
 * process and the emuverbs tool that looks for them: a directory only the
 * user may enter, so that the sockets' mode is a second lock, not the
 * only one. */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "emu/base/rundir.h"

/* How many names past /tmp/emuverbs-UID are tried before giving up. */
#define CTL_DIR_TRIES 1000

/* A directory of ours that nobody else may enter, and no link to one. */
static bool own_dir(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == geteuid() &&
	       !(st->st_mode & 077);
}

/*
 * /tmp is everyone's: another user may have made /tmp/emuverbs-UID first.
 * Then the directory is the first of /tmp/emuverbs-UID.1, .2, ... that is
 * our own, made if missing. Every process and tool of the user walks the
 * same names with the same test, so they meet in the same one; another
 * user can only make us walk further, never into a directory of theirs
 * (mkdir fails on their name, and theirs fails the test). Said once per
 * process on stderr: the user's tools still work, but someone meddles.
 */
static int tmp_dir(char *buf, size_t len)
{
	static atomic_bool told;
	unsigned int uid = (unsigned int)geteuid(), k;
	char first[64];
	struct stat st;
	int n;

	for (k = 0; k <= CTL_DIR_TRIES; k++) {
		n = k ? snprintf(buf, len, "/tmp/emuverbs-%u.%u", uid, k) :
			snprintf(buf, len, "/tmp/emuverbs-%u", uid);
		if (n < 0 || (size_t)n >= len)
			return -1;
		if (!k)
			snprintf(first, sizeof(first), "%s", buf);
		if (mkdir(buf, 0700) && errno != EEXIST)
			continue;
		if (lstat(buf, &st) || !own_dir(&st))
			continue;
		if (k && !atomic_exchange(&told, true))
			fprintf(stderr, "emuverbs: %s is not this user's own "
				"directory (owner, mode 0700): using %s\n",
				first, buf);
		return 0;
	}
	if (!atomic_exchange(&told, true))
		fprintf(stderr, "emuverbs: %s and the %d names after it are "
			"not this user's own: no runtime directory (set "
			"EMUVERBS_RUNTIME_DIR)\n", first, CTL_DIR_TRIES);
	return -1;
}

int emu_ctl_dir(char *buf, size_t len)
{
	const char *e = getenv("EMUVERBS_RUNTIME_DIR");
	int n;

	if (e && *e)
		n = snprintf(buf, len, "%s", e);
	else if ((e = getenv("XDG_RUNTIME_DIR")) && *e)
		n = snprintf(buf, len, "%s/emuverbs", e);
	else
		return tmp_dir(buf, len);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int emu_ctl_dir_make(const char *dir, char *why, size_t whylen)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	/* lstat: a link planted by someone else is not our directory. */
	if (lstat(dir, &st)) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(why, whylen, "%s is not a directory of uid %u", dir,
			 (unsigned int)geteuid());
		return -1;
	}
	if (st.st_mode & 077) {
		snprintf(why, whylen, "%s: mode %03o lets others in (0700 "
			 "wanted)", dir, (unsigned int)(st.st_mode & 0777));
		return -1;
	}
	return 0;
}

int emu_rundir_file(char *buf, size_t len, const char *fmt, ...)
{
	char dir[200], why[256];
	va_list ap;
	int n, m;

	if (emu_ctl_dir(dir, sizeof(dir)) ||
	    emu_ctl_dir_make(dir, why, sizeof(why)))
		return -1;
	n = snprintf(buf, len, "%s/", dir);
	if (n < 0 || (size_t)n >= len)
		return -1;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return m < 0 || (size_t)m >= len - (size_t)n ? -1 : 0;
}
