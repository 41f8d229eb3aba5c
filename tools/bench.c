/* emuverbs-bench: the emulated device against raw UDP on loopback and
 * against libfabric's shm provider, on each wire between two emulated
 * processes of one host (EMUVERBS_WIRE), all measured in the same run,
 * each figure repeated, with minimum and median and their ratios against
 * the targets of the hot path (a table for people, --json for scripts).
 *
 * The device reads its configuration once per process, so each wire's
 * figures come from a pair of processes of its own (a worker, this program
 * again with --worker); raw UDP has a pair too. Workers live for the whole
 * bench and run one round of their figures per request, so that the kinds
 * alternate within a run and a slow moment of the machine lands on all. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bench.h"

#define MAX_RUNS	50
#define MAX_WIRES	3

enum better { LOWER, HIGHER };

/* What a figure is held against in libfabric's baseline, if anything. */
enum fab_fig { FAB_NONE, FAB_RTT, FAB_BW };

/* One line of the table: a figure of the raw run and of the emulated one
 * (or, where raw_emu is set, of two emulated ones), as offsets into a run,
 * and the ratio to meet; some also against libfabric shm. */
struct row {
	const char *name, *unit;
	size_t raw, emu;	/* offsetof(struct bench_run, ...) */
	int raw_emu;		/* 1: raw from the emulated runs too */
	enum better better;
	double target;		/* the ratio to meet */
	enum fab_fig fab;
	double fab_target;
};

#define F(m) offsetof(struct bench_run, m)

/* The targets of same-host traffic (issue 22); the two emulated against
 * emulated ones are the hot path's earlier. */
static const struct row rows[] = {
	{ "8 B RC SEND round trip, busy polling", "us", F(rtt_poll_us),
	  F(rtt_poll_us), 0, LOWER, 0.3, FAB_RTT, 3.0 },
	{ "8 B RC SEND round trip, events", "us", F(rtt_event_us),
	  F(rtt_event_us), 0, LOWER, 0.5, FAB_NONE, 0 },
	{ "8 B WRITE round trip, spinning (vs SEND polling)", "us",
	  F(rtt_poll_us), F(rtt_spin_us), 1, LOWER, 2.0, FAB_NONE, 0 },
	{ "64 KiB WRITE goodput (raw: GSO+GRO)", "MB/s", F(write_mbps),
	  F(write_mbps), 0, HIGHER, 1.2, FAB_BW, 0.8 },
	{ "64 KiB READ goodput (raw: GSO+GRO)", "MB/s", F(read_mbps),
	  F(read_mbps), 0, HIGHER, 1.2, FAB_BW, 0.8 },
	{ "CPU per GB of WRITE, sender", "s", F(cpu_a_s_gb), F(cpu_a_s_gb),
	  0, LOWER, 1.0, FAB_NONE, 0 },
	{ "CPU per GB of WRITE, target", "s", F(cpu_b_s_gb), F(cpu_b_s_gb),
	  0, LOWER, 1.0, FAB_NONE, 0 },
	{ "CPU per 4 KiB WRITE, many QPs (vs 1 QP)", "us", F(cpu_1qp_us),
	  F(cpu_nqp_us), 1, LOWER, 1.5, FAB_NONE, 0 },
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* Everything measured, for the report. */
struct results {
	int runs, nwires, nfab;
	const char *wires[MAX_WIRES];
	struct bench_run raw[MAX_RUNS];
	struct bench_run emu[MAX_WIRES][MAX_RUNS];
	struct bench_fabric fab[MAX_RUNS];
	char fab_err[256];		/* why the baseline stopped, or "" */
	long cpus;			/* online */
	double load[2];			/* 1-minute load, start and end */
};

/* The 1-minute load average: with the CPUs, whether the machine was
 * oversubscribed, which no figure shows by itself (a busy-polling pair
 * that never yields, as fi_pingpong, then measures the scheduler). */
static double loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "re");
	double l = -1;

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

/*
 * The best of n values and their median: the best is the minimum of a
 * time or a cost, the maximum of a goodput. v is sorted.
 */
static void best_med(double *v, int n, enum better b, double *best,
		     double *med)
{
	*med = bench_median(v, n);
	*best = b == LOWER ? v[0] : v[n - 1];
}

static void run_stat(const struct bench_run *runs, int n, size_t off,
		     enum better b, double *best, double *med)
{
	double v[MAX_RUNS];
	int i;

	for (i = 0; i < n; i++)
		v[i] = *(const double *)((const char *)&runs[i] + off);
	best_med(v, n, b, best, med);
}

static void fab_stat(const struct results *s, enum fab_fig f, double *best,
		     double *med)
{
	double v[MAX_RUNS];
	int i;

	for (i = 0; i < s->nfab; i++)
		v[i] = f == FAB_RTT ? s->fab[i].rtt_us : s->fab[i].pp_mbps;
	best_med(v, s->nfab, f == FAB_RTT ? LOWER : HIGHER, best, med);
}

static int met(enum better b, double ratio, double target)
{
	return b == LOWER ? ratio <= target : ratio >= target;
}

static const char *cmp(enum better b)
{
	return b == LOWER ? "<=" : ">=";
}

static int scale_errors(const struct results *s, int w)
{
	int errors = 0, i;

	for (i = 0; i < s->runs; i++)
		if (s->emu[w][i].scale_errors)
			errors = s->emu[w][i].scale_errors;
	return errors;
}

/* s as a JSON string: a reason may quote fi_pingpong's own words. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_fab(const struct results *s, const struct row *w,
		     double em)
{
	double fb, fm, ratio;

	if (w->fab == FAB_NONE) {
		printf("null");
		return;
	}
	if (!s->nfab) {
		printf("{\"target\": \"%s%.1f\", \"best\": null, \"median\": "
		       "null, \"ratio\": null, \"met\": null}",
		       cmp(w->better), w->fab_target);
		return;
	}
	fab_stat(s, w->fab, &fb, &fm);
	ratio = fm > 0 ? em / fm : 0;
	printf("{\"target\": \"%s%.1f\", \"best\": %.3f, \"median\": %.3f, "
	       "\"ratio\": %.3f, \"met\": %s}", cmp(w->better), w->fab_target,
	       fb, fm, ratio,
	       met(w->better, ratio, w->fab_target) ? "true" : "false");
}

/* Row r of wire w: best and median of raw and emulated, and the ratio of
 * the medians (0 without a raw figure). */
static double row_stat(const struct results *s, int w,
		       const struct row *r, double *rb, double *rm, double *eb,
		       double *em)
{
	run_stat(r->raw_emu ? s->emu[w] : s->raw, s->runs, r->raw, r->better,
		 rb, rm);
	run_stat(s->emu[w], s->runs, r->emu, r->better, eb, em);
	return *rm > 0 ? *em / *rm : 0;
}

static void report_json(const struct results *s, const struct bench_sizes *z)
{
	double b, m, fb, fm;
	int w;
	size_t k;

	printf("{\"runs\": %d, \"scale_qps\": %d, \"cpus\": %ld, "
	       "\"load_start\": %.2f, \"load_end\": %.2f, "
	       "\"libfabric_shm\": ", s->runs, z->scale_qps, s->cpus,
	       s->load[0], s->load[1]);
	if (s->nfab) {
		fab_stat(s, FAB_RTT, &b, &m);
		fab_stat(s, FAB_BW, &fb, &fm);
		printf("{\"tool\": \"fi_pingpong -p shm -e rdm\", "
		       "\"runs\": %d, "
		       "\"rtt_8b_us_best\": %.3f, \"rtt_8b_us_median\": %.3f, "
		       "\"rtt_is\": \"2 x usec/xfer\", "
		       "\"pingpong_64k_mbps_best\": %.3f, "
		       "\"pingpong_64k_mbps_median\": %.3f, \"mbps_is\": "
		       "\"MB/sec: both directions' bytes over the time\"}",
		       s->nfab, b, m, fb, fm);
	} else {
		printf("null");
	}
	printf(", \"libfabric_shm_error\": ");
	if (*s->fab_err)
		json_str(s->fab_err);
	else
		printf("null");
	printf(", \"wires\": [");
	for (w = 0; w < s->nwires; w++) {
		printf("%s{\"wire\": \"%s\", \"scale_errors\": %d, "
		       "\"figures\": [", w ? ", " : "", s->wires[w],
		       scale_errors(s, w));
		for (k = 0; k < NROWS; k++) {
			const struct row *r = &rows[k];
			double rb, rm, eb, em;
			double ratio = row_stat(s, w, r, &rb, &rm, &eb, &em);
			printf("%s{\"name\": \"%s\", \"unit\": \"%s\", "
			       "\"raw_best\": %.3f, \"raw_median\": %.3f, "
			       "\"emu_best\": %.3f, \"emu_median\": %.3f, "
			       "\"ratio\": %.3f, \"target\": \"%s%.1f\", "
			       "\"met\": %s, \"vs_libfabric_shm\": ",
			       k ? ", " : "", r->name, r->unit, rb, rm, eb,
			       em, ratio, cmp(r->better), r->target,
			       met(r->better, ratio, r->target) ? "true" :
								   "false");
			json_fab(s, r, em);
			printf("}");
		}
		printf("]}");
	}
	printf("]}\n");
}

#define ROW_FMT "%-50s %8.2f/%8.2f %8.2f/%8.2f %6.2fx %s%.1fx %s\n"

static void report_text(const struct results *s, const struct bench_sizes *z)
{
	double b, m, fb, fm;
	int w;
	size_t k;

	printf("emuverbs bench: the emulated device (RC) on each wire against "
	       "raw UDP on\nloopback and libfabric's shm provider, two "
	       "processes each, %d runs (best /\nmedian); ratios of medians; "
	       "%d QPs at scale\n", s->runs, z->scale_qps);
	printf("machine: %ld CPUs online, load average %.2f at the start, "
	       "%.2f at the end\n", s->cpus, s->load[0], s->load[1]);
	if (s->nfab) {
		fab_stat(s, FAB_RTT, &b, &m);
		fab_stat(s, FAB_BW, &fb, &fm);
		printf("libfabric shm (fi_pingpong -p shm -e rdm, %d runs, "
		       "each the median of three\npairs' means): 8 B round "
		       "trip %.2f/%.2f us (twice its usec/xfer); 64 KiB\n"
		       "ping-pong %.1f/%.1f MB/s (its MB/sec: both directions' "
		       "bytes, one in flight)\n", s->nfab, b, m, fb, fm);
		if (*s->fab_err)
			printf("libfabric shm: %d of %d runs, then: %s\n",
			       s->nfab, s->runs, s->fab_err);
	} else {
		printf("libfabric shm (fi_pingpong -p shm -e rdm): "
		       "unavailable: %s\n", s->fab_err);
	}
	for (w = 0; w < s->nwires; w++) {
		printf("\nwire %-45s %17s %17s %7s %6s %s\n", s->wires[w],
		       "raw", "emulated", "ratio", "target", "met");
		for (k = 0; k < NROWS; k++) {
			const struct row *r = &rows[k];
			double rb, rm, eb, em;
			double ratio = row_stat(s, w, r, &rb, &rm, &eb, &em);
			printf(ROW_FMT, r->name, rb, rm, eb, em, ratio,
			       cmp(r->better), r->target,
			       met(r->better, ratio, r->target) ? "yes" : "no");
			if (r->fab == FAB_NONE)
				continue;
			if (!s->nfab) {
				printf("  against libfabric shm: "
				       "unavailable\n");
				continue;
			}
			fab_stat(s, r->fab, &fb, &fm);
			ratio = fm > 0 ? em / fm : 0;
			printf(ROW_FMT, "  against libfabric shm", fb, fm, eb,
			       em, ratio, cmp(r->better), r->fab_target,
			       met(r->better, ratio, r->fab_target) ? "yes" :
								       "no");
		}
		printf("wire %s: failed completions at scale: %d\n",
		       s->wires[w], scale_errors(s, w));
	}
	printf("units: us, MB/s (10^6), CPU s (user + system, all threads)\n");
}

/* Writes or reads all of n bytes, across interruptions. */
static int xfer_all(int fd, void *p, size_t n, int out)
{
	char *c = p;
	ssize_t k;

	while (n) {
		k = out ? write(fd, c, n) : read(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * emuverbs-bench --worker raw|emu PINGS BULK QPS MSGS: a pair of processes
 * (twohost's A and B) that measure one kind of figure a round at a time:
 * A reads a byte per round on stdin and answers on stdout with the status
 * and the figures; at the end of stdin both exit.
 */
static int worker(int argc, char **argv)
{
	struct bench_sizes z;
	struct bench_run r;
	struct th_host h;
	int emu, out, go, rc = 0;
	char c;

	if (argc != 7)
		return 2;
	emu = !strcmp(argv[2], "emu");
	z = (struct bench_sizes){ .pings = atoi(argv[3]),
				  .bulk_msgs = atoi(argv[4]),
				  .scale_qps = atoi(argv[5]),
				  .scale_msgs = atoi(argv[6]) };
	/* The results' pipe to a descriptor of its own: whatever else
	 * writes to stdout goes to stderr instead, never into them. */
	out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (out < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 || th_fork(&h))
		return 1;
	if (!h.is_a) {
		close(out);
		close(STDIN_FILENO);
	}
	for (;;) {
		if (h.is_a) {
			ssize_t n;

			do
				n = read(STDIN_FILENO, &c, 1);
			while (n < 0 && errno == EINTR);
			go = n == 1;
			rc = th_send_msg(&h, &go, sizeof(go));
		} else {
			rc = th_recv_msg(&h, &go, sizeof(go));
		}
		if (rc || !go)
			break;
		memset(&r, 0, sizeof(r));
		rc = emu ? bench_emu(&h, &z, &r) : bench_udp(&h, &z, &r);
		if (h.is_a && (xfer_all(out, &rc, sizeof(rc), 1) ||
			       xfer_all(out, &r, sizeof(r), 1)))
			rc = -1;
		if (rc)
			break;
	}
	/* B exits inside th_join. */
	return th_join(&h, rc) ? 1 : 0;
}

struct worker {
	pid_t pid;
	int cmd, res;		/* its stdin and stdout, our ends */
};

static int worker_start(struct worker *w, const char *kind,
			const char *wire, const struct bench_sizes *z)
{
	char a[4][16];
	int c[2], r[2];
	pid_t parent = getpid();

	snprintf(a[0], sizeof(a[0]), "%d", z->pings);
	snprintf(a[1], sizeof(a[1]), "%d", z->bulk_msgs);
	snprintf(a[2], sizeof(a[2]), "%d", z->scale_qps);
	snprintf(a[3], sizeof(a[3]), "%d", z->scale_msgs);
	if (pipe2(c, O_CLOEXEC))
		return -1;
	if (pipe2(r, O_CLOEXEC)) {
		close(c[0]);
		close(c[1]);
		return -1;
	}
	w->pid = fork();
	if (!w->pid) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(c[0], STDIN_FILENO) < 0 ||
		    dup2(r[1], STDOUT_FILENO) < 0)
			_exit(1);
		/* The wire between the pair's two processes; read once,
		 * when the device is first listed. */
		if (wire && setenv("EMUVERBS_WIRE", wire, 1))
			_exit(1);
		execl("/proc/self/exe", "emuverbs-bench", "--worker", kind,
		      a[0], a[1], a[2], a[3], (char *)NULL);
		perror("emuverbs bench: exec");
		_exit(127);
	}
	close(c[0]);
	close(r[1]);
	w->cmd = c[1];
	w->res = r[0];
	if (w->pid < 0) {
		close(w->cmd);
		close(w->res);
		return -1;
	}
	return 0;
}

/* One round of the worker's figures into r. */
static int worker_run(struct worker *w, struct bench_run *r)
{
	char c = 'r';
	int rc;

	if (xfer_all(w->cmd, &c, 1, 1) ||
	    xfer_all(w->res, &rc, sizeof(rc), 0) ||
	    xfer_all(w->res, r, sizeof(*r), 0))
		return -1;
	return rc ? -1 : 0;
}

/* Ends the worker: its exit status is 0 unless it failed. */
static int worker_stop(struct worker *w)
{
	int st;

	if (w->pid <= 0)
		return 0;
	close(w->cmd);
	close(w->res);
	if (waitpid(w->pid, &st, 0) != w->pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return -1;
	return 0;
}

/* --wire udp,shm: each a wire of its own, at most MAX_WIRES. */
static int parse_wires(char *list, struct results *s)
{
	char *t, *save = NULL;

	s->nwires = 0;
	for (t = strtok_r(list, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "udp") && strcmp(t, "shm") && strcmp(t, "auto"))
			return -1;
		if (s->nwires == MAX_WIRES)
			return -1;
		s->wires[s->nwires++] = t;
	}
	return s->nwires ? 0 : -1;
}

static int usage(void)
{
	fprintf(stderr, "usage: emuverbs bench [--quick] [--json] "
			"[--runs N] [--qps N] [--wire LIST]\n"
			"       emuverbs bench --link [--runs N] [--json]\n"
			"       emuverbs bench --congestion\n"
			"LIST: wires among udp, shm, auto, comma-separated "
			"(udp,shm)\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct bench_sizes z = { .pings = 2000, .bulk_msgs = 1000,
				 .scale_qps = 1000, .scale_msgs = 16000 };
	static struct results s;
	static char wires_default[] = "udp,shm";
	struct worker raw = { 0 }, emu[MAX_WIRES] = { { 0 } };
	int runs = 5, json = 0, link = 0, fab, i, w, rc = 0;
	char *wires = wires_default;

	/* One configuration of the link bench, in a process of its own. */
	if (argc == 2 && !strcmp(argv[1], "--link-one"))
		return bench_link_one();
	if (argc == 2 && !strcmp(argv[1], "--congestion-one"))
		return bench_cc_one();
	if (argc == 2 && !strcmp(argv[1], "--congestion"))
		return bench_cc("/proc/self/exe");
	if (argc > 1 && !strcmp(argv[1], "--worker"))
		return worker(argc, argv);

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
		} else if (!strcmp(argv[i], "--wire") && i + 1 < argc) {
			wires = argv[++i];
		} else {
			return usage();
		}
	}
	if (runs < 1 || runs > MAX_RUNS || z.scale_qps < 1 ||
	    z.scale_qps > 4096 || parse_wires(wires, &s))
		return usage();
	if (link)
		return bench_link("/proc/self/exe", runs, json);
	if (z.scale_msgs < z.scale_qps * 8)
		z.scale_msgs = z.scale_qps * 8;
	s.runs = runs;
	s.cpus = sysconf(_SC_NPROCESSORS_ONLN);
	s.load[0] = loadavg();
	/* A worker that dies must fail its round, not kill the bench. */
	signal(SIGPIPE, SIG_IGN);
	rc = worker_start(&raw, "raw", NULL, &z);
	for (w = 0; w < s.nwires && !rc; w++)
		rc = worker_start(&emu[w], "emu", s.wires[w], &z);
	if (rc)
		perror("emuverbs bench: a worker");
	fab = !bench_fabric_find(s.fab_err, sizeof(s.fab_err));
	/* Raw, each wire and libfabric alternate within each run. */
	for (i = 0; i < runs && !rc; i++) {
		rc = worker_run(&raw, &s.raw[i]);
		for (w = 0; w < s.nwires && !rc; w++)
			rc = worker_run(&emu[w], &s.emu[w][i]);
		/* The baseline's trouble is reported, never fatal. */
		if (!rc && fab) {
			if (bench_fabric(&z, &s.fab[s.nfab], s.fab_err,
					 sizeof(s.fab_err)))
				fab = 0;
			else
				s.nfab++;
		}
	}
	if (worker_stop(&raw))
		rc = -1;
	for (w = 0; w < s.nwires; w++)
		if (worker_stop(&emu[w]))
			rc = -1;
	if (rc) {
		printf("bench FAILED\n");
		return 1;
	}
	s.load[1] = loadavg();
	if (json)
		report_json(&s, &z);
	else
		report_text(&s, &z);
	return 0;
}
