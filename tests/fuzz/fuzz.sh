#!/bin/sh
# Builds the receive-path fuzz target with clang's libFuzzer under ASan and
# UBSan, straight from the sources, and runs it for a bounded time from the
# seed corpus (packets captured from real traffic). Prints the fuzzer's
# figures and a final "N passed, N failed" line; exits 77 without clang's
# libFuzzer.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
secs=${FUZZ_SECONDS:-60}
cc=${FUZZ_CC:-clang}
out=$(mktemp -d "${TMPDIR:-/tmp}/emuverbs-fuzz.XXXXXX")
trap 'rm -rf "$out"' EXIT
cd "$top_srcdir" || exit 1

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "SKIP: $cc is not installed"
	exit 77
fi
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)
{ return d && n ? 0 : 0; }' >"$out/probe.c"
if ! "$cc" -fsanitize=fuzzer "$out/probe.c" -o "$out/probe" 2>/dev/null; then
	echo "SKIP: $cc has no libFuzzer runtime (libclang-rt-*-dev)"
	exit 77
fi

# shellcheck disable=SC2046
if ! "$cc" -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -DEMU_LIBDIR='"/nonexistent"' \
	-DEMU_SYSCONFDIR='"/nonexistent"' -I. -Iinclude \
	$(pkg-config --cflags libnl-route-3.0 inih liburing libpcap) \
	tests/fuzz/fuzz_rx.c net/*.c emu/*.c emu/*/*.c verbs/*.c \
	$(pkg-config --libs libnl-route-3.0 inih liburing zlib libpcap) -lev \
	-ldl -lm \
	-pthread -o "$out/fuzz_rx" >"$out/build.log" 2>&1; then
	cat "$out/build.log"
	echo "FAIL: the fuzz target builds"
	echo "0 passed, 1 failed"
	exit 1
fi

# The corpus grows in a scratch copy; the seeds stay as they are.
mkdir "$out/corpus"
cp tests/fuzz/seeds/* "$out/corpus/"
cd "$out" || exit 1
ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
UBSAN_OPTIONS=print_stacktrace=1 \
	./fuzz_rx -max_total_time="$secs" -max_len=4300 -timeout=20 \
	-rss_limit_mb=2048 -print_final_stats=1 corpus >fuzz.log 2>&1
rc=$?
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' fuzz.log
cov=$(grep -E '#[0-9]+.*(cov|DONE)' fuzz.log | tail -1)
echo "last status: $cov"
crash=$(ls crash-* leak-* timeout-* oom-* 2>/dev/null | head -1)
if [ "$rc" -eq 0 ] && [ -z "$crash" ]; then
	echo "PASS: fuzz_rx ran $secs s with no crash, leak, hang or sanitizer report"
	echo "1 passed, 0 failed"
	exit 0
fi
tail -60 fuzz.log
if [ -n "$crash" ]; then
	echo "the input that failed ($crash), as hex:"
	od -An -tx1 "$crash" | head -20
	mkdir -p "$top_srcdir/tests/fuzz/failures" 2>/dev/null &&
		cp "$crash" "$top_srcdir/tests/fuzz/failures/" 2>/dev/null
fi
echo "FAIL: fuzz_rx (exit $rc)"
echo "0 passed, 1 failed"
exit 1
