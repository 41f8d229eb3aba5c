#!/bin/sh
# Two hosts in network namespaces this test creates, joined by a veth:
# netdev-bound ports, GIDs from the interface's IPv4 and IPv6 addresses, a
# port MTU that fits it, RC/UD/SRQ over IPv6 (global and link-local), and
# RC recovering from real loss (tc netem, or a token bucket without it).
. "$(dirname "$0")/lib.sh"
need ip tc ibv_rc_pingpong ibv_ud_pingpong ibv_srq_pingpong ib_write_bw \
	ib_read_lat ss
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: network namespaces need root"
	exit 77
fi
A="emuvA$$"
B="emuvB$$"
cleanup() {
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
# Addresses from 198.18.0.0/15 (benchmarking), inside these namespaces only.
if ! { ip netns add "$A" && ip netns add "$B" &&
	ip link add va netns "$A" type veth peer name vb netns "$B" &&
	ip -n "$A" addr add 198.18.0.1/24 dev va &&
	ip -n "$B" addr add 198.18.0.2/24 dev vb &&
	ip -n "$A" link set va up && ip -n "$B" link set vb up &&
	ip -n "$A" link set lo up && ip -n "$B" link set lo up; }; then
	echo "SKIP: cannot create network namespaces here"
	exit 77
fi
printf '[device emu0]\n[port emu0 1]\nnetdev = va\n' >"$WORK/a.conf"
printf '[device emu0]\n[port emu0 1]\nnetdev = vb\n' >"$WORK/b.conf"
SA="ip netns exec $A env EMUVERBS_CONFIG=$WORK/a.conf"
SB="ip netns exec $B env EMUVERBS_CONFIG=$WORK/b.conf"

$SA "$EMU" devices >"$WORK/dev" 2>&1
expect "GID 0 is the veth's address" "$WORK/dev" 'GID\[ 0\] ::ffff:198\.18\.0\.1 +RoCEv2'
expect "port MTU fits a 1500-byte veth" "$WORK/dev" 'MTU 1024,'

# a_listening: something in namespace A listens on TCP port $PORT.
a_listening() {
	ip netns exec "$A" ss -Hltn "sport = :$PORT" | grep -q .
}

# pair runs `emuverbs run` in the default namespace; here each side runs in
# its own, so both commands name the namespace themselves.
npair() {
	_n=$1
	_s="$WORK/$(echo "$_n" | tr -c 'A-Za-z0-9_\n' _)"
	# shellcheck disable=SC2086
	timeout 90 $SA "$EMU" run $2 >"$_s.server" 2>&1 &
	_sp=$!
	wait_until 60 a_listening
	# shellcheck disable=SC2086
	timeout 90 $SB "$EMU" run $3 >"$_s.client" 2>&1
	_c=$?
	wait $_sp
	_r=$?
	if [ $_c -eq 0 ] && [ $_r -eq 0 ]; then
		ok "$_n"
	else
		bad "$_n: server $_r, client $_c" "$_s.server"
		sed 's/^/    c| /' "$_s.client" | head -20
	fi
}

next_port
npair "rc_pingpong across namespaces" "ibv_rc_pingpong -g 0 -s 8000 -n 100 -p $PORT" \
	"ibv_rc_pingpong -g 0 -s 8000 -n 100 -p $PORT 198.18.0.1"
next_port
npair "ud_pingpong across namespaces" "ibv_ud_pingpong -g 0 -s 1000 -n 100 -p $PORT" \
	"ibv_ud_pingpong -g 0 -s 1000 -n 100 -p $PORT 198.18.0.1"
# A path MTU the link cannot carry is refused at modify time.
next_port
timeout 30 $SA "$EMU" run ibv_rc_pingpong -g 0 -m 4096 -p "$PORT" \
	>"$WORK/m.server" 2>&1 &
sp=$!
wait_until 60 a_listening
timeout 30 $SB "$EMU" run ibv_rc_pingpong -g 0 -m 4096 -p "$PORT" 198.18.0.1 \
	>"$WORK/m.client" 2>&1
kill $sp 2>/dev/null
wait $sp 2>/dev/null
cat "$WORK/m.server" "$WORK/m.client" >"$WORK/m.both"
expect "path MTU 4096 over a 1500-byte link is refused" "$WORK/m.both" \
	'Failed to modify QP to RTR'

# RoCEv2 over IPv6: a documentation-prefix address on each end besides the
# link-local ones; the port's GID table follows both (rtnetlink), and RC,
# UD (whose GRH is the IPv6 header) and SRQ run over each kind.
ip -n "$A" addr add 2001:db8:77::1/64 dev va nodad
ip -n "$B" addr add 2001:db8:77::2/64 dev vb nodad
# The link-local addresses came with the links, tentative until duplicate
# address detection ends (a second or two): the kernel refuses to send
# from a tentative address (EINVAL), as it would for any program, and the
# port's GID table, like the kernel's, lists them from the start.
settled() {
	[ -z "$(ip -n "$A" -6 addr show tentative
		ip -n "$B" -6 addr show tentative)" ]
}
wait_until 60 settled
# gidx FILE PATTERN: the index of the RoCEv2 GID whose address matches.
gidx() {
	sed -n "s/^ *GID\[ *\([0-9]*\)\] \($2\) *RoCEv2.*/\1/p" "$1" | head -1
}
# The port's table lists both, once rtnetlink has told it.
gids6() {
	$SA "$EMU" devices >"$WORK/dev6" 2>&1
	[ -n "$(gidx "$WORK/dev6" '2001:db8:77::1')" ] &&
		[ -n "$(gidx "$WORK/dev6" 'fe80::[0-9a-f:]*')" ]
}
wait_until 60 gids6
g6=$(gidx "$WORK/dev6" '2001:db8:77::1')
ll=$(gidx "$WORK/dev6" 'fe80::[0-9a-f:]*')
if [ -n "$g6" ] && [ -n "$ll" ]; then
	ok "the port's GIDs follow the IPv6 addresses ($g6 global, $ll link-local)"
	next_port
	npair "rc_pingpong over IPv6" "ibv_rc_pingpong -g $g6 -s 8000 -n 100 -p $PORT" \
		"ibv_rc_pingpong -g $g6 -s 8000 -n 100 -p $PORT 198.18.0.1"
	next_port
	npair "ud_pingpong over IPv6 (GRH)" "ibv_ud_pingpong -g $g6 -s 1000 -n 100 -p $PORT" \
		"ibv_ud_pingpong -g $g6 -s 1000 -n 100 -p $PORT 198.18.0.1"
	next_port
	npair "srq_pingpong over IPv6" "ibv_srq_pingpong -g $g6 -s 4000 -n 100 -q 4 -p $PORT" \
		"ibv_srq_pingpong -g $g6 -s 4000 -n 100 -q 4 -p $PORT 198.18.0.1"
	next_port
	npair "rc_pingpong over link-local IPv6" "ibv_rc_pingpong -g $ll -s 8000 -n 100 -p $PORT" \
		"ibv_rc_pingpong -g $ll -s 8000 -n 100 -p $PORT 198.18.0.1"
	next_port
	npair "ud_pingpong over link-local IPv6" "ibv_ud_pingpong -g $ll -s 1000 -n 100 -p $PORT" \
		"ibv_ud_pingpong -g $ll -s 1000 -n 100 -p $PORT 198.18.0.1"
else
	bad "the port's GIDs follow the IPv6 addresses" "$WORK/dev6"
fi

# Real loss on the link. netem (random loss, delay, reordering) is used
# where the kernel has it; otherwise a token bucket with a small burst
# drops whatever a segmented message sends beyond it. Either way the
# qdiscs' drop counters must show that packets really were lost.
lossy() {
	ip netns exec "$1" tc qdisc add dev "$2" root netem delay 1ms 1ms \
		loss 3% reorder 10% 50% 2>/dev/null && return 0
	ip netns exec "$1" tc qdisc add dev "$2" root tbf rate 100mbit \
		burst 10000 limit 20000
}
drops() {
	ip netns exec "$1" tc -s qdisc show dev "$2" |
		sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -1
}
if lossy "$A" va && lossy "$B" vb; then
	how=$(ip netns exec "$A" tc qdisc show dev va | awk '{print $2}')
	next_port
	npair "rc_pingpong through a lossy link ($how)" \
		"ibv_rc_pingpong -g 0 -s 16000 -n 200 -p $PORT" \
		"ibv_rc_pingpong -g 0 -s 16000 -n 200 -p $PORT 198.18.0.1"
	next_port
	npair "ib_write_bw through a lossy link ($how)" \
		"ib_write_bw -d emu0 -x 0 -n 200 -p $PORT" \
		"ib_write_bw -d emu0 -x 0 -n 200 -p $PORT 198.18.0.1"
	next_port
	npair "ib_read_bw through a lossy link ($how)" \
		"ib_read_bw -d emu0 -x 0 -n 200 -p $PORT" \
		"ib_read_bw -d emu0 -x 0 -n 200 -p $PORT 198.18.0.1"
	lost=$(( $(drops "$A" va) + $(drops "$B" vb) ))
	echo "packets the link dropped: $lost"
	if [ "$lost" -gt 0 ]; then
		ok "the link really lost packets ($lost), RC recovered"
	else
		bad "the link really lost packets"
	fi
else
	echo "SKIP: no qdisc to make a lossy link (loss part not run)"
fi
finish
