/* emuverbs-ctl: the client side of the control socket, behind `emuverbs
 * ps`, `port`, `speed`, `latency`, `gid`, `fault`, `event` and `ctl`: it
 * finds the processes a TARGET names (a PID, a command name or `all`)
 * among this user's sockets, in the caller's job unless an option names
 * another or all (-A), sends each one request line and prints the
 * replies. Exit status 0 if every target said ok, 1 otherwise, 2 for a
 * usage error. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "emu/observe/ctl.h"
#include "tools/ctl.h"

static void usage(FILE *f)
{
	fputs("usage: emuverbs ps [JOBS]\n"
	      "       emuverbs port [JOBS] TARGET DEV/PORT down|up|flap TIME\n"
	      "       emuverbs speed [JOBS] TARGET DEV/PORT SPEED [WIDTH]\n"
	      "       emuverbs latency [JOBS] TARGET DEV/PORT TIME [JITTER "
	      "[constant|uniform|normal]]\n"
	      "       emuverbs gid [JOBS] TARGET DEV/PORT add|del ADDRESS\n"
	      "       emuverbs fault [JOBS] TARGET add RULE... | list | "
	      "del NAME\n"
	      "       emuverbs event [JOBS] TARGET KIND QPN|SRQN|DEV/PORT\n"
	      "       emuverbs ctl [JOBS] TARGET WORDS...   (a raw request)\n"
	      "TARGET: a PID, a command name, or all; DEV/PORT: emu0/1\n"
	      "JOBS, before TARGET:\n", f);
	fputs(ctl_scope_usage, f);
}

/* Print a reply: the text, each line behind "PID COMM: " when there are
 * several targets; a failure on stderr. */
static void show(const struct ctl_target *t, const char *text, bool ok,
		 bool prefix)
{
	const char *p = text, *nl;

	if (!ok) {
		fprintf(stderr, "emuverbs: %d (%s): %s", t->pid, t->comm,
			!strncmp(text, "error: ", 7) ? text + 7 : text);
		if (!*text || text[strlen(text) - 1] != '\n')
			fputc('\n', stderr);
		return;
	}
	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (prefix)
			printf("%d %s: ", t->pid, t->comm);
		printf("%.*s\n", (int)(nl - p), p);
		if (!*nl)
			break;
	}
}

/* ps: one line per port of every process with a device open, in s's
 * jobs; with all of them, each line says its job ("-": none). */
static int ps(struct ctl_scope *s)
{
	struct ctl_target t[256];
	char port[64], state[16], speed[16], width[8], addr[64], wire[16];
	char peers[48];
	unsigned int qps, shm, udp;
	const char *p;
	bool ok;
	int i, n = ctl_targets("all", s, t, 256);

	printf("%-8s %-16s %-8s %-7s %-10s %-16s %-18s %s\n", "PID",
	       "COMMAND", "PORT", "STATE", "RATE", "ADDRESS", "WIRE PEERS",
	       s->all_jobs ? "QPS  JOB" : "QPS");
	for (i = 0; i < n; i++) {
		char *r = ctl_request(&t[i], "info", &ok), rate[32];

		if (!r || !ok) {
			free(r);
			continue;
		}
		for (p = r; (p = strstr(p, "port ")); p++) {
			if (sscanf(p, "port %63s state %15s speed %15s width "
				   "%7s address %63s qps %u", port, state,
				   speed, width, addr, &qps) != 6)
				continue;
			snprintf(rate, sizeof(rate), "%s %s", speed, width);
			/* The wire and how many peers use each: the port's
			 * peers on this host go through shared memory. */
			if (sscanf(p, "port %*s state %*s speed %*s width %*s "
				   "address %*s qps %*u wire %15s shm_peers %u "
				   "udp_peers %u", wire, &shm, &udp) == 3)
				snprintf(peers, sizeof(peers), "%s shm:%u udp:%u",
					 wire, shm, udp);
			else
				strcpy(peers, "-");
			printf("%-8d %-16s %-8s %-7s %-10s %-16s %-18s ",
			       t[i].pid, t[i].comm, port, state, rate, addr,
			       peers);
			if (s->all_jobs)
				printf("%-4u %s\n", qps,
				       t[i].job[0] ? t[i].job : "-");
			else
				printf("%u\n", qps);
		}
		free(r);
	}
	fflush(stdout);
	ctl_others_note("emuverbs ps", s);
	return 0;
}

/* A time in microseconds: "20us", "1.5ms", "1s", or a bare number of us. */
static int time_us(const char *s, unsigned long *us)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "us"))
		*us = (unsigned long)(v + 0.5);
	else if (!strcmp(end, "ms"))
		*us = (unsigned long)(v * 1e3 + 0.5);
	else if (!strcmp(end, "s"))
		*us = (unsigned long)(v * 1e6 + 0.5);
	else if (!strcmp(end, "ns"))
		*us = (unsigned long)(v / 1e3 + 0.5);
	else
		return -1;
	return 0;
}

/* The request line for cmd's words, or NULL after a usage message. */
static char *request_of(const char *cmd, int argc, char **argv)
{
	static char line[EMU_CTL_LINE];
	unsigned long lat, jit;
	size_t at = 0;
	int i;

	line[0] = '\0';
	if (!strcmp(cmd, "port") && argc == 3 && !strcmp(argv[1], "flap")) {
		if (time_us(argv[2], &lat))
			return NULL;
		snprintf(line, sizeof(line), "flap %s %lu", argv[0], lat);
	} else if (!strcmp(cmd, "port")) {
		if (argc != 2 || (strcmp(argv[1], "down") &&
				  strcmp(argv[1], "up") &&
				  strcmp(argv[1], "active")))
			return NULL;
		snprintf(line, sizeof(line), "port %s state=%s", argv[0],
			 !strcmp(argv[1], "down") ? "down" : "active");
	} else if (!strcmp(cmd, "speed")) {
		if (argc < 2 || argc > 3)
			return NULL;
		snprintf(line, sizeof(line), "port %s speed=%s%s%s", argv[0],
			 argv[1], argc == 3 ? " width=" : "",
			 argc == 3 ? argv[2] : "");
	} else if (!strcmp(cmd, "latency")) {
		if (argc < 2 || argc > 4 || time_us(argv[1], &lat) ||
		    (argc >= 3 && time_us(argv[2], &jit)))
			return NULL;
		at = (size_t)snprintf(line, sizeof(line), "port %s "
				      "latency_us=%lu", argv[0], lat);
		if (argc >= 3)
			at += (size_t)snprintf(line + at, sizeof(line) - at,
					       " jitter_us=%lu", jit);
		if (argc == 4)
			snprintf(line + at, sizeof(line) - at, " jitter=%s",
				 argv[3]);
	} else if (!strcmp(cmd, "gid") || !strcmp(cmd, "fault") ||
		   !strcmp(cmd, "event") || !strcmp(cmd, "ctl")) {
		if (!argc)
			return NULL;
		if (strcmp(cmd, "ctl"))
			at = (size_t)snprintf(line, sizeof(line), "%s", cmd);
		for (i = 0; i < argc && at < sizeof(line); i++)
			at += (size_t)snprintf(line + at, sizeof(line) - at,
					       "%s%s", at ? " " : "", argv[i]);
	} else {
		return NULL;
	}
	return line;
}

int main(int argc, char **argv)
{
	struct ctl_target t[256];
	struct ctl_scope scope;
	int fds[256], errs[256];
	const char *cmd = argc > 1 ? argv[1] : "";
	char *line, *r;
	int a, i, n, status = 0;
	bool ok;

	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (ctl_scope_init(&scope, "emuverbs"))
		return 2;
	/* The jobs' options come before TARGET: what follows it is the
	 * request's, a raw one's included. */
	for (a = 2; a < argc; a++) {
		i = ctl_scope_arg(&scope, "emuverbs", argc, argv, &a);
		if (i < 0)
			return 2;
		if (!i)
			break;
	}
	if (!strcmp(cmd, "ps"))
		return a == argc ? ps(&scope) : (usage(stderr), 2);
	if (a >= argc) {
		usage(stderr);
		return 2;
	}
	line = request_of(cmd, argc - a - 1, argv + a + 1);
	if (!line) {
		fprintf(stderr, "emuverbs %s: bad arguments\n", cmd);
		usage(stderr);
		return 2;
	}
	n = ctl_targets(argv[a], &scope, t, 256);
	if (!n) {
		ctl_no_target("emuverbs", argv[a], &scope);
		return 1;
	}
	/* Every target is asked before any answer is read: a port that
	 * goes down "all" over goes down everywhere at once, not one
	 * process after another. */
	for (i = 0; i < n; i++)
		fds[i] = ctl_send(&t[i], line, &errs[i]);
	for (i = 0; i < n; i++) {
		r = ctl_reply(fds[i], errs[i], &ok);
		if (!r) {
			fprintf(stderr, "emuverbs: out of memory\n");
			return 1;
		}
		show(&t[i], r, ok, n > 1);
		status |= !ok;
		free(r);
	}
	return status;
}
