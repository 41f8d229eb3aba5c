#!/bin/sh
# emu/'s errno rule, checked on the code (doc/design-notes.md, "One errno
# rule for emu/"): an emu/ function that fails returns a positive errno,
# and 0 on success, as rdma-core's providers do. Failures:
# - in emu/'s code, a negative errno made or read: -EINVAL, -errno
#   (returned, assigned, compared or passed), `return -rc;`,
#   `errno = -rc`, `strerror(-rc)`;
# - in emu/'s comments, one documented: "a negative errno", "-ENOMEM";
# - in a caller (emu/ verbs/ cm/ tools/ tests/), the result of a function
#   declared in an emu/ header negated (`-emu_cq_destroy(...)`) or, on a
#   line outside emu/ that calls one, a negative errno
#   (`emu_async_push(...) == -ENOSPC`);
# - anywhere, an errno negated on its way to emu_refuse(), verbs_null()
#   or verbs_ret(), which take it positive (`verbs_null(-rc)`);
# outside the functions of EXCEPTIONS below, whose contracts mirror a
# public API's or count: each kept with its reason, and one that no longer
# needs its place fails too, so the list only shrinks.
#
# Where emu/ calls net/, whose functions answer with errnos negated as the
# kernel's socket calls do, it negates the result at the call
# (`rc = -emu_udp_open(...)`): net/ is not under this rule. -1 with errno
# set, as libc and ibv_get_async_event return, is not a negative errno.
#
# errno.sh [TREE]        checks TREE (the source tree by default)
# errno.sh --self-test   shows that a planted negative return fails
set -u
here=$(cd "$(dirname "$0")" && pwd)

# NAME<TAB>why its contract is not "0, or a positive errno". The CQ poll
# is the op behind ibv_poll_cq and keeps its contract; the GID snapshot
# feeds _ibv_query_gid_table, which answers a count or a negative errno;
# a QPN or SRQN is below 2^24, so a negative one cannot be a number.
EXCEPTIONS='emu_cq_poll	as ibv_poll_cq: the completions taken, or -errno
emu_gid_table_snapshot	a count or -EINVAL, as _ibv_query_gid_table answers
emu_numtab_insert	a number below 2^24, or -ENOMEM: the sign tells'

# The scanner, for awk -v mode=names|hits -v names=FILE. Comments, string
# and character literals and preprocessor lines are set aside first; a
# function is named by the first "name(" of a statement at top level (one
# that starts after a ";" or "}" there).
# names: the functions the files declare or define. hits: each suspect
# line as KIND FILE:LINE NAME TEXT, separated by US (\037), NAME being
# the function the line is in (code), documents (comment: the one it
# stands in or before) or calls (call); names holds the emu/ headers'
# functions.
SCAN='
BEGIN {
	US = "\037"
	while ((getline n < names) > 0)
		emu[n] = 1
}
function flush(name,   i) {
	for (i = 1; i <= npend; i++)
		print pend[i] US name US pendtext[i]
	npend = 0
}
# Whether the minus at position p of s is unary: no operand before it.
function unary(s, p,   b) {
	b = substr(s, 1, p - 1)
	sub(/[ \t]+$/, "", b)
	return b == "" || b ~ /[=(,?:!<>&|{};]$/ ||
	       b ~ /(^|[^A-Za-z0-9_])return$/
}
# Whether s negates an errno name or errno itself.
function negerr(s,   t, off) {
	t = s
	off = 0
	while (match(t, /-[ \t]*(E[A-Z][A-Z0-9_]+|errno)([^A-Za-z0-9_]|$)/)) {
		if (unary(s, off + RSTART))
			return 1
		off += RSTART + RLENGTH - 1
		t = substr(t, RSTART + RLENGTH)
	}
	return 0
}
FNR == 1 {
	flush("")
	incom = 0; depth = 0; pd = 0; fn = ""; cont = 0; fresh = 1
	inemu = FILENAME ~ /(^|\/)emu\//
}
{
	line = $0
	if (cont || (!incom && line ~ /^[ \t]*#/)) {
		cont = line ~ /\\$/
		next
	}
	code = ""; com = ""
	while (line != "") {
		if (incom) {
			p = index(line, "*/")
			if (!p) {
				com = com " " line
				break
			}
			com = com " " substr(line, 1, p - 1)
			line = substr(line, p + 2)
			incom = 0
			continue
		}
		if (!match(line, /\/\*|\/\/|"|\047/)) {
			code = code line
			break
		}
		code = code substr(line, 1, RSTART - 1)
		tok = substr(line, RSTART, RLENGTH)
		line = substr(line, RSTART + RLENGTH)
		if (tok == "/*") {
			incom = 1
			continue
		}
		if (tok == "//") {
			com = com " " line
			break
		}
		while (line != "") {
			c = substr(line, 1, 1)
			line = substr(line, c == "\\" ? 3 : 2)
			if (c == tok)
				break
		}
		code = code tok tok
	}
	if (fresh && depth == 0 && pd == 0 && code ~ /[^ \t]/) {
		fresh = 0
		fn = ""
		if (match(code, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			fn = substr(code, RSTART, RLENGTH)
			sub(/[ \t]*\($/, "", fn)
		}
		flush(fn)
		if (mode == "names" && fn != "")
			print fn
	}
	where = FILENAME ":" FNR
	if (mode == "hits" && inemu && com != "" &&
	    (tolower(com) ~ /negative errno/ || negerr(com))) {
		if (depth > 0) {
			print "comment" US where US fn US com
		} else {
			pend[++npend] = "comment" US where
			pendtext[npend] = com
		}
	}
	if (mode == "hits" && inemu && (negerr(code) ||
	    code ~ /return[ \t(]*-[ \t]*[a-z_][a-z0-9_]*[ \t)]*;/ ||
	    code ~ /(^|[^A-Za-z0-9_])errno[ \t]*=[ \t]*-/ ||
	    code ~ /strerror[ \t]*\([ \t]*-/))
		print "code" US where US fn US code
	if (mode == "hits" &&
	    code ~ /(emu_refuse|verbs_null|verbs_ret)[ \t]*\([ \t]*-/)
		print "pass" US where US fn US code
	t = mode == "hits" ? code : ""
	while (match(t, /emu_[a-z0-9_]+[ \t]*\(/)) {
		callee = substr(t, RSTART, RLENGTH)
		sub(/[ \t]*\($/, "", callee)
		before = substr(t, 1, RSTART - 1)
		t = substr(t, RSTART + RLENGTH)
		if (!(callee in emu))
			continue
		if ((match(before, /-[ \t(]*$/) && unary(before, RSTART)) ||
		    (!inemu && negerr(code)))
			print "call" US where US callee US code
	}
	s = code
	depth += gsub(/\{/, "", s)
	depth -= gsub(/\}/, "", s)
	pd += gsub(/\(/, "", s)
	pd -= gsub(/\)/, "", s)
	if (depth == 0 && pd == 0 && code ~ /[;}][ \t]*$/)
		fresh = 1
}
END { flush("") }
'

# exempt NAME: why NAME is an exception, or nothing.
exempt() {
	printf '%s\n' "$EXCEPTIONS" |
		awk -F '\t' -v n="$1" '$1 == n { print $2 }'
}

check() {
	tree=$1
	w=$(mktemp -d)
	: >"$w/used"
	(cd "$tree" && find emu -name '*.h' 2>/dev/null | sort |
		xargs -r awk -v mode=names -v names=/dev/null "$SCAN") |
		sort -u >"$w/names"
	(cd "$tree" && find emu verbs cm tools tests -name '*.[ch]' \
		2>/dev/null | sort |
		xargs -r awk -v mode=hits -v names="$w/names" "$SCAN") \
		>"$w/hits"
	bad=0
	us=$(printf '\037')
	while IFS=$us read -r kind where name text; do
		if [ -n "$name" ] && [ -n "$(exempt "$name")" ]; then
			echo "$name" >>"$w/used"
			continue
		fi
		case $kind in
		code) why="a negative errno in emu/'s code" ;;
		comment) why="a negative errno documented in emu/" ;;
		pass) why="an errno negated where a positive one is due" ;;
		*) why="$name's result read as a negative errno" ;;
		esac
		echo "FAIL: $where: ${name:-(top level)}: $why:" \
			"$(printf '%s' "$text" | tr -s ' \t' '  ')"
		bad=1
	done <"$w/hits"
	printf '%s\n' "$EXCEPTIONS" | cut -f1 | while read -r name; do
		grep -qxF "$name" "$w/used" || echo "FAIL: exception $name" \
			"has no negative errno left: take it off EXCEPTIONS"
	done | grep . && bad=1
	echo "$(grep -c . "$w/hits") negative errnos, in" \
		"$(sort -u "$w/used" | grep -c .) listed exceptions"
	rm -rf "$w"
	return $bad
}

# A scratch tree for the self-test: an emu/ function keeping the rule, an
# exception and its caller, and a caller outside emu/.
plant() {
	mkdir -p "$1/emu/base" "$1/verbs"
	cat >"$1/emu/base/a.h" <<'EOF'
/* 0, or a positive errno (ENOMEM). */
int emu_a_make(int n);
/* The number of things, or a negative errno. */
int emu_cq_poll(int n);
EOF
	cat >"$1/emu/base/a.c" <<'EOF'
#include <errno.h>
#include "emu/base/a.h"

int emu_a_make(int n)
{
	if (n < 0)
		return ENOMEM;	/* positive, as the rule says */
	return n > 8 ? errno : 0;
}

int emu_cq_poll(int n)
{
	return n < 0 ? -EINVAL : n - EINVAL;
}
EOF
	cat >"$1/verbs/v.c" <<'EOF'
#include <errno.h>
#include "emu/base/a.h"

int v(int n)
{
	int rc = emu_a_make(n);

	if (rc == ENOMEM)
		return -ENOMEM;
	return emu_cq_poll(n) == -EINVAL ? -1 : 0;
}
EOF
}

# expect WHAT TREE PATTERN: the check of TREE fails with a line matching
# PATTERN (or passes, for PATTERN "").
pass=0 fail=0
expect() {
	out=$(check "$2")
	rc=$?
	if { [ -z "$3" ] && [ $rc -eq 0 ]; } ||
	   { [ -n "$3" ] && [ $rc -ne 0 ] &&
	     printf '%s\n' "$out" | grep -q -- "$3"; }; then
		echo "PASS: $1"
		pass=$((pass + 1))
	else
		echo "FAIL: $1"
		printf '%s\n' "$out" | sed 's/^/  /'
		fail=$((fail + 1))
	fi
}

# planted WHAT PATTERN EDIT FILE...: a fresh scratch tree, edited by the
# sed expression EDIT in FILEs, fails with a line matching PATTERN.
planted() {
	what=$1 pattern=$2 edit=$3
	shift 3
	rm -rf "$t" && mkdir "$t" && plant "$t"
	for f; do
		sed -i "$edit" "$t/$f"
	done
	expect "$what" "$t" "$pattern"
}

if [ "${1-}" = --self-test ]; then
	EXCEPTIONS=$(printf '%s\n' "$EXCEPTIONS" | grep '^emu_cq_poll	')
	t=$(mktemp -d)
	plant "$t"
	expect "a tree that keeps the rule passes" "$t" ""
	planted "a planted return -ENOMEM fails" \
		'a.c:7: emu_a_make: a negative errno in emu' \
		's/return ENOMEM;/return -ENOMEM;/' emu/base/a.c
	planted "a planted -errno in a ternary fails" 'a.c:8: emu_a_make' \
		's/errno : 0;/-errno : 0;/' emu/base/a.c
	planted "a caller negating the result fails" \
		"v.c:6: emu_a_make: emu_a_make's result" \
		's/int rc = emu_a_make(n);/int rc = -emu_a_make(n);/' verbs/v.c
	planted "a header documenting -ENOMEM fails" \
		'a.h:1: emu_a_make: a negative errno documented' \
		's/(ENOMEM)/(-ENOMEM)/' emu/base/a.h
	planted "a caller comparing with -ENOMEM fails" "v.c:8: emu_a_make" \
		's/rc == ENOMEM/emu_a_make(n) == -ENOMEM/' verbs/v.c
	planted "a negated errno handed to verbs_ret fails" \
		"v.c:9: v: an errno negated" \
		's/return -ENOMEM;/return verbs_ret(-rc);/' verbs/v.c
	planted "an exception no longer needed fails" \
		"exception emu_cq_poll has no negative errno left" \
		's/-EINVAL : n - EINVAL/n : n/; s/negative errno/count/;
		 s/== -EINVAL/== 0/' emu/base/a.c emu/base/a.h verbs/v.c
	rm -rf "$t"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi

tree=${1:-${top_srcdir:-$here/../..}}
if check "$tree"; then
	echo "1 passed, 0 failed"
else
	echo "0 passed, 1 failed"
	exit 1
fi
