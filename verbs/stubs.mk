# Build fragment for the symbol map, the EOPNOTSUPP stubs, the *_str / rate /
# fork helpers and their tests; included from the top-level Makefile.am.

libibverbs_la_SOURCES += verbs/unsupported.c verbs/strings.c verbs/rate.c

EXTRA_DIST += verbs/libibverbs.map tests/symbols_test.sh

check_PROGRAMS += tests/unit/test_strings
tests_unit_test_strings_SOURCES = tests/unit/test_strings.c \
	verbs/strings.c verbs/rate.c tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_strings_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_strings_LDADD = $(CHECK_LIBS)

# symbols_test.sh reads the map from $top_srcdir and the library from
# $top_builddir/.libs (or $EMU_LIBDIR), both set by AM_TESTS_ENVIRONMENT.
TESTS += tests/unit/test_strings tests/symbols_test.sh

# The historical sysfs helpers, compiled straight into their test.
check_PROGRAMS += tests/unit/test_sysfs
tests_unit_test_sysfs_SOURCES = tests/unit/test_sysfs.c verbs/sysfs.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_sysfs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_sysfs_LDADD = $(CHECK_LIBS)
TESTS += tests/unit/test_sysfs
