/* The process's capture of its ports' traffic: started by EMUVERBS_CAPTURE
 * when the first device opens or by the control socket (`emuverbs trace
 * -w`), written to one file through net/capture.c, with a note on each
 * packet a fault rule or the link's queue acted on. */
#ifndef EMU_CAPTURE_H
#define EMU_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

struct emu_ctl_out;
struct emu_device;
struct emu_fault_rule;
struct emu_tport;

/*
 * Capture every port of every open device (and of those opened later)
 * into path (absolute, or relative to the process's working directory;
 * "%p" is the PID): .pcapng gets the notes, anything else is pcap. count
 * > 0 ends it after that many packets. 0, or -1 with a one-line reason
 * (one runs already, the file cannot be made) and nothing changed. Not on
 * an engine thread.
 */
int emu_capture_start(const char *path, uint64_t count, char *why,
		      size_t whylen);
/* Stop the capture, done or not: what it wrote into info; -1 when none. */
int emu_capture_stop(char *info, size_t len);
/* "capture running PATH packets N [of COUNT]", "capture done PATH ...",
 * or "capture off". */
void emu_capture_status(char *buf, size_t len);

/* A device's engine starts (engine thread): its ports join the capture,
 * which EMUVERBS_CAPTURE starts on the process's first device. A port
 * leaves it when its UDP I/O closes. */
void emu_capture_device_up(struct emu_device *dev);

/* The control socket's command: capture start PATH [count N] | stop |
 * status (emu/observe/watch_ctl.c). */
void emu_capture_ctl(int argc, char **argv, struct emu_ctl_out *o);

#endif
