/* emuverbs-stats, behind `emuverbs stats TARGET [DEVICE[/PORT]] [--qp N]
 * [--watch SECS [--count N]] [--json]`: asks each process TARGET names for
 * its counters (the control socket's stats command) and prints them by
 * port and QP, "name value" a line; watching, a sample every SECS with
 * each counter's rate since the last; --json, one JSON object a sample and
 * process. Exit status 0, 1 when a process refused or could not be asked,
 * 2 for a usage error. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/ctl.h"

#define MAX_TARGETS 64

/* A port's or QP's counters in one reply; its strings point into the
 * reply's text. */
struct section {
	char *head;			/* "port emu0/1 address ..." */
	char key[96];			/* the same in every sample */
	unsigned int n;
	char **names;
	uint64_t *vals;
};

struct sample {
	char *text;
	uint64_t time_ns;
	unsigned int n;
	struct section *s;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fputs("usage: emuverbs stats TARGET [DEVICE[/PORT]] [--qp QPN] "
	      "[--watch SECS [--count N]] [--json]\n"
	      "TARGET: a PID, a command name, or all; DEVICE/PORT: emu0/1\n"
	      "  --qp QPN       that QP's counters alone\n"
	      "  --watch SECS   a sample every SECS seconds, with rates, "
	      "until interrupted\n"
	      "  --count N      N samples, then exit\n"
	      "  --json         one JSON object per sample and process\n",
	      f);
	fputs(ctl_scope_usage, f);
}

static void sample_free(struct sample *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		free(s->s[i].names);
		free(s->s[i].vals);
	}
	free(s->s);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

/* A section's key: "port DEV/P", "qp N port DEV/P" (a QP's number is
 * its device's) or "peer ADDR:UDPPORT port DEV/P". */
static void make_key(struct section *c)
{
	char a[16], b[32], d[16], e[32];
	int n = sscanf(c->head, "%15s %31s %15s %31s", a, b, d, e);

	if ((!strcmp(a, "qp") || !strcmp(a, "peer")) && n == 4)
		snprintf(c->key, sizeof(c->key), "qp %s %s", b, e);
	else
		snprintf(c->key, sizeof(c->key), "%s %s", a, n > 1 ? b : "");
}

/* Take the reply text (which s owns from now on) apart: 0, or -1 when out
 * of memory or the text is not a stats reply. */
static int parse(char *text, struct sample *s)
{
	struct section *c = NULL, *ns;
	char *line, *save = NULL, *sp, *end;
	void *p;

	memset(s, 0, sizeof(*s));
	s->text = text;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "time_ns ", 8)) {
			s->time_ns = strtoull(line + 8, NULL, 10);
		} else if (!strncmp(line, "port ", 5) ||
			   !strncmp(line, "qp ", 3) ||
			   !strncmp(line, "peer ", 5)) {
			ns = realloc(s->s, (s->n + 1) * sizeof(*ns));
			if (!ns)
				return -1;
			s->s = ns;
			c = &s->s[s->n++];
			memset(c, 0, sizeof(*c));
			c->head = line;
			make_key(c);
		} else if (c && (sp = strchr(line, ' '))) {
			*sp = '\0';
			p = realloc(c->names, (c->n + 1) * sizeof(char *));
			if (!p)
				return -1;
			c->names = p;
			p = realloc(c->vals, (c->n + 1) * sizeof(uint64_t));
			if (!p)
				return -1;
			c->vals = p;
			c->names[c->n] = line;
			c->vals[c->n++] = strtoull(sp + 1, &end, 10);
		} else {
			return -1;
		}
	}
	return s->time_ns ? 0 : -1;
}

static const struct section *find(const struct sample *s, const char *key)
{
	unsigned int i;

	for (i = 0; s && i < s->n; i++)
		if (!strcmp(s->s[i].key, key))
			return &s->s[i];
	return NULL;
}

/* Counter i of c per second since prev (the same section a sample ago),
 * or -1 when there is no earlier value. */
static double rate(const struct section *c, unsigned int i,
		   const struct section *prev, uint64_t dt_ns)
{
	if (!prev || !dt_ns || i >= prev->n || strcmp(prev->names[i],
						       c->names[i]) ||
	    c->vals[i] < prev->vals[i])
		return -1;
	return (double)(c->vals[i] - prev->vals[i]) * 1e9 / (double)dt_ns;
}

static void print_plain(const struct ctl_target *t, const struct sample *s,
			const struct sample *prev, bool watch)
{
	uint64_t dt = prev ? s->time_ns - prev->time_ns : 0;
	unsigned int i, k;
	double r;

	printf("%d %s\n", t->pid, t->comm);
	for (i = 0; i < s->n; i++) {
		const struct section *c = &s->s[i];
		const struct section *pc = find(prev, c->key);

		printf("%s\n", c->head);
		for (k = 0; k < c->n; k++) {
			printf("  %-32s %20llu", c->names[k],
			       (unsigned long long)c->vals[k]);
			r = rate(c, k, pc, dt);
			if (watch && r >= 0)
				printf(" %14.1f/s", r);
			printf("\n");
		}
	}
}

/* A header's "key value" words as JSON members (numbers bare). */
static void json_head(const char *head)
{
	char buf[256], *w, *v, *save = NULL;
	const char *sep = "";

	snprintf(buf, sizeof(buf), "%s", head);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		v = strtok_r(NULL, " ", &save);
		if (!v)
			break;
		if (v[strspn(v, "0123456789")] || !*v)
			printf("%s\"%s\":\"%s\"", sep,
			       !strcmp(w, "qp") ? "qpn" : w, v);
		else
			printf("%s\"%s\":%s", sep,
			       !strcmp(w, "qp") ? "qpn" : w, v);
		sep = ",";
	}
}

static void json_section(const struct section *c, const struct section *pc,
			 uint64_t dt)
{
	unsigned int k;
	double r;

	printf("{");
	json_head(c->head);
	printf(",\"counters\":{");
	for (k = 0; k < c->n; k++)
		printf("%s\"%s\":%llu", k ? "," : "", c->names[k],
		       (unsigned long long)c->vals[k]);
	printf("}");
	if (pc) {
		printf(",\"rates\":{");
		for (k = 0; k < c->n; k++) {
			r = rate(c, k, pc, dt);
			printf("%s\"%s\":", k ? "," : "", c->names[k]);
			if (r >= 0)
				printf("%.3f", r);
			else
				printf("null");
		}
		printf("}");
	}
	printf("}");
}

static void print_json(const struct ctl_target *t, const struct sample *s,
		       const struct sample *prev)
{
	uint64_t dt = prev ? s->time_ns - prev->time_ns : 0;
	const char *sep = "";
	unsigned int i;
	int qp;

	printf("{\"pid\":%d,\"command\":\"", t->pid);
	for (i = 0; t->comm[i]; i++)
		if (t->comm[i] == '"' || t->comm[i] == '\\' ||
		    (unsigned char)t->comm[i] < 0x20)
			printf("\\u%04x", (unsigned char)t->comm[i]);
		else
			putchar(t->comm[i]);
	printf("\",\"time_ns\":%llu", (unsigned long long)s->time_ns);
	/* Ports, QPs, then the ports' peers with the wire each uses. */
	for (qp = 0; qp < 3; qp++) {
		printf(",\"%s\":[", qp == 2 ? "peers" : qp ? "qps" : "ports");
		sep = "";
		for (i = 0; i < s->n; i++) {
			int kind = !strncmp(s->s[i].head, "qp ", 3) ? 1 :
				   !strncmp(s->s[i].head, "peer ", 5) ? 2 : 0;

			if (kind != qp)
				continue;
			printf("%s", sep);
			json_section(&s->s[i], find(prev, s->s[i].key), dt);
			sep = ",";
		}
		printf("]");
	}
	printf("}\n");
}

/* Ask t for one sample into s: 0, or 1 with why on stderr. */
static int ask(const struct ctl_target *t, const char *req, struct sample *s)
{
	bool ok;
	char *r = ctl_request(t, req, &ok);

	if (!r) {
		fprintf(stderr, "emuverbs stats: out of memory\n");
		return 1;
	}
	if (!ok) {
		fprintf(stderr, "emuverbs stats: %d (%s): %s", t->pid, t->comm,
			!strncmp(r, "error: ", 7) ? r + 7 : r);
		if (!*r || r[strlen(r) - 1] != '\n')
			fputc('\n', stderr);
		free(r);
		return 1;
	}
	if (parse(r, s)) {
		fprintf(stderr, "emuverbs stats: %d (%s): not a stats reply "
			"(or out of memory)\n", t->pid, t->comm);
		sample_free(s);
		return 1;
	}
	return 0;
}

static bool number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return *s && *s != '-' && !*end && !errno && *out <= max;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "qp", required_argument, NULL, 'q' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "all-jobs", no_argument, NULL, 'A' },
		{ "job", required_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl_target t[MAX_TARGETS];
	struct ctl_scope scope;
	struct sample prev[MAX_TARGETS] = { 0 }, cur;
	char req[256], *end, *spec = NULL;
	unsigned long qpn = 0, count = 0, taken;
	bool json = false, has_qp = false;
	double watch = 0;
	int c, i, n, rc = 0;
	struct timespec ts;

	if (ctl_scope_init(&scope, "emuverbs stats"))
		return 2;
	while ((c = getopt_long(argc, argv, "q:w:c:jhA", opts, NULL)) != -1) {
		switch (c) {
		case 'A':
		case 'J':
			if (ctl_scope_set(&scope, "emuverbs stats",
					  c == 'J' ? optarg : NULL))
				return 2;
			break;
		case 'q':
			if (!number(optarg, 0xffffff, &qpn)) {
				fprintf(stderr, "emuverbs stats: --qp %s: not "
					"a QP number\n", optarg);
				return 2;
			}
			has_qp = true;
			break;
		case 'w':
			errno = 0;
			watch = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(watch > 0) ||
			    watch > 86400) {
				fprintf(stderr, "emuverbs stats: --watch %s: "
					"not a number of seconds\n", optarg);
				return 2;
			}
			break;
		case 'c':
			if (!number(optarg, 1000000000, &count) || !count) {
				fprintf(stderr, "emuverbs stats: --count %s: "
					"not a count\n", optarg);
				return 2;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc || argc - optind > 2 || (count && !watch)) {
		usage(stderr);
		return 2;
	}
	if (argc - optind == 2) {
		spec = argv[optind + 1];
		if (strpbrk(spec, " \t\n")) {
			fprintf(stderr, "emuverbs stats: %s: not "
				"DEVICE[/PORT]\n", spec);
			return 2;
		}
	}
	n = ctl_targets(argv[optind], &scope, t, MAX_TARGETS);
	if (!n) {
		ctl_no_target("emuverbs stats", argv[optind], &scope);
		return 1;
	}
	snprintf(req, sizeof(req), "stats%s%s", spec ? " " : "",
		 spec ? spec : "");
	if (has_qp)
		snprintf(req + strlen(req), sizeof(req) - strlen(req),
			 " qp %lu", qpn);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	for (taken = 0; !stop; taken++) {
		if (taken) {
			ts.tv_sec = (time_t)watch;
			ts.tv_nsec = (long)((watch - (double)ts.tv_sec) * 1e9);
			while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
				;
			if (stop)
				break;
			if (!json)
				printf("\n");
		}
		for (i = 0; i < n; i++) {
			if (ask(&t[i], req, &cur)) {
				rc = 1;
				continue;
			}
			if (json)
				print_json(&t[i], &cur,
					   prev[i].text ? &prev[i] : NULL);
			else
				print_plain(&t[i], &cur,
					    prev[i].text ? &prev[i] : NULL,
					    watch > 0);
			sample_free(&prev[i]);
			prev[i] = cur;
		}
		fflush(stdout);
		if (!watch || rc || (count && taken + 1 >= count))
			break;
	}
	for (i = 0; i < n; i++)
		sample_free(&prev[i]);
	return rc;
}
