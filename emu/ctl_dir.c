/* Where this user's control sockets live, shared by the server in each
 * process and the emuverbs tool that looks for them: a directory only the
 * user may enter, so that the sockets' mode is a second lock, not the
 * only one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "emu/ctl.h"

int emu_ctl_dir(char *buf, size_t len)
{
	const char *e = getenv("EMUVERBS_RUNTIME_DIR");
	int n;

	if (e && *e)
		n = snprintf(buf, len, "%s", e);
	else if ((e = getenv("XDG_RUNTIME_DIR")) && *e)
		n = snprintf(buf, len, "%s/emuverbs", e);
	else
		n = snprintf(buf, len, "/tmp/emuverbs-%u",
			     (unsigned int)geteuid());
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
