# Shared receive queues (basic and XRC) and XRC domains: the objects (emu/),
# their verbs (verbs/), and their unit and integration tests.
libemucore_la_SOURCES += emu/srq.c emu/srq.h emu/tm.c emu/tm.h
libibverbs_la_SOURCES += verbs/srq.c verbs/srq_ops.h

# test_srq: the public API, with the whole front end built in over
# libemucore so that calloc/malloc wrapped at link time reach the
# library's own allocations (failure injection without a hook).
SRQ_UNIT_TESTS = tests/unit/test_srq
check_PROGRAMS += $(SRQ_UNIT_TESTS)
TESTS += $(SRQ_UNIT_TESTS) tests/integration/srq.sh
EXTRA_DIST += tests/integration/srq.sh

tests_unit_test_srq_SOURCES = tests/unit/test_srq.c tests/unit/testlib.c \
	tests/unit/testlib.h tests/unit/verbs_fixture.c \
	tests/unit/verbs_fixture.h verbs/srq.c verbs/qp.c verbs/qp_ex.c \
	verbs/ops.c verbs/cq.c verbs/async.c verbs/pd_mr.c verbs/device.c \
	verbs/query.c verbs/sysfs.c verbs/unsupported.c verbs/strings.c \
	verbs/rate.c
tests_unit_test_srq_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_srq_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=calloc \
	-Wl,--wrap=malloc
tests_unit_test_srq_LDADD = libemucore.la $(CHECK_LIBS) -ldl

# test_tm: tag-matching SRQs end to end through the drop-in library.
check_PROGRAMS += tests/unit/test_tm
TESTS += tests/unit/test_tm
tests_unit_test_tm_SOURCES = tests/unit/test_tm.c tests/unit/testlib.c \
	tests/unit/testlib.h
tests_unit_test_tm_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_tm_LDADD = libibverbs.la $(CHECK_LIBS)
