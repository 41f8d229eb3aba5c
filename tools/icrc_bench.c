/* icrc-bench: throughput of the ICRC on full-MTU RoCEv2 packets, zlib's
 * CRC-32 against isa-l's (when configure found it) and the receiver's whole
 * check as built. A measuring tool, not a test: `make` builds it, nothing
 * runs it; times depend on the machine.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#endif

#include "net/hdr.h"
#include "net/icrc.h"

#define PAYLOAD_DEFAULT	4096
#define PAYLOAD_MAX	65536
#define ROUNDS		7	/* best of, against the other work's noise */

static uint8_t pkt[WIRE_BTH_LEN + PAYLOAD_MAX + ICRC_LEN];
static size_t dgram_len;	/* BTH, payload, ICRC */
static volatile uint32_t sink;	/* keeps the loops from being optimised out */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t run_zlib(long n)
{
	uint32_t acc = 0;

	while (n--)
		acc ^= (uint32_t)crc32_z(0, pkt, dgram_len - ICRC_LEN);
	return acc;
}

#ifdef HAVE_ISAL
static uint32_t run_isal(long n)
{
	uint32_t acc = 0;

	while (n--)
		acc ^= crc32_gzip_refl(0, pkt, dgram_len - ICRC_LEN);
	return acc;
}
#endif

/* What the receive path does per packet: rebuild the IPv4 header from the
 * addresses and ports, then the ICRC over it all, with the library the
 * build picked. The packet carries a correct ICRC, so no solve runs. */
static struct in6_addr src, dst;

static uint32_t run_check(long n)
{
	uint32_t acc = 0;

	while (n--)
		acc += icrc_check_rebuilt(&src, &dst, 49152, WIRE_ROCE_UDP_PORT,
					  pkt, dgram_len, NULL, NULL);
	return acc;
}

/* GB/s of payload, best of ROUNDS rounds of about a tenth of a second. */
static double measure(uint32_t (*fn)(long))
{
	double bytes = (double)(dgram_len - WIRE_BTH_LEN - ICRC_LEN);
	double best = 0, t0, t;
	long n = 1000;
	int r;

	/* Size the rounds first, so each is long next to the clock. */
	for (;;) {
		t0 = now_s();
		sink = fn(n);
		t = now_s() - t0;
		if (t > 0.05)
			break;
		n *= 2;
	}
	n = (long)((double)n * 0.1 / t) + 1;
	for (r = 0; r < ROUNDS; r++) {
		t0 = now_s();
		sink = fn(n);
		t = now_s() - t0;
		if ((double)n * bytes / t / 1e9 > best)
			best = (double)n * bytes / t / 1e9;
	}
	return best;
}

int main(int argc, char **argv)
{
	uint8_t ph[ICRC_PSEUDO_MAX];
	struct in_addr a, b;
	size_t payload = PAYLOAD_DEFAULT, i, n;
	char label[64];
	double z, c;

	if (argc > 1) {
		char *end;

		payload = strtoul(argv[1], &end, 0);
		if (argc > 2 || *end || !payload || payload > PAYLOAD_MAX) {
			fprintf(stderr, "usage: icrc-bench [PAYLOAD_BYTES]\n"
				"  (1..%d, default %d: one MTU-4096 packet)\n",
				PAYLOAD_MAX, PAYLOAD_DEFAULT);
			return 2;
		}
	}
	dgram_len = WIRE_BTH_LEN + payload + ICRC_LEN;
	srand(1);
	for (i = 0; i < dgram_len; i++)
		pkt[i] = (uint8_t)rand();

	/* A correct ICRC over the header the receiver will rebuild. */
	inet_pton(AF_INET, "127.0.0.1", &a);
	inet_pton(AF_INET, "127.0.0.2", &b);
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &src);
	inet_pton(AF_INET6, "::ffff:127.0.0.2", &dst);
	n = icrc_pseudo_v4(ph, &a, &b, 49152, WIRE_ROCE_UDP_PORT, dgram_len);
	icrc_put(pkt + dgram_len - ICRC_LEN,
		 icrc_compute(ph, n, ph + n, pkt, dgram_len - ICRC_LEN));
	if (!icrc_check_rebuilt(&src, &dst, 49152, WIRE_ROCE_UDP_PORT, pkt,
				dgram_len, NULL, NULL)) {
		fprintf(stderr, "icrc-bench: the packet does not check\n");
		return 1;
	}

	printf("ICRC throughput, %zu-byte payload (%zu-byte datagram), "
	       "GB/s of payload, best of %d\n", payload, dgram_len, ROUNDS);
	z = measure(run_zlib);
	printf("  %-38s %6.2f\n", "zlib crc32_z", z);
#ifdef HAVE_ISAL
	{
		double q = measure(run_isal);

		printf("  %-38s %6.2f  (%.1fx zlib)\n",
		       "isa-l crc32_gzip_refl", q, q / z);
	}
#else
	printf("  %-38s %6s\n", "isa-l crc32_gzip_refl", "n/a");
#endif
	c = measure(run_check);
	snprintf(label, sizeof(label), "icrc_check_rebuilt, built with %s",
		 icrc_crc32_impl());
	printf("  %-38s %6.2f\n", label, c);
	return 0;
}
