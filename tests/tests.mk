# Integration tests: unmodified Debian programs (ibverbs-utils, pyverbs) and
# a program built against Debian's verbs.h, all through `emuverbs run`.
EXTRA_DIST += tests/integration/lib.sh tests/integration/devinfo.sh \
	tests/integration/pyverbs.sh tests/integration/pyverbs_device.py \
	tests/integration/errpaths.sh tests/integration/errpaths.c \
	tests/integration/install.sh tests/integration/pingpong.sh \
	tests/integration/perftest.sh tests/integration/wire.sh \
	tests/integration/wire_check.py tests/integration/rdma_core_suite.sh \
	tests/integration/netns.sh tests/integration/bench.sh

# Integration tests run the built tools and library.
check_SCRIPTS += emuverbs

# ABI: one layout dump built against Debian's header and against ours.
EXTRA_DIST += tests/abi/abi_test.sh tests/abi/layout_dump.c \
	tests/abi/expected_v65_x86_64.txt
TESTS += tests/abi/abi_test.sh

TESTS += tests/integration/devinfo.sh tests/integration/pyverbs.sh \
	tests/integration/errpaths.sh tests/integration/install.sh \
	tests/integration/pingpong.sh tests/integration/perftest.sh \
	tests/integration/wire.sh tests/integration/rdma_core_suite.sh \
	tests/integration/netns.sh tests/integration/bench.sh

if HAVE_DEBIAN_VERBS
# Built against the system header and library on purpose (no -I include):
# at run time `emuverbs run` hands it our library instead.
check_PROGRAMS += tests/integration/errpaths
tests_integration_errpaths_SOURCES = tests/integration/errpaths.c
tests_integration_errpaths_CPPFLAGS = -D_GNU_SOURCE
tests_integration_errpaths_LDADD = -libverbs -ldl
endif
