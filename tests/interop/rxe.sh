#!/bin/sh
# Interop with Linux's kernel Soft-RoCE: Debian's kernel with rdma_rxe boots
# under QEMU (TCG) on a tap in a namespace of this test's own; the ibverbs
# pingpongs run between it and emuverbs both ways, over IPv4 and IPv6 GIDs,
# and the capture (tshark, an ICRC of our own) and rxe's counters are checked.
. "$(dirname "$0")/../integration/lib.sh"
need ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong
IV_NAME=rxe
. "$(dirname "$0")/harness.sh"

# The guest on its own, so that a failing cell below is not the guest's.
if gx 60 "ibv_rc_pingpong -d rxe0 -g $ggid4 -e -n 20 -p 17999 \
		>/tmp/self.out 2>&1 & sleep 1
	ibv_rc_pingpong -d rxe0 -g $ggid4 -e -n 20 -p 17999 127.0.0.1 &&
	wait \$! && cat /tmp/self.out" >"$WORK/self" 2>&1 &&
	[ "$(grep -c 'iters in' "$WORK/self")" -eq 2 ]; then
	ok "rxe0 talks to itself (rc_pingpong in the guest)"
else
	bad "rxe0 talks to itself (rc_pingpong in the guest)" "$WORK/self"
fi

# guest_stats FILE: rxe0's port counters and what is under it, one
# "name value" a line: the guest's UDP (what reached rxe's socket and
# what UDP refused), eth0's receive drops, and the tap's transmit drops
# (its queue overflows when the guest falls behind).
guest_stats() {
	gx 30 'rdma statistic show link rxe0/1 |
			awk "{ for (i = 3; i < NF; i += 2) print \$i, \$(i + 1) }"
		awk "/^Udp:/ { if (!h) { split(\$0, n); h = 1; next }
			for (i = 2; i <= NF; i++) print \"Udp\" n[i], \$i }" \
			/proc/net/snmp
		grep "^Udp6" /proc/net/snmp6
		for c in rx_dropped rx_errors; do
			echo "eth0_$c $(cat /sys/class/net/eth0/statistics/$c)"
		done' >"$1"
	echo "tap_tx_dropped $(ip netns exec "$NS" \
		cat "/sys/class/net/$TAP/statistics/tx_dropped")" >>"$1"
}
guest_stats "$WORK/stats.before"
echo "before $(now) - -" >"$WORK/cells"
# The kernel log from here on is the matrix's.
gx 30 'dmesg -c' >/dev/null

# The matrix. The guest side sleeps on completion events (-e): a spinning
# poll loop in a TCG vCPU takes the CPU rxe's own work needs, about three
# times the round trip on two cores; the emuverbs side polls, as the
# programs do by default. RC, UC and SRQ run at path MTU 1024, so 4096 B
# is 4 packets and 16384 B is 16. UD carries one packet per message: 1 B
# and the largest message a 4096-byte MTU allows, 4096 B.
T=15	# seconds a program may take; a cell takes 1-3 s when it works
port=18000
# cell PROG SIZE FAMILY ROLE: one pingpong; ROLE is the emuverbs side's.
# Once one side is done the other gets a few seconds more, then is ended:
# when a cell fails, it fails in about T seconds rather than two T.
cell() {
	_p=$1 _s=$2 _f=$3 _r=$4
	port=$((port + 1))
	case $_s in
	1) _n=100 ;;
	4096) _n=50 ;;
	*) _n=25 ;;
	esac
	_args="-s $_s -n $_n -p $port -c"
	[ "$_p" = ud ] || _args="$_args -m 1024"
	if [ "$_f" = IPv4 ]; then _hg=$hgid4 _gg=$ggid4; else _hg=$hgid6 _gg=$ggid6; fi
	_host="ibv_${_p}_pingpong -d emu0 -g $_hg $_args"
	_guest="ibv_${_p}_pingpong -d rxe0 -g $_gg -e $_args"
	_name="${_p}_pingpong $_s B $_f, emuverbs $_r"
	_o="$WORK/cell$port"
	_t0=$(now)
	if [ "$_r" = client ]; then
		# busybox timeout execs the program under its own pid.
		gx 30 "setsid sh -c 'timeout $T $_guest & echo \$! >/tmp/srv.pid
				wait \$!; echo exit \$?' >/tmp/srv.out 2>&1 </dev/null &
			i=0
			until netstat -ltn | grep -q ':$port '; do
				i=\$((i + 1)); [ \$i -gt 100 ] && exit 1; sleep 0.05
			done" >/dev/null
		# shellcheck disable=SC2086
		timeout $T $EMU_NS "$EMU" run $_host "$GUEST_IP" >"$_o.emu" 2>&1
		echo "exit $?" >>"$_o.emu"
		gx 30 "i=0
			until grep -q '^exit ' /tmp/srv.out; do
				i=\$((i + 1))
				[ \$i -eq 50 ] && kill \$(cat /tmp/srv.pid)
				sleep 0.1
			done
			cat /tmp/srv.out" >"$_o.rxe"
	else
		# shellcheck disable=SC2086
		timeout $T $EMU_NS "$EMU" run $_host >"$_o.emu" 2>&1 &
		_spid=$!
		servers="$servers $_spid"
		i=0
		until ip netns exec "$NS" ss -Hltn "sport = :$port" | grep -q .; do
			i=$((i + 1))
			[ $i -gt 100 ] && break
			sleep 0.05
		done
		gx $((T + 10)) "timeout $T $_guest $HOST_IP; echo exit \$?" \
			>"$_o.rxe"
		i=0
		while kill -0 $_spid 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill $_spid 2>/dev/null
		wait $_spid
		echo "exit $?" >>"$_o.emu"
		servers=$(echo "$servers" | sed "s/ $_spid\$//")
	fi
	_secs=$(echo "$_t0 $(now)" | awk '{ printf "%.1f", $2 - $1 }')
	_ue=$(sed -n 's/.* iters in .* = \([0-9.]*\) usec\/iter.*/\1/p' "$_o.emu")
	_ur=$(sed -n 's/.* iters in .* = \([0-9.]*\) usec\/iter.*/\1/p' "$_o.rxe")
	if grep -qx 'exit 0' "$_o.emu" && grep -qx 'exit 0' "$_o.rxe" &&
		[ -n "$_ue" ] && [ -n "$_ur" ] &&
		! grep -qi 'invalid data\|not as expected' "$_o.emu" "$_o.rxe"; then
		ok "$_name: $_n iters, emuverbs $_ue us/iter, rxe $_ur us/iter ($_secs s)"
		_ok=passed
	else
		_ok=failed
		bad "$_name ($_n iters, $_secs s)"
		sed 's/^/    emu| /' "$_o.emu" | tail -8
		sed 's/^/    rxe| /' "$_o.rxe" | tail -8
	fi
	echo "$_p $_s $_f $_r ${_ue:--} ${_ur:--} $_secs" >>"$WORK/figures"
	# The counters after each cell, so that a packet rxe did not take
	# can be put down to a cell (see "per cell" below).
	guest_stats "$WORK/stats.$port"
	echo "$port $(now) ${_p}_pingpong/$_s/$_f/emuverbs-$_r $_ok" >>"$WORK/cells"
}

for fam in IPv4 IPv6; do
	for role in client server; do
		for prog in rc uc srq; do
			for size in 1 4096 16384; do
				cell $prog $size $fam $role
			done
		done
		for size in 1 4096; do
			cell ud $size $fam $role
		done
	done
done

guest_stats "$WORK/stats.after"
# What the guest's kernel said during the matrix (virtio's link speed
# notice aside), kept with the run; rxe logs some of its refusals.
gx 30 dmesg >"$WORK/dmesg" 2>&1
grep -v 'speed is unknown' "$WORK/dmesg" | tail -20 |
	sed 's/^/guest kernel: /'
sleep 1
kill "$dump_pid"
wait "$dump_pid" 2>/dev/null
dump_pid=""
cp "$cap" "$console" "$out/"

# rxe's counters: every error or drop counter must stay still. Two kinds
# of retransmission are shown, not failed: completer_retry_err is rxe
# resending on its timer, which Linux 6.1 arms without ever cancelling it,
# so it fires now and then after the ACK came; duplicate_request is rxe
# seeing a request twice, which RC allows when an ACK was late.
awk 'NR == FNR { b[$1] = $2; next } { print $1, $2 - b[$1] }' \
	"$WORK/stats.before" "$WORK/stats.after" >"$WORK/stats.delta"
echo "guest counters during the matrix: $(tr '\n' ' ' <"$WORK/stats.delta")"
delta() { awk -v c="$1" '$1 == c { print $2 }' "$WORK/stats.delta"; }
echo "retransmissions: rxe0 resent $(delta completer_retry_err) times (completer_retry_err), saw $(delta duplicate_request) duplicates (duplicate_request)"
for c in out_of_seq_request rcvd_seq_err rcvd_rnr_err retry_exceeded_err \
	retry_rnr_exceeded_err send_err link_downed; do
	d=$(delta "$c")
	if [ -z "$d" ]; then
		bad "rxe0 counts $c"
	elif [ "$d" -ne 0 ]; then
		bad "rxe0's $c stays 0 (it grew by $d)"
	else
		ok "rxe0's $c stays 0"
	fi
done

# Every packet either way, as tshark sees it and as our own ICRC does.
tshark -r "$cap" -T fields -e ip.src -e ipv6.src -Y 'udp.dstport == 4791' \
	>"$WORK/srcs" 2>"$WORK/tshark.err"
total=$(wc -l <"$WORK/srcs")
to_rxe=$(grep -c "^$HOST_IP	\|	$HOST_LL\$" "$WORK/srcs")
from_rxe=$(grep -c "^$GUEST_IP	\|	$GUEST_LL\$" "$WORK/srcs")
roce=$(tshark -r "$cap" -Y 'infiniband' 2>/dev/null | wc -l)
echo "captured $total RoCEv2 packets: $to_rxe to rxe0, $from_rxe from it; tshark decodes $roce as RRoCE"
if [ "$total" -gt 0 ] && [ "$roce" -eq "$total" ]; then
	ok "tshark decodes every packet as RoCEv2 ($total)"
else
	bad "tshark decodes every packet as RoCEv2 ($roce of $total)" "$WORK/tshark.err"
fi
# The pingpongs' bytes are no RPC-over-RDMA: that heuristic takes the
# 1-byte SENDs (3 bytes of pad) for it and throws, on rxe's packets as on
# ours, so it is off. A filter tshark refuses exits non-zero, so no check
# here passes by matching nothing; 8388608 is the expert severity "error".
tsh() {
	tshark --disable-heuristic rpcrdma_infiniband -r "$cap" "$@" \
		2>"$WORK/tshark.err"
}
if tsh -Y _ws.malformed >"$WORK/malformed"; then
	reject "tshark: no malformed packet" "$WORK/malformed" '.'
else
	bad "tshark: the malformed filter ran" "$WORK/tshark.err"
fi
ours="ip.src == $HOST_IP || ipv6.src == $HOST_LL"
if tsh -Y "_ws.expert.severity >= 8388608 && ($ours)" >"$WORK/experr"; then
	reject "tshark: no expert error in emuverbs' packets" "$WORK/experr" '.'
else
	bad "tshark: the expert filter ran" "$WORK/tshark.err"
fi
# rxe sends IPv6 with a zero UDP checksum, which tshark calls an error
# (RFC 6936 allows it for tunnels): shown as rxe's, not failed.
tsh -Y "_ws.expert.severity >= 8388608 && !($ours)" \
	-T fields -e _ws.expert.message | sort | uniq -c |
	sed 's/^ */tshark on rxe0'"'"'s packets: /'
# What emuverbs sent to rxe0 either reached rxe's UDP socket, or UDP
# refused it (checksum, port), or the link lost it; and rxe counts a
# packet received once it passed its own checks, the ICRC among them.
udp_in=$(($(delta UdpInDatagrams) + $(delta Udp6InDatagrams)))
udp_err=0
for c in UdpInErrors UdpNoPorts UdpInCsumErrors Udp6InErrors Udp6NoPorts \
	Udp6InCsumErrors; do
	udp_err=$((udp_err + $(delta $c)))
done
lost=$((to_rxe - udp_in))
echo "to rxe0: $to_rxe captured, $udp_in reached its socket, $udp_err refused by UDP; tap dropped $(delta tap_tx_dropped), eth0 dropped $(delta eth0_rx_dropped)"
if [ "$udp_err" -eq 0 ]; then
	ok "the guest's UDP refused none of emuverbs' packets"
else
	bad "the guest's UDP refused none of emuverbs' packets ($udp_err)"
fi
if [ "$lost" -eq 0 ]; then
	ok "every packet emuverbs sent reached rxe0 ($udp_in)"
elif [ "$lost" -le "$(delta tap_tx_dropped)" ] && [ "$udp_err" -eq 0 ]; then
	# The tap's queue overflowed while the guest was busy: the link's
	# loss, not a packet rxe refused. RC resent what mattered.
	echo "the tap's queue dropped $lost of emuverbs' packets (not failed)"
else
	bad "every packet emuverbs sent reached rxe0 ($lost lost)"
fi
# rxe counts a packet once it passed its checks; it drops one for a QP
# that no longer exists without a word or a counter. That happens when a
# program ends with SENDs in flight, as srq_pingpong does (each QP posts
# its next SEND while fewer than -n have completed) and then destroys its
# QPs one by one: our last ACK or our own extra SEND to a QP can reach it
# closed while its neighbours still answer. So the count is taken cell by
# cell, between the readings after each cell, with the capture split at
# the same instants. Packets rxe did not take are excused only in an RC
# cell that passed, and only as many as we sent to a QP after the last of
# our requests rxe acknowledged on it: had rxe needed one of those, it
# would have resent until it got it, or its program would have waited
# and the cell failed. A resend in such a cell is shown with it, not
# failed: it used to fail the cell, but Linux 6.1 rxe resends on a timer
# it never cancels (above), and one such resend in an srq_pingpong cell
# whose end reached closed QPs failed a run (17 of 17 excused packets,
# 13 resends in the matrix).
tshark -r "$cap" -Y udp.dstport==4791 -T fields -e frame.time_epoch \
	-e ip.src -e ipv6.src -e infiniband.bth.opcode \
	-e infiniband.bth.destqp -e infiniband.bth.psn 2>/dev/null |
	awk -v h="$HOST_IP" -v l="$HOST_LL" \
		'{ print $1, ($2 == h || $2 == l) ? "emu" : "rxe", $3, $4, $5 }' \
	>"$WORK/times"
prev=before
while read -r p t name result; do
	[ "$p" = before ] && { prevt=$t; continue; }
	awk -v a="$prevt" -v z="$t" -v name="$name" -v result="$result" '
		FILENAME == ARGV[1] {
			if ($1 <= a || $1 > z) next
			if ($2 == "emu") {
				n++
				# UC and UD peers take every message before
				# they end: nothing of theirs is excused.
				if ($3 >= 32) next
				k[$4]++
				if ($3 != 17) { pos[$5] = k[$4]; qp[$5] = $4 }
			} else if ($3 == 17 && ($5 in pos) && pos[$5] > mark[qp[$5]]) {
				mark[qp[$5]] = pos[$5]
			}
			next
		}
		FILENAME == ARGV[2] { b[$1] = $2; next }
		{ d[$1] = $2 - b[$1] }
		END {
			# Per QP of rxe0: our packets after the last of our
			# requests that it acknowledged.
			for (q in k)
				open += k[q] - mark[q]
			udp = d["UdpInDatagrams"] + d["Udp6InDatagrams"]
			miss = udp - d["rcvd_pkts"]
			if (n != udp)
				printf "lost %s: %d sent to rxe0, %d reached it\n", name, n, udp
			if (miss > 0 && (miss > open || result != "passed"))
				printf "refused %s: %d of %d reached rxe0 and were not taken (%d unanswered at the end)\n", name, miss, udp, open
			else if (miss > 0)
				printf "late %d %s: of our %d last packets to QPs, unanswered%s\n", miss, name, open, d["completer_retry_err"] ? sprintf(" (rxe0 resent %d times in the cell)", d["completer_retry_err"]) : ""
		}' "$WORK/times" "$WORK/stats.$prev" "$WORK/stats.$p"
	prev=$p
	prevt=$t
done <"$WORK/cells" >"$WORK/percell"
sed 's/^/per cell: /' "$WORK/percell"
d=$(delta rcvd_pkts)
late=$(awk '$1 == "late" { n += $2 } END { print n + 0 }' "$WORK/percell")
if [ "$udp_in" -gt 0 ] && [ "$d" -eq "$udp_in" ]; then
	ok "rxe0 took every packet that reached it ($d)"
elif [ "$udp_in" -gt 0 ] && [ $((d + late)) -eq "$udp_in" ] &&
	! grep -q '^refused' "$WORK/percell"; then
	ok "rxe0 took every packet that reached it ($d) but $late last ones to closed QPs"
else
	bad "rxe0 took every packet that reached it (rcvd_pkts +$d of $udp_in)"
fi
d=$(delta sent_pkts)
if [ "$d" -eq "$from_rxe" ]; then
	ok "the capture holds every packet rxe0 sent ($d)"
else
	bad "the capture holds every packet rxe0 sent (sent_pkts +$d, $from_rxe captured)"
fi
/usr/bin/python3 "$here/icrc_check.py" "$cap" >"$WORK/icrc" 2>&1
icrc_rc=$?
cat "$WORK/icrc"
for src in "$HOST_IP" "$GUEST_IP" "$HOST_LL" "$GUEST_LL"; do
	line=$(grep "^icrc $src > " "$WORK/icrc")
	if [ -n "$line" ] && echo "$line" | grep -q ' 0 bad$'; then
		ok "independent ICRC, ${line#icrc }"
	else
		bad "independent ICRC from $src: ${line:-no packets}"
	fi
done
# The check itself: on a packet that verified, changing a masked field
# must keep the ICRC and changing a covered one (the IPv4 identification
# and flags among them) must break it.
for v in 4 6; do
	expect "the ICRC check ignores masked fields, catches covered ones (IPv$v)" \
		"$WORK/icrc" "^icrc self-check IPv$v: masked fields ignored"
done
[ $icrc_rc -eq 0 ] || bad "independent ICRC: every packet" "$WORK/icrc"

cp "$WORK/figures" "$WORK/icrc" "$WORK/dmesg" "$WORK/cells" "$WORK"/stats.* \
	"$out/" 2>/dev/null
for f in "$WORK"/cell*; do
	cp "$f" "$out/"
done
echo "took $(($(date +%s) - started)) s; capture, console and logs in $out"
finish
