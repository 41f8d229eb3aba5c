# Shared helpers of the integration tests: where the build is, how to run a
# program through `emuverbs run`, and pass/fail accounting with a summary.
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
EMU="$top_builddir/emuverbs"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/emuverbs-test.XXXXXX")
trap 'busy_stop; rm -rf "$WORK"' EXIT
# Tests must not pick up the developer's own configuration.
unset EMUVERBS_CONFIG EMUVERBS_SPEED EMUVERBS_WIDTH EMUVERBS_MTU \
	EMUVERBS_ADDRESS EMUVERBS_NETDEV EMUVERBS_GID_TBL_LEN \
	EMUVERBS_LINK_LAYER EMUVERBS_LATENCY_US EMUVERBS_PORT_STATE EMUVERBS_WIRE
# The suite runs on the default wire (shared memory between the processes
# of one host); scripts/test.sh runs some tests again with
# EMUVERBS_TEST_WIRE=udp. A test that needs packets on a socket says
# EMUVERBS_WIRE=udp on its commands whatever this is.
[ -z "${EMUVERBS_TEST_WIRE-}" ] || export EMUVERBS_WIRE="$EMUVERBS_TEST_WIRE"
export XDG_CONFIG_HOME="$WORK/xdg"
# Control sockets of this script's programs in a directory of its own:
# `emuverbs port all` must never reach another test's programs.
export EMUVERBS_RUNTIME_DIR="$WORK/run"
# One job for the script, the programs it runs and the commands that drive
# them, as a CI script names its own (doc/control.md).
export EMUVERBS_JOB="test-$$"
unset EMUVERBS_NO_CONTROL
passed=0
failed=0

# busy_start N: N loops that keep a CPU each busy at normal priority, as
# other jobs of a shared machine do, until busy_stop (or the script's end;
# each stops by itself after 15 minutes in any case).
_busy=""
busy_start() {
	_b=0
	while [ "$_b" -lt "$1" ]; do
		timeout 900 sh -c 'while :; do :; done' &
		_busy="$_busy $!"
		_b=$((_b + 1))
	done
}

busy_stop() {
	# shellcheck disable=SC2086
	[ -z "$_busy" ] || kill $_busy 2>/dev/null
	_busy=""
}

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

# A TCP port for a program's out-of-band exchange, different per call. The
# scripts of one `make check` start together with nearby pids, so each gets
# a block of 32 ports of its own rather than a start point that a
# neighbour's run of ports could reach; in the block, a port something
# already listens on is passed over. The blocks stay below the kernel's
# ephemeral range (32768 up), where a client connection's local port
# could take the port a server is about to listen on.
_port=$((10000 + ($$ % 700) * 32))
_port_end=$((_port + 32))
next_port() {
	while :; do
		_port=$((_port + 1))
		if [ "$_port" -ge "$_port_end" ]; then
			echo "lib.sh: out of TCP ports in this script's block" >&2
			exit 99
		fi
		ss -Hltn "sport = :$_port" 2>/dev/null | grep -q . || break
	done
	PORT=$_port
}

# How much longer than on a quiet machine a wait may last: the factor
# CK_TIMEOUT_MULTIPLIER gives Check's timeouts (a sanitized build, a
# loaded machine), rounded up, at least 1.
_slack=$(awk -v f="${CK_TIMEOUT_MULTIPLIER:-1}" 'BEGIN {
	f += 0; n = int(f); if (n < f) n++; print n < 1 ? 1 : n }')

# slack SECONDS: SECONDS scaled by that factor, for a bound such as a
# watchdog's.
slack() {
	echo $(($1 * _slack))
}

# wait_until SECONDS COMMAND...: runs COMMAND every 0.1 s until it
# succeeds (status 0), or gives up (status 1) once SECONDS x the factor
# have passed. What a test waits for is a condition, never a time: the
# wait ends as soon as the condition holds, so its bound is generous, only
# how long a broken run takes to say so.
wait_until() {
	_wu_end=$(($(date +%s) + $(slack "$1")))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$_wu_end" ] || return 1
		sleep 0.1
	done
}

# listening PORT: something listens on TCP port PORT.
listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# pcap_holds N FILE: the pcap FILE holds N packets or more (a tcpdump -U
# still running writes each whole as it takes it).
pcap_holds() {
	[ "$(tcpdump -nqr "$2" 2>/dev/null | wc -l)" -ge "$1" ]
}

# sockets N: N processes have their control sockets (PID.sock) in
# $EMUVERBS_RUNTIME_DIR.
sockets() {
	_n=$1
	set -- "$EMUVERBS_RUNTIME_DIR"/*.sock
	[ -e "$1" ] && [ $# -ge "$_n" ]
}

# qp_sending PID: an RC QP of PID is in RTS and has sent packets, as
# `emuverbs stats` shows it (the output stays in $WORK/sending).
qp_sending() {
	"$EMU" stats "$1" >"$WORK/sending" 2>&1 &&
		grep -q '^qp [0-9]* port [^ ]* type RC state RTS ' \
			"$WORK/sending" &&
		grep -Eq '^  sent_pkts +[1-9]' "$WORK/sending"
}

# pid_of ADDRESS: the PID of the process whose port has ADDRESS, as
# `emuverbs ps` lists it (once it does).
pid_of() {
	wait_until 60 listed "$1" && echo "$_pid"
}

listed() {
	_pid=$("$EMU" ps | awk -v a="$1" '{
		for (i = 2; i <= NF; i++) if ($i == a) print $1 }')
	[ -n "$_pid" ]
}

# Wait until something listens on TCP port $1.
wait_listen() {
	wait_until 60 listening "$1"
}

# _two NAME SECONDS "WAIT COMMAND" "SERVER ENV" KILL "SERVER COMMAND"
# "CLIENT COMMAND": what pair and cm share. Each runs under a timeout of
# SECONDS x the factor of slack, which only a hung run reaches. The
# server runs through
# `emuverbs run` (after env SERVER ENV), the client once WAIT COMMAND says
# the server listens; both must exit 0, unless KILL is not empty: then the
# server is stopped once the client is done. Outputs stay in
# $WORK/NAME.{server,client}.
_two() {
	_name=$1
	_secs=$(slack "$2")
	_s="$WORK/$(echo "$_name" | tr -c 'A-Za-z0-9_\n' _)"
	# shellcheck disable=SC2086
	env $4 timeout "$_secs" "$EMU" run $6 >"$_s.server" 2>&1 &
	_spid=$!
	if ! $3; then
		kill "$_spid" 2>/dev/null
		wait "$_spid" 2>/dev/null
		bad "$_name: server never listened" "$_s.server"
		return 1
	fi
	# shellcheck disable=SC2086
	timeout "$_secs" "$EMU" run $7 >"$_s.client" 2>&1
	_crc=$?
	if [ -n "$5" ]; then
		kill "$_spid" 2>/dev/null
		wait "$_spid" 2>/dev/null
		_src=0
	else
		wait "$_spid"
		_src=$?
	fi
	if [ "$_crc" -eq 0 ] && [ "$_src" -eq 0 ]; then
		ok "$_name"
		return 0
	fi
	bad "$_name: server exit $_src, client exit $_crc" "$_s.server"
	sed 's/^/    c| /' "$_s.client" | head -20
	return 1
}

# pair NAME SECONDS "SERVER COMMAND" "CLIENT COMMAND": runs an RDMA server
# and its client as two processes through `emuverbs run`; both must exit 0.
# $PORT is the TCP port both use; outputs stay in $WORK/NAME.{server,client}.
pair() {
	_two "$1" "$2" "wait_listen $PORT" "" "" "$3" "$4"
}

# The rdma_cm port spaces, as wait_cm and cm take them.
TCP=0106
UDP=0111
IB=013f

# cm NAME SECONDS PS PORT "SERVER COMMAND" "CLIENT COMMAND": an rdma_cm
# server and its client; both must exit 0. The client starts once the
# server listens on (PS, PORT). Outputs stay in $WORK/NAME.{server,client}.
# CM_SERVER_ENV: VAR=value words for the server only; CM_KILL_SERVER: stop
# the server once the client is done.
cm() {
	_two "$1" "$2" "wait_cm $3 $4" "${CM_SERVER_ENV-}" \
		"${CM_KILL_SERVER-}" "$5" "$6"
}

# Wait until an rdma_cm listener of ours holds port space $1 (hex, as 0106
# for RDMA_PS_TCP) and port $2 on a wildcard or loopback address: its
# loopback rendezvous socket, among our user's, listens (flag __SO_ACCEPTCON in
# /proc/net/unix).
wait_cm() {
	wait_until 60 cm_listening "$1" "$2"
}

cm_listening() {
	_cmn="@emuverbs-rdma-cm/$(id -u)/$1/$2"
	awk -v n="$_cmn" '$4 == "00010000" && $8 == n { f = 1 }
		END { exit !f }' /proc/net/unix 2>/dev/null
}
