#!/bin/sh
# Runs datacheck (built against our header and library) through `emuverbs
# run`: every opcode of RC, UC and UD, randomized, checked byte for byte.
. "$(dirname "$0")/lib.sh"
prog="$top_builddir/tests/integration/datacheck"
[ -x "$prog" ] || { echo "FAIL: $prog is not built"; exit 1; }
# It prints its own PASS/FAIL lines and summary. A hang must end as a
# failure rather than block `make check`; timeout signals its whole process
# group, so both hosts go. DATACHECK_ARGS (e.g. "--seed 7 --rounds 500")
# widens a run by hand.
# shellcheck disable=SC2086
timeout "$(slack 120)" "$EMU" run "$prog" ${DATACHECK_ARGS-}
