#!/bin/sh
# rdma_cm and the runtime directory on a machine shared with another user
# (nobody; the script needs root to be them): a forged death on our
# liveness sockets ends no connection; links held by that user leave room
# for our real peers; one server keeps a thousand clients of forty
# processes; a port below 1024 needs CAP_NET_BIND_SERVICE (EACCES for
# nobody, root binds it); nobody's listener on 127.0.0.1 neither takes
# our clients nor our port; a /tmp/emuverbs-UID made by another user is
# said once on stderr and `emuverbs ps` still finds the program.
. "$(dirname "$0")/lib.sh"
need setpriv
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: acting as another user (nobody) needs root"
	exit 77
fi
crowd="$top_builddir/tests/integration/cm_crowd"
forge="$top_builddir/tests/integration/cm_forge"
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
# Our configuration directory is in $WORK, which only we may enter.
others="env XDG_CONFIG_HOME=/nonexistent"

# crowd NAME EARLY LATE PER [COMMAND]: cm_crowd's four checks, each a line.
crowd() {
	name=$1
	shift
	next_port
	timeout 280 "$EMU" run "$crowd" "$PORT" "$@" >"$WORK/crowd" 2>&1
	rc=$?
	grep -q '^not ok' "$WORK/crowd" && rc=1
	if [ $rc -eq 0 ] && [ "$(grep -c '^ok' "$WORK/crowd")" -eq 4 ]; then
		ok "$name"
	else
		bad "$name (exit $rc)" "$WORK/crowd"
	fi
}

crowd "nobody's forged deaths end none of 2+1 processes' connections" \
	2 1 2 "$nobody $forge kill"
expect "the forger reached the liveness sockets" "$WORK/crowd" \
	'command: done: [1-9][0-9]* links'
crowd "links nobody holds leave room: 3 late clients connect and stay" \
	2 3 2 "$nobody $forge hold 40"
expect "the holder opened its links" "$WORK/crowd" 'command: held [1-9]'
crowd "one server keeps 40 processes x 25 clients (and 4 probes each)" \
	40 0 25

# Ports below 1024, as the kernel's rdma_cm (cma_use_port: PROT_SOCK).
$nobody $others EMUVERBS_NO_CONTROL=1 "$EMU" run "$crowd" --bind 500 \
	>"$WORK/bind_nobody" 2>&1
expect "nobody binds port 500: EACCES" "$WORK/bind_nobody" \
	'^bind 500: Permission denied$'
"$EMU" run "$crowd" --bind 500 >"$WORK/bind_root" 2>&1
expect "root binds port 500" "$WORK/bind_root" '^bind 500: ok$'
expect "root listens on port 500" "$WORK/bind_root" '^listen 500: ok$'

# The rendezvous: nobody's listener on 127.0.0.1 is not ours to reach,
# and does not keep us from listening on the same port.
next_port
$nobody $others EMUVERBS_NO_CONTROL=1 "$EMU" run rping -s -p $PORT \
	>"$WORK/rdv_nobody" 2>&1 &
npid=$!
# A listening rendezvous name for $PORT, of any user, old or new form.
rdv_held() {
	awk -v p="/$PORT" '$4 == "00010000" && $8 ~ /^@emuverbs-rdma-cm\// &&
		substr($8, length($8) - length(p) + 1) == p { f = 1 }
		END { exit !f }' /proc/net/unix
}
i=0
while [ $i -lt 100 ] && ! rdv_held; do
	sleep 0.1
	i=$((i + 1))
done
[ $i -lt 100 ] && ok "nobody's rping -s listens" ||
	bad "nobody's rping -s listens" "$WORK/rdv_nobody"
"$EMU" run "$crowd" --bind $PORT >"$WORK/rdv_bind" 2>&1
expect "root binds the port nobody's rping -s holds" "$WORK/rdv_bind" \
	"^bind $PORT: ok\$"
timeout 30 "$EMU" run rping -c -C 1 -a 127.0.0.1 -p $PORT \
	>"$WORK/rdv_client" 2>&1 &&
	bad "root's rping -c reached nobody's rping -s by 127.0.0.1" \
		"$WORK/rdv_client" ||
	ok "root's rping -c does not reach nobody's rping -s by 127.0.0.1"
kill $(pgrep -P "$npid") "$npid" 2>/dev/null
wait "$npid" 2>/dev/null

# /tmp/emuverbs-UID squatted by nobody before a user with no
# XDG_RUNTIME_DIR starts: a uid of this run's own, so that nobody else's
# directory is touched.
victim=$((60000 + $$ % 4000))
vdir=/tmp/emuverbs-$victim
rm -rf "$vdir" "$vdir".*
trap 'rm -rf "$WORK" "$vdir" "$vdir".*' EXIT
$nobody mkdir -m 0777 "$vdir"
as_victim() {
	setpriv --reuid=$victim --regid=$victim --clear-groups \
		env -u EMUVERBS_RUNTIME_DIR -u XDG_RUNTIME_DIR \
		XDG_CONFIG_HOME=/nonexistent "$@"
}
next_port
as_victim "$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" \
	>"$WORK/squat" 2>&1 &
victim_pid=$!
i=0
while [ $i -lt 100 ]; do
	as_victim "$EMU" ps >"$WORK/squat_ps" 2>&1
	grep -Eq "^[0-9]+ +ibv_rc_pingpong" "$WORK/squat_ps" && break
	sleep 0.1
	i=$((i + 1))
done
# Only the victim's processes are in its directory.
expect "squatted /tmp/emuverbs-UID: emuverbs ps finds the program" \
	"$WORK/squat_ps" "^[0-9]+ +ibv_rc_pingpong"
kill $(awk '$2 == "ibv_rc_pingpong" { print $1 }' "$WORK/squat_ps") \
	"$victim_pid" 2>/dev/null
wait "$victim_pid" 2>/dev/null
n=$(grep -c "is not this user's own directory" "$WORK/squat")
[ "$n" -eq 1 ] && ok "the program says so in one line" ||
	bad "the program says so in one line ($n lines)" "$WORK/squat"
[ "$(stat -c %u "$vdir")" -eq 65534 ] &&
	ok "nobody's directory is left as it was" ||
	bad "nobody's directory is left as it was"
finish
