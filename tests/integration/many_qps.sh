#!/bin/sh
# Runs many_qps through `emuverbs run`: 1000 RC QPs x 128 RDMA WRITEs of
# 4 KiB between two processes, all in flight at once, every completion
# successful and every slot at the target verified (the device-wide budget
# of packets in flight is what keeps this from overrunning the socket).
. "$(dirname "$0")/lib.sh"
prog="$top_builddir/tests/integration/many_qps"
[ -x "$prog" ] || { echo "FAIL: $prog is not built"; exit 1; }
exec timeout "$(slack 300)" "$EMU" run "$prog"
