/* The value parsers of the configuration: numbers, GUIDs, addresses,
 * interface names and choices from a list, each 0, or -1 with the reason in
 * err (MSG_LEN bytes), worded for a "FILE:LINE: KEY: reason" line. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "emu/device/config_int.h"

int emu_cfg_fail(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, MSG_LEN, fmt, ap);
	va_end(ap);
	return -1;
}

/* Decimal, or hex with 0x. No sign, no octal: "010" is ten. */
int emu_cfg_parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
		      char *err)
{
	const char *s = v;
	int base = 10;
	char *end;
	unsigned long long x;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (base == 16 ? !isxdigit((unsigned char)*s) :
			 !isdigit((unsigned char)*s))
		return emu_cfg_fail(err, "%s is not a number", v);
	errno = 0;
	x = strtoull(s, &end, base);
	if (*end)
		return emu_cfg_fail(err, "%s is not a number", v);
	if (errno == ERANGE || x < lo || x > hi)
		return emu_cfg_fail(err, "%s is out of range (%llu..%llu)", v,
				    (unsigned long long)lo,
				    (unsigned long long)hi);
	*out = x;
	return 0;
}

int emu_cfg_parse_u32(const char *v, uint64_t lo, uint64_t hi, uint32_t *out,
		      char *err)
{
	uint64_t x;

	if (emu_cfg_parse_u64(v, lo, hi, &x, err))
		return -1;
	*out = (uint32_t)x;
	return 0;
}

static unsigned int hexval(char c)
{
	return isdigit((unsigned char)c) ? (unsigned int)(c - '0') :
		(unsigned int)(tolower((unsigned char)c) - 'a' + 10);
}

/* 0x0002c9fffe000001, 0002c9fffe000001, or 0002:c9ff:fe00:0001 as
 * ibv_devinfo prints it. Always hex. */
int emu_cfg_parse_guid(const char *v, uint64_t *out, char *err)
{
	bool colons = strchr(v, ':') != NULL;
	const char *s = v;
	unsigned int digits = 0, group = 0, groups = 0;
	uint64_t x = 0;

	if (!colons && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++) {
		if (colons && *s == ':') {
			if (group != 4)
				goto bad;
			group = 0;
			groups++;
			continue;
		}
		if (!isxdigit((unsigned char)*s) || digits == 16)
			goto bad;
		x = x << 4 | hexval(*s);
		digits++;
		group++;
	}
	if (!digits || (colons && (groups != 3 || group != 4)))
		goto bad;
	*out = x;
	return 0;
bad:
	return emu_cfg_fail(err,
			    "%s is not a GUID (0x0002c9fffe000001 or "
			    "0002:c9ff:fe00:0001)",
			    v);
}

/* IPv4 is stored v4-mapped (::ffff:a.b.c.d), as a RoCEv2 GID holds it. */
int emu_cfg_parse_addr(const char *v, struct in6_addr *out, char *err)
{
	struct in_addr a4;

	if (inet_pton(AF_INET6, v, out) == 1)
		return 0;
	if (inet_pton(AF_INET, v, &a4) == 1) {
		memset(out, 0, sizeof(*out));
		out->s6_addr[10] = 0xff;
		out->s6_addr[11] = 0xff;
		memcpy(&out->s6_addr[12], &a4, 4);
		return 0;
	}
	return emu_cfg_fail(err, "%s is not an IPv4 or IPv6 address", v);
}

/* The kernel's dev_valid_name(): what an interface can be called. */
int emu_cfg_parse_netdev(const char *v, char *out, char *err)
{
	const char *s;

	if (strlen(v) >= IF_NAMESIZE)
		return emu_cfg_fail(err, "%s is longer than %d characters", v,
				    IF_NAMESIZE - 1);
	if (!strcmp(v, ".") || !strcmp(v, ".."))
		return emu_cfg_fail(err, "%s is not an interface name", v);
	for (s = v; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s))
			return emu_cfg_fail(err, "%s is not an interface name",
					    v);
	strcpy(out, v);
	return 0;
}

int emu_cfg_parse_choice(const char *v, const char *const *names,
			 const char *list, unsigned int *out, char *err)
{
	unsigned int i;

	for (i = 0; names[i]; i++) {
		if (!strcasecmp(v, names[i])) {
			*out = i;
			return 0;
		}
	}
	return emu_cfg_fail(err, "%s is not one of %s", v, list);
}
