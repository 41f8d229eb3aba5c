/* emuverbs-plot: `emuverbs plot TRACE... -o FILE.svg`. It turns event
 * traces (JSON lines, doc/observability.md) into gnuplot data files and a
 * script, and has gnuplot draw them: each QP's throughput over time from
 * its counter samples, with retransmissions, timeouts, NAKs and fault
 * actions marked along the top and port events as vertical lines. gnuplot
 * does all the drawing. Exit status 0, 1 on failure, 2 for usage. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/plot.h"

/* A series below this share of the highest rate is left out: the ACKs a
 * data stream's receiver sends back would only crowd the legend. */
#define MINOR_SHARE	0.02
#define SERIES_MAX	64
#define MARKS		8

struct sample {
	double t, tx, rx;		/* cumulative bytes */
};

struct series {
	int file, pid;
	char dev[32];
	unsigned int qpn;
	char type[12];
	struct sample *s;
	size_t n, cap;
	double peak_tx, peak_rx;
};

/* Marked events: each kind its own data file and point style. */
enum mark {
	M_RETX, M_TIMEOUT, M_NAK, M_DROP, M_DUP, M_DELAY, M_CORRUPT, M_OTHER,
};

static const struct {
	const char *file, *title, *color;
	int pt;
	double y;			/* on y2, from 0 to 1 */
} mark_style[MARKS] = {
	[M_RETX] = { "retx", "retransmission", "#d62728", 2, 0.98 },
	[M_TIMEOUT] = { "timeout", "timeout", "#9467bd", 6, 0.95 },
	[M_NAK] = { "nak", "NAK", "#8c564b", 8, 0.92 },
	[M_DROP] = { "f_drop", "fault: drop", "#ff7f0e", 1, 0.89 },
	[M_DUP] = { "f_dup", "fault: duplicate", "#17becf", 4, 0.86 },
	[M_DELAY] = { "f_delay", "fault: delay/reorder", "#bcbd22", 10,
		      0.83 },
	[M_CORRUPT] = { "f_corrupt", "fault: corrupt/truncate", "#e377c2", 12,
			0.80 },
	[M_OTHER] = { "f_other", "fault: other", "#7f7f7f", 14, 0.77 },
};

/* A vertical line: a port's state or link change, an event rule. */
struct vline {
	double t;
	char label[64];
};

static struct series series[SERIES_MAX];
static unsigned int nseries;
/* Each kind's times: written at most one point per 1/BINS of the run,
 * so that a run with thousands of drops stays a small SVG. */
#define BINS		500
static double *marks[MARKS];
static size_t nmark[MARKS], capmark[MARKS];
static double t_end;
static struct vline *vlines;
static size_t nvlines, capvlines;
static double t0 = -1;
static unsigned long malformed;
static char dir[4096];

static void usage(FILE *f)
{
	fputs("usage: emuverbs plot TRACE... -o FILE.svg [--title TEXT] "
	      "[--keep DIR]\n"
	      "  TRACE        an event trace (EMUVERBS_TRACE, or emuverbs "
	      "trace --events)\n"
	      "  -o FILE.svg  the plot, drawn by gnuplot\n"
	      "  --keep DIR   leave gnuplot's data and script in DIR\n", f);
}

static struct series *series_of(int file, int pid, const char *dev,
				unsigned int qpn, const char *type)
{
	unsigned int i;

	for (i = 0; i < nseries; i++)
		if (series[i].file == file && series[i].qpn == qpn &&
		    !strcmp(series[i].dev, dev))
			return &series[i];
	if (nseries == SERIES_MAX)
		return NULL;
	series[nseries] = (struct series){ .file = file, .pid = pid,
					   .qpn = qpn };
	snprintf(series[nseries].dev, sizeof(series[nseries].dev), "%s", dev);
	snprintf(series[nseries].type, sizeof(series[nseries].type), "%s",
		 type);
	return &series[nseries++];
}

static int add_sample(struct series *s, double t, double tx, double rx)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct sample *p = realloc(s->s, cap * sizeof(*p));

		if (!p)
			return -1;
		s->s = p;
		s->cap = cap;
	}
	s->s[s->n++] = (struct sample){ t, tx, rx };
	return 0;
}

static int add_vline(double t, const char *label)
{
	if (nvlines == capvlines) {
		size_t cap = capvlines ? capvlines * 2 : 16;
		struct vline *p = realloc(vlines, cap * sizeof(*p));

		if (!p)
			return -1;
		vlines = p;
		capvlines = cap;
	}
	vlines[nvlines].t = t;
	snprintf(vlines[nvlines].label, sizeof(vlines[nvlines].label), "%s",
		 label);
	nvlines++;
	return 0;
}

static int mark(enum mark m, double t)
{
	if (nmark[m] == capmark[m]) {
		size_t cap = capmark[m] ? capmark[m] * 2 : 256;
		double *p = realloc(marks[m], cap * sizeof(*p));

		if (!p)
			return -1;
		marks[m] = p;
		capmark[m] = cap;
	}
	marks[m][nmark[m]++] = t;
	return 0;
}

/* Kind m's marks, one per bin at most, relative to t0. */
static int write_marks(enum mark m, const char *path)
{
	double bin = (t_end - t0) / BINS, last = -1;
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -1;
	for (i = 0; i < nmark[m]; i++) {
		double t = marks[m][i] - t0;

		if (last >= 0 && bin > 0 && t >= last && t - last < bin)
			continue;
		fprintf(f, "%.6f\n", t);
		last = t;
	}
	return fclose(f) ? -1 : 0;
}

static enum mark fault_mark(const char *action)
{
	if (!strcmp(action, "drop"))
		return M_DROP;
	if (!strcmp(action, "duplicate"))
		return M_DUP;
	if (!strcmp(action, "delay") || !strcmp(action, "reorder"))
		return M_DELAY;
	if (!strcmp(action, "corrupt") || !strcmp(action, "truncate"))
		return M_CORRUPT;
	return M_OTHER;
}

/* Several traces: a port's or rule's label says whose (its PID). */
static bool several;

/* One event of trace file `file` (its process pid). */
static int take(const struct plot_line *l, int file, int *pid)
{
	const char *ev = plot_str(l, "ev", "");
	double t = plot_num(l, "ts", -1);
	char label[64], who[16] = "";

	if (t < 0)
		return 0;
	if (!strcmp(ev, "trace_start")) {
		*pid = (int)plot_num(l, "pid", 0);
	} else if (!strcmp(ev, "sample")) {
		unsigned int qpn = (unsigned int)plot_num(l, "qpn", 0);
		struct series *s = series_of(file, *pid,
					     plot_str(l, "dev", "?"), qpn,
					     plot_str(l, "type", "?"));

		if (s && add_sample(s, t, plot_num(l, "tx_bytes", 0),
				    plot_num(l, "rx_bytes", 0)))
			return -1;
	} else if (!strcmp(ev, "port")) {
		const char *what = plot_str(l, "what", "");

		if (several)
			snprintf(who, sizeof(who), "%d ", *pid);

		if (!strcmp(what, "state"))
			snprintf(label, sizeof(label), "%s%s/%g %s", who,
				 plot_str(l, "dev", "?"),
				 plot_num(l, "port", 0),
				 !strcmp(plot_str(l, "state", ""), "ACTIVE") ?
				 "up" : "down");
		else if (!strcmp(what, "link"))
			snprintf(label, sizeof(label), "%s%s/%g %s %s", who,
				 plot_str(l, "dev", "?"),
				 plot_num(l, "port", 0),
				 plot_str(l, "speed", ""),
				 plot_str(l, "width", ""));
		else
			snprintf(label, sizeof(label), "%s%s/%g GID change",
				 who, plot_str(l, "dev", "?"),
				 plot_num(l, "port", 0));
		if (add_vline(t, label))
			return -1;
	} else if (!strcmp(ev, "retransmit")) {
		return mark(M_RETX, t);
	} else if (!strcmp(ev, "timeout")) {
		return mark(M_TIMEOUT, t);
	} else if (!strcmp(ev, "nak")) {
		return mark(M_NAK, t);
	} else if (!strcmp(ev, "fault")) {
		const char *action = plot_str(l, "action", "?");

		if (plot_str(l, "dir", NULL)) {
			return mark(fault_mark(action), t);
		} else if (strncmp(action, "port_", 5)) {
			/* Port rules show as the port's own events. */
			snprintf(label, sizeof(label), "rule %s: %s",
				 plot_str(l, "rule", "?"), action);
			if (add_vline(t, label))
				return -1;
		}
	}
	return 0;
}

/* Read every line of each file: twice, the first time for t0 only, so
 * that marks are written relative to the earliest event of all. */
static int read_all(char **files, int nfiles, bool first)
{
	static struct plot_line l;
	char buf[PLOT_LINE];
	int i, pid;

	for (i = 0; i < nfiles; i++) {
		FILE *f = fopen(files[i], "r");

		if (!f) {
			fprintf(stderr, "emuverbs plot: %s: %s\n", files[i],
				strerror(errno));
			return -1;
		}
		pid = 0;
		while (fgets(buf, sizeof(buf), f)) {
			if (plot_parse(buf, &l)) {
				malformed += first;
				continue;
			}
			if (first) {
				double t = plot_num(&l, "ts", -1);

				if (t >= 0 && (t0 < 0 || t < t0))
					t0 = t;
				if (t > t_end)
					t_end = t;
				continue;
			}
			if (take(&l, i, &pid)) {
				fclose(f);
				fprintf(stderr, "emuverbs plot: out of "
					"memory\n");
				return -1;
			}
		}
		fclose(f);
	}
	return 0;
}

/* A series' rates: MB/s (10^6 bytes) between consecutive samples, at the
 * later one's time, with the first sample at 0. */
static int write_series(struct series *s, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -1;
	for (i = 0; i < s->n; i++) {
		double tx = 0, rx = 0, dt;

		if (i) {
			dt = s->s[i].t - s->s[i - 1].t;
			if (dt <= 0)
				continue;
			tx = (s->s[i].tx - s->s[i - 1].tx) / dt / 1e6;
			rx = (s->s[i].rx - s->s[i - 1].rx) / dt / 1e6;
		}
		if (tx > s->peak_tx)
			s->peak_tx = tx;
		if (rx > s->peak_rx)
			s->peak_rx = rx;
		fprintf(f, "%.6f %.3f %.3f\n", s->s[i].t - t0, tx, rx);
	}
	return fclose(f) ? -1 : 0;
}

/* s in single quotes for gnuplot ('' stands for one). */
static void gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static int write_script(const char *path, const char *out, const char *title)
{
	FILE *f = fopen(path, "w");
	double peak = 0;
	unsigned int i, k, plots = 0;
	char p[4200];

	if (!f)
		return -1;
	for (i = 0; i < nseries; i++) {
		if (series[i].peak_tx > peak)
			peak = series[i].peak_tx;
		if (series[i].peak_rx > peak)
			peak = series[i].peak_rx;
	}
	fputs("set terminal svg size 1000,600 dynamic enhanced "
	      "font 'sans,11' background rgb 'white'\nset output ", f);
	gp_quote(f, out);
	fputs("\nset title ", f);
	gp_quote(f, title);
	fputs(" noenhanced\n"
	      "set xlabel 'time (s)'\nset ylabel 'throughput (MB/s)'\n"
	      "set grid\nset key outside below center horizontal "
	      "maxcols 3 noenhanced\n"
	      "set xrange [0:*]\nset y2range [0:1]\nunset y2tics\n", f);
	/* The curves below 70% of the height, the marks in a band above. */
	fprintf(f, "set yrange [0:%.3f]\n", peak > 0 ? peak * 1.45 : 1.0);
	for (i = 0; i < nvlines; i++) {
		fprintf(f, "set arrow from %.6f, graph 0 to %.6f, graph 1 "
			"nohead lc rgb '#555555' dt 2\n", vlines[i].t - t0,
			vlines[i].t - t0);
		fprintf(f, "set label %u ", i + 1);
		gp_quote(f, vlines[i].label);
		fprintf(f, " at %.6f, graph 0.02 rotate by 90 left offset "
			"-0.6,0 font ',9' noenhanced\n", vlines[i].t - t0);
	}
	fputs("plot ", f);
	for (i = 0; i < nseries; i++) {
		struct series *s = &series[i];

		for (k = 0; k < 2; k++) {
			double pk = k ? s->peak_rx : s->peak_tx;

			if (pk <= 0 || pk < MINOR_SHARE * peak)
				continue;
			snprintf(p, sizeof(p), "%s/qp%u.dat", dir, i);
			fprintf(f, "%s", plots++ ? ", \\\n     " : "");
			gp_quote(f, p);
			fprintf(f, " using 1:%u with lines lw 2 title '%d %s "
				"QP 0x%06x %s %s'", k + 2, s->pid, s->dev,
				s->qpn, s->type, k ? "rx" : "tx");
		}
	}
	for (k = 0; k < MARKS; k++) {
		if (!nmark[k])
			continue;
		snprintf(p, sizeof(p), "%s/%s.dat", dir, mark_style[k].file);
		fprintf(f, "%s", plots++ ? ", \\\n     " : "");
		gp_quote(f, p);
		fprintf(f, " using 1:(%.2f) axes x1y2 with points pt %d ps 0.8 "
			"lc rgb '%s' title '%s (%zu)'", mark_style[k].y,
			mark_style[k].pt, mark_style[k].color,
			mark_style[k].title, nmark[k]);
	}
	if (!plots)
		fputs("0 with lines lc rgb 'white' notitle", f);
	fputs("\n", f);
	return fclose(f) ? -1 : 0;
}

/* Run gnuplot on script: 0, or -1 after saying why. */
static int gnuplot(const char *script)
{
	int st;
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "emuverbs plot: fork: %s\n", strerror(errno));
		return -1;
	}
	if (!pid) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		fprintf(stderr, "emuverbs plot: gnuplot: %s (apt-get install "
			"gnuplot-nox)\n", strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 127)
			fprintf(stderr, "emuverbs plot: gnuplot failed on %s\n",
				script);
		return -1;
	}
	return 0;
}

static void remove_dir(void)
{
	char p[4200];
	unsigned int i;

	for (i = 0; i < nseries; i++) {
		snprintf(p, sizeof(p), "%s/qp%u.dat", dir, i);
		unlink(p);
	}
	for (i = 0; i < MARKS; i++) {
		snprintf(p, sizeof(p), "%s/%s.dat", dir, mark_style[i].file);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/plot.gp", dir);
	unlink(p);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	char *files[64], p[4200], script[4200];
	const char *out = NULL, *title = NULL, *keep = NULL;
	int i, nfiles = 0, rc = 1;
	unsigned int k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--title") ||
		    !strcmp(argv[i], "--keep")) {
			if (i + 1 == argc) {
				fprintf(stderr, "emuverbs plot: %s: a value "
					"is missing\n", argv[i]);
				return 2;
			}
			if (argv[i][1] == 'o')
				out = argv[i + 1];
			else if (argv[i][2] == 't')
				title = argv[i + 1];
			else
				keep = argv[i + 1];
			i++;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "emuverbs plot: %s: unknown option\n",
				argv[i]);
			usage(stderr);
			return 2;
		} else if (nfiles == 64) {
			fprintf(stderr, "emuverbs plot: 64 traces at most\n");
			return 2;
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (!nfiles || !out) {
		usage(stderr);
		return 2;
	}
	if (!title)
		title = nfiles == 1 ? files[0] : "emuverbs traces";
	several = nfiles > 1;
	if (read_all(files, nfiles, true))
		return 1;
	if (t0 < 0) {
		fprintf(stderr, "emuverbs plot: %s%s: no event in %s\n",
			files[0], nfiles > 1 ? " ..." : "",
			nfiles > 1 ? "them" : "it");
		return 1;
	}
	if (keep) {
		if (mkdir(keep, 0755) && errno != EEXIST) {
			fprintf(stderr, "emuverbs plot: %s: %s\n", keep,
				strerror(errno));
			return 1;
		}
		snprintf(dir, sizeof(dir), "%s", keep);
	} else {
		snprintf(dir, sizeof(dir), "%s/emuverbs-plot.XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(dir)) {
			fprintf(stderr, "emuverbs plot: %s: %s\n", dir,
				strerror(errno));
			return 1;
		}
	}
	if (read_all(files, nfiles, false))
		goto out;
	for (k = 0; k < MARKS; k++) {
		snprintf(p, sizeof(p), "%s/%s.dat", dir, mark_style[k].file);
		if (nmark[k] && write_marks(k, p)) {
			fprintf(stderr, "emuverbs plot: %s: %s\n", p,
				strerror(errno));
			goto out;
		}
	}
	for (k = 0; k < nseries; k++) {
		snprintf(p, sizeof(p), "%s/qp%u.dat", dir, k);
		if (write_series(&series[k], p)) {
			fprintf(stderr, "emuverbs plot: %s: %s\n", p,
				strerror(errno));
			goto out;
		}
	}
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	if (write_script(script, out, title)) {
		fprintf(stderr, "emuverbs plot: %s: %s\n", script,
			strerror(errno));
		goto out;
	}
	if (gnuplot(script))
		goto out;
	if (malformed)
		fprintf(stderr, "emuverbs plot: %lu lines were not trace "
			"events: skipped\n", malformed);
	printf("emuverbs plot: %s: %u QPs, %zu retransmissions, %zu "
	       "timeouts, %zu NAKs, %zu fault actions, %zu port and rule "
	       "events\n", out, nseries, nmark[M_RETX], nmark[M_TIMEOUT],
	       nmark[M_NAK], nmark[M_DROP] + nmark[M_DUP] + nmark[M_DELAY] +
	       nmark[M_CORRUPT] + nmark[M_OTHER], nvlines);
	rc = 0;
out:
	if (!keep)
		remove_dir();
	return rc;
}
