/* tests/unit/test_capture.c: the capture's file (net/capture.c) and what it
 * writes of a port's datagrams (net/iphdr.c, net/udp_cap.c): the rebuilt
 * IP and UDP headers against checksums computed here the plain way, the
 * IPv4 identification of a received packet solved from its ICRC, pcap read
 * back by libpcap, pcapng notes, the count, bad paths and allocation
 * failures that leave no file behind. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/capture.h"
#include "net/hdr.h"
#include "net/icrc.h"
#include "net/iphdr.h"
#include "net/udp.h"
#include "tests/unit/testlib.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/emuverbs-cap-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void v4(struct in6_addr *a, const char *s)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[10] = 0xff;
	a->s6_addr[11] = 0xff;
	ck_assert_int_eq(inet_pton(AF_INET, s, &a->s6_addr[12]), 1);
}

/* The one's-complement sum of everything, folded: 0xffff over a valid
 * header (or pseudo header, UDP header and data) with its checksum. */
static uint16_t plain_sum(const uint8_t *p, size_t len)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The UDP checksum of the datagram behind hdr checked the plain way. */
static void udp_ok(const uint8_t *hdr, size_t iplen, const uint8_t *data,
		   size_t len)
{
	uint8_t all[2048];
	size_t n = 0;

	if (iplen == 20) {
		memcpy(all, hdr + 12, 8);
		all[8] = 0;
		all[9] = 17;
		wire_put16(all + 10, (uint16_t)(8 + len));
		n = 12;
	} else {
		memcpy(all, hdr + 8, 32);
		wire_put32(all + 32, (uint32_t)(8 + len));
		wire_put32(all + 36, 17);
		n = 40;
	}
	memcpy(all + n, hdr + iplen, 8);
	memcpy(all + n + 8, data, len);
	ck_assert_uint_eq(plain_sum(all, n + 8 + len), 0xffff);
	ck_assert_uint_ne(wire_get16(hdr + iplen + 6), 0);
}

START_TEST(test_ipv4_header)
{
	uint8_t data[101], hdr[EMU_IPHDR_MAX];
	/* Odd pieces: a byte left over pairs with the next piece's. */
	struct iovec iov[3] = { { data, 3 }, { data + 3, 97 },
				{ data + 100, 1 } };
	struct emu_iphdr h = {
		.sport = 49152, .dport = 4791, .tos = 0x03, .ttl = 64,
		.ip_id = 7, .df = true,
	};
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 37 + 11);
	v4(&h.src, "127.1.0.1");
	v4(&h.dst, "127.1.0.2");
	ck_assert_uint_eq(emu_iphdr_build(hdr, &h, iov, 3, 101), 28);
	ck_assert_uint_eq(hdr[0], 0x45);
	ck_assert_uint_eq(hdr[1], 0x03);
	ck_assert_uint_eq(wire_get16(hdr + 2), 20 + 8 + 101);
	ck_assert_uint_eq(wire_get16(hdr + 4), 7);
	ck_assert_uint_eq(wire_get16(hdr + 6), 0x4000);
	ck_assert_uint_eq(hdr[8], 64);
	ck_assert_uint_eq(hdr[9], 17);
	ck_assert_mem_eq(hdr + 12, &h.src.s6_addr[12], 4);
	ck_assert_mem_eq(hdr + 16, &h.dst.s6_addr[12], 4);
	ck_assert_uint_eq(plain_sum(hdr, 20), 0xffff);
	ck_assert_uint_eq(wire_get16(hdr + 20), 49152);
	ck_assert_uint_eq(wire_get16(hdr + 22), 4791);
	ck_assert_uint_eq(wire_get16(hdr + 24), 8 + 101);
	udp_ok(hdr, 20, data, sizeof(data));
}
END_TEST

START_TEST(test_ipv6_header)
{
	uint8_t data[64], hdr[EMU_IPHDR_MAX];
	struct iovec iov = { data, sizeof(data) };
	struct emu_iphdr h = {
		.sport = 50000, .dport = 4791, .tos = 0x02, .ttl = 255,
		.flow = 0x12345,
	};

	memset(data, 0xa5, sizeof(data));
	ck_assert_int_eq(inet_pton(AF_INET6, "fd00::1", &h.src), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, "fd00::2", &h.dst), 1);
	ck_assert_uint_eq(emu_iphdr_build(hdr, &h, &iov, 1, 64), 48);
	ck_assert_uint_eq(wire_get32(hdr), 0x60000000u | 0x02u << 20 |
					   0x12345);
	ck_assert_uint_eq(wire_get16(hdr + 4), 8 + 64);
	ck_assert_uint_eq(hdr[6], 17);
	ck_assert_uint_eq(hdr[7], 255);
	ck_assert_mem_eq(hdr + 8, &h.src, 16);
	ck_assert_mem_eq(hdr + 24, &h.dst, 16);
	udp_ok(hdr, 40, data, sizeof(data));
}
END_TEST

/* A checksum that comes out 0 is written as all ones: 0 means none. */
START_TEST(test_udp_zero_checksum)
{
	uint8_t data[4] = { 0 }, hdr[EMU_IPHDR_MAX];
	struct iovec iov = { data, 4 };
	struct emu_iphdr h = { .sport = 1, .dport = 2, .ttl = 64 };
	uint16_t c;

	v4(&h.src, "10.0.0.1");
	v4(&h.dst, "10.0.0.2");
	emu_iphdr_build(hdr, &h, &iov, 1, 4);
	/* The data's last word set to the checksum makes the sum 0. */
	c = wire_get16(hdr + 26);
	wire_put16(data + 2, c);
	emu_iphdr_build(hdr, &h, &iov, 1, 4);
	ck_assert_uint_eq(wire_get16(hdr + 26), 0xffff);
}
END_TEST

START_TEST(test_bad_paths)
{
	char why[256], path[128];
	struct emu_cap *c = (struct emu_cap *)1;
	struct stat st;

	make_dir();
	snprintf(path, sizeof(path), "%s/no/such/dir.pcap", dir);
	ck_assert_int_eq(emu_cap_open(&c, path, 0, why, sizeof(why)), -1);
	ck_assert_ptr_null(c);
	ck_assert_ptr_nonnull(strstr(why, path));
	ck_assert_ptr_nonnull(strstr(why, "No such file"));
	ck_assert_int_eq(emu_cap_open(&c, "", 0, why, sizeof(why)), -1);
	/* A device that takes no bytes: refused, and never removed. */
	ck_assert_int_eq(emu_cap_open(&c, "/dev/full", 0, why, sizeof(why)),
			 -1);
	ck_assert_ptr_nonnull(strstr(why, "/dev/full"));
	ck_assert_int_eq(stat("/dev/full", &st), 0);
	remove_dir();
}
END_TEST

/* The allocations of emu_cap_open fail one after the other: each time a
 * one-line reason, and no file. */
START_TEST(test_alloc_failure)
{
	char why[256], path[128];
	struct emu_cap *c;
	struct stat st;
	int nth;

	make_dir();
	snprintf(path, sizeof(path), "%s/a.pcap", dir);
	for (nth = 1; nth <= 2; nth++) {
		why[0] = '\0';
		if (nth == 1)
			emu_test_fail_calloc(1);
		else
			emu_test_fail_malloc(1);
		ck_assert_int_eq(emu_cap_open(&c, path, 0, why, sizeof(why)),
				 -1);
		ck_assert_int_eq(emu_test_alloc_armed(), 0);
		ck_assert_ptr_nonnull(strstr(why, "out of memory"));
		ck_assert_ptr_nonnull(strstr(why, path));
		ck_assert_int_eq(stat(path, &st), -1);
		ck_assert_int_eq(errno, ENOENT);
	}
	emu_test_fail_calloc(0);
	emu_test_fail_malloc(0);
	ck_assert_int_eq(emu_cap_open(&c, path, 0, why, sizeof(why)), 0);
	emu_cap_put(c);
	remove_dir();
}
END_TEST

/* A RoCEv2 SEND ONLY of len bytes of payload from src:sport to dst:4791,
 * its ICRC made for IPv4 identification id, into buf: its length. */
static uint32_t roce(uint8_t *buf, const struct in6_addr *src,
		     const struct in6_addr *dst, uint16_t sport, uint32_t len,
		     uint16_t id)
{
	uint8_t ph[ICRC_PSEUDO_MAX];
	struct in_addr s, d;
	uint32_t dlen = 12 + len + ICRC_LEN, crc;
	size_t iplen;

	memset(buf, 0, dlen);
	buf[0] = 0x04;			/* RC SEND ONLY */
	wire_put16(buf + 2, 0xffff);
	wire_put32(buf + 4, 0x123456);
	wire_put32(buf + 8, 0x80000042);
	memset(buf + 12, 0x5a, len);
	memcpy(&s, &src->s6_addr[12], 4);
	memcpy(&d, &dst->s6_addr[12], 4);
	iplen = icrc_pseudo_v4(ph, &s, &d, sport, 4791, dlen);
	crc = icrc_compute(ph, iplen, ph + iplen, buf, dlen - ICRC_LEN);
	icrc_put(buf + dlen - ICRC_LEN, icrc_with_ipv4_id(crc, dlen, id));
	return dlen;
}

/* pcap: the datagrams as sent and received, read back by libpcap. */
START_TEST(test_pcap_tx_rx)
{
	char why[256], path[128], err[PCAP_ERRBUF_SIZE];
	struct emu_udp u;
	struct emu_cap *c;
	struct emu_udp_pkt p = { 0 };
	uint8_t pkt[256], bad[256], ctl[CMSG_SPACE(sizeof(int))];
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(4791) };
	struct msghdr mh = { .msg_name = &to, .msg_namelen = sizeof(to) };
	struct cmsghdr *cm;
	struct iovec iov;
	struct pcap_pkthdr *h;
	const u_char *d;
	uint32_t len;
	pcap_t *pc;
	int ce = 3;

	make_dir();
	snprintf(path, sizeof(path), "%s/t.pcap", dir);
	ck_assert_int_eq(emu_cap_open(&c, path, 0, why, sizeof(why)), 0);
	ck_assert(!emu_cap_notes(c));
	memset(&u, 0, sizeof(u));
	v4(&u.local, "127.1.0.1");
	u.port = 4791;
	u.tx_port[2] = 40000;
	emu_udp_cap_attach(&u, c, emu_cap_iface(c, "emu0/1", "test"));

	/* Sent: segment 5 of a GSO send, marked CE. */
	inet_pton(AF_INET, "127.1.0.2", &to.sin_addr);
	v4(&p.src, "127.1.0.2");
	len = roce(pkt, &u.local, &p.src, 40000, 100, 5);
	mh.msg_control = ctl;
	mh.msg_controllen = sizeof(ctl);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = IPPROTO_IP;
	cm->cmsg_type = IP_TOS;
	cm->cmsg_len = CMSG_LEN(sizeof(ce));
	memcpy(CMSG_DATA(cm), &ce, sizeof(ce));
	iov = (struct iovec){ pkt, len };
	emu_udp_cap_tx(&u, &mh, 2, &iov, 1, 5, 0);

	/* Received: sent with identification 9, which only its ICRC says;
	 * then the same damaged, whose identification nothing says. */
	p.dst = u.local;
	p.sport = 50000;
	p.ttl = 61;
	p.tos = 2;
	p.data = pkt;
	p.len = roce(pkt, &p.src, &u.local, 50000, 100, 9);
	emu_udp_cap_rx(&u, &p, 0);
	memcpy(bad, pkt, p.len);
	bad[20] ^= 1;
	p.data = bad;
	emu_udp_cap_rx(&u, &p, 0);
	ck_assert_uint_eq(emu_cap_packets(c), 3);
	emu_udp_cap_attach(&u, NULL, 0);
	emu_cap_put(c);

	pc = pcap_open_offline_with_tstamp_precision(
		path, PCAP_TSTAMP_PRECISION_NANO, err);
	ck_assert_msg(pc, "%s", err);
	ck_assert_int_eq(pcap_datalink(pc), DLT_RAW);
	ck_assert_int_eq(pcap_next_ex(pc, &h, &d), 1);
	ck_assert_uint_eq(h->caplen, 28 + len);
	ck_assert_uint_eq(d[1], 3);			/* CE */
	ck_assert_uint_eq(wire_get16(d + 4), 5);	/* GSO segment 5 */
	ck_assert_uint_eq(wire_get16(d + 6), 0x4000);
	ck_assert_uint_eq(wire_get16(d + 20), 40000);
	ck_assert_uint_eq(wire_get16(d + 22), 4791);
	ck_assert_mem_eq(d + 28, pkt, 12);
	ck_assert_int_eq(pcap_next_ex(pc, &h, &d), 1);
	ck_assert_uint_eq(d[1], 2);
	ck_assert_uint_eq(wire_get16(d + 4), 9);	/* solved */
	ck_assert_uint_eq(d[8], 61);
	ck_assert_uint_eq(wire_get16(d + 20), 50000);
	ck_assert_uint_eq(wire_get16(d + 22), 4791);
	ck_assert_mem_eq(d + 12, &p.src.s6_addr[12], 4);
	ck_assert_int_eq(pcap_next_ex(pc, &h, &d), 1);
	ck_assert_uint_eq(wire_get16(d + 4), 0);	/* unknown: 0 */
	ck_assert_int_eq(pcap_next_ex(pc, &h, &d), PCAP_ERROR_BREAK);
	pcap_close(pc);
	remove_dir();
}
END_TEST

/* The whole file into a buffer (NUL-terminated, binary inside). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = malloc(1 << 20);

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(b);
	*len = fread(b, 1, (1 << 20) - 1, f);
	b[*len] = '\0';
	fclose(f);
	return b;
}

static bool has(const char *b, size_t len, const char *s)
{
	return memmem(b, len, s, strlen(s)) != NULL;
}

/* pcapng: an interface per port, notes as comments, the count. */
START_TEST(test_pcapng_notes_count)
{
	char why[256], path[128], *b;
	struct emu_iphdr h = { .sport = 1, .dport = 4791, .ttl = 64 };
	uint8_t data[16] = { 0x04 };
	struct iovec iov = { data, sizeof(data) };
	struct emu_cap *c;
	uint32_t n1, n2, i;
	size_t len;

	make_dir();
	v4(&h.src, "127.0.0.1");
	v4(&h.dst, "127.0.0.2");
	snprintf(path, sizeof(path), "%s/t.pcapng", dir);
	ck_assert_int_eq(emu_cap_open(&c, path, 4, why, sizeof(why)), 0);
	ck_assert(emu_cap_notes(c));
	ck_assert_uint_eq(emu_cap_iface(c, "emu0/1", "first"), 0);
	ck_assert_uint_eq(emu_cap_iface(c, "emu1/1", "second"), 1);
	ck_assert_uint_eq(emu_cap_iface(c, "emu0/1", "again"), 0);
	n1 = emu_cap_note(c, "fault rule %s: dropped", "lose");
	ck_assert_uint_ne(n1, 0);
	emu_cap_packet(c, 0, EMU_CAP_RX, &h, &iov, 1, n1);
	/* A note overwritten by EMU_CAP_NOTES newer ones says so. */
	for (i = 0; i < EMU_CAP_NOTES; i++)
		n2 = emu_cap_note(c, "note %u", i);
	ck_assert_uint_ne(n2, n1);
	emu_cap_packet(c, 1, EMU_CAP_TX, &h, &iov, 1, n1);
	emu_cap_packet(c, 1, EMU_CAP_TX, &h, &iov, 1, n2);
	ck_assert(!emu_cap_done(c));
	emu_cap_packet(c, 0, EMU_CAP_TX, &h, &iov, 1, 0);
	/* The count is reached: the file is closed, more goes nowhere. */
	ck_assert(emu_cap_done(c));
	emu_cap_packet(c, 0, EMU_CAP_TX, &h, &iov, 1, 0);
	ck_assert_uint_eq(emu_cap_packets(c), 4);
	ck_assert_str_eq(emu_cap_error(c), "");
	emu_cap_put(c);

	b = slurp(path, &len);
	ck_assert(has(b, len, "emu0/1"));
	ck_assert(has(b, len, "emu1/1"));
	ck_assert(has(b, len, "fault rule lose: dropped"));
	ck_assert(has(b, len, "its note was overwritten"));
	ck_assert(has(b, len, "note 255"));
	free(b);
	remove_dir();
}
END_TEST

static Suite *capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("capture");

	tcase_add_test(tc, test_ipv4_header);
	tcase_add_test(tc, test_ipv6_header);
	tcase_add_test(tc, test_udp_zero_checksum);
	tcase_add_test(tc, test_bad_paths);
	tcase_add_test(tc, test_alloc_failure);
	tcase_add_test(tc, test_pcap_tx_rx);
	tcase_add_test(tc, test_pcapng_notes_count);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(capture_suite());
}
