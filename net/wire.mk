# net/wire.mk: build fragment for the wire layer's pure parts (opcode table,
# header accessors, PSN arithmetic, ICRC) and their Check unit tests.

libemunet_la_SOURCES += \
	net/opcode.c net/opcode.h \
	net/hdr.h \
	net/psn.h \
	net/icrc.c net/icrc.h

WIRE_UNIT_TESTS = \
	tests/unit/test_opcode \
	tests/unit/test_hdr \
	tests/unit/test_psn \
	tests/unit/test_icrc
check_PROGRAMS += $(WIRE_UNIT_TESTS)
TESTS += $(WIRE_UNIT_TESTS)

tests_unit_test_opcode_SOURCES = tests/unit/test_opcode.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_opcode_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_opcode_LDADD = libemunet.la $(CHECK_LIBS) $(ZLIB_LIBS)

tests_unit_test_hdr_SOURCES = tests/unit/test_hdr.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_hdr_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_hdr_LDADD = libemunet.la $(CHECK_LIBS) $(ZLIB_LIBS)

tests_unit_test_psn_SOURCES = tests/unit/test_psn.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_psn_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_psn_LDADD = libemunet.la $(CHECK_LIBS) $(ZLIB_LIBS)

tests_unit_test_icrc_SOURCES = tests/unit/test_icrc.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_icrc_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_icrc_LDADD = libemunet.la $(CHECK_LIBS) $(ZLIB_LIBS)

# Regenerates the ICRC vectors embedded in tests/unit/test_icrc.c.
EXTRA_DIST += tests/scapy_icrc_vectors.py
