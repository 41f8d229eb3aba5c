/* The event trace's entry point for librdmacm (include/emuverbs/trace.h):
 * its connection events written as "cm" lines by the device's tracer. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <emuverbs/trace.h>

#include "emu/observe/trace.h"
#include "emu/observe/tracer.h"

/* "address:port" of a socket address, or "" for none. */
static void addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "";
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;

	buf[0] = '\0';
	if (!sa)
		return;
	if (sa->sa_family == AF_INET) {
		memcpy(&s4, sa, sizeof(s4));
		inet_ntop(AF_INET, &s4.sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4.sin_port));
	} else if (sa->sa_family == AF_INET6) {
		memcpy(&s6, sa, sizeof(s6));
		inet_ntop(AF_INET6, &s6.sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6.sin6_port));
	}
}

void emuverbs_trace_cm(const char *event, int status, uint32_t qpn,
		       const struct sockaddr *src, const struct sockaddr *dst)
{
	char s[80], d[80], js[96], jd[96], je[96];

	if (!emu_trace_on())
		return;
	addr_str(src, s, sizeof(s));
	addr_str(dst, d, sizeof(d));
	emu_trace_emit("cm", ",\"event\":%s,\"status\":%d,\"qpn\":%u,"
		       "\"src\":%s,\"dst\":%s",
		       emu_trace_str(je, sizeof(je), event), status, qpn,
		       emu_trace_str(js, sizeof(js), s),
		       emu_trace_str(jd, sizeof(jd), d));
}
