/* The control socket: each process that has an emulated device open
 * listens on a Unix socket of its own, in a directory only its user can
 * enter, and answers one-line commands from the emuverbs tool (its own
 * user's only: SO_PEERCRED). Commands are kept in one table (ctl_cmd.c);
 * this header is what the server, the commands and the client share. */
#ifndef EMU_CTL_H
#define EMU_CTL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct emu_device;
struct emu_port;

/* A request's words at most, and its length in bytes with the newline. */
#define EMU_CTL_ARGS	64
#define EMU_CTL_LINE	4096

#include "emu/base/rundir.h"

/* A reply being written: the text after the status line, and whether
 * the command failed (then the text is the one line saying why). */
struct emu_ctl_out {
	char *buf;
	size_t len, cap;
	bool failed, oom;
};

void emu_ctl_printf(struct emu_ctl_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The command failed: this line says why (what was printed is dropped). */
void emu_ctl_fail(struct emu_ctl_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One command: argv[0] is its name. */
struct emu_ctl_cmd {
	const char *name;
	const char *usage;		/* its words after the name */
	void (*fn)(int argc, char **argv, struct emu_ctl_out *o);
};

/* The table, NULL-terminated (ctl_cmd.c). */
extern const struct emu_ctl_cmd emu_ctl_cmds[];

/* Run one request line (the server's thread): the reply in o. */
void emu_ctl_dispatch(char *line, struct emu_ctl_out *o);

/*
 * A device a command may act on, and holding it: only open devices are
 * the process's, and holding one keeps its engine from stopping until
 * emu_ctl_release (a close waits). NULL with the failure in o if spec
 * ("emu0", "emu0/1") names no open device, or its port no port; *port
 * (when port is not NULL) is the port, or port 1 when spec has none.
 */
struct emu_device *emu_ctl_hold(const char *spec, struct emu_port **port,
				struct emu_ctl_out *o);
/* Hold every open device (n of them at most): how many were held. */
unsigned int emu_ctl_hold_all(struct emu_device **devs, unsigned int n);
void emu_ctl_release(struct emu_device *dev);

/* The device layer tells the server when a device opens and closes: the
 * first open in the process starts it, the last close stops it. */
void emu_ctl_device_opened(void);
void emu_ctl_device_closed(void);

/* The socket's path while the server runs (empty otherwise): tests. */
const char *emu_ctl_path(void);

#endif
