/* The client side of the control socket, shared by the emuverbs tools
 * that talk to running processes (ctl, stats, trace, top): finding the
 * processes a TARGET names and sending one of them a request. */
#ifndef TOOLS_CTL_H
#define TOOLS_CTL_H

#include <stdbool.h>

struct ctl_target {
	int pid;
	char comm[64];
	char path[108];			/* its socket (sun_path) */
};

/* This user's live processes that TARGET names (a PID, a command name as
 * /proc/PID/comm has it, or "all"), max at most: how many. */
int ctl_targets(const char *target, struct ctl_target *out, int max);

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
