# Completion queues and channels: the ring (emu/cq.c), the front end's ops
# header, and their Check tests; included from the top-level Makefile.am.

libemucore_la_SOURCES += emu/cq.c emu/cq.h
libibverbs_la_SOURCES += verbs/cq_ops.h

CQ_UNIT_TESTS = tests/unit/test_cq tests/unit/test_cq_emu
check_PROGRAMS += $(CQ_UNIT_TESTS)
TESTS += $(CQ_UNIT_TESTS)

# Public API only: the drop-in library and our verbs.h.
tests_unit_test_cq_SOURCES = tests/unit/test_cq.c \
	tests/unit/testlib.c tests/unit/testlib.h \
	tests/unit/verbs_fixture.c tests/unit/verbs_fixture.h
tests_unit_test_cq_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_cq_LDADD = libibverbs.la $(CHECK_LIBS)

# Emu level: the core plus the CQ front end (verbs/cq.c, verbs/async.c)
# built in, so a test can push completions with emu_cq_push and consume
# them through the verbs; calloc and malloc are wrapped at link time to
# make allocations fail without a hook in the library.
tests_unit_test_cq_emu_SOURCES = tests/unit/test_cq_emu.c verbs/cq.c \
	verbs/async.c tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_cq_emu_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_cq_emu_LDADD = libemucore.la $(CHECK_LIBS)
tests_unit_test_cq_emu_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=calloc \
	-Wl,--wrap=malloc
