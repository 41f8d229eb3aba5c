#!/bin/sh
# Checks the exported ABI of a built drop-in library against the programs
# and libraries Debian ships for it, and against its version script:
#   symbols_test.sh            libibverbs.so.1 and verbs/libibverbs.map
#   symbols_test.sh --lib cm   librdmacm.so.1 and cm/librdmacm.map
#                              (cm_symbols_test.sh)
#
# 1. Every versioned symbol of the library's nodes (IBVERBS_*, RDMACM_*)
#    that the ELF files of the consumer packages import is defined by our
#    library under the same version node. libibverbs: Debian's
#    ibverbs-utils, perftest, librdmacm1 and python3-pyverbs, and the
#    public libraries of ibverbs-providers (perftest and pyverbs load
#    them). librdmacm: rdmacm-utils, perftest, libfabric1 (its verbs
#    provider is built into libfabric.so.1), libucx0 (UCX's rdmacm
#    transport), python3-pyverbs, librdmacm1 (librspreload) and Open MPI.
# 2. Every dynamic symbol our library defines is versioned and listed in the
#    map under that node: nothing leaks from the internal layers.
# 3. Every symbol the map lists is really defined (ld silently ignores map
#    entries without a definition), and the version nodes and their parents
#    are exactly the map's.
# 4. (librdmacm) Every symbol Debian's own librdmacm.so.1 defines, ours
#    defines under the same node: rdma-core 44's whole ABI, used or not.
#
# Environment: EMU_LIBDIR (default $top_builddir/.libs) holds the library;
# top_srcdir finds the map. Exit 0 all passed, 1 some failed, 77 skipped
# (Debian packages or binutils absent).

set -u

here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(dirname "$here")}
top_builddir=${top_builddir:-$top_srcdir}
libdir=${EMU_LIBDIR:-$top_builddir/.libs}

which=verbs
if [ "${1:-}" = "--lib" ]; then
	which=${2:?usage: symbols_test.sh --lib verbs|cm}
fi
# Packages whose every ELF file must resolve against us; a package whose
# public libraries (not its rdmav* plugins, which only the real libibverbs
# dlopens) are loaded by them; the version-node prefix; Debian's own
# library to compare with (check 4).
case "$which" in
verbs)
	lib=$libdir/libibverbs.so.1
	map=$top_srcdir/verbs/libibverbs.map
	consumer_pkgs="ibverbs-utils perftest librdmacm1 python3-pyverbs"
	provider_pkg="ibverbs-providers"
	node_prefix=IBVERBS_
	reflib=
	;;
cm)
	lib=$libdir/librdmacm.so.1
	map=$top_srcdir/cm/librdmacm.map
	consumer_pkgs="rdmacm-utils perftest libfabric1 libucx0 python3-pyverbs"
	consumer_pkgs="$consumer_pkgs librdmacm1 libopenmpi3"
	provider_pkg=
	node_prefix=RDMACM_
	reflib=$(dpkg -L librdmacm1 2>/dev/null |
		grep '/librdmacm\.so\.1$' | head -1)
	;;
*)
	echo "symbols_test.sh: unknown library $which (verbs or cm)" >&2
	exit 99
	;;
esac

skip() {
	echo "SKIP: $*"
	exit 77
}

command -v readelf >/dev/null 2>&1 || skip "readelf (binutils) not found"
command -v dpkg-query >/dev/null 2>&1 ||
	skip "dpkg-query not found (not Debian)"

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q 'install ok installed'
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

pass=0
fail=0

ok() {
	pass=$((pass + 1))
}

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

# Regular ELF files of a package (symlinks would only repeat their target).
pkg_elf_files() {
	dpkg-query -L "$1" 2>/dev/null | while read -r f; do
		if [ ! -f "$f" ] || [ -L "$f" ]; then
			continue
		fi
		readelf -h "$f" >/dev/null 2>&1 || continue
		echo "$f"
	done
}

# --- who needs what -------------------------------------------------------

: >"$tmp/files"
found_pkgs=
for p in $consumer_pkgs $provider_pkg; do
	if ! installed "$p"; then
		echo "note: $p is not installed; its files are not checked"
		continue
	fi
	found_pkgs="$found_pkgs $p"
	if [ -n "$provider_pkg" ] && [ "$p" = "$provider_pkg" ]; then
		pkg_elf_files "$p" | grep -v -- '-rdmav[0-9]*\.so$' \
			>>"$tmp/files"
	else
		pkg_elf_files "$p" >>"$tmp/files"
	fi
done
[ -n "$found_pkgs" ] || skip "none of $consumer_pkgs $provider_pkg installed"
[ -s "$tmp/files" ] || skip "no ELF files found in:$found_pkgs"

# "symbol@version file" for every import of our nodes. readelf prints
# imports as "name@VERSION (n)"; the (n) is the version index and is
# dropped. The library itself (librdmacm1 ships it) imports none.
while read -r f; do
	readelf --dyn-syms -W "$f" 2>/dev/null |
		awk -v file="$f" -v pfx="@$node_prefix" '
		$7 == "UND" && index($8, pfx) {
			print $8, file
		}'
done <"$tmp/files" | sort -u >"$tmp/needs"

# --- what we export and what the map says ---------------------------------

for f in "$lib" "$map"; do
	if [ ! -f "$f" ]; then
		bad "not found: $f (build the library, or set EMU_LIBDIR)"
		echo "$pass passed, $fail failed"
		exit 1
	fi
done

# version_nodes LIB: the version definitions of LIB, "node parent" ("-"
# for none).
version_nodes() {
	readelf -V -W "$1" | awk '
	/Version definition section/ { in_def = 1; next }
	/Version needs section/ { in_def = 0 }
	in_def && /Name:/ {
		if (cur != "" && !base)
			print cur, "-"
		cur = $NF; base = ($0 ~ /BASE/); next
	}
	in_def && /Parent 1:/ {
		if (!base)
			print cur, $NF
		cur = ""; next
	}
	END {
		if (cur != "" && !base)
			print cur, "-"
	}' | sort -u
}

# defined_symbols LIB NODES: "symbol version" for every defined global/weak
# dynamic symbol of LIB; version is "-" when the symbol has none. name@@V
# is the default version, name@V a hidden one; both count as defining name
# at V. GNU ld also emits one zero-size absolute symbol per version node
# (NODES lists them), named after the node (without or with "@@node"
# depending on the binutils version); those are skipped.
defined_symbols() {
	readelf --dyn-syms -W "$1" |
	awk -v nodes="$2" '
	BEGIN {
		while ((getline line < nodes) > 0) {
			split(line, f, " ")
			is_node[f[1]] = 1
		}
	}
	$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && NF >= 8 {
		name = $8
		ver = "-"
		at = index(name, "@")
		if (at) {
			ver = substr(name, at + 1)
			sub(/^@/, "", ver)
			name = substr(name, 1, at - 1)
		}
		if ($7 == "ABS" && (name in is_node) &&
		    (ver == "-" || ver == name))
			next
		print name, ver
	}' | sort -u
}

version_nodes "$lib" >"$tmp/lib.nodes"
defined_symbols "$lib" "$tmp/lib.nodes" >"$tmp/exports"

# "symbol node" for every global in the map, and "node parent" per node
# ("-" for none). Comments are removed first; the map has no other syntax
# than nodes, global:/local: labels and "name;" entries.
awk '
	{ text = text $0 "\n" }
	END {
		out = ""
		while ((s = index(text, "/*")) > 0) {
			rest = substr(text, s + 2)
			e = index(rest, "*/")
			if (e == 0)
				break
			out = out substr(text, 1, s - 1) " "
			text = substr(rest, e + 2)
		}
		printf "%s%s", out, text
	}' "$map" >"$tmp/map.nocomments"

: >"$tmp/map.syms"
: >"$tmp/map.nodes"
awk -v syms="$tmp/map.syms" -v nodes="$tmp/map.nodes" '
	/^[ \t]*$/ { next }
	/^[A-Za-z0-9_.]+[ \t]*\{/ {
		node = $1; sub(/\{.*/, "", node); scope = ""; next
	}
	/^[ \t]*global:/ { scope = "global"; next }
	/^[ \t]*local:/ { scope = "local"; next }
	/^[ \t]*\}/ {
		parent = $0
		gsub(/[ \t};]/, "", parent)
		print node, (parent == "" ? "-" : parent) > nodes
		node = ""; next
	}
	node != "" && scope == "global" {
		s = $0; gsub(/[ \t;]/, "", s)
		if (s != "")
			print s, node > syms
	}' "$tmp/map.nocomments"
sort -u -o "$tmp/map.syms" "$tmp/map.syms"
sort -u -o "$tmp/map.nodes" "$tmp/map.nodes"

# --- 1. every import is satisfied -----------------------------------------

echo "checking $(wc -l <"$tmp/files") Debian ELF files against $lib"
awk '{ print $1 }' "$tmp/needs" | sort -u | while read -r symver; do
	sym=${symver%%@*}
	ver=${symver#*@}
	if grep -qx "$sym $ver" "$tmp/exports"; then
		echo ok
	else
		users=$(awk -v s="$symver" '$1 == s { print $2 }' "$tmp/needs" |
			sed 's|.*/||' | sort -u | tr '\n' ' ')
		have=$(awk -v s="$sym" '$1 == s { printf " %s", $2 }' \
			"$tmp/exports")
		if [ -n "$have" ]; then
			echo "FAIL: $symver is exported under the wrong node" \
				"(we have:$have); needed by: $users"
		else
			echo "FAIL: $symver is not exported; needed by: $users"
		fi
	fi
done >"$tmp/r1"

# --- 2. nothing unexpected is exported ------------------------------------

while read -r sym ver; do
	if [ "$ver" = "-" ]; then
		echo "FAIL: unversioned export: $sym (missing from the map?)"
	elif grep -qx "$sym $ver" "$tmp/map.syms"; then
		echo ok
	else
		echo "FAIL: unexpected export $sym@$ver" \
			"($(basename "$map") lists no $sym under $ver)"
	fi
done <"$tmp/exports" >"$tmp/r2"

# --- 3. the map is fully implemented --------------------------------------

while read -r sym node; do
	if grep -qx "$sym $node" "$tmp/exports"; then
		echo ok
	else
		echo "FAIL: $sym@$node is in the map" \
			"but not defined by the library"
	fi
done <"$tmp/map.syms" >"$tmp/r3"

while read -r node parent; do
	got=$(awk -v n="$node" '$1 == n { print $2 }' "$tmp/lib.nodes")
	if [ -z "$got" ]; then
		echo "FAIL: version node $node is missing from the library"
	elif [ "$got" != "$parent" ]; then
		echo "FAIL: version node $node has parent $got," \
			"the map says $parent"
	else
		echo ok
	fi
done <"$tmp/map.nodes" >>"$tmp/r3"

while read -r node parent; do
	grep -q "^$node " "$tmp/map.nodes" ||
		echo "FAIL: the library defines version node $node," \
			"the map does not"
done <"$tmp/lib.nodes" >>"$tmp/r3"

# --- 4. Debian's own library's ABI is all there ---------------------------

: >"$tmp/r4"
if [ -n "$reflib" ] && [ -f "$reflib" ]; then
	version_nodes "$reflib" >"$tmp/ref.nodes"
	defined_symbols "$reflib" "$tmp/ref.nodes" >"$tmp/ref.exports"
	while read -r sym ver; do
		if grep -qx "$sym $ver" "$tmp/exports"; then
			echo ok
		else
			echo "FAIL: $sym@$ver is defined by $reflib," \
				"not by ours"
		fi
	done <"$tmp/ref.exports" >"$tmp/r4"
	while read -r node parent; do
		if grep -qx "$node $parent" "$tmp/lib.nodes"; then
			echo ok
		else
			echo "FAIL: $reflib has version node $node" \
				"(parent $parent), ours does not"
		fi
	done <"$tmp/ref.nodes" >>"$tmp/r4"
elif [ -n "$reflib" ]; then
	echo "note: Debian's library not found: check 4 skipped"
fi

for r in r1 r2 r3 r4; do
	while read -r line; do
		if [ "$line" = ok ]; then
			ok
		else
			bad "${line#FAIL: }"
		fi
	done <"$tmp/$r"
done

echo "imports checked: $(wc -l <"$tmp/r1")," \
	"exports: $(wc -l <"$tmp/exports")," \
	"map entries: $(wc -l <"$tmp/map.syms")," \
	"Debian library's symbols and nodes: $(wc -l <"$tmp/r4")"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
