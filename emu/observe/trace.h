/* An event trace file: JSON lines, one object per event, each with its
 * wall-clock time ("ts", seconds since the Unix epoch, to the
 * microsecond, as a capture's timestamps) and its kind ("ev"). The writer
 * only; what is traced and when is emu/observe/tracer.c's. The schema is in
 * doc/observability.md. */
#ifndef EMU_TRACE_H
#define EMU_TRACE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct emu_trace;

/* Bytes one event line may take; a longer one is cut at a field. */
#define EMU_TRACE_LINE	1024

/*
 * Create path (truncating it): 0 and *out, or -1 with a one-line reason
 * naming the file in why (and nothing created when memory ran out). The
 * writer allocates its buffers here, never per event.
 */
int emu_trace_open(struct emu_trace **out, const char *path, char *why,
		   size_t whylen);
/* Flush and close: 0, or -1 when something was not written (errno). */
int emu_trace_close(struct emu_trace *t);

/*
 * One event: {"ts":...,"ev":"EV"FIELDS}. fmt gives the rest of the fields,
 * each as ,"key":value (strings through emu_trace_str). Thread-safe.
 */
void emu_trace_event(struct emu_trace *t, const char *ev, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4)));
void emu_trace_vevent(struct emu_trace *t, uint64_t ts_ns, const char *ev,
		      const char *fmt, va_list ap);
/* Write what is buffered (the tracer does it every sample). */
void emu_trace_flush(struct emu_trace *t);

/* Events written, and the path. */
uint64_t emu_trace_events(struct emu_trace *t);
const char *emu_trace_path(const struct emu_trace *t);
/* Why the file stopped taking events ("" while it takes them). */
const char *emu_trace_error(struct emu_trace *t);

/*
 * s as a JSON string, quotes included, into buf (len bytes, cut short to
 * fit, always closed): control characters, quotes and backslashes are
 * escaped. Returns buf, to stand as a %s argument.
 */
const char *emu_trace_str(char *buf, size_t len, const char *s);

/* path with each %p as the process's PID and %% as %, into buf: 0, or
 * -1 when it does not fit. The trace's and the capture's file names:
 * several processes started alike write a file each. */
int emu_path_expand(const char *path, char *buf, size_t len);

#endif
