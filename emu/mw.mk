# Memory windows: the object and its binding (emu/), the alloc/bind/dealloc
# ops (verbs/), and their unit test; included from the top Makefile.am.
libemucore_la_SOURCES += emu/mw.c emu/mw.h
libibverbs_la_SOURCES += verbs/mw.c verbs/mw_ops.h
# test_srq builds the front end from its sources: verbs/ops.c installs ours.
tests_unit_test_srq_SOURCES += verbs/mw.c

check_PROGRAMS += tests/unit/test_mw
TESTS += tests/unit/test_mw

# Public API only: the drop-in library and our verbs.h.
tests_unit_test_mw_SOURCES = tests/unit/test_mw.c tests/unit/testlib.c \
	tests/unit/testlib.h tests/unit/verbs_fixture.c \
	tests/unit/verbs_fixture.h
tests_unit_test_mw_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_mw_LDADD = libibverbs.la $(CHECK_LIBS)
