# tests/abi/: one layout dump built against Debian's header and against
# ours must agree; v65-only members against recorded rdma-core 65 facts.
TESTS += tests/abi/abi_test.sh
EXTRA_DIST += tests/abi/abi_test.sh tests/abi/layout_dump.c \
	tests/abi/expected_v65_x86_64.txt
