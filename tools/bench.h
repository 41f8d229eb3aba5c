/* tools/bench.h: what the bench's parts share: the figures it measures,
 * the sizes it measures them at, and the CPU accounting. */
#ifndef EMUVERBS_BENCH_H
#define EMUVERBS_BENCH_H

#include "tools/twohost.h"

#define BENCH_PING	8		/* bytes per round trip */
#define BENCH_BULK	65536		/* bytes per bulk message */
#define BENCH_BULK_WIN	16		/* bulk messages in flight */
#define BENCH_SEG	4096		/* payload per packet: MTU 4096 */
#define BENCH_SCALE_MSG	4096		/* bytes per message at scale */
#define BENCH_SCALE_WIN	4		/* in flight per QP at scale */

/* How much of each: the full run, or --quick for the test suite. */
struct bench_sizes {
	int pings;			/* round trips per figure */
	int bulk_msgs;			/* 64 KiB messages per stream */
	int scale_qps;			/* QPs of the scale figure */
	int scale_msgs;			/* messages at either scale */
};

/* One run of each figure, as host A saw it. */
struct bench_run {
	double rtt_poll_us;		/* median, busy polling */
	double rtt_event_us;		/* median, blocking / channel */
	double rtt_spin_us;		/* median, WRITE spinning on memory */
	double write_mbps, read_mbps;	/* goodput, MB/s (10^6) */
	double cpu_a_s_gb, cpu_b_s_gb;	/* CPU seconds per GB each side */
	double cpu_1qp_us, cpu_nqp_us;	/* CPU per message, both sides */
	int scale_errors;		/* failed completions at scale */
};

/* One run of the libfabric baseline (tools/bench_fabric.c): fi_pingpong
 * on the shm provider, its 8 B round trip (twice its usec/xfer) and its
 * 64 KiB ping-pong bandwidth (its MB/sec, both directions' bytes). */
struct bench_fabric {
	double rtt_us;
	double pp_mbps;
};

/* qsort's comparison of doubles, and the median of v (which it sorts). */
int bench_cmp(const void *x, const void *y);
double bench_median(double *v, int n);

/* This process's user + system CPU seconds so far, all threads. */
double bench_cpu_s(void);
/* A's CPU and B's (sent over) for a phase that began at a and b0. */
int bench_cpu_both(struct th_host *h, double a0, double *a, double *b);

/* The emulated figures' parts (tools/bench_emu.c), for the link bench:
 * an RC QP pair with wr slots, busy-polled (cc NULL) or evented SEND
 * round trips (median us), msgs 64 KiB WRITEs or READs with a window
 * (MB/s, and CPU s/GB each side when cpu_a is not NULL). */
int bench_rc_qp(struct th_host *h, uint32_t wr);
int bench_send_pings(struct th_host *h, int n, struct ibv_comp_channel *cc,
		     double *out);
int bench_bulk(struct th_host *h, enum ibv_wr_opcode op, int msgs,
	       double *mbps, double *cpu_a, double *cpu_b);

/* emuverbs bench --link: the port's pacing and delay against the model,
 * each configuration in a process of its own (tools/bench_link.c);
 * bench_link_one is that process's part. */
int bench_link(const char *self, int runs, int json);
int bench_link_one(void);

/* emuverbs bench --congestion: two QPs into one paced port with ECN, with
 * DCQCN off and on (tools/bench_cc.c); bench_cc_one is one run's pair. */
int bench_cc(const char *self);
int bench_cc_one(void);

/* 0 when fi_pingpong is on PATH, else -1 with the reason in err. */
int bench_fabric_find(char *err, size_t len);
/* One run of the baseline; -1 with the reason in err, never on stderr. */
int bench_fabric(const struct bench_sizes *z, struct bench_fabric *f,
		 char *err, size_t len);

int bench_udp(struct th_host *h, const struct bench_sizes *z,
	      struct bench_run *r);
int bench_emu(struct th_host *h, const struct bench_sizes *z,
	      struct bench_run *r);

#endif
