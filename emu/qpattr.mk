# QP attribute rules (state machine, modify/create checks) and the ibv_wr_*
# builder, with their unit tests; included from the top Makefile.am.
libemucore_la_SOURCES += emu/qp_attr.c emu/qp_attr.h
libibverbs_la_SOURCES += verbs/qp_ex.c emu/qp_ex.h

check_PROGRAMS += tests/unit/test_qp_attr tests/unit/test_qp_ex
TESTS += tests/unit/test_qp_attr tests/unit/test_qp_ex

tests_unit_test_qp_attr_SOURCES = tests/unit/test_qp_attr.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_qp_attr_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_qp_attr_LDADD = libemucore.la $(CHECK_LIBS)

# The builder is compiled into the test, which stands in for the QP with a
# fake context whose post_send records the chain; calloc is wrapped so that
# init's ENOMEM paths run without a test hook in the code.
tests_unit_test_qp_ex_SOURCES = tests/unit/test_qp_ex.c verbs/qp_ex.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_qp_ex_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_qp_ex_LDADD = $(CHECK_LIBS)
tests_unit_test_qp_ex_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=calloc
