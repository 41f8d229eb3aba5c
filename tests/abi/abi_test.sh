#!/bin/sh
# emuverbs ABI test: a layout dump built against Debian's headers (rdma-core
# 44) and against ours must print the same facts; the facts only ours has
# must match the recorded rdma-core 65 facts. Two suites:
#   verbs  layout_dump.c over <infiniband/verbs.h>, expected_v65_<arch>.txt
#   cm     cm_layout_dump.c over librdmacm's <rdma/rdma_cma.h>,
#          <rdma/rdma_verbs.h>, <rdma/rsocket.h> and <infiniband/sa.h>,
#          <infiniband/ib.h>; expected_cm_v65_<arch>.txt (cm_abi_test.sh)
#
# Usage: abi_test.sh [--suite S]          run the test (automake: TESTS)
#        abi_test.sh [--suite S] --regen DIR   rewrite the expected file
#            from an rdma-core 65 include tree DIR (DIR/infiniband/verbs.h,
#            and for cm DIR/rdma/*.h, DIR/infiniband/{sa,ib}.h), e.g. one
#            extracted to /tmp from a git checkout; never commit DIR.
# Environment: CC (default gcc), CXX (default g++, C++ check skipped if
# missing), srcdir (default: this script's ../..), ABI_SYSINC (default
# /usr/include). Exit: 0 pass, 1 mismatch, 77 no system header (skip).

set -u

suite=verbs
if [ "${1:-}" = "--suite" ]; then
	suite=${2:?usage: abi_test.sh --suite verbs|cm ...}
	shift 2
fi

here=$(cd "$(dirname "$0")" && pwd)
srcdir=${srcdir:-$here/../..}
# automake may hand us the build dir's relative srcdir: anchor on the file
[ -f "$srcdir/tests/abi/layout_dump.c" ] || srcdir=$here/../..
srcdir=$(cd "$srcdir" && pwd)
CC=${CC:-gcc}
CXX=${CXX:-g++}
sysinc=${ABI_SYSINC:-/usr/include}
ourinc=$srcdir/include
arch=$(uname -m)
cflags="-std=gnu11 -O0 -Wall -Wextra -Wno-unused-parameter -Werror"

case "$suite" in
verbs)
	dump=$srcdir/tests/abi/layout_dump.c
	expected=$srcdir/tests/abi/expected_v65_$arch.txt
	# the system header that must exist, and the package that has it
	syshdr=infiniband/verbs.h
	syspkg=libibverbs-dev
	what="<infiniband/verbs.h>"
	includes="infiniband/verbs.h infiniband/tm_types.h"
	;;
cm)
	dump=$srcdir/tests/abi/cm_layout_dump.c
	expected=$srcdir/tests/abi/expected_cm_v65_$arch.txt
	syshdr=rdma/rdma_cma.h
	syspkg=librdmacm-dev
	what="librdmacm's headers"
	includes="rdma/rdma_cma.h rdma/rdma_verbs.h rdma/rsocket.h"
	includes="$includes infiniband/sa.h infiniband/ib.h"
	;;
*)
	echo "abi_test.sh: unknown suite $suite (verbs or cm)" >&2
	exit 99
	;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/emuverbs-abi.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# build NAME EXTRA-FLAGS...: compile and run the dump, output in $tmp/NAME
build() {
	name=$1
	shift
	if ! $CC $cflags "$@" -o "$tmp/$name" "$dump" 2>"$tmp/$name.cc"; then
		echo "FAIL: layout_dump.c does not compile ($name):"
		sed 's/^/    /' "$tmp/$name.cc" | head -40
		return 1
	fi
	if ! "$tmp/$name" >"$tmp/$name.out"; then
		echo "FAIL: layout dump ($name) crashed"
		return 1
	fi
	return 0
}

if [ "${1:-}" = "--regen" ]; then
	refinc=${2:?usage: abi_test.sh --regen RDMA_CORE_65_INCLUDE_DIR}
	build ref -DEMU_V65 -I"$refinc" || exit 1
	{
		echo "# facts of rdma-core 65's $what that rdma-core"
		echo "# 44 lacks, on $arch; written by" \
			"abi_test.sh --suite $suite --regen"
		sed -n 's/^v65 //p' "$tmp/ref.out"
	} >"$expected"
	echo "wrote $expected ($(grep -vc '^#' "$expected") lines)"
	exit 0
fi

if [ ! -f "$sysinc/$syshdr" ]; then
	echo "SKIP: $sysinc/$syshdr not found (apt-get install $syspkg)"
	exit 77
fi

passed=0
failed=0

# compare LABEL WANT GOT: count and show lines that differ
compare() {
	label=$1 want=$2 got=$3
	sort "$want" >"$tmp/want.s"
	sort "$got" >"$tmp/got.s"
	ok=$(comm -12 "$tmp/want.s" "$tmp/got.s" | wc -l)
	bad=$(comm -3 "$tmp/want.s" "$tmp/got.s" | wc -l)
	passed=$((passed + ok))
	failed=$((failed + bad))
	if [ "$bad" -eq 0 ]; then
		echo "ok: $label: $ok lines identical"
	else
		echo "FAIL: $label: $bad lines differ ('-' expected, '+' ours):"
		diff -U1 "$want" "$got" | sed -n '3,$p' | sed 's/^/    /' | head -80
	fi
}

# check LABEL COMMAND...: one pass/fail line for a header build check
check() {
	label=$1
	shift
	if "$@" >"$tmp/check.log" 2>&1; then
		passed=$((passed + 1))
		echo "ok: $label"
	else
		failed=$((failed + 1))
		echo "FAIL: $label:"
		sed 's/^/    /' "$tmp/check.log" | head -20
	fi
}

build sys -I"$sysinc" || failed=$((failed + 1))
build ours -DEMU_V65 -I"$ourinc" || failed=$((failed + 1))

if [ -f "$tmp/sys.out" ] && [ -f "$tmp/ours.out" ]; then
	grep -v '^v65 ' "$tmp/ours.out" >"$tmp/ours.common"
	compare "rdma-core 44 facts (system header vs ours)" \
		"$tmp/sys.out" "$tmp/ours.common"
	if [ -f "$expected" ]; then
		grep -v '^#' "$expected" >"$tmp/expected"
		sed -n 's/^v65 //p' "$tmp/ours.out" >"$tmp/ours.v65"
		compare "rdma-core 65 facts ($(basename "$expected") vs ours)" \
			"$tmp/expected" "$tmp/ours.v65"
	else
		echo "note: no $(basename "$expected"): v65-only facts not checked"
	fi
fi

# the headers must also build the ways their users build
for h in $includes; do
	printf '#include <%s>\n' "$h"
done >"$tmp/inc.c"
printf 'int main(void) { return 0; }\n' >>"$tmp/inc.c"
check "header: gnu11 -Wall -Wextra -Werror" \
	$CC -std=gnu11 -Wall -Wextra -Werror -I"$ourinc" -c "$tmp/inc.c" -o "$tmp/inc.o"
check "header: c99 -pedantic -Werror" \
	$CC -std=c99 -pedantic -Wall -Werror -I"$ourinc" -c "$tmp/inc.c" -o "$tmp/inc.o"
# each header on its own, as a program including only it builds
for h in $includes; do
	printf '#include <%s>\nint main(void) { return 0; }\n' "$h" \
		>"$tmp/one.c"
	check "header alone: <$h> c99 -pedantic -Werror" \
		$CC -std=c99 -pedantic -Wall -Werror -I"$ourinc" \
		-c "$tmp/one.c" -o "$tmp/one.o"
done
if command -v "$CXX" >/dev/null 2>&1; then
	check "header: C++ ($CXX -Wall -Wextra -Werror)" \
		$CXX -x c++ -Wall -Wextra -Werror -I"$ourinc" -fsyntax-only "$tmp/inc.c"
else
	echo "note: $CXX not found: C++ check skipped"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
exit 0
