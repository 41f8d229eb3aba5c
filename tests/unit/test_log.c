/* tests/unit/test_log.c: the debug log's switch (EMUVERBS_DEBUG words) and
 * its output: one whole line per call on stderr, nothing when off, and a
 * refusal that still evaluates to its errno.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/base/log.h"
#include "tests/unit/testlib.h"

START_TEST(test_parse)
{
	ck_assert_uint_eq(emu_log_parse(NULL), 0);
	ck_assert_uint_eq(emu_log_parse(""), 0);
	ck_assert_uint_eq(emu_log_parse("0"), 0);
	ck_assert_uint_eq(emu_log_parse("1"), EMU_LOG_ALL);
	ck_assert_uint_eq(emu_log_parse("ALL"), EMU_LOG_ALL);
	ck_assert_uint_eq(emu_log_parse("verbs"), EMU_LOG_VERBS);
	ck_assert_uint_eq(emu_log_parse("qp,rx"), EMU_LOG_QP | EMU_LOG_RX);
	ck_assert_uint_eq(emu_log_parse(" xport , verbs "),
			  EMU_LOG_XPORT | EMU_LOG_VERBS);
	/* Unknown words and prefixes of known ones turn nothing on. */
	ck_assert_uint_eq(emu_log_parse("verb,qpx,bogus"), 0);
	ck_assert_uint_eq(emu_log_parse("bogus,rx"), EMU_LOG_RX);
}
END_TEST

/* What the calls in fn wrote to stderr, NUL-terminated in buf. */
static void capture(void (*fn)(void), char *buf, size_t len)
{
	int p[2], saved;
	ssize_t n;

	ck_assert_int_eq(pipe(p), 0);
	saved = dup(STDERR_FILENO);
	dup2(p[1], STDERR_FILENO);
	close(p[1]);
	fn();
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = read(p[0], buf, len - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = '\0';
}

static int refused;

static void log_some(void)
{
	emu_log(EMU_LOG_QP, "qp %u: %s", 7u, "RTR -> RTS");
	emu_log(EMU_LOG_RX, "dropped: %s", "bad ICRC");
	refused = emu_refuse(EINVAL, "ibv_modify_qp: %s", "bad mask");
}

START_TEST(test_output)
{
	char buf[4096];

	emu_log_mask = EMU_LOG_QP | EMU_LOG_VERBS;
	capture(log_some, buf, sizeof(buf));
	ck_assert_int_eq(refused, EINVAL);
	ck_assert_ptr_nonnull(strstr(buf, " qp: qp 7: RTR -> RTS\n"));
	ck_assert_ptr_nonnull(strstr(buf, " verbs: ibv_modify_qp: bad mask\n"));
	ck_assert_ptr_null(strstr(buf, "ICRC"));
	ck_assert(!strncmp(buf, "emuverbs[", 9));

	emu_log_mask = 0;
	refused = 0;
	capture(log_some, buf, sizeof(buf));
	ck_assert_int_eq(refused, EINVAL);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_long_line)
{
	char big[2000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	emu_log_mask = EMU_LOG_ALL;
	/* Cut to the line buffer, never overrun, still one line. */
	emu_log_print(EMU_LOG_RX, "%s", big);
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("log");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_output);
	tcase_add_test(tc, test_long_line);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(log_suite());
}
