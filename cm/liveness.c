/* cm/liveness.c: how a peer process on the same machine learns that we
 * died. A kernel closes a dead process's rdma_cm ids and sends their
 * DREQs; nothing of ours runs after SIGKILL, so each process listens on an
 * abstract unix socket per GID of its ports, and a process with an
 * established connection to one of those GIDs holds a link to it. The
 * link's end reading EOF is the peer's death: every connection to it gets
 * what a DREQ would have brought (ibcm_peer_gone). Peers on other hosts
 * are not covered: there, as with a real NIC whose host loses power, only
 * the QPs' retry errors tell. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cm/cm.h"
#include "cm/core.h"

#define LIVE_MAX 32

static struct link {
	int fd;
	bool named;			/* peer's GID known */
	union ibv_gid peer;
} links[LIVE_MAX];

static int nlinks;

static socklen_t live_name(struct sockaddr_un *un, const union ibv_gid *g)
{
	int i, n;

	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	n = snprintf(un->sun_path + 1, sizeof(un->sun_path) - 1,
		     "emuverbs-cm-live/");
	for (i = 0; i < 16; i++)
		n += snprintf(un->sun_path + 1 + n,
			      sizeof(un->sun_path) - 1 - (size_t)n, "%02x",
			      g->raw[i]);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)n);
}

static void link_drop(struct link *l)
{
	cm_unwatch(l->fd);
	close(l->fd);
	*l = links[--nlinks];
	links[nlinks].fd = -1;
}

static void link_input(int fd, void *arg)
{
	union ibv_gid g;
	struct link *l = NULL;
	ssize_t n;
	int i;

	(void)arg;
	for (i = 0; i < nlinks; i++)
		if (links[i].fd == fd)
			l = &links[i];
	if (!l)
		return;
	n = read(fd, &g, sizeof(g));
	if (n == (ssize_t)sizeof(g) && !l->named) {
		l->peer = g;
		l->named = true;
		return;
	}
	if (n > 0 || (n < 0 && errno == EAGAIN))
		return;
	g = l->peer;
	i = l->named;
	link_drop(l);
	if (i) {
		cm_log("the process behind a peer GID is gone");
		ibcm_peer_gone(&g);
	}
}

static int link_add(int fd, const union ibv_gid *peer)
{
	struct link *l;

	if (nlinks == LIVE_MAX || cm_watch(fd, link_input, NULL)) {
		close(fd);
		return ENOBUFS;
	}
	l = &links[nlinks++];
	l->fd = fd;
	l->named = peer != NULL;
	if (peer)
		l->peer = *peer;
	return 0;
}

static void live_accept(int fd, void *arg)
{
	int s = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	(void)arg;
	if (s >= 0)
		link_add(s, NULL);
}

void cm_live_watch(const union ibv_gid *dgid, const union ibv_gid *sgid)
{
	struct sockaddr_un un;
	socklen_t len;
	int i, fd;

	for (i = 0; i < nlinks; i++)
		if (links[i].named &&
		    !memcmp(&links[i].peer, dgid, sizeof(*dgid)))
			return;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	len = live_name(&un, dgid);
	if (connect(fd, (struct sockaddr *)&un, len) ||
	    write(fd, sgid, sizeof(*sgid)) != (ssize_t)sizeof(*sgid)) {
		close(fd); /* not on this machine, or not one of ours */
		return;
	}
	link_add(fd, dgid);
}

/* Under the lock, on the first start of the CM thread. */
int cm_live_listen(void)
{
	struct sockaddr_un un;
	union ibv_gid g;
	socklen_t len;
	int d, p, i, fd, made = 0;

	for (d = 0; d < cm_ndevs; d++)
		for (p = 0; p < cm_devs[d].nports; p++)
			for (i = 0; !cm_gid_next(&cm_devs[d].ports[p], &i, &g);
			     i++) {
				fd = socket(AF_UNIX, SOCK_SEQPACKET |
						     SOCK_CLOEXEC |
						     SOCK_NONBLOCK, 0);
				if (fd < 0)
					return -1;
				len = live_name(&un, &g);
				if (bind(fd, (struct sockaddr *)&un, len) ||
				    listen(fd, 64) ||
				    cm_watch(fd, live_accept, NULL)) {
					close(fd);
					continue;
				}
				made++;
			}
	return made ? 0 : -1;
}
