/* The shared-memory wire: rings of whole RoCEv2 frames (BTH onward, what a
 * UDP datagram would carry) between two ports of one host, one ring per
 * direction in one sealed memory area, and each port's table of the peers
 * it reaches that way. Finding the peer and the handshake that hands the
 * area over are the transport's (emu/transport/wire.c); what is here knows
 * no file, socket or thread. */
#ifndef NET_SHM_H
#define NET_SHM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "net/udp.h"

#define EMU_SHM_MAGIC	0x77756d65u	/* "emuw" */
#define EMU_SHM_VERSION	1
/* Frames per direction: more than a port's budget (at most 512 packets)
 * and the link's reserve for ACKs, NAKs and READ responses (256) put
 * together, so a peer that keeps reading never finds its sender's ring
 * full: back-pressure is the sender's budget, as on UDP. */
#define EMU_SHM_SLOTS	1024
/* A slot: its frame header and the largest datagram (EMU_UDP_BUF), in
 * whole cache lines. */
#define EMU_SHM_SLOT	4288
/* Peers one port reaches over shared memory at once; more use UDP. */
#define EMU_SHM_PEERS	64
/* A peer that turned out not to be on this host is asked again after
 * this long (ns): a process started later may take its address. */
#define EMU_SHM_RETRY_NS 1000000000ull

struct emu_shm_frame {
	uint32_t len;		/* bytes in data: read once, never trusted */
	uint16_t sport;		/* the UDP source port it stands for */
	uint8_t tos;		/* IPv4 TOS / IPv6 traffic class, ECN bits */
	uint8_t flags;		/* EMU_SHM_F_* */
	uint8_t data[];
};

/* The frame's ICRC was not computed: memory between two processes
 * damages nothing, and the receiver checks it only when a fault rule or
 * a capture needs it, after making it itself. */
#define EMU_SHM_F_NO_ICRC	0x01

/* The longest frame: the longest datagram. */
#define EMU_SHM_FRAME_MAX EMU_UDP_BUF
_Static_assert(sizeof(struct emu_shm_frame) + EMU_SHM_FRAME_MAX <=
	       EMU_SHM_SLOT, "a slot holds the longest frame");

/* One direction. The producer writes head and the slots, the consumer
 * tail and waiting; each on its own cache line. */
struct emu_shm_ring {
	_Alignas(64) _Atomic uint32_t head;	/* frames published */
	_Alignas(64) _Atomic uint32_t tail;	/* frames consumed */
	/* The consumer sleeps: a producer that publishes writes the
	 * consumer's eventfd. */
	_Atomic uint32_t waiting;
	_Alignas(64) uint8_t slot[EMU_SHM_SLOTS][EMU_SHM_SLOT];
};

/* The memory both map: ring[0] carries what the side that made it sends,
 * ring[1] what the other side sends. The header is written once by the
 * maker and checked once by the other side; neither reads it again. */
struct emu_shm_area {
	uint32_t magic;
	uint32_t version;
	uint32_t slots;
	uint32_t slot_size;
	_Alignas(64) struct emu_shm_ring ring[2];
};

#define EMU_SHM_AREA_SIZE sizeof(struct emu_shm_area)

/* The handshake's two messages (over a unix socket, with descriptors):
 * the maker's hello carries the area and its eventfd, the answer the
 * other side's eventfd. Every field is checked by emu_shm_msg_check. */
enum { EMU_SHM_HELLO = 1, EMU_SHM_ANSWER = 2 };

struct emu_shm_msg {
	uint32_t magic;
	uint16_t version;
	uint16_t type;		/* EMU_SHM_HELLO or EMU_SHM_ANSWER */
	uint64_t area_size;	/* EMU_SHM_AREA_SIZE */
	uint64_t netns;		/* the sender's network namespace inode */
	struct in6_addr addr;	/* the sender's port: address ... */
	uint16_t port;		/* ... and UDP port */
	uint16_t pad[3];
};

/* 0 when m (n bytes received) is a well-formed message of the type
 * wanted, else a negative errno (-EPROTO) with why. */
int emu_shm_msg_check(const void *m, size_t n, uint16_t type,
		      const char **why);
/* 0 when a freshly mapped area's header says what ours would. */
int emu_shm_area_check(const struct emu_shm_area *a, const char **why);
/* Write the header of an area just made (zeroed memory). */
void emu_shm_area_init(struct emu_shm_area *a);

enum emu_shm_state {
	EMU_SHM_FREE,		/* unused entry */
	EMU_SHM_ASK,		/* nobody asked yet: the transport will */
	EMU_SHM_ASKED,		/* a hello is out, no answer yet */
	EMU_SHM_UP,		/* frames go through the rings */
	EMU_SHM_NONE,		/* not on this host (until retry_ns) */
};

struct emu_shm_chan {
	enum emu_shm_state state;
	struct in6_addr peer;
	uint16_t peer_port;
	struct emu_shm_area *area;
	struct emu_shm_ring *tx, *rx;
	uint32_t tx_head;	/* our copy of tx->head */
	uint32_t tx_room;	/* the tail as last read, plus the slots */
	uint32_t rx_tail;	/* our copy of rx->tail */
	bool wake_owed;		/* published since the last flush */
	/* Not read until the socket has been emptied once after a frame
	 * was seen in the ring: what the peer sent by UDP before its first
	 * frame (in our socket by then, loopback delivers at once) comes
	 * first, so the switch reorders nothing. */
	bool ordered;
	bool seen;		/* a frame was there before the emptying */
	bool broken;		/* the peer wrote nonsense in its head */
	int wake_fd;		/* the peer's eventfd, or -1 */
	uint64_t retry_ns;	/* EMU_SHM_NONE: ask again after this */
	uint64_t tx_frames, rx_frames, tx_full, rx_bad;
	void *ctl;		/* the transport's (its socket, watches) */
	struct emu_shm *owner;	/* the table it is in, while up */
};

struct emu_shm {
	struct emu_shm_chan chan[EMU_SHM_PEERS];
	unsigned int nup;	/* entries EMU_SHM_UP: up[0 .. nup) */
	/* The channels up, so that a poll with nothing to read looks at
	 * those only; and how many owe a wake-up. */
	struct emu_shm_chan *up[EMU_SHM_PEERS];
	unsigned int nowed;
	unsigned int unordered;	/* of them, not yet ordered */
	unsigned int rr;	/* the entry the next receive starts at */
	struct emu_shm_chan *last;	/* the last hit of a lookup */
	bool waiting;		/* our consumers' waiting flags */
	/* Called under the send path's lock when an entry goes to
	 * EMU_SHM_ASK: the transport finds out whether the peer is here. */
	void (*ask)(void *arg);
	void *ask_arg;
	/* Received frames are copied here before anything reads them. */
	uint8_t *rx_buf;
	uint64_t wakes;		/* eventfd writes to peers */
};

/* 0 or -ENOMEM; emu_shm_fini frees (the channels must be closed). */
int emu_shm_init(struct emu_shm *s);
void emu_shm_fini(struct emu_shm *s);

/*
 * The channel that carries frames to dst:dport now, or NULL (UDP). A
 * destination never seen gets an entry in EMU_SHM_ASK and s->ask runs;
 * one in EMU_SHM_NONE past its retry time is asked about again.
 */
struct emu_shm_chan *emu_shm_route(struct emu_shm *s,
				   const struct in6_addr *dst, uint16_t dport);
/* The entry for a peer, whatever its state, or NULL. */
struct emu_shm_chan *emu_shm_find(struct emu_shm *s,
				  const struct in6_addr *peer, uint16_t port);
/* An entry for a peer: the existing one or a free one (EMU_SHM_FREE
 * until the caller sets it), NULL when the table is full. */
struct emu_shm_chan *emu_shm_slot(struct emu_shm *s,
				  const struct in6_addr *peer, uint16_t port);

/* The channel starts carrying frames over area a: maker says whether this
 * side made it (sends on ring 0). wake_fd is the peer's eventfd (owned
 * by the channel from now on). */
void emu_shm_up(struct emu_shm *s, struct emu_shm_chan *c,
		struct emu_shm_area *a, bool maker, int wake_fd);
/* The channel stops (peer gone, or refused): its eventfd is closed; the
 * area is left to the caller to unmap. The entry becomes EMU_SHM_NONE,
 * asked about again after EMU_SHM_RETRY_NS. */
void emu_shm_down(struct emu_shm *s, struct emu_shm_chan *c);

/*
 * Put one frame into c's ring: the niov pieces at iov (len bytes in all,
 * at most EMU_SHM_FRAME_MAX), standing for a datagram from UDP port sport
 * with traffic class tos. Pieces from application memory are copied
 * through the memory guard. 0, -ENOBUFS when the ring is full, -EFAULT
 * when a piece cannot be read, -EMSGSIZE when too long: nothing is put.
 */
int emu_shm_put(struct emu_shm_chan *c, const struct iovec *iov,
		unsigned int niov, uint32_t len, uint16_t sport, uint8_t tos,
		uint8_t flags);
/* Wake the peers that sleep and were sent to since the last flush:
 * returns how many eventfds were written. */
unsigned int emu_shm_flush(struct emu_shm *s);

/*
 * Take up to max frames from the channels' rings, copying each into
 * s->rx_buf (EMU_UDP_BUF bytes a frame) and describing it in out[] as a
 * datagram from the peer's address to local:lport. Returns how many.
 * A frame longer than any datagram is delivered truncated; a ring whose
 * head is beyond reason is marked broken and read no more.
 */
unsigned int emu_shm_recv(struct emu_shm *s, struct emu_udp_pkt *out,
			  unsigned int max, const struct in6_addr *local);

/*
 * Our consumers say whether they sleep (on: a producer must write our
 * eventfd after publishing). Setting it on returns whether frames are
 * already waiting, published before the flag could be seen.
 */
bool emu_shm_set_waiting(struct emu_shm *s, bool on);

/*
 * As emu_shm_recv, but a frame without an ICRC stays in its ring: only its
 * first EMU_SHM_HDR_COPY bytes are copied (every header a frame may have;
 * what the receiver parses and trusts), and out[i].shared points at the
 * frame in the ring, from which its payload is read once, straight into
 * its destination. The slots stay the receiver's until emu_shm_release.
 */
#define EMU_SHM_HDR_COPY	128
unsigned int emu_shm_recv_shared(struct emu_shm *s, struct emu_udp_pkt *out,
				 unsigned int max,
				 const struct in6_addr *local);
/* The slots of what emu_shm_recv_shared took go back to their writers. */
void emu_shm_release(struct emu_shm *s);

/* Whether a channel waits for the socket to be emptied before its ring
 * is read (see emu_shm_chan.ordered). */
static inline bool emu_shm_unordered(const struct emu_shm *s)
{
	return s && s->unordered > 0;
}
/* Before emptying the socket: note which waiting rings hold frames. */
void emu_shm_order_begin(struct emu_shm *s);
/* The socket is empty: the rings noted are read from now on. */
void emu_shm_order_end(struct emu_shm *s);

/* Whether any channel is up. */
static inline bool emu_shm_any(const struct emu_shm *s)
{
	return s && s->nup > 0;
}

/* Whether some channel owes its peer a wake-up. */
static inline bool emu_shm_pending(const struct emu_shm *s)
{
	return s && s->nowed > 0;
}

#endif
