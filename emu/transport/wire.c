/* The shared-memory wire's control side: each port listens on a unix
 * socket named after its address in the owner-only runtime directory; a
 * port about to send to an address asks there whether that address is a
 * port of this host, and if one answers (same user, checked by the
 * kernel's SO_PEERCRED) hands it a sealed memfd holding both rings and its
 * eventfd. The connection stays open: its end is the peer's end. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "emu/base/engine.h"
#include "emu/base/log.h"
#include "emu/base/rundir.h"
#include "emu/device/device.h"
#include "emu/transport/transport.h"
#include "emu/transport/wire.h"
#include "net/endpoint.h"

/* The seals an area must carry before we map it: its size can never
 * change under us (a shrink would turn our reads into SIGBUS). */
#define WIRE_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

struct wire_conn {
	struct wire_conn *next;
	struct emu_tport *tp;
	int fd;
	struct emu_watch *watch;
	struct emu_shm_chan *chan;	/* the entry it serves, once known */
	struct emu_shm_area *area;	/* mapped, once there is one */
	bool up;			/* the channel runs over it */
	pid_t pid;			/* the peer, as the kernel said */
	/* The peer process's pidfd, readable once it has exited: a child
	 * it forked may hold the connection open after it has gone. */
	int pidfd;
	struct emu_watch *pid_watch;
};

static const char *port_name(struct emu_tport *tp, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%u", tp->port->dev->ibdev.name, tp->port->num);
	return buf;
}

#define WLOG(tp, fmt, ...)                                                \
	do {                                                              \
		char pn_[80];                                             \
		emu_log(EMU_LOG_XPORT, "%s: wire: " fmt,                  \
			port_name(tp, pn_, sizeof(pn_)), __VA_ARGS__);    \
	} while (0)

static uint64_t netns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (uint64_t)st.st_ino;
}

/* dir/wire-NETNS-ADDRESS-PORT: the namespace in the name, for the same
 * address in another namespace is another host. */
static int wire_path(char *buf, size_t len, uint64_t netns,
		     const struct in6_addr *addr, uint16_t port)
{
	char a[INET6_ADDRSTRLEN];

	emu_addr_str(addr, a, sizeof(a));
	return emu_rundir_file(buf, len, "wire-%llu-%s-%u",
			       (unsigned long long)netns, a, port);
}

/* The kernel's word on who is at the other end: this user, or nobody.
 * Its pid into *pid (0 when the kernel gives none). */
static bool peer_is_us(struct emu_tport *tp, int fd, pid_t *pid)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) ||
	    l != sizeof(cr)) {
		WLOG(tp, "no peer credentials: %s", strerror(errno));
		return false;
	}
	if (cr.uid != geteuid()) {
		WLOG(tp, "refused pid %d: uid %u is not ours", (int)cr.pid,
		     (unsigned int)cr.uid);
		return false;
	}
	*pid = cr.pid;
	return true;
}

static void conn_free(struct emu_tport *tp, struct wire_conn *k)
{
	struct emu_wire_port *w = &tp->wire;
	struct wire_conn **pp;

	for (pp = &w->conns; *pp; pp = &(*pp)->next)
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	if (k->up && k->chan) {
		emu_shm_down(&w->shm, k->chan);
		k->chan->ctl = NULL;
	} else if (k->chan && k->chan->ctl == k) {
		/* Asked and never answered: as not here. */
		emu_shm_down(&w->shm, k->chan);
		k->chan->ctl = NULL;
	}
	if (k->watch)
		emu_engine_unwatch(tp->port->dev->engine, k->watch);
	if (k->pid_watch)
		emu_engine_unwatch(tp->port->dev->engine, k->pid_watch);
	if (k->pidfd >= 0)
		close(k->pidfd);
	if (k->area)
		munmap(k->area, EMU_SHM_AREA_SIZE);
	close(k->fd);
	free(k);
}

static struct wire_conn *conn_new(struct emu_tport *tp, int fd,
				  void (*cb)(void *))
{
	struct wire_conn *k = calloc(1, sizeof(*k));

	if (!k) {
		close(fd);
		return NULL;
	}
	k->tp = tp;
	k->fd = fd;
	k->pidfd = -1;
	k->watch = emu_engine_watch_fd(tp->port->dev->engine, fd, cb, k);
	if (!k->watch) {
		close(fd);
		free(k);
		return NULL;
	}
	k->next = tp->wire.conns;
	tp->wire.conns = k;
	return k;
}

static void msg_fill(struct emu_tport *tp, struct emu_shm_msg *m,
		     uint16_t type)
{
	memset(m, 0, sizeof(*m));
	m->magic = EMU_SHM_MAGIC;
	m->version = EMU_SHM_VERSION;
	m->type = type;
	m->area_size = EMU_SHM_AREA_SIZE;
	m->netns = tp->wire.netns;
	m->addr = tp->port->ep.addr;
	m->port = tp->port->ep.port;
}

/* One message with up to two descriptors. */
static int send_msg(int fd, const struct emu_shm_msg *m, const int *fds,
		    unsigned int nfds)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	if (nfds) {
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	       (ssize_t)sizeof(*m) ? 0 : -1;
}

/*
 * One message and exactly want descriptors into fds (the rest closed):
 * 1 done, 0 nothing yet, -1 the connection ended or sent nonsense.
 */
static int recv_msg(struct emu_tport *tp, int fd, struct emu_shm_msg *m,
		    uint16_t type, int *fds, unsigned int want)
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct emu_shm_msg raw[2];
	struct iovec iov = { raw, sizeof(raw) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	unsigned int got = 0, i;
	const char *why = NULL;
	ssize_t n;

	n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		unsigned int k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (unsigned int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (i = 0; i < k; i++) {
			int d;

			memcpy(&d, CMSG_DATA(c) + i * sizeof(int), sizeof(d));
			if (got < want)
				fds[got++] = d;
			else
				close(d);
		}
	}
	if (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC))
		why = "message cut short";
	else if (got != want)
		why = "descriptors missing";
	else if (emu_shm_msg_check(raw, (size_t)n, type, &why) == 0)
		memcpy(m, raw, sizeof(*m));
	if (why) {
		WLOG(tp, "refused a message: %s", why);
		for (i = 0; i < got; i++)
			close(fds[i]);
		return -1;
	}
	return 1;
}

/* Map an area a peer handed over, after checking what it is. */
static struct emu_shm_area *map_area(struct emu_tport *tp, int memfd)
{
	struct emu_shm_area *a;
	const char *why = NULL;
	struct stat st;
	int seals;

	seals = fcntl(memfd, F_GET_SEALS);
	if (fstat(memfd, &st) || !S_ISREG(st.st_mode))
		why = "not a memory file";
	else if (st.st_size != (off_t)EMU_SHM_AREA_SIZE)
		why = "area of the wrong size";
	else if (seals < 0 || (seals & WIRE_SEALS) != WIRE_SEALS)
		why = "area not sealed against resizing";
	if (why) {
		WLOG(tp, "refused an area: %s", why);
		return NULL;
	}
	a = mmap(NULL, EMU_SHM_AREA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 memfd, 0);
	if (a == MAP_FAILED) {
		WLOG(tp, "cannot map an area: %s", strerror(errno));
		return NULL;
	}
	if (emu_shm_area_check(a, &why)) {
		WLOG(tp, "refused an area: %s", why);
		munmap(a, EMU_SHM_AREA_SIZE);
		return NULL;
	}
	return a;
}

/* Make an area: a memfd of the rings' size, sealed, mapped, its header
 * written. The memfd into *fd. */
static struct emu_shm_area *make_area(struct emu_tport *tp, int *fd)
{
	struct emu_shm_area *a;
	int m = memfd_create("emuverbs-wire", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (m < 0) {
		WLOG(tp, "memfd_create: %s", strerror(errno));
		return NULL;
	}
	if (ftruncate(m, (off_t)EMU_SHM_AREA_SIZE) ||
	    fcntl(m, F_ADD_SEALS, WIRE_SEALS)) {
		WLOG(tp, "cannot size or seal an area: %s", strerror(errno));
		close(m);
		return NULL;
	}
	a = mmap(NULL, EMU_SHM_AREA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 m, 0);
	if (a == MAP_FAILED) {
		WLOG(tp, "cannot map an area: %s", strerror(errno));
		close(m);
		return NULL;
	}
	emu_shm_area_init(a);
	*fd = m;
	return a;
}

static int addr_cmp(const struct in6_addr *a, uint16_t ap,
		    const struct in6_addr *b, uint16_t bp)
{
	int c = memcmp(a, b, sizeof(*a));

	return c ? c : (int)ap - (int)bp;
}

/* The peer has gone (its connection ended, or its process): what it
 * sent before is read, as datagrams already in a socket would be, and
 * the channel ends. */
static void gone(struct wire_conn *k)
{
	struct emu_tport *tp = k->tp;
	char a[INET6_ADDRSTRLEN];
	unsigned int round;

	for (round = 0; round < EMU_SHM_SLOTS / EMU_UDP_BATCH; round++)
		if (!emu_rx_batch(tp, false))
			break;
	WLOG(tp, "peer %s:%u gone", emu_addr_str(&k->chan->peer, a, sizeof(a)),
	     k->chan->peer_port);
	conn_free(tp, k);
}

static void on_pid_exit(void *arg)
{
	gone(arg);
}

/* Watch the peer process itself, where the kernel allows (pidfd_open,
 * Linux 5.3): a child it forked may hold the connection open after it
 * has gone, and then only this tells. */
static void watch_pid(struct wire_conn *k)
{
	if (k->pid <= 0)
		return;
	k->pidfd = (int)syscall(SYS_pidfd_open, k->pid, 0);
	if (k->pidfd < 0)
		return;
	k->pid_watch = emu_engine_watch_fd(k->tp->port->dev->engine, k->pidfd,
					   on_pid_exit, k);
}

/* A connection's socket: the answer to our hello, or its end. */
static void on_made(void *arg)
{
	struct wire_conn *k = arg;
	struct emu_tport *tp = k->tp;
	struct emu_shm_msg m;
	char a[INET6_ADDRSTRLEN];
	int fd = -1, rc;

	if (k->up) {
		/* Nothing more is said on an open channel: its end. */
		char b;

		if (recv(k->fd, &b, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN)
			return;
		gone(k);
		return;
	}
	rc = recv_msg(tp, k->fd, &m, EMU_SHM_ANSWER, &fd, 1);
	if (rc == 0)
		return;
	if (rc < 0 || !k->chan || k->chan->ctl != k ||
	    m.port != k->chan->peer_port ||
	    memcmp(&m.addr, &k->chan->peer, sizeof(m.addr))) {
		if (rc > 0)
			close(fd);
		conn_free(tp, k);
		return;
	}
	/* Datagrams to this peer still queued leave before its first
	 * frame: the receiver orders the two by emptying its socket first
	 * (net/shm.h, ordered). */
	if (emu_udp_tx_pending(&tp->udp))
		emu_udp_flush(&tp->udp);
	emu_shm_up(&tp->wire.shm, k->chan, k->area, true, fd);
	k->up = true;
	watch_pid(k);
	WLOG(tp, "peer %s:%u on shared memory",
	     emu_addr_str(&k->chan->peer, a, sizeof(a)), k->chan->peer_port);
	/* The peer may have sent before our flag said we sleep: nobody
	 * woke us for those frames. */
	emu_rx_port(tp);
}

/* A hello on an accepted connection: check it, map the area, answer. */
static void on_accepted(void *arg)
{
	struct wire_conn *k = arg;
	struct emu_tport *tp = k->tp;
	struct emu_wire_port *w = &tp->wire;
	struct emu_shm_chan *c;
	struct emu_shm_msg m, ans;
	char a[INET6_ADDRSTRLEN];
	int fds[2] = { -1, -1 }, rc;

	if (k->up) {
		on_made(arg);
		return;
	}
	rc = recv_msg(tp, k->fd, &m, EMU_SHM_HELLO, fds, 2);
	if (rc == 0)
		return;
	if (rc < 0) {
		conn_free(tp, k);
		return;
	}
	if (m.netns != w->netns) {
		WLOG(tp, "refused %s:%u: another network namespace",
		     emu_addr_str(&m.addr, a, sizeof(a)), m.port);
		goto refuse;
	}
	c = emu_shm_slot(&w->shm, &m.addr, m.port);
	if (!c) {
		WLOG(tp, "refused %s:%u: %u peers already",
		     emu_addr_str(&m.addr, a, sizeof(a)), m.port,
		     EMU_SHM_PEERS);
		goto refuse;
	}
	if (c->state == EMU_SHM_UP && c->ctl) {
		/* A hello the peer sent before it took ours (both asked at
		 * once), or from a process that has the address now while
		 * the old one's end is still on its way: a channel that
		 * works is kept, and the second asks again later. */
		goto refuse;
	}
	if (c->state == EMU_SHM_ASKED && c->ctl &&
	    addr_cmp(&tp->port->ep.addr, tp->port->ep.port, &m.addr,
		     m.port) < 0) {
		/* Both asked at once: the lower address's hello wins, and
		 * that is ours; the peer will take it. */
		goto refuse;
	}
	if (c->ctl)
		conn_free(tp, c->ctl);	/* our hello lost */
	k->area = map_area(tp, fds[0]);
	close(fds[0]);
	fds[0] = -1;
	if (!k->area)
		goto refuse;
	msg_fill(tp, &ans, EMU_SHM_ANSWER);
	if (send_msg(k->fd, &ans, &w->wake_fd, 1)) {
		WLOG(tp, "cannot answer %s:%u: %s",
		     emu_addr_str(&m.addr, a, sizeof(a)), m.port,
		     strerror(errno));
		goto refuse;
	}
	k->chan = c;
	c->ctl = k;
	if (emu_udp_tx_pending(&tp->udp))
		emu_udp_flush(&tp->udp);
	emu_shm_up(&w->shm, c, k->area, false, fds[1]);
	k->up = true;
	watch_pid(k);
	WLOG(tp, "peer %s:%u on shared memory",
	     emu_addr_str(&m.addr, a, sizeof(a)), m.port);
	emu_rx_port(tp);
	return;
refuse:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	conn_free(tp, k);
}

static void on_listen(void *arg)
{
	struct emu_tport *tp = arg;
	int fd;

	while ((fd = accept4(tp->wire.listen_fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct wire_conn *k;
		pid_t pid;

		if (!peer_is_us(tp, fd, &pid)) {
			close(fd);
			continue;
		}
		k = conn_new(tp, fd, on_accepted);
		if (k)
			k->pid = pid;
	}
}

/* Ask one peer: connect, check who listens, hand it an area. */
static void ask(struct emu_tport *tp, struct emu_shm_chan *c)
{
	struct emu_wire_port *w = &tp->wire;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct emu_shm_area *area;
	struct emu_shm_msg m;
	struct wire_conn *k;
	char a[INET6_ADDRSTRLEN];
	int fd, fds[2];
	pid_t pid;

	if (!addr_cmp(&c->peer, c->peer_port, &tp->port->ep.addr,
		      tp->port->ep.port)) {
		/* Our own address: QPs of this port talking to each other
		 * stay on the socket, which is already one hop. */
		emu_shm_down(&w->shm, c);
		c->retry_ns = UINT64_MAX;
		return;
	}
	if (wire_path(sa.sun_path, sizeof(sa.sun_path), w->netns, &c->peer,
		      c->peer_port))
		goto none;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto none;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		/* Not a port of this host (no such socket), or one that
		 * has gone (refused): UDP. */
		if (tp->port->cfg.wire == EMU_WIRE_SHM || errno != ENOENT)
			WLOG(tp, "%s:%u over UDP: %s",
			     emu_addr_str(&c->peer, a, sizeof(a)),
			     c->peer_port, strerror(errno));
		close(fd);
		goto none;
	}
	if (!peer_is_us(tp, fd, &pid)) {
		close(fd);
		goto none;
	}
	area = make_area(tp, &fds[0]);
	if (!area) {
		close(fd);
		goto none;
	}
	fds[1] = w->wake_fd;
	msg_fill(tp, &m, EMU_SHM_HELLO);
	if (send_msg(fd, &m, fds, 2)) {
		WLOG(tp, "cannot send a hello: %s", strerror(errno));
		close(fds[0]);
		munmap(area, EMU_SHM_AREA_SIZE);
		close(fd);
		goto none;
	}
	close(fds[0]);
	k = conn_new(tp, fd, on_made);
	if (!k) {
		munmap(area, EMU_SHM_AREA_SIZE);
		goto none;
	}
	k->area = area;
	k->pid = pid;
	k->chan = c;
	c->ctl = k;
	c->state = EMU_SHM_ASKED;
	return;
none:
	emu_shm_down(&w->shm, c);
}

/* The doorbell the send path rings: ask every entry that waits. */
static void on_ask(void *arg)
{
	struct emu_tport *tp = arg;
	unsigned int i;

	for (i = 0; i < EMU_SHM_PEERS; i++)
		if (tp->wire.shm.chan[i].state == EMU_SHM_ASK)
			ask(tp, &tp->wire.shm.chan[i]);
}

static void ring_ask(void *arg)
{
	emu_doorbell_ring(arg);
}

static void do_listen(void *arg)
{
	struct emu_tport *tp = arg;
	struct emu_wire_port *w = &tp->wire;

	w->listen_watch = emu_engine_watch_fd(tp->port->dev->engine,
					      w->listen_fd, on_listen, tp);
}

void emu_wire_open(struct emu_tport *tp)
{
	struct emu_wire_port *w = &tp->wire;
	struct emu_port *port = tp->port;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	memset(w, 0, sizeof(*w));
	w->listen_fd = w->wake_fd = -1;
	/* A port on a netdev is a host on a real network; its peers are
	 * not this machine's processes. */
	if (port->cfg.wire == EMU_WIRE_UDP || port->ep.netdev[0] ||
	    tp->udp.any)
		return;
	w->netns = netns_ino();
	if (wire_path(w->path, sizeof(w->path), w->netns, &port->ep.addr,
		      port->ep.port) ||
	    strlen(w->path) >= sizeof(sa.sun_path)) {
		emu_log(EMU_LOG_XPORT, "%s/%u: wire: no runtime directory: "
			"UDP only", port->dev->ibdev.name, port->num);
		w->path[0] = '\0';
		return;
	}
	if (emu_shm_init(&w->shm))
		return;
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (w->wake_fd < 0 || fd < 0)
		goto fail;
	strcpy(sa.sun_path, w->path);
	/* We hold the endpoint's address and port in this namespace, so a
	 * socket file of that name is a dead process's. */
	unlink(w->path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64)) {
		emu_log(EMU_LOG_XPORT, "%s/%u: wire: cannot listen at %s: %s",
			port->dev->ibdev.name, port->num, w->path,
			strerror(errno));
		goto fail;
	}
	w->listen_fd = fd;
	fd = -1;
	w->ask = emu_engine_doorbell(port->dev->engine, on_ask, tp);
	if (!w->ask)
		goto fail;
	w->shm.ask = ring_ask;
	w->shm.ask_arg = w->ask;
	emu_engine_call(port->dev->engine, do_listen, tp);
	if (!w->listen_watch)
		goto fail;
	w->on = true;
	tp->udp.shm = &w->shm;
	return;
fail:
	if (fd >= 0)
		close(fd);
	emu_wire_close(tp);
}

static void do_close(void *arg)
{
	struct emu_tport *tp = arg;
	struct emu_wire_port *w = &tp->wire;
	char a[INET6_ADDRSTRLEN];
	unsigned int i;

	/* What each peer's rings carried (EMUVERBS_DEBUG=xport). */
	for (i = 0; i < EMU_SHM_PEERS && emu_log_on(EMU_LOG_XPORT); i++) {
		const struct emu_shm_chan *c = &w->shm.chan[i];

		if (c->state == EMU_SHM_FREE || !(c->tx_frames | c->rx_frames))
			continue;
		WLOG(tp, "peer %s:%u: %llu frames out, %llu in, %llu ring "
		     "full, %llu bad%s", emu_addr_str(&c->peer, a, sizeof(a)),
		     c->peer_port, (unsigned long long)c->tx_frames,
		     (unsigned long long)c->rx_frames,
		     (unsigned long long)c->tx_full,
		     (unsigned long long)c->rx_bad,
		     c->state == EMU_SHM_UP && !c->ordered ?
		     ", never ordered" : "");
	}
	if (w->on)
		WLOG(tp, "%llu wake-ups sent", (unsigned long long)w->shm.wakes);

	tp->udp.shm = NULL;
	while (w->conns)
		conn_free(tp, w->conns);
	if (w->listen_watch)
		emu_engine_unwatch(tp->port->dev->engine, w->listen_watch);
	w->listen_watch = NULL;
}

void emu_wire_close(struct emu_tport *tp)
{
	struct emu_wire_port *w = &tp->wire;

	if (tp->port && tp->port->dev->engine)
		emu_engine_call(tp->port->dev->engine, do_close, tp);
	if (w->ask)
		emu_doorbell_free(w->ask);
	w->ask = NULL;
	if (w->listen_fd >= 0) {
		close(w->listen_fd);
		unlink(w->path);
	}
	w->listen_fd = -1;
	if (w->wake_fd >= 0)
		close(w->wake_fd);
	w->wake_fd = -1;
	emu_shm_fini(&w->shm);
	w->on = false;
}

const char *emu_wire_name(struct emu_tport *tp, const void *addr16,
			  uint16_t port)
{
	struct in6_addr a;
	struct emu_shm_chan *c;

	if (!tp->wire.on)
		return "udp";
	memcpy(&a, addr16, sizeof(a));
	c = emu_shm_find(&tp->wire.shm, &a, port);
	return c && c->state == EMU_SHM_UP ? "shm" : "udp";
}

unsigned int emu_wire_peers(struct emu_tport *tp, struct emu_wire_peer *out,
			    unsigned int max)
{
	unsigned int i, n = 0;

	if (!tp->wire.on)
		return 0;
	for (i = 0; i < EMU_SHM_PEERS && n < max; i++) {
		const struct emu_shm_chan *c = &tp->wire.shm.chan[i];

		if (c->state == EMU_SHM_FREE)
			continue;
		out[n] = (struct emu_wire_peer){
			.addr = c->peer, .port = c->peer_port,
			.shm = c->state == EMU_SHM_UP,
			.tx_frames = c->tx_frames, .rx_frames = c->rx_frames,
			.tx_full = c->tx_full, .rx_bad = c->rx_bad,
		};
		n++;
	}
	return n;
}

const char *emu_wire_config_name(unsigned int wire)
{
	switch (wire) {
	case EMU_WIRE_UDP:
		return "udp";
	case EMU_WIRE_SHM:
		return "shm";
	default:
		return "auto";
	}
}
