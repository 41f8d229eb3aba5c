#!/bin/sh
# Runs blocked_target through `emuverbs run`: RDMA WRITE, READ and atomics
# on a target that is blocked in read(2) the whole time.
. "$(dirname "$0")/lib.sh"
prog="$top_builddir/tests/integration/blocked_target"
[ -x "$prog" ] || { echo "FAIL: $prog is not built"; exit 1; }
exec timeout "$(slack 60)" "$EMU" run "$prog"
