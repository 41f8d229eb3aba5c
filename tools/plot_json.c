/* tools/plot_json.c: a reader of the trace's lines (tools/plot.h). It takes
 * the JSON a trace line can hold, flat objects of strings, numbers, true,
 * false and null, and refuses the rest rather than guess. */
#include <stdlib.h>
#include <string.h>

#include "tools/plot.h"

struct rd {
	const char *p;
	char *out, *end;		/* into the line's buffer */
};

static void ws(struct rd *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' ||
	       *r->p == '\n')
		r->p++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append byte c to the buffer: -1 when full. */
static int put(struct rd *r, char c)
{
	if (r->out >= r->end)
		return -1;
	*r->out++ = c;
	return 0;
}

/* A UTF-8 encoding of code point u (below 0x10000: \uXXXX). */
static int put_utf8(struct rd *r, unsigned int u)
{
	if (u < 0x80)
		return put(r, (char)u);
	if (u < 0x800)
		return put(r, (char)(0xc0 | u >> 6)) ||
		       put(r, (char)(0x80 | (u & 0x3f)));
	return put(r, (char)(0xe0 | u >> 12)) ||
	       put(r, (char)(0x80 | ((u >> 6) & 0x3f))) ||
	       put(r, (char)(0x80 | (u & 0x3f)));
}

/* A string at r->p (its opening quote): its decoded text in the buffer,
 * or NULL. */
static const char *string(struct rd *r)
{
	const char *start = r->out;
	unsigned int u;
	int i, h;

	if (*r->p++ != '"')
		return NULL;
	for (;;) {
		char c = *r->p++;

		if (!c || (unsigned char)c < 0x20)
			return NULL;
		if (c == '"')
			break;
		if (c != '\\') {
			if (put(r, c))
				return NULL;
			continue;
		}
		c = *r->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			break;
		case 'b':
			c = '\b';
			break;
		case 'f':
			c = '\f';
			break;
		case 'n':
			c = '\n';
			break;
		case 'r':
			c = '\r';
			break;
		case 't':
			c = '\t';
			break;
		case 'u':
			for (u = 0, i = 0; i < 4; i++) {
				h = hexval(*r->p++);
				if (h < 0)
					return NULL;
				u = u << 4 | (unsigned int)h;
			}
			if (put_utf8(r, u))
				return NULL;
			continue;
		default:
			return NULL;
		}
		if (put(r, c))
			return NULL;
	}
	if (put(r, '\0'))
		return NULL;
	return start;
}

int plot_parse(const char *text, struct plot_line *l)
{
	struct rd r = { text, l->buf, l->buf + sizeof(l->buf) };
	struct plot_field *f;
	char *end;

	l->n = 0;
	ws(&r);
	if (*r.p++ != '{')
		return -1;
	ws(&r);
	if (*r.p == '}') {
		r.p++;
		goto done;
	}
	for (;;) {
		if (l->n == PLOT_FIELDS)
			goto bad;
		f = &l->f[l->n];
		ws(&r);
		f->key = string(&r);
		if (!f->key)
			goto bad;
		ws(&r);
		if (*r.p++ != ':')
			goto bad;
		ws(&r);
		f->str = NULL;
		f->num = 0;
		if (*r.p == '"') {
			f->str = string(&r);
			if (!f->str)
				goto bad;
		} else if (!strncmp(r.p, "true", 4)) {
			f->num = 1;
			r.p += 4;
		} else if (!strncmp(r.p, "false", 5)) {
			r.p += 5;
		} else if (!strncmp(r.p, "null", 4)) {
			r.p += 4;
		} else if (*r.p == '-' || (*r.p >= '0' && *r.p <= '9')) {
			f->num = strtod(r.p, &end);
			if (end == r.p)
				goto bad;
			r.p = end;
		} else {
			goto bad;
		}
		l->n++;
		ws(&r);
		if (*r.p == ',') {
			r.p++;
			continue;
		}
		if (*r.p++ != '}')
			goto bad;
		break;
	}
done:
	ws(&r);
	if (*r.p)
		goto bad;
	return 0;
bad:
	l->n = 0;
	return -1;
}

static const struct plot_field *find(const struct plot_line *l,
				     const char *key)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->f[i].key, key))
			return &l->f[i];
	return NULL;
}

double plot_num(const struct plot_line *l, const char *key, double def)
{
	const struct plot_field *f = find(l, key);

	return f && !f->str ? f->num : def;
}

const char *plot_str(const struct plot_line *l, const char *key,
		     const char *def)
{
	const struct plot_field *f = find(l, key);

	return f && f->str ? f->str : def;
}
