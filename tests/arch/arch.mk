# tests/arch/: the floor plan's rule, checked on the includes: the layers
# and emu/'s rooms call down only (doc/architecture.md). rooms.sh checks
# the tree; its --self-test shows a planted include across the rule fail.
# errno.sh checks emu/'s errno rule (positive errnos, a listed few
# exceptions) the same way, with its own --self-test.
TESTS += tests/arch/rooms.sh tests/arch/rooms_self_test.sh \
	tests/arch/errno.sh tests/arch/errno_self_test.sh
EXTRA_DIST += tests/arch/rooms.sh tests/arch/rooms_self_test.sh \
	tests/arch/errno.sh tests/arch/errno_self_test.sh
