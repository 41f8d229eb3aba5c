#!/bin/sh
# The benchmark command runs end to end and reports both ratios. Its
# figures are not judged here: speed is for `emuverbs bench`, not tests.
. "$(dirname "$0")/lib.sh"
timeout 120 "$EMU" bench --quick >"$WORK/out" 2>&1 || bad "emuverbs bench --quick exit status" "$WORK/out"
cat "$WORK/out"
expect "bench: round-trip ratio" "$WORK/out" '^64 B round trip .* [0-9.]+x$'
expect "bench: stream ratio" "$WORK/out" '^4 KiB stream .* [0-9.]+x$'
finish
