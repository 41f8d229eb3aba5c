/* cm/liveness.c: how a peer process on the same machine learns that we
 * died. A kernel closes a dead process's rdma_cm ids and sends their
 * DREQs; nothing of ours runs after SIGKILL, so each process listens on an
 * abstract unix socket per GID of its ports, and a process with an
 * established connection to one of those GIDs opens a link to it. End of
 * file on a link we opened, once its listener answered, is the peer's
 * death: every connection to it gets what a DREQ would have brought
 * (ibcm_peer_gone). Links others opened to us are held, never believed:
 * they only let their opener see our death. Peers on other hosts are not
 * covered: there, as with a real NIC whose host loses power, only the
 * QPs' retry errors tell. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cm/cm.h"
#include "cm/core.h"

enum link_state {
	LINK_HELD,		/* opened by a peer: never a death */
	LINK_ASKED,		/* ours, its listener has not answered */
	LINK_UP,		/* ours, answered: its end is a death */
};

/* As many as there are peer processes: a table that grows. */
static struct link {
	int fd;
	enum link_state state;
	union ibv_gid peer;		/* ours: the GID dialled */
} *links;

static unsigned int nlinks, cap;

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

static void link_drop(unsigned int i)
{
	cm_unwatch(links[i].fd);
	close(links[i].fd);
	links[i] = links[--nlinks];
}

static void link_input(int fd, void *arg)
{
	union ibv_gid g;
	unsigned int i;
	ssize_t n;

	(void)arg;
	for (i = 0; i < nlinks && links[i].fd != fd; i++)
		;
	if (i == nlinks)
		return;
	n = read(fd, &g, sizeof(g));
	if (n < 0 && errno == EAGAIN)
		return;
	if (links[i].state == LINK_ASKED && n == (ssize_t)sizeof(g) &&
	    !memcmp(&g, &links[i].peer, sizeof(g))) {
		links[i].state = LINK_UP;
		return;
	}
	if (n > 0 && links[i].state != LINK_ASKED)
		return;		/* nothing more is said on a link */
	g = links[i].peer;
	/* Reset before the answer: the listener we checked died with our
	 * link still in its queue. A plain end of file is a refusal. */
	if (links[i].state == LINK_UP ||
	    (links[i].state == LINK_ASKED && n < 0 && errno == ECONNRESET)) {
		link_drop(i);
		cm_log("the process behind a peer GID is gone");
		ibcm_peer_gone(&g);
	} else {
		if (links[i].state == LINK_ASKED)
			cm_log("liveness link refused or not answered: no "
			       "death is read from it");
		link_drop(i);
	}
}

/* Keep fd as a link; closes it when there is no room (before any answer
 * went on it, so that its other end reads no death). */
static bool link_add(int fd, enum link_state state, const union ibv_gid *peer)
{
	struct link *l;
	unsigned int n;

	if (nlinks == cap) {
		n = cap ? 2 * cap : 32;
		l = realloc(links, n * sizeof(*l));
		if (!l)
			goto fail;
		links = l;
		cap = n;
	}
	if (cm_watch(fd, link_input, NULL))
		goto fail;
	l = &links[nlinks++];
	l->fd = fd;
	l->state = state;
	if (peer)
		l->peer = *peer;
	return true;
fail:
	close(fd);
	cm_log("no room for a liveness link");
	return false;
}

/* A peer links to us: only our user (or root) may, and it hears our GID
 * back, once the link is kept, so that it knows it is accepted. */
static void live_accept(int fd, void *arg)
{
	const union ibv_gid *gid = arg;
	struct ucred cr;
	int s = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (s < 0)
		return;
	if (!cm_peer_trusted(s, &cr)) {
		close(s);
		return;
	}
	if (link_add(s, LINK_HELD, NULL) &&
	    write(s, gid, sizeof(*gid)) != (ssize_t)sizeof(*gid))
		link_drop(nlinks - 1);
}

void cm_live_watch(const union ibv_gid *dgid, const union ibv_gid *sgid)
{
	struct sockaddr_un un;
	struct ucred cr;
	unsigned int i;
	socklen_t len;
	int fd;

	(void)sgid;
	for (i = 0; i < nlinks; i++)
		if (links[i].state != LINK_HELD &&
		    !memcmp(&links[i].peer, dgid, sizeof(*dgid)))
			return;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	len = live_name(&un, dgid);
	/* Not on this machine, or not one of ours; and the name is
	 * anyone's to bind: believe only the holder of the GID. */
	if (connect(fd, (struct sockaddr *)&un, len) ||
	    !cm_peer_trusted(fd, &cr) || !cm_peer_holds_gid(&cr, dgid)) {
		close(fd);
		return;
	}
	link_add(fd, LINK_ASKED, dgid);
}

/* Under the lock, on the first start of the CM thread. */
int cm_live_listen(void)
{
	struct sockaddr_un un;
	union ibv_gid g, *arg;
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
				/* Lives as long as the process. */
				arg = malloc(sizeof(*arg));
				len = live_name(&un, &g);
				if (!arg ||
				    bind(fd, (struct sockaddr *)&un, len) ||
				    listen(fd, SOMAXCONN)) {
					free(arg);
					close(fd);
					continue;
				}
				*arg = g;
				if (cm_watch(fd, live_accept, arg)) {
					free(arg);
					close(fd);
					continue;
				}
				made++;
			}
	return made ? 0 : -1;
}
