/* The debug log (emu/base/log.h): the EMUVERBS_DEBUG switch, read when the
 * library loads, and the one function that writes a line to stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu/base/log.h"

unsigned int emu_log_mask;

static const struct {
	const char *name;
	unsigned int mask;
} classes[] = {
	{ "verbs", EMU_LOG_VERBS },
	{ "qp", EMU_LOG_QP },
	{ "xport", EMU_LOG_XPORT },
	{ "rx", EMU_LOG_RX },
	{ "cm", EMU_LOG_CM },
	{ "all", EMU_LOG_ALL },
	{ "1", EMU_LOG_ALL },
};

static const char *class_name(enum emu_log_class c)
{
	unsigned int i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (classes[i].mask == (unsigned int)c)
			return classes[i].name;
	return "?";
}

unsigned int emu_log_parse(const char *spec)
{
	unsigned int mask = 0, i;
	size_t n;

	while (spec && *spec) {
		n = strcspn(spec, ", ");
		for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
			if (strlen(classes[i].name) == n &&
			    !strncasecmp(spec, classes[i].name, n))
				mask |= classes[i].mask;
		spec += n;
		spec += strspn(spec, ", ");
	}
	return mask;
}

__attribute__((constructor)) static void emu_log_init(void)
{
	emu_log_mask = emu_log_parse(getenv("EMUVERBS_DEBUG"));
}

void emu_log_print(enum emu_log_class c, const char *fmt, ...)
{
	char line[512];
	struct timespec ts;
	va_list ap;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(line, sizeof(line), "emuverbs[%d] %ld.%06ld %s: ",
		     (int)getpid(), (long)ts.tv_sec, ts.tv_nsec / 1000,
		     class_name(c));
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	line[n++] = '\n';
	/* One write per line, so lines of several threads never mix. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
