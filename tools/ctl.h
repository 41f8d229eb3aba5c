/* The client side of the control socket, shared by the emuverbs tools
 * that talk to running processes (ctl, stats, trace, top): finding the
 * processes a TARGET names and sending one of them a request. */
#ifndef TOOLS_CTL_H
#define TOOLS_CTL_H

#include <stdbool.h>

#include "emu/observe/ctl.h"

struct ctl_target {
	int pid;
	char comm[64];
	char path[108];			/* its socket (sun_path) */
	char job[EMU_JOB_MAX + 1];	/* its job, or empty for none */
};

/*
 * Which jobs a command reaches (doc/control.md): the caller's own, as its
 * EMUVERBS_JOB says (none when unset: then the processes in no job), one
 * that --job names, or all of them (-A, --all-jobs). A PID names its
 * process whatever its job.
 */
struct ctl_scope {
	const char *job;		/* NULL: the processes in no job */
	bool all_jobs;
	bool chosen;			/* by an option, not the environment */
	int others;			/* ctl_targets: left out, other jobs */
};

/* The caller's own job into s: 0, or -1 after saying on stderr (prog's
 * name first) that EMUVERBS_JOB is not a job name. */
int ctl_scope_init(struct ctl_scope *s, const char *prog);
/* --job NAME (name) or --all-jobs (name NULL) into s: 0, or -1 after
 * saying why not (not a name, or both options). */
int ctl_scope_set(struct ctl_scope *s, const char *prog, const char *name);
/* Whether argv[*i] is -A, --all-jobs, --job NAME or --job=NAME: then it
 * is taken into s and *i moved to its last word: 1, or -1 after saying
 * why it is wrong; 0 when it is none of them. For the tools that read
 * their words themselves; the others give ctl_scope_set getopt's. */
int ctl_scope_arg(struct ctl_scope *s, const char *prog, int argc,
		  char **argv, int *i);
/* The usage lines of those options. */
extern const char ctl_scope_usage[];

/* This user's live processes that TARGET names (a PID, a command name as
 * /proc/PID/comm has it, or "all") in s's jobs, max at most: how many.
 * s->others counts those it named in other jobs. */
int ctl_targets(const char *target, struct ctl_scope *s,
		struct ctl_target *out, int max);
/* Say on stderr that TARGET named nothing in s, and how to reach the
 * processes of other jobs, if it left any out. */
void ctl_no_target(const char *prog, const char *target,
		   const struct ctl_scope *s);
/* Say on stderr that s left n processes of other jobs out, if any. */
void ctl_others_note(const char *prog, const struct ctl_scope *s);

/*
 * Send t one request line and read the whole reply: NULL when out of
 * memory, else a string to free. *ok tells whether it said "ok": then the
 * string is the reply's text after that line, else the "error: ..." line
 * (the server's, or why there was no reply).
 */
char *ctl_request(const struct ctl_target *t, const char *line, bool *ok);

/* The two halves of ctl_request, so that one request reaches several
 * targets at once: ctl_send connects and sends (the socket, or -1 and
 * *err), ctl_reply reads what it answered (or says why not) and closes. */
int ctl_send(const struct ctl_target *t, const char *line, int *err);
char *ctl_reply(int fd, int err, bool *ok);

#endif
