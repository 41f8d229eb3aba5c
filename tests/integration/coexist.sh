#!/bin/sh
# Coexisting with a loaded kernel rdma_rxe, which holds UDP 0.0.0.0:4791:
# loopback ports move to the fallback port (every process alike, with a
# notice) and a pingpong works; ports that could face a kernel or NIC peer
# refuse to start and say why. In a network namespace of its own, so the
# holder never disturbs the tests running beside it.
. "$(dirname "$0")/lib.sh"
need ip ss tcpdump tshark /usr/bin/python3 ibv_rc_pingpong ibv_ud_pingpong
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: network namespaces need root"
	exit 77
fi
# What is checked is UDP ports and what tcpdump sees on them: the pairs
# stay off the shared-memory wire they would otherwise meet on.
export EMUVERBS_WIRE=udp
N="emuvC$$"
cleanup() {
	[ -n "${holder-}" ] && kill "$holder" 2>/dev/null
	ip netns del "$N" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
if ! { ip netns add "$N" && ip -n "$N" link set lo up; }; then
	echo "SKIP: cannot create a network namespace here"
	exit 77
fi
IN="ip netns exec $N"

# What rdma_rxe does once loaded: a socket on the wildcard address, port
# 4791. It counts what reaches it: nothing of ours may.
$IN /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 4791))
print("holding", flush=True)
n = 0
while True:
    s.recv(65536)
    n += 1
    print("received", n, flush=True)
' >"$WORK/holder" 2>&1 &
holder=$!
wait_until 60 grep -q holding "$WORK/holder" ||
	{ bad "the 4791 holder started" "$WORK/holder"; finish; exit 1; }

# ns_listening: something in the namespace listens on TCP port $PORT.
ns_listening() {
	$IN ss -Hltn "sport = :$PORT" | grep -q .
}

# npair NAME "SERVER" "CLIENT": both through emuverbs run, in the namespace.
npair() {
	_s="$WORK/$(echo "$1" | tr -c 'A-Za-z0-9_\n' _)"
	# shellcheck disable=SC2086
	timeout 60 $IN "$EMU" run $2 >"$_s.server" 2>&1 &
	_sp=$!
	wait_until 60 ns_listening
	# shellcheck disable=SC2086
	timeout 60 $IN "$EMU" run $3 >"$_s.client" 2>&1
	_c=$?
	wait $_sp
	_r=$?
	if [ $_c -eq 0 ] && [ $_r -eq 0 ]; then
		ok "$1"
	else
		bad "$1: server $_r, client $_c" "$_s.server"
		sed 's/^/    c| /' "$_s.client" | head -20
	fi
	LAST="$_s"
}

cap="$WORK/fallback.pcap"
$IN tcpdump -i lo -U -s 0 -w "$cap" udp port 14791 >"$WORK/tcpdump.log" 2>&1 &
dump=$!
# tcpdump says "listening on" once its filter is in place.
wait_until 60 grep -q "listening on" "$WORK/tcpdump.log" ||
	bad "tcpdump started" "$WORK/tcpdump.log"
next_port
npair "rc_pingpong while 0.0.0.0:4791 is held" \
	"ibv_rc_pingpong -g 0 -s 8000 -n 50 -p $PORT" \
	"ibv_rc_pingpong -g 0 -s 8000 -n 50 -p $PORT 127.0.0.1"
expect "a one-line notice names the fallback port and how to decode it" \
	"$LAST.server" \
	'UDP 4791 is held by another RoCE stack.*UDP 14791 instead.*-d udp.port==14791,infiniband'
next_port
npair "ud_pingpong while 0.0.0.0:4791 is held" \
	"ibv_ud_pingpong -g 0 -s 500 -n 50 -p $PORT" \
	"ibv_ud_pingpong -g 0 -s 500 -n 50 -p $PORT 127.0.0.1"
# Stopped once it has written packets (-U: each as it takes it).
wait_until 60 pcap_holds 1 "$cap"
kill "$dump"
wait "$dump" 2>/dev/null
n=$(tshark -r "$cap" -d udp.port==14791,infiniband -Y infiniband 2>/dev/null |
	wc -l)
bad_n=$(tshark -r "$cap" -d udp.port==14791,infiniband -Y '_ws.malformed' \
	2>/dev/null | wc -l)
if [ "$n" -gt 0 ] && [ "$bad_n" -eq 0 ]; then
	ok "the traffic is on UDP 14791 and decodes as RoCEv2 ($n packets)"
else
	bad "the traffic is on UDP 14791 and decodes as RoCEv2 ($n, $bad_n malformed)"
fi
reject "nothing reached the holder of 4791" "$WORK/holder" '^received'

# A port that could meet a kernel or NIC peer cannot move: it says why.
$IN ip link add emuvd0 type veth peer name emuvd1
$IN ip addr add 198.18.9.1/24 dev emuvd0
$IN ip link set emuvd0 up
$IN ip link set emuvd1 up
EMUVERBS_NETDEV=emuvd0 $IN "$EMU" devices >"$WORK/nd" 2>&1
expect "a netdev-bound port refuses to start and says why" "$WORK/nd" \
	'port 1: cannot bind to netdev: UDP 4791 is held by another RoCE stack.*cannot start'
EMUVERBS_ADDRESS=198.18.9.1 $IN "$EMU" devices >"$WORK/ad" 2>&1
expect "a port at a non-loopback address refuses too" "$WORK/ad" \
	'cannot bind address: UDP 4791 is held by another RoCE stack'
# Unless told to meet emuverbs peers elsewhere.
EMUVERBS_NETDEV=emuvd0 EMUVERBS_UDP_PORT=4800 $IN "$EMU" devices \
	>"$WORK/nd2" 2>&1
expect "udp_port moves a netdev-bound port off 4791" "$WORK/nd2" \
	'GID\[ 0\] ::ffff:198\.18\.9\.1 +RoCEv2'

# The holder gone, loopback ports are back on 4791.
kill "$holder"
wait "$holder" 2>/dev/null
holder=
next_port
npair "rc_pingpong on 4791 again" "ibv_rc_pingpong -g 0 -n 20 -p $PORT" \
	"ibv_rc_pingpong -g 0 -n 20 -p $PORT 127.0.0.1"
reject "no notice once 4791 is free" "$LAST.server" 'held by another'
finish
