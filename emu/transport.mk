# The QP object and the RC/UC/UD transport engines (emu/), their UDP I/O
# (net/udp.c), the QP verbs' ops header, and their unit tests.
libemucore_la_SOURCES += emu/qp.c emu/qp.h emu/transport.c emu/transport.h \
	emu/rx.c emu/req.c emu/resp.c emu/comp.c
libemunet_la_SOURCES += net/udp.c net/udp.h
libibverbs_la_SOURCES += verbs/qp_ops.h

# test_qp: the public API only (the drop-in library and our verbs.h);
# test_rx: the receive path from inside (counters), through libemucore;
# test_udp: net/udp.c in its io_uring and mmsg modes.
TRANSPORT_UNIT_TESTS = tests/unit/test_qp tests/unit/test_rx \
	tests/unit/test_udp
check_PROGRAMS += $(TRANSPORT_UNIT_TESTS)
TESTS += $(TRANSPORT_UNIT_TESTS)

tests_unit_test_qp_SOURCES = tests/unit/test_qp.c tests/unit/testlib.c \
	tests/unit/testlib.h tests/unit/verbs_fixture.c \
	tests/unit/verbs_fixture.h
tests_unit_test_qp_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_qp_LDADD = libibverbs.la $(CHECK_LIBS)

tests_unit_test_rx_SOURCES = tests/unit/test_rx.c tests/unit/testlib.c \
	tests/unit/testlib.h
tests_unit_test_rx_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_rx_LDADD = libemucore.la $(CHECK_LIBS)

tests_unit_test_udp_SOURCES = tests/unit/test_udp.c
tests_unit_test_udp_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_udp_LDADD = libemunet.la $(CHECK_LIBS)
