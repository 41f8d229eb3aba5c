# GID tables and the rtnetlink follower that keeps them equal to a netdev's
# addresses; included from the top Makefile.am.
libemucore_la_SOURCES += emu/gid.c emu/gid.h emu/netlink.c emu/netlink.h

check_PROGRAMS += tests/unit/test_gid tests/unit/test_netlink
TESTS += tests/unit/test_gid tests/unit/test_netlink

tests_unit_test_gid_SOURCES = tests/unit/test_gid.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_gid_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_gid_LDADD = libemucore.la $(CHECK_LIBS)
# The test makes the table's calloc fail through testlib.c's __wrap_calloc
# (init's ENOMEM path) without a test hook in the library.
tests_unit_test_gid_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=calloc

# Runs as root only (network namespaces); otherwise exits 77 (SKIP).
tests_unit_test_netlink_SOURCES = tests/unit/test_netlink.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_netlink_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(NLROUTE_CFLAGS)
tests_unit_test_netlink_LDADD = libemucore.la $(CHECK_LIBS) $(NLROUTE_LIBS)
