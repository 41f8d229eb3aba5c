#!/bin/sh
# Checks librdmacm.so.1's exported symbol versions against Debian's ELF
# files that import them and against cm/librdmacm.map: symbols_test.sh's
# librdmacm half (see there).
exec "$(dirname "$0")/symbols_test.sh" --lib cm "$@"
