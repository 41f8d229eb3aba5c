/* tests/unit/test_trace.c: the event trace's writer (emu/observe/trace.c): lines
 * that are one JSON object each (checked with emuverbs plot's reader),
 * strings escaped, a line too long cut at a field, lines of several
 * threads never mixed, bad paths, a full disk and failed allocations
 * saying so in one line and leaving no file; and the process's tracer
 * (emu/observe/tracer.c) started, refused a second time, stopped. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu/observe/trace.h"
#include "emu/observe/tracer.h"
#include "tests/unit/testlib.h"
#include "tools/plot.h"

static char dir[64], path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/emuverbs-trace-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.jsonl", dir);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Every line of the file parsed: how many; each must be an object with
 * a "ts" and an "ev". */
static unsigned int check_lines(const char *file, const char *want_ev)
{
	static struct plot_line l;
	char buf[PLOT_LINE];
	unsigned int n = 0;
	FILE *f = fopen(file, "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(buf, sizeof(buf), f)) {
		ck_assert_msg(buf[strlen(buf) - 1] == '\n', "cut: %s", buf);
		ck_assert_msg(!plot_parse(buf, &l), "not JSON: %s", buf);
		ck_assert_double_gt(plot_num(&l, "ts", -1), 1e9);
		if (want_ev)
			ck_assert_str_eq(plot_str(&l, "ev", ""), want_ev);
		n++;
	}
	fclose(f);
	return n;
}

START_TEST(test_events)
{
	static struct plot_line l;
	struct emu_trace *t;
	char why[256], buf[PLOT_LINE], s[64];
	FILE *f;

	ck_assert_int_eq(emu_trace_open(&t, path, why, sizeof(why)), 0);
	ck_assert_str_eq(emu_trace_path(t), path);
	emu_trace_event(t, "qp_state", ",\"qpn\":%u,\"to\":%s", 18u,
			emu_trace_str(s, sizeof(s), "RTS"));
	emu_trace_event(t, "nothing", "%s", "");
	ck_assert_uint_eq(emu_trace_events(t), 2);
	ck_assert_str_eq(emu_trace_error(t), "");
	ck_assert_int_eq(emu_trace_close(t), 0);

	ck_assert_uint_eq(check_lines(path, NULL), 2);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	/* "ts" first, then "ev": what a reader of the schema sees. */
	ck_assert_int_eq(strncmp(buf, "{\"ts\":", 6), 0);
	ck_assert_ptr_nonnull(strstr(buf, ",\"ev\":\"qp_state\",\"qpn\":18,"));
	ck_assert_int_eq(plot_parse(buf, &l), 0);
	ck_assert_str_eq(plot_str(&l, "to", ""), "RTS");
	ck_assert_double_eq(plot_num(&l, "qpn", 0), 18);
	fclose(f);
}
END_TEST

START_TEST(test_escaping)
{
	static struct plot_line l;
	char s[64], line[256];

	ck_assert_str_eq(emu_trace_str(s, sizeof(s), "a\"b\\c\n\x01"),
			 "\"a\\\"b\\\\c\\u000a\\u0001\"");
	ck_assert_str_eq(emu_trace_str(s, sizeof(s), NULL), "\"\"");
	/* Cut short to fit, and still a closed string. */
	ck_assert_str_eq(emu_trace_str(s, 6, "abcdef"), "\"abc\"");
	ck_assert_str_eq(emu_trace_str(s, 6, "a\"bcd"), "\"a\\\"\"");
	ck_assert_str_eq(emu_trace_str(s, 5, "a\"bcd"), "\"a\"");
	ck_assert_str_eq(emu_trace_str(s, 3, "abc"), "\"\"");
	ck_assert_str_eq(emu_trace_str(s, 2, "abc"), "");
	/* What it makes, a reader takes back. */
	snprintf(line, sizeof(line), "{\"k\":%s}",
		 emu_trace_str(s, sizeof(s), "q\"\\\t\x1f"));
	ck_assert_int_eq(plot_parse(line, &l), 0);
	ck_assert_str_eq(plot_str(&l, "k", ""), "q\"\\\t\x1f");
}
END_TEST

/* A line longer than EMU_TRACE_LINE loses its last fields whole. */
START_TEST(test_long_line)
{
	static struct plot_line l;
	struct emu_trace *t;
	char why[256], big[600], s[700], buf[PLOT_LINE];
	size_t i;
	FILE *f;

	/* Commas inside the strings: a cut must not take them for the
	 * ends of fields. */
	memset(big, 'x', sizeof(big) - 1);
	for (i = 0; i + 1 < sizeof(big); i += 7)
		big[i] = ',';
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(emu_trace_open(&t, path, why, sizeof(why)), 0);
	emu_trace_event(t, "long", ",\"a\":1,\"b\":%s,\"c\":%s,\"d\":2",
			emu_trace_str(s, sizeof(s), big),
			emu_trace_str(s, sizeof(s), big));
	ck_assert_int_eq(emu_trace_close(t), 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_uint_le(strlen(buf), EMU_TRACE_LINE);
	ck_assert_int_eq(plot_parse(buf, &l), 0);
	ck_assert_double_eq(plot_num(&l, "a", 0), 1);
	ck_assert_ptr_nonnull(plot_str(&l, "b", NULL));
	ck_assert_ptr_null(plot_str(&l, "c", NULL));
	ck_assert_double_eq(plot_num(&l, "d", -1), -1);
}
END_TEST

static void *writer(void *arg)
{
	struct emu_trace *t = arg;
	int i;

	for (i = 0; i < 5000; i++)
		emu_trace_event(t, "sample", ",\"i\":%d,\"pad\":\"%s\"", i,
				"0123456789012345678901234567890123456789");
	return NULL;
}

START_TEST(test_threads)
{
	struct emu_trace *t;
	pthread_t th[4];
	char why[256];
	int i;

	ck_assert_int_eq(emu_trace_open(&t, path, why, sizeof(why)), 0);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, writer, t), 0);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ck_assert_uint_eq(emu_trace_events(t), 20000);
	ck_assert_int_eq(emu_trace_close(t), 0);
	ck_assert_uint_eq(check_lines(path, "sample"), 20000);
}
END_TEST

START_TEST(test_bad_paths)
{
	struct emu_trace *t = (struct emu_trace *)1;
	char why[256], p[160];
	struct stat st;

	snprintf(p, sizeof(p), "%s/missing/t.jsonl", dir);
	ck_assert_int_eq(emu_trace_open(&t, p, why, sizeof(why)), -1);
	ck_assert_ptr_null(t);
	ck_assert_ptr_nonnull(strstr(why, p));
	ck_assert_ptr_nonnull(strstr(why, "No such file"));
	ck_assert_ptr_null(strchr(why, '\n'));
	ck_assert_int_eq(emu_trace_open(&t, dir, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "Is a directory"));
	ck_assert_int_eq(emu_trace_open(&t, "", why, sizeof(why)), -1);
	ck_assert_int_eq(stat(p, &st), -1);
}
END_TEST

/* A disk that takes nothing: the writer says it, once, in one line. */
START_TEST(test_full_disk)
{
	struct emu_trace *t;
	char why[256];
	int i;

	ck_assert_int_eq(emu_trace_open(&t, "/dev/full", why, sizeof(why)), 0);
	for (i = 0; i < 2000; i++)
		emu_trace_event(t, "x", ",\"i\":%d", i);
	emu_trace_flush(t);
	ck_assert_ptr_nonnull(strstr(emu_trace_error(t), "No space left"));
	ck_assert_uint_lt(emu_trace_events(t), 2000);
	ck_assert_int_eq(emu_trace_close(t), -1);
}
END_TEST

/* Each allocation of emu_trace_open fails in turn: a one-line reason,
 * and no file is made. */
START_TEST(test_alloc_failure)
{
	struct emu_trace *t;
	char why[256];
	struct stat st;
	int k;

	for (k = 0; k < 2; k++) {
		why[0] = '\0';
		if (k == 0)
			emu_test_fail_calloc(1);
		else
			emu_test_fail_malloc(1);
		ck_assert_int_eq(emu_trace_open(&t, path, why, sizeof(why)),
				 -1);
		ck_assert_int_eq(emu_test_alloc_armed(), 0);
		ck_assert_ptr_nonnull(strstr(why, "out of memory"));
		ck_assert_ptr_nonnull(strstr(why, path));
		ck_assert_int_eq(stat(path, &st), -1);
		ck_assert_int_eq(errno, ENOENT);
	}
}
END_TEST

START_TEST(test_path_expand)
{
	char b[64], want[64];

	snprintf(want, sizeof(want), "/x/t-%d-%%p.jsonl", (int)getpid());
	ck_assert_int_eq(emu_path_expand("/x/t-%p-%%p.jsonl", b, sizeof(b)),
			 0);
	ck_assert_str_eq(b, want);
	ck_assert_int_eq(emu_path_expand("a%", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "a%");
	ck_assert_int_eq(emu_path_expand("", b, sizeof(b)), 0);
	ck_assert_str_eq(b, "");
	ck_assert_int_eq(emu_path_expand("abcdef", b, 4), -1);
	ck_assert_int_eq(emu_path_expand("%p", b, 2), -1);
}
END_TEST

/* The process's tracer, with no device open: a file with its start and
 * stop, a second start refused, a bad one changing nothing. */
START_TEST(test_tracer)
{
	char why[512], p[160];

	ck_assert(!emu_trace_on());
	snprintf(p, sizeof(p), "%s/none/t.jsonl", dir);
	ck_assert_int_eq(emu_tracer_start(p, 0, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, p));
	ck_assert(!emu_trace_on());
	ck_assert_int_eq(emu_tracer_stop(why, sizeof(why)), -1);
	ck_assert_str_eq(why, "no trace runs");

	snprintf(p, sizeof(p), "%s/t-%%p.jsonl", dir);
	ck_assert_int_eq(emu_tracer_start(p, 50, why, sizeof(why)), 0);
	ck_assert(emu_trace_on());
	ck_assert_int_eq(emu_tracer_start(p, 0, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "a trace runs already"));
	emu_trace_emit("cm", ",\"event\":\"RDMA_CM_EVENT_ESTABLISHED\"");
	emu_tracer_status(why, sizeof(why));
	ck_assert_ptr_nonnull(strstr(why, "trace running"));
	ck_assert_ptr_nonnull(strstr(why, "events 2"));
	ck_assert_int_eq(emu_tracer_stop(why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(strstr(why, "trace stopped"));
	ck_assert_ptr_nonnull(strstr(why, "events 3"));
	ck_assert(!emu_trace_on());
	emu_tracer_status(why, sizeof(why));
	ck_assert_str_eq(why, "trace off");
	snprintf(p, sizeof(p), "%s/t-%d.jsonl", dir, (int)getpid());
	ck_assert_uint_eq(check_lines(p, NULL), 3);
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("writer");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_escaping);
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_bad_paths);
	tcase_add_test(tc, test_full_disk);
	tcase_add_test(tc, test_alloc_failure);
	tcase_add_test(tc, test_path_expand);
	tcase_add_test(tc, test_tracer);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(trace_suite());
}
