/* tests/unit/test_pcapng.c: net/pcapng.c's blocks byte for byte (lengths at
 * both ends, padding to 32 bits with zeros, options and their end, the
 * comment of every length from 0 to 9), a failing write, and a file of
 * them read back by libpcap, which reads pcapng though it cannot write it.
 */
#include <check.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/pcapng.h"
#include "tests/unit/testlib.h"

/* What was written to a memory stream: its bytes and length. */
struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	ck_assert_ptr_nonnull(m->f);
}

static void mem_close(struct mem *m)
{
	ck_assert_int_eq(fclose(m->f), 0);
}

static uint32_t u32(const struct mem *m, size_t off)
{
	uint32_t v;

	ck_assert_uint_le(off + 4, m->len);
	memcpy(&v, m->buf + off, 4);
	return v;
}

static uint16_t u16(const struct mem *m, size_t off)
{
	uint16_t v;

	ck_assert_uint_le(off + 2, m->len);
	memcpy(&v, m->buf + off, 2);
	return v;
}

/* A block of the type at off: its length, the same at its end, a multiple
 * of 4. Returns the length. */
static uint32_t block(const struct mem *m, size_t off, uint32_t type)
{
	uint32_t len = u32(m, off + 4);

	ck_assert_uint_eq(u32(m, off), type);
	ck_assert_uint_eq(len % 4, 0);
	ck_assert_uint_eq(u32(m, off + len - 4), len);
	return len;
}

/* The option at off: code, length, value, zero padding. Returns the
 * offset after it. */
static size_t option(const struct mem *m, size_t off, uint16_t code,
		     const void *value, uint16_t len)
{
	size_t i, padded = (len + 3u) & ~3u;

	ck_assert_uint_eq(u16(m, off), code);
	ck_assert_uint_eq(u16(m, off + 2), len);
	ck_assert_mem_eq(m->buf + off + 4, value, len);
	for (i = len; i < padded; i++)
		ck_assert_int_eq(m->buf[off + 4 + i], 0);
	return off + 4 + padded;
}

START_TEST(test_shb)
{
	struct mem m;
	int64_t section;

	mem_open(&m);
	ck_assert_int_eq(pcapng_write_shb(m.f, "emuverbs 0.1"), 0);
	mem_close(&m);
	/* 24 fixed, "emuverbs 0.1" (12, no padding) + 4, end 4, trailer. */
	ck_assert_uint_eq(m.len, 24 + 16 + 4 + 4);
	ck_assert_uint_eq(block(&m, 0, PCAPNG_SHB), m.len);
	ck_assert_uint_eq(u32(&m, 8), 0x1A2B3C4D);
	ck_assert_uint_eq(u16(&m, 12), 1);
	ck_assert_uint_eq(u16(&m, 14), 0);
	memcpy(&section, m.buf + 16, 8);
	ck_assert(section == -1);
	ck_assert_uint_eq(option(&m, 24, 4, "emuverbs 0.1", 12), 40);
	ck_assert_uint_eq(u32(&m, 40), 0);	/* opt_endofopt */
	free(m.buf);

	/* No application: no options at all, not even their end. */
	mem_open(&m);
	ck_assert_int_eq(pcapng_write_shb(m.f, NULL), 0);
	mem_close(&m);
	ck_assert_uint_eq(m.len, 28);
	ck_assert_uint_eq(block(&m, 0, PCAPNG_SHB), 28);
	free(m.buf);
}
END_TEST

START_TEST(test_idb)
{
	struct mem m;
	size_t at;
	uint8_t nine = 9;

	mem_open(&m);
	ck_assert_int_eq(pcapng_write_idb(m.f, PCAPNG_LINKTYPE_RAW, 65535,
					  "emu0/1", "a port"), 0);
	mem_close(&m);
	ck_assert_uint_eq(block(&m, 0, PCAPNG_IDB), m.len);
	ck_assert_uint_eq(u16(&m, 8), 101);
	ck_assert_uint_eq(u16(&m, 10), 0);
	ck_assert_uint_eq(u32(&m, 12), 65535);
	at = option(&m, 16, PCAPNG_IF_NAME, "emu0/1", 6);
	at = option(&m, at, PCAPNG_IF_DESCRIPTION, "a port", 6);
	at = option(&m, at, PCAPNG_IF_TSRESOL, &nine, 1);
	ck_assert_uint_eq(u32(&m, at), 0);
	ck_assert_uint_eq(at + 8, m.len);
	free(m.buf);
}
END_TEST

/* Every comment length from 0 to 9 pads to the next 4 with zeros, and
 * what follows it is where the lengths say. */
START_TEST(test_epb_comment_padding)
{
	static const char text[] = "123456789";
	uint8_t data[7] = { 0x45, 1, 2, 3, 4, 5, 6 };
	struct iovec iov[2] = { { data, 3 }, { data + 3, 4 } };
	uint32_t flags = PCAPNG_DIR_OUT, len;
	char comment[16];
	struct mem m;
	size_t at, c = (size_t)_i;

	memcpy(comment, text, c);
	comment[c] = '\0';
	mem_open(&m);
	ck_assert_int_eq(pcapng_write_epb(m.f, 3, 0x123456789abcdef0ull, iov,
					  2, 99, flags, comment), 0);
	mem_close(&m);
	len = block(&m, 0, PCAPNG_EPB);
	ck_assert_uint_eq(len, m.len);
	ck_assert_uint_eq(u32(&m, 8), 3);
	ck_assert_uint_eq(u32(&m, 12), 0x12345678);
	ck_assert_uint_eq(u32(&m, 16), 0x9abcdef0);
	ck_assert_uint_eq(u32(&m, 20), 7);	/* captured */
	ck_assert_uint_eq(u32(&m, 24), 99);	/* on the wire */
	ck_assert_mem_eq(m.buf + 28, data, 7);
	ck_assert_int_eq(m.buf[35], 0);		/* data padded to 8 */
	at = 36;
	if (c)
		at = option(&m, at, PCAPNG_OPT_COMMENT, comment, (uint16_t)c);
	at = option(&m, at, PCAPNG_EPB_FLAGS, &flags, 4);
	ck_assert_uint_eq(u32(&m, at), 0);
	ck_assert_uint_eq(at + 8, len);
	ck_assert_uint_eq(len, 36 + (c ? 4 + ((c + 3) & ~3u) : 0) + 8 + 8);
	free(m.buf);
}
END_TEST

START_TEST(test_epb_no_options)
{
	uint8_t data[4] = { 0x45, 0, 0, 4 };
	struct iovec iov = { data, 4 };
	struct mem m;

	/* No comment, no flags: no options and no end of options. */
	mem_open(&m);
	ck_assert_int_eq(pcapng_write_epb(m.f, 0, 1, &iov, 1, 4, 0, NULL), 0);
	mem_close(&m);
	ck_assert_uint_eq(m.len, 28 + 4 + 4);
	ck_assert_uint_eq(block(&m, 0, PCAPNG_EPB), 36);
	free(m.buf);
}
END_TEST

START_TEST(test_long_comment)
{
	char *comment = malloc(70000);
	uint8_t data[4] = { 0 };
	struct iovec iov = { data, 4 };
	struct mem m;

	ck_assert_ptr_nonnull(comment);
	memset(comment, 'c', 69999);
	comment[69999] = '\0';
	mem_open(&m);
	ck_assert_int_eq(pcapng_write_epb(m.f, 0, 1, &iov, 1, 4, 0, comment),
			 0);
	mem_close(&m);
	/* Cut at what an option's length can say. */
	ck_assert_uint_eq(u16(&m, 32), PCAPNG_OPT_COMMENT);
	ck_assert_uint_eq(u16(&m, 34), 0xffff);
	ck_assert_uint_eq(block(&m, 0, PCAPNG_EPB), m.len);
	free(m.buf);
	free(comment);
}
END_TEST

START_TEST(test_write_fails)
{
	char small[40];
	uint8_t data[64] = { 0 };
	struct iovec iov = { data, sizeof(data) };
	FILE *f = fmemopen(small, sizeof(small), "w");

	ck_assert_ptr_nonnull(f);
	setvbuf(f, NULL, _IONBF, 0);
	/* The block does not fit: the writer says so. */
	ck_assert_int_eq(pcapng_write_epb(f, 0, 1, &iov, 1, 64, 0, "x"), -1);
	fclose(f);
}
END_TEST

/* A whole file, read by libpcap: the interface's link type, the packets'
 * bytes and nanosecond timestamps. */
START_TEST(test_libpcap_reads_it)
{
	char path[] = "/tmp/emuverbs-pcapng-XXXXXX", err[PCAP_ERRBUF_SIZE];
	uint8_t a[20] = { 0x45, 0, 0, 20 }, b[21] = { 0x45, 0, 0, 21 };
	struct iovec va = { a, sizeof(a) }, vb = { b, sizeof(b) };
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *p;
	FILE *f;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_int_eq(pcapng_write_shb(f, "test"), 0);
	ck_assert_int_eq(pcapng_write_idb(f, PCAPNG_LINKTYPE_RAW, 65535,
					  "emu0/1", NULL), 0);
	ck_assert_int_eq(pcapng_write_epb(f, 0, 1500000000123456789ull, &va,
					  1, 20, PCAPNG_DIR_IN, "first"), 0);
	ck_assert_int_eq(pcapng_write_epb(f, 0, 1500000001000000001ull, &vb,
					  1, 21, PCAPNG_DIR_OUT, NULL), 0);
	ck_assert_int_eq(fclose(f), 0);

	p = pcap_open_offline_with_tstamp_precision(
		path, PCAP_TSTAMP_PRECISION_NANO, err);
	ck_assert_msg(p, "%s", err);
	ck_assert_int_eq(pcap_datalink(p), DLT_RAW);
	ck_assert_int_eq(pcap_next_ex(p, &h, &d), 1);
	ck_assert_uint_eq(h->caplen, 20);
	ck_assert_int_eq(h->ts.tv_sec, 1500000000);
	ck_assert_int_eq(h->ts.tv_usec, 123456789);
	ck_assert_mem_eq(d, a, 20);
	ck_assert_int_eq(pcap_next_ex(p, &h, &d), 1);
	ck_assert_uint_eq(h->caplen, 21);
	ck_assert_uint_eq(h->len, 21);
	ck_assert_int_eq(h->ts.tv_usec, 1);
	ck_assert_mem_eq(d, b, 21);
	ck_assert_int_eq(pcap_next_ex(p, &h, &d), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}
END_TEST

static Suite *pcapng_suite(void)
{
	Suite *s = suite_create("pcapng");
	TCase *tc = tcase_create("blocks");

	tcase_add_test(tc, test_shb);
	tcase_add_test(tc, test_idb);
	tcase_add_loop_test(tc, test_epb_comment_padding, 0, 10);
	tcase_add_test(tc, test_epb_no_options);
	tcase_add_test(tc, test_long_comment);
	tcase_add_test(tc, test_write_fails);
	tcase_add_test(tc, test_libpcap_reads_it);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(pcapng_suite());
}
