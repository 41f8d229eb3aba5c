#!/bin/sh
# Debian's unmodified rdma_cm programs (rdmacm-utils, perftest's -R,
# pyverbs' cmid) through `emuverbs run`, two processes each: they load our
# librdmacm.so.1, not Debian's, connect over the CM protocol on QP1 by
# 127.0.0.1 or by the server port's own address, move data and
# disconnect. Connecting where nothing listens is rejected; what is not
# implemented (multicast) fails cleanly.
. "$(dirname "$0")/lib.sh"
need rping

ours="$top_builddir/.libs/librdmacm.so.1"
[ -f "$ours" ] || { bad "no $ours (build first)"; finish; exit 1; }

# Which librdmacm and libibverbs the dynamic loader initialises for rping.
next_port
LD_DEBUG=libs timeout 20 "$EMU" run rping -c -C 1 -a 127.0.0.1 -p $PORT \
	>"$WORK/ld.out" 2>&1
grep 'calling init: .*/librdmacm\.so' "$WORK/ld.out" |
	sed 's/.*calling init: //' | sort -u >"$WORK/ld.rdmacm"
grep 'calling init: .*/libibverbs\.so' "$WORK/ld.out" |
	sed 's/.*calling init: //' | sort -u >"$WORK/ld.verbs"
if [ "$(cat "$WORK/ld.rdmacm")" = "$ours" ]; then
	ok "rping loads our librdmacm.so.1 and no other"
else
	bad "rping loads our librdmacm.so.1 and no other" "$WORK/ld.rdmacm"
fi
if [ "$(cat "$WORK/ld.verbs")" = "$top_builddir/.libs/libibverbs.so.1" ]; then
	ok "rping loads our libibverbs.so.1 and no other"
else
	bad "rping loads our libibverbs.so.1 and no other" "$WORK/ld.verbs"
fi

# rping: sizes up to its largest, 100 verified round trips each.
for size in 64 4096 65535; do
	next_port
	if cm "rping -S $size -C 100" 60 $TCP $PORT \
		"rping -s -v -V -S $size -C 100 -p $PORT" \
		"rping -c -v -V -S $size -C 100 -a 127.0.0.1 -p $PORT"; then
		n=$(grep -c '^ping data: rdma-ping-' "$WORK/rping__S_$size"*client)
		[ "$n" -eq 100 ] && ok "rping -S $size: 100 pings" ||
			bad "rping -S $size: $n pings, not 100"
	fi
done

# The server port's own address (a fixed one, so the client knows it).
next_port
CM_SERVER_ENV=EMUVERBS_ADDRESS=127.1.7.77 cm "rping -a <server's address>" \
	40 $TCP $PORT "rping -s -v -C 10 -p $PORT" \
	"rping -c -v -C 10 -a 127.1.7.77 -p $PORT"

next_port
cm "ucmatose -c 4" 60 $TCP $PORT "ucmatose -c 4 -C 20 -p $PORT" \
	"ucmatose -s 127.0.0.1 -c 4 -C 20 -p $PORT"

# udaddy has no port option (its -p is the port space): rping's 7174, in
# the UDP port space, which no other test uses.
cm "udaddy" 60 $UDP 7174 "udaddy" "udaddy -s 127.0.0.1"

next_port
cm "rdma_server/rdma_client" 40 $TCP $PORT "rdma_server -p $PORT" \
	"rdma_client -s 127.0.0.1 -p $PORT"

next_port
cm "rdma_xserver/rdma_xclient RC" 40 $TCP $PORT "rdma_xserver -c r -p $PORT" \
	"rdma_xclient -s 127.0.0.1 -c r -p $PORT"

next_port
cm "rdma_xserver/rdma_xclient XRC" 40 $IB $PORT "rdma_xserver -c x -p $PORT" \
	"rdma_xclient -s 127.0.0.1 -c x -p $PORT"

# cmtime's server never exits by itself: it is stopped after the client.
next_port
if CM_KILL_SERVER=1 cm "cmtime -c 50" 60 $TCP $PORT \
	"cmtime -b 127.0.0.1 -c 50 -p $PORT" \
	"cmtime -s 127.0.0.1 -c 50 -p $PORT"; then
	expect "cmtime: connect and disconnect times" "$WORK/cmtime__c_50.client" \
		'^disconnect *:'
fi

# perftest's rdma_cm mode.
for t in ib_send_lat ib_write_lat ib_read_lat ib_send_bw ib_write_bw \
	ib_read_bw; do
	command -v $t >/dev/null 2>&1 || { echo "note: no $t"; continue; }
	next_port
	cm "$t -R" 60 $TCP $PORT "$t -R -d emu0 -n 200 -p $PORT" \
		"$t -R -d emu0 -n 200 -p $PORT 127.0.0.1" &&
		expect "$t -R: a result line" "$WORK/${t}__R.client" \
			'^ *[0-9]+ +[0-9]+ +[0-9.]+'
done

# A REQ nobody answers: UNREACHABLE (-ETIMEDOUT) once the CM's resends
# are spent (shortened here: one resend, 17 ms plus a round trip each).
next_port
EMUVERBS_CM_RETRIES=1 EMUVERBS_CM_TIMEOUT=12 timeout 20 "$EMU" run \
	rping -c -v -C 1 -a 127.1.7.91 -p $PORT >"$WORK/unreach" 2>&1
expect "rping to an address nobody has: UNREACHABLE, error -110" \
	"$WORK/unreach" 'RDMA_CM_EVENT_UNREACHABLE, error -110'

# A peer that dies (SIGKILL: none of its code runs) is seen as a
# disconnect, as a kernel CM that closes a dead process's ids makes it.
next_port
timeout "$(slack 30)" "$EMU" run rping -s -v -p $PORT \
	>"$WORK/die.server" 2>&1 &
spid=$!
if wait_cm $TCP $PORT; then
	timeout "$(slack 20)" "$EMU" run rping -c -v -C 100000000 \
		-a 127.0.0.1 -p $PORT >"$WORK/die.client" 2>&1 &
	cpid=$!
	wait_until 60 grep -q '^ping data: rdma-ping-10:' "$WORK/die.client"
	pkill -KILL -P "$spid" 2>/dev/null
	kill -KILL "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	t0=$(date +%s)
	wait "$cpid"
	crc=$?
	t=$(($(date +%s) - t0))
	# How soon is the machine's business: a figure. A client that
	# never hears of it is stopped by its timeout (status 124).
	echo "the rping client ended $t s after its server's SIGKILL"
	if [ "$crc" -ne 0 ]; then
		bad "rping client after its server's SIGKILL: exit $crc" \
			"$WORK/die.client"
	else
		expect "rping client after its server's SIGKILL: DISCONNECTED" \
			"$WORK/die.client" 'DISCONNECT EVENT'
	fi
else
	bad "rping -s for the SIGKILL test never listened" "$WORK/die.server"
	kill "$spid" 2>/dev/null
fi

# Nobody listens: the CM rejects the REQ (reason 8, invalid service ID),
# as Linux does on an unused port.
next_port
timeout 20 "$EMU" run rping -c -v -C 1 -a 127.0.0.1 -p $PORT \
	>"$WORK/nolisten" 2>&1
expect "rping to a port nobody listens on: REJECTED, error 8" \
	"$WORK/nolisten" 'RDMA_CM_EVENT_REJECTED, error 8'

# fails NAME REGEX PROGRAM ARGS...: PROGRAM stops by itself within 20 s with
# a nonzero exit status that is no signal's, saying REGEX. 124 is timeout's
# own status; 129 ... 192 are 128 plus a signal number (SIGSEGV, SIGABRT).
fails() {
	_n=$1
	_re=$2
	shift 2
	if ! command -v "$1" >/dev/null 2>&1; then
		echo "note: $1 is not installed; not checked"
		return 0
	fi
	timeout 20 "$EMU" run "$@" >"$WORK/out" 2>&1
	_rc=$?
	if [ "$_rc" -eq 0 ]; then
		bad "$_n: exit status 0" "$WORK/out"
	elif [ "$_rc" -eq 124 ]; then
		bad "$_n: still running after 20 s" "$WORK/out"
	elif [ "$_rc" -gt 128 ] && [ "$_rc" -le 192 ]; then
		bad "$_n: killed by signal $((_rc - 128))" "$WORK/out"
	else
		expect "$_n: fails cleanly (exit $_rc)" "$WORK/out" "$_re"
	fi
}

# Multicast is not implemented: mckey's join is refused.
fails "mckey" 'Operation not supported' mckey -m 239.1.1.1 -b 127.0.0.1
# The rsocket programs have their own test: rsocket.sh.

# pyverbs' cmid: an event channel and an id on it.
if /usr/bin/python3 -c 'import pyverbs.cmid' 2>/dev/null; then
	timeout 20 "$EMU" run /usr/bin/python3 -c '
from pyverbs.cmid import CMEventChannel, CMID
import pyverbs.cm_enums as ce
ch = CMEventChannel()
cid = CMID(creator=ch, port_space=ce.RDMA_PS_TCP)
print("created")
' >"$WORK/out" 2>&1
	expect "pyverbs: CMEventChannel and CMID" "$WORK/out" '^created$'
else
	echo "note: pyverbs.cmid is not importable; not checked"
fi
finish
