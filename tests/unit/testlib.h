/* Shared by the Check unit tests: the runner, a private configuration for
 * public-API tests, and calloc/malloc failure injection. */
#ifndef EMU_TESTLIB_H
#define EMU_TESTLIB_H

#include <check.h>

/* Runs every test of s, each in a child process of its own (CK_FORK even
 * when the environment says CK_FORK=no: injected failures, rlimits and
 * the library's registry must not leak into the next test), then removes
 * the directory emu_test_isolate_config made. Returns the exit status:
 * EXIT_SUCCESS, or EXIT_FAILURE when a test failed. */
int emu_test_run(Suite *s);

/* Call from main() before emu_test_run: a fresh temporary HOME and
 * XDG_CONFIG_HOME and no EMUVERBS_* variable but EMUVERBS_UDP_IO (the
 * suite's choice of I/O path), so the library builds its
 * registry from the embedded default whatever the user's setup; no
 * control socket (EMUVERBS_NO_CONTROL) unless a test unsets it, and then
 * one in a runtime directory of the run's own. Exits
 * with EXIT_FAILURE when the directory cannot be made. */
void emu_test_isolate_config(void);

/* Call from a test: writes text as a config file in that directory and
 * points EMUVERBS_CONFIG at it. Returns its path (the runner removes the
 * file, a test may remove it sooner). */
const char *emu_test_write_config(const char *text);

/* The nth calloc (malloc) from now returns NULL, 1 being the next; 0
 * disarms. Only in a test linked with -Wl,--wrap=calloc (malloc), which
 * sends every call, the library's included, through the countdown. */
void emu_test_fail_calloc(int nth);
void emu_test_fail_malloc(int nth);

/* Failures armed and not yet reached: 0 once each has happened. */
int emu_test_alloc_armed(void);

/* How much longer than on a quiet machine a test may wait for something
 * to happen: CK_TIMEOUT_MULTIPLIER, which scales Check's own timeouts
 * too (at least 1). Deadlines are multiplied by it; nothing that should
 * happen is ever asserted to happen quickly on a machine others share. */
double emu_test_slack(void);

#endif
