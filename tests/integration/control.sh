#!/bin/sh
# The control socket on running, unmodified programs: `emuverbs ps` lists
# them; `emuverbs port` takes a running ibv_rc_pingpong pair's port down
# and up, ibv_asyncwatch shows PORT_ERR and PORT_ACTIVE, and the transfer
# goes on to its end; a speed change shows in the running process's
# queries and its sysfs view; a fault rule added at run time drops what it
# matches and says so; a bad command is refused with one line; another
# user can neither find nor use the socket; a killed process's socket is
# cleaned by the next.
. "$(dirname "$0")/lib.sh"
need ibv_rc_pingpong ibv_asyncwatch ss setpriv

ps_has() {	# ps_has REGEX: `emuverbs ps` shows a line matching it
	"$EMU" ps >"$WORK/ps" 2>&1
	grep -Eq -- "$1" "$WORK/ps"
}

# wait_for N COMMAND: wait until N processes of COMMAND have a socket.
wait_for() {
	wait_until 60 running "$@"
}

running() {
	[ "$("$EMU" ps 2>/dev/null | awk -v c="$2" '$2 == c' | wc -l)" \
		-ge "$1" ]
}

# all_active N: N processes' ports are ACTIVE.
all_active() {
	"$EMU" ps >"$WORK/ps" 2>&1
	[ "$(grep -Ec ' emu0/1 +ACTIVE ' "$WORK/ps")" -ge "$1" ]
}

# qp_sent PID: what PID's QP has sent (its last sent_pkts line).
qp_sent() {
	"$EMU" stats "$1" 2>/dev/null | awk '$1 == "sent_pkts" { n = $2 }
		END { print n + 0 }'
}

# sends_more PID N: PID's QP is in RTS and has sent more than N.
sends_more() {
	qp_sending "$1" && [ "$(qp_sent "$1")" -gt "$2" ]
}

# dropped_five: the run-time rule has dropped its five SENDs.
dropped_five() {
	"$EMU" fault "$server" list >"$WORK/flist" 2>&1
	grep -Eq "\(matched [0-9]+, acted 5\)" "$WORK/flist"
}

# Not under timeout: the PIDs must be the programs' own (emuverbs run
# execs them). A watchdog ends what is left of a hung run. The pingpong
# runs until the test has seen it go on after the flap and the drops: a
# number of round trips that outlasts the checks would be seconds on a
# quiet machine and many minutes on a busy one.
"$EMU" run ibv_asyncwatch >"$WORK/watch" 2>&1 &
watch=$!
next_port
"$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" -n 100000000 \
	>"$WORK/server" 2>&1 &
server=$!
wait_listen "$PORT"
"$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" -n 100000000 127.0.0.1 \
	>"$WORK/client" 2>&1 &
client=$!
(sleep "$(slack 600)"; kill "$watch" "$server" "$client") >/dev/null 2>&1 &
dog=$!
if wait_for 2 ibv_rc_pingpong && wait_for 1 ibv_asyncwatch; then
	ok "emuverbs ps lists the pingpong pair and ibv_asyncwatch"
else
	bad "emuverbs ps lists the programs" "$WORK/ps"
fi
ps_has "^$server +ibv_rc_pingpong +emu0/1 +ACTIVE +EDR 4x +127\.[0-9.]+ +auto shm:1 udp:0 +1$" &&
	ok "ps: PID, command, port, state, rate, address, wire, peers and QPs" ||
	bad "ps: PID, command, port, state, rate, address, wire, peers and QPs" "$WORK/ps"

# A fault added while it runs: five SENDs the server receives are lost
# (each one retransmitted), counted.
"$EMU" fault "$server" add name=rt drop dir=rx op=send count=5 \
	>"$WORK/fadd" 2>&1 &&
	ok "fault add on a running process" || bad "fault add" "$WORK/fadd"

# ps follows a port's state (ibv_asyncwatch's: it has no QP to lose).
"$EMU" port "$watch" emu0/1 down >"$WORK/down0" 2>&1
ps_has "^$watch +ibv_asyncwatch +emu0/1 +DOWN" &&
	ok "ps shows the port down" || bad "ps shows the port down" "$WORK/ps"
"$EMU" port "$watch" emu0/1 up >"$WORK/up0" 2>&1

# The port down for 150 ms everywhere, timed by each device itself (a
# command's own latency under load never stretches it): well inside the
# pair's retry budget (8 x 67 ms), so the transfer goes on.
"$EMU" port all emu0/1 flap 150ms >"$WORK/flap" 2>&1 &&
	ok "port all emu0/1 flap 150ms" || bad "port flap" "$WORK/flap"
expect "each says down, and up in 150 ms" "$WORK/flap" \
	"^$client ibv_rc_pingpong: emu0/1: down, up in 150000 us$"
# On with the rest once the three are up again.
wait_until 60 all_active 3 ||
	bad "the ports came up after the flap" "$WORK/ps"

# A speed change: the running process's view of sysfs says it, and so do
# its queries (the server below asks its own device through pyverbs).
"$EMU" speed "$client" emu0/1 HDR 2x >"$WORK/speed" 2>&1 &&
	ok "speed on a running process" || bad "speed" "$WORK/speed"
rate="/proc/$client/root/sys/class/infiniband/emu0/ports/1/rate"
if [ -r "$rate" ]; then
	expect "its sysfs view follows the speed" "$rate" "^100 Gb/sec \(2X HDR\)"
else
	echo "note: no sysfs view in $client's namespace: not checked"
fi
ps_has "^$client +ibv_rc_pingpong +emu0/1 +ACTIVE +HDR 2x" &&
	ok "ps shows the new rate" || bad "ps shows the new rate" "$WORK/ps"
wait_until 60 dropped_five
expect "the run-time rule dropped five SENDs, counted" "$WORK/flist" \
	"emu0: rt: drop dir=rx op=send count=5 \(matched [0-9]+, acted 5\)"

# Bad commands: one line each, nothing changed.
"$EMU" ctl "$server" sideways >"$WORK/bad1" 2>&1
[ $? -eq 1 ] && [ "$(wc -l <"$WORK/bad1")" -eq 1 ] &&
	expect "an unknown command: one line" "$WORK/bad1" \
		"^emuverbs: $server \(ibv_rc_pingpong\): sideways: unknown command$" ||
	bad "an unknown command: one line" "$WORK/bad1"
"$EMU" speed "$server" emu0/1 FAST >"$WORK/bad2" 2>&1
[ $? -eq 1 ] && [ "$(wc -l <"$WORK/bad2")" -eq 1 ] &&
	expect "a bad speed: one line" "$WORK/bad2" "speed: FAST is not one of" ||
	bad "a bad speed: one line" "$WORK/bad2"
"$EMU" event "$server" qp-fatal 0x123 >"$WORK/bad3" 2>&1
expect "an event on no QP: one line" "$WORK/bad3" \
	"qp-fatal 0x123: no such QP on an open device$"
"$EMU" port nosuchprogram emu0/1 down >"$WORK/bad4" 2>&1
[ $? -eq 1 ] && expect "no such target" "$WORK/bad4" "matches nosuchprogram"

# Another user: the directory keeps it out; with the doors opened on
# purpose, the server still refuses it by its credentials.
run_dir=$EMUVERBS_RUNTIME_DIR
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env EMUVERBS_RUNTIME_DIR="$run_dir" "$@"
}
as_nobody "$top_builddir/tools/emuverbs-ctl" port "$server" emu0/1 down \
	>"$WORK/other1" 2>&1
[ $? -ne 0 ] && ok "another user cannot reach the socket ($(cat "$WORK/other1"))" ||
	bad "another user cannot reach the socket" "$WORK/other1"
chmod 711 "$WORK"
chmod 755 "$run_dir"
chmod 666 "$run_dir/$server.sock"
as_nobody "$top_builddir/tools/emuverbs-ctl" port "$server" emu0/1 down \
	>"$WORK/other2" 2>&1
expect "another user is refused by its credentials" "$WORK/other2" \
	"permission denied: not the owner"
chmod 700 "$run_dir" "$WORK"
chmod 600 "$run_dir/$server.sock"
ps_has "^$server +ibv_rc_pingpong +emu0/1 +ACTIVE" &&
	ok "and the port stayed up" || bad "the port stayed up" "$WORK/ps"

# The transfer goes on after the flap and the drops: each side's QP is
# in RTS and sends more than it had (a QP in error would have ended its
# program with a failure).
c0=$(qp_sent "$client")
s0=$(qp_sent "$server")
if wait_until 60 sends_more "$client" "$c0" &&
	wait_until 60 sends_more "$server" "$s0"; then
	ok "the pingpong survived the flap and the drops (sent $c0, $s0, \
then more)"
else
	bad "the pingpong survived the flap and the drops" "$WORK/client"
	sed 's/^/    s| /' "$WORK/server" | tail -5
fi
kill "$client" "$server" 2>/dev/null
wait "$client" "$server" 2>/dev/null
expect "ibv_asyncwatch saw PORT_ERR" "$WORK/watch" \
	"IBV_EVENT_PORT_ERR \(10\), port 1"
expect "then PORT_ACTIVE" "$WORK/watch" "IBV_EVENT_PORT_ACTIVE \(9\), port 1"

# Sockets go when their processes end: a short pair, seen listed before.
next_port
"$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" -n 10 >"$WORK/s2" 2>&1 &
s2=$!
wait_listen "$PORT"
[ -e "$run_dir/$s2.sock" ] && ok "a running pingpong has its socket" ||
	bad "a running pingpong has its socket"
"$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" -n 10 127.0.0.1 >"$WORK/c2" 2>&1 &
c2=$!
if wait "$c2" && wait "$s2"; then
	[ ! -e "$run_dir/$s2.sock" ] && [ ! -e "$run_dir/$c2.sock" ] &&
		ok "the pingpongs' sockets are gone once they end" ||
		bad "sockets removed"
else
	bad "a pingpong of 10 round trips" "$WORK/c2"
fi

# A SIGKILLed process leaves its socket; the next process removes it.
kill -9 "$watch"
wait "$watch" 2>/dev/null
[ -e "$run_dir/$watch.sock" ] && ok "a killed process leaves its socket" ||
	bad "a killed process leaves its socket"
"$EMU" run ibv_asyncwatch >/dev/null 2>&1 &
w2=$!
wait_for 1 ibv_asyncwatch
[ ! -e "$run_dir/$watch.sock" ] && ok "the next process removed it" ||
	bad "the next process removed it"
kill "$w2"
wait "$w2" 2>/dev/null

# The running process's own queries (pyverbs, in one long-lived process).
if /usr/bin/python3 -c 'import pyverbs.device' 2>/dev/null; then
	cat >"$WORK/ports.py" <<'EOF'
import sys, time
import pyverbs.device as d
ctx = d.Context(name='emu0')
print('ready', flush=True)
sys.stdin.readline()
a = ctx.query_port(1)
print('speed', a.active_speed, 'width', a.active_width, flush=True)
EOF
	mkfifo "$WORK/in"
	"$EMU" run /usr/bin/python3 "$WORK/ports.py" <"$WORK/in" \
		>"$WORK/py" 2>&1 &
	py=$!
	exec 3>"$WORK/in"
	wait_for 1 python3
	"$EMU" speed "$py" emu0/1 NDR 1x >"$WORK/speed2" 2>&1
	echo go >&3
	exec 3>&-
	wait "$py"
	# NDR is active_speed 128 (IBV_SPEED_NDR), 1x is width 1.
	expect "the process's ibv_query_port follows" "$WORK/py" \
		"^speed 128 width 1$"
else
	echo "note: python3-pyverbs missing: queries not checked"
fi
kill "$dog" 2>/dev/null
finish
