#!/bin/sh
# Runs peer_death through `emuverbs run`.
. "$(dirname "$0")/lib.sh"
exec timeout 60 "$EMU" run "$top_builddir/tests/integration/peer_death"
