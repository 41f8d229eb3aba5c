/* emuverbs-bench: the emulated device against raw UDP on loopback, both
 * measured between the same two processes in the same run, each figure
 * repeated, with minimum and median and their ratios against the targets
 * of the hot path (a table for people, --json for scripts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench.h"

#define MAX_RUNS 50

enum better { LOWER, HIGHER };

/* One line of the table: a figure of the raw run and of the emulated one
 * (or, where raw is NULL, of two emulated ones), as offsets into a run. */
struct row {
	const char *name, *unit;
	size_t raw, emu;	/* offsetof(struct bench_run, ...) */
	int raw_emu;		/* 1: raw from the emulated runs too */
	enum better better;
	double target;		/* the ratio to meet */
};

#define F(m) offsetof(struct bench_run, m)

static const struct row rows[] = {
	{ "8 B RC SEND round trip, busy polling", "us", F(rtt_poll_us),
	  F(rtt_poll_us), 0, LOWER, 1.3 },
	{ "8 B RC SEND round trip, events", "us", F(rtt_event_us),
	  F(rtt_event_us), 0, LOWER, 1.3 },
	{ "8 B WRITE round trip, spinning (vs SEND polling)", "us",
	  F(rtt_poll_us), F(rtt_spin_us), 1, LOWER, 2.0 },
	{ "64 KiB WRITE goodput (raw: GSO+GRO)", "MB/s", F(write_mbps),
	  F(write_mbps), 0, HIGHER, 0.7 },
	{ "64 KiB READ goodput (raw: GSO+GRO)", "MB/s", F(read_mbps),
	  F(read_mbps), 0, HIGHER, 0.6 },
	{ "CPU per GB of WRITE, sender", "s", F(cpu_a_s_gb), F(cpu_a_s_gb),
	  0, LOWER, 1.5 },
	{ "CPU per GB of WRITE, target", "s", F(cpu_b_s_gb), F(cpu_b_s_gb),
	  0, LOWER, 1.5 },
	{ "CPU per 4 KiB WRITE, many QPs (vs 1 QP)", "us", F(cpu_1qp_us),
	  F(cpu_nqp_us), 1, LOWER, 1.5 },
};

static double get(const struct bench_run *r, size_t off)
{
	return *(const double *)((const char *)r + off);
}

/*
 * The best run and the median of one figure over n runs: the best is the
 * minimum of a time or a cost, the maximum of a goodput.
 */
static void best_med(const struct bench_run *runs, int n, size_t off,
		     enum better b, double *best, double *med)
{
	double v[MAX_RUNS];
	int i;

	for (i = 0; i < n; i++)
		v[i] = get(&runs[i], off);
	qsort(v, (size_t)n, sizeof(*v), bench_cmp);
	*best = b == LOWER ? v[0] : v[n - 1];
	*med = v[n / 2];
}

static void report(const struct bench_run *raw, const struct bench_run *emu,
		   int n, const struct bench_sizes *z, int json)
{
	int errors = 0, i;
	size_t k;

	for (i = 0; i < n; i++)
		if (emu[i].scale_errors)
			errors = emu[i].scale_errors;
	if (json)
		printf("{\"runs\": %d, \"scale_qps\": %d, \"scale_errors\": "
		       "%d, \"figures\": [", n, z->scale_qps, errors);
	else
		printf("emuverbs bench: raw UDP against the emulated device "
		       "(RC), two processes on\nloopback, %d runs each "
		       "(best / median); ratios of medians; %d QPs at scale\n"
		       "%-50s %17s %17s %7s %7s\n", n, z->scale_qps,
		       "", "raw", "emulated", "ratio", "target");
	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		const struct row *w = &rows[k];
		const struct bench_run *rr = w->raw_emu ? emu : raw;
		double rb, rm, eb, em, ratio;

		best_med(rr, n, w->raw, w->better, &rb, &rm);
		best_med(emu, n, w->emu, w->better, &eb, &em);
		ratio = rm > 0 ? em / rm : 0;
		if (json) {
			printf("%s{\"name\": \"%s\", \"unit\": \"%s\", "
			       "\"raw_best\": %.3f, \"raw_median\": %.3f, "
			       "\"emu_best\": %.3f, \"emu_median\": %.3f, "
			       "\"ratio\": %.3f, \"target\": \"%s%.1f\", "
			       "\"met\": %s}", k ? ", " : "", w->name,
			       w->unit, rb, rm, eb, em, ratio,
			       w->better == LOWER ? "<=" : ">=", w->target,
			       (w->better == LOWER ? ratio <= w->target :
						     ratio >= w->target) ?
				       "true" : "false");
			continue;
		}
		printf("%-50s %7.1f/%7.1f %-1s %7.1f/%7.1f %6.2fx %s%.1fx\n",
		       w->name, rb, rm, "", eb, em, ratio,
		       w->better == LOWER ? "<=" : ">=", w->target);
	}
	if (json)
		printf("]}\n");
	else
		printf("units: us, MB/s, CPU s (user + system, all threads); "
		       "failed completions at scale: %d\n", errors);
}

static int usage(void)
{
	fprintf(stderr, "usage: emuverbs bench [--quick] [--json] "
			"[--runs N] [--qps N] [--link]\n"
			"       emuverbs bench --congestion\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct bench_sizes z = { .pings = 2000, .bulk_msgs = 1000,
				 .scale_qps = 1000, .scale_msgs = 16000 };
	static struct bench_run raw[MAX_RUNS], emu[MAX_RUNS];
	int runs = 5, json = 0, link = 0, i, rc = 0;
	struct th_host h;

	/* One configuration of the link bench, in a process of its own. */
	if (argc == 2 && !strcmp(argv[1], "--link-one"))
		return bench_link_one();
	if (argc == 2 && !strcmp(argv[1], "--congestion-one"))
		return bench_cc_one();
	if (argc == 2 && !strcmp(argv[1], "--congestion"))
		return bench_cc("/proc/self/exe");

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			z = (struct bench_sizes){ .pings = 200,
						  .bulk_msgs = 64,
						  .scale_qps = 64,
						  .scale_msgs = 1024 };
			runs = 3;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--link")) {
			link = 1;
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			runs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--qps") && i + 1 < argc) {
			z.scale_qps = atoi(argv[++i]);
		} else {
			return usage();
		}
	}
	if (runs < 1 || runs > MAX_RUNS || z.scale_qps < 1 ||
	    z.scale_qps > 4096)
		return usage();
	if (link)
		return bench_link("/proc/self/exe", runs, json);
	if (z.scale_msgs < z.scale_qps * 8)
		z.scale_msgs = z.scale_qps * 8;
	if (th_fork(&h))
		return 1;
	/* Raw and emulated alternate, so that a slow moment of the machine
	 * lands on both rather than on one. */
	for (i = 0; i < runs && !rc; i++) {
		rc = bench_udp(&h, &z, &raw[i]);
		if (!rc)
			rc = bench_emu(&h, &z, &emu[i]);
	}
	/* B exits inside th_join; A goes on with both results. */
	rc = th_join(&h, rc);
	if (rc) {
		printf("bench FAILED\n");
		return 1;
	}
	report(raw, emu, runs, &z, json);
	return 0;
}
