#!/bin/sh
# Runs rs_check (rsockets between two processes of its own) through
# `emuverbs run`; it uses the port next_port gives and the four after it,
# all inside this script's block.
. "$(dirname "$0")/lib.sh"
next_port
exec timeout 120 "$EMU" run "$top_builddir/tests/integration/rs_check" \
	"$PORT"
