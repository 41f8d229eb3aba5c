/* net/pcapng.c: the pcapng blocks a capture needs, written with stdio in
 * the host's byte order: no allocation, each block in a few fwrite calls.
 * Layouts from the pcapng draft (draft-tuexen-opsawg-pcapng). */
#include <errno.h>
#include <string.h>

#include "net/pcapng.h"

#define OPT_MAX		0xffffu

static const uint8_t zeros[4];

static int put(FILE *f, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, f) != n)
		return -1;
	return 0;
}

static int put32(FILE *f, uint32_t v)
{
	return put(f, &v, 4);
}

/* Zeros up to the next multiple of 4 after n bytes. */
static int pad(FILE *f, size_t n)
{
	return put(f, zeros, (4 - (n & 3)) & 3);
}

/* One option (code, length, value, padding); a NULL or empty string is
 * left out. */
static int put_opt(FILE *f, uint16_t code, const void *v, size_t len)
{
	uint16_t hdr[2];

	if (!v || !len)
		return 0;
	if (len > OPT_MAX)
		len = OPT_MAX;
	hdr[0] = code;
	hdr[1] = (uint16_t)len;
	if (put(f, hdr, 4) || put(f, v, len) || pad(f, len))
		return -1;
	return 0;
}

static size_t str_opt_len(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > OPT_MAX)
		n = OPT_MAX;
	return n ? pcapng_opt_len(n) : 0;
}

static int put_str(FILE *f, uint16_t code, const char *s)
{
	return put_opt(f, code, s, s ? strlen(s) : 0);
}

int pcapng_write_shb(FILE *f, const char *userappl)
{
	/* Type, length, magic, version 1.0, section length -1 (unknown),
	 * options, end of options, length again. */
	size_t opts = str_opt_len(userappl);
	uint32_t len = (uint32_t)(24 + opts + (opts ? 4 : 0) + 4);
	uint16_t ver[2] = { 1, 0 };
	int64_t section = -1;

	if (put32(f, PCAPNG_SHB) || put32(f, len) ||
	    put32(f, PCAPNG_BYTE_ORDER) || put(f, ver, 4) ||
	    put(f, &section, 8) ||
	    put_str(f, PCAPNG_SHB_USERAPPL, userappl) ||
	    (opts && put32(f, PCAPNG_OPT_END)) || put32(f, len))
		return -1;
	return 0;
}

int pcapng_write_idb(FILE *f, uint16_t linktype, uint32_t snaplen,
		     const char *name, const char *description)
{
	/* Nanosecond timestamps: 10^-9. */
	uint8_t tsresol = 9;
	size_t opts = str_opt_len(name) + str_opt_len(description) +
		      pcapng_opt_len(1) + 4;
	uint32_t len = (uint32_t)(16 + opts + 4);
	uint16_t lt[2] = { linktype, 0 };

	if (put32(f, PCAPNG_IDB) || put32(f, len) || put(f, lt, 4) ||
	    put32(f, snaplen) || put_str(f, PCAPNG_IF_NAME, name) ||
	    put_str(f, PCAPNG_IF_DESCRIPTION, description) ||
	    put_opt(f, PCAPNG_IF_TSRESOL, &tsresol, 1) ||
	    put32(f, PCAPNG_OPT_END) || put32(f, len))
		return -1;
	return 0;
}

int pcapng_write_epb(FILE *f, uint32_t iface, uint64_t ts_ns,
		     const struct iovec *iov, unsigned int niov,
		     uint32_t orig_len, uint32_t flags, const char *comment)
{
	size_t cap = 0, opts;
	uint32_t len;
	unsigned int i;

	for (i = 0; i < niov; i++)
		cap += iov[i].iov_len;
	opts = str_opt_len(comment) + (flags ? pcapng_opt_len(4) : 0);
	if (opts)
		opts += 4;
	if (cap > UINT32_MAX - 64 - opts) {
		errno = EMSGSIZE;
		return -1;
	}
	len = (uint32_t)(28 + ((cap + 3) & ~(size_t)3) + opts + 4);
	if (put32(f, PCAPNG_EPB) || put32(f, len) || put32(f, iface) ||
	    put32(f, (uint32_t)(ts_ns >> 32)) || put32(f, (uint32_t)ts_ns) ||
	    put32(f, (uint32_t)cap) || put32(f, orig_len))
		return -1;
	for (i = 0; i < niov; i++)
		if (put(f, iov[i].iov_base, iov[i].iov_len))
			return -1;
	if (pad(f, cap) || put_str(f, PCAPNG_OPT_COMMENT, comment) ||
	    (flags && put_opt(f, PCAPNG_EPB_FLAGS, &flags, 4)) ||
	    (opts && put32(f, PCAPNG_OPT_END)) || put32(f, len))
		return -1;
	return 0;
}
