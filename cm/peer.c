/* cm/peer.c: which process on this machine the CM believes. Abstract unix
 * sockets (the loopback rendezvous, the liveness links) have no owner and
 * no mode: any local user may bind a name first or connect to one. So the
 * other end of each such socket is judged by the kernel's word on it
 * (SO_PEERCRED), and a liveness peer must also hold the GID it stands for.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cm/core.h"

/*
 * Our own user, or root: root can already signal, trace or kill us, so its
 * word gives it nothing it does not have; any other user could otherwise
 * end our connections or stand in for our listeners.
 */
bool cm_peer_trusted(int fd, struct ucred *cr)
{
	socklen_t len = sizeof(*cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cr, &len) ||
	    len != sizeof(*cr)) {
		cm_log("no credentials on a local CM socket: %s",
		       strerror(errno));
		return false;
	}
	if (cr->uid == geteuid() || cr->uid == 0)
		return true;
	cm_log("local CM socket of pid %d, uid %u: another user, not "
	       "believed", (int)cr->pid, (unsigned int)cr->uid);
	return false;
}

/* The inode of a line of /proc/PID/net/udp{,6} of a socket of uid whose
 * local address is the GID's (or, for a GID not on loopback, the wildcard
 * of a port bound to an interface); 0 when it is not. Other users'
 * sockets on that address are passed over: they cannot crowd out ours. */
static unsigned long udp_line_inode(const char *line, bool v6, uid_t uid,
				    const union ibv_gid *g)
{
	uint32_t want[4], have[4] = { 0 }, zero[4] = { 0 };
	unsigned long ino, owner;
	char addr[40];
	bool loop;
	int i;

	if (sscanf(line, " %*u: %39[0-9A-Fa-f]:%*x %*s %*x %*s %*s %*s %lu "
			 "%*u %lu", addr, &owner, &ino) != 3 ||
	    owner != uid)
		return 0;
	memcpy(want, g->raw, sizeof(want));
	if (v6) {
		if (strlen(addr) != 32)
			return 0;
		for (i = 3; i >= 0; i--) {
			have[i] = (uint32_t)strtoul(addr + 8 * i, NULL, 16);
			addr[8 * i] = '\0';
		}
	} else {
		/* A v4 socket holds only the v4-mapped GID's address. */
		if (want[0] || want[1] || g->raw[10] != 0xff ||
		    g->raw[11] != 0xff)
			return 0;
		have[3] = (uint32_t)strtoul(addr, NULL, 16);
		memcpy(zero, want, 12);
		memcpy(have, want, 12);
	}
	if (!memcmp(have, want, sizeof(want)))
		return ino;
	loop = g->raw[10] == 0xff && g->raw[11] == 0xff ? g->raw[12] == 127 :
	       !memcmp(g->raw, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16);
	return !loop && !memcmp(have, zero, sizeof(zero)) ? ino : 0;
}

/* Whether pid has the socket of inode ino among its descriptors. */
static bool pid_has_socket(pid_t pid, const unsigned long *ino, int n)
{
	char p[64], l[64];
	unsigned long i;
	struct dirent *de;
	bool found = false;
	ssize_t k;
	DIR *d;
	int j;

	snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
	d = opendir(p);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		snprintf(p, sizeof(p), "/proc/%d/fd/%.20s", (int)pid,
			 de->d_name);
		k = readlink(p, l, sizeof(l) - 1);
		if (k <= 0)
			continue;
		l[k] = '\0';
		if (sscanf(l, "socket:[%lu]", &i) != 1)
			continue;
		for (j = 0; j < n; j++)
			found |= i == ino[j];
	}
	closedir(d);
	return found;
}

bool cm_peer_holds_gid(const struct ucred *cr, const union ibv_gid *g)
{
	pid_t pid = cr->pid;
	static const char *const tables[] = { "udp", "udp6" };
	unsigned long ino[16], i;
	char p[64], line[256];
	int t, n = 0;
	FILE *f;

	if (pid <= 0)
		return false;	/* in a pid namespace we cannot see */
	for (t = 0; t < 2; t++) {
		snprintf(p, sizeof(p), "/proc/%d/net/%s", (int)pid,
			 tables[t]);
		f = fopen(p, "re");
		if (!f)
			continue;
		while (n < 16 && fgets(line, sizeof(line), f))
			if ((i = udp_line_inode(line, t, cr->uid, g)))
				ino[n++] = i;
		fclose(f);
	}
	if (n && pid_has_socket(pid, ino, n))
		return true;
	cm_log("pid %d holds no UDP socket of the GID it stands for: not "
	       "believed", (int)pid);
	return false;
}
