# tests/abi/: one layout dump built against Debian's header and against
# ours must agree; v65-only members against recorded rdma-core 65 facts.
# abi_test.sh runs the libibverbs suite, cm_abi_test.sh the librdmacm one.
TESTS += tests/abi/abi_test.sh tests/abi/cm_abi_test.sh
EXTRA_DIST += tests/abi/abi_test.sh tests/abi/layout_dump.c \
	tests/abi/expected_v65_x86_64.txt tests/abi/dump.h \
	tests/abi/cm_abi_test.sh tests/abi/cm_layout_dump.c \
	tests/abi/expected_cm_v65_x86_64.txt
