#!/bin/sh
# emuverbs ABI test of librdmacm's headers: abi_test.sh's cm suite
# (cm_layout_dump.c against Debian's librdmacm-dev headers and ours, and
# expected_cm_v65_<arch>.txt); arguments as abi_test.sh's.
exec "$(dirname "$0")/abi_test.sh" --suite cm "$@"
