/* emu/transport/pulse.c: each port's pulse, published for requesters on the same
 * machine, and a requester's reading of its peer's. A NIC's responder runs
 * in hardware: the host's scheduler cannot keep it from answering. Ours
 * is a thread among the host's others, so a requester that times out asks
 * first whether its peer has had a CPU since the packet reached it
 * (doc/design-notes.md, "Retries the host cannot steal"). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "emu/base/rundir.h"
#include "emu/base/log.h"
#include "emu/transport/pulse.h"
#include "net/endpoint.h"

#define PULSE_MAGIC	0x50554c53u	/* "PULS" */

/* dir/pulse-ADDRESS-PORT: 0, or -1 without a runtime directory. */
static int pulse_path(char *buf, size_t len, const struct in6_addr *addr,
		      uint16_t udp_port)
{
	char a[INET6_ADDRSTRLEN];

	emu_addr_str(addr, a, sizeof(a));
	return emu_rundir_file(buf, len, "pulse-%s-%u", a, udp_port);
}

/* A file of ours: a regular file of this user's, of the page's size when
 * size is set. */
static bool ours(int fd, bool sized)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid() &&
	       (!sized || st.st_size >= (off_t)sizeof(struct emu_pulse_page));
}

void emu_pulse_open(struct emu_pulse *p, const struct in6_addr *addr,
		    uint16_t udp_port)
{
	struct emu_pulse_page *pg;
	void *m;

	p->page = NULL;
	p->fd = -1;
	if (pulse_path(p->path, sizeof(p->path), addr, udp_port))
		return;
	p->fd = open(p->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		     0600);
	if (p->fd < 0 || !ours(p->fd, false)) {
		emu_log(EMU_LOG_XPORT, "%s: no pulse: %s", p->path,
			p->fd < 0 ? strerror(errno) : "not our file");
		goto fail;
	}
	/* Held while we live: a peer that can take it knows we are gone. */
	if (flock(p->fd, LOCK_EX | LOCK_NB)) {
		emu_log(EMU_LOG_XPORT, "%s: no pulse: a live process has it",
			p->path);
		goto fail;
	}
	if (ftruncate(p->fd, sizeof(*pg))) {
		emu_log(EMU_LOG_XPORT, "%s: no pulse: %s", p->path,
			strerror(errno));
		goto fail;
	}
	m = mmap(NULL, sizeof(*pg), PROT_READ | PROT_WRITE, MAP_SHARED, p->fd,
		 0);
	if (m == MAP_FAILED) {
		emu_log(EMU_LOG_XPORT, "%s: no pulse: %s", p->path,
			strerror(errno));
		goto fail;
	}
	pg = m;
	pg->pid = (uint32_t)getpid();
	__atomic_store_n(&pg->busy, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->drained_ns, emu_now_ns(), __ATOMIC_RELAXED);
	__atomic_store_n(&pg->magic, PULSE_MAGIC, __ATOMIC_RELEASE);
	p->page = pg;
	return;
fail:
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

void emu_pulse_close(struct emu_pulse *p)
{
	if (p->page) {
		/* Still under our lock: nobody else has made it theirs. A
		 * child forked with it leaves it to the parent. */
		if (p->page->pid == (uint32_t)getpid())
			unlink(p->path);
		munmap(p->page, sizeof(*p->page));
	}
	if (p->fd >= 0)
		close(p->fd);
	p->page = NULL;
	p->fd = -1;
}

void emu_pulse_receiver(struct emu_pulse *p, bool ring)
{
	if (p->page)
		__atomic_store_n(&p->page->ring_tid,
				 ring ? (uint32_t)gettid() : 0,
				 __ATOMIC_RELEASE);
}

/* ---- the requester's side ---------------------------------------------- */

static void peer_drop(struct emu_pulse_peers *ps, unsigned int i)
{
	munmap((void *)ps->p[i].page, sizeof(*ps->p[i].page));
	close(ps->p[i].fd);
	ps->p[i] = ps->p[--ps->n];
}

static struct emu_pulse_peer *peer_find(struct emu_pulse_peers *ps,
					const struct in6_addr *addr,
					uint16_t udp_port)
{
	struct emu_pulse_peer *pp;
	char path[256];
	unsigned int i, old = 0;
	void *m;
	int fd;

	for (i = 0; i < ps->n; i++)
		if (!memcmp(&ps->p[i].addr, addr, sizeof(*addr))) {
			ps->p[i].used = ++ps->clock;
			return &ps->p[i];
		}
	if (pulse_path(path, sizeof(path), addr, udp_port))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	/* Believe no one else's: another user's file says nothing. */
	if (!ours(fd, true)) {
		close(fd);
		return NULL;
	}
	m = mmap(NULL, sizeof(struct emu_pulse_page), PROT_READ, MAP_SHARED,
		 fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	if (ps->n == EMU_PULSE_PEERS) {
		for (i = 1; i < ps->n; i++)
			if (ps->p[i].used < ps->p[old].used)
				old = i;
		peer_drop(ps, old);
	}
	pp = &ps->p[ps->n++];
	pp->addr = *addr;
	pp->fd = fd;
	pp->page = m;
	pp->used = ++ps->clock;
	return pp;
}

/* The owner's lock is gone, or its process is. */
static bool gone(const struct emu_pulse_peer *pp)
{
	pid_t pid = (pid_t)__atomic_load_n(&pp->page->pid, __ATOMIC_RELAXED);

	if (!flock(pp->fd, LOCK_SH | LOCK_NB)) {
		flock(pp->fd, LOCK_UN);
		return true;
	}
	/* A child forked without exec holds the lock too. */
	return pid > 0 && kill(pid, 0) && errno == ESRCH;
}

/* The page's io_uring receiver is running or waiting to run (state R in
 * /proc), not asleep: it has not caught up. */
static bool thread_behind(const struct emu_pulse_page *pg)
{
	uint32_t tid = __atomic_load_n(&pg->ring_tid, __ATOMIC_ACQUIRE);
	uint32_t pid = __atomic_load_n(&pg->pid, __ATOMIC_RELAXED);
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (!tid)
		return false;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "tid (comm) S ...": the comm may hold anything but a newline. */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'R';
}

enum emu_pulse_verdict emu_pulse_judge(struct emu_pulse_peers *ps,
				       const struct in6_addr *addr,
				       uint16_t udp_port, uint64_t sent_ns)
{
	struct emu_pulse_peer *pp = peer_find(ps, addr, udp_port);
	const struct emu_pulse_page *pg;
	uint64_t d1, d2;
	long rq;

	if (!pp)
		return EMU_PULSE_UNKNOWN;
	pg = pp->page;
	if (__atomic_load_n(&pg->magic, __ATOMIC_ACQUIRE) != PULSE_MAGIC)
		return EMU_PULSE_UNKNOWN;
	if (gone(pp)) {
		peer_drop(ps, (unsigned int)(pp - ps->p));
		return EMU_PULSE_GONE;
	}
	d1 = __atomic_load_n(&pg->drained_ns, __ATOMIC_ACQUIRE);
	if (d1 >= sent_ns)
		return EMU_PULSE_HAD_TIME;
	/* Not through its socket since: packets in its queue, or in its
	 * hands, mean it has not had the CPU to answer. */
	rq = emu_pulse_rqueue(addr, udp_port);
	if (rq > 0 || __atomic_load_n(&pg->busy, __ATOMIC_ACQUIRE))
		return EMU_PULSE_STALLED;
	d2 = __atomic_load_n(&pg->drained_ns, __ATOMIC_ACQUIRE);
	if (d2 != d1)
		return d2 >= sent_ns ? EMU_PULSE_HAD_TIME : EMU_PULSE_STALLED;
	/* With io_uring, what left the socket may wait in the ring for a
	 * receiver that has not had the CPU since. */
	if (thread_behind(pg))
		return EMU_PULSE_STALLED;
	/* Idle, with nothing waiting: the packet never reached it (lost on
	 * the way), and a loss is what a retry is for. */
	return EMU_PULSE_HAD_TIME;
}

void emu_pulse_peers_fini(struct emu_pulse_peers *ps)
{
	while (ps->n)
		peer_drop(ps, ps->n - 1);
}

/* One /proc/net/udp{,6} file: the receive queue of the socket bound to
 * the address as the file writes it (hex, in the kernel's byte order). */
static long rqueue_in(const char *file, const char *want)
{
	char line[512], local[80];
	unsigned long tx, rx;
	long found = -1;
	FILE *f = fopen(file, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %*u: %79s %*s %*x %lx:%lx", local, &tx,
			   &rx) == 3 && !strcasecmp(local, want)) {
			found = (long)rx;
			break;
		}
	fclose(f);
	return found;
}

long emu_pulse_rqueue(const struct in6_addr *addr, uint16_t udp_port)
{
	char want[80];
	long rq = -1;

	if (IN6_IS_ADDR_V4MAPPED(addr)) {
		snprintf(want, sizeof(want), "%08" PRIX32 ":%04X",
			 addr->s6_addr32[3], udp_port);
		rq = rqueue_in("/proc/net/udp", want);
	}
	if (rq < 0) {
		snprintf(want, sizeof(want),
			 "%08" PRIX32 "%08" PRIX32 "%08" PRIX32 "%08" PRIX32
			 ":%04X", addr->s6_addr32[0], addr->s6_addr32[1],
			 addr->s6_addr32[2], addr->s6_addr32[3], udp_port);
		rq = rqueue_in("/proc/net/udp6", want);
	}
	return rq;
}
