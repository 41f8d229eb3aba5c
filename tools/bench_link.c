/* tools/bench_link.c: emuverbs bench --link, the link model against what it
 * models: 64 KiB WRITE goodput at port rates the host can and cannot carry
 * against the rate ibv_query_port_speed reports, and the SEND round trip
 * with a one-way latency against the same without. Each configuration runs
 * in a process of its own, since the device reads its configuration once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bench.h"

#define MAX_RUNS	20
#define LATENCY_US	50
/* Bytes a 64 KiB WRITE at MTU 4096 puts on the wire over IPv4: 16 packets
 * of BTH, payload and ICRC (the first with a RETH), each with IPv4 and
 * UDP headers and an Ethernet frame's header, FCS, preamble and gap, as
 * emu/device/link.c charges them. */
#define WRITE_WIRE	(BENCH_BULK + 16 * (12 + 4 + 28 + 38) + 16)

struct link_case {
	const char *name, *speed, *width;
	int latency_us;
};

static const struct link_case cases[] = {
	{ "4x EDR (unreachable: the host's own rate)", "EDR", "4x", 0 },
	{ "1x SDR", "SDR", "1x", 0 },
	{ "1x DDR", "DDR", "1x", 0 },
	{ "1x QDR", "QDR", "1x", 0 },
	{ "1x FDR (14 Gb/s)", "FDR", "1x", 0 },
	{ "4x EDR, one-way latency 50 us", "EDR", "4x", LATENCY_US },
};

#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

struct link_res {
	double mbps, rtt_us, model_mbps;
};

int bench_link_one(void)
{
	struct th_host h;
	struct link_res r = { 0 };
	uint64_t speed = 0;
	int msgs, rc;

	if (th_fork(&h))
		return 1;
	rc = th_open(&h, (size_t)BENCH_BULK * BENCH_BULK_WIN,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ, 256) ||
	     bench_rc_qp(&h, 64);
	if (!rc && ibv_query_port_speed(h.ctx, 1, &speed))
		rc = th_fail(&h, "ibv_query_port_speed: %s", strerror(errno));
	/* About half a second of traffic at the modelled rate. */
	r.model_mbps = (double)speed * 100 / 8 * BENCH_BULK / WRITE_WIRE;
	msgs = (int)(r.model_mbps * 0.5e6 / BENCH_BULK);
	if (msgs < 64)
		msgs = 64;
	if (msgs > 4000)
		msgs = 4000;
	/* A warm-up first, as perftest's bandwidth tests do: the first
	 * tens of milliseconds of a process's traffic run slow (measured
	 * with a capture: gaps of 1 to 3 ms within its first 20 ms), and
	 * what is measured here is the pacer, not the start-up. */
	rc = rc || bench_bulk(&h, IBV_WR_RDMA_WRITE, msgs / 4, &r.mbps, NULL,
			      NULL) ||
	     bench_bulk(&h, IBV_WR_RDMA_WRITE, msgs, &r.mbps, NULL,
			NULL) ||
	     bench_send_pings(&h, 300, NULL, &r.rtt_us);
	if (!rc) {
		th_destroy_qp(&h);
		th_close(&h);
	}
	rc = th_join(&h, rc);
	if (!rc)
		printf("%.3f %.3f %.3f\n", r.mbps, r.rtt_us, r.model_mbps);
	return rc ? 1 : 0;
}

/* Run self --link-one under c's environment; its figures into r. */
static int run_case(const char *self, const struct link_case *c,
		    struct link_res *r)
{
	char lat[16], line[128];
	int p[2], st, n = 0;
	pid_t pid;
	FILE *f;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		snprintf(lat, sizeof(lat), "%d", c->latency_us);
		setenv("EMUVERBS_SPEED", c->speed, 1);
		setenv("EMUVERBS_WIDTH", c->width, 1);
		setenv("EMUVERBS_LATENCY_US", lat, 1);
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execl(self, self, "--link-one", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	if (f && fgets(line, sizeof(line), f))
		n = sscanf(line, "%lf %lf %lf", &r->mbps, &r->rtt_us,
			   &r->model_mbps);
	if (f)
		fclose(f);
	else
		close(p[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) || n != 3) {
		fprintf(stderr, "emuverbs bench --link: %s failed\n", c->name);
		return -1;
	}
	return 0;
}

static void best_med(struct link_res *v, int n, size_t off, int lower,
		     double *best, double *med)
{
	double x[MAX_RUNS];
	int i;

	for (i = 0; i < n; i++)
		x[i] = *(double *)((char *)&v[i] + off);
	*med = bench_median(x, n);
	*best = lower ? x[0] : x[n - 1];
}

int bench_link(const char *self, int runs, int json)
{
	static struct link_res res[NCASES][MAX_RUNS];
	double host_b, host_m, b, m, e, base_b, base_m;
	int i, k, met = 1;

	if (runs > MAX_RUNS)
		runs = MAX_RUNS;
	/* Cases alternate within a run, so a slow moment lands on all. */
	for (i = 0; i < runs; i++)
		for (k = 0; k < NCASES; k++)
			if (run_case(self, &cases[k], &res[k][i]))
				return 1;
	best_med(res[0], runs, offsetof(struct link_res, mbps), 0, &host_b,
		 &host_m);
	if (json)
		printf("{\"runs\": %d, \"rates\": [", runs);
	else
		printf("emuverbs bench --link: 64 KiB WRITE goodput against "
		       "the port's modelled rate\n(what ibv_query_port_speed "
		       "reports, less the headers on the wire), %d runs\n"
		       "(best / median); within 3%% where the host can "
		       "carry it\n%-42s %10s %17s %8s\n", runs, "port",
		       "model", "goodput", "error");
	for (k = 0; k < NCASES && !cases[k].latency_us; k++) {
		double model = res[k][0].model_mbps;
		int limited = k == 0 || model > 0.85 * host_m;

		best_med(res[k], runs, offsetof(struct link_res, mbps), 0,
			 &b, &m);
		e = (m - model) / model * 100;
		if (!limited && (e > 3 || e < -3))
			met = 0;
		if (json) {
			printf("%s{\"port\": \"%s %s\", \"model_mbps\": %.1f, "
			       "\"best_mbps\": %.1f, \"median_mbps\": %.1f, "
			       "\"error_pct\": %.2f, \"host_limited\": %s}",
			       k ? ", " : "", cases[k].width, cases[k].speed,
			       model, b, m, e, limited ? "true" : "false");
			continue;
		}
		if (limited)
			printf("%-42s %10.1f %7.1f/%7.1f   host-limited (it "
			       "carries %.0f)\n", cases[k].name, model, b, m,
			       host_m);
		else
			printf("%-42s %10.1f %7.1f/%7.1f %+7.2f%%\n",
			       cases[k].name, model, b, m, e);
	}
	best_med(res[0], runs, offsetof(struct link_res, rtt_us), 1, &base_b,
		 &base_m);
	best_med(res[NCASES - 1], runs, offsetof(struct link_res, rtt_us), 1,
		 &b, &m);
	if (json)
		printf("], \"rtt_us\": %.2f, \"rtt_latency_us\": %.2f, "
		       "\"latency_us\": %d, \"rtt_growth_us\": %.2f, "
		       "\"met\": %s}\n", base_m, m, LATENCY_US, m - base_m,
		       met ? "true" : "false");
	else
		printf("8 B SEND round trip, busy polling: %.1f/%.1f us; with "
		       "a one-way latency of %d us\n%.1f/%.1f us: %+.1f us "
		       "(twice the latency is %d)\nevery rate the host carries "
		       "within 3%%: %s\nunits: MB/s (10^6), us\n",
		       base_b, base_m, LATENCY_US, b, m, m - base_m,
		       2 * LATENCY_US, met ? "yes" : "no");
	/* Figures are for reading, as the main table's are: not an exit
	 * status (the JSON's "met" says it for scripts). */
	return 0;
}
