#!/bin/sh
# The wire as others see it: captures the traffic of pingpongs and perftest
# on loopback, then tshark must decode every packet as InfiniBand (RoCEv2)
# with nothing malformed and no expert error, and scapy's independent ICRC
# must equal ours for every packet. Capturing needs root.
. "$(dirname "$0")/lib.sh"
need tcpdump tshark ss /usr/bin/python3 ibv_rc_pingpong ib_read_lat \
	ib_atomic_lat ib_write_lat
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: capturing on loopback needs root"
	exit 77
fi
/usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null ||
	{ echo "SKIP: python3-scapy is not installed"; exit 77; }

# This test's processes live on a /24 of 127.200.0.0/16 picked by pid, so
# the capture holds their traffic only, whatever else runs on loopback
# (another copy of the suite included).
net="127.200.$(($$ % 250 + 1))"
# Without GSO: on loopback, tcpdump sees a GSO send as the one datagram it
# is before the receiver's kernel segments it. GSO segments on a real
# wire are checked by the interop test's capture (tests/interop/rxe.sh).
# And on UDP: two processes of one host would otherwise meet in shared
# memory, where tcpdump sees nothing (capture.sh checks what a capture of
# the rings shows).
S="env EMUVERBS_ADDRESS=$net.1 EMUVERBS_GSO=0 EMUVERBS_WIRE=udp"
C="env EMUVERBS_ADDRESS=$net.2 EMUVERBS_GSO=0 EMUVERBS_WIRE=udp"
cap="$WORK/roce.pcap"
tcpdump -i lo -U -s 0 -w "$cap" udp port 4791 and net "$net.0/24" \
	>"$WORK/tcpdump.log" 2>&1 &
dump=$!
# tcpdump says "listening on" once its filter is in place.
wait_until 60 grep -q "listening on" "$WORK/tcpdump.log" ||
	bad "tcpdump started" "$WORK/tcpdump.log"
next_port
pair "rc_pingpong 100 B" 60 \
	"$S ibv_rc_pingpong -d emu0 -g 0 -p $PORT -s 100 -n 50" \
	"$C ibv_rc_pingpong -d emu0 -g 0 -p $PORT -s 100 -n 50 127.0.0.1"
next_port
pair "rc_pingpong 9000 B (segmented)" 60 \
	"$S ibv_rc_pingpong -d emu0 -g 0 -p $PORT -s 9000 -n 20" \
	"$C ibv_rc_pingpong -d emu0 -g 0 -p $PORT -s 9000 -n 20 127.0.0.1"
next_port
pair "ud_pingpong" 60 \
	"$S ibv_ud_pingpong -d emu0 -g 0 -p $PORT -s 500 -n 20" \
	"$C ibv_ud_pingpong -d emu0 -g 0 -p $PORT -s 500 -n 20 127.0.0.1"
next_port
pair "uc_pingpong 9000 B" 60 \
	"$S ibv_uc_pingpong -d emu0 -g 0 -p $PORT -s 9000 -n 20" \
	"$C ibv_uc_pingpong -d emu0 -g 0 -p $PORT -s 9000 -n 20 127.0.0.1"
# Segmented WRITEs and READ responses, both atomics.
for cmd in "ib_write_lat -s 9000" "ib_read_lat -s 9000" "ib_atomic_lat" \
	   "ib_atomic_lat -A CMP_AND_SWAP"; do
	next_port
	pair "$cmd" 60 "$S $cmd -d emu0 -x 0 -p $PORT -n 50" \
		"$C $cmd -d emu0 -x 0 -p $PORT -n 50 127.0.0.1"
done
# Stopped once it has written packets (-U: each as it takes it).
wait_until 60 pcap_holds 1 "$cap"
kill "$dump"
wait "$dump" 2>/dev/null

total=$(tshark -r "$cap" -Y 'udp.dstport == 4791' 2>/dev/null | wc -l)
roce=$(tshark -r "$cap" -Y 'infiniband' 2>/dev/null | wc -l)
echo "captured $total RoCEv2 packets, tshark decodes $roce as InfiniBand"
if [ "$total" -gt 0 ] && [ "$total" -eq "$roce" ]; then
	ok "tshark decodes every packet as RoCEv2"
else
	bad "tshark decodes every packet as RoCEv2 ($roce of $total)"
fi
# 8388608 is the expert severity "error"; an invalid filter exits non-zero,
# so this cannot pass by matching nothing.
if tshark -r "$cap" -Y '_ws.malformed || _ws.expert.severity >= 8388608' \
	>"$WORK/malformed" 2>"$WORK/tshark.err"; then
	reject "tshark: no malformed or expert-error packet" "$WORK/malformed" '.'
else
	bad "tshark: the malformed/expert filter ran" "$WORK/tshark.err"
fi
# RC acknowledges what asks for it (AckReq), coalesced, as rxe and NICs do:
# never more ACKs (opcode 0x11) than requests that asked.
acks=$(tshark -r "$cap" -Y 'infiniband.bth.opcode == 17' 2>/dev/null | wc -l)
asked=$(tshark -r "$cap" -Y 'infiniband.bth.a == 1' 2>/dev/null | wc -l)
rcreq=$(tshark -r "$cap" -Y 'infiniband.bth.opcode < 17' 2>/dev/null | wc -l)
echo "RC: $rcreq requests ($asked with AckReq), $acks ACKs"
if [ "$acks" -gt 0 ] && [ "$acks" -le "$asked" ] && [ "$asked" -lt "$rcreq" ]
then
	ok "ACKs only for AckReq ($acks ACKs, $asked asked, $rcreq requests)"
else
	bad "ACKs only for AckReq ($acks ACKs, $asked asked, $rcreq requests)"
fi
if /usr/bin/python3 "$top_srcdir/tests/integration/wire_check.py" "$cap" \
	>"$WORK/icrc" 2>&1; then
	ok "scapy's ICRC equals ours on every packet ($(tail -1 "$WORK/icrc"))"
else
	bad "scapy's ICRC equals ours on every packet" "$WORK/icrc"
fi
grep '^opcodes seen' "$WORK/icrc"
finish
