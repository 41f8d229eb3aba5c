# Configuration (INI file, environment, embedded default) and the port speed
# model, with their unit tests; included from the top Makefile.am.
libemucore_la_SOURCES += emu/config.c emu/config.h emu/speed.c emu/speed.h

check_PROGRAMS += tests/unit/test_config tests/unit/test_speed
TESTS += tests/unit/test_config tests/unit/test_speed

tests_unit_test_config_SOURCES = tests/unit/test_config.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_config_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(INIH_CFLAGS)
tests_unit_test_config_LDADD = libemucore.la $(CHECK_LIBS)

tests_unit_test_speed_SOURCES = tests/unit/test_speed.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_speed_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_speed_LDADD = libemucore.la $(CHECK_LIBS)

EXTRA_DIST += doc/configuration.md
