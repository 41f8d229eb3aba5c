/* The runtime directory (where this user's control sockets, pulse files
 * and job links live) and job names: what the control server, the
 * transport's pulse files, the subnet file and the emuverbs tool all
 * need to agree on, so it sits below all of them. */
#ifndef EMU_RUNDIR_H
#define EMU_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The directory of this user's control sockets into buf: the first of
 * $EMUVERBS_RUNTIME_DIR, $XDG_RUNTIME_DIR/emuverbs, /tmp/emuverbs-UID
 * (made if missing; when another user has it, the first of
 * /tmp/emuverbs-UID.N that is ours, said once on stderr).
 * 0, or -1 when it does not fit or /tmp has none of ours.
 */
int emu_ctl_dir(char *buf, size_t len);
/* Make the directory if it is missing (mode 0700), and check that it is
 * a directory of ours that nobody else may enter: 0, or -1 with why. */
int emu_ctl_dir_make(const char *dir, char *why, size_t whylen);
/* The path of a file of the runtime directory (made and checked as
 * emu_ctl_dir_make does) into buf: the directory, '/', then fmt. 0, or -1
 * without a directory of ours or when it does not fit. */
int emu_rundir_file(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A job: the processes started under one `emuverbs run`, or any that the
 * user gave one name, which the tool's commands reach by default
 * (job.c, doc/control.md). Its name is $EMUVERBS_JOB, inherited by
 * children: 1 to EMU_JOB_MAX visible ASCII characters.
 */
#define EMU_JOB_MAX	128
bool emu_job_name_ok(const char *name);
/* This process's job into *job, NULL when it is in none (EMUVERBS_JOB
 * unset or empty): 0, or -1 when EMUVERBS_JOB is set to no job name. */
int emu_job_env(const char **job);
/* The link in dir that names the job of the process pid: PID.job, which
 * points at the name. 0, or -1 when it does not fit in buf. */
int emu_job_path(const char *dir, unsigned long pid, char *buf, size_t len);
/* The job of the process whose socket is PID.sock in dir, into buf
 * (EMU_JOB_MAX + 1 bytes): 1 when it has one, 0 when it has none, -1
 * when it has gone (no socket either) or its link is none of ours. */
int emu_job_read(const char *dir, unsigned long pid, char *buf, size_t len);

#endif
