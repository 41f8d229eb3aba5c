#!/bin/sh
# Runs the pyverbs checks with Debian's python (the one python3-pyverbs is
# installed for) through `emuverbs run`.
. "$(dirname "$0")/lib.sh"
need /usr/bin/python3
/usr/bin/python3 -c 'import pyverbs.device' 2>/dev/null ||
	{ echo "SKIP: python3-pyverbs is not installed"; exit 77; }
exec "$EMU" run /usr/bin/python3 "$top_srcdir/tests/integration/pyverbs_device.py"
