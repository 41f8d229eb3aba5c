/* emu/observe/trace.c: the event trace's writer. Lines are composed on the stack
 * and written under a lock into a stdio buffer allocated at open, so an
 * event allocates nothing and lines from several threads never mix. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu/observe/trace.h"

#define BUF_LEN		(64 * 1024)

struct emu_trace {
	pthread_mutex_t lock;
	FILE *f;
	char *buf;			/* f's buffer */
	uint64_t events;
	char err[160];
	char path[4096];
};

int emu_trace_open(struct emu_trace **out, const char *path, char *why,
		   size_t whylen)
{
	struct emu_trace *t;

	*out = NULL;
	if (!path || !*path) {
		snprintf(why, whylen, "no trace file named");
		return -1;
	}
	if (strlen(path) >= sizeof(t->path)) {
		snprintf(why, whylen, "%.64s...: name too long", path);
		return -1;
	}
	/* Memory first: running out of it leaves no file behind. */
	t = calloc(1, sizeof(*t));
	if (t)
		t->buf = malloc(BUF_LEN);
	if (!t || !t->buf) {
		if (t)
			free(t);
		snprintf(why, whylen, "%s: out of memory", path);
		return -1;
	}
	t->f = fopen(path, "w");
	if (!t->f) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		free(t->buf);
		free(t);
		return -1;
	}
	setvbuf(t->f, t->buf, _IOFBF, BUF_LEN);
	pthread_mutex_init(&t->lock, NULL);
	strcpy(t->path, path);
	*out = t;
	return 0;
}

int emu_trace_close(struct emu_trace *t)
{
	int rc;

	if (!t)
		return 0;
	rc = t->f ? fclose(t->f) : 0;
	/* Lines lost earlier count as a failure too. */
	if (!rc && t->err[0]) {
		errno = EIO;
		rc = -1;
	}
	pthread_mutex_destroy(&t->lock);
	free(t->buf);
	free(t);
	return rc ? -1 : 0;
}

const char *emu_trace_str(char *buf, size_t len, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t at = 0;

	if (len < 3) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	buf[at++] = '"';
	/* Room kept for the closing quote and the terminator. */
	for (; s && *s && at + 2 < len; s++) {
		unsigned char c = (unsigned char)*s;
		size_t need = c < 0x20 ? 6 : (c == '"' || c == '\\') ? 2 : 1;

		if (at + need + 2 > len)
			break;
		if (c < 0x20) {
			memcpy(buf + at, "\\u00", 4);
			buf[at + 4] = hex[c >> 4];
			buf[at + 5] = hex[c & 15];
		} else if (need == 2) {
			buf[at] = '\\';
			buf[at + 1] = (char)c;
		} else {
			buf[at] = (char)c;
		}
		at += need;
	}
	buf[at++] = '"';
	buf[at] = '\0';
	return buf;
}

void emu_trace_vevent(struct emu_trace *t, uint64_t ts_ns, const char *ev,
		      const char *fmt, va_list ap)
{
	char line[EMU_TRACE_LINE], name[64];
	int n, m;

	n = snprintf(line, sizeof(line), "{\"ts\":%llu.%06llu,\"ev\":%s",
		     (unsigned long long)(ts_ns / 1000000000ull),
		     (unsigned long long)(ts_ns % 1000000000ull / 1000),
		     emu_trace_str(name, sizeof(name), ev));
	m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	if (m < 0)
		m = 0;
	if ((size_t)(n + m) >= sizeof(line) - 2) {
		/* Too long: cut before the last field that fits whole, so
		 * the line stays one valid object. A field starts with ,"
		 * which a string's escaped quote (\") never looks like. */
		char *comma = line + sizeof(line) - 4;

		while (comma > line + n && (comma[0] != ',' || comma[1] != '"'))
			comma--;
		m = (int)(comma - line) - n;
	}
	n += m;
	line[n++] = '}';
	line[n++] = '\n';
	pthread_mutex_lock(&t->lock);
	if (t->f && !t->err[0]) {
		if (fwrite(line, 1, (size_t)n, t->f) == (size_t)n)
			t->events++;
		else
			snprintf(t->err, sizeof(t->err), "writing failed: %s",
				 strerror(errno));
	}
	pthread_mutex_unlock(&t->lock);
}

void emu_trace_event(struct emu_trace *t, const char *ev, const char *fmt,
		     ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	va_start(ap, fmt);
	emu_trace_vevent(t, (uint64_t)ts.tv_sec * 1000000000ull +
			    (uint64_t)ts.tv_nsec, ev, fmt, ap);
	va_end(ap);
}

void emu_trace_flush(struct emu_trace *t)
{
	pthread_mutex_lock(&t->lock);
	if (t->f && !t->err[0] && fflush(t->f))
		snprintf(t->err, sizeof(t->err), "writing failed: %s",
			 strerror(errno));
	pthread_mutex_unlock(&t->lock);
}

uint64_t emu_trace_events(struct emu_trace *t)
{
	uint64_t n;

	pthread_mutex_lock(&t->lock);
	n = t->events;
	pthread_mutex_unlock(&t->lock);
	return n;
}

const char *emu_trace_path(const struct emu_trace *t)
{
	return t->path;
}

const char *emu_trace_error(struct emu_trace *t)
{
	return t->err;
}

int emu_path_expand(const char *path, char *buf, size_t len)
{
	size_t at = 0;
	int n;

	if (!len)
		return -1;
	buf[0] = '\0';
	for (; *path; path++) {
		if (path[0] == '%' && (path[1] == 'p' || path[1] == '%')) {
			n = path[1] == 'p' ?
			    snprintf(buf + at, len - at, "%d", (int)getpid()) :
			    snprintf(buf + at, len - at, "%%");
			path++;
		} else {
			n = snprintf(buf + at, len - at, "%c", *path);
		}
		if (n < 0 || (size_t)n >= len - at)
			return -1;
		at += (size_t)n;
	}
	return 0;
}
