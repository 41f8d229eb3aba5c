# Memory regions, their key table, PD/AH accounting and address handles,
# with their unit tests; included from the top Makefile.am.
libemucore_la_SOURCES += emu/mr.c emu/mr.h emu/pd.h emu/ah.c emu/ah.h

check_PROGRAMS += tests/unit/test_mr tests/unit/test_pd_ah
TESTS += tests/unit/test_mr tests/unit/test_pd_ah

# Emu level: the key table, registration and the access check. The test
# makes calloc fail through testlib.c's __wrap_calloc (allocation-failure
# paths) without a hook in the library.
tests_unit_test_mr_SOURCES = tests/unit/test_mr.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_mr_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_mr_LDADD = libemucore.la $(CHECK_LIBS)
tests_unit_test_mr_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=calloc

# Public API only: the drop-in library and our verbs.h.
tests_unit_test_pd_ah_SOURCES = tests/unit/test_pd_ah.c \
	tests/unit/testlib.c tests/unit/testlib.h \
	tests/unit/verbs_fixture.c tests/unit/verbs_fixture.h
tests_unit_test_pd_ah_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_pd_ah_LDADD = libibverbs.la $(CHECK_LIBS)
