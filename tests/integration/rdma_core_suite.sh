#!/bin/sh
# rdma-core's own pyverbs test suite, as Debian ships it (package
# python3-pyverbs puts it under /usr/share/doc/rdma-core/tests), run
# unmodified against the emulated device. What needs hardware the device
# does not have (mlx5/EFA specifics, GPU dma-bufs, raw packet QPs, huge
# pages) skips itself; doc/features.md lists those skips and why.
. "$(dirname "$0")/lib.sh"
suite=/usr/share/doc/rdma-core/tests
[ -f "$suite/run_tests.py" ] || { echo "SKIP: $suite is not installed"; exit 77; }
/usr/bin/python3 -c 'import pyverbs' 2>/dev/null ||
	{ echo "SKIP: python3-pyverbs is not installed"; exit 77; }

# A private copy: some modules are shipped gzipped.
mkdir -p "$WORK/rt/tests"
cp -r "$suite/." "$WORK/rt/tests/"
gunzip -f "$WORK/rt/tests/"*.gz 2>/dev/null
cd "$WORK/rt" || exit 1
PYTHONPATH="$WORK/rt/tests" timeout 600 "$EMU" run /usr/bin/python3 \
	tests/run_tests.py -v --dev emu0 >"$WORK/out" 2>&1
rc=$?
grep -E '\.\.\. (FAIL|ERROR)|^(FAIL|ERROR):' "$WORK/out"
tail -3 "$WORK/out"
ran=$(sed -n 's/^Ran \([0-9]*\) tests.*/\1/p' "$WORK/out")
skip=$(grep -c '\.\.\. skipped' "$WORK/out")
bad=$(grep -cE '\.\.\. (FAIL|ERROR)$' "$WORK/out")
if [ -z "$ran" ]; then
	tail -30 "$WORK/out"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "skipped (feature absent): $skip"
echo "$((ran - skip - bad)) passed, $bad failed"
[ "$rc" -eq 0 ] && [ "$bad" -eq 0 ]
