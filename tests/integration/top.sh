#!/bin/sh
# emuverbs top in a terminal: tmux runs it against one process of an RC
# pingpong pair; its screen shows the process's QP (number, RC, RTS, the
# peer's QP) with rates, q quits it with status 0 and SIGTERM with 143,
# and both times the terminal is back in canonical mode with echo.
. "$(dirname "$0")/lib.sh"
need tmux ibv_rc_pingpong ss

# The processes' control sockets in a directory of this test's alone, so
# that nothing else of this user's (another test, another copy) shows.
export EMUVERBS_RUNTIME_DIR="$WORK/run"
mkdir -p -m 700 "$EMUVERBS_RUNTIME_DIR"
tm="tmux -L emuverbs-top-$$"
trap '$tm kill-server 2>/dev/null; kill $spid $cpid 2>/dev/null;
	rm -rf "$WORK"' EXIT

next_port
"$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" -n 100000000 \
	>"$WORK/server" 2>&1 &
spid=$!
wait_listen "$PORT" || { bad "pingpong server listens" "$WORK/server"; }
"$EMU" run ibv_rc_pingpong -g 0 -p "$PORT" -n 100000000 127.0.0.1 \
	>"$WORK/client" 2>&1 &
cpid=$!
# Both processes answer on their sockets: PID.sock.
wait_until 60 sockets 2
pid=$(ls "$EMUVERBS_RUNTIME_DIR" | sed -n 's/\.sock$//p' | sort -n | head -1)
[ -n "$pid" ] || { bad "the pingpong pair opened its devices"; finish; exit; }
# Its QP connected, so that qps names the peer's.
wait_until 60 qp_sending "$pid"
"$EMU" ctl "$pid" qps >"$WORK/qps" 2>&1
qpn=$(sed -n 's/.*qp \([0-9]*\) port.*/\1/p' "$WORK/qps")
dqpn=$(sed -n 's/.* dqpn \([0-9]*\) .*/\1/p' "$WORK/qps")
[ -n "$qpn" ] && ok "qps names the QP ($qpn)" || bad "qps names the QP" \
	"$WORK/qps"

# screen: what the pane of session $ses shows now.
screen() {
	$tm capture-pane -p -t "$ses" >"$WORK/screen" 2>&1
}

# wait_screen REGEX: wait for the pane to show it.
wait_screen() {
	wait_until 60 shows "$1"
}

shows() {
	screen
	grep -Eq -- "$1" "$WORK/screen"
}

# start NAME: top against $pid in a new session NAME (the server stays:
# killing it and starting another at once can race); the shell after it
# says how it ended and whether the terminal has its line discipline back.
start() {
	ses=$1
	$tm new-session -d -s "$ses" -x 160 -y 24 "echo \$\$ >'$WORK/top.pid';
		'$EMU' top $pid; echo \"top exit \$?\"; echo tty: \$(stty -a |
		tr ' ;' '\n\n' | grep -Ex -- '-?(icanon|echo)'); sleep 60"
}

start first
row="^ *$pid ibv_rc_pingp *$qpn emu0/1 +RC +RTS +127\.[0-9.]+ shm +$dqpn "
if wait_screen "$row"; then
	ok "top shows the QP of process $pid"
else
	bad "top shows the QP of process $pid (/$row/)" "$WORK/screen"
fi
expect "top's header counts 1 process, 1 QP" "$WORK/screen" \
	"^emuverbs top $pid - .* - 1 process, 1 QP - q quits"
# From the second refresh on, rates: the pingpong sends all the time.
if wait_screen "$row +[1-9][0-9]* +[0-9.]+ +[1-9][0-9]* "; then
	ok "top shows send and receive rates"
else
	bad "top shows send and receive rates" "$WORK/screen"
fi
$tm send-keys -t "$ses" q
if wait_screen "^tty: "; then
	expect "q quits top (status 0)" "$WORK/screen" "^top exit 0$"
else
	bad "q quits top" "$WORK/screen"
fi
expect "the terminal is canonical again, with echo" "$WORK/screen" \
	"^tty: icanon echo$"

# A signal ends it too, and the terminal comes back all the same.
start second
wait_screen "$row" || bad "top started again" "$WORK/screen"
# The pane's shell runs top in the foreground: signal its child.
tpid=$(pgrep -P "$(cat "$WORK/top.pid")" | head -1)
[ -n "$tpid" ] && kill -TERM "$tpid"
if wait_screen "^tty: "; then
	expect "SIGTERM ends top (status 143)" "$WORK/screen" \
		"^top exit 143$"
else
	bad "SIGTERM ends top" "$WORK/screen"
fi
expect "after SIGTERM the terminal is canonical, with echo" "$WORK/screen" \
	"^tty: icanon echo$"

# Bad usage: one line, status 2, no terminal left raw.
"$EMU" top >"$WORK/usage" 2>&1
[ $? -eq 2 ] && ok "top without TARGET: status 2" || bad "top usage" \
	"$WORK/usage"
"$EMU" top "$pid" -d 0 >"$WORK/usage" 2>&1
[ $? -eq 2 ] && ok "top -d 0 refused" || bad "top -d 0" "$WORK/usage"
expect "top -d 0 says why" "$WORK/usage" "-d 0: not a number of seconds"
finish
