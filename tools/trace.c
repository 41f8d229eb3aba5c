/* emuverbs-trace: `emuverbs trace TARGET -w FILE [-c COUNT] [--events
 * FILE]`. It asks a running process (through its control socket) to
 * capture its ports' traffic into a pcap or pcapng file and/or to write
 * its event trace, waits for Ctrl-C, a time limit or the count, then
 * stops them and says what each file holds. The process writes the files
 * itself; relative names are made absolute here, in the caller's
 * directory. Exit status 0, 1 when something failed, 2 for usage. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/ctl.h"

#define TARGETS_MAX	64
#define POLL_NS		200000000L

static volatile sig_atomic_t stop_asked;

static void on_signal(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static void usage(FILE *f)
{
	fputs("usage: emuverbs trace TARGET [-w FILE [-c COUNT]] "
	      "[--events FILE [--interval MS]] [-t SECONDS]\n"
	      "  -w FILE          capture the ports' RoCEv2 traffic: "
	      "FILE.pcapng notes\n"
	      "                   what fault rules did to packets, any other "
	      "name is pcap\n"
	      "  -c COUNT         stop the capture after COUNT packets\n"
	      "  --events FILE    write the event trace (JSON lines) into "
	      "FILE\n"
	      "  --interval MS    sample each QP's counters every MS "
	      "(default 100)\n"
	      "  -t SECONDS       stop after SECONDS (else Ctrl-C, or COUNT)\n"
	      "TARGET: a PID, a command name, or all; %p in FILE is the "
	      "target's PID\n", f);
	fputs(ctl_scope_usage, f);
}

/* name made absolute in buf, its directory resolved: 0, or -1 after a
 * one-line error naming what is wrong. */
static int absolute(const char *name, char *buf, size_t len)
{
	char dir[PATH_MAX], base[PATH_MAX], real[PATH_MAX];

	if (!*name) {
		fprintf(stderr, "emuverbs trace: an empty file name\n");
		return -1;
	}
	/* A control request is words: a name cannot hold a blank. */
	if (strpbrk(name, " \t\r\n")) {
		fprintf(stderr, "emuverbs trace: \"%s\": a file name with "
			"blanks cannot be passed on\n", name);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", name);
	snprintf(base, sizeof(base), "%s", name);
	if (name[strlen(name) - 1] == '/') {
		fprintf(stderr, "emuverbs trace: %s: a directory, not a file\n",
			name);
		return -1;
	}
	if (!realpath(dirname(dir), real)) {
		fprintf(stderr, "emuverbs trace: %s: %s\n", name,
			strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(buf, len, "%s/%s", strcmp(real, "/") ? real : "",
			     basename(base)) >= len) {
		fprintf(stderr, "emuverbs trace: %s: name too long\n", name);
		return -1;
	}
	return 0;
}

/* One request to t: true if it said ok. The reply's text (or its error)
 * goes to *text when wanted, else a failure is printed. */
static bool ask(const struct ctl_target *t, const char *line, char **text)
{
	bool ok;
	char *r = ctl_request(t, line, &ok);

	if (!r) {
		fprintf(stderr, "emuverbs trace: out of memory\n");
		return false;
	}
	if (!ok && !text)
		fprintf(stderr, "emuverbs trace: %d (%s): %s", t->pid, t->comm,
			!strncmp(r, "error: ", 7) ? r + 7 : r);
	if (text)
		*text = r;
	else
		free(r);
	return ok;
}

/* Print a reply's lines behind "PID COMM: ". */
static void show(const struct ctl_target *t, const char *text)
{
	const char *p, *nl;

	for (p = text; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		printf("%d %s: %.*s\n", t->pid, t->comm, (int)(nl - p), p);
		if (!*nl)
			break;
	}
}

/* Start something in t: true if it said ok; then the file it made (its
 * reply is "PREFIX STATE PATH ...", %p expanded) is in made. */
static bool start_one(const struct ctl_target *t, const char *line,
		      const char *prefix, char *made)
{
	char *r = NULL;
	bool ok = ask(t, line, &r);
	size_t k = strlen(prefix);

	if (!r)
		return false;
	if (!ok)
		fprintf(stderr, "emuverbs trace: %d (%s): %s", t->pid, t->comm,
			!strncmp(r, "error: ", 7) ? r + 7 : r);
	else if (!strncmp(r, prefix, k) && strchr(r + k, ' '))
		snprintf(made, PATH_MAX, "%.*s",
			 (int)strcspn(strchr(r + k, ' ') + 1, " \n"),
			 strchr(r + k, ' ') + 1);
	free(r);
	return ok;
}

static bool number(const char *s, unsigned long long max,
		   unsigned long long *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && !errno && *v && *v <= max;
}

int main(int argc, char **argv)
{
	static struct ctl_target t[TARGETS_MAX];
	char cap[PATH_MAX] = "", ev[PATH_MAX] = "", line[PATH_MAX + 64];
	unsigned long long count = 0, interval = 0, secs = 0;
	bool capped[TARGETS_MAX] = { false }, traced[TARGETS_MAX] = { false };
	bool gone[TARGETS_MAX] = { false };
	static char made[TARGETS_MAX][2][PATH_MAX];
	struct timespec start, now, nap = { 0, POLL_NS };
	struct sigaction sa = { .sa_handler = on_signal };
	const char *target = NULL;
	struct ctl_scope scope;
	int i, n, status = 0;

	if (argc > 1 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (ctl_scope_init(&scope, "emuverbs trace"))
		return 2;
	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int r = ctl_scope_arg(&scope, "emuverbs trace", argc, argv, &i);

		if (r < 0)
			return 2;
		if (r)
			continue;
		if (!target && o[0] != '-') {
			target = o;
			continue;
		}
		if (!v) {
			fprintf(stderr, "emuverbs trace: %s: a value is "
				"missing\n", o);
			return 2;
		}
		if (!strcmp(o, "-w")) {
			if (absolute(v, cap, sizeof(cap)))
				return 1;
		} else if (!strcmp(o, "--events")) {
			if (absolute(v, ev, sizeof(ev)))
				return 1;
		} else if (!strcmp(o, "-c")) {
			if (!number(v, ~0ull, &count)) {
				fprintf(stderr, "emuverbs trace: -c %s: not a "
					"count of packets\n", v);
				return 2;
			}
		} else if (!strcmp(o, "--interval")) {
			if (!number(v, 3600000, &interval)) {
				fprintf(stderr, "emuverbs trace: --interval "
					"%s: not a number of milliseconds\n",
					v);
				return 2;
			}
		} else if (!strcmp(o, "-t")) {
			if (!number(v, 31536000, &secs)) {
				fprintf(stderr, "emuverbs trace: -t %s: not a "
					"number of seconds\n", v);
				return 2;
			}
		} else {
			fprintf(stderr, "emuverbs trace: %s: unknown option\n",
				o);
			usage(stderr);
			return 2;
		}
		i++;
	}
	if (!target) {
		usage(stderr);
		return 2;
	}
	if (!cap[0] && !ev[0]) {
		fprintf(stderr, "emuverbs trace: nothing to do: give -w FILE "
			"and/or --events FILE\n");
		return 2;
	}
	if (count && !cap[0]) {
		fprintf(stderr, "emuverbs trace: -c counts captured packets: "
			"it needs -w FILE\n");
		return 2;
	}
	n = ctl_targets(target, &scope, t, TARGETS_MAX);
	if (!n) {
		ctl_no_target("emuverbs trace", target, &scope);
		return 1;
	}
	if (n > 1 && ((cap[0] && !strstr(cap, "%p")) ||
		      (ev[0] && !strstr(ev, "%p")))) {
		fprintf(stderr, "emuverbs trace: %s names %d processes: give "
			"one PID, or put %%p (the PID) in each file name\n",
			target, n);
		return 1;
	}

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	for (i = 0; i < n && !status; i++) {
		if (cap[0]) {
			int k = snprintf(line, sizeof(line),
					 "capture start %s", cap);

			if (count)
				snprintf(line + k, sizeof(line) - (size_t)k,
					 " count %llu", count);
			capped[i] = start_one(&t[i], line, "capture ",
					      made[i][0]);
			status |= !capped[i];
		}
		if (ev[0] && !status) {
			int k = snprintf(line, sizeof(line), "trace start %s",
					 ev);

			if (interval)
				snprintf(line + k, sizeof(line) - (size_t)k,
					 " interval %llu", interval);
			traced[i] = start_one(&t[i], line, "trace ",
					      made[i][1]);
			status |= !traced[i];
		}
	}
	if (!status)
		fprintf(stderr, "emuverbs trace: %s%s%s%s%s; %s\n",
			cap[0] ? "capturing into " : "", cap,
			cap[0] && ev[0] ? ", " : "",
			ev[0] ? "tracing into " : "", ev,
			count ? "stops at the count or Ctrl-C" :
			secs ? "stops when the time is up or Ctrl-C" :
			"Ctrl-C stops");

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!status && !stop_asked) {
		bool all_done = count != 0, any = false;

		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (secs && now.tv_sec - start.tv_sec >= (time_t)secs)
			break;
		for (i = 0; i < n; i++) {
			char *r = NULL;
			bool ok;

			if (gone[i])
				continue;
			ok = ask(&t[i], cap[0] ? "capture status" :
					      "trace status", &r);
			if (!ok && r && strstr(r, "cannot connect")) {
				fprintf(stderr, "emuverbs trace: %d (%s) has "
					"exited: its files hold what it "
					"wrote\n", t[i].pid, t[i].comm);
				gone[i] = true;
			} else {
				any = true;
				if (!r || !strstr(r, "capture done"))
					all_done = false;
			}
			free(r);
		}
		if (!any || (all_done && cap[0]))
			break;
	}

	/* Stop what was started, in the processes still there; after a
	 * failure to start, its files go too: nothing is left changed. */
	for (i = 0; i < n; i++) {
		char *r = NULL;

		if (gone[i])
			continue;
		if (capped[i]) {
			if (ask(&t[i], "capture stop", &r) && status)
				unlink(made[i][0]);
			else if (r && !strncmp(r, "capture ", 8))
				show(&t[i], r);
			else if (r && !strstr(r, "cannot connect"))
				fprintf(stderr, "%d %s: %s", t[i].pid,
					t[i].comm, r);
			free(r);
			r = NULL;
		}
		if (traced[i]) {
			if (ask(&t[i], "trace stop", &r) && status)
				unlink(made[i][1]);
			else if (r && !strncmp(r, "trace ", 6))
				show(&t[i], r);
			else if (r && !strstr(r, "cannot connect"))
				fprintf(stderr, "%d %s: %s", t[i].pid,
					t[i].comm, r);
			free(r);
		}
	}
	return status;
}
