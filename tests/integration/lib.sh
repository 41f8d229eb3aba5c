# Shared helpers of the integration tests: where the build is, how to run a
# program through `emuverbs run`, and pass/fail accounting with a summary.
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
EMU="$top_builddir/emuverbs"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/emuverbs-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Tests must not pick up the developer's own configuration.
unset EMUVERBS_CONFIG EMUVERBS_SPEED EMUVERBS_WIDTH EMUVERBS_MTU \
	EMUVERBS_ADDRESS EMUVERBS_NETDEV EMUVERBS_GID_TBL_LEN \
	EMUVERBS_LINK_LAYER EMUVERBS_LATENCY_US EMUVERBS_PORT_STATE
export XDG_CONFIG_HOME="$WORK/xdg"
passed=0
failed=0

need() {
	for p in "$@"; do
		if ! command -v "$p" >/dev/null 2>&1 && [ ! -x "$p" ]; then
			echo "SKIP: $p is not installed"
			exit 77
		fi
	done
}

ok() {
	passed=$((passed + 1))
	echo "PASS: $1"
}

bad() {
	failed=$((failed + 1))
	echo "FAIL: $1"
	if [ -n "${2-}" ] && [ -f "$2" ]; then
		sed 's/^/    | /' "$2" | head -40
	fi
}

# expect NAME FILE REGEX: FILE has a line matching the extended REGEX.
expect() {
	if grep -Eq -- "$3" "$2"; then ok "$1"; else bad "$1 (no /$3/)" "$2"; fi
}

# reject NAME FILE REGEX: no line of FILE matches.
reject() {
	if grep -Eq -- "$3" "$2"; then bad "$1 (has /$3/)" "$2"; else ok "$1"; fi
}

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
