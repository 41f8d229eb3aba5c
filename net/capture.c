/* net/capture.c: the capture file a process's ports write to. A .pcapng
 * name gets net/pcapng.c's blocks (a comment per noted packet, its
 * direction, an interface per port); any other name a classic pcap through
 * libpcap, which has no place for either. Both hold raw IP packets
 * (LINKTYPE_RAW) with nanosecond timestamps. */
#include <errno.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "net/capture.h"
#include "net/pcapng.h"

/* configure defines it; a build straight from the sources (the fuzz
 * target) may not. */
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION	"(unknown version)"
#endif

#define SNAPLEN		65535
#define IFACES_MAX	64
/* What stdio holds may be at most this old when the process is killed. */
#define FLUSH_NS	100000000ull
#define PIECES_MAX	16

struct cap_note {
	uint32_t id;
	char text[EMU_CAP_NOTE_LEN];
};

struct emu_cap {
	pthread_mutex_t lock;
	unsigned int refs;
	bool ng;			/* pcapng, else pcap */
	bool done;
	FILE *f;			/* pcapng */
	pcap_t *dead;			/* pcap: libpcap's handle, file */
	pcap_dumper_t *dump;
	uint8_t *stage;			/* pcap: a packet in one piece */
	uint64_t count, packets, flushed_ns;
	uint8_t ttl4, ttl6;
	char path[4096];
	char err[160];			/* why the file closed early */
	char ifname[IFACES_MAX][32];
	unsigned int nif;
	uint32_t next_note;
	struct cap_note note[EMU_CAP_NOTES];
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A sysctl's number, or def when it cannot be read. */
static uint8_t sysctl_u8(const char *path, uint8_t def)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v > 0 && v < 256 ? (uint8_t)v : def;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* Close whatever is open; under the lock or before anyone shares c. */
static void close_file(struct emu_cap *c)
{
	if (c->dump)
		pcap_dump_close(c->dump);	/* closes its FILE too */
	else if (c->f)
		fclose(c->f);
	if (c->dead)
		pcap_close(c->dead);
	c->dump = NULL;
	c->dead = NULL;
	c->f = NULL;
	c->done = true;
}

static void cap_free(struct emu_cap *c)
{
	close_file(c);
	pthread_mutex_destroy(&c->lock);
	free(c->stage);
	free(c);
}

int emu_cap_open(struct emu_cap **out, const char *path, uint64_t count,
		 char *why, size_t whylen)
{
	struct emu_cap *c;
	struct stat st;
	bool existed;
	FILE *f;
	int err;

	*out = NULL;
	if (!path || !*path) {
		snprintf(why, whylen, "no capture file named");
		return -1;
	}
	if (strlen(path) >= sizeof(c->path)) {
		snprintf(why, whylen, "%.64s...: name too long", path);
		return -1;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(why, whylen, "%s: out of memory", path);
		return -1;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->refs = 1;
	c->count = count;
	c->next_note = 1;
	c->ng = ends_with(path, ".pcapng");
	c->ttl4 = sysctl_u8("/proc/sys/net/ipv4/ip_default_ttl", 64);
	c->ttl6 = sysctl_u8("/proc/sys/net/ipv6/conf/default/hop_limit", 64);
	strcpy(c->path, path);
	if (!c->ng) {
		c->stage = malloc(EMU_IPHDR_MAX + SNAPLEN);
		c->dead = pcap_open_dead_with_tstamp_precision(
			DLT_RAW, SNAPLEN, PCAP_TSTAMP_PRECISION_NANO);
		if (!c->stage || !c->dead) {
			snprintf(why, whylen, "%s: out of memory", path);
			cap_free(c);
			return -1;
		}
	}
	/* A file that was not there goes again if its header fails; one
	 * that was (a device, a fifo) is never removed. */
	existed = !stat(path, &st);
	f = fopen(path, "wb");
	if (!f) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		cap_free(c);
		return -1;
	}
	if (c->ng) {
		c->f = f;
		err = pcapng_write_shb(f, "emuverbs " PACKAGE_VERSION) ||
		      fflush(f);
	} else {
		/* On failure libpcap has closed f already. */
		c->dump = pcap_dump_fopen(c->dead, f);
		err = !c->dump || pcap_dump_flush(c->dump);
	}
	if (err) {
		snprintf(why, whylen, "%s: %s", path,
			 c->ng || c->dump ? strerror(errno) :
					    pcap_geterr(c->dead));
		cap_free(c);
		if (!existed)
			unlink(path);
		return -1;
	}
	c->flushed_ns = realtime_ns();
	*out = c;
	return 0;
}

void emu_cap_get(struct emu_cap *c)
{
	pthread_mutex_lock(&c->lock);
	c->refs++;
	pthread_mutex_unlock(&c->lock);
}

void emu_cap_put(struct emu_cap *c)
{
	unsigned int left;

	pthread_mutex_lock(&c->lock);
	left = --c->refs;
	pthread_mutex_unlock(&c->lock);
	if (!left)
		cap_free(c);
}

void emu_cap_stop(struct emu_cap *c)
{
	pthread_mutex_lock(&c->lock);
	close_file(c);
	pthread_mutex_unlock(&c->lock);
}

uint32_t emu_cap_iface(struct emu_cap *c, const char *name,
		       const char *description)
{
	unsigned int i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nif; i++)
		if (!strcmp(c->ifname[i], name))
			goto out;
	/* Past the table's end, ports share its last interface. */
	if (c->nif == IFACES_MAX) {
		i = IFACES_MAX - 1;
		goto out;
	}
	i = c->nif++;
	snprintf(c->ifname[i], sizeof(c->ifname[i]), "%s", name);
	if (c->ng && c->f &&
	    pcapng_write_idb(c->f, PCAPNG_LINKTYPE_RAW, SNAPLEN, name,
			     description)) {
		snprintf(c->err, sizeof(c->err), "writing failed: %s",
			 strerror(errno));
		close_file(c);
	}
out:
	pthread_mutex_unlock(&c->lock);
	return i;
}

uint32_t emu_cap_note(struct emu_cap *c, const char *fmt, ...)
{
	struct cap_note *n;
	va_list ap;
	uint32_t id;

	pthread_mutex_lock(&c->lock);
	id = c->next_note++;
	if (!c->next_note)
		c->next_note = 1;
	n = &c->note[id % EMU_CAP_NOTES];
	n->id = id;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&c->lock);
	return id;
}

/* The text of note id, under the lock; NULL for none. */
static const char *note_text(struct emu_cap *c, uint32_t id)
{
	const struct cap_note *n;

	if (!id)
		return NULL;
	n = &c->note[id % EMU_CAP_NOTES];
	return n->id == id ? n->text : "(a fault rule acted on this packet; "
				       "its note was overwritten)";
}

static int write_pcap(struct emu_cap *c, uint64_t ts, const struct iovec *v,
		      unsigned int n, uint32_t len)
{
	struct pcap_pkthdr ph = { 0 };
	uint32_t at = 0;
	unsigned int i;

	for (i = 0; i < n && at < SNAPLEN; i++) {
		size_t k = v[i].iov_len;

		if (k > SNAPLEN - at)
			k = SNAPLEN - at;
		memcpy(c->stage + at, v[i].iov_base, k);
		at += (uint32_t)k;
	}
	/* Nanosecond precision: libpcap takes the nanoseconds in tv_usec. */
	ph.ts.tv_sec = (time_t)(ts / 1000000000ull);
	ph.ts.tv_usec = (suseconds_t)(ts % 1000000000ull);
	ph.caplen = at;
	ph.len = len;
	pcap_dump((u_char *)c->dump, &ph, c->stage);
	return ferror(pcap_dump_file(c->dump)) ? -1 : 0;
}

void emu_cap_packet(struct emu_cap *c, uint32_t iface, enum emu_cap_dir dir,
		    const struct emu_iphdr *h, const struct iovec *iov,
		    unsigned int niov, uint32_t note)
{
	struct iovec v[PIECES_MAX + 1];
	uint8_t hdr[EMU_IPHDR_MAX];
	uint32_t dlen = 0, len;
	uint64_t ts;
	unsigned int i;
	int rc;

	if (niov > PIECES_MAX)
		niov = PIECES_MAX;
	for (i = 0; i < niov; i++) {
		dlen += (uint32_t)iov[i].iov_len;
		v[i + 1] = iov[i];
	}
	/* Outside the lock: the checksums read every byte. */
	v[0].iov_base = hdr;
	v[0].iov_len = emu_iphdr_build(hdr, h, iov, niov, dlen);
	len = (uint32_t)v[0].iov_len + dlen;
	ts = realtime_ns();
	pthread_mutex_lock(&c->lock);
	if (c->done)
		goto out;
	if (c->ng)
		rc = pcapng_write_epb(c->f, iface, ts, v, niov + 1, len,
				      (uint32_t)dir, note_text(c, note));
	else
		rc = write_pcap(c, ts, v, niov + 1, len);
	if (!rc && ++c->packets == c->count) {
		close_file(c);
		goto out;
	}
	if (rc) {
		snprintf(c->err, sizeof(c->err), "writing failed: %s",
			 strerror(errno));
		close_file(c);
		goto out;
	}
	if (ts - c->flushed_ns >= FLUSH_NS) {
		c->flushed_ns = ts;
		fflush(c->ng ? c->f : pcap_dump_file(c->dump));
	}
out:
	pthread_mutex_unlock(&c->lock);
}

uint8_t emu_cap_ttl(const struct emu_cap *c, bool v4)
{
	return v4 ? c->ttl4 : c->ttl6;
}

bool emu_cap_done(struct emu_cap *c)
{
	bool d;

	pthread_mutex_lock(&c->lock);
	d = c->done;
	pthread_mutex_unlock(&c->lock);
	return d;
}

uint64_t emu_cap_packets(struct emu_cap *c)
{
	uint64_t n;

	pthread_mutex_lock(&c->lock);
	n = c->packets;
	pthread_mutex_unlock(&c->lock);
	return n;
}

uint64_t emu_cap_count(const struct emu_cap *c)
{
	return c->count;
}

const char *emu_cap_path(const struct emu_cap *c)
{
	return c->path;
}

const char *emu_cap_error(const struct emu_cap *c)
{
	return c->err;
}

bool emu_cap_notes(const struct emu_cap *c)
{
	return c->ng;
}
