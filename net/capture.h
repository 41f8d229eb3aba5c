/* A capture file that the ports of a process write their traffic to: pcap
 * through libpcap, or pcapng (net/pcapng.c) when the name ends in .pcapng,
 * whose packets may carry a comment (a note) and a direction. One per
 * process at a time, shared by every port that writes to it: a lock
 * serialises the writes; nothing is allocated per packet. */
#ifndef NET_CAPTURE_H
#define NET_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "net/iphdr.h"

struct emu_cap;

enum emu_cap_dir {
	EMU_CAP_RX = 1,			/* as pcapng's epb_flags say */
	EMU_CAP_TX = 2,
};

/* Notes a capture remembers at once: a note older than this many newer
 * ones is gone when its packet is written (it then says so). */
#define EMU_CAP_NOTES		256
#define EMU_CAP_NOTE_LEN	120

/*
 * Create path (truncating it) and write the file's header: 0 and *out,
 * or -1 with a one-line reason naming the file in why, and no file made
 * (a file this call made but could not write is removed; one that was
 * there, a device say, stays). count > 0: after that
 * many packets the capture closes its file by itself (emu_cap_done).
 */
int emu_cap_open(struct emu_cap **out, const char *path, uint64_t count,
		 char *why, size_t whylen);

/* References: the opener holds one; each port writing to it another. The
 * last emu_cap_put frees it, closing the file if it is still open. */
void emu_cap_get(struct emu_cap *c);
void emu_cap_put(struct emu_cap *c);
/* Close the file now (flushed); what is written later is ignored. */
void emu_cap_stop(struct emu_cap *c);

/* An interface for a port (pcapng: an IDB, named "emu0/1"): its number.
 * The same name gives the same number again. */
uint32_t emu_cap_iface(struct emu_cap *c, const char *name,
		       const char *description);

/* Keep a note for a packet to be written later (a fault rule's doing):
 * its number, never 0. */
uint32_t emu_cap_note(struct emu_cap *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * One datagram (the niov pieces at iov: BTH through ICRC) with the IP and
 * UDP headers h describes, timestamped now; note (0: none) is its pcapng
 * comment. Nothing happens once the file is closed.
 */
void emu_cap_packet(struct emu_cap *c, uint32_t iface, enum emu_cap_dir dir,
		    const struct emu_iphdr *h, const struct iovec *iov,
		    unsigned int niov, uint32_t note);

/* TTL and hop limit the kernel gives what a socket sends (its sysctls,
 * read at open). */
uint8_t emu_cap_ttl(const struct emu_cap *c, bool v4);

/* Whether the file is closed (stopped, or count reached). */
bool emu_cap_done(struct emu_cap *c);
/* Packets written so far, and the count asked for (0: none). */
uint64_t emu_cap_packets(struct emu_cap *c);
uint64_t emu_cap_count(const struct emu_cap *c);
const char *emu_cap_path(const struct emu_cap *c);
/* Why the file closed before it was stopped ("" if it did not). */
const char *emu_cap_error(const struct emu_cap *c);
/* Whether its packets can carry notes (pcapng). */
bool emu_cap_notes(const struct emu_cap *c);

#endif
