#!/bin/sh
# Runs errpaths (built against Debian's verbs.h and libibverbs.so) on the
# emulated device through `emuverbs run`.
. "$(dirname "$0")/lib.sh"
[ -x "$top_builddir/tests/integration/errpaths" ] ||
	{ echo "SKIP: errpaths not built (no libibverbs-dev)"; exit 77; }
exec "$EMU" run "$top_builddir/tests/integration/errpaths"
