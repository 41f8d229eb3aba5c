/* The configuration file's grammar: reading lines (from a FILE or a
 * string), comments, blank and over-long lines, section headers, the
 * "key = value" lines libinih splits, and the "FILE:LINE: KEY: message"
 * line of every problem. What a section or key means is config_section.c's.
 */

/*
 * File format (doc/configuration.md has every key, default and range):
 *
 *   ; comment (also #), blank lines ignored, indentation ignored
 *   [device emu1]            ; NAME: 1..63 of [A-Za-z0-9_-]
 *   node_guid = 0x0002c9fffe000001
 *   max_qp = 1024
 *   [port emu1 1]            ; ports of a device: 1..n, no gaps
 *   speed = HDR
 *   width = 2x
 *   address = 127.0.0.5      ; or netdev = eth0, not both
 *   gid = 4 fe80::1 roce_v1  ; static GID pinned at index 4
 *
 * A [port] section must follow the [device] section it belongs to. A device
 * without [port] sections gets one default port. A value spans one line; a
 * comment after a value starts with " ;".
 *
 * Errors: every problem is one line "FILE:LINE: KEY: message" on errf, and a
 * device with any problem is left out of the result (others are kept).
 * libinih only splits "key = value" lines here: our reader hands it one line
 * at a time, so we know the line number of every callback whatever the
 * library was built with (Debian's passes no lineno), and we handle section
 * headers, comments, blank and over-long lines ourselves. Lines are handed
 * over left-trimmed, so an indented key is never taken for the continuation
 * of the previous value (inih's multi-line values).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <ini.h>

#include "emu/device/config_int.h"

#define LINE_MAX_LEN	1024	/* our own line buffer */

void emu_cfg_report(struct parser *p, int line, const char *key,
		    const char *fmt, ...)
{
	va_list ap;

	p->errors++;
	if (!p->errf)
		return;
	fprintf(p->errf, "%s:%d: %s: ", p->file, line, key);
	va_start(ap, fmt);
	vfprintf(p->errf, fmt, ap);
	va_end(ap);
	fputc('\n', p->errf);
}

void emu_cfg_key_error(struct parser *p, const char *key, const char *msg)
{
	emu_cfg_report(p, p->line, key, "%s", msg);
	if (p->dev)
		p->dev->bad = true;
}

/* A "[...]" line (trimmed). */
static void section_line(struct parser *p, char *s)
{
	char *close = strchr(s, ']'), *rest, *word[4], *save = NULL, *w;
	char shown[LINE_MAX_LEN + 2];
	unsigned int n = 0, i;

	emu_cfg_end_section(p);
	if (!close) {
		emu_cfg_report(p, p->line, s, "missing ']'");
		p->kind = SECT_IGNORED;
		return;
	}
	*close = '\0';
	snprintf(shown, sizeof(shown), "%s]", s);
	for (rest = close + 1; isspace((unsigned char)*rest); rest++)
		;
	if (*rest && *rest != ';' && *rest != '#') {
		emu_cfg_report(p, p->line, shown, "text after ']': %s", rest);
		p->kind = SECT_IGNORED;
		return;
	}
	for (w = strtok_r(s + 1, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (n == 4)
			break;
		word[n++] = w;
	}
	p->sect[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(p->sect + strlen(p->sect),
			 sizeof(p->sect) - strlen(p->sect), "%s%s",
			 i ? " " : "", word[i]);
	if (n && !strcmp(word[0], "device")) {
		emu_cfg_device_section(p, word, n);
	} else if (n && !strcmp(word[0], "port")) {
		emu_cfg_port_section(p, word, n);
	} else if (n && !strcmp(word[0], "fault")) {
		emu_cfg_fault_section(p, word, n);
	} else {
		emu_cfg_report(p, p->line, shown,
			       "unknown section (expected [device "
			       "NAME], [port NAME N] or [fault NAME])");
		p->kind = SECT_IGNORED;
	}
}

/* inih's callback for one "key = value" line. */
static int on_pair(void *user, const char *section, const char *name,
		   const char *value)
{
	struct parser *p = user;

	(void)section;		/* we track sections ourselves */
	if (!name)		/* a library built to announce sections */
		return 1;
	p->handled = true;
	if (!value)		/* a library built to allow "key" alone */
		value = "";
	switch (p->kind) {
	case SECT_NONE:
		emu_cfg_report(p, p->line, name,
			       "key outside any section (expected "
			       "[device NAME] or [port NAME N] first)");
		break;
	case SECT_DEVICE:
		emu_cfg_device_key(p, name, value);
		break;
	case SECT_PORT:
		emu_cfg_port_key(p, name, value);
		break;
	case SECT_FAULT:
		emu_cfg_fault_key(p, name, value);
		break;
	case SECT_IGNORED:
		break;		/* the section header was reported */
	}
	return 1;		/* never stop: report every problem */
}

#if INI_HANDLER_LINENO
static int on_pair_lineno(void *user, const char *section, const char *name,
			  const char *value, int lineno)
{
	(void)lineno;		/* our reader counts lines */
	return on_pair(user, section, name, value);
}
#define ON_PAIR on_pair_lineno
#else
#define ON_PAIR on_pair
#endif

/* A line inih was given but did not call back for could not be parsed. */
static void finish_line(struct parser *p)
{
	if (p->content && !p->handled && p->kind != SECT_IGNORED) {
		emu_cfg_report(p, p->line, p->key,
			       "cannot parse this line (expected "
			       "KEY = VALUE)");
		if (p->dev)
			p->dev->bad = true;
	}
	p->content = false;
}

static int next_char(struct parser *p)
{
	int c;

	if (p->in) {
		c = getc(p->in);
		if (c == EOF && ferror(p->in) && !p->read_errno)
			p->read_errno = errno ? errno : EIO;
		return c;
	}
	c = (unsigned char)p->str[p->pos];
	if (!c)
		return EOF;
	p->pos++;
	return c;
}

/* Read one physical line into buf (NUL-terminated, without '\n').
 * Returns its length, -1 at end of input, or -2 if it was too long or held
 * a NUL byte (the rest of the line is consumed). */
static int raw_line(struct parser *p, char *buf, size_t size)
{
	size_t n = 0;
	bool bad = false;
	int c;

	c = next_char(p);
	if (c == EOF)
		return -1;
	for (; c != EOF && c != '\n'; c = next_char(p)) {
		if (c == '\0' || n + 1 >= size) {
			bad = true;
			continue;
		}
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return bad ? -2 : (int)n;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* The key of a line, for messages about a line that is not understood. */
static void line_key(struct parser *p, const char *s)
{
	size_t n = strcspn(s, "=: \t");

	if (!n)
		n = strlen(s);
	if (n >= sizeof(p->key))
		n = sizeof(p->key) - 1;
	memcpy(p->key, s, n);
	p->key[n] = '\0';
}

/* inih's fgets-style reader. Everything but "key = value" lines is dealt
 * with here and handed to inih as an empty line. */
static char *reader(char *str, int num, void *stream)
{
	struct parser *p = stream;
	char line[LINE_MAX_LEN], *s;
	int n;

	finish_line(p);
	n = raw_line(p, line, sizeof(line));
	if (n == -1)
		return NULL;
	p->line++;
	s = line;
	if (p->line == 1 && !strncmp(s, "\xef\xbb\xbf", 3))
		s += 3;		/* UTF-8 byte order mark */
	s = trim(s);
	strcpy(str, "");
	if (*s == ';' || *s == '#')
		return str;
	if (n == -2) {
		line_key(p, s);
		emu_cfg_report(p, p->line, p->key,
			       "line is longer than %d characters "
			       "or holds a NUL byte",
			       LINE_MAX_LEN - 1);
		if (p->dev && p->kind != SECT_IGNORED)
			p->dev->bad = true;
		return str;
	}
	if (!*s)
		return str;
	if (*s == '[') {
		section_line(p, s);
		return str;
	}
	line_key(p, s);
	if (strlen(s) + 1 > (size_t)num) {
		if (p->kind != SECT_IGNORED) {
			emu_cfg_report(p, p->line, p->key,
				       "line is longer than %d "
				       "characters",
				       num - 1);
			if (p->dev)
				p->dev->bad = true;
		}
		return str;
	}
	strcpy(str, s);
	p->content = true;
	p->handled = false;
	return str;
}

int emu_cfg_parse(struct emu_config *cfg, const char *name, FILE *in,
		  const char *text, FILE *errf)
{
	struct parser parser, *p = &parser;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->source, sizeof(cfg->source), "%s", name);
	memset(p, 0, sizeof(*p));	/* about 4 KiB: no allocation */
	p->cfg = cfg;
	p->file = cfg->source;
	p->errf = errf;
	p->in = in;
	p->str = text;

	ret = ini_parse_stream(reader, p, ON_PAIR, p);
	finish_line(p);
	if (ret < 0) {
		/* -2: inih could not allocate its line buffer. */
		emu_cfg_report(p, p->line, "inih", "cannot parse: error %d",
			       ret);
		cfg->ndevices = 0;
	}
	emu_cfg_finish(p);
	if (p->read_errno) {
		if (errf)
			fprintf(errf, "%s: cannot read: %s\n", name,
				strerror(p->read_errno));
		p->errors++;
		cfg->ndevices = 0;
	}
	return p->errors;
}

int emu_config_parse_string(struct emu_config *cfg, const char *text,
			    const char *name, FILE *errf)
{
	return emu_cfg_parse(cfg, name ? name : "(string)", NULL,
			     text ? text : "", errf);
}
