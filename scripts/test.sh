#!/bin/sh
# Quick start, part two: installs what is missing, builds from scratch and
# runs every test (unit, integration, ABI), then the same suite again on an
# ASan+UBSan build, then the receive path's fuzz target for a minute, and
# prints one total line for all of it. The first suite does its UDP I/O
# through io_uring, the second through recvmmsg/sendmmsg (the default), so
# each path runs the whole suite once.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh --test
sh scripts/build.sh

total_pass=0 total_fail=0 total_skip=0 status=0

# suite DIR LABEL: make check in DIR, then add its counts to the totals.
suite() {
	rc=0
	make -C "$1" -j"$(nproc)" check || rc=$?
	log="$1/test-suite.log"
	if [ ! -f "$log" ]; then
		echo "$2: no test-suite.log" >&2
		total_fail=$((total_fail + 1))
		status=1
		return
	fi
	[ "$rc" -ne 0 ] && { cat "$log"; status=1; }
	p=$(sed -n 's/^# PASS: *//p' "$log")
	s=$(sed -n 's/^# SKIP: *//p' "$log")
	f=$(sed -n 's/^# FAIL: *//p' "$log")
	e=$(sed -n 's/^# ERROR: *//p' "$log")
	echo "$2: ${p:-0} passed, $(( ${f:-0} + ${e:-0} )) failed, ${s:-0} skipped"
	total_pass=$((total_pass + ${p:-0}))
	total_fail=$((total_fail + ${f:-0} + ${e:-0}))
	total_skip=$((total_skip + ${s:-0}))
}

EMUVERBS_UDP_IO=io_uring
export EMUVERBS_UDP_IO
suite . "plain build, io_uring I/O"
unset EMUVERBS_UDP_IO

# The sanitized build lives in a copy, since this tree is configured in place.
san=$(mktemp -d "${TMPDIR:-/tmp}/emuverbs-san.XXXXXX")
# Reachable by other users: view.sh runs the program as nobody.
chmod 755 "$san"
git ls-files -z 2>/dev/null | tar cf - --null -T - | tar xf - -C "$san" ||
	cp -r . "$san"
if (cd "$san" && ./autogen.sh >/dev/null 2>&1 &&
	./configure --enable-sanitizers >/dev/null &&
	make -j"$(nproc)" >/dev/null); then
	# The kernel rxe guest the plain run made (tests/interop) serves
	# this run too: no second download.
	export INTEROP_CACHE="$PWD/tests/interop/cache"
	suite "$san" "ASan+UBSan build, mmsg I/O"
	unset INTEROP_CACHE
else
	echo "ASan+UBSan build failed to build" >&2
	total_fail=$((total_fail + 1))
	status=1
fi
rm -rf "$san"

# The receive path's libFuzzer target (ASan+UBSan), for a bounded time.
rc=0
sh tests/fuzz/fuzz.sh || rc=$?
case $rc in
0) total_pass=$((total_pass + 1)) ;;
77) total_skip=$((total_skip + 1)) ;;
*) total_fail=$((total_fail + 1)); status=1 ;;
esac

echo "tests: $total_pass passed, $total_fail failed, $total_skip skipped"
exit $status
