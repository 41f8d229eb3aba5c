/* A small pcapng writer: a Section Header Block, Interface Description
 * Blocks and Enhanced Packet Blocks with a direction flag and a comment,
 * which is what marking the packets fault rules acted on needs and what
 * libpcap 1.10 cannot write (it writes the classic pcap format only). */
#ifndef NET_PCAPNG_H
#define NET_PCAPNG_H

#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

/* Block types and option codes (the pcapng draft, section 4). */
#define PCAPNG_SHB		0x0A0D0D0Au
#define PCAPNG_IDB		0x00000001u
#define PCAPNG_EPB		0x00000006u
#define PCAPNG_BYTE_ORDER	0x1A2B3C4Du
#define PCAPNG_OPT_END		0
#define PCAPNG_OPT_COMMENT	1
#define PCAPNG_SHB_USERAPPL	4
#define PCAPNG_IF_NAME		2
#define PCAPNG_IF_DESCRIPTION	3
#define PCAPNG_IF_TSRESOL	9
#define PCAPNG_EPB_FLAGS	2

/* epb_flags' direction, its two low bits. */
#define PCAPNG_DIR_IN		1u
#define PCAPNG_DIR_OUT		2u

/* LINKTYPE_RAW: the packet starts with its IPv4 or IPv6 header. */
#define PCAPNG_LINKTYPE_RAW	101

/* An option's bytes on file: its code and length, the value padded to a
 * multiple of 4. */
static inline size_t pcapng_opt_len(size_t value_len)
{
	return 4 + ((value_len + 3) & ~(size_t)3);
}

/*
 * Each writes one block in the host's byte order (the SHB's byte-order
 * magic tells readers which) to f: 0, or -1 with errno from stdio.
 * Strings may be NULL (no option); a comment longer than an option holds
 * (65535 bytes) is cut there.
 */
int pcapng_write_shb(FILE *f, const char *userappl);
/* Interface number n is the n-th IDB written (from 0). Timestamps of its
 * packets are in nanoseconds (if_tsresol 9). */
int pcapng_write_idb(FILE *f, uint16_t linktype, uint32_t snaplen,
		     const char *name, const char *description);
/* A packet of orig_len bytes, of which the niov pieces at iov (their
 * lengths add up to what is captured) are written; ts_ns since the Unix
 * epoch; flags 0 writes no epb_flags. */
int pcapng_write_epb(FILE *f, uint32_t iface, uint64_t ts_ns,
		     const struct iovec *iov, unsigned int niov,
		     uint32_t orig_len, uint32_t flags, const char *comment);

#endif
