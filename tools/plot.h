/* emuverbs plot's reading of a trace: one JSON-lines event (a flat object
 * of strings, numbers and booleans, as emu/observe/trace.c writes them) at a
 * time, into fields looked up by key. Shared by the tool and its test. */
#ifndef TOOLS_PLOT_H
#define TOOLS_PLOT_H

#include <stdbool.h>

#define PLOT_FIELDS	40
#define PLOT_LINE	4096

struct plot_field {
	const char *key;
	const char *str;		/* a string's text, decoded; or NULL */
	double num;			/* a number, or a boolean as 0 / 1 */
};

struct plot_line {
	unsigned int n;
	struct plot_field f[PLOT_FIELDS];
	char buf[PLOT_LINE];		/* keys and strings, decoded */
};

/* Parse text (one line, its newline optional): 0, or -1 when it is not
 * one flat JSON object that fits (then l says nothing). */
int plot_parse(const char *text, struct plot_line *l);

/* A field's value, or def when the line has no such field (or it is of
 * the other kind). */
double plot_num(const struct plot_line *l, const char *key, double def);
const char *plot_str(const struct plot_line *l, const char *key,
		     const char *def);

#endif
