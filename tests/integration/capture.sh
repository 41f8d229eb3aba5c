#!/bin/sh
# The capture: ibv_rc_pingpong's two processes (through `emuverbs run`, on
# loopback) each capture their port's traffic (EMUVERBS_CAPTURE, pcapng
# and pcap); tshark decodes every packet as RoCE (InfiniBand) with nothing
# malformed, scapy's independent ICRC equals every packet's (GSO segments
# with their own IPv4 identifications included), and each side's capture
# holds what the other sent. A packet a fault rule dropped is in the
# capture with its note as the pcapng comment. `emuverbs trace -w` starts
# a capture on a running process and stops at its count or at Ctrl-C;
# bad names are one line and change nothing. No root needed: the
# processes write what they send and receive themselves.
. "$(dirname "$0")/lib.sh"
need tshark /usr/bin/python3 ibv_rc_pingpong ibv_ud_pingpong ss
/usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null ||
	{ echo "SKIP: python3-scapy is not installed"; exit 77; }

net="127.202.$(($$ % 250 + 1))"
srv="$net.1"
cli="$net.2"
S="env EMUVERBS_ADDRESS=$srv"
C="env EMUVERBS_ADDRESS=$cli"
RC="ibv_rc_pingpong -d emu0 -g 0"
UD="ibv_ud_pingpong -d emu0 -g 0"
CAP=EMUVERBS_CAPTURE

# decodes NAME FILE: tshark takes every packet of FILE as InfiniBand,
# nothing malformed, no expert error; scapy agrees with every ICRC.
decodes() {
	total=$(tshark -r "$2" 2>/dev/null | wc -l)
	roce=$(tshark -r "$2" -Y 'udp.dstport == 4791 && infiniband' \
		2>/dev/null | wc -l)
	if [ "$total" -gt 0 ] && [ "$total" -eq "$roce" ]; then
		ok "$1: tshark decodes all $total packets as RoCE"
	else
		bad "$1: tshark decodes all packets as RoCE ($roce of $total)"
	fi
	# 8388608 is the expert severity "error"; a bad filter exits non-zero.
	if tshark -r "$2" -Y '_ws.malformed || _ws.expert.severity >= 8388608' \
		>"$WORK/malformed" 2>"$WORK/tshark.err"; then
		reject "$1: nothing malformed" "$WORK/malformed" '.'
	else
		bad "$1: the malformed filter ran" "$WORK/tshark.err"
	fi
	if /usr/bin/python3 "$top_srcdir/tests/integration/wire_check.py" \
		"$2" >"$WORK/icrc" 2>&1; then
		ok "$1: scapy's ICRC equals ours ($(tail -1 "$WORK/icrc"))"
	else
		bad "$1: scapy's ICRC equals ours" "$WORK/icrc"
	fi
}

# ---- captured from the start: EMUVERBS_CAPTURE ---------------------------

next_port
pair "rc_pingpong, both sides capturing" 60 \
	"$S $CAP=$WORK/srv-%p.pcapng $RC -p $PORT -s 100 -n 50" \
	"$C $CAP=$WORK/cli.pcap $RC -p $PORT -s 100 -n 50 127.0.0.1"
# %p is the PID: the server's file is named by it.
spcap=$(ls "$WORK"/srv-*.pcapng 2>/dev/null | head -1)
if [ -n "$spcap" ] && [ -s "$WORK/cli.pcap" ]; then
	ok "a capture file for each process (%p in the name)"
else
	bad "a capture file for each process (%p in the name)"
	ls -la "$WORK" | sed 's/^/    | /'
fi
decodes "server's pcapng" "$spcap"
decodes "client's pcap" "$WORK/cli.pcap"
# Both directions, and each side saw what the other sent: 50 SENDs each
# way and their ACKs.
for who in "$srv" "$cli"; do
	a=$(tshark -r "$spcap" -Y "ip.src == $who" 2>/dev/null | wc -l)
	b=$(tshark -r "$WORK/cli.pcap" -Y "ip.src == $who" 2>/dev/null | wc -l)
	if [ "$a" -eq "$b" ] && [ "$a" -ge 100 ]; then
		ok "both captures hold the $a packets $who sent"
	else
		bad "both captures hold what $who sent (server $a, client $b)"
	fi
done
dirs=$(tshark -r "$spcap" -T fields -e frame.packet_flags_direction \
	2>/dev/null | sort -u | tr '\n' ' ')
if [ "$dirs" = "0x00000001 0x00000002 " ]; then
	ok "pcapng: each packet says inbound or outbound"
else
	bad "pcapng: each packet says inbound or outbound ($dirs)"
fi
ttl=$(tshark -r "$WORK/cli.pcap" -Y "ip.src == $cli" -T fields -e ip.ttl \
	-e ip.flags.df -e ip.dsfield.ecn 2>/dev/null | sort -u)
want=$(printf '%s\t1\t2' "$(cat /proc/sys/net/ipv4/ip_default_ttl)")
if [ "$ttl" = "$want" ]; then
	ok "sent: TTL as the kernel's default, DF, ECT(0)"
else
	bad "sent: TTL as the kernel's default, DF, ECT(0) ($ttl)"
fi

# Messages of several packets leave as GSO sends: segment k has IPv4
# identification k, and its ICRC follows it. The receiver's capture shows
# each segment with the identification its ICRC holds. GSO is the UDP
# wire's: this pair stays on it.
next_port
pair "rc_pingpong 20000 B, segmented" 60 \
	"$S EMUVERBS_WIRE=udp $CAP=$WORK/seg-srv.pcapng $RC -p $PORT -s 20000 -n 20" \
	"$C EMUVERBS_WIRE=udp $CAP=$WORK/seg-cli.pcapng $RC -p $PORT -s 20000 -n 20 127.0.0.1"
decodes "segmented, client" "$WORK/seg-cli.pcapng"
decodes "segmented, server" "$WORK/seg-srv.pcapng"
ids=$(tshark -r "$WORK/seg-srv.pcapng" -Y "ip.src == $cli" -T fields \
	-e ip.id 2>/dev/null | sort -u | wc -l)
if [ "$ids" -ge 4 ]; then
	ok "GSO segments carry identifications 0, 1, 2, ... ($ids seen)"
else
	bad "GSO segments carry identifications 0, 1, 2, ... ($ids seen)"
fi
next_port
pair "ud_pingpong, captured" 60 \
	"$S $CAP=$WORK/ud.pcapng $UD -p $PORT -s 500 -n 20" \
	"$C $UD -p $PORT -s 500 -n 20 127.0.0.1"
decodes "ud_pingpong" "$WORK/ud.pcapng"

# ---- what fault rules did is marked -----------------------------------------

# The receiver drops 2 SENDs on arrival, the sender 1 before sending.
cat >"$WORK/f-srv.conf" <<EOF
[device emu0]
[fault lose]
action = drop
dir = rx
op = send
every = 5
count = 2
EOF
cat >"$WORK/f-cli.conf" <<EOF
[device emu0]
[fault gone]
action = drop
dir = tx
op = send
every = 4
count = 1
EOF
next_port
pair "rc_pingpong under drop rules" 60 \
	"$S EMUVERBS_CONFIG=$WORK/f-srv.conf $CAP=$WORK/f-srv.pcapng
	 $RC -p $PORT -s 100 -n 30" \
	"$C EMUVERBS_CONFIG=$WORK/f-cli.conf $CAP=$WORK/f-cli.pcapng
	 $RC -p $PORT -s 100 -n 30 127.0.0.1"
tshark -r "$WORK/f-srv.pcapng" -Y frame.comment -T fields -e frame.number \
	-e frame.comment >"$WORK/f-srv.notes" 2>/dev/null
tshark -r "$WORK/f-cli.pcapng" -Y frame.comment -T fields -e frame.number \
	-e frame.comment >"$WORK/f-cli.notes" 2>/dev/null
n=$(grep -c 'fault rule lose: dropped on arrival' "$WORK/f-srv.notes")
if [ "$n" -eq 2 ]; then
	ok "the 2 packets the receiver's rule dropped are there, noted"
else
	bad "the 2 packets the receiver's rule dropped are there ($n)" \
		"$WORK/f-srv.notes"
fi
n=$(grep -c 'fault rule gone: dropped before sending' "$WORK/f-cli.notes")
if [ "$n" -eq 1 ]; then
	ok "the packet the sender's rule dropped is there, noted"
else
	bad "the packet the sender's rule dropped is there ($n)" \
		"$WORK/f-cli.notes"
fi
# The one the sender dropped never reached the other side: the
# receiver holds one packet fewer of the sender's than the sender does.
a=$(tshark -r "$WORK/f-cli.pcapng" -Y "ip.src == $cli" 2>/dev/null | wc -l)
b=$(tshark -r "$WORK/f-srv.pcapng" -Y "ip.src == $cli" 2>/dev/null | wc -l)
if [ $((a - 1)) -eq "$b" ]; then
	ok "the dropped packet is only in the sender's capture ($a, $b)"
else
	bad "the dropped packet is only in the sender's capture ($a, $b)"
fi
decodes "under drop rules" "$WORK/f-srv.pcapng"

# ---- started on a running process: emuverbs trace -w ------------------

next_port
$S timeout 120 "$EMU" run $RC -p $PORT -s 64 -n 100000000 \
	>"$WORK/long.server" 2>&1 &
lsrv=$!
wait_listen $PORT || bad "long pingpong: server listens"
$C timeout 120 "$EMU" run $RC -p $PORT -s 64 -n 100000000 127.0.0.1 \
	>"$WORK/long.client" 2>&1 &
lcli=$!
# The client's PID as its control socket knows it.
if pid=$(pid_of "$cli"); then
	ok "emuverbs ps shows the running client ($pid)"
else
	bad "emuverbs ps shows the running client"
fi
mkdir "$WORK/sub"
# A relative name is the caller's: made absolute before it goes.
if (cd "$WORK/sub" && timeout 60 "$EMU" trace "$pid" -w count.pcapng -c 50) \
	>"$WORK/count.out" 2>&1; then
	ok "emuverbs trace -c 50 ends by itself"
else
	bad "emuverbs trace -c 50 ends by itself" "$WORK/count.out"
fi
expect "it says what the file holds" "$WORK/count.out" \
	"capture stopped $WORK/sub/count.pcapng packets 50 of 50"
n=$(tshark -r "$WORK/sub/count.pcapng" -Y infiniband 2>/dev/null | wc -l)
if [ "$n" -eq 50 ]; then
	ok "the file holds 50 RoCE packets"
else
	bad "the file holds 50 RoCE packets ($n)"
fi
# The server captures nothing, so on the shared-memory wire what it sends
# comes without an ICRC: the client's capture makes it, and it must check.
decodes "started on a running process" "$WORK/sub/count.pcapng"
"$EMU" ctl "$pid" capture status >"$WORK/status" 2>&1
expect "no capture runs after it" "$WORK/status" '^capture off$'

# capturing PID: PID's capture runs and has taken a packet.
capturing() {
	"$EMU" ctl "$1" capture status 2>/dev/null |
		grep -Eq '^capture running .* packets [1-9]'
}

# Ctrl-C stops it.
timeout 60 "$EMU" trace "$pid" -w "$WORK/int.pcap" >"$WORK/int.out" 2>&1 &
tr=$!
# Ctrl-C once it said it captures (its handler is in place) and the file
# has packets.
wait_until 60 grep -q "capturing into" "$WORK/int.out" &&
	wait_until 60 capturing "$pid" ||
	bad "emuverbs trace started a capture that took packets" \
		"$WORK/int.out"
kill -INT $tr
if wait $tr; then
	ok "Ctrl-C stops emuverbs trace, status 0"
else
	bad "Ctrl-C stops emuverbs trace, status 0" "$WORK/int.out"
fi
n=$(tshark -r "$WORK/int.pcap" -Y infiniband 2>/dev/null | wc -l)
m=$(sed -n 's/.*capture stopped .* packets \([0-9]*\).*/\1/p' "$WORK/int.out")
if [ "$n" -gt 0 ] && [ "$n" = "$m" ]; then
	ok "after Ctrl-C the file holds what it says ($n packets)"
else
	bad "after Ctrl-C the file holds what it says ($n, said $m)" \
		"$WORK/int.out"
fi

# Bad names: one line naming them, and nothing changes.
if "$EMU" trace "$pid" -w "$WORK/no/such/x.pcap" >"$WORK/bad1" 2>&1; then
	bad "a missing directory is refused" "$WORK/bad1"
else
	expect "a missing directory is refused, named" "$WORK/bad1" \
		"$WORK/no/such/x.pcap: No such file or directory"
fi
if "$EMU" trace "$pid" -w "$WORK/ok.pcap" --events /proc/x.jsonl \
	>"$WORK/bad2" 2>&1; then
	bad "a file the process cannot make is refused" "$WORK/bad2"
else
	expect "a file the process cannot make is refused, in one line" \
		"$WORK/bad2" \
		"^emuverbs trace: $pid \(ibv_rc_pingpong\): /proc/x.jsonl: "
	if [ ! -e "$WORK/ok.pcap" ]; then
		ok "the capture that call started is gone with its file"
	else
		bad "the capture that call started is gone with its file"
	fi
fi
"$EMU" ctl "$pid" capture start rel.pcap >"$WORK/bad3" 2>&1
expect "the control socket takes absolute names only" "$WORK/bad3" \
	"rel.pcap: not an absolute path"
"$EMU" ctl "$pid" capture status >"$WORK/status" 2>&1
expect "still no capture runs" "$WORK/status" '^capture off$'
kill $lcli $lsrv 2>/dev/null
wait $lcli $lsrv 2>/dev/null

# EMUVERBS_CAPTURE naming a file that cannot be made: one line, and the
# program runs as it would.
EMUVERBS_CAPTURE=$WORK/no/such/x.pcap "$EMU" run ibv_devinfo \
	>"$WORK/env.out" 2>&1
expect "a bad EMUVERBS_CAPTURE is one line naming it" "$WORK/env.out" \
	"^emuverbs: EMUVERBS_CAPTURE: $WORK/no/such/x.pcap: No such file"
expect "and the program runs" "$WORK/env.out" "hca_id:.*emu0"
finish
