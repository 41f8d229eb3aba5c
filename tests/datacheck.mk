# datacheck: every opcode of RC, UC and UD between two processes, checked
# byte for byte; built against our header and library (tools/twohost.c).
check_PROGRAMS += tests/integration/datacheck
tests_integration_datacheck_SOURCES = tests/integration/datacheck.c \
	tools/twohost.c tools/twohost.h
tests_integration_datacheck_LDADD = libibverbs.la
EXTRA_DIST += tests/integration/datacheck.sh
TESTS += tests/integration/datacheck.sh

# A peer process killed mid-connection: RETRY_EXC_ERR in bounded time.
check_PROGRAMS += tests/integration/peer_death
tests_integration_peer_death_SOURCES = tests/integration/peer_death.c \
	tools/twohost.c tools/twohost.h
tests_integration_peer_death_LDADD = libibverbs.la
EXTRA_DIST += tests/integration/peer_death.sh
TESTS += tests/integration/peer_death.sh
