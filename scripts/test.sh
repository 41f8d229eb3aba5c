#!/bin/sh
# Quick start, part two: installs what is missing, builds from scratch and
# runs every test (unit, integration, ABI), then a one-line total.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh --test
sh scripts/build.sh
status=0
make -j"$(nproc)" check || status=$?
# Every test's own summary is in its .log; this is the total of them all.
if [ -f test-suite.log ]; then
	pass=$(sed -n 's/^# PASS: *//p' test-suite.log)
	skip=$(sed -n 's/^# SKIP: *//p' test-suite.log)
	fail=$(sed -n 's/^# FAIL: *//p' test-suite.log)
	err=$(sed -n 's/^# ERROR: *//p' test-suite.log)
	[ "$status" -ne 0 ] && cat test-suite.log
	echo "tests: ${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
fi
exit $status
