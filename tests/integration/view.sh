#!/bin/sh
# The view `emuverbs run` gives programs of /dev/infiniband and
# /sys/class: its contents are what the verbs tell the same process
# (view_check.py, pyverbs; also with another process on the same view),
# the program keeps its uid and exit status, the host sees nothing of it,
# and without user namespaces the program runs anyway after one line
# saying so.
. "$(dirname "$0")/lib.sh"
need /usr/bin/python3 setpriv unshare ibv_devices

out="$WORK/out"
err="$WORK/err"
if /usr/bin/python3 -c 'import pyverbs.device' 2>/dev/null; then
	"$EMU" run /usr/bin/python3 "$top_srcdir/tests/integration/view_check.py" \
		>"$out" 2>&1
	expect "view says what the verbs say" "$out" '^[1-9][0-9]* passed, 0 failed'
	grep '^FAIL' "$out"
else
	echo "note: python3-pyverbs missing: contents not compared"
fi

# Same pid, same exit status, nothing on stderr, the host untouched.
had_dev=no
[ -e /dev/infiniband ] && had_dev=yes
"$EMU" run sh -c 'test -c /dev/infiniband/uverbs0 && exit 3' 2>"$err"
[ $? -eq 3 ] && ok "exit status of the program" || bad "exit status" "$err"
reject "nothing on stderr" "$err" '.'
"$EMU" run /nonexistent-program 2>"$err"
[ $? -eq 127 ] && ok "a missing program exits 127" || bad "missing program"
now_dev=no
[ -e /dev/infiniband ] && now_dev=yes
[ "$had_dev" = "$now_dev" ] && ok "host /dev untouched" ||
	bad "host /dev changed"
if [ -e /sys/class/infiniband/emu0 ]; then
	bad "host /sys/class shows emu0"
else
	ok "host /sys/class untouched"
fi

# Unprivileged (as nobody when run as root): own uid, same view. Nobody
# cannot read $WORK, so no config directory: the built-in default.
if [ "$(id -u)" -eq 0 ]; then
	NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
	uid=65534
else
	NOBODY=""
	uid=$(id -u)
fi
if [ -n "$NOBODY" ] && ! $NOBODY test -x "$EMU"; then
	# A build under a private directory (a clone in /root, mktemp -d):
	# nobody cannot reach the program, so there is nothing to test.
	echo "note: uid $uid cannot reach $EMU; unprivileged check not run"
	NOBODY=skip
fi
[ "$NOBODY" = skip ] ||
$NOBODY env -u XDG_CONFIG_HOME HOME=/nonexistent "$EMU" run sh -c 'id -u
	test -c /dev/infiniband/uverbs0 && ibv_devices >/dev/null &&
	cat /sys/class/infiniband/emu0/ports/1/gid_attrs/types/0' \
	>"$out" 2>&1
if [ "$NOBODY" = skip ]; then
	:
elif grep -q '^emuverbs: no private' "$out"; then
	echo "note: no unprivileged user namespaces here"
	cat "$out"
else
	expect "unprivileged: the program keeps its uid" "$out" "^$uid\$"
	expect "unprivileged: the view is there" "$out" '^RoCE v2$'
fi

# Root without CAP_SYS_ADMIN (some containers): a user namespace instead.
if [ "$(id -u)" -eq 0 ]; then
	setpriv --bounding-set=-sys_admin "$EMU" run sh -c 'id -u
		test -c /dev/infiniband/uverbs0 && ibv_devices >/dev/null &&
		cat /sys/class/infiniband/emu0/ports/1/state' >"$out" 2>&1
	expect "root without CAP_SYS_ADMIN: still root" "$out" '^0$'
	expect "root without CAP_SYS_ADMIN: the view" "$out" '^4: ACTIVE$'
fi

# No namespaces at all: inside a user namespace whose limit of further
# ones is 0, without CAP_SYS_ADMIN. One line, then the program runs with
# no view, its exit status kept.
if unshare --user --map-root-user \
	sh -c 'echo 0 >/proc/sys/user/max_user_namespaces' 2>/dev/null; then
	unshare --user --map-root-user sh -c '
		echo 0 >/proc/sys/user/max_user_namespaces &&
		exec setpriv --bounding-set=-sys_admin "$1" run sh -c "
			test -e /dev/infiniband/uverbs0 || echo no-node
			ibv_devices; exit 4"' sh "$EMU" >"$out" 2>"$err"
	rc=$?
	[ $rc -eq 4 ] && ok "no namespaces: the program runs" ||
		bad "no namespaces: exit $rc" "$err"
	expect "no namespaces: no view" "$out" '^no-node$'
	expect "no namespaces: the device all the same" "$out" '^ +emu0 '
	expect "no namespaces: one line says why" "$err" \
		'^emuverbs: no private /dev and /sys view \(unshare\(CLONE_NEWUSER\): .*\); running without it$'
	[ "$(wc -l <"$err")" -eq 1 ] && ok "no namespaces: only that line" ||
		bad "no namespaces: more on stderr" "$err"
else
	echo "note: no user namespaces here to restrict: fallback not tested"
fi

# Asked not to: no view, no message.
EMUVERBS_VIEW=0 "$EMU" run sh -c 'test -e /dev/infiniband/uverbs0 ||
	echo no-node' >"$out" 2>"$err"
expect "EMUVERBS_VIEW=0: no view" "$out" '^no-node$'
reject "EMUVERBS_VIEW=0: silent" "$err" '.'
finish
