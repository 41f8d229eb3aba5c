#!/bin/sh
# Quick start, part two: installs what is missing, builds from scratch and
# runs every test (unit, integration, ABI), then the same suite again on an
# ASan+UBSan build, then the receive path's fuzz target for a minute, and
# prints one total line for all of it. The first suite does its UDP I/O
# through io_uring, the second through recvmmsg/sendmmsg (the default), so
# each path runs the whole suite once. Then the tests of what a busy
# machine breaks first (RC under loss, fault rules, run-time control, UCX,
# the bench) run again beside 2 x nproc busy loops, as on a shared CI
# runner.
#
# --stress (or EMUVERBS_STRESS=1): everything runs beside those loops.
set -e
cd "$(dirname "$0")/.."
stress=${EMUVERBS_STRESS-}
case ${1-} in
--stress) stress=1 ;;
"") ;;
*) echo "usage: $0 [--stress]" >&2; exit 2 ;;
esac
sh scripts/deps.sh --test
sh scripts/build.sh

total_pass=0 total_fail=0 total_skip=0 status=0

# Loops that keep every CPU busy at normal priority, as other jobs do on a
# shared machine; each ends by itself within two hours in any case.
hogs=""
hogs_start() {
	n=$((2 * $(nproc)))
	while [ "$n" -gt 0 ]; do
		timeout 7200 sh -c 'while :; do :; done' &
		hogs="$hogs $!"
		n=$((n - 1))
	done
	# Check's own timeouts, and the tests' deadlines, stretch with it;
	# tests that make their own load count these in (contention.sh).
	CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4}
	EMUVERBS_HOGS=$((2 * $(nproc)))
	export CK_TIMEOUT_MULTIPLIER EMUVERBS_HOGS
}
hogs_stop() {
	# shellcheck disable=SC2086
	[ -z "$hogs" ] || kill $hogs 2>/dev/null || true
	hogs=""
	unset EMUVERBS_HOGS
}
trap hogs_stop EXIT
[ -z "$stress" ] || hogs_start

# suite DIR LABEL [TESTS]: make check in DIR (of TESTS only, if given),
# then add its counts to the totals.
suite() {
	rc=0
	if [ -n "${3-}" ]; then
		make -C "$1" -j"$(nproc)" check TESTS="$3" || rc=$?
	else
		make -C "$1" -j"$(nproc)" check || rc=$?
	fi
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

# Between two processes of this host the suite runs on the shared-memory
# wire; these run again on UDP, the wire to every other host.
udp_tests="tests/integration/pingpong.sh tests/integration/faults.sh \
	tests/integration/capture.sh tests/integration/rdmacm.sh \
	tests/integration/peer_death.sh"

EMUVERBS_UDP_IO=io_uring
export EMUVERBS_UDP_IO
suite . "plain build, io_uring I/O"
EMUVERBS_TEST_WIRE=udp
export EMUVERBS_TEST_WIRE
suite . "plain build, io_uring I/O, UDP wire: RC, UC, UD, faults, capture, rdma_cm" \
	"$udp_tests"
unset EMUVERBS_UDP_IO EMUVERBS_TEST_WIRE

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
	EMUVERBS_TEST_WIRE=udp
	export EMUVERBS_TEST_WIRE
	suite "$san" "ASan+UBSan build, mmsg I/O, UDP wire: RC, UC, UD, faults, capture, rdma_cm" \
		"$udp_tests"
	unset EMUVERBS_TEST_WIRE
	unset INTEROP_CACHE
else
	echo "ASan+UBSan build failed to build" >&2
	total_fail=$((total_fail + 1))
	status=1
fi
rm -rf "$san"

# What a busy machine breaks first, beside the loops (all of it ran there
# already with --stress).
if [ -z "$stress" ]; then
	hogs_start
	suite . "under load: RC, faults, control, UCX, bench" \
		"tests/integration/pingpong.sh tests/integration/datacheck.sh \
		tests/integration/peer_death.sh tests/integration/faults.sh \
		tests/integration/control.sh tests/integration/ucx.sh \
		tests/integration/bench.sh"
	hogs_stop
	unset CK_TIMEOUT_MULTIPLIER
fi

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
