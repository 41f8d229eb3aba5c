#!/bin/sh
# The floor plan's rule, checked on the includes (doc/architecture.md):
# layers call down only (verbs/ and tools/ over emu/, emu/ over net/, cm/
# on emu/base/ only), and emu/'s rooms likewise, in the order
# base < device < objects < transport < observe; a room includes its own
# headers and those of rooms below it. Includes that break the rule are
# failures unless tests/arch/rooms.allow names them (the ones still to be
# taken out); an allowance that no longer occurs fails too, so the list
# only shrinks.
#
# rooms.sh [TREE [ALLOW]]  checks TREE (the source tree by default)
# rooms.sh --self-test     shows that a planted include fails the check
set -u
here=$(cd "$(dirname "$0")" && pwd)

# rank UNIT: where a unit stands; a unit includes only units of a lower or
# equal rank, with the exceptions listed in may().
rank() {
	case $1 in
	net) echo 1 ;;
	emu/base) echo 2 ;;
	emu/device) echo 3 ;;
	emu/objects) echo 4 ;;
	emu/transport) echo 5 ;;
	emu/observe) echo 6 ;;
	emu) echo 7 ;;
	verbs | tools) echo 8 ;;
	cm) echo 9 ;;
	*) echo 0 ;;
	esac
}

# may FROM TO: whether unit FROM may include a header of unit TO.
may() {
	[ "$1" = "$2" ] && return 0
	case $1 in
	# librdmacm stands on the public verbs API and the engine, not on
	# the HCA's insides.
	cm) [ "$2" = emu/base ] || [ "$2" = net ]; return ;;
	verbs | tools) [ "$2" != cm ] && [ "$2" != verbs ] &&
		[ "$2" != tools ]; return ;;
	esac
	[ "$(rank "$2")" -gt 0 ] && [ "$(rank "$2")" -lt "$(rank "$1")" ]
}

# unit PATH: the layer or room a file belongs to.
unit() {
	case $1 in
	emu/*/*) echo "$1" | cut -d/ -f1-2 ;;
	*/*) echo "${1%%/*}" ;;
	*) echo . ;;
	esac
}

check() {
	tree=$1 allow=$2
	found=$(mktemp) bad=0
	(cd "$tree" && find net emu verbs cm tools -name '*.[ch]' 2>/dev/null) |
		sort | while read -r f; do
		from=$(unit "$f")
		sed -n 's/^#[ \t]*include[ \t]*"\([a-z]*\/[^"]*\)".*/\1/p' \
			"$tree/$f" | while read -r inc; do
			to=$(unit "$inc")
			[ "$(rank "$to")" -gt 0 ] || continue
			may "$from" "$to" || echo "$f -> $inc"
		done
	done >"$found"
	while read -r line; do
		if grep -qxF "$line" "$allow" 2>/dev/null; then
			echo "allowed for now: $line"
		else
			echo "FAIL: $line (includes across the rule)"
			bad=1
		fi
	done <"$found"
	if [ -f "$allow" ]; then
		sed -n 's/[ \t]*#.*//; /./p' "$allow" | while read -r line; do
			grep -qxF "$line" "$found" ||
				echo "FAIL: $line is allowed but gone: take it off $allow"
		done | grep . && bad=1
	fi
	n=$(wc -l <"$found")
	rm -f "$found"
	echo "$n includes across the rule, $(grep -c . "$allow" 2>/dev/null ||
		echo 0) allowed for now"
	return $bad
}

if [ "${1-}" = --self-test ]; then
	t=$(mktemp -d)
	mkdir -p "$t/emu/base" "$t/emu/observe" "$t/net" "$t/verbs"
	echo '#include "emu/base/a.h"' >"$t/emu/observe/o.c"
	echo '#include "net/n.h"' >"$t/emu/base/a.c"
	echo '#include "emu/observe/o.h"' >"$t/verbs/v.c"
	pass=0 fail=0
	if check "$t" /dev/null >/dev/null; then
		echo "PASS: a tree that keeps the rule passes"; pass=$((pass + 1))
	else
		echo "FAIL: a tree that keeps the rule fails"; fail=$((fail + 1))
	fi
	echo '#include "emu/observe/o.h"' >>"$t/emu/base/a.c"
	if check "$t" /dev/null | grep -q "FAIL: emu/base/a.c -> emu/observe"
	then
		echo "PASS: base including observe fails"; pass=$((pass + 1))
	else
		echo "FAIL: base including observe passes"; fail=$((fail + 1))
	fi
	echo 'emu/base/a.c -> emu/observe/o.h' >"$t/allow"
	if check "$t" "$t/allow" >/dev/null; then
		echo "PASS: an allowed include passes"; pass=$((pass + 1))
	else
		echo "FAIL: an allowed include fails"; fail=$((fail + 1))
	fi
	echo '#include "verbs/v.h"' >"$t/net/n.c"
	if ! check "$t" "$t/allow" >/dev/null; then
		echo "PASS: net including verbs fails"; pass=$((pass + 1))
	else
		echo "FAIL: net including verbs passes"; fail=$((fail + 1))
	fi
	rm -rf "$t"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi

tree=${1:-${top_srcdir:-$here/../..}}
allow=${2:-$here/rooms.allow}
if check "$tree" "$allow"; then
	echo "1 passed, 0 failed"
else
	echo "0 passed, 1 failed"
	exit 1
fi
