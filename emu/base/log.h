/* The debug log: why a verb refused its arguments, and what the engine did
 * (QP state changes, retransmissions, NAKs, dropped packets). Off unless
 * EMUVERBS_DEBUG names it (doc/configuration.md); when off, a log call is
 * one test of a global. */
#ifndef EMU_LOG_H
#define EMU_LOG_H

#include <stdbool.h>

enum emu_log_class {
	EMU_LOG_VERBS = 1 << 0,	/* a verb refused: which argument or rule */
	EMU_LOG_QP = 1 << 1,	/* QP state changes and async events */
	EMU_LOG_XPORT = 1 << 2,	/* retransmissions, timeouts, NAKs, RNR */
	EMU_LOG_RX = 1 << 3,	/* received packets dropped, and why */
	EMU_LOG_CM = 1 << 4,	/* librdmacm: CM MADs, states, refusals */
	EMU_LOG_ALL = (1 << 5) - 1,
};

/* The classes EMUVERBS_DEBUG turned on, read once at load time. */
extern unsigned int emu_log_mask;

void emu_log_print(enum emu_log_class c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parse an EMUVERBS_DEBUG value ("1", "all", or a comma list of verbs, qp,
 * xport, rx, cm); unknown words are ignored. */
unsigned int emu_log_parse(const char *spec);

/* Whether class c is on: for log lines that need work to compose. */
#define emu_log_on(c) __builtin_expect((emu_log_mask & (c)) != 0, 0)

/* An expression, so that it can stand inside emu_refuse(). */
#define emu_log(c, ...)                                                   \
	((void)(__builtin_expect((emu_log_mask & (c)) != 0, 0) &&         \
		(emu_log_print((c), __VA_ARGS__), 1)))

/* A verb's refusal: logs why, evaluates to err (an errno value). */
#define emu_refuse(err, ...)                                              \
	(emu_log(EMU_LOG_VERBS, __VA_ARGS__), (err))

#endif
