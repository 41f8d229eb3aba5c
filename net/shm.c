/* The shared-memory wire's rings and its table of peers: putting frames
 * in, taking them out as datagrams would arrive, and the checks that keep
 * a peer's writes from reaching anything but the copy we make of them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "net/memguard.h"
#include "net/shm.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int emu_shm_msg_check(const void *m, size_t n, uint16_t type,
		      const char **why)
{
	struct emu_shm_msg msg;

	if (n != sizeof(msg)) {
		*why = "message of the wrong size";
		return -EPROTO;
	}
	memcpy(&msg, m, sizeof(msg));
	if (msg.magic != EMU_SHM_MAGIC) {
		*why = "not an emuverbs wire message";
		return -EPROTO;
	}
	if (msg.version != EMU_SHM_VERSION) {
		*why = "another version of the wire";
		return -EPROTO;
	}
	if (msg.type != type) {
		*why = "unexpected message type";
		return -EPROTO;
	}
	if (msg.area_size != EMU_SHM_AREA_SIZE) {
		*why = "rings of another size";
		return -EPROTO;
	}
	if (!msg.port) {
		*why = "no UDP port";
		return -EPROTO;
	}
	return 0;
}

int emu_shm_area_check(const struct emu_shm_area *a, const char **why)
{
	if (a->magic != EMU_SHM_MAGIC || a->version != EMU_SHM_VERSION ||
	    a->slots != EMU_SHM_SLOTS || a->slot_size != EMU_SHM_SLOT) {
		*why = "rings laid out otherwise";
		return -EPROTO;
	}
	return 0;
}

void emu_shm_area_init(struct emu_shm_area *a)
{
	a->magic = EMU_SHM_MAGIC;
	a->version = EMU_SHM_VERSION;
	a->slots = EMU_SHM_SLOTS;
	a->slot_size = EMU_SHM_SLOT;
}

int emu_shm_init(struct emu_shm *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->rx_buf = malloc((size_t)EMU_UDP_BATCH * EMU_UDP_BUF);
	if (!s->rx_buf)
		return -ENOMEM;
	for (i = 0; i < EMU_SHM_PEERS; i++)
		s->chan[i].wake_fd = -1;
	s->waiting = true;
	return 0;
}

void emu_shm_fini(struct emu_shm *s)
{
	free(s->rx_buf);
	s->rx_buf = NULL;
}

static bool same_peer(const struct emu_shm_chan *c,
		      const struct in6_addr *peer, uint16_t port)
{
	return c->peer_port == port && !memcmp(&c->peer, peer, sizeof(*peer));
}

static unsigned int hash_peer(const struct in6_addr *a, uint16_t port)
{
	uint32_t h = a->s6_addr32[0] ^ a->s6_addr32[1] ^ a->s6_addr32[2] ^
		     a->s6_addr32[3] ^ port;

	h *= 0x9e3779b1u;
	return (h >> 16) % EMU_SHM_PEERS;
}

struct emu_shm_chan *emu_shm_find(struct emu_shm *s,
				  const struct in6_addr *peer, uint16_t port)
{
	unsigned int i, at = hash_peer(peer, port);

	/* Entries are never removed, only reused for the same peer, so a
	 * probe stops at the first free one. */
	for (i = 0; i < EMU_SHM_PEERS; i++) {
		struct emu_shm_chan *c = &s->chan[(at + i) % EMU_SHM_PEERS];

		if (c->state == EMU_SHM_FREE)
			return NULL;
		if (same_peer(c, peer, port))
			return c;
	}
	return NULL;
}

struct emu_shm_chan *emu_shm_slot(struct emu_shm *s,
				  const struct in6_addr *peer, uint16_t port)
{
	unsigned int i, at = hash_peer(peer, port);

	for (i = 0; i < EMU_SHM_PEERS; i++) {
		struct emu_shm_chan *c = &s->chan[(at + i) % EMU_SHM_PEERS];

		if (c->state == EMU_SHM_FREE) {
			c->peer = *peer;
			c->peer_port = port;
			return c;
		}
		if (same_peer(c, peer, port))
			return c;
	}
	return NULL;
}

struct emu_shm_chan *emu_shm_route(struct emu_shm *s,
				   const struct in6_addr *dst, uint16_t dport)
{
	struct emu_shm_chan *c = s->last;

	if (c && same_peer(c, dst, dport) && c->state == EMU_SHM_UP)
		return c;
	c = emu_shm_find(s, dst, dport);
	if (!c) {
		c = emu_shm_slot(s, dst, dport);
		if (!c)
			return NULL;	/* table full: UDP */
		c->state = EMU_SHM_ASK;
		if (s->ask)
			s->ask(s->ask_arg);
		return NULL;
	}
	switch (c->state) {
	case EMU_SHM_UP:
		s->last = c;
		return c;
	case EMU_SHM_NONE:
		if (now_ns() >= c->retry_ns) {
			c->state = EMU_SHM_ASK;
			if (s->ask)
				s->ask(s->ask_arg);
		}
		return NULL;
	default:
		return NULL;
	}
}

void emu_shm_up(struct emu_shm *s, struct emu_shm_chan *c,
		struct emu_shm_area *a, bool maker, int wake_fd)
{
	c->area = a;
	c->tx = &a->ring[maker ? 0 : 1];
	c->rx = &a->ring[maker ? 1 : 0];
	/* Fresh rings: the maker zeroed them; both start at 0. */
	/* A new channel counts afresh: an address may pass from one
	 * process to another. */
	c->tx_frames = c->rx_frames = c->tx_full = c->rx_bad = 0;
	c->tx_head = 0;
	c->tx_room = EMU_SHM_SLOTS;
	c->rx_tail = 0;
	c->wake_owed = false;
	c->owner = s;
	c->broken = false;
	c->wake_fd = wake_fd;
	c->ordered = false;
	c->seen = false;
	atomic_store(&c->rx->waiting, s->waiting);
	/* The caller reads the ring next: the flag must be out before the
	 * head is looked at, or a frame published in between wakes nobody. */
	atomic_thread_fence(memory_order_seq_cst);
	c->state = EMU_SHM_UP;
	s->up[s->nup++] = c;
	s->unordered++;
}

void emu_shm_down(struct emu_shm *s, struct emu_shm_chan *c)
{
	if (c->state == EMU_SHM_UP) {
		unsigned int i;

		for (i = 0; i < s->nup; i++)
			if (s->up[i] == c) {
				s->up[i] = s->up[--s->nup];
				break;
			}
		if (!c->ordered)
			s->unordered--;
		if (c->wake_owed)
			s->nowed--;
	}
	if (s->last == c)
		s->last = NULL;
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	c->wake_fd = -1;
	c->area = NULL;
	c->tx = c->rx = NULL;
	c->wake_owed = false;
	c->state = EMU_SHM_NONE;
	c->retry_ns = now_ns() + EMU_SHM_RETRY_NS;
}

int emu_shm_put(struct emu_shm_chan *c, const struct iovec *iov,
		unsigned int niov, uint32_t len, uint16_t sport, uint8_t tos,
		uint8_t flags)
{
	struct emu_shm_frame *f;
	uint8_t *d;
	unsigned int i;

	if (len > EMU_SHM_FRAME_MAX)
		return -EMSGSIZE;
	if (c->tx_head == c->tx_room) {
		/* The tail as the peer has moved it, believed only as far
		 * as it keeps the ring's arithmetic sane. */
		uint32_t tail = atomic_load_explicit(&c->tx->tail,
						     memory_order_acquire);

		if (c->tx_head - tail > EMU_SHM_SLOTS)
			tail = c->tx_head - EMU_SHM_SLOTS;
		c->tx_room = tail + EMU_SHM_SLOTS;
		if (c->tx_head == c->tx_room) {
			c->tx_full++;
			return -ENOBUFS;
		}
	}
	f = (struct emu_shm_frame *)c->tx->slot[c->tx_head % EMU_SHM_SLOTS];
	d = f->data;
	for (i = 0; i < niov; i++) {
		if (!iov[i].iov_len)
			continue;
		if (emu_guard_copy(d, iov[i].iov_base, iov[i].iov_len))
			return -EFAULT;
		d += iov[i].iov_len;
	}
	f->len = len;
	f->sport = sport;
	f->tos = tos;
	f->flags = flags;
	c->tx_head++;
	atomic_store_explicit(&c->tx->head, c->tx_head, memory_order_release);
	c->tx_frames++;
	if (!c->wake_owed) {
		c->wake_owed = true;
		c->owner->nowed++;
	}
	return 0;
}

unsigned int emu_shm_flush(struct emu_shm *s)
{
	unsigned int i, n = 0;

	if (!s || !s->nowed)
		return 0;
	/* Publishing the heads and reading the flags must not pass each
	 * other, nor the consumer's setting its flag and reading the head:
	 * else both sides miss the other. */
	atomic_thread_fence(memory_order_seq_cst);
	for (i = 0; i < s->nup && s->nowed; i++) {
		struct emu_shm_chan *c = s->up[i];
		uint64_t one = 1;

		if (!c->wake_owed)
			continue;
		c->wake_owed = false;
		s->nowed--;
		if (!atomic_load_explicit(&c->tx->waiting,
					  memory_order_relaxed))
			continue;
		if (write(c->wake_fd, &one, sizeof(one)) == sizeof(one))
			n++;
	}
	s->wakes += n;
	return n;
}

bool emu_shm_set_waiting(struct emu_shm *s, bool on)
{
	unsigned int i;
	bool ready = false;

	s->waiting = on;
	for (i = 0; i < s->nup; i++)
		atomic_store_explicit(&s->up[i]->rx->waiting, on,
				      memory_order_relaxed);
	if (!on || !s->nup)
		return false;
	atomic_thread_fence(memory_order_seq_cst);
	for (i = 0; i < s->nup; i++) {
		struct emu_shm_chan *c = s->up[i];

		if (!c->broken &&
		    atomic_load_explicit(&c->rx->head, memory_order_relaxed) !=
		    c->rx_tail)
			ready = true;
	}
	return ready;
}

void emu_shm_order_begin(struct emu_shm *s)
{
	unsigned int i;

	for (i = 0; i < s->nup; i++) {
		struct emu_shm_chan *c = s->up[i];

		if (!c->ordered && !c->seen)
			c->seen = atomic_load_explicit(&c->rx->head,
						       memory_order_acquire) !=
				  c->rx_tail;
	}
}

void emu_shm_order_end(struct emu_shm *s)
{
	unsigned int i;

	for (i = 0; i < s->nup; i++) {
		struct emu_shm_chan *c = s->up[i];

		if (!c->ordered && c->seen) {
			c->ordered = true;
			s->unordered--;
		}
	}
}

/* Up to max frames from one channel into out[] and buf; shared: frames
 * without an ICRC are read in place (emu_shm_recv_shared), and the tail
 * is left for emu_shm_release. */
static unsigned int recv_chan(struct emu_shm_chan *c, struct emu_udp_pkt *out,
			      uint8_t *buf, unsigned int max,
			      const struct in6_addr *local, bool shared)
{
	uint32_t head = atomic_load_explicit(&c->rx->head,
					     memory_order_acquire);
	uint32_t avail = head - c->rx_tail;
	unsigned int n = 0;

	if (!avail)
		return 0;
	if (avail > EMU_SHM_SLOTS) {
		/* A head no producer could have written: nothing in this
		 * ring can be placed any more. */
		c->broken = true;
		c->rx_bad++;
		return 0;
	}
	while (n < max && avail--) {
		const volatile struct emu_shm_frame *f =
			(const void *)c->rx->slot[c->rx_tail % EMU_SHM_SLOTS];
		struct emu_udp_pkt *p = &out[n];
		uint32_t len = f->len;		/* once */
		uint8_t flags = f->flags;	/* once */

		p->data = buf + (size_t)n * EMU_UDP_BUF;
		p->truncated = len > EMU_SHM_FRAME_MAX;
		if (p->truncated) {
			len = EMU_SHM_FRAME_MAX;
			c->rx_bad++;
		}
		p->no_icrc = flags & EMU_SHM_F_NO_ICRC;
		p->shared = NULL;
		if (shared && p->no_icrc && !p->truncated &&
		    len > EMU_SHM_HDR_COPY) {
			p->shared = (const uint8_t *)f->data;
			memcpy(p->data, (const void *)f->data,
			       EMU_SHM_HDR_COPY);
		} else {
			memcpy(p->data, (const void *)f->data, len);
		}
		p->len = len;
		p->src = c->peer;
		p->dst = *local;
		p->sport = f->sport;
		p->tos = f->tos;
		p->ttl = 64;
		c->rx_tail++;
		c->rx_frames++;
		n++;
	}
	/* Copied frames' slots are ours no more once the tail passes them;
	 * frames read in place keep theirs until emu_shm_release. */
	if (!shared)
		atomic_store_explicit(&c->rx->tail, c->rx_tail,
				      memory_order_release);
	return n;
}

static unsigned int recv_all(struct emu_shm *s, struct emu_udp_pkt *out,
			     unsigned int max, const struct in6_addr *local,
			     bool shared)
{
	unsigned int i, n = 0, nup;

	if (!s || !s->nup)
		return 0;
	if (max > EMU_UDP_BATCH)
		max = EMU_UDP_BATCH;
	nup = s->nup;
	/* Start where the last call stopped, so one busy peer cannot keep
	 * the others waiting. */
	if (s->rr >= nup)
		s->rr = 0;
	for (i = 0; i < nup && n < max; i++) {
		struct emu_shm_chan *c = s->up[(s->rr + i) % nup];

		if (c->broken || !c->ordered)
			continue;
		n += recv_chan(c, out + n, s->rx_buf + (size_t)n * EMU_UDP_BUF,
			       max - n, local, shared);
	}
	s->rr++;
	return n;
}

unsigned int emu_shm_recv(struct emu_shm *s, struct emu_udp_pkt *out,
			  unsigned int max, const struct in6_addr *local)
{
	return recv_all(s, out, max, local, false);
}

unsigned int emu_shm_recv_shared(struct emu_shm *s, struct emu_udp_pkt *out,
				 unsigned int max,
				 const struct in6_addr *local)
{
	return recv_all(s, out, max, local, true);
}

void emu_shm_release(struct emu_shm *s)
{
	unsigned int i;

	for (i = 0; s && i < s->nup; i++) {
		struct emu_shm_chan *c = s->up[i];

		if (atomic_load_explicit(&c->rx->tail, memory_order_relaxed) !=
		    c->rx_tail)
			atomic_store_explicit(&c->rx->tail, c->rx_tail,
					      memory_order_release);
	}
}
