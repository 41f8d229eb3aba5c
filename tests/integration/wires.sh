#!/bin/sh
# The shared-memory wire between processes as they really run: one process
# on shared memory with a local peer and on UDP with a peer that stands for
# a remote host, at the same time, every ping verified; a SIGKILLed peer on
# shared memory (peer_death, its log and the survivor's descriptors); a
# stale socket file in the runtime directory, claimed over or fallen back
# from; another user at either end of the handshake refused (as root).
. "$(dirname "$0")/lib.sh"
need rping ibv_rc_pingpong ss /usr/bin/python3
PY=/usr/bin/python3

mkdir -p -m 700 "$EMUVERBS_RUNTIME_DIR"
# A /24 of this test's own, so that ps, stats and logs name its processes.
net="127.206.$(($$ % 250 + 1))"
netns=$(stat -L -c %i /proc/self/ns/net)
D="EMUVERBS_DEBUG=xport"

# stats_of PID FILE: `emuverbs stats PID` into FILE.
stats_of() {
	"$EMU" stats "$1" >"$2" 2>&1
}

# peer_val FILE ADDR FIELD: FIELD of the `peer ADDR:...` section of a
# stats output FILE ("wire" is the section's wire), empty when absent.
peer_val() {
	awk -v a="$2" -v f="$3" '
		/^[^ ]/ { in_ = ($1 == "peer" && index($2, a ":") == 1)
			  if (in_ && f == "wire") print $6 }
		in_ && /^  / && $1 == f { print $2 }' "$1"
}

# pings FILE: how many rping round trips FILE shows.
pings() {
	grep -c '^ping data: rdma-ping-' "$1" 2>/dev/null
}

# pings_ok FILE COMPLETE: rping's -v lines in FILE are round trips 0, 1,
# 2 ... each carrying exactly the pattern rping wrote for it (its default
# 64 bytes: "rdma-ping-N: " then letters from 'A' + N mod 58 on, cycling
# 'A' to 'z'). COMPLETE 0: the program was killed, and its last line,
# maybe cut short, is left out.
pings_ok() {
	awk -v complete="$2" '
		BEGIN { for (c = 65; c <= 122; c++) al = al sprintf("%c", c)
			al = al al }
		function check(l,    p) {
			p = "ping data: rdma-ping-" n + 0 ": "
			if (l != p substr(al, n % 58 + 1, 63 - length(p) + 11)) {
				print "round trip " n ": " l >"/dev/stderr"
				bad = 1
			}
			n++
		}
		/^ping data: rdma-ping-/ { if (held != "") check(held)
					   held = $0 }
		END { if (held != "" && complete) check(held)
		      exit bad || n == 0 }' "$1"
}

# wire_path ADDR: where the port at ADDR listens for the handshake.
wire_path() {
	echo "$EMUVERBS_RUNTIME_DIR/wire-$netns-$1-$wp"
}

# stale ADDR: a socket file at ADDR's wire path that nobody listens on,
# as a killed process leaves it.
stale() {
	"$PY" - "$(wire_path "$1")" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1])
s.close()
EOF
}

# ---- 1. one process, a local peer on shared memory and a remote one on UDP

# A serves every client (rping's persistent server, a thread each); B is
# a local process on the default wire; C stands for a remote host: on UDP,
# it has no socket in the runtime directory, so A's ask finds no such
# file and A answers it over UDP. C runs until stopped, B a fixed number
# of round trips while C runs: the two overlap by construction.
echo "-- 1. one process, one peer on each wire"
A=$net.1 B=$net.2 C=$net.3
next_port
env EMUVERBS_ADDRESS=$A $D timeout "$(slack 600)" \
	"$EMU" run rping -s -P -V -v -p "$PORT" >"$WORK/a.out" 2>"$WORK/a.err" &
a_job=$!
if ! wait_cm $TCP "$PORT"; then
	bad "rping -s -P listens" "$WORK/a.err"
	kill "$a_job" 2>/dev/null
	finish
	exit 1
fi
apid=$(pid_of "$A")
# The UDP port the machine's ports meet on (4791, or 14791 next to a
# loaded rdma_rxe), from A's own socket file.
wp=$(ls "$EMUVERBS_RUNTIME_DIR" | sed -n "s/^wire-$netns-$A-\([0-9]*\)$/\1/p")
[ -n "$wp" ] && ok "A listens at wire-$netns-$A-$wp" ||
	bad "A has a wire socket in the runtime directory"
wp=${wp:-4791}

env EMUVERBS_ADDRESS=$C EMUVERBS_WIRE=udp $D timeout "$(slack 600)" \
	"$EMU" run rping -c -V -v -a 127.0.0.1 -p "$PORT" \
	>"$WORK/c.out" 2>"$WORK/c.err" &
c_job=$!
c_moves() {	# C has done more than $1 round trips, and still runs
	kill -0 "$c_job" 2>/dev/null && [ "$(pings "$WORK/c.out")" -gt "$1" ]
}
wait_until 60 c_moves 0 || bad "C (UDP) pings" "$WORK/c.err"
[ -e "$(wire_path "$C")" ] && bad "C, on UDP, has no wire socket" ||
	ok "C, on UDP, has no wire socket: A's ask finds none"

env EMUVERBS_ADDRESS=$B $D timeout "$(slack 300)" \
	"$EMU" run rping -c -V -v -C 10000 -a 127.0.0.1 -p "$PORT" \
	>"$WORK/b.out" 2>"$WORK/b.err" &
b_job=$!

# both_wires: A's stats and ps, taken while B and C run, show B on shared
# memory with frames through its rings and C on UDP with none.
both_wires() {
	kill -0 "$b_job" 2>/dev/null && kill -0 "$c_job" 2>/dev/null &&
		stats_of "$apid" "$WORK/a.stats" &&
		"$EMU" ps >"$WORK/a.ps" 2>&1 &&
		kill -0 "$b_job" 2>/dev/null && kill -0 "$c_job" 2>/dev/null &&
		[ "$(peer_val "$WORK/a.stats" "$B" wire)" = shm ] &&
		[ "$(peer_val "$WORK/a.stats" "$C" wire)" = udp ] &&
		[ "$(peer_val "$WORK/a.stats" "$B" ring_tx_frames)" -gt 0 ] &&
		[ "$(peer_val "$WORK/a.stats" "$B" ring_rx_frames)" -gt 0 ] &&
		grep -Eq "^$apid +rping .* $A +auto shm:1 udp:1 " "$WORK/a.ps"
}
if wait_until 60 both_wires; then
	ok "A's stats while both run: $B wire shm, $C wire udp"
	ok "A's line in ps meanwhile: auto shm:1 udp:1"
	c_ring=$(peer_val "$WORK/a.stats" "$C" ring_tx_frames)
	[ "$c_ring" = 0 ] && ok "no frame to C went through a ring" ||
		bad "frames to C through a ring: $c_ring" "$WORK/a.stats"
else
	bad "A's stats and ps while both run: $B wire shm, $C wire udp" \
		"$WORK/a.stats"
	sed 's/^/    ps| /' "$WORK/a.ps"
fi
wait "$b_job"
b_rc=$?
[ "$b_rc" -eq 0 ] && [ "$(pings "$WORK/b.out")" -eq 10000 ] &&
	ok "B (shm): 10000 round trips, exit 0" ||
	bad "B (shm): exit $b_rc, $(pings "$WORK/b.out") round trips" \
		"$WORK/b.err"
pings_ok "$WORK/b.out" 1 2>"$WORK/b.bad" &&
	ok "B: every round trip carries its own pattern" ||
	bad "B: round trips with the wrong data" "$WORK/b.bad"
# C went on after B was done: the two ran at the same time.
n=$(pings "$WORK/c.out")
wait_until 60 c_moves "$((n + 10))" &&
	ok "C (udp) still runs after B's end" ||
	bad "C (udp) still runs after B's end" "$WORK/c.err"
kill "$c_job" 2>/dev/null
wait "$c_job" 2>/dev/null
pings_ok "$WORK/c.out" 0 2>"$WORK/c.bad" &&
	ok "C: $(pings "$WORK/c.out") round trips, each with its own pattern" ||
	bad "C: round trips with the wrong data" "$WORK/c.bad"
kill "$a_job" 2>/dev/null
wait "$a_job" 2>/dev/null
expect "A's log: B on shared memory" "$WORK/a.err" \
	"xport: emu0/1: wire: peer $B:$wp on shared memory"
expect "A's log: B gone once it exited" "$WORK/a.err" \
	"xport: emu0/1: wire: peer $B:$wp gone"
reject "A's log: C never on shared memory" "$WORK/a.err" \
	"wire: peer $C:$wp on shared memory"
expect "B's log: A on shared memory" "$WORK/b.err" \
	"xport: emu0/1: wire: peer $A:$wp on shared memory"
reject "C's log: no wire at all" "$WORK/c.err" "wire:"

# ---- 2. a peer on shared memory SIGKILLed --------------------------------

# peer_death's host B kills itself once the pair's channel is up; the
# survivor's WRs fail in bounded time and it gives back the channel's
# descriptors and area (checked by the program, which says PASS/FAIL).
echo "-- 2. a peer on shared memory killed"
pd="$top_builddir/tests/integration/peer_death"
env $D timeout "$(slack 120)" "$EMU" run "$pd" >"$WORK/pd.out" 2>&1
pd_rc=$?
[ "$pd_rc" -eq 0 ] && expect "peer_death: all its checks" "$WORK/pd.out" \
	"^[0-9]+ passed, 0 failed$" || bad "peer_death: exit $pd_rc" "$WORK/pd.out"
[ "$(grep -c 'wire: peer 127[0-9.]*:[0-9]* on shared memory$' \
	"$WORK/pd.out")" -eq 2 ] &&
	ok "peer_death: both hosts say the pair is on shared memory" ||
	bad "peer_death: both hosts on shared memory" "$WORK/pd.out"
expect "peer_death: the survivor sees the peer gone" "$WORK/pd.out" \
	'wire: peer 127[0-9.]*:[0-9]* gone$'
expect "peer_death: descriptors given back" "$WORK/pd.out" \
	'^PASS: descriptors back to [0-9]+ once the peer is gone$'
expect "peer_death: no area left mapped" "$WORK/pd.out" \
	'^PASS: no wire area mapped once the peer is gone$'

# The same, with a child of B's holding B's descriptors (its end of the
# wire's connection among them) after B has gone: A learns of the death
# from the process itself (a pidfd), not from the connection.
env $D PEER_DEATH_HOLDER=1 timeout "$(slack 120)" "$EMU" run "$pd" \
	>"$WORK/pdh.out" 2>&1
pd_rc=$?
[ "$pd_rc" -eq 0 ] && expect "peer_death, a child holding B's descriptors" \
	"$WORK/pdh.out" "^[0-9]+ passed, 0 failed$" ||
	bad "peer_death, a child holding B's descriptors: exit $pd_rc" \
		"$WORK/pdh.out"
expect "peer_death, a holder: the survivor sees the peer gone" \
	"$WORK/pdh.out" 'wire: peer 127[0-9.]*:[0-9]* gone$'
expect "peer_death, a holder: descriptors given back" "$WORK/pdh.out" \
	'^PASS: descriptors back to [0-9]+ once the peer is gone$'

# ---- helpers of the pairs below ----------------------------------------

# start_pair NAME "SERVER ENV" "CLIENT ENV": an ibv_rc_pingpong pair that
# runs until stop_pair, as in control.sh: what is checked is waited for
# while it runs, however late the machine's load makes a channel come up.
# Each ENV names the program's EMUVERBS_ADDRESS. Outputs in
# $WORK/NAME.{server,client}; $srv and $cli are the jobs (timeout's),
# $spid and $cpid the programs.
start_pair() {
	next_port
	# shellcheck disable=SC2086
	env $2 $D timeout "$(slack 600)" "$EMU" run ibv_rc_pingpong -g 0 \
		-p "$PORT" -n 100000000 >"$WORK/$1.server" 2>&1 &
	srv=$!
	cli=""
	wait_listen "$PORT" || return 1
	# shellcheck disable=SC2086
	env $3 $D timeout "$(slack 600)" "$EMU" run ibv_rc_pingpong -g 0 \
		-p "$PORT" -n 100000000 127.0.0.1 >"$WORK/$1.client" 2>&1 &
	cli=$!
	spid=$(pid_of "$(address_in "$2")")
	cpid=$(pid_of "$(address_in "$3")")
	[ -n "$spid" ] && [ -n "$cpid" ]
}

address_in() {
	echo "$1" | sed -n 's/.*EMUVERBS_ADDRESS=\([^ ]*\).*/\1/p'
}

stop_pair() {
	# shellcheck disable=SC2086
	kill $cli "$srv" 2>/dev/null
	# shellcheck disable=SC2086
	wait $cli "$srv" 2>/dev/null
}

# wire_is PID PEER WIRE: PID's stats show PEER on WIRE (the output stays
# in $WORK/PID.stats).
wire_is() {
	stats_of "$1" "$WORK/$1.stats" &&
		[ "$(peer_val "$WORK/$1.stats" "$2" wire)" = "$3" ]
}

# sent PID: the packets PID's port has sent.
sent() {
	"$EMU" stats "$1" 2>/dev/null |
		awk '$1 == "sent_pkts" { print $2; exit }'
}

# moving PID N: PID's port has sent more than N packets.
moving() {
	[ "$(sent "$1")" -gt "$2" ] 2>/dev/null
}

# goes_on NAME PID: PID's port keeps sending (some hundreds of packets
# more than now).
goes_on() {
	_n=$(sent "$2")
	if wait_until 60 moving "$2" "$((${_n:-0} + 300))"; then
		ok "$1: the pair goes on"
	else
		bad "$1: the pair goes on" "$WORK/$2.stats"
	fi
}

# logs NAME FILE REGEX: FILE gets a line matching REGEX (a log line is
# written a moment after what it says has happened).
logs() {
	if wait_until 30 grep -Eq -- "$3" "$2"; then
		ok "$1"
	else
		bad "$1 (no /$3/)" "$2"
	fi
}

# ---- 3. stale socket files in the runtime directory ---------------------

# (a) A process that claims an address whose socket file a dead process
# left takes the name over: a peer then reaches it on shared memory.
echo "-- 3. stale socket files"
S=$net.4 T=$net.5
stale "$S"
# wire_listening ADDR: a socket listens at ADDR's wire path
# (/proc/net/unix lists bound sockets with their paths; a listening one
# has flag __SO_ACCEPTCON).
wire_listening() {
	awk -v p="$(wire_path "$1")" '$4 == "00010000" && $8 == p { f = 1 }
		END { exit !f }' /proc/net/unix
}
if [ -S "$(wire_path "$S")" ] && ! wire_listening "$S"; then
	ok "stale file (a): a socket file nobody listens on"
else
	bad "stale file (a): a socket file nobody listens on"
fi
if start_pair stale_a "EMUVERBS_ADDRESS=$S" "EMUVERBS_ADDRESS=$T"; then
	# ibv_rc_pingpong opens its device before it listens on TCP.
	if wire_listening "$S"; then
		ok "stale file (a): replaced by a listening socket"
	else
		bad "stale file (a): replaced by a listening socket"
	fi
	if wait_until 60 wire_is "$cpid" "$S" shm; then
		ok "stale file (a): the client's stats: the server on shm"
	else
		bad "stale file (a): the client's stats: the server on shm" \
			"$WORK/$cpid.stats"
	fi
	if wait_until 60 wire_is "$spid" "$T" shm; then
		ok "stale file (a): the server's stats: the client on shm"
	else
		bad "stale file (a): the server's stats: the client on shm" \
			"$WORK/$spid.stats"
	fi
	logs "stale file (a): the client's log says so" \
		"$WORK/stale_a.client" "wire: peer $S:$wp on shared memory"
	logs "stale file (a): the server's log says so" \
		"$WORK/stale_a.server" "wire: peer $T:$wp on shared memory"
else
	bad "stale file (a): the pair started" "$WORK/stale_a.server"
fi
stop_pair

# (b) A sender to an address whose socket file is stale (the process
# there now is on UDP: it left the dead one's file alone) is refused the
# connection and stays on UDP, without a wait.
S=$net.6 T=$net.7
stale "$S"
if start_pair stale_b "EMUVERBS_ADDRESS=$S EMUVERBS_WIRE=udp" \
	"EMUVERBS_ADDRESS=$T"; then
	logs "stale file (b): the sender says why it is on UDP" \
		"$WORK/stale_b.client" \
		"wire: $S:$wp over UDP: Connection refused"
	if wire_is "$cpid" "$S" udp; then
		ok "stale file (b): the sender's stats: udp"
	else
		bad "stale file (b): the sender's stats: udp" \
			"$WORK/$cpid.stats"
	fi
	goes_on "stale file (b)" "$cpid"
	reject "stale file (b): nothing on shared memory" \
		"$WORK/stale_b.client" "on shared memory"
	if [ -S "$(wire_path "$S")" ]; then
		ok "stale file (b): left in place"
	else
		bad "stale file (b): left in place"
	fi
else
	bad "stale file (b): the pair started" "$WORK/stale_b.server"
fi
stop_pair

# ---- 4. another user at either end (root only) --------------------------

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	echo "note: 4. another user's socket needs root and setpriv: not run"
	finish
	exit
fi

echo "-- 4. another user at either end"
# (a) The sender's side: at the wire path of an address it sends to, a
# socket that user nobody listens on. The kernel reports a listener's
# credentials as of its listen(): bound as root (the runtime directory is
# root's), then listening as nobody.
S=$net.8 T=$net.9
"$PY" - "$(wire_path "$S")" >"$WORK/nobody.a" 2>&1 <<'EOF' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1])
os.setgroups([])
os.setresgid(65534, 65534, 65534)
os.setresuid(65534, 65534, 65534)
s.listen(8)
print("listening", os.getpid(), os.getuid(), flush=True)
time.sleep(3600)
EOF
nob=$!
if ! wait_until 30 grep -q "^listening $nob 65534$" "$WORK/nobody.a"; then
	bad "another uid (a): nobody's listener" "$WORK/nobody.a"
elif start_pair uid_a "EMUVERBS_ADDRESS=$S EMUVERBS_WIRE=udp" \
	"EMUVERBS_ADDRESS=$T"; then
	logs "another uid (a): the sender refuses nobody's listener" \
		"$WORK/uid_a.client" \
		"wire: refused pid $nob: uid 65534 is not ours"
	if wire_is "$cpid" "$S" udp; then
		ok "another uid (a): the sender's stats: udp"
	else
		bad "another uid (a): the sender's stats: udp" \
			"$WORK/$cpid.stats"
	fi
	goes_on "another uid (a)" "$cpid"
	reject "another uid (a): nothing on shared memory" \
		"$WORK/uid_a.client" "on shared memory"
else
	bad "another uid (a): the pair started" "$WORK/uid_a.server"
fi
stop_pair
kill "$nob" 2>/dev/null
wait "$nob" 2>/dev/null

# (b) The listener's side: while a pair runs on shared memory, the runtime
# directory and the server's socket are opened to everyone and nobody
# connects. The server refuses it; the pair goes on, on the same channel.
S=$net.10 T=$net.11
if ! start_pair uid_b "EMUVERBS_ADDRESS=$S" "EMUVERBS_ADDRESS=$T"; then
	bad "another uid (b): the pair started" "$WORK/uid_b.server"
elif ! wait_until 60 wire_is "$spid" "$T" shm; then
	bad "another uid (b): the pair on shared memory" "$WORK/$spid.stats"
else
	path=$(wire_path "$S")
	dmode=$(stat -c %a "$EMUVERBS_RUNTIME_DIR")
	smode=$(stat -c %a "$path")
	chmod 0711 "$EMUVERBS_RUNTIME_DIR"
	chmod 0777 "$path"
	# From inside the directory (the test's own above it stays closed),
	# by its name in it.
	(cd "$EMUVERBS_RUNTIME_DIR" && timeout "$(slack 60)" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PY" -I - "$(basename "$path")" <<'EOF') >"$WORK/nobody.b" 2>&1
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
print("pid", os.getpid(), "uid", os.getuid(), flush=True)
s.connect(sys.argv[1])
print("connected", flush=True)
# The server hangs up on a stranger without a word.
print("closed" if s.recv(64) == b"" else "answered", flush=True)
EOF
	chmod "$dmode" "$EMUVERBS_RUNTIME_DIR"
	chmod "$smode" "$path"
	npid=$(sed -n 's/^pid \([0-9]*\) uid 65534$/\1/p' "$WORK/nobody.b")
	expect "another uid (b): nobody connects and is hung up on" \
		"$WORK/nobody.b" "^closed$"
	expect "another uid (b): the server refuses it" "$WORK/uid_b.server" \
		"wire: refused pid ${npid:-none}: uid 65534 is not ours"
	if [ "$(stat -c %a "$EMUVERBS_RUNTIME_DIR")" = "$dmode" ]; then
		ok "another uid (b): the runtime directory is $dmode again"
	else
		bad "another uid (b): the runtime directory is $dmode again"
	fi
	# Unaffected: the same peer on shared memory, frames still moving
	# through its ring.
	f0=$(peer_val "$WORK/$spid.stats" "$T" ring_rx_frames)
	more_frames() {
		wire_is "$spid" "$T" shm &&
			[ "$(peer_val "$WORK/$spid.stats" "$T" \
				ring_rx_frames)" -gt "$((f0 + 100))" ]
	}
	if wait_until 60 more_frames; then
		ok "another uid (b): the pair goes on over shared memory"
	else
		bad "another uid (b): the pair goes on over shared memory" \
			"$WORK/$spid.stats"
	fi
	reject "another uid (b): the pair's channel never went down" \
		"$WORK/uid_b.server" "wire: peer $T:$wp gone"
fi
stop_pair
finish
