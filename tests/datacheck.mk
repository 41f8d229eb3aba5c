# datacheck: every opcode of RC, UC and UD between two processes, checked
# byte for byte; built against our header and library (tools/twohost.c).
check_PROGRAMS += tests/integration/datacheck
tests_integration_datacheck_SOURCES = tests/integration/datacheck.c \
	tools/twohost.c tools/twohost.h
tests_integration_datacheck_LDADD = libibverbs.la
EXTRA_DIST += tests/integration/datacheck.sh
TESTS += tests/integration/datacheck.sh
